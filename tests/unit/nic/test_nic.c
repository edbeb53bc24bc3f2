/*
 * test_nic.c - unit tests of the software NIC below DOCA Flow: the parser and packet
 * key, key hashing, external resources, pipe and entry creation errors, the datapath
 * on NIC pipes, capture rings, port statistics and the traffic generator.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include <nic/nic.h>
#include <nic/nic_internal.h>

#include "frames.h"
#include "sdk_log.h"

static void test_parse_udp4(void **state)
{
	(void)state;
	uint8_t f[128];
	uint32_t len = ft_udp4(f, 0x01020304, 0x0a000001, 1111, 2222);
	struct nic_key k;
	struct nic_hdr_off off;
	assert_true(nic_parse(f, len, 3, &k, &off));
	uint16_t port;
	memcpy(&port, k.b + NIC_K_PORT, 2);
	assert_int_equal(port, 3);
	assert_int_equal(k.b[NIC_K_L3_META], 1);
	assert_int_equal(k.b[NIC_K_L4_META], 2);
	assert_int_equal(k.b[NIC_K_L3_OK], 1);
	assert_int_equal(k.b[NIC_K_L4_OK], 1);
	assert_int_equal(ft_rd32(k.b + NIC_K_IP_SRC), 0x01020304);
	assert_int_equal(ft_rd32(k.b + NIC_K_IP_DST), 0x0a000001);
	assert_int_equal(ft_rd16(k.b + NIC_K_L4_SRC), 1111);
	assert_int_equal(ft_rd16(k.b + NIC_K_L4_DST), 2222);
	assert_int_equal(ft_rd16(k.b + NIC_K_ETH_TYPE), 0x0800);
	assert_int_equal(k.b[NIC_K_IP_PROTO], 17);
	assert_int_equal(k.b[NIC_K_IP_TTL], 64);
	assert_int_equal(off.l3, 14);
	assert_int_equal(off.l4, 34);
}

static void test_parse_tcp_vlan_icmp_v6(void **state)
{
	(void)state;
	uint8_t f[160], v[160];
	struct nic_key k;
	uint32_t len = ft_build4(f, 6, 1, 2, 80, 443, 0);
	f[34 + 13] = 0x12; /* SYN|ACK */
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_L4_META], 1);
	assert_int_equal(k.b[NIC_K_TCP_FLAGS], 0x12);

	/* One VLAN tag in front of the same frame. */
	memcpy(v, f, len);
	assert_true(nic_parse(v, ft_vlan_push(v, len, 0x2007), 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_L2_META], 2);
	assert_int_equal(ft_rd16(k.b + NIC_K_VLAN_TCI), 0x2007);
	assert_int_equal(ft_rd16(k.b + NIC_K_L4_DST), 443);

	/* ICMP echo. */
	len = ft_build4(f, 17, 1, 2, 0, 0, 4);
	f[23] = 1;
	f[34] = 8, f[35] = 0, f[38] = 0x12, f[39] = 0x34;
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_L4_META], 3);
	assert_int_equal(k.b[NIC_K_ICMP_TYPE], 8);
	assert_int_equal(ft_rd16(k.b + NIC_K_ICMP_IDENT), 0x1234);
	assert_int_equal(ft_rd16(k.b + NIC_K_L4_SRC), 0);

	/* IPv6/UDP with a flow label. */
	memset(v, 0, sizeof(v));
	v[12] = 0x86, v[13] = 0xdd;
	v[14] = 0x60, v[15] = 0x0a, v[16] = 0xbc, v[17] = 0xde;
	v[14 + 6] = 17, v[14 + 7] = 33;
	v[14 + 8] = 0x20, v[14 + 9] = 0x01, v[14 + 39] = 0x09;
	v[54] = 0x04, v[55] = 0xd2, v[56] = 0x16, v[57] = 0x2e;
	assert_true(nic_parse(v, 62, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_L3_META], 2);
	assert_int_equal(k.b[NIC_K_IP_TTL], 33);
	assert_int_equal(ft_rd32(k.b + NIC_K_IP6_FLOW), 0xabcde);
	assert_int_equal(k.b[NIC_K_IP_SRC], 0x20);
	assert_int_equal(k.b[NIC_K_IP_DST + 15], 0x09);
	assert_int_equal(ft_rd16(k.b + NIC_K_L4_SRC), 1234);
	assert_int_equal(ft_rd16(k.b + NIC_K_L4_DST), 5678);
}

static void test_parse_truncated(void **state)
{
	(void)state;
	uint8_t f[128];
	struct nic_key k;
	uint32_t len = ft_udp4(f, 1, 2, 3, 4);
	assert_false(nic_parse(f, 13, 0, &k, NULL));
	/* IPv4 header cut short: L3 type known, nothing else. */
	assert_true(nic_parse(f, 20, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_L3_META], 1);
	assert_int_equal(k.b[NIC_K_L3_OK], 0);
	assert_int_equal(ft_rd32(k.b + NIC_K_IP_DST), 0);
	/* UDP header cut short: the IPv4 total length is beyond the frame too. */
	assert_true(nic_parse(f, 38, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_L3_OK], 0);
	assert_int_equal(k.b[NIC_K_L4_META], 2);
	assert_int_equal(k.b[NIC_K_L4_OK], 0);
	/* A non-first fragment has no L4 header. */
	f[14 + 6] = 0x00, f[14 + 7] = 0x10;
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_FRAG], 1);
	assert_int_equal(k.b[NIC_K_L4_META], 0);
}

static void test_key_hash(void **state)
{
	(void)state;
	struct nic_key a, b, mask;
	memset(&a, 0x11, sizeof(a));
	memset(&b, 0x11, sizeof(b));
	memset(&mask, 0, sizeof(mask));
	memset(mask.b + NIC_K_IP_DST, 0xff, 4);
	assert_int_equal(nic_key_hash(&a, &mask), nic_key_hash(&b, &mask));
	b.b[NIC_K_L4_SRC] = 0x22; /* outside the mask */
	assert_int_equal(nic_key_hash(&a, &mask), nic_key_hash(&b, &mask));
	b.b[NIC_K_IP_DST + 3] = 0x22;
	assert_int_not_equal(nic_key_hash(&a, &mask), nic_key_hash(&b, &mask));
}

static void test_resources(void **state)
{
	(void)state;
	struct nic_idxsel *sel;
	struct nic_mem *mem;
	uint32_t st;
	uint64_t v;
	assert_int_equal(nic_idxsel_create(0, &sel), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_idxsel_create(4, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_idxsel_create(4, &sel), DOCA_SUCCESS);
	assert_int_equal(nic_idxsel_size(sel), 4);
	assert_int_equal(nic_idxsel_get(sel, 3, &st), DOCA_SUCCESS);
	assert_int_equal(st, 0);
	assert_int_equal(nic_idxsel_set(sel, 3, 2), DOCA_SUCCESS);
	assert_int_equal(nic_idxsel_get(sel, 3, &st), DOCA_SUCCESS);
	assert_int_equal(st, 2);
	assert_int_equal(nic_idxsel_set(sel, 4, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_idxsel_set(sel, 0, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_idxsel_get(sel, 4, &st), DOCA_ERROR_INVALID_VALUE);
	nic_idxsel_destroy(sel);
	assert_int_equal(nic_mem_create(0, &mem), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_mem_create(2, &mem), DOCA_SUCCESS);
	assert_int_equal(nic_mem_write(mem, 1, 99), DOCA_SUCCESS);
	assert_int_equal(nic_mem_read(mem, 1, &v), DOCA_SUCCESS);
	assert_int_equal(v, 99);
	assert_int_equal(nic_mem_write(mem, 2, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_mem_read(mem, 2, &v), DOCA_ERROR_INVALID_VALUE);
	nic_mem_destroy(mem);
}

static struct nic_pipe *basic_on_dport(uint16_t port, bool root, uint32_t n)
{
	struct nic_pipe_attr a;
	struct nic_pipe *p = NULL;
	memset(&a, 0, sizeof(a));
	a.type = NIC_PIPE_BASIC;
	a.name = "basic";
	a.port_id = port;
	a.is_root = root;
	a.nr_entries = n;
	a.ps_field = -1;
	a.miss_counter = true;
	a.fwd_miss.type = NIC_FWD_DROP;
	memset(a.entry_mask.b + NIC_K_L4_DST, 0xff, 2);
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_SUCCESS);
	return p;
}

static struct nic_entry *add_dport(struct nic_pipe *p, uint16_t dport, uint16_t out_port, doca_error_t expect)
{
	struct nic_entry_attr ea;
	struct nic_entry *e = NULL;
	memset(&ea, 0, sizeof(ea));
	ft_wr16(ea.match.b + NIC_K_L4_DST, dport);
	ea.fwd.type = NIC_FWD_PORT;
	ea.fwd.port_id = out_port;
	ea.own_counter = true;
	assert_int_equal(nic_entry_add(p, &ea, &e), expect);
	return e;
}

static void test_pipe_errors(void **state)
{
	(void)state;
	struct nic_pipe_attr a;
	struct nic_pipe *p = NULL;
	memset(&a, 0, sizeof(a));
	a.type = NIC_PIPE_BASIC;
	a.ps_field = -1;
	a.port_id = 5;
	a.nr_entries = 4;
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_ERROR_BAD_STATE); /* port not started */
	assert_int_equal(nic_port_start(5), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(5), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(nic_port_start(16), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_port_set_manager(5, 5), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_port_set_manager(5, 16), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_port_set_manager(6, 5), DOCA_ERROR_BAD_STATE);
	assert_int_equal(nic_port_set_manager(5, -1), DOCA_SUCCESS);
	a.nr_entries = 0;
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_ERROR_INVALID_VALUE);
	a.nr_entries = 4;
	struct nic_mem *mem;
	assert_int_equal(nic_mem_create(2, &mem), DOCA_SUCCESS);
	a.mem = mem;
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_ERROR_INVALID_VALUE); /* not a hash pipe */
	a.type = NIC_PIPE_HASH;
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_ERROR_INVALID_VALUE); /* 2 cells < 4 entries */
	a.mem = NULL;
	a.map_algorithm = NIC_MAP_RANDOM | NIC_MAP_IDENTITY;
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_ERROR_INVALID_VALUE);
	a.map_algorithm = 0;
	a.ps_field = NIC_AF_ETH_SRC; /* a MAC cannot carry a path-selector value */
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_ERROR_INVALID_VALUE);
	a.ps_field = NIC_AF_L4_SRC;
	a.is_root = true;
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_SUCCESS);
	struct nic_pipe *p2 = NULL;
	assert_int_equal(nic_pipe_create(&a, &p2), DOCA_ERROR_ALREADY_EXIST);
	assert_null(p2);

	struct nic_entry_attr ea;
	struct nic_entry *e;
	memset(&ea, 0, sizeof(ea));
	ea.index = 4;
	assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_ERROR_INVALID_VALUE);
	ea.index = 1;
	ea.ps_value = 0x10000;
	assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_ERROR_INVALID_VALUE);
	ea.ps_value = 7;
	assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_SUCCESS);
	assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(nic_pipe_nr_live_entries(p), 1);
	struct nic_hash_op op = {.type = NIC_HASH_OP_REPLACE, .index = 0, .value = 1};
	nic_hash_exec(p, &op, 1);
	assert_int_equal(op.result, DOCA_ERROR_NOT_FOUND);
	uint32_t h;
	assert_int_equal(nic_pipe_calc_hash(p, &ea.match, &h), DOCA_SUCCESS);
	nic_pipe_destroy(p);
	assert_false(nic_pipe_alive(p));
	op = (struct nic_hash_op){.type = NIC_HASH_OP_DISABLE, .index = 1};
	nic_hash_exec(p, &op, 1);
	assert_int_equal(op.result, DOCA_ERROR_INVALID_VALUE);
	/* The root slot is free again. */
	assert_int_equal(nic_pipe_create(&a, &p2), DOCA_SUCCESS);
	nic_mem_destroy(mem);
	assert_int_equal(nic_port_stop(5), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(5), DOCA_ERROR_NOT_FOUND);
}

static void test_datapath_basic(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	struct nic_pipe *p = basic_on_dport(0, true, 2);
	uint32_t h;
	struct nic_key k;
	memset(&k, 0, sizeof(k));
	assert_int_equal(nic_pipe_calc_hash(p, &k, &h), DOCA_ERROR_INVALID_VALUE); /* not a HASH pipe */
	struct nic_entry *e80 = add_dport(p, 80, 1, DOCA_SUCCESS);
	add_dport(p, 80, 1, DOCA_ERROR_ALREADY_EXIST);
	struct nic_entry *e81 = add_dport(p, 81, 1, DOCA_SUCCESS);
	add_dport(p, 82, 1, DOCA_ERROR_FULL);

	uint8_t frames[4][128];
	struct nic_buf bufs[5];
	uint16_t dports[4] = {80, 81, 81, 99};
	for (int i = 0; i < 4; i++) {
		bufs[i].data = frames[i];
		bufs[i].len = ft_udp4(frames[i], 1, 2, 3, dports[i]);
	}
	uint8_t junk[8] = {0};
	bufs[4].data = junk;
	bufs[4].len = sizeof(junk);
	assert_int_equal(nic_port_rx_burst(0, bufs, 5), 4);
	uint64_t pk, by;
	assert_int_equal(nic_entry_counter_read(p, e80, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, 1);
	assert_int_equal(by, 60);
	assert_int_equal(nic_entry_counter_read(p, e81, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, 2);
	assert_int_equal(nic_pipe_miss_read(p, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, 1);
	struct nic_port_stats s;
	assert_int_equal(nic_port_stats_get(0, &s), DOCA_SUCCESS);
	assert_int_equal(s.rx_pkts, 4);
	assert_int_equal(s.rx_errors, 1);
	assert_int_equal(s.drops, 1);
	assert_int_equal(nic_port_stats_get(1, &s), DOCA_SUCCESS);
	assert_int_equal(s.tx_pkts, 3);
	assert_int_equal(s.tx_bytes, 180);
	assert_int_equal(nic_capture_count(1, NIC_CAPTURE_TX), 3);

	/* Capture ring of depth 1: one kept, the next counted as overflow. */
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 1), DOCA_SUCCESS);
	assert_int_equal(nic_capture_count(1, NIC_CAPTURE_TX), 0);
	for (int i = 0; i < 2; i++) {
		bufs[0].len = ft_udp4(frames[0], 1, 2, 3, 80);
		nic_port_rx_burst(0, bufs, 1);
	}
	uint8_t out[64];
	uint32_t len;
	assert_int_equal(nic_capture_pop(1, NIC_CAPTURE_TX, out, sizeof(out), &len), DOCA_SUCCESS);
	assert_int_equal(len, 60);
	assert_int_equal(nic_capture_pop(1, NIC_CAPTURE_TX, out, sizeof(out), &len), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(nic_port_stats_get(1, &s), DOCA_SUCCESS);
	assert_int_equal(s.capture_overflow, 1);

	/* Remove: the key now misses; update: fwd DROP. */
	assert_int_equal(nic_entry_remove(p, e80), DOCA_SUCCESS);
	nic_entry_free(p, e80);
	struct nic_actions na = {0};
	struct nic_fwd drop = {.type = NIC_FWD_DROP};
	assert_int_equal(nic_entry_update(p, e81, &na, 0, &drop), DOCA_SUCCESS);
	bufs[0].len = ft_udp4(frames[0], 1, 2, 3, 80);
	bufs[1].len = ft_udp4(frames[1], 1, 2, 3, 81);
	assert_int_equal(nic_port_rx_burst(0, bufs, 2), 2);
	assert_int_equal(nic_pipe_miss_read(p, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, 2);
	assert_int_equal(nic_port_stats_get(0, &s), DOCA_SUCCESS);
	assert_int_equal(s.drops, 3);

	/* Port 1 stopped: frames to it are dropped; a stopped port takes no frames. */
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_rx_burst(1, bufs, 1), 0);
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
	uint16_t busy_port;
	assert_int_equal(nic_traffic_wait(10, &busy_port), DOCA_SUCCESS);
}

/* One frame to dport through port port_id. */
static void rx_dport(uint16_t port_id, uint16_t dport)
{
	uint8_t f[128];
	struct nic_buf b = {f, ft_udp4(f, 1, 2, 3, dport)};
	assert_int_equal(nic_port_rx_burst(port_id, &b, 1), 1);
}

/*
 * A root pipe freed and a new one of the same shape created: the new pipe's object and
 * bucket table may come back at the old ones' addresses while its entry pool does not
 * (its old place is taken here), and a thread's reused hot plan then looked the new
 * buckets' entries up in the old pool: every packet missed (seen under TSan, whose
 * allocator reuses addresses differently). Each round checks the hit; a run where the
 * allocator never made that layout (ASan's quarantine reuses no address) saw nothing
 * and says so as a skip.
 */
static void test_new_root_at_old_address(void **state)
{
	(void)state;
	enum { ROUNDS = 64 };
	void *taken[ROUNDS];
	const void *old_pp = NULL, *old_bt = NULL, *old_pool = NULL;
	uint32_t stale_layouts = 0;
	for (uint32_t i = 0; i < ROUNDS; i++) {
		assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
		assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
		struct nic_pipe *p = basic_on_dport(0, true, 64);
		struct nic_entry *e = add_dport(p, 80, 1, DOCA_SUCCESS);
		stale_layouts += p == old_pp && nic_pipe_buckets(p).b == old_bt && p->pool != old_pool;
		rx_dport(0, 80);
		uint64_t pk, by;
		assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
		assert_int_equal(pk, 1);
		old_pp = p;
		old_bt = nic_pipe_buckets(p).b;
		old_pool = p->pool;
		nic_pipe_destroy(p);
		assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
		assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
		nic_pipes_free_all(); /* as doca_flow_destroy */
		/* Keep the next pool out of this one's place (EEXIST: something else does). */
		taken[i] = mmap((void *)old_pool, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	}
	for (uint32_t i = 0; i < ROUNDS; i++)
		if (taken[i] != MAP_FAILED)
			munmap(taken[i], 4096);
	print_message("%u of %u rounds had the old pipe's object and buckets with a new pool\n", stale_layouts,
		      ROUNDS - 1);
	if (stale_layouts == 0)
		skip();
}

/* Every drop counts under its reason (issue 12: fwd to a port that is not started has its
 * own, port_not_started), and drops is their sum. */
static void test_drop_reasons(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(2), DOCA_SUCCESS); /* no root pipe */
	struct nic_pipe *p = basic_on_dport(0, true, 4);
	struct nic_pipe *gone = basic_on_dport(0, false, 1);
	add_dport(p, 80, 1, DOCA_SUCCESS);
	add_dport(p, 81, 7, DOCA_SUCCESS); /* port 7: never started */
	struct nic_entry_attr ea;
	struct nic_entry *e = NULL;
	memset(&ea, 0, sizeof(ea));
	ft_wr16(ea.match.b + NIC_K_L4_DST, 82);
	ea.fwd.type = NIC_FWD_PIPE;
	ea.fwd.pipe = gone;
	assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_SUCCESS);
	nic_pipe_destroy(gone);

	rx_dport(0, 80); /* sent */
	rx_dport(0, 81); /* port_not_started */
	rx_dport(0, 81);
	rx_dport(0, 82); /* pipe_destroyed */
	rx_dport(0, 99); /* miss: fwd_drop */
	rx_dport(2, 80); /* no_root_pipe */
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	rx_dport(0, 80); /* port 1 stopped: port_not_started */

	struct nic_port_stats s;
	assert_int_equal(nic_port_stats_get(0, &s), DOCA_SUCCESS);
	assert_int_equal(s.drop_reason[NIC_DROP_PORT_DOWN], 3);
	assert_int_equal(s.drop_reason[NIC_DROP_PIPE_DESTROYED], 1);
	assert_int_equal(s.drop_reason[NIC_DROP_FWD_DROP], 1);
	assert_int_equal(s.drop_reason[NIC_DROP_NO_ROOT], 0);
	assert_int_equal(s.drop_reason[NIC_DROP_PIPE_LOOP], 0);
	assert_int_equal(s.drops, 5);
	assert_int_equal(nic_port_stats_get(2, &s), DOCA_SUCCESS);
	assert_int_equal(s.drop_reason[NIC_DROP_NO_ROOT], 1);
	assert_int_equal(s.drops, 1);
	assert_string_equal(nic_drop_reason_name(NIC_DROP_PORT_DOWN), "port_not_started");
	assert_string_equal(nic_drop_reason_name(NIC_DROP_FWD_DROP), "fwd_drop");
	assert_string_equal(nic_drop_reason_name(NIC_DROP_NO_ROOT), "no_root_pipe");
	assert_string_equal(nic_drop_reason_name(NIC_DROP_PIPE_DESTROYED), "pipe_destroyed");
	assert_string_equal(nic_drop_reason_name(NIC_DROP_PIPE_LOOP), "pipe_loop");
	assert_string_equal(nic_drop_reason_name(NIC_DROP_NR_REASONS), "unknown");
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(2), DOCA_SUCCESS);
}

/* ------------------------------------------------------------------ fast path vs general path */

/* Frame shapes around the parser's fast path (Eth/IPv4 no options, not a fragment, UDP or TCP). */
enum shape { SH_UDP, SH_UDP_NOCSUM, SH_TCP, SH_VLAN, SH_IP6, SH_FRAG_FIRST, SH_FRAG_LATER, SH_DF, SH_IHL6,
	     SH_BAD_IPCSUM, SH_ICMP, SH_ARP, SH_TCP_SHORT, SH_COUNT };

static uint32_t shape_frame(uint8_t *f, enum shape sh, uint32_t dst, uint16_t sport)
{
	uint32_t len;
	switch (sh) {
	case SH_TCP:
	case SH_TCP_SHORT:
		len = ft_build4(f, 6, 0xc0a80001u, dst, sport, 5000, 10);
		return sh == SH_TCP_SHORT ? 50 : len; /* 50: IPv4 complete, TCP header cut */
	case SH_ICMP:
		len = ft_build4(f, 1, 0xc0a80001u, dst, sport, 5000, 18);
		return len;
	default:
		len = ft_udp4(f, 0xc0a80001u, dst, sport, 5000);
		break;
	}
	switch (sh) {
	case SH_UDP_NOCSUM:
		f[40] = f[41] = 0;
		break;
	case SH_VLAN:
		memmove(f + 18, f + 12, len - 12);
		f[12] = 0x81, f[13] = 0x00, f[14] = 0x00, f[15] = 0x07;
		len += 4;
		break;
	case SH_IP6: { /* same UDP header after a 40-byte IPv6 header, dst ::ffff:dst */
		uint8_t udp[26];
		memcpy(udp, f + 34, 26);
		memset(f + 12, 0, 42);
		f[12] = 0x86, f[13] = 0xdd, f[14] = 0x60;
		ft_wr16(f + 18, 26);
		f[20] = 17, f[21] = 64;
		ft_wr32(f + 50, dst);
		memcpy(f + 54, udp, 26);
		len = 80;
		break;
	}
	case SH_FRAG_FIRST:
		f[20] |= 0x20; /* MF */
		break;
	case SH_FRAG_LATER:
		f[21] = 0x10;
		break;
	case SH_DF:
		f[20] |= 0x40;
		break;
	case SH_IHL6: /* 4 option bytes (NOPs) between IPv4 and UDP */
		memmove(f + 38, f + 34, len - 34);
		f[14] = 0x46, f[34] = f[35] = f[36] = f[37] = 1;
		len += 4;
		break;
	case SH_BAD_IPCSUM:
		f[24] ^= 0x55;
		break;
	case SH_ARP:
		f[12] = 0x08, f[13] = 0x06;
		break;
	default:
		break;
	}
	return len;
}

/* nic_parse (fast path when the shape fits) gives exactly nic_parse_general's key. */
static void test_parse_fast_equals_general(void **state)
{
	(void)state;
	uint8_t f[128];
	struct nic_key k1, k2;
	struct nic_hdr_off o1, o2;
	for (int sh = 0; sh < SH_COUNT; sh++) {
		uint32_t full = shape_frame(f, (enum shape)sh, 0x0a000005u, 1234);
		for (uint32_t len = 0; len <= full; len++) {
			memset(&o1, 0xaa, sizeof(o1));
			memset(&o2, 0x55, sizeof(o2));
			bool r1 = nic_parse(f, len, 7, &k1, &o1), r2 = nic_parse_general(f, len, 7, &k2, &o2);
			assert_int_equal(r1, r2);
			if (!r1)
				continue;
			assert_memory_equal(k1.b, k2.b, sizeof(k1.b));
			assert_memory_equal(&o1, &o2, sizeof(o1));
		}
	}
	/* Random single and double byte changes in the headers of UDP and TCP frames. */
	srand(12345);
	for (int it = 0; it < 200000; it++) {
		uint32_t len = shape_frame(f, it & 1 ? SH_TCP : SH_UDP, (uint32_t)rand(), (uint16_t)rand());
		for (int m = 0; m < 1 + (it & 1); m++) {
			static const uint8_t vals[] = {0, 1, 6, 17, 0x08, 0x20, 0x3f, 0x40, 0x45, 0x46, 0x81, 0x86, 0xdd, 0xff};
			f[12 + rand() % 40] = rand() % 3 ? vals[rand() % sizeof(vals)] : (uint8_t)rand();
		}
		uint32_t l = (it % 7) ? len : (uint32_t)rand() % (len + 1);
		bool r1 = nic_parse(f, l, 3, &k1, &o1), r2 = nic_parse_general(f, l, 3, &k2, &o2);
		assert_int_equal(r1, r2);
		if (r1) {
			assert_memory_equal(k1.b, k2.b, sizeof(k1.b));
			assert_memory_equal(&o1, &o2, sizeof(o1));
		}
	}
}

/* Every key word read from a common-shape frame by its recipe is the parser's word. */
static void test_fast_words_equal_general(void **state)
{
	(void)state;
	uint8_t f[128];
	struct nic_key k;
	struct nic_hdr_off o;
	srand(777);
	for (int it = 0; it < 100000; it++) {
		uint32_t len = shape_frame(f, it & 1 ? SH_TCP : SH_UDP, (uint32_t)rand(), (uint16_t)rand());
		for (uint32_t b = 0; b < 12; b++) /* MAC addresses */
			f[b] = (uint8_t)rand();
		f[15] = (uint8_t)rand(), f[22] = (uint8_t)rand(); /* TOS, TTL */
		for (uint32_t b = 26; b < len; b++) /* addresses, ports, the rest but the L4 lengths */
			if (rand() % 3 == 0 && b != 38 && b != 39 && b != 46)
				f[b] = (uint8_t)rand();
		uint16_t port = (uint16_t)(rand() % NIC_MAX_PORTS);
		uint32_t l4meta = nic_fast_shape(f, len);
		assert_int_equal(l4meta, it & 1 ? 1 : 2);
		assert_true(nic_parse_general(f, len, port, &k, &o));
		for (uint32_t w = 0; w < NIC_KEY_WORDS; w++) {
			uint64_t v = w == NIC_FAST_WORD7 ? nic_fast_word7(f, l4meta)
							 : nic_fast_recipe_apply(&nic_fast_recipes[w], f, port, l4meta);
			assert_true(v == k.w[w]);
		}
	}
}

/*
 * The root fast path against the general path: the same frames through a pipe that
 * rewrites the UDP/TCP ports, once as the port's root with the rewrite alone, once
 * behind a pass-through root (looked up by the pipe walk, not the root's fast path) with
 * an extra Ethernet-source rewrite to the value the frames already carry (which takes
 * apply_actions). Every frame as rx left it (digested in order), the entry counters,
 * the misses and the port's transmit count must be identical. Port 1 keeps no capture,
 * so a hit is done entirely by the fast path.
 * Roots match or hash the IPv4 destination; BASIC ones under a constant on the L3 type
 * or the L4 type (parser meta under a partial mask: UDP passes, TCP misses) or on the
 * IPv4 source (frame bytes; every third frame comes from another source and misses);
 * HASH ones carry the source or the destination port as their path-selector field.
 */
struct shapes_run {
	uint64_t hits, misses, tx, digest;
	uint8_t first[SH_COUNT][128]; /* the frames of burst 0, one per shape */
	uint32_t first_len[SH_COUNT];
};

static uint64_t fnv1a(uint64_t h, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Ports of entry i: 0xffff and 0 make some frames' UDP checksum come out as 0. */
static uint16_t entry_sport(uint32_t i)
{
	return i == 3 ? 0xffff : i == 5 ? 0 : (uint16_t)(40000 + i * 977);
}

enum shapes_root { ROOT_BASIC, ROOT_BASIC_CONST_UDP, ROOT_BASIC_CONST_SRC, ROOT_HASH, ROOT_HASH_PS_DST, ROOT_KINDS };

static struct nic_pipe *shapes_pipe(bool general, enum shapes_root kind, uint32_t nr_entries, struct nic_entry **e)
{
	bool hash_root = kind == ROOT_HASH || kind == ROOT_HASH_PS_DST;
	struct nic_pipe_attr a;
	struct nic_pipe *p = NULL;
	memset(&a, 0, sizeof(a));
	a.type = hash_root ? NIC_PIPE_HASH : NIC_PIPE_BASIC;
	a.name = general ? "general" : "fast";
	a.port_id = 0;
	a.is_root = !general;
	a.nr_entries = nr_entries; /* a small and a large table (bucket count follows it) */
	a.ps_field = kind == ROOT_HASH ? NIC_AF_L4_SRC : kind == ROOT_HASH_PS_DST ? NIC_AF_L4_DST : -1;
	a.miss_counter = true;
	a.fwd_miss.type = NIC_FWD_DROP;
	if (kind == ROOT_BASIC_CONST_SRC) {
		memset(a.const_mask.b + NIC_K_IP_SRC, 0xff, 4);
		ft_wr32(a.const_val.b + NIC_K_IP_SRC, 0xc0a80001u); /* what shape_frame sends */
	} else if (kind == ROOT_BASIC_CONST_UDP) {
		a.const_mask.b[NIC_K_L4_META] = 0x02; /* a partial mask: UDP (2) passes, TCP (1) not */
		a.const_val.b[NIC_K_L4_META] = 2;
	} else {
		a.const_mask.b[NIC_K_L3_META] = 0xff;
		a.const_val.b[NIC_K_L3_META] = 1; /* IPv4 */
	}
	memset(a.entry_mask.b + NIC_K_IP_DST, 0xff, 4);
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_SUCCESS);
	for (uint32_t i = 0; i < 16; i++) {
		struct nic_entry_attr ea;
		memset(&ea, 0, sizeof(ea));
		ft_wr32(ea.match.b + NIC_K_IP_DST, 0x0a000000u + i);
		if (hash_root && nr_entries > 16) { /* where the datapath will look for this key */
			struct nic_key k;
			uint32_t h;
			memset(&k, 0, sizeof(k));
			memcpy(k.b + NIC_K_IP_DST, ea.match.b + NIC_K_IP_DST, 4);
			k.b[NIC_K_L3_META] = 1;
			assert_int_equal(nic_pipe_calc_hash(p, &k, &h), DOCA_SUCCESS);
			ea.index = h % nr_entries;
		} else {
			ea.index = i;
		}
		if (hash_root) /* the path-selector value is the source port */
			ea.ps_value = entry_sport(i);
		else
			ea.actions.fields = 1u << NIC_AF_L4_SRC;
		ea.actions.l4_src = (uint16_t)__builtin_bswap16(entry_sport(i));
		if (i % 4 == 1) { /* some entries rewrite the destination port too */
			ea.actions.fields |= 1u << NIC_AF_L4_DST;
			ea.actions.l4_dst = (uint16_t)__builtin_bswap16((uint16_t)(i * 4099));
		}
		if (general) {
			static const uint8_t src[6] = {0x02, 0, 0, 0, 0, 0xaa}; /* what ft_build4 writes */
			ea.actions.fields |= 1u << NIC_AF_ETH_SRC;
			memcpy(ea.actions.eth_src, src, 6);
		}
		ea.fwd.type = NIC_FWD_PORT;
		ea.fwd.port_id = 1;
		ea.own_counter = true;
		assert_int_equal(nic_entry_add(p, &ea, &e[i]), DOCA_SUCCESS);
	}
	return p;
}

/*
 * A root on port 0 with one entry: IPv4 destination 10.0.0.1 (match_dst) or anything
 * (an empty mask) -> actions, fwd.
 */
static struct nic_pipe *one_entry_root(bool match_dst, const struct nic_actions *actions, const struct nic_fwd *fwd)
{
	struct nic_pipe_attr at;
	struct nic_pipe *p = NULL;
	memset(&at, 0, sizeof(at));
	at.type = NIC_PIPE_BASIC;
	at.port_id = 0;
	at.is_root = true;
	at.nr_entries = 1;
	at.ps_field = -1;
	at.fwd_miss.type = NIC_FWD_DROP;
	if (match_dst)
		memset(at.entry_mask.b + NIC_K_IP_DST, 0xff, 4);
	assert_int_equal(nic_pipe_create(&at, &p), DOCA_SUCCESS);
	struct nic_entry_attr ea;
	struct nic_entry *e;
	memset(&ea, 0, sizeof(ea));
	ft_wr32(ea.match.b + NIC_K_IP_DST, 0x0a000001u);
	if (actions)
		ea.actions = *actions;
	ea.fwd = *fwd;
	assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_SUCCESS);
	return p;
}

static const struct nic_fwd to_port1 = {.type = NIC_FWD_PORT, .port_id = 1};

static void run_shapes(bool general, enum shapes_root kind, uint32_t nr_entries, uint32_t nburst,
		       struct shapes_run *r)
{
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 0), DOCA_SUCCESS);
	struct nic_entry *e[16];
	struct nic_pipe *p = shapes_pipe(general, kind, nr_entries, e), *root = NULL;
	if (general) { /* a root that forwards everything to p */
		struct nic_fwd to_p = {.type = NIC_FWD_PIPE, .pipe = p};
		root = one_entry_root(false, NULL, &to_p);
	}
	uint8_t frames[NIC_BURST_MAX][128];
	struct nic_buf bufs[NIC_BURST_MAX];
	uint32_t sent = 0;
	memset(r, 0, sizeof(*r));
	r->digest = 0xcbf29ce484222325ull;
	for (uint32_t b = 0; b < nburst; b++) {
		uint32_t n = 1 + b % NIC_BURST_MAX;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t sh = (b + i) % SH_COUNT;
			bufs[i].data = frames[i];
			bufs[i].len = shape_frame(frames[i], (enum shape)sh, 0x0a000000u + (b * 7 + i) % 20,
						  (uint16_t)(b * 131 + i * 7919));
			if ((b + i) % 3 == 0 && bufs[i].len >= 34)
				frames[i][29] = 2; /* IPv4 source 192.168.0.2 */
		}
		assert_int_equal(nic_port_rx_burst(0, bufs, n), n);
		sent += n;
		for (uint32_t i = 0; i < n; i++) /* rewritten in place */
			r->digest = fnv1a(r->digest, frames[i], bufs[i].len);
		if (b == 0)
			for (uint32_t i = 0; i < n && i < SH_COUNT; i++) {
				memcpy(r->first[i], frames[i], bufs[i].len);
				r->first_len[i] = bufs[i].len;
			}
	}
	for (uint32_t i = 0; i < 16; i++) {
		uint64_t pk, by;
		assert_int_equal(nic_entry_counter_read(p, e[i], &pk, &by), DOCA_SUCCESS);
		r->hits += pk;
	}
	uint64_t by;
	assert_int_equal(nic_pipe_miss_read(p, &r->misses, &by), DOCA_SUCCESS);
	assert_int_equal(r->hits + r->misses, sent);
	struct nic_port_stats st;
	assert_int_equal(nic_port_stats_get(1, &st), DOCA_SUCCESS);
	r->tx = st.tx_pkts;
	assert_int_equal(r->tx, r->hits);
	if (root)
		nic_pipe_destroy(root);
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

static void assert_runs_equal(const struct shapes_run *a, const struct shapes_run *b)
{
	assert_int_equal(a->hits, b->hits);
	assert_int_equal(a->misses, b->misses);
	assert_int_equal(a->tx, b->tx);
	assert_true(a->digest == b->digest);
	for (int sh = 0; sh < SH_COUNT; sh++) {
		assert_int_equal(a->first_len[sh], b->first_len[sh]);
		assert_memory_equal(a->first[sh], b->first[sh], a->first_len[sh]);
	}
	assert_true(a->hits > 0 && a->misses > 0);
}

static void test_root_fast_equals_general(void **state)
{
	(void)state;
	static struct shapes_run fast, general;
	for (int kind = 0; kind < ROOT_KINDS; kind++) {
		/* 16 and 1000 (not a power of two) entries: cache-resident, looked up packet by
		 * packet; 128K (20 MB of hot bytes, more than any L2): prefetched in passes. */
		static const uint32_t sizes[] = {16, 1000, 1u << 17};
		for (int z = 0; z < 3; z++) {
			run_shapes(true, (enum shapes_root)kind, sizes[z], 997, &general);
			run_shapes(false, (enum shapes_root)kind, sizes[z], 997, &fast);
			assert_runs_equal(&fast, &general);
		}
	}
	/* One frame per burst, for every shape. */
	for (int sh = 0; sh < SH_COUNT; sh++) {
		uint8_t a[128], b[128];
		struct nic_buf buf = {a, 0};
		for (int g = 0; g < 2; g++) {
			assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
			assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
			struct nic_actions act;
			memset(&act, 0, sizeof(act));
			act.fields = 1u << NIC_AF_L4_SRC | (g ? 1u << NIC_AF_ETH_SRC : 0);
			act.l4_src = (uint16_t)__builtin_bswap16(777);
			static const uint8_t src[6] = {0x02, 0, 0, 0, 0, 0xaa};
			memcpy(act.eth_src, src, 6);
			struct nic_pipe *p = one_entry_root(true, &act, &to_port1);
			uint8_t *f = g ? b : a;
			buf.data = f;
			buf.len = shape_frame(f, (enum shape)sh, 0x0a000001u, 4321);
			assert_int_equal(nic_port_rx_burst(0, &buf, 1), 1);
			nic_pipe_destroy(p);
			assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
			assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
		}
		assert_memory_equal(a, b, buf.len);
		/* Plain UDP/TCP shapes: rewritten, checksums still valid. */
		if (sh == SH_UDP || sh == SH_TCP) {
			assert_int_equal(ft_rd16(a + 34), 777);
			assert_true(ft_checksums_ok(a, buf.len));
		}
		if (sh == SH_UDP_NOCSUM)
			assert_int_equal(ft_rd16(a + 40), 0);
	}
}

/*
 * A root matching only the L4 meta under a partial mask (0x02: UDP, not TCP), looked up
 * by the fast path and by the walk: UDP frames hit, TCP frames miss, in both.
 */
static void test_root_partial_meta_mask(void **state)
{
	(void)state;
	for (int walk = 0; walk < 2; walk++) {
		assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
		assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
		assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 0), DOCA_SUCCESS);
		struct nic_pipe_attr a;
		struct nic_pipe *p = NULL, *root = NULL;
		memset(&a, 0, sizeof(a));
		a.type = NIC_PIPE_BASIC;
		a.port_id = 0;
		a.is_root = !walk;
		a.nr_entries = 1;
		a.ps_field = -1;
		a.miss_counter = true;
		a.fwd_miss.type = NIC_FWD_DROP;
		a.entry_mask.b[NIC_K_L4_META] = 0x02;
		assert_int_equal(nic_pipe_create(&a, &p), DOCA_SUCCESS);
		struct nic_entry_attr ea;
		struct nic_entry *e;
		memset(&ea, 0, sizeof(ea));
		ea.match.b[NIC_K_L4_META] = 0x02;
		ea.fwd = to_port1;
		ea.own_counter = true;
		assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_SUCCESS);
		if (walk) {
			struct nic_fwd to_p = {.type = NIC_FWD_PIPE, .pipe = p};
			root = one_entry_root(false, NULL, &to_p);
		}
		uint8_t frames[NIC_BURST_MAX][128];
		struct nic_buf bufs[NIC_BURST_MAX];
		for (uint32_t i = 0; i < NIC_BURST_MAX; i++) {
			bufs[i].data = frames[i];
			bufs[i].len = shape_frame(frames[i], i % 4 == 0 ? SH_TCP : SH_UDP, 0x0a000001u, (uint16_t)i);
		}
		assert_int_equal(nic_port_rx_burst(0, bufs, NIC_BURST_MAX), NIC_BURST_MAX);
		uint64_t hits, misses, by;
		assert_int_equal(nic_entry_counter_read(p, e, &hits, &by), DOCA_SUCCESS);
		assert_int_equal(nic_pipe_miss_read(p, &misses, &by), DOCA_SUCCESS);
		assert_int_equal(hits, NIC_BURST_MAX * 3 / 4);
		assert_int_equal(misses, NIC_BURST_MAX / 4);
		if (root)
			nic_pipe_destroy(root);
		nic_pipe_destroy(p);
		assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
		assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
	}
}

/* The checksum of a rewritten UDP frame that must come out as 0 is written as 0xffff. */
static void test_rewrite_udp_csum_zero(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 16), DOCA_SUCCESS);
	uint8_t f[128], out[NIC_MAX_FRAME];
	uint32_t len = ft_udp4(f, 0xc0a80001u, 0x0a000001u, 1000, 5000), olen;
	/* The source port that makes the ones'-complement sum all ones: checksum 0 -> 0xffff. */
	uint16_t c = ft_rd16(f + 40), sport = (uint16_t)(1000 + c); /* ~(~c + ~1000 + sport) */
	if (sport < 1000)
		sport++; /* end-around carry */
	for (int g = 0; g < 2; g++) {
		struct nic_actions act;
		memset(&act, 0, sizeof(act));
		act.fields = 1u << NIC_AF_L4_SRC | (g ? 1u << NIC_AF_IP_TTL : 0);
		act.ttl = f[22];
		act.l4_src = (uint16_t)__builtin_bswap16(sport);
		struct nic_pipe *p = one_entry_root(true, &act, &to_port1);
		struct nic_buf buf = {f, len};
		assert_int_equal(nic_port_rx_burst(0, &buf, 1), 1);
		len = ft_udp4(f, 0xc0a80001u, 0x0a000001u, 1000, 5000); /* rx rewrote it in place */
		assert_int_equal(nic_capture_pop(1, NIC_CAPTURE_TX, out, sizeof(out), &olen), DOCA_SUCCESS);
		assert_int_equal(ft_rd16(out + 34), sport);
		assert_int_equal(ft_rd16(out + 40), 0xffff);
		assert_true(ft_checksums_ok(out, olen));
		nic_pipe_destroy(p);
	}
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/*
 * nic_entry_update publishes actions, path-selector value and fwd together: while a
 * thread sends frames through a HASH root whose source-port path selector and fwd port
 * flip between (A, port 1) and (B, port 2), every frame on port 1 carries A and every
 * frame on port 2 carries B. Capture rings are deep enough to keep every frame.
 */
#define UPD_FRAMES (1u << 13)
#define UPD_SPORT_A 1111
#define UPD_SPORT_B 2222

struct upd_sender {
	_Atomic bool stop;
	_Atomic uint32_t sent; /* read by the updating thread to know when to stop */
};

static void *upd_send(void *arg)
{
	struct upd_sender *u = arg;
	uint8_t frames[NIC_BURST_MAX][128];
	struct nic_buf bufs[NIC_BURST_MAX];
	for (uint32_t i = 0; i < NIC_BURST_MAX; i++)
		bufs[i].data = frames[i];
	while (!atomic_load(&u->stop) && u->sent + NIC_BURST_MAX <= UPD_FRAMES) {
		for (uint32_t i = 0; i < NIC_BURST_MAX; i++)
			bufs[i].len = ft_udp4(frames[i], 0xc0a80001u, 0x0a000001u, 999, 5000);
		u->sent += nic_port_rx_burst(0, bufs, NIC_BURST_MAX);
	}
	return NULL;
}

static void test_update_is_atomic(void **state)
{
	(void)state;
	for (uint16_t port = 0; port < 3; port++)
		assert_int_equal(nic_port_start(port), DOCA_SUCCESS);
	for (uint16_t port = 1; port < 3; port++)
		assert_int_equal(nic_capture_set_depth(port, NIC_CAPTURE_TX, UPD_FRAMES), DOCA_SUCCESS);
	struct nic_pipe_attr a;
	struct nic_pipe *p = NULL;
	memset(&a, 0, sizeof(a));
	a.type = NIC_PIPE_HASH;
	a.port_id = 0;
	a.is_root = true;
	a.nr_entries = 1;
	a.ps_field = NIC_AF_L4_SRC;
	a.fwd_miss.type = NIC_FWD_DROP;
	memset(a.entry_mask.b + NIC_K_IP_DST, 0xff, 4);
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_SUCCESS);
	struct nic_entry_attr ea;
	struct nic_entry *e;
	memset(&ea, 0, sizeof(ea));
	ea.ps_value = UPD_SPORT_A;
	ea.fwd.type = NIC_FWD_PORT;
	ea.fwd.port_id = 1;
	assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_SUCCESS);

	struct upd_sender u = {.sent = 0};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, upd_send, &u), 0);
	struct nic_actions none;
	memset(&none, 0, sizeof(none));
	for (uint32_t i = 0; u.sent < UPD_FRAMES - NIC_BURST_MAX && i < 200000; i++) {
		bool b = i & 1;
		struct nic_fwd fwd = {.type = NIC_FWD_PORT, .port_id = b ? 2 : 1};
		assert_int_equal(nic_entry_update(p, e, &none, b ? UPD_SPORT_B : UPD_SPORT_A, &fwd), DOCA_SUCCESS);
	}
	atomic_store(&u.stop, true);
	pthread_join(th, NULL);

	uint8_t out[NIC_MAX_FRAME];
	uint32_t len, seen[3] = {0};
	for (uint16_t port = 1; port < 3; port++)
		while (nic_capture_pop(port, NIC_CAPTURE_TX, out, sizeof(out), &len) == DOCA_SUCCESS) {
			assert_int_equal(ft_rd16(out + 34), port == 1 ? UPD_SPORT_A : UPD_SPORT_B);
			assert_true(ft_checksums_ok(out, len));
			seen[port]++;
		}
	assert_int_equal(seen[1] + seen[2], u.sent);
	nic_pipe_destroy(p);
	for (uint16_t port = 0; port < 3; port++)
		assert_int_equal(nic_port_stop(port), DOCA_SUCCESS);
}

static void test_generator(void **state)
{
	(void)state;
	struct nic_gen *a, *b, *z;
	assert_int_equal(nic_gen_create(0, 0, 1, &a), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_gen_create(8, -1, 1, &a), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(nic_gen_create(100, 0, 42, &a), DOCA_SUCCESS);
	assert_int_equal(nic_gen_create(100, 0, 42, &b), DOCA_SUCCESS);
	assert_int_equal(nic_gen_create(100, 1.2, 42, &z), DOCA_SUCCESS);
	uint32_t hist[100] = {0};
	for (int i = 0; i < 10000; i++) {
		assert_int_equal(nic_gen_next(a), nic_gen_next(b));
		uint32_t f = nic_gen_next(z);
		assert_true(f < 100);
		hist[f]++;
	}
	/* Zipf: flow 0 is the most frequent, far above the uniform 100. */
	assert_true(hist[0] > hist[1] && hist[1] > hist[50] && hist[0] > 1000);
	nic_gen_destroy(a);
	nic_gen_destroy(b);
	nic_gen_destroy(z);
	uint8_t f[64];
	nic_gen_frame(258, f);
	assert_true(ft_checksums_ok(f, 64));
	assert_int_equal(ft_ip4_dst(f), 0x0a000102);
	assert_int_equal(ft_dport(f), 5000);
}

/* One frame to dport through port 0; the UDP source port that left port 1 (0: none). */
/* The source port of what a UDP frame to dst:dport on port 0 leaves port 1 with; 0: none. */
static uint16_t sport_out_of(uint32_t dst, uint16_t dport)
{
	uint8_t f[128], out[128];
	uint32_t len;
	struct nic_buf b = {f, ft_udp4(f, 1, dst, 3, dport)};
	assert_int_equal(nic_port_rx_burst(0, &b, 1), 1);
	if (nic_capture_pop(1, NIC_CAPTURE_TX, out, sizeof(out), &len) != DOCA_SUCCESS)
		return 0;
	assert_true(ft_checksums_ok(out, len));
	return ft_sport(out);
}

static uint16_t sport_out(uint16_t dport)
{
	return sport_out_of(2, dport);
}

/* A non-root HASH pipe on port 0 whose entries carry a path-selector value in ps_field. */
static struct nic_pipe *hash_ps_pipe(const char *name, uint32_t n, int ps_field)
{
	struct nic_pipe_attr ha;
	struct nic_pipe *h = NULL;
	memset(&ha, 0, sizeof(ha));
	ha.type = NIC_PIPE_HASH;
	ha.name = name;
	ha.port_id = 0;
	ha.nr_entries = n;
	ha.ps_field = ps_field;
	ha.map_algorithm = NIC_MAP_HASH;
	assert_int_equal(nic_pipe_create(&ha, &h), DOCA_SUCCESS);
	return h;
}

/* Key field bytes at off: a 2- or 4-byte value in network order. */
static void put_field(uint8_t *key, uint32_t off, uint32_t len, uint32_t v)
{
	if (len == 2)
		ft_wr16(key + off, (uint16_t)v);
	else
		ft_wr32(key + off, v);
}

/* An entry of p matching v in the key field at off, rewriting the L4 source port to
 * sport, to port 1, with its own counter. */
static struct nic_entry *add_field_sport(struct nic_pipe *p, uint32_t off, uint32_t len, uint32_t v, uint16_t sport,
					 doca_error_t expect)
{
	struct nic_entry_attr ea;
	struct nic_entry *e = NULL;
	memset(&ea, 0, sizeof(ea));
	put_field(ea.match.b, off, len, v);
	ea.fwd.type = NIC_FWD_PORT;
	ea.fwd.port_id = 1;
	ea.own_counter = true;
	ea.actions.fields = 1u << NIC_AF_L4_SRC;
	ea.actions.l4_src = __builtin_bswap16(sport);
	assert_int_equal(nic_entry_add(p, &ea, &e), expect);
	return e;
}

static struct nic_entry *add_dport_sport(struct nic_pipe *p, uint16_t dport, uint16_t sport, doca_error_t expect)
{
	return add_field_sport(p, NIC_K_L4_DST, 2, dport, sport, expect);
}

/*
 * Issue 13: entries share one interned state and keep their own L4 value; slots are
 * reused after a free with their counters zeroed; a counter is readable between remove
 * and free; an update (a private state) and the lookup path a pipe reports.
 */
static void test_entry_pool_and_states(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	struct nic_pipe *p = basic_on_dport(0, true, 4);
	assert_string_equal(nic_pipe_lookup_path(p), "staged"); /* one word: the L4 destination port */
	uint64_t pk, by;
	for (int round = 0; round < 20; round++) { /* 80 adds into a 4-entry pipe */
		struct nic_entry *e[4];
		for (uint16_t i = 0; i < 4; i++) {
			e[i] = add_dport_sport(p, (uint16_t)(80 + i), (uint16_t)(1000 + 100 * round + i), DOCA_SUCCESS);
			if (i == 0)
				add_dport_sport(p, 80, 1, DOCA_ERROR_ALREADY_EXIST);
		}
		add_dport_sport(p, 90, 1, DOCA_ERROR_FULL);
		for (uint16_t i = 0; i < 4; i++)
			assert_int_equal(sport_out((uint16_t)(80 + i)), 1000 + 100 * round + i);
		assert_int_equal(sport_out(99), 0); /* a miss: dropped */
		for (uint16_t i = 0; i < 4; i++) {
			assert_int_equal(nic_entry_remove(p, e[i]), DOCA_SUCCESS);
			assert_int_equal(nic_entry_counter_read(p, e[i], &pk, &by), DOCA_SUCCESS);
			assert_int_equal(pk, 1); /* this round's frame only: a reused slot starts at 0 */
			nic_entry_free(p, e[i]);
		}
		assert_int_equal(sport_out(80), 0);
	}
	/* Update: new actions and fwd by one store; the other entries keep theirs. */
	struct nic_entry *a = add_dport_sport(p, 80, 7, DOCA_SUCCESS);
	struct nic_entry *b = add_dport_sport(p, 81, 8, DOCA_SUCCESS);
	struct nic_actions na = {.fields = 1u << NIC_AF_L4_SRC, .l4_src = __builtin_bswap16(4242)};
	struct nic_fwd to1 = {.type = NIC_FWD_PORT, .port_id = 1};
	assert_int_equal(nic_entry_update(p, a, &na, 0, &to1), DOCA_SUCCESS);
	assert_int_equal(sport_out(80), 4242);
	assert_int_equal(sport_out(81), 8);
	assert_int_equal(nic_entry_remove(p, b), DOCA_SUCCESS);
	assert_int_equal(nic_entry_counter_read(p, b, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, 1);
	nic_entry_free(p, b);
	nic_pipe_destroy(p); /* frees a, still linked */

	/* A HASH pipe with a path selector on the L4 source port: the value is the entry's
	 * (interned state), then its private state's after an update; replace reaches both. */
	struct nic_pipe *h = hash_ps_pipe("ps", 2, NIC_AF_L4_SRC);
	assert_string_equal(nic_pipe_lookup_path(h), "walk");
	struct nic_entry *he[2];
	for (uint32_t i = 0; i < 2; i++) {
		struct nic_entry_attr ea;
		memset(&ea, 0, sizeof(ea));
		ea.index = i;
		ea.ps_value = 100 + i;
		ea.fwd = to1;
		assert_int_equal(nic_entry_add(h, &ea, &he[i]), DOCA_SUCCESS);
	}
	uint32_t v;
	bool en;
	assert_int_equal(nic_hash_entry_state(h, 1, &en, &v), DOCA_SUCCESS);
	assert_true(en);
	assert_int_equal(v, 101);
	struct nic_hash_op op = {.type = NIC_HASH_OP_REPLACE, .index = 0, .value = 555};
	nic_hash_exec(h, &op, 1);
	assert_int_equal(op.result, DOCA_SUCCESS);
	assert_int_equal(nic_hash_entry_state(h, 0, NULL, &v), DOCA_SUCCESS);
	assert_int_equal(v, 555);
	assert_int_equal(nic_hash_entry_state(h, 1, NULL, &v), DOCA_SUCCESS);
	assert_int_equal(v, 101); /* the shared state was not written */
	struct nic_actions none = {0};
	assert_int_equal(nic_entry_update(h, he[1], &none, 77, &to1), DOCA_SUCCESS);
	assert_int_equal(nic_hash_entry_state(h, 1, NULL, &v), DOCA_SUCCESS);
	assert_int_equal(v, 77);
	op.index = 1;
	op.value = 78;
	nic_hash_exec(h, &op, 1);
	assert_int_equal(nic_hash_entry_state(h, 1, NULL, &v), DOCA_SUCCESS);
	assert_int_equal(v, 78);
	op = (struct nic_hash_op){.type = NIC_HASH_OP_DISABLE, .index = 0};
	nic_hash_exec(h, &op, 1);
	assert_int_equal(nic_hash_entry_state(h, 0, &en, NULL), DOCA_SUCCESS);
	assert_false(en);
	assert_int_equal(nic_entry_remove(h, he[0]), DOCA_SUCCESS);
	assert_int_equal(nic_hash_entry_state(h, 0, &en, NULL), DOCA_ERROR_NOT_FOUND);
	nic_entry_free(h, he[0]);
	nic_pipe_destroy(h); /* frees he[1] */

	struct nic_pipe *big = basic_on_dport(0, true, 1u << 16);
	assert_string_equal(nic_pipe_lookup_path(big), "staged");
	nic_pipe_destroy(big);
	struct nic_pipe *inner = basic_on_dport(0, false, 4);
	assert_string_equal(nic_pipe_lookup_path(inner), "walk");
	nic_pipe_destroy(inner);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
	uint16_t busy_port;
	assert_int_equal(nic_traffic_wait(10, &busy_port), DOCA_SUCCESS);
}

/* The hash a BASIC pipe gives a key of its field at off (2 or 4 bytes), as nic_entry_add. */
static uint32_t field_hash(const struct nic_pipe *p, uint32_t off, uint32_t len, uint32_t v)
{
	struct nic_key k;
	memset(&k, 0, sizeof(k));
	put_field(k.b, off, len, v);
	for (uint32_t w = 0; w < NIC_KEY_WORDS; w++)
		k.w[w] &= p->entry_mask.w[w];
	return nic_basic_hash(p, &k);
}

static uint32_t dport_hash(const struct nic_pipe *p, uint16_t dport)
{
	return field_hash(p, NIC_K_L4_DST, 2, dport);
}

/* Two IPv4 destinations whose entries share a bucket and a tag on BASIC pipe p keyed on
 * it: found among 2^20 addresses by their (bucket, tag) pair. */
static void same_bucket_and_tag(const struct nic_pipe *p, uint32_t *a, uint32_t *b)
{
	uint32_t nslots = 1u << 22;
	uint32_t *seen = calloc(nslots, sizeof(*seen)); /* (bucket, tag) -> address + 1 */
	assert_non_null(seen);
	*a = *b = 0;
	for (uint32_t ip = 0x0a000001; ip < 0x0a100000 && *b == 0; ip++) {
		uint32_t h = field_hash(p, NIC_K_IP_DST, 4, ip);
		uint32_t x = ((nic_bucket_of(h, nic_pipe_btable(p)->n) << 16) | nic_bucket_tag(h)) & (nslots - 1);
		uint32_t prev = seen[x];
		if (prev) {
			uint32_t hp = field_hash(p, NIC_K_IP_DST, 4, prev - 1);
			if (nic_bucket_of(hp, nic_pipe_btable(p)->n) == nic_bucket_of(h, nic_pipe_btable(p)->n) &&
			    nic_bucket_tag(hp) == nic_bucket_tag(h)) {
				*a = prev - 1;
				*b = ip;
			}
		}
		seen[x] = ip + 1;
	}
	free(seen);
	assert_int_not_equal(*b, 0);
}


static uint32_t bucket_ways_used(const struct nic_bucket *bk)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < NIC_BUCKET_WAYS; i++)
		n += atomic_load(&bk->way[i]) != 0;
	return n;
}

static uint32_t bucket_chain_len(const struct nic_pipe *p, const struct nic_bucket *bk)
{
	uint32_t n = 0;
	for (uint32_t s = atomic_load(&bk->over); s; s = atomic_load(&nic_bucket_entry(p->pool, s)->next[nic_pipe_btable(p)->link]))
		n++;
	return n;
}

/*
 * Issue 13: a BASIC bucket holds four entries in tagged ways and more on its chain. Nine
 * keys of one bucket: the first four take the ways, five go on the chain; every one is
 * hit (the staged lookup, its candidate a way or the chain's first); removals from a
 * way and from the chain leave the others found and free what they held (the way is
 * taken again); two keys of one bucket whose tags are equal are told apart by the entry.
 */
static void test_bucket_ways_and_chain(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	struct nic_pipe *p = basic_on_dport(0, true, 64);
	assert_int_equal(nic_pipe_btable(p)->n, 32); /* the power of two in (16, 32] */
	uint32_t target = nic_bucket_of(dport_hash(p, 1000), nic_pipe_btable(p)->n);
	uint16_t d[9];
	uint32_t nd = 0;
	for (uint32_t port = 1000; port < 65536 && nd < 9; port++)
		if (nic_bucket_of(dport_hash(p, (uint16_t)port), nic_pipe_btable(p)->n) == target)
			d[nd++] = (uint16_t)port;
	assert_int_equal(nd, 9);
	const struct nic_bucket *bk = &nic_pipe_btable(p)->b[target];
	struct nic_entry *e[9];
	for (uint32_t i = 0; i < 9; i++)
		e[i] = add_dport_sport(p, d[i], (uint16_t)(2000 + i), DOCA_SUCCESS);
	assert_int_equal(bucket_ways_used(bk), 4);
	assert_int_equal(bucket_chain_len(p, bk), 5);
	add_dport_sport(p, d[6], 1, DOCA_ERROR_ALREADY_EXIST); /* found on the chain */
	add_dport_sport(p, d[2], 1, DOCA_ERROR_ALREADY_EXIST); /* found in a way */
	for (uint32_t i = 0; i < 9; i++)
		assert_int_equal(sport_out(d[i]), 2000 + i);
	/* Out of a way (d[1]) and out of the chain's middle (d[6]). */
	uint32_t gone[2] = {1, 6};
	for (uint32_t g = 0; g < 2; g++) {
		assert_int_equal(nic_entry_remove(p, e[gone[g]]), DOCA_SUCCESS);
		nic_entry_free(p, e[gone[g]]);
	}
	assert_int_equal(bucket_ways_used(bk), 3);
	assert_int_equal(bucket_chain_len(p, bk), 4);
	for (uint32_t i = 0; i < 9; i++)
		assert_int_equal(sport_out(d[i]), i == 1 || i == 6 ? 0 : 2000 + i);
	e[1] = add_dport_sport(p, d[1], 3001, DOCA_SUCCESS); /* the free way again */
	assert_int_equal(bucket_ways_used(bk), 4);
	assert_int_equal(sport_out(d[1]), 3001);
	assert_int_equal(sport_out(d[6]), 0);
	nic_pipe_destroy(p);
	/* Equal tags (ports of one bucket never have them: addresses are searched for): a
	 * lookup whose candidate is the other key's entry finds its own. */
	struct nic_pipe_attr a;
	memset(&a, 0, sizeof(a));
	a.type = NIC_PIPE_BASIC;
	a.name = "by_dst";
	a.is_root = true;
	a.nr_entries = 64;
	a.ps_field = -1;
	a.fwd_miss.type = NIC_FWD_DROP;
	memset(a.entry_mask.b + NIC_K_IP_DST, 0xff, 4);
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_SUCCESS);
	uint32_t ip0, ip1;
	same_bucket_and_tag(p, &ip0, &ip1);
	add_field_sport(p, NIC_K_IP_DST, 4, ip0, 4000, DOCA_SUCCESS);
	add_field_sport(p, NIC_K_IP_DST, 4, ip1, 4001, DOCA_SUCCESS);
	assert_int_equal(sport_out_of(ip1, 4), 4001);
	assert_int_equal(sport_out_of(ip0, 4), 4000);
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
	uint16_t busy_port;
	assert_int_equal(nic_traffic_wait(10, &busy_port), DOCA_SUCCESS);
}

/*
 * Issue 13: an entry's state is named by its index in the states' arena, beside the
 * entry's flags in one word. References round-trip (0 is none), a freed state's memory
 * is the next one handed out, a state swap keeps the flags and flag changes keep the
 * state.
 */
static void test_state_refs_and_entry_word(void **state)
{
	(void)state;
	struct nic_entry_state *a = nic_state_alloc(), *b = nic_state_alloc();
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_not_equal(nic_state_ref(a), 0);
	assert_ptr_equal(nic_state_at(nic_state_ref(a)), a);
	assert_ptr_equal(nic_state_at(nic_state_ref(b)), b);
	assert_null(nic_state_at(0));
	assert_int_equal(nic_state_ref(NULL), 0);
	assert_true(nic_state_ref(b) < (1u << (32 - NIC_EF_BITS))); /* fits beside the flags */

	struct nic_entry e;
	memset(&e, 0, sizeof(e));
	nic_entry_publish(&e, a, NIC_EF_USED | NIC_EF_LINKED, memory_order_release);
	assert_ptr_equal(nic_entry_state(&e, memory_order_acquire), a);
	assert_int_equal(nic_entry_flags(&e, memory_order_relaxed), NIC_EF_USED | NIC_EF_LINKED);
	nic_entry_flags_set(&e, NIC_EF_ENABLED | NIC_EF_DESTROYED, memory_order_release);
	nic_entry_flags_clear(&e, NIC_EF_LINKED, memory_order_release);
	assert_ptr_equal(nic_entry_state(&e, memory_order_acquire), a);
	assert_int_equal(nic_entry_flags(&e, memory_order_relaxed), NIC_EF_USED | NIC_EF_ENABLED | NIC_EF_DESTROYED);
	assert_ptr_equal(nic_entry_state_swap(&e, b), a);
	assert_ptr_equal(nic_entry_state(&e, memory_order_acquire), b);
	assert_int_equal(nic_entry_flags(&e, memory_order_relaxed), NIC_EF_USED | NIC_EF_ENABLED | NIC_EF_DESTROYED);

	nic_state_free(a);
	assert_ptr_equal(nic_state_alloc(), a); /* the free list first */
	nic_state_free(a);
	nic_state_free(b);
	nic_state_free(NULL);
}

/*
 * Issue 13: on a HASH pipe whose path-selector is one L4 port, the other port an
 * entry's actions rewrite is part of its interned state. Adds in a row with the same
 * fields but another port (which the fill's shortcut for a repeated state must tell
 * apart) get a state of their own; equal ones share it; each entry's frames leave with
 * its own ports and valid checksums. Both ways round: selector source, rewritten
 * destination, and the reverse.
 */
static void hash_ps_ports_round(bool ps_is_src)
{
	struct nic_pipe_attr a;
	struct nic_pipe *p = NULL;
	memset(&a, 0, sizeof(a));
	a.type = NIC_PIPE_HASH;
	a.name = "ps_ports";
	a.port_id = 0;
	a.is_root = true;
	a.nr_entries = 256;
	a.ps_field = ps_is_src ? NIC_AF_L4_SRC : NIC_AF_L4_DST;
	a.map_algorithm = NIC_MAP_HASH;
	a.fwd_miss.type = NIC_FWD_DROP;
	memset(a.entry_mask.b + NIC_K_IP_DST, 0xff, 4);
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_SUCCESS);
	/* The port each entry's actions rewrite (0: none, the frame keeps its own). */
	static const uint16_t port[4] = {1111, 2222, 2222, 0};
	const uint16_t sport_in = 3, dport_in = 4;
	uint32_t dst[4], index[4];
	struct nic_entry *e[4];
	for (uint32_t i = 0, ip = 0x0a000001u; i < 4; ip++) {
		struct nic_key k;
		uint32_t h;
		memset(&k, 0, sizeof(k));
		ft_wr32(k.b + NIC_K_IP_DST, ip);
		k.b[NIC_K_L3_META] = 1;
		assert_int_equal(nic_pipe_calc_hash(p, &k, &h), DOCA_SUCCESS);
		bool taken = false;
		for (uint32_t j = 0; j < i; j++)
			taken |= index[j] == h % a.nr_entries;
		if (taken)
			continue;
		dst[i] = ip;
		index[i++] = h % a.nr_entries;
	}
	for (uint32_t i = 0; i < 4; i++) {
		struct nic_entry_attr ea;
		memset(&ea, 0, sizeof(ea));
		ft_wr32(ea.match.b + NIC_K_IP_DST, dst[i]);
		ea.index = index[i];
		ea.ps_value = 5000 + i;
		if (port[i] && ps_is_src) {
			ea.actions.fields = 1u << NIC_AF_L4_DST;
			ea.actions.l4_dst = __builtin_bswap16(port[i]);
		} else if (port[i]) {
			ea.actions.fields = 1u << NIC_AF_L4_SRC;
			ea.actions.l4_src = __builtin_bswap16(port[i]);
		}
		ea.fwd.type = NIC_FWD_PORT;
		ea.fwd.port_id = 1;
		assert_int_equal(nic_entry_add(p, &ea, &e[i]), DOCA_SUCCESS);
	}
	struct nic_entry_state *st[4];
	for (uint32_t i = 0; i < 4; i++)
		st[i] = nic_entry_state(e[i], memory_order_acquire);
	assert_ptr_not_equal(st[0], st[1]);
	assert_ptr_equal(st[1], st[2]);
	assert_ptr_not_equal(st[2], st[3]);
	assert_ptr_not_equal(st[0], st[3]);
	for (uint32_t i = 0; i < 4; i++) {
		uint8_t f[128], out[128];
		uint32_t len;
		struct nic_buf b = {f, ft_udp4(f, 1, dst[i], sport_in, dport_in)};
		assert_int_equal(nic_port_rx_burst(0, &b, 1), 1);
		assert_int_equal(nic_capture_pop(1, NIC_CAPTURE_TX, out, sizeof(out), &len), DOCA_SUCCESS);
		uint16_t rewritten = port[i] ? port[i] : ps_is_src ? dport_in : sport_in;
		assert_int_equal(ft_sport(out), ps_is_src ? 5000 + i : rewritten);
		assert_int_equal(ft_dport(out), ps_is_src ? rewritten : 5000 + i);
		assert_true(ft_checksums_ok(out, len));
	}
	nic_pipe_destroy(p);
}

static void test_hash_ps_state_keeps_ports(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 1), DOCA_SUCCESS);
	hash_ps_ports_round(true);
	hash_ps_ports_round(false);
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 0), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
}

/* Frames to dport 80 of port 0 from a datapath thread of its own. */
struct cell_sender {
	pthread_t t;
	uint32_t n;
};

static void *cell_send(void *arg)
{
	struct cell_sender *cs = arg;
	uint8_t f[128];
	struct nic_buf b = {f, ft_udp4(f, 1, 2, 3, 80)};
	for (uint32_t i = 0; i < cs->n; i++)
		if (nic_port_rx_burst(0, &b, 1) != 1)
			return (void *)1;
	return NULL;
}

/* An empty burst: the counter shard the calling thread's bursts take now. */
static uint32_t shard_probe(void)
{
	uint32_t sh = nic_dp_enter();
	nic_dp_exit();
	return sh;
}

/* Preset every own-counter cell of e to pkts packets and bytes bytes (slot unused). */
static void cells_preset(struct nic_pipe *p, struct nic_entry *e, uint64_t pkts, uint64_t bytes)
{
	for (uint32_t s = 0; s < NIC_CNT_SHARDS; s++) {
		if (s)
			nic_pipe_counted(p, 1u << s); /* as the shard's first count would */
		__atomic_store_n(&nic_entry_cell(p, e, s)->w, pkts << NIC_CELL_BYTE_BITS | bytes, __ATOMIC_RELAXED);
	}
}

/*
 * Issue 13: an own-counter cell is one word (packets over bytes); at 2^23 packets it
 * folds into the entry's wide spill counter. With the cells preset just below the fold,
 * frames of this thread and of two others (the shared shard) cross it while this thread
 * reads the counter: every read is at least the one before, the last is exact, the
 * cells are small again; a slot reused after a free starts from zero, spill included.
 */
static void test_counter_cells_fold(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	struct nic_pipe *p = basic_on_dport(0, true, 4);
	struct nic_entry *e = add_dport_sport(p, 80, 7, DOCA_SUCCESS);
	uint8_t f[128];
	const uint64_t len = ft_udp4(f, 1, 2, 3, 80), below = (1ull << 23) - 1;
	uint64_t pk, by, base = NIC_CNT_SHARDS * below;
	cells_preset(p, e, below, 1000);
	uint32_t mine = shard_probe(); /* this thread's counter shard */
	assert_int_equal(sport_out(80), 7); /* this thread's cell folds */
	assert_int_equal(nic_entry_cell(p, e, mine)->w, 0);
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, base + 1);
	assert_int_equal(by, NIC_CNT_SHARDS * 1000 + len);
	assert_int_equal(sport_out(80), 7);
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, base + 2);
	/* The same without capture on port 1: the hot path (no key built) counts it. */
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 0), DOCA_SUCCESS);
	cells_preset(p, e, below, 0);
	uint64_t pk_pre, by_pre;
	assert_int_equal(nic_entry_counter_read(p, e, &pk_pre, &by_pre), DOCA_SUCCESS);
	struct nic_buf fb = {f, (uint32_t)len};
	assert_int_equal(nic_port_rx_burst(0, &fb, 1), 1);
	assert_int_equal(nic_entry_cell(p, e, mine)->w, 0);
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, pk_pre + 1);
	assert_int_equal(by, by_pre + len);
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 1024), DOCA_SUCCESS);

	/* Two more threads: their adds fold the shared shard's cell while this one reads.
	 * This thread owns the owned shard, so the first sender to start runs at least
	 * 2 * NIC_DP_STEAL_PERIOD - 1 bursts on the shared one before it may take it over
	 * (this thread runs none meanwhile): enough to cross the fold from here. */
	assert_int_equal(shard_probe(), 0);
	cells_preset(p, e, below - NIC_DP_STEAL_PERIOD, 0);
	uint64_t pk0, by0;
	assert_int_equal(nic_entry_counter_read(p, e, &pk0, &by0), DOCA_SUCCESS);
	struct cell_sender cs[2] = {{.n = 20000}, {.n = 20000}};
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&cs[i].t, NULL, cell_send, &cs[i]), 0);
	bool joined[2] = {false, false};
	uint64_t last = pk0;
	while (!joined[0] || !joined[1]) {
		assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
		assert_true(pk >= last);		      /* a fold never shows twice or not at all */
		assert_int_equal(by - by0, (pk - pk0) * len); /* packets and bytes of the same frames */
		last = pk;
		for (int i = 0; i < 2; i++) {
			void *rc;
			if (!joined[i] && pthread_tryjoin_np(cs[i].t, &rc) == 0) {
				assert_null(rc);
				joined[i] = true;
			}
		}
	}
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, pk0 + 40000);
	assert_int_equal(by, by0 + 40000 * len);
	/* The shared shard's cell folded. */
	assert_true(nic_cell_pkts(nic_entry_cell(p, e, NIC_CNT_SHARDS - 1)->w) < below - NIC_DP_STEAL_PERIOD);

	/* The slot again: nothing of the old counter is left. */
	uint8_t out[128];
	uint32_t olen;
	while (nic_capture_pop(1, NIC_CAPTURE_TX, out, sizeof(out), &olen) == DOCA_SUCCESS)
		; /* the senders' frames */
	assert_int_equal(nic_entry_remove(p, e), DOCA_SUCCESS);
	nic_entry_free(p, e);
	e = add_dport_sport(p, 80, 8, DOCA_SUCCESS);
	assert_int_equal(sport_out(80), 8);
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, 1);
	assert_int_equal(by, len);
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/*
 * nic_entry_add_bulk gives each add the result a nic_entry_add of it would have, in
 * order (a duplicate of an earlier add of the same bulk, FULL past the size, an index
 * out of range, a value too wide), and adds nothing to a destroyed pipe. Slots: a HASH
 * entry's is its index; nic_pipe_entry_at inverts nic_pipe_entry_slot; the shared
 * counter is the one the add named.
 */
static void test_entry_add_bulk(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	struct nic_pipe *p = basic_on_dport(0, true, 4);
	struct nic_entry_attr ea[6];
	const struct nic_entry_attr *ap[6];
	struct nic_entry *e[6];
	doca_error_t err[6];
	const uint16_t dport[6] = {80, 81, 80, 82, 83, 84}; /* 80 twice; 84 is the fifth live */
	memset(ea, 0, sizeof(ea));
	for (int i = 0; i < 6; i++) {
		ft_wr16(ea[i].match.b + NIC_K_L4_DST, dport[i]);
		ea[i].fwd.type = NIC_FWD_PORT;
		ea[i].fwd.port_id = 1;
		ea[i].actions.fields = 1u << NIC_AF_L4_SRC;
		ea[i].actions.l4_src = __builtin_bswap16((uint16_t)(1000 + i));
		ea[i].own_counter = true;
		ap[i] = &ea[i];
	}
	nic_entry_add_bulk(p, ap, 6, e, err);
	const doca_error_t want[6] = {DOCA_SUCCESS, DOCA_SUCCESS, DOCA_ERROR_ALREADY_EXIST,
				      DOCA_SUCCESS, DOCA_SUCCESS, DOCA_ERROR_FULL};
	for (int i = 0; i < 6; i++)
		assert_int_equal(err[i], want[i]);
	assert_int_equal(nic_pipe_nr_live_entries(p), 4);
	assert_int_equal(sport_out(80), 1000);
	assert_int_equal(sport_out(83), 1004);
	for (int i = 0; i < 5; i++)
		if (err[i] == DOCA_SUCCESS)
			assert_ptr_equal(nic_pipe_entry_at(p, nic_pipe_entry_slot(p, e[i])), e[i]);
	assert_null(nic_pipe_entry_at(p, UINT32_MAX));
	assert_null(nic_entry_shared_counter(p, e[0])); /* an own counter */

	/* HASH: index out of range and a path-selector value too wide, between good ones. */
	struct nic_counter shared;
	memset(&shared, 0, sizeof(shared));
	struct nic_pipe *h = hash_ps_pipe("bulk", 8, NIC_AF_IP_TTL); /* 8 bits */
	struct nic_entry_attr hea[4];
	memset(hea, 0, sizeof(hea));
	const uint32_t idx[4] = {3, 8, 5, 6}, val[4] = {1, 1, 256, 255};
	for (int i = 0; i < 4; i++) {
		hea[i].index = idx[i];
		hea[i].ps_value = val[i];
		hea[i].fwd.type = NIC_FWD_DROP;
		hea[i].shared_counter = &shared;
		ap[i] = &hea[i];
	}
	nic_entry_add_bulk(h, ap, 4, e, err);
	assert_int_equal(err[0], DOCA_SUCCESS);
	assert_int_equal(err[1], DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(err[2], DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(err[3], DOCA_SUCCESS);
	assert_int_equal(nic_pipe_entry_slot(h, e[0]), 3);
	assert_int_equal(nic_pipe_entry_slot(h, e[3]), 6);
	assert_ptr_equal(nic_entry_shared_counter(h, e[3]), &shared);
	assert_int_equal(nic_pipe_nr_live_entries(h), 2);
	nic_pipe_destroy(h);
	nic_entry_add_bulk(h, ap, 1, e, err); /* a destroyed pipe */
	assert_int_equal(err[0], DOCA_ERROR_INVALID_VALUE);
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/*
 * Issue 13: adds from two threads into one BASIC pipe run in parallel (the pipe lock
 * held for reading, a bucket each). Thread A adds keys [0, 2000), B [1000, 3000), both
 * the shared [1000, 2000) first and in the same order, so that they race for the same
 * keys, in bulks of 48 (one call each), into a pipe that holds 2500 of them, over
 * several rounds, while a
 * third thread sends frames to every key (a hit carries its key's own source port) and
 * a fourth updates an entry and lists the top hits (the lock held for writing). Each
 * key is added at most once; a key one thread found already there the other added;
 * FULL only once the pipe was full to within the other thread's spare places; every
 * added key forwards with its port, every other misses.
 */
#define PAR_KEYS 3000
#define PAR_SIZE 2500
#define PAR_BULK 48

struct par_adder {
	pthread_t t;
	struct nic_pipe *p;
	uint32_t first, n;
	pthread_barrier_t *start;
	doca_error_t err[PAR_KEYS]; /* by key */
};

/* The j-th key an adder adds: the shared half first. */
static uint32_t par_key(const struct par_adder *a, uint32_t j)
{
	return a->first + (j + (a->first ? 0 : 1000)) % a->n;
}

static void par_attr(struct nic_entry_attr *ea, uint32_t key)
{
	memset(ea, 0, sizeof(*ea));
	ft_wr16(ea->match.b + NIC_K_L4_DST, (uint16_t)(1000 + key));
	ea->fwd.type = NIC_FWD_PORT;
	ea->fwd.port_id = 1;
	ea->own_counter = true;
	ea->actions.fields = 1u << NIC_AF_L4_SRC;
	ea->actions.l4_src = __builtin_bswap16((uint16_t)(20000 + key));
}

static void *par_add(void *arg)
{
	struct par_adder *a = arg;
	struct nic_entry_attr ea[PAR_BULK];
	const struct nic_entry_attr *ap[PAR_BULK];
	struct nic_entry *e[PAR_BULK];
	pthread_barrier_wait(a->start);
	doca_error_t err[PAR_BULK];
	for (uint32_t i = 0; i < a->n; i += PAR_BULK) {
		uint32_t n = a->n - i < PAR_BULK ? a->n - i : PAR_BULK;
		for (uint32_t j = 0; j < n; j++) {
			par_attr(&ea[j], par_key(a, i + j));
			ap[j] = &ea[j];
		}
		nic_entry_add_bulk(a->p, ap, n, e, err);
		for (uint32_t j = 0; j < n; j++)
			a->err[par_key(a, i + j)] = err[j];
	}
	return NULL;
}

struct par_side {
	pthread_t t;
	struct nic_pipe *p;
	struct nic_entry *upd; /* the writer's entry */
	_Atomic bool stop;
	uint64_t hits, wrong;
};

/* Frames to every key in turn: a hit must carry its key's port. */
static void *par_send(void *arg)
{
	struct par_side *s = arg;
	uint8_t f[128], out[128];
	uint32_t len;
	for (uint32_t k = 0; !atomic_load(&s->stop); k = (k + 7) % PAR_KEYS) {
		struct nic_buf b = {f, ft_udp4(f, 1, 2, 3, (uint16_t)(1000 + k))};
		if (nic_port_rx_burst(0, &b, 1) != 1)
			return (void *)1;
		if (nic_capture_pop(1, NIC_CAPTURE_TX, out, sizeof(out), &len) != DOCA_SUCCESS)
			continue;
		s->hits++;
		s->wrong += ft_sport(out) != 20000 + k || !ft_checksums_ok(out, len);
	}
	return NULL;
}

/* Control calls that hold the pipe lock for writing, between the adds. */
static void *par_write(void *arg)
{
	struct par_side *s = arg;
	struct nic_actions act;
	struct nic_fwd fwd = {.type = NIC_FWD_PORT, .port_id = 1};
	struct nic_entry_hits top[4];
	memset(&act, 0, sizeof(act));
	act.fields = 1u << NIC_AF_L4_SRC;
	for (uint32_t i = 0; !atomic_load(&s->stop); i++) {
		usleep(100); /* leave the adders the cores */
		act.l4_src = __builtin_bswap16((uint16_t)(40000 + i % 16));
		if (nic_entry_update(s->p, s->upd, &act, 0, &fwd) != DOCA_SUCCESS)
			return (void *)1;
		(void)nic_pipe_top_hits(s->p, 4, top);
	}
	return NULL;
}

static void test_parallel_basic_adds(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	static struct par_adder add[2];
	uint32_t raced = 0; /* shared keys one thread found the other had added */
	for (int round = 0; round < 8; round++) {
		struct nic_pipe *p = basic_on_dport(0, true, PAR_SIZE + 1);
		struct par_side side = {.p = p, .upd = add_dport_sport(p, 60000, 1, DOCA_SUCCESS)};
		pthread_barrier_t start;
		pthread_barrier_init(&start, NULL, 2);
		add[0] = (struct par_adder){.p = p, .first = 0, .n = 2000, .start = &start};
		add[1] = (struct par_adder){.p = p, .first = 1000, .n = 2000, .start = &start};
		pthread_t snd, wr;
		assert_int_equal(pthread_create(&snd, NULL, par_send, &side), 0);
		assert_int_equal(pthread_create(&wr, NULL, par_write, &side), 0);
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_create(&add[i].t, NULL, par_add, &add[i]), 0);
		void *rc;
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_join(add[i].t, NULL), 0);
		atomic_store(&side.stop, true);
		assert_int_equal(pthread_join(snd, &rc), 0);
		assert_null(rc);
		assert_int_equal(pthread_join(wr, &rc), 0);
		assert_null(rc);
		pthread_barrier_destroy(&start);
		assert_int_equal(side.wrong, 0);

		uint32_t added = 0, full = 0;
		for (uint32_t k = 0; k < PAR_KEYS; k++) {
			uint32_t ok = 0, dup = 0;
			for (int i = 0; i < 2; i++) {
				if (k < add[i].first || k >= add[i].first + add[i].n)
					continue;
				doca_error_t err = add[i].err[k];
				assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_ALREADY_EXIST ||
					    err == DOCA_ERROR_FULL);
				ok += err == DOCA_SUCCESS;
				dup += err == DOCA_ERROR_ALREADY_EXIST;
				full += err == DOCA_ERROR_FULL;
			}
			assert_true(ok <= 1);
			assert_true(dup <= ok); /* found there: the other thread added it */
			raced += dup;
			added += ok;
			assert_int_equal(sport_out((uint16_t)(1000 + k)), ok ? 20000 + k : 0);
		}
		assert_int_equal(nic_pipe_nr_live_entries(p), added + 1);
		assert_true(added <= PAR_SIZE);
		assert_true(full > 0); /* 3000 keys, room for 2500 */
		assert_true(added + PAR_BULK >= PAR_SIZE); /* the other's spare: at most its call */
		nic_pipe_destroy(p);
	}
	assert_true(raced > 0);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/*
 * Two threads add the same 48 keys of one bucket (4 ways and a chain of 44, so that a
 * duplicate check walks far) in the same order at the same time, round after round:
 * each key is added exactly once, and every key forwards with its own port (a link lost
 * to a racing one would miss).
 */
#define ONE_BUCKET_KEYS 48

struct bucket_racer {
	pthread_t t;
	struct nic_pipe *p;
	const uint16_t *dport;
	pthread_barrier_t *start;
	doca_error_t err[ONE_BUCKET_KEYS];
};

static void *bucket_race(void *arg)
{
	struct bucket_racer *r = arg;
	struct nic_entry_attr ea[ONE_BUCKET_KEYS];
	const struct nic_entry_attr *ap[ONE_BUCKET_KEYS];
	struct nic_entry *e[ONE_BUCKET_KEYS];
	for (uint32_t i = 0; i < ONE_BUCKET_KEYS; i++) {
		par_attr(&ea[i], r->dport[i] - 1000u);
		ap[i] = &ea[i];
	}
	pthread_barrier_wait(r->start);
	nic_entry_add_bulk(r->p, ap, ONE_BUCKET_KEYS, e, r->err);
	return NULL;
}

static void test_parallel_adds_one_bucket(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	uint16_t d[ONE_BUCKET_KEYS];
	for (int round = 0; round < 200; round++) {
		struct nic_pipe *p = basic_on_dport(0, true, 64);
		if (round == 0) {
			uint32_t target = nic_bucket_of(dport_hash(p, 1000), nic_pipe_btable(p)->n), nd = 0;
			for (uint32_t port = 1000; port < 1000 + PAR_KEYS && nd < ONE_BUCKET_KEYS; port++)
				if (nic_bucket_of(dport_hash(p, (uint16_t)port), nic_pipe_btable(p)->n) == target)
					d[nd++] = (uint16_t)port;
			assert_int_equal(nd, ONE_BUCKET_KEYS);
		}
		pthread_barrier_t start;
		pthread_barrier_init(&start, NULL, 2);
		struct bucket_racer r[2] = {{.p = p, .dport = d, .start = &start}, {.p = p, .dport = d, .start = &start}};
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_create(&r[i].t, NULL, bucket_race, &r[i]), 0);
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_join(r[i].t, NULL), 0);
		pthread_barrier_destroy(&start);
		for (uint32_t k = 0; k < ONE_BUCKET_KEYS; k++) {
			assert_int_equal((r[0].err[k] == DOCA_SUCCESS) + (r[1].err[k] == DOCA_SUCCESS), 1);
			assert_int_equal(sport_out(d[k]), 20000 + d[k] - 1000);
		}
		assert_int_equal(nic_pipe_nr_live_entries(p), ONE_BUCKET_KEYS);
		nic_pipe_destroy(p);
	}
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/*
 * A call that began with no other adder in the pipe runs solo (no bucket locks) but
 * gives that up at its next add when another call comes in: a queue's add does not wait
 * behind another queue's whole batch. A adds GIVE_WAY_KEYS in one call; B adds one key
 * once A is in; B must be done while A still adds. Both sets of keys forward with their
 * own ports. A few rounds, since B's thread may be kept off the CPU until A is done;
 * with a solo call that never gives way, B ends after A in every round.
 */
#define GIVE_WAY_KEYS 60000u

struct long_adder {
	struct nic_pipe *p;
	struct nic_entry_attr *ea;
	const struct nic_entry_attr **ap;
	struct nic_entry **e;
	doca_error_t *err;
	_Atomic bool done;
};

static void *long_add(void *arg)
{
	struct long_adder *a = arg;
	nic_entry_add_bulk(a->p, a->ap, GIVE_WAY_KEYS, a->e, a->err);
	atomic_store(&a->done, true);
	return NULL;
}

static void test_solo_add_gives_way(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	struct long_adder a = {
		.ea = calloc(GIVE_WAY_KEYS, sizeof(*a.ea)),
		.ap = calloc(GIVE_WAY_KEYS, sizeof(*a.ap)),
		.e = calloc(GIVE_WAY_KEYS, sizeof(*a.e)),
		.err = calloc(GIVE_WAY_KEYS, sizeof(*a.err)),
	};
	assert_non_null(a.ea);
	assert_non_null(a.ap);
	assert_non_null(a.e);
	assert_non_null(a.err);
	for (uint32_t k = 0; k < GIVE_WAY_KEYS; k++) {
		par_attr(&a.ea[k], k);
		a.ap[k] = &a.ea[k];
	}
	const uint32_t b_key = GIVE_WAY_KEYS + 100;
	bool gave_way = false;
	for (int round = 0; round < 5 && !gave_way; round++) {
		a.p = basic_on_dport(0, true, GIVE_WAY_KEYS + 1);
		atomic_store(&a.done, false);
		pthread_t th;
		assert_int_equal(pthread_create(&th, NULL, long_add, &a), 0);
		while (nic_pipe_nr_live_entries(a.p) == 0 && !atomic_load(&a.done))
			sched_yield();
		bool a_in = !atomic_load(&a.done);
		add_dport_sport(a.p, (uint16_t)(1000 + b_key), (uint16_t)(20000 + b_key), DOCA_SUCCESS);
		gave_way = a_in && !atomic_load(&a.done);
		assert_int_equal(pthread_join(th, NULL), 0);
		for (uint32_t k = 0; k < GIVE_WAY_KEYS; k++)
			assert_int_equal(a.err[k], DOCA_SUCCESS);
		assert_int_equal(nic_pipe_nr_live_entries(a.p), GIVE_WAY_KEYS + 1);
		for (uint32_t k = 0; k < GIVE_WAY_KEYS; k += 997)
			assert_int_equal(sport_out((uint16_t)(1000 + k)), (uint16_t)(20000 + k)); /* par_attr's */
		assert_int_equal(sport_out((uint16_t)(1000 + b_key)), (uint16_t)(20000 + b_key));
		nic_pipe_destroy(a.p);
	}
	assert_true(gave_way);
	free(a.ea);
	free(a.ap);
	free(a.e);
	free(a.err);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/*
 * Issue 13: a BASIC pipe grown past its buckets gets a bigger table, swapped in while
 * packets go on. From 64 entries (32 buckets) to 32768 in three resizes, with a sender
 * hitting every entry added so far (but 0..9) all along, chained ones too: none of its
 * frames misses or takes another key's port; the chains stay short (1024 entries a bucket without the new tables); an
 * entry removed before a resize is not in the new table, and is added back.
 */
struct resize_sender {
	_Atomic bool stop;
	_Atomic uint64_t sent; /* written by the sender only */
	_Atomic uint32_t end;  /* keys [10, end) are added */
	uint64_t bad;
};

static void *resize_send(void *arg)
{
	struct resize_sender *s = arg;
	uint8_t f[128], out[128];
	uint32_t len;
	for (uint32_t k = 10; !atomic_load(&s->stop); k = k + 1 >= atomic_load(&s->end) ? 10 : k + 1) {
		struct nic_buf b = {f, ft_udp4(f, 1, 2, 3, (uint16_t)(1000 + k))};
		if (nic_port_rx_burst(0, &b, 1) != 1)
			return (void *)1;
		atomic_store_explicit(&s->sent, atomic_load_explicit(&s->sent, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		s->bad += nic_capture_pop(1, NIC_CAPTURE_TX, out, sizeof(out), &len) != DOCA_SUCCESS ||
			  ft_sport(out) != 20000 + k;
	}
	return NULL;
}

static struct nic_entry *add_key(struct nic_pipe *p, uint32_t key)
{
	struct nic_entry_attr ea;
	struct nic_entry *e = NULL;
	par_attr(&ea, key);
	assert_int_equal(nic_entry_add(p, &ea, &e), DOCA_SUCCESS);
	return e;
}

/* An adder of n keys from first on, one bulk call, on its own thread. */
struct run_adder {
	struct nic_pipe *p;
	uint32_t first, n;
	pthread_barrier_t *turn; /* A: adds, waits twice (B adds between), adds again */
	struct nic_entry *e[128];
	doca_error_t err[128];
};

static void run_add(struct run_adder *a, uint32_t from, uint32_t n)
{
	struct nic_entry_attr ea[128];
	const struct nic_entry_attr *ap[128];
	for (uint32_t j = 0; j < n; j++) {
		par_attr(&ea[j], a->first + from + j);
		ap[j] = &ea[j];
	}
	nic_entry_add_bulk(a->p, ap, n, a->e + from, a->err + from);
}

static void *run_add_split(void *arg)
{
	struct run_adder *a = arg;
	run_add(a, 0, a->n / 2);
	pthread_barrier_wait(a->turn);
	pthread_barrier_wait(a->turn);
	run_add(a, a->n / 2, a->n - a->n / 2);
	return NULL;
}

static void *run_add_between(void *arg)
{
	struct run_adder *a = arg;
	pthread_barrier_wait(a->turn);
	run_add(a, 0, a->n);
	pthread_barrier_wait(a->turn);
	return NULL;
}

static void test_slot_runs_per_thread(void **state)
{
	(void)state;
	/* A adds 40, B adds 40, A adds 40 more, into one pipe: each thread's slots are one
	 * run of its own, so the two never write neighbouring records or bitmap words. */
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	struct nic_pipe *p = basic_on_dport(0, false, 4096);
	pthread_barrier_t turn;
	pthread_barrier_init(&turn, NULL, 2);
	static struct run_adder a, b;
	a = (struct run_adder){.p = p, .first = 0, .n = 80, .turn = &turn};
	b = (struct run_adder){.p = p, .first = 100, .n = 40, .turn = &turn};
	pthread_t ta, tb;
	assert_int_equal(pthread_create(&ta, NULL, run_add_split, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, run_add_between, &b), 0);
	assert_int_equal(pthread_join(ta, NULL), 0);
	assert_int_equal(pthread_join(tb, NULL), 0);
	pthread_barrier_destroy(&turn);
	uint32_t a0 = nic_pipe_entry_slot(p, a.e[0]), b0 = nic_pipe_entry_slot(p, b.e[0]);
	for (uint32_t i = 0; i < 80; i++) {
		assert_int_equal(a.err[i], DOCA_SUCCESS);
		assert_int_equal(nic_pipe_entry_slot(p, a.e[i]), a0 + i);
	}
	for (uint32_t i = 0; i < 40; i++) {
		assert_int_equal(b.err[i], DOCA_SUCCESS);
		assert_int_equal(nic_pipe_entry_slot(p, b.e[i]), b0 + i);
		assert_true(b0 + i < a0 || b0 + i >= a0 + 80);
	}
	/* Linked: the same keys again are duplicates. */
	add_dport_sport(p, 1000 + 79, 0, DOCA_ERROR_ALREADY_EXIST);
	add_dport_sport(p, 1000 + 139, 0, DOCA_ERROR_ALREADY_EXIST);
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/* Keys [first, first + n) in bulks of 64 on the calling thread: how many failed. */
struct fill_adder {
	struct nic_pipe *p;
	uint32_t first, n, failed;
};

static void *fill_add(void *arg)
{
	struct fill_adder *f = arg;
	for (uint32_t i = 0; i < f->n; i += 64) {
		struct nic_entry_attr ea[64];
		const struct nic_entry_attr *ap[64];
		struct nic_entry *e[64];
		doca_error_t err[64];
		uint32_t n = f->n - i < 64 ? f->n - i : 64;
		for (uint32_t j = 0; j < n; j++) {
			par_attr(&ea[j], f->first + i + j);
			ap[j] = &ea[j];
		}
		nic_entry_add_bulk(f->p, ap, n, e, err);
		for (uint32_t j = 0; j < n; j++)
			f->failed += err[j] != DOCA_SUCCESS;
	}
	return NULL;
}

static void test_slot_runs_never_full_early(void **state)
{
	(void)state;
	/* Eight threads add an entry each (and take a run each: half the slots), a ninth
	 * fills the rest of the pipe: it gets the others' unused slots once the cursor is
	 * at the end. */
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	for (uint32_t size = 64; size <= 2048; size *= 32) {
		struct nic_pipe *p = basic_on_dport(0, false, size);
		for (uint32_t t = 0; t <= NIC_SLOT_RUNS; t++) {
			struct fill_adder f = {.p = p, .first = t, .n = t < NIC_SLOT_RUNS ? 1 : size - t};
			pthread_t th;
			assert_int_equal(pthread_create(&th, NULL, fill_add, &f), 0);
			assert_int_equal(pthread_join(th, NULL), 0);
			assert_int_equal(f.failed, 0);
		}
		add_dport_sport(p, 1000 + size - 1, 0, DOCA_ERROR_FULL);
		assert_int_equal(nic_pipe_nr_live_entries(p), size);
		nic_pipe_destroy(p);
	}
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

static void test_resize_grows_buckets(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	struct nic_pipe_attr a;
	struct nic_pipe *p = NULL;
	memset(&a, 0, sizeof(a));
	a.type = NIC_PIPE_BASIC;
	a.name = "grow";
	a.port_id = 0;
	a.is_root = true;
	a.nr_entries = 64;
	a.max_entries = 32768;
	a.ps_field = -1;
	a.fwd_miss.type = NIC_FWD_DROP;
	memset(a.entry_mask.b + NIC_K_L4_DST, 0xff, 2);
	assert_int_equal(nic_pipe_create(&a, &p), DOCA_SUCCESS);
	assert_int_equal(nic_pipe_btable(p)->n, 32);
	struct nic_entry *five = NULL;
	for (uint32_t k = 0; k < 64; k++) {
		struct nic_entry *e = add_key(p, k);
		if (k == 5)
			five = e;
	}
	struct resize_sender snd = {.end = 64};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, resize_send, &snd), 0);
	assert_int_equal(nic_entry_remove(p, five), DOCA_SUCCESS);
	nic_entry_free(p, five);
	uint32_t key = 64, link = nic_pipe_btable(p)->link;
	const uint32_t sizes[3] = {256, 4096, 32768};
	for (int r = 0; r < 3; r++) {
		uint64_t before = atomic_load(&snd.sent);
		assert_int_equal(nic_pipe_set_capacity(p, sizes[r]), DOCA_SUCCESS);
		assert_int_equal(nic_pipe_btable(p)->n, nic_buckets_for(sizes[r]));
		assert_int_not_equal(nic_pipe_btable(p)->link, link); /* the other chain link */
		link = nic_pipe_btable(p)->link;
		for (; key < sizes[r] + (r == 0); key++) /* full (key 5 is out) */
			add_key(p, key);
		atomic_store(&snd.end, key);
		while (atomic_load(&snd.sent) < before + 1000) /* the sender goes on through the new table */
			sched_yield();
	}
	atomic_store(&snd.stop, true);
	void *rc;
	assert_int_equal(pthread_join(th, &rc), 0);
	assert_null(rc);
	assert_int_equal(snd.bad, 0);
	assert_int_equal(sport_out(1005), 0); /* removed before the first resize */
	assert_int_equal(nic_pipe_set_capacity(p, 32768), DOCA_SUCCESS); /* same size: same table */
	assert_int_equal(nic_pipe_btable(p)->link, link);
	assert_int_equal(nic_pipe_nr_live_entries(p), 32767);
	add_key(p, 5);
	assert_int_equal(sport_out(1005), 20005);
	const struct nic_btable *bt = nic_pipe_btable(p);
	uint32_t longest = 0;
	for (uint32_t i = 0; i < bt->n; i++) {
		uint32_t len = bucket_chain_len(p, &bt->b[i]);
		longest = len > longest ? len : longest;
	}
	assert_true(longest <= 16);
	for (uint32_t k = 0; k < 32768; k += 97)
		assert_int_equal(sport_out((uint16_t)(1000 + k)), 20000 + k);
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/* Pages of [mem, mem + len) resident (mincore). */
static uint32_t resident_pages(const void *mem, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start = (uintptr_t)mem & ~(page - 1);
	size_t n = ((uintptr_t)mem + len - start + page - 1) / page;
	unsigned char vec[64];
	assert_true(n <= sizeof(vec));
	assert_int_equal(mincore((void *)start, n * page, vec), 0);
	uint32_t r = 0;
	for (size_t i = 0; i < n; i++)
		r += vec[i] & 1;
	return r;
}

/*
 * Issue 13: counter reads and slot releases read a pool's shared-shard cells and spill
 * counters only once something was written there, so that they commit no page of them
 * (a read does, on a kernel that maps no zero page): counted by this thread's own shard
 * and read, removed and freed, the entries leave both arrays untouched; once the shared
 * shard has counted, its cells are read.
 */
/* The mapping of /proc/self/maps that holds addr: its end and whether it is writable. */
static bool mapping_of(uintptr_t addr, uintptr_t *end, bool *rw)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[512], perms[8];
	unsigned long lo, hi;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && addr >= lo && addr < hi) {
			*end = hi;
			*rw = perms[0] == 'r' && perms[1] == 'w';
			found = true;
		}
	fclose(f);
	return found;
}

/* The state arena is reserved without access and made writable a chunk at a time, so
 * that under a strict overcommit policy it counts only what is used. */
static void test_state_arena_commits_by_chunk(void **state)
{
	(void)state;
	enum { N = NIC_STATE_CHUNK + 100 };
	struct nic_entry_state **s = calloc(N, sizeof(*s));
	assert_non_null(s);
	uintptr_t top = 0, end;
	bool rw;
	for (uint32_t i = 0; i < N; i++) {
		s[i] = nic_state_alloc();
		assert_non_null(s[i]);
		memset(s[i], 0xa5, sizeof(*s[i])); /* writable, or the test dies here */
		uintptr_t e = (uintptr_t)(s[i] + 1);
		top = e > top ? e : top;
	}
	uintptr_t base = (uintptr_t)nic_state_arena;
	assert_true(mapping_of(top - 1, &end, &rw));
	assert_true(rw);
	/* Writable up to the chunk of the highest state, no further. */
	assert_true(end >= top);
	assert_true(end - base <= ((top - base) / sizeof(**s) + NIC_STATE_CHUNK + 1) * sizeof(**s) + 4096);
	/* Past it the reservation has no access: nothing committed, nothing counted. */
	assert_true(mapping_of(end, &end, &rw));
	assert_false(rw);
	assert_true(end - base >= ((size_t)1 << 20) * sizeof(**s));
	for (uint32_t i = 0; i < N; i++)
		nic_state_free(s[i]);
	free(s);
}

static void test_untouched_cells_stay_unread(void **state)
{
	(void)state;
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	struct nic_pipe *p = basic_on_dport(0, true, 1024);
	uint32_t mine = shard_probe();
	assert_int_equal(mine, 0); /* this thread owns the shard in the entry */
	size_t spill_len = (size_t)p->pool_n * sizeof(*p->spill), cells_len = (size_t)p->pool_n * sizeof(*p->cells[1]);
	struct nic_entry *e[4];
	for (uint32_t i = 0; i < 4; i++)
		e[i] = add_dport_sport(p, (uint16_t)(80 + i), (uint16_t)(7 + i), DOCA_SUCCESS);
	assert_int_equal(sport_out(81), 8);
	uint64_t pk, by;
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(nic_entry_counter_read(p, e[i], &pk, &by), DOCA_SUCCESS);
		assert_int_equal(pk, i == 1);
	}
	assert_int_equal(nic_entry_remove(p, e[1]), DOCA_SUCCESS);
	nic_entry_free(p, e[1]);
	assert_int_equal(resident_pages(p->spill, spill_len), 0);
	assert_int_equal(resident_pages(p->cells[1], cells_len), 0);
	/* The shared shard counts: from then on its cells are read. */
	cells_preset(p, e[2], 5, 500);
	assert_int_equal(nic_entry_counter_read(p, e[2], &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, 5 * NIC_CNT_SHARDS);
	assert_int_equal(by, 500 * NIC_CNT_SHARDS);
	assert_int_equal(resident_pages(p->spill, spill_len), 0);
	nic_pipe_destroy(p);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/* A datapath thread's bursts (frames to port 0, dport 80), each after a probe of the
 * shard nic_dp_enter gives it; then, if park, it waits, idle, until told to end. */
struct shard_sender {
	pthread_t t;
	uint32_t n;
	uint32_t first_owned; /* the first probe that gave the owned shard, UINT32_MAX: none */
	bool park;
	_Atomic bool parked, end;
};

static void *shard_send(void *arg)
{
	struct shard_sender *ss = arg;
	uint8_t f[128];
	struct nic_buf b = {f, ft_udp4(f, 1, 2, 3, 80)};
	ss->first_owned = UINT32_MAX;
	for (uint32_t i = 0; i < ss->n; i++) {
		uint32_t sh = shard_probe();
		if (sh == 0 && ss->first_owned == UINT32_MAX)
			ss->first_owned = i;
		if (ss->first_owned != UINT32_MAX && sh != 0)
			return (void *)1; /* lost to a thread that ran no burst */
		if (nic_port_rx_burst(0, &b, 1) != 1)
			return (void *)2;
	}
	atomic_store(&ss->parked, true);
	while (ss->park && !atomic_load(&ss->end))
		sched_yield();
	return NULL;
}

/* Ports 0 and 1 started (1 without capture) and a root pipe on dport with one entry
 * (dport 80, its own counter): the shard tests' frames go there. */
static struct nic_pipe *shard_pipe_create(struct nic_entry **e)
{
	assert_int_equal(nic_port_start(0), DOCA_SUCCESS);
	assert_int_equal(nic_port_start(1), DOCA_SUCCESS);
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 0), DOCA_SUCCESS);
	struct nic_pipe *p = basic_on_dport(0, true, 4);
	*e = add_dport_sport(p, 80, 7, DOCA_SUCCESS);
	return p;
}

static void shard_pipe_destroy(struct nic_pipe *p)
{
	nic_pipe_destroy(p);
	assert_int_equal(nic_capture_set_depth(1, NIC_CAPTURE_TX, 1024), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(1), DOCA_SUCCESS);
	assert_int_equal(nic_port_stop(0), DOCA_SUCCESS);
}

/* Bursts in lockstep with the test's thread (step: even, its turn; odd, this one's). */
struct lockstep {
	pthread_t t;
	uint32_t n;
	_Atomic uint32_t step;
	bool got_owned;
};

static void *lockstep_send(void *arg)
{
	struct lockstep *ls = arg;
	uint8_t f[128];
	struct nic_buf b = {f, ft_udp4(f, 1, 2, 3, 80)};
	for (uint32_t i = 0; i < ls->n; i++) {
		while (atomic_load(&ls->step) != 2 * i + 1)
			sched_yield();
		ls->got_owned |= shard_probe() == 0;
		if (nic_port_rx_burst(0, &b, 1) != 1)
			return (void *)1;
		atomic_store(&ls->step, 2 * i + 2);
	}
	return NULL;
}

/* This thread's probes until nic_dp_enter gives shard want, with a frame after each;
 * returns how many probes that took (max + 1: never). */
static uint32_t probes_until_shard(struct nic_buf *b, uint32_t want, uint32_t max)
{
	for (uint32_t i = 0; i <= max; i++) {
		uint32_t sh = shard_probe();
		if (sh == want)
			return i;
		assert_int_equal(nic_port_rx_burst(0, b, 1), 1);
	}
	return max + 1;
}

/*
 * Issue 13: the owned counter shard (its cell is in the entry, counted without a
 * locked instruction) goes to the threads that run bursts. A thread on the shared shard
 * takes it over from an owner that ran no burst between two of its looks, NIC_DP_STEAL_PERIOD
 * bursts apart, and takes a free one at its next burst; an owner keeps it while it runs
 * bursts; no count is lost across a handover.
 */
static void test_idle_shard_owner_loses_it(void **state)
{
	(void)state;
	struct nic_entry *e;
	struct nic_pipe *p = shard_pipe_create(&e);
	uint8_t f[128];
	struct nic_buf b = {f, ft_udp4(f, 1, 2, 3, 80)};
	const uint64_t len = b.len;
	for (int i = 0; i < 10; i++)
		assert_int_equal(nic_port_rx_burst(0, &b, 1), 1);
	assert_int_equal(shard_probe(), 0); /* this thread owns it */

	/* Another thread running bursts in lockstep with this one never takes it. */
	struct lockstep ls = {.n = 4 * NIC_DP_STEAL_PERIOD};
	assert_int_equal(pthread_create(&ls.t, NULL, lockstep_send, &ls), 0);
	for (uint32_t i = 0; i < ls.n; i++) {
		while (atomic_load(&ls.step) != 2 * i)
			sched_yield();
		assert_int_equal(nic_port_rx_burst(0, &b, 1), 1);
		atomic_store(&ls.step, 2 * i + 1);
	}
	void *rc;
	assert_int_equal(pthread_join(ls.t, &rc), 0);
	assert_null(rc);
	assert_false(ls.got_owned);
	assert_int_equal(shard_probe(), 0);
	const uint64_t sent0 = 10 + 2 * ls.n;

	/* A sender takes it from this thread, idle, within two looks, and keeps it. */
	const uint32_t n = 4 * NIC_DP_STEAL_PERIOD;
	struct shard_sender a = {.n = n, .park = true};
	assert_int_equal(pthread_create(&a.t, NULL, shard_send, &a), 0);
	while (!atomic_load(&a.parked))
		sched_yield();
	/* Its second look, at its burst 2 * NIC_DP_STEAL_PERIOD (two bursts a probe). */
	assert_int_equal(a.first_owned, NIC_DP_STEAL_PERIOD);
	uint64_t pk, by;
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, sent0 + n);
	assert_int_equal(by, (sent0 + n) * len);

	/* Robbed, this thread counts on the shared shard, and takes the owned one back
	 * from the sender, now idle, within two looks of its own. */
	uint32_t probes = probes_until_shard(&b, 0, 4 * NIC_DP_STEAL_PERIOD);
	assert_int_equal(probes, NIC_DP_STEAL_PERIOD);
	atomic_store(&a.end, true);
	assert_int_equal(pthread_join(a.t, &rc), 0);
	assert_null(rc);
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, sent0 + n + probes);
	assert_int_equal(by, (sent0 + n + probes) * len);

	/* A sender that ends gives its shard back: this thread, robbed again, takes it at
	 * its next burst. */
	struct shard_sender c = {.n = n};
	assert_int_equal(pthread_create(&c.t, NULL, shard_send, &c), 0);
	assert_int_equal(pthread_join(c.t, &rc), 0);
	assert_null(rc);
	assert_true(c.first_owned != UINT32_MAX);
	assert_int_equal(probes_until_shard(&b, 0, 0), 0);
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, sent0 + 2 * n + probes);
	assert_int_equal(by, (sent0 + 2 * n + probes) * len);

	shard_pipe_destroy(p);
}

/* Two threads taking turns (turn: whose), each turn PING_BURSTS frames to dport 80. */
#define PING_TURNS 40
#define PING_BURSTS (3 * NIC_DP_STEAL_PERIOD)
struct ping_ctx {
	_Atomic uint32_t turn;
	struct ping_side {
		pthread_t t;
		uint32_t me;
		struct ping_ctx *ctx;
		uint32_t robbed, owned; /* turns begun on the shared shard, ended on the owned one */
	} side[2];
};

static void *ping_side_run(void *arg)
{
	struct ping_side *ps = arg;
	uint8_t f[128];
	struct nic_buf b = {f, ft_udp4(f, 1, 2, 3, 80)};
	for (uint32_t t = ps->me; t < PING_TURNS; t += 2) {
		while (atomic_load(&ps->ctx->turn) != t)
			sched_yield();
		uint32_t first = 0, last = 0;
		for (uint32_t i = 0; i < PING_BURSTS; i++) {
			uint32_t sh = shard_probe();
			first = i ? first : sh;
			last = sh;
			if (nic_port_rx_burst(0, &b, 1) != 1)
				return (void *)1;
		}
		ps->robbed += first == NIC_CNT_SHARDS - 1;
		ps->owned += last == 0;
		atomic_store(&ps->ctx->turn, t + 1);
	}
	/* Alive until the last turn ends: a thread that ends gives its shard back. */
	while (atomic_load(&ps->ctx->turn) != PING_TURNS)
		sched_yield();
	return NULL;
}

/*
 * Two datapath threads taking turns, each idle while the other runs: the owned shard
 * changes hands at every turn, and every frame is counted once.
 */
static void test_shard_ping_pong(void **state)
{
	(void)state;
	struct nic_entry *e;
	struct nic_pipe *p = shard_pipe_create(&e);
	assert_int_equal(shard_probe(), 0); /* this thread owns it: the first turn takes it */
	struct ping_ctx ctx = {0};
	for (uint32_t i = 0; i < 2; i++) {
		ctx.side[i] = (struct ping_side){.me = i, .ctx = &ctx};
		assert_int_equal(pthread_create(&ctx.side[i].t, NULL, ping_side_run, &ctx.side[i]), 0);
	}
	for (uint32_t i = 0; i < 2; i++) {
		void *rc;
		assert_int_equal(pthread_join(ctx.side[i].t, &rc), 0);
		assert_null(rc);
		assert_int_equal(ctx.side[i].robbed, PING_TURNS / 2);
		assert_int_equal(ctx.side[i].owned, PING_TURNS / 2);
	}
	uint64_t pk, by;
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, (uint64_t)PING_TURNS * PING_BURSTS);
	shard_pipe_destroy(p);
}

/* A thread taking the owned shard at once (nic_dp_shard_take), then counting hits of its
 * own on entry e with it, in a burst. */
struct shard_taker {
	pthread_t t;
	struct nic_pipe *p;
	struct nic_entry *e;
	uint32_t hits, len, got;
	_Atomic bool started, done;
};

static void *shard_take_run(void *arg)
{
	struct shard_taker *st = arg;
	atomic_store(&st->started, true);
	st->got = nic_dp_shard_take();
	atomic_store(&st->done, true);
	uint32_t sh = nic_dp_enter();
	for (uint32_t i = 0; i < st->hits; i++)
		nic_entry_hit(st->p, st->e, st->len, sh);
	nic_dp_exit();
	return NULL;
}

/*
 * A thief never counts on the owned shard while its owner is in a burst: it waits for
 * the burst to end, and then sees every count the owner made in it.
 */
static void test_shard_taken_after_the_burst(void **state)
{
	(void)state;
	struct nic_entry *e;
	struct nic_pipe *p = shard_pipe_create(&e);
	uint64_t pk0, by0, pk, by;
	assert_int_equal(nic_entry_counter_read(p, e, &pk0, &by0), DOCA_SUCCESS);
	struct shard_taker st = {.p = p, .e = e, .hits = 1000, .len = 60};
	assert_int_equal(nic_dp_enter(), 0); /* this thread's burst, on the owned shard */
	assert_int_equal(pthread_create(&st.t, NULL, shard_take_run, &st), 0);
	while (!atomic_load(&st.started))
		sched_yield();
	for (int i = 0; i < 1000; i++)
		nic_entry_hit(p, e, 60, 0);
	usleep(50 * 1000); /* time enough for a thief that would not wait */
	assert_false(atomic_load(&st.done));
	nic_dp_exit();
	void *rc;
	assert_int_equal(pthread_join(st.t, &rc), 0);
	assert_null(rc);
	assert_int_equal(st.got, 0);
	assert_int_equal(nic_entry_counter_read(p, e, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk - pk0, 2000);
	assert_int_equal(by - by0, 2000 * 60);
	shard_pipe_destroy(p);
}

int main(void)
{
	ft_log_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_udp4),
		cmocka_unit_test(test_parse_tcp_vlan_icmp_v6),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_key_hash),
		cmocka_unit_test(test_resources),
		cmocka_unit_test(test_pipe_errors),
		cmocka_unit_test(test_datapath_basic),
		cmocka_unit_test(test_drop_reasons),
		cmocka_unit_test(test_new_root_at_old_address),
		cmocka_unit_test(test_generator),
		cmocka_unit_test(test_parse_fast_equals_general),
		cmocka_unit_test(test_fast_words_equal_general),
		cmocka_unit_test(test_root_fast_equals_general),
		cmocka_unit_test(test_root_partial_meta_mask),
		cmocka_unit_test(test_rewrite_udp_csum_zero),
		cmocka_unit_test(test_update_is_atomic),
		cmocka_unit_test(test_entry_pool_and_states),
		cmocka_unit_test(test_bucket_ways_and_chain),
		cmocka_unit_test(test_entry_add_bulk),
		cmocka_unit_test(test_parallel_basic_adds),
		cmocka_unit_test(test_parallel_adds_one_bucket),
		cmocka_unit_test(test_resize_grows_buckets),
		cmocka_unit_test(test_solo_add_gives_way),
		cmocka_unit_test(test_slot_runs_per_thread),
		cmocka_unit_test(test_slot_runs_never_full_early),
		cmocka_unit_test(test_counter_cells_fold),
		cmocka_unit_test(test_untouched_cells_stay_unread),
		cmocka_unit_test(test_idle_shard_owner_loses_it),
		cmocka_unit_test(test_shard_ping_pong),
		cmocka_unit_test(test_shard_taken_after_the_burst),
		cmocka_unit_test(test_state_refs_and_entry_word),
		cmocka_unit_test(test_hash_ps_state_keeps_ports),
		cmocka_unit_test(test_state_arena_commits_by_chunk),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	nic_shutdown();
	return rc;
}
