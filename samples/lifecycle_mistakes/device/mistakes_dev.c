/* mistakes_dev.c - DPA side of lifecycle_mistakes: RPCs the host calls one at a time, each
 * a few provider calls, so that the host can print what each returned. */
#include <doca_dpa_dev.h>
#include <doca_flow_dpa_provider_dev.h>

/* Poll the GENERAL queue 0 until want completions; stats land in out[0], out[1]. */
static doca_error_t wait_general(doca_flow_dpa_addr pipe, uint32_t want, uint32_t *out)
{
	doca_error_t err = DOCA_SUCCESS;

	out[0] = out[1] = 0;
	while (err == DOCA_SUCCESS && out[0] < want) {
		struct doca_flow_dpa_completion_stats st = {0, 0};

		err = doca_flow_queue_poll_completion(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0, &st);
		out[0] += st.num_completed;
		out[1] += st.num_failed;
	}
	return err;
}

/* Disable one entry and wait for its completion: out[0] completed, out[1] failed. */
__dpa_rpc__ uint64_t disable_and_wait_rpc(doca_flow_dpa_addr pipe, uint32_t index, doca_dpa_dev_uintptr_t out)
{
	doca_error_t err = doca_flow_pipe_hash_disable_index(pipe, 0, index, true);

	if (err != DOCA_SUCCESS)
		return err;
	return wait_general(pipe, 1, (uint32_t *)out);
}

/* Read one memory cell through RESOURCES_READ queue 0 into dst (DPA memory). */
__dpa_rpc__ uint64_t read_cell_rpc(doca_flow_dpa_addr mem, uint32_t offset, doca_dpa_dev_uintptr_t dst)
{
	return doca_flow_external_resource_memory_read(mem, 0, offset, (uint64_t *)dst, true);
}

/* Post n enable requests (each flushed) and never poll. Returns the number that were
 * accepted in the low 32 bits and the error of the first refused one in the high 32. */
__dpa_rpc__ uint64_t post_without_polling_rpc(doca_flow_dpa_addr pipe, uint32_t n)
{
	uint32_t accepted = 0;

	for (uint32_t i = 0; i < n; i++) {
		doca_error_t err = doca_flow_pipe_hash_enable_index(pipe, 0, i % 8, true);

		if (err != DOCA_SUCCESS)
			return ((uint64_t)(uint32_t)err << 32) | accepted;
		accepted++;
	}
	return accepted;
}

/* The fix: reap want completions. out[0] completed, out[1] failed. */
__dpa_rpc__ uint64_t poll_until_rpc(doca_flow_dpa_addr pipe, uint32_t want, doca_dpa_dev_uintptr_t out)
{
	return wait_general(pipe, want, (uint32_t *)out);
}
