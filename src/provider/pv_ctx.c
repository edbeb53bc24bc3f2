/*
 * pv_ctx.c - provider contexts: doca_flow_dpa_init / _destroy, the table that turns the
 * context id of a device address into the context's device block, and the checks every
 * host call starts with.
 */
#include <stdlib.h>
#include <string.h>

#include "provider_internal.h"

DOCA_LOG_REGISTER(FLOW_DPA::CTX);

/* Context id -> device block; ids start at 1 and are never reused, so an address of a
 * destroyed context finds NULL. */
static _Atomic(struct pv_dev_ctx *) ctx_table[PV_MAX_CTX];
static _Atomic uint32_t next_ctx_id = 1;

struct pv_dev_ctx *pv_ctx_block(uint32_t ctx_id)
{
	return ctx_id < PV_MAX_CTX ? atomic_load_explicit(&ctx_table[ctx_id], memory_order_acquire) : NULL;
}

bool pv_nic_async(void)
{
	const struct core_config *cfg = core_config_get();
	return cfg && cfg->nic_mode == CORE_NIC_MODE_ASYNC;
}

doca_error_t pv_ctx_check(const struct doca_flow_dpa_ctx *ctx, const char *who)
{
	if (ctx == NULL) {
		CORE_LOG_ERR("%s: ctx is NULL", who);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ctx->magic != PV_CTX_MAGIC) {
		CORE_LOG_ERR("%s: %s", who,
			     ctx->magic == PV_HANDLE_DEAD ? "the DPA provider context was destroyed"
							  : "not a DPA provider context (doca_flow_dpa_init)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t ctx_block_create(struct doca_flow_dpa_ctx *ctx)
{
	/* Says why it failed, naming the call: nothing to add. */
	doca_error_t err = dpa_heap_alloc(ctx->process, sizeof(struct pv_dev_ctx), &ctx->block_dev, "doca_flow_dpa_init");
	if (err != DOCA_SUCCESS)
		return err;
	ctx->block = dpa_heap_ptr(ctx->process, ctx->block_dev, sizeof(struct pv_dev_ctx));
	memset(ctx->block, 0, sizeof(*ctx->block));
	ctx->block->magic = PV_DEV_CTX_MAGIC;
	ctx->block->ctx_id = ctx->id;
	ctx->block->process = ctx->process;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_dpa_init(struct flexio_process *process, struct doca_flow_dpa_ctx **ctx)
{
	if (ctx == NULL) {
		CORE_LOG_ERR("%s: ctx out pointer is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*ctx = NULL;
	doca_error_t err = dpa_process_check(process, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	const struct core_dev_caps *caps = dpa_process_caps(process);
	if (caps == NULL || !caps->has_dpa) {
		CORE_LOG_ERR("%s: device %s (%s) has no DPA", __func__, caps ? caps->ibdev_name : "?",
			     caps ? caps->model_name : "?");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (core_fault_injected(CORE_FAULT_DPA_INIT)) {
		CORE_LOG_ERR("%s: driver failure: fault injected (FLOWDPA_FAULTS=dpa_init)", __func__);
		return DOCA_ERROR_DRIVER;
	}
	uint32_t id = atomic_fetch_add(&next_ctx_id, 1);
	if (id >= PV_MAX_CTX) {
		CORE_LOG_ERR("%s: more than %d DPA provider contexts in one program", __func__, PV_MAX_CTX - 1);
		return DOCA_ERROR_NO_MEMORY;
	}
	struct doca_flow_dpa_ctx *c = core_calloc(1, sizeof(*c));
	if (c == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->id = id;
	c->process = process;
	c->caps = caps;
	snprintf(c->label, sizeof(c->label), "DPA ctx %u", id);
	err = dpa_process_hold(process);
	if (err != DOCA_SUCCESS)
		goto fail;
	err = ctx_block_create(c);
	if (err != DOCA_SUCCESS) {
		dpa_process_release(process);
		goto fail;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->magic = PV_CTX_MAGIC;
	atomic_store_explicit(&ctx_table[id], c->block, memory_order_release);
	c->report = core_report_register("provider", pv_report_ctx, c);
	CORE_LOG_TRC("%s: ctx %u on DPA process %u (%s)", __func__, id, dpa_process_id(process), caps->ibdev_name);
	*ctx = c;
	return DOCA_SUCCESS;
fail:
	free(c);
	return err;
}

/* Under ctx->lock: one line listing what is still alive; false when nothing is. */
static bool ctx_log_alive(const struct doca_flow_dpa_ctx *ctx)
{
	char buf[512];
	size_t off = 0;
	for (uint32_t s = 0; s < PV_MAX_EXPORTS; s++)
		if (ctx->slots[s].fx && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s '%s'", off ? ", " : "",
						ctx->slots[s].kind == PV_OBJ_PIPE ? "pipe export" : "resource export",
						ctx->slots[s].name);
	for (uint32_t p = 0; p < PV_MAX_PORTS; p++)
		if (ctx->ports[p].port && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%squeues of port %u", off ? ", " : "", p);
	if (off == 0)
		return false;
	CORE_LOG_ERR("doca_flow_dpa_destroy: ctx %u still has %s; destroy them first (doca_flow_dpa_pipe_destroy, "
		     "doca_flow_dpa_external_resource_destroy, doca_flow_dpa_queues_destroy)",
		     ctx->id, buf);
	return true;
}

doca_error_t doca_flow_dpa_destroy(struct doca_flow_dpa_ctx *ctx)
{
	doca_error_t err = pv_ctx_check(ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&ctx->lock);
	bool alive = ctx_log_alive(ctx);
	pthread_mutex_unlock(&ctx->lock);
	if (alive)
		return DOCA_ERROR_BAD_STATE;
	CORE_LOG_TRC("%s: ctx %u", __func__, ctx->id);
	atomic_store_explicit(&ctx_table[ctx->id], NULL, memory_order_release);
	core_report_unregister(ctx->report);
	pv_report_free(ctx);
	pv_queues_free_all(ctx);
	for (uint32_t s = 0; s < PV_MAX_EXPORTS; s++)
		free(ctx->slots[s].not_exported);
	ctx->block->magic = 0;
	pv_heap_free(ctx->process, ctx->block_dev);
	dpa_process_release(ctx->process);
	pthread_mutex_destroy(&ctx->lock);
	ctx->magic = PV_HANDLE_DEAD;
	free(ctx);
	return DOCA_SUCCESS;
}
