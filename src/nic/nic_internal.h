/*
 * nic_internal.h - structures shared by the NIC's translation units (pipes, datapath,
 * ports, traffic). Not for the layers above: they use nic.h.
 */
#ifndef FLOWDPA_NIC_INTERNAL_H_
#define FLOWDPA_NIC_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "index_hash.h"
#include "nic.h"

#define NIC_PIPE_MAGIC 0x6e696370u /* "nicp" */
#define NIC_PIPE_DEAD 0x64656164u  /* "dead" */

#define NIC_LIKELY(x) __builtin_expect(!!(x), 1)
#define NIC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * What the datapath reads of an entry through one acquire load of its state reference. An
 * update publishes a whole new state (actions, fwd and per-entry value together), so a
 * packet never mixes old actions with a new value; the provider's path-selector replace
 * is a single-word store of the value. Both run under the pipe lock.
 *
 * The state an entry gets at its add is interned: one per distinct (actions, fwd) per
 * pipe (src/nic/states.c), shared by every entry with those, and the entry's only
 * per-entry value sits in the entry itself (nic_entry.val, val_in_entry): the L4 ports
 * word its L4 rewrite writes, or, on a pipe with a path-selector field, that value. An
 * update gets a private state holding its value (val_in_entry false), as nothing
 * else may change the entry and its value apart.
 */
struct nic_entry_state {
	/* Hot header, derived from actions and fwd: what a hit reads first. */
	uint32_t fields;	   /* actions.fields */
	uint32_t tx_bit;	   /* fwd PORT to a valid port: 1u << port_id; else 0 */
	uint32_t l4_keep, l4_set;  /* L4 ports word (as in the frame): kept bits, new bits */
	struct nic_counter *cnt;   /* a shared counter, or NULL (own: NIC_EF_OWN_CNT) */
	_Atomic uint32_t ps_value; /* private state: the path-selector value, host order */
	bool val_in_entry;	   /* interned: l4_set (no ps field) or ps_value is nic_entry.val */
	bool ps_pipe;		   /* the pipe has a path-selector field: val is ps_value */
	struct nic_fwd fwd;
	struct nic_actions actions; /* interned without ps pipe: L4 port values zero */
	/* Control side: the pipe's intern table (states.c). */
	uint32_t refs, hash;
	struct nic_entry_state *intern_next;
};

/* The L4 ports word (as in the frame) of actions: bytes 0-1 source, 2-3 destination. */
static inline uint32_t nic_l4_set_word(const struct nic_actions *a)
{
	uint32_t set = 0;
	if (a->fields & (1u << NIC_AF_L4_SRC))
		set |= a->l4_src;
	if (a->fields & (1u << NIC_AF_L4_DST))
		set |= (uint32_t)a->l4_dst << 16;
	return set;
}

static inline void nic_entry_state_init(struct nic_entry_state *st, const struct nic_actions *actions,
					const struct nic_fwd *fwd, struct nic_counter *cnt, uint32_t ps_value)
{
	st->fwd = *fwd;
	st->cnt = cnt;
	st->actions = *actions;
	atomic_init(&st->ps_value, ps_value);
	st->val_in_entry = false;
	st->ps_pipe = false;
	st->refs = 0;
	st->hash = 0;
	st->intern_next = NULL;
	st->fields = actions->fields;
	st->tx_bit = fwd->type == NIC_FWD_PORT && fwd->port_id < NIC_MAX_PORTS ? 1u << fwd->port_id : 0;
	st->l4_keep = 0xffffffffu;
	if (actions->fields & (1u << NIC_AF_L4_SRC))
		st->l4_keep &= 0xffff0000u;
	if (actions->fields & (1u << NIC_AF_L4_DST))
		st->l4_keep &= 0x0000ffffu;
	st->l4_set = nic_l4_set_word(actions);
}

/* The states' arena (states.c): every entry state lives in one lazily committed array
 * and is known by its index there, its reference (0: none), which fits beside an
 * entry's flags in one word. */
#define NIC_EF_BITS 5
#define NIC_EF_MASK ((1u << NIC_EF_BITS) - 1)
extern struct nic_entry_state *nic_state_arena;
static inline struct nic_entry_state *nic_state_at(uint32_t ref)
{
	return ref ? &nic_state_arena[ref] : NULL;
}
static inline uint32_t nic_state_ref(const struct nic_entry_state *s)
{
	return s ? (uint32_t)(s - nic_state_arena) : 0;
}
/* States the arena makes writable at once (states.c). */
#define NIC_STATE_CHUNK ((uint32_t)1 << 14)
/* A state's memory from the arena (uninitialised), NULL when the arena is full or the
 * system refuses its memory. */
struct nic_entry_state *nic_state_alloc(void);
void nic_state_free(struct nic_entry_state *s);

/* Entry flags (the low NIC_EF_BITS of nic_entry.sf). */
#define NIC_EF_ENABLED 1u  /* HASH: usable (the provider's enable/disable) */
#define NIC_EF_LINKED 2u   /* in the structure the datapath walks */
#define NIC_EF_OWN_CNT 4u  /* counts in its own counter cells */
#define NIC_EF_USED 8u	   /* the slot holds an entry (added, not yet freed) */
#define NIC_EF_DESTROYED 16u /* unlinked by its pipe's destruction, which frees it */
_Static_assert(NIC_EF_DESTROYED <= NIC_EF_MASK, "flags in NIC_EF_BITS");

/* A counter cell of an entry's own counter, one per shard: one word, packets in the top
 * NIC_CELL_PKT_BITS bits and bytes below, so that an entry counted by two workers costs
 * 16 bytes instead of 32. An add that sets the top bit (2^23 packets) folds the cell
 * into the entry's wide spill counter (nic_cell_fold); with frames of at most
 * NIC_MAX_FRAME bytes the bytes cannot overflow first, even with 2^23 more adds racing
 * the fold on the shared shard. */
struct nic_cnt_cell {
	uint64_t w;
};
#define NIC_CELL_PKT_BITS 24
#define NIC_CELL_BYTE_BITS (64 - NIC_CELL_PKT_BITS)
#define NIC_CELL_ONE_PKT (1ull << NIC_CELL_BYTE_BITS)
_Static_assert((uint64_t)NIC_MAX_FRAME << NIC_CELL_PKT_BITS < NIC_CELL_ONE_PKT, "cell bytes outlast packets");

static inline uint64_t nic_cell_pkts(uint64_t w)
{
	return w >> NIC_CELL_BYTE_BITS;
}
static inline uint64_t nic_cell_bytes(uint64_t w)
{
	return w & (NIC_CELL_ONE_PKT - 1);
}

/* What an entry's cells folded (nic_cell_fold), under the pipe's spill_lock. */
struct nic_cnt_wide {
	uint64_t pkts, bytes;
};

/*
 * An entry: what a hit reads of it, 16 bytes. A HASH pipe's pool is an array of these
 * (slot = index: four entries per cache line), a BASIC pipe's entry is one inside a
 * struct nic_bentry (with its match word and chain link), a CONTROL entry one at the
 * head of a struct nic_ctrl_entry. The state reference and the flags share a word, so
 * that the first counter shard's cell fits in the entry: a hit on a HASH entry counted
 * by one worker touches nothing but it and its state. Everything else an entry has is
 * derived from its pipe and slot (nic_entry_slot) or shared in its state: the shared
 * counter (per distinct actions, fwd and counter), the pipe (callers pass it), the
 * index (the slot).
 */
struct nic_entry {
	_Alignas(16) _Atomic uint32_t sf; /* state reference << NIC_EF_BITS | NIC_EF_* */
	_Atomic uint32_t val;		  /* the per-entry value of an interned state (see above) */
	struct nic_cnt_cell cell0;	  /* BASIC, HASH: its own counter's cell of shard 0 */
};
_Static_assert(sizeof(struct nic_entry) == 16, "a HASH entry is 16 bytes");

static inline uint32_t nic_entry_flags(const struct nic_entry *e, memory_order mo)
{
	return atomic_load_explicit(&e->sf, mo) & NIC_EF_MASK;
}
static inline struct nic_entry_state *nic_entry_state(const struct nic_entry *e, memory_order mo)
{
	return nic_state_at(atomic_load_explicit(&e->sf, mo) >> NIC_EF_BITS);
}
static inline void nic_entry_flags_set(struct nic_entry *e, uint32_t f, memory_order mo)
{
	atomic_fetch_or_explicit(&e->sf, f, mo);
}
static inline void nic_entry_flags_clear(struct nic_entry *e, uint32_t f, memory_order mo)
{
	atomic_fetch_and_explicit(&e->sf, ~f, mo);
}
/* The first word of an entry: state s and flags f, published by one store. */
static inline void nic_entry_publish(struct nic_entry *e, const struct nic_entry_state *s, uint32_t f,
				     memory_order mo)
{
	atomic_store_explicit(&e->sf, nic_state_ref(s) << NIC_EF_BITS | f, mo);
}
/* A new entry's value and state, and its flags last, with release: a HASH slot is
 * usable, a BASIC entry's fields readable, from this store on. */
static inline void nic_entry_set(struct nic_entry *e, const struct nic_entry_attr *attr,
				 const struct nic_entry_state *st, uint32_t val)
{
	atomic_init(&e->val, val);
	nic_entry_publish(e, st, NIC_EF_USED | NIC_EF_LINKED | NIC_EF_ENABLED | (attr->own_counter ? NIC_EF_OWN_CNT : 0),
			  memory_order_release);
}
/* Replace e's state by s, keeping its flags; returns the old state. */
static inline struct nic_entry_state *nic_entry_state_swap(struct nic_entry *e, const struct nic_entry_state *s)
{
	uint32_t old = atomic_load_explicit(&e->sf, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&e->sf, &old,
						      nic_state_ref(s) << NIC_EF_BITS | (old & NIC_EF_MASK),
						      memory_order_acq_rel, memory_order_relaxed))
		;
	return nic_state_at(old >> NIC_EF_BITS);
}

/*
 * A BASIC pipe's slots [next, end), handed to one adding thread in order (pool.c). The
 * cursor gives out NIC_SLOT_RUN slots at a time (a sixteenth of a small pipe at most):
 * one line of the used bitmap and 16 KiB of records, so that two threads adding into
 * one pipe write neither the same bitmap word nor neighbouring records. Threads are
 * numbered in the order they first take slots, modulo NIC_SLOT_RUNS.
 */
#define NIC_SLOT_RUN 512u
#define NIC_SLOT_RUNS 8
struct nic_slot_run {
	uint32_t next, end;
};

/*
 * A BASIC entry: 32 bytes, half a line, so that a hit on a one-word pipe reads the
 * match word, the state reference, the per-entry value and the first counter shard's
 * cell from one line: on a table bigger than the caches that is one DRAM miss per
 * packet fewer than a cell array of its own. Its bucket is recomputed from its match
 * words when it is unlinked (pipe.c), not stored.
 */
struct nic_bentry {
	_Alignas(32) struct nic_entry e; /* first: the entry's address is the object's */
	uint64_t match0;		  /* the first matched key word, masked; compared first */
	/* Bucket overflow chain: slot + 1, 0: end, one link per bucket table (struct
	 * nic_btable.link), so that a resize links the entries into a new table while
	 * packets follow the old one's. A free slot: the free list in next[0]. */
	_Atomic uint32_t next[2];
};
_Static_assert(sizeof(struct nic_bentry) == 32, "a BASIC entry is 32 bytes");

static inline struct nic_bentry *nic_bentry_of(const struct nic_entry *e)
{
	return (struct nic_bentry *)(void *)e;
}

/* A CONTROL entry: the entry and its own mask, match and list links (few, fat). */
struct nic_ctrl_entry {
	struct nic_entry e; /* first: the entry's address is the object's */
	struct nic_key match;
	struct nic_key mask;
	uint32_t priority;
	uint64_t seq;	       /* insertion order: ties of equal priority */
	struct nic_cond *cond; /* a match condition (field.c), or NULL */
	struct nic_ctrl_entry *list_next, *list_prev;
	struct {
		_Alignas(64) struct nic_cnt_cell c; /* a line per shard: each has one writer */
	} shard[NIC_CNT_SHARDS]; /* not in the entry, whose line every lookup reads */
	struct nic_cnt_wide spill; /* what the cells folded (nic_cell_fold) */
};

static inline struct nic_ctrl_entry *nic_ctrl_of(const struct nic_entry *e)
{
	return (struct nic_ctrl_entry *)(void *)e;
}

/* CONTROL pipes: an immutable priority-ordered array, replaced on every change. */
struct nic_ctrl_table {
	uint32_t n;
	struct nic_entry *e[];
};

/*
 * A pipe: what packets and adds read on every lookup or add first, never written while
 * they run (but nr_entries, by a resize holding the lock for writing); then the words
 * that are written while they run, each group on lines of its own, so that a write by
 * one thread does not take the read-mostly lines from the others' caches (two queues
 * adding into one pipe each read the first part several times an add).
 */
struct nic_pipe {
	/* ---- read-mostly */
	_Atomic uint32_t magic; /* NIC_PIPE_MAGIC, NIC_PIPE_DEAD once destroyed */
	enum nic_pipe_type type;
	uint16_t port_id;
	bool is_root;
	uint32_t nr_entries;
	uint32_t map_algorithm;
	int ps_field;
	uint32_t ps_max; /* the largest value ps_field holds (UINT32_MAX: no field, or 32 bits) */
	char name[64];
	struct nic_key const_mask;
	struct nic_key const_val;
	struct nic_key entry_mask;
	/* Word indices of const_mask / entry_mask that are non-zero: the only ones compared. */
	uint8_t nr_const_words, nr_entry_words;
	uint8_t const_words[NIC_KEY_WORDS];
	uint8_t entry_words[NIC_KEY_WORDS];
	struct nic_index_layout idx; /* HASH: the entry mask's dwords for the index hash */
	bool prefetch_lookup; /* a root lookup prefetches in passes (see datapath.c) */
	uint32_t index_mask;  /* HASH with a power-of-two nr_entries: hash % nr_entries == hash & index_mask */
	bool has_miss_counter;
	struct nic_counter miss;
	_Atomic(struct nic_fwd *) fwd_miss;
	struct nic_idxsel *idxsel;
	struct nic_mem *mem;
	struct nic_prog *progs[NIC_MAX_PROGS]; /* field programs (NIC_AF_PROG), immutable */
	/* BASIC and HASH: the entries, one per slot (HASH: slot = index; struct nic_entry,
	 * BASIC: struct nic_bentry), and the own counters' cells, one array per shard; all
	 * committed by the pages entries touch. */
	void *pool;
	uint32_t pool_n;			    /* slots */
	struct nic_cnt_cell *cells[NIC_CNT_SHARDS]; /* [shard][slot] from 1; shard 0: in the entry */
	struct nic_cnt_wide *spill;		    /* [slot]: what the cells folded */
	/* What of cells[1..] and spill was ever written, each bit set once: readers (counter
	 * reads, slot release) skip the rest, whose pages a read would commit on a kernel
	 * that maps no zero page (as some VMs' do). Bit s: shard s counted; NIC_COUNTED_SPILL:
	 * a cell folded. */
	_Atomic uint32_t counted;
	uint64_t *bmatch;			    /* BASIC on several words: [slot][word] */
	uint64_t *used;				    /* bitmap: BASIC slots holding an entry;
						     * HASH: 64-slot groups that ever held one */
	_Atomic uintptr_t bt; /* BASIC: the buckets (nic_btable_word) */
	_Atomic(struct nic_ctrl_table *) ctrl;
	struct nic_pipe *all_next; /* every pipe ever created, freed at shutdown */

	/* ---- written by packets: the ROUND_ROBIN cursor */
	_Alignas(64) _Atomic uint32_t rr;

	/*
	 * ---- control side. Every control call holds the lock for writing, but adds: those
	 * hold it for reading, so that queues filling one pipe from several threads add in
	 * parallel, and serialise among themselves only where they meet: on a bucket (its
	 * wlock, unless the adding call is the only one: adders), on the BASIC free list and
	 * cursor (slot_lock), on the interned states (intern_lock), and on nr_live (atomic).
	 */
	_Alignas(64) pthread_rwlock_t lock;
	/* Adding calls in progress, 2 each, | NIC_ADDERS_SOLO while one runs alone (add.c). */
	_Atomic uint32_t adders;
#define NIC_ADDERS_SOLO 1u
	uint64_t next_seq;
	struct nic_ctrl_entry *entries; /* CONTROL: list of live entries */
	/* BASIC: the slots, under slot_lock (adds) or the lock held for writing. */
	_Alignas(64) _Atomic uint32_t slot_lock; /* core_spin_lock */
	uint32_t pool_hw;   /* slots ever handed out (to runs) */
	uint32_t pool_free; /* the first freed slot + 1 */
	_Atomic uint32_t nr_live;
	struct nic_slot_run runs[NIC_SLOT_RUNS]; /* nic_slots_take */
	/* The interned entry states (states.c): under the lock held for writing, or
	 * intern_lock while adds hold it for reading. */
	_Alignas(64) _Atomic uint32_t intern_lock; /* core_spin_lock: held a burst's states */
	struct nic_entry_state **intern;
	struct nic_entry_state *intern_last; /* the last one an add got */
	uint32_t intern_mask, nr_interned;
	/* A counter fold against readers of the cells. */
	_Alignas(64) pthread_mutex_t spill_lock;
	/* Committed ahead of use (prefault.c): the service's thread writes them. */
	_Alignas(64) struct core_prefault pool_pf, bmatch_pf, buckets_pf;
};

struct nic_idxsel {
	uint32_t n;
	_Atomic uint8_t *state;
};

struct nic_mem {
	uint32_t n;
	_Atomic uint64_t *cells;
};

/* ------------------------------------------------------------------ shared helpers */

/* Pool slots of a BASIC pipe of n entries: slack over n, because a removed entry keeps
 * its slot until it is freed while an add on another queue may already count on its
 * place. nic_basic_max_entries is the inverse (the most entries pool_n slots hold). */
static inline uint64_t nic_basic_slots(uint32_t n)
{
	return (uint64_t)n + n / 8 + 64;
}
static inline uint32_t nic_basic_max_entries(uint32_t pool_n)
{
	uint64_t n = pool_n > 64 ? (uint64_t)(pool_n - 64) * 8 / 9 : 0;
	while (n && nic_basic_slots((uint32_t)n) > pool_n)
		n--;
	return (uint32_t)n;
}

/* The bucket of hash h among n, a power of two (struct nic_pipe.nr_buckets): its low
 * bits, which Fibonacci hashing (nic_hash_one_word) spreads evenly over arithmetic
 * progressions such as consecutive addresses or ports. */
static inline uint32_t nic_bucket_of(uint32_t h, uint32_t n)
{
	return h & (n - 1);
}

/*
 * A BASIC pipe's bucket: 32 bytes (half a line) holding up to NIC_BUCKET_WAYS entries by
 * pool slot, each with a 16-bit tag of its hash, and a chain for more. A lookup reads
 * the bucket, then only the entry whose tag is its key's: one dependent miss after the
 * bucket for nearly every hit. A bucket chain per entry (the layout before) made a
 * quarter to a half of the hits at 1M-16M entries walk past another key's entry, a
 * dependent DRAM miss of its own. With n/4 to n/2 buckets (the memory of the one-word
 * chains they replace), 2 to 4 entries a bucket: 4% to 20% of the entries are chained.
 *
 * Writers hold the pipe lock for writing, or for reading and the bucket's wlock (adds);
 * readers hold nothing. A way's tag is written before its
 * slot (release), and a linked entry's way and tag never change (entries do not move
 * between ways and the chain); a reader loads the tags, then the slot, and checks the
 * entry's key, so a stale tag can only make it miss an entry being added.
 */
#define NIC_BUCKET_WAYS 4
struct nic_bucket {
	_Atomic uint32_t way[NIC_BUCKET_WAYS]; /* pool slot + 1; 0: a free way */
	_Atomic uint64_t tags;		       /* way i's tag: bits 16i to 16i + 15 */
	_Atomic uint32_t over;		       /* the entries past the ways: the first's slot + 1,
						* linked by next */
	_Atomic uint32_t wlock;		       /* 1 while an add writes it; never read by packets */
};
_Static_assert(sizeof(struct nic_bucket) == 32, "a bucket is half a cache line");

/*
 * A BASIC pipe's buckets, published whole (struct nic_pipe.bt): a resize past the size
 * they were made for builds a bigger table beside the one packets walk, with its chains
 * on the entries' other link, swaps the two with one release store and frees the old
 * one after a grace period (nic_buckets_grow). Under the pipe lock, in either mode, the
 * table does not change.
 */
struct nic_btable {
	uint32_t n;    /* buckets, a power of two */
	uint32_t link; /* the chain link its chains use: struct nic_bentry.next[link] */
	uint8_t pad[56];
	struct nic_bucket b[];
};
_Static_assert(offsetof(struct nic_btable, b) == 64, "the buckets start on a line");

/* The bytes of a table of nb buckets. */
static inline size_t nic_btable_bytes(uint32_t nb)
{
	return sizeof(struct nic_btable) + (size_t)nb * sizeof(struct nic_bucket);
}

/*
 * The word a pipe publishes its table by: the table's address (a mapping: page-aligned)
 * with its chain link in bit 5 and the log2 of its bucket count in bits 0-4, so that a
 * lookup has the buckets, their count and link from one load (nic_pipe_buckets), not a
 * load of the table's header first (3% of a one-packet burst).
 */
#define NIC_BT_ADDR (~(uintptr_t)4095) /* the table's address bits */
#define NIC_BT_LINK_SHIFT 5
static inline uintptr_t nic_btable_word(const struct nic_btable *bt)
{
	if (bt == NULL)
		return 0;
	return (uintptr_t)bt | (uintptr_t)bt->link << NIC_BT_LINK_SHIFT | (uintptr_t)__builtin_ctz(bt->n);
}
static inline struct nic_btable *nic_pipe_btable(const struct nic_pipe *p)
{
	return (struct nic_btable *)(atomic_load_explicit(&p->bt, memory_order_acquire) & NIC_BT_ADDR);
}
struct nic_buckets_view {
	struct nic_bucket *b;
	uint32_t n, link;
};
static inline struct nic_buckets_view nic_pipe_buckets(const struct nic_pipe *p)
{
	uintptr_t w = atomic_load_explicit(&p->bt, memory_order_acquire);
	struct nic_btable *bt = (struct nic_btable *)(w & NIC_BT_ADDR);
	return (struct nic_buckets_view){bt->b, 1u << (w & ((1u << NIC_BT_LINK_SHIFT) - 1)),
					 (uint32_t)(w >> NIC_BT_LINK_SHIFT) & 1};
}

/* The buckets of n entries: the power of two in (n/4, n/2], at least 1. */
static inline uint32_t nic_buckets_for(uint32_t n)
{
	uint32_t nb = 1;
	while ((uint64_t)nb * 4 <= n && nb < (1u << 30))
		nb <<= 1;
	return nb;
}

/* The tag of hash h: its high half (nic_bucket_of takes the low bits). */
static inline uint32_t nic_bucket_tag(uint32_t h)
{
	return h >> 16;
}

/*
 * The ways of a bucket's tags word that may have tag tag: bit 16i + 15 for way i. Every
 * way with the tag is in it; a way just above one may be too (the borrow of the
 * zero-lane test), which the entry's key check then refuses.
 */
static inline uint64_t nic_bucket_ways(uint64_t tags, uint32_t tag)
{
	const uint64_t lanes = 0x0001000100010001ull;
	uint64_t x = tags ^ (lanes * tag);
	return (x - lanes) & ~x & (lanes << 15);
}

/* The BASIC entry in pool slot s - 1 of pool (s from a bucket's way), NULL for 0. */
static inline struct nic_bentry *nic_bucket_entry(void *pool, uint32_t s)
{
	return s ? (struct nic_bentry *)(void *)((char *)pool + (size_t)(s - 1) * sizeof(struct nic_bentry)) : NULL;
}

/* The entries of a bucket that may be a key's: the ways with its tag, then the chain. */
struct nic_bucket_iter {
	const struct nic_bucket *b;
	void *pool;
	uint64_t ways;
	bool chain;
	uint32_t link; /* the table's chain link */
	uint32_t next; /* slot + 1 */
};
static inline void nic_bucket_iter_init(struct nic_bucket_iter *it, const struct nic_bucket *b, uint32_t link,
					void *pool, uint32_t h)
{
	it->b = b;
	it->link = link;
	it->pool = pool;
	it->ways = nic_bucket_ways(atomic_load_explicit(&b->tags, memory_order_relaxed), nic_bucket_tag(h));
	it->chain = false;
	it->next = 0;
}
static inline struct nic_bentry *nic_bucket_iter_next(struct nic_bucket_iter *it)
{
	while (it->ways) {
		uint32_t i = (uint32_t)__builtin_ctzll(it->ways) / 16;
		it->ways &= it->ways - 1;
		struct nic_bentry *e =
			nic_bucket_entry(it->pool, atomic_load_explicit(&it->b->way[i], memory_order_acquire));
		if (e)
			return e;
	}
	if (!it->chain) {
		it->chain = true;
		it->next = atomic_load_explicit(&it->b->over, memory_order_acquire);
	} else if (it->next) {
		it->next = atomic_load_explicit(&nic_bucket_entry(it->pool, it->next)->next[it->link],
						memory_order_acquire);
	}
	return nic_bucket_entry(it->pool, it->next);
}

/* The entry in pool slot slot of a BASIC or HASH pipe, and the slot of a pool entry. */
static inline uint32_t nic_pool_shift(const struct nic_pipe *p)
{
	_Static_assert(sizeof(struct nic_bentry) == 32 && sizeof(struct nic_entry) == 16, "pool record sizes");
	return p->type == NIC_PIPE_BASIC ? 5 : 4;
}
static inline struct nic_entry *nic_pool_entry(const struct nic_pipe *p, uint32_t slot)
{
	return (struct nic_entry *)(void *)((char *)p->pool + ((size_t)slot << nic_pool_shift(p)));
}
static inline uint32_t nic_entry_slot(const struct nic_pipe *p, const struct nic_entry *e)
{
	return (uint32_t)(((uintptr_t)e - (uintptr_t)p->pool) >> nic_pool_shift(p));
}

/* The entry index of a HASH pipe for hash h (what doca_flow_pipe_calc_hash implies). */
static inline uint32_t nic_hash_index(const struct nic_pipe *p, uint32_t h)
{
	return p->index_mask ? h & p->index_mask : h % p->nr_entries;
}

/* Set by nic_hits_enable: every entry counts its hits (FLOWDPA_REPORT, src/nic/hits.c). */
extern bool nic_count_hits;

/* Add n to a count of counter shard shard from the datapath (the calling thread's,
 * nic_dp_enter): the thread owning the shard needs no locked instruction; the last
 * shard is shared, with atomic adds. Readers load each shard relaxed and sum. */
static inline void nic_shard_add(uint64_t *c, uint64_t n, uint32_t shard)
{
	if (NIC_UNLIKELY(shard == NIC_CNT_SHARDS - 1))
		__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
	else
		__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* Bump counter c from the datapath; shard is the calling thread's (nic_dp_enter). */
static inline void nic_counter_add(struct nic_counter *c, uint64_t pkts, uint64_t bytes, uint32_t shard)
{
	nic_shard_add(&c->shard[shard].pkts, pkts, shard);
	nic_shard_add(&c->shard[shard].bytes, bytes, shard);
}

#define NIC_COUNTED_SPILL (1u << 31)
/* Cells past the entry's (shard 0) are only the shared shard's, counted with atomic adds
 * (nic_cell_add), which is where a pipe's counted bit is set. */
_Static_assert(NIC_CNT_SHARDS == 2, "owned shards past 0 would set their counted bit too");

/* Note that p's cells of shard s (or its spill) are written from now on (release: a
 * reader that sees the bit then sees what follows). Once per pipe and shard. */
static inline void nic_pipe_counted(const struct nic_pipe *p, uint32_t bit)
{
	_Atomic uint32_t *c = &((struct nic_pipe *)p)->counted;
	if (NIC_UNLIKELY(!(atomic_load_explicit(c, memory_order_relaxed) & bit)))
		atomic_fetch_or_explicit(c, bit, memory_order_release);
}

/* Move cell c of entry e into its spill counter: rare (every 2^23 packets of a cell). */
void nic_cell_fold(const struct nic_pipe *p, const struct nic_entry *e, struct nic_cnt_cell *c);

/* Count a frame of len bytes in own-counter cell c of entry e, from the datapath thread
 * owning c's shard: no locked instruction. */
static inline void nic_cell_add_owned(const struct nic_pipe *p, const struct nic_entry *e, struct nic_cnt_cell *c,
				      uint32_t len)
{
	uint64_t w = __atomic_load_n(&c->w, __ATOMIC_RELAXED) + (NIC_CELL_ONE_PKT | len);
	__atomic_store_n(&c->w, w, __ATOMIC_RELAXED);
	if (NIC_UNLIKELY(w >> 63))
		nic_cell_fold(p, e, c);
}

/* Count a frame in own-counter cell c of entry e from the datapath (nic_shard_add's rule). */
static inline void nic_cell_add(const struct nic_pipe *p, const struct nic_entry *e, struct nic_cnt_cell *c,
				uint32_t len, uint32_t shard)
{
	if (NIC_LIKELY(shard != NIC_CNT_SHARDS - 1)) {
		nic_cell_add_owned(p, e, c, len);
		return;
	}
	if (p->pool)
		nic_pipe_counted(p, 1u << shard);
	if (NIC_UNLIKELY(__atomic_add_fetch(&c->w, NIC_CELL_ONE_PKT | len, __ATOMIC_RELAXED) >> 63))
		nic_cell_fold(p, e, c);
}

/* The own-counter cell of entry e for shard: the pool's array, or a CONTROL entry's own. */
static inline struct nic_cnt_cell *nic_entry_cell(const struct nic_pipe *p, const struct nic_entry *e, uint32_t shard)
{
	if (NIC_UNLIKELY(p->pool == NULL)) /* CONTROL: every worker reads the entry's line */
		return &nic_ctrl_of(e)->shard[shard].c;
	if (NIC_LIKELY(shard == 0))
		return &((struct nic_entry *)(void *)e)->cell0;
	return &p->cells[shard][nic_entry_slot(p, e)];
}

/* A packet hit entry e of pipe p: its counter, and its report hit count when that is on
 * (the own-counter cell, unused by an entry without its own COUNT). */
static inline void nic_entry_hit(const struct nic_pipe *p, struct nic_entry *e, uint32_t len, uint32_t shard)
{
	uint32_t sf = atomic_load_explicit(&e->sf, memory_order_acquire), f = sf & NIC_EF_MASK;
	if (f & NIC_EF_OWN_CNT) {
		nic_cell_add(p, e, nic_entry_cell(p, e, shard), len, shard);
	} else {
		struct nic_counter *cnt = nic_state_at(sf >> NIC_EF_BITS)->cnt;
		if (cnt)
			nic_counter_add(cnt, 1, len, shard);
	}
	if (NIC_UNLIKELY(__atomic_load_n(&nic_count_hits, __ATOMIC_RELAXED)) && !(f & NIC_EF_OWN_CNT))
		nic_cell_add(p, e, nic_entry_cell(p, e, shard), len, shard);
}

/* Sum of an entry's own-counter cells. */
void nic_entry_cells_read(const struct nic_pipe *p, const struct nic_entry *e, uint64_t *pkts, uint64_t *bytes);

/* A BASIC entry's masked match words, in entry_words order (pipes of several words). */
static inline const uint64_t *nic_entry_words(const struct nic_pipe *p, const struct nic_entry *e)
{
	return p->bmatch + (size_t)nic_entry_slot(p, e) * p->nr_entry_words;
}

/* ------------------------------------------------------------------ pool.c */

/* Zeroed memory committed only where it is touched (anonymous MAP_NORESERVE mapping). */
void *nic_lazy_alloc(size_t size);
void nic_lazy_free(void *mem, size_t size);
/* The pool of a BASIC or HASH pipe with nslots slots; NO_MEMORY frees what it made. */
FLOWDPA_MUST_CHECK doca_error_t nic_pool_create(struct nic_pipe *p, uint32_t nslots);
void nic_pool_free(struct nic_pipe *p);
/* No more committing ahead of use (prefault.c): at destruction, before the tables go. */
void nic_pool_prefault_stop(struct nic_pipe *p);
/* BASIC: mark the n slots of entries just added used, one atomic per bitmap word they
 * share (two queues' adds meet on a word; an atomic per add made them bounce it). */
void nic_slots_mark_used(struct nic_pipe *p, const uint32_t *slots, uint32_t n);
/* The first used slot from from on, or the end of the pool's used range. */
uint32_t nic_slot_next_used(const struct nic_pipe *p, uint32_t from);
/* BASIC: up to n free slots (zero) into out, freed ones first; returns how many (fewer
 * when every slot is taken). *cursor: where the pool's cursor moved to, 0 if it did not
 * move (for nic_slots_commit_ahead). Both this and nic_slot_release: under the pipe
 * lock for writing, or slot_lock (adds). */
uint32_t nic_slots_take(struct nic_pipe *p, struct nic_bentry **out, uint32_t n, uint32_t *cursor);
/* BASIC: ask the prefault service for the records past a cursor nic_slots_take moved
 * to. Not under slot_lock: the request may wake the service's thread, which can take
 * the CPU of the thread that woke it, and the other adders would wait on the lock. */
void nic_slots_commit_ahead(struct nic_pipe *p, uint32_t cursor);
/* The slot of a freed entry: its cells and the entry zeroed, back to the free ones. */
void nic_slot_release(struct nic_pipe *p, struct nic_entry *e);
/* HASH: note that slot holds an entry (the groups nic_slot_next_used visits). */
void nic_hash_slot_mark(struct nic_pipe *p, uint32_t slot);
/* The match key of an entry (the words it matches, the rest zero). */
void nic_entry_match_key(const struct nic_pipe *p, const struct nic_entry *e, struct nic_key *out);

/* ------------------------------------------------------------------ add.c */

/* BASIC and HASH adds, as nic_entry_add_bulk (pipe alive when called). */
void nic_pool_add_bulk(struct nic_pipe *p, const struct nic_entry_attr *const *attrs, uint32_t n,
		       struct nic_entry **out, doca_error_t *errs);
/* Unlink BASIC entry b of hash h from its bucket (lock held for writing). Readers that
 * already hold b may still follow its chain link until the grace period the caller
 * waits for. */
void nic_bucket_unlink(struct nic_pipe *p, struct nic_bentry *b, uint32_t h);
/* A BASIC pipe's bucket table for n entries (link: its chain link), zero, mapped lazily;
 * NULL when out of address space. nic_btable_free unmaps it. */
struct nic_btable *nic_btable_alloc(uint32_t n, uint32_t link);
void nic_btable_free(struct nic_btable *bt);
/* A BASIC pipe now holding nr_entries: when they want more buckets than it has, a new
 * table with every linked entry is swapped in (struct nic_btable). Lock held for
 * writing; returns after the grace period that frees the old table. NO_MEMORY (and a
 * line) leaves the old table, still correct, with longer chains. */
doca_error_t nic_buckets_grow(struct nic_pipe *p, uint32_t nr_entries);
/* A HASH pipe's path-selector value fits its field (INVALID_VALUE and a line, from
 * nic_ps_value_refuse, if not). Inline: every HASH add checks it. */
doca_error_t nic_ps_value_refuse(const struct nic_pipe *p, uint32_t ps_value);
static inline doca_error_t nic_ps_value_check(const struct nic_pipe *p, uint32_t ps_value)
{
	return __builtin_expect(ps_value <= p->ps_max, 1) ? DOCA_SUCCESS : nic_ps_value_refuse(p, ps_value);
}

/* ------------------------------------------------------------------ states.c */

/* nic_state_get past its shortcut: the state found (or made) by its intern key. */
struct nic_entry_state *nic_state_intern(struct nic_pipe *p, const struct nic_actions *a, const struct nic_fwd *fwd,
					 struct nic_counter *cnt);

/* The L4 ports an interned state's key holds, in nic_l4_set_word's form: the ports the
 * actions set on a pipe with a path-selector field (its entries' value is that field);
 * none elsewhere (the entry's value holds them). */
static inline uint32_t nic_intern_l4_word(const struct nic_pipe *p, const struct nic_actions *a)
{
	return p->ps_field >= 0 ? nic_l4_set_word(a) : 0;
}

/* The same destination (type, port, pipe): interned states differ by it too. */
static inline bool nic_fwd_eq(const struct nic_fwd *a, const struct nic_fwd *b)
{
	return a->type == b->type && a->port_id == b->port_id && a->pipe == b->pipe;
}

/*
 * The interned state for actions, fwd and shared counter cnt (or NULL) with one more
 * reference (NULL: no memory); *val is the entry's value (nic_entry.val) for it. Both
 * this and nic_state_put: under the pipe lock for writing, or intern_lock (adds).
 * Entries added in a row mostly share their actions, so the last state is tried first,
 * inline and without building the key where the actions rewrite no more than the L4
 * ports (a fill's usual case): the key is then the fields word and nic_intern_l4_word.
 */
static inline struct nic_entry_state *nic_state_get(struct nic_pipe *p, const struct nic_actions *a,
						    const struct nic_fwd *fwd, struct nic_counter *cnt,
						    uint32_t ps_value, uint32_t *val)
{
	*val = p->ps_field >= 0 ? ps_value : nic_l4_set_word(a);
	struct nic_entry_state *last = p->intern_last;
	const uint32_t f = a->fields, l4_bits = 1u << NIC_AF_L4_SRC | 1u << NIC_AF_L4_DST;
	if (last && !(f & ~l4_bits) && last->actions.fields == f && last->cnt == cnt && nic_fwd_eq(&last->fwd, fwd) &&
	    (last->actions.l4_src | (uint32_t)last->actions.l4_dst << 16) == nic_intern_l4_word(p, a)) {
		last->refs++;
		return last;
	}
	return nic_state_intern(p, a, fwd, cnt);
}
/* Drop a reference of an interned state, or free a private one. No reader may hold it. */
void nic_state_put(struct nic_pipe *p, struct nic_entry_state *s);
void nic_states_free_all(struct nic_pipe *p);

static inline uint64_t nic_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* Hash of the key words listed in words[] under mask (the pipe's active words). */
static inline uint32_t nic_hash_words(const struct nic_key *key, const struct nic_key *mask, const uint8_t *words,
				      uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = words[i];
		h = nic_mix64(h ^ (key->w[w] & mask->w[w]) ^ ((uint64_t)w << 56));
	}
	return (uint32_t)(h ^ (h >> 32));
}

/*
 * The bucket hash of a BASIC pipe (internal to the pipe, unlike a HASH pipe's index
 * hash): for a pipe matching one key word, its masked value v folded and multiplied by
 * the golden ratio (whose high product bits mix every input bit); else nic_hash_words.
 */
static inline uint32_t nic_hash_one_word(uint64_t v)
{
	return (uint32_t)(((v ^ (v >> 32)) * 0x9e3779b97f4a7c15ull) >> 32);
}

static inline uint32_t nic_basic_hash(const struct nic_pipe *p, const struct nic_key *k)
{
	if (p->nr_entry_words == 1) {
		uint32_t w = p->entry_words[0];
		return nic_hash_one_word(k->w[w] & p->entry_mask.w[w]);
	}
	return nic_hash_words(k, &p->entry_mask, p->entry_words, p->nr_entry_words);
}

static inline bool nic_key_eq_words(const struct nic_key *key, const struct nic_key *mask, const struct nic_key *val,
				    const uint8_t *words, uint32_t n)
{
	uint64_t diff = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = words[i];
		diff |= (key->w[w] & mask->w[w]) ^ val->w[w];
	}
	return diff == 0;
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "nic_parse_fast builds little-endian key words");

/*
 * The common frame shape: untagged Ethernet, IPv4 without options and not a fragment,
 * complete UDP or TCP header, all lengths valid (l3_ok and l4_ok 1). Returns its L4 meta (NIC_L4_META_TCP or NIC_L4_META_UDP),
 * or 0 (NIC_L4_META_NONE) for any other frame, which takes the general parser.
 */
/* NIC_PX_* bits: what of key word 12 the parser computes (parse.c); 0 almost always.
 * nic_parse_fast gives way to the general parser while it is not; the root fast path
 * (datapath.c, frame_words) reads a frame's words by recipe only when its pipe matches
 * nothing of word 12, and any packet that goes on past it is parsed whole. */
extern _Atomic uint32_t nic_parse_extras;
#define NIC_KEY_EXTRA_WORD 12

/*
 * The length checks behind l3_ok and l4_ok (docs/flow.md, Parser meta), on a header the
 * frame holds (room: the frame's bytes from the header on). IPv4: total length covers
 * the header (ihl bytes, >= 20) and fits the frame; IPv6: the payload fits the frame;
 * TCP: data offset >= 5 words and the header fits; UDP: length >= 8 and fits.
 */
static inline bool nic_ip4_len_ok(const uint8_t *ip, uint32_t ihl, uint32_t room)
{
	uint32_t tot = (uint32_t)ip[2] << 8 | ip[3];
	return tot >= ihl && tot <= room;
}
static inline bool nic_ip6_len_ok(const uint8_t *ip, uint32_t room)
{
	return 40u + ((uint32_t)ip[4] << 8 | ip[5]) <= room;
}
static inline bool nic_tcp_len_ok(const uint8_t *tcp, uint32_t room)
{
	uint32_t doff = (uint32_t)(tcp[12] >> 4) * 4;
	return doff >= 20 && doff <= room;
}
static inline bool nic_udp_len_ok(const uint8_t *udp, uint32_t room)
{
	uint32_t ulen = (uint32_t)udp[4] << 8 | udp[5];
	return ulen >= 8 && ulen <= room;
}

static inline __attribute__((always_inline)) uint32_t nic_fast_shape(const uint8_t *frame, uint32_t len)
{
	if (len < 42)
		return 0;
	uint32_t et, ipw; /* frame bytes 12..15 (ethertype, version/IHL, TOS) and 20..23 */
	memcpy(&et, frame + 12, 4);
	memcpy(&ipw, frame + 20, 4);
	if ((et & 0xffffffu) != 0x450008u || (ipw & 0xff3fu) /* MF or a fragment offset */)
		return 0;
	/* The lengths behind l3_ok and l4_ok (nic_ip4_len_ok ...), each one unsigned compare:
	 * a value under its minimum wraps above the bound. A frame failing one is parsed in
	 * full (its ok bits 0). */
	uint32_t tot = (uint32_t)frame[16] << 8 | frame[17];
	if (NIC_UNLIKELY(tot - 20u > len - 34u))
		return 0;
	uint32_t proto = ipw >> 24;
	if (proto == 17) {
		uint32_t ulen = (uint32_t)frame[38] << 8 | frame[39];
		return NIC_LIKELY(ulen - 8u <= len - 42u) ? NIC_L4_META_UDP : 0;
	}
	if (proto == 6 && len >= 54 && NIC_LIKELY((uint32_t)(frame[46] >> 4) * 4u - 20u <= len - 54u))
		return NIC_L4_META_TCP;
	return NIC_L4_META_NONE;
}

/*
 * How key word w of a common-shape frame is made, for every word but 7: an 8-byte load
 * at off (always inside the 42 bytes such a frame has at least), masked, or'ed with
 * constant bits, the port id times port_mul and the L4 meta (TCP or UDP) times l4_mul.
 * This is exactly what nic_parse_general stores for such a frame (tests/unit/nic
 * compares the two); the root fast path reads the words its pipe matches this way,
 * without building the key.
 */
struct nic_fast_recipe {
	uint8_t off;
	uint64_t load_mask, bits, port_mul, l4_mul;
};

/* Key byte b of word 0 (port and meta) holding v. */
#define NIC_W0_BYTE(b, v) ((uint64_t)(v) << (8 * (b)))
_Static_assert(NIC_K_L4_OK < 8, "port and meta are key word 0");

static const struct nic_fast_recipe nic_fast_recipes[NIC_KEY_WORDS] = {
	/* port; meta: L3 IPv4, L4 type, L3 and L4 complete (see enum nic_key_off) */
	[0] = {0, 0,
	       NIC_W0_BYTE(NIC_K_L3_META, NIC_L3_META_IPV4) | NIC_W0_BYTE(NIC_K_L3_OK, 1) | NIC_W0_BYTE(NIC_K_L4_OK, 1),
	       NIC_W0_BYTE(NIC_K_PORT, 1), NIC_W0_BYTE(NIC_K_L4_META, 1)},
	[1] = {0, ~(uint64_t)0, 0, 0, 0},		  /* eth dst, eth src[0..1] */
	[2] = {8, 0xffffffffu, (uint64_t)0x0008 << 32, 0, 0}, /* eth src[2..5]; ethertype 0x0800; TCI 0 */
	[3] = {26, 0xffffffffu, 0, 0, 0},		  /* IPv4 source */
	[5] = {30, 0xffffffffu, 0, 0, 0},		  /* IPv4 destination */
	[8] = {34, 0xffffffffu, 0, 0, 0},		  /* L4 source and destination ports */
	/* 4, 6, 9..12: zero (IPv6 halves, meta, word 12); 7 has its own code (nic_fast_word7).
	 * nic_parse_fast stores these words in this order. */
};

#define NIC_FAST_WORD7 7

/* A one-word root reads entry word ew and constant word cw straight from a
 * common-shape frame (the staged lookup, datapath.c) unless one is word 7 or 12. */
static inline bool nic_words_from_frame(uint32_t ew, uint32_t cw)
{
	return ew != NIC_FAST_WORD7 && cw != NIC_FAST_WORD7 && ew != NIC_KEY_EXTRA_WORD && cw != NIC_KEY_EXTRA_WORD;
}

static inline __attribute__((always_inline)) uint64_t nic_fast_recipe_apply(const struct nic_fast_recipe *r,
									    const uint8_t *frame, uint16_t port_id,
									    uint32_t l4meta)
{
	uint64_t v;
	memcpy(&v, frame + r->off, 8);
	return (v & r->load_mask) | r->bits | port_id * r->port_mul | l4meta * r->l4_mul;
}

/* Word 7: IP proto, TTL, TOS, TCP flags (key bytes 56..59). */
static inline __attribute__((always_inline)) uint64_t nic_fast_word7(const uint8_t *frame, uint32_t l4meta)
{
	return (uint64_t)frame[23] | (uint64_t)frame[22] << 8 | (uint64_t)frame[15] << 16 |
	       (l4meta == NIC_L4_META_TCP ? (uint64_t)frame[47] << 24 : 0);
}

/*
 * The whole key and offsets of a common-shape frame, with word stores: no per-header
 * branches and no clear-then-fill. false for any other frame. Inline so the burst loop
 * has no call per packet.
 */
static inline __attribute__((always_inline)) bool nic_parse_fast(const uint8_t *frame, uint32_t len,
								 uint16_t port_id, struct nic_key *key,
								 struct nic_hdr_off *off)
{
	uint32_t l4meta = nic_fast_shape(frame, len);
	/* Word 12 needs the general parser (the fast one and its recipes leave it zero). */
	if (l4meta == 0 || NIC_UNLIKELY(atomic_load_explicit(&nic_parse_extras, memory_order_relaxed)))
		return false;
	_Static_assert(NIC_KEY_WORDS == 13, "one store per key word");
	uint64_t *k = key->w;
	const struct nic_fast_recipe *r = nic_fast_recipes; /* constant indices: each folds to its load */
	k[0] = nic_fast_recipe_apply(&r[0], frame, port_id, l4meta);
	k[1] = nic_fast_recipe_apply(&r[1], frame, port_id, l4meta);
	k[2] = nic_fast_recipe_apply(&r[2], frame, port_id, l4meta);
	k[3] = nic_fast_recipe_apply(&r[3], frame, port_id, l4meta);
	k[4] = 0;
	k[5] = nic_fast_recipe_apply(&r[5], frame, port_id, l4meta);
	k[6] = 0;
	k[7] = nic_fast_word7(frame, l4meta);
	k[8] = nic_fast_recipe_apply(&r[8], frame, port_id, l4meta);
	k[9] = k[10] = k[11] = k[12] = 0;
	if (off) {
		off->l3 = 14;
		off->l4 = 34;
		off->l3_type = NIC_L3_META_IPV4;
		off->l4_type = (uint8_t)l4meta;
	}
	return true;
}

/* nic_parse without the fast path for the common frame shape (for tests comparing both). */
bool nic_parse_general(const uint8_t *frame, uint32_t len, uint16_t port_id, struct nic_key *key,
		       struct nic_hdr_off *off);

/* Build the list of non-zero words of mask; returns how many. */
uint8_t nic_key_active_words(const struct nic_key *mask, uint8_t words[NIC_KEY_WORDS]);

/* Datapath thread registration for nic_dp_synchronize (datapath.c). */
/* Bursts a thread on the shared counter shard runs between two looks at the owned
 * shard's owner: an owner that ran no burst between two looks loses the shard to it. */
#define NIC_DP_STEAL_PERIOD 256
/* Enter a burst; returns the calling thread's counter shard (see struct nic_counter): the
 * owned one when it was free or its owner idle (grace.c), else the shared one. */
uint32_t nic_dp_enter(void);
void nic_dp_exit(void);
/* For tests of the handover: take the owned shard for the calling thread now, outside
 * a burst, as a thread on the shared shard does from an idle owner (waiting out a burst
 * the owner is in); returns the calling thread's shard. */
uint32_t nic_dp_shard_take(void);

/* Ports (port.c). The per-packet part of a port, read with relaxed/acquire loads. */
struct nic_port_hot {
	_Alignas(64) _Atomic bool started;
	_Atomic bool capture_on[3]; /* ring kept or pcap sink open, per enum nic_capture_queue */
	_Atomic(struct nic_pipe *) root;
	_Atomic int32_t manager; /* switch representor: the manager whose root it uses, or -1 */
	uint32_t trace_pid;	 /* FLOWDPA_TRACE row of this port's bursts */
};
extern struct nic_port_hot nic_port_hot[NIC_MAX_PORTS];

/* FLOWDPA_TRACE counter event of the port's packet totals (datapath.c): rate-bounded
 * unless force (a traffic source's end, the port's stop). Call only while tracing is on. */
void nic_trace_port_counters(uint16_t port_id, bool force);

/* Counts of one burst for the port it arrived on, added once per burst. */
struct nic_port_delta {
	uint64_t rx_pkts, rx_bytes, rx_errors, drops, host, kernel;
	uint32_t drop[NIC_DROP_NR_REASONS]; /* drops by reason (their sum is drops) */
};

/* The root pipe packets arriving on port_id start at (a representor: its manager's). */
static inline struct nic_pipe *nic_port_root(uint16_t port_id)
{
	struct nic_pipe *root = atomic_load_explicit(&nic_port_hot[port_id].root, memory_order_acquire);
	int32_t mgr = atomic_load_explicit(&nic_port_hot[port_id].manager, memory_order_relaxed);
	if (root == NULL && mgr >= 0)
		root = atomic_load_explicit(&nic_port_hot[mgr].root, memory_order_acquire);
	return root;
}

void nic_port_capture_slow(uint16_t port_id, enum nic_capture_queue q, const uint8_t *data, uint32_t len);
/* Keep a copy of a frame that left port_id (TX) or reached its host queue (HOST). */
static inline void nic_port_capture(uint16_t port_id, enum nic_capture_queue q, const uint8_t *data, uint32_t len)
{
	if (NIC_UNLIKELY(atomic_load_explicit(&nic_port_hot[port_id].capture_on[q], memory_order_relaxed)))
		nic_port_capture_slow(port_id, q, data, len);
}

/* Install root (expected NULL) or clear it (root NULL, expected the old root). */
FLOWDPA_MUST_CHECK doca_error_t nic_port_set_root(uint16_t port_id, struct nic_pipe *root, struct nic_pipe *expected);
/* Counts of a burst by a datapath thread of counter shard shard (nic_dp_enter). */
void nic_port_account(uint16_t port_id, uint32_t shard, const struct nic_port_delta *d);
void nic_port_account_tx(uint32_t port_id, uint32_t shard, uint64_t pkts, uint64_t bytes);
/* A burst on in_port dropped n frames forwarded to to_port, which is not started: one
 * WARNING at the first, then at most one a second per pair of ports (port.c). */
void nic_port_note_down_drops(uint16_t in_port, uint16_t to_port, uint32_t n);
/* TX pcap sink of a port (traffic.c opens it, port.c writes it under the port lock). */
void nic_port_set_dumper(uint16_t port_id, enum nic_capture_queue q, void *dumper);

/* Traffic (traffic.c): the port's root pipe appeared, and port teardown. */
void nic_traffic_root_set(uint16_t port_id);
void nic_traffic_detach(uint16_t port_id);
/* nic_shutdown: report the sources whose port never started, start a new session. */
void nic_traffic_shutdown(void);
/* Pipes (pipe.c): free the memory of every pipe at shutdown. */
void nic_pipes_free_all(void);

#endif /* FLOWDPA_NIC_INTERNAL_H_ */
