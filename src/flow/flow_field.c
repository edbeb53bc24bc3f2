/*
 * flow_field.c - DOCA Flow's field strings ("outer.ipv4.src_ip", "meta.data", ...), as
 * action descriptors and match conditions name them, mapped to the NIC field they
 * address (struct nic_field) and to where the same field sits in struct doca_flow_match
 * and struct doca_flow_actions (an ADD's constant, a condition's immediate value).
 */
#include <stddef.h>
#include <string.h>

#include "flow_field.h"

enum { W_OUTER, W_TUN, W_META, W_PMETA };

#define HF(f) W_OUTER, offsetof(struct doca_flow_header_format, f), sizeof(((struct doca_flow_header_format *)0)->f)
#define PF(f) W_PMETA, offsetof(struct doca_flow_parser_meta, f), sizeof(((struct doca_flow_parser_meta *)0)->f)
#define TF(f) W_TUN, offsetof(struct doca_flow_tun, f), sizeof(((struct doca_flow_tun *)0)->f)

/* name, {hdr, container offset, container bytes, shift, bits, flags}, where in DOCA's structs */
static const struct flow_field fields[] = {
	{"outer.eth.dst_mac", {NIC_FH_ETH, 0, 6, 0, 48, 0}, HF(eth.dst_mac)},
	{"outer.eth.src_mac", {NIC_FH_ETH, 6, 6, 0, 48, 0}, HF(eth.src_mac)},
	{"outer.eth_vlan0.tci", {NIC_FH_VLAN, 0, 2, 0, 16, 0}, HF(eth_vlan[0].tci)},
	{"outer.ipv4.version_ihl", {NIC_FH_IP4, 0, 1, 0, 8, 0}, HF(ip4.version_ihl)},
	{"outer.ipv4.dscp_ecn", {NIC_FH_IP4, 1, 1, 0, 8, 0}, HF(ip4.dscp_ecn)},
	{"outer.ipv4.total_len", {NIC_FH_IP4, 2, 2, 0, 16, 0}, HF(ip4.total_len)},
	{"outer.ipv4.identification", {NIC_FH_IP4, 4, 2, 0, 16, 0}, HF(ip4.identification)},
	{"outer.ipv4.ttl", {NIC_FH_IP4, 8, 1, 0, 8, 0}, HF(ip4.ttl)},
	{"outer.ipv4.next_proto", {NIC_FH_IP4, 9, 1, 0, 8, 0}, HF(ip4.next_proto)},
	{"outer.ipv4.src_ip", {NIC_FH_IP4, 12, 4, 0, 32, NIC_FF_PSEUDO}, HF(ip4.src_ip)},
	{"outer.ipv4.dst_ip", {NIC_FH_IP4, 16, 4, 0, 32, NIC_FF_PSEUDO}, HF(ip4.dst_ip)},
	{"outer.ipv6.traffic_class", {NIC_FH_IP6, 0, 4, 20, 8, 0}, HF(ip6.traffic_class)},
	{"outer.ipv6.flow_label", {NIC_FH_IP6, 0, 4, 0, 20, 0}, HF(ip6.flow_label)},
	{"outer.ipv6.payload_len", {NIC_FH_IP6, 4, 2, 0, 16, 0}, HF(ip6.payload_len)},
	{"outer.ipv6.next_proto", {NIC_FH_IP6, 6, 1, 0, 8, 0}, HF(ip6.next_proto)},
	{"outer.ipv6.hop_limit", {NIC_FH_IP6, 7, 1, 0, 8, 0}, HF(ip6.hop_limit)},
	{"outer.ipv6.src_ip", {NIC_FH_IP6, 8, 16, 0, 128, NIC_FF_PSEUDO}, HF(ip6.src_ip)},
	{"outer.ipv6.dst_ip", {NIC_FH_IP6, 24, 16, 0, 128, NIC_FF_PSEUDO}, HF(ip6.dst_ip)},
	{"outer.tcp.src_port", {NIC_FH_TCP, 0, 2, 0, 16, 0}, HF(tcp.l4_port.src_port)},
	{"outer.tcp.dst_port", {NIC_FH_TCP, 2, 2, 0, 16, 0}, HF(tcp.l4_port.dst_port)},
	{"outer.tcp.seq_num", {NIC_FH_TCP, 4, 4, 0, 32, 0}, HF(tcp.seq_num)},
	{"outer.tcp.ack_num", {NIC_FH_TCP, 8, 4, 0, 32, 0}, HF(tcp.ack_num)},
	{"outer.tcp.data_offset", {NIC_FH_TCP, 12, 1, 4, 4, 0}, HF(tcp.data_offset)},
	{"outer.tcp.flags", {NIC_FH_TCP, 13, 1, 0, 8, 0}, HF(tcp.flags)},
	{"outer.udp.src_port", {NIC_FH_UDP, 0, 2, 0, 16, 0}, HF(udp.l4_port.src_port)},
	{"outer.udp.dst_port", {NIC_FH_UDP, 2, 2, 0, 16, 0}, HF(udp.l4_port.dst_port)},
	{"tunnel.esp.spi", {NIC_FH_ESP, 0, 4, 0, 32, 0}, TF(esp_spi)},
	{"tunnel.esp.sn", {NIC_FH_ESP, 4, 4, 0, 32, 0}, TF(esp_sn)},
	{"parser_meta.random.value", {NIC_FH_KEY, NIC_K_RANDOM, 2, 0, 16, 0}, PF(random)},
	{"meta.data", {NIC_FH_META, 0, 4, 0, NIC_META_BITS, 0}, W_META, 0, 4 * (1 + NIC_META_SCRATCH)},
};
_Static_assert(NIC_META_BITS < 256, "meta.data's width fits nic_field.bits");

const struct flow_field *flow_field_find(const char *name)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(fields[i].name, name) == 0)
			return &fields[i];
	return NULL;
}

struct nic_field flow_field_doca_view(const struct flow_field *f)
{
	if (f->nf.hdr == NIC_FH_META)
		return f->nf; /* struct doca_flow_meta is the NIC's meta words, word for word */
	struct nic_field v = {.hdr = f->nf.hdr, .off = 0, .len = f->dsize, .shift = 0, .bits = f->nf.bits};
	return v;
}

static uint8_t *at(const struct flow_field *f, struct doca_flow_header_format *outer, struct doca_flow_tun *tun,
		   struct doca_flow_meta *meta, struct doca_flow_parser_meta *pmeta)
{
	switch (f->where) {
	case W_PMETA:
		return (uint8_t *)pmeta + f->doff;
	case W_OUTER:
		return (uint8_t *)outer + f->doff;
	case W_TUN:
		return (uint8_t *)tun + f->doff;
	default:
		return (uint8_t *)meta + f->doff;
	}
}

uint8_t *flow_field_in_match(const struct flow_field *f, struct doca_flow_match *m)
{
	return at(f, &m->outer, &m->tun, &m->meta, &m->parser_meta);
}

uint8_t *flow_field_in_actions(const struct flow_field *f, struct doca_flow_actions *a)
{
	if (f->where == W_PMETA)
		return NULL; /* actions carry no parser meta; flow_desc.c never asks for one */
	return at(f, &a->outer, &a->tun, &a->meta, NULL);
}

const char *flow_field_names(void)
{
	return "outer.eth.{dst,src}_mac, outer.eth_vlan0.tci, outer.ipv4.{version_ihl,dscp_ecn,total_len,"
	       "identification,ttl,next_proto,src_ip,dst_ip}, outer.ipv6.{traffic_class,flow_label,payload_len,"
	       "next_proto,hop_limit,src_ip,dst_ip}, outer.tcp.{src_port,dst_port,seq_num,ack_num,data_offset,flags}, "
	       "outer.udp.{src_port,dst_port}, tunnel.esp.{spi,sn}, meta.data, parser_meta.random.value (read only)";
}
