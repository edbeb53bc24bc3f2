/*
 * pv_dev.c - the DPA half of the provider (doca_flow_dpa_provider_dev.h): resolving a
 * device address to its export descriptor, posting requests into the queue's ring in the
 * device heap, flushing (the doorbell), and polling completions, which is when a memory
 * read's values land in DPA memory.
 *
 * Built into libdoca_flow_dpa_provider_dev.a, which dpacc merges into the app image of a
 * device translation unit that includes the header. It keeps no state of its own (an
 * image has its own copy): everything lives in the context's device block and rings,
 * except per DPA thread the log rate limits and the last target resolved per queue type
 * (dev_cache, re-validated on every call).
 */
#include <sched.h>
#include <string.h>

#include <doca_flow_dpa_provider_dev.h>

#include <dpa/dpa.h>
#include <provider/provider.h>

DOCA_LOG_REGISTER(FLOW_DPA::DEV);

#define DEV_LOG_FIRST 5
#define DEV_LOG_SITES 32

/*
 * Errors of a device call are rate limited per DPA thread and per mistake (the DEV_FAIL
 * site and the call that made it): the first few, then at each power of two, so a
 * kernel that loops on a mistake does not flood the log, while another mistake, the same
 * one in another call, or in another DPA process, still gets its line.
 */
struct dev_log_site {
	const void *site;
	const char *who;
	uint32_t process; /* dpa_process_id of the kernel's process, 0 outside a kernel */
	uint64_t n;
};
static _Thread_local struct dev_log_site dev_sites[DEV_LOG_SITES];

static bool dev_log_due(const void *site, const char *who)
{
	struct flexio_process *p = dpa_current_process();
	uint32_t proc = p ? dpa_process_id(p) : 0;
	struct dev_log_site *s = &dev_sites[((uintptr_t)site / 8 + (uintptr_t)who / 8) % DEV_LOG_SITES];
	for (uint32_t i = 0; i < DEV_LOG_SITES; i++)
		if ((dev_sites[i].site == site && dev_sites[i].who == who) || dev_sites[i].site == NULL) {
			s = &dev_sites[i];
			break;
		}
	if (s->site != site || s->who != who || s->process != proc)
		*s = (struct dev_log_site){site, who, proc, 0};
	uint64_t n = ++s->n;
	return n <= DEV_LOG_FIRST || !(n & (n - 1));
}

/* DEV_FAIL(err, "%s: ...", who, ...): log (rate limited) and return err. */
#define DEV_WHO(fmt, who, ...) (who)
#define DEV_FAIL(err, ...) \
	do { \
		static char site_; \
		if (dev_log_due(&site_, DEV_WHO(__VA_ARGS__, 0))) \
			CORE_LOG_ERR(__VA_ARGS__); \
		return err; \
	} while (0)

struct dev_target {
	struct pv_dev_ctx *ctx;
	struct pv_dev_obj *obj;
	uint32_t slot, gen;
	uint32_t ctx_id;
	struct pv_ring *ring;
};

static doca_error_t bad_address(doca_flow_dpa_addr a, const char *who)
{
	uint64_t top = a >> 47;
	if (a == 0)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: device address is 0 (pass what doca_flow_dpa_*_get_device_addr "
						   "returned)", who);
	if (top == 0 || top == 0x1ffff)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: 0x%016llx is a host pointer, not a device address (pass what "
						   "doca_flow_dpa_*_get_device_addr returned)",
			 who, (unsigned long long)a);
	DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: 0x%016llx is not the device address of an exported object (bad magic)",
		 who, (unsigned long long)a);
}

/* Address -> descriptor: magic, live context of the calling kernel's process, slot and
 * generation. */
static doca_error_t resolve(doca_flow_dpa_addr a, const char *who, struct dev_target *t)
{
	if (!pv_addr_magic_ok(a))
		return bad_address(a, who);
	uint32_t cid = pv_addr_ctx(a), slot = pv_addr_slot(a), gen = pv_addr_gen(a);
	struct pv_dev_ctx *c = pv_ctx_block(cid);
	if (c == NULL)
		DEV_FAIL(DOCA_ERROR_BAD_STATE, "%s: address 0x%016llx is stale: DPA ctx %u was destroyed", who,
			 (unsigned long long)a, cid);
	struct flexio_process *me = dpa_current_process();
	if (me != c->process)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: address 0x%016llx belongs to DPA ctx %u, whose DPA process is not %s",
			 who, (unsigned long long)a, cid, me ? "the one running this kernel" : "(called outside a kernel)");
	if (slot >= PV_MAX_EXPORTS)
		return bad_address(a, who);
	struct pv_dev_obj *o = &c->obj[slot];
	uint32_t state = atomic_load_explicit(&o->state, memory_order_acquire);
	if (state != PV_OBJ_EXPORTED || atomic_load_explicit(&o->gen, memory_order_relaxed) != gen)
		DEV_FAIL(DOCA_ERROR_BAD_STATE, "%s: address 0x%016llx is stale: the export behind it was destroyed", who,
			 (unsigned long long)a);
	t->ctx = c;
	t->obj = o;
	t->slot = slot;
	t->gen = gen;
	t->ctx_id = cid;
	return DOCA_SUCCESS;
}

static doca_error_t find_ring(struct dev_target *t, uint32_t type, uint32_t qid, const char *who)
{
	if (type >= PV_QUEUE_TYPES)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: unknown queue type %u", who, type);
	struct pv_dev_port *p = &t->ctx->port[t->obj->port];
	struct pv_ring **rings = atomic_load_explicit(&p->rings[type], memory_order_acquire);
	if (rings == NULL)
		DEV_FAIL(DOCA_ERROR_NOT_SUPPORTED, "%s: port %u has no %s queues in DPA ctx %u (doca_flow_dpa_queues_create)",
			 who, t->obj->port, pv_queue_type_name(type), t->ctx->ctx_id);
	if (qid >= p->nr[type])
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: queue_id %u out of range (port %u has %u %s queues)", who, qid,
			 t->obj->port, p->nr[type], pv_queue_type_name(type));
	t->ring = rings[qid];
	if (atomic_load_explicit(&t->ring->state, memory_order_acquire) != PV_RING_LIVE)
		DEV_FAIL(DOCA_ERROR_IO_FAILED, "%s: %s queue %u of port %u was destroyed (doca_flow_dpa_queues_destroy); "
					       "its requests in flight never complete",
			 who, pv_queue_type_name(type), qid, t->obj->port);
	return DOCA_SUCCESS;
}

/*
 * The last target each queue type resolved on this DPA thread: a kernel posts and polls
 * the same (address, queue) over and over, so a hit skips resolve + find_ring. A hit
 * re-checks, in this order, what could have changed since: the context still lives
 * (its block is freed at destroy and ids are not reused, so nothing is read from a dead
 * block), this thread runs a kernel of the same process, the export is the same
 * generation and still EXPORTED, the queue was not destroyed. Anything else goes the
 * slow way, which logs the error as before.
 */
struct dev_cached {
	doca_flow_dpa_addr addr; /* 0: empty */
	uint32_t qid;
	uint32_t kind;
	struct flexio_process *process;
	struct dev_target t;
};
static _Thread_local struct dev_cached dev_cache[PV_QUEUE_TYPES];

static inline bool cache_hit(const struct dev_cached *c, doca_flow_dpa_addr a, uint32_t qid)
{
	if (c->addr != a || c->qid != qid)
		return false;
	if (pv_ctx_block(c->t.ctx_id) != c->t.ctx || dpa_current_process() != c->process)
		return false;
	const struct pv_dev_obj *o = c->t.obj;
	return atomic_load_explicit(&o->state, memory_order_acquire) == PV_OBJ_EXPORTED &&
	       atomic_load_explicit(&o->gen, memory_order_relaxed) == c->t.gen &&
	       atomic_load_explicit(&c->t.ring->state, memory_order_acquire) == PV_RING_LIVE;
}

static const struct dev_target *cache_fill(doca_flow_dpa_addr a, uint32_t type, uint32_t qid,
					   const struct dev_target *t)
{
	struct dev_cached *c = &dev_cache[type];
	c->addr = a;
	c->qid = qid;
	c->kind = t->obj->kind;
	c->process = t->ctx->process;
	c->t = *t;
	return &c->t;
}

/* Resolve the address, check the object's kind, find the queue. */
static doca_error_t target(doca_flow_dpa_addr a, uint32_t kind, uint32_t type, uint32_t qid, const char *who,
			   const struct dev_target **tp)
{
	const struct dev_cached *c = &dev_cache[type];
	if (__builtin_expect(cache_hit(c, a, qid) && c->kind == kind, 1)) {
		*tp = &c->t;
		return DOCA_SUCCESS;
	}
	struct dev_target tt, *t = &tt;
	doca_error_t err = resolve(a, who, t);
	if (err != DOCA_SUCCESS)
		return err;
	if (t->obj->kind != kind) {
		static const char *const kinds[] = {"a pipe", "an index-selector resource", "a memory resource"};
		DEV_FAIL(DOCA_ERROR_NOT_SUPPORTED, "%s: '%s' is %s export; this call needs %s", who, t->obj->name,
			 kinds[t->obj->kind % 3], kinds[kind]);
	}
	err = find_ring(t, type, qid, who);
	if (err == DOCA_SUCCESS)
		*tp = cache_fill(a, type, qid, t);
	return err;
}

static void flush_ring(struct pv_ring *r)
{
	uint32_t before = atomic_load_explicit(&r->flushed, memory_order_relaxed);
	if (before == r->posted)
		return;
	atomic_store_explicit(&r->flushed, r->posted, memory_order_release);
	if (core_trace_enabled())
		pv_trace(r, "flush", r->posted - before);
	pv_doorbell(r);
}

/* Post n requests (a range: consecutive chunks of index / count) or none. */
static doca_error_t post(const struct dev_target *t, uint8_t op, uint32_t index, uint32_t total, uint32_t chunk,
			 uint64_t value, uint64_t dst, bool flush, const char *who)
{
	struct pv_ring *r = t->ring;
	if (total == 1) { /* one request: what nearly every post is */
		if (r->posted - r->reaped >= r->size) {
			r->again++;
			return DOCA_ERROR_AGAIN;
		}
		r->req[r->posted & r->mask] = (struct pv_req){.op = op,
							      .count = 1,
							      .slot = (uint16_t)t->slot,
							      .index = index,
							      .value = value,
							      .dst = dst,
							      .gen = t->gen};
		r->posted++;
		r->posts++;
		if (flush)
			flush_ring(r);
		return DOCA_SUCCESS;
	}
	uint32_t need = (total + chunk - 1) / chunk;
	if (need > r->size)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: %u indices need %u requests, more than the queue holds (%u)", who,
			 total, need, r->size);
	if (r->size - (r->posted - r->reaped) < need) {
		r->again++;
		return DOCA_ERROR_AGAIN;
	}
	for (uint32_t k = 0; k < need; k++) {
		uint32_t cnt = total - k * chunk < chunk ? total - k * chunk : chunk;
		r->req[r->posted & r->mask] = (struct pv_req){.op = op,
							      .count = (uint8_t)(chunk > 1 ? cnt : 1),
							      .slot = (uint16_t)t->slot,
							      .index = index + k * chunk,
							      .value = value,
							      .dst = dst ? dst + (uint64_t)k * chunk * sizeof(uint64_t) : 0,
							      .gen = t->gen};
		r->posted++;
	}
	r->posts += need;
	if (flush)
		flush_ring(r);
	return DOCA_SUCCESS;
}

static doca_error_t hash_post(doca_flow_dpa_addr pipe, uint32_t qid, uint8_t op, uint32_t index, uint64_t value,
			      bool flush, const char *who)
{
	const struct dev_target *t;
	doca_error_t err = target(pipe, PV_OBJ_PIPE, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, qid, who, &t);
	return err != DOCA_SUCCESS ? err : post(t, op, index, 1, 1, value, 0, flush, who);
}

doca_error_t doca_flow_pipe_hash_enable_index(doca_flow_dpa_addr pipe, uint32_t queue_id, uint32_t entry_index,
					      bool flush)
{
	return hash_post(pipe, queue_id, PV_OP_ENABLE, entry_index, 0, flush, __func__);
}

doca_error_t doca_flow_pipe_hash_disable_index(doca_flow_dpa_addr pipe, uint32_t queue_id, uint32_t entry_index,
					       bool flush)
{
	return hash_post(pipe, queue_id, PV_OP_DISABLE, entry_index, 0, flush, __func__);
}

doca_error_t doca_flow_pipe_hash_replace_index(doca_flow_dpa_addr pipe, uint32_t queue_id, uint32_t entry_index,
					       uint32_t path_selector_value, bool flush)
{
	return hash_post(pipe, queue_id, PV_OP_REPLACE, entry_index, path_selector_value, flush, __func__);
}

static doca_error_t select_post(doca_flow_dpa_addr res, uint32_t qid, uint32_t first, uint32_t n,
				enum doca_flow_index_selector_op op, bool flush, const char *who)
{
	if (n == 0)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: nr_indices is 0", who);
	if ((uint32_t)op > DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: %d is not an index-selector op", who, (int)op);
	const struct dev_target *t;
	doca_error_t err = target(res, PV_OBJ_INDEX_SELECTOR, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, qid, who, &t);
	return err != DOCA_SUCCESS ? err : post(t, PV_OP_SELECT, first, n, PV_RANGE_INDICES, op, 0, flush, who);
}

doca_error_t doca_flow_external_resource_index_selector_modify(doca_flow_dpa_addr resource, uint32_t queue_id,
							       uint32_t index, enum doca_flow_index_selector_op op,
							       bool flush)
{
	return select_post(resource, queue_id, index, 1, op, flush, __func__);
}

doca_error_t doca_flow_external_resource_index_selector_modify_range(doca_flow_dpa_addr resource, uint32_t queue_id,
								     uint32_t first_index, uint32_t nr_indices,
								     enum doca_flow_index_selector_op op, bool flush)
{
	return select_post(resource, queue_id, first_index, nr_indices, op, flush, __func__);
}

doca_error_t doca_flow_external_resource_memory_update(doca_flow_dpa_addr resource, uint32_t queue_id,
						       uint32_t offset, uint64_t value, bool flush)
{
	const struct dev_target *t;
	doca_error_t err =
		target(resource, PV_OBJ_MEMORY, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, queue_id, __func__, &t);
	return err != DOCA_SUCCESS ? err : post(t, PV_OP_MEM_WRITE, offset, 1, 1, value, 0, flush, __func__);
}

static doca_error_t read_post(doca_flow_dpa_addr res, uint32_t qid, uint32_t offset, uint32_t n, uint64_t *values,
			      bool flush, const char *who)
{
	if (values == NULL || n == 0)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: %s", who, values == NULL ? "value pointer is NULL" : "nr_cells is 0");
	const struct dev_target *t;
	doca_error_t err = target(res, PV_OBJ_MEMORY, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, qid, who, &t);
	if (err != DOCA_SUCCESS)
		return err;
	uint64_t dst = (uint64_t)(uintptr_t)values;
	if (dpa_heap_ptr(t->ctx->process, dst, (size_t)n * sizeof(uint64_t)) == NULL)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: %p (%u cells) is not DPA memory: values must point into the device "
						   "heap (doca_dpa_mem_alloc), not at a host or stack variable",
			 who, (void *)values, n);
	return post(t, PV_OP_MEM_READ, offset, n, PV_RANGE_CELLS, 0, dst, flush, who);
}

doca_error_t doca_flow_external_resource_memory_read(doca_flow_dpa_addr resource, uint32_t queue_id,
						     uint32_t offset, uint64_t *value, bool flush)
{
	return read_post(resource, queue_id, offset, 1, value, flush, __func__);
}

doca_error_t doca_flow_external_resource_memory_read_range(doca_flow_dpa_addr resource, uint32_t queue_id,
							   uint32_t offset, uint32_t nr_cells, uint64_t *values,
							   bool flush)
{
	return read_post(resource, queue_id, offset, nr_cells, values, flush, __func__);
}

/* Poll/flush: any export of the context that owns the queue, on its port. */
static doca_error_t any_target(doca_flow_dpa_addr object, enum doca_flow_dpa_queue_type type, uint32_t qid,
			       enum core_fault_site fault, const char *who, const struct dev_target **tp)
{
	if ((uint32_t)type < PV_QUEUE_TYPES && __builtin_expect(cache_hit(&dev_cache[type], object, qid), 1)) {
		*tp = &dev_cache[type].t;
	} else {
		struct dev_target t;
		doca_error_t err = resolve(object, who, &t);
		if (err != DOCA_SUCCESS)
			return err;
		err = find_ring(&t, (uint32_t)type, qid, who);
		if (err != DOCA_SUCCESS)
			return err;
		*tp = cache_fill(object, (uint32_t)type, qid, &t);
	}
	if (core_fault_injected(fault))
		DEV_FAIL(DOCA_ERROR_DRIVER, "%s: driver failure: fault injected (FLOWDPA_FAULTS)", who);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_queue_poll_completion(doca_flow_dpa_addr object, enum doca_flow_dpa_queue_type queue_type,
					     uint32_t queue_id, struct doca_flow_dpa_completion_stats *stats)
{
	if (stats == NULL)
		DEV_FAIL(DOCA_ERROR_INVALID_VALUE, "%s: stats is NULL", __func__);
	stats->num_completed = stats->num_failed = 0;
	const struct dev_target *t;
	doca_error_t err = any_target(object, queue_type, queue_id, CORE_FAULT_QUEUE_POLL, __func__, &t);
	if (err != DOCA_SUCCESS)
		return err;
	struct pv_ring *r = t->ring;
	uint32_t done = atomic_load_explicit(&r->done, memory_order_acquire), failed = 0;
	if (done == r->reaped) {
		/* Nothing yet, but flushed requests are on their way (async mode): the NIC has
		 * its own silicon, the emulated one shares these CPUs, so a DPA thread polling
		 * in a loop lets it run. */
		if (atomic_load_explicit(&r->flushed, memory_order_relaxed) != done)
			sched_yield();
		return DOCA_SUCCESS;
	}
	const uint64_t *vals = (const uint64_t *)&r->req[r->size];
	for (uint32_t i = r->reaped; i != done; i++) {
		const struct pv_req *rq = &r->req[i & r->mask];
		if (rq->status != DOCA_SUCCESS)
			failed++;
		else if (rq->op == PV_OP_MEM_READ && rq->count == 1) /* one cell: one store, no call */
			memcpy((void *)(uintptr_t)rq->dst, &vals[(i & r->mask) * PV_RANGE_CELLS], sizeof(uint64_t));
		else if (rq->op == PV_OP_MEM_READ)
			memcpy((void *)(uintptr_t)rq->dst, &vals[(i & r->mask) * PV_RANGE_CELLS],
			       (size_t)rq->count * sizeof(uint64_t));
	}
	stats->num_completed = done - r->reaped;
	stats->num_failed = failed;
	r->reaped = done;
	if (stats->num_completed && core_trace_enabled())
		pv_trace(r, "poll", stats->num_completed);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_queue_flush(doca_flow_dpa_addr object, enum doca_flow_dpa_queue_type queue_type,
				   uint32_t queue_id)
{
	const struct dev_target *t;
	doca_error_t err = any_target(object, queue_type, queue_id, CORE_FAULT_QUEUE_FLUSH, __func__, &t);
	if (err != DOCA_SUCCESS)
		return err;
	flush_ring(t->ring);
	return DOCA_SUCCESS;
}
