/*
 * test_flow_trace.c - observability of the flow layer and the NIC: with FLOWDPA_TRACE
 * set, packet bursts (cat "nic"), "entries processed" (cat "flow") and every host DOCA
 * call (cat "api", e.g. doca_flow_entries_process) are trace events; with FLOWDPA_REPORT
 * set, each port's statistics and pipes are a "flow_port" section. Both paths are given by the test's environment (meson.build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <core/core.h>

#include "flow_test_common.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_trace_and_report(void **state)
{
	(void)state;
	const char *trace = getenv("FLOWDPA_TRACE"), *report = getenv("FLOWDPA_REPORT");
	assert_non_null(trace);
	assert_non_null(report);
	struct doca_flow_port *ports[2];
	struct entries_status status = {0};
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *root;
	struct doca_flow_match m;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	memset(&m, 0, sizeof(m));
	m.outer.transport.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "TRACED_ROOT", DOCA_FLOW_PIPE_BASIC, true);
	doca_flow_pipe_cfg_set_match(cfg, &m, NULL);
	doca_flow_pipe_cfg_set_miss_counter(cfg, true);
	assert_int_equal(doca_flow_pipe_create(cfg, &to1, NULL, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	m.outer.transport.dst_port = DOCA_HTOBE16(53);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 53), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 54), DOCA_SUCCESS);

	/* The report while the port is live: its statistics and its pipe. */
	assert_int_equal(core_report_write(), DOCA_SUCCESS);
	const char *r = slurp(report);
	assert_non_null(strstr(r, "\"flow_port\""));
	assert_non_null(strstr(r, "\"rx_pkts\": 4") ? strstr(r, "\"rx_pkts\": 4") : strstr(r, "\"rx_pkts\":4"));
	assert_non_null(strstr(r, "TRACED_ROOT"));

	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	core_trace_flush();
	const char *t = slurp(trace);
	assert_non_null(strstr(t, "\"rx_burst\""));
	assert_non_null(strstr(t, "\"pkts\":1"));
	assert_non_null(strstr(t, "\"doca_flow_entries_process\""));
	assert_non_null(strstr(t, "\"processed\":1"));
}

int main(void)
{
	ft_log_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_and_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
