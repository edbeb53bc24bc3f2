/*
 * bench_dpa.c - DPA runtime latency against this machine's own floor, measured in the
 * same run: a plain futex ping-pong between two threads (the reference), then kernel
 * launch-to-completion (launch with a completion event, host wait_gt on it) for 1 and N
 * threads, the RPC round trip (which runs the RPC inline on the caller's thread) and a
 * cross-thread round trip through a DPA thread (RPC notify -> thread run -> event ->
 * host). Reference and 1-thread launch rounds alternate, so machine load hits both alike.
 *
 * Per figure: median and p99 latency (median over the rounds of each round's value),
 * context switches (getrusage: voluntary + involuntary, all threads), futex(2) calls
 * (perf tracepoint syscalls:sys_enter_futex counted over all threads, when the kernel
 * lets us open it) and CPU time per operation (spinning shows up there). Then the ratio
 * launch median / ping-pong median with the targets (<= 1.3, p99 <= 3x median).
 *
 * It checks what it measures: every launch completed (completion event count), every
 * rank of the N-thread kernel wrote its value, every RPC returned its argument + 1 and
 * every DPA-thread run was counted. A failed check exits 1; a missed latency target is
 * only reported (exit 3 with --strict): the machine may be loaded by others.
 *
 * --tail also prints each round's p90, p99.9 and maximum: whether a round's p99 is a
 * spread of the whole distribution or a few slow operations (preemption, a sleep).
 *
 * --only FIGURE runs one figure (pingpong, launch1, launchN, rpc, thread), so that a
 * syscall count of the whole process (strace -f -c, when the futex tracepoint cannot be
 * opened) is that figure's; no ratio is printed then.
 *
 * usage: bench_dpa [--iterations N] [--runs R] [--threads T] [--warmup W] [--strict] [--tail]
 *                  [--only FIGURE]
 */
#include <errno.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_log.h>
#include <doca_sync_event.h>

extern struct doca_dpa_app *bench_dpa_app;
extern doca_dpa_func_t bench_noop_kernel, bench_store_kernel, bench_echo_rpc, bench_thread_kernel, bench_notify_rpc;

#define TARGET_RATIO 1.3
#define TARGET_P99_OVER_MEDIAN 3.0

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define CHECK(call)                                                                              \
	do {                                                                                     \
		doca_error_t r_ = (call);                                                        \
		if (r_ != DOCA_SUCCESS) {                                                        \
			fprintf(stderr, "%s failed: %s\n", #call, doca_error_get_name(r_));      \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)

static void fail(const char *what)
{
	fprintf(stderr, "check failed: %s\n", what);
	exit(1);
}

/* ------------------------------------------------------------ counters */

/* futex(2) calls by every thread of the process (-1: the tracepoint cannot be opened). */
static int futex_fd = -1;
static char futex_why[128] = "not opened";

static void futex_counter_open(void)
{
	static const char *const paths[] = {"/sys/kernel/tracing/events/syscalls/sys_enter_futex/id",
					    "/sys/kernel/debug/tracing/events/syscalls/sys_enter_futex/id"};
	long long id = -1;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && id < 0; i++) {
		FILE *f = fopen(paths[i], "r");

		if (f != NULL) {
			if (fscanf(f, "%lld", &id) != 1)
				id = -1;
			fclose(f);
		}
	}
	if (id < 0) {
		snprintf(futex_why, sizeof(futex_why), "no syscalls:sys_enter_futex tracepoint (tracefs)");
		return;
	}
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (unsigned long long)id;
	attr.inherit = 1; /* threads created later (DPA threads, dispatcher, ping-pong peer) count too */
	attr.sample_period = 0;
	futex_fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (futex_fd < 0)
		snprintf(futex_why, sizeof(futex_why), "perf_event_open: %s", strerror(errno));
}

struct counters {
	long vcsw, ivcsw;
	uint64_t cpu_ns;
	uint64_t futex;
};

static struct counters counters_now(void)
{
	struct rusage ru;
	struct counters c = {0};

	getrusage(RUSAGE_SELF, &ru);
	c.vcsw = ru.ru_nvcsw;
	c.ivcsw = ru.ru_nivcsw;
	c.cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
		   ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
	if (futex_fd >= 0 && read(futex_fd, &c.futex, sizeof(c.futex)) != (ssize_t)sizeof(c.futex))
		c.futex = 0;
	return c;
}

/* One round of one figure: latency and per-operation costs. */
struct round {
	double median_us, p99_us, vcs, ivcs, futex, cpu_us;
	double p90_us, p999_us, max_us; /* printed with --tail only */
};

static struct round round_of(uint64_t *ns, size_t n, struct counters a, struct counters b)
{
	struct round r;

	qsort(ns, n, sizeof(*ns), cmp_u64);
	size_t p99 = (n * 99) / 100;

	if (p99 >= n)
		p99 = n - 1;
	r.median_us = ns[n / 2] / 1000.0;
	r.p90_us = ns[(n * 90) / 100] / 1000.0;
	r.p999_us = ns[(n * 999) / 1000] / 1000.0;
	r.max_us = ns[n - 1] / 1000.0;
	r.p99_us = ns[p99] / 1000.0;
	r.vcs = (double)(b.vcsw - a.vcsw) / (double)n;
	r.ivcs = (double)(b.ivcsw - a.ivcsw) / (double)n;
	r.futex = futex_fd >= 0 ? (double)(b.futex - a.futex) / (double)n : -1;
	r.cpu_us = (double)(b.cpu_ns - a.cpu_ns) / (double)n / 1000.0;
	return r;
}

/* ------------------------------------------------------------ the reference: futex ping-pong */

struct pingpong {
	_Atomic uint32_t word; /* 1: the ball is with the peer, 0: with the main thread */
	atomic_bool quit;
};

static long futex_op(_Atomic uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static void *pingpong_peer(void *arg)
{
	struct pingpong *p = arg;

	for (;;) {
		while (atomic_load(&p->word) == 0 && !atomic_load(&p->quit))
			futex_op(&p->word, FUTEX_WAIT_PRIVATE, 0);
		if (atomic_load(&p->quit))
			return NULL;
		atomic_store(&p->word, 0);
		futex_op(&p->word, FUTEX_WAKE_PRIVATE, 1);
	}
}

/* A round trip: hand the ball over, sleep until it is back; no spinning on either side. */
static struct round pingpong_round(uint64_t *samples, size_t iters, size_t warmup)
{
	struct pingpong p = {0};
	pthread_t peer;
	struct counters a = {0};

	if (pthread_create(&peer, NULL, pingpong_peer, &p) != 0)
		fail("pthread_create for the ping-pong peer");
	for (size_t i = 0; i < warmup + iters; i++) {
		if (i == warmup)
			a = counters_now();
		uint64_t t0 = now_ns();

		atomic_store(&p.word, 1);
		futex_op(&p.word, FUTEX_WAKE_PRIVATE, 1);
		while (atomic_load(&p.word) == 1)
			futex_op(&p.word, FUTEX_WAIT_PRIVATE, 1);
		if (i >= warmup)
			samples[i - warmup] = now_ns() - t0;
	}
	struct counters b = counters_now();

	atomic_store(&p.quit, true);
	atomic_store(&p.word, 1);
	futex_op(&p.word, FUTEX_WAKE_PRIVATE, 1);
	pthread_join(peer, NULL);
	return round_of(samples, iters, a, b);
}

/* ------------------------------------------------------------ DPA figures */

enum bench_kind { BENCH_PINGPONG, BENCH_LAUNCH_1, BENCH_LAUNCH_N, BENCH_RPC, BENCH_THREAD, BENCH_KINDS };

static const char *const kind_name[BENCH_KINDS] = {
	"futex ping-pong between two threads (reference)",
	"kernel launch-to-completion, 1 thread",
	"kernel launch-to-completion, N threads",
	"RPC round trip, inline on the caller's thread (doca_dpa_rpc)",
	"cross-thread round trip: RPC notify -> DPA thread run -> event -> host",
};

/* The names --only takes (to count one figure's syscalls, e.g. under strace -f -c). */
static const char *const figure_option[BENCH_KINDS] = {"pingpong", "launch1", "launchN", "rpc", "thread"};

struct bench {
	struct doca_dpa *dpa;
	struct doca_sync_event *comp;
	uint64_t comp_value; /* launches completed so far, as the completion event should count */
	unsigned int threads;
	doca_dpa_dev_uintptr_t buf;
	uint64_t *host_buf;
	doca_dpa_dev_notification_completion_t nh;
	struct doca_sync_event *thread_ev;
	uint64_t thread_runs;
};

static struct round dpa_round(struct bench *b, enum bench_kind kind, uint64_t *samples, size_t iters, size_t warmup)
{
	struct counters a = {0};

	for (size_t i = 0; i < warmup + iters; i++) {
		if (i == warmup)
			a = counters_now();
		uint64_t t0 = now_ns(), ret = 0;

		switch (kind) {
		case BENCH_LAUNCH_1:
			CHECK(doca_dpa_kernel_launch_update_add(b->dpa, NULL, 0, b->comp, 1, 1, &bench_noop_kernel));
			CHECK(doca_sync_event_wait_gt(b->comp, b->comp_value, UINT64_MAX));
			b->comp_value++;
			break;
		case BENCH_LAUNCH_N:
			CHECK(doca_dpa_kernel_launch_update_add(b->dpa, NULL, 0, b->comp, 1, b->threads,
								 &bench_store_kernel, b->buf, (uint64_t)i));
			CHECK(doca_sync_event_wait_gt(b->comp, b->comp_value, UINT64_MAX));
			b->comp_value++;
			break;
		case BENCH_THREAD:
			CHECK(doca_dpa_rpc(b->dpa, &bench_notify_rpc, &ret, b->nh));
			CHECK(doca_sync_event_wait_gt(b->thread_ev, b->thread_runs, UINT64_MAX));
			b->thread_runs++;
			break;
		case BENCH_RPC:
			CHECK(doca_dpa_rpc(b->dpa, &bench_echo_rpc, &ret, (uint64_t)i));
			if (ret != i + 1)
				fail("an RPC did not return its argument + 1");
			break;
		default:
			fail("unknown figure");
		}
		if (i >= warmup)
			samples[i - warmup] = now_ns() - t0;
	}
	struct counters c = counters_now();
	uint64_t v = 0;

	/* Everything counted ran: the events hold exactly what was asked of them. */
	CHECK(doca_sync_event_get(b->comp, &v));
	if (v != b->comp_value)
		fail("the completion event does not count every launch");
	CHECK(doca_sync_event_get(b->thread_ev, &v));
	if (v != b->thread_runs)
		fail("the DPA thread's event does not count every run");
	if (kind == BENCH_LAUNCH_N) {
		CHECK(doca_dpa_d2h_memcpy(b->dpa, b->host_buf, b->buf, b->threads * sizeof(uint64_t)));
		for (unsigned int r = 0; r < b->threads; r++)
			if (b->host_buf[r] != warmup + iters - 1)
				fail("a rank of the last N-thread launch did not store its value");
	}
	return round_of(samples, iters, a, c);
}

/* ------------------------------------------------------------ report */

struct summary {
	double median_us, p99_us, vcs, ivcs, futex, cpu_us;
};

/* Each column's median over the rounds (the machine may be loaded: one slow round is noise). */
static struct summary summarize(struct round *rounds, size_t runs)
{
	double *v = malloc(runs * sizeof(*v));
	struct summary s;

	if (v == NULL)
		fail("out of memory");
#define COLUMN(field)                                   \
	do {                                            \
		for (size_t r_ = 0; r_ < runs; r_++)    \
			v[r_] = rounds[r_].field;       \
		s.field = median_of(v, runs);           \
	} while (0)
	COLUMN(median_us);
	COLUMN(p99_us);
	COLUMN(vcs);
	COLUMN(ivcs);
	COLUMN(futex);
	COLUMN(cpu_us);
#undef COLUMN
	free(v);
	return s;
}

static bool show_tail;

static void print_round(size_t r, const struct round *x)
{
	printf("  round %zu: median %8.2f us  p99 %8.2f us  cs/op %5.2f (+%4.2f invol)  futex/op ", r + 1,
	       x->median_us, x->p99_us, x->vcs, x->ivcs);
	if (x->futex >= 0)
		printf("%5.2f", x->futex);
	else
		printf("  n/a");
	printf("  cpu %6.2f us/op\n", x->cpu_us);
	if (show_tail)
		printf("           p90 %8.2f us  p99.9 %8.2f us  max %8.2f us\n", x->p90_us, x->p999_us, x->max_us);
}

int main(int argc, char **argv)
{
	size_t iters = 20000, runs = 5, warmup = 1000;
	unsigned int threads = 16;
	bool strict = false, ran[BENCH_KINDS] = {true, true, true, true, true};

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "--iterations") == 0)
			iters = strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--runs") == 0)
			runs = strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
			threads = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--warmup") == 0)
			warmup = strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--strict") == 0)
			strict = true;
		else if (strcmp(argv[i], "--tail") == 0)
			show_tail = true;
		else if (i + 1 < argc && strcmp(argv[i], "--only") == 0) {
			const char *f = argv[++i];
			int k = 0;

			while (k < BENCH_KINDS && strcmp(f, figure_option[k]) != 0)
				k++;
			if (k == BENCH_KINDS) {
				fprintf(stderr, "--only: no figure %s (pingpong, launch1, launchN, rpc, thread)\n", f);
				return 2;
			}
			for (int j = 0; j < BENCH_KINDS; j++)
				ran[j] = j == k;
		}
		else {
			fprintf(stderr, "usage: %s [--iterations N] [--runs R] [--threads T] [--warmup W] [--strict] [--tail] [--only FIGURE]\n",
				argv[0]);
			return 2;
		}
	}
	if (iters == 0 || runs == 0 || threads == 0) {
		fprintf(stderr, "iterations, runs and threads must be positive\n");
		return 2;
	}
	printf("command:");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double load[3] = {0};

	if (getloadavg(load, 3) < 0)
		load[0] = -1;
	printf("\nparameters: iterations=%zu runs=%zu warmup=%zu threads=%u (FLOWDPA_DEVICES=%s)\n", iters, runs,
	       warmup, threads, getenv("FLOWDPA_DEVICES") ? getenv("FLOWDPA_DEVICES") : "default");
	char model[128] = "unknown", line[256];
	struct utsname un;
	FILE *cpuinfo = fopen("/proc/cpuinfo", "r");

	while (cpuinfo != NULL && fgets(line, sizeof(line), cpuinfo) != NULL)
		if (strncmp(line, "model name", 10) == 0 && strchr(line, ':') != NULL) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	if (cpuinfo != NULL)
		fclose(cpuinfo);
	if (uname(&un) != 0)
		snprintf(un.release, sizeof(un.release), "unknown");
	printf("machine: %s, %ld online CPUs, Linux %s, load average %.2f at start\n", model, ncpu, un.release, load[0]);
	futex_counter_open(); /* before any thread exists: inherited by every thread made later */
	if (futex_fd < 0)
		printf("futex calls: not counted (%s); run under `strace -f -c -e trace=futex` instead\n", futex_why);

	struct doca_log_backend *sdk;

	doca_log_backend_create_with_file_sdk(stderr, &sdk);
	doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING);
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev;
	struct bench b = {.threads = threads};

	CHECK(doca_devinfo_create_list(&list, &n));
	CHECK(doca_dev_open(list[0], &dev));
	CHECK(doca_devinfo_destroy_list(list));
	CHECK(doca_dpa_create(dev, &b.dpa));
	CHECK(doca_dpa_set_app(b.dpa, bench_dpa_app));
	CHECK(doca_dpa_start(b.dpa));
	CHECK(doca_dpa_mem_alloc(b.dpa, threads * sizeof(uint64_t), &b.buf));
	b.host_buf = calloc(threads, sizeof(uint64_t));
	CHECK(doca_sync_event_create(&b.comp));
	CHECK(doca_sync_event_add_publisher_location_dpa(b.comp, b.dpa));
	CHECK(doca_sync_event_add_subscriber_location_cpu(b.comp, dev));
	CHECK(doca_sync_event_start(b.comp));

	struct doca_dpa_thread *thread;
	struct doca_dpa_notification_completion *notify;
	doca_dpa_dev_sync_event_t thread_ev_h;

	CHECK(doca_sync_event_create(&b.thread_ev));
	CHECK(doca_sync_event_add_publisher_location_dpa(b.thread_ev, b.dpa));
	CHECK(doca_sync_event_start(b.thread_ev));
	CHECK(doca_sync_event_get_dpa_handle(b.thread_ev, b.dpa, &thread_ev_h));
	CHECK(doca_dpa_thread_create(b.dpa, &thread));
	CHECK(doca_dpa_thread_set_func_arg(thread, &bench_thread_kernel, thread_ev_h));
	CHECK(doca_dpa_thread_start(thread));
	CHECK(doca_dpa_notification_completion_create(b.dpa, thread, &notify));
	CHECK(doca_dpa_notification_completion_start(notify));
	CHECK(doca_dpa_notification_completion_get_dpa_handle(notify, &b.nh));
	CHECK(doca_dpa_thread_run(thread));

	uint64_t *samples = malloc(iters * sizeof(*samples));
	struct round *rounds[BENCH_KINDS];

	for (int k = 0; k < BENCH_KINDS; k++)
		rounds[k] = calloc(runs, sizeof(struct round));
	if (samples == NULL || b.host_buf == NULL)
		fail("out of memory");
	for (int k = 0; k < BENCH_KINDS; k++)
		if (rounds[k] == NULL)
			fail("out of memory");
	/* Reference and 1-thread launch alternate round by round; then the other figures. */
	for (size_t r = 0; r < runs; r++) {
		if (ran[BENCH_PINGPONG])
			rounds[BENCH_PINGPONG][r] = pingpong_round(samples, iters, warmup);
		if (ran[BENCH_LAUNCH_1])
			rounds[BENCH_LAUNCH_1][r] = dpa_round(&b, BENCH_LAUNCH_1, samples, iters, warmup);
	}
	for (int k = BENCH_LAUNCH_N; k < BENCH_KINDS; k++)
		for (size_t r = 0; r < runs && ran[k]; r++)
			rounds[k][r] = dpa_round(&b, (enum bench_kind)k, samples, iters, warmup);

	struct summary s[BENCH_KINDS];

	for (int k = 0; k < BENCH_KINDS; k++) {
		if (!ran[k])
			continue;
		printf("\n%s%s\n", kind_name[k], k == BENCH_PINGPONG || k == BENCH_LAUNCH_1 ? " (rounds alternate)" : "");
		if (k == BENCH_LAUNCH_N)
			printf("  (N = %u)\n", threads);
		double lo = rounds[k][0].median_us, hi = lo, plo = rounds[k][0].p99_us, phi = plo;

		for (size_t r = 0; r < runs; r++) {
			print_round(r, &rounds[k][r]);
			lo = rounds[k][r].median_us < lo ? rounds[k][r].median_us : lo;
			hi = rounds[k][r].median_us > hi ? rounds[k][r].median_us : hi;
			plo = rounds[k][r].p99_us < plo ? rounds[k][r].p99_us : plo;
			phi = rounds[k][r].p99_us > phi ? rounds[k][r].p99_us : phi;
		}
		/* bench/summarize.py (make bench) reads this line. */
		printf("  over %zu runs: median %.2f..%.2f us, p99 %.2f..%.2f us\n", runs, lo, hi, plo, phi);
		s[k] = summarize(rounds[k], runs);
	}
	printf("\nsummary (median over %zu rounds of %zu operations each; cs = voluntary context switches of all "
	       "threads, invol = involuntary ones, futex = futex(2) calls of all threads, cpu = user+system time "
	       "of all threads):\n",
	       runs, iters);
	printf("  %-26s %10s %10s %8s %8s %8s %10s\n", "figure", "median us", "p99 us", "cs/op", "invol", "futex/op",
	       "cpu us/op");
	static const char *const short_name[BENCH_KINDS] = {"futex ping-pong (ref)", "launch, 1 thread",
							    "launch, N threads", "RPC, inline on caller",
							    "cross-thread (DPA thread)"};

	for (int k = 0; k < BENCH_KINDS; k++) {
		if (!ran[k])
			continue;
		printf("  %-26s %10.2f %10.2f %8.2f %8.2f ", short_name[k], s[k].median_us, s[k].p99_us, s[k].vcs,
		       s[k].ivcs);
		if (s[k].futex >= 0)
			printf("%8.2f", s[k].futex);
		else
			printf("%8s", "n/a");
		printf(" %10.2f\n", s[k].cpu_us);
	}
	/* The ratio of each alternating pair, then their median: both saw the same load. */
	double *ratios = malloc(runs * sizeof(*ratios));
	bool ratio_ok = true, tail_ok = true;

	if (ratios == NULL)
		fail("out of memory");
	if (ran[BENCH_PINGPONG] && ran[BENCH_LAUNCH_1]) {
		for (size_t r = 0; r < runs; r++)
			ratios[r] = rounds[BENCH_LAUNCH_1][r].median_us / rounds[BENCH_PINGPONG][r].median_us;
		double ratio = median_of(ratios, runs), tail = s[BENCH_LAUNCH_1].p99_us / s[BENCH_LAUNCH_1].median_us;

		ratio_ok = ratio <= TARGET_RATIO;
		tail_ok = tail <= TARGET_P99_OVER_MEDIAN;
		printf("\nratio launch median / ping-pong median: %.2f (target <= %.1f: %s)\n", ratio, TARGET_RATIO,
		       ratio_ok ? "met" : "MISSED");
		printf("launch p99 / median: %.2f (target <= %.1f: %s); the reference's own: %.2f (this machine's "
		       "tail under its current load)\n",
		       tail, TARGET_P99_OVER_MEDIAN, tail_ok ? "met" : "MISSED",
		       s[BENCH_PINGPONG].p99_us / s[BENCH_PINGPONG].median_us);
	} else {
		printf("\n(--only: no ratio against the reference, which needs both of its figures)\n");
	}
	printf("checks: every launch completed (%llu), every rank stored, every RPC returned, every DPA-thread run "
	       "counted (%llu): passed\n",
	       (unsigned long long)b.comp_value, (unsigned long long)b.thread_runs);
	free(ratios);
	free(samples);
	for (int k = 0; k < BENCH_KINDS; k++)
		free(rounds[k]);
	CHECK(doca_dpa_notification_completion_destroy(notify));
	CHECK(doca_dpa_thread_destroy(thread));
	CHECK(doca_sync_event_destroy(b.thread_ev));
	CHECK(doca_sync_event_destroy(b.comp));
	CHECK(doca_dpa_mem_free(b.dpa, b.buf));
	free(b.host_buf);
	CHECK(doca_dpa_destroy(b.dpa));
	CHECK(doca_dev_close(dev));
	if (futex_fd >= 0)
		close(futex_fd);
	return strict && !(ratio_ok && tail_ok) ? 3 : 0;
}
