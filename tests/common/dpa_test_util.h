/*
 * dpa_test_util.h - helpers for the DPA test suites (unit, integration, lifecycle):
 * open an emulated device, create a started context and started events, wait for a
 * context's fatal error, and capture the SDK log so that a test can check that a
 * refused call logged one clear line. The shared cmocka fixture is in dpa_fixture.h.
 */
#ifndef DPA_TEST_UTIL_H_
#define DPA_TEST_UTIL_H_

/* 1 in a ThreadSanitizer build (gcc or clang), whose runtime some tests cannot run under. */
#if defined(__SANITIZE_THREAD__)
#define DPA_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DPA_TEST_TSAN 1
#endif
#endif
#ifndef DPA_TEST_TSAN
#define DPA_TEST_TSAN 0
#endif

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <stdbool.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_sync_event.h>

#define DPA_TEST_LOG_MAX (64 * 1024)

static char dpa_test_log_rec[4096];
static char dpa_test_log[DPA_TEST_LOG_MAX];
static size_t dpa_test_log_len;
static pthread_mutex_t dpa_test_log_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doca_log_backend *dpa_test_log_stderr;

static void dpa_test_log_flush(char *buf)
{
	pthread_mutex_lock(&dpa_test_log_lock);
	size_t n = strlen(buf);

	if (dpa_test_log_len + n + 2 < sizeof(dpa_test_log)) {
		memcpy(dpa_test_log + dpa_test_log_len, buf, n);
		dpa_test_log_len += n;
		if (n == 0 || buf[n - 1] != '\n')
			dpa_test_log[dpa_test_log_len++] = '\n';
		dpa_test_log[dpa_test_log_len] = '\0';
	}
	pthread_mutex_unlock(&dpa_test_log_lock);
}

/* Route SDK messages (ERROR..level) into the capture buffer; call once per process. */
static inline void dpa_test_log_setup(uint32_t level)
{
	struct doca_log_backend *b = NULL;

	assert_int_equal(doca_log_backend_create_with_buf_sdk(dpa_test_log_rec, sizeof(dpa_test_log_rec),
							       dpa_test_log_flush, &b),
			 DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(b, level), DOCA_SUCCESS);
	/* And keep showing them on stderr, so a failing test's log is in the meson log. */
	struct doca_log_backend *e = NULL;

	if (doca_log_backend_create_with_file_sdk(stderr, &e) == DOCA_SUCCESS) {
		doca_log_backend_set_sdk_level(e, DOCA_LOG_LEVEL_WARNING);
		dpa_test_log_stderr = e;
	}
}

/* Keep stderr quiet (quiet) or back to WARNING: for tests that log thousands of refusals. */
static inline void dpa_test_log_quiet(bool quiet)
{
	if (dpa_test_log_stderr)
		doca_log_backend_set_sdk_level(dpa_test_log_stderr, quiet ? DOCA_LOG_LEVEL_CRIT : DOCA_LOG_LEVEL_WARNING);
}

static inline void dpa_test_log_clear(void)
{
	pthread_mutex_lock(&dpa_test_log_lock);
	dpa_test_log_len = 0;
	dpa_test_log[0] = '\0';
	pthread_mutex_unlock(&dpa_test_log_lock);
}

/* Number of captured records containing every one of the given substrings (NULL-ended). */
static inline int dpa_test_log_count(const char *first, ...)
{
	int count = 0;

	pthread_mutex_lock(&dpa_test_log_lock);
	for (char *line = dpa_test_log; *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char rec[4096];
		va_list ap;
		int all = 1;

		if (len >= sizeof(rec))
			len = sizeof(rec) - 1;
		memcpy(rec, line, len);
		rec[len] = '\0';
		va_start(ap, first);
		for (const char *s = first; s; s = va_arg(ap, const char *))
			all &= strstr(rec, s) != NULL;
		va_end(ap);
		count += all;
		line += len + (end ? 1 : 0);
	}
	pthread_mutex_unlock(&dpa_test_log_lock);
	return count;
}

/* Asserts one ERROR record with all substrings was logged since the last clear, then clears. */
#define dpa_test_expect_log(...)                                                                    \
	do {                                                                                        \
		int n_ = dpa_test_log_count("[ERR]", __VA_ARGS__, (const char *)NULL);              \
		if (n_ != 1)                                                                        \
			print_error("expected 1 ERROR record with the given text, got %d; log:\n%s\n", n_, \
				    dpa_test_log);                                                  \
		assert_int_equal(n_, 1);                                                            \
		dpa_test_log_clear();                                                               \
	} while (0)

/*
 * Asserts that exactly one ERROR record was logged since the last clear and that it has
 * all the substrings, then clears: for refusals that must say why in one line.
 */
#define dpa_test_expect_one_log(...)                                                                  \
	do {                                                                                          \
		int all_ = dpa_test_log_count("[ERR]", (const char *)NULL);                           \
		if (all_ != 1)                                                                        \
			print_error("expected exactly 1 ERROR record, got %d; log:\n%s\n", all_, dpa_test_log); \
		assert_int_equal(all_, 1);                                                            \
		dpa_test_expect_log(__VA_ARGS__);                                                     \
	} while (0)

/* Open the first emulated device (FLOWDPA_DEVICES, default bf3) or the first of model. */
static inline struct doca_dev *dpa_test_open_dev(int index)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	struct doca_dev *dev = NULL;

	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_true((uint32_t)index < n);
	assert_int_equal(doca_dev_open(list[index], &dev), DOCA_SUCCESS);
	doca_devinfo_destroy_list(list);
	return dev;
}

/* A context on dev with app set and started. */
static inline struct doca_dpa *dpa_test_started(struct doca_dev *dev, struct doca_dpa_app *app)
{
	struct doca_dpa *dpa = NULL;

	assert_int_equal(doca_dpa_create(dev, &dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(dpa, app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(dpa), DOCA_SUCCESS);
	return dpa;
}

/*
 * A started event with a DPA location on dpa (publisher when dpa_publishes, else
 * subscriber) and, when dev is not NULL, the opposite CPU location on dev.
 */
static inline struct doca_sync_event *dpa_test_event(struct doca_dev *dev, struct doca_dpa *dpa, bool dpa_publishes)
{
	struct doca_sync_event *ev = NULL;

	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	if (dpa_publishes) {
		assert_int_equal(doca_sync_event_add_publisher_location_dpa(ev, dpa), DOCA_SUCCESS);
		if (dev)
			assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, dev), DOCA_SUCCESS);
	} else {
		if (dev)
			assert_int_equal(doca_sync_event_add_publisher_location_cpu(ev, dev), DOCA_SUCCESS);
		assert_int_equal(doca_sync_event_add_subscriber_location_dpa(ev, dpa), DOCA_SUCCESS);
	}
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	return ev;
}

/* True once dpa reports a device fatal error (peek_at_last_error BAD_STATE), within
 * 10 s: under ASan on two CPUs, with the suites in parallel and earlier tests' kernels
 * that never return still spinning, a fault was seen to take just over 2 s. */
static inline bool dpa_test_wait_fatal(struct doca_dpa *dpa)
{
	for (int i = 0; i < 10000; i++) {
		if (doca_dpa_peek_at_last_error(dpa) == DOCA_ERROR_BAD_STATE)
			return true;
		usleep(1000);
	}
	return false;
}

/* True once the event's value is at least v, within timeout_ms (a bounded wait). */
static inline bool dpa_test_wait_value(struct doca_sync_event *ev, uint64_t v, unsigned int timeout_ms)
{
	for (unsigned int i = 0; i < timeout_ms; i++) {
		uint64_t cur = 0;

		if (doca_sync_event_get(ev, &cur) == DOCA_SUCCESS && cur >= v)
			return true;
		usleep(1000);
	}
	return false;
}

#endif /* DPA_TEST_UTIL_H_ */
