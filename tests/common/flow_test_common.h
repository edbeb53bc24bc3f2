/*
 * flow_test_common.h - helpers for the doca_flow test programs, in the style of DOCA's
 * samples/doca_flow/flow_common.{c,h} (init_doca_flow, port start/stop, entry
 * callbacks, set_flow_pipe_cfg) plus frame injection, counter queries and the two-port
 * fixture. Header-only so every flow test (unit, integration, lifecycle) and the
 * datapath benchmark share one copy; the frame builders and readers themselves are in
 * frames.h, the SDK log setup in sdk_log.h (both included here).
 */
#ifndef FLOW_TEST_COMMON_H_
#define FLOW_TEST_COMMON_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <doca_bitfield.h>
#include <doca_flow.h>
#include <doca_log.h>
#include <flowdpa.h>

#include "frames.h"
#include "sdk_log.h"

#define BE_IPV4_ADDR(a, b, c, d) (DOCA_HTOBE32(((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d)))
#define DEFAULT_TIMEOUT_US (10000)
#define FT_MAX_PORTS 4

struct entries_status {
	bool failure;
	int nb_processed;
	int nb_add, nb_del, nb_upd;
};

static inline void check_for_valid_entry(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue,
					 enum doca_flow_entry_status status, enum doca_flow_entry_op op,
					 void *user_ctx)
{
	(void)entry;
	(void)pipe_queue;
	struct entries_status *s = user_ctx;
	if (s == NULL)
		return;
	if (status != DOCA_FLOW_ENTRY_STATUS_SUCCESS)
		s->failure = true;
	s->nb_processed++;
	s->nb_add += op == DOCA_FLOW_ENTRY_OP_ADD;
	s->nb_del += op == DOCA_FLOW_ENTRY_OP_DEL;
	s->nb_upd += op == DOCA_FLOW_ENTRY_OP_UPD;
}

static inline doca_error_t init_doca_flow_cb(int nb_queues, const char *mode, doca_flow_entry_process_cb cb)
{
	struct doca_flow_cfg *cfg;
	doca_error_t r = doca_flow_cfg_create(&cfg);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_flow_cfg_set_pipe_queues(cfg, (uint16_t)nb_queues);
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_mode_args(cfg, mode);
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_cb_entry_process(cfg, cb);
	if (r == DOCA_SUCCESS)
		r = doca_flow_cfg_set_resource_mode(cfg, DOCA_FLOW_RESOURCE_MODE_PORT);
	if (r == DOCA_SUCCESS)
		r = doca_flow_init(cfg);
	doca_flow_cfg_destroy(cfg);
	return r;
}

static inline doca_error_t init_doca_flow(int nb_queues, const char *mode)
{
	return init_doca_flow_cb(nb_queues, mode, check_for_valid_entry);
}

/* Start port ids 0..nb_ports-1 as VNF ports (no device handle: accepted by flowdpa). */
static inline doca_error_t init_doca_flow_ports(int nb_ports, struct doca_flow_port *ports[])
{
	for (int i = 0; i < nb_ports; i++) {
		struct doca_flow_port_cfg *pc;
		doca_error_t r = doca_flow_port_cfg_create(&pc);
		if (r != DOCA_SUCCESS)
			return r;
		doca_flow_port_cfg_set_port_id(pc, (uint16_t)i);
		doca_flow_port_cfg_set_actions_mem_size(pc, 4096);
		doca_flow_port_cfg_set_nr_resources(pc, DOCA_FLOW_RESOURCE_COUNTER, 64);
		doca_flow_port_cfg_set_dev(pc, NULL);
		doca_flow_port_cfg_set_devargs(pc, "th_win_us=0");
		r = doca_flow_port_start(pc, &ports[i]);
		doca_flow_port_cfg_destroy(pc);
		if (r != DOCA_SUCCESS)
			return r;
	}
	return DOCA_SUCCESS;
}

static inline void stop_doca_flow_ports(int nb_ports, struct doca_flow_port *ports[])
{
	for (int i = nb_ports - 1; i >= 0; i--)
		if (ports[i])
			doca_flow_port_pipes_flush(ports[i]);
	for (int i = nb_ports - 1; i >= 0; i--)
		if (ports[i])
			doca_flow_port_stop(ports[i]);
}

static inline doca_error_t set_flow_pipe_cfg(struct doca_flow_pipe_cfg *cfg, const char *name,
					     enum doca_flow_pipe_type type, bool is_root)
{
	doca_error_t r = doca_flow_pipe_cfg_set_name(cfg, name);
	if (r == DOCA_SUCCESS)
		r = doca_flow_pipe_cfg_set_type(cfg, type);
	if (r == DOCA_SUCCESS)
		r = doca_flow_pipe_cfg_set_is_root(cfg, is_root);
	return r;
}

static inline doca_error_t flow_process_entries(struct doca_flow_port *port, struct entries_status *status,
						int nr_entries)
{
	doca_error_t r = doca_flow_entries_process(port, 0, DEFAULT_TIMEOUT_US, (uint32_t)nr_entries);
	if (r != DOCA_SUCCESS)
		return r;
	if (status->nb_processed != nr_entries || status->failure)
		return DOCA_ERROR_BAD_STATE;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ frames and counters */

/* Injected-frame helper: one UDP/IPv4 frame into port. */
static inline doca_error_t ft_inject_udp4(uint16_t port, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
	uint8_t f[128];
	uint32_t len = ft_udp4(f, src, dst, sport, dport);
	return flowdpa_port_inject(port, f, len);
}

static inline uint64_t ft_entry_pkts(struct doca_flow_pipe_entry *e)
{
	struct doca_flow_resource_query q;
	memset(&q, 0, sizeof(q));
	if (doca_flow_resource_query_entry(e, &q) != DOCA_SUCCESS)
		return UINT64_MAX;
	return q.counter.total_pkts;
}

static inline uint64_t ft_miss_pkts(struct doca_flow_pipe *p)
{
	struct doca_flow_resource_query q;
	memset(&q, 0, sizeof(q));
	if (doca_flow_resource_query_pipe_miss(p, &q) != DOCA_SUCCESS)
		return UINT64_MAX;
	return q.counter.total_pkts;
}

/* Drain a port's capture ring. */
static inline void ft_drain(uint16_t port)
{
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	while (flowdpa_port_capture_pop(port, buf, sizeof(buf), &len) == DOCA_SUCCESS)
		;
	while (flowdpa_host_capture_pop(port, buf, sizeof(buf), &len) == DOCA_SUCCESS)
		;
}

/* Start port id with a NULL device (dev, or dev_rep for a switch representor); NULL on error. */
static inline struct doca_flow_port *ft_start_port(uint16_t id, bool rep)
{
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;
	if (doca_flow_port_cfg_create(&pc) != DOCA_SUCCESS)
		return NULL;
	if (doca_flow_port_cfg_set_port_id(pc, id) != DOCA_SUCCESS ||
	    (rep ? doca_flow_port_cfg_set_dev_rep(pc, NULL) : doca_flow_port_cfg_set_dev(pc, NULL)) != DOCA_SUCCESS ||
	    doca_flow_port_start(pc, &p) != DOCA_SUCCESS)
		p = NULL;
	doca_flow_port_cfg_destroy(pc);
	return p;
}

/* A BASIC pipe on port: changeable UDP destination port, per-entry and miss counters;
 * NULL on error. */
static inline struct doca_flow_pipe *ft_udp_dport_pipe(struct doca_flow_port *port, const char *name, bool root,
						       uint32_t nr_entries, const struct doca_flow_fwd *fwd,
						       const struct doca_flow_fwd *miss)
{
	struct doca_flow_match m;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	if (doca_flow_pipe_cfg_create(&cfg, port) != DOCA_SUCCESS)
		return NULL;
	if (set_flow_pipe_cfg(cfg, name, DOCA_FLOW_PIPE_BASIC, root) != DOCA_SUCCESS ||
	    doca_flow_pipe_cfg_set_match(cfg, &m, NULL) != DOCA_SUCCESS ||
	    doca_flow_pipe_cfg_set_monitor(cfg, &mon) != DOCA_SUCCESS ||
	    doca_flow_pipe_cfg_set_nr_entries(cfg, nr_entries) != DOCA_SUCCESS ||
	    doca_flow_pipe_cfg_set_miss_counter(cfg, true) != DOCA_SUCCESS ||
	    doca_flow_pipe_create(cfg, fwd, miss, &p) != DOCA_SUCCESS)
		p = NULL;
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

/* The W1 table of bench/datapath and tests/slow/scale: entries on the IPv4 destination
 * (HASH: hashed on it), a per-entry UDP source-port rewrite and counter, fwd port 1; a
 * BASIC pipe misses to DROP, counted. NULL on error. */
static inline struct doca_flow_pipe *ft_w1_pipe(struct doca_flow_port *port, enum doca_flow_pipe_type type,
						const char *name, uint32_t nr_entries, bool root)
{
	struct doca_flow_match m;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	bool hash = type == DOCA_FLOW_PIPE_HASH;
	memset(&m, 0, sizeof(m));
	memset(&act, 0, sizeof(act));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	if (doca_flow_pipe_cfg_create(&cfg, port) != DOCA_SUCCESS)
		return NULL;
	if (set_flow_pipe_cfg(cfg, name, type, root) != DOCA_SUCCESS ||
	    doca_flow_pipe_cfg_set_nr_entries(cfg, nr_entries) != DOCA_SUCCESS ||
	    doca_flow_pipe_cfg_set_match(cfg, hash ? NULL : &m, hash ? &m : NULL) != DOCA_SUCCESS ||
	    doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1) != DOCA_SUCCESS ||
	    doca_flow_pipe_cfg_set_monitor(cfg, &mon) != DOCA_SUCCESS ||
	    (!hash && doca_flow_pipe_cfg_set_miss_counter(cfg, true) != DOCA_SUCCESS) ||
	    doca_flow_pipe_create(cfg, &fwd, hash ? NULL : &miss, &p) != DOCA_SUCCESS)
		p = NULL;
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

/* The fixture most flow tests share: one queue, VNF mode, ports 0 and 1 started. */
static inline int ft_setup_two_ports(struct doca_flow_port *ports[2], struct entries_status *status)
{
	ft_log_init();
	memset(status, 0, sizeof(*status));
	if (init_doca_flow(1, "vnf,hws") != DOCA_SUCCESS)
		return -1;
	return init_doca_flow_ports(2, ports) == DOCA_SUCCESS ? 0 : -1;
}

static inline int ft_teardown_two_ports(struct doca_flow_port *ports[2])
{
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	return 0;
}

#endif /* FLOW_TEST_COMMON_H_ */
