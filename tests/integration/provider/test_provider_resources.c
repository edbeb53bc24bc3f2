/*
 * test_provider_resources.c - external resources driven from DPA code: memory updates
 * and two-phase reads, per-entry packet counts a kernel reads from a memory resource
 * (equal to the Flow counters), index-selector ranges (one request per 32 indices) with
 * SKIP_ONCE / SKIP_TWICE seen in the counters, and a path-selector replace seen by
 * tshark in the egress capture from the switch-over on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include <core/core.h>

#include "provider_test.h"

static const char *tshark, *workdir;

static int setup(void **state)
{
	*state = pv_fx_open(pv_all_queues, 3);
	return 0;
}

static int teardown(void **state)
{
	pv_fx_close(*state);
	return 0;
}

/* An update, then a read whose value lands in DPA memory only when it is polled. */
static void test_memory_update_then_read(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_external_resource *r = pv_res(f->ports[0], DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, 32);
	struct doca_flow_dpa_external_resource *dr;
	doca_flow_dpa_addr a = pv_export_res(f->ctx, r, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, &dr);
	uint32_t done, failed;
	uint64_t v = 0;

	assert_int_equal(pv_mem_update(f, a, 0, 2, 77, true), DOCA_SUCCESS);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 0);
	assert_int_equal(doca_flow_external_resource_memory_get(r, 2, &v), DOCA_SUCCESS);
	assert_int_equal(v, 77);

	assert_int_equal(pv_mem_read(f, a, 0, 2, 1, 0, true), DOCA_SUCCESS);
	usleep(5000); /* executed (sync: at the flush; async: after 1 ms), not polled */
	assert_int_equal(pv_scratch_u64(f, 0), 0);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 0);
	assert_int_equal(pv_scratch_u64(f, 0), 77);

	/* A range of 20 cells is ceil(20 / 8) = 3 requests, 3 completions. */
	for (uint32_t i = 0; i < 32; i++)
		assert_int_equal(doca_flow_external_resource_memory_set(r, i, 1000 + i), DOCA_SUCCESS);
	assert_int_equal(pv_mem_read(f, a, 0, 5, 20, 64, true), DOCA_SUCCESS);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 0, 3, &done, &failed);
	assert_int_equal(done, 3);
	assert_int_equal(failed, 0);
	for (uint32_t i = 0; i < 20; i++)
		assert_int_equal(pv_scratch_u64(f, 64 + 8 * i), 1005 + i);

	/* A read beyond the resource is a completion with failure. */
	assert_int_equal(pv_mem_read(f, a, 0, 31, 2, 0, true), DOCA_SUCCESS);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 1);
	dpa_test_expect_log("memory read of 'memory' index 31", "index beyond the export");

	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, dr), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_SUCCESS);
}

/* A pipe bound to a memory resource counts entry i's packets into cell i: a kernel
 * reading the cells sees the Flow counters. */
static void test_counters_read_by_kernel(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_external_resource *r = pv_res(f->ports[0], DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, 8);
	struct doca_flow_dpa_external_resource *dr;
	doca_flow_dpa_addr ra = pv_export_res(f->ctx, r, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, &dr);
	struct doca_flow_pipe_entry *e[8];
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr pa;
	struct pv_pipe_opts o = {.nr_entries = 8, .mem = r};
	struct doca_flow_pipe *pipe = pv_hash_pipe(f, &o, &dp, &pa, e);
	uint32_t done, failed;

	for (uint32_t i = 0; i < 8; i++) {
		uint32_t dst = pv_dst_for(pipe, i, 8);
		for (uint32_t k = 0; k <= i * 3; k++)
			assert_int_equal(pv_send(dst), 100 + i);
	}
	assert_int_equal(pv_mem_read(f, ra, 0, 0, 8, 0, true), DOCA_SUCCESS);
	pv_poll_until(f, ra, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 0);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(pv_scratch_u64(f, 8 * i), ft_entry_pkts(e[i]));
		assert_int_equal(ft_entry_pkts(e[i]), i * 3 + 1);
	}
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, dr), DOCA_SUCCESS);
	doca_flow_pipe_destroy(pipe);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_SUCCESS);
}

/* modify_range over 100 indices is 4 requests; DISABLE, SKIP_ONCE and SKIP_TWICE show in
 * the entry and miss counters. */
static void test_index_selector_range(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_external_resource *r = pv_res(f->ports[0], DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, 128);
	struct doca_flow_dpa_external_resource *dr;
	doca_flow_dpa_addr ra = pv_export_res(f->ctx, r, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, &dr);
	static struct doca_flow_pipe_entry *e[128];
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr pa;
	struct pv_pipe_opts o = {.nr_entries = 128, .sel = r};
	struct doca_flow_pipe *pipe = pv_hash_pipe(f, &o, &dp, &pa, e);
	uint32_t done, failed;
	enum doca_flow_index_selector_op st;

	assert_int_equal(pv_select(f, ra, 0, 0, 100, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, true, true), DOCA_SUCCESS);
	pv_poll_until(f, ra, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 0, 4, &done, &failed);
	assert_int_equal(done, 4);
	assert_int_equal(failed, 0);
	for (uint32_t i = 0; i < 128; i++) {
		assert_int_equal(doca_flow_external_resource_index_selector_get(r, i, &st), DOCA_SUCCESS);
		assert_int_equal(st, i < 100 ? DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE : DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE);
	}
	uint32_t d7 = pv_dst_for(pipe, 7, 128), d9 = pv_dst_for(pipe, 9, 128), d120 = pv_dst_for(pipe, 120, 128);
	assert_int_equal(pv_send(d7), 0);
	assert_int_equal(pv_send(d120), 220);
	assert_int_equal(ft_miss_pkts(pipe), 1);

	/* 7: SKIP_ONCE, 9: SKIP_TWICE (in one range call each, then the rest ENABLE again). */
	assert_int_equal(pv_select(f, ra, 0, 0, 100, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE, true, false), DOCA_SUCCESS);
	assert_int_equal(pv_select(f, ra, 0, 7, 1, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE, false, false), DOCA_SUCCESS);
	assert_int_equal(pv_select(f, ra, 0, 9, 1, DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_TWICE, false, true), DOCA_SUCCESS);
	pv_poll_until(f, ra, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 0, 6, &done, &failed);
	assert_int_equal(done, 6);
	assert_int_equal(failed, 0);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(pv_send(d7), k < 1 ? 0 : 107);
		assert_int_equal(pv_send(d9), k < 2 ? 0 : 109);
	}
	assert_int_equal(ft_miss_pkts(pipe), 1 + 1 + 2);
	assert_int_equal(ft_entry_pkts(e[7]), 2);
	assert_int_equal(ft_entry_pkts(e[9]), 1);

	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_destroy(f->ctx, dr), DOCA_SUCCESS);
	doca_flow_pipe_destroy(pipe);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_SUCCESS);
}

/* ------------------------------------------------------------------ capture + tshark */

static char pcap_path[600];

static int setup_capture(void **state)
{
	snprintf(pcap_path, sizeof(pcap_path), "%s/provider_replace.pcap", workdir);
	char tx[640];
	snprintf(tx, sizeof(tx), "pcap:%s", pcap_path);
	setenv("FLOWDPA_PORT1_TX", tx, 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	return setup(state);
}

static int teardown_capture(void **state)
{
	(void)state;
	unsetenv("FLOWDPA_PORT1_TX");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	return 0;
}

/* The source ports tshark reads from the capture, one per frame, into out. */
static int tshark_sports(uint32_t *out, int cap)
{
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "'%s' -r '%s' -T fields -e udp.srcport 2>/dev/null", tshark, pcap_path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	int n = 0;
	unsigned v;
	while (n < cap && fscanf(p, "%u", &v) == 1)
		out[n++] = v;
	pclose(p);
	return n;
}

/* replace_index(i, 40000): frames through entry i carry 40000 from the switch-over on,
 * as tshark shows in the egress capture (the value as a number on the wire). */
static void test_replace_seen_by_tshark(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	struct pv_pipe_opts o = {.nr_entries = 8};
	struct doca_flow_pipe *pipe = pv_hash_pipe(f, &o, &dp, &a, NULL);
	uint32_t dst = pv_dst_for(pipe, 5, 8), done, failed;

	for (int k = 0; k < 10; k++)
		assert_int_equal(pv_send(dst), 105);
	assert_int_equal(pv_hash(f, a, PV_T_REPLACE, 0, 5, 40000, true), DOCA_SUCCESS);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 0);
	for (int k = 0; k < 10; k++)
		assert_int_equal(pv_send(dst), 40000);
	/* A value that does not fit the 16-bit field fails at execution; nothing changes. */
	assert_int_equal(pv_hash(f, a, PV_T_REPLACE, 0, 5, 70000, true), DOCA_SUCCESS);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0, 1, &done, &failed);
	assert_int_equal(failed, 1);
	dpa_test_expect_log("replace of 'HASH_PIPE' index 5", "does not fit the path-selector field");
	assert_int_equal(pv_send(dst), 40000);
	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
	pv_fx_close(f); /* the capture is complete once port 1 stopped */

	uint32_t sports[64];
	assert_int_equal(tshark_sports(sports, 64), 21);
	for (int k = 0; k < 21; k++)
		assert_int_equal(sports[k], k < 10 ? 105 : 40000);
}

int main(int argc, char **argv)
{
	tshark = argc > 1 ? argv[1] : NULL;
	workdir = argc > 2 ? argv[2] : ".";
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_memory_update_then_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters_read_by_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_selector_range, setup, teardown),
	};
	const struct CMUnitTest capture_tests[] = {
		cmocka_unit_test_setup_teardown(test_replace_seen_by_tshark, setup_capture, teardown_capture),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	if (tshark)
		failed += cmocka_run_group_tests(capture_tests, NULL, NULL);
	return failed;
}
