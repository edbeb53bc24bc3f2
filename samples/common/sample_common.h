/*
 * sample_common.h - what every flowdpa sample's host program shares, as DOCA's own samples
 * share samples/common: stop on a failed DOCA call, bring up DOCA Flow and its ports on
 * the first device, and a DPA context with the provider on it. Header-only; a sample's meson.build adds this folder to its include path.
 */
#ifndef SAMPLE_COMMON_H_
#define SAMPLE_COMMON_H_

#include <stdio.h>
#include <stdlib.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_flow.h>
#include <doca_flow_dpa_provider.h>

/* Run call; on failure print the call and the error's name, and exit 1. */
#define TRY(call)                                                                            \
	do {                                                                                 \
		doca_error_t r_ = (call);                                                    \
		if (r_ != DOCA_SUCCESS) {                                                    \
			fprintf(stderr, "%s: %s\n", #call, doca_error_get_name(r_));         \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

/* Start DOCA Flow port id on dev (exits on failure, as TRY does). */
static inline struct doca_flow_port *sample_start_port(uint16_t id, struct doca_dev *dev)
{
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;

	TRY(doca_flow_port_cfg_create(&pc));
	TRY(doca_flow_port_cfg_set_port_id(pc, id));
	TRY(doca_flow_port_cfg_set_dev(pc, dev));
	TRY(doca_flow_port_start(pc, &p));
	doca_flow_port_cfg_destroy(pc);
	return p;
}

/* DOCA Flow with one entry queue (vnf,hws) and ports 0..nr_ports-1 started on the first
 * device, which is returned open (exits on failure). */
static inline struct doca_dev *sample_flow_start(uint16_t nr_ports, struct doca_flow_port **ports)
{
	struct doca_flow_cfg *cfg;
	struct doca_devinfo **list;
	struct doca_dev *dev;
	uint32_t n;

	TRY(doca_flow_cfg_create(&cfg));
	TRY(doca_flow_cfg_set_pipe_queues(cfg, 1));
	TRY(doca_flow_cfg_set_mode_args(cfg, "vnf,hws"));
	TRY(doca_flow_init(cfg));
	doca_flow_cfg_destroy(cfg);
	TRY(doca_devinfo_create_list(&list, &n));
	TRY(doca_dev_open(list[0], &dev));
	TRY(doca_devinfo_destroy_list(list));
	for (uint16_t i = 0; i < nr_ports; i++)
		ports[i] = sample_start_port(i, dev);
	return dev;
}

/* A DPA context on dev running app (the image dpacc built), started, and the provider's
 * context on its process (exits on failure). */
static inline struct doca_flow_dpa_ctx *sample_provider_start(struct doca_dev *dev, struct doca_dpa_app *app,
							     struct doca_dpa **dpa)
{
	struct flexio_process *proc;
	struct doca_flow_dpa_ctx *ctx;

	TRY(doca_dpa_create(dev, dpa));
	TRY(doca_dpa_set_app(*dpa, app));
	TRY(doca_dpa_start(*dpa));
	TRY(doca_dpa_get_flexio_process(*dpa, &proc));
	TRY(doca_flow_dpa_init(proc, &ctx));
	return ctx;
}

#endif /* SAMPLE_COMMON_H_ */
