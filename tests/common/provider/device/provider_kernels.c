/*
 * provider_kernels.c - device side of the provider tests, built by dpacc into the app
 * image provider_test_app. RPCs let a host test drive one DPA call at a time (post, then
 * look at the traffic, then poll); the kernels loop as real DPA programs do.
 */
#include <doca_dpa_dev.h>
#include <doca_flow_dpa_provider_dev.h>

#include "provider_test_defs.h"

/* One GENERAL-queue request; returns its doca_error_t. */
__dpa_rpc__ uint64_t pv_hash_rpc(doca_flow_dpa_addr pipe, uint32_t op, uint32_t qid, uint32_t index, uint32_t value,
				 uint32_t flush)
{
	switch (op) {
	case PV_T_ENABLE:
		return doca_flow_pipe_hash_enable_index(pipe, qid, index, flush);
	case PV_T_DISABLE:
		return doca_flow_pipe_hash_disable_index(pipe, qid, index, flush);
	default:
		return doca_flow_pipe_hash_replace_index(pipe, qid, index, value, flush);
	}
}

/* Index-selector modify (nr == 1 without range) or modify_range. */
__dpa_rpc__ uint64_t pv_select_rpc(doca_flow_dpa_addr res, uint32_t qid, uint32_t first, uint32_t nr, uint32_t op,
				   uint32_t range, uint32_t flush)
{
	if (!range)
		return doca_flow_external_resource_index_selector_modify(res, qid, first,
									 (enum doca_flow_index_selector_op)op, flush);
	return doca_flow_external_resource_index_selector_modify_range(res, qid, first, nr,
								       (enum doca_flow_index_selector_op)op, flush);
}

__dpa_rpc__ uint64_t pv_mem_update_rpc(doca_flow_dpa_addr res, uint32_t qid, uint32_t offset, uint64_t value,
				       uint32_t flush)
{
	return doca_flow_external_resource_memory_update(res, qid, offset, value, flush);
}

/* Read nr cells (nr == 1: memory_read) into dst, a device-heap address. */
__dpa_rpc__ uint64_t pv_mem_read_rpc(doca_flow_dpa_addr res, uint32_t qid, uint32_t offset, uint32_t nr,
				     doca_dpa_dev_uintptr_t dst, uint32_t flush)
{
	if (nr == 1)
		return doca_flow_external_resource_memory_read(res, qid, offset, (uint64_t *)dst, flush);
	return doca_flow_external_resource_memory_read_range(res, qid, offset, nr, (uint64_t *)dst, flush);
}

/* Poll once; stats land in out (device heap) as two uint32_t. */
__dpa_rpc__ uint64_t pv_poll_rpc(doca_flow_dpa_addr obj, uint32_t type, uint32_t qid, doca_dpa_dev_uintptr_t out)
{
	struct doca_flow_dpa_completion_stats *st = (struct doca_flow_dpa_completion_stats *)out;
	return doca_flow_queue_poll_completion(obj, (enum doca_flow_dpa_queue_type)type, qid, st);
}

__dpa_rpc__ uint64_t pv_flush_rpc(doca_flow_dpa_addr obj, uint32_t type, uint32_t qid)
{
	return doca_flow_queue_flush(obj, (enum doca_flow_dpa_queue_type)type, qid);
}

/* A host pointer handed to a memory read (refused: not DPA memory). */
__dpa_rpc__ uint64_t pv_mem_read_stack_rpc(doca_flow_dpa_addr res, uint32_t qid)
{
	uint64_t on_stack = 0;
	return doca_flow_external_resource_memory_read(res, qid, 0, &on_stack, true);
}

/* Post and poll until every request completed (bounded); returns failures << 32 | done. */
static uint64_t drain(doca_flow_dpa_addr obj, enum doca_flow_dpa_queue_type type, uint32_t qid, uint32_t want)
{
	uint32_t done = 0, failed = 0;
	for (uint64_t spins = 0; done < want && spins < (1ull << 32); spins++) {
		struct doca_flow_dpa_completion_stats st;
		if (doca_flow_queue_poll_completion(obj, type, qid, &st) != DOCA_SUCCESS)
			break;
		done += st.num_completed;
		failed += st.num_failed;
	}
	return (uint64_t)failed << 32 | done;
}

/*
 * A kernel looping on a mistake: n GENERAL-queue requests of op on entry index, posted in
 * bursts of burst (the last of each flushes) and drained after each burst. Returns
 * failures << 32 | completions, or ~0 when a post or poll itself failed.
 */
__dpa_rpc__ uint64_t pv_fail_loop_rpc(doca_flow_dpa_addr pipe, uint32_t op, uint32_t qid, uint32_t index,
				      uint32_t value, uint32_t n, uint32_t burst)
{
	uint64_t done = 0, failed = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t b = n - i < burst ? n - i : burst;
		for (uint32_t k = 0; k < b; k++) {
			bool flush = k == b - 1;
			doca_error_t e = op == PV_T_ENABLE    ? doca_flow_pipe_hash_enable_index(pipe, qid, index, flush)
					 : op == PV_T_DISABLE ? doca_flow_pipe_hash_disable_index(pipe, qid, index, flush)
							      : doca_flow_pipe_hash_replace_index(pipe, qid, index, value, flush);
			if (e != DOCA_SUCCESS)
				return ~0ull;
		}
		uint64_t d = drain(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, qid, b);
		if ((d & 0xffffffffu) != b)
			return ~0ull;
		done += d & 0xffffffffu;
		failed += d >> 32;
		i += b;
	}
	return failed << 32 | done;
}

/* A kernel looping on a refused call: n disable_index calls on addr; how many were refused. */
__dpa_rpc__ uint64_t pv_bad_call_loop_rpc(doca_flow_dpa_addr addr, uint32_t n)
{
	uint64_t refused = 0;
	for (uint32_t i = 0; i < n; i++)
		refused += doca_flow_pipe_hash_disable_index(addr, 0, 0, true) != DOCA_SUCCESS;
	return refused;
}

/*
 * Each DPA thread flips entries rank, rank + nthreads, ... on its own GENERAL queue and
 * replaces their path selector, rounds times, polling every request; thread results
 * (failures << 32 | completions) land in out[rank].
 */
__dpa_global__ void pv_flip_kernel(doca_flow_dpa_addr pipe, uint32_t nr_entries, uint32_t rounds,
				   doca_dpa_dev_uintptr_t out)
{
	uint32_t rank = doca_dpa_dev_thread_rank(), n = doca_dpa_dev_num_threads();
	uint64_t *res = (uint64_t *)out;
	uint64_t total = 0, failed = 0;
	for (uint32_t r = 0; r < rounds; r++)
		for (uint32_t i = rank; i < nr_entries; i += n) {
			doca_error_t e = (r & 1) ? doca_flow_pipe_hash_enable_index(pipe, rank, i, false)
						 : doca_flow_pipe_hash_disable_index(pipe, rank, i, false);
			if (e == DOCA_SUCCESS)
				e = doca_flow_pipe_hash_replace_index(pipe, rank, i, 1000 + (r % 1000), true);
			if (e != DOCA_SUCCESS) {
				failed++;
				continue;
			}
			uint64_t d = drain(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, rank, 2);
			total += d & 0xffffffffu;
			failed += d >> 32;
		}
	res[rank] = failed << 32 | total;
}
