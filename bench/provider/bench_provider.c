/*
 * bench_provider.c - DPA-side request rates of the DOCA Flow DPA Provider, and the
 * datapath while a DPA thread rewrites path selectors.
 *
 * The three programs of a provider application: a host DOCA Flow program (a root HASH
 * pipe of 1024 entries on port 0 over the IPv4 destination, per-entry counter, UDP
 * source port as path selector, fwd port 1, misses dropped and counted; a memory
 * resource of 1024 cells), the host DPA + provider setup (one provider ctx, on port 0
 * BP_MAX_THREADS queues of each type, 64 deep; the pipe and the memory exported), and
 * the DPA kernel of device/bench_provider_kernels.c, launched with
 * doca_dpa_kernel_launch_update_set over 1 or 2 DPA threads. Thread t owns queue id t
 * of the type its operation needs and entries / cells [t * 1024/N, (t + 1) * 1024/N);
 * it posts a burst of B requests (flush on the last), polls until the burst completed,
 * and loops until a request count or a deadline on the device clock.
 *
 * Measured, per NIC mode (sync: the flushing DPA thread executes; async: the NIC engine
 * thread does, FLOWDPA_NIC_LATENCY_US=0), threads 1/2, burst 1/8/32 requests:
 *   replace         doca_flow_pipe_hash_replace_index, M requests/s
 *   disable_enable  disable i then enable i, M pairs/s (a pair is two requests; a burst
 *                   of 32 requests holds 16 pairs)
 *   memory_update   doca_flow_external_resource_memory_update, M requests/s
 *   memory_read     doca_flow_external_resource_memory_read, M requests/s (each value
 *                   checked on the DPA against what the host stored in the cell)
 * A rate is all threads' completions over the span from the first thread's start to the
 * last thread's end on the device clock (__dpa_thread_cycles, the host's monotonic
 * clock here); b32 figures also have a _wall variant over the host's wall clock around
 * launch + completion-event wait. Then the datapath: one worker thread injects 64-byte
 * frames over all 1024 entries (flowdpa_port_inject_burst, 32 per call), alone and while
 * one DPA thread replaces at full rate (burst 32).
 *
 * Checked (exit 3, bench_check=FAIL, on any mismatch): every run completes every request
 * it posted, with no failure, no AGAIN and no error; after each configuration a frame to
 * every entry leaves port 1 with the path-selector value the last replace wrote (and
 * disable_enable leaves every entry enabled; a disable of all entries is seen as misses
 * and undone); every memory cell holds the last update; every read returned the cell's
 * value; the datapath counters (entries + misses) equal the frames injected.
 *
 * Each figure is key=median of RUNS runs (5; -q: 3) with key_range=min-max; a run lasts
 * 200 ms (-q: 20 ms) after an uncounted warm-up launch.
 *
 * The NIC mode is read from the configuration at start, so each mode runs in a child
 * (this program re-executed with FLOWDPA_NIC_MODE set); the parent prints the command,
 * the machine, the children's key=value lines and the targets.
 *
 * Usage: bench_provider [-q] [-r RUNS] [-m sync|async] [-o replace|disable_enable|
 *        memory_update|memory_read|datapath] [-t 1|2] [-b 1|8|32]
 *        [-n REQS]
 * (-q: short runs, for make bench / CI; -m -o -t -b: only those, for profiling; -n: REQS
 * requests per thread and run instead of the time limit, for profiling)
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow_dpa_provider.h>
#include <doca_sync_event.h>

#include "device/bench_provider_defs.h"
#include "flow_test_common.h"

extern struct doca_dpa_app *bench_provider_app;
extern doca_dpa_func_t bp_kernel;

#define NR_ENTRIES 1024u
#define QUEUE_SIZE 64u
#define FRAME_LEN 64u
#define DP_BURST 32u

/* ------------------------------------------------------------------ options */

static int reps = 5;
static bool quick;
static uint64_t max_reqs = 1ull << 24; /* per thread and run; the deadline ends it first */
static uint64_t deadline_ns = 200000000;
static uint64_t dp_ns = 300000000; /* datapath phases */
static const char *only_mode, *only_op;
static unsigned only_threads, only_burst;
static uint64_t fixed_reqs; /* -n: requests per thread and run instead of the deadline (profiling) */

static const char *const op_names[] = {"replace", "disable_enable", "memory_update", "memory_read"};
static const unsigned bursts[] = {1, 8, 32};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static _Noreturn void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void fail(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "bench_provider: CHECK FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	printf("bench_check=FAIL\n");
	fflush(stdout);
	exit(3);
}

#define TRY(call)                                                                                         \
	do {                                                                                              \
		doca_error_t _e = (call);                                                                 \
		if (_e != DOCA_SUCCESS) {                                                                 \
			fprintf(stderr, "bench_provider: %s: %s\n", #call, doca_error_get_name(_e));      \
			exit(1);                                                                          \
		}                                                                                         \
	} while (0)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* key=median of v[0..n-1] and key_range=min-max (v is sorted). */
static void print_median(const char *key, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	printf("%s=%.2f\n%s_range=%.2f-%.2f\n", key, v[n / 2], key, v[0], v[n - 1]);
	fflush(stdout);
}

/* ------------------------------------------------------------------ the three programs */

static struct {
	const char *mode;
	struct doca_flow_port *ports[2];
	struct entries_status status;
	struct doca_flow_pipe *pipe;
	struct doca_flow_pipe_entry *entries[NR_ENTRIES];
	struct doca_flow_external_resource *mem;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct flexio_process *proc;
	struct doca_flow_dpa_ctx *ctx;
	struct doca_flow_dpa_pipe *dpipe;
	struct doca_flow_dpa_external_resource *dmem;
	doca_flow_dpa_addr pipe_addr, mem_addr;
	doca_dpa_dev_uintptr_t out, rdbuf;
	struct doca_sync_event *comp;
	uint64_t comp_value;
	uint32_t dst_of[NR_ENTRIES];	 /* an IPv4 destination whose frames select entry i */
	uint32_t ps_expect[NR_ENTRIES];	 /* path-selector value entry i must hold */
	uint64_t mem_expect[NR_ENTRIES]; /* value cell i must hold */
	uint64_t injected;		 /* frames injected into port 0 since the pipe was made */
	uint32_t salt;
} B;

static void build_pipe(void)
{
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	memset(&mon, 0, sizeof(mon));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	mon.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED;
	TRY(doca_flow_pipe_cfg_create(&cfg, B.ports[0]));
	TRY(set_flow_pipe_cfg(cfg, "BENCH_HASH", DOCA_FLOW_PIPE_HASH, true));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, NR_ENTRIES));
	TRY(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1));
	TRY(doca_flow_pipe_cfg_set_monitor(cfg, &mon));
	TRY(doca_flow_pipe_cfg_set_miss_counter(cfg, true));
	TRY(doca_flow_pipe_create(cfg, &fwd, &miss, &B.pipe));
	doca_flow_pipe_cfg_destroy(cfg);
	/* The provider's order: export_prepare before the entries. */
	TRY(doca_flow_dpa_pipe_export_prepare(B.ctx, B.pipe, NR_ENTRIES, &B.dpipe));
	for (uint32_t i = 0; i < NR_ENTRIES; i++) {
		memset(&act, 0, sizeof(act));
		B.ps_expect[i] = 100 + i;
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)B.ps_expect[i]);
		TRY(doca_flow_pipe_hash_add_entry(0, B.pipe, i, 0, &act, NULL, NULL, 0, &B.status, &B.entries[i]));
	}
	TRY(doca_flow_entries_process(B.ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	if (B.status.failure || B.status.nb_processed != (int)NR_ENTRIES)
		fail("%d of %u entries added, failure %d", B.status.nb_processed, NR_ENTRIES, B.status.failure);
	TRY(doca_flow_dpa_pipe_export(B.ctx, B.dpipe));
	TRY(doca_flow_dpa_pipe_get_device_addr(B.ctx, B.dpipe, &B.pipe_addr));

	/* Destinations for every entry index (the index HASH picks for a destination). */
	uint32_t found = 0;
	bool have[NR_ENTRIES] = {false};
	for (uint32_t d = 0x0a000001; found < NR_ENTRIES; d++) {
		struct doca_flow_match m;
		uint32_t h = 0;
		memset(&m, 0, sizeof(m));
		m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
		m.outer.ip4.dst_ip = DOCA_HTOBE32(d);
		TRY(doca_flow_pipe_calc_hash(B.pipe, &m, &h));
		h %= NR_ENTRIES;
		if (!have[h]) {
			have[h] = true;
			B.dst_of[h] = d;
			found++;
		}
	}
}

static void build_memory(void)
{
	struct doca_flow_external_resource_cfg *cfg;
	TRY(doca_flow_external_resource_cfg_create(&cfg, B.ports[0]));
	TRY(doca_flow_external_resource_cfg_set_type(cfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY));
	TRY(doca_flow_external_resource_cfg_set_nr_cells(cfg, NR_ENTRIES));
	TRY(doca_flow_external_resource_create(cfg, &B.mem));
	TRY(doca_flow_external_resource_cfg_destroy(cfg));
	TRY(doca_flow_dpa_external_resource_export(B.ctx, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, B.mem, &B.dmem));
	TRY(doca_flow_dpa_external_resource_get_device_addr(B.ctx, B.dmem, &B.mem_addr));
}

static void setup(void)
{
	struct doca_devinfo **list;
	uint32_t n;
	static const struct doca_flow_dpa_queue_cfg qcfg[3] = {
		{DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, QUEUE_SIZE, BP_MAX_THREADS},
		{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, QUEUE_SIZE, BP_MAX_THREADS},
		{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, QUEUE_SIZE, BP_MAX_THREADS},
	};

	ft_log_init();
	if (init_doca_flow(1, "vnf,hws") != DOCA_SUCCESS || init_doca_flow_ports(2, B.ports) != DOCA_SUCCESS)
		fail("DOCA Flow init");
	TRY(doca_devinfo_create_list(&list, &n));
	TRY(doca_dev_open(list[0], &B.dev));
	TRY(doca_devinfo_destroy_list(list));
	TRY(doca_dpa_create(B.dev, &B.dpa));
	TRY(doca_dpa_set_app(B.dpa, bench_provider_app));
	TRY(doca_dpa_start(B.dpa));
	TRY(doca_dpa_get_flexio_process(B.dpa, &B.proc));
	TRY(doca_flow_dpa_init(B.proc, &B.ctx));
	TRY(doca_flow_dpa_queues_create(B.ctx, B.ports[0], qcfg, 3));
	build_pipe();
	build_memory();
	TRY(doca_dpa_mem_alloc(B.dpa, BP_MAX_THREADS * sizeof(struct bp_result), &B.out));
	TRY(doca_dpa_mem_alloc(B.dpa, BP_MAX_THREADS * BP_MAX_BURST * sizeof(uint64_t), &B.rdbuf));
	TRY(doca_sync_event_create(&B.comp));
	TRY(doca_sync_event_add_publisher_location_dpa(B.comp, B.dpa));
	TRY(doca_sync_event_add_subscriber_location_cpu(B.comp, B.dev));
	TRY(doca_sync_event_start(B.comp));
	B.salt = 0x5a17;
}

static void teardown(void)
{
	TRY(doca_sync_event_destroy(B.comp));
	TRY(doca_dpa_mem_free(B.dpa, B.rdbuf));
	TRY(doca_dpa_mem_free(B.dpa, B.out));
	TRY(doca_flow_dpa_external_resource_destroy(B.ctx, B.dmem));
	TRY(doca_flow_dpa_pipe_destroy(B.ctx, B.dpipe));
	TRY(doca_flow_dpa_queues_destroy(B.ctx, B.ports[0]));
	TRY(doca_flow_dpa_destroy(B.ctx));
	TRY(doca_dpa_destroy(B.dpa));
	TRY(doca_dev_close(B.dev));
	doca_flow_pipe_destroy(B.pipe);
	TRY(doca_flow_external_resource_destroy(B.mem));
	stop_doca_flow_ports(2, B.ports);
	doca_flow_destroy();
}

/* ------------------------------------------------------------------ one kernel launch */

struct run {
	struct bp_result r[BP_MAX_THREADS];
	double mops;	  /* completions per device-clock span */
	double wall_mops; /* completions per host wall time of launch + completion wait */
	uint64_t total;
};

static doca_flow_dpa_addr obj_of(enum bp_op op)
{
	return op == BP_OP_MEM_UPDATE || op == BP_OP_MEM_READ ? B.mem_addr : B.pipe_addr;
}

/* Launch op over nthreads (partition NR_ENTRIES / nthreads each), wait, check. */
static struct run launch(enum bp_op op, unsigned nthreads, unsigned burst, uint64_t reqs, uint64_t dl_ns,
			 uint32_t salt)
{
	struct run run;
	uint32_t part = NR_ENTRIES / nthreads;
	memset(&run, 0, sizeof(run));
	TRY(doca_dpa_memset(B.dpa, B.out, 0, BP_MAX_THREADS * sizeof(struct bp_result)));
	double t0 = now_s();
	B.comp_value++;
	TRY(doca_dpa_kernel_launch_update_set(B.dpa, NULL, 0, B.comp, B.comp_value, nthreads, &bp_kernel,
					      (uint32_t)op, obj_of(op), part, (uint32_t)burst, reqs, dl_ns, salt, B.out,
					      B.rdbuf));
	TRY(doca_sync_event_wait_gt(B.comp, B.comp_value - 1, UINT64_MAX));
	double wall = now_s() - t0;
	TRY(doca_dpa_peek_at_last_error(B.dpa));
	TRY(doca_dpa_d2h_memcpy(B.dpa, run.r, B.out, nthreads * sizeof(struct bp_result)));
	uint64_t lo = UINT64_MAX, hi = 0;
	for (unsigned t = 0; t < nthreads; t++) {
		const struct bp_result *r = &run.r[t];
		if (r->error != 0 || r->again != 0 || r->failed != 0 || r->bad_reads != 0 || r->completed != r->posted ||
		    r->posted == 0)
			fail("%s mode %s, %u threads, burst %u, thread %u: posted %llu, completed %llu, failed %llu, "
			     "AGAIN %llu, bad reads %llu, error %s",
			     op < 4 ? op_names[op] : "verify", B.mode, nthreads, burst, t, (unsigned long long)r->posted,
			     (unsigned long long)r->completed, (unsigned long long)r->failed,
			     (unsigned long long)r->again, (unsigned long long)r->bad_reads,
			     doca_error_get_name((doca_error_t)r->error));
		if (op == BP_OP_DISABLE_ENABLE && (r->posted & 1))
			fail("disable_enable thread %u stopped inside a pair (%llu requests)", t,
			     (unsigned long long)r->posted);
		lo = r->t0 < lo ? r->t0 : lo;
		hi = r->t1 > hi ? r->t1 : hi;
		run.total += r->completed;
	}
	run.mops = hi > lo ? (double)run.total / (double)(hi - lo) * 1e3 : 0;
	run.wall_mops = (double)run.total / wall / 1e6;
	/* What the requests wrote, for the checks. */
	for (unsigned t = 0; t < nthreads; t++) {
		uint64_t k = run.r[t].posted, from = k > part ? k - part : 0;
		for (uint64_t j = from; j < k; j++) {
			uint32_t i = t * part + (uint32_t)(j % part);
			if (op == BP_OP_REPLACE)
				B.ps_expect[i] = bp_ps_value(j, salt);
			else if (op == BP_OP_MEM_UPDATE)
				B.mem_expect[i] = bp_mem_value(j, t, salt);
		}
	}
	return run;
}

/* ------------------------------------------------------------------ checks */

static void frame_for(uint8_t *f, uint32_t i)
{
	ft_build4(f, 17, 0x01020304, B.dst_of[i], 7, 9, FRAME_LEN - 42);
}

/* A frame to every entry: it leaves port 1 with the entry's path-selector value, or (all
 * entries disabled) is a miss. */
static void check_entries(const char *what, bool disabled)
{
	uint8_t f[FRAME_LEN], buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	uint64_t miss0 = ft_miss_pkts(B.pipe);
	ft_drain(1);
	for (uint32_t i = 0; i < NR_ENTRIES; i++) {
		frame_for(f, i);
		TRY(flowdpa_port_inject(0, f, FRAME_LEN));
		B.injected++;
		doca_error_t got = flowdpa_port_capture_pop(1, buf, sizeof(buf), &len);
		if (disabled && got == DOCA_SUCCESS)
			fail("%s (%s): entry %u is disabled but forwarded a frame", what, B.mode, i);
		if (!disabled && got != DOCA_SUCCESS)
			fail("%s (%s): entry %u forwarded nothing (disabled?)", what, B.mode, i);
		if (!disabled && ft_sport(buf) != B.ps_expect[i])
			fail("%s (%s): entry %u: frame left with source port %u, the last replace wrote %u", what, B.mode,
			     i, ft_sport(buf), B.ps_expect[i]);
	}
	uint64_t misses = ft_miss_pkts(B.pipe) - miss0;
	if (misses != (disabled ? NR_ENTRIES : 0))
		fail("%s (%s): %llu misses, expected %u", what, B.mode, (unsigned long long)misses,
		     disabled ? NR_ENTRIES : 0);
}

static void check_cells(const char *what)
{
	for (uint32_t i = 0; i < NR_ENTRIES; i++) {
		uint64_t v = 0;
		TRY(doca_flow_external_resource_memory_get(B.mem, i, &v));
		if (v != B.mem_expect[i])
			fail("%s (%s): cell %u holds 0x%llx, the last update wrote 0x%llx", what, B.mode, i,
			     (unsigned long long)v, (unsigned long long)B.mem_expect[i]);
	}
}

/* Entries + misses counted by the pipe == frames injected. */
static void check_counters(const char *what)
{
	uint64_t sum = ft_miss_pkts(B.pipe);
	for (uint32_t i = 0; i < NR_ENTRIES; i++)
		sum += ft_entry_pkts(B.entries[i]);
	if (sum != B.injected)
		fail("%s (%s): counters say %llu frames (entries + misses), %llu were injected", what, B.mode,
		     (unsigned long long)sum, (unsigned long long)B.injected);
}

/* ------------------------------------------------------------------ request rates */

static void bench_op(enum bp_op op, unsigned nthreads, unsigned burst)
{
	double v[reps], w[reps];
	uint32_t salt = ++B.salt;
	if (op == BP_OP_MEM_READ)
		for (uint32_t i = 0; i < NR_ENTRIES; i++) {
			B.mem_expect[i] = bp_cell_value(i, salt);
			TRY(doca_flow_external_resource_memory_set(B.mem, i, B.mem_expect[i]));
		}
	/* Warm-up (rings, caches, the worker threads), not counted. */
	launch(op, nthreads, burst, 4096, deadline_ns, op == BP_OP_MEM_READ ? salt : ++B.salt);
	for (int r = 0; r < reps; r++) {
		struct run run = launch(op, nthreads, burst, max_reqs, deadline_ns, op == BP_OP_MEM_READ ? salt : ++B.salt);
		/* Pairs per second for disable_enable. */
		double div = op == BP_OP_DISABLE_ENABLE ? 2 : 1;
		v[r] = run.mops / div;
		w[r] = run.wall_mops / div;
	}
	char key[96];
	snprintf(key, sizeof(key), "%s_%ut_b%u_%s_%s", op_names[op], nthreads, burst, B.mode,
		 op == BP_OP_DISABLE_ENABLE ? "mpairs" : "mops");
	print_median(key, v, reps);
	if (burst == 32) {
		strcat(key, "_wall");
		print_median(key, w, reps);
	}
	switch (op) {
	case BP_OP_REPLACE:
	case BP_OP_DISABLE_ENABLE:
		check_entries(key, false);
		break;
	case BP_OP_MEM_UPDATE:
		check_cells(key);
		break;
	default:
		break;
	}
}

/* Disable every entry from the DPA (misses), then enable them again. */
static void check_disable(void)
{
	launch(BP_OP_DISABLE, 1, 32, NR_ENTRIES, deadline_ns, 0);
	check_entries("disable all", true);
	launch(BP_OP_ENABLE, 1, 32, NR_ENTRIES, deadline_ns, 0);
	check_entries("enable all", false);
}

/* ------------------------------------------------------------------ datapath */

static struct {
	pthread_t th;
	_Atomic bool stop;
	_Atomic uint64_t sent;
	uint8_t frames[NR_ENTRIES][FRAME_LEN];
} W;

static void *dp_worker(void *arg)
{
	(void)arg;
	const void *ptrs[DP_BURST];
	uint32_t lens[DP_BURST], next = 0;
	for (unsigned i = 0; i < DP_BURST; i++)
		lens[i] = FRAME_LEN;
	while (!atomic_load_explicit(&W.stop, memory_order_relaxed)) {
		for (unsigned i = 0; i < DP_BURST; i++, next = (next + 1) & (NR_ENTRIES - 1))
			ptrs[i] = W.frames[next];
		uint32_t acc = 0;
		if (flowdpa_port_inject_burst(0, ptrs, lens, DP_BURST, &acc) != DOCA_SUCCESS || acc != DP_BURST) {
			fprintf(stderr, "bench_provider: flowdpa_port_inject_burst took %u of %u\n", acc, DP_BURST);
			exit(1);
		}
		atomic_store_explicit(&W.sent, atomic_load_explicit(&W.sent, memory_order_relaxed) + DP_BURST,
				      memory_order_relaxed);
	}
	return NULL;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void dp_start(void)
{
	atomic_store(&W.stop, false);
	atomic_store(&W.sent, 0);
	if (pthread_create(&W.th, NULL, dp_worker, NULL) != 0)
		fail("cannot start the datapath worker");
	sleep_ns(20000000); /* warm */
}

static void dp_stop(void)
{
	atomic_store(&W.stop, true);
	pthread_join(W.th, NULL);
	B.injected += atomic_load(&W.sent);
}

static void bench_datapath(void)
{
	double alone[reps], with[reps], rep_rate[reps];
	for (uint32_t i = 0; i < NR_ENTRIES; i++)
		frame_for(W.frames[i], i);
	TRY(flowdpa_port_capture_set_depth(1, 0));
	for (int r = 0; r < reps; r++) {
		/* Alone. */
		dp_start();
		uint64_t s0 = atomic_load(&W.sent);
		double t0 = now_s();
		sleep_ns(dp_ns);
		alone[r] = (double)(atomic_load(&W.sent) - s0) / (now_s() - t0) / 1e6;
		dp_stop();
		/* While one DPA thread replaces at full rate, burst 32. */
		dp_start();
		s0 = atomic_load(&W.sent);
		t0 = now_s();
		struct run run = launch(BP_OP_REPLACE, 1, 32, max_reqs, dp_ns, ++B.salt);
		with[r] = (double)(atomic_load(&W.sent) - s0) / (now_s() - t0) / 1e6;
		dp_stop();
		rep_rate[r] = run.mops;
	}
	TRY(flowdpa_port_capture_set_depth(1, 1024));
	char key[96];
	snprintf(key, sizeof(key), "datapath_1w_%s_mpps", B.mode);
	print_median(key, alone, reps);
	snprintf(key, sizeof(key), "datapath_1w_with_replace_1t_b32_%s_mpps", B.mode);
	print_median(key, with, reps);
	snprintf(key, sizeof(key), "replace_1t_b32_%s_during_datapath_mops", B.mode);
	print_median(key, rep_rate, reps);
	check_counters(key);
	check_entries(key, false);
}

/* ------------------------------------------------------------------ modes */

static bool want_op(const char *name)
{
	return only_op == NULL || strcmp(only_op, name) == 0;
}

static int run_mode(const char *mode)
{
	B.mode = mode;
	setup();
	check_entries("initial", false);
	for (unsigned op = 0; op < 4; op++) {
		if (!want_op(op_names[op]))
			continue;
		for (unsigned t = 1; t <= BP_MAX_THREADS; t++)
			for (unsigned b = 0; b < sizeof(bursts) / sizeof(bursts[0]); b++)
				if ((!only_threads || only_threads == t) && (!only_burst || only_burst == bursts[b]))
					bench_op((enum bp_op)op, t, bursts[b]);
		if (op == BP_OP_DISABLE_ENABLE)
			check_disable();
	}
	if (want_op("datapath"))
		bench_datapath();
	check_counters("end");
	teardown();
	return 0;
}

/* Re-execute this program for one mode, its output through a pipe (echoed, and the
 * target figures picked out). */
struct figure {
	char key[96];
	double value;
};
static struct figure figures[512];
static unsigned nfigures;

static int run_child(char **argv, const char *mode)
{
	int fds[2];
	fflush(stdout);
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 1);
		close(fds[1]);
		setenv("FLOWDPA_NIC_MODE", mode, 1);
		setenv("FLOWDPA_NIC_LATENCY_US", "0", 1);
		char *args[32];
		int n = 0;
		args[n++] = argv[0];
		for (int i = 1; argv[i] && n < 28; i++)
			args[n++] = argv[i];
		args[n++] = "--child";
		args[n++] = (char *)mode;
		args[n] = NULL;
		execv("/proc/self/exe", args);
		perror("bench_provider: execv /proc/self/exe");
		_exit(127);
	}
	close(fds[1]);
	FILE *in = fdopen(fds[0], "r");
	char line[256];
	while (in && fgets(line, sizeof(line), in)) {
		fputs(line, stdout);
		fflush(stdout);
		char *eq = strchr(line, '=');
		if (eq && nfigures < sizeof(figures) / sizeof(figures[0]) && (size_t)(eq - line) < sizeof(figures[0].key)) {
			memcpy(figures[nfigures].key, line, (size_t)(eq - line));
			figures[nfigures].key[eq - line] = 0;
			figures[nfigures].value = strtod(eq + 1, NULL);
			nfigures++;
		}
	}
	if (in)
		fclose(in);
	int st = 0;
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static const struct figure *figure(const char *key)
{
	for (unsigned i = 0; i < nfigures; i++)
		if (strcmp(figures[i].key, key) == 0)
			return &figures[i];
	return NULL;
}

static void target(const char *key, double min)
{
	const struct figure *f = figure(key);
	if (f == NULL)
		return;
	printf("target_%s=%.0f\ntarget_%s_met=%s\n", key, min, key, f->value >= min ? "yes" : "NO");
}

static void machine(void)
{
	char line[256], model[128] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');
			if (c) {
				snprintf(model, sizeof(model), "%s", c + 2);
				model[strcspn(model, "\n")] = 0;
			}
			break;
		}
	if (f)
		fclose(f);
	printf("nproc=%ld\ncpu=%s\n", sysconf(_SC_NPROCESSORS_ONLN), model);
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_provider [-q] [-r RUNS] [-m sync|async] "
			"[-o replace|disable_enable|memory_update|memory_read|datapath] [-t 1|2] [-b 1|8|32] [-n REQS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *child = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-q") == 0) {
			quick = true;
		} else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
			only_mode = argv[++i];
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			only_op = argv[++i];
		} else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
			only_threads = (unsigned)atoi(argv[++i]);
		} else if (strcmp(argv[i], "-b") == 0 && i + 1 < argc) {
			only_burst = (unsigned)atoi(argv[++i]);
		} else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			fixed_reqs = strtoull(argv[++i], NULL, 0);
		} else if (strcmp(argv[i], "--child") == 0 && i + 1 < argc) {
			child = argv[++i];
		} else {
			return usage();
		}
	}
	if (quick) {
		deadline_ns = 20000000;
		dp_ns = 50000000;
		if (reps == 5)
			reps = 3;
	}
	if (fixed_reqs) {
		max_reqs = (fixed_reqs + 1) & ~1ull; /* whole disable+enable pairs */
		deadline_ns = 600000000000ull;
	}
	if (reps < 1 || reps > 99 || (only_threads && only_threads > BP_MAX_THREADS) ||
	    (only_burst && only_burst != 1 && only_burst != 8 && only_burst != 32) ||
	    (only_mode && strcmp(only_mode, "sync") && strcmp(only_mode, "async")))
		return usage();
	if (only_op) {
		bool known = strcmp(only_op, "datapath") == 0;
		for (unsigned op = 0; op < 4; op++)
			known |= strcmp(only_op, op_names[op]) == 0;
		if (!known)
			return usage();
	}
	if (child)
		return run_mode(child);

	printf("cmd=");
	for (int i = 0; i < argc; i++)
		printf("%s%s", i ? " " : "", argv[i]);
	printf("\n");
	machine();
	printf("runs=%d\ndeadline_ms=%.0f\ndatapath_ms=%.0f\nentries=%u\nqueue_size=%u\nframe_bytes=%u\n"
	       "nic_latency_us=0\n",
	       reps, (double)deadline_ns / 1e6, (double)dp_ns / 1e6, NR_ENTRIES, QUEUE_SIZE, FRAME_LEN);
	int rc = 0;
	const char *modes[] = {"sync", "async"};
	for (unsigned m = 0; m < 2; m++) {
		if (only_mode && strcmp(only_mode, modes[m]))
			continue;
		int r = run_child(argv, modes[m]);
		if (r != 0) {
			fprintf(stderr, "bench_provider: the %s run failed (status %d)\n", modes[m], r);
			rc = r == 3 ? 3 : 1;
		}
	}
	target("replace_1t_b32_sync_mops", 30);
	target("disable_enable_1t_b32_sync_mpairs", 15);
	printf("bench_check=%s\n", rc ? "FAIL" : "PASS");
	return rc;
}
