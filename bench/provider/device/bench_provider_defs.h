/*
 * bench_provider_defs.h - what bench_provider's host program and its DPA kernel share:
 * the operations, the per-thread result record and the values each request writes (so
 * the host can tell, after a run, what every path selector and memory cell must hold).
 */
#ifndef BENCH_PROVIDER_DEFS_H_
#define BENCH_PROVIDER_DEFS_H_

#include <stdint.h>

#define BP_MAX_THREADS 2
#define BP_MAX_BURST 32

enum bp_op {
	BP_OP_REPLACE,	      /* doca_flow_pipe_hash_replace_index */
	BP_OP_DISABLE_ENABLE, /* disable i, enable i, next i: two requests per pair */
	BP_OP_MEM_UPDATE,     /* doca_flow_external_resource_memory_update */
	BP_OP_MEM_READ,	      /* doca_flow_external_resource_memory_read, value checked on the DPA */
	BP_OP_DISABLE,	      /* verification: disable every index of the partition once */
	BP_OP_ENABLE,	      /* verification: enable them again */
	BP_OP_COUNT,
};

/* One DPA thread's result (device heap, one per rank; 64 bytes). */
struct bp_result {
	uint64_t posted;    /* requests posted (all flushed) */
	uint64_t completed; /* completions polled */
	uint64_t failed;    /* of those, failed at execution */
	uint64_t again;	    /* posts refused with AGAIN (must stay 0: every burst is drained) */
	uint64_t t0, t1;    /* __dpa_thread_cycles() around the request loop (ns) */
	uint64_t bad_reads; /* memory reads whose value was not the cell's */
	int64_t error;	    /* the first doca_error_t a call returned, 0 if none */
};

/* Request k (0, 1, ... per thread) of a replace run: the path-selector value (16 bits,
 * the UDP source port). */
static inline uint32_t bp_ps_value(uint64_t k, uint32_t salt)
{
	return (uint32_t)((k * 7u + salt) & 0xffffu);
}

/* Request k of a memory-update run on thread rank: the value written. */
static inline uint64_t bp_mem_value(uint64_t k, uint32_t rank, uint32_t salt)
{
	return (k << 20) ^ ((uint64_t)rank << 56) ^ salt;
}

/* What the host stores in cell i before a memory-read run. */
static inline uint64_t bp_cell_value(uint32_t i, uint32_t salt)
{
	return ((uint64_t)salt << 32) | (i * 2654435761u);
}

#endif /* BENCH_PROVIDER_DEFS_H_ */
