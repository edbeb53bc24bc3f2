/*
 * test_flow_pcap.c - an unmodified-style DOCA Flow program fed through
 * FLOWDPA_PORT0_RX (a pcap file written here, then the generator) with its output
 * captured by FLOWDPA_PORT1_TX, and the output checked with tshark: frame count,
 * rewritten UDP source ports per entry, destinations, and checksums.
 * Usage: test_flow_pcap TSHARK WORKDIR
 */
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <core/core.h>

#include "flow_test_common.h"

#define HASH_ENTRIES 4
#define NB_FRAMES 100
#define NB_DROPPED 10

static const char *tshark, *workdir;
static struct doca_flow_port *ports[2];
static struct doca_flow_pipe *hash_pipe, *root_pipe;
static struct doca_flow_pipe_entry *hentry[HASH_ENTRIES];
static char in_path[512], out_path[512];

/* Run tshark on out.pcap with the given arguments; returns its stdout lines joined. */
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

static void write_input(void)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = pcap_dump_open(dead, in_path);
	assert_non_null(d);
	for (int i = 0; i < NB_FRAMES + NB_DROPPED; i++) {
		uint8_t f[128];
		uint32_t len = ft_udp4(f, 0xc0a80001, 0x0a000000u + (uint32_t)(i % 8), (uint16_t)(1000 + i),
				       i < NB_FRAMES ? 5000 : 6000);
		struct pcap_pkthdr h = {.caplen = len, .len = len};
		h.ts.tv_sec = 1;
		h.ts.tv_usec = i;
		pcap_dump((u_char *)d, &h, f);
	}
	pcap_dump_close(d);
	pcap_close(dead);
}

/* The hash pipe and its entries (not processed yet). */
static void build_hash(struct entries_status *status)
{
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_cfg *cfg;

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "HASH", DOCA_FLOW_PIPE_HASH, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, HASH_ENTRIES), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &to1, NULL, &hash_pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	for (uint32_t i = 0; i < HASH_ENTRIES; i++) {
		memset(&act, 0, sizeof(act));
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16(30000 + i);
		assert_int_equal(doca_flow_pipe_hash_add_entry(0, hash_pipe, i, 0, &act, NULL, NULL, 0, status,
							       &hentry[i]),
				 DOCA_SUCCESS);
	}
}

/* The root pipe (UDP port 5000 to the hash pipe, the rest dropped) and its entry. */
static void build_root(struct entries_status *status)
{
	struct doca_flow_match m;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PIPE};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;

	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(5000);
	fwd.next_pipe = hash_pipe;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "ROOT", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, &drop, &root_pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	/* No changeable field: the one entry with a zeroed match. */
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root_pipe, NULL, 0, NULL, NULL, NULL, 0, status, NULL),
			 DOCA_SUCCESS);
}

static void build_pipeline(void)
{
	struct entries_status status = {0};

	build_hash(&status);
	build_root(&status);
	assert_int_equal(flow_process_entries(ports[0], &status, HASH_ENTRIES + 1), DOCA_SUCCESS);
}

static void start(const char *rx)
{
	setenv("FLOWDPA_PORT0_RX", rx, 1);
	char tx[600];
	snprintf(tx, sizeof(tx), "pcap:%s", out_path);
	setenv("FLOWDPA_PORT1_TX", tx, 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);
	build_pipeline();
	/* entries_process returned with nothing pending: the source starts. */
	assert_int_equal(flowdpa_traffic_wait(20000), DOCA_SUCCESS);
}

static void stop(void)
{
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	unsetenv("FLOWDPA_PORT0_RX");
	unsetenv("FLOWDPA_PORT1_TX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

static void test_pcap_in_out(void **state)
{
	(void)state;
	snprintf(in_path, sizeof(in_path), "%s/flow_in.pcap", workdir);
	snprintf(out_path, sizeof(out_path), "%s/flow_out.pcap", workdir);
	write_input();
	char rx[600];
	snprintf(rx, sizeof(rx), "pcap:%s", in_path);
	start(rx);

	uint64_t per[HASH_ENTRIES], sum = 0;
	for (int i = 0; i < HASH_ENTRIES; i++)
		sum += per[i] = ft_entry_pkts(hentry[i]);
	assert_int_equal(sum, NB_FRAMES);
	assert_int_equal(ft_miss_pkts(root_pipe), NB_DROPPED);
	stop(); /* completes out.pcap */

	static char out[1 << 16];
	assert_int_equal(tshark_lines("-T fields -e udp.srcport", out, sizeof(out)), NB_FRAMES);
	for (int i = 0; i < HASH_ENTRIES; i++) {
		char pat[16];
		int n = 0;
		snprintf(pat, sizeof(pat), "%d\n", 30000 + i);
		for (char *p = out; (p = strstr(p, pat)) != NULL; p += strlen(pat))
			n++;
		assert_int_equal(n, per[i]);
	}
	/* Destination ports and addresses are untouched; nothing to port 6000 left. */
	assert_int_equal(tshark_lines("-Y 'udp.dstport == 5000 && ip.src == 192.168.0.1' -T fields -e ip.dst", out,
				      sizeof(out)),
			 NB_FRAMES);
	assert_int_equal(tshark_lines("-Y 'udp.dstport == 6000'", out, sizeof(out)), 0);
	/* Rewrites kept the checksums valid. */
	assert_int_equal(tshark_lines("-o udp.check_checksum:TRUE -o ip.check_checksum:TRUE "
				      "-Y 'udp.checksum.status == 0 || ip.checksum.status == 0'",
				      out, sizeof(out)),
			 0);
	assert_int_equal(tshark_lines("-o udp.check_checksum:TRUE -Y 'udp.checksum.status == 1'", out, sizeof(out)),
			 NB_FRAMES);
}

static void test_generator(void **state)
{
	(void)state;
	snprintf(out_path, sizeof(out_path), "%s/flow_gen_out.pcap", workdir);
	start("gen:flows=16,pkts=1000,zipf=1.1,seed=3,loop=2");
	uint64_t sum = 0;
	for (int i = 0; i < HASH_ENTRIES; i++)
		sum += ft_entry_pkts(hentry[i]);
	/* Generator frames go to UDP port 5000: all of them reach the hash pipe. */
	assert_int_equal(sum, 2000);
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.rx_pkts, 2000);
	stop();
	static char out[1 << 17];
	assert_int_equal(tshark_lines("-T fields -e frame.len", out, sizeof(out)), 2000);
	int distinct = tshark_lines("-T fields -e ip.dst | sort -u", out, sizeof(out));
	assert_true(distinct >= 2 && distinct <= 16);
}

/* Entries still pending: the source starts 1 s after the root pipe appeared, not before. */
static void test_start_rule_timeout(void **state)
{
	(void)state;
	snprintf(out_path, sizeof(out_path), "%s/flow_late_out.pcap", workdir);
	setenv("FLOWDPA_PORT0_RX", "gen:flows=4,pkts=100,seed=1", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *root;
	struct doca_flow_match m;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	memset(&m, 0, sizeof(m));
	m.outer.transport.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "ROOT", DOCA_FLOW_PIPE_BASIC, true);
	doca_flow_pipe_cfg_set_match(cfg, &m, NULL);
	doca_flow_pipe_cfg_set_miss_counter(cfg, true);
	assert_int_equal(doca_flow_pipe_create(cfg, &to1, NULL, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	m.outer.transport.dst_port = DOCA_HTOBE16(5000);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, NULL, NULL), DOCA_SUCCESS);
	/* Not processed: after 0.3 s nothing has arrived yet. */
	struct timespec d = {0, 300000000};
	nanosleep(&d, NULL);
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.rx_pkts, 0);
	assert_int_equal(flowdpa_traffic_wait(5000), DOCA_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	assert_true(dt >= 0.9);
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.rx_pkts, 100);
	/* The entry never reached the NIC: every packet missed (default miss: the host). */
	assert_int_equal(ft_miss_pkts(root), 100);
	assert_int_equal(st.host_pkts, 100);
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	unsetenv("FLOWDPA_PORT0_RX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* An idle entries_process before the root pipe exists does not start the source. */
static void test_process_before_root_does_not_start(void **state)
{
	struct entries_status status = {0};
	struct flowdpa_port_stats st;
	struct timespec d = {0, 300000000};
	uint64_t sum = 0;
	(void)state;

	setenv("FLOWDPA_PORT0_RX", "gen:flows=4,pkts=100,seed=1", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);
	build_hash(&status);
	assert_int_equal(flow_process_entries(ports[0], &status, HASH_ENTRIES), DOCA_SUCCESS);
	status = (struct entries_status){0};
	build_root(&status); /* root pipe and entry exist, the entry is not processed */
	nanosleep(&d, NULL);
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.rx_pkts, 0);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(flowdpa_traffic_wait(5000), DOCA_SUCCESS);
	for (int i = 0; i < HASH_ENTRIES; i++)
		sum += ft_entry_pkts(hentry[i]);
	assert_int_equal(sum, 100); /* every packet met the processed root entry */
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	unsetenv("FLOWDPA_PORT0_RX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* Switch mode: the manager's entries_process starts its representors' sources too
 * (otherwise they would wait for the 1 s fallback). */
static void test_representor_source_starts_with_manager(void **state)
{
	struct doca_flow_cfg *cfg;
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *mgr, *rep;
	struct doca_flow_pipe_cfg *pcfg;
	struct doca_flow_pipe *root;
	struct doca_flow_match m;
	struct doca_flow_fwd to_mgr = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0};
	struct flowdpa_port_stats st;
	(void)state;

	setenv("FLOWDPA_PORT1_RX", "gen:flows=4,pkts=100,seed=2", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_create(&cfg), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_pipe_queues(cfg, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_cfg_set_mode_args(cfg, "switch,hws"), DOCA_SUCCESS);
	assert_int_equal(doca_flow_init(cfg), DOCA_SUCCESS);
	doca_flow_cfg_destroy(cfg);
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

	memset(&m, 0, sizeof(m));
	m.parser_meta.port_id = UINT16_MAX;
	assert_int_equal(doca_flow_pipe_cfg_create(&pcfg, mgr), DOCA_SUCCESS);
	set_flow_pipe_cfg(pcfg, "SWITCH_ROOT", DOCA_FLOW_PIPE_BASIC, true);
	doca_flow_pipe_cfg_set_match(pcfg, &m, NULL);
	assert_int_equal(doca_flow_pipe_create(pcfg, &to_mgr, NULL, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(pcfg);
	m.parser_meta.port_id = 1;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, NULL, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(mgr, 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	/* well inside the 1 s fallback: only the kick can have started it */
	assert_int_equal(flowdpa_traffic_wait(700), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_stats_get(1, &st), DOCA_SUCCESS);
	assert_int_equal(st.rx_pkts, 100);
	doca_flow_pipe_destroy(root);
	doca_flow_port_stop(rep);
	doca_flow_port_stop(mgr);
	doca_flow_destroy();
	unsetenv("FLOWDPA_PORT1_RX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* Port start with a source that must not be played: IO_FAILED, and the port stays down. */
static void expect_source_refused(const char *path)
{
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;
	char rx[600];

	snprintf(rx, sizeof(rx), "pcap:%s", path);
	setenv("FLOWDPA_PORT0_RX", rx, 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
	doca_flow_port_cfg_set_port_id(pc, 0);
	doca_flow_port_cfg_set_dev(pc, NULL);
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_ERROR_IO_FAILED);
	doca_flow_port_cfg_destroy(pc);
	doca_flow_destroy();
	unsetenv("FLOWDPA_PORT0_RX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

static void test_non_ethernet_capture_refused(void **state)
{
	char path[600];
	uint8_t ip[28] = {0x45};
	struct pcap_pkthdr h = {.caplen = sizeof(ip), .len = sizeof(ip)};
	pcap_t *dead = pcap_open_dead(DLT_RAW, 65535);
	pcap_dumper_t *d;
	(void)state;

	snprintf(path, sizeof(path), "%s/flow_raw.pcap", workdir);
	d = pcap_dump_open(dead, path);
	assert_non_null(d);
	pcap_dump((u_char *)d, &h, ip);
	pcap_dump_close(d);
	pcap_close(dead);
	expect_source_refused(path);
}

static void test_truncated_capture_refused(void **state)
{
	char path[600];
	(void)state;

	snprintf(in_path, sizeof(in_path), "%s/flow_trunc.pcap", workdir);
	write_input();
	snprintf(path, sizeof(path), "%s", in_path);
	/* cut the last record in half */
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	assert_int_equal(ftruncate(fileno(f), ftell(f) - 20), 0);
	fclose(f);
	expect_source_refused(path);
}

/* rate=PPS paces the source: 300 packets at 2000 pps take at least ~0.15 s. */
static void test_paced_source(void **state)
{
	(void)state;
	snprintf(out_path, sizeof(out_path), "%s/flow_paced_out.pcap", workdir);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	start("gen:flows=8,pkts=300,seed=5,rate=2000");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	uint64_t sum = 0;
	for (int i = 0; i < HASH_ENTRIES; i++)
		sum += ft_entry_pkts(hentry[i]);
	assert_int_equal(sum, 300);
	assert_true(dt >= 0.14);
	stop();
}

/* A source file that cannot be read fails the port start with IO_FAILED. */
static void test_bad_source(void **state)
{
	(void)state;
	setenv("FLOWDPA_PORT0_RX", "pcap:/nonexistent/in.pcap", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;
	assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
	doca_flow_port_cfg_set_port_id(pc, 0);
	doca_flow_port_cfg_set_dev(pc, NULL);
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_ERROR_IO_FAILED);
	/* Nothing was left half-started: the same port starts once the source is fixed. */
	unsetenv("FLOWDPA_PORT0_RX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_SUCCESS);
	doca_flow_port_cfg_destroy(pc);
	doca_flow_port_stop(p);
	doca_flow_destroy();
}

/*
 * A TX capture that cannot be written (FLOWDPA_PORT1_TX on a full disk: /dev/full) is
 * reported when the port stops: IO_FAILED from doca_flow_port_stop, which stops the port
 * all the same. The error used to be lost (the dumper was closed unchecked).
 */
static void test_tx_write_error(void **state)
{
	(void)state;
	setenv("FLOWDPA_PORT1_TX", "pcap:/dev/full", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *root;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct entries_status st = {0};
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	set_flow_pipe_cfg(cfg, "all_to_1", DOCA_FLOW_PIPE_BASIC, true);
	assert_int_equal(doca_flow_pipe_create(cfg, &to1, NULL, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, NULL, 0, NULL, NULL, NULL, 0, &st, NULL),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &st, 1), DOCA_SUCCESS);
	for (int i = 0; i < 200; i++)
		assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS);
	struct flowdpa_port_stats ps;
	assert_int_equal(flowdpa_port_stats_get(1, &ps), DOCA_SUCCESS);
	assert_int_equal(ps.tx_pkts, 200);
	assert_int_equal(doca_flow_port_stop(ports[1]), DOCA_ERROR_IO_FAILED);
	/* Stopped nonetheless. */
	assert_int_equal(ft_inject_udp4(1, 1, 2, 3, 4), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_port_stop(ports[1]), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_flow_port_stop(ports[0]), DOCA_SUCCESS);
	doca_flow_destroy();
	unsetenv("FLOWDPA_PORT1_TX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	/* Nothing was left behind: the ids start again. */
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);
	stop_doca_flow_ports(2, ports);
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
	ft_log_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcap_in_out),
		cmocka_unit_test(test_generator),
		cmocka_unit_test(test_start_rule_timeout),
		cmocka_unit_test(test_paced_source),
		cmocka_unit_test(test_bad_source),
		cmocka_unit_test(test_process_before_root_does_not_start),
		cmocka_unit_test(test_representor_source_starts_with_manager),
		cmocka_unit_test(test_non_ethernet_capture_refused),
		cmocka_unit_test(test_truncated_capture_refused),
		cmocka_unit_test(test_tx_write_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
