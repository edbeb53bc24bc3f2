/*
 * test_dpa_heap_meta.c - the device heap when the host cannot grow the allocator's
 * records (its realloc fails): mem_alloc returns NO_MEMORY with one line naming the
 * public call and the real reason (not "exhausted": the heap has room), and the heap is
 * intact (the same calls succeed afterwards); mem_free never needs memory (the records
 * a free takes were reserved by the allocations), so it succeeds all the same.
 *
 * This program defines realloc (malloc + copy + free, with malloc_usable_size), so that
 * it can fail the one growth it aims at, on this thread only. Not under TSan: its runtime
 * calls realloc while it sets a new thread up, before instrumented code may run.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dpa.h>

#include "dpa_test_util.h"

extern struct doca_dpa_app *unit_app;


/* The allocator's record arrays start at 64 extents of 32 bytes (struct dpa_extent:
 * start, size, span, site) and double. */
#define META_GROW_BYTES (128u * 32u)

static __thread int fail_growth;

#if !DPA_TEST_TSAN
void *realloc(void *p, size_t n)
{
	if (fail_growth && n == META_GROW_BYTES) {
		fail_growth = 0;
		return NULL;
	}
	if (p == NULL)
		return malloc(n);
	if (n == 0) {
		free(p);
		return NULL;
	}
	void *q = malloc(n);

	if (q == NULL)
		return NULL;
	size_t old = malloc_usable_size(p);

	memcpy(q, p, old < n ? old : n);
	free(p);
	return q;
}
#endif

static void test_record_growth_failure(void **state)
{
	(void)state;
	if (DPA_TEST_TSAN)
		skip();
	struct doca_dev *dev = dpa_test_open_dev(0);
	struct doca_dpa *dpa = dpa_test_started(dev, unit_app);
	enum { N = 130 };
	doca_dpa_dev_uintptr_t p[N] = {0}, extra = 77;

	/* 64 live allocations fill the live-record array; the 65th must grow it. */
	for (int i = 0; i < 64; i++)
		assert_int_equal(doca_dpa_mem_alloc(dpa, 64, &p[i]), DOCA_SUCCESS);
	dpa_test_log_clear();
	fail_growth = 1;
	assert_int_equal(doca_dpa_mem_alloc(dpa, 64, &p[64]), DOCA_ERROR_NO_MEMORY);
	fail_growth = 0;
	dpa_test_expect_one_log("doca_dpa_mem_alloc: ", "64 bytes requested", "out of host memory",
				"the heap itself has room");
	assert_int_equal(dpa_test_log_count("exhausted", (const char *)NULL), 0);
	assert_int_equal(p[64], 0);
	for (int i = 64; i < N; i++)
		assert_int_equal(doca_dpa_mem_alloc(dpa, 64, &p[i]), DOCA_SUCCESS);

	/* Freeing every other allocation makes one free extent each (plus the tail): the
	 * 64th such free takes a 65th free record, which the allocations reserved, so it
	 * succeeds without growing anything while the host's realloc would fail. */
	for (int i = 0; i < 126; i += 2)
		assert_int_equal(doca_dpa_mem_free(dpa, p[i]), DOCA_SUCCESS);
	dpa_test_log_clear();
	fail_growth = 1;
	assert_int_equal(doca_dpa_mem_free(dpa, p[126]), DOCA_SUCCESS);
	assert_int_equal(fail_growth, 1); /* no growth was attempted */
	fail_growth = 0;
	assert_int_equal(dpa_test_log_count("[ERR]", (const char *)NULL), 0);
	for (int i = 1; i < N; i += 2)
		assert_int_equal(doca_dpa_mem_free(dpa, p[i]), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(dpa, p[128]), DOCA_SUCCESS);
	/* The whole 1 MiB heap is one extent again. */
	assert_int_equal(doca_dpa_mem_alloc(dpa, 1024 * 1024, &extra), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(dpa, extra), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_growth_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
