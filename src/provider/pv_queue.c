/*
 * pv_queue.c - request queues: doca_flow_dpa_queues_create / _destroy, the rings in the
 * device heap, the doorbell, and the async NIC engine (one thread per device) that runs
 * doorbelled requests FLOWDPA_NIC_LATENCY_US after they were flushed.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "provider_internal.h"

DOCA_LOG_REGISTER(FLOW_DPA::QUEUE);

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static size_t ring_bytes(uint32_t type, uint32_t size)
{
	size_t b = sizeof(struct pv_ring) + (size_t)size * sizeof(struct pv_req);
	if (type == DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ)
		b += (size_t)size * PV_RANGE_CELLS * sizeof(uint64_t);
	return b;
}

static doca_error_t check_cfgs(const struct doca_flow_dpa_ctx *ctx, const struct doca_flow_dpa_queue_cfg *cfgs,
			       uint32_t n, const char *who)
{
	bool seen[PV_QUEUE_TYPES] = {false};
	if (cfgs == NULL || n == 0) {
		CORE_LOG_ERR("%s: %s", who, cfgs == NULL ? "queue_cfgs is NULL" : "num_queue_cfgs is 0");
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct doca_flow_dpa_queue_cfg *c = &cfgs[i];
		if ((uint32_t)c->type >= PV_QUEUE_TYPES || seen[c->type]) {
			CORE_LOG_ERR("%s: queue_cfgs[%u]: %s queue type %d", who, i,
				     (uint32_t)c->type >= PV_QUEUE_TYPES ? "unknown" : "repeated", (int)c->type);
			return DOCA_ERROR_INVALID_VALUE;
		}
		seen[c->type] = true;
		if (c->nr_queues == 0 || !is_pow2(c->queue_size)) {
			CORE_LOG_ERR("%s: queue_cfgs[%u] (%s): %s (queue_size %u, nr_queues %u)", who, i,
				     pv_queue_type_name(c->type),
				     c->nr_queues == 0 ? "nr_queues is 0" : "queue_size must be a power of 2",
				     c->queue_size, c->nr_queues);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (c->nr_queues > ctx->caps->dpa_max_queues || c->queue_size > ctx->caps->dpa_max_queue_size) {
			CORE_LOG_ERR("%s: queue_cfgs[%u] (%s): %u queues of %u requests; device %s allows at most %u "
				     "queues of %u per type",
				     who, i, pv_queue_type_name(c->type), c->nr_queues, c->queue_size,
				     ctx->caps->model_name, ctx->caps->dpa_max_queues, ctx->caps->dpa_max_queue_size);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t ring_create(struct doca_flow_dpa_ctx *ctx, uint16_t port_id, uint32_t type, uint32_t id,
				uint32_t size, struct pv_queue *q)
{
	uint64_t dev;
	size_t bytes = ring_bytes(type, size);
	doca_error_t err = dpa_heap_alloc(ctx->process, bytes, &dev, "doca_flow_dpa_queues_create");
	if (err != DOCA_SUCCESS)
		return err;
	struct pv_ring *r = dpa_heap_ptr(ctx->process, dev, bytes);
	memset(r, 0, bytes);
	r->mask = size - 1;
	r->size = size;
	r->type = (uint8_t)type;
	r->port = (uint8_t)port_id;
	r->id = (uint16_t)id;
	r->ctx_id = ctx->id;
	r->host = q;
	atomic_init(&r->state, PV_RING_LIVE);
	q->ring = r;
	q->ctx = ctx;
	q->vals = type == DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ ? (uint64_t *)&r->req[size] : NULL;
	pthread_mutex_init(&q->exec_lock, NULL);
	return DOCA_SUCCESS;
}

/* One of the retire records queue creation reserved (NULL only if it reserved too few). */
static struct pv_retired *spare_take(struct pv_port *pp)
{
	struct pv_retired *rt = pp->spare;
	if (rt) {
		pp->spare = rt->next;
		rt->next = NULL;
	}
	return rt;
}

static void spare_free(struct pv_port *pp)
{
	for (struct pv_retired *rt; (rt = spare_take(pp)) != NULL;)
		free(rt);
}

/* Reserve n retire records on pp. */
static doca_error_t spare_reserve(struct pv_port *pp, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct pv_retired *rt = core_calloc(1, sizeof(*rt));
		if (rt == NULL)
			return DOCA_ERROR_NO_MEMORY;
		rt->next = pp->spare;
		pp->spare = rt;
	}
	return DOCA_SUCCESS;
}

/* Retire the rings of one type (they stay readable, DESTROYED, until ctx destroy). */
static void type_retire(struct doca_flow_dpa_ctx *ctx, struct pv_port *pp, uint32_t t)
{
	for (uint32_t i = 0; i < pp->nr[t]; i++) {
		struct pv_queue *q = &pp->queues[t][i];
		if (q->ring == NULL)
			continue;
		pthread_mutex_lock(&q->exec_lock);
		atomic_store_explicit(&q->ring->state, PV_RING_DESTROYED, memory_order_release);
		q->ring->host = NULL;
		pthread_mutex_unlock(&q->exec_lock);
		pthread_mutex_destroy(&q->exec_lock);
		struct pv_retired *rt = spare_take(pp);
		if (rt) {
			rt->dev_ptr = (uint64_t)(uintptr_t)q->ring;
			rt->next = ctx->retired;
			ctx->retired = rt;
		} else {
			pv_heap_free(ctx->process, (uint64_t)(uintptr_t)q->ring);
		}
	}
}

static void port_queues_release(struct doca_flow_dpa_ctx *ctx, struct pv_port *pp)
{
	for (uint32_t t = 0; t < PV_QUEUE_TYPES; t++) {
		if (pp->queues[t] == NULL)
			continue;
		type_retire(ctx, pp, t);
		/* A doorbell racing the destroy may still read its queue: kept until ctx destroy. */
		struct pv_retired *rt = spare_take(pp);
		if (rt) {
			rt->host = pp->queues[t];
			rt->next = ctx->retired;
			ctx->retired = rt;
		} else {
			free(pp->queues[t]);
		}
		pp->queues[t] = NULL;
		pp->nr[t] = 0;
	}
}

doca_error_t pv_engine_register(struct doca_flow_dpa_ctx *ctx, struct pv_queue *q);
void pv_engine_unregister(struct pv_queue *q);

static doca_error_t type_create(struct doca_flow_dpa_ctx *ctx, uint16_t port_id, struct pv_port *pp,
				const struct doca_flow_dpa_queue_cfg *c)
{
	uint32_t t = c->type;
	/* Retiring takes one record per ring, one for the host array, one for the device one. */
	if (spare_reserve(pp, c->nr_queues + 2) != DOCA_SUCCESS)
		return CORE_LOG_NOMEM("doca_flow_dpa_queues_create", "the queues' retire records");
	pp->queues[t] = core_calloc(c->nr_queues, sizeof(struct pv_queue));
	if (pp->queues[t] == NULL)
		return CORE_LOG_NOMEM("doca_flow_dpa_queues_create", "the queues");
	pp->nr[t] = c->nr_queues;
	pp->size[t] = c->queue_size;
	doca_error_t err = dpa_heap_alloc(ctx->process, c->nr_queues * sizeof(struct pv_ring *), &pp->rings_dev[t],
					  "doca_flow_dpa_queues_create");
	if (err != DOCA_SUCCESS)
		return err;
	struct pv_ring **arr = dpa_heap_ptr(ctx->process, pp->rings_dev[t], c->nr_queues * sizeof(struct pv_ring *));
	for (uint32_t i = 0; i < c->nr_queues; i++) {
		err = ring_create(ctx, port_id, t, i, c->queue_size, &pp->queues[t][i]);
		if (err != DOCA_SUCCESS)
			return err;
		arr[i] = pp->queues[t][i].ring;
		if (pv_nic_async()) {
			err = pv_engine_register(ctx, &pp->queues[t][i]);
			if (err != DOCA_SUCCESS)
				return err;
		}
	}
	return DOCA_SUCCESS;
}

/* Publish (or clear) the port's rings in the device block. */
static void port_publish(struct doca_flow_dpa_ctx *ctx, uint16_t port_id, bool live)
{
	struct pv_dev_port *dp = &ctx->block->port[port_id];
	struct pv_port *pp = &ctx->ports[port_id];
	for (uint32_t t = 0; t < PV_QUEUE_TYPES; t++) {
		dp->nr[t] = live ? pp->nr[t] : dp->nr[t];
		struct pv_ring **arr =
			live && pp->nr[t] ? dpa_heap_ptr(ctx->process, pp->rings_dev[t], sizeof(struct pv_ring *)) : NULL;
		if (live)
			atomic_store_explicit(&dp->rings[t], arr, memory_order_release);
	}
}

static void port_free_arrays(struct doca_flow_dpa_ctx *ctx, struct pv_port *pp)
{
	for (uint32_t t = 0; t < PV_QUEUE_TYPES; t++)
		if (pp->rings_dev[t]) {
			/* Kept with the retired rings: the device may still read the array. */
			struct pv_retired *rt = spare_take(pp);
			if (rt) {
				rt->dev_ptr = pp->rings_dev[t];
				rt->next = ctx->retired;
				ctx->retired = rt;
			}
			pp->rings_dev[t] = 0;
		}
}

doca_error_t doca_flow_dpa_queues_create(struct doca_flow_dpa_ctx *ctx, struct doca_flow_port *port,
					 const struct doca_flow_dpa_queue_cfg *queue_cfgs, uint32_t num_queue_cfgs)
{
	doca_error_t err = pv_ctx_check(ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	uint16_t port_id;
	err = flow_port_id_get(port, __func__, &port_id);
	if (err != DOCA_SUCCESS)
		return err;
	err = check_cfgs(ctx, queue_cfgs, num_queue_cfgs, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (core_fault_injected(CORE_FAULT_QUEUES_CREATE)) {
		CORE_LOG_ERR("%s: driver failure: fault injected (FLOWDPA_FAULTS=queues_create)", __func__);
		return DOCA_ERROR_DRIVER;
	}
	pthread_mutex_lock(&ctx->lock);
	struct pv_port *pp = &ctx->ports[port_id];
	if (pp->port) {
		pthread_mutex_unlock(&ctx->lock);
		CORE_LOG_ERR("%s: port %u already has queues in ctx %u (doca_flow_dpa_queues_destroy them first)",
			     __func__, port_id, ctx->id);
		return DOCA_ERROR_BAD_STATE;
	}
	for (uint32_t i = 0; i < num_queue_cfgs && err == DOCA_SUCCESS; i++)
		err = type_create(ctx, port_id, pp, &queue_cfgs[i]);
	if (err != DOCA_SUCCESS) {
		for (uint32_t t = 0; t < PV_QUEUE_TYPES; t++)
			for (uint32_t i = 0; pp->queues[t] && i < pp->nr[t]; i++)
				pv_engine_unregister(&pp->queues[t][i]);
		port_queues_release(ctx, pp);
		port_free_arrays(ctx, pp);
		spare_free(pp);
		memset(pp, 0, sizeof(*pp));
		pthread_mutex_unlock(&ctx->lock);
		/* Each failure said what it was, once (the heap, an allocation, the engine). */
		return err == DOCA_ERROR_NO_MEMORY ? err : DOCA_ERROR_NO_MEMORY;
	}
	pp->port = port;
	port_publish(ctx, port_id, true);
	pthread_mutex_unlock(&ctx->lock);
	for (uint32_t i = 0; i < num_queue_cfgs; i++)
		CORE_LOG_TRC("%s: ctx %u port %u: %u %s queues of %u", __func__, ctx->id, port_id,
			     queue_cfgs[i].nr_queues, pv_queue_type_name(queue_cfgs[i].type), queue_cfgs[i].queue_size);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_dpa_queues_destroy(struct doca_flow_dpa_ctx *ctx, struct doca_flow_port *port)
{
	doca_error_t err = pv_ctx_check(ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	uint16_t port_id;
	if (port == NULL) {
		CORE_LOG_ERR("%s: port is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&ctx->lock);
	for (port_id = 0; port_id < PV_MAX_PORTS && ctx->ports[port_id].port != port; port_id++)
		;
	if (port_id == PV_MAX_PORTS) {
		pthread_mutex_unlock(&ctx->lock);
		CORE_LOG_ERR("%s: the port has no queues in ctx %u", __func__, ctx->id);
		return DOCA_ERROR_BAD_STATE;
	}
	/* Allowed (as on hardware), but DPA calls on those exports now fail: say so. */
	for (uint32_t s = 0; s < PV_MAX_EXPORTS; s++)
		if (ctx->slots[s].fx && ctx->slots[s].port_id == port_id)
			CORE_LOG_WARN("%s: port %u: '%s' is still exported; its DPA requests in flight never complete and "
				      "DPA calls on it get IO_FAILED (destroy exports before their queues)",
				      __func__, port_id, ctx->slots[s].name);
	struct pv_port *pp = &ctx->ports[port_id];
	for (uint32_t t = 0; t < PV_QUEUE_TYPES; t++)
		for (uint32_t i = 0; pp->queues[t] && i < pp->nr[t]; i++) {
			struct pv_ring *r = pp->queues[t][i].ring;
			uint32_t never = r->posted - atomic_load_explicit(&r->flushed, memory_order_relaxed);
			if (never)
				CORE_LOG_WARN("%s: port %u queue %s/%u: %u requests were posted and never flushed; they "
					      "never executed",
					      __func__, port_id, pv_queue_type_name(t), i, never);
			pv_engine_unregister(&pp->queues[t][i]);
			pv_report_keep_queue(ctx, port_id, &pp->queues[t][i]);
		}
	port_queues_release(ctx, pp);
	port_free_arrays(ctx, pp);
	spare_free(pp);
	memset(pp, 0, sizeof(*pp));
	pthread_mutex_unlock(&ctx->lock);
	CORE_LOG_TRC("%s: ctx %u port %u", __func__, ctx->id, port_id);
	return DOCA_SUCCESS;
}

void pv_queues_free_all(struct doca_flow_dpa_ctx *ctx)
{
	while (ctx->retired) {
		struct pv_retired *rt = ctx->retired;
		ctx->retired = rt->next;
		if (rt->dev_ptr)
			pv_heap_free(ctx->process, rt->dev_ptr);
		free(rt->host);
		free(rt);
	}
}

void pv_queue_stats(const struct pv_queue *q, uint64_t *completed, uint64_t *failed)
{
	*completed = atomic_load_explicit(&q->completed, memory_order_relaxed);
	*failed = atomic_load_explicit(&q->failed, memory_order_relaxed);
}

/* ------------------------------------------------------------------ doorbell, async engine */

/*
 * The engine: one thread for all devices' queues would serialise devices; one per device
 * is what a NIC has. Queues register with their device's engine; a doorbell sets kick
 * and wakes the engine only when it sleeps, so a flush takes no lock while it runs.
 */
struct pv_engine {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stop;
	_Atomic bool sleeping;
	_Atomic uint32_t kick;
	struct pv_queue *queues;
	uint32_t dev_index;
};

static struct pv_engine engines[CORE_MAX_DEVICES];
static pthread_mutex_t engines_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* One pass: schedule newly flushed queues, run those that are due. Returns the earliest
 * due time still pending (UINT64_MAX: none). Under eng->lock. */
static uint64_t engine_pass(struct pv_engine *eng, uint64_t latency)
{
	uint64_t next = UINT64_MAX, now = now_us();
	for (struct pv_queue *q = eng->queues; q; q = q->eng_next) {
		struct pv_ring *r = q->ring;
		uint32_t f = atomic_load_explicit(&r->flushed, memory_order_acquire);
		if (!q->scheduled && f != atomic_load_explicit(&r->done, memory_order_relaxed)) {
			q->scheduled = true;
			q->sched_upto = f;
			q->sched_due_us = now + latency;
		}
		if (!q->scheduled)
			continue;
		if (q->sched_due_us <= now) {
			pthread_mutex_lock(&q->exec_lock);
			if (r->host)
				pv_exec(q, q->sched_upto);
			pthread_mutex_unlock(&q->exec_lock);
			q->scheduled = false;
			/* Flushed again meanwhile: due one latency after it was seen. */
			f = atomic_load_explicit(&r->flushed, memory_order_acquire);
			if (f != q->sched_upto) {
				q->scheduled = true;
				q->sched_upto = f;
				q->sched_due_us = now + latency;
			}
		}
		if (q->scheduled && q->sched_due_us < next)
			next = q->sched_due_us;
	}
	return next;
}

/*
 * Idle: a DPA thread that just polled usually flushes again within microseconds, and a
 * wake-up from the condition variable costs more than that, so look at the doorbell for
 * a while (yielding the CPU) before sleeping. True when a doorbell rang. Under eng->lock,
 * which it drops while it waits.
 */
#define ENGINE_SPIN_US 200
static bool engine_spin(struct pv_engine *eng)
{
	pthread_mutex_unlock(&eng->lock);
	uint64_t until = now_us() + ENGINE_SPIN_US;
	bool rang = false;
	while (!(rang = atomic_load(&eng->kick) != 0) && now_us() < until)
		sched_yield();
	pthread_mutex_lock(&eng->lock);
	return rang || eng->stop;
}

static void *engine_main(void *arg)
{
	struct pv_engine *eng = arg;
	const struct core_config *cfg = core_config_get();
	uint64_t latency = cfg ? cfg->nic_latency_us : 0;
	char name[32], os_name[16];
	snprintf(name, sizeof(name), "NIC engine (device %u)", eng->dev_index);
	snprintf(os_name, sizeof(os_name), "nic:engine/%u", eng->dev_index);
	core_thread_name(eng->dev_index + 1, name, os_name);
	pthread_mutex_lock(&eng->lock);
	while (!eng->stop) {
		atomic_store_explicit(&eng->kick, 0, memory_order_relaxed);
		uint64_t next = engine_pass(eng, latency);
		if (next == UINT64_MAX && engine_spin(eng))
			continue;
		if (next == UINT64_MAX) {
			atomic_store(&eng->sleeping, true);
			/* A doorbell between the pass and here set kick: do not sleep on it. */
			if (atomic_load(&eng->kick) == 0 && !eng->stop) {
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += 10 * 1000 * 1000;
				if (ts.tv_nsec >= 1000000000) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000;
				}
				pthread_cond_timedwait(&eng->cond, &eng->lock, &ts);
			}
			atomic_store(&eng->sleeping, false);
		} else {
			uint64_t now = now_us();
			if (next > now) {
				pthread_mutex_unlock(&eng->lock);
				struct timespec ts = {.tv_sec = (time_t)((next - now) / 1000000u),
						      .tv_nsec = (long)((next - now) % 1000000u) * 1000};
				nanosleep(&ts, NULL);
				pthread_mutex_lock(&eng->lock);
			}
		}
	}
	pthread_mutex_unlock(&eng->lock);
	return NULL;
}

doca_error_t pv_engine_register(struct doca_flow_dpa_ctx *ctx, struct pv_queue *q)
{
	uint32_t d = ctx->caps->index < CORE_MAX_DEVICES ? ctx->caps->index : 0;
	struct pv_engine *eng = &engines[d];
	pthread_mutex_lock(&engines_lock);
	if (!eng->running) {
		pthread_mutex_init(&eng->lock, NULL);
		pthread_cond_init(&eng->cond, NULL);
		eng->dev_index = d;
		eng->stop = false;
		if (pthread_create(&eng->thread, NULL, engine_main, eng) != 0) {
			pthread_mutex_unlock(&engines_lock);
			CORE_LOG_ERR("doca_flow_dpa_queues_create: cannot start the NIC engine thread");
			return DOCA_ERROR_NO_MEMORY;
		}
		eng->running = true;
	}
	pthread_mutex_unlock(&engines_lock);
	pthread_mutex_lock(&eng->lock);
	q->eng_next = eng->queues;
	eng->queues = q;
	pthread_mutex_unlock(&eng->lock);
	return DOCA_SUCCESS;
}

void pv_engine_unregister(struct pv_queue *q)
{
	if (q->ctx == NULL)
		return;
	uint32_t d = q->ctx->caps->index < CORE_MAX_DEVICES ? q->ctx->caps->index : 0;
	struct pv_engine *eng = &engines[d];
	pthread_mutex_lock(&engines_lock);
	bool running = eng->running;
	pthread_mutex_unlock(&engines_lock);
	if (!running)
		return;
	pthread_mutex_lock(&eng->lock);
	struct pv_queue **l = &eng->queues;
	while (*l && *l != q)
		l = &(*l)->eng_next;
	if (*l)
		*l = q->eng_next;
	pthread_mutex_unlock(&eng->lock);
}

void pv_doorbell(struct pv_ring *ring)
{
	struct pv_queue *q = ring->host;
	if (q == NULL)
		return;
	if (!pv_nic_async()) {
		pthread_mutex_lock(&q->exec_lock);
		if (ring->host)
			pv_exec(q, atomic_load_explicit(&ring->flushed, memory_order_acquire));
		pthread_mutex_unlock(&q->exec_lock);
		return;
	}
	uint32_t d = q->ctx->caps->index < CORE_MAX_DEVICES ? q->ctx->caps->index : 0;
	struct pv_engine *eng = &engines[d];
	atomic_store(&eng->kick, 1);
	if (atomic_load(&eng->sleeping)) {
		pthread_mutex_lock(&eng->lock);
		pthread_cond_signal(&eng->cond);
		pthread_mutex_unlock(&eng->lock);
	}
}

void pv_trace(const struct pv_ring *ring, const char *what, uint32_t n)
{
	const struct pv_queue *q = ring->host;
	if (q == NULL)
		return;
	char args[96];
	snprintf(args, sizeof(args), "{\"queue\":\"%s/%u\",\"port\":%u,\"requests\":%u}", pv_queue_type_name(ring->type),
		 ring->id, ring->port, n);
	core_trace_instant(q->ctx->caps->index + 1, "provider", what, args);
}
