/*
 * fuzz_provider.c - fuzzes the host lifecycle of the DOCA Flow DPA Provider
 * (doca_flow_dpa_*, docs/provider.md and the API-PROVIDER spec) as a call sequence: queues
 * create/destroy per (ctx, port) with good and bad queue cfgs, pipe export prepare /
 * export / get_device_addr / destroy, external-resource export / get_device_addr /
 * destroy, doca_flow_dpa_destroy and init, interleaved with the Flow calls that end
 * what is exported (pipe and resource destroy, pipes flush, port stop and restart).
 * Handles: NULL, live, wrong-object (an export handle as a ctx, a resource export as a
 * pipe export, ...), another ctx's export, a stopped port.
 *
 * A reference model in this file says what every call must return (the error table of
 * API-PROVIDER.md and the comments of src/provider); a mismatch aborts. Export handles
 * and contexts are freed by their destroy and never passed again (the API does not
 * promise to detect a freed handle); destroyed Flow pipes and stopped ports stay
 * allocated, so those are passed.
 *
 * Two provider contexts live across inputs (context ids are never reused, 4096 per
 * program); each input ends by destroying what it created, checking that this works,
 * and every RECYCLE_RUNS inputs the contexts and DOCA Flow start over.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <core/core.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow.h>
#include <doca_flow_dpa_provider.h>

#include "fuzz_check.h"

/* The provider tests' device image (tests/common/provider), linked in. */
extern struct doca_dpa_app *provider_test_app;

#define NR_PORTS 2
#define NR_CTX 2
#define MAX_PIPES 6
#define MAX_RES 4
#define MAX_EXP 12
#define MAX_DEAD_PORTS 64
#define MAX_CALLS 48
#define PIPE_SIZE 8
#define RECYCLE_RUNS 128
#define CTX_BUDGET 3900 /* PV_MAX_CTX (4096) less a margin: inits the harness may still make */

enum pick { PICK_NULL, PICK_LIVE, PICK_DEAD, PICK_WRONG };

struct mpipe {
	struct doca_flow_pipe *h;
	bool live, hash;
	int port;
	int exports; /* export handles (prepared or exported) that hold it */
};

struct mres {
	struct doca_flow_external_resource *h;
	bool used, sel;
	int port;
	int exports;
};

struct mexp {
	bool used, is_pipe, exported;
	int ctx, obj; /* pipe or resource slot */
	bool gone;    /* the pipe went with its port's pipes: nothing left to export */
	void *h;      /* struct doca_flow_dpa_pipe * or struct doca_flow_dpa_external_resource * */
};

struct mqueues {
	struct doca_flow_port *port; /* the port handle they were created on, NULL: none */
	bool types[3];
};

static struct doca_dev *dev;
static struct doca_dpa *dpa;
static struct flexio_process *proc;
static int ctx_inits;

static struct {
	struct doca_flow_port *ports[NR_PORTS];
	struct doca_flow_port *dead_ports[MAX_DEAD_PORTS];
	int nr_dead;
	struct doca_flow_dpa_ctx *ctx[NR_CTX];
	struct mqueues q[NR_CTX][NR_PORTS];
	struct mpipe pipes[MAX_PIPES];
	struct mres res[MAX_RES];
	struct mexp exp[MAX_EXP];
} m;

static struct doca_flow_port *port_start(uint16_t id)
{
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;

	FUZZ_EXPECT(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS, "port_cfg_create");
	FUZZ_EXPECT(doca_flow_port_cfg_set_port_id(pc, id), DOCA_SUCCESS, "set_port_id");
	FUZZ_EXPECT(doca_flow_port_cfg_set_dev(pc, NULL), DOCA_SUCCESS, "set_dev");
	FUZZ_EXPECT(doca_flow_port_start(pc, &p), DOCA_SUCCESS, "doca_flow_port_start");
	doca_flow_port_cfg_destroy(pc);
	return p;
}

static void flow_start(void)
{
	struct doca_flow_cfg *cfg;

	FUZZ_EXPECT(doca_flow_cfg_create(&cfg), DOCA_SUCCESS, "cfg_create");
	FUZZ_EXPECT(doca_flow_cfg_set_mode_args(cfg, "vnf,hws"), DOCA_SUCCESS, "set_mode_args");
	FUZZ_EXPECT(doca_flow_init(cfg), DOCA_SUCCESS, "doca_flow_init");
	doca_flow_cfg_destroy(cfg);
	for (uint16_t i = 0; i < NR_PORTS; i++)
		m.ports[i] = port_start(i);
}

static struct doca_flow_dpa_ctx *ctx_init(void)
{
	struct doca_flow_dpa_ctx *c = NULL;

	FUZZ_EXPECT(doca_flow_dpa_init(proc, &c), DOCA_SUCCESS, "doca_flow_dpa_init");
	ctx_inits++;
	return c;
}

static void teardown(void)
{
	for (int c = 0; c < NR_CTX; c++)
		if (m.ctx[c])
			FUZZ_EXPECT(doca_flow_dpa_destroy(m.ctx[c]), DOCA_SUCCESS, "doca_flow_dpa_destroy at exit");
	doca_dpa_destroy(dpa);
	doca_dev_close(dev);
	doca_flow_destroy();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;

	(void)argc;
	(void)argv;
	fuzz_quiet_logs();
	/* A small device heap: the leak checks between inputs scan all of it. */
	setenv("FLOWDPA_DPA_HEAP_SIZE", "16M", 0);
	FUZZ_EXPECT(core_config_reload(), DOCA_SUCCESS, "core_config_reload");
	flow_start();
	FUZZ_EXPECT(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS, "devinfo_create_list");
	FUZZ_CHECK(n > 0, "no device (FLOWDPA_DEVICES)");
	FUZZ_EXPECT(doca_dev_open(list[0], &dev), DOCA_SUCCESS, "doca_dev_open");
	doca_devinfo_destroy_list(list);
	FUZZ_EXPECT(doca_dpa_create(dev, &dpa), DOCA_SUCCESS, "doca_dpa_create");
	FUZZ_EXPECT(doca_dpa_set_app(dpa, provider_test_app), DOCA_SUCCESS, "doca_dpa_set_app");
	FUZZ_EXPECT(doca_dpa_start(dpa), DOCA_SUCCESS, "doca_dpa_start");
	FUZZ_EXPECT(doca_dpa_get_flexio_process(dpa, &proc), DOCA_SUCCESS, "get_flexio_process");
	for (int c = 0; c < NR_CTX; c++)
		m.ctx[c] = ctx_init();
	atexit(teardown);
	return 0;
}

/* ------------------------------------------------------------------ handle choice */

static struct doca_flow_dpa_ctx *pick_ctx(uint8_t b, enum pick *k, int *c)
{
	*c = -1;
	switch (b % 4) {
	case 0:
		*k = PICK_NULL;
		return NULL;
	case 3:
		/* An export handle (its magic is not a ctx's) passed as a ctx. */
		for (int i = 0; i < MAX_EXP; i++)
			if (m.exp[i].used) {
				*k = PICK_WRONG;
				return m.exp[i].h;
			}
		/* fall through */
	default:
		*c = b % 4 == 2;
		*k = m.ctx[*c] ? PICK_LIVE : PICK_NULL;
		return m.ctx[*c];
	}
}

static doca_error_t ctx_want(enum pick k)
{
	return k == PICK_LIVE ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

static struct doca_flow_port *pick_port(uint8_t b, enum pick *k, int *id)
{
	*id = -1;
	switch (b % 4) {
	case 0:
		*k = PICK_NULL;
		return NULL;
	case 3:
		if (m.nr_dead) {
			*k = PICK_DEAD;
			return m.dead_ports[(b >> 2) % m.nr_dead];
		}
		/* fall through */
	default:
		*id = b % 4 == 2;
		*k = PICK_LIVE;
		return m.ports[*id];
	}
}

/* An export of the kind asked: live (of either ctx), NULL, or one of the other kind. */
static void *pick_exp(uint8_t b, bool is_pipe, enum pick *k, int *slot)
{
	*slot = -1;
	*k = PICK_NULL;
	if (b % 4 == 0)
		return NULL;
	for (int i = 0; i < MAX_EXP; i++) {
		int s = (i + (b >> 2)) % MAX_EXP;

		if (m.exp[s].used && (m.exp[s].is_pipe == is_pipe) == (b % 4 != 3)) {
			*k = b % 4 == 3 ? PICK_WRONG : PICK_LIVE;
			*slot = s;
			return m.exp[s].h;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ model helpers */

static void model_pipe_gone(int p)
{
	m.pipes[p].live = false;
	for (int i = 0; i < MAX_EXP; i++)
		if (m.exp[i].used && m.exp[i].is_pipe && m.exp[i].obj == p)
			m.exp[i].gone = true;
}

static void model_port_pipes_gone(int id)
{
	for (int p = 0; p < MAX_PIPES; p++)
		if (m.pipes[p].live && m.pipes[p].port == id)
			model_pipe_gone(p);
}

static bool has_queue(int c, int port_id, int type)
{
	return m.q[c][port_id].port != NULL && m.q[c][port_id].types[type];
}

static int exp_free_slot(void)
{
	for (int i = 0; i < MAX_EXP; i++)
		if (!m.exp[i].used)
			return i;
	return -1;
}

static bool exported_in(int c, bool is_pipe, int obj)
{
	for (int i = 0; i < MAX_EXP; i++)
		if (m.exp[i].used && m.exp[i].ctx == c && m.exp[i].is_pipe == is_pipe && m.exp[i].obj == obj)
			return true;
	return false;
}

/* ------------------------------------------------------------------ calls */

static void call_queues_create(struct fuzz_in *in)
{
	enum pick kc, kp;
	int c, id;
	uint8_t cb = fuzz_u8(in), pb = fuzz_u8(in), types = fuzz_u8(in), bad = fuzz_u8(in);
	struct doca_flow_dpa_ctx *ctx = pick_ctx(cb, &kc, &c);
	struct doca_flow_port *port = pick_port(pb, &kp, &id);
	struct doca_flow_dpa_queue_cfg cfgs[4];
	uint32_t n = 0;
	doca_error_t want_cfg = DOCA_SUCCESS;

	for (int t = 0; t < 3; t++)
		if (types >> t & 1)
			cfgs[n++] = (struct doca_flow_dpa_queue_cfg){(enum doca_flow_dpa_queue_type)t, 16u << (types >> 4 & 3),
								     1 + (types >> 6)};
	if (n == 0)
		want_cfg = DOCA_ERROR_INVALID_VALUE; /* num_queue_cfgs 0 */
	switch (n ? bad % 8 : 7) {
	case 0:
		cfgs[0].queue_size = 0;
		want_cfg = DOCA_ERROR_INVALID_VALUE;
		break;
	case 1:
		cfgs[0].queue_size = 24; /* not a power of 2 */
		want_cfg = DOCA_ERROR_INVALID_VALUE;
		break;
	case 2:
		cfgs[0].nr_queues = 0;
		want_cfg = DOCA_ERROR_INVALID_VALUE;
		break;
	case 3:
		cfgs[n++] = cfgs[0]; /* a type twice */
		want_cfg = DOCA_ERROR_INVALID_VALUE;
		break;
	case 4:
		cfgs[0].type = (enum doca_flow_dpa_queue_type)7;
		want_cfg = DOCA_ERROR_INVALID_VALUE;
		break;
	case 5:
		cfgs[0].queue_size = 1u << 20; /* deeper than the device allows */
		want_cfg = DOCA_ERROR_NOT_SUPPORTED;
		break;
	default:
		break;
	}
	doca_error_t want = ctx_want(kc);
	if (want == DOCA_SUCCESS)
		want = kp == PICK_NULL ? DOCA_ERROR_INVALID_VALUE : kp == PICK_DEAD ? DOCA_ERROR_BAD_STATE : DOCA_SUCCESS;
	if (want == DOCA_SUCCESS)
		want = want_cfg;
	if (want == DOCA_SUCCESS && m.q[c][id].port != NULL)
		want = DOCA_ERROR_BAD_STATE; /* the port id has queues in this ctx (perhaps of a stopped port) */
	doca_error_t rc = doca_flow_dpa_queues_create(ctx, port, n ? cfgs : NULL, n);
	/* Contexts no longer recycled (cleanup()): the heap may run out, as documented. */
	if (rc == DOCA_ERROR_NO_MEMORY && want == DOCA_SUCCESS && ctx_inits + NR_CTX >= CTX_BUDGET)
		return;
	FUZZ_EXPECT(rc, want, "doca_flow_dpa_queues_create");
	if (want == DOCA_SUCCESS) {
		m.q[c][id].port = port;
		for (uint32_t i = 0; i < n; i++)
			m.q[c][id].types[cfgs[i].type] = true;
	}
}

static void call_queues_destroy(struct fuzz_in *in)
{
	enum pick kc, kp;
	int c, id;
	struct doca_flow_dpa_ctx *ctx = pick_ctx(fuzz_u8(in), &kc, &c);
	struct doca_flow_port *port = pick_port(fuzz_u8(in), &kp, &id);
	doca_error_t want = ctx_want(kc);
	int found = -1;

	if (want == DOCA_SUCCESS && port == NULL)
		want = DOCA_ERROR_INVALID_VALUE;
	if (want == DOCA_SUCCESS) {
		for (int p = 0; p < NR_PORTS; p++)
			if (m.q[c][p].port == port)
				found = p;
		if (found < 0)
			want = DOCA_ERROR_BAD_STATE; /* no queues on that port handle */
	}
	/* Allowed with exports alive (as on hardware; a warning). */
	FUZZ_EXPECT(doca_flow_dpa_queues_destroy(ctx, port), want, "doca_flow_dpa_queues_destroy");
	if (want == DOCA_SUCCESS)
		memset(&m.q[c][found], 0, sizeof(m.q[c][found]));
}

static void call_pipe_create(struct fuzz_in *in)
{
	uint8_t b = fuzz_u8(in);
	int id = b & 1, slot = -1;
	bool hash = (b & 6) != 0;
	struct doca_flow_match mt, mask;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;

	/* Not a slot whose gone pipe still has exports: they name it by slot. */
	for (int i = 0; i < MAX_PIPES && slot < 0; i++)
		if (!m.pipes[i].live && m.pipes[i].exports == 0)
			slot = i;
	if (slot < 0)
		return;
	memset(&mt, 0, sizeof(mt));
	memset(&mask, 0, sizeof(mask));
	FUZZ_EXPECT(doca_flow_pipe_cfg_create(&cfg, m.ports[id]), DOCA_SUCCESS, "pipe_cfg_create");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_name(cfg, hash ? "fz_hash" : "fz_basic"), DOCA_SUCCESS, "set_name");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_type(cfg, hash ? DOCA_FLOW_PIPE_HASH : DOCA_FLOW_PIPE_BASIC), DOCA_SUCCESS,
		    "set_type");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_nr_entries(cfg, PIPE_SIZE), DOCA_SUCCESS, "set_nr_entries");
	if (hash) {
		mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
		mask.outer.ip4.dst_ip = UINT32_MAX;
		FUZZ_EXPECT(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS, "set_match");
	} else {
		mt.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
		mt.outer.udp.l4_port.dst_port = UINT16_MAX;
		FUZZ_EXPECT(doca_flow_pipe_cfg_set_match(cfg, &mt, NULL), DOCA_SUCCESS, "set_match");
	}
	FUZZ_EXPECT(doca_flow_pipe_create(cfg, &drop, &drop, &p), DOCA_SUCCESS, "doca_flow_pipe_create");
	doca_flow_pipe_cfg_destroy(cfg);
	m.pipes[slot] = (struct mpipe){p, true, hash, id, 0};
	if (hash && (b & 8)) {
		/* An entry before export_prepare: a WARNING, not an error (FLOWDPA_STRICT unset). */
		FUZZ_EXPECT(doca_flow_pipe_hash_add_entry(0, p, b >> 5, 0, NULL, NULL, NULL, 0, NULL, NULL), DOCA_SUCCESS,
			    "hash_add_entry");
		FUZZ_EXPECT(doca_flow_entries_process(m.ports[id], 0, 0, 0), DOCA_SUCCESS, "entries_process");
	}
}

static int pick_pipe(uint8_t b, struct doca_flow_pipe **h, enum pick *k)
{
	*h = NULL;
	*k = PICK_NULL;
	if (b % 5 == 0)
		return -1;
	for (int i = 0; i < MAX_PIPES; i++) {
		int s = (i + b) % MAX_PIPES;

		if (m.pipes[s].h != NULL) {
			*h = m.pipes[s].h;
			*k = m.pipes[s].live ? PICK_LIVE : PICK_DEAD; /* destroyed pipes stay allocated */
			return s;
		}
	}
	return -1;
}

static void call_flow_pipe_destroy(struct fuzz_in *in)
{
	struct doca_flow_pipe *h;
	enum pick k;
	int s = pick_pipe(fuzz_u8(in), &h, &k);

	doca_flow_pipe_destroy(h);
	/* An exported (or prepared) pipe is refused and stays. */
	if (k == PICK_LIVE && m.pipes[s].exports == 0)
		model_pipe_gone(s);
}

static void call_export_prepare(struct fuzz_in *in)
{
	enum pick kc, kp;
	int c, e = exp_free_slot();
	uint8_t cb = fuzz_u8(in), pb = fuzz_u8(in), nb = fuzz_u8(in);
	struct doca_flow_dpa_ctx *ctx = pick_ctx(cb, &kc, &c);
	struct doca_flow_pipe *pipe;
	int s = pick_pipe(pb, &pipe, &kp);
	uint32_t nr = nb % 4 == 0 ? 0 : nb % 4 == 1 ? PIPE_SIZE + 1 : 1 + nb % PIPE_SIZE;
	struct doca_flow_dpa_pipe *dp = NULL;

	if (e < 0)
		return;
	doca_error_t want = ctx_want(kc);
	if (want == DOCA_SUCCESS && nr == 0)
		want = DOCA_ERROR_INVALID_VALUE;
	if (want == DOCA_SUCCESS && kp != PICK_LIVE)
		want = DOCA_ERROR_INVALID_VALUE;
	if (want == DOCA_SUCCESS && !m.pipes[s].hash)
		want = DOCA_ERROR_NOT_SUPPORTED;
	if (want == DOCA_SUCCESS && nr > PIPE_SIZE)
		want = DOCA_ERROR_INVALID_VALUE;
	if (want == DOCA_SUCCESS && !has_queue(c, m.pipes[s].port, DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL))
		want = DOCA_ERROR_BAD_STATE;
	if (want == DOCA_SUCCESS && exported_in(c, true, s))
		want = DOCA_ERROR_BAD_STATE;
	FUZZ_EXPECT(doca_flow_dpa_pipe_export_prepare(ctx, pipe, nr, &dp), want, "doca_flow_dpa_pipe_export_prepare");
	FUZZ_CHECK((dp != NULL) == (want == DOCA_SUCCESS), "dpa_pipe set on failure or not on success");
	if (want == DOCA_SUCCESS) {
		m.exp[e] = (struct mexp){.used = true, .is_pipe = true, .ctx = c, .obj = s, .h = dp};
		m.pipes[s].exports++;
	}
}

/* The checks every export-handle call makes first: ctx, handle, owner. */
static doca_error_t handle_want(enum pick kc, int c, enum pick ke, int s)
{
	if (kc != PICK_LIVE)
		return DOCA_ERROR_INVALID_VALUE;
	if (ke != PICK_LIVE)
		return DOCA_ERROR_INVALID_VALUE;
	return m.exp[s].ctx == c ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE; /* another ctx's */
}

static void exp_destroyed(int s)
{
	if (m.exp[s].is_pipe)
		m.pipes[m.exp[s].obj].exports--;
	else
		m.res[m.exp[s].obj].exports--;
	m.exp[s].used = false;
}

static void call_export_op(struct fuzz_in *in, bool is_pipe)
{
	enum pick kc, ke;
	int c, s;
	uint8_t op = fuzz_u8(in), cb = fuzz_u8(in), eb = fuzz_u8(in);
	struct doca_flow_dpa_ctx *ctx = pick_ctx(cb, &kc, &c);
	void *h = pick_exp(eb, is_pipe, &ke, &s);
	doca_error_t want = handle_want(kc, c, ke, s);
	doca_flow_dpa_addr addr = 1;

	switch (op % 3) {
	case 0:
		if (!is_pipe)
			goto addr; /* resources are exported at once */
		if (want == DOCA_SUCCESS && m.exp[s].exported)
			want = DOCA_ERROR_BAD_STATE;
		else if (want == DOCA_SUCCESS && m.exp[s].gone)
			want = DOCA_ERROR_BAD_STATE;
		FUZZ_EXPECT(doca_flow_dpa_pipe_export(ctx, h), want, "doca_flow_dpa_pipe_export");
		if (want == DOCA_SUCCESS)
			m.exp[s].exported = true;
		break;
	case 1:
addr:
		if (want == DOCA_SUCCESS && !m.exp[s].exported)
			want = DOCA_ERROR_BAD_STATE;
		FUZZ_EXPECT(is_pipe ? doca_flow_dpa_pipe_get_device_addr(ctx, h, &addr)
				    : doca_flow_dpa_external_resource_get_device_addr(ctx, h, &addr),
			    want, "get_device_addr");
		FUZZ_CHECK((addr != 0) == (want == DOCA_SUCCESS), "dev_addr 0x%llx after %s", (unsigned long long)addr,
			   doca_error_get_name(want));
		break;
	default:
		FUZZ_EXPECT(is_pipe ? doca_flow_dpa_pipe_destroy(ctx, h) : doca_flow_dpa_external_resource_destroy(ctx, h),
			    want, "export destroy");
		if (want == DOCA_SUCCESS)
			exp_destroyed(s);
	}
}

static void call_res_create(struct fuzz_in *in)
{
	uint8_t b = fuzz_u8(in);
	int id = b & 1, slot = -1;
	bool sel = b & 2;
	struct doca_flow_external_resource_cfg *cfg;
	struct doca_flow_external_resource *r = NULL;

	for (int i = 0; i < MAX_RES && slot < 0; i++)
		if (!m.res[i].used)
			slot = i;
	if (slot < 0)
		return;
	FUZZ_EXPECT(doca_flow_external_resource_cfg_create(&cfg, m.ports[id]), DOCA_SUCCESS, "res_cfg_create");
	FUZZ_EXPECT(doca_flow_external_resource_cfg_set_type(cfg, sel ? DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR
								      : DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY),
		    DOCA_SUCCESS, "res_cfg_set_type");
	FUZZ_EXPECT(sel ? doca_flow_external_resource_cfg_set_nr_indices(cfg, 16)
			: doca_flow_external_resource_cfg_set_nr_cells(cfg, 16),
		    DOCA_SUCCESS, "res_cfg_set_size");
	FUZZ_EXPECT(doca_flow_external_resource_create(cfg, &r), DOCA_SUCCESS, "external_resource_create");
	doca_flow_external_resource_cfg_destroy(cfg);
	m.res[slot] = (struct mres){r, true, sel, id, 0};
}

static void call_res_export(struct fuzz_in *in)
{
	enum pick kc;
	int c, e = exp_free_slot(), s = -1;
	uint8_t cb = fuzz_u8(in), rb = fuzz_u8(in), tb = fuzz_u8(in);
	struct doca_flow_dpa_ctx *ctx = pick_ctx(cb, &kc, &c);
	struct doca_flow_dpa_external_resource *h = NULL;
	enum doca_flow_external_resource_type type = tb % 5 == 4 ? (enum doca_flow_external_resource_type)9
						     : (enum doca_flow_external_resource_type)(tb & 1);

	if (e < 0)
		return;
	for (int i = 0; i < MAX_RES && rb % 4 != 0 && s < 0; i++)
		if (m.res[(i + rb) % MAX_RES].used)
			s = (i + rb) % MAX_RES;
	doca_error_t want = ctx_want(kc);
	if (want == DOCA_SUCCESS && s < 0)
		want = DOCA_ERROR_INVALID_VALUE;
	if (want == DOCA_SUCCESS && tb % 5 == 4)
		want = DOCA_ERROR_NOT_SUPPORTED;
	bool sel = type == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR;
	if (want == DOCA_SUCCESS && m.res[s].sel != sel)
		want = DOCA_ERROR_INVALID_VALUE;
	if (want == DOCA_SUCCESS) {
		bool w = has_queue(c, m.res[s].port, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE);
		bool r = has_queue(c, m.res[s].port, DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ);

		if (sel ? !w : !(w || r))
			want = DOCA_ERROR_BAD_STATE;
	}
	if (want == DOCA_SUCCESS && exported_in(c, false, s))
		want = DOCA_ERROR_BAD_STATE;
	FUZZ_EXPECT(doca_flow_dpa_external_resource_export(ctx, type, s >= 0 ? m.res[s].h : NULL, &h), want,
		    "doca_flow_dpa_external_resource_export");
	if (want == DOCA_SUCCESS) {
		m.exp[e] = (struct mexp){.used = true, .is_pipe = false, .exported = true, .ctx = c, .obj = s, .h = h};
		m.res[s].exports++;
	}
}

static void call_res_destroy(struct fuzz_in *in)
{
	uint8_t rb = fuzz_u8(in);
	int s = -1;

	for (int i = 0; i < MAX_RES && s < 0; i++)
		if (m.res[(i + rb) % MAX_RES].used)
			s = (i + rb) % MAX_RES;
	if (s < 0) {
		FUZZ_EXPECT(doca_flow_external_resource_destroy(NULL), DOCA_ERROR_INVALID_VALUE, "res destroy NULL");
		return;
	}
	doca_error_t want = m.res[s].exports ? DOCA_ERROR_BAD_STATE : DOCA_SUCCESS;
	FUZZ_EXPECT(doca_flow_external_resource_destroy(m.res[s].h), want, "doca_flow_external_resource_destroy");
	if (want == DOCA_SUCCESS)
		m.res[s].used = false;
}

static void call_port_cycle(struct fuzz_in *in)
{
	uint8_t b = fuzz_u8(in);
	int id = b & 1;

	if (b & 2) {
		/* Every pipe of the port goes, exported or not; their exports stay, empty. */
		doca_flow_port_pipes_flush(m.ports[id]);
		model_port_pipes_gone(id);
		return;
	}
	if (m.nr_dead >= MAX_DEAD_PORTS)
		return;
	FUZZ_EXPECT(doca_flow_port_stop(m.ports[id]), DOCA_SUCCESS, "doca_flow_port_stop");
	model_port_pipes_gone(id);
	m.dead_ports[m.nr_dead++] = m.ports[id];
	m.ports[id] = port_start((uint16_t)id);
}

static void call_ctx_destroy(struct fuzz_in *in)
{
	enum pick kc;
	int c;
	struct doca_flow_dpa_ctx *ctx = pick_ctx(fuzz_u8(in), &kc, &c);
	doca_error_t want = ctx_want(kc);

	if (want == DOCA_SUCCESS) {
		bool alive = m.q[c][0].port || m.q[c][1].port;

		for (int i = 0; i < MAX_EXP; i++)
			alive |= m.exp[i].used && m.exp[i].ctx == c;
		if (alive)
			want = DOCA_ERROR_BAD_STATE;
		else if (ctx_inits >= CTX_BUDGET)
			return; /* a new ctx could not be made: keep this one */
	}
	FUZZ_EXPECT(doca_flow_dpa_destroy(ctx), want, "doca_flow_dpa_destroy");
	if (want == DOCA_SUCCESS) {
		memset(&m.q[c], 0, sizeof(m.q[c]));
		m.ctx[c] = ctx_init();
	}
}

static void call_bad_init(struct fuzz_in *in)
{
	struct doca_flow_dpa_ctx *c = (struct doca_flow_dpa_ctx *)1;

	if (fuzz_u8(in) & 1) {
		FUZZ_EXPECT(doca_flow_dpa_init(NULL, &c), DOCA_ERROR_INVALID_VALUE, "doca_flow_dpa_init(NULL process)");
		FUZZ_CHECK(c == NULL, "ctx set on failure");
	} else {
		FUZZ_EXPECT(doca_flow_dpa_init(proc, NULL), DOCA_ERROR_INVALID_VALUE, "doca_flow_dpa_init(NULL ctx)");
	}
}

/* Undo what the input made, checking each step (the next input starts clean). */
static void cleanup(void)
{
	for (int i = 0; i < MAX_EXP; i++)
		if (m.exp[i].used) {
			struct doca_flow_dpa_ctx *ctx = m.ctx[m.exp[i].ctx];

			FUZZ_EXPECT(m.exp[i].is_pipe ? doca_flow_dpa_pipe_destroy(ctx, m.exp[i].h)
						     : doca_flow_dpa_external_resource_destroy(ctx, m.exp[i].h),
				    DOCA_SUCCESS, "export destroy (cleanup)");
			exp_destroyed(i);
		}
	for (int c = 0; c < NR_CTX; c++)
		for (int p = 0; p < NR_PORTS; p++)
			if (m.q[c][p].port)
				FUZZ_EXPECT(doca_flow_dpa_queues_destroy(m.ctx[c], m.q[c][p].port), DOCA_SUCCESS,
					    "queues_destroy (cleanup)");
	memset(m.q, 0, sizeof(m.q));
	for (int i = 0; i < MAX_RES; i++)
		if (m.res[i].used)
			FUZZ_EXPECT(doca_flow_external_resource_destroy(m.res[i].h), DOCA_SUCCESS, "res destroy (cleanup)");
	for (int p = 0; p < NR_PORTS; p++)
		doca_flow_port_pipes_flush(m.ports[p]);
	memset(m.pipes, 0, sizeof(m.pipes));
	memset(m.res, 0, sizeof(m.res));
	/*
	 * Two things are kept until their owner ends, by design: the rings of
	 * doca_flow_dpa_queues_destroy stay in the device heap until doca_flow_dpa_destroy (a
	 * DPA thread may still read them, pv_queue.c), and destroyed pipes and stopped ports
	 * stay allocated until doca_flow_destroy (docs/flow.md). An input creates both, so
	 * start over now and then (the contexts while their ids last).
	 */
	static unsigned int runs;
	if (++runs % RECYCLE_RUNS != 0)
		return;
	/* The contexts hold nothing of DOCA Flow any more: it can start over under them. */
	doca_flow_destroy();
	flow_start();
	m.nr_dead = 0;
	for (int c = 0; c < NR_CTX && ctx_inits + NR_CTX < CTX_BUDGET; c++) {
		FUZZ_EXPECT(doca_flow_dpa_destroy(m.ctx[c]), DOCA_SUCCESS, "doca_flow_dpa_destroy (recycle)");
		m.ctx[c] = ctx_init();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};

	for (int i = 0; i < MAX_CALLS && in.n > 0; i++) {
		switch (fuzz_u8(&in) % 14) {
		case 0:
		case 1:
			call_queues_create(&in);
			break;
		case 2:
			call_queues_destroy(&in);
			break;
		case 3:
		case 4:
			call_pipe_create(&in);
			break;
		case 5:
			call_flow_pipe_destroy(&in);
			break;
		case 6:
		case 7:
			call_export_prepare(&in);
			break;
		case 8:
			call_export_op(&in, fuzz_u8(&in) & 1);
			break;
		case 9:
			if (fuzz_u8(&in) & 1)
				call_res_create(&in);
			else
				call_res_export(&in);
			break;
		case 10:
			call_res_destroy(&in);
			break;
		case 11:
			call_port_cycle(&in);
			break;
		case 12:
			call_ctx_destroy(&in);
			break;
		default:
			call_bad_init(&in);
		}
	}
	cleanup();
	return 0;
}
