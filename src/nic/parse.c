/*
 * parse.c - the NIC's packet parser: Ethernet, one VLAN tag, IPv4, IPv6, TCP, UDP, ICMP
 * (outer headers only), parsed once per packet into the fixed struct nic_key that every
 * pipe matches and hashes on.
 */
#include <string.h>

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

	switch (proto) {
	case 6: /* TCP */
		k[NIC_K_L4_META] = NIC_L4_META_TCP;
		if (room < 20)
			return;
		memcpy(k + NIC_K_L4_SRC, p, 4);
		k[NIC_K_TCP_FLAGS] = p[13];
		break;
	case 17: /* UDP */
		k[NIC_K_L4_META] = NIC_L4_META_UDP;
		if (room < 8)
			return;
		memcpy(k + NIC_K_L4_SRC, p, 4);
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
	k[NIC_K_L4_OK] = 1;
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

bool nic_parse_general(const uint8_t *frame, uint32_t len, uint16_t port_id, struct nic_key *key,
		       struct nic_hdr_off *off)
{
	uint8_t *k = key->b;
	uint32_t l3;
	uint16_t type;

	/* Straight-line word stores: a 96-byte memset (or a loop GCC turns into one) becomes
	 * a slow-starting `rep stos`, and the key is cleared for every packet. */
	_Static_assert(NIC_KEY_WORDS == 12, "unrolled below");
	uint64_t *w = key->w;
	w[0] = 0, w[1] = 0, w[2] = 0, w[3] = 0, w[4] = 0, w[5] = 0;
	w[6] = 0, w[7] = 0, w[8] = 0, w[9] = 0, w[10] = 0, w[11] = 0;
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
		k[NIC_K_L3_OK] = 1;
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
		k[NIC_K_L3_OK] = 1;
		if (off) {
			off->l3 = (uint16_t)l3;
			off->l3_type = NIC_L3_META_IPV6;
		}
		parse_l4(frame, len, l3 + 40, p[6], key, off);
	}
	return true;
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
	uint8_t words[NIC_KEY_WORDS];
	uint8_t n = nic_key_active_words(mask, words);
	return nic_hash_words(key, mask, words, n);
}
