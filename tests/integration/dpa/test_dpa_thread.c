/*
 * test_dpa_thread.c - DPA thread objects: a thread triggered through its notification
 * completion from an RPC and from a kernel runs its function once per trigger, sees its
 * local storage, reschedules and finishes; stop and destroy timing out on a run that
 * spins (the thread carries on); EU affinities; and every refusal of the thread,
 * notification-completion and affinity calls, with the objects left intact.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "dpa_device/dpa_test_defs.h"
#include "dpa_fixture.h"

extern struct doca_dpa_app *dpa_test_app;
extern doca_dpa_func_t thread_kernel, thread_noarg_kernel, thread_blocking_kernel, notify_kernel, notify_rpc,
	add_rpc, rank_kernel, args13_kernel, thread_spin_kernel, wide_param_kernel;

/* f->ev (and its handle f->ev_h): the "done" event the thread functions signal, DPA
 * publisher, started. */
static int fx_setup(void **state)
{
	struct dpa_fx *f = dpa_fx_open(DPA_FX_STARTED, dpa_test_app);

	f->ev = dpa_test_event(NULL, f->dpa, true);
	assert_int_equal(doca_sync_event_get_dpa_handle(f->ev, f->dpa, &f->ev_h), DOCA_SUCCESS);
	dpa_test_log_clear();
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	dpa_fx_close(*state);
	return 0;
}

static uint64_t event_value(struct doca_sync_event *ev)
{
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	return v;
}

/* ping_pong order: create, func/arg, local storage, start, notification, run; trigger. */
static void test_thread_runs_once_per_trigger(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_thread *t;
	struct doca_dpa_notification_completion *n;
	doca_dpa_dev_notification_completion_t nh = 0;
	doca_dpa_dev_uintptr_t st_dev = 0, tls = 0;
	struct dpa_test_thread_state st = {.done_event = f->ev_h, .finish_at = 3};
	uint64_t ret = 0;
	uint32_t id = 0;

	assert_int_equal(doca_dpa_mem_alloc(f->dpa, sizeof(st), &st_dev), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 64, &tls), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, st_dev, &st, sizeof(st)), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_create(f->dpa, &t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &thread_kernel, st_dev), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_local_storage(t, tls), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_start(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_start(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_get_dpa_handle(n, &nh), DOCA_SUCCESS);
	assert_true(nh != 0);
	assert_int_equal(doca_dpa_thread_get_id(t, &id), DOCA_SUCCESS);
	assert_true(id != 0);

	/* A trigger before run is kept until the thread is runnable. */
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, nh), DOCA_SUCCESS);
	assert_int_equal(ret, 1);
	usleep(20 * 1000);
	assert_int_equal(event_value(f->ev), 0);
	assert_int_equal(doca_dpa_thread_run(t), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(f->ev, 0, UINT64_MAX), DOCA_SUCCESS);
	/* Second trigger from a kernel. */
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, NULL, 0, 1, &notify_kernel, nh),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(f->ev, 1, UINT64_MAX), DOCA_SUCCESS);
	/* Third run finishes the thread; a fourth trigger does nothing. */
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, nh), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(f->ev, 2, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, nh), DOCA_SUCCESS);
	usleep(30 * 1000);
	assert_int_equal(event_value(f->ev), 3);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, &st, st_dev, sizeof(st)), DOCA_SUCCESS);
	assert_int_equal(st.runs, 3);
	assert_int_equal(st.tls_seen, tls);
	assert_int_equal(st.rank_seen, 1); /* rank 0 of 1 */
	assert_int_equal(doca_dpa_peek_at_last_error(f->dpa), DOCA_SUCCESS);

	/* Teardown as the samples do it: destroy without stop. */
	assert_int_equal(doca_dpa_notification_completion_destroy(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, st_dev), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, tls), DOCA_SUCCESS);
}

/* A thread function without parameters, notified many times from many kernel instances. */
static void test_noarg_thread_and_many_triggers(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_thread *t;
	struct doca_dpa_notification_completion *n;
	doca_dpa_dev_notification_completion_t nh = 0;
	doca_dpa_dev_uintptr_t tls = 0;
	doca_dpa_func_t *got = NULL;
	uint64_t arg = 1;

	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 8, &tls), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, tls, &f->ev_h, 8), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_create(f->dpa, &t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &thread_noarg_kernel, 0), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_get_func_arg(t, &got, &arg), DOCA_SUCCESS);
	assert_ptr_equal(got, &thread_noarg_kernel);
	assert_int_equal(arg, 0);
	assert_int_equal(doca_dpa_thread_set_local_storage(t, tls), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_start(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_start(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_get_dpa_handle(n, &nh), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_run(t), DOCA_SUCCESS);
	/* 32 instances notify; triggers may merge, but at least one run follows the last. */
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, NULL, 0, 32, &notify_kernel, nh),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(f->ev, 0, UINT64_MAX), DOCA_SUCCESS);
	usleep(30 * 1000);
	uint64_t runs = event_value(f->ev);

	assert_true(runs >= 1 && runs <= 32);
	assert_int_equal(doca_dpa_notification_completion_stop(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_stop(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_destroy(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, tls), DOCA_SUCCESS);
}

/* Stop and destroy end a run blocked in a device wait. */
static void test_stop_ends_blocked_run(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_thread *t;
	struct doca_dpa_notification_completion *n;
	doca_dpa_dev_notification_completion_t nh = 0;
	struct doca_sync_event *never;
	doca_dpa_dev_sync_event_t never_h = 0;
	uint64_t ret = 0;

	assert_int_equal(doca_sync_event_create(&never), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_dpa(never, f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(never), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(never, f->dpa, &never_h), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_create(f->dpa, &t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &thread_blocking_kernel, never_h), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_start(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_start(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_get_dpa_handle(n, &nh), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_run(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, nh), DOCA_SUCCESS);
	usleep(20 * 1000);
	assert_int_equal(doca_dpa_thread_stop(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_run(t), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	/* Restartable after stop. */
	assert_int_equal(doca_dpa_thread_start(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_destroy(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(never), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_peek_at_last_error(f->dpa), DOCA_SUCCESS);
}

static void test_thread_refusals(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_thread *t, *other_t;
	struct doca_dpa_notification_completion *n, *n2;
	doca_dpa_dev_notification_completion_t nh;
	doca_dpa_func_t *func;
	uint64_t arg, ret;
	struct doca_dpa *stopped;

	assert_int_equal(doca_dpa_thread_create(NULL, &t), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_thread_create(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa_thread is NULL");
	assert_int_equal(doca_dpa_thread_create(f->dpa, &t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_get_func_arg(t, &func, &arg), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("has no function set");
	assert_int_equal(doca_dpa_thread_start(t), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("has no function");
	assert_int_equal(doca_dpa_thread_set_func_arg(t, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("func is NULL");
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &add_rpc, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("func is an RPC");
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &args13_kernel, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("takes one uint64_t argument or none");
	/* One parameter, but wider than the uint64_t the thread passes (a 24-byte struct). */
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &wide_param_kernel, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("kernel wide_param_kernel takes a 24-byte parameter", "one uint64_t argument");
	assert_int_equal(doca_dpa_thread_get_func_arg(t, &func, &arg), DOCA_ERROR_BAD_STATE); /* still none */
	dpa_test_expect_log("has no function set");
	assert_int_equal(doca_dpa_thread_set_func_arg(t, (doca_dpa_func_t *)(void (*)(void))test_thread_refusals, 0),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("func is not a kernel of the context's app");
	assert_int_equal(doca_dpa_thread_run(t), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_thread_stop(t), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &rank_kernel, 0), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, &n2), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("already has a notification completion");
	assert_int_equal(doca_dpa_notification_completion_start(n), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started (call doca_dpa_thread_start first)");
	assert_int_equal(doca_dpa_notification_completion_get_dpa_handle(n, &nh), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_notification_completion_stop(n), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_thread_start(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_start(t), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is started; configure it before doca_dpa_thread_start");
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &rank_kernel, 1), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is started");
	assert_int_equal(doca_dpa_thread_set_local_storage(t, 0), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is started");
	assert_int_equal(doca_dpa_notification_completion_start(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_start(n), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is already started");
	/* The context is held: stop and destroy refuse. */
	assert_int_equal(doca_dpa_stop(f->dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("DPA thread object(s)");
	assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("2 DPA thread object(s)");
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("still has a notification completion");
	/* Another context's thread. */
	assert_int_equal(doca_dpa_create(f->dev, &stopped), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_create(stopped, &other_t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, other_t, &n2), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("belongs to DPA context");
	assert_int_equal(doca_dpa_thread_set_func_arg(other_t, &rank_kernel, 0), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("has no application");
	assert_int_equal(doca_dpa_thread_destroy(other_t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(stopped), DOCA_SUCCESS);
	/* A forged notification handle is a fatal device error. */
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, 0x7c00000000000fffull), DOCA_ERROR_DRIVER);
	dpa_test_expect_log("RPC notify_rpc (rank 0 of 1) stopped by a fatal device error",
			    "is not the handle of a started notification completion");
	uint64_t junk[8] = {0};

	assert_int_equal(doca_dpa_thread_destroy((struct doca_dpa_thread *)junk), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("not a doca_dpa_thread");
	assert_int_equal(doca_dpa_notification_completion_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("notify_comp is NULL");
	assert_int_equal(doca_dpa_notification_completion_destroy(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
}

static void *release_flag(void *arg)
{
	usleep(2500 * 1000); /* past stop/destroy's 2 s wait */
	__atomic_store_n((uint64_t *)arg, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A run spinning in its own code outlives stop's and destroy's 2 s wait: TIME_OUT, one
 * log line, and the thread carries on as before: the run ends, later triggers run it
 * again, and stop/destroy work once it is idle.
 */
static void test_stop_timeout_keeps_thread_running(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_thread *t;
	struct doca_dpa_notification_completion *n;
	doca_dpa_dev_notification_completion_t nh = 0;
	doca_dpa_dev_uintptr_t flag = 0, tls = 0;
	uint64_t *flag_host, ret = 0;
	pthread_t rel;

	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 8, &flag), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_memset(f->dpa, flag, 0, 8), DOCA_SUCCESS);
	flag_host = (uint64_t *)(uintptr_t)flag; /* device pointers are host addresses here */
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 8, &tls), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, tls, &f->ev_h, 8), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_create(f->dpa, &t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &thread_spin_kernel, flag), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_local_storage(t, tls), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_start(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_start(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_get_dpa_handle(n, &nh), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_run(t), DOCA_SUCCESS);

	/* stop: the run spins until the flag is set after stop has given up. */
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, nh), DOCA_SUCCESS);
	usleep(20 * 1000);
	assert_int_equal(pthread_create(&rel, NULL, release_flag, flag_host), 0);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_thread_stop(t), DOCA_ERROR_TIME_OUT);
	dpa_test_expect_one_log("doca_dpa_thread_stop", "thread_spin_kernel", "is still in a run after 2000 ms");
	pthread_join(rel, NULL);
	assert_true(dpa_test_wait_value(f->ev, 1, 5000));
	/* Still started and runnable: a new trigger runs it again. */
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, nh), DOCA_SUCCESS);
	assert_true(dpa_test_wait_value(f->ev, 2, 5000));

	/* destroy: same, with the notification completion gone first (destroy needs that). */
	__atomic_store_n(flag_host, 0, __ATOMIC_RELEASE);
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, nh), DOCA_SUCCESS);
	usleep(20 * 1000);
	assert_int_equal(doca_dpa_notification_completion_destroy(n), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&rel, NULL, release_flag, flag_host), 0);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_ERROR_TIME_OUT);
	dpa_test_expect_one_log("doca_dpa_thread_destroy", "is still in a run after 2000 ms");
	pthread_join(rel, NULL);
	assert_true(dpa_test_wait_value(f->ev, 3, 5000));
	/* The thread is intact: a new notification completion triggers it once more. */
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_start(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_get_dpa_handle(n, &nh), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_rpc(f->dpa, &notify_rpc, &ret, nh), DOCA_SUCCESS);
	assert_true(dpa_test_wait_value(f->ev, 4, 5000));
	assert_int_equal(doca_dpa_notification_completion_destroy(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_stop(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_peek_at_last_error(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, flag), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, tls), DOCA_SUCCESS);
}

/* NULL and foreign arguments, and calls in the wrong state: documented code, one log line, state intact. */
static void test_thread_bad_inputs(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_thread *t, *got_t = NULL;
	struct doca_dpa_notification_completion *n = NULL;
	struct doca_dpa_eu_affinity *a, *foreign_a;
	const struct doca_dpa_eu_affinity *got_a = NULL;
	doca_dpa_func_t *func = NULL;
	uint64_t arg = 0, junk[8] = {0};
	doca_dpa_dev_uintptr_t ls = 0;
	struct doca_dpa *other, *idle;
	unsigned int eu = 0;
	uint32_t id = 0;

	/* EU affinities */
	assert_int_equal(doca_dpa_eu_affinity_create(NULL, &a), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_eu_affinity_create", "dpa is NULL");
	assert_int_equal(doca_dpa_eu_affinity_set(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_eu_affinity_set", "affinity is NULL");
	assert_int_equal(doca_dpa_eu_affinity_clear(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_eu_affinity_clear", "affinity is NULL");
	assert_int_equal(doca_dpa_eu_affinity_create(f->dpa, &a), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_set(a, 3), DOCA_SUCCESS);

	/* set_affinity: NULL, foreign, after start */
	other = dpa_test_started(f->dev, dpa_test_app);
	assert_int_equal(doca_dpa_eu_affinity_create(other, &foreign_a), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_set(foreign_a, 5), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_create(f->dpa, &t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_affinity(NULL, a), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_thread_set_affinity", "dpa_thread is NULL");
	assert_int_equal(doca_dpa_thread_set_affinity(t, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_thread_set_affinity", "affinity is NULL");
	assert_int_equal(doca_dpa_thread_set_affinity(t, foreign_a), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_thread_set_affinity", "the affinity belongs to DPA context");
	assert_int_equal(doca_dpa_thread_get_affinity(t, &got_a), DOCA_ERROR_NOT_FOUND); /* nothing taken */
	dpa_test_expect_one_log("has no affinity");
	assert_int_equal(doca_dpa_thread_set_affinity(t, a), DOCA_SUCCESS);

	/* NULL outputs of the getters */
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &thread_kernel, 77), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_local_storage(t, 0x40), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_get_affinity(t, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_thread_get_affinity", "affinity is NULL");
	assert_int_equal(doca_dpa_thread_get_local_storage(t, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_thread_get_local_storage", "dev_ptr is NULL");
	assert_int_equal(doca_dpa_thread_get_id(t, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_thread_get_id", "dpa_thread_id is NULL");
	assert_int_equal(doca_dpa_thread_get_func_arg(t, NULL, &arg), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_thread_get_func_arg", "func is NULL");
	assert_int_equal(doca_dpa_thread_get_func_arg(t, &func, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_thread_get_func_arg", "arg is NULL");

	/* notification completions: NULL and junk arguments */
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, NULL, &n), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_notification_completion_create", "dpa_thread is NULL");
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, (struct doca_dpa_thread *)junk, &n),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_notification_completion_create", "not a doca_dpa_thread");
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_notification_completion_create", "notify_comp is NULL");
	assert_null(n);
	assert_int_equal(doca_dpa_notification_completion_create(f->dpa, t, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_notification_completion_get_thread(NULL, &got_t), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_notification_completion_get_thread", "notify_comp is NULL");
	assert_int_equal(doca_dpa_notification_completion_get_thread(n, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_notification_completion_get_thread", "dpa_thread is NULL");
	assert_int_equal(doca_dpa_notification_completion_get_dpa_handle(n, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_notification_completion_get_dpa_handle", "handle is NULL");
	assert_int_equal(doca_dpa_notification_completion_get_thread(n, &got_t), DOCA_SUCCESS);
	assert_ptr_equal(got_t, t);

	/* set_affinity after start: BAD_STATE, the EU chosen before stays */
	assert_int_equal(doca_dpa_thread_start(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_affinity(t, a), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_dpa_thread_set_affinity", "is started; configure it before doca_dpa_thread_start");
	assert_int_equal(doca_dpa_thread_get_affinity(t, &got_a), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_get((struct doca_dpa_eu_affinity *)got_a, &eu), DOCA_SUCCESS);
	assert_int_equal(eu, 3);
	assert_int_equal(doca_dpa_thread_get_func_arg(t, &func, &arg), DOCA_SUCCESS);
	assert_ptr_equal(func, &thread_kernel);
	assert_int_equal(arg, 77);
	assert_int_equal(doca_dpa_thread_get_local_storage(t, &ls), DOCA_SUCCESS);
	assert_int_equal(ls, 0x40);
	assert_int_equal(doca_dpa_thread_get_id(t, &id), DOCA_SUCCESS);
	assert_true(id != 0);
	assert_int_equal(doca_dpa_eu_affinity_get(a, &eu), DOCA_SUCCESS);
	assert_int_equal(eu, 3);
	assert_int_equal(doca_dpa_eu_affinity_get(foreign_a, &eu), DOCA_SUCCESS);
	assert_int_equal(eu, 5);
	assert_int_equal(doca_dpa_notification_completion_destroy(n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_SUCCESS);

	/* thread_start on a context that has an app but is not started */
	assert_int_equal(doca_dpa_create(f->dev, &idle), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(idle, dpa_test_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_create(idle, &t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_set_func_arg(t, &thread_kernel, 0), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_start(t), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_dpa_thread_start", "DPA context", "is not started");
	assert_int_equal(doca_dpa_thread_run(t), DOCA_ERROR_BAD_STATE); /* still not started */
	dpa_test_expect_one_log("doca_dpa_thread_run", "is not started");
	assert_int_equal(doca_dpa_start(idle), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_start(t), DOCA_SUCCESS); /* intact: starts once the context has */
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(idle), DOCA_SUCCESS);

	assert_int_equal(doca_dpa_eu_affinity_destroy(foreign_a), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_destroy(a), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(other), DOCA_SUCCESS);
}

static void test_eu_affinity(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_eu_affinity *a;
	const struct doca_dpa_eu_affinity *got;
	struct doca_dpa_thread *t;
	unsigned int eu = 0, total = 0;

	assert_int_equal(doca_dpa_get_total_num_eus_available(f->dpa, &total), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_create(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("affinity is NULL");
	assert_int_equal(doca_dpa_eu_affinity_create(f->dpa, &a), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_get(a, &eu), DOCA_ERROR_NOT_FOUND);
	dpa_test_expect_log("no EU is set");
	assert_int_equal(doca_dpa_eu_affinity_set(a, total), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("does not exist");
	assert_int_equal(doca_dpa_eu_affinity_set(a, total - 1), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_get(a, &eu), DOCA_SUCCESS);
	assert_int_equal(eu, total - 1);
	assert_int_equal(doca_dpa_thread_create(f->dpa, &t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_get_affinity(t, &got), DOCA_ERROR_NOT_FOUND);
	dpa_test_expect_log("has no affinity");
	assert_int_equal(doca_dpa_thread_set_affinity(t, a), DOCA_SUCCESS);
	/* The thread copied the EU: reuse the affinity object (as nvqual does). */
	assert_int_equal(doca_dpa_eu_affinity_set(a, 1), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_get_affinity(t, &got), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_get((struct doca_dpa_eu_affinity *)got, &eu), DOCA_SUCCESS);
	assert_int_equal(eu, total - 1);
	assert_int_equal(doca_dpa_eu_affinity_destroy((struct doca_dpa_eu_affinity *)got), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("not a doca_dpa_eu_affinity");
	assert_int_equal(doca_dpa_eu_affinity_clear(a), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_get(a, &eu), DOCA_ERROR_NOT_FOUND);
	dpa_test_expect_log("no EU is set");
	assert_int_equal(doca_dpa_eu_affinity_destroy(a), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_eu_affinity_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("affinity is NULL");
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_thread_runs_once_per_trigger, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_noarg_thread_and_many_triggers, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stop_ends_blocked_run, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_thread_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stop_timeout_keeps_thread_running, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_thread_bad_inputs, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_eu_affinity, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
