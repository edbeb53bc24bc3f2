/*
 * resource.c - NIC-side external resources (index selectors, memory) and counters.
 * Every slot or cell is one atomic word so host, datapath and DPA requests can touch it
 * concurrently without a lock.
 */
#include <stdlib.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::RESOURCE);

void nic_counter_read(const struct nic_counter *c, uint64_t *pkts, uint64_t *bytes)
{
	uint64_t p = 0, b = 0;
	for (int i = 0; i < NIC_CNT_SHARDS; i++) {
		p += __atomic_load_n(&c->shard[i].pkts, __ATOMIC_RELAXED);
		b += __atomic_load_n(&c->shard[i].bytes, __ATOMIC_RELAXED);
	}
	if (pkts)
		*pkts = p;
	if (bytes)
		*bytes = b;
}

doca_error_t nic_idxsel_create(uint32_t nr_indices, struct nic_idxsel **sel)
{
	if (sel == NULL || nr_indices == 0)
		return DOCA_ERROR_INVALID_VALUE;
	struct nic_idxsel *s = core_calloc(1, sizeof(*s));
	if (s == NULL)
		return DOCA_ERROR_NO_MEMORY;
	s->state = core_calloc(nr_indices, sizeof(*s->state));
	if (s->state == NULL) {
		free(s);
		return DOCA_ERROR_NO_MEMORY;
	}
	s->n = nr_indices;
	*sel = s;
	return DOCA_SUCCESS;
}

void nic_idxsel_destroy(struct nic_idxsel *sel)
{
	if (sel == NULL)
		return;
	free((void *)sel->state);
	free(sel);
}

uint32_t nic_idxsel_size(const struct nic_idxsel *sel)
{
	return sel->n;
}

doca_error_t nic_idxsel_set(struct nic_idxsel *sel, uint32_t index, uint32_t state)
{
	if (index >= sel->n) {
		CORE_LOG_ERR("index selector: index %u out of range (nr_indices %u)", index, sel->n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (state > NIC_SEL_DISABLE) {
		CORE_LOG_ERR("index selector: state %u is not an index-selector op", state);
		return DOCA_ERROR_INVALID_VALUE;
	}
	atomic_store_explicit(&sel->state[index], (uint8_t)state, memory_order_release);
	return DOCA_SUCCESS;
}

doca_error_t nic_idxsel_get(const struct nic_idxsel *sel, uint32_t index, uint32_t *state)
{
	if (index >= sel->n) {
		CORE_LOG_ERR("index selector: index %u out of range (nr_indices %u)", index, sel->n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*state = atomic_load_explicit(&((struct nic_idxsel *)sel)->state[index], memory_order_acquire);
	return DOCA_SUCCESS;
}

doca_error_t nic_mem_create(uint32_t nr_cells, struct nic_mem **mem)
{
	if (mem == NULL || nr_cells == 0)
		return DOCA_ERROR_INVALID_VALUE;
	struct nic_mem *m = core_calloc(1, sizeof(*m));
	if (m == NULL)
		return DOCA_ERROR_NO_MEMORY;
	m->cells = core_calloc(nr_cells, sizeof(*m->cells));
	if (m->cells == NULL) {
		free(m);
		return DOCA_ERROR_NO_MEMORY;
	}
	m->n = nr_cells;
	*mem = m;
	return DOCA_SUCCESS;
}

void nic_mem_destroy(struct nic_mem *mem)
{
	if (mem == NULL)
		return;
	free((void *)mem->cells);
	free(mem);
}

uint32_t nic_mem_size(const struct nic_mem *mem)
{
	return mem->n;
}

doca_error_t nic_mem_read(const struct nic_mem *mem, uint32_t cell, uint64_t *value)
{
	if (cell >= mem->n) {
		CORE_LOG_ERR("memory resource: cell %u out of range (nr_cells %u)", cell, mem->n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*value = atomic_load_explicit(&((struct nic_mem *)mem)->cells[cell], memory_order_acquire);
	return DOCA_SUCCESS;
}

doca_error_t nic_mem_write(struct nic_mem *mem, uint32_t cell, uint64_t value)
{
	if (cell >= mem->n) {
		CORE_LOG_ERR("memory resource: cell %u out of range (nr_cells %u)", cell, mem->n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	atomic_store_explicit(&mem->cells[cell], value, memory_order_release);
	return DOCA_SUCCESS;
}
