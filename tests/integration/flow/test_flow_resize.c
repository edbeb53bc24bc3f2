/*
 * test_flow_resize.c - resizable pipes as DOCA's flow_pipe_resize sample drives them:
 * filling a BASIC (or CONTROL) pipe to its congestion threshold delivers
 * CONGESTION_REACHED once; doca_flow_pipe_resize, then doca_flow_entries_process on a
 * queue the pipe does not exclude, calls nr_entries_changed_cb and entry_relocation_cb
 * (whose new context later callbacks get) and delivers RESIZED; more entries than the
 * original size then fit, and real frames hit every entry before, during and after.
 * Refused calls: documented code, one log line, state intact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "flow_test_common.h"
#include "log_capture.h"

#define MAXE 96

struct ectx {
	int added, deleted, failed;
	int id;
};

static struct doca_flow_port *ports[2];
static struct ectx ctx[MAXE], moved[MAXE];
static struct doca_flow_pipe_entry *ent[MAXE];
static int pipe_user; /* the pipe's user context */
static int congestion, resized, resized_err, nr_changed, relocated;
static uint32_t nr_changed_to;
static uint16_t reloc_queue;
static struct doca_flow_pipe *cb_pipe;

static void entry_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		     enum doca_flow_entry_op op, void *user_ctx)
{
	(void)entry, (void)q;
	struct ectx *c = user_ctx;
	if (c == NULL)
		return;
	if (st != DOCA_FLOW_ENTRY_STATUS_SUCCESS)
		c->failed++;
	else if (op == DOCA_FLOW_ENTRY_OP_ADD)
		c->added++;
	else if (op == DOCA_FLOW_ENTRY_OP_DEL)
		c->deleted++;
}

static void pipe_cb(struct doca_flow_pipe *pipe, enum doca_flow_pipe_status status, enum doca_flow_pipe_op op,
		    void *user_ctx)
{
	assert_ptr_equal(user_ctx, &pipe_user);
	cb_pipe = pipe;
	if (op == DOCA_FLOW_PIPE_OP_CONGESTION_REACHED)
		congestion++;
	if (op == DOCA_FLOW_PIPE_OP_RESIZED) {
		resized++;
		resized_err += status != DOCA_FLOW_PIPE_STATUS_SUCCESS;
	}
}

static doca_error_t nr_cb(void *pipe_user_ctx, uint32_t nr_entries)
{
	assert_ptr_equal(pipe_user_ctx, &pipe_user);
	nr_changed++;
	nr_changed_to = nr_entries;
	return DOCA_SUCCESS;
}

/* Moves each entry's context to moved[]: later callbacks must get the new one. */
static doca_error_t reloc_cb(void *pipe_user_ctx, uint16_t pipe_queue, void *entry_user_ctx, void **new_ctx)
{
	assert_ptr_equal(pipe_user_ctx, &pipe_user);
	struct ectx *c = entry_user_ctx;
	assert_non_null(c);
	moved[c->id] = *c;
	*new_ctx = &moved[c->id];
	reloc_queue = pipe_queue;
	relocated++;
	return DOCA_SUCCESS;
}

static int setup(void **state)
{
	(void)state;
	memset(ctx, 0, sizeof(ctx));
	memset(moved, 0, sizeof(moved));
	for (int i = 0; i < MAXE; i++)
		ctx[i].id = i;
	congestion = resized = resized_err = nr_changed = relocated = 0;
	nr_changed_to = 0;
	struct doca_flow_cfg *cfg;
	if (doca_flow_cfg_create(&cfg) != DOCA_SUCCESS)
		return -1;
	doca_error_t r = doca_flow_cfg_set_pipe_queues(cfg, 2);
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_mode_args(cfg, "vnf,hws,cpds");
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_cb_entry_process(cfg, entry_cb);
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_cb_pipe_process(cfg, pipe_cb);
	if (r == DOCA_SUCCESS)
		r = doca_flow_init(cfg);
	doca_flow_cfg_destroy(cfg);
	if (r != DOCA_SUCCESS)
		return -1;
	return init_doca_flow_ports(2, ports) == DOCA_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	return 0;
}

/* Root pipe on port 0 matching the UDP destination port, fwd port 1, COUNT per entry,
 * nr entries, congestion threshold pct (0: unset), resizable, queue 1 excluded. */
static doca_error_t make_pipe(enum doca_flow_pipe_type type, uint32_t nr, uint8_t pct, bool resizable,
			      struct doca_flow_pipe **p)
{
	struct doca_flow_match m;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "RESIZABLE", type, true), DOCA_SUCCESS);
	if (type != DOCA_FLOW_PIPE_CONTROL)
		assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, nr), DOCA_SUCCESS);
	if (pct)
		assert_int_equal(doca_flow_pipe_cfg_set_congestion_level_threshold(cfg, pct), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_is_resizable(cfg, resizable), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_user_ctx(cfg, &pipe_user), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_excluded_queue(cfg, 1), DOCA_SUCCESS);
	doca_error_t r = doca_flow_pipe_create(cfg, type == DOCA_FLOW_PIPE_CONTROL ? NULL : &fwd,
					       type == DOCA_FLOW_PIPE_CONTROL ? NULL : &miss, p);
	doca_flow_pipe_cfg_destroy(cfg);
	return r;
}

static void add(struct doca_flow_pipe *p, enum doca_flow_pipe_type type, int i)
{
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16((uint16_t)(1000 + i));
	if (type == DOCA_FLOW_PIPE_CONTROL) {
		struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
		struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
		/* NULL mask: the non-zero fields match exactly. */
		m.parser_meta.outer_l4_type = DOCA_FLOW_L4_META_UDP;
		m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
		assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, NULL, NULL, NULL, NULL, &mon, 1,
								  &fwd, &ctx[i], &ent[i]),
				 DOCA_SUCCESS);
	} else {
		assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL,
								DOCA_FLOW_ENTRY_FLAGS_NO_WAIT, &ctx[i], &ent[i]),
				 DOCA_SUCCESS);
	}
}

/* A frame to every entry 0..n-1: each leaves port 1 with its destination port. */
static void traffic(int n)
{
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	ft_drain(1);
	for (int i = 0; i < n; i++) {
		uint64_t before = ft_entry_pkts(ent[i]);
		assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 7, (uint16_t)(1000 + i)), DOCA_SUCCESS);
		assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
		assert_int_equal(ft_dport(buf), 1000 + i);
		assert_int_equal(ft_entry_pkts(ent[i]), before + 1);
	}
}

static void process(uint16_t q)
{
	assert_int_equal(doca_flow_entries_process(ports[0], q, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
}

static void resize_cycle(enum doca_flow_pipe_type type)
{
	struct doca_flow_pipe *p;
	assert_int_equal(make_pipe(type, 10, 80, true, &p), DOCA_SUCCESS);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(congestion, 0);
		add(p, type, i);
	}
	assert_int_equal(congestion, 1); /* 8 of 10: 80 % */
	assert_ptr_equal(cb_pipe, p);
	process(0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(ctx[i].added, 1);
	traffic(8);

	assert_int_equal(doca_flow_pipe_resize(p, 50, nr_cb, reloc_cb), DOCA_SUCCESS);
	assert_int_equal(nr_changed + relocated + resized, 0); /* completed by entries_process */
	traffic(8);
	process(1); /* excluded: nothing happens there */
	assert_int_equal(nr_changed + relocated + resized, 0);
	process(0);
	assert_int_equal(nr_changed, 1);
	assert_int_equal(nr_changed_to, 16); /* 8 entries at 50 % */
	assert_int_equal(relocated, 8);
	assert_int_equal(reloc_queue, 0);
	assert_int_equal(resized, 1);
	assert_int_equal(resized_err, 0);
	traffic(8);

	/* 16 entries now fit (10 did before); congestion again at 13 of 16 (>= 80 %). */
	for (int i = 8; i < 16; i++) {
		add(p, type, i);
		assert_int_equal(congestion, i >= 12 ? 2 : 1);
	}
	process(0);
	for (int i = 8; i < 16; i++) {
		assert_int_equal(ctx[i].added, 1);
		assert_int_equal(ctx[i].failed, 0);
	}
	traffic(16);
	/* The relocated context is what the removal reports. */
	assert_int_equal(doca_flow_pipe_remove_entry(0, DOCA_FLOW_ENTRY_FLAGS_NO_WAIT, ent[0]), DOCA_SUCCESS);
	process(0);
	assert_int_equal(moved[0].deleted, 1);
	assert_int_equal(ctx[0].deleted, 0);
	/* Beyond 16: the 17th and 18th fail as the pipe is full (15 live + 2 > 16). */
	add(p, type, 16);
	add(p, type, 17);
	process(0);
	assert_int_equal(ctx[16].added + ctx[17].added, 1);
	assert_int_equal(ctx[16].failed + ctx[17].failed, 1);
}

/* DOCA's flow_pipe_resize shape: 80 entries into a pipe of 10 at 80 %, resizing at each
 * congestion (10 -> 16 -> 32 -> 64 -> 128); afterwards a frame to an entry of every
 * cycle (and to all 80) leaves port 1 byte for byte as it came in, checksums intact. */
static void resize_until_80(enum doca_flow_pipe_type type)
{
	static const uint32_t sizes[] = {16, 32, 64, 128};
	struct doca_flow_pipe *p;
	int cycles = 0;
	assert_int_equal(make_pipe(type, 10, 80, true, &p), DOCA_SUCCESS);
	for (int i = 0; i < 80; i++) {
		add(p, type, i);
		if (congestion == cycles + 1) {
			assert_int_equal(doca_flow_pipe_resize(p, 50, nr_cb, reloc_cb), DOCA_SUCCESS);
			process(0);
			assert_int_equal(resized, cycles + 1);
			assert_int_equal(nr_changed_to, sizes[cycles]);
			cycles++;
		}
	}
	process(0);
	assert_int_equal(cycles, 4);
	assert_int_equal(resized_err, 0);
	/* The ADD result reaches the context the entry had then (a relocation copies it). */
	for (int i = 0; i < 80; i++) {
		assert_true(ctx[i].added == 1 || moved[i].added == 1);
		assert_int_equal(ctx[i].failed + moved[i].failed, 0);
	}
	uint8_t in[FLOWDPA_MAX_FRAME], out[FLOWDPA_MAX_FRAME];
	uint32_t len;
	ft_drain(1);
	for (int i = 0; i < 80; i++) {
		uint32_t n = ft_udp4(in, 0x01020304, 0x08080808u + (uint32_t)i, 1234, (uint16_t)(1000 + i));
		assert_int_equal(flowdpa_port_inject(0, in, n), DOCA_SUCCESS);
		assert_int_equal(flowdpa_port_capture_pop(1, out, sizeof(out), &len), DOCA_SUCCESS);
		assert_int_equal(len, n);
		assert_memory_equal(out, in, n);
		assert_true(ft_checksums_ok(out, len));
		assert_int_equal(ft_entry_pkts(ent[i]), 1);
	}
	/* A destination port of no entry misses (drop or no match): nothing leaves. */
	assert_int_equal(ft_inject_udp4(0, 0x01020304, 0x08080808, 1234, 999), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, out, sizeof(out), &len), DOCA_ERROR_NOT_FOUND);
}

static void test_basic_resize_to_128(void **state)
{
	(void)state;
	resize_until_80(DOCA_FLOW_PIPE_BASIC);
}

static void test_control_resize_to_128(void **state)
{
	(void)state;
	resize_until_80(DOCA_FLOW_PIPE_CONTROL);
}

static void test_basic_resize(void **state)
{
	(void)state;
	resize_cycle(DOCA_FLOW_PIPE_BASIC);
}

static void test_control_resize(void **state)
{
	(void)state;
	resize_cycle(DOCA_FLOW_PIPE_CONTROL);
}

/* Without a resize the pipe stays at its size; without a threshold nothing is notified. */
static void test_no_threshold_no_notification(void **state)
{
	(void)state;
	struct doca_flow_pipe *p;
	assert_int_equal(make_pipe(DOCA_FLOW_PIPE_BASIC, 4, 0, true, &p), DOCA_SUCCESS);
	for (int i = 0; i < 5; i++)
		add(p, DOCA_FLOW_PIPE_BASIC, i);
	process(0);
	assert_int_equal(congestion, 0);
	assert_int_equal(ctx[4].failed, 1); /* full at 4 */
	traffic(4);
}

/* A pipe destroyed with its resize pending: no RESIZED; another pipe's resize completes. */
static void test_destroy_pending(void **state)
{
	(void)state;
	struct doca_flow_pipe *p;
	assert_int_equal(make_pipe(DOCA_FLOW_PIPE_BASIC, 4, 50, true, &p), DOCA_SUCCESS);
	add(p, DOCA_FLOW_PIPE_BASIC, 0);
	add(p, DOCA_FLOW_PIPE_BASIC, 1);
	assert_int_equal(congestion, 1);
	process(0);
	assert_int_equal(doca_flow_pipe_resize(p, 10, NULL, NULL), DOCA_SUCCESS);
	doca_flow_pipe_destroy(p);
	process(0);
	assert_int_equal(resized, 0);
	assert_int_equal(make_pipe(DOCA_FLOW_PIPE_BASIC, 4, 50, true, &p), DOCA_SUCCESS);
	add(p, DOCA_FLOW_PIPE_BASIC, 0);
	process(0);
	assert_int_equal(doca_flow_pipe_resize(p, 10, NULL, NULL), DOCA_SUCCESS);
	process(0);
	assert_int_equal(resized, 1);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct doca_flow_pipe *p, *fixed, *h;
	struct doca_flow_pipe_cfg *cfg;
	assert_int_equal(make_pipe(DOCA_FLOW_PIPE_BASIC, 4, 50, true, &p), DOCA_SUCCESS);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_resize(NULL, 50, nr_cb, reloc_cb), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("doca_flow_pipe_resize: pipe is NULL"), 1);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_resize(p, 0, nr_cb, reloc_cb), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_resize(p, 101, nr_cb, reloc_cb), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("is not a percentage"), 2);
	assert_int_equal(log_capture_count(NULL), 2);
	assert_int_equal(doca_flow_pipe_resize(p, 50, nr_cb, reloc_cb), DOCA_SUCCESS);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_resize(p, 50, nr_cb, reloc_cb), DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_capture_count("has not completed"), 1);
	process(0);
	assert_int_equal(resized, 1); /* the refused call changed nothing */
	assert_int_equal(nr_changed, 1);

	assert_int_equal(make_pipe(DOCA_FLOW_PIPE_BASIC, 4, 50, false, &fixed), DOCA_ERROR_ALREADY_EXIST);
	doca_flow_pipe_destroy(p);
	assert_int_equal(make_pipe(DOCA_FLOW_PIPE_BASIC, 4, 50, false, &fixed), DOCA_SUCCESS);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_resize(fixed, 50, nr_cb, reloc_cb), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("was not created resizable"), 1);
	assert_int_equal(log_capture_count(NULL), 1);

	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_cfg_set_congestion_level_threshold(cfg, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_congestion_level_threshold(cfg, 101), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_excluded_queue(cfg, 2), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_is_resizable(NULL, true), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_congestion_level_threshold(NULL, 50), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_excluded_queue(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count(NULL), 6);
	assert_int_equal(log_capture_count("pipe_queue 2 out of range"), 1);
	/* A HASH pipe cannot be resizable. */
	struct doca_flow_match mask;
	memset(&mask, 0, sizeof(mask));
	mask.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	mask.outer.udp.l4_port.dst_port = 0xffff;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	assert_int_equal(set_flow_pipe_cfg(cfg, "H", DOCA_FLOW_PIPE_HASH, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 8), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_is_resizable(cfg, true), DOCA_SUCCESS);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &h), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(log_capture_count("only BASIC and CONTROL pipes are resizable"), 1);
	assert_int_equal(doca_flow_pipe_cfg_set_is_resizable(cfg, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &h), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	/* State intact: the fixed pipe still forwards. */
	add(fixed, DOCA_FLOW_PIPE_BASIC, 0);
	process(0);
	traffic(1);
}

static void test_before_init(void **state)
{
	(void)state;
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_resize(NULL, 50, NULL, NULL), DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_capture_count("doca_flow_pipe_resize"), 1);
}

int main(void)
{
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_init),
		cmocka_unit_test_setup_teardown(test_basic_resize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_resize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_basic_resize_to_128, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_resize_to_128, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_threshold_no_notification, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
