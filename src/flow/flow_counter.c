/*
 * flow_counter.c - counters as DOCA Flow shows them: the entry and pipe-miss queries,
 * and the port's shared counters (the shared-resource calls, and the references the
 * entries counting into one hold on it, so that a put cannot free it under them).
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::COUNTER);

/* ------------------------------------------------------------------ entry references */

doca_error_t flow_shared_ref(struct doca_flow_port *port, uint32_t id, const char *who)
{
	doca_error_t err = flow_shared_id_check(port, id, who);
	if (err != DOCA_SUCCESS)
		return err;
	/* Taken with the check so that a put cannot free the id between them. */
	struct flow_shared_counter *c = &port->shared_counters[id];
	pthread_mutex_lock(&flow_g.lock);
	bool usable = c->allocated || c->configured;
	if (usable)
		c->refs++;
	pthread_mutex_unlock(&flow_g.lock);
	/* An id nobody obtained or configured would count into a counter nobody reads. */
	CHECK(usable, DOCA_ERROR_INVALID_VALUE,
	      "%s: shared counter id %u of port %u was never obtained (doca_flow_port_shared_resource_get) "
	      "or configured (doca_flow_port_shared_resource_set_cfg)",
	      who, id, port->id);
	return DOCA_SUCCESS;
}

void flow_shared_unref(struct doca_flow_port *port, int32_t *id)
{
	if (*id >= 0) {
		assert(port->shared_counters[*id].refs > 0);
		port->shared_counters[*id].refs--;
		*id = -1;
	}
}

void flow_shared_unref_locking(struct doca_flow_port *port, int32_t *id)
{
	if (*id < 0)
		return;
	pthread_mutex_lock(&flow_g.lock);
	flow_shared_unref(port, id);
	pthread_mutex_unlock(&flow_g.lock);
}

int32_t flow_entry_shared_id(const struct doca_flow_pipe_entry *e)
{
	struct nic_entry *ne = flow_entry_nic(e);
	const struct doca_flow_pipe *p = flow_entry_pipe(e);
	struct nic_counter *cnt = ne ? nic_entry_shared_counter(p->nic, ne) : NULL;
	if (cnt == NULL)
		return -1;
	const struct flow_shared_counter *c =
		(const struct flow_shared_counter *)(const void *)((const char *)cnt -
								   offsetof(struct flow_shared_counter, cnt));
	return (int32_t)(c - p->port->shared_counters);
}

/* ------------------------------------------------------------------ queries */

doca_error_t doca_flow_resource_query_entry(struct doca_flow_pipe_entry *entry, struct doca_flow_resource_query *data)
{
	if (!flow_entry_valid(entry, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(data != NULL, DOCA_ERROR_INVALID_VALUE, "%s: data is NULL", __func__);
	const struct doca_flow_pipe *pipe = flow_entry_pipe(entry);
	struct nic_entry *ne = flow_entry_nic(entry);
	CHECK(ne != NULL, DOCA_ERROR_BAD_STATE, "%s: entry of pipe '%s' is not in the NIC (status %u)", __func__,
	      pipe->name, (unsigned)flow_entry_status(entry));
	uint64_t pkts, bytes;
	CHECK(nic_entry_counter_read(pipe->nic, ne, &pkts, &bytes) == DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE,
	      "%s: entry of pipe '%s' has no counter", __func__, pipe->name);
	data->counter.total_pkts = pkts;
	data->counter.total_bytes = bytes;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_resource_query_pipe_miss(struct doca_flow_pipe *pipe, struct doca_flow_resource_query *data)
{
	if (!flow_pipe_valid(pipe, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(data != NULL, DOCA_ERROR_INVALID_VALUE, "%s: data is NULL", __func__);
	uint64_t pkts, bytes;
	CHECK(nic_pipe_miss_read(pipe->nic, &pkts, &bytes) == DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s' was created without a miss counter", __func__, pipe->name);
	data->counter.total_pkts = pkts;
	data->counter.total_bytes = bytes;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ shared counters */

doca_error_t flow_shared_id_check(const struct doca_flow_port *port, uint32_t id, const char *who)
{
	CHECK(id < port->nr_shared_counters, DOCA_ERROR_INVALID_VALUE,
	      "%s: shared counter id %u out of range (port %u has %u)", who, id, port->id, port->nr_shared_counters);
	return DOCA_SUCCESS;
}

static doca_error_t shared_check(struct doca_flow_port *port, enum doca_flow_shared_resource_type type, const char *who)
{
	if (!flow_inited(who))
		return DOCA_ERROR_BAD_STATE;
	doca_error_t err = flow_port_check(port, who);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK((uint32_t)type <= DOCA_FLOW_SHARED_RESOURCE_IPSEC_SA, DOCA_ERROR_INVALID_VALUE,
	      "%s: unknown shared resource type %u", who, (unsigned)type);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_shared_resource_get(struct doca_flow_port *port, enum doca_flow_shared_resource_type type,
						uint32_t *shared_resource_id)
{
	doca_error_t err = shared_check(port, type, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(shared_resource_id != NULL, DOCA_ERROR_INVALID_VALUE, "%s: shared_resource_id is NULL", __func__);
	if (type != DOCA_FLOW_SHARED_RESOURCE_COUNTER) {
		static _Atomic uint32_t next_id;
		*shared_resource_id = atomic_fetch_add(&next_id, 1);
		return DOCA_SUCCESS;
	}
	pthread_mutex_lock(&flow_g.lock);
	for (uint32_t i = 0; i < port->nr_shared_counters; i++) {
		struct flow_shared_counter *c = &port->shared_counters[i];
		if (!c->allocated) {
			memset(c, 0, sizeof(*c));
			c->allocated = true;
			pthread_mutex_unlock(&flow_g.lock);
			*shared_resource_id = i;
			return DOCA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&flow_g.lock);
	CORE_LOG_ERR("%s: port %u has no free shared counter (%u)", __func__, port->id, port->nr_shared_counters);
	return DOCA_ERROR_FULL;
}

doca_error_t doca_flow_port_shared_resource_put(struct doca_flow_port *port, enum doca_flow_shared_resource_type type,
						uint32_t shared_resource_id)
{
	doca_error_t err = shared_check(port, type, __func__);
	if (err != DOCA_SUCCESS || type != DOCA_FLOW_SHARED_RESOURCE_COUNTER)
		return err;
	err = flow_shared_id_check(port, shared_resource_id, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&flow_g.lock);
	struct flow_shared_counter *c = &port->shared_counters[shared_resource_id];
	uint32_t refs = c->refs; /* queued adds included */
	if (refs == 0)
		c->allocated = c->configured = false;
	pthread_mutex_unlock(&flow_g.lock);
	CHECK(refs == 0, DOCA_ERROR_IN_USE, "%s: shared counter %u is used by %u entries", __func__,
	      shared_resource_id, refs);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_shared_resource_set_cfg(struct doca_flow_port *port,
						    enum doca_flow_shared_resource_type type,
						    uint32_t shared_resource_id, struct doca_flow_shared_resource_cfg *cfg)
{
	doca_error_t err = shared_check(port, type, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(cfg != NULL, DOCA_ERROR_INVALID_VALUE, "%s: cfg is NULL", __func__);
	if (type != DOCA_FLOW_SHARED_RESOURCE_COUNTER)
		return DOCA_SUCCESS;
	err = flow_shared_id_check(port, shared_resource_id, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&flow_g.lock);
	port->shared_counters[shared_resource_id].allocated = true;
	port->shared_counters[shared_resource_id].configured = true;
	pthread_mutex_unlock(&flow_g.lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_shared_resources_query(struct doca_flow_port *port,
						   enum doca_flow_shared_resource_type type, uint32_t *res_array,
						   struct doca_flow_resource_query *data_array, uint32_t array_len)
{
	doca_error_t err = shared_check(port, type, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	CHECK(type == DOCA_FLOW_SHARED_RESOURCE_COUNTER, DOCA_ERROR_NOT_SUPPORTED,
	      "%s: only shared counters can be queried", __func__);
	CHECK(res_array != NULL && data_array != NULL, DOCA_ERROR_INVALID_VALUE, "%s: NULL array", __func__);
	for (uint32_t i = 0; i < array_len && err == DOCA_SUCCESS; i++)
		err = flow_shared_id_check(port, res_array[i], __func__);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < array_len; i++)
		nic_counter_read(&port->shared_counters[res_array[i]].cnt, &data_array[i].counter.total_pkts,
				 &data_array[i].counter.total_bytes);
	return DOCA_SUCCESS;
}
