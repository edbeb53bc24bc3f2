/*
 * flow_extres.c - external resources of DOCA Flow (index selector, memory), as
 * docs/external-resources.md describes them: cfg objects, creation, binding to HASH
 * pipes, host-side access. The resource state lives in the NIC (nic_idxsel,
 * nic_mem); the provider exports these objects to a DPA.
 */
#include <assert.h>
#include <stdlib.h>

#include <doca_flow_external_resource.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::EXTRES);

static const char *type_name(enum doca_flow_external_resource_type t)
{
	return t == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR ? "index selector" : "memory";
}

doca_error_t doca_flow_external_resource_cfg_create(struct doca_flow_external_resource_cfg **cfg,
						    struct doca_flow_port *port)
{
	CHECK(cfg != NULL, DOCA_ERROR_INVALID_VALUE, "%s: cfg is NULL", __func__);
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	doca_error_t err = flow_port_check(port, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	struct doca_flow_external_resource_cfg *c = core_calloc(1, sizeof(*c));
	if (c == NULL)
		return CORE_LOG_NOMEM(__func__, "the cfg");
	c->port = port;
	c->gen = flow_g.gen;
	*cfg = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_external_resource_cfg_destroy(struct doca_flow_external_resource_cfg *cfg)
{
	CHECK(cfg != NULL, DOCA_ERROR_INVALID_VALUE, "%s: cfg is NULL", __func__);
	free(cfg);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_external_resource_cfg_set_type(struct doca_flow_external_resource_cfg *cfg,
						      enum doca_flow_external_resource_type type)
{
	CHECK(cfg != NULL, DOCA_ERROR_INVALID_VALUE, "%s: cfg is NULL", __func__);
	CHECK(type == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR || type == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY,
	      DOCA_ERROR_INVALID_VALUE, "%s: unknown resource type %u", __func__, (unsigned)type);
	cfg->has_type = true;
	cfg->type = type;
	return DOCA_SUCCESS;
}

static doca_error_t set_size(struct doca_flow_external_resource_cfg *cfg, enum doca_flow_external_resource_type want,
			     uint32_t n, const char *who)
{
	CHECK(cfg != NULL, DOCA_ERROR_INVALID_VALUE, "%s: cfg is NULL", who);
	CHECK(cfg->has_type && cfg->type == want, DOCA_ERROR_INVALID_VALUE,
	      "%s: the cfg's type is %s, this setter is for %s resources", who,
	      cfg->has_type ? type_name(cfg->type) : "not set", type_name(want));
	CHECK(n > 0, DOCA_ERROR_INVALID_VALUE, "%s: size is 0", who);
	cfg->size = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_external_resource_cfg_set_nr_indices(struct doca_flow_external_resource_cfg *cfg,
							    uint32_t nr_indices)
{
	return set_size(cfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, nr_indices, __func__);
}

doca_error_t doca_flow_external_resource_cfg_set_nr_cells(struct doca_flow_external_resource_cfg *cfg,
							  uint32_t nr_cells)
{
	return set_size(cfg, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, nr_cells, __func__);
}

doca_error_t doca_flow_external_resource_create(const struct doca_flow_external_resource_cfg *cfg,
						struct doca_flow_external_resource **resource)
{
	CHECK(cfg != NULL && resource != NULL, DOCA_ERROR_INVALID_VALUE, "%s: cfg or resource is NULL", __func__);
	CHECK(cfg->has_type, DOCA_ERROR_INVALID_VALUE, "%s: the cfg has no type", __func__);
	CHECK(cfg->size > 0, DOCA_ERROR_INVALID_VALUE, "%s: the %s cfg has no size", __func__, type_name(cfg->type));
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	CHECK(cfg->gen == flow_g.gen, DOCA_ERROR_BAD_STATE,
	      "%s: the cfg was created before doca_flow_destroy; its port is gone", __func__);
	doca_error_t err = flow_port_check(cfg->port, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	struct doca_flow_external_resource *r = core_calloc(1, sizeof(*r));
	if (r == NULL)
		return CORE_LOG_NOMEM(__func__, "the resource");
	err = cfg->type == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR ? nic_idxsel_create(cfg->size, &r->sel)
									    : nic_mem_create(cfg->size, &r->mem);
	if (err != DOCA_SUCCESS) {
		/* The NIC does not log: its only failure here is memory (the cfg was checked). */
		CORE_LOG_ERR("%s: cannot create %u %s: %s", __func__, cfg->size,
			     cfg->type == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR ? "indices" : "cells",
			     doca_error_get_descr(err));
		free(r);
		return err;
	}
	r->magic = FLOW_EXTRES_MAGIC;
	r->type = cfg->type;
	r->port = cfg->port;
	r->size = cfg->size;
	pthread_mutex_lock(&flow_g.lock);
	r->next = flow_g.resources;
	flow_g.resources = r;
	pthread_mutex_unlock(&flow_g.lock);
	*resource = r;
	return DOCA_SUCCESS;
}

bool flow_extres_valid(const struct doca_flow_external_resource *r, const char *who)
{
	if (r == NULL || r->magic != FLOW_EXTRES_MAGIC) {
		CORE_LOG_ERR("%s: %s", who, r ? "not a live external resource" : "resource is NULL");
		return false;
	}
	return true;
}

doca_error_t doca_flow_external_resource_destroy(struct doca_flow_external_resource *resource)
{
	pthread_mutex_lock(&flow_g.lock);
	if (!flow_extres_valid(resource, __func__)) {
		pthread_mutex_unlock(&flow_g.lock);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* docs/external-resources.md, Errors: BAD_STATE while bound to a pipe (or to a pipe cfg, which would
	 * bind it at doca_flow_pipe_create) or exported. */
	if (resource->bound || resource->cfg_held || resource->exports) {
		uint32_t bound = resource->bound, held = resource->cfg_held;
		uint32_t exported = flow_export_count(resource->exports);
		char holder[sizeof(resource->exports->holder) + 4] = "";
		if (resource->exports)
			snprintf(holder, sizeof(holder), " (%s)", resource->exports->holder);
		pthread_mutex_unlock(&flow_g.lock);
		CORE_LOG_ERR("%s: the %s resource is still %s%s (%u pipes, %u pipe cfgs, %u exports)", __func__,
			     type_name(resource->type),
			     bound ? "bound to a pipe" : held ? "set on a pipe cfg" : "exported", bound ? "" : holder,
			     bound, held, exported);
		return DOCA_ERROR_BAD_STATE;
	}
	struct doca_flow_external_resource **link = &flow_g.resources;
	while (*link && *link != resource)
		link = &(*link)->next;
	assert(*link == resource && "a live resource is on flow_g.resources");
	if (*link)
		*link = resource->next;
	pthread_mutex_unlock(&flow_g.lock);
	nic_idxsel_destroy(resource->sel);
	nic_mem_destroy(resource->mem);
	resource->magic = 0;
	free(resource);
	return DOCA_SUCCESS;
}

/* The cfg holds the resource (cfg_held) until doca_flow_pipe_cfg_destroy, so it cannot
 * be destroyed before doca_flow_pipe_create binds it to the pipe. */
static doca_error_t set_external_resource_locked(struct doca_flow_pipe_cfg *cfg,
						 struct doca_flow_external_resource *resource)
{
	static const char *who = "doca_flow_pipe_cfg_set_external_resource";
	if (!flow_extres_valid(resource, who))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(cfg->gen == flow_g.gen, DOCA_ERROR_BAD_STATE,
	      "%s: pipe '%s': the cfg was created before doca_flow_destroy; its port is gone", who, cfg->name);
	CHECK(cfg->type == DOCA_FLOW_PIPE_HASH, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s' is not a HASH pipe (set the type first)", who, cfg->name);
	CHECK(resource->port == cfg->port, DOCA_ERROR_INVALID_VALUE,
	      "%s: the resource belongs to port %u, the pipe to port %u", who, resource->port->id, cfg->port->id);
	struct doca_flow_external_resource **slot =
		resource->type == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR ? &cfg->idxsel : &cfg->mem;
	CHECK(*slot == NULL, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s' already has a %s resource", who, cfg->name,
	      type_name(resource->type));
	*slot = resource;
	resource->cfg_held++;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_external_resource(struct doca_flow_pipe_cfg *cfg,
						      struct doca_flow_external_resource *resource)
{
	CHECK(cfg != NULL, DOCA_ERROR_INVALID_VALUE, "%s: pipe cfg is NULL", __func__);
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = set_external_resource_locked(cfg, resource);
	pthread_mutex_unlock(&flow_g.lock);
	return err;
}

static doca_error_t check_res(const struct doca_flow_external_resource *r, enum doca_flow_external_resource_type t,
			      uint32_t at, const void *out, const char *who)
{
	if (!flow_extres_valid(r, who))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(out != NULL, DOCA_ERROR_INVALID_VALUE, "%s: output pointer is NULL", who);
	CHECK(r->type == t, DOCA_ERROR_INVALID_VALUE, "%s: the resource is a %s resource", who, type_name(r->type));
	CHECK(at < r->size, DOCA_ERROR_INVALID_VALUE, "%s: %u out of range (size %u)", who, at, r->size);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_external_resource_memory_get(struct doca_flow_external_resource *resource, uint32_t offset,
						    uint64_t *value)
{
	doca_error_t err = check_res(resource, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, offset, value, __func__);
	return err != DOCA_SUCCESS ? err : nic_mem_read(resource->mem, offset, value);
}

doca_error_t doca_flow_external_resource_memory_set(struct doca_flow_external_resource *resource, uint32_t offset,
						    uint64_t value)
{
	doca_error_t err = check_res(resource, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY, offset, &value, __func__);
	return err != DOCA_SUCCESS ? err : nic_mem_write(resource->mem, offset, value);
}

doca_error_t doca_flow_external_resource_index_selector_get(struct doca_flow_external_resource *resource,
							    uint32_t index, enum doca_flow_index_selector_op *state)
{
	doca_error_t err =
		check_res(resource, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, index, state, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	uint32_t s;
	err = nic_idxsel_get(resource->sel, index, &s);
	if (err == DOCA_SUCCESS)
		*state = (enum doca_flow_index_selector_op)s;
	return err;
}

doca_error_t doca_flow_external_resource_index_selector_set(struct doca_flow_external_resource *resource,
							    uint32_t index, enum doca_flow_index_selector_op state)
{
	doca_error_t err =
		check_res(resource, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR, index, &state, __func__);
	return err != DOCA_SUCCESS ? err : nic_idxsel_set(resource->sel, index, (uint32_t)state);
}
