/*
 * test_flow_control.c - CONTROL pipes (priority order, per-entry masks, per-entry
 * monitors and actions) and header rewrites (MAC, IPv4 address, TTL, L4 ports, meta)
 * checked on captured frames, plus meta set in one pipe and matched in the next.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "flow_test_common.h"

static struct doca_flow_port *ports[2];
static struct entries_status status;

static int setup(void **state)
{
	(void)state;
	return ft_setup_two_ports(ports, &status);
}

static int teardown(void **state)
{
	(void)state;
	return ft_teardown_two_ports(ports);
}

static struct doca_flow_pipe *control_root(void)
{
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *pipe = NULL;
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "CONTROL", DOCA_FLOW_PIPE_CONTROL, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, &miss, &pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return pipe;
}

static void test_priority_and_masks(void **state)
{
	(void)state;
	struct doca_flow_pipe *pipe = control_root();
	struct doca_flow_match m, mask;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_entry *generic, *specific, *subnet;

	/* priority 1: any UDP to dport 80 -> port 1 (NULL mask: non-zero fields exact) */
	memset(&m, 0, sizeof(m));
	m.parser_meta.outer_l4_type = DOCA_FLOW_L4_META_UDP;
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(80);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, pipe, &m, NULL, NULL, NULL, NULL, NULL, &mon, 1, &to1,
							  &status, &generic),
			 DOCA_SUCCESS);
	/* priority 0: 10.0.0.1 exactly -> drop (wins over the generic entry) */
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(10, 0, 0, 1);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, pipe, &m, NULL, NULL, NULL, NULL, NULL, &mon, 0, &drop,
							  &status, &specific),
			 DOCA_SUCCESS);
	/* priority 2: 10.9.0.0/16 under a mask -> port 1 */
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(10, 9, 0, 0);
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = BE_IPV4_ADDR(255, 255, 0, 0);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, pipe, &m, &mask, NULL, NULL, NULL, NULL, &mon, 2, &to1,
							  &status, &subnet),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 3), DOCA_SUCCESS);

	assert_int_equal(ft_inject_udp4(0, 1, 0x0a000001, 5, 80), DOCA_SUCCESS); /* specific */
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a000002, 5, 80), DOCA_SUCCESS); /* generic */
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a090304, 5, 81), DOCA_SUCCESS); /* subnet */
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a0a0304, 5, 81), DOCA_SUCCESS); /* miss */
	uint8_t tcp[128];
	uint32_t tl = ft_build4(tcp, 6, 1, 0x0a000002, 5, 80, 0);
	assert_int_equal(flowdpa_port_inject(0, tcp, tl), DOCA_SUCCESS); /* TCP: not the UDP entry: miss */
	assert_int_equal(ft_entry_pkts(specific), 1);
	assert_int_equal(ft_entry_pkts(generic), 1);
	assert_int_equal(ft_entry_pkts(subnet), 1);
	assert_int_equal(ft_miss_pkts(pipe), 2);
	assert_int_equal(flowdpa_port_capture_count(1), 2);

	/* Removing the specific entry lets the generic one take its packets. */
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, specific), DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 4), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a000001, 5, 80), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(generic), 2);

	/* Wrong pipe type for the call; a condition without a field (test_flow_cond.c has the rest). */
	struct doca_flow_match_condition cond;
	memset(&cond, 0, sizeof(cond));
	assert_int_equal(doca_flow_pipe_control_add_entry(0, pipe, &m, NULL, &cond, NULL, NULL, NULL, NULL, 0, &to1,
							  NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, pipe, &m, 0, NULL, NULL, &to1, 0, NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, pipe, 0, 0, NULL, NULL, &to1, 0, NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
}

static void test_rewrites_and_meta(void **state)
{
	(void)state;
	/* Second pipe: BASIC on meta.u32[0], fwd port 1, counts. */
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *meta_pipe = NULL;
	struct doca_flow_match m;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_entry *me, *ce;

	memset(&m, 0, sizeof(m));
	m.meta.u32[0] = UINT32_MAX;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "META", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &to1, &drop, &meta_pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	m.meta.u32[0] = DOCA_HTOBE32(77);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, meta_pipe, &m, 0, NULL, NULL, NULL, 0, &status, &me),
			 DOCA_SUCCESS);

	struct doca_flow_pipe *root = control_root();
	struct doca_flow_actions act;
	memset(&m, 0, sizeof(m));
	memset(&act, 0, sizeof(act));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.src_ip = BE_IPV4_ADDR(192, 168, 1, 1);
	uint8_t mac[6] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66};
	memcpy(act.outer.eth.dst_mac, mac, 6);
	act.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	act.outer.ip4.src_ip = BE_IPV4_ADDR(172, 16, 0, 9);
	act.outer.ip4.ttl = 9;
	act.outer.udp.l4_port.dst_port = DOCA_HTOBE16(4444);
	act.meta.u32[0] = DOCA_HTOBE32(77);
	struct doca_flow_fwd to_meta = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = meta_pipe};
	assert_int_equal(doca_flow_pipe_control_add_entry(0, root, &m, NULL, NULL, &act, NULL, NULL, &mon, 0, &to_meta,
							  &status, &ce),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 2), DOCA_SUCCESS);

	assert_int_equal(ft_inject_udp4(0, 0xc0a80101, 0x0a000001, 1234, 80), DOCA_SUCCESS);
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
	assert_memory_equal(buf, mac, 6);
	assert_int_equal(ft_ip4_src(buf), 0xac100009);
	assert_int_equal(buf[14 + 8], 9);
	assert_int_equal(ft_sport(buf), 1234);
	assert_int_equal(ft_dport(buf), 4444);
	assert_true(ft_checksums_ok(buf, len));
	assert_int_equal(ft_entry_pkts(ce), 1);
	assert_int_equal(ft_entry_pkts(me), 1);

	/* A TCP frame gets the same rewrites with a valid TCP checksum. */
	uint32_t tl = ft_build4(buf, 6, 0xc0a80101, 0x0a000001, 1234, 80, 10);
	assert_int_equal(flowdpa_port_inject(0, buf, tl), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
	assert_int_equal(ft_dport(buf), 4444);
	assert_true(ft_checksums_ok(buf, len));

	/* Unsupported action fields are refused at entry add. */
	memset(&act, 0, sizeof(act));
	act.has_push = true;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, root, &m, NULL, NULL, &act, NULL, NULL, &mon, 0, &to_meta,
							  NULL, NULL),
			 DOCA_ERROR_NOT_SUPPORTED);
	/* fwd to a destroyed pipe is refused. */
	doca_flow_pipe_destroy(meta_pipe);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, root, &m, NULL, NULL, NULL, NULL, NULL, &mon, 1, &to_meta,
							  NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	/* Packets of the live entry that still points at it are dropped. */
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	uint64_t drops = st.drops;
	assert_int_equal(ft_inject_udp4(0, 0xc0a80101, 0x0a000001, 1234, 80), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.drops, drops + 1);
}

static void test_ipv6_vlan_icmp(void **state)
{
	(void)state;
	struct doca_flow_pipe *pipe = control_root();
	struct doca_flow_match m;
	struct doca_flow_actions act;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_entry *e6, *ev, *ei;

	/* IPv6 destination fd00::7 -> rewrite source to 2001::99 and hop limit 5 -> port 1 */
	memset(&m, 0, sizeof(m));
	memset(&act, 0, sizeof(act));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP6;
	m.outer.ip6.dst_ip[0] = DOCA_HTOBE32(0xfd000000);
	m.outer.ip6.dst_ip[3] = DOCA_HTOBE32(7);
	act.outer.l3_type = DOCA_FLOW_L3_TYPE_IP6;
	act.outer.ip6.src_ip[0] = DOCA_HTOBE32(0x20010000);
	act.outer.ip6.src_ip[3] = DOCA_HTOBE32(0x99);
	act.outer.ip6.hop_limit = 5;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, pipe, &m, NULL, NULL, &act, NULL, NULL, &mon, 0, &to1,
							  &status, &e6),
			 DOCA_SUCCESS);
	/* VLAN 7 -> drop */
	memset(&m, 0, sizeof(m));
	m.parser_meta.outer_l2_type = DOCA_FLOW_L2_META_SINGLE_VLAN;
	m.outer.eth_vlan[0].tci = DOCA_HTOBE16(7);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, pipe, &m, NULL, NULL, NULL, NULL, NULL, &mon, 1, &drop,
							  &status, &ev),
			 DOCA_SUCCESS);
	/* ICMP echo request -> port 1 */
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_ICMP;
	m.outer.icmp.type = 8;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, pipe, &m, NULL, NULL, NULL, NULL, NULL, &mon, 2, &to1,
							  &status, &ei),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 3), DOCA_SUCCESS);

	uint8_t f[160], out[FLOWDPA_MAX_FRAME];
	uint32_t len, olen;
	len = ft_udp6(f, 7, 1000, 2000);
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, out, sizeof(out), &olen), DOCA_SUCCESS);
	assert_int_equal(out[14 + 7], 5);
	assert_int_equal(out[14 + 8], 0x20);
	assert_int_equal(out[14 + 23], 0x99);
	assert_true(ft_udp6_checksum_ok(out));
	/* ICMPv6 sums the pseudo-header too: the source rewrite must keep it valid. */
	len = ft_icmp6(f, 7);
	assert_true(ft_icmp6_checksum_ok(f));
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, out, sizeof(out), &olen), DOCA_SUCCESS);
	assert_int_equal(out[14 + 23], 0x99);
	assert_true(ft_icmp6_checksum_ok(out));
	len = ft_udp6(f, 8, 1000, 2000); /* fd00::8: a miss */
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);

	/* VLAN-tagged IPv4 frames: tag 7 dropped by rule, tag 8 a miss. */
	uint8_t v[160];
	uint32_t l4 = ft_udp4(f, 1, 2, 3, 4);
	for (uint16_t tag = 7; tag <= 8; tag++) {
		memcpy(v, f, l4);
		assert_int_equal(flowdpa_port_inject(0, v, ft_vlan_push(v, l4, tag)), DOCA_SUCCESS);
	}
	/* ICMP echo request / reply */
	for (uint8_t type = 8; type != 255; type = type == 8 ? 0 : 255) {
		len = ft_build4(f, 17, 1, 2, 0, 0, 4);
		f[23] = 1;
		f[34] = type;
		assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	}
	assert_int_equal(ft_entry_pkts(e6), 2);
	assert_int_equal(ft_entry_pkts(ev), 1);
	assert_int_equal(ft_entry_pkts(ei), 1);
	assert_int_equal(ft_miss_pkts(pipe), 3);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_priority_and_masks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewrites_and_meta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_vlan_icmp, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
