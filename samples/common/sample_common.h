/*
 * sample_common.h - what every flowdpa sample's host program shares, as DOCA's own samples
 * share samples/common: stop on a failed DOCA call, and start a DOCA Flow port on a
 * device. Header-only; a sample's meson.build adds this folder to its include path.
 */
#ifndef SAMPLE_COMMON_H_
#define SAMPLE_COMMON_H_

#include <stdio.h>
#include <stdlib.h>

#include <doca_error.h>
#include <doca_flow.h>

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

#endif /* SAMPLE_COMMON_H_ */
