/*
 * dp_rewrite.h - the packet of a burst as the datapath holds it, and the header
 * rewrites of entry actions: the common per-entry case (an L4 port rewrite, on the two
 * ports as one word) inline for the burst loops, the general case in rewrite.c. Only
 * for datapath.c and rewrite.c.
 */
#ifndef FLOWDPA_NIC_DP_REWRITE_H_
#define FLOWDPA_NIC_DP_REWRITE_H_

#include "nic_internal.h"

struct nic_pkt {
	uint8_t *data;
	uint32_t len;
	bool common_shape; /* nic_parse_fast's shape: UDP or TCP with its whole header */
	struct nic_hdr_off off;
	struct nic_key key;
};

/* ------------------------------------------------------------------ header rewrites */

#define L4_FIELDS ((1u << NIC_AF_L4_SRC) | (1u << NIC_AF_L4_DST))

static inline uint16_t nic_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void nic_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* RFC 1624 incremental update of the checksum at c for 16-bit words old -> new. */
static inline void nic_dp_csum_update(uint8_t *c, const uint8_t *old, const uint8_t *new, uint32_t nwords, bool udp)
{
	uint16_t hc = nic_rd16(c);
	if (udp && hc == 0)
		return; /* UDP over IPv4 without a checksum stays without one */
	uint32_t s = (uint16_t)~hc;
	for (uint32_t i = 0; i < nwords; i++)
		s += (uint16_t)~nic_rd16(old + 2 * i) + nic_rd16(new + 2 * i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	uint16_t r = (uint16_t)~s;
	if (udp && r == 0)
		r = 0xffff;
	nic_wr16(c, r);
}

/* The L4 checksum field of the packet, or NULL when it has none we maintain. */
static inline uint8_t *nic_dp_l4_csum(struct nic_pkt *p, bool *udp)
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

/* All the rewrites of a on packet p (set: the L4 ports word they write, in
 * nic_l4_set_word's form; ps: the path-selector value of ps_field, if >= 0), with the
 * checksums and the packet's key kept in step (rewrite.c). */
void nic_dp_apply_actions(struct nic_pkt *p, const struct nic_actions *a, uint32_t set, int ps_field, uint32_t ps);

/*
 * RFC 1624 update of checksum hc for one 32-bit word old -> new, all three as stored in
 * the frame. The ones'-complement sum does not depend on byte order (RFC 1071), so the
 * words are summed as loaded, 32 bits at a time, without swapping.
 */
static inline uint16_t nic_dp_csum_replace32(uint16_t hc, uint32_t old, uint32_t new)
{
	uint64_t s = (uint64_t)(uint16_t)~hc + (uint32_t)~old + new; /* < 2^34 */
	uint32_t t = (uint32_t)s + (uint32_t)(s >> 32);
	t += t < (uint32_t)(s >> 32); /* the end-around carry: t is the 32-bit sum */
	/* Folded to 16 bits as Linux's csum_fold: the high half of t + (t rotated by 16)
	 * is the sum of both halves with the carry out of the low ones. */
	t += t >> 16 | t << 16;
	return (uint16_t)(~t >> 16);
}

/*
 * apply_actions restricted to L4 port rewrites (the usual per-entry action), on the two
 * ports as one word (bytes 0-1 source, 2-3 destination, as in the frame): the new word
 * is (old & keep) | set. Same bytes and checksum rule as apply_actions (RFC 1624, a UDP
 * zero checksum kept, a UDP result of 0 written as 0xffff). t: NIC_L4_META_TCP or _UDP; has_csum:
 * the frame holds the checksum field. Returns the new ports word.
 */
static inline __attribute__((always_inline)) uint32_t nic_dp_l4_ports_store(uint8_t *ports, uint32_t t, bool has_csum,
									     uint32_t keep, uint32_t set)
{
	uint32_t old;
	memcpy(&old, ports, 4);
	uint32_t nw = (old & keep) | set;
	uint32_t csum_off = t == NIC_L4_META_UDP ? 6 : 16;
	if (has_csum) {
		uint16_t hc;
		memcpy(&hc, ports + csum_off, 2);
		if (!(t == NIC_L4_META_UDP && hc == 0)) {
			uint16_t r = nic_dp_csum_replace32(hc, old, nw);
			if (t == NIC_L4_META_UDP && r == 0)
				r = 0xffff;
			memcpy(ports + csum_off, &r, 2);
		}
	}
	memcpy(ports, &nw, 4);
	return nw;
}

/* l4_ports_store on a parsed packet (keep, set: the entry's), which also updates its
 * key; a path-selector value on a port field replaces the entry's value for that port. */
static inline void nic_dp_l4_ports_rewrite(struct nic_pkt *p, uint32_t keep, uint32_t set, int ps_field, uint32_t ps)
{
	uint32_t t = p->off.l4_type;
	if (!p->common_shape && (!p->off.l4 || (t != NIC_L4_META_TCP && t != NIC_L4_META_UDP)))
		return;
	if (ps_field == NIC_AF_L4_SRC) {
		keep &= 0xffff0000u;
		set = (set & 0xffff0000u) | __builtin_bswap16((uint16_t)ps);
	} else if (ps_field == NIC_AF_L4_DST) {
		keep &= 0x0000ffffu;
		set = (set & 0x0000ffffu) | (uint32_t)__builtin_bswap16((uint16_t)ps) << 16;
	}
	bool has_csum = p->common_shape || p->len >= p->off.l4 + (t == NIC_L4_META_UDP ? 8u : 18u);
	uint32_t nw = nic_dp_l4_ports_store(p->data + p->off.l4, t, has_csum, keep, set);
	memcpy(p->key.b + NIC_K_L4_SRC, &nw, 4);
}

/* The L4 ports word entry e with state st writes (see struct nic_entry_state). */
static inline uint32_t nic_dp_entry_l4_set(const struct nic_entry *e, const struct nic_entry_state *st, int ps_field)
{
	return st->val_in_entry && ps_field < 0 ? atomic_load_explicit(&e->val, memory_order_relaxed) : st->l4_set;
}

/* The path-selector value of entry e with state st (a pipe with a ps field). */
static inline uint32_t nic_dp_entry_ps(const struct nic_entry *e, const struct nic_entry_state *st)
{
	return atomic_load_explicit(st->val_in_entry ? &e->val : &st->ps_value, memory_order_relaxed);
}

/* The actions of entry e, state st (and the pipe's path-selector field) on packet p. */
static inline __attribute__((always_inline)) void nic_dp_entry_actions(struct nic_pkt *p, const struct nic_entry *e,
								const struct nic_entry_state *st, int ps_field)
{
	uint32_t ps = ps_field >= 0 ? nic_dp_entry_ps(e, st) : 0;
	uint32_t f = st->fields | (ps_field >= 0 ? 1u << ps_field : 0);
	if (NIC_LIKELY((f & ~L4_FIELDS) == 0)) {
		if (f)
			nic_dp_l4_ports_rewrite(p, st->l4_keep, nic_dp_entry_l4_set(e, st, ps_field), ps_field, ps);
	} else {
		nic_dp_apply_actions(p, &st->actions, nic_dp_entry_l4_set(e, st, ps_field), ps_field, ps);
	}
}

#endif /* FLOWDPA_NIC_DP_REWRITE_H_ */
