/* disable_main.c - host side of the installed-flowdpa provider project: a HASH pipe on port
 * 0 (8 entries, each forwarding to port 1), exported to a DPA kernel that disables entry 3;
 * a frame to that entry is then a miss. Unmodified DOCA calls plus flowdpa.h injection. */
#include <stdio.h>
#include <string.h>

#include <doca_bitfield.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow.h>
#include <doca_flow_dpa_provider.h>
#include <doca_sync_event.h>
#include <flowdpa.h>

extern struct doca_dpa_app *disable_app;
extern doca_dpa_func_t disable_kernel;

#define TRY(call)                                                                            \
	do {                                                                                 \
		doca_error_t r_ = (call);                                                    \
		if (r_ != DOCA_SUCCESS) {                                                    \
			fprintf(stderr, "%s: %s\n", #call, doca_error_get_name(r_));         \
			return 1;                                                            \
		}                                                                            \
	} while (0)

static struct doca_flow_port *start_port(uint16_t id, struct doca_dev *dev)
{
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;
	if (doca_flow_port_cfg_create(&pc) != DOCA_SUCCESS)
		return NULL;
	doca_flow_port_cfg_set_port_id(pc, id);
	doca_flow_port_cfg_set_dev(pc, dev);
	doca_flow_port_start(pc, &p);
	doca_flow_port_cfg_destroy(pc);
	return p;
}

/* A 60-byte Ethernet/IPv4/UDP frame to 10.0.0.last (checksums are not checked). */
static uint32_t frame(uint8_t *f, uint8_t last)
{
	memset(f, 0, 60);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = 0;
	f[17] = 46;
	f[22] = 64;
	f[23] = 17;
	f[30] = 10;
	f[33] = last;
	f[35] = 7;
	f[37] = 9;
	f[39] = 26;
	return 60;
}

int main(void)
{
	struct doca_flow_cfg *cfg;
	struct doca_flow_port *ports[2];
	TRY(doca_flow_cfg_create(&cfg));
	TRY(doca_flow_cfg_set_pipe_queues(cfg, 1));
	TRY(doca_flow_cfg_set_mode_args(cfg, "vnf,hws"));
	TRY(doca_flow_init(cfg));
	doca_flow_cfg_destroy(cfg);
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct flexio_process *proc;
	struct doca_flow_dpa_ctx *ctx;
	TRY(doca_devinfo_create_list(&list, &n));
	TRY(doca_dev_open(list[0], &dev));
	TRY(doca_devinfo_destroy_list(list));
	for (uint16_t i = 0; i < 2; i++)
		if ((ports[i] = start_port(i, dev)) == NULL)
			return 1;
	TRY(doca_dpa_create(dev, &dpa));
	TRY(doca_dpa_set_app(dpa, disable_app));
	TRY(doca_dpa_start(dpa));
	TRY(doca_dpa_get_flexio_process(dpa, &proc));
	TRY(doca_flow_dpa_init(proc, &ctx));
	struct doca_flow_dpa_queue_cfg q = {DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 8, 1};
	TRY(doca_flow_dpa_queues_create(ctx, ports[0], &q, 1));

	struct doca_flow_match mask;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *pcfg;
	struct doca_flow_pipe *pipe;
	struct doca_flow_dpa_pipe *dpa_pipe;
	memset(&mask, 0, sizeof(mask));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	TRY(doca_flow_pipe_cfg_create(&pcfg, ports[0]));
	TRY(doca_flow_pipe_cfg_set_name(pcfg, "HASH_PIPE"));
	TRY(doca_flow_pipe_cfg_set_type(pcfg, DOCA_FLOW_PIPE_HASH));
	TRY(doca_flow_pipe_cfg_set_is_root(pcfg, true));
	TRY(doca_flow_pipe_cfg_set_nr_entries(pcfg, 8));
	TRY(doca_flow_pipe_cfg_set_match(pcfg, NULL, &mask));
	TRY(doca_flow_pipe_create(pcfg, &fwd, &miss, &pipe));
	doca_flow_pipe_cfg_destroy(pcfg);
	TRY(doca_flow_dpa_pipe_export_prepare(ctx, pipe, 8, &dpa_pipe));
	struct doca_flow_pipe_entry *e;
	for (uint32_t i = 0; i < 8; i++)
		TRY(doca_flow_pipe_hash_add_entry(0, pipe, i, 0, NULL, NULL, NULL, 0, NULL, &e));
	TRY(doca_flow_entries_process(ports[0], 0, 10000, 8));
	TRY(doca_flow_dpa_pipe_export(ctx, dpa_pipe));
	doca_flow_dpa_addr addr;
	TRY(doca_flow_dpa_pipe_get_device_addr(ctx, dpa_pipe, &addr));

	/* The destination whose packets select entry 3. */
	uint8_t f[60], buf[2048];
	uint32_t len, last = 1, h = 0;
	struct doca_flow_match m;
	for (;; last++) {
		memset(&m, 0, sizeof(m));
		m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
		m.outer.ip4.dst_ip = DOCA_HTOBE32(0x0a000000u | last);
		TRY(doca_flow_pipe_calc_hash(pipe, &m, &h));
		if (h % 8 == 3)
			break;
	}
	TRY(flowdpa_port_inject(0, f, frame(f, (uint8_t)last)));
	int before = flowdpa_port_capture_pop(1, buf, sizeof(buf), &len) == DOCA_SUCCESS;

	struct doca_sync_event *comp;
	doca_dpa_dev_uintptr_t out;
	uint32_t res[3];
	TRY(doca_dpa_mem_alloc(dpa, sizeof(res), &out));
	TRY(doca_sync_event_create(&comp));
	TRY(doca_sync_event_add_publisher_location_dpa(comp, dpa));
	TRY(doca_sync_event_add_subscriber_location_cpu(comp, dev));
	TRY(doca_sync_event_start(comp));
	TRY(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, comp, 1, 1, &disable_kernel, addr, 3u, out));
	TRY(doca_sync_event_wait_gt(comp, 0, UINT64_MAX));
	TRY(doca_dpa_d2h_memcpy(dpa, res, out, sizeof(res)));
	TRY(flowdpa_port_inject(0, f, frame(f, (uint8_t)last)));
	int after = flowdpa_port_capture_pop(1, buf, sizeof(buf), &len) == DOCA_SUCCESS;
	printf("kernel: %s completed %u failed %u; forwarded before %d after %d\n",
	       doca_error_get_name((doca_error_t)res[0]), res[1], res[2], before, after);

	TRY(doca_sync_event_destroy(comp));
	TRY(doca_dpa_mem_free(dpa, out));
	TRY(doca_flow_dpa_pipe_destroy(ctx, dpa_pipe));
	TRY(doca_flow_dpa_queues_destroy(ctx, ports[0]));
	TRY(doca_flow_dpa_destroy(ctx));
	TRY(doca_dpa_destroy(dpa));
	for (int i = 1; i >= 0; i--)
		TRY(doca_flow_port_stop(ports[i]));
	doca_flow_destroy();
	TRY(doca_dev_close(dev));
	return 0;
}
