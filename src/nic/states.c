/*
 * states.c - entry states (struct nic_entry_state): the arena they live in and their
 * interning, one per distinct actions, fwd and shared counter per pipe.
 *
 * The arena is one array of states for the whole process, reserved at the first state
 * (PROT_NONE) and made writable a chunk at a time as states are handed out: an entry
 * names its state by index (a reference of 32 - NIC_EF_BITS bits, beside its flags in
 * one word), which leaves room in a 16-byte entry for its first counter cell. Only the
 * writable part counts against the commit limit, also under a strict overcommit policy
 * (vm.overcommit_memory=2), where a writable MAP_NORESERVE reservation of the whole
 * arena would take most of the limit and leave the tables of later pipes none. States
 * are reused through a free list; a state is only freed once no reader may hold it
 * (after a grace period). The arena has its own lock, taken only to allocate or free;
 * interning runs under the pipe lock held for writing, or under the pipe's intern_lock
 * (a spin lock: add bursts, which hold the pipe lock for reading).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::STATES);

struct nic_entry_state *nic_state_arena;
static uint32_t arena_cap;  /* states the reservation holds ([0] unused) */
static uint32_t arena_rw;   /* states made writable, from [0] */
static bool arena_failed;   /* no reservation could be had: not tried again */
static uint32_t arena_high; /* states ever handed out, plus one */
static struct nic_entry_state *arena_free; /* freed ones, linked by intern_next */
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
#define ARENA_MAX ((1u << (32 - NIC_EF_BITS)) - 1) /* the most references */

/* Reserve the arena's address space: the most references fit, fewer where it is tight
 * (RLIMIT_AS). Lock held. */
static bool arena_map(void)
{
	for (uint32_t cap = ARENA_MAX; cap >= NIC_STATE_CHUNK; cap /= 2) {
		void *m = mmap(NULL, (size_t)cap * sizeof(struct nic_entry_state), PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m != MAP_FAILED) {
			nic_state_arena = m;
			arena_cap = cap;
			arena_rw = 0;
			arena_high = 1;
			if (cap < ARENA_MAX)
				CORE_LOG_WARN("entry states: address space for %u only (RLIMIT_AS?)", cap - 1);
			return true;
		}
	}
	arena_failed = true;
	CORE_LOG_ERR("entry states: no address space for the state arena");
	return false;
}

/* Make the next chunk of the arena writable (lock held); false, with a line, when the
 * system refuses the memory. Chunk ends are rounded up to pages. */
static bool arena_grow(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t to = arena_cap - arena_rw < NIC_STATE_CHUNK ? arena_cap : arena_rw + NIC_STATE_CHUNK;
	uintptr_t base = (uintptr_t)nic_state_arena;
	uintptr_t from_b = (base + (size_t)arena_rw * sizeof(struct nic_entry_state) + page - 1) & ~(page - 1);
	uintptr_t to_b = (base + (size_t)to * sizeof(struct nic_entry_state) + page - 1) & ~(page - 1);
	if (to_b > from_b && mprotect((void *)from_b, to_b - from_b, PROT_READ | PROT_WRITE) != 0) {
		CORE_LOG_ERR("entry states: no memory for states past %u (%s)", arena_rw, strerror(errno));
		return false;
	}
	arena_rw = to;
	return true;
}

struct nic_entry_state *nic_state_alloc(void)
{
	struct nic_entry_state *s = NULL;
	pthread_mutex_lock(&arena_lock);
	if (arena_free) {
		s = arena_free;
		arena_free = s->intern_next;
	} else if (nic_state_arena || (!arena_failed && arena_map())) {
		if (arena_high == arena_cap)
			CORE_LOG_ERR("entry states: all %u in use", arena_cap - 1);
		else if (arena_high < arena_rw || arena_grow())
			s = &nic_state_arena[arena_high++];
	}
	pthread_mutex_unlock(&arena_lock);
	return s;
}

void nic_state_free(struct nic_entry_state *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&arena_lock);
	s->intern_next = arena_free;
	arena_free = s;
	pthread_mutex_unlock(&arena_lock);
}

/* The intern key of actions a on pipe p: only the fields a sets, and, on a pipe without
 * a path-selector field, no L4 port values (the entry keeps those, nic_entry.val).
 * intern_key names every field of struct nic_actions (the bytes a field's bit does not
 * select may be stale): one added to the struct must be added here too. */
_Static_assert(sizeof(struct nic_actions) == 88, "a new nic_actions field: copy it in intern_key");
static void intern_key(const struct nic_pipe *p, const struct nic_actions *a, struct nic_actions *k)
{
	memset(k, 0, sizeof(*k));
	uint32_t f = a->fields;
	k->fields = f;
	uint32_t ports = nic_intern_l4_word(p, a);
	k->l4_src = (uint16_t)ports;
	k->l4_dst = (uint16_t)(ports >> 16);
	if (f & (1u << NIC_AF_ETH_SRC))
		memcpy(k->eth_src, a->eth_src, 6);
	if (f & (1u << NIC_AF_ETH_DST))
		memcpy(k->eth_dst, a->eth_dst, 6);
	if (f & (1u << NIC_AF_IP4_SRC))
		k->ip4_src = a->ip4_src;
	if (f & (1u << NIC_AF_IP4_DST))
		k->ip4_dst = a->ip4_dst;
	if (f & (1u << NIC_AF_IP_TTL))
		k->ttl = a->ttl;
	if (f & (1u << NIC_AF_IP6_SRC))
		memcpy(k->ip6_src, a->ip6_src, 16);
	if (f & (1u << NIC_AF_IP6_DST))
		memcpy(k->ip6_dst, a->ip6_dst, 16);
	for (int m = 0; m <= NIC_META_SCRATCH; m++)
		if (f & (1u << (NIC_AF_META + m)))
			k->meta[m] = a->meta[m];
	if (f & (1u << NIC_AF_PROG))
		k->prog = a->prog;
}

static uint32_t intern_hash(const struct nic_actions *k, const struct nic_fwd *fwd, const struct nic_counter *cnt)
{
	uint64_t h = 0x9e3779b97f4a7c15ull, w;
	const uint8_t *b = (const uint8_t *)k;
	for (size_t i = 0; i + 8 <= sizeof(*k); i += 8) {
		memcpy(&w, b + i, 8);
		h = nic_mix64(h ^ w);
	}
	h = nic_mix64(h ^ (uint64_t)fwd->type ^ (uint64_t)fwd->port_id << 8 ^ (uint64_t)(uintptr_t)fwd->pipe << 16);
	h = nic_mix64(h ^ (uint64_t)(uintptr_t)cnt);
	return (uint32_t)(h ^ (h >> 32));
}

static bool state_is(const struct nic_entry_state *s, const struct nic_actions *k, const struct nic_fwd *fwd,
		     const struct nic_counter *cnt)
{
	return s->cnt == cnt && nic_fwd_eq(&s->fwd, fwd) && memcmp(&s->actions, k, sizeof(*k)) == 0;
}

static doca_error_t intern_grow(struct nic_pipe *p)
{
	uint32_t n = p->intern ? (p->intern_mask + 1) * 2 : 64;
	struct nic_entry_state **t = core_calloc(n, sizeof(*t));
	if (t == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (uint32_t i = 0; p->intern && i <= p->intern_mask; i++)
		for (struct nic_entry_state *s = p->intern[i], *next; s; s = next) {
			next = s->intern_next;
			s->intern_next = t[s->hash & (n - 1)];
			t[s->hash & (n - 1)] = s;
		}
	free(p->intern);
	p->intern = t;
	p->intern_mask = n - 1;
	return DOCA_SUCCESS;
}

struct nic_entry_state *nic_state_intern(struct nic_pipe *p, const struct nic_actions *a, const struct nic_fwd *fwd,
					 struct nic_counter *cnt)
{
	struct nic_entry_state *last = p->intern_last;
	struct nic_actions k;
	intern_key(p, a, &k);
	if (last && state_is(last, &k, fwd, cnt)) {
		last->refs++;
		return last;
	}
	uint32_t h = intern_hash(&k, fwd, cnt);
	if (p->intern) {
		for (struct nic_entry_state *s = p->intern[h & p->intern_mask]; s; s = s->intern_next)
			if (s->hash == h && state_is(s, &k, fwd, cnt)) {
				s->refs++;
				p->intern_last = s;
				return s;
			}
	}
	if ((p->intern == NULL || p->nr_interned > p->intern_mask) && intern_grow(p) != DOCA_SUCCESS)
		return NULL;
	struct nic_entry_state *s = nic_state_alloc();
	if (s == NULL)
		return NULL;
	nic_entry_state_init(s, &k, fwd, cnt, 0);
	s->val_in_entry = true;
	s->refs = 1;
	s->hash = h;
	s->intern_next = p->intern[h & p->intern_mask];
	p->intern[h & p->intern_mask] = s;
	p->nr_interned++;
	p->intern_last = s;
	return s;
}

void nic_state_put(struct nic_pipe *p, struct nic_entry_state *s)
{
	if (s == NULL)
		return;
	if (!s->val_in_entry) { /* a private state (an update's) */
		nic_state_free(s);
		return;
	}
	if (--s->refs)
		return;
	/* No entry refers to it, and every one that did was freed after a grace period. */
	struct nic_entry_state **link = &p->intern[s->hash & p->intern_mask];
	while (*link != s)
		link = &(*link)->intern_next;
	*link = s->intern_next;
	p->nr_interned--;
	if (p->intern_last == s)
		p->intern_last = NULL;
	nic_state_free(s);
}

void nic_states_free_all(struct nic_pipe *p)
{
	for (uint32_t i = 0; p->intern && i <= p->intern_mask; i++)
		for (struct nic_entry_state *s = p->intern[i], *next; s; s = next) {
			next = s->intern_next;
			nic_state_free(s);
		}
	free(p->intern);
	p->intern = NULL;
	p->intern_last = NULL;
	p->nr_interned = 0;
}
