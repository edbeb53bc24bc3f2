/*
 * add.c - adds of BASIC and HASH entries, and the BASIC buckets they are linked into.
 *
 * Adds from several queues' threads into one pipe run in parallel. Each call (a flow
 * batch of up to FLOW_PROC_BATCH adds) holds the pipe lock for reading once (every other
 * control call holds it for writing, so none of them sees an add half done) and runs its
 * adds in bursts of up to ADD_CHUNK. They meet the other threads' adds only where they
 * share something: once per call on the pipe lock and the adder count (adders), once per
 * burst on the interned states (intern_lock), the BASIC slots (slot_lock), the entry
 * count (nr_live, atomic) and the words of the BASIC used bitmap, and once per add on its
 * bucket's wlock (BASIC) or its slot's flags word (HASH, a compare-and-swap): shared
 * lines cost a transfer between cores each time the other thread wrote them, so they are
 * met per call where they can be. A BASIC call that finds no other adder runs solo and
 * takes no bucket lock (each is a locked instruction, which drains the store buffer the
 * add just filled); one that arrives meanwhile makes the solo call give that up at its
 * next add or step, and waits for it to have done so before its first bucket. The
 * datapath takes none of these; what it reads is published as pipe.c says.
 */
#include <assert.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::ADD);

/* ------------------------------------------------------------------ buckets */

/* The masked word x of match m: what a BASIC entry of pipe p holds of it. */
static inline uint64_t basic_word(const struct nic_pipe *p, const struct nic_key *m, uint32_t x)
{
	return m->w[x] & p->entry_mask.w[x];
}

/* Whether BASIC entry e holds match m (masked by the pipe) on every word. */
static bool basic_entry_eq(const struct nic_pipe *p, const struct nic_entry *e, const struct nic_key *m)
{
	if (p->nr_entry_words <= 1)
		return nic_bentry_of(e)->match0 == (p->nr_entry_words ? basic_word(p, m, p->entry_words[0]) : 0);
	const uint64_t *row = nic_entry_words(p, e);
	for (uint32_t i = 0; i < p->nr_entry_words; i++)
		if (row[i] != basic_word(p, m, p->entry_words[i]))
			return false;
	return true;
}

/* The entry of bucket bk (chains on link) whose match is m's of hash h, or NULL. */
static struct nic_bentry *basic_find(struct nic_pipe *p, const struct nic_bucket *bk, uint32_t link,
				     const struct nic_key *m, uint32_t h)
{
	struct nic_bucket_iter it;
	nic_bucket_iter_init(&it, bk, link, p->pool, h);
	struct nic_bentry *b;
	while ((b = nic_bucket_iter_next(&it)) != NULL)
		if (basic_entry_eq(p, &b->e, m))
			return b;
	return NULL;
}

/* Link BASIC entry b of hash h into its bucket bk, whose table chains on link (bucket
 * held, or a table no packet walks yet): a free way, else the chain. Published by the
 * release store of its way or of the chain's head. */
static void bucket_link(struct nic_pipe *p, struct nic_bucket *bk, uint32_t link, struct nic_bentry *b, uint32_t h)
{
	for (uint32_t i = 0; i < NIC_BUCKET_WAYS; i++) {
		if (atomic_load_explicit(&bk->way[i], memory_order_relaxed) != 0)
			continue;
		uint64_t tags = atomic_load_explicit(&bk->tags, memory_order_relaxed);
		tags = (tags & ~(0xffffull << (16 * i))) | (uint64_t)nic_bucket_tag(h) << (16 * i);
		atomic_store_explicit(&bk->tags, tags, memory_order_relaxed);
		atomic_store_explicit(&bk->way[i], nic_entry_slot(p, &b->e) + 1, memory_order_release);
		return;
	}
	atomic_store_explicit(&b->next[link], atomic_load_explicit(&bk->over, memory_order_relaxed),
			      memory_order_relaxed);
	atomic_store_explicit(&bk->over, nic_entry_slot(p, &b->e) + 1, memory_order_release);
}

void nic_bucket_unlink(struct nic_pipe *p, struct nic_bentry *b, uint32_t h)
{
	struct nic_buckets_view bv = nic_pipe_buckets(p);
	struct nic_bucket *bk = &bv.b[nic_bucket_of(h, bv.n)];
	uint32_t s = nic_entry_slot(p, &b->e) + 1;
	for (uint32_t i = 0; i < NIC_BUCKET_WAYS; i++)
		if (atomic_load_explicit(&bk->way[i], memory_order_relaxed) == s) {
			atomic_store_explicit(&bk->way[i], 0, memory_order_release);
			return;
		}
	_Atomic uint32_t *link = &bk->over;
	uint32_t cur;
	while ((cur = atomic_load_explicit(link, memory_order_relaxed)) != 0 && cur != s)
		link = &nic_bucket_entry(p->pool, cur)->next[bv.link];
	assert(cur == s && "a linked BASIC entry is in its bucket");
	if (cur == s)
		atomic_store_explicit(link, atomic_load_explicit(&b->next[bv.link], memory_order_relaxed),
				      memory_order_release);
}

/* ------------------------------------------------------------------ tables */

struct nic_btable *nic_btable_alloc(uint32_t n, uint32_t link)
{
	uint32_t nb = nic_buckets_for(n);
	struct nic_btable *bt = nic_lazy_alloc(nic_btable_bytes(nb));
	if (bt != NULL) {
		bt->n = nb;
		bt->link = link;
	}
	return bt;
}

void nic_btable_free(struct nic_btable *bt)
{
	if (bt != NULL)
		nic_lazy_free(bt, nic_btable_bytes(bt->n));
}

doca_error_t nic_buckets_grow(struct nic_pipe *p, uint32_t nr_entries)
{
	struct nic_btable *old = nic_pipe_btable(p);
	if (nic_buckets_for(nr_entries) <= old->n)
		return DOCA_SUCCESS;
	struct nic_btable *bt = nic_btable_alloc(nr_entries, old->link ^ 1);
	if (bt == NULL) {
		CORE_LOG_WARN("pipe '%s': out of memory (buckets for %u entries): its %u buckets serve them, "
			      "with longer chains",
			      p->name, nr_entries, old->n);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* Packets follow the old table's links meanwhile: the new one's are the others. */
	for (uint32_t i = nic_slot_next_used(p, 0); i < p->pool_hw; i = nic_slot_next_used(p, i + 1)) {
		struct nic_entry *e = nic_pool_entry(p, i);
		if (!(nic_entry_flags(e, memory_order_relaxed) & NIC_EF_LINKED))
			continue; /* removed, freed after its grace period */
		struct nic_key k;
		nic_entry_match_key(p, e, &k);
		uint32_t h = nic_basic_hash(p, &k);
		bucket_link(p, &bt->b[nic_bucket_of(h, bt->n)], bt->link, nic_bentry_of(e), h);
	}
	core_prefault_stop(&p->buckets_pf);
	atomic_store_explicit(&p->bt, nic_btable_word(bt), memory_order_release);
	nic_dp_synchronize();
	nic_btable_free(old);
	core_prefault_start(&p->buckets_pf, bt, nic_btable_bytes(bt->n), SIZE_MAX);
	CORE_LOG_DBG("pipe '%s': %u -> %u buckets for %u entries", p->name, old->n, bt->n, nr_entries);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ one add */

/* A burst of up to ADD_CHUNK adds (nic_pool_add_bulk): its buckets are prefetched
 * together, and it meets the other adders once on its states and its slots. */
#define ADD_CHUNK 128

struct add_chunk {
	const struct nic_entry_attr *const *attrs;
	struct nic_entry **out;
	doca_error_t *errs;
	uint32_t n;
	uint32_t h[ADD_CHUNK];		  /* BASIC: the bucket hash of the match */
	struct nic_bucket *bk[ADD_CHUNK]; /* BASIC: its bucket, in the table whose chains use link */
	uint32_t link;
	struct nic_entry_state *st[ADD_CHUNK];
	uint32_t val[ADD_CHUNK];
	/* BASIC: slots with a place under nr_entries taken ahead, spare[next..nr) not
	 * used yet; given back when the burst ends. */
	struct nic_bentry *spare[ADD_CHUNK];
	uint32_t spare_next, nr_spare;
	bool solo; /* no other adding call runs: no bucket locks (adders_enter) */
};

/* Enter an adding call, the pipe lock held for reading: true (solo) when no other is in
 * one; otherwise the caller locks buckets, once adders_wait found no solo call left. */
static bool adders_enter(struct nic_pipe *p)
{
	uint32_t w = 0;
	if (atomic_compare_exchange_strong_explicit(&p->adders, &w, 2 | NIC_ADDERS_SOLO, memory_order_acquire,
						    memory_order_relaxed))
		return true;
	atomic_fetch_add_explicit(&p->adders, 2, memory_order_relaxed);
	return false;
}

/* Before a non-solo call touches a bucket: a solo one gives solo up at its next add or
 * step (the caller did its other work meanwhile), and its release publishes what it
 * linked. A solo call starts only when no other call is in, so one wait is enough. */
static void adders_wait(struct nic_pipe *p)
{
	for (uint32_t round = 0; atomic_load_explicit(&p->adders, memory_order_acquire) & NIC_ADDERS_SOLO; round++)
		core_spin_wait(round);
}

/* A solo call, before each add and between the steps of a burst (none of them inside a
 * bucket): when another call came in, it locks buckets from now on. So the newcomer
 * waits for one step of this call at most, not for a burst's preparation up to its
 * next add (those waits were 2-4% of a two-queue fill with the cores far apart). A
 * load of a line nobody writes until then. */
static void adders_solo_check(struct nic_pipe *p, struct add_chunk *c)
{
	if (!c->solo || atomic_load_explicit(&p->adders, memory_order_relaxed) == (2 | NIC_ADDERS_SOLO))
		return;
	atomic_fetch_and_explicit(&p->adders, ~NIC_ADDERS_SOLO, memory_order_release);
	c->solo = false;
}

static void adders_exit(struct nic_pipe *p, bool solo)
{
	atomic_fetch_sub_explicit(&p->adders, solo ? 2 | NIC_ADDERS_SOLO : 2, memory_order_release);
}

/* The i-th add of burst c, BASIC, into slot b; ALREADY_EXIST (b untouched) when an
 * entry of the same match is linked. */
static doca_error_t basic_add_one(struct nic_pipe *p, struct add_chunk *c, uint32_t i, struct nic_bentry *b)
{
	const struct nic_key *m = &c->attrs[i]->match;
	struct nic_bucket *bk = c->bk[i];
	adders_solo_check(p, c);
	if (!c->solo)
		core_spin_lock(&bk->wlock);
	bool dup = basic_find(p, bk, c->link, m, c->h[i]) != NULL;
	if (!dup) {
		b->match0 = p->nr_entry_words ? basic_word(p, m, p->entry_words[0]) : 0;
		if (p->nr_entry_words > 1) {
			uint64_t *row = p->bmatch + (size_t)nic_entry_slot(p, &b->e) * p->nr_entry_words;
			for (uint32_t w = 0; w < p->nr_entry_words; w++)
				row[w] = basic_word(p, m, p->entry_words[w]);
		}
		nic_entry_set(&b->e, c->attrs[i], c->st[i], c->val[i]);
		bucket_link(p, bk, c->link, b, c->h[i]);
	}
	if (!c->solo)
		core_spin_unlock(&bk->wlock);
	if (dup) {
		CORE_LOG_ERR("pipe '%s': an entry with the same match exists", p->name);
		return DOCA_ERROR_ALREADY_EXIST;
	}
	return DOCA_SUCCESS;
}

/*
 * HASH entries live in the pipe's pool, one slot per index (the pipe size is fixed at
 * creation, as in hardware): an add allocates nothing. The slot is reused only once its
 * previous entry was removed and freed (its flags word zero again), after a grace
 * period. Two adds at one index: the compare-and-swap that claims it decides.
 */
static doca_error_t hash_add_one(struct nic_pipe *p, const struct nic_entry_attr *attr,
				 struct nic_entry_state *st, uint32_t val)
{
	struct nic_entry *e = nic_pool_entry(p, attr->index);
	uint32_t free_word = 0;
	/* USED alone: packets want LINKED as well (hash_usable), set by nic_entry_set. */
	if (!atomic_compare_exchange_strong_explicit(&e->sf, &free_word, NIC_EF_USED, memory_order_relaxed,
						     memory_order_relaxed)) {
		CORE_LOG_ERR("pipe '%s': entry index %u is already used", p->name, attr->index);
		return DOCA_ERROR_ALREADY_EXIST;
	}
	nic_entry_set(e, attr, st, val);
	nic_hash_slot_mark(p, attr->index);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ a burst */

/* What an add is refused for before it takes the lock. */
static doca_error_t entry_add_check(const struct nic_pipe *p, const struct nic_entry_attr *attr)
{
	if (p->type != NIC_PIPE_HASH)
		return DOCA_SUCCESS;
	if (attr->index >= p->nr_entries) {
		CORE_LOG_ERR("pipe '%s': entry index %u out of range (nr_entries %u)", p->name, attr->index,
			     p->nr_entries);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return nic_ps_value_check(p, attr->ps_value);
}

#if defined(__x86_64__)
/* Whether the CPU has PREFETCHW (every AMD64 CPU of AMD's, Intel's since Broadwell):
 * the build's baseline (x86-64) does not, so gcc makes __builtin_prefetch(p, 1) a read
 * prefetch, and a CPU without it need not take the instruction. */
static bool have_prefetchw;

__attribute__((constructor)) static void add_cpu_probe(void)
{
	unsigned int a, b, c, d;
	have_prefetchw = __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & bit_PRFCHW);
}
#endif

/* Prefetch the line at p for the add that writes it. With PREFETCHW the line comes
 * exclusive, taken from another core's cache if that core wrote it last: the bucket
 * lock or slot compare-and-swap that follows (two queues adding) then does not wait for
 * that transfer. Two queues filling 1M BASIC entries, 8 alternated pairs in one
 * process: 14.0-15.0 against 12.6-13.8 M/s, 8 of 8 (docs/flow.md). */
static inline void prefetch_for_write(const void *p)
{
#if defined(__x86_64__)
	if (have_prefetchw) {
		__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
		return;
	}
#endif
	__builtin_prefetch(p, 1);
}

/* Checks, keys and hashes, with the slots the HASH adds will write prefetched, so that
 * the burst's cache misses overlap. */
static void chunk_prepare(struct nic_pipe *p, struct add_chunk *c)
{
	bool basic = p->type == NIC_PIPE_BASIC;
	for (uint32_t i = 0; i < c->n; i++) {
		const struct nic_entry_attr *a = c->attrs[i];
		c->st[i] = NULL;
		c->errs[i] = entry_add_check(p, a);
		if (c->errs[i] != DOCA_SUCCESS)
			continue;
		if (!basic) {
			core_prefault_at(&p->pool_pf, (size_t)a->index * sizeof(struct nic_entry));
			prefetch_for_write(nic_pool_entry(p, a->index));
			continue;
		}
		c->h[i] = nic_basic_hash(p, &a->match); /* masks it */
	}
}

/* BASIC, lock held (the table is the pipe's until it is released): each add's bucket,
 * prefetched for its duplicate check (which reads an entry only where a tag matches),
 * so that the burst's cache misses overlap. */
static void chunk_buckets(struct nic_pipe *p, struct add_chunk *c)
{
	struct nic_buckets_view bv = nic_pipe_buckets(p);
	c->link = bv.link;
	for (uint32_t i = 0; i < c->n; i++) {
		if (c->errs[i] != DOCA_SUCCESS)
			continue;
		c->bk[i] = &bv.b[nic_bucket_of(c->h[i], bv.n)];
		prefetch_for_write(c->bk[i]);
	}
}

/* Each add's state: one hold of intern_lock for the burst. */
static void chunk_states(struct nic_pipe *p, struct add_chunk *c)
{
	uint32_t failed = 0;
	core_spin_lock(&p->intern_lock);
	for (uint32_t i = 0; i < c->n; i++) {
		const struct nic_entry_attr *a = c->attrs[i];
		if (c->errs[i] != DOCA_SUCCESS)
			continue;
		struct nic_counter *cnt = a->own_counter ? NULL : a->shared_counter;
		c->st[i] = nic_state_get(p, &a->actions, &a->fwd, cnt, a->ps_value, &c->val[i]);
		if (c->st[i] == NULL) {
			c->errs[i] = DOCA_ERROR_NO_MEMORY;
			failed++;
		}
	}
	core_spin_unlock(&p->intern_lock);
	/* Logged once the lock is given back: a log handler may be slow, or call the API. */
	for (uint32_t i = 0; i < failed; i++)
		CORE_LOG_ERR("pipe '%s': out of memory (an entry's actions)", p->name);
}

/* Reserve up to want places under nr_entries; returns how many. */
static uint32_t live_reserve(struct nic_pipe *p, uint32_t want)
{
	uint32_t cur = atomic_load_explicit(&p->nr_live, memory_order_relaxed), take;
	do {
		uint32_t lim = p->nr_entries;
		take = cur >= lim ? 0 : lim - cur < want ? lim - cur : want;
		if (take == 0)
			return 0;
	} while (!atomic_compare_exchange_weak_explicit(&p->nr_live, &cur, cur + take, memory_order_relaxed,
							memory_order_relaxed));
	return take;
}

/*
 * BASIC: slots, each with a place under nr_entries, for the adds from the i-th on that
 * are still to run: one reservation of places and one hold of slot_lock for them all.
 * The first call of a burst covers it whole (a duplicate's slot serves the next add);
 * later ones come only when the pipe was nearly full. While a burst holds spare
 * places, an add on another queue may find the pipe full by them: only within
 * ADD_CHUNK entries of nr_entries, and only until the burst ends.
 */
static void chunk_spare_fill(struct nic_pipe *p, struct add_chunk *c, uint32_t i)
{
	uint32_t want = 0, got = 0;
	for (uint32_t j = i; j < c->n; j++)
		want += c->errs[j] == DOCA_SUCCESS;
	uint32_t places = live_reserve(p, want), cursor = 0;
	if (places) {
		core_spin_lock(&p->slot_lock);
		got = nic_slots_take(p, c->spare, places, &cursor);
		core_spin_unlock(&p->slot_lock);
	}
	if (cursor)
		nic_slots_commit_ahead(p, cursor);
	if (got < places)
		atomic_fetch_sub_explicit(&p->nr_live, places - got, memory_order_relaxed);
	c->spare_next = 0;
	c->nr_spare = got;
}

/* BASIC: the i-th add's slot, or FULL and a line. Checked before the duplicate check,
 * as a lone add would be. */
static struct nic_bentry *chunk_slot(struct nic_pipe *p, struct add_chunk *c, uint32_t i)
{
	if (c->spare_next == c->nr_spare)
		chunk_spare_fill(p, c, i);
	if (c->spare_next == c->nr_spare) {
		CORE_LOG_ERR("pipe '%s': full (%u entries)", p->name, p->nr_entries);
		return NULL;
	}
	return c->spare[c->spare_next++];
}

/* The states of the adds that failed and the spare slots go back; HASH adds are
 * counted (BASIC ones were, by their places). */
static void chunk_finish(struct nic_pipe *p, struct add_chunk *c)
{
	uint32_t added = 0;
	bool states_back = false;
	for (uint32_t i = 0; i < c->n; i++) {
		added += c->errs[i] == DOCA_SUCCESS;
		states_back |= c->errs[i] != DOCA_SUCCESS && c->st[i] != NULL;
	}
	if (states_back) {
		core_spin_lock(&p->intern_lock);
		for (uint32_t i = 0; i < c->n; i++)
			if (c->errs[i] != DOCA_SUCCESS && c->st[i] != NULL)
				nic_state_put(p, c->st[i]);
		core_spin_unlock(&p->intern_lock);
	}
	uint32_t spare = c->nr_spare - c->spare_next;
	if (spare) {
		core_spin_lock(&p->slot_lock);
		for (uint32_t i = c->spare_next; i < c->nr_spare; i++)
			nic_slot_release(p, &c->spare[i]->e);
		core_spin_unlock(&p->slot_lock);
		atomic_fetch_sub_explicit(&p->nr_live, spare, memory_order_relaxed);
	}
	if (p->type == NIC_PIPE_HASH && added)
		atomic_fetch_add_explicit(&p->nr_live, added, memory_order_relaxed);
	if (p->type == NIC_PIPE_BASIC && added) {
		uint32_t slots[ADD_CHUNK], k = 0;
		for (uint32_t i = 0; i < c->n; i++)
			if (c->errs[i] == DOCA_SUCCESS)
				slots[k++] = nic_entry_slot(p, c->out[i]);
		nic_slots_mark_used(p, slots, k);
	}
}

/* The i-th add of a burst whose states are had: SUCCESS and out[i] set, or why not. */
static doca_error_t chunk_add_one(struct nic_pipe *p, struct add_chunk *c, uint32_t i)
{
	const struct nic_entry_attr *a = c->attrs[i];
	if (p->type == NIC_PIPE_HASH) {
		doca_error_t err = hash_add_one(p, a, c->st[i], c->val[i]);
		if (err == DOCA_SUCCESS)
			c->out[i] = nic_pool_entry(p, a->index);
		return err;
	}
	struct nic_bentry *b = chunk_slot(p, c, i);
	if (b == NULL)
		return DOCA_ERROR_FULL;
	doca_error_t err = basic_add_one(p, c, i, b);
	if (err != DOCA_SUCCESS) {
		c->spare_next--; /* the slot, still zero, serves the next add */
		return err;
	}
	c->out[i] = &b->e;
	return DOCA_SUCCESS;
}

/* One burst of a call that holds the pipe lock; BASIC: c->solo as the call left it, and
 * wait: the call's first burst, not solo, whose keys, buckets and states are had while a
 * solo call gives way. */
static void add_chunk(struct nic_pipe *p, struct add_chunk *c, bool wait)
{
	chunk_prepare(p, c);
	adders_solo_check(p, c);
	if (p->type == NIC_PIPE_BASIC)
		chunk_buckets(p, c);
	adders_solo_check(p, c);
	chunk_states(p, c);
	adders_solo_check(p, c);
	if (wait)
		adders_wait(p);
	c->spare_next = c->nr_spare = 0;
	for (uint32_t i = 0; i < c->n; i++)
		if (c->errs[i] == DOCA_SUCCESS)
			c->errs[i] = chunk_add_one(p, c, i);
	chunk_finish(p, c);
	adders_solo_check(p, c);
}

void nic_pool_add_bulk(struct nic_pipe *p, const struct nic_entry_attr *const *attrs, uint32_t n,
		       struct nic_entry **out, doca_error_t *errs)
{
	pthread_rwlock_rdlock(&p->lock);
	if (!nic_pipe_alive(p)) {
		pthread_rwlock_unlock(&p->lock);
		for (uint32_t i = 0; i < n; i++)
			errs[i] = DOCA_ERROR_INVALID_VALUE;
		return;
	}
	/* Only BASIC adds share buckets: HASH ones claim their slot by compare-and-swap. */
	bool basic = p->type == NIC_PIPE_BASIC;
	struct add_chunk c;
	c.solo = basic && adders_enter(p);
	for (uint32_t i = 0; i < n; i += ADD_CHUNK) {
		c.attrs = attrs + i;
		c.out = out + i;
		c.errs = errs + i;
		c.n = n - i < ADD_CHUNK ? n - i : ADD_CHUNK;
		add_chunk(p, &c, basic && !c.solo && i == 0);
	}
	if (basic)
		adders_exit(p, c.solo);
	pthread_rwlock_unlock(&p->lock);
}
