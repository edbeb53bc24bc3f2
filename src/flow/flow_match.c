/*
 * flow_match.c - translation of DOCA Flow match and action templates into the NIC's
 * packet key and rewrite records (docs/flow.md, Pipes and Actions). A table maps every
 * supported leaf field of struct doca_flow_match to its bytes in struct nic_key; a
 * matched byte (of the mask, or of the value when there is no mask) of a field the NIC
 * does not carry is refused with NOT_SUPPORTED, so a program never silently matches less
 * than it asked for. Match semantics with a mask: flow_match_basic, docs/flow.md.
 */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::MATCH);

enum fkind {
	FK_RAW,	  /* bytes copied as they are (network order or u8) */
	FK_ENUM8, /* a 32-bit enum carried as one byte */
	FK_U16,	  /* a host-order u16 */
	FK_BIT,	  /* a 0/1 u8 flag carried as bit fdesc.bit of its key byte */
};

struct fdesc {
	uint16_t doff;
	uint8_t dsize;
	uint8_t koff;
	uint8_t kind;
	uint8_t l3; /* implied parser_meta.outer_l3_type (enum doca_flow_l3_meta), 0 = none */
	uint8_t l4; /* implied parser_meta.outer_l4_type (enum doca_flow_l4_meta), 0 = none */
	const char *name;
	uint8_t bit; /* FK_BIT: enum nic_xbit */
};

#define M(f) offsetof(struct doca_flow_match, f), sizeof(((struct doca_flow_match *)0)->f)

static const struct fdesc f_common[] = {
	{M(meta.pkt_meta), NIC_K_META, FK_RAW, 0, 0, "meta.pkt_meta"},
	{M(meta.u32[0]), NIC_K_META + 4, FK_RAW, 0, 0, "meta.u32[0]"},
	{M(meta.u32[1]), NIC_K_META + 8, FK_RAW, 0, 0, "meta.u32[1]"},
	{M(meta.u32[2]), NIC_K_META + 12, FK_RAW, 0, 0, "meta.u32[2]"},
	{M(meta.u32[3]), NIC_K_META + 16, FK_RAW, 0, 0, "meta.u32[3]"},
	{M(meta.u32[4]), NIC_K_META + 20, FK_RAW, 0, 0, "meta.u32[4]"},
	{M(parser_meta.port_id), NIC_K_PORT, FK_U16, 0, 0, "parser_meta.port_id"},
	{M(parser_meta.outer_l2_type), NIC_K_L2_META, FK_ENUM8, 0, 0, "parser_meta.outer_l2_type"},
	{M(parser_meta.outer_l3_type), NIC_K_L3_META, FK_ENUM8, 0, 0, "parser_meta.outer_l3_type"},
	{M(parser_meta.outer_l4_type), NIC_K_L4_META, FK_ENUM8, 0, 0, "parser_meta.outer_l4_type"},
	{M(parser_meta.outer_ip_fragmented), NIC_K_FRAG, FK_RAW, 0, 0, "parser_meta.outer_ip_fragmented"},
	{M(parser_meta.outer_l3_ok), NIC_K_L3_OK, FK_RAW, 0, 0, "parser_meta.outer_l3_ok"},
	{M(parser_meta.outer_l4_ok), NIC_K_L4_OK, FK_RAW, 0, 0, "parser_meta.outer_l4_ok"},
	{M(parser_meta.random), NIC_K_RANDOM, FK_RAW, 0, 0, "parser_meta.random"},
	{M(parser_meta.inner_l2_type), NIC_K_INNER_L2_META, FK_ENUM8, 0, 0, "parser_meta.inner_l2_type"},
	{M(parser_meta.inner_l3_type), NIC_K_INNER_L3_META, FK_ENUM8, 0, 0, "parser_meta.inner_l3_type"},
	{M(parser_meta.inner_l4_type), NIC_K_INNER_L4_META, FK_ENUM8, 0, 0, "parser_meta.inner_l4_type"},
	{M(parser_meta.outer_ip4_checksum_ok), NIC_K_XBITS, FK_BIT, 0, 0, "parser_meta.outer_ip4_checksum_ok",
	 NIC_XB_OUTER_IP4_CSUM_OK},
	{M(parser_meta.outer_l4_checksum_ok), NIC_K_XBITS, FK_BIT, 0, 0, "parser_meta.outer_l4_checksum_ok",
	 NIC_XB_OUTER_L4_CSUM_OK},
	{M(parser_meta.inner_ip_fragmented), NIC_K_XBITS, FK_BIT, 0, 0, "parser_meta.inner_ip_fragmented",
	 NIC_XB_INNER_FRAG},
	{M(parser_meta.inner_l3_ok), NIC_K_XBITS, FK_BIT, 0, 0, "parser_meta.inner_l3_ok", NIC_XB_INNER_L3_OK},
	{M(parser_meta.inner_ip4_checksum_ok), NIC_K_XBITS, FK_BIT, 0, 0, "parser_meta.inner_ip4_checksum_ok",
	 NIC_XB_INNER_IP4_CSUM_OK},
	{M(parser_meta.inner_l4_ok), NIC_K_XBITS, FK_BIT, 0, 0, "parser_meta.inner_l4_ok", NIC_XB_INNER_L4_OK},
	{M(parser_meta.inner_l4_checksum_ok), NIC_K_XBITS, FK_BIT, 0, 0, "parser_meta.inner_l4_checksum_ok",
	 NIC_XB_INNER_L4_CSUM_OK},
	{M(outer.eth.dst_mac), NIC_K_ETH_DST, FK_RAW, 0, 0, "outer.eth.dst_mac"},
	{M(outer.eth.src_mac), NIC_K_ETH_SRC, FK_RAW, 0, 0, "outer.eth.src_mac"},
	{M(outer.eth.type), NIC_K_ETH_TYPE, FK_RAW, 0, 0, "outer.eth.type"},
	{M(outer.eth_vlan[0].tci), NIC_K_VLAN_TCI, FK_RAW, 0, 0, "outer.eth_vlan[0].tci"},
};

static const struct fdesc f_ip4[] = {
	{M(outer.ip4.src_ip), NIC_K_IP_SRC, FK_RAW, DOCA_FLOW_L3_META_IPV4, 0, "outer.ip4.src_ip"},
	{M(outer.ip4.dst_ip), NIC_K_IP_DST, FK_RAW, DOCA_FLOW_L3_META_IPV4, 0, "outer.ip4.dst_ip"},
	{M(outer.ip4.dscp_ecn), NIC_K_IP_TOS, FK_RAW, DOCA_FLOW_L3_META_IPV4, 0, "outer.ip4.dscp_ecn"},
	{M(outer.ip4.next_proto), NIC_K_IP_PROTO, FK_RAW, DOCA_FLOW_L3_META_IPV4, 0, "outer.ip4.next_proto"},
	{M(outer.ip4.ttl), NIC_K_IP_TTL, FK_RAW, DOCA_FLOW_L3_META_IPV4, 0, "outer.ip4.ttl"},
};

static const struct fdesc f_ip6[] = {
	{M(outer.ip6.src_ip), NIC_K_IP_SRC, FK_RAW, DOCA_FLOW_L3_META_IPV6, 0, "outer.ip6.src_ip"},
	{M(outer.ip6.dst_ip), NIC_K_IP_DST, FK_RAW, DOCA_FLOW_L3_META_IPV6, 0, "outer.ip6.dst_ip"},
	{M(outer.ip6.traffic_class), NIC_K_IP_TOS, FK_RAW, DOCA_FLOW_L3_META_IPV6, 0, "outer.ip6.traffic_class"},
	{M(outer.ip6.flow_label), NIC_K_IP6_FLOW, FK_RAW, DOCA_FLOW_L3_META_IPV6, 0, "outer.ip6.flow_label"},
	{M(outer.ip6.next_proto), NIC_K_IP_PROTO, FK_RAW, DOCA_FLOW_L3_META_IPV6, 0, "outer.ip6.next_proto"},
	{M(outer.ip6.hop_limit), NIC_K_IP_TTL, FK_RAW, DOCA_FLOW_L3_META_IPV6, 0, "outer.ip6.hop_limit"},
};

static const struct fdesc f_tcp[] = {
	{M(outer.tcp.l4_port.src_port), NIC_K_L4_SRC, FK_RAW, 0, DOCA_FLOW_L4_META_TCP, "outer.tcp.l4_port.src_port"},
	{M(outer.tcp.l4_port.dst_port), NIC_K_L4_DST, FK_RAW, 0, DOCA_FLOW_L4_META_TCP, "outer.tcp.l4_port.dst_port"},
	{M(outer.tcp.flags), NIC_K_TCP_FLAGS, FK_RAW, 0, DOCA_FLOW_L4_META_TCP, "outer.tcp.flags"},
};

static const struct fdesc f_udp[] = {
	{M(outer.udp.l4_port.src_port), NIC_K_L4_SRC, FK_RAW, 0, DOCA_FLOW_L4_META_UDP, "outer.udp.l4_port.src_port"},
	{M(outer.udp.l4_port.dst_port), NIC_K_L4_DST, FK_RAW, 0, DOCA_FLOW_L4_META_UDP, "outer.udp.l4_port.dst_port"},
};

static const struct fdesc f_transport[] = {
	{M(outer.transport.src_port), NIC_K_L4_SRC, FK_RAW, 0, 0, "outer.transport.src_port"},
	{M(outer.transport.dst_port), NIC_K_L4_DST, FK_RAW, 0, 0, "outer.transport.dst_port"},
};

static const struct fdesc f_icmp[] = {
	{M(outer.icmp.type), NIC_K_ICMP_TYPE, FK_RAW, 0, DOCA_FLOW_L4_META_ICMP, "outer.icmp.type"},
	{M(outer.icmp.code), NIC_K_ICMP_CODE, FK_RAW, 0, DOCA_FLOW_L4_META_ICMP, "outer.icmp.code"},
	{M(outer.icmp.ident), NIC_K_ICMP_IDENT, FK_RAW, 0, DOCA_FLOW_L4_META_ICMP, "outer.icmp.ident"},
};

/* Selectors: read to choose the union member, never matched on their own. */
static const struct {
	uint16_t off, size;
} f_selectors[] = {
	{M(outer.l2_valid_headers)},
	{M(outer.l3_type)},
	{M(outer.l4_type_ext)},
};

struct ftable {
	const struct fdesc *f;
	size_t n;
};

/* The field groups a match uses, chosen by its union selectors. */
static uint32_t field_groups(const struct doca_flow_match *sel, struct ftable g[4])
{
	uint32_t n = 0;
	g[n++] = (struct ftable){f_common, sizeof(f_common) / sizeof(f_common[0])};
	if (sel && sel->outer.l3_type == DOCA_FLOW_L3_TYPE_IP6)
		g[n++] = (struct ftable){f_ip6, sizeof(f_ip6) / sizeof(f_ip6[0])};
	else
		g[n++] = (struct ftable){f_ip4, sizeof(f_ip4) / sizeof(f_ip4[0])};
	switch (sel ? sel->outer.l4_type_ext : DOCA_FLOW_L4_TYPE_EXT_NONE) {
	case DOCA_FLOW_L4_TYPE_EXT_TCP:
		g[n++] = (struct ftable){f_tcp, sizeof(f_tcp) / sizeof(f_tcp[0])};
		break;
	case DOCA_FLOW_L4_TYPE_EXT_UDP:
		g[n++] = (struct ftable){f_udp, sizeof(f_udp) / sizeof(f_udp[0])};
		break;
	case DOCA_FLOW_L4_TYPE_EXT_ICMP:
	case DOCA_FLOW_L4_TYPE_EXT_ICMP6:
		g[n++] = (struct ftable){f_icmp, sizeof(f_icmp) / sizeof(f_icmp[0])};
		break;
	default:
		g[n++] = (struct ftable){f_transport, sizeof(f_transport) / sizeof(f_transport[0])};
		break;
	}
	return n;
}

/*
 * Bytes of struct doca_flow_match that a field group set (and the selectors) covers,
 * computed once per group set: every add_entry checks its match against one of them.
 */
#define MATCH_WORDS ((sizeof(struct doca_flow_match) + 31) / 32 * 4) /* whole 32-byte vectors */
static uint64_t uncovered[2][4][MATCH_WORDS];
_Static_assert(sizeof(struct doca_flow_match) >= 32, "the scans' last window is a whole vector");
static pthread_once_t uncovered_once = PTHREAD_ONCE_INIT;
typedef bool uncovered_fn(const uint8_t *raw, const uint8_t *mask);
static uncovered_fn *uncovered_any; /* set with uncovered */

/*
 * The coverage scan of every add: whether a byte of the match is set where mask (the
 * uncovered bytes, MATCH_WORDS words) is. Vector extensions, as gcc -O2 leaves a loop
 * of words scalar (that was two thirds of an add's match translation): 16-byte vectors
 * (SSE2 on x86-64, NEON on arm64) in four lanes, or where the CPU has AVX2, 32-byte
 * ones in two, which halves the instructions; uncovered_init picks one.
 */
typedef uint64_t vec2 __attribute__((vector_size(16)));
static inline vec2 masked16(const uint8_t *a, const uint8_t *mask)
{
	vec2 x, m;
	memcpy(&x, a, 16);
	memcpy(&m, mask, 16);
	return x & m;
}

static bool uncovered_any_v128(const uint8_t *raw, const uint8_t *mask)
{
	vec2 b0 = {0, 0}, b1 = b0, b2 = b0, b3 = b0;
	size_t off = 0;
	for (; off + 64 <= sizeof(struct doca_flow_match); off += 64) {
		b0 |= masked16(raw + off, mask + off);
		b1 |= masked16(raw + off + 16, mask + off + 16);
		b2 |= masked16(raw + off + 32, mask + off + 32);
		b3 |= masked16(raw + off + 48, mask + off + 48);
	}
	for (; off + 16 <= sizeof(struct doca_flow_match); off += 16)
		b0 |= masked16(raw + off, mask + off);
	if (off < sizeof(struct doca_flow_match)) /* the last 16 bytes again: some seen twice */
		b1 |= masked16(raw + sizeof(struct doca_flow_match) - 16, mask + sizeof(struct doca_flow_match) - 16);
	vec2 any = b0 | b1 | b2 | b3;
	return (any[0] | any[1]) != 0;
}

#if defined(__x86_64__)
#define TARGET_AVX2 __attribute__((target("avx2")))
typedef uint64_t vec4 __attribute__((vector_size(32)));
TARGET_AVX2 static inline vec4 masked32(const uint8_t *a, const uint8_t *mask)
{
	vec4 x, m;
	memcpy(&x, a, 32);
	memcpy(&m, mask, 32);
	return x & m;
}

TARGET_AVX2 static bool uncovered_any_v256(const uint8_t *raw, const uint8_t *mask)
{
	vec4 b0 = {0, 0, 0, 0}, b1 = b0;
	size_t off = 0;
#pragma GCC unroll 8
	for (; off + 64 <= sizeof(struct doca_flow_match); off += 64) {
		b0 |= masked32(raw + off, mask + off);
		b1 |= masked32(raw + off + 32, mask + off + 32);
	}
	for (; off + 32 <= sizeof(struct doca_flow_match); off += 32)
		b0 |= masked32(raw + off, mask + off);
	if (off < sizeof(struct doca_flow_match)) /* the last 32 bytes again: some seen twice */
		b1 |= masked32(raw + sizeof(struct doca_flow_match) - 32, mask + sizeof(struct doca_flow_match) - 32);
	vec4 any = b0 | b1;
	return (any[0] | any[1] | any[2] | any[3]) != 0;
}
#endif

unsigned flow_match_simd_bits(void)
{
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx2"))
		return 256;
#endif
	return 128;
}

/* The scan with vectors of bits (256: only where flow_match_simd_bits says so). */
static uncovered_fn *uncovered_scan(unsigned bits)
{
#if defined(__x86_64__)
	if (bits == 256)
		return uncovered_any_v256;
#endif
	(void)bits;
	return uncovered_any_v128;
}

bool flow_match_uncovered_any(const void *match, const void *mask, unsigned bits)
{
	return uncovered_scan(bits)(match, mask);
}

/* g: the three groups field_groups set (common, L3, L4). */
static uint32_t group_key(const struct ftable *g, uint32_t *v6)
{
	*v6 = g[1].f == f_ip6;
	return g[2].f == f_tcp ? 1 : g[2].f == f_udp ? 2 : g[2].f == f_icmp ? 3 : 0;
}

static void uncovered_init(void)
{
	uncovered_any = uncovered_scan(flow_match_simd_bits());
	static const struct ftable l3s[2] = {{f_ip4, sizeof(f_ip4) / sizeof(f_ip4[0])},
					     {f_ip6, sizeof(f_ip6) / sizeof(f_ip6[0])}};
	static const struct ftable l4s[4] = {{f_transport, sizeof(f_transport) / sizeof(f_transport[0])},
					     {f_tcp, sizeof(f_tcp) / sizeof(f_tcp[0])},
					     {f_udp, sizeof(f_udp) / sizeof(f_udp[0])},
					     {f_icmp, sizeof(f_icmp) / sizeof(f_icmp[0])}};
	for (int v6 = 0; v6 < 2; v6++) {
		for (int l4 = 0; l4 < 4; l4++) {
			uint8_t cov[MATCH_WORDS * 8];
			memset(cov, 0xff, sizeof(cov));
			memset(cov, 0, sizeof(struct doca_flow_match));
			const struct ftable g[3] = {{f_common, sizeof(f_common) / sizeof(f_common[0])}, l3s[v6], l4s[l4]};
			for (int i = 0; i < 3; i++)
				for (size_t j = 0; j < g[i].n; j++)
					memset(cov + g[i].f[j].doff, 0xff, g[i].f[j].dsize);
			for (size_t i = 0; i < sizeof(f_selectors) / sizeof(f_selectors[0]); i++)
				memset(cov + f_selectors[i].off, 0xff, f_selectors[i].size);
			for (size_t w = 0; w < MATCH_WORDS; w++) {
				uint64_t c;
				memcpy(&c, cov + 8 * w, 8);
				uncovered[v6][l4][w] = ~c;
			}
		}
	}
}

/* Fields of the meta areas that the NIC does not carry, named in the refusal. */
static const struct {
	uint16_t off, size;
	const char *name;
} f_unsupported[] = {
	{M(parser_meta.ipsec_syndrome), "parser_meta.ipsec_syndrome"},
	{M(parser_meta.ipsec_ar_syndrome), "parser_meta.ipsec_ar_syndrome"},
	{M(parser_meta.psp_syndrome), "parser_meta.psp_syndrome"},
	{M(parser_meta.meter_color), "parser_meta.meter_color"},
	{offsetof(struct doca_flow_match, meta.u32[NIC_META_SCRATCH]),
	 sizeof(((struct doca_flow_match *)0)->meta.u32[0]) * (DOCA_FLOW_META_SCRATCH_PAD_MAX - NIC_META_SCRATCH),
	 "meta.u32[5..]"},
};

static const char *unsupported_name(size_t byte)
{
	for (size_t i = 0; i < sizeof(f_unsupported) / sizeof(f_unsupported[0]); i++)
		if (byte >= f_unsupported[i].off && byte < f_unsupported[i].off + f_unsupported[i].size)
			return f_unsupported[i].name;
	return NULL;
}

/* NOT_SUPPORTED when m has a non-zero byte outside the fields of g and the selectors. */
static doca_error_t check_covered(const struct doca_flow_match *m, const struct ftable *g, const char *who)
{
	pthread_once(&uncovered_once, uncovered_init);
	uint32_t v6, l4 = group_key(g, &v6);
	const uint64_t *unc = uncovered[v6][l4];
	uint8_t buf[MATCH_WORDS * 8] = {0};
	memcpy(buf, m, sizeof(*m));
	for (size_t w = 0; w < MATCH_WORDS; w++) {
		uint64_t x;
		memcpy(&x, buf + 8 * w, 8);
		if (__builtin_expect((x & unc[w]) == 0, 1))
			continue;
		for (size_t i = 8 * w; i < 8 * w + 8; i++) {
			if (!buf[i] || !((const uint8_t *)unc)[i])
				continue;
			const char *area = i >= offsetof(struct doca_flow_match, inner) ? "inner"
					   : i >= offsetof(struct doca_flow_match, tun) ? "tun"
					   : i >= offsetof(struct doca_flow_match, outer) ? "outer"
					   : i >= offsetof(struct doca_flow_match, parser_meta) ? "parser_meta"
											    : "meta";
			const char *name = unsupported_name(i);
			if (name)
				CORE_LOG_ERR("%s: match field '%s' is not supported by the software NIC", who, name);
			else
				CORE_LOG_ERR("%s: match field at byte %zu (in '%s') is not supported by the software NIC",
					     who, i, area);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
	}
	return DOCA_SUCCESS;
}

static bool all_ones(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xff)
			return false;
	return true;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* The key bytes of field f of m (as a value) and their width. */
static uint32_t to_key(const struct fdesc *f, const struct doca_flow_match *m, uint8_t out[16])
{
	const uint8_t *src = (const uint8_t *)m + f->doff;
	if (f->kind == FK_ENUM8) {
		uint32_t v;
		memcpy(&v, src, 4);
		out[0] = (uint8_t)v;
		return 1;
	}
	if (f->kind == FK_BIT) {
		out[0] = (uint8_t)((src[0] & 1u) << f->bit);
		return 1;
	}
	memcpy(out, src, f->dsize);
	return f->dsize;
}

/* The key mask of a field matched whole: every byte, or its bit. */
static uint32_t full_mask(const struct fdesc *f, uint8_t out[16])
{
	uint32_t n = f->kind == FK_ENUM8 || f->kind == FK_BIT ? 1 : f->dsize;
	memset(out, 0xff, n);
	if (f->kind == FK_BIT)
		out[0] = (uint8_t)(1u << f->bit);
	return n;
}

/* Mask bytes of field f: the mask's own bits; an enum's or a flag's non-zero mask is
 * the whole key byte (or bit). */
static uint32_t to_key_mask(const struct fdesc *f, const struct doca_flow_match *mask, uint8_t out[16])
{
	if (f->kind == FK_ENUM8 || f->kind == FK_BIT) {
		uint32_t n = full_mask(f, out);
		if (all_zero((const uint8_t *)mask + f->doff, f->dsize))
			out[0] = 0;
		return n;
	}
	return to_key(f, mask, out);
}

/* Store field f's key bytes; flags share a byte, so theirs are or'ed in. */
static void set_field(struct nic_key *k, const struct fdesc *f, const uint8_t *v, uint32_t n)
{
	if (f->kind == FK_BIT)
		k->b[f->koff] |= v[0];
	else
		memcpy(k->b + f->koff, v, n);
}

static void implied(const struct fdesc *f, struct nic_key *cm, struct nic_key *cv)
{
	if (f->l3) {
		cm->b[NIC_K_L3_META] = 0xff;
		cv->b[NIC_K_L3_META] = f->l3;
	}
	if (f->l4) {
		cm->b[NIC_K_L4_META] = 0xff;
		cv->b[NIC_K_L4_META] = f->l4;
	}
}

/*
 * A pipe's match template. Without a mask: a zero field is not matched, an all-ones one
 * is changeable (each entry gives its value), any other value is a constant. With a
 * mask, only the mask says which fields are matched (the check for unsupported fields
 * reads the mask alone: a value under a zero mask is ignored); a matched field whose
 * pipe value is 0 or all ones is changeable under the mask, any other value a constant
 * under the mask (docs/flow.md, "Match semantics": flow_set_meta relies on 0 being
 * changeable).
 */
doca_error_t flow_match_basic(const struct doca_flow_match *match, const struct doca_flow_match *mask,
			      struct nic_pipe_attr *attr, const char *who)
{
	static const struct doca_flow_match zero;
	const struct doca_flow_match *m = match ? match : &zero;
	struct ftable g[4];
	uint32_t ng = field_groups(mask ? mask : m, g);
	if (mask && m->outer.l3_type)
		ng = field_groups(m, g);
	doca_error_t err = check_covered(mask ? mask : m, g, who);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < ng; i++) {
		for (size_t j = 0; j < g[i].n; j++) {
			const struct fdesc *f = &g[i].f[j];
			const uint8_t *raw = (const uint8_t *)m + f->doff;
			uint8_t v[16], mk[16];
			uint32_t n = to_key(f, m, v);
			bool chg = all_ones(raw, f->dsize);
			if (mask) {
				to_key_mask(f, mask, mk);
				if (all_zero(mk, n))
					continue;
				chg = chg || all_zero(raw, f->dsize);
			} else {
				if (all_zero(raw, f->dsize))
					continue;
				full_mask(f, mk);
			}
			if (chg) {
				set_field(&attr->entry_mask, f, mk, n);
			} else {
				set_field(&attr->const_mask, f, mk, n);
				for (uint32_t b = 0; b < n; b++)
					v[b] &= mk[b];
				set_field(&attr->const_val, f, v, n);
			}
			implied(f, &attr->const_mask, &attr->const_val);
		}
	}
	nic_parse_extras_note(&attr->entry_mask);
	nic_parse_extras_note(&attr->const_mask);
	return DOCA_SUCCESS;
}

doca_error_t flow_match_hash(const struct doca_flow_match *mask, struct nic_pipe_attr *attr, const char *who)
{
	if (mask == NULL)
		return DOCA_SUCCESS;
	struct ftable g[4];
	uint32_t ng = field_groups(mask, g);
	doca_error_t err = check_covered(mask, g, who);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < ng; i++) {
		for (size_t j = 0; j < g[i].n; j++) {
			const struct fdesc *f = &g[i].f[j];
			uint8_t mk[16];
			uint32_t n = to_key_mask(f, mask, mk);
			if (all_zero(mk, n))
				continue;
			set_field(&attr->entry_mask, f, mk, n);
			implied(f, &attr->const_mask, &attr->const_val);
		}
	}
	nic_parse_extras_note(&attr->entry_mask);
	return DOCA_SUCCESS;
}

doca_error_t flow_match_value(const struct doca_flow_match *match, struct nic_key *key, const char *who)
{
	memset(key, 0, sizeof(*key));
	if (match == NULL)
		return DOCA_SUCCESS;
	struct ftable g[4];
	uint32_t ng = field_groups(match, g);
	doca_error_t err = check_covered(match, g, who);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < ng; i++)
		for (size_t j = 0; j < g[i].n; j++) {
			const struct fdesc *f = &g[i].f[j];
			uint8_t v[16];
			/* The key starts zeroed: most of an entry's fields are 0 (entry add rate). */
			if (all_zero((const uint8_t *)match + f->doff, f->dsize))
				continue;
			uint32_t n = to_key(f, match, v);
			set_field(key, f, v, n);
		}
	/* The selectors give the packet's header types, as the parser would (an l3_type is
	 * its L3 meta value: flow_nic_contract.c). */
	if (match->outer.l3_type == DOCA_FLOW_L3_TYPE_IP4 || match->outer.l3_type == DOCA_FLOW_L3_TYPE_IP6)
		key->b[NIC_K_L3_META] = (uint8_t)match->outer.l3_type;
	return DOCA_SUCCESS;
}

doca_error_t flow_match_control(const struct doca_flow_match *match, const struct doca_flow_match *mask,
				struct nic_key *val, struct nic_key *msk, const char *who)
{
	static const struct doca_flow_match zero;
	const struct doca_flow_match *m = match ? match : &zero;
	memset(val, 0, sizeof(*val));
	memset(msk, 0, sizeof(*msk));
	struct ftable g[4];
	uint32_t ng = field_groups(m->outer.l3_type || !mask ? m : mask, g);
	doca_error_t err = check_covered(mask ? mask : m, g, who);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < ng; i++) {
		for (size_t j = 0; j < g[i].n; j++) {
			const struct fdesc *f = &g[i].f[j];
			uint8_t v[16], mk[16];
			uint32_t n = to_key(f, m, v);
			if (mask) {
				to_key_mask(f, mask, mk);
				if (all_zero(mk, n))
					continue;
			} else {
				if (all_zero(v, n))
					continue;
				full_mask(f, mk);
			}
			for (uint32_t b = 0; b < n; b++)
				v[b] &= mk[b];
			set_field(msk, f, mk, n);
			set_field(val, f, v, n);
			implied(f, msk, val);
		}
	}
	nic_parse_extras_note(msk);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ actions */

struct adesc {
	uint16_t doff;
	uint8_t dsize;
	int8_t af;
	uint8_t l3; /* 1 = IPv4 variant, 2 = IPv6 variant, 0 = both */
};

#define A(f) offsetof(struct doca_flow_actions, f), sizeof(((struct doca_flow_actions *)0)->f)

static const struct adesc a_fields[] = {
	{A(outer.eth.src_mac), NIC_AF_ETH_SRC, 0},
	{A(outer.eth.dst_mac), NIC_AF_ETH_DST, 0},
	{A(outer.ip4.src_ip), NIC_AF_IP4_SRC, 1},
	{A(outer.ip4.dst_ip), NIC_AF_IP4_DST, 1},
	{A(outer.ip4.ttl), NIC_AF_IP_TTL, 1},
	{A(outer.ip6.src_ip), NIC_AF_IP6_SRC, 2},
	{A(outer.ip6.dst_ip), NIC_AF_IP6_DST, 2},
	{A(outer.ip6.hop_limit), NIC_AF_IP_TTL, 2},
	{A(outer.transport.src_port), NIC_AF_L4_SRC, 0},
	{A(outer.transport.dst_port), NIC_AF_L4_DST, 0},
	{A(meta.pkt_meta), NIC_AF_META, 0},
	{A(meta.u32[0]), NIC_AF_META + 1, 0},
	{A(meta.u32[1]), NIC_AF_META + 2, 0},
	{A(meta.u32[2]), NIC_AF_META + 3, 0},
	{A(meta.u32[3]), NIC_AF_META + 4, 0},
	{A(meta.u32[4]), NIC_AF_META + 5, 0},
};

_Static_assert(sizeof(a_fields) / sizeof(a_fields[0]) <= FLOW_ACT_ROWS, "FLOW_ACT_ROWS is too small");

static bool a_used(const struct adesc *d, const struct doca_flow_actions *sel)
{
	bool v6 = sel && sel->outer.l3_type == DOCA_FLOW_L3_TYPE_IP6;
	return d->l3 == 0 || (d->l3 == 2) == v6;
}

/* Where each rewrite field's value lives in struct nic_actions (meta words follow). */
static const struct {
	uint16_t off;
	uint8_t len;
} a_slot[NIC_AF_META] = {
	[NIC_AF_ETH_SRC] = {offsetof(struct nic_actions, eth_src), 6},
	[NIC_AF_ETH_DST] = {offsetof(struct nic_actions, eth_dst), 6},
	[NIC_AF_IP4_SRC] = {offsetof(struct nic_actions, ip4_src), 4},
	[NIC_AF_IP4_DST] = {offsetof(struct nic_actions, ip4_dst), 4},
	[NIC_AF_IP_TTL] = {offsetof(struct nic_actions, ttl), 1},
	[NIC_AF_IP6_SRC] = {offsetof(struct nic_actions, ip6_src), 16},
	[NIC_AF_IP6_DST] = {offsetof(struct nic_actions, ip6_dst), 16},
	[NIC_AF_L4_SRC] = {offsetof(struct nic_actions, l4_src), 2},
	[NIC_AF_L4_DST] = {offsetof(struct nic_actions, l4_dst), 2},
};

/* Copies of the field sizes there are, each of a constant size: a copy of a length
 * read from the table was a call to memcpy, 18 instructions an add (callgrind). */
static inline void a_store(struct nic_actions *na, int af, const uint8_t *src)
{
	uint8_t *dst = af < NIC_AF_META ? (uint8_t *)na + a_slot[af].off : (uint8_t *)&na->meta[af - NIC_AF_META];
	const uint32_t len = af < NIC_AF_META ? a_slot[af].len : 4;
	switch (len) {
	case 1:
		*dst = *src;
		break;
	case 2:
		memcpy(dst, src, 2);
		break;
	case 4:
		memcpy(dst, src, 4);
		break;
	case 6:
		memcpy(dst, src, 6);
		break;
	default:
		assert(len == 16 && "a_slot holds fields of 1, 2, 4, 6 and 16 bytes only");
		memcpy(dst, src, 16);
		break;
	}
	na->fields |= 1u << af;
}

/* A field of 1, 2 or 4 bytes in network order, as a number (a path-selector value). */
static inline uint32_t be_value(const uint8_t *v, uint32_t size)
{
	uint32_t x = 0;
	for (uint32_t b = 0; b < size; b++)
		x = x << 8 | v[b];
	return x;
}

doca_error_t flow_actions_template(const struct doca_flow_actions *a, const struct doca_flow_actions *mask,
				   struct flow_act_tmpl *t, const char *who)
{
	memset(t, 0, sizeof(*t));
	t->single_chg = -1;
	if (a == NULL)
		return DOCA_SUCCESS;
	t->v6 = a->outer.l3_type == DOCA_FLOW_L3_TYPE_IP6;
	uint8_t covered[sizeof(struct doca_flow_actions)] = {0};
	for (size_t i = 0; i < sizeof(a_fields) / sizeof(a_fields[0]); i++)
		if (a_used(&a_fields[i], a))
			memset(covered + a_fields[i].doff, 1, a_fields[i].dsize);
	memset(covered + offsetof(struct doca_flow_actions, outer.l3_type), 1, sizeof(a->outer.l3_type));
	memset(covered + offsetof(struct doca_flow_actions, outer.l4_type_ext), 1, sizeof(a->outer.l4_type_ext));
	memset(covered + offsetof(struct doca_flow_actions, outer.l2_valid_headers), 1,
	       sizeof(a->outer.l2_valid_headers));
	for (int pass = 0; pass < 2; pass++) {
		const uint8_t *b = (const uint8_t *)(pass ? mask : a);
		if (b == NULL)
			continue;
		for (size_t i = 0; i < sizeof(*a); i++)
			if (b[i] && !covered[i]) {
				CORE_LOG_ERR("%s: action at byte %zu of doca_flow_actions is not supported by the software "
					     "NIC (supported: eth addresses, IPv4/IPv6 addresses and TTL, L4 ports, meta)",
					     who, i);
				return DOCA_ERROR_NOT_SUPPORTED;
			}
	}
	for (size_t i = 0; i < sizeof(a_fields) / sizeof(a_fields[0]); i++) {
		const struct adesc *d = &a_fields[i];
		if (!a_used(d, a))
			continue;
		const uint8_t *v = (const uint8_t *)a + d->doff;
		bool masked = mask && !all_zero((const uint8_t *)mask + d->doff, d->dsize);
		if (all_ones(v, d->dsize) || (masked && all_zero(v, d->dsize))) {
			t->chg_fields |= 1u << d->af;
			t->chg_rows[t->nr_chg++] = (uint8_t)i;
			t->single_chg = d->af;
		} else if (!all_zero(v, d->dsize)) {
			a_store(&t->fixed, d->af, v);
		}
	}
	if (t->nr_chg != 1)
		t->single_chg = -1;
	return DOCA_SUCCESS;
}

void flow_actions_entry(const struct flow_act_tmpl *t, const struct doca_flow_actions *a, int ps_field,
			struct nic_actions *out, uint32_t *ps_value)
{
	static const struct doca_flow_actions zero;
	const struct doca_flow_actions *src = a ? a : &zero;
	*out = t->fixed;
	*ps_value = 0;
	/* Only the template's changeable fields, already of its IPv4/IPv6 variant. */
	for (int i = 0; i < t->nr_chg; i++) {
		const struct adesc *d = &a_fields[t->chg_rows[i]];
		const uint8_t *v = (const uint8_t *)src + d->doff;
		if (d->af == ps_field) {
			*ps_value = d->dsize == 2 ? be_value(v, 2) : be_value(v, d->dsize);
			continue;
		}
		a_store(out, d->af, v);
	}
}

/* ------------------------------------------------------------------ compiled entry match */

/*
 * A BASIC entry's key is only read under its pipe's entry mask (nic_entry_add), so the
 * pipe keeps, for each selector combination an entry may use, the list of field copies
 * whose key bytes meet that mask: an add runs that list instead of walking every field
 * of struct doca_flow_match (it was a third of the insertion cost). The key it gives
 * equals flow_match_value's under the mask; coverage is checked with one pass of
 * 64-bit words, and the word-by-word check that names the byte runs only on a refusal.
 */
static bool key_meets(const struct nic_key *mask, uint32_t off, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (mask->b[off + i])
			return true;
	return false;
}

void flow_match_compile(const struct nic_key *entry_mask, struct flow_match_prog *prog)
{
	static const struct doca_flow_match sel[2][4] = {
		{{.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4},
		 {.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4, .outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_TCP},
		 {.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4, .outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP},
		 {.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4, .outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_ICMP}},
		{{.outer.l3_type = DOCA_FLOW_L3_TYPE_IP6},
		 {.outer.l3_type = DOCA_FLOW_L3_TYPE_IP6, .outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_TCP},
		 {.outer.l3_type = DOCA_FLOW_L3_TYPE_IP6, .outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP},
		 {.outer.l3_type = DOCA_FLOW_L3_TYPE_IP6, .outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_ICMP}},
	};
	pthread_once(&uncovered_once, uncovered_init); /* read without it by flow_match_entry */
	memset(prog, 0, sizeof(*prog));
	for (int v6 = 0; v6 < 2; v6++) {
		for (int l4 = 0; l4 < 4; l4++) {
			struct ftable g[4];
			uint32_t ng = field_groups(&sel[v6][l4], g), n = 0;
			for (uint32_t i = 0; i < ng; i++) {
				for (size_t j = 0; j < g[i].n; j++) {
					const struct fdesc *f = &g[i].f[j];
					uint32_t len = f->kind == FK_ENUM8 || f->kind == FK_BIT ? 1 : f->dsize;
					if (f->kind == FK_BIT ? !(entry_mask->b[f->koff] & (1u << f->bit))
							      : !key_meets(entry_mask, f->koff, len))
						continue;
					assert(n < FLOW_MATCH_MAX_COPIES);
					prog->c[v6][l4][n++] = (struct flow_match_copy){
						.doff = f->doff, .koff = f->koff, .len = (uint8_t)len,
						.enum8 = f->kind == FK_ENUM8,
						.bit = f->kind == FK_BIT ? (uint8_t)(f->bit + 1) : 0};
				}
			}
			prog->n[v6][l4] = (uint8_t)n;
		}
	}
	prog->l3_sel = key_meets(entry_mask, NIC_K_L3_META, 1);
}

doca_error_t flow_match_entry(const struct flow_match_prog *prog, const struct doca_flow_match *match,
			      struct nic_key *key, const char *who)
{
	static const struct nic_key zero;
	*key = zero; /* a copy: memset compiled to a slow rep stos here */
	if (match == NULL)
		return DOCA_SUCCESS;
	uint32_t v6 = match->outer.l3_type == DOCA_FLOW_L3_TYPE_IP6, l4;
	switch (match->outer.l4_type_ext) {
	case DOCA_FLOW_L4_TYPE_EXT_TCP:
		l4 = 1;
		break;
	case DOCA_FLOW_L4_TYPE_EXT_UDP:
		l4 = 2;
		break;
	case DOCA_FLOW_L4_TYPE_EXT_ICMP:
	case DOCA_FLOW_L4_TYPE_EXT_ICMP6:
		l4 = 3;
		break;
	default:
		l4 = 0;
		break;
	}
	const uint64_t *unc = uncovered[v6][l4];
	const uint8_t *raw = (const uint8_t *)match;
	/* Every byte the pipe's fields do not cover must be zero. */
	if (__builtin_expect(uncovered_any(raw, (const uint8_t *)unc), 0)) {
		struct ftable g[4];
		field_groups(match, g);
		return check_covered(match, g, who); /* names the byte */
	}
	const struct flow_match_copy *c = prog->c[v6][l4];
	for (uint32_t i = 0; i < prog->n[v6][l4]; i++) {
		if (c[i].enum8) {
			uint32_t v;
			memcpy(&v, raw + c[i].doff, 4);
			key->b[c[i].koff] = (uint8_t)v;
		} else if (c[i].bit) {
			key->b[c[i].koff] |= (uint8_t)((raw[c[i].doff] & 1u) << (c[i].bit - 1));
		} else {
			memcpy(key->b + c[i].koff, raw + c[i].doff, c[i].len);
		}
	}
	if (prog->l3_sel &&
	    (match->outer.l3_type == DOCA_FLOW_L3_TYPE_IP4 || match->outer.l3_type == DOCA_FLOW_L3_TYPE_IP6))
		key->b[NIC_K_L3_META] = (uint8_t)match->outer.l3_type;
	return DOCA_SUCCESS;
}
