/*
 * test_dpa_lifecycle.c - DPA contexts over their whole life and under concurrency: the
 * kernel_launch sample's exact order (events never stopped, context destroyed without
 * stop), many create/run/destroy cycles (leak-checked under ASan), launches from several
 * host threads at once with RPCs in between, a launch gated by an event the device sets,
 * and destroy while a kernel is blocked in a device wait.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "../../unit/dpa/dpa_test_util.h"

extern struct doca_dpa_app *dpa_test_app;
extern doca_dpa_func_t hello_kernel, rank_kernel, signal_kernel, add_rpc;

static struct doca_dpa *started(struct doca_dev *dev)
{
	struct doca_dpa *dpa = NULL;

	assert_int_equal(doca_dpa_create(dev, &dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(dpa, dpa_test_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
	return dpa;
}

static struct doca_sync_event *event(struct doca_dev *dev, struct doca_dpa *dpa, bool dpa_publishes)
{
	struct doca_sync_event *ev = NULL;

	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	if (dpa_publishes) {
		assert_int_equal(doca_sync_event_add_publisher_location_dpa(ev, dpa), DOCA_SUCCESS);
		assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, dev), DOCA_SUCCESS);
	} else {
		assert_int_equal(doca_sync_event_add_publisher_location_cpu(ev, dev), DOCA_SUCCESS);
		assert_int_equal(doca_sync_event_add_subscriber_location_dpa(ev, dpa), DOCA_SUCCESS);
	}
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	return ev;
}

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
	struct doca_dpa *dpa = started(dev);
	struct doca_sync_event *wait_ev = event(dev, dpa, false), *comp_ev = event(dev, dpa, true);
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
		struct doca_dpa *dpa = started(dev);
		struct doca_sync_event *comp = event(dev, dpa, true);
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
	comp = event(dev, dpa, true);
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

/* A queued launch whose wait event is set by another kernel (device to device ordering). */
static void test_launch_gated_by_device_event(void **state)
{
	(void)state;
	struct doca_dev *dev = dpa_test_open_dev(0);
	struct doca_dpa *dpa = started(dev);
	struct doca_sync_event *gate = event(dev, dpa, true), *comp = event(dev, dpa, true);
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
	struct doca_dpa *dpa = started(dev);
	struct doca_sync_event *never = event(dev, dpa, false), *sink = event(dev, dpa, true);
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
		cmocka_unit_test(test_launch_gated_by_device_event),
		cmocka_unit_test(test_event_destroyed_under_waiting_kernels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
