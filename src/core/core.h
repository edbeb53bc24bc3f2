/*
 * core.h - what src/core offers the layers above it (nic, flow, dpa, provider):
 * SDK-side logging, the parsed configuration, the emulated device inventory, fault
 * injection, trace events, the exit report and a small JSON writer.
 *
 * Nothing here is DOCA API; the symbols are exported from libdoca_common in the
 * FLOWDPA_INTERNAL version node (see libdoca_common.map) for flowdpa's own libraries.
 */
#ifndef FLOWDPA_CORE_H_
#define FLOWDPA_CORE_H_

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>

/*
 * Every layer is built with hidden visibility. FLOWDPA_INTERNAL_API marks a prototype
 * that one flowdpa library exports to the others (core.h, dpa/dpa.h,
 * flow/flow_provider.h); the symbol is also listed by name in the FLOWDPA_INTERNAL node
 * of the library's version map (src/<layer>/lib*.map), and the exported_symbols test
 * (tests/unit/symbols) checks the two against `nm -D`. Public DOCA functions are exported
 * by DOCA_STABLE / DOCA_EXPERIMENTAL (include/doca_compat.h) instead.
 */
#define FLOWDPA_INTERNAL_API __attribute__((visibility("default")))

/* On every internal function that returns a doca_error_t: a caller that drops the
 * result is a compile error (-Werror), as an unchecked failure is a silent one. */
#define FLOWDPA_MUST_CHECK __attribute__((warn_unused_result))

/* ---------------------------------------------------------------- SDK logging */

/*
 * Library-internal messages go to the SDK backends (doca_log_backend_create_*_sdk), not
 * to the application's. A translation unit declares its source with DOCA_LOG_REGISTER
 * as user code does, then uses CORE_LOG_*. Trace records are always compiled in and
 * filtered at run time, so DOCA_LOG_LEVEL=trace shows every lifecycle transition.
 */
FLOWDPA_INTERNAL_API doca_error_t core_log_sdk(uint32_t level, int source, const char *fname, int line,
					       const char *func, const char *format, ...)
	__attribute__((format(printf, 6, 7)));
/* True when some SDK backend would print a record of this level (cheap check). */
FLOWDPA_INTERNAL_API bool core_log_sdk_enabled(uint32_t level);

#define CORE_LOG(level, format, ...) \
	core_log_sdk(level, log_source, __FILE__, __LINE__, __func__, format, ##__VA_ARGS__)
#define CORE_LOG_CRIT(format, ...) CORE_LOG(DOCA_LOG_LEVEL_CRIT, format, ##__VA_ARGS__)
#define CORE_LOG_ERR(format, ...) CORE_LOG(DOCA_LOG_LEVEL_ERROR, format, ##__VA_ARGS__)
#define CORE_LOG_WARN(format, ...) CORE_LOG(DOCA_LOG_LEVEL_WARNING, format, ##__VA_ARGS__)
#define CORE_LOG_INFO(format, ...) CORE_LOG(DOCA_LOG_LEVEL_INFO, format, ##__VA_ARGS__)
/* The most verbose SDK level that may print: UINT32_MAX until the log read its setup. */
FLOWDPA_INTERNAL_API extern _Atomic uint32_t core_log_sdk_max;
/* Debug and trace records sit on hot paths (one per queued entry): off, they cost an
 * inline level check, not a call, nor a variadic call that formats nothing. */
#define CORE_LOG_QUIET(level, format, ...)                                                  \
	((level) <= atomic_load_explicit(&core_log_sdk_max, memory_order_relaxed) && core_log_sdk_enabled(level) \
		 ? CORE_LOG(level, format, ##__VA_ARGS__)                                   \
		 : DOCA_SUCCESS)
#define CORE_LOG_DBG(format, ...) CORE_LOG_QUIET(DOCA_LOG_LEVEL_DEBUG, format, ##__VA_ARGS__)
#define CORE_LOG_TRC(format, ...) CORE_LOG_QUIET(DOCA_LOG_LEVEL_TRACE, format, ##__VA_ARGS__)

/*
 * Parse a level given as a name (disable, crit, error|err, warning|warn, info, debug|dbg,
 * trace|trc; any case) or a number 10..70 that is one of the enum values.
 * INVALID_VALUE for anything else.
 */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t core_log_level_parse(const char *text, uint32_t *level);
/* "ERR", "WRN", ... as printed in a record; "???" for a value that is not a level. */
FLOWDPA_INTERNAL_API const char *core_log_level_tag(uint32_t level);

/* ---------------------------------------------------------------- configuration */

#define CORE_MAX_DEVICES 8
#define CORE_MAX_PORTS 16
#define CORE_PATH_MAX 512

enum core_device_model {
	CORE_MODEL_BF3,
	CORE_MODEL_CX7,
	CORE_MODEL_BF2,
	CORE_MODEL_CX6,
};

enum core_nic_mode {
	CORE_NIC_MODE_SYNC,
	CORE_NIC_MODE_ASYNC,
};

enum core_traffic_kind {
	CORE_TRAFFIC_NONE,
	CORE_TRAFFIC_PCAP,
	CORE_TRAFFIC_GEN,
};

/* FLOWDPA_PORTn_RX: pcap:FILE or gen:flows=N,pkts=N,zipf=S,seed=N, plus ,rate=PPS ,loop=N */
struct core_traffic_src {
	enum core_traffic_kind kind;
	char path[CORE_PATH_MAX]; /* pcap */
	uint32_t flows;		  /* gen: distinct 5-tuples (default 1) */
	uint64_t pkts;		  /* gen: packets per loop (default 1000) */
	double zipf;		  /* gen: skew exponent, 0 = uniform (default 0) */
	uint64_t seed;		  /* gen: PRNG seed (default 1) */
	uint64_t rate_pps;	  /* 0 = as fast as the pipeline takes it */
	uint32_t loop;		  /* times the source is played (default 1) */
};

/* FLOWDPA_PORTn_TX: pcap:FILE */
struct core_traffic_sink {
	enum core_traffic_kind kind; /* NONE or PCAP */
	char path[CORE_PATH_MAX];
};

struct core_device_cfg {
	enum core_device_model model;
	uint32_t nr_ports;
};

/* Fault-injection sites (FLOWDPA_FAULTS=site,site,...): each stands for a driver failure. */
enum core_fault_site {
	CORE_FAULT_DPA_INIT,	  /* doca_flow_dpa_init */
	CORE_FAULT_QUEUES_CREATE, /* doca_flow_dpa_queues_create */
	CORE_FAULT_PIPE_EXPORT,	  /* doca_flow_dpa_pipe_export */
	CORE_FAULT_QUEUE_POLL,	  /* DPA-side poll_completion */
	CORE_FAULT_QUEUE_FLUSH,	  /* DPA-side flush */
	CORE_FAULT_DPA_MEM_ALLOC, /* device heap allocation (NO_MEMORY) */
	CORE_FAULT_COUNT,
};

struct core_config {
	uint32_t nr_devices;
	struct core_device_cfg devices[CORE_MAX_DEVICES];
	uint32_t dpa_cores;	      /* FLOWDPA_DPA_CORES, default 16 */
	uint32_t dpa_eus_per_core;    /* FLOWDPA_DPA_EUS_PER_CORE, default 16 */
	uint64_t dpa_heap_size;	      /* FLOWDPA_DPA_HEAP_SIZE, bytes, default 256 MiB */
	enum core_nic_mode nic_mode;  /* FLOWDPA_NIC_MODE */
	uint32_t nic_latency_us;      /* FLOWDPA_NIC_LATENCY_US */
	bool strict;		      /* FLOWDPA_STRICT */
	uint32_t faults;	      /* bit mask of enum core_fault_site */
	uint64_t fault_alloc_nth;     /* FLOWDPA_FAULT_ALLOC: fail this allocation, 0 = none */
	struct core_traffic_src port_rx[CORE_MAX_PORTS];
	struct core_traffic_sink port_tx[CORE_MAX_PORTS];
	struct core_traffic_sink port_kernel[CORE_MAX_PORTS]; /* FLOWDPA_PORTn_KERNEL: pcap:FILE */
	char trace_path[CORE_PATH_MAX];	 /* FLOWDPA_TRACE, "" = off */
	char report_path[CORE_PATH_MAX]; /* FLOWDPA_REPORT, "" = off, "-" = stderr */
	uint32_t report_top;		 /* FLOWDPA_REPORT_TOP: entries per pipe, default 10 */
	bool has_random_seed;		 /* FLOWDPA_RANDOM_SEED set: parser_meta.random repeats */
	uint64_t random_seed;
	char config_file[CORE_PATH_MAX]; /* FLOWDPA_CONFIG, "" = none */
};

/*
 * The configuration, parsed once from the environment and then FLOWDPA_CONFIG (the
 * environment wins for a key set in both). NULL when it is invalid: the error was
 * printed on stderr with the key, the value and what is allowed, and nothing of it is
 * applied. core_config_status() returns DOCA_SUCCESS or DOCA_ERROR_BAD_CONFIG.
 */
FLOWDPA_INTERNAL_API const struct core_config *core_config_get(void);
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t core_config_status(void);
/* Parse the environment again (tests change variables between cases). */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t core_config_reload(void);
/* Parsers, exposed for tests and tools. err gets one sentence on failure. */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t core_config_parse_traffic_src(const char *value, struct core_traffic_src *src,
								char *err, size_t errlen);
FLOWDPA_INTERNAL_API const char *core_device_model_name(enum core_device_model model);
/* True when FLOWDPA_FAULTS names the site: the caller fails with DRIVER (or NO_MEMORY). */
FLOWDPA_INTERNAL_API bool core_fault_injected(enum core_fault_site site);

/* ---------------------------------------------------------------- allocation */

/*
 * Every heap allocation of flowdpa's libraries goes through these (free() stays free),
 * so that FLOWDPA_FAULT_ALLOC=N fails the Nth one (ENOMEM, counted from the process's
 * first). They never log: the caller reports the failure of its own call once.
 */
FLOWDPA_INTERNAL_API void *core_malloc(size_t size);
FLOWDPA_INTERNAL_API void *core_calloc(size_t nmemb, size_t size);
FLOWDPA_INTERNAL_API void *core_realloc(void *ptr, size_t size);
FLOWDPA_INTERNAL_API char *core_strdup(const char *s);
FLOWDPA_INTERNAL_API int core_posix_memalign(void **memptr, size_t alignment, size_t size);
/* size zeroed bytes aligned to alignment (a power of two, a multiple of sizeof(void *)),
 * or NULL (errno EINVAL for another alignment, ENOMEM); free() frees them. For objects
 * whose members are aligned to cache lines. */
FLOWDPA_INTERNAL_API void *core_calloc_aligned(size_t alignment, size_t size);
/*
 * For the site that saw an allocation fail: logs "call: out of memory (what)" once and
 * evaluates to DOCA_ERROR_NO_MEMORY. The callers pass the code on without a word, so
 * each failed public call logs one line.
 */
#define CORE_LOG_NOMEM(call, what) \
	((void)CORE_LOG_ERR("%s: out of memory (%s)", (call), (what)), DOCA_ERROR_NO_MEMORY)
/* Allocations made so far, and whether FLOWDPA_FAULT_ALLOC's one has been failed. */
FLOWDPA_INTERNAL_API uint64_t core_alloc_count(void);
FLOWDPA_INTERNAL_API bool core_alloc_fault_fired(void);

/* ---------------------------------------------------------------- devices */

/* What an emulated device is and can do; fixed for the life of the process. */
struct core_dev_caps {
	uint32_t index; /* position in FLOWDPA_DEVICES; trace pid is index + 1 */
	enum core_device_model model;
	const char *model_name;
	uint32_t nr_ports;
	bool has_flow;
	bool has_dpa;
	uint32_t dpa_cores;
	uint32_t dpa_eus_per_core;
	uint64_t dpa_heap_size;
	uint32_t dpa_max_queues;     /* per provider queue type */
	uint32_t dpa_max_queue_size; /* entries, power of 2 */
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char ibdev_name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	char iface_name[32];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
};

/* NULL for NULL or for a pointer that is not a flowdpa device (checked by magic). */
FLOWDPA_INTERNAL_API const struct core_dev_caps *core_devinfo_caps(const struct doca_devinfo *devinfo);
FLOWDPA_INTERNAL_API const struct core_dev_caps *core_dev_caps(const struct doca_dev *dev);
/* Another DOCA object (owner) starts (hold) or stops (release) using an open device;
 * doca_dev_close returns IN_USE while holds remain, naming each holder by the short
 * description hold was given ("doca_flow port 0", "doca_dpa context 1"). */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t core_dev_hold(struct doca_dev *dev, const void *owner,
								   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
FLOWDPA_INTERNAL_API void core_dev_release(struct doca_dev *dev, const void *owner);

/* ---------------------------------------------------------------- trace events */

/* Set once at load when FLOWDPA_TRACE names a file; read on every traced path. */
FLOWDPA_INTERNAL_API extern _Atomic bool core_trace_active;
static inline bool core_trace_enabled(void)
{
	return __builtin_expect(atomic_load_explicit(&core_trace_active, memory_order_relaxed), 0);
}

/* Microseconds on the trace clock (CLOCK_MONOTONIC). */
FLOWDPA_INTERNAL_API uint64_t core_trace_now_us(void);
/*
 * Chrome/Perfetto trace events. pid 0 is the host program, pid index+1 an emulated
 * device; tid is the calling thread. args_json is NULL or a JSON object's text.
 */
FLOWDPA_INTERNAL_API void core_trace_complete(uint32_t pid, const char *cat, const char *name, uint64_t ts_us,
					      uint64_t dur_us, const char *args_json);
FLOWDPA_INTERNAL_API void core_trace_instant(uint32_t pid, const char *cat, const char *name, const char *args_json);
/* Name the calling thread (and its process row) in the trace. */
FLOWDPA_INTERNAL_API void core_trace_thread_name(uint32_t pid, const char *name);
/*
 * One complete event for a host DOCA call that began at t0 (core_trace_now_us()), on
 * pid 0, with its result in args ({"result":"DOCA_SUCCESS"}, a number, a pointer, or
 * nothing for a void function). The public doca_* functions get them from the wrappers
 * that src/core/trace_wrap.py generates; a variadic one, which cannot be wrapped, uses
 * CORE_TRACE_CALL_BEGIN() at entry and CORE_TRACE_CALL_END(cat, name, result) at its return.
 */
FLOWDPA_INTERNAL_API void core_trace_call_error(const char *cat, const char *name, uint64_t t0, doca_error_t result);
FLOWDPA_INTERNAL_API void core_trace_call_integer(const char *cat, const char *name, uint64_t t0, int64_t result);
FLOWDPA_INTERNAL_API void core_trace_call_pointer(const char *cat, const char *name, uint64_t t0, const void *result);
FLOWDPA_INTERNAL_API void core_trace_call_void(const char *cat, const char *name, uint64_t t0);
#define CORE_TRACE_CALL_BEGIN() uint64_t core_trace_call_t0 = core_trace_enabled() ? core_trace_now_us() : 0
#define CORE_TRACE_CALL_END(cat, name, result)                                      \
	do {                                                                         \
		if (core_trace_call_t0 != 0)                                          \
			core_trace_call_error(cat, name, core_trace_call_t0, result); \
	} while (0)
/* Name the calling thread in the trace (full name) and for the OS (gdb's `info
 * threads`, /proc/<pid>/task/<tid>/comm), which Linux cuts at 15 characters: os_name
 * is the short form. NULL leaves that name as it is. */
FLOWDPA_INTERNAL_API void core_thread_name(uint32_t pid, const char *trace_name, const char *os_name);
/* A counter track ("ph":"C") on pid: args_json holds the series, e.g. {"rx":10,"tx":9}. */
FLOWDPA_INTERNAL_API void core_trace_counter(uint32_t pid, const char *name, const char *args_json);
/* Write what is buffered; called at exit and from crash signals by core itself. */
FLOWDPA_INTERNAL_API void core_trace_flush(void);

/* ---------------------------------------------------------------- JSON writer */

struct core_json;
/* A writer that grows its own buffer. Out of memory is sticky (core_json_text then
 * returns NULL), and every call is a no-op on a NULL writer, so callers check once. */
FLOWDPA_INTERNAL_API struct core_json *core_json_new(void);
FLOWDPA_INTERNAL_API void core_json_free(struct core_json *j);
FLOWDPA_INTERNAL_API void core_json_object_begin(struct core_json *j);
FLOWDPA_INTERNAL_API void core_json_object_end(struct core_json *j);
FLOWDPA_INTERNAL_API void core_json_array_begin(struct core_json *j);
FLOWDPA_INTERNAL_API void core_json_array_end(struct core_json *j);
FLOWDPA_INTERNAL_API void core_json_key(struct core_json *j, const char *key);
FLOWDPA_INTERNAL_API void core_json_str(struct core_json *j, const char *value);
FLOWDPA_INTERNAL_API void core_json_u64(struct core_json *j, uint64_t value);
FLOWDPA_INTERNAL_API void core_json_i64(struct core_json *j, int64_t value);
FLOWDPA_INTERNAL_API void core_json_double(struct core_json *j, double value);
FLOWDPA_INTERNAL_API void core_json_bool(struct core_json *j, bool value);
/* Splice text that already is one valid JSON value (e.g. a rendered sub-object). */
FLOWDPA_INTERNAL_API void core_json_raw(struct core_json *j, const char *json);
/* The text so far; NULL after an allocation failure. */
FLOWDPA_INTERNAL_API const char *core_json_text(const struct core_json *j);
/* Escape one string (with quotes) into out; returns the length the whole string needs.
 * When it does not fit, out holds a shorter string that is still valid JSON. */
FLOWDPA_INTERNAL_API size_t core_json_escape(const char *in, char *out, size_t outlen);

/* ---------------------------------------------------------------- prefault */

/*
 * A lazily mapped table whose pages a background thread commits ahead of use
 * (prefault.c). The owner embeds it, starts it on the mapping, reports how far its use
 * got with core_prefault_at, and stops it before unmapping. Tables under 4 MiB are not
 * served (every call is then a no-op).
 */
#define PREFAULT_AHEAD ((size_t)4 << 20)
struct core_prefault {
	char *base;
	size_t size;
	_Atomic size_t want; /* commit [0, want): written under the service's lock */
	size_t done;	     /* committed up to here, service's lock */
	bool busy;	     /* the thread is committing a chunk of it */
	_Atomic bool registered;
	struct core_prefault *next;
};
/* Serve [base, base + size): commit up to want + PREFAULT_AHEAD now (SIZE_MAX for all
 * of it: a table touched at random), and later what core_prefault_at asks. */
FLOWDPA_INTERNAL_API void core_prefault_start(struct core_prefault *r, void *base, size_t size, size_t want);
/* Commit up to PREFAULT_AHEAD past offset upto. It takes the service's mutex and may
 * wake its thread, which can take the caller's CPU: not under a spin lock, or the
 * lock's other takers spin until the caller runs again. */
FLOWDPA_INTERNAL_API void core_prefault_want(struct core_prefault *r, size_t upto);
/* No more service; returns once the thread no longer touches the region. */
FLOWDPA_INTERNAL_API void core_prefault_stop(struct core_prefault *r);
/* The table's use reached byte offset: cheap, the service is asked (core_prefault_want,
 * not under a spin lock) once per chunk. */
static inline void core_prefault_at(struct core_prefault *r, size_t offset)
{
	size_t want = atomic_load_explicit(&r->want, memory_order_relaxed);
	if (atomic_load_explicit(&r->registered, memory_order_relaxed) && want < r->size &&
	    offset + PREFAULT_AHEAD / 2 > want)
		core_prefault_want(r, offset);
}

/* ---------------------------------------------------------------- spin locks */

/* One pause of a spin-wait loop: tells the core (and a hypervisor) that it spins. */
static inline void core_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/*
 * The wait of a spin loop: spins (core_cpu_relax) for its first CORE_SPIN_TRIES rounds,
 * then yields the CPU each round. A holder on another core is done within a few
 * microseconds, and a sched_yield is a system call each round (two adders on two cores
 * made thousands a second); a holder that was preempted, or is on a longer walk (a
 * pipe's destruction scanning the queues), needs the CPU the waiter would spin on.
 * round: how many times the caller waited so far.
 */
#define CORE_SPIN_TRIES 256
static inline void core_spin_wait(uint32_t round)
{
	if (round < CORE_SPIN_TRIES)
		core_cpu_relax();
	else
		sched_yield();
}

/*
 * A lock mostly held for a few dozen instructions by threads that rarely meet (a
 * queue's owner and, now and then, a control thread; adds on one pipe from two
 * queues): one exchange to take, one store to give back, where a mutex costs two
 * library calls. A taker that finds it held waits as core_spin_wait does.
 */
static inline void core_spin_lock(_Atomic uint32_t *l)
{
	uint32_t round = 0;
	while (atomic_exchange_explicit(l, 1, memory_order_acquire) != 0)
		while (atomic_load_explicit(l, memory_order_relaxed) != 0)
			core_spin_wait(round++);
}

static inline void core_spin_unlock(_Atomic uint32_t *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

/* ---------------------------------------------------------------- exit report */

struct core_report_section;
/* Fills one section: an object has been begun and will be ended by the caller. */
typedef void (*core_report_fn)(struct core_json *j, void *arg);

FLOWDPA_INTERNAL_API bool core_report_enabled(void);
/*
 * A named section of the FLOWDPA_REPORT file, produced by fn at exit. Unregister it when
 * the object behind it goes away: its final state is captured then, so destroyed
 * objects still appear; unregistering it again is a no-op. Both are no-ops (NULL)
 * when the report is off.
 */
FLOWDPA_INTERNAL_API struct core_report_section *core_report_register(const char *name, core_report_fn fn, void *arg);
FLOWDPA_INTERNAL_API void core_report_unregister(struct core_report_section *section);
/* Write the report now (it is written at exit anyway); DOCA_SUCCESS, writing nothing,
 * when off or in a forked child of the process that configured it. */
FLOWDPA_INTERNAL_API FLOWDPA_MUST_CHECK doca_error_t core_report_write(void);

#endif /* FLOWDPA_CORE_H_ */
