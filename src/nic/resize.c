/*
 * resize.c - changing a pipe's entry limit (doca_flow_pipe_resize). Only the limit
 * moves: a BASIC pipe keeps its buckets (longer chains past the size they were made for,
 * still correct) and a CONTROL pipe's table is rebuilt on each change anyway, so the
 * datapath sees nothing change. A BASIC pipe's entries live in a pool sized at creation,
 * so it grows up to the max_entries it reserved then (address space, committed as used).
 * HASH pipes are indexed by entry index and do not resize.
 */
#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::RESIZE);

doca_error_t nic_pipe_set_capacity(struct nic_pipe *pipe, uint32_t nr_entries)
{
	doca_error_t err = DOCA_SUCCESS;
	pthread_rwlock_wrlock(&pipe->lock);
	if (!nic_pipe_alive(pipe) || pipe->type == NIC_PIPE_HASH) {
		CORE_LOG_ERR("pipe '%s': only a live BASIC or CONTROL pipe changes its number of entries", pipe->name);
		err = DOCA_ERROR_INVALID_VALUE;
	} else if (nr_entries == 0 || nr_entries < pipe->nr_live) {
		CORE_LOG_ERR("pipe '%s': %u entries cannot hold the %u live ones", pipe->name, nr_entries,
			     pipe->nr_live);
		err = DOCA_ERROR_INVALID_VALUE;
	} else if (pipe->type == NIC_PIPE_BASIC && nic_basic_slots(nr_entries) > pipe->pool_n) {
		CORE_LOG_ERR("pipe '%s': %u entries is more than the %u it reserved at creation", pipe->name,
			     nr_entries, nic_basic_max_entries(pipe->pool_n));
		err = DOCA_ERROR_FULL;
	} else {
		pipe->nr_entries = nr_entries;
	}
	pthread_rwlock_unlock(&pipe->lock);
	return err;
}
