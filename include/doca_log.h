/*
 * doca_log.h - DOCA's logging: sources, backends with per-backend level windows,
 * application and SDK (library-internal) streams, and the emitting macros.
 *
 * flowdpa extensions (not in DOCA 3.0, marked below): the DOCA_LOG_LEVEL environment
 * variable (see docs/logging.md) and the rate-limited DOCA_LOG_RATE_LIMIT_* macros.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10,
	DOCA_LOG_LEVEL_CRIT = 20,
	DOCA_LOG_LEVEL_ERROR = 30,
	DOCA_LOG_LEVEL_WARNING = 40,
	DOCA_LOG_LEVEL_INFO = 50,
	DOCA_LOG_LEVEL_DEBUG = 60,
	DOCA_LOG_LEVEL_TRACE = 70,
};

struct doca_log_backend;

/* Called by a buffer backend after each record was formatted into its buffer. */
typedef void (*log_flush_callback)(char *buf);

/*
 * Per-backend window for application messages: a message of level L reaches the
 * backend when upper_limit <= L <= lower_limit (a lower limit of DISABLE, or an upper
 * limit above the lower one, prints nothing). INVALID_VALUE for a NULL or SDK backend
 * or a level that is not one of enum doca_log_level; BAD_STATE when that side was
 * frozen with *_strict.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
								      uint32_t upper_limit);
/* Freeze one side of the window against later global or direct changes. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend);

/* Global application window: applies to every non-strict backend and to new ones. */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void);

/* Register a named source; works before main and before any backend exists. */
DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source);
DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source);

/* Application backends. The FILE/fd stays owned by the caller. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
								struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend);
/* stdout for INFO and more verbose, stderr for WARNING and more severe. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void);

/* SDK backends receive the messages flowdpa's libraries emit themselves. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity,
								    log_flush_callback handler,
								    struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
								       struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_sdk_limit(void);

/* Emit one application record (one whole line, even from concurrent threads). */
DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
					const char *format, ...) __attribute__((format(printf, 6, 7)));

/*
 * flowdpa extension: rate-limited emission. A bucket allows a burst of
 * DOCA_LOG_RATE_LIMIT_BURST records per DOCA_LOG_RATE_LIMIT_PERIOD_MS and counts the
 * rest; the next record let through says how many were suppressed.
 */
#define DOCA_LOG_RATE_LIMIT_BURST 10
#define DOCA_LOG_RATE_LIMIT_PERIOD_MS 1000
/* Gives *bucket (which must hold -1) a bucket id, once; FULL when none is left. */
DOCA_EXPERIMENTAL doca_error_t doca_log_rate_bucket_register(int source, int *bucket);
/* Emits through bucket (-1: unlimited) when the level would print at all. */
DOCA_EXPERIMENTAL doca_error_t doca_log_rate_limit(uint32_t level, int source, const char *fname, int line,
						   const char *func, int bucket, const char *format, ...)
	__attribute__((format(printf, 7, 8)));

#define DOCA_LOG(level, format, ...) \
	doca_log(level, log_source, __FILE__, __LINE__, __func__, format, ##__VA_ARGS__)
#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_DEBUG, format, ##__VA_ARGS__)
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_TRACE, format, ##__VA_ARGS__)
#else
#define DOCA_LOG_TRC(format, ...) \
	do { \
	} while (0)
#endif

/* One bucket per call site, registered on first use (atomically: call sites may be hot
 * in many threads). A site that finds no free bucket logs without limit. */
#define DOCA_LOG_RATE_LIMIT(level, format, ...) \
	do { \
		static int log_bucket = -1; \
		if (__atomic_load_n(&log_bucket, __ATOMIC_ACQUIRE) == -1) \
			doca_log_rate_bucket_register(log_source, &log_bucket); \
		doca_log_rate_limit(level, log_source, __FILE__, __LINE__, __func__, \
				    __atomic_load_n(&log_bucket, __ATOMIC_ACQUIRE), format, ##__VA_ARGS__); \
	} while (0)
#define DOCA_LOG_RATE_LIMIT_CRIT(format, ...) DOCA_LOG_RATE_LIMIT(DOCA_LOG_LEVEL_CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_RATE_LIMIT_ERR(format, ...) DOCA_LOG_RATE_LIMIT(DOCA_LOG_LEVEL_ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_RATE_LIMIT_WARN(format, ...) DOCA_LOG_RATE_LIMIT(DOCA_LOG_LEVEL_WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_RATE_LIMIT_INFO(format, ...) DOCA_LOG_RATE_LIMIT(DOCA_LOG_LEVEL_INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_RATE_LIMIT_DBG(format, ...) DOCA_LOG_RATE_LIMIT(DOCA_LOG_LEVEL_DEBUG, format, ##__VA_ARGS__)

/*
 * Declares the file's log source and registers it before main. The constructor name is
 * the literal token DOCA_LOG_CTOR___FILE__ (## keeps __FILE__ from expanding), so one
 * DOCA_LOG_REGISTER per translation unit.
 */
#define DOCA_LOG_REGISTER(source) \
	static int log_source; \
	static void __attribute__((constructor(101), used)) DOCA_LOG_CTOR_##__FILE__(void) \
	{ \
		doca_log_register_source(#source, &log_source); \
	}

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
