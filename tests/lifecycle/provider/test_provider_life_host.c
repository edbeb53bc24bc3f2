/*
 * test_provider_life_host.c - a negative test for every host-side error row of
 * API-PROVIDER.md (doca_flow_dpa_provider.h): each asserts the code and the one line the
 * refusal logged, and where the refusal must leave things as they were, that the next
 * correct call still works. Runs with FLOWDPA_DEVICES=bf3,bf2 (device 1 has no DPA), in
 * both NIC modes.
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

/* ------------------------------------------------------------------ INVALID_VALUE */

/* Every call, every NULL handle and out pointer: INVALID_VALUE, one line naming the call
 * and the argument; out pointers are reset. */
static void test_null_arguments(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_ctx *c = (void *)1;
	struct doca_flow_dpa_pipe *dp = NULL, *dp2 = (void *)1;
	struct doca_flow_dpa_external_resource *h = NULL, *h2 = (void *)1;
	doca_flow_dpa_addr a = 0;
	struct pv_pipe_opts o = {.nr_entries = 8, .no_export = true};
	struct doca_flow_pipe *pipe = pv_hash_pipe(f, &o, &dp, &a, NULL);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	pv_export_res(f->ctx, mem, MEM, &h);
	dpa_test_log_clear();

	assert_int_equal(doca_flow_dpa_init(NULL, &c), DOCA_ERROR_INVALID_VALUE);
	assert_null(c);
	dpa_test_expect_one_log("doca_flow_dpa_init", "process is NULL");
	static uint64_t junk[64];
	assert_int_equal(doca_flow_dpa_init((struct flexio_process *)junk, &c), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_init", "not a DPA process");
	assert_int_equal(doca_flow_dpa_init(f->proc, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_init", "ctx out pointer is NULL");

	assert_int_equal(doca_flow_dpa_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_destroy", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_destroy((struct doca_flow_dpa_ctx *)junk), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_destroy", "not a DPA provider context");

	assert_int_equal(doca_flow_dpa_queues_create(NULL, f->ports[1], pv_all_queues, 3), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, NULL, pv_all_queues, 3), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "port is NULL");
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[1], NULL, 3), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "queue_cfgs is NULL");

	assert_int_equal(doca_flow_dpa_queues_destroy(NULL, f->ports[0]), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_destroy", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_destroy", "port is NULL");

	assert_int_equal(doca_flow_dpa_pipe_export_prepare(NULL, pipe, 8, &dp2), DOCA_ERROR_INVALID_VALUE);
	assert_null(dp2);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, NULL, 8, &dp2), DOCA_ERROR_INVALID_VALUE);
	assert_null(dp2);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "pipe is NULL");
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "dpa_pipe out pointer is NULL");

	assert_int_equal(doca_flow_dpa_pipe_export(NULL, dp), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export", "dpa_pipe is NULL");
	/* A resource handle where a pipe handle belongs. */
	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, (struct doca_flow_dpa_pipe *)h), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export", "is not an export handle");

	a = 1;
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(NULL, dp, &a), DOCA_ERROR_INVALID_VALUE);
	assert_true(a == 0);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_get_device_addr", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, NULL, &a), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_get_device_addr", "dpa_pipe is NULL");
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, dp, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_get_device_addr", "dev_addr is NULL");

	assert_int_equal(doca_flow_dpa_pipe_destroy(NULL, dp), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_destroy", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_destroy", "dpa_pipe is NULL");

	assert_int_equal(doca_flow_dpa_external_resource_export(NULL, MEM, mem, &h2), DOCA_ERROR_INVALID_VALUE);
	assert_null(h2);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, NULL, &h2), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "resource_ctx is NULL");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, mem, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "dpa_resource out pointer is NULL");
	/* A pipe where a resource belongs. */
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, pipe, &h2), DOCA_ERROR_INVALID_VALUE);
	assert_null(h2);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "not a live external resource");

	assert_int_equal(doca_flow_dpa_external_resource_get_device_addr(NULL, h, &a), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_get_device_addr", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_external_resource_get_device_addr(f->ctx, NULL, &a), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_get_device_addr", "dpa_resource is NULL");
	assert_int_equal(doca_flow_dpa_external_resource_get_device_addr(f->ctx, h, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_get_device_addr", "dev_addr is NULL");
	assert_int_equal(doca_flow_dpa_external_resource_get_device_addr(f->ctx,
									 (struct doca_flow_dpa_external_resource *)dp, &a),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_get_device_addr", "is not an export handle");

	assert_int_equal(doca_flow_dpa_external_resource_destroy(NULL, h), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_destroy", "ctx is NULL");
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_destroy", "dpa_resource is NULL");

	/* Nothing was changed by the refusals: the handles still work. */
	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, dp, &a), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

static doca_error_t create1(struct pv_fx *f, uint32_t type, uint32_t size, uint32_t nr)
{
	struct doca_flow_dpa_queue_cfg c = {(enum doca_flow_dpa_queue_type)type, size, nr};
	return doca_flow_dpa_queues_create(f->ctx, f->ports[0], &c, 1);
}

/* queue_size 0 / not a power of 2, nr_queues 0, an unknown or repeated type,
 * num_queue_cfgs 0: INVALID_VALUE, and no queue is left behind. */
static void test_queue_cfg_invalid(void **state)
{
	struct pv_fx *f = *state;

	assert_int_equal(create1(f, GENERAL, 0, 1), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "queue_cfgs[0] (GENERAL)", "power of 2", "queue_size 0");
	assert_int_equal(create1(f, GENERAL, 12, 1), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "power of 2", "queue_size 12");
	assert_int_equal(create1(f, RES_W, 16, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "RESOURCES_WRITE", "nr_queues is 0");
	assert_int_equal(create1(f, 3, 16, 1), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "unknown queue type 3");
	assert_int_equal(create1(f, (uint32_t)-1, 16, 1), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "unknown queue type");
	const struct doca_flow_dpa_queue_cfg rep[3] = {{GENERAL, 16, 1}, {RES_R, 16, 1}, {GENERAL, 8, 2}};
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], rep, 3), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "queue_cfgs[2]", "repeated queue type 0");
	/* A bad second cfg refuses the whole call: the good first one is not created. */
	const struct doca_flow_dpa_queue_cfg bad2[2] = {{GENERAL, 16, 1}, {RES_W, 3, 1}};
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], bad2, 2), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "queue_cfgs[1]", "power of 2");
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], pv_all_queues, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "num_queue_cfgs is 0");

	/* The port has no queues after all that: destroy says so, and a good create works. */
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_destroy", "has no queues in ctx");
	assert_int_equal(create1(f, GENERAL, 1, 1), DOCA_SUCCESS); /* 1 is a power of 2 */
	lc_expect_quiet();
}

/* More queues or deeper queues than the device allows (64 per type, 32768 deep on the
 * emulated BlueField-3): NOT_SUPPORTED naming the limit; the limits themselves work. */
static void test_queue_cfg_beyond_device(void **state)
{
	struct pv_fx *f = *state;

	assert_int_equal(create1(f, GENERAL, 16, 65), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "65 queues of 16", "at most 64 queues of 32768");
	assert_int_equal(create1(f, RES_R, 65536, 1), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "RESOURCES_READ", "1 queues of 65536",
				"at most 64 queues of 32768");
	assert_int_equal(create1(f, GENERAL, 1u << 31, 1), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "at most 64 queues of 32768");

	const struct doca_flow_dpa_queue_cfg max[2] = {{GENERAL, 16, 64}, {RES_W, 32768, 1}};
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], max, 2), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ queues BAD_STATE */

/* Queues twice on a port: BAD_STATE; other ports and other contexts are independent. */
static void test_queues_twice(void **state)
{
	struct pv_fx *f = *state;
	struct lc_ctx2 c2;

	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], pv_all_queues, 3), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "port 0 already has queues in ctx",
				"doca_flow_dpa_queues_destroy");
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], pv_all_queues, 1), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "already has queues");
	/* Another port of the same ctx, and the same port in another ctx, are fine. */
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[1], pv_all_queues, 3), DOCA_SUCCESS);
	lc_ctx2_open(f, &c2, pv_all_queues, 3);
	/* Destroyed: they can be created again; destroyed twice: BAD_STATE. */
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[1]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[1]), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_destroy", "the port has no queues in ctx");
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[1], pv_all_queues, 3), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[1]), DOCA_SUCCESS);
	lc_ctx2_close(f, &c2);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ export_prepare */

/* nr_entries 0 or above the pipe's size: INVALID_VALUE; the pipe's size itself works. */
static void test_prepare_nr_entries(void **state)
{
	struct pv_fx *f = *state;
	struct pv_pipe_opts o = {.nr_entries = 8};
	struct doca_flow_pipe *pipe = pv_hash_pipe_create(f, &o);
	struct doca_flow_dpa_pipe *dp = (void *)1;

	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 0, &dp), DOCA_ERROR_INVALID_VALUE);
	assert_null(dp);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "nr_entries is 0");
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 9, &dp), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "'HASH_PIPE'", "nr_entries 9 is above the pipe's size (8)");
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, UINT32_MAX, &dp), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "above the pipe's size");
	/* The refusals held nothing: the pipe can be destroyed and prepared again. */
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, &dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	doca_flow_pipe_destroy(pipe);
	lc_expect_quiet();
}

/* export_prepare on a BASIC pipe: NOT_SUPPORTED (only HASH pipes are exported). */
static void test_prepare_basic_pipe(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe *basic = ft_udp_dport_pipe(f->ports[0], "BASIC_PIPE", true, 8, &fwd, &miss);
	struct doca_flow_dpa_pipe *dp = (void *)1;
	assert_non_null(basic);
	dpa_test_log_clear();

	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, basic, 8, &dp), DOCA_ERROR_NOT_SUPPORTED);
	assert_null(dp);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "pipe 'BASIC_PIPE' is not a HASH pipe");
	/* Nothing holds the pipe: it is destroyed without a complaint. */
	doca_flow_pipe_destroy(basic);
	lc_expect_quiet();
}

/* export_prepare before queues_create, or with no GENERAL queue: BAD_STATE. */
static void test_prepare_without_queues(void **state)
{
	struct pv_fx *f = *state;
	struct pv_pipe_opts o = {.nr_entries = 8};
	struct doca_flow_pipe *pipe = pv_hash_pipe_create(f, &o);
	struct doca_flow_dpa_pipe *dp = NULL;

	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, &dp), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "'HASH_PIPE'", "port 0 has no GENERAL queue",
				"doca_flow_dpa_queues_create");
	const struct doca_flow_dpa_queue_cfg res_only[2] = {{RES_W, 16, 1}, {RES_R, 16, 1}};
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], res_only, 2), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, &dp), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "no GENERAL queue");
	/* The refusal held nothing: the pipe goes. */
	doca_flow_pipe_destroy(pipe);
	lc_expect_quiet();
}

/* External resource export without the queue types it needs: BAD_STATE (index selector
 * needs RESOURCES_WRITE; memory needs RESOURCES_WRITE or RESOURCES_READ). */
static void test_resource_export_needs_queues(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_external_resource *sel = pv_res(f->ports[0], SEL, 16);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 16);
	struct doca_flow_dpa_external_resource *h = (void *)1, *h2 = NULL;

	/* No queues at all. */
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, SEL, sel, &h), DOCA_ERROR_BAD_STATE);
	assert_null(h);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "index-selector resource needs RESOURCES_WRITE",
				"port 0");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, mem, &h), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export",
				"memory resource needs RESOURCES_WRITE or RESOURCES_READ");

	/* GENERAL only. */
	assert_int_equal(create1(f, GENERAL, 16, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, SEL, sel, &h), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "needs RESOURCES_WRITE");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, mem, &h), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "needs RESOURCES_WRITE or RESOURCES_READ");
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_SUCCESS);

	/* RESOURCES_READ only: memory yes, index selector no. */
	assert_int_equal(create1(f, RES_R, 16, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, SEL, sel, &h), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "needs RESOURCES_WRITE");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, mem, &h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_SUCCESS);

	/* RESOURCES_WRITE only: both. */
	assert_int_equal(create1(f, RES_W, 16, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, SEL, sel, &h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, mem, &h2), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h2), DOCA_SUCCESS);

	/* The refused exports held nothing. */
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* The resource type does not match the handle: INVALID_VALUE; a type that cannot be
 * exported: NOT_SUPPORTED. */
static void test_resource_type(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_external_resource *sel = pv_res(f->ports[0], SEL, 16);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 16);
	struct doca_flow_dpa_external_resource *h = (void *)1;

	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, sel, &h), DOCA_ERROR_INVALID_VALUE);
	assert_null(h);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "is an index-selector resource",
				"not the type given");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, SEL, mem, &h), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "is a memory resource", "not the type given");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, (enum doca_flow_external_resource_type)2, mem,
								&h),
			 DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "resource type 2 cannot be exported");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, (enum doca_flow_external_resource_type)-1,
								sel, &h),
			 DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "resource type -1 cannot be exported");

	/* Nothing holds them. */
	assert_int_equal(doca_flow_external_resource_destroy(sel), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* Handles of another provider ctx (a ctx on a second DPA context of device 0):
 * INVALID_VALUE for every call taking one, naming both contexts; nothing changes. */
static void test_handles_of_another_ctx(void **state)
{
	struct pv_fx *f = *state;
	struct lc_ctx2 c2;
	struct doca_flow_dpa_pipe *dp;
	struct doca_flow_dpa_external_resource *h, *h2;
	doca_flow_dpa_addr a = 0;
	struct pv_pipe_opts o = {.nr_entries = 8, .no_export = true};
	pv_hash_pipe(f, &o, &dp, &a, NULL);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	uint32_t id1 = pv_addr_ctx(pv_export_res(f->ctx, mem, MEM, &h));
	lc_ctx2_open(f, &c2, pv_all_queues, 3);
	/* The other ctx may export the same resource: its own export, its own id. */
	uint32_t id2 = pv_addr_ctx(pv_export_res(c2.ctx, mem, MEM, &h2));
	assert_int_not_equal(id1, id2);
	char why[64];
	snprintf(why, sizeof(why), "belongs to DPA ctx %u, not to ctx %u", id1, id2);
	dpa_test_log_clear();

	assert_int_equal(doca_flow_dpa_pipe_export(c2.ctx, dp), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export", "dpa_pipe", why);
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(c2.ctx, dp, &a), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_get_device_addr", why);
	assert_int_equal(doca_flow_dpa_pipe_destroy(c2.ctx, dp), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_destroy", why);
	assert_int_equal(doca_flow_dpa_external_resource_get_device_addr(c2.ctx, h, &a), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_get_device_addr", "dpa_resource", why);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(c2.ctx, h), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_destroy", why);
	snprintf(why, sizeof(why), "belongs to DPA ctx %u, not to ctx %u", id2, id1);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h2), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_destroy", why);

	/* Untouched: each owner still uses its handles. */
	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, dp, &a), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(c2.ctx, h2), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	lc_ctx2_close(f, &c2);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ export BAD_STATE */

/* Exported twice (and prepared twice, resource exported twice): BAD_STATE. */
static void test_export_twice(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp, *dp2 = (void *)1;
	struct doca_flow_dpa_external_resource *h, *h2 = (void *)1;
	doca_flow_dpa_addr a = 0, a2 = 0;
	struct pv_pipe_opts o = {.nr_entries = 8};
	struct doca_flow_pipe *pipe = pv_hash_pipe(f, &o, &dp, &a, NULL);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	pv_export_res(f->ctx, mem, MEM, &h);
	dpa_test_log_clear();

	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, dp), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export", "pipe 'HASH_PIPE' is already exported");
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, &dp2), DOCA_ERROR_BAD_STATE);
	assert_null(dp2);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "'HASH_PIPE' is already exported by ctx");
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, mem, &h2), DOCA_ERROR_BAD_STATE);
	assert_null(h2);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "'memory' is already exported by ctx");
	/* The export is unchanged: same address. */
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, dp, &a2), DOCA_SUCCESS);
	assert_true(a == a2);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* get_device_addr before export: BAD_STATE; after it, the address. */
static void test_addr_before_export(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a = 0;
	struct pv_pipe_opts o = {.nr_entries = 8, .no_export = true};
	pv_hash_pipe(f, &o, &dp, &a, NULL);
	dpa_test_log_clear();

	a = 1;
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, dp, &a), DOCA_ERROR_BAD_STATE);
	assert_true(a == 0);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_get_device_addr", "'HASH_PIPE' is prepared but not exported yet",
				"doca_flow_dpa_pipe_export");
	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, dp, &a), DOCA_SUCCESS);
	assert_true(a != 0);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* export after the pipe went (its port's pipes were flushed): BAD_STATE; the export can
 * still be destroyed. */
static void test_export_pipe_gone(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a = 0;
	struct pv_pipe_opts o = {.nr_entries = 8, .no_export = true};
	pv_hash_pipe(f, &o, &dp, &a, NULL);
	dpa_test_log_clear();

	doca_flow_port_pipes_flush(f->ports[0]);
	lc_expect_one_warn("'HASH_PIPE' was still exported (DPA ctx", "DPA requests on it now fail");
	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, dp), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export", "pipe 'HASH_PIPE' is gone");
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ctx destroy with live exports and queues: BAD_STATE, one line listing all of them;
 * then with the queues only; doca_dpa_destroy is refused while the ctx holds the process. */
static void test_destroy_with_live_objects(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	struct doca_flow_dpa_external_resource *h;
	doca_flow_dpa_addr a = 0;
	struct pv_pipe_opts o = {.nr_entries = 8};
	pv_hash_pipe(f, &o, &dp, &a, NULL);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	pv_export_res(f->ctx, mem, MEM, &h);
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[1], pv_all_queues, 1), DOCA_SUCCESS);
	dpa_test_log_clear();

	assert_int_equal(doca_flow_dpa_destroy(f->ctx), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_destroy", "still has", "pipe export 'HASH_PIPE'",
				"resource export 'memory'", "queues of port 0", "queues of port 1");
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_destroy(f->ctx), DOCA_ERROR_BAD_STATE);
	assert_int_equal(lc_count("[ERR]", "export '"), 0);
	dpa_test_expect_one_log("doca_flow_dpa_destroy", "still has queues of port 0, queues of port 1");
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[1]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_destroy(f->ctx), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_destroy", "still has queues of port 0;");

	/* The provider ctx holds the DPA process. */
	assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_ERROR_IN_USE);
	assert_int_equal(dpa_test_log_count("[ERR]", (const char *)NULL), 1);
	dpa_test_log_clear();

	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_destroy(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_init(f->proc, &f->ctx), DOCA_SUCCESS); /* for the teardown */
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/*
 * doca_flow_pipe_destroy of an exported pipe: it returns nothing, so the refusal is an
 * ERROR line naming the export, and the pipe stays, forwarding and taking DPA requests.
 * An exported resource is refused the same way (BAD_STATE).
 */
static void test_flow_destroy_exported(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_pipe_entry *e[8];
	struct doca_flow_dpa_pipe *dp;
	struct doca_flow_dpa_external_resource *h;
	doca_flow_dpa_addr a = 0;
	uint32_t done = 0, failed = 0;
	struct pv_pipe_opts o = {.nr_entries = 8};
	struct doca_flow_pipe *pipe = pv_hash_pipe(f, &o, &dp, &a, e);
	struct doca_flow_external_resource *mem = pv_res(f->ports[0], MEM, 8);
	pv_export_res(f->ctx, mem, MEM, &h);
	uint32_t dst = pv_dst_for(pipe, 2, 8);
	char holder[32];
	dpa_test_log_clear();

	doca_flow_pipe_destroy(pipe);
	dpa_test_expect_one_log("doca_flow_pipe_destroy", "pipe 'HASH_PIPE' is exported (DPA ctx",
				"doca_flow_dpa_pipe_destroy", "not destroyed");
	assert_int_equal(pv_send(dst), 102);
	assert_int_equal(ft_entry_pkts(e[2]), 1);
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 2, 0, true), DOCA_SUCCESS);
	pv_poll_until(f, a, GENERAL, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 0);
	assert_int_equal(pv_send(dst), 0);
	assert_int_equal(ft_miss_pkts(pipe), 1);

	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_ERROR_BAD_STATE);
	snprintf(holder, sizeof(holder), "exported (DPA ctx");
	dpa_test_expect_one_log("doca_flow_external_resource_destroy", holder);

	/* Once the exports are gone, both go quietly. */
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	doca_flow_pipe_destroy(pipe);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(mem), DOCA_SUCCESS);
	lc_expect_quiet();
}

/*
 * export_prepare after entries were added: a WARNING naming the pipe and the count; DPA
 * requests on those entries complete with failure (num_failed), on the later ones they
 * succeed; the entries themselves still forward.
 */
static void test_prepare_after_entries(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_pipe_entry *e[8];
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a = 0;
	uint32_t done = 0, failed = 0;
	struct pv_pipe_opts o = {.nr_entries = 8, .add_before = 3};
	struct doca_flow_pipe *pipe = pv_hash_pipe(f, &o, &dp, &a, e);

	lc_expect_one_warn("doca_flow_dpa_pipe_export_prepare", "pipe 'HASH_PIPE' already holds 3 entries",
			   "add them after this call", "those 3 entries will fail");
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, i, 0, i == 2), DOCA_SUCCESS);
	pv_poll_until(f, a, GENERAL, 0, 3, &done, &failed);
	assert_int_equal(done, 3);
	assert_int_equal(failed, 3);
	assert_int_equal(lc_count("[ERR]", "disable of 'HASH_PIPE'", "failed at execution",
				  "added before doca_flow_dpa_pipe_export_prepare"),
			 3);
	dpa_test_log_clear();
	/* Still forwarding (the disables failed), and entry 3 on is exported. */
	assert_int_equal(pv_send(pv_dst_for(pipe, 1, 8)), 101);
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, 3, 0, true), DOCA_SUCCESS);
	pv_poll_until(f, a, GENERAL, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 0);
	assert_int_equal(pv_send(pv_dst_for(pipe, 3, 8)), 0);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

static int setup_strict(void **state)
{
	lc_env("FLOWDPA_STRICT", "1");
	*state = pv_fx_open(pv_all_queues, 3);
	return 0;
}

static int teardown_env(void **state)
{
	int rc = lc_fx_close(*state);
	lc_env("FLOWDPA_STRICT", NULL);
	lc_env("FLOWDPA_FAULTS", NULL);
	lc_env("FLOWDPA_DPA_HEAP_SIZE", NULL);
	return rc;
}

/* The same mistake under FLOWDPA_STRICT=1: BAD_STATE, one ERROR line; preparing before
 * the entries is fine. */
static void test_prepare_after_entries_strict(void **state)
{
	struct pv_fx *f = *state;
	struct pv_pipe_opts o = {.nr_entries = 8};
	struct doca_flow_pipe *pipe = pv_hash_pipe_create(f, &o);
	struct doca_flow_dpa_pipe *dp = (void *)1;
	doca_flow_dpa_addr a = 0;

	pv_hash_pipe_add(f, pipe, 0, NULL);
	pv_hash_pipe_add(f, pipe, 5, NULL);
	assert_int_equal(doca_flow_entries_process(f->ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, &dp), DOCA_ERROR_BAD_STATE);
	assert_null(dp);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "pipe 'HASH_PIPE' already holds 2 entries",
				"FLOWDPA_STRICT=1");
	assert_int_equal(dpa_test_log_count("[WRN]", (const char *)NULL), 0);
	/* Nothing holds the pipe; a new one prepared before its entries exports. */
	doca_flow_pipe_destroy(pipe);
	lc_expect_quiet();
	pv_hash_pipe(f, &o, &dp, &a, NULL);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* ------------------------------------------------------------------ NOT_SUPPORTED: no DPA */

/*
 * A device without a DPA (device 1 is an emulated BlueField-2): doca_dpa_create refuses,
 * so no DPA process of it exists for doca_flow_dpa_init to be handed.
 */
static void test_device_without_dpa(void **state)
{
	(void)state;
	pv_log_ready();
	struct doca_dev *bf2 = dpa_test_open_dev(1);
	struct doca_dpa *dpa = (void *)1;
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_create(bf2, &dpa), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_one_log("doca_dpa_create", "has no DPA");
	assert_int_equal(doca_dev_close(bf2), DOCA_SUCCESS);
}

/*
 * doca_flow_dpa_init's own check, on a process whose device no longer has a DPA: in a
 * child, device 0 is re-configured as a BlueField-2 under a live process.
 */
static int init_no_dpa_child(void)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	struct doca_dev *dev = NULL;
	struct doca_dpa *dpa = NULL;
	struct flexio_process *proc = NULL;
	struct doca_flow_dpa_ctx *ctx = (void *)1;
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || n < 1 || doca_dev_open(list[0], &dev) != DOCA_SUCCESS)
		return 1;
	doca_devinfo_destroy_list(list);
	if (doca_dpa_create(dev, &dpa) != DOCA_SUCCESS || doca_dpa_set_app(dpa, provider_test_app) != DOCA_SUCCESS ||
	    doca_dpa_start(dpa) != DOCA_SUCCESS || doca_dpa_get_flexio_process(dpa, &proc) != DOCA_SUCCESS)
		return 2;
	setenv("FLOWDPA_DEVICES", "bf2,bf3", 1);
	if (core_config_reload() != DOCA_SUCCESS)
		return 3;
	dpa_test_log_clear();
	if (doca_flow_dpa_init(proc, &ctx) != DOCA_ERROR_NOT_SUPPORTED || ctx != NULL)
		return 4;
	if (dpa_test_log_count("[ERR]", (const char *)NULL) != 1 ||
	    dpa_test_log_count("[ERR]", "doca_flow_dpa_init", "has no DPA", (const char *)NULL) != 1)
		return 5;
	return 0;
}

static void test_init_without_dpa(void **state)
{
	(void)state;
	/* TSan refuses to run threads in a child forked from a threaded process; the plain
	 * and ASan runs cover this case. */
	if (DPA_TEST_TSAN)
		skip();
	pv_log_ready();
	assert_int_equal(lc_in_child(init_no_dpa_child), 0);
}

/* ------------------------------------------------------------------ DRIVER */

static void open_faulty(void **state, const char *fault, bool ctx)
{
	lc_env("FLOWDPA_FAULTS", fault);
	struct pv_fx *f = lc_fx_open_noctx();
	if (ctx)
		assert_int_equal(doca_flow_dpa_init(f->proc, &f->ctx), DOCA_SUCCESS);
	*state = f;
}

static int teardown_noctx(void **state)
{
	int rc = lc_fx_close(*state);
	lc_env("FLOWDPA_FAULTS", NULL);
	lc_env("FLOWDPA_DPA_HEAP_SIZE", NULL);
	return rc;
}

/* FLOWDPA_FAULTS=dpa_init: doca_flow_dpa_init fails with DRIVER, holding nothing. */
static void test_fault_dpa_init(void **state)
{
	open_faulty(state, "dpa_init", false);
	struct pv_fx *f = *state;
	struct doca_flow_dpa_ctx *c = (void *)1;
	assert_int_equal(doca_flow_dpa_init(f->proc, &c), DOCA_ERROR_DRIVER);
	assert_null(c);
	dpa_test_expect_one_log("doca_flow_dpa_init", "driver failure", "FLOWDPA_FAULTS=dpa_init");
	/* No hold was left on the process. */
	assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_SUCCESS);
	f->dpa = dpa_test_started(f->dev, provider_test_app);
	lc_expect_quiet();
}

/* FLOWDPA_FAULTS=queues_create: DRIVER, no queues left on the port. */
static void test_fault_queues_create(void **state)
{
	open_faulty(state, "queues_create", true);
	struct pv_fx *f = *state;
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], pv_all_queues, 3), DOCA_ERROR_DRIVER);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create", "driver failure", "FLOWDPA_FAULTS=queues_create");
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_queues_destroy", "has no queues");
}

/* FLOWDPA_FAULTS=pipe_export: DRIVER; the export stays prepared (no address). */
static void test_fault_pipe_export(void **state)
{
	open_faulty(state, "pipe_export", true);
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a = 0;
	struct pv_pipe_opts o = {.nr_entries = 8, .no_export = true};
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], pv_all_queues, 3), DOCA_SUCCESS);
	pv_hash_pipe(f, &o, &dp, &a, NULL);
	dpa_test_log_clear();
	assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, dp), DOCA_ERROR_DRIVER);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export", "driver failure", "FLOWDPA_FAULTS=pipe_export");
	assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, dp, &a), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_get_device_addr", "not exported yet");
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
}

/* ------------------------------------------------------------------ NO_MEMORY */

/*
 * A device heap too small for the ctx block (FLOWDPA_DPA_HEAP_SIZE=4K, the smallest
 * allowed): doca_flow_dpa_init fails with NO_MEMORY and one ERROR line: the heap's,
 * naming the call, "exhausted" and FLOWDPA_DPA_HEAP_SIZE.
 */
static void test_no_memory_init(void **state)
{
	lc_env("FLOWDPA_DPA_HEAP_SIZE", "4K");
	struct pv_fx *f = lc_fx_open_noctx();
	*state = f;
	struct doca_flow_dpa_ctx *c = (void *)1;
	assert_int_equal(doca_flow_dpa_init(f->proc, &c), DOCA_ERROR_NO_MEMORY);
	assert_null(c);
	dpa_test_expect_one_log("doca_flow_dpa_init: ", "exhausted", "FLOWDPA_DPA_HEAP_SIZE");
	/* No hold was left on the process. */
	assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_SUCCESS);
	f->dpa = dpa_test_started(f->dev, provider_test_app);
}

/* A heap with room for the ctx but not for the queues: queues_create NO_MEMORY, and
 * nothing of it is left (smaller queues fit afterwards). */
static void test_no_memory_queues(void **state)
{
	lc_env("FLOWDPA_DPA_HEAP_SIZE", "256K");
	struct pv_fx *f = lc_fx_open_noctx();
	*state = f;
	assert_int_equal(doca_flow_dpa_init(f->proc, &f->ctx), DOCA_SUCCESS);
	const struct doca_flow_dpa_queue_cfg big[2] = {{GENERAL, 64, 1}, {RES_R, 32768, 1}};
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], big, 2), DOCA_ERROR_NO_MEMORY);
	dpa_test_expect_one_log("doca_flow_dpa_queues_create: ", "exhausted", "FLOWDPA_DPA_HEAP_SIZE");
	assert_int_equal(doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]), DOCA_ERROR_BAD_STATE);
	dpa_test_log_clear();
	/* Retired rings of the failed call do not eat the heap for good: the ctx is destroyed
	 * and created again, then small queues fit. */
	assert_int_equal(doca_flow_dpa_destroy(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_init(f->proc, &f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_queues_create(f->ctx, f->ports[0], pv_all_queues, 3), DOCA_SUCCESS);
	lc_expect_quiet();
}

/* FLOWDPA_FAULTS=dpa_mem_alloc: init fails with NO_MEMORY. */
static void test_no_memory_alloc_fault(void **state)
{
	open_faulty(state, "dpa_mem_alloc", false);
	struct pv_fx *f = *state;
	struct doca_flow_dpa_ctx *c = (void *)1;
	assert_int_equal(doca_flow_dpa_init(f->proc, &c), DOCA_ERROR_NO_MEMORY);
	assert_null(c);
	dpa_test_expect_one_log("doca_flow_dpa_init: ", "DPA heap allocation", "fault injected");
}

/* Every export slot of a ctx taken (256): export_prepare and external_resource_export
 * fail with NO_MEMORY; one freed slot is enough again. */
static void test_no_memory_exports(void **state)
{
	struct pv_fx *f = *state;
	enum { N = 256 };
	struct doca_flow_external_resource *mem[N + 1];
	struct doca_flow_dpa_external_resource *h[N + 1];
	struct doca_flow_dpa_pipe *dp = (void *)1;
	struct pv_pipe_opts o = {.nr_entries = 8};
	struct doca_flow_pipe *pipe = pv_hash_pipe_create(f, &o);

	for (int i = 0; i <= N; i++)
		mem[i] = pv_res(f->ports[0], MEM, 1);
	for (int i = 0; i < N; i++)
		assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, mem[i], &h[i]), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_flow_dpa_external_resource_export(f->ctx, MEM, mem[N], &h[N]), DOCA_ERROR_NO_MEMORY);
	assert_null(h[N]);
	dpa_test_expect_one_log("doca_flow_dpa_external_resource_export", "already has 256 exports");
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, &dp), DOCA_ERROR_NO_MEMORY);
	assert_null(dp);
	dpa_test_expect_one_log("doca_flow_dpa_pipe_export_prepare", "already has 256 exports");
	/* The refusals held nothing; one slot freed is enough. */
	assert_int_equal(doca_flow_external_resource_destroy(mem[N]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h[7]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, 8, &dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	for (int i = 0; i < N; i++) {
		if (i != 7)
			assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, h[i]), DOCA_SUCCESS);
		assert_int_equal(doca_flow_external_resource_destroy(mem[i]), DOCA_SUCCESS);
	}
	lc_expect_quiet();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_arguments, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_queue_cfg_invalid, setup_noq, teardown),
		cmocka_unit_test_setup_teardown(test_queue_cfg_beyond_device, setup_noq, teardown),
		cmocka_unit_test_setup_teardown(test_queues_twice, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_prepare_nr_entries, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_prepare_basic_pipe, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_prepare_without_queues, setup_noq, teardown),
		cmocka_unit_test_setup_teardown(test_resource_export_needs_queues, setup_noq, teardown),
		cmocka_unit_test_setup_teardown(test_resource_type, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_handles_of_another_ctx, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_export_twice, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_addr_before_export, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_export_pipe_gone, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_with_live_objects, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_flow_destroy_exported, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_prepare_after_entries, setup_all, teardown),
		cmocka_unit_test_setup_teardown(test_prepare_after_entries_strict, setup_strict, teardown_env),
		cmocka_unit_test(test_device_without_dpa),
		cmocka_unit_test(test_init_without_dpa),
		cmocka_unit_test_teardown(test_fault_dpa_init, teardown_noctx),
		cmocka_unit_test_teardown(test_fault_queues_create, teardown_noctx),
		cmocka_unit_test_teardown(test_fault_pipe_export, teardown_noctx),
		cmocka_unit_test_teardown(test_no_memory_init, teardown_noctx),
		cmocka_unit_test_teardown(test_no_memory_queues, teardown_noctx),
		cmocka_unit_test_teardown(test_no_memory_alloc_fault, teardown_noctx),
		cmocka_unit_test_setup_teardown(test_no_memory_exports, setup_all, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
