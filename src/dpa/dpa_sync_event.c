/*
 * dpa_sync_event.c - DOCA sync events for host and device code.
 *
 * An event is one 64-bit atomic (inside the event, or user memory via set_addr). Waiters
 * spin briefly, then sleep on the event's own wake word (dpa_wake.c), so an update wakes
 * only the threads waiting for this event, and enters the kernel only when one sleeps.
 * While a launch not yet started waits for the event, its updates also wake the launch
 * dispatchers (gates).
 *
 * Device handles index a handle table (dpa_handle.c), so a stale or forged handle is
 * detected and reported instead of being dereferenced. Launches that name an event hold
 * it (launch_refs): destroying it under them is refused rather than freeing memory the
 * dispatcher or a DPA thread is about to read or write.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_dpa_dev_sync_event.h>

#include "dpa/dpa_internal.h"

DOCA_LOG_REGISTER(DPA::SYNC_EVENT);

#define SE_MAGIC 0x73796e635f657674ULL /* "sync_evt" */
#define SE_HANDLE_TAG 0x5e00000000000000ULL
#define SE_SLOTS 65536u
/* How long destroy waits for device calls using the event (they leave at once normally). */
#define SE_DESTROY_WAIT_MS 2000u
#define SE_MAX_DPAS 8u
struct doca_sync_event {
	uint64_t magic;
	uint32_t id;
	atomic_bool started; /* read by device threads while the host may stop the event */
	_Atomic uint64_t own_value;
	_Atomic uint64_t *value; /* &own_value or the set_addr memory (fixed once used, see set_addr) */
	struct doca_dpa *dpas[SE_MAX_DPAS];
	unsigned int ndpas;
	bool has_slot; /* exported (under se_export_lock) */
	uint32_t slot;
	uint64_t handle;
	atomic_bool destroyed;	/* device waiters give up */
	/* Launches naming it as wait or completion event (low 32 bits), and how many of
	 * those are signalling it right now (high 32 bits): one word, so that destroy sees
	 * both in one load. */
	_Atomic uint64_t launch_refs;
	atomic_uint gates;   /* of those, launches not started that wait for it */
	struct dpa_wake wake; /* its waiters sleep here */
	struct dpa_spin spin; /* and spin this long first */
};

DPA_HTAB_DEFINE(se_htab, SE_HANDLE_TAG, SE_SLOTS);
static pthread_mutex_t se_export_lock = PTHREAD_MUTEX_INITIALIZER; /* first get_dpa_handle of an event */
static atomic_uint se_next_id;

/* ------------------------------------------------------------ helpers */

static bool se_valid(const struct doca_sync_event *event)
{
	return event != NULL && event->magic == SE_MAGIC;
}

static doca_error_t se_check(const struct doca_sync_event *event, const char *func, bool need_started)
{
	if (!se_valid(event)) {
		CORE_LOG_ERR("%s: event is %s", func, event == NULL ? "NULL" : "not a doca_sync_event");
		return DOCA_ERROR_INVALID_VALUE;
	}
	bool started = atomic_load(&event->started);

	if (need_started && !started) {
		CORE_LOG_ERR("%s: sync event %u is not started (call doca_sync_event_start first)", func, event->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!need_started && started) {
		CORE_LOG_ERR("%s: sync event %u is started; configure it before doca_sync_event_start", func,
			     event->id);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

bool dpa_sync_event_usable(const struct doca_sync_event *event)
{
	return se_valid(event) && atomic_load(&event->started);
}

uint64_t dpa_sync_event_value(const struct doca_sync_event *event)
{
	return atomic_load_explicit(event->value, memory_order_acquire);
}

/* The value changed: its waiters, and the dispatchers if a queued launch waits for it. */
static void se_changed(struct doca_sync_event *event)
{
	dpa_wake(&event->wake);
	if (atomic_load(&event->gates) != 0)
		dpa_wake(&dpa_dispatch_wake);
}

void dpa_sync_event_complete(struct doca_sync_event *event, bool add, uint64_t value)
{
	if (add)
		atomic_fetch_add(event->value, value);
	else
		atomic_store(event->value, value);
	se_changed(event);
}

#define SE_REF_SIGNALLING (1ull << 32)
#define SE_REF_MASK 0xffffffffull

void dpa_sync_event_launch_ref(struct doca_sync_event *event, bool wait)
{
	if (event == NULL)
		return;
	/* Gate first: an update after the launch's eligibility check sees it (se_changed). */
	if (wait)
		atomic_fetch_add(&event->gates, 1);
	atomic_fetch_add(&event->launch_refs, 1);
}

void dpa_sync_event_launch_unref(struct doca_sync_event *event, bool wait)
{
	if (event == NULL)
		return;
	if (wait)
		atomic_fetch_sub(&event->gates, 1);
	atomic_fetch_sub(&event->launch_refs, 1);
}

void dpa_sync_event_launch_signal(struct doca_sync_event *event, bool add, uint64_t value)
{
	/* A host waiting for this value destroys the event as soon as it sees it: marked
	 * as signalling first, so that destroy waits for the drop below instead of
	 * refusing, and the drop (ref and mark in one operation) is the last touch. */
	atomic_fetch_add(&event->launch_refs, SE_REF_SIGNALLING);
	dpa_sync_event_complete(event, add, value);
	atomic_fetch_sub(&event->launch_refs, SE_REF_SIGNALLING + 1);
}

/*
 * Launches holding the event, once those that are only signalling it have let go: they
 * end within a few instructions, and a host that saw the value they set may act at once.
 */
static unsigned int se_launch_refs(struct doca_sync_event *event)
{
	uint64_t w = atomic_load(&event->launch_refs);

	while ((w & SE_REF_MASK) != 0 && (w & SE_REF_MASK) <= (w >> 32)) {
		sched_yield();
		w = atomic_load(&event->launch_refs);
	}
	return (unsigned int)(w & SE_REF_MASK);
}

/* ------------------------------------------------------------ lifecycle */

doca_error_t doca_sync_event_create(struct doca_sync_event **event)
{
	DPA_CHECK_NULL(event);
	struct doca_sync_event *e = core_calloc(1, sizeof(*e));

	if (e == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	e->magic = SE_MAGIC;
	e->id = atomic_fetch_add(&se_next_id, 1) + 1;
	e->value = &e->own_value;
	*event = e;
	CORE_LOG_TRC("sync event %u created", e->id);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_destroy(struct doca_sync_event *event)
{
	if (!se_valid(event)) {
		CORE_LOG_ERR("%s: event is %s", __func__, event == NULL ? "NULL" : "not a doca_sync_event");
		return DOCA_ERROR_INVALID_VALUE;
	}
	unsigned int refs = se_launch_refs(event);

	if (refs) {
		/* The dispatcher reads a wait event, a DPA thread writes a completion event. */
		CORE_LOG_ERR("%s: sync event %u is the wait or completion event of %u kernel launch(es) not yet "
			     "complete; wait for them (or destroy the DPA context) first",
			     __func__, event->id, refs);
		return DOCA_ERROR_IN_USE;
	}
	if (event->has_slot) {
		/* Unpublish, then let device calls still using the event (a kernel blocked in
		 * wait_gt on it) see `destroyed` and leave before the memory goes. */
		atomic_store(&event->destroyed, true);
		if (!dpa_htab_unpublish(&se_htab, event->slot, SE_DESTROY_WAIT_MS)) {
			/* unpublish restored the slot: the handles given out are valid again */
			atomic_store(&event->destroyed, false);
			CORE_LOG_ERR("%s: sync event %u is still used by a device call after %u ms; not destroyed "
				     "(try again later)",
				     __func__, event->id, SE_DESTROY_WAIT_MS);
			return DOCA_ERROR_TIME_OUT;
		}
	}
	for (unsigned int i = 0; i < event->ndpas; i++)
		atomic_fetch_sub(&event->dpas[i]->users, 1);
	CORE_LOG_TRC("sync event %u destroyed", event->id);
	event->magic = 0;
	free(event);
	return DOCA_SUCCESS;
}

/* Locations are hints (any side may update or wait): only checked, the CPU ones not recorded. */
static doca_error_t se_add_cpu(struct doca_sync_event *event, struct doca_dev *dev, const char *func)
{
	doca_error_t r = se_check(event, func, false);

	if (r != DOCA_SUCCESS)
		return r;
	if (core_dev_caps(dev) == NULL) {
		CORE_LOG_ERR("%s: dev is %s", func, dev == NULL ? "NULL" : "not an open doca_dev");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* A DPA location names (and holds) the context: get_dpa_handle needs one on its dpa. */
static doca_error_t se_add_dpa(struct doca_sync_event *event, struct doca_dpa *dpa, const char *func)
{
	doca_error_t r = se_check(event, func, false);

	if (r != DOCA_SUCCESS)
		return r;
	r = dpa_check(dpa, func);
	if (r != DOCA_SUCCESS)
		return r;
	bool known = false;

	for (unsigned int i = 0; i < event->ndpas; i++)
		known |= event->dpas[i] == dpa;
	if (!known) {
		if (event->ndpas == SE_MAX_DPAS) {
			CORE_LOG_ERR("%s: sync event %u already names %u DPA contexts", func, event->id, SE_MAX_DPAS);
			return DOCA_ERROR_FULL;
		}
		event->dpas[event->ndpas++] = dpa;
		atomic_fetch_add(&dpa->users, 1);
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return se_add_cpu(event, dev, __func__);
}

doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return se_add_cpu(event, dev, __func__);
}

doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	return se_add_dpa(event, dpa, __func__);
}

doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	return se_add_dpa(event, dpa, __func__);
}

doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event)
{
	doca_error_t r = se_check(event, __func__, false);

	if (r != DOCA_SUCCESS)
		return r;
	CORE_LOG_ERR("%s: remote-net sync events are not emulated (flowdpa has no remote host)", __func__);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr)
{
	doca_error_t r = se_check(event, __func__, false);

	if (r != DOCA_SUCCESS)
		return r;
	if (addr == NULL || ((uintptr_t)addr & 7u) != 0) {
		CORE_LOG_ERR("%s: addr %p is %s", __func__, (void *)addr, addr == NULL ? "NULL" : "not 8-byte aligned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* A stopped event may still be read by the dispatcher (a queued launch waits on it),
	 * written by a DPA thread (a running launch completes it) or reached by device code
	 * through its handle: moving the value under them would be a data race or a use of
	 * memory the caller may free. Under the export lock: get_dpa_handle publishes there. */
	pthread_mutex_lock(&se_export_lock);
	unsigned int refs = se_launch_refs(event);
	bool exported = event->has_slot;

	if (refs == 0 && !exported)
		event->value = (_Atomic uint64_t *)addr;
	pthread_mutex_unlock(&se_export_lock);
	if (refs) {
		CORE_LOG_ERR("%s: sync event %u is the wait or completion event of %u kernel launch(es) not yet "
			     "complete; set the address before launching with it",
			     __func__, event->id, refs);
		return DOCA_ERROR_BAD_STATE;
	}
	if (exported) {
		CORE_LOG_ERR("%s: sync event %u has a DPA handle (doca_sync_event_get_dpa_handle); set the address "
			     "before exporting it",
			     __func__, event->id);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_start(struct doca_sync_event *event)
{
	doca_error_t r = se_check(event, __func__, false);

	if (r != DOCA_SUCCESS)
		return r;
	atomic_store(&event->started, true);
	CORE_LOG_TRC("sync event %u started", event->id);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_stop(struct doca_sync_event *event)
{
	doca_error_t r = se_check(event, __func__, true);

	if (r != DOCA_SUCCESS)
		return r;
	atomic_store(&event->started, false);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------ value operations */

doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value)
{
	doca_error_t r = se_check(event, __func__, true);

	if (r != DOCA_SUCCESS)
		return r;
	DPA_CHECK_NULL(value);
	*value = atomic_load_explicit(event->value, memory_order_acquire);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value, uint64_t *fetched)
{
	doca_error_t r = se_check(event, __func__, true);

	if (r != DOCA_SUCCESS)
		return r;
	uint64_t prev = atomic_fetch_add(event->value, value);

	se_changed(event);
	if (fetched)
		*fetched = prev;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value)
{
	doca_error_t r = se_check(event, __func__, true);

	if (r != DOCA_SUCCESS)
		return r;
	atomic_store(event->value, value);
	se_changed(event);
	return DOCA_SUCCESS;
}

enum se_cmp { SE_GT, SE_EQ, SE_NEQ };

static inline bool se_done(const struct doca_sync_event *event, enum se_cmp cmp, uint64_t value, uint64_t mask)
{
	uint64_t v = atomic_load_explicit(event->value, memory_order_acquire) & mask;

	return cmp == SE_GT ? v > value : cmp == SE_EQ ? v == value : v != value;
}

enum se_wait_end { SE_WAIT_DONE, SE_WAIT_CANCEL, SE_WAIT_DESTROYED };

struct se_cond {
	const struct doca_sync_event *event;
	enum se_cmp cmp;
	uint64_t value, mask;
};

static bool se_cond_done(const void *arg)
{
	const struct se_cond *c = arg;

	return se_done(c->event, c->cmp, c->value, c->mask);
}

/*
 * Blocks without allocating: spin as the event's record allows (dpa_spin), then sleep on its
 * wake word (or yield). A device wait also ends when its context is being destroyed or
 * the event is. An event whose value lives at a set_addr address may change by a plain
 * store that wakes nobody, so its sleeps are bounded by the dispatcher's poll period.
 */
static enum se_wait_end se_wait(struct doca_sync_event *event, enum se_cmp cmp, uint64_t value, uint64_t mask,
				bool yield, bool device)
{
	if (se_done(event, cmp, value, mask))
		return SE_WAIT_DONE;
	struct se_cond c = {event, cmp, value, mask};

	if (dpa_spin(&event->spin, se_cond_done, &c))
		return SE_WAIT_DONE;
	uint64_t sleep_us = event->value == &event->own_value ? 0 : DPA_DISPATCH_POLL_US;

	for (;;) {
		if (device && atomic_load(&event->destroyed))
			return SE_WAIT_DESTROYED;
		if (device && dpa_dev_cancelled())
			return SE_WAIT_CANCEL;
		struct dpa_wake_snap snap = dpa_wake_snapshot(&event->wake);

		if (se_done(event, cmp, value, mask))
			return SE_WAIT_DONE;
		/* Destroy and cancel reach this sleep through dpa_wake_all. */
		if (device && (atomic_load(&event->destroyed) || dpa_dev_cancelled()))
			continue;
		if (yield)
			sched_yield();
		else
			dpa_wake_wait(&event->wake, snap, sleep_us);
	}
}

static doca_error_t se_wait_api(struct doca_sync_event *event, enum se_cmp cmp, uint64_t value, uint64_t mask,
				bool yield, const char *func)
{
	doca_error_t r = se_check(event, func, true);

	if (r != DOCA_SUCCESS)
		return r;
	se_wait(event, cmp, value, mask, yield, false);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait_api(event, SE_GT, value, mask, false, __func__);
}

doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait_api(event, SE_GT, value, mask, true, __func__);
}

doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait_api(event, SE_EQ, value, mask, false, __func__);
}

doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait_api(event, SE_EQ, value, mask, true, __func__);
}

doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait_api(event, SE_NEQ, value, mask, false, __func__);
}

doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait_api(event, SE_NEQ, value, mask, true, __func__);
}

/* ------------------------------------------------------------ DPA export */

doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo)
{
	return dpa_devinfo_check(devinfo, __func__);
}

doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
					    doca_dpa_dev_sync_event_t *dpa_dev_se_handle)
{
	doca_error_t r = se_check(event, __func__, true);

	if (r != DOCA_SUCCESS)
		return r;
	DPA_CHECK_NULL(dpa_dev_se_handle);
	r = dpa_check(dpa, __func__);
	if (r != DOCA_SUCCESS)
		return r;
	bool named = false;

	for (unsigned int i = 0; i < event->ndpas; i++)
		named |= event->dpas[i] == dpa;
	if (!named) {
		CORE_LOG_ERR("%s: sync event %u has no DPA location on DPA context %u "
			     "(add_publisher/subscriber_location_dpa before start)",
			     __func__, event->id, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	pthread_mutex_lock(&se_export_lock);
	if (!event->has_slot)
		event->has_slot = dpa_htab_publish(&se_htab, event, &event->slot, &event->handle);
	bool exported = event->has_slot;

	pthread_mutex_unlock(&se_export_lock);
	if (!exported) {
		CORE_LOG_ERR("%s: %u sync events already exported to the DPA", __func__, SE_SLOTS);
		return DOCA_ERROR_FULL;
	}
	*dpa_dev_se_handle = event->handle;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data, size_t *sz)
{
	if (!se_valid(event) || data == NULL || sz == NULL) {
		CORE_LOG_ERR("%s: NULL or invalid argument", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	CORE_LOG_ERR("%s: remote-net sync events are not emulated (flowdpa has no remote host)", __func__);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
							   struct doca_sync_event_remote_net **event)
{
	if (dev == NULL || data == NULL || sz == 0 || event == NULL) {
		CORE_LOG_ERR("%s: NULL or zero argument", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	CORE_LOG_ERR("%s: remote-net sync events are not emulated (flowdpa has no remote host)", __func__);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
						       doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event)
{
	if (event == NULL || dpa == NULL || dpa_remote_event == NULL) {
		CORE_LOG_ERR("%s: NULL argument", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	CORE_LOG_ERR("%s: remote-net sync events are not emulated (flowdpa has no remote host)", __func__);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event)
{
	DPA_CHECK_NULL(event);
	/* As the header says for every remote-net call: NOT_SUPPORTED (none can be created). */
	CORE_LOG_ERR("%s: remote-net sync events are not emulated (flowdpa has no remote host); %p is not one",
		     __func__, (void *)event);
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* ------------------------------------------------------------ device side */

/*
 * The event behind a device handle, counted as in use until se_put; a fatal device
 * error (does not return) if the handle is not a started event's.
 */
static struct doca_sync_event *se_get(doca_dpa_dev_sync_event_t h, const char *func)
{
	uint32_t slot;
	struct doca_sync_event *e = dpa_htab_get(&se_htab, h, &slot);

	if (e != NULL && !atomic_load(&e->started)) {
		dpa_htab_put(&se_htab, slot);
		e = NULL;
	}
	if (e == NULL)
		dpa_dev_fatal("%s: 0x%" PRIx64 " is not the handle of a started sync event "
			      "(destroyed, stopped, or not from doca_sync_event_get_dpa_handle)",
			      func, h);
	return e;
}

static void se_put(struct doca_sync_event *e)
{
	/* e->slot is read before the release: once the count drops, destroy may free e. */
	dpa_htab_put(&se_htab, e->slot);
}

void doca_dpa_dev_sync_event_get(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t *value)
{
	struct doca_sync_event *e = se_get(dpa_dev_se_handle, __func__);

	if (e == NULL)
		return;
	uint64_t v = atomic_load_explicit(e->value, memory_order_acquire);

	/* The caller's pointer is written only after the slot is released: a fault there
	 * must not happen while the event is held. */
	se_put(e);
	if (value)
		*value = v;
}

void doca_dpa_dev_sync_event_update_add(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value)
{
	struct doca_sync_event *e = se_get(dpa_dev_se_handle, __func__);

	if (e == NULL)
		return;
	dpa_sync_event_complete(e, true, value);
	se_put(e);
}

void doca_dpa_dev_sync_event_update_set(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value)
{
	struct doca_sync_event *e = se_get(dpa_dev_se_handle, __func__);

	if (e == NULL)
		return;
	dpa_sync_event_complete(e, false, value);
	se_put(e);
}

void doca_dpa_dev_sync_event_wait_gt(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value, uint64_t mask)
{
	struct doca_sync_event *e = se_get(dpa_dev_se_handle, __func__);

	if (e == NULL)
		return;
	enum se_wait_end end = se_wait(e, SE_GT, value, mask, false, true);
	uint32_t id = e->id;

	se_put(e); /* before leaving the instance: destroy may be waiting for it */
	if (end == SE_WAIT_CANCEL)
		dpa_dev_check_cancel();
	else if (end == SE_WAIT_DESTROYED)
		dpa_dev_fatal("doca_dpa_dev_sync_event_wait_gt: sync event %u was destroyed while this kernel "
			      "waited on it",
			      id);
}
