/*
 * test_provider_concurrency.c - two datapath workers forward random traffic through an
 * exported HASH hpipe while four DPA threads (RPCs, each on its own GENERAL queue and its
 * own entries) disable, enable and replace entries. Checks: once a disable's completion
 * was polled, the entry forwards nothing (its counter does not move while it stays
 * disabled, whatever the workers send); every request completes without failure; and
 * counters are conserved: entry packets + misses == frames injected. Run under TSan too.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "provider_test.h"

#define NR_ENTRIES 64
#define DPA_THREADS 4
#define ROUNDS (DPA_TEST_TSAN ? 40 : 300)
#define WORKER_BURST 32

static const struct doca_flow_dpa_queue_cfg queues[1] = {{DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 8, DPA_THREADS}};

static struct pv_fx *fx;
static struct doca_flow_pipe *hpipe;
static struct doca_flow_pipe_entry *entries[NR_ENTRIES];
static uint32_t dsts[NR_ENTRIES];
static doca_flow_dpa_addr pipe_addr;
static _Atomic bool stop;
static _Atomic uint64_t injected;
static _Atomic uint32_t violations;
static _Atomic uint32_t request_errors; /* threads count failures: cmocka asserts only on the main thread */

static int setup(void **state)
{
	(void)state;
	fx = pv_fx_open(queues, 1);
	assert_int_equal(flowdpa_port_capture_set_depth(1, 0), DOCA_SUCCESS);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pv_fx_close(fx);
	return 0;
}

static void *worker(void *arg)
{
	uint32_t seed = (uint32_t)(uintptr_t)arg;
	uint8_t frames[WORKER_BURST][128];
	const void *ptrs[WORKER_BURST];
	uint32_t lens[WORKER_BURST];
	while (!atomic_load(&stop)) {
		for (int i = 0; i < WORKER_BURST; i++) {
			seed = seed * 1103515245u + 12345u;
			lens[i] = ft_udp4(frames[i], 0x01020304, dsts[(seed >> 16) % NR_ENTRIES], 7, 9);
			ptrs[i] = frames[i];
		}
		uint32_t ok = 0;
		flowdpa_port_inject_burst(0, ptrs, lens, WORKER_BURST, &ok);
		atomic_fetch_add(&injected, ok);
	}
	return NULL;
}

/* Post with flush, then poll until it completed (bounded); false on any failure. */
static bool request(uint32_t qid, uint32_t op, uint32_t idx, uint32_t value)
{
	uint64_t ret = 1;
	if (doca_dpa_rpc(fx->dpa, &pv_hash_rpc, &ret, pipe_addr, op, qid, idx, value, 1u) != DOCA_SUCCESS || ret)
		return false;
	uint64_t out = fx->scratch + 16 * qid;
	for (int i = 0; i < 20000; i++) {
		uint32_t st[2];
		if (doca_dpa_rpc(fx->dpa, &pv_poll_rpc, &ret, pipe_addr, (uint32_t)DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, qid,
				 out) != DOCA_SUCCESS ||
		    ret || doca_dpa_d2h_memcpy(fx->dpa, st, out, sizeof(st)) != DOCA_SUCCESS)
			return false;
		if (st[0])
			return st[0] == 1 && st[1] == 0;
		usleep(50);
	}
	return false;
}

/* DPA thread rank: entries rank, rank + 4, ... on queue rank. */
static void *dpa_thread(void *arg)
{
	uint32_t rank = (uint32_t)(uintptr_t)arg;
	for (uint32_t r = 0; r < ROUNDS; r++) {
		uint32_t idx = rank + DPA_THREADS * (r % (NR_ENTRIES / DPA_THREADS));
		if (!request(rank, PV_T_DISABLE, idx, 0)) {
			atomic_fetch_add(&request_errors, 1);
			break;
		}
		/* Polled: from now on the entry forwards nothing while the workers keep sending. */
		uint64_t before = ft_entry_pkts(entries[idx]);
		for (int k = 0; k < 3; k++) {
			assert_int_equal(ft_inject_udp4(0, 0x01020304, dsts[idx], 7, 9), DOCA_SUCCESS);
			atomic_fetch_add(&injected, 1);
		}
		if (ft_entry_pkts(entries[idx]) != before)
			atomic_fetch_add(&violations, 1);
		if (!request(rank, PV_T_REPLACE, idx, 2000 + r) || !request(rank, PV_T_ENABLE, idx, 0)) {
			atomic_fetch_add(&request_errors, 1);
			break;
		}
	}
	return NULL;
}

static void test_flip_under_traffic(void **state)
{
	(void)state;
	struct doca_flow_dpa_pipe *dp;
	struct pv_pipe_opts o = {.nr_entries = NR_ENTRIES};
	hpipe = pv_hash_pipe(fx, &o, &dp, &pipe_addr, entries);
	for (uint32_t i = 0; i < NR_ENTRIES; i++)
		dsts[i] = pv_dst_for(hpipe, i, NR_ENTRIES);
	atomic_store(&stop, false);
	pthread_t w[2], d[DPA_THREADS];
	for (uintptr_t i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&w[i], NULL, worker, (void *)(i + 1)), 0);
	for (uintptr_t i = 0; i < DPA_THREADS; i++)
		assert_int_equal(pthread_create(&d[i], NULL, dpa_thread, (void *)i), 0);
	for (int i = 0; i < DPA_THREADS; i++)
		pthread_join(d[i], NULL);
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);

	assert_int_equal(atomic_load(&request_errors), 0);
	assert_int_equal(atomic_load(&violations), 0);
	uint64_t sum = ft_miss_pkts(hpipe);
	for (uint32_t i = 0; i < NR_ENTRIES; i++)
		sum += ft_entry_pkts(entries[i]);
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(0, &st), DOCA_SUCCESS);
	assert_int_equal(sum, atomic_load(&injected));
	assert_true(sum > ft_miss_pkts(hpipe)); /* traffic did flow through the entries */
	/* The last replace of each entry is what its packets carry now. */
	for (uint32_t rank = 0; rank < DPA_THREADS; rank++) {
		uint32_t r = ROUNDS - 1, idx = rank + DPA_THREADS * (r % (NR_ENTRIES / DPA_THREADS));
		assert_int_equal(flowdpa_port_capture_set_depth(1, 4), DOCA_SUCCESS);
		assert_int_equal(pv_send(dsts[idx]), 2000 + r);
	}
	assert_int_equal(doca_flow_dpa_pipe_destroy(fx->ctx, dp), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_flip_under_traffic, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
