/*
 * flow_aging.c - entry aging (doca_flow_monitor.aging_sec, doca_flow_aging_handle) and
 * the clock it runs on (flowdpa_clock_advance_ms).
 *
 * The software NIC keeps no last-hit time per entry (struct nic_entry is one cache
 * line on the hot path): an entry with aging is given a counter (its own when it has
 * none) and counts as active when doca_flow_aging_handle sees that counter change. An
 * entry is aged once its counter has not changed for aging_sec by the aging clock; it is
 * reported once (DOCA_FLOW_ENTRY_OP_AGED through the entry process callback) and again
 * only after it was hit and then stayed idle for another aging_sec.
 *
 * Each port keeps its tracked entries in a list (the order doca_flow_aging_handle walks,
 * one cursor per queue) and a pointer hash, so that a removal finds its record without a
 * field in the entry. The list's lock nests inside flow_g.lock (pipe destruction untracks
 * under it) and is never held across a callback.
 */
#include <stdlib.h>
#include <time.h>

#include <flowdpa.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::AGING);

struct aging_rec {
	struct doca_flow_pipe_entry *e;
	uint64_t last_pkts;	 /* counter value at the last handle that saw a change */
	uint64_t last_active_ms; /* aging clock then (or at insertion) */
	uint64_t aging_ms;
	uint16_t queue; /* the queue of the add: doca_flow_aging_handle(queue) reports it */
	bool aged;	/* reported; cleared by a hit */
	struct aging_rec *hnext;
	struct aging_rec *prev, *next;
};

struct flow_aging {
	pthread_mutex_t lock;
	struct aging_rec **buckets;
	uint32_t nr_buckets; /* a power of two */
	uint32_t count;
	struct aging_rec *head, *tail;
	uint16_t nr_queues;
	/* Per queue: inside a cycle, the next record to look at (NULL: the cycle's end). */
	bool *in_cycle;
	struct aging_rec **cursor;
};

/* ------------------------------------------------------------------ clock */

static _Atomic uint64_t clock_offset_ms;

uint64_t flow_clock_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u +
	       atomic_load_explicit(&clock_offset_ms, memory_order_relaxed);
}

void flowdpa_clock_advance_ms(uint64_t ms)
{
	atomic_fetch_add_explicit(&clock_offset_ms, ms, memory_order_relaxed);
	CORE_LOG_TRC("flowdpa_clock_advance_ms: aging clock moved %llu ms ahead", (unsigned long long)ms);
}

/* ------------------------------------------------------------------ records */

static uint32_t ptr_hash(const void *p, uint32_t nr_buckets)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (uint32_t)x & (nr_buckets - 1);
}

static struct flow_aging *aging_create(uint16_t nr_queues)
{
	struct flow_aging *ag = core_calloc(1, sizeof(*ag));
	if (ag == NULL)
		return NULL;
	ag->nr_buckets = 64;
	ag->buckets = core_calloc(ag->nr_buckets, sizeof(*ag->buckets));
	ag->in_cycle = core_calloc(nr_queues, sizeof(*ag->in_cycle));
	ag->cursor = core_calloc(nr_queues, sizeof(*ag->cursor));
	if (ag->buckets == NULL || ag->in_cycle == NULL || ag->cursor == NULL) {
		free(ag->buckets);
		free(ag->in_cycle);
		free(ag->cursor);
		free(ag);
		return NULL;
	}
	ag->nr_queues = nr_queues;
	pthread_mutex_init(&ag->lock, NULL);
	return ag;
}

/* Doubles the buckets when the records outnumber them; a failed allocation keeps the
 * old ones (longer chains, still correct). */
static void aging_grow(struct flow_aging *ag)
{
	uint32_t n = ag->nr_buckets * 2;
	struct aging_rec **b = core_calloc(n, sizeof(*b));
	if (b == NULL)
		return;
	for (struct aging_rec *r = ag->head; r; r = r->next) {
		uint32_t h = ptr_hash(r->e, n);
		r->hnext = b[h];
		b[h] = r;
	}
	free(ag->buckets);
	ag->buckets = b;
	ag->nr_buckets = n;
}

static struct aging_rec **rec_find(struct flow_aging *ag, const struct doca_flow_pipe_entry *e)
{
	struct aging_rec **link = &ag->buckets[ptr_hash(e, ag->nr_buckets)];
	while (*link && (*link)->e != e)
		link = &(*link)->hnext;
	return link;
}

/* Under ag->lock: unlink the record *link names (from hash and list) and free it. */
static void rec_remove(struct flow_aging *ag, struct aging_rec **link)
{
	struct aging_rec *r = *link;
	*link = r->hnext;
	for (uint16_t q = 0; q < ag->nr_queues; q++)
		if (ag->cursor[q] == r)
			ag->cursor[q] = r->next;
	if (r->prev)
		r->prev->next = r->next;
	else
		ag->head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		ag->tail = r->prev;
	ag->count--;
	free(r);
}

static uint64_t entry_pkts(const struct doca_flow_pipe_entry *e)
{
	uint64_t pkts = 0, bytes;
	struct nic_entry *ne = flow_entry_nic(e);
	if (ne == NULL || nic_entry_counter_read(flow_entry_pipe(e)->nic, ne, &pkts, &bytes) != DOCA_SUCCESS)
		return 0;
	return pkts;
}

uint32_t flow_aging_entry_sec(const struct doca_flow_pipe *pipe, const struct doca_flow_monitor *monitor)
{
	if (monitor && monitor->aging_sec != 0)
		return monitor->aging_sec;
	/* All ones in the pipe's monitor: each entry sets its own (none when it does not). */
	return pipe->aging_sec != UINT32_MAX ? pipe->aging_sec : 0;
}

void flow_aging_track(struct doca_flow_pipe_entry *e, uint16_t queue, uint32_t aging_sec)
{
	struct doca_flow_port *port = flow_entry_pipe(e)->port;
	/* Created once, under flow_g.lock; readers that do not take it load it atomically. */
	pthread_mutex_lock(&flow_g.lock);
	if (port->aging == NULL)
		__atomic_store_n(&port->aging, aging_create(port->nr_queues), __ATOMIC_RELEASE);
	struct flow_aging *ag = port->aging;
	pthread_mutex_unlock(&flow_g.lock);
	struct aging_rec *r = ag ? core_calloc(1, sizeof(*r)) : NULL;
	if (r == NULL) {
		/* The entry works, it just never ages: say so once per entry. */
		CORE_LOG_WARN("doca_flow_entries_process: port %u pipe '%s': no memory to track the entry's aging "
			     "(aging_sec %u); it will not age",
			     port->id, flow_entry_pipe(e)->name, aging_sec);
		return;
	}
	r->e = e;
	r->queue = queue;
	r->aging_ms = (uint64_t)aging_sec * 1000u;
	r->last_pkts = entry_pkts(e);
	r->last_active_ms = flow_clock_ms();
	pthread_mutex_lock(&ag->lock);
	struct aging_rec **link = rec_find(ag, e);
	if (*link) /* a pool slot reused before its old record went: start over */
		rec_remove(ag, link);
	uint32_t h = ptr_hash(e, ag->nr_buckets);
	r->hnext = ag->buckets[h];
	ag->buckets[h] = r;
	r->prev = ag->tail;
	if (ag->tail)
		ag->tail->next = r;
	else
		ag->head = r;
	ag->tail = r;
	if (++ag->count > ag->nr_buckets)
		aging_grow(ag);
	pthread_mutex_unlock(&ag->lock);
}

void flow_aging_untrack(struct doca_flow_pipe_entry *e)
{
	struct flow_aging *ag = __atomic_load_n(&flow_entry_pipe(e)->port->aging, __ATOMIC_ACQUIRE);
	if (ag == NULL)
		return;
	pthread_mutex_lock(&ag->lock);
	struct aging_rec **link = ag->count ? rec_find(ag, e) : NULL;
	if (link && *link)
		rec_remove(ag, link);
	pthread_mutex_unlock(&ag->lock);
}

void flow_aging_drop_pipe(struct doca_flow_pipe *pipe)
{
	struct flow_aging *ag = pipe->port->aging;
	if (ag == NULL)
		return;
	pthread_mutex_lock(&ag->lock);
	for (struct aging_rec *r = ag->head, *next; r; r = next) {
		next = r->next;
		if (r->e->pipe_id == pipe->id)
			rec_remove(ag, rec_find(ag, r->e));
	}
	pthread_mutex_unlock(&ag->lock);
}

void flow_aging_port_free(struct doca_flow_port *port)
{
	struct flow_aging *ag = port->aging;
	if (ag == NULL)
		return;
	__atomic_store_n(&port->aging, NULL, __ATOMIC_RELEASE);
	for (struct aging_rec *r = ag->head, *next; r; r = next) {
		next = r->next;
		free(r);
	}
	pthread_mutex_destroy(&ag->lock);
	free(ag->buckets);
	free(ag->in_cycle);
	free(ag->cursor);
	free(ag);
}

/* ------------------------------------------------------------------ handle */

/* Negative DOCA error codes: -1 is taken by "full cycle done". */
#define AGING_ERR(code) (-(int)(code))

/*
 * Under ag->lock: advance queue q's cursor to the next record that ages now, marking it
 * reported. NULL at the end of the cycle (which then ends).
 */
static struct aging_rec *next_aged(struct flow_aging *ag, uint16_t q, uint64_t now)
{
	if (!ag->in_cycle[q]) {
		ag->in_cycle[q] = true;
		ag->cursor[q] = ag->head;
	}
	for (struct aging_rec *r = ag->cursor[q]; r; r = r->next) {
		ag->cursor[q] = r->next;
		if (r->queue != q)
			continue;
		uint64_t pkts = entry_pkts(r->e);
		if (pkts != r->last_pkts) { /* hit since the last look: active now */
			r->last_pkts = pkts;
			r->last_active_ms = now;
			r->aged = false;
			continue;
		}
		if (!r->aged && now - r->last_active_ms >= r->aging_ms) {
			r->aged = true;
			return r;
		}
	}
	ag->in_cycle[q] = false;
	return NULL;
}

int doca_flow_aging_handle(struct doca_flow_port *port, uint16_t queue, uint64_t quota, uint64_t max_entries)
{
	if (!flow_inited(__func__))
		return AGING_ERR(DOCA_ERROR_BAD_STATE);
	doca_error_t err = flow_port_check(port, __func__);
	if (err != DOCA_SUCCESS)
		return AGING_ERR(err);
	if (queue >= port->nr_queues) {
		CORE_LOG_ERR("%s: queue %u out of range (pipe_queues %u)", __func__, queue, port->nr_queues);
		return AGING_ERR(DOCA_ERROR_INVALID_VALUE);
	}
	struct flow_aging *ag = __atomic_load_n(&port->aging, __ATOMIC_ACQUIRE);
	if (ag == NULL) /* nothing ever tracked on the port: every cycle is empty */
		return -1;
	uint64_t start_us = core_trace_now_us();
	uint64_t now = flow_clock_ms();
	int n = 0;
	for (;;) {
		if (max_entries && (uint64_t)n >= max_entries)
			return n;
		if (quota && n > 0 && core_trace_now_us() - start_us >= quota)
			return n;
		pthread_mutex_lock(&ag->lock);
		struct aging_rec *r = next_aged(ag, queue, now);
		struct doca_flow_pipe_entry *e = r ? r->e : NULL;
		void *usr_ctx = e ? e->usr_ctx : NULL;
		pthread_mutex_unlock(&ag->lock);
		if (e == NULL)
			return n > 0 ? n : -1;
		n++;
		if (flow_g.cfg.entry_cb)
			flow_g.cfg.entry_cb(e, queue, DOCA_FLOW_ENTRY_STATUS_SUCCESS, DOCA_FLOW_ENTRY_OP_AGED, usr_ctx);
		/* The callback stopped the port: its aging state is gone. */
		if (port->magic != FLOW_PORT_MAGIC || __atomic_load_n(&port->aging, __ATOMIC_ACQUIRE) != ag)
			return n;
	}
}
