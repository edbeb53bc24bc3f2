/*
 * flow_resize.c - resizable pipes: doca_flow_pipe_cfg_set_is_resizable,
 * _set_congestion_level_threshold and _set_excluded_queue, the CONGESTION_REACHED
 * notification, and doca_flow_pipe_resize with its nr_entries-changed and
 * entry-relocation callbacks and the RESIZED completion.
 *
 * The software NIC only raises the pipe's entry limit (nic_pipe_set_capacity): entries
 * stay where they are and traffic keeps hitting them throughout. What a program sees is
 * DOCA's sequence: an add that brings the pipe to its threshold delivers
 * CONGESTION_REACHED (once, until the next resize) through the pipe process callback;
 * doca_flow_pipe_resize sets the new size at once, then the next doca_flow_entries_process
 * of the pipe's port on a queue the pipe does not exclude calls nr_entries_changed_cb,
 * entry_relocation_cb for each entry in the NIC and delivers RESIZED.
 */
#include <stdlib.h>
#include <string.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::RESIZE);

#define CHECK_CFG(cfg) CHECK((cfg) != NULL, DOCA_ERROR_INVALID_VALUE, "%s: pipe cfg is NULL", __func__)

doca_error_t doca_flow_pipe_cfg_set_is_resizable(struct doca_flow_pipe_cfg *cfg, bool is_resizable)
{
	CHECK_CFG(cfg);
	cfg->is_resizable = is_resizable;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_congestion_level_threshold(struct doca_flow_pipe_cfg *cfg, uint8_t threshold)
{
	CHECK_CFG(cfg);
	CHECK(threshold > 0 && threshold <= 100, DOCA_ERROR_INVALID_VALUE,
	      "%s: threshold %u is not a percentage in (0, 100]", __func__, threshold);
	cfg->congestion_threshold = threshold;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_excluded_queue(struct doca_flow_pipe_cfg *cfg, uint16_t pipe_queue)
{
	CHECK_CFG(cfg);
	/* The cfg's port may have stopped since: its queue count is DOCA Flow's. */
	CHECK(pipe_queue < flow_g.cfg.pipe_queues, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe_queue %u out of range (pipe_queues %u)", __func__, pipe_queue, flow_g.cfg.pipe_queues);
	cfg->excluded_queues[pipe_queue / 64] |= 1ull << (pipe_queue % 64);
	return DOCA_SUCCESS;
}

uint32_t flow_resize_reserve(const struct doca_flow_pipe *p)
{
	if (!p->resize.resizable || p->type != DOCA_FLOW_PIPE_BASIC)
		return 0;
	if (p->nr_entries >= (1u << 22))
		return 1u << 26;
	return p->nr_entries < 4096 ? 65536 : p->nr_entries * 16;
}

doca_error_t flow_resize_pipe_init(struct doca_flow_pipe *p, const struct doca_flow_pipe_cfg *cfg, const char *who)
{
	/* HASH entries are addressed by index: their table cannot grow. */
	CHECK(!cfg->is_resizable || cfg->type == DOCA_FLOW_PIPE_BASIC || cfg->type == DOCA_FLOW_PIPE_CONTROL,
	      DOCA_ERROR_NOT_SUPPORTED, "%s: pipe '%s': only BASIC and CONTROL pipes are resizable", who, cfg->name);
	p->user_ctx = cfg->user_ctx;
	p->resize.resizable = cfg->is_resizable;
	p->resize.threshold = cfg->congestion_threshold;
	memcpy(p->resize.excluded, cfg->excluded_queues, sizeof(p->resize.excluded));
	return DOCA_SUCCESS;
}

void flow_resize_added(struct doca_flow_pipe *p)
{
	uint64_t live = flow_pipe_live(p);
	/* nr_entries changes under flow_g.lock (doca_flow_pipe_resize), adds do not take it. */
	uint32_t size = __atomic_load_n(&p->nr_entries, __ATOMIC_RELAXED);
	if (p->resize.threshold == 0 || live * 100u < (uint64_t)p->resize.threshold * size)
		return;
	if (atomic_exchange_explicit(&p->resize.congested, true, memory_order_relaxed))
		return; /* notified already */
	CORE_LOG_TRC("pipe '%s': %llu of %u entries reach the congestion threshold of %u%%", p->name,
		     (unsigned long long)live, size, p->resize.threshold);
	if (flow_g.cfg.pipe_cb)
		flow_g.cfg.pipe_cb(p, DOCA_FLOW_PIPE_STATUS_SUCCESS, DOCA_FLOW_PIPE_OP_CONGESTION_REACHED, p->user_ctx);
}

static uint32_t pow2_at_least(uint64_t n)
{
	uint64_t v = 1;
	while (v < n)
		v <<= 1;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

doca_error_t doca_flow_pipe_resize(struct doca_flow_pipe *pipe, uint8_t new_congestion_level,
				   doca_flow_pipe_resize_nr_entries_changed_cb nr_entries_changed_cb,
				   doca_flow_pipe_resize_entry_relocate_cb entry_relocation_cb)
{
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = DOCA_SUCCESS;
	if (!flow_pipe_valid(pipe, __func__)) {
		err = DOCA_ERROR_INVALID_VALUE;
	} else if (!pipe->resize.resizable) {
		CORE_LOG_ERR("%s: pipe '%s' was not created resizable (doca_flow_pipe_cfg_set_is_resizable)", __func__,
			     pipe->name);
		err = DOCA_ERROR_INVALID_VALUE;
	} else if (new_congestion_level == 0 || new_congestion_level > 100) {
		CORE_LOG_ERR("%s: pipe '%s': new congestion level %u is not a percentage in (0, 100]", __func__,
			     pipe->name, new_congestion_level);
		err = DOCA_ERROR_INVALID_VALUE;
	} else if (pipe->resize.pending) {
		CORE_LOG_ERR("%s: pipe '%s': the previous resize has not completed (RESIZED comes from "
			     "doca_flow_entries_process)",
			     __func__, pipe->name);
		err = DOCA_ERROR_BAD_STATE;
	}
	if (err != DOCA_SUCCESS) {
		pthread_mutex_unlock(&flow_g.lock);
		return err;
	}
	/* The size at which the entries there are now fill new_congestion_level percent,
	 * as a power of two (as hardware tables), never smaller than before. */
	uint64_t live = flow_pipe_live(pipe);
	uint32_t size = pow2_at_least((live * 100u + new_congestion_level - 1) / new_congestion_level);
	if (size < pipe->nr_entries)
		size = pipe->nr_entries;
	err = nic_pipe_set_capacity(pipe->nic, size);
	if (err == DOCA_SUCCESS) {
		CORE_LOG_TRC("%s: pipe '%s': %u -> %u entries (%llu live, level %u%%)", __func__, pipe->name,
			     pipe->nr_entries, size, (unsigned long long)live, new_congestion_level);
		__atomic_store_n(&pipe->nr_entries, size, __ATOMIC_RELAXED);
		pipe->resize.pending = true;
		pipe->resize.nr_cb = nr_entries_changed_cb;
		pipe->resize.reloc_cb = entry_relocation_cb;
		atomic_fetch_add_explicit(&pipe->port->resizes_pending, 1, memory_order_release);
	}
	pthread_mutex_unlock(&flow_g.lock);
	return err;
}

void flow_resize_pipe_gone(struct doca_flow_pipe *p)
{
	if (p->resize.pending) {
		p->resize.pending = false;
		atomic_fetch_sub_explicit(&p->port->resizes_pending, 1, memory_order_relaxed);
	}
}

struct reloc_list {
	struct doca_flow_pipe_entry **e;
	uint32_t n, cap;
};

static void collect(const struct doca_flow_pipe_entry *e, void *arg)
{
	struct reloc_list *l = arg;
	if (flow_entry_has(e, FLOW_EF_IN_NIC) && l->n < l->cap)
		l->e[l->n++] = (struct doca_flow_pipe_entry *)(uintptr_t)e;
}

/* Under flow_g.lock: the next pipe of port with a resize to complete on queue q. */
static struct doca_flow_pipe *next_pending(struct doca_flow_port *port, uint16_t q)
{
	for (struct doca_flow_pipe *p = port->pipes; p; p = p->port_next)
		if (p->resize.pending && !(p->resize.excluded[q / 64] & (1ull << (q % 64))))
			return p;
	return NULL;
}

void flow_resize_progress(struct doca_flow_port *port, uint16_t q)
{
	for (;;) {
		pthread_mutex_lock(&flow_g.lock);
		struct doca_flow_pipe *p = next_pending(port, q);
		if (p == NULL) {
			pthread_mutex_unlock(&flow_g.lock);
			return;
		}
		p->resize.pending = false;
		atomic_fetch_sub_explicit(&port->resizes_pending, 1, memory_order_relaxed);
		/* The entries are collected under the lock, the callbacks run without it (they
		 * may call DOCA Flow). */
		struct reloc_list l = {NULL, 0, flow_pipe_live(p)};
		if (p->resize.reloc_cb && l.cap) {
			l.e = core_calloc(l.cap, sizeof(*l.e));
			if (l.e == NULL)
				l.cap = 0;
			flow_entry_for_each(p, collect, &l);
		}
		doca_flow_pipe_resize_nr_entries_changed_cb nr_cb = p->resize.nr_cb;
		doca_flow_pipe_resize_entry_relocate_cb reloc_cb = p->resize.reloc_cb;
		uint32_t size = p->nr_entries;
		pthread_mutex_unlock(&flow_g.lock);

		bool ok = reloc_cb == NULL || l.e != NULL || l.cap == 0;
		if (!ok)
			CORE_LOG_WARN("doca_flow_entries_process: pipe '%s': no memory to list the entries to relocate",
				     p->name);
		if (nr_cb && nr_cb(p->user_ctx, size) != DOCA_SUCCESS)
			ok = false;
		for (uint32_t i = 0; i < l.n; i++) {
			/* A callback destroyed the pipe, and its entries with it. */
			if (p->magic != FLOW_PIPE_MAGIC)
				break;
			struct doca_flow_pipe_entry *e = l.e[i];
			if (atomic_load_explicit(&e->magic, memory_order_acquire) != FLOW_ENTRY_MAGIC)
				continue; /* removed by another thread meanwhile */
			void *ctx = e->usr_ctx;
			if (reloc_cb(p->user_ctx, q, e->usr_ctx, &ctx) == DOCA_SUCCESS)
				e->usr_ctx = ctx;
			else
				ok = false;
		}
		free(l.e);
		atomic_store_explicit(&p->resize.congested, false, memory_order_relaxed);
		CORE_LOG_TRC("pipe '%s': resize to %u entries complete on queue %u (%u relocated)", p->name, size, q,
			     l.n);
		if (flow_g.cfg.pipe_cb)
			flow_g.cfg.pipe_cb(p, ok ? DOCA_FLOW_PIPE_STATUS_SUCCESS : DOCA_FLOW_PIPE_STATUS_ERROR,
					   DOCA_FLOW_PIPE_OP_RESIZED, p->user_ctx);
	}
}
