/*
 * alloc.c - the one door every flowdpa allocation goes through.
 *
 * Owns: core_malloc/calloc/realloc/strdup/posix_memalign/calloc_aligned and the allocation fault
 * site FLOWDPA_FAULT_ALLOC=N, which makes the Nth allocation (counted from the first
 * one the process makes through here) fail as an exhausted heap would. A fault sweep
 * runs a program once per N to prove that every public call survives every single
 * allocation failure: documented code, one log line, nothing leaked.
 *
 * These wrappers do not log: the caller knows which call failed and says so once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static _Atomic uint64_t alloc_seq;
static _Atomic bool alloc_fault_fired;

/* True when this allocation is the one FLOWDPA_FAULT_ALLOC names. */
static bool alloc_should_fail(void)
{
	uint64_t seq = atomic_fetch_add_explicit(&alloc_seq, 1, memory_order_relaxed) + 1;
	const struct core_config *cfg = core_config_get();

	if (cfg == NULL || cfg->fault_alloc_nth == 0 || seq != cfg->fault_alloc_nth)
		return false;
	atomic_store_explicit(&alloc_fault_fired, true, memory_order_relaxed);
	return true;
}

void *core_malloc(size_t size)
{
	if (alloc_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return malloc(size);
}

void *core_calloc(size_t nmemb, size_t size)
{
	if (alloc_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return calloc(nmemb, size);
}

void *core_realloc(void *ptr, size_t size)
{
	if (alloc_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(ptr, size);
}

char *core_strdup(const char *s)
{
	if (alloc_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return strdup(s);
}

int core_posix_memalign(void **memptr, size_t alignment, size_t size)
{
	if (alloc_should_fail())
		return ENOMEM;
	return posix_memalign(memptr, alignment, size);
}

void *core_calloc_aligned(size_t alignment, size_t size)
{
	/* Refused here, not by posix_memalign: sanitizers abort on an alignment it refuses. */
	if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	void *p = NULL;
	if (core_posix_memalign(&p, alignment, size) != 0)
		return NULL;
	return memset(p, 0, size);
}

uint64_t core_alloc_count(void)
{
	return atomic_load_explicit(&alloc_seq, memory_order_relaxed);
}

bool core_alloc_fault_fired(void)
{
	return atomic_load_explicit(&alloc_fault_fired, memory_order_relaxed);
}
