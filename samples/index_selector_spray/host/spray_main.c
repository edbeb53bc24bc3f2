/*
 * spray_main.c - host side of index_selector_spray (host Flow program + host DPA/provider
 * setup in one process).
 *
 * A HASH pipe on port 0 with the RANDOM map algorithm sprays every packet over its 8
 * entries (each forwards to port 1, each has its own counter) and consults an index
 * selector of 8 slots. The selector is exported to a DPA kernel, which sets ranges of
 * slots with doca_flow_external_resource_index_selector_modify_range. After each kernel
 * run the host sends a burst of identical packets and prints, per entry, the slot state
 * before the burst, the packets the entry forwarded and the state after; and the pipe's
 * miss counter (a packet whose chosen slot is treated as disabled goes to fwd_miss: this
 * pipe has no SELECT_ENABLED).
 *
 * Phases: A all ENABLE; B slots 4..7 DISABLE; C slots 4..5 SKIP_ONCE and 6..7 SKIP_TWICE
 * (written over B's DISABLE); D all DISABLE, then all ENABLE again.
 * Unmodified DOCA calls, plus flowdpa_port_inject / _capture_pop (flowdpa.h) to feed
 * packets without a traffic generator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_bitfield.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow.h>
#include <doca_flow_dpa_provider.h>
#include <doca_sync_event.h>
#include <flowdpa.h>

#include "sample_common.h"

extern struct doca_dpa_app *index_selector_spray_app;
extern doca_dpa_func_t spray_kernel;

#define NR_ENTRIES 8
#define BURST 800 /* packets per phase: each index is chosen ~100 times */


static const char *const state_name[] = {"ENABLE", "SKIP_ONCE", "SKIP_TWICE", "DISABLE"};

struct app {
	struct doca_flow_port *ports[2];
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct doca_flow_dpa_ctx *ctx;
	struct doca_flow_pipe *pipe;
	struct doca_flow_pipe_entry *entries[NR_ENTRIES];
	struct doca_flow_external_resource *sel;
	struct doca_flow_dpa_external_resource *dpa_sel;
	doca_flow_dpa_addr sel_addr;
	struct doca_sync_event *comp;
	uint64_t launches;
	doca_dpa_dev_uintptr_t out;
	uint64_t last_pkts[NR_ENTRIES], last_miss;
};

/* A 60-byte Ethernet/IPv4/UDP frame 10.0.0.1 -> 10.0.0.2, 7 -> 9. RANDOM ignores it. */
static uint32_t frame(uint8_t *f)
{
	memset(f, 0, 60);
	f[12] = 0x08;
	f[14] = 0x45;
	f[17] = 46;
	f[22] = 64;
	f[23] = 17;
	f[26] = 10, f[29] = 1;
	f[30] = 10, f[33] = 2;
	f[35] = 7;
	f[37] = 9;
	f[39] = 26;
	return 60;
}

static void flow_setup(struct app *a)
{
	a->dev = sample_flow_start(2, a->ports);

	/* The index selector: one slot per entry, all ENABLE. */
	struct doca_flow_external_resource_cfg *rc;
	TRY(doca_flow_external_resource_cfg_create(&rc, a->ports[0]));
	TRY(doca_flow_external_resource_cfg_set_type(rc, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR));
	TRY(doca_flow_external_resource_cfg_set_nr_indices(rc, NR_ENTRIES));
	TRY(doca_flow_external_resource_create(rc, &a->sel));
	doca_flow_external_resource_cfg_destroy(rc);

	/* The RANDOM HASH pipe bound to it; per-entry counters and a miss counter. */
	struct doca_flow_match mask;
	struct doca_flow_monitor mon;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *pc;
	memset(&mask, 0, sizeof(mask));
	memset(&mon, 0, sizeof(mon));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	mon.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED;
	TRY(doca_flow_pipe_cfg_create(&pc, a->ports[0]));
	TRY(doca_flow_pipe_cfg_set_name(pc, "SPRAY_PIPE"));
	TRY(doca_flow_pipe_cfg_set_type(pc, DOCA_FLOW_PIPE_HASH));
	TRY(doca_flow_pipe_cfg_set_is_root(pc, true));
	TRY(doca_flow_pipe_cfg_set_nr_entries(pc, NR_ENTRIES));
	TRY(doca_flow_pipe_cfg_set_match(pc, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_monitor(pc, &mon));
	TRY(doca_flow_pipe_cfg_set_miss_counter(pc, true));
	TRY(doca_flow_pipe_cfg_set_hash_map_algorithm(pc, DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_RANDOM));
	TRY(doca_flow_pipe_cfg_set_external_resource(pc, a->sel));
	TRY(doca_flow_pipe_create(pc, &fwd, &miss, &a->pipe));
	doca_flow_pipe_cfg_destroy(pc);
	for (uint32_t i = 0; i < NR_ENTRIES; i++)
		TRY(doca_flow_pipe_hash_add_entry(0, a->pipe, i, 0, NULL, NULL, NULL, 0, NULL, &a->entries[i]));
	TRY(doca_flow_entries_process(a->ports[0], 0, 10000, NR_ENTRIES));
}

static void dpa_setup(struct app *a)
{
	/* Index-selector modifies go through a RESOURCES_WRITE queue. */
	struct doca_flow_dpa_queue_cfg q = {DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 16, 1};

	a->ctx = sample_provider_start(a->dev, index_selector_spray_app, &a->dpa);
	TRY(doca_flow_dpa_queues_create(a->ctx, a->ports[0], &q, 1));
	TRY(doca_flow_dpa_external_resource_export(a->ctx, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, a->sel,
						   &a->dpa_sel));
	TRY(doca_flow_dpa_external_resource_get_device_addr(a->ctx, a->dpa_sel, &a->sel_addr));
	TRY(doca_dpa_mem_alloc(a->dpa, 3 * sizeof(uint32_t), &a->out));
	TRY(doca_sync_event_create(&a->comp));
	TRY(doca_sync_event_add_publisher_location_dpa(a->comp, a->dpa));
	TRY(doca_sync_event_add_subscriber_location_cpu(a->comp, a->dev));
	TRY(doca_sync_event_start(a->comp));
}

/* Run the kernel once: slots first..first+nr-1 := op. Exits unless every request succeeded. */
static void kernel_modify(struct app *a, uint32_t first, uint32_t nr, enum doca_flow_index_selector_op op)
{
	uint32_t res[3];

	TRY(doca_dpa_kernel_launch_update_add(a->dpa, NULL, 0, a->comp, 1, 1, &spray_kernel, a->sel_addr, first, nr,
					      (uint32_t)op, a->out));
	TRY(doca_sync_event_wait_gt(a->comp, a->launches++, UINT64_MAX));
	TRY(doca_dpa_d2h_memcpy(a->dpa, res, a->out, sizeof(res)));
	printf("  kernel: modify_range(first %u, nr %u, %s): %s, %u request(s) completed, %u failed\n", first, nr,
	       state_name[op], doca_error_get_name((doca_error_t)res[0]), res[1], res[2]);
	if (res[0] != DOCA_SUCCESS || res[2] != 0)
		exit(1);
}

static uint64_t entry_pkts(struct doca_flow_pipe_entry *e)
{
	struct doca_flow_resource_query q;
	memset(&q, 0, sizeof(q));
	TRY(doca_flow_resource_query_entry(e, &q));
	return q.counter.total_pkts;
}

static uint64_t miss_pkts(struct doca_flow_pipe *p)
{
	struct doca_flow_resource_query q;
	memset(&q, 0, sizeof(q));
	TRY(doca_flow_resource_query_pipe_miss(p, &q));
	return q.counter.total_pkts;
}

/* Send BURST packets and print the per-entry deltas with the slot states around them. */
static void burst(struct app *a, const char *phase)
{
	enum doca_flow_index_selector_op before[NR_ENTRIES], after;
	uint8_t f[60], buf[FLOWDPA_MAX_FRAME];
	uint32_t len, flen = frame(f), forwarded = 0;

	for (uint32_t i = 0; i < NR_ENTRIES; i++)
		TRY(doca_flow_external_resource_index_selector_get(a->sel, i, &before[i]));
	for (int k = 0; k < BURST; k++) {
		TRY(flowdpa_port_inject(0, f, flen));
		while (flowdpa_port_capture_pop(1, buf, sizeof(buf), &len) == DOCA_SUCCESS)
			forwarded++;
	}
	printf("  %-6s %-11s %7s   %s\n", "index", "before", "packets", "after");
	for (uint32_t i = 0; i < NR_ENTRIES; i++) {
		uint64_t p = entry_pkts(a->entries[i]);
		TRY(doca_flow_external_resource_index_selector_get(a->sel, i, &after));
		printf("  %-6u %-11s %7llu   %s\n", i, state_name[before[i]], (unsigned long long)(p - a->last_pkts[i]),
		       state_name[after]);
		a->last_pkts[i] = p;
	}
	uint64_t m = miss_pkts(a->pipe);
	printf("  phase %s: sent %d, forwarded %u, miss %llu\n\n", phase, BURST, forwarded,
	       (unsigned long long)(m - a->last_miss));
	a->last_miss = m;
}

static void teardown(struct app *a)
{
	TRY(doca_sync_event_destroy(a->comp));
	TRY(doca_dpa_mem_free(a->dpa, a->out));
	TRY(doca_flow_dpa_external_resource_destroy(a->ctx, a->dpa_sel));
	TRY(doca_flow_dpa_queues_destroy(a->ctx, a->ports[0]));
	TRY(doca_flow_dpa_destroy(a->ctx));
	TRY(doca_dpa_destroy(a->dpa));
	doca_flow_pipe_destroy(a->pipe);
	TRY(doca_flow_external_resource_destroy(a->sel));
	for (int i = 1; i >= 0; i--)
		TRY(doca_flow_port_stop(a->ports[i]));
	doca_flow_destroy();
	TRY(doca_dev_close(a->dev));
}

int main(void)
{
	struct app a;

	memset(&a, 0, sizeof(a));
	flow_setup(&a);
	dpa_setup(&a);
	printf("index_selector_spray: RANDOM hash pipe of %d entries, index selector of %d slots, %d packets per phase\n\n",
	       NR_ENTRIES, NR_ENTRIES, BURST);

	printf("phase A: every slot ENABLE (the initial state)\n");
	burst(&a, "A");

	printf("phase B: slots 4..7 DISABLE\n");
	kernel_modify(&a, 4, 4, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE);
	burst(&a, "B");

	printf("phase C: slots 4..5 SKIP_ONCE, 6..7 SKIP_TWICE\n");
	kernel_modify(&a, 4, 2, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE);
	kernel_modify(&a, 6, 2, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_TWICE);
	burst(&a, "C");

	printf("phase D: slots 0..7 DISABLE, then 0..7 ENABLE\n");
	kernel_modify(&a, 0, NR_ENTRIES, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE);
	kernel_modify(&a, 0, NR_ENTRIES, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE);
	burst(&a, "D");

	teardown(&a);
	printf("index_selector_spray: done\n");
	return 0;
}
