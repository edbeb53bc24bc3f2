/*
 * flow_desc.c - DOCA Flow action descriptors (struct doca_flow_action_descs: COPY and
 * ADD between header fields and meta) of action templates and control entries, checked
 * and compiled into the NIC's field programs (src/nic/field.c), which the datapath runs
 * after an entry's rewrites (docs/flow.md, "Action descriptors").
 */
#include <stdlib.h>
#include <string.h>

#include "flow_field.h"
#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::DESC);

doca_error_t flow_descs_copy(const struct doca_flow_action_descs *d, struct flow_descs_copy *out, const char *who)
{
	memset(out, 0, sizeof(*out));
	if (d == NULL || d->nb_action_desc == 0)
		return DOCA_SUCCESS;
	CHECK(d->desc_array != NULL, DOCA_ERROR_INVALID_VALUE, "%s: action descs: desc_array is NULL with nb_action_desc %u",
	      who, d->nb_action_desc);
	CHECK(d->nb_action_desc <= FLOW_MAX_DESCS, DOCA_ERROR_NOT_SUPPORTED,
	      "%s: action descs: %u descriptors, the software NIC takes at most %d per template or entry", who,
	      d->nb_action_desc, FLOW_MAX_DESCS);
	out->n = d->nb_action_desc;
	for (uint32_t i = 0; i < out->n; i++) {
		const struct doca_flow_action_desc *s = &d->desc_array[i];
		struct flow_desc_copy *c = &out->d[i];
		c->type = (uint32_t)s->type;
		c->src_null = s->field_op.src.field_string == NULL;
		c->dst_null = s->field_op.dst.field_string == NULL;
		/* A longer name is no field of ours: truncated, it still matches none. */
		if (!c->src_null)
			snprintf(c->src, sizeof(c->src), "%s", s->field_op.src.field_string);
		if (!c->dst_null)
			snprintf(c->dst, sizeof(c->dst), "%s", s->field_op.dst.field_string);
		c->src_bit = s->field_op.src.bit_offset;
		c->dst_bit = s->field_op.dst.bit_offset;
		c->width = s->field_op.width;
	}
	return DOCA_SUCCESS;
}

/* Field name (which may be missing) resolved, with offset and width checked against it. */
static doca_error_t resolve(bool null, const char *name, uint32_t bit, uint32_t width, const char *role, uint32_t i,
			    const char *pipe_name, const char *who, const struct flow_field **out)
{
	CHECK(!null, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s': action desc %u: %s field_string is NULL", who, pipe_name,
	      i, role);
	const struct flow_field *f = flow_field_find(name);
	if (f == NULL) {
		bool doca_like = strncmp(name, "outer.", 6) == 0 || strncmp(name, "inner.", 6) == 0 ||
				 strncmp(name, "tunnel.", 7) == 0 || strncmp(name, "parser_meta.", 12) == 0 ||
				 strncmp(name, "meta.", 5) == 0;
		CORE_LOG_ERR("%s: pipe '%s': action desc %u: %s field '%s' is %s (the software NIC supports: %s)", who,
			     pipe_name, i, role, name, doca_like ? "not supported" : "unknown", flow_field_names());
		return doca_like ? DOCA_ERROR_NOT_SUPPORTED : DOCA_ERROR_INVALID_VALUE;
	}
	CHECK(bit < f->nf.bits && width <= f->nf.bits - bit, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s': action desc %u: %s field '%s' has %u bits; bit_offset %u + width %u is beyond it", who,
	      pipe_name, i, role, name, f->nf.bits, bit, width);
	*out = f;
	return DOCA_SUCCESS;
}

doca_error_t flow_descs_compile(const struct flow_descs_copy *d, struct doca_flow_actions *actions,
				struct nic_prog **prog, const char *pipe_name, const char *who)
{
	*prog = NULL;
	if (d == NULL || d->n == 0)
		return DOCA_SUCCESS;
	struct nic_prog *pr = core_calloc(1, sizeof(*pr) + d->n * sizeof(pr->op[0]));
	if (pr == NULL)
		return CORE_LOG_NOMEM(who, "an action descriptor program");
	/* The constants are read first: clearing them as we go would zero a later ADD's. */
	struct doca_flow_actions orig;
	if (actions)
		orig = *actions;
	doca_error_t err = DOCA_SUCCESS;
	for (uint32_t i = 0; err == DOCA_SUCCESS && i < d->n; i++) {
		const struct flow_desc_copy *c = &d->d[i];
		struct nic_fop *o = &pr->op[i];
		const struct flow_field *src = NULL, *dst = NULL;
		if (c->type != DOCA_FLOW_ACTION_COPY && c->type != DOCA_FLOW_ACTION_ADD) {
			CORE_LOG_ERR("%s: pipe '%s': action desc %u: type %u is not COPY or ADD", who, pipe_name, i,
				     c->type);
			err = DOCA_ERROR_INVALID_VALUE;
			break;
		}
		uint32_t max = c->type == DOCA_FLOW_ACTION_COPY ? 128 : 64;
		if (c->width == 0 || c->width > max) {
			CORE_LOG_ERR("%s: pipe '%s': action desc %u: width %u (%s takes 1..%u bits)", who, pipe_name, i,
				     c->width, c->type == DOCA_FLOW_ACTION_COPY ? "COPY" : "ADD", max);
			err = DOCA_ERROR_INVALID_VALUE;
			break;
		}
		err = resolve(c->dst_null, c->dst, c->dst_bit, c->width, "dst", i, pipe_name, who, &dst);
		if (err == DOCA_SUCCESS && dst->nf.hdr == NIC_FH_KEY) {
			CORE_LOG_ERR("%s: pipe '%s': action desc %u: dst field '%s' is read only", who, pipe_name, i,
				     dst->name);
			err = DOCA_ERROR_INVALID_VALUE;
		}
		bool add_const = c->type == DOCA_FLOW_ACTION_ADD && c->src_null;
		if (err == DOCA_SUCCESS && !add_const)
			err = resolve(c->src_null, c->src, c->src_bit, c->width, "src", i, pipe_name, who, &src);
		if (err != DOCA_SUCCESS)
			break;
		o->type = c->type == DOCA_FLOW_ACTION_COPY ? NIC_FOP_COPY : add_const ? NIC_FOP_ADD_CONST : NIC_FOP_ADD;
		o->width = (uint8_t)c->width;
		o->dst = dst->nf;
		o->dst_bit = (uint16_t)c->dst_bit;
		if (src) {
			o->src = src->nf;
			o->src_bit = (uint16_t)c->src_bit;
			nic_field_note(&o->src); /* a COPY from parser_meta.random needs its parse */
		}
		if (add_const && actions) {
			/* The addend: the destination field's value in the actions, at the same bits. */
			struct nic_field v = flow_field_doca_view(dst);
			o->konst = nic_field_get(&v, flow_field_in_actions(dst, &orig), c->dst_bit, c->width);
			nic_field_set(&v, flow_field_in_actions(dst, actions), c->dst_bit, c->width, 0);
		}
		pr->n++;
	}
	if (err != DOCA_SUCCESS) {
		free(pr);
		return err;
	}
	*prog = pr;
	return DOCA_SUCCESS;
}

/* The template rewrites run the NIC pipe's program idx as well. */
static void tmpl_run_prog(struct nic_actions *a, uint8_t idx)
{
	a->fields |= 1u << NIC_AF_PROG;
	a->prog = (uint8_t)(idx + 1);
}

doca_error_t flow_descs_templates(const struct doca_flow_pipe_cfg *cfg, struct doca_flow_pipe *p,
				  struct nic_prog **progs, const char *who)
{
	doca_error_t err = DOCA_SUCCESS;
	for (uint32_t i = 0; err == DOCA_SUCCESS && i < cfg->nr_actions; i++) {
		struct doca_flow_actions a;
		const struct doca_flow_actions *ap = NULL;
		if (!cfg->actions_null[i]) {
			a = cfg->actions[i];
			ap = &a;
		}
		if (cfg->descs && cfg->descs[i].n)
			err = flow_descs_compile(&cfg->descs[i], ap ? &a : NULL, &progs[i], cfg->name, who);
		if (err == DOCA_SUCCESS)
			err = flow_actions_template(ap, cfg->has_actions_mask[i] ? &cfg->actions_mask[i] : NULL, &p->act[i],
						    who);
	}
	if (err != DOCA_SUCCESS)
		for (uint32_t i = 0; i < FLOW_MAX_ACTIONS; i++) {
			free(progs[i]);
			progs[i] = NULL;
		}
	return err;
}

void flow_descs_attach(struct doca_flow_pipe *p, struct nic_prog **progs)
{
	for (uint32_t i = 0; i < FLOW_MAX_ACTIONS; i++) {
		if (progs[i] == NULL)
			continue;
		uint8_t idx;
		/* At most FLOW_MAX_ACTIONS programs on a new pipe: there is room for each. */
		doca_error_t err = nic_pipe_add_prog(p->nic, progs[i], &idx);
		progs[i] = NULL;
		if (err == DOCA_SUCCESS)
			tmpl_run_prog(&p->act[i].fixed, idx);
	}
}

doca_error_t flow_descs_control_entry(struct doca_flow_pipe *pipe, const struct doca_flow_action_descs *descs,
				      const struct doca_flow_actions *actions,
				      const struct doca_flow_actions *actions_mask, struct nic_actions *out,
				      const char *who)
{
	struct doca_flow_actions a;
	if (actions)
		a = *actions;
	struct nic_prog *prog = NULL;
	doca_error_t err = DOCA_SUCCESS;
	if (descs && descs->nb_action_desc) { /* the copy only when there is something to copy */
		struct flow_descs_copy *dc = core_malloc(sizeof(*dc));
		if (dc == NULL)
			return CORE_LOG_NOMEM(who, "the entry's action descs");
		err = flow_descs_copy(descs, dc, who);
		if (err == DOCA_SUCCESS)
			err = flow_descs_compile(dc, actions ? &a : NULL, &prog, pipe->name, who);
		free(dc);
	}
	struct flow_act_tmpl t;
	uint32_t ps;
	if (err == DOCA_SUCCESS)
		err = flow_actions_template(actions ? &a : NULL, actions_mask, &t, who);
	if (err == DOCA_SUCCESS) {
		flow_actions_entry(&t, actions ? &a : NULL, -1, out, &ps);
		uint8_t idx;
		if (prog) {
			err = nic_pipe_add_prog(pipe->nic, prog, &idx);
			if (err == DOCA_SUCCESS)
				tmpl_run_prog(out, idx);
			else
				CORE_LOG_ERR("%s: pipe '%s': more than %d distinct action desc programs on one pipe", who,
					     pipe->name, NIC_MAX_PROGS);
		} else if (pipe->act[0].fixed.fields & (1u << NIC_AF_PROG)) {
			/* No descs of its own: the pipe's (template 0) apply. */
			tmpl_run_prog(out, (uint8_t)(pipe->act[0].fixed.prog - 1));
		}
	}
	if (err != DOCA_SUCCESS)
		free(prog); /* the NIC took it only on success */
	return err;
}
