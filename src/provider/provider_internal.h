/*
 * provider_internal.h - the host half's objects behind the provider's opaque handles,
 * shared by its translation units: contexts (pv_ctx.c), queues and the executor
 * (pv_queue.c, pv_exec.c), exports (pv_export.c) and the report (pv_report.c).
 *
 * Locks: ctx->lock serialises the control calls of one context. A queue's exec_lock
 * makes one executor run per queue at a time (the flushing thread in sync mode, the NIC
 * engine in async mode) and keeps queues_destroy from freeing what it uses. Export
 * slots are never freed while their context lives: the executor pins one with users
 * and re-checks its generation, which destroying an export bumps before it waits for
 * users to drain (both seq_cst, so one of the two sides sees the other).
 */
#ifndef FLOWDPA_PROVIDER_INTERNAL_H_
#define FLOWDPA_PROVIDER_INTERNAL_H_

#include <assert.h>
#include <pthread.h>

#include <doca_flow_dpa_provider.h>

#include <dpa/dpa.h>
#include <flow/flow_provider.h>

#include "provider.h"

#define PV_CTX_MAGIC 0x70766374u   /* "pvct" */
#define PV_PIPE_MAGIC 0x70767070u  /* "pvpp" */
#define PV_RES_MAGIC 0x70767273u   /* "pvrs" */
#define PV_HANDLE_DEAD 0x70766464u /* "pvdd" */

/* Host side of one ring: statistics and the async engine's schedule. */
struct pv_queue {
	struct pv_ring *ring; /* device heap; its address is its device pointer */
	struct doca_flow_dpa_ctx *ctx;
	uint64_t *vals;	      /* RESOURCES_READ: 8 staged values per slot, after the requests */
	pthread_mutex_t exec_lock;
	_Atomic uint64_t completed; /* executed, failed ones included */
	_Atomic uint64_t failed;
	uint64_t fail_logged; /* failures logged (rate limit), under exec_lock */
	/* async engine, under the engine's lock */
	bool scheduled;
	uint32_t sched_upto;
	uint64_t sched_due_us;
	struct pv_queue *eng_next;
};

/* Host side of an export slot (never freed while the context lives). */
struct pv_slot {
	_Atomic uint32_t gen;	/* as in the device descriptor */
	_Atomic uint32_t users; /* executor bursts using fx right now */
	struct flow_export *fx; /* set while the slot holds an export */
	const void *object;	/* the pipe or resource exported (one export per object and ctx) */
	enum pv_obj_kind kind;
	uint32_t size;	       /* exported entries, indices or cells */
	uint16_t port_id;
	uint64_t *not_exported; /* pipe: entries already present at export_prepare */
	uint32_t nr_not_exported;
	char name[64];
	/* Report */
	bool exported;
	uint64_t requests;
	_Atomic uint64_t req_failed;
};

/* Common head of the two export handles. */
struct pv_export {
	uint32_t magic;
	struct doca_flow_dpa_ctx *ctx;
	uint32_t slot;
	uint32_t gen; /* the slot's generation for this export */
	bool exported;
};

struct doca_flow_dpa_pipe {
	struct pv_export e;
};

struct doca_flow_dpa_external_resource {
	struct pv_export e;
};

struct pv_port {
	struct doca_flow_port *port; /* NULL: no queues on this port */
	uint32_t nr[PV_QUEUE_TYPES];
	uint32_t size[PV_QUEUE_TYPES];
	struct pv_queue *queues[PV_QUEUE_TYPES]; /* nr[type] each */
	uint64_t rings_dev[PV_QUEUE_TYPES];	 /* device arrays of ring pointers */
	struct pv_retired *spare; /* the records retiring these queues takes, reserved at create */
};

/* Rings (and host queue arrays) of destroyed queues: kept (DESTROYED) until ctx destroy,
 * so a late DPA call or doorbell reads live memory. Allocated with the queues, so that
 * destroying them cannot fail for want of memory. */
struct pv_retired {
	uint64_t dev_ptr; /* or 0 */
	void *host;	  /* or NULL */
	struct pv_retired *next;
};

struct doca_flow_dpa_ctx {
	uint32_t magic;
	uint32_t id;
	struct flexio_process *process;
	const struct core_dev_caps *caps;
	uint64_t block_dev;
	struct pv_dev_ctx *block;
	pthread_mutex_t lock;
	struct pv_port ports[PV_MAX_PORTS];
	struct pv_slot slots[PV_MAX_EXPORTS];
	uint32_t nr_exports;
	struct pv_retired *retired;
	struct core_report_section *report;
	struct pv_hist *hist_queues, *hist_exports; /* destroyed ones, for the report */
	char label[32]; /* "DPA ctx N": the holder name flow prints */
};

/* Free device memory the provider allocated: it cannot fail for those addresses. */
static inline void pv_heap_free(struct flexio_process *process, uint64_t dev_ptr)
{
	doca_error_t err = dpa_heap_free(process, dev_ptr);
	assert(err == DOCA_SUCCESS);
	(void)err;
}

/* pv_ctx.c: a live context of ours (INVALID_VALUE with one line naming who otherwise). */
FLOWDPA_MUST_CHECK doca_error_t pv_ctx_check(const struct doca_flow_dpa_ctx *ctx, const char *who);
bool pv_nic_async(void);

/* pv_queue.c */
void pv_queues_free_all(struct doca_flow_dpa_ctx *ctx);
void pv_queue_stats(const struct pv_queue *q, uint64_t *completed, uint64_t *failed);

/* pv_exec.c: execute ring requests [done, upto) and publish done = upto (under exec_lock). */
void pv_exec(struct pv_queue *q, uint32_t upto);

/* pv_report.c: the "provider" section of FLOWDPA_REPORT; what is destroyed before the
 * context is kept (keep_*) so the report still shows it. */
struct pv_hist;
void pv_report_ctx(struct core_json *j, void *arg);
void pv_report_keep_queue(struct doca_flow_dpa_ctx *ctx, uint32_t port, const struct pv_queue *q);
void pv_report_keep_export(struct doca_flow_dpa_ctx *ctx, uint32_t slot, const struct pv_slot *s);
void pv_report_free(struct doca_flow_dpa_ctx *ctx);

#endif /* FLOWDPA_PROVIDER_INTERNAL_H_ */
