/*
 * mistakes_main.c - host side of lifecycle_mistakes: a teaching sample that makes the
 * classic provider mistakes on purpose, one at a time, and prints for each what the call
 * returned and what flowdpa logged about it (the SDK log is captured with
 * doca_log_backend_create_with_buf_sdk), then the fix, applied.
 *
 *   1. doca_flow_dpa_pipe_export_prepare after entries were added
 *   2. doca_flow_dpa_pipe_get_device_addr before doca_flow_dpa_pipe_export
 *   3. a memory read without a RESOURCES_READ queue
 *   4. a kernel that posts and never polls: AGAIN
 *
 * Each section starts with "== mistake N:" and has "returned:", "flowdpa says:" and
 * "fix:" lines; check.py asserts the diagnosis of each.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow.h>
#include <doca_flow_dpa_provider.h>
#include <doca_log.h>

#include "sample_common.h"

extern struct doca_dpa_app *lifecycle_mistakes_app;
extern doca_dpa_func_t disable_and_wait_rpc;
extern doca_dpa_func_t read_cell_rpc;
extern doca_dpa_func_t post_without_polling_rpc;
extern doca_dpa_func_t poll_until_rpc;

#define QUEUE_SIZE 8


/* ------------------------------------------------------------------ the SDK log, captured */

static char log_rec[4096];
static char log_lines[32 * 1024];
static size_t log_len;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* Called once per SDK log record (from any thread: DPA-side calls log too). */
static void log_flush(char *buf)
{
	size_t n = strlen(buf);

	pthread_mutex_lock(&log_lock);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (log_len + n + 2 < sizeof(log_lines)) {
		memcpy(log_lines + log_len, buf, n);
		log_len += n;
		log_lines[log_len++] = '\n';
		log_lines[log_len] = '\0';
	}
	pthread_mutex_unlock(&log_lock);
}

static void log_capture_start(void)
{
	struct doca_log_backend *b;

	TRY(doca_log_backend_create_with_buf_sdk(log_rec, sizeof(log_rec), log_flush, &b));
	TRY(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_WARNING));
}

/* Print what flowdpa logged since the last call, one "flowdpa says:" line per record. */
static void say(void)
{
	pthread_mutex_lock(&log_lock);
	if (log_len == 0)
		printf("  flowdpa says: (nothing at WARNING or above)\n");
	for (char *l = log_lines, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		*nl = '\0';
		printf("  flowdpa says: %s\n", l);
	}
	log_len = 0;
	log_lines[0] = '\0';
	pthread_mutex_unlock(&log_lock);
}

/* ------------------------------------------------------------------ setup */

struct app {
	struct doca_dev *dev;
	struct doca_flow_port *ports[2];
	struct doca_dpa *dpa;
	struct doca_flow_dpa_ctx *ctx;
	doca_dpa_dev_uintptr_t scratch; /* 64 bytes of DPA memory for RPC results */
};

/* A HASH pipe of 8 entries on port 0, each forwarding to port 1 (no entries added). */
static struct doca_flow_pipe *hash_pipe(struct app *a, const char *name, bool root)
{
	struct doca_flow_match mask;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *pc;
	struct doca_flow_pipe *pipe;

	memset(&mask, 0, sizeof(mask));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	TRY(doca_flow_pipe_cfg_create(&pc, a->ports[0]));
	TRY(doca_flow_pipe_cfg_set_name(pc, name));
	TRY(doca_flow_pipe_cfg_set_type(pc, DOCA_FLOW_PIPE_HASH));
	TRY(doca_flow_pipe_cfg_set_is_root(pc, root));
	TRY(doca_flow_pipe_cfg_set_nr_entries(pc, 8));
	TRY(doca_flow_pipe_cfg_set_match(pc, NULL, &mask));
	TRY(doca_flow_pipe_create(pc, &fwd, &miss, &pipe));
	doca_flow_pipe_cfg_destroy(pc);
	return pipe;
}

static void add_entries(struct app *a, struct doca_flow_pipe *pipe, uint32_t first, uint32_t n)
{
	struct doca_flow_pipe_entry *e;

	for (uint32_t i = first; i < first + n; i++)
		TRY(doca_flow_pipe_hash_add_entry(0, pipe, i, 0, NULL, NULL, NULL, 0, NULL, &e));
	TRY(doca_flow_entries_process(a->ports[0], 0, 10000, n));
}

static void setup(struct app *a)
{

	a->dev = sample_flow_start(2, a->ports);
	a->ctx = sample_provider_start(a->dev, lifecycle_mistakes_app, &a->dpa);
	TRY(doca_dpa_mem_alloc(a->dpa, 64, &a->scratch));
	TRY(doca_dpa_memset(a->dpa, a->scratch, 0, 64));
}

static uint64_t rpc_ret;

/* ------------------------------------------------------------------ the mistakes */

int main(void)
{
	struct app a;
	uint32_t st[2];

	memset(&a, 0, sizeof(a));
	setup(&a);
	log_capture_start();

	/* Queues on port 0: GENERAL for the hash pipes, RESOURCES_WRITE for resources, and
	 * (mistake 3) no RESOURCES_READ. */
	const struct doca_flow_dpa_queue_cfg q[2] = {{DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, QUEUE_SIZE, 1},
						     {DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, QUEUE_SIZE, 1}};
	TRY(doca_flow_dpa_queues_create(a.ctx, a.ports[0], q, 2));
	printf("lifecycle_mistakes: queues on port 0: GENERAL and RESOURCES_WRITE, %d requests each\n\n", QUEUE_SIZE);

	/* 1 ----------------------------------------------------------------------------- */
	printf("== mistake 1: doca_flow_dpa_pipe_export_prepare after entries were added\n");
	struct doca_flow_pipe *early = hash_pipe(&a, "EARLY_PIPE", true);
	struct doca_flow_dpa_pipe *early_dp;
	doca_flow_dpa_addr early_addr;
	add_entries(&a, early, 0, 3); /* the mistake: entries 0..2 before prepare */
	doca_error_t r = doca_flow_dpa_pipe_export_prepare(a.ctx, early, 8, &early_dp);
	printf("  returned: doca_flow_dpa_pipe_export_prepare: %s\n", doca_error_get_name(r));
	say();
	if (r != DOCA_SUCCESS) { /* FLOWDPA_STRICT=1 refuses it: nothing more to show */
		printf("  FLOWDPA_STRICT=1 refused the late prepare; run without it to see the rest\n");
		return 2;
	}
	add_entries(&a, early, 3, 5);
	TRY(doca_flow_dpa_pipe_export(a.ctx, early_dp));
	TRY(doca_flow_dpa_pipe_get_device_addr(a.ctx, early_dp, &early_addr));
	r = doca_dpa_rpc(a.dpa, &disable_and_wait_rpc, &rpc_ret, early_addr, 1u, a.scratch);
	TRY(r);
	TRY(doca_dpa_d2h_memcpy(a.dpa, st, a.scratch, sizeof(st)));
	printf("  returned: kernel disable of entry 1 (added before prepare): %s, completed %u, failed %u\n",
	       doca_error_get_name((doca_error_t)rpc_ret), st[0], st[1]);
	say();
	r = doca_dpa_rpc(a.dpa, &disable_and_wait_rpc, &rpc_ret, early_addr, 5u, a.scratch);
	TRY(r);
	TRY(doca_dpa_d2h_memcpy(a.dpa, st, a.scratch, sizeof(st)));
	printf("  returned: kernel disable of entry 5 (added after prepare): %s, completed %u, failed %u\n",
	       doca_error_get_name((doca_error_t)rpc_ret), st[0], st[1]);
	say();
	printf("  fix: call doca_flow_dpa_pipe_export_prepare right after doca_flow_pipe_create, then add the\n"
	       "       entries (FLOWDPA_STRICT=1 makes the late prepare return BAD_STATE, for CI)\n\n");

	/* 2 ----------------------------------------------------------------------------- */
	printf("== mistake 2: doca_flow_dpa_pipe_get_device_addr before doca_flow_dpa_pipe_export\n");
	struct doca_flow_pipe *late = hash_pipe(&a, "LATE_PIPE", false);
	struct doca_flow_dpa_pipe *late_dp;
	doca_flow_dpa_addr late_addr = 0;
	TRY(doca_flow_dpa_pipe_export_prepare(a.ctx, late, 8, &late_dp));
	add_entries(&a, late, 0, 8);
	r = doca_flow_dpa_pipe_get_device_addr(a.ctx, late_dp, &late_addr); /* the mistake */
	printf("  returned: doca_flow_dpa_pipe_get_device_addr: %s (address %llu)\n", doca_error_get_name(r),
	       (unsigned long long)late_addr);
	say();
	TRY(doca_flow_dpa_pipe_export(a.ctx, late_dp));
	r = doca_flow_dpa_pipe_get_device_addr(a.ctx, late_dp, &late_addr);
	printf("  returned: after doca_flow_dpa_pipe_export: %s (address %s)\n", doca_error_get_name(r),
	       late_addr ? "non-zero" : "0");
	say();
	printf("  fix: doca_flow_dpa_pipe_export after the entries, then doca_flow_dpa_pipe_get_device_addr\n\n");

	/* 3 ----------------------------------------------------------------------------- */
	printf("== mistake 3: a memory read without a RESOURCES_READ queue\n");
	struct doca_flow_external_resource_cfg *rc;
	struct doca_flow_external_resource *mem;
	struct doca_flow_dpa_external_resource *mem_dr;
	doca_flow_dpa_addr mem_addr;
	TRY(doca_flow_external_resource_cfg_create(&rc, a.ports[0]));
	TRY(doca_flow_external_resource_cfg_set_type(rc, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY));
	TRY(doca_flow_external_resource_cfg_set_nr_cells(rc, 8));
	TRY(doca_flow_external_resource_create(rc, &mem));
	doca_flow_external_resource_cfg_destroy(rc);
	/* The export succeeds: a memory resource needs RESOURCES_WRITE or RESOURCES_READ. */
	r = doca_flow_dpa_external_resource_export(a.ctx, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, mem, &mem_dr);
	printf("  returned: doca_flow_dpa_external_resource_export(MEMORY): %s\n", doca_error_get_name(r));
	TRY(r);
	TRY(doca_flow_dpa_external_resource_get_device_addr(a.ctx, mem_dr, &mem_addr));
	TRY(doca_dpa_rpc(a.dpa, &read_cell_rpc, &rpc_ret, mem_addr, 0u, a.scratch));
	printf("  returned: kernel doca_flow_external_resource_memory_read: %s\n",
	       doca_error_get_name((doca_error_t)rpc_ret));
	say();
	printf("  fix: add {DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, size, n} to doca_flow_dpa_queues_create\n\n");

	/* 4 ----------------------------------------------------------------------------- */
	printf("== mistake 4: a kernel that posts and never polls\n");
	TRY(doca_dpa_rpc(a.dpa, &post_without_polling_rpc, &rpc_ret, late_addr, (uint32_t)QUEUE_SIZE + 1));
	uint32_t accepted = (uint32_t)rpc_ret;
	doca_error_t refused = (doca_error_t)(rpc_ret >> 32);
	printf("  returned: %u posts accepted, post %u: %s\n", accepted, accepted + 1, doca_error_get_name(refused));
	say();
	printf("  diagnosis: a queue holds queue_size (%d) requests from post to poll, executed or not;\n"
	       "             AGAIN is flow control, not an error, so nothing is logged: FLOWDPA_REPORT counts it\n"
	       "             per queue (\"again\")\n",
	       QUEUE_SIZE);
	TRY(doca_dpa_rpc(a.dpa, &poll_until_rpc, &rpc_ret, late_addr, accepted, a.scratch));
	TRY(doca_dpa_d2h_memcpy(a.dpa, st, a.scratch, sizeof(st)));
	printf("  returned: after polling: %s, completed %u, failed %u\n", doca_error_get_name((doca_error_t)rpc_ret),
	       st[0], st[1]);
	TRY(doca_dpa_rpc(a.dpa, &disable_and_wait_rpc, &rpc_ret, late_addr, 0u, a.scratch));
	TRY(doca_dpa_d2h_memcpy(a.dpa, st, a.scratch, sizeof(st)));
	printf("  returned: the next post: %s, completed %u, failed %u\n", doca_error_get_name((doca_error_t)rpc_ret),
	       st[0], st[1]);
	say();
	printf("  fix: poll (doca_flow_queue_poll_completion) after each burst of posts\n\n");

	/* teardown, in reverse --------------------------------------------------------- */
	TRY(doca_dpa_mem_free(a.dpa, a.scratch));
	TRY(doca_flow_dpa_external_resource_destroy(a.ctx, mem_dr));
	TRY(doca_flow_dpa_pipe_destroy(a.ctx, late_dp));
	TRY(doca_flow_dpa_pipe_destroy(a.ctx, early_dp));
	TRY(doca_flow_dpa_queues_destroy(a.ctx, a.ports[0]));
	TRY(doca_flow_dpa_destroy(a.ctx));
	TRY(doca_dpa_destroy(a.dpa));
	TRY(doca_flow_external_resource_destroy(mem));
	doca_flow_pipe_destroy(late);
	doca_flow_pipe_destroy(early);
	for (int i = 1; i >= 0; i--)
		TRY(doca_flow_port_stop(a.ports[i]));
	doca_flow_destroy();
	TRY(doca_dev_close(a.dev));
	printf("teardown, in reverse:\n");
	say();
	printf("lifecycle_mistakes: done\n");
	return 0;
}
