/*
 * doca_flow_dpa_provider_dev.h - the DPA side of the DOCA Flow DPA Provider, for device
 * translation units built by dpacc: requests on an exported HASH pipe (GENERAL queues)
 * and on exported external resources (RESOURCES_WRITE / RESOURCES_READ queues), and
 * completion polling.
 *
 * Every call names the exported object by its device address, a queue id of the type
 * the call needs, and flush: a request executes only once a flush covers it (flush =
 * true, or doca_flow_queue_flush). Requests of one queue execute in post order. A queue
 * holds queue_size requests until doca_flow_queue_poll_completion reaps them; a post to
 * a full queue returns AGAIN. A failure at execution (an index beyond the export, an
 * entry added before doca_flow_dpa_pipe_export_prepare, disable on an IDENTITY pipe) is
 * a completion with failure, counted in num_failed: the post itself succeeded.
 * One thread posts to a queue at a time (queues are the unit of DPA parallelism).
 *
 * dpacc links the provider's device library into the image of a translation unit that
 * includes this header. See docs/provider.md.
 */
#ifndef DOCA_FLOW_DPA_PROVIDER_DEV_H_
#define DOCA_FLOW_DPA_PROVIDER_DEV_H_

#ifndef DOCA_DPA_DEVICE
#error "doca_flow_dpa_provider_dev.h is for DPA device code: build it with dpacc (which defines DOCA_DPA_DEVICE)"
#endif

#include <stdbool.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tells dpacc to link the provider's device library into this image. */
extern const char __flowdpa_provider_dev_marker__;

typedef uint64_t doca_flow_dpa_addr;

struct doca_flow_dpa_completion_stats {
	uint32_t num_completed; /* completions reaped by this poll, failed ones included */
	uint32_t num_failed;	/* of those, how many failed at execution */
};

/* Shared with doca_flow_external_resource.h: whichever is included first defines it. */
#ifndef FLOWDPA_INDEX_SELECTOR_OP_DEFINED
#define FLOWDPA_INDEX_SELECTOR_OP_DEFINED
enum doca_flow_index_selector_op {
	DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE,
	DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE,
	DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_TWICE,
	DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE,
};
#endif

/* Shared with doca_flow_dpa_provider.h. */
#ifndef FLOWDPA_DPA_QUEUE_TYPE_DEFINED
#define FLOWDPA_DPA_QUEUE_TYPE_DEFINED
enum doca_flow_dpa_queue_type {
	DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL,
	DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE,
	DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ,
};
#endif

/*
 * GENERAL queue: enable / disable entry entry_index of an exported HASH pipe, or replace
 * its path-selector value (host order; a 16-bit field takes values up to 65535, a larger
 * one fails at execution). After a disable completes, no packet is forwarded by the entry.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_pipe_hash_enable_index(doca_flow_dpa_addr pipe, uint32_t queue_id, uint32_t entry_index,
					      bool flush);
DOCA_EXPERIMENTAL
doca_error_t doca_flow_pipe_hash_disable_index(doca_flow_dpa_addr pipe, uint32_t queue_id, uint32_t entry_index,
					       bool flush);
DOCA_EXPERIMENTAL
doca_error_t doca_flow_pipe_hash_replace_index(doca_flow_dpa_addr pipe, uint32_t queue_id, uint32_t entry_index,
					       uint32_t path_selector_value, bool flush);

/* RESOURCES_WRITE queue. _modify_range posts one request per 32 indices. */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_external_resource_index_selector_modify(doca_flow_dpa_addr resource, uint32_t queue_id,
							       uint32_t index, enum doca_flow_index_selector_op op,
							       bool flush);
DOCA_EXPERIMENTAL
doca_error_t doca_flow_external_resource_index_selector_modify_range(doca_flow_dpa_addr resource, uint32_t queue_id,
								     uint32_t first_index, uint32_t nr_indices,
								     enum doca_flow_index_selector_op op, bool flush);
/* offset counts 64-bit cells. */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_external_resource_memory_update(doca_flow_dpa_addr resource, uint32_t queue_id,
						       uint32_t offset, uint64_t value, bool flush);

/*
 * RESOURCES_READ queue: *value / values[] (DPA memory: a device-heap address) are written
 * when the completion is polled, not before. _read_range posts one request per 8 cells.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_external_resource_memory_read(doca_flow_dpa_addr resource, uint32_t queue_id,
						     uint32_t offset, uint64_t *value, bool flush);
DOCA_EXPERIMENTAL
doca_error_t doca_flow_external_resource_memory_read_range(doca_flow_dpa_addr resource, uint32_t queue_id,
							   uint32_t offset, uint32_t nr_cells, uint64_t *values,
							   bool flush);

/*
 * Any queue type; object is any exported pipe or resource of the context and port that
 * own the queue. Poll reaps every completion ready now (stats may be NULL).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_queue_poll_completion(doca_flow_dpa_addr object, enum doca_flow_dpa_queue_type queue_type,
					     uint32_t queue_id, struct doca_flow_dpa_completion_stats *stats);
DOCA_EXPERIMENTAL
doca_error_t doca_flow_queue_flush(doca_flow_dpa_addr object, enum doca_flow_dpa_queue_type queue_type,
				   uint32_t queue_id);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_FLOW_DPA_PROVIDER_DEV_H_ */
