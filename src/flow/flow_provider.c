/*
 * flow_provider.c - the provider seam (flow_provider.h): export holds on HASH pipes and
 * external resources, and the burst executor behind them.
 */
#include <stdlib.h>
#include <string.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::PROVIDER);

#define XOP_BURST 32

_Static_assert(FLOW_XOP_ENABLE == (int)NIC_HASH_OP_ENABLE && FLOW_XOP_DISABLE == (int)NIC_HASH_OP_DISABLE &&
		       FLOW_XOP_REPLACE == (int)NIC_HASH_OP_REPLACE,
	       "pipe ops pass to the NIC by value");

static struct flow_export *export_new(const char *holder, const char *who)
{
	struct flow_export *x = core_calloc(1, sizeof(*x));
	if (x == NULL) {
		CORE_LOG_ERR("%s: out of memory for the export", who);
		return NULL;
	}
	pthread_mutex_init(&x->lock, NULL);
	snprintf(x->holder, sizeof(x->holder), "%s", holder ? holder : "(unnamed)");
	x->info.name = x->name;
	return x;
}

doca_error_t flow_export_pipe(struct doca_flow_pipe *pipe, const char *holder, const char *who,
			      struct flow_export **exp)
{
	CHECK(exp != NULL, DOCA_ERROR_INVALID_VALUE, "%s: export out pointer is NULL", who);
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = DOCA_ERROR_INVALID_VALUE;
	struct flow_export *x = NULL;
	if (!flow_pipe_valid(pipe, who))
		goto out;
	if (pipe->type != DOCA_FLOW_PIPE_HASH) {
		CORE_LOG_ERR("%s: pipe '%s' is not a HASH pipe; only hash pipes can be exported", who, pipe->name);
		err = DOCA_ERROR_NOT_SUPPORTED;
		goto out;
	}
	x = export_new(holder, who);
	if (x == NULL) {
		err = DOCA_ERROR_NO_MEMORY;
		goto out;
	}
	x->pipe = pipe;
	x->nic = pipe->nic;
	snprintf(x->name, sizeof(x->name), "%s", pipe->name);
	x->info.kind = FLOW_EXPORT_PIPE;
	x->info.port = pipe->port;
	x->info.port_id = pipe->port->id;
	x->info.size = pipe->nr_entries;
	x->info.map_algorithm = nic_pipe_map_algorithm(pipe->nic);
	x->info.ps_bits = pipe->ps_field >= 0 ? nic_ps_field_bits(pipe->ps_field) : 0;
	x->next = pipe->exports;
	pipe->exports = x;
	*exp = x;
	err = DOCA_SUCCESS;
out:
	pthread_mutex_unlock(&flow_g.lock);
	return err;
}

doca_error_t flow_export_resource(struct doca_flow_external_resource *res, enum doca_flow_external_resource_type type,
				  const char *holder, const char *who, struct flow_export **exp)
{
	CHECK(exp != NULL, DOCA_ERROR_INVALID_VALUE, "%s: export out pointer is NULL", who);
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = DOCA_ERROR_INVALID_VALUE;
	struct flow_export *x = NULL;
	if (!flow_extres_valid(res, who))
		goto out;
	bool is_sel = res->type == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR;
	if (res->type != type) {
		CORE_LOG_ERR("%s: the resource is %s resource, not the type given (%d)", who,
			     is_sel ? "an index-selector" : "a memory", (int)type);
		goto out;
	}
	x = export_new(holder, who);
	if (x == NULL) {
		err = DOCA_ERROR_NO_MEMORY;
		goto out;
	}
	x->res = res;
	x->sel = res->sel;
	x->mem = res->mem;
	snprintf(x->name, sizeof(x->name), "%s", is_sel ? "index selector" : "memory");
	x->info.kind = is_sel ? FLOW_EXPORT_INDEX_SELECTOR : FLOW_EXPORT_MEMORY;
	x->info.port = res->port;
	x->info.port_id = res->port->id;
	x->info.size = res->size;
	x->next = res->exports;
	res->exports = x;
	*exp = x;
	err = DOCA_SUCCESS;
out:
	pthread_mutex_unlock(&flow_g.lock);
	return err;
}

static void export_unlink(struct flow_export **list, struct flow_export *x)
{
	while (*list && *list != x)
		list = &(*list)->next;
	if (*list)
		*list = x->next;
}

/* Under flow_g.lock (and with x->lock held by the caller where a burst may run). */
static void export_clear(struct flow_export *x)
{
	x->pipe = NULL;
	x->res = NULL;
	x->nic = NULL;
	x->sel = NULL;
	x->mem = NULL;
}

void flow_export_release(struct flow_export *x)
{
	if (x == NULL)
		return;
	pthread_mutex_lock(&flow_g.lock);
	if (x->pipe)
		export_unlink(&x->pipe->exports, x);
	else if (x->res)
		export_unlink(&x->res->exports, x);
	export_clear(x);
	pthread_mutex_unlock(&flow_g.lock);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

void flow_export_detach_all(struct flow_export **list, const char *why)
{
	while (*list) {
		struct flow_export *x = *list;
		*list = x->next;
		CORE_LOG_WARN("%s '%s' was still exported (%s) when %s; DPA requests on it now fail", 
			      x->info.kind == FLOW_EXPORT_PIPE ? "pipe" : "external resource", x->name, x->holder,
			      why);
		pthread_mutex_lock(&x->lock);
		export_clear(x);
		pthread_mutex_unlock(&x->lock);
	}
}

uint32_t flow_export_count(const struct flow_export *list)
{
	uint32_t n = 0;
	for (; list; list = list->next)
		n++;
	return n;
}

doca_error_t flow_export_info(const struct flow_export *x, struct flow_export_info *info)
{
	if (x == NULL || info == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&flow_g.lock);
	*info = x->info;
	bool gone = x->pipe == NULL && x->res == NULL;
	if (x->pipe)
		info->nr_entries_added = flow_pipe_live(x->pipe);
	pthread_mutex_unlock(&flow_g.lock);
	return gone ? DOCA_ERROR_BAD_STATE : DOCA_SUCCESS;
}

struct entries_arg {
	uint64_t *bits;
	uint32_t nbits;
};

static void mark_entry(const struct doca_flow_pipe_entry *e, void *arg)
{
	struct entries_arg *a = arg;
	if (e->index < a->nbits)
		a->bits[e->index / 64] |= 1ull << (e->index % 64);
}

doca_error_t flow_export_entries(const struct flow_export *x, uint64_t *bits, uint32_t nbits)
{
	if (x == NULL || bits == NULL || x->info.kind != FLOW_EXPORT_PIPE || nbits < x->info.size)
		return DOCA_ERROR_INVALID_VALUE;
	memset(bits, 0, ((size_t)nbits + 63) / 64 * sizeof(*bits));
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = DOCA_ERROR_BAD_STATE;
	if (x->pipe) {
		struct entries_arg a = {bits, nbits};
		flow_entry_for_each(x->pipe, mark_entry, &a);
		err = DOCA_SUCCESS;
	}
	pthread_mutex_unlock(&flow_g.lock);
	return err;
}

/* ------------------------------------------------------------------ execution */

static void exec_pipe(struct nic_pipe *nic, struct flow_xop *ops, uint32_t n)
{
	struct nic_hash_op hops[XOP_BURST];
	for (uint32_t done = 0; done < n;) {
		uint32_t k = 0;
		for (; k < XOP_BURST && done + k < n; k++) {
			const struct flow_xop *o = &ops[done + k];
			hops[k] = (struct nic_hash_op){o->type <= FLOW_XOP_REPLACE ? o->type : UINT32_MAX, o->index,
						       o->value, DOCA_SUCCESS};
		}
		nic_hash_exec(nic, hops, k);
		for (uint32_t i = 0; i < k; i++) {
			struct flow_xop *o = &ops[done + i];
			o->result = o->type <= FLOW_XOP_REPLACE ? hops[i].result : DOCA_ERROR_NOT_SUPPORTED;
		}
		done += k;
	}
}

static doca_error_t exec_resource(const struct flow_export *x, struct flow_xop *o)
{
	if (o->index >= x->info.size)
		return DOCA_ERROR_INVALID_VALUE;
	switch (o->type) {
	case FLOW_XOP_SELECT:
		if (x->sel == NULL)
			return DOCA_ERROR_NOT_SUPPORTED;
		if (o->value > DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE)
			return DOCA_ERROR_INVALID_VALUE;
		return nic_idxsel_set(x->sel, o->index, (uint32_t)o->value);
	case FLOW_XOP_MEM_WRITE:
		return x->mem ? nic_mem_write(x->mem, o->index, o->value) : DOCA_ERROR_NOT_SUPPORTED;
	case FLOW_XOP_MEM_READ:
		return x->mem ? nic_mem_read(x->mem, o->index, &o->value) : DOCA_ERROR_NOT_SUPPORTED;
	default:
		return DOCA_ERROR_NOT_SUPPORTED;
	}
}

void flow_export_execute(struct flow_export *x, struct flow_xop *ops, uint32_t n)
{
	pthread_mutex_lock(&x->lock);
	if (x->nic)
		exec_pipe(x->nic, ops, n);
	else if (x->sel || x->mem)
		for (uint32_t i = 0; i < n; i++)
			ops[i].result = exec_resource(x, &ops[i]);
	else
		for (uint32_t i = 0; i < n; i++)
			ops[i].result = DOCA_ERROR_BAD_STATE;
	pthread_mutex_unlock(&x->lock);
}

doca_error_t flow_export_entry_state(const struct flow_export *x, uint32_t index, bool *enabled, uint32_t *ps_value)
{
	if (x == NULL || x->info.kind != FLOW_EXPORT_PIPE)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&((struct flow_export *)x)->lock);
	doca_error_t err = x->nic ? nic_hash_entry_state(x->nic, index, enabled, ps_value) : DOCA_ERROR_BAD_STATE;
	pthread_mutex_unlock(&((struct flow_export *)x)->lock);
	return err;
}

doca_error_t flow_export_entry_counter(const struct flow_export *x, uint32_t index, uint64_t *pkts, uint64_t *bytes)
{
	if (x == NULL || x->info.kind != FLOW_EXPORT_PIPE)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&((struct flow_export *)x)->lock);
	doca_error_t err =
		x->nic ? nic_hash_entry_counter_read(x->nic, index, pkts, bytes) : DOCA_ERROR_BAD_STATE;
	pthread_mutex_unlock(&((struct flow_export *)x)->lock);
	return err;
}

uint32_t flow_pipe_nr_entries_added(const struct doca_flow_pipe *pipe)
{
	return flow_pipe_valid(pipe, __func__) ? flow_pipe_live(pipe) : 0;
}

doca_error_t flow_port_id_get(const struct doca_flow_port *port, const char *who, uint16_t *id)
{
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = flow_port_check(port, who);
	if (err == DOCA_SUCCESS)
		*id = port->id;
	pthread_mutex_unlock(&flow_g.lock);
	return err;
}
