/*
 * pipe.c - NIC pipes and entries on the control side: creation, CONTROL entries and
 * their priority arrays, update, removal with a grace period, and destruction (BASIC
 * and HASH adds are add.c's).
 *
 * Writers are serialised per pipe by pipe->lock, held for writing (adds, which hold it
 * for reading, serialise among themselves as add.c says); every structure the
 * datapath reads is published with one release store, and anything it may still hold
 * is freed only after nic_dp_synchronize().
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::PIPE);

static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nic_pipe *all_pipes;

/*
 * Whether root lookups on a table of nr_entries prefetch in passes (datapath.c). A hit
 * touches about NIC_HOT_BYTES_PER_ENTRY bytes of a table (its bucket, the entry's
 * line, its counter cell); while those fit well inside a core's L2 cache, the lookup is
 * faster packet by packet, beyond that the passes that overlap the cache misses win
 * (bench/datapath: direct up to 4096 entries, passes from 8192, on a 2 MB L2). The
 * bound is fixed rather than read from the L2 size the system reports, so that a pipe
 * takes the same path on every machine (nic_pipe_lookup_path says which).
 */
#define NIC_HOT_BYTES_PER_ENTRY 96
#define NIC_DIRECT_MAX_BYTES (512u << 10)

static bool table_outgrows_cache(uint32_t nr_entries)
{
	return (uint64_t)nr_entries * NIC_HOT_BYTES_PER_ENTRY > NIC_DIRECT_MAX_BYTES;
}

const char *nic_pipe_lookup_path(const struct nic_pipe *pipe)
{
	if (pipe->type == NIC_PIPE_CONTROL)
		return "control";
	if (!pipe->is_root)
		return "walk";
	bool one_word = pipe->type == NIC_PIPE_BASIC && pipe->nr_entry_words == 1 && pipe->nr_const_words <= 1;
	/* As root_plan_init and root_burst decide: a one-word BASIC root whose words the
	 * frame gives (neither word 7 nor 12) is staged at any size; other one-word BASIC
	 * roots go direct while small. */
	if (one_word && nic_words_from_frame(pipe->entry_words[0], pipe->nr_const_words ? pipe->const_words[0] : 0))
		return "staged";
	return pipe->prefetch_lookup || !one_word ? "prefetch" : "direct";
}

uint32_t nic_ps_field_bits(int field)
{
	switch (field) {
	case NIC_AF_L4_SRC:
	case NIC_AF_L4_DST:
		return 16;
	case NIC_AF_IP_TTL:
		return 8;
	case NIC_AF_IP4_SRC:
	case NIC_AF_IP4_DST:
		return 32;
	default:
		if (field >= NIC_AF_META && field < NIC_AF_COUNT)
			return 32;
		return 0;
	}
}

static void pipe_locks_init(struct nic_pipe *p)
{
	/* Adds hold the lock for reading without pause: a control call waiting to write
	 * must not wait for the queues to go idle. */
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&p->lock, &ra);
	pthread_rwlockattr_destroy(&ra);
	atomic_init(&p->slot_lock, 0);
	atomic_init(&p->intern_lock, 0);
	pthread_mutex_init(&p->spill_lock, NULL);
}

static void pipe_locks_destroy(struct nic_pipe *p)
{
	pthread_rwlock_destroy(&p->lock);
	pthread_mutex_destroy(&p->spill_lock);
}

doca_error_t nic_pipe_create(const struct nic_pipe_attr *attr, struct nic_pipe **out)
{
	if (attr == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	const char *name = attr->name ? attr->name : "";
	if (attr->nr_entries == 0) {
		CORE_LOG_ERR("pipe '%s': nr_entries is 0", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (attr->port_id >= NIC_MAX_PORTS || !nic_port_started(attr->port_id)) {
		CORE_LOG_ERR("pipe '%s': port %u is not started", name, attr->port_id);
		return DOCA_ERROR_BAD_STATE;
	}
	uint32_t alg = attr->map_algorithm ? attr->map_algorithm : NIC_MAP_HASH;
	if (attr->type == NIC_PIPE_HASH) {
		if ((alg & ~NIC_MAP_SELECT_ENABLED) == 0)
			alg |= NIC_MAP_HASH;
		/* The flow layer refused bad flags already, with the user's line; this is the
		 * same rule (nic_map_algorithm_valid) for the NIC's other callers. */
		if (!nic_map_algorithm_valid(alg)) {
			CORE_LOG_ERR("pipe '%s': map algorithm 0x%x must be one of HASH, RANDOM, IDENTITY, "
				     "ROUND_ROBIN, FLOODING (optionally | SELECT_ENABLED)",
				     name, attr->map_algorithm);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (attr->idxsel && nic_idxsel_size(attr->idxsel) < attr->nr_entries) {
			CORE_LOG_ERR("pipe '%s': index selector has %u indices, fewer than nr_entries %u", name,
				     nic_idxsel_size(attr->idxsel), attr->nr_entries);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (attr->mem && nic_mem_size(attr->mem) < attr->nr_entries) {
			CORE_LOG_ERR("pipe '%s': memory resource has %u cells, fewer than nr_entries %u", name,
				     nic_mem_size(attr->mem), attr->nr_entries);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (attr->ps_field >= 0 && nic_ps_field_bits(attr->ps_field) == 0) {
			CORE_LOG_ERR("pipe '%s': rewrite field %d cannot carry a path-selector value", name,
				     attr->ps_field);
			return DOCA_ERROR_INVALID_VALUE;
		}
	} else if (attr->idxsel || attr->mem) {
		CORE_LOG_ERR("pipe '%s': external resources bind to HASH pipes only", name);
		return DOCA_ERROR_INVALID_VALUE;
	}

	struct nic_pipe *p = core_calloc_aligned(_Alignof(struct nic_pipe), sizeof(*p));
	if (p == NULL) {
		CORE_LOG_ERR("pipe '%s': out of memory (the pipe)", name);
		return DOCA_ERROR_NO_MEMORY;
	}
	p->type = attr->type;
	p->port_id = attr->port_id;
	p->is_root = attr->is_root;
	p->nr_entries = attr->nr_entries;
	p->map_algorithm = attr->type == NIC_PIPE_HASH ? alg : 0;
	p->ps_field = attr->type == NIC_PIPE_HASH ? attr->ps_field : -1;
	uint32_t ps_bits = p->ps_field >= 0 ? nic_ps_field_bits(p->ps_field) : 32;
	p->ps_max = ps_bits < 32 ? (1u << ps_bits) - 1 : UINT32_MAX;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->const_mask = attr->const_mask;
	for (int i = 0; i < NIC_KEY_WORDS; i++)
		p->const_val.w[i] = attr->const_val.w[i] & attr->const_mask.w[i];
	p->entry_mask = attr->entry_mask;
	p->nr_const_words = nic_key_active_words(&p->const_mask, p->const_words);
	p->nr_entry_words = nic_key_active_words(&p->entry_mask, p->entry_words);
	if (p->type == NIC_PIPE_HASH)
		nic_index_layout(&p->entry_mask, &p->idx);
	p->has_miss_counter = attr->miss_counter;
	p->prefetch_lookup = table_outgrows_cache(p->nr_entries);
	if (p->type == NIC_PIPE_HASH && (p->nr_entries & (p->nr_entries - 1)) == 0)
		p->index_mask = p->nr_entries - 1;
	p->idxsel = attr->idxsel;
	p->mem = attr->mem;
	pipe_locks_init(p);

	struct nic_fwd *miss = core_malloc(sizeof(*miss));
	doca_error_t err = DOCA_ERROR_NO_MEMORY;
	bool table_ok = true;
	if (p->type == NIC_PIPE_BASIC) {
		/* 8 to 16 bytes of buckets an entry (struct nic_bucket). */
		struct nic_btable *bt = nic_btable_alloc(p->nr_entries, 0);
		atomic_init(&p->bt, nic_btable_word(bt));
		uint64_t nslots = nic_basic_slots(attr->max_entries > p->nr_entries ? attr->max_entries : p->nr_entries);
		table_ok = bt && nic_pool_create(p, nslots > UINT32_MAX ? UINT32_MAX : (uint32_t)nslots) ==
					       DOCA_SUCCESS;
	} else if (p->type == NIC_PIPE_HASH) {
		table_ok = nic_pool_create(p, p->nr_entries) == DOCA_SUCCESS;
	}
	if (miss == NULL || !table_ok) {
		CORE_LOG_ERR("pipe '%s': out of memory (%s)", name, miss == NULL ? "fwd_miss" : "entry table");
		goto fail;
	}
	*miss = attr->fwd_miss;
	atomic_init(&p->fwd_miss, miss);
	atomic_store_explicit(&p->magic, NIC_PIPE_MAGIC, memory_order_release);

	if (p->is_root) {
		err = nic_port_set_root(p->port_id, p, NULL);
		if (err != DOCA_SUCCESS) {
			CORE_LOG_ERR("pipe '%s': port %u already has a root pipe", name, p->port_id);
			goto fail;
		}
	}
	pthread_mutex_lock(&all_lock);
	p->all_next = all_pipes;
	all_pipes = p;
	pthread_mutex_unlock(&all_lock);
	if (p->is_root)
		nic_traffic_root_set(p->port_id);
	*out = p;
	return DOCA_SUCCESS;

fail:
	/* Nothing of p was published: no root slot, not on all_pipes. */
	free(miss);
	nic_pool_free(p);
	nic_btable_free(nic_pipe_btable(p));
	pipe_locks_destroy(p);
	free(p);
	return err;
}

bool nic_pipe_alive(const struct nic_pipe *pipe)
{
	return pipe && atomic_load_explicit(&((struct nic_pipe *)pipe)->magic, memory_order_acquire) == NIC_PIPE_MAGIC;
}

enum nic_pipe_type nic_pipe_type(const struct nic_pipe *pipe)
{
	return pipe->type;
}

uint32_t nic_pipe_nr_entries(const struct nic_pipe *pipe)
{
	return pipe->nr_entries;
}

uint32_t nic_pipe_map_algorithm(const struct nic_pipe *pipe)
{
	return pipe->map_algorithm;
}

const char *nic_pipe_name(const struct nic_pipe *pipe)
{
	return pipe->name;
}

uint32_t nic_pipe_nr_live_entries(const struct nic_pipe *pipe)
{
	return pipe->nr_live;
}

doca_error_t nic_pipe_set_fwd_miss(struct nic_pipe *pipe, const struct nic_fwd *fwd_miss)
{
	struct nic_fwd *f = core_malloc(sizeof(*f));
	if (f == NULL) {
		CORE_LOG_ERR("pipe '%s': no memory to replace fwd_miss", pipe->name);
		return DOCA_ERROR_NO_MEMORY;
	}
	*f = *fwd_miss;
	pthread_rwlock_wrlock(&pipe->lock);
	struct nic_fwd *old = atomic_exchange_explicit(&pipe->fwd_miss, f, memory_order_acq_rel);
	pthread_rwlock_unlock(&pipe->lock);
	nic_dp_synchronize();
	free(old);
	return DOCA_SUCCESS;
}

doca_error_t nic_pipe_miss_read(const struct nic_pipe *pipe, uint64_t *pkts, uint64_t *bytes)
{
	if (!pipe->has_miss_counter)
		return DOCA_ERROR_INVALID_VALUE;
	nic_counter_read(&pipe->miss, pkts, bytes);
	return DOCA_SUCCESS;
}

doca_error_t nic_pipe_calc_hash(const struct nic_pipe *pipe, const struct nic_key *key, uint32_t *hash)
{
	if (pipe->type != NIC_PIPE_HASH)
		return DOCA_ERROR_INVALID_VALUE;
	*hash = nic_index_hash(&pipe->idx, key);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ CONTROL tables */

static int ctrl_cmp(const void *a, const void *b)
{
	const struct nic_entry *x = *(struct nic_entry *const *)a, *y = *(struct nic_entry *const *)b;
	uint32_t px = nic_ctrl_of(x)->priority, py = nic_ctrl_of(y)->priority;
	if (px != py)
		return px < py ? -1 : 1;
	uint64_t sx = nic_ctrl_of(x)->seq, sy = nic_ctrl_of(y)->seq;
	return sx < sy ? -1 : (sx > sy);
}

/* A table with room for n entries; allocated before a change so that the change either
 * happens whole or not at all. */
static struct nic_ctrl_table *ctrl_table_alloc(uint32_t n)
{
	return core_malloc(sizeof(struct nic_ctrl_table) + (size_t)n * sizeof(((struct nic_ctrl_table *)0)->e[0]));
}

/* Fill t with the pipe's live entries in priority order and publish it (lock held). */
static void ctrl_publish(struct nic_pipe *p, struct nic_ctrl_table *t, struct nic_ctrl_table **retired)
{
	t->n = 0;
	for (struct nic_ctrl_entry *c = p->entries; c; c = c->list_next)
		t->e[t->n++] = &c->e;
	qsort(t->e, t->n, sizeof(t->e[0]), ctrl_cmp);
	*retired = atomic_exchange_explicit(&p->ctrl, t, memory_order_acq_rel);
}

/* Publish a new priority-ordered array of the pipe's live entries (lock held). */
static doca_error_t ctrl_rebuild(struct nic_pipe *p, struct nic_ctrl_table **retired)
{
	struct nic_ctrl_table *t = ctrl_table_alloc(p->nr_live);

	if (t == NULL) {
		CORE_LOG_ERR("pipe '%s': out of memory (a table of %u entries)", p->name, p->nr_live);
		return DOCA_ERROR_NO_MEMORY;
	}
	ctrl_publish(p, t, retired);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ entries */

static void ctrl_link(struct nic_pipe *p, struct nic_ctrl_entry *c)
{
	c->list_prev = NULL;
	c->list_next = p->entries;
	if (p->entries)
		p->entries->list_prev = c;
	p->entries = c;
}

static void ctrl_unlink(struct nic_pipe *p, struct nic_ctrl_entry *c)
{
	if (c->list_prev)
		c->list_prev->list_next = c->list_next;
	else
		p->entries = c->list_next;
	if (c->list_next)
		c->list_next->list_prev = c->list_prev;
	c->list_next = c->list_prev = NULL;
}

/* A CONTROL entry's state and fields (lock held); NO_MEMORY when no state could be had. */
static doca_error_t entry_fill(struct nic_pipe *p, struct nic_entry *e, const struct nic_entry_attr *attr)
{
	uint32_t val;
	struct nic_counter *cnt = attr->own_counter ? NULL : attr->shared_counter;
	struct nic_entry_state *st = nic_state_get(p, &attr->actions, &attr->fwd, cnt, attr->ps_value, &val);
	if (st == NULL) {
		CORE_LOG_ERR("pipe '%s': out of memory (an entry's actions)", p->name);
		return DOCA_ERROR_NO_MEMORY;
	}
	nic_entry_set(e, attr, st, val);
	return DOCA_SUCCESS;
}

static doca_error_t ctrl_entry_add(struct nic_pipe *p, const struct nic_entry_attr *attr, struct nic_entry **out)
{
	struct nic_ctrl_entry *c = NULL;
	if (core_posix_memalign((void **)&c, _Alignof(struct nic_ctrl_entry), sizeof(*c)) != 0) {
		CORE_LOG_ERR("pipe '%s': out of memory (an entry)", p->name);
		return DOCA_ERROR_NO_MEMORY;
	}
	memset(c, 0, sizeof(*c));
	c->mask = attr->mask;
	c->priority = attr->priority;
	c->cond = attr->cond; /* owned once added: the fail path leaves it to the caller */
	for (int i = 0; i < NIC_KEY_WORDS; i++)
		c->match.w[i] = attr->match.w[i] & attr->mask.w[i];
	struct nic_ctrl_table *retired = NULL;
	doca_error_t err = DOCA_SUCCESS;
	pthread_rwlock_wrlock(&p->lock);
	if (!nic_pipe_alive(p)) {
		err = DOCA_ERROR_INVALID_VALUE;
	} else if (p->nr_live >= p->nr_entries) {
		CORE_LOG_ERR("pipe '%s': full (%u entries)", p->name, p->nr_entries);
		err = DOCA_ERROR_FULL;
	} else {
		c->seq = p->next_seq++;
		err = entry_fill(p, &c->e, attr);
	}
	if (err == DOCA_SUCCESS) {
		ctrl_link(p, c);
		p->nr_live++;
		err = ctrl_rebuild(p, &retired);
		if (err != DOCA_SUCCESS) {
			ctrl_unlink(p, c);
			p->nr_live--;
			nic_state_put(p, nic_entry_state(&c->e, memory_order_relaxed));
		}
	}
	pthread_rwlock_unlock(&p->lock);
	if (err != DOCA_SUCCESS) {
		/* Never linked, or unlinked again under the lock before the datapath saw it. */
		free(c);
		return err;
	}
	if (retired) {
		nic_dp_synchronize();
		free(retired);
	}
	*out = &c->e;
	return DOCA_SUCCESS;
}

doca_error_t nic_ps_value_refuse(const struct nic_pipe *p, uint32_t ps_value)
{
	CORE_LOG_ERR("pipe '%s': path-selector value %u does not fit %u bits", p->name, ps_value,
		     nic_ps_field_bits(p->ps_field));
	return DOCA_ERROR_INVALID_VALUE;
}

doca_error_t nic_entry_add(struct nic_pipe *p, const struct nic_entry_attr *attr, struct nic_entry **out)
{
	if (!nic_pipe_alive(p) || attr == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	doca_error_t err;
	nic_entry_add_bulk(p, &attr, 1, out, &err);
	return err;
}

void nic_entry_add_bulk(struct nic_pipe *p, const struct nic_entry_attr *const *attrs, uint32_t n,
			struct nic_entry **out, doca_error_t *errs)
{
	if (!nic_pipe_alive(p)) {
		for (uint32_t i = 0; i < n; i++)
			errs[i] = DOCA_ERROR_INVALID_VALUE;
		return;
	}
	if (p->type != NIC_PIPE_CONTROL) {
		nic_pool_add_bulk(p, attrs, n, out, errs);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		errs[i] = ctrl_entry_add(p, attrs[i], &out[i]);
}

doca_error_t nic_entry_update(struct nic_pipe *p, struct nic_entry *e, const struct nic_actions *actions,
			      uint32_t ps_value, const struct nic_fwd *fwd)
{
	if (p->type == NIC_PIPE_HASH && nic_ps_value_check(p, ps_value) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	/* A private state: the new actions and value are published by one store. */
	struct nic_entry_state *st = nic_state_alloc();
	if (st == NULL) {
		CORE_LOG_ERR("pipe '%s': out of memory (an entry's new state)", p->name);
		return DOCA_ERROR_NO_MEMORY;
	}
	pthread_rwlock_wrlock(&p->lock);
	/* The counter is the entry's from its add on: the new state keeps it. */
	nic_entry_state_init(st, actions, fwd, nic_entry_state(e, memory_order_relaxed)->cnt, ps_value);
	struct nic_entry_state *old = nic_entry_state_swap(e, st);
	pthread_rwlock_unlock(&p->lock);
	nic_dp_synchronize();
	pthread_rwlock_wrlock(&p->lock);
	nic_state_put(p, old);
	pthread_rwlock_unlock(&p->lock);
	return DOCA_SUCCESS;
}

/* Unlink e from the datapath structures (lock held); *retired gets the CONTROL table
 * that readers may still hold. NO_MEMORY leaves everything as it was. */
static doca_error_t entry_unlink(struct nic_pipe *p, struct nic_entry *e, struct nic_ctrl_table **retired)
{
	struct nic_ctrl_table *t = NULL;

	*retired = NULL;
	if (!(nic_entry_flags(e, memory_order_relaxed) & NIC_EF_LINKED))
		return DOCA_SUCCESS;
	if (p->type == NIC_PIPE_CONTROL && (t = ctrl_table_alloc(p->nr_live)) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (p->type == NIC_PIPE_BASIC) {
		struct nic_key k;
		nic_entry_match_key(p, e, &k);
		nic_bucket_unlink(p, nic_bentry_of(e), nic_basic_hash(p, &k));
	} else if (p->type == NIC_PIPE_CONTROL) {
		ctrl_unlink(p, nic_ctrl_of(e));
	}
	/* HASH: the slot stops being usable with this store (hash_usable reads it). */
	nic_entry_flags_clear(e, NIC_EF_LINKED, memory_order_release);
	assert(p->nr_live > 0);
	p->nr_live--;
	if (t != NULL)
		ctrl_publish(p, t, retired);
	return DOCA_SUCCESS;
}

doca_error_t nic_entry_remove(struct nic_pipe *p, struct nic_entry *e)
{
	struct nic_ctrl_table *retired;
	doca_error_t err;

	pthread_rwlock_wrlock(&p->lock);
	err = entry_unlink(p, e, &retired);
	pthread_rwlock_unlock(&p->lock);
	if (err != DOCA_SUCCESS) {
		CORE_LOG_ERR("pipe '%s': no memory for the new CONTROL table; the entry stays", p->name);
		return err;
	}
	nic_dp_synchronize();
	free(retired);
	return DOCA_SUCCESS;
}

/* Free a pool entry (lock held): its state reference, then its slot. */
static void pool_entry_free(struct nic_pipe *p, struct nic_entry *e)
{
	nic_state_put(p, nic_entry_state(e, memory_order_relaxed));
	nic_slot_release(p, e);
}

void nic_entry_free(struct nic_pipe *p, struct nic_entry *e)
{
	if (e == NULL)
		return;
	/* Under the lock an add at this slot from another queue checks it with. */
	pthread_rwlock_wrlock(&p->lock);
	if (p->pool)
		pool_entry_free(p, e);
	else
		nic_state_put(p, nic_entry_state(e, memory_order_relaxed));
	pthread_rwlock_unlock(&p->lock);
	if (!p->pool) {
		free(nic_ctrl_of(e)->cond);
		free(nic_ctrl_of(e));
	}
}

doca_error_t nic_entry_counter_read(const struct nic_pipe *p, const struct nic_entry *e, uint64_t *pkts,
				    uint64_t *bytes)
{
	if (nic_entry_flags(e, memory_order_relaxed) & NIC_EF_OWN_CNT) {
		nic_entry_cells_read(p, e, pkts, bytes);
		return DOCA_SUCCESS;
	}
	const struct nic_entry_state *st = nic_entry_state(e, memory_order_acquire);
	if (st == NULL || st->cnt == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	nic_counter_read(st->cnt, pkts, bytes);
	return DOCA_SUCCESS;
}

struct nic_counter *nic_entry_shared_counter(const struct nic_pipe *p, const struct nic_entry *e)
{
	(void)p;
	if (nic_entry_flags(e, memory_order_relaxed) & NIC_EF_OWN_CNT)
		return NULL;
	const struct nic_entry_state *st = nic_entry_state(e, memory_order_acquire);
	return st ? st->cnt : NULL;
}

struct nic_entry *nic_pipe_entry_at(const struct nic_pipe *p, uint32_t slot)
{
	return p->pool && slot < p->pool_n ? nic_pool_entry(p, slot) : NULL;
}

uint32_t nic_pipe_entry_slot(const struct nic_pipe *p, const struct nic_entry *e)
{
	return p->pool ? nic_entry_slot(p, e) : UINT32_MAX;
}

void nic_pipe_destroy(struct nic_pipe *p)
{
	if (!nic_pipe_alive(p))
		return;
	nic_pool_prefault_stop(p);
	pthread_rwlock_wrlock(&p->lock);
	atomic_store_explicit(&p->magic, NIC_PIPE_DEAD, memory_order_release);
	if (p->is_root) {
		/* The port's root is this pipe: clearing it cannot fail. */
		doca_error_t err = nic_port_set_root(p->port_id, NULL, p);
		assert(err == DOCA_SUCCESS);
		(void)err;
	}
	/* The linked entries go with the pipe; removed ones are still their owner's to free. */
	struct nic_ctrl_entry *list = p->entries;
	uint32_t end = p->pool ? (p->type == NIC_PIPE_BASIC ? p->pool_hw : p->pool_n) : 0;
	for (uint32_t i = p->pool ? nic_slot_next_used(p, 0) : end; i < end; i = nic_slot_next_used(p, i + 1)) {
		struct nic_entry *e = nic_pool_entry(p, i);
		if (nic_entry_flags(e, memory_order_relaxed) & NIC_EF_LINKED) {
			nic_entry_flags_set(e, NIC_EF_DESTROYED, memory_order_relaxed);
			nic_entry_flags_clear(e, NIC_EF_LINKED, memory_order_release);
		}
	}
	for (struct nic_ctrl_entry *c = list; c; c = c->list_next)
		nic_entry_flags_clear(&c->e, NIC_EF_LINKED, memory_order_release);
	struct nic_btable *bt = nic_pipe_btable(p);
	for (uint32_t i = 0; bt && i < bt->n; i++) {
		struct nic_bucket *bk = &bt->b[i];
		for (uint32_t w = 0; w < NIC_BUCKET_WAYS; w++)
			if (atomic_load_explicit(&bk->way[w], memory_order_relaxed))
				atomic_store_explicit(&bk->way[w], 0, memory_order_release);
		if (atomic_load_explicit(&bk->over, memory_order_relaxed))
			atomic_store_explicit(&bk->over, 0, memory_order_release);
	}
	struct nic_ctrl_table *t = atomic_exchange_explicit(&p->ctrl, NULL, memory_order_acq_rel);
	p->entries = NULL;
	p->nr_live = 0;
	pthread_rwlock_unlock(&p->lock);
	nic_dp_synchronize();
	free(t);
	/* Those this destroy unlinked: flagged USED and no longer LINKED, but only the
	 * ones it saw linked (the others were removed, their owners free them). */
	pthread_rwlock_wrlock(&p->lock);
	for (uint32_t i = p->pool ? nic_slot_next_used(p, 0) : end; i < end; i = nic_slot_next_used(p, i + 1))
		if (nic_entry_flags(nic_pool_entry(p, i), memory_order_relaxed) & NIC_EF_DESTROYED)
			pool_entry_free(p, nic_pool_entry(p, i));
	pthread_rwlock_unlock(&p->lock);
	while (list) {
		struct nic_ctrl_entry *next = list->list_next;
		nic_entry_free(p, &list->e);
		list = next;
	}
}

void nic_pipes_free_all(void)
{
	pthread_mutex_lock(&all_lock);
	struct nic_pipe *p = all_pipes;
	all_pipes = NULL;
	pthread_mutex_unlock(&all_lock);
	while (p) {
		struct nic_pipe *next = p->all_next;
		nic_pipe_destroy(p);
		free(atomic_load_explicit(&p->fwd_miss, memory_order_relaxed));
		nic_pool_free(p);
		nic_btable_free(nic_pipe_btable(p));
		nic_states_free_all(p);
		for (int i = 0; i < NIC_MAX_PROGS; i++)
			free(p->progs[i]);
		pipe_locks_destroy(p);
		free(p);
		p = next;
	}
}
