/*
 * nic.h - the software NIC as seen by the layers above it (src/flow and src/provider).
 *
 * The NIC knows nothing of DOCA structs: the flow layer translates doca_flow_match and
 * doca_flow_actions into the compact packet key and action records defined here.
 *
 * Concurrency (docs/architecture.md, "Seams"): the datapath (nic_port_rx_burst, from any
 * number of threads) reads pipe and entry state with acquire loads and takes no lock.
 * Control calls (entry add, update, remove, the provider's enable/replace) may come from
 * any thread: they serialise on a per-pipe control lock that the datapath never takes,
 * and publish with release stores, one word (or one pointer) per mutation. Memory that
 * the datapath may still be reading is reclaimed only after nic_dp_synchronize() has
 * seen every datapath thread leave the burst it was in.
 */
#ifndef FLOWDPA_NIC_H_
#define FLOWDPA_NIC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include <core/core.h>

#define NIC_MAX_PORTS 16
#define NIC_MAX_FRAME 2048
#define NIC_BURST_MAX 32
#define NIC_MAX_PIPE_DEPTH 16

/* ------------------------------------------------------------------ packet key */

/*
 * Everything a pipe may match on, parsed once per packet. Header fields are network
 * order as on the wire; the meta bytes are host values (DOCA's parser_meta enums).
 * A field of an absent header is zero.
 */
#define NIC_KEY_SIZE 104
#define NIC_KEY_WORDS (NIC_KEY_SIZE / 8)

enum nic_key_off {
	NIC_K_PORT = 0,	      /* u16, host order: logical port id */
	NIC_K_L2_META = 2,    /* enum nic_l2_meta */
	NIC_K_L3_META = 3,    /* enum nic_l3_meta */
	NIC_K_L4_META = 4,    /* enum nic_l4_meta */
	NIC_K_FRAG = 5,	      /* 1 when the IPv4 packet is a fragment */
	NIC_K_L3_OK = 6,      /* 1 when the L3 header is complete and sane */
	NIC_K_L4_OK = 7,      /* 1 when the L4 header is complete */
	NIC_K_ETH_DST = 8,    /* 6 bytes */
	NIC_K_ETH_SRC = 14,   /* 6 bytes */
	NIC_K_ETH_TYPE = 20,  /* be16, after the VLAN tag if any */
	NIC_K_VLAN_TCI = 22,  /* be16 */
	NIC_K_IP_SRC = 24,    /* IPv4 in the first 4 bytes, or IPv6 (16) */
	NIC_K_IP_DST = 40,
	NIC_K_IP_PROTO = 56,  /* next protocol */
	NIC_K_IP_TTL = 57,    /* TTL / hop limit */
	NIC_K_IP_TOS = 58,    /* dscp_ecn / traffic class */
	NIC_K_TCP_FLAGS = 59,
	NIC_K_IP6_FLOW = 60,  /* be32 flow label (low 20 bits) */
	NIC_K_L4_SRC = 64,    /* be16, TCP or UDP */
	NIC_K_L4_DST = 66,
	NIC_K_ICMP_TYPE = 68,
	NIC_K_ICMP_CODE = 69,
	NIC_K_ICMP_IDENT = 70,
	NIC_K_META = 72,      /* be32 pkt_meta, then u32[0..NIC_META_SCRATCH-1] */
	/* Word 12: filled only while some pipe matches on it (nic_parse_extras_note), zero
	 * otherwise, so that the common parse does not pay for it. */
	NIC_K_RANDOM = 96,	  /* be16 per-packet random value (parser_meta.random) */
	NIC_K_INNER_L2_META = 98, /* enum nic_l2_meta of the VXLAN inner frame */
	NIC_K_INNER_L3_META = 99, /* enum nic_l3_meta of the VXLAN inner frame */
	NIC_K_INNER_L4_META = 100, /* enum nic_l4_meta of the VXLAN inner frame */
	NIC_K_XBITS = 101,	  /* enum nic_xbit: one bit per 0/1 parser_meta flag */
};

/* The bits of key byte NIC_K_XBITS. */
enum nic_xbit {
	NIC_XB_OUTER_IP4_CSUM_OK = 0, /* outer IPv4 header checksum verifies */
	NIC_XB_OUTER_L4_CSUM_OK = 1,  /* outer TCP/UDP checksum verifies over the whole segment */
	NIC_XB_INNER_FRAG = 2,	      /* inner IPv4 packet is a fragment */
	NIC_XB_INNER_L3_OK = 3,
	NIC_XB_INNER_IP4_CSUM_OK = 4,
	NIC_XB_INNER_L4_OK = 5,
	NIC_XB_INNER_L4_CSUM_OK = 6,
};
#define NIC_META_SCRATCH 5 /* doca_flow_meta.u32[] words the NIC carries */

/*
 * The meta bytes' values. They are DOCA's parser_meta values (enum doca_flow_l2_meta,
 * doca_flow_l3_meta, doca_flow_l4_meta), so that a doca_flow_match parser_meta value
 * is a key byte as it is. The NIC includes no DOCA Flow header: it names them here, and
 * src/flow/flow_nic_contract.c asserts that each equals its DOCA value.
 */
enum nic_l2_meta {
	NIC_L2_META_NO_VLAN = 0,
	NIC_L2_META_MULTI_VLAN = 1,
	NIC_L2_META_SINGLE_VLAN = 2,
};

enum nic_l3_meta {
	NIC_L3_META_NONE = 0,
	NIC_L3_META_IPV4 = 1,
	NIC_L3_META_IPV6 = 2,
};

enum nic_l4_meta {
	NIC_L4_META_NONE = 0,
	NIC_L4_META_TCP = 1,
	NIC_L4_META_UDP = 2,
	NIC_L4_META_ICMP = 3, /* ICMPv4 and ICMPv6 */
	NIC_L4_META_ESP = 4,
};

struct nic_key {
	union {
		uint8_t b[NIC_KEY_SIZE];
		uint64_t w[NIC_KEY_WORDS];
	};
};

/* Where the headers of a parsed frame are (0 = absent, except l2 which is always 0). */
struct nic_hdr_off {
	uint16_t l3;
	uint16_t l4;
	uint8_t l3_type; /* enum nic_l3_meta */
	uint8_t l4_type; /* enum nic_l4_meta */
};

/*
 * Parse frame into key (and off, which may be NULL). Never fails on a frame of at
 * least 14 bytes: headers that are truncated are left out and their *_ok byte is 0.
 * Returns false for a frame shorter than an Ethernet header.
 */
bool nic_parse(const uint8_t *frame, uint32_t len, uint16_t port_id, struct nic_key *key, struct nic_hdr_off *off);

/*
 * A pipe (or control entry) about to match under mask: when mask covers bytes of key
 * word 12 (random, inner types, checksum bits), the parser starts computing them for
 * every packet from now on (the common-shape fast parse is then off). Sticky for the
 * process: a removed pipe does not turn them off. When mask covers NIC_K_RANDOM and
 * FLOWDPA_RANDOM_SEED is configured (core_config), every datapath thread's random
 * sequence restarts from that seed (docs/flow.md, Parser meta).
 */
void nic_parse_extras_note(const struct nic_key *mask);

/* The 32-bit hash of the key under mask: the HASH map algorithm's and calc_hash's,
 * the hardware's CRC over the match tag (src/nic/index_hash.h). */
uint32_t nic_key_hash(const struct nic_key *key, const struct nic_key *mask);

/* ------------------------------------------------------------------ forwarding */

enum nic_fwd_type {
	NIC_FWD_NONE, /* root pipe: to the host queue; other pipes: drop */
	NIC_FWD_PORT,
	NIC_FWD_PIPE,
	NIC_FWD_DROP,
	NIC_FWD_HOST, /* RSS: the port's host capture queue */
	NIC_FWD_KERNEL, /* DOCA_FLOW_TARGET_KERNEL: the receiving port's kernel capture queue */
};

struct nic_pipe;

struct nic_fwd {
	enum nic_fwd_type type;
	uint16_t port_id;
	struct nic_pipe *pipe;
};

/* ------------------------------------------------------------------ field programs (field.c) */

/*
 * A bit range of a header field or of the meta words, read and written on a parsed
 * frame (action descriptors and match conditions). A header field lives in a container
 * of len bytes at off in its header, read as one big-endian number; the field is bits
 * shift .. shift + bits - 1 of it, bit 0 the least significant. The meta words (hdr
 * NIC_FH_META) are the key's NIC_K_META words: bit k is bit k % 32 of word k / 32,
 * word 0 pkt_meta, word 1 + i meta u32[i] (DOCA's bit offsets into struct doca_flow_meta).
 */
enum nic_field_hdr {
	NIC_FH_ETH,  /* the Ethernet header */
	NIC_FH_VLAN, /* the first VLAN tag's TCI (a tagged frame only) */
	NIC_FH_IP4,
	NIC_FH_IP6,
	NIC_FH_TCP,
	NIC_FH_UDP,
	NIC_FH_ESP,
	NIC_FH_META,
	NIC_FH_KEY, /* read-only bytes of the parsed key at off (parser_meta.random: NIC_K_RANDOM) */
};
#define NIC_FF_PSEUDO 1u /* an address the L4 checksum's pseudo-header sums */

struct nic_field {
	uint8_t hdr;   /* enum nic_field_hdr */
	uint8_t off;   /* the container's byte offset in its header */
	uint8_t len;   /* container bytes (1..16); META: 4 per word */
	uint8_t shift; /* the field's lowest bit in the container */
	uint8_t bits;  /* the field's width */
	uint8_t flags; /* NIC_FF_* */
};
#define NIC_META_BITS (32 * (1 + NIC_META_SCRATCH))

/* Bits bit .. bit + width - 1 (width <= 64) of field f in container c (the field's own
 * bytes: a header container, or the meta words for NIC_FH_META). */
uint64_t nic_field_get(const struct nic_field *f, const uint8_t *c, uint32_t bit, uint32_t width);
void nic_field_set(const struct nic_field *f, uint8_t *c, uint32_t bit, uint32_t width, uint64_t v);
/* A NIC_FH_KEY field that a condition or program reads: turn on its parse, as a match
 * on it does (nic_parse_extras_note); nothing for other fields. A control call. */
void nic_field_note(const struct nic_field *f);

/* One operation of a field program, in the order given. */
enum nic_fop_type {
	NIC_FOP_COPY,	   /* dst bits = src bits */
	NIC_FOP_ADD,	   /* dst bits += src bits (modulo 2^width) */
	NIC_FOP_ADD_CONST, /* dst bits += konst */
};
struct nic_fop {
	uint8_t type; /* enum nic_fop_type */
	uint8_t width; /* 1..128 for COPY, 1..64 otherwise */
	uint16_t src_bit, dst_bit;
	struct nic_field src, dst;
	uint64_t konst;
};
struct nic_prog {
	uint32_t n;
	struct nic_fop op[];
};
#define NIC_MAX_PROGS 8

/*
 * Run program pr on a parsed frame: header writes fix the IPv4 header checksum and the
 * L4 checksum (RFC 1624; addresses also through the pseudo-header), and the key is
 * parsed again (meta words kept) so later pipes see the new bytes. An operation whose
 * header the frame lacks does nothing. Allocates nothing.
 */
void nic_prog_run(const struct nic_prog *pr, uint8_t *frame, uint32_t len, struct nic_hdr_off *off,
		  struct nic_key *key);

/*
 * Give pipe program pr (which it owns from then on, freed at nic_shutdown); *index is
 * what an entry's actions name it by (nic_actions.prog = index + 1). A program equal to
 * one the pipe holds is freed and that one's index returned. FULL (not logged) when the
 * pipe holds NIC_MAX_PROGS programs. Programs are never replaced, so a packet reads one
 * without a lock.
 */
FLOWDPA_MUST_CHECK doca_error_t nic_pipe_add_prog(struct nic_pipe *pipe, struct nic_prog *pr, uint8_t *index);

/* A match condition of a CONTROL entry: a OP b, or a OP konst, over width bits. */
enum nic_cmp {
	NIC_CMP_EQ,
	NIC_CMP_NE,
	NIC_CMP_LT,
	NIC_CMP_LE,
	NIC_CMP_GT,
	NIC_CMP_GE,
};
struct nic_cond {
	uint8_t op;    /* enum nic_cmp (DOCA's doca_flow_compare_op values) */
	uint8_t width; /* 1..64 */
	bool b_const;
	uint16_t a_bit, b_bit;
	struct nic_field a, b;
	uint64_t konst;
};
/* True when the frame satisfies c; false when a field's header is absent. */
bool nic_cond_eval(const struct nic_cond *c, const uint8_t *frame, uint32_t len, const struct nic_hdr_off *off,
		   const struct nic_key *key);

/* ------------------------------------------------------------------ actions */

enum nic_act_field {
	NIC_AF_ETH_SRC,
	NIC_AF_ETH_DST,
	NIC_AF_IP4_SRC,
	NIC_AF_IP4_DST,
	NIC_AF_IP_TTL, /* IPv4 TTL or IPv6 hop limit */
	NIC_AF_IP6_SRC,
	NIC_AF_IP6_DST,
	NIC_AF_L4_SRC,
	NIC_AF_L4_DST,
	NIC_AF_META, /* pkt_meta, then u32[0..]: NIC_AF_META + 1 + i */
	NIC_AF_COUNT = NIC_AF_META + 1 + NIC_META_SCRATCH,
	/* Not a rewrite: run the pipe's field program prog - 1 (nic_pipe_add_prog). */
	NIC_AF_PROG = NIC_AF_COUNT,
};

/* A compiled set of header rewrites. Values are network order, as written. */
struct nic_actions {
	uint32_t fields; /* bit (1u << enum nic_act_field) per rewrite */
	uint16_t l4_src; /* first: the common per-entry rewrite shares the entry's hot line */
	uint16_t l4_dst;
	uint8_t eth_src[6];
	uint8_t eth_dst[6];
	uint32_t ip4_src;
	uint32_t ip4_dst;
	uint8_t ttl;
	uint8_t ip6_src[16];
	uint8_t ip6_dst[16];
	uint8_t prog; /* with NIC_AF_PROG: the pipe's program index + 1 (in the padding) */
	uint32_t meta[1 + NIC_META_SCRATCH];
};

/* ------------------------------------------------------------------ counters, resources */

/*
 * A packets/bytes counter in cache-line shards: up to NIC_CNT_SHARDS - 1 datapath
 * threads each own a shard and bump it with plain (relaxed) stores; further threads
 * share the last shard with atomic adds, on a line the owners never write. Readers sum
 * the shards. Two shards measured best on a 2-core host (bench/datapath): more make
 * every entry larger, which costs more at 1M entries than it saves with 2 workers.
 */
#define NIC_CNT_SHARDS 2
struct nic_counter {
	struct {
		_Alignas(64) uint64_t pkts;
		uint64_t bytes;
	} shard[NIC_CNT_SHARDS];
};
void nic_counter_read(const struct nic_counter *c, uint64_t *pkts, uint64_t *bytes);

/*
 * Index selector: one state per slot, DOCA's enum doca_flow_index_selector_op values
 * (asserted in src/flow/flow_nic_contract.c). A packet that selects a SKIP slot treats
 * it as disabled and moves it one state down, SKIP_TWICE to SKIP_ONCE to ENABLE.
 */
enum nic_sel_state {
	NIC_SEL_ENABLE = 0,
	NIC_SEL_SKIP_ONCE = 1,
	NIC_SEL_SKIP_TWICE = 2,
	NIC_SEL_DISABLE = 3,
};
struct nic_idxsel;
FLOWDPA_MUST_CHECK doca_error_t nic_idxsel_create(uint32_t nr_indices, struct nic_idxsel **sel);
void nic_idxsel_destroy(struct nic_idxsel *sel);
uint32_t nic_idxsel_size(const struct nic_idxsel *sel);
/* INVALID_VALUE for an index out of range or a state above NIC_SEL_DISABLE. */
FLOWDPA_MUST_CHECK doca_error_t nic_idxsel_set(struct nic_idxsel *sel, uint32_t index, uint32_t state);
FLOWDPA_MUST_CHECK doca_error_t nic_idxsel_get(const struct nic_idxsel *sel, uint32_t index, uint32_t *state);

/* Memory: nr_cells 64-bit cells; each access is one atomic word. */
struct nic_mem;
FLOWDPA_MUST_CHECK doca_error_t nic_mem_create(uint32_t nr_cells, struct nic_mem **mem);
void nic_mem_destroy(struct nic_mem *mem);
uint32_t nic_mem_size(const struct nic_mem *mem);
/* INVALID_VALUE for a cell out of range. */
FLOWDPA_MUST_CHECK doca_error_t nic_mem_read(const struct nic_mem *mem, uint32_t cell, uint64_t *value);
FLOWDPA_MUST_CHECK doca_error_t nic_mem_write(struct nic_mem *mem, uint32_t cell, uint64_t value);

/* ------------------------------------------------------------------ pipes */

enum nic_pipe_type {
	NIC_PIPE_BASIC,
	NIC_PIPE_CONTROL,
	NIC_PIPE_HASH,
};

/* Map algorithm bits: DOCA's DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_* values (asserted in
 * src/flow/flow_nic_contract.c). */
#define NIC_MAP_HASH (1u << 0)
#define NIC_MAP_RANDOM (1u << 1)
#define NIC_MAP_IDENTITY (1u << 2)
#define NIC_MAP_ROUND_ROBIN (1u << 3)
#define NIC_MAP_FLOODING (1u << 4)
#define NIC_MAP_SELECT_ENABLED (1u << 5)

/*
 * The map-algorithm rule, in one place: exactly one of HASH, RANDOM, IDENTITY,
 * ROUND_ROBIN and FLOODING, optionally with SELECT_ENABLED. The flow layer checks the
 * user's flags with it (doca_flow_pipe_cfg_set_hash_map_algorithm, which logs the
 * refusal); nic_pipe_create applies it to attr->map_algorithm once it has read a
 * missing base algorithm as HASH.
 */
static inline bool nic_map_algorithm_valid(uint32_t alg)
{
	uint32_t base = alg & ~NIC_MAP_SELECT_ENABLED;
	return base != 0 && (base & (base - 1)) == 0 && base <= NIC_MAP_FLOODING;
}

struct nic_pipe_attr {
	enum nic_pipe_type type;
	const char *name;
	uint16_t port_id;   /* the port whose traffic the pipe sees when it is root */
	bool is_root;
	uint32_t nr_entries;
	/* BASIC: the most nic_pipe_set_capacity may raise nr_entries to (0: nr_entries).
	 * Reserved address space only: pages are committed as entries use them. */
	uint32_t max_entries;
	/* Packets must satisfy (key & const_mask) == const_val (else: miss). */
	struct nic_key const_mask;
	struct nic_key const_val;
	/* BASIC: the fields each entry supplies; HASH: the hashed / identity fields. */
	struct nic_key entry_mask;
	uint32_t map_algorithm; /* HASH pipes; 0 means NIC_MAP_HASH */
	struct nic_fwd fwd_miss;
	bool miss_counter;
	/* HASH pipes: the per-entry rewrite that carries the path-selector value, or -1. */
	int ps_field;
	struct nic_idxsel *idxsel; /* HASH pipes, optional */
	struct nic_mem *mem;	   /* HASH pipes, optional: entry i counts into cell i */
};

/*
 * Create a pipe. INVALID_VALUE for nr_entries 0, a resource smaller than nr_entries or
 * on a non-hash pipe, an unknown algorithm; ALREADY_EXIST for a second root on a port.
 * A root pipe starts receiving its port's packets at once.
 */
FLOWDPA_MUST_CHECK doca_error_t nic_pipe_create(const struct nic_pipe_attr *attr, struct nic_pipe **pipe);
/*
 * Destroy a pipe and its entries. The port stops using it as root, packets forwarded to
 * it afterwards are dropped, and its memory lives until nic_shutdown() so that a stale
 * fwd never points at freed memory.
 */
void nic_pipe_destroy(struct nic_pipe *pipe);
/* True while the pipe has not been destroyed. */
bool nic_pipe_alive(const struct nic_pipe *pipe);
enum nic_pipe_type nic_pipe_type(const struct nic_pipe *pipe);
uint32_t nic_pipe_nr_entries(const struct nic_pipe *pipe);
uint32_t nic_pipe_map_algorithm(const struct nic_pipe *pipe);
const char *nic_pipe_name(const struct nic_pipe *pipe);
uint32_t nic_pipe_nr_live_entries(const struct nic_pipe *pipe);
/* New entry limit of a BASIC or CONTROL pipe (src/nic/resize.c): INVALID_VALUE for a
 * HASH or destroyed pipe, 0, or fewer than the live entries; FULL for a BASIC pipe past
 * the max_entries it reserved. Traffic is not disturbed: a BASIC pipe grown past its
 * buckets gets a bigger table, swapped in while packets go on (entries are never missed
 * meanwhile); adds and other control calls on the pipe wait until it is built. */
FLOWDPA_MUST_CHECK doca_error_t nic_pipe_set_capacity(struct nic_pipe *pipe, uint32_t nr_entries);
/* Replace fwd_miss live (NO_MEMORY leaves the old one in place). */
FLOWDPA_MUST_CHECK doca_error_t nic_pipe_set_fwd_miss(struct nic_pipe *pipe, const struct nic_fwd *fwd_miss);
/* Miss counter; INVALID_VALUE when the pipe was created without one. */
FLOWDPA_MUST_CHECK doca_error_t nic_pipe_miss_read(const struct nic_pipe *pipe, uint64_t *pkts, uint64_t *bytes);
/* The lookup a burst arriving on this pipe takes: "staged" (a one-word BASIC root:
 * the burst in three passes, bucket, entry, hits), "direct" (another root small enough
 * for the caches, one packet at a time), "prefetch" (a root looked up in prefetch
 * passes), "walk" (a pipe reached through a fwd) or "control" (a CONTROL pipe's
 * priority scan). */
const char *nic_pipe_lookup_path(const struct nic_pipe *pipe);
/* The hash the HASH map algorithm computes for key (INVALID_VALUE for non-hash pipes). */
FLOWDPA_MUST_CHECK doca_error_t nic_pipe_calc_hash(const struct nic_pipe *pipe, const struct nic_key *key, uint32_t *hash);

/* ------------------------------------------------------------------ entries */

struct nic_entry;

struct nic_entry_attr {
	struct nic_key match;	/* BASIC: key under entry_mask; CONTROL: value under mask */
	struct nic_key mask;	/* CONTROL only */
	uint32_t priority;	/* CONTROL: lower first, ties in insertion order */
	uint32_t index;		/* HASH */
	struct nic_actions actions;
	uint32_t ps_value;	/* HASH with a path-selector field: host-order value */
	struct nic_fwd fwd;	/* resolved: the pipe-level fwd when it is fixed */
	bool own_counter;	/* per-entry counter */
	struct nic_cond *cond;	/* CONTROL: also required to hit (NULL: none); owned by the entry once added */
	struct nic_counter *shared_counter; /* or a shared one (NULL: none) */
};

/*
 * Insert an entry; the datapath sees it when this returns. INVALID_VALUE for an index
 * out of range or a ps_value that does not fit the field; ALREADY_EXIST for a duplicate
 * BASIC key or an occupied HASH index; FULL when nr_entries are live.
 */
FLOWDPA_MUST_CHECK doca_error_t nic_entry_add(struct nic_pipe *pipe, const struct nic_entry_attr *attr, struct nic_entry **entry);
/* n adds into one pipe, in order, as n nic_entry_add calls would make them (errs[i]
 * their results, entry[i] set on success), under one hold of the pipe's lock for reading
 * (other control calls on the pipe wait for the whole call: pass batches) and with
 * their cache misses overlapped: doca_flow_entries_process runs a queue's adds so, up to
 * FLOW_PROC_BATCH at a time. */
void nic_entry_add_bulk(struct nic_pipe *pipe, const struct nic_entry_attr *const *attrs, uint32_t n,
			struct nic_entry **entry, doca_error_t *errs);
/* Replace actions, ps_value and fwd of an entry atomically (one store). */
FLOWDPA_MUST_CHECK doca_error_t nic_entry_update(struct nic_pipe *pipe, struct nic_entry *entry,
						 const struct nic_actions *actions, uint32_t ps_value,
						 const struct nic_fwd *fwd);
/*
 * Unlink an entry and wait until no datapath thread can still be using it. Its counter
 * stays readable until nic_entry_free(). NO_MEMORY (CONTROL pipes: no room for the new
 * table) leaves the entry live and unchanged.
 */
FLOWDPA_MUST_CHECK doca_error_t nic_entry_remove(struct nic_pipe *pipe, struct nic_entry *entry);
void nic_entry_free(struct nic_pipe *pipe, struct nic_entry *entry);
/* Own or shared counter; INVALID_VALUE when the entry has none. */
FLOWDPA_MUST_CHECK doca_error_t nic_entry_counter_read(const struct nic_pipe *pipe, const struct nic_entry *entry,
						       uint64_t *pkts, uint64_t *bytes);
/*
 * An entry is known by its pipe and slot: entries keep no pointer to their pipe (the
 * callers of the calls above have it) so that they stay small. The slot of a BASIC or
 * HASH entry (HASH: its index) is stable from its add to its free; CONTROL entries have
 * none (UINT32_MAX). nic_pipe_entry_at gives the entry in a slot (NULL out of range).
 */
/* The shared counter an entry counts in (the attr's shared_counter), or NULL. */
struct nic_counter *nic_entry_shared_counter(const struct nic_pipe *pipe, const struct nic_entry *entry);
uint32_t nic_pipe_entry_slot(const struct nic_pipe *pipe, const struct nic_entry *entry);
struct nic_entry *nic_pipe_entry_at(const struct nic_pipe *pipe, uint32_t slot);

/* ------------------------------------------------------------------ provider operations */

/* Width in bits of a rewrite field used as path selector; 0 when it cannot carry one
 * (MAC and IPv6 addresses), in which case the rewrite stays a plain per-entry action. */
uint32_t nic_ps_field_bits(int field);

/*
 * HASH-pipe entry operations of the provider's request executor, run in bursts: each is
 * one release store, and a burst holds the pipe's control lock once, so an entry being
 * removed is never written after it was unlinked. When nic_hash_exec returns, no
 * datapath thread still uses an entry's old state. They do not log: the executor turns
 * a failure into a completion with failure and reports it, rate-limited.
 */
enum nic_hash_op_type {
	NIC_HASH_OP_ENABLE,
	NIC_HASH_OP_DISABLE,
	NIC_HASH_OP_REPLACE, /* the path-selector value */
};

struct nic_hash_op {
	uint32_t type;	     /* enum nic_hash_op_type */
	uint32_t index;	     /* entry index */
	uint64_t value;	     /* REPLACE: host order */
	doca_error_t result; /* set by nic_hash_exec */
};

/*
 * Run ops in order. Results: INVALID_VALUE for an index >= nr_entries, a value that does
 * not fit the path-selector field, an unknown type, or (every op) a pipe that is not a
 * live HASH pipe; NOT_FOUND for an index without an entry; NOT_SUPPORTED for a disable on
 * an IDENTITY pipe or a replace on a pipe without a path-selector field.
 */
void nic_hash_exec(struct nic_pipe *pipe, struct nic_hash_op *ops, uint32_t n);
/* Entry index's enabled bit and path-selector value (either may be NULL); errors as above. */
FLOWDPA_MUST_CHECK doca_error_t nic_hash_entry_state(const struct nic_pipe *pipe, uint32_t index, bool *enabled, uint32_t *ps_value);
/* Counter of entry index; NOT_FOUND also when the entry has none. */
FLOWDPA_MUST_CHECK doca_error_t nic_hash_entry_counter_read(const struct nic_pipe *pipe, uint32_t index, uint64_t *pkts,
					 uint64_t *bytes);

/* ------------------------------------------------------------------ ports and datapath */

/* Why a frame received on a port was dropped: each drop counts under exactly one. */
enum nic_drop_reason {
	NIC_DROP_FWD_DROP,	 /* an entry's or a miss's fwd is DROP */
	NIC_DROP_MISS,		 /* a non-root pipe missed and has no fwd_miss */
	NIC_DROP_NO_ROOT,	 /* the port has no root pipe */
	NIC_DROP_PIPE_DESTROYED, /* forwarded to a destroyed pipe */
	NIC_DROP_PIPE_LOOP,	 /* deeper than NIC_MAX_PIPE_DEPTH pipes */
	NIC_DROP_PORT_DOWN,	 /* fwd to a port that is not started */
	NIC_DROP_NR_REASONS,
};
/* The reason's name in reports and logs ("fwd_drop", "miss_no_fwd", "no_root_pipe", "pipe_destroyed",
 * "pipe_loop", "port_not_started"); "unknown" out of range. */
const char *nic_drop_reason_name(unsigned reason);

struct nic_port_stats {
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t rx_errors; /* unparseable frames, dropped before any pipe */
	uint64_t tx_pkts;   /* left this port */
	uint64_t tx_bytes;
	uint64_t host_pkts; /* delivered to this port's host queue */
	uint64_t drops;	    /* received here and dropped: the sum of drop_reason[] */
	uint64_t capture_overflow; /* transmitted but not kept by a full capture ring */
	uint64_t drop_reason[NIC_DROP_NR_REASONS]; /* enum nic_drop_reason */
	uint64_t kernel_pkts; /* delivered to this port's kernel queue (not a drop) */
};

/* Start / stop a logical port. ALREADY_EXIST, NOT_FOUND (not started), INVALID_VALUE (id). */
FLOWDPA_MUST_CHECK doca_error_t nic_port_start(uint16_t port_id);
FLOWDPA_MUST_CHECK doca_error_t nic_port_stop(uint16_t port_id);
bool nic_port_started(uint16_t port_id);
/*
 * Switch mode: packets arriving on representor port_id start at the root pipe of port
 * manager_id (which sees all its ports' traffic; parser_meta.port_id tells them apart).
 * manager_id -1 undoes it. INVALID_VALUE for ids out of range, BAD_STATE when port_id is
 * not started.
 */
FLOWDPA_MUST_CHECK doca_error_t nic_port_set_manager(uint16_t port_id, int32_t manager_id);
FLOWDPA_MUST_CHECK doca_error_t nic_port_stats_get(uint16_t port_id, struct nic_port_stats *stats);
/*
 * FLOWDPA_REPORT's per-entry hit counts (src/nic/hits.c). Enabled (before traffic, by
 * the first port start when the report is on), every entry counts the packets that hit
 * it, whether it has a COUNT action or not (an entry without its own counter counts in
 * the own-counter cell it does not use otherwise). nic_pipe_top_hits fills out with up
 * to n entries of pipe that were hit, most packets first; returns how many.
 */
struct nic_entry_hits {
	uint32_t index;	 /* HASH: the entry's index; others: its order of addition (0 = first) */
	uint64_t pkts;
	uint64_t bytes;
	char match[160]; /* "ipv4.dst=10.0.0.1 l4.dst=80"; "" for a HASH pipe (no stored match) */
};
void nic_hits_enable(bool on);
uint32_t nic_pipe_top_hits(struct nic_pipe *pipe, uint32_t n, struct nic_entry_hits *out);

/* FLOWDPA_TRACE process row of the port's packet bursts (the device's index + 1; default 1). */
void nic_port_set_trace_pid(uint16_t port_id, uint32_t pid);

/* One frame of a burst; processed in place (rewrites change data). */
struct nic_buf {
	uint8_t *data;
	uint32_t len;
};

/*
 * Run a burst of frames that arrived on port_id through its pipeline: each frame is
 * rewritten in place and transmitted, given to the host queue, or dropped. Any thread
 * may call it; it allocates nothing and takes no lock except a port's capture lock when
 * a capture is kept. Returns the number of frames accepted (all but unparseable ones),
 * or 0 with nothing counted when the port is not started.
 */
uint32_t nic_port_rx_burst(uint16_t port_id, struct nic_buf *bufs, uint32_t n);

/* ------------------------------------------------------------------ capture */

enum nic_capture_queue {
	NIC_CAPTURE_TX,	  /* what leaves the port */
	NIC_CAPTURE_HOST, /* what the port's pipeline delivered to the host (RSS, default miss) */
	NIC_CAPTURE_KERNEL, /* what it forwarded to the kernel target */
};

/* Keep up to depth frames of a queue in arrival order (0 = off, default 1024 at port
 * start); frames arriving at a full ring are counted in capture_overflow, not kept. */
FLOWDPA_MUST_CHECK doca_error_t nic_capture_set_depth(uint16_t port_id, enum nic_capture_queue q, uint32_t depth);
/* Pop the oldest captured frame: copies at most cap bytes, *len gets the frame length.
 * NOT_FOUND when the ring is empty. */
FLOWDPA_MUST_CHECK doca_error_t nic_capture_pop(uint16_t port_id, enum nic_capture_queue q, uint8_t *buf, uint32_t cap, uint32_t *len);
uint32_t nic_capture_count(uint16_t port_id, enum nic_capture_queue q);

/* ------------------------------------------------------------------ traffic I/O */

/*
 * Attach the FLOWDPA_PORTn_RX / _TX configuration of core_config_get() to a started port:
 * the TX pcap sink is opened at once (completed by nic_port_stop); the RX source runs
 * in a NIC worker thread once nic_traffic_kick(port) is called with the port's root
 * pipe present, or 1 s after the root pipe appeared. IO_FAILED when a file cannot be
 * opened (logged with the path and the reason).
 */
typedef void (*nic_traffic_unprocessed_fn)(void *ctx, uint16_t port_id);
/* The program tried to start the port (a failure was logged by that call): its source
 * is not reported as "port never started" at shutdown. */
void nic_traffic_start_tried(uint16_t port_id);
/* unprocessed(ctx, port), when not NULL, is called from the source's thread when it starts
 * on the 1 s fallback (entries_process never returned idle): the flow layer names what
 * is still queued. It must not wait for the port's stop. */
FLOWDPA_MUST_CHECK doca_error_t nic_traffic_attach(uint16_t port_id, nic_traffic_unprocessed_fn unprocessed, void *ctx);
/* The flow layer saw entries_process return with nothing pending on the port. */
void nic_traffic_kick(uint16_t port_id);
/* Wait until every RX source has finished playing (timeout_ms 0 = forever). TIME_OUT
 * when one is still running, BAD_STATE when a configured source cannot play (its port
 * has not started since the last nic_shutdown); *port_id names the port either way. A
 * source whose port was stopped before it played out has ended (its stop said so). */
FLOWDPA_MUST_CHECK doca_error_t nic_traffic_wait(uint32_t timeout_ms, uint16_t *port_id);

/* Deterministic generator frames: 64-byte Eth/IPv4/UDP, flow i -> dst 10.0.0.0 + i. */
void nic_gen_frame(uint32_t flow, uint8_t frame[64]);
struct nic_gen;
/* A Zipf(s) sampler over flows (s = 0: uniform) with its own seeded PRNG. */
FLOWDPA_MUST_CHECK doca_error_t nic_gen_create(uint32_t flows, double zipf, uint64_t seed, struct nic_gen **gen);
uint32_t nic_gen_next(struct nic_gen *gen);
void nic_gen_destroy(struct nic_gen *gen);

/* ------------------------------------------------------------------ threads, lifecycle */

/*
 * Wait until every datapath thread that was inside a burst when this was called has
 * left it. Called by control paths before freeing memory the datapath may read.
 */
void nic_dp_synchronize(void);
/* Free everything (pipes, entries, captures); ports must be stopped. Logs a WARNING per
 * FLOWDPA_PORTn_RX source whose port never started since the last shutdown. */
void nic_shutdown(void);

#endif /* FLOWDPA_NIC_H_ */
