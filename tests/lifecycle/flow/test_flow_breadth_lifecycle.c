/*
 * test_flow_breadth_lifecycle.c - lifecycles of aging, resize and target state: aging
 * callbacks that destroy the entry's pipe or stop the port mid-cycle, aging entries of
 * HASH pipes through pool reuse, pipes_flush / port stop / doca_flow_destroy with aging
 * entries and a resize pending, and a fresh session afterwards (no stale record, the
 * kernel target handle still valid).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "flow_test_common.h"

enum cb_action { CB_NONE, CB_DESTROY_PIPE, CB_STOP_PORT };

static struct doca_flow_port *ports[2];
static struct doca_flow_pipe *cb_pipe;
static enum cb_action action;
static int aged, resized;

static void entry_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		     enum doca_flow_entry_op op, void *ctx)
{
	(void)entry, (void)q, (void)st, (void)ctx;
	if (op != DOCA_FLOW_ENTRY_OP_AGED)
		return;
	aged++;
	if (action == CB_DESTROY_PIPE && cb_pipe) {
		doca_flow_pipe_destroy(cb_pipe);
		cb_pipe = NULL;
	} else if (action == CB_STOP_PORT && ports[0]) {
		assert_int_equal(doca_flow_port_stop(ports[0]), DOCA_SUCCESS);
		ports[0] = NULL;
	}
}

static void pipe_cb(struct doca_flow_pipe *pipe, enum doca_flow_pipe_status status, enum doca_flow_pipe_op op,
		    void *ctx)
{
	(void)pipe, (void)status, (void)ctx;
	resized += op == DOCA_FLOW_PIPE_OP_RESIZED;
}

static int start(void)
{
	struct doca_flow_cfg *cfg;
	aged = resized = 0;
	action = CB_NONE;
	if (doca_flow_cfg_create(&cfg) != DOCA_SUCCESS)
		return -1;
	doca_error_t r = doca_flow_cfg_set_pipe_queues(cfg, 1);
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_mode_args(cfg, "vnf,hws");
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

static int setup(void **state)
{
	(void)state;
	return start();
}

static int teardown(void **state)
{
	(void)state;
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	return 0;
}

/* BASIC (or HASH) pipe on port 0 (root for BASIC), entries age after aging_sec 1 each. */
static struct doca_flow_pipe *pipe_with_aging(enum doca_flow_pipe_type type, int n, bool resizable)
{
	struct doca_flow_match m;
	struct doca_flow_monitor mon = {.aging_sec = 1};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "AGE", type, type == DOCA_FLOW_PIPE_BASIC), DOCA_SUCCESS);
	if (type == DOCA_FLOW_PIPE_HASH)
		assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &m), DOCA_SUCCESS);
	else
		assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 8), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_is_resizable(cfg, resizable), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	for (int i = 0; i < n; i++) {
		memset(&m, 0, sizeof(m));
		m.outer.udp.l4_port.dst_port = DOCA_HTOBE16((uint16_t)(300 + i));
		if (type == DOCA_FLOW_PIPE_HASH)
			assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, (uint32_t)i, 0, NULL, NULL, NULL,
								       DOCA_FLOW_ENTRY_FLAGS_NO_WAIT, NULL, NULL),
					 DOCA_SUCCESS);
		else
			assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL,
									DOCA_FLOW_ENTRY_FLAGS_NO_WAIT, NULL, NULL),
					 DOCA_SUCCESS);
	}
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	return p;
}

static int cycle(void)
{
	int total = 0, r;
	while ((r = doca_flow_aging_handle(ports[0], 0, 0, 0)) != -1) {
		assert_true(r >= 0);
		total += r;
	}
	return total;
}

static void test_callback_destroys_pipe(void **state)
{
	(void)state;
	cb_pipe = pipe_with_aging(DOCA_FLOW_PIPE_BASIC, 4, false);
	action = CB_DESTROY_PIPE;
	flowdpa_clock_advance_ms(1000);
	/* The first report destroys the pipe: its other entries are gone from the cycle. */
	assert_int_equal(cycle(), 1);
	assert_int_equal(aged, 1);
	action = CB_NONE;
	flowdpa_clock_advance_ms(5000);
	assert_int_equal(cycle(), 0);
}

static void test_callback_stops_port(void **state)
{
	(void)state;
	pipe_with_aging(DOCA_FLOW_PIPE_BASIC, 4, false);
	action = CB_STOP_PORT;
	flowdpa_clock_advance_ms(1000);
	struct doca_flow_port *p0 = ports[0];
	assert_int_equal(doca_flow_aging_handle(p0, 0, 0, 0), 1); /* stops after the report that stopped it */
	assert_null(ports[0]);
	assert_int_equal(doca_flow_aging_handle(p0, 0, 0, 0), -(int)DOCA_ERROR_BAD_STATE);
}

/* HASH pool slots: a removed aging entry's slot reused by a new entry starts a new age. */
static void test_hash_pool_reuse(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = pipe_with_aging(DOCA_FLOW_PIPE_HASH, 2, false);
	flowdpa_clock_advance_ms(1000);
	assert_int_equal(cycle(), 2);
	doca_flow_pipe_destroy(p);
	p = pipe_with_aging(DOCA_FLOW_PIPE_HASH, 2, false);
	assert_int_equal(cycle(), 0); /* fresh records, not the old ones */
	flowdpa_clock_advance_ms(1000);
	assert_int_equal(cycle(), 2);
}

/* Flush, stop and destroy with aging entries and a resize pending; then a new session. */
static void test_teardown_with_state(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = pipe_with_aging(DOCA_FLOW_PIPE_BASIC, 3, true);
	assert_int_equal(doca_flow_pipe_resize(p, 10, NULL, NULL), DOCA_SUCCESS);
	doca_flow_port_pipes_flush(ports[0]);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(resized, 0);
	flowdpa_clock_advance_ms(2000);
	assert_int_equal(cycle(), 0);

	p = pipe_with_aging(DOCA_FLOW_PIPE_BASIC, 3, true);
	assert_int_equal(doca_flow_pipe_resize(p, 10, NULL, NULL), DOCA_SUCCESS);
	struct doca_flow_target *t1, *t2;
	assert_int_equal(doca_flow_get_target(DOCA_FLOW_TARGET_KERNEL, &t1), DOCA_SUCCESS);
	doca_flow_destroy(); /* ports still started, resize pending, aging entries live */
	ports[0] = ports[1] = NULL;

	assert_int_equal(start(), 0);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 0), -1);
	assert_int_equal(doca_flow_get_target(DOCA_FLOW_TARGET_KERNEL, &t2), DOCA_SUCCESS);
	assert_ptr_equal(t1, t2);
	/* The old session's target handle still works in a fwd of the new one. */
	struct doca_flow_fwd tk = {.type = DOCA_FLOW_FWD_TARGET, .target = t1};
	struct doca_flow_pipe *k = ft_udp_dport_pipe(ports[0], "K", true, 4, &tk, &tk);
	assert_non_null(k);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS);
	assert_int_equal(flowdpa_kernel_capture_count(0), 1);
	p = pipe_with_aging(DOCA_FLOW_PIPE_HASH, 1, false);
	flowdpa_clock_advance_ms(1000);
	assert_int_equal(cycle(), 1);
}

int main(void)
{
	ft_log_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_callback_destroys_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_stops_port, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hash_pool_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_teardown_with_state, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
