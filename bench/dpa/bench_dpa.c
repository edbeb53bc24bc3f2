/*
 * bench_dpa.c - DPA runtime latency: kernel launch-to-completion (launch with a
 * completion event, host wait_gt on it) for 1 and N threads, and RPC round trip.
 * and a DPA-thread trigger (an RPC notifies a DPA thread, whose run sets an event the
 * host waits on). Prints its command line and parameters, then median and p99 per run
 * and over all runs.
 *
 * usage: bench_dpa [--iterations N] [--runs R] [--threads T] [--warmup W]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_log.h>
#include <doca_sync_event.h>

extern struct doca_dpa_app *bench_dpa_app;
extern doca_dpa_func_t bench_noop_kernel, bench_store_kernel, bench_echo_rpc, bench_thread_kernel, bench_notify_rpc;

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

struct stats {
	double median_us, p99_us;
};

static struct stats summarize(uint64_t *ns, size_t n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	size_t p99 = (n * 99) / 100;

	if (p99 >= n)
		p99 = n - 1;
	return (struct stats){ns[n / 2] / 1000.0, ns[p99] / 1000.0};
}

#define CHECK(call)                                                                              \
	do {                                                                                     \
		doca_error_t r_ = (call);                                                        \
		if (r_ != DOCA_SUCCESS) {                                                        \
			fprintf(stderr, "%s failed: %s\n", #call, doca_error_get_name(r_));      \
			exit(1);                                                                 \
		}                                                                                \
	} while (0)

enum bench_kind { BENCH_LAUNCH_1, BENCH_LAUNCH_N, BENCH_RPC, BENCH_THREAD };

/* The DPA thread of BENCH_THREAD: notified through nh, counts its runs in thread_ev. */
static doca_dpa_dev_notification_completion_t bench_nh;
static struct doca_sync_event *bench_thread_ev;
static uint64_t bench_thread_runs;

static void run_one(struct doca_dpa *dpa, struct doca_sync_event *comp, uint64_t *comp_value, enum bench_kind kind,
		    unsigned int threads, doca_dpa_dev_uintptr_t buf, uint64_t *samples, size_t iters, size_t warmup)
{
	for (size_t i = 0; i < warmup + iters; i++) {
		uint64_t t0 = now_ns(), ret = 0;

		switch (kind) {
		case BENCH_LAUNCH_1:
			CHECK(doca_dpa_kernel_launch_update_add(dpa, NULL, 0, comp, 1, 1, &bench_noop_kernel));
			CHECK(doca_sync_event_wait_gt(comp, *comp_value, UINT64_MAX));
			(*comp_value)++;
			break;
		case BENCH_LAUNCH_N:
			CHECK(doca_dpa_kernel_launch_update_add(dpa, NULL, 0, comp, 1, threads, &bench_store_kernel, buf,
								 (uint64_t)i));
			CHECK(doca_sync_event_wait_gt(comp, *comp_value, UINT64_MAX));
			(*comp_value)++;
			break;
		case BENCH_THREAD:
			CHECK(doca_dpa_rpc(dpa, &bench_notify_rpc, &ret, bench_nh));
			CHECK(doca_sync_event_wait_gt(bench_thread_ev, bench_thread_runs, UINT64_MAX));
			bench_thread_runs++;
			break;
		case BENCH_RPC:
			CHECK(doca_dpa_rpc(dpa, &bench_echo_rpc, &ret, (uint64_t)i));
			if (ret != i + 1) {
				fprintf(stderr, "RPC returned %llu, expected %zu\n", (unsigned long long)ret, i + 1);
				exit(1);
			}
			break;
		}
		if (i >= warmup)
			samples[i - warmup] = now_ns() - t0;
	}
}

int main(int argc, char **argv)
{
	size_t iters = 20000, runs = 5, warmup = 1000;
	unsigned int threads = 16;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "--iterations") == 0)
			iters = strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--runs") == 0)
			runs = strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
			threads = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--warmup") == 0)
			warmup = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--iterations N] [--runs R] [--threads T] [--warmup W]\n", argv[0]);
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
	printf("\nparameters: iterations=%zu runs=%zu warmup=%zu threads=%u (FLOWDPA_DEVICES=%s)\n", iters, runs,
	       warmup, threads, getenv("FLOWDPA_DEVICES") ? getenv("FLOWDPA_DEVICES") : "default");

	struct doca_log_backend *sdk;

	doca_log_backend_create_with_file_sdk(stderr, &sdk);
	doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING);
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct doca_sync_event *comp;
	doca_dpa_dev_uintptr_t buf;
	uint64_t comp_value = 0;

	CHECK(doca_devinfo_create_list(&list, &n));
	CHECK(doca_dev_open(list[0], &dev));
	CHECK(doca_devinfo_destroy_list(list));
	CHECK(doca_dpa_create(dev, &dpa));
	CHECK(doca_dpa_set_app(dpa, bench_dpa_app));
	CHECK(doca_dpa_start(dpa));
	CHECK(doca_dpa_mem_alloc(dpa, threads * sizeof(uint64_t), &buf));
	CHECK(doca_sync_event_create(&comp));
	CHECK(doca_sync_event_add_publisher_location_dpa(comp, dpa));
	CHECK(doca_sync_event_add_subscriber_location_cpu(comp, dev));
	CHECK(doca_sync_event_start(comp));

	struct doca_dpa_thread *thread;
	struct doca_dpa_notification_completion *notify;
	doca_dpa_dev_sync_event_t thread_ev_h;

	CHECK(doca_sync_event_create(&bench_thread_ev));
	CHECK(doca_sync_event_add_publisher_location_dpa(bench_thread_ev, dpa));
	CHECK(doca_sync_event_start(bench_thread_ev));
	CHECK(doca_sync_event_get_dpa_handle(bench_thread_ev, dpa, &thread_ev_h));
	CHECK(doca_dpa_thread_create(dpa, &thread));
	CHECK(doca_dpa_thread_set_func_arg(thread, &bench_thread_kernel, thread_ev_h));
	CHECK(doca_dpa_thread_start(thread));
	CHECK(doca_dpa_notification_completion_create(dpa, thread, &notify));
	CHECK(doca_dpa_notification_completion_start(notify));
	CHECK(doca_dpa_notification_completion_get_dpa_handle(notify, &bench_nh));
	CHECK(doca_dpa_thread_run(thread));

	uint64_t *samples = malloc(iters * sizeof(*samples));
	double *medians = malloc(runs * sizeof(*medians)), *p99s = malloc(runs * sizeof(*p99s));

	if (samples == NULL || medians == NULL || p99s == NULL)
		return 1;
	const struct {
		enum bench_kind kind;
		const char *name;
	} kinds[] = {
		{BENCH_LAUNCH_1, "kernel launch-to-completion, 1 thread"},
		{BENCH_LAUNCH_N, "kernel launch-to-completion, N threads"},
		{BENCH_RPC, "RPC round trip"},
		{BENCH_THREAD, "DPA thread trigger (RPC notify -> thread run -> event -> host)"},
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		printf("\n%s\n", kinds[k].name);
		if (kinds[k].kind == BENCH_LAUNCH_N)
			printf("  (N = %u)\n", threads);
		for (size_t r = 0; r < runs; r++) {
			run_one(dpa, comp, &comp_value, kinds[k].kind, threads, buf, samples, iters, warmup);
			struct stats s = summarize(samples, iters);

			medians[r] = s.median_us;
			p99s[r] = s.p99_us;
			printf("  run %zu: median %8.2f us   p99 %8.2f us\n", r + 1, s.median_us, s.p99_us);
		}
		double lo = medians[0], hi = medians[0], plo = p99s[0], phi = p99s[0];

		for (size_t r = 1; r < runs; r++) {
			lo = medians[r] < lo ? medians[r] : lo;
			hi = medians[r] > hi ? medians[r] : hi;
			plo = p99s[r] < plo ? p99s[r] : plo;
			phi = p99s[r] > phi ? p99s[r] : phi;
		}
		printf("  over %zu runs: median %.2f..%.2f us, p99 %.2f..%.2f us\n", runs, lo, hi, plo, phi);
	}
	free(samples);
	free(medians);
	free(p99s);
	CHECK(doca_dpa_notification_completion_destroy(notify));
	CHECK(doca_dpa_thread_destroy(thread));
	CHECK(doca_sync_event_destroy(bench_thread_ev));
	CHECK(doca_sync_event_destroy(comp));
	CHECK(doca_dpa_mem_free(dpa, buf));
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(dev));
	return 0;
}
