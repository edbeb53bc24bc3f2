/*
 * flow_provider.h - what the provider layer (src/provider) may ask of DOCA Flow: export
 * holds on HASH pipes and external resources, and the burst executor that its request
 * rings drain into. The provider includes this header and no NIC header: NIC objects
 * stay behind the export object, which the flow layer owns.
 *
 * Lifetime: an export holds its object, so doca_flow_pipe_destroy and
 * doca_flow_external_resource_destroy refuse it (naming the holder) until
 * flow_export_release. When the object goes anyway (its port stops, doca_flow_destroy),
 * the export is detached: it stays valid for its holder, and every operation on it then
 * fails with BAD_STATE.
 *
 * Concurrency: flow_export_execute may run on any thread, concurrently with the datapath
 * and with control calls on the same pipe. Per burst it takes the export's lock (which
 * detaching also takes, so the NIC object cannot go mid-burst) and, for a pipe, the NIC
 * pipe's control lock once; it allocates nothing and logs nothing. Lock order:
 * flow_g.lock, then an export's lock, then a NIC pipe's lock.
 *
 * Exported from libdoca_flow in the FLOWDPA_INTERNAL version node.
 */
#ifndef FLOWDPA_FLOW_PROVIDER_H_
#define FLOWDPA_FLOW_PROVIDER_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_flow.h>

#include <core/core.h>

struct flow_export;

enum flow_export_kind {
	FLOW_EXPORT_PIPE,
	FLOW_EXPORT_INDEX_SELECTOR,
	FLOW_EXPORT_MEMORY,
};

struct flow_export_info {
	enum flow_export_kind kind;
	const char *name;	       /* the pipe's name, or "index selector" / "memory" */
	struct doca_flow_port *port;   /* the port the object was created on */
	uint16_t port_id;
	uint32_t size;		       /* nr_entries, nr_indices or nr_cells */
	uint32_t map_algorithm;	       /* pipe: DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_* bits */
	uint32_t ps_bits;	       /* pipe: width of the path-selector field, 0 without one */
	uint32_t nr_entries_added;     /* pipe: entries added and not removed, queued ones included */
};

/*
 * Hold pipe for holder (a short text such as "DPA ctx 2", kept in the export).
 * INVALID_VALUE for a NULL or dead pipe or a NULL out pointer; NOT_SUPPORTED for a pipe
 * that is not a HASH pipe; NO_MEMORY. Each failure logs one line naming who.
 */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t flow_export_pipe(struct doca_flow_pipe *pipe, const char *holder, const char *who,
						   struct flow_export **exp);
/* Hold an external resource. INVALID_VALUE also when it is not of type. */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t flow_export_resource(struct doca_flow_external_resource *res,
						       enum doca_flow_external_resource_type type, const char *holder,
						       const char *who, struct flow_export **exp);
/* Drop the hold and free exp (detached or not). NULL is a no-op. */
FLOWDPA_INTERNAL_API void flow_export_release(struct flow_export *exp);
/* What is exported. BAD_STATE (info still filled) once the object went. */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t flow_export_info(const struct flow_export *exp, struct flow_export_info *info);
/*
 * Pipe exports: set bit i of bits (nbits >= size, cleared by the call) for each index
 * that holds an entry now, queued adds included. INVALID_VALUE for a resource export or
 * too few bits; BAD_STATE once the pipe went.
 */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t flow_export_entries(const struct flow_export *exp, uint64_t *bits, uint32_t nbits);

enum flow_xop_type {
	FLOW_XOP_ENABLE,    /* pipe: entry index */
	FLOW_XOP_DISABLE,   /* pipe: entry index */
	FLOW_XOP_REPLACE,   /* pipe: entry index's path-selector value := value (host order) */
	FLOW_XOP_SELECT,    /* index selector: slot index := value (enum doca_flow_index_selector_op) */
	FLOW_XOP_MEM_WRITE, /* memory: cell index := value */
	FLOW_XOP_MEM_READ,  /* memory: value := cell index */
};

struct flow_xop {
	uint32_t type; /* enum flow_xop_type */
	uint32_t index;
	uint64_t value;
	doca_error_t result; /* set by flow_export_execute */
};

/*
 * Run ops in order, setting each result: INVALID_VALUE for an index beyond the object,
 * a value that does not fit (path selector, selector op); NOT_FOUND for an entry index
 * that holds no entry; NOT_SUPPORTED for an op of another kind of object, a disable on
 * an IDENTITY pipe, a replace on a pipe without a path-selector field; BAD_STATE for
 * every op once the object went.
 */
FLOWDPA_INTERNAL_API void flow_export_execute(struct flow_export *exp, struct flow_xop *ops, uint32_t n);

/* Pipe exports, for tests and reports: an entry's state and counter (errors as above;
 * NOT_FOUND also for an entry without a counter). */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t flow_export_entry_state(const struct flow_export *exp, uint32_t index,
							  bool *enabled, uint32_t *ps_value);
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t flow_export_entry_counter(const struct flow_export *exp, uint32_t index,
							    uint64_t *pkts, uint64_t *bytes);

/* The id of a started port: INVALID_VALUE for NULL or not a port, BAD_STATE when stopped. */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t flow_port_id_get(const struct doca_flow_port *port, const char *who, uint16_t *id);

/* The pipe's entries that are in the NIC or queued (0 for a pipe that is not live). */
FLOWDPA_INTERNAL_API uint32_t flow_pipe_nr_entries_added(const struct doca_flow_pipe *pipe);

#endif /* FLOWDPA_FLOW_PROVIDER_H_ */
