/*
 * scale.c - big tables through the DOCA Flow API (issue 13, suite slow): memory per
 * filled entry (RSS delta from /proc/self/statm, one fresh process per table), HASH pipe
 * creation time, keyed insertion rate with one or two queues, then real frames through
 * the big table: each one's rewritten UDP source port, its checksums and its entry's
 * counter are checked. Optionally (-w) the W1 datapath rate over the whole table.
 *
 * Usage: scale create N MAX_MS | hash N MAX_BPE | basic N QUEUES MAX_BPE [-w]
 * A limit of 0 only reports. Figures are printed as key=value lines. Insertion rates
 * are per thread CPU second (the machine is shared): the two-queue figure is the
 * entries over the slowest thread's CPU time, i.e. the rate with a core per queue.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nic/nic.h>

#include "flow_test_common.h"

/* Under a sanitizer the tables are scaled down to 1M entries and memory is not checked
 * (shadow memory is part of the RSS); creation gets ten times the time. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCALE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SCALE_SANITIZED 1
#endif
#endif
#ifndef SCALE_SANITIZED
#define SCALE_SANITIZED 0
#endif

#define MAX_QUEUES 2
#define NR_PROBES 2000
#define BURST 32

static struct doca_flow_port *ports[2];
static struct entries_status status[MAX_QUEUES];

static double now_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, doca_error_t err)
{
	fprintf(stderr, "scale: %s: %s\n", what, doca_error_get_name(err));
	exit(1);
}

#define TRY(call)                                        \
	do {                                             \
		doca_error_t _e = (call);                \
		if (_e != DOCA_SUCCESS)                  \
			die(#call, _e);                  \
	} while (0)

static int failures;
#define EXPECT(cond, ...)                                             \
	do {                                                          \
		if (!(cond)) {                                        \
			fprintf(stderr, "scale: FAIL: " __VA_ARGS__); \
			fputc('\n', stderr);                          \
			failures++;                                   \
		}                                                     \
	} while (0)

static uint64_t rss_bytes(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f == NULL || fscanf(f, "%lu %lu", &size, &res) != 2)
		die("/proc/self/statm", DOCA_ERROR_IO_FAILED);
	fclose(f);
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The entry a test keeps for a probe: the handles of the probed keys only, so that the
 * test's own memory stays out of the table's figure. */
struct probe {
	uint32_t key; /* BASIC: the IPv4 destination index; HASH: the entry index hit */
	uint32_t dst;
	struct doca_flow_pipe_entry *e;
	uint64_t sent;
};

static int probe_cmp(const void *a, const void *b)
{
	const struct probe *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

static uint16_t sport_of(uint32_t i)
{
	return (uint16_t)(1024 + i % 60000);
}

/* Send every probe's frame once and check what came out of port 1. */
static void probes_send(struct probe *pr, uint32_t n, bool hash)
{
	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t len, olen;
	for (uint32_t i = 0; i < n; i++) {
		len = ft_udp4(f, 0xc0a80001u, pr[i].dst, 7, 5000);
		TRY(flowdpa_port_inject(0, f, len));
		pr[i].sent++;
		if (flowdpa_port_capture_pop(1, out, sizeof(out), &olen) != DOCA_SUCCESS) {
			EXPECT(0, "probe %u (dst %08x): nothing left port 1", i, pr[i].dst);
			continue;
		}
		EXPECT(olen == len && ft_ip4_dst(out) == pr[i].dst, "probe %u: wrong frame out", i);
		EXPECT(ft_sport(out) == sport_of(pr[i].key), "probe %u: source port %u, expected %u (%s entry %u)", i,
		       ft_sport(out), sport_of(pr[i].key), hash ? "HASH" : "BASIC", pr[i].key);
		EXPECT(ft_checksums_ok(out, olen), "probe %u: bad checksums after the rewrite", i);
	}
}

static void probes_check_counters(const struct probe *pr, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t expect = 0;
		/* Several probes may hit one HASH entry: it counts all of them. */
		for (uint32_t j = 0; j < n; j++)
			expect += pr[j].e == pr[i].e ? pr[j].sent : 0;
		uint64_t got = ft_entry_pkts(pr[i].e);
		EXPECT(got == expect, "probe %u: entry counter %llu, expected %llu", i, (unsigned long long)got,
		       (unsigned long long)expect);
	}
}

static struct doca_flow_pipe *pipe_new(enum doca_flow_pipe_type type, uint32_t n, bool root)
{
	struct doca_flow_pipe *pipe =
		ft_w1_pipe(ports[0], type, type == DOCA_FLOW_PIPE_HASH ? "SCALE_HASH" : "SCALE_BASIC", n, root);
	if (pipe == NULL)
		die("creating the pipe (the refusal was logged)", DOCA_ERROR_UNKNOWN);
	return pipe;
}

/* ------------------------------------------------------------------ create */

static int run_create(uint32_t n, double max_ms)
{
	uint64_t rss0 = rss_bytes();
	double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	struct doca_flow_pipe *p = pipe_new(DOCA_FLOW_PIPE_HASH, n, false);
	double ms = (now_s(CLOCK_MONOTONIC) - t0) * 1e3, cpu_ms = (now_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e3;
	uint64_t rss1 = rss_bytes();
	printf("hash_create_n=%u\nhash_create_ms=%.2f\nhash_create_cpu_ms=%.2f\nhash_create_rss_mib=%.1f\n", n, ms,
	       cpu_ms, (double)(rss1 - rss0) / (1 << 20));
	EXPECT(max_ms == 0 || cpu_ms <= max_ms * (SCALE_SANITIZED ? 10 : 1), "creating a %u-entry HASH pipe took %.2f ms of CPU (limit %.1f)", n,
	       cpu_ms, max_ms);
	doca_flow_pipe_destroy(p);
	return 0;
}

/* ------------------------------------------------------------------ HASH */

static int run_hash(uint32_t n, double max_bpe)
{
	static struct probe pr[NR_PROBES];
	struct doca_flow_actions act;
	memset(&act, 0, sizeof(act));
	uint64_t rss0 = rss_bytes();
	struct doca_flow_pipe *p = pipe_new(DOCA_FLOW_PIPE_HASH, n, false);
	/* The root sends everything to the HASH pipe. */
	struct doca_flow_pipe *root;
	{
		struct doca_flow_match m;
		struct doca_flow_pipe_cfg *cfg;
		struct doca_flow_fwd to = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = p};
		memset(&m, 0, sizeof(m));
		TRY(doca_flow_pipe_cfg_create(&cfg, ports[0]));
		TRY(set_flow_pipe_cfg(cfg, "SCALE_ROOT", DOCA_FLOW_PIPE_BASIC, true));
		TRY(doca_flow_pipe_cfg_set_match(cfg, &m, NULL));
		TRY(doca_flow_pipe_create(cfg, &to, NULL, &root));
		doca_flow_pipe_cfg_destroy(cfg);
		TRY(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, &status[0], NULL));
		TRY(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	}
	/* Which entry each probe's frame hits: the pipe's hash of its match. */
	for (uint32_t i = 0; i < NR_PROBES; i++) {
		struct doca_flow_match m;
		uint32_t h;
		memset(&m, 0, sizeof(m));
		pr[i].dst = 0x0b000000u + i * 7919u;
		m.outer.ip4.dst_ip = DOCA_HTOBE32(pr[i].dst);
		TRY(doca_flow_pipe_calc_hash(p, &m, &h));
		pr[i].key = h % n;
	}
	qsort(pr, NR_PROBES, sizeof(pr[0]), probe_cmp);
	uint32_t next = 0;
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	for (uint32_t i = 0; i < n; i++) {
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16(sport_of(i));
		bool last = (i & 1023) == 1023 || i == n - 1;
		struct doca_flow_pipe_entry *e, **out = next < NR_PROBES && pr[next].key == i ? &e : NULL;
		TRY(doca_flow_pipe_hash_add_entry(0, p, i, 0, &act, NULL, NULL,
						  last ? DOCA_FLOW_ENTRY_FLAGS_NO_WAIT : DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH,
						  &status[0], out));
		while (out && next < NR_PROBES && pr[next].key == i)
			pr[next++].e = e;
		if (last)
			TRY(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	}
	double cpu = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	uint64_t rss1 = rss_bytes();
	EXPECT(!status[0].failure && status[0].nb_add == (int)n + 1, "HASH fill: %d adds completed of %u",
	       status[0].nb_add, n + 1);
	double bpe = (double)(rss1 - rss0) / n;
	printf("hash_n=%u\nhash_bytes_per_entry=%.1f\nhash_insert_meps=%.2f\n", n, bpe, n / cpu / 1e6);
	EXPECT(max_bpe == 0 || SCALE_SANITIZED || bpe <= max_bpe, "HASH: %.1f bytes per entry (limit %.0f)", bpe, max_bpe);
	EXPECT(next == NR_PROBES, "HASH: %u probe handles of %u", next, NR_PROBES);
	probes_send(pr, NR_PROBES, true);
	probes_send(pr, NR_PROBES / 2, true);
	probes_check_counters(pr, NR_PROBES);
	doca_flow_pipe_destroy(root);
	doca_flow_pipe_destroy(p);
	return 0;
}

/* ------------------------------------------------------------------ BASIC */

struct filler {
	pthread_t th;
	struct doca_flow_pipe *pipe;
	uint16_t q;
	uint32_t first, n, stride;
	struct probe *pr;
	uint32_t nr_pr;
	double cpu_s;
};

static void *fill_main(void *arg)
{
	struct filler *f = arg;
	struct doca_flow_match m;
	struct doca_flow_actions act;
	memset(&m, 0, sizeof(m));
	memset(&act, 0, sizeof(act));
	uint32_t next_probe = 0;
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	for (uint32_t j = 0; j < f->n; j++) {
		uint32_t i = f->first + j * f->stride;
		struct doca_flow_pipe_entry *e, **out = NULL;
		m.outer.ip4.dst_ip = DOCA_HTOBE32(0x0a000000u + i);
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16(sport_of(i));
		/* Probes are every (n / NR_PROBES)-th key: keep those handles only. */
		if (next_probe < f->nr_pr && f->pr[next_probe].key == i)
			out = &e;
		bool last = (j & 1023) == 1023 || j == f->n - 1;
		TRY(doca_flow_pipe_basic_add_entry(f->q, f->pipe, &m, 0, &act, NULL, NULL,
						   last ? DOCA_FLOW_ENTRY_FLAGS_NO_WAIT
							: DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH,
						   &status[f->q], out));
		if (out)
			f->pr[next_probe++].e = e;
		if (last)
			TRY(doca_flow_entries_process(ports[0], f->q, DEFAULT_TIMEOUT_US, 0));
	}
	f->cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	return NULL;
}

static void *w1_main(void *arg)
{
	uint32_t n = *(uint32_t *)arg;
	static uint8_t frames[BURST][64];
	struct nic_buf bufs[BURST];
	uint32_t k = 0, mask = 1;
	while (mask < n)
		mask <<= 1;
	mask--;
	for (int i = 0; i < BURST; i++) {
		nic_gen_frame(0, frames[i]);
		bufs[i].data = frames[i];
		bufs[i].len = 64;
	}
	const uint64_t pkts = 4000000;
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	for (uint64_t sent = 0; sent < pkts; sent += BURST) {
		for (int i = 0; i < BURST; i++) {
			do /* full-period LCG mod 2^m, keys past n skipped */
				k = (k * 1664525u + 1013904223u) & mask;
			while (k >= n);
			uint32_t dst = __builtin_bswap32(0x0a000000u + k);
			memcpy(frames[i] + 30, &dst, 4);
		}
		nic_port_rx_burst(0, bufs, BURST);
	}
	printf("basic_w1_1w_mpps=%.2f\n", pkts / (now_s(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e6);
	return NULL;
}

static int run_basic(uint32_t n, uint16_t nq, double max_bpe, bool w1)
{
	static struct probe pr[MAX_QUEUES][NR_PROBES];
	struct filler f[MAX_QUEUES];
	uint64_t rss0 = rss_bytes();
	struct doca_flow_pipe *p = pipe_new(DOCA_FLOW_PIPE_BASIC, n, true);
	uint32_t per = n / nq, step = per / NR_PROBES ? per / NR_PROBES : 1;
	for (uint16_t q = 0; q < nq; q++) {
		f[q] = (struct filler){.pipe = p, .q = q, .first = q, .n = per, .stride = nq, .pr = pr[q]};
		for (uint32_t j = 0; j < per && f[q].nr_pr < NR_PROBES; j += step) {
			struct probe *x = &pr[q][f[q].nr_pr++];
			x->key = q + j * nq;
			x->dst = 0x0a000000u + x->key;
		}
	}
	double t0 = now_s(CLOCK_MONOTONIC);
	for (uint16_t q = 0; q < nq; q++)
		if (pthread_create(&f[q].th, NULL, fill_main, &f[q]) != 0)
			die("pthread_create", DOCA_ERROR_OPERATING_SYSTEM);
	double cpu = 0;
	for (uint16_t q = 0; q < nq; q++) {
		pthread_join(f[q].th, NULL);
		cpu = f[q].cpu_s > cpu ? f[q].cpu_s : cpu;
	}
	double wall = now_s(CLOCK_MONOTONIC) - t0;
	uint64_t rss1 = rss_bytes();
	uint32_t total = per * nq;
	for (uint16_t q = 0; q < nq; q++)
		EXPECT(!status[q].failure && status[q].nb_add == (int)per, "BASIC fill queue %u: %d of %u adds", q,
		       status[q].nb_add, per);
	double bpe = (double)(rss1 - rss0) / total;
	printf("basic_n=%u\nbasic_queues=%u\nbasic_bytes_per_entry=%.1f\nbasic_insert_meps=%.2f\n"
	       "basic_insert_wall_meps=%.2f\n",
	       total, nq, bpe, total / cpu / 1e6, total / wall / 1e6);
	EXPECT(max_bpe == 0 || SCALE_SANITIZED || bpe <= max_bpe, "BASIC: %.1f bytes per entry (limit %.0f)", bpe, max_bpe);
	for (uint16_t q = 0; q < nq; q++) {
		probes_send(pr[q], f[q].nr_pr, false);
		probes_send(pr[q], f[q].nr_pr / 3, false);
		probes_check_counters(pr[q], f[q].nr_pr);
	}
	/* A key never added misses (the pipe's miss drops it): nothing leaves port 1. */
	uint8_t fr[128], out[FLOWDPA_MAX_FRAME];
	uint32_t olen;
	TRY(flowdpa_port_inject(0, fr, ft_udp4(fr, 1, 0x0a000000u + total + 5, 7, 5000)));
	EXPECT(flowdpa_port_capture_pop(1, out, sizeof(out), &olen) != DOCA_SUCCESS, "a key not added was forwarded");
	if (w1) {
		TRY(flowdpa_port_capture_set_depth(1, 0));
		w1_main(&total);
	}
	doca_flow_pipe_destroy(p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: scale create N MAX_MS | hash N MAX_BPE | basic N QUEUES MAX_BPE [-w]\n");
		return 2;
	}
	uint32_t n = (uint32_t)strtoul(argv[2], NULL, 0);
	uint16_t nq = strcmp(argv[1], "basic") == 0 ? (uint16_t)atoi(argv[3]) : 1;
	if (n == 0 || nq < 1 || nq > MAX_QUEUES || (strcmp(argv[1], "basic") == 0 && argc < 5)) {
		fprintf(stderr, "scale: bad arguments\n");
		return 2;
	}
	if (init_doca_flow(nq, "vnf,hws") != DOCA_SUCCESS || init_doca_flow_ports(2, ports) != DOCA_SUCCESS)
		die("init", DOCA_ERROR_INITIALIZATION);
	if (SCALE_SANITIZED && strcmp(argv[1], "create") != 0 && n > (1u << 20)) {
		printf("sanitized_n_from=%u\n", n);
		n = 1u << 20;
	}
	int rc;
	if (strcmp(argv[1], "create") == 0)
		rc = run_create(n, atof(argv[3]));
	else if (strcmp(argv[1], "hash") == 0)
		rc = run_hash(n, atof(argv[3]));
	else
		rc = run_basic(n, nq, atof(argv[4]), argc > 5 && strcmp(argv[5], "-w") == 0);
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	if (failures)
		fprintf(stderr, "scale: %d check(s) failed\n", failures);
	return rc || failures ? 1 : 0;
}
