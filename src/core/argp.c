/*
 * argp.c - doca_argp.h: DOCA's argument parser on top of libc's getopt_long_only. The
 * registered flags live in one process-wide list (DOCA's parser is a singleton too),
 * from doca_argp_init to doca_argp_destroy. Each short and long name becomes a
 * getopt long option, so multi-character short names ("-pf_dev") work as in DOCA.
 */
#include "core.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_version.h>

DOCA_LOG_REGISTER(CORE::ARGP);

struct doca_argp_param {
	const char *short_name, *long_name, *arguments, *description;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory, cli_only, multi, registered;
	unsigned seen;
	struct doca_argp_param *next;
};

/* The DOCA flags, as getopt ids below the program flags' (which are 1000 + index). */
enum { GEN_HELP = 1, GEN_VERSION, GEN_LOG, GEN_SDK_LOG, GEN_JSON, GEN_PARAM = 1000 };
static const struct {
	const char *name;
	int has_arg, id;
	const char *usage;
} general[] = {
	{"h", no_argument, GEN_HELP, NULL},
	{"help", no_argument, GEN_HELP, "-h, --help                              Print a help synopsis"},
	{"v", no_argument, GEN_VERSION, NULL},
	{"version", no_argument, GEN_VERSION, "-v, --version                           Print program version information"},
	{"l", required_argument, GEN_LOG, NULL},
	{"log-level", required_argument, GEN_LOG,
	 "-l, --log-level                         Set the (numeric) log level for the program <10=DISABLE, 20=CRITICAL, "
	 "30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>"},
	{"sdk-log-level", required_argument, GEN_SDK_LOG,
	 "--sdk-log-level                         Set the SDK (numeric) log level for the program <10=DISABLE, "
	 "20=CRITICAL, 30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>"},
	{"j", required_argument, GEN_JSON, NULL},
	{"json", required_argument, GEN_JSON, "-j, --json <path>                       Parse all command flags from an input json file"},
};
#define NR_GENERAL (sizeof(general) / sizeof(general[0]))

static struct {
	bool inited, started;
	const char *program_name;
	char name_buf[256];
	void *config;
	struct doca_argp_param *params, **tail;
	unsigned nr_params;
	doca_argp_validation_cb_t validate;
	doca_argp_dpdk_cb_t dpdk;
	int log_level, sdk_log_level; /* -1: not given */
} argp;

#define NEED_INIT(call, ret)                                                                                   \
	do {                                                                                                   \
		if (!argp.inited) {                                                                            \
			CORE_LOG_ERR("%s: doca_argp_init was not called (or doca_argp_destroy was)", (call));  \
			return ret;                                                                            \
		}                                                                                              \
	} while (0)

#define NEED_PARAM(call, p)                                                                                    \
	do {                                                                                                   \
		if ((p) == NULL) {                                                                             \
			CORE_LOG_ERR("%s: param is NULL (ignored)", (call));                                   \
			return;                                                                                \
		}                                                                                              \
	} while (0)

static void usage_line(void)
{
	fprintf(stderr, "Usage: %s%s [DOCA Flags] [Program Flags] (-h for the full list)\n",
		argp.program_name ? argp.program_name : "program", argp.dpdk ? " [DPDK Flags] --" : "");
}

void doca_argp_usage(void)
{
	const char *name = argp.program_name ? argp.program_name : "program";
	printf("Usage: %s%s [DOCA Flags] [Program Flags]\n\nDOCA Flags:\n", name, argp.dpdk ? " [DPDK Flags] --" : "");
	for (size_t i = 0; i < NR_GENERAL; i++)
		if (general[i].usage)
			printf("  %s\n", general[i].usage);
	if (argp.params)
		printf("\nProgram Flags:\n");
	for (const struct doca_argp_param *p = argp.params; p; p = p->next) {
		char flags[128];
		snprintf(flags, sizeof(flags), "%s%s%s%s%s%s%s", p->short_name ? "-" : "", p->short_name ? p->short_name : "",
			 p->short_name && p->long_name ? ", " : "", p->long_name ? "--" : "", p->long_name ? p->long_name : "",
			 p->arguments ? " " : "", p->arguments ? p->arguments : "");
		printf("  %-40s%s%s\n", flags, p->description, p->mandatory ? " (mandatory)" : "");
	}
}

doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
	if (argp.inited) {
		CORE_LOG_ERR("doca_argp_init: already initialized (call doca_argp_destroy first)");
		return DOCA_ERROR_BAD_STATE;
	}
	memset(&argp, 0, sizeof(argp));
	argp.inited = true;
	argp.tail = &argp.params;
	argp.config = program_config;
	argp.log_level = argp.sdk_log_level = -1;
	if (program_name) {
		snprintf(argp.name_buf, sizeof(argp.name_buf), "%s", program_name);
		argp.program_name = argp.name_buf;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
	if (param == NULL) {
		CORE_LOG_ERR("doca_argp_param_create: param is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	NEED_INIT("doca_argp_param_create", DOCA_ERROR_BAD_STATE);
	*param = core_calloc(1, sizeof(**param));
	if (*param == NULL)
		return CORE_LOG_NOMEM("doca_argp_param_create", "param");
	return DOCA_SUCCESS;
}

void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name)
{
	NEED_PARAM(__func__, param);
	param->short_name = name;
}

void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name)
{
	NEED_PARAM(__func__, param);
	param->long_name = name;
}

void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments)
{
	NEED_PARAM(__func__, param);
	param->arguments = arguments;
}

void doca_argp_param_set_description(struct doca_argp_param *param, const char *description)
{
	NEED_PARAM(__func__, param);
	param->description = description;
}

void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
	NEED_PARAM(__func__, param);
	param->callback = callback;
}

void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
	NEED_PARAM(__func__, param);
	param->type = type;
}

void doca_argp_param_set_mandatory(struct doca_argp_param *param)
{
	NEED_PARAM(__func__, param);
	param->mandatory = true;
}

void doca_argp_param_set_cli_only(struct doca_argp_param *param)
{
	NEED_PARAM(__func__, param);
	param->cli_only = true;
}

void doca_argp_param_set_multiplicity(struct doca_argp_param *param)
{
	NEED_PARAM(__func__, param);
	param->multi = true;
}

doca_error_t doca_argp_param_destroy(struct doca_argp_param *param)
{
	if (param == NULL) {
		CORE_LOG_ERR("doca_argp_param_destroy: param is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (param->registered) {
		CORE_LOG_ERR("doca_argp_param_destroy: the param is registered (argp owns it; doca_argp_destroy frees it)");
		return DOCA_ERROR_BAD_STATE;
	}
	free(param);
	return DOCA_SUCCESS;
}

/* A name already used by a DOCA flag or a registered one. */
static bool name_taken(const char *name)
{
	if (name == NULL)
		return false;
	for (size_t i = 0; i < NR_GENERAL; i++)
		if (strcmp(general[i].name, name) == 0)
			return true;
	for (const struct doca_argp_param *p = argp.params; p; p = p->next)
		if ((p->short_name && strcmp(p->short_name, name) == 0) || (p->long_name && strcmp(p->long_name, name) == 0))
			return true;
	return false;
}

doca_error_t doca_argp_register_param(struct doca_argp_param *input_param)
{
	struct doca_argp_param *p = input_param;
	const char *why = NULL;
	doca_error_t err = DOCA_ERROR_INITIALIZATION;

	if (p == NULL) {
		CORE_LOG_ERR("doca_argp_register_param: input_param is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	NEED_INIT("doca_argp_register_param", DOCA_ERROR_BAD_STATE);
	if (p->registered) {
		CORE_LOG_ERR("doca_argp_register_param: the param is already registered");
		return DOCA_ERROR_BAD_STATE;
	}
	if (p->short_name == NULL && p->long_name == NULL)
		why = "has neither a short nor a long name";
	else if ((p->short_name && *p->short_name == '\0') || (p->long_name && *p->long_name == '\0'))
		why = "has an empty name";
	else if (p->description == NULL)
		why = "has no description";
	else if (p->callback == NULL)
		why = "has no callback";
	else if (p->type == DOCA_ARGP_TYPE_UNKNOWN || p->type > DOCA_ARGP_TYPE_DOUBLE)
		why = "has no (or an unknown) type";
	else if (p->type == DOCA_ARGP_TYPE_DEVICE || p->type == DOCA_ARGP_TYPE_DEVICE_REP) {
		why = "is of a device type, which flowdpa's argp does not support (take a STRING and open the device)";
		err = DOCA_ERROR_NOT_SUPPORTED;
	} else if (name_taken(p->short_name) || name_taken(p->long_name) ||
		   (p->short_name && p->long_name && strcmp(p->short_name, p->long_name) == 0))
		why = "uses a name that is already taken";
	if (why) {
		CORE_LOG_ERR("doca_argp_register_param: param \"%s\" %s", p->long_name ? p->long_name : p->short_name ? p->short_name : "?", why);
		free(p); /* argp owns the param in every outcome */
		return err;
	}
	p->registered = true;
	*argp.tail = p;
	argp.tail = &p->next;
	argp.nr_params++;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	if (callback == NULL) {
		CORE_LOG_ERR("doca_argp_register_validation_callback: callback is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	NEED_INIT("doca_argp_register_validation_callback", DOCA_ERROR_BAD_STATE);
	argp.validate = callback;
	return DOCA_SUCCESS;
}

void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	if (!argp.inited) {
		CORE_LOG_ERR("doca_argp_set_dpdk_program: doca_argp_init was not called (ignored)");
		return;
	}
	argp.dpdk = callback;
}

static doca_error_t bad_value(const char *flag, const char *value, const char *want)
{
	CORE_LOG_ERR("doca_argp_start: flag %s: \"%s\" is not %s", flag, value, want);
	usage_line();
	return DOCA_ERROR_INVALID_VALUE;
}

/* Convert the value of p (given as flag) and hand it to the callback. */
static doca_error_t deliver(struct doca_argp_param *p, const char *flag, char *value)
{
	char *end = NULL;
	if (p->seen++ && !p->multi) {
		CORE_LOG_ERR("doca_argp_start: flag %s given more than once", flag);
		usage_line();
		return DOCA_ERROR_INVALID_VALUE;
	}
	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
		return p->callback(value, argp.config);
	case DOCA_ARGP_TYPE_INT: {
		errno = 0;
		long v = strtol(value, &end, 0);
		if (*value == '\0' || *end != '\0' || errno || v < INT_MIN || v > INT_MAX)
			return bad_value(flag, value, "an integer");
		int iv = (int)v;
		return p->callback(&iv, argp.config);
	}
	case DOCA_ARGP_TYPE_DOUBLE: {
		errno = 0;
		double d = strtod(value, &end);
		if (*value == '\0' || *end != '\0' || errno || !isfinite(d))
			return bad_value(flag, value, "a number");
		return p->callback(&d, argp.config);
	}
	case DOCA_ARGP_TYPE_BOOLEAN: {
		bool b = true;
		return p->callback(&b, argp.config);
	}
	default:
		return DOCA_ERROR_NOT_SUPPORTED; /* refused at register */
	}
}

static doca_error_t set_level(const char *flag, const char *value, int *store, bool sdk)
{
	char *end = NULL;
	long v = strtol(value, &end, 10);
	if (*value == '\0' || *end != '\0' || v < 10 || v > 70 || v % 10)
		return bad_value(flag, value, "a log level (10, 20, ... 70)");
	doca_error_t err = sdk ? doca_log_level_set_global_sdk_limit((uint32_t)v)
			       : doca_log_level_set_global_lower_limit((uint32_t)v);
	if (err == DOCA_SUCCESS)
		*store = (int)v;
	return err;
}

static doca_error_t parse(int argc, char **argv, struct option *opts, struct doca_argp_param **by_id)
{
	int id;
	opterr = 0;
	optind = 0; /* GNU: re-initialize, the program may have parsed before */
	while ((id = getopt_long_only(argc, argv, "+:", opts, NULL)) != -1) {
		/* The flag as written: the word before the value when the value was a word of its own. */
		const char *flag = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
		if (optarg != NULL && optind >= 2 && flag == optarg)
			flag = argv[optind - 2];
		if (id == ':') {
			CORE_LOG_ERR("doca_argp_start: flag %s needs a value", flag);
			usage_line();
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (id == '?') {
			CORE_LOG_ERR("doca_argp_start: unknown flag %s", flag);
			usage_line();
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		doca_error_t err = DOCA_SUCCESS;
		switch (id) {
		case GEN_HELP:
			doca_argp_usage();
			doca_argp_destroy();
			exit(EXIT_SUCCESS);
		case GEN_VERSION:
			printf("%s version %s (flowdpa, DOCA %s API)\n", argp.program_name, DOCA_VERSION_STRING,
			       DOCA_VERSION_STRING);
			doca_argp_destroy();
			exit(EXIT_SUCCESS);
		case GEN_LOG:
			err = set_level(flag, optarg, &argp.log_level, false);
			break;
		case GEN_SDK_LOG:
			err = set_level(flag, optarg, &argp.sdk_log_level, true);
			break;
		case GEN_JSON:
			CORE_LOG_ERR("doca_argp_start: %s: JSON configuration files are not supported by flowdpa's argp; "
				     "give the flags on the command line",
				     flag);
			return DOCA_ERROR_NOT_SUPPORTED;
		default:
			err = deliver(by_id[id - GEN_PARAM], flag, optarg ? optarg : (char *)"");
		}
		if (err != DOCA_SUCCESS)
			return err;
	}
	if (optind < argc) {
		CORE_LOG_ERR("doca_argp_start: unexpected argument \"%s\"", argv[optind]);
		usage_line();
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_start(int argc, char **argv)
{
	NEED_INIT("doca_argp_start", DOCA_ERROR_BAD_STATE);
	if (argc < 1 || argv == NULL || argv[0] == NULL) {
		CORE_LOG_ERR("doca_argp_start: argc %d / argv %p: need at least the program name", argc, (void *)argv);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (argp.started) {
		CORE_LOG_ERR("doca_argp_start: already started (doca_argp_destroy, then doca_argp_init again)");
		return DOCA_ERROR_BAD_STATE;
	}
	argp.started = true;
	if (argp.program_name == NULL) {
		const char *base = strrchr(argv[0], '/');
		snprintf(argp.name_buf, sizeof(argp.name_buf), "%s", base ? base + 1 : argv[0]);
		argp.program_name = argp.name_buf;
	}
	/* The DPDK part: everything before "--". */
	int first = 0;
	if (argp.dpdk) {
		int dd = 0;
		for (int i = 1; i < argc && !dd; i++)
			dd = strcmp(argv[i], "--") == 0 ? i : 0;
		doca_error_t err = argp.dpdk(dd ? dd : 1, argv);
		if (err != DOCA_SUCCESS)
			return err;
		first = dd;
	}
	size_t n = NR_GENERAL + 2 * argp.nr_params + 1;
	struct option *opts = core_calloc(n, sizeof(*opts));
	struct doca_argp_param **by_id = core_calloc(argp.nr_params + 1, sizeof(*by_id));
	char **args = core_calloc((size_t)argc + 1, sizeof(*args));
	if (opts == NULL || by_id == NULL || args == NULL) {
		free(opts), free(by_id), free(args);
		return CORE_LOG_NOMEM("doca_argp_start", "option table");
	}
	size_t k = 0;
	for (size_t i = 0; i < NR_GENERAL; i++)
		opts[k++] = (struct option){general[i].name, general[i].has_arg, NULL, general[i].id};
	unsigned id = 0;
	for (struct doca_argp_param *p = argp.params; p; p = p->next, id++) {
		int has = p->type == DOCA_ARGP_TYPE_BOOLEAN ? no_argument : required_argument;
		by_id[id] = p;
		p->seen = 0;
		if (p->short_name)
			opts[k++] = (struct option){p->short_name, has, NULL, GEN_PARAM + (int)id};
		if (p->long_name)
			opts[k++] = (struct option){p->long_name, has, NULL, GEN_PARAM + (int)id};
	}
	/* argv[0] then the DOCA part; getopt permutes its copy, never the caller's argv. */
	int nargs = 0;
	args[nargs++] = argv[0];
	for (int i = first + 1; i < argc; i++)
		args[nargs++] = argv[i];
	doca_error_t err = parse(nargs, args, opts, by_id);
	for (struct doca_argp_param *p = argp.params; p && err == DOCA_SUCCESS; p = p->next)
		if (p->mandatory && p->seen == 0) {
			CORE_LOG_ERR("doca_argp_start: mandatory flag %s%s is missing", p->long_name ? "--" : "-",
				     p->long_name ? p->long_name : p->short_name);
			usage_line();
			err = DOCA_ERROR_INVALID_VALUE;
		}
	if (err == DOCA_SUCCESS && argp.validate)
		err = argp.validate(argp.config);
	free(opts), free(by_id), free(args);
	return err;
}

doca_error_t doca_argp_destroy(void)
{
	NEED_INIT("doca_argp_destroy", DOCA_ERROR_BAD_STATE);
	for (struct doca_argp_param *p = argp.params, *next; p; p = next) {
		next = p->next;
		free(p);
	}
	memset(&argp, 0, sizeof(argp));
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_log_level(int *log_level)
{
	if (log_level == NULL) {
		CORE_LOG_ERR("doca_argp_get_log_level: log_level is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*log_level = argp.log_level >= 0 ? argp.log_level : (int)doca_log_level_get_global_lower_limit();
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_sdk_log_level(int *log_level)
{
	if (log_level == NULL) {
		CORE_LOG_ERR("doca_argp_get_sdk_log_level: log_level is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*log_level = argp.sdk_log_level >= 0 ? argp.sdk_log_level : (int)doca_log_level_get_global_sdk_limit();
	return DOCA_SUCCESS;
}
