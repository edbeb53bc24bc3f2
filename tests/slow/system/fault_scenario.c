/*
 * fault_scenario.c - the program the fault sweep (fault_sweep.py) runs once per injected
 * fault: one call of every public call family of the four libraries, as a real DPA
 * Flow program makes them (log backends and a source; devices; DOCA Flow init, ports,
 * a shared counter, external resources, CONTROL -> BASIC / HASH pipes, entries,
 * processing, traffic, queries; a DPA context, device memory, a sync event, a kernel
 * launch, a DPA thread and its notification; the provider's context, queues and
 * exports, and every DPA-side provider call from an RPC and from a kernel; a capture
 * ring resized, and device memory fragmented), each call's return checked.
 *
 * The first call that fails ends the scenario (FAULT_SCN_RETRY=1: it is made once more,
 * which must succeed now that the fault has fired, and the scenario goes on: proof the
 * failed call left its objects intact); then everything that exists is torn down in
 * reverse order, each teardown call checked. stdout says what happened, one line each:
 *   STEP <allocations so far> <call>       (FAULT_SCN_STEPS=1: after every successful call,
 *                                          and "main" for what was allocated before main)
 *   FAILED <call> <DOCA error name>        the failing call and its code
 *   RETRIED <call>                         the retry succeeded
 *   TEARDOWN_FAILED <call> <error name>    a teardown call failed (exit 1)
 *   BROKEN <what>                          a check that is not a call's return (exit 1)
 *   ALLOCS <count> FIRED <0|1>             core_alloc_count(), core_alloc_fault_fired()
 * Exit: 0 when every step succeeded (possibly after a retry), 3 when a step failed and
 * teardown completed, 1 when teardown or a check failed. The sweep judges the code and
 * the log; this program only reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_bitfield.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow.h>
#include <doca_flow_dpa_provider.h>
#include <doca_log.h>
#include <doca_sync_event.h>
#include <flowdpa.h>

#include "core/core.h"
#include "frames.h"

DOCA_LOG_REGISTER(FAULT_SCENARIO);

extern struct doca_dpa_app *system_test_app;
extern doca_dpa_func_t system_provider_rpc, system_provider_kernel, system_notify_kernel, system_thread_kernel;

#define NR_HASH 8
#define NR_SEL 8
#define NR_CELLS NR_HASH
/* Device allocations freed alternately at teardown: more free fragments than the
 * allocator's first 64 records, so that a free would need records of its own. */
#define NR_FRAGS 136

struct scn {
	struct doca_log_backend *sdk_log, *app_log;
	int source;
	bool source_registered;
	struct doca_devinfo **devs;
	uint32_t nr_devs;
	struct doca_dev *dev;
	bool flow_up;
	struct doca_flow_port *ports[2];
	uint32_t shared_id;
	struct doca_flow_external_resource *sel, *mem;
	struct doca_flow_pipe *basic, *hash, *control;
	struct doca_flow_pipe_entry *basic_entry, *hash_entries[NR_HASH], *control_entries[2];
	struct doca_dpa *dpa;
	struct flexio_process *proc;
	doca_dpa_dev_uintptr_t buf, frags[NR_FRAGS];
	struct doca_sync_event *done_ev;
	doca_dpa_dev_sync_event_t done_h;
	struct doca_dpa_thread *thread;
	struct doca_dpa_notification_completion *notif;
	doca_dpa_dev_notification_completion_t notif_h;
	struct doca_flow_dpa_ctx *ctx;
	bool queues;
	struct doca_flow_dpa_pipe *dpa_pipe;
	struct doca_flow_dpa_external_resource *dpa_sel, *dpa_mem;
	doca_flow_dpa_addr pipe_addr, sel_addr, mem_addr;
};

static bool trace_steps, retry_failed;
static const char *failed_call;
static int entry_errors; /* entry completions with status ERROR since the last check */
static bool teardown_ok = true;

static void entry_cb(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue, enum doca_flow_entry_status status,
		     enum doca_flow_entry_op op, void *user_ctx)
{
	(void)entry;
	(void)pipe_queue;
	(void)op;
	(void)user_ctx;
	if (status != DOCA_FLOW_ENTRY_STATUS_SUCCESS)
		entry_errors++;
}

/* A call's result: true to go on. A failure is reported once; with FAULT_SCN_RETRY the
 * caller makes the call again (the second result decides). */
static bool step(const char *call, doca_error_t rc)
{
	if (rc == DOCA_SUCCESS) {
		if (failed_call != NULL && strcmp(failed_call, call) == 0)
			printf("RETRIED %s\n", call);
		if (trace_steps)
			printf("STEP %llu %s\n", (unsigned long long)core_alloc_count(), call);
		return true;
	}
	if (failed_call == NULL) {
		failed_call = call;
		printf("FAILED %s %s\n", call, doca_error_get_name(rc));
	} else {
		printf("BROKEN %s failed again: %s\n", call, doca_error_get_name(rc));
	}
	return false;
}

/* Make the call; on a first failure with FAULT_SCN_RETRY, once more. */
#define STEP(call)                                                                              \
	do {                                                                                    \
		if (!step(#call, (call)) && !(retry_failed && failed_call != NULL &&            \
					      strcmp(failed_call, #call) == 0 && step(#call, (call)))) \
			return false;                                                           \
	} while (0)

/* An entry operation's completion: its status counts as the call's result (a failed
 * completion ends the scenario even with FAULT_SCN_RETRY: the entry would be re-added). */
#define PROCESS(port, n)                                                                           \
	do {                                                                                       \
		entry_errors = 0;                                                                  \
		STEP(doca_flow_entries_process((port), 0, 100000, (n)));                           \
		if (entry_errors != 0) {                                                           \
			printf("FAILED entry_completion ENTRY_STATUS_ERROR\n");                    \
			return false;                                                              \
		}                                                                                  \
	} while (0)

#define CHECK(cond)                                                \
	do {                                                       \
		if (!(cond)) {                                     \
			printf("BROKEN %s (line %d)\n", #cond, __LINE__); \
			teardown_ok = false;                       \
			return false;                              \
		}                                                  \
	} while (0)

/* Teardown calls: every one must succeed. */
static void down(const char *call, doca_error_t rc)
{
	if (rc != DOCA_SUCCESS) {
		printf("TEARDOWN_FAILED %s %s\n", call, doca_error_get_name(rc));
		teardown_ok = false;
	}
}
#define DOWN(call) down(#call, (call))

/* doca_common: log backends, a source, devices. */
static bool common_up(struct scn *s)
{
	struct doca_devinfo *info;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];

	STEP(doca_log_backend_create_with_file_sdk(stderr, &s->sdk_log));
	STEP(doca_log_backend_set_sdk_level(s->sdk_log, DOCA_LOG_LEVEL_WARNING));
	STEP(doca_log_backend_create_standard());
	STEP(doca_log_backend_create_with_file(stdout, &s->app_log));
	STEP(doca_log_backend_set_level_lower_limit(s->app_log, DOCA_LOG_LEVEL_CRIT));
	STEP(doca_log_register_source("FAULT_SCENARIO_2", &s->source));
	s->source_registered = true;
	STEP(doca_devinfo_create_list(&s->devs, &s->nr_devs));
	CHECK(s->nr_devs >= 1);
	info = s->devs[0];
	STEP(doca_devinfo_get_pci_addr_str(info, pci));
	STEP(doca_devinfo_get_mac_addr(info, mac, sizeof(mac)));
	STEP(doca_dpa_cap_is_supported(info));
	STEP(doca_dev_open(info, &s->dev));
	DOWN(doca_devinfo_destroy_list(s->devs));
	s->devs = NULL;
	return true;
}

/* doca_dpa: context, device memory, a sync event, a launch, a thread and its notification. */
static bool dpa_up(struct scn *s)
{
	unsigned int eus = 0;
	uint64_t v = 0;

	STEP(doca_dpa_create(s->dev, &s->dpa));
	STEP(doca_dpa_set_app(s->dpa, system_test_app));
	STEP(doca_dpa_start(s->dpa));
	STEP(doca_dpa_get_total_num_eus_available(s->dpa, &eus));
	STEP(doca_dpa_get_flexio_process(s->dpa, &s->proc));
	STEP(doca_dpa_mem_alloc(s->dpa, 64, &s->buf)); /* the provider calls' results, 4 cells */
	STEP(doca_dpa_memset(s->dpa, s->buf, 0, 64));
	for (int i = 0; i < NR_FRAGS; i++)
		STEP(doca_dpa_mem_alloc(s->dpa, 64, &s->frags[i]));
	STEP(doca_sync_event_create(&s->done_ev));
	STEP(doca_sync_event_add_publisher_location_dpa(s->done_ev, s->dpa));
	STEP(doca_sync_event_add_subscriber_location_cpu(s->done_ev, s->dev));
	STEP(doca_sync_event_start(s->done_ev));
	STEP(doca_sync_event_get_dpa_handle(s->done_ev, s->dpa, &s->done_h));
	STEP(doca_dpa_thread_create(s->dpa, &s->thread));
	STEP(doca_dpa_thread_set_func_arg(s->thread, &system_thread_kernel, s->done_h));
	STEP(doca_dpa_thread_set_local_storage(s->thread, s->buf));
	STEP(doca_dpa_thread_start(s->thread));
	STEP(doca_dpa_notification_completion_create(s->dpa, s->thread, &s->notif));
	STEP(doca_dpa_notification_completion_start(s->notif));
	STEP(doca_dpa_notification_completion_get_dpa_handle(s->notif, &s->notif_h));
	STEP(doca_dpa_thread_run(s->thread));
	/* The kernel's completion adds 1, the thread run it triggers adds 1. */
	STEP(doca_dpa_kernel_launch_update_add(s->dpa, NULL, 0, s->done_ev, 1, 1, &system_notify_kernel, s->notif_h));
	for (int i = 0; i < 5000 && v < 2; i++) {
		STEP(doca_sync_event_get(s->done_ev, &v));
		if (v < 2)
			usleep(1000);
	}
	CHECK(v == 2);
	STEP(doca_dpa_peek_at_last_error(s->dpa));
	return true;
}

/* DOCA Flow init, two ports, a shared counter, an index selector and a memory resource. */
static bool flow_up(struct scn *s)
{
	struct doca_flow_cfg *cfg;
	struct doca_flow_shared_resource_cfg shared = {0};
	doca_error_t rc;

	STEP(doca_flow_cfg_create(&cfg));
	rc = doca_flow_cfg_set_pipe_queues(cfg, 1);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_cfg_set_mode_args(cfg, "vnf,hws");
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_cfg_set_cb_entry_process(cfg, entry_cb);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_cfg_set_nr_shared_resource(cfg, 8, DOCA_FLOW_SHARED_RESOURCE_COUNTER);
	if (rc == DOCA_SUCCESS && step("doca_flow_init(cfg)", doca_flow_init(cfg)))
		s->flow_up = true;
	else if (rc == DOCA_SUCCESS && retry_failed && step("doca_flow_init(cfg)", doca_flow_init(cfg)))
		s->flow_up = true;
	DOWN(doca_flow_cfg_destroy(cfg));
	if (!step("doca_flow_cfg_set_*", rc) || !s->flow_up)
		return false;
	for (uint16_t i = 0; i < 2; i++) {
		struct doca_flow_port_cfg *pc;
		STEP(doca_flow_port_cfg_create(&pc));
		rc = doca_flow_port_cfg_set_port_id(pc, i);
		if (rc == DOCA_SUCCESS)
			rc = doca_flow_port_cfg_set_dev(pc, s->dev);
		if (rc == DOCA_SUCCESS)
			rc = doca_flow_port_cfg_set_nr_resources(pc, DOCA_FLOW_RESOURCE_COUNTER, 64);
		if (rc == DOCA_SUCCESS && !step("doca_flow_port_start(pc, &s->ports[i])", doca_flow_port_start(pc, &s->ports[i])) &&
		    retry_failed)
			step("doca_flow_port_start(pc, &s->ports[i])", doca_flow_port_start(pc, &s->ports[i]));
		DOWN(doca_flow_port_cfg_destroy(pc));
		if (!step("doca_flow_port_cfg_set_*", rc) || s->ports[i] == NULL)
			return false;
	}
	STEP(doca_flow_port_shared_resource_get(s->ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &s->shared_id));
	STEP(doca_flow_port_shared_resource_set_cfg(s->ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, s->shared_id,
						    &shared));
	for (int k = 0; k < 2; k++) {
		struct doca_flow_external_resource_cfg *rcfg;
		struct doca_flow_external_resource **r = k ? &s->mem : &s->sel;
		STEP(doca_flow_external_resource_cfg_create(&rcfg, s->ports[0]));
		rc = doca_flow_external_resource_cfg_set_type(rcfg, k ? DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY
								    : DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR);
		if (rc == DOCA_SUCCESS)
			rc = k ? doca_flow_external_resource_cfg_set_nr_cells(rcfg, NR_CELLS)
			       : doca_flow_external_resource_cfg_set_nr_indices(rcfg, NR_SEL);
		if (rc == DOCA_SUCCESS && !step("doca_flow_external_resource_create(rcfg, r)",
						doca_flow_external_resource_create(rcfg, r)) &&
		    retry_failed)
			step("doca_flow_external_resource_create(rcfg, r)", doca_flow_external_resource_create(rcfg, r));
		DOWN(doca_flow_external_resource_cfg_destroy(rcfg));
		if (!step("doca_flow_external_resource_cfg_set_*", rc) || *r == NULL)
			return false;
	}
	STEP(doca_flow_external_resource_memory_set(s->mem, 0, 5));
	STEP(doca_flow_external_resource_index_selector_set(s->sel, 2, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE));
	return true;
}

/* The provider's context and queues on port 0 (before the HASH pipe's export_prepare). */
static bool provider_up(struct scn *s)
{
	static const struct doca_flow_dpa_queue_cfg qcfg[3] = {
		{DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 16, 1},
		{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 16, 1},
		{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 16, 1},
	};

	STEP(doca_flow_dpa_init(s->proc, &s->ctx));
	STEP(doca_flow_dpa_queues_create(s->ctx, s->ports[0], qcfg, 3));
	s->queues = true;
	return true;
}

/* Create cfg's pipe (cfg destroyed whatever happens). */
static bool pipe_create(const char *what, struct doca_flow_pipe_cfg *cfg, doca_error_t cfg_rc,
			const struct doca_flow_fwd *fwd, const struct doca_flow_fwd *miss, struct doca_flow_pipe **pipe)
{
	bool ok = cfg_rc == DOCA_SUCCESS && step(what, doca_flow_pipe_create(cfg, fwd, miss, pipe));
	if (!ok && cfg_rc == DOCA_SUCCESS && retry_failed)
		ok = step(what, doca_flow_pipe_create(cfg, fwd, miss, pipe));
	DOWN(doca_flow_pipe_cfg_destroy(cfg));
	return step("doca_flow_pipe_cfg_set_*", cfg_rc) && ok;
}

/* port 0: CONTROL root (UDP 80 -> BASIC, other IPv4 -> HASH); BASIC forwards to port 1;
 * HASH (with the selector and memory bound) rewrites the UDP source port, to port 1. */
static bool pipes_up(struct scn *s)
{
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_match m, mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	doca_error_t rc;

	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	STEP(doca_flow_pipe_cfg_create(&cfg, s->ports[0]));
	rc = doca_flow_pipe_cfg_set_name(cfg, "BASIC");
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_type(cfg, DOCA_FLOW_PIPE_BASIC);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_match(cfg, &m, NULL);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_monitor(cfg, &mon);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_nr_entries(cfg, 16);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_miss_counter(cfg, true);
	if (!pipe_create("doca_flow_pipe_create(BASIC)", cfg, rc, &to1, &drop, &s->basic))
		return false;

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	STEP(doca_flow_pipe_cfg_create(&cfg, s->ports[0]));
	rc = doca_flow_pipe_cfg_set_name(cfg, "HASH");
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_type(cfg, DOCA_FLOW_PIPE_HASH);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_nr_entries(cfg, NR_HASH);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_match(cfg, NULL, &mask);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_monitor(cfg, &mon);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_miss_counter(cfg, true);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_external_resource(cfg, s->sel);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_external_resource(cfg, s->mem);
	if (!pipe_create("doca_flow_pipe_create(HASH)", cfg, rc, &to1, &drop, &s->hash))
		return false;

	STEP(doca_flow_pipe_cfg_create(&cfg, s->ports[0]));
	rc = doca_flow_pipe_cfg_set_name(cfg, "CONTROL");
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_type(cfg, DOCA_FLOW_PIPE_CONTROL);
	if (rc == DOCA_SUCCESS)
		rc = doca_flow_pipe_cfg_set_is_root(cfg, true);
	if (!pipe_create("doca_flow_pipe_create(CONTROL)", cfg, rc, NULL, NULL, &s->control))
		return false;
	STEP(doca_flow_pipe_update_miss(s->hash, &drop));
	return true;
}

/* Export the HASH pipe (prepared before its entries), add every entry, export the resources. */
static bool entries_up(struct scn *s)
{
	struct doca_flow_match m;
	struct doca_flow_actions act;
	struct doca_flow_monitor shared_mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
	struct doca_flow_fwd to_basic = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = s->basic};
	struct doca_flow_fwd to_hash = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = s->hash};

	STEP(doca_flow_dpa_pipe_export_prepare(s->ctx, s->hash, NR_HASH, &s->dpa_pipe));
	memset(&act, 0, sizeof(act));
	for (uint32_t i = 0; i < NR_HASH; i++) {
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)(100 + i));
		STEP(doca_flow_pipe_hash_add_entry(0, s->hash, i, 0, &act, NULL, NULL, 0, NULL, &s->hash_entries[i]));
	}
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(80);
	STEP(doca_flow_pipe_basic_add_entry(0, s->basic, &m, 0, NULL, NULL, NULL, 0, NULL, &s->basic_entry));
	shared_mon.shared_counter.shared_counter_id = s->shared_id;
	STEP(doca_flow_pipe_control_add_entry(0, s->control, &m, NULL, NULL, NULL, NULL, NULL, &shared_mon, 0, &to_basic,
					      NULL, &s->control_entries[0]));
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	STEP(doca_flow_pipe_control_add_entry(0, s->control, &m, NULL, NULL, NULL, NULL, NULL, NULL, 1, &to_hash, NULL,
					      &s->control_entries[1]));
	PROCESS(s->ports[0], 0);
	STEP(doca_flow_pipe_basic_update_entry(0, s->basic, 0, NULL, NULL, NULL, 0, s->basic_entry));
	PROCESS(s->ports[0], 0);
	CHECK(doca_flow_pipe_entry_get_status(s->basic_entry) == DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	STEP(doca_flow_dpa_pipe_export(s->ctx, s->dpa_pipe));
	STEP(doca_flow_dpa_pipe_get_device_addr(s->ctx, s->dpa_pipe, &s->pipe_addr));
	STEP(doca_flow_dpa_external_resource_export(s->ctx, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, s->sel,
						    &s->dpa_sel));
	STEP(doca_flow_dpa_external_resource_get_device_addr(s->ctx, s->dpa_sel, &s->sel_addr));
	STEP(doca_flow_dpa_external_resource_export(s->ctx, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, s->mem,
						    &s->dpa_mem));
	STEP(doca_flow_dpa_external_resource_get_device_addr(s->ctx, s->dpa_mem, &s->mem_addr));
	return true;
}

/* Traffic through both paths, the DPA-side calls, queries, an entry removed. */
static bool traffic(struct scn *s)
{
	struct doca_flow_resource_query q;
	struct doca_flow_match m;
	uint8_t frame[128];
	uint64_t out[4] = {0};
	uint64_t ret = ~0ull, v = 0;
	uint32_t hash = 0, len;
	doca_error_t rc;
	FILE *devnull;

	len = ft_udp4(frame, 0x01020304, 0x0a000001, 7, 80);
	STEP(flowdpa_port_inject(0, frame, len)); /* CONTROL -> BASIC -> port 1 */
	CHECK(flowdpa_port_capture_count(1) == 1);
	rc = flowdpa_port_capture_set_depth(1, 16);
	if (rc != DOCA_SUCCESS) /* a failed resize keeps the ring and what it holds */
		CHECK(flowdpa_port_capture_count(1) == 1);
	if (!step("flowdpa_port_capture_set_depth(1, 16)", rc) &&
	    !(retry_failed && step("flowdpa_port_capture_set_depth(1, 16)", flowdpa_port_capture_set_depth(1, 16))))
		return false;
	len = ft_udp4(frame, 0x01020304, 0x0a000002, 7, 9);
	STEP(flowdpa_port_inject(0, frame, len)); /* CONTROL -> HASH */
	STEP(doca_dpa_rpc(s->dpa, &system_provider_rpc, &ret, s->pipe_addr, 0u, s->sel_addr, s->mem_addr, s->buf));
	STEP((doca_error_t)ret);
	STEP(doca_dpa_d2h_memcpy(s->dpa, out, s->buf, sizeof(out)));
	CHECK(out[0] == 77 && out[1] == 5 && out[2] == 77);
	/* Again from a kernel; its completion makes the event 3. */
	STEP(doca_dpa_kernel_launch_update_add(s->dpa, NULL, 0, s->done_ev, 1, 1, &system_provider_kernel,
					       s->pipe_addr, 1u, s->sel_addr, s->mem_addr, s->buf));
	for (int i = 0; i < 5000 && v < 3; i++) {
		STEP(doca_sync_event_get(s->done_ev, &v));
		if (v < 3)
			usleep(1000);
	}
	CHECK(v == 3);
	STEP(doca_dpa_d2h_memcpy(s->dpa, out, s->buf, sizeof(out)));
	STEP((doca_error_t)out[3]);
	STEP(doca_flow_resource_query_entry(s->basic_entry, &q));
	CHECK(q.counter.total_pkts == 1);
	STEP(doca_flow_resource_query_pipe_miss(s->basic, &q));
	STEP(doca_flow_port_shared_resources_query(s->ports[0], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &s->shared_id, &q,
						   1));
	CHECK(q.counter.total_pkts == 1);
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = DOCA_HTOBE32(0x0a000002);
	STEP(doca_flow_pipe_calc_hash(s->hash, &m, &hash));
	devnull = fopen("/dev/null", "w");
	CHECK(devnull != NULL);
	rc = doca_flow_pipe_dump(s->hash, devnull);
	fclose(devnull);
	STEP(rc);
	STEP(doca_flow_pipe_remove_entry(0, 0, s->basic_entry));
	PROCESS(s->ports[0], 0);
	s->basic_entry = NULL;
	return true;
}

/* Everything that exists, in reverse order of creation. */
static void teardown(struct scn *s)
{
	if (s->notif)
		DOWN(doca_dpa_notification_completion_destroy(s->notif));
	if (s->thread)
		DOWN(doca_dpa_thread_destroy(s->thread));
	if (s->dpa_mem)
		DOWN(doca_flow_dpa_external_resource_destroy(s->ctx, s->dpa_mem));
	if (s->dpa_sel)
		DOWN(doca_flow_dpa_external_resource_destroy(s->ctx, s->dpa_sel));
	if (s->dpa_pipe)
		DOWN(doca_flow_dpa_pipe_destroy(s->ctx, s->dpa_pipe));
	if (s->control)
		doca_flow_pipe_destroy(s->control);
	if (s->hash)
		doca_flow_pipe_destroy(s->hash);
	if (s->basic)
		doca_flow_pipe_destroy(s->basic);
	if (s->queues)
		DOWN(doca_flow_dpa_queues_destroy(s->ctx, s->ports[0]));
	if (s->ctx)
		DOWN(doca_flow_dpa_destroy(s->ctx));
	if (s->mem)
		DOWN(doca_flow_external_resource_destroy(s->mem));
	if (s->sel)
		DOWN(doca_flow_external_resource_destroy(s->sel));
	for (int i = 1; i >= 0; i--)
		if (s->ports[i])
			DOWN(doca_flow_port_stop(s->ports[i]));
	if (s->flow_up)
		doca_flow_destroy();
	if (s->done_ev)
		DOWN(doca_sync_event_destroy(s->done_ev));
	if (s->buf)
		DOWN(doca_dpa_mem_free(s->dpa, s->buf));
	for (int odd = 0; odd < 2; odd++) /* every other one first: NR_FRAGS / 2 holes */
		for (int i = odd; i < NR_FRAGS; i += 2)
			if (s->frags[i])
				DOWN(doca_dpa_mem_free(s->dpa, s->frags[i]));
	if (s->dpa)
		DOWN(doca_dpa_destroy(s->dpa));
	if (s->dev)
		DOWN(doca_dev_close(s->dev));
	if (s->devs)
		DOWN(doca_devinfo_destroy_list(s->devs));
	if (s->source_registered)
		DOWN(doca_log_unregister_source(s->source));
}

int main(void)
{
	static struct scn s;
	bool complete;

	setvbuf(stdout, NULL, _IOLBF, 0);
	trace_steps = getenv("FAULT_SCN_STEPS") != NULL;
	retry_failed = getenv("FAULT_SCN_RETRY") != NULL;
	if (trace_steps) /* what the libraries' constructors allocated */
		printf("STEP %llu main\n", (unsigned long long)core_alloc_count());
	complete = common_up(&s) && dpa_up(&s) && flow_up(&s) && provider_up(&s) && pipes_up(&s) && entries_up(&s) &&
		   traffic(&s);
	teardown(&s);
	printf("ALLOCS %llu FIRED %d\n", (unsigned long long)core_alloc_count(), core_alloc_fault_fired() ? 1 : 0);
	if (!teardown_ok)
		return 1;
	return complete ? 0 : 3;
}
