/*
 * log_capture.h - collect flowdpa's SDK log records (WARNING and above) in memory, so
 * that a test can assert the exact line a call, the datapath or a traffic source logged.
 * Records still reach stderr (ft_log_init), so a failing test's meson log shows them.
 * Thread-safe: NIC worker threads log too. Header-only, one capture per process.
 */
#ifndef FLOWDPA_TEST_LOG_CAPTURE_H_
#define FLOWDPA_TEST_LOG_CAPTURE_H_

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <doca_log.h>

#include "sdk_log.h"

static char lc_rec[4096];
static char lc_text[64 * 1024];
static size_t lc_len;
static pthread_mutex_t lc_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void lc_flush(char *rec)
{
	pthread_mutex_lock(&lc_lock);
	size_t n = strlen(rec);
	if (lc_len + n + 2 < sizeof(lc_text)) {
		memcpy(lc_text + lc_len, rec, n);
		lc_len += n;
		if (n == 0 || rec[n - 1] != '\n')
			lc_text[lc_len++] = '\n';
		lc_text[lc_len] = '\0';
	}
	pthread_mutex_unlock(&lc_lock);
}

/* Once per process: 0 on success. */
static inline int log_capture_setup(void)
{
	struct doca_log_backend *b = NULL;
	ft_log_init();
	if (doca_log_backend_create_with_buf_sdk(lc_rec, sizeof(lc_rec), lc_flush, &b) != DOCA_SUCCESS)
		return -1;
	return doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_WARNING) == DOCA_SUCCESS ? 0 : -1;
}

static inline void log_capture_clear(void)
{
	pthread_mutex_lock(&lc_lock);
	lc_len = 0;
	lc_text[0] = '\0';
	pthread_mutex_unlock(&lc_lock);
}

/* Lines logged since the last clear that contain s (every line when s is NULL). */
static inline int log_capture_count(const char *s)
{
	int n = 0;
	pthread_mutex_lock(&lc_lock);
	for (const char *line = lc_text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char rec[4096];
		size_t k = len < sizeof(rec) - 1 ? len : sizeof(rec) - 1;
		memcpy(rec, line, k);
		rec[k] = '\0';
		n += s == NULL || strstr(rec, s) != NULL;
		line += len + (end ? 1 : 0);
	}
	pthread_mutex_unlock(&lc_lock);
	return n;
}

/* Print what was captured (for a failing assertion's context). */
static inline void log_capture_dump(void)
{
	pthread_mutex_lock(&lc_lock);
	fprintf(stderr, "captured log:\n%s", lc_text);
	pthread_mutex_unlock(&lc_lock);
}

#endif /* FLOWDPA_TEST_LOG_CAPTURE_H_ */
