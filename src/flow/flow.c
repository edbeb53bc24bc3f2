/*
 * flow.c - DOCA Flow global configuration, init/destroy and ports on the software NIC.
 * A port is a NIC port with the same logical id, its entry queues and its shared
 * counters; starting it also attaches the FLOWDPA_PORTn_RX/TX traffic configuration.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW);

struct flow_global flow_g = {.lock = PTHREAD_MUTEX_INITIALIZER};

void flow_log_not_inited(const char *who)
{
	CORE_LOG_ERR("%s: DOCA Flow is not initialized (call doca_flow_init first)", who);
}

/* A stopped port stays allocated (DEAD) until doca_flow_destroy, so its handle can be
 * refused without reading freed memory. */
doca_error_t flow_port_check(const struct doca_flow_port *port, const char *who)
{
	CHECK(port != NULL, DOCA_ERROR_INVALID_VALUE, "%s: port is NULL", who);
	CHECK(port->magic != FLOW_PORT_DEAD, DOCA_ERROR_BAD_STATE, "%s: port %u was stopped", who, port->id);
	CHECK(port->magic == FLOW_PORT_MAGIC, DOCA_ERROR_INVALID_VALUE, "%s: not a DOCA Flow port", who);
	return DOCA_SUCCESS;
}

void flow_log_pipe_invalid(const struct doca_flow_pipe *pipe, const char *who)
{
	if (pipe == NULL)
		CORE_LOG_ERR("%s: pipe is NULL", who);
	else if ((uintptr_t)pipe % _Alignof(struct doca_flow_pipe) != 0)
		CORE_LOG_ERR("%s: not a DOCA Flow pipe", who);
	else if (pipe->magic == FLOW_PIPE_DEAD)
		CORE_LOG_ERR("%s: pipe '%s' was destroyed", who, pipe->name);
	else
		CORE_LOG_ERR("%s: not a DOCA Flow pipe", who);
}

#define CHECK_CFG(cfg) CHECK((cfg) != NULL, DOCA_ERROR_INVALID_VALUE, "%s: cfg is NULL", __func__)

/* ------------------------------------------------------------------ global cfg */

doca_error_t doca_flow_cfg_create(struct doca_flow_cfg **cfg)
{
	CHECK_CFG(cfg);
	struct doca_flow_cfg *c = core_calloc(1, sizeof(*c));
	if (c == NULL)
		return CORE_LOG_NOMEM(__func__, "the cfg");
	c->pipe_queues = 1;
	c->nr_shared[DOCA_FLOW_SHARED_RESOURCE_COUNTER] = FLOW_DEFAULT_SHARED_COUNTERS;
	*cfg = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_destroy(struct doca_flow_cfg *cfg)
{
	CHECK_CFG(cfg);
	free(cfg);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_pipe_queues(struct doca_flow_cfg *cfg, uint16_t pipe_queues)
{
	CHECK_CFG(cfg);
	if (pipe_queues == 0 || pipe_queues > FLOW_MAX_QUEUES) {
		CORE_LOG_ERR("%s: pipe_queues %u out of range 1..%u", __func__, pipe_queues, FLOW_MAX_QUEUES);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->pipe_queues = pipe_queues;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_mode_args(struct doca_flow_cfg *cfg, const char *mode_args)
{
	CHECK_CFG(cfg);
	if (mode_args == NULL) {
		CORE_LOG_ERR("%s: mode_args is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	size_t n = strcspn(mode_args, ",");
	if (n == 3 && strncmp(mode_args, "vnf", 3) == 0)
		cfg->switch_mode = false;
	else if (n == 6 && strncmp(mode_args, "switch", 6) == 0)
		cfg->switch_mode = true;
	else {
		CORE_LOG_ERR("%s: mode '%.*s' is neither 'vnf' nor 'switch'", __func__, (int)n, mode_args);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_nr_counters(struct doca_flow_cfg *cfg, uint32_t nr_counters)
{
	CHECK_CFG(cfg);
	cfg->nr_counters = nr_counters;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_nr_meters(struct doca_flow_cfg *cfg, uint32_t nr_meters)
{
	CHECK_CFG(cfg);
	(void)nr_meters;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_nr_shared_resource(struct doca_flow_cfg *cfg, uint32_t nr_shared_resource,
						  enum doca_flow_shared_resource_type type)
{
	CHECK_CFG(cfg);
	if ((uint32_t)type > DOCA_FLOW_SHARED_RESOURCE_IPSEC_SA) {
		CORE_LOG_ERR("%s: unknown shared resource type %u", __func__, (unsigned)type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->nr_shared[type] = nr_shared_resource;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_queue_depth(struct doca_flow_cfg *cfg, uint32_t queue_depth)
{
	CHECK_CFG(cfg);
	(void)queue_depth;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_cb_pipe_process(struct doca_flow_cfg *cfg, doca_flow_pipe_process_cb cb)
{
	CHECK_CFG(cfg);
	cfg->pipe_cb = cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_cb_entry_process(struct doca_flow_cfg *cfg, doca_flow_entry_process_cb cb)
{
	CHECK_CFG(cfg);
	cfg->entry_cb = cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_cb_shared_resource_unbind(struct doca_flow_cfg *cfg,
							 doca_flow_shared_resource_unbind_cb cb)
{
	CHECK_CFG(cfg);
	(void)cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_rss_key(struct doca_flow_cfg *cfg, const uint8_t *rss_key, uint32_t rss_key_len)
{
	CHECK_CFG(cfg);
	if (rss_key == NULL && rss_key_len) {
		CORE_LOG_ERR("%s: rss_key is NULL with length %u", __func__, rss_key_len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_nr_acl_collisions(struct doca_flow_cfg *cfg, uint8_t nr_acl_collisions)
{
	CHECK_CFG(cfg);
	(void)nr_acl_collisions;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_definitions(struct doca_flow_cfg *cfg, const struct doca_flow_definitions *defs)
{
	CHECK_CFG(cfg);
	(void)defs;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_cfg_set_resource_mode(struct doca_flow_cfg *cfg, const enum doca_flow_resource_mode mode)
{
	CHECK_CFG(cfg);
	if (mode != DOCA_FLOW_RESOURCE_MODE_SYSTEM && mode != DOCA_FLOW_RESOURCE_MODE_PORT) {
		CORE_LOG_ERR("%s: unknown resource mode %u", __func__, (unsigned)mode);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->resource_mode = mode;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_init(struct doca_flow_cfg *cfg)
{
	CHECK_CFG(cfg);
	if (core_config_get() == NULL) {
		CORE_LOG_ERR("%s: the flowdpa configuration is invalid (see the message above)", __func__);
		return core_config_status();
	}
	pthread_mutex_lock(&flow_g.lock);
	if (flow_g.inited) {
		pthread_mutex_unlock(&flow_g.lock);
		CORE_LOG_ERR("%s: DOCA Flow is already initialized", __func__);
		return DOCA_ERROR_BAD_STATE;
	}
	flow_g.cfg = *cfg;
	flow_g.inited = true;
	flow_g.gen++;
	pthread_mutex_unlock(&flow_g.lock);
	CORE_LOG_TRC("doca_flow_init: pipe_queues=%u mode=%s", cfg->pipe_queues, cfg->switch_mode ? "switch" : "vnf");
	return DOCA_SUCCESS;
}

static void port_free(struct doca_flow_port *p);

void doca_flow_destroy(void)
{
	if (!flow_g.inited)
		return;
	const struct doca_flow_port *busy = flow_in_entry_cb(NULL);
	if (busy) {
		/* Destroying would free the port and queue the loop is walking. */
		CORE_LOG_ERR("doca_flow_destroy: called from an entry callback of doca_flow_entries_process on port "
			     "%u, which still uses the port's queue; nothing destroyed: call it after "
			     "doca_flow_entries_process returns",
			     busy->id);
		return;
	}
	CORE_LOG_TRC("doca_flow_destroy: stopping the ports still started and freeing every pipe");
	/* In reverse start order, as programs do (docs/flow.md, Model): representors before
	 * their switch manager, whatever the port ids. */
	for (uint64_t below = UINT64_MAX;;) {
		struct doca_flow_port *last = NULL;
		pthread_mutex_lock(&flow_g.lock);
		for (int i = 0; i < NIC_MAX_PORTS; i++) {
			struct doca_flow_port *o = flow_g.ports[i];
			if (o && o->start_seq < below && (last == NULL || o->start_seq > last->start_seq))
				last = o;
		}
		pthread_mutex_unlock(&flow_g.lock);
		if (last == NULL)
			break;
		below = last->start_seq;
		doca_flow_port_stop(last);
	}
	pthread_mutex_lock(&flow_g.lock);
	struct doca_flow_pipe *p = flow_g.all_pipes;
	flow_g.all_pipes = NULL;
	struct doca_flow_external_resource *r = flow_g.resources;
	flow_g.resources = NULL;
	struct doca_flow_port *dead = flow_g.dead_ports;
	flow_g.dead_ports = NULL;
	flow_g.inited = false;
	for (struct doca_flow_external_resource *o = r; o; o = o->next)
		flow_export_detach_all(&o->exports, "doca_flow_destroy ran");
	pthread_mutex_unlock(&flow_g.lock);
	nic_shutdown();
	flow_op_cache_drain();
	while (dead) {
		struct doca_flow_port *next = dead->dead_next;
		port_free(dead);
		dead = next;
	}
	while (p) {
		struct doca_flow_pipe *next = p->all_next;
		p->magic = 0;
		free(p->live);
		free(p);
		p = next;
	}
	flow_pipe_ids_free();
	while (r) {
		struct doca_flow_external_resource *next = r->next;
		nic_idxsel_destroy(r->sel);
		nic_mem_destroy(r->mem);
		r->magic = 0;
		free(r);
		r = next;
	}
}

/* ------------------------------------------------------------------ port cfg */

#define CHECK_PCFG(cfg) CHECK((cfg) != NULL, DOCA_ERROR_INVALID_VALUE, "%s: port cfg is NULL", __func__)

doca_error_t doca_flow_port_cfg_create(struct doca_flow_port_cfg **cfg)
{
	CHECK_PCFG(cfg);
	*cfg = core_calloc(1, sizeof(**cfg));
	return *cfg ? DOCA_SUCCESS : CORE_LOG_NOMEM(__func__, "the port cfg");
}

doca_error_t doca_flow_port_cfg_destroy(struct doca_flow_port_cfg *cfg)
{
	CHECK_PCFG(cfg);
	free(cfg);
	return DOCA_SUCCESS;
}

/* "bb:dd.f" or "dddd:bb:dd.f" in hex (what doca_caps prints, DPDK's short form). */
static bool pci_shaped(const char *s, size_t n)
{
	static const char shape[] = "hhhh:hh:hh.h";
	const char *want = n == 7 ? shape + 5 : n == 12 ? shape : NULL;
	for (size_t i = 0; want && i < n; i++)
		if (want[i] == 'h' ? !isxdigit((unsigned char)s[i]) : s[i] != want[i])
			return false;
	return want != NULL;
}

/* The inventory index of the emulated device with PCI address addr; -1 when none. */
static int device_by_pci(const char *addr)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	int found = -1;
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return -1;
	for (uint32_t i = 0; i < n && found < 0; i++) {
		uint8_t eq = 0;
		if (doca_devinfo_is_equal_pci_addr(list[i], addr, &eq) == DOCA_SUCCESS && eq)
			found = (int)core_devinfo_caps(list[i])->index;
	}
	doca_devinfo_destroy_list(list);
	return found;
}

/*
 * DOCA's devargs forms: a port number ("0": the DPDK port id of DOCA's samples), the PCI
 * address of an emulated device ("03:00.0" or "0000:03:00.0"), either followed by
 * ",key=value" options, or options alone ("th_win_us=0", which flow_common passes next
 * to set_dev). A number or an address names the device: a cfg with neither set_dev nor
 * set_dev_rep then starts as a device port. Anything else is refused here rather than
 * accepted now and refused at doca_flow_port_start.
 */
doca_error_t doca_flow_port_cfg_set_devargs(struct doca_flow_port_cfg *cfg, const char *devargs)
{
	CHECK_PCFG(cfg);
	if (devargs == NULL) {
		CORE_LOG_ERR("%s: devargs is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	size_t n = strcspn(devargs, ",");
	if (memchr(devargs, '=', n) != NULL || n == 0)
		return DOCA_SUCCESS; /* options only */
	const struct core_config *conf = core_config_get();
	uint32_t nr_ports = 0;
	for (uint32_t i = 0; conf && i < conf->nr_devices; i++)
		nr_ports += conf->devices[i].nr_ports;
	char first[16];
	snprintf(first, sizeof(first), "%.*s", (int)(n < sizeof(first) ? n : sizeof(first) - 1), devargs);
	int dev = -1;
	if (strspn(devargs, "0123456789") == n) {
		unsigned long id = n < 6 ? strtoul(first, NULL, 10) : ULONG_MAX;
		CHECK(id < nr_ports, DOCA_ERROR_INVALID_VALUE,
		      "%s: devargs \"%s\": port number %s does not exist (the emulated devices have %u ports, 0..%u); or "
		      "open the device and call doca_flow_port_cfg_set_dev",
		      __func__, devargs, first, nr_ports, nr_ports ? nr_ports - 1 : 0);
		/* Numbered across the devices in inventory order, as DPDK probes them. */
		uint32_t left = (uint32_t)id;
		for (dev = 0; left >= conf->devices[dev].nr_ports; dev++)
			left -= conf->devices[dev].nr_ports;
	} else if (pci_shaped(devargs, n)) {
		dev = device_by_pci(first);
		CHECK(dev >= 0, DOCA_ERROR_INVALID_VALUE,
		      "%s: devargs \"%s\": no emulated device has PCI address %s (doca_caps lists them); or open the "
		      "device and call doca_flow_port_cfg_set_dev",
		      __func__, devargs, first);
	} else {
		CORE_LOG_ERR("%s: devargs \"%s\" is neither a port number, the PCI address of an emulated device "
			     "(doca_caps lists them) nor key=value options; to choose the device, open it and call "
			     "doca_flow_port_cfg_set_dev",
			     __func__, devargs);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->devargs_dev = true;
	cfg->devargs_dev_index = (uint32_t)dev;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_cfg_set_dev(struct doca_flow_port_cfg *cfg, struct doca_dev *dev)
{
	CHECK_PCFG(cfg);
	cfg->has_dev = true;
	cfg->dev = dev;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_cfg_set_dev_rep(struct doca_flow_port_cfg *cfg, struct doca_dev_rep *dev)
{
	CHECK_PCFG(cfg);
	cfg->has_dev_rep = true;
	cfg->dev_rep = dev;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_cfg_set_port_id(struct doca_flow_port_cfg *cfg, uint16_t port_id)
{
	CHECK_PCFG(cfg);
	if (port_id >= NIC_MAX_PORTS) {
		CORE_LOG_ERR("%s: port_id %u out of range 0..%u", __func__, port_id, NIC_MAX_PORTS - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->has_port_id = true;
	cfg->port_id = port_id;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_cfg_set_actions_mem_size(struct doca_flow_port_cfg *cfg, uint32_t size)
{
	CHECK_PCFG(cfg);
	(void)size;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_cfg_set_nr_resources(struct doca_flow_port_cfg *cfg, enum doca_flow_resource resource,
						 uint32_t nr_resources)
{
	CHECK_PCFG(cfg);
	if ((uint32_t)resource > DOCA_FLOW_RESOURCE_IPSEC_SA) {
		CORE_LOG_ERR("%s: unknown resource %u", __func__, (unsigned)resource);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->nr_resources[resource] = nr_resources;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_cfg_set_priv_data_size(struct doca_flow_port_cfg *cfg, uint16_t priv_data_size)
{
	CHECK_PCFG(cfg);
	cfg->priv_data_size = priv_data_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_port_cfg_set_service_threads_cycle(struct doca_flow_port_cfg *cfg, uint32_t cycle_ms)
{
	CHECK_PCFG(cfg);
	(void)cycle_ms;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ ports */

/* "drop_reasons": {"fwd_drop": 3, ...}, every reason the NIC counts, by its name. */
static void report_drop_reasons(struct core_json *j, const struct nic_port_stats *s)
{
	core_json_key(j, "drop_reasons");
	core_json_object_begin(j);
	for (unsigned r = 0; r < NIC_DROP_NR_REASONS; r++) {
		core_json_key(j, nic_drop_reason_name(r));
		core_json_u64(j, s->drop_reason[r]);
	}
	core_json_object_end(j);
}

/* "top_entries": the FLOWDPA_REPORT_TOP entries of the pipe hit most, each named by
 * pipe, index and match, with its packets and bytes (every entry counts its hits while
 * the report is on, COUNT action or not). */
static void report_top_entries(struct core_json *j, const struct doca_flow_pipe *pp)
{
	const struct core_config *cfg = core_config_get();
	uint32_t top = cfg ? cfg->report_top : 10;
	struct nic_entry_hits *h = top ? core_calloc(top, sizeof(*h)) : NULL;
	uint32_t n = h ? nic_pipe_top_hits(pp->nic, top, h) : 0;

	core_json_key(j, "top_entries");
	core_json_array_begin(j);
	for (uint32_t i = 0; i < n; i++) {
		core_json_object_begin(j);
		core_json_key(j, "pipe");
		core_json_str(j, pp->name);
		core_json_key(j, "index");
		core_json_u64(j, h[i].index);
		core_json_key(j, "match");
		core_json_str(j, h[i].match);
		core_json_key(j, "pkts");
		core_json_u64(j, h[i].pkts);
		core_json_key(j, "bytes");
		core_json_u64(j, h[i].bytes);
		core_json_object_end(j);
	}
	core_json_array_end(j);
	free(h);
}

void flow_pipe_report(struct core_json *j, void *arg)
{
	const struct doca_flow_pipe *pp = arg;
	uint64_t mp, mb;

	core_json_key(j, "name");
	core_json_str(j, pp->name);
	core_json_key(j, "port_id");
	core_json_u64(j, pp->port->id);
	core_json_key(j, "entries");
	core_json_u64(j, nic_pipe_nr_live_entries(pp->nic));
	core_json_key(j, "lookup");
	core_json_str(j, nic_pipe_lookup_path(pp->nic));
	if (nic_pipe_miss_read(pp->nic, &mp, &mb) == DOCA_SUCCESS) {
		core_json_key(j, "miss_pkts");
		core_json_u64(j, mp);
	}
	report_top_entries(j, pp);
}

/* FLOWDPA_REPORT section of a port: NIC statistics and each pipe's counters. */
static void port_report(struct core_json *j, void *arg)
{
	const struct doca_flow_port *p = arg;
	struct nic_port_stats s;
	core_json_key(j, "port_id");
	core_json_u64(j, p->id);
	if (nic_port_stats_get(p->id, &s) == DOCA_SUCCESS) {
		const struct {
			const char *k;
			uint64_t v;
		} f[] = {{"rx_pkts", s.rx_pkts},	 {"rx_bytes", s.rx_bytes},   {"rx_errors", s.rx_errors},
			 {"tx_pkts", s.tx_pkts},	 {"tx_bytes", s.tx_bytes},   {"host_pkts", s.host_pkts},
			 {"drops", s.drops},		 {"capture_overflow", s.capture_overflow}};
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			core_json_key(j, f[i].k);
			core_json_u64(j, f[i].v);
		}
		report_drop_reasons(j, &s);
	}
	core_json_key(j, "pipes");
	core_json_array_begin(j);
	for (const struct doca_flow_pipe *pp = p->pipes; pp; pp = pp->port_next) {
		uint64_t mp, mb;
		core_json_object_begin(j);
		core_json_key(j, "name");
		core_json_str(j, pp->name);
		core_json_key(j, "entries");
		core_json_u64(j, nic_pipe_nr_live_entries(pp->nic));
		if (nic_pipe_miss_read(pp->nic, &mp, &mb) == DOCA_SUCCESS) {
			core_json_key(j, "miss_pkts");
			core_json_u64(j, mp);
		}
		core_json_object_end(j);
	}
	core_json_array_end(j);
}

/* What a port owns besides its struct: released when it stops. */
static void port_release(struct doca_flow_port *p)
{
	flow_aging_port_free(p);
	for (uint16_t q = 0; q < p->nr_queues; q++)
		free(p->queues[q].ring);
	free(p->queues);
	p->queues = NULL;
	p->nr_queues = 0;
	free(p->shared_counters);
	p->shared_counters = NULL;
	p->nr_shared_counters = 0;
	free(p->priv);
	p->priv = NULL;
}

static void port_free(struct doca_flow_port *p)
{
	port_release(p);
	p->magic = 0;
	free(p);
}

/* Under flow_g.lock: the manager a representor starting now belongs to, the last
 * manager started (representors follow theirs, docs/flow.md, Model). */
static struct doca_flow_port *newest_manager_locked(void)
{
	struct doca_flow_port *best = NULL;
	for (int i = 0; i < NIC_MAX_PORTS; i++) {
		struct doca_flow_port *o = flow_g.ports[i];
		if (o && o->is_manager && (best == NULL || o->start_seq > best->start_seq))
			best = o;
	}
	return best;
}

doca_error_t doca_flow_port_start(const struct doca_flow_port_cfg *cfg, struct doca_flow_port **port)
{
	CHECK_PCFG(cfg);
	if (port == NULL) {
		CORE_LOG_ERR("%s: port is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	if (!cfg->has_port_id) {
		CORE_LOG_ERR("%s: the port cfg has no port id (doca_flow_port_cfg_set_port_id)", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	nic_traffic_start_tried(cfg->port_id);
	/* devargs naming a device stand for set_dev when neither handle is set. */
	bool as_dev = cfg->has_dev || (cfg->devargs_dev && !cfg->has_dev_rep);
	if (as_dev == cfg->has_dev_rep) {
		CORE_LOG_ERR("%s: port %u: set exactly one of a device (doca_flow_port_cfg_set_dev, or devargs naming a "
			     "port number or PCI address) or a representor (doca_flow_port_cfg_set_dev_rep)",
			     __func__, cfg->port_id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cfg->has_dev && cfg->dev && core_dev_caps(cfg->dev) && !core_dev_caps(cfg->dev)->has_flow) {
		CORE_LOG_ERR("%s: port %u: device %s has no flow steering", __func__, cfg->port_id,
			     core_dev_caps(cfg->dev)->model_name);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	struct doca_flow_port *p = core_calloc(1, sizeof(*p));
	if (p == NULL)
		return CORE_LOG_NOMEM(__func__, "the port");
	doca_error_t err = DOCA_ERROR_NO_MEMORY;
	p->id = cfg->port_id;
	p->is_manager = flow_g.cfg.switch_mode && as_dev;
	p->queues = core_calloc_aligned(_Alignof(struct flow_queue), flow_g.cfg.pipe_queues * sizeof(*p->queues));
	if (p->queues == NULL) {
		(void)CORE_LOG_NOMEM(__func__, "the entry queues");
		goto fail;
	}
	p->nr_queues = flow_g.cfg.pipe_queues; /* zeroed: unlocked and empty */
	uint32_t nsc = flow_g.cfg.resource_mode == DOCA_FLOW_RESOURCE_MODE_PORT
			       ? cfg->nr_resources[DOCA_FLOW_RESOURCE_COUNTER]
			       : flow_g.cfg.nr_shared[DOCA_FLOW_SHARED_RESOURCE_COUNTER];
	p->nr_shared_counters = nsc;
	p->shared_counters = nsc ? core_calloc(nsc, sizeof(*p->shared_counters)) : NULL;
	p->priv = cfg->priv_data_size ? core_calloc(1, cfg->priv_data_size) : NULL;
	if ((nsc && p->shared_counters == NULL) || (cfg->priv_data_size && p->priv == NULL)) {
		(void)CORE_LOG_NOMEM(__func__,
				     p->priv == NULL && cfg->priv_data_size ? "the private data" : "the shared counters");
		goto fail;
	}

	bool held = false;
	pthread_mutex_lock(&flow_g.lock);
	if (flow_g.ports[p->id]) {
		CORE_LOG_ERR("%s: port id %u is already started", __func__, p->id);
		err = DOCA_ERROR_ALREADY_EXIST;
		goto unlock;
	}
	if (cfg->has_dev && cfg->dev) {
		err = core_dev_hold(cfg->dev, p, "doca_flow port %u", p->id); /* logs why it cannot */
		if (err != DOCA_SUCCESS)
			goto unlock;
		held = true;
	}
	err = nic_port_start(p->id);
	if (err != DOCA_SUCCESS)
		goto unlock;
	if (flow_g.cfg.switch_mode && !p->is_manager)
		p->manager = newest_manager_locked();
	err = nic_traffic_attach(p->id, flow_queue_warn_unprocessed, p);
	/* A representor's traffic starts at its manager's root pipe. */
	if (err == DOCA_SUCCESS && p->manager)
		err = nic_port_set_manager(p->id, p->manager->id);
	if (err != DOCA_SUCCESS) {
		doca_error_t stop_err = nic_port_stop(p->id); /* nothing was captured yet */
		(void)stop_err;
		goto unlock;
	}
	p->dev = cfg->dev;
	p->magic = FLOW_PORT_MAGIC;
	p->started = true;
	p->start_seq = ++flow_g.start_seq;
	flow_g.ports[p->id] = p;
	p->report = core_report_register("flow_port", port_report, p);
	const struct core_dev_caps *caps = p->dev ? core_dev_caps(p->dev) : NULL;
	uint32_t dev_index = caps ? caps->index : cfg->devargs_dev && !cfg->has_dev ? cfg->devargs_dev_index : 0;
	nic_port_set_trace_pid(p->id, dev_index + 1);
unlock:
	pthread_mutex_unlock(&flow_g.lock);
	if (err != DOCA_SUCCESS) {
		if (held)
			core_dev_release(cfg->dev, p);
		goto fail;
	}
	CORE_LOG_TRC("doca_flow_port_start: port %u%s", p->id, p->is_manager ? " (switch manager)" : "");
	*port = p;
	return DOCA_SUCCESS;

fail:
	port_free(p);
	return err;
}

void doca_flow_port_pipes_flush(struct doca_flow_port *port)
{
	if (!flow_inited(__func__) || flow_port_check(port, __func__) != DOCA_SUCCESS)
		return;
	CORE_LOG_TRC("doca_flow_port_pipes_flush: port %u", port->id);
	pthread_mutex_lock(&flow_g.lock);
	while (port->pipes)
		flow_pipe_destroy_locked(port->pipes);
	pthread_mutex_unlock(&flow_g.lock);
}

/*
 * The port's pipes are destroyed with it, and with them every operation still queued
 * on its queues: each operation belongs to an entry of one of the port's live pipes
 * (check_common refuses dead pipes, and flow_pipe_destroy_locked drops a pipe's
 * operations), so nothing is left on a queue afterwards. The port stays allocated,
 * DEAD, until doca_flow_destroy: a second stop or any call with its handle is refused
 * with BAD_STATE. IO_FAILED: the port is stopped all the same, but its
 * FLOWDPA_PORTn_TX capture could not be written completely.
 */
doca_error_t doca_flow_port_stop(struct doca_flow_port *port)
{
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	/* The stop would free the queue the loop is walking. */
	CHECK(flow_in_entry_cb(port) == NULL, DOCA_ERROR_BAD_STATE,
	      "%s: port %u: called from an entry callback of doca_flow_entries_process on this port, which still "
	      "uses the port's queue; stop the port after doca_flow_entries_process returns",
	      __func__, port->id);
	pthread_mutex_lock(&flow_g.lock);
	doca_error_t err = flow_port_check(port, __func__);
	if (err != DOCA_SUCCESS) {
		pthread_mutex_unlock(&flow_g.lock);
		return err;
	}
	for (int i = 0; port->is_manager && i < NIC_MAX_PORTS; i++) {
		struct doca_flow_port *o = flow_g.ports[i];
		if (o && o->manager == port) {
			pthread_mutex_unlock(&flow_g.lock);
			CORE_LOG_ERR("%s: switch manager port %u still has representor port %u started", __func__,
				     port->id, o->id);
			return DOCA_ERROR_IN_USE;
		}
	}
	/* Final state into the report while the pipes still exist. */
	core_report_unregister(port->report);
	port->report = NULL;
	while (port->pipes)
		flow_pipe_destroy_locked(port->pipes);
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		if (flow_g.ports[i] && flow_g.ports[i]->pair == port)
			flow_g.ports[i]->pair = NULL;
	flow_g.ports[port->id] = NULL;
	port->started = false;
	port->magic = FLOW_PORT_DEAD;
	port->dead_next = flow_g.dead_ports;
	flow_g.dead_ports = port;
	pthread_mutex_unlock(&flow_g.lock);
	/* The NIC logs a TX capture that could not be written (IO_FAILED). */
	err = nic_port_stop(port->id);
	if (port->dev)
		core_dev_release(port->dev, port);
	port_release(port);
	CORE_LOG_TRC("doca_flow_port_stop: port %u stopped and destroyed", port->id);
	return err;
}

doca_error_t doca_flow_port_pair(struct doca_flow_port *port, struct doca_flow_port *pair_port)
{
	doca_error_t err = flow_port_check(port, __func__);
	if (err == DOCA_SUCCESS)
		err = flow_port_check(pair_port, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	port->pair = pair_port;
	return DOCA_SUCCESS;
}

uint8_t *doca_flow_port_priv_data(struct doca_flow_port *port)
{
	if (flow_port_check(port, __func__) != DOCA_SUCCESS)
		return NULL;
	return port->priv;
}

struct doca_flow_port *doca_flow_port_switch_get(const struct doca_flow_port *port)
{
	if (!flow_g.inited || !flow_g.cfg.switch_mode)
		return NULL;
	struct doca_flow_port *best = NULL;
	pthread_mutex_lock(&flow_g.lock);
	if (port == NULL) {
		/* The first manager started. */
		for (int i = 0; i < NIC_MAX_PORTS; i++) {
			struct doca_flow_port *o = flow_g.ports[i];
			if (o && o->is_manager && (best == NULL || o->start_seq < best->start_seq))
				best = o;
		}
	} else if (flow_port_check(port, __func__) == DOCA_SUCCESS) {
		/* A manager cannot stop before its representors: the one stored is started. */
		best = port->is_manager ? (struct doca_flow_port *)port : port->manager;
	}
	pthread_mutex_unlock(&flow_g.lock);
	return best;
}
