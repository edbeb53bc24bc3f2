/*
 * bench_datapath.c - datapath benchmark of the software NIC through the DOCA Flow API
 * (64-byte UDP/IPv4 frames handed to nic_port_rx_burst in place, as the XDP peer runs
 * its program), and the driver of every part (main):
 *   W1: one root BASIC pipe, exact match on the IPv4 destination, N entries, per-entry
 *       counter, per-entry UDP source-port rewrite, fwd port (the peers' workload).
 *       N = 1024: sequential walk and full-period LCG walk ("random"); N = 1M, 16M: the
 *       LCG walk over all N keys (the peers' "rotate": every frame a different entry).
 *       Bursts of 32 and of 1 (the XDP peer runs one packet per call).
 *   W2: root BASIC on the 5-tuple -> HASH pipe (1024 entries, counter, rewrite) -> port.
 *   ins, scale: bench_insert.c.
 * One worker is timed with its thread CPU time (like the peers); two workers by wall
 * time. After the timed runs every W1 entry's packets and bytes are compared with a
 * replay of the walks, a sample of frames byte for byte (the entry's source port, valid
 * UDP and IP checksums, nothing else changed), misses and tx with what was sent; any
 * mismatch exits 3. Output: key=value lines, each figure the median of RUNS runs with
 * its min-max range.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <flow/flow_internal.h>
#include <nic/nic.h>

#include "bench_datapath.h"
#include "flow_test_common.h"

#define BURST 32
#define N_SAMPLE 256
#define N_MISS 64

struct doca_flow_port *bench_ports[2];
int bench_reps = 5;
bool bench_quick;
static uint64_t pkts_per_run = 20000000;
static struct entries_status status;

_Noreturn void bench_die(const char *what, doca_error_t err)
{
	fprintf(stderr, "bench_datapath: %s: %s\n", what, doca_error_get_name(err));
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

void bench_print_median(const char *key, double *v, int n)
{
	double m = bench_median(v, n);
	printf("%s=%.3f\n%s_range=%.3f-%.3f\n", key, m, key, v[0], v[n - 1]);
	fflush(stdout);
}

/* ------------------------------------------------------------------ workers */

struct worker {
	pthread_t th;
	bool lcg;
	int w2;		 /* 5-tuple frames (W2) */
	int burst;
	uint32_t n_keys; /* keys of this worker (a power of two) */
	uint32_t start;	 /* first key of this worker */
	uint64_t pkts;	 /* to send */
	double cpu_s;
	uint8_t frames[BURST][64];
};

/* The walk over a worker's keys: full-period LCG mod 2^m (a = 1 mod 4, c odd), or +1. */
static inline uint32_t walk_next(uint32_t k, bool lcg, uint32_t mask)
{
	return (lcg ? k * 1664525u + 1013904223u : k + 1) & mask;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct nic_buf bufs[BURST];
	uint32_t k = 0;
	const uint32_t mask = w->n_keys - 1;
	for (int i = 0; i < w->burst; i++) {
		nic_gen_frame(w->start, w->frames[i]);
		bufs[i].data = w->frames[i];
		bufs[i].len = 64;
	}
	double t0 = bench_now(CLOCK_THREAD_CPUTIME_ID);
	for (uint64_t sent = 0; sent < w->pkts; sent += (uint64_t)w->burst) {
		for (int i = 0; i < w->burst; i++) {
			k = walk_next(k, w->lcg, mask);
			uint8_t *f = w->frames[i];
			/* One 4-byte store of the daddr, as the peers' rotate walk does (byte stores
			 * would make the parser's 4-byte load wait on store forwarding). */
			uint32_t key = w->start + k, dst = __builtin_bswap32(0x0a000000u + key);
			memcpy(f + 30, &dst, 4);
			if (w->w2) {
				f[34] = (uint8_t)(key >> 8);
				f[35] = (uint8_t)key;
			}
		}
		nic_port_rx_burst(0, bufs, (uint32_t)w->burst);
	}
	w->cpu_s = bench_now(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/*
 * Like RSS on a NIC, the n keys are split into nw disjoint ranges, one per worker, so
 * together they cover all entries (shared: every worker walks all n keys); each worker
 * starts its walk at key 0 of its range.
 */
double bench_run_workers(int nw, bool lcg, uint32_t n, uint64_t pkts, int burst, int w2, bool shared)
{
	struct worker *w = calloc((size_t)nw, sizeof(*w));
	if (w == NULL)
		bench_die("calloc workers", DOCA_ERROR_NO_MEMORY);
	double t0 = bench_now(CLOCK_MONOTONIC);
	for (int i = 0; i < nw; i++) {
		w[i].lcg = lcg;
		w[i].n_keys = shared ? n : n / (uint32_t)nw;
		w[i].start = shared ? 0 : (uint32_t)i * w[i].n_keys;
		w[i].pkts = pkts / (uint64_t)nw;
		w[i].burst = burst;
		w[i].w2 = w2;
		pthread_create(&w[i].th, NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < nw; i++)
		pthread_join(w[i].th, NULL);
	double wall = bench_now(CLOCK_MONOTONIC) - t0;
	double mpps = nw == 1 ? (double)w[0].pkts / w[0].cpu_s / 1e6 : (double)pkts / wall / 1e6;
	free(w);
	return mpps;
}

/* Add to cnt[] what bench_run_workers(nw, lcg, n, pkts, ...) sent: whole periods of a
 * worker's walk give every key of its range the same count, the rest is replayed. */
static void expect_walk(uint32_t *cnt, int nw, bool lcg, uint32_t n, uint64_t pkts)
{
	uint32_t nk = n / (uint32_t)nw;
	uint64_t wp = pkts / (uint64_t)nw;
	for (int i = 0; i < nw; i++) {
		uint32_t start = (uint32_t)i * nk, k = 0, whole = (uint32_t)(wp / nk);
		if (whole)
			for (uint32_t j = 0; j < nk; j++)
				cnt[start + j] += whole;
		for (uint64_t r = wp % nk; r > 0; r--) {
			k = walk_next(k, lcg, nk - 1);
			cnt[start + k]++;
		}
	}
}

/* ------------------------------------------------------------------ W1 */

struct doca_flow_pipe *w1_pipe_create(uint32_t n, const char *name)
{
	struct doca_flow_pipe *pipe = ft_w1_pipe(bench_ports[0], DOCA_FLOW_PIPE_BASIC, name, n, true);
	if (pipe == NULL)
		bench_die("creating the W1 pipe (the refusal was logged)", DOCA_ERROR_UNKNOWN);
	return pipe;
}

void w1_fill(struct doca_flow_pipe *pipe, uint32_t first, uint32_t count, uint16_t queue,
	     struct entries_status *st, struct doca_flow_pipe_entry **e)
{
	struct doca_flow_match m;
	struct doca_flow_actions act;
	memset(&m, 0, sizeof(m));
	memset(&act, 0, sizeof(act));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	for (uint32_t j = 0; j < count; j++) {
		uint32_t i = first + j;
		bool last = (j & 1023) == 1023 || j + 1 == count;
		m.outer.ip4.dst_ip = DOCA_HTOBE32(0x0a000000u + i);
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16(w1_sport(i));
		TRY(doca_flow_pipe_basic_add_entry(queue, pipe, &m, 0, &act, NULL, NULL,
						   last ? DOCA_FLOW_ENTRY_FLAGS_NO_WAIT
							: DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH,
						   st, e ? &e[i] : NULL));
		if (last)
			TRY(doca_flow_entries_process(bench_ports[0], queue, DEFAULT_TIMEOUT_US, 0));
	}
	/* Completions arrive by entries_process; wait for the last ones. */
	for (int spin = 0; st->nb_processed < (int)count && spin < 1000; spin++)
		TRY(doca_flow_entries_process(bench_ports[0], queue, DEFAULT_TIMEOUT_US, 0));
	if (st->failure || st->nb_processed < (int)count)
		bench_die("W1 fill completions", DOCA_ERROR_UNKNOWN);
}

static int fails;
static void check(bool ok, const char *tag, const char *what, uint64_t got, uint64_t want)
{
	if (!ok && fails++ < 10)
		fprintf(stderr, "bench_datapath: %s check: %s: got %llu, expected %llu\n", tag, what,
			(unsigned long long)got, (unsigned long long)want);
}

/* Ones' complement sum of a byte range as 16-bit big-endian words. */
static uint32_t sum16(const uint8_t *p, size_t len, uint32_t s)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)(p[len - 1] << 8);
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The frame of key `key` after the pipe: the entry's port, valid checksums, no other byte changed. */
static void check_frame(const char *tag, uint32_t key, const uint8_t *in, const uint8_t *out)
{
	uint16_t sport = (uint16_t)(out[34] << 8 | out[35]);
	check(memcmp(in, out, 34) == 0 && memcmp(in + 36, out + 36, 4) == 0 && memcmp(in + 42, out + 42, 22) == 0,
	      tag, "frame bytes other than the UDP source port and checksum unchanged", key, key);
	check(sport == w1_sport(key), tag, "rewritten UDP source port", sport, w1_sport(key));
	check(fold(sum16(out + 14, 20, 0)) == 0xffff, tag, "IPv4 header checksum valid (key)", key, key);
	uint8_t pseudo[12] = {0};
	memcpy(pseudo, out + 26, 8);
	pseudo[9] = 17;
	pseudo[10] = out[38], pseudo[11] = out[39];
	uint32_t s = sum16(out + 34, (size_t)(out[38] << 8 | out[39]), sum16(pseudo, 12, 0));
	check(fold(s) == 0xffff, tag, "UDP checksum valid (key)", key, key);
}

/*
 * After the timed runs: a sample of fresh frames byte for byte, N_MISS frames to keys
 * outside the table, then every entry's packets and bytes against cnt[] (the replayed
 * walks plus the sample), the miss counter and port 1's tx against what was sent.
 */
static void w1_check(const char *tag, struct doca_flow_pipe *pipe, struct doca_flow_pipe_entry **e, uint32_t n,
		     uint32_t *cnt, const struct flowdpa_port_stats *tx0)
{
	uint8_t in[64], out[64];
	for (uint32_t j = 0; j < N_SAMPLE; j++) {
		uint32_t key = (j * 2654435761u) & (n - 1);
		nic_gen_frame(key, in);
		memcpy(out, in, 64);
		struct nic_buf b = {.data = out, .len = 64};
		nic_port_rx_burst(0, &b, 1);
		check_frame(tag, key, in, out);
		cnt[key]++;
	}
	for (uint32_t j = 0; j < N_MISS; j++) {
		nic_gen_frame(n + j, out);
		struct nic_buf b = {.data = out, .len = 64};
		nic_port_rx_burst(0, &b, 1);
	}
	uint64_t hits = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct doca_flow_resource_query q;
		memset(&q, 0, sizeof(q));
		TRY(doca_flow_resource_query_entry(e[i], &q));
		if (q.counter.total_pkts != cnt[i] || q.counter.total_bytes != 64ull * cnt[i]) {
			check(false, tag, "entry packets against the replayed walks (entry index next)", q.counter.total_pkts, cnt[i]);
			check(false, tag, "entry index; bytes", i, q.counter.total_bytes);
		}
		hits += cnt[i];
	}
	check(ft_miss_pkts(pipe) == N_MISS, tag, "pipe miss counter", ft_miss_pkts(pipe), N_MISS);
	struct flowdpa_port_stats tx1;
	TRY(flowdpa_port_stats_get(1, &tx1));
	check(tx1.tx_pkts - tx0->tx_pkts == hits, tag, "port 1 tx packets", tx1.tx_pkts - tx0->tx_pkts, hits);
	check(tx1.tx_bytes - tx0->tx_bytes == 64 * hits, tag, "port 1 tx bytes", tx1.tx_bytes - tx0->tx_bytes, 64 * hits);
	if (fails) {
		printf("w1_%s_check=FAIL\n", tag);
		fflush(stdout);
		exit(3);
	}
	printf("w1_%s_check=pass (%llu packets, %u entries, %d frames compared, %d misses)\n", tag,
	       (unsigned long long)hits, n, N_SAMPLE, N_MISS);
}

struct w1_run {
	bool lcg;
	int burst, nw;
};

static void bench_w1(uint32_t n)
{
	static const struct w1_run small[] = {{false, 32, 1}, {true, 32, 1}, {false, 1, 1}, {true, 1, 1}, {false, 32, 2}};
	static const struct w1_run big[] = {{true, 32, 1}, {true, 1, 1}, {true, 32, 2}};
	const struct w1_run *runs = n <= 4096 ? small : big;
	int nr = n <= 4096 ? 5 : 3;
	char tag[24];
	snprintf(tag, sizeof(tag), "n%u", n);
	struct flowdpa_port_stats tx0;
	TRY(flowdpa_port_stats_get(1, &tx0));
	struct doca_flow_pipe *pipe = w1_pipe_create(n, "W1");
	struct doca_flow_pipe_entry **e = calloc(n, sizeof(*e));
	uint32_t *cnt = calloc(n, sizeof(*cnt));
	if (e == NULL || cnt == NULL)
		bench_die("calloc W1", DOCA_ERROR_NO_MEMORY);
	memset(&status, 0, sizeof(status));
	w1_fill(pipe, 0, n, 0, &status, e);
	/* The root lookup the NIC chose for this table (fixed per size, not per machine). */
	printf("w1_%s_lookup=%s\n", tag, nic_pipe_lookup_path(pipe->nic));
	if (n > 4096) {
		/* Untimed warm-up: one pass over all entries with one worker, then with two, so
		 * that the timed runs find the counter cells (committed when a worker first counts
		 * on an entry) and the tables' pages in place, as the peers allocate theirs up
		 * front. The first pass is reported as the cold rate. */
		double cold = bench_run_workers(1, true, n, n, BURST, 0, false);
		expect_walk(cnt, 1, true, n, n);
		(void)bench_run_workers(2, true, n, n, BURST, 0, false);
		expect_walk(cnt, 2, true, n, n);
		printf("w1_%s_cold_lcg_b32_1w_mpps=%.3f\nw1_%s_warmup=one pass with 1 worker and one with 2, untimed\n",
		       tag, cold, tag);
	}
	double v[5][99];
	for (int r = 0; r < bench_reps; r++) /* alternated, so that a noisy moment hits all */
		for (int c = 0; c < nr; c++) {
			/* One packet per call costs a DRAM miss each on a big table: a quarter of the packets. */
			uint64_t pkts = n > 4096 && runs[c].burst == 1 ? pkts_per_run / 4 : pkts_per_run;
			pkts -= pkts % (2 * BURST);
			v[c][r] = bench_run_workers(runs[c].nw, runs[c].lcg, n, pkts, runs[c].burst, 0, false);
			expect_walk(cnt, runs[c].nw, runs[c].lcg, n, pkts);
		}
	w1_check(tag, pipe, e, n, cnt, &tx0);
	for (int c = 0; c < nr; c++) {
		char key[64];
		snprintf(key, sizeof(key), "w1_%s_%s_b%d_%dw_mpps", tag, runs[c].lcg ? "lcg" : "seq", runs[c].burst,
			 runs[c].nw);
		bench_print_median(key, v[c], bench_reps);
	}
	doca_flow_pipe_destroy(pipe);
	free(e);
	free(cnt);
}

/* ------------------------------------------------------------------ W2 */

static void bench_w2(void)
{
	const uint32_t n = 1024;
	struct doca_flow_match m, mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *hash, *root;
	struct doca_flow_pipe_entry **he = calloc(n, sizeof(*he));

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	mask.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	mask.outer.udp.l4_port.src_port = 0xffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	TRY(doca_flow_pipe_cfg_create(&cfg, bench_ports[0]));
	TRY(set_flow_pipe_cfg(cfg, "W2_HASH", DOCA_FLOW_PIPE_HASH, false));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, n));
	TRY(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1));
	TRY(doca_flow_pipe_cfg_set_monitor(cfg, &mon));
	TRY(doca_flow_pipe_create(cfg, &to1, NULL, &hash));
	doca_flow_pipe_cfg_destroy(cfg);
	memset(&status, 0, sizeof(status));
	for (uint32_t i = 0; i < n; i++) {
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)(20000 + i));
		TRY(doca_flow_pipe_hash_add_entry(0, hash, i, 0, &act, NULL, NULL, 0, &status, &he[i]));
	}
	TRY(doca_flow_entries_process(bench_ports[0], 0, DEFAULT_TIMEOUT_US, 0));

	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.ip4.src_ip = 0xffffffff;
	m.outer.ip4.dst_ip = 0xffffffff;
	m.outer.udp.l4_port.src_port = 0xffff;
	m.outer.udp.l4_port.dst_port = 0xffff;
	struct doca_flow_fwd to_hash = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = hash};
	TRY(doca_flow_pipe_cfg_create(&cfg, bench_ports[0]));
	TRY(set_flow_pipe_cfg(cfg, "W2_ROOT", DOCA_FLOW_PIPE_BASIC, true));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, n));
	TRY(doca_flow_pipe_cfg_set_match(cfg, &m, NULL));
	TRY(doca_flow_pipe_create(cfg, &to_hash, &drop, &root));
	doca_flow_pipe_cfg_destroy(cfg);
	for (uint32_t i = 0; i < n; i++) {
		m.outer.ip4.src_ip = BE_IPV4_ADDR(192, 168, 0, 1);
		m.outer.ip4.dst_ip = DOCA_HTOBE32(0x0a000000u + i);
		m.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)i);
		m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(5000);
		TRY(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, &status, NULL));
	}
	TRY(doca_flow_entries_process(bench_ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	if (status.failure || status.nb_processed != 2 * (int)n)
		bench_die("W2 completions", DOCA_ERROR_UNKNOWN);
	double m1[99], m2[99];
	for (int r = 0; r < bench_reps; r++) {
		m1[r] = bench_run_workers(1, false, n, pkts_per_run, BURST, 1, false);
		m2[r] = bench_run_workers(2, false, n, pkts_per_run, BURST, 1, false);
	}
	uint64_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s += ft_entry_pkts(he[i]);
	if (s != (uint64_t)bench_reps * 2 * pkts_per_run) {
		fprintf(stderr, "bench_datapath: w2: counters say %llu packets, %llu were sent\n", (unsigned long long)s,
			(unsigned long long)bench_reps * 2 * pkts_per_run);
		exit(3);
	}
	printf("w2_check=pass\n");
	bench_print_median("w2_1w_mpps", m1, bench_reps);
	bench_print_median("w2_2w_mpps", m2, bench_reps);
	doca_flow_pipe_destroy(root);
	doca_flow_pipe_destroy(hash);
	free(he);
}

/* ------------------------------------------------------------------ main */

void bench_flow_start(void)
{
	if (init_doca_flow(2, "vnf,hws") != DOCA_SUCCESS || init_doca_flow_ports(2, bench_ports) != DOCA_SUCCESS)
		bench_die("init", DOCA_ERROR_INITIALIZATION);
	/* Keep no copies of the output: the benchmark measures the pipeline, not captures. */
	TRY(flowdpa_port_capture_set_depth(1, 0));
	TRY(flowdpa_host_capture_set_depth(0, 0));
}

void bench_flow_stop(void)
{
	stop_doca_flow_ports(2, bench_ports);
	doca_flow_destroy();
}

void bench_flow_restart(void)
{
	bench_flow_stop();
	bench_flow_start();
}

double bench_bpe_basic, bench_bpe_hash, bench_basic_meps; /* the 1M figures, 0 until measured */

static double mem_available(void)
{
	char line[128];
	double kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

bool bench_fits(const char *part, uint32_t n, bool basic, int fills)
{
	double bpe = basic ? bench_bpe_basic : bench_bpe_hash;
	if (bpe <= 0) { /* not measured in this run: one 1M-entry fresh process says */
		bench_scale_part(1u << 20, true, true);
		bpe = basic ? bench_bpe_basic : bench_bpe_hash;
	}
	/* The table, W1's entry handles and replay counts, 10% slack. */
	double need = (double)n * (bpe + 12) * 1.1, avail = mem_available() / 2;
	if (need > avail) {
		printf("%s_skipped=needs %.1f GB at %.0f B/entry (the 1M figure), more than half of MemAvailable (%.1f GB)\n",
		       part, need / 1e9, bpe, avail / 1e9);
		fflush(stdout);
		return false;
	}
	double fill_s = bench_basic_meps > 0 ? (double)n / (bench_basic_meps * 1e6) * fills : 0;
	if (fill_s > 300) {
		printf("%s_skipped=its %d fills would take %.0f s at the 1M insertion rate (%.2f M/s)\n", part, fills,
		       fill_s, bench_basic_meps);
		fflush(stdout);
		return false;
	}
	return true;
}

static const char usage[] =
	"usage: bench_datapath [-q] [-r RUNS] [-p PARTS]   (PARTS: comma list of w1k w1m w1g w2 ins ins16m scale scale16m\n"
	"       fit; default all, -q: all but w1g ins16m scale16m fit, with 10x fewer packets)\n"
	"       bench_datapath -S basic|hash -n N        (one bytes-per-entry measurement, in this process)\n"
	"       bench_datapath [-r RUNS] -F 1|2          (RUNS fills of 1M BASIC entries with 1 or 2 queues, alone)\n";

int main(int argc, char **argv)
{
	const char *parts = NULL, *scale_type = NULL;
	uint32_t scale_n = 0;
	const char *fills_arg = NULL; /* -F */
	int fills_nq = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-q") == 0)
			bench_quick = true;
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			bench_reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
			parts = argv[++i];
		else if (strcmp(argv[i], "-S") == 0 && i + 1 < argc)
			scale_type = argv[++i];
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			scale_n = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "-F") == 0 && i + 1 < argc)
			fills_arg = argv[++i];
		else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (bench_reps < 1 || bench_reps > 99) {
		fprintf(stderr, "bench_datapath: -r takes 1..99\n");
		return 2;
	}
	if (scale_type)
		return bench_scale_child(scale_type, scale_n);
	if (fills_arg) {
		fills_nq = strcmp(fills_arg, "1") == 0 ? 1 : strcmp(fills_arg, "2") == 0 ? 2 : 0;
		if (fills_nq == 0) {
			fprintf(stderr, "bench_datapath: -F takes 1 or 2 (queues), not '%s'\n", fills_arg);
			return 2;
		}
		parts = "fills";
	}
	if (parts == NULL)
		parts = bench_quick ? "w1k,w1m,w2,ins,scale" : "w1k,w1m,w1g,w2,ins,ins16m,scale,scale16m,fit";
	char list[128];
	snprintf(list, sizeof(list), ",%s,", parts);
#define HAS(p) (strstr(list, "," p ",") != NULL)
	if (bench_quick)
		pkts_per_run = 2000000;
	pkts_per_run -= pkts_per_run % (2 * BURST);
	/* The command line and parameters, so a result file says what produced it. */
	printf("cmd=");
	for (int i = 0; i < argc; i++)
		printf("%s%s", i ? " " : "", argv[i]);
	printf("\nparts=%s\npkts_per_run=%llu\nruns=%d\nburst=%d\nframe_bytes=64\n", parts,
	       (unsigned long long)pkts_per_run, bench_reps, BURST);
	/* The L2 size is for the record only: the NIC's lookup choice depends on the table
	 * size alone (w1_*_lookup lines). */
	printf("l2_cache_bytes=%ld\n", sysconf(_SC_LEVEL2_CACHE_SIZE));
	fflush(stdout);
	if (fills_nq) {
		bench_flow_start();
		bench_insert_fills(fills_nq);
		bench_flow_stop();
		return 0;
	}
	/* Fresh processes first: nothing of this one is resident yet. */
	if (HAS("scale"))
		bench_scale_part(1u << 20, true, true);
	bench_flow_start();
	if (HAS("w1k"))
		bench_w1(1024);
	if (HAS("w1m"))
		bench_w1(1u << 20);
	if (HAS("w2"))
		bench_w2();
	bench_flow_restart();
	if (HAS("ins"))
		bench_insert_part(1u << 20, true);
	/* 16M entries: each part frees its tables before the next; a part that would not fit
	 * in half of the available memory, or whose fills would take minutes, says so instead. */
	if (HAS("w1g") && bench_fits("w1_n16777216", 1u << 24, true, 1)) {
		bench_w1(1u << 24);
		bench_flow_restart();
	}
	int r3 = bench_reps > 3 ? 3 : bench_reps;
	if (HAS("ins16m")) {
		bool basic = bench_fits("insert_basic_n16777216", 1u << 24, true, 2 * r3);
		if (basic || bench_fits("insert_hash_n16777216", 1u << 24, false, 0))
			bench_insert_part(1u << 24, basic);
	}
	if (HAS("scale16m")) {
		bool hash = bench_fits("scale_hash_n16777216", 1u << 24, false, 0);
		bool basic = bench_fits("scale_basic_n16777216", 1u << 24, true, r3);
		if (hash || basic)
			bench_scale_part(1u << 24, hash, basic);
	}
	if (HAS("fit"))
		bench_fit_part();
	bench_flow_stop();
	return 0;
}
