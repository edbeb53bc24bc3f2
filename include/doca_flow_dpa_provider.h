/*
 * doca_flow_dpa_provider.h - the host side of the DOCA Flow DPA Provider: a context per
 * DPA process, request queues per port, and the export handshake that hands a DPA
 * kernel the device address of a HASH pipe or an external resource.
 *
 * Lifecycle (docs/provider.md): doca_flow_dpa_init -> doca_flow_dpa_queues_create ->
 * doca_flow_dpa_pipe_export_prepare (before any entry is added) -> add entries with
 * doca_flow -> doca_flow_dpa_pipe_export -> doca_flow_dpa_pipe_get_device_addr; external
 * resources: doca_flow_dpa_external_resource_export -> _get_device_addr. Teardown in
 * reverse order: doca_flow_dpa_destroy refuses a context with live exports or queues.
 *
 * NVIDIA's header is not public: names and error meanings follow the public description
 * of the provider, argument lists are flowdpa's reconstruction.
 */
#ifndef DOCA_FLOW_DPA_PROVIDER_H_
#define DOCA_FLOW_DPA_PROVIDER_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_flow_external_resource.h>

#ifdef __cplusplus
extern "C" {
#endif

struct flexio_process;
struct doca_flow_port;
struct doca_flow_pipe;
/* One per DPA process; queues are created per port of it. */
struct doca_flow_dpa_ctx;
/* An exported HASH pipe. */
struct doca_flow_dpa_pipe;
/* An exported external resource (index selector or memory). */
struct doca_flow_dpa_external_resource;
/* The opaque device address a kernel passes to the DPA-side calls. */
typedef uint64_t doca_flow_dpa_addr;

/* Shared with the DPA-side header: whichever is included first defines it. */
#ifndef FLOWDPA_DPA_QUEUE_TYPE_DEFINED
#define FLOWDPA_DPA_QUEUE_TYPE_DEFINED
enum doca_flow_dpa_queue_type {
	DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL,	  /* hash-pipe entry requests */
	DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, /* index-selector modify, memory update */
	DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ,  /* memory read */
};
#endif

struct doca_flow_dpa_queue_cfg {
	enum doca_flow_dpa_queue_type type;
	uint32_t queue_size; /* requests a queue holds until they are polled; a power of 2 */
	uint32_t nr_queues;  /* queues of this type; their ids are 0..nr_queues-1 */
};

/*
 * Create a provider context on process (doca_dpa_get_flexio_process). The context holds
 * the process: doca_dpa_destroy returns IN_USE until doca_flow_dpa_destroy.
 * INVALID_VALUE for NULL arguments or a pointer that is no DPA process; NOT_SUPPORTED
 * when the process's device has no DPA; NO_MEMORY; DRIVER for an injected fault.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_init(struct flexio_process *process, struct doca_flow_dpa_ctx **ctx);

/* Destroy a context. BAD_STATE (the log lists them) while exports or queues are alive. */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_destroy(struct doca_flow_dpa_ctx *ctx);

/*
 * Create the request queues of port: one cfg per queue type, each type at most once.
 * INVALID_VALUE for a NULL argument, num_queue_cfgs 0, an unknown or repeated type,
 * nr_queues 0, queue_size 0 or not a power of 2; NOT_SUPPORTED for more or deeper queues
 * than the device allows; BAD_STATE when the port already has queues in this context
 * or is not started; NO_MEMORY; DRIVER for an injected fault.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_queues_create(struct doca_flow_dpa_ctx *ctx, struct doca_flow_port *port,
					 const struct doca_flow_dpa_queue_cfg *queue_cfgs, uint32_t num_queue_cfgs);

/*
 * Destroy the queues of port. Requests still in flight are dropped and the DPA side gets
 * IO_FAILED on them and on every later call on those queues. Exports of this port may
 * stay alive (a WARNING names each); their addresses work again once queues are created
 * anew. BAD_STATE when the port has no queues in this context.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_queues_destroy(struct doca_flow_dpa_ctx *ctx, struct doca_flow_port *port);

/*
 * Start exporting the first nr_entries entries of a HASH pipe. Call it before adding any
 * entry: entries already in the pipe are not exported (a WARNING names the pipe and the
 * count; BAD_STATE instead under FLOWDPA_STRICT=1), and DPA requests on them complete
 * with failure. INVALID_VALUE for NULL arguments or nr_entries 0 or above the pipe's
 * size; NOT_SUPPORTED for a pipe that is not a HASH pipe; BAD_STATE when the pipe's port
 * has no GENERAL queue in this context; NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_pipe_export_prepare(struct doca_flow_dpa_ctx *ctx, struct doca_flow_pipe *pipe,
					       uint32_t nr_entries, struct doca_flow_dpa_pipe **dpa_pipe);

/*
 * Copy the export into device memory: from now on the device address is valid.
 * BAD_STATE when already exported or when the pipe went; INVALID_VALUE for an export of
 * another context; DRIVER for an injected fault.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_pipe_export(struct doca_flow_dpa_ctx *ctx, struct doca_flow_dpa_pipe *dpa_pipe);

/* The device address of an exported pipe. BAD_STATE before doca_flow_dpa_pipe_export. */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_pipe_get_device_addr(struct doca_flow_dpa_ctx *ctx, struct doca_flow_dpa_pipe *dpa_pipe,
						doca_flow_dpa_addr *dev_addr);

/* End an export (prepared or exported); its device address becomes stale (BAD_STATE on
 * the DPA side) and the pipe can be destroyed again. */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_pipe_destroy(struct doca_flow_dpa_ctx *ctx, struct doca_flow_dpa_pipe *dpa_pipe);

/*
 * Export an external resource (resource_ctx is a struct doca_flow_external_resource *
 * of that type). BAD_STATE when the port lacks the queue types the resource needs (index
 * selector: RESOURCES_WRITE; memory: RESOURCES_WRITE or RESOURCES_READ); INVALID_VALUE
 * when type does not match the resource; NOT_SUPPORTED for a type that cannot be
 * exported; NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_external_resource_export(struct doca_flow_dpa_ctx *ctx,
						    enum doca_flow_external_resource_type type, void *resource_ctx,
						    struct doca_flow_dpa_external_resource **dpa_resource);

/* The device address of an exported resource. */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_external_resource_get_device_addr(struct doca_flow_dpa_ctx *ctx,
							     struct doca_flow_dpa_external_resource *dpa_resource,
							     doca_flow_dpa_addr *dev_addr);

/* End a resource export; its device address becomes stale. */
DOCA_EXPERIMENTAL
doca_error_t doca_flow_dpa_external_resource_destroy(struct doca_flow_dpa_ctx *ctx,
						     struct doca_flow_dpa_external_resource *dpa_resource);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_FLOW_DPA_PROVIDER_H_ */
