/* guard_main.c - host side of heavy_hitter_guard (the Flow program and the DPA + provider
 * setup). See ../README.md.
 *
 *   heavy_hitter_guard [--period PKTS] [--threshold PKTS] [--cooldown PERIODS]
 *                      [--entries N] [--out DIR] TRACE.pcap
 *
 * Port 0 receives the trace, port 1 transmits what the guard lets through. A HASH root
 * pipe on port 0 spreads the 5-tuple over N entries (all forwarding to port 1, miss:
 * drop) and counts each entry's packets into cell i of a memory resource. Both are
 * exported to the DPA; after every PKTS frames of the trace (a period) the host calls the
 * kernel (guard_period_rpc), which reads the counters and disables / re-enables entries.
 * The host feeds the trace itself, period by period, so that every run makes the same
 * decisions (a NIC at line rate would use a timer instead; the kernel is the same).
 * Outputs: a log on stdout, DIR/periods.csv (per period and flow: frames forwarded and
 * dropped) and DIR/events.csv (the kernel's decisions). */
#include <arpa/inet.h>
#include <errno.h>
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

#include "../device/guard_defs.h"
#include "pcap_file.h"
#include "sample_common.h"

extern struct doca_dpa_app *heavy_hitter_guard_app;
extern doca_dpa_func_t guard_period_rpc;


#define MAX_FLOWS 4096

struct flow {
	uint32_t src, dst; /* host order */
	uint16_t sport, dport;
	uint32_t entry;
	uint64_t fwd, drop;
	uint32_t disables, first_disable;
	uint32_t pfwd, pdrop; /* this period */
};

static struct flow flows[MAX_FLOWS];
static uint32_t nr_flows;

static const char *flow_name(const struct flow *f, char *buf, size_t n)
{
	struct in_addr s = {htonl(f->src)}, d = {htonl(f->dst)};
	char sb[16], db[16];
	inet_ntop(AF_INET, &s, sb, sizeof(sb));
	inet_ntop(AF_INET, &d, db, sizeof(db));
	snprintf(buf, n, "%s:%u>%s:%u", sb, f->sport, db, f->dport);
	return buf;
}

/* The flow of an Ethernet/IPv4/UDP frame (added on first sight); NULL for others. */
static struct flow *flow_of(const uint8_t *p, uint32_t len)
{
	if (len < 42 || p[12] != 0x08 || p[13] != 0x00 || (p[14] >> 4) != 4 || p[23] != 17)
		return NULL;
	uint32_t ihl = (uint32_t)(p[14] & 15) * 4;
	if (len < 14 + ihl + 8)
		return NULL;
	uint32_t src = (uint32_t)p[26] << 24 | (uint32_t)p[27] << 16 | (uint32_t)p[28] << 8 | p[29];
	uint32_t dst = (uint32_t)p[30] << 24 | (uint32_t)p[31] << 16 | (uint32_t)p[32] << 8 | p[33];
	const uint8_t *l4 = p + 14 + ihl;
	uint16_t sport = (uint16_t)(l4[0] << 8 | l4[1]), dport = (uint16_t)(l4[2] << 8 | l4[3]);
	for (uint32_t i = 0; i < nr_flows; i++)
		if (flows[i].src == src && flows[i].dst == dst && flows[i].sport == sport && flows[i].dport == dport)
			return &flows[i];
	if (nr_flows == MAX_FLOWS)
		return NULL;
	struct flow *f = &flows[nr_flows++];
	memset(f, 0, sizeof(*f));
	f->src = src;
	f->dst = dst;
	f->sport = sport;
	f->dport = dport;
	f->entry = UINT32_MAX;
	return f;
}

/* The 5-tuple match (or mask) of the HASH pipe. */
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

static int usage(void)
{
	fprintf(stderr, "usage: heavy_hitter_guard [--period PKTS] [--threshold PKTS] [--cooldown PERIODS] "
			"[--entries N] [--out DIR] TRACE.pcap\n");
	return 2;
}

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
	return f;
}

int main(int argc, char **argv)
{
	uint32_t period_pkts = 500, threshold = 50, cooldown = 3, nr_entries = GUARD_MAX_ENTRIES;
	const char *out_dir = ".", *trace_path = NULL;
	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "--period") == 0)
			period_pkts = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--threshold") == 0)
			threshold = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--cooldown") == 0)
			cooldown = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--entries") == 0)
			nr_entries = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(argv[i], "--out") == 0)
			out_dir = argv[++i];
		else if (argv[i][0] != '-' && trace_path == NULL)
			trace_path = argv[i];
		else
			return usage();
	}
	if (trace_path == NULL || period_pkts == 0 || cooldown == 0 || nr_entries == 0 ||
	    nr_entries > GUARD_MAX_ENTRIES)
		return usage();
	struct pcap_trace trace;
	if (pcap_trace_load(trace_path, &trace) != 0)
		return 1;

	/* DOCA Flow: two ports of the first device. */
	struct doca_flow_port *ports[2];
	struct doca_dev *dev = sample_flow_start(2, ports);

	/* DPA: the app image (built by dpacc from device/), the provider context and the
	 * queues the kernel posts to: GENERAL (entry disable/enable), RESOURCES_READ
	 * (counter reads; RESOURCES_WRITE too: a memory export needs both). */
	struct doca_dpa *dpa;
	struct doca_flow_dpa_ctx *ctx = sample_provider_start(dev, heavy_hitter_guard_app, &dpa);
	struct doca_flow_dpa_queue_cfg qs[] = {
		{DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, GUARD_QUEUE_SIZE, 1},
		{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 8, 1},
		{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, GUARD_MAX_ENTRIES / 8, 1},
	};
	TRY(doca_flow_dpa_queues_create(ctx, ports[0], qs, 3));

	/* The counters: one 64-bit cell per entry, exported to the DPA. */
	struct doca_flow_external_resource_cfg *rcfg;
	struct doca_flow_external_resource *mem;
	struct doca_flow_dpa_external_resource *dpa_mem;
	doca_flow_dpa_addr mem_addr, pipe_addr;
	TRY(doca_flow_external_resource_cfg_create(&rcfg, ports[0]));
	TRY(doca_flow_external_resource_cfg_set_type(rcfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY));
	TRY(doca_flow_external_resource_cfg_set_nr_cells(rcfg, nr_entries));
	TRY(doca_flow_external_resource_create(rcfg, &mem));
	doca_flow_external_resource_cfg_destroy(rcfg);
	TRY(doca_flow_dpa_external_resource_export(ctx, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, mem, &dpa_mem));
	TRY(doca_flow_dpa_external_resource_get_device_addr(ctx, dpa_mem, &mem_addr));

	/* The HASH pipe over the 5-tuple: entry i forwards to port 1 and counts into cell i. */
	struct doca_flow_match mask;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *pcfg;
	struct doca_flow_pipe *pipe;
	struct doca_flow_dpa_pipe *dpa_pipe;
	tuple(&mask, 0xffffffff, 0xffffffff, 0xffff, 0xffff);
	TRY(doca_flow_pipe_cfg_create(&pcfg, ports[0]));
	TRY(doca_flow_pipe_cfg_set_name(pcfg, "GUARD_HASH"));
	TRY(doca_flow_pipe_cfg_set_type(pcfg, DOCA_FLOW_PIPE_HASH));
	TRY(doca_flow_pipe_cfg_set_is_root(pcfg, true));
	TRY(doca_flow_pipe_cfg_set_nr_entries(pcfg, nr_entries));
	TRY(doca_flow_pipe_cfg_set_match(pcfg, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_external_resource(pcfg, mem));
	TRY(doca_flow_pipe_create(pcfg, &fwd, &miss, &pipe));
	doca_flow_pipe_cfg_destroy(pcfg);
	/* export_prepare comes before the entries (the DPA must see every entry it will
	 * change), export after they are processed. */
	TRY(doca_flow_dpa_pipe_export_prepare(ctx, pipe, nr_entries, &dpa_pipe));
	struct doca_flow_pipe_entry *e;
	for (uint32_t i = 0; i < nr_entries; i++)
		TRY(doca_flow_pipe_hash_add_entry(0, pipe, i, 0, NULL, NULL, NULL, 0, NULL, &e));
	TRY(doca_flow_entries_process(ports[0], 0, 1000000, nr_entries));
	TRY(doca_flow_dpa_pipe_export(ctx, dpa_pipe));
	TRY(doca_flow_dpa_pipe_get_device_addr(ctx, dpa_pipe, &pipe_addr));

	/* The guard's state in DPA memory, zeroed: every entry enabled, no history. */
	static struct guard_state st;
	doca_dpa_dev_uintptr_t st_dev;
	TRY(doca_dpa_mem_alloc(dpa, sizeof(st), &st_dev));
	TRY(doca_dpa_memset(dpa, st_dev, 0, sizeof(st)));
	TRY(flowdpa_port_capture_set_depth(1, 0)); /* we count with port statistics */

	/* The flows of the trace and the entry each one selects. */
	for (uint32_t i = 0; i < trace.nr; i++)
		flow_of(trace.data + trace.off[i], trace.len[i]);
	static uint32_t users[GUARD_MAX_ENTRIES];
	for (uint32_t i = 0; i < nr_flows; i++) {
		struct doca_flow_match m;
		uint32_t h = 0;
		tuple(&m, flows[i].src, flows[i].dst, flows[i].sport, flows[i].dport);
		TRY(doca_flow_pipe_calc_hash(pipe, &m, &h));
		flows[i].entry = h % nr_entries;
		users[flows[i].entry]++;
	}
	uint32_t shared = 0;
	for (uint32_t i = 0; i < nr_flows; i++)
		shared += users[flows[i].entry] > 1;
	uint32_t nr_periods = (trace.nr + period_pkts - 1) / period_pkts;
	printf("heavy_hitter_guard: %u frames of %s, %u flows over %u hash entries (%u flows share an entry), "
	       "%u periods of %u frames; threshold %u frames/period, cool-down %u periods\n",
	       trace.nr, trace_path, nr_flows, nr_entries, shared, nr_periods, period_pkts, threshold, cooldown);

	FILE *pcsv = open_out(out_dir, "periods.csv"), *ecsv = open_out(out_dir, "events.csv");
	if (pcsv == NULL || ecsv == NULL)
		return 1;
	fprintf(pcsv, "period,flow,entry,forwarded,dropped\n");
	fprintf(ecsv, "period,entry,event,rate,flows\n");
	char name[64];
	uint64_t other = 0;
	for (uint32_t p = 0; p < nr_periods; p++) {
		/* The period's frames, one at a time: a frame is forwarded when port 1's tx
		 * count moved. */
		for (uint32_t k = p * period_pkts; k < trace.nr && k < (p + 1) * period_pkts; k++) {
			struct flowdpa_port_stats before, after;
			const uint8_t *fr = trace.data + trace.off[k];
			struct flow *f = flow_of(fr, trace.len[k]);
			TRY(flowdpa_port_stats_get(1, &before));
			TRY(flowdpa_port_inject(0, fr, trace.len[k]));
			TRY(flowdpa_port_stats_get(1, &after));
			if (f == NULL)
				other++;
			else if (after.tx_pkts > before.tx_pkts)
				f->pfwd++;
			else
				f->pdrop++;
		}
		/* The end of the period: the kernel decides. */
		uint64_t ret = 0;
		TRY(doca_dpa_rpc(dpa, &guard_period_rpc, &ret, pipe_addr, mem_addr, st_dev, nr_entries, threshold,
				 cooldown, p));
		if (ret != DOCA_SUCCESS) {
			fprintf(stderr, "guard_period_rpc (period %u): %s\n", p, doca_error_get_name((doca_error_t)ret));
			return 1;
		}
		TRY(doca_dpa_d2h_memcpy(dpa, &st, st_dev, sizeof(st)));
		for (uint32_t i = 0; i < nr_flows; i++) {
			struct flow *f = &flows[i];
			if (f->pfwd || f->pdrop)
				fprintf(pcsv, "%u,%s,%u,%u,%u\n", p, flow_name(f, name, sizeof(name)), f->entry, f->pfwd,
					f->pdrop);
			f->fwd += f->pfwd;
			f->drop += f->pdrop;
			f->pfwd = f->pdrop = 0;
		}
		for (uint32_t v = 0; v < st.nr_events; v++) {
			const struct guard_event *ev = &st.ev[v];
			int dis = ev->kind == GUARD_EV_DISABLE;
			char who[512] = "";
			size_t w = 0;
			for (uint32_t i = 0; i < nr_flows; i++) {
				if (flows[i].entry != ev->entry)
					continue;
				if (dis && flows[i].disables++ == 0)
					flows[i].first_disable = p;
				w += (size_t)snprintf(who + w, sizeof(who) - w, "%s%s", w ? " " : "",
						      flow_name(&flows[i], name, sizeof(name)));
				if (w >= sizeof(who))
					break;
			}
			if (dis)
				printf("period %2u: entry %4u counted %3llu frames > %u: DISABLE until period %u   [%s]\n", p,
				       ev->entry, (unsigned long long)ev->rate, threshold, p + cooldown, who);
			else
				printf("period %2u: entry %4u cool-down over: ENABLE   [%s]\n", p, ev->entry, who);
			fprintf(ecsv, "%u,%u,%s,%llu,%s\n", p, ev->entry, dis ? "disable" : "enable",
				(unsigned long long)ev->rate, who);
		}
	}
	fclose(pcsv);
	fclose(ecsv);

	printf("flows disabled by the guard:\n");
	for (uint32_t i = 0; i < nr_flows; i++)
		if (flows[i].disables)
			printf("  DISABLED %s entry %u: first at the end of period %u, %u times; forwarded %llu dropped %llu\n",
			       flow_name(&flows[i], name, sizeof(name)), flows[i].entry, flows[i].first_disable,
			       flows[i].disables, (unsigned long long)flows[i].fwd, (unsigned long long)flows[i].drop);
	uint64_t tot_fwd = 0, tot_drop = 0;
	for (uint32_t i = 0; i < nr_flows; i++) {
		tot_fwd += flows[i].fwd;
		tot_drop += flows[i].drop;
	}
	printf("frames: forwarded %llu dropped %llu (not IPv4/UDP: %llu)\n", (unsigned long long)tot_fwd,
	       (unsigned long long)tot_drop, (unsigned long long)other);
	printf("DPA requests: counter reads %llu (completed %llu, failed %llu), entry disable/enable %llu "
	       "(completed %llu, failed %llu); disables %llu enables %llu\n",
	       (unsigned long long)st.read_requests, (unsigned long long)st.read_completions,
	       (unsigned long long)st.read_failed, (unsigned long long)st.entry_requests,
	       (unsigned long long)st.entry_completions, (unsigned long long)st.entry_failed,
	       (unsigned long long)st.disables, (unsigned long long)st.enables);
	printf("per-period data: %s/periods.csv, decisions: %s/events.csv\n", out_dir, out_dir);

	/* Teardown, in reverse. */
	TRY(doca_dpa_mem_free(dpa, st_dev));
	TRY(doca_flow_dpa_pipe_destroy(ctx, dpa_pipe));
	TRY(doca_flow_dpa_external_resource_destroy(ctx, dpa_mem));
	TRY(doca_flow_dpa_queues_destroy(ctx, ports[0]));
	TRY(doca_flow_dpa_destroy(ctx));
	TRY(doca_dpa_destroy(dpa));
	doca_flow_pipe_destroy(pipe);
	TRY(doca_flow_external_resource_destroy(mem));
	for (int i = 1; i >= 0; i--)
		TRY(doca_flow_port_stop(ports[i]));
	doca_flow_destroy();
	TRY(doca_dev_close(dev));
	pcap_trace_free(&trace);
	return st.read_failed || st.entry_failed ? 1 : 0;
}
