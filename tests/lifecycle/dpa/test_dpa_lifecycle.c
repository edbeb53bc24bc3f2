/*
 * test_dpa_lifecycle.c - DPA contexts over their whole life and under concurrency: the
 * kernel_launch sample's exact order (events never stopped, context destroyed without
 * stop), many create/run/destroy cycles (leak-checked under ASan), launches from several
 * host threads at once with RPCs in between, launches and RPCs racing stop/start, a launch
 * gated by an event the device sets, and destroy while a kernel is blocked in a device wait.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "dpa_test_util.h"

extern struct doca_dpa_app *dpa_test_app;
extern doca_dpa_func_t hello_kernel, rank_kernel, signal_kernel, add_rpc;

static void *release_wait_event(void *arg)
{
	usleep(50 * 1000);
	doca_sync_event_update_set(arg, 5);
	return NULL;
}

/* samples/doca_dpa/dpa_kernel_launch, in its order. */
static void test_kernel_launch_sample_order(void **state)
{
	(void)state;
	struct doca_dev *dev = dpa_test_open_dev(0);
	struct doca_dpa *dpa = dpa_test_started(dev, dpa_test_app);
	struct doca_sync_event *wait_ev = dpa_test_event(dev, dpa, false), *comp_ev = dpa_test_event(dev, dpa, true);
	pthread_t t;

	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, wait_ev, 4, comp_ev, 10, 1, &hello_kernel),
			 DOCA_SUCCESS);
	assert_int_equal(pthread_create(&t, NULL, release_wait_event, wait_ev), 0);
	pthread_detach(t);
	assert_int_equal(doca_sync_event_wait_gt(comp_ev, 9, 0xFFFFFFFFFFFFFFFFull), DOCA_SUCCESS);
	usleep(20 * 1000); /* the detached thread is done with wait_ev */
	assert_int_equal(doca_sync_event_destroy(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp_ev), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS); /* never stopped */
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

static void test_many_cycles(void **state)
{
	(void)state;
	struct doca_dev *dev = dpa_test_open_dev(0);

	for (int i = 0; i < 40; i++) {
		struct doca_dpa *dpa = dpa_test_started(dev, dpa_test_app);
		struct doca_sync_event *comp = dpa_test_event(dev, dpa, true);
		doca_dpa_dev_uintptr_t buf = 0;
		uint64_t slots[8], ret = 0;

		assert_int_equal(doca_dpa_mem_alloc(dpa, sizeof(slots), &buf), DOCA_SUCCESS);
		assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, comp, 1, 8, &rank_kernel, buf),
				 DOCA_SUCCESS);
		assert_int_equal(doca_sync_event_wait_gt(comp, 0, UINT64_MAX), DOCA_SUCCESS);
		assert_int_equal(doca_dpa_d2h_memcpy(dpa, slots, buf, sizeof(slots)), DOCA_SUCCESS);
		for (unsigned int r = 0; r < 8; r++)
			assert_int_equal(slots[r], (8ull << 32) | r);
		assert_int_equal(doca_dpa_rpc(dpa, &add_rpc, &ret, (uint64_t)i, 1u), DOCA_SUCCESS);
		assert_int_equal(ret, (uint64_t)i + 2);
		if (i % 2) /* leave every other allocation to destroy */
			assert_int_equal(doca_dpa_mem_free(dpa, buf), DOCA_SUCCESS);
		if (i % 3 == 0) {
			assert_int_equal(doca_dpa_stop(dpa), DOCA_SUCCESS);
			assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
		}
		assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
		assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	}
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

struct launcher {
	struct doca_dpa *dpa;
	struct doca_sync_event *comp;
	int launches;
	doca_error_t result;
};

static void *launch_many(void *arg)
{
	struct launcher *l = arg;

	for (int i = 0; i < l->launches && l->result == DOCA_SUCCESS; i++) {
		uint64_t ret = 0;

		l->result = doca_dpa_kernel_launch_update_add(l->dpa, NULL, 0, l->comp, 1, 1 + (unsigned int)(i % 4),
							     &hello_kernel);
		if (l->result == DOCA_SUCCESS && i % 10 == 0) {
			l->result = doca_dpa_rpc(l->dpa, &add_rpc, &ret, 1ull, 1u);
			if (l->result == DOCA_SUCCESS && ret != 3)
				l->result = DOCA_ERROR_UNEXPECTED;
		}
	}
	return NULL;
}

/* Four host threads launch concurrently on one context; every launch completes once. */
static void test_concurrent_launchers(void **state)
{
	(void)state;
	struct doca_dev *dev = dpa_test_open_dev(0);
	struct doca_dpa *dpa;
	struct doca_sync_event *comp;
	struct launcher l[4];
	pthread_t t[4];

	assert_int_equal(doca_dpa_create(dev, &dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(dpa, dpa_test_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_log_level(dpa, DOCA_DPA_DEV_LOG_LEVEL_ERROR), DOCA_SUCCESS); /* quiet */
	assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
	comp = dpa_test_event(dev, dpa, true);
	for (int i = 0; i < 4; i++) {
		l[i] = (struct launcher){dpa, comp, 150, DOCA_SUCCESS};
		assert_int_equal(pthread_create(&t[i], NULL, launch_many, &l[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(l[i].result, DOCA_SUCCESS);
	}
	assert_int_equal(doca_sync_event_wait_eq(comp, 600, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct racer {
	struct doca_dpa *dpa;
	struct doca_sync_event *comp;
	atomic_bool done;
	atomic_long launched; /* launches accepted (SUCCESS) */
	long refused;	 /* launches refused while stopped (BAD_STATE) or the pool was full (FULL) */
	long rpcs_ok;	 /* RPCs that ran and returned the right value */
	doca_error_t bad; /* any other result */
};

static void *race_launches(void *arg)
{
	struct racer *r = arg;

	for (long i = 0; !atomic_load(&r->done); i++) {
		doca_error_t e = doca_dpa_kernel_launch_update_add(r->dpa, NULL, 0, r->comp, 1, 1, &hello_kernel);

		if (e == DOCA_SUCCESS)
			r->launched++;
		else if (e == DOCA_ERROR_BAD_STATE || e == DOCA_ERROR_FULL)
			r->refused++;
		else
			r->bad = e;
		if (i % 64 == 63)
			usleep(200); /* let the launches drain now and then, so that stops get through */
		if (i % 8 == 0) {
			uint64_t ret = 0;

			e = doca_dpa_rpc(r->dpa, &add_rpc, &ret, 1ull, 1u);
			if (e == DOCA_SUCCESS && ret == 3)
				r->rpcs_ok++;
			else if (e != DOCA_ERROR_BAD_STATE)
				r->bad = e != DOCA_SUCCESS ? e : DOCA_ERROR_UNEXPECTED;
		}
	}
	return NULL;
}

/*
 * One thread launches (and calls RPCs) while another stops and restarts the context as
 * fast as it can: every launch is either refused (BAD_STATE while stopped) or completes
 * exactly once, stop is refused (IN_USE) while launches or RPCs are in flight, nothing
 * crashes and the completion event can be destroyed at the end (no reference leaked).
 */
static void test_launch_races_stop_start(void **state)
{
	(void)state;
	struct doca_dev *dev = dpa_test_open_dev(0);
	struct doca_dpa *dpa;
	struct racer r = {0};
	pthread_t t;
	int stops = 0, busy = 0;

	assert_int_equal(doca_dpa_create(dev, &dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(dpa, dpa_test_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_log_level(dpa, DOCA_DPA_DEV_LOG_LEVEL_ERROR), DOCA_SUCCESS); /* quiet */
	assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
	r.dpa = dpa;
	/* No DPA location: the event does not hold the context. */
	assert_int_equal(doca_sync_event_create(&r.comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(r.comp), DOCA_SUCCESS);
	r.bad = DOCA_SUCCESS;
	dpa_test_log_quiet(true); /* every refused launch and stop logs a line */
	assert_int_equal(pthread_create(&t, NULL, race_launches, &r), 0);
	while (atomic_load(&r.launched) == 0) /* the launcher is going */
		usleep(100);
	uint64_t t_end = now_us() + 500 * 1000;

	while (now_us() < t_end) {
		doca_error_t e = doca_dpa_stop(dpa);

		if (e == DOCA_SUCCESS) {
			stops++;
			assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
		} else {
			assert_int_equal(e, DOCA_ERROR_IN_USE);
			busy++;
		}
	}
	atomic_store(&r.done, true);
	pthread_join(t, NULL);
	dpa_test_log_quiet(false);
	assert_int_equal(r.bad, DOCA_SUCCESS);
	long launched = atomic_load(&r.launched);

	/* Every accepted launch completes once (bounded wait: a lost one would hang a wait_eq). */
	assert_true(dpa_test_wait_value(r.comp, (uint64_t)launched, 10000));
	usleep(20 * 1000);
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_get(r.comp, &v), DOCA_SUCCESS);
	assert_int_equal(v, (uint64_t)launched);
	print_message("stops %d, refused stops %d, launches %ld, refused launches %ld, RPCs %ld\n", stops, busy,
		      launched, r.refused, r.rpcs_ok);
	dpa_test_log_clear();
	assert_int_equal(doca_sync_event_destroy(r.comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

/* A queued launch whose wait event is set by another kernel (device to device ordering). */
static void test_launch_gated_by_device_event(void **state)
{
	(void)state;
	struct doca_dev *dev = dpa_test_open_dev(0);
	struct doca_dpa *dpa = dpa_test_started(dev, dpa_test_app);
	struct doca_sync_event *gate = dpa_test_event(dev, dpa, true), *comp = dpa_test_event(dev, dpa, true);
	doca_dpa_dev_sync_event_t gate_h = 0, comp_h = 0;
	doca_dpa_dev_uintptr_t buf = 0;
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_get_dpa_handle(gate, dpa, &gate_h), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(comp, dpa, &comp_h), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(dpa, 64 * 8, &buf), DOCA_SUCCESS);
	/* B first: waits for gate >= 2; then A sets gate (adds 2). */
	assert_int_equal(doca_dpa_kernel_launch_update_add(dpa, gate, 2, comp, 100, 2, &rank_kernel, buf),
			 DOCA_SUCCESS);
	usleep(20 * 1000);
	assert_int_equal(doca_sync_event_get(comp, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, NULL, 0, 1, &signal_kernel, 0ull, 0ull,
							   gate_h, 2ull),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(comp, 99, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(gate), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

/*
 * Kernels blocked in doca_dpa_dev_sync_event_wait_gt on an event that is then destroyed:
 * they end with a fatal device error naming the event (no use after free), the context
 * reports it, and everything can be torn down.
 */
static void test_event_destroyed_under_waiting_kernels(void **state)
{
	(void)state;
	struct doca_dev *dev = dpa_test_open_dev(0);
	struct doca_dpa *dpa = dpa_test_started(dev, dpa_test_app);
	struct doca_sync_event *never = dpa_test_event(dev, dpa, false), *sink = dpa_test_event(dev, dpa, true);
	doca_dpa_dev_sync_event_t never_h = 0, sink_h = 0;
	uint64_t v = 1;

	assert_int_equal(doca_sync_event_get_dpa_handle(never, dpa, &never_h), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(sink, dpa, &sink_h), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, NULL, 0, 3, &signal_kernel, never_h, 0ull,
							   sink_h, 1ull),
			 DOCA_SUCCESS);
	usleep(20 * 1000);
	dpa_test_log_clear();
	/* The events name the context: it cannot go first. */
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("still used by 2 sync event(s)");
	assert_int_equal(doca_sync_event_destroy(never), DOCA_SUCCESS);
	for (int i = 0; i < 2000 && doca_dpa_peek_at_last_error(dpa) == DOCA_SUCCESS; i++)
		usleep(1000);
	assert_int_equal(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE);
	usleep(20 * 1000);
	assert_int_equal(dpa_test_log_count("[ERR]", "signal_kernel", "was destroyed while this kernel waited on it",
					    (const char *)NULL),
			 3);
	assert_int_equal(doca_sync_event_get(sink, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0); /* none got past the wait */
	assert_int_equal(doca_sync_event_destroy(sink), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_launch_sample_order),
		cmocka_unit_test(test_many_cycles),
		cmocka_unit_test(test_concurrent_launchers),
		cmocka_unit_test(test_launch_races_stop_start),
		cmocka_unit_test(test_launch_gated_by_device_event),
		cmocka_unit_test(test_event_destroyed_under_waiting_kernels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
