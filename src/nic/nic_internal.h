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

/* What the datapath reads of an entry in one acquire load; replaced whole by update. */
struct nic_entry_state {
	struct nic_fwd fwd; /* fwd, then actions.fields and the L4 ports: 24 bytes */
	struct nic_actions actions;
};

struct nic_entry {
	/* Read by the datapath. Entries are 64-byte aligned, so the first cache line holds
	 * these 40 bytes and the first 24 of first_state (fwd, action fields, L4 ports): a
	 * hit with the usual actions reads this line, its counter shard and the key. */
	_Atomic(struct nic_entry *) next; /* BASIC bucket chain */
	_Atomic(struct nic_entry_state *) state; /* &first_state until the first update */
	struct nic_counter *cnt; /* &own_cnt, a shared counter, or NULL */
	uint32_t hash;		 /* BASIC: key hash, compared before the key */
	_Atomic uint32_t ps_value; /* path-selector value, host order */
	_Atomic bool enabled;
	uint32_t index;
	/* Inline so an entry is one allocation. */
	struct nic_entry_state first_state;
	/* Control side (fills the rest of the line before the counter). */
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
 * The common frame shape (untagged Ethernet, IPv4 without options and not a fragment,
 * complete UDP or TCP header) built straight into the key with word stores: no
 * per-header branches and no clear-then-fill. Produces exactly what nic_parse_general
 * produces for such a frame (tests/unit/nic compares the two); any other frame returns
 * false and takes the general parser. Inline so the burst loop has no call per packet.
 */
static inline __attribute__((always_inline)) bool nic_parse_fast(const uint8_t *frame, uint32_t len, uint16_t port_id, struct nic_key *key,
			      struct nic_hdr_off *off)
{
	if (len < 42 || frame[12] != 0x08 || frame[13] != 0x00 || frame[14] != 0x45)
		return false;
	uint8_t proto = frame[23];
	if ((frame[20] & 0x3f) | frame[21]) /* MF or a fragment offset: a fragment */
		return false;
	uint8_t l4meta;
	if (proto == 17)
		l4meta = 2; /* DOCA_FLOW_L4_META_UDP */
	else if (proto == 6 && len >= 54)
		l4meta = 1; /* DOCA_FLOW_L4_META_TCP */
	else
		return false;
	uint64_t *w = key->w;
	uint64_t w0 = 0, w1, w2 = 0, src = 0, dst = 0, ports = 0;
	memcpy(&w0, &port_id, 2);
	memcpy(&w1, frame, 8);	       /* eth dst, eth src[0..1] */
	memcpy(&w2, frame + 8, 4);     /* eth src[2..5]; ethertype 0x0800; VLAN TCI 0 */
	w2 |= (uint64_t)0x0008 << 32;  /* bytes 20-21 = 08 00 (little-endian word) */
	memcpy(&src, frame + 26, 4);
	memcpy(&dst, frame + 30, 4);
	memcpy(&ports, frame + 34, 4);
	/* Key bytes 56..59: proto, TTL, TOS, TCP flags; bytes 2..7: meta (see enum nic_key_off). */
	uint64_t w7 = (uint64_t)proto | (uint64_t)frame[22] << 8 | (uint64_t)frame[15] << 16 |
		      (l4meta == 1 ? (uint64_t)frame[47] << 24 : 0);
	w0 |= (uint64_t)1 << 24 /* DOCA_FLOW_L3_META_IPV4 */ | (uint64_t)l4meta << 32 | (uint64_t)1 << 48 | (uint64_t)1 << 56;
	w[0] = w0, w[1] = w1, w[2] = w2, w[3] = src, w[4] = 0, w[5] = dst;
	w[6] = 0, w[7] = w7, w[8] = ports, w[9] = 0, w[10] = 0, w[11] = 0;
	if (off) {
		off->l3 = 14;
		off->l4 = 34;
		off->l3_type = 1;
		off->l4_type = l4meta;
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
	_Atomic bool capture_on[2]; /* ring kept or pcap sink open, per enum nic_capture_queue */
	_Atomic(struct nic_pipe *) root;
	_Atomic int32_t manager; /* switch representor: the manager whose root it uses, or -1 */
	uint32_t trace_pid;	 /* FLOWDPA_TRACE row of this port's bursts */
};
extern struct nic_port_hot nic_port_hot[NIC_MAX_PORTS];

/* Counts of one burst for the port it arrived on, added once per burst. */
struct nic_port_delta {
	uint64_t rx_pkts, rx_bytes, rx_errors, drops, host;
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
doca_error_t nic_port_set_root(uint16_t port_id, struct nic_pipe *root, struct nic_pipe *expected);
void nic_port_account(uint16_t port_id, const struct nic_port_delta *d);
void nic_port_account_tx(uint32_t port_id, uint64_t pkts, uint64_t bytes);
/* TX pcap sink of a port (traffic.c opens it, port.c writes it under the port lock). */
void nic_port_set_dumper(uint16_t port_id, void *dumper);
void *nic_port_take_dumper(uint16_t port_id);

/* Traffic (traffic.c): the port's root pipe appeared, and port teardown. */
void nic_traffic_root_set(uint16_t port_id);
void nic_traffic_detach(uint16_t port_id);
/* Pipes (pipe.c): free the memory of every pipe at shutdown. */
void nic_pipes_free_all(void);

#endif /* FLOWDPA_NIC_INTERNAL_H_ */
