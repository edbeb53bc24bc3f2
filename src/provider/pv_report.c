/*
 * pv_report.c - the "provider" section of FLOWDPA_REPORT: per context, its queues
 * (posted, completed, failed, AGAIN returns, never flushed) and its exports (state,
 * size, entries left out by a late export_prepare, failed requests).
 */
#include <stdlib.h>
#include <string.h>

#include "provider_internal.h"

/* The final state of a destroyed queue or export, rendered when it went. */
struct pv_hist {
	char *json;
	struct pv_hist *next;
};

static void report_queue(struct core_json *j, uint32_t port, const struct pv_queue *q, bool destroyed)
{
	const struct pv_ring *r = q->ring;
	uint64_t completed, failed;
	pv_queue_stats(q, &completed, &failed);
	uint32_t flushed = atomic_load_explicit(&r->flushed, memory_order_relaxed);
	core_json_object_begin(j);
	core_json_key(j, "port");
	core_json_u64(j, port);
	core_json_key(j, "type");
	core_json_str(j, pv_queue_type_name(r->type));
	core_json_key(j, "id");
	core_json_u64(j, r->id);
	core_json_key(j, "size");
	core_json_u64(j, r->size);
	core_json_key(j, "posted");
	core_json_u64(j, r->posts);
	core_json_key(j, "completed");
	core_json_u64(j, completed);
	core_json_key(j, "failed");
	core_json_u64(j, failed);
	core_json_key(j, "again");
	core_json_u64(j, r->again);
	core_json_key(j, "never_flushed");
	core_json_u64(j, r->posted - flushed);
	core_json_key(j, "outstanding");
	core_json_u64(j, r->posted - r->reaped);
	core_json_key(j, "destroyed");
	core_json_bool(j, destroyed);
	core_json_object_end(j);
}

static void report_export(struct core_json *j, uint32_t slot, const struct pv_slot *s, bool destroyed)
{
	static const char *const kinds[] = {"pipe", "index_selector", "memory"};
	core_json_object_begin(j);
	core_json_key(j, "name");
	core_json_str(j, s->name);
	core_json_key(j, "kind");
	core_json_str(j, kinds[s->kind]);
	core_json_key(j, "slot");
	core_json_u64(j, slot);
	core_json_key(j, "port");
	core_json_u64(j, s->port_id);
	core_json_key(j, "state");
	core_json_str(j, destroyed ? "destroyed" : s->exported ? "exported" : "prepared");
	core_json_key(j, "size");
	core_json_u64(j, s->size);
	core_json_key(j, "entries_not_exported");
	core_json_u64(j, s->nr_not_exported);
	core_json_key(j, "failed_requests");
	core_json_u64(j, atomic_load_explicit(&s->req_failed, memory_order_relaxed));
	core_json_object_end(j);
}

void pv_report_ctx(struct core_json *j, void *arg)
{
	struct doca_flow_dpa_ctx *ctx = arg;
	pthread_mutex_lock(&ctx->lock);
	core_json_key(j, "ctx");
	core_json_u64(j, ctx->id);
	core_json_key(j, "dpa_process");
	core_json_u64(j, dpa_process_id(ctx->process));
	core_json_key(j, "nic_mode");
	core_json_str(j, pv_nic_async() ? "async" : "sync");
	core_json_key(j, "queues");
	core_json_array_begin(j);
	for (uint32_t p = 0; p < PV_MAX_PORTS; p++)
		for (uint32_t t = 0; ctx->ports[p].port && t < PV_QUEUE_TYPES; t++)
			for (uint32_t i = 0; i < ctx->ports[p].nr[t]; i++)
				report_queue(j, p, &ctx->ports[p].queues[t][i], false);
	for (const struct pv_hist *h = ctx->hist_queues; h; h = h->next)
		core_json_raw(j, h->json);
	core_json_array_end(j);
	core_json_key(j, "exports");
	core_json_array_begin(j);
	for (uint32_t s = 0; s < PV_MAX_EXPORTS; s++)
		if (ctx->slots[s].fx)
			report_export(j, s, &ctx->slots[s], false);
	for (const struct pv_hist *h = ctx->hist_exports; h; h = h->next)
		core_json_raw(j, h->json);
	core_json_array_end(j);
	pthread_mutex_unlock(&ctx->lock);
}

/* Render one object into a history list (oldest first), if the report is on. */
static void keep(struct pv_hist **list, struct core_json *j)
{
	const char *text = core_json_text(j);
	struct pv_hist *h = text ? core_calloc(1, sizeof(*h)) : NULL;
	if (h && (h->json = core_strdup(text)) != NULL) {
		while (*list)
			list = &(*list)->next;
		*list = h;
	} else {
		free(h);
	}
	core_json_free(j);
}

void pv_report_keep_queue(struct doca_flow_dpa_ctx *ctx, uint32_t port, const struct pv_queue *q)
{
	if (!ctx->report)
		return;
	struct core_json *j = core_json_new();
	report_queue(j, port, q, true);
	keep(&ctx->hist_queues, j);
}

void pv_report_keep_export(struct doca_flow_dpa_ctx *ctx, uint32_t slot, const struct pv_slot *s)
{
	if (!ctx->report)
		return;
	struct core_json *j = core_json_new();
	report_export(j, slot, s, true);
	keep(&ctx->hist_exports, j);
}

void pv_report_free(struct doca_flow_dpa_ctx *ctx)
{
	struct pv_hist *lists[2] = {ctx->hist_queues, ctx->hist_exports};
	for (int i = 0; i < 2; i++)
		while (lists[i]) {
			struct pv_hist *next = lists[i]->next;
			free(lists[i]->json);
			free(lists[i]);
			lists[i] = next;
		}
	ctx->hist_queues = ctx->hist_exports = NULL;
}
