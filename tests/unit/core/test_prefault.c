/*
 * Unit tests: the background committing of lazily mapped tables (core_prefault_*):
 * what it commits (mincore), that it commits no further than asked plus the window,
 * that it never changes what the owner wrote, that small or unset regions are left
 * alone, and that regions come and go from several threads while it works.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"

#define MIB ((size_t)1 << 20)

/* ThreadSanitizer's runtime cannot start a thread after a multi-threaded fork. */
#if defined(__SANITIZE_THREAD__)
#define PF_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PF_TEST_TSAN 1
#endif
#endif
#ifndef PF_TEST_TSAN
#define PF_TEST_TSAN 0
#endif

static void *lazy_map(size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(m != MAP_FAILED);
	/* 4 KiB pages, so that residency is seen page by page. */
	(void)madvise(m, size, MADV_NOHUGEPAGE);
	return m;
}

/* Resident pages of [off, off + len) of m. */
static size_t resident(const void *m, size_t off, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t n = len / (size_t)pg, count = 0;
	unsigned char *vec = malloc(n);
	assert_non_null(vec);
	assert_int_equal(mincore((char *)m + off, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	return count * (size_t)pg;
}

/* Waits (at most 20 s: a loaded machine) until [off, off + len) is resident. */
static bool wait_resident(const void *m, size_t off, size_t len)
{
	for (int i = 0; i < 2000; i++) {
		if (resident(m, off, len) == len)
			return true;
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	return false;
}

/* Kernels before 5.14 have no MADV_POPULATE_WRITE: the service does nothing there. */
static bool kernel_can_populate(void)
{
	char *m = lazy_map(4096);
	bool ok = madvise(m, 4096, 23 /* MADV_POPULATE_WRITE */) == 0;
	munmap(m, 4096);
	return ok;
}

static void test_commits_ahead_of_use_and_no_further(void **state)
{
	(void)state;
	if (!kernel_can_populate())
		skip();
	size_t size = 64 * MIB;
	char *m = lazy_map(size);
	struct core_prefault r;
	core_prefault_start(&r, m, size, 0);
	assert_true(wait_resident(m, 0, PREFAULT_AHEAD));
	/* Use moves on: the window follows. */
	core_prefault_at(&r, 20 * MIB);
	assert_true(wait_resident(m, 20 * MIB, PREFAULT_AHEAD));
	core_prefault_stop(&r);
	/* A table filled in order: all before the window too, nothing past it. */
	assert_int_equal(resident(m, 0, 20 * MIB + PREFAULT_AHEAD), 20 * MIB + PREFAULT_AHEAD);
	assert_int_equal(resident(m, 20 * MIB + PREFAULT_AHEAD, 44 * MIB - PREFAULT_AHEAD), 0);
	munmap(m, size);
}

static void test_whole_table_and_contents_kept(void **state)
{
	(void)state;
	if (!kernel_can_populate())
		skip();
	size_t size = 16 * MIB;
	char *m = lazy_map(size);
	/* The owner wrote some pages before the service came: they keep their bytes. */
	for (size_t off = 0; off < size; off += 3 * MIB + 4096)
		memset(m + off, 0x5a, 64);
	struct core_prefault r;
	core_prefault_start(&r, m, size, SIZE_MAX);
	assert_true(wait_resident(m, 0, size));
	core_prefault_stop(&r);
	for (size_t off = 0; off < size; off += 3 * MIB + 4096)
		for (size_t i = 0; i < 64; i++)
			assert_int_equal((unsigned char)m[off + i], 0x5a);
	assert_int_equal((unsigned char)m[size - 1], 0);
	munmap(m, size);
}

static void test_small_or_absent_regions_are_left_alone(void **state)
{
	(void)state;
	size_t size = 2 * MIB;
	char *m = lazy_map(size);
	struct core_prefault r, none;
	core_prefault_start(&r, m, size, SIZE_MAX);
	core_prefault_want(&r, 0);
	core_prefault_at(&r, MIB);
	core_prefault_stop(&r);
	assert_int_equal(resident(m, 0, size), 0);
	core_prefault_start(&none, NULL, 64 * MIB, SIZE_MAX);
	core_prefault_at(&none, 0);
	core_prefault_stop(&none);
	/* A region never started, zeroed as the owners' structures are: stop is a no-op. */
	struct core_prefault zero;
	memset(&zero, 0, sizeof(zero));
	core_prefault_stop(&zero);
	munmap(m, size);
}

/* A stop while a whole table is wanted returns without committing the rest of it. */
static void test_stop_does_not_wait_for_the_whole_table(void **state)
{
	(void)state;
	if (!kernel_can_populate())
		skip();
	size_t size = 256 * MIB;
	char *m = lazy_map(size);
	struct core_prefault r;
	core_prefault_start(&r, m, size, SIZE_MAX);
	core_prefault_stop(&r);
	/* At most the chunks done before the stop took the lock: far from all of it. */
	assert_true(resident(m, 0, size) < size / 2);
	munmap(m, size);
}

/* A child forked while a region is served has no service thread: its stop returns, and
 * a region it starts is served by a thread of its own. */
static void test_forked_child_starts_over(void **state)
{
	(void)state;
	if (!kernel_can_populate() || PF_TEST_TSAN)
		skip();
	size_t size = 16 * MIB;
	char *m = lazy_map(size);
	struct core_prefault r;
	core_prefault_start(&r, m, size, 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		core_prefault_stop(&r);
		char *c = lazy_map(size);
		struct core_prefault rc;
		core_prefault_start(&rc, c, size, SIZE_MAX);
		bool ok = wait_resident(c, 0, size);
		core_prefault_stop(&rc);
		_exit(ok ? 0 : 1);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	core_prefault_stop(&r);
	munmap(m, size);
}

/* A table's life on each of several threads: the service starts, serves several
 * regions at once, and stops and restarts as they come and go (TSan runs this). */
static void *table_life(void *arg)
{
	(void)arg;
	size_t size = 8 * MIB;
	for (int round = 0; round < 20; round++) {
		char *m = lazy_map(size);
		struct core_prefault r;
		core_prefault_start(&r, m, size, 0);
		for (size_t off = 0; off < size; off += 64 * 1024) {
			core_prefault_at(&r, off);
			m[off] = (char)round; /* the owner's own touches race with the service's */
		}
		core_prefault_stop(&r);
		for (size_t off = 0; off < size; off += 64 * 1024)
			assert_int_equal(m[off], (char)round);
		munmap(m, size);
	}
	return NULL;
}

static void test_regions_come_and_go_from_threads(void **state)
{
	(void)state;
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&th[i], NULL, table_life, NULL), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commits_ahead_of_use_and_no_further),
		cmocka_unit_test(test_whole_table_and_contents_kept),
		cmocka_unit_test(test_small_or_absent_regions_are_left_alone),
		cmocka_unit_test(test_regions_come_and_go_from_threads),
		cmocka_unit_test(test_stop_does_not_wait_for_the_whole_table),
		cmocka_unit_test(test_forked_child_starts_over),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
