/*
 * flow_provider.h - what the provider layer (src/provider) may ask of doca_flow objects:
 * the NIC pipe or resource behind a handle, and export holds that keep a resource from
 * being destroyed while a DPA may use it. Exported from libdoca_flow in the
 * FLOWDPA_INTERNAL version node; each returns NULL / INVALID_VALUE for a handle that is
 * not live, logging one line.
 */
#ifndef FLOWDPA_FLOW_PROVIDER_H_
#define FLOWDPA_FLOW_PROVIDER_H_

#include <doca_flow.h>

#include <nic/nic.h>

/* Exported (FLOWDPA_INTERNAL) although libdoca_flow hides symbols by default. */
#define FLOW_PROVIDER_API __attribute__((visibility("default")))

FLOW_PROVIDER_API struct nic_pipe *flow_pipe_nic(const struct doca_flow_pipe *pipe);
/* Logical port id of the pipe's port (UINT16_MAX for a bad pipe). */
FLOW_PROVIDER_API uint16_t flow_pipe_port_id(const struct doca_flow_pipe *pipe);
/* The pipe's entries that are in the NIC or queued (the export's "existing entries"). */
FLOW_PROVIDER_API uint32_t flow_pipe_nr_entries_added(const struct doca_flow_pipe *pipe);
FLOW_PROVIDER_API struct nic_idxsel *flow_extres_idxsel(const struct doca_flow_external_resource *res);
FLOW_PROVIDER_API struct nic_mem *flow_extres_mem(const struct doca_flow_external_resource *res);
/* Export holds: doca_flow_external_resource_destroy returns BAD_STATE while any remain. */
FLOW_PROVIDER_API doca_error_t flow_extres_export_hold(struct doca_flow_external_resource *res);
FLOW_PROVIDER_API doca_error_t flow_extres_export_release(struct doca_flow_external_resource *res);

#endif /* FLOWDPA_FLOW_PROVIDER_H_ */
