/*
 * provider_test.h - the fixture and helpers the provider tests share: two started DOCA
 * Flow ports, a started DPA context on device 0 with the provider_test_app image, a
 * provider ctx with queues on port 0, a device scratch buffer, HASH pipes built in the
 * order the provider wants (export_prepare before the entries), and one-call RPC
 * wrappers around the DPA-side API (device/provider_kernels.c).
 */
#ifndef PROVIDER_TEST_H_
#define PROVIDER_TEST_H_

#include <doca_dpa.h>
#include <doca_flow_dpa_provider.h>

#include "device/provider_test_defs.h"
#include "dpa_test_util.h"
#include "flow_test_common.h"

extern struct doca_dpa_app *provider_test_app;
extern doca_dpa_func_t pv_hash_rpc, pv_select_rpc, pv_mem_update_rpc, pv_mem_read_rpc, pv_poll_rpc, pv_flush_rpc,
	pv_mem_read_stack_rpc, pv_flip_kernel, pv_fail_loop_rpc, pv_bad_call_loop_rpc;

#define PV_SCRATCH 4096

struct pv_fx {
	struct doca_flow_port *ports[2];
	struct entries_status status;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct flexio_process *proc;
	struct doca_flow_dpa_ctx *ctx;
	uint64_t scratch; /* PV_SCRATCH bytes of device heap */
};

/* The queue set most tests use: one queue of each type, 16 deep. */
static const struct doca_flow_dpa_queue_cfg pv_all_queues[3] = {
	{DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 16, 1},
	{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE, 16, 1},
	{DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_READ, 16, 1},
};

/* The SDK log capture (WARNING and up), set up once per process. */
static inline void pv_log_ready(void)
{
	static bool log_ready;
	if (!log_ready) {
		dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
		log_ready = true;
	}
}

/* Into f: the two flow ports and a started DPA context on device 0 (no provider ctx). */
static inline void pv_fx_base(struct pv_fx *f)
{
	memset(f, 0, sizeof(*f));
	pv_log_ready();
	assert_int_equal(init_doca_flow(1, "vnf,hws"), DOCA_SUCCESS);
	assert_int_equal(init_doca_flow_ports(2, f->ports), DOCA_SUCCESS);
	f->dev = dpa_test_open_dev(0);
	f->dpa = dpa_test_started(f->dev, provider_test_app);
	assert_int_equal(doca_dpa_get_flexio_process(f->dpa, &f->proc), DOCA_SUCCESS);
}

/* Flow ports, DPA, provider ctx; queues on port 0 when cfgs is not NULL. */
static inline struct pv_fx *pv_fx_open(const struct doca_flow_dpa_queue_cfg *cfgs, uint32_t n)
{
	static struct pv_fx f;
	pv_fx_base(&f);
	assert_int_equal(doca_flow_dpa_init(f.proc, &f.ctx), DOCA_SUCCESS);
	if (cfgs)
		assert_int_equal(doca_flow_dpa_queues_create(f.ctx, f.ports[0], cfgs, n), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(f.dpa, PV_SCRATCH, &f.scratch), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_memset(f.dpa, f.scratch, 0, PV_SCRATCH), DOCA_SUCCESS);
	dpa_test_log_clear();
	return &f;
}

/* An external resource of type with n indices / cells on port. */
static inline struct doca_flow_external_resource *pv_res(struct doca_flow_port *port,
							 enum doca_flow_external_resource_type t, uint32_t n)
{
	struct doca_flow_external_resource_cfg *cfg;
	struct doca_flow_external_resource *r = NULL;
	assert_int_equal(doca_flow_external_resource_cfg_create(&cfg, port), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_cfg_set_type(cfg, t), DOCA_SUCCESS);
	if (t == DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY)
		assert_int_equal(doca_flow_external_resource_cfg_set_nr_cells(cfg, n), DOCA_SUCCESS);
	else
		assert_int_equal(doca_flow_external_resource_cfg_set_nr_indices(cfg, n), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_create(cfg, &r), DOCA_SUCCESS);
	doca_flow_external_resource_cfg_destroy(cfg);
	return r;
}

/* Export r in ctx and return its device address. */
static inline doca_flow_dpa_addr pv_export_res(struct doca_flow_dpa_ctx *ctx, struct doca_flow_external_resource *r,
					       enum doca_flow_external_resource_type t,
					       struct doca_flow_dpa_external_resource **h)
{
	doca_flow_dpa_addr a = 0;
	assert_int_equal(doca_flow_dpa_external_resource_export(ctx, t, r, h), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_external_resource_get_device_addr(ctx, *h, &a), DOCA_SUCCESS);
	return a;
}

/* Reverse order; queues of port 0 are destroyed if they are still there. */
static inline void pv_fx_close(struct pv_fx *f)
{
	doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]);
	assert_int_equal(doca_flow_dpa_destroy(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(f->dpa, f->scratch), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(f->dev), DOCA_SUCCESS);
	stop_doca_flow_ports(2, f->ports);
	doca_flow_destroy();
}

struct pv_pipe_opts {
	uint32_t alg;	     /* map algorithm, 0 = HASH */
	uint32_t nr_entries; /* pipe size */
	uint32_t add_before; /* entries added before export_prepare (the classic mistake) */
	bool no_export;	     /* prepare only */
	struct doca_flow_external_resource *sel, *mem;
	uint32_t export_nr; /* nr_entries passed to export_prepare, 0 = the pipe size */
};

/*
 * A root HASH pipe on port 0 over the IPv4 destination: entry i forwards to port 1 with
 * UDP source port 100 + i (its path-selector value), counts its packets; misses drop and
 * are counted. Created only: no provider call, no entry.
 */
static inline struct doca_flow_pipe *pv_hash_pipe_create(struct pv_fx *f, const struct pv_pipe_opts *o)
{
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *pipe = NULL;

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	memset(&mon, 0, sizeof(mon));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	mon.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, f->ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "HASH_PIPE", DOCA_FLOW_PIPE_HASH, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, o->nr_entries), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	if (o->alg)
		assert_int_equal(doca_flow_pipe_cfg_set_hash_map_algorithm(cfg, o->alg), DOCA_SUCCESS);
	if (o->sel)
		assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, o->sel), DOCA_SUCCESS);
	if (o->mem)
		assert_int_equal(doca_flow_pipe_cfg_set_external_resource(cfg, o->mem), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, &miss, &pipe), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return pipe;
}

/* Queue entry i of a pv_hash_pipe_create pipe (source port 100 + i); not processed. */
static inline void pv_hash_pipe_add(struct pv_fx *f, struct doca_flow_pipe *pipe, uint32_t i,
				    struct doca_flow_pipe_entry **entry)
{
	struct doca_flow_actions act;
	memset(&act, 0, sizeof(act));
	act.outer.udp.l4_port.src_port = DOCA_HTOBE16(100 + i);
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, pipe, i, 0, &act, NULL, NULL, 0, &f->status,
						       entry ? entry : &(struct doca_flow_pipe_entry *){0}),
			 DOCA_SUCCESS);
}

/* A pv_hash_pipe_create pipe, prepared with export_nr (default nr_entries) before entry
 * add_before, its entries added, exported; *addr set. */
static inline struct doca_flow_pipe *pv_hash_pipe(struct pv_fx *f, const struct pv_pipe_opts *o,
						  struct doca_flow_dpa_pipe **dp, doca_flow_dpa_addr *addr,
						  struct doca_flow_pipe_entry **entries)
{
	struct doca_flow_pipe *pipe = pv_hash_pipe_create(f, o);
	uint32_t nr = o->export_nr ? o->export_nr : o->nr_entries;

	for (uint32_t i = 0; i < o->nr_entries; i++) {
		if (i == o->add_before) {
			assert_int_equal(doca_flow_entries_process(f->ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
			assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, nr, dp), DOCA_SUCCESS);
		}
		pv_hash_pipe_add(f, pipe, i, entries ? &entries[i] : NULL);
	}
	assert_int_equal(doca_flow_entries_process(f->ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_false(f->status.failure);
	if (o->add_before >= o->nr_entries)
		assert_int_equal(doca_flow_dpa_pipe_export_prepare(f->ctx, pipe, nr, dp), DOCA_SUCCESS);
	if (!o->no_export) {
		assert_int_equal(doca_flow_dpa_pipe_export(f->ctx, *dp), DOCA_SUCCESS);
		assert_int_equal(doca_flow_dpa_pipe_get_device_addr(f->ctx, *dp, addr), DOCA_SUCCESS);
	}
	return pipe;
}

/* The hash index HASH chooses for destination dst (the entry a packet to dst selects). */
static inline uint32_t pv_index_of(struct doca_flow_pipe *pipe, uint32_t dst, uint32_t nr_entries)
{
	struct doca_flow_match m;
	uint32_t h = 0;
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = htobe32(dst);
	assert_int_equal(doca_flow_pipe_calc_hash(pipe, &m, &h), DOCA_SUCCESS);
	return h % nr_entries;
}

/* A destination whose packets select entry index. */
static inline uint32_t pv_dst_for(struct doca_flow_pipe *pipe, uint32_t index, uint32_t nr_entries)
{
	for (uint32_t d = 0x0a000001;; d++)
		if (pv_index_of(pipe, d, nr_entries) == index)
			return d;
}

/* Send one UDP frame to dst; the source port it left port 1 with (0: it did not). */
static inline uint16_t pv_send(uint32_t dst)
{
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	assert_int_equal(ft_inject_udp4(0, 0x01020304, dst, 7, 9), DOCA_SUCCESS);
	if (flowdpa_port_capture_pop(1, buf, sizeof(buf), &len) != DOCA_SUCCESS)
		return 0;
	return ft_sport(buf);
}

/* The RPC's own result asserted, the call's doca_error_t returned. ret is read through
 * the pointer, after the RPC ran (an argument read by value could be evaluated first). */
static inline doca_error_t pv_rpc_ret(doca_error_t rpc, const uint64_t *ret)
{
	assert_int_equal(rpc, DOCA_SUCCESS);
	return (doca_error_t)*ret;
}

/* One DPA-side call through an RPC; its doca_error_t. */
static inline doca_error_t pv_hash(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t op, uint32_t qid, uint32_t index,
				   uint32_t value, bool flush)
{
	uint64_t ret = 0;
	return pv_rpc_ret(doca_dpa_rpc(f->dpa, &pv_hash_rpc, &ret, a, op, qid, index, value, (uint32_t)flush), &ret);
}

static inline doca_error_t pv_select(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t qid, uint32_t first, uint32_t nr,
				     uint32_t op, bool range, bool flush)
{
	uint64_t ret = 0;
	return pv_rpc_ret(doca_dpa_rpc(f->dpa, &pv_select_rpc, &ret, a, qid, first, nr, op, (uint32_t)range,
				       (uint32_t)flush),
			  &ret);
}

static inline doca_error_t pv_mem_update(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t qid, uint32_t off,
					 uint64_t v, bool flush)
{
	uint64_t ret = 0;
	return pv_rpc_ret(doca_dpa_rpc(f->dpa, &pv_mem_update_rpc, &ret, a, qid, off, v, (uint32_t)flush), &ret);
}

/* Read nr cells into the scratch buffer at byte offset at. */
static inline doca_error_t pv_mem_read(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t qid, uint32_t off, uint32_t nr,
				       uint64_t at, bool flush)
{
	uint64_t ret = 0;
	return pv_rpc_ret(doca_dpa_rpc(f->dpa, &pv_mem_read_rpc, &ret, a, qid, off, nr, f->scratch + at, (uint32_t)flush),
			  &ret);
}

/* Poll once; stats copied back from device memory. */
static inline doca_error_t pv_poll(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t type, uint32_t qid,
				   uint32_t *completed, uint32_t *failed)
{
	uint64_t ret = 0;
	uint32_t st[2] = {0, 0};
	doca_error_t err = pv_rpc_ret(doca_dpa_rpc(f->dpa, &pv_poll_rpc, &ret, a, type, qid, f->scratch + PV_SCRATCH - 8),
				      &ret);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, st, f->scratch + PV_SCRATCH - 8, sizeof(st)), DOCA_SUCCESS);
	if (completed)
		*completed = st[0];
	if (failed)
		*failed = st[1];
	return err;
}

/* Poll until want completions arrived (async mode runs them later), at most 2 s. */
static inline void pv_poll_until(struct pv_fx *f, doca_flow_dpa_addr a, uint32_t type, uint32_t qid, uint32_t want,
				 uint32_t *completed, uint32_t *failed)
{
	uint32_t c = 0, fl = 0;
	for (int i = 0; i < 2000 && c < want; i++) {
		uint32_t c1 = 0, f1 = 0;
		assert_int_equal(pv_poll(f, a, type, qid, &c1, &f1), DOCA_SUCCESS);
		c += c1;
		fl += f1;
		if (c < want)
			usleep(1000);
	}
	*completed = c;
	*failed = fl;
}

static inline uint64_t pv_scratch_u64(struct pv_fx *f, uint64_t at)
{
	uint64_t v = 0;
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, &v, f->scratch + at, sizeof(v)), DOCA_SUCCESS);
	return v;
}

#endif /* PROVIDER_TEST_H_ */
