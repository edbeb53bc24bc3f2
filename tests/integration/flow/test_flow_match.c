/*
 * test_flow_match.c - match semantics with a mask (0 under a mask is changeable, other
 * values are constants under it), and the parser meta fields the NIC computes only on
 * demand: parser_meta.random, the VXLAN inner types and flags, the checksum_ok bits,
 * outer/inner fragmentation. Real frames in, counters and captures checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "flow_test_common.h"
#include "log_capture.h"

static struct doca_flow_port *ports[2];
static struct entries_status status;

static int setup(void **state)
{
	(void)state;
	log_capture_clear();
	return ft_setup_two_ports(ports, &status);
}

static int teardown(void **state)
{
	(void)state;
	ft_drain(1);
	return ft_teardown_two_ports(ports);
}

static const struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
static const struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};

/* A BASIC pipe on port 0 with per-entry and miss counters; asserts it is created. */
static struct doca_flow_pipe *mk_pipe(const char *name, enum doca_flow_pipe_type type, bool root,
				      const struct doca_flow_match *m, const struct doca_flow_match *mask,
				      struct doca_flow_actions *act, const struct doca_flow_fwd *fwd,
				      const struct doca_flow_fwd *miss, uint32_t nr)
{
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_actions *acts[1] = {act};
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, name, type, root), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, nr), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, m, mask), DOCA_SUCCESS);
	if (act)
		assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, fwd, miss, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static struct doca_flow_pipe_entry *add(struct doca_flow_pipe *p, const struct doca_flow_match *m,
					struct doca_flow_actions *act, const struct doca_flow_fwd *fwd)
{
	struct doca_flow_pipe_entry *e = NULL;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, m, 0, act, NULL, fwd, 0, &status, &e), DOCA_SUCCESS);
	return e;
}

static void inject(const uint8_t *f, uint32_t len)
{
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
}

/* flow_set_meta's pattern: pipe A sets meta.u32[0] per entry; pipe B matches it with a
 * full mask and pipe value 0, each entry giving the value (10). */
static void test_set_meta_pattern(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	mask.meta.u32[0] = UINT32_MAX;
	struct doca_flow_pipe *b = mk_pipe("MATCH_META", DOCA_FLOW_PIPE_BASIC, false, &m, &mask, NULL, &to1, &drop, 4);
	m.meta.u32[0] = DOCA_HTOBE32(10);
	struct doca_flow_pipe_entry *be = add(b, &m, NULL, NULL);

	struct doca_flow_actions act;
	memset(&m, 0, sizeof(m));
	memset(&act, 0, sizeof(act));
	m.parser_meta.outer_l4_type = DOCA_FLOW_L4_META_UDP;
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	act.meta.u32[0] = UINT32_MAX;
	struct doca_flow_fwd tob = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = b};
	struct doca_flow_pipe *a = mk_pipe("SET_META", DOCA_FLOW_PIPE_BASIC, true, &m, NULL, &act, &tob, &drop, 4);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(80);
	act.meta.u32[0] = DOCA_HTOBE32(10);
	struct doca_flow_pipe_entry *a10 = add(a, &m, &act, NULL);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(81);
	act.meta.u32[0] = DOCA_HTOBE32(11);
	struct doca_flow_pipe_entry *a11 = add(a, &m, &act, NULL);
	assert_int_equal(flow_process_entries(ports[0], &status, 3), DOCA_SUCCESS);

	assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 5, 80), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 5, 81), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(a10), 1);
	assert_int_equal(ft_entry_pkts(a11), 1);
	assert_int_equal(ft_entry_pkts(be), 1); /* meta 10 */
	assert_int_equal(ft_miss_pkts(b), 1);	/* meta 11 */
	uint8_t buf[256];
	uint32_t len;
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
	assert_int_equal(ft_dport(buf), 80);
	assert_int_equal(flowdpa_port_capture_count(1), 0);
}

/* 0 under a partial mask: changeable; each entry's value is compared under the mask,
 * its bits outside the mask ignored. */
static void test_changeable_partial_mask(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	m.outer.l3_type = mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = BE_IPV4_ADDR(255, 255, 0, 0);
	struct doca_flow_pipe *p = mk_pipe("SUBNETS", DOCA_FLOW_PIPE_BASIC, true, &m, &mask, NULL, &to1, &drop, 4);
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(10, 1, 0, 0);
	struct doca_flow_pipe_entry *e1 = add(p, &m, NULL, NULL);
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(10, 2, 5, 5); /* the low half is outside the mask */
	struct doca_flow_pipe_entry *e2 = add(p, &m, NULL, NULL);
	assert_int_equal(flow_process_entries(ports[0], &status, 2), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a010304, 5, 80), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a01ffff, 5, 80), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a020909, 5, 80), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a030001, 5, 80), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(e1), 2);
	assert_int_equal(ft_entry_pkts(e2), 1);
	assert_int_equal(ft_miss_pkts(p), 1);
	assert_int_equal(flowdpa_port_capture_count(1), 3);
}

/* A non-zero, not all-ones pipe value under a mask is a constant under that mask; the
 * entries give only the changeable fields. */
static void test_constant_under_mask(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	m.outer.l3_type = mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.l4_type_ext = mask.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(10, 7, 99, 99); /* constant 10.7/16 */
	mask.outer.ip4.dst_ip = BE_IPV4_ADDR(255, 255, 0, 0);
	mask.outer.udp.l4_port.dst_port = 0xffff; /* value 0: changeable */
	struct doca_flow_pipe *p = mk_pipe("CONST", DOCA_FLOW_PIPE_BASIC, true, &m, &mask, NULL, &to1, &drop, 4);
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(80);
	struct doca_flow_pipe_entry *e = add(p, &m, NULL, NULL);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a070101, 5, 80), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a080101, 5, 80), DOCA_SUCCESS); /* constant fails */
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a070101, 5, 81), DOCA_SUCCESS); /* no entry */
	uint8_t tcp[128];
	inject(tcp, ft_build4(tcp, 6, 1, 0x0a070101, 5, 80, 0)); /* TCP: l4_type_ext UDP implies UDP */
	assert_int_equal(ft_entry_pkts(e), 1);
	assert_int_equal(ft_miss_pkts(p), 3);
}

/* flow_random's sampling pipe: random 0 under mask 0x0001 samples about half
 * (FLOWDPA_RANDOM_SEED set by meson.build: the same count every run). */
static void test_random_sampling(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	mask.parser_meta.random = DOCA_HTOBE16(0x0001);
	struct doca_flow_pipe *p = mk_pipe("SAMPLING", DOCA_FLOW_PIPE_BASIC, true, &m, &mask, NULL, &to1, &drop, 1);
	memset(&m, 0, sizeof(m));
	struct doca_flow_pipe_entry *e = add(p, &m, NULL, NULL);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	const uint32_t n = 4000;
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ft_inject_udp4(0, 1, 2, 5, 80), DOCA_SUCCESS);
	uint64_t hit = ft_entry_pkts(e), miss = ft_miss_pkts(p);
	assert_int_equal(hit + miss, n);
	/* Binomial(4000, 1/2): sd 32; 5 sd either side. */
	assert_in_range(hit, n / 2 - 160, n / 2 + 160);
}

/* flow_random's distribution pipe: a HASH pipe on the whole random value spreads the
 * same 5-tuple over every entry. */
static void test_random_distribution(void **state)
{
	(void)state;
	struct doca_flow_match mask;
	memset(&mask, 0, sizeof(mask));
	mask.parser_meta.random = DOCA_HTOBE16(UINT16_MAX);
	enum { NE = 4 };
	struct doca_flow_pipe *p = mk_pipe("DISTRIBUTION", DOCA_FLOW_PIPE_HASH, true, NULL, &mask, NULL, &to1, NULL, NE);
	struct doca_flow_pipe_entry *e[NE];
	for (uint32_t i = 0; i < NE; i++)
		assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, i, 0, NULL, NULL, NULL, 0, &status, &e[i]),
				 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, NE), DOCA_SUCCESS);
	const uint32_t n = 4000;
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ft_inject_udp4(0, 1, 2, 5, 80), DOCA_SUCCESS);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < NE; i++) {
		uint64_t c = ft_entry_pkts(e[i]);
		assert_in_range(c, n / NE - 200, n / NE + 200); /* sd 27 */
		sum += c;
	}
	assert_int_equal(sum, n);
}

/* ------------------------------------------------------------------ frames */

/* Corrupt the IPv4 header checksum of an Eth/IPv4 frame whose IP header is at ip. */
static void bad_ip_csum(uint8_t *ip)
{
	ip[10] ^= 0x5a;
}

/* Corrupt the L4 checksum (TCP or UDP) of a frame built by ft_build4. */
static void bad_l4_csum(uint8_t *f)
{
	uint8_t *l4 = f + 34;
	l4[f[23] == 6 ? 16 : 6] ^= 0x33;
}

/* Eth/IPv4/UDP(4789)/VXLAN around the inner Ethernet frame in[0..n); checksums valid. */
static uint32_t vxlan_wrap(uint8_t *f, const uint8_t *in, uint32_t n)
{
	uint32_t len = ft_build4(f, 17, 0x01010101, 0x02020202, 4321, 4789, 8 + n);
	uint8_t *vx = f + 42;
	memset(vx, 0, 8);
	vx[0] = 0x08; /* I flag: VNI valid */
	vx[6] = 0x2a; /* VNI 42 */
	memcpy(vx + 8, in, n);
	/* recompute the UDP checksum over the new payload */
	uint8_t *ip = f + 14, *udp = f + 34;
	uint32_t l4len = 8 + 8 + n;
	udp[6] = udp[7] = 0;
	uint8_t ph[12];
	memcpy(ph, ip + 12, 8);
	ph[8] = 0;
	ph[9] = 17;
	ft_wr16(ph + 10, (uint16_t)l4len);
	uint16_t c = ft_fold(ft_sum(ft_sum(0, ph, 12), udp, l4len));
	ft_wr16(udp + 6, c ? c : 0xffff);
	return len;
}

/* Four entries on (outer_ip4_checksum_ok, outer_l4_checksum_ok), pipe values all-ones
 * (changeable) under a full mask, as flow_parser_meta writes them. */
static void test_checksum_bits(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	memset(&m.parser_meta, 0xff, sizeof(m.parser_meta));
	mask.parser_meta.outer_ip4_checksum_ok = UINT8_MAX;
	mask.parser_meta.outer_l4_checksum_ok = UINT8_MAX;
	struct doca_flow_pipe *p = mk_pipe("CSUM", DOCA_FLOW_PIPE_BASIC, true, &m, &mask, NULL, &drop, &drop, 4);
	struct doca_flow_pipe_entry *e[2][2];
	for (int ip = 0; ip < 2; ip++)
		for (int l4 = 0; l4 < 2; l4++) {
			memset(&m, 0, sizeof(m));
			m.parser_meta.outer_ip4_checksum_ok = (uint8_t)ip;
			m.parser_meta.outer_l4_checksum_ok = (uint8_t)l4;
			e[ip][l4] = add(p, &m, NULL, NULL);
		}
	assert_int_equal(flow_process_entries(ports[0], &status, 4), DOCA_SUCCESS);
	uint8_t f[256];
	uint32_t len;
	/* good UDP, good TCP, UDP without checksum (0: valid over IPv4) */
	inject(f, ft_udp4(f, 1, 2, 5, 80));
	inject(f, ft_build4(f, 6, 1, 2, 5, 80, 10));
	len = ft_udp4(f, 1, 2, 5, 80);
	f[40] = f[41] = 0;
	inject(f, len);
	assert_int_equal(ft_entry_pkts(e[1][1]), 3);
	/* bad IPv4 header checksum */
	len = ft_udp4(f, 1, 2, 5, 80);
	bad_ip_csum(f + 14);
	inject(f, len);
	assert_int_equal(ft_entry_pkts(e[0][1]), 1);
	/* bad UDP, bad TCP checksum */
	len = ft_udp4(f, 1, 2, 5, 80);
	bad_l4_csum(f);
	inject(f, len);
	len = ft_build4(f, 6, 1, 2, 5, 80, 10);
	bad_l4_csum(f);
	inject(f, len);
	/* IPv4 says more than the frame holds: the L4 checksum cannot be verified */
	len = ft_udp4(f, 1, 2, 5, 80);
	inject(f, len - 4);
	assert_int_equal(ft_entry_pkts(e[1][0]), 3);
	/* both bad; and ICMP (no L4 checksum verdict) with a bad IP checksum */
	len = ft_udp4(f, 1, 2, 5, 80);
	bad_ip_csum(f + 14);
	bad_l4_csum(f);
	inject(f, len);
	len = ft_udp4(f, 1, 2, 5, 80);
	f[23] = 1; /* ICMP: the IP checksum no longer matches either */
	inject(f, len);
	assert_int_equal(ft_entry_pkts(e[0][0]), 2);
	assert_int_equal(ft_miss_pkts(p), 0);
}

/* outer_ip_fragmented on first, middle and no fragments. */
static void test_fragmented(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	mask.parser_meta.outer_ip_fragmented = UINT8_MAX;
	mask.parser_meta.outer_l4_checksum_ok = UINT8_MAX;
	struct doca_flow_pipe *p = mk_pipe("FRAG", DOCA_FLOW_PIPE_BASIC, true, &m, &mask, NULL, &drop, &drop, 4);
	m.parser_meta.outer_ip_fragmented = 1;
	struct doca_flow_pipe_entry *frag = add(p, &m, NULL, NULL); /* fragment, L4 checksum not verified */
	m.parser_meta.outer_ip_fragmented = 0;
	m.parser_meta.outer_l4_checksum_ok = 1;
	struct doca_flow_pipe_entry *whole = add(p, &m, NULL, NULL);
	assert_int_equal(flow_process_entries(ports[0], &status, 2), DOCA_SUCCESS);
	uint8_t f[256];
	uint32_t len = ft_udp4(f, 1, 2, 5, 80);
	inject(f, len);
	f[20] = 0x20; /* MF: the first fragment */
	inject(f, len);
	f[20] = 0x00;
	f[21] = 0x10; /* offset 128: a later fragment */
	inject(f, len);
	assert_int_equal(ft_entry_pkts(whole), 1);
	assert_int_equal(ft_entry_pkts(frag), 2);
	assert_int_equal(ft_miss_pkts(p), 0);
}

/* Inner types and flags of VXLAN frames; non-tunnelled traffic has inner 'none'. */
static void test_inner_vxlan(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	mask.parser_meta.inner_l2_type = UINT32_MAX;
	mask.parser_meta.inner_l3_type = UINT32_MAX;
	mask.parser_meta.inner_l4_type = UINT32_MAX;
	mask.parser_meta.inner_l3_ok = UINT8_MAX;
	mask.parser_meta.inner_l4_ok = UINT8_MAX;
	mask.parser_meta.inner_ip_fragmented = UINT8_MAX;
	mask.parser_meta.inner_ip4_checksum_ok = UINT8_MAX;
	mask.parser_meta.inner_l4_checksum_ok = UINT8_MAX;
	struct doca_flow_pipe *p = mk_pipe("INNER", DOCA_FLOW_PIPE_BASIC, true, &m, &mask, NULL, &drop, &drop, 8);
	struct doca_flow_match v;
#define INNER(l2, l3, l4, ok3, ok4, fr, c3, c4)                                                                      \
	(memset(&v, 0, sizeof(v)), v.parser_meta.inner_l2_type = (l2), v.parser_meta.inner_l3_type = (l3),             \
	 v.parser_meta.inner_l4_type = (l4), v.parser_meta.inner_l3_ok = (ok3), v.parser_meta.inner_l4_ok = (ok4),      \
	 v.parser_meta.inner_ip_fragmented = (fr), v.parser_meta.inner_ip4_checksum_ok = (c3),                           \
	 v.parser_meta.inner_l4_checksum_ok = (c4), add(p, &v, NULL, NULL))
	struct doca_flow_pipe_entry *none = INNER(0, 0, 0, 0, 0, 0, 0, 0);
	struct doca_flow_pipe_entry *v4tcp = INNER(DOCA_FLOW_L2_META_NO_VLAN, DOCA_FLOW_L3_META_IPV4,
						   DOCA_FLOW_L4_META_TCP, 1, 1, 0, 1, 1);
	struct doca_flow_pipe_entry *v4udp_badip = INNER(DOCA_FLOW_L2_META_NO_VLAN, DOCA_FLOW_L3_META_IPV4,
							 DOCA_FLOW_L4_META_UDP, 1, 1, 0, 0, 1);
	struct doca_flow_pipe_entry *v4frag = INNER(DOCA_FLOW_L2_META_NO_VLAN, DOCA_FLOW_L3_META_IPV4,
						    DOCA_FLOW_L4_META_UDP, 1, 1, 1, 1, 0);
	struct doca_flow_pipe_entry *vlan6udp = INNER(DOCA_FLOW_L2_META_SINGLE_VLAN, DOCA_FLOW_L3_META_IPV6,
						      DOCA_FLOW_L4_META_UDP, 1, 1, 0, 0, 1);
#undef INNER
	assert_int_equal(flow_process_entries(ports[0], &status, 5), DOCA_SUCCESS);

	uint8_t in[256], f[512];
	uint32_t n;
	inject(f, ft_udp4(f, 1, 2, 5, 4789 + 1)); /* not VXLAN */
	inject(f, ft_build4(f, 6, 1, 2, 5, 4789, 0)); /* TCP 4789: not VXLAN */
	assert_int_equal(ft_entry_pkts(none), 2);
	n = ft_build4(in, 6, 0x0a000001, 0x0a000002, 7, 8, 4);
	inject(f, vxlan_wrap(f, in, n));
	assert_int_equal(ft_entry_pkts(v4tcp), 1);
	n = ft_udp4(in, 0x0a000001, 0x0a000002, 7, 8);
	bad_ip_csum(in + 14);
	inject(f, vxlan_wrap(f, in, n));
	assert_int_equal(ft_entry_pkts(v4udp_badip), 1);
	n = ft_udp4(in, 0x0a000001, 0x0a000002, 7, 8);
	in[20] = 0x20; /* MF; the IP header checksum recomputed, still valid */
	in[24] = in[25] = 0;
	ft_wr16(in + 24, ft_fold(ft_sum(0, in + 14, 20)));
	inject(f, vxlan_wrap(f, in, n));
	assert_int_equal(ft_entry_pkts(v4frag), 1);
	n = ft_vlan_push(in, ft_udp6(in, 9, 7, 8), 0x0005);
	inject(f, vxlan_wrap(f, in, n));
	assert_int_equal(ft_entry_pkts(vlan6udp), 1);
	assert_int_equal(ft_miss_pkts(p), 0);
	/* A VXLAN frame too short for an inner Ethernet header: inner 'none'. */
	inject(f, vxlan_wrap(f, in, 10));
	assert_int_equal(ft_entry_pkts(none), 3);
}

/* flow_parser_meta's control entries: each entry's value under its own mask, where 0
 * (inner NONE) is a value: a VXLAN frame does not match the non-tunnelled entry. */
static void test_control_parser_meta(void **state)
{
	(void)state;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "PARSER_META", DOCA_FLOW_PIPE_CONTROL, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, &miss, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_match m, mask;
	memset(&mask, 0, sizeof(mask));
	mask.parser_meta = (struct doca_flow_parser_meta){
		.outer_l3_type = UINT32_MAX,
		.outer_l4_type = UINT32_MAX,
		.outer_ip_fragmented = UINT8_MAX,
		.outer_l3_ok = UINT8_MAX,
		.outer_ip4_checksum_ok = UINT8_MAX,
		.outer_l4_ok = UINT8_MAX,
		.outer_l4_checksum_ok = UINT8_MAX,
		.inner_l3_type = UINT32_MAX,
		.inner_l4_type = UINT32_MAX,
	};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	memset(&m, 0, sizeof(m));
	m.parser_meta = (struct doca_flow_parser_meta){.outer_l3_type = DOCA_FLOW_L3_META_IPV4,
						       .outer_l4_type = DOCA_FLOW_L4_META_UDP,
						       .outer_l3_ok = 1,
						       .outer_ip4_checksum_ok = 1,
						       .outer_l4_ok = 1,
						       .outer_l4_checksum_ok = 1};
	struct doca_flow_pipe_entry *plain, *tunnel;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, &mask, NULL, NULL, NULL, NULL, &mon, 1, &to1,
							  &status, &plain),
			 DOCA_SUCCESS);
	m.parser_meta.inner_l3_type = DOCA_FLOW_L3_META_IPV4;
	m.parser_meta.inner_l4_type = DOCA_FLOW_L4_META_TCP;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, &mask, NULL, NULL, NULL, NULL, &mon, 1, &drop,
							  &status, &tunnel),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 2), DOCA_SUCCESS);
	uint8_t in[128], f[256];
	inject(f, ft_udp4(f, 1, 2, 5, 80));
	inject(f, vxlan_wrap(f, in, ft_build4(in, 6, 3, 4, 5, 6, 0)));
	uint32_t len = ft_udp4(f, 1, 2, 5, 80);
	bad_l4_csum(f);
	inject(f, len);
	assert_int_equal(ft_entry_pkts(plain), 1);
	assert_int_equal(ft_entry_pkts(tunnel), 1);
	assert_int_equal(ft_miss_pkts(p), 1);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
}

/* flow_sampling's pattern: a CONTROL entry whose condition compares parser_meta.random
 * with the match's immediate value samples that share of the traffic. Runs first: the
 * condition alone (no pipe matches random) must turn the random parse on, or every
 * packet would read 0 and pass. */
static void test_random_condition(void **state)
{
	(void)state;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "SAMPLE_COND", DOCA_FLOW_PIPE_CONTROL, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, &drop, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.parser_meta.random = DOCA_HTOBE16(0x4000); /* the immediate value: 1/4 of the range */
	struct doca_flow_match_condition c;
	memset(&c, 0, sizeof(c));
	c.operation = DOCA_FLOW_COMPARE_LT;
	c.field_op.a.field_string = "parser_meta.random.value";
	c.field_op.width = 16;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_pipe_entry *e = NULL;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, &c, NULL, NULL, NULL, &mon, 1, &to1,
							  &status, &e),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	const uint32_t n = 1000; /* hits stay under the capture's 1024 frames */
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ft_inject_udp4(0, 1, 2, 5, 80), DOCA_SUCCESS);
	uint64_t hit = ft_entry_pkts(e);
	assert_int_equal(hit + ft_miss_pkts(p), n);
	/* Binomial(1000, 1/4): sd 13.7; 5 sd either side. */
	assert_in_range(hit, n / 4 - 68, n / 4 + 68);
	assert_int_equal(flowdpa_port_capture_count(1), hit);
}

/* outer_l3_ok / outer_l4_ok clear on a bad length, as the hardware's: flow_parser_meta's
 * "not ok" frames (IPv4 total length 10, IPv6 payload length 9999, TCP data offset 2,
 * UDP length 4) and a total length beyond the frame. */
static void test_length_oks(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	memset(&m.parser_meta, 0xff, sizeof(m.parser_meta));
	mask.parser_meta.outer_l3_ok = UINT8_MAX;
	mask.parser_meta.outer_l4_ok = UINT8_MAX;
	struct doca_flow_pipe *p = mk_pipe("LEN_OK", DOCA_FLOW_PIPE_BASIC, true, &m, &mask, NULL, &to1, &drop, 4);
	struct doca_flow_pipe_entry *e[2][2];
	for (int l3 = 0; l3 < 2; l3++)
		for (int l4 = 0; l4 < 2; l4++) {
			memset(&m, 0, sizeof(m));
			m.parser_meta.outer_l3_ok = (uint8_t)l3;
			m.parser_meta.outer_l4_ok = (uint8_t)l4;
			e[l3][l4] = add(p, &m, NULL, NULL);
		}
	assert_int_equal(flow_process_entries(ports[0], &status, 4), DOCA_SUCCESS);
	uint8_t f[256];
	uint32_t len;
	inject(f, ft_udp4(f, 1, 2, 5, 80));
	inject(f, ft_build4(f, 6, 1, 2, 5, 80, 10));
	inject(f, ft_udp6(f, 3, 1000, 2000));
	assert_int_equal(ft_entry_pkts(e[1][1]), 3);
	len = ft_udp4(f, 1, 2, 5, 80);
	f[16] = 0, f[17] = 10; /* IPv4 total length 10 */
	inject(f, len);
	len = ft_udp4(f, 1, 2, 5, 80);
	f[17] = (uint8_t)(f[17] + 1); /* one byte more than the frame holds */
	inject(f, len);
	len = ft_udp6(f, 3, 1000, 2000);
	f[18] = 9999 >> 8, f[19] = 9999 & 0xff; /* IPv6 payload length 9999 */
	inject(f, len);
	assert_int_equal(ft_entry_pkts(e[0][1]), 3);
	len = ft_build4(f, 6, 1, 2, 5, 80, 10);
	f[46] = 2 << 4; /* TCP data offset 2 */
	inject(f, len);
	len = ft_udp4(f, 1, 2, 5, 80);
	f[38] = 0, f[39] = 4; /* UDP length 4 */
	inject(f, len);
	len = ft_udp6(f, 3, 1000, 2000);
	f[54 + 4] = 0, f[54 + 5] = 4;
	inject(f, len);
	assert_int_equal(ft_entry_pkts(e[1][0]), 3);
	assert_int_equal(ft_entry_pkts(e[0][0]), 0);
	assert_int_equal(ft_miss_pkts(p), 0);
	assert_int_equal(flowdpa_port_capture_count(1), 9); /* each hit, forwarded by the pipe */
}

/* ------------------------------------------------------------------ bad inputs */

static void test_unsupported_mask(void **state)
{
	(void)state;
	struct doca_flow_match m, mask;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	mask.parser_meta.meter_color = 1;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "BAD", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	log_capture_clear();
	doca_error_t r = doca_flow_pipe_cfg_set_match(cfg, &m, &mask);
	if (r == DOCA_SUCCESS)
		r = doca_flow_pipe_create(cfg, &to1, &drop, &p);
	assert_int_equal(r, DOCA_ERROR_NOT_SUPPORTED);
	assert_null(p);
	if (log_capture_count("'parser_meta.meter_color' is not supported") != 1 || log_capture_count(NULL) != 1)
		log_capture_dump();
	assert_int_equal(log_capture_count("'parser_meta.meter_color' is not supported"), 1);
	assert_int_equal(log_capture_count(NULL), 1);

	/* A value in an unsupported field under a zero mask is ignored (flow_parser_meta
	 * fills every parser_meta byte with 0xff). */
	memset(&m.parser_meta, 0xff, sizeof(m.parser_meta));
	memset(&mask, 0, sizeof(mask));
	mask.parser_meta.outer_l3_type = UINT32_MAX;
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &to1, &drop, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	memset(&m, 0, sizeof(m));
	m.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV4;
	struct doca_flow_pipe_entry *e = add(p, &m, NULL, NULL);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	uint8_t f[256];
	inject(f, ft_udp4(f, 1, 2, 5, 80));
	inject(f, ft_udp6(f, 1, 5, 80));
	assert_int_equal(ft_entry_pkts(e), 1);
	assert_int_equal(ft_miss_pkts(p), 1);

	/* Without a mask the value is the mask: an unsupported value is refused. */
	memset(&m, 0, sizeof(m));
	m.parser_meta.ipsec_syndrome = 3;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "BAD2", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	log_capture_clear();
	r = doca_flow_pipe_cfg_set_match(cfg, &m, NULL);
	struct doca_flow_pipe *p2 = NULL;
	if (r == DOCA_SUCCESS)
		r = doca_flow_pipe_create(cfg, &to1, &drop, &p2);
	assert_int_equal(r, DOCA_ERROR_NOT_SUPPORTED);
	assert_null(p2);
	assert_int_equal(log_capture_count("'parser_meta.ipsec_syndrome' is not supported"), 1);
	doca_flow_pipe_cfg_destroy(cfg);
}

int main(void)
{
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_random_condition, setup, teardown), /* first: see there */
		cmocka_unit_test_setup_teardown(test_set_meta_pattern, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changeable_partial_mask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_constant_under_mask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_sampling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_distribution, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checksum_bits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_length_oks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fragmented, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inner_vxlan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_parser_meta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsupported_mask, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
