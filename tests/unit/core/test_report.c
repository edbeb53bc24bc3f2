/*
 * Unit tests: FLOWDPA_REPORT collects named sections, keeps the final state of
 * sections whose object went away, and writes valid JSON at exit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>

#include "core/core_internal.h"
#include "test_support.h"

struct queue_stats {
	uint64_t posted;
	const char *name;
};

static void queue_section(struct core_json *j, void *arg)
{
	struct queue_stats *q = arg;

	core_json_key(j, "queue");
	core_json_str(j, q->name);
	core_json_key(j, "posted");
	core_json_u64(j, q->posted);
}

static void queue_section_int(struct core_json *j, void *arg)
{
	core_json_key(j, "value");
	core_json_i64(j, *(int *)arg);
}

static void child_report(const char *path)
{
	static struct queue_stats live = {.posted = 1, .name = "live queue"};
	struct queue_stats gone = {.posted = 40, .name = "destroyed queue"};
	struct core_report_section *s;

	test_clear_flowdpa_env();
	setenv("FLOWDPA_REPORT", path, 1);
	if (core_config_reload() != DOCA_SUCCESS || !core_report_enabled())
		_exit(3);
	core_report_register("queues_live", queue_section, &live);
	s = core_report_register("queues_gone", queue_section, &gone);
	gone.posted = 41;
	core_report_unregister(s); /* captured now: the object is about to vanish */
	memset(&gone, 0, sizeof(gone));
	live.posted = 7; /* rendered at exit: shows the final value */
	exit(0);
}

static void test_report_at_exit(void **state)
{
	const char *path = "report.json";
	char cmd[1024];
	char out[4096] = {0};
	FILE *p;
	int status;
	pid_t pid;
	(void)state;

	unlink(path);
	pid = fork();
	if (pid == 0)
		child_report(path);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(cmd, sizeof(cmd), "\"%s\" \"%s\" report \"%s\" queues_live queues_gone", getenv("FLOWDPA_TEST_PYTHON"),
		 getenv("FLOWDPA_TEST_CHECK_JSON"), path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_true(fread(out, 1, sizeof(out) - 1, p) > 0);
	assert_int_equal(pclose(p), 0);
	assert_non_null(strstr(out, "\"queue\": \"live queue\", \"posted\": 7"));
	assert_non_null(strstr(out, "\"queue\": \"destroyed queue\", \"posted\": 41"));
	assert_non_null(strstr(out, "\"live\": false"));
}

static void test_report_off(void **state)
{
	int x = 0;
	(void)state;

	test_clear_flowdpa_env();
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_false(core_report_enabled());
	assert_null(core_report_register("s", queue_section, &x));
	core_report_unregister(NULL);
	assert_int_equal(core_report_write(), DOCA_SUCCESS);
}

static void report_to_unwritable(void *arg)
{
	*(doca_error_t *)arg = core_report_write();
}

static void test_report_unwritable_path(void **state)
{
	doca_error_t rc = DOCA_SUCCESS;
	const char *err;
	(void)state;

	setenv("FLOWDPA_REPORT", "/nonexistent/dir/report.json", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	err = test_capture_stderr(report_to_unwritable, &rc);
	assert_int_equal(rc, DOCA_ERROR_IO_FAILED);
	assert_non_null(strstr(err, "cannot write the report"));
	unsetenv("FLOWDPA_REPORT");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

static void test_report_to_stderr(void **state)
{
	doca_error_t rc = DOCA_ERROR_UNKNOWN;
	int x = 0;
	const char *err;
	(void)state;

	setenv("FLOWDPA_REPORT", "-", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_non_null(core_report_register("on_stderr", queue_section_int, &x));
	err = test_capture_stderr(report_to_unwritable, &rc);
	assert_int_equal(rc, DOCA_SUCCESS);
	assert_non_null(strstr(err, "\"name\":\"on_stderr\",\"live\":true,\"data\":{\"value\":0}"));
	unsetenv("FLOWDPA_REPORT");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

static void test_report_bad_arguments(void **state)
{
	(void)state;
	setenv("FLOWDPA_REPORT", "report_bad.json", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_null(core_report_register(NULL, queue_section, NULL));
	assert_null(core_report_register("x", NULL, NULL));
	unsetenv("FLOWDPA_REPORT");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* Unregistering twice keeps the first capture and neither crashes nor leaks. */
static void test_report_unregister_twice(void **state)
{
	doca_error_t rc = DOCA_ERROR_UNKNOWN;
	int x = 5;
	struct core_report_section *s;
	const char *err;
	(void)state;

	setenv("FLOWDPA_REPORT", "-", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	s = core_report_register("twice", queue_section_int, &x);
	assert_non_null(s);
	core_report_unregister(s);
	x = 6;
	core_report_unregister(s); /* a no-op: the object's final state was captured already */
	err = test_capture_stderr(report_to_unwritable, &rc);
	assert_int_equal(rc, DOCA_SUCCESS);
	assert_non_null(strstr(err, "\"name\":\"twice\",\"live\":false,\"data\":{\"value\":5}"));
	unsetenv("FLOWDPA_REPORT");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* The report belongs to the process that configured it: a forked child that exits (or
 * writes on demand) leaves the file alone; the parent still writes it. */
static void test_report_not_written_by_forked_child(void **state)
{
	const char *path = "report_fork.json";
	int x = 1;
	int status;
	pid_t pid;
	(void)state;

	unlink(path);
	setenv("FLOWDPA_REPORT", path, 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_non_null(core_report_register("parent_section", queue_section_int, &x));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (core_report_write() != DOCA_SUCCESS)
			_exit(4);
		exit(0); /* runs the report's atexit handler */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(access(path, F_OK), -1); /* the child wrote nothing */
	assert_int_equal(core_report_write(), DOCA_SUCCESS);
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	unsetenv("FLOWDPA_REPORT");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_at_exit),
		cmocka_unit_test(test_report_off),
		cmocka_unit_test(test_report_bad_arguments),
		cmocka_unit_test(test_report_unwritable_path),
		cmocka_unit_test(test_report_to_stderr),
		cmocka_unit_test(test_report_unregister_twice),
		cmocka_unit_test(test_report_not_written_by_forked_child),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
