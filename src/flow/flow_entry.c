/*
 * flow_entry.c - DOCA Flow entries: add/update/remove validate their arguments at once
 * and queue an operation on (pipe's port, pipe_queue); doca_flow_entries_process
 * executes queued operations in FIFO order on the NIC and reports each through the
 * entry callback (docs/flow.md, Model). Also counter queries, calc_hash and shared counters.
 */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "flow_field.h"
#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::ENTRY);

/* An entry of a CONTROL pipe, or of a BASIC or HASH pipe whose pool had no free slot. */
struct flow_heap_entry {
	struct doca_flow_pipe_entry e; /* first: the handle is the object's address */
	struct flow_heap_entry *next, *prev;
	struct nic_entry *nic; /* CONTROL: its NIC entry (in_nic); others find theirs by slot */
};

/* ------------------------------------------------------------------ op cache */

/*
 * An ADD or UPD record lives from the call that queues it until entries_process runs it,
 * usually in the same thread: a small per-thread cache of them keeps malloc out of the
 * insertion path (measured: it was a third of the insertion cost).
 */
#define OP_CACHE_MAX 4096

union flow_op_mem {
	struct flow_add_op add;
	struct flow_upd_op upd;
};
struct op_cache {
	struct op_node *head;
	uint32_t n;
};
struct op_node {
	struct op_node *next;
};
/* initial-exec: the general-dynamic model costs a __tls_get_addr call per access (3% of
 * an insertion); 16 bytes fit the static TLS surplus even if the library is dlopen'ed. */
static _Thread_local struct op_cache op_cache __attribute__((tls_model("initial-exec")));
static pthread_key_t op_key;
static pthread_once_t op_once = PTHREAD_ONCE_INIT;

static void op_cache_drain(void *arg)
{
	struct op_cache *c = arg;
	while (c->head) {
		struct op_node *n = c->head;
		c->head = n->next;
		free(n);
	}
	c->n = 0;
}

static void op_key_init(void)
{
	pthread_key_create(&op_key, op_cache_drain);
}

static void *op_alloc(void)
{
	struct op_cache *c = &op_cache;
	if (c->head) {
		struct op_node *n = c->head;
		c->head = n->next;
		c->n--;
		return n;
	}
	return core_malloc(sizeof(union flow_op_mem));
}

static void op_free(void *op)
{
	struct op_cache *c = &op_cache;
	if (op == NULL)
		return;
	if (c->n >= OP_CACHE_MAX) {
		free(op);
		return;
	}
	if (c->n == 0 && c->head == NULL) {
		/* First use in this thread: drain the cache when the thread exits. */
		pthread_once(&op_once, op_key_init);
		pthread_setspecific(op_key, c);
	}
	struct op_node *n = op;
	n->next = c->head;
	c->head = n;
	c->n++;
}

/* Free the calling thread's cache now (doca_flow_destroy: the main thread never exits
 * through pthread_exit, so its cache would otherwise outlive the library's state). */
void flow_op_cache_drain(void)
{
	op_cache_drain(&op_cache);
}

/* ------------------------------------------------------------------ queues */

static void shared_unref(struct doca_flow_port *port, int32_t *id);

/* A queue item: an ADD or UPD record, or (low bit set) the entry a DEL removes. */
#define QITEM_DEL 1u

static uintptr_t qitem_del(struct doca_flow_pipe_entry *e)
{
	return (uintptr_t)e | QITEM_DEL;
}

static struct doca_flow_pipe_entry *qitem_entry(uintptr_t it)
{
	if (it & QITEM_DEL)
		return (struct doca_flow_pipe_entry *)(it & ~(uintptr_t)QITEM_DEL);
	const struct flow_op *op = (const struct flow_op *)it;
	if (op->type == FLOW_OP_ADD)
		return ((const struct flow_add_op *)(const void *)op)->entry;
	return ((const struct flow_upd_op *)(const void *)op)->entry;
}

static uint32_t ops_pending(const struct doca_flow_pipe_entry *e)
{
	uint8_t done = atomic_load_explicit(&e->ops_done, memory_order_acquire);
	return (uint8_t)(atomic_load_explicit(&e->ops_queued, memory_order_relaxed) - done);
}

/* After executing one of the entry's operations; release: what it did is seen by
 * whoever then finds nothing pending and queues on another queue. */
static void ops_one_done(struct doca_flow_pipe_entry *e)
{
	uint8_t done = atomic_load_explicit(&e->ops_done, memory_order_relaxed);
	atomic_store_explicit(&e->ops_done, (uint8_t)(done + 1), memory_order_release);
}

/* The items queued: written under the lock, read without it by entries_process's
 * idle test of the port's other queues (a hint, as any snapshot of several queues). */
static inline uint32_t queue_pending(const struct flow_queue *fq)
{
	return atomic_load_explicit(&fq->pending, memory_order_relaxed);
}
static inline void queue_pending_set(struct flow_queue *fq, uint32_t n)
{
	atomic_store_explicit(&fq->pending, n, memory_order_relaxed);
}

/* The ring word of the queue's i-th oldest item (lock held). */
static uintptr_t *queue_slot(struct flow_queue *fq, uint32_t i)
{
	return &fq->ring[(fq->head + i) & (fq->cap - 1)];
}

/* Double the ring (lock held): the items move to the front in FIFO order. */
static bool queue_grow(struct flow_queue *fq)
{
	uint32_t cap = fq->cap ? fq->cap * 2 : 64;
	uintptr_t *ring = core_malloc((size_t)cap * sizeof(*ring));
	if (ring == NULL)
		return false;
	for (uint32_t i = 0, n = queue_pending(fq); i < n; i++)
		ring[i] = *queue_slot(fq, i);
	free(fq->ring);
	fq->ring = ring;
	fq->cap = cap;
	fq->head = 0;
	return true;
}

/* Append item for entry e, and count an add in live (NULL: not an add); false
 * (nothing queued, nothing counted) when the ring could not grow. */
static inline __attribute__((always_inline)) bool queue_push(
	struct doca_flow_port *port, uint16_t q, uintptr_t item, struct doca_flow_pipe_entry *e,
	struct flow_live_shard *live)
{
	struct flow_queue *fq = &port->queues[q];
	core_spin_lock(&fq->lock);
	uint32_t pending = queue_pending(fq);
	if (pending == fq->cap && !queue_grow(fq)) {
		core_spin_unlock(&fq->lock);
		return false;
	}
	/* Counted before the processing thread can see the operation. */
	uint8_t queued = atomic_load_explicit(&e->ops_queued, memory_order_relaxed);
	atomic_store_explicit(&e->ops_queued, (uint8_t)(queued + 1), memory_order_relaxed);
	if (live)
		atomic_store_explicit(&live->added, atomic_load_explicit(&live->added, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	*queue_slot(fq, pending) = item;
	queue_pending_set(fq, pending + 1);
	core_spin_unlock(&fq->lock);
	return true;
}

/* Take up to max (and FLOW_PROC_BATCH) of the oldest items into b, which stays on the
 * queue's list of batches until queue_batch_done; returns how many. */
static uint32_t queue_pop_batch(struct flow_queue *fq, struct flow_batch *b, uint32_t max)
{
	core_spin_lock(&fq->lock);
	uint32_t pending = queue_pending(fq), n = pending < max ? pending : max;
	if (n > FLOW_PROC_BATCH)
		n = FLOW_PROC_BATCH;
	for (uint32_t i = 0; i < n; i++)
		atomic_init(&b->it[i], *queue_slot(fq, i));
	b->n = n;
	if (n) {
		fq->head = (fq->head + n) & (fq->cap - 1);
		queue_pending_set(fq, pending - n);
		b->up = fq->batches;
		fq->batches = b;
	}
	core_spin_unlock(&fq->lock);
	return n;
}

static void queue_batch_done(struct flow_queue *fq, struct flow_batch *b)
{
	core_spin_lock(&fq->lock);
	struct flow_batch **link = &fq->batches;
	while (*link != b) /* a callback's own entries_process pushed and popped its batches */
		link = &(*link)->up;
	*link = b->up;
	core_spin_unlock(&fq->lock);
}

/*
 * Queues an operation of an existing entry. One on another queue while some are still
 * pending would let the DEL run (and free the entry) before them: refused instead.
 */
static doca_error_t entry_queue_op(struct doca_flow_pipe_entry *e, uint16_t q, uintptr_t item, const char *who)
{
	uint32_t pending = ops_pending(e);

	CHECK(pending == 0 || e->ops_queue == q, DOCA_ERROR_BAD_STATE,
	      "%s: the entry has %u operation(s) pending on queue %u; use that queue or process it first", who,
	      pending, e->ops_queue);
	CHECK(pending < FLOW_ENTRY_MAX_PENDING, DOCA_ERROR_BAD_STATE,
	      "%s: the entry has %u operations pending, the most it can; call doca_flow_entries_process", who,
	      pending);
	if (pending == 0)
		e->ops_queue = (uint8_t)q;
	if (!queue_push(flow_entry_pipe(e)->port, q, item, e, NULL))
		return CORE_LOG_NOMEM(who, "the queue");
	return DOCA_SUCCESS;
}

/* An item of a pipe being destroyed, dropped unexecuted (flow_g.lock held). */
static void drop_item(struct doca_flow_port *port, const struct doca_flow_pipe *pipe, uintptr_t it)
{
	if (it & QITEM_DEL)
		return;
	struct flow_op *op = (struct flow_op *)it;
	if (op->type == FLOW_OP_ADD) { /* never added */
		struct flow_add_op *a = (struct flow_add_op *)(void *)op;
		shared_unref(port, &a->shared_id);
		if (pipe->type == DOCA_FLOW_PIPE_CONTROL)
			free(a->attr.cond);
	}
	op_free(op); /* first member of its record */
}

void flow_queue_drop_pipe(struct doca_flow_port *port, struct doca_flow_pipe *pipe)
{
	for (uint16_t q = 0; q < port->nr_queues; q++) {
		struct flow_queue *fq = &port->queues[q];
		core_spin_lock(&fq->lock);
		uint32_t kept = 0;
		for (uint32_t i = 0, n = queue_pending(fq); i < n; i++) {
			uintptr_t it = *queue_slot(fq, i);
			if (qitem_entry(it)->pipe_id != pipe->id) {
				*queue_slot(fq, kept++) = it;
				continue;
			}
			drop_item(port, pipe, it);
		}
		queue_pending_set(fq, kept);
		for (struct flow_batch *b = fq->batches; b; b = b->up)
			for (uint32_t i = 0; i < b->n; i++) {
				uintptr_t it = atomic_load_explicit(&b->it[i], memory_order_acquire);
				if (it && qitem_entry(it)->pipe_id == pipe->id &&
				    atomic_compare_exchange_strong_explicit(&b->it[i], &it, 0, memory_order_acq_rel,
									    memory_order_acquire))
					drop_item(port, pipe, it);
			}
		core_spin_unlock(&fq->lock);
	}
}

/*
 * Called from a NIC worker thread: the port's queues live until its stop has joined that
 * thread, pipe objects until doca_flow_destroy, and an operation's entry while it is
 * queued, so the queue locks are all it needs.
 */
void flow_queue_warn_unprocessed(void *ctx, uint16_t port_id)
{
	const struct doca_flow_port *p = ctx;
	const struct doca_flow_port *owner = p->manager ? p->manager : p;
	const struct doca_flow_pipe *first = NULL;
	uint32_t n = 0, elsewhere = 0;
	for (uint16_t q = 0; q < owner->nr_queues; q++) {
		struct flow_queue *fq = &owner->queues[q];
		core_spin_lock(&fq->lock);
		for (uint32_t i = 0, n_q = queue_pending(fq); i < n_q; i++) {
			const struct doca_flow_pipe *pipe = flow_entry_pipe(qitem_entry(*queue_slot(fq, i)));
			if (first == NULL)
				first = pipe;
			elsewhere += pipe != first;
			n++;
		}
		core_spin_unlock(&fq->lock);
	}
	if (n == 0)
		return;
	char more[48] = "";
	if (elsewhere)
		snprintf(more, sizeof(more), " (%u of them on other pipes)", elsewhere);
	CORE_LOG_WARN("port %u: traffic started with %u queued entry ops on pipe '%s'%s; call doca_flow_entries_process",
		      port_id, n, first->name, more);
}

/*
 * An entry holds one reference on its shared counter from the call that queues its ADD
 * (resolve_counter) to the first of: the add refused after all (entry_discard), an ERROR
 * completion of the ADD, its DEL, its pipe's destruction (a still-queued ADD included).
 * While the ADD is queued its record holds the id; once added, the NIC entry's state
 * names the counter (entry_shared_id). Under flow_g.lock; *id is reset with the
 * reference, so each path gives it back once.
 */
static void shared_unref(struct doca_flow_port *port, int32_t *id)
{
	if (*id >= 0) {
		assert(port->shared_counters[*id].refs > 0);
		port->shared_counters[*id].refs--;
		*id = -1;
	}
}

static void shared_unref_locking(struct doca_flow_port *port, int32_t *id)
{
	if (*id < 0)
		return;
	pthread_mutex_lock(&flow_g.lock);
	shared_unref(port, id);
	pthread_mutex_unlock(&flow_g.lock);
}

/* The shared counter id of an entry in the NIC, or -1. */
static int32_t entry_shared_id(const struct doca_flow_pipe_entry *e)
{
	struct nic_entry *ne = flow_entry_nic(e);
	const struct doca_flow_pipe *p = flow_entry_pipe(e);
	struct nic_counter *cnt = ne ? nic_entry_shared_counter(p->nic, ne) : NULL;
	if (cnt == NULL)
		return -1;
	const struct flow_shared_counter *c =
		(const struct flow_shared_counter *)(const void *)((const char *)cnt -
								   offsetof(struct flow_shared_counter, cnt));
	return (int32_t)(c - p->port->shared_counters);
}

/* ------------------------------------------------------------------ entry objects */

/*
 * A HASH pipe's size is fixed at creation, as in hardware: its entry objects are one
 * cache line per index in one anonymous mapping, zero and committed lazily
 * (MAP_NORESERVE): creating a pipe of any size writes nothing, and an add pays for the
 * page its slot is on when it first touches it (issue 13: a 16M-entry pipe populated
 * up front took seconds and a GiB whether its indices were used or not).
 */
static size_t pool_bytes(const struct doca_flow_pipe *pipe)
{
	return (size_t)pipe->pool_n * sizeof(struct doca_flow_pipe_entry);
}

doca_error_t flow_entry_pool_create(struct doca_flow_pipe *pipe)
{
	static _Atomic uint64_t pool_gens;
	uint32_t reserve = flow_resize_reserve(pipe);
	pipe->pool_n = reserve > pipe->nr_entries ? reserve : pipe->nr_entries;
	void *mem = mmap(NULL, pool_bytes(pipe), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
	CHECK(mem != MAP_FAILED, DOCA_ERROR_NO_MEMORY, "doca_flow_pipe_create: pipe '%s': no memory for %u entries",
	      pipe->name, pipe->nr_entries);
	/* One fault per 2 MiB of slots, not per 4 KiB, where the kernel has huge pages. */
	if (pool_bytes(pipe) >= (4u << 20) && pipe->type == DOCA_FLOW_PIPE_HASH)
		(void)madvise(mem, pool_bytes(pipe), MADV_HUGEPAGE);
	pipe->pool_mem = mem;
	pipe->pool = mem;
	/* Committed ahead of the BASIC cursor (pool_take) or the highest HASH index added. */
	core_prefault_start(&pipe->pool_pf, mem, pool_bytes(pipe), 0);
	atomic_init(&pipe->pool_used, 0);
	pipe->pool_gen = atomic_fetch_add_explicit(&pool_gens, 1, memory_order_relaxed) + 1;
	atomic_init(&pipe->pool_free, NULL);
	pthread_mutex_init(&pipe->pool_lock, NULL);
	return DOCA_SUCCESS;
}

void flow_entry_pool_free(struct doca_flow_pipe *pipe)
{
	if (pipe->pool_mem) {
		core_prefault_stop(&pipe->pool_pf);
		munmap(pipe->pool_mem, pool_bytes(pipe));
		pthread_mutex_destroy(&pipe->pool_lock);
	}
	pipe->pool_mem = NULL;
	pipe->pool = NULL;
}

/* The pool slots that may hold an entry: all of a HASH pool, the claimed BASIC ones
 * (some of them, in threads' runs, never used: magic 0). */
static uint32_t pool_slots(const struct doca_flow_pipe *pipe)
{
	if (pipe->pool == NULL)
		return 0;
	if (pipe->type == DOCA_FLOW_PIPE_HASH)
		return pipe->nr_entries;
	return atomic_load_explicit(&pipe->pool_used, memory_order_acquire);
}

static bool in_pool(const struct doca_flow_pipe_entry *e)
{
	const struct doca_flow_pipe *p = flow_entry_pipe(e);
	return p->pool && (uintptr_t)e - (uintptr_t)p->pool < (size_t)p->pool_n * sizeof(*e);
}

struct nic_entry *flow_entry_nic(const struct doca_flow_pipe_entry *e)
{
	if (!flow_entry_has(e, FLOW_EF_IN_NIC))
		return NULL;
	const struct doca_flow_pipe *p = flow_entry_pipe(e);
	if (p->type == DOCA_FLOW_PIPE_CONTROL)
		return ((const struct flow_heap_entry *)(const void *)e)->nic;
	return nic_pipe_entry_at(p->nic, e->index); /* HASH: index; BASIC: nic_slot */
}

static struct doca_flow_pipe_entry *slot_init(struct doca_flow_pipe_entry *e);

/* The slot of a HASH index if it is free, claimed (BUSY); NULL if taken. */
static struct doca_flow_pipe_entry *pool_claim(struct doca_flow_pipe *pipe, uint32_t index)
{
	struct doca_flow_pipe_entry *e = &pipe->pool[index];
	core_prefault_at(&pipe->pool_pf, (size_t)index * sizeof(*e));
	uint32_t m = atomic_load_explicit(&e->magic, memory_order_relaxed);
	if (m != 0 && m != FLOW_ENTRY_DEAD)
		return NULL;
	/* Another queue's thread may add at the same index: one of them wins the slot. */
	if (!atomic_compare_exchange_strong_explicit(&e->magic, &m, FLOW_ENTRY_BUSY, memory_order_acquire,
						     memory_order_relaxed))
		return NULL;
	return slot_init(e);
}

/*
 * A thread's run of never-used BASIC slots, claimed with one atomic for POOL_RUN adds,
 * so that threads filling one pipe neither share the claim's line per add nor write
 * each other's handle lines. A few runs per thread (by pool generation); a run is
 * replaced only once used up, so a pool whose place holds another's run claims single
 * slots instead of abandoning it. At most what is left of a run when its thread exits
 * is never handed out (adds past the pool take heap handles, as past nr_entries).
 */
#define POOL_RUN 32
#define POOL_RUNS 4
struct pool_run {
	uint64_t gen; /* the pool's pool_gen; 0: none */
	uint32_t next, end;
};
static _Thread_local struct pool_run pool_runs[POOL_RUNS] __attribute__((tls_model("initial-exec")));

static struct doca_flow_pipe_entry *pool_run_take(struct doca_flow_pipe *pipe)
{
	struct pool_run *r = &pool_runs[pipe->pool_gen % POOL_RUNS];
	if (r->gen == pipe->pool_gen && r->next < r->end)
		return &pipe->pool[r->next++];
	/* Another live pool's run (which a thread may come back to) is a run of one here. */
	uint32_t want = r->gen != pipe->pool_gen && r->next < r->end ? 1 : POOL_RUN;
	uint32_t n = atomic_load_explicit(&pipe->pool_used, memory_order_relaxed), take;
	do {
		uint32_t lim = __atomic_load_n(&pipe->nr_entries, __ATOMIC_RELAXED); /* a resize raises it */
		if (n >= lim)
			return NULL;
		take = lim - n < want ? lim - n : want;
	} while (!atomic_compare_exchange_weak_explicit(&pipe->pool_used, &n, n + take, memory_order_release,
							memory_order_relaxed));
	core_prefault_at(&pipe->pool_pf, (size_t)(n + take) * sizeof(struct doca_flow_pipe_entry));
	if (want > 1)
		*r = (struct pool_run){pipe->pool_gen, n + 1, n + take};
	return &pipe->pool[n];
}

/*
 * A BASIC slot (BUSY): a freed one if any, else the next of the thread's run; NULL when
 * all nr_entries are claimed (adds queued beyond the pipe's size, or queued before the
 * DELs that free slots ran, or slots left in exited threads' runs): those come from the
 * heap. A fill never takes the lock: no malloc and no lock per add (they were a fifth
 * of the insertion cost).
 */
static struct doca_flow_pipe_entry *pool_take(struct doca_flow_pipe *pipe)
{
	struct doca_flow_pipe_entry *e = NULL;
	if (atomic_load_explicit(&pipe->pool_free, memory_order_relaxed) != NULL) {
		pthread_mutex_lock(&pipe->pool_lock);
		e = atomic_load_explicit(&pipe->pool_free, memory_order_relaxed);
		if (e != NULL)
			atomic_store_explicit(&pipe->pool_free, (struct doca_flow_pipe_entry *)e->usr_ctx,
					      memory_order_relaxed);
		pthread_mutex_unlock(&pipe->pool_lock);
	}
	if (e == NULL && (e = pool_run_take(pipe)) == NULL)
		return NULL;
	atomic_store_explicit(&e->magic, FLOW_ENTRY_BUSY, memory_order_relaxed);
	return slot_init(e);
}

static struct doca_flow_pipe_entry *slot_init(struct doca_flow_pipe_entry *e)
{
	/* The slot keeps what its previous entry left: every field is set again. */
	atomic_store_explicit(&e->ops_queued, 0, memory_order_relaxed);
	atomic_store_explicit(&e->ops_done, 0, memory_order_relaxed);
	e->index = 0;
	e->ops_queue = 0;
	atomic_store_explicit(&e->flags, DOCA_FLOW_ENTRY_STATUS_IN_PROCESS, memory_order_relaxed);
	e->usr_ctx = NULL;
	return e;
}

/* An entry object for an add: the pool slot of a free HASH index, else the heap. */
static struct doca_flow_pipe_entry *entry_obtain(struct doca_flow_pipe *pipe, uint32_t index)
{
	struct doca_flow_pipe_entry *e = NULL;
	if (pipe->pool)
		e = pipe->type == DOCA_FLOW_PIPE_HASH ? pool_claim(pipe, index) : pool_take(pipe);
	if (e == NULL) {
		struct flow_heap_entry *h = core_calloc(1, sizeof(*h));
		if (h == NULL)
			return NULL;
		e = &h->e;
	}
	e->pipe_id = pipe->id;
	return e;
}

/* The end of an entry object: the slot returns to the pool, or the memory is freed. */
static void entry_release(struct doca_flow_pipe_entry *e)
{
	if (in_pool(e)) {
		struct doca_flow_pipe *p = flow_entry_pipe(e);
		if (p->type == DOCA_FLOW_PIPE_BASIC) {
			pthread_mutex_lock(&p->pool_lock);
			atomic_store_explicit(&e->magic, FLOW_ENTRY_DEAD, memory_order_relaxed);
			e->usr_ctx = atomic_load_explicit(&p->pool_free, memory_order_relaxed);
			atomic_store_explicit(&p->pool_free, e, memory_order_relaxed);
			pthread_mutex_unlock(&p->pool_lock);
			return;
		}
		/* Last access: from here another add may claim the slot. */
		atomic_store_explicit(&e->magic, FLOW_ENTRY_DEAD, memory_order_release);
		return;
	}
	atomic_store_explicit(&e->magic, FLOW_ENTRY_DEAD, memory_order_relaxed);
	free((struct flow_heap_entry *)(void *)e);
}

static void heap_link(struct doca_flow_pipe_entry *e)
{
	struct flow_heap_entry *h = (struct flow_heap_entry *)(void *)e;
	struct doca_flow_pipe *p = flow_entry_pipe(e);
	h->prev = NULL;
	h->next = p->entries;
	if (p->entries)
		p->entries->prev = h;
	p->entries = h;
}

static void heap_unlink(struct doca_flow_pipe_entry *e)
{
	struct flow_heap_entry *h = (struct flow_heap_entry *)(void *)e;
	struct doca_flow_pipe *p = flow_entry_pipe(e);
	if (h->prev)
		h->prev->next = h->next;
	else
		p->entries = h->next;
	if (h->next)
		h->next->prev = h->prev;
}

static bool slot_live(const struct doca_flow_pipe_entry *e)
{
	return atomic_load_explicit(&e->magic, memory_order_relaxed) == FLOW_ENTRY_MAGIC;
}

void flow_entry_for_each(struct doca_flow_pipe *pipe, void (*fn)(const struct doca_flow_pipe_entry *e, void *arg),
			 void *arg)
{
	for (const struct flow_heap_entry *h = pipe->entries; h; h = h->next)
		fn(&h->e, arg);
	for (uint32_t i = 0, n = pool_slots(pipe); i < n; i++)
		if (slot_live(&pipe->pool[i]))
			fn(&pipe->pool[i], arg);
}

static void entry_shared_release(const struct doca_flow_pipe_entry *e, void *arg)
{
	int32_t id = entry_shared_id(e);
	shared_unref(arg, &id);
}

void flow_entry_shared_release_all(struct doca_flow_pipe *pipe)
{
	/* Queued adds gave theirs back in flow_queue_drop_pipe; with none live, no scan. */
	if (flow_pipe_live(pipe) != 0)
		flow_entry_for_each(pipe, entry_shared_release, pipe->port);
}

doca_error_t flow_pipe_live_create(struct doca_flow_pipe *pipe)
{
	uint32_t n = pipe->port->nr_queues;
	pipe->live = core_calloc_aligned(_Alignof(struct flow_live_shard), n * sizeof(*pipe->live));
	if (pipe->live == NULL)
		return CORE_LOG_NOMEM("doca_flow_pipe_create", "the pipe's entry counts");
	pipe->nr_live_shards = n;
	return DOCA_SUCCESS;
}

uint32_t flow_pipe_live(const struct doca_flow_pipe *pipe)
{
	/* A queue removes another's adds, and the counts are read one after the other, so
	 * an add and its removal meanwhile can make the sum negative for a moment: none
	 * then. */
	uint32_t sum = 0;
	for (uint32_t q = 0; q < pipe->nr_live_shards; q++)
		sum += atomic_load_explicit(&pipe->live[q].added, memory_order_relaxed) -
		       atomic_load_explicit(&pipe->live[q].removed, memory_order_relaxed);
	return (int32_t)sum < 0 ? 0 : sum;
}

/* Under flow_g.lock, after flow_queue_drop_pipe freed the operations still queued. */
void flow_entry_destroy_all(struct doca_flow_pipe *pipe)
{
	flow_aging_drop_pipe(pipe);
	struct flow_heap_entry *h = pipe->entries;
	pipe->entries = NULL;
	while (h) {
		struct flow_heap_entry *next = h->next;
		entry_release(&h->e); /* its NIC entry went with the NIC pipe */
		h = next;
	}
	flow_entry_pool_free(pipe);
	for (uint32_t q = 0; q < pipe->nr_live_shards; q++) {
		atomic_store_explicit(&pipe->live[q].added, 0, memory_order_relaxed);
		atomic_store_explicit(&pipe->live[q].removed, 0, memory_order_relaxed);
	}
}

/* ------------------------------------------------------------------ add */

/* The pieces of every add call (checks, handle, queue push) are inlined into each add
 * function (always_inline): gcc -O2 leaves them calls, 50 instructions an add. */
static inline __attribute__((always_inline)) doca_error_t
check_common(uint16_t q, const struct doca_flow_pipe *pipe, uint32_t flags, const char *who)
{
	if (!flow_inited(who))
		return DOCA_ERROR_BAD_STATE;
	if (!flow_pipe_valid(pipe, who))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(pipe->port->started, DOCA_ERROR_BAD_STATE, "%s: port %u of pipe '%s' is not started", who,
	      pipe->port->id, pipe->name);
	CHECK(q < pipe->port->nr_queues, DOCA_ERROR_INVALID_VALUE, "%s: pipe_queue %u out of range (pipe_queues %u)",
	      who, q, pipe->port->nr_queues);
	CHECK(!(DOCA_FLOW_FLAGS_IS_SET(flags, DOCA_FLOW_ENTRY_FLAGS_NO_WAIT) &&
		DOCA_FLOW_FLAGS_IS_SET(flags, DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH)),
	      DOCA_ERROR_INVALID_VALUE, "%s: flags set both NO_WAIT and WAIT_FOR_BATCH", who);
	return DOCA_SUCCESS;
}

static doca_error_t resolve_fwd(const struct doca_flow_pipe *p, const struct doca_flow_fwd *efwd,
				struct nic_fwd *out, const char *who)
{
	if (p->fwd_fixed) {
		*out = p->fixed_fwd;
		return DOCA_SUCCESS;
	}
	if (p->has_fwd && p->fwd.type != DOCA_FLOW_FWD_NONE) {
		CHECK(efwd != NULL, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s' needs a per-entry fwd", who, p->name);
		if (p->fwd.type != DOCA_FLOW_FWD_CHANGEABLE)
			CHECK(efwd->type == p->fwd.type, DOCA_ERROR_INVALID_VALUE,
			      "%s: pipe '%s': entry fwd type %u does not match the pipe's %u", who, p->name,
			      (unsigned)efwd->type, (unsigned)p->fwd.type);
	}
	return flow_fwd_convert(efwd, out, who);
}

static doca_error_t resolve_counter(const struct doca_flow_pipe *p, const struct doca_flow_monitor *m,
				    struct nic_entry_attr *attr, int32_t *shared_id, const char *who)
{
	uint32_t id = UINT32_MAX;
	*shared_id = -1;
	if (m)
		CHECK(m->meter_type == DOCA_FLOW_RESOURCE_TYPE_NONE, DOCA_ERROR_NOT_SUPPORTED,
		      "%s: pipe '%s': meters are not supported by the software NIC", who, p->name);
	if (p->counter_per_entry) {
		attr->own_counter = true;
	} else if (p->counter_shared_fixed) {
		id = p->shared_counter_id;
	} else if (p->counter_shared_per_entry) {
		CHECK(m != NULL, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s' needs a per-entry shared counter id", who,
		      p->name);
		id = m->shared_counter.shared_counter_id;
	} else if (m && m->counter_type == DOCA_FLOW_RESOURCE_TYPE_NON_SHARED) {
		attr->own_counter = true;
	} else if (m && m->counter_type == DOCA_FLOW_RESOURCE_TYPE_SHARED) {
		id = m->shared_counter.shared_counter_id;
	}
	if (id == UINT32_MAX)
		return DOCA_SUCCESS;
	doca_error_t err = flow_shared_id_check(p->port, id, who);
	if (err != DOCA_SUCCESS)
		return err;
	/* The entry's reference (shared_unref), taken with the check so that a put cannot
	 * free the id between them. */
	struct flow_shared_counter *c = &p->port->shared_counters[id];
	pthread_mutex_lock(&flow_g.lock);
	bool usable = c->allocated || c->configured;
	if (usable)
		c->refs++;
	pthread_mutex_unlock(&flow_g.lock);
	/* An id nobody obtained or configured would count into a counter nobody reads. */
	CHECK(usable, DOCA_ERROR_INVALID_VALUE,
	      "%s: shared counter id %u of port %u was never obtained (doca_flow_port_shared_resource_get) "
	      "or configured (doca_flow_port_shared_resource_set_cfg)",
	      who, id, p->port->id);
	attr->shared_counter = &c->cnt;
	*shared_id = (int32_t)id;
	return DOCA_SUCCESS;
}

static doca_error_t check_action_idx(const struct doca_flow_pipe *pipe, uint8_t action_idx, const char *who)
{
	CHECK(action_idx < pipe->nr_actions, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s': action_idx %u out of range (nr_actions %u)", who, pipe->name, action_idx,
	      pipe->nr_actions);
	return DOCA_SUCCESS;
}

/* index: the HASH index (it picks the pool slot), 0 for other pipes. The ADD record
 * returned names the entry; entry_discard undoes both on a later refusal. */
static inline __attribute__((always_inline)) doca_error_t
entry_new(struct doca_flow_pipe *pipe, uint32_t index, uint8_t action_idx, const struct doca_flow_actions *actions,
	  const struct doca_flow_monitor *monitor, const struct doca_flow_fwd *fwd, void *usr_ctx,
	  struct flow_add_op **out, const char *who)
{
	doca_error_t err = check_action_idx(pipe, action_idx, who);
	if (err != DOCA_SUCCESS)
		return err;
	struct flow_add_op *a = op_alloc();
	if (a == NULL)
		return CORE_LOG_NOMEM(who, "the queued operation");
	a->shared_id = -1;
	struct doca_flow_pipe_entry *e = entry_obtain(pipe, index);
	if (e == NULL) {
		err = CORE_LOG_NOMEM(who, "the entry");
		goto fail;
	}
	struct nic_entry_attr *attr = &a->attr;
	/* Only the fields used by the pipe type are read; the rest stay unset. */
	attr->own_counter = false;
	attr->shared_counter = NULL;
	attr->index = index;
	attr->priority = 0;
	err = resolve_fwd(pipe, fwd, &attr->fwd, who);
	if (err == DOCA_SUCCESS)
		err = resolve_counter(pipe, monitor, attr, &a->shared_id, who);
	if (err != DOCA_SUCCESS)
		goto fail;
	/* Aging watches a counter (flow_aging.c): an entry without one gets its own. */
	a->aging_sec = flow_aging_entry_sec(pipe, monitor);
	if (a->aging_sec && attr->shared_counter == NULL)
		attr->own_counter = true;
	flow_actions_entry(&pipe->act[action_idx], actions, pipe->ps_field, &attr->actions, &attr->ps_value);
	e->usr_ctx = usr_ctx;
	e->index = index;
	a->op.type = FLOW_OP_ADD;
	a->entry = e;
	/* Published to other threads by the queue lock of entry_queue_add. */
	atomic_store_explicit(&e->magic, FLOW_ENTRY_MAGIC, memory_order_relaxed);
	*out = a;
	return DOCA_SUCCESS;

fail:
	if (e != NULL)
		entry_release(e);
	op_free(a);
	return err;
}

static void entry_discard(struct flow_add_op *a)
{
	shared_unref_locking(flow_entry_pipe(a->entry)->port, &a->shared_id);
	entry_release(a->entry);
	op_free(a);
}

static inline __attribute__((always_inline)) doca_error_t
entry_queue_add(uint16_t q, struct flow_add_op *a, struct doca_flow_pipe_entry **entry, const char *who)
{
	struct doca_flow_pipe_entry *e = a->entry;
	struct doca_flow_pipe *p = flow_entry_pipe(e);
	/* Pool slots are found by index, not on a list: no global lock on their insertion. */
	bool heap = !in_pool(e);
	if (heap) {
		pthread_mutex_lock(&flow_g.lock);
		heap_link(e);
		pthread_mutex_unlock(&flow_g.lock);
	}
	e->ops_queue = (uint8_t)q;
	if (!queue_push(p->port, q, (uintptr_t)&a->op, e, &p->live[q])) {
		if (heap) {
			pthread_mutex_lock(&flow_g.lock);
			heap_unlink(e);
			pthread_mutex_unlock(&flow_g.lock);
		}
		entry_discard(a);
		return CORE_LOG_NOMEM(who, "the queue");
	}
	if (entry)
		*entry = e;
	if (p->resize.threshold) /* may deliver CONGESTION_REACHED (flow_resize.c) */
		flow_resize_added(p);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_basic_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
					    const struct doca_flow_match *match, uint8_t action_idx,
					    const struct doca_flow_actions *actions, const struct doca_flow_monitor *monitor,
					    const struct doca_flow_fwd *fwd, uint32_t flags, void *usr_ctx,
					    struct doca_flow_pipe_entry **entry)
{
	static const char *who = "doca_flow_pipe_basic_add_entry";
	doca_error_t err = check_common(pipe_queue, pipe, flags, who);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(pipe->type == DOCA_FLOW_PIPE_BASIC, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s' is not a BASIC pipe", who,
	      pipe->name);
	struct flow_add_op *a;
	err = entry_new(pipe, 0, action_idx, actions, monitor, fwd, usr_ctx, &a, who);
	if (err != DOCA_SUCCESS)
		return err;
	err = flow_match_entry(&pipe->mprog, match, &a->attr.match, who);
	if (err != DOCA_SUCCESS) {
		entry_discard(a);
		return err;
	}
	CORE_LOG_TRC("%s: pipe '%s' queue %u: entry add queued", who, pipe->name, pipe_queue);
	return entry_queue_add(pipe_queue, a, entry, who);
}

doca_error_t doca_flow_pipe_control_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
					      const struct doca_flow_match *match,
					      const struct doca_flow_match *match_mask,
					      const struct doca_flow_match_condition *condition,
					      const struct doca_flow_actions *actions,
					      const struct doca_flow_actions *actions_mask,
					      const struct doca_flow_action_descs *action_descs,
					      const struct doca_flow_monitor *monitor, uint32_t priority,
					      const struct doca_flow_fwd *fwd, void *usr_ctx,
					      struct doca_flow_pipe_entry **entry)
{
	static const char *who = "doca_flow_pipe_control_add_entry";
	doca_error_t err = check_common(pipe_queue, pipe, 0, who);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(pipe->type == DOCA_FLOW_PIPE_CONTROL, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s' is not a CONTROL pipe",
	      who, pipe->name);
	/* A condition's immediate value is taken out of the match (flow_cond.c). */
	struct doca_flow_match m = {0};
	if (match)
		m = *match;
	struct nic_cond *cond = NULL;
	struct nic_actions na;
	err = flow_cond_compile(condition, &m, &cond, pipe->name, who);
	if (err == DOCA_SUCCESS)
		err = flow_descs_control_entry(pipe, action_descs, actions, actions_mask, &na, who);
	struct flow_add_op *a = NULL;
	if (err == DOCA_SUCCESS)
		err = entry_new(pipe, 0, 0, NULL, monitor, fwd, usr_ctx, &a, who);
	if (err != DOCA_SUCCESS) {
		free(cond);
		return err;
	}
	a->attr.actions = na;
	a->attr.ps_value = 0;
	a->attr.priority = a->entry->priority = priority;
	err = flow_match_control(match || condition ? &m : NULL, match_mask, &a->attr.match, &a->attr.mask, who);
	if (err != DOCA_SUCCESS) {
		free(cond);
		entry_discard(a);
		return err;
	}
	a->attr.cond = cond; /* the NIC entry owns it once added; an add that fails frees it */
	CORE_LOG_TRC("%s: pipe '%s' queue %u: entry add queued (priority %u)", who, pipe->name, pipe_queue, priority);
	return entry_queue_add(pipe_queue, a, entry, who);
}

doca_error_t doca_flow_pipe_hash_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe, uint32_t entry_index,
					   uint8_t action_idx, const struct doca_flow_actions *actions,
					   const struct doca_flow_monitor *monitor, const struct doca_flow_fwd *fwd,
					   uint32_t flags, void *usr_ctx, struct doca_flow_pipe_entry **entry)
{
	static const char *who = "doca_flow_pipe_hash_add_entry";
	doca_error_t err = check_common(pipe_queue, pipe, flags, who);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(pipe->type == DOCA_FLOW_PIPE_HASH, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s' is not a HASH pipe", who,
	      pipe->name);
	CHECK(entry_index < pipe->nr_entries, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s': entry_index %u out of range (nr_entries %u)", who, pipe->name, entry_index,
	      pipe->nr_entries);
	struct flow_add_op *a;
	err = entry_new(pipe, entry_index, action_idx, actions, monitor, fwd, usr_ctx, &a, who);
	if (err != DOCA_SUCCESS)
		return err;
	CORE_LOG_TRC("%s: pipe '%s' queue %u: entry %u add queued", who, pipe->name, pipe_queue, entry_index);
	return entry_queue_add(pipe_queue, a, entry, who);
}

static bool entry_valid(const struct doca_flow_pipe_entry *e, const char *who)
{
	if (e == NULL) {
		CORE_LOG_ERR("%s: entry is NULL", who);
		return false;
	}
	if (atomic_load_explicit(&e->magic, memory_order_relaxed) != FLOW_ENTRY_MAGIC) {
		CORE_LOG_ERR("%s: not a live DOCA Flow entry", who);
		return false;
	}
	return true;
}

doca_error_t doca_flow_pipe_basic_update_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe, uint8_t action_idx,
					       const struct doca_flow_actions *actions,
					       const struct doca_flow_monitor *monitor, const struct doca_flow_fwd *fwd,
					       uint32_t flags, struct doca_flow_pipe_entry *entry)
{
	static const char *who = "doca_flow_pipe_basic_update_entry";
	doca_error_t err = check_common(pipe_queue, pipe, flags, who);
	if (err != DOCA_SUCCESS)
		return err;
	if (!entry_valid(entry, who))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(flow_entry_pipe(entry) == pipe, DOCA_ERROR_INVALID_VALUE, "%s: the entry does not belong to pipe '%s'", who,
	      pipe->name);
	CHECK(pipe->type == DOCA_FLOW_PIPE_BASIC || pipe->type == DOCA_FLOW_PIPE_HASH, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s' is neither BASIC nor HASH", who, pipe->name);
	CHECK(!flow_entry_has(entry, FLOW_EF_DEL_QUEUED), DOCA_ERROR_BAD_STATE, "%s: the entry is being removed",
	      who);
	err = check_action_idx(pipe, action_idx, who);
	if (err != DOCA_SUCCESS)
		return err;
	(void)monitor; /* counters are fixed at add time */
	struct flow_upd_op *op = op_alloc();
	if (op == NULL)
		return CORE_LOG_NOMEM(who, "the queued operation");
	err = resolve_fwd(pipe, fwd, &op->fwd, who);
	if (err != DOCA_SUCCESS) {
		op_free(op);
		return err;
	}
	flow_actions_entry(&pipe->act[action_idx], actions, pipe->ps_field, &op->actions, &op->ps_value);
	op->op.type = FLOW_OP_UPD;
	op->entry = entry;
	err = entry_queue_op(entry, pipe_queue, (uintptr_t)&op->op, who);
	if (err != DOCA_SUCCESS) {
		op_free(op);
		return err;
	}
	flow_entry_flags_set(entry, FLOW_EF_STATUS, DOCA_FLOW_ENTRY_STATUS_IN_PROCESS);
	CORE_LOG_TRC("%s: pipe '%s' queue %u: entry update queued (action_idx %u)", who, pipe->name, pipe_queue,
		     action_idx);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_remove_entry(uint16_t pipe_queue, uint32_t flags, struct doca_flow_pipe_entry *entry)
{
	static const char *who = "doca_flow_pipe_remove_entry";
	if (!entry_valid(entry, who))
		return DOCA_ERROR_INVALID_VALUE;
	doca_error_t err = check_common(pipe_queue, flow_entry_pipe(entry), flags, who);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(!flow_entry_has(entry, FLOW_EF_DEL_QUEUED), DOCA_ERROR_BAD_STATE,
	      "%s: the entry is already being removed", who);
	err = entry_queue_op(entry, pipe_queue, qitem_del(entry), who);
	if (err == DOCA_SUCCESS) {
		flow_entry_flags_set(entry, FLOW_EF_DEL_QUEUED, FLOW_EF_DEL_QUEUED);
		CORE_LOG_TRC("%s: pipe '%s' queue %u: entry removal queued", who, flow_entry_pipe(entry)->name,
			     pipe_queue);
	}
	return err;
}

enum doca_flow_entry_status doca_flow_pipe_entry_get_status(struct doca_flow_pipe_entry *entry)
{
	if (!entry_valid(entry, __func__))
		return DOCA_FLOW_ENTRY_STATUS_ERROR;
	return flow_entry_status(entry);
}

/* ------------------------------------------------------------------ process */

/* The ports whose doca_flow_entries_process this thread is inside, innermost first:
 * entry callbacks run there, and must not free what the loop still uses. */
struct flow_processing {
	const struct doca_flow_port *port;
	struct flow_processing *up;
};
static _Thread_local struct flow_processing *processing;

const struct doca_flow_port *flow_in_entry_cb(const struct doca_flow_port *port)
{
	for (const struct flow_processing *f = processing; f; f = f->up)
		if (port == NULL || f->port == port)
			return f->port;
	return NULL;
}

/* A removed entry leaves its pipe's count, list (heap entries) and shared counter. */
static void entry_forget(struct doca_flow_pipe_entry *e, uint16_t q)
{
	bool pooled = in_pool(e);
	struct doca_flow_pipe *pipe = flow_entry_pipe(e);
	atomic_fetch_add_explicit(&pipe->live[q].removed, 1, memory_order_relaxed);
	int32_t id = entry_shared_id(e);
	if (pooled && id < 0)
		return;
	pthread_mutex_lock(&flow_g.lock);
	if (!pooled)
		heap_unlink(e);
	shared_unref(pipe->port, &id);
	pthread_mutex_unlock(&flow_g.lock);
}

static void complete(struct doca_flow_pipe_entry *e, uint16_t q, enum doca_flow_entry_status st,
		     enum doca_flow_entry_op op)
{
	if (flow_g.cfg.entry_cb)
		flow_g.cfg.entry_cb(e, q, st, op, e->usr_ctx);
}

/*
 * Adds of one pipe taken off a queue in a row (n <= FLOW_PROC_BATCH): into the NIC in one
 * bulk (nic_entry_add_bulk), then completed in order. A callback may destroy the pipe,
 * which ends the entries still to complete with it (flow_entry_destroy_all): their
 * records are already freed and nothing of theirs is read after that.
 */
static void execute_adds(struct flow_add_op **a, uint32_t n, uint16_t q)
{
	struct doca_flow_pipe *pipe = flow_entry_pipe(a[0]->entry);
	const struct nic_entry_attr *attrs[FLOW_PROC_BATCH];
	struct nic_entry *ne[FLOW_PROC_BATCH];
	doca_error_t err[FLOW_PROC_BATCH];
	struct doca_flow_pipe_entry *e[FLOW_PROC_BATCH];
	for (uint32_t i = 0; i < n; i++)
		attrs[i] = &a[i]->attr;
	nic_entry_add_bulk(pipe->nic, attrs, n, ne, err);
	for (uint32_t i = 0; i < n; i++) {
		e[i] = a[i]->entry;
		if (err[i] == DOCA_SUCCESS) {
			if (pipe->type == DOCA_FLOW_PIPE_CONTROL)
				((struct flow_heap_entry *)(void *)e[i])->nic = ne[i];
			else if (pipe->type == DOCA_FLOW_PIPE_BASIC)
				e[i]->nic_slot = nic_pipe_entry_slot(pipe->nic, ne[i]);
			if (a[i]->aging_sec)
				flow_aging_track(e[i], q, a[i]->aging_sec);
		} else {
			if (pipe->type == DOCA_FLOW_PIPE_CONTROL)
				free(a[i]->attr.cond); /* the NIC owns it only once added */
			/* A failed add counts nothing; an added one's NIC entry holds the reference. */
			shared_unref_locking(pipe->port, &a[i]->shared_id);
		}
		flow_entry_flags_set(e[i], FLOW_EF_IN_NIC | FLOW_EF_STATUS,
				     err[i] == DOCA_SUCCESS ? FLOW_EF_IN_NIC | DOCA_FLOW_ENTRY_STATUS_SUCCESS
							    : DOCA_FLOW_ENTRY_STATUS_ERROR);
		op_free(a[i]);
	}
	for (uint32_t i = 0; i < n && pipe->magic == FLOW_PIPE_MAGIC; i++) {
		ops_one_done(e[i]);
		complete(e[i], q, flow_entry_status(e[i]), DOCA_FLOW_ENTRY_OP_ADD);
	}
}

static void execute_upd(struct flow_upd_op *u, uint16_t q)
{
	struct doca_flow_pipe_entry *e = u->entry;
	struct nic_entry *ne = flow_entry_nic(e);
	doca_error_t err = ne ? nic_entry_update(flow_entry_pipe(e)->nic, ne, &u->actions, u->ps_value, &u->fwd)
			      : DOCA_ERROR_BAD_STATE;
	op_free(u);
	enum doca_flow_entry_status st = err == DOCA_SUCCESS ? DOCA_FLOW_ENTRY_STATUS_SUCCESS
							     : DOCA_FLOW_ENTRY_STATUS_ERROR;
	flow_entry_flags_set(e, FLOW_EF_STATUS, (uint8_t)st);
	ops_one_done(e);
	complete(e, q, st, DOCA_FLOW_ENTRY_OP_UPD);
}

static void execute_del(struct doca_flow_pipe_entry *e, uint16_t q)
{
	/* nic_entry_remove waits until no packet can still use the entry. */
	struct doca_flow_pipe *pipe = flow_entry_pipe(e); /* pipe objects outlive their destruction */
	struct nic_pipe *np = pipe->nic;
	struct nic_entry *nic = flow_entry_nic(e);
	if (nic && nic_entry_remove(np, nic) != DOCA_SUCCESS) {
		flow_entry_flags_set(e, FLOW_EF_DEL_QUEUED, 0); /* still live: the program may retry */
		ops_one_done(e);
		complete(e, q, DOCA_FLOW_ENTRY_STATUS_ERROR, DOCA_FLOW_ENTRY_OP_DEL);
		return;
	}
	/* The callback may still read the entry's final counters. */
	complete(e, q, DOCA_FLOW_ENTRY_STATUS_SUCCESS, DOCA_FLOW_ENTRY_OP_DEL);
	if (pipe->magic != FLOW_PIPE_MAGIC) {
		/* The callback destroyed the pipe, and the entry with it (flow_entry_destroy_all),
		 * but not its NIC entry: that was unlinked from the NIC pipe above. */
		nic_entry_free(np, nic);
		return;
	}
	flow_aging_untrack(e);
	entry_forget(e, q); /* reads the shared counter off the NIC entry */
	flow_entry_flags_set(e, FLOW_EF_IN_NIC, 0);
	nic_entry_free(np, nic);
	entry_release(e);
}

static bool qitem_is_add(uintptr_t it)
{
	return !(it & QITEM_DEL) && ((const struct flow_op *)it)->type == FLOW_OP_ADD;
}

/* Execute the items of a batch in order (claiming each from flow_queue_drop_pipe), adds
 * of one pipe in a row together; returns how many ran. */
static uint32_t execute_batch(struct flow_batch *b, uint16_t q)
{
	uint32_t ran = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		uintptr_t it = atomic_exchange_explicit(&b->it[i], 0, memory_order_acq_rel);
		if (it == 0)
			continue; /* its pipe was destroyed meanwhile */
		ran++;
		if (it & QITEM_DEL) {
			execute_del(qitem_entry(it), q);
			continue;
		}
		if (!qitem_is_add(it)) {
			execute_upd((struct flow_upd_op *)it, q);
			continue;
		}
		struct flow_add_op *adds[FLOW_PROC_BATCH];
		uint32_t n = 0;
		uint32_t pipe_id = qitem_entry(it)->pipe_id;
		adds[n++] = (struct flow_add_op *)it;
		while (i + 1 < b->n) {
			uintptr_t next = atomic_load_explicit(&b->it[i + 1], memory_order_acquire);
			if (next == 0 || !qitem_is_add(next) || qitem_entry(next)->pipe_id != pipe_id ||
			    atomic_exchange_explicit(&b->it[i + 1], 0, memory_order_acq_rel) != next)
				break;
			adds[n++] = (struct flow_add_op *)next;
			i++;
		}
		ran += n - 1;
		execute_adds(adds, n, q);
	}
	return ran;
}

doca_error_t doca_flow_entries_process(struct doca_flow_port *port, uint16_t pipe_queue, uint64_t timeout,
				       uint32_t max_processed_entries)
{
	(void)timeout; /* execution is synchronous: nothing to wait for */
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	doca_error_t err = flow_port_check(port, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(pipe_queue < port->nr_queues, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe_queue %u out of range (pipe_queues %u)", __func__, pipe_queue, port->nr_queues);
	struct flow_queue *fq = &port->queues[pipe_queue];
	const uint32_t budget = max_processed_entries ? max_processed_entries : UINT32_MAX;
	uint32_t total = 0;
	uint64_t t0 = core_trace_enabled() ? core_trace_now_us() : 0;
	struct flow_processing frame = {port, processing};
	processing = &frame;
	/*
	 * Batches of operations taken off the queue under one hold of its lock: a callback
	 * (or another thread) may destroy a pipe meanwhile, and flow_queue_drop_pipe then
	 * also drops that pipe's operations from the batches being executed, which stay
	 * visible to it (struct flow_batch). Callbacks may queue new operations, and process
	 * them (the lock is not held while executing).
	 */
	while (total < budget) {
		struct flow_batch b;
		if (queue_pop_batch(fq, &b, budget - total) == 0)
			break;
		total += execute_batch(&b, pipe_queue);
		queue_batch_done(fq, &b);
	}
	/* A resize completes on a queue its pipe does not exclude (flow_resize.c). */
	if (atomic_load_explicit(&port->resizes_pending, memory_order_acquire))
		flow_resize_progress(port, pipe_queue);
	/* Without the queues' locks: taking them stalled the queues' own threads. */
	bool idle = true;
	for (uint16_t q = 0; q < port->nr_queues; q++)
		idle &= queue_pending(&port->queues[q]) == 0;
	processing = frame.up;
	if (idle)
		nic_traffic_kick(port->id);
	/* A poll that found nothing changed nothing: only calls that did work are logged. */
	if (total > 0)
		CORE_LOG_TRC("doca_flow_entries_process: port %u queue %u: %u operation(s) processed%s", port->id,
			     pipe_queue, total, idle ? "" : ", more pending");
	if (core_trace_enabled()) {
		char args[96];
		snprintf(args, sizeof(args), "{\"port\":%u,\"queue\":%u,\"processed\":%u}", port->id, pipe_queue,
			 total);
		core_trace_complete(0, "flow", "entries processed", t0, core_trace_now_us() - t0, args);
	}
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ queries */

doca_error_t doca_flow_resource_query_entry(struct doca_flow_pipe_entry *entry, struct doca_flow_resource_query *data)
{
	if (!entry_valid(entry, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(data != NULL, DOCA_ERROR_INVALID_VALUE, "%s: data is NULL", __func__);
	const struct doca_flow_pipe *pipe = flow_entry_pipe(entry);
	struct nic_entry *ne = flow_entry_nic(entry);
	CHECK(ne != NULL, DOCA_ERROR_BAD_STATE, "%s: entry of pipe '%s' is not in the NIC (status %u)", __func__,
	      pipe->name, (unsigned)flow_entry_status(entry));
	uint64_t pkts, bytes;
	CHECK(nic_entry_counter_read(pipe->nic, ne, &pkts, &bytes) == DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE,
	      "%s: entry of pipe '%s' has no counter", __func__, pipe->name);
	data->counter.total_pkts = pkts;
	data->counter.total_bytes = bytes;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_resource_query_pipe_miss(struct doca_flow_pipe *pipe, struct doca_flow_resource_query *data)
{
	if (!flow_pipe_valid(pipe, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(data != NULL, DOCA_ERROR_INVALID_VALUE, "%s: data is NULL", __func__);
	uint64_t pkts, bytes;
	CHECK(nic_pipe_miss_read(pipe->nic, &pkts, &bytes) == DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s' was created without a miss counter", __func__, pipe->name);
	data->counter.total_pkts = pkts;
	data->counter.total_bytes = bytes;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_calc_hash(struct doca_flow_pipe *pipe, const struct doca_flow_match *match, uint32_t *hash)
{
	if (!flow_pipe_valid(pipe, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(match != NULL && hash != NULL, DOCA_ERROR_INVALID_VALUE, "%s: match or hash is NULL", __func__);
	CHECK(pipe->type == DOCA_FLOW_PIPE_HASH, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s' is not a HASH pipe",
	      __func__, pipe->name);
	struct nic_key key;
	doca_error_t err = flow_match_value(match, &key, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	return nic_pipe_calc_hash(pipe->nic, &key, hash);
}

/* ------------------------------------------------------------------ shared counters */

doca_error_t flow_shared_id_check(const struct doca_flow_port *port, uint32_t id, const char *who)
{
	CHECK(id < port->nr_shared_counters, DOCA_ERROR_INVALID_VALUE,
	      "%s: shared counter id %u out of range (port %u has %u)", who, id, port->id, port->nr_shared_counters);
	return DOCA_SUCCESS;
}

static doca_error_t shared_check(struct doca_flow_port *port, enum doca_flow_shared_resource_type type, const char *who)
{
	if (!flow_inited(who))
		return DOCA_ERROR_BAD_STATE;
	doca_error_t err = flow_port_check(port, who);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK((uint32_t)type <= DOCA_FLOW_SHARED_RESOURCE_IPSEC_SA, DOCA_ERROR_INVALID_VALUE,
	      "%s: unknown shared resource type %u", who, (unsigned)type);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_shared_resource_get(struct doca_flow_port *port, enum doca_flow_shared_resource_type type,
						uint32_t *shared_resource_id)
{
	doca_error_t err = shared_check(port, type, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(shared_resource_id != NULL, DOCA_ERROR_INVALID_VALUE, "%s: shared_resource_id is NULL", __func__);
	if (type != DOCA_FLOW_SHARED_RESOURCE_COUNTER) {
		static _Atomic uint32_t next_id;
		*shared_resource_id = atomic_fetch_add(&next_id, 1);
		return DOCA_SUCCESS;
	}
	pthread_mutex_lock(&flow_g.lock);
	for (uint32_t i = 0; i < port->nr_shared_counters; i++) {
		struct flow_shared_counter *c = &port->shared_counters[i];
		if (!c->allocated) {
			memset(c, 0, sizeof(*c));
			c->allocated = true;
			pthread_mutex_unlock(&flow_g.lock);
			*shared_resource_id = i;
			return DOCA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&flow_g.lock);
	CORE_LOG_ERR("%s: port %u has no free shared counter (%u)", __func__, port->id, port->nr_shared_counters);
	return DOCA_ERROR_FULL;
}

doca_error_t doca_flow_port_shared_resource_put(struct doca_flow_port *port, enum doca_flow_shared_resource_type type,
						uint32_t shared_resource_id)
{
	doca_error_t err = shared_check(port, type, __func__);
	if (err != DOCA_SUCCESS || type != DOCA_FLOW_SHARED_RESOURCE_COUNTER)
		return err;
	err = flow_shared_id_check(port, shared_resource_id, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&flow_g.lock);
	struct flow_shared_counter *c = &port->shared_counters[shared_resource_id];
	uint32_t refs = c->refs; /* queued adds included */
	if (refs == 0)
		c->allocated = c->configured = false;
	pthread_mutex_unlock(&flow_g.lock);
	CHECK(refs == 0, DOCA_ERROR_IN_USE, "%s: shared counter %u is used by %u entries", __func__,
	      shared_resource_id, refs);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_shared_resource_set_cfg(struct doca_flow_port *port,
						    enum doca_flow_shared_resource_type type,
						    uint32_t shared_resource_id, struct doca_flow_shared_resource_cfg *cfg)
{
	doca_error_t err = shared_check(port, type, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(cfg != NULL, DOCA_ERROR_INVALID_VALUE, "%s: cfg is NULL", __func__);
	if (type != DOCA_FLOW_SHARED_RESOURCE_COUNTER)
		return DOCA_SUCCESS;
	err = flow_shared_id_check(port, shared_resource_id, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&flow_g.lock);
	port->shared_counters[shared_resource_id].allocated = true;
	port->shared_counters[shared_resource_id].configured = true;
	pthread_mutex_unlock(&flow_g.lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_shared_resources_query(struct doca_flow_port *port,
						   enum doca_flow_shared_resource_type type, uint32_t *res_array,
						   struct doca_flow_resource_query *data_array, uint32_t array_len)
{
	doca_error_t err = shared_check(port, type, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(type == DOCA_FLOW_SHARED_RESOURCE_COUNTER, DOCA_ERROR_NOT_SUPPORTED,
	      "%s: only shared counters can be queried", __func__);
	CHECK(res_array != NULL && data_array != NULL, DOCA_ERROR_INVALID_VALUE, "%s: NULL array", __func__);
	for (uint32_t i = 0; i < array_len && err == DOCA_SUCCESS; i++)
		err = flow_shared_id_check(port, res_array[i], __func__);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < array_len; i++)
		nic_counter_read(&port->shared_counters[res_array[i]].cnt, &data_array[i].counter.total_pkts,
				 &data_array[i].counter.total_bytes);
	return DOCA_SUCCESS;
}
