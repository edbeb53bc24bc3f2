/* failover_kernel.c - DPA side of path_failover. The host calls failover_check_rpc
 * periodically (doca_dpa_rpc). The kernel reads the path health cells the host writes
 * (a memory resource, doca_flow_external_resource_memory_read_range) and moves every
 * entry whose path failed to the next path that is up, by replacing the entry's path
 * selector (its UDP source port) with doca_flow_pipe_hash_replace_index. */
#include <doca_dpa_dev.h>
#include <doca_flow_dpa_provider_dev.h>

#include "failover_defs.h"

#define SPIN_LIMIT 100000000u

static doca_error_t reap(doca_flow_dpa_addr obj, enum doca_flow_dpa_queue_type type, uint64_t want, uint64_t *done,
			 uint64_t *failed)
{
	struct doca_flow_dpa_completion_stats cs = {0, 0};
	uint64_t got = 0;
	for (uint32_t spin = 0; got < want; spin++) {
		if (spin == SPIN_LIMIT)
			return DOCA_ERROR_TIME_OUT;
		doca_error_t err = doca_flow_queue_poll_completion(obj, type, 0, &cs);
		if (err != DOCA_SUCCESS)
			return err;
		got += cs.num_completed;
		*done += cs.num_completed;
		*failed += cs.num_failed;
	}
	return DOCA_SUCCESS;
}

__dpa_rpc__ uint64_t failover_check_rpc(doca_flow_dpa_addr pipe, doca_flow_dpa_addr health, doca_dpa_dev_uintptr_t state)
{
	struct fo_state *st = (struct fo_state *)state;
	doca_error_t err = doca_flow_external_resource_memory_read_range(health, 0, 0, FO_NR_PATHS, st->health, true);
	if (err != DOCA_SUCCESS)
		return err;
	st->read_requests++;
	err = reap(health, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 1, &st->read_completions, &st->failed);
	if (err != DOCA_SUCCESS)
		return err;
	st->moved = 0;
	for (uint32_t i = 0; i < FO_NR_ENTRIES; i++) {
		uint32_t p = st->path[i], k;
		if (st->health[p] == 0)
			continue;
		for (k = 1; k < FO_NR_PATHS && st->health[(p + k) % FO_NR_PATHS] != 0; k++)
			;
		if (k == FO_NR_PATHS)
			continue; /* every path is down: keep it */
		p = (p + k) % FO_NR_PATHS;
		/* The GENERAL queue holds FO_NR_ENTRIES requests: no reap needed in between. */
		err = doca_flow_pipe_hash_replace_index(pipe, 0, i, FO_PATH_PORT(p), false);
		if (err != DOCA_SUCCESS)
			return err;
		st->path[i] = p;
		st->moved++;
		st->replace_requests++;
	}
	if (st->moved == 0)
		return DOCA_SUCCESS;
	err = doca_flow_queue_flush(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0);
	if (err == DOCA_SUCCESS)
		err = reap(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, st->moved, &st->replace_completions, &st->failed);
	return err;
}
