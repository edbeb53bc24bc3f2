/*
 * config.c - flowdpa's configuration: one parse of the environment and the optional
 * FLOWDPA_CONFIG file into struct core_config.
 *
 * The whole configuration is validated before any of it is used: an error names the
 * key, the value, where it came from and what is allowed, and leaves the process with
 * no configuration at all (every layer then fails with DOCA_ERROR_BAD_CONFIG) rather
 * than a half-applied one. A key set in the environment overrides the file; relative
 * paths from the file resolve against its folder; an unknown key is an error in the
 * file and a warning in the environment, both naming the nearest known key.
 */
#include "core.h"
#include "core_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

extern char **environ;

#define CONFIG_ERR_MAX 512

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static struct core_config config_current;
/* Published with release once config_current and config_status are final, so that
 * readers (fault checks sit on DPA-side hot paths) take no lock. */
static _Atomic bool config_loaded;
static doca_error_t config_status = DOCA_SUCCESS;

static const char *const model_names[] = {
	[CORE_MODEL_BF3] = "bf3",
	[CORE_MODEL_CX7] = "cx7",
	[CORE_MODEL_BF2] = "bf2",
	[CORE_MODEL_CX6] = "cx6",
};

static const char *const fault_names[CORE_FAULT_COUNT] = {
	[CORE_FAULT_DPA_INIT] = "dpa_init",
	[CORE_FAULT_QUEUES_CREATE] = "queues_create",
	[CORE_FAULT_PIPE_EXPORT] = "pipe_export",
	[CORE_FAULT_QUEUE_POLL] = "queue_poll",
	[CORE_FAULT_QUEUE_FLUSH] = "queue_flush",
	[CORE_FAULT_DPA_MEM_ALLOC] = "dpa_mem_alloc",
};

const char *core_device_model_name(enum core_device_model model)
{
	if ((unsigned int)model >= sizeof(model_names) / sizeof(model_names[0]))
		return "unknown";
	return model_names[model];
}

/* Strict unsigned parse: digits only, no sign, no trailing text, within [min, max]. */
static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* Byte sizes: a number with an optional K, M or G suffix (powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
	char num[32];
	size_t len = strlen(s);
	uint64_t mult = 1;
	uint64_t v;

	if (len == 0 || len >= sizeof(num))
		return false;
	memcpy(num, s, len + 1);
	switch (toupper((unsigned char)num[len - 1])) {
	case 'K':
		mult = 1ull << 10;
		break;
	case 'M':
		mult = 1ull << 20;
		break;
	case 'G':
		mult = 1ull << 30;
		break;
	default:
		break;
	}
	if (mult != 1)
		num[len - 1] = '\0';
	if (!parse_u64(num, 1, UINT64_MAX / mult, &v))
		return false;
	*out = v * mult;
	return true;
}

static bool parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	/* Plain decimal only: strtod would also take spaces, signs, hex and "inf". */
	if (s == NULL || !(isdigit((unsigned char)s[0]) || s[0] == '.') || strpbrk(s, "xXpP") != NULL)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static doca_error_t fail(char *err, size_t errlen, const char *fmt, const char *arg)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, fmt, arg);
	return DOCA_ERROR_BAD_CONFIG;
}

/* One "name=value" option of a traffic source. */
static doca_error_t traffic_option(struct core_traffic_src *src, const char *opt, char *err, size_t errlen)
{
	const char *eq = strchr(opt, '=');
	char name[16];
	const char *val;
	uint64_t v;
	size_t n;

	if (eq == NULL || (n = (size_t)(eq - opt)) == 0 || n >= sizeof(name))
		return fail(err, errlen, "option \"%s\" is not name=value", opt);
	memcpy(name, opt, n);
	name[n] = '\0';
	val = eq + 1;
	if (strcmp(name, "rate") == 0 && parse_u64(val, 1, UINT64_MAX, &v)) {
		src->rate_pps = v;
	} else if (strcmp(name, "loop") == 0 && parse_u64(val, 1, UINT32_MAX, &v)) {
		src->loop = (uint32_t)v;
	} else if (src->kind == CORE_TRAFFIC_GEN && strcmp(name, "flows") == 0 && parse_u64(val, 1, 1u << 24, &v)) {
		src->flows = (uint32_t)v;
	} else if (src->kind == CORE_TRAFFIC_GEN && strcmp(name, "pkts") == 0 && parse_u64(val, 1, UINT64_MAX, &v)) {
		src->pkts = v;
	} else if (src->kind == CORE_TRAFFIC_GEN && strcmp(name, "seed") == 0 && parse_u64(val, 0, UINT64_MAX, &v)) {
		src->seed = v;
	} else if (src->kind == CORE_TRAFFIC_GEN && strcmp(name, "zipf") == 0 &&
		   parse_double(val, 0.0, 10.0, &src->zipf)) {
		/* parsed in place */
	} else {
		return fail(err, errlen,
			    "option \"%s\" is not valid; allowed: flows=1..16777216, pkts=N>0, zipf=0..10, seed=N "
			    "(gen only), rate=PPS>0, loop=N>0",
			    opt);
	}
	return DOCA_SUCCESS;
}

doca_error_t core_config_parse_traffic_src(const char *value, struct core_traffic_src *src, char *err, size_t errlen)
{
	char buf[CORE_PATH_MAX + 128];
	char *opts = NULL;
	char *save = NULL;

	if (value == NULL || src == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*src = (struct core_traffic_src){.flows = 1, .pkts = 1000, .seed = 1, .loop = 1};
	if (strlen(value) >= sizeof(buf))
		return fail(err, errlen, "value is longer than %s characters", "639");
	strcpy(buf, value);

	if (strncmp(buf, "pcap:", 5) == 0) {
		char *path = buf + 5;

		src->kind = CORE_TRAFFIC_PCAP;
		/* A path may hold commas: only a trailing ",rate=" / ",loop=" starts options. */
		for (char *c = strchr(path, ','); c != NULL; c = strchr(c + 1, ',')) {
			if (strncmp(c + 1, "rate=", 5) == 0 || strncmp(c + 1, "loop=", 5) == 0) {
				*c = '\0';
				opts = c + 1;
				break;
			}
		}
		if (*path == '\0')
			return fail(err, errlen, "%s", "pcap: needs a file name (pcap:FILE)");
		if (strlen(path) >= sizeof(src->path))
			return fail(err, errlen, "%s", "pcap file name is too long");
		strcpy(src->path, path);
	} else if (strncmp(buf, "gen:", 4) == 0) {
		src->kind = CORE_TRAFFIC_GEN;
		opts = buf + 4;
	} else {
		return fail(err, errlen, "\"%s\" is not a traffic source; use pcap:FILE or gen:flows=N,pkts=N,zipf=S,seed=N",
			    value);
	}
	for (char *opt = opts ? strtok_r(opts, ",", &save) : NULL; opt; opt = strtok_r(NULL, ",", &save)) {
		doca_error_t rc = traffic_option(src, opt, err, errlen);

		if (rc != DOCA_SUCCESS)
			return rc;
	}
	return DOCA_SUCCESS;
}

static doca_error_t parse_devices(const char *value, struct core_config *cfg, char *err, size_t errlen)
{
	char buf[256];
	char *save = NULL;

	if (strlen(value) >= sizeof(buf))
		return fail(err, errlen, "%s", "list is too long");
	strcpy(buf, value);
	cfg->nr_devices = 0;
	for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		struct core_device_cfg *d;
		char *colon = strchr(item, ':');
		uint64_t ports;
		size_t m;

		if (cfg->nr_devices == CORE_MAX_DEVICES)
			return fail(err, errlen, "more than %s devices", "8");
		d = &cfg->devices[cfg->nr_devices];
		if (colon != NULL)
			*colon = '\0';
		for (m = 0; m < sizeof(model_names) / sizeof(model_names[0]); m++)
			if (strcasecmp(item, model_names[m]) == 0)
				break;
		if (m == sizeof(model_names) / sizeof(model_names[0]))
			return fail(err, errlen,
				    "unknown device model \"%s\"; allowed: bf3, cx7 (with a DPA), bf2, cx6 (without), "
				    "each optionally :PORTS with 1..8 ports",
				    item);
		d->model = (enum core_device_model)m;
		d->nr_ports = 2;
		if (colon != NULL) {
			if (!parse_u64(colon + 1, 1, 8, &ports))
				return fail(err, errlen, "port count \"%s\" is not a number from 1 to 8", colon + 1);
			d->nr_ports = (uint32_t)ports;
		}
		cfg->nr_devices++;
	}
	if (cfg->nr_devices == 0)
		return fail(err, errlen, "%s", "the list names no device; allowed models: bf3, cx7, bf2, cx6");
	return DOCA_SUCCESS;
}

static doca_error_t parse_faults(const char *value, uint32_t *mask, char *err, size_t errlen)
{
	char buf[256];
	char *save = NULL;

	if (strlen(value) >= sizeof(buf))
		return fail(err, errlen, "%s", "list is too long");
	strcpy(buf, value);
	*mask = 0;
	for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < CORE_FAULT_COUNT; i++)
			if (strcmp(item, fault_names[i]) == 0)
				break;
		if (i == CORE_FAULT_COUNT)
			return fail(err, errlen,
				    "unknown fault site \"%s\"; allowed: dpa_init, queues_create, pipe_export, "
				    "queue_poll, queue_flush, dpa_mem_alloc",
				    item);
		*mask |= 1u << i;
	}
	return DOCA_SUCCESS;
}

_Static_assert(CORE_PATH_MAX == 512, "parse_path's message names the limit");

static doca_error_t parse_path(const char *value, char *out, char *err, size_t errlen)
{
	if (*value == '\0')
		return fail(err, errlen, "%s", "an empty path is not allowed (unset the variable instead)");
	if (strlen(value) >= CORE_PATH_MAX)
		return fail(err, errlen, "%s", "the path is too long; allowed: a path of at most 511 characters");
	strcpy(out, value);
	return DOCA_SUCCESS;
}

/*
 * A relative path from the config file names a file next to it (base: the file's
 * folder, absolute); from the environment (base NULL) it stays relative to the cwd.
 */
static doca_error_t resolve_path(char *path, const char *base, char *err, size_t errlen)
{
	char joined[CORE_PATH_MAX];

	if (base == NULL || path[0] == '/' || path[0] == '\0')
		return DOCA_SUCCESS;
	if ((size_t)snprintf(joined, sizeof(joined), "%s%s%s", base, strcmp(base, "/") == 0 ? "" : "/", path) >=
	    sizeof(joined))
		return fail(err, errlen,
			    "the path, relative to the config file's folder %s, is too long; allowed: at most 511 "
			    "characters in all",
			    base);
	strcpy(path, joined);
	return DOCA_SUCCESS;
}

/* Port-indexed keys: FLOWDPA_PORT<n>_RX / _TX / _KERNEL with n in 0..CORE_MAX_PORTS-1. */
static bool port_key(const char *key, const char *suffix, uint32_t *port)
{
	const char *p = key + strlen("FLOWDPA_PORT");
	char digits[16];
	size_t n;
	uint64_t v;

	if (strncmp(key, "FLOWDPA_PORT", strlen("FLOWDPA_PORT")) != 0)
		return false;
	n = strspn(p, "0123456789");
	if (n == 0 || strcmp(p + n, suffix) != 0)
		return false;
	/* Out-of-range ids still name a port key, so that the error says "out of range". */
	if (n >= sizeof(digits)) {
		*port = UINT32_MAX;
		return true;
	}
	memcpy(digits, p, n);
	digits[n] = '\0';
	*port = parse_u64(digits, 0, UINT32_MAX, &v) ? (uint32_t)v : UINT32_MAX;
	return true;
}

/* Applies one key; base: see resolve_path. NOT_FOUND for a key that is not flowdpa's. */
static doca_error_t config_apply(struct core_config *cfg, const char *key, const char *value, const char *base,
				 char *err, size_t errlen)
{
	doca_error_t rc;
	uint64_t v;
	uint32_t port;

	if (strcmp(key, "FLOWDPA_DEVICES") == 0)
		return parse_devices(value, cfg, err, errlen);
	if (strcmp(key, "FLOWDPA_NIC_MODE") == 0) {
		if (strcmp(value, "sync") == 0)
			cfg->nic_mode = CORE_NIC_MODE_SYNC;
		else if (strcmp(value, "async") == 0)
			cfg->nic_mode = CORE_NIC_MODE_ASYNC;
		else
			return fail(err, errlen, "\"%s\" is not a NIC mode; allowed: sync, async", value);
		return DOCA_SUCCESS;
	}
	if (strcmp(key, "FLOWDPA_NIC_LATENCY_US") == 0) {
		if (!parse_u64(value, 0, 10000000, &v))
			return fail(err, errlen, "\"%s\" is not a latency; allowed: 0..10000000 microseconds", value);
		cfg->nic_latency_us = (uint32_t)v;
		return DOCA_SUCCESS;
	}
	if (strcmp(key, "FLOWDPA_STRICT") == 0) {
		if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
			return fail(err, errlen, "\"%s\" is not allowed; use 0 or 1", value);
		cfg->strict = value[0] == '1';
		return DOCA_SUCCESS;
	}
	if (strcmp(key, "FLOWDPA_DPA_CORES") == 0 || strcmp(key, "FLOWDPA_DPA_EUS_PER_CORE") == 0) {
		if (!parse_u64(value, 1, 64, &v))
			return fail(err, errlen, "\"%s\" is not allowed; use a number from 1 to 64", value);
		*(strcmp(key, "FLOWDPA_DPA_CORES") == 0 ? &cfg->dpa_cores : &cfg->dpa_eus_per_core) = (uint32_t)v;
		return DOCA_SUCCESS;
	}
	if (strcmp(key, "FLOWDPA_DPA_HEAP_SIZE") == 0) {
		if (!parse_size(value, &v) || v < 4096 || v > (64ull << 30))
			return fail(err, errlen, "\"%s\" is not a heap size; use 4K..64G (suffix K, M or G)", value);
		cfg->dpa_heap_size = v;
		return DOCA_SUCCESS;
	}
	if (strcmp(key, "FLOWDPA_FAULTS") == 0)
		return parse_faults(value, &cfg->faults, err, errlen);
	if (strcmp(key, "FLOWDPA_FAULT_ALLOC") == 0) {
		if (!parse_u64(value, 1, UINT64_MAX, &v))
			return fail(err, errlen, "\"%s\" is not allowed; use N >= 1 to fail the Nth allocation", value);
		cfg->fault_alloc_nth = v;
		return DOCA_SUCCESS;
	}
	if (strcmp(key, "FLOWDPA_TRACE") == 0) {
		rc = parse_path(value, cfg->trace_path, err, errlen);
		return rc != DOCA_SUCCESS ? rc : resolve_path(cfg->trace_path, base, err, errlen);
	}
	if (strcmp(key, "FLOWDPA_REPORT") == 0) {
		rc = parse_path(value, cfg->report_path, err, errlen);
		if (rc != DOCA_SUCCESS || strcmp(value, "-") == 0) /* "-": stderr, not a file */
			return rc;
		return resolve_path(cfg->report_path, base, err, errlen);
	}
	if (strcmp(key, "FLOWDPA_REPORT_TOP") == 0) {
		if (!parse_u64(value, 0, 100000, &v))
			return fail(err, errlen, "\"%s\" is not allowed; use 0..100000 entries per pipe", value);
		cfg->report_top = (uint32_t)v;
		return DOCA_SUCCESS;
	}
	if (strcmp(key, "FLOWDPA_RANDOM_SEED") == 0) {
		if (!parse_u64(value, 0, UINT64_MAX, &v))
			return fail(err, errlen, "\"%s\" is not allowed; use a decimal number", value);
		cfg->random_seed = v;
		cfg->has_random_seed = true;
		return DOCA_SUCCESS;
	}
	if (port_key(key, "_RX", &port) || port_key(key, "_TX", &port) || port_key(key, "_KERNEL", &port)) {
		size_t klen = strlen(key);
		bool rx = strcmp(key + klen - 3, "_RX") == 0;
		bool kernel = strcmp(key + klen - 7, "_KERNEL") == 0;

		if (port >= CORE_MAX_PORTS)
			return fail(err, errlen, "port id out of range; allowed ports: 0..%s", "15");
		if (rx) {
			struct core_traffic_src *src = &cfg->port_rx[port];

			rc = core_config_parse_traffic_src(value, src, err, errlen);
			if (rc != DOCA_SUCCESS || src->kind != CORE_TRAFFIC_PCAP)
				return rc;
			return resolve_path(src->path, base, err, errlen);
		}
		struct core_traffic_sink *sink = kernel ? &cfg->port_kernel[port] : &cfg->port_tx[port];
		if (strncmp(value, "pcap:", 5) != 0 || value[5] == '\0')
			return fail(err, errlen, "\"%s\" is not a traffic sink; use pcap:FILE", value);
		sink->kind = CORE_TRAFFIC_PCAP;
		rc = parse_path(value + 5, sink->path, err, errlen);
		return rc != DOCA_SUCCESS ? rc : resolve_path(sink->path, base, err, errlen);
	}
	return DOCA_ERROR_NOT_FOUND;
}

/* Every key config_apply knows (keep them in step), and FLOWDPA_CONFIG; '#' stands for a port id. */
static const char *const known_keys[] = {
	"FLOWDPA_CONFIG",	"FLOWDPA_DEVICES",	   "FLOWDPA_NIC_MODE",	    "FLOWDPA_NIC_LATENCY_US",
	"FLOWDPA_STRICT",	"FLOWDPA_DPA_CORES",	   "FLOWDPA_DPA_EUS_PER_CORE", "FLOWDPA_DPA_HEAP_SIZE",
	"FLOWDPA_FAULTS",	"FLOWDPA_FAULT_ALLOC",	   "FLOWDPA_TRACE",	    "FLOWDPA_REPORT",
	"FLOWDPA_PORT#_RX",	"FLOWDPA_PORT#_TX",	   "FLOWDPA_PORT#_KERNEL", "FLOWDPA_RANDOM_SEED",
	"FLOWDPA_REPORT_TOP",
};

#define SUGGEST_KEY_MAX 64

/* Case-insensitive Levenshtein distance of two strings of at most SUGGEST_KEY_MAX characters. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[SUGGEST_KEY_MAX + 1];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t sub = diag + (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));
			size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;

			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb];
}

/*
 * The known key nearest to an unknown one, written into out, or false when none is
 * near: at most 2 edits, or a fifth of the key for long ones; case is not an edit, so
 * "flowdpa_strict" finds FLOWDPA_STRICT. A port pattern takes the key's own digits
 * ("FLOWDPA_PROT3_RX" -> "FLOWDPA_PORT3_RX"), or "n" when it has none.
 */
static bool suggest_key(const char *key, char *out, size_t outlen)
{
	const char *digits = strpbrk(key, "0123456789");
	size_t ndigits = digits ? strspn(digits, "0123456789") : 0;
	size_t best = SIZE_MAX;

	if (strlen(key) > SUGGEST_KEY_MAX || ndigits > 8)
		return false;
	for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++) {
		char cand[SUGGEST_KEY_MAX + 1];
		const char *hash = strchr(known_keys[i], '#');
		size_t d;

		if (hash == NULL)
			snprintf(cand, sizeof(cand), "%s", known_keys[i]);
		else
			snprintf(cand, sizeof(cand), "%.*s%.*s%s", (int)(hash - known_keys[i]), known_keys[i],
				 ndigits ? (int)ndigits : 1, ndigits ? digits : "n", hash + 1);
		d = edit_distance(key, cand);
		if (strcmp(key, cand) != 0 && d < best && (d <= 2 || d <= strlen(cand) / 5)) {
			best = d;
			snprintf(out, outlen, "%s", cand);
		}
	}
	return best != SIZE_MAX;
}

static void config_defaults(struct core_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_devices = 1;
	cfg->devices[0] = (struct core_device_cfg){.model = CORE_MODEL_BF3, .nr_ports = 2};
	cfg->dpa_cores = 16;
	cfg->dpa_eus_per_core = 16;
	cfg->dpa_heap_size = 256ull << 20;
	cfg->nic_mode = CORE_NIC_MODE_SYNC;
	cfg->report_top = 10;
}

static void report_error(const char *where, const char *key, const char *value, const char *why)
{
	fprintf(stderr, "flowdpa: configuration error: %s%s=\"%s\": %s. Nothing of the configuration is applied.\n",
		where, key, value, why);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Longest line of a FLOWDPA_CONFIG file, newline excluded. */
#define CONFIG_LINE_MAX 767

enum line_status { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_NUL, LINE_READ_ERROR };

/*
 * One line of f into buf (CONFIG_LINE_MAX + 1 bytes), its newline dropped. Read byte by
 * byte so that the line's real length is known: a NUL byte (which would end a C
 * string early and let the rest pass as text) and an over-long line (which a buffered
 * read would split into two lines) are refused, never read around.
 */
static enum line_status read_line(FILE *f, char *buf)
{
	size_t len = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			return LINE_NUL;
		if (len == CONFIG_LINE_MAX)
			return LINE_TOO_LONG;
		buf[len++] = (char)c;
	}
	buf[len] = '\0';
	if (c == EOF && ferror(f))
		return LINE_READ_ERROR;
	return c == EOF && len == 0 ? LINE_EOF : LINE_OK;
}

/* Opens the config file for reading, refusing what is not a regular, readable file. */
static FILE *config_open(const char *path)
{
	char why[128];
	struct stat st;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		snprintf(why, sizeof(why), "the file cannot be opened: %s", strerror(errno));
	} else if (fstat(fileno(f), &st) != 0) {
		snprintf(why, sizeof(why), "the file cannot be read: %s", strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(why, sizeof(why), "%s", "it names a directory; FLOWDPA_CONFIG must name a file of KEY=VALUE lines");
	} else {
		return f;
	}
	if (f != NULL)
		fclose(f);
	report_error("", "FLOWDPA_CONFIG", path, why);
	return NULL;
}

/* The absolute folder of the config file at path (opened, so it exists). */
static void config_file_folder(const char *path, char base[PATH_MAX])
{
	char dir[CORE_PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		strcpy(dir, ".");
	else
		slash[slash == dir] = '\0'; /* "/x.conf" -> "/" */
	if (realpath(dir, base) == NULL)
		snprintf(base, PATH_MAX, "%s", dir); /* gone since it was opened: keep it as written */
}

/* The file's keys, skipping those the environment sets (the environment wins). */
static doca_error_t config_load_file(struct core_config *cfg, const char *path)
{
	char line[CONFIG_LINE_MAX + 1];
	char where[CORE_PATH_MAX + 32];
	char err[CONFIG_ERR_MAX];
	unsigned int lineno = 0;
	doca_error_t status = DOCA_ERROR_BAD_CONFIG;
	enum line_status ls;
	char base[PATH_MAX];
	FILE *f = config_open(path);

	if (f == NULL)
		return DOCA_ERROR_BAD_CONFIG;
	config_file_folder(path, base);
	while ((ls = read_line(f, line)) != LINE_EOF) {
		char *s;
		char *eq;
		char *key;
		char *value;
		doca_error_t rc;

		lineno++;
		snprintf(where, sizeof(where), "%s:%u: ", path, lineno);
		if (ls == LINE_TOO_LONG) {
			report_error(where, "(line)", "...", "the line is too long (at most 767 characters)");
			goto out;
		}
		if (ls == LINE_NUL) {
			report_error(where, "(line)", "...", "the line holds a NUL byte; the file must be text");
			goto out;
		}
		if (ls == LINE_READ_ERROR) {
			report_error(where, "(line)", "...", "the file cannot be read");
			goto out;
		}
		s = trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (eq == NULL) {
			report_error(where, s, "", "a line must be KEY=VALUE (or a # comment)");
			goto out;
		}
		*eq = '\0';
		key = trim(s);
		value = trim(eq + 1);
		if (strcmp(key, "FLOWDPA_CONFIG") == 0) {
			report_error(where, key, value, "FLOWDPA_CONFIG is read from the environment only");
			goto out;
		}
		if (getenv(key) != NULL)
			continue;
		rc = config_apply(cfg, key, value, base, err, sizeof(err));
		if (rc == DOCA_ERROR_NOT_FOUND) {
			char near[SUGGEST_KEY_MAX + 1];

			if (suggest_key(key, near, sizeof(near)))
				snprintf(err, sizeof(err), "unknown key; did you mean %s? (docs/configuration.md lists the keys)",
					 near);
			else
				snprintf(err, sizeof(err), "unknown key (docs/configuration.md lists the keys)");
		}
		if (rc != DOCA_SUCCESS) {
			report_error(where, key, value, err);
			goto out;
		}
	}
	status = DOCA_SUCCESS;
out:
	fclose(f);
	return status;
}

static doca_error_t config_load_env(struct core_config *cfg)
{
	char err[CONFIG_ERR_MAX];

	for (char **e = environ; e && *e; e++) {
		char key[128];
		const char *eq = strchr(*e, '=');
		size_t n;
		doca_error_t rc;

		if (strncmp(*e, "FLOWDPA_", 8) != 0 || eq == NULL || (n = (size_t)(eq - *e)) >= sizeof(key))
			continue;
		memcpy(key, *e, n);
		key[n] = '\0';
		/* FLOWDPA_TEST_* is reserved for test harnesses (docs/configuration.md). */
		if (strcmp(key, "FLOWDPA_CONFIG") == 0 || strncmp(key, "FLOWDPA_TEST_", 13) == 0)
			continue;
		rc = config_apply(cfg, key, eq + 1, NULL, err, sizeof(err));
		if (rc == DOCA_ERROR_NOT_FOUND) {
			/* Other tools may own FLOWDPA_ names; a typo should still be visible. */
			char near[SUGGEST_KEY_MAX + 1];

			if (suggest_key(key, near, sizeof(near)))
				fprintf(stderr, "flowdpa: warning: %s is not a flowdpa setting; ignored (did you mean %s?)\n",
					key, near);
			else
				fprintf(stderr, "flowdpa: warning: %s is not a flowdpa setting; ignored\n", key);
			continue;
		}
		if (rc != DOCA_SUCCESS) {
			report_error("", key, eq + 1, err);
			return rc;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t config_load(struct core_config *cfg)
{
	const char *file = getenv("FLOWDPA_CONFIG");
	char err[CONFIG_ERR_MAX];
	doca_error_t rc;

	config_defaults(cfg);
	rc = config_load_env(cfg);
	if (rc == DOCA_SUCCESS && file != NULL && *file != '\0') {
		rc = parse_path(file, cfg->config_file, err, sizeof(err));
		if (rc != DOCA_SUCCESS)
			report_error("", "FLOWDPA_CONFIG", file, err);
		else
			rc = config_load_file(cfg, file);
	}
	return rc;
}

static void config_ensure_loaded(void)
{
	struct core_config cfg;

	if (atomic_load_explicit(&config_loaded, memory_order_acquire))
		return;
	pthread_mutex_lock(&config_lock);
	if (!atomic_load_explicit(&config_loaded, memory_order_relaxed)) {
		config_status = config_load(&cfg);
		if (config_status == DOCA_SUCCESS)
			config_current = cfg;
		atomic_store_explicit(&config_loaded, true, memory_order_release);
	}
	pthread_mutex_unlock(&config_lock);
}

const struct core_config *core_config_get(void)
{
	config_ensure_loaded();
	return config_status == DOCA_SUCCESS ? &config_current : NULL;
}

doca_error_t core_config_status(void)
{
	config_ensure_loaded();
	return config_status;
}

doca_error_t core_config_reload(void)
{
	const struct core_config *cfg;

	/* Tests only: callers must not hold a core_config pointer across a reload. */
	pthread_mutex_lock(&config_lock);
	atomic_store(&config_loaded, false);
	memset(&config_current, 0, sizeof(config_current));
	pthread_mutex_unlock(&config_lock);
	cfg = core_config_get();
	core_device_registry_reset();
	core_trace_configure(cfg ? cfg->trace_path : "");
	core_report_configure(cfg ? cfg->report_path : "");
	return core_config_status();
}

bool core_fault_injected(enum core_fault_site site)
{
	const struct core_config *cfg = core_config_get();

	return cfg != NULL && (unsigned int)site < CORE_FAULT_COUNT && (cfg->faults & (1u << site)) != 0;
}

/* Trace and report must be live before main so that every later event is captured. */
static void __attribute__((constructor(102))) config_at_load(void)
{
	const struct core_config *cfg = core_config_get();

	if (cfg == NULL)
		return;
	if (cfg->trace_path[0] != '\0')
		core_trace_configure(cfg->trace_path);
	if (cfg->report_path[0] != '\0')
		core_report_configure(cfg->report_path);
}
