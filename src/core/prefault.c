/*
 * prefault.c - committing the pages of lazily mapped tables ahead of their use, on a
 * background thread.
 *
 * The big tables of the layers above are anonymous MAP_NORESERVE mappings, so that a
 * pipe of any size is created at once and commits only what it uses. The price is paid
 * by whoever first touches a page: the kernel zeroes it (and, in a VM, the host may
 * first have to back it), which was half of a 16M-entry fill's profile. Tables filled
 * in order (a BASIC pipe's entry records and handles) report how far they got; this
 * thread commits the next chunks (MADV_POPULATE_WRITE) before the filler reaches them,
 * on a core the filler does not use. Tables touched at random (bucket arrays) ask for
 * all of themselves at once, which with 2 MiB pages their first few thousand inserts
 * would commit anyway; HASH pools ask up to their highest index added. A table filled
 * in order commits at most PREFAULT_AHEAD past its use.
 *
 * One thread serves every region; it exists while some region is registered. Without
 * MADV_POPULATE_WRITE (Linux < 5.14) the service does nothing: first touches pay as
 * before.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>

#include "core.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define PREFAULT_CHUNK ((size_t)2 << 20) /* a huge page: one fault's worth */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work, idle; /* work: some region wants more; idle: a chunk is done */
	struct core_prefault *regions;
	bool running;
	uint32_t gen; /* a thread serves while its generation is current */
	pthread_t thread;
	atomic_bool unsupported;
} pf = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER};

/*
 * The region with the least still wanted, with pf.lock held; NULL if none. A table
 * filled in order wants at most PREFAULT_AHEAD past its use, and its filler is about to
 * reach it: served before the whole tables, which are served when the fillers are ahead.
 */
static struct core_prefault *pending_region(void)
{
	struct core_prefault *best = NULL;
	size_t least = SIZE_MAX;
	for (struct core_prefault *r = pf.regions; r; r = r->next) {
		size_t want = atomic_load_explicit(&r->want, memory_order_relaxed);
		if (want > r->done && want - r->done < least) {
			least = want - r->done;
			best = r;
		}
	}
	return best;
}

/*
 * A forked child has the parent's regions but not its thread (and maybe a lock taken or
 * a chunk marked busy by it): it starts over with no region served; its tables are
 * left to their first touches.
 */
static void prefault_atfork_child(void)
{
	pthread_mutex_init(&pf.lock, NULL);
	pthread_cond_init(&pf.work, NULL);
	pthread_cond_init(&pf.idle, NULL);
	for (struct core_prefault *r = pf.regions; r; r = r->next) {
		r->busy = false;
		atomic_store_explicit(&r->registered, false, memory_order_relaxed);
	}
	pf.regions = NULL;
	pf.running = false;
	pf.gen++;
}

static pthread_once_t prefault_once = PTHREAD_ONCE_INIT;
static void prefault_atfork_install(void)
{
	pthread_atfork(NULL, NULL, prefault_atfork_child);
}

static void *prefault_main(void *arg)
{
	uint32_t gen = (uint32_t)(uintptr_t)arg;
	core_thread_name(0, "flowdpa prefault", "flowdpa-pf");
	pthread_mutex_lock(&pf.lock);
	while (pf.gen == gen) {
		struct core_prefault *r = pending_region();
		if (r == NULL) {
			pthread_cond_wait(&pf.work, &pf.lock);
			continue;
		}
		size_t from = r->done, len = atomic_load_explicit(&r->want, memory_order_relaxed) - from;
		if (len > PREFAULT_CHUNK)
			len = PREFAULT_CHUNK;
		r->busy = true;
		pthread_mutex_unlock(&pf.lock);
		/* The region stays mapped while busy: core_prefault_stop waits for it. */
		int rc = madvise(r->base + from, len, MADV_POPULATE_WRITE);
		pthread_mutex_lock(&pf.lock);
		if (rc != 0 && errno == EINVAL)
			atomic_store(&pf.unsupported, true);
		/* On any failure (no memory now, say) the region is left to its first touches. */
		r->done = rc == 0 ? from + len : r->size;
		r->busy = false;
		pthread_cond_broadcast(&pf.idle);
	}
	pthread_mutex_unlock(&pf.lock);
	return NULL;
}

void core_prefault_start(struct core_prefault *r, void *base, size_t size, size_t want)
{
	r->base = base;
	r->size = size;
	r->done = 0;
	r->busy = false;
	atomic_init(&r->registered, false);
	atomic_init(&r->want, 0);
	if (base == NULL || size < 2 * PREFAULT_CHUNK || atomic_load(&pf.unsupported))
		return; /* small tables: a few faults, not worth a thread */
	pthread_once(&prefault_once, prefault_atfork_install);
	pthread_mutex_lock(&pf.lock);
	if (!pf.running) {
		pf.gen++;
		if (pthread_create(&pf.thread, NULL, prefault_main, (void *)(uintptr_t)pf.gen) != 0) {
			pthread_mutex_unlock(&pf.lock);
			return; /* left to its first touches */
		}
		pf.running = true;
	}
	r->next = pf.regions;
	pf.regions = r;
	atomic_store_explicit(&r->registered, true, memory_order_relaxed);
	pthread_mutex_unlock(&pf.lock);
	core_prefault_want(r, want);
}

void core_prefault_want(struct core_prefault *r, size_t upto)
{
	if (!atomic_load_explicit(&r->registered, memory_order_relaxed))
		return;
	upto = upto < r->size && r->size - upto > PREFAULT_AHEAD ? upto + PREFAULT_AHEAD : r->size;
	upto = (upto + 4095) & ~(size_t)4095; /* chunks start on pages: madvise wants that */
	pthread_mutex_lock(&pf.lock);
	if (upto > atomic_load_explicit(&r->want, memory_order_relaxed)) {
		atomic_store_explicit(&r->want, upto, memory_order_relaxed);
		pthread_cond_signal(&pf.work);
	}
	pthread_mutex_unlock(&pf.lock);
}

void core_prefault_stop(struct core_prefault *r)
{
	if (!atomic_load_explicit(&r->registered, memory_order_relaxed))
		return;
	pthread_mutex_lock(&pf.lock);
	/* Off the list first: the thread picks its next chunk under the lock, and would
	 * otherwise go on with this region until all of it is committed. */
	struct core_prefault **link = &pf.regions;
	while (*link && *link != r)
		link = &(*link)->next;
	if (*link)
		*link = r->next;
	while (r->busy)
		pthread_cond_wait(&pf.idle, &pf.lock);
	atomic_store_explicit(&r->registered, false, memory_order_relaxed);
	bool last = pf.regions == NULL && pf.running;
	pthread_t th = pf.thread;
	if (last) {
		pf.gen++; /* the thread leaves at its next look; a new start makes a new one */
		pf.running = false;
		pthread_cond_broadcast(&pf.work);
	}
	pthread_mutex_unlock(&pf.lock);
	if (last)
		pthread_join(th, NULL);
}
