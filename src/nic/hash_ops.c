/*
 * hash_ops.c - the HASH-pipe operations the provider executes on a live pipe (entry
 * enable/disable, path-selector value replace) and its reads of an entry's state and
 * counter by index. Entries are found in the pipe's pool by index (pool.c).
 */
#include <core/core.h>

#include "nic_internal.h"

/*
 * The provider's operations run on its request executor, not on a datapath thread, so a
 * grace period would not wait for them: a burst holds the pipe lock while it uses the
 * entries, which removal also holds to unlink one. The datapath never takes this lock.
 */
static inline doca_error_t hash_op_run(struct nic_pipe *p, const struct nic_hash_op *op, uint32_t ps_bits,
				       bool identity)
{
	if (op->index >= p->nr_entries)
		return DOCA_ERROR_INVALID_VALUE;
	struct nic_entry *e = nic_pool_entry(p, op->index);
	if (!(nic_entry_flags(e, memory_order_acquire) & NIC_EF_LINKED))
		return DOCA_ERROR_NOT_FOUND;
	switch (op->type) {
	case NIC_HASH_OP_ENABLE:
		nic_entry_flags_set(e, NIC_EF_ENABLED, memory_order_release);
		return DOCA_SUCCESS;
	case NIC_HASH_OP_DISABLE:
		if (identity)
			return DOCA_ERROR_NOT_SUPPORTED;
		nic_entry_flags_clear(e, NIC_EF_ENABLED, memory_order_release);
		return DOCA_SUCCESS;
	case NIC_HASH_OP_REPLACE: {
		if (ps_bits == 0)
			return DOCA_ERROR_NOT_SUPPORTED;
		if (ps_bits < 64 && op->value >> ps_bits)
			return DOCA_ERROR_INVALID_VALUE;
		/* The value lives in the entry (interned state) or in its private state. */
		struct nic_entry_state *st = nic_entry_state(e, memory_order_relaxed);
		atomic_store_explicit(st->val_in_entry ? &e->val : &st->ps_value, (uint32_t)op->value,
				      memory_order_release);
		return DOCA_SUCCESS;
	}
	default:
		return DOCA_ERROR_INVALID_VALUE;
	}
}

static bool hash_pipe_live(const struct nic_pipe *p)
{
	return nic_pipe_alive(p) && p->type == NIC_PIPE_HASH;
}

void nic_hash_exec(struct nic_pipe *p, struct nic_hash_op *ops, uint32_t n)
{
	if (!hash_pipe_live(p)) {
		for (uint32_t i = 0; i < n; i++)
			ops[i].result = DOCA_ERROR_INVALID_VALUE;
		return;
	}
	/* The pipe's configuration, fixed for its life: looked up once per burst. */
	const uint32_t ps_bits = p->ps_field >= 0 ? nic_ps_field_bits(p->ps_field) : 0;
	const bool identity = (p->map_algorithm & NIC_MAP_IDENTITY) != 0;
	bool changed = false;
	pthread_rwlock_wrlock(&p->lock);
	/* The entries of a burst are independent lines, mostly out of L1: start them all. */
	for (uint32_t i = 0; i < n; i++)
		if (ops[i].index < p->nr_entries)
			__builtin_prefetch(nic_pool_entry(p, ops[i].index), 1);
	for (uint32_t i = 0; i < n; i++) {
		ops[i].result = hash_op_run(p, &ops[i], ps_bits, identity);
		changed |= ops[i].result == DOCA_SUCCESS;
	}
	pthread_rwlock_unlock(&p->lock);
	/* A burst that read the old state may still be forwarding with it: once this
	 * returns (and the caller completes the ops), none is. */
	if (changed)
		nic_dp_synchronize();
}

/* Under the pipe lock, the entry at index for a read (errors as nic_hash_exec's). */
static doca_error_t hash_entry_lock(const struct nic_pipe *cp, uint32_t index, struct nic_entry **e)
{
	struct nic_pipe *p = (struct nic_pipe *)cp;
	if (!hash_pipe_live(p) || index >= p->nr_entries)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_rwlock_wrlock(&p->lock);
	*e = nic_pool_entry(p, index);
	if (!(nic_entry_flags(*e, memory_order_acquire) & NIC_EF_LINKED)) {
		pthread_rwlock_unlock(&p->lock);
		return DOCA_ERROR_NOT_FOUND;
	}
	return DOCA_SUCCESS;
}

doca_error_t nic_hash_entry_state(const struct nic_pipe *p, uint32_t index, bool *enabled, uint32_t *ps_value)
{
	struct nic_entry *e;
	doca_error_t err = hash_entry_lock(p, index, &e);
	if (err != DOCA_SUCCESS)
		return err;
	if (enabled)
		*enabled = nic_entry_flags(e, memory_order_acquire) & NIC_EF_ENABLED;
	if (ps_value) {
		struct nic_entry_state *st = nic_entry_state(e, memory_order_relaxed);
		*ps_value = atomic_load_explicit(st->val_in_entry ? &e->val : &st->ps_value, memory_order_acquire);
	}
	pthread_rwlock_unlock(&((struct nic_pipe *)p)->lock);
	return DOCA_SUCCESS;
}

doca_error_t nic_hash_entry_counter_read(const struct nic_pipe *p, uint32_t index, uint64_t *pkts, uint64_t *bytes)
{
	struct nic_entry *e;
	doca_error_t err = hash_entry_lock(p, index, &e);
	if (err != DOCA_SUCCESS)
		return err;
	if (nic_entry_counter_read(p, e, pkts, bytes) != DOCA_SUCCESS)
		err = DOCA_ERROR_NOT_FOUND;
	pthread_rwlock_unlock(&((struct nic_pipe *)p)->lock);
	return err;
}
