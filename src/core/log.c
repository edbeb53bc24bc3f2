/*
 * log.c - DOCA logging: sources, backends, level windows and record formatting.
 *
 * Owns every backend and source of the process. Backends are never freed (DOCA has no
 * destroy call), so a fixed table serves. One mutex serialises configuration and
 * output, which is what makes each record one whole line even when many DPA threads
 * log at once; the "would anyone print this level" test in front of it is two relaxed
 * atomic loads, so filtered-out records cost no lock.
 *
 * Application records (doca_log) reach application backends whose window contains the
 * level; SDK records (core_log_sdk, flowdpa's own messages) reach SDK backends whose SDK
 * level admits them. While no SDK backend exists, SDK records go to stderr under the
 * global SDK limit, so a program that never set up SDK logging still hears about its
 * mistakes.
 */
#include "core.h"
#include "core_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define LOG_MAX_BACKENDS 64
#define LOG_MAX_SOURCES 1024
#define LOG_MAX_BUCKETS 1024
#define LOG_MSG_MAX 2048
#define LOG_BACKEND_MAGIC 0x6c6f6762u /* "logb" */

enum log_sink {
	LOG_SINK_FILE,
	LOG_SINK_FD,
	LOG_SINK_BUF,
	LOG_SINK_SYSLOG,
};

struct doca_log_backend {
	uint32_t magic;
	bool sdk;
	enum log_sink sink;
	FILE *file;
	int fd;
	char *buf;
	size_t capacity;
	log_flush_callback handler;
	/* application window, and the edges a standard backend never crosses */
	uint32_t lower;
	uint32_t upper;
	uint32_t cap_lower;
	uint32_t cap_upper;
	bool lower_strict;
	bool upper_strict;
	uint32_t sdk_level;
};

struct log_bucket {
	int source;
	uint64_t window_start_ms;
	uint32_t emitted;
	uint64_t suppressed;
};

/* Recursive: a buffer backend's handler runs under it and may call back into the API. */
static pthread_mutex_t log_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct doca_log_backend log_backends[LOG_MAX_BACKENDS];
static uint32_t log_nr_backends;
static char *log_sources[LOG_MAX_SOURCES];
static struct log_bucket log_buckets[LOG_MAX_BUCKETS];
static uint32_t log_nr_buckets;

static uint32_t global_lower = DOCA_LOG_LEVEL_INFO;
static uint32_t global_upper = DOCA_LOG_LEVEL_CRIT;
static uint32_t global_sdk = DOCA_LOG_LEVEL_INFO;
/* DOCA_LOG_LEVEL's floor under every SDK level the program sets (0: variable unset). */
static uint32_t sdk_env_floor;

/* Most verbose level any backend of each stream would print: the lock-free pre-filter. */
static _Atomic uint32_t app_verbosity;
/* The SDK's, exported for CORE_LOG_QUIET's inline check: the most until log_init_env
 * set it, so that a record before then asks core_log_sdk_enabled, which sets it. */
_Atomic uint32_t core_log_sdk_max = UINT32_MAX;

static pthread_once_t log_env_once = PTHREAD_ONCE_INIT;

DOCA_LOG_REGISTER(DOCA_LOG);

static bool level_is_valid(uint32_t level)
{
	return level >= DOCA_LOG_LEVEL_DISABLE && level <= DOCA_LOG_LEVEL_TRACE && level % 10 == 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static bool backend_accepts_app(const struct doca_log_backend *b, uint32_t level)
{
	return !b->sdk && level >= max_u32(b->upper, b->cap_upper) && level <= min_u32(b->lower, b->cap_lower);
}

static bool backend_accepts_sdk(const struct doca_log_backend *b, uint32_t level)
{
	return b->sdk && level <= b->sdk_level && level >= DOCA_LOG_LEVEL_CRIT;
}

/* Called with log_lock held after any change of levels or backends. */
static void log_recompute_verbosity(void)
{
	uint32_t app = DOCA_LOG_LEVEL_DISABLE;
	uint32_t sdk = DOCA_LOG_LEVEL_DISABLE;
	bool has_sdk = false;

	for (uint32_t i = 0; i < log_nr_backends; i++) {
		const struct doca_log_backend *b = &log_backends[i];

		if (b->sdk) {
			has_sdk = true;
			sdk = max_u32(sdk, b->sdk_level);
		} else if (max_u32(b->upper, b->cap_upper) <= min_u32(b->lower, b->cap_lower)) {
			app = max_u32(app, min_u32(b->lower, b->cap_lower));
		}
	}
	if (!has_sdk)
		sdk = global_sdk;
	atomic_store_explicit(&app_verbosity, app, memory_order_relaxed);
	atomic_store_explicit(&core_log_sdk_max, sdk, memory_order_relaxed);
}

doca_error_t core_log_level_parse(const char *text, uint32_t *level)
{
	static const struct {
		const char *name;
		uint32_t level;
	} names[] = {
		{"disable", DOCA_LOG_LEVEL_DISABLE}, {"crit", DOCA_LOG_LEVEL_CRIT},
		{"critical", DOCA_LOG_LEVEL_CRIT},   {"error", DOCA_LOG_LEVEL_ERROR},
		{"err", DOCA_LOG_LEVEL_ERROR},	     {"warning", DOCA_LOG_LEVEL_WARNING},
		{"warn", DOCA_LOG_LEVEL_WARNING},    {"info", DOCA_LOG_LEVEL_INFO},
		{"debug", DOCA_LOG_LEVEL_DEBUG},     {"dbg", DOCA_LOG_LEVEL_DEBUG},
		{"trace", DOCA_LOG_LEVEL_TRACE},     {"trc", DOCA_LOG_LEVEL_TRACE},
	};
	char *end;
	unsigned long n;

	if (text == NULL || level == NULL || *text == '\0')
		return DOCA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(text, names[i].name) == 0) {
			*level = names[i].level;
			return DOCA_SUCCESS;
		}
	}
	if (text[0] < '0' || text[0] > '9')
		return DOCA_ERROR_INVALID_VALUE;
	n = strtoul(text, &end, 10);
	if (*end != '\0' || n > UINT32_MAX || !level_is_valid((uint32_t)n))
		return DOCA_ERROR_INVALID_VALUE;
	*level = (uint32_t)n;
	return DOCA_SUCCESS;
}

const char *core_log_level_tag(uint32_t level)
{
	switch (level) {
	case DOCA_LOG_LEVEL_DISABLE:
		return "DIS";
	case DOCA_LOG_LEVEL_CRIT:
		return "CRT";
	case DOCA_LOG_LEVEL_ERROR:
		return "ERR";
	case DOCA_LOG_LEVEL_WARNING:
		return "WRN";
	case DOCA_LOG_LEVEL_INFO:
		return "INF";
	case DOCA_LOG_LEVEL_DEBUG:
		return "DBG";
	case DOCA_LOG_LEVEL_TRACE:
		return "TRC";
	default:
		return "???";
	}
}

/*
 * DOCA_LOG_LEVEL (flowdpa extension) sets the global application lower limit and the
 * global SDK limit before the first backend exists. A later application-side call
 * (doca_argp's -l) overrides it, but for SDK levels it is a floor: the sample
 * boilerplate sets its SDK backend to WARNING unconditionally, and the variable must
 * still show the library's trace records then (docs/logging.md).
 */
static void log_apply_env(void)
{
	const char *env = getenv("DOCA_LOG_LEVEL");
	uint32_t level;

	if (env == NULL || *env == '\0')
		return;
	if (core_log_level_parse(env, &level) != DOCA_SUCCESS) {
		fprintf(stderr,
			"flowdpa: DOCA_LOG_LEVEL=\"%s\" is not a log level; use disable, crit, error, warning, info, "
			"debug, trace or 10..70 in steps of 10. Keeping the defaults.\n",
			env);
		return;
	}
	pthread_mutex_lock(&log_lock);
	global_lower = level;
	global_sdk = level;
	sdk_env_floor = level;
	log_recompute_verbosity();
	pthread_mutex_unlock(&log_lock);
}

void core_log_env_reset(void)
{
	pthread_mutex_lock(&log_lock);
	memset(log_backends, 0, sizeof(log_backends));
	log_nr_backends = 0;
	memset(log_buckets, 0, sizeof(log_buckets));
	log_nr_buckets = 0;
	global_lower = DOCA_LOG_LEVEL_INFO;
	global_upper = DOCA_LOG_LEVEL_CRIT;
	global_sdk = DOCA_LOG_LEVEL_INFO;
	sdk_env_floor = 0;
	log_recompute_verbosity();
	pthread_mutex_unlock(&log_lock);
	log_apply_env();
}

static void log_init_env(void)
{
	log_apply_env();
	pthread_mutex_lock(&log_lock);
	log_recompute_verbosity(); /* the levels as set up, environment or not */
	pthread_mutex_unlock(&log_lock);
}

static void log_init_once(void)
{
	pthread_once(&log_env_once, log_init_env);
}

/* One line naming the call and the rule its arguments broke. */
static doca_error_t bad_args(const char *call, const char *why)
{
	CORE_LOG_ERR("%s: %s", call, why);
	return DOCA_ERROR_INVALID_VALUE;
}

/* ---------------------------------------------------------------- sources */

DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source)
{
	doca_error_t rc = DOCA_ERROR_FULL;
	char *copy;

	if (source_name == NULL || source == NULL)
		return bad_args(__func__, "source_name and source must not be NULL");
	copy = core_strdup(source_name);
	if (copy == NULL) {
		/* Said here: DOCA_LOG_REGISTER's constructor drops the code. No id, so its
		 * records show source "?" rather than another source's name (slot 0's). */
		*source = -1;
		return CORE_LOG_NOMEM(__func__, source_name);
	}
	pthread_mutex_lock(&log_lock);
	for (int i = 0; i < LOG_MAX_SOURCES; i++) {
		if (log_sources[i] == NULL) {
			log_sources[i] = copy;
			*source = i;
			rc = DOCA_SUCCESS;
			break;
		}
	}
	pthread_mutex_unlock(&log_lock);
	if (rc != DOCA_SUCCESS) {
		free(copy);
		CORE_LOG_ERR("doca_log_register_source(\"%s\"): all %d source slots are in use", source_name,
			     LOG_MAX_SOURCES);
	}
	return rc;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source)
{
	char *name = NULL;

	if (source < 0 || source >= LOG_MAX_SOURCES)
		return bad_args(__func__, "source is not a registered source id");
	pthread_mutex_lock(&log_lock);
	name = log_sources[source];
	log_sources[source] = NULL;
	pthread_mutex_unlock(&log_lock);
	if (name == NULL) {
		CORE_LOG_ERR("doca_log_unregister_source(%d): no such source (never registered or already removed)",
			     source);
		return DOCA_ERROR_NOT_FOUND;
	}
	free(name);
	return DOCA_SUCCESS;
}

/* ---------------------------------------------------------------- backends */

/* The ident of the last syslog backend: openlog(3) keeps the pointer, so it is ours. */
static char *log_syslog_ident;

/* Adds n backends from tmpl[] all together, or none of them. A syslog backend passes
 * its ident (a copy the log owns from then on); openlog runs only once it is added. */
static doca_error_t backend_add(const struct doca_log_backend *tmpl, uint32_t n, struct doca_log_backend **out,
				char *syslog_ident)
{
	struct doca_log_backend *b = NULL;
	char *old_ident = NULL;

	log_init_once();
	pthread_mutex_lock(&log_lock);
	if (log_nr_backends + n > LOG_MAX_BACKENDS) {
		pthread_mutex_unlock(&log_lock);
		free(syslog_ident);
		CORE_LOG_ERR("cannot create log backend: all %d backend slots are in use", LOG_MAX_BACKENDS);
		return DOCA_ERROR_FULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		b = &log_backends[log_nr_backends++];
		*b = tmpl[i];
		b->magic = LOG_BACKEND_MAGIC;
		b->lower = global_lower;
		b->upper = global_upper;
		b->sdk_level = global_sdk;
		if (b->cap_lower == 0)
			b->cap_lower = DOCA_LOG_LEVEL_TRACE;
		if (b->cap_upper == 0)
			b->cap_upper = DOCA_LOG_LEVEL_CRIT;
	}
	if (syslog_ident != NULL) {
		/* Under log_lock, so no record of ours is in syslog(3) while the ident changes. */
		openlog(syslog_ident, LOG_PID, LOG_USER);
		old_ident = log_syslog_ident;
		log_syslog_ident = syslog_ident;
	}
	log_recompute_verbosity();
	pthread_mutex_unlock(&log_lock);
	free(old_ident);
	if (out != NULL)
		*out = b;
	return DOCA_SUCCESS;
}


static doca_error_t backend_create_file(FILE *fptr, bool sdk, struct doca_log_backend **backend)
{
	struct doca_log_backend t = {.sdk = sdk, .sink = LOG_SINK_FILE, .file = fptr};

	if (fptr == NULL || backend == NULL)
		return bad_args(sdk ? "doca_log_backend_create_with_file_sdk" : "doca_log_backend_create_with_file",
					"fptr and backend must not be NULL");
	return backend_add(&t, 1, backend, NULL);
}

static doca_error_t backend_create_fd(int fd, bool sdk, struct doca_log_backend **backend)
{
	struct doca_log_backend t = {.sdk = sdk, .sink = LOG_SINK_FD, .fd = fd};

	if (fd < 0 || backend == NULL)
		return bad_args(sdk ? "doca_log_backend_create_with_fd_sdk" : "doca_log_backend_create_with_fd",
					"fd must be an open descriptor and backend non-NULL");
	return backend_add(&t, 1, backend, NULL);
}

static doca_error_t backend_create_buf(char *buf, size_t capacity, log_flush_callback handler, bool sdk,
				       struct doca_log_backend **backend)
{
	struct doca_log_backend t = {
		.sdk = sdk, .sink = LOG_SINK_BUF, .buf = buf, .capacity = capacity, .handler = handler};

	if (buf == NULL || capacity == 0 || handler == NULL || backend == NULL)
		return bad_args(sdk ? "doca_log_backend_create_with_buf_sdk" : "doca_log_backend_create_with_buf",
					"buf, handler and backend must not be NULL and capacity not 0");
	return backend_add(&t, 1, backend, NULL);
}

static doca_error_t backend_create_syslog(const char *name, bool sdk, struct doca_log_backend **backend)
{
	struct doca_log_backend t = {.sdk = sdk, .sink = LOG_SINK_SYSLOG};
	char *ident;

	if (name == NULL || backend == NULL)
		return bad_args(sdk ? "doca_log_backend_create_with_syslog_sdk"
					    : "doca_log_backend_create_with_syslog",
					"name and backend must not be NULL");
	ident = core_strdup(name);
	if (ident == NULL)
		return CORE_LOG_NOMEM(sdk ? "doca_log_backend_create_with_syslog_sdk" : "doca_log_backend_create_with_syslog",
				      "the ident");
	return backend_add(&t, 1, backend, ident);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend)
{
	return backend_create_file(fptr, false, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend)
{
	return backend_create_fd(fd, false, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity,
								log_flush_callback handler,
								struct doca_log_backend **backend)
{
	return backend_create_buf(buf, capacity, handler, false, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend)
{
	return backend_create_syslog(name, false, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void)
{
	const struct doca_log_backend pair[2] = {
		{.sink = LOG_SINK_FILE, .file = stdout, .cap_upper = DOCA_LOG_LEVEL_INFO},
		{.sink = LOG_SINK_FILE, .file = stderr, .cap_lower = DOCA_LOG_LEVEL_WARNING},
	};

	return backend_add(pair, 2, NULL, NULL);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
	return backend_create_file(fptr, true, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend)
{
	return backend_create_fd(fd, true, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity,
								    log_flush_callback handler,
								    struct doca_log_backend **backend)
{
	return backend_create_buf(buf, capacity, handler, true, backend);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
								       struct doca_log_backend **backend)
{
	return backend_create_syslog(name, true, backend);
}

/* ---------------------------------------------------------------- levels */

static bool backend_is_valid(const struct doca_log_backend *b)
{
	return b != NULL && b >= log_backends && b < log_backends + LOG_MAX_BACKENDS &&
	       b->magic == LOG_BACKEND_MAGIC;
}

enum window_side { SIDE_LOWER, SIDE_UPPER };

static doca_error_t backend_set_side(struct doca_log_backend *backend, enum window_side side, uint32_t level,
				     bool freeze, const char *call)
{
	doca_error_t rc = DOCA_SUCCESS;
	const char *why = NULL;

	pthread_mutex_lock(&log_lock);
	if (!backend_is_valid(backend)) {
		rc = DOCA_ERROR_INVALID_VALUE;
		why = "not a log backend";
	} else if (backend->sdk) {
		rc = DOCA_ERROR_INVALID_VALUE;
		why = "an SDK backend has no application window (use doca_log_backend_set_sdk_level)";
	} else if (!freeze && !level_is_valid(level)) {
		rc = DOCA_ERROR_INVALID_VALUE;
		why = "level must be one of 10..70 in steps of 10";
	} else if (side == SIDE_LOWER ? backend->lower_strict : backend->upper_strict) {
		rc = DOCA_ERROR_BAD_STATE;
		why = "that limit was frozen with the _strict call";
	} else if (freeze) {
		*(side == SIDE_LOWER ? &backend->lower_strict : &backend->upper_strict) = true;
	} else {
		*(side == SIDE_LOWER ? &backend->lower : &backend->upper) = level;
		log_recompute_verbosity();
	}
	pthread_mutex_unlock(&log_lock);
	if (why != NULL && freeze)
		CORE_LOG_ERR("%s: %s", call, why);
	else if (why != NULL)
		CORE_LOG_ERR("%s(level=%u): %s", call, level, why);
	return rc;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level)
{
	return backend_set_side(backend, SIDE_LOWER, level, false, __func__);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
								      uint32_t upper_limit)
{
	return backend_set_side(backend, SIDE_UPPER, upper_limit, false, __func__);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend)
{
	return backend_set_side(backend, SIDE_LOWER, 0, true, __func__);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend)
{
	return backend_set_side(backend, SIDE_UPPER, 0, true, __func__);
}

static doca_error_t global_set_side(enum window_side side, uint32_t level, const char *call)
{
	if (!level_is_valid(level)) {
		CORE_LOG_ERR("%s(level=%u): level must be one of 10..70 in steps of 10", call, level);
		return DOCA_ERROR_INVALID_VALUE;
	}
	log_init_once();
	pthread_mutex_lock(&log_lock);
	*(side == SIDE_LOWER ? &global_lower : &global_upper) = level;
	for (uint32_t i = 0; i < log_nr_backends; i++) {
		struct doca_log_backend *b = &log_backends[i];

		if (b->sdk)
			continue;
		if (side == SIDE_LOWER && !b->lower_strict)
			b->lower = level;
		if (side == SIDE_UPPER && !b->upper_strict)
			b->upper = level;
	}
	log_recompute_verbosity();
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t level)
{
	return global_set_side(SIDE_LOWER, level, __func__);
}

DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit)
{
	return global_set_side(SIDE_UPPER, upper_limit, __func__);
}

DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void)
{
	uint32_t v;

	log_init_once();
	pthread_mutex_lock(&log_lock);
	v = global_lower;
	pthread_mutex_unlock(&log_lock);
	return v;
}

DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void)
{
	uint32_t v;

	log_init_once();
	pthread_mutex_lock(&log_lock);
	v = global_upper;
	pthread_mutex_unlock(&log_lock);
	return v;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
	const char *why = NULL;

	log_init_once();
	pthread_mutex_lock(&log_lock);
	if (!backend_is_valid(backend))
		why = "not a log backend";
	else if (!backend->sdk)
		why = "not an SDK backend (create it with a *_sdk call)";
	else if (!level_is_valid(level))
		why = "level must be one of 10..70 in steps of 10";
	else {
		backend->sdk_level = max_u32(level, sdk_env_floor);
		log_recompute_verbosity();
	}
	pthread_mutex_unlock(&log_lock);
	if (why != NULL) {
		CORE_LOG_ERR("doca_log_backend_set_sdk_level(level=%u): %s", level, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level)
{
	if (!level_is_valid(level)) {
		CORE_LOG_ERR("doca_log_level_set_global_sdk_limit(level=%u): level must be one of 10..70 in steps of 10",
			     level);
		return DOCA_ERROR_INVALID_VALUE;
	}
	log_init_once();
	pthread_mutex_lock(&log_lock);
	global_sdk = max_u32(level, sdk_env_floor);
	for (uint32_t i = 0; i < log_nr_backends; i++)
		if (log_backends[i].sdk)
			log_backends[i].sdk_level = global_sdk;
	log_recompute_verbosity();
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_sdk_limit(void)
{
	uint32_t v;

	log_init_once();
	pthread_mutex_lock(&log_lock);
	v = global_sdk;
	pthread_mutex_unlock(&log_lock);
	return v;
}

/* ---------------------------------------------------------------- emission */

static int syslog_priority(uint32_t level)
{
	switch (level) {
	case DOCA_LOG_LEVEL_CRIT:
		return LOG_CRIT;
	case DOCA_LOG_LEVEL_ERROR:
		return LOG_ERR;
	case DOCA_LOG_LEVEL_WARNING:
		return LOG_WARNING;
	case DOCA_LOG_LEVEL_INFO:
		return LOG_INFO;
	default:
		return LOG_DEBUG;
	}
}

static const char *path_basename(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : (path ? path : "?");
}

/* Formats "[time][tid][DOCA][LVL][source][file:line][func] text" without newline. */
static size_t log_format_record(char *out, size_t outlen, uint32_t level, int source, const char *fname, int line,
				const char *func, const char *format, va_list ap)
{
	struct timespec ts;
	struct tm tm;
	const char *src;
	int n;
	int m;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	src = (source >= 0 && source < LOG_MAX_SOURCES && log_sources[source]) ? log_sources[source] : "?";
	n = snprintf(out, outlen, "[%02d:%02d:%02d:%06ld][%ld][DOCA][%s][%s][%s:%d][%s] ", tm.tm_hour, tm.tm_min,
		     tm.tm_sec, ts.tv_nsec / 1000, (long)syscall(SYS_gettid), core_log_level_tag(level), src,
		     path_basename(fname), line, func ? func : "?");
	if (n < 0 || (size_t)n >= outlen)
		return outlen - 1;
	m = vsnprintf(out + n, outlen - (size_t)n, format, ap);
	if (m < 0)
		return (size_t)n;
	if ((size_t)(n + m) >= outlen)
		return outlen - 1;
	/* Samples end some messages with \n; the backend adds exactly one. */
	while (n + m > n && out[n + m - 1] == '\n')
		out[n + --m] = '\0';
	return (size_t)(n + m);
}

static void backend_write(struct doca_log_backend *b, uint32_t level, const char *rec, size_t len)
{
	switch (b->sink) {
	case LOG_SINK_FILE:
		fprintf(b->file, "%.*s\n", (int)len, rec);
		fflush(b->file);
		break;
	case LOG_SINK_FD: {
		char line[LOG_MSG_MAX + 1];

		memcpy(line, rec, len);
		line[len] = '\n';
		if (write(b->fd, line, len + 1) < 0) {
			/* Nowhere left to report a failing log sink. */
		}
		break;
	}
	case LOG_SINK_BUF: {
		size_t n = len < b->capacity - 1 ? len : b->capacity - 1;

		memcpy(b->buf, rec, n);
		b->buf[n] = '\0';
		b->handler(b->buf);
		break;
	}
	case LOG_SINK_SYSLOG:
		syslog(syslog_priority(level), "%.*s", (int)len, rec);
		break;
	}
}

/* Set while this thread writes a record: a buffer handler that logs again is dropped
 * instead of deadlocking on log_lock. */
static _Thread_local bool log_in_emit;

static bool log_would_print(bool sdk, uint32_t level)
{
	log_init_once();
	return level <= atomic_load_explicit(sdk ? &core_log_sdk_max : &app_verbosity, memory_order_relaxed);
}

static doca_error_t log_emit(bool sdk, uint32_t level, int source, const char *fname, int line, const char *func,
			     const char *format, va_list ap)
{
	char rec[LOG_MSG_MAX];
	size_t len;
	bool any_sdk = false;

	if (level < DOCA_LOG_LEVEL_CRIT || level > DOCA_LOG_LEVEL_TRACE || level % 10 != 0 || format == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!log_would_print(sdk, level) || log_in_emit)
		return DOCA_SUCCESS;

	pthread_mutex_lock(&log_lock);
	log_in_emit = true;
	/* Formatted under the lock: the source's name may be unregistered concurrently. */
	len = log_format_record(rec, sizeof(rec), level, source, fname, line, func, format, ap);
	for (uint32_t i = 0; i < log_nr_backends; i++) {
		struct doca_log_backend *b = &log_backends[i];

		any_sdk |= b->sdk;
		if (sdk ? backend_accepts_sdk(b, level) : backend_accepts_app(b, level))
			backend_write(b, level, rec, len);
	}
	if (sdk && !any_sdk && level <= global_sdk)
		fprintf(stderr, "%.*s\n", (int)len, rec);
	log_in_emit = false;
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
					const char *format, ...)
{
	va_list ap;
	doca_error_t rc;
	/* Variadic, so not wrapped by src/core/trace_wrap.py: traced here. */
	CORE_TRACE_CALL_BEGIN();

	va_start(ap, format);
	rc = log_emit(false, level, source, fname, line, func, format, ap);
	va_end(ap);
	if (rc != DOCA_SUCCESS && format == NULL)
		CORE_LOG_ERR("doca_log: format must not be NULL (level %u)", level);
	else if (rc != DOCA_SUCCESS)
		CORE_LOG_ERR("doca_log: level %u is not one of CRIT(20)..TRACE(70) in steps of 10", level);
	CORE_TRACE_CALL_END("api", "doca_log", rc);
	return rc;
}

doca_error_t core_log_sdk(uint32_t level, int source, const char *fname, int line, const char *func,
			  const char *format, ...)
{
	va_list ap;
	doca_error_t rc;

	va_start(ap, format);
	rc = log_emit(true, level, source, fname, line, func, format, ap);
	va_end(ap);
	return rc;
}

bool core_log_sdk_enabled(uint32_t level)
{
	return log_would_print(true, level);
}

/* ---------------------------------------------------------------- rate limiting */

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

DOCA_EXPERIMENTAL doca_error_t doca_log_rate_bucket_register(int source, int *bucket)
{
	doca_error_t rc = DOCA_SUCCESS;

	if (bucket == NULL || source < 0 || source >= LOG_MAX_SOURCES)
		return bad_args(__func__, "bucket must not be NULL and source must be a registered source id");
	pthread_mutex_lock(&log_lock);
	/* Registration is once per call site even when several threads race to it. */
	if (__atomic_load_n(bucket, __ATOMIC_ACQUIRE) == -1) {
		if (log_nr_buckets < LOG_MAX_BUCKETS) {
			log_buckets[log_nr_buckets] = (struct log_bucket){.source = source};
			__atomic_store_n(bucket, (int)log_nr_buckets++, __ATOMIC_RELEASE);
		} else {
			rc = DOCA_ERROR_FULL;
		}
	}
	pthread_mutex_unlock(&log_lock);
	return rc;
}

/* Whether the bucket lets one more record through now; counts the ones it holds back. */
static bool bucket_admit(int bucket, uint64_t *suppressed)
{
	uint64_t now = monotonic_ms();
	bool pass = true;
	struct log_bucket *b;

	*suppressed = 0;
	pthread_mutex_lock(&log_lock);
	/* A site whose bucket was forgotten (core_log_env_reset) stays silent. */
	if ((uint32_t)bucket >= log_nr_buckets) {
		pthread_mutex_unlock(&log_lock);
		return false;
	}
	b = &log_buckets[bucket];
	if (now - b->window_start_ms >= DOCA_LOG_RATE_LIMIT_PERIOD_MS) {
		b->window_start_ms = now;
		b->emitted = 0;
	}
	if (b->emitted >= DOCA_LOG_RATE_LIMIT_BURST) {
		b->suppressed++;
		pass = false;
	} else {
		b->emitted++;
		*suppressed = b->suppressed;
		b->suppressed = 0;
	}
	pthread_mutex_unlock(&log_lock);
	return pass;
}

static doca_error_t log_rate_limit_v(uint32_t level, int source, const char *fname, int line, const char *func,
				     int bucket, const char *format, va_list ap)
{
	uint64_t suppressed = 0;
	char text[LOG_MSG_MAX];

	if (bucket < -1 || bucket >= (int)LOG_MAX_BUCKETS || format == NULL)
		return bad_args("doca_log_rate_limit", "bucket must come from doca_log_rate_bucket_register");
	/* A record no backend prints must not spend the bucket's budget. */
	if (!log_would_print(false, level))
		return DOCA_SUCCESS;
	/* -1: no bucket could be registered (all in use); such a site logs unlimited. */
	if (bucket >= 0 && !bucket_admit(bucket, &suppressed))
		return DOCA_SUCCESS;
	vsnprintf(text, sizeof(text), format, ap);
	if (suppressed)
		return doca_log(level, source, fname, line, func, "%s (%lu similar records suppressed)", text,
				(unsigned long)suppressed);
	return doca_log(level, source, fname, line, func, "%s", text);
}

/* Variadic, so not wrapped by src/core/trace_wrap.py: traced here. */
DOCA_EXPERIMENTAL doca_error_t doca_log_rate_limit(uint32_t level, int source, const char *fname, int line,
						   const char *func, int bucket, const char *format, ...)
{
	va_list ap;
	CORE_TRACE_CALL_BEGIN();

	va_start(ap, format);
	doca_error_t rc = log_rate_limit_v(level, source, fname, line, func, bucket, format, ap);
	va_end(ap);
	CORE_TRACE_CALL_END("api", "doca_log_rate_limit", rc);
	return rc;
}
