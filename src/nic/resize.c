/*
 * resize.c - changing a pipe's entry limit (doca_flow_pipe_resize). A BASIC pipe grown
 * past the size its buckets were made for gets a bigger bucket table, swapped in under
 * the packets (nic_buckets_grow), so that its chains stay as short as at creation; its
 * entries stay where they are: they live in a pool sized at creation, so it grows up to
 * the max_entries it reserved then (address space, committed as used). A CONTROL
 * pipe's table is rebuilt on each change anyway. HASH pipes are indexed by entry index
 * and do not resize.
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
		/* Out of memory for buckets, the old ones serve: correct, with longer chains. */
		if (pipe->type == NIC_PIPE_BASIC)
			(void)nic_buckets_grow(pipe, nr_entries);
		pipe->nr_entries = nr_entries;
	}
	pthread_rwlock_unlock(&pipe->lock);
	return err;
}
