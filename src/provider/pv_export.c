/*
 * pv_export.c - the export handshake: doca_flow_dpa_pipe_export_prepare -> entries added
 * -> _pipe_export -> _pipe_get_device_addr, the external-resource exports, and their
 * destruction. Each export takes a slot of its context (host pv_slot + device
 * descriptor); its device address names the slot and the slot's generation.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "provider_internal.h"

DOCA_LOG_REGISTER(FLOW_DPA::EXPORT);

static const char *kind_name(enum pv_obj_kind k)
{
	return k == PV_OBJ_PIPE ? "pipe" : k == PV_OBJ_INDEX_SELECTOR ? "index-selector resource" : "memory resource";
}

/* A handle of ours, of ctx: INVALID_VALUE (one line) otherwise. */
static doca_error_t handle_check(const struct doca_flow_dpa_ctx *ctx, const struct pv_export *e, uint32_t magic,
				 const char *who)
{
	doca_error_t err = pv_ctx_check(ctx, who);
	if (err != DOCA_SUCCESS)
		return err;
	const char *what = magic == PV_PIPE_MAGIC ? "dpa_pipe" : "dpa_resource";
	if (e == NULL) {
		CORE_LOG_ERR("%s: %s is NULL", who, what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (e->magic != magic) {
		CORE_LOG_ERR("%s: %s %s", who, what, e->magic == PV_HANDLE_DEAD ? "was destroyed" : "is not an export handle");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (e->ctx != ctx) {
		CORE_LOG_ERR("%s: %s belongs to DPA ctx %u, not to ctx %u", who, what, e->ctx->id, ctx->id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* Under ctx->lock: a free slot, or -1 (logged) when the context has PV_MAX_EXPORTS. */
static int slot_take(struct doca_flow_dpa_ctx *ctx, const void *object, const char *who, doca_error_t *err)
{
	int free_slot = -1;
	for (int s = 0; s < PV_MAX_EXPORTS; s++) {
		if (ctx->slots[s].fx && ctx->slots[s].object == object) {
			CORE_LOG_ERR("%s: '%s' is already exported by ctx %u (destroy that export first)", who,
				     ctx->slots[s].name, ctx->id);
			*err = DOCA_ERROR_BAD_STATE;
			return -1;
		}
		if (ctx->slots[s].fx == NULL && free_slot < 0)
			free_slot = s;
	}
	if (free_slot < 0) {
		CORE_LOG_ERR("%s: ctx %u already has %d exports", who, ctx->id, PV_MAX_EXPORTS);
		*err = DOCA_ERROR_NO_MEMORY;
	}
	return free_slot;
}

/* Under ctx->lock: fill slot s and its device descriptor (state last, release). */
static void slot_fill(struct doca_flow_dpa_ctx *ctx, int s, struct flow_export *fx, const void *object,
		      const struct flow_export_info *info, enum pv_obj_kind kind, uint32_t size, enum pv_obj_state state)
{
	struct pv_slot *sl = &ctx->slots[s];
	struct pv_dev_obj *d = &ctx->block->obj[s];
	sl->fx = fx;
	sl->object = object;
	sl->kind = kind;
	sl->size = size;
	sl->port_id = info->port_id;
	sl->exported = state == PV_OBJ_EXPORTED;
	sl->requests = 0;
	atomic_store(&sl->req_failed, 0);
	snprintf(sl->name, sizeof(sl->name), "%s", info->name);
	d->kind = kind;
	d->port = info->port_id;
	d->size = size;
	snprintf(d->name, sizeof(d->name), "%s", info->name);
	atomic_store_explicit(&d->state, state, memory_order_release);
	ctx->nr_exports++;
}

/* Under ctx->lock: end the export in slot s. The generation moves first, so a request
 * posted under the old one fails at execution; then no executor may still use fx. */
static void slot_free(struct doca_flow_dpa_ctx *ctx, uint32_t s)
{
	struct pv_slot *sl = &ctx->slots[s];
	struct pv_dev_obj *d = &ctx->block->obj[s];
	pv_report_keep_export(ctx, s, sl);
	atomic_store(&d->state, PV_OBJ_FREE);
	atomic_store(&d->gen, (atomic_load(&d->gen) + 1) & 0xffff);
	atomic_store(&sl->gen, atomic_load(&d->gen));
	while (atomic_load(&sl->users))
		sched_yield();
	flow_export_release(sl->fx);
	sl->fx = NULL;
	sl->object = NULL;
	free(sl->not_exported);
	sl->not_exported = NULL;
	sl->nr_not_exported = 0;
	ctx->nr_exports--;
}

/* What a new hold exports; BAD_STATE (and the hold dropped) when the object went meanwhile. */
static doca_error_t export_info(struct flow_export *fx, struct flow_export_info *info, const char *who)
{
	if (flow_export_info(fx, info) == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	CORE_LOG_ERR("%s: '%s' went while it was being exported (its port stopped)", who, info->name);
	flow_export_release(fx);
	return DOCA_ERROR_BAD_STATE;
}

static bool port_has_type(const struct doca_flow_dpa_ctx *ctx, uint16_t port_id, uint32_t type)
{
	return port_id < PV_MAX_PORTS && ctx->ports[port_id].port && ctx->ports[port_id].nr[type] > 0;
}

/* Entries present before prepare: a WARNING (BAD_STATE under FLOWDPA_STRICT) and their
 * bitmap, so that DPA requests on them fail at execution. */
static doca_error_t prepare_existing(struct pv_slot *sl, struct flow_export *fx, const struct flow_export_info *info,
				     uint32_t nr_entries, const char *who)
{
	const struct core_config *cfg = core_config_get();
	if (cfg && cfg->strict) {
		CORE_LOG_ERR("%s: pipe '%s' already holds %u entries; entries added before export_prepare are not "
			     "exported (add them after this call). BAD_STATE because FLOWDPA_STRICT=1",
			     who, info->name, info->nr_entries_added);
		return DOCA_ERROR_BAD_STATE;
	}
	size_t words = ((size_t)info->size + 63) / 64;
	uint64_t *bits = core_calloc(words, sizeof(*bits));
	if (bits == NULL || flow_export_entries(fx, bits, (uint32_t)(words * 64)) != DOCA_SUCCESS) {
		free(bits);
		CORE_LOG_ERR("%s: out of memory", who);
		return DOCA_ERROR_NO_MEMORY;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < nr_entries; i++)
		n += (bits[i / 64] >> (i % 64)) & 1;
	sl->not_exported = bits;
	sl->nr_not_exported = n;
	CORE_LOG_WARN("%s: pipe '%s' already holds %u entries; entries added before export_prepare are not exported "
		      "(add them after this call): DPA requests on those %u entries will fail",
		      who, info->name, info->nr_entries_added, n);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_dpa_pipe_export_prepare(struct doca_flow_dpa_ctx *ctx, struct doca_flow_pipe *pipe,
					       uint32_t nr_entries, struct doca_flow_dpa_pipe **dpa_pipe)
{
	if (dpa_pipe)
		*dpa_pipe = NULL; /* on every failure */
	doca_error_t err = pv_ctx_check(ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (dpa_pipe == NULL || nr_entries == 0) {
		CORE_LOG_ERR("%s: %s", __func__, dpa_pipe == NULL ? "dpa_pipe out pointer is NULL" : "nr_entries is 0");
		return DOCA_ERROR_INVALID_VALUE;
	}
	struct flow_export *fx;
	struct flow_export_info info;
	err = flow_export_pipe(pipe, ctx->label, __func__, &fx);
	if (err == DOCA_SUCCESS)
		err = export_info(fx, &info, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	struct doca_flow_dpa_pipe *h = NULL;
	pthread_mutex_lock(&ctx->lock);
	int s = -1;
	if (nr_entries > info.size) {
		CORE_LOG_ERR("%s: pipe '%s': nr_entries %u is above the pipe's size (%u)", __func__, info.name,
			     nr_entries, info.size);
		err = DOCA_ERROR_INVALID_VALUE;
		goto fail;
	}
	if (!port_has_type(ctx, info.port_id, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL)) {
		CORE_LOG_ERR("%s: pipe '%s': port %u has no GENERAL queue in ctx %u (call doca_flow_dpa_queues_create "
			     "first)",
			     __func__, info.name, info.port_id, ctx->id);
		err = DOCA_ERROR_BAD_STATE;
		goto fail;
	}
	s = slot_take(ctx, pipe, __func__, &err);
	if (s < 0)
		goto fail;
	if (info.nr_entries_added) {
		err = prepare_existing(&ctx->slots[s], fx, &info, nr_entries, __func__);
		if (err != DOCA_SUCCESS)
			goto fail;
	}
	h = core_calloc(1, sizeof(*h));
	if (h == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		err = DOCA_ERROR_NO_MEMORY;
		goto fail;
	}
	slot_fill(ctx, s, fx, pipe, &info, PV_OBJ_PIPE, nr_entries, PV_OBJ_PREPARED);
	h->e = (struct pv_export){PV_PIPE_MAGIC, ctx, (uint32_t)s, atomic_load(&ctx->slots[s].gen), false};
	pthread_mutex_unlock(&ctx->lock);
	CORE_LOG_TRC("%s: ctx %u pipe '%s' nr_entries=%u slot %d (%u entries not exported)", __func__, ctx->id,
		     info.name, nr_entries, s, ctx->slots[s].nr_not_exported);
	*dpa_pipe = h;
	return DOCA_SUCCESS;
fail:
	if (s >= 0) {
		free(ctx->slots[s].not_exported);
		ctx->slots[s].not_exported = NULL;
		ctx->slots[s].nr_not_exported = 0;
	}
	pthread_mutex_unlock(&ctx->lock);
	flow_export_release(fx);
	return err;
}

doca_error_t doca_flow_dpa_pipe_export(struct doca_flow_dpa_ctx *ctx, struct doca_flow_dpa_pipe *dpa_pipe)
{
	doca_error_t err = handle_check(ctx, dpa_pipe ? &dpa_pipe->e : NULL, PV_PIPE_MAGIC, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&ctx->lock);
	struct pv_slot *sl = &ctx->slots[dpa_pipe->e.slot];
	struct flow_export_info info;
	if (dpa_pipe->e.exported) {
		CORE_LOG_ERR("%s: pipe '%s' is already exported", __func__, sl->name);
		err = DOCA_ERROR_BAD_STATE;
	} else if (flow_export_info(sl->fx, &info) != DOCA_SUCCESS) {
		CORE_LOG_ERR("%s: pipe '%s' is gone (its port stopped); nothing to export", __func__, sl->name);
		err = DOCA_ERROR_BAD_STATE;
	} else if (core_fault_injected(CORE_FAULT_PIPE_EXPORT)) {
		CORE_LOG_ERR("%s: driver failure: fault injected (FLOWDPA_FAULTS=pipe_export)", __func__);
		err = DOCA_ERROR_DRIVER;
	} else {
		dpa_pipe->e.exported = true;
		sl->exported = true;
		atomic_store_explicit(&ctx->block->obj[dpa_pipe->e.slot].state, PV_OBJ_EXPORTED, memory_order_release);
		CORE_LOG_TRC("%s: ctx %u pipe '%s' (%u entries added, %u of them not exported)", __func__, ctx->id,
			     sl->name, info.nr_entries_added, sl->nr_not_exported);
	}
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

static doca_error_t get_addr(struct doca_flow_dpa_ctx *ctx, const struct pv_export *e, uint32_t magic,
			     doca_flow_dpa_addr *dev_addr, const char *who)
{
	if (dev_addr)
		*dev_addr = 0; /* on every failure */
	doca_error_t err = handle_check(ctx, e, magic, who);
	if (err != DOCA_SUCCESS)
		return err;
	if (dev_addr == NULL) {
		CORE_LOG_ERR("%s: dev_addr is NULL", who);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!e->exported) {
		CORE_LOG_ERR("%s: pipe '%s' is prepared but not exported yet (call doca_flow_dpa_pipe_export first)", who,
			     ctx->slots[e->slot].name);
		return DOCA_ERROR_BAD_STATE;
	}
	*dev_addr = pv_addr_make(ctx->id, e->gen, e->slot);
	CORE_LOG_TRC("%s: ctx %u '%s' -> 0x%016llx", who, ctx->id, ctx->slots[e->slot].name,
		     (unsigned long long)*dev_addr);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_dpa_pipe_get_device_addr(struct doca_flow_dpa_ctx *ctx, struct doca_flow_dpa_pipe *dpa_pipe,
						doca_flow_dpa_addr *dev_addr)
{
	return get_addr(ctx, dpa_pipe ? &dpa_pipe->e : NULL, PV_PIPE_MAGIC, dev_addr, __func__);
}

static doca_error_t export_destroy(struct doca_flow_dpa_ctx *ctx, struct pv_export *e, uint32_t magic, const char *who)
{
	doca_error_t err = handle_check(ctx, e, magic, who);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&ctx->lock);
	CORE_LOG_TRC("%s: ctx %u '%s' (slot %u)", who, ctx->id, ctx->slots[e->slot].name, e->slot);
	slot_free(ctx, e->slot);
	pthread_mutex_unlock(&ctx->lock);
	e->magic = PV_HANDLE_DEAD;
	free(e);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_dpa_pipe_destroy(struct doca_flow_dpa_ctx *ctx, struct doca_flow_dpa_pipe *dpa_pipe)
{
	return export_destroy(ctx, dpa_pipe ? &dpa_pipe->e : NULL, PV_PIPE_MAGIC, __func__);
}

/* ------------------------------------------------------------------ external resources */

doca_error_t doca_flow_dpa_external_resource_export(struct doca_flow_dpa_ctx *ctx,
						    enum doca_flow_external_resource_type type, void *resource_ctx,
						    struct doca_flow_dpa_external_resource **dpa_resource)
{
	if (dpa_resource)
		*dpa_resource = NULL; /* on every failure */
	doca_error_t err = pv_ctx_check(ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (dpa_resource == NULL || resource_ctx == NULL) {
		CORE_LOG_ERR("%s: %s is NULL", __func__, dpa_resource == NULL ? "dpa_resource out pointer" : "resource_ctx");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (type != DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR && type != DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY) {
		CORE_LOG_ERR("%s: resource type %d cannot be exported (index selector and memory can)", __func__, (int)type);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	struct flow_export *fx;
	struct flow_export_info info;
	err = flow_export_resource(resource_ctx, type, ctx->label, __func__, &fx);
	if (err == DOCA_SUCCESS)
		err = export_info(fx, &info, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	bool sel = type == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR;
	enum pv_obj_kind kind = sel ? PV_OBJ_INDEX_SELECTOR : PV_OBJ_MEMORY;
	struct doca_flow_dpa_external_resource *h = NULL;
	pthread_mutex_lock(&ctx->lock);
	bool has_w = port_has_type(ctx, info.port_id, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE);
	bool has_r = port_has_type(ctx, info.port_id, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ);
	if (sel ? !has_w : !(has_w || has_r)) {
		CORE_LOG_ERR("%s: a%s needs %s queues on port %u in ctx %u (doca_flow_dpa_queues_create)", __func__,
			     sel ? "n index-selector resource" : " memory resource",
			     sel ? "RESOURCES_WRITE" : "RESOURCES_WRITE or RESOURCES_READ", info.port_id, ctx->id);
		err = DOCA_ERROR_BAD_STATE;
		goto fail;
	}
	int s = slot_take(ctx, resource_ctx, __func__, &err);
	if (s < 0)
		goto fail;
	h = core_calloc(1, sizeof(*h));
	if (h == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		err = DOCA_ERROR_NO_MEMORY;
		goto fail;
	}
	slot_fill(ctx, s, fx, resource_ctx, &info, kind, info.size, PV_OBJ_EXPORTED);
	h->e = (struct pv_export){PV_RES_MAGIC, ctx, (uint32_t)s, atomic_load(&ctx->slots[s].gen), true};
	pthread_mutex_unlock(&ctx->lock);
	CORE_LOG_TRC("%s: ctx %u %s of %u on port %u, slot %d%s", __func__, ctx->id, kind_name(kind), info.size,
		     info.port_id, s,
		     !sel && !has_w ? " (no RESOURCES_WRITE queue: updates will be NOT_SUPPORTED)"
		     : !sel && !has_r ? " (no RESOURCES_READ queue: reads will be NOT_SUPPORTED)"
				      : "");
	*dpa_resource = h;
	return DOCA_SUCCESS;
fail:
	pthread_mutex_unlock(&ctx->lock);
	flow_export_release(fx);
	return err;
}

doca_error_t doca_flow_dpa_external_resource_get_device_addr(struct doca_flow_dpa_ctx *ctx,
							     struct doca_flow_dpa_external_resource *dpa_resource,
							     doca_flow_dpa_addr *dev_addr)
{
	return get_addr(ctx, dpa_resource ? &dpa_resource->e : NULL, PV_RES_MAGIC, dev_addr, __func__);
}

doca_error_t doca_flow_dpa_external_resource_destroy(struct doca_flow_dpa_ctx *ctx,
						     struct doca_flow_dpa_external_resource *dpa_resource)
{
	return export_destroy(ctx, dpa_resource ? &dpa_resource->e : NULL, PV_RES_MAGIC, __func__);
}
