/*
 * fuzz_pcap.c - fuzzes the pcap and pcapng traffic source (FLOWDPA_PORTn_RX=pcap:FILE,
 * src/nic/traffic.c): the input is written to the file port 0 plays, then the port is
 * started (which loads the file), given a root pipe that drops everything, and played
 * to its end (flowdpa_traffic_wait).
 *
 * Checks, against libpcap reading the same file in the harness: a file libpcap cannot
 * open, that is not Ethernet (EN10MB) or ends in a read error makes doca_flow_port_start
 * fail with IO_FAILED; any other starts, and the port receives exactly the frames of 14
 * to FLOWDPA_MAX_FRAME captured bytes (rx_pkts, rx_bytes) and drops them all; the
 * source finishes within 10 s; the port stops cleanly.
 *
 * Port 0 plays paced at 1,000,000 frames/s (",rate=": pacing per frame, exact counts, a
 * fuzz file takes well under a millisecond). A file of two frames or more whose snaplen
 * is 1 modulo 16 is also played on port 1 at 1 frame/s: its first frame goes at once,
 * then doca_flow_port_stop must interrupt the pacing sleep (under 500 ms; issue 15: it
 * slept on to the next frame's due time, or hung at a low rate).
 */
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <core/core.h>
#include <doca_flow.h>
#include <flowdpa.h>

#include "fuzz_check.h"

static char dir[] = "/tmp/flowdpa-fuzz-pcap-XXXXXX";
static char pcap_path[sizeof(dir) + 16];
static char slow_rx[sizeof(pcap_path) + 32]; /* port 1's source, configured only for a slow run */

/* A stopped port stays allocated until doca_flow_destroy: start over now and then. */
#define RUNS_PER_INIT 256

static void flow_init(void)
{
	struct doca_flow_cfg *cfg;

	FUZZ_EXPECT(doca_flow_cfg_create(&cfg), DOCA_SUCCESS, "doca_flow_cfg_create");
	FUZZ_EXPECT(doca_flow_cfg_set_mode_args(cfg, "vnf,hws"), DOCA_SUCCESS, "set_mode_args");
	FUZZ_EXPECT(doca_flow_init(cfg), DOCA_SUCCESS, "doca_flow_init");
	doca_flow_cfg_destroy(cfg);
}

static void cleanup(void)
{
	doca_flow_destroy();
	unlink(pcap_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char rx[sizeof(pcap_path) + 32];

	(void)argc;
	(void)argv;
	fuzz_quiet_logs();
	FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(pcap_path, sizeof(pcap_path), "%s/in.pcap", dir);
	snprintf(rx, sizeof(rx), "pcap:%s,rate=1000000", pcap_path);
	setenv("FLOWDPA_PORT0_RX", rx, 1);
	snprintf(slow_rx, sizeof(slow_rx), "pcap:%s,rate=1", pcap_path);
	FUZZ_EXPECT(core_config_reload(), DOCA_SUCCESS, "core_config_reload");
	flow_init();
	atexit(cleanup);
	return 0;
}

struct expect {
	bool loads, slow; /* slow: also played on port 1 at 1 frame/s, stopped early */
	uint64_t frames, bytes;
};

/* What the source must play, as libpcap reads the file. */
static struct expect reference(void)
{
	char err[PCAP_ERRBUF_SIZE];
	struct expect x = {0};
	pcap_t *pc = pcap_open_offline(pcap_path, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc;

	if (pc == NULL)
		return x;
	if (pcap_datalink(pc) == DLT_EN10MB) {
		while ((rc = pcap_next_ex(pc, &h, &d)) == 1) {
			if (h->caplen >= 14 && h->caplen <= FLOWDPA_MAX_FRAME) {
				x.frames++;
				x.bytes += h->caplen;
			}
		}
		x.loads = rc != -1;
		x.slow = x.loads && x.frames >= 2 && pcap_snapshot(pc) % 16 == 1;
	}
	pcap_close(pc);
	return x;
}

static struct doca_flow_pipe *drop_all_root(struct doca_flow_port *port)
{
	struct doca_flow_match m;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;

	memset(&m, 0, sizeof(m));
	FUZZ_EXPECT(doca_flow_pipe_cfg_create(&cfg, port), DOCA_SUCCESS, "pipe_cfg_create");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_name(cfg, "drop_all"), DOCA_SUCCESS, "set_name");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_type(cfg, DOCA_FLOW_PIPE_BASIC), DOCA_SUCCESS, "set_type");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_is_root(cfg, true), DOCA_SUCCESS, "set_is_root");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS, "set_match");
	FUZZ_EXPECT(doca_flow_pipe_create(cfg, &drop, &drop, &p), DOCA_SUCCESS, "pipe_create");
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static doca_error_t port_start(uint16_t id, struct doca_flow_port **port)
{
	struct doca_flow_port_cfg *pc;

	FUZZ_EXPECT(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS, "port_cfg_create");
	FUZZ_EXPECT(doca_flow_port_cfg_set_port_id(pc, id), DOCA_SUCCESS, "set_port_id");
	FUZZ_EXPECT(doca_flow_port_cfg_set_dev(pc, NULL), DOCA_SUCCESS, "set_dev");
	doca_error_t rc = doca_flow_port_start(pc, port);
	doca_flow_port_cfg_destroy(pc);
	return rc;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* DOCA Flow again, with (or without) port 1's source: flowdpa_traffic_wait refuses a
 * configured source whose port never started, so it is there only for a slow run. */
static void flow_restart(bool slow_source)
{
	doca_flow_destroy();
	if (slow_source)
		setenv("FLOWDPA_PORT1_RX", slow_rx, 1);
	else
		unsetenv("FLOWDPA_PORT1_RX");
	FUZZ_EXPECT(core_config_reload(), DOCA_SUCCESS, "core_config_reload");
	flow_init();
}

/* Port 1 at 1 frame/s: its first frame (sent at once) arrives, then the stop cuts the wait. */
static void play_slow_and_stop(const struct expect *x)
{
	struct doca_flow_port *port = NULL;
	struct flowdpa_port_stats st;
	uint64_t t0;

	flow_restart(true);
	FUZZ_EXPECT(port_start(1, &port), DOCA_SUCCESS, "doca_flow_port_start of port 1");
	FUZZ_CHECK(drop_all_root(port) != NULL, "no root pipe on port 1");
	FUZZ_EXPECT(doca_flow_entries_process(port, 0, 0, 0), DOCA_SUCCESS, "entries_process on port 1");
	t0 = now_ms();
	do {
		FUZZ_EXPECT(flowdpa_port_stats_get(1, &st), DOCA_SUCCESS, "port_stats_get(1)");
		FUZZ_CHECK(now_ms() - t0 < 5000, "port 1 received no frame within 5 s at rate=1");
		if (st.rx_pkts == 0)
			usleep(200);
	} while (st.rx_pkts == 0);
	t0 = now_ms();
	FUZZ_EXPECT(doca_flow_port_stop(port), DOCA_SUCCESS, "doca_flow_port_stop of the paced port 1");
	FUZZ_CHECK(now_ms() - t0 < 500, "doca_flow_port_stop took %llu ms: it waited for the pacing",
		   (unsigned long long)(now_ms() - t0));
	FUZZ_EXPECT(flowdpa_port_stats_get(1, &st), DOCA_SUCCESS, "port_stats_get(1)");
	FUZZ_CHECK(st.rx_pkts >= 1 && st.rx_pkts <= x->frames && st.drops == st.rx_pkts,
		   "paced port 1: rx %llu drops %llu of %llu frames", (unsigned long long)st.rx_pkts,
		   (unsigned long long)st.drops, (unsigned long long)x->frames);
	flow_restart(false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(pcap_path, "wb");
	struct doca_flow_port *port = NULL;
	struct flowdpa_port_stats st;
	static unsigned int runs;

	if (++runs % RUNS_PER_INIT == 0) {
		doca_flow_destroy();
		flow_init();
	}
	FUZZ_CHECK(f != NULL && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write %s", pcap_path);
	struct expect x = reference();

	doca_error_t rc = port_start(0, &port);
	if (!x.loads) {
		FUZZ_EXPECT(rc, DOCA_ERROR_IO_FAILED, "doca_flow_port_start on a file libpcap refuses");
		return 0;
	}
	FUZZ_EXPECT(rc, DOCA_SUCCESS, "doca_flow_port_start on a file libpcap reads");

	FUZZ_CHECK(drop_all_root(port) != NULL, "no root pipe");
	/* Nothing pending on the port with its root pipe present: the source starts. */
	FUZZ_EXPECT(doca_flow_entries_process(port, 0, 0, 0), DOCA_SUCCESS, "entries_process");
	FUZZ_EXPECT(flowdpa_traffic_wait(10000), DOCA_SUCCESS, "flowdpa_traffic_wait");
	FUZZ_EXPECT(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS, "port_stats_get");
	FUZZ_CHECK(st.rx_pkts == x.frames && st.rx_bytes == x.bytes && st.rx_errors == 0,
		   "port received %llu frames / %llu bytes (%llu errors), the file has %llu / %llu",
		   (unsigned long long)st.rx_pkts, (unsigned long long)st.rx_bytes, (unsigned long long)st.rx_errors,
		   (unsigned long long)x.frames, (unsigned long long)x.bytes);
	FUZZ_CHECK(st.drops == x.frames && st.tx_pkts == 0 && st.host_pkts == 0,
		   "drops %llu tx %llu host %llu for %llu frames", (unsigned long long)st.drops,
		   (unsigned long long)st.tx_pkts, (unsigned long long)st.host_pkts, (unsigned long long)x.frames);
	FUZZ_EXPECT(doca_flow_port_stop(port), DOCA_SUCCESS, "doca_flow_port_stop");
	if (x.slow)
		play_slow_and_stop(&x);
	return 0;
}
