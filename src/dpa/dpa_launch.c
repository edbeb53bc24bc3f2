/*
 * dpa_launch.c - running device code for kernel launches and RPCs: the EU workers (one
 * host thread per EU a launch uses, created on first need up to the emulated EU count
 * and then reused; doca_dpa_thread objects are dpa_thread.c's), kernel launches gated
 * by a wait event that signal their completion event once every instance returned, the
 * context's dispatcher thread, RPCs on the caller's thread, and the stop/destroy
 * protocol that drains them (dpa_exec_stop). Also the entry-point checks shared by
 * launch and RPC (app, kind, declared parameter count).
 *
 * Every run of device code (kernel instance, RPC, and the runs of DPA thread objects in
 * dpa_thread.c) goes through dpa_exec_run, the recovery point of a fault: the
 * crash-signal handler (dpa_signal.c) siglongjmps back into it, and dpa_exec_report_end
 * records the fault or fatal device error on the context.
 *
 * An idle EU worker spins briefly for its next instance, then sleeps on the context's
 * worker word with its own bit, so a launch of N threads wakes its sleeping workers with
 * one syscall (none if all still spin); see struct dpa_worker.
 *
 * A launch takes a record from a pool made at start and packs its arguments into it,
 * so the launch path allocates nothing. If its wait event is satisfied and enough EU
 * workers are idle, the launching thread hands the instances out itself; otherwise the
 * record is queued and the dispatcher starts it later, in submission order as events and
 * idle workers allow (a launch still waiting for its event does not hold back later ones).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dpa/dpa_internal.h"

DOCA_LOG_REGISTER(DPA::LAUNCH);

/* Passed as nargs by the plain DOCA entry points: the count is not known. */
#define DPA_NARGS_UNKNOWN UINT32_MAX
/* Host threads that run DPA threads: their stack and the alternate signal stack. */
#define DPA_WORKER_STACK (2u << 20)
/* Extra wait after asking device waits to give up, before reporting launches still running. */
#define DPA_CANCEL_WAIT_MS 500u

__thread struct dpa_exec *dpa_exec_current __attribute__((tls_model("initial-exec")));

/*
 * An EU worker waits for its next instance by spinning (its own dpa_spin budget), then
 * sleeping on the context's one worker word (doca_dpa.work) with its own bit of the
 * futex bitset: a launch of N threads wakes all the sleepers among its N workers with
 * one FUTEX_WAKE_BITSET, and none at all when they are all still spinning (`sleeping`,
 * set before the worker re-checks its job and sleeps, read after the job is stored:
 * one of the two sides sees the other).
 */
struct dpa_worker {
	struct doca_dpa *dpa;
	pthread_t tid;
	_Atomic(struct dpa_launch *) job; /* stored under dpa->lock, rank first */
	unsigned int rank;
	unsigned int index;
	uint32_t bit; /* its bit in the futex bitset of dpa->work */
	/* What the thread is named after (dpa_name_thread): its last kernel and rank. */
	const struct dpa_image_entry *named_entry;
	unsigned int named_rank;
	atomic_bool quit;
	atomic_bool sleeping; /* between its last job check and leaving the futex wait */
	struct dpa_spin spin;
	struct dpa_worker *next_idle;
	void *altstack;
	struct dpa_exec exec;
};

static long futex_bitset(atomic_uint *word, int op, uint32_t val, uint32_t bits)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, bits);
}

static bool worker_has_job(const void *arg)
{
	const struct dpa_worker *w = arg;

	return atomic_load(&w->job) != NULL || atomic_load(&w->quit);
}

/* The worker's next launch, or NULL when it is to quit: spin, then sleep. */
static struct dpa_launch *worker_wait(struct dpa_worker *w)
{
	struct doca_dpa *dpa = w->dpa;

	if (!dpa_spin(&w->spin, worker_has_job, w)) {
		for (;;) {
			uint32_t seq = atomic_load(&dpa->work);

			atomic_store(&w->sleeping, true);
			if (worker_has_job(w))
				break;
			/* Returns at once if a launch bumped the word since seq. */
			futex_bitset(&dpa->work, FUTEX_WAIT_BITSET_PRIVATE, seq, w->bit);
		}
		atomic_store(&w->sleeping, false);
	}
	return atomic_load(&w->job);
}

/* Wake the sleepers among the workers of mask (bits of dpa->work's bitset). */
static void workers_wake(struct doca_dpa *dpa, uint32_t mask)
{
	if (mask == 0)
		return;
	atomic_fetch_add(&dpa->work, 1);
	futex_bitset(&dpa->work, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, mask);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGFPE:
		return "SIGFPE";
	case SIGILL:
		return "SIGILL";
	default:
		return "signal";
	}
}

/* ------------------------------------------------------------ running one instance */

enum dpa_end dpa_exec_run(struct dpa_exec *exec, const void *args, uint64_t *result)
{
	struct dpa_exec *const prev = dpa_exec_current;
	int end;

	exec->sig = 0;
	exec->fault_addr = NULL;
	exec->fatal_msg[0] = '\0';
	exec->held_users = NULL;
	dpa_exec_current = exec;
	/* No mask saved: that would be a sigprocmask syscall per launch and RPC. */
	end = sigsetjmp(exec->jmp, 0);
	if (end == 0) {
		exec->armed = 1;
		*result = exec->entry->invoke(args);
	}
	exec->armed = 0;
	if (end == DPA_END_FAULT) {
		/* We left the handler by siglongjmp, so the signal is still blocked here. */
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, exec->sig);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	}
	if (exec->held_users != NULL) {
		/* Ended inside a device API call that held a handle slot: release it, or
		 * destroying that event would wait for a call that will never return. */
		atomic_fetch_sub(exec->held_users, 1);
		exec->held_users = NULL;
		dpa_wake_all();
	}
	dpa_exec_current = prev;
	return (enum dpa_end)end;
}

void dpa_exec_report_end(struct dpa_exec *exec, enum dpa_end end)
{
	struct doca_dpa *dpa = exec->dpa;
	const char *kind = exec->entry->kind == DPA_ENTRY_RPC ? "RPC" : "kernel";
	char msg[sizeof(dpa->fatal_msg)];

	if (end == DPA_END_FAULT)
		snprintf(msg, sizeof(msg), "%s %s (rank %u of %u) faulted: %s at address %p", kind, exec->entry->name,
			 exec->rank, exec->num_threads, signal_name(exec->sig), exec->fault_addr);
	else
		snprintf(msg, sizeof(msg), "%s %s (rank %u of %u) stopped by a fatal device error: %s", kind,
			 exec->entry->name, exec->rank, exec->num_threads, exec->fatal_msg);
	atomic_fetch_add(&dpa->nr_faults, 1);
	pthread_mutex_lock(&dpa->lock);
	if (atomic_load(&dpa->fatal) == 0) {
		memcpy(dpa->fatal_msg, msg, sizeof(msg));
		atomic_store(&dpa->fatal, (int)end);
	}
	pthread_mutex_unlock(&dpa->lock);
	CORE_LOG_ERR("DPA context %u: %s; doca_dpa_peek_at_last_error returns DOCA_ERROR_BAD_STATE from now on",
		     dpa->id, msg);
}

static void trace_instance(struct doca_dpa *dpa, const struct dpa_exec *x, uint64_t t0)
{
	char args[96];

	snprintf(args, sizeof(args), "{\"rank\":%u,\"threads\":%u,\"ctx\":%u}", x->rank, x->num_threads, dpa->id);
	core_trace_complete(dpa->caps->index + 1, "dpa", x->entry->name, t0, dpa_now_us() - t0, args);
}

/* ------------------------------------------------------------ DPA threads */

/* What the last instance of a launch signals once the record is released. */
struct launch_end {
	struct doca_sync_event *comp;
	bool signal, add;
	uint64_t count;
};

/*
 * The last instance returned: release the record (lock held), keeping what is to be
 * signalled. The caller signals after unlocking (launch_signal).
 */
static struct launch_end launch_release(struct doca_dpa *dpa, struct dpa_launch *l)
{
	struct launch_end e = {l->comp_event, !atomic_load(&l->faulted), l->add, l->comp_count};

	l->next = dpa->free_launches;
	dpa->free_launches = l;
	dpa->inflight--;
	return e;
}

/*
 * Signal and drop the completion event (the event is the last touch of it: once
 * dropped, it may be destroyed), then tell stop/destroy that inflight dropped. dpa is
 * still valid: a stop frees it only after joining the DPA thread that calls this.
 */
static void launch_signal(struct doca_dpa *dpa, const struct launch_end *e)
{
	if (e->comp && e->signal)
		dpa_sync_event_launch_signal(e->comp, e->add, e->count); /* wakes its waiters */
	else
		dpa_sync_event_launch_unref(e->comp, false);
	dpa_wake(&dpa->drain);
}

static void *worker_main(void *arg)
{
	struct dpa_worker *w = arg;
	struct doca_dpa *dpa = w->dpa;
	stack_t ss = {.ss_sp = w->altstack, .ss_size = DPA_ALTSTACK_SIZE, .ss_flags = 0};

	if (sigaltstack(&ss, NULL) != 0)
		CORE_LOG_WARN("DPA thread %u: no alternate signal stack (%s); a stack overflow in a kernel will "
			      "not be caught",
			      w->index, strerror(errno));
	char unit[16];

	snprintf(unit, sizeof(unit), "eu%u", w->index);
	dpa_name_thread(dpa, "idle", unit);
	for (;;) {
		/* A job handed out is run even if quit follows (stop commits only once no
		 * launch is in flight, so it does not happen, but a dropped job would never
		 * complete and would keep its events held). */
		struct dpa_launch *l = worker_wait(w);

		if (l == NULL)
			break;
		struct dpa_exec *x = &w->exec;
		uint64_t t0 = core_trace_enabled() ? dpa_now_us() : 0, ret;

		if (w->named_entry != l->entry || w->named_rank != w->rank) {
			snprintf(unit, sizeof(unit), "%u", w->rank);
			dpa_name_thread(dpa, l->entry->name, unit);
			w->named_entry = l->entry;
			w->named_rank = w->rank;
		}
		x->dpa = dpa;
		x->entry = l->entry;
		x->rank = w->rank;
		x->num_threads = l->num_threads;
		enum dpa_end end = dpa_exec_run(x, l->args, &ret);

		if (end == DPA_END_FAULT || end == DPA_END_FATAL) {
			atomic_store(&l->faulted, true);
			dpa_exec_report_end(x, end);
		} else if (end == DPA_END_CANCEL) {
			atomic_store(&l->faulted, true);
			CORE_LOG_WARN("DPA context %u is being destroyed: kernel %s (rank %u of %u) was still waiting "
				      "in the device API and was ended",
				      dpa->id, x->entry->name, x->rank, x->num_threads);
		}
		if (t0)
			trace_instance(dpa, x, t0);
		atomic_fetch_add_explicit(&dpa->nr_instances, 1, memory_order_relaxed);
		/* Idle again before the completion is signalled: a host that launches again
		 * right after its wait finds this thread available. One locked section for
		 * both: the last instance also releases the record there. */
		struct launch_end e = {0};

		pthread_mutex_lock(&dpa->lock);
		atomic_store_explicit(&w->job, NULL, memory_order_relaxed);
		w->next_idle = dpa->idle;
		dpa->idle = w;
		dpa->nidle++;
		bool last = atomic_fetch_sub(&l->remaining, 1) == 1;

		if (last)
			e = launch_release(dpa, l);
		bool queued = dpa->queued != 0; /* a queued launch may need this DPA thread */

		pthread_mutex_unlock(&dpa->lock);
		if (queued)
			dpa_wake(&dpa_dispatch_wake);
		if (last)
			launch_signal(dpa, &e);
	}
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	return NULL;
}

void dpa_name_thread(const struct doca_dpa *dpa, const char *func, const char *unit)
{
	char full[96], os[16];
	int room = (int)sizeof(os) - 1 - 4 - 1 - (int)strlen(unit); /* "dpa:" "/" unit */

	snprintf(full, sizeof(full), "dpa:%s/%s", func, unit);
	snprintf(os, sizeof(os), "dpa:%.*s/%s", room > 0 ? room : 0, func, unit);
	core_thread_name(dpa->caps->index + 1, full, os);
}

/* Create DPA threads until `need` are idle or the EU count is reached. Lock held. */
static void workers_grow(struct doca_dpa *dpa, unsigned int need)
{
	while (dpa->nidle < need && dpa->nworkers < dpa->total_eus) {
		/* Allocation here happens only the first time a launch needs this many threads. */
		struct dpa_worker *w = core_calloc(1, sizeof(*w));
		pthread_attr_t attr;

		if (w != NULL)
			w->altstack = core_malloc(DPA_ALTSTACK_SIZE);
		if (w == NULL || w->altstack == NULL) {
			/* The launch waits in the queue; the dispatcher tries again. */
			CORE_LOG_WARN("DPA context %u: cannot create DPA thread %u: out of memory", dpa->id,
				      dpa->nworkers);
			if (w != NULL)
				free(w->altstack);
			free(w);
			return;
		}
		w->dpa = dpa;
		w->index = dpa->nworkers;
		w->bit = 1u << (w->index % 32u); /* workers 32 apart share a bit: woken together */
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, DPA_WORKER_STACK);
		int rc = pthread_create(&w->tid, &attr, worker_main, w);

		pthread_attr_destroy(&attr);
		if (rc != 0) {
			CORE_LOG_ERR("DPA context %u: cannot create DPA thread %u: %s", dpa->id, w->index, strerror(rc));
			free(w->altstack);
			free(w);
			return;
		}
		dpa->workers[dpa->nworkers++] = w;
		w->next_idle = dpa->idle;
		dpa->idle = w;
		dpa->nidle++;
	}
}

static bool launch_eligible(const struct dpa_launch *l)
{
	return l->wait_event == NULL || dpa_sync_event_value(l->wait_event) >= l->wait_threshold;
}

/*
 * Assign l to idle DPA threads if it may run now. Lock held. A spinning worker starts
 * at once; the bits of those asleep are added to *to_wake, woken by workers_wake after
 * the lock is released, so that they do not wake only to block on the lock the
 * launcher still holds.
 */
static bool launch_try_start(struct doca_dpa *dpa, struct dpa_launch *l, uint32_t *to_wake)
{
	if (!launch_eligible(l))
		return false;
	workers_grow(dpa, l->num_threads);
	if (dpa->nidle < l->num_threads)
		return false;
	atomic_store(&l->remaining, l->num_threads);
	/* Started: the wait event is not read again, so it may be destroyed now. */
	dpa_sync_event_launch_unref(l->wait_event, true);
	l->wait_event = NULL;
	for (unsigned int rank = 0; rank < l->num_threads; rank++) {
		struct dpa_worker *w = dpa->idle;

		dpa->idle = w->next_idle;
		dpa->nidle--;
		w->rank = rank;
		atomic_store(&w->job, l);
		if (atomic_load(&w->sleeping))
			*to_wake |= w->bit;
	}
	return true;
}

/*
 * Drop queued launches once destroy has committed (their wait never came). Lock held,
 * stopping set: the dispatcher starts nothing any more.
 */
static void pending_cancel(struct doca_dpa *dpa)
{
	while (dpa->pending_head) {
		struct dpa_launch *l = dpa->pending_head;

		dpa->pending_head = l->next;
		dpa->queued--;
		CORE_LOG_ERR("DPA context %u destroyed: launch of kernel %s (%u threads) cancelled, it was still "
			     "waiting for its wait event to reach %" PRIu64,
			     dpa->id, l->entry->name, l->num_threads, l->wait_threshold);
		dpa_sync_event_launch_unref(l->wait_event, true);
		dpa_sync_event_launch_unref(l->comp_event, false);
		l->next = dpa->free_launches;
		dpa->free_launches = l;
		dpa->inflight--;
	}
	dpa->pending_tail = NULL;
}

/*
 * Start queued launches whose wait event allows it, in submission order; launches still
 * waiting for their event do not hold back later ones (no ordering beyond events). An
 * eligible launch that lacks idle DPA threads stops the scan, so later launches cannot
 * overtake it and starve it. Lock held. true: some started.
 */
static bool pending_start_eligible(struct doca_dpa *dpa, uint32_t *to_wake)
{
	struct dpa_launch *prev = NULL, *l = dpa->pending_head;
	bool started = false;

	while (l) {
		struct dpa_launch *next = l->next;

		if (launch_eligible(l)) {
			if (!launch_try_start(dpa, l, to_wake))
				return started;
			started = true;
			dpa->queued--;
			if (prev)
				prev->next = next;
			else
				dpa->pending_head = next;
			if (dpa->pending_tail == l)
				dpa->pending_tail = prev;
		} else {
			prev = l;
		}
		l = next;
	}
	return started;
}

/* True when a queued launch may run now and so must go before a new one. Lock held. */
static bool pending_has_eligible(const struct doca_dpa *dpa)
{
	for (const struct dpa_launch *l = dpa->pending_head; l; l = l->next)
		if (launch_eligible(l))
			return true;
	return false;
}

static void *dispatcher_main(void *arg)
{
	struct doca_dpa *dpa = arg;
	char name[48];

	snprintf(name, sizeof(name), "DPA %u launch dispatcher", dpa->id);
	core_thread_name(dpa->caps->index + 1, name, "dpa:dispatch");
	for (;;) {
		struct dpa_wake_snap snap = dpa_wake_snapshot(&dpa_dispatch_wake);

		pthread_mutex_lock(&dpa->lock);
		if (dpa->stopping) {
			pthread_mutex_unlock(&dpa->lock);
			break;
		}
		uint32_t to_wake = 0;
		bool started = false;

		/* While destroy ends device waits, nothing starts (its waits would end at
		 * once); queued launches stay queued: destroy may still time out and keep
		 * the context, and then they run as usual. */
		if (!atomic_load(&dpa->cancel))
			started = pending_start_eligible(dpa, &to_wake);
		bool waiting = dpa->pending_head != NULL;

		pthread_mutex_unlock(&dpa->lock);
		workers_wake(dpa, to_wake);
		if (started)
			continue; /* more may have become eligible meanwhile */
		/* Bounded while launches wait: a set_addr wait event changes by plain stores. */
		dpa_wake_wait(&dpa_dispatch_wake, snap, waiting ? DPA_DISPATCH_POLL_US : 0);
	}
	return NULL;
}

doca_error_t dpa_exec_start(struct doca_dpa *dpa)
{
	if (dpa->launch_pool == NULL) {
		dpa->launch_pool = core_calloc(DPA_LAUNCH_POOL, sizeof(*dpa->launch_pool));
		dpa->workers = core_calloc(dpa->total_eus ? dpa->total_eus : 1, sizeof(*dpa->workers));
		if (dpa->launch_pool == NULL || dpa->workers == NULL) {
			free(dpa->launch_pool);
			free(dpa->workers);
			dpa->launch_pool = NULL;
			dpa->workers = NULL;
			CORE_LOG_ERR("DPA context %u: out of memory for launch records", dpa->id);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	dpa->free_launches = NULL;
	for (unsigned int i = 0; i < DPA_LAUNCH_POOL; i++) {
		dpa->launch_pool[i].next = dpa->free_launches;
		dpa->free_launches = &dpa->launch_pool[i];
	}
	pthread_mutex_lock(&dpa->lock); /* launches and RPCs read these under it */
	dpa->pending_head = dpa->pending_tail = NULL;
	dpa->inflight = 0;
	dpa->queued = 0;
	dpa->stopping = false;
	pthread_mutex_unlock(&dpa->lock);
	atomic_store(&dpa->cancel, false);
	int rc = pthread_create(&dpa->dispatcher, NULL, dispatcher_main, dpa);

	if (rc != 0) {
		CORE_LOG_ERR("DPA context %u: cannot create the dispatcher thread: %s", dpa->id, strerror(rc));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	dpa->dispatcher_running = true;
	return DOCA_SUCCESS;
}

static void stop_counts(struct doca_dpa *dpa, struct dpa_stop_counts *c)
{
	c->inflight = dpa->inflight;
	c->running = dpa->inflight - dpa->queued;
	c->rpcs = dpa->rpcs;
}

/* Wait until no launch (running_only: no started launch) is in flight, or timeout_ms passes. */
static bool wait_idle(struct doca_dpa *dpa, unsigned int timeout_ms, bool running_only)
{
	uint64_t deadline = dpa_now_us() + (uint64_t)timeout_ms * 1000u;

	for (;;) {
		struct dpa_wake_snap snap = dpa_wake_snapshot(&dpa->drain);

		pthread_mutex_lock(&dpa->lock);
		unsigned int n = dpa->inflight - (running_only ? dpa->queued : 0);

		pthread_mutex_unlock(&dpa->lock);
		if (n == 0)
			return true;
		if (dpa_now_us() >= deadline)
			return false;
		dpa_wake_wait(&dpa->drain, snap, 10000);
	}
}

enum dpa_stop_result dpa_exec_stop(struct doca_dpa *dpa, unsigned int wait_ms, struct dpa_stop_counts *counts)
{
	bool cancelled = false;

	if (wait_ms) {
		pthread_mutex_lock(&dpa->lock);
		stop_counts(dpa, counts);
		pthread_mutex_unlock(&dpa->lock);
		if (counts->rpcs)
			return DPA_STOP_BUSY;
		if (!wait_idle(dpa, wait_ms, false)) {
			/* Device waits give up; kernels spinning in their own code cannot. Queued
			 * launches are not touched yet: the stop may still fail. */
			atomic_store(&dpa->cancel, true);
			cancelled = true;
			dpa_wake_all();
			wait_idle(dpa, DPA_CANCEL_WAIT_MS, true);
		}
	}
	/* Decide and commit in one section: a launch or RPC either came before (and is
	 * counted here) or sees `stopping` and is refused. */
	pthread_mutex_lock(&dpa->lock);
	stop_counts(dpa, counts);
	bool busy = counts->rpcs != 0 || (wait_ms ? counts->running != 0 : counts->inflight != 0);

	if (!busy) {
		dpa->stopping = true;
		pending_cancel(dpa); /* destroy only: stop refuses while launches are queued */
	}
	pthread_mutex_unlock(&dpa->lock);
	if (busy) {
		if (cancelled) {
			/* The context stays started and usable (the caller reports TIME_OUT or
			 * IN_USE): later device waits must not end at once, and the dispatcher
			 * may start queued launches again. */
			atomic_store(&dpa->cancel, false);
			dpa_wake_all();
		}
		return counts->rpcs != 0 || !wait_ms ? DPA_STOP_BUSY : DPA_STOP_TIMEOUT;
	}
	dpa_wake_all();
	if (dpa->dispatcher_running) {
		pthread_join(dpa->dispatcher, NULL);
		dpa->dispatcher_running = false;
	}
	for (unsigned int i = 0; i < dpa->nworkers; i++)
		atomic_store(&dpa->workers[i]->quit, true);
	workers_wake(dpa, FUTEX_BITSET_MATCH_ANY);
	for (unsigned int i = 0; i < dpa->nworkers; i++) {
		struct dpa_worker *w = dpa->workers[i];

		pthread_join(w->tid, NULL);
		free(w->altstack);
		free(w);
	}
	dpa->nworkers = 0;
	dpa->idle = NULL;
	dpa->nidle = 0;
	free(dpa->launch_pool);
	free(dpa->workers);
	dpa->launch_pool = NULL;
	dpa->workers = NULL;
	return DPA_STOP_DONE;
}

/* ------------------------------------------------------------ launch and RPC */

const struct dpa_image_entry *dpa_find_entry(const struct doca_dpa *dpa, doca_dpa_func_t *func)
{
	const struct doca_dpa_app *app = dpa->app;

	for (uint32_t i = 0; i < app->nentries; i++)
		if (app->entries[i]->host_sym == func)
			return app->entries[i];
	return NULL;
}

/*
 * Whether a launch or RPC may go ahead now; dpa->lock held. `stopping` is set by a stop
 * or destroy that has committed (dpa_exec_stop), before it frees the launch records.
 */
static bool admissible(const struct doca_dpa *dpa)
{
	return dpa->state == DPA_STATE_STARTED && !dpa->stopping;
}

static doca_error_t not_admitted(const struct doca_dpa *dpa, const char *api)
{
	CORE_LOG_ERR("%s: DPA context %u is not started (set an app and call doca_dpa_start first)", api, dpa->id);
	return DOCA_ERROR_BAD_STATE;
}

/* Checks shared by launch and RPC; *entry gets the entry point of func. */
static doca_error_t entry_check(struct doca_dpa *dpa, doca_dpa_func_t *func, uint32_t kind, unsigned int nargs,
				const struct dpa_image_entry **entry, const char *api)
{
	doca_error_t r = dpa_check(dpa, api);

	if (r != DOCA_SUCCESS)
		return r;
	dpa = dpa_base(dpa); /* an extended context runs on its base */
	/* Under the lock: stop/start change the state there. The caller admits the launch
	 * or RPC itself under the lock again (a stop may commit in between). */
	pthread_mutex_lock(&dpa->lock);
	bool ok = admissible(dpa);

	pthread_mutex_unlock(&dpa->lock);
	if (!ok)
		return not_admitted(dpa, api);
	if (atomic_load(&dpa->fatal)) {
		CORE_LOG_ERR("%s: DPA context %u had a fatal device error (%s); destroy it", api, dpa->id,
			     dpa->fatal_msg);
		return DOCA_ERROR_BAD_STATE;
	}
	if (func == NULL) {
		CORE_LOG_ERR("%s: func is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	const struct dpa_image_entry *e = dpa_find_entry(dpa, func);

	if (e == NULL) {
		CORE_LOG_ERR("%s: %p is not a kernel or RPC of app %s (declare `extern doca_dpa_func_t name;` and "
			     "pass &name)",
			     api, (void *)func, dpa->app->app_name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (e->kind != kind) {
		CORE_LOG_ERR("%s: %s is %s, not %s", api, e->name,
			     e->kind == DPA_ENTRY_RPC ? "an RPC (__dpa_rpc__): call it with doca_dpa_rpc"
						      : "a kernel (__dpa_global__): launch it with doca_dpa_kernel_launch_update_*",
			     kind == DPA_ENTRY_RPC ? "an RPC" : "a kernel");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (nargs != DPA_NARGS_UNKNOWN && nargs != e->nparams) {
		/* The counting macros see each top-level comma: a compound literal such as
		 * (struct pair){5, 6} counts as two arguments unless parenthesised. */
		CORE_LOG_ERR("%s: %s %s declares %u parameter(s) but %u argument(s) were passed%s", api,
			     kind == DPA_ENTRY_RPC ? "RPC" : "kernel", e->name, e->nparams, nargs,
			     nargs > e->nparams ? " (parenthesise compound-literal arguments: ((struct s){a, b}))" : "");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*entry = e;
	return DOCA_SUCCESS;
}

static doca_error_t launch_va_traced(bool add, unsigned int nargs, struct doca_dpa *dpa,
				     struct doca_sync_event *wait_event, uint64_t wait_threshold,
				     struct doca_sync_event *comp_event, uint64_t comp_count, unsigned int num_threads,
				     doca_dpa_func_t *func, va_list *ap, const char **kernel)
{
	const char *api = add ? "doca_dpa_kernel_launch_update_add" : "doca_dpa_kernel_launch_update_set";
	const struct dpa_image_entry *e;
	doca_error_t r = entry_check(dpa, func, DPA_ENTRY_KERNEL, nargs, &e, api);

	if (r != DOCA_SUCCESS)
		return r;
	*kernel = e->name;
	dpa = dpa_base(dpa);
	if (num_threads == 0 || num_threads > dpa->total_eus) {
		CORE_LOG_ERR("%s: kernel %s: num_threads %u is not in 1..%u (doca_dpa_get_max_threads_per_kernel)",
			     api, e->name, num_threads, dpa->total_eus);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (wait_threshold > 254) {
		CORE_LOG_ERR("%s: kernel %s: wait_threshold %" PRIu64 " is above 254", api, e->name, wait_threshold);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((wait_event && !dpa_sync_event_usable(wait_event)) || (comp_event && !dpa_sync_event_usable(comp_event))) {
		CORE_LOG_ERR("%s: kernel %s: the %s event is not a started doca_sync_event", api, e->name,
			     wait_event && !dpa_sync_event_usable(wait_event) ? "wait" : "completion");
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&dpa->lock);
	if (!admissible(dpa)) {
		pthread_mutex_unlock(&dpa->lock);
		return not_admitted(dpa, api);
	}
	struct dpa_launch *l = dpa->free_launches;

	if (l == NULL) {
		pthread_mutex_unlock(&dpa->lock);
		CORE_LOG_ERR("%s: kernel %s: %u launches already in flight on DPA context %u", api, e->name,
			     DPA_LAUNCH_POOL, dpa->id);
		return DOCA_ERROR_FULL;
	}
	dpa->free_launches = l->next;
	l->next = NULL;
	l->entry = e;
	l->wait_event = wait_event;
	l->wait_threshold = wait_threshold;
	l->comp_event = comp_event;
	l->comp_count = comp_count;
	l->num_threads = num_threads;
	l->add = add;
	/* Held until the launch no longer needs them: destroying them meanwhile is IN_USE. */
	dpa_sync_event_launch_ref(wait_event, true);
	dpa_sync_event_launch_ref(comp_event, false);
	atomic_store(&l->faulted, false);
	e->pack(l->args, ap); /* arguments captured now, with their declared types */
	dpa->inflight++;
	atomic_fetch_add_explicit(&dpa->nr_launches, 1, memory_order_relaxed);
	uint32_t to_wake = 0;

	/* While destroy ends device waits, a new launch is queued like one whose event is
	 * not there yet: it runs if destroy times out, it is cancelled if destroy goes on. */
	if (!atomic_load(&dpa->cancel) && !pending_has_eligible(dpa) && launch_try_start(dpa, l, &to_wake)) {
		pthread_mutex_unlock(&dpa->lock);
		workers_wake(dpa, to_wake);
		return DOCA_SUCCESS;
	}
	if (dpa->pending_tail)
		dpa->pending_tail->next = l;
	else
		dpa->pending_head = l;
	dpa->pending_tail = l;
	dpa->queued++;
	pthread_mutex_unlock(&dpa->lock);
	dpa_wake(&dpa_dispatch_wake);
	return DOCA_SUCCESS;
}

/* The launch calls are variadic, so src/core/trace_wrap.py cannot wrap them: their
 * FLOWDPA_TRACE event is recorded here, for the doca_* and the counted entry points. */
static doca_error_t launch_va(bool add, unsigned int nargs, struct doca_dpa *dpa, struct doca_sync_event *wait_event,
			      uint64_t wait_threshold, struct doca_sync_event *comp_event, uint64_t comp_count,
			      unsigned int num_threads, doca_dpa_func_t *func, va_list *ap)
{
	CORE_TRACE_CALL_BEGIN();
	const char *kernel = NULL;
	doca_error_t r = launch_va_traced(add, nargs, dpa, wait_event, wait_threshold, comp_event, comp_count,
					  num_threads, func, ap, &kernel);

	if (r == DOCA_SUCCESS)
		CORE_LOG_TRC("%s: kernel %s, %u thread(s) on DPA context %u%s%s", add ? "doca_dpa_kernel_launch_update_add"
			     : "doca_dpa_kernel_launch_update_set", kernel, num_threads, dpa_base(dpa)->id,
			     wait_event ? ", after its wait event" : "", comp_event ? ", completion event" : "");
	CORE_TRACE_CALL_END("api", add ? "doca_dpa_kernel_launch_update_add" : "doca_dpa_kernel_launch_update_set", r);
	return r;
}

doca_error_t(doca_dpa_kernel_launch_update_set)(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
						uint64_t wait_threshold, struct doca_sync_event *comp_event,
						uint64_t comp_count, unsigned int num_threads, doca_dpa_func_t *func, ...)
{
	va_list ap;

	va_start(ap, func);
	doca_error_t r = launch_va(false, DPA_NARGS_UNKNOWN, dpa, wait_event, wait_threshold, comp_event, comp_count,
				   num_threads, func, &ap);
	va_end(ap);
	return r;
}

doca_error_t(doca_dpa_kernel_launch_update_add)(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
						uint64_t wait_threshold, struct doca_sync_event *comp_event,
						uint64_t comp_count, unsigned int num_threads, doca_dpa_func_t *func, ...)
{
	va_list ap;

	va_start(ap, func);
	doca_error_t r = launch_va(true, DPA_NARGS_UNKNOWN, dpa, wait_event, wait_threshold, comp_event, comp_count,
				   num_threads, func, &ap);
	va_end(ap);
	return r;
}

doca_error_t flowdpa_dpa_kernel_launch_counted(int add, unsigned int nargs, struct doca_dpa *dpa,
					       struct doca_sync_event *wait_event, uint64_t wait_threshold,
					       struct doca_sync_event *comp_event, uint64_t comp_count,
					       unsigned int num_threads, doca_dpa_func_t *func, ...)
{
	va_list ap;

	va_start(ap, func);
	doca_error_t r = launch_va(add != 0, nargs, dpa, wait_event, wait_threshold, comp_event, comp_count,
				   num_threads, func, &ap);
	va_end(ap);
	return r;
}

static doca_error_t rpc_va_traced(unsigned int nargs, struct doca_dpa *dpa, doca_dpa_func_t *func, uint64_t *retval,
				  va_list *ap, const char **rpc)
{
	const struct dpa_image_entry *e;
	doca_error_t r = entry_check(dpa, func, DPA_ENTRY_RPC, nargs, &e, "doca_dpa_rpc");

	if (r != DOCA_SUCCESS)
		return r;
	*rpc = e->name;
	dpa = dpa_base(dpa);
	if (retval == NULL) {
		CORE_LOG_ERR("doca_dpa_rpc: RPC %s: retval is NULL", e->name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Counted while it runs: stop and destroy refuse (IN_USE) instead of freeing the
	 * heap and the context under it. */
	pthread_mutex_lock(&dpa->lock);
	if (!admissible(dpa)) {
		pthread_mutex_unlock(&dpa->lock);
		return not_admitted(dpa, "doca_dpa_rpc");
	}
	dpa->rpcs++;
	pthread_mutex_unlock(&dpa->lock);
	/* On the stack: an RPC allocates nothing. */
	_Alignas(DPA_ARGS_ALIGN_MAX) unsigned char args[DPA_ARGS_MAX];
	struct dpa_exec x = {.dpa = dpa, .entry = e, .rank = 0, .num_threads = 1};
	uint64_t t0 = core_trace_enabled() ? dpa_now_us() : 0, ret = 0;

	e->pack(args, ap);
	dpa_thread_altstack(); /* a stack overflow in the RPC is reported, not fatal */
	enum dpa_end end = dpa_exec_run(&x, args, &ret);

	atomic_fetch_add_explicit(&dpa->nr_rpcs, 1, memory_order_relaxed);
	if (t0)
		trace_instance(dpa, &x, t0);
	if (end == DPA_END_FAULT || end == DPA_END_FATAL)
		dpa_exec_report_end(&x, end);
	pthread_mutex_lock(&dpa->lock);
	dpa->rpcs--;
	pthread_mutex_unlock(&dpa->lock);
	if (end == DPA_END_FAULT || end == DPA_END_FATAL || end == DPA_END_CANCEL) {
		*retval = 0;
		return DOCA_ERROR_DRIVER;
	}
	*retval = ret;
	return DOCA_SUCCESS;
}

/* Variadic as the launches: its FLOWDPA_TRACE event is recorded here. */
static doca_error_t rpc_va(unsigned int nargs, struct doca_dpa *dpa, doca_dpa_func_t *func, uint64_t *retval,
			   va_list *ap)
{
	CORE_TRACE_CALL_BEGIN();
	const char *rpc = NULL;
	doca_error_t r = rpc_va_traced(nargs, dpa, func, retval, ap, &rpc);

	if (r == DOCA_SUCCESS)
		CORE_LOG_TRC("doca_dpa_rpc: RPC %s on DPA context %u returned 0x%" PRIx64, rpc, dpa_base(dpa)->id,
			     *retval);
	CORE_TRACE_CALL_END("api", "doca_dpa_rpc", r);
	return r;
}

doca_error_t(doca_dpa_rpc)(struct doca_dpa *dpa, doca_dpa_func_t *func, uint64_t *retval, ...)
{
	va_list ap;

	va_start(ap, retval);
	doca_error_t r = rpc_va(DPA_NARGS_UNKNOWN, dpa, func, retval, &ap);
	va_end(ap);
	return r;
}

doca_error_t flowdpa_dpa_rpc_counted(unsigned int nargs, struct doca_dpa *dpa, doca_dpa_func_t *func,
				     uint64_t *retval, ...)
{
	va_list ap;

	va_start(ap, retval);
	doca_error_t r = rpc_va(nargs, dpa, func, retval, &ap);
	va_end(ap);
	return r;
}
