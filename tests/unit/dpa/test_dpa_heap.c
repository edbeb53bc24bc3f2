/*
 * test_dpa_heap.c - the device heap through doca_dpa_mem_alloc/_free, h2d/d2h copies and
 * memset: alignment, exact bounds, exhaustion and reuse, double and foreign frees,
 * copies that leave their allocation, calls on a stopped context; every refusal logs one
 * line naming the public call. Runs with FLOWDPA_DPA_HEAP_SIZE=1M.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_dpa.h>

#include "dpa_fixture.h"

extern struct doca_dpa_app *unit_app;

static int fx_setup(void **state)
{
	*state = dpa_fx_open(DPA_FX_STARTED, unit_app);
	return 0;
}

static int fx_teardown(void **state)
{
	dpa_fx_close(*state);
	return 0;
}

static void test_alloc_aligned_and_distinct(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t p[16];

	for (int i = 0; i < 16; i++) {
		assert_int_equal(doca_dpa_mem_alloc(f->dpa, (size_t)(i * 13 + 1), &p[i]), DOCA_SUCCESS);
		assert_int_equal(p[i] % 64, 0);
		for (int j = 0; j < i; j++)
			assert_true(p[i] >= p[j] + (uint64_t)(j * 13 + 1) || p[j] >= p[i] + (uint64_t)(i * 13 + 1));
	}
	/* Device pointers are addresses: writable directly (as device code does). */
	*(volatile uint8_t *)(uintptr_t)p[3] = 0x5a;
	uint8_t b = 0;

	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, &b, p[3], 1), DOCA_SUCCESS);
	assert_int_equal(b, 0x5a);
	for (int i = 0; i < 16; i++)
		assert_int_equal(doca_dpa_mem_free(f->dpa, p[i]), DOCA_SUCCESS);
}

static void test_alloc_refusals(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t p = 77;
	struct doca_dpa *stopped = NULL;

	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 0, &p), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("size is 0", "doca_dpa_mem_alloc: ");
	assert_int_equal(p, 0);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 8, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dev_ptr is NULL", "doca_dpa_mem_alloc: ");
	assert_int_equal(doca_dpa_mem_alloc(NULL, 8, &p), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_create(f->dev, &stopped), DOCA_SUCCESS);
	p = 77;
	assert_int_equal(doca_dpa_mem_alloc(stopped, 8, &p), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(p, 0);
	assert_int_equal(doca_dpa_destroy(stopped), DOCA_SUCCESS);
}

/* 1 MiB heap: exhaustion is NO_MEMORY with a line saying how much is in use; frees coalesce. */
static void test_exhaustion_and_reuse(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t p[4], big = 0;

	for (int i = 0; i < 4; i++)
		assert_int_equal(doca_dpa_mem_alloc(f->dpa, 256 * 1024, &p[i]), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 64, &big), DOCA_ERROR_NO_MEMORY);
	dpa_test_expect_log("exhausted", "64 bytes requested", "FLOWDPA_DPA_HEAP_SIZE", "doca_dpa_mem_alloc: ");
	assert_int_equal(big, 0);
	/* Free out of order; the whole heap must be one extent again. */
	assert_int_equal(doca_dpa_mem_free(f->dpa, p[1]), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, p[3]), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, p[0]), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, p[2]), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 1024 * 1024, &big), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, big), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, (size_t)-1, &big), DOCA_ERROR_NO_MEMORY);
	dpa_test_log_clear();
}

static void test_free_refusals(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t p = 0, q = 0;
	struct doca_dpa *other = dpa_test_started(f->dev, unit_app);

	assert_int_equal(doca_dpa_mem_free(f->dpa, 0), DOCA_SUCCESS); /* no-op */
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 128, &p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, p + 64), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("no allocation of process", "starts there");
	assert_int_equal(doca_dpa_mem_free(f->dpa, 0x1000), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("free of device address 0x1000 refused", "doca_dpa_mem_free: ");
	assert_int_equal(doca_dpa_mem_alloc(other, 8, &q), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, q), DOCA_ERROR_INVALID_VALUE); /* another context's */
	dpa_test_expect_log("refused", "another context");
	assert_int_equal(doca_dpa_mem_free(f->dpa, p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, p), DOCA_ERROR_INVALID_VALUE); /* double free */
	dpa_test_expect_log("double free");
	assert_int_equal(doca_dpa_mem_free(NULL, p), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_mem_free(other, q), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(other), DOCA_SUCCESS);
}

static void test_copies_and_memset(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t p = 0;
	uint8_t src[100], dst[100];

	for (int i = 0; i < 100; i++)
		src[i] = (uint8_t)i;
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 100, &p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, p, src, 100), DOCA_SUCCESS);
	memset(dst, 0, sizeof(dst));
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, dst, p, 100), DOCA_SUCCESS);
	assert_memory_equal(src, dst, 100);
	assert_int_equal(doca_dpa_memset(f->dpa, p + 10, 0xee, 20), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, dst, p, 100), DOCA_SUCCESS);
	for (int i = 0; i < 100; i++)
		assert_int_equal(dst[i], i >= 10 && i < 30 ? 0xee : i);
	/* Interior ranges up to the exact end are fine. */
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, dst, p + 99, 1), DOCA_SUCCESS);
}

static void test_copy_refusals(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t p = 0, q = 0;
	uint8_t buf[256] = {0}, before[100], after[100];

	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 100, &p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 100, &q), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, before, q, 100), DOCA_SUCCESS);
	/* One byte past the end (the next allocation is 64-byte aligned right after it). */
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, p, buf, 101), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("host-to-device copy of 101 bytes", "runs past the end of its allocation", "100 bytes",
			    "doca_dpa_h2d_memcpy: ");
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, buf, p + 50, 51), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("device-to-host copy of 51 bytes", "runs past the end", "doca_dpa_d2h_memcpy: ");
	assert_int_equal(doca_dpa_memset(f->dpa, p + 100, 0, 1), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("device memset of 1 bytes", "not inside a live allocation", "doca_dpa_memset: ");
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, p - 8, buf, 8), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("not inside a live allocation");
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, (doca_dpa_dev_uintptr_t)(uintptr_t)buf, buf, 8),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("not inside a live allocation");
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, p, NULL, 8), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("source pointer is NULL", "doca_dpa_h2d_memcpy: ");
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, NULL, p, 8), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("destination pointer is NULL", "doca_dpa_d2h_memcpy: ");
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, p, buf, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("size is 0");
	assert_int_equal(doca_dpa_memset(f->dpa, p, 0, 0), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("size is 0");
	assert_int_equal(doca_dpa_h2d_memcpy(NULL, p, buf, 8), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_mem_free(f->dpa, p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, buf, p, 8), DOCA_ERROR_INVALID_VALUE); /* freed */
	dpa_test_expect_log("not inside a live allocation");
	/* The neighbour was never touched. */
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, after, q, 100), DOCA_SUCCESS);
	assert_memory_equal(before, after, 100);
	assert_int_equal(doca_dpa_mem_free(f->dpa, q), DOCA_SUCCESS);
}

/* Copies and memset on a stopped context: BAD_STATE, one line, memory kept for the restart. */
static void test_copies_on_stopped_context(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t p = 0;
	uint8_t buf[16], back[16];

	memset(buf, 0x3c, sizeof(buf));
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, sizeof(buf), &p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, p, buf, sizeof(buf)), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_stop(f->dpa), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_h2d_memcpy(f->dpa, p, back, sizeof(back)), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_dpa_h2d_memcpy", "is not started");
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, back, p, sizeof(back)), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_dpa_d2h_memcpy", "is not started");
	assert_int_equal(doca_dpa_memset(f->dpa, p, 0, sizeof(back)), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_one_log("doca_dpa_memset", "is not started");
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_SUCCESS);
	memset(back, 0, sizeof(back));
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, back, p, sizeof(back)), DOCA_SUCCESS);
	assert_memory_equal(back, buf, sizeof(buf)); /* untouched by the refused calls */
	assert_int_equal(doca_dpa_mem_free(f->dpa, p), DOCA_SUCCESS);
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_alloc_aligned_and_distinct, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_alloc_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion_and_reuse, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_free_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_copies_and_memset, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_copy_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_copies_on_stopped_context, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
