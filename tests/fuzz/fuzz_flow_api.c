/*
 * fuzz_flow_api.c - fuzzes the DOCA Flow API as a call sequence: each input byte picks a
 * call (port start/stop, pipe create/destroy/flush, update_miss, BASIC/CONTROL/HASH
 * entry add, update, remove, entries_process, queries, pipe_dump, port_pair) and its handles among NULL, live,
 * destroyed (stopped ports, destroyed pipes: flowdpa keeps both allocated and refuses
 * them until doca_flow_destroy, docs/flow.md), wrong-object (a pipe passed as a port,
 * ...: every handle starts with a magic) and cross-port ones (fwd to another port's
 * pipe, processing the other port's queue).
 *
 * A reference model in this file says what each call must return (docs/flow.md and
 * the API comments of doca_flow.h) and which entry callbacks entries_process must make
 * (operations FIFO per port and queue; duplicate BASIC key, full pipe and used HASH
 * index complete with ERROR; a destroyed pipe's queued operations vanish without a
 * callback); a mismatch aborts. Entries whose memory flowdpa frees (after their DEL
 * callback, or with their pipe) are never passed again: that would be a use of freed
 * memory the API does not promise to catch.
 *
 * The entry callback may also (the budget byte's high bits choose, and at which callback)
 * call doca_flow_port_stop on the port being processed (BAD_STATE, nothing changes),
 * doca_flow_destroy (does nothing) or doca_flow_port_stop on the other, live port (it
 * stops there and then, as a stop outside a callback would; the processed port's
 * callbacks go on unchanged), as docs/flow.md "Model" says (issue 15).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_bitfield.h>
#include <doca_flow.h>

#include "fuzz_check.h"

#define NR_PORTS 2
#define NR_QUEUES 2
#define MAX_PIPES 8
#define MAX_ENTRIES 32
#define MAX_DEAD_PORTS 8
#define MAX_OPS 96
#define PIPE_SIZE 4 /* nr_entries of every pipe: FULL is reachable */
#define MAX_CALLS 64

enum hstate { H_NONE, H_LIVE, H_DEAD };
enum okind { OP_ADD, OP_UPD, OP_DEL };

struct mport {
	struct doca_flow_port *h;
	enum hstate st;
};

struct mpipe {
	struct doca_flow_pipe *h;
	enum hstate st;
	int port;
	enum doca_flow_pipe_type type;
	bool root;
	enum doca_flow_fwd_type per_entry; /* fwd type each entry must give, or NONE */
};

struct mentry {
	struct doca_flow_pipe_entry *h;
	bool used;
	int pipe;
	int key; /* BASIC match value, HASH index */
	uintptr_t id; /* usr_ctx of the callbacks */
	enum doca_flow_entry_status status;
	bool in_nic, del_queued;
	int pending, queue;
};

struct mop {
	enum okind kind;
	int entry;
};

static struct {
	struct mport ports[NR_PORTS];
	struct doca_flow_port *dead_ports[MAX_DEAD_PORTS];
	int nr_dead;
	struct mpipe pipes[MAX_PIPES];
	struct mentry entries[MAX_ENTRIES];
	struct mop fifo[NR_PORTS][NR_QUEUES][MAX_OPS];
	int fifo_len[NR_PORTS][NR_QUEUES];
	uintptr_t next_id;
} m;

/* What entries_process called back, in order. */
static struct cb_rec {
	uintptr_t id;
	enum doca_flow_entry_status st;
	enum doca_flow_entry_op op;
} cbs[MAX_OPS * 2];
static int nr_cbs;

/* What the entry callback does besides recording, once, at its callback number at. */
enum cb_act { ACT_NONE, ACT_STOP_SELF, ACT_DESTROY, ACT_STOP_OTHER };
static struct {
	enum cb_act act;
	int at;
	struct doca_flow_port *self, *other;
	doca_error_t rc;
} cb_do;

static void entry_cb(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue, enum doca_flow_entry_status status,
		     enum doca_flow_entry_op op, void *user_ctx)
{
	(void)entry;
	(void)pipe_queue;
	FUZZ_CHECK(nr_cbs < (int)(sizeof(cbs) / sizeof(cbs[0])), "more callbacks than operations queued");
	cbs[nr_cbs++] = (struct cb_rec){(uintptr_t)user_ctx, status, op};
	if (cb_do.act == ACT_NONE || nr_cbs != cb_do.at + 1)
		return;
	if (cb_do.act == ACT_STOP_SELF)
		cb_do.rc = doca_flow_port_stop(cb_do.self);
	else if (cb_do.act == ACT_STOP_OTHER)
		cb_do.rc = doca_flow_port_stop(cb_do.other);
	else
		doca_flow_destroy();
}

static void flow_start(void)
{
	struct doca_flow_cfg *cfg;

	FUZZ_EXPECT(doca_flow_cfg_create(&cfg), DOCA_SUCCESS, "cfg_create");
	FUZZ_EXPECT(doca_flow_cfg_set_pipe_queues(cfg, NR_QUEUES), DOCA_SUCCESS, "set_pipe_queues");
	FUZZ_EXPECT(doca_flow_cfg_set_mode_args(cfg, "vnf,hws"), DOCA_SUCCESS, "set_mode_args");
	FUZZ_EXPECT(doca_flow_cfg_set_cb_entry_process(cfg, entry_cb), DOCA_SUCCESS, "set_cb");
	FUZZ_EXPECT(doca_flow_init(cfg), DOCA_SUCCESS, "doca_flow_init");
	doca_flow_cfg_destroy(cfg);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_logs();
	return 0;
}

/* ------------------------------------------------------------------ handle choice */

enum pick { PICK_NULL, PICK_LIVE, PICK_DEAD, PICK_WRONG };

/* A port handle: NULL, port id 0/1 (live or not started), a stopped one, a pipe. */
static struct doca_flow_port *pick_port(uint8_t b, enum pick *kind, int *id)
{
	*id = -1;
	switch (b % 5) {
	case 0:
		*kind = PICK_NULL;
		return NULL;
	case 1:
	case 2:
		if (m.ports[b % 5 - 1].st == H_LIVE) {
			*kind = PICK_LIVE;
			*id = b % 5 - 1;
			return m.ports[*id].h;
		}
		*kind = PICK_NULL;
		return NULL;
	case 3:
		if (m.nr_dead > 0) {
			*kind = PICK_DEAD;
			return m.dead_ports[(b >> 3) % m.nr_dead];
		}
		*kind = PICK_NULL;
		return NULL;
	default:
		for (int i = 0; i < MAX_PIPES; i++)
			if (m.pipes[(i + (b >> 3)) % MAX_PIPES].st != H_NONE) {
				*kind = PICK_WRONG;
				return (struct doca_flow_port *)(void *)m.pipes[(i + (b >> 3)) % MAX_PIPES].h;
			}
		*kind = PICK_NULL;
		return NULL;
	}
}

static doca_error_t port_expect(enum pick kind)
{
	return kind == PICK_LIVE ? DOCA_SUCCESS : kind == PICK_DEAD ? DOCA_ERROR_BAD_STATE : DOCA_ERROR_INVALID_VALUE;
}

/* A pipe handle: NULL, a slot (live or destroyed), an entry or a port as a pipe. */
static struct doca_flow_pipe *pick_pipe(uint8_t b, enum pick *kind, int *slot)
{
	*slot = -1;
	if (b % 8 == 0) {
		*kind = PICK_NULL;
		return NULL;
	}
	if (b % 8 == 7) {
		for (int i = 0; i < MAX_ENTRIES; i++)
			if (m.entries[i].used) {
				*kind = PICK_WRONG;
				return (struct doca_flow_pipe *)(void *)m.entries[i].h;
			}
		if (m.ports[0].st == H_LIVE) {
			*kind = PICK_WRONG;
			return (struct doca_flow_pipe *)(void *)m.ports[0].h;
		}
		*kind = PICK_NULL;
		return NULL;
	}
	for (int i = 0; i < MAX_PIPES; i++) {
		int s = (i + (b >> 3)) % MAX_PIPES;

		if (m.pipes[s].st != H_NONE) {
			*kind = m.pipes[s].st == H_LIVE ? PICK_LIVE : PICK_DEAD;
			*slot = s;
			return m.pipes[s].h;
		}
	}
	*kind = PICK_NULL;
	return NULL;
}

static struct doca_flow_pipe_entry *pick_entry(uint8_t b, enum pick *kind, int *slot)
{
	*slot = -1;
	if (b % 8 == 0) {
		*kind = PICK_NULL;
		return NULL;
	}
	if (b % 8 == 7) {
		/* A pipe (live or destroyed: both still allocated) as an entry. */
		for (int i = 0; i < MAX_PIPES; i++)
			if (m.pipes[(i + (b >> 3)) % MAX_PIPES].st != H_NONE) {
				*kind = PICK_WRONG;
				return (struct doca_flow_pipe_entry *)(void *)m.pipes[(i + (b >> 3)) % MAX_PIPES].h;
			}
		*kind = PICK_NULL;
		return NULL;
	}
	for (int i = 0; i < MAX_ENTRIES; i++) {
		int s = (i + (b >> 3)) % MAX_ENTRIES;

		if (m.entries[s].used) {
			*kind = PICK_LIVE;
			*slot = s;
			return m.entries[s].h;
		}
	}
	*kind = PICK_NULL;
	return NULL;
}

/* ------------------------------------------------------------------ model */

static void fifo_drop_pipe(int pipe)
{
	int port = m.pipes[pipe].port;

	for (int q = 0; q < NR_QUEUES; q++) {
		int w = 0;

		for (int r = 0; r < m.fifo_len[port][q]; r++)
			if (m.entries[m.fifo[port][q][r].entry].pipe != pipe)
				m.fifo[port][q][w++] = m.fifo[port][q][r];
		m.fifo_len[port][q] = w;
	}
}

/* The pipe is destroyed: its entries are freed, its queued operations dropped. */
static void model_pipe_dead(int pipe)
{
	fifo_drop_pipe(pipe);
	for (int i = 0; i < MAX_ENTRIES; i++)
		if (m.entries[i].used && m.entries[i].pipe == pipe)
			m.entries[i].used = false;
	m.pipes[pipe].st = H_DEAD;
}

static void model_port_pipes_dead(int port)
{
	for (int i = 0; i < MAX_PIPES; i++)
		if (m.pipes[i].st == H_LIVE && m.pipes[i].port == port)
			model_pipe_dead(i);
}

static void model_port_stop(int id)
{
	model_port_pipes_dead(id);
	if (m.nr_dead < MAX_DEAD_PORTS)
		m.dead_ports[m.nr_dead++] = m.ports[id].h;
	m.ports[id].st = H_DEAD;
}

static bool nic_conflict(const struct mentry *e)
{
	const struct mpipe *p = &m.pipes[e->pipe];
	int live = 0;
	bool same_key = false;

	for (int i = 0; i < MAX_ENTRIES; i++) {
		const struct mentry *o = &m.entries[i];

		if (o->used && o->in_nic && o->pipe == e->pipe) {
			live++;
			same_key |= o->key == e->key;
		}
	}
	if (p->type == DOCA_FLOW_PIPE_HASH)
		return same_key; /* the index is used */
	return live >= PIPE_SIZE || (p->type == DOCA_FLOW_PIPE_BASIC && same_key);
}

/* entries_process(port, q, budget) as flowdpa must run it: the callbacks it must make. */
static int model_process(int port, int q, uint32_t budget, struct cb_rec *want)
{
	int n = 0, done = 0;

	while (m.fifo_len[port][q] > 0 && (budget == 0 || (uint32_t)done < budget)) {
		struct mop op = m.fifo[port][q][0];
		struct mentry *e = &m.entries[op.entry];

		memmove(&m.fifo[port][q][0], &m.fifo[port][q][1], sizeof(op) * (size_t)--m.fifo_len[port][q]);
		done++;
		e->pending--;
		if (op.kind == OP_ADD) {
			bool fail = nic_conflict(e);

			e->status = fail ? DOCA_FLOW_ENTRY_STATUS_ERROR : DOCA_FLOW_ENTRY_STATUS_SUCCESS;
			e->in_nic = !fail;
			want[n++] = (struct cb_rec){e->id, e->status, DOCA_FLOW_ENTRY_OP_ADD};
		} else if (op.kind == OP_UPD) {
			/* An entry whose add failed is not in the NIC: its update fails too. */
			e->status = e->in_nic ? DOCA_FLOW_ENTRY_STATUS_SUCCESS : DOCA_FLOW_ENTRY_STATUS_ERROR;
			want[n++] = (struct cb_rec){e->id, e->status, DOCA_FLOW_ENTRY_OP_UPD};
		} else {
			want[n++] = (struct cb_rec){e->id, DOCA_FLOW_ENTRY_STATUS_SUCCESS, DOCA_FLOW_ENTRY_OP_DEL};
			e->used = false; /* freed after its DEL callback */
		}
	}
	return n;
}

static bool fifo_push(int port, int q, enum okind kind, int entry)
{
	if (m.fifo_len[port][q] >= MAX_OPS)
		return false;
	m.fifo[port][q][m.fifo_len[port][q]++] = (struct mop){kind, entry};
	return true;
}

/* ------------------------------------------------------------------ calls */

static void call_port_start(struct fuzz_in *in)
{
	int id = fuzz_u8(in) % NR_PORTS;
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;

	FUZZ_EXPECT(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS, "port_cfg_create");
	FUZZ_EXPECT(doca_flow_port_cfg_set_port_id(pc, (uint16_t)id), DOCA_SUCCESS, "set_port_id");
	FUZZ_EXPECT(doca_flow_port_cfg_set_dev(pc, NULL), DOCA_SUCCESS, "set_dev");
	FUZZ_EXPECT(doca_flow_port_start(pc, &p), m.ports[id].st == H_LIVE ? DOCA_ERROR_ALREADY_EXIST : DOCA_SUCCESS,
		    "doca_flow_port_start");
	doca_flow_port_cfg_destroy(pc);
	if (m.ports[id].st != H_LIVE)
		m.ports[id] = (struct mport){p, H_LIVE};
}

static void call_port_stop(struct fuzz_in *in)
{
	enum pick k;
	int id;
	struct doca_flow_port *p = pick_port(fuzz_u8(in), &k, &id);

	FUZZ_EXPECT(doca_flow_port_stop(p), port_expect(k), "doca_flow_port_stop");
	if (k == PICK_LIVE)
		model_port_stop(id);
}

static void call_pipes_flush(struct fuzz_in *in)
{
	enum pick k;
	int id;
	struct doca_flow_port *p = pick_port(fuzz_u8(in), &k, &id);

	doca_flow_port_pipes_flush(p);
	if (k == PICK_LIVE)
		model_port_pipes_dead(id);
}

/* fwd (or fwd_miss) from one byte; *want: what the pipe creation must make of it. */
static void pick_fwd(uint8_t b, bool miss, struct doca_flow_fwd *f, doca_error_t *want,
		     enum doca_flow_fwd_type *per_entry)
{
	enum pick k;
	int slot;

	*want = DOCA_SUCCESS;
	*per_entry = DOCA_FLOW_FWD_NONE;
	switch (b % 4) {
	case 0:
		*f = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_DROP};
		break;
	case 1: {
		uint16_t id = (b >> 2) % 3 == 2 ? 17 : (uint16_t)((b >> 2) % 3);

		if (!miss && (b & 0x80))
			id = UINT16_MAX;
		*f = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PORT, .port_id = id};
		if (id == UINT16_MAX)
			*per_entry = DOCA_FLOW_FWD_PORT;
		else if (id >= 16)
			*want = DOCA_ERROR_INVALID_VALUE;
		break;
	}
	default:
		/* A live pipe of either port (another port's is accepted), destroyed, NULL. */
		*f = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PIPE, .next_pipe = pick_pipe(b >> 2, &k, &slot)};
		if (k == PICK_NULL)
			*want = miss ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS;
		else if (k != PICK_LIVE)
			*want = DOCA_ERROR_INVALID_VALUE;
		if (k == PICK_NULL && !miss)
			*per_entry = DOCA_FLOW_FWD_PIPE;
	}
}

static void call_pipe_create(struct fuzz_in *in)
{
	enum pick k;
	int id, slot = -1;
	uint8_t b = fuzz_u8(in), fb = fuzz_u8(in), mb = fuzz_u8(in);
	struct doca_flow_port *port = pick_port(fuzz_u8(in), &k, &id);
	struct doca_flow_pipe_cfg *cfg = NULL;
	struct doca_flow_fwd fwd, miss;
	doca_error_t want_fwd, want_miss, want;
	enum doca_flow_fwd_type per_entry, unused;
	enum doca_flow_pipe_type type = b % 3 == 0 ? DOCA_FLOW_PIPE_BASIC
					: b % 3 == 1 ? DOCA_FLOW_PIPE_CONTROL
						     : DOCA_FLOW_PIPE_HASH;
	bool root = b & 0x10, stop_between = (b & 0xe0) == 0xe0;
	struct doca_flow_match match, mask;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_pipe *pipe = NULL;

	for (int i = 0; i < MAX_PIPES && slot < 0; i++)
		if (m.pipes[i].st != H_LIVE)
			slot = i;
	if (slot < 0)
		return;
	FUZZ_EXPECT(doca_flow_pipe_cfg_create(&cfg, port), port_expect(k), "doca_flow_pipe_cfg_create");
	if (k != PICK_LIVE)
		return;
	memset(&match, 0, sizeof(match));
	memset(&mask, 0, sizeof(mask));
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_name(cfg, "fz"), DOCA_SUCCESS, "set_name");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_type(cfg, type), DOCA_SUCCESS, "set_type");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_is_root(cfg, root), DOCA_SUCCESS, "set_is_root");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_nr_entries(cfg, PIPE_SIZE), DOCA_SUCCESS, "set_nr_entries");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS, "set_monitor");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS, "set_miss_counter");
	if (type == DOCA_FLOW_PIPE_BASIC) {
		match.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
		match.outer.udp.l4_port.dst_port = UINT16_MAX;
		FUZZ_EXPECT(doca_flow_pipe_cfg_set_match(cfg, &match, NULL), DOCA_SUCCESS, "set_match");
	} else if (type == DOCA_FLOW_PIPE_HASH) {
		mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
		mask.outer.ip4.dst_ip = UINT32_MAX;
		FUZZ_EXPECT(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS, "set_match");
	}
	if (stop_between) {
		/* The port stops under a cfg made before: pipe_create is BAD_STATE. */
		FUZZ_EXPECT(doca_flow_port_stop(port), DOCA_SUCCESS, "doca_flow_port_stop");
		model_port_stop(id);
	}
	pick_fwd(fb, false, &fwd, &want_fwd, &per_entry);
	pick_fwd(mb, true, &miss, &want_miss, &unused);
	bool miss_null = mb & 0x80; /* NULL fwd_miss: the port's default */
	if (miss_null)
		want_miss = DOCA_SUCCESS;
	if (type == DOCA_FLOW_PIPE_CONTROL) {
		want_fwd = DOCA_SUCCESS; /* CONTROL pipes get no pipe fwd: each entry has its own */
		per_entry = DOCA_FLOW_FWD_NONE;
	}
	bool has_root = false;
	for (int i = 0; i < MAX_PIPES; i++)
		has_root |= m.pipes[i].st == H_LIVE && m.pipes[i].port == id && m.pipes[i].root;
	want = stop_between		   ? DOCA_ERROR_BAD_STATE
	       : want_miss != DOCA_SUCCESS ? want_miss
	       : want_fwd != DOCA_SUCCESS  ? want_fwd
	       : root && has_root	   ? DOCA_ERROR_ALREADY_EXIST
					   : DOCA_SUCCESS;
	FUZZ_EXPECT(doca_flow_pipe_create(cfg, type == DOCA_FLOW_PIPE_CONTROL ? NULL : &fwd, miss_null ? NULL : &miss,
					  &pipe),
		    want, "doca_flow_pipe_create");
	FUZZ_EXPECT(doca_flow_pipe_cfg_destroy(cfg), DOCA_SUCCESS, "pipe_cfg_destroy");
	if (pipe != NULL)
		m.pipes[slot] = (struct mpipe){pipe, H_LIVE, id, type, root, per_entry};
}

static void call_pipe_destroy(struct fuzz_in *in)
{
	enum pick k;
	int slot;
	struct doca_flow_pipe *p = pick_pipe(fuzz_u8(in), &k, &slot);

	doca_flow_pipe_destroy(p); /* void: NULL, destroyed and wrong handles are refused */
	if (k == PICK_LIVE)
		model_pipe_dead(slot);
}

/* The entry fwd the pipe's per-entry rule asks for (or a wrong one), and what it makes. */
static doca_error_t entry_fwd_want(int slot, uint8_t fb, struct doca_flow_fwd *fwd, bool *give)
{
	enum pick fk = PICK_NULL;
	int fslot;

	*give = fb % 4 != 0;
	if (fb % 4 == 1)
		*fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PORT, .port_id = (fb & 4) ? 17 : (fb >> 3) & 1};
	else
		*fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PIPE, .next_pipe = pick_pipe(fb >> 2, &fk, &fslot)};
	if (m.pipes[slot].per_entry == DOCA_FLOW_FWD_NONE && m.pipes[slot].type != DOCA_FLOW_PIPE_CONTROL)
		return DOCA_SUCCESS; /* the pipe fixes the fwd: the entry's is ignored */
	if (!*give)
		return m.pipes[slot].type == DOCA_FLOW_PIPE_CONTROL ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
	if (m.pipes[slot].type != DOCA_FLOW_PIPE_CONTROL && fwd->type != m.pipes[slot].per_entry)
		return DOCA_ERROR_INVALID_VALUE;
	if (fwd->type == DOCA_FLOW_FWD_PORT)
		return fwd->port_id >= 16 ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS;
	return fk == PICK_LIVE ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

static void call_add_entry(struct fuzz_in *in)
{
	enum pick k;
	int slot, es = -1;
	uint8_t api = fuzz_u8(in), qb = fuzz_u8(in), key = fuzz_u8(in) % 6, fb = fuzz_u8(in);
	struct doca_flow_pipe *p = pick_pipe(fuzz_u8(in), &k, &slot);
	uint16_t q = qb % 5 == 4 ? NR_QUEUES : (uint16_t)(qb % NR_QUEUES);
	struct doca_flow_match match;
	struct doca_flow_fwd fwd;
	struct doca_flow_pipe_entry *e = NULL;
	enum doca_flow_pipe_type want_type = api % 3 == 0 ? DOCA_FLOW_PIPE_BASIC
					     : api % 3 == 1 ? DOCA_FLOW_PIPE_CONTROL
							    : DOCA_FLOW_PIPE_HASH;
	doca_error_t want = DOCA_SUCCESS, rc;

	for (int i = 0; i < MAX_ENTRIES && es < 0; i++)
		if (!m.entries[i].used)
			es = i;
	if (es < 0)
		return;
	memset(&match, 0, sizeof(match));
	match.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	match.outer.udp.l4_port.dst_port = DOCA_HTOBE16(1000 + key);
	bool give_fwd = false;
	if (k != PICK_LIVE)
		want = DOCA_ERROR_INVALID_VALUE;
	else if (q >= NR_QUEUES)
		want = DOCA_ERROR_INVALID_VALUE;
	else if (m.pipes[slot].type != want_type)
		want = DOCA_ERROR_INVALID_VALUE;
	else if (want_type == DOCA_FLOW_PIPE_HASH && key >= PIPE_SIZE)
		want = DOCA_ERROR_INVALID_VALUE;
	else
		want = entry_fwd_want(slot, fb, &fwd, &give_fwd);
	uintptr_t id = ++m.next_id;
	const struct doca_flow_fwd *efwd = give_fwd ? &fwd : NULL;
	switch (want_type) {
	case DOCA_FLOW_PIPE_BASIC:
		rc = doca_flow_pipe_basic_add_entry(q, p, &match, 0, NULL, NULL, efwd, 0, (void *)id, &e);
		break;
	case DOCA_FLOW_PIPE_CONTROL:
		rc = doca_flow_pipe_control_add_entry(q, p, &match, NULL, NULL, NULL, NULL, NULL, NULL, key, efwd,
						      (void *)id, &e);
		break;
	default:
		rc = doca_flow_pipe_hash_add_entry(q, p, key, 0, NULL, NULL, efwd, 0, (void *)id, &e);
		break;
	}
	FUZZ_EXPECT(rc, want, "add_entry");
	if (rc != DOCA_SUCCESS)
		return;
	int port = m.pipes[slot].port;
	FUZZ_CHECK(e != NULL && doca_flow_pipe_entry_get_status(e) == DOCA_FLOW_ENTRY_STATUS_IN_PROCESS,
		   "a queued add is IN_PROCESS");
	FUZZ_CHECK(fifo_push(port, q, OP_ADD, es), "model queue full");
	m.entries[es] = (struct mentry){.h = e, .used = true, .pipe = slot, .key = key, .id = id,
					.status = DOCA_FLOW_ENTRY_STATUS_IN_PROCESS, .pending = 1, .queue = q};
}

static void call_remove_entry(struct fuzz_in *in)
{
	enum pick k;
	int slot;
	uint8_t qb = fuzz_u8(in);
	struct doca_flow_pipe_entry *e = pick_entry(fuzz_u8(in), &k, &slot);
	uint16_t q = qb % 5 == 4 ? NR_QUEUES : (uint16_t)(qb % NR_QUEUES);
	doca_error_t want = DOCA_SUCCESS;

	if (k != PICK_LIVE)
		want = DOCA_ERROR_INVALID_VALUE;
	else if (q >= NR_QUEUES)
		want = DOCA_ERROR_INVALID_VALUE;
	else if (m.entries[slot].del_queued)
		want = DOCA_ERROR_BAD_STATE;
	else if (m.entries[slot].pending > 0 && m.entries[slot].queue != q)
		want = DOCA_ERROR_BAD_STATE; /* its pending operations are on another queue */
	FUZZ_EXPECT(doca_flow_pipe_remove_entry(q, 0, e), want, "doca_flow_pipe_remove_entry");
	if (want != DOCA_SUCCESS)
		return;
	struct mentry *me = &m.entries[slot];
	FUZZ_CHECK(fifo_push(m.pipes[me->pipe].port, q, OP_DEL, slot), "model queue full");
	me->del_queued = true;
	me->pending++;
	me->queue = q;
}

/* basic_update_entry (BASIC and HASH entries), with the entry's pipe or another one. */
static void call_update_entry(struct fuzz_in *in)
{
	enum pick ke, kp;
	int es, ps;
	uint8_t qb = fuzz_u8(in), pb = fuzz_u8(in), fb = fuzz_u8(in);
	struct doca_flow_pipe_entry *e = pick_entry(fuzz_u8(in), &ke, &es);
	struct doca_flow_pipe *p;
	uint16_t q = qb % 5 == 4 ? NR_QUEUES : (uint16_t)(qb % NR_QUEUES);
	struct doca_flow_fwd fwd;
	bool give;

	if (ke == PICK_LIVE && (pb & 1)) {
		ps = m.entries[es].pipe;
		kp = PICK_LIVE;
		p = m.pipes[ps].h;
	} else {
		p = pick_pipe(pb >> 1, &kp, &ps);
	}
	doca_error_t want = DOCA_SUCCESS;
	if (kp != PICK_LIVE || q >= NR_QUEUES || ke != PICK_LIVE)
		want = DOCA_ERROR_INVALID_VALUE;
	else if (m.entries[es].pipe != ps)
		want = DOCA_ERROR_INVALID_VALUE; /* the entry is another pipe's */
	else if (m.pipes[ps].type == DOCA_FLOW_PIPE_CONTROL)
		want = DOCA_ERROR_INVALID_VALUE;
	else if (m.entries[es].del_queued)
		want = DOCA_ERROR_BAD_STATE;
	doca_error_t fwd_want = kp == PICK_LIVE ? entry_fwd_want(ps, fb, &fwd, &give) : DOCA_SUCCESS;
	if (kp != PICK_LIVE)
		give = false;
	if (want == DOCA_SUCCESS)
		want = fwd_want;
	if (want == DOCA_SUCCESS && m.entries[es].pending > 0 && m.entries[es].queue != q)
		want = DOCA_ERROR_BAD_STATE;
	FUZZ_EXPECT(doca_flow_pipe_basic_update_entry(q, p, 0, NULL, NULL, give ? &fwd : NULL, 0, e), want,
		    "doca_flow_pipe_basic_update_entry");
	if (want != DOCA_SUCCESS)
		return;
	struct mentry *me = &m.entries[es];
	FUZZ_CHECK(fifo_push(m.pipes[me->pipe].port, q, OP_UPD, es), "model queue full");
	me->status = DOCA_FLOW_ENTRY_STATUS_IN_PROCESS;
	me->pending++;
	me->queue = q;
}

static void call_update_miss(struct fuzz_in *in)
{
	enum pick k;
	int slot;
	uint8_t mb = fuzz_u8(in);
	struct doca_flow_pipe *p = pick_pipe(fuzz_u8(in), &k, &slot);
	struct doca_flow_fwd miss;
	doca_error_t want;
	enum doca_flow_fwd_type unused;

	pick_fwd(mb, true, &miss, &want, &unused);
	if (mb & 0x80)
		want = DOCA_SUCCESS; /* NULL: the default miss */
	if (k != PICK_LIVE)
		want = DOCA_ERROR_INVALID_VALUE;
	/* A miss to any live pipe is taken, itself included: the walk's depth limit drops loops. */
	FUZZ_EXPECT(doca_flow_pipe_update_miss(p, (mb & 0x80) ? NULL : &miss), want, "doca_flow_pipe_update_miss");
}

static void call_entries_process(struct fuzz_in *in)
{
	enum pick k;
	int id;
	uint8_t qb = fuzz_u8(in), bb = fuzz_u8(in), budget = bb % 4;
	struct doca_flow_port *p = pick_port(fuzz_u8(in), &k, &id);
	uint16_t q = qb % 5 == 4 ? NR_QUEUES : (uint16_t)(qb % NR_QUEUES);
	doca_error_t want = port_expect(k);
	struct cb_rec want_cbs[MAX_OPS];
	int n = 0, other = id >= 0 ? 1 - id : -1;

	if (want == DOCA_SUCCESS && q >= NR_QUEUES)
		want = DOCA_ERROR_INVALID_VALUE;
	cb_do.act = (enum cb_act)((bb >> 2) % 4);
	cb_do.at = bb >> 4;
	cb_do.self = p;
	cb_do.other = other >= 0 && m.ports[other].st == H_LIVE ? m.ports[other].h : NULL;
	cb_do.rc = DOCA_ERROR_UNKNOWN;
	if (cb_do.act == ACT_STOP_OTHER && cb_do.other == NULL)
		cb_do.act = ACT_NONE;
	nr_cbs = 0;
	FUZZ_EXPECT(doca_flow_entries_process(p, q, 0, budget), want, "doca_flow_entries_process");
	enum cb_act act = cb_do.act;
	cb_do.act = ACT_NONE;
	if (want == DOCA_SUCCESS)
		n = model_process(id, q, budget, want_cbs);
	FUZZ_CHECK(nr_cbs == n, "entries_process made %d callbacks, the model expects %d", nr_cbs, n);
	for (int i = 0; i < n; i++)
		FUZZ_CHECK(cbs[i].id == want_cbs[i].id && cbs[i].st == want_cbs[i].st && cbs[i].op == want_cbs[i].op,
			   "callback %d: entry %lu op %d status %d, the model expects entry %lu op %d status %d", i,
			   (unsigned long)cbs[i].id, cbs[i].op, cbs[i].st, (unsigned long)want_cbs[i].id, want_cbs[i].op,
			   want_cbs[i].st);
	if (n <= cb_do.at)
		return; /* the callback that would have acted never came */
	if (act == ACT_STOP_SELF)
		FUZZ_EXPECT(cb_do.rc, DOCA_ERROR_BAD_STATE, "doca_flow_port_stop of the processed port from its callback");
	if (act == ACT_STOP_OTHER) {
		FUZZ_EXPECT(cb_do.rc, DOCA_SUCCESS, "doca_flow_port_stop of the other port from a callback");
		/* Its pipes and queues are the other port's: the processed port's callbacks did not change. */
		model_port_stop(other);
	}
}

static void call_query(struct fuzz_in *in)
{
	enum pick k;
	int slot;
	uint8_t b = fuzz_u8(in);
	struct doca_flow_resource_query q;

	memset(&q, 0, sizeof(q));
	if (b % 4 == 3) {
		/* pipe_dump lists every entry object of the pipe: queued, failed and live ones. */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		struct doca_flow_pipe *p = pick_pipe(b >> 2, &k, &slot);
		int lines = 0, want = 0;

		FUZZ_CHECK(f != NULL, "open_memstream");
		FUZZ_EXPECT(doca_flow_pipe_dump(p, f), k == PICK_LIVE ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE,
			    "doca_flow_pipe_dump");
		fclose(f);
		for (const char *c = text; c && (c = strstr(c, "\n  entry")) != NULL; c++)
			lines++;
		free(text);
		for (int i = 0; k == PICK_LIVE && i < MAX_ENTRIES; i++)
			want += m.entries[i].used && m.entries[i].pipe == slot;
		FUZZ_CHECK(lines == want, "pipe_dump lists %d entries, the model has %d", lines, want);
		return;
	}
	if (b & 1) {
		struct doca_flow_pipe *p = pick_pipe(b >> 1, &k, &slot);

		FUZZ_EXPECT(doca_flow_resource_query_pipe_miss(p, &q),
			    k == PICK_LIVE ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE, "query_pipe_miss");
		return;
	}
	struct doca_flow_pipe_entry *e = pick_entry(b >> 1, &k, &slot);
	doca_error_t want = k != PICK_LIVE		 ? DOCA_ERROR_INVALID_VALUE
			    : m.entries[slot].in_nic ? DOCA_SUCCESS
						     : DOCA_ERROR_BAD_STATE;
	FUZZ_EXPECT(doca_flow_resource_query_entry(e, &q), want, "query_entry");
	enum doca_flow_entry_status st = doca_flow_pipe_entry_get_status(e);
	FUZZ_CHECK(st == (k == PICK_LIVE ? m.entries[slot].status : DOCA_FLOW_ENTRY_STATUS_ERROR),
		   "entry status %d, the model expects %d", st,
		   k == PICK_LIVE ? m.entries[slot].status : DOCA_FLOW_ENTRY_STATUS_ERROR);
}

static void call_port_pair(struct fuzz_in *in)
{
	enum pick ka, kb;
	int ia, ib;
	struct doca_flow_port *a = pick_port(fuzz_u8(in), &ka, &ia);
	struct doca_flow_port *b = pick_port(fuzz_u8(in), &kb, &ib);
	doca_error_t want = port_expect(ka);

	if (want == DOCA_SUCCESS)
		want = port_expect(kb);
	FUZZ_EXPECT(doca_flow_port_pair(a, b), want, "doca_flow_port_pair");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};

	memset(&m, 0, sizeof(m));
	flow_start();
	for (int c = 0; c < MAX_CALLS && in.n > 0; c++) {
		switch (fuzz_u8(&in) % 13) {
		case 0:
		case 1:
			call_port_start(&in);
			break;
		case 2:
			call_port_stop(&in);
			break;
		case 3:
			call_pipes_flush(&in);
			break;
		case 4:
		case 5:
			call_pipe_create(&in);
			break;
		case 6:
			call_pipe_destroy(&in);
			break;
		case 7:
		case 8:
			call_add_entry(&in);
			break;
		case 9:
			call_remove_entry(&in);
			break;
		case 10:
			call_entries_process(&in);
			break;
		case 11:
			if (fuzz_u8(&in) & 1)
				call_query(&in);
			else
				call_port_pair(&in);
			break;
		default:
			if (fuzz_u8(&in) & 1)
				call_update_entry(&in);
			else
				call_update_miss(&in);
		}
	}
	doca_flow_destroy();
	return 0;
}
