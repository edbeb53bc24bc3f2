/* Unit tests: the JSON writer's commas, nesting and escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/core.h"

static void test_nesting_and_commas(void **state)
{
	struct core_json *j = core_json_new();
	(void)state;

	core_json_object_begin(j);
	core_json_key(j, "a");
	core_json_u64(j, 1);
	core_json_key(j, "list");
	core_json_array_begin(j);
	core_json_i64(j, -2);
	core_json_bool(j, true);
	core_json_object_begin(j);
	core_json_object_end(j);
	core_json_raw(j, "{\"x\":[]}");
	core_json_double(j, 0.5);
	core_json_double(j, 1.0 / 0.0);
	core_json_array_end(j);
	core_json_key(j, "s");
	core_json_str(j, "q\"b\\n\n\x01");
	core_json_object_end(j);
	assert_string_equal(core_json_text(j),
			    "{\"a\":1,\"list\":[-2,true,{},{\"x\":[]},0.5,null],\"s\":\"q\\\"b\\\\n\\n\\u0001\"}");
	core_json_free(j);
	core_json_free(NULL);
}

static void test_escape_truncates_safely(void **state)
{
	char small[6];
	(void)state;

	char esc[8];

	assert_int_equal(core_json_escape("abcdefgh", small, sizeof(small)), 10);
	assert_string_equal(small, "\"abc\""); /* cut, but still a closed JSON string */
	assert_int_equal(core_json_escape(NULL, small, sizeof(small)), 2);
	assert_string_equal(small, "\"\"");
	/* an escape sequence is never cut in half */
	assert_int_equal(core_json_escape("ab\x01", esc, sizeof(esc)), 10);
	assert_string_equal(esc, "\"ab\"");
	assert_int_equal(core_json_escape("a\\", esc, 5), 5);
	assert_string_equal(esc, "\"a\"");
}

static void test_null_writer_is_a_no_op(void **state)
{
	(void)state;
	core_json_object_begin(NULL);
	core_json_key(NULL, "k");
	core_json_str(NULL, "v");
	core_json_u64(NULL, 1);
	core_json_raw(NULL, "{}");
	core_json_object_end(NULL);
	assert_null(core_json_text(NULL));
}

static void test_long_strings(void **state)
{
	struct core_json *j = core_json_new();
	char big[5000];
	(void)state;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	core_json_str(j, big);
	assert_int_equal(strlen(core_json_text(j)), sizeof(big) + 1);
	core_json_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_and_commas),
		cmocka_unit_test(test_escape_truncates_safely),
		cmocka_unit_test(test_long_strings),
		cmocka_unit_test(test_null_writer_is_a_no_op),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
