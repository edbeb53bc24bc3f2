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

static bool res_ok(const struct doca_flow_external_resource *r, const char *who)
{
	if (r == NULL || r->magic != FLOW_EXTRES_MAGIC) {
		CORE_LOG_ERR("%s: not a live external resource", who);
		return false;
	}
	return true;
}

struct nic_idxsel *flow_extres_idxsel(const struct doca_flow_external_resource *res)
{
	return res_ok(res, __func__) ? res->sel : NULL;
}

struct nic_mem *flow_extres_mem(const struct doca_flow_external_resource *res)
{
	return res_ok(res, __func__) ? res->mem : NULL;
}

doca_error_t flow_extres_export_hold(struct doca_flow_external_resource *res)
{
	if (!res_ok(res, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&flow_g.lock);
	res->exported++;
	pthread_mutex_unlock(&flow_g.lock);
	return DOCA_SUCCESS;
}

doca_error_t flow_extres_export_release(struct doca_flow_external_resource *res)
{
	if (!res_ok(res, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = DOCA_SUCCESS;
	if (res->exported)
		res->exported--;
	else
		err = DOCA_ERROR_BAD_STATE;
	pthread_mutex_unlock(&flow_g.lock);
	if (err != DOCA_SUCCESS)
		CORE_LOG_ERR("%s: the resource has no export hold", __func__);
	return err;
}
