/*
 * doca_flow_external_resource.h - external resources of a DOCA Flow port: index
 * selectors and NIC memory, created here and exported to a DPA through the provider
 * (doca_flow_dpa_external_resource_export). Included by doca_flow.h.
 *
 * An index selector holds nr_indices slots; a HASH pipe bound to it consults slot i
 * after choosing entry i. A memory resource holds nr_cells 64-bit cells; a HASH pipe
 * bound to it counts the packets of entry i into cell i. See docs/external-resources.md.
 */
#ifndef DOCA_FLOW_EXTERNAL_RESOURCE_H_
#define DOCA_FLOW_EXTERNAL_RESOURCE_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_flow_port;
struct doca_flow_pipe_cfg;

enum doca_flow_external_resource_type {
	DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR,
	DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY,
};

/* Shared with the DPA-side provider header: whichever is included first defines it. */
#ifndef FLOWDPA_INDEX_SELECTOR_OP_DEFINED
#define FLOWDPA_INDEX_SELECTOR_OP_DEFINED
enum doca_flow_index_selector_op {
	DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE,
	DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE,
	DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_TWICE,
	DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE,
};
#endif

struct doca_flow_external_resource_cfg;
struct doca_flow_external_resource;

/*
 * Create a resource configuration for a started port. INVALID_VALUE for NULL cfg or
 * port, BAD_STATE when the port is not started, NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_flow_external_resource_cfg_create(struct doca_flow_external_resource_cfg **cfg,
								      struct doca_flow_port *port);
/* Free a configuration (resources created from it are not affected). INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_external_resource_cfg_destroy(struct doca_flow_external_resource_cfg *cfg);
/* Choose the resource type. INVALID_VALUE for NULL or an unknown type. */
DOCA_EXPERIMENTAL doca_error_t
doca_flow_external_resource_cfg_set_type(struct doca_flow_external_resource_cfg *cfg,
					 enum doca_flow_external_resource_type type);
/* Index selector size. INVALID_VALUE for NULL, 0, or a cfg whose type is not INDEX_SELECTOR. */
DOCA_EXPERIMENTAL doca_error_t
doca_flow_external_resource_cfg_set_nr_indices(struct doca_flow_external_resource_cfg *cfg, uint32_t nr_indices);
/* Memory size in 64-bit cells. INVALID_VALUE for NULL, 0, or a cfg whose type is not MEMORY. */
DOCA_EXPERIMENTAL doca_error_t
doca_flow_external_resource_cfg_set_nr_cells(struct doca_flow_external_resource_cfg *cfg, uint32_t nr_cells);
/*
 * Create the resource: all selector slots ENABLE, all cells 0. INVALID_VALUE for NULL
 * arguments or a cfg whose size was not set, NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_flow_external_resource_create(const struct doca_flow_external_resource_cfg *cfg,
								  struct doca_flow_external_resource **resource);
/*
 * Destroy a resource. INVALID_VALUE for NULL; BAD_STATE while a live pipe is bound to it
 * or the provider exports it (the log names the holder).
 */
DOCA_EXPERIMENTAL doca_error_t doca_flow_external_resource_destroy(struct doca_flow_external_resource *resource);

/*
 * Bind to a HASH pipe before doca_flow_pipe_create: at most one resource of each type.
 * Index selector: nr_indices >= the pipe's nr_entries. Memory: entry i's packets are
 * counted into cell i, so nr_cells >= nr_entries. INVALID_VALUE for NULL, a non-hash
 * pipe cfg, a second resource of one type; the size check is done by
 * doca_flow_pipe_create (INVALID_VALUE there), since nr_entries may be set later.
 */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_cfg_set_external_resource(struct doca_flow_pipe_cfg *cfg,
									struct doca_flow_external_resource *resource);

/* Host-side access (tests, control planes); atomic per cell / per index.
 * INVALID_VALUE for NULL, the wrong resource type, or offset/index out of range. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_external_resource_memory_get(struct doca_flow_external_resource *resource,
								      uint32_t offset, uint64_t *value);
DOCA_EXPERIMENTAL doca_error_t doca_flow_external_resource_memory_set(struct doca_flow_external_resource *resource,
								      uint32_t offset, uint64_t value);
DOCA_EXPERIMENTAL doca_error_t
doca_flow_external_resource_index_selector_get(struct doca_flow_external_resource *resource, uint32_t index,
					       enum doca_flow_index_selector_op *state);
DOCA_EXPERIMENTAL doca_error_t
doca_flow_external_resource_index_selector_set(struct doca_flow_external_resource *resource, uint32_t index,
					       enum doca_flow_index_selector_op state);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_FLOW_EXTERNAL_RESOURCE_H_ */
