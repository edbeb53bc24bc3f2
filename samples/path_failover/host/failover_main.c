/* failover_main.c - host side of path_failover. See ../README.md.
 *
 *   path_failover [--fail-path P] [--fail-after FRAMES] [--check-every FRAMES] [--out DIR] TRACE.pcap
 *
 * A HASH root pipe on port 0 spreads the 5-tuple over 64 entries; each entry rewrites the
 * UDP source port to its path's port (path p: 10000 + p; entry i starts on path i % 4) and
 * forwards to port 1, like the source-port entropy of RoCE/VXLAN picks an ECMP path. The
 * host owns a memory resource of 4 "health" cells; after FRAMES frames it declares path P
 * failed by setting cell P to 1. The DPA kernel runs every --check-every frames
 * (failover_check_rpc), reads the cells and replaces the path selector of every entry on a
 * failed path (doca_flow_pipe_hash_replace_index). Outputs: a log on stdout with the frame
 * index of the switch-over, DIR/flows.csv (each flow's entry and source port before and
 * after the switch-over). Capture port 1 with FLOWDPA_PORT1_TX=pcap:FILE to see it. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_bitfield.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow.h>
#include <doca_flow_dpa_provider.h>
#include <doca_flow_external_resource.h>
#include <flowdpa.h>

#include "../device/failover_defs.h"
#include "pcap_file.h"
#include "sample_common.h"

extern struct doca_dpa_app *path_failover_app;
extern doca_dpa_func_t failover_check_rpc;


#define MAX_FLOWS 256

struct flow {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint32_t entry, path_before;
};
static struct flow flows[MAX_FLOWS];
static uint32_t nr_flows;

static void tuple(struct doca_flow_match *m, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
	memset(m, 0, sizeof(*m));
	m->outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m->outer.ip4.src_ip = DOCA_HTOBE32(src);
	m->outer.ip4.dst_ip = DOCA_HTOBE32(dst);
	m->outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m->outer.udp.l4_port.src_port = DOCA_HTOBE16(sport);
	m->outer.udp.l4_port.dst_port = DOCA_HTOBE16(dport);
}

static void add_flow(const uint8_t *p, uint32_t len)
{
	if (len < 42 || p[12] != 0x08 || p[13] != 0x00 || p[23] != 17 || nr_flows == MAX_FLOWS)
		return;
	const uint8_t *l4 = p + 14 + (p[14] & 15) * 4;
	struct flow f = {
		.src = (uint32_t)p[26] << 24 | (uint32_t)p[27] << 16 | (uint32_t)p[28] << 8 | p[29],
		.dst = (uint32_t)p[30] << 24 | (uint32_t)p[31] << 16 | (uint32_t)p[32] << 8 | p[33],
		.sport = (uint16_t)(l4[0] << 8 | l4[1]),
		.dport = (uint16_t)(l4[2] << 8 | l4[3]),
	};
	for (uint32_t i = 0; i < nr_flows; i++)
		if (flows[i].src == f.src && flows[i].dst == f.dst && flows[i].sport == f.sport && flows[i].dport == f.dport)
			return;
	flows[nr_flows++] = f;
}

int main(int argc, char **argv)
{
	uint32_t fail_path = 2, fail_after = 500, check_every = 64;
	const char *out_dir = ".", *trace_path = NULL;
	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "--fail-path") == 0)
			fail_path = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--fail-after") == 0)
			fail_after = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--check-every") == 0)
			check_every = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--out") == 0)
			out_dir = argv[++i];
		else if (argv[i][0] != '-' && trace_path == NULL)
			trace_path = argv[i];
		else
			trace_path = NULL, i = argc;
	}
	if (trace_path == NULL || fail_path >= FO_NR_PATHS || check_every == 0) {
		fprintf(stderr, "usage: path_failover [--fail-path 0..3] [--fail-after FRAMES] [--check-every FRAMES] "
				"[--out DIR] TRACE.pcap\n");
		return 2;
	}
	struct pcap_trace trace;
	if (pcap_trace_load(trace_path, &trace) != 0)
		return 1;
	for (uint32_t i = 0; i < trace.nr; i++)
		add_flow(trace.data + trace.off[i], trace.len[i]);

	struct doca_flow_port *ports[2];
	struct doca_dev *dev = sample_flow_start(2, ports);

	struct doca_dpa *dpa;
	struct doca_flow_dpa_ctx *ctx = sample_provider_start(dev, path_failover_app, &dpa);
	struct doca_flow_dpa_queue_cfg qs[] = {
		{DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, FO_NR_ENTRIES, 1},
		{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 4, 1},
		{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 4, 1},
	};
	TRY(doca_flow_dpa_queues_create(ctx, ports[0], qs, 3));

	/* The health cells: written by the host, read by the kernel. Not bound to a pipe. */
	struct doca_flow_external_resource_cfg *rcfg;
	struct doca_flow_external_resource *health;
	struct doca_flow_dpa_external_resource *dpa_health;
	doca_flow_dpa_addr health_addr, pipe_addr;
	TRY(doca_flow_external_resource_cfg_create(&rcfg, ports[0]));
	TRY(doca_flow_external_resource_cfg_set_type(rcfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY));
	TRY(doca_flow_external_resource_cfg_set_nr_cells(rcfg, FO_NR_PATHS));
	TRY(doca_flow_external_resource_create(rcfg, &health));
	doca_flow_external_resource_cfg_destroy(rcfg);
	TRY(doca_flow_dpa_external_resource_export(ctx, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, health, &dpa_health));
	TRY(doca_flow_dpa_external_resource_get_device_addr(ctx, dpa_health, &health_addr));

	/* The HASH pipe: one per-entry field in the action template (the UDP source port),
	 * which makes it the entries' path selector. */
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *pcfg;
	struct doca_flow_pipe *pipe;
	struct doca_flow_dpa_pipe *dpa_pipe;
	tuple(&mask, 0xffffffff, 0xffffffff, 0xffff, 0xffff);
	memset(&act, 0, sizeof(act));
	act.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	act.outer.udp.l4_port.src_port = 0xffff;
	TRY(doca_flow_pipe_cfg_create(&pcfg, ports[0]));
	TRY(doca_flow_pipe_cfg_set_name(pcfg, "PATHS"));
	TRY(doca_flow_pipe_cfg_set_type(pcfg, DOCA_FLOW_PIPE_HASH));
	TRY(doca_flow_pipe_cfg_set_is_root(pcfg, true));
	TRY(doca_flow_pipe_cfg_set_nr_entries(pcfg, FO_NR_ENTRIES));
	TRY(doca_flow_pipe_cfg_set_match(pcfg, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_actions(pcfg, acts, NULL, NULL, 1));
	TRY(doca_flow_pipe_create(pcfg, &fwd, &miss, &pipe));
	doca_flow_pipe_cfg_destroy(pcfg);
	TRY(doca_flow_dpa_pipe_export_prepare(ctx, pipe, FO_NR_ENTRIES, &dpa_pipe));
	static struct fo_state st;
	for (uint32_t i = 0; i < FO_NR_ENTRIES; i++) {
		struct doca_flow_pipe_entry *e;
		st.path[i] = i % FO_NR_PATHS;
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16(FO_PATH_PORT(st.path[i]));
		TRY(doca_flow_pipe_hash_add_entry(0, pipe, i, 0, &act, NULL, NULL, 0, NULL, &e));
	}
	TRY(doca_flow_entries_process(ports[0], 0, 1000000, FO_NR_ENTRIES));
	TRY(doca_flow_dpa_pipe_export(ctx, dpa_pipe));
	TRY(doca_flow_dpa_pipe_get_device_addr(ctx, dpa_pipe, &pipe_addr));
	doca_dpa_dev_uintptr_t st_dev;
	TRY(doca_dpa_mem_alloc(dpa, sizeof(st), &st_dev));
	TRY(doca_dpa_h2d_memcpy(dpa, st_dev, &st, sizeof(st)));
	TRY(flowdpa_port_capture_set_depth(1, 0));

	for (uint32_t i = 0; i < nr_flows; i++) {
		struct doca_flow_match m;
		uint32_t h = 0;
		tuple(&m, flows[i].src, flows[i].dst, flows[i].sport, flows[i].dport);
		TRY(doca_flow_pipe_calc_hash(pipe, &m, &h));
		flows[i].entry = h % FO_NR_ENTRIES;
		flows[i].path_before = st.path[flows[i].entry];
	}
	printf("path_failover: %u frames of %s, %u flows over %u entries on %u paths (UDP source ports %u..%u); "
	       "path %u fails after frame %u; the kernel checks every %u frames\n",
	       trace.nr, trace_path, nr_flows, FO_NR_ENTRIES, FO_NR_PATHS, FO_PATH_PORT(0),
	       FO_PATH_PORT(FO_NR_PATHS - 1), fail_path, fail_after, check_every);

	int64_t switch_at = -1;
	int failed_declared = 0;
	for (uint32_t k = 0; k < trace.nr; k++) {
		if (k == fail_after) {
			TRY(doca_flow_external_resource_memory_set(health, fail_path, 1));
			failed_declared = 1;
			printf("frame %u: the host declares path %u (source port %u) failed (health cell %u = 1)\n", k,
			       fail_path, FO_PATH_PORT(fail_path), fail_path);
		}
		if (k % check_every == 0) {
			uint64_t ret = 0;
			TRY(doca_dpa_rpc(dpa, &failover_check_rpc, &ret, pipe_addr, health_addr, st_dev));
			if (ret != DOCA_SUCCESS) {
				fprintf(stderr, "failover_check_rpc: %s\n", doca_error_get_name((doca_error_t)ret));
				return 1;
			}
			TRY(doca_dpa_d2h_memcpy(dpa, &st, st_dev, sizeof(st)));
			if (st.moved) {
				printf("frame %u: the kernel moved %u entries off path %u; from this frame on they leave "
				       "with their new source port\n", k, st.moved, fail_path);
				if (switch_at < 0)
					switch_at = k;
			}
		}
		TRY(flowdpa_port_inject(0, trace.data + trace.off[k], trace.len[k]));
	}
	struct flowdpa_port_stats ps;
	TRY(flowdpa_port_stats_get(1, &ps));

	char path[4096];
	snprintf(path, sizeof(path), "%s/flows.csv", out_dir);
	FILE *fc = fopen(path, "w");
	if (fc == NULL) {
		perror(path);
		return 1;
	}
	fprintf(fc, "src,sport,dst,dport,entry,port_before,port_after\n");
	uint32_t moved_flows = 0;
	for (uint32_t i = 0; i < nr_flows; i++) {
		struct in_addr s = {htonl(flows[i].src)}, d = {htonl(flows[i].dst)};
		char sb[16], db[16];
		inet_ntop(AF_INET, &s, sb, sizeof(sb));
		inet_ntop(AF_INET, &d, db, sizeof(db));
		uint32_t after = st.path[flows[i].entry];
		moved_flows += after != flows[i].path_before;
		fprintf(fc, "%s,%u,%s,%u,%u,%u,%u\n", sb, flows[i].sport, db, flows[i].dport, flows[i].entry,
			FO_PATH_PORT(flows[i].path_before), FO_PATH_PORT(after));
	}
	fclose(fc);
	printf("switch-over at frame %lld (%s); %u of %u flows changed source port; %llu frames left port 1\n",
	       (long long)switch_at, failed_declared ? "path failure declared" : "no failure declared", moved_flows,
	       nr_flows, (unsigned long long)ps.tx_pkts);
	printf("DPA requests: health reads %llu (completed %llu), path replaces %llu (completed %llu), failed %llu\n",
	       (unsigned long long)st.read_requests, (unsigned long long)st.read_completions,
	       (unsigned long long)st.replace_requests, (unsigned long long)st.replace_completions,
	       (unsigned long long)st.failed);
	printf("flows: %s\n", path);

	TRY(doca_dpa_mem_free(dpa, st_dev));
	TRY(doca_flow_dpa_pipe_destroy(ctx, dpa_pipe));
	TRY(doca_flow_dpa_external_resource_destroy(ctx, dpa_health));
	TRY(doca_flow_dpa_queues_destroy(ctx, ports[0]));
	TRY(doca_flow_dpa_destroy(ctx));
	TRY(doca_dpa_destroy(dpa));
	doca_flow_pipe_destroy(pipe);
	TRY(doca_flow_external_resource_destroy(health));
	for (int i = 1; i >= 0; i--)
		TRY(doca_flow_port_stop(ports[i]));
	doca_flow_destroy();
	TRY(doca_dev_close(dev));
	pcap_trace_free(&trace);
	return st.failed ? 1 : 0;
}
