/*
 * flow_common.c (compat shim) - flowdpa's implementation of the helpers DOCA's flow
 * samples expect from flow_common.c / flow_switch_common.c (API-FLOW.md 6.1): DOCA Flow
 * init with the sample's resources, port start/stop in the order the samples rely on,
 * entry bookkeeping and waiting for traffic. Written for flowdpa; waiting uses
 * flowdpa_traffic_wait so that a sample does not sleep longer than its traffic lasts.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <doca_log.h>
#include <flowdpa.h>

#include "flow_switch_common.h"

DOCA_LOG_REGISTER(COMPAT_FLOW_COMMON);

/* Set by compat_main.c from the expectation file: ports the "DPDK" side probed. */
int compat_nb_ports = 2;

void check_for_valid_entry(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue,
			   enum doca_flow_entry_status status, enum doca_flow_entry_op op, void *user_ctx)
{
	struct entries_status *st = user_ctx;
	(void)entry, (void)pipe_queue, (void)op;
	if (st == NULL)
		return;
	if (status != DOCA_FLOW_ENTRY_STATUS_SUCCESS)
		st->failure = true;
	st->nb_processed++;
}

doca_error_t init_doca_flow_cb(int nb_queues, const char *mode, struct flow_resources *resource,
			       uint32_t nr_shared_resources[], doca_flow_entry_process_cb cb,
			       doca_flow_pipe_process_cb pipe_process_cb, struct doca_flow_definitions *defs)
{
	struct doca_flow_cfg *cfg;
	doca_error_t r = doca_flow_cfg_create(&cfg);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_flow_cfg_set_pipe_queues(cfg, (uint16_t)nb_queues);
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_mode_args(cfg, mode);
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_cb_entry_process(cfg, cb);
	if (r == DOCA_SUCCESS && pipe_process_cb != NULL)
		r = doca_flow_cfg_set_cb_pipe_process(cfg, pipe_process_cb);
	if (r == DOCA_SUCCESS && resource->mode == DOCA_FLOW_RESOURCE_MODE_PORT) {
		r = doca_flow_cfg_set_resource_mode(cfg, DOCA_FLOW_RESOURCE_MODE_PORT);
	} else if (r == DOCA_SUCCESS) {
		r = doca_flow_cfg_set_nr_counters(cfg, resource->nr_counters);
		if (r == DOCA_SUCCESS)
			r = doca_flow_cfg_set_nr_meters(cfg, resource->nr_meters);
		for (int t = 0; r == DOCA_SUCCESS && t < SHARED_RESOURCE_NUM_VALUES; t++)
			r = doca_flow_cfg_set_nr_shared_resource(cfg, nr_shared_resources[t],
								 (enum doca_flow_shared_resource_type)t);
	}
	if (r == DOCA_SUCCESS && defs != NULL)
		r = doca_flow_cfg_set_definitions(cfg, defs);
	if (r == DOCA_SUCCESS)
		r = doca_flow_init(cfg);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to init DOCA Flow: %s", doca_error_get_descr(r));
	doca_flow_cfg_destroy(cfg);
	return r;
}

doca_error_t init_doca_flow(int nb_queues, const char *mode, struct flow_resources *resource,
			    uint32_t nr_shared_resources[])
{
	return init_doca_flow_cb(nb_queues, mode, resource, nr_shared_resources, check_for_valid_entry, NULL, NULL);
}

doca_error_t init_doca_flow_with_defs(int nb_queues, const char *mode, struct flow_resources *resource,
				      uint32_t nr_shared_resources[], struct doca_flow_definitions *defs)
{
	return init_doca_flow_cb(nb_queues, mode, resource, nr_shared_resources, check_for_valid_entry, NULL, defs);
}

/* One port: id, memory hint, per-port resources, its device or representor, the sample's hook. */
static doca_error_t start_port(int port_id, struct doca_dev *dev, struct doca_dev_rep *rep, bool use_rep,
			       uint32_t actions_mem_size, struct flow_resources *res, port_config_cb cb, void *cb_ctx,
			       struct doca_flow_port **port)
{
	struct doca_flow_port_cfg *pc;
	doca_error_t r = doca_flow_port_cfg_create(&pc);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_flow_port_cfg_set_port_id(pc, (uint16_t)port_id);
	if (r == DOCA_SUCCESS)
		r = doca_flow_port_cfg_set_actions_mem_size(pc, actions_mem_size);
	if (r == DOCA_SUCCESS && res != NULL && res->mode == DOCA_FLOW_RESOURCE_MODE_PORT) {
		const uint32_t nr[] = {res->nr_meters, res->nr_counters, res->nr_rss, res->nr_psp,
				       res->nr_encap, res->nr_decap, res->nr_ipsec_sa};
		for (int t = 0; r == DOCA_SUCCESS && t < (int)ARRAY_DIM(nr); t++)
			r = doca_flow_port_cfg_set_nr_resources(pc, (enum doca_flow_resource)t, nr[t]);
	}
	if (r == DOCA_SUCCESS && use_rep) {
		r = doca_flow_port_cfg_set_dev_rep(pc, rep);
	} else if (r == DOCA_SUCCESS) {
		r = doca_flow_port_cfg_set_dev(pc, dev);
		if (r == DOCA_SUCCESS)
			r = doca_flow_port_cfg_set_devargs(pc, "th_win_us=0");
	}
	if (r == DOCA_SUCCESS && cb != NULL)
		r = cb(pc, port_id, cb_ctx);
	if (r == DOCA_SUCCESS)
		r = doca_flow_port_start(pc, port);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to start port %d: %s", port_id, doca_error_get_descr(r));
	doca_flow_port_cfg_destroy(pc);
	return r;
}

doca_error_t stop_doca_flow_ports(int nb_ports, struct doca_flow_port *ports[])
{
	doca_error_t first = DOCA_SUCCESS;
	for (int i = nb_ports - 1; i >= 0; i--)
		if (ports[i] != NULL)
			doca_flow_port_pipes_flush(ports[i]);
	for (int i = nb_ports - 1; i >= 0; i--) {
		if (ports[i] == NULL)
			continue;
		doca_error_t r = doca_flow_port_stop(ports[i]);
		if (r != DOCA_SUCCESS && first == DOCA_SUCCESS)
			first = r;
		ports[i] = NULL;
	}
	return first;
}

doca_error_t init_doca_flow_ports_with_custom_config(int nb_ports, struct doca_flow_port *ports[], bool is_port_fwd,
						     struct doca_dev *dev_arr[], struct doca_dev_rep *dev_rep_arr[],
						     port_config_cb port_cb, port_config_cb port_rep_cb,
						     void *config_cb_ctx, uint32_t actions_mem_size[],
						     struct flow_resources *resources)
{
	for (int i = 0; i < nb_ports; i++)
		ports[i] = NULL;
	for (int i = 0; i < nb_ports; i++) {
		bool rep = dev_rep_arr != NULL && dev_rep_arr[i] != NULL;
		doca_error_t r = start_port(i, dev_arr ? dev_arr[i] : NULL, rep ? dev_rep_arr[i] : NULL, rep,
					    actions_mem_size[i], resources, rep ? port_rep_cb : port_cb, config_cb_ctx,
					    &ports[i]);
		if (r != DOCA_SUCCESS) {
			stop_doca_flow_ports(i, ports);
			return r;
		}
		/* Port-forwarding samples pair 1<->0, 3<->2 ... as they are started. */
		if (is_port_fwd && (i % 2) == 1) {
			r = doca_flow_port_pair(ports[i], ports[i - 1]);
			if (r == DOCA_SUCCESS)
				r = doca_flow_port_pair(ports[i - 1], ports[i]);
			if (r != DOCA_SUCCESS) {
				DOCA_LOG_ERR("Failed to pair ports %d and %d: %s", i - 1, i, doca_error_get_descr(r));
				stop_doca_flow_ports(i + 1, ports);
				return r;
			}
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t init_doca_flow_ports(int nb_ports, struct doca_flow_port *ports[], bool is_port_fwd,
				  struct doca_dev *dev_arr[], uint32_t actions_mem_size[],
				  struct flow_resources *resources)
{
	return init_doca_flow_ports_with_custom_config(nb_ports, ports, is_port_fwd, dev_arr, NULL, NULL, NULL, NULL,
						       actions_mem_size, resources);
}

doca_error_t init_doca_flow_vnf_ports(int nb_ports, struct doca_flow_port *ports[], uint32_t actions_mem_size[],
				      struct flow_resources *resources)
{
	struct doca_dev *devs[FLOW_COMMON_PORTS_MAX] = {0};
	return init_doca_flow_ports(nb_ports, ports, true, devs, actions_mem_size, resources);
}

doca_error_t init_doca_flow_switch_ports(struct flow_devs_manager devs_manager[], int nb_managers,
					 struct doca_flow_port *ports[], int nb_ports, uint32_t actions_mem_size[],
					 struct flow_resources *resources)
{
	int id = 0;
	for (int i = 0; i < nb_ports; i++)
		ports[i] = NULL;
	for (int m = 0; m < nb_managers && id < nb_ports; m++) {
		doca_error_t r = start_port(id, devs_manager[m].doca_dev, NULL, false, actions_mem_size[id], resources,
					    NULL, NULL, &ports[id]);
		for (int k = 0; r == DOCA_SUCCESS && k < devs_manager[m].nb_reps && id + 1 < nb_ports; k++) {
			id++;
			r = start_port(id, NULL, devs_manager[m].doca_dev_rep[k], true, actions_mem_size[id], resources,
				       NULL, NULL, &ports[id]);
		}
		if (r != DOCA_SUCCESS) {
			stop_doca_flow_ports(nb_ports, ports);
			return r;
		}
		id++;
	}
	return DOCA_SUCCESS;
}

uint8_t get_dpdk_nb_ports(void)
{
	return (uint8_t)compat_nb_ports;
}

doca_error_t set_flow_pipe_cfg(struct doca_flow_pipe_cfg *cfg, const char *name, enum doca_flow_pipe_type type,
			       bool is_root)
{
	if (cfg == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	doca_error_t r = doca_flow_pipe_cfg_set_name(cfg, name);
	if (r == DOCA_SUCCESS)
		r = doca_flow_pipe_cfg_set_type(cfg, type);
	if (r == DOCA_SUCCESS)
		r = doca_flow_pipe_cfg_set_is_root(cfg, is_root);
	return r;
}

doca_error_t flow_process_entries(struct doca_flow_port *port, struct entries_status *status, uint32_t nr_entries)
{
	doca_error_t r = doca_flow_entries_process(port, 0, DEFAULT_TIMEOUT_US, nr_entries);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to process entries: %s", doca_error_get_descr(r));
		return r;
	}
	if (status->nb_processed != (int)nr_entries || status->failure) {
		DOCA_LOG_ERR("Failed to process entries: %d of %u processed, failure %d", status->nb_processed,
			     nr_entries, status->failure);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

int get_flow_stats_interval(void)
{
	return 0;
}

/* Returns once the configured traffic has played out (at most total_wait_sec), then prints the stats once. */
void flow_wait_for_packets(int total_wait_sec, void (*stats_print_func)(void *), void *stats_context)
{
	doca_error_t r = flowdpa_traffic_wait((uint32_t)(total_wait_sec > 0 ? total_wait_sec : 1) * 1000u);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_WARN("traffic did not play out in %d s: %s", total_wait_sec, doca_error_get_descr(r));
	if (stats_print_func != NULL)
		stats_print_func(stats_context);
}
