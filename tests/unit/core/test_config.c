/*
 * Unit tests: configuration from the environment and FLOWDPA_CONFIG; every key's good
 * and bad values; errors name key, value and what is allowed; nothing half-applied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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
	doca_error_t rc;
	const char *err;
	(void)state;

	setenv("FLOWDPA_DEVICE", "bf2", 1); /* typo of FLOWDPA_DEVICES */
	err = reload(&rc);
	assert_int_equal(rc, DOCA_SUCCESS);
	assert_non_null(strstr(err, "FLOWDPA_DEVICE is not a flowdpa setting"));
	unsetenv("FLOWDPA_DEVICE");
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
