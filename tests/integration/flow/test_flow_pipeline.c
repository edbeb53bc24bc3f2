/*
 * test_flow_pipeline.c - a DOCA-sample-style program: root BASIC pipe on the UDP
 * destination port -> HASH pipe on the IPv4 destination (8 entries, per-entry counter,
 * per-entry source-port path selector, per-entry port) -> ports 0/1. Verifies counters
 * per entry and per miss, forwarding per entry, the rewritten source port with valid
 * checksums, drops, and that doca_flow_pipe_calc_hash names the entry the datapath used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "flow_test_common.h"

#define NB_PORTS 2
#define HASH_ENTRIES 8
#define NB_FLOWS 64

static struct doca_flow_port *ports[NB_PORTS];

static int setup(void **state)
{
	(void)state;
	ft_log_init();
	if (init_doca_flow(1, "vnf,hws") != DOCA_SUCCESS)
		return -1;
	return init_doca_flow_ports(NB_PORTS, ports) == DOCA_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	stop_doca_flow_ports(NB_PORTS, ports);
	doca_flow_destroy();
	return 0;
}

/* HASH pipe: hashed on ip4.dst_ip, sport rewrite per entry, per-entry port. */
static struct doca_flow_pipe *create_hash_pipe(struct doca_flow_port *port)
{
	struct doca_flow_match match_mask;
	struct doca_flow_actions actions, *actions_arr[1] = {&actions};
	struct doca_flow_monitor monitor;
	struct doca_flow_fwd fwd;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *pipe = NULL;

	memset(&match_mask, 0, sizeof(match_mask));
	memset(&actions, 0, sizeof(actions));
	memset(&monitor, 0, sizeof(monitor));
	memset(&fwd, 0, sizeof(fwd));
	match_mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	match_mask.outer.ip4.dst_ip = 0xffffffff;
	actions.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	actions.outer.udp.l4_port.src_port = 0xffff;
	monitor.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED;
	fwd.type = DOCA_FLOW_FWD_PORT;
	fwd.port_id = 0xffff;

	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, port), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "HASH_PIPE", DOCA_FLOW_PIPE_HASH, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, HASH_ENTRIES), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &match_mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, actions_arr, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &monitor), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return pipe;
}

/* Root BASIC pipe: UDP destination port per entry, fwd per entry, miss counted and dropped. */
static struct doca_flow_pipe *create_root_pipe(struct doca_flow_port *port)
{
	struct doca_flow_match match;
	struct doca_flow_monitor monitor;
	struct doca_flow_fwd fwd, fwd_miss;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *pipe = NULL;

	memset(&match, 0, sizeof(match));
	memset(&monitor, 0, sizeof(monitor));
	memset(&fwd, 0, sizeof(fwd));
	memset(&fwd_miss, 0, sizeof(fwd_miss));
	match.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV4;
	match.parser_meta.outer_l4_type = DOCA_FLOW_L4_META_UDP;
	match.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	match.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	match.outer.udp.l4_port.dst_port = 0xffff;
	monitor.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED;
	fwd.type = DOCA_FLOW_FWD_CHANGEABLE;
	fwd_miss.type = DOCA_FLOW_FWD_DROP;

	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, port), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "ROOT_PIPE", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &match, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &monitor), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, &fwd_miss, &pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return pipe;
}

static void test_root_hash_ports(void **state)
{
	(void)state;
	struct entries_status status = {0};
	struct doca_flow_pipe *hash = create_hash_pipe(ports[0]);
	struct doca_flow_pipe *root = create_root_pipe(ports[0]);
	struct doca_flow_pipe_entry *hentry[HASH_ENTRIES], *to_hash, *to_drop;
	assert_non_null(hash);
	assert_non_null(root);

	for (uint32_t i = 0; i < HASH_ENTRIES; i++) {
		struct doca_flow_actions actions;
		struct doca_flow_fwd fwd;
		memset(&actions, 0, sizeof(actions));
		memset(&fwd, 0, sizeof(fwd));
		actions.outer.udp.l4_port.src_port = DOCA_HTOBE16(40000 + i);
		fwd.type = DOCA_FLOW_FWD_PORT;
		fwd.port_id = (uint16_t)(i % 2);
		assert_int_equal(doca_flow_pipe_hash_add_entry(0, hash, i, 0, &actions, NULL, &fwd,
							       DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH, &status,
							       &hentry[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_flow_pipe_entry_get_status(hentry[i]), DOCA_FLOW_ENTRY_STATUS_IN_PROCESS);
	}
	struct doca_flow_match m;
	struct doca_flow_fwd f;
	memset(&m, 0, sizeof(m));
	memset(&f, 0, sizeof(f));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(5000);
	f.type = DOCA_FLOW_FWD_PIPE;
	f.next_pipe = hash;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, &f, 0, &status, &to_hash),
			 DOCA_SUCCESS);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(6000);
	f.type = DOCA_FLOW_FWD_DROP;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, &f,
							DOCA_FLOW_ENTRY_FLAGS_NO_WAIT, &status, &to_drop),
			 DOCA_SUCCESS);

	/* Nothing is in the NIC before entries_process: a packet now is a root miss. */
	assert_int_equal(ft_inject_udp4(0, 0xc0a80001, 0x0a000001, 1111, 5000), DOCA_SUCCESS);
	assert_int_equal(ft_miss_pkts(root), 1);
	assert_int_equal(flow_process_entries(ports[0], &status, HASH_ENTRIES + 2), DOCA_SUCCESS);
	assert_int_equal(status.nb_add, HASH_ENTRIES + 2);
	assert_int_equal(doca_flow_pipe_entry_get_status(to_drop), DOCA_FLOW_ENTRY_STATUS_SUCCESS);

	uint64_t expect[HASH_ENTRIES] = {0};
	for (uint32_t i = 0; i < NB_FLOWS; i++) {
		uint32_t dst = 0x0a000000u + i;
		struct doca_flow_match hm;
		uint32_t h;
		memset(&hm, 0, sizeof(hm));
		hm.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
		hm.outer.ip4.dst_ip = DOCA_HTOBE32(dst);
		assert_int_equal(doca_flow_pipe_calc_hash(hash, &hm, &h), DOCA_SUCCESS);
		expect[h % HASH_ENTRIES]++;
		assert_int_equal(ft_inject_udp4(0, 0xc0a80001, dst, (uint16_t)(1000 + i), 5000), DOCA_SUCCESS);

		/* The frame left on the entry's port with the entry's source port. */
		uint16_t out_port = (uint16_t)((h % HASH_ENTRIES) % 2);
		uint8_t buf[FLOWDPA_MAX_FRAME];
		uint32_t len;
		assert_int_equal(flowdpa_port_capture_pop(out_port, buf, sizeof(buf), &len), DOCA_SUCCESS);
		assert_int_equal(flowdpa_port_capture_count(out_port ^ 1), 0);
		assert_int_equal(ft_ip4_dst(buf), dst);
		assert_int_equal(ft_sport(buf), 40000 + h % HASH_ENTRIES);
		assert_int_equal(ft_dport(buf), 5000);
		assert_true(ft_checksums_ok(buf, len));
	}
	for (int i = 0; i < 5; i++)
		assert_int_equal(ft_inject_udp4(0, 0xc0a80001, 0x0a000001, 1, 6000), DOCA_SUCCESS);
	for (int i = 0; i < 7; i++)
		assert_int_equal(ft_inject_udp4(0, 0xc0a80001, 0x0a000001, 1, 7000), DOCA_SUCCESS);
	/* A TCP packet to port 5000 fails the pipe's UDP check: a miss. */
	uint8_t tcp[128];
	uint32_t tlen = ft_build4(tcp, 6, 0xc0a80001, 0x0a000001, 1, 5000, 0);
	assert_int_equal(flowdpa_port_inject(0, tcp, tlen), DOCA_SUCCESS);

	uint64_t sum = 0;
	for (uint32_t i = 0; i < HASH_ENTRIES; i++) {
		assert_int_equal(ft_entry_pkts(hentry[i]), expect[i]);
		sum += expect[i];
	}
	assert_int_equal(sum, NB_FLOWS);
	assert_int_equal(ft_entry_pkts(to_hash), NB_FLOWS);
	assert_int_equal(ft_entry_pkts(to_drop), 5);
	assert_int_equal(ft_miss_pkts(root), 1 + 7 + 1);
	struct doca_flow_resource_query q;
	assert_int_equal(doca_flow_resource_query_entry(to_drop, &q), DOCA_SUCCESS);
	assert_int_equal(q.counter.total_bytes, 5 * 60);
	/* The hash pipe has no miss counter. */
	assert_int_equal(doca_flow_resource_query_pipe_miss(hash, &q), DOCA_ERROR_INVALID_VALUE);

	struct flowdpa_port_stats st0, st1;
	assert_int_equal(flowdpa_port_stats_get(0, &st0), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_stats_get(1, &st1), DOCA_SUCCESS);
	assert_int_equal(st0.rx_pkts, 1 + NB_FLOWS + 5 + 7 + 1);
	assert_int_equal(st0.drops, 1 + 5 + 7 + 1);
	assert_int_equal(st0.tx_pkts + st1.tx_pkts, NB_FLOWS);
	assert_int_equal(st1.rx_pkts, 0);

	/* Update entry 0's path selector through the queue: new frames carry the new value. */
	struct doca_flow_actions na;
	memset(&na, 0, sizeof(na));
	na.outer.udp.l4_port.src_port = DOCA_HTOBE16(55555);
	struct doca_flow_fwd nf = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	assert_int_equal(doca_flow_pipe_basic_update_entry(0, hash, 0, &na, NULL, &nf, 0, hentry[0]), DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, HASH_ENTRIES + 3), DOCA_SUCCESS);
	assert_int_equal(status.nb_upd, 1);
	for (uint32_t i = 0; i < NB_FLOWS; i++) {
		struct doca_flow_match hm;
		uint32_t h;
		memset(&hm, 0, sizeof(hm));
		hm.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
		hm.outer.ip4.dst_ip = DOCA_HTOBE32(0x0a000000u + i);
		doca_flow_pipe_calc_hash(hash, &hm, &h);
		if (h % HASH_ENTRIES != 0)
			continue;
		ft_drain(0);
		ft_drain(1);
		assert_int_equal(ft_inject_udp4(0, 1, 0x0a000000u + i, 9, 5000), DOCA_SUCCESS);
		uint8_t buf[FLOWDPA_MAX_FRAME];
		uint32_t len;
		assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
		assert_int_equal(ft_sport(buf), 55555);
		assert_true(ft_checksums_ok(buf, len));
		break;
	}

	/* Remove the drop entry: its traffic becomes root misses. */
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, to_drop), DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, HASH_ENTRIES + 4), DOCA_SUCCESS);
	assert_int_equal(status.nb_del, 1);
	uint64_t miss_before = ft_miss_pkts(root);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 6000), DOCA_SUCCESS);
	assert_int_equal(ft_miss_pkts(root), miss_before + 1);

	FILE *dump = tmpfile();
	assert_non_null(dump);
	assert_int_equal(doca_flow_pipe_dump(hash, dump), DOCA_SUCCESS);
	assert_true(ftell(dump) > 0);
	fclose(dump);
}

/* Root pipe with no miss fwd: misses of a root pipe go to the host queue (default miss). */
/* ECMP next hops: a hash pipe whose only per-entry rewrite is the destination MAC
 * (a field that cannot carry a path selector) still creates and rewrites per entry. */
static void test_hash_per_entry_mac(void **state)
{
	(void)state;
	struct entries_status status = {0};
	struct doca_flow_match mask, m;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd to_hash = {.type = DOCA_FLOW_FWD_PIPE};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *hash = NULL, *root = NULL;

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	memset(act.outer.eth.dst_mac, 0xff, 6);
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "ECMP", DOCA_FLOW_PIPE_HASH, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 4), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &to1, NULL, &hash), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	for (uint32_t i = 0; i < 4; i++) {
		static const uint8_t base[6] = {0x02, 0, 0, 0, 0xaa, 0};

		memset(&act, 0, sizeof(act));
		memcpy(act.outer.eth.dst_mac, base, 6);
		act.outer.eth.dst_mac[5] = (uint8_t)i;
		assert_int_equal(doca_flow_pipe_hash_add_entry(0, hash, i, 0, &act, NULL, NULL, 0, &status, NULL),
				 DOCA_SUCCESS);
	}
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	to_hash.next_pipe = hash;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "ROOT", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &to_hash, NULL, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, NULL, 0, NULL, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 5), DOCA_SUCCESS);

	for (uint32_t i = 0; i < 32; i++) {
		struct doca_flow_match hm;
		uint8_t buf[FLOWDPA_MAX_FRAME];
		uint32_t len, h, dst = 0x0a000000u + i;

		memset(&hm, 0, sizeof(hm));
		hm.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
		hm.outer.ip4.dst_ip = DOCA_HTOBE32(dst);
		assert_int_equal(doca_flow_pipe_calc_hash(hash, &hm, &h), DOCA_SUCCESS);
		ft_drain(1);
		assert_int_equal(ft_inject_udp4(0, 0xc0a80001, dst, 7, 5000), DOCA_SUCCESS);
		assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
		assert_int_equal(buf[4], 0xaa);
		assert_int_equal(buf[5], h % 4); /* the MAC of the entry the hash chose */
		assert_true(ft_checksums_ok(buf, len));
	}
}

static void test_default_miss_to_host(void **state)
{
	(void)state;
	struct entries_status status = {0};
	struct doca_flow_match match;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *root;
	struct doca_flow_pipe_entry *e;

	memset(&match, 0, sizeof(match));
	match.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	match.outer.ip4.dst_ip = 0xffffffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "ROOT", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &match, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	match.outer.ip4.dst_ip = BE_IPV4_ADDR(10, 1, 1, 1);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &match, 0, NULL, NULL, NULL, 0, &status, &e),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	/* No counter was asked for. */
	struct doca_flow_resource_query q;
	assert_int_equal(doca_flow_resource_query_entry(e, &q), DOCA_ERROR_INVALID_VALUE);

	assert_int_equal(ft_inject_udp4(0, 1, 0x0a010101, 1, 2), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 0x0a010102, 1, 2), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	assert_int_equal(flowdpa_host_capture_count(0), 1);
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	assert_int_equal(flowdpa_host_capture_pop(0, buf, sizeof(buf), &len), DOCA_SUCCESS);
	assert_int_equal(ft_ip4_dst(buf), 0x0a010102);
	assert_int_equal(flowdpa_host_capture_pop(0, buf, sizeof(buf), &len), DOCA_ERROR_NOT_FOUND);
	/* An IPv6 frame never equals an IPv4 destination: also a miss. */
	uint8_t v6[80] = {0};
	v6[12] = 0x86, v6[13] = 0xdd, v6[14] = 0x60, v6[20] = 17, v6[21] = 64;
	v6[14 + 24] = 10, v6[14 + 25] = 1, v6[14 + 26] = 1, v6[14 + 27] = 1;
	assert_int_equal(flowdpa_port_inject(0, v6, sizeof(v6)), DOCA_SUCCESS);
	assert_int_equal(flowdpa_host_capture_count(0), 1);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_root_hash_ports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_miss_to_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hash_per_entry_mac, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
