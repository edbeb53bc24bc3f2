/*
 * bench_insert.c - the control-path parts of bench_datapath:
 *   ins:   keyed BASIC insertion into the W1 pipe (add + entries_process + completion)
 *          on one queue pinned to each of two CPUs in turn, and on two queues from two
 *          threads, one on each; beside it, how much two threads of this machine gain
 *          over one on compute and on memory-bound work; HASH insertion
 *          (hash_add_entry by index); each pipe's creation timed on its own line.
 *          Every fill starts on memory the process just gave back (fill_memory_warm),
 *          and the rate at which that memory was committed is printed beside.
 *   scale: bytes per entry of a filled table (counter + one rewrite per entry, two
 *          datapath workers having walked every key), HASH and BASIC, each size in a
 *          fresh process (this program re-run with -S): the growth of its resident set
 *          (/proc/self/statm) from before the pipe's creation to after the traffic,
 *          divided by N. The entry handles are not kept (NULL), so they are not counted.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

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

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * Commit `bytes` of memory and give it back, just before a pipe whose tables take about
 * as much is created, so that the kernel hands the same pages to its tables: returns
 * the commit's rate in GB/s (0: not measured). A VM that returns freed memory to its
 * host (virtio-balloon free page reporting; this one does a few seconds after a free)
 * makes committing such a page cost ~25x a zeroing by the kernel (0.8 against 21 GB/s
 * here). A fill's pages are committed by the prefault thread: with one queue on the
 * idle CPU, with two on the fillers' own. Fills on cold memory would time the host's
 * page backing, twice as much with two queues as with one, not the insertion path; the
 * rate printed says what a fresh pipe's pages cost on this machine.
 */
static double fill_memory_warm(size_t bytes)
{
	double t0 = bench_now(CLOCK_MONOTONIC);
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	(void)madvise(m, bytes, MADV_HUGEPAGE);
	bool committed = madvise(m, bytes, MADV_POPULATE_WRITE) == 0; /* Linux >= 5.14 */
	double dt = bench_now(CLOCK_MONOTONIC) - t0;
	munmap(m, bytes);
	return committed ? (double)bytes / dt / 1e9 : 0;
}
/* What a filled pipe's tables take per entry, with slack (the scale part measures it). */
#define BASIC_FILL_BYTES 96
#define HASH_FILL_BYTES 64

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

/*
 * The two CPUs the insertion runs use, the first two this process may run on: a shared
 * VM's vCPUs can differ in speed (this one's by up to 1.5x on memory-bound work, and
 * which one is slow changes over minutes), so that a one-queue fill left to the
 * scheduler reads either speed. -1: fewer than two CPUs, nothing is pinned.
 */
static int ins_cpu[2] = {-1, -1};

static void ins_cpus_init(void)
{
	cpu_set_t cs;
	if (ins_cpu[0] >= 0 || sched_getaffinity(0, sizeof(cs), &cs) != 0)
		return;
	int found = 0, cpu[2];
	for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
		if (CPU_ISSET(c, &cs))
			cpu[found++] = c;
	if (found == 2) {
		ins_cpu[0] = cpu[0];
		ins_cpu[1] = cpu[1];
	}
}

static void pin_to(int cpu)
{
	if (cpu < 0)
		return;
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(cpu, &cs);
	pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs);
}

/*
 * A filling thread, one queue: it takes blocks of FILL_BLOCK keys from a counter shared
 * with the other filler until none is left, as an application hands flows to whichever
 * of its control cores is free; a fixed half each would time the slower vCPU twice.
 */
#define FILL_BLOCK 16384u
struct filler {
	pthread_t th;
	struct doca_flow_pipe *pipe;
	_Atomic uint32_t *next;
	uint32_t total, done;
	uint16_t queue;
	int cpu;
	double cpu_s; /* the thread's CPU time */
};

static void *filler_main(void *arg)
{
	struct filler *f = arg;
	pin_to(f->cpu);
	for (;;) {
		uint32_t first = atomic_fetch_add_explicit(f->next, FILL_BLOCK, memory_order_relaxed);
		if (first >= f->total)
			break;
		uint32_t count = f->total - first < FILL_BLOCK ? f->total - first : FILL_BLOCK;
		struct entries_status st;
		memset(&st, 0, sizeof(st));
		w1_fill(f->pipe, first, count, f->queue, &st, NULL);
		f->done += count;
	}
	f->cpu_s = bench_now(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/*
 * A fill of n keyed entries into a new W1 pipe from nq threads (one queue each, the
 * q-th on cpus[q]): M entries/s, the pipe's creation, the first queue's part of the
 * entries, the rate of the memory's warming (fill_memory_warm), and the CPU time the
 * process's other threads took meanwhile: the library's prefault thread committing the
 * tables' pages ahead of the adds (core/prefault.c). One queue leaves it a CPU of its
 * own; two queues on a two-CPU machine give it none, and it takes its time from theirs.
 */
struct insert_run {
	double meps, create_s, share, commit_gbps, helper_cpu_s;
};

static struct insert_run basic_insert_run(uint32_t n, int nq, const int *cpus)
{
	struct insert_run r = {.commit_gbps = fill_memory_warm((size_t)n * BASIC_FILL_BYTES)};
	double tc = bench_now(CLOCK_MONOTONIC);
	struct doca_flow_pipe *pipe = w1_pipe_create(n, "INSERT");
	r.create_s = bench_now(CLOCK_MONOTONIC) - tc;
	struct filler f[2];
	_Atomic uint32_t next = 0;
	memset(f, 0, sizeof(f));
	double t0 = bench_now(CLOCK_MONOTONIC), proc0 = bench_now(CLOCK_PROCESS_CPUTIME_ID),
	       self0 = bench_now(CLOCK_THREAD_CPUTIME_ID);
	for (int q = 0; q < nq; q++) {
		f[q] = (struct filler){.pipe = pipe, .next = &next, .total = n, .queue = (uint16_t)q, .cpu = cpus[q]};
		pthread_create(&f[q].th, NULL, filler_main, &f[q]);
	}
	for (int q = 0; q < nq; q++)
		pthread_join(f[q].th, NULL);
	double dt = bench_now(CLOCK_MONOTONIC) - t0;
	r.helper_cpu_s = bench_now(CLOCK_PROCESS_CPUTIME_ID) - proc0 - (bench_now(CLOCK_THREAD_CPUTIME_ID) - self0) -
			 f[0].cpu_s - f[1].cpu_s;
	if (f[0].done + f[1].done != n)
		bench_die("BASIC insertion: keys filled", DOCA_ERROR_UNKNOWN);
	r.share = (double)f[0].done / n;
	doca_flow_pipe_destroy(pipe);
	bench_flow_restart();
	r.meps = (double)n / dt / 1e6;
	return r;
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

/*
 * The same for memory-bound work like a fill's (random read-modify-writes of lines of a
 * 64 MiB table, each thread its own table), on the two insertion CPUs: each alone, then
 * both at once. *cpu_b_vs_a: the second CPU's speed over the first's, alone;
 * returns what both together do over the faster one alone, the ceiling of the
 * two-queue figure against the one-queue one (the faster CPU's).
 */
#define MEM_TABLE ((size_t)64 << 20)
#define MEM_OPS (8u * 1000 * 1000)
struct memworker {
	pthread_t th;
	uint64_t *t;
	int cpu;
	double s;
};

static void *memworker_main(void *arg)
{
	struct memworker *w = arg;
	pin_to(w->cpu);
	uint64_t x = (uint64_t)w->cpu + 1, lines = MEM_TABLE / 64;
	double t0 = bench_now(CLOCK_MONOTONIC);
	for (uint32_t i = 0; i < MEM_OPS; i += 16) {
		uint64_t *l[16];
		for (int j = 0; j < 16; j++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			l[j] = w->t + (x >> 24) % lines * 8;
			__builtin_prefetch(l[j], 1);
		}
		for (int j = 0; j < 16; j++)
			l[j][0] += l[j][1] + 1;
	}
	w->s = bench_now(CLOCK_MONOTONIC) - t0;
	return NULL;
}

static double machine_memory_scaling(double *cpu_b_vs_a)
{
	struct memworker w[2];
	for (int k = 0; k < 2; k++) {
		w[k] = (struct memworker){.cpu = ins_cpu[k]};
		w[k].t = calloc(1, MEM_TABLE);
		if (w[k].t == NULL)
			bench_die("machine memory table", DOCA_ERROR_NO_MEMORY);
		memset(w[k].t, 1, MEM_TABLE);
	}
	double alone[2];
	for (int k = 0; k < 2; k++) {
		pthread_create(&w[k].th, NULL, memworker_main, &w[k]);
		pthread_join(w[k].th, NULL);
		alone[k] = w[k].s;
	}
	for (int k = 0; k < 2; k++)
		pthread_create(&w[k].th, NULL, memworker_main, &w[k]);
	for (int k = 0; k < 2; k++)
		pthread_join(w[k].th, NULL);
	for (int k = 0; k < 2; k++)
		free(w[k].t);
	*cpu_b_vs_a = alone[0] / alone[1];
	double best = alone[0] < alone[1] ? alone[0] : alone[1];
	return best / w[0].s + best / w[1].s;
}

/*
 * How long a line written on one insertion CPU takes to reach the other, in ns: two
 * threads pass a counter back and forth on one line. Two queues filling one pipe pass
 * the lines they share of it (buckets, and the pages of neighbouring runs of records
 * and handles) the same way, so the two-queue figure depends on it: this VM read
 * 53-71 ns while its host ran the two vCPUs on cores sharing a last-level cache and
 * 215-290 ns while it did not (docs/flow.md). 0: fewer than two CPUs.
 */
#define PINGPONG_ROUNDS 200000u
struct pingpong_side {
	pthread_t th;
	_Atomic uint32_t *word;
	uint32_t first; /* the values this side waits for: first, first + 2, ... */
	int cpu;
};

static void *pingpong_main(void *arg)
{
	struct pingpong_side *s = arg;
	pin_to(s->cpu);
	for (uint32_t v = s->first; v < 2 * PINGPONG_ROUNDS; v += 2) {
		while (atomic_load_explicit(s->word, memory_order_acquire) != v)
			;
		atomic_store_explicit(s->word, v + 1, memory_order_release);
	}
	return NULL;
}

static double machine_line_transfer_ns(void)
{
	static _Alignas(64) _Atomic uint32_t word;
	if (ins_cpu[0] < 0)
		return 0;
	atomic_store(&word, 0);
	struct pingpong_side side[2];
	double t0 = bench_now(CLOCK_MONOTONIC);
	for (int k = 0; k < 2; k++) {
		side[k] = (struct pingpong_side){.word = &word, .first = (uint32_t)k, .cpu = ins_cpu[k]};
		pthread_create(&side[k].th, NULL, pingpong_main, &side[k]);
	}
	for (int k = 0; k < 2; k++)
		pthread_join(side[k].th, NULL);
	return (bench_now(CLOCK_MONOTONIC) - t0) * 1e9 / (2.0 * PINGPONG_ROUNDS);
}

static void print_medians(const char *fmt, uint32_t n, double *v, int reps, double scale)
{
	char key[64];
	for (int r = 0; r < reps; r++)
		v[r] *= scale;
	snprintf(key, sizeof(key), fmt, n);
	bench_print_median(key, v, reps);
}

/*
 * One round of BASIC insertion at n: one queue on each insertion CPU, the faster being
 * the one-queue figure (so that the two-queue ratio is against the better core), then
 * two queues, one on each. At 1M the three kinds of fill take turns ROUND_FILLS times
 * and each kind's median fill stands for it: now and then this VM's host backs a
 * fill's pages again although fill_memory_warm committed them just before (the
 * prefault thread's CPU time then reads 15-68 ms against its usual 5), and a round of
 * single fills took that fill's rate for the round's (a two-queue fill at 0.9-1.2x the
 * one-queue figure in 7 of 30 rounds). At 16M a fill takes seconds: one of each.
 */
#define ROUND_FILLS 3
struct basic_round {
	struct insert_run q1[2], q2;
	double machine, mem_b_vs_a, mem_ceiling, line_ns;
};

static int by_meps(const void *a, const void *b)
{
	double x = ((const struct insert_run *)a)->meps, y = ((const struct insert_run *)b)->meps;
	return (x > y) - (x < y);
}

/* The fill of median rate among n (odd): its other figures come with it. */
static struct insert_run median_fill(struct insert_run *runs, int n)
{
	qsort(runs, (size_t)n, sizeof(*runs), by_meps);
	return runs[n / 2];
}

static int round_fills(uint32_t n)
{
	return n > (1u << 20) ? 1 : ROUND_FILLS;
}

static void basic_insert_round(uint32_t n, struct basic_round *b)
{
	struct insert_run runs[3][ROUND_FILLS];
	int fills = round_fills(n);
	b->machine = machine_two_thread_scaling();
	b->mem_ceiling = machine_memory_scaling(&b->mem_b_vs_a);
	b->line_ns = machine_line_transfer_ns();
	for (int f = 0; f < fills; f++) {
		for (int k = 0; k < 2; k++)
			runs[k][f] = basic_insert_run(n, 1, &ins_cpu[k]);
		runs[2][f] = basic_insert_run(n, 2, ins_cpu);
	}
	for (int k = 0; k < 2; k++)
		b->q1[k] = median_fill(runs[k], fills);
	b->q2 = median_fill(runs[2], fills);
}

void bench_insert_fills(int nq)
{
	const uint32_t n = 1u << 20;
	double v[99], helper[99];
	char key[64];
	ins_cpus_init();
	printf("machine_line_transfer_ns=%.1f\n", machine_line_transfer_ns());
	for (int r = 0; r < bench_reps; r++) {
		struct insert_run run = basic_insert_run(n, nq, ins_cpu);
		v[r] = run.meps, helper[r] = run.helper_cpu_s;
		printf("insert_basic_n%u_%dq_fill%d_meps=%.3f\ninsert_basic_n%u_%dq_fill%d_helper_cpu_ms=%.1f\n", n, nq,
		       r + 1, v[r], n, nq, r + 1, helper[r] * 1e3);
		fflush(stdout);
	}
	snprintf(key, sizeof(key), "insert_basic_n%%u_%dq_fills_meps", nq);
	print_medians(key, n, v, bench_reps, 1);
	snprintf(key, sizeof(key), "insert_basic_n%%u_%dq_fills_helper_cpu_ms", nq);
	print_medians(key, n, helper, bench_reps, 1e3);
}

void bench_insert_part(uint32_t n, bool basic)
{
	/* At 16M a run takes seconds and GBs: at most 3 runs. */
	int reps = n > (1u << 20) && bench_reps > 3 ? 3 : bench_reps;
	double b1[99], b1a[99], b1b[99], b2[99], b21[99], share[99], sc[99], mem[99], memba[99], h[99], cb[99],
		ch[99], commit[4 * 99], help1[99], help2[99], help2_pct[99], line[99];
	int nc = 0;
	ins_cpus_init();
	for (int r = 0; r < reps; r++) {
		if (basic) {
			struct basic_round b;
			basic_insert_round(n, &b);
			b1a[r] = b.q1[0].meps, b1b[r] = b.q1[1].meps, b2[r] = b.q2.meps;
			int fast = b1a[r] > b1b[r] ? 0 : 1;
			b1[r] = b.q1[fast].meps, help1[r] = b.q1[fast].helper_cpu_s, help2[r] = b.q2.helper_cpu_s;
			help2_pct[r] = b.q2.helper_cpu_s / (2 * n / (b2[r] * 1e6));
			b21[r] = b2[r] / b1[r];
			share[r] = b.q2.share, sc[r] = b.machine, mem[r] = b.mem_ceiling, memba[r] = b.mem_b_vs_a;
			line[r] = b.line_ns;
			cb[r] = b.q1[0].create_s;
			commit[nc++] = b.q1[0].commit_gbps, commit[nc++] = b.q1[1].commit_gbps;
			commit[nc++] = b.q2.commit_gbps;
		}
		commit[nc++] = fill_memory_warm((size_t)n * HASH_FILL_BYTES);
		struct doca_flow_pipe *hash = hash_pipe_create(n, &ch[r]);
		h[r] = (double)n / hash_fill(hash, n) / 1e6;
		doca_flow_pipe_destroy(hash);
		bench_flow_restart();
	}
	if (basic) {
		if (ins_cpu[0] < 0)
			printf("insert_basic_cpus=not pinned (fewer than two CPUs)\n");
		else
			printf("insert_basic_cpus=%d,%d\n", ins_cpu[0], ins_cpu[1]);
		printf("insert_basic_n%u_fills_per_round=%d\n", n, round_fills(n));
		print_medians("insert_basic_n%u_1q_meps", n, b1, reps, 1);
		if (n == 1u << 20)
			bench_basic_meps = bench_median(b1, reps);
		print_medians("insert_basic_n%u_1q_cpu_a_meps", n, b1a, reps, 1);
		print_medians("insert_basic_n%u_1q_cpu_b_meps", n, b1b, reps, 1);
		print_medians("insert_basic_n%u_2q_meps", n, b2, reps, 1);
		print_medians("insert_basic_n%u_2q_vs_1q", n, b21, reps, 1);
		print_medians("insert_basic_n%u_2q_first_queue_pct", n, share, reps, 100);
		print_medians("insert_basic_n%u_1q_helper_cpu_ms", n, help1, reps, 1e3);
		print_medians("insert_basic_n%u_2q_helper_cpu_ms", n, help2, reps, 1e3);
		print_medians("insert_basic_n%u_2q_helper_cpu_pct", n, help2_pct, reps, 100);
		print_medians("machine_n%u_2thread_scaling", n, sc, reps, 1);
		print_medians("machine_n%u_mem_cpu_b_vs_a", n, memba, reps, 1);
		print_medians("machine_n%u_mem_2thread_ceiling", n, mem, reps, 1);
		print_medians("machine_n%u_line_transfer_ns", n, line, reps, 1);
		print_medians("create_basic_n%u_ms", n, cb, reps, 1e3);
	}
	print_medians("insert_hash_n%u_meps", n, h, reps, 1);
	print_medians("create_hash_n%u_ms", n, ch, reps, 1e3);
	print_medians("machine_n%u_page_commit_gbps", n, commit, nc, 1);
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
	if ((!hash && strcmp(type, "basic") != 0) || n == 0 || (n & (n - 1)) || n > (1u << 27)) {
		fprintf(stderr, "bench_datapath: -S takes basic|hash, -n a power of two up to 134217728\n");
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

/* Run `bench_datapath -S type -n n` (this very program); *bpe, *create_ms, *fixed_kb,
 * *rss_mb from its output. */
static void scale_spawn(const char *type, uint32_t n, double *bpe, double *create_ms, double *fixed_kb,
			double *rss_mb)
{
	char cmd[128], line[256];
	snprintf(cmd, sizeof(cmd), "/proc/%d/exe -S %s -n %u", (int)getpid(), type, n);
	fflush(stdout);
	FILE *p = popen(cmd, "r");
	if (p == NULL)
		bench_die("popen scale child", DOCA_ERROR_IO_FAILED);
	*bpe = *create_ms = *fixed_kb = *rss_mb = -1;
	while (fgets(line, sizeof(line), p)) {
		sscanf(line, "scale_bytes_per_entry=%lf", bpe);
		sscanf(line, "scale_create_ms=%lf", create_ms);
		sscanf(line, "scale_fixed_kb=%lf", fixed_kb);
		sscanf(line, "scale_rss_mb=%lf", rss_mb);
	}
	int rc = pclose(p);
	if (rc != 0 || *bpe < 0 || *create_ms < 0 || *fixed_kb < 0 || *rss_mb < 0) {
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
	double hb[99], hc[99], hf[99], bb[99], bc[99], bf[99], rss_mb;
	for (int r = 0; r < reps; r++) {
		if (hash)
			scale_spawn("hash", n, &hb[r], &hc[r], &hf[r], &rss_mb);
		if (basic)
			scale_spawn("basic", n, &bb[r], &bc[r], &bf[r], &rss_mb);
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

void bench_fit_part(void)
{
	static const struct {
		const char *type;
		uint32_t n;
		bool basic;
	} fit[2] = {{"hash", 1u << 27, false}, {"basic", 1u << 26, true}};
	double both_gb = 0;
	int measured = 0;
	for (int i = 0; i < 2; i++) {
		char part[64];
		snprintf(part, sizeof(part), "fit_%s_n%u", fit[i].type, fit[i].n);
		/* One BASIC fill (its time is checked), no HASH one. */
		if (!bench_fits(part, fit[i].n, fit[i].basic, fit[i].basic ? 1 : 0))
			continue;
		double bpe, create_ms, fixed_kb, rss_mb;
		scale_spawn(fit[i].type, fit[i].n, &bpe, &create_ms, &fixed_kb, &rss_mb);
		double gb = rss_mb * (1 << 20) / 1e9;
		printf("%s_bytes_per_entry=%.2f\n%s_rss_gb=%.2f\n", part, bpe, part, gb);
		both_gb += gb;
		measured++;
	}
	if (measured == 2)
		printf("fit_both_rss_gb=%.2f\n", both_gb);
	printf("fit_target_rss_gb=24\n");
	fflush(stdout);
}
