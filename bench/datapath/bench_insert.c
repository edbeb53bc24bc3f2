/*
 * bench_insert.c - the control-path parts of bench_datapath:
 *   ins:   keyed BASIC insertion into the W1 pipe (add + entries_process + completion)
 *          on one queue, and on two queues from two threads; HASH insertion
 *          (hash_add_entry by index); each pipe's creation timed on its own line.
 *   scale: bytes per entry of a filled table (counter + one rewrite per entry, two
 *          datapath workers having walked every key), HASH and BASIC, each size in a
 *          fresh process (this program re-run with -S): the growth of its resident set
 *          (/proc/self/statm) from before the pipe's creation to after the traffic,
 *          divided by N. The entry handles are not kept (NULL), so they are not counted.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "bench_datapath.h"
#include "flow_test_common.h"

#define HASH_TARGET_BYTES 48
#define BASIC_TARGET_BYTES 96
#define HASH_CREATE_TARGET_MS 10

uint64_t bench_rss_bytes(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f == NULL || fscanf(f, "%lu %lu", &size, &resident) != 2)
		bench_die("/proc/self/statm", DOCA_ERROR_IO_FAILED);
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A HASH pipe of n entries on the IPv4 destination: counter, UDP source-port rewrite, fwd port 1. */
static struct doca_flow_pipe *hash_pipe_create(uint32_t n, double *create_s)
{
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *hash;
	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	TRY(doca_flow_pipe_cfg_create(&cfg, bench_ports[0]));
	TRY(set_flow_pipe_cfg(cfg, "HASH", DOCA_FLOW_PIPE_HASH, false));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, n));
	TRY(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1));
	TRY(doca_flow_pipe_cfg_set_monitor(cfg, &mon));
	double t0 = bench_now(CLOCK_MONOTONIC);
	TRY(doca_flow_pipe_create(cfg, &to1, NULL, &hash));
	*create_s = bench_now(CLOCK_MONOTONIC) - t0;
	doca_flow_pipe_cfg_destroy(cfg);
	return hash;
}

/* Every index of a HASH pipe, batched as w1_fill; returns the seconds it took. */
static double hash_fill(struct doca_flow_pipe *hash, uint32_t n)
{
	struct doca_flow_actions act;
	struct entries_status st;
	memset(&act, 0, sizeof(act));
	memset(&st, 0, sizeof(st));
	double t0 = bench_now(CLOCK_MONOTONIC);
	for (uint32_t i = 0; i < n; i++) {
		bool last = (i & 1023) == 1023 || i + 1 == n;
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16(w1_sport(i));
		TRY(doca_flow_pipe_hash_add_entry(0, hash, i, 0, &act, NULL, NULL,
						  last ? DOCA_FLOW_ENTRY_FLAGS_NO_WAIT
						       : DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH,
						  &st, NULL));
		if (last)
			TRY(doca_flow_entries_process(bench_ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	}
	for (int spin = 0; st.nb_processed < (int)n && spin < 1000; spin++)
		TRY(doca_flow_entries_process(bench_ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	double dt = bench_now(CLOCK_MONOTONIC) - t0;
	if (st.nb_processed != (int)n || st.failure)
		bench_die("HASH fill completions", DOCA_ERROR_UNKNOWN);
	return dt;
}

struct filler {
	pthread_t th;
	struct doca_flow_pipe *pipe;
	uint32_t first, count;
	uint16_t queue;
	struct entries_status st;
};

static void *filler_main(void *arg)
{
	struct filler *f = arg;
	w1_fill(f->pipe, f->first, f->count, f->queue, &f->st, NULL);
	return NULL;
}

/* n keyed entries into a new W1 pipe from nq threads, one queue each: M entries/s. */
static double basic_insert_run(uint32_t n, int nq, double *create_s)
{
	double tc = bench_now(CLOCK_MONOTONIC);
	struct doca_flow_pipe *pipe = w1_pipe_create(n, "INSERT");
	*create_s = bench_now(CLOCK_MONOTONIC) - tc;
	struct filler f[2];
	memset(f, 0, sizeof(f));
	double t0 = bench_now(CLOCK_MONOTONIC);
	for (int q = 0; q < nq; q++) {
		f[q].pipe = pipe;
		f[q].count = n / (uint32_t)nq;
		f[q].first = (uint32_t)q * f[q].count;
		f[q].queue = (uint16_t)q;
		pthread_create(&f[q].th, NULL, filler_main, &f[q]);
	}
	for (int q = 0; q < nq; q++)
		pthread_join(f[q].th, NULL);
	double dt = bench_now(CLOCK_MONOTONIC) - t0;
	doca_flow_pipe_destroy(pipe);
	bench_flow_restart();
	return (double)n / dt / 1e6;
}

/*
 * How much faster two threads of this machine run than one, on work that shares nothing
 * (four independent multiply chains a thread, no memory): the ceiling of the two-queue
 * insertion figure in the same run. A shared VM reads anywhere from 1x (its two vCPUs
 * on one physical core, or a busy neighbour on the sibling) to 2x, and it drifts.
 */
#define SPIN_ITERS (100u * 1000 * 1000)
struct spinner {
	pthread_t th;
	uint64_t seed;
	double s;
};

static void *spinner_main(void *arg)
{
	struct spinner *sp = arg;
	double t0 = bench_now(CLOCK_MONOTONIC);
	uint64_t x[4] = {sp->seed, sp->seed + 1, sp->seed + 2, sp->seed + 3};
	for (uint32_t i = 0; i < SPIN_ITERS; i++)
		for (int k = 0; k < 4; k++)
			x[k] = x[k] * 0x9e3779b97f4a7c15ull + i;
	sp->s = bench_now(CLOCK_MONOTONIC) - t0;
	sp->seed = x[0] ^ x[1] ^ x[2] ^ x[3]; /* kept: the loop is not optimised away */
	return NULL;
}

static double machine_two_thread_scaling(void)
{
	struct spinner one = {.seed = 1}, two[2] = {{.seed = 2}, {.seed = 3}};
	spinner_main(&one);
	for (int t = 0; t < 2; t++)
		pthread_create(&two[t].th, NULL, spinner_main, &two[t]);
	for (int t = 0; t < 2; t++)
		pthread_join(two[t].th, NULL);
	double slowest = two[0].s > two[1].s ? two[0].s : two[1].s;
	return 2 * one.s / slowest;
}

void bench_insert_part(uint32_t n, bool basic)
{
	/* At 16M a run takes seconds and GBs: at most 3 runs. */
	int reps = n > (1u << 20) && bench_reps > 3 ? 3 : bench_reps;
	double b1[99], b2[99], b21[99], sc[99], h[99], cb[99], ch[99], unused;
	for (int r = 0; r < reps; r++) {
		sc[r] = basic ? machine_two_thread_scaling() : 0;
		b1[r] = basic ? basic_insert_run(n, 1, &cb[r]) : 0;
		b2[r] = basic ? basic_insert_run(n, 2, &unused) : 0;
		b21[r] = basic ? b2[r] / b1[r] : 0;
		struct doca_flow_pipe *hash = hash_pipe_create(n, &ch[r]);
		h[r] = (double)n / hash_fill(hash, n) / 1e6;
		doca_flow_pipe_destroy(hash);
		bench_flow_restart();
	}
	char key[64];
	if (basic) {
		snprintf(key, sizeof(key), "insert_basic_n%u_1q_meps", n);
		bench_print_median(key, b1, reps);
		if (n == 1u << 20)
			bench_basic_meps = bench_median(b1, reps);
		snprintf(key, sizeof(key), "insert_basic_n%u_2q_meps", n);
		bench_print_median(key, b2, reps);
		snprintf(key, sizeof(key), "insert_basic_n%u_2q_vs_1q", n);
		bench_print_median(key, b21, reps);
		snprintf(key, sizeof(key), "machine_n%u_2thread_scaling", n);
		bench_print_median(key, sc, reps);
		for (int r = 0; r < reps; r++)
			cb[r] *= 1e3;
		snprintf(key, sizeof(key), "create_basic_n%u_ms", n);
		bench_print_median(key, cb, reps);
	}
	snprintf(key, sizeof(key), "insert_hash_n%u_meps", n);
	bench_print_median(key, h, reps);
	for (int r = 0; r < reps; r++)
		ch[r] *= 1e3;
	snprintf(key, sizeof(key), "create_hash_n%u_ms", n);
	bench_print_median(key, ch, reps);
}

/* A root pipe that sends every IPv4 frame of port 0 to `next`. */
static struct doca_flow_pipe *root_to(struct doca_flow_pipe *next)
{
	struct doca_flow_match m;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = next};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *root;
	struct entries_status st;
	memset(&m, 0, sizeof(m));
	memset(&st, 0, sizeof(st));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	TRY(doca_flow_pipe_cfg_create(&cfg, bench_ports[0]));
	TRY(set_flow_pipe_cfg(cfg, "ROOT", DOCA_FLOW_PIPE_BASIC, true));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, 1));
	TRY(doca_flow_pipe_cfg_set_match(cfg, &m, NULL));
	TRY(doca_flow_pipe_create(cfg, &fwd, &drop, &root));
	doca_flow_pipe_cfg_destroy(cfg);
	TRY(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, &st, NULL));
	TRY(doca_flow_entries_process(bench_ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	if (st.failure || st.nb_processed != 1)
		bench_die("root entry", DOCA_ERROR_UNKNOWN);
	return root;
}

/* One scale measurement's steps: a filled pipe of n entries (HASH: behind a root) and
 * two workers, each walking all n keys once (every entry hit, its counter bumped, from
 * both); 0 when the frames all left port 1. *create_s, *rss_empty: after creation. */
static int scale_steps(bool hash, uint32_t n, double *create_s, uint64_t *rss_empty, struct doca_flow_pipe **pipe,
		       struct doca_flow_pipe **root)
{
	*root = NULL;
	if (hash) {
		*pipe = hash_pipe_create(n, create_s);
		*rss_empty = bench_rss_bytes();
		hash_fill(*pipe, n);
		*root = root_to(*pipe);
	} else {
		double t0 = bench_now(CLOCK_MONOTONIC);
		*pipe = w1_pipe_create(n, "SCALE");
		*create_s = bench_now(CLOCK_MONOTONIC) - t0;
		*rss_empty = bench_rss_bytes();
		struct entries_status st;
		memset(&st, 0, sizeof(st));
		w1_fill(*pipe, 0, n, 0, &st, NULL);
	}
	struct flowdpa_port_stats s0, s1;
	TRY(flowdpa_port_stats_get(1, &s0));
	bench_run_workers(2, true, n, 2ull * n, 32, 0, true);
	TRY(flowdpa_port_stats_get(1, &s1));
	if (s1.tx_pkts - s0.tx_pkts != 2ull * n) {
		fprintf(stderr, "bench_datapath: scale %s n=%u: %llu frames left port 1, %llu were sent\n",
			hash ? "hash" : "basic", n, (unsigned long long)(s1.tx_pkts - s0.tx_pkts), 2ull * n);
		return 3;
	}
	return 0;
}

static void scale_teardown(struct doca_flow_pipe *pipe, struct doca_flow_pipe *root)
{
	if (root)
		doca_flow_pipe_destroy(root);
	doca_flow_pipe_destroy(pipe);
}

/*
 * Bytes per entry: what the process gains from before the pipe's creation to after the
 * walk, over n. What a process running traffic pays once, whatever its tables, is
 * paid first and reported apart (scale_fixed_kb): the same steps on a 1024-entry pipe
 * (the worker threads' stacks and malloc arenas, the code the walk runs, the root pipe,
 * the state arena's first page) while an empty HASH pipe big enough to start the
 * prefault thread (prefault.c), which commits nothing of it, is there: three threads'
 * stacks, as the measured run has. Both are small, so that no heap they free is there
 * for the measured fill to reuse. scale_fixed_kb counts the idle pipe's pool too: the
 * prefault thread commits 4 MiB of a HASH pool ahead of its first index, and a
 * destroyed NIC pipe's tables stay mapped until DOCA Flow is destroyed.
 */
int bench_scale_child(const char *type, uint32_t n)
{
	bool hash = strcmp(type, "hash") == 0;
	if ((!hash && strcmp(type, "basic") != 0) || n == 0 || (n & (n - 1)) || n > (1u << 24)) {
		fprintf(stderr, "bench_datapath: -S takes basic|hash, -n a power of two up to 16777216\n");
		return 2;
	}
	bench_flow_start();
	struct doca_flow_pipe *pipe, *root;
	double create_s;
	uint64_t rss_empty, rss_start = bench_rss_bytes();
	struct doca_flow_pipe *idle = hash_pipe_create(1u << 18, &create_s);
	int rc = scale_steps(hash, 1024, &create_s, &rss_empty, &pipe, &root);
	if (rc)
		return rc;
	scale_teardown(pipe, root);
	doca_flow_pipe_destroy(idle);
	uint64_t rss0 = bench_rss_bytes();
	if ((rc = scale_steps(hash, n, &create_s, &rss_empty, &pipe, &root)) != 0)
		return rc;
	uint64_t rss1 = bench_rss_bytes();
	printf("scale_fixed_kb=%.0f\nscale_empty_bytes_per_entry=%.2f\nscale_bytes_per_entry=%.2f\n"
	       "scale_create_ms=%.3f\nscale_rss_mb=%.1f\n",
	       (double)(rss0 - rss_start) / 1024, (double)(rss_empty - rss0) / n, (double)(rss1 - rss0) / n,
	       create_s * 1e3, (double)rss1 / (1 << 20));
	fflush(stdout);
	scale_teardown(pipe, root);
	bench_flow_stop();
	return 0;
}

/* Run `bench_datapath -S type -n n` (this very program); *bpe, *create_ms, *fixed_kb
 * from its output. */
static void scale_spawn(const char *type, uint32_t n, double *bpe, double *create_ms, double *fixed_kb)
{
	char cmd[128], line[256];
	snprintf(cmd, sizeof(cmd), "/proc/%d/exe -S %s -n %u", (int)getpid(), type, n);
	fflush(stdout);
	FILE *p = popen(cmd, "r");
	if (p == NULL)
		bench_die("popen scale child", DOCA_ERROR_IO_FAILED);
	*bpe = *create_ms = *fixed_kb = -1;
	while (fgets(line, sizeof(line), p)) {
		sscanf(line, "scale_bytes_per_entry=%lf", bpe);
		sscanf(line, "scale_create_ms=%lf", create_ms);
		sscanf(line, "scale_fixed_kb=%lf", fixed_kb);
	}
	int rc = pclose(p);
	if (rc != 0 || *bpe < 0 || *create_ms < 0 || *fixed_kb < 0) {
		fprintf(stderr, "bench_datapath: scale child `%s` failed (status %d)\n", cmd, rc);
		exit(3);
	}
}

static void scale_print(const char *type, uint32_t n, double *bpe, double *create_ms, double *fixed_kb, int reps)
{
	char key[64];
	snprintf(key, sizeof(key), "scale_%s_n%u_bytes_per_entry", type, n);
	bench_print_median(key, bpe, reps);
	snprintf(key, sizeof(key), "scale_%s_n%u_fixed_kb", type, n);
	bench_print_median(key, fixed_kb, reps);
	/* Creation in a fresh process, where nothing of the table is resident yet. */
	snprintf(key, sizeof(key), "scale_create_%s_n%u_ms", type, n);
	bench_print_median(key, create_ms, reps);
}

void bench_scale_part(uint32_t n, bool hash, bool basic)
{
	int reps = bench_reps > 3 ? 3 : bench_reps;
	double hb[99], hc[99], hf[99], bb[99], bc[99], bf[99];
	for (int r = 0; r < reps; r++) {
		if (hash)
			scale_spawn("hash", n, &hb[r], &hc[r], &hf[r]);
		if (basic)
			scale_spawn("basic", n, &bb[r], &bc[r], &bf[r]);
	}
	if (hash) {
		scale_print("hash", n, hb, hc, hf, reps);
		if (n == 1u << 20)
			bench_bpe_hash = bench_median(hb, reps);
	}
	if (basic) {
		scale_print("basic", n, bb, bc, bf, reps);
		if (n == 1u << 20)
			bench_bpe_basic = bench_median(bb, reps);
	}
	printf("scale_target_hash_bytes_per_entry=%d\nscale_target_basic_bytes_per_entry=%d\n"
	       "scale_target_create_hash_n16777216_ms=%d\n",
	       HASH_TARGET_BYTES, BASIC_TARGET_BYTES, HASH_CREATE_TARGET_MS);
	fflush(stdout);
}
