/*
 * dpa_internal.h - what the files of src/dpa share: the application-image layout that
 * dpacc generates, the context, the DPA process and its heap, launches and the DPA
 * threads (workers) that run them, and the per-thread execution record device code
 * reaches through TLS. Not for other layers (they use dpa.h).
 */
#ifndef FLOWDPA_DPA_INTERNAL_H_
#define FLOWDPA_DPA_INTERNAL_H_

#include <pthread.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FLOWDPA_DPA_NO_ARG_CHECK
#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "core/core.h"
#include "dpa/dpa.h"

#ifndef FLOWDPA_DPA_VERSION
#error "FLOWDPA_DPA_VERSION must be defined by the build (the project version)"
#endif

/* ------------------------------------------------------------ app image (dpacc output) */

/*
 * Must match the text tools/dpacc/dpacc.py.in writes into <app>.meta.c and each
 * source's stub; DPA_IMAGE_LAYOUT changes whenever either changes.
 */
#define DPA_IMAGE_MAGIC 0x3141504457464c46ULL /* "FLWDPA1" little-endian */
#define DPA_IMAGE_LAYOUT 1u
#define DPA_ENTRY_KERNEL 1u
#define DPA_ENTRY_RPC 2u
/* Bytes of packed arguments a launch or RPC carries inline (dpacc enforces it too). */
#define DPA_ARGS_MAX 2048u
/* Alignment of that buffer: an entry needing more is refused by doca_dpa_set_app. */
#define DPA_ARGS_ALIGN_MAX 64u

struct dpa_image_entry {
	const char *name;
	uint32_t kind;			    /* DPA_ENTRY_* */
	uint32_t nparams;		    /* declared parameters */
	void (*host_sym)(void);		    /* the device function; what &kernel gives the host */
	uint32_t args_size;		    /* sizeof the packed-argument struct */
	uint32_t args_align;		    /* its alignment */
	void (*pack)(void *buf, va_list *ap); /* va_arg each parameter with its declared type */
	uint64_t (*invoke)(const void *buf);  /* unpack, call, return the result (0 for void) */
};

struct doca_dpa_app {
	uint64_t magic;
	uint32_t layout;
	uint32_t nentries;
	const char *app_name;
	const char *dpacc_version;
	const struct dpa_image_entry *const *entries;
};

/* ------------------------------------------------------------ device heap */

/* A free extent (start, size), or a live allocation: size as requested, span what it
 * takes of the heap (rounded, plus the redzone under ASan), site the return address of
 * its doca_dpa_mem_alloc / dpa_heap_alloc call. */
struct dpa_extent {
	uintptr_t start;
	size_t size;
	size_t span;
	uintptr_t site;
};

/* One mapping; allocator metadata lives outside it so device overruns cannot corrupt it. */
struct dpa_heap {
	pthread_mutex_t lock;
	uint8_t *base;
	size_t size;	  /* what allocations may use in all (FLOWDPA_DPA_HEAP_SIZE) */
	size_t map_size; /* the mapping: size, or twice it under ASan for the redzones */
	struct dpa_extent *free_ext; /* sorted by start, coalesced */
	size_t nfree, free_cap;
	struct dpa_extent *live; /* sorted by start */
	size_t nlive, live_cap;
	size_t used, peak;
	struct dpa_heap *asan_next; /* dpa_asan.c's list of heaps */
};

#define DPA_HEAP_ALIGN 64u
/* Poisoned bytes after each allocation under ASan (when the mapping has room for them). */
#define DPA_HEAP_REDZONE 64u
_Static_assert(DPA_HEAP_REDZONE <= DPA_HEAP_ALIGN, "a redzone takes at most the room of its block");

FLOWDPA_MUST_CHECK doca_error_t dpa_heap_init(struct dpa_heap *heap, size_t size);
void dpa_heap_fini(struct dpa_heap *heap);
/* Bytes in use, the peak, and live allocations, read under the heap lock. */
void dpa_heap_usage(struct dpa_heap *heap, size_t *used, size_t *peak, size_t *nlive);
/* The live allocations starting at or before addr and after it (span 0: none). Caller holds the lock. */
void dpa_heap_neighbours_locked(const struct dpa_heap *heap, uintptr_t addr, struct dpa_extent *before,
				struct dpa_extent *after);

/* ASan on the device heap when the process runs under ASan, else no-ops (dpa_asan.c). */
bool dpa_asan_active(void);
void dpa_asan_poison(uintptr_t addr, size_t size);
void dpa_asan_unpoison(uintptr_t addr, size_t size);
void dpa_asan_heap_register(struct dpa_heap *heap);
void dpa_asan_heap_unregister(struct dpa_heap *heap);

/* ------------------------------------------------------------ wake words (dpa_wake.c) */

/* One thing threads wait for: a futex sequence, and how many sleep on it right now. */
struct dpa_wake {
	atomic_uint seq;
	atomic_uint sleepers;
};

/* What a sleeper saw before re-checking its condition (its word's and the broadcast's). */
struct dpa_wake_snap {
	uint32_t seq, bcast;
};

/* Snapshot for dpa_wake_wait; taken before re-checking the condition waited for. */
struct dpa_wake_snap dpa_wake_snapshot(struct dpa_wake *w);
/* The condition behind w changed: wake its sleepers (no syscall when none sleeps). */
void dpa_wake(struct dpa_wake *w);
/* Sleep until w is woken or a broadcast happens after snap, or timeout_us passes (0: none). */
void dpa_wake_wait(struct dpa_wake *w, struct dpa_wake_snap snap, uint64_t timeout_us);
/* Wake every sleeper on every word: for conditions any waiter checks (cancel, destroy, stop). */
void dpa_wake_all(void);
/*
 * Spin-then-sleep (dpa_wake.c). A wait site (an event's waiters, an EU worker waiting
 * for its next instance) spins up to DPA_SPIN_NS before it sleeps, so a wait that ends
 * within about one futex wake-up costs no sleep and, since the other side then finds
 * nobody asleep, no wake syscall either. Spinning pays only while whoever ends the wait
 * runs on another CPU: a site keeps a debt that a spin in vain raises by
 * DPA_SPIN_MISS_COST and a successful one lowers by 1; at DPA_SPIN_DEBT_MAX the site is
 * cold and sleeps at once, but for a short probe every DPA_SPIN_PROBE_EVERY waits that
 * finds out when spinning pays again. So waits much longer than a spin (a 16-thread
 * launch on 2 CPUs, a long kernel) and waits for a thread on this same CPU (which cannot
 * run while this one spins) cost almost no spinning. No sched_yield in the spin: it
 * hands the CPU to other processes for a whole slice, and two threads sharing a CPU
 * then take turns through it more slowly than through a futex.
 */
struct dpa_spin {
	atomic_uint state; /* debt (low 16 bits), probe counter (high 16 bits) */
};

#define DPA_SPIN_NS 1000u
#define DPA_SPIN_MISS_COST 4u
#define DPA_SPIN_DEBT_MAX 16u
#define DPA_SPIN_PROBE_NS 500u
#define DPA_SPIN_PROBE_EVERY 8u

/* Nanoseconds on CLOCK_MONOTONIC. */
uint64_t dpa_now_ns(void);
/* Spin while !done(arg), as s's record allows. true: done; false: the caller sleeps. */
bool dpa_spin(struct dpa_spin *s, bool (*done)(const void *arg), const void *arg);

/* The launch dispatchers' word: a launch was queued, a queued launch's wait event or a
 * DPA thread it needs changed, or a stop/destroy changed what may start. */
extern struct dpa_wake dpa_dispatch_wake;

/* ------------------------------------------------------------ process and context */

#define DPA_MAGIC 0x646f63615f647061ULL	    /* "doca_dpa" */
#define DPA_PROCESS_MAGIC 0x666c6578696f7072ULL /* "flexiopr" */
#define DPA_DEV_HANDLE_TAG 0xd9a0000000000000ULL

struct flexio_process {
	uint64_t magic;
	struct doca_dpa *dpa;
	_Atomic uint32_t holds; /* dpa_process_hold by the provider */
	struct dpa_heap heap;
};

struct dpa_worker;

struct dpa_launch {
	struct dpa_launch *next; /* free list or pending queue */
	const struct dpa_image_entry *entry;
	struct doca_sync_event *wait_event;
	struct doca_sync_event *comp_event;
	uint64_t wait_threshold;
	uint64_t comp_count;
	unsigned int num_threads;
	bool add;
	atomic_uint remaining; /* instances still running */
	atomic_bool faulted;
	_Alignas(DPA_ARGS_ALIGN_MAX) unsigned char args[DPA_ARGS_MAX];
};

enum dpa_state {
	DPA_STATE_CREATED,
	DPA_STATE_STARTED,
};

/* Extended contexts one context may have at a time. */
#define DPA_MAX_EXTENSIONS 16u
/* Launch records per context; a launch beyond this many in flight gets DOCA_ERROR_FULL. */
#define DPA_LAUNCH_POOL 1024u

struct doca_dpa {
	uint64_t magic;
	uint32_t id;
	struct doca_dev *dev;
	const struct core_dev_caps *caps;
	/* Written under lock (start/stop); launch and RPC admission read it under lock, other
	 * calls read it without (atomic: no data race with a concurrent stop). */
	_Atomic(enum dpa_state) state;
	const struct doca_dpa_app *app;
	doca_dpa_dev_log_level_t log_level;
	char log_path[CORE_PATH_MAX];
	FILE *log_file; /* opened at start when log_path is set */
	unsigned int cores, eus_per_core, total_eus;
	struct flexio_process process;
	struct doca_dpa *base;	  /* extended context (doca_dpa_device_extend): the one it extends */
	uint32_t ext_ids[DPA_MAX_EXTENSIONS]; /* base: ids of its live extended contexts (0 = free) */
	atomic_uint nextensions;
	atomic_uint users;	  /* sync events that name this context */
	atomic_uint thread_users; /* DPA threads, notification completions, affinities */
	struct dpa_wake drain;	  /* a launch completed or was cancelled (stop/destroy wait for it) */

	pthread_mutex_t lock; /* state changes, launch pool, pending queue, workers, RPC count */
	struct dpa_launch *launch_pool;
	struct dpa_launch *free_launches;
	struct dpa_launch *pending_head, *pending_tail;
	unsigned int inflight; /* launches accepted and not complete (queued ones included) */
	unsigned int queued;   /* of those, still in the pending queue */
	unsigned int rpcs;     /* RPCs running now (on their callers' threads) */
	atomic_uint work; /* EU workers sleep here, each on its own bit (dpa_launch.c) */
	struct dpa_worker **workers;
	unsigned int nworkers;
	struct dpa_worker *idle;
	unsigned int nidle;
	pthread_t dispatcher;
	bool dispatcher_running;
	bool stopping;	  /* committed: no launch or RPC is admitted, dispatcher and workers exit */
	atomic_bool cancel; /* device waits end their instance (destroy); queued launches stay */

	atomic_int fatal; /* 0 until a device fatal error */
	char fatal_msg[256];

	/* statistics, for the report */
	atomic_uint_fast64_t nr_launches, nr_instances, nr_rpcs, nr_faults;
	struct core_report_section *report;
};

/* ------------------------------------------------------------ execution */

enum dpa_end {
	DPA_END_RETURN = 0,
	DPA_END_FAULT = 1, /* a signal */
	DPA_END_FINISH = 2, /* doca_dpa_dev_thread_finish */
	DPA_END_FATAL = 3, /* the device API found an invalid argument */
	DPA_END_CANCEL = 4, /* context destroyed while waiting */
	DPA_END_RESCHEDULE = 5, /* doca_dpa_dev_thread_reschedule */
};

/* What the thread running device code is doing; reached from device API calls. */
struct dpa_exec {
	struct doca_dpa *dpa;
	const struct dpa_image_entry *entry;
	unsigned int rank, num_threads;
	uint64_t local_storage;	   /* DPA threads: doca_dpa_thread_set_local_storage */
	const atomic_int *stop; /* DPA threads: nonzero while the thread is being stopped or destroyed */
	sigjmp_buf jmp;
	volatile sig_atomic_t armed;
	volatile int sig;
	void *volatile fault_addr;
	/* The handle-table slot a device API call holds (dpa_htab_get); released by
	 * dpa_exec_run when the instance ends inside that call (a fault, a fatal error). */
	atomic_uint *volatile held_users;
	char fatal_msg[160];
};

extern __thread struct dpa_exec *dpa_exec_current __attribute__((tls_model("initial-exec")));

/* Run entry with args on the calling thread as instance rank of num_threads; fills *result. */
enum dpa_end dpa_exec_run(struct dpa_exec *exec, const void *args, uint64_t *result);
/* Record a fault/fatal end of an instance on its context and log it (once per context). */
void dpa_exec_report_end(struct dpa_exec *exec, enum dpa_end end);
/*
 * Install the crash-signal handler, chaining to the previous one (dpa_signal.c). Called
 * by doca_dpa_create only, never on the launch/RPC path: it re-installs the handler if
 * another one replaced it since (a test framework, the application).
 */
void dpa_signals_install(void);
/* Give the calling thread an alternate signal stack if it has none (RPC callers; once per thread). */
void dpa_thread_altstack(void);
/*
 * Name the calling DPA thread after what it runs: "dpa:<func>/<unit>" in the trace and,
 * cut to Linux's 15 characters with the unit kept ("dpa:kern/3"), for the OS, so gdb's
 * `info threads` shows it. unit is the rank of a kernel instance or "t<id>" of a DPA
 * thread object. Called when the function or unit changes, not per run.
 */
void dpa_name_thread(const struct doca_dpa *dpa, const char *func, const char *unit);

/* Launch machinery (dpa_launch.c), used by start/stop/destroy in dpa_ctx.c. */
FLOWDPA_MUST_CHECK doca_error_t dpa_exec_start(struct doca_dpa *dpa);

enum dpa_stop_result {
	DPA_STOP_DONE,	  /* stopped: dispatcher and workers gone, launch records freed */
	DPA_STOP_BUSY,	  /* not stopped: launches in flight (stop) or RPCs running */
	DPA_STOP_TIMEOUT, /* not stopped: kernels still running after the bounded wait (destroy) */
};

struct dpa_stop_counts {
	unsigned int inflight; /* launches not complete, queued ones included */
	unsigned int running;  /* of those, started */
	unsigned int rpcs;     /* RPCs running */
};

/*
 * Stop the launch machinery. wait_ms == 0 (doca_dpa_stop): BUSY unless no launch is in
 * flight and no RPC runs. Otherwise (destroy): BUSY while an RPC runs; waits up to
 * wait_ms for in-flight launches, then ends device waits and waits a little more for
 * running kernels (TIMEOUT, everything kept, queued launches included, if some still
 * run); launches still queued are cancelled only once the stop has committed.
 * The decision and the commit are one locked section: no launch or RPC slips in between.
 */
enum dpa_stop_result dpa_exec_stop(struct doca_dpa *dpa, unsigned int wait_ms, struct dpa_stop_counts *counts);
/* The entry point of the context's app whose host symbol is func, or NULL. */
const struct dpa_image_entry *dpa_find_entry(const struct doca_dpa *dpa, doca_dpa_func_t *func);
/* Alternate signal stack size for host threads that run device code. */
#define DPA_ALTSTACK_SIZE (64u << 10)

/* The context is valid (magic) — used by every entry point. */
static inline bool dpa_valid(const struct doca_dpa *dpa)
{
	return dpa != NULL && dpa->magic == DPA_MAGIC;
}

/* INVALID_VALUE with one log line naming func when dpa is NULL or not a context. */
FLOWDPA_MUST_CHECK doca_error_t dpa_check(const struct doca_dpa *dpa, const char *func);
/* INVALID_VALUE with one log line naming the caller and the argument when ptr is NULL. */
#define DPA_CHECK_NULL(ptr)                                                 \
	do {                                                                \
		if ((ptr) == NULL) {                                        \
			CORE_LOG_ERR("%s: %s is NULL", __func__, #ptr);     \
			return DOCA_ERROR_INVALID_VALUE;                    \
		}                                                           \
	} while (0)
/* DOCA_SUCCESS if devinfo's device has a DPA, NOT_SUPPORTED if not, INVALID_VALUE (logged) if no devinfo. */
FLOWDPA_MUST_CHECK doca_error_t dpa_devinfo_check(const struct doca_devinfo *devinfo, const char *func);
/* Dispatcher and set_addr waits re-check this often: plain stores to user memory wake nobody. */
#define DPA_DISPATCH_POLL_US 1000u

/* The context that runs things for dpa: itself, or the base of an extended context. */
static inline struct doca_dpa *dpa_base(struct doca_dpa *dpa)
{
	return dpa->base ? dpa->base : dpa;
}

/* ------------------------------------------------------------ sync events (dpa_sync_event.c) */

/* Value of a started event (for launch eligibility), and completion updates. */
bool dpa_sync_event_usable(const struct doca_sync_event *event);
uint64_t dpa_sync_event_value(const struct doca_sync_event *event);
void dpa_sync_event_complete(struct doca_sync_event *event, bool add, uint64_t value);
/*
 * A launch names the event as wait or completion event: destroy refuses it (IN_USE)
 * until the launch drops it (wait: when it starts or is cancelled; completion: after
 * signalling, or when cancelled or faulted). NULL is accepted and ignored. wait: the
 * launch's wait event, not started yet: its updates then also wake the dispatchers.
 */
void dpa_sync_event_launch_ref(struct doca_sync_event *event, bool wait);
void dpa_sync_event_launch_unref(struct doca_sync_event *event, bool wait);
/* Signal a launch's completion event (as dpa_sync_event_complete) and drop its reference. */
void dpa_sync_event_launch_signal(struct doca_sync_event *event, bool add, uint64_t value);

/* ------------------------------------------------------------ handle tables (dpa_handle.c) */

struct dpa_htab {
	uint64_t tag; /* top byte of every handle of this table */
	uint32_t nslots;
	pthread_mutex_t lock; /* publish/unpublish */
	uint32_t next;	      /* under lock: where the next free-slot search starts */
	_Atomic(void *) *slots;
	atomic_uint *users; /* lookups holding the slot */
	atomic_uint *gen;
	struct dpa_wake wake; /* a lookup let go of an unpublished slot */
};

/* A table of n slots in static storage (lookups may race with unpublish: never freed). */
#define DPA_HTAB_DEFINE(name, tag_value, n)                                                   \
	static _Atomic(void *) name##_slots[n];                                                \
	static atomic_uint name##_users[n];                                                    \
	static atomic_uint name##_gen[n];                                                      \
	static struct dpa_htab name = {(tag_value), (n), PTHREAD_MUTEX_INITIALIZER, 0, name##_slots, \
				       name##_users, name##_gen, {0, 0}}

/* Put obj in a free slot; false when the table is full. */
bool dpa_htab_publish(struct dpa_htab *tab, void *obj, uint32_t *slot, uint64_t *handle);
/*
 * Make the slot's handles stale, then wait up to timeout_ms for lookups to end. false:
 * some remain, and the slot has been restored (same object, same handles) under the
 * table lock, in the section that saw them, so no publish can have taken it meanwhile.
 */
bool dpa_htab_unpublish(struct dpa_htab *tab, uint32_t slot, unsigned int timeout_ms);
/* The object behind handle, counted as used until dpa_htab_put; NULL if stale or forged. */
void *dpa_htab_get(struct dpa_htab *tab, uint64_t handle, uint32_t *slot);
void dpa_htab_put(struct dpa_htab *tab, uint32_t slot);

/* True in device code whose context is being destroyed (see dpa_dev_check_cancel). */
bool dpa_dev_cancelled(void);

/* Microseconds on CLOCK_MONOTONIC. */
uint64_t dpa_now_us(void);

#endif /* FLOWDPA_DPA_INTERNAL_H_ */
