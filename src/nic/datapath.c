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
	for (int i = 0; i < DP_MAX_THREADS; i++) {
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
	uint64_t drops;
	uint64_t host;
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
	*udp = p->off.l4_type == 2;
	if (p->off.l4_type == 1 && p->len >= p->off.l4 + 18u)
		return p->data + p->off.l4 + 16;
	if (p->off.l4_type == 2 && p->len >= p->off.l4 + 8u)
		return p->data + p->off.l4 + 6;
	/* ICMPv6, unlike ICMPv4, sums the IPv6 pseudo-header: address rewrites must fix it. */
	if (p->off.l4_type == 3 && p->off.l3_type == 2 && p->len >= p->off.l4 + 4u)
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
	bool v4 = p->off.l3_type == 1, v6 = p->off.l3_type == 2;
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
	if ((f & (3u << NIC_AF_L4_SRC)) && p->off.l4 && (p->off.l4_type == 1 || p->off.l4_type == 2)) {
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

static inline uint32_t basic_hash(const struct nic_pipe *pp, const struct nic_key *k)
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
	for (; e; e = atomic_load_explicit(&e->next, memory_order_acquire))
		if (e->hash == h && entry_key_eq(pp, k, e))
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

#define SEL_ENABLE 0u
#define SEL_DISABLE 3u

/* Entry at index i if a packet may use it; consume = this packet selected i itself. */
static struct nic_entry *hash_usable(struct nic_pipe *pp, uint32_t i, bool consume)
{
	struct nic_entry *e = atomic_load_explicit(&pp->slots[i], memory_order_acquire);
	if (e == NULL || !atomic_load_explicit(&e->enabled, memory_order_acquire))
		return NULL;
	if (pp->idxsel) {
		_Atomic uint8_t *s = &pp->idxsel->state[i];
		uint8_t v = atomic_load_explicit(s, memory_order_acquire);
		while (v != SEL_ENABLE) {
			if (v == SEL_DISABLE || !consume)
				return v == SEL_DISABLE ? NULL : e;
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
			acc->drops++;
		}
		return;
	case NIC_FWD_PIPE:
		walk(acc, p, fwd->pipe, NULL, false, depth + 1);
		return;
	case NIC_FWD_HOST:
		acc->host++;
		nic_port_capture(acc->in_port, NIC_CAPTURE_HOST, p->data, p->len);
		return;
	case NIC_FWD_NONE:
		if (root) { /* the port's default miss: the host */
			acc->host++;
			nic_port_capture(acc->in_port, NIC_CAPTURE_HOST, p->data, p->len);
			return;
		}
		acc->drops++;
		return;
	case NIC_FWD_DROP:
	default:
		acc->drops++;
		return;
	}
}

static void hit(struct burst_acc *acc, struct pkt *p, struct nic_pipe *pp, struct nic_entry *e, int depth)
{
	if (e->cnt)
		nic_counter_add(e->cnt, 1, p->len, acc->shard);
	if (pp->mem)
		atomic_fetch_add_explicit(&pp->mem->cells[e->index], 1, memory_order_relaxed);
	struct nic_entry_state *st = atomic_load_explicit(&e->state, memory_order_acquire);
	uint32_t ps = pp->ps_field >= 0 ? atomic_load_explicit(&e->ps_value, memory_order_acquire) : 0;
	apply_actions(p, &st->actions, pp->ps_field, ps);
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
		acc->drops++;
		return;
	}
	struct nic_entry *e = pre;
	if (!have_pre) {
		if (!const_ok(pp, &p->key)) {
			e = NULL;
		} else if (pp->type == NIC_PIPE_BASIC) {
			e = basic_lookup(pp, &p->key, basic_hash(pp, &p->key));
		} else if (pp->type == NIC_PIPE_CONTROL) {
			e = control_lookup(pp, &p->key);
		} else if (pp->map_algorithm & NIC_MAP_FLOODING) {
			flood(acc, p, pp, depth);
			return;
		} else {
			uint32_t h = basic_hash(pp, &p->key);
			e = hash_select(pp, &p->key, h % pp->nr_entries);
		}
	}
	if (e)
		hit(acc, p, pp, e, depth);
	else
		miss(acc, p, pp, depth);
}

/* ------------------------------------------------------------------ root fast path */

#define L4_FIELDS ((1u << NIC_AF_L4_SRC) | (1u << NIC_AF_L4_DST))

/*
 * apply_actions restricted to L4 port rewrites (the usual per-entry action): the same
 * bytes, key update and checksum rule (RFC 1624 over the two port words, UDP zero
 * checksum kept, a result of 0 written as 0xffff for UDP), without the other fields' tests.
 */
static inline void l4_ports_rewrite(struct pkt *p, const struct nic_actions *a, uint32_t f, int ps_field,
				    uint32_t ps)
{
	if (!p->off.l4 || (p->off.l4_type != 1 && p->off.l4_type != 2))
		return;
	uint8_t *ports = p->data + p->off.l4;
	uint16_t o_src, o_dst, n_src, n_dst;
	memcpy(&o_src, ports, 2);
	memcpy(&o_dst, ports + 2, 2);
	n_src = o_src, n_dst = o_dst;
	if (f & (1u << NIC_AF_L4_SRC))
		n_src = ps_field == NIC_AF_L4_SRC ? __builtin_bswap16((uint16_t)ps) : a->l4_src;
	if (f & (1u << NIC_AF_L4_DST))
		n_dst = ps_field == NIC_AF_L4_DST ? __builtin_bswap16((uint16_t)ps) : a->l4_dst;
	bool udp = p->off.l4_type == 2;
	uint8_t *c = udp ? (p->len >= p->off.l4 + 8u ? ports + 6 : NULL) : (p->len >= p->off.l4 + 18u ? ports + 16 : NULL);
	if (c) {
		uint16_t hc = rd16(c);
		if (!(udp && hc == 0)) {
			uint32_t sum = (uint16_t)~hc;
			sum += (uint16_t)~__builtin_bswap16(o_src) + (uint32_t)__builtin_bswap16(n_src);
			sum += (uint16_t)~__builtin_bswap16(o_dst) + (uint32_t)__builtin_bswap16(n_dst);
			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			uint16_t r = (uint16_t)~sum;
			if (udp && r == 0)
				r = 0xffff;
			wr16(c, r);
		}
	}
	memcpy(ports, &n_src, 2);
	memcpy(ports + 2, &n_dst, 2);
	memcpy(p->key.b + NIC_K_L4_SRC, &n_src, 2);
	memcpy(p->key.b + NIC_K_L4_SRC + 2, &n_dst, 2);
}

/* hit() for the root pipe, inlined into the burst loop: same counters, rewrites and
 * forwarding, with the common cases (L4-only rewrite, fwd PORT) done in place. */
static inline __attribute__((always_inline)) void root_hit(struct burst_acc *acc, struct pkt *p,
							   struct nic_pipe *pp, struct nic_entry *e)
{
	if (e->cnt)
		nic_counter_add(e->cnt, 1, p->len, acc->shard);
	if (pp->mem)
		atomic_fetch_add_explicit(&pp->mem->cells[e->index], 1, memory_order_relaxed);
	struct nic_entry_state *st = atomic_load_explicit(&e->state, memory_order_acquire);
	uint32_t ps = pp->ps_field >= 0 ? atomic_load_explicit(&e->ps_value, memory_order_acquire) : 0;
	uint32_t f = st->actions.fields | (pp->ps_field >= 0 ? 1u << pp->ps_field : 0);
	if (f != 0) {
		if ((f & ~L4_FIELDS) == 0)
			l4_ports_rewrite(p, &st->actions, f, pp->ps_field, ps);
		else
			apply_actions(p, &st->actions, pp->ps_field, ps);
	}
	const struct nic_fwd *fwd = &st->fwd;
	uint16_t port = fwd->port_id;
	if (NIC_LIKELY(fwd->type == NIC_FWD_PORT && port < NIC_MAX_PORTS && (acc->plain_tx & (1u << port)))) {
		/* A port this burst already sent to: just count (dispatch does the rest). */
		acc->tx_pkts[port]++;
		acc->tx_bytes[port] += p->len;
		return;
	}
	dispatch(acc, p, fwd, pp->is_root, 0);
}

/* ------------------------------------------------------------------ bursts */

static void burst_flush(struct burst_acc *acc, uint64_t rx_pkts, uint64_t rx_bytes, uint64_t errors)
{
	struct nic_port_delta d = {
		.rx_pkts = rx_pkts, .rx_bytes = rx_bytes, .rx_errors = errors, .drops = acc->drops, .host = acc->host};
	nic_port_account(acc->in_port, &d);
	for (uint32_t m = acc->touched; m; m &= m - 1) {
		uint32_t port = (uint32_t)__builtin_ctz(m);
		nic_port_account_tx(port, acc->tx_pkts[port], acc->tx_bytes[port]);
	}
}

static uint32_t rx_chunk(uint16_t port_id, struct nic_buf *bufs, uint32_t n)
{
	struct pkt pk[NIC_BURST_MAX];
	struct nic_entry *pre[NIC_BURST_MAX];
	uint32_t h[NIC_BURST_MAX];
	bool ok[NIC_BURST_MAX];
	struct burst_acc acc;
	uint64_t bytes = 0, errors = 0;
	uint32_t np = 0;

	acc.in_port = port_id;
	acc.touched = 0;
	acc.plain_tx = 0;
	acc.drops = 0;
	acc.host = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct pkt *p = &pk[np];
		if (NIC_UNLIKELY(bufs[i].len > NIC_MAX_FRAME ||
				 (!nic_parse_fast(bufs[i].data, bufs[i].len, port_id, &p->key, &p->off) &&
				  !nic_parse_general(bufs[i].data, bufs[i].len, port_id, &p->key, &p->off)))) {
			errors++;
			continue;
		}
		p->data = bufs[i].data;
		p->len = bufs[i].len;
		bytes += p->len;
		np++;
	}

	acc.shard = nic_dp_enter();
	struct nic_pipe *root = nic_port_root(port_id);
	if (NIC_UNLIKELY(root == NULL)) {
		acc.drops += np;
	} else if (root->type == NIC_PIPE_BASIC ||
		   (root->type == NIC_PIPE_HASH && (root->map_algorithm & ~NIC_MAP_SELECT_ENABLED) == NIC_MAP_HASH)) {
		/* Pass 1: hash and prefetch the bucket (or slot) of every packet. */
		for (uint32_t i = 0; i < np; i++) {
			ok[i] = const_ok(root, &pk[i].key);
			h[i] = basic_hash(root, &pk[i].key);
			if (root->type == NIC_PIPE_BASIC)
				__builtin_prefetch(&root->slots[h[i] & root->bucket_mask]);
			else
				__builtin_prefetch(&root->slots[h[i] % root->nr_entries]);
		}
		/* Pass 2: prefetch the first entry of each bucket. */
		for (uint32_t i = 0; i < np; i++) {
			uint32_t s = root->type == NIC_PIPE_BASIC ? (h[i] & root->bucket_mask) : h[i] % root->nr_entries;
			struct nic_entry *e = atomic_load_explicit(&root->slots[s], memory_order_acquire);
			if (e) {
				__builtin_prefetch(e); /* state pointer, counter */
				if (root->type == NIC_PIPE_BASIC && root->nr_entry_words)
					__builtin_prefetch(&e->match.w[root->entry_words[0]]);
			}
		}
		/* Pass 3: resolve the entry and prefetch its state. */
		for (uint32_t i = 0; i < np; i++) {
			if (!ok[i])
				pre[i] = NULL;
			else if (root->type == NIC_PIPE_BASIC)
				pre[i] = basic_lookup(root, &pk[i].key, h[i]);
			else
				pre[i] = hash_select(root, &pk[i].key, h[i] % root->nr_entries);
			if (pre[i]) {
				__builtin_prefetch(atomic_load_explicit(&pre[i]->state, memory_order_relaxed));
				if (pre[i]->cnt)
					__builtin_prefetch(&pre[i]->cnt->shard[acc.shard]);
			}
		}
		/* The root is alive: it was just read from the port under nic_dp_enter. */
		for (uint32_t i = 0; i < np; i++) {
			if (pre[i])
				root_hit(&acc, &pk[i], root, pre[i]);
			else
				miss(&acc, &pk[i], root, 0);
		}
	} else {
		for (uint32_t i = 0; i < np; i++)
			walk(&acc, &pk[i], root, NULL, false, 0);
	}
	nic_dp_exit();
	burst_flush(&acc, np, bytes, errors);
	return np;
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
	}
	return done;
}
