/*
 * perf_defs.h - what doca_flow_dpa_perf's host program and its DPA kernel share: the
 * per-launch arguments (in device memory), the per-worker result record and the index
 * order of the random work policy.
 */
#ifndef DOCA_FLOW_DPA_PERF_DEFS_H_
#define DOCA_FLOW_DPA_PERF_DEFS_H_

#include <stdint.h>

#define PERF_MAX_WORKERS 8
#define PERF_MAX_TABLES 256 /* a provider context holds 256 exports */
#define PERF_SENTINEL 65432u

enum perf_op {
	PERF_OP_REPLACE,     /* doca_flow_pipe_hash_replace_index (update, entries) */
	PERF_OP_DIS_EN,	     /* disable i, then enable i (disable, entries) */
	PERF_OP_MEM_UPDATE,  /* doca_flow_external_resource_memory_update (update, resources) */
	PERF_OP_SEL_DIS_EN,  /* index selector modify DISABLE i, then ENABLE i (disable, resources) */
	PERF_OP_SENTINEL,    /* self-test: replace index `first` of table 0 with PERF_SENTINEL once */
};

/* One launch (device heap; every worker reads it). */
struct perf_args {
	uint32_t op;
	uint32_t num_tables;   /* per worker */
	uint32_t table_size;
	uint32_t burst;
	uint32_t threshold;    /* poll once this many requests are outstanding */
	uint32_t queue_size;
	uint32_t random;       /* work policy random */
	uint32_t salt;
	uint64_t num_ops;      /* requests per worker */
	uint64_t first;	       /* PERF_OP_SENTINEL: the index */
	uint64_t objs;	       /* device address of doca_flow_dpa_addr[workers * num_tables] */
	uint64_t out;	       /* device address of struct perf_result[workers] */
};

/* One worker's result (64 bytes). */
struct perf_result {
	uint64_t posted;
	uint64_t completed;
	uint64_t failed;
	uint64_t again; /* posts refused with AGAIN (then polled and retried) */
	uint64_t polls;
	uint64_t t0, t1; /* __dpa_thread_cycles() around the request loop (ns) */
	int64_t error;	 /* the first doca_error_t a call returned, 0 if none */
};

/* The position (0 .. span-1) of operation pair / request k of a worker. */
static inline uint32_t perf_pos(uint64_t k, uint32_t span, uint32_t random, uint32_t salt)
{
	if (!random)
		return (uint32_t)(k % span);
	uint64_t x = (k + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)salt << 32);
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return (uint32_t)(x % span);
}

/* The path-selector value request k writes (16 bits; never the sentinel). */
static inline uint32_t perf_ps_value(uint64_t k, uint32_t salt)
{
	uint32_t v = (uint32_t)((k * 7u + salt) & 0xffffu);
	return v == PERF_SENTINEL ? v + 1 : v;
}

#endif /* DOCA_FLOW_DPA_PERF_DEFS_H_ */
