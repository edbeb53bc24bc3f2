/*
 * Unit tests: doca_log sources, backends, per-backend and global level windows, SDK
 * streams, the standard backend's stdout/stderr split, DOCA_LOG_LEVEL, record format,
 * rate limiting and whole lines under concurrency.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <doca_log.h>

#include "core/core_internal.h"
#include "test_support.h"

DOCA_LOG_REGISTER(TEST::LOG);

#define CAP_LINES 640
struct capture {
	char lines[CAP_LINES][512];
	int n;
};
static struct capture app_cap, sdk_cap;
static char app_buf[600], sdk_buf[600];

static void app_flush(char *buf)
{
	if (app_cap.n < CAP_LINES)
		snprintf(app_cap.lines[app_cap.n++], sizeof(app_cap.lines[0]), "%s", buf);
}

static void sdk_flush(char *buf)
{
	if (sdk_cap.n < CAP_LINES)
		snprintf(sdk_cap.lines[sdk_cap.n++], sizeof(sdk_cap.lines[0]), "%s", buf);
}

static struct doca_log_backend *app_be, *sdk_be;

/* openlog(3) seen by the test (core is linked statically, so this one is called), then
 * passed on to the C library's. */
static const char *openlog_ident;
static int openlog_calls;

void openlog(const char *ident, int option, int facility)
{
	void (*real)(const char *, int, int) = (void (*)(const char *, int, int))dlsym(RTLD_NEXT, "openlog");

	openlog_ident = ident;
	openlog_calls++;
	if (real != NULL)
		real(ident, option, facility);
}

static int setup(void **state)
{
	(void)state;
	unsetenv("DOCA_LOG_LEVEL");
	core_log_env_reset();
	memset(&app_cap, 0, sizeof(app_cap));
	memset(&sdk_cap, 0, sizeof(sdk_cap));
	assert_int_equal(doca_log_backend_create_with_buf(app_buf, sizeof(app_buf), app_flush, &app_be), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &sdk_be),
			 DOCA_SUCCESS);
	return 0;
}

static bool captured(const struct capture *c, const char *needle)
{
	for (int i = 0; i < c->n; i++)
		if (strstr(c->lines[i], needle))
			return true;
	return false;
}

static void emit_all_levels(void)
{
	DOCA_LOG_CRIT("m-crit");
	DOCA_LOG_ERR("m-err");
	DOCA_LOG_WARN("m-warn");
	DOCA_LOG_INFO("m-info");
	DOCA_LOG_DBG("m-dbg");
	DOCA_LOG(DOCA_LOG_LEVEL_TRACE, "m-trace");
}

static void test_default_window_is_crit_to_info(void **state)
{
	(void)state;
	emit_all_levels();
	assert_int_equal(app_cap.n, 4);
	assert_true(captured(&app_cap, "m-crit") && captured(&app_cap, "m-info"));
	assert_false(captured(&app_cap, "m-dbg") || captured(&app_cap, "m-trace"));
	assert_int_equal(sdk_cap.n, 0); /* application records never reach SDK backends */
}

static void test_backend_lower_and_upper_limits(void **state)
{
	(void)state;
	assert_int_equal(doca_log_backend_set_level_lower_limit(app_be, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_upper_limit(app_be, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	emit_all_levels();
	assert_int_equal(app_cap.n, 4);
	assert_false(captured(&app_cap, "m-crit") || captured(&app_cap, "m-err"));
	assert_true(captured(&app_cap, "m-warn") && captured(&app_cap, "m-trace"));
}

static void test_disable_prints_nothing(void **state)
{
	(void)state;
	assert_int_equal(doca_log_backend_set_level_lower_limit(app_be, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	emit_all_levels();
	assert_int_equal(app_cap.n, 0);
}

static void test_global_limits_and_strict(void **state)
{
	struct doca_log_backend *second;
	(void)state;

	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(app_be), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_DEBUG);
	emit_all_levels();
	assert_false(captured(&app_cap, "m-dbg")); /* frozen at INFO */
	/* A frozen side refuses direct changes too, and says why on the SDK stream. */
	assert_int_equal(doca_log_backend_set_level_lower_limit(app_be, DOCA_LOG_LEVEL_TRACE), DOCA_ERROR_BAD_STATE);
	assert_true(captured(&sdk_cap, "frozen"));
	/* A new backend takes the global default (DEBUG now) */
	{
		char path[] = "/tmp/flowdpa-second-XXXXXX";
		int fd = mkstemp(path);
		char text[2048] = {0};

		assert_int_equal(doca_log_backend_create_with_fd(fd, &second), DOCA_SUCCESS);
		DOCA_LOG_DBG("second-gets-debug");
		lseek(fd, 0, SEEK_SET);
		assert_true(read(fd, text, sizeof(text) - 1) > 0);
		assert_non_null(strstr(text, "second-gets-debug"));
		close(fd);
		unlink(path);
	}
	/* Upper side: global move applies, a frozen upper side does not move. */
	assert_int_equal(doca_log_backend_set_level_upper_limit_strict(second), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_ERROR);
	assert_int_equal(doca_log_backend_set_level_upper_limit(second, DOCA_LOG_LEVEL_CRIT), DOCA_ERROR_BAD_STATE);
	app_cap.n = 0;
	DOCA_LOG_CRIT("crit-beyond-upper");
	DOCA_LOG_ERR("err-after-upper");
	assert_false(captured(&app_cap, "crit-beyond-upper"));
	assert_true(captured(&app_cap, "err-after-upper"));
}

static void test_sdk_levels(void **state)
{
	(void)state;
	CORE_LOG_DBG("sdk-dbg-hidden");
	CORE_LOG_INFO("sdk-info");
	assert_int_equal(sdk_cap.n, 1);
	assert_int_equal(doca_log_backend_set_sdk_level(sdk_be, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	assert_true(core_log_sdk_enabled(DOCA_LOG_LEVEL_TRACE));
	CORE_LOG_TRC("sdk-trace");
	assert_true(captured(&sdk_cap, "sdk-trace"));
	/* The nvqual pattern: silence expected failures, then restore. */
	assert_int_equal(doca_log_backend_set_sdk_level(sdk_be, DOCA_LOG_LEVEL_CRIT), DOCA_SUCCESS);
	CORE_LOG_ERR("sdk-err-silenced");
	assert_false(captured(&sdk_cap, "sdk-err-silenced"));
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_WARNING);
	CORE_LOG_WARN("sdk-warn");
	CORE_LOG_INFO("sdk-info-hidden");
	assert_true(captured(&sdk_cap, "sdk-warn"));
	assert_false(captured(&sdk_cap, "sdk-info-hidden"));
	assert_int_equal(app_cap.n, 0); /* SDK records never reach application backends */
}

/* The call fails with the code and says so in exactly one SDK line naming the API. */
#define EXPECT_ONE_LINE(call, code, name) \
	do { \
		sdk_cap.n = 0; \
		assert_int_equal((call), (code)); \
		assert_int_equal(sdk_cap.n, 1); \
		assert_non_null(strstr(sdk_cap.lines[0], name)); \
		assert_non_null(strstr(sdk_cap.lines[0], "[ERR]")); \
	} while (0)

static void test_bad_inputs(void **state)
{
	struct doca_log_backend *b;
	int src;
	(void)state;

	EXPECT_ONE_LINE(doca_log_backend_set_level_lower_limit(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_set_level_lower_limit");
	EXPECT_ONE_LINE(doca_log_backend_set_level_lower_limit(app_be, 55), DOCA_ERROR_INVALID_VALUE, "10..70");
	EXPECT_ONE_LINE(doca_log_backend_set_level_upper_limit(app_be, 0), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_set_level_upper_limit");
	EXPECT_ONE_LINE(doca_log_backend_set_level_upper_limit((struct doca_log_backend *)&src, DOCA_LOG_LEVEL_INFO),
			DOCA_ERROR_INVALID_VALUE, "not a log backend");
	EXPECT_ONE_LINE(doca_log_backend_set_level_lower_limit(sdk_be, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE,
			"SDK backend");
	EXPECT_ONE_LINE(doca_log_backend_set_sdk_level(app_be, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE,
			"not an SDK backend");
	EXPECT_ONE_LINE(doca_log_backend_set_sdk_level(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_set_sdk_level");
	EXPECT_ONE_LINE(doca_log_backend_set_sdk_level(sdk_be, 71), DOCA_ERROR_INVALID_VALUE, "10..70");
	EXPECT_ONE_LINE(doca_log_level_set_global_lower_limit(80), DOCA_ERROR_INVALID_VALUE,
			"doca_log_level_set_global_lower_limit");
	EXPECT_ONE_LINE(doca_log_level_set_global_upper_limit(9), DOCA_ERROR_INVALID_VALUE,
			"doca_log_level_set_global_upper_limit");
	EXPECT_ONE_LINE(doca_log_level_set_global_sdk_limit(5), DOCA_ERROR_INVALID_VALUE,
			"doca_log_level_set_global_sdk_limit");
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO); /* state intact */
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_INFO);
	EXPECT_ONE_LINE(doca_log_backend_create_with_file(NULL, &b), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_file");
	EXPECT_ONE_LINE(doca_log_backend_create_with_file(stdout, NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_file");
	EXPECT_ONE_LINE(doca_log_backend_create_with_fd(-1, &b), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_fd");
	EXPECT_ONE_LINE(doca_log_backend_create_with_buf(NULL, 10, app_flush, &b), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_buf");
	EXPECT_ONE_LINE(doca_log_backend_create_with_buf(app_buf, 0, app_flush, &b), DOCA_ERROR_INVALID_VALUE,
			"capacity");
	EXPECT_ONE_LINE(doca_log_backend_create_with_buf_sdk(app_buf, 10, NULL, &b), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_buf_sdk");
	EXPECT_ONE_LINE(doca_log_backend_create_with_syslog(NULL, &b), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_syslog");
	EXPECT_ONE_LINE(doca_log_backend_create_with_syslog_sdk(NULL, &b), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_syslog_sdk");
	EXPECT_ONE_LINE(doca_log_backend_create_with_fd_sdk(-3, &b), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_fd_sdk");
	EXPECT_ONE_LINE(doca_log_backend_create_with_file_sdk(NULL, &b), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_create_with_file_sdk");
	EXPECT_ONE_LINE(doca_log_register_source(NULL, &src), DOCA_ERROR_INVALID_VALUE, "doca_log_register_source");
	EXPECT_ONE_LINE(doca_log_register_source("X", NULL), DOCA_ERROR_INVALID_VALUE, "doca_log_register_source");
	EXPECT_ONE_LINE(doca_log_unregister_source(-1), DOCA_ERROR_INVALID_VALUE, "doca_log_unregister_source");
	EXPECT_ONE_LINE(doca_log(DOCA_LOG_LEVEL_DISABLE, log_source, "f.c", 1, "f", "x"), DOCA_ERROR_INVALID_VALUE,
			"doca_log: level 10");
	EXPECT_ONE_LINE(doca_log(45, log_source, "f.c", 1, "f", "x"), DOCA_ERROR_INVALID_VALUE, "doca_log: level 45");
	{
		const char *volatile no_format = NULL;

		EXPECT_ONE_LINE(doca_log(DOCA_LOG_LEVEL_ERROR, log_source, "f.c", 1, "f", no_format, 1),
				DOCA_ERROR_INVALID_VALUE, "format must not be NULL");
	}
	EXPECT_ONE_LINE(doca_log_backend_set_level_lower_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_set_level_lower_limit_strict");
	EXPECT_ONE_LINE(doca_log_backend_set_level_upper_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_set_level_upper_limit_strict");
	EXPECT_ONE_LINE(doca_log_backend_set_level_upper_limit_strict(sdk_be), DOCA_ERROR_INVALID_VALUE,
			"SDK backend");
	assert_int_equal(app_cap.n, 0); /* nothing reached the application stream */
	/* The refused per-backend calls left app_be's own window at INFO..CRIT, unfrozen. */
	emit_all_levels();
	assert_int_equal(app_cap.n, 4);
	assert_true(captured(&app_cap, "m-crit") && captured(&app_cap, "m-info"));
	assert_false(captured(&app_cap, "m-dbg"));
	assert_int_equal(doca_log_backend_set_level_lower_limit(app_be, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_upper_limit(app_be, DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
}

/* 64 backends at most; a pair (the standard backend) goes in whole or not at all. */
static void test_backend_table_full(void **state)
{
	struct doca_log_backend *b;
	(void)state;

	for (int made = 2; made < 63; made++) /* setup made two */
		assert_int_equal(doca_log_backend_create_with_buf(app_buf, sizeof(app_buf), app_flush, &b),
				 DOCA_SUCCESS);
	EXPECT_ONE_LINE(doca_log_backend_create_standard(), DOCA_ERROR_FULL, "all 64 backend slots");
	/* Neither half of the pair took the 64th slot. */
	assert_int_equal(doca_log_backend_create_with_buf(app_buf, sizeof(app_buf), app_flush, &b), DOCA_SUCCESS);
	b = NULL;
	EXPECT_ONE_LINE(doca_log_backend_create_with_buf(app_buf, sizeof(app_buf), app_flush, &b), DOCA_ERROR_FULL,
			"all 64 backend slots");
	assert_null(b);
	EXPECT_ONE_LINE(doca_log_backend_create_with_file_sdk(stderr, &b), DOCA_ERROR_FULL, "all 64 backend slots");
	/* What exists keeps working: one record per application backend, SDK as before. */
	app_cap.n = 0;
	DOCA_LOG_ERR("after full");
	assert_int_equal(app_cap.n, 63);
	EXPECT_ONE_LINE(doca_log_backend_set_sdk_level(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE,
			"doca_log_backend_set_sdk_level");
}

/* 1024 sources at most; the next registration is FULL and changes nothing. */
static void test_source_table_full(void **state)
{
	static int ids[1024];
	int first, n = 0, extra = -5;
	(void)state;

	assert_int_equal(doca_log_register_source("FILL", &first), DOCA_SUCCESS);
	ids[n++] = first;
	while (n < 1024 - first)
		assert_int_equal(doca_log_register_source("FILL", &ids[n++]), DOCA_SUCCESS);
	EXPECT_ONE_LINE(doca_log_register_source("ONE::TOO::MANY", &extra), DOCA_ERROR_FULL, "all 1024 source slots");
	assert_int_equal(extra, -5); /* untouched */
	doca_log(DOCA_LOG_LEVEL_ERROR, ids[n - 1], "f.c", 1, "f", "last source logs");
	assert_true(captured(&app_cap, "[FILL][f.c:1][f] last source logs"));
	for (int i = 0; i < n; i++)
		assert_int_equal(doca_log_unregister_source(ids[i]), DOCA_SUCCESS);
	assert_int_equal(doca_log_register_source("AGAIN", &extra), DOCA_SUCCESS);
	assert_int_equal(extra, first);
	assert_int_equal(doca_log_unregister_source(extra), DOCA_SUCCESS);
}

static void test_sources(void **state)
{
	int a, b;
	(void)state;

	assert_int_equal(doca_log_register_source("ALPHA::ONE", &a), DOCA_SUCCESS);
	assert_int_equal(doca_log_register_source("BETA", &b), DOCA_SUCCESS);
	assert_int_not_equal(a, b);
	doca_log(DOCA_LOG_LEVEL_ERROR, a, "/x/y/file.c", 42, "fn", "via %s", "alpha");
	assert_true(captured(&app_cap, "[ALPHA::ONE][file.c:42][fn] via alpha"));
	assert_int_equal(doca_log_unregister_source(a), DOCA_SUCCESS);
	EXPECT_ONE_LINE(doca_log_unregister_source(a), DOCA_ERROR_NOT_FOUND, "no such source");
	/* a record for a source that went away still prints, with "?" for its name */
	doca_log(DOCA_LOG_LEVEL_ERROR, a, "g.c", 1, "g", "orphan");
	assert_true(captured(&app_cap, "[?][g.c:1][g] orphan"));
	assert_int_equal(doca_log_unregister_source(b), DOCA_SUCCESS);
}

static void test_record_format(void **state)
{
	regex_t re;
	(void)state;

	DOCA_LOG_WARN("format check %d\n", 7);
	assert_int_equal(app_cap.n, 1);
	assert_int_equal(regcomp(&re,
				 "^\\[[0-9]{2}:[0-9]{2}:[0-9]{2}:[0-9]{6}\\]\\[[0-9]+\\]\\[DOCA\\]\\[WRN\\]\\[TEST::LOG\\]"
				 "\\[test_log\\.c:[0-9]+\\]\\[test_record_format\\] format check 7$",
				 REG_EXTENDED | REG_NOSUB),
			 0);
	assert_int_equal(regexec(&re, app_cap.lines[0], 0, NULL, 0), 0);
	regfree(&re);
}

static void test_level_parse(void **state)
{
	static const struct {
		const char *text;
		uint32_t level;
	} good[] = {
		{"trace", 70}, {"TRACE", 70}, {"debug", 60}, {"dbg", 60},  {"info", 50},     {"warning", 40},
		{"warn", 40},  {"error", 30}, {"err", 30},   {"crit", 20}, {"disable", 10}, {"10", 10},
		{"50", 50},    {"70", 70},
	};
	static const char *const bad[] = {"", "loud", "55", "0", "80", "-10", "50x", "info ", "1e1", " 50", "+50"};
	uint32_t level;
	(void)state;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(core_log_level_parse(good[i].text, &level), DOCA_SUCCESS);
		assert_int_equal(level, good[i].level);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(core_log_level_parse(bad[i], &level), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(core_log_level_parse(NULL, &level), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(core_log_level_parse("info", NULL), DOCA_ERROR_INVALID_VALUE);
}

static void env_trace_then_reset(void *arg)
{
	(void)arg;
	setenv("DOCA_LOG_LEVEL", "trace", 1);
	core_log_env_reset();
}

static void env_bad_then_reset(void *arg)
{
	(void)arg;
	setenv("DOCA_LOG_LEVEL", "loud", 1);
	core_log_env_reset();
}

static void test_env_level(void **state)
{
	struct doca_log_backend *b;
	const char *err;
	(void)state;

	test_capture_stderr(env_trace_then_reset, NULL);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_TRACE);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_TRACE);
	memset(&sdk_cap, 0, sizeof(sdk_cap));
	assert_int_equal(doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &b), DOCA_SUCCESS);
	CORE_LOG_TRC("visible under DOCA_LOG_LEVEL=trace");
	assert_true(captured(&sdk_cap, "visible under"));
	/* An explicit call made by the program later wins over the variable. */
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_ERROR);

	err = test_capture_stderr(env_bad_then_reset, NULL);
	assert_non_null(strstr(err, "DOCA_LOG_LEVEL=\"loud\" is not a log level"));
	assert_non_null(strchr(err, '\n'));
	assert_null(strchr(strchr(err, '\n') + 1, '\n')); /* exactly one line */
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO); /* defaults kept */
	unsetenv("DOCA_LOG_LEVEL");
}

static void env_then_reset(void *level)
{
	setenv("DOCA_LOG_LEVEL", level, 1);
	core_log_env_reset();
}

/* DOCA_LOG_LEVEL is a floor under the SDK levels a program sets: the samples' boilerplate
 * (SDK backend at WARNING) must not hide what DOCA_LOG_LEVEL=trace asks for. */
static void test_env_level_is_sdk_floor(void **state)
{
	struct doca_log_backend *b;
	(void)state;

	test_capture_stderr(env_then_reset, "trace");
	memset(&sdk_cap, 0, sizeof(sdk_cap));
	assert_int_equal(doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	CORE_LOG_TRC("trace despite the boilerplate");
	assert_true(captured(&sdk_cap, "trace despite the boilerplate"));
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_CRIT), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_TRACE);
	CORE_LOG_DBG("debug despite a global CRIT");
	assert_true(captured(&sdk_cap, "debug despite a global CRIT"));

	/* A floor, not a ceiling: more verbose than the variable is still allowed. */
	test_capture_stderr(env_then_reset, "warning");
	memset(&sdk_cap, 0, sizeof(sdk_cap));
	assert_int_equal(doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &b), DOCA_SUCCESS);
	CORE_LOG_INFO("info under warning");
	assert_false(captured(&sdk_cap, "info under warning"));
	assert_int_equal(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	CORE_LOG_TRC("trace when asked for");
	assert_true(captured(&sdk_cap, "trace when asked for"));
	assert_int_equal(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_CRIT), DOCA_SUCCESS);
	CORE_LOG_WARN("warning kept by the floor");
	CORE_LOG_INFO("info hidden again");
	assert_true(captured(&sdk_cap, "warning kept by the floor"));
	assert_false(captured(&sdk_cap, "info hidden again"));

	/* Unset: the program's call is the last word again. */
	unsetenv("DOCA_LOG_LEVEL");
	core_log_env_reset();
	memset(&sdk_cap, 0, sizeof(sdk_cap));
	assert_int_equal(doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_CRIT), DOCA_SUCCESS);
	CORE_LOG_ERR("silenced without the variable");
	assert_int_equal(sdk_cap.n, 0);
}

static void standard_and_log(void *arg)
{
	(void)arg;
	core_log_env_reset();
	assert_int_equal(doca_log_backend_create_standard(), DOCA_SUCCESS);
	DOCA_LOG_INFO("to-stdout");
	DOCA_LOG_ERR("to-stderr");
	DOCA_LOG_DBG("nowhere");
	/* The split stays put when the global window moves: WARNING never goes to stdout,
	 * DEBUG never to stderr. */
	doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG);
	DOCA_LOG_DBG("debug-to-stdout");
	DOCA_LOG_WARN("warn-to-stderr");
	doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR);
	DOCA_LOG_WARN("warn-now-hidden");
	DOCA_LOG_ERR("err-still-shown");
}

static char stdout_text[16384];
static void standard_capture_stdout(void *arg)
{
	(void)arg;
	snprintf(stdout_text, sizeof(stdout_text), "%s", test_capture_fd(1, standard_and_log, NULL));
}

static void test_standard_backend_split(void **state)
{
	const char *err;
	(void)state;

	err = test_capture_stderr(standard_capture_stdout, NULL);
	assert_non_null(strstr(stdout_text, "to-stdout"));
	assert_null(strstr(stdout_text, "to-stderr"));
	assert_non_null(strstr(err, "to-stderr"));
	assert_null(strstr(err, "to-stdout"));
	assert_null(strstr(stdout_text, "nowhere"));
	assert_null(strstr(err, "nowhere"));
	assert_non_null(strstr(stdout_text, "debug-to-stdout"));
	assert_null(strstr(err, "debug-to-stdout"));
	assert_non_null(strstr(err, "warn-to-stderr"));
	assert_null(strstr(stdout_text, "warn-to-stderr"));
	assert_null(strstr(err, "warn-now-hidden"));
	assert_non_null(strstr(err, "err-still-shown"));
}

static void sdk_without_backend(void *arg)
{
	(void)arg;
	core_log_env_reset(); /* no SDK backend at all */
	CORE_LOG_ERR("library error with no sdk backend");
	CORE_LOG_DBG("library debug hidden");
}

static void test_sdk_falls_back_to_stderr(void **state)
{
	const char *err;
	(void)state;

	err = test_capture_stderr(sdk_without_backend, NULL);
	assert_non_null(strstr(err, "library error with no sdk backend"));
	assert_null(strstr(err, "library debug hidden"));
}

static void test_fd_and_file_backends(void **state)
{
	char path[] = "/tmp/flowdpa-logfd-XXXXXX";
	int fd = mkstemp(path);
	struct doca_log_backend *b;
	char text[1024] = {0};
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(doca_log_backend_create_with_fd(fd, &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	DOCA_LOG_DBG("fd-line");
	lseek(fd, 0, SEEK_SET);
	assert_true(read(fd, text, sizeof(text) - 1) > 0);
	assert_non_null(strstr(text, "fd-line\n"));
	close(fd);
	unlink(path);
}

static void test_syslog_backends(void **state)
{
	struct doca_log_backend *b, *s;
	(void)state;

	assert_int_equal(doca_log_backend_create_with_syslog("flowdpa-test", &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_create_with_syslog_sdk("flowdpa-test", &s), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(s, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	/* Records go to syslog(3) (no daemon may listen here; it must not matter) and the
	 * other backends still receive theirs. */
	DOCA_LOG_ERR("beside syslog");
	DOCA_LOG_DBG("debug to syslog only");
	CORE_LOG_WARN("sdk beside syslog");
	assert_true(captured(&app_cap, "beside syslog"));
	assert_false(captured(&app_cap, "debug to syslog only"));
	assert_true(captured(&sdk_cap, "sdk beside syslog"));
}

/* openlog keeps the ident pointer: the log must hand it a copy of its own, and call it
 * only for a backend that was really added. */
static void test_syslog_ident_is_copied(void **state)
{
	char name[32];
	struct doca_log_backend *b;
	(void)state;

	snprintf(name, sizeof(name), "flowdpa-ident");
	openlog_calls = 0;
	assert_int_equal(doca_log_backend_create_with_syslog(name, &b), DOCA_SUCCESS);
	assert_int_equal(openlog_calls, 1);
	assert_ptr_not_equal(openlog_ident, name);
	memset(name, 'x', sizeof(name) - 1); /* the caller reuses its buffer */
	assert_string_equal(openlog_ident, "flowdpa-ident");
	for (int made = 3; made < 64; made++) /* setup's two, the syslog one, then the rest */
		assert_int_equal(doca_log_backend_create_with_buf(app_buf, sizeof(app_buf), app_flush, &b),
				 DOCA_SUCCESS);
	EXPECT_ONE_LINE(doca_log_backend_create_with_syslog_sdk("flowdpa-late", &b), DOCA_ERROR_FULL,
			"backend slots");
	assert_int_equal(openlog_calls, 1); /* no openlog for a backend that does not exist */
	assert_string_equal(openlog_ident, "flowdpa-ident");
}

static void test_rate_limit(void **state)
{
	(void)state;
	for (int i = 0; i < 50; i++)
		DOCA_LOG_RATE_LIMIT_ERR("flood %d", i);
	assert_int_equal(app_cap.n, DOCA_LOG_RATE_LIMIT_BURST);
	assert_true(captured(&app_cap, "flood 0"));
	assert_false(captured(&app_cap, "flood 49"));
	for (int i = 0; i < 50; i++)
		DOCA_LOG_RATE_LIMIT_DBG("filtered %d", i); /* below the window: spends no budget */
	/* Another call site has its own bucket, untouched by the flood above. */
	for (int i = 0; i < 2; i++)
		DOCA_LOG_RATE_LIMIT_ERR("other site %d", i);
	assert_int_equal(app_cap.n, DOCA_LOG_RATE_LIMIT_BURST + 2);
	EXPECT_ONE_LINE(doca_log_rate_bucket_register(log_source, NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_log_rate_bucket_register");
	EXPECT_ONE_LINE(doca_log_rate_limit(DOCA_LOG_LEVEL_ERROR, log_source, "f", 1, "f", -2, "x"),
			DOCA_ERROR_INVALID_VALUE, "doca_log_rate_limit");
	/* -1 (no bucket could be had) logs without limit */
	assert_int_equal(doca_log_rate_limit(DOCA_LOG_LEVEL_ERROR, log_source, "f", 1, "f", -1, "unlimited"),
			 DOCA_SUCCESS);
	assert_true(captured(&app_cap, "unlimited"));
}

static void rate_site(int i)
{
	DOCA_LOG_RATE_LIMIT_WARN("site record %d", i);
}

static void test_rate_limit_reports_suppressed(void **state)
{
	(void)state;
	for (int i = 0; i < 25; i++)
		rate_site(i);
	assert_int_equal(app_cap.n, DOCA_LOG_RATE_LIMIT_BURST);
	usleep((DOCA_LOG_RATE_LIMIT_PERIOD_MS + 50) * 1000);
	rate_site(99);
	assert_true(captured(&app_cap, "site record 99 (15 similar records suppressed)"));
}

/* A buffer handler that calls back into DOCA (which logs) must not hang the program. */
static int reentrant_calls;
static void reentrant_flush(char *buf)
{
	(void)buf;
	reentrant_calls++;
	doca_log_backend_set_sdk_level(NULL, DOCA_LOG_LEVEL_INFO); /* fails and logs */
}

static void test_reentrant_handler(void **state)
{
	static char buf[512];
	struct doca_log_backend *b;
	(void)state;

	assert_int_equal(doca_log_backend_create_with_buf(buf, sizeof(buf), reentrant_flush, &b), DOCA_SUCCESS);
	DOCA_LOG_ERR("outer record");
	assert_int_equal(reentrant_calls, 1);
	assert_true(captured(&app_cap, "outer record"));
	DOCA_LOG_ERR("next record works");
	assert_true(captured(&app_cap, "next record works"));
}

#define LOG_THREADS 8
#define LOG_PER_THREAD 200
static void *log_worker(void *arg)
{
	for (int i = 0; i < LOG_PER_THREAD; i++)
		DOCA_LOG_INFO("worker %ld record %d end", (long)(intptr_t)arg, i);
	return NULL;
}

static void test_concurrent_records_are_whole_lines(void **state)
{
	char path[] = "/tmp/flowdpa-logmt-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w+");
	struct doca_log_backend *b;
	pthread_t t[LOG_THREADS];
	char line[1024];
	int lines = 0;
	(void)state;

	assert_non_null(f);
	assert_int_equal(doca_log_backend_create_with_file(f, &b), DOCA_SUCCESS);
	for (long i = 0; i < LOG_THREADS; i++)
		pthread_create(&t[i], NULL, log_worker, (void *)(intptr_t)i);
	for (int i = 0; i < LOG_THREADS; i++)
		pthread_join(t[i], NULL);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		assert_non_null(strstr(line, "[DOCA][INF]"));
		assert_non_null(strstr(line, " end\n"));
		lines++;
	}
	assert_int_equal(lines, LOG_THREADS * LOG_PER_THREAD);
	fclose(f);
	unlink(path);
}

/* Rate-limited call sites registering their buckets while other sites already log
 * through theirs (TSan: the bucket count is only read under the lock). */
#define RATE_THREADS 8
static pthread_barrier_t rate_barrier;

#define RATE_SITES 16
#define RATE_SITE(k, level) \
	case k: \
		DOCA_LOG_RATE_LIMIT_##level("rate race " #k " %ld", id); \
		break;

static void *rate_worker(void *arg)
{
	long id = (long)(intptr_t)arg;

	pthread_barrier_wait(&rate_barrier);
	for (int i = 0; i < 64; i++) {
		switch ((id + i) % RATE_SITES) {
			RATE_SITE(0, ERR)
			RATE_SITE(1, WARN)
			RATE_SITE(2, INFO)
			RATE_SITE(3, CRIT)
			RATE_SITE(4, ERR)
			RATE_SITE(5, WARN)
			RATE_SITE(6, INFO)
			RATE_SITE(7, CRIT)
			RATE_SITE(8, ERR)
			RATE_SITE(9, WARN)
			RATE_SITE(10, INFO)
			RATE_SITE(11, CRIT)
			RATE_SITE(12, ERR)
			RATE_SITE(13, WARN)
			RATE_SITE(14, INFO)
		default:
			DOCA_LOG_RATE_LIMIT_CRIT("rate race 15 %ld", id);
			break;
		}
	}
	return NULL;
}

static void test_rate_limit_concurrent_sites(void **state)
{
	pthread_t t[RATE_THREADS];
	(void)state;

	pthread_barrier_init(&rate_barrier, NULL, RATE_THREADS);
	for (long i = 0; i < RATE_THREADS; i++)
		pthread_create(&t[i], NULL, rate_worker, (void *)(intptr_t)i);
	for (int i = 0; i < RATE_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&rate_barrier);
	/* Each site is called 32 times: it let at least its first burst through (more when a
	 * slow run spans a new period) and never more than it was called. */
	for (int i = 0; i < RATE_SITES; i++) {
		char needle[32];
		int n = 0;

		snprintf(needle, sizeof(needle), "rate race %d ", i);
		for (int l = 0; l < app_cap.n; l++)
			n += strstr(app_cap.lines[l], needle) != NULL;
		assert_in_range(n, DOCA_LOG_RATE_LIMIT_BURST, RATE_THREADS * 64 / RATE_SITES);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_default_window_is_crit_to_info, setup),
		cmocka_unit_test_setup(test_backend_lower_and_upper_limits, setup),
		cmocka_unit_test_setup(test_disable_prints_nothing, setup),
		cmocka_unit_test_setup(test_global_limits_and_strict, setup),
		cmocka_unit_test_setup(test_sdk_levels, setup),
		cmocka_unit_test_setup(test_bad_inputs, setup),
		cmocka_unit_test_setup(test_sources, setup),
		cmocka_unit_test_setup(test_record_format, setup),
		cmocka_unit_test_setup(test_level_parse, setup),
		cmocka_unit_test_setup(test_env_level, setup),
		cmocka_unit_test_setup(test_standard_backend_split, setup),
		cmocka_unit_test_setup(test_sdk_falls_back_to_stderr, setup),
		cmocka_unit_test_setup(test_fd_and_file_backends, setup),
		cmocka_unit_test_setup(test_syslog_backends, setup),
		cmocka_unit_test_setup(test_rate_limit, setup),
		cmocka_unit_test_setup(test_rate_limit_reports_suppressed, setup),
		cmocka_unit_test_setup(test_reentrant_handler, setup),
		cmocka_unit_test_setup(test_concurrent_records_are_whole_lines, setup),
		cmocka_unit_test_setup(test_backend_table_full, setup),
		cmocka_unit_test_setup(test_source_table_full, setup),
		cmocka_unit_test_setup(test_env_level_is_sdk_floor, setup),
		cmocka_unit_test_setup(test_syslog_ident_is_copied, setup),
		cmocka_unit_test_setup(test_rate_limit_concurrent_sites, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
