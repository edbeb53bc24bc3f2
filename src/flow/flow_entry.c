/*
 * flow_entry.c - DOCA Flow entries: the entry objects (a pipe's pool of handles, or the
 * heap), and the add/update/remove calls, which validate their arguments at once and
 * queue an operation on (pipe's port, pipe_queue) for doca_flow_entries_process to
 * execute (flow_queue.c; docs/flow.md, Model).
 */
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "flow_field.h"
#include "flow_queue.h"

DOCA_LOG_REGISTER(FLOW::ENTRY);

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
	/* One fault per 2 MiB of slots, not per 4 KiB, where the kernel has huge pages. A
	 * BASIC pool is filled in order and committed ahead of its cursor by the prefault
	 * thread, which also pays for any compaction a huge page needs: one queue's keyed
	 * fill of 1M entries went from 9 to 12.5 M/s with them (docs/flow.md, Insertion). */
	if (pool_bytes(pipe) >= (4u << 20))
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

/* Whether e, an entry of pipe p, is one of its pool's slots (else a heap object). */
static inline bool in_pool(const struct doca_flow_pipe *p, const struct doca_flow_pipe_entry *e)
{
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
static inline __attribute__((always_inline)) struct doca_flow_pipe_entry *
pool_claim(struct doca_flow_pipe *pipe, uint32_t index)
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
 * A thread's run of never-used BASIC slots, claimed with one atomic for up to POOL_RUN
 * adds, so that threads filling one pipe neither share the claim's line per add nor
 * write next to each other's handles: with runs of 32 (768 bytes), two queues filling
 * one pipe interleaved their blocks (each core's prefetchers most likely pulled in the
 * lines the other was about to write), and the add call cost twice what it did on one
 * queue. Runs of 256 (6 KiB, two threads' runs sharing every other page) still made two
 * queues on cores without a shared last-level cache 3-17% slower (median 9%) than runs
 * of 4096 (96 KiB), fills of either alternated in one process (docs/flow.md). A small
 * pool's runs are a sixteenth of it at most, so that one thread does not take a pipe's
 * handles from the others. A few runs per thread (by pool generation); a run is
 * replaced only once used up, so a pool whose place holds another's run claims single
 * slots instead of abandoning it. At most what is left of a run when its thread exits
 * is never handed out (adds past the pool take heap handles, as past nr_entries).
 */
#define POOL_RUN 4096
#define POOL_RUNS 4
struct pool_run {
	uint64_t gen; /* the pool's pool_gen; 0: none */
	uint32_t next, end;
};
static _Thread_local struct pool_run pool_runs[POOL_RUNS] __attribute__((tls_model("initial-exec")));

/* The thread's runs are read by index, not through a pointer: see flow_queue.h on
 * thread-local objects under gcc's -fsanitize=undefined. */
static struct doca_flow_pipe_entry *pool_run_take(struct doca_flow_pipe *pipe)
{
	const uint32_t i = (uint32_t)(pipe->pool_gen % POOL_RUNS);
	const struct pool_run r = pool_runs[i];
	if (r.gen == pipe->pool_gen && r.next < r.end)
		return &pipe->pool[pool_runs[i].next++];
	/* Another live pool's run (which a thread may come back to) is a run of one here. */
	uint32_t run = pipe->pool_n / 16 < POOL_RUN ? pipe->pool_n / 16 : POOL_RUN;
	uint32_t want = (r.gen != pipe->pool_gen && r.next < r.end) || run == 0 ? 1 : run;
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
		pool_runs[i] = (struct pool_run){pipe->pool_gen, n + 1, n + take};
	return &pipe->pool[n];
}

/*
 * A BASIC slot (BUSY): a freed one if any, else the next of the thread's run; NULL when
 * all nr_entries are claimed (adds queued beyond the pipe's size, or queued before the
 * DELs that free slots ran, or slots left in exited threads' runs): those come from the
 * heap. A fill never takes the lock: no malloc and no lock per add (they were a fifth
 * of the insertion cost).
 */
static struct doca_flow_pipe_entry *pool_take_slow(struct doca_flow_pipe *pipe)
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

/* pool_take_slow's usual case, inline in the add: no freed slot, the run not used up
 * (the call and its register saves were a third of the handle's cost, callgrind). */
static inline __attribute__((always_inline)) struct doca_flow_pipe_entry *pool_take(struct doca_flow_pipe *pipe)
{
	const uint32_t i = (uint32_t)(pipe->pool_gen % POOL_RUNS);
	if (atomic_load_explicit(&pipe->pool_free, memory_order_relaxed) != NULL ||
	    pool_runs[i].gen != pipe->pool_gen || pool_runs[i].next >= pool_runs[i].end)
		return pool_take_slow(pipe);
	struct doca_flow_pipe_entry *e = &pipe->pool[pool_runs[i].next++];
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
static inline __attribute__((always_inline)) struct doca_flow_pipe_entry *
entry_obtain(struct doca_flow_pipe *pipe, uint32_t index)
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

void flow_entry_release(struct doca_flow_pipe_entry *e)
{
	struct doca_flow_pipe *p = flow_entry_pipe(e);
	if (in_pool(p, e)) {
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

void flow_entry_forget(struct doca_flow_pipe_entry *e, uint16_t q)
{
	struct doca_flow_pipe *pipe = flow_entry_pipe(e);
	bool pooled = in_pool(pipe, e);
	atomic_fetch_add_explicit(&pipe->live[q].removed, 1, memory_order_relaxed);
	int32_t id = flow_entry_shared_id(e);
	if (pooled && id < 0)
		return;
	pthread_mutex_lock(&flow_g.lock);
	if (!pooled)
		heap_unlink(e);
	flow_shared_unref(pipe->port, &id);
	pthread_mutex_unlock(&flow_g.lock);
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
	int32_t id = flow_entry_shared_id(e);
	flow_shared_unref(arg, &id);
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

void flow_entry_destroy_all(struct doca_flow_pipe *pipe)
{
	flow_aging_drop_pipe(pipe);
	struct flow_heap_entry *h = pipe->entries;
	pipe->entries = NULL;
	while (h) {
		struct flow_heap_entry *next = h->next;
		flow_entry_release(&h->e); /* its NIC entry went with the NIC pipe */
		h = next;
	}
	flow_entry_pool_free(pipe);
	for (uint32_t q = 0; q < pipe->nr_live_shards; q++) {
		atomic_store_explicit(&pipe->live[q].added, 0, memory_order_relaxed);
		atomic_store_explicit(&pipe->live[q].removed, 0, memory_order_relaxed);
	}
}

/* ------------------------------------------------------------------ add */

/* The pieces of every add call (checks, handle, fwd and counter, queue push) are
 * inlined into each add function (always_inline): gcc -O2 leaves them calls, 50
 * instructions an add for the checks and queue push, and 11% of a HASH add's (2-7% of
 * its time) and 3% of a keyed BASIC add's instructions for the handle, fwd and counter. */
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

static inline __attribute__((always_inline)) doca_error_t
resolve_fwd(const struct doca_flow_pipe *p, const struct doca_flow_fwd *efwd, struct nic_fwd *out, const char *who)
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

static inline __attribute__((always_inline)) doca_error_t
resolve_counter(const struct doca_flow_pipe *p, const struct doca_flow_monitor *m, struct nic_entry_attr *attr,
		int32_t *shared_id, const char *who)
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
	doca_error_t err = flow_shared_ref(p->port, id, who); /* the entry's, until flow_shared_unref */
	if (err != DOCA_SUCCESS)
		return err;
	attr->shared_counter = &p->port->shared_counters[id].cnt;
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
	struct flow_add_op *a = flow_op_alloc();
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
		flow_entry_release(e);
	flow_op_free(a);
	return err;
}

static void entry_discard(struct flow_add_op *a)
{
	flow_shared_unref_locking(flow_entry_pipe(a->entry)->port, &a->shared_id);
	flow_entry_release(a->entry);
	flow_op_free(a);
}

static inline __attribute__((always_inline)) doca_error_t
entry_queue_add(uint16_t q, struct flow_add_op *a, struct doca_flow_pipe_entry **entry, const char *who)
{
	struct doca_flow_pipe_entry *e = a->entry;
	struct doca_flow_pipe *p = flow_entry_pipe(e);
	/* Pool slots are found by index, not on a list: no global lock on their insertion. */
	bool heap = !in_pool(p, e);
	if (heap) {
		pthread_mutex_lock(&flow_g.lock);
		heap_link(e);
		pthread_mutex_unlock(&flow_g.lock);
	}
	e->ops_queue = (uint8_t)q;
	if (!flow_queue_push(p->port, q, (uintptr_t)&a->op, e, &p->live[q])) {
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

bool flow_entry_valid(const struct doca_flow_pipe_entry *e, const char *who)
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
	if (!flow_entry_valid(entry, who))
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
	struct flow_upd_op *op = flow_op_alloc();
	if (op == NULL)
		return CORE_LOG_NOMEM(who, "the queued operation");
	err = resolve_fwd(pipe, fwd, &op->fwd, who);
	if (err != DOCA_SUCCESS) {
		flow_op_free(op);
		return err;
	}
	flow_actions_entry(&pipe->act[action_idx], actions, pipe->ps_field, &op->actions, &op->ps_value);
	op->op.type = FLOW_OP_UPD;
	op->entry = entry;
	err = flow_queue_entry_op(entry, pipe_queue, (uintptr_t)&op->op, who);
	if (err != DOCA_SUCCESS) {
		flow_op_free(op);
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
	if (!flow_entry_valid(entry, who))
		return DOCA_ERROR_INVALID_VALUE;
	doca_error_t err = check_common(pipe_queue, flow_entry_pipe(entry), flags, who);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(!flow_entry_has(entry, FLOW_EF_DEL_QUEUED), DOCA_ERROR_BAD_STATE,
	      "%s: the entry is already being removed", who);
	err = flow_queue_entry_op(entry, pipe_queue, flow_qitem_del(entry), who);
	if (err == DOCA_SUCCESS) {
		flow_entry_flags_set(entry, FLOW_EF_DEL_QUEUED, FLOW_EF_DEL_QUEUED);
		CORE_LOG_TRC("%s: pipe '%s' queue %u: entry removal queued", who, flow_entry_pipe(entry)->name,
			     pipe_queue);
	}
	return err;
}

enum doca_flow_entry_status doca_flow_pipe_entry_get_status(struct doca_flow_pipe_entry *entry)
{
	if (!flow_entry_valid(entry, __func__))
		return DOCA_FLOW_ENTRY_STATUS_ERROR;
	return flow_entry_status(entry);
}
