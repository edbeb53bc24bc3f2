/*
 * test_provider_life_dev.c - a negative test for every DPA-side error row of
 * API-PROVIDER.md (doca_flow_dpa_provider_dev.h), driven through the RPCs of
 * tests/common/provider/device: bad, foreign, host and stale addresses, queue ids and
 * types, NULL and non-DPA out pointers, AGAIN, never-flushed requests, IO_FAILED,
 * injected DRIVER faults, and execution-time failures as completions, with their log
 * lines (and the rate limit that keeps a looping kernel from flooding the log).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include <provider/provider.h>

#include "provider_life.h"

#define MEM DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY
#define SEL DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR
#define GENERAL DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL
#define RES_W DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE
#define RES_R DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ

/* An address without the provider's magic (nor the shape of a host pointer). */
#define BAD_MAGIC_ADDR 0x1234567890abcdefull

static int setup_all(void **state)
{
	*state = pv_fx_open(pv_all_queues, 3);
	return 0;
}

static int setup_noq(void **state)
{
	*state = pv_fx_open(NULL, 0);
	return 0;
}

static int teardown(void **state)
{
	return lc_fx_close(*state);
}

static doca_error_t flush_q(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t type, uint32_t qid)
{
	uint64_t ret = 0;
	return pv_rpc_ret(doca_dpa_rpc(f->dpa, &pv_flush_rpc, &ret, a, type, qid), &ret);
}

/* A poll whose stats pointer is a raw device-side value (0: NULL). */
static doca_error_t poll_raw(struct doca_dpa *dpa, doca_flow_dpa_addr a, uint32_t type, uint32_t qid, uint64_t out)
{
	uint64_t ret = 0;
	return pv_rpc_ret(doca_dpa_rpc(dpa, &pv_poll_rpc, &ret, a, type, qid, out), &ret);
}

/* A memory read into a raw destination (nr 1: memory_read, else _read_range). */
static doca_error_t read_raw(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t qid, uint32_t off, uint32_t nr,
			     uint64_t dst)
{
	uint64_t ret = 0;
	return pv_rpc_ret(doca_dpa_rpc(f->dpa, &pv_mem_read_rpc, &ret, a, qid, off, nr, dst, (uint32_t)1), &ret);
}

/* Polls for a while and expects nothing to complete. */
static void expect_no_completion(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t type, uint32_t qid)
{
	for (int i = 0; i < 10; i++) {
		uint32_t done = 7, failed = 7;
		assert_int_equal(pv_poll(f, a, type, qid, &done, &failed), DOCA_SUCCESS);
		assert_int_equal(done, 0);
		assert_int_equal(failed, 0);
		usleep(2000); /* two NIC latencies in async mode */
	}
}

/* Poll until want completions; expect them and failed of them to have failed. */
static void expect_completions(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t type, uint32_t qid, uint32_t want,
			       uint32_t want_failed)
{
	uint32_t done = 0, failed = 0;
	pv_poll_until(f, a, type, qid, want, &done, &failed);
	assert_int_equal(done, want);
	assert_int_equal(failed, want_failed);
}

/* A HASH pipe of 8 entries on port 0, exported whole (export_nr 0) or in part. */
static struct doca_flow_pipe *hash8(struct pv_fx *f, uint32_t alg, uint32_t export_nr, struct doca_flow_dpa_pipe **dp,
				    doca_flow_dpa_addr *a)
{
	struct pv_pipe_opts o = {.alg = alg, .nr_entries = 8, .export_nr = export_nr};
	struct doca_flow_pipe *p = pv_hash_pipe(f, &o, dp, a, NULL);
	dpa_test_log_clear();
	return p;
}

/* ------------------------------------------------------------------ INVALID_VALUE: addresses */

/* An address that is no exported object: 0, bad magic, a slot beyond the table; every
 * kind of call refuses it with INVALID_VALUE and one line naming the call. */
static void test_addr_bad_magic(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	hash8(f, 0, 0, &dp, &a);

	assert_int_equal(pv_hash(f, BAD_MAGIC_ADDR, PV_T_DISABLE, 0, 0, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "0x1234567890abcdef",
				"not the device address of an exported object (bad magic)");
	assert_int_equal(pv_hash(f, 0, PV_T_ENABLE, 0, 0, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_enable_index", "device address is 0");
	assert_int_equal(pv_mem_update(f, BAD_MAGIC_ADDR, 0, 0, 1, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_update", "bad magic");
	assert_int_equal(pv_mem_read(f, BAD_MAGIC_ADDR, 0, 0, 1, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read", "bad magic");
	assert_int_equal(pv_select(f, BAD_MAGIC_ADDR, 0, 0, 1, 0, false, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_index_selector_modify", "bad magic");
	assert_int_equal(pv_poll(f, BAD_MAGIC_ADDR, GENERAL, 0, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "bad magic");
	assert_int_equal(flush_q(f, BAD_MAGIC_ADDR, GENERAL, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_queue_flush", "bad magic");
	/* The provider's magic and context, a slot beyond the export table. */
	doca_flow_dpa_addr beyond = pv_addr_make(pv_addr_ctx(a), pv_addr_gen(a), PV_MAX_EXPORTS + 5);
	assert_int_equal(pv_hash(f, beyond, PV_T_DISABLE, 0, 0, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "not the device address of an exported object");

	/* The real address still works. */
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 0, 0, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 0);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* A host pointer passed as a device address: INVALID_VALUE, the line says so. */
static void test_addr_host_pointer(void **state)
{
	struct pv_fx *f = *state;
	uint64_t on_stack = 0;
	uint64_t *on_heap = malloc(64);
	assert_non_null(on_heap);

	assert_int_equal(pv_hash(f, (uint64_t)(uintptr_t)&on_stack, PV_T_DISABLE, 0, 0, 0, true),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "is a host pointer, not a device address");
	assert_int_equal(pv_mem_update(f, (uint64_t)(uintptr_t)on_heap, 0, 0, 1, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_update", "is a host pointer");
	assert_int_equal(pv_poll(f, (uint64_t)(uintptr_t)on_heap, GENERAL, 0, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "is a host pointer");
	/* A device-heap pointer is no export either. */
	assert_int_equal(pv_hash(f, f->scratch, PV_T_DISABLE, 0, 0, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "not a device address");
	free(on_heap);
	lc_expect_quiet();
}

/*
 * The address of another ctx's export, whose DPA process is not the one running the
 * kernel (a second DPA context on device 0): INVALID_VALUE naming that ctx. The same
 * address works in a kernel of its own process.
 */
static void test_addr_of_another_ctx(void **state)
{
	struct pv_fx *f = *state;
	struct lc_ctx2 c2;
	struct doca_flow_dpa_external_resource *h2;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	hash8(f, 0, 0, &dp, &a);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	lc_ctx2_open(f, &c2, pv_all_queues, 3);
	doca_flow_dpa_addr a2 = pv_export_res(c2.ctx, mem, MEM, &h2);
	char why[96];
	snprintf(why, sizeof(why), "belongs to DPA ctx %u, whose DPA process is not the one running this kernel",
		 pv_addr_ctx(a2));

	assert_int_equal(pv_mem_update(f, a2, 0, 3, 42, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_update", why);
	assert_int_equal(pv_poll(f, a2, RES_W, 0, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", why);
	/* And the other way round: ctx 1's pipe in a kernel of the second process. */
	uint64_t ret = 0;
	assert_int_equal(doca_dpa_rpc(c2.dpa, &pv_hash_rpc, &ret, a, (uint32_t)PV_T_DISABLE, (uint32_t)0, (uint32_t)0,
				      (uint32_t)0, (uint32_t)1),
			 DOCA_SUCCESS);
	assert_int_equal(ret, DOCA_ERROR_INVALID_VALUE);
	snprintf(why, sizeof(why), "belongs to DPA ctx %u, whose DPA process is not", pv_addr_ctx(a));
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", why);

	/* In its own process the address works, and the update lands. */
	assert_int_equal(doca_dpa_rpc(c2.dpa, &pv_mem_update_rpc, &ret, a2, (uint32_t)0, (uint32_t)3, (uint64_t)42,
				      (uint32_t)1),
			 DOCA_SUCCESS);
	assert_int_equal(ret, DOCA_SUCCESS);
	uint32_t st[2] = {0, 0};
	for (int i = 0; i < 2000 && st[0] == 0; i++) {
		assert_int_equal(poll_raw(c2.dpa, a2, RES_W, 0, c2.scratch), DOCA_SUCCESS);
		assert_int_equal(doca_dpa_d2h_memcpy(c2.dpa, st, c2.scratch, sizeof(st)), DOCA_SUCCESS);
		if (st[0] == 0)
			usleep(1000);
	}
	assert_int_equal(st[0], 1);
	assert_int_equal(st[1], 0);
	uint64_t v = 0;
	assert_int_equal(doca_flow_external_resource_memory_get(mem, 3, &v), DOCA_SUCCESS);
	assert_int_equal(v, 42);

	assert_int_equal(doca_flow_dpa_external_resource_destroy(c2.ctx, h2), DOCA_SUCCESS);
	lc_ctx2_close(f, &c2);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ INVALID_VALUE: arguments */

/* queue_id beyond the queues of the type (and an unknown type): INVALID_VALUE. */
static void test_queue_id_out_of_range(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	struct doca_flow_dpa_external_resource *h;
	doca_flow_dpa_addr a;
	hash8(f, 0, 0, &dp, &a);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	doca_flow_dpa_addr m = pv_export_res(f->ctx, mem, MEM, &h);

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 1, 0, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "queue_id 1 out of range",
				"port 0 has 1 GENERAL queues");
	assert_int_equal(pv_hash(f, a, PV_T_REPLACE, UINT32_MAX, 0, 7, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_replace_index", "queue_id 4294967295 out of range");
	assert_int_equal(pv_mem_update(f, m, 1, 0, 1, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_update", "queue_id 1 out of range",
				"RESOURCES_WRITE");
	assert_int_equal(pv_mem_read(f, m, 2, 0, 1, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read", "queue_id 2 out of range", "RESOURCES_READ");
	assert_int_equal(pv_poll(f, m, RES_R, 1, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "queue_id 1 out of range");
	assert_int_equal(flush_q(f, a, GENERAL, 1), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_queue_flush", "queue_id 1 out of range");
	assert_int_equal(pv_poll(f, a, 3, 0, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "unknown queue type 3");

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* nr == 0 in the range calls: INVALID_VALUE; so is a range that needs more requests
 * than the queue holds. Nothing was posted: the queue is empty after. */
static void test_range_nr(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_external_resource *hs, *hm;
	struct doca_flow_external_resource *sel = pv_res(f->ports[0], SEL, 1024);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 1024);
	doca_flow_dpa_addr s = pv_export_res(f->ctx, sel, SEL, &hs);
	doca_flow_dpa_addr m = pv_export_res(f->ctx, mem, MEM, &hm);

	assert_int_equal(pv_select(f, s, 0, 0, 0, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, true, true),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_index_selector_modify_range", "nr_indices is 0");
	assert_int_equal(pv_mem_read(f, m, 0, 0, 0, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read_range", "nr_cells is 0");
	/* 1024 indices = 32 requests, 200 cells = 25: more than a 16-deep queue holds. */
	assert_int_equal(pv_select(f, s, 0, 0, 1024, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, true, true),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_index_selector_modify_range", "need 32 requests",
				"more than the queue holds (16)");
	assert_int_equal(pv_mem_read(f, m, 0, 0, 200, 0, true), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read_range", "need 25 requests");
	expect_no_completion(f, s, RES_W, 0);
	expect_no_completion(f, m, RES_R, 0);
	/* The largest ranges that fit: 16 requests each. */
	assert_int_equal(pv_select(f, s, 0, 0, 512, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE, true, true), DOCA_SUCCESS);
	expect_completions(f, s, RES_W, 0, 16, 0);
	assert_int_equal(pv_mem_read(f, m, 0, 0, 128, 0, true), DOCA_SUCCESS);
	expect_completions(f, m, RES_R, 0, 16, 0);

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, hs), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, hm), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* NULL out pointers (a read's value, a poll's stats) and read destinations that are not
 * DPA memory (the RPC's stack, a host variable, a range running past its allocation):
 * INVALID_VALUE; a device-heap destination works. */
static void test_out_pointers(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_external_resource *h;
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 16);
	doca_flow_dpa_addr m = pv_export_res(f->ctx, mem, MEM, &h);
	static uint64_t host_var;
	uint64_t ret = 0;
	assert_int_equal(doca_flow_external_resource_memory_set(mem, 1, 77), DOCA_SUCCESS);

	assert_int_equal(read_raw(f, m, 0, 0, 1, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read", "value pointer is NULL");
	assert_int_equal(read_raw(f, m, 0, 0, 4, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read_range", "value pointer is NULL");
	assert_int_equal(poll_raw(f->dpa, m, RES_R, 0, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "stats is NULL");

	assert_int_equal(pv_rpc_ret(doca_dpa_rpc(f->dpa, &pv_mem_read_stack_rpc, &ret, m, (uint32_t)0), &ret),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read", "is not DPA memory",
				"not at a host or stack variable");
	assert_int_equal(read_raw(f, m, 0, 0, 1, (uint64_t)(uintptr_t)&host_var), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read", "(1 cells) is not DPA memory");
	assert_int_equal(read_raw(f, m, 0, 0, 2, f->scratch + PV_SCRATCH - 8), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read_range", "(2 cells) is not DPA memory");
	expect_no_completion(f, m, RES_R, 0);

	assert_int_equal(pv_mem_read(f, m, 0, 1, 1, 64, true), DOCA_SUCCESS);
	expect_completions(f, m, RES_R, 0, 1, 0);
	assert_int_equal(pv_scratch_u64(f, 64), 77);
	assert_int_equal(host_var, 0);

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ BAD_STATE: stale */

/*
 * After doca_flow_dpa_pipe_destroy the address is stale (BAD_STATE), also once the same
 * pipe is exported again into the same slot (a new generation, a new address). A request
 * posted under the old export and flushed after it went completes with failure.
 */
static void test_stale_after_export_destroy(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp, *dp2;
	doca_flow_dpa_addr a, a2 = 0;
	struct doca_flow_pipe *pipe = hash8(f, 0, 0, &dp, &a);

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 1, 0, false), DOCA_SUCCESS); /* in flight */
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 1, 0, true), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "is stale: the export behind it was destroyed");
	assert_int_equal(pv_poll(f, a, GENERAL, 0, NULL, NULL), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "is stale");
	assert_int_equal(flush_q(f, a, GENERAL, 0), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_queue_flush", "is stale");

	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, &dp2), DOCA_SUCCESS);
	lc_expect_one_warn("already holds 8 entries"); /* its entries predate this export */
	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, dp2), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, dp2, &a2), DOCA_SUCCESS);
	assert_int_equal(pv_addr_slot(a2), pv_addr_slot(a));
	assert_true(a2 != a);
	assert_int_equal(pv_hash(f, a, PV_T_ENABLE, 0, 1, 0, true), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_enable_index", "is stale");
	/* The new address flushes the queue: the old request fails at execution. */
	assert_int_equal(flush_q(f, a2, GENERAL, 0), DOCA_SUCCESS);
	expect_completions(f, a2, GENERAL, 0, 1, 1);
	dpa_test_expect_one_log("disable of 'HASH_PIPE' index 1", "failed at execution", "the export was destroyed");
	assert_int_equal(pv_send(pv_dst_for(pipe, 1, 8)), 101); /* never disabled */
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp2), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* After the ctx was destroyed its addresses are stale: BAD_STATE naming the ctx. */
static void test_stale_after_ctx_destroy(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	struct doca_flow_dpa_external_resource *h;
	doca_flow_dpa_addr a;
	hash8(f, 0, 0, &dp, &a);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	doca_flow_dpa_addr m = pv_export_res(f->ctx, mem, MEM, &h);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_destroy(f->ctx), DOCA_SUCCESS);
	char why[64];
	snprintf(why, sizeof(why), "is stale: DPA ctx %u was destroyed", pv_addr_ctx(a));
	lc_expect_quiet();

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 0, 0, true), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", why);
	assert_int_equal(pv_mem_update(f, m, 0, 0, 1, true), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_update", why);
	assert_int_equal(pv_poll(f, m, RES_W, 0, NULL, NULL), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", why);

	assert_int_equal(doca_flow_dpa_init(f->proc, &f->ctx), DOCA_SUCCESS); /* for the teardown */
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ NOT_SUPPORTED */

/*
 * A queue type the call needs was not created: memory read without RESOURCES_READ,
 * update without RESOURCES_WRITE, hash calls without GENERAL; poll and flush on a type
 * that was not created.
 */
static void test_queue_type_not_created(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	struct doca_flow_dpa_external_resource *h;
	doca_flow_dpa_addr a;
	const struct doca_flow_dpa_queue_cfg gw[2] = {{GENERAL, 16, 1}, {RES_W, 16, 1}};
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], gw, 2), DOCA_SUCCESS);
	hash8(f, 0, 0, &dp, &a);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	doca_flow_dpa_addr m = pv_export_res(f->ctx, mem, MEM, &h);

	assert_int_equal(pv_mem_read(f, m, 0, 0, 1, 0, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read", "port 0 has no RESOURCES_READ queues");
	assert_int_equal(pv_mem_read(f, m, 0, 0, 8, 0, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read_range", "no RESOURCES_READ queues");
	assert_int_equal(pv_poll(f, m, RES_R, 0, NULL, NULL), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "no RESOURCES_READ queues");
	assert_int_equal(flush_q(f, a, RES_R, 0), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_queue_flush", "no RESOURCES_READ queues");
	/* What was created works. */
	assert_int_equal(pv_mem_update(f, m, 0, 2, 9, true), DOCA_SUCCESS);
	expect_completions(f, m, RES_W, 0, 1, 0);

	/* Queues again, RESOURCES_READ only: the exports stay, updates and hash calls have no queue. */
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_SUCCESS);
	assert_int_equal(lc_count("[WRN]", "still exported"), 2);
	dpa_test_log_clear();
	const struct doca_flow_dpa_queue_cfg r[1] = {{RES_R, 16, 1}};
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], r, 1), DOCA_SUCCESS);
	assert_int_equal(pv_mem_update(f, m, 0, 2, 9, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_update", "no RESOURCES_WRITE queues");
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 0, 0, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "no GENERAL queues");
	assert_int_equal(pv_poll(f, a, GENERAL, 0, NULL, NULL), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "no GENERAL queues");
	assert_int_equal(pv_mem_read(f, m, 0, 2, 1, 0, true), DOCA_SUCCESS);
	expect_completions(f, m, RES_R, 0, 1, 0);
	assert_int_equal(pv_scratch_u64(f, 0), 9);

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* A call on the wrong kind of export: memory calls on a pipe or an index selector, hash
 * calls on a resource, selector calls on memory: NOT_SUPPORTED naming both kinds. */
static void test_wrong_object_kind(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	struct doca_flow_dpa_external_resource *hs, *hm;
	doca_flow_dpa_addr a;
	hash8(f, 0, 0, &dp, &a);
	struct doca_flow_external_resource *sel = pv_res(f->ports[0], SEL, 8);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	doca_flow_dpa_addr s = pv_export_res(f->ctx, sel, SEL, &hs);
	doca_flow_dpa_addr m = pv_export_res(f->ctx, mem, MEM, &hm);

	assert_int_equal(pv_mem_update(f, s, 0, 0, 1, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_update",
				"'index selector' is an index-selector resource export; this call needs a memory resource");
	assert_int_equal(pv_mem_read(f, a, 0, 0, 1, 0, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read",
				"'HASH_PIPE' is a pipe export; this call needs a memory resource");
	assert_int_equal(pv_mem_read(f, s, 0, 0, 4, 0, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_external_resource_memory_read_range", "needs a memory resource");
	assert_int_equal(pv_hash(f, m, PV_T_DISABLE, 0, 0, 0, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index",
				"'memory' is a memory resource export; this call needs a pipe");
	assert_int_equal(pv_hash(f, s, PV_T_REPLACE, 0, 0, 5, true), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_pipe_hash_replace_index", "needs a pipe");
	assert_int_equal(pv_select(f, m, 0, 0, 1, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, false, true),
			 DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_external_resource_index_selector_modify",
				"this call needs an index-selector resource");
	assert_int_equal(pv_select(f, a, 0, 0, 40, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, true, true),
			 DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_external_resource_index_selector_modify_range", "needs an index-selector");
	/* Nothing was posted anywhere. */
	expect_no_completion(f, a, GENERAL, 0);
	expect_no_completion(f, m, RES_W, 0);
	expect_no_completion(f, m, RES_R, 0);

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, hs), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, hm), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ AGAIN, flush */

/*
 * A kernel that never polls: queue_size requests (flushed, so they even execute) fill
 * the queue, the next post returns AGAIN, and keeps doing so (a range that needs two
 * slots too) until a poll drains it; then posts succeed again. AGAIN is flow control,
 * not a mistake: no log line.
 */
static void test_again_until_polled(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	hash8(f, 0, 0, &dp, &a);

	for (uint32_t i = 0; i < 16; i++)
		assert_int_equal(pv_hash(f, a, i & 1 ? PV_T_ENABLE : PV_T_DISABLE, 0, i % 8, 0, true), DOCA_SUCCESS);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 0, 0, true), DOCA_ERROR_AGAIN);
		usleep(2000); /* executed or not, the requests are outstanding until polled */
	}
	lc_expect_quiet();
	expect_completions(f, a, GENERAL, 0, 16, 0);
	assert_int_equal(pv_hash(f, a, PV_T_ENABLE, 0, 0, 0, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 0);

	/* One slot left, a range needs two: AGAIN; after the poll it fits. */
	struct doca_flow_dpa_external_resource *h;
	struct doca_flow_external_resource *sel = pv_res(f->ports[0], SEL, 64);
	doca_flow_dpa_addr s = pv_export_res(f->ctx, sel, SEL, &h);
	for (uint32_t i = 0; i < 15; i++)
		assert_int_equal(pv_select(f, s, 0, i, 1, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE, false, true), DOCA_SUCCESS);
	assert_int_equal(pv_select(f, s, 0, 0, 64, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE, true, true), DOCA_ERROR_AGAIN);
	assert_int_equal(pv_select(f, s, 0, 0, 1, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE, false, true), DOCA_SUCCESS);
	assert_int_equal(pv_select(f, s, 0, 0, 1, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE, false, true), DOCA_ERROR_AGAIN);
	assert_int_equal(flush_q(f, s, RES_W, 0), DOCA_SUCCESS);
	lc_expect_quiet();
	expect_completions(f, s, RES_W, 0, 16, 0);
	assert_int_equal(pv_select(f, s, 0, 0, 64, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE, true, true), DOCA_SUCCESS);
	expect_completions(f, s, RES_W, 0, 2, 0);

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* A request posted without flush never executes nor completes (the entry keeps
 * forwarding) until doca_flow_queue_flush covers it. */
static void test_unflushed_never_completes(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	struct doca_flow_pipe *pipe = hash8(f, 0, 0, &dp, &a);
	uint32_t dst = pv_dst_for(pipe, 4, 8);

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 4, 0, false), DOCA_SUCCESS);
	expect_no_completion(f, a, GENERAL, 0);
	assert_int_equal(pv_send(dst), 104);
	/* Flushed through any export of the ctx on that port. */
	struct doca_flow_dpa_external_resource *h;
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	doca_flow_dpa_addr m = pv_export_res(f->ctx, mem, MEM, &h);
	assert_int_equal(flush_q(f, m, GENERAL, 0), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 0);
	assert_int_equal(pv_send(dst), 0);
	/* A flush with nothing new is harmless. */
	assert_int_equal(flush_q(f, a, GENERAL, 0), DOCA_SUCCESS);
	expect_no_completion(f, a, GENERAL, 0);
	/* Ranges too: 64 indices, 2 requests, none executed before the flush. */
	struct doca_flow_dpa_external_resource *hs;
	struct doca_flow_external_resource *sel = pv_res(f->ports[0], SEL, 64);
	doca_flow_dpa_addr s = pv_export_res(f->ctx, sel, SEL, &hs);
	assert_int_equal(pv_select(f, s, 0, 0, 64, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, true, false), DOCA_SUCCESS);
	expect_no_completion(f, s, RES_W, 0);
	enum doca_flow_index_selector_op st = DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE;
	assert_int_equal(doca_flow_external_resource_index_selector_get(sel, 40, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE);
	assert_int_equal(flush_q(f, s, RES_W, 0), DOCA_SUCCESS);
	expect_completions(f, s, RES_W, 0, 2, 0);
	assert_int_equal(doca_flow_external_resource_index_selector_get(sel, 40, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, hs), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ IO_FAILED */

/*
 * doca_flow_dpa_queues_destroy while an export lives and a request is in flight: allowed
 * with WARNINGs (the live export, the never-flushed request); every DPA call on the
 * destroyed queue then fails with IO_FAILED. New queues make the address work again.
 */
static void test_io_failed_after_queues_destroy(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	struct doca_flow_pipe *pipe = hash8(f, 0, 0, &dp, &a);
	uint32_t dst = pv_dst_for(pipe, 6, 8);

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 6, 0, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_SUCCESS);
	assert_int_equal(dpa_test_log_count("[ERR]", (const char *)NULL), 0);
	assert_int_equal(lc_count("[WRN]", "doca_flow_dpa_queues_destroy", "'HASH_PIPE' is still exported",
				  "IO_FAILED"),
			 1);
	assert_int_equal(lc_count("[WRN]", "doca_flow_dpa_queues_destroy", "queue GENERAL/0",
				  "1 requests were posted and never flushed"),
			 1);
	assert_int_equal(dpa_test_log_count("[WRN]", (const char *)NULL), 2);
	dpa_test_log_clear();

	assert_int_equal(pv_poll(f, a, GENERAL, 0, NULL, NULL), DOCA_ERROR_IO_FAILED);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "GENERAL queue 0 of port 0 was destroyed");
	assert_int_equal(flush_q(f, a, GENERAL, 0), DOCA_ERROR_IO_FAILED);
	dpa_test_expect_one_log("doca_flow_queue_flush", "was destroyed");
	assert_int_equal(pv_hash(f, a, PV_T_ENABLE, 0, 6, 0, true), DOCA_ERROR_IO_FAILED);
	dpa_test_expect_one_log("doca_flow_pipe_hash_enable_index", "was destroyed", "doca_flow_dpa_queues_destroy");
	usleep(3000);
	assert_int_equal(pv_send(dst), 106); /* the request in flight never ran */

	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], pv_all_queues, 3), DOCA_SUCCESS);
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 6, 0, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 0);
	assert_int_equal(pv_send(dst), 0);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ DRIVER */

static int setup_fault_poll(void **state)
{
	lc_env("FLOWDPA_FAULTS", "queue_poll");
	return setup_all(state);
}

static int setup_fault_flush(void **state)
{
	lc_env("FLOWDPA_FAULTS", "queue_flush");
	return setup_all(state);
}

static int teardown_faults(void **state)
{
	int rc = teardown(state);
	lc_env("FLOWDPA_FAULTS", NULL);
	return rc;
}

/* FLOWDPA_FAULTS=queue_poll: posts work (and execute), every poll fails with DRIVER. */
static void test_fault_queue_poll(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	struct doca_flow_pipe *pipe = hash8(f, 0, 0, &dp, &a);
	uint32_t dst = pv_dst_for(pipe, 2, 8);

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 2, 0, true), DOCA_SUCCESS);
	assert_int_equal(pv_poll(f, a, GENERAL, 0, NULL, NULL), DOCA_ERROR_DRIVER);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "driver failure", "fault injected");
	assert_int_equal(pv_poll(f, a, GENERAL, 0, NULL, NULL), DOCA_ERROR_DRIVER);
	dpa_test_expect_one_log("doca_flow_queue_poll_completion", "driver failure");
	for (int i = 0; i < 200 && pv_send(dst) != 0; i++)
		usleep(1000);
	assert_int_equal(pv_send(dst), 0); /* the flushed disable executed */
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* FLOWDPA_FAULTS=queue_flush: doca_flow_queue_flush fails with DRIVER, and what it should
 * have covered does not execute. */
static void test_fault_queue_flush(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	struct doca_flow_pipe *pipe = hash8(f, 0, 0, &dp, &a);

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 2, 0, false), DOCA_SUCCESS);
	assert_int_equal(flush_q(f, a, GENERAL, 0), DOCA_ERROR_DRIVER);
	dpa_test_expect_one_log("doca_flow_queue_flush", "driver failure", "fault injected");
	expect_no_completion(f, a, GENERAL, 0);
	assert_int_equal(pv_send(pv_dst_for(pipe, 2, 8)), 102);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ execution failures */

/*
 * Failures at execution are completions with failure: the post returns DOCA_SUCCESS,
 * num_failed counts them, each is logged with its cause. An index beyond the export (in
 * the pipe or not), a replace value above 16 bits, cells and indices beyond a resource.
 */
static void test_execution_failures(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	struct doca_flow_dpa_external_resource *hs, *hm;
	doca_flow_dpa_addr a;
	struct doca_flow_pipe *pipe = hash8(f, 0, 4, &dp, &a); /* entries 0..3 of 8 exported */
	struct doca_flow_external_resource *sel = pv_res(f->ports[0], SEL, 16);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 16);
	doca_flow_dpa_addr s = pv_export_res(f->ctx, sel, SEL, &hs);
	doca_flow_dpa_addr m = pv_export_res(f->ctx, mem, MEM, &hm);

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 5, 0, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 1);
	dpa_test_expect_one_log("disable of 'HASH_PIPE' index 5", "failed at execution", "index beyond the export");
	assert_int_equal(pv_send(pv_dst_for(pipe, 5, 8)), 105);
	assert_int_equal(pv_hash(f, a, PV_T_ENABLE, 0, 100, 0, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 1);
	dpa_test_expect_one_log("enable of 'HASH_PIPE' index 100", "index beyond the export");
	assert_int_equal(pv_hash(f, a, PV_T_REPLACE, 0, 1, 70000, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 1);
	dpa_test_expect_one_log("replace of 'HASH_PIPE' index 1 (value 70000)", "does not fit the path-selector field");
	assert_int_equal(pv_send(pv_dst_for(pipe, 1, 8)), 101);
	/* The largest 16-bit value fits; mixed with failures, only those count as failed. */
	assert_int_equal(pv_hash(f, a, PV_T_REPLACE, 0, 1, 65535, false), DOCA_SUCCESS);
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 4, 0, false), DOCA_SUCCESS);
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 3, 0, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 3, 1);
	dpa_test_expect_one_log("disable of 'HASH_PIPE' index 4", "index beyond the export");
	assert_int_equal(pv_send(pv_dst_for(pipe, 1, 8)), 65535);
	assert_int_equal(pv_send(pv_dst_for(pipe, 3, 8)), 0);

	assert_int_equal(pv_mem_update(f, m, 0, 16, 1, true), DOCA_SUCCESS);
	expect_completions(f, m, RES_W, 0, 1, 1);
	dpa_test_expect_one_log("memory update of 'memory' index 16", "failed at execution", "beyond the export");
	assert_int_equal(pv_mem_read(f, m, 0, 12, 8, 0, true), DOCA_SUCCESS); /* cells 12..19 of 16 */
	expect_completions(f, m, RES_R, 0, 1, 1);
	dpa_test_expect_one_log("memory read of 'memory' index 12", "beyond the export");
	assert_int_equal(pv_select(f, s, 0, 16, 1, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, false, true), DOCA_SUCCESS);
	expect_completions(f, s, RES_W, 0, 1, 1);
	dpa_test_expect_one_log("index-selector modify of 'index selector' index 16", "beyond the export");

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, hs), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, hm), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* disable on an IDENTITY hash pipe fails at execution (IDENTITY supports update only);
 * replace works on it. */
static void test_execution_disable_identity(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	hash8(f, DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY, 0, &dp, &a);

	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 2, 0, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 1);
	dpa_test_expect_one_log("disable of 'HASH_PIPE' index 2", "failed at execution", "IDENTITY map algorithm");
	assert_int_equal(pv_hash(f, a, PV_T_REPLACE, 0, 2, 555, true), DOCA_SUCCESS);
	expect_completions(f, a, GENERAL, 0, 1, 0);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* A kernel looping on a bad index: 1000 failed completions, far fewer log lines (the
 * first few, then one per power of two). */
static void test_execution_failures_rate_limited(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	uint64_t ret = 0;
	hash8(f, 0, 0, &dp, &a);

	dpa_test_log_quiet(true);
	assert_int_equal(doca_dpa_rpc(f->dpa, &pv_fail_loop_rpc, &ret, a, (uint32_t)PV_T_DISABLE, (uint32_t)0,
				      (uint32_t)100, (uint32_t)0, (uint32_t)1000, (uint32_t)16),
			 DOCA_SUCCESS);
	dpa_test_log_quiet(false);
	assert_int_equal(ret & 0xffffffffu, 1000);
	assert_int_equal(ret >> 32, 1000);
	int lines = lc_count("[ERR]", "disable of 'HASH_PIPE' index 100", "failed at execution");
	print_message("1000 failed requests, %d log lines\n", lines);
	assert_int_equal(dpa_test_log_count("[ERR]", (const char *)NULL), lines);
	assert_true(lines >= 5 && lines <= 16); /* 5 + one per power of two up to 512 */
	assert_int_equal(lc_count("[ERR]", "logged at powers of two"), lines - 4);
	dpa_test_log_clear();
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/*
 * A kernel looping on a refused call: 1000 refusals, few lines. A different mistake
 * right after still gets its line, and so does the same mistake in another DPA process.
 */
static void test_call_errors_rate_limited(void **state)
{
	struct pv_fx *f = *state;
	uint64_t ret = 0;
	struct lc_ctx2 c2;
	uint64_t on_stack = 0;

	dpa_test_log_quiet(true);
	assert_int_equal(doca_dpa_rpc(f->dpa, &pv_bad_call_loop_rpc, &ret, (uint64_t)BAD_MAGIC_ADDR, (uint32_t)1000),
			 DOCA_SUCCESS);
	dpa_test_log_quiet(false);
	assert_int_equal(ret, 1000);
	int lines = lc_count("[ERR]", "doca_flow_pipe_hash_disable_index", "bad magic");
	print_message("1000 refused calls, %d log lines\n", lines);
	assert_int_equal(dpa_test_log_count("[ERR]", (const char *)NULL), lines);
	assert_true(lines >= 5 && lines <= 16);
	dpa_test_log_clear();

	assert_int_equal(pv_hash(f, (uint64_t)(uintptr_t)&on_stack, PV_T_DISABLE, 0, 0, 0, true),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "is a host pointer");
	lc_ctx2_open(f, &c2, NULL, 0);
	assert_int_equal(doca_dpa_rpc(c2.dpa, &pv_bad_call_loop_rpc, &ret, (uint64_t)BAD_MAGIC_ADDR, (uint32_t)1),
			 DOCA_SUCCESS);
	assert_int_equal(ret, 1);
	dpa_test_expect_one_log("doca_flow_pipe_hash_disable_index", "bad magic");
	lc_ctx2_close(f, &c2);
	lc_expect_quiet();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_addr_bad_magic, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_addr_host_pointer, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_addr_of_another_ctx, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_queue_id_out_of_range, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_range_nr, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_out_pointers, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_stale_after_export_destroy, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_stale_after_ctx_destroy, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_queue_type_not_created, setup_noq, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_object_kind, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_again_until_polled, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_unflushed_never_completes, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_io_failed_after_queues_destroy, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_fault_queue_poll, setup_fault_poll, teardown_faults),
		cmocka_unit_test_setup_teardown(test_fault_queue_flush, setup_fault_flush, teardown_faults),
		cmocka_unit_test_setup_teardown(test_execution_failures, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_execution_disable_identity, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_execution_failures_rate_limited, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_call_errors_rate_limited, setup_all, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
