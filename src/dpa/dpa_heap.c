/*
 * dpa_heap.c - the device heap of a DPA process: one anonymous mapping whose addresses
 * are the device pointers (device code dereferences them directly), a first-fit
 * allocator with 64-byte granularity whose metadata lives outside the mapping, and the
 * bounds-checked copies of doca_dpa_mem_* / h2d / d2h / memset.
 *
 * When the process runs under AddressSanitizer (whether or not this library was built
 * with it), free heap bytes and a redzone after each allocation are poisoned, so a
 * kernel built with -fsanitize=address that overruns its allocation is reported by ASan
 * like a heap overflow on the host (dpa_asan.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dpa/dpa_internal.h"

DOCA_LOG_REGISTER(DPA::HEAP);

#define heap_poison(a, s) dpa_asan_poison((uintptr_t)(a), (s))
#define heap_unpoison(a, s) dpa_asan_unpoison((uintptr_t)(a), (s))

static doca_error_t ext_insert(struct dpa_extent **arr, size_t *n, size_t *cap, size_t at, struct dpa_extent e)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct dpa_extent *na = core_realloc(*arr, ncap * sizeof(*na));

		if (na == NULL)
			return DOCA_ERROR_NO_MEMORY;
		*arr = na;
		*cap = ncap;
	}
	memmove(&(*arr)[at + 1], &(*arr)[at], (*n - at) * sizeof(**arr));
	(*arr)[at] = e;
	(*n)++;
	return DOCA_SUCCESS;
}

/* Room for want extents in *arr. */
static doca_error_t ext_reserve(struct dpa_extent **arr, size_t *cap, size_t want)
{
	if (*cap >= want)
		return DOCA_SUCCESS;
	size_t ncap = *cap * 2 > want ? *cap * 2 : want;
	struct dpa_extent *na = core_realloc(*arr, ncap * sizeof(*na));

	if (na == NULL)
		return DOCA_ERROR_NO_MEMORY;
	*arr = na;
	*cap = ncap;
	return DOCA_SUCCESS;
}

static void ext_remove(struct dpa_extent *arr, size_t *n, size_t at)
{
	memmove(&arr[at], &arr[at + 1], (*n - at - 1) * sizeof(*arr));
	(*n)--;
}

/* Index of the first extent whose start is > addr. */
static size_t ext_upper(const struct dpa_extent *arr, size_t n, uintptr_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (arr[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

doca_error_t dpa_heap_init(struct dpa_heap *heap, size_t size)
{
	memset(heap, 0, sizeof(*heap));
	size = (size + DPA_HEAP_ALIGN - 1) & ~(size_t)(DPA_HEAP_ALIGN - 1);
	/* Under ASan twice the room, for the redzones (each at most the size of its block,
	 * DPA_HEAP_REDZONE <= DPA_HEAP_ALIGN): the program still gets the same `size` bytes. */
	size_t map_size = dpa_asan_active() ? 2 * size : size;
	void *base = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (base == MAP_FAILED) {
		CORE_LOG_ERR("cannot map a DPA heap of %zu bytes: %s", map_size, strerror(errno));
		return DOCA_ERROR_NO_MEMORY;
	}
	heap->base = base;
	heap->size = size;
	heap->map_size = map_size;
	pthread_mutex_init(&heap->lock, NULL);
	if (ext_insert(&heap->free_ext, &heap->nfree, &heap->free_cap, 0,
		       (struct dpa_extent){.start = (uintptr_t)base, .size = map_size}) != DOCA_SUCCESS) {
		munmap(base, map_size);
		pthread_mutex_destroy(&heap->lock);
		memset(heap, 0, sizeof(*heap)); /* as on the mmap failure: dpa_heap_fini is a no-op on it */
		CORE_LOG_ERR("cannot set up a DPA heap of %zu bytes: out of host memory for its records", size);
		return DOCA_ERROR_NO_MEMORY;
	}
	heap_poison(base, map_size);
	dpa_asan_heap_register(heap);
	return DOCA_SUCCESS;
}

void dpa_heap_usage(struct dpa_heap *heap, size_t *used, size_t *peak, size_t *nlive)
{
	/* Under the lock: other threads allocate and free concurrently (report, error logs). */
	pthread_mutex_lock(&heap->lock);
	*used = heap->used;
	*peak = heap->peak;
	*nlive = heap->nlive;
	pthread_mutex_unlock(&heap->lock);
}

void dpa_heap_fini(struct dpa_heap *heap)
{
	if (heap->base == NULL)
		return;
	if (heap->nlive)
		CORE_LOG_DBG("DPA heap destroyed with %zu live allocations (%zu bytes)", heap->nlive, heap->used);
	dpa_asan_heap_unregister(heap);
	heap_unpoison(heap->base, heap->map_size);
	munmap(heap->base, heap->map_size);
	free(heap->free_ext);
	free(heap->live);
	pthread_mutex_destroy(&heap->lock);
	memset(heap, 0, sizeof(*heap));
}

/* The first free extent of at least need bytes, or nfree. Caller holds the lock. */
static size_t free_fit(const struct dpa_heap *heap, size_t need)
{
	size_t i = 0;

	while (i < heap->nfree && heap->free_ext[i].size < need)
		i++;
	return i;
}

/* NO_MEMORY with *no_fit set when no free extent is large enough, clear when the metadata could not grow. */
static doca_error_t heap_alloc(struct dpa_heap *heap, size_t size, uintptr_t site, uint64_t *dev_ptr, bool *no_fit)
{
	size_t need = (size + DPA_HEAP_ALIGN - 1) & ~(size_t)(DPA_HEAP_ALIGN - 1);
	size_t span = need;
	doca_error_t r;

	*no_fit = true;
	if (need < size) /* overflow */
		return DOCA_ERROR_NO_MEMORY;
	pthread_mutex_lock(&heap->lock);
	/*
	 * Free extents are separated by live ones, so there are at most nlive + 1 of them:
	 * with room for that many reserved now, freeing never needs memory (a free that
	 * failed would leave the program no way out).
	 */
	if (ext_reserve(&heap->free_ext, &heap->free_cap, heap->nlive + 2) != DOCA_SUCCESS) {
		pthread_mutex_unlock(&heap->lock);
		*no_fit = false;
		return DOCA_ERROR_NO_MEMORY;
	}
	size_t i = heap->nfree;

	if (need > heap->size - heap->used) { /* what the program may have, redzones aside */
		pthread_mutex_unlock(&heap->lock);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* A redzone only where it fits (the extra room can fragment too). */
	if (dpa_asan_active()) {
		span = need + DPA_HEAP_REDZONE;
		i = free_fit(heap, span);
	}
	if (i == heap->nfree) {
		span = need;
		i = free_fit(heap, span);
	}
	if (i == heap->nfree) {
		pthread_mutex_unlock(&heap->lock);
		return DOCA_ERROR_NO_MEMORY;
	}
	struct dpa_extent *f = &heap->free_ext[i];
	uintptr_t start = f->start;
	size_t at = ext_upper(heap->live, heap->nlive, start);

	*no_fit = false;
	r = ext_insert(&heap->live, &heap->nlive, &heap->live_cap, at,
		       (struct dpa_extent){.start = start, .size = size, .span = span, .site = site});
	if (r == DOCA_SUCCESS) {
		f = &heap->free_ext[i];
		f->start += span;
		f->size -= span;
		if (f->size == 0)
			ext_remove(heap->free_ext, &heap->nfree, i);
		heap->used += need; /* the redzone is not the program's */
		if (heap->used > heap->peak)
			heap->peak = heap->used;
		heap_unpoison(start, size);
		*dev_ptr = start;
	}
	pthread_mutex_unlock(&heap->lock);
	return r;
}

static doca_error_t heap_free(struct dpa_heap *heap, uint64_t dev_ptr)
{
	doca_error_t r = DOCA_SUCCESS;

	pthread_mutex_lock(&heap->lock);
	size_t at = ext_upper(heap->live, heap->nlive, dev_ptr);

	if (at == 0 || heap->live[at - 1].start != dev_ptr) {
		r = DOCA_ERROR_INVALID_VALUE;
		goto out;
	}
	at--;
	const struct dpa_extent *live = &heap->live[at];
	struct dpa_extent e = {.start = live->start, .size = live->span};
	size_t need = (live->size + DPA_HEAP_ALIGN - 1) & ~(size_t)(DPA_HEAP_ALIGN - 1);

	/* heap_alloc reserved the free array's room for this extent: the insert below
	 * does not allocate (were it to fail, the allocation would stay live). */
	size_t fi = ext_upper(heap->free_ext, heap->nfree, e.start);
	bool merge_prev = fi > 0 && heap->free_ext[fi - 1].start + heap->free_ext[fi - 1].size == e.start;
	bool merge_next = fi < heap->nfree && e.start + e.size == heap->free_ext[fi].start;

	if (merge_prev && merge_next) {
		heap->free_ext[fi - 1].size += e.size + heap->free_ext[fi].size;
		ext_remove(heap->free_ext, &heap->nfree, fi);
	} else if (merge_prev) {
		heap->free_ext[fi - 1].size += e.size;
	} else if (merge_next) {
		heap->free_ext[fi].start = e.start;
		heap->free_ext[fi].size += e.size;
	} else {
		r = ext_insert(&heap->free_ext, &heap->nfree, &heap->free_cap, fi, e);
		if (r != DOCA_SUCCESS)
			goto out;
	}
	ext_remove(heap->live, &heap->nlive, at);
	heap->used -= need;
	heap_poison(e.start, e.size);
out:
	pthread_mutex_unlock(&heap->lock);
	return r;
}

void dpa_heap_neighbours_locked(const struct dpa_heap *heap, uintptr_t addr, struct dpa_extent *before,
				struct dpa_extent *after)
{
	size_t at = ext_upper(heap->live, heap->nlive, addr);

	*before = at > 0 ? heap->live[at - 1] : (struct dpa_extent){0};
	*after = at < heap->nlive ? heap->live[at] : (struct dpa_extent){0};
}

/* Live allocation containing [addr, addr+size), or NULL. Caller holds the lock. */
static const struct dpa_extent *heap_find(const struct dpa_heap *heap, uint64_t addr, size_t size)
{
	size_t at = ext_upper(heap->live, heap->nlive, addr);

	if (at == 0)
		return NULL;
	const struct dpa_extent *e = &heap->live[at - 1];

	if (addr - e->start >= e->size && !(size == 0 && addr == e->start))
		return NULL;
	if (size > e->size - (addr - e->start))
		return NULL;
	return e;
}

/* ------------------------------------------------------------ process API (dpa.h) */

void *dpa_heap_ptr(struct flexio_process *process, uint64_t dev_ptr, size_t size)
{
	if (process == NULL || process->magic != DPA_PROCESS_MAGIC)
		return NULL;
	struct dpa_heap *heap = &process->heap;

	pthread_mutex_lock(&heap->lock);
	const struct dpa_extent *e = heap_find(heap, dev_ptr, size);

	pthread_mutex_unlock(&heap->lock);
	return e ? (void *)(uintptr_t)dev_ptr : NULL;
}

/*
 * The heap operations behind both the process API (dpa.h, api = its own name) and the
 * DOCA calls (api = the public name): log lines name the call the user made.
 */
static doca_error_t heap_alloc_api(struct flexio_process *process, size_t size, uintptr_t site, uint64_t *dev_ptr,
				   const char *api)
{
	if (dev_ptr == NULL || size == 0) {
		CORE_LOG_ERR("%s: %s", api, dev_ptr == NULL ? "dev_ptr is NULL" : "size is 0");
		if (dev_ptr)
			*dev_ptr = 0;
		return DOCA_ERROR_INVALID_VALUE;
	}
	*dev_ptr = 0;
	if (core_fault_injected(CORE_FAULT_DPA_MEM_ALLOC)) {
		CORE_LOG_ERR("%s: DPA heap allocation of %zu bytes failed: fault injected (FLOWDPA_FAULTS)", api, size);
		return DOCA_ERROR_NO_MEMORY;
	}
	bool no_fit;
	doca_error_t r = heap_alloc(&process->heap, size, site, dev_ptr, &no_fit);

	if (r != DOCA_SUCCESS) {
		size_t used, peak, nlive;

		dpa_heap_usage(&process->heap, &used, &peak, &nlive);
		if (no_fit)
			CORE_LOG_ERR("%s: DPA heap of process %u exhausted: %zu bytes requested, %zu of %zu in use "
				     "(FLOWDPA_DPA_HEAP_SIZE sets the size)",
				     api, dpa_process_id(process), size, used, process->heap.size);
		else
			CORE_LOG_ERR("%s: %zu bytes requested: out of host memory for the allocator's records of "
				     "the DPA heap of process %u (%zu live allocations; the heap itself has room)",
				     api, size, dpa_process_id(process), nlive);
	}
	if (r == DOCA_SUCCESS)
		CORE_LOG_TRC("%s: %zu bytes at device address 0x%" PRIx64 " (process %u)", api, size, *dev_ptr,
			     dpa_process_id(process));
	return r;
}

static doca_error_t heap_free_api(struct flexio_process *process, uint64_t dev_ptr, const char *api)
{
	if (dev_ptr == 0)
		return DOCA_SUCCESS;
	doca_error_t r = heap_free(&process->heap, dev_ptr);

	if (r == DOCA_ERROR_INVALID_VALUE)
		CORE_LOG_ERR("%s: free of device address 0x%" PRIx64 " refused: no allocation of process %u starts "
			     "there (double free, or an address from another context or not from doca_dpa_mem_alloc)",
			     api, dev_ptr, dpa_process_id(process));
	else if (r != DOCA_SUCCESS)
		CORE_LOG_ERR("%s: free of device address 0x%" PRIx64 " failed: out of host memory for the "
			     "allocator's records of the DPA heap of process %u; the allocation stays live",
			     api, dev_ptr, dpa_process_id(process));
	if (r == DOCA_SUCCESS)
		CORE_LOG_TRC("%s: device address 0x%" PRIx64 " freed (process %u)", api, dev_ptr, dpa_process_id(process));
	return r;
}

static doca_error_t heap_range(struct flexio_process *process, uint64_t dev_ptr, size_t size, const char *api,
			       const char *what)
{
	struct dpa_heap *heap = &process->heap;
	doca_error_t r = DOCA_SUCCESS;

	pthread_mutex_lock(&heap->lock);
	if (heap_find(heap, dev_ptr, size) == NULL) {
		size_t at = ext_upper(heap->live, heap->nlive, dev_ptr);

		if (at > 0 && dev_ptr - heap->live[at - 1].start < heap->live[at - 1].size)
			CORE_LOG_ERR("%s: %s of %zu bytes at device address 0x%" PRIx64
				     " runs past the end of its allocation (0x%" PRIxPTR ", %zu bytes)",
				     api, what, size, dev_ptr, heap->live[at - 1].start, heap->live[at - 1].size);
		else
			CORE_LOG_ERR("%s: %s of %zu bytes at device address 0x%" PRIx64
				     " refused: not inside a live allocation of process %u",
				     api, what, size, dev_ptr, dpa_process_id(process));
		r = DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_unlock(&heap->lock);
	return r;
}

static doca_error_t heap_h2d_api(struct flexio_process *process, uint64_t dst, const void *src, size_t size,
				 const char *api)
{
	if (src == NULL || size == 0) {
		CORE_LOG_ERR("%s: host-to-device copy: %s", api, src == NULL ? "source pointer is NULL" : "size is 0");
		return DOCA_ERROR_INVALID_VALUE;
	}
	doca_error_t r = heap_range(process, dst, size, api, "host-to-device copy");

	if (r == DOCA_SUCCESS)
		memcpy((void *)(uintptr_t)dst, src, size);
	if (r == DOCA_SUCCESS)
		CORE_LOG_TRC("%s: %zu bytes to device address 0x%" PRIx64, api, size, dst);
	return r;
}

static doca_error_t heap_d2h_api(struct flexio_process *process, void *dst, uint64_t src, size_t size, const char *api)
{
	if (dst == NULL || size == 0) {
		CORE_LOG_ERR("%s: device-to-host copy: %s", api,
			     dst == NULL ? "destination pointer is NULL" : "size is 0");
		return DOCA_ERROR_INVALID_VALUE;
	}
	doca_error_t r = heap_range(process, src, size, api, "device-to-host copy");

	if (r == DOCA_SUCCESS)
		memcpy(dst, (const void *)(uintptr_t)src, size);
	if (r == DOCA_SUCCESS)
		CORE_LOG_TRC("%s: %zu bytes from device address 0x%" PRIx64, api, size, src);
	return r;
}

doca_error_t dpa_heap_alloc(struct flexio_process *process, size_t size, uint64_t *dev_ptr, const char *api)
{
	doca_error_t r = dpa_process_check(process, __func__);

	if (r != DOCA_SUCCESS) {
		if (dev_ptr)
			*dev_ptr = 0;
		return r;
	}
	return heap_alloc_api(process, size, (uintptr_t)__builtin_return_address(0), dev_ptr, api);
}

doca_error_t dpa_heap_free(struct flexio_process *process, uint64_t dev_ptr)
{
	doca_error_t r = dpa_process_check(process, __func__);

	return r != DOCA_SUCCESS ? r : heap_free_api(process, dev_ptr, __func__);
}

doca_error_t dpa_heap_h2d(struct flexio_process *process, uint64_t dst, const void *src, size_t size)
{
	doca_error_t r = dpa_process_check(process, __func__);

	return r != DOCA_SUCCESS ? r : heap_h2d_api(process, dst, src, size, __func__);
}

doca_error_t dpa_heap_d2h(struct flexio_process *process, void *dst, uint64_t src, size_t size)
{
	doca_error_t r = dpa_process_check(process, __func__);

	return r != DOCA_SUCCESS ? r : heap_d2h_api(process, dst, src, size, __func__);
}

/* ------------------------------------------------------------ DOCA API */

/* Common checks of the doca_dpa_mem_* family: a valid, started context. */
static doca_error_t mem_ctx_check(struct doca_dpa *dpa, const char *func)
{
	doca_error_t r = dpa_check(dpa, func);

	if (r != DOCA_SUCCESS)
		return r;
	if (dpa->state != DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is not started (call doca_dpa_start first)", func, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_mem_alloc(struct doca_dpa *dpa, size_t size, doca_dpa_dev_uintptr_t *dev_ptr)
{
	doca_error_t r = mem_ctx_check(dpa, __func__);

	if (r != DOCA_SUCCESS) {
		if (dev_ptr)
			*dev_ptr = 0;
		return r;
	}
	return heap_alloc_api(&dpa_base(dpa)->process, size, (uintptr_t)__builtin_return_address(0), dev_ptr,
			      __func__);
}

doca_error_t doca_dpa_mem_free(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr)
{
	doca_error_t r = dpa_check(dpa, __func__);

	return r != DOCA_SUCCESS ? r : heap_free_api(&dpa_base(dpa)->process, dev_ptr, __func__);
}

doca_error_t doca_dpa_h2d_memcpy(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dst_ptr, void *src_ptr, size_t size)
{
	doca_error_t r = mem_ctx_check(dpa, __func__);

	return r != DOCA_SUCCESS ? r : heap_h2d_api(&dpa_base(dpa)->process, dst_ptr, src_ptr, size, __func__);
}

doca_error_t doca_dpa_d2h_memcpy(struct doca_dpa *dpa, void *dst_ptr, doca_dpa_dev_uintptr_t src_ptr, size_t size)
{
	doca_error_t r = mem_ctx_check(dpa, __func__);

	return r != DOCA_SUCCESS ? r : heap_d2h_api(&dpa_base(dpa)->process, dst_ptr, src_ptr, size, __func__);
}

doca_error_t doca_dpa_memset(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr, int value, size_t size)
{
	doca_error_t r = mem_ctx_check(dpa, __func__);

	if (r != DOCA_SUCCESS)
		return r;
	if (size == 0) {
		CORE_LOG_ERR("%s: size is 0", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = heap_range(&dpa_base(dpa)->process, dev_ptr, size, __func__, "device memset");
	if (r == DOCA_SUCCESS)
		memset((void *)(uintptr_t)dev_ptr, value, size);
	if (r == DOCA_SUCCESS)
		CORE_LOG_TRC("%s: %zu bytes at device address 0x%" PRIx64 " set to 0x%02x", __func__, size, dev_ptr,
			     value & 0xff);
	return r;
}
