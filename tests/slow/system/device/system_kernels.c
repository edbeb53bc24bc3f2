/*
 * system_kernels.c - device side of the slow whole-system tests (fault sweep, soak),
 * built by dpacc into the app image system_test_app: every DPA-side provider call
 * family in one RPC, a notifying kernel and a DPA-thread body for the DPA runtime, and
 * the soak's flipping kernel.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>
#include <doca_flow_dpa_provider_dev.h>

/* Poll type/qid until want completions arrived; failures << 32 | completions, or ~0 when
 * the poll itself failed (its code in *err). Bounded so a lost completion cannot hang. */
static uint64_t drain(doca_flow_dpa_addr obj, enum doca_flow_dpa_queue_type type, uint32_t qid, uint32_t want,
		      doca_error_t *err)
{
	uint32_t done = 0, failed = 0;
	for (uint64_t spins = 0; done < want && spins < (1ull << 26); spins++) {
		struct doca_flow_dpa_completion_stats st;
		doca_error_t e = doca_flow_queue_poll_completion(obj, type, qid, &st);
		if (e != DOCA_SUCCESS) {
			*err = e;
			return ~0ull;
		}
		done += st.num_completed;
		failed += st.num_failed;
	}
	return (uint64_t)failed << 32 | done;
}

#define TRY(call)                            \
	do {                                 \
		doca_error_t e_ = (call);    \
		if (e_ != DOCA_SUCCESS)      \
			return (uint64_t)e_; \
	} while (0)

/* Each request of a burst must complete, none may fail: else DOCA_ERROR_UNEXPECTED. */
#define DRAIN(obj, type, want)                                          \
	do {                                                            \
		doca_error_t e_ = DOCA_SUCCESS;                         \
		uint64_t d_ = drain((obj), (type), 0, (want), &e_);     \
		if (d_ == ~0ull)                                        \
			return (uint64_t)e_;                            \
		if (d_ != (want))                                       \
			return (uint64_t)DOCA_ERROR_UNEXPECTED;         \
	} while (0)

/*
 * One of every DPA-side provider call, each burst drained: HASH disable / enable /
 * replace on entry index of pipe, index-selector modify and modify_range on sel, memory
 * update, read and read_range on mem into dst (device heap, 3 cells), an explicit flush.
 * Returns the first failing call's doca_error_t, DOCA_SUCCESS when all completed.
 */
static uint64_t provider_calls(doca_flow_dpa_addr pipe, uint32_t index, doca_flow_dpa_addr sel, doca_flow_dpa_addr mem,
			       doca_dpa_dev_uintptr_t dst)
{
	uint64_t *out = (uint64_t *)dst;

	TRY(doca_flow_pipe_hash_disable_index(pipe, 0, index, false));
	TRY(doca_flow_pipe_hash_enable_index(pipe, 0, index, false));
	TRY(doca_flow_pipe_hash_replace_index(pipe, 0, index, 4242, false));
	TRY(doca_flow_queue_flush(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0));
	DRAIN(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 3);
	TRY(doca_flow_external_resource_index_selector_modify(sel, 0, 1, DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, false));
	TRY(doca_flow_external_resource_index_selector_modify_range(sel, 0, 0, 8, DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE,
								    true));
	DRAIN(sel, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 2);
	TRY(doca_flow_external_resource_memory_update(mem, 0, 1, 77, true));
	DRAIN(mem, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 1);
	TRY(doca_flow_external_resource_memory_read(mem, 0, 1, &out[0], false));
	TRY(doca_flow_external_resource_memory_read_range(mem, 0, 0, 2, &out[1], true));
	DRAIN(mem, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 2);
	return DOCA_SUCCESS;
}

__dpa_rpc__ uint64_t system_provider_rpc(doca_flow_dpa_addr pipe, uint32_t index, doca_flow_dpa_addr sel,
					 doca_flow_dpa_addr mem, doca_dpa_dev_uintptr_t dst)
{
	return provider_calls(pipe, index, sel, mem, dst);
}

/* The same calls from a kernel (one thread); the result lands in dst[3]. */
__dpa_global__ void system_provider_kernel(doca_flow_dpa_addr pipe, uint32_t index, doca_flow_dpa_addr sel,
					   doca_flow_dpa_addr mem, doca_dpa_dev_uintptr_t dst)
{
	((uint64_t *)dst)[3] = provider_calls(pipe, index, sel, mem, dst);
}

/* Trigger the DPA thread whose notification completion is h. */
__dpa_global__ void system_notify_kernel(doca_dpa_dev_notification_completion_t h)
{
	doca_dpa_dev_thread_notify(h);
}

/* DPA thread body: one run per notification, each adds 1 to the event done. */
__dpa_global__ void system_thread_kernel(uint64_t done)
{
	doca_dpa_dev_sync_event_update_add(done, 1);
	doca_dpa_dev_thread_reschedule();
}

/*
 * The soak's DPA threads: rank r owns GENERAL queue r and the HASH entries r, r + n, ...
 * below nr_entries; it disables, re-enables or replaces them (replace values 1000 + k)
 * until the host sets the sync event stop above 0, draining each burst. Per rank, out[rank] gets
 * completions and out[n + rank] failures (a poll failure: ~0 in out[n + rank]).
 */
__dpa_global__ void system_flip_kernel(doca_flow_dpa_addr pipe, uint32_t nr_entries, doca_dpa_dev_sync_event_t stop,
				       doca_dpa_dev_uintptr_t out)
{
	uint32_t rank = doca_dpa_dev_thread_rank(), n = doca_dpa_dev_num_threads();
	uint64_t *res = (uint64_t *)out;
	uint64_t done = 0, failed = 0, stopped = 0;
	for (uint32_t k = 0; stopped == 0; k++) {
		uint32_t posted = 0;
		for (uint32_t i = rank; i < nr_entries; i += n) {
			doca_error_t e;
			switch (k % 3) {
			case 0:
				e = doca_flow_pipe_hash_disable_index(pipe, rank, i, false);
				break;
			case 1:
				e = doca_flow_pipe_hash_enable_index(pipe, rank, i, false);
				break;
			default:
				e = doca_flow_pipe_hash_replace_index(pipe, rank, i, 1000 + (k % 1000), false);
				break;
			}
			if (e != DOCA_SUCCESS)
				failed++;
			else
				posted++;
		}
		if (doca_flow_queue_flush(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, rank) != DOCA_SUCCESS) {
			res[n + rank] = ~0ull;
			return;
		}
		doca_error_t err = DOCA_SUCCESS;
		uint64_t d = drain(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, rank, posted, &err);
		if (d == ~0ull) {
			res[n + rank] = ~0ull;
			return;
		}
		done += d & 0xffffffffu;
		failed += d >> 32;
		doca_dpa_dev_sync_event_get(stop, &stopped);
	}
	res[rank] = done;
	res[n + rank] = failed;
}
