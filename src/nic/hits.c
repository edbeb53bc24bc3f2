/*
 * hits.c - what the NIC tells FLOWDPA_REPORT beyond its port counters: each entry's hit
 * count (top N per pipe, named by index and match) and the names of the drop reasons.
 *
 * Hit counting costs the datapath one predictable branch while it is off (the default:
 * only a process with FLOWDPA_REPORT set turns it on), and one sharded counter add per
 * hit while on; reading it takes the pipe's lock, as entry removal does.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <core/core.h>

#include "nic_internal.h"

bool nic_count_hits;

void nic_hits_enable(bool on)
{
	__atomic_store_n(&nic_count_hits, on, __ATOMIC_RELAXED);
}

/* The key fields a match summary names, in key order. */
enum field_kind { F_U8, F_BE16, F_U16, F_MAC, F_IP, F_BE32 };
static const struct {
	const char *name;
	uint8_t off, len;
	enum field_kind kind;
} fields[] = {
	{"port", NIC_K_PORT, 2, F_U16},		{"eth.dst", NIC_K_ETH_DST, 6, F_MAC},
	{"eth.src", NIC_K_ETH_SRC, 6, F_MAC},	{"eth.type", NIC_K_ETH_TYPE, 2, F_BE16},
	{"vlan.tci", NIC_K_VLAN_TCI, 2, F_BE16}, {"ip.src", NIC_K_IP_SRC, 16, F_IP},
	{"ip.dst", NIC_K_IP_DST, 16, F_IP},	{"ip.proto", NIC_K_IP_PROTO, 1, F_U8},
	{"ip.ttl", NIC_K_IP_TTL, 1, F_U8},	{"ip.tos", NIC_K_IP_TOS, 1, F_U8},
	{"tcp.flags", NIC_K_TCP_FLAGS, 1, F_U8}, {"l4.src", NIC_K_L4_SRC, 2, F_BE16},
	{"l4.dst", NIC_K_L4_DST, 2, F_BE16},	{"icmp.type", NIC_K_ICMP_TYPE, 1, F_U8},
	{"icmp.code", NIC_K_ICMP_CODE, 1, F_U8}, {"meta", NIC_K_META, 4, F_BE32},
};

static bool masked(const struct nic_key *mask, unsigned off, unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		if (mask->b[off + i])
			return true;
	return false;
}

/* "ip.dst=10.0.0.1 l4.dst=80": the fields mask covers, with the entry's values. */
static void match_summary(const struct nic_key *match, const struct nic_key *mask, char *out, size_t outlen)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]) && used < outlen; f++) {
		const uint8_t *v = match->b + fields[f].off;
		char val[64];

		if (!masked(mask, fields[f].off, fields[f].len))
			continue;
		switch (fields[f].kind) {
		case F_U8:
			snprintf(val, sizeof(val), "%u", v[0]);
			break;
		case F_BE16:
			snprintf(val, sizeof(val), "%u", (unsigned)(v[0] << 8 | v[1]));
			break;
		case F_U16: {
			uint16_t h;

			memcpy(&h, v, sizeof(h));
			snprintf(val, sizeof(val), "%u", h);
			break;
		}
		case F_MAC:
			snprintf(val, sizeof(val), "%02x:%02x:%02x:%02x:%02x:%02x", v[0], v[1], v[2], v[3], v[4], v[5]);
			break;
		case F_IP:
			/* IPv4 is the first 4 bytes; a mask beyond them is an IPv6 match. */
			inet_ntop(masked(mask, fields[f].off + 4u, 12) ? AF_INET6 : AF_INET, v, val, sizeof(val));
			break;
		case F_BE32:
			snprintf(val, sizeof(val), "%u", (unsigned)v[0] << 24 | (unsigned)v[1] << 16 | v[2] << 8 | v[3]);
			break;
		}
		int n = snprintf(out + used, outlen - used, "%s%s=%s", used ? " " : "", fields[f].name, val);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int hits_cmp(const void *a, const void *b)
{
	const struct nic_entry_hits *x = a, *y = b;

	if (x->pkts != y->pkts)
		return x->pkts < y->pkts ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Keep the n best in out (sorted, most packets first); cur is how many it holds. */
static uint32_t top_insert(struct nic_entry_hits *out, uint32_t n, uint32_t cur, const struct nic_entry_hits *h)
{
	if (cur == n && hits_cmp(h, &out[n - 1]) >= 0)
		return cur;
	uint32_t at = cur < n ? cur : n - 1;

	while (at > 0 && hits_cmp(h, &out[at - 1]) < 0) {
		out[at] = out[at - 1];
		at--;
	}
	out[at] = *h;
	return cur < n ? cur + 1 : cur;
}

static uint32_t consider(struct nic_pipe *p, struct nic_entry *e, uint32_t n, uint32_t cur, struct nic_entry_hits *out)
{
	/* A HASH entry is known by its index, a BASIC one by its slot (the order of addition
	 * while nothing was removed), a CONTROL one by its order of addition. */
	struct nic_entry_hits h = {.index = p->pool ? nic_entry_slot(p, e) : (uint32_t)nic_ctrl_of(e)->seq};

	nic_entry_cells_read(p, e, &h.pkts, &h.bytes);
	if (h.pkts == 0)
		return cur;
	if (cur == n && hits_cmp(&h, &out[n - 1]) >= 0)
		return cur;
	if (p->type == NIC_PIPE_HASH) {
		h.match[0] = '\0';
	} else {
		struct nic_key match;
		nic_entry_match_key(p, e, &match);
		match_summary(&match, p->type == NIC_PIPE_CONTROL ? &nic_ctrl_of(e)->mask : &p->entry_mask, h.match,
			      sizeof(h.match));
	}
	return top_insert(out, n, cur, &h);
}

uint32_t nic_pipe_top_hits(struct nic_pipe *p, uint32_t n, struct nic_entry_hits *out)
{
	uint32_t cur = 0;

	if (p == NULL || out == NULL || n == 0)
		return 0;
	pthread_rwlock_wrlock(&p->lock);
	/* The live entries: a pool's linked slots, a CONTROL pipe's list. */
	uint32_t end = p->pool ? (p->type == NIC_PIPE_BASIC ? p->pool_hw : p->pool_n) : 0;
	for (uint32_t i = p->pool ? nic_slot_next_used(p, 0) : end; i < end; i = nic_slot_next_used(p, i + 1))
		if (nic_entry_flags(nic_pool_entry(p, i), memory_order_relaxed) & NIC_EF_LINKED)
			cur = consider(p, nic_pool_entry(p, i), n, cur, out);
	for (struct nic_ctrl_entry *c = p->entries; c; c = c->list_next)
		cur = consider(p, &c->e, n, cur, out);
	pthread_rwlock_unlock(&p->lock);
	return cur;
}
