/*
 * test_provider_hash.c - the three programs together on a HASH pipe: a host Flow program
 * (pipe, entries, traffic), the host DPA + provider setup, and DPA code (RPCs and a
 * kernel built by dpacc) disabling, enabling and replacing entries, checked on real
 * frames through the pipe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "provider_test.h"

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

/* Disable: one completion, no failure; the entry's packets go to fwd_miss only while it
 * is disabled. */
static void test_disable_enable(void **state)
{
	struct pv_fx *f = *state;
	struct doca_flow_pipe_entry *e[8];
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr a;
	struct pv_pipe_opts o = {.nr_entries = 8};
	struct doca_flow_pipe *pipe = pv_hash_pipe(f, &o, &dp, &a, e);
	uint32_t idx = 3, dst = pv_dst_for(pipe, idx, 8), done = 0, failed = 0;

	assert_int_equal(pv_send(dst), 100 + idx);
	assert_int_equal(pv_hash(f, a, PV_T_DISABLE, 0, idx, 0, true), DOCA_SUCCESS);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 0);
	assert_int_equal(pv_send(dst), 0);
	assert_int_equal(ft_miss_pkts(pipe), 1);
	assert_int_equal(ft_entry_pkts(e[idx]), 1);
	/* Other entries are untouched. */
	assert_int_equal(pv_send(pv_dst_for(pipe, 4, 8)), 104);

	assert_int_equal(pv_hash(f, a, PV_T_ENABLE, 0, idx, 0, true), DOCA_SUCCESS);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(failed, 0);
	assert_int_equal(pv_send(dst), 100 + idx);
	assert_int_equal(ft_miss_pkts(pipe), 1);
	assert_int_equal(ft_entry_pkts(e[idx]), 2);

	/* Replace: the new source port from then on. */
	assert_int_equal(pv_hash(f, a, PV_T_REPLACE, 0, idx, 4242, true), DOCA_SUCCESS);
	pv_poll_until(f, a, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0, 1, &done, &failed);
	assert_int_equal(done, 1);
	assert_int_equal(pv_send(dst), 4242);

	assert_int_equal(doca_flow_dpa_pipe_destroy(f->ctx, dp), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_disable_enable, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
