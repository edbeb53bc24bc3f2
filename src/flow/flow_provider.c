/*
 * flow_provider.c - accessors for the provider layer (flow_provider.h).
 */
#include "flow_internal.h"
#include "flow_provider.h"

DOCA_LOG_REGISTER(FLOW::PROVIDER);

struct nic_pipe *flow_pipe_nic(const struct doca_flow_pipe *pipe)
{
	return flow_pipe_valid(pipe, __func__) ? pipe->nic : NULL;
}

uint16_t flow_pipe_port_id(const struct doca_flow_pipe *pipe)
{
	return flow_pipe_valid(pipe, __func__) ? pipe->port->id : UINT16_MAX;
}

uint32_t flow_pipe_nr_entries_added(const struct doca_flow_pipe *pipe)
{
	return flow_pipe_valid(pipe, __func__) ? atomic_load_explicit(&pipe->nr_entries_live, memory_order_relaxed) : 0;
}

struct nic_idxsel *flow_extres_idxsel(const struct doca_flow_external_resource *res)
{
	return flow_extres_valid(res, __func__) ? res->sel : NULL;
}

struct nic_mem *flow_extres_mem(const struct doca_flow_external_resource *res)
{
	return flow_extres_valid(res, __func__) ? res->mem : NULL;
}

/* Under the lock that doca_flow_external_resource_destroy checks and frees with. */
doca_error_t flow_extres_export_hold(struct doca_flow_external_resource *res)
{
	pthread_mutex_lock(&flow_g.lock);
	bool ok = flow_extres_valid(res, __func__);
	if (ok)
		res->exported++;
	pthread_mutex_unlock(&flow_g.lock);
	return ok ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t flow_extres_export_release(struct doca_flow_external_resource *res)
{
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = flow_extres_valid(res, __func__) ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
	if (err == DOCA_SUCCESS) {
		if (res->exported)
			res->exported--;
		else
			err = DOCA_ERROR_BAD_STATE;
	}
	pthread_mutex_unlock(&flow_g.lock);
	if (err == DOCA_ERROR_BAD_STATE)
		CORE_LOG_ERR("%s: the resource has no export hold", __func__);
	return err;
}
