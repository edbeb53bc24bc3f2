/*
 * datapath.c - the packet path: a burst is parsed once into keys, the root-pipe lookup
 * is done for the whole burst with prefetches (bucket, then entry, then its state), and
 * each packet then walks pipe -> fwd -> pipe, bumping counters and rewriting headers in
 * place. No allocation and no lock: entry state is read with acquire loads, and the
 * burst is bracketed by nic_dp_enter/exit so control paths can wait for a grace period.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::DATAPATH);

/* ------------------------------------------------------------------ grace periods */

#define DP_MAX_THREADS 256

/* One per datapath thread; odd seq = inside a burst. Padded: each is written per burst. */
struct dp_slot {
	_Alignas(64) _Atomic uint64_t seq;
	_Atomic bool used;
	uint32_t shard; /* counter shard of the thread */
};

static struct dp_slot dp_slots[DP_MAX_THREADS];
/* Slots ever used are below this: a grace period scans only them (each is a cache line). */
static _Atomic int dp_slots_hw;
/* Counter shards 0 .. NIC_CNT_SHARDS - 2 owned by a thread (bit set); the last is shared. */
static _Atomic uint32_t dp_shards_owned;
static _Thread_local int dp_me = -1;
static pthread_key_t dp_key;
static pthread_once_t dp_once = PTHREAD_ONCE_INIT;

static void dp_thread_exit(void *arg)
{
	struct dp_slot *s = arg;
	atomic_store_explicit(&s->seq, 0, memory_order_release);
	/* Release: the next owner of the shard sees every count this thread wrote. */
	if (s->shard < NIC_CNT_SHARDS - 1)
		atomic_fetch_and_explicit(&dp_shards_owned, ~(1u << s->shard), memory_order_release);
	atomic_store_explicit(&s->used, false, memory_order_release);
}

static void dp_key_init(void)
{
	pthread_key_create(&dp_key, dp_thread_exit);
}

static int dp_register(void)
{
	pthread_once(&dp_once, dp_key_init);
	for (int i = 0; i < DP_MAX_THREADS; i++) {
		bool expected = false;
		if (atomic_compare_exchange_strong(&dp_slots[i].used, &expected, true)) {
			atomic_store_explicit(&dp_slots[i].seq, 0, memory_order_relaxed);
			pthread_setspecific(dp_key, &dp_slots[i]);
			dp_me = i;
			int hw = atomic_load_explicit(&dp_slots_hw, memory_order_relaxed);
			while (hw <= i && !atomic_compare_exchange_weak(&dp_slots_hw, &hw, i + 1))
				;
			dp_slots[i].shard = NIC_CNT_SHARDS - 1;
			for (uint32_t sh = 0; sh < NIC_CNT_SHARDS - 1; sh++) {
				uint32_t bit = 1u << sh;
				if (!(atomic_fetch_or_explicit(&dp_shards_owned, bit, memory_order_acquire) & bit)) {
					dp_slots[i].shard = sh;
					break;
				}
			}
			return i;
		}
	}
	/* More datapath threads than slots: fail loudly rather than run unprotected. */
	CORE_LOG_CRIT("more than %d datapath threads", DP_MAX_THREADS);
	abort();
}

uint32_t nic_dp_enter(void)
{
	int me = dp_me >= 0 ? dp_me : dp_register();
	struct dp_slot *s = &dp_slots[me];
	atomic_store_explicit(&s->seq, atomic_load_explicit(&s->seq, memory_order_relaxed) + 1, memory_order_relaxed);
	/* Order the odd seq before every load of pipe state (pairs with synchronize's fence). */
	atomic_thread_fence(memory_order_seq_cst);
	return s->shard;
}

void nic_dp_exit(void)
{
	struct dp_slot *s = &dp_slots[dp_me];
	atomic_store_explicit(&s->seq, atomic_load_explicit(&s->seq, memory_order_relaxed) + 1, memory_order_release);
}

void nic_dp_synchronize(void)
{
	atomic_thread_fence(memory_order_seq_cst);
	int hw = atomic_load_explicit(&dp_slots_hw, memory_order_acquire);
	for (int i = 0; i < hw; i++) {
		if (i == dp_me || !atomic_load_explicit(&dp_slots[i].used, memory_order_acquire))
			continue;
		uint64_t s = atomic_load_explicit(&dp_slots[i].seq, memory_order_acquire);
		if (!(s & 1))
			continue;
		for (unsigned spins = 0; atomic_load_explicit(&dp_slots[i].seq, memory_order_acquire) == s; spins++)
			if (spins > 64)
				sched_yield();
	}
}

/* ------------------------------------------------------------------ per-burst context */

struct pkt {
	uint8_t *data;
	uint32_t len;
	bool common_shape; /* nic_parse_fast's shape: UDP or TCP with its whole header */
	struct nic_hdr_off off;
	struct nic_key key;
};

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

/* ------------------------------------------------------------------ header rewrites */

#define L4_FIELDS ((1u << NIC_AF_L4_SRC) | (1u << NIC_AF_L4_DST))

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* RFC 1624 incremental update of the checksum at c for 16-bit words old -> new. */
static inline void csum_update(uint8_t *c, const uint8_t *old, const uint8_t *new, uint32_t nwords, bool udp)
{
	uint16_t hc = rd16(c);
	if (udp && hc == 0)
		return; /* UDP over IPv4 without a checksum stays without one */
	uint32_t s = (uint16_t)~hc;
	for (uint32_t i = 0; i < nwords; i++)
		s += (uint16_t)~rd16(old + 2 * i) + rd16(new + 2 * i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	uint16_t r = (uint16_t)~s;
	if (udp && r == 0)
		r = 0xffff;
	wr16(c, r);
}

/* The L4 checksum field of the packet, or NULL when it has none we maintain. */
static inline uint8_t *l4_csum(struct pkt *p, bool *udp)
{
	if (!p->off.l4)
		return NULL;
	*udp = p->off.l4_type == NIC_L4_META_UDP;
	if (p->off.l4_type == NIC_L4_META_TCP && p->len >= p->off.l4 + 18u)
		return p->data + p->off.l4 + 16;
	if (p->off.l4_type == NIC_L4_META_UDP && p->len >= p->off.l4 + 8u)
		return p->data + p->off.l4 + 6;
	/* ICMPv6, unlike ICMPv4, sums the IPv6 pseudo-header: address rewrites must fix it. */
	if (p->off.l4_type == NIC_L4_META_ICMP && p->off.l3_type == NIC_L3_META_IPV6 && p->len >= p->off.l4 + 4u)
		return p->data + p->off.l4 + 2;
	return NULL;
}

/* Rewrite bytes of an address that the pseudo-header covers (IPv4/IPv6 src/dst). */
static void rewrite_addr(struct pkt *p, uint32_t pkt_off, uint32_t key_off, const uint8_t *val, uint32_t n, bool v4)
{
	uint8_t *f = p->data + pkt_off;
	bool udp = false;
	uint8_t *l4c = l4_csum(p, &udp);
	if (v4)
		csum_update(p->data + p->off.l3 + 10, f, val, n / 2, false);
	if (l4c)
		csum_update(l4c, f, val, n / 2, udp);
	memcpy(f, val, n);
	memcpy(p->key.b + key_off, val, n);
}

static void apply_actions(struct pkt *p, const struct nic_actions *a, int ps_field, uint32_t ps)
{
	uint32_t f = a->fields;
	if (ps_field >= 0)
		f |= 1u << ps_field;
	if (NIC_LIKELY(f == 0))
		return;
	bool v4 = p->off.l3_type == NIC_L3_META_IPV4, v6 = p->off.l3_type == NIC_L3_META_IPV6;
	if (f & (1u << NIC_AF_ETH_DST)) {
		memcpy(p->data, a->eth_dst, 6);
		memcpy(p->key.b + NIC_K_ETH_DST, a->eth_dst, 6);
	}
	if (f & (1u << NIC_AF_ETH_SRC)) {
		memcpy(p->data + 6, a->eth_src, 6);
		memcpy(p->key.b + NIC_K_ETH_SRC, a->eth_src, 6);
	}
	if (v4 && (f & (3u << NIC_AF_IP4_SRC))) {
		uint32_t src = ps_field == NIC_AF_IP4_SRC ? __builtin_bswap32(ps) : a->ip4_src;
		uint32_t dst = ps_field == NIC_AF_IP4_DST ? __builtin_bswap32(ps) : a->ip4_dst;
		if (f & (1u << NIC_AF_IP4_SRC))
			rewrite_addr(p, p->off.l3 + 12u, NIC_K_IP_SRC, (const uint8_t *)&src, 4, true);
		if (f & (1u << NIC_AF_IP4_DST))
			rewrite_addr(p, p->off.l3 + 16u, NIC_K_IP_DST, (const uint8_t *)&dst, 4, true);
	}
	if (v6 && (f & (1u << NIC_AF_IP6_SRC)))
		rewrite_addr(p, p->off.l3 + 8u, NIC_K_IP_SRC, a->ip6_src, 16, false);
	if (v6 && (f & (1u << NIC_AF_IP6_DST)))
		rewrite_addr(p, p->off.l3 + 24u, NIC_K_IP_DST, a->ip6_dst, 16, false);
	if (f & (1u << NIC_AF_IP_TTL)) {
		uint8_t ttl = ps_field == NIC_AF_IP_TTL ? (uint8_t)ps : a->ttl;
		if (v4) {
			uint8_t *h = p->data + p->off.l3;
			uint8_t nw[2] = {ttl, h[9]};
			csum_update(h + 10, h + 8, nw, 1, false);
			h[8] = ttl;
		} else if (v6) {
			p->data[p->off.l3 + 7] = ttl;
		}
		if (v4 || v6)
			p->key.b[NIC_K_IP_TTL] = ttl;
	}
	if ((f & (3u << NIC_AF_L4_SRC)) && p->off.l4 &&
	    (p->off.l4_type == NIC_L4_META_TCP || p->off.l4_type == NIC_L4_META_UDP)) {
		uint8_t *ports = p->data + p->off.l4;
		uint8_t nw[4];
		memcpy(nw, ports, 4);
		if (f & (1u << NIC_AF_L4_SRC)) {
			uint16_t v = ps_field == NIC_AF_L4_SRC ? __builtin_bswap16((uint16_t)ps) : a->l4_src;
			memcpy(nw, &v, 2);
		}
		if (f & (1u << NIC_AF_L4_DST)) {
			uint16_t v = ps_field == NIC_AF_L4_DST ? __builtin_bswap16((uint16_t)ps) : a->l4_dst;
			memcpy(nw + 2, &v, 2);
		}
		bool udp = false;
		uint8_t *c = l4_csum(p, &udp);
		if (c)
			csum_update(c, ports, nw, 2, udp);
		memcpy(ports, nw, 4);
		memcpy(p->key.b + NIC_K_L4_SRC, nw, 4);
	}
	for (int m = 0; (f >> NIC_AF_META) && m <= NIC_META_SCRATCH; m++) { /* most actions set no meta */
		if (f & (1u << (NIC_AF_META + m))) {
			uint32_t v = ps_field == NIC_AF_META + m ? __builtin_bswap32(ps) : a->meta[m];
			memcpy(p->key.b + NIC_K_META + 4 * m, &v, 4);
		}
	}
}

/*
 * RFC 1624 update of checksum hc for one 32-bit word old -> new, all three as stored in
 * the frame. The ones'-complement sum does not depend on byte order (RFC 1071), so the
 * words are summed as loaded, 32 bits at a time, without swapping.
 */
static inline uint16_t csum_replace32(uint16_t hc, uint32_t old, uint32_t new)
{
	uint64_t s = (uint64_t)(uint16_t)~hc + (uint32_t)~old + new;
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/*
 * apply_actions restricted to L4 port rewrites (the usual per-entry action), on the two
 * ports as one word (bytes 0-1 source, 2-3 destination, as in the frame): the new word
 * is (old & keep) | set. Same bytes and checksum rule as apply_actions (RFC 1624, a UDP
 * zero checksum kept, a UDP result of 0 written as 0xffff). t: NIC_L4_META_TCP or _UDP; has_csum:
 * the frame holds the checksum field. Returns the new ports word.
 */
static inline uint32_t l4_ports_store(uint8_t *ports, uint32_t t, bool has_csum, uint32_t keep, uint32_t set)
{
	uint32_t old;
	memcpy(&old, ports, 4);
	uint32_t nw = (old & keep) | set;
	uint32_t csum_off = t == NIC_L4_META_UDP ? 6 : 16;
	if (has_csum) {
		uint16_t hc;
		memcpy(&hc, ports + csum_off, 2);
		if (!(t == NIC_L4_META_UDP && hc == 0)) {
			uint16_t r = csum_replace32(hc, old, nw);
			if (t == NIC_L4_META_UDP && r == 0)
				r = 0xffff;
			memcpy(ports + csum_off, &r, 2);
		}
	}
	memcpy(ports, &nw, 4);
	return nw;
}

/* l4_ports_store on a parsed packet for entry state st, which also updates its key; a
 * path-selector value on a port field replaces the entry's value for that port. */
static inline void l4_ports_rewrite(struct pkt *p, const struct nic_entry_state *st, int ps_field, uint32_t ps)
{
	uint32_t t = p->off.l4_type;
	if (!p->common_shape && (!p->off.l4 || (t != NIC_L4_META_TCP && t != NIC_L4_META_UDP)))
		return;
	uint32_t keep = st->l4_keep, set = st->l4_set;
	if (ps_field == NIC_AF_L4_SRC) {
		keep &= 0xffff0000u;
		set = (set & 0xffff0000u) | __builtin_bswap16((uint16_t)ps);
	} else if (ps_field == NIC_AF_L4_DST) {
		keep &= 0x0000ffffu;
		set = (set & 0x0000ffffu) | (uint32_t)__builtin_bswap16((uint16_t)ps) << 16;
	}
	bool has_csum = p->common_shape || p->len >= p->off.l4 + (t == NIC_L4_META_UDP ? 8u : 18u);
	uint32_t nw = l4_ports_store(p->data + p->off.l4, t, has_csum, keep, set);
	memcpy(p->key.b + NIC_K_L4_SRC, &nw, 4);
}

/* The actions of entry state st (and the pipe's path-selector field) on packet p. */
static inline __attribute__((always_inline)) void entry_actions(struct pkt *p, const struct nic_entry_state *st,
								int ps_field)
{
	uint32_t ps = ps_field >= 0 ? atomic_load_explicit(&st->ps_value, memory_order_relaxed) : 0;
	uint32_t f = st->fields | (ps_field >= 0 ? 1u << ps_field : 0);
	if (NIC_LIKELY((f & ~L4_FIELDS) == 0)) {
		if (f)
			l4_ports_rewrite(p, st, ps_field, ps);
	} else {
		apply_actions(p, &st->actions, ps_field, ps);
	}
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

/* The index hash of a HASH pipe (nic_hash_words, with the one-word case inline). */
static inline uint32_t index_hash(const struct nic_pipe *pp, const struct nic_key *k)
{
	if (pp->nr_entry_words == 1) {
		uint32_t w = pp->entry_words[0];
		uint64_t h = nic_mix64(0x9e3779b97f4a7c15ull ^ (k->w[w] & pp->entry_mask.w[w]) ^ ((uint64_t)w << 56));
		return (uint32_t)(h ^ (h >> 32));
	}
	return nic_hash_words(k, &pp->entry_mask, pp->entry_words, pp->nr_entry_words);
}

static inline bool entry_key_eq(const struct nic_pipe *pp, const struct nic_key *k, const struct nic_entry *e)
{
	if (pp->nr_entry_words == 1) {
		uint32_t w = pp->entry_words[0];
		return (k->w[w] & pp->entry_mask.w[w]) == e->match.w[w];
	}
	return nic_key_eq_words(k, &pp->entry_mask, &e->match, pp->entry_words, pp->nr_entry_words);
}

static inline struct nic_entry *basic_lookup(struct nic_pipe *pp, const struct nic_key *k, uint32_t h)
{
	struct nic_entry *e = atomic_load_explicit(&pp->slots[h & pp->bucket_mask], memory_order_acquire);
	uint32_t w0 = pp->entry_words[0];
	uint64_t v0 = pp->nr_entry_words ? k->w[w0] & pp->entry_mask.w[w0] : 0;
	for (; e; e = atomic_load_explicit(&e->next, memory_order_acquire))
		if (e->match0 == v0 && entry_key_eq(pp, k, e))
			return e;
	return NULL;
}

static struct nic_entry *control_lookup(struct nic_pipe *pp, const struct nic_key *k)
{
	struct nic_ctrl_table *t = atomic_load_explicit(&pp->ctrl, memory_order_acquire);
	if (t == NULL)
		return NULL;
	for (uint32_t i = 0; i < t->n; i++) {
		struct nic_entry *e = t->e[i];
		uint64_t diff = 0;
		for (int w = 0; w < NIC_KEY_WORDS; w++)
			diff |= (k->w[w] & e->mask->w[w]) ^ e->match.w[w];
		if (diff == 0 && atomic_load_explicit(&e->enabled, memory_order_acquire))
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
	struct nic_entry *e = atomic_load_explicit(&pp->slots[i], memory_order_acquire);
	if (e == NULL || !atomic_load_explicit(&e->enabled, memory_order_acquire))
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

static void walk(struct burst_acc *acc, struct pkt *p, struct nic_pipe *pp, struct nic_entry *pre, bool have_pre,
		 int depth);

static void dispatch(struct burst_acc *acc, struct pkt *p, const struct nic_fwd *fwd, bool root, int depth)
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

static void hit(struct burst_acc *acc, struct pkt *p, struct nic_pipe *pp, struct nic_entry *e, int depth)
{
	nic_entry_hit(e, p->len, acc->shard);
	if (pp->mem)
		atomic_fetch_add_explicit(&pp->mem->cells[e->index], 1, memory_order_relaxed);
	struct nic_entry_state *st = atomic_load_explicit(&e->state, memory_order_acquire);
	entry_actions(p, st, pp->ps_field);
	dispatch(acc, p, &st->fwd, pp->is_root, depth);
}

static void miss(struct burst_acc *acc, struct pkt *p, struct nic_pipe *pp, int depth)
{
	if (pp->has_miss_counter)
		nic_counter_add(&pp->miss, 1, p->len, acc->shard);
	struct nic_fwd *f = atomic_load_explicit(&pp->fwd_miss, memory_order_acquire);
	dispatch(acc, p, f, pp->is_root, depth);
}

/* FLOODING: a copy of the packet through every usable entry. */
static void flood(struct burst_acc *acc, struct pkt *p, struct nic_pipe *pp, int depth)
{
	bool any = false;
	struct pkt copy;
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

static void walk(struct burst_acc *acc, struct pkt *p, struct nic_pipe *pp, struct nic_entry *pre, bool have_pre,
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
			e = control_lookup(pp, &p->key);
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
	_Atomic(struct nic_entry *) *slots;
	bool basic;	  /* BASIC (bucket chains), else HASH with the HASH map algorithm */
	bool one_word;	  /* BASIC on one key word, with at most one constant word */
	bool prefetch;	  /* prefetch in passes (see root_plan_init) */
	uint32_t bucket_mask; /* BASIC */
	uint32_t ew, cw;   /* one_word: the entry word and the constant word */
	uint64_t emask, cmask, cval;
	int ps_field;
	bool has_mem, is_root;
	bool frame_words; /* one_word with neither word 7: see struct hot_plan */
};

/*
 * What root_hot_hit needs, passed by value so that it lives in registers: a struct
 * reached through a pointer is reloaded after every frame store (uint8_t stores may
 * alias anything). The recipes of the constant and the entry word, with this burst's
 * port folded in; their masks apply to what a recipe makes.
 */
struct hot_plan {
	struct nic_fast_recipe cr, er;
	uint64_t cmask, cval, emask;
	/* The constant word made of port and meta only (no frame bytes, the usual l3_type /
	 * l4_type constraint): bit l4meta set when a frame of that L4 type passes it. */
	bool c_by_l4;
	uint8_t c_ok_l4;
	_Atomic(struct nic_entry *) *slots;
	uint32_t bucket_mask;
};

static struct hot_plan hot_plan_of(const struct root_plan *rp, uint16_t port_id)
{
	struct hot_plan hp = {.cr = nic_fast_recipes[rp->cw],
			      .er = nic_fast_recipes[rp->ew],
			      .cmask = rp->cmask,
			      .cval = rp->cval,
			      .emask = rp->emask,
			      .slots = rp->slots,
			      .bucket_mask = rp->bucket_mask};
	hp.cr.bits |= port_id * hp.cr.port_mul;
	hp.er.bits |= port_id * hp.er.port_mul;
	hp.cr.port_mul = hp.er.port_mul = 0;
	hp.c_by_l4 = (hp.cr.load_mask & hp.cmask) == 0;
	_Static_assert(NIC_L4_META_UDP == NIC_L4_META_TCP + 1, "the two L4 types of the common frame shape");
	for (uint32_t l4meta = NIC_L4_META_TCP; l4meta <= NIC_L4_META_UDP; l4meta++)
		if (((hp.cr.bits | l4meta * hp.cr.l4_mul) & hp.cmask) == hp.cval)
			hp.c_ok_l4 |= (uint8_t)(1u << l4meta);
	return hp;
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
	rp->slots = pp->slots;
	rp->bucket_mask = pp->bucket_mask;
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
	rp->frame_words = rp->one_word && rp->ew != NIC_FAST_WORD7 && rp->cw != NIC_FAST_WORD7;
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
static inline struct nic_entry *bucket_find_word(_Atomic(struct nic_entry *) *slots, uint32_t bucket_mask,
						 uint32_t h, uint64_t v)
{
	struct nic_entry *e = atomic_load_explicit(&slots[h & bucket_mask], memory_order_acquire);
	while (e && e->match0 != v)
		e = atomic_load_explicit(&e->next, memory_order_acquire);
	return e;
}

/* The bucket (BASIC) or entry index (HASH) of hash h. */
static inline uint32_t root_slot(const struct root_plan *rp, uint32_t h)
{
	return rp->basic ? h & rp->bucket_mask : nic_hash_index(rp->pp, h);
}

static inline __attribute__((always_inline)) struct nic_entry *root_lookup(const struct root_plan *rp, bool one_word,
									   const struct nic_key *k, uint32_t h)
{
	if (!rp->basic)
		return hash_select(rp->pp, k, nic_hash_index(rp->pp, h));
	if (!one_word)
		return basic_lookup(rp->pp, k, h);
	return bucket_find_word(rp->slots, rp->bucket_mask, h, k->w[rp->ew] & rp->emask);
}

/* hit() for the root pipe, inlined into the burst loop: same counters, rewrites and
 * forwarding, with the common cases (L4-only rewrite, fwd PORT) done in place. */
static inline __attribute__((always_inline)) void root_hit(struct burst_acc *acc, struct pkt *p,
							   const struct root_plan *rp, bool one_word,
							   struct nic_entry *e)
{
	nic_entry_hit(e, p->len, acc->shard);
	/* Path selectors and memory resources are HASH-pipe features: not for one_word. */
	int ps_field = one_word ? -1 : rp->ps_field;
	if (!one_word && rp->has_mem)
		atomic_fetch_add_explicit(&rp->pp->mem->cells[e->index], 1, memory_order_relaxed);
	struct nic_entry_state *st = atomic_load_explicit(&e->state, memory_order_acquire);
	entry_actions(p, st, ps_field);
	if (NIC_LIKELY(st->tx_bit & acc->plain_tx)) {
		/* A port this burst already sent to: just count (dispatch does the rest). */
		uint32_t port = (uint32_t)__builtin_ctz(st->tx_bit);
		acc->tx_pkts[port]++;
		acc->tx_bytes[port] += p->len;
		return;
	}
	dispatch(acc, p, &st->fwd, rp->is_root, 0);
}

/*
 * The root lookup of a burst parsed by parse_burst (hashes in h[]), in passes: bucket,
 * then entry, then counter prefetched for every packet first, so that the burst's cache
 * misses overlap instead of queueing (see root_plan_init for when).
 */
static inline __attribute__((always_inline)) void root_burst_prefetched(struct burst_acc *acc, struct pkt *pk,
									uint32_t np, const struct root_plan *rp,
									bool one_word, const uint32_t *h,
									const bool *ok)
{
	struct nic_entry *pre[NIC_BURST_MAX];
	for (uint32_t i = 0; i < np; i++) {
		struct nic_entry *e = atomic_load_explicit(&rp->slots[root_slot(rp, h[i])], memory_order_acquire);
		if (e) {
			__builtin_prefetch(e); /* first key word, state and counter pointers, the state's head */
			if (rp->basic && !one_word)
				__builtin_prefetch(&e->match.w[rp->ew]);
		}
	}
	for (uint32_t i = 0; i < np; i++) {
		pre[i] = ok[i] ? root_lookup(rp, one_word, &pk[i].key, h[i]) : NULL;
		if (pre[i] && pre[i]->cnt)
			__builtin_prefetch(&pre[i]->cnt->shard[acc->shard]);
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
	nic_port_account(acc->in_port, &d);
	for (uint32_t m = acc->down; NIC_UNLIKELY(m); m &= m - 1) {
		uint32_t port = (uint32_t)__builtin_ctz(m);
		nic_port_note_down_drops(acc->in_port, (uint16_t)port, acc->down_pkts[port]);
	}
	for (uint32_t m = acc->touched; m; m &= m - 1) {
		uint32_t port = (uint32_t)__builtin_ctz(m);
		nic_port_account_tx(port, acc->tx_pkts[port], acc->tx_bytes[port]);
	}
}

/* Parse one frame into p; false (an rx error) when it is unparseable or too long. */
static inline __attribute__((always_inline)) bool parse_one(uint16_t port_id, const struct nic_buf *b,
							    struct pkt *p)
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
								  uint32_t n, struct pkt *pk, const struct root_plan *rp,
								  bool one_word, uint32_t *h, bool *ok, uint64_t *bytes,
								  uint64_t *errors)
{
	uint32_t np = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct pkt *p = &pk[np];
		if (!parse_one(port_id, &bufs[i], p)) {
			(*errors)++;
			continue;
		}
		*bytes += p->len;
		if (rp) {
			h[np] = root_hash(rp, one_word, &p->key, &ok[np]);
			__builtin_prefetch(&rp->slots[root_slot(rp, h[np])]);
		}
		np++;
	}
	return np;
}

/*
 * The hot case of a one-word root and a common-shape frame: the two key words the pipe
 * reads come straight from the frame (nic_fast_recipes: what the parser would store),
 * and a hit whose actions are at most an L4 port rewrite and whose fwd is a port this
 * burst already sent to is done without building the key, which nothing would read. Returns false when the packet needs its key (a miss, other actions, another
 * fwd); *out is then the entry it hit, or NULL.
 */
static inline __attribute__((always_inline)) bool root_hot_hit(struct burst_acc *acc, const struct hot_plan hp,
							       const struct nic_buf *b, uint32_t l4meta,
							       struct nic_entry **out)
{
	uint64_t v = nic_fast_recipe_apply(&hp.er, b->data, 0, l4meta) & hp.emask;
	*out = NULL;
	if (hp.c_by_l4 ? !(hp.c_ok_l4 >> l4meta & 1)
		       : (nic_fast_recipe_apply(&hp.cr, b->data, 0, l4meta) & hp.cmask) != hp.cval)
		return false;
	struct nic_entry *e = bucket_find_word(hp.slots, hp.bucket_mask, nic_hash_one_word(v), v);
	*out = e;
	if (e == NULL)
		return false;
	struct nic_entry_state *st = atomic_load_explicit(&e->state, memory_order_acquire);
	uint32_t f = st->fields;
	if ((f & ~L4_FIELDS) || !(st->tx_bit & acc->plain_tx))
		return false;
	nic_entry_hit(e, b->len, acc->shard);
	if (f)
		l4_ports_store(b->data + 34, l4meta, true, st->l4_keep, st->l4_set);
	uint32_t port = (uint32_t)__builtin_ctz(st->tx_bit);
	acc->tx_pkts[port]++;
	acc->tx_bytes[port] += b->len;
	return true;
}

/*
 * A burst on a root whose table fits the caches: each packet is parsed, looked up and
 * executed in one pass, its key still in registers, through one reused struct pkt.
 */
static inline __attribute__((always_inline)) uint32_t root_burst_direct(struct burst_acc *acc, uint16_t port_id,
									const struct nic_buf *bufs, uint32_t n,
									const struct root_plan *rp, bool one_word,
									bool frame_words, uint64_t *bytes,
									uint64_t *errors)
{
	struct pkt p;
	uint32_t np = 0;
	const struct hot_plan hp = hot_plan_of(rp, port_id);
	for (uint32_t i = 0; i < n; i++) {
		const struct nic_buf *b = &bufs[i];
		struct nic_entry *e = NULL;
		bool looked_up = false;
		if (frame_words && NIC_LIKELY(b->len <= NIC_MAX_FRAME)) {
			uint32_t l4meta = nic_fast_shape(b->data, b->len);
			if (l4meta) {
				if (root_hot_hit(acc, hp, b, l4meta, &e)) {
					*bytes += b->len;
					np++;
					continue;
				}
				looked_up = true;
			}
		}
		if (!parse_one(port_id, b, &p)) {
			(*errors)++;
			continue;
		}
		*bytes += p.len;
		np++;
		if (!looked_up) {
			bool ok;
			uint32_t h = root_hash(rp, one_word, &p.key, &ok);
			e = ok ? root_lookup(rp, one_word, &p.key, h) : NULL;
		}
		if (e)
			root_hit(acc, &p, rp, one_word, e);
		else
			miss(acc, &p, rp->pp, 0);
	}
	return np;
}

/* The root fast path, specialised (one_word a constant) by its two callers. */
static inline __attribute__((always_inline)) uint32_t root_burst(struct burst_acc *acc, uint16_t port_id,
								 const struct nic_buf *bufs, uint32_t n,
								 const struct root_plan *rp, bool one_word,
								 uint64_t *bytes, uint64_t *errors)
{
	if (!rp->prefetch && one_word && rp->frame_words)
		return root_burst_direct(acc, port_id, bufs, n, rp, one_word, true, bytes, errors);
	if (!rp->prefetch)
		return root_burst_direct(acc, port_id, bufs, n, rp, one_word, false, bytes, errors);
	struct pkt pk[NIC_BURST_MAX];
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
		struct pkt pk[NIC_BURST_MAX];
		np = parse_burst(port_id, bufs, n, pk, NULL, false, NULL, NULL, &bytes, &errors);
		if (root == NULL)
			acc.drop[NIC_DROP_NO_ROOT] += np;
		for (uint32_t i = 0; root && i < np; i++)
			walk(&acc, &pk[i], root, NULL, false, 0);
	}
	nic_dp_exit();
	burst_flush(&acc, np, bytes, errors);
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
