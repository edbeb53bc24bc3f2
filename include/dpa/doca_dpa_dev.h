/*
 * doca_dpa_dev.h - the device side of DOCA DPA, for translation units built by dpacc:
 * thread rank and count, context selection, yield, end of a run, and device logging
 * routed to the host. Names and values are DOCA 3.0's.
 *
 * In flowdpa, device code runs natively on host threads and these functions live in
 * libdoca_dpa (so they resolve at the final link, as meson's --as-needed requires).
 * Called from a thread that is not running device code they log an error and return 0.
 */
#ifndef DOCA_DPA_DEV_H_
#define DOCA_DPA_DEV_H_

#ifndef DOCA_DPA_DEVICE
#define DOCA_DPA_DEVICE
#endif

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DPACC keywords; empty here so that a host compiler builds device code. */
#ifndef __dpa_global__
#define __dpa_global__
#endif
#ifndef __dpa_rpc__
#define __dpa_rpc__
#endif

#ifndef DOCA_DPA_DEV_LOG_LEVEL_DEFINED_
#define DOCA_DPA_DEV_LOG_LEVEL_DEFINED_
/* Level of device-side log messages; bigger is more verbose (same values as the host). */
__dpa_global__ typedef enum doca_dpa_dev_log_level {
	DOCA_DPA_DEV_LOG_LEVEL_DISABLE = 10,
	DOCA_DPA_DEV_LOG_LEVEL_ERROR = 30,
	DOCA_DPA_DEV_LOG_LEVEL_WARNING = 40,
	DOCA_DPA_DEV_LOG_LEVEL_INFO = 50,
	DOCA_DPA_DEV_LOG_LEVEL_DEBUG = 60,
} doca_dpa_dev_log_level_t;
#endif

__dpa_global__ typedef uint64_t doca_dpa_dev_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_uintptr_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_hash_table_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_completion_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_completion_element_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_async_ops_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_notification_completion_t;

__dpa_global__ typedef enum {
	DOCA_DPA_DEV_COMP_SEND = 0x0,
	DOCA_DPA_DEV_COMP_RECV_RDMA_WRITE_IMM = 0x1,
	DOCA_DPA_DEV_COMP_RECV_SEND = 0x2,
	DOCA_DPA_DEV_COMP_RECV_SEND_IMM = 0x3,
	DOCA_DPA_DEV_COMP_SEND_ERR = 0xD,
	DOCA_DPA_DEV_COMP_RECV_ERR = 0xE
} doca_dpa_dev_completion_type_t;

__dpa_global__ enum doca_dpa_dev_submit_flag {
	DOCA_DPA_DEV_SUBMIT_FLAG_NONE = 0U,
	DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH = (1U << 0),
	DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS = (1U << 1),
};

#ifndef __forceinline
#define __forceinline static inline __attribute__((always_inline))
#endif

/*
 * Select the context (doca_dpa_get_dpa_handle) that later calls of this execution refer
 * to. A handle that is not the running context's is a fatal device error.
 */
DOCA_EXPERIMENTAL
void doca_dpa_dev_device_set(doca_dpa_dev_t dpa_handle);

/* Rank of the calling instance in its launch (0..num_threads-1); 0 in an RPC. */
DOCA_EXPERIMENTAL
unsigned int doca_dpa_dev_thread_rank(void);

/* Number of instances of the running launch; 1 in an RPC. */
DOCA_EXPERIMENTAL
unsigned int doca_dpa_dev_num_threads(void);

/* In a DPA thread's run: the value set with doca_dpa_thread_set_local_storage; 0 elsewhere. */
DOCA_EXPERIMENTAL
doca_dpa_dev_uintptr_t doca_dpa_dev_thread_get_local_storage(void);

/*
 * Trigger one run of the DPA thread attached to a notification completion (a started
 * one; an invalid handle is a fatal device error). Triggers during a run cause a later
 * run; several pending triggers may merge into one run.
 */
DOCA_EXPERIMENTAL
void doca_dpa_dev_thread_notify(doca_dpa_dev_notification_completion_t comp_handle);

/* Let other DPA threads run (sched_yield on the host). */
DOCA_EXPERIMENTAL
void doca_dpa_dev_yield(void);

/*
 * End the current run. In a DPA thread, reschedule keeps the thread runnable (as a
 * return from func does) and finish ends it for good; in a launched kernel both end this
 * instance as if the kernel had returned. Neither returns.
 */
DOCA_EXPERIMENTAL
void doca_dpa_dev_thread_reschedule(void) __attribute__((noreturn));
DOCA_EXPERIMENTAL
void doca_dpa_dev_thread_finish(void) __attribute__((noreturn));

/*
 * Print a message when log_level <= the context's device log level (default INFO), as
 * formatted (messages carry their own newline), in one piece, to stdout or to the file
 * set with doca_dpa_log_file_set_path. The host SDK log also gets a DEBUG record naming
 * the kernel and the instance's rank.
 */
DOCA_EXPERIMENTAL
void doca_dpa_dev_log(doca_dpa_dev_log_level_t log_level, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

#define DOCA_DPA_DEV_LOG_ERR(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_ERROR, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_WARN(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_WARNING, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_INFO(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_INFO, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_DBG(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_DEBUG, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_H_ */
