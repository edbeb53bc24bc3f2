/*
 * test_flow_target.c - DOCA_FLOW_FWD_TARGET to DOCA_FLOW_TARGET_KERNEL with real
 * frames: DOCA's flow_fwd_target sample (a CONTROL root sends IPv4 to a 5-tuple BASIC
 * pipe whose misses go to the kernel), the to-kernel pipe of flow_switch_single (pipe fwd
 * TARGET, misses to another pipe) and its whole switch-mode pipeline, an entry-level fwd
 * TARGET with a header rewrite. The
 * kernel queue (flowdpa_kernel_capture_pop) holds the frames' bytes, kernel_pkts counts
 * them and they are not drops. Refused calls: documented code, one log line.
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
	return ft_setup_two_ports(ports, &status);
}

static int teardown(void **state)
{
	(void)state;
	return ft_teardown_two_ports(ports);
}

static struct doca_flow_target *kernel(void)
{
	struct doca_flow_target *t = NULL;
	assert_int_equal(doca_flow_get_target(DOCA_FLOW_TARGET_KERNEL, &t), DOCA_SUCCESS);
	assert_non_null(t);
	return t;
}

static void process(int n)
{
	assert_int_equal(flow_process_entries(ports[0], &status, n), DOCA_SUCCESS);
	status.nb_processed = 0;
}

/* Inject f; it must reach port 0's kernel queue unchanged (or as want, when not NULL). */
static void expect_kernel(const uint8_t *f, uint32_t len, const uint8_t *want)
{
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t got;
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_kernel_capture_count(0), 1);
	assert_int_equal(flowdpa_kernel_capture_pop(0, buf, sizeof(buf), &got), DOCA_SUCCESS);
	assert_int_equal(got, len);
	assert_memory_equal(buf, want ? want : f, len);
	assert_int_equal(flowdpa_port_capture_count(1), 0);
	assert_int_equal(flowdpa_host_capture_count(0), 0);
}

/* flow_fwd_target: CONTROL root (IPv4 -> IPv4_PIPE), IPv4_PIPE matches a TCP 5-tuple to
 * port 1, fwd_miss TARGET kernel. */
static void test_fwd_target_sample(void **state)
{
	(void)state;
	struct doca_flow_match m;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_TARGET, .target = kernel()};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *ipv4, *root;
	memset(&m, 0, sizeof(m));
	m.parser_meta.outer_l4_type = DOCA_FLOW_L4_META_TCP;
	m.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV4;
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_TCP;
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.src_ip = 0xffffffff;
	m.outer.ip4.dst_ip = 0xffffffff;
	m.outer.tcp.l4_port.src_port = 0xffff;
	m.outer.tcp.l4_port.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "IPv4_PIPE", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, &miss, &ipv4), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	memset(&m, 0, sizeof(m));
	m.outer.ip4.src_ip = BE_IPV4_ADDR(1, 2, 3, 4);
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(8, 8, 8, 8);
	m.outer.tcp.l4_port.src_port = DOCA_HTOBE16(1234);
	m.outer.tcp.l4_port.dst_port = DOCA_HTOBE16(80);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, ipv4, &m, 0, NULL, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);

	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "CONTROL_PIPE", DOCA_FLOW_PIPE_CONTROL, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, NULL, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_fwd to_ipv4 = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = ipv4};
	memset(&m, 0, sizeof(m));
	m.outer.eth.type = DOCA_HTOBE16(DOCA_FLOW_ETHER_TYPE_IPV4);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, root, &m, NULL, NULL, NULL, NULL, NULL, NULL, 0, &to_ipv4,
							  &status, NULL),
			 DOCA_SUCCESS);
	process(2);

	uint8_t f[128], buf[FLOWDPA_MAX_FRAME];
	uint32_t len, got;
	/* The 5-tuple: port 1. */
	len = ft_build4(f, 6, 0x01020304, 0x08080808, 1234, 80, 10);
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &got), DOCA_SUCCESS);
	assert_memory_equal(buf, f, len);
	assert_int_equal(flowdpa_kernel_capture_count(0), 0);
	/* Other TCP and UDP (IPv4_PIPE misses): the kernel, bytes unchanged. */
	len = ft_build4(f, 6, 0x01020304, 0x08080808, 1234, 81, 10);
	expect_kernel(f, len, NULL);
	len = ft_udp4(f, 0x01020304, 0x08080808, 1234, 80);
	expect_kernel(f, len, NULL);

	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.rx_pkts, 3);
	assert_int_equal(st.kernel_pkts, 2);
	assert_int_equal(st.drops, 0);
	assert_int_equal(st.host_pkts, 0);
	assert_int_equal(flowdpa_port_stats_get(1, &st), DOCA_SUCCESS);
	assert_int_equal(st.tx_pkts, 1);
	assert_int_equal(st.kernel_pkts, 0);
}

/* flow_switch_single's to-kernel pipe: pipe fwd TARGET (fixed), misses to a DROP pipe. */
static void test_pipe_fwd_target(void **state)
{
	(void)state;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *miss_pipe, *to_kernel;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "MISS_PIPE", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &drop, NULL, &miss_pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, miss_pipe, NULL, 0, NULL, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);

	struct doca_flow_fwd tk = {.type = DOCA_FLOW_FWD_TARGET, .target = kernel()};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = miss_pipe};
	to_kernel = ft_udp_dport_pipe(ports[0], "TO_KERNEL", true, 8, &tk, &miss);
	assert_non_null(to_kernel);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(53);
	struct doca_flow_pipe_entry *e;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, to_kernel, &m, 0, NULL, NULL, NULL, 0, &status, &e),
			 DOCA_SUCCESS);
	process(2);
	uint8_t f[128];
	uint32_t len = ft_udp4(f, 0x0a000001, 0x0a000002, 4000, 53);
	expect_kernel(f, len, NULL);
	assert_int_equal(ft_entry_pkts(e), 1);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 54), DOCA_SUCCESS); /* miss -> MISS_PIPE -> drop */
	assert_int_equal(flowdpa_kernel_capture_count(0), 0);
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.kernel_pkts, 1);
	assert_int_equal(st.drops, 1);
}

/* Entry-level fwd TARGET (pipe fwd changeable) after a rewrite: the kernel sees the
 * rewritten frame with valid checksums; the ring depth is the program's. */
static void test_entry_fwd_target_rewrite(void **state)
{
	(void)state;
	struct doca_flow_match m;
	struct doca_flow_actions a, *acts[1] = {&a};
	struct doca_flow_fwd chg = {.type = DOCA_FLOW_FWD_CHANGEABLE};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p;
	memset(&m, 0, sizeof(m));
	memset(&a, 0, sizeof(a));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	a.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	a.outer.ip4.dst_ip = 0xffffffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "REWRITE", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &chg, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_fwd tk = {.type = DOCA_FLOW_FWD_TARGET, .target = kernel()};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	a.outer.ip4.dst_ip = BE_IPV4_ADDR(192, 168, 0, 9);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(7);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, &a, NULL, &tk, 0, &status, NULL), DOCA_SUCCESS);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(8);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, &a, NULL, &to1, 0, &status, NULL), DOCA_SUCCESS);
	/* A TARGET without a target is refused at the add, nothing queued. */
	struct doca_flow_fwd bad = {.type = DOCA_FLOW_FWD_TARGET};
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, &a, NULL, &bad, 0, &status, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("NULL target"), 1);
	assert_int_equal(log_capture_count(NULL), 1);
	process(2);

	uint8_t f[128], want[128], buf[FLOWDPA_MAX_FRAME];
	uint32_t len = ft_udp4(f, 0x0a000001, 0x0a000002, 4000, 7), got;
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_kernel_capture_pop(0, buf, sizeof(buf), &got), DOCA_SUCCESS);
	assert_int_equal(got, len);
	assert_int_equal(ft_ip4_dst(buf), 0xc0a80009);
	assert_true(ft_checksums_ok(buf, got));
	ft_udp4(want, 0x0a000001, 0xc0a80009, 4000, 7);
	assert_memory_equal(buf, want, len);
	/* The other entry still goes to port 1. */
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 8), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	/* A full ring counts the frame (kernel_pkts) and its overflow, keeps the oldest. */
	assert_int_equal(flowdpa_kernel_capture_set_depth(0, 1), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_kernel_capture_count(0), 1);
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.kernel_pkts, 3);
	assert_int_equal(st.capture_overflow, 1);
	assert_int_equal(st.drops, 0);
}

/* flow_switch_single's pipeline in switch mode: manager 0, representors 1 and 2; a root
 * 5-tuple pipe (fwd per entry) misses to a to-kernel pipe (IPv4 -> TARGET), which misses
 * to RSS. The kernel queue is the receiving representor's. */
static void test_switch_single(void **state)
{
	(void)state;
	ft_log_init();
	assert_int_equal(init_doca_flow(1, "switch,hws"), DOCA_SUCCESS);
	struct doca_flow_port *mgr = ft_start_port(0, false);
	struct doca_flow_port *r1 = ft_start_port(1, true), *r2 = ft_start_port(2, true);
	assert_non_null(mgr);
	assert_non_null(r1);
	assert_non_null(r2);
	struct entries_status st = {0};
	struct doca_flow_match m;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *rss, *to_kernel, *root;
	struct doca_flow_pipe_entry *rss_e, *k_e, *fwd_e;

	uint16_t q0 = 0;
	struct doca_flow_fwd to_rss = {.type = DOCA_FLOW_FWD_RSS, .rss_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	to_rss.rss.queues_array = &q0;
	to_rss.rss.nr_queues = 1;
	memset(&m, 0, sizeof(m));
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, mgr), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "RSS_META_PIPE", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &to_rss, NULL, &rss), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, rss, &m, 0, NULL, NULL, NULL, 0, &st, &rss_e),
			 DOCA_SUCCESS);

	struct doca_flow_fwd tk = {.type = DOCA_FLOW_FWD_TARGET, .target = kernel()};
	struct doca_flow_fwd miss_rss = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = rss};
	memset(&m, 0, sizeof(m));
	m.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV4;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, mgr), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "TO_KERNEL_PIPE", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &tk, &miss_rss, &to_kernel), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, to_kernel, &m, 0, NULL, NULL, NULL, 0, &st, &k_e),
			 DOCA_SUCCESS);

	struct doca_flow_fwd per_entry = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0xffff};
	struct doca_flow_fwd miss_k = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = to_kernel};
	memset(&m, 0, sizeof(m));
	m.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV4;
	m.parser_meta.outer_l4_type = DOCA_FLOW_L4_META_TCP;
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_TCP;
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.src_ip = 0xffffffff;
	m.outer.ip4.dst_ip = 0xffffffff;
	m.outer.tcp.l4_port.src_port = 0xffff;
	m.outer.tcp.l4_port.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, mgr), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "SWITCH_PIPE", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &per_entry, &miss_k, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	memset(&m, 0, sizeof(m));
	m.outer.ip4.src_ip = BE_IPV4_ADDR(1, 2, 3, 4);
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(8, 8, 8, 8);
	m.outer.tcp.l4_port.src_port = DOCA_HTOBE16(1234);
	m.outer.tcp.l4_port.dst_port = DOCA_HTOBE16(80);
	struct doca_flow_fwd to2 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 2};
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, &to2, 0, &st, &fwd_e),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(mgr, &st, 3), DOCA_SUCCESS);

	uint8_t f[128], buf[FLOWDPA_MAX_FRAME];
	uint32_t len, got;
	len = ft_build4(f, 6, 0x01020304, 0x08080808, 1234, 80, 4); /* the 5-tuple: port 2 */
	assert_int_equal(flowdpa_port_inject(1, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(2, buf, sizeof(buf), &got), DOCA_SUCCESS);
	assert_memory_equal(buf, f, len);
	len = ft_build4(f, 6, 0x01020304, 0x08080808, 1234, 81, 4); /* other IPv4: kernel of port 1 */
	assert_int_equal(flowdpa_port_inject(1, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_kernel_capture_pop(1, buf, sizeof(buf), &got), DOCA_SUCCESS);
	assert_int_equal(got, len);
	assert_memory_equal(buf, f, len);
	assert_int_equal(flowdpa_kernel_capture_count(0), 0);
	len = ft_udp6(f, 9, 1000, 2000); /* not IPv4: RSS, the host queue of port 1 */
	assert_int_equal(flowdpa_port_inject(1, f, len), DOCA_SUCCESS);
	assert_int_equal(flowdpa_host_capture_count(1), 1);
	assert_int_equal(flowdpa_kernel_capture_count(1), 0);
	assert_int_equal(ft_entry_pkts(fwd_e), 1);
	assert_int_equal(ft_entry_pkts(k_e), 1);
	assert_int_equal(ft_entry_pkts(rss_e), 1);
	struct flowdpa_port_stats ps;
	assert_int_equal(flowdpa_port_stats_get(1, &ps), DOCA_SUCCESS);
	assert_int_equal(ps.kernel_pkts, 1);
	assert_int_equal(ps.host_pkts, 1);
	assert_int_equal(ps.drops, 0);

	assert_int_equal(doca_flow_port_stop(r2), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_stop(r1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_stop(mgr), DOCA_SUCCESS);
	doca_flow_destroy();
}

static void test_bad_input(void **state)
{
	(void)state;
	struct doca_flow_target *t = NULL;
	log_capture_clear();
	assert_int_equal(doca_flow_get_target(DOCA_FLOW_TARGET_KERNEL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_flow_get_target((enum doca_flow_target_type)7, &t), DOCA_ERROR_INVALID_VALUE);
	assert_null(t);
	assert_int_equal(log_capture_count("doca_flow_get_target"), 2);
	assert_int_equal(log_capture_count(NULL), 2);
	/* Something that is not a target. */
	static uint64_t junk[2];
	struct doca_flow_fwd bad = {.type = DOCA_FLOW_FWD_TARGET, .target = (struct doca_flow_target *)junk};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	log_capture_clear();
	assert_null(ft_udp_dport_pipe(ports[0], "BAD", true, 4, &bad, NULL));
	assert_int_equal(log_capture_count("not a DOCA Flow target"), 1);
	assert_null(ft_udp_dport_pipe(ports[0], "BAD_MISS", true, 4, &to1, &bad));
	/* State intact: a root pipe can still be made and the kernel queue is empty. */
	assert_non_null(ft_udp_dport_pipe(ports[0], "OK", true, 4, &to1, NULL));
	assert_int_equal(flowdpa_kernel_capture_count(0), 0);
	uint32_t len;
	assert_int_equal(flowdpa_kernel_capture_pop(0, NULL, 0, &len), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(flowdpa_kernel_capture_pop(0, NULL, 0, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flowdpa_kernel_capture_pop(99, NULL, 0, &len), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(flowdpa_kernel_capture_count(99), 0);
	assert_int_equal(flowdpa_kernel_capture_set_depth(5, 4), DOCA_ERROR_BAD_STATE);
}

static void test_before_init(void **state)
{
	(void)state;
	struct doca_flow_target *t = NULL;
	log_capture_clear();
	assert_int_equal(doca_flow_get_target(DOCA_FLOW_TARGET_KERNEL, &t), DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_capture_count("doca_flow_get_target"), 1);
	assert_null(t);
}

int main(void)
{
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_init),
		cmocka_unit_test_setup_teardown(test_fwd_target_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_fwd_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_entry_fwd_target_rewrite, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test(test_switch_single),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
