/*
 * Unit tests: configuration from the environment and FLOWDPA_CONFIG; every key's good
 * and bad values; errors name key, value and what is allowed; nothing half-applied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>

#include "core/core_internal.h"
#include "test_support.h"

static void reload_cb(void *rc)
{
	*(doca_error_t *)rc = core_config_reload();
}

/* Reload and return stderr; *rc gets the status. */
static const char *reload(doca_error_t *rc)
{
	return test_capture_stderr(reload_cb, rc);
}

static void test_defaults(void **state)
{
	const struct core_config *c = core_config_get();
	(void)state;

	assert_non_null(c);
	assert_int_equal(c->nr_devices, 1);
	assert_int_equal(c->devices[0].model, CORE_MODEL_BF3);
	assert_int_equal(c->devices[0].nr_ports, 2);
	assert_int_equal(c->dpa_cores, 16);
	assert_int_equal(c->dpa_eus_per_core, 16);
	assert_int_equal(c->dpa_heap_size, 256ull << 20);
	assert_int_equal(c->nic_mode, CORE_NIC_MODE_SYNC);
	assert_int_equal(c->nic_latency_us, 0);
	assert_false(c->strict);
	assert_int_equal(c->faults, 0);
	assert_int_equal(c->port_rx[0].kind, CORE_TRAFFIC_NONE);
	assert_string_equal(c->trace_path, "");
	assert_int_equal(c->report_top, 10);
	assert_int_equal(core_config_status(), DOCA_SUCCESS);
}

static void test_every_key(void **state)
{
	const struct core_config *c;
	doca_error_t rc;
	(void)state;

	setenv("FLOWDPA_DEVICES", "bf3,bf2:1,CX7:4,cx6", 1);
	setenv("FLOWDPA_NIC_MODE", "async", 1);
	setenv("FLOWDPA_NIC_LATENCY_US", "250", 1);
	setenv("FLOWDPA_STRICT", "1", 1);
	setenv("FLOWDPA_DPA_CORES", "4", 1);
	setenv("FLOWDPA_DPA_EUS_PER_CORE", "8", 1);
	setenv("FLOWDPA_DPA_HEAP_SIZE", "64M", 1);
	setenv("FLOWDPA_FAULTS", "dpa_init,queue_poll", 1);
	setenv("FLOWDPA_PORT0_RX", "pcap:/tmp/in,1.pcap,loop=3", 1);
	setenv("FLOWDPA_PORT1_RX", "gen:flows=64,pkts=5000,zipf=1.1,seed=7,rate=100000", 1);
	setenv("FLOWDPA_PORT1_TX", "pcap:/tmp/out.pcap", 1);
	reload(&rc);
	assert_int_equal(rc, DOCA_SUCCESS);
	c = core_config_get();
	assert_non_null(c);
	assert_int_equal(c->nr_devices, 4);
	assert_int_equal(c->devices[1].model, CORE_MODEL_BF2);
	assert_int_equal(c->devices[1].nr_ports, 1);
	assert_int_equal(c->devices[2].model, CORE_MODEL_CX7);
	assert_int_equal(c->devices[2].nr_ports, 4);
	assert_int_equal(c->devices[3].model, CORE_MODEL_CX6);
	assert_int_equal(c->nic_mode, CORE_NIC_MODE_ASYNC);
	assert_int_equal(c->nic_latency_us, 250);
	assert_true(c->strict);
	assert_int_equal(c->dpa_cores, 4);
	assert_int_equal(c->dpa_eus_per_core, 8);
	assert_int_equal(c->dpa_heap_size, 64ull << 20);
	assert_true(core_fault_injected(CORE_FAULT_DPA_INIT));
	assert_true(core_fault_injected(CORE_FAULT_QUEUE_POLL));
	assert_false(core_fault_injected(CORE_FAULT_PIPE_EXPORT));
	assert_int_equal(c->port_rx[0].kind, CORE_TRAFFIC_PCAP);
	assert_string_equal(c->port_rx[0].path, "/tmp/in,1.pcap"); /* a comma inside a path survives */
	assert_int_equal(c->port_rx[0].loop, 3);
	assert_int_equal(c->port_rx[1].kind, CORE_TRAFFIC_GEN);
	assert_int_equal(c->port_rx[1].flows, 64);
	assert_int_equal(c->port_rx[1].pkts, 5000);
	assert_true(c->port_rx[1].zipf > 1.09 && c->port_rx[1].zipf < 1.11);
	assert_int_equal(c->port_rx[1].seed, 7);
	assert_int_equal(c->port_rx[1].rate_pps, 100000);
	assert_int_equal(c->port_tx[1].kind, CORE_TRAFFIC_PCAP);
	assert_string_equal(c->port_tx[1].path, "/tmp/out.pcap");
}

static void test_bad_values_name_key_value_and_rule(void **state)
{
	static const struct {
		const char *key, *value, *says;
	} bad[] = {
		{"FLOWDPA_DEVICES", "bf9", "allowed: bf3, cx7"},
		{"FLOWDPA_DEVICES", "bf3:0", "from 1 to 8"},
		{"FLOWDPA_DEVICES", "bf3:two", "from 1 to 8"},
		{"FLOWDPA_DEVICES", ",", "names no device"},
		{"FLOWDPA_NIC_MODE", "fast", "allowed: sync, async"},
		{"FLOWDPA_NIC_LATENCY_US", "-5", "0..10000000"},
		{"FLOWDPA_NIC_LATENCY_US", "12ms", "0..10000000"},
		{"FLOWDPA_STRICT", "yes", "use 0 or 1"},
		{"FLOWDPA_DPA_CORES", "0", "from 1 to 64"},
		{"FLOWDPA_DPA_HEAP_SIZE", "lots", "4K..64G"},
		{"FLOWDPA_FAULTS", "everything", "allowed: dpa_init"},
		{"FLOWDPA_PORT0_RX", "file:x.pcap", "pcap:FILE or gen:"},
		{"FLOWDPA_PORT0_RX", "gen:flows=0", "flows=1..16777216"},
		{"FLOWDPA_PORT0_RX", "gen:zipf=abc", "zipf=0..10"},
		{"FLOWDPA_PORT0_RX", "pcap:", "needs a file name"},
		{"FLOWDPA_PORT99_RX", "pcap:x", "0..15"},
		{"FLOWDPA_PORT4294967296_RX", "pcap:x", "0..15"},
		{"FLOWDPA_PORT99999999999999999999_TX", "pcap:x", "0..15"},
		{"FLOWDPA_PORT0_RX", "gen:zipf= 1", "zipf=0..10"},
		{"FLOWDPA_PORT0_RX", "gen:zipf=0x1p1", "zipf=0..10"},
		{"FLOWDPA_PORT0_RX", "gen:zipf=inf", "zipf=0..10"},
		{"FLOWDPA_DEVICES", "bf3,bf3,bf3,bf3,bf3,bf3,bf3,bf3,bf3", "more than 8"},
		{"FLOWDPA_PORT0_TX", "gen:flows=1", "use pcap:FILE"},
		{"FLOWDPA_TRACE", "", "empty path"},
		{"FLOWDPA_REPORT_TOP", "ten", "0..100000 entries per pipe"},
		{"FLOWDPA_REPORT_TOP", "100001", "0..100000 entries per pipe"},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char expect[256];
		doca_error_t rc;
		const char *err;

		test_clear_flowdpa_env();
		setenv("FLOWDPA_NIC_MODE", "async", 1); /* a good key that must not be half-applied */
		setenv(bad[i].key, bad[i].value, 1);
		err = reload(&rc);
		assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
		snprintf(expect, sizeof(expect), "%s=\"%s\"", bad[i].key, bad[i].value);
		if (strstr(err, expect) == NULL || strstr(err, bad[i].says) == NULL)
			fail_msg("for %s=%s got: %s", bad[i].key, bad[i].value, err);
		assert_null(core_config_get());
		assert_int_equal(core_config_status(), DOCA_ERROR_BAD_CONFIG);
		assert_false(core_fault_injected(CORE_FAULT_DPA_INIT));
	}
}

static void test_unknown_env_key_warns_only(void **state)
{
	static const struct {
		const char *key, *says;
	} typo[] = {
		{"FLOWDPA_DEVICE", "FLOWDPA_DEVICE is not a flowdpa setting; ignored (did you mean FLOWDPA_DEVICES?)"},
		{"FLOWDPA_PROT3_RX", "(did you mean FLOWDPA_PORT3_RX?)"},
		{"FLOWDPA_PORT12_TXX", "(did you mean FLOWDPA_PORT12_TX?)"},
		{"FLOWDPA_PORT_RX", "(did you mean FLOWDPA_PORTn_RX?)"},
		{"FLOWDPA_HEAP_SIZE", "(did you mean FLOWDPA_DPA_HEAP_SIZE?)"},
		{"FLOWDPA_FAULT", "(did you mean FLOWDPA_FAULTS?)"},
	};
	doca_error_t rc;
	const char *err;
	(void)state;

	for (size_t i = 0; i < sizeof(typo) / sizeof(typo[0]); i++) {
		setenv(typo[i].key, "bf2", 1);
		err = reload(&rc);
		assert_int_equal(rc, DOCA_SUCCESS); /* a warning only: other tools may own FLOWDPA_ names */
		if (strstr(err, typo[i].says) == NULL)
			fail_msg("%s: %s", typo[i].key, err);
		unsetenv(typo[i].key);
	}
	/* Nothing near: no guess. */
	setenv("FLOWDPA_BENCH_PEERS", "4", 1);
	err = reload(&rc);
	assert_int_equal(rc, DOCA_SUCCESS);
	assert_non_null(strstr(err, "FLOWDPA_BENCH_PEERS is not a flowdpa setting; ignored\n"));
}

/* In a file an unknown key is an error, with the nearest known key when one is near. */
static void test_unknown_file_key_suggests(void **state)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{"FLOWDPA_STRICT=1\nFLOWDPA_NICMODE=sync\n", ":2: FLOWDPA_NICMODE=\"sync\": unknown key; did you mean FLOWDPA_NIC_MODE?"},
		{"flowdpa_strict=1\n", "did you mean FLOWDPA_STRICT?"},
		{"FLOWDPA_PORT0_RC=pcap:x\n", "did you mean FLOWDPA_PORT0_RX?"},
		{"DOCA_LOG_LEVEL=debug\n", ":1: DOCA_LOG_LEVEL=\"debug\": unknown key (docs/configuration.md"},
		{"FLOWDPA_CONFIG=other.conf\n", "read from the environment only"},
	};
	doca_error_t rc;
	const char *err;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = test_write_temp(bad[i].text);

		setenv("FLOWDPA_CONFIG", path, 1);
		err = reload(&rc);
		assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
		if (strstr(err, bad[i].says) == NULL || strstr(err, path) == NULL)
			fail_msg("file %zu: %s", i, err);
		unlink(path);
	}
}

static void test_config_file_and_precedence(void **state)
{
	const char *path = test_write_temp("# devices for the test\n"
					   "FLOWDPA_DEVICES = cx7:1,bf2\n"
					   "\n"
					   "FLOWDPA_NIC_MODE=async\n"
					   "FLOWDPA_STRICT=1\n");
	const struct core_config *c;
	doca_error_t rc;
	(void)state;

	setenv("FLOWDPA_CONFIG", path, 1);
	setenv("FLOWDPA_STRICT", "0", 1); /* the environment wins over the file */
	reload(&rc);
	assert_int_equal(rc, DOCA_SUCCESS);
	c = core_config_get();
	assert_int_equal(c->nr_devices, 2);
	assert_int_equal(c->devices[0].model, CORE_MODEL_CX7);
	assert_int_equal(c->devices[0].nr_ports, 1);
	assert_int_equal(c->nic_mode, CORE_NIC_MODE_ASYNC);
	assert_false(c->strict);
	assert_string_equal(c->config_file, path);
	unlink(path);
}

static void test_config_file_errors(void **state)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{"FLOWDPA_DEVICES=bf3\nFLOWDPA_NIC_MODE=turbo\n", ":2: FLOWDPA_NIC_MODE=\"turbo\""},
		{"FLOWDPA_NICMODE=sync\n", "unknown key"},
		{"just words\n", "KEY=VALUE"},
		{NULL, "too long"}, /* filled in below: a comment longer than a line may be */
	};
	doca_error_t rc;
	const char *err;
	(void)state;

	static char long_line[1024];

	/* fgets would split this and read "FLOWDPA_STRICT=1" as a line of its own */
	memset(long_line, '#', 780);
	strcpy(long_line + 780, "FLOWDPA_STRICT=1\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = test_write_temp(bad[i].text ? bad[i].text : long_line);

		setenv("FLOWDPA_CONFIG", path, 1);
		err = reload(&rc);
		assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
		if (strstr(err, bad[i].says) == NULL || strstr(err, path) == NULL)
			fail_msg("file %zu: %s", i, err);
		unlink(path);
	}
	setenv("FLOWDPA_CONFIG", "/nonexistent/flowdpa.conf", 1);
	err = reload(&rc);
	assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
	assert_non_null(strstr(err, "cannot be opened"));
}

/* Writes len bytes (NULs included) to a fresh temp file; returns its path (static buffer). */
static const char *write_temp_bytes(const char *bytes, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/flowdpa-cfg-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, bytes, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

/* Issue 15: a NUL byte hid the real length of a line from the length check, so the
 * part of a long comment past the read buffer was applied as a KEY=VALUE line. */
static void test_config_file_nul_bytes(void **state)
{
	static char text[1024];
	static const char tail[] = "FLOWDPA_DEVICES=cx6\n";
	size_t len;
	doca_error_t rc;
	const char *err;
	char expect[128];
	(void)state;

	memset(text, 'x', 767);
	text[0] = '#';
	text[1] = '\0';
	memcpy(text + 767, tail, sizeof(tail) - 1);
	len = 767 + sizeof(tail) - 1;
	for (int round = 0; round < 2; round++) {
		const char *path = write_temp_bytes(text, len);

		setenv("FLOWDPA_CONFIG", path, 1);
		err = reload(&rc);
		assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
		assert_null(core_config_get());
		snprintf(expect, sizeof(expect), "%s:%d: ", path, round + 1);
		if (strstr(err, expect) == NULL || strstr(err, "NUL byte") == NULL)
			fail_msg("round %d: %s", round, err);
		assert_null(strchr(strchr(err, '\n') + 1, '\n')); /* one line */
		unlink(path);
		/* A short line too (line 2): "FLOWDPA_STRICT=1\0..." is not FLOWDPA_STRICT=1. */
		memcpy(text, "FLOWDPA_NIC_MODE=async\nFLOWDPA_STRICT=1\0junk\n", 45);
		len = 45;
	}
	/* The same line without its NUL is a line too long, on line 2 here. */
	memcpy(text, "# ok\n", 5);
	memset(text + 5, '#', 800);
	memcpy(text + 805, tail, sizeof(tail));
	const char *path = write_temp_bytes(text, strlen(text));

	setenv("FLOWDPA_CONFIG", path, 1);
	err = reload(&rc);
	assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
	snprintf(expect, sizeof(expect), "%s:2: ", path);
	if (strstr(err, expect) == NULL || strstr(err, "at most 767 characters") == NULL)
		fail_msg("long line: %s", err);
	unlink(path);
	/* 767 characters are still a line. */
	memset(text, '#', 767);
	strcpy(text + 767, "\nFLOWDPA_STRICT=1");
	path = write_temp_bytes(text, strlen(text));
	setenv("FLOWDPA_CONFIG", path, 1);
	reload(&rc);
	assert_int_equal(rc, DOCA_SUCCESS);
	assert_true(core_config_get()->strict); /* a last line without its newline counts */
	unlink(path);
}

/* Issue 15: a directory read as an empty file; a file that cannot be read is refused too. */
static void test_config_file_not_a_file(void **state)
{
	static const struct {
		const char *path, *says;
	} bad[] = {
		{"/tmp", "names a directory"},
		{"/tmp/", "names a directory"},
		{"/proc/self/mem", "cannot be read"},
		{"/nonexistent/flowdpa.conf", "cannot be opened: No such file or directory"},
	};
	doca_error_t rc;
	const char *err;
	char expect[128];
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("FLOWDPA_CONFIG", bad[i].path, 1);
		err = reload(&rc);
		assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
		assert_null(core_config_get());
		snprintf(expect, sizeof(expect), "%s", bad[i].path);
		if (strstr(err, expect) == NULL || strstr(err, bad[i].says) == NULL)
			fail_msg("%s: %s", bad[i].path, err);
		assert_null(strchr(strchr(err, '\n') + 1, '\n'));
	}
}

/* Issue 12: relative paths in the file name files next to it; the environment's stay
 * relative to the cwd. */
static void test_config_file_relative_paths(void **state)
{
	char dir[] = "/tmp/flowdpa-rel-XXXXXX";
	char conf[64], cwd[PATH_MAX], expect[PATH_MAX + 64];
	const struct core_config *c;
	doca_error_t rc;
	FILE *f;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/flowdpa.conf", dir);
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs("FLOWDPA_PORT0_RX=pcap:in.pcap,loop=2\n"
	      "FLOWDPA_PORT1_TX=pcap:sub/out.pcap\n"
	      "FLOWDPA_PORT2_RX=pcap:/abs/x.pcap\n"
	      "FLOWDPA_PORT4_RX=gen:pkts=5\n"
	      "FLOWDPA_TRACE=trace.json\n"
	      "FLOWDPA_REPORT=-\n",
	      f);
	fclose(f);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	/* A relative FLOWDPA_CONFIG: its folder still resolves to an absolute one. */
	assert_int_equal(chdir("/tmp"), 0);
	setenv("FLOWDPA_CONFIG", conf + strlen("/tmp/"), 1);
	setenv("FLOWDPA_PORT3_TX", "pcap:env.pcap", 1);
	reload(&rc);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rc, DOCA_SUCCESS);
	c = core_config_get();
	snprintf(expect, sizeof(expect), "%s/in.pcap", dir);
	assert_string_equal(c->port_rx[0].path, expect);
	assert_int_equal(c->port_rx[0].loop, 2);
	snprintf(expect, sizeof(expect), "%s/sub/out.pcap", dir);
	assert_string_equal(c->port_tx[1].path, expect);
	assert_string_equal(c->port_rx[2].path, "/abs/x.pcap");
	assert_int_equal(c->port_rx[4].kind, CORE_TRAFFIC_GEN);
	snprintf(expect, sizeof(expect), "%s/trace.json", dir);
	assert_string_equal(c->trace_path, expect);
	assert_string_equal(c->report_path, "-");
	assert_string_equal(c->port_tx[3].path, "env.pcap");
	test_clean_env(NULL); /* closes the trace before its folder goes */
	unlink(expect);
	/* A relative path that fits alone but not joined to the folder: an error naming the line. */
	static char text[600];
	doca_error_t rc2;
	const char *err;

	memset(text, 'a', sizeof(text));
	memcpy(text, "FLOWDPA_PORT0_TX=pcap:", 22);
	strcpy(text + 22 + 500, "\n");
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	setenv("FLOWDPA_CONFIG", conf, 1);
	err = reload(&rc2);
	assert_int_equal(rc2, DOCA_ERROR_BAD_CONFIG);
	snprintf(expect, sizeof(expect), "%s:1: FLOWDPA_PORT0_TX=", conf);
	if (strstr(err, expect) == NULL || strstr(err, "relative to the config file's folder") == NULL)
		fail_msg("got: %s", err);
	unlink(conf);
	assert_int_equal(rmdir(dir), 0);
}

/* A FLOWDPA_CONFIG path too long to hold is one error line like any other: key, value,
 * what is allowed. */
static void test_config_path_too_long(void **state)
{
	static char path[600];
	char expect[700];
	doca_error_t rc;
	const char *err;
	(void)state;

	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	setenv("FLOWDPA_CONFIG", path, 1);
	err = reload(&rc);
	assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
	assert_null(core_config_get());
	snprintf(expect, sizeof(expect), "flowdpa: configuration error: FLOWDPA_CONFIG=\"%s\": ", path);
	if (strstr(err, expect) == NULL || strstr(err, "at most 511 characters") == NULL)
		fail_msg("got: %s", err);
	assert_non_null(strchr(err, '\n'));
	assert_null(strchr(strchr(err, '\n') + 1, '\n')); /* exactly one line */
	/* 511 characters are still a path (the file does not exist: a different error) */
	path[511] = '\0';
	setenv("FLOWDPA_CONFIG", path, 1);
	err = reload(&rc);
	assert_int_equal(rc, DOCA_ERROR_BAD_CONFIG);
	assert_non_null(strstr(err, "cannot be opened"));
}

static void test_traffic_parser_direct(void **state)
{
	struct core_traffic_src src;
	char err[256];
	(void)state;

	assert_int_equal(core_config_parse_traffic_src("gen:pkts=10", &src, err, sizeof(err)), DOCA_SUCCESS);
	assert_int_equal(src.flows, 1); /* defaults for what is not given */
	assert_int_equal(src.seed, 1);
	assert_int_equal(src.loop, 1);
	assert_int_equal(src.pkts, 10);
	assert_int_equal(core_config_parse_traffic_src("pcap:a.pcap,flows=3", &src, err, sizeof(err)),
			 DOCA_SUCCESS); /* ",flows=" is not an option of pcap: it is part of the name */
	assert_string_equal(src.path, "a.pcap,flows=3");
	assert_int_equal(core_config_parse_traffic_src("pcap:a.pcap,rate=0", &src, err, sizeof(err)),
			 DOCA_ERROR_BAD_CONFIG);
	assert_int_equal(core_config_parse_traffic_src("gen:flows", &src, err, sizeof(err)), DOCA_ERROR_BAD_CONFIG);
	assert_non_null(strstr(err, "not name=value"));
	assert_int_equal(core_config_parse_traffic_src(NULL, &src, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(core_config_parse_traffic_src("gen:", NULL, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_string_equal(core_device_model_name(CORE_MODEL_CX6), "cx6");
	assert_string_equal(core_device_model_name((enum core_device_model)42), "unknown");
	assert_false(core_fault_injected(CORE_FAULT_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_every_key, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_bad_values_name_key_value_and_rule, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_unknown_env_key_warns_only, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_config_file_and_precedence, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_config_file_errors, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_traffic_parser_direct, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_config_path_too_long, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_config_file_nul_bytes, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_config_file_not_a_file, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_config_file_relative_paths, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_unknown_file_key_suggests, test_clean_env, test_clean_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
