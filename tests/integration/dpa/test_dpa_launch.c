/*
 * test_dpa_launch.c - DPA kernels and RPCs end to end: device code built by dpacc (in
 * meson, as a user would) is loaded with doca_dpa_set_app and run through unmodified
 * DOCA host calls. Covers wait/completion events, ranks, 13 mixed arguments, structs by
 * value, device-side sync events and logging, symbol isolation, faults, and every
 * refusal of the launch and RPC entry points; and a stress loop of launches whose EU
 * workers are sometimes still spinning and sometimes asleep (one bitset wake per
 * launch, more than 32 workers so that bits are shared): none may be lost.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "dpa_device/dpa_test_defs.h"
#include "dpa_fixture.h"

extern struct doca_dpa_app *dpa_test_app;
extern doca_dpa_func_t hello_kernel, rank_kernel, args13_kernel, helper_kernel, signal_kernel, fault_kernel,
	bad_handle_kernel, finish_kernel, add_rpc, structs_rpc, rank_rpc, fault_rpc, cycles_rpc;

/* The host's own helper(): the device image has one with the same name that must not clash. */
uint64_t helper(uint64_t x);
uint64_t helper(uint64_t x)
{
	return x + 1000;
}

static int fx_setup(void **state)
{
	*state = dpa_fx_open(DPA_FX_STARTED, dpa_test_app);
	return 0;
}

static int fx_teardown(void **state)
{
	dpa_fx_close(*state);
	return 0;
}

static uint64_t event_get(struct doca_sync_event *ev)
{
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	return v;
}

/* kernel_launch sample flow: the kernel starts only once the wait event reaches 4. */
static void test_hello_wait_and_completion(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_sync_event *wait_ev = dpa_test_event(f->dev, f->dpa, false), *comp_ev = dpa_test_event(f->dev, f->dpa, true);

	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, wait_ev, 4, comp_ev, 10, 1, &hello_kernel),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(wait_ev, 3), DOCA_SUCCESS);
	usleep(50 * 1000);
	assert_int_equal(event_get(comp_ev), 0); /* 3 < 4: still waiting */
	assert_int_equal(doca_sync_event_update_set(wait_ev, 5), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(comp_ev, 9, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(event_get(comp_ev), 10);
	assert_int_equal(doca_dpa_peek_at_last_error(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp_ev), DOCA_SUCCESS);
}

/* Device log: to the file set before start, and into the SDK log with kernel and rank. */
static void test_device_log_file_and_rank(void **state)
{
	struct dpa_fx *f = *state;
	char path[] = "/tmp/flowdpa-dpa-log-XXXXXX";
	int fd = mkstemp(path);
	struct doca_dpa *dpa;
	struct doca_sync_event *comp;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(doca_dpa_create(f->dev, &dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(dpa, dpa_test_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_log_file_set_path(dpa, path), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create(&comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_dpa(comp, dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(comp), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_kernel_launch_update_add(dpa, NULL, 0, comp, 1, 3, &hello_kernel), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(comp, 0, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);

	char text[1024] = {0};
	FILE *in = fopen(path, "r");

	assert_non_null(in);
	size_t n = fread(text, 1, sizeof(text) - 1, in);

	fclose(in);
	unlink(path);
	assert_true(n > 0);
	for (unsigned int r = 0; r < 3; r++) {
		char want[64];

		snprintf(want, sizeof(want), "Hello from kernel rank %u of 3\n", r);
		assert_non_null(strstr(text, want));
		snprintf(want, sizeof(want), "rank %u: Hello from kernel rank %u of 3", r, r);
		assert_int_equal(dpa_test_log_count("[DBG]", "hello_kernel", want, (const char *)NULL), 1);
	}
}

/* N DPA threads each write their rank; read back with d2h. */
static void test_ranks_written_to_device_memory(void **state)
{
	struct dpa_fx *f = *state;
	unsigned int max = 0;
	struct doca_sync_event *comp = dpa_test_event(f->dev, f->dpa, true);
	doca_dpa_dev_uintptr_t buf = 0;

	assert_int_equal(doca_dpa_get_max_threads_per_kernel(f->dpa, &max), DOCA_SUCCESS);
	assert_true(max >= 16);
	const unsigned int counts[] = {1, 7, 64, max};
	uint64_t *host = calloc(max, sizeof(uint64_t));

	assert_non_null(host);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, max * sizeof(uint64_t), &buf), DOCA_SUCCESS);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		unsigned int n = counts[i];

		assert_int_equal(doca_dpa_memset(f->dpa, buf, 0xff, max * sizeof(uint64_t)), DOCA_SUCCESS);
		assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, i + 1, n, &rank_kernel, buf),
				 DOCA_SUCCESS);
		assert_int_equal(doca_sync_event_wait_gt(comp, i, UINT64_MAX), DOCA_SUCCESS);
		assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, host, buf, max * sizeof(uint64_t)), DOCA_SUCCESS);
		for (unsigned int r = 0; r < max; r++)
			assert_int_equal(host[r], r < n ? (((uint64_t)n << 32) | r) : UINT64_MAX);
	}
	free(host);
	assert_int_equal(doca_dpa_mem_free(f->dpa, buf), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

static void test_13_mixed_arguments(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_sync_event *comp = dpa_test_event(f->dev, f->dpa, true);
	doca_dpa_dev_uintptr_t out = 0;
	struct dpa_test_triple t = {.a = 0xa1a2a3a4u, .b = 0xb1b2b3b4b5b6b7b8ull, .c = 0xc1c2};
	struct dpa_test_args13 r;

	assert_int_equal(doca_dpa_mem_alloc(f->dpa, sizeof(r), &out), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 1, &args13_kernel, 0xdeadbeefu,
							   0x0123456789abcdefull, -12345, out, (uint8_t)0xab,
							   (int16_t)-2222, 3.25, 1.5f, t, (uint32_t)77, (int64_t)-9, 99ull,
							   'z'),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(comp, 0, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, &r, out, sizeof(r)), DOCA_SUCCESS);
	assert_int_equal(r.u32, 0xdeadbeefu);
	assert_int_equal(r.u64, 0x0123456789abcdefull);
	assert_int_equal(r.i32, -12345);
	assert_int_equal(r.ptr, out);
	assert_int_equal(r.u8, 0xab);
	assert_int_equal(r.i16, -2222);
	assert_true(r.dbl == 3.25);
	assert_true(r.flt == 1.5f);
	assert_int_equal(r.triple.a, t.a);
	assert_int_equal(r.triple.b, t.b);
	assert_int_equal(r.triple.c, t.c);
	assert_int_equal(r.mmap, 77);
	assert_int_equal(r.i64, -9);
	assert_int_equal(r.last, 99);
	assert_int_equal(r.ch, 'z');
	assert_int_equal(doca_dpa_mem_free(f->dpa, out), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

static void test_rpc_returns_value(void **state)
{
	struct dpa_fx *f = *state;
	uint64_t ret = 0;

	assert_int_equal(doca_dpa_rpc(f->dpa, &add_rpc, &ret, 40ull, 2u), DOCA_SUCCESS);
	assert_int_equal(ret, 40 + 2 + 1); /* device helper(0) == 1, the host's would be 1000 */
	assert_int_equal(doca_dpa_rpc(f->dpa, &rank_rpc, &ret), DOCA_SUCCESS);
	assert_int_equal(ret, (1ull << 32) | 0);
	/* dpaintrin.h's cycle counter advances across work */
	assert_int_equal(doca_dpa_rpc(f->dpa, &cycles_rpc, &ret, 100000ull), DOCA_SUCCESS);
	assert_true(ret > 0 && ret < 10ull * 1000 * 1000 * 1000);
}

static void test_rpc_two_structs_by_value(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t buf = 0;
	uint64_t ret = 0, back = 0;

	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 64, &buf), DOCA_SUCCESS);
	struct dpa_test_thread_arg ping = {.dev_buf = buf, .count = 3, .seed = 11, .tag = 0xf0f0};
	struct dpa_test_thread_arg pong = {.dev_buf = 0, .count = 5, .seed = 13, .tag = 0x0ff0};

	assert_int_equal(doca_dpa_rpc(f->dpa, &structs_rpc, &ret, ping, pong), DOCA_SUCCESS);
	assert_int_equal(ret, 3ull * 1000000 + 5 * 1000 + 11 + 13 + (0xf0f0 ^ 0x0ff0));
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, &back, buf, sizeof(back)), DOCA_SUCCESS);
	assert_int_equal(back, 0x0ff0);
	assert_int_equal(doca_dpa_mem_free(f->dpa, buf), DOCA_SUCCESS);
}

/* The device sets an event the host waits on; a second kernel waits on a host update. */
static void test_device_to_host_sync_event(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_sync_event *dev_ev = dpa_test_event(f->dev, f->dpa, true), *host_ev = dpa_test_event(f->dev, f->dpa, false),
			       *comp = dpa_test_event(f->dev, f->dpa, true);
	doca_dpa_dev_sync_event_t dev_h = 0, host_h = 0;

	assert_int_equal(doca_sync_event_get_dpa_handle(dev_ev, f->dpa, &dev_h), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(host_ev, f->dpa, &host_h), DOCA_SUCCESS);
	assert_true(dev_h != 0 && host_h != 0 && dev_h != host_h);
	/* 4 instances each add 5 to dev_ev */
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 4, &signal_kernel, 0ull, 0ull,
							   dev_h, 5ull),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(dev_ev, 19, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(event_get(dev_ev), 20);
	assert_int_equal(doca_sync_event_wait_gt(comp, 0, UINT64_MAX), DOCA_SUCCESS);
	/* The kernel blocks on host_ev > 6 inside the device, then adds 1 to dev_ev. */
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 2, 1, &signal_kernel, host_h, 6ull,
							   dev_h, 1ull),
			 DOCA_SUCCESS);
	usleep(30 * 1000);
	assert_int_equal(event_get(dev_ev), 20);
	uint64_t prev = 99;

	assert_int_equal(doca_sync_event_update_add(host_ev, 7, &prev), DOCA_SUCCESS);
	assert_int_equal(prev, 0);
	assert_int_equal(doca_sync_event_wait_eq(comp, 2, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(event_get(dev_ev), 21);
	assert_int_equal(doca_sync_event_destroy(dev_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(host_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

/* update_add adds comp_count once per launch (not per instance). */
static void test_update_add_once_per_launch(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_sync_event *comp = dpa_test_event(f->dev, f->dpa, true);

	for (int i = 0; i < 10; i++)
		assert_int_equal(doca_dpa_kernel_launch_update_add(f->dpa, NULL, 0, comp, 3, 8, &hello_kernel),
				 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(comp, 29, UINT64_MAX), DOCA_SUCCESS);
	usleep(10 * 1000);
	assert_int_equal(event_get(comp), 30);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

/* Host and device both define helper() and the device a global; both stay separate. */
static void test_symbol_isolation(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_sync_event *comp = dpa_test_event(f->dev, f->dpa, true);
	doca_dpa_dev_uintptr_t out = 0;
	uint64_t v = 0;

	assert_int_equal(helper(1), 1001);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 8, &out), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 1, &helper_kernel, out, 2ull),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(comp, 0, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, &v, out, 8), DOCA_SUCCESS);
	assert_int_equal(v % 7, 0); /* device helper(2) == 7 accumulated in its own global */
	assert_int_equal(doca_dpa_mem_free(f->dpa, out), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

static void test_thread_finish_ends_instance(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_sync_event *comp = dpa_test_event(f->dev, f->dpa, true);
	doca_dpa_dev_uintptr_t out = 0;
	uint64_t v = 0;

	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 8, &out), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 1, &finish_kernel, out),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(comp, 0, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, &v, out, 8), DOCA_SUCCESS);
	assert_int_equal(v, 7);
	assert_int_equal(doca_dpa_peek_at_last_error(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, out), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

/*
 * Rank 2 of 4 writes to unmapped address 0x10 (not NULL, so that a UBSan build lets the
 * store reach the MMU): reported with kernel, rank and signal; the host continues.
 */
static void test_faulting_kernel_is_reported(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_sync_event *comp = dpa_test_event(f->dev, f->dpa, true);
	uint64_t ret = 0;
	struct doca_dpa *dpa;

	/* A context created here, in the test body: doca_dpa_create (re)installs the fault
	 * handler, and cmocka swaps its own in and out around every fixture and test. */
	dpa = dpa_test_started(f->dev, dpa_test_app);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, comp, 1, 4, &fault_kernel, 0x10ull, 2u),
			 DOCA_SUCCESS);
	assert_true(dpa_test_wait_fatal(dpa));
	usleep(20 * 1000);
	assert_int_equal(event_get(comp), 0); /* a failed launch does not complete */
	assert_int_equal(dpa_test_log_count("[ERR]", "kernel fault_kernel (rank 2 of 4) faulted: SIGSEGV at address 0x10",
					    "doca_dpa_peek_at_last_error", (const char *)NULL),
			 1);
	dpa_test_log_clear();
	/* The context is dead: launches and RPCs are refused. */
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, comp, 1, 1, &hello_kernel),
			 DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("fatal device error", "fault_kernel");
	assert_int_equal(doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 1u), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("had a fatal device error");
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);

	/* The host and a new context carry on. */
	struct doca_dpa *dpa2;

	dpa2 = dpa_test_started(f->dev, dpa_test_app);
	assert_int_equal(doca_dpa_rpc(dpa2, &add_rpc, &ret, 1ull, 1u), DOCA_SUCCESS);
	assert_int_equal(ret, 3);
	assert_int_equal(doca_dpa_destroy(dpa2), DOCA_SUCCESS);

	/* An RPC that faults: DRIVER, and the same report. */
	dpa2 = dpa_test_started(f->dev, dpa_test_app);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_rpc(dpa2, &fault_rpc, &ret, 8ull), DOCA_ERROR_DRIVER);
	dpa_test_expect_log("RPC fault_rpc (rank 0 of 1) faulted: SIGSEGV at address 0x8");
	assert_int_equal(doca_dpa_peek_at_last_error(dpa2), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_dpa_destroy(dpa2), DOCA_SUCCESS);
}

/* A forged handle given to the device API is a fatal device error, reported the same way. */
static void test_invalid_device_handle_is_fatal(void **state)
{
	struct dpa_fx *f = *state;

	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, NULL, 0, 1, &bad_handle_kernel,
							   0x1234ull),
			 DOCA_SUCCESS);
	assert_true(dpa_test_wait_fatal(f->dpa));
	dpa_test_expect_log("kernel bad_handle_kernel (rank 0 of 1) stopped by a fatal device error",
			    "0x1234 is not the handle of a started sync event");
}

/* Every refusal of the launch and RPC entry points: documented code and one log line. */
static void test_launch_and_rpc_refusals(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_sync_event *comp = dpa_test_event(f->dev, f->dpa, true), *idle;
	unsigned int max = 0;
	uint64_t ret = 0;

	assert_int_equal(doca_dpa_get_max_threads_per_kernel(f->dpa, &max), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(NULL, NULL, 0, comp, 1, 1, &hello_kernel),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 1, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("func is NULL");
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 1,
							   (doca_dpa_func_t *)(void (*)(void))test_launch_and_rpc_refusals),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("is not a kernel or RPC of app dpa_test_app");
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 1, &add_rpc, 1ull, 2u),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("add_rpc is an RPC");
	assert_int_equal(doca_dpa_rpc(f->dpa, &hello_kernel, &ret), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("hello_kernel is a kernel");
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 0, &hello_kernel),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("num_threads 0 is not in 1..");
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, max + 1, &hello_kernel),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("is not in 1..", "doca_dpa_get_max_threads_per_kernel");
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, comp, 255, comp, 1, 1, &hello_kernel),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("wait_threshold 255 is above 254");
	assert_int_equal(doca_sync_event_create(&idle), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, idle, 1, comp, 1, 1, &hello_kernel),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("the wait event is not a started doca_sync_event");
	assert_int_equal(doca_sync_event_destroy(idle), DOCA_SUCCESS);
	/* Wrong argument counts, caught by the counting macros. */
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, comp, 1, 1, &rank_kernel),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("kernel rank_kernel declares 1 parameter(s) but 0 argument(s) were passed");
	assert_int_equal(doca_dpa_kernel_launch_update_add(f->dpa, NULL, 0, comp, 1, 1, &hello_kernel, 1ull, 2ull),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("kernel hello_kernel declares 0 parameter(s) but 2 argument(s) were passed");
	assert_int_equal(doca_dpa_rpc(f->dpa, &add_rpc, &ret, 1ull), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("RPC add_rpc declares 2 parameter(s) but 1 argument(s) were passed");
	assert_int_equal(doca_dpa_rpc(f->dpa, &add_rpc, NULL, 1ull, 2u), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("retval is NULL");
	/* The plain functions (no macro) cannot count, so they run: the name stays callable. */
	doca_error_t (*plain_rpc)(struct doca_dpa *, doca_dpa_func_t *, uint64_t *, ...) = doca_dpa_rpc;

	assert_int_equal(plain_rpc(f->dpa, &add_rpc, &ret, 5ull, 6u), DOCA_SUCCESS);
	assert_int_equal(ret, 12);
	/* Nothing was launched by the refused calls. */
	usleep(10 * 1000);
	assert_int_equal(event_get(comp), 0);
	assert_int_equal(doca_dpa_peek_at_last_error(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

/* Launch and RPC before start, and a context without an app. */
static void test_launch_before_start(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa;
	uint64_t ret = 0;

	assert_int_equal(doca_dpa_create(f->dev, &dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(dpa), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("has no application");
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, NULL, 0, 1, &hello_kernel),
			 DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_set_app(dpa, dpa_test_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u), DOCA_SUCCESS);
	assert_int_equal(ret, 4);
	assert_int_equal(doca_dpa_stop(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

/* Destroy with a launch still waiting for its event: bounded wait, cancelled, logged. */
static void test_destroy_cancels_waiting_launch(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa;
	struct doca_sync_event *never;

	dpa = dpa_test_started(f->dev, dpa_test_app);
	assert_int_equal(doca_sync_event_create(&never), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(never), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, never, 3, NULL, 0, 2, &hello_kernel), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_stop(dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("1 kernel launch(es) pending or running");
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	dpa_test_expect_log("launch of kernel hello_kernel (2 threads) cancelled", "reach 3");
	assert_int_equal(doca_sync_event_destroy(never), DOCA_SUCCESS);
}

/*
 * Batches of three launches in flight at once (1 to 40 threads: more EU workers than
 * futex bits), some right after the previous batch (workers still spinning), some
 * after a pause (workers asleep): every instance of every launch runs. Not timed: a
 * lost wake-up is a hang, which the test's timeout reports.
 */
static void test_launch_stress_spinning_and_sleeping_workers(void **state)
{
	struct dpa_fx *f = *state;
	enum { BATCHES = 240, PER_BATCH = 3 };
	const unsigned int counts[] = {1, 3, 16, 40, 2};
	unsigned int max = 0;
	struct doca_sync_event *comp = dpa_test_event(f->dev, f->dpa, true);
	doca_dpa_dev_uintptr_t buf[PER_BATCH];
	uint64_t host[40];
	uint64_t launched = 0;

	assert_int_equal(doca_dpa_get_max_threads_per_kernel(f->dpa, &max), DOCA_SUCCESS);
	assert_true(max >= 40);
	for (int b = 0; b < PER_BATCH; b++)
		assert_int_equal(doca_dpa_mem_alloc(f->dpa, sizeof(host), &buf[b]), DOCA_SUCCESS);
	for (unsigned int i = 0; i < BATCHES; i++) {
		unsigned int n[PER_BATCH];

		if (i % 4 == 3)
			usleep(2000); /* the workers' spin ends: they sleep */
		for (int b = 0; b < PER_BATCH; b++) /* a rank that did not run is seen */
			assert_int_equal(doca_dpa_memset(f->dpa, buf[b], 0xff, sizeof(host)), DOCA_SUCCESS);
		for (int b = 0; b < PER_BATCH; b++) {
			n[b] = counts[(i + (unsigned int)b) % (sizeof(counts) / sizeof(counts[0]))];
			assert_int_equal(doca_dpa_kernel_launch_update_add(f->dpa, NULL, 0, comp, 1, n[b], &rank_kernel,
									   buf[b]),
					 DOCA_SUCCESS);
		}
		launched += PER_BATCH;
		assert_int_equal(doca_sync_event_wait_gt(comp, launched - 1, UINT64_MAX), DOCA_SUCCESS);
		assert_int_equal(event_get(comp), launched);
		for (int b = 0; b < PER_BATCH; b++) {
			assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, host, buf[b], n[b] * sizeof(uint64_t)), DOCA_SUCCESS);
			for (unsigned int r = 0; r < n[b]; r++)
				assert_int_equal(host[r], ((uint64_t)n[b] << 32) | r);
		}
	}
	for (int b = 0; b < PER_BATCH; b++)
		assert_int_equal(doca_dpa_mem_free(f->dpa, buf[b]), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_DEBUG);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hello_wait_and_completion, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_device_log_file_and_rank, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_ranks_written_to_device_memory, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_13_mixed_arguments, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_rpc_returns_value, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_rpc_two_structs_by_value, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_device_to_host_sync_event, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_update_add_once_per_launch, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_symbol_isolation, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_thread_finish_ends_instance, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_faulting_kernel_is_reported, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_invalid_device_handle_is_fatal, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_launch_and_rpc_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_launch_before_start, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_cancels_waiting_launch, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_launch_stress_spinning_and_sleeping_workers, fx_setup,
						fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
