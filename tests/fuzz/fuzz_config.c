/*
 * fuzz_config.c - fuzzes the configuration parser (src/core/config.c): the FLOWDPA_CONFIG
 * file's content and the values of FLOWDPA_* environment variables, read again with
 * core_config_reload().
 *
 * Input: lines starting with '@' are environment variables, "@SUFFIX=VALUE" setting
 * FLOWDPA_SUFFIX; every other byte (NULs included) is the file's content.
 * Checks: the reload returns DOCA_SUCCESS or DOCA_ERROR_BAD_CONFIG, core_config_get()
 * agrees with it, and a configuration that loaded has every value within the range
 * docs/configuration.md documents for it. A file with a line holding a NUL byte or
 * longer than 767 characters (newline excluded) is BAD_CONFIG (issue 15: such a
 * comment line was once read on as a new KEY=VALUE). Any other file is read again with
 * its comment lines emptied: the result (status and every value) must be the same, so
 * nothing inside a comment takes effect.
 *
 * FLOWDPA_TRACE, _REPORT and _FAULT_ALLOC are pinned in the environment (which wins over
 * the file) so that an input can neither write files outside the harness's temporary
 * folder nor make later allocations fail.
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <core/core.h>

#include "fuzz_check.h"

#define MAX_ENV 16
#define CONFIG_LINE_MAX 767 /* docs/configuration.md */

static char dir[] = "/tmp/flowdpa-fuzz-config-XXXXXX";
static char conf_path[sizeof(dir) + 16];
static char trace_path[sizeof(dir) + 16];
static char report_path[sizeof(dir) + 16];

static void cleanup(void)
{
	unlink(conf_path);
	unlink(trace_path);
	unlink(report_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_logs();
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		abort();
	}
	snprintf(conf_path, sizeof(conf_path), "%s/fuzz.conf", dir);
	snprintf(trace_path, sizeof(trace_path), "%s/trace.json", dir);
	snprintf(report_path, sizeof(report_path), "%s/report.json", dir);
	/* Registered before the trace's and report's own: runs after them at exit. */
	atexit(cleanup);
	setenv("FLOWDPA_CONFIG", conf_path, 1);
	setenv("FLOWDPA_TRACE", trace_path, 1);
	setenv("FLOWDPA_REPORT", report_path, 1);
	setenv("FLOWDPA_FAULT_ALLOC", "18446744073709551615", 1);
	return 0;
}

static bool pinned(const char *key)
{
	static const char *const keys[] = {"FLOWDPA_CONFIG", "FLOWDPA_TRACE", "FLOWDPA_REPORT", "FLOWDPA_FAULT_ALLOC"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

static bool path_ok(const char *p, bool may_be_empty)
{
	size_t n = strnlen(p, CORE_PATH_MAX);

	return n < CORE_PATH_MAX && (may_be_empty || n > 0);
}

/* Every value within what docs/configuration.md allows. */
static void check_ranges(const struct core_config *c)
{
	FUZZ_CHECK(c->nr_devices >= 1 && c->nr_devices <= CORE_MAX_DEVICES, "nr_devices %u", c->nr_devices);
	for (uint32_t i = 0; i < c->nr_devices; i++) {
		FUZZ_CHECK(c->devices[i].model <= CORE_MODEL_CX6, "device %u model %d", i, (int)c->devices[i].model);
		FUZZ_CHECK(c->devices[i].nr_ports >= 1 && c->devices[i].nr_ports <= 8, "device %u ports %u", i,
			   c->devices[i].nr_ports);
	}
	FUZZ_CHECK(c->dpa_cores >= 1 && c->dpa_cores <= 64, "dpa_cores %u", c->dpa_cores);
	FUZZ_CHECK(c->dpa_eus_per_core >= 1 && c->dpa_eus_per_core <= 64, "eus %u", c->dpa_eus_per_core);
	FUZZ_CHECK(c->dpa_heap_size >= 4096 && c->dpa_heap_size <= (64ull << 30), "heap %llu",
		   (unsigned long long)c->dpa_heap_size);
	FUZZ_CHECK(c->nic_mode == CORE_NIC_MODE_SYNC || c->nic_mode == CORE_NIC_MODE_ASYNC, "nic_mode %d",
		   (int)c->nic_mode);
	FUZZ_CHECK(c->nic_latency_us <= 10000000, "latency %u", c->nic_latency_us);
	FUZZ_CHECK(c->faults < (1u << CORE_FAULT_COUNT), "faults 0x%x", c->faults);
	FUZZ_CHECK(c->fault_alloc_nth == UINT64_MAX, "FLOWDPA_FAULT_ALLOC is pinned, got %llu",
		   (unsigned long long)c->fault_alloc_nth);
	FUZZ_CHECK(strcmp(c->trace_path, trace_path) == 0, "FLOWDPA_TRACE is pinned, got \"%.600s\"", c->trace_path);
	FUZZ_CHECK(strcmp(c->report_path, report_path) == 0, "FLOWDPA_REPORT is pinned, got \"%.600s\"",
		   c->report_path);
	FUZZ_CHECK(strcmp(c->config_file, conf_path) == 0, "config_file \"%.600s\"", c->config_file);
	for (int p = 0; p < CORE_MAX_PORTS; p++) {
		const struct core_traffic_src *rx = &c->port_rx[p];
		const struct core_traffic_sink *tx = &c->port_tx[p];

		switch (rx->kind) {
		case CORE_TRAFFIC_NONE:
			break;
		case CORE_TRAFFIC_PCAP:
			FUZZ_CHECK(path_ok(rx->path, false), "port %d rx pcap path", p);
			FUZZ_CHECK(rx->loop >= 1, "port %d rx loop %u", p, rx->loop);
			break;
		case CORE_TRAFFIC_GEN:
			FUZZ_CHECK(rx->flows >= 1 && rx->flows <= (1u << 24), "port %d flows %u", p, rx->flows);
			FUZZ_CHECK(rx->pkts >= 1, "port %d pkts 0", p);
			FUZZ_CHECK(isfinite(rx->zipf) && rx->zipf >= 0.0 && rx->zipf <= 10.0, "port %d zipf %g", p, rx->zipf);
			FUZZ_CHECK(rx->loop >= 1, "port %d rx loop %u", p, rx->loop);
			FUZZ_CHECK(rx->path[0] == '\0', "port %d gen has a path", p);
			break;
		default:
			FUZZ_CHECK(false, "port %d rx kind %d", p, (int)rx->kind);
		}
		FUZZ_CHECK(tx->kind == CORE_TRAFFIC_NONE || tx->kind == CORE_TRAFFIC_PCAP, "port %d tx kind %d", p,
			   (int)tx->kind);
		FUZZ_CHECK(path_ok(tx->path, tx->kind == CORE_TRAFFIC_NONE), "port %d tx path", p);
	}
}

/* A line config.c must refuse: a NUL byte, or more than CONFIG_LINE_MAX characters. */
static bool bad_line(const uint8_t *l, size_t len)
{
	return len > CONFIG_LINE_MAX || memchr(l, '\0', len) != NULL;
}

/* A comment line: "#" after leading white space (config.c trims with isspace). */
static bool comment_line(const uint8_t *l, size_t len)
{
	size_t i = 0;

	while (i < len && isspace(l[i]))
		i++;
	return i < len && l[i] == '#';
}

/*
 * Writes the file's lines (without their newline) to conf_path, a comment line as an
 * empty one if blank_comments; says whether a line is bad and whether one is a comment.
 */
static void write_conf(const uint8_t **lines, const size_t *lens, int n, bool blank_comments, bool *bad,
		       bool *comments)
{
	FILE *f = fopen(conf_path, "wb");

	FUZZ_CHECK(f != NULL, "cannot write %s", conf_path);
	*bad = *comments = false;
	for (int i = 0; i < n; i++) {
		bool c = comment_line(lines[i], lens[i]);

		*bad |= bad_line(lines[i], lens[i]);
		*comments |= c;
		if (!(blank_comments && c))
			fwrite(lines[i], 1, lens[i], f);
		fputc('\n', f);
	}
	FUZZ_CHECK(fclose(f) == 0, "cannot write %s", conf_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *env_keys[MAX_ENV];
	int nr_env = 0, nr_lines = 0;
	static const uint8_t *lines[1 << 16];
	static size_t lens[1 << 16];
	size_t i = 0;
	bool bad, comments;

	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - data) + 1 : size;

		if (data[i] != '@') {
			if (nr_lines < (int)(sizeof(lines) / sizeof(lines[0]))) {
				lines[nr_lines] = data + i;
				lens[nr_lines++] = end - i - (nl != NULL);
			}
		} else if (nr_env < MAX_ENV) {
			/* "@SUFFIX=VALUE": FLOWDPA_SUFFIX, the value up to the line's end or a NUL. */
			size_t len = end - i - 1 - (nl != NULL);
			char *line = strndup((const char *)data + i + 1, len);
			char *eq = line ? strchr(line, '=') : NULL;
			char key[160];

			if (eq != NULL && (size_t)(eq - line) < sizeof(key) - 8) {
				*eq = '\0';
				snprintf(key, sizeof(key), "FLOWDPA_%s", line);
				if (!pinned(key) && key[8] != '\0' && setenv(key, eq + 1, 1) == 0)
					env_keys[nr_env++] = strdup(key);
			}
			free(line);
		}
		i = end;
	}
	write_conf(lines, lens, nr_lines, false, &bad, &comments);

	doca_error_t rc = core_config_reload();
	const struct core_config *cfg = core_config_get();

	FUZZ_CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_BAD_CONFIG, "core_config_reload returned %s",
		   doca_error_get_name(rc));
	FUZZ_CHECK((rc == DOCA_SUCCESS) == (cfg != NULL), "core_config_get %s a config after %s",
		   cfg ? "gave" : "gave no", doca_error_get_name(rc));
	FUZZ_CHECK(core_config_status() == rc, "core_config_status disagrees with the reload");
	FUZZ_CHECK(!bad || rc == DOCA_ERROR_BAD_CONFIG,
		   "a file with a NUL byte or a line over %d characters loaded (%s)", CONFIG_LINE_MAX,
		   doca_error_get_name(rc));
	if (cfg != NULL)
		check_ranges(cfg);
	if (!bad && comments) {
		static struct core_config with_comments;

		if (cfg != NULL)
			with_comments = *cfg;
		write_conf(lines, lens, nr_lines, true, &bad, &comments);
		doca_error_t rc2 = core_config_reload();
		const struct core_config *cfg2 = core_config_get();

		FUZZ_EXPECT(rc2, rc, "core_config_reload of the file with its comments emptied");
		FUZZ_CHECK(cfg == NULL || memcmp(cfg2, &with_comments, sizeof(with_comments)) == 0,
			   "emptying the comment lines changed the configuration");
	}

	for (int k = 0; k < nr_env; k++) {
		unsetenv(env_keys[k]);
		free(env_keys[k]);
	}
	return 0;
}
