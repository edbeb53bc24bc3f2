/*
 * pool.c - where the entries of BASIC and HASH pipes live: one slot per entry in a
 * per-pipe pool (a HASH pipe's slot is the entry's index, 16 bytes; a BASIC pipe's is
 * 32 bytes with its match word, handed out in per-thread runs, freed ones reused; both
 * with their first counter shard's cell), the other own-counter cells in one array per
 * counter shard and the wide counters they fold into (nic_cell_fold), a BASIC pipe's
 * further match words, and a bitmap the control side walks instead of linking the
 * entries into lists (BASIC: a bit per slot in use; HASH: a bit per 64 slots that ever
 * held one, as its entries' flags say which do).
 *
 * All of it is mapped lazily (anonymous, MAP_NORESERVE): creating a pipe of any size
 * commits no memory and writes nothing; the pages entries, packets and counters touch
 * are committed when they touch them. A shard's cells are only committed once a
 * datapath thread owning that shard counts on the pipe.
 *
 * Everything here that changes runs under the pipe lock, but a counter fold; adds hold
 * it for reading, and take slot_lock for the BASIC free list and cursor.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::POOL);

void *nic_lazy_alloc(size_t size)
{
	if (size == 0)
		size = 1;
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	/* Big tables: a fault per 2 MiB and fewer TLB misses per packet. */
	if (size >= (4u << 20))
		(void)madvise(m, size, MADV_HUGEPAGE);
	return m;
}

void nic_lazy_free(void *mem, size_t size)
{
	if (mem)
		munmap(mem, size ? size : 1);
}

static size_t bitmap_bytes(uint32_t n)
{
	return ((size_t)n + 63) / 64 * 8;
}

static size_t used_bytes(const struct nic_pipe *p)
{
	return bitmap_bytes(p->type == NIC_PIPE_HASH ? (p->pool_n + 63) / 64 : p->pool_n);
}

static size_t pool_bytes(const struct nic_pipe *p)
{
	return (size_t)p->pool_n * (p->type == NIC_PIPE_BASIC ? sizeof(struct nic_bentry) : sizeof(struct nic_entry));
}

static size_t bmatch_bytes(const struct nic_pipe *p)
{
	return (size_t)p->pool_n * p->nr_entry_words * sizeof(uint64_t);
}

doca_error_t nic_pool_create(struct nic_pipe *p, uint32_t nslots)
{
	p->pool_n = nslots;
	p->pool = nic_lazy_alloc(pool_bytes(p));
	p->used = nic_lazy_alloc(used_bytes(p));
	bool ok = p->pool && p->used;
	for (int s = 1; s < NIC_CNT_SHARDS; s++) {
		p->cells[s] = nic_lazy_alloc((size_t)nslots * sizeof(struct nic_cnt_cell));
		ok = ok && p->cells[s];
	}
	p->spill = nic_lazy_alloc((size_t)nslots * sizeof(*p->spill));
	ok = ok && p->spill;
	if (p->type == NIC_PIPE_BASIC && p->nr_entry_words > 1) {
		p->bmatch = nic_lazy_alloc(bmatch_bytes(p));
		ok = ok && p->bmatch;
	}
	if (!ok) {
		nic_pool_free(p);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* BASIC records (and further match words) are handed out in order: committed ahead
	 * of the cursor (nic_slots_take); HASH ones ahead of the highest index added
	 * (add_chunk); buckets are touched at random: all at once. */
	core_prefault_start(&p->pool_pf, p->pool, pool_bytes(p), 0);
	if (p->type == NIC_PIPE_BASIC) {
		if (p->bmatch)
			core_prefault_start(&p->bmatch_pf, p->bmatch, bmatch_bytes(p), 0);
		struct nic_btable *bt = nic_pipe_btable(p);
		core_prefault_start(&p->buckets_pf, bt, nic_btable_bytes(bt->n), SIZE_MAX);
	}
	return DOCA_SUCCESS;
}

void nic_pool_prefault_stop(struct nic_pipe *p)
{
	core_prefault_stop(&p->pool_pf);
	core_prefault_stop(&p->bmatch_pf);
	core_prefault_stop(&p->buckets_pf);
}

void nic_pool_free(struct nic_pipe *p)
{
	nic_pool_prefault_stop(p);
	nic_lazy_free(p->pool, pool_bytes(p));
	nic_lazy_free(p->used, used_bytes(p));
	for (int s = 1; s < NIC_CNT_SHARDS; s++)
		nic_lazy_free(p->cells[s], (size_t)p->pool_n * sizeof(struct nic_cnt_cell));
	nic_lazy_free(p->spill, (size_t)p->pool_n * sizeof(*p->spill));
	nic_lazy_free(p->bmatch, bmatch_bytes(p));
	p->pool = NULL;
	p->used = NULL;
	p->spill = NULL;
	p->bmatch = NULL;
	memset(p->cells, 0, sizeof(p->cells));
}

/* Atomic: adds holding the pipe lock for reading set bits of one word together. */
void nic_hash_slot_mark(struct nic_pipe *p, uint32_t slot)
{
	uint32_t g = slot / 64;
	if (!(__atomic_load_n(&p->used[g / 64], __ATOMIC_RELAXED) >> (g % 64) & 1))
		__atomic_fetch_or(&p->used[g / 64], 1ull << (g % 64), __ATOMIC_RELAXED);
}

void nic_slots_mark_used(struct nic_pipe *p, const uint32_t *slots, uint32_t n)
{
	for (uint32_t i = 0; i < n;) {
		uint32_t w = slots[i] / 64;
		uint64_t bits = 0;
		for (; i < n && slots[i] / 64 == w; i++)
			bits |= 1ull << (slots[i] % 64);
		__atomic_fetch_or(&p->used[w], bits, __ATOMIC_RELAXED);
	}
}

/* HASH: from itself while its group ever held an entry, else the next such group's first
 * slot (the caller reads each slot's flags). */
static uint32_t hash_next_group(const struct nic_pipe *p, uint32_t from)
{
	uint32_t end = p->pool_n, ng = (end + 63) / 64;
	for (uint32_t g = from / 64; g < ng;) {
		uint64_t w = p->used[g / 64] >> (g % 64);
		if (w) {
			g += (uint32_t)__builtin_ctzll(w);
			uint32_t s = g * 64 > from ? g * 64 : from;
			return s < end ? s : end;
		}
		g = (g / 64 + 1) * 64;
	}
	return end;
}

uint32_t nic_slot_next_used(const struct nic_pipe *p, uint32_t from)
{
	if (p->type == NIC_PIPE_HASH)
		return hash_next_group(p, from);
	uint32_t end = p->pool_hw;
	while (from < end) {
		uint64_t w = p->used[from / 64] >> (from % 64);
		if (w)
			return from + (uint32_t)__builtin_ctzll(w) < end ? from + (uint32_t)__builtin_ctzll(w) : end;
		from = (from / 64 + 1) * 64;
	}
	return end;
}

/* The calling thread's run: threads are numbered in the order they first take slots. */
static uint32_t thread_run(void)
{
	static _Atomic uint32_t threads;
	static _Thread_local uint32_t run_plus_one;
	if (run_plus_one == 0)
		run_plus_one = atomic_fetch_add_explicit(&threads, 1, memory_order_relaxed) % NIC_SLOT_RUNS + 1;
	return run_plus_one - 1;
}

static uint32_t run_take(struct nic_pipe *p, struct nic_slot_run *r, struct nic_bentry **out, uint32_t n)
{
	uint32_t got = 0;
	for (; got < n && r->next < r->end; got++)
		out[got] = nic_bentry_of(nic_pool_entry(p, r->next++));
	return got;
}

/*
 * Freed slots first, then the thread's run, then new runs from the cursor; once the
 * cursor is at the end, the other threads' runs, so that runs never make a pipe full
 * before its last slot.
 */
uint32_t nic_slots_take(struct nic_pipe *p, struct nic_bentry **out, uint32_t n, uint32_t *cursor)
{
	uint32_t got = 0;
	for (uint32_t f; got < n && (f = p->pool_free) != 0; got++) {
		struct nic_bentry *b = nic_bentry_of(nic_pool_entry(p, f - 1));
		p->pool_free = atomic_load_explicit(&b->next[0], memory_order_relaxed);
		atomic_store_explicit(&b->next[0], 0, memory_order_relaxed);
		out[got] = b;
	}
	struct nic_slot_run *own = &p->runs[thread_run()];
	got += run_take(p, own, out + got, n - got);
	uint32_t hw = p->pool_hw, run = p->pool_n / 16 < NIC_SLOT_RUN ? p->pool_n / 16 : NIC_SLOT_RUN;
	run = run ? run : 1;
	while (got < n && p->pool_hw < p->pool_n) {
		uint32_t take = p->pool_n - p->pool_hw < run ? p->pool_n - p->pool_hw : run;
		*own = (struct nic_slot_run){p->pool_hw, p->pool_hw + take};
		p->pool_hw += take;
		got += run_take(p, own, out + got, n - got);
	}
	for (uint32_t r = 0; got < n && r < NIC_SLOT_RUNS; r++)
		got += run_take(p, &p->runs[r], out + got, n - got);
	*cursor = p->pool_hw != hw ? p->pool_hw : 0;
	return got;
}

void nic_slots_commit_ahead(struct nic_pipe *p, uint32_t cursor)
{
	core_prefault_at(&p->pool_pf, (size_t)cursor * sizeof(struct nic_bentry));
	core_prefault_at(&p->bmatch_pf, (size_t)cursor * p->nr_entry_words * sizeof(uint64_t));
}

void nic_slot_release(struct nic_pipe *p, struct nic_entry *e)
{
	uint32_t slot = nic_entry_slot(p, e);
	/* Only what was ever written, and that read before cleared: untouched pages stay so. */
	uint32_t counted = atomic_load_explicit(&p->counted, memory_order_acquire);
	for (int s = 1; s < NIC_CNT_SHARDS; s++)
		if ((counted >> s & 1) && p->cells[s][slot].w)
			p->cells[s][slot].w = 0;
	if ((counted & NIC_COUNTED_SPILL) && (p->spill[slot].pkts || p->spill[slot].bytes))
		p->spill[slot] = (struct nic_cnt_wide){0, 0};
	/* Field by field: a HASH lookup may read the flags of any slot at any time. */
	nic_entry_publish(e, NULL, 0, memory_order_relaxed);
	atomic_store_explicit(&e->val, 0, memory_order_relaxed);
	e->cell0.w = 0;
	if (p->type == NIC_PIPE_BASIC) {
		struct nic_bentry *b = nic_bentry_of(e);
		b->match0 = 0;
		__atomic_fetch_and(&p->used[slot / 64], ~(1ull << (slot % 64)), __ATOMIC_RELAXED);
		atomic_store_explicit(&b->next[0], p->pool_free, memory_order_relaxed);
		p->pool_free = slot + 1;
	}
}

static struct nic_cnt_wide *entry_spill(const struct nic_pipe *p, const struct nic_entry *e)
{
	return p->pool ? &p->spill[nic_entry_slot(p, e)] : &nic_ctrl_of(e)->spill;
}

/* The spill lock of a pipe the datapath and readers hold const. */
static pthread_mutex_t *spill_lock(const struct nic_pipe *p)
{
	return &((struct nic_pipe *)p)->spill_lock;
}

void nic_cell_fold(const struct nic_pipe *p, const struct nic_entry *e, struct nic_cnt_cell *c)
{
	struct nic_cnt_wide *sp = entry_spill(p, e);
	pthread_mutex_lock(spill_lock(p));
	if (p->pool)
		nic_pipe_counted(p, NIC_COUNTED_SPILL);
	/* An add racing this one on the shared shard lands before (moved) or after. */
	uint64_t w = __atomic_exchange_n(&c->w, 0, __ATOMIC_RELAXED);
	sp->pkts += nic_cell_pkts(w);
	sp->bytes += nic_cell_bytes(w);
	pthread_mutex_unlock(spill_lock(p));
}

void nic_entry_cells_read(const struct nic_pipe *p, const struct nic_entry *e, uint64_t *pkts, uint64_t *bytes)
{
	/* Under the fold's lock: a fold moves counts between two words. */
	pthread_mutex_lock(spill_lock(p));
	/* A pool's untouched cells and spill are not read (struct nic_pipe, counted). */
	uint32_t counted = p->pool ? atomic_load_explicit(&p->counted, memory_order_acquire) : UINT32_MAX;
	uint64_t tp = 0, tb = 0;
	if (counted & NIC_COUNTED_SPILL) {
		const struct nic_cnt_wide *sp = entry_spill(p, e);
		tp = sp->pkts;
		tb = sp->bytes;
	}
	for (uint32_t s = 0; s < NIC_CNT_SHARDS; s++) {
		if (s && !(counted >> s & 1))
			continue;
		uint64_t w = __atomic_load_n(&nic_entry_cell(p, e, s)->w, __ATOMIC_RELAXED);
		tp += nic_cell_pkts(w);
		tb += nic_cell_bytes(w);
	}
	pthread_mutex_unlock(spill_lock(p));
	*pkts = tp;
	*bytes = tb;
}

void nic_entry_match_key(const struct nic_pipe *p, const struct nic_entry *e, struct nic_key *out)
{
	memset(out, 0, sizeof(*out));
	if (p->type == NIC_PIPE_CONTROL) {
		*out = nic_ctrl_of(e)->match;
		return;
	}
	if (p->type != NIC_PIPE_BASIC || p->nr_entry_words == 0)
		return;
	if (p->nr_entry_words == 1) {
		out->w[p->entry_words[0]] = nic_bentry_of(e)->match0;
		return;
	}
	const uint64_t *row = nic_entry_words(p, e);
	for (uint32_t i = 0; i < p->nr_entry_words; i++)
		out->w[p->entry_words[i]] = row[i];
}
