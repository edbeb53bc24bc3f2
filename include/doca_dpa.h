/*
 * doca_dpa.h - the host side of DOCA DPA: a DPA context on a device, the application
 * image built by dpacc, kernel launches with sync events, RPCs, the device heap and the
 * topology queries, DPA thread objects with notification completions and EU affinities.
 * Names, argument order and enum values are DOCA 3.0's; the subset is the one flowdpa's
 * docs/dpa.md describes (completion contexts, async ops, thread groups and hash tables
 * are not declared yet).
 *
 * flowdpa extensions, not in DOCA:
 *  - doca_dpa_get_flexio_process() (the DPA process a doca_dpa owns, for
 *    doca_flow_dpa_init);
 *  - argument counting: doca_dpa_kernel_launch_update_set/_add and doca_dpa_rpc are also
 *    macros of the same name that count the arguments actually passed, so that the
 *    library can compare them with the kernel's declared parameter count (hardware cannot).
 *    Define FLOWDPA_DPA_NO_ARG_CHECK before including this header to call the plain
 *    functions. Up to 63 kernel arguments are counted. Parenthesise compound-literal
 *    arguments: the macros count every top-level comma, so (struct pair){5, 6} counts
 *    as two arguments and ((struct pair){5, 6}) as one (the mismatch is refused with
 *    INVALID_VALUE and a log line saying so).
 */
#ifndef DOCA_DPA_H_
#define DOCA_DPA_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DPACC keywords; empty for host compilers (no DOCA header defines them on the host). */
#ifndef __dpa_global__
#define __dpa_global__
#endif
#ifndef __dpa_rpc__
#define __dpa_rpc__
#endif

struct doca_devinfo;
struct doca_dev;
struct doca_sync_event;
struct doca_dpa;
struct doca_buf;
/* An application image: produced by dpacc, named by its --app-name option. */
struct doca_dpa_app;
struct doca_dpa_eu_affinity;
struct doca_dpa_thread;
struct doca_dpa_notification_completion;
/* flowdpa extension: the DPA process a doca_dpa owns. */
struct flexio_process;

/* Completion user data must be smaller than (1 << DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA). */
#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA (24)

#ifndef DOCA_DPA_DEV_LOG_LEVEL_DEFINED_
#define DOCA_DPA_DEV_LOG_LEVEL_DEFINED_
/* Level of device-side log messages (doca_dpa_dev_log); bigger is more verbose. */
typedef enum doca_dpa_dev_log_level {
	DOCA_DPA_DEV_LOG_LEVEL_DISABLE = 10,
	DOCA_DPA_DEV_LOG_LEVEL_ERROR = 30,
	DOCA_DPA_DEV_LOG_LEVEL_WARNING = 40,
	DOCA_DPA_DEV_LOG_LEVEL_INFO = 50,
	DOCA_DPA_DEV_LOG_LEVEL_DEBUG = 60,
} doca_dpa_dev_log_level_t;
#endif

typedef uint64_t doca_dpa_dev_t;	 /* DPA context handle, as device code sees it */
typedef uint64_t doca_dpa_dev_uintptr_t; /* an address in the DPA heap */
typedef uint64_t doca_dpa_dev_hash_table_t;
typedef uint64_t doca_dpa_dev_completion_t;
typedef uint64_t doca_dpa_dev_async_ops_t;
typedef uint64_t doca_dpa_dev_notification_completion_t;
/* The host-side type of every kernel and RPC: declare `extern doca_dpa_func_t name;`. */
typedef void(doca_dpa_func_t)(void);

/* ------------------------------------------------------------ context lifecycle */

/*
 * DOCA_SUCCESS when the device has a DPA, DOCA_ERROR_NOT_SUPPORTED otherwise;
 * DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_cap_is_supported(const struct doca_devinfo *devinfo);

/*
 * Create a DPA context on an open device (held until destroy). INVALID_VALUE for NULL
 * arguments, NOT_SUPPORTED for a device without a DPA, NO_MEMORY when the device heap
 * cannot be mapped.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);

/*
 * Destroy a context in any state; stops it first (launches still waiting for their
 * event are cancelled, kernels blocked in a device wait are ended). TIME_OUT, with a log
 * line and the context left intact and started (launches still waiting for their event
 * included: they run when it comes), when a kernel still runs its own code after a
 * bounded wait (2.5 s): destroy again once it has returned. IN_USE while a sync event,
 * a DPA thread, notification completion or EU affinity, an extended context or the DPA
 * provider still uses the context, or an RPC runs on another thread; the context is
 * then left intact.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);

/* Start the context: BAD_STATE without an app or when already started. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_start(struct doca_dpa *dpa);

/*
 * Stop a started context: BAD_STATE when not started, IN_USE while kernels are pending
 * or running, an RPC runs on another thread, or DPA thread objects or extended contexts
 * exist, NOT_PERMITTED on an extended context. Device memory is kept; the context may be
 * started again. Launches and RPCs racing a stop are either counted (and the stop is
 * IN_USE) or refused with BAD_STATE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_stop(struct doca_dpa *dpa);

/*
 * Extend a started context to another device with a DPA: the result is started, shares
 * the app, the device heap and the DPA threads of dpa (launches, RPCs and memory calls
 * on it act on dpa), and has its own handle for doca_dpa_dev_device_set. BAD_STATE when
 * dpa is not started or is itself extended; NOT_SUPPORTED for a device without a DPA;
 * FULL beyond 16 extensions. Destroy it before dpa (IN_USE otherwise); log level, log
 * file and stop are NOT_PERMITTED on it.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_device_extend(struct doca_dpa *dpa, struct doca_dev *other_dev, struct doca_dpa **extended_dpa);

/* The nonzero handle device code passes to doca_dpa_dev_device_set; BAD_STATE before start. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_dpa_handle(struct doca_dpa *dpa, doca_dpa_dev_t *handle);

/* ------------------------------------------------------------ application image */

/*
 * Load the application image named by dpacc's --app-name (pass the variable itself).
 * BAD_STATE after start; INVALID_VALUE for NULL or a pointer that is not a dpacc image;
 * DRIVER for an image built by another dpacc version than this library.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_set_app(struct doca_dpa *dpa, struct doca_dpa_app *app);

/* The image set with doca_dpa_set_app; BAD_STATE when none was set. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_app(struct doca_dpa *dpa, struct doca_dpa_app **app);

/*
 * Copy the image's name (NUL-terminated) into app_name, whose size *app_name_len gives;
 * *app_name_len gets the length including the NUL. INVALID_VALUE when it does not fit.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_app_get_name(struct doca_dpa_app *app, char *app_name, uint32_t *app_name_len);

/* ------------------------------------------------------------ device-side logging */

/* Most verbose device log level printed (default INFO); BAD_STATE after start. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_set_log_level(struct doca_dpa *dpa, doca_dpa_dev_log_level_t log_level);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_log_level(struct doca_dpa *dpa, doca_dpa_dev_log_level_t *log_level);

/*
 * Device log messages go to this file (appended) instead of stdout; BAD_STATE after
 * start. get copies the path like doca_dpa_app_get_name (NOT_FOUND when none is set).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_log_file_set_path(struct doca_dpa *dpa, const char *file_path);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_log_file_get_path(struct doca_dpa *dpa, char *file_path, uint32_t *file_path_len);

/* ------------------------------------------------------------ limits and topology */

/* Most threads one launch may ask for: the EUs available. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_max_threads_per_kernel(const struct doca_dpa *dpa, unsigned int *value);
/* A kernel's allowed run time (flowdpa: 60 s, in microseconds; not enforced). */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_kernel_max_run_time(const struct doca_dpa *dpa, unsigned long long *value);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_core_num(struct doca_dpa *dpa, unsigned int *num_cores);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_num_eus_per_core(struct doca_dpa *dpa, unsigned int *eus_per_core);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_total_num_eus_available(struct doca_dpa *dpa, unsigned int *total_num_eus);

/* ------------------------------------------------------------ launch, RPC, errors */

/*
 * Launch num_threads instances of the kernel func (ranks 0..num_threads-1) once
 * wait_event (if not NULL) is >= wait_threshold; when all of them have returned,
 * comp_event (if not NULL) is set to comp_count (_update_set) or incremented by it
 * (_update_add). Returns at once; the arguments are captured by the call.
 * BAD_STATE before start or after a device fatal error; INVALID_VALUE for a NULL or
 * unknown func, an RPC passed as kernel, num_threads 0 or above
 * doca_dpa_get_max_threads_per_kernel, wait_threshold above 254, an event that is not
 * started, or (through the macros below) a wrong number of arguments.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_kernel_launch_update_set(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
					       uint64_t wait_threshold, struct doca_sync_event *comp_event,
					       uint64_t comp_count, unsigned int num_threads, doca_dpa_func_t *func,
					       ...);
/* As doca_dpa_kernel_launch_update_set, but the completion adds comp_count. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_kernel_launch_update_add(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
					       uint64_t wait_threshold, struct doca_sync_event *comp_event,
					       uint64_t comp_count, unsigned int num_threads, doca_dpa_func_t *func,
					       ...);

/*
 * Run the RPC func once (rank 0 of 1) and wait for it; *retval gets its result. While
 * it runs, doca_dpa_stop and doca_dpa_destroy on other threads return IN_USE.
 * SUCCESS whatever the function returned. BAD_STATE before start or after a fatal
 * error; INVALID_VALUE for NULL retval, an unknown func, a kernel passed as RPC or (via
 * the macro) a wrong number of arguments; DRIVER when the RPC faulted (see
 * doca_dpa_peek_at_last_error).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_rpc(struct doca_dpa *dpa, doca_dpa_func_t *func, uint64_t *retval, ...);

/*
 * SUCCESS until device code hit a fatal error (a fault, or an invalid handle passed to
 * the device API), BAD_STATE from then on; the log names the kernel, rank and signal.
 * The context can then only be destroyed.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_peek_at_last_error(const struct doca_dpa *dpa);

/* ------------------------------------------------------------ DPA heap */

/*
 * Allocate size bytes (64-byte aligned, not zeroed) in the context's heap; *dev_ptr is
 * an address device code dereferences directly (0 on failure). INVALID_VALUE for NULL
 * or size 0; NO_MEMORY when the heap is exhausted.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_mem_alloc(struct doca_dpa *dpa, size_t size, doca_dpa_dev_uintptr_t *dev_ptr);
/* Free an allocation; 0 is a no-op; INVALID_VALUE for an address no allocation starts at. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_mem_free(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr);

/*
 * Blocking copies and memset. The device range must lie inside one live allocation
 * (INVALID_VALUE otherwise, also for NULL host pointers and size 0); BAD_STATE before start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_h2d_memcpy(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dst_ptr, void *src_ptr, size_t size);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_d2h_memcpy(struct doca_dpa *dpa, void *dst_ptr, doca_dpa_dev_uintptr_t src_ptr, size_t size);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_memset(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr, int value, size_t size);

/* ------------------------------------------------------------ EU affinity */

/* An EU choice for DPA threads (none set: any EU). INVALID_VALUE for NULL; NO_MEMORY. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_create(struct doca_dpa *dpa, struct doca_dpa_eu_affinity **affinity);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_destroy(struct doca_dpa_eu_affinity *affinity);
/* Choose EU eu_id, 0..doca_dpa_get_total_num_eus_available-1 (INVALID_VALUE otherwise). */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_set(struct doca_dpa_eu_affinity *affinity, unsigned int eu_id);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_clear(struct doca_dpa_eu_affinity *affinity);
/* The EU set; NOT_FOUND when none is. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_get(struct doca_dpa_eu_affinity *affinity, unsigned int *eu_id);

/* ------------------------------------------------------------ DPA threads */

/*
 * A DPA thread runs func(arg) once per trigger (a doca_dpa_dev_thread_notify on its
 * notification completion) after doca_dpa_thread_run, on a host thread of its own.
 * Order: create -> set_func_arg / set_local_storage / set_affinity (BAD_STATE once
 * started) -> start (BAD_STATE without func) -> notification completion -> run.
 * func is a kernel of the context's app taking one uint64_t (given arg) or nothing
 * (set_func_arg: INVALID_VALUE for more parameters or one wider than 8 bytes).
 * The thread holds the context (doca_dpa_destroy and _stop return IN_USE until the
 * thread is destroyed); it may be destroyed in any state. Stop and destroy wait up to
 * 2 s for a run in progress to end (a run ends early at its next device wait or yield)
 * and return TIME_OUT, leaving the thread intact, if it does not.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_create(struct doca_dpa *dpa, struct doca_dpa_thread **dpa_thread);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_destroy(struct doca_dpa_thread *dpa_thread);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_set_func_arg(struct doca_dpa_thread *dpa_thread, doca_dpa_func_t *func, uint64_t arg);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_get_func_arg(struct doca_dpa_thread *dpa_thread, doca_dpa_func_t **func, uint64_t *arg);
/* The value doca_dpa_dev_thread_get_local_storage returns in the thread's runs. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_set_local_storage(struct doca_dpa_thread *dpa_thread, doca_dpa_dev_uintptr_t dev_ptr);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_get_local_storage(struct doca_dpa_thread *dpa_thread, doca_dpa_dev_uintptr_t *dev_ptr);
/* Copies the affinity's EU (the affinity object may be reused or destroyed after). */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_set_affinity(struct doca_dpa_thread *dpa_thread,
					  const struct doca_dpa_eu_affinity *affinity);
/* An affinity object owned by the thread describing its EU (NOT_FOUND when none was set). */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_get_affinity(struct doca_dpa_thread *dpa_thread,
					  const struct doca_dpa_eu_affinity **affinity);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_start(struct doca_dpa_thread *dpa_thread);
/* Stop a started thread (waits for a run in progress); it may be configured again. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_stop(struct doca_dpa_thread *dpa_thread);
/* Make a started thread runnable: from now on each trigger causes one run. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_run(struct doca_dpa_thread *dpa_thread);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_get_id(struct doca_dpa_thread *dpa_thread, uint32_t *dpa_thread_id);

/* ------------------------------------------------------------ notification completions */

/*
 * A notification completion attached to a DPA thread: device code passes its handle to
 * doca_dpa_dev_thread_notify to trigger one run of the thread. One per thread.
 * create needs a thread of the same context (BAD_STATE if it already has one); start
 * needs the thread started; the handle needs the completion started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_create(struct doca_dpa *dpa, struct doca_dpa_thread *dpa_thread,
						     struct doca_dpa_notification_completion **notify_comp);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_destroy(struct doca_dpa_notification_completion *notify_comp);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_get_thread(struct doca_dpa_notification_completion *notify_comp,
							 struct doca_dpa_thread **dpa_thread);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_start(struct doca_dpa_notification_completion *notify_comp);
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_stop(struct doca_dpa_notification_completion *notify_comp);
/* Nonzero, stable handle for doca_dpa_dev_thread_notify; BAD_STATE before start. */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_get_dpa_handle(struct doca_dpa_notification_completion *notify_comp,
							     doca_dpa_dev_notification_completion_t *handle);

/* ------------------------------------------------------------ flowdpa extension */

/*
 * The DPA process this context owns, for doca_flow_dpa_init. INVALID_VALUE for NULL
 * arguments, BAD_STATE before doca_dpa_start. Valid until doca_dpa_destroy.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_flexio_process(struct doca_dpa *dpa, struct flexio_process **process);

/* ------------------------------------------------------------ argument counting */

/*
 * Entry points of the counting macros (flowdpa, not DOCA). nargs is the number of
 * arguments after func; the rest is as for the DOCA functions above.
 */
DOCA_EXPERIMENTAL
doca_error_t flowdpa_dpa_kernel_launch_counted(int add, unsigned int nargs, struct doca_dpa *dpa,
					       struct doca_sync_event *wait_event, uint64_t wait_threshold,
					       struct doca_sync_event *comp_event, uint64_t comp_count,
					       unsigned int num_threads, doca_dpa_func_t *func, ...);
DOCA_EXPERIMENTAL
doca_error_t flowdpa_dpa_rpc_counted(unsigned int nargs, struct doca_dpa *dpa, doca_dpa_func_t *func,
				     uint64_t *retval, ...);

#ifndef FLOWDPA_DPA_NO_ARG_CHECK
#define FLOWDPA_DPA_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, N, ...) N
#define FLOWDPA_DPA_NARGS(...) FLOWDPA_DPA_NARGS_(__VA_ARGS__, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define doca_dpa_kernel_launch_update_set(dpa, wait_event, wait_threshold, comp_event, comp_count, num_threads, \
					  ...) \
	flowdpa_dpa_kernel_launch_counted(0, FLOWDPA_DPA_NARGS(__VA_ARGS__) - 1, dpa, wait_event, wait_threshold, \
					  comp_event, comp_count, num_threads, __VA_ARGS__)
#define doca_dpa_kernel_launch_update_add(dpa, wait_event, wait_threshold, comp_event, comp_count, num_threads, \
					  ...) \
	flowdpa_dpa_kernel_launch_counted(1, FLOWDPA_DPA_NARGS(__VA_ARGS__) - 1, dpa, wait_event, wait_threshold, \
					  comp_event, comp_count, num_threads, __VA_ARGS__)
#define doca_dpa_rpc(dpa, func, ...) flowdpa_dpa_rpc_counted(FLOWDPA_DPA_NARGS(__VA_ARGS__) - 1, dpa, func, __VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_H_ */
