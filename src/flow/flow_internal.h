/*
 * flow_internal.h - the objects behind DOCA Flow's opaque handles and the helpers the
 * flow translation units share. The datapath state itself lives in the NIC (src/nic);
 * these objects hold what DOCA Flow adds: configuration copies, entry queues and
 * completion callbacks, template translation.
 */
#ifndef FLOWDPA_FLOW_INTERNAL_H_
#define FLOWDPA_FLOW_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>

#include <doca_flow.h>

#include <core/core.h>
#include <nic/nic.h>

#include "flow_provider.h"

#define FLOW_PORT_MAGIC 0x66706f72u  /* "fpor" */
#define FLOW_PORT_DEAD 0x66706464u   /* "fpdd": stopped, kept until doca_flow_destroy */
#define FLOW_PIPE_MAGIC 0x66706970u  /* "fpip" */
#define FLOW_PIPE_DEAD 0x66646561u   /* "fdea" */
#define FLOW_ENTRY_MAGIC 0x66656e74u /* "fent" */
#define FLOW_ENTRY_DEAD 0x66646e74u
#define FLOW_ENTRY_BUSY 0x66627379u /* "fbsy": a pool slot being filled by an add */
#define FLOW_EXTRES_MAGIC 0x66657872u /* "fexr" */
#define FLOW_MAX_ACTIONS 8
#define FLOW_MAX_QUEUES 256
#define FLOW_DEFAULT_NR_ENTRIES 8192
#define FLOW_DEFAULT_SHARED_COUNTERS 1024
#define FLOW_PIPE_CHUNK 4096 /* pipe ids per chunk of flow_g.pipe_dir */
#define FLOW_PIPE_DIR 1024   /* chunks: at most 4M pipes per DOCA Flow session */

struct doca_flow_cfg {
	uint16_t pipe_queues;
	bool switch_mode;
	uint32_t nr_counters;
	uint32_t nr_shared[DOCA_FLOW_SHARED_RESOURCE_IPSEC_SA + 1];
	enum doca_flow_resource_mode resource_mode;
	doca_flow_entry_process_cb entry_cb;
	doca_flow_pipe_process_cb pipe_cb;
};

struct doca_flow_port_cfg {
	bool has_port_id;
	uint16_t port_id;
	bool has_dev, has_dev_rep;
	bool devargs_dev;	    /* devargs named a device (doca_flow_port_cfg_set_devargs) */
	uint32_t devargs_dev_index; /* its index in the emulated inventory */
	struct doca_dev *dev;
	struct doca_dev_rep *dev_rep;
	uint16_t priv_data_size;
	uint32_t nr_resources[DOCA_FLOW_RESOURCE_IPSEC_SA + 1];
};

enum flow_op_type {
	FLOW_OP_ADD,
	FLOW_OP_UPD, /* a DEL has no record: struct flow_queue */
};

/*
 * A queued operation's kind. ADD and UPD records (flow_queue.h's per-thread cache) start
 * with it and name their entry; a DEL is the entry itself, queued as its address with
 * the low bit set (flow_queue.h, struct flow_queue), so an entry needs no room for one.
 */
struct flow_op {
	enum flow_op_type type;
};

/* An add carries what it will insert into the NIC; freed once it has run. */
struct flow_add_op {
	struct flow_op op;
	struct doca_flow_pipe_entry *entry;
	uint32_t aging_sec; /* 0: the entry does not age (flow_aging.c) */
	int32_t shared_id;  /* the shared counter it holds a reference on, or -1 */
	struct nic_entry_attr attr;
};

/* An update carries its new state. */
struct flow_upd_op {
	struct flow_op op;
	struct doca_flow_pipe_entry *entry;
	struct nic_actions actions;
	uint32_t ps_value;
	struct nic_fwd fwd;
};

/*
 * A batch of a queue's operations taken off it by doca_flow_entries_process and being
 * executed, on that call's stack: it stays on the queue's list (under its lock) so that
 * flow_queue_drop_pipe drops a destroyed pipe's operations from it too. Its items are
 * read and written under the queue's lock only: whoever zeroes an item there owns it
 * (flow_queue.c, claim_run). A batch's adds into one pipe are one NIC call,
 * which meets the other queues' adders on the pipe's shared lines once
 * (nic_entry_add_bulk): with 256 rather than 32, and the NIC's bursts of 128, two queues
 * filling one pipe went from about 1.2x to 1.4x one queue (docs/flow.md). The batch and
 * its arrays take about 13 KiB of the caller's stack.
 */
#define FLOW_PROC_BATCH 256
struct flow_batch {
	uintptr_t it[FLOW_PROC_BATCH];
	uint32_t n;
	struct flow_batch *up;
};

/* One queue's share of a pipe's entry count (struct doca_flow_pipe, live): its adds,
 * counted by the push under the queue's lock (a plain store, where an atomic add on
 * every add drained the store buffer), and its removals, processed by whichever thread
 * processes the queue (an atomic add). */
struct flow_live_shard {
	_Alignas(64) _Atomic uint32_t added;
	_Atomic uint32_t removed;
};

/* A FIFO of operations: a ring of words, an ADD/UPD record's address or, low bit set,
 * an entry to delete; grown (doubled) under the lock when full. A line of its own:
 * each queue is usually driven by a thread of its own, whose lock and ring words must
 * not bounce with its neighbour's on every push. */
struct flow_queue {
	_Alignas(64) _Atomic uint32_t lock; /* core_spin_lock */
	uintptr_t *ring;
	uint32_t head, cap; /* cap: a power of two, or 0 before the first push */
	struct flow_batch *batches; /* being executed, innermost first */
	_Atomic uint32_t pending;   /* see flow_queue_pending */
};

/* Refuse a call: one error line (the caller's log source) and the code. */
#define CHECK(cond, err, ...) \
	do { \
		if (!(cond)) { \
			CORE_LOG_ERR(__VA_ARGS__); \
			return err; \
		} \
	} while (0)

struct flow_shared_counter {
	bool allocated;
	bool configured;
	uint32_t refs;
	struct nic_counter cnt;
};

struct doca_flow_port {
	uint32_t magic;
	uint16_t id;
	bool started;
	bool is_manager; /* switch mode: started with set_dev */
	struct doca_flow_port *manager; /* switch mode, representor: its manager at start (or NULL) */
	struct doca_dev *dev;
	uint8_t *priv;
	struct doca_flow_port *pair;
	struct flow_queue *queues;
	uint16_t nr_queues;
	struct doca_flow_pipe *pipes; /* live pipes of the port */
	uint32_t nr_shared_counters;
	struct flow_shared_counter *shared_counters;
	uint64_t start_seq;
	struct core_report_section *report;
	struct flow_aging *aging; /* entries with aging_sec (flow_aging.c); NULL until the first */
	_Atomic uint32_t resizes_pending; /* pipes resized, RESIZED not yet delivered (flow_resize.c) */
	struct doca_flow_port *dead_next; /* stopped: flow_g.dead_ports */
};

/* FLOWDPA_REPORT section of a pipe: its counters and top entries by hits (flow.c). */
void flow_pipe_report(struct core_json *j, void *arg);

struct doca_flow_external_resource_cfg {
	struct doca_flow_port *port;
	uint64_t gen; /* the DOCA Flow session (flow_g.gen) of port */
	bool has_type;
	enum doca_flow_external_resource_type type;
	uint32_t size;
};

struct doca_flow_external_resource {
	uint32_t magic;
	enum doca_flow_external_resource_type type;
	struct doca_flow_port *port;
	uint32_t size;
	uint32_t bound; /* live pipes using it */
	uint32_t cfg_held; /* pipe cfgs it is set on (doca_flow_pipe_cfg_set_external_resource) */
	struct flow_export *exports; /* provider exports holding it */
	struct nic_idxsel *sel;
	struct nic_mem *mem;
	struct doca_flow_external_resource *next;
};

#define FLOW_ACT_ROWS 16 /* rewritable doca_flow_actions fields (flow_match.c) */

/* A translated action template: fixed rewrites plus the fields each entry supplies. */
struct flow_act_tmpl {
	struct nic_actions fixed;
	uint32_t chg_fields;
	int nr_chg;
	uint8_t chg_rows[FLOW_ACT_ROWS]; /* the nr_chg changeable fields, so an entry visits only them */
	int single_chg; /* the one changeable field when nr_chg == 1 */
	bool v6;	/* the template rewrites IPv6 (not IPv4) fields */
};

struct flow_descs_copy; /* flow_field.h */

struct doca_flow_pipe_cfg {
	struct doca_flow_port *port;
	char name[64];
	enum doca_flow_pipe_type type;
	enum doca_flow_pipe_domain domain;
	bool is_root;
	uint32_t nr_entries;
	bool has_match;
	bool match_is_null;
	struct doca_flow_match match;
	bool has_match_mask;
	struct doca_flow_match match_mask;
	uint32_t nr_actions;
	struct doca_flow_actions actions[FLOW_MAX_ACTIONS];
	bool actions_null[FLOW_MAX_ACTIONS];
	bool has_actions_mask[FLOW_MAX_ACTIONS];
	struct doca_flow_actions actions_mask[FLOW_MAX_ACTIONS];
	struct flow_descs_copy *descs; /* per action template (flow_desc.c), or NULL: none */
	bool has_monitor;
	struct doca_flow_monitor monitor;
	bool miss_counter;
	void *user_ctx;
	uint32_t hash_alg;
	/* Resize (flow_resize.c). */
	bool is_resizable;
	uint8_t congestion_threshold; /* percent, 0: none */
	uint64_t excluded_queues[FLOW_MAX_QUEUES / 64];
	/* Each holds a cfg_held reference, released by doca_flow_pipe_cfg_destroy. */
	struct doca_flow_external_resource *idxsel;
	struct doca_flow_external_resource *mem;
	/* The DOCA Flow session (flow_g.gen) of the cfg: port and resources died with an
	 * earlier one. */
	uint64_t gen;
};

/* A pipe's resize state (flow_resize.c); the fields after threshold under flow_g.lock. */
struct flow_pipe_resize {
	bool resizable;
	uint8_t threshold;     /* congestion level in percent, 0: never notified */
	_Atomic bool congested; /* CONGESTION_REACHED delivered, no resize since */
	bool pending;	       /* resized: relocations and RESIZED wait for doca_flow_entries_process */
	doca_flow_pipe_resize_nr_entries_changed_cb nr_cb;
	doca_flow_pipe_resize_entry_relocate_cb reloc_cb;
	uint64_t excluded[FLOW_MAX_QUEUES / 64];
};

/* A BASIC pipe's compiled per-entry match translation (flow_match_compile): for each
 * selector combination (IPv4/IPv6 x transport/TCP/UDP/ICMP), the field copies from
 * struct doca_flow_match into struct nic_key that meet the pipe's entry mask. */
#define FLOW_MATCH_MAX_COPIES 28
struct flow_match_copy {
	uint16_t doff;
	uint8_t koff;
	uint8_t len;
	uint8_t enum8; /* a 32-bit enum carried as its low byte */
	uint8_t bit;   /* 1 + the key bit a 0/1 flag sets (several share a byte), or 0 */
};
struct flow_match_prog {
	uint8_t n[2][4];
	bool l3_sel; /* the L3 meta byte is matched: l3_type sets it */
	struct flow_match_copy c[2][4][FLOW_MATCH_MAX_COPIES];
};

struct doca_flow_pipe {
	uint32_t magic;
	uint32_t id; /* in flow_g.pipe_dir */
	struct doca_flow_port *port;
	struct nic_pipe *nic;
	struct core_report_section *report; /* "flow_pipe" (flow.c), captured at destroy */
	enum doca_flow_pipe_type type;
	char name[64];
	bool is_root;
	bool egress;
	uint32_t nr_entries;
	uint32_t nr_actions;
	struct flow_act_tmpl act[FLOW_MAX_ACTIONS];
	int ps_field;
	struct flow_match_prog mprog; /* BASIC */
	bool has_fwd;
	struct doca_flow_fwd fwd;
	struct nic_fwd fixed_fwd;
	bool fwd_fixed;
	bool counter_per_entry;
	bool counter_shared_fixed;
	bool counter_shared_per_entry;
	uint32_t shared_counter_id;
	bool miss_counter;
	uint32_t aging_sec; /* the monitor's: fixed for every entry, UINT32_MAX per entry, 0 none */
	void *user_ctx;	    /* doca_flow_pipe_cfg_set_user_ctx: pipe and resize callbacks get it */
	struct flow_pipe_resize resize;
	struct doca_flow_external_resource *idxsel;
	struct doca_flow_external_resource *mem;
	struct flow_export *exports; /* provider exports holding it */
	/* Entries added and not yet removed (queued ones included), counted per queue on a
	 * line each (queues are usually threads of their own: one shared word bounced on
	 * every add); the sum, modulo 2^32, is the count (flow_pipe_live). */
	struct flow_live_shard *live;
	uint32_t nr_live_shards; /* the port's queues when the pipe was created */
	struct flow_heap_entry *entries; /* heap entries (pool entries are not linked) */
	/* HASH: one entry object per index, so an add allocates nothing (flow_entry_pool_*);
	 * BASIC: nr_entries objects handed out in order (pool_used), then from pool_free
	 * (linked through their usr_ctx field, under pool_lock). pool_n objects are mapped:
	 * nr_entries, or what a resizable BASIC pipe reserved (flow_resize_reserve), which
	 * a resize may raise nr_entries to. */
	struct doca_flow_pipe_entry *pool;
	void *pool_mem;
	uint32_t pool_n;
	uint64_t pool_gen; /* unique to this pool: names it in the threads' runs (pool_take) */
	struct doca_flow_pipe *port_next;
	struct doca_flow_pipe *all_next;
	/* Written while adds run, on lines apart from what every add reads above (queues
	 * adding from several threads would otherwise take those lines from each other). */
	_Alignas(64) _Atomic uint32_t pool_used;
	_Atomic(struct doca_flow_pipe_entry *) pool_free;
	pthread_mutex_t pool_lock;
	_Alignas(64) struct core_prefault pool_pf; /* objects committed ahead of use (prefault.c) */
};

/*
 * A HASH pipe's entry at index i is pool[i] unless that slot is still taken (an add at
 * an occupied index, or one queued before the old entry's DEL ran): then it comes from
 * the heap like other pipes' entries (struct flow_heap_entry, which adds
 * the pipe's list links). magic is also the slot's state: 0 / DEAD free, BUSY being
 * filled, MAGIC live; an add claims a free slot with one compare-exchange. A BASIC
 * pipe's entries come from its pool too (pool_take: in order, then freed ones), from
 * the heap only once nr_entries handles are in use (adds queued beyond the pipe's size,
 * which complete with ERROR).
 *
 * 24 bytes (issue 13: with the NIC's 16-byte HASH entry, 40 bytes an entry): the pipe
 * is named by id, the NIC entry by its slot, the shared counter by the NIC entry's
 * state (flow_entry_shared_id), and a DEL needs no record (struct flow_queue).
 */
struct doca_flow_pipe_entry {
	_Atomic uint32_t magic;
	/* Operations queued and executed: while any is pending (queued != done) all are on
	 * ops_queue, so the entry's DEL always runs last. Each count has one writer at a
	 * time (queued: the producer holding the queue's lock; done: the thread processing
	 * the queue), so neither needs a locked read-modify-write on the insertion path.
	 * 8 bits: at most FLOW_ENTRY_MAX_PENDING pending, fewer than a DOCA queue's depth. */
	_Atomic uint8_t ops_queued;
	_Atomic uint8_t ops_done;
	uint8_t ops_queue;     /* < FLOW_MAX_QUEUES */
	_Atomic uint8_t flags; /* FLOW_EF_STATUS (enum doca_flow_entry_status), FLOW_EF_* */
	union {
		uint32_t index;	   /* HASH: the index, which is also its NIC slot */
		uint32_t nic_slot; /* BASIC: the NIC entry's slot, once added */
		uint32_t priority; /* CONTROL (its NIC entry: struct flow_heap_entry) */
	};
	uint32_t pipe_id; /* flow_entry_pipe() */
	void *usr_ctx;
};
_Static_assert(sizeof(struct doca_flow_pipe_entry) == 24, "an entry handle is 24 bytes");
_Static_assert(FLOW_MAX_QUEUES <= 256, "ops_queue is 8 bits");
#define FLOW_ENTRY_MAX_PENDING 255u
#define FLOW_EF_STATUS 3u     /* the bits of enum doca_flow_entry_status */
#define FLOW_EF_DEL_QUEUED 4u /* its DEL is queued */
#define FLOW_EF_IN_NIC 8u     /* its NIC entry exists: added, not yet removed */
_Static_assert(DOCA_FLOW_ENTRY_STATUS_ERROR <= FLOW_EF_STATUS, "status in two bits");

static inline enum doca_flow_entry_status flow_entry_status(const struct doca_flow_pipe_entry *e)
{
	return (enum doca_flow_entry_status)(atomic_load_explicit(&e->flags, memory_order_relaxed) & FLOW_EF_STATUS);
}

static inline bool flow_entry_has(const struct doca_flow_pipe_entry *e, uint8_t flag)
{
	return atomic_load_explicit(&e->flags, memory_order_relaxed) & flag;
}

/* Set or clear flag bits, or (mask FLOW_EF_STATUS) set the status to val. */
static inline void flow_entry_flags_set(struct doca_flow_pipe_entry *e, uint8_t mask, uint8_t val)
{
	uint8_t f = atomic_load_explicit(&e->flags, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&e->flags, &f, (uint8_t)((f & ~mask) | (val & mask)),
						      memory_order_relaxed, memory_order_relaxed))
		;
}

/* An entry of a CONTROL pipe, or of a BASIC or HASH pipe whose pool had no free slot. */
struct flow_heap_entry {
	struct doca_flow_pipe_entry e; /* first: the handle is the object's address */
	struct flow_heap_entry *next, *prev;
	struct nic_entry *nic; /* CONTROL: its NIC entry (FLOW_EF_IN_NIC); others find theirs by slot */
};

/* Entry objects (flow_entry.c). flow_entry_nic: an entry's NIC entry, or NULL while it
 * has none. flow_entry_valid: a live entry handle (logs one line naming who if not).
 * flow_entry_release: the end of an entry object (its slot back to the pool, or its
 * memory freed). flow_entry_forget: a removed entry, processed on queue q, leaves its
 * pipe's count, list (heap entries) and shared counter; before its release. */
struct nic_entry *flow_entry_nic(const struct doca_flow_pipe_entry *e);
bool flow_entry_valid(const struct doca_flow_pipe_entry *e, const char *who);
void flow_entry_release(struct doca_flow_pipe_entry *e);
void flow_entry_forget(struct doca_flow_pipe_entry *e, uint16_t q);
/* Give the new pipe its id (flow_g.pipe_dir), under flow_g.lock; NO_MEMORY or FULL. */
FLOWDPA_MUST_CHECK doca_error_t flow_pipe_id_assign(struct doca_flow_pipe *p, const char *who);
/* doca_flow_destroy: forget every pipe id. */
void flow_pipe_ids_free(void);

/*
 * An export hold (flow_provider.h), linked on its object's exports list under
 * flow_g.lock. The NIC pointers are what a burst uses; detaching clears them under the
 * export's lock, so a burst sees all of them or none.
 */
struct flow_export {
	pthread_mutex_t lock;
	struct doca_flow_pipe *pipe;		 /* pipe exports; NULL once detached */
	struct doca_flow_external_resource *res; /* resource exports; NULL once detached */
	struct nic_pipe *nic;
	struct nic_idxsel *sel;
	struct nic_mem *mem;
	struct flow_export_info info;
	char name[64];
	char holder[48];
	struct flow_export *next;
};

/* Under flow_g.lock: detach every export of a list (the object is going), logging one
 * WARNING per export that names its holder and why. */
void flow_export_detach_all(struct flow_export **list, const char *why);
/* Under flow_g.lock: how many exports a list holds. */
uint32_t flow_export_count(const struct flow_export *list);

struct flow_global {
	pthread_mutex_t lock;
	bool inited;
	struct doca_flow_cfg cfg;
	struct doca_flow_port *ports[NIC_MAX_PORTS];
	struct doca_flow_pipe *all_pipes; /* live and destroyed, freed by doca_flow_destroy */
	struct doca_flow_external_resource *resources;
	struct doca_flow_port *dead_ports; /* stopped ports, freed by doca_flow_destroy */
	uint64_t start_seq;
	uint64_t gen; /* DOCA Flow sessions: incremented by each doca_flow_init */
	/* Every pipe of the session by id (doca_flow_pipe.id), so that an entry names its
	 * pipe in 4 bytes: chunks of FLOW_PIPE_CHUNK, published once, never moved. */
	_Atomic(struct doca_flow_pipe **) pipe_dir[FLOW_PIPE_DIR];
	uint32_t nr_pipe_ids; /* under lock */
};

extern struct flow_global flow_g;

/* The pipe of a pipe id an entry holds (flow_g.pipe_dir): its chunk exists from the
 * pipe's creation to doca_flow_destroy, which also ends every entry. */
static inline struct doca_flow_pipe *flow_pipe_by_id(uint32_t id)
{
	struct doca_flow_pipe **chunk =
		atomic_load_explicit(&flow_g.pipe_dir[id / FLOW_PIPE_CHUNK], memory_order_acquire);
	return __atomic_load_n(&chunk[id % FLOW_PIPE_CHUNK], __ATOMIC_ACQUIRE);
}

static inline struct doca_flow_pipe *flow_entry_pipe(const struct doca_flow_pipe_entry *e)
{
	return flow_pipe_by_id(e->pipe_id);
}

/* Validation helpers: each logs one line naming the call on failure. flow_inited and
 * flow_pipe_valid are inline, since every add makes them; the lines they log on a
 * failure come from flow_log_not_inited and flow_log_pipe_invalid. */
void flow_log_not_inited(const char *who);
static inline bool flow_inited(const char *who)
{
	if (__builtin_expect(flow_g.inited, 1))
		return true;
	flow_log_not_inited(who);
	return false;
}
/* SUCCESS for a started port; BAD_STATE for a stopped one; INVALID_VALUE for NULL or a
 * pointer that is no DOCA Flow port. */
FLOWDPA_MUST_CHECK doca_error_t flow_port_check(const struct doca_flow_port *port, const char *who);
void flow_log_pipe_invalid(const struct doca_flow_pipe *pipe, const char *who);
/* Pipes are aligned to their cache lines: another object is not read as one. */
static inline bool flow_pipe_valid(const struct doca_flow_pipe *pipe, const char *who)
{
	if (__builtin_expect(pipe != NULL && (uintptr_t)pipe % _Alignof(struct doca_flow_pipe) == 0 &&
				     pipe->magic == FLOW_PIPE_MAGIC,
			     1))
		return true;
	flow_log_pipe_invalid(pipe, who);
	return false;
}
/* A live external resource (not NULL, not destroyed). Call it under flow_g.lock where
 * the resource could be destroyed meanwhile. */
bool flow_extres_valid(const struct doca_flow_external_resource *r, const char *who);
/* A shared counter id within the port's pool (INVALID_VALUE otherwise). */
FLOWDPA_MUST_CHECK doca_error_t flow_shared_id_check(const struct doca_flow_port *port, uint32_t id, const char *who);
/*
 * Shared-counter references (flow_counter.c). An entry holds one on its shared counter
 * from the call that queues its ADD (flow_shared_ref: INVALID_VALUE for an id out of
 * range or never obtained nor configured) to the first of: the add refused after all,
 * an ERROR completion of the ADD, its DEL, its pipe's destruction (a still-queued ADD
 * included). While the ADD is queued its record holds the id; once added, the NIC
 * entry's state names the counter (flow_entry_shared_id: the id, or -1). unref: under
 * flow_g.lock (unref_locking takes it); *id, -1 for none, is reset with the reference,
 * so each path gives it back once.
 */
FLOWDPA_MUST_CHECK doca_error_t flow_shared_ref(struct doca_flow_port *port, uint32_t id, const char *who);
void flow_shared_unref(struct doca_flow_port *port, int32_t *id);
void flow_shared_unref_locking(struct doca_flow_port *port, int32_t *id);
int32_t flow_entry_shared_id(const struct doca_flow_pipe_entry *e);

/* Templates (flow_match.c). */
FLOWDPA_MUST_CHECK doca_error_t flow_match_basic(const struct doca_flow_match *match, const struct doca_flow_match *mask,
			      struct nic_pipe_attr *attr, const char *who);
FLOWDPA_MUST_CHECK doca_error_t flow_match_hash(const struct doca_flow_match *mask, struct nic_pipe_attr *attr, const char *who);
FLOWDPA_MUST_CHECK doca_error_t flow_match_value(const struct doca_flow_match *match, struct nic_key *key, const char *who);
/* Compile a BASIC pipe's entry translation from its entry mask (after flow_match_basic). */
void flow_match_compile(const struct nic_key *entry_mask, struct flow_match_prog *prog);
/* A BASIC entry's key with prog: equal to flow_match_value's under the entry mask, and
 * the same NOT_SUPPORTED refusal of a byte no field carries. */
FLOWDPA_MUST_CHECK doca_error_t flow_match_entry(const struct flow_match_prog *prog, const struct doca_flow_match *match,
			      struct nic_key *key, const char *who);
/* The widest vectors of the add's coverage scan on this CPU: 256 (AVX2) or 128 bits. */
unsigned flow_match_simd_bits(void);
/* The coverage scan with vectors of bits (128, or 256 where flow_match_simd_bits says
 * so): whether match (a struct doca_flow_match) has a byte set where mask, of its size
 * rounded up to 32 bytes, has one. */
bool flow_match_uncovered_any(const void *match, const void *mask, unsigned bits);
FLOWDPA_MUST_CHECK doca_error_t flow_match_control(const struct doca_flow_match *match, const struct doca_flow_match *mask,
				struct nic_key *val, struct nic_key *msk, const char *who);
FLOWDPA_MUST_CHECK doca_error_t flow_actions_template(const struct doca_flow_actions *a, const struct doca_flow_actions *mask,
				   struct flow_act_tmpl *t, const char *who);
void flow_actions_entry(const struct flow_act_tmpl *t, const struct doca_flow_actions *a, int ps_field,
			struct nic_actions *out, uint32_t *ps_value);

/* Under flow_g.lock (flow_pipe.c): take a live pipe off its port's list and destroy it,
 * its queued operations, exports, entries and NIC pipe with it; the object stays, dead,
 * until doca_flow_destroy. */
void flow_pipe_destroy_locked(struct doca_flow_pipe *pipe);
/* Forwarding (flow_pipe.c): one doca fwd to a NIC fwd; INVALID_VALUE / NOT_SUPPORTED. */
FLOWDPA_MUST_CHECK doca_error_t flow_fwd_convert(const struct doca_flow_fwd *fwd, struct nic_fwd *out, const char *who);
/* DOCA_FLOW_FWD_TARGET (flow_target.c): the NIC fwd of a target from doca_flow_get_target;
 * INVALID_VALUE for NULL or anything else. */
FLOWDPA_MUST_CHECK doca_error_t flow_target_convert(const struct doca_flow_target *target, struct nic_fwd *out,
						const char *who);
/* Entry queues (flow_queue.c; the insertion path's inline part: flow_queue.h). drop_pipe:
 * under flow_g.lock, free a pipe being destroyed's operations still queued or in a
 * batch being executed, unexecuted. */
void flow_queue_drop_pipe(struct doca_flow_port *port, struct doca_flow_pipe *pipe);
/* The NIC's traffic source of port_id started on its 1 s fallback (nic_traffic_attach):
 * one WARNING when entry operations of ctx (the port, or its switch manager, which holds
 * its pipes) are still queued. Takes only the queue locks. */
void flow_queue_warn_unprocessed(void *ctx, uint16_t port_id);
/* Free the calling thread's cache of operation records now (doca_flow_destroy: the main
 * thread never exits through pthread_exit, so its cache would outlive the library's state). */
void flow_op_cache_drain(void);
/* The port (port, or any when NULL) whose doca_flow_entries_process the calling thread is
 * inside, i.e. it runs an entry callback; NULL when none. */
const struct doca_flow_port *flow_in_entry_cb(const struct doca_flow_port *port);

/* A pipe's entries (flow_entry.c). shared_release_all: under flow_g.lock, before the NIC
 * pipe goes, every entry's shared-counter reference. destroy_all: under flow_g.lock,
 * after flow_queue_drop_pipe, every entry object of the pipe and its pool. */
void flow_entry_shared_release_all(struct doca_flow_pipe *pipe);
void flow_entry_destroy_all(struct doca_flow_pipe *pipe);
/* A pipe being created: its live-entry count, one shard per queue of its port
 * (NO_MEMORY); freed with the pipe object. flow_pipe_live: the count, queued adds
 * included. */
FLOWDPA_MUST_CHECK doca_error_t flow_pipe_live_create(struct doca_flow_pipe *pipe);
uint32_t flow_pipe_live(const struct doca_flow_pipe *pipe);
/* HASH pipes: the entry pool (NO_MEMORY), freed by flow_entry_destroy_all or, for a pipe
 * that failed to create, by flow_entry_pool_free. */
FLOWDPA_MUST_CHECK doca_error_t flow_entry_pool_create(struct doca_flow_pipe *pipe);
void flow_entry_pool_free(struct doca_flow_pipe *pipe);
/* Each entry of the pipe (heap ones, then the pool's live ones by index), for dumps. */
void flow_entry_for_each(struct doca_flow_pipe *pipe, void (*fn)(const struct doca_flow_pipe_entry *e, void *arg),
			 void *arg);

/* Aging (flow_aging.c). flow_clock_ms: the aging clock (monotonic ms plus
 * flowdpa_clock_advance_ms). flow_aging_entry_sec: the aging an entry added with monitor
 * gets (0: none). track: after the entry's NIC add succeeded on queue; untrack: before it
 * is released; drop_pipe: every entry of a pipe being destroyed (under flow_g.lock);
 * port_free: when the port is released. */
uint64_t flow_clock_ms(void);
uint32_t flow_aging_entry_sec(const struct doca_flow_pipe *pipe, const struct doca_flow_monitor *monitor);
void flow_aging_track(struct doca_flow_pipe_entry *e, uint16_t queue, uint32_t aging_sec);
void flow_aging_untrack(struct doca_flow_pipe_entry *e);
void flow_aging_drop_pipe(struct doca_flow_pipe *pipe);
void flow_aging_port_free(struct doca_flow_port *port);

/* Resize (flow_resize.c). pipe_init: the cfg's resize settings into a pipe being created
 * (NOT_SUPPORTED for a resizable HASH pipe); added: after an add was queued (may deliver
 * CONGESTION_REACHED); progress: from doca_flow_entries_process on queue q when
 * port->resizes_pending; pipe_gone: under flow_g.lock, a pipe being destroyed. */
FLOWDPA_MUST_CHECK doca_error_t flow_resize_pipe_init(struct doca_flow_pipe *p, const struct doca_flow_pipe_cfg *cfg,
						  const char *who);
void flow_resize_added(struct doca_flow_pipe *p);
/* Entries a resizable BASIC pipe reserves room for at creation (16x its size, at least
 * 65536, at most 64M; address space, committed as used), which is as far as a resize can
 * grow it; 0 for any other pipe. */
uint32_t flow_resize_reserve(const struct doca_flow_pipe *p);
void flow_resize_progress(struct doca_flow_port *port, uint16_t q);
void flow_resize_pipe_gone(struct doca_flow_pipe *p);

#endif /* FLOWDPA_FLOW_INTERNAL_H_ */
