/*
 * nvqual_main.c - flowdpa's replacement for dpa_nvqual_main.c: logging, doca_argp with
 * the sample's own flags (registered by its logic file), then the sample's entry point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "dpa_common.h"
#include "dpa_nvqual_common_defs.h"

DOCA_LOG_REGISTER(COMPAT_NVQUAL_MAIN);

doca_error_t dpa_nvqual(struct dpa_nvqual_config *nvqual_argp_cfg);
doca_error_t dpa_nvqual_register_params(void);

int main(int argc, char **argv)
{
	struct dpa_nvqual_config cfg;
	struct doca_log_backend *sdk_log;
	doca_error_t r;

	memset(&cfg, 0, sizeof(cfg));
	if (doca_log_backend_create_standard() != DOCA_SUCCESS ||
	    doca_log_backend_create_with_file_sdk(stderr, &sdk_log) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	r = doca_argp_init(NULL, &cfg);
	if (r == DOCA_SUCCESS)
		r = dpa_nvqual_register_params();
	if (r == DOCA_SUCCESS)
		r = doca_argp_start(argc, argv);
	if (r == DOCA_SUCCESS)
		r = dpa_nvqual(&cfg);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("dpa_nvqual failed: %s", doca_error_get_descr(r));
	doca_argp_destroy();
	DOCA_LOG_INFO("Sample finished %s", r == DOCA_SUCCESS ? "successfully" : "with errors");
	return r == DOCA_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}
