/*
 * report_traffic.c - a DOCA Flow program with known traffic, for check_report.py: port 0's
 * root pipe REPORT_ROOT matches the UDP destination port (entries 1001..1005, no COUNT
 * action, forward to port 1) and misses into REPORT_DROP (entry 2000 forwards DROP; no
 * fwd_miss, so a miss there is dropped). It sends 7, 5, 9, 1 and 0 frames to 1001..1005,
 * 4 to 2000 and 3 to 2500; adds two entries to REPORT_DROP, updates one and removes the
 * other (no traffic after), then stops and exits, leaving FLOWDPA_REPORT to be written.
 */
#include <stdio.h>
#include <stdlib.h>

#include "flow_test_common.h"

#define TRY(call)                                                                    \
	do {                                                                         \
		doca_error_t r_ = (call);                                            \
		if (r_ != DOCA_SUCCESS) {                                            \
			fprintf(stderr, "%s: %s\n", #call, doca_error_get_name(r_)); \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

static struct doca_flow_pipe *dport_pipe(struct doca_flow_port *port, const char *name, bool root,
					 const struct doca_flow_fwd *fwd, const struct doca_flow_fwd *miss)
{
	struct doca_flow_match m;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p;

	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	TRY(doca_flow_pipe_cfg_create(&cfg, port));
	TRY(set_flow_pipe_cfg(cfg, name, DOCA_FLOW_PIPE_BASIC, root));
	TRY(doca_flow_pipe_cfg_set_match(cfg, &m, NULL));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, 8));
	TRY(doca_flow_pipe_create(cfg, fwd, miss, &p));
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static void add_dport(struct doca_flow_pipe *p, uint16_t dport, struct entries_status *status)
{
	struct doca_flow_match m;

	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(dport);
	TRY(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, status, NULL));
}

int main(void)
{
	static const struct {
		uint16_t dport;
		int frames;
	} sent[] = {{1001, 7}, {1002, 5}, {1003, 9}, {1004, 1}, {1005, 0}, {2000, 4}, {2500, 3}};
	struct doca_flow_port *ports[2];
	struct entries_status status = {0};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};

	ft_log_init();
	TRY(init_doca_flow(1, "vnf,hws"));
	TRY(init_doca_flow_ports(2, ports));
	struct doca_flow_pipe *drops = dport_pipe(ports[0], "REPORT_DROP", false, &drop, NULL);
	struct doca_flow_fwd to_drops = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = drops};
	struct doca_flow_pipe *root = dport_pipe(ports[0], "REPORT_ROOT", true, &to1, &to_drops);

	for (uint16_t d = 1001; d <= 1005; d++)
		add_dport(root, d, &status);
	add_dport(drops, 2000, &status);
	TRY(flow_process_entries(ports[0], &status, 6));
	for (size_t i = 0; i < sizeof(sent) / sizeof(sent[0]); i++)
		for (int k = 0; k < sent[i].frames; k++)
			TRY(ft_inject_udp4(0, BE_IPV4_ADDR(10, 0, 0, 1), BE_IPV4_ADDR(10, 0, 0, 2), 4000, sent[i].dport));
	/* An update and a removal, for the trace log (check_trace_log.py); the top three
	 * entries keep their counts. */
	struct doca_flow_pipe_entry *e1004, *e1005;
	struct doca_flow_match m;

	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(1004);
	TRY(doca_flow_pipe_basic_add_entry(0, drops, &m, 0, NULL, NULL, NULL, 0, &status, &e1004));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(1005);
	TRY(doca_flow_pipe_basic_add_entry(0, drops, &m, 0, NULL, NULL, NULL, 0, &status, &e1005));
	TRY(flow_process_entries(ports[0], &status, 8));
	TRY(doca_flow_pipe_basic_update_entry(0, drops, 0, NULL, NULL, NULL, 0, e1004));
	TRY(doca_flow_pipe_remove_entry(0, 0, e1005));
	TRY(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 2));
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	return 0;
}
