/*
 * test_dpa_mem_fault.c - FLOWDPA_FAULTS=dpa_mem_alloc: every device heap allocation
 * fails with NO_MEMORY, *dev_ptr is 0 and the log says the fault was injected.
 */
#include <doca_dpa.h>

#include "dpa_test_util.h"

extern struct doca_dpa_app *unit_app;

static void test_injected_alloc_failure(void **state)
{
	(void)state;
	struct doca_dev *dev = dpa_test_open_dev(0);
	struct doca_dpa *dpa = NULL;
	doca_dpa_dev_uintptr_t p = 5;

	assert_int_equal(doca_dpa_create(dev, &dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(dpa, unit_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_mem_alloc(dpa, 64, &p), DOCA_ERROR_NO_MEMORY);
	dpa_test_expect_log("fault injected (FLOWDPA_FAULTS)");
	assert_int_equal(p, 0);
	assert_int_equal(doca_dpa_destroy(dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_injected_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
