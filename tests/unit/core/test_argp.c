/*
 * test_argp.c - doca_argp.h: registration and parsing of every flag type, the DOCA
 * flags (-l, --sdk-log-level, -h), the DPDK split at "--", and each refusal (NULL,
 * wrong order, bad values, unknown and missing flags) with its code and one log line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <doca_argp.h>

#include "log_capture.h"
#include "test_support.h"

struct cfg {
	char dev[64];
	int n, n_calls;
	double ratio;
	bool verbose;
	int validated;
};

static doca_error_t dev_cb(void *param, void *config)
{
	struct cfg *c = config;
	snprintf(c->dev, sizeof(c->dev), "%s", (const char *)param);
	return DOCA_SUCCESS;
}

static doca_error_t n_cb(void *param, void *config)
{
	struct cfg *c = config;
	c->n = *(int *)param;
	c->n_calls++;
	return c->n == 13 ? DOCA_ERROR_NOT_PERMITTED : DOCA_SUCCESS;
}

static doca_error_t ratio_cb(void *param, void *config)
{
	((struct cfg *)config)->ratio = *(double *)param;
	return DOCA_SUCCESS;
}

static doca_error_t verbose_cb(void *param, void *config)
{
	((struct cfg *)config)->verbose = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t validate_cb(void *config)
{
	((struct cfg *)config)->validated++;
	return DOCA_SUCCESS;
}

static int dpdk_argc;
static char *dpdk_arg1;
static doca_error_t dpdk_cb(int argc, char **argv)
{
	dpdk_argc = argc;
	dpdk_arg1 = argc > 1 ? argv[1] : NULL;
	return DOCA_SUCCESS;
}

static struct doca_argp_param *mk(const char *s, const char *l, enum doca_argp_type t, doca_argp_param_cb_t cb)
{
	struct doca_argp_param *p = NULL;
	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	if (s)
		doca_argp_param_set_short_name(p, s);
	if (l)
		doca_argp_param_set_long_name(p, l);
	doca_argp_param_set_arguments(p, "<value>");
	doca_argp_param_set_description(p, "a test flag");
	doca_argp_param_set_callback(p, cb);
	doca_argp_param_set_type(p, t);
	return p;
}

/* The four flags most tests use; --pf-device mandatory, -n repeatable. */
static void setup_params(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(doca_argp_init("argp_test", c), DOCA_SUCCESS);
	struct doca_argp_param *p = mk("pf_dev", "pf-device", DOCA_ARGP_TYPE_STRING, dev_cb);
	doca_argp_param_set_mandatory(p);
	doca_argp_param_set_cli_only(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	p = mk("n", "number", DOCA_ARGP_TYPE_INT, n_cb);
	doca_argp_param_set_multiplicity(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(mk(NULL, "ratio", DOCA_ARGP_TYPE_DOUBLE, ratio_cb)), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(mk("V", NULL, DOCA_ARGP_TYPE_BOOLEAN, verbose_cb)), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_validation_callback(validate_cb), DOCA_SUCCESS);
}

static doca_error_t run(int argc, char **argv)
{
	log_capture_clear();
	return doca_argp_start(argc, argv);
}

static void parses_every_type(void **state)
{
	(void)state;
	struct cfg c;
	setup_params(&c);
	char *argv[] = {"/x/prog", "-pf_dev", "mlx5_0", "-n", "3", "--number=0x10", "--ratio", "2.5", "-V", "-l", "60", "--sdk-log-level", "30", NULL};
	assert_int_equal(run(13, argv), DOCA_SUCCESS);
	assert_string_equal(c.dev, "mlx5_0");
	assert_int_equal(c.n, 16);
	assert_int_equal(c.n_calls, 2);
	assert_true(c.ratio == 2.5);
	assert_true(c.verbose);
	assert_int_equal(c.validated, 1);
	int lvl = 0;
	assert_int_equal(doca_argp_get_log_level(&lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, 60);
	assert_int_equal(doca_argp_get_sdk_log_level(&lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, 30);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), 30);
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	assert_int_equal(log_capture_count(NULL), 0);
	/* A second start is refused; destroy then init again works. */
	assert_int_equal(run(13, argv), DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_capture_count("doca_argp_start: already started"), 1);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	assert_int_equal(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
}

static void expect_refusal(char **argv, int argc, doca_error_t code, const char *line)
{
	struct cfg c;
	setup_params(&c);
	assert_int_equal(run(argc, argv), code);
	if (log_capture_count(line) != 1)
		log_capture_dump();
	assert_int_equal(log_capture_count(line), 1);
	assert_int_equal(log_capture_count("[ERR]"), 1); /* exactly one log line */
	assert_int_equal(c.validated, 0);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

static void refuses_bad_command_lines(void **state)
{
	(void)state;
	char *unknown[] = {"prog", "-pf_dev", "x", "--bogus", NULL};
	expect_refusal(unknown, 4, DOCA_ERROR_NOT_SUPPORTED, "doca_argp_start: unknown flag --bogus");
	char *not_int[] = {"prog", "-pf_dev", "x", "-n", "12abc", NULL};
	expect_refusal(not_int, 5, DOCA_ERROR_INVALID_VALUE, "flag -n: \"12abc\" is not an integer");
	char *big[] = {"prog", "-pf_dev", "x", "-n", "99999999999", NULL};
	expect_refusal(big, 5, DOCA_ERROR_INVALID_VALUE, "is not an integer");
	char *not_double[] = {"prog", "-pf_dev", "x", "--ratio", "fast", NULL};
	expect_refusal(not_double, 5, DOCA_ERROR_INVALID_VALUE, "\"fast\" is not a number");
	char *no_value[] = {"prog", "-pf_dev", NULL};
	expect_refusal(no_value, 2, DOCA_ERROR_INVALID_VALUE, "flag -pf_dev needs a value");
	char *missing[] = {"prog", "-n", "1", NULL};
	expect_refusal(missing, 3, DOCA_ERROR_INVALID_VALUE, "mandatory flag --pf-device is missing");
	char *twice[] = {"prog", "-pf_dev", "a", "--pf-device", "b", NULL};
	expect_refusal(twice, 5, DOCA_ERROR_INVALID_VALUE, "flag --pf-device given more than once");
	char *stray[] = {"prog", "-pf_dev", "a", "extra", NULL};
	expect_refusal(stray, 4, DOCA_ERROR_INVALID_VALUE, "unexpected argument \"extra\"");
	char *level[] = {"prog", "-pf_dev", "a", "-l", "55", NULL};
	expect_refusal(level, 5, DOCA_ERROR_INVALID_VALUE, "\"55\" is not a log level");
	char *json[] = {"prog", "-j", "cfg.json", NULL};
	expect_refusal(json, 3, DOCA_ERROR_NOT_SUPPORTED, "JSON configuration files are not supported");
	/* A callback's own error is passed on as it is. */
	struct cfg c;
	setup_params(&c);
	char *cb_err[] = {"prog", "-pf_dev", "a", "-n", "13", NULL};
	assert_int_equal(run(5, cb_err), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

static void refuses_bad_registration(void **state)
{
	(void)state;
	struct cfg c;
	struct doca_argp_param *p = NULL;
	log_capture_clear();
	/* Before init. */
	assert_int_equal(doca_argp_param_create(&p), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_validation_callback(validate_cb), DOCA_ERROR_BAD_STATE);
	char *argv[] = {"prog", NULL};
	assert_int_equal(doca_argp_start(1, argv), DOCA_ERROR_BAD_STATE);
	doca_argp_set_dpdk_program(dpdk_cb);
	assert_int_equal(log_capture_count("doca_argp_init was not called"), 4);
	setup_params(&c);
	assert_int_equal(doca_argp_init("again", &c), DOCA_ERROR_BAD_STATE);
	log_capture_clear();
	assert_int_equal(doca_argp_param_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_validation_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_param_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	doca_argp_param_set_long_name(NULL, "x"); /* logged, ignored */
	assert_int_equal(log_capture_count(NULL), 5);
	/* Incomplete params: INITIALIZATION, freed by argp. */
	assert_int_equal(doca_argp_register_param(mk(NULL, NULL, DOCA_ARGP_TYPE_INT, n_cb)), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(doca_argp_register_param(mk("q", NULL, DOCA_ARGP_TYPE_INT, NULL)), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(doca_argp_register_param(mk("q", NULL, DOCA_ARGP_TYPE_UNKNOWN, n_cb)), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(doca_argp_register_param(mk("n", NULL, DOCA_ARGP_TYPE_INT, n_cb)), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(doca_argp_register_param(mk("help", NULL, DOCA_ARGP_TYPE_INT, n_cb)), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(doca_argp_register_param(mk("d", NULL, DOCA_ARGP_TYPE_DEVICE, n_cb)), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(log_capture_count("uses a name that is already taken"), 2);
	p = mk("z", NULL, DOCA_ARGP_TYPE_INT, n_cb);
	doca_argp_param_set_description(p, NULL);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(log_capture_count("has no description"), 1);
	/* Registered twice; destroyed while registered. */
	p = mk("w", NULL, DOCA_ARGP_TYPE_INT, n_cb);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_param_destroy(p), DOCA_ERROR_BAD_STATE);
	/* An unregistered param is the caller's to destroy. */
	p = mk("u", NULL, DOCA_ARGP_TYPE_INT, n_cb);
	assert_int_equal(doca_argp_param_destroy(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_start(0, NULL), DOCA_ERROR_INVALID_VALUE);
	int lvl;
	assert_int_equal(doca_argp_get_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_get_sdk_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_get_log_level(&lvl), DOCA_SUCCESS); /* not given: the global limit */
	assert_int_equal(lvl, (int)doca_log_level_get_global_lower_limit());
	/* State intact: the earlier flags still parse. */
	char *good[] = {"prog", "-pf_dev", "ok", "-w", "1", NULL};
	assert_int_equal(doca_argp_start(5, good), DOCA_SUCCESS);
	assert_string_equal(c.dev, "ok");
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

static void dpdk_split(void **state)
{
	(void)state;
	struct cfg c;
	setup_params(&c);
	doca_argp_set_dpdk_program(dpdk_cb);
	char *argv[] = {"prog", "-a", "aux/2,dv_flow_en=2", "--", "-pf_dev", "d0", NULL};
	assert_int_equal(run(6, argv), DOCA_SUCCESS);
	assert_int_equal(dpdk_argc, 3);
	assert_string_equal(dpdk_arg1, "-a");
	assert_string_equal(c.dev, "d0");
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	/* Without "--" the DPDK callback gets the program name only, the rest is ours. */
	setup_params(&c);
	doca_argp_set_dpdk_program(dpdk_cb);
	char *argv2[] = {"prog", "-pf_dev", "d1", NULL};
	assert_int_equal(run(3, argv2), DOCA_SUCCESS);
	assert_int_equal(dpdk_argc, 1);
	assert_string_equal(c.dev, "d1");
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

static void print_usage(void *arg)
{
	(void)arg;
	doca_argp_usage();
	fflush(stdout);
}

static void usage_and_help(void **state)
{
	(void)state;
	struct cfg c;
	setup_params(&c);
	const char *u = test_capture_fd(1, print_usage, NULL);
	assert_non_null(strstr(u, "Usage: argp_test [DOCA Flags] [Program Flags]"));
	assert_non_null(strstr(u, "-h, --help"));
	assert_non_null(strstr(u, "-l, --log-level"));
	assert_non_null(strstr(u, "--sdk-log-level"));
	assert_non_null(strstr(u, "-pf_dev, --pf-device <value>"));
	assert_non_null(strstr(u, "a test flag (mandatory)"));
	assert_non_null(strstr(u, "--ratio <value>"));
	fflush(stdout);
	/* -h prints the usage and exits 0 (in a child: it ends the process). */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", 1);
		dup2(null, 1);
		char *argv[] = {"prog", "-h", NULL};
		doca_argp_start(2, argv);
		_exit(3);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

int main(void)
{
	test_clear_flowdpa_env();
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_every_type),   cmocka_unit_test(refuses_bad_command_lines),
		cmocka_unit_test(refuses_bad_registration), cmocka_unit_test(dpdk_split),
		cmocka_unit_test(usage_and_help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
