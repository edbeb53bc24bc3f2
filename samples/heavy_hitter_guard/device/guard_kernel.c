/* guard_kernel.c - DPA side of heavy_hitter_guard. The host calls guard_period_rpc once
 * per period (doca_dpa_rpc). The kernel
 *   1. reads every entry's packet counter inline from the memory resource the HASH pipe
 *      counts into (doca_flow_external_resource_memory_read_range on the RESOURCES_READ
 *      queue; the values land in st->now when the completions are polled),
 *   2. computes each entry's rate for the period (now - prev),
 *   3. disables an enabled entry whose rate is above the threshold
 *      (doca_flow_pipe_hash_disable_index) until `cooldown` periods later, and re-enables
 *      (doca_flow_pipe_hash_enable_index) the entries whose cool-down is over,
 *   4. flushes the GENERAL queue and polls until every request completed.
 * It returns a doca_error_t; the decisions are in st->ev for the host to print. */
#include <doca_dpa_dev.h>
#include <doca_flow_dpa_provider_dev.h>

#include "guard_defs.h"

#define SPIN_LIMIT 100000000u

/* Poll queue type of obj until `want` completions came; adds them to *done and *failed. */
static doca_error_t reap(doca_flow_dpa_addr obj, enum doca_flow_dpa_queue_type type, uint64_t want,
			 uint64_t *done, uint64_t *failed)
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

static doca_error_t post(struct guard_state *st, doca_flow_dpa_addr pipe, uint32_t entry, int disable,
			 uint32_t *in_flight)
{
	if (*in_flight == GUARD_QUEUE_SIZE) { /* the queue is full: flush and reap it first */
		doca_error_t err = doca_flow_queue_flush(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0);
		if (err == DOCA_SUCCESS)
			err = reap(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, *in_flight, &st->entry_completions,
				   &st->entry_failed);
		if (err != DOCA_SUCCESS)
			return err;
		*in_flight = 0;
	}
	doca_error_t err = disable ? doca_flow_pipe_hash_disable_index(pipe, 0, entry, false)
				   : doca_flow_pipe_hash_enable_index(pipe, 0, entry, false);
	if (err == DOCA_SUCCESS) {
		(*in_flight)++;
		st->entry_requests++;
	}
	return err;
}

__dpa_rpc__ uint64_t guard_period_rpc(doca_flow_dpa_addr pipe, doca_flow_dpa_addr mem, doca_dpa_dev_uintptr_t state,
				      uint32_t nr_entries, uint32_t threshold, uint32_t cooldown, uint32_t period)
{
	struct guard_state *st = (struct guard_state *)state;
	uint32_t in_flight = 0;
	doca_error_t err;

	if (nr_entries == 0 || nr_entries > GUARD_MAX_ENTRIES)
		return DOCA_ERROR_INVALID_VALUE;
	/* 1. Read the counters: one request per 8 cells, values written when polled. */
	err = doca_flow_external_resource_memory_read_range(mem, 0, 0, nr_entries, st->now, true);
	if (err != DOCA_SUCCESS)
		return err;
	st->read_requests += (nr_entries + 7) / 8;
	err = reap(mem, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, (nr_entries + 7) / 8, &st->read_completions,
		   &st->read_failed);
	if (err != DOCA_SUCCESS)
		return err;

	/* 2-3. Rates and decisions. */
	st->nr_events = 0;
	for (uint32_t i = 0; i < nr_entries; i++) {
		uint64_t rate = st->now[i] - st->prev[i];
		int kind = 0;
		st->prev[i] = st->now[i];
		if (st->until[i] != 0) {
			if (period >= st->until[i]) {
				kind = GUARD_EV_ENABLE;
				st->until[i] = 0;
			}
		} else if (rate > threshold) {
			kind = GUARD_EV_DISABLE;
			st->until[i] = period + cooldown;
		}
		if (kind == 0)
			continue;
		err = post(st, pipe, i, kind == GUARD_EV_DISABLE, &in_flight);
		if (err != DOCA_SUCCESS)
			return err;
		if (kind == GUARD_EV_DISABLE)
			st->disables++;
		else
			st->enables++;
		if (st->nr_events < GUARD_MAX_EVENTS) {
			st->ev[st->nr_events].entry = i;
			st->ev[st->nr_events].kind = (uint32_t)kind;
			st->ev[st->nr_events].rate = rate;
			st->nr_events++;
		}
	}
	/* 4. Ring the doorbell and wait for the decisions to take effect. */
	if (in_flight) {
		err = doca_flow_queue_flush(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 0);
		if (err == DOCA_SUCCESS)
			err = reap(pipe, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, in_flight, &st->entry_completions,
				   &st->entry_failed);
	}
	return err;
}
