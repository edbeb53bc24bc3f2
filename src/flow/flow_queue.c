/*
 * flow_queue.c - the entry queues: one FIFO of operations per (port, pipe_queue), filled
 * by the add/update/remove calls (flow_entry.c, through flow_queue.h's push) and
 * drained by doca_flow_entries_process, which executes the operations in order on the
 * NIC (adds of one pipe in bulk) and reports each through the entry callback
 * (docs/flow.md, Model). Also the per-thread cache of ADD/UPD records (its thread-exit
 * drain), which ports a thread is processing (flow_in_entry_cb), and what a pipe's
 * destruction does to operations still queued.
 */
#include <stdio.h>
#include <stdlib.h>

#include "flow_queue.h"

DOCA_LOG_REGISTER(FLOW::QUEUE);

/* ------------------------------------------------------------------ op cache */

_Thread_local struct flow_op_cache flow_op_cache __attribute__((tls_model("initial-exec")));
static pthread_key_t op_key;
static pthread_once_t op_once = PTHREAD_ONCE_INIT;

static void op_cache_drain(void *arg)
{
	struct flow_op_cache *c = arg;
	while (c->head) {
		struct flow_op_node *n = c->head;
		c->head = n->next;
		free(n);
	}
	c->n = 0;
}

static void op_key_init(void)
{
	pthread_key_create(&op_key, op_cache_drain);
}

void flow_op_cache_register(void)
{
	pthread_once(&op_once, op_key_init);
	pthread_setspecific(op_key, &flow_op_cache);
}

void flow_op_cache_drain(void)
{
	op_cache_drain(&flow_op_cache);
}

/* ------------------------------------------------------------------ queues */

static struct doca_flow_pipe_entry *qitem_entry(uintptr_t it)
{
	if (it & FLOW_QITEM_DEL)
		return (struct doca_flow_pipe_entry *)(it & ~(uintptr_t)FLOW_QITEM_DEL);
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

bool flow_queue_grow(struct flow_queue *fq)
{
	uint32_t cap = fq->cap ? fq->cap * 2 : 64;
	uintptr_t *ring = core_malloc((size_t)cap * sizeof(*ring));
	if (ring == NULL)
		return false;
	for (uint32_t i = 0, n = flow_queue_pending(fq); i < n; i++)
		ring[i] = *flow_queue_slot(fq, i);
	free(fq->ring);
	fq->ring = ring;
	fq->cap = cap;
	fq->head = 0;
	return true;
}

/* Take up to max (and FLOW_PROC_BATCH) of the oldest items into b, which stays on the
 * queue's list of batches until queue_batch_done; returns how many. */
static uint32_t queue_pop_batch(struct flow_queue *fq, struct flow_batch *b, uint32_t max)
{
	core_spin_lock(&fq->lock);
	uint32_t pending = flow_queue_pending(fq), n = pending < max ? pending : max;
	if (n > FLOW_PROC_BATCH)
		n = FLOW_PROC_BATCH;
	for (uint32_t i = 0; i < n; i++)
		b->it[i] = *flow_queue_slot(fq, i);
	b->n = n;
	if (n) {
		fq->head = (fq->head + n) & (fq->cap - 1);
		flow_queue_pending_set(fq, pending - n);
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

doca_error_t flow_queue_entry_op(struct doca_flow_pipe_entry *e, uint16_t q, uintptr_t item, const char *who)
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
	if (!flow_queue_push(flow_entry_pipe(e)->port, q, item, e, NULL))
		return CORE_LOG_NOMEM(who, "the queue");
	return DOCA_SUCCESS;
}

/* An item of a pipe being destroyed, dropped unexecuted (flow_g.lock held). */
static void drop_item(struct doca_flow_port *port, const struct doca_flow_pipe *pipe, uintptr_t it)
{
	if (it & FLOW_QITEM_DEL)
		return;
	struct flow_op *op = (struct flow_op *)it;
	if (op->type == FLOW_OP_ADD) { /* never added */
		struct flow_add_op *a = (struct flow_add_op *)(void *)op;
		flow_shared_unref(port, &a->shared_id);
		if (pipe->type == DOCA_FLOW_PIPE_CONTROL)
			free(a->attr.cond);
	}
	flow_op_free(op); /* first member of its record */
}

void flow_queue_drop_pipe(struct doca_flow_port *port, struct doca_flow_pipe *pipe)
{
	for (uint16_t q = 0; q < port->nr_queues; q++) {
		struct flow_queue *fq = &port->queues[q];
		core_spin_lock(&fq->lock);
		uint32_t kept = 0;
		for (uint32_t i = 0, n = flow_queue_pending(fq); i < n; i++) {
			uintptr_t it = *flow_queue_slot(fq, i);
			if (qitem_entry(it)->pipe_id != pipe->id) {
				*flow_queue_slot(fq, kept++) = it;
				continue;
			}
			drop_item(port, pipe, it);
		}
		flow_queue_pending_set(fq, kept);
		/* An item still in a batch is not taken yet (claim_run), so it is alive. */
		for (struct flow_batch *b = fq->batches; b; b = b->up)
			for (uint32_t i = 0; i < b->n; i++) {
				uintptr_t it = b->it[i];
				if (it && qitem_entry(it)->pipe_id == pipe->id) {
					b->it[i] = 0;
					drop_item(port, pipe, it);
				}
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
		for (uint32_t i = 0, n_q = flow_queue_pending(fq); i < n_q; i++) {
			const struct doca_flow_pipe *pipe = flow_entry_pipe(qitem_entry(*flow_queue_slot(fq, i)));
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

/* ------------------------------------------------------------------ process */

/* The ports whose doca_flow_entries_process this thread is inside, innermost first:
 * entry callbacks run there, and must not free what the loop still uses. batch: the one
 * the call is executing on queue (NULL between batches). */
struct flow_processing {
	const struct doca_flow_port *port;
	struct flow_processing *up;
	uint16_t queue;
	struct flow_batch *batch;
};
static _Thread_local struct flow_processing *processing;

const struct doca_flow_port *flow_in_entry_cb(const struct doca_flow_port *port)
{
	for (const struct flow_processing *f = processing; f; f = f->up)
		if (port == NULL || f->port == port)
			return f->port;
	return NULL;
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
static void execute_adds(const uintptr_t *items, uint32_t n, uint16_t q)
{
	struct flow_add_op *a[FLOW_PROC_BATCH];
	const struct nic_entry_attr *attrs[FLOW_PROC_BATCH];
	struct nic_entry *ne[FLOW_PROC_BATCH];
	doca_error_t err[FLOW_PROC_BATCH];
	struct doca_flow_pipe_entry *e[FLOW_PROC_BATCH];
	for (uint32_t i = 0; i < n; i++) {
		a[i] = (struct flow_add_op *)items[i];
		attrs[i] = &a[i]->attr;
	}
	struct doca_flow_pipe *pipe = flow_entry_pipe(a[0]->entry);
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
			flow_shared_unref_locking(pipe->port, &a[i]->shared_id);
		}
		flow_entry_flags_set(e[i], FLOW_EF_IN_NIC | FLOW_EF_STATUS,
				     err[i] == DOCA_SUCCESS ? FLOW_EF_IN_NIC | DOCA_FLOW_ENTRY_STATUS_SUCCESS
							    : DOCA_FLOW_ENTRY_STATUS_ERROR);
		flow_op_free(a[i]);
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
	flow_op_free(u);
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
	flow_entry_forget(e, q); /* reads the shared counter off the NIC entry */
	flow_entry_flags_set(e, FLOW_EF_IN_NIC, 0);
	nic_entry_free(np, nic);
	flow_entry_release(e);
}

static bool qitem_is_add(uintptr_t it)
{
	return !(it & FLOW_QITEM_DEL) && ((const struct flow_op *)it)->type == FLOW_OP_ADD;
}

/*
 * Take the batch's item i and, if it is an add, the adds into the same pipe right after
 * it, into run (the queue's lock held): flow_queue_drop_pipe, which may run meanwhile in
 * an entry callback or another thread, drops only items not taken yet, and reads them,
 * so an item is taken and zeroed under the lock, and freed only once taken. One lock
 * per run, not an atomic exchange per item. Returns how many were taken (0: item i was
 * dropped with its pipe).
 */
static uint32_t claim_run(struct flow_queue *fq, struct flow_batch *b, uint32_t i, uint32_t max, uintptr_t *run)
{
	core_spin_lock(&fq->lock);
	uintptr_t it = b->it[i];
	uint32_t n = 0;
	if (it) {
		b->it[i] = 0;
		run[n++] = it;
		if (qitem_is_add(it)) {
			uint32_t pipe_id = qitem_entry(it)->pipe_id;
			for (uint32_t j = i + 1; j < b->n && n < max; j++) {
				uintptr_t next = b->it[j];
				if (next == 0 || !qitem_is_add(next) || qitem_entry(next)->pipe_id != pipe_id)
					break;
				b->it[j] = 0;
				run[n++] = next;
			}
		}
	}
	core_spin_unlock(&fq->lock);
	return n;
}

/* Execute the items of a batch not taken yet, in order, adds of one pipe in a row
 * together, at most budget of them; returns how many ran. */
static uint32_t execute_batch(struct flow_queue *fq, struct flow_batch *b, uint16_t q, uint32_t budget)
{
	uint32_t ran = 0;
	for (uint32_t i = 0; i < b->n && ran < budget; i++) {
		uintptr_t run[FLOW_PROC_BATCH];
		uint32_t n = claim_run(fq, b, i, budget - ran, run);
		if (n == 0)
			continue; /* its pipe was destroyed meanwhile */
		ran += n;
		i += n - 1;
		if (run[0] & FLOW_QITEM_DEL)
			execute_del(qitem_entry(run[0]), q);
		else if (!qitem_is_add(run[0]))
			execute_upd((struct flow_upd_op *)run[0], q);
		else
			execute_adds(run, n, q);
	}
	return ran;
}

/*
 * A callback processing its own queue (f: the calls this thread is inside, innermost
 * first): the items the outer calls on that queue took off it and have not run yet are
 * older than the ring's, so they run first, the outermost call's first; the outer calls
 * then find them taken. Returns how many ran, at most budget.
 */
static uint32_t execute_outer_batches(struct flow_queue *fq, const struct flow_processing *f,
				      const struct doca_flow_port *port, uint16_t q, uint32_t budget)
{
	if (f == NULL)
		return 0;
	uint32_t ran = execute_outer_batches(fq, f->up, port, q, budget);
	if (f->port == port && f->queue == q && f->batch && ran < budget)
		ran += execute_batch(fq, f->batch, q, budget - ran);
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
	struct flow_processing frame = {port, processing, pipe_queue, NULL};
	processing = &frame;
	total += execute_outer_batches(fq, frame.up, port, pipe_queue, budget);
	/*
	 * Batches of operations taken off the queue under one hold of its lock: a callback
	 * (or another thread) may destroy a pipe meanwhile, and flow_queue_drop_pipe then
	 * also drops that pipe's operations from the batches being executed, which stay
	 * visible to it (struct flow_batch). Callbacks may queue new operations, and process
	 * them (the lock is not held while executing), after what this call has not run yet
	 * (execute_outer_batches).
	 */
	while (total < budget) {
		struct flow_batch b;
		if (queue_pop_batch(fq, &b, budget - total) == 0)
			break;
		frame.batch = &b;
		total += execute_batch(fq, &b, pipe_queue, UINT32_MAX);
		frame.batch = NULL;
		queue_batch_done(fq, &b);
	}
	/* A resize completes on a queue its pipe does not exclude (flow_resize.c). */
	if (atomic_load_explicit(&port->resizes_pending, memory_order_acquire))
		flow_resize_progress(port, pipe_queue);
	/* Without the queues' locks: taking them stalled the queues' own threads. */
	bool idle = true;
	for (uint16_t q = 0; q < port->nr_queues; q++)
		idle &= flow_queue_pending(&port->queues[q]) == 0;
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

