/*
 * dpa_handle.c - the handle tables behind device handles of sync events and
 * notification completions (one module: both need the same stale-handle guarantees).
 *
 * A handle is tag | generation << 24 | slot. Device code may pass any 64-bit value, so
 * a lookup never dereferences the handle: it checks the tag, the slot range, that the
 * slot holds an object and that the slot's generation matches. Unpublishing bumps the
 * generation *before* clearing the slot, under the lock that publishing takes, so a
 * slot reused at once can never be reached through the previous occupant's handle.
 *
 * A lookup counts itself as a user of the slot until dpa_htab_put; unpublish waits for
 * the count to drop so that the object outlives every device call that found it. The
 * running device instance records the slot it holds (dpa_exec.held_users), so a fault
 * inside a device API call does not leak the count (dpa_exec_run releases it).
 */
#include "dpa/dpa_internal.h"

DOCA_LOG_REGISTER(DPA::HANDLE);

#define HTAB_TAG_MASK 0xff00000000000000ULL
#define HTAB_GEN_MASK 0xffffffu

bool dpa_htab_publish(struct dpa_htab *tab, void *obj, uint32_t *slot, uint64_t *handle)
{
	bool found = false;

	pthread_mutex_lock(&tab->lock);
	for (uint32_t n = 0; n < tab->nslots && !found; n++) {
		uint32_t s = (tab->next + n) % tab->nslots;

		/* A slot still counted as used (a lookup in progress) is left alone too. */
		if (atomic_load(&tab->slots[s]) == NULL && atomic_load(&tab->users[s]) == 0) {
			uint32_t gen = atomic_load(&tab->gen[s]) & HTAB_GEN_MASK;

			atomic_store(&tab->slots[s], obj);
			tab->next = s + 1;
			*slot = s;
			*handle = tab->tag | ((uint64_t)gen << 24) | s;
			found = true;
		}
	}
	pthread_mutex_unlock(&tab->lock);
	return found;
}

bool dpa_htab_unpublish(struct dpa_htab *tab, uint32_t slot, unsigned int timeout_ms)
{
	/* Generation first: a lookup that sees the slot empty or reused also sees the new
	 * generation, and a publish (same lock) hands out only the new one. */
	pthread_mutex_lock(&tab->lock);
	void *obj = atomic_load(&tab->slots[slot]);

	atomic_fetch_add(&tab->gen[slot], 1);
	atomic_store(&tab->slots[slot], NULL);
	pthread_mutex_unlock(&tab->lock);
	dpa_wake_all(); /* device waits on the object re-check and leave */
	uint64_t deadline = dpa_now_us() + (uint64_t)timeout_ms * 1000u;

	for (;;) {
		struct dpa_wake_snap snap = dpa_wake_snapshot(&tab->wake);

		if (atomic_load(&tab->users[slot]) == 0)
			return true;
		if (dpa_now_us() >= deadline)
			break;
		dpa_wake_wait(&tab->wake, snap, 1000);
	}
	/* Decide under the lock: a publish takes a slot only under it, and only once the
	 * slot has no users. Still used here, so nobody took it: restoring the object and
	 * its generation makes the handles already given out valid again. */
	pthread_mutex_lock(&tab->lock);
	bool gone = atomic_load(&tab->users[slot]) == 0;

	if (!gone) {
		atomic_fetch_sub(&tab->gen[slot], 1);
		atomic_store(&tab->slots[slot], obj);
	}
	pthread_mutex_unlock(&tab->lock);
	return gone;
}

void *dpa_htab_get(struct dpa_htab *tab, uint64_t handle, uint32_t *slot_out)
{
	uint32_t slot = (uint32_t)(handle & HTAB_GEN_MASK);
	uint32_t gen = (uint32_t)((handle >> 24) & HTAB_GEN_MASK);

	if ((handle & HTAB_TAG_MASK) != tab->tag || slot >= tab->nslots)
		return NULL;
	atomic_fetch_add(&tab->users[slot], 1);
	/* Object, then generation: the reverse of unpublish's order (see the file comment). */
	void *obj = atomic_load(&tab->slots[slot]);

	if (obj == NULL || (atomic_load(&tab->gen[slot]) & HTAB_GEN_MASK) != gen) {
		atomic_fetch_sub(&tab->users[slot], 1);
		dpa_wake(&tab->wake); /* an unpublish may be waiting for this count */
		return NULL;
	}
	struct dpa_exec *x = dpa_exec_current;

	if (x != NULL)
		x->held_users = &tab->users[slot];
	*slot_out = slot;
	return obj;
}

void dpa_htab_put(struct dpa_htab *tab, uint32_t slot)
{
	struct dpa_exec *x = dpa_exec_current;

	if (x != NULL)
		x->held_users = NULL;
	atomic_fetch_sub(&tab->users[slot], 1);
	/* An unpublish may be waiting for this count (the slot is empty then). */
	if (atomic_load(&tab->slots[slot]) == NULL)
		dpa_wake(&tab->wake);
}
