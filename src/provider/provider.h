/*
 * provider.h - what the host half of the provider (src/provider) offers its device half
 * (src/provider_dev): the layout of the provider's objects in the DPA process's device
 * heap, the device-address encoding, and the few host entry points a device call needs
 * (the doorbell, the context table, reports).
 *
 * Memory: each context owns a block in its process's device heap (struct pv_dev_ctx):
 * one descriptor per export slot and, per port, the request rings of each queue type.
 * DPA code reads and writes that memory directly, as a kernel writes DPA memory; the
 * NIC side (the executor) reads requests from the same rings and writes completions
 * back. Nothing a post does is a host call: only a flush rings the doorbell, which on
 * hardware is the write that wakes the NIC.
 *
 * Rings: one producer (the DPA thread that owns the queue) and one consumer (the
 * executor). posted and reaped are the producer's; flushed is published by it with a
 * release store; done is published by the executor with a release store after it wrote
 * the requests' statuses, so a poll that acquires done sees them. Indices run free and
 * wrap at 2^32; slot = index & mask.
 *
 * Exported from libdoca_flow_dpa_provider in the FLOWDPA_INTERNAL version node.
 */
#ifndef FLOWDPA_PROVIDER_H_
#define FLOWDPA_PROVIDER_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <core/core.h>

#define PV_MAX_PORTS 16
#define PV_MAX_EXPORTS 256 /* per context */
#define PV_MAX_CTX 4096	   /* contexts per program (ids are not reused) */
#define PV_QUEUE_TYPES 3
#define PV_RANGE_INDICES 32 /* _modify_range: indices per request */
#define PV_RANGE_CELLS 8    /* _memory_read_range: cells per request */

/*
 * A device address: magic in bits 48..63, context id in 32..47, the slot's generation in
 * 16..31, the export slot in 0..15. A host pointer has 0x0000 or 0x7fff on top.
 */
#define PV_ADDR_MAGIC 0xf1d4ull
static inline uint64_t pv_addr_make(uint32_t ctx_id, uint32_t gen, uint32_t slot)
{
	return PV_ADDR_MAGIC << 48 | (uint64_t)(ctx_id & 0xffff) << 32 | (uint64_t)(gen & 0xffff) << 16 | (slot & 0xffff);
}
static inline bool pv_addr_magic_ok(uint64_t a)
{
	return a >> 48 == PV_ADDR_MAGIC;
}
static inline uint32_t pv_addr_ctx(uint64_t a)
{
	return (uint32_t)(a >> 32) & 0xffff;
}
static inline uint32_t pv_addr_gen(uint64_t a)
{
	return (uint32_t)(a >> 16) & 0xffff;
}
static inline uint32_t pv_addr_slot(uint64_t a)
{
	return (uint32_t)a & 0xffff;
}

enum pv_obj_kind {
	PV_OBJ_PIPE,
	PV_OBJ_INDEX_SELECTOR,
	PV_OBJ_MEMORY,
};

enum pv_obj_state {
	PV_OBJ_FREE,
	PV_OBJ_PREPARED, /* pipe: export_prepare ran, not exported yet */
	PV_OBJ_EXPORTED,
};

/* One export slot as the DPA sees it (device heap). gen changes when the slot is freed,
 * so an address of an earlier export of the slot is stale. */
struct pv_dev_obj {
	_Atomic uint32_t state; /* enum pv_obj_state; release-stored after the rest */
	_Atomic uint32_t gen;
	uint32_t kind; /* enum pv_obj_kind */
	uint32_t port; /* the port whose queues carry its requests */
	uint32_t size; /* exported entries, indices or cells */
	char name[44];
};

enum pv_op {
	PV_OP_ENABLE,  /* values as FLOW_XOP_*: the executor passes them on */
	PV_OP_DISABLE,
	PV_OP_REPLACE,
	PV_OP_SELECT,
	PV_OP_MEM_WRITE,
	PV_OP_MEM_READ,
	PV_OP_COUNT,
};

/* One request; the executor writes status (and value, for a read) in place. */
struct pv_req {
	uint8_t op;	/* enum pv_op */
	uint8_t count;	/* SELECT / MEM_READ: consecutive indices covered (ranges), >= 1 */
	uint16_t slot;	/* export slot */
	uint32_t index; /* entry, selector slot or first cell */
	uint64_t value; /* replace / select / write: the value */
	uint64_t dst;	/* MEM_READ: device address of the count values, written at poll */
	uint32_t gen;	/* the slot's generation when posted */
	int32_t status; /* doca_error_t of the execution (the first failure of a range) */
};
_Static_assert(sizeof(struct pv_req) == 32, "a request is half a cache line");

enum pv_ring_state {
	PV_RING_LIVE,
	PV_RING_DESTROYED, /* doca_flow_dpa_queues_destroy ran: posts and polls fail IO_FAILED */
};

struct pv_queue; /* host side (queue statistics, the executor's cursor) */

struct pv_ring {
	/* Producer (DPA thread) line. */
	_Alignas(64) uint32_t posted;
	uint32_t reaped;
	uint32_t mask; /* queue_size - 1 */
	uint32_t size;
	uint8_t type;  /* enum doca_flow_dpa_queue_type */
	uint8_t port;
	uint16_t id;
	uint32_t ctx_id;
	_Atomic uint32_t state; /* enum pv_ring_state */
	uint64_t again;		/* posts refused with AGAIN (producer-only counter) */
	uint64_t posts;		/* requests posted (producer-only counter) */
	struct pv_queue *host;
	/* Doorbell record: the producer's last flush. */
	_Alignas(64) _Atomic uint32_t flushed;
	/* Executor line. */
	_Alignas(64) _Atomic uint32_t done;
	_Alignas(64) struct pv_req req[];
};

struct pv_dev_port {
	/* Arrays of nr[type] ring pointers (device heap); nr 0 when the type was not created. */
	_Atomic(struct pv_ring **) rings[PV_QUEUE_TYPES];
	uint32_t nr[PV_QUEUE_TYPES];
};

#define PV_DEV_CTX_MAGIC 0x70766378u /* "pvcx" */

/* A context's block in its process's device heap. */
struct pv_dev_ctx {
	uint32_t magic;
	uint32_t ctx_id;
	struct flexio_process *process;
	struct pv_dev_port port[PV_MAX_PORTS];
	struct pv_dev_obj obj[PV_MAX_EXPORTS];
};

/*
 * The device block of context id (NULL for an id never used or a destroyed context).
 * One acquire load: the table is the address translation a DPA does in hardware.
 */
FLOWDPA_INTERNAL_API struct pv_dev_ctx *pv_ctx_block(uint32_t ctx_id);

/* A flush covered requests up to ring->flushed: sync mode executes them in the calling
 * thread before returning; async mode wakes the device's NIC engine. */
FLOWDPA_INTERNAL_API void pv_doorbell(struct pv_ring *ring);

/* Trace events of the device half (FLOWDPA_TRACE): one instant per post burst, flush
 * and poll, on the calling DPA thread's track of the process's device row. */
FLOWDPA_INTERNAL_API void pv_trace(const struct pv_ring *ring, const char *what, uint32_t n);

/* Device half: the name of a queue type for log lines. */
static inline const char *pv_queue_type_name(uint32_t type)
{
	static const char *const names[PV_QUEUE_TYPES] = {"GENERAL", "RESOURCES_WRITE", "RESOURCES_READ"};
	return type < PV_QUEUE_TYPES ? names[type] : "unknown";
}

#endif /* FLOWDPA_PROVIDER_H_ */
