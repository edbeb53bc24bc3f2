/*
 * bench_datapath.c - datapath and insertion benchmark of the software NIC through the
 * DOCA Flow API, with 64-byte UDP/IPv4 frames:
 *   W1: one root BASIC pipe, exact match on the IPv4 destination, N entries, per-entry
 *       counter, per-entry UDP source-port rewrite, fwd port (the XDP peer's workload).
 *       N = 1024: frames cycle over all entries. N = 1M: every frame hits a different
 *       entry chosen by a full-period LCG over all N keys (the peer's "rotate" walk).
 *   W2: root BASIC on the 5-tuple -> HASH pipe (1024 entries, counter, source-port path
 *       selector) -> port.
 *   insert: hash_add_entry + entries_process into a 1M-entry HASH pipe, entries/s.
 * One worker is timed with its thread CPU time (like the peer); two workers by wall
 * time over both. Counters are checked against the packets sent.
 * Output: key=value lines, each figure the median of RUNS runs (default 5) with its
 * min-max range. Usage: bench_datapath [-q] [-1] [-2] [-i] [-n N] [-r RUNS]
 * (-q: fewer packets; for profiling, only the parts given: -1 W1 with one worker,
 * N=1024 or -n N; -2 W2; -i insertion).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nic/nic.h>

#include "flow_test_common.h"

#define BURST 32

static struct doca_flow_port *ports[2];
static uint64_t pkts_per_run = 20000000;
static int reps = 5; /* each figure is the median of this many runs */
static bool one_worker; /* -1: profile the one-worker W1 N=1024 run alone */

static double now_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, doca_error_t err)
{
	fprintf(stderr, "bench_datapath: %s: %s\n", what, doca_error_get_name(err));
	exit(1);
}

#define TRY(call)                                        \
	do {                                             \
		doca_error_t _e = (call);                \
		if (_e != DOCA_SUCCESS)                  \
			die(#call, _e);                  \
	} while (0)

/* ------------------------------------------------------------------ workers */

enum walk { WALK_CYCLE, WALK_LCG };

struct worker {
	pthread_t th;
	enum walk walk;
	uint32_t n_keys;     /* keys of this worker (a power of two) */
	uint32_t start;	     /* first key of this worker */
	uint64_t pkts;	     /* to send */
	int w2;		     /* 5-tuple frames (W2) */
	double cpu_s;
	uint8_t frames[BURST][64];
};

/* Frame for key i: dst 10.0.0.0 + i (W1); W2 also varies the source port. */
static void make_frame(uint8_t *f, uint32_t i, int w2)
{
	nic_gen_frame(i, f);
	if (w2) {
		f[34] = (uint8_t)(i >> 8);
		f[35] = (uint8_t)i;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct nic_buf bufs[BURST];
	uint32_t k = 0;
	/* Full-period LCG mod 2^m for the rotate walk (n_keys a power of two). */
	const uint32_t mask = w->n_keys - 1;
	for (int i = 0; i < BURST; i++) {
		make_frame(w->frames[i], w->start + ((k + (uint32_t)i) & mask), w->w2);
		bufs[i].data = w->frames[i];
		bufs[i].len = 64;
	}
	double t0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	for (uint64_t sent = 0; sent < w->pkts; sent += BURST) {
		for (int i = 0; i < BURST; i++) {
			if (w->walk == WALK_LCG)
				k = (k * 1664525u + 1013904223u) & mask;
			else
				k = (k + 1) & mask;
			uint8_t *f = w->frames[i];
			/* One 4-byte store of the daddr, as the peer's rotate walk does (byte stores
			 * would make the parser's 4-byte load wait on store forwarding). */
			uint32_t key = w->start + k, dst = __builtin_bswap32(0x0a000000u + key);
			memcpy(f + 30, &dst, 4);
			if (w->w2) {
				f[34] = (uint8_t)(key >> 8);
				f[35] = (uint8_t)key;
			}
		}
		nic_port_rx_burst(0, bufs, BURST);
	}
	w->cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/*
 * Run nw workers; returns Mpps (1 worker: by thread CPU time; more: by wall time). Like
 * RSS on a NIC, the N keys are split into nw disjoint ranges, one per worker, so
 * together they cover all entries.
 */
static double run_workers(int nw, enum walk walk, uint32_t n_keys, int w2)
{
	struct worker *w = calloc((size_t)nw, sizeof(*w));
	double t0 = now_s(CLOCK_MONOTONIC);
	for (int i = 0; i < nw; i++) {
		w[i].walk = walk;
		w[i].n_keys = n_keys / (uint32_t)nw;
		w[i].start = (uint32_t)i * w[i].n_keys;
		w[i].pkts = pkts_per_run / (uint64_t)nw;
		w[i].w2 = w2;
		pthread_create(&w[i].th, NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < nw; i++)
		pthread_join(w[i].th, NULL);
	double wall = now_s(CLOCK_MONOTONIC) - t0;
	double mpps = nw == 1 ? (double)w[0].pkts / w[0].cpu_s / 1e6 : (double)pkts_per_run / wall / 1e6;
	free(w);
	return mpps;
}

/* ------------------------------------------------------------------ pipelines */

static struct entries_status status;

static void process_all(void)
{
	TRY(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	if (status.failure)
		die("entry completion", DOCA_ERROR_UNKNOWN);
}

static struct doca_flow_pipe_entry **w1_build(uint32_t n, struct doca_flow_pipe **pipe)
{
	struct doca_flow_match m;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	memset(&m, 0, sizeof(m));
	memset(&act, 0, sizeof(act));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	TRY(doca_flow_pipe_cfg_create(&cfg, ports[0]));
	TRY(set_flow_pipe_cfg(cfg, "W1", DOCA_FLOW_PIPE_BASIC, true));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, n));
	TRY(doca_flow_pipe_cfg_set_match(cfg, &m, NULL));
	TRY(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1));
	TRY(doca_flow_pipe_cfg_set_monitor(cfg, &mon));
	TRY(doca_flow_pipe_cfg_set_miss_counter(cfg, true));
	TRY(doca_flow_pipe_create(cfg, &fwd, &miss, pipe));
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_pipe_entry **e = calloc(n, sizeof(*e));
	for (uint32_t i = 0; i < n; i++) {
		m.outer.ip4.dst_ip = DOCA_HTOBE32(0x0a000000u + i);
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)(10000 + i % 50000));
		TRY(doca_flow_pipe_basic_add_entry(0, *pipe, &m, 0, &act, NULL, NULL, 0, &status, &e[i]));
		if ((i & 4095) == 4095)
			process_all();
	}
	process_all();
	return e;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Print key=median of v[0..reps-1], and key_range=min-max. */
static void print_median(const char *key, double *v)
{
	qsort(v, (size_t)reps, sizeof(*v), cmp_double);
	printf("%s=%.2f\n%s_range=%.2f-%.2f\n", key, v[reps / 2], key, v[0], v[reps - 1]);
}

static uint64_t sum_entries(struct doca_flow_pipe_entry **e, uint32_t n)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s += ft_entry_pkts(e[i]);
	return s;
}

static void check_counted(const char *what, uint64_t counted, uint64_t expect)
{
	if (counted != expect) {
		fprintf(stderr, "bench_datapath: %s: counters say %llu packets, %llu were sent\n", what,
			(unsigned long long)counted, (unsigned long long)expect);
		exit(3);
	}
}

static void bench_w1(uint32_t n, const char *tag)
{
	struct doca_flow_pipe *pipe;
	struct doca_flow_pipe_entry **e = w1_build(n, &pipe);
	enum walk walk = n > 4096 ? WALK_LCG : WALK_CYCLE;
	double m1[reps], m2[reps];
	for (int r = 0; r < reps; r++) { /* alternated, so that a noisy moment hits both */
		m1[r] = run_workers(1, walk, n, 0);
		m2[r] = one_worker ? 0 : run_workers(2, walk, n, 0);
	}
	/* Every run sends pkts_per_run packets. */
	check_counted(tag, sum_entries(e, n), (uint64_t)reps * (one_worker ? 1 : 2) * pkts_per_run);
	char key[48];
	snprintf(key, sizeof(key), "w1_%s_1w_mpps", tag);
	print_median(key, m1);
	snprintf(key, sizeof(key), "w1_%s_2w_mpps", tag);
	if (!one_worker)
		print_median(key, m2);
	fflush(stdout);
	doca_flow_pipe_destroy(pipe);
	free(e);
}

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
	TRY(doca_flow_pipe_cfg_create(&cfg, ports[0]));
	TRY(set_flow_pipe_cfg(cfg, "W2_HASH", DOCA_FLOW_PIPE_HASH, false));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, n));
	TRY(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1));
	TRY(doca_flow_pipe_cfg_set_monitor(cfg, &mon));
	TRY(doca_flow_pipe_create(cfg, &to1, NULL, &hash));
	doca_flow_pipe_cfg_destroy(cfg);
	for (uint32_t i = 0; i < n; i++) {
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)(20000 + i));
		TRY(doca_flow_pipe_hash_add_entry(0, hash, i, 0, &act, NULL, NULL, 0, &status, &he[i]));
	}
	process_all();

	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.ip4.src_ip = 0xffffffff;
	m.outer.ip4.dst_ip = 0xffffffff;
	m.outer.udp.l4_port.src_port = 0xffff;
	m.outer.udp.l4_port.dst_port = 0xffff;
	struct doca_flow_fwd to_hash = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = hash};
	TRY(doca_flow_pipe_cfg_create(&cfg, ports[0]));
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
	process_all();
	double m1[reps], m2[reps];
	for (int r = 0; r < reps; r++) {
		m1[r] = run_workers(1, WALK_CYCLE, n, 1);
		m2[r] = run_workers(2, WALK_CYCLE, n, 1);
	}
	check_counted("w2", sum_entries(he, n), (uint64_t)reps * 2 * pkts_per_run);
	print_median("w2_1w_mpps", m1);
	print_median("w2_2w_mpps", m2);
	fflush(stdout);
	doca_flow_pipe_destroy(root);
	doca_flow_pipe_destroy(hash);
	free(he);
}

/* One insertion run into a new 1M-entry HASH pipe: entries/s, *create_s the pipe's creation. */
static double insert_run(double *create_s)
{
	const uint32_t n = 1u << 20;
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *hash;
	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	TRY(doca_flow_pipe_cfg_create(&cfg, ports[0]));
	TRY(set_flow_pipe_cfg(cfg, "INSERT", DOCA_FLOW_PIPE_HASH, false));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, n));
	TRY(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1));
	TRY(doca_flow_pipe_cfg_set_monitor(cfg, &mon));
	double tc = now_s(CLOCK_MONOTONIC);
	TRY(doca_flow_pipe_create(cfg, &to1, NULL, &hash));
	*create_s = now_s(CLOCK_MONOTONIC) - tc;
	doca_flow_pipe_cfg_destroy(cfg);
	memset(&status, 0, sizeof(status));
	double t0 = now_s(CLOCK_MONOTONIC);
	for (uint32_t i = 0; i < n; i++) {
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)i);
		TRY(doca_flow_pipe_hash_add_entry(0, hash, i, 0, &act, NULL, NULL,
						  (i & 1023) == 1023 ? DOCA_FLOW_ENTRY_FLAGS_NO_WAIT
								     : DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH,
						  &status, NULL));
		if ((i & 1023) == 1023)
			TRY(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	}
	double dt = now_s(CLOCK_MONOTONIC) - t0;
	if (status.nb_processed != (int)n || status.failure)
		die("insert completions", DOCA_ERROR_UNKNOWN);
	doca_flow_pipe_destroy(hash);
	return (double)n / dt / 1e6;
}

static void bench_insert(void)
{
	double meps[reps], create[reps];
	for (int r = 0; r < reps; r++)
		meps[r] = insert_run(&create[r]);
	print_median("insert_meps", meps);
	print_median("insert_pipe_create_s", create);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	/* Profiling subsets: -1 W1 (N=1024 or -n N) with one worker, -2 W2, -i insertion. */
	enum { PART_W1 = 1, PART_W1_1M = 2, PART_W2 = 4, PART_INSERT = 8 };
	unsigned parts = PART_W1 | PART_W1_1M | PART_W2 | PART_INSERT, only = 0;
	uint32_t w1_n = 1024;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-q") == 0) {
			pkts_per_run = 2000000;
		} else if (strcmp(argv[i], "-1") == 0) {
			only |= PART_W1;
			one_worker = true;
		} else if (strcmp(argv[i], "-2") == 0) {
			only |= PART_W2;
		} else if (strcmp(argv[i], "-i") == 0) {
			only |= PART_INSERT;
		} else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			w1_n = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: bench_datapath [-q] [-1] [-2] [-i] [-n N] [-r RUNS]\n");
			return 2;
		}
	}
	if (only)
		parts = only;
	if (reps < 1 || reps > 99) {
		fprintf(stderr, "bench_datapath: -r takes 1..99\n");
		return 2;
	}
	if (w1_n == 0 || (w1_n & (w1_n - 1)) || w1_n > (1u << 20)) {
		fprintf(stderr, "bench_datapath: -n takes a power of two up to 1048576\n");
		return 2;
	}
	pkts_per_run -= pkts_per_run % (2 * BURST);
	/* The command line and parameters, so a result file says what produced it. */
	printf("cmd=");
	for (int i = 0; i < argc; i++)
		printf("%s%s", i ? " " : "", argv[i]);
	printf("\npkts_per_run=%llu\nruns=%d\nburst=%d\nframe_bytes=64\n", (unsigned long long)pkts_per_run, reps, BURST);
	if (init_doca_flow(1, "vnf,hws") != DOCA_SUCCESS || init_doca_flow_ports(2, ports) != DOCA_SUCCESS)
		die("init", DOCA_ERROR_INITIALIZATION);
	/* Keep no copies of the output: the benchmark measures the pipeline, not captures. */
	TRY(flowdpa_port_capture_set_depth(1, 0));
	TRY(flowdpa_host_capture_set_depth(0, 0));
	char tag[16];
	snprintf(tag, sizeof(tag), "n%u", w1_n);
	if (parts & PART_W1)
		bench_w1(w1_n, tag);
	if (parts & PART_W1_1M)
		bench_w1(1u << 20, "n1048576");
	if (parts & PART_W2)
		bench_w2();
	if (parts & PART_INSERT)
		bench_insert();
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	return 0;
}
