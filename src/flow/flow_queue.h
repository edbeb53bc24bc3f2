/*
 * flow_queue.h - what the add/update/remove calls (flow_entry.c) use of the entry queues
 * (flow_queue.c): the per-thread cache of ADD/UPD records, the queue items, the push of
 * an item and the queueing of an existing entry's operation. The cache and the push are
 * inline because every add runs them: as calls into flow_queue.c they cost an add about
 * as much as the rest of the queueing. Internal to the flow layer.
 */
#ifndef FLOWDPA_FLOW_QUEUE_H_
#define FLOWDPA_FLOW_QUEUE_H_

#include <stdlib.h>

#include "flow_internal.h"

/*
 * An ADD or UPD record lives from the call that queues it until entries_process runs it,
 * usually in the same thread: a small per-thread cache of them keeps malloc out of the
 * insertion path (measured: it was a third of the insertion cost).
 */
#define FLOW_OP_CACHE_MAX 4096

union flow_op_mem {
	struct flow_add_op add;
	struct flow_upd_op upd;
};
struct flow_op_node {
	struct flow_op_node *next;
};
struct flow_op_cache {
	struct flow_op_node *head;
	uint32_t n;
};
/* initial-exec: the general-dynamic model costs a __tls_get_addr call per access (3% of
 * an insertion); 16 bytes fit the static TLS surplus even if the library is dlopen'ed. */
extern _Thread_local struct flow_op_cache flow_op_cache __attribute__((tls_model("initial-exec")));

/* The calling thread's cache is about to hold records: have them freed when it exits. */
void flow_op_cache_register(void);

/*
 * The cache is read by name, never through a pointer to it: gcc 12 with
 * -fsanitize=undefined compiled the null check of such a pointer (the thread's address
 * of the variable) to a branch on flags left by an earlier test, and reported a null
 * access that was not (doca_flow_pipe_hash_add_entry, `make test-sanitize`).
 */

/* A record of union flow_op_mem's size, or NULL (out of memory). */
static inline void *flow_op_alloc(void)
{
	struct flow_op_node *n = flow_op_cache.head;
	if (n) {
		flow_op_cache.head = n->next;
		flow_op_cache.n--;
		return n;
	}
	return core_malloc(sizeof(union flow_op_mem));
}

/* A record back to the thread's cache (at most FLOW_OP_CACHE_MAX kept), else freed. */
static inline void flow_op_free(void *op)
{
	if (op == NULL)
		return;
	if (flow_op_cache.n >= FLOW_OP_CACHE_MAX) {
		free(op);
		return;
	}
	if (flow_op_cache.n == 0 && flow_op_cache.head == NULL)
		flow_op_cache_register();
	struct flow_op_node *n = op;
	n->next = flow_op_cache.head;
	flow_op_cache.head = n;
	flow_op_cache.n++;
}

/* A queue item: an ADD or UPD record, or (low bit set) the entry a DEL removes. */
#define FLOW_QITEM_DEL 1u

static inline uintptr_t flow_qitem_del(struct doca_flow_pipe_entry *e)
{
	return (uintptr_t)e | FLOW_QITEM_DEL;
}

/* The items queued: written under the lock, read without it by entries_process's
 * idle test of the port's other queues (a hint, as any snapshot of several queues). */
static inline uint32_t flow_queue_pending(const struct flow_queue *fq)
{
	return atomic_load_explicit(&fq->pending, memory_order_relaxed);
}
static inline void flow_queue_pending_set(struct flow_queue *fq, uint32_t n)
{
	atomic_store_explicit(&fq->pending, n, memory_order_relaxed);
}

/* The ring word of the queue's i-th oldest item (lock held). */
static inline uintptr_t *flow_queue_slot(struct flow_queue *fq, uint32_t i)
{
	return &fq->ring[(fq->head + i) & (fq->cap - 1)];
}

/* Double the ring (lock held): the items move to the front in FIFO order; false when
 * out of memory. */
bool flow_queue_grow(struct flow_queue *fq);

/* Append item for entry e, and count an add in live (NULL: not an add); false
 * (nothing queued, nothing counted) when the ring could not grow. */
static inline __attribute__((always_inline)) bool flow_queue_push(struct doca_flow_port *port, uint16_t q,
								  uintptr_t item, struct doca_flow_pipe_entry *e,
								  struct flow_live_shard *live)
{
	struct flow_queue *fq = &port->queues[q];
	core_spin_lock(&fq->lock);
	uint32_t pending = flow_queue_pending(fq);
	if (pending == fq->cap && !flow_queue_grow(fq)) {
		core_spin_unlock(&fq->lock);
		return false;
	}
	/* Counted before the processing thread can see the operation. */
	uint8_t queued = atomic_load_explicit(&e->ops_queued, memory_order_relaxed);
	atomic_store_explicit(&e->ops_queued, (uint8_t)(queued + 1), memory_order_relaxed);
	if (live)
		atomic_store_explicit(&live->added, atomic_load_explicit(&live->added, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	*flow_queue_slot(fq, pending) = item;
	flow_queue_pending_set(fq, pending + 1);
	core_spin_unlock(&fq->lock);
	return true;
}

/*
 * Queue an UPD record or a DEL item (flow_qitem_del) of an existing entry on queue q.
 * BAD_STATE when operations of the entry are pending on another queue (the DEL could
 * run, and free the entry, before them) or too many are pending; NO_MEMORY.
 */
FLOWDPA_MUST_CHECK doca_error_t flow_queue_entry_op(struct doca_flow_pipe_entry *e, uint16_t q, uintptr_t item,
						    const char *who);

#endif /* FLOWDPA_FLOW_QUEUE_H_ */
