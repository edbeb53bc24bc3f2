/*
 * pv_exec.c - the request executor: what the NIC does with the requests a flush covered.
 * It reads them from the ring in post order, checks each against its export (the
 * generation it was posted under, the exported range, entries that were never
 * exported), runs the rest through the flow layer in bursts of one export (one lock
 * each), writes each request's status (and a read's values) back into the ring and
 * publishes done. Nothing here allocates.
 */
#include "provider_internal.h"

DOCA_LOG_REGISTER(FLOW_DPA::EXEC);

#define EXEC_BURST 32
#define FAIL_LOG_FIRST 5

_Static_assert(PV_OP_ENABLE == (int)FLOW_XOP_ENABLE && PV_OP_DISABLE == (int)FLOW_XOP_DISABLE &&
		       PV_OP_REPLACE == (int)FLOW_XOP_REPLACE && PV_OP_SELECT == (int)FLOW_XOP_SELECT &&
		       PV_OP_MEM_WRITE == (int)FLOW_XOP_MEM_WRITE && PV_OP_MEM_READ == (int)FLOW_XOP_MEM_READ,
	       "ring ops pass to the flow layer by value");
_Static_assert(PV_RANGE_INDICES <= EXEC_BURST && PV_RANGE_CELLS <= EXEC_BURST, "a range request fits one burst");

static const char *op_name(uint32_t op)
{
	static const char *const names[PV_OP_COUNT] = {"enable", "disable", "replace", "index-selector modify",
						       "memory update", "memory read"};
	return op < PV_OP_COUNT ? names[op] : "unknown op";
}

static const char *failure_cause(const struct pv_slot *s, const struct pv_req *req)
{
	switch (req->status) {
	case DOCA_ERROR_NOT_PERMITTED:
		return "the entry was added before doca_flow_dpa_pipe_export_prepare, so it is not exported";
	case DOCA_ERROR_BAD_STATE:
		return "the export was destroyed, or its object went (port stopped, doca_flow_destroy)";
	case DOCA_ERROR_NOT_FOUND:
		return "no entry at that index";
	case DOCA_ERROR_NOT_SUPPORTED:
		return req->op == PV_OP_DISABLE ? "the pipe uses the IDENTITY map algorithm, which supports update only"
						: "the pipe has no per-entry path-selector field";
	case DOCA_ERROR_INVALID_VALUE:
		if (req->index + (req->count ? req->count : 1u) > s->size)
			return "index beyond the export";
		return req->op == PV_OP_REPLACE ? "the value does not fit the path-selector field"
						: "the value is not valid for the object";
	default:
		return doca_error_get_descr((doca_error_t)req->status);
	}
}

/* Count and log one failed request: the first few per queue, then at each power of two. */
static void report_failure(struct pv_queue *q, const struct pv_slot *s, const struct pv_req *req)
{
	uint64_t n = ++q->fail_logged;
	if (n > FAIL_LOG_FIRST && (n & (n - 1)))
		return;
	const struct pv_ring *r = q->ring;
	CORE_LOG_ERR("ctx %u port %u queue %s/%u: %s of '%s' index %u (value %llu) failed at execution: %s (%s)%s",
		     r->ctx_id, r->port, pv_queue_type_name(r->type), r->id, op_name(req->op), s->name, req->index,
		     (unsigned long long)req->value, failure_cause(s, req), doca_error_get_name((doca_error_t)req->status),
		     n >= FAIL_LOG_FIRST ? "; further failures on this queue are logged at powers of two" : "");
}

static bool bit_set(const uint64_t *bits, uint32_t i)
{
	return bits && (bits[i / 64] >> (i % 64)) & 1;
}

/*
 * Requests [i, upto) that share the first one's export, as far as one burst takes them;
 * returns where the run ended. One pass over the ring checks each request against the
 * export (what can be refused without touching the object: the generation it was posted
 * under, the exported range, entries that were never exported) and gathers the rest;
 * one pass over the results writes them back; only when something failed is the run
 * walked again, to count and log.
 */
static uint32_t exec_run(struct pv_queue *q, uint32_t i, uint32_t upto)
{
	struct pv_ring *r = q->ring;
	const uint32_t mask = r->mask;
	const struct pv_req *first = &r->req[i & mask];
	const uint16_t slot = first->slot;
	const uint32_t gen = first->gen;
	struct pv_slot *s = &q->ctx->slots[slot % PV_MAX_EXPORTS];
	struct flow_xop xops[EXEC_BURST];
	uint32_t owner[EXEC_BURST];
	uint32_t nx = 0, j = i, failed = 0;

	atomic_fetch_add(&s->users, 1);
	/* Generation first: a request of the slot's current generation was posted after the
	 * export was filled in (the DPA acquired its state), so the slot's fields are
	 * ordered before this run; a dead slot may be refilled meanwhile, so nothing else of
	 * it is read unless live. */
	const bool live = atomic_load(&s->gen) == gen && s->fx != NULL;
	const uint32_t size = live ? s->size : 0;
	const uint64_t *not_exported = live && s->kind == PV_OBJ_PIPE ? s->not_exported : NULL;
	for (; j != upto; j++) {
		struct pv_req *rq = &r->req[j & mask];
		const uint32_t cnt = rq->count ? rq->count : 1;
		if (rq->slot != slot || rq->gen != gen || nx + cnt > EXEC_BURST)
			break;
		doca_error_t st = DOCA_SUCCESS;
		if (!live)
			st = DOCA_ERROR_BAD_STATE;
		else if (rq->index >= size || cnt > size - rq->index)
			st = DOCA_ERROR_INVALID_VALUE;
		else if (bit_set(not_exported, rq->index))
			st = DOCA_ERROR_NOT_PERMITTED;
		rq->status = st;
		if (st != DOCA_SUCCESS) {
			failed++;
			continue;
		}
		for (uint32_t k = 0; k < cnt; k++, nx++) {
			xops[nx] = (struct flow_xop){rq->op, rq->index + k, rq->value, DOCA_SUCCESS};
			owner[nx] = j;
		}
	}
	if (nx)
		flow_export_execute(s->fx, xops, nx);
	for (uint32_t k = 0; k < nx; k++) {
		const struct flow_xop *x = &xops[k];
		if (__builtin_expect(x->result != DOCA_SUCCESS, 0) || x->type == PV_OP_MEM_READ) {
			struct pv_req *rq = &r->req[owner[k] & mask];
			/* A range fails with its first failure, counted once. */
			if (x->result != DOCA_SUCCESS && rq->status == DOCA_SUCCESS) {
				rq->status = x->result;
				failed++;
			}
			if (x->type == PV_OP_MEM_READ && q->vals)
				q->vals[(owner[k] & mask) * PV_RANGE_CELLS + (x->index - rq->index)] = x->value;
		}
	}
	atomic_fetch_sub(&s->users, 1);
	if (__builtin_expect(failed != 0, 0)) {
		for (uint32_t k = i; k != j; k++) {
			const struct pv_req *rq = &r->req[k & mask];
			if (rq->status != DOCA_SUCCESS)
				report_failure(q, s, rq);
		}
		atomic_fetch_add_explicit(&q->failed, failed, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->req_failed, failed, memory_order_relaxed);
	}
	return j;
}

void pv_exec(struct pv_queue *q, uint32_t upto)
{
	struct pv_ring *r = q->ring;
	uint32_t from = atomic_load_explicit(&r->done, memory_order_relaxed);
	if (from == upto)
		return;
	uint64_t t0 = core_trace_enabled() ? core_trace_now_us() : 0;
	for (uint32_t i = from; i != upto;)
		i = exec_run(q, i, upto);
	atomic_fetch_add_explicit(&q->completed, upto - from, memory_order_relaxed);
	atomic_store_explicit(&r->done, upto, memory_order_release);
	if (t0) {
		char args[96];
		snprintf(args, sizeof(args), "{\"queue\":\"%s/%u\",\"port\":%u,\"requests\":%u}", pv_queue_type_name(r->type),
			 r->id, r->port, upto - from);
		core_trace_complete(q->ctx->caps->index + 1, "provider", "execute", t0, core_trace_now_us() - t0, args);
	}
}
