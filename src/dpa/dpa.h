/*
 * dpa.h - what the DPA runtime offers the layer above it (src/provider, src/provider_dev):
 * the DPA process a doca_dpa owns (struct flexio_process), its device heap, and the
 * device-side execution context of the calling thread.
 *
 * Symbols are exported from libdoca_dpa in the FLOWDPA_INTERNAL version node
 * (FLOWDPA_INTERNAL_API, src/core/core.h).
 */
#ifndef FLOWDPA_DPA_H_
#define FLOWDPA_DPA_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include <core/core.h>

struct doca_dpa;
struct doca_dev;
struct flexio_process;

/* INVALID_VALUE (with a log line naming the caller) when process is NULL or not a process. */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t dpa_process_check(const struct flexio_process *process, const char *caller);

/* The context that owns the process, its device and the device's capabilities. */
FLOWDPA_INTERNAL_API struct doca_dpa *dpa_process_dpa(struct flexio_process *process);
FLOWDPA_INTERNAL_API struct doca_dev *dpa_process_dev(struct flexio_process *process);
FLOWDPA_INTERNAL_API const struct core_dev_caps *dpa_process_caps(const struct flexio_process *process);
/* Small number unique per live context in this program (for addresses, logs, trace). */
FLOWDPA_INTERNAL_API uint32_t dpa_process_id(const struct flexio_process *process);

/*
 * The provider holds the process while it uses it: doca_dpa_destroy returns IN_USE
 * (and says who) until every hold is released.
 */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t dpa_process_hold(struct flexio_process *process);
FLOWDPA_INTERNAL_API void dpa_process_release(struct flexio_process *process);

/*
 * The device heap of a process. Same rules as doca_dpa_mem_alloc/_free/_h2d/_d2h, but
 * usable from any thread including device code and not requiring a started context.
 * dpa_heap_alloc's failure line names api, the public call that needs the memory (its
 * caller then adds nothing: one line per failed call).
 */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t dpa_heap_alloc(struct flexio_process *process, size_t size,
								    uint64_t *dev_ptr, const char *api);
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t dpa_heap_free(struct flexio_process *process, uint64_t dev_ptr);
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t dpa_heap_h2d(struct flexio_process *process, uint64_t dst, const void *src,
					       size_t size);
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t dpa_heap_d2h(struct flexio_process *process, void *dst, uint64_t src, size_t size);
/*
 * Host pointer for [dev_ptr, dev_ptr + size) when that range lies inside one live
 * allocation, else NULL (no log: the caller says what it was doing).
 */
FLOWDPA_INTERNAL_API void *dpa_heap_ptr(struct flexio_process *process, uint64_t dev_ptr, size_t size);

/* ------------------------------------------------------------ device-side context */

/* True on a thread that is running a kernel or RPC right now. */
FLOWDPA_INTERNAL_API bool dpa_in_device(void);
/* The process whose kernel or RPC the calling thread runs; NULL outside device code. */
FLOWDPA_INTERNAL_API struct flexio_process *dpa_current_process(void);
/* Name and rank of the running kernel/RPC (for log lines); "(host)" and 0 outside. */
FLOWDPA_INTERNAL_API const char *dpa_current_kernel(void);
FLOWDPA_INTERNAL_API unsigned int dpa_current_rank(void);

/*
 * A device API call got an invalid argument: log it (naming kernel and rank), mark the
 * context failed (doca_dpa_peek_at_last_error turns BAD_STATE) and end the instance.
 * Outside device code it only logs and returns.
 */
FLOWDPA_INTERNAL_API void dpa_dev_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Inside device waits: ends the instance when its context is being destroyed, so that
 * a kernel waiting for something that never comes does not keep destroy waiting.
 */
FLOWDPA_INTERNAL_API void dpa_dev_check_cancel(void);

#endif /* FLOWDPA_DPA_H_ */
