/*
 * Unit tests: core_calloc_aligned, the aligned and zeroed door of alloc.c: memory of
 * the asked alignment, zeroed even where the heap had written before; NULL and EINVAL
 * for an alignment that is not a power of two or is below a pointer's size; NULL
 * when FLOWDPA_FAULT_ALLOC names its call, counted as an allocation like the others.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

static void test_aligned_and_zeroed(void **state)
{
	(void)state;
	/* Dirty the heap first, so that zero is the function's doing. */
	for (int i = 0; i < 8; i++) {
		void *d = malloc(1000);
		assert_non_null(d);
		memset(d, 0xa5, 1000);
		free(d);
	}
	for (size_t align = sizeof(void *); align <= 4096; align *= 4) {
		uint8_t *p = core_calloc_aligned(align, 1000);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % align, 0);
		for (size_t i = 0; i < 1000; i++)
			assert_int_equal(p[i], 0);
		free(p);
	}
}

static void test_bad_alignment(void **state)
{
	(void)state;
	uint64_t before = core_alloc_count();
	errno = 0;
	assert_null(core_calloc_aligned(48, 64)); /* not a power of two */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(core_calloc_aligned(sizeof(void *) / 2, 64)); /* below a pointer's size */
	assert_int_equal(errno, EINVAL);
	assert_null(core_calloc_aligned(0, 64));
	assert_int_equal(core_alloc_count(), before); /* refused before any allocation */
}

static void test_fault_injection(void **state)
{
	(void)state;
	char nth[32];
	snprintf(nth, sizeof(nth), "%llu", (unsigned long long)core_alloc_count() + 1);
	assert_int_equal(setenv("FLOWDPA_FAULT_ALLOC", nth, 1), 0);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	uint64_t before = core_alloc_count();
	assert_null(core_calloc_aligned(64, 128));
	assert_true(core_alloc_fault_fired());
	assert_int_equal(core_alloc_count(), before + 1);
	void *p = core_calloc_aligned(64, 128); /* the next one is served */
	assert_non_null(p);
	free(p);
	assert_int_equal(unsetenv("FLOWDPA_FAULT_ALLOC"), 0);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aligned_and_zeroed),
		cmocka_unit_test(test_bad_alignment),
		cmocka_unit_test(test_fault_injection),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
