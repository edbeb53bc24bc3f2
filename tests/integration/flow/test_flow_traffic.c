/*
 * test_flow_traffic.c - FLOWDPA_PORTn_RX sources seen from a DOCA Flow program: pacing
 * (rate=PPS holds per frame, and a port stop interrupts a paced source at once), and the
 * mistakes that would otherwise end in zero traffic without a word (issue 12): traffic
 * starting with entry operations still queued, a source whose port never started or
 * was stopped before the source played, flowdpa_traffic_wait on a source that cannot play.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include <core/core.h>

#include "flow_test_common.h"
#include "log_capture.h"

static struct doca_flow_port *ports[2];
static const char *self; /* argv[0]: test_program_ended_first runs it again */

/* A 14-frame pcap (UDP to port 5000), written in the test's directory. */
#define PCAP_NAME "traffic_in.pcap"
#define PCAP_FRAMES 14
static void write_pcap(void)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	assert_non_null(dead);
	pcap_dumper_t *d = pcap_dump_open(dead, PCAP_NAME);
	assert_non_null(d);
	for (int i = 0; i < PCAP_FRAMES; i++) {
		uint8_t f[128];
		struct pcap_pkthdr h = {.caplen = ft_udp4(f, 1, 2, (uint16_t)(100 + i), 5000)};
		h.len = h.caplen;
		pcap_dump((u_char *)d, &h, f);
	}
	pcap_dump_close(d);
	pcap_close(dead);
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms)
{
	struct timespec d = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	nanosleep(&d, NULL);
}

static uint64_t rx_pkts(uint16_t port)
{
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(port, &st), DOCA_SUCCESS);
	return st.rx_pkts;
}

/* FLOWDPA_PORT0_RX = rx (NULL: unset), then DOCA Flow with ports 0 and 1 started. */
static void start(const char *rx)
{
	if (rx)
		setenv("FLOWDPA_PORT0_RX", rx, 1);
	else
		unsetenv("FLOWDPA_PORT0_RX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, ports), DOCA_SUCCESS);
}

static void stop(void)
{
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	ports[0] = ports[1] = NULL;
	unsetenv("FLOWDPA_PORT0_RX");
	unsetenv("FLOWDPA_PORT1_RX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* A root pipe on port 0 forwarding UDP port 5000 to port 1, its entry processed: the
 * source of port 0 starts now. */
static struct doca_flow_pipe *root_to_port1(bool process)
{
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *root = ft_udp_dport_pipe(ports[0], "ROOT", true, 16, &to1, NULL);
	struct doca_flow_match m;
	assert_non_null(root);
	memset(&m, 0, sizeof(m));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(5000);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, NULL, NULL), DOCA_SUCCESS);
	if (process)
		assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	return root;
}

/* ------------------------------------------------------------------ pacing (issue 15) */

/*
 * rate=100: about 10 frames in the first 100 ms. The source used to send a whole burst
 * (32 frames) at once and then sleep the burst's pacing.
 */
static void test_rate_paced_per_frame(void **state)
{
	(void)state;
	start("gen:flows=4,pkts=1000,rate=100");
	root_to_port1(true);
	uint64_t t0 = now_ms();
	sleep_ms(100);
	uint64_t n = rx_pkts(0), dt = now_ms() - t0;
	print_message("rate=100: %llu frames after %llu ms\n", (unsigned long long)n, (unsigned long long)dt);
	/* 10 due at 100 ms; generous bounds for a loaded machine. */
	assert_true(n >= 4 && n <= 20);
	sleep_ms(100);
	uint64_t n2 = rx_pkts(0);
	assert_true(n2 > n && n2 <= 40);
	stop();
}

/*
 * rate=1: the source sleeps between frames; stopping the port wakes it at once. It used
 * to sleep a whole burst's pacing (32 s) in one nanosleep, and the stop waited for it.
 */
static void test_stop_interrupts_pacing(void **state)
{
	(void)state;
	start("gen:pkts=1000,rate=1");
	root_to_port1(true);
	for (int i = 0; i < 2000 && rx_pkts(0) == 0; i++)
		sleep_ms(1);
	assert_int_equal(rx_pkts(0), 1); /* the first frame at once, the second due in 1 s */
	sleep_ms(50);
	uint64_t t0 = now_ms();
	assert_int_equal(doca_flow_port_stop(ports[0]), DOCA_SUCCESS);
	uint64_t dt = now_ms() - t0;
	print_message("port_stop of a rate=1 source: %llu ms\n", (unsigned long long)dt);
	assert_true(dt < 200);
	ports[0] = NULL;
	stop();
}

/* ------------------------------------------------------------------ fwd to a port not started */

/*
 * A fwd to a port id that cannot exist is refused at creation; one to a port that is not
 * started (never, or any more) drops its frames with one line at the first drop, then
 * at most one a second.
 */
static void test_fwd_to_port_not_started(void **state)
{
	(void)state;
	start(NULL);
	struct doca_flow_fwd to16 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 16};
	struct doca_flow_fwd to3 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 3};
	struct doca_flow_fwd per_entry = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0xffff};
	log_capture_clear();
	assert_null(ft_udp_dport_pipe(ports[0], "ROOT", true, 16, &to16, NULL));
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("doca_flow_pipe_create: fwd port_id 16 does not exist (port ids are 0..15)"), 1);

	struct doca_flow_pipe *root = ft_udp_dport_pipe(ports[0], "ROOT", true, 16, &per_entry, NULL);
	struct doca_flow_match m;
	assert_non_null(root);
	memset(&m, 0, sizeof(m));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(5000);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, &to16, 0, NULL, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("doca_flow_pipe_basic_add_entry: fwd port_id 16 does not exist"), 1);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, &to3, 0, NULL, NULL), DOCA_SUCCESS);
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(5001);
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, &to1, 0, NULL, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);

	log_capture_clear();
	for (int i = 0; i < 3; i++)
		assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 5000), DOCA_SUCCESS);
	if (log_capture_count(NULL) != 1)
		log_capture_dump();
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("port 0: 1 frame(s) forwarded to port 3 dropped: port 3 is not started (drop "
					   "reason port_not_started; at most one such line a second)"),
			 1);
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.drops, 3);

	/* A port stopped under live entries: the same reason, its own line; the next line for
	 * port 3, once the second has passed, carries the drops held back meanwhile. */
	assert_int_equal(doca_flow_port_stop(ports[1]), DOCA_SUCCESS);
	ports[1] = NULL;
	log_capture_clear();
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 5001), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 5001), DOCA_SUCCESS);
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("port 0: 1 frame(s) forwarded to port 1 dropped: port 1 is not started"), 1);
	sleep_ms(1100);
	log_capture_clear();
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 5000), DOCA_SUCCESS);
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("port 0: 3 frame(s) forwarded to port 3 dropped: port 3 is not started"), 1);
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(st.drops, 6);
	stop();
}

/* ------------------------------------------------------------------ silent zero traffic (issue 12) */

/* The root's entry was never processed: the source starts on the 1 s fallback, says so,
 * and every frame misses. */
static void test_traffic_started_with_queued_ops(void **state)
{
	(void)state;
	start("gen:pkts=10");
	struct doca_flow_pipe *root = root_to_port1(false);
	log_capture_clear();
	assert_int_equal(flowdpa_traffic_wait(5000), DOCA_SUCCESS);
	if (log_capture_count(NULL) != 1)
		log_capture_dump();
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("port 0: traffic started with 1 queued entry ops on pipe 'ROOT'; call "
					   "doca_flow_entries_process"),
			 1);
	assert_int_equal(ft_miss_pkts(root), 10);
	/* Processed in time: the source starts on the kick, silently. */
	stop();
	start("gen:pkts=10");
	root_to_port1(true);
	log_capture_clear();
	assert_int_equal(flowdpa_traffic_wait(5000), DOCA_SUCCESS);
	assert_int_equal(log_capture_count(NULL), 0);
	stop();
}

/* A port stopped before its source played out: one line with the count. */
static void test_source_port_stopped_first(void **state)
{
	(void)state;
	write_pcap();
	start("pcap:" PCAP_NAME ",rate=1");
	root_to_port1(true);
	for (int i = 0; i < 2000 && rx_pkts(0) == 0; i++)
		sleep_ms(1);
	log_capture_clear();
	assert_int_equal(doca_flow_port_stop(ports[0]), DOCA_SUCCESS);
	ports[0] = NULL;
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("port 0: source " PCAP_NAME " played 1/14 frames (port stopped first)"), 1);
	/* Stopped before any root pipe: the line says that too. */
	stop();
	start("pcap:" PCAP_NAME);
	log_capture_clear();
	assert_int_equal(doca_flow_port_stop(ports[0]), DOCA_SUCCESS);
	ports[0] = NULL;
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(
		log_capture_count("port 0: source " PCAP_NAME " played 0/14 frames (port stopped first; it had no root pipe)"),
		1);
	stop();
}

/* FLOWDPA_PORT2_RX while port 2 never starts: flowdpa_traffic_wait refuses at once
 * (BAD_STATE), doca_flow_destroy says the source never played. */
static void test_source_port_never_started(void **state)
{
	(void)state;
	write_pcap();
	setenv("FLOWDPA_PORT2_RX", "pcap:" PCAP_NAME, 1);
	start(NULL);
	log_capture_clear();
	assert_int_equal(flowdpa_traffic_wait(0), DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("flowdpa_traffic_wait: FLOWDPA_PORT2_RX is set but port 2 is not started: its "
					   "source cannot play"),
			 1);
	log_capture_clear();
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	ports[0] = ports[1] = NULL;
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("port 2: source " PCAP_NAME " played 0/14 frames (port never started)"), 1);
	unsetenv("FLOWDPA_PORT2_RX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* The child of test_program_ended_first: a paced source, then exit without a stop. */
static int exit_while_playing(void)
{
	ft_log_init();
	start("gen:pkts=1000,rate=1");
	root_to_port1(true);
	for (int i = 0; i < 2000 && rx_pkts(0) == 0; i++)
		sleep_ms(1);
	return 0;
}

/* A program that ends while its source plays: the last line at exit says so. */
static void test_program_ended_first(void **state)
{
	(void)state;
	char cmd[1200], out[8192];
	snprintf(cmd, sizeof(cmd), "'%s' --exit-while-playing 2>&1", self);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	assert_int_equal(pclose(f), 0);
	if (strstr(out, "port 0: source gen played 1/1000 frames (program ended first)") == NULL)
		print_error("child output:\n%s", out);
	assert_non_null(strstr(out, "port 0: source gen played 1/1000 frames (program ended first)"));
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc > 1 && strcmp(argv[1], "--exit-while-playing") == 0)
		return exit_while_playing();
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_paced_per_frame),
		cmocka_unit_test(test_stop_interrupts_pacing),
		cmocka_unit_test(test_fwd_to_port_not_started),
		cmocka_unit_test(test_traffic_started_with_queued_ops),
		cmocka_unit_test(test_source_port_stopped_first),
		cmocka_unit_test(test_source_port_never_started),
		cmocka_unit_test(test_program_ended_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
