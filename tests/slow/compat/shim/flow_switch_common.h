/*
 * flow_switch_common.h (compat shim) - the switch-mode context of DOCA's samples
 * (same names and layouts as samples/doca_flow/flow_switch_common.h in DOCA 3.3).
 */
#ifndef FLOW_SWITCH_COMMON_H_
#define FLOW_SWITCH_COMMON_H_

#include "flow_common.h"

#define FLOW_SWITCH_DEV_ARGS "dv_flow_en=2,fdb_def_rule_en=0,dv_xmeta_en=4"

struct flow_switch_ctx {
	struct flow_dev_ctx devs_ctx;
	bool is_expert;
	void *usr_ctx;
};

uint8_t get_dpdk_nb_ports(void);
/* Manager i starts as a device port (its doca_dev), then its nb_reps representors;
 * port ids count up from 0 across the managers, nb_ports in all. */
doca_error_t init_doca_flow_switch_ports(struct flow_devs_manager devs_manager[], int nb_managers,
					 struct doca_flow_port *ports[], int nb_ports, uint32_t actions_mem_size[],
					 struct flow_resources *resources);

#endif
