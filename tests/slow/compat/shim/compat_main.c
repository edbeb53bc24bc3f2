/*
 * compat_main.c - flowdpa's replacement for a DOCA flow sample's *_main.c: sets up
 * logging and the devices the sample's context describes, then calls the sample's entry
 * point, whose C signature is picked by COMPAT_KIND (run_sample.py passes -D from the
 * expectation file). argv: nb_queues nb_ports nb_managers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_log.h>

#include "flow_switch_common.h"

DOCA_LOG_REGISTER(COMPAT_MAIN);

#define KIND_Q 1	   /* (int nb_queues) */
#define KIND_Q_STATS 2	   /* (int nb_queues, int stats_interval) */
#define KIND_Q_MS 3	   /* (int nb_queues, uint32_t refresh_interval_ms) */
#define KIND_Q_CTX 4	   /* (int nb_queues, struct flow_switch_ctx *) */
#define KIND_Q_PORTS_CTX 5 /* (int nb_queues, int nb_ports, struct flow_switch_ctx *) */
#define KIND_CTX 6	   /* (struct flow_switch_ctx *) */
#define KIND_RESIZE 7	   /* (uint16_t nb_queues, struct flow_switch_ctx *, bool is_basic_pipe) */
#define KIND_MANAGERS 8	   /* (int nb_queues, int nb_ports, struct flow_devs_manager[], uint16_t nb_devs) */

#if COMPAT_KIND == KIND_Q
doca_error_t COMPAT_ENTRY(int nb_queues);
#elif COMPAT_KIND == KIND_Q_STATS
doca_error_t COMPAT_ENTRY(int nb_queues, int stats_interval);
#elif COMPAT_KIND == KIND_Q_MS
doca_error_t COMPAT_ENTRY(int nb_queues, uint32_t refresh_interval_ms);
#elif COMPAT_KIND == KIND_Q_CTX
doca_error_t COMPAT_ENTRY(int nb_queues, struct flow_switch_ctx *ctx);
#elif COMPAT_KIND == KIND_Q_PORTS_CTX
doca_error_t COMPAT_ENTRY(int nb_queues, int nb_ports, struct flow_switch_ctx *ctx);
#elif COMPAT_KIND == KIND_CTX
doca_error_t COMPAT_ENTRY(struct flow_switch_ctx *ctx);
#elif COMPAT_KIND == KIND_RESIZE
doca_error_t COMPAT_ENTRY(uint16_t nb_queues, struct flow_switch_ctx *ctx, bool is_basic_pipe);
#elif COMPAT_KIND == KIND_MANAGERS
doca_error_t COMPAT_ENTRY(int nb_queues, int nb_ports, struct flow_devs_manager devs_manager[], uint16_t nb_devs);
#else
#error "COMPAT_KIND must name one of the KIND_* signatures"
#endif

extern int compat_nb_ports;

/* Managers 0..nb_managers-1 are the first emulated devices; each has nb_ports/nb_managers ports
 * (one device port, the rest representors). */
static doca_error_t open_managers(struct flow_switch_ctx *ctx, int nb_managers, int nb_ports)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	doca_error_t r = doca_devinfo_create_list(&list, &n);
	if (r != DOCA_SUCCESS)
		return r;
	if ((uint32_t)nb_managers > n) {
		DOCA_LOG_ERR("%d switch managers asked, %u emulated devices (FLOWDPA_DEVICES)", nb_managers, n);
		doca_devinfo_destroy_list(list);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx->devs_ctx.nb_devs = (uint16_t)nb_managers;
	ctx->devs_ctx.nb_ports = (uint16_t)nb_ports;
	for (int m = 0; m < nb_managers && r == DOCA_SUCCESS; m++) {
		struct flow_devs_manager *dm = &ctx->devs_ctx.devs_manager[m];
		r = doca_dev_open(list[m], &dm->doca_dev);
		dm->nb_reps = (uint16_t)(nb_ports / nb_managers - 1);
		dm->device_opened_without_reps = dm->nb_reps == 0;
	}
	doca_devinfo_destroy_list(list);
	return r;
}

int main(int argc, char **argv)
{
	struct doca_log_backend *sdk_log;
	struct flow_switch_ctx ctx;
	int nb_queues = argc > 1 ? atoi(argv[1]) : 1;
	int nb_ports = argc > 2 ? atoi(argv[2]) : 2;
	int nb_managers = argc > 3 ? atoi(argv[3]) : 1;
	doca_error_t r;

	memset(&ctx, 0, sizeof(ctx));
	compat_nb_ports = nb_ports;
	if (doca_log_backend_create_standard() != DOCA_SUCCESS ||
	    doca_log_backend_create_with_file_sdk(stderr, &sdk_log) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	r = open_managers(&ctx, nb_managers, nb_ports);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open the devices: %s", doca_error_get_descr(r));
		return EXIT_FAILURE;
	}
#if COMPAT_KIND == KIND_Q
	r = COMPAT_ENTRY(nb_queues);
#elif COMPAT_KIND == KIND_Q_STATS
	r = COMPAT_ENTRY(nb_queues, 0);
#elif COMPAT_KIND == KIND_Q_MS
	r = COMPAT_ENTRY(nb_queues, 1000);
#elif COMPAT_KIND == KIND_Q_CTX
	r = COMPAT_ENTRY(nb_queues, &ctx);
#elif COMPAT_KIND == KIND_Q_PORTS_CTX
	r = COMPAT_ENTRY(nb_queues, nb_ports, &ctx);
#elif COMPAT_KIND == KIND_CTX
	r = COMPAT_ENTRY(&ctx);
#elif COMPAT_KIND == KIND_RESIZE
	r = COMPAT_ENTRY((uint16_t)nb_queues, &ctx, true);
#elif COMPAT_KIND == KIND_MANAGERS
	r = COMPAT_ENTRY(nb_queues, nb_ports, ctx.devs_ctx.devs_manager, ctx.devs_ctx.nb_devs);
#endif
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("sample entry point failed: %s", doca_error_get_descr(r));
	for (int m = 0; m < ctx.devs_ctx.nb_devs; m++)
		if (ctx.devs_ctx.devs_manager[m].doca_dev != NULL)
			doca_dev_close(ctx.devs_ctx.devs_manager[m].doca_dev);
	DOCA_LOG_INFO("Sample finished %s", r == DOCA_SUCCESS ? "successfully" : "with errors");
	return r == DOCA_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}
