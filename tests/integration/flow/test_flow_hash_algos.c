/*
 * test_flow_hash_algos.c - every HASH-pipe map algorithm (HASH, RANDOM, IDENTITY,
 * ROUND_ROBIN, FLOODING, SELECT_ENABLED), entry disable/enable and path-selector
 * replace as the provider executes them (flow_provider.h), every index-selector state,
 * memory-resource counting and re-adding at an index, each checked on real packets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <flow/flow_provider.h>

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

/* One provider operation on a pipe export; its result. */
static doca_error_t xop(struct flow_export *x, uint32_t type, uint32_t index, uint64_t value)
{
	struct flow_xop op = {.type = type, .index = index, .value = value};
	flow_export_execute(x, &op, 1);
	return op.result;
}

static struct flow_export *export_of(struct doca_flow_pipe *pipe)
{
	struct flow_export *x = NULL;
	assert_int_equal(flow_export_pipe(pipe, "test", __func__, &x), DOCA_SUCCESS);
	return x;
}

#define set_enabled(x, i, on) xop(x, (on) ? FLOW_XOP_ENABLE : FLOW_XOP_DISABLE, i, 0)

struct hp_opts {
	uint32_t alg;
	uint32_t nr_entries;
	bool dport_identity; /* mask udp dst port instead of ip4 dst */
	struct doca_flow_external_resource *sel, *mem;
};

/* Root HASH pipe with a sport path selector; entry i -> port 1 with sport 100 + i. */
static struct doca_flow_pipe *hash_root(const struct hp_opts *o, struct doca_flow_pipe_entry **entries)
{
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *pipe = NULL;

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	memset(&mon, 0, sizeof(mon));
	if (o->dport_identity) {
		mask.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
		mask.outer.udp.l4_port.dst_port = 0xffff;
	} else {
		mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
		mask.outer.ip4.dst_ip = 0xffffffff;
	}
	act.outer.udp.l4_port.src_port = 0xffff;
	mon.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "HASH_ROOT", DOCA_FLOW_PIPE_HASH, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, o->nr_entries), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	if (o->alg)
		assert_int_equal(doca_flow_pipe_cfg_set_hash_map_algorithm(cfg, o->alg), DOCA_SUCCESS);
	if (o->sel)
		assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, o->sel), DOCA_SUCCESS);
	if (o->mem)
		assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, o->mem), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, &miss, &pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	for (uint32_t i = 0; i < o->nr_entries; i++) {
		memset(&act, 0, sizeof(act));
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16(100 + i);
		assert_int_equal(doca_flow_pipe_hash_add_entry(0, pipe, i, 0, &act, NULL, NULL, 0, &status, &entries[i]),
				 DOCA_SUCCESS);
	}
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_false(status.failure);
	return pipe;
}

/* Inject one UDP frame to dport and return the sport it left port 1 with (0: not sent). */
static uint16_t send_dport(uint16_t dport)
{
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	ft_drain(1);
	assert_int_equal(ft_inject_udp4(0, 0x01020304, 0x0a000001, 7, dport), DOCA_SUCCESS);
	if (flowdpa_port_capture_pop(1, buf, sizeof(buf), &len) != DOCA_SUCCESS)
		return 0;
	assert_true(ft_checksums_ok(buf, len));
	return ft_sport(buf);
}

static uint32_t hash_index(struct doca_flow_pipe *pipe, uint32_t dst, uint32_t n)
{
	struct doca_flow_match m;
	uint32_t h;
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = DOCA_HTOBE32(dst);
	assert_int_equal(doca_flow_pipe_calc_hash(pipe, &m, &h), DOCA_SUCCESS);
	return h % n;
}

static void test_hash_and_disable(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[8];
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_HASH, .nr_entries = 8};
	struct doca_flow_pipe *pipe = hash_root(&o, e);
	struct flow_export *np = export_of(pipe);
	assert_non_null(np);

	uint32_t dst = 0x0a000005, idx = hash_index(pipe, dst, 8);
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	assert_int_equal(ft_inject_udp4(0, 1, dst, 7, 9), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
	assert_int_equal(ft_sport(buf), 100 + idx);
	assert_int_equal(ft_entry_pkts(e[idx]), 1);

	/* Disabled without SELECT_ENABLED: the packet goes to fwd_miss. */
	assert_int_equal(set_enabled(np, idx, false), DOCA_SUCCESS);
	bool en = true;
	assert_int_equal(flow_export_entry_state(np, idx, &en, NULL), DOCA_SUCCESS);
	assert_false(en);
	assert_int_equal(ft_inject_udp4(0, 1, dst, 7, 9), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 0);
	assert_int_equal(ft_miss_pkts(pipe), 1);
	assert_int_equal(ft_entry_pkts(e[idx]), 1);
	assert_int_equal(set_enabled(np, idx, true), DOCA_SUCCESS);

	/* Path-selector replace is visible on the wire; values must fit 16 bits. */
	assert_int_equal(xop(np, FLOW_XOP_REPLACE, idx, 4242), DOCA_SUCCESS);
	assert_int_equal(xop(np, FLOW_XOP_REPLACE, idx, 70000), DOCA_ERROR_INVALID_VALUE);
	uint32_t v = 0;
	assert_int_equal(flow_export_entry_state(np, idx, NULL, &v), DOCA_SUCCESS);
	assert_int_equal(v, 4242);
	assert_int_equal(ft_inject_udp4(0, 1, dst, 7, 9), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
	assert_int_equal(ft_sport(buf), 4242);
	assert_true(ft_checksums_ok(buf, len));
	uint64_t pk = 0, by = 0;
	assert_int_equal(flow_export_entry_counter(np, idx, &pk, &by), DOCA_SUCCESS);
	assert_int_equal(pk, 2);
	assert_int_equal(by, 120);

	/* Bad inputs of the provider operations. */
	assert_int_equal(set_enabled(np, 8, false), DOCA_ERROR_INVALID_VALUE);
	struct flow_xop none[2] = {{.type = FLOW_XOP_SELECT}, {.type = FLOW_XOP_MEM_READ}};
	flow_export_execute(np, none, 2);
	assert_int_equal(none[0].result, DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(none[1].result, DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(xop(np, FLOW_XOP_REPLACE, 99, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e[idx]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, 0, 0), DOCA_SUCCESS);
	assert_int_equal(set_enabled(np, idx, true), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(xop(np, FLOW_XOP_REPLACE, idx, 1), DOCA_ERROR_NOT_FOUND);

	/* The export holds the pipe: destroy is refused (and logged), the pipe still works. */
	doca_flow_pipe_destroy(pipe);
	assert_int_equal(set_enabled(np, (idx + 1) % 8, true), DOCA_SUCCESS);
	flow_export_release(np);
}

/* A port that stops under an export detaches it: the export stays valid, its ops fail. */
static void test_export_detached_by_port_stop(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[8];
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_HASH, .nr_entries = 8};
	struct doca_flow_pipe *pipe = hash_root(&o, e);
	struct flow_export *np = export_of(pipe);
	struct flow_export_info info;
	uint64_t bits[1];
	assert_int_equal(flow_export_info(np, &info), DOCA_SUCCESS);
	assert_int_equal(info.kind, FLOW_EXPORT_PIPE);
	assert_int_equal(info.size, 8);
	assert_int_equal(info.ps_bits, 16);
	assert_int_equal(info.nr_entries_added, 8);
	assert_int_equal(flow_export_entries(np, bits, 64), DOCA_SUCCESS);
	assert_int_equal(bits[0], 0xff);
	assert_int_equal(flow_export_entries(np, bits, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_stop(ports[0]), DOCA_SUCCESS);
	ports[0] = NULL;
	assert_int_equal(set_enabled(np, 0, false), DOCA_ERROR_BAD_STATE);
	assert_int_equal(flow_export_info(np, &info), DOCA_ERROR_BAD_STATE);
	assert_int_equal(flow_export_entries(np, bits, 64), DOCA_ERROR_BAD_STATE);
	flow_export_release(np);
	flow_export_release(NULL);
	/* Bad inputs of the holds. */
	assert_int_equal(flow_export_pipe(NULL, "t", __func__, &np), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flow_export_pipe(pipe, "t", __func__, &np), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flow_export_pipe(pipe, "t", __func__, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flow_export_resource(NULL, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, "t", __func__, &np),
			 DOCA_ERROR_INVALID_VALUE);
}

static void test_select_enabled(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[8];
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_HASH | DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_SELECT_ENABLED,
			    .nr_entries = 8};
	struct doca_flow_pipe *pipe = hash_root(&o, e);
	struct flow_export *np = export_of(pipe);
	uint32_t dst = 0x0a000009, idx = hash_index(pipe, dst, 8);
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;

	/* idx and idx+1 disabled: the next enabled index after the chosen one is used. */
	assert_int_equal(set_enabled(np, idx, false), DOCA_SUCCESS);
	assert_int_equal(set_enabled(np, (idx + 1) % 8, false), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, dst, 7, 9), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
	assert_int_equal(ft_sport(buf), 100 + (idx + 2) % 8);
	assert_int_equal(ft_entry_pkts(e[(idx + 2) % 8]), 1);
	/* All disabled: a miss. */
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(set_enabled(np, i, false), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, dst, 7, 9), DOCA_SUCCESS);
	assert_int_equal(ft_miss_pkts(pipe), 1);
	flow_export_release(np);
}

static void test_identity(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[16];
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY, .nr_entries = 16, .dport_identity = true};
	struct doca_flow_pipe *pipe = hash_root(&o, e);
	for (uint16_t d = 0; d < 16; d++)
		assert_int_equal(send_dport(d), 100 + d);
	/* A value beyond nr_entries selects nothing. */
	assert_int_equal(send_dport(16), 0);
	assert_int_equal(ft_miss_pkts(pipe), 1);
	for (int i = 0; i < 16; i++)
		assert_int_equal(ft_entry_pkts(e[i]), 1);
	/* IDENTITY supports update only: disable fails. */
	struct flow_export *np = export_of(pipe);
	assert_int_equal(set_enabled(np, 3, false), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(set_enabled(np, 3, true), DOCA_SUCCESS);
	flow_export_release(np);
}

static doca_error_t add_at(struct doca_flow_pipe *pipe, uint32_t index, uint16_t sport,
			   struct doca_flow_pipe_entry **e)
{
	struct doca_flow_actions act;
	memset(&act, 0, sizeof(act));
	act.outer.udp.l4_port.src_port = DOCA_HTOBE16(sport);
	return doca_flow_pipe_hash_add_entry(0, pipe, index, 0, &act, NULL, NULL, 0, &status, e);
}

static uint32_t dump_lines(struct doca_flow_pipe *pipe, const char *what)
{
	FILE *f = tmpfile();
	char line[256];
	uint32_t n = 0;
	assert_non_null(f);
	assert_int_equal(doca_flow_pipe_dump(pipe, f), DOCA_SUCCESS);
	rewind(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* An index added again: while the old entry's DEL is still queued the new entry is a
 * separate object and runs after it; once the DEL ran, the old handle is refused
 * (not a live entry) and a later add at the index gets that object back. */
static void test_index_reuse(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[4], *again, *third, *dup;
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY, .nr_entries = 4, .dport_identity = true};
	struct doca_flow_pipe *pipe = hash_root(&o, e);
	assert_int_equal(flow_pipe_nr_entries_added(pipe), 4);

	memset(&status, 0, sizeof(status));
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e[2]), DOCA_SUCCESS);
	assert_int_equal(add_at(pipe, 2, 200, &again), DOCA_SUCCESS);
	assert_ptr_not_equal(again, e[2]);
	assert_int_equal(flow_pipe_nr_entries_added(pipe), 5); /* the DEL has not run yet */
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_del, 1);
	assert_int_equal(status.nb_add, 1);
	assert_false(status.failure);
	assert_int_equal(flow_pipe_nr_entries_added(pipe), 4);
	assert_int_equal(send_dport(2), 200);
	assert_int_equal(ft_entry_pkts(again), 1);
	assert_int_equal(doca_flow_pipe_entry_get_status(e[2]), DOCA_FLOW_ENTRY_STATUS_ERROR);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e[2]), DOCA_ERROR_INVALID_VALUE);

	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, again), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(send_dport(2), 0);
	assert_int_equal(dump_lines(pipe, "index="), 3);
	assert_int_equal(add_at(pipe, 2, 201, &third), DOCA_SUCCESS);
	assert_ptr_equal(third, e[2]);
	assert_int_equal(doca_flow_pipe_entry_get_status(third), DOCA_FLOW_ENTRY_STATUS_IN_PROCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(third), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(send_dport(2), 201);
	assert_int_equal(ft_entry_pkts(third), 1); /* a fresh counter */
	assert_int_equal(dump_lines(pipe, "index=2 status=ok"), 1);

	/* An add at an occupied index completes with ERROR and leaves the live entry. */
	assert_int_equal(add_at(pipe, 1, 202, &dup), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_true(status.failure);
	assert_int_equal(doca_flow_pipe_entry_get_status(dup), DOCA_FLOW_ENTRY_STATUS_ERROR);
	assert_int_equal(doca_flow_pipe_entry_get_status(e[1]), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(send_dport(1), 101);
	assert_int_equal(dump_lines(pipe, "status=error"), 1);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, dup), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(flow_pipe_nr_entries_added(pipe), 4);
	assert_int_equal(send_dport(1), 101);
}

static void test_round_robin(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[4];
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_ROUND_ROBIN, .nr_entries = 4};
	hash_root(&o, e);
	for (int i = 0; i < 12; i++)
		assert_int_equal(send_dport(9), 100 + i % 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ft_entry_pkts(e[i]), 3);
}

static void test_random(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[4];
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_RANDOM, .nr_entries = 4};
	hash_root(&o, e);
	for (int i = 0; i < 400; i++)
		assert_int_not_equal(send_dport(9), 0);
	uint64_t sum = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t p = ft_entry_pkts(e[i]);
		assert_true(p > 40); /* expected 100 each */
		sum += p;
	}
	assert_int_equal(sum, 400);
}

static void test_flooding(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[3];
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_FLOODING, .nr_entries = 3};
	struct doca_flow_pipe *pipe = hash_root(&o, e);
	ft_drain(1);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 3);
	for (int i = 0; i < 3; i++) {
		uint8_t buf[FLOWDPA_MAX_FRAME];
		uint32_t len;
		assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
		assert_int_equal(ft_sport(buf), 100 + i);
		assert_true(ft_checksums_ok(buf, len));
		assert_int_equal(ft_entry_pkts(e[i]), 1);
	}
	/* A disabled entry gets no copy. */
	struct flow_export *np = export_of(pipe);
	assert_int_equal(set_enabled(np, 1, false), DOCA_SUCCESS);
	flow_export_release(np);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 2);
	assert_int_equal(ft_entry_pkts(e[1]), 1);
}

static struct doca_flow_external_resource *make_res(enum doca_flow_external_resource_type t, uint32_t n)
{
	struct doca_flow_external_resource_cfg *cfg;
	struct doca_flow_external_resource *r = NULL;
	assert_int_equal(doca_flow_external_resource_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_cfg_set_type(cfg, t), DOCA_SUCCESS);
	if (t == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR)
		assert_int_equal(doca_flow_external_resource_cfg_set_nr_indices(cfg, n), DOCA_SUCCESS);
	else
		assert_int_equal(doca_flow_external_resource_cfg_set_nr_cells(cfg, n), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_create(cfg, &r), DOCA_SUCCESS);
	doca_flow_external_resource_cfg_destroy(cfg);
	return r;
}

static void test_index_selector_states(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[8];
	struct doca_flow_external_resource *sel = make_res(DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, 8);
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY, .nr_entries = 8, .dport_identity = true,
			    .sel = sel};
	struct doca_flow_pipe *pipe = hash_root(&o, e);
	enum doca_flow_index_selector_op st;

	assert_int_equal(doca_flow_external_resource_index_selector_get(sel, 2, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE);
	assert_int_equal(send_dport(2), 102);

	/* SKIP_TWICE: the next two packets selecting 2 treat it as disabled. */
	assert_int_equal(doca_flow_external_resource_index_selector_set(sel, 2, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_TWICE),
			 DOCA_SUCCESS);
	assert_int_equal(send_dport(2), 0);
	assert_int_equal(doca_flow_external_resource_index_selector_get(sel, 2, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE);
	assert_int_equal(send_dport(2), 0);
	assert_int_equal(doca_flow_external_resource_index_selector_get(sel, 2, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE);
	assert_int_equal(send_dport(2), 102);

	/* SKIP_ONCE: one packet. */
	doca_flow_external_resource_index_selector_set(sel, 5, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE);
	assert_int_equal(send_dport(5), 0);
	assert_int_equal(send_dport(5), 105);

	/* DISABLE: until set back. Other indices are not affected. */
	doca_flow_external_resource_index_selector_set(sel, 7, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE);
	for (int i = 0; i < 3; i++)
		assert_int_equal(send_dport(7), 0);
	assert_int_equal(send_dport(6), 106);
	doca_flow_external_resource_index_selector_set(sel, 7, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE);
	assert_int_equal(send_dport(7), 107);

	assert_int_equal(ft_miss_pkts(pipe), 2 + 1 + 3);
	assert_int_equal(ft_entry_pkts(e[2]), 2);
	assert_int_equal(ft_entry_pkts(e[7]), 1);

	/* Bad inputs; destroy while bound. */
	assert_int_equal(doca_flow_external_resource_index_selector_set(sel, 8, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_index_selector_set(sel, 0, 9), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_index_selector_get(sel, 0, NULL), DOCA_ERROR_INVALID_VALUE);
	uint64_t v;
	assert_int_equal(doca_flow_external_resource_memory_get(sel, 0, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_ERROR_BAD_STATE);
	doca_flow_pipe_destroy(pipe);
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);
}

/* SELECT_ENABLED scan over index-selector slots: the scan honours DISABLE only, and a
 * skip is consumed only by a packet whose algorithm chose that index (as documented in
 * docs/external-resources.md). */
static void test_selector_scan_and_skips(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[8];
	struct doca_flow_external_resource *sel = make_res(DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, 8);
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY |
				   DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_SELECT_ENABLED,
			    .nr_entries = 8,
			    .dport_identity = true,
			    .sel = sel};
	struct doca_flow_pipe *pipe = hash_root(&o, e);
	enum doca_flow_index_selector_op st;

	doca_flow_external_resource_index_selector_set(sel, 2, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE);
	doca_flow_external_resource_index_selector_set(sel, 3, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE);
	/* chose 2 (disabled): the scan reaches 3 and uses it, leaving its skip alone */
	assert_int_equal(send_dport(2), 103);
	assert_int_equal(doca_flow_external_resource_index_selector_get(sel, 3, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE);
	/* chose 3: the skip is consumed, the scan moves on to 4 */
	assert_int_equal(send_dport(3), 104);
	assert_int_equal(doca_flow_external_resource_index_selector_get(sel, 3, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE);
	assert_int_equal(send_dport(3), 103);
	assert_int_equal(ft_miss_pkts(pipe), 0);
	doca_flow_pipe_destroy(pipe);
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);
}

static void test_memory_counting(void **state)
{
	(void)state;
	struct doca_flow_pipe_entry *e[8];
	struct doca_flow_external_resource *mem = make_res(DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, 10);
	struct hp_opts o = {.alg = DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY, .nr_entries = 8, .dport_identity = true,
			    .mem = mem};
	hash_root(&o, e);
	for (uint16_t d = 0; d < 8; d++)
		for (uint16_t k = 0; k <= d; k++)
			assert_int_equal(send_dport(d), 100 + d);
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t v = 0;
		assert_int_equal(doca_flow_external_resource_memory_get(mem, i, &v), DOCA_SUCCESS);
		assert_int_equal(v, i + 1);
		assert_int_equal(ft_entry_pkts(e[i]), i + 1);
	}
	/* Cells beyond nr_entries are host/DPA memory only. */
	assert_int_equal(doca_flow_external_resource_memory_set(mem, 9, 0xabcdef), DOCA_SUCCESS);
	uint64_t v = 0;
	assert_int_equal(doca_flow_external_resource_memory_get(mem, 9, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0xabcdef);
	assert_int_equal(doca_flow_external_resource_memory_get(mem, 10, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_memory_set(mem, 10, 1), DOCA_ERROR_INVALID_VALUE);
	enum doca_flow_index_selector_op st;
	assert_int_equal(doca_flow_external_resource_index_selector_get(mem, 0, &st), DOCA_ERROR_INVALID_VALUE);
}

static void test_resource_too_small(void **state)
{
	(void)state;
	struct doca_flow_external_resource *mem = make_res(DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, 4);
	struct doca_flow_external_resource *mem2 = make_res(DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, 64);
	struct doca_flow_match mask;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *pipe = NULL;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_DROP};
	memset(&mask, 0, sizeof(mask));
	mask.outer.ip4.dst_ip = 0xffffffff;

	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	/* Binding needs a HASH pipe cfg. */
	assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, mem), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(set_flow_pipe_cfg(cfg, "H", DOCA_FLOW_PIPE_HASH, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 8), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, mem), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, mem2), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, NULL), DOCA_ERROR_INVALID_VALUE);
	/* 4 cells for 8 entries. */
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &pipe), DOCA_ERROR_INVALID_VALUE);
	assert_null(pipe);
	doca_flow_pipe_cfg_destroy(cfg);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem2), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hash_and_disable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_export_detached_by_port_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_select_enabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_robin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flooding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_selector_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selector_scan_and_skips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_counting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resource_too_small, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
