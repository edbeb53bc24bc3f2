/*
 * doca_argp.h - DOCA's argument parser (DOCA 3.3 names, types and signatures; in DOCA its
 * own library, pkg-config module doca-argp; in flowdpa part of libdoca_common, with a
 * doca-argp.pc that pulls doca-common in). A program registers its flags, then
 * doca_argp_start parses the command line with getopt_long_only and calls each flag's
 * callback with the value and the program configuration given to doca_argp_init.
 *
 * Command line: `prog [DOCA flags] [program flags]`; for a program marked with
 * doca_argp_set_dpdk_program, `prog [DPDK flags] -- [DOCA flags] [program flags]`: what
 * comes before `--` is handed to the DPDK callback untouched (flowdpa has no DPDK; the
 * callback decides what to do with it), without `--` the callback gets argv[0] only.
 * A flag's short name is written `-name`, its long name `--name` (both may be several
 * characters, as DOCA's are; getopt_long_only also accepts unambiguous prefixes).
 * DOCA flags: -h/--help (usage, exit 0), -v/--version (exit 0), -l/--log-level N
 * (doca_log_level_set_global_lower_limit), --sdk-log-level N (SDK limit). Not in
 * flowdpa: -j/--json (NOT_SUPPORTED), commands (doca_argp_cmd_*), device-typed flags.
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <stdarg.h>

#include <doca_compat.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A flag's callback: (pointer to the parsed value, program configuration). */
typedef doca_error_t (*doca_argp_param_cb_t)(void *, void *);
/* Gets the DPDK part of the command line (argv[0] first). */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);
/* Called with the program configuration once every flag was parsed. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *);

/* What a flag's value is and what its callback receives: STRING char *, INT int *,
 * BOOLEAN bool * (a flag without value: true), DOUBLE double *. DEVICE and DEVICE_REP
 * are refused at doca_argp_register_param with NOT_SUPPORTED. */
enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,
	DOCA_ARGP_TYPE_INT,
	DOCA_ARGP_TYPE_BOOLEAN,
	DOCA_ARGP_TYPE_DEVICE,
	DOCA_ARGP_TYPE_DEVICE_REP,
	DOCA_ARGP_TYPE_DOUBLE,
};

struct doca_argp_param;

/* Print the usage text (program name, DOCA flags, the registered flags) to stdout. */
DOCA_EXPERIMENTAL void doca_argp_usage(void);

/* Start the parser. program_name NULL: argv[0]'s base name at doca_argp_start.
 * BAD_STATE: already initialized (until doca_argp_destroy). */
DOCA_EXPERIMENTAL doca_error_t doca_argp_init(const char *program_name, void *program_config);

/* Register a flag; argp owns it from here on, in every outcome. INVALID_VALUE: NULL;
 * INITIALIZATION: no name, no description, no callback or no type, or a name already
 * taken (by the program or a DOCA flag); BAD_STATE: not initialized, or already registered;
 * NOT_SUPPORTED: a device type. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);

/* INVALID_VALUE: NULL callback; BAD_STATE: not initialized. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);

/* Parse argv. INVALID_VALUE: a flag's value of the wrong type, a missing value, a flag
 * given twice without multiplicity, a missing mandatory flag or a stray argument (each
 * with one log line and the usage line); NOT_SUPPORTED: an unknown flag or -j/--json;
 * BAD_STATE: not initialized or already started; a callback's own error is returned as it is. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_start(int argc, char **argv);

/* Free every registered flag. BAD_STATE: not initialized. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_destroy(void);

/* Mark the program as a DPDK one (see the command line above). Ignored (logged) before init. */
DOCA_EXPERIMENTAL void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);

/* INVALID_VALUE: param NULL; NO_MEMORY; BAD_STATE: not initialized. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_create(struct doca_argp_param **param);
/* The setters keep the pointers they are given (the strings must outlive argp). As in
 * DOCA, a NULL param is undefined behaviour; flowdpa logs it and ignores the call. */
DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param);
/* Stored: flowdpa has no JSON input, every flag is CLI only. */
DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param);
/* The flag may be given several times; the callback runs once per occurrence. */
DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param);
/* Destroy a flag that was not registered. INVALID_VALUE: NULL; BAD_STATE: registered. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);

/* The -l / --sdk-log-level value if given, else the current global limit. INVALID_VALUE: NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_log_level(int *log_level);
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_sdk_log_level(int *log_level);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
