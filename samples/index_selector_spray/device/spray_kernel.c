/* spray_kernel.c - DPA side of index_selector_spray: set a range of index-selector slots
 * to one state with doca_flow_external_resource_index_selector_modify_range (one request
 * per 32 indices, all flushed by the last), poll the RESOURCES_WRITE queue until every
 * request completed, and report the result to the host. */
#include <doca_dpa_dev.h>
#include <doca_flow_dpa_provider_dev.h>

/* out[0] the first error (DOCA_SUCCESS if none), out[1] completions, out[2] failed ones. */
__dpa_global__ void spray_kernel(doca_flow_dpa_addr selector, uint32_t first, uint32_t nr, uint32_t op,
				 doca_dpa_dev_uintptr_t out)
{
	uint32_t *res = (uint32_t *)out;
	uint32_t want = (nr + 31) / 32, done = 0, failed = 0;
	doca_error_t err = doca_flow_external_resource_index_selector_modify_range(
		selector, 0, first, nr, (enum doca_flow_index_selector_op)op, true);

	while (err == DOCA_SUCCESS && done < want) {
		struct doca_flow_dpa_completion_stats st = {0, 0};

		err = doca_flow_queue_poll_completion(selector, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 0, &st);
		done += st.num_completed;
		failed += st.num_failed;
	}
	res[0] = (uint32_t)err;
	res[1] = done;
	res[2] = failed;
}
