/* Unit tests: doca_error_get_name / doca_error_get_descr for every code and beyond. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <doca_error.h>

static void test_every_code_has_its_name(void **state)
{
	static const struct {
		doca_error_t code;
		const char *name;
	} codes[] = {
		{DOCA_SUCCESS, "DOCA_SUCCESS"},
		{DOCA_ERROR_UNKNOWN, "DOCA_ERROR_UNKNOWN"},
		{DOCA_ERROR_NOT_PERMITTED, "DOCA_ERROR_NOT_PERMITTED"},
		{DOCA_ERROR_IN_USE, "DOCA_ERROR_IN_USE"},
		{DOCA_ERROR_NOT_SUPPORTED, "DOCA_ERROR_NOT_SUPPORTED"},
		{DOCA_ERROR_AGAIN, "DOCA_ERROR_AGAIN"},
		{DOCA_ERROR_INVALID_VALUE, "DOCA_ERROR_INVALID_VALUE"},
		{DOCA_ERROR_NO_MEMORY, "DOCA_ERROR_NO_MEMORY"},
		{DOCA_ERROR_INITIALIZATION, "DOCA_ERROR_INITIALIZATION"},
		{DOCA_ERROR_TIME_OUT, "DOCA_ERROR_TIME_OUT"},
		{DOCA_ERROR_SHUTDOWN, "DOCA_ERROR_SHUTDOWN"},
		{DOCA_ERROR_CONNECTION_RESET, "DOCA_ERROR_CONNECTION_RESET"},
		{DOCA_ERROR_CONNECTION_ABORTED, "DOCA_ERROR_CONNECTION_ABORTED"},
		{DOCA_ERROR_CONNECTION_INPROGRESS, "DOCA_ERROR_CONNECTION_INPROGRESS"},
		{DOCA_ERROR_NOT_CONNECTED, "DOCA_ERROR_NOT_CONNECTED"},
		{DOCA_ERROR_NO_LOCK, "DOCA_ERROR_NO_LOCK"},
		{DOCA_ERROR_NOT_FOUND, "DOCA_ERROR_NOT_FOUND"},
		{DOCA_ERROR_IO_FAILED, "DOCA_ERROR_IO_FAILED"},
		{DOCA_ERROR_BAD_STATE, "DOCA_ERROR_BAD_STATE"},
		{DOCA_ERROR_UNSUPPORTED_VERSION, "DOCA_ERROR_UNSUPPORTED_VERSION"},
		{DOCA_ERROR_OPERATING_SYSTEM, "DOCA_ERROR_OPERATING_SYSTEM"},
		{DOCA_ERROR_DRIVER, "DOCA_ERROR_DRIVER"},
		{DOCA_ERROR_UNEXPECTED, "DOCA_ERROR_UNEXPECTED"},
		{DOCA_ERROR_ALREADY_EXIST, "DOCA_ERROR_ALREADY_EXIST"},
		{DOCA_ERROR_FULL, "DOCA_ERROR_FULL"},
		{DOCA_ERROR_EMPTY, "DOCA_ERROR_EMPTY"},
		{DOCA_ERROR_IN_PROGRESS, "DOCA_ERROR_IN_PROGRESS"},
		{DOCA_ERROR_TOO_BIG, "DOCA_ERROR_TOO_BIG"},
		{DOCA_ERROR_AUTHENTICATION, "DOCA_ERROR_AUTHENTICATION"},
		{DOCA_ERROR_BAD_CONFIG, "DOCA_ERROR_BAD_CONFIG"},
		{DOCA_ERROR_SKIPPED, "DOCA_ERROR_SKIPPED"},
	};
	(void)state;

	assert_int_equal(sizeof(codes) / sizeof(codes[0]), 31);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_int_equal(codes[i].code, (int)i); /* values are ABI */
		assert_string_equal(doca_error_get_name(codes[i].code), codes[i].name);
	}
}

static void test_every_code_has_a_distinct_sentence(void **state)
{
	(void)state;
	for (int i = DOCA_SUCCESS; i <= DOCA_ERROR_SKIPPED; i++) {
		const char *d = doca_error_get_descr((doca_error_t)i);

		assert_non_null(d);
		assert_true(strlen(d) > 5);
		assert_string_not_equal(d, "unrecognized error code");
		assert_true(d[0] >= 'A' && d[0] <= 'Z');
		for (int k = DOCA_SUCCESS; k < i; k++)
			assert_string_not_equal(d, doca_error_get_descr((doca_error_t)k));
	}
	assert_string_equal(doca_error_get_descr(DOCA_ERROR_NOT_FOUND), "Resource not found");
}

static void test_unknown_values(void **state)
{
	static const int bad[] = {31, 32, 1000, -1, -30, 0x7fffffff};
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_string_equal(doca_error_get_name((doca_error_t)bad[i]), "unrecognized error code");
		assert_string_equal(doca_error_get_descr((doca_error_t)bad[i]), "unrecognized error code");
	}
}

static void test_macros(void **state)
{
	doca_error_t r = DOCA_SUCCESS;
	(void)state;

	assert_false(DOCA_IS_ERROR(DOCA_SUCCESS));
	assert_true(DOCA_IS_ERROR(DOCA_ERROR_AGAIN));
	DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_IN_USE);
	DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_DRIVER); /* keeps the first error */
	DOCA_ERROR_PROPAGATE(r, DOCA_SUCCESS);
	assert_int_equal(r, DOCA_ERROR_IN_USE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code_has_its_name),
		cmocka_unit_test(test_every_code_has_a_distinct_sentence),
		cmocka_unit_test(test_unknown_values),
		cmocka_unit_test(test_macros),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
