/*
 * Unit tests: FLOWDPA_TRACE writes a Chrome/Perfetto trace that loads as JSON, at a
 * normal exit and after a crash signal; nothing is written when it is unset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
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

	/* The crash is the child's alone: after the trace's handler it ends the process, not
	 * in cmocka's handler inherited from the parent, which reports a failed test and
	 * allocates inside the signal (ThreadSanitizer says so, 27 times). */
	signal(SIGSEGV, SIG_DFL);
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
	{
		/* A name longer than the event buffer's name field is cut, the file stays JSON. */
		char longname[400];

		memset(longname, 'n', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		longname[100] = '"';
		core_trace_complete(0, "host", longname, core_trace_now_us(), 1, NULL);
	}
	{
		/* A forked child neither appends to nor finishes the parent's file. */
		pid_t child;

		core_trace_instant(0, "host", "before_fork", NULL);
		child = fork();
		if (child == 0) {
			core_trace_instant(0, "host", "in_child", NULL);
			exit(0);
		}
		waitpid(child, NULL, 0);
	}
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

static int count_in_file_text(const char *text, const char *needle)
{
	int count = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		count++;
	return count;
}

static int count_in_file(const char *path, const char *needle)
{
	static char text[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n;
	int count = 0;

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		count++;
	return count;
}

static void check(const char *path, const char *names)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "\"%s\" \"%s\" trace \"%s\" %s", getenv("FLOWDPA_TEST_PYTHON"),
		 getenv("FLOWDPA_TEST_CHECK_JSON"), path, names);
	assert_int_equal(system(cmd), 0);
}

/* The host-call events (one per result kind), a counter track and thread naming. */
static void test_call_events_counters_and_names(void **state)
{
	const char *path = "trace_calls.json";
	int status;
	pid_t pid;
	(void)state;

	unlink(path);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char os[32] = "";

		test_clear_flowdpa_env();
		setenv("FLOWDPA_TRACE", path, 1);
		if (core_config_reload() != DOCA_SUCCESS)
			_exit(3);
		uint64_t t0 = core_trace_now_us();

		core_trace_call_error("api", "doca_call_failed", t0, DOCA_ERROR_INVALID_VALUE);
		core_trace_call_error("api", "doca_call_ok", t0, DOCA_SUCCESS);
		core_trace_call_integer("api", "doca_call_count", t0, 7);
		core_trace_call_pointer("api", "doca_call_null", t0, NULL);
		core_trace_call_void("api", "doca_call_void", t0);
		core_trace_counter(1, "port 0 packets", "{\"rx\":32,\"tx\":30,\"drop\":2}");
		/* The OS name is cut to 15 characters, the trace keeps the full one. */
		core_thread_name(1, "dpa:a_long_kernel_name/12", "dpa:a_long_kernel_name/12");
		pthread_getname_np(pthread_self(), os, sizeof(os));
		exit(strcmp(os, "dpa:a_long_kern") == 0 ? 0 : 4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check(path, "doca_call_failed doca_call_ok doca_call_count doca_call_null doca_call_void");
	assert_int_equal(count_in_file(path, "\"cat\":\"api\""), 5);
	assert_int_equal(count_in_file(path, "\"args\":{\"result\":\"DOCA_ERROR_INVALID_VALUE\"}"), 1);
	assert_int_equal(count_in_file(path, "\"args\":{\"result\":\"DOCA_SUCCESS\"}"), 1);
	assert_int_equal(count_in_file(path, "\"args\":{\"result\":7}"), 1);
	assert_int_equal(count_in_file(path, "\"args\":{\"result\":null}"), 1);
	assert_int_equal(count_in_file(path, "\"name\":\"doca_call_void\",\"cat\":\"api\",\"ph\":\"X\""), 1);
	assert_int_equal(count_in_file(path, "\"ph\":\"C\",\"ts\""), 1);
	assert_int_equal(count_in_file(path, "{\"rx\":32,\"tx\":30,\"drop\":2}"), 1);
	assert_int_equal(count_in_file(path, "{\"name\":\"dpa:a_long_kernel_name/12\"}"), 1);
	assert_int_equal(count_in_file(path, "\"name\":\"main (test_core_trace)\""), 1);
}

static void test_trace_at_exit(void **state)
{
	const char *path = "trace_exit.json";
	int status;
	(void)state;

	unlink(path);
	status = run_child(path, false);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check(path, "doca_flow_dpa_init kernel_run before_fork 'name with \"quotes\" and \\'");
	assert_int_equal(count_in_file(path, "before_fork"), 1);
	assert_int_equal(count_in_file(path, "in_child"), 0);
	assert_int_equal(count_in_file(path, "\"kernel_run\""), 1000);
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

/* Turning tracing off finishes the file; later events are no-ops. */
static void test_unset_stops_tracing(void **state)
{
	const char *path = "trace_unset.json";
	(void)state;

	test_clear_flowdpa_env();
	setenv("FLOWDPA_TRACE", path, 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_true(core_trace_enabled());
	core_trace_thread_name(0, "main");
	core_trace_instant(0, "x", "while_on", NULL);
	unsetenv("FLOWDPA_TRACE");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_false(core_trace_enabled());
	core_trace_instant(0, "x", "while_off", NULL);
	check(path, "while_on");
	assert_int_equal(count_in_file(path, "while_off"), 0);
}

/* Enough events to drain the 1 MiB buffer several times. */
static void test_large_trace(void **state)
{
	const char *path = "trace_large.json";
	(void)state;

	test_clear_flowdpa_env();
	setenv("FLOWDPA_TRACE", path, 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	core_trace_thread_name(0, "main");
	for (int i = 0; i < 40000; i++)
		core_trace_complete(1, "nic", "packet_batch", core_trace_now_us(), 3, "{\"pkts\":32}");
	unsetenv("FLOWDPA_TRACE");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	check(path, "packet_batch");
}

static void test_unwritable_path(void **state)
{
	(void)state;
	test_clear_flowdpa_env();
	setenv("FLOWDPA_TRACE", "/nonexistent/dir/t.json", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_false(core_trace_enabled()); /* told on stderr, program goes on */
	unsetenv("FLOWDPA_TRACE");
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* Numbered events from one thread, as fast as it can: the 1 MiB buffer fills and drains. */
static void *numbered_events(void *arg)
{
	(void)arg;
	for (uint64_t i = 0;; i++) {
		char args[48];

		snprintf(args, sizeof(args), "{\"n\":%" PRIu64 "}", i);
		core_trace_instant(0, "host", "numbered", args);
	}
	return NULL;
}

/* Child: trace into a FIFO nobody reads yet, so the event thread's drain blocks in
 * write(2); then a crash signal arrives in the main thread. */
static void child_crash_during_drain(const char *fifo, int notify_fd)
{
	pthread_t t;

	test_clear_flowdpa_env();
	setenv("FLOWDPA_TRACE", fifo, 1);
	if (core_config_reload() != DOCA_SUCCESS || !core_trace_enabled())
		_exit(3);
	core_trace_thread_name(0, "main");
	pthread_create(&t, NULL, numbered_events, NULL);
	usleep(500000); /* the event thread is now stuck draining into the full FIFO */
	if (write(notify_fd, "x", 1) != 1)
		_exit(4);
	raise(SIGTERM);
	_exit(5);
}

/* A crash signal while another thread drains must not write the same bytes twice: every
 * event is in the file once, in order, and the footer closes it. */
static void test_crash_during_drain(void **state)
{
	static char text[4 << 20];
	const char *fifo = "trace_fifo.json";
	const char *path = "trace_drain_crash.json";
	int notify[2];
	int status, fd;
	size_t len = 0;
	ssize_t n;
	char c;
	long prev = -1;
	pid_t pid;
	FILE *f;
	(void)state;

	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(pipe(notify), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(notify[0]);
		child_crash_during_drain(fifo, notify[1]);
	}
	close(notify[1]);
	fd = open(fifo, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(notify[0], &c, 1), 1); /* the signal is being raised */
	close(notify[0]);
	usleep(200000); /* the signal path is now in the race window */
	while ((n = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)n;
	text[len] = '\0';
	close(fd);
	unlink(fifo);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_true(len > (1u << 20)); /* the drained buffer and then some */
	/* Consecutive numbers, each once: no byte range was written twice. */
	for (const char *p = strstr(text, "{\"n\":"); p; p = strstr(p + 1, "{\"n\":")) {
		long v = strtol(p + 5, NULL, 10);

		if (v != prev + 1)
			fail_msg("event %ld follows event %ld", v, prev);
		prev = v;
	}
	assert_true(prev > 1000);
	assert_int_equal(count_in_file_text(text, "\n]}\n"), 1);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	check(path, "numbered");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_at_exit),
		cmocka_unit_test(test_call_events_counters_and_names),
		cmocka_unit_test(test_trace_survives_crash),
		cmocka_unit_test(test_unset_stops_tracing),
		cmocka_unit_test(test_large_trace),
		cmocka_unit_test(test_unwritable_path),
		cmocka_unit_test(test_crash_during_drain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
