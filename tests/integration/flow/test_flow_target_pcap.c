/*
 * test_flow_target_pcap.c - FLOWDPA_PORTn_KERNEL: what a port's pipeline forwards to
 * DOCA_FLOW_TARGET_KERNEL is also written to a pcap file, complete when the port stops,
 * read back with tshark (frame count, the rewritten destination, valid checksums). A
 * file that cannot be created fails the port start with IO_FAILED and one line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <core/core.h>

#include "flow_test_common.h"
#include "log_capture.h"

#define NB 7

static const char *tshark, *workdir;
static char out_path[512];

static int tshark_lines(const char *args, char *out, size_t cap)
{
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "'%s' -r '%s' %s 2>/dev/null", tshark, out_path, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = 0;
	pclose(p);
	int lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += out[i] == '\n';
	return lines;
}

static void test_kernel_pcap(void **state)
{
	(void)state;
	struct doca_flow_port *ports[2];
	struct entries_status st = {0};
	char env[600];
	snprintf(out_path, sizeof(out_path), "%s/kernel_out.pcap", workdir);
	remove(out_path);
	snprintf(env, sizeof(env), "pcap:%s", out_path);
	setenv("FLOWDPA_PORT0_KERNEL", env, 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);

	/* Root: UDP to dport 53 rewritten to 192.168.0.9 and sent to the kernel; misses to
	 * the kernel unchanged. */
	struct doca_flow_target *kt;
	assert_int_equal(doca_flow_get_target(DOCA_FLOW_TARGET_KERNEL, &kt), DOCA_SUCCESS);
	struct doca_flow_match m;
	struct doca_flow_actions a, *acts[1] = {&a};
	struct doca_flow_fwd tk = {.type = DOCA_FLOW_FWD_TARGET, .target = kt};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p;
	memset(&m, 0, sizeof(m));
	memset(&a, 0, sizeof(a));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	a.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	a.outer.ip4.dst_ip = 0xffffffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "TO_KERNEL", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &tk, &tk, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(53);
	a.outer.ip4.dst_ip = BE_IPV4_ADDR(192, 168, 0, 9);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, &a, NULL, NULL, 0, &st, NULL), DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &st, 1), DOCA_SUCCESS);
	for (int i = 0; i < NB; i++)
		assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, (uint16_t)(100 + i), 53), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 7, 54), DOCA_SUCCESS);
	struct flowdpa_port_stats ps;
	assert_int_equal(flowdpa_port_stats_get(0, &ps), DOCA_SUCCESS);
	assert_int_equal(ps.kernel_pkts, NB + 1);
	assert_int_equal(ps.drops, 0);
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	unsetenv("FLOWDPA_PORT0_KERNEL");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);

	char out[8192];
	assert_int_equal(tshark_lines("", out, sizeof(out)), NB + 1);
	assert_int_equal(tshark_lines("-Y 'udp.dstport == 53 && ip.dst == 192.168.0.9 && ip.src == 10.0.0.1'", out,
				      sizeof(out)),
			 NB);
	assert_int_equal(tshark_lines("-Y 'udp.dstport == 54 && ip.dst == 10.0.0.2'", out, sizeof(out)), 1);
	assert_int_equal(tshark_lines("-o udp.check_checksum:TRUE -o ip.check_checksum:TRUE "
				      "-Y 'ip.checksum.status == 0 || udp.checksum.status == 0'", /* 0: bad */
				      out, sizeof(out)),
			 0);
	assert_int_equal(tshark_lines("-o udp.check_checksum:TRUE -Y 'udp.checksum.status == 1'", out, sizeof(out)), /* good */
			 NB + 1);
}

static void test_kernel_pcap_unwritable(void **state)
{
	(void)state;
	struct doca_flow_port *ports[2] = {NULL, NULL};
	setenv("FLOWDPA_PORT0_KERNEL", "pcap:/nonexistent/dir/k.pcap", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	log_capture_clear();
	assert_int_equal(init_doca_flow_ports(1, ports), DOCA_ERROR_IO_FAILED);
	assert_int_equal(log_capture_count("FLOWDPA_PORT0_KERNEL: cannot write pcap '/nonexistent/dir/k.pcap'"), 1);
	doca_flow_destroy();
	unsetenv("FLOWDPA_PORT0_KERNEL");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	/* Nothing left behind: the port starts without the variable. */
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(1, ports), DOCA_SUCCESS);
	stop_doca_flow_ports(1, ports);
	doca_flow_destroy();
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s TSHARK WORKDIR\n", argv[0]);
		return 2;
	}
	tshark = argv[1];
	workdir = argv[2];
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_pcap),
		cmocka_unit_test(test_kernel_pcap_unwritable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
