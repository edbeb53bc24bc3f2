/*
 * dpa_asan.c - AddressSanitizer on device code, with the installed (non-ASan) library.
 *
 * A kernel built with -fsanitize=address checks its loads and stores against ASan's
 * shadow memory, but the device heap is one mmap that ASan knows nothing about: left
 * alone, an overrun of a doca_dpa_mem_alloc block lands silently in the next block.
 * So when the process runs under ASan (its entry points resolve at run time; nothing
 * here needs the library to be built with ASan), the heap is poisoned, each allocation
 * is unpoisoned with a poisoned redzone after it (dpa_heap.c pads for it) and poisoned
 * again when freed. ASan then reports the overrun at the kernel's line as
 * "use-after-poison"; the report callback installed here adds which allocation the
 * address belongs to and the doca_dpa_mem_alloc call that made it:
 *
 *   flowdpa: address 0x7f.. is 0 bytes past the end of a doca_dpa_mem_alloc(8) block
 *   (0x7f..) allocated at host.c:42 in main
 */
#include <dlfcn.h>
#include <string.h>
#include <time.h>

#include "dpa/dpa_internal.h"

struct asan_api {
	void (*poison)(void const volatile *addr, size_t size);
	void (*unpoison)(void const volatile *addr, size_t size);
	void (*set_report_callback)(void (*cb)(const char *report));
	void *(*report_address)(void);
	void (*symbolize_pc)(void *pc, const char *fmt, char *out, size_t len);
};

static struct asan_api asan;
static pthread_once_t asan_once = PTHREAD_ONCE_INIT;

/* Every live heap, for the report callback. */
static pthread_mutex_t heaps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dpa_heap *heaps;

/* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
#define ASAN_RESOLVE(field, name) memcpy(&(field), &(void *){dlsym(RTLD_DEFAULT, name)}, sizeof(void *))

static void asan_report(const char *report);

static void asan_resolve(void)
{
	ASAN_RESOLVE(asan.poison, "__asan_poison_memory_region");
	ASAN_RESOLVE(asan.unpoison, "__asan_unpoison_memory_region");
	ASAN_RESOLVE(asan.set_report_callback, "__asan_set_error_report_callback");
	ASAN_RESOLVE(asan.report_address, "__asan_get_report_address");
	ASAN_RESOLVE(asan.symbolize_pc, "__sanitizer_symbolize_pc");
	if (asan.poison == NULL || asan.unpoison == NULL) {
		asan.poison = NULL;
		asan.unpoison = NULL;
		return;
	}
	/* Replaces a callback the program set itself; ASan keeps only one. */
	if (asan.set_report_callback != NULL && asan.report_address != NULL)
		asan.set_report_callback(asan_report);
}

bool dpa_asan_active(void)
{
	pthread_once(&asan_once, asan_resolve);
	return asan.poison != NULL;
}

void dpa_asan_poison(uintptr_t addr, size_t size)
{
	if (dpa_asan_active())
		asan.poison((const void *)addr, size);
}

void dpa_asan_unpoison(uintptr_t addr, size_t size)
{
	if (dpa_asan_active())
		asan.unpoison((const void *)addr, size);
}

void dpa_asan_heap_register(struct dpa_heap *heap)
{
	if (!dpa_asan_active())
		return;
	pthread_mutex_lock(&heaps_lock);
	heap->asan_next = heaps;
	heaps = heap;
	pthread_mutex_unlock(&heaps_lock);
}

void dpa_asan_heap_unregister(struct dpa_heap *heap)
{
	if (!dpa_asan_active())
		return;
	pthread_mutex_lock(&heaps_lock);
	for (struct dpa_heap **h = &heaps; *h; h = &(*h)->asan_next) {
		if (*h == heap) {
			*h = heap->asan_next;
			break;
		}
	}
	pthread_mutex_unlock(&heaps_lock);
}

/* "file:line in function" of the call whose return address is site. */
static void site_name(uintptr_t site, char *buf, size_t len)
{
	snprintf(buf, len, "%#" PRIxPTR, site);
	if (site != 0 && asan.symbolize_pc != NULL)
		asan.symbolize_pc((void *)(site - 1), "%L %F", buf, len); /* -1: inside the call instruction */
}

/*
 * A lock another thread holds while this one reports could be held for ever if that
 * thread is stopped too: try for a while, then say less rather than hang the report.
 */
static bool lock_briefly(pthread_mutex_t *m)
{
	for (int i = 0; i < 200; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return true;
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	return false;
}

static void asan_report(const char *report)
{
	uintptr_t addr = (uintptr_t)asan.report_address();
	struct dpa_extent before, after;
	char site[256];
	bool found = false;

	(void)report;
	if (!lock_briefly(&heaps_lock))
		return;
	for (struct dpa_heap *h = heaps; h && !found; h = h->asan_next) {
		if (addr < (uintptr_t)h->base || addr >= (uintptr_t)h->base + h->map_size || !lock_briefly(&h->lock))
			continue;
		found = true;
		dpa_heap_neighbours_locked(h, addr, &before, &after);
		pthread_mutex_unlock(&h->lock);
	}
	pthread_mutex_unlock(&heaps_lock);
	if (!found)
		return;
	if (before.span != 0 && addr < before.start + before.size) {
		site_name(before.site, site, sizeof(site));
		/* An access that starts in the block and ends past it (a 4-byte write at its last 2 bytes). */
		fprintf(stderr, "flowdpa: address %#" PRIxPTR " is %zu bytes into a doca_dpa_mem_alloc(%zu) block (%#" PRIxPTR
			") allocated at %s; the access runs past its end\n", addr, (size_t)(addr - before.start),
			before.size, before.start, site);
	} else if (before.span != 0 && addr < before.start + before.span) {
		site_name(before.site, site, sizeof(site));
		fprintf(stderr, "flowdpa: address %#" PRIxPTR " is %zu bytes past the end of a doca_dpa_mem_alloc(%zu) block (%#"
			PRIxPTR ") allocated at %s\n", addr, (size_t)(addr - before.start - before.size), before.size,
			before.start, site);
	} else if (after.span != 0 && after.start - addr <= DPA_HEAP_REDZONE) {
		site_name(after.site, site, sizeof(site));
		fprintf(stderr, "flowdpa: address %#" PRIxPTR " is %zu bytes before a doca_dpa_mem_alloc(%zu) block (%#" PRIxPTR
			") allocated at %s\n", addr, (size_t)(after.start - addr), after.size, after.start, site);
	} else {
		fprintf(stderr, "flowdpa: address %#" PRIxPTR " is in the DPA device heap but in no live doca_dpa_mem_alloc "
			"block (freed, or never allocated)\n", addr);
	}
}
