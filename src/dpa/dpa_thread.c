/*
 * dpa_thread.c - DPA thread objects (doca_dpa_thread_*), the notification completions
 * that trigger them from device code (doca_dpa_dev_thread_notify), and EU affinities.
 *
 * Each started DPA thread has a host thread of its own that sleeps until the thread is
 * runnable and triggered, then runs func(arg) once from its first line (a run may spin
 * for as long as it likes, as ping_pong's do). Triggers that arrive during a run cause
 * one more run. Notification handles index a handle table (dpa_handle.c), as sync
 * events do, so a stale or forged handle is reported, never dereferenced.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dpa_dev.h>

#include "dpa/dpa_internal.h"

DOCA_LOG_REGISTER(DPA::THREAD);

#define AFF_MAGIC 0x6575616666696e31ULL	   /* "euaffin1" */
#define AFF_OWNED_MAGIC 0x6575616666696e32ULL /* a thread's own copy: readable, not destroyable */
#define THREAD_MAGIC 0x6470617468726431ULL /* "dpathrd1" */
#define NOTIFY_MAGIC 0x6e6f74696679636fULL /* "notifyco" */
#define NOTIFY_TAG 0x7c00000000000000ULL
#define NOTIFY_SLOTS 4096u
/* A device notify holds its slot for a few instructions; this only bounds a pathology. */
#define NOTIFY_UNPUBLISH_WAIT_MS 2000u
/* How long destroy/stop wait for a run in progress before returning TIME_OUT. */
#define THREAD_STOP_WAIT_MS 2000u

struct doca_dpa_eu_affinity {
	uint64_t magic;
	struct doca_dpa *dpa;
	bool set;
	unsigned int eu;
};

enum thread_state {
	THREAD_CREATED,
	THREAD_STARTED,
};

/*
 * doca_dpa_thread.stop: a handshake between stop/destroy and the host thread, so that a
 * stop that times out can take its request back without the thread having left on it.
 */
enum thread_halt {
	HALT_NONE = 0,	  /* running (or idle) */
	HALT_ASKED = 1,	  /* stop/destroy waits; device waits of the run end (dpa_dev_cancelled) */
	HALT_LEAVING = 2, /* the host thread took the request and exits */
};

struct doca_dpa_thread {
	uint64_t magic;
	struct doca_dpa *dpa;
	uint32_t id;
	enum thread_state state;
	doca_dpa_func_t *func;
	const struct dpa_image_entry *entry;
	uint64_t arg;
	uint64_t local_storage;
	struct doca_dpa_eu_affinity affinity; /* returned by get_affinity */
	struct doca_dpa_notification_completion *notify;
	/* shared with the host thread that runs it */
	pthread_t tid;
	atomic_bool runnable, finished, exited;
	atomic_int stop; /* enum thread_halt */
	atomic_uint triggers;
	struct dpa_wake wake; /* the host thread sleeps here; stop/destroy wait here for it */
	void *altstack;
	struct dpa_exec exec;
};

struct doca_dpa_notification_completion {
	uint64_t magic;
	struct doca_dpa *dpa;
	struct doca_dpa_thread *thread;
	bool has_slot; /* started: published in notify_htab */
	uint32_t slot;
	uint64_t handle;
};

DPA_HTAB_DEFINE(notify_htab, NOTIFY_TAG, NOTIFY_SLOTS);
static atomic_uint next_thread_id;

#define CHECK_OBJ(obj, magic_value, what)                                                                    \
	do {                                                                                                 \
		if ((obj) == NULL || (obj)->magic != (magic_value)) {                                        \
			CORE_LOG_ERR("%s: %s is %s", __func__, #obj, (obj) == NULL ? "NULL" : "not a " what); \
			return DOCA_ERROR_INVALID_VALUE;                                                     \
		}                                                                                            \
	} while (0)

/* ------------------------------------------------------------ EU affinity */

doca_error_t doca_dpa_eu_affinity_create(struct doca_dpa *dpa, struct doca_dpa_eu_affinity **affinity)
{
	DPA_CHECK_NULL(affinity);
	doca_error_t r = dpa_check(dpa, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	dpa = dpa_base(dpa); /* an extended context's threads run on its base */
	struct doca_dpa_eu_affinity *a = core_calloc(1, sizeof(*a));

	if (a == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	a->magic = AFF_MAGIC;
	a->dpa = dpa;
	atomic_fetch_add(&dpa->thread_users, 1);
	*affinity = a;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_eu_affinity_destroy(struct doca_dpa_eu_affinity *affinity)
{
	CHECK_OBJ(affinity, AFF_MAGIC, "doca_dpa_eu_affinity (or one owned by a thread)");
	atomic_fetch_sub(&affinity->dpa->thread_users, 1);
	affinity->magic = 0;
	free(affinity);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_eu_affinity_set(struct doca_dpa_eu_affinity *affinity, unsigned int eu_id)
{
	CHECK_OBJ(affinity, AFF_MAGIC, "doca_dpa_eu_affinity");
	if (eu_id >= affinity->dpa->total_eus) {
		CORE_LOG_ERR("%s: EU %u does not exist (DPA context %u has EUs 0..%u)", __func__, eu_id,
			     affinity->dpa->id, affinity->dpa->total_eus - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	affinity->set = true;
	affinity->eu = eu_id;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_eu_affinity_clear(struct doca_dpa_eu_affinity *affinity)
{
	CHECK_OBJ(affinity, AFF_MAGIC, "doca_dpa_eu_affinity");
	affinity->set = false;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_eu_affinity_get(struct doca_dpa_eu_affinity *affinity, unsigned int *eu_id)
{
	if (affinity == NULL || (affinity->magic != AFF_MAGIC && affinity->magic != AFF_OWNED_MAGIC)) {
		CORE_LOG_ERR("%s: affinity is %s", __func__, affinity == NULL ? "NULL" : "not a doca_dpa_eu_affinity");
		return DOCA_ERROR_INVALID_VALUE;
	}
	DPA_CHECK_NULL(eu_id);
	if (!affinity->set) {
		CORE_LOG_ERR("%s: no EU is set in this affinity", __func__);
		return DOCA_ERROR_NOT_FOUND;
	}
	*eu_id = affinity->eu;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------ the host thread of a DPA thread */

/* Pack the one uint64_t a thread entry takes through the entry's own packer. */
static void pack_thread_arg(const struct dpa_image_entry *e, void *buf, ...)
{
	va_list ap;

	va_start(ap, buf);
	e->pack(buf, &ap);
	va_end(ap);
}

static void *thread_main(void *arg)
{
	struct doca_dpa_thread *t = arg;
	struct doca_dpa *dpa = t->dpa;
	stack_t ss = {.ss_sp = t->altstack, .ss_size = DPA_ALTSTACK_SIZE, .ss_flags = 0};
	/* Arguments are packed once: func and arg cannot change while started. */
	_Alignas(DPA_ARGS_ALIGN_MAX) unsigned char args[DPA_ARGS_MAX];

	sigaltstack(&ss, NULL);
	char unit[16];

	snprintf(unit, sizeof(unit), "t%u", t->id);
	dpa_name_thread(dpa, t->entry->name, unit);
	if (t->entry->nparams == 1)
		pack_thread_arg(t->entry, args, t->arg);
	t->exec.dpa = dpa;
	t->exec.entry = t->entry;
	t->exec.rank = 0;
	t->exec.num_threads = 1;
	t->exec.local_storage = t->local_storage;
	t->exec.stop = &t->stop;
	for (;;) {
		struct dpa_wake_snap snap = dpa_wake_snapshot(&t->wake);

		if (atomic_load(&t->stop) != HALT_NONE) {
			int asked = HALT_ASKED;

			/* Leave only on a request still standing: a stop that timed out may
			 * have taken it back (thread_halt). */
			if (atomic_compare_exchange_strong(&t->stop, &asked, HALT_LEAVING))
				break;
			continue;
		}
		if (!atomic_load(&t->runnable) || atomic_load(&t->finished) || atomic_load(&t->triggers) == 0) {
			dpa_wake_wait(&t->wake, snap, 0);
			continue;
		}
		atomic_store(&t->triggers, 0); /* pending triggers merge into this run */
		uint64_t t0 = core_trace_enabled() ? dpa_now_us() : 0, ret;
		enum dpa_end end = dpa_exec_run(&t->exec, args, &ret);

		if (t0) {
			char targs[80];

			snprintf(targs, sizeof(targs), "{\"thread\":%u,\"ctx\":%u}", t->id, dpa->id);
			core_trace_complete(dpa->caps->index + 1, "dpa", t->entry->name, t0, dpa_now_us() - t0, targs);
		}
		if (end == DPA_END_FAULT || end == DPA_END_FATAL) {
			dpa_exec_report_end(&t->exec, end);
			atomic_store(&t->finished, true);
		} else if (end == DPA_END_FINISH) {
			atomic_store(&t->finished, true);
		}
		dpa_wake(&t->wake); /* stop/destroy may wait for the run to end */
	}
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	atomic_store(&t->exited, true);
	dpa_wake(&t->wake); /* t outlives this: the stopper joins us before freeing it */
	return NULL;
}

/*
 * Stop the host thread. false when a run did not end in time: the request is taken
 * back, so the thread carries on as before (it stays started, later triggers run it,
 * its device waits do not end at once) and may be stopped or destroyed again.
 */
static bool thread_halt(struct doca_dpa_thread *t, const char *func)
{
	uint64_t deadline = dpa_now_us() + THREAD_STOP_WAIT_MS * 1000ull;

	atomic_store(&t->stop, HALT_ASKED);
	dpa_wake_all(); /* the host thread, and device waits in its run wherever they sleep */
	while (!atomic_load(&t->exited)) {
		struct dpa_wake_snap snap = dpa_wake_snapshot(&t->wake);

		if (atomic_load(&t->exited))
			break;
		if (dpa_now_us() >= deadline) {
			int asked = HALT_ASKED;

			/* Not taken by the thread yet: take it back. Taken: it is leaving now. */
			if (atomic_compare_exchange_strong(&t->stop, &asked, HALT_NONE)) {
				dpa_wake(&t->wake);
				CORE_LOG_ERR("%s: DPA thread %u (%s) of context %u is still in a run after %u ms (a "
					     "loop that never calls the device API cannot be interrupted); not "
					     "stopped, try again later",
					     func, t->id, t->entry->name, t->dpa->id, THREAD_STOP_WAIT_MS);
				return false;
			}
			deadline = UINT64_MAX;
		}
		dpa_wake_wait(&t->wake, snap, 10000);
	}
	pthread_join(t->tid, NULL);
	free(t->altstack);
	t->altstack = NULL;
	return true;
}

/* ------------------------------------------------------------ DPA threads */

doca_error_t doca_dpa_thread_create(struct doca_dpa *dpa, struct doca_dpa_thread **dpa_thread)
{
	DPA_CHECK_NULL(dpa_thread);
	doca_error_t r = dpa_check(dpa, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	dpa = dpa_base(dpa);
	struct doca_dpa_thread *t = core_calloc(1, sizeof(*t));

	if (t == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	t->magic = THREAD_MAGIC;
	t->dpa = dpa;
	t->id = atomic_fetch_add(&next_thread_id, 1) + 1;
	t->affinity.magic = AFF_OWNED_MAGIC; /* owned by the thread: destroy refuses it */
	t->affinity.dpa = dpa;
	atomic_fetch_add(&dpa->thread_users, 1);
	*dpa_thread = t;
	CORE_LOG_TRC("%s: DPA thread %u on DPA context %u", __func__, t->id, dpa->id);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_destroy(struct doca_dpa_thread *dpa_thread)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	if (dpa_thread->notify) {
		CORE_LOG_ERR("%s: DPA thread %u still has a notification completion; destroy it first", __func__,
			     dpa_thread->id);
		return DOCA_ERROR_IN_USE;
	}
	struct doca_dpa *dpa = dpa_thread->dpa;

	if (dpa_thread->state == THREAD_STARTED && !thread_halt(dpa_thread, __func__))
		return DOCA_ERROR_TIME_OUT; /* still valid: it may be destroyed again */
	dpa_thread->magic = 0;
	atomic_fetch_sub(&dpa->thread_users, 1);
	CORE_LOG_TRC("%s: DPA thread %u", __func__, dpa_thread->id);
	free(dpa_thread);
	return DOCA_SUCCESS;
}

static doca_error_t thread_config_check(struct doca_dpa_thread *t, const char *func)
{
	if (t->state == THREAD_STARTED) {
		CORE_LOG_ERR("%s: DPA thread %u is started; configure it before doca_dpa_thread_start", func, t->id);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_set_func_arg(struct doca_dpa_thread *dpa_thread, doca_dpa_func_t *func, uint64_t arg)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	DPA_CHECK_NULL(func);
	doca_error_t r = thread_config_check(dpa_thread, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	struct doca_dpa *dpa = dpa_thread->dpa;

	if (dpa->app == NULL) {
		CORE_LOG_ERR("%s: DPA context %u has no application (call doca_dpa_set_app first)", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	const struct dpa_image_entry *e = dpa_find_entry(dpa, func);

	if (e == NULL || e->kind != DPA_ENTRY_KERNEL || e->nparams > 1) {
		CORE_LOG_ERR("%s: %s", __func__,
			     e == NULL		       ? "func is not a kernel of the context's app"
			     : e->kind != DPA_ENTRY_KERNEL ? "func is an RPC; a DPA thread runs a __dpa_global__ kernel"
							   : "a DPA thread's kernel takes one uint64_t argument or none");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (e->nparams == 1 && e->args_size > sizeof(uint64_t)) {
		/* thread_main packs arg, a uint64_t, through the kernel's own packer. */
		CORE_LOG_ERR("%s: kernel %s takes a %u-byte parameter; a DPA thread's kernel takes one uint64_t "
			     "argument (or none), which gets arg",
			     __func__, e->name, e->args_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	dpa_thread->func = func;
	dpa_thread->entry = e;
	dpa_thread->arg = arg;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_get_func_arg(struct doca_dpa_thread *dpa_thread, doca_dpa_func_t **func, uint64_t *arg)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	DPA_CHECK_NULL(func);
	DPA_CHECK_NULL(arg);
	if (dpa_thread->func == NULL) {
		CORE_LOG_ERR("%s: DPA thread %u has no function set", __func__, dpa_thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	*func = dpa_thread->func;
	*arg = dpa_thread->arg;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_set_local_storage(struct doca_dpa_thread *dpa_thread, doca_dpa_dev_uintptr_t dev_ptr)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	doca_error_t r = thread_config_check(dpa_thread, __func__);

	if (r == DOCA_SUCCESS)
		dpa_thread->local_storage = dev_ptr;
	return r;
}

doca_error_t doca_dpa_thread_get_local_storage(struct doca_dpa_thread *dpa_thread, doca_dpa_dev_uintptr_t *dev_ptr)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	DPA_CHECK_NULL(dev_ptr);
	*dev_ptr = dpa_thread->local_storage;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_set_affinity(struct doca_dpa_thread *dpa_thread,
					  const struct doca_dpa_eu_affinity *affinity)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	CHECK_OBJ(affinity, AFF_MAGIC, "doca_dpa_eu_affinity");
	doca_error_t r = thread_config_check(dpa_thread, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	if (affinity->dpa != dpa_thread->dpa) {
		CORE_LOG_ERR("%s: the affinity belongs to DPA context %u, the thread to %u", __func__,
			     affinity->dpa->id, dpa_thread->dpa->id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	dpa_thread->affinity.set = affinity->set;
	dpa_thread->affinity.eu = affinity->eu;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_get_affinity(struct doca_dpa_thread *dpa_thread,
					  const struct doca_dpa_eu_affinity **affinity)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	DPA_CHECK_NULL(affinity);
	if (!dpa_thread->affinity.set) {
		CORE_LOG_ERR("%s: DPA thread %u has no affinity (it may run on any EU)", __func__, dpa_thread->id);
		return DOCA_ERROR_NOT_FOUND;
	}
	*affinity = &dpa_thread->affinity;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_start(struct doca_dpa_thread *dpa_thread)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	doca_error_t r = thread_config_check(dpa_thread, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	if (dpa_thread->func == NULL) {
		CORE_LOG_ERR("%s: DPA thread %u has no function (call doca_dpa_thread_set_func_arg first)", __func__,
			     dpa_thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (dpa_thread->dpa->state != DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is not started", __func__, dpa_thread->dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	dpa_thread->altstack = core_malloc(DPA_ALTSTACK_SIZE);
	if (dpa_thread->altstack == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	atomic_store(&dpa_thread->stop, HALT_NONE);
	atomic_store(&dpa_thread->exited, false);
	atomic_store(&dpa_thread->finished, false);
	atomic_store(&dpa_thread->runnable, false);
	atomic_store(&dpa_thread->triggers, 0);
	int rc = pthread_create(&dpa_thread->tid, NULL, thread_main, dpa_thread);

	if (rc != 0) {
		CORE_LOG_ERR("%s: cannot create the host thread of DPA thread %u: %s", __func__, dpa_thread->id,
			     strerror(rc));
		free(dpa_thread->altstack);
		dpa_thread->altstack = NULL;
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	dpa_thread->state = THREAD_STARTED;
	CORE_LOG_TRC("%s: DPA thread %u runs %s", __func__, dpa_thread->id, dpa_thread->entry->name);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_stop(struct doca_dpa_thread *dpa_thread)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	if (dpa_thread->state != THREAD_STARTED) {
		CORE_LOG_ERR("%s: DPA thread %u is not started", __func__, dpa_thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!thread_halt(dpa_thread, __func__))
		return DOCA_ERROR_TIME_OUT;
	dpa_thread->state = THREAD_CREATED;
	CORE_LOG_TRC("%s: DPA thread %u", __func__, dpa_thread->id);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_run(struct doca_dpa_thread *dpa_thread)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	if (dpa_thread->state != THREAD_STARTED) {
		CORE_LOG_ERR("%s: DPA thread %u is not started (call doca_dpa_thread_start first)", __func__,
			     dpa_thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	atomic_store(&dpa_thread->runnable, true);
	dpa_wake(&dpa_thread->wake);
	CORE_LOG_TRC("%s: DPA thread %u", __func__, dpa_thread->id);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_get_id(struct doca_dpa_thread *dpa_thread, uint32_t *dpa_thread_id)
{
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	DPA_CHECK_NULL(dpa_thread_id);
	*dpa_thread_id = dpa_thread->id;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------ notification completions */

doca_error_t doca_dpa_notification_completion_create(struct doca_dpa *dpa, struct doca_dpa_thread *dpa_thread,
						     struct doca_dpa_notification_completion **notify_comp)
{
	DPA_CHECK_NULL(notify_comp);
	doca_error_t r = dpa_check(dpa, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	CHECK_OBJ(dpa_thread, THREAD_MAGIC, "doca_dpa_thread");
	dpa = dpa_base(dpa);
	if (dpa_thread->dpa != dpa) {
		CORE_LOG_ERR("%s: DPA thread %u belongs to DPA context %u, not %u", __func__, dpa_thread->id,
			     dpa_thread->dpa->id, dpa->id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (dpa_thread->notify) {
		CORE_LOG_ERR("%s: DPA thread %u already has a notification completion", __func__, dpa_thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	struct doca_dpa_notification_completion *n = core_calloc(1, sizeof(*n));

	if (n == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	n->magic = NOTIFY_MAGIC;
	n->dpa = dpa;
	n->thread = dpa_thread;
	dpa_thread->notify = n;
	atomic_fetch_add(&dpa->thread_users, 1);
	*notify_comp = n;
	CORE_LOG_TRC("%s: for DPA thread %u", __func__, dpa_thread->id);
	return DOCA_SUCCESS;
}

/* false (logged; n still published) when a device notify did not leave its slot in time. */
static bool notify_unpublish(struct doca_dpa_notification_completion *n, const char *func)
{
	if (!n->has_slot)
		return true;
	/* A device notify that already found it finishes before the thread can go. */
	if (!dpa_htab_unpublish(&notify_htab, n->slot, NOTIFY_UNPUBLISH_WAIT_MS)) {
		CORE_LOG_ERR("%s: the notification completion of DPA thread %u is still used by a device call after "
			     "%u ms; try again later",
			     func, n->thread->id, NOTIFY_UNPUBLISH_WAIT_MS);
		return false;
	}
	n->has_slot = false;
	return true;
}

doca_error_t doca_dpa_notification_completion_destroy(struct doca_dpa_notification_completion *notify_comp)
{
	CHECK_OBJ(notify_comp, NOTIFY_MAGIC, "doca_dpa_notification_completion");
	if (!notify_unpublish(notify_comp, __func__))
		return DOCA_ERROR_TIME_OUT;
	CORE_LOG_TRC("%s: of DPA thread %u", __func__, notify_comp->thread->id);
	notify_comp->thread->notify = NULL;
	atomic_fetch_sub(&notify_comp->dpa->thread_users, 1);
	notify_comp->magic = 0;
	free(notify_comp);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_get_thread(struct doca_dpa_notification_completion *notify_comp,
							 struct doca_dpa_thread **dpa_thread)
{
	CHECK_OBJ(notify_comp, NOTIFY_MAGIC, "doca_dpa_notification_completion");
	DPA_CHECK_NULL(dpa_thread);
	*dpa_thread = notify_comp->thread;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_start(struct doca_dpa_notification_completion *notify_comp)
{
	CHECK_OBJ(notify_comp, NOTIFY_MAGIC, "doca_dpa_notification_completion");
	if (notify_comp->has_slot) {
		CORE_LOG_ERR("%s: the notification completion of DPA thread %u is already started", __func__,
			     notify_comp->thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (notify_comp->thread->state != THREAD_STARTED) {
		CORE_LOG_ERR("%s: DPA thread %u is not started (call doca_dpa_thread_start first)", __func__,
			     notify_comp->thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	notify_comp->has_slot = dpa_htab_publish(&notify_htab, notify_comp, &notify_comp->slot, &notify_comp->handle);
	if (!notify_comp->has_slot) {
		CORE_LOG_ERR("%s: %u notification completions are already started", __func__, NOTIFY_SLOTS);
		return DOCA_ERROR_FULL;
	}
	CORE_LOG_TRC("%s: of DPA thread %u", __func__, notify_comp->thread->id);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_stop(struct doca_dpa_notification_completion *notify_comp)
{
	CHECK_OBJ(notify_comp, NOTIFY_MAGIC, "doca_dpa_notification_completion");
	if (!notify_comp->has_slot) {
		CORE_LOG_ERR("%s: the notification completion of DPA thread %u is not started", __func__,
			     notify_comp->thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!notify_unpublish(notify_comp, __func__))
		return DOCA_ERROR_TIME_OUT;
	CORE_LOG_TRC("%s: of DPA thread %u", __func__, notify_comp->thread->id);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_get_dpa_handle(struct doca_dpa_notification_completion *notify_comp,
							     doca_dpa_dev_notification_completion_t *handle)
{
	CHECK_OBJ(notify_comp, NOTIFY_MAGIC, "doca_dpa_notification_completion");
	DPA_CHECK_NULL(handle);
	if (!notify_comp->has_slot) {
		CORE_LOG_ERR("%s: the notification completion of DPA thread %u is not started", __func__,
			     notify_comp->thread->id);
		return DOCA_ERROR_BAD_STATE;
	}
	*handle = notify_comp->handle;
	return DOCA_SUCCESS;
}

void doca_dpa_dev_thread_notify(doca_dpa_dev_notification_completion_t comp_handle)
{
	uint32_t slot;
	struct doca_dpa_notification_completion *n = dpa_htab_get(&notify_htab, comp_handle, &slot);

	if (n == NULL) {
		dpa_dev_fatal("doca_dpa_dev_thread_notify: 0x%" PRIx64 " is not the handle of a started notification "
			      "completion",
			      comp_handle);
		return;
	}
	/* Woken while the slot is held: the thread cannot be destroyed before the put. */
	atomic_fetch_add(&n->thread->triggers, 1);
	dpa_wake(&n->thread->wake);
	dpa_htab_put(&notify_htab, slot);
}
