/*
 * test_sync_event.c - host-side sync events: configuration before start, atomic value
 * operations, the blocking waits (woken by another thread), user memory via set_addr,
 * DPA handles, the remote-net calls that flowdpa cannot emulate (NOT_SUPPORTED), and every
 * refusal.
 * Runs with FLOWDPA_DEVICES=bf3,bf2.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "dpa_fixture.h"

extern struct doca_dpa_app *unit_app;

/* f->ev: created, not configured or started; a test that destroys it sets it NULL. */
static int fx_setup(void **state)
{
	struct dpa_fx *f = dpa_fx_open(DPA_FX_NODPA | DPA_FX_STARTED, unit_app);

	assert_int_equal(doca_sync_event_create(&f->ev), DOCA_SUCCESS);
	dpa_test_log_clear();
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	dpa_fx_close(*state);
	return 0;
}

static void test_create_destroy_refusals(void **state)
{
	(void)state;
	uint64_t junk[16] = {0};

	assert_int_equal(doca_sync_event_create(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("event is NULL");
	assert_int_equal(doca_sync_event_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("event is NULL");
	assert_int_equal(doca_sync_event_destroy((struct doca_sync_event *)junk), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("not a doca_sync_event");
}

static void test_configuration_before_start(void **state)
{
	struct dpa_fx *f = *state;
	uint64_t v = 1;

	assert_int_equal(doca_sync_event_add_publisher_location_cpu(f->ev, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dev is NULL");
	assert_int_equal(doca_sync_event_add_subscriber_location_dpa(f->ev, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(NULL, f->dev), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("event is NULL");
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(f->ev, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(f->ev, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_dpa(f->ev, f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_dpa(f->ev, f->dpa), DOCA_SUCCESS);
	/* value operations need a started event */
	assert_int_equal(doca_sync_event_get(f->ev, &v), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_sync_event_update_set(f->ev, 3), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_sync_event_wait_gt(f->ev, 0, 1), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_sync_event_stop(f->ev), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_sync_event_start(f->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(f->ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	assert_int_equal(doca_sync_event_start(f->ev), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is started; configure it before doca_sync_event_start");
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(f->ev, f->dev), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is started");
	assert_int_equal(doca_sync_event_add_subscriber_location_dpa(f->ev, f->dpa), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is started");
	/* stop returns to configuration */
	assert_int_equal(doca_sync_event_stop(f->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(f->ev, f->dev), DOCA_SUCCESS);
}

static void test_value_operations(void **state)
{
	struct dpa_fx *f = *state;
	uint64_t v = 0, prev = 0;

	assert_int_equal(doca_sync_event_start(f->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(f->ev, 40), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_add(f->ev, 2, &prev), DOCA_SUCCESS);
	assert_int_equal(prev, 40);
	assert_int_equal(doca_sync_event_update_add(f->ev, 1, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(f->ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 43);
	assert_int_equal(doca_sync_event_get(f->ev, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("value is NULL");
	assert_int_equal(doca_sync_event_update_add(NULL, 1, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("event is NULL");
	/* already satisfied waits return at once; the mask applies */
	assert_int_equal(doca_sync_event_wait_gt(f->ev, 42, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq(f->ev, 43, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_neq(f->ev, 0, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq(f->ev, 3, 0x3), DOCA_SUCCESS); /* 43 & 3 == 3 */
	assert_int_equal(doca_sync_event_wait_eq_yield(f->ev, 43, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_neq_yield(f->ev, 1, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt_yield(f->ev, 0, UINT64_MAX), DOCA_SUCCESS);
}

struct bumper {
	struct doca_sync_event *ev;
	int n;
};

static void *bump(void *arg)
{
	struct bumper *b = arg;

	for (int i = 0; i < b->n; i++) {
		usleep(1000);
		doca_sync_event_update_add(b->ev, 1, NULL);
	}
	return NULL;
}

/* Blocking waits are woken by updates from another thread (with sleeping, not only spinning). */
static void test_waits_woken_by_other_thread(void **state)
{
	struct dpa_fx *f = *state;
	pthread_t t;
	struct bumper b = {f->ev, 30};
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_start(f->ev), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&t, NULL, bump, &b), 0);
	assert_int_equal(doca_sync_event_wait_gt(f->ev, 9, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(f->ev, &v), DOCA_SUCCESS);
	assert_true(v >= 10);
	assert_int_equal(doca_sync_event_wait_eq(f->ev, 20, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt_yield(f->ev, 24, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_neq(f->ev, 25, 0xff), DOCA_SUCCESS);
	pthread_join(t, NULL);
	assert_int_equal(doca_sync_event_get(f->ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 30);
}

static void test_set_addr(void **state)
{
	struct dpa_fx *f = *state;
	static uint64_t cells[2];
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_set_addr(f->ev, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("is NULL");
	assert_int_equal(doca_sync_event_set_addr(f->ev, (uint64_t *)((char *)cells + 4)), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("not 8-byte aligned");
	cells[1] = 17;
	assert_int_equal(doca_sync_event_set_addr(f->ev, &cells[1]), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(f->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(f->ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 17);
	assert_int_equal(doca_sync_event_update_add(f->ev, 3, NULL), DOCA_SUCCESS);
	assert_int_equal(__atomic_load_n(&cells[1], __ATOMIC_ACQUIRE), 20);
	assert_int_equal(doca_sync_event_set_addr(f->ev, &cells[0]), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is started");
}

static uint64_t plain_cell;

static void *plain_store(void *arg)
{
	(void)arg;
	usleep(50 * 1000); /* the waiter is asleep by now */
	__atomic_store_n(&plain_cell, 5, __ATOMIC_RELEASE); /* no DOCA call: nobody is woken */
	return NULL;
}

/* A wait on set_addr memory sees a plain store by another thread (it polls while asleep). */
static void test_set_addr_wait_sees_plain_store(void **state)
{
	struct dpa_fx *f = *state;
	pthread_t t;

	plain_cell = 0;
	assert_int_equal(doca_sync_event_set_addr(f->ev, &plain_cell), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(f->ev), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&t, NULL, plain_store, NULL), 0);
	assert_int_equal(doca_sync_event_wait_gt(f->ev, 4, UINT64_MAX), DOCA_SUCCESS);
	pthread_join(t, NULL);
	plain_cell = 0;
	assert_int_equal(pthread_create(&t, NULL, plain_store, NULL), 0);
	assert_int_equal(doca_sync_event_wait_eq(f->ev, 5, UINT64_MAX), DOCA_SUCCESS);
	pthread_join(t, NULL);
}

static void test_dpa_handles(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_sync_event_t h = 0, h2 = 0;
	struct doca_sync_event *cpu_only;

	assert_int_equal(doca_sync_event_cap_is_export_to_dpa_supported(doca_dev_as_devinfo(f->dev)), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_is_export_to_dpa_supported(doca_dev_as_devinfo(f->nodpa)),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_is_export_to_dpa_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("devinfo is NULL");

	assert_int_equal(doca_sync_event_add_subscriber_location_dpa(f->ev, f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(f->ev, f->dpa, &h), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_sync_event_start(f->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(f->ev, f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa_dev_se_handle is NULL");
	assert_int_equal(doca_sync_event_get_dpa_handle(f->ev, NULL, &h), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_sync_event_get_dpa_handle(f->ev, f->dpa, &h), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(f->ev, f->dpa, &h2), DOCA_SUCCESS);
	assert_true(h != 0 && h == h2);

	assert_int_equal(doca_sync_event_create(&cpu_only), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(cpu_only, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(cpu_only), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(cpu_only, f->dpa, &h2), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("has no DPA location on DPA context");
	assert_int_equal(doca_sync_event_destroy(cpu_only), DOCA_SUCCESS);
}

static void test_remote_net_not_supported(void **state)
{
	struct dpa_fx *f = *state;
	const uint8_t *data = NULL;
	size_t sz = 0;
	struct doca_sync_event_remote_net *rn = NULL;
	doca_dpa_dev_sync_event_remote_net_t rh = 0;
	uint8_t blob[8] = {0};

	assert_int_equal(doca_sync_event_add_publisher_location_remote_net(f->ev), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_log("remote-net sync events are not emulated");
	assert_int_equal(doca_sync_event_export_to_remote_net(f->ev, &data, &sz), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_log("not emulated");
	assert_int_equal(doca_sync_event_export_to_remote_net(f->ev, NULL, &sz), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("NULL or invalid argument");
	assert_int_equal(doca_sync_event_remote_net_create_from_export(f->dev, blob, sizeof(blob), &rn),
			 DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_log("not emulated");
	assert_int_equal(doca_sync_event_remote_net_create_from_export(f->dev, blob, 0, &rn), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("NULL or zero argument");
	assert_int_equal(doca_sync_event_remote_net_get_dpa_handle((struct doca_sync_event_remote_net *)blob, f->dpa,
								   &rh),
			 DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_log("not emulated");
	assert_int_equal(doca_sync_event_remote_net_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("event is NULL");
	/* As the header says for every remote-net call: NOT_SUPPORTED (none can be created). */
	assert_int_equal(doca_sync_event_remote_net_destroy((struct doca_sync_event_remote_net *)blob),
			 DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_sync_event_remote_net_destroy", "not emulated", "is not one");
	assert_int_equal(doca_sync_event_remote_net_get_dpa_handle(NULL, f->dpa, &rh), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_sync_event_remote_net_get_dpa_handle", "NULL argument");
	assert_int_equal(doca_sync_event_remote_net_get_dpa_handle((struct doca_sync_event_remote_net *)blob, f->dpa,
								   NULL),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_sync_event_remote_net_get_dpa_handle", "NULL argument");
}

/* NULL events, waits on a stopped event, locations after start: code, one line, event intact. */
static void test_bad_inputs(void **state)
{
	struct dpa_fx *f = *state;
	doca_error_t (*const waits[])(struct doca_sync_event *, uint64_t, uint64_t) = {
		doca_sync_event_wait_gt,  doca_sync_event_wait_gt_yield,  doca_sync_event_wait_eq,
		doca_sync_event_wait_eq_yield, doca_sync_event_wait_neq, doca_sync_event_wait_neq_yield,
	};
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_start(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_sync_event_start", "event is NULL");
	assert_int_equal(doca_sync_event_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_sync_event_stop", "event is NULL");
	assert_int_equal(doca_sync_event_update_set(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_sync_event_update_set", "event is NULL");
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		assert_int_equal(waits[i](NULL, 0, UINT64_MAX), DOCA_ERROR_INVALID_VALUE);
		dpa_test_expect_one_log("doca_sync_event_wait_", "event is NULL");
	}
	/* Not started: every wait is BAD_STATE at once (it would never return otherwise). */
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		assert_int_equal(waits[i](f->ev, 0, UINT64_MAX), DOCA_ERROR_BAD_STATE);
		dpa_test_expect_one_log("doca_sync_event_wait_", "is not started");
	}
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(f->ev, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(f->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(f->ev, f->dev), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_sync_event_add_subscriber_location_cpu", "is started");
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(f->ev, f->dev), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_sync_event_add_publisher_location_cpu", "is started");
	/* Intact: started, value operations and waits work. */
	assert_int_equal(doca_sync_event_update_set(f->ev, 6), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq(f->ev, 6, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_neq(f->ev, 5, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(f->ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 6);
}

/* Destroy in any state, with the DPA hold released. */
static void test_destroy_started_releases_dpa(void **state)
{
	struct dpa_fx *f = *state;

	assert_int_equal(doca_sync_event_add_publisher_location_dpa(f->ev, f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(f->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(f->ev), DOCA_SUCCESS);
	f->ev = NULL; /* teardown destroys the dpa: it must not be held any more */
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_destroy_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_configuration_before_start, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_value_operations, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_waits_woken_by_other_thread, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_set_addr, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_set_addr_wait_sees_plain_store, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_dpa_handles, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_remote_net_not_supported, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_inputs, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_started_releases_dpa, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
