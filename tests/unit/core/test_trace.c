/*
 * Unit tests: FLOWDPA_TRACE writes a Chrome/Perfetto trace that loads as JSON, at a
 * normal exit and after a crash signal; nothing is written when it is unset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/core_internal.h"
#include "test_support.h"

static void *traced_thread(void *arg)
{
	(void)arg;
	core_trace_thread_name(1, "dpa thread 0");
	for (int i = 0; i < 1000; i++) {
		uint64_t t0 = core_trace_now_us();

		core_trace_complete(1, "dpa", "kernel_run", t0, core_trace_now_us() - t0, "{\"rank\":0}");
	}
	return NULL;
}

/* Child body: trace from two threads, then exit normally or crash. */
static void child_trace(const char *path, bool crash)
{
	pthread_t t;

	test_clear_flowdpa_env();
	setenv("FLOWDPA_DEVICES", "bf3,bf2", 1);
	setenv("FLOWDPA_TRACE", path, 1);
	if (core_config_reload() != DOCA_SUCCESS || !core_trace_enabled())
		_exit(3);
	core_trace_thread_name(0, "main \"host\" thread");
	core_trace_instant(0, "provider", "doca_flow_dpa_init", "{\"ctx\":1}");
	pthread_create(&t, NULL, traced_thread, NULL);
	pthread_join(t, NULL);
	core_trace_complete(0, "host", "name with \"quotes\" and \\", core_trace_now_us(), 5, NULL);
	if (crash) {
		core_trace_instant(0, "host", "before_crash", NULL);
		raise(SIGSEGV);
	}
	exit(0);
}

static int run_child(const char *path, bool crash)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		child_trace(path, crash);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void check(const char *path, const char *names)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "\"%s\" \"%s\" trace \"%s\" %s", getenv("FLOWDPA_TEST_PYTHON"),
		 getenv("FLOWDPA_TEST_CHECK_JSON"), path, names);
	assert_int_equal(system(cmd), 0);
}

static void test_trace_at_exit(void **state)
{
	const char *path = "trace_exit.json";
	int status;
	(void)state;

	unlink(path);
	status = run_child(path, false);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check(path, "doca_flow_dpa_init kernel_run 'name with \"quotes\" and \\'");
}

static void test_trace_survives_crash(void **state)
{
	const char *path = "trace_crash.json";
	int status;
	(void)state;

	unlink(path);
	status = run_child(path, true);
	assert_true(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0));
	check(path, "before_crash");
}

static void test_unset_writes_nothing(void **state)
{
	struct stat st;
	(void)state;

	test_clear_flowdpa_env();
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_false(core_trace_enabled());
	core_trace_instant(0, "x", "y", NULL); /* a no-op */
	assert_int_equal(stat("trace_unset.json", &st), -1);
}

static void test_unwritable_path(void **state)
{
	(void)state;
	test_clear_flowdpa_env();
	setenv("FLOWDPA_TRACE", "/nonexistent/dir/t.json", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_false(core_trace_enabled()); /* told on stderr, program goes on */
	unsetenv("FLOWDPA_TRACE");
	core_config_reload();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_at_exit),
		cmocka_unit_test(test_trace_survives_crash),
		cmocka_unit_test(test_unset_writes_nothing),
		cmocka_unit_test(test_unwritable_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
