/*
 * datapath.c - the packet path: a burst is parsed once into keys, the root-pipe lookup
 * is done for the whole burst with prefetches (bucket, then entry, then its counter), and
 * each packet then walks pipe -> fwd -> pipe, bumping counters and rewriting headers in
 * place. No allocation and no lock: entry state is read with acquire loads, and the
 * burst is bracketed by nic_dp_enter/exit so control paths can wait for a grace period.
 */
#include <stdio.h>
#include <string.h>

#include <core/core.h>

#include "dp_rewrite.h"
#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::DATAPATH);

/* ------------------------------------------------------------------ per-burst context */


struct burst_acc {
	uint16_t in_port;
	uint32_t shard; /* the thread's counter shard */
	uint32_t touched; /* ports with tx counts */
	/* Ports of touched that were started and kept no capture when first sent to: the
	 * burst only counts further frames to them. A burst is one unit for port stop and
	 * capture changes (both wait for it or tolerate it), so this snapshot is exact. */
	uint32_t plain_tx;
	uint32_t drop[NIC_DROP_NR_REASONS]; /* enum nic_drop_reason */
	uint32_t down; /* ports not started that frames were sent to (NIC_DROP_PORT_DOWN) */
	uint32_t down_pkts[NIC_MAX_PORTS]; /* per port of down, set when its bit is */
	uint64_t host;
	uint64_t kernel;
	uint64_t tx_pkts[NIC_MAX_PORTS];
	uint64_t tx_bytes[NIC_MAX_PORTS];
};

static _Thread_local uint8_t flood_buf[NIC_MAX_PIPE_DEPTH][NIC_MAX_FRAME];
static _Thread_local uint64_t rng_state;

static inline uint64_t dp_rand(void)
{
	/* xorshift64*: per thread, seeded lazily from the slot address so threads differ. */
	if (NIC_UNLIKELY(rng_state == 0))
		rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&rng_state;
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}


/* ------------------------------------------------------------------ lookups */

/*
 * Most pipes match on one key word (an address, a port pair) and constrain at most one
 * (the parser meta word): these helpers do that case without the word-list loop, with
 * results identical to the general loops (same words, same hash function).
 */
static inline bool const_ok(const struct nic_pipe *pp, const struct nic_key *k)
{
	if (pp->nr_const_words == 0)
		return true;
	if (pp->nr_const_words == 1) {
		uint32_t w = pp->const_words[0];
		return (k->w[w] & pp->const_mask.w[w]) == pp->const_val.w[w];
	}
	return nic_key_eq_words(k, &pp->const_mask, &pp->const_val, pp->const_words, pp->nr_const_words);
}

/* The index hash of a HASH pipe: the hardware's CRC over the match tag (index_hash.h). */
static inline uint32_t index_hash(const struct nic_pipe *pp, const struct nic_key *k)
{
	return nic_index_hash(&pp->idx, k);
}

/* After the first word matched (match0): the entry's other words. */
static inline bool entry_key_eq(const struct nic_pipe *pp, const struct nic_key *k, const struct nic_entry *e)
{
	if (pp->nr_entry_words <= 1)
		return true;
	const uint64_t *row = nic_entry_words(pp, e);
	uint64_t diff = 0;
	for (uint32_t i = 1; i < pp->nr_entry_words; i++) {
		uint32_t w = pp->entry_words[i];
		diff |= (k->w[w] & pp->entry_mask.w[w]) ^ row[i];
	}
	return diff == 0;
}

static inline struct nic_entry *basic_lookup(struct nic_pipe *pp, const struct nic_key *k, uint32_t h)
{
	uint32_t w0 = pp->entry_words[0];
	uint64_t v0 = pp->nr_entry_words ? k->w[w0] & pp->entry_mask.w[w0] : 0;
	struct nic_buckets_view bv = nic_pipe_buckets(pp);
	struct nic_bucket_iter it;
	nic_bucket_iter_init(&it, &bv.b[nic_bucket_of(h, bv.n)], bv.link, pp->pool, h);
	struct nic_bentry *b;
	while ((b = nic_bucket_iter_next(&it)) != NULL)
		if (b->match0 == v0 && entry_key_eq(pp, k, &b->e))
			return &b->e;
	return NULL;
}

static struct nic_entry *control_lookup(struct nic_pipe *pp, const struct nic_pkt *p)
{
	const struct nic_key *k = &p->key;
	struct nic_ctrl_table *t = atomic_load_explicit(&pp->ctrl, memory_order_acquire);
	if (t == NULL)
		return NULL;
	for (uint32_t i = 0; i < t->n; i++) {
		struct nic_entry *e = t->e[i];
		const struct nic_ctrl_entry *c = nic_ctrl_of(e);
		uint64_t diff = 0;
		for (int w = 0; w < NIC_KEY_WORDS; w++)
			diff |= (k->w[w] & c->mask.w[w]) ^ c->match.w[w];
		if (diff == 0 && (nic_entry_flags(e, memory_order_acquire) & NIC_EF_ENABLED) &&
		    (c->cond == NULL || nic_cond_eval(c->cond, p->data, p->len, &p->off, k)))
			return e;
	}
	return NULL;
}

/* A SKIP state moves down by one per packet that selects its slot (enum nic_sel_state). */
_Static_assert(NIC_SEL_SKIP_TWICE - 1 == NIC_SEL_SKIP_ONCE && NIC_SEL_SKIP_ONCE - 1 == NIC_SEL_ENABLE,
	       "hash_usable counts a SKIP state down by one");

/* Entry at index i if a packet may use it; consume = this packet selected i itself. */
static struct nic_entry *hash_usable(struct nic_pipe *pp, uint32_t i, bool consume)
{
	struct nic_entry *e = nic_pool_entry(pp, i);
	uint32_t f = nic_entry_flags(e, memory_order_acquire);
	if ((f & (NIC_EF_LINKED | NIC_EF_ENABLED)) != (NIC_EF_LINKED | NIC_EF_ENABLED))
		return NULL;
	if (pp->idxsel) {
		_Atomic uint8_t *s = &pp->idxsel->state[i];
		uint8_t v = atomic_load_explicit(s, memory_order_acquire);
		while (v != NIC_SEL_ENABLE) {
			if (v == NIC_SEL_DISABLE || !consume)
				return v == NIC_SEL_DISABLE ? NULL : e;
			/* SKIP_TWICE -> SKIP_ONCE -> ENABLE, this packet treating i as disabled. */
			if (atomic_compare_exchange_weak_explicit(s, &v, (uint8_t)(v - 1), memory_order_acq_rel,
								  memory_order_acquire))
				return NULL;
		}
	}
	return e;
}

/* The masked identity field(s) read as one big-endian number. */
static uint64_t identity_value(const struct nic_pipe *pp, const struct nic_key *k)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < pp->nr_entry_words; i++) {
		uint32_t w = pp->entry_words[i];
		for (uint32_t b = w * 8; b < w * 8 + 8; b++)
			if (pp->entry_mask.b[b])
				v = (v << 8) | (k->b[b] & pp->entry_mask.b[b]);
	}
	return v;
}

/* The entry of a HASH pipe this packet uses (NULL: miss). Not called for FLOODING. */
static struct nic_entry *hash_select(struct nic_pipe *pp, const struct nic_key *k, uint32_t base_index)
{
	uint32_t n = pp->nr_entries, i = base_index;
	switch (pp->map_algorithm & ~NIC_MAP_SELECT_ENABLED) {
	case NIC_MAP_RANDOM:
		i = (uint32_t)(dp_rand() % n);
		break;
	case NIC_MAP_IDENTITY: {
		uint64_t v = identity_value(pp, k);
		if (v >= n)
			return NULL;
		i = (uint32_t)v;
		break;
	}
	case NIC_MAP_ROUND_ROBIN:
		i = atomic_fetch_add_explicit(&pp->rr, 1, memory_order_relaxed) % n;
		break;
	default:
		break;
	}
	struct nic_entry *e = hash_usable(pp, i, true);
	if (e == NULL && (pp->map_algorithm & NIC_MAP_SELECT_ENABLED))
		for (uint32_t j = 1; j < n && e == NULL; j++)
			e = hash_usable(pp, (i + j) % n, false);
	return e;
}

/* ------------------------------------------------------------------ the walk */

static void walk(struct burst_acc *acc, struct nic_pkt *p, struct nic_pipe *pp, struct nic_entry *pre, bool have_pre,
		 int depth);

static void dispatch(struct burst_acc *acc, struct nic_pkt *p, const struct nic_fwd *fwd, bool root, int depth)
{
	switch (fwd->type) {
	case NIC_FWD_PORT:
		if (NIC_LIKELY(fwd->port_id < NIC_MAX_PORTS && atomic_load_explicit(&nic_port_hot[fwd->port_id].started, memory_order_relaxed))) {
			uint32_t bit = 1u << fwd->port_id;
			if (!(acc->touched & bit)) { /* first frame to this port in the burst */
				acc->touched |= bit;
				if (!atomic_load_explicit(&nic_port_hot[fwd->port_id].capture_on[NIC_CAPTURE_TX],
							  memory_order_relaxed))
					acc->plain_tx |= bit;
				acc->tx_pkts[fwd->port_id] = 0;
				acc->tx_bytes[fwd->port_id] = 0;
			}
			acc->tx_pkts[fwd->port_id]++;
			acc->tx_bytes[fwd->port_id] += p->len;
			nic_port_capture(fwd->port_id, NIC_CAPTURE_TX, p->data, p->len);
		} else {
			acc->drop[NIC_DROP_PORT_DOWN]++;
			if (fwd->port_id < NIC_MAX_PORTS) { /* else refused at creation */
				uint32_t bit = 1u << fwd->port_id;
				if (!(acc->down & bit)) {
					acc->down |= bit;
					acc->down_pkts[fwd->port_id] = 0;
				}
				acc->down_pkts[fwd->port_id]++;
			}
		}
		return;
	case NIC_FWD_PIPE:
		walk(acc, p, fwd->pipe, NULL, false, depth + 1);
		return;
	case NIC_FWD_HOST:
		acc->host++;
		nic_port_capture(acc->in_port, NIC_CAPTURE_HOST, p->data, p->len);
		return;
	case NIC_FWD_KERNEL:
		acc->kernel++;
		nic_port_capture(acc->in_port, NIC_CAPTURE_KERNEL, p->data, p->len);
		return;
	case NIC_FWD_NONE:
		if (root) { /* the port's default miss: the host */
			acc->host++;
			nic_port_capture(acc->in_port, NIC_CAPTURE_HOST, p->data, p->len);
			return;
		}
		acc->drop[NIC_DROP_MISS]++;
		return;
	case NIC_FWD_DROP:
	default:
		acc->drop[NIC_DROP_FWD_DROP]++;
		return;
	}
}

static void hit(struct burst_acc *acc, struct nic_pkt *p, struct nic_pipe *pp, struct nic_entry *e, int depth)
{
	nic_entry_hit(pp, e, p->len, acc->shard);
	if (pp->mem)
		atomic_fetch_add_explicit(&pp->mem->cells[nic_entry_slot(pp, e)], 1, memory_order_relaxed);
	struct nic_entry_state *st = nic_entry_state(e, memory_order_acquire);
	nic_dp_entry_actions(p, e, st, pp->ps_field);
	if (NIC_UNLIKELY(st->fields & (1u << NIC_AF_PROG))) {
		nic_prog_run(pp->progs[st->actions.prog - 1], p->data, p->len, &p->off, &p->key);
		p->common_shape = false; /* re-parsed: off and key hold, the shape may not */
	}
	dispatch(acc, p, &st->fwd, pp->is_root, depth);
}

static void miss(struct burst_acc *acc, struct nic_pkt *p, struct nic_pipe *pp, int depth)
{
	if (pp->has_miss_counter)
		nic_counter_add(&pp->miss, 1, p->len, acc->shard);
	struct nic_fwd *f = atomic_load_explicit(&pp->fwd_miss, memory_order_acquire);
	dispatch(acc, p, f, pp->is_root, depth);
}

/* FLOODING: a copy of the packet through every usable entry. */
static void flood(struct burst_acc *acc, struct nic_pkt *p, struct nic_pipe *pp, int depth)
{
	bool any = false;
	struct nic_pkt copy;
	for (uint32_t i = 0; i < pp->nr_entries; i++) {
		struct nic_entry *e = hash_usable(pp, i, true);
		if (e == NULL)
			continue;
		any = true;
		copy = *p;
		copy.data = flood_buf[depth];
		memcpy(copy.data, p->data, p->len);
		hit(acc, &copy, pp, e, depth);
	}
	if (!any)
		miss(acc, p, pp, depth);
}

static void walk(struct burst_acc *acc, struct nic_pkt *p, struct nic_pipe *pp, struct nic_entry *pre, bool have_pre,
		 int depth)
{
	if (NIC_UNLIKELY(depth >= NIC_MAX_PIPE_DEPTH || !nic_pipe_alive(pp))) {
		acc->drop[depth >= NIC_MAX_PIPE_DEPTH ? NIC_DROP_PIPE_LOOP : NIC_DROP_PIPE_DESTROYED]++;
		return;
	}
	struct nic_entry *e = pre;
	if (!have_pre) {
		if (!const_ok(pp, &p->key)) {
			e = NULL;
		} else if (pp->type == NIC_PIPE_BASIC) {
			e = basic_lookup(pp, &p->key, nic_basic_hash(pp, &p->key));
		} else if (pp->type == NIC_PIPE_CONTROL) {
			e = control_lookup(pp, p);
		} else if (pp->map_algorithm & NIC_MAP_FLOODING) {
			flood(acc, p, pp, depth);
			return;
		} else {
			e = hash_select(pp, &p->key, nic_hash_index(pp, index_hash(pp, &p->key)));
		}
	}
	if (e)
		hit(acc, p, pp, e, depth);
	else
		miss(acc, p, pp, depth);
}

/* ------------------------------------------------------------------ root fast path */

/* The root pipe's lookup parameters, gathered once per burst. */
struct root_plan {
	struct nic_pipe *pp;
	struct nic_bucket *buckets;
	void *pool;
	bool basic;	  /* BASIC (tagged buckets), else HASH with the HASH map algorithm */
	bool one_word;	  /* BASIC on one key word, with at most one constant word */
	bool prefetch;	  /* prefetch in passes (see root_plan_init) */
	uint32_t nr_buckets; /* BASIC */
	uint32_t link;	     /* BASIC: the buckets' chain link */
	uint32_t ew, cw;   /* one_word: the entry word and the constant word */
	uint64_t emask, cmask, cval;
	int ps_field;
	bool has_mem, is_root;
	bool frame_words; /* one_word with neither word 7: see struct hot_plan */
};

/*
 * What the hot case (root_hot_exec) needs, built once per burst: the recipes of the
 * constant and the entry word (nic_fast_recipes) reduced to an 8-byte load at off, its
 * mask and the bits of a frame of each L4 type (this burst's port and the L4 meta
 * folded in, the pipe's mask applied), so that a word costs a load, an and, an or.
 */
struct hot_word {
	uint8_t off;
	uint64_t load;
	uint64_t bits[2]; /* [l4meta - NIC_L4_META_TCP] */
};

struct hot_plan {
	struct hot_word c, e;
	uint64_t cval;
	/* The constant word made of port and meta only (no frame bytes, the usual l3_type /
	 * l4_type constraint): bit l4meta set when a frame of that L4 type passes it. */
	bool c_by_l4;
	uint8_t c_ok_l4;
	/* Own counters take a plain add: the thread owns its shard and no report counts
	 * hits (nic_entry_hit does the rest). Read once a burst, a unit for both. */
	bool plain_cells;
	struct nic_bucket *buckets;
	void *pool;
	uint32_t nr_buckets, link;
	const struct nic_pipe *pp;
	uint32_t shard;
};

_Static_assert(NIC_L4_META_UDP == NIC_L4_META_TCP + 1, "the two L4 types of the common frame shape");

static struct hot_word hot_word_of(uint32_t w, uint64_t mask, uint16_t port_id)
{
	const struct nic_fast_recipe *r = &nic_fast_recipes[w];
	struct hot_word hw = {.off = r->off, .load = r->load_mask & mask};
	for (uint32_t t = NIC_L4_META_TCP; t <= NIC_L4_META_UDP; t++)
		hw.bits[t - NIC_L4_META_TCP] = (r->bits | port_id * r->port_mul | t * r->l4_mul) & mask;
	return hw;
}

/* The word hw makes of a common-shape frame of L4 meta l4meta (nic_fast_recipe_apply, masked). */
static inline __attribute__((always_inline)) uint64_t hot_word_apply(const struct hot_word *hw, const uint8_t *frame,
								     uint32_t l4meta)
{
	uint64_t v;
	memcpy(&v, frame + hw->off, 8);
	return (v & hw->load) | hw->bits[l4meta - NIC_L4_META_TCP];
}

/*
 * Everything a hot plan is made of (hot_plan_make reads nothing else, so a plan is a
 * pure function of its key): the thread's last plan is reused while the key is the
 * same. A new pipe at a freed one's address differs in a word, mask, value or its
 * tables, a resize in its buckets. Building the plan is most of a one-packet burst's
 * fixed cost.
 */
struct hot_plan_key {
	const struct nic_pipe *pp;
	struct nic_bucket *buckets;
	void *pool;
	uint64_t cmask, cval, emask;
	uint32_t nr_buckets, link, cw, ew, shard;
	uint16_t port_id;
	bool count_hits;
};

static struct hot_plan hot_plan_make(const struct hot_plan_key *k)
{
	struct hot_plan hp = {.c = hot_word_of(k->cw, k->cmask, k->port_id),
			      .e = hot_word_of(k->ew, k->emask, k->port_id),
			      .cval = k->cval,
			      .plain_cells = k->shard != NIC_CNT_SHARDS - 1 && !k->count_hits,
			      .buckets = k->buckets,
			      .pool = k->pool,
			      .nr_buckets = k->nr_buckets,
			      .link = k->link,
			      .pp = k->pp,
			      .shard = k->shard};
	hp.c_by_l4 = hp.c.load == 0;
	for (uint32_t t = NIC_L4_META_TCP; t <= NIC_L4_META_UDP; t++)
		if (hp.c.bits[t - NIC_L4_META_TCP] == hp.cval)
			hp.c_ok_l4 |= (uint8_t)(1u << t);
	return hp;
}

static _Thread_local struct hot_plan_key hot_key;
static _Thread_local struct hot_plan hot_cached;

static inline const struct hot_plan *hot_plan_of(const struct root_plan *rp, uint16_t port_id, uint32_t shard)
{
	struct hot_plan_key k;
	memset(&k, 0, sizeof(k)); /* padding too: the keys are compared whole */
	k.pp = rp->pp;
	k.buckets = rp->buckets;
	k.pool = rp->pool;
	k.cmask = rp->cmask;
	k.cval = rp->cval;
	k.emask = rp->emask;
	k.nr_buckets = rp->nr_buckets;
	k.link = rp->link;
	k.cw = rp->cw;
	k.ew = rp->ew;
	k.shard = shard;
	k.port_id = port_id;
	k.count_hits = __atomic_load_n(&nic_count_hits, __ATOMIC_RELAXED);
	if (NIC_UNLIKELY(memcmp(&k, &hot_key, sizeof(k)) != 0)) {
		hot_cached = hot_plan_make(&k);
		memcpy(&hot_key, &k, sizeof(k));
	}
	return &hot_cached;
}

static bool root_plan_init(struct nic_pipe *pp, struct root_plan *rp)
{
	if (pp->type == NIC_PIPE_BASIC)
		rp->basic = true;
	else if (pp->type == NIC_PIPE_HASH && (pp->map_algorithm & ~NIC_MAP_SELECT_ENABLED) == NIC_MAP_HASH)
		rp->basic = false;
	else
		return false;
	rp->pp = pp;
	/* A resize swaps the table (nic_buckets_grow): this burst keeps the one it read. */
	struct nic_buckets_view bv = rp->basic ? nic_pipe_buckets(pp) : (struct nic_buckets_view){NULL, 0, 0};
	rp->buckets = bv.b;
	rp->nr_buckets = bv.n;
	rp->link = bv.link;
	rp->pool = pp->pool;
	rp->one_word = rp->basic && pp->nr_entry_words == 1 && pp->nr_const_words <= 1;
	/* Other roots do more per packet (several key words, usually a next pipe), and the
	 * passes overlap that work's cache misses even when the table fits (bench W2). */
	rp->prefetch = pp->prefetch_lookup || !rp->one_word;
	rp->ew = pp->entry_words[0];
	rp->emask = pp->entry_mask.w[rp->ew];
	rp->cw = pp->nr_const_words ? pp->const_words[0] : 0;
	rp->cmask = pp->nr_const_words ? pp->const_mask.w[rp->cw] : 0;
	rp->cval = pp->nr_const_words ? pp->const_val.w[rp->cw] : 0;
	rp->ps_field = pp->ps_field;
	rp->has_mem = pp->mem != NULL;
	rp->is_root = pp->is_root;
	rp->frame_words = rp->one_word && nic_words_from_frame(rp->ew, rp->cw);
	return true;
}

/* The packet's hash for the root lookup, or ~0 with *ok false when a constant fails. */
static inline __attribute__((always_inline)) uint32_t root_hash(const struct root_plan *rp, bool one_word,
								const struct nic_key *k, bool *ok)
{
	if (one_word) {
		*ok = (k->w[rp->cw] & rp->cmask) == rp->cval;
		return nic_hash_one_word(k->w[rp->ew] & rp->emask);
	}
	*ok = const_ok(rp->pp, k);
	return rp->basic ? nic_basic_hash(rp->pp, k) : index_hash(rp->pp, k);
}

/* The entry of a one-word BASIC table whose first key word is v, from bucket h. */
static inline struct nic_entry *bucket_find_word(const struct nic_bucket *bk, uint32_t link, void *pool, uint32_t h,
						 uint64_t v)
{
	struct nic_bucket_iter it;
	nic_bucket_iter_init(&it, bk, link, pool, h);
	struct nic_bentry *b;
	while ((b = nic_bucket_iter_next(&it)) != NULL)
		if (b->match0 == v)
			return &b->e;
	return NULL;
}

/* The entry of bucket bk that a key of hash h most likely is, to prefetch before the
 * lookup: the first way with its tag (NULL if that way is free: a freed way keeps its
 * tag), else the chain's first. The lookup checks it, then the others (bucket_find_word). */
static inline __attribute__((always_inline)) struct nic_bentry *bucket_candidate(const struct nic_bucket *bk,
										 void *pool, uint32_t h)
{
	uint64_t m = nic_bucket_ways(atomic_load_explicit(&bk->tags, memory_order_relaxed), nic_bucket_tag(h));
	if (NIC_LIKELY(m))
		return nic_bucket_entry(pool,
					atomic_load_explicit(&bk->way[__builtin_ctzll(m) / 16], memory_order_acquire));
	return nic_bucket_entry(pool, atomic_load_explicit(&bk->over, memory_order_acquire));
}

static inline __attribute__((always_inline)) struct nic_entry *root_lookup(const struct root_plan *rp, bool one_word,
									   const struct nic_key *k, uint32_t h)
{
	if (!rp->basic)
		return hash_select(rp->pp, k, nic_hash_index(rp->pp, h));
	if (!one_word)
		return basic_lookup(rp->pp, k, h);
	return bucket_find_word(&rp->buckets[nic_bucket_of(h, rp->nr_buckets)], rp->link, rp->pool, h,
				k->w[rp->ew] & rp->emask);
}

/* hit() for the root pipe, inlined into the burst loop: same counters, rewrites and
 * forwarding, with the common cases (L4-only rewrite, fwd PORT) done in place. */
static inline __attribute__((always_inline)) void root_hit(struct burst_acc *acc, struct nic_pkt *p,
							   const struct root_plan *rp, bool one_word,
							   struct nic_entry *e)
{
	nic_entry_hit(rp->pp, e, p->len, acc->shard);
	/* Path selectors and memory resources are HASH-pipe features: not for one_word. */
	int ps_field = one_word ? -1 : rp->ps_field;
	if (!one_word && rp->has_mem)
		atomic_fetch_add_explicit(&rp->pp->mem->cells[nic_entry_slot(rp->pp, e)], 1, memory_order_relaxed);
	struct nic_entry_state *st = nic_entry_state(e, memory_order_acquire);
	nic_dp_entry_actions(p, e, st, ps_field);
	if (NIC_UNLIKELY(st->fields & (1u << NIC_AF_PROG))) {
		nic_prog_run(rp->pp->progs[st->actions.prog - 1], p->data, p->len, &p->off, &p->key);
		p->common_shape = false; /* re-parsed: off and key hold, the shape may not */
	}
	if (NIC_LIKELY(st->tx_bit & acc->plain_tx)) {
		/* A port this burst already sent to: just count (dispatch does the rest). */
		uint32_t port = (uint32_t)__builtin_ctz(st->tx_bit);
		acc->tx_pkts[port]++;
		acc->tx_bytes[port] += p->len;
		return;
	}
	dispatch(acc, p, &st->fwd, rp->is_root, 0);
}

/* Prefetch a BASIC entry's record for a hit (a line), and the cell of a worker of
 * another shard, which sits in the pipe's array. Always inlined: GCC finds a function
 * of prefetches alone free of side effects and drops its calls before inlining it (W1
 * at N=1M ran at half speed). */
static inline __attribute__((always_inline)) void bentry_prefetch(const struct nic_pipe *pp,
								  const struct nic_bentry *b, uint32_t shard)
{
	__builtin_prefetch(b, 1);
	if (NIC_UNLIKELY(shard != 0))
		__builtin_prefetch(nic_entry_cell(pp, &b->e, shard), 1);
}

/*
 * The root lookup of a burst parsed by parse_burst (hashes in h[]), in passes: bucket,
 * then entry, then counter prefetched for every packet first, so that the burst's cache
 * misses overlap instead of queueing (see root_plan_init for when).
 */
static inline __attribute__((always_inline)) void root_burst_prefetched(struct burst_acc *acc, struct nic_pkt *pk,
									uint32_t np, const struct root_plan *rp,
									bool one_word, const uint32_t *h,
									const bool *ok)
{
	struct nic_entry *pre[NIC_BURST_MAX];
	for (uint32_t i = 0; i < np; i++) {
		if (!rp->basic) {
			__builtin_prefetch(nic_pool_entry(rp->pp, nic_hash_index(rp->pp, h[i])));
			continue;
		}
		struct nic_bentry *b = bucket_candidate(&rp->buckets[nic_bucket_of(h[i], rp->nr_buckets)], rp->pool, h[i]);
		if (b) {
			bentry_prefetch(rp->pp, b, acc->shard);
			if (!one_word && rp->pp->nr_entry_words > 1)
				__builtin_prefetch(nic_entry_words(rp->pp, &b->e));
		}
	}
	for (uint32_t i = 0; i < np; i++) {
		struct nic_entry *e = pre[i] = ok[i] ? root_lookup(rp, one_word, &pk[i].key, h[i]) : NULL;
		if (e == NULL)
			continue;
		uint32_t sf = atomic_load_explicit(&e->sf, memory_order_acquire);
		if (sf & NIC_EF_OWN_CNT) {
			__builtin_prefetch(nic_entry_cell(rp->pp, e, acc->shard), 1);
		} else {
			struct nic_counter *cnt = nic_state_at(sf >> NIC_EF_BITS)->cnt;
			if (cnt)
				__builtin_prefetch(&cnt->shard[acc->shard], 1);
		}
	}
	for (uint32_t i = 0; i < np; i++) {
		if (pre[i])
			root_hit(acc, &pk[i], rp, one_word, pre[i]);
		else
			miss(acc, &pk[i], rp->pp, 0);
	}
}

/* ------------------------------------------------------------------ bursts */

static void burst_flush(struct burst_acc *acc, uint64_t rx_pkts, uint64_t rx_bytes, uint64_t errors)
{
	struct nic_port_delta d = {.rx_pkts = rx_pkts, .rx_bytes = rx_bytes, .rx_errors = errors, .host = acc->host,
				   .kernel = acc->kernel};
	for (int r = 0; r < NIC_DROP_NR_REASONS; r++) {
		d.drop[r] = acc->drop[r];
		d.drops += acc->drop[r];
	}
	nic_port_account(acc->in_port, acc->shard, &d);
	for (uint32_t m = acc->down; NIC_UNLIKELY(m); m &= m - 1) {
		uint32_t port = (uint32_t)__builtin_ctz(m);
		nic_port_note_down_drops(acc->in_port, (uint16_t)port, acc->down_pkts[port]);
	}
	for (uint32_t m = acc->touched; m; m &= m - 1) {
		uint32_t port = (uint32_t)__builtin_ctz(m);
		nic_port_account_tx(port, acc->shard, acc->tx_pkts[port], acc->tx_bytes[port]);
	}
}

/* Parse one frame into p; false (an rx error) when it is unparseable or too long. */
static inline __attribute__((always_inline)) bool parse_one(uint16_t port_id, const struct nic_buf *b,
							    struct nic_pkt *p)
{
	if (NIC_UNLIKELY(b->len > NIC_MAX_FRAME))
		return false;
	p->common_shape = nic_parse_fast(b->data, b->len, port_id, &p->key, &p->off);
	if (NIC_UNLIKELY(!p->common_shape && !nic_parse_general(b->data, b->len, port_id, &p->key, &p->off)))
		return false;
	p->data = b->data;
	p->len = b->len;
	return true;
}

/*
 * Parse a burst into pk[] and, when rp is given, hash each packet for the root lookup
 * while its key is still in registers and prefetch its bucket. Returns the packets
 * parsed; unparseable frames count in *errors.
 */
static inline __attribute__((always_inline)) uint32_t parse_burst(uint16_t port_id, const struct nic_buf *bufs,
								  uint32_t n, struct nic_pkt *pk, const struct root_plan *rp,
								  bool one_word, uint32_t *h, bool *ok, uint64_t *bytes,
								  uint64_t *errors)
{
	uint32_t np = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct nic_pkt *p = &pk[np];
		if (!parse_one(port_id, &bufs[i], p)) {
			(*errors)++;
			continue;
		}
		*bytes += p->len;
		if (rp) {
			h[np] = root_hash(rp, one_word, &p->key, &ok[np]);
			if (rp->basic)
				__builtin_prefetch(&rp->buckets[nic_bucket_of(h[np], rp->nr_buckets)]);
			else
				__builtin_prefetch(nic_pool_entry(rp->pp, nic_hash_index(rp->pp, h[np])));
		}
		np++;
	}
	return np;
}

/*
 * The hot case of a one-word root and a common-shape frame: the two key words the pipe
 * reads come straight from the frame (nic_fast_recipes: what the parser would store),
 * and a hit whose actions are at most an L4 port rewrite and whose fwd is a port this
 * burst already sent to is done without building the key, which nothing would read.
 * root_hot_exec is that hit: false when the packet needs its key (other actions,
 * another fwd), for root_one.
 */
/* dispatch's first frame of a burst to the port of tx_bit (a fwd PORT), when the port
 * is started and keeps no capture: the burst then only counts its frames. */
static inline bool hot_tx_first(struct burst_acc *acc, uint32_t tx_bit)
{
	if (tx_bit == 0 || (acc->touched & tx_bit))
		return false;
	uint32_t port = (uint32_t)__builtin_ctz(tx_bit);
	if (!atomic_load_explicit(&nic_port_hot[port].started, memory_order_relaxed) ||
	    atomic_load_explicit(&nic_port_hot[port].capture_on[NIC_CAPTURE_TX], memory_order_relaxed))
		return false;
	acc->touched |= tx_bit;
	acc->plain_tx |= tx_bit;
	acc->tx_pkts[port] = 0;
	acc->tx_bytes[port] = 0;
	return true;
}

static inline __attribute__((always_inline)) bool root_hot_exec(struct burst_acc *acc, const struct hot_plan *hp,
								const struct nic_buf *b, uint32_t l4meta,
								struct nic_entry *e)
{
	uint32_t sf = atomic_load_explicit(&e->sf, memory_order_acquire);
	struct nic_entry_state *st = nic_state_at(sf >> NIC_EF_BITS);
	uint32_t f = st->fields;
	if ((f & ~L4_FIELDS) || NIC_UNLIKELY(!(st->tx_bit & acc->plain_tx) && !hot_tx_first(acc, st->tx_bit)))
		return false;
	/* nic_entry_hit, with the usual own counter the owner's add, decided once a burst. */
	if (NIC_LIKELY(hp->plain_cells && (sf & NIC_EF_OWN_CNT))) {
		nic_cell_add_owned(hp->pp, e, nic_entry_cell(hp->pp, e, hp->shard), b->len);
	} else {
		nic_entry_hit(hp->pp, e, b->len, hp->shard);
	}
	if (f) { /* the L4 type a constant in each call, so that the checksum rule folds */
		uint32_t set = nic_dp_entry_l4_set(e, st, -1);
		if (l4meta == NIC_L4_META_UDP)
			nic_dp_l4_ports_store(b->data + 34, NIC_L4_META_UDP, true, st->l4_keep, set);
		else
			nic_dp_l4_ports_store(b->data + 34, NIC_L4_META_TCP, true, st->l4_keep, set);
	}
	uint32_t port = (uint32_t)__builtin_ctz(st->tx_bit);
	acc->tx_pkts[port]++;
	acc->tx_bytes[port] += b->len;
	return true;
}

/* The key word of a common-shape frame the hot case looks up, or false when the
 * pipe's constant word rejects the frame (a miss). */
static inline __attribute__((always_inline)) bool root_hot_word(const struct hot_plan *hp, const struct nic_buf *b,
								uint32_t l4meta, uint64_t *v)
{
	*v = hot_word_apply(&hp->e, b->data, l4meta);
	return hp->c_by_l4 ? (hp->c_ok_l4 >> l4meta & 1) : hot_word_apply(&hp->c, b->data, l4meta) == hp->cval;
}

/* A packet the hot path did not finish: parsed, then the root's hit (e, when looked_up)
 * or lookup, as any other. Returns false for an rx error. */
static inline __attribute__((always_inline)) bool root_one(struct burst_acc *acc, uint16_t port_id,
							   const struct nic_buf *b, const struct root_plan *rp,
							   bool one_word, struct nic_entry *e, bool looked_up,
							   uint64_t *bytes)
{
	struct nic_pkt p;
	if (!parse_one(port_id, b, &p))
		return false;
	*bytes += p.len;
	if (!looked_up) {
		bool ok;
		uint32_t h = root_hash(rp, one_word, &p.key, &ok);
		e = ok ? root_lookup(rp, one_word, &p.key, h) : NULL;
	}
	if (e)
		root_hit(acc, &p, rp, one_word, e);
	else
		miss(acc, &p, rp->pp, 0);
	return true;
}

/*
 * A burst on a root whose table fits the caches (and which the hot case does not
 * serve): each packet parsed, looked up and executed in one pass.
 */
static inline __attribute__((always_inline)) uint32_t root_burst_direct(struct burst_acc *acc, uint16_t port_id,
									const struct nic_buf *bufs, uint32_t n,
									const struct root_plan *rp, bool one_word,
									uint64_t *bytes, uint64_t *errors)
{
	uint32_t np = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (root_one(acc, port_id, &bufs[i], rp, one_word, NULL, false, bytes))
			np++;
		else
			(*errors)++;
	}
	return np;
}

/* A frame of another shape in a staged burst: parsed into p, with the key word *v it is
 * looked up by and whether its constant word passes (*ok, as root_hash); false for an
 * rx error. Out of line: the burst loop stays the hot case's. */
static __attribute__((noinline)) bool staged_parse(uint16_t port_id, const struct nic_buf *b,
							 const struct root_plan *rp, struct nic_pkt *p, uint64_t *v,
							 bool *ok)
{
	*ok = false;
	if (!parse_one(port_id, b, p))
		return false;
	*ok = (p->key.w[rp->cw] & rp->cmask) == rp->cval;
	*v = p->key.w[rp->ew] & rp->emask;
	return true;
}

/* The hit (e) or miss of a frame staged_parse parsed, out of line as it is. */
static __attribute__((noinline)) void staged_parsed_exec(struct burst_acc *acc, struct nic_pkt *p,
							       const struct root_plan *rp, struct nic_entry *e)
{
	if (e)
		root_hit(acc, p, rp, true, e);
	else
		miss(acc, p, rp->pp, 0);
}

/*
 * The hot case (see root_hot_exec) for a whole burst in three passes, so that its cache
 * misses overlap instead of queueing behind each other: every packet's key word and
 * bucket (prefetched), then the entry its bucket's tags point to (prefetched with its
 * counter cell, which the entry's pool slot locates), then each packet's hit in order. Packets
 * the hot case does not finish take root_one in their place in the order.
 */
static inline __attribute__((always_inline)) uint32_t root_burst_staged(struct burst_acc *acc, uint16_t port_id,
									const struct nic_buf *bufs, uint32_t n,
									const struct root_plan *rp, uint64_t *bytes,
									uint64_t *errors)
{
	const struct hot_plan hp = *hot_plan_of(rp, port_id, acc->shard);
	uint64_t v[NIC_BURST_MAX];
	uint32_t h[NIC_BURST_MAX];
	const struct nic_bucket *bk[NIC_BURST_MAX]; /* NULL: the constant word fails */
	struct nic_bentry *cand[NIC_BURST_MAX];
	/* Its L4 meta for a common-shape frame; else STAGED_PARSED (parsed into pk[i]) or
	 * STAGED_BAD (an rx error). Other frames take the same passes with their key. */
	enum { STAGED_PARSED = 0, STAGED_BAD = 0xff };
	uint8_t l4m[NIC_BURST_MAX];
	struct nic_pkt pk[NIC_BURST_MAX]; /* only the other frames' */
	for (uint32_t i = 0; i < n; i++) {
		const struct nic_buf *b = &bufs[i];
		uint32_t l4meta = NIC_LIKELY(b->len <= NIC_MAX_FRAME) ? nic_fast_shape(b->data, b->len) : 0;
		bool ok;
		bk[i] = NULL;
		if (NIC_LIKELY(l4meta)) {
			ok = root_hot_word(&hp, b, l4meta, &v[i]);
		} else if (staged_parse(port_id, b, rp, &pk[i], &v[i], &ok) == false) {
			l4meta = STAGED_BAD;
		}
		l4m[i] = (uint8_t)l4meta;
		if (ok) {
			h[i] = nic_hash_one_word(v[i]);
			bk[i] = &hp.buckets[nic_bucket_of(h[i], hp.nr_buckets)];
			__builtin_prefetch(bk[i]);
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct nic_bentry *b = bk[i] ? bucket_candidate(bk[i], hp.pool, h[i]) : NULL;
		cand[i] = b;
		if (b)
			bentry_prefetch(hp.pp, b, hp.shard);
	}
	uint32_t np = 0;
	uint64_t nbytes = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct nic_buf *b = &bufs[i];
		struct nic_bentry *be = cand[i];
		struct nic_entry *e = be && be->match0 == v[i] ? &be->e
				      : bk[i]			? bucket_find_word(bk[i], hp.link, hp.pool, h[i], v[i])
								: NULL;
		uint32_t t = l4m[i];
		if (NIC_LIKELY(t - NIC_L4_META_TCP <= NIC_L4_META_UDP - NIC_L4_META_TCP)) {
			np++;
			if (e && root_hot_exec(acc, &hp, b, t, e))
				nbytes += b->len;
			else /* a common-shape frame always parses */
				(void)root_one(acc, port_id, b, rp, true, e, true, &nbytes);
		} else if (t == STAGED_PARSED) {
			np++;
			nbytes += pk[i].len;
			staged_parsed_exec(acc, &pk[i], rp, e);
		} else {
			(*errors)++;
		}
	}
	*bytes += nbytes;
	return np;
}

/* The root fast path, specialised (one_word a constant) by its two callers. */
static inline __attribute__((always_inline)) uint32_t root_burst(struct burst_acc *acc, uint16_t port_id,
								 const struct nic_buf *bufs, uint32_t n,
								 const struct root_plan *rp, bool one_word,
								 uint64_t *bytes, uint64_t *errors)
{
	/* Staged whatever the table's size: a bucket, entry and counter cell in L2 still
	 * cost a dependent load each, which the passes overlap across the burst too. */
	if (one_word && rp->frame_words)
		return root_burst_staged(acc, port_id, bufs, n, rp, bytes, errors);
	if (!rp->prefetch)
		return root_burst_direct(acc, port_id, bufs, n, rp, one_word, bytes, errors);
	struct nic_pkt pk[NIC_BURST_MAX];
	uint32_t h[NIC_BURST_MAX];
	bool ok[NIC_BURST_MAX];
	uint32_t np = parse_burst(port_id, bufs, n, pk, rp, one_word, h, ok, bytes, errors);
	root_burst_prefetched(acc, pk, np, rp, one_word, h, ok);
	return np;
}

static uint32_t rx_chunk(uint16_t port_id, struct nic_buf *bufs, uint32_t n)
{
	struct burst_acc acc;
	struct root_plan rp;
	uint64_t bytes = 0, errors = 0;
	uint32_t np;

	acc.in_port = port_id;
	acc.touched = 0;
	acc.plain_tx = 0;
	memset(acc.drop, 0, sizeof(acc.drop));
	acc.down = 0;
	acc.host = 0;
	acc.kernel = 0;
	acc.shard = nic_dp_enter();
	/* The root is alive for the whole burst: it was read from the port under nic_dp_enter. */
	struct nic_pipe *root = nic_port_root(port_id);
	if (NIC_LIKELY(root != NULL && root_plan_init(root, &rp))) {
		if (rp.one_word) /* the common pipe shape */
			np = root_burst(&acc, port_id, bufs, n, &rp, true, &bytes, &errors);
		else
			np = root_burst(&acc, port_id, bufs, n, &rp, false, &bytes, &errors);
	} else {
		struct nic_pkt pk[NIC_BURST_MAX];
		np = parse_burst(port_id, bufs, n, pk, NULL, false, NULL, NULL, &bytes, &errors);
		if (root == NULL)
			acc.drop[NIC_DROP_NO_ROOT] += np;
		for (uint32_t i = 0; root && i < np; i++)
			walk(&acc, &pk[i], root, NULL, false, 0);
	}
	/* Inside the burst: a port's stop (nic_dp_synchronize) then waits for its counts,
	 * which its next start resets; a later plain-store flush would bring them back. */
	burst_flush(&acc, np, bytes, errors);
	nic_dp_exit();
	return np;
}

/* FLOWDPA_TRACE counter tracks: a port's rx/tx/drop totals, at most every
 * NIC_TRACE_COUNTER_US per port (the first burst and a forced sample always). */
#define NIC_TRACE_COUNTER_US 10000
static _Atomic uint64_t counter_last_us[NIC_MAX_PORTS];

void nic_trace_port_counters(uint16_t port_id, bool force)
{
	struct nic_port_stats s;
	uint64_t now = core_trace_now_us(), last = atomic_load_explicit(&counter_last_us[port_id], memory_order_relaxed);
	char name[32], args[160];

	if (!force && last != 0 && now - last < NIC_TRACE_COUNTER_US)
		return;
	/* One sampler per period when several threads feed the port. */
	if (!atomic_compare_exchange_strong(&counter_last_us[port_id], &last, now) && !force)
		return;
	if (nic_port_stats_get(port_id, &s) != DOCA_SUCCESS)
		return;
	snprintf(name, sizeof(name), "port %u packets", port_id);
	snprintf(args, sizeof(args), "{\"rx\":%llu,\"tx\":%llu,\"drop\":%llu}", (unsigned long long)s.rx_pkts,
		 (unsigned long long)s.tx_pkts, (unsigned long long)(s.drops + s.rx_errors));
	core_trace_counter(nic_port_hot[port_id].trace_pid, name, args);
}

uint32_t nic_port_rx_burst(uint16_t port_id, struct nic_buf *bufs, uint32_t n)
{
	if (NIC_UNLIKELY(port_id >= NIC_MAX_PORTS || !atomic_load_explicit(&nic_port_hot[port_id].started, memory_order_acquire) || bufs == NULL))
		return 0;
	uint32_t done = 0;
	uint64_t t0 = core_trace_enabled() ? core_trace_now_us() : 0;
	for (uint32_t i = 0; i < n; i += NIC_BURST_MAX) {
		uint32_t chunk = n - i < NIC_BURST_MAX ? n - i : NIC_BURST_MAX;
		done += rx_chunk(port_id, bufs + i, chunk);
	}
	if (core_trace_enabled()) {
		char args[64];
		snprintf(args, sizeof(args), "{\"port\":%u,\"pkts\":%u}", port_id, done);
		core_trace_complete(nic_port_hot[port_id].trace_pid, "nic", "rx_burst", t0, core_trace_now_us() - t0,
				    args);
		nic_trace_port_counters(port_id, false);
	}
	return done;
}
