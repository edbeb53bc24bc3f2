/*
 * dpa_test_util.h - helpers for the DPA test suites (unit, integration, lifecycle):
 * open the first emulated device, and capture the SDK log so that a test can check that
 * a refused call logged one clear line.
 */
#ifndef DPA_TEST_UTIL_H_
#define DPA_TEST_UTIL_H_

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>

#define DPA_TEST_LOG_MAX (64 * 1024)

static char dpa_test_log_rec[4096];
static char dpa_test_log[DPA_TEST_LOG_MAX];
static size_t dpa_test_log_len;
static pthread_mutex_t dpa_test_log_lock = PTHREAD_MUTEX_INITIALIZER;

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

	if (doca_log_backend_create_with_file_sdk(stderr, &e) == DOCA_SUCCESS)
		doca_log_backend_set_sdk_level(e, DOCA_LOG_LEVEL_WARNING);
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

#endif /* DPA_TEST_UTIL_H_ */
