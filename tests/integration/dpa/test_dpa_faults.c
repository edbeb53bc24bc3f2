/*
 * test_dpa_faults.c - lifetimes and faults at the edges of the DPA runtime: sync events
 * named by launches not yet complete (destroy and set_addr refused), faults inside device
 * API calls, destroy while a kernel spins (queued launches kept), stop and destroy while
 * an RPC runs, signals that are not kernel faults, handlers that chain to each other,
 * stack overflow in an RPC, typedef'd float arguments and compound-literal arguments.
 *
 * Tests that fault create their context in the test body: doca_dpa_create installs the
 * fault handler, and cmocka swaps its own handlers in and out around every fixture.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "dpa_device/dpa_test_defs.h"
#include "dpa_fixture.h"

/*
 * TSan's runtime itself faults on the shadow of an unmapped address touched by an
 * instrumented atomic, forking a threaded TSan process hangs, and a stack overflow
 * may kill it: those parts are skipped there (the plain and ASan builds run them).
 */

extern struct doca_dpa_app *dpa_test_app;
extern doca_dpa_func_t hello_kernel, signal_kernel, spin_kernel, bad_get_kernel, f32_rpc, raise_rpc,
	overflow_rpc, add_rpc, structs_rpc, spin_rpc;

/* Device 0 only: the tests create their contexts themselves (see above). */
static int fx_setup(void **state)
{
	*state = dpa_fx_open(DPA_FX_DEV, NULL);
	return 0;
}

static int fx_teardown(void **state)
{
	dpa_fx_close(*state);
	return 0;
}

/* A pending launch holds its wait and completion events: destroying them is IN_USE. */
static void test_event_held_by_pending_launch(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	struct doca_sync_event *wait_ev = dpa_test_event(NULL, dpa, true), *comp = dpa_test_event(NULL, dpa, true);
	uint64_t v = 0;

	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, wait_ev, 1, comp, 7, 1, &hello_kernel), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_sync_event_destroy(wait_ev), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("is the wait or completion event of 1 kernel launch(es) not yet complete");
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("is the wait or completion event of 1 kernel launch(es) not yet complete");
	/* Both still intact: the launch runs and signals when the wait event allows it. */
	assert_int_equal(doca_sync_event_update_set(wait_ev, 1), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq(comp, 7, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(comp, &v), DOCA_SUCCESS);
	assert_int_equal(v, 7);
	/* Destroy right after the wait returns (the samples' order): no IN_USE race. */
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

/* Destroying the context cancels the pending launch and drops its events. */
static void test_cancelled_launch_releases_events(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	struct doca_sync_event *wait_ev, *comp;

	/* Events without a DPA location: they do not hold the context. */
	assert_int_equal(doca_sync_event_create(&wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create(&comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_add(dpa, wait_ev, 2, comp, 1, 2, &hello_kernel), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	dpa_test_expect_log("launch of kernel hello_kernel (2 threads) cancelled");
	assert_int_equal(doca_sync_event_destroy(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
}

/*
 * A kernel faults inside doca_dpa_dev_sync_event_get (bad output pointer) and inside
 * update_add (the event's set_addr memory is unmapped): the event can still be
 * destroyed at once (the device call's hold on it is released).
 */
static void test_fault_in_device_call_releases_event(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	struct doca_sync_event *ev = dpa_test_event(NULL, dpa, true);
	doca_dpa_dev_sync_event_t h = 0;

	assert_int_equal(doca_sync_event_get_dpa_handle(ev, dpa, &h), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, NULL, 0, 1, &bad_get_kernel, h, 0x18ull),
			 DOCA_SUCCESS);
	assert_true(dpa_test_wait_fatal(dpa));
	usleep(10 * 1000);
	assert_int_equal(dpa_test_log_count("[ERR]", "bad_get_kernel (rank 0 of 1) faulted", (const char *)NULL), 1);
	uint64_t t0 = (uint64_t)time(NULL);

	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_true((uint64_t)time(NULL) - t0 <= 1);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	if (DPA_TEST_TSAN)
		return;

	dpa = dpa_test_started(f->dev, dpa_test_app);
	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_dpa(ev, dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_set_addr(ev, (uint64_t *)0x20), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get_dpa_handle(ev, dpa, &h), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, NULL, 0, 1, &signal_kernel, 0ull, 0ull, h,
							   1ull),
			 DOCA_SUCCESS);
	assert_true(dpa_test_wait_fatal(dpa));
	usleep(10 * 1000);
	assert_int_equal(dpa_test_log_count("[ERR]", "signal_kernel (rank 0 of 1) faulted", (const char *)NULL), 1);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

/*
 * A kernel spinning in its own code outlives destroy's bounded wait: TIME_OUT with a
 * log line, the context intact (it still holds the device); once the kernel returns,
 * its completion is signalled and destroy and doca_dev_close succeed.
 */
static void test_destroy_with_spinning_kernel_times_out(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	struct doca_sync_event *comp;
	doca_dpa_dev_uintptr_t flag = 0;
	uint64_t one = 1;

	assert_int_equal(doca_sync_event_create(&comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(dpa, sizeof(uint64_t), &flag), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_memset(dpa, flag, 0, sizeof(uint64_t)), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, comp, 3, 1, &spin_kernel, flag), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_ERROR_TIME_OUT);
	dpa_test_expect_log("1 launch(es) still running after", "not destroyed");
	assert_int_equal(doca_dev_close(f->dev), DOCA_ERROR_IN_USE); /* the context still holds it */
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
	/* Still started and usable: an RPC runs. */
	uint64_t ret = 0;

	assert_int_equal(doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u), DOCA_SUCCESS);
	/* Device pointers are host addresses here: an atomic store, as the kernel loads it
	 * atomically (h2d_memcpy is a plain copy, a data race TSan would report). */
	__atomic_store_n((uint64_t *)(uintptr_t)flag, one, __ATOMIC_RELEASE);
	assert_int_equal(doca_sync_event_wait_eq(comp, 3, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	/* teardown closes the device: it must be free now */
}

/*
 * Destroy times out on a spinning kernel while another launch is still queued for its
 * wait event: the queued launch is kept (not cancelled, no log line saying so) and runs
 * once its event arrives; the context can then be destroyed.
 */
static void test_destroy_timeout_keeps_queued_launch(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	struct doca_sync_event *gate, *comp;
	doca_dpa_dev_uintptr_t flag = 0;
	uint64_t v = 0;

	/* No DPA location: the events do not hold the context. */
	assert_int_equal(doca_sync_event_create(&gate), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(gate), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create(&comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(dpa, sizeof(uint64_t), &flag), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_memset(dpa, flag, 0, sizeof(uint64_t)), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, NULL, 0, 1, &spin_kernel, flag), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, gate, 1, comp, 1, 2, &hello_kernel), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_ERROR_TIME_OUT);
	dpa_test_expect_one_log("1 launch(es) still running after", "not destroyed", "1 queued launch(es) kept");
	/* The kernel returns, the gate opens: the kept launch runs and completes. */
	__atomic_store_n((uint64_t *)(uintptr_t)flag, 1, __ATOMIC_RELEASE);
	assert_int_equal(doca_sync_event_update_set(gate, 1), DOCA_SUCCESS);
	assert_true(dpa_test_wait_value(comp, 1, 5000));
	assert_int_equal(doca_sync_event_get(comp, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(dpa_test_log_count("[ERR]", "cancelled", (const char *)NULL), 0);
	assert_int_equal(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(gate), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

struct rpc_call {
	struct doca_dpa *dpa;
	doca_dpa_dev_uintptr_t flag;
	uint64_t ret;
	doca_error_t result;
};

static void *call_spin_rpc(void *arg)
{
	struct rpc_call *c = arg;

	c->result = doca_dpa_rpc(c->dpa, &spin_rpc, &c->ret, c->flag);
	return NULL;
}

/*
 * An RPC runs device code on its caller's thread, in the context's heap: while one runs
 * on another thread, stop and destroy are IN_USE (logged, context intact); once it has
 * returned, both work.
 */
static void test_stop_and_destroy_refused_during_rpc(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	/* Static: should a check fail, the spinning thread still has it. */
	static struct rpc_call c;
	pthread_t t;
	uint64_t ret = 0;

	c = (struct rpc_call){.dpa = dpa, .result = DOCA_ERROR_UNKNOWN};
	assert_int_equal(doca_dpa_mem_alloc(dpa, 2 * sizeof(uint64_t), &c.flag), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_memset(dpa, c.flag, 0, 2 * sizeof(uint64_t)), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&t, NULL, call_spin_rpc, &c), 0);
	/* Until the RPC says it runs (a loaded machine may start the thread late). */
	const uint64_t *running = (const uint64_t *)(uintptr_t)c.flag + 1;
	for (int ms = 0; __atomic_load_n(running, __ATOMIC_ACQUIRE) == 0; ms++) {
		assert_true(ms < 10000);
		usleep(1000);
	}
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_stop(dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_one_log("doca_dpa_stop", "0 kernel launch(es) pending or running and 1 RPC(s) running");
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_one_log("doca_dpa_destroy", "1 RPC(s) running on other threads", "not destroyed");
	/* Intact and started: another RPC runs meanwhile. */
	assert_int_equal(doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u), DOCA_SUCCESS);
	assert_int_equal(ret, 4);
	__atomic_store_n((uint64_t *)(uintptr_t)c.flag, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	assert_int_equal(c.result, DOCA_SUCCESS);
	assert_int_equal(c.ret, 5);
	assert_int_equal(doca_dpa_stop(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

/*
 * set_addr on a stopped event that a queued launch still reads (its wait event) or a
 * running launch will write, or that has a DPA handle: BAD_STATE, one log line, the
 * event keeps its value and works on.
 */
static void test_set_addr_refused_while_used(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	struct doca_sync_event *wait_ev, *comp, *exported = dpa_test_event(NULL, dpa, true);
	doca_dpa_dev_sync_event_t h = 0;
	static uint64_t cell;
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_create(&wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create(&comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, wait_ev, 2, comp, 9, 1, &hello_kernel), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_stop(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_stop(comp), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_sync_event_set_addr(wait_ev, &cell), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_sync_event_set_addr", "is the wait or completion event of 1 kernel launch(es)");
	assert_int_equal(doca_sync_event_set_addr(comp, &cell), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_sync_event_set_addr", "is the wait or completion event of 1 kernel launch(es)");
	/* Both unchanged: the launch runs on the event's own value and completes into comp. */
	assert_int_equal(doca_sync_event_start(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(wait_ev, 2), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq(comp, 9, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(__atomic_load_n(&cell, __ATOMIC_ACQUIRE), 0);
	/* Launch complete: the address may be set now. */
	assert_int_equal(doca_sync_event_stop(comp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_set_addr(comp, &cell), DOCA_SUCCESS);

	assert_int_equal(doca_sync_event_get_dpa_handle(exported, dpa, &h), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(exported, 4), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_stop(exported), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_sync_event_set_addr(exported, &cell), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_sync_event_set_addr", "has a DPA handle");
	assert_int_equal(doca_sync_event_start(exported), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(exported, &v), DOCA_SUCCESS);
	assert_int_equal(v, 4);
	assert_int_equal(doca_sync_event_destroy(exported), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(wait_ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(comp), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

/*
 * A handle slot reused by another event: the first event's handle stays stale (the slot
 * generation moved on before the slot was freed), so device code using it fails with a
 * fatal device error instead of updating the new event. The slot is reached again by
 * exporting an event per slot of the table (65536).
 */
static void test_stale_handle_after_slot_reuse(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	struct doca_sync_event *a = dpa_test_event(NULL, dpa, true), *b;
	doca_dpa_dev_sync_event_t ha = 0, hb = 0, h = 0;
	uint64_t v = 1;

	assert_int_equal(doca_sync_event_get_dpa_handle(a, dpa, &ha), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(a), DOCA_SUCCESS);
	for (unsigned int i = 0; i < 65535u; i++) {
		b = dpa_test_event(NULL, dpa, true);
		assert_int_equal(doca_sync_event_get_dpa_handle(b, dpa, &h), DOCA_SUCCESS);
		assert_int_equal(doca_sync_event_destroy(b), DOCA_SUCCESS);
	}
	b = dpa_test_event(NULL, dpa, true);
	assert_int_equal(doca_sync_event_get_dpa_handle(b, dpa, &hb), DOCA_SUCCESS);
	assert_int_equal(hb & 0xffffffu, ha & 0xffffffu); /* the same slot */
	assert_true(hb != ha);				   /* another generation */
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, NULL, 0, 1, &signal_kernel, 0ull, 0ull, ha,
							   1ull),
			 DOCA_SUCCESS);
	assert_true(dpa_test_wait_fatal(dpa));
	usleep(10 * 1000);
	assert_int_equal(dpa_test_log_count("[ERR]", "is not the handle of a started sync event", (const char *)NULL),
			 1);
	assert_int_equal(doca_sync_event_get(b, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0); /* the new event was not touched */
	assert_int_equal(doca_sync_event_destroy(b), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

/* Run fn in a child process; returns its wait status. */
static int in_child(void (*fn)(struct dpa_fx *), struct dpa_fx *f)
{
	if (DPA_TEST_TSAN)
		skip();
	fflush(NULL);
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		/* Not cmocka's handlers: they would longjmp the child back into the test run. */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		alarm(10); /* a hang is a failure too */
		fn(f);
		_exit(0);
	}
	int status = 0;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static struct sigaction app_prev;
static volatile sig_atomic_t app_depth;

/* An application handler installed after doca_dpa_create that chains to the previous one. */
static void app_handler(int sig, siginfo_t *si, void *uc)
{
	if (++app_depth > 3)
		_exit(77); /* handlers call each other in a cycle */
	if (app_prev.sa_flags & SA_SIGINFO)
		app_prev.sa_sigaction(sig, si, uc);
	else if (app_prev.sa_handler != SIG_DFL && app_prev.sa_handler != SIG_IGN)
		app_prev.sa_handler(sig);
	else
		signal(sig, SIG_DFL);
}

static void chained_host_fault(struct dpa_fx *f)
{
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	struct sigaction sa;
	uint64_t ret = 0;

	/* flowdpa's handler is in place and an RPC has run before the application's goes in. */
	if (doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u) != DOCA_SUCCESS)
		_exit(3);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = app_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &app_prev);
	/* Launch, RPC and a second context: flowdpa re-installs over app_handler at most once. */
	if (doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u) != DOCA_SUCCESS)
		_exit(3);
	struct doca_dpa *dpa2 = dpa_test_started(f->dev, dpa_test_app);

	(void)dpa2;
	volatile uintptr_t bad = 0x8; /* through a volatile: the compiler cannot see the address */

	*(volatile int *)bad = 1; /* a host fault outside device code */
	_exit(4);
}

/* The host fault ends the process (default action), not in a handler cycle. */
static void test_chained_handlers_do_not_cycle(void **state)
{
	int status = in_child(chained_host_fault, *state);

	assert_true(WIFSIGNALED(status) || WIFEXITED(status));
	assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 77);
	assert_false(WIFEXITED(status) && (WEXITSTATUS(status) == 3 || WEXITSTATUS(status) == 4));
	assert_false(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM);
}

static void rpc_raises_sigsegv(struct dpa_fx *f)
{
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	uint64_t ret = 0;

	/* Reported as a kernel fault, this would return DRIVER and the child exit 5. */
	doca_dpa_rpc(dpa, &raise_rpc, &ret, (int)SIGSEGV);
	_exit(5);
}

/* raise(SIGSEGV) in device code is a sent signal (si_code <= 0), not a kernel fault. */
static void test_sent_signal_is_not_a_kernel_fault(void **state)
{
	int status = in_child(rpc_raises_sigsegv, *state);

	assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 5);
	assert_false(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM);
}

/* An RPC that overflows the caller's stack is reported like any fault (alternate stack). */
static void test_rpc_stack_overflow_is_reported(void **state)
{
	struct dpa_fx *f = *state;
	uint64_t ret = 7;

	if (DPA_TEST_TSAN)
		skip(); /* TSan's runtime does not survive a stack overflow reliably */
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);

	assert_int_equal(doca_dpa_rpc(dpa, &overflow_rpc, &ret, UINT64_MAX), DOCA_ERROR_DRIVER);
	assert_int_equal(ret, 0);
	dpa_test_expect_log("RPC overflow_rpc (rank 0 of 1) faulted: SIGSEGV");
	assert_int_equal(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	/* The thread carries on: another context's RPC runs on it. */
	dpa = dpa_test_started(f->dev, dpa_test_app);
	assert_int_equal(doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

/* A typedef'd float parameter receives the float passed (promoted to double by the call). */
static void test_typedef_float_argument(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	uint64_t ret = 0;

	assert_int_equal(doca_dpa_rpc(dpa, &f32_rpc, &ret, 2.5f, 10u), DOCA_SUCCESS);
	assert_int_equal(ret, 25);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

/* The counting macros see the commas inside a compound literal's braces: the log names the fix. */
static void test_compound_literal_hint(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = dpa_test_started(f->dev, dpa_test_app);
	doca_dpa_dev_uintptr_t buf = 0;
	uint64_t ret = 0;

	assert_int_equal(doca_dpa_mem_alloc(dpa, 64, &buf), DOCA_SUCCESS);
	struct dpa_test_thread_arg pong = {0, 2, 3, 4};

	dpa_test_log_clear();
	assert_int_equal(doca_dpa_rpc(dpa, &structs_rpc, &ret, (struct dpa_test_thread_arg){buf, 1, 1, 0}, pong),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("declares 2 parameter(s) but 5 argument(s) were passed",
			    "parenthesise compound-literal arguments");
	/* Too few arguments: no such hint. */
	assert_int_equal(doca_dpa_rpc(dpa, &structs_rpc, &ret, pong), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(dpa_test_log_count("[ERR]", "parenthesise", (const char *)NULL), 0);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_rpc(dpa, &structs_rpc, &ret, ((struct dpa_test_thread_arg){buf, 1, 1, 0}), pong),
			 DOCA_SUCCESS);
	assert_int_equal(ret, 1000000u + 2000u + 1 + 3 + 4);
	assert_int_equal(doca_dpa_mem_free(dpa, buf), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_event_held_by_pending_launch, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_cancelled_launch_releases_events, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fault_in_device_call_releases_event, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_with_spinning_kernel_times_out, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_timeout_keeps_queued_launch, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stop_and_destroy_refused_during_rpc, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_set_addr_refused_while_used, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stale_handle_after_slot_reuse, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_chained_handlers_do_not_cycle, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sent_signal_is_not_a_kernel_fault, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_rpc_stack_overflow_is_reported, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_typedef_float_argument, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_compound_literal_hint, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
