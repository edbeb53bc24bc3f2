/* disable_kernel.c - DPA side of the installed-flowdpa provider project: disable one entry
 * of an exported hash pipe, wait for its completion, report the stats. */
#include <doca_dpa_dev.h>
#include <doca_flow_dpa_provider_dev.h>

__dpa_global__ void disable_kernel(doca_flow_dpa_addr pipe, uint32_t index, doca_dpa_dev_uintptr_t out)
{
	struct doca_flow_dpa_completion_stats st = {0, 0};
	uint32_t *res = (uint32_t *)out;
	doca_error_t err = doca_flow_pipe_hash_disable_index(pipe, 0, index, true);

	while (err == DOCA_SUCCESS && st.num_completed == 0)
		err = doca_flow_queue_poll_completion(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0, &st);
	res[0] = (uint32_t)err;
	res[1] = st.num_completed;
	res[2] = st.num_failed;
}
