/*
 * perf_kernels.c - device side of doca_flow_dpa_perf, built by dpacc into the app image
 * doca_flow_dpa_perf_app (including doca_flow_dpa_provider_dev.h makes dpacc link the
 * provider's device library into it).
 *
 * perf_kernel runs on N DPA threads (the workers); worker w owns queue id w of the queue
 * type its operation needs and the tables [w * num_tables, (w + 1) * num_tables). Its
 * requests walk the positions 0 .. num_tables * table_size - 1 (table = pos / size,
 * index = pos % size) in order or in a pseudo-random order. It posts bursts of `burst`
 * requests (flush on the last of each), polls whenever `threshold` requests are
 * outstanding (and when a post returns AGAIN), and drains the queue at the end.
 */
#include <doca_dpa_dev.h>
#include <doca_flow_dpa_provider_dev.h>
#include <dpaintrin.h>

#include "perf_defs.h"

#define PERF_POLL_TIMEOUT_NS 10000000000ull

static enum doca_flow_dpa_queue_type queue_of(uint32_t op)
{
	return op == PERF_OP_MEM_UPDATE || op == PERF_OP_SEL_DIS_EN ? DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE
								     : DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL;
}

static doca_error_t post(const struct perf_args *a, const doca_flow_dpa_addr *objs, uint32_t rank, uint64_t k,
			 bool flush)
{
	const uint32_t span = a->num_tables * a->table_size;
	const bool pairs = a->op == PERF_OP_DIS_EN || a->op == PERF_OP_SEL_DIS_EN;
	uint32_t pos = a->op == PERF_OP_SENTINEL ? (uint32_t)a->first : perf_pos(pairs ? k / 2 : k, span, a->random, a->salt);
	doca_flow_dpa_addr obj = objs[pos / a->table_size];
	uint32_t i = pos % a->table_size;

	switch (a->op) {
	case PERF_OP_REPLACE:
		return doca_flow_pipe_hash_replace_index(obj, rank, i, perf_ps_value(k, a->salt), flush);
	case PERF_OP_DIS_EN:
		return (k & 1) ? doca_flow_pipe_hash_enable_index(obj, rank, i, flush)
			       : doca_flow_pipe_hash_disable_index(obj, rank, i, flush);
	case PERF_OP_MEM_UPDATE:
		return doca_flow_external_resource_memory_update(obj, rank, i, (k << 16) ^ a->salt, flush);
	case PERF_OP_SEL_DIS_EN:
		return doca_flow_external_resource_index_selector_modify(
			obj, rank, i, (k & 1) ? DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE : DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE,
			flush);
	default:
		return doca_flow_pipe_hash_replace_index(obj, rank, i, PERF_SENTINEL, flush);
	}
}

/* What a thread's polls have reaped so far, and the requests still in flight. */
struct perf_tally {
	uint64_t completed, failed, polls, outstanding;
};

/* Poll obj's queue once and count what it reaped. */
static doca_error_t reap(doca_flow_dpa_addr obj, enum doca_flow_dpa_queue_type qtype, uint32_t rank,
			 struct perf_tally *t)
{
	struct doca_flow_dpa_completion_stats st;
	doca_error_t err = doca_flow_queue_poll_completion(obj, qtype, rank, &st);

	if (err == DOCA_SUCCESS) {
		t->polls++;
		t->completed += st.num_completed;
		t->failed += st.num_failed;
		t->outstanding -= st.num_completed;
	}
	return err;
}

__dpa_global__ void perf_kernel(doca_dpa_dev_uintptr_t args)
{
	const struct perf_args *a = (const struct perf_args *)args;
	const uint32_t rank = doca_dpa_dev_thread_rank();
	const doca_flow_dpa_addr *objs = (const doca_flow_dpa_addr *)a->objs + (uint64_t)rank * a->num_tables;
	const enum doca_flow_dpa_queue_type qtype = queue_of(a->op);
	struct perf_result *res = (struct perf_result *)a->out + rank;
	struct perf_tally t = {0};
	uint64_t k = 0, again = 0;
	doca_error_t err = DOCA_SUCCESS;
	const uint32_t burst = a->burst ? a->burst : 1;
	const uint64_t t0 = __dpa_thread_cycles();

	while (k < a->num_ops || t.outstanding) {
		/* Poll once the threshold is reached, when the next burst would not fit, and at the end. */
		bool need = t.outstanding >= a->threshold || t.outstanding + burst > a->queue_size || k == a->num_ops;
		while (need && t.outstanding) {
			err = reap(objs[0], qtype, rank, &t);
			if (err != DOCA_SUCCESS)
				goto out;
			need = t.outstanding >= a->threshold || t.outstanding + burst > a->queue_size || k == a->num_ops;
			if ((t.polls & 4095) == 4095 && __dpa_thread_cycles() - t0 > PERF_POLL_TIMEOUT_NS) {
				err = DOCA_ERROR_TIME_OUT;
				goto out;
			}
		}
		if (k == a->num_ops)
			break;
		uint64_t b = a->num_ops - k < burst ? a->num_ops - k : burst;
		for (uint64_t j = 0; j < b;) {
			err = post(a, objs, rank, k, j + 1 == b);
			if (err == DOCA_ERROR_AGAIN) {
				again++;
				if (j > 0) /* what this burst posted so far must run before it can drain */
					doca_flow_queue_flush(objs[0], qtype, rank);
				err = reap(objs[0], qtype, rank, &t);
				if (err != DOCA_SUCCESS)
					goto out;
				continue;
			}
			if (err != DOCA_SUCCESS)
				goto out;
			k++;
			j++;
			t.outstanding++;
		}
	}
out:
	res->t1 = __dpa_thread_cycles();
	res->t0 = t0;
	res->posted = k;
	res->completed = t.completed;
	res->failed = t.failed;
	res->again = again;
	res->polls = t.polls;
	res->error = err;
}
