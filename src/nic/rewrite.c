/*
 * rewrite.c - the general header rewrites of entry actions (MAC, IPv4/IPv6 addresses,
 * TTL, L4 ports, meta) with their checksum updates; the datapath takes the inline L4-only
 * path of dp_rewrite.h for the common case.
 */
#include <string.h>

#include "dp_rewrite.h"

/* Rewrite bytes of an address that the pseudo-header covers (IPv4/IPv6 src/dst). */
static void rewrite_addr(struct nic_pkt *p, uint32_t pkt_off, uint32_t key_off, const uint8_t *val, uint32_t n, bool v4)
{
	uint8_t *f = p->data + pkt_off;
	bool udp = false;
	uint8_t *l4c = nic_dp_l4_csum(p, &udp);
	if (v4)
		nic_dp_csum_update(p->data + p->off.l3 + 10, f, val, n / 2, false);
	if (l4c)
		nic_dp_csum_update(l4c, f, val, n / 2, udp);
	memcpy(f, val, n);
	memcpy(p->key.b + key_off, val, n);
}

void nic_dp_apply_actions(struct nic_pkt *p, const struct nic_actions *a, uint32_t set, int ps_field, uint32_t ps)
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
			nic_dp_csum_update(h + 10, h + 8, nw, 1, false);
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
			uint16_t v = ps_field == NIC_AF_L4_SRC ? __builtin_bswap16((uint16_t)ps) : (uint16_t)set;
			memcpy(nw, &v, 2);
		}
		if (f & (1u << NIC_AF_L4_DST)) {
			uint16_t v = ps_field == NIC_AF_L4_DST ? __builtin_bswap16((uint16_t)ps) : (uint16_t)(set >> 16);
			memcpy(nw + 2, &v, 2);
		}
		bool udp = false;
		uint8_t *c = nic_dp_l4_csum(p, &udp);
		if (c)
			nic_dp_csum_update(c, ports, nw, 2, udp);
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
