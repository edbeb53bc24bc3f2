/*
 * parse.c - the NIC's packet parser: Ethernet, one VLAN tag, IPv4, IPv6, TCP, UDP, ICMP
 * (outer headers only), parsed once per packet into the fixed struct nic_key that every
 * pipe matches and hashes on; and, only while some pipe matches on them, key word 12:
 * a per-packet random value, the headers of a VXLAN (UDP 4789) inner frame, and the
 * IPv4 and TCP/UDP checksum verdicts (docs/flow.md, Parser meta).
 */
#include <string.h>
#include <time.h>

#include "nic_internal.h"

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* L4 header at off, protocol proto; records the type even when the header is truncated. */
static inline __attribute__((always_inline)) void parse_l4(const uint8_t *frame, uint32_t len, uint32_t off, uint8_t proto, struct nic_key *key,
		     struct nic_hdr_off *ho)
{
	const uint8_t *p = frame + off;
	uint32_t room = len > off ? len - off : 0;
	uint8_t *k = key->b;
	uint8_t ok = 1;

	switch (proto) {
	case 6: /* TCP */
		k[NIC_K_L4_META] = NIC_L4_META_TCP;
		if (room < 20)
			return;
		memcpy(k + NIC_K_L4_SRC, p, 4);
		k[NIC_K_TCP_FLAGS] = p[13];
		ok = nic_tcp_len_ok(p, room);
		break;
	case 17: /* UDP */
		k[NIC_K_L4_META] = NIC_L4_META_UDP;
		if (room < 8)
			return;
		memcpy(k + NIC_K_L4_SRC, p, 4);
		ok = nic_udp_len_ok(p, room);
		break;
	case 1:	 /* ICMP */
	case 58: /* ICMPv6 */
		k[NIC_K_L4_META] = NIC_L4_META_ICMP;
		if (room < 8)
			return;
		k[NIC_K_ICMP_TYPE] = p[0];
		k[NIC_K_ICMP_CODE] = p[1];
		memcpy(k + NIC_K_ICMP_IDENT, p + 4, 2);
		break;
	case 50: /* ESP */
		k[NIC_K_L4_META] = NIC_L4_META_ESP;
		if (room < 8)
			return;
		break;
	default:
		return;
	}
	k[NIC_K_L4_OK] = ok; /* the header is there (fields readable), its lengths may still be wrong */
	if (ho) {
		ho->l4 = (uint16_t)off;
		ho->l4_type = k[NIC_K_L4_META];
	}
}

bool nic_parse(const uint8_t *frame, uint32_t len, uint16_t port_id, struct nic_key *key, struct nic_hdr_off *off)
{
	if (NIC_LIKELY(nic_parse_fast(frame, len, port_id, key, off)))
		return true;
	return nic_parse_general(frame, len, port_id, key, off);
}

static inline __attribute__((always_inline)) bool parse_outer(const uint8_t *frame, uint32_t len, uint16_t port_id,
								struct nic_key *key, struct nic_hdr_off *off)
{
	uint8_t *k = key->b;
	uint32_t l3;
	uint16_t type;

	/* Straight-line word stores: a 104-byte memset (or a loop GCC turns into one) becomes
	 * a slow-starting `rep stos`, and the key is cleared for every packet. */
	_Static_assert(NIC_KEY_WORDS == 13, "unrolled below");
	uint64_t *w = key->w;
	w[0] = 0, w[1] = 0, w[2] = 0, w[3] = 0, w[4] = 0, w[5] = 0;
	w[6] = 0, w[7] = 0, w[8] = 0, w[9] = 0, w[10] = 0, w[11] = 0, w[12] = 0;
	if (off) {
		off->l3 = off->l4 = 0;
		off->l3_type = off->l4_type = 0;
	}
	if (NIC_UNLIKELY(len < 14))
		return false;
	memcpy(k + NIC_K_PORT, &port_id, 2); /* host order, as parser_meta.port_id */
	memcpy(k + NIC_K_ETH_DST, frame, 12);
	type = rd16(frame + 12);
	l3 = 14;
	if (type == 0x8100 || type == 0x88a8) {
		if (len < 18)
			return true;
		memcpy(k + NIC_K_VLAN_TCI, frame + 14, 2);
		type = rd16(frame + 16);
		l3 = 18;
		k[NIC_K_L2_META] = NIC_L2_META_SINGLE_VLAN;
		if (type == 0x8100 || type == 0x88a8) {
			/* A second tag: DOCA reports multi-VLAN; we do not look deeper. */
			k[NIC_K_L2_META] = NIC_L2_META_MULTI_VLAN;
			k[NIC_K_ETH_TYPE] = (uint8_t)(type >> 8);
			k[NIC_K_ETH_TYPE + 1] = (uint8_t)type;
			return true;
		}
	}
	k[NIC_K_ETH_TYPE] = (uint8_t)(type >> 8);
	k[NIC_K_ETH_TYPE + 1] = (uint8_t)type;

	const uint8_t *p = frame + l3;
	uint32_t room = len - l3;
	if (type == 0x0800) {
		k[NIC_K_L3_META] = NIC_L3_META_IPV4;
		if (room < 20)
			return true;
		uint32_t ihl = (uint32_t)(p[0] & 0xf) * 4;
		if ((p[0] >> 4) != 4 || ihl < 20 || room < ihl)
			return true;
		memcpy(k + NIC_K_IP_SRC, p + 12, 4);
		memcpy(k + NIC_K_IP_DST, p + 16, 4);
		k[NIC_K_IP_PROTO] = p[9];
		k[NIC_K_IP_TTL] = p[8];
		k[NIC_K_IP_TOS] = p[1];
		k[NIC_K_L3_OK] = nic_ip4_len_ok(p, ihl, room);
		if (off) {
			off->l3 = (uint16_t)l3;
			off->l3_type = NIC_L3_META_IPV4;
		}
		uint16_t frag = rd16(p + 6);
		if (frag & 0x3fff) {
			k[NIC_K_FRAG] = 1;
			if (frag & 0x1fff) /* not the first fragment: no L4 header here */
				return true;
		}
		parse_l4(frame, len, l3 + ihl, p[9], key, off);
	} else if (type == 0x86dd) {
		k[NIC_K_L3_META] = NIC_L3_META_IPV6;
		if (room < 40)
			return true;
		if ((p[0] >> 4) != 6)
			return true;
		memcpy(k + NIC_K_IP_SRC, p + 8, 16);
		memcpy(k + NIC_K_IP_DST, p + 24, 16);
		k[NIC_K_IP_PROTO] = p[6];
		k[NIC_K_IP_TTL] = p[7];
		k[NIC_K_IP_TOS] = (uint8_t)(((p[0] & 0xf) << 4) | (p[1] >> 4));
		k[NIC_K_IP6_FLOW + 1] = p[1] & 0xf;
		k[NIC_K_IP6_FLOW + 2] = p[2];
		k[NIC_K_IP6_FLOW + 3] = p[3];
		k[NIC_K_L3_OK] = nic_ip6_len_ok(p, room);
		if (off) {
			off->l3 = (uint16_t)l3;
			off->l3_type = NIC_L3_META_IPV6;
		}
		parse_l4(frame, len, l3 + 40, p[6], key, off);
	}
	return true;
}

/* ------------------------------------------------------------------ key word 12 */

enum {
	NIC_PX_RANDOM = 1, /* NIC_K_RANDOM */
	NIC_PX_INNER = 2,  /* the inner types and the inner bits of NIC_K_XBITS */
	NIC_PX_CSUM = 4,   /* the checksum bits of NIC_K_XBITS */
};

_Atomic uint32_t nic_parse_extras;

#define XB(b) (1u << (b))
#define XB_INNER                                                                                            \
	(XB(NIC_XB_INNER_FRAG) | XB(NIC_XB_INNER_L3_OK) | XB(NIC_XB_INNER_IP4_CSUM_OK) | XB(NIC_XB_INNER_L4_OK) | \
	 XB(NIC_XB_INNER_L4_CSUM_OK))
#define XB_CSUM \
	(XB(NIC_XB_OUTER_IP4_CSUM_OK) | XB(NIC_XB_OUTER_L4_CSUM_OK) | XB(NIC_XB_INNER_IP4_CSUM_OK) | XB(NIC_XB_INNER_L4_CSUM_OK))

/*
 * Random values: xorshift64* per datapath thread, no lock and no shared line per
 * packet. random_gen changes when the seed does; a thread that sees a new generation
 * reseeds from random_seed and its rank among the threads that reseeded since.
 */
static _Atomic uint64_t random_seed;
static _Atomic uint32_t random_gen = 1;
static _Atomic uint32_t random_rank;
static _Thread_local struct {
	uint64_t s;
	uint32_t gen;
} rng;

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static __attribute__((noinline)) void random_reseed(uint32_t gen)
{
	uint64_t seed = atomic_load_explicit(&random_seed, memory_order_acquire);
	uint32_t rank = atomic_fetch_add_explicit(&random_rank, 1, memory_order_relaxed);
	rng.s = splitmix64(seed + rank * 0x632be59bd9b4e019ull);
	if (rng.s == 0)
		rng.s = 1;
	rng.gen = gen;
}

static inline uint16_t next_random(void)
{
	uint32_t gen = atomic_load_explicit(&random_gen, memory_order_acquire);
	if (NIC_UNLIKELY(rng.gen != gen))
		random_reseed(gen);
	uint64_t x = rng.s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng.s = x;
	return (uint16_t)((x * 0x2545f4914f6cdd1dull) >> 48);
}

/* Ones' complement sum of n bytes at p (big-endian 16-bit words), not folded. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, uint32_t n)
{
	for (; n >= 2; p += 2, n -= 2)
		sum += rd16(p);
	if (n)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static bool csum_ok(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* What the parser meta says of one Ethernet frame (outer, or the inner one of VXLAN). */
struct hmeta {
	uint8_t l2, l3, l4;
	uint8_t frag, l3_ok, l4_ok, ip4_csum_ok, l4_csum_ok;
	uint16_t dport;	 /* UDP destination port (host order), for VXLAN */
	uint32_t l4off;
	uint8_t nproto;	 /* IPv4 protocol / IPv6 next header (IP-in-IP: 4 or 41) */
	uint32_t l3end;	 /* where the IP header's payload starts (0: no complete IP header) */
};

/* TCP/UDP checksum of the L4 segment [l4, l4 + n), its pseudo-header sum given. */
static bool l4_csum_ok(const uint8_t *frame, uint32_t l4, uint32_t n, uint8_t proto, uint32_t pseudo, bool v6)
{
	if (proto == 17 && rd16(frame + l4 + 6) == 0)
		return !v6; /* no checksum: allowed over IPv4 only (RFC 768, RFC 8200 8.1) */
	return csum_ok(csum_add(pseudo + proto + n, frame + l4, n));
}

static void l4_meta(const uint8_t *frame, uint32_t len, uint32_t l4, uint8_t proto, struct hmeta *m)
{
	uint32_t room = len > l4 ? len - l4 : 0;
	switch (proto) {
	case 6:
		m->l4 = NIC_L4_META_TCP;
		m->l4_ok = room >= 20 && nic_tcp_len_ok(frame + l4, room);
		break;
	case 17:
		m->l4 = NIC_L4_META_UDP;
		m->l4_ok = room >= 8 && nic_udp_len_ok(frame + l4, room);
		if (room >= 8)
			m->dport = rd16(frame + l4 + 2);
		break;
	case 1:
	case 58:
		m->l4 = NIC_L4_META_ICMP;
		m->l4_ok = room >= 8;
		break;
	case 50:
		m->l4 = NIC_L4_META_ESP;
		m->l4_ok = room >= 8;
		break;
	default:
		return;
	}
	m->l4off = l4;
}

/*
 * The meta of the IP header (type: its ethertype) at l3: the same rules as the outer
 * parse above (nic_parse_general), plus, when csum, the checksum verdicts. An L4
 * checksum is verified only for TCP and UDP of an unfragmented packet that the frame
 * holds whole (IPv4 total length, IPv6 payload length without extension headers).
 */
static void l3_meta(const uint8_t *frame, uint32_t len, uint32_t l3, uint16_t type, bool csum, struct hmeta *m)
{
	const uint8_t *p = frame + l3;
	uint32_t room = len > l3 ? len - l3 : 0;
	if (type == 0x0800) {
		m->l3 = NIC_L3_META_IPV4;
		uint32_t ihl = room ? (uint32_t)(p[0] & 0xf) * 4 : 0;
		if (room < 20 || (p[0] >> 4) != 4 || ihl < 20 || room < ihl)
			return;
		m->l3_ok = nic_ip4_len_ok(p, ihl, room);
		if (csum)
			m->ip4_csum_ok = csum_ok(csum_add(0, p, ihl));
		uint16_t frag = rd16(p + 6);
		m->frag = (frag & 0x3fff) != 0;
		if (frag & 0x1fff)
			return; /* not the first fragment: no L4 header here */
		m->nproto = p[9];
		m->l3end = l3 + ihl;
		l4_meta(frame, len, l3 + ihl, p[9], m);
		uint32_t tot = rd16(p + 2);
		if (csum && m->l4_ok && !m->frag && (m->l4 == NIC_L4_META_TCP || m->l4 == NIC_L4_META_UDP) &&
		    tot >= ihl + (m->l4 == NIC_L4_META_TCP ? 20u : 8u) && tot <= room)
			m->l4_csum_ok = l4_csum_ok(frame, l3 + ihl, tot - ihl, p[9], csum_add(0, p + 12, 8), false);
	} else if (type == 0x86dd) {
		m->l3 = NIC_L3_META_IPV6;
		if (room < 40 || (p[0] >> 4) != 6)
			return;
		m->l3_ok = nic_ip6_len_ok(p, room);
		m->nproto = p[6];
		m->l3end = l3 + 40;
		l4_meta(frame, len, l3 + 40, p[6], m);
		uint32_t pl = rd16(p + 4);
		if (csum && m->l4_ok && (m->l4 == NIC_L4_META_TCP || m->l4 == NIC_L4_META_UDP) &&
		    pl >= (m->l4 == NIC_L4_META_TCP ? 20u : 8u) && 40 + pl <= room)
			m->l4_csum_ok = l4_csum_ok(frame, l3 + 40, pl, p[6], csum_add(0, p + 8, 32), true);
	}
}

/* The meta of the frame whose Ethernet header is at l2. */
static void hdr_meta(const uint8_t *frame, uint32_t len, uint32_t l2, bool csum, struct hmeta *m)
{
	memset(m, 0, sizeof(*m));
	if (len < l2 + 14)
		return;
	uint32_t l3 = l2 + 14;
	uint16_t type = rd16(frame + l2 + 12);
	if (type == 0x8100 || type == 0x88a8) {
		m->l2 = NIC_L2_META_SINGLE_VLAN;
		if (len < l3 + 4)
			return;
		type = rd16(frame + l3 + 2);
		l3 += 4;
		if (type == 0x8100 || type == 0x88a8) {
			m->l2 = NIC_L2_META_MULTI_VLAN;
			return;
		}
	}
	l3_meta(frame, len, l3, type, csum, m);
}

#define VXLAN_PORT 4789
#define VXLAN_HDR 8

static __attribute__((noinline)) void parse_extras(const uint8_t *frame, uint32_t len, struct nic_key *key,
						   uint32_t x)
{
	uint8_t *k = key->b;
	if (x & NIC_PX_RANDOM) {
		uint16_t r = next_random();
		k[NIC_K_RANDOM] = (uint8_t)(r >> 8);
		k[NIC_K_RANDOM + 1] = (uint8_t)r;
	}
	if (!(x & (NIC_PX_INNER | NIC_PX_CSUM)))
		return;
	bool csum = x & NIC_PX_CSUM;
	struct hmeta o, in;
	hdr_meta(frame, len, 0, csum, &o);
	uint32_t bits = (uint32_t)o.ip4_csum_ok << NIC_XB_OUTER_IP4_CSUM_OK | (uint32_t)o.l4_csum_ok << NIC_XB_OUTER_L4_CSUM_OK;
	bool inner = false;
	if ((x & NIC_PX_INNER) && o.l4 == NIC_L4_META_UDP && o.l4_ok && o.dport == VXLAN_PORT) {
		hdr_meta(frame, len, o.l4off + 8 + VXLAN_HDR, csum, &in);
		inner = len >= o.l4off + 8 + VXLAN_HDR + 14;
	} else if ((x & NIC_PX_INNER) && o.l3end && (o.nproto == 4 || o.nproto == 41)) {
		/* IP in IP (IPv4 protocol / IPv6 next header 4 or 41): the inner packet has no
		 * Ethernet header; its L2 type stays none. */
		memset(&in, 0, sizeof(in));
		l3_meta(frame, len, o.l3end, o.nproto == 4 ? 0x0800 : 0x86dd, csum, &in);
		inner = true;
	}
	if (inner) {
		k[NIC_K_INNER_L2_META] = in.l2;
		k[NIC_K_INNER_L3_META] = in.l3;
		k[NIC_K_INNER_L4_META] = in.l4;
		bits |= (uint32_t)in.frag << NIC_XB_INNER_FRAG | (uint32_t)in.l3_ok << NIC_XB_INNER_L3_OK |
			(uint32_t)in.ip4_csum_ok << NIC_XB_INNER_IP4_CSUM_OK | (uint32_t)in.l4_ok << NIC_XB_INNER_L4_OK |
			(uint32_t)in.l4_csum_ok << NIC_XB_INNER_L4_CSUM_OK;
	}
	k[NIC_K_XBITS] = (uint8_t)bits;
}

bool nic_parse_general(const uint8_t *frame, uint32_t len, uint16_t port_id, struct nic_key *key,
		       struct nic_hdr_off *off)
{
	if (!parse_outer(frame, len, port_id, key, off))
		return false;
	uint32_t x = atomic_load_explicit(&nic_parse_extras, memory_order_relaxed);
	if (NIC_UNLIKELY(x))
		parse_extras(frame, len, key, x);
	return true;
}

void nic_parse_extras_note(const struct nic_key *mask)
{
	const uint8_t *m = mask->b;
	uint32_t x = 0;
	if (m[NIC_K_RANDOM] | m[NIC_K_RANDOM + 1])
		x |= NIC_PX_RANDOM;
	if (m[NIC_K_INNER_L2_META] | m[NIC_K_INNER_L3_META] | m[NIC_K_INNER_L4_META] | (m[NIC_K_XBITS] & XB_INNER))
		x |= NIC_PX_INNER;
	if (m[NIC_K_XBITS] & XB_CSUM)
		x |= NIC_PX_CSUM;
	if (x == 0)
		return;
	if (x & NIC_PX_RANDOM) {
		const struct core_config *cfg = core_config_get();
		uint64_t seed;
		if (cfg && cfg->has_random_seed) {
			seed = cfg->random_seed;
		} else {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			seed = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		}
		atomic_store_explicit(&random_seed, seed, memory_order_relaxed);
		atomic_store_explicit(&random_rank, 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&random_gen, 1, memory_order_release);
	}
	atomic_fetch_or_explicit(&nic_parse_extras, x, memory_order_relaxed);
}

uint8_t nic_key_active_words(const struct nic_key *mask, uint8_t words[NIC_KEY_WORDS])
{
	uint8_t n = 0;
	for (uint8_t i = 0; i < NIC_KEY_WORDS; i++)
		if (mask->w[i])
			words[n++] = i;
	return n;
}

uint32_t nic_key_hash(const struct nic_key *key, const struct nic_key *mask)
{
	struct nic_index_layout l;
	nic_index_layout(mask, &l);
	return nic_index_hash(&l, key);
}
