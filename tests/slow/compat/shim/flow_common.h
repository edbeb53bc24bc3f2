/*
 * flow_common.h (compat shim) - the helpers DOCA's flow samples call from their logic
 * files, declared with the names and signatures of DOCA 3.3's
 * samples/doca_flow/flow_common.h (API-FLOW.md 6.1) and implemented by flowdpa in
 * flow_common.c, so that the unmodified NVIDIA sample files build against flowdpa.
 */
#ifndef FLOW_COMMON_H_
#define FLOW_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_bitfield.h>
#include <doca_dev.h>
#include <doca_flow.h>

#include "common.h"
#include "common_utils.h"

#define BE_IPV4_ADDR(a, b, c, d) (DOCA_HTOBE32(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d)))
#define SET_IPV6_ADDR(addr, a, b, c, d) \
	do { \
		(addr)[0] = (a) & 0xffffffff; \
		(addr)[1] = (b) & 0xffffffff; \
		(addr)[2] = (c) & 0xffffffff; \
		(addr)[3] = (d) & 0xffffffff; \
	} while (0)
#define SET_MAC_ADDR(addr, a, b, c, d, e, f) \
	do { \
		(addr)[0] = (a) & 0xff; \
		(addr)[1] = (b) & 0xff; \
		(addr)[2] = (c) & 0xff; \
		(addr)[3] = (d) & 0xff; \
		(addr)[4] = (e) & 0xff; \
		(addr)[5] = (f) & 0xff; \
	} while (0)
#define DEFAULT_TIMEOUT_US (10000)
#define NB_ACTIONS_ARR (1)
#define SHARED_RESOURCE_NUM_VALUES (7)
#define FLOW_COMMON_DEV_MAX (8)
#define FLOW_COMMON_REPS_MAX (16)
#define FLOW_COMMON_PORTS_MAX (16)
#define FLOW_COMMON_PIPE_RULES (8192)
#ifndef MAX
#define MAX(a, b) (((a) > (b)) ? (a) : (b))
#endif
#define GLOBAL_ACTIONS_MEM_SIZE (1024)
#define ACTIONS_MEM_SIZE(entries) \
	((uint32_t)common_utils_next_power_of_two((uint64_t)(entries) * DOCA_FLOW_MAX_ENTRY_ACTIONS_MEM_SIZE + \
						  GLOBAL_ACTIONS_MEM_SIZE))
#define ARRAY_DIM(a) (sizeof(a) / sizeof((a)[0]))
#define ARRAY_INIT(array, val) \
	do { \
		for (size_t i_ = 0; i_ < ARRAY_DIM(array); i_++) \
			(array)[i_] = (val); \
	} while (0)

struct entries_status {
	bool failure;
	int nb_processed;
};

struct flow_resources {
	enum doca_flow_resource_mode mode;
	uint32_t nr_counters;
	uint32_t nr_meters;
	uint32_t nr_rss;
	uint32_t nr_encap;
	uint32_t nr_decap;
	uint32_t nr_ipsec_sa;
	uint32_t nr_psp;
};

struct flow_devs_manager {
	struct doca_dev *doca_dev;
	const char *dev_arg;
	struct doca_dev_rep *doca_dev_rep[FLOW_COMMON_REPS_MAX];
	uint16_t nb_reps;
	bool device_opened_without_reps;
};

struct flow_dev_ctx {
	uint16_t nb_devs;
	uint16_t nb_ports;
	struct flow_devs_manager devs_manager[FLOW_COMMON_DEV_MAX];
	tasks_check port_cap;
	const char *default_dev_args;
};

typedef doca_error_t (*port_config_cb)(struct doca_flow_port_cfg *port_cfg, int port_id, void *config_cb_ctx);

doca_error_t init_doca_flow(int nb_queues, const char *mode, struct flow_resources *resource,
			    uint32_t nr_shared_resources[]);
doca_error_t init_doca_flow_with_defs(int nb_queues, const char *mode, struct flow_resources *resource,
				      uint32_t nr_shared_resources[], struct doca_flow_definitions *defs);
doca_error_t init_doca_flow_cb(int nb_queues, const char *mode, struct flow_resources *resource,
			       uint32_t nr_shared_resources[], doca_flow_entry_process_cb cb,
			       doca_flow_pipe_process_cb pipe_process_cb, struct doca_flow_definitions *defs);
doca_error_t init_doca_flow_ports(int nb_ports, struct doca_flow_port *ports[], bool is_port_fwd,
				  struct doca_dev *dev_arr[], uint32_t actions_mem_size[],
				  struct flow_resources *resources);
doca_error_t init_doca_flow_vnf_ports(int nb_ports, struct doca_flow_port *ports[], uint32_t actions_mem_size[],
				      struct flow_resources *resources);
doca_error_t init_doca_flow_ports_with_custom_config(int nb_ports, struct doca_flow_port *ports[], bool is_port_fwd,
						     struct doca_dev *dev_arr[], struct doca_dev_rep *dev_rep_arr[],
						     port_config_cb port_cb, port_config_cb port_rep_cb,
						     void *config_cb_ctx, uint32_t actions_mem_size[],
						     struct flow_resources *resources);
doca_error_t stop_doca_flow_ports(int nb_ports, struct doca_flow_port *ports[]);
void check_for_valid_entry(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue,
			   enum doca_flow_entry_status status, enum doca_flow_entry_op op, void *user_ctx);
doca_error_t set_flow_pipe_cfg(struct doca_flow_pipe_cfg *cfg, const char *name, enum doca_flow_pipe_type type,
			       bool is_root);
doca_error_t flow_process_entries(struct doca_flow_port *port, struct entries_status *status, uint32_t nr_entries);
int get_flow_stats_interval(void);
void flow_wait_for_packets(int total_wait_sec, void (*stats_print_func)(void *), void *stats_context);

#endif
