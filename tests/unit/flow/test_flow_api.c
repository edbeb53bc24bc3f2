/*
 * test_flow_api.c - bad input for the public doca_flow and flowdpa calls: NULL,
 * out-of-range values, wrong pipe type, calls before init, unsupported features,
 * entries beyond nr_entries, duplicate keys, fwd to a destroyed pipe, unparseable
 * frames. Each case checks the documented DOCA_ERROR_* and that the state is intact
 * (the object still works afterwards).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <doca_flow_definitions.h>

#include "flow_test_common.h"

static struct doca_flow_port *ports[2];
static struct entries_status status;

/* SDK log records naming log_watch (set by a test), counted as they are logged. */
static char log_rec[2048];
static const char *log_watch;
static int log_watched;

static void log_count(char *rec)
{
	if (log_watch && strstr(rec, log_watch))
		log_watched++;
}

static void log_watch_start(const char *who)
{
	log_watch = who;
	log_watched = 0;
}

static int setup(void **state)
{
	(void)state;
	memset(&status, 0, sizeof(status));
	if (init_doca_flow(2, "vnf,hws") != DOCA_SUCCESS)
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

static void test_before_init(void **state)
{
	(void)state;
	struct doca_flow_pipe_cfg *pc = NULL;
	struct doca_flow_port_cfg *portc;
	struct doca_flow_port *p = NULL;
	assert_int_equal(doca_flow_pipe_cfg_create(&pc, NULL), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_port_cfg_create(&portc), DOCA_SUCCESS);
	doca_flow_port_cfg_set_port_id(portc, 0);
	doca_flow_port_cfg_set_dev(portc, NULL);
	assert_int_equal(doca_flow_port_start(portc, &p), DOCA_ERROR_BAD_STATE);
	assert_null(p);
	doca_flow_port_cfg_destroy(portc);
	doca_flow_destroy(); /* harmless before init */
	assert_int_equal(flowdpa_port_inject(0, "x", 1), DOCA_ERROR_BAD_STATE);
}

static void test_global_cfg(void **state)
{
	(void)state;
	struct doca_flow_cfg *cfg;
	assert_int_equal(doca_flow_cfg_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_set_pipe_queues(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_create(&cfg), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_pipe_queues(cfg, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_set_pipe_queues(cfg, 257), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_set_mode_args(cfg, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_set_mode_args(cfg, "vnfx,hws"), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_set_mode_args(cfg, "switch,hws,expert"), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_nr_shared_resource(cfg, 4, 7), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_set_nr_shared_resource(cfg, 4, DOCA_FLOW_SHARED_RESOURCE_COUNTER), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_resource_mode(cfg, 5), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_set_rss_key(cfg, NULL, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_cfg_set_nr_counters(cfg, 10), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_nr_meters(cfg, 10), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_queue_depth(cfg, 128), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_cb_pipe_process(cfg, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_cb_shared_resource_unbind(cfg, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_nr_acl_collisions(cfg, 2), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_definitions(cfg, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_init(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_init(cfg), DOCA_SUCCESS);
	assert_int_equal(doca_flow_init(cfg), DOCA_ERROR_BAD_STATE);
	doca_flow_cfg_destroy(cfg);

	/* Switch mode: a set_dev port is a manager, set_dev_rep ports its representors. */
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *mgr, *rep;
	assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
	doca_flow_port_cfg_set_port_id(pc, 0);
	doca_flow_port_cfg_set_dev(pc, NULL);
	assert_int_equal(doca_flow_port_start(pc, &mgr), DOCA_SUCCESS);
	doca_flow_port_cfg_destroy(pc);
	assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
	doca_flow_port_cfg_set_port_id(pc, 1);
	doca_flow_port_cfg_set_dev_rep(pc, NULL);
	assert_int_equal(doca_flow_port_start(pc, &rep), DOCA_SUCCESS);
	doca_flow_port_cfg_destroy(pc);
	assert_ptr_equal(doca_flow_port_switch_get(NULL), mgr);
	assert_ptr_equal(doca_flow_port_switch_get(rep), mgr);

	/* The manager's root pipe sees the representor's traffic; parser_meta.port_id tells
	 * the ports apart (entries forward the representor's packets back to the manager). */
	struct doca_flow_pipe_cfg *pcfg;
	struct doca_flow_pipe *root;
	struct doca_flow_match m;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0xffff};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_entry *from_rep;
	struct entries_status st = {0};
	memset(&m, 0, sizeof(m));
	m.parser_meta.port_id = UINT16_MAX;
	assert_int_equal(doca_flow_pipe_cfg_create(&pcfg, mgr), DOCA_SUCCESS);
	set_flow_pipe_cfg(pcfg, "SWITCH_ROOT", DOCA_FLOW_PIPE_BASIC, true);
	doca_flow_pipe_cfg_set_match(pcfg, &m, NULL);
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	doca_flow_pipe_cfg_set_monitor(pcfg, &mon);
	assert_int_equal(doca_flow_pipe_create(pcfg, &fwd, &miss, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(pcfg);
	m.parser_meta.port_id = 1;
	struct doca_flow_fwd to_mgr = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0};
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, &to_mgr, 0, &st, &from_rep),
			 DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(mgr, 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(1, 1, 2, 3, 4), DOCA_SUCCESS); /* from the representor */
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS); /* from the manager: a miss */
	assert_int_equal(ft_entry_pkts(from_rep), 1);
	assert_int_equal(flowdpa_port_capture_count(0), 1);
	doca_flow_pipe_destroy(root);
	assert_int_equal(doca_flow_port_stop(mgr), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_flow_port_stop(rep), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_stop(mgr), DOCA_SUCCESS);
	doca_flow_destroy();
}


static struct doca_flow_port *start_port_ok(uint16_t id, bool rep)
{
	struct doca_flow_port *p = ft_start_port(id, rep);
	assert_non_null(p);
	return p;
}

/*
 * Two switch managers: each representor belongs to the manager started last before it,
 * and a manager is IN_USE only while its own representors are started (a representor
 * of a later manager used to count too).
 */
static void test_two_switch_managers(void **state)
{
	(void)state;
	assert_int_equal(init_doca_flow(1, "switch,hws"), DOCA_SUCCESS);
	struct doca_flow_port *m0 = start_port_ok(0, false);
	struct doca_flow_port *r1 = start_port_ok(1, true);
	struct doca_flow_port *m3 = start_port_ok(3, false);
	struct doca_flow_port *r4 = start_port_ok(4, true);
	assert_ptr_equal(doca_flow_port_switch_get(r1), m0);
	assert_ptr_equal(doca_flow_port_switch_get(r4), m3);
	assert_ptr_equal(doca_flow_port_switch_get(m3), m3);
	assert_ptr_equal(doca_flow_port_switch_get(NULL), m0);
	assert_int_equal(doca_flow_port_stop(m0), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_flow_port_stop(r1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_stop(m0), DOCA_SUCCESS);
	assert_ptr_equal(doca_flow_port_switch_get(NULL), m3);
	assert_int_equal(doca_flow_port_stop(m3), DOCA_ERROR_IN_USE);
	assert_int_equal(ft_inject_udp4(4, 1, 2, 3, 4), DOCA_SUCCESS); /* r4 still works */
	assert_int_equal(doca_flow_port_stop(r4), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_stop(m3), DOCA_SUCCESS);
	doca_flow_destroy();
}

static void test_ports(void **state)
{
	(void)state;
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;
	assert_int_equal(doca_flow_port_cfg_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_set_port_id(pc, 16), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_set_port_id(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_set_devargs(pc, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_set_nr_resources(pc, 9, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_start(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_start(pc, NULL), DOCA_ERROR_INVALID_VALUE);
	/* no port id, then no device, then both a device and a representor */
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_ERROR_INVALID_VALUE);
	doca_flow_port_cfg_set_port_id(pc, 2);
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_ERROR_INVALID_VALUE);
	doca_flow_port_cfg_set_dev(pc, NULL);
	doca_flow_port_cfg_set_dev_rep(pc, NULL);
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_ERROR_INVALID_VALUE);
	doca_flow_port_cfg_destroy(pc);
	/* port id already started */
	assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
	doca_flow_port_cfg_set_port_id(pc, 1);
	doca_flow_port_cfg_set_dev(pc, NULL);
	doca_flow_port_cfg_set_priv_data_size(pc, 16);
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_ERROR_ALREADY_EXIST);
	doca_flow_port_cfg_set_port_id(pc, 2);
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_SUCCESS);
	doca_flow_port_cfg_destroy(pc);
	assert_non_null(doca_flow_port_priv_data(p));
	assert_null(doca_flow_port_priv_data(ports[0]));
	assert_int_equal(doca_flow_port_pair(p, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_pair(p, ports[0]), DOCA_SUCCESS);
	assert_null(doca_flow_port_switch_get(p)); /* VNF mode */
	assert_int_equal(doca_flow_port_stop(p), DOCA_SUCCESS);
	/* The handle of a stopped port is refused, not read after free. */
	log_watch_start("doca_flow_port_stop");
	assert_int_equal(doca_flow_port_stop(p), DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_watched, 1);
	log_watch = NULL;
	assert_int_equal(doca_flow_port_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Port 2 is stopped: injection into it fails, ports 0/1 are intact. */
	assert_int_equal(ft_inject_udp4(2, 1, 2, 3, 4), DOCA_ERROR_BAD_STATE);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS);
}


static struct doca_flow_pipe *basic_to_port1(const char *name, bool root, uint32_t nr_entries)
{
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *p = ft_udp_dport_pipe(ports[0], name, root, nr_entries, &fwd, NULL);
	assert_non_null(p);
	return p;
}

static void test_pipe_cfg_and_create(void **state)
{
	(void)state;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_DROP};
	assert_int_equal(doca_flow_pipe_cfg_create(NULL, ports[0]), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_name(cfg, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_type(cfg, 9), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, NULL, NULL, NULL, 9), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_hash_map_algorithm(cfg, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_hash_map_algorithm(cfg, DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_SELECT_ENABLED),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_hash_map_algorithm(cfg, DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_HASH |
									    DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_RANDOM),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_domain(cfg, 7), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_label(cfg, "lbl"), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_user_ctx(cfg, cfg), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(NULL, &fwd, NULL, &p), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, NULL), DOCA_ERROR_INVALID_VALUE);

	/* Types and features the software NIC refuses. */
	doca_flow_pipe_cfg_set_type(cfg, DOCA_FLOW_PIPE_LPM);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_NOT_SUPPORTED);
	doca_flow_pipe_cfg_set_type(cfg, DOCA_FLOW_PIPE_BASIC);
	doca_flow_pipe_cfg_set_hash_map_algorithm(cfg, DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_RANDOM);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_INVALID_VALUE);
	doca_flow_pipe_cfg_destroy(cfg);

	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.tun.type = DOCA_FLOW_TUN_VXLAN;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_NOT_SUPPORTED);
	memset(&m, 0, sizeof(m));
	doca_flow_pipe_cfg_set_match(cfg, &m, NULL);
	struct doca_flow_monitor mon = {.meter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	doca_flow_pipe_cfg_set_monitor(cfg, &mon);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_NOT_SUPPORTED);
	mon.meter_type = DOCA_FLOW_RESOURCE_TYPE_NONE;
	mon.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED;
	mon.shared_counter.shared_counter_id = 1000; /* beyond the port's 64 */
	doca_flow_pipe_cfg_set_monitor(cfg, &mon);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_INVALID_VALUE);
	mon.counter_type = DOCA_FLOW_RESOURCE_TYPE_NONE;
	doca_flow_pipe_cfg_set_monitor(cfg, &mon);
	struct doca_flow_fwd tgt = {.type = DOCA_FLOW_FWD_TARGET}; /* no target (doca_flow_get_target) */
	assert_int_equal(doca_flow_pipe_create(cfg, &tgt, NULL, &p), DOCA_ERROR_INVALID_VALUE);
	struct doca_flow_fwd badport = {.type = DOCA_FLOW_FWD_PORT, .port_id = 77};
	assert_int_equal(doca_flow_pipe_create(cfg, &badport, NULL, &p), DOCA_ERROR_INVALID_VALUE);
	struct doca_flow_fwd chg_miss = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0xffff};
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, &chg_miss, &p), DOCA_ERROR_INVALID_VALUE);
	struct doca_flow_actions act, *acts[1] = {&act};
	/* Action descs are supported (tests/unit/flow/test_flow_desc_bad.c); a bad one is refused. */
	struct doca_flow_action_desc d = {.type = DOCA_FLOW_ACTION_COPY};
	d.field_op.src.field_string = "no.such.field";
	d.field_op.dst.field_string = "meta.data";
	d.field_op.width = 8;
	struct doca_flow_action_descs ds = {.nb_action_desc = 1, .desc_array = &d}, *dsa[1] = {&ds};
	memset(&act, 0, sizeof(act));
	doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, dsa, 1);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_INVALID_VALUE);
	act.pop_vlan = true;
	doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_NOT_SUPPORTED);
	assert_null(p);
	doca_flow_pipe_cfg_destroy(cfg);

	/* Second root on a port; fwd to a destroyed pipe. */
	struct doca_flow_pipe *root = basic_to_port1("root", true, 4);
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "root2", DOCA_FLOW_PIPE_BASIC, true);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_ALREADY_EXIST);
	/* Refused by the NIC after the HASH entry pool exists: the pool goes too (leak check). */
	set_flow_pipe_cfg(cfg, "root2", DOCA_FLOW_PIPE_HASH, true);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_ERROR_ALREADY_EXIST);
	set_flow_pipe_cfg(cfg, "root2", DOCA_FLOW_PIPE_BASIC, true);
	struct doca_flow_pipe *next = basic_to_port1("next", false, 4);
	doca_flow_pipe_destroy(next);
	struct doca_flow_fwd to_dead = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = next};
	doca_flow_pipe_cfg_set_is_root(cfg, false);
	assert_int_equal(doca_flow_pipe_create(cfg, &to_dead, NULL, &p), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_update_miss(root, &to_dead), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_update_miss(next, &fwd), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_dump(root, NULL), DOCA_ERROR_INVALID_VALUE);
	doca_flow_pipe_cfg_destroy(cfg);
	doca_flow_pipe_destroy(NULL);
	doca_flow_pipe_destroy(next); /* twice: logged, no effect */

	/* The root still works: update_miss to port 1 moves misses there. */
	struct doca_flow_fwd miss1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	assert_int_equal(doca_flow_pipe_update_miss(root, &miss1), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	assert_int_equal(ft_miss_pkts(root), 1);
}

static void test_entries(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = basic_to_port1("root", true, 2);
	struct doca_flow_match m;
	struct doca_flow_pipe_entry *e1 = NULL, *e2, *e3, *dup;
	memset(&m, 0, sizeof(m));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(80);

	assert_int_equal(doca_flow_pipe_basic_add_entry(0, NULL, &m, 0, NULL, NULL, NULL, 0, &status, &e1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_basic_add_entry(2, p, &m, 0, NULL, NULL, NULL, 0, &status, &e1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 1, NULL, NULL, NULL, 0, &status, &e1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL,
							DOCA_FLOW_ENTRY_FLAGS_NO_WAIT |
								DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH,
							&status, &e1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, 0, 0, NULL, NULL, NULL, 0, &status, &e1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL,
							  &status, &e1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_null(e1);
	assert_int_equal(doca_flow_entries_process(NULL, 0, 0, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_entries_process(ports[0], 5, 0, 0), DOCA_ERROR_INVALID_VALUE);

	/* Duplicate key and a third entry beyond nr_entries = 2: ERROR completions. */
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, &e1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, &dup), DOCA_SUCCESS);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(81);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, &e2), DOCA_SUCCESS);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(82);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, &e3), DOCA_SUCCESS);
	/* Process in two steps: max_processed_entries is honoured. */
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 1), DOCA_SUCCESS);
	assert_int_equal(status.nb_processed, 1);
	assert_int_equal(doca_flow_pipe_entry_get_status(dup), DOCA_FLOW_ENTRY_STATUS_IN_PROCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_processed, 4);
	assert_true(status.failure);
	assert_int_equal(doca_flow_pipe_entry_get_status(e1), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(dup), DOCA_FLOW_ENTRY_STATUS_ERROR);
	assert_int_equal(doca_flow_pipe_entry_get_status(e2), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(e3), DOCA_FLOW_ENTRY_STATUS_ERROR);
	assert_int_equal(doca_flow_pipe_entry_get_status(NULL), DOCA_FLOW_ENTRY_STATUS_ERROR);
	struct doca_flow_resource_query q;
	assert_int_equal(doca_flow_resource_query_entry(dup, &q), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_resource_query_entry(e1, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_resource_query_entry(NULL, &q), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_resource_query_pipe_miss(NULL, &q), DOCA_ERROR_INVALID_VALUE);
	uint32_t h;
	assert_int_equal(doca_flow_pipe_calc_hash(p, &m, &h), DOCA_ERROR_INVALID_VALUE); /* not HASH */
	assert_int_equal(doca_flow_pipe_calc_hash(p, NULL, &h), DOCA_ERROR_INVALID_VALUE);

	/* The good entries still forward and count. */
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 81), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(e1), 1);
	assert_int_equal(ft_entry_pkts(e2), 1);

	/* Remove: twice, NULL, bad queue; failed entries can be removed too. */
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_remove_entry(9, 0, e1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_remove_entry(1, 0, e1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_pipe_basic_update_entry(1, p, 0, NULL, NULL, NULL, 0, e1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_pipe_remove_entry(0, 0, dup), DOCA_SUCCESS);
	memset(&status, 0, sizeof(status));
	assert_int_equal(doca_flow_entries_process(ports[0], 1, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_del, 1);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_del, 2);
	assert_false(status.failure);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(ft_miss_pkts(p), 1);
	/* With e1 gone there is room: port 82 now fits. */
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, &e3), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(e3), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
}

static void test_hash_entry_errors(void **state)
{
	(void)state;
	struct doca_flow_match mask;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0xffff};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	memset(&mask, 0, sizeof(mask));
	mask.outer.ip4.dst_ip = 0xffffffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "hash", DOCA_FLOW_PIPE_HASH, true);
	doca_flow_pipe_cfg_set_nr_entries(cfg, 4);
	doca_flow_pipe_cfg_set_match(cfg, NULL, &mask);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_fwd e_fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd e_drop = {.type = DOCA_FLOW_FWD_DROP};
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, 4, 0, NULL, NULL, &e_fwd, 0, NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	/* The pipe forwards to a per-entry port: no fwd or another type is refused. */
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, 0, 0, NULL, NULL, NULL, 0, NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, 0, 0, NULL, NULL, &e_drop, 0, NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, NULL, 0, NULL, NULL, &e_fwd, 0, NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, i, 0, NULL, NULL, &e_fwd, 0, &status, NULL),
				 DOCA_SUCCESS);
	/* The same index twice: the second completes with ERROR. */
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, p, 2, 0, NULL, NULL, &e_fwd, 0, &status, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, 0, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_processed, 5);
	assert_true(status.failure);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ft_inject_udp4(0, 1, 0x0a000000u + (uint32_t)i, 3, 4), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 4);
}

static void test_shared_counters(void **state)
{
	(void)state;
	uint32_t id, ids[2];
	struct doca_flow_shared_resource_cfg scfg;
	struct doca_flow_resource_query out[2];
	memset(&scfg, 0, sizeof(scfg));
	assert_int_equal(doca_flow_port_shared_resource_get(NULL, DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], 9, &id), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_shared_resource_set_cfg(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_shared_resource_set_cfg(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, 64, &scfg),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_shared_resource_set_cfg(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id, &scfg),
			 DOCA_SUCCESS);

	/* Two entries of a control pipe count into the same shared counter. */
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "ctl", DOCA_FLOW_PIPE_CONTROL, true);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
	mon.shared_counter.shared_counter_id = id;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_match m;
	struct doca_flow_pipe_entry *a, *b;
	memset(&m, 0, sizeof(m));
	for (int i = 0; i < 2; i++) {
		m.outer.transport.dst_port = DOCA_HTOBE16((uint16_t)(90 + i));
		assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, NULL, NULL, NULL, NULL, &mon, 0, &fwd,
								  &status, i ? &b : &a),
				 DOCA_SUCCESS);
	}
	mon.shared_counter.shared_counter_id = 64;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, NULL, NULL, NULL, NULL, &mon, 0, &fwd, NULL,
							  NULL),
			 DOCA_ERROR_INVALID_VALUE);
	/* in range, but never obtained nor configured */
	mon.shared_counter.shared_counter_id = id == 63 ? 62 : 63;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, NULL, NULL, NULL, NULL, &mon, 0, &fwd, NULL,
							  NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flow_process_entries(ports[0], &status, 2), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 90), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 91), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 91), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(a), 3);
	ids[0] = id;
	ids[1] = 63;
	assert_int_equal(doca_flow_port_shared_resources_query(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, ids, out, 2),
			 DOCA_SUCCESS);
	assert_int_equal(out[0].counter.total_pkts, 3);
	assert_int_equal(out[0].counter.total_bytes, 180);
	assert_int_equal(out[1].counter.total_pkts, 0);
	ids[1] = 64;
	assert_int_equal(doca_flow_port_shared_resources_query(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, ids, out, 2),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_shared_resources_query(ports[0], DOCA_FLOW_SHARED_RESOURCE_METER, ids, out, 1),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
			 DOCA_ERROR_IN_USE);
	doca_flow_pipe_destroy(p);
	assert_int_equal(doca_flow_port_shared_resource_put(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, id),
			 DOCA_SUCCESS);
	/* Exhaust the 64 ids of the port. */
	int got = 0;
	while (doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id) == DOCA_SUCCESS)
		got++;
	assert_int_equal(got, 64);
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id),
			 DOCA_ERROR_FULL);
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], DOCA_FLOW_SHARED_RESOURCE_METER, &id),
			 DOCA_SUCCESS);
}

static void test_external_resource_api(void **state)
{
	(void)state;
	struct doca_flow_external_resource_cfg *cfg;
	struct doca_flow_external_resource *r = NULL;
	assert_int_equal(doca_flow_external_resource_cfg_create(NULL, ports[0]), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_cfg_create(&cfg, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_cfg_set_type(cfg, 5), DOCA_ERROR_INVALID_VALUE);
	/* size setters before a type, and the wrong one for the type */
	assert_int_equal(doca_flow_external_resource_cfg_set_nr_cells(cfg, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_create(cfg, &r), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_cfg_set_type(cfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR),
			 DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_create(cfg, &r), DOCA_ERROR_INVALID_VALUE); /* no size */
	assert_int_equal(doca_flow_external_resource_cfg_set_nr_cells(cfg, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_cfg_set_nr_indices(cfg, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_cfg_set_nr_indices(NULL, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_cfg_set_nr_indices(cfg, 4), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_create(cfg, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_create(NULL, &r), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_create(cfg, &r), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_cfg_destroy(cfg), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_cfg_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	enum doca_flow_index_selector_op st;
	assert_int_equal(doca_flow_external_resource_index_selector_get(NULL, 0, &st), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_index_selector_get(r, 4, &st), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_index_selector_set(r, 3, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE),
			 DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_index_selector_get(r, 3, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE);
	assert_int_equal(doca_flow_external_resource_memory_set(r, 0, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_pipe_cfg_set_external_resource(NULL, r), DOCA_ERROR_INVALID_VALUE);
	/* A resource of another port cannot be bound. */
	struct doca_flow_pipe_cfg *pc;
	assert_int_equal(doca_flow_pipe_cfg_create(&pc, ports[1]), DOCA_SUCCESS);
	doca_flow_pipe_cfg_set_type(pc, DOCA_FLOW_PIPE_HASH);
	assert_int_equal(doca_flow_pipe_cfg_set_external_resource(pc, r), DOCA_ERROR_INVALID_VALUE);
	doca_flow_pipe_cfg_destroy(pc);
	assert_int_equal(doca_flow_external_resource_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_SUCCESS);
}

static void test_inject_and_stubs(void **state)
{
	(void)state;
	uint8_t f[FLOWDPA_MAX_FRAME + 1];
	memset(f, 0, sizeof(f));
	assert_int_equal(flowdpa_port_inject(0, NULL, 60), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flowdpa_port_inject(0, f, 10), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flowdpa_port_inject(0, f, sizeof(f)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flowdpa_port_inject(16, f, 60), DOCA_ERROR_INVALID_VALUE);
	uint32_t l1 = ft_udp4(f, 1, 2, 3, 4);
	const void *frames[3] = {f, f, NULL};
	uint32_t lens[3] = {l1, 5, l1}, ok = 99;
	log_watch_start("flowdpa_port_inject_burst");
	assert_int_equal(flowdpa_port_inject_burst(0, frames, lens, 3, &ok), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ok, 1);
	assert_int_equal(log_watched, 1); /* one line per call, not per bad frame */
	log_watch = NULL;
	assert_int_equal(flowdpa_port_inject_burst(0, NULL, lens, 1, &ok), DOCA_ERROR_INVALID_VALUE);
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.rx_errors, 5);
	assert_int_equal(st.rx_pkts, 1);
	assert_int_equal(st.drops, 1); /* no root pipe: dropped */
	assert_int_equal(flowdpa_port_stats_get(0, NULL), DOCA_ERROR_INVALID_VALUE);
	uint32_t len;
	assert_int_equal(flowdpa_port_capture_pop(0, f, sizeof(f), NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flowdpa_port_capture_pop(0, f, sizeof(f), &len), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(flowdpa_port_capture_set_depth(3, 4), DOCA_ERROR_BAD_STATE);
	assert_int_equal(flowdpa_host_capture_set_depth(0, 4), DOCA_SUCCESS);
	assert_int_equal(flowdpa_traffic_wait(1), DOCA_SUCCESS);

	assert_int_equal(doca_flow_pipe_lpm_add_entry(0, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_flow_pipe_acl_add_entry(0, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, NULL),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 0), -1); /* no entry ages: cycle done */
	struct doca_flow_header_mpls mpls;
	assert_int_equal(doca_flow_mpls_label_encode(0x12345, 5, 64, true, &mpls), DOCA_SUCCESS);
	assert_int_equal(DOCA_BETOH32(mpls.label), (0x12345u << 12) | (5u << 9) | (1u << 8) | 64u);
	assert_int_equal(doca_flow_mpls_label_encode(1u << 20, 0, 0, false, &mpls), DOCA_ERROR_INVALID_VALUE);
	struct doca_flow_definitions_cfg *dc;
	assert_int_equal(doca_flow_definitions_cfg_create(&dc), DOCA_ERROR_NOT_SUPPORTED);
	struct doca_flow_target *t;
	assert_int_equal(doca_flow_get_target(DOCA_FLOW_TARGET_KERNEL, &t), DOCA_SUCCESS); /* test_flow_target */
	assert_non_null(t);
	assert_int_equal(doca_flow_definitions_cfg_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_definitions_cfg_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	struct doca_flow_definitions *defs;
	assert_int_equal(doca_flow_definitions_create(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_definitions_create(NULL, &defs), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_flow_definitions_add_field(NULL, "x", 0, 1), DOCA_ERROR_INVALID_VALUE);
	doca_flow_definitions_destroy(NULL);
	struct doca_flow_parser *parser;
	assert_int_equal(doca_flow_parser_geneve_opt_create(ports[0], NULL, 0, &parser), DOCA_ERROR_NOT_SUPPORTED);
	assert_null(parser);
	assert_int_equal(doca_flow_pipe_resize(NULL, 0, NULL, NULL), DOCA_ERROR_INVALID_VALUE); /* flow_resize */
	assert_int_equal(doca_flow_pipe_ordered_list_add_entry(0, NULL, 0, NULL, NULL, 0, NULL, NULL),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_flow_port_operation_state_modify(ports[0], DOCA_FLOW_PORT_OPERATION_STATE_STANDBY),
			 DOCA_ERROR_NOT_SUPPORTED);
	uint16_t entropy;
	assert_int_equal(doca_flow_port_calc_entropy(ports[0], NULL, &entropy), DOCA_ERROR_INVALID_VALUE);
	struct doca_flow_pipe_cfg *pc;
	assert_int_equal(doca_flow_pipe_cfg_create(&pc, ports[0]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_ordered_lists(pc, NULL, 0), DOCA_ERROR_NOT_SUPPORTED);
	/* Resizable pipes: tests/integration/flow/test_flow_resize.c. */
	assert_int_equal(doca_flow_pipe_cfg_set_is_resizable(pc, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_congestion_level_threshold(pc, 50), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_excluded_queue(pc, 0), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_destroy(pc), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	struct doca_flow_port_cfg *portc;
	assert_int_equal(doca_flow_port_cfg_create(&portc), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_set_operation_state(portc, DOCA_FLOW_PORT_OPERATION_STATE_ACTIVE),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_flow_port_cfg_set_service_threads_cycle(portc, 10), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_set_service_threads_cycle(NULL, 10), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_set_actions_mem_size(NULL, 10), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_set_dev(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_set_dev_rep(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_set_priv_data_size(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_port_cfg_destroy(portc), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Capture and stats calls with bad ids; flush of NULL is logged and ignored. */
	assert_int_equal(flowdpa_host_capture_pop(16, f, sizeof(f), &len), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flowdpa_port_capture_count(16), 0);
	assert_int_equal(flowdpa_host_capture_count(16), 0);
	assert_int_equal(flowdpa_port_stats_get(16, &st), DOCA_ERROR_INVALID_VALUE);
	doca_flow_port_pipes_flush(NULL);
	assert_null(doca_flow_port_priv_data(NULL));
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS); /* state intact */
}

int main(void)
{
	ft_log_init();
	struct doca_log_backend *lb;
	if (doca_log_backend_create_with_buf_sdk(log_rec, sizeof(log_rec), log_count, &lb) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(lb, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_init),
		cmocka_unit_test(test_global_cfg),
		cmocka_unit_test(test_two_switch_managers),
		cmocka_unit_test_setup_teardown(test_ports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_cfg_and_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hash_entry_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_external_resource_api, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inject_and_stubs, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
