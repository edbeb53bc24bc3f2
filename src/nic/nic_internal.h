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

#include "nic.h"

#define NIC_PIPE_MAGIC 0x6e696370u /* "nicp" */
#define NIC_PIPE_DEAD 0x64656164u  /* "dead" */

#define NIC_LIKELY(x) __builtin_expect(!!(x), 1)
#define NIC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * What the datapath reads of an entry through one acquire load of its state pointer. An
 * update publishes a whole new state (actions, fwd and path-selector value together), so
 * a packet never mixes old actions with a new value; the provider's path-selector
 * replace is a single-word store into the current state. Both run under the pipe lock.
 */
struct nic_entry_state {
	/* Hot header, derived from actions and fwd: what a hit reads first. */
	uint32_t fields;	   /* actions.fields */
	uint32_t tx_bit;	   /* fwd PORT to a valid port: 1u << port_id; else 0 */
	uint32_t l4_keep, l4_set;  /* L4 ports word (as in the frame): kept bits, new bits */
	_Atomic uint32_t ps_value; /* path-selector value, host order */
	struct nic_fwd fwd;
	struct nic_actions actions;
};

static inline void nic_entry_state_init(struct nic_entry_state *st, const struct nic_actions *actions,
					const struct nic_fwd *fwd, uint32_t ps_value)
{
	st->fwd = *fwd;
	st->actions = *actions;
	atomic_init(&st->ps_value, ps_value);
	st->fields = actions->fields;
	st->tx_bit = fwd->type == NIC_FWD_PORT && fwd->port_id < NIC_MAX_PORTS ? 1u << fwd->port_id : 0;
	st->l4_keep = 0xffffffffu;
	st->l4_set = 0;
	if (actions->fields & (1u << NIC_AF_L4_SRC)) {
		st->l4_keep &= 0xffff0000u;
		st->l4_set |= actions->l4_src;
	}
	if (actions->fields & (1u << NIC_AF_L4_DST)) {
		st->l4_keep &= 0x0000ffffu;
		st->l4_set |= (uint32_t)actions->l4_dst << 16;
	}
}

struct nic_entry {
	/* Read by the datapath. Entries are 64-byte aligned, so the first cache line holds
	 * these 32 bytes, first_state's hot header and its fwd's type and port: a hit on a
	 * BASIC pipe matching one key word, with the usual actions (an L4 port rewrite, fwd
	 * port), reads this line and its counter shard, nothing else of the entry. */
	_Atomic(struct nic_entry_state *) state; /* &first_state until the first update */
	struct nic_counter *cnt; /* &own_cnt, a shared counter, or NULL */
	uint64_t match0;	 /* BASIC: the first matched key word, masked; compared first */
	_Atomic bool enabled;
	/* Inline so an entry is one allocation. */
	struct nic_entry_state first_state;
	/* BASIC bucket chain: followed only past a first-word mismatch. */
	_Atomic(struct nic_entry *) next;
	uint32_t hash; /* BASIC: key hash, which picks the bucket */
	/* Control side, and the index (read by the datapath only for a memory resource). */
	uint32_t index;
	struct nic_pipe *pipe;
	struct nic_key *mask; /* CONTROL: the entry's own mask */
	uint32_t priority;
	bool linked;
	uint64_t seq; /* insertion order (CONTROL ties) */
	struct nic_entry *list_next; /* all entries of the pipe */
	struct nic_entry *list_prev;
	struct nic_counter own_cnt;
	/* BASIC and CONTROL only: HASH entries are allocated without it (NIC_ENTRY_SIZE). */
	struct nic_key match;
};

_Static_assert(offsetof(struct nic_entry, first_state.fwd.port_id) + 2 <= 64,
	       "a hit with an L4 rewrite and fwd port reads one line of the entry");

#define NIC_ENTRY_SIZE(type) \
	((type) == NIC_PIPE_HASH ? offsetof(struct nic_entry, match) : sizeof(struct nic_entry))

/* CONTROL pipes: an immutable priority-ordered array, replaced on every change. */
struct nic_ctrl_table {
	uint32_t n;
	struct nic_entry *e[];
};

struct nic_pipe {
	_Atomic uint32_t magic; /* NIC_PIPE_MAGIC, NIC_PIPE_DEAD once destroyed */
	enum nic_pipe_type type;
	uint16_t port_id;
	bool is_root;
	uint32_t nr_entries;
	uint32_t map_algorithm;
	int ps_field;
	char name[64];
	struct nic_key const_mask;
	struct nic_key const_val;
	struct nic_key entry_mask;
	/* Word indices of const_mask / entry_mask that are non-zero: the only ones compared. */
	uint8_t nr_const_words, nr_entry_words;
	uint8_t const_words[NIC_KEY_WORDS];
	uint8_t entry_words[NIC_KEY_WORDS];
	bool prefetch_lookup; /* a root lookup prefetches in passes (see datapath.c) */
	uint32_t index_mask;  /* HASH with a power-of-two nr_entries: hash % nr_entries == hash & index_mask */
	bool has_miss_counter;
	struct nic_counter miss;
	_Atomic(struct nic_fwd *) fwd_miss;
	struct nic_idxsel *idxsel;
	struct nic_mem *mem;
	_Atomic uint32_t rr; /* ROUND_ROBIN cursor */
	/* HASH: the entries, one pool slot of pool_esize bytes per index. */
	uint8_t *pool;
	size_t pool_esize;
	/* BASIC: bucket heads; HASH: one slot per index. */
	_Atomic(struct nic_entry *) *slots;
	uint32_t bucket_mask;
	_Atomic(struct nic_ctrl_table *) ctrl;
	/* Control side. */
	pthread_mutex_t lock; /* serialises control calls on this pipe */
	uint32_t nr_live;
	uint64_t next_seq;
	struct nic_entry *entries; /* list of live entries */
	struct nic_pipe *all_next; /* every pipe ever created, freed at shutdown */
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

/* The entry index of a HASH pipe for hash h (what doca_flow_pipe_calc_hash implies). */
static inline uint32_t nic_hash_index(const struct nic_pipe *p, uint32_t h)
{
	return p->index_mask ? h & p->index_mask : h % p->nr_entries;
}

/* Set by nic_hits_enable: every entry counts its hits (FLOWDPA_REPORT, src/nic/hits.c). */
extern bool nic_count_hits;

/* Bump counter c from the datapath; shard is the calling thread's (nic_dp_enter). */
static inline void nic_counter_add(struct nic_counter *c, uint64_t pkts, uint64_t bytes, uint32_t shard)
{
	if (NIC_UNLIKELY(shard == NIC_CNT_SHARDS - 1)) {
		__atomic_fetch_add(&c->shard[shard].pkts, pkts, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c->shard[shard].bytes, bytes, __ATOMIC_RELAXED);
	} else { /* this thread owns the shard: no locked instruction needed */
		uint64_t *p = &c->shard[shard].pkts, *b = &c->shard[shard].bytes;
		__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + pkts, __ATOMIC_RELAXED);
		__atomic_store_n(b, __atomic_load_n(b, __ATOMIC_RELAXED) + bytes, __ATOMIC_RELAXED);
	}
}

/* A packet hit entry e: its counter, and its report hit count when that is on (the
 * own-counter cell, unused by an entry without its own COUNT). */
static inline void nic_entry_hit(struct nic_entry *e, uint32_t len, uint32_t shard)
{
	if (e->cnt)
		nic_counter_add(e->cnt, 1, len, shard);
	if (NIC_UNLIKELY(__atomic_load_n(&nic_count_hits, __ATOMIC_RELAXED)) && e->cnt != &e->own_cnt)
		nic_counter_add(&e->own_cnt, 1, len, shard);
}

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
 * complete UDP or TCP header. Returns its L4 meta (NIC_L4_META_TCP or NIC_L4_META_UDP),
 * or 0 (NIC_L4_META_NONE) for any other frame, which takes the general parser.
 */
static inline __attribute__((always_inline)) uint32_t nic_fast_shape(const uint8_t *frame, uint32_t len)
{
	if (len < 42)
		return 0;
	uint32_t et, ipw; /* frame bytes 12..15 (ethertype, version/IHL, TOS) and 20..23 */
	memcpy(&et, frame + 12, 4);
	memcpy(&ipw, frame + 20, 4);
	if ((et & 0xffffffu) != 0x450008u || (ipw & 0xff3fu) /* MF or a fragment offset */)
		return 0;
	uint32_t proto = ipw >> 24;
	if (proto == 17)
		return NIC_L4_META_UDP;
	if (proto == 6 && len >= 54)
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
	/* 4, 6, 9..11: zero (IPv6 halves, meta); 7 has its own code (nic_fast_word7).
	 * nic_parse_fast stores these words in this order. */
};

#define NIC_FAST_WORD7 7

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
	if (l4meta == 0)
		return false;
	_Static_assert(NIC_KEY_WORDS == 12, "one store per key word");
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
	k[9] = k[10] = k[11] = 0;
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
/* Enter a burst; returns the calling thread's counter shard (see struct nic_counter). */
uint32_t nic_dp_enter(void);
void nic_dp_exit(void);

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
void nic_port_account(uint16_t port_id, const struct nic_port_delta *d);
void nic_port_account_tx(uint32_t port_id, uint64_t pkts, uint64_t bytes);
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
