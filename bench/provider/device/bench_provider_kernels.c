/*
 * bench_provider_kernels.c - device side of bench_provider, built by dpacc into the app
 * image bench_provider_app (including doca_flow_dpa_provider_dev.h makes dpacc link the
 * provider's device library into it).
 *
 * bp_kernel runs on N DPA threads; thread rank owns queue id rank of the queue type its
 * operation needs and the index partition [rank * part, (rank + 1) * part). Each loops:
 * post a burst of B requests, the last with flush, then poll until the whole burst
 * completed. It stops after max_reqs requests or, checked every 64 bursts, once
 * deadline_ns have passed, and records its counts and its loop's start and end on the
 * device clock (__dpa_thread_cycles) in out[rank].
 */
#include <doca_dpa_dev.h>
#include <doca_flow_dpa_provider_dev.h>
#include <dpaintrin.h>

#include "bench_provider_defs.h"

/* Polls before a burst that never completes is given up (checked on the clock). */
#define BP_POLL_TIMEOUT_NS 10000000000ull

static enum doca_flow_dpa_queue_type queue_of(uint32_t op)
{
	switch (op) {
	case BP_OP_MEM_UPDATE:
		return DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE;
	case BP_OP_MEM_READ:
		return DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ;
	default:
		return DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL;
	}
}

__dpa_global__ void bp_kernel(uint32_t op, doca_flow_dpa_addr obj, uint32_t part, uint32_t burst, uint64_t max_reqs,
			      uint64_t deadline_ns, uint32_t salt, doca_dpa_dev_uintptr_t out,
			      doca_dpa_dev_uintptr_t rdbuf)
{
	const uint32_t rank = doca_dpa_dev_thread_rank(), base = rank * part;
	const enum doca_flow_dpa_queue_type qtype = queue_of(op);
	struct bp_result *res = (struct bp_result *)out + rank;
	uint64_t *rd = (uint64_t *)rdbuf + (uint64_t)rank * BP_MAX_BURST;
	uint64_t k = 0, completed = 0, failed = 0, bad = 0, bursts = 0;
	uint32_t idx = 0; /* index within the partition of request k */
	doca_error_t err = DOCA_SUCCESS;

	if (burst == 0 || burst > BP_MAX_BURST)
		burst = 1;
	const uint64_t t0 = __dpa_thread_cycles();
	while (k < max_reqs) {
		uint32_t b = max_reqs - k < burst ? (uint32_t)(max_reqs - k) : burst;
		uint32_t first_idx = idx;
		for (uint32_t j = 0; j < b; j++) {
			bool flush = j + 1 == b;
			uint32_t i = base + idx;
			switch (op) {
			case BP_OP_REPLACE:
				err = doca_flow_pipe_hash_replace_index(obj, rank, i, bp_ps_value(k, salt), flush);
				break;
			case BP_OP_DISABLE_ENABLE:
				err = (k & 1) ? doca_flow_pipe_hash_enable_index(obj, rank, i, flush)
					      : doca_flow_pipe_hash_disable_index(obj, rank, i, flush);
				break;
			case BP_OP_MEM_UPDATE:
				err = doca_flow_external_resource_memory_update(obj, rank, i, bp_mem_value(k, rank, salt),
										flush);
				break;
			case BP_OP_MEM_READ:
				rd[j] = ~0ull;
				err = doca_flow_external_resource_memory_read(obj, rank, i, &rd[j], flush);
				break;
			case BP_OP_DISABLE:
				err = doca_flow_pipe_hash_disable_index(obj, rank, i, flush);
				break;
			default:
				err = doca_flow_pipe_hash_enable_index(obj, rank, i, flush);
				break;
			}
			if (err != DOCA_SUCCESS) {
				if (err == DOCA_ERROR_AGAIN)
					res->again++;
				goto out;
			}
			k++;
			/* A pair's two requests name one entry. */
			if (op != BP_OP_DISABLE_ENABLE || !(k & 1))
				idx = idx + 1 == part ? 0 : idx + 1;
		}
		/* Poll every burst: until all of its b requests completed. */
		uint32_t got = 0;
		for (uint64_t spins = 0; got < b; spins++) {
			struct doca_flow_dpa_completion_stats st;
			err = doca_flow_queue_poll_completion(obj, qtype, rank, &st);
			if (err != DOCA_SUCCESS)
				goto out;
			got += st.num_completed;
			failed += st.num_failed;
			if ((spins & 4095) == 4095 && __dpa_thread_cycles() - t0 > deadline_ns + BP_POLL_TIMEOUT_NS) {
				err = DOCA_ERROR_TIME_OUT;
				completed += got;
				goto out;
			}
		}
		completed += got;
		if (op == BP_OP_MEM_READ)
			for (uint32_t j = 0, i = first_idx; j < b; j++, i = i + 1 == part ? 0 : i + 1)
				bad += rd[j] != bp_cell_value(base + i, salt);
		/* Stop on the clock only between whole pairs. */
		if ((++bursts & 63) == 0 && !(k & 1) && __dpa_thread_cycles() - t0 > deadline_ns)
			break;
	}
out:
	res->t1 = __dpa_thread_cycles();
	res->t0 = t0;
	res->posted = k;
	res->completed = completed;
	res->failed = failed;
	res->bad_reads = bad;
	res->error = err;
}
