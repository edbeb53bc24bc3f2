/*
 * pipe.c - NIC pipes and entries on the control side: creation, insertion into the
 * structure the datapath walks (BASIC bucket chains, HASH index slots, CONTROL
 * priority arrays), update, removal with a grace period, and the HASH-pipe operations
 * the provider executes (enable/disable, path-selector replace, counter read).
 *
 * Writers are serialised per pipe by pipe->lock; every structure the datapath reads is
 * published with one release store, and anything it may still hold is freed only after
 * nic_dp_synchronize().
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::PIPE);

static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nic_pipe *all_pipes;

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;
	while (p < n && p < (1u << 31))
		p <<= 1;
	return p;
}

/*
 * Whether root lookups on a table of nr_entries prefetch in passes (datapath.c). A hit
 * touches about NIC_HOT_BYTES_PER_ENTRY bytes of a table (bucket slots, the entry's
 * first line, its counter shard); while those fit in half of this core's L2 cache, the
 * lookup is faster packet by packet, beyond that the passes that overlap the cache
 * misses win (bench/datapath: direct up to 4096 entries, passes from 8192, on a 2 MB L2).
 */
#define NIC_HOT_BYTES_PER_ENTRY 160
#define NIC_L2_DEFAULT (1u << 20)

static bool table_outgrows_cache(uint32_t nr_entries)
{
	static _Atomic long l2_bytes;
	long l2 = atomic_load_explicit(&l2_bytes, memory_order_relaxed);
	if (l2 == 0) {
		l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
		if (l2 <= 0)
			l2 = NIC_L2_DEFAULT;
		atomic_store_explicit(&l2_bytes, l2, memory_order_relaxed);
	}
	return (uint64_t)nr_entries * NIC_HOT_BYTES_PER_ENTRY > (uint64_t)l2 / 2;
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

/* Zeroed, cache-line aligned; big pools ask for huge pages (one fault per 2 MiB). */
static uint8_t *pool_alloc(size_t size)
{
	const size_t huge = 2u << 20;
	void *mem = NULL;
	if (size >= huge) {
		size = (size + huge - 1) & ~(huge - 1);
		if (core_posix_memalign(&mem, huge, size) != 0)
			return NULL;
		madvise(mem, size, MADV_HUGEPAGE);
		memset(mem, 0, size);
		return mem;
	}
	if (core_posix_memalign(&mem, 64, size) != 0)
		return NULL;
	memset(mem, 0, size);
	return mem;
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

	struct nic_pipe *p = core_calloc(1, sizeof(*p));
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
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->const_mask = attr->const_mask;
	for (int i = 0; i < NIC_KEY_WORDS; i++)
		p->const_val.w[i] = attr->const_val.w[i] & attr->const_mask.w[i];
	p->entry_mask = attr->entry_mask;
	p->nr_const_words = nic_key_active_words(&p->const_mask, p->const_words);
	p->nr_entry_words = nic_key_active_words(&p->entry_mask, p->entry_words);
	p->has_miss_counter = attr->miss_counter;
	p->prefetch_lookup = table_outgrows_cache(p->nr_entries);
	if (p->type == NIC_PIPE_HASH && (p->nr_entries & (p->nr_entries - 1)) == 0)
		p->index_mask = p->nr_entries - 1;
	p->idxsel = attr->idxsel;
	p->mem = attr->mem;
	pthread_mutex_init(&p->lock, NULL);

	struct nic_fwd *miss = core_malloc(sizeof(*miss));
	uint32_t nslots = 0;
	if (p->type == NIC_PIPE_BASIC) {
		/* Four buckets per entry (8 bytes each): chains average 1.1 entries on a hit
		 * instead of 1.5, and each extra entry visited is a dependent cache miss. */
		nslots = pow2_at_least(p->nr_entries > (1u << 29) ? p->nr_entries : p->nr_entries * 4);
		p->bucket_mask = nslots - 1;
	} else if (p->type == NIC_PIPE_HASH) {
		nslots = p->nr_entries;
	}
	if (nslots)
		p->slots = core_calloc(nslots, sizeof(*p->slots));
	if (p->type == NIC_PIPE_HASH) {
		p->pool_esize = (NIC_ENTRY_SIZE(NIC_PIPE_HASH) + 63) & ~(size_t)63;
		p->pool = pool_alloc((size_t)p->nr_entries * p->pool_esize);
	}
	doca_error_t err = DOCA_ERROR_NO_MEMORY;
	if (miss == NULL || (nslots && p->slots == NULL) || (p->type == NIC_PIPE_HASH && p->pool == NULL)) {
		CORE_LOG_ERR("pipe '%s': out of memory (%s)", name,
			     miss == NULL ? "fwd_miss" : p->slots == NULL ? "lookup table" : "entry pool");
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
	free(p->pool);
	free((void *)p->slots);
	pthread_mutex_destroy(&p->lock);
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
	pthread_mutex_lock(&pipe->lock);
	struct nic_fwd *old = atomic_exchange_explicit(&pipe->fwd_miss, f, memory_order_acq_rel);
	pthread_mutex_unlock(&pipe->lock);
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
	*hash = nic_hash_words(key, &pipe->entry_mask, pipe->entry_words, pipe->nr_entry_words);
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ CONTROL tables */

static int ctrl_cmp(const void *a, const void *b)
{
	const struct nic_entry *x = *(struct nic_entry *const *)a, *y = *(struct nic_entry *const *)b;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
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
	for (struct nic_entry *e = p->entries; e; e = e->list_next)
		t->e[t->n++] = e;
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

static void list_link(struct nic_pipe *p, struct nic_entry *e)
{
	e->list_prev = NULL;
	e->list_next = p->entries;
	if (p->entries)
		p->entries->list_prev = e;
	p->entries = e;
	p->nr_live++;
}

static void list_unlink(struct nic_pipe *p, struct nic_entry *e)
{
	assert(p->nr_live > 0);
	if (e->list_prev)
		e->list_prev->list_next = e->list_next;
	else
		p->entries = e->list_next;
	if (e->list_next)
		e->list_next->list_prev = e->list_prev;
	e->list_next = e->list_prev = NULL;
	p->nr_live--;
}

static struct nic_entry *basic_find(struct nic_pipe *p, const struct nic_key *k, uint32_t h)
{
	struct nic_entry *e = atomic_load_explicit(&p->slots[h & p->bucket_mask], memory_order_acquire);
	for (; e; e = atomic_load_explicit(&e->next, memory_order_acquire))
		if (e->hash == h && nic_key_eq_words(k, &p->entry_mask, &e->match, p->entry_words, p->nr_entry_words))
			return e;
	return NULL;
}

static void entry_fill(struct nic_pipe *p, struct nic_entry *e, const struct nic_entry_attr *attr)
{
	struct nic_entry_state *st = &e->first_state;
	nic_entry_state_init(st, &attr->actions, &attr->fwd, attr->ps_value);
	atomic_init(&e->state, st);
	atomic_init(&e->enabled, true);
	e->pipe = p;
	e->index = attr->index;
	e->priority = attr->priority;
	e->cnt = attr->own_counter ? &e->own_cnt : attr->shared_counter;
}

static inline bool in_pool(const struct nic_pipe *p, const struct nic_entry *e)
{
	return p->pool && (const uint8_t *)e >= p->pool &&
	       (const uint8_t *)e < p->pool + (size_t)p->nr_entries * p->pool_esize;
}

/*
 * HASH entries live in the pipe's preallocated pool, one slot per index (the pipe size
 * is fixed at creation, as in hardware): an add allocates nothing. The slot is reused
 * only once its previous entry was removed and freed, after a grace period.
 */
static doca_error_t hash_entry_add(struct nic_pipe *p, const struct nic_entry_attr *attr, struct nic_entry **out)
{
	doca_error_t err = DOCA_SUCCESS;
	struct nic_entry *e = (struct nic_entry *)(void *)(p->pool + (size_t)attr->index * p->pool_esize);
	pthread_mutex_lock(&p->lock);
	if (!nic_pipe_alive(p)) {
		err = DOCA_ERROR_INVALID_VALUE;
	} else if (atomic_load_explicit(&p->slots[attr->index], memory_order_relaxed) || e->pipe) {
		CORE_LOG_ERR("pipe '%s': entry index %u is already used", p->name, attr->index);
		err = DOCA_ERROR_ALREADY_EXIST;
	} else {
		/* Pool slots are zero: from creation, or cleared by nic_entry_free. */
		entry_fill(p, e, attr);
		e->seq = p->next_seq++;
		e->linked = true;
		list_link(p, e);
		atomic_store_explicit(&p->slots[attr->index], e, memory_order_release);
	}
	pthread_mutex_unlock(&p->lock);
	if (err == DOCA_SUCCESS)
		*out = e;
	return err;
}

doca_error_t nic_entry_add(struct nic_pipe *p, const struct nic_entry_attr *attr, struct nic_entry **out)
{
	if (!nic_pipe_alive(p) || attr == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (p->type == NIC_PIPE_HASH) {
		if (attr->index >= p->nr_entries) {
			CORE_LOG_ERR("pipe '%s': entry index %u out of range (nr_entries %u)", p->name, attr->index,
				     p->nr_entries);
			return DOCA_ERROR_INVALID_VALUE;
		}
		uint32_t bits = p->ps_field >= 0 ? nic_ps_field_bits(p->ps_field) : 32;
		if (bits < 32 && attr->ps_value >> bits) {
			CORE_LOG_ERR("pipe '%s': path-selector value %u does not fit %u bits", p->name,
				     attr->ps_value, bits);
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	if (p->type == NIC_PIPE_HASH)
		return hash_entry_add(p, attr, out);
	/* Aligned as the struct requires (calloc gives 16): the hot line is one line. */
	struct nic_entry *e = NULL;
	if (core_posix_memalign((void **)&e, _Alignof(struct nic_entry), sizeof(*e)) != 0) {
		CORE_LOG_ERR("pipe '%s': out of memory (an entry)", p->name);
		return DOCA_ERROR_NO_MEMORY;
	}
	memset(e, 0, sizeof(*e));
	entry_fill(p, e, attr);
	doca_error_t err = DOCA_SUCCESS;
	if (p->type == NIC_PIPE_BASIC) {
		for (int i = 0; i < NIC_KEY_WORDS; i++)
			e->match.w[i] = attr->match.w[i] & p->entry_mask.w[i];
		e->hash = nic_basic_hash(p, &e->match);
		e->match0 = p->nr_entry_words ? e->match.w[p->entry_words[0]] : 0;
	} else if (p->type == NIC_PIPE_CONTROL) {
		e->mask = core_malloc(sizeof(*e->mask));
		if (e->mask == NULL) {
			CORE_LOG_ERR("pipe '%s': out of memory (an entry's mask)", p->name);
			err = DOCA_ERROR_NO_MEMORY;
			goto fail;
		}
		*e->mask = attr->mask;
		for (int i = 0; i < NIC_KEY_WORDS; i++)
			e->match.w[i] = attr->match.w[i] & attr->mask.w[i];
		e->cond = attr->cond; /* owned once added: the fail path leaves it to the caller */
	}

	struct nic_ctrl_table *retired = NULL;
	pthread_mutex_lock(&p->lock);
	if (!nic_pipe_alive(p)) {
		err = DOCA_ERROR_INVALID_VALUE;
	} else if (p->nr_live >= p->nr_entries) {
		CORE_LOG_ERR("pipe '%s': full (%u entries)", p->name, p->nr_entries);
		err = DOCA_ERROR_FULL;
	} else if (p->type == NIC_PIPE_BASIC) {
		if (basic_find(p, &e->match, e->hash)) {
			CORE_LOG_ERR("pipe '%s': an entry with the same match exists", p->name);
			err = DOCA_ERROR_ALREADY_EXIST;
		} else {
			_Atomic(struct nic_entry *) *head = &p->slots[e->hash & p->bucket_mask];
			atomic_store_explicit(&e->next, atomic_load_explicit(head, memory_order_relaxed),
					      memory_order_relaxed);
			atomic_store_explicit(head, e, memory_order_release);
		}
	}
	if (err == DOCA_SUCCESS) {
		e->seq = p->next_seq++;
		e->linked = true;
		list_link(p, e);
		if (p->type == NIC_PIPE_CONTROL) {
			err = ctrl_rebuild(p, &retired);
			if (err != DOCA_SUCCESS) {
				list_unlink(p, e);
				e->linked = false;
			}
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (err != DOCA_SUCCESS)
		goto fail;
	if (retired) {
		nic_dp_synchronize();
		free(retired);
	}
	*out = e;
	return DOCA_SUCCESS;

fail:
	/* Never linked, or unlinked again under the lock before the datapath could see it. */
	free(e->mask);
	free(e);
	return err;
}

doca_error_t nic_entry_update(struct nic_entry *e, const struct nic_actions *actions, uint32_t ps_value,
			      const struct nic_fwd *fwd)
{
	struct nic_pipe *p = e->pipe;
	if (p->type == NIC_PIPE_HASH && p->ps_field >= 0) {
		uint32_t bits = nic_ps_field_bits(p->ps_field);
		if (bits < 32 && ps_value >> bits) {
			CORE_LOG_ERR("pipe '%s': path-selector value %u does not fit %u bits", p->name, ps_value,
				     bits);
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	struct nic_entry_state *st = core_malloc(sizeof(*st));
	if (st == NULL) {
		CORE_LOG_ERR("pipe '%s': out of memory (an entry's new state)", p->name);
		return DOCA_ERROR_NO_MEMORY;
	}
	nic_entry_state_init(st, actions, fwd, ps_value);
	pthread_mutex_lock(&p->lock);
	struct nic_entry_state *old = atomic_exchange_explicit(&e->state, st, memory_order_acq_rel);
	pthread_mutex_unlock(&p->lock);
	nic_dp_synchronize();
	if (old != &e->first_state)
		free(old);
	return DOCA_SUCCESS;
}

/* Unlink e from the datapath structures (lock held); *retired gets the CONTROL table
 * that readers may still hold. NO_MEMORY leaves everything as it was. */
static doca_error_t entry_unlink(struct nic_pipe *p, struct nic_entry *e, struct nic_ctrl_table **retired)
{
	struct nic_ctrl_table *t = NULL;

	*retired = NULL;
	if (!e->linked)
		return DOCA_SUCCESS;
	if (p->type == NIC_PIPE_CONTROL && (t = ctrl_table_alloc(p->nr_live)) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (p->type == NIC_PIPE_BASIC) {
		_Atomic(struct nic_entry *) *link = &p->slots[e->hash & p->bucket_mask];
		struct nic_entry *cur;
		while ((cur = atomic_load_explicit(link, memory_order_relaxed)) != NULL && cur != e)
			link = &cur->next;
		assert(cur == e && "a linked BASIC entry is on its bucket's chain");
		if (cur == e)
			atomic_store_explicit(link, atomic_load_explicit(&e->next, memory_order_relaxed),
					      memory_order_release);
	} else if (p->type == NIC_PIPE_HASH) {
		atomic_store_explicit(&p->slots[e->index], NULL, memory_order_release);
	}
	list_unlink(p, e);
	e->linked = false;
	if (t != NULL)
		ctrl_publish(p, t, retired);
	return DOCA_SUCCESS;
}

doca_error_t nic_entry_remove(struct nic_entry *e)
{
	struct nic_pipe *p = e->pipe;
	struct nic_ctrl_table *retired;
	doca_error_t err;

	pthread_mutex_lock(&p->lock);
	err = entry_unlink(p, e, &retired);
	pthread_mutex_unlock(&p->lock);
	if (err != DOCA_SUCCESS) {
		CORE_LOG_ERR("pipe '%s': no memory for the new CONTROL table; the entry stays", p->name);
		return err;
	}
	nic_dp_synchronize();
	free(retired);
	return DOCA_SUCCESS;
}

void nic_entry_free(struct nic_entry *e)
{
	if (e == NULL)
		return;
	struct nic_entry_state *st = atomic_load_explicit(&e->state, memory_order_relaxed);
	if (st != &e->first_state)
		free(st);
	free(e->mask);
	struct nic_pipe *p = e->pipe;
	if (p->type == NIC_PIPE_CONTROL)
		free(e->cond); /* HASH entries end before the field */
	if (in_pool(p, e)) {
		/* Free again, and zero for the next add, under the lock that add checks the slot
		 * with: an add at this index from another queue must not fill it mid-memset. */
		pthread_mutex_lock(&p->lock);
		memset(e, 0, p->pool_esize);
		pthread_mutex_unlock(&p->lock);
	} else {
		free(e);
	}
}

doca_error_t nic_entry_counter_read(const struct nic_entry *e, uint64_t *pkts, uint64_t *bytes)
{
	if (e->cnt == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	nic_counter_read(e->cnt, pkts, bytes);
	return DOCA_SUCCESS;
}

struct nic_pipe *nic_entry_pipe(const struct nic_entry *e)
{
	return e->pipe;
}

uint32_t nic_entry_index(const struct nic_entry *e)
{
	return e->index;
}

void nic_pipe_destroy(struct nic_pipe *p)
{
	if (!nic_pipe_alive(p))
		return;
	pthread_mutex_lock(&p->lock);
	atomic_store_explicit(&p->magic, NIC_PIPE_DEAD, memory_order_release);
	if (p->is_root) {
		/* The port's root is this pipe: clearing it cannot fail. */
		doca_error_t err = nic_port_set_root(p->port_id, NULL, p);
		assert(err == DOCA_SUCCESS);
		(void)err;
	}
	struct nic_entry *list = p->entries;
	for (struct nic_entry *e = list; e; e = e->list_next) {
		if (p->type == NIC_PIPE_HASH)
			atomic_store_explicit(&p->slots[e->index], NULL, memory_order_release);
		e->linked = false;
	}
	if (p->type == NIC_PIPE_BASIC)
		for (uint32_t i = 0; i <= p->bucket_mask; i++)
			atomic_store_explicit(&p->slots[i], NULL, memory_order_release);
	struct nic_ctrl_table *t = atomic_exchange_explicit(&p->ctrl, NULL, memory_order_acq_rel);
	p->entries = NULL;
	p->nr_live = 0;
	pthread_mutex_unlock(&p->lock);
	nic_dp_synchronize();
	free(t);
	while (list) {
		struct nic_entry *next = list->list_next;
		nic_entry_free(list);
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
		free((void *)p->slots);
		free(p->pool);
		for (int i = 0; i < NIC_MAX_PROGS; i++)
			free(p->progs[i]);
		pthread_mutex_destroy(&p->lock);
		free(p);
		p = next;
	}
}

/* ------------------------------------------------------------------ provider operations */

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
	struct nic_entry *e = atomic_load_explicit(&p->slots[op->index], memory_order_acquire);
	if (e == NULL)
		return DOCA_ERROR_NOT_FOUND;
	switch (op->type) {
	case NIC_HASH_OP_ENABLE:
		atomic_store_explicit(&e->enabled, true, memory_order_release);
		return DOCA_SUCCESS;
	case NIC_HASH_OP_DISABLE:
		if (identity)
			return DOCA_ERROR_NOT_SUPPORTED;
		atomic_store_explicit(&e->enabled, false, memory_order_release);
		return DOCA_SUCCESS;
	case NIC_HASH_OP_REPLACE:
		if (ps_bits == 0)
			return DOCA_ERROR_NOT_SUPPORTED;
		if (ps_bits < 64 && op->value >> ps_bits)
			return DOCA_ERROR_INVALID_VALUE;
		atomic_store_explicit(&atomic_load_explicit(&e->state, memory_order_relaxed)->ps_value,
				      (uint32_t)op->value, memory_order_release);
		return DOCA_SUCCESS;
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
	pthread_mutex_lock(&p->lock);
	/* The entries of a burst are independent lines, mostly out of L1: start them all. */
	for (uint32_t i = 0; i < n; i++)
		if (ops[i].index < p->nr_entries)
			__builtin_prefetch(atomic_load_explicit(&p->slots[ops[i].index], memory_order_relaxed), 1);
	for (uint32_t i = 0; i < n; i++) {
		ops[i].result = hash_op_run(p, &ops[i], ps_bits, identity);
		changed |= ops[i].result == DOCA_SUCCESS;
	}
	pthread_mutex_unlock(&p->lock);
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
	pthread_mutex_lock(&p->lock);
	*e = atomic_load_explicit(&p->slots[index], memory_order_acquire);
	if (*e == NULL) {
		pthread_mutex_unlock(&p->lock);
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
		*enabled = atomic_load_explicit(&e->enabled, memory_order_acquire);
	if (ps_value)
		*ps_value = atomic_load_explicit(&atomic_load_explicit(&e->state, memory_order_relaxed)->ps_value,
						 memory_order_acquire);
	pthread_mutex_unlock(&((struct nic_pipe *)p)->lock);
	return DOCA_SUCCESS;
}

doca_error_t nic_hash_entry_counter_read(const struct nic_pipe *p, uint32_t index, uint64_t *pkts, uint64_t *bytes)
{
	struct nic_entry *e;
	doca_error_t err = hash_entry_lock(p, index, &e);
	if (err != DOCA_SUCCESS)
		return err;
	if (e->cnt == NULL)
		err = DOCA_ERROR_NOT_FOUND;
	else
		nic_counter_read(e->cnt, pkts, bytes);
	pthread_mutex_unlock(&((struct nic_pipe *)p)->lock);
	return err;
}
