/*
 * test_flow_lifecycle.c - object lifecycles of doca_flow on the software NIC: removal
 * of a still-queued add, pipe destroy with queued operations (no late callbacks),
 * flush and stop with live pipes, doca_flow_destroy with ports still started, repeated
 * init/destroy cycles, external resources held by an export or a pipe cfg, HASH pipes
 * (whose entries live in a per-pipe pool) destroyed with entries live and queued, entry
 * callbacks that destroy pipes, try to stop the port being processed or process their
 * own queue (FIFO kept), shared-counter references from queueing to the end,
 * switch ports left to doca_flow_destroy, stale handles of stopped ports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <doca_flow_external_resource.h>
#include <flow/flow_provider.h>

#include "flow_test_common.h"
#include "log_capture.h"

static struct doca_flow_port *ports[2];
static enum doca_flow_entry_op ops[16];
static int nops;

static void record_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		      enum doca_flow_entry_op op, void *ctx)
{
	(void)entry, (void)q, (void)ctx;
	assert_int_equal(st, DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	if (nops < 16)
		ops[nops] = op;
	nops++;
}

/* DOCA Flow with one queue and cb, and the two ports: a setup's 0, or -1. */
static int start_with_cb(doca_flow_entry_process_cb cb)
{
	if (init_doca_flow_cb(1, "vnf,hws", cb) != DOCA_SUCCESS)
		return -1;
	return init_doca_flow_ports(2, ports) == DOCA_SUCCESS ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	nops = 0;
	return start_with_cb(record_cb);
}

static int teardown(void **state)
{
	(void)state;
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	return 0;
}

/* A dead pipe is refused as INVALID_VALUE by an export hold (others: SUCCESS or NOT_SUPPORTED). */
static bool pipe_alive(struct doca_flow_pipe *p)
{
	struct flow_export *x = NULL;
	doca_error_t err = flow_export_pipe(p, "probe", __func__, &x);
	flow_export_release(x);
	return err != DOCA_ERROR_INVALID_VALUE;
}

static struct doca_flow_pipe *dport_pipe(bool root)
{
	struct doca_flow_match m;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	memset(&m, 0, sizeof(m));
	m.outer.transport.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, root ? "root" : "inner", DOCA_FLOW_PIPE_BASIC, root);
	doca_flow_pipe_cfg_set_match(cfg, &m, NULL);
	doca_flow_pipe_cfg_set_monitor(cfg, &mon);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static struct doca_flow_pipe_entry *add(struct doca_flow_pipe *p, uint16_t dport)
{
	struct doca_flow_match m;
	struct doca_flow_pipe_entry *e = NULL;
	memset(&m, 0, sizeof(m));
	m.outer.transport.dst_port = DOCA_HTOBE16(dport);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, NULL, &e), DOCA_SUCCESS);
	return e;
}

static void test_remove_queued_add(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = dport_pipe(true);
	struct doca_flow_pipe_entry *e = add(p, 80);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e), DOCA_SUCCESS);
	/* Before processing the datapath does not see the entry. */
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 0);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 2);
	assert_int_equal(ops[0], DOCA_FLOW_ENTRY_OP_ADD);
	assert_int_equal(ops[1], DOCA_FLOW_ENTRY_OP_DEL);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 0);
}

static int setup_two_queues(void **state)
{
	(void)state;
	nops = 0;
	if (init_doca_flow_cb(2, "vnf,hws", record_cb) != DOCA_SUCCESS)
		return -1;
	return init_doca_flow_ports(2, ports) == DOCA_SUCCESS ? 0 : -1;
}

/* An entry's operations stay on one queue while any is pending: a remove (or update)
 * on another queue would run before the add and free the entry under it. */
static void test_cross_queue_ops_refused_while_pending(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = dport_pipe(true);
	struct doca_flow_pipe_entry *e = add(p, 80); /* queue 0 */
	struct doca_flow_fwd to0 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0};

	assert_int_equal(doca_flow_pipe_remove_entry(1, 0, e), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_pipe_basic_update_entry(1, p, 0, NULL, NULL, &to0, 0, e), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_entries_process(ports[0], 1, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 0); /* nothing was queued on queue 1 */
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 1);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1); /* the entry is live */
	/* Nothing pending any more: queue 1 may remove it. */
	assert_int_equal(doca_flow_pipe_remove_entry(1, 0, e), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 1, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 2);
	assert_int_equal(ops[1], DOCA_FLOW_ENTRY_OP_DEL);
}

static void test_destroy_with_queued_ops(void **state)
{
	(void)state;
	struct doca_flow_pipe *a = dport_pipe(true);
	struct doca_flow_pipe *b = dport_pipe(false);
	add(a, 1);
	struct doca_flow_pipe_entry *eb = add(b, 2);
	add(a, 3);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, eb), DOCA_SUCCESS);
	doca_flow_pipe_destroy(b);
	/* Only a's two adds complete; b's operations went with it, silently. */
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 2);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 3), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	/* Flush destroys a with its entries; traffic then has no root pipe. */
	doca_flow_port_pipes_flush(ports[0]);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 2);
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 3), DOCA_SUCCESS);
	struct flowdpa_port_stats st2;
	assert_int_equal(flowdpa_port_stats_get(0, &st2), DOCA_SUCCESS);
	assert_int_equal(st2.drops, st.drops + 1);
	/* A new root can be created after the flush. */
	dport_pipe(true);
}

static struct doca_flow_pipe *hash_pipe(uint32_t nr_entries)
{
	struct doca_flow_match mask;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_actions act, *acts[1] = {&act}; /* no rewrite: updates only change fwd */
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.ip4.dst_ip = 0xffffffff;
	mon.shared_counter.shared_counter_id = UINT32_MAX; /* each entry names one */
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "hash", DOCA_FLOW_PIPE_HASH, true);
	doca_flow_pipe_cfg_set_nr_entries(cfg, nr_entries);
	doca_flow_pipe_cfg_set_match(cfg, NULL, &mask);
	doca_flow_pipe_cfg_set_monitor(cfg, &mon);
	doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static struct doca_flow_pipe_entry *hash_add(struct doca_flow_pipe *p, uint32_t index, uint32_t counter_id)
{
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
	struct doca_flow_pipe_entry *e = NULL;
	mon.shared_counter.shared_counter_id = counter_id;
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, index, 0, NULL, &mon, NULL, 0, NULL, &e), DOCA_SUCCESS);
	return e;
}

/* Destroying a HASH pipe drops its queued adds silently and releases what its live
 * entries hold (the shared counter), also once its entries were all removed. */
static void test_hash_destroy_with_entries(void **state)
{
	(void)state;
	uint32_t id;
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_SUCCESS);
	struct doca_flow_pipe *p = hash_pipe(8);
	hash_add(p, 0, id);
	struct doca_flow_pipe_entry *e5 = hash_add(p, 5, id);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 2);
	hash_add(p, 1, id); /* left queued, as is the remove */
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e5), DOCA_SUCCESS);
	assert_int_equal(flow_pipe_nr_entries_added(p), 3);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
			 DOCA_ERROR_IN_USE);
	doca_flow_pipe_destroy(p);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 2);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
			 DOCA_SUCCESS);

	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_SUCCESS);
	p = hash_pipe(64);
	struct doca_flow_pipe_entry *e = hash_add(p, 63, id);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nops, 4);
	assert_int_equal(flow_pipe_nr_entries_added(p), 0);
	doca_flow_pipe_destroy(p);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
			 DOCA_SUCCESS);
}

/*
 * An entry holds its shared counter from its ADD to its DEL or its pipe's end, whatever
 * its status says meanwhile: an update left queued (status IN_PROCESS) when the pipe is
 * destroyed, or processed before the remove, still gives the reference back.
 */
static void test_shared_ref_with_update(void **state)
{
	(void)state;
	uint32_t id;
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_SUCCESS);
	struct doca_flow_actions act;
	memset(&act, 0, sizeof(act));
	for (int processed = 0; processed < 2; processed++) {
		struct doca_flow_pipe *p = hash_pipe(8);
		struct doca_flow_pipe_entry *e = hash_add(p, 3, id);
		assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
		assert_int_equal(doca_flow_pipe_basic_update_entry(0, p, 0, &act, NULL, NULL, 0, e), DOCA_SUCCESS);
		assert_int_equal(doca_flow_pipe_entry_get_status(e), DOCA_FLOW_ENTRY_STATUS_IN_PROCESS);
		assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
				 DOCA_ERROR_IN_USE);
		if (processed) {
			assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
			assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e), DOCA_SUCCESS);
			assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
		}
		doca_flow_pipe_destroy(p);
	}
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
			 DOCA_SUCCESS);
}

/* An entry holds at most 255 pending operations (8-bit counts, below a DOCA queue's
 * depth): the next is refused with BAD_STATE and one line, and what is queued still
 * runs; once processed, the entry takes operations again. */
static void test_pending_limit(void **state)
{
	(void)state;
	uint32_t id;
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_SUCCESS);
	struct doca_flow_actions act;
	memset(&act, 0, sizeof(act));
	struct doca_flow_pipe *p = hash_pipe(8);
	struct doca_flow_pipe_entry *e = hash_add(p, 5, id);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	for (int i = 0; i < 255; i++)
		assert_int_equal(doca_flow_pipe_basic_update_entry(0, p, 0, &act, NULL, NULL, 0, e), DOCA_SUCCESS);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_basic_update_entry(0, p, 0, &act, NULL, NULL, 0, e), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e), DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_capture_count(NULL), 2);
	assert_int_equal(log_capture_count("operations pending, the most it can"), 2);
	assert_int_equal(doca_flow_pipe_entry_get_status(e), DOCA_FLOW_ENTRY_STATUS_IN_PROCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(e), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(flow_pipe_nr_entries_added(p), 0);
	doca_flow_pipe_destroy(p);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
			 DOCA_SUCCESS);
}

static void test_destroy_with_live_ports(void **state)
{
	(void)state;
	for (int round = 0; round < 3; round++) {
		nops = 0;
		assert_int_equal(init_doca_flow_cb(1, "vnf,hws", record_cb), DOCA_SUCCESS);
		assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);
		struct doca_flow_pipe *p = dport_pipe(true);
		add(p, 80);
		add(p, 81); /* left queued */
		assert_int_equal(doca_flow_entries_process(ports[0], 0, 0, 1), DOCA_SUCCESS);
		assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
		assert_int_equal(flowdpa_port_capture_count(1), 1);
		doca_flow_destroy(); /* stops the ports, frees pipes, entries and queued ops */
		assert_int_equal(nops, 1);
		assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_ERROR_BAD_STATE);
	}
}

static void test_resource_export_hold(void **state)
{
	(void)state;
	struct doca_flow_external_resource_cfg *cfg;
	struct doca_flow_external_resource *r;
	assert_int_equal(doca_flow_external_resource_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	doca_flow_external_resource_cfg_set_type(cfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY);
	doca_flow_external_resource_cfg_set_nr_cells(cfg, 8);
	assert_int_equal(doca_flow_external_resource_create(cfg, &r), DOCA_SUCCESS);
	doca_flow_external_resource_cfg_destroy(cfg);
	struct flow_export *x = NULL, *x2 = NULL;
	assert_int_equal(flow_export_resource(r, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, "t", __func__, &x),
			 DOCA_ERROR_INVALID_VALUE);
	assert_null(x);
	assert_int_equal(flow_export_resource(r, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, "ctx 1", __func__, &x),
			 DOCA_SUCCESS);
	assert_int_equal(flow_export_resource(r, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, "ctx 2", __func__, &x2),
			 DOCA_SUCCESS);
	struct flow_export_info info;
	assert_int_equal(flow_export_info(x, &info), DOCA_SUCCESS);
	assert_int_equal(info.kind, FLOW_EXPORT_MEMORY);
	assert_int_equal(info.size, 8);
	/* Writes and reads in one burst, in order; out of range and wrong kind fail alone. */
	struct flow_xop xops[5] = {
		{.type = FLOW_XOP_MEM_WRITE, .index = 3, .value = 77}, {.type = FLOW_XOP_MEM_READ, .index = 3},
		{.type = FLOW_XOP_MEM_READ, .index = 8},	       {.type = FLOW_XOP_SELECT, .index = 0},
		{.type = FLOW_XOP_DISABLE, .index = 0},
	};
	flow_export_execute(x, xops, 5);
	assert_int_equal(xops[0].result, DOCA_SUCCESS);
	assert_int_equal(xops[1].result, DOCA_SUCCESS);
	assert_int_equal(xops[1].value, 77);
	assert_int_equal(xops[2].result, DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(xops[3].result, DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(xops[4].result, DOCA_ERROR_NOT_SUPPORTED);
	uint64_t v = 0;
	assert_int_equal(doca_flow_external_resource_memory_get(r, 3, &v), DOCA_SUCCESS);
	assert_int_equal(v, 77);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_ERROR_BAD_STATE);
	flow_export_release(x);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_ERROR_BAD_STATE);
	flow_export_release(x2);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_SUCCESS);
	/* A resource left alive is freed by doca_flow_destroy (checked by ASan's leak check). */
	assert_int_equal(doca_flow_external_resource_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	doca_flow_external_resource_cfg_set_type(cfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR);
	doca_flow_external_resource_cfg_set_nr_indices(cfg, 8);
	assert_int_equal(doca_flow_external_resource_create(cfg, &r), DOCA_SUCCESS);
	doca_flow_external_resource_cfg_destroy(cfg);
	/* An index selector exported when doca_flow_destroy runs is detached, not freed. */
	assert_int_equal(flow_export_resource(r, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, "ctx 1", __func__,
					      &x),
			 DOCA_SUCCESS);
	struct doca_flow_pipe *p = dport_pipe(true);
	assert_int_equal(flow_export_pipe(p, "t", __func__, &x2), DOCA_ERROR_NOT_SUPPORTED);
	add(p, 1);
	assert_int_equal(flow_pipe_nr_entries_added(p), 1);
	assert_int_equal(flow_pipe_nr_entries_added(NULL), 0);
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	ports[0] = ports[1] = NULL;
	struct flow_xop sel = {.type = FLOW_XOP_SELECT, .index = 1, .value = DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE};
	flow_export_execute(x, &sel, 1);
	assert_int_equal(sel.result, DOCA_ERROR_BAD_STATE);
	flow_export_release(x);
}

/* ------------------------------------------------------------------ callbacks that destroy pipes */

/* Counts completions; the one of (cb_trigger, cb_trigger_op) destroys cb_victim. */
static struct {
	struct doca_flow_pipe *victim;
	void *trigger;
	enum doca_flow_entry_op trigger_op;
	int calls, errors, victim_calls;
	void *victim_ctx;
} cbs;

static void tally_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		     enum doca_flow_entry_op op, void *ctx)
{
	(void)entry, (void)q;
	cbs.calls++;
	cbs.errors += st != DOCA_FLOW_ENTRY_STATUS_SUCCESS;
	cbs.victim_calls += ctx != NULL && ctx == cbs.victim_ctx;
	if (ctx != NULL && ctx == cbs.trigger && op == cbs.trigger_op && cbs.victim) {
		doca_flow_pipe_destroy(cbs.victim);
		cbs.victim = NULL;
	}
}

static int setup_tally(void **state)
{
	(void)state;
	memset(&cbs, 0, sizeof(cbs));
	return start_with_cb(tally_cb);
}

static void add_ctx(struct doca_flow_pipe *p, uint16_t dport, void *ctx)
{
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.transport.dst_port = DOCA_HTOBE16(dport);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, ctx, NULL), DOCA_SUCCESS);
}

/*
 * The callback of one operation destroys another pipe whose add is queued behind it in
 * the same doca_flow_entries_process call: that add is dropped with its pipe (it used to
 * be in a batch already taken off the queue, and then ran on a freed entry).
 */
static void test_callback_destroys_queued_pipe(void **state)
{
	(void)state;
	static char a1, b2, a3;
	struct doca_flow_pipe *a = dport_pipe(true);
	struct doca_flow_pipe *b = dport_pipe(false);
	add_ctx(a, 1, &a1);
	add_ctx(b, 2, &b2);
	add_ctx(a, 3, &a3);
	cbs.victim = b;
	cbs.victim_ctx = &b2;
	cbs.trigger = &a1;
	cbs.trigger_op = DOCA_FLOW_ENTRY_OP_ADD;
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_null(cbs.victim);
	assert_int_equal(cbs.calls, 2);
	assert_int_equal(cbs.victim_calls, 0);
	assert_int_equal(cbs.errors, 0);
	assert_false(pipe_alive(b));
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 3), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(cbs.calls, 2);
}

/*
 * An entry callback queues more work on its own queue and processes it: the operations
 * the outer call took off the queue and has not run yet are older, and run first. Here
 * the ADD of b waits in the outer call's batch (another pipe than the ADD of a whose
 * callback runs) when that callback queues b's removal and processes the queue: the
 * removal must not run before the add (it used to, on an entry not yet added, and the
 * add then ran on the freed handle, reporting the free list's link as its user context).
 */
static struct {
	struct doca_flow_pipe_entry *b;
	void *ctx[8];
	enum doca_flow_entry_op op[8];
	int n, errors;
} nest;

static void nest_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		    enum doca_flow_entry_op op, void *ctx)
{
	(void)entry;
	nest.errors += st != DOCA_FLOW_ENTRY_STATUS_SUCCESS;
	if (nest.n < 8) {
		nest.ctx[nest.n] = ctx;
		nest.op[nest.n] = op;
	}
	nest.n++;
	if (nest.n == 1) {
		assert_int_equal(doca_flow_pipe_remove_entry(q, 0, nest.b), DOCA_SUCCESS);
		assert_int_equal(doca_flow_entries_process(ports[0], q, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	}
}

static int setup_nest(void **state)
{
	(void)state;
	memset(&nest, 0, sizeof(nest));
	return start_with_cb(nest_cb);
}

static void test_callback_processes_own_queue_in_order(void **state)
{
	(void)state;
	static char a_ctx, b_ctx;
	struct doca_flow_pipe *pa = dport_pipe(true), *pb = dport_pipe(false);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.transport.dst_port = DOCA_HTOBE16(1);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, pa, &m, 0, NULL, NULL, NULL, 0, &a_ctx, NULL), DOCA_SUCCESS);
	m.outer.transport.dst_port = DOCA_HTOBE16(2);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, pb, &m, 0, NULL, NULL, NULL, 0, &b_ctx, &nest.b),
			 DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nest.n, 3);
	assert_int_equal(nest.errors, 0);
	assert_ptr_equal(nest.ctx[0], &a_ctx);
	assert_int_equal(nest.op[0], DOCA_FLOW_ENTRY_OP_ADD);
	assert_ptr_equal(nest.ctx[1], &b_ctx);
	assert_int_equal(nest.op[1], DOCA_FLOW_ENTRY_OP_ADD);
	assert_ptr_equal(nest.ctx[2], &b_ctx);
	assert_int_equal(nest.op[2], DOCA_FLOW_ENTRY_OP_DEL);
	assert_int_equal(flow_pipe_nr_entries_added(pb), 0);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(nest.n, 3);
}

static struct doca_flow_pipe *hash_pipe(uint32_t nr_entries);
static struct doca_flow_pipe_entry *hash_add(struct doca_flow_pipe *p, uint32_t index, uint32_t counter_id);

/*
 * The DEL callback of an entry destroys the entry's own pipe (a CONTROL pipe's heap entry,
 * a HASH pipe's pool slot): the pipe's end releases the entry and its shared-counter
 * reference, once; the DEL does not touch the entry again.
 */
/* An add's callback destroys its own pipe while later adds of that pipe were taken off
 * the queue with it (one batch, one NIC bulk) and more wait on the queue: those
 * complete never, nothing of theirs is touched again (ASan), and a later process of the
 * queue has nothing left to run. */
static void test_add_callback_destroys_own_pipe_mid_batch(void **state)
{
	(void)state;
	static char ctx[40];
	struct doca_flow_pipe *a = dport_pipe(true);
	for (uint16_t i = 0; i < 40; i++)
		add_ctx(a, (uint16_t)(100 + i), &ctx[i]);
	cbs.victim = a;
	cbs.trigger = &ctx[2];
	cbs.trigger_op = DOCA_FLOW_ENTRY_OP_ADD;
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_null(cbs.victim);
	assert_int_equal(cbs.calls, 3);
	assert_int_equal(cbs.errors, 0);
	assert_false(pipe_alive(a));
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 100), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 0);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(cbs.calls, 3);
}

static void test_del_callback_destroys_own_pipe(void **state)
{
	(void)state;
	uint32_t id;
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_SUCCESS);
	for (int hash = 0; hash < 2; hash++) {
		static char ctx;
		struct doca_flow_pipe *p;
		struct doca_flow_pipe_entry *e = NULL;
		struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
		mon.shared_counter.shared_counter_id = id;
		if (hash) {
			p = hash_pipe(8);
			assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, 4, 0, NULL, &mon, NULL, 0, &ctx, &e),
					 DOCA_SUCCESS);
		} else {
			struct doca_flow_match m;
			struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
			struct doca_flow_pipe_cfg *cfg;
			memset(&m, 0, sizeof(m));
			m.outer.transport.dst_port = 0xffff;
			assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
			set_flow_pipe_cfg(cfg, "ctl", DOCA_FLOW_PIPE_CONTROL, true);
			assert_int_equal(doca_flow_pipe_create(cfg, NULL, NULL, &p), DOCA_SUCCESS);
			doca_flow_pipe_cfg_destroy(cfg);
			assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, NULL, NULL, NULL, NULL, &mon, 0,
									  &fwd, &ctx, &e),
					 DOCA_SUCCESS);
		}
		assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
		assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e), DOCA_SUCCESS);
		cbs.victim = p;
		cbs.trigger = &ctx;
		cbs.trigger_op = DOCA_FLOW_ENTRY_OP_DEL;
		assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
		assert_null(cbs.victim);
		assert_false(pipe_alive(p));
		assert_int_equal(cbs.calls, 2 * (hash + 1));
		assert_int_equal(cbs.errors, 0);
	}
	/* Each entry gave its reference back exactly once. */
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
			 DOCA_SUCCESS);
}

/* ------------------------------------------------------------------ callbacks that stop ports */

/* The first completion tries to tear down the port being processed (and DOCA Flow);
 * later ones only count. */
static struct {
	int calls;
	doca_error_t stop_own, stop_other;
	bool stop_other_port, flush;
} stops;

static void stop_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		    enum doca_flow_entry_op op, void *ctx)
{
	(void)entry, (void)q, (void)op, (void)ctx;
	assert_int_equal(st, DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	if (stops.calls++ != 0)
		return;
	if (stops.flush) {
		doca_flow_port_pipes_flush(ports[0]);
		return;
	}
	stops.stop_own = doca_flow_port_stop(ports[0]);
	doca_flow_destroy();
	if (stops.stop_other_port)
		stops.stop_other = doca_flow_port_stop(ports[1]);
}

static int setup_stop(void **state)
{
	(void)state;
	memset(&stops, 0, sizeof(stops));
	return start_with_cb(stop_cb);
}

/*
 * Issue 15: a callback that stopped the port being processed (or destroyed DOCA Flow)
 * freed the queue doca_flow_entries_process was still walking (a use-after-free under
 * ASan). Both are refused with one line; the processing completes every queued
 * operation and the port keeps working until it is stopped afterwards.
 */
static void test_callback_stops_processed_port(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = dport_pipe(true);
	for (uint16_t d = 1; d <= 3; d++)
		add(p, d);
	log_capture_clear();
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(stops.calls, 3);
	assert_int_equal(stops.stop_own, DOCA_ERROR_BAD_STATE);
	if (log_capture_count(NULL) != 2)
		log_capture_dump();
	assert_int_equal(log_capture_count(NULL), 2);
	assert_int_equal(log_capture_count("doca_flow_port_stop: port 0: called from an entry callback of "
					   "doca_flow_entries_process on this port, which still uses the port's queue; "
					   "stop the port after doca_flow_entries_process returns"),
			 1);
	assert_int_equal(log_capture_count("doca_flow_destroy: called from an entry callback of "
					   "doca_flow_entries_process on port 0, which still uses the port's queue; "
					   "nothing destroyed: call it after doca_flow_entries_process returns"),
			 1);
	/* Nothing was torn down: the entries forward, the port stops normally afterwards. */
	ft_drain(1);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 2), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	assert_int_equal(doca_flow_port_stop(ports[0]), DOCA_SUCCESS);
	ports[0] = NULL;
}

/* Stopping another port from a callback is fine: its queues are not being walked. */
static void test_callback_stops_other_port(void **state)
{
	(void)state;
	stops.stop_other_port = true;
	struct doca_flow_pipe *p = dport_pipe(true);
	add(p, 1);
	add(p, 2);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(stops.calls, 2);
	assert_int_equal(stops.stop_own, DOCA_ERROR_BAD_STATE);
	assert_int_equal(stops.stop_other, DOCA_SUCCESS);
	ports[1] = NULL;
}

/* Flushing the processed port's pipes from a callback works: their queued operations
 * go without a callback, the loop ends on an empty queue. */
static void test_callback_flushes_processed_port(void **state)
{
	(void)state;
	stops.flush = true;
	struct doca_flow_pipe *p = dport_pipe(true);
	for (uint16_t d = 1; d <= 3; d++)
		add(p, d);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(stops.calls, 1);
	assert_false(pipe_alive(p));
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(stops.calls, 1);
}

/* ------------------------------------------------------------------ shared-counter references */

/*
 * An entry references its shared counter from the call that queues its add: a put
 * before the add ran is IN_USE (it used to free the id under the add, whose execution
 * then counted into, and later released, an id handed out again). The reference goes
 * with an ERROR completion, a DEL, and an add refused after the counter was resolved.
 */
static void test_shared_ref_from_queueing(void **state)
{
	(void)state;
	const enum doca_flow_shared_resource_type cnt = DOCA_FLOW_SHARED_RESOURCE_COUNTER;
	uint32_t id, id2;
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], cnt, &id), DOCA_SUCCESS);
	struct doca_flow_pipe *p = hash_pipe(8);
	struct doca_flow_pipe_entry *e = hash_add(p, 2, id); /* queued */
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], cnt, id), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(cbs.calls, 1);
	assert_int_equal(cbs.errors, 0);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], cnt, id), DOCA_ERROR_IN_USE);
	/* An add at an occupied index completes with ERROR and holds nothing afterwards. */
	struct doca_flow_pipe_entry *dup = hash_add(p, 2, id);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(cbs.errors, 1);
	assert_int_equal(doca_flow_pipe_entry_get_status(dup), DOCA_FLOW_ENTRY_STATUS_ERROR);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, dup), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(cbs.calls, 4);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], cnt, id), DOCA_SUCCESS);
	/* The id is free again: the next get hands it out, and nobody holds it. */
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], cnt, &id2), DOCA_SUCCESS);
	assert_int_equal(id2, id);

	/* A control add refused after its counter was resolved (unsupported match field). */
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *ctl;
	struct doca_flow_match m;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
	mon.shared_counter.shared_counter_id = id2;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "ctl", DOCA_FLOW_PIPE_CONTROL, false);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, NULL, &ctl), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	memset(&m, 0, sizeof(m));
	m.tun.type = DOCA_FLOW_TUN_VXLAN;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, ctl, &m, NULL, NULL, NULL, NULL, NULL, &mon, 0, &fwd,
							  NULL, NULL),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], cnt, id2), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(cbs.calls, 4);
}

/* ------------------------------------------------------------------ ports */


/*
 * doca_flow_destroy stops the ports left started in reverse start order, so a switch
 * manager whose id is above its representors' is stopped after them (it used to be
 * refused with IN_USE and leaked: the next session could not start its id).
 */
static void test_destroy_switch_ports_in_start_order(void **state)
{
	(void)state;
	for (int round = 0; round < 2; round++) {
		assert_int_equal(init_doca_flow_cb(1, "switch,hws", record_cb), DOCA_SUCCESS);
		struct doca_flow_port *mgr = ft_start_port(3, false);
		assert_non_null(mgr);
		struct doca_flow_port *r0 = ft_start_port(0, true);
		assert_non_null(r0);
		struct doca_flow_port *r1 = ft_start_port(1, true);
		assert_non_null(r1);
		assert_ptr_equal(doca_flow_port_switch_get(r0), mgr);
		assert_ptr_equal(doca_flow_port_switch_get(r1), mgr);
		doca_flow_destroy();
		assert_int_equal(ft_inject_udp4(3, 1, 2, 3, 4), DOCA_ERROR_BAD_STATE);
	}
}

/*
 * A stopped port's handle stays refused, not freed, until doca_flow_destroy: a second
 * stop and every call naming it return BAD_STATE; a pointer that is no port is
 * INVALID_VALUE. pipe_cfg_create agrees with pipe_create.
 */
static void test_stopped_port_handle(void **state)
{
	(void)state;
	struct doca_flow_port *p1 = ports[1];
	struct doca_flow_pipe_cfg *pc, *pc2 = NULL;
	struct doca_flow_pipe *np = NULL;
	struct doca_flow_external_resource_cfg *xc = NULL;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	uint32_t id = 77;
	/* Operations left queued go with the port's pipes (the ASan build checks that no
	 * ADD or UPD record leaks). */
	struct doca_flow_match m;
	struct doca_flow_fwd to0 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0};
	struct doca_flow_pipe *qp;
	struct doca_flow_pipe_entry *qe;
	memset(&m, 0, sizeof(m));
	m.outer.transport.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&pc, p1), DOCA_SUCCESS);
	set_flow_pipe_cfg(pc, "queued", DOCA_FLOW_PIPE_BASIC, true);
	doca_flow_pipe_cfg_set_match(pc, &m, NULL);
	assert_int_equal(doca_flow_pipe_create(pc, &to0, NULL, &qp), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(pc);
	m.outer.transport.dst_port = DOCA_HTOBE16(7);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, qp, &m, 0, NULL, NULL, NULL, 0, NULL, &qe), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(p1, 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_basic_update_entry(0, qp, 0, NULL, NULL, NULL, 0, qe), DOCA_SUCCESS);
	m.outer.transport.dst_port = DOCA_HTOBE16(8);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, qp, &m, 0, NULL, NULL, NULL, 0, NULL, NULL), DOCA_SUCCESS);
	assert_int_equal(nops, 1);

	assert_int_equal(doca_flow_pipe_cfg_create(&pc, p1), DOCA_SUCCESS);
	set_flow_pipe_cfg(pc, "late", DOCA_FLOW_PIPE_BASIC, false);
	assert_int_equal(doca_flow_port_stop(p1), DOCA_SUCCESS);
	assert_int_equal(nops, 1); /* no late callbacks */
	ports[1] = NULL;
	assert_int_equal(doca_flow_port_stop(p1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_pipe_cfg_create(&pc2, p1), DOCA_ERROR_BAD_STATE);
	assert_null(pc2);
	assert_int_equal(doca_flow_pipe_create(pc, &drop, NULL, &np), DOCA_ERROR_BAD_STATE);
	assert_null(np);
	assert_int_equal(doca_flow_pipe_cfg_destroy(pc), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_cfg_create(&xc, p1), DOCA_ERROR_BAD_STATE);
	assert_null(xc);
	assert_int_equal(doca_flow_entries_process(p1, 0, DEFAULT_TIMEOUT_US, 0), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_port_shared_resource_get(p1, DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_ERROR_BAD_STATE);
	assert_int_equal(id, 77);
	assert_int_equal(doca_flow_port_pair(ports[0], p1), DOCA_ERROR_BAD_STATE);
	assert_null(doca_flow_port_priv_data(p1));
	doca_flow_port_pipes_flush(p1);
	/* Not a port at all. */
	uint64_t junk[64];
	memset(junk, 0, sizeof(junk));
	struct doca_flow_port *bogus = (struct doca_flow_port *)(void *)junk;
	assert_int_equal(doca_flow_port_stop(bogus), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_create(&pc2, bogus), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_entries_process(bogus, 0, DEFAULT_TIMEOUT_US, 0), DOCA_ERROR_INVALID_VALUE);
	/* The id starts again as a new port; the old handle is still the stopped one. */
	ports[1] = ft_start_port(1, false);
	assert_non_null(ports[1]);
	assert_ptr_not_equal(ports[1], p1);
	assert_int_equal(doca_flow_port_stop(p1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_entries_process(ports[1], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
}

/* ------------------------------------------------------------------ external resources */

static struct doca_flow_external_resource *mem_resource(void)
{
	struct doca_flow_external_resource_cfg *cfg;
	struct doca_flow_external_resource *r = NULL;
	assert_int_equal(doca_flow_external_resource_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	doca_flow_external_resource_cfg_set_type(cfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY);
	doca_flow_external_resource_cfg_set_nr_cells(cfg, 8);
	assert_int_equal(doca_flow_external_resource_create(cfg, &r), DOCA_SUCCESS);
	doca_flow_external_resource_cfg_destroy(cfg);
	return r;
}

/*
 * A resource set on a pipe cfg is held by it (docs/external-resources.md: destroying
 * a bound resource is BAD_STATE) until the cfg is destroyed; it used to be freed under
 * the cfg, and doca_flow_pipe_create then bound freed memory.
 */
static void test_resource_held_by_pipe_cfg(void **state)
{
	(void)state;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_external_resource *r = mem_resource();
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "h", DOCA_FLOW_PIPE_HASH, true);
	doca_flow_pipe_cfg_set_nr_entries(cfg, 8);
	assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, r), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_destroy(cfg), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_ERROR_BAD_STATE); /* bound to p */
	uint64_t v = 1;
	assert_int_equal(doca_flow_external_resource_memory_get(r, 0, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	doca_flow_pipe_destroy(p);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_SUCCESS);
	/* A cfg destroyed without creating a pipe gives its resource back. */
	r = mem_resource();
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "h2", DOCA_FLOW_PIPE_HASH, false);
	assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, r), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_destroy(cfg), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_SUCCESS);
}

int main(void)
{
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_remove_queued_add, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cross_queue_ops_refused_while_pending, setup_two_queues, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_with_queued_ops, setup, teardown),
		cmocka_unit_test(test_destroy_with_live_ports),
		cmocka_unit_test_setup_teardown(test_hash_destroy_with_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_ref_with_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resource_export_hold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_destroys_queued_pipe, setup_tally, teardown),
		cmocka_unit_test_setup_teardown(test_del_callback_destroys_own_pipe, setup_tally, teardown),
		cmocka_unit_test_setup_teardown(test_add_callback_destroys_own_pipe_mid_batch, setup_tally, teardown),
		cmocka_unit_test_setup_teardown(test_shared_ref_from_queueing, setup_tally, teardown),
		cmocka_unit_test_setup_teardown(test_callback_stops_processed_port, setup_stop, teardown),
		cmocka_unit_test_setup_teardown(test_callback_stops_other_port, setup_stop, teardown),
		cmocka_unit_test_setup_teardown(test_callback_flushes_processed_port, setup_stop, teardown),
		cmocka_unit_test(test_destroy_switch_ports_in_start_order),
		cmocka_unit_test_setup_teardown(test_stopped_port_handle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resource_held_by_pipe_cfg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_processes_own_queue_in_order, setup_nest, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
