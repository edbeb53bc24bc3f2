/*
 * flow_pipe.c - DOCA Flow pipe configuration, creation, destruction, fwd_miss update,
 * dump and calc_hash. A pipe cfg is copied whole into the pipe at creation (samples
 * destroy the cfg right after), templates are translated once, and the NIC pipe is
 * built from them.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "flow_field.h"
#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::PIPE);

#define CHECK_CFG(cfg) CHECK((cfg) != NULL, DOCA_ERROR_INVALID_VALUE, "%s: pipe cfg is NULL", __func__)

doca_error_t doca_flow_pipe_cfg_create(struct doca_flow_pipe_cfg **cfg, struct doca_flow_port *port)
{
	CHECK_CFG(cfg);
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	/* As doca_flow_pipe_create: NULL or not a port INVALID_VALUE, stopped BAD_STATE. */
	doca_error_t err = flow_port_check(port, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	struct doca_flow_pipe_cfg *c = core_calloc(1, sizeof(*c));
	if (c == NULL)
		return CORE_LOG_NOMEM(__func__, "the pipe cfg");
	c->port = port;
	c->nr_entries = FLOW_DEFAULT_NR_ENTRIES;
	c->gen = flow_g.gen;
	*cfg = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_destroy(struct doca_flow_pipe_cfg *cfg)
{
	CHECK_CFG(cfg);
	/* The resources it holds; gone already if their session ended. */
	pthread_mutex_lock(&flow_g.lock);
	if (flow_g.inited && cfg->gen == flow_g.gen) {
		/* Each was counted once by doca_flow_pipe_cfg_set_external_resource. */
		assert(cfg->idxsel == NULL || cfg->idxsel->cfg_held > 0);
		assert(cfg->mem == NULL || cfg->mem->cfg_held > 0);
		if (cfg->idxsel)
			cfg->idxsel->cfg_held--;
		if (cfg->mem)
			cfg->mem->cfg_held--;
	}
	pthread_mutex_unlock(&flow_g.lock);
	free(cfg->descs);
	free(cfg);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_name(struct doca_flow_pipe_cfg *cfg, const char *name)
{
	CHECK_CFG(cfg);
	CHECK(name != NULL, DOCA_ERROR_INVALID_VALUE, "%s: name is NULL", __func__);
	snprintf(cfg->name, sizeof(cfg->name), "%s", name);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_label(struct doca_flow_pipe_cfg *cfg, const char *label)
{
	CHECK_CFG(cfg);
	CHECK(label != NULL, DOCA_ERROR_INVALID_VALUE, "%s: label is NULL", __func__);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_type(struct doca_flow_pipe_cfg *cfg, enum doca_flow_pipe_type type)
{
	CHECK_CFG(cfg);
	CHECK((uint32_t)type <= DOCA_FLOW_PIPE_HASH, DOCA_ERROR_INVALID_VALUE, "%s: unknown pipe type %u", __func__,
	      (unsigned)type);
	cfg->type = type;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_domain(struct doca_flow_pipe_cfg *cfg, enum doca_flow_pipe_domain domain)
{
	CHECK_CFG(cfg);
	CHECK((uint32_t)domain <= DOCA_FLOW_PIPE_DOMAIN_SECURE_EGRESS, DOCA_ERROR_INVALID_VALUE,
	      "%s: unknown domain %u", __func__, (unsigned)domain);
	cfg->domain = domain;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_is_root(struct doca_flow_pipe_cfg *cfg, bool is_root)
{
	CHECK_CFG(cfg);
	cfg->is_root = is_root;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_nr_entries(struct doca_flow_pipe_cfg *cfg, uint32_t nr_entries)
{
	CHECK_CFG(cfg);
	CHECK(nr_entries > 0, DOCA_ERROR_INVALID_VALUE, "%s: nr_entries is 0", __func__);
	cfg->nr_entries = nr_entries;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_match(struct doca_flow_pipe_cfg *cfg, const struct doca_flow_match *match,
					  const struct doca_flow_match *match_mask)
{
	CHECK_CFG(cfg);
	cfg->has_match = true;
	cfg->match_is_null = match == NULL;
	memset(&cfg->match, 0, sizeof(cfg->match));
	if (match)
		cfg->match = *match;
	cfg->has_match_mask = match_mask != NULL;
	if (match_mask)
		cfg->match_mask = *match_mask;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_actions(struct doca_flow_pipe_cfg *cfg, struct doca_flow_actions *const *actions,
					    struct doca_flow_actions *const *actions_masks,
					    struct doca_flow_action_descs *const *action_descs, size_t nr_actions)
{
	CHECK_CFG(cfg);
	CHECK(nr_actions <= FLOW_MAX_ACTIONS, DOCA_ERROR_INVALID_VALUE, "%s: nr_actions %zu > %d", __func__,
	      nr_actions, FLOW_MAX_ACTIONS);
	/* Descriptors are copied (checked) first, so a refusal leaves the cfg as it was. */
	struct flow_descs_copy *descs = NULL;
	for (size_t i = 0; action_descs && i < nr_actions; i++) {
		if (action_descs[i] == NULL || action_descs[i]->nb_action_desc == 0)
			continue;
		if (descs == NULL && (descs = core_calloc(FLOW_MAX_ACTIONS, sizeof(*descs))) == NULL)
			return CORE_LOG_NOMEM(__func__, "the action descs");
		doca_error_t err = flow_descs_copy(action_descs[i], &descs[i], __func__);
		if (err != DOCA_SUCCESS) {
			free(descs);
			return err;
		}
	}
	free(cfg->descs);
	cfg->descs = descs;
	cfg->nr_actions = (uint32_t)nr_actions;
	for (size_t i = 0; i < nr_actions; i++) {
		cfg->actions_null[i] = actions == NULL || actions[i] == NULL;
		if (!cfg->actions_null[i])
			cfg->actions[i] = *actions[i];
		cfg->has_actions_mask[i] = actions_masks && actions_masks[i];
		if (cfg->has_actions_mask[i])
			cfg->actions_mask[i] = *actions_masks[i];
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_monitor(struct doca_flow_pipe_cfg *cfg, const struct doca_flow_monitor *monitor)
{
	CHECK_CFG(cfg);
	CHECK(monitor != NULL, DOCA_ERROR_INVALID_VALUE, "%s: monitor is NULL", __func__);
	cfg->has_monitor = true;
	cfg->monitor = *monitor;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_miss_counter(struct doca_flow_pipe_cfg *cfg, bool miss_counter)
{
	CHECK_CFG(cfg);
	cfg->miss_counter = miss_counter;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_user_ctx(struct doca_flow_pipe_cfg *cfg, void *user_ctx)
{
	CHECK_CFG(cfg);
	cfg->user_ctx = user_ctx;
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_cfg_set_hash_map_algorithm(struct doca_flow_pipe_cfg *cfg, uint32_t algorithm_flags)
{
	CHECK_CFG(cfg);
	/* The rule is the NIC's (its bits are DOCA's: flow_nic_contract.c); the refusal is logged here. */
	CHECK(nic_map_algorithm_valid(algorithm_flags), DOCA_ERROR_INVALID_VALUE,
	      "%s: flags 0x%x must be one of HASH, RANDOM, IDENTITY, ROUND_ROBIN, FLOODING, optionally with "
	      "SELECT_ENABLED",
	      __func__, algorithm_flags);
	cfg->hash_alg = algorithm_flags;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------------ fwd */

doca_error_t flow_fwd_convert(const struct doca_flow_fwd *fwd, struct nic_fwd *out, const char *who)
{
	memset(out, 0, sizeof(*out));
	if (fwd == NULL)
		return DOCA_SUCCESS;
	switch (fwd->type) {
	case DOCA_FLOW_FWD_NONE:
		return DOCA_SUCCESS;
	case DOCA_FLOW_FWD_PORT:
		/* A port id that can never be started; one not started (yet, or any more) is
		 * accepted as on hardware, and its frames dropped (drop reason port_not_started). */
		CHECK(fwd->port_id < NIC_MAX_PORTS, DOCA_ERROR_INVALID_VALUE,
		      "%s: fwd port_id %u does not exist (port ids are 0..%u)", who, fwd->port_id, NIC_MAX_PORTS - 1);
		out->type = NIC_FWD_PORT;
		out->port_id = fwd->port_id;
		return DOCA_SUCCESS;
	case DOCA_FLOW_FWD_PIPE:
		if (!flow_pipe_valid(fwd->next_pipe, who))
			return DOCA_ERROR_INVALID_VALUE;
		out->type = NIC_FWD_PIPE;
		out->pipe = fwd->next_pipe->nic;
		return DOCA_SUCCESS;
	case DOCA_FLOW_FWD_DROP:
		out->type = NIC_FWD_DROP;
		return DOCA_SUCCESS;
	case DOCA_FLOW_FWD_RSS:
		out->type = NIC_FWD_HOST;
		return DOCA_SUCCESS;
	case DOCA_FLOW_FWD_TARGET:
		return flow_target_convert(fwd->target, out, who);
	case DOCA_FLOW_FWD_ORDERED_LIST_PIPE:
	case DOCA_FLOW_FWD_HASH_PIPE:
		CORE_LOG_ERR("%s: fwd type %u is not supported by the software NIC", who, (unsigned)fwd->type);
		return DOCA_ERROR_NOT_SUPPORTED;
	default:
		CORE_LOG_ERR("%s: unknown fwd type %u", who, (unsigned)fwd->type);
		return DOCA_ERROR_INVALID_VALUE;
	}
}

/* A pipe-level fwd that fixes the destination for every entry (no per-entry part). */
static bool fwd_is_fixed(const struct doca_flow_fwd *fwd)
{
	switch (fwd->type) {
	case DOCA_FLOW_FWD_PORT:
		return fwd->port_id != UINT16_MAX;
	case DOCA_FLOW_FWD_PIPE:
		return fwd->next_pipe != NULL;
	case DOCA_FLOW_FWD_TARGET:
		return fwd->target != NULL;
	case DOCA_FLOW_FWD_DROP:
	case DOCA_FLOW_FWD_RSS:
		return true;
	default:
		return false;
	}
}

/*
 * A miss has no entry to supply a destination, so a changeable one (CHANGEABLE, PORT
 * 0xffff, PIPE NULL) is INVALID_VALUE; any other fwd_miss is checked as flow_fwd_convert
 * checks it (types the NIC lacks: NOT_SUPPORTED).
 */
static doca_error_t fwd_miss_check(const struct doca_flow_fwd *fwd_miss, const char *name, const char *who)
{
	if (fwd_miss == NULL || fwd_miss->type == DOCA_FLOW_FWD_NONE || fwd_is_fixed(fwd_miss))
		return DOCA_SUCCESS;
	if (fwd_miss->type == DOCA_FLOW_FWD_CHANGEABLE || fwd_miss->type == DOCA_FLOW_FWD_PORT ||
	    fwd_miss->type == DOCA_FLOW_FWD_PIPE) {
		CORE_LOG_ERR("%s: pipe '%s': fwd_miss must name its destination", who, name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	struct nic_fwd unused;
	return flow_fwd_convert(fwd_miss, &unused, who);
}

/* ------------------------------------------------------------------ create */

static doca_error_t pipe_monitor(struct doca_flow_pipe *p, const struct doca_flow_pipe_cfg *cfg, const char *who)
{
	if (!cfg->has_monitor)
		return DOCA_SUCCESS;
	const struct doca_flow_monitor *m = &cfg->monitor;
	CHECK(m->meter_type == DOCA_FLOW_RESOURCE_TYPE_NONE, DOCA_ERROR_NOT_SUPPORTED,
	      "%s: pipe '%s': meters are not supported by the software NIC", who, cfg->name);
	p->aging_sec = m->aging_sec;
	if (m->counter_type == DOCA_FLOW_RESOURCE_TYPE_NON_SHARED) {
		p->counter_per_entry = true;
	} else if (m->counter_type == DOCA_FLOW_RESOURCE_TYPE_SHARED) {
		if (m->shared_counter.shared_counter_id == UINT32_MAX) {
			p->counter_shared_per_entry = true;
		} else {
			doca_error_t err = flow_shared_id_check(cfg->port, m->shared_counter.shared_counter_id, who);
			if (err != DOCA_SUCCESS)
				return err;
			p->counter_shared_fixed = true;
			p->shared_counter_id = m->shared_counter.shared_counter_id;
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_create(const struct doca_flow_pipe_cfg *cfg, const struct doca_flow_fwd *fwd,
				   const struct doca_flow_fwd *fwd_miss, struct doca_flow_pipe **pipe)
{
	static const char *who = "doca_flow_pipe_create";
	CHECK_CFG(cfg);
	CHECK(pipe != NULL, DOCA_ERROR_INVALID_VALUE, "%s: pipe is NULL", who);
	if (!flow_inited(who))
		return DOCA_ERROR_BAD_STATE;
	CHECK(cfg->gen == flow_g.gen, DOCA_ERROR_BAD_STATE,
	      "%s: pipe '%s': the cfg was created before doca_flow_destroy; its port is gone", who, cfg->name);
	doca_error_t err = flow_port_check(cfg->port, who);
	if (err != DOCA_SUCCESS)
		return err;
	if (cfg->type != DOCA_FLOW_PIPE_BASIC && cfg->type != DOCA_FLOW_PIPE_CONTROL && cfg->type != DOCA_FLOW_PIPE_HASH) {
		CORE_LOG_ERR("%s: pipe '%s': type %u (LPM, CT, ACL, ORDERED_LIST) is not supported", who, cfg->name,
			     (unsigned)cfg->type);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	CHECK(cfg->type == DOCA_FLOW_PIPE_HASH || cfg->hash_alg == 0, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s': a map algorithm is set on a non-hash pipe", who, cfg->name);
	doca_error_t miss_err = fwd_miss_check(fwd_miss, cfg->name, who);
	if (miss_err != DOCA_SUCCESS)
		return miss_err;

	struct doca_flow_pipe *p = core_calloc_aligned(_Alignof(struct doca_flow_pipe), sizeof(*p));
	if (p == NULL)
		return CORE_LOG_NOMEM(__func__, "the pipe");
	p->port = cfg->port;
	p->type = cfg->type;
	memcpy(p->name, cfg->name, sizeof(p->name));
	p->is_root = cfg->is_root;
	p->egress = cfg->domain == DOCA_FLOW_PIPE_DOMAIN_EGRESS || cfg->domain == DOCA_FLOW_PIPE_DOMAIN_SECURE_EGRESS;
	p->nr_entries = cfg->nr_entries;
	p->miss_counter = cfg->miss_counter;
	p->ps_field = -1;
	p->nr_actions = cfg->nr_actions ? cfg->nr_actions : 1;
	p->idxsel = cfg->idxsel;
	p->mem = cfg->mem;

	struct nic_pipe_attr *attr = core_calloc(1, sizeof(*attr));
	struct nic_prog *progs[FLOW_MAX_ACTIONS] = {0};
	err = attr ? flow_pipe_live_create(p) : CORE_LOG_NOMEM(__func__, "the pipe's NIC attributes");
	if (err == DOCA_SUCCESS)
		err = flow_descs_templates(cfg, p, progs, who);
	for (uint32_t i = cfg->nr_actions; i < FLOW_MAX_ACTIONS; i++)
		p->act[i].single_chg = -1;
	if (err == DOCA_SUCCESS)
		err = pipe_monitor(p, cfg, who);
	if (err == DOCA_SUCCESS)
		err = flow_resize_pipe_init(p, cfg, who);
	if (err == DOCA_SUCCESS && fwd) {
		p->has_fwd = true;
		p->fwd = *fwd;
		if (fwd_is_fixed(fwd)) {
			p->fwd_fixed = true;
			err = flow_fwd_convert(fwd, &p->fixed_fwd, who);
		} else if (fwd->type != DOCA_FLOW_FWD_NONE && fwd->type != DOCA_FLOW_FWD_CHANGEABLE &&
			   fwd->type != DOCA_FLOW_FWD_PORT && fwd->type != DOCA_FLOW_FWD_PIPE) {
			struct nic_fwd tmp;
			err = flow_fwd_convert(fwd, &tmp, who);
		}
	}
	if (err == DOCA_SUCCESS) {
		attr->type = cfg->type == DOCA_FLOW_PIPE_BASIC	   ? NIC_PIPE_BASIC
			     : cfg->type == DOCA_FLOW_PIPE_CONTROL ? NIC_PIPE_CONTROL
								   : NIC_PIPE_HASH;
		attr->name = p->name;
		attr->port_id = p->port->id;
		attr->is_root = p->is_root && !p->egress;
		attr->nr_entries = p->nr_entries;
		attr->max_entries = flow_resize_reserve(p);
		attr->miss_counter = p->miss_counter;
		attr->map_algorithm = cfg->hash_alg;
		attr->ps_field = -1;
		attr->idxsel = p->idxsel ? p->idxsel->sel : NULL;
		attr->mem = p->mem ? p->mem->mem : NULL;
		if (cfg->type == DOCA_FLOW_PIPE_BASIC && cfg->has_match)
			err = flow_match_basic(cfg->match_is_null ? NULL : &cfg->match,
					       cfg->has_match_mask ? &cfg->match_mask : NULL, attr, who);
		else if (cfg->type == DOCA_FLOW_PIPE_HASH && cfg->has_match)
			err = flow_match_hash(cfg->has_match_mask ? &cfg->match_mask : &cfg->match, attr, who);
		if (err == DOCA_SUCCESS && cfg->type == DOCA_FLOW_PIPE_BASIC)
			flow_match_compile(&attr->entry_mask, &p->mprog);
	}
	/* The one per-entry rewrite becomes the path selector only if it can hold a number. */
	if (err == DOCA_SUCCESS && cfg->type == DOCA_FLOW_PIPE_HASH && cfg->nr_actions == 1 &&
	    p->act[0].single_chg >= 0 && nic_ps_field_bits(p->act[0].single_chg) > 0)
		p->ps_field = attr->ps_field = p->act[0].single_chg;
	if (err == DOCA_SUCCESS)
		err = flow_fwd_convert(fwd_miss, &attr->fwd_miss, who);
	if (err == DOCA_SUCCESS && (cfg->type == DOCA_FLOW_PIPE_HASH || cfg->type == DOCA_FLOW_PIPE_BASIC))
		err = flow_entry_pool_create(p);

	pthread_mutex_lock(&flow_g.lock);
	if (err == DOCA_SUCCESS)
		err = flow_port_check(cfg->port, who); /* stopped meanwhile */
	if (err == DOCA_SUCCESS)
		err = flow_pipe_id_assign(p, who);
	if (err == DOCA_SUCCESS) {
		err = nic_pipe_create(attr, &p->nic);
		if (err != DOCA_SUCCESS) /* the id stays unused: no entry of p names it */
			__atomic_store_n(&atomic_load(&flow_g.pipe_dir[p->id / FLOW_PIPE_CHUNK])[p->id % FLOW_PIPE_CHUNK],
					 NULL, __ATOMIC_RELEASE);
	}
	if (err == DOCA_SUCCESS) {
		p->magic = FLOW_PIPE_MAGIC;
		p->port_next = p->port->pipes;
		p->port->pipes = p;
		p->all_next = flow_g.all_pipes;
		flow_g.all_pipes = p;
		if (p->idxsel)
			p->idxsel->bound++;
		if (p->mem)
			p->mem->bound++;
	}
	if (err == DOCA_SUCCESS)
		flow_descs_attach(p, progs); /* before any entry can name them */
	pthread_mutex_unlock(&flow_g.lock);
	free(attr);
	if (err != DOCA_SUCCESS) {
		for (uint32_t i = 0; i < FLOW_MAX_ACTIONS; i++)
			free(progs[i]);
		flow_entry_pool_free(p);
		free(p->live);
		free(p);
		return err;
	}
	CORE_LOG_TRC("doca_flow_pipe_create: '%s' type %u port %u root %d nr_entries %u", p->name, (unsigned)p->type,
		     p->port->id, p->is_root, p->nr_entries);
	p->report = core_report_register("flow_pipe", flow_pipe_report, p);
	*pipe = p;
	return DOCA_SUCCESS;
}

doca_error_t flow_pipe_id_assign(struct doca_flow_pipe *p, const char *who)
{
	uint32_t id = flow_g.nr_pipe_ids, c = id / FLOW_PIPE_CHUNK;
	CHECK(c < FLOW_PIPE_DIR, DOCA_ERROR_FULL, "%s: pipe '%s': this DOCA Flow session created %u pipes, the most it can",
	      who, p->name, id);
	struct doca_flow_pipe **chunk = atomic_load_explicit(&flow_g.pipe_dir[c], memory_order_relaxed);
	if (chunk == NULL) {
		chunk = core_calloc(FLOW_PIPE_CHUNK, sizeof(*chunk));
		if (chunk == NULL)
			return CORE_LOG_NOMEM(who, "the pipe directory");
		atomic_store_explicit(&flow_g.pipe_dir[c], chunk, memory_order_release);
	}
	p->id = id;
	__atomic_store_n(&chunk[id % FLOW_PIPE_CHUNK], p, __ATOMIC_RELEASE);
	flow_g.nr_pipe_ids = id + 1;
	return DOCA_SUCCESS;
}

void flow_pipe_ids_free(void)
{
	for (uint32_t c = 0; c < FLOW_PIPE_DIR; c++)
		free(atomic_exchange_explicit(&flow_g.pipe_dir[c], NULL, memory_order_acq_rel));
	flow_g.nr_pipe_ids = 0;
}

void flow_pipe_destroy_locked(struct doca_flow_pipe *p)
{
	struct doca_flow_pipe **link = &p->port->pipes;
	while (*link && *link != p)
		link = &(*link)->port_next;
	assert(*link == p && "a live pipe is on its port's list");
	if (*link)
		*link = p->port_next;
	flow_queue_drop_pipe(p->port, p);
	flow_resize_pipe_gone(p);
	p->magic = FLOW_PIPE_DEAD;
	flow_export_detach_all(&p->exports, "the port's pipes were destroyed (doca_flow_port_stop or _pipes_flush)");
	CORE_LOG_TRC("pipe '%s' destroyed (port %u, %u entries)", p->name, p->port->id, nic_pipe_nr_live_entries(p->nic));
	/* Its final counters and top entries, while the NIC pipe still holds them. */
	core_report_unregister(p->report);
	p->report = NULL;
	flow_entry_shared_release_all(p); /* it reads the NIC entries' states */
	nic_pipe_destroy(p->nic);
	flow_entry_destroy_all(p);
	assert(p->idxsel == NULL || p->idxsel->bound > 0);
	assert(p->mem == NULL || p->mem->bound > 0);
	if (p->idxsel)
		p->idxsel->bound--;
	if (p->mem)
		p->mem->bound--;
}

void doca_flow_pipe_destroy(struct doca_flow_pipe *pipe)
{
	if (!flow_pipe_valid(pipe, __func__))
		return;
	pthread_mutex_lock(&flow_g.lock);
	if (pipe->exports) {
		/* The call returns nothing: the refusal is the log line, and the pipe stays. */
		CORE_LOG_ERR("%s: BAD_STATE: pipe '%s' is exported (%s); destroy the export first "
			     "(doca_flow_dpa_pipe_destroy). The pipe was not destroyed",
			     __func__, pipe->name, pipe->exports->holder);
		pthread_mutex_unlock(&flow_g.lock);
		return;
	}
	flow_pipe_destroy_locked(pipe);
	pthread_mutex_unlock(&flow_g.lock);
}

doca_error_t doca_flow_pipe_update_miss(struct doca_flow_pipe *pipe, const struct doca_flow_fwd *fwd_miss)
{
	if (!flow_pipe_valid(pipe, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	doca_error_t err = fwd_miss_check(fwd_miss, pipe->name, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	struct nic_fwd f;
	err = flow_fwd_convert(fwd_miss, &f, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	return nic_pipe_set_fwd_miss(pipe->nic, &f);
}

static const char *type_name(enum doca_flow_pipe_type t)
{
	switch (t) {
	case DOCA_FLOW_PIPE_BASIC:
		return "BASIC";
	case DOCA_FLOW_PIPE_CONTROL:
		return "CONTROL";
	case DOCA_FLOW_PIPE_HASH:
		return "HASH";
	default:
		return "?";
	}
}

static void dump_entry(const struct doca_flow_pipe_entry *e, void *arg)
{
	FILE *f = arg;
	uint64_t pk = 0, by = 0;
	fprintf(f, "  entry");
	if (flow_entry_pipe(e)->type == DOCA_FLOW_PIPE_HASH)
		fprintf(f, " index=%u", e->index);
	if (flow_entry_pipe(e)->type == DOCA_FLOW_PIPE_CONTROL)
		fprintf(f, " priority=%u", e->priority);
	fprintf(f, " status=%s", flow_entry_status(e) == DOCA_FLOW_ENTRY_STATUS_SUCCESS ? "ok"
				 : flow_entry_status(e) == DOCA_FLOW_ENTRY_STATUS_ERROR ? "error"
									     : "in-process");
	struct nic_entry *ne = flow_entry_nic(e);
	if (ne && nic_entry_counter_read(flow_entry_pipe(e)->nic, ne, &pk, &by) == DOCA_SUCCESS)
		fprintf(f, " pkts=%llu bytes=%llu", (unsigned long long)pk, (unsigned long long)by);
	fprintf(f, "\n");
}

doca_error_t doca_flow_pipe_dump(struct doca_flow_pipe *pipe, FILE *f)
{
	if (!flow_pipe_valid(pipe, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(f != NULL, DOCA_ERROR_INVALID_VALUE, "%s: file is NULL", __func__);
	uint64_t mp = 0, mb = 0;
	bool has_miss = nic_pipe_miss_read(pipe->nic, &mp, &mb) == DOCA_SUCCESS;
	fprintf(f, "pipe '%s' type=%s port=%u root=%s nr_entries=%u live=%u", pipe->name, type_name(pipe->type),
		pipe->port->id, pipe->is_root ? "yes" : "no", pipe->nr_entries, nic_pipe_nr_live_entries(pipe->nic));
	if (pipe->type == DOCA_FLOW_PIPE_HASH)
		fprintf(f, " map_algorithm=0x%x", nic_pipe_map_algorithm(pipe->nic));
	if (has_miss)
		fprintf(f, " miss_pkts=%llu miss_bytes=%llu", (unsigned long long)mp, (unsigned long long)mb);
	fprintf(f, "\n");
	flow_entry_for_each(pipe, dump_entry, f);
	return ferror(f) ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
}

doca_error_t doca_flow_pipe_calc_hash(struct doca_flow_pipe *pipe, const struct doca_flow_match *match, uint32_t *hash)
{
	if (!flow_pipe_valid(pipe, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	CHECK(match != NULL && hash != NULL, DOCA_ERROR_INVALID_VALUE, "%s: match or hash is NULL", __func__);
	CHECK(pipe->type == DOCA_FLOW_PIPE_HASH, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s' is not a HASH pipe",
	      __func__, pipe->name);
	struct nic_key key;
	doca_error_t err = flow_match_value(match, &key, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	return nic_pipe_calc_hash(pipe->nic, &key, hash);
}
