/*
 * flow_field.h - DOCA Flow field strings (flow_field.c), action descriptors
 * (flow_desc.c) and match conditions (flow_cond.c), translated into the NIC's field
 * programs and conditions (src/nic/field.c). docs/flow.md, "Action descriptors" and
 * "Match conditions", lists the fields and the rules.
 */
#ifndef FLOWDPA_FLOW_FIELD_H_
#define FLOWDPA_FLOW_FIELD_H_

#include <doca_flow.h>

#include <nic/nic.h>

struct doca_flow_pipe_cfg;
struct doca_flow_pipe;
struct flow_act_tmpl;

/* A field string: its NIC field and where DOCA's structs hold the same field. */
struct flow_field {
	const char *name;
	struct nic_field nf;
	uint8_t where;	/* outer header format, tunnel or meta (flow_field.c) */
	uint16_t doff;	/* offset in that struct */
	uint8_t dsize;	/* bytes there: the value, big-endian, in the low bits */
};

/* The field named name, or NULL (also for NULL). */
const struct flow_field *flow_field_find(const char *name);
/* The field as DOCA's structs hold it (a big-endian number of dsize bytes; meta words). */
struct nic_field flow_field_doca_view(const struct flow_field *f);
uint8_t *flow_field_in_match(const struct flow_field *f, struct doca_flow_match *m);
uint8_t *flow_field_in_actions(const struct flow_field *f, struct doca_flow_actions *a);
/* The supported names, for error lines. */
const char *flow_field_names(void);

/* ------------------------------------------------------------------ action descriptors */

#define FLOW_MAX_DESCS 16 /* descriptors per action template or control entry */
#define FLOW_FIELD_NAME_MAX 64

/* A copy of one doca_flow_action_desc (the caller's strings may go after the call). */
struct flow_desc_copy {
	uint32_t type; /* enum doca_flow_action_type */
	bool src_null, dst_null;
	char src[FLOW_FIELD_NAME_MAX], dst[FLOW_FIELD_NAME_MAX];
	uint32_t src_bit, dst_bit, width;
};
struct flow_descs_copy {
	uint32_t n;
	struct flow_desc_copy d[FLOW_MAX_DESCS];
};

/*
 * Copy d into *out. INVALID_VALUE (logged, naming who) for a NULL desc_array with
 * nb_action_desc > 0; NOT_SUPPORTED for more than FLOW_MAX_DESCS descriptors.
 */
FLOWDPA_MUST_CHECK doca_error_t flow_descs_copy(const struct doca_flow_action_descs *d, struct flow_descs_copy *out,
						const char *who);

/*
 * Compile descriptors into a NIC field program (*prog NULL when there are none). ADD
 * without a source adds the value of the destination field in actions (the template's
 * or the control entry's), whose bytes compile then clears in *actions so that they are
 * not also a rewrite. INVALID_VALUE for an unknown type, a missing or unknown field
 * (NOT_SUPPORTED for a DOCA field the NIC does not carry), a width of 0 or beyond the
 * field, an offset beyond it; one line naming the pipe and the field.
 */
FLOWDPA_MUST_CHECK doca_error_t flow_descs_compile(const struct flow_descs_copy *d, struct doca_flow_actions *actions,
						   struct nic_prog **prog, const char *pipe_name, const char *who);

/*
 * Pipe creation: compile the cfg's descriptors of each action template (cfg->descs),
 * attach the programs to the NIC pipe and mark p->act[i] to run them. Templates are
 * translated here too (flow_actions_template on the actions without ADD's constants).
 */
FLOWDPA_MUST_CHECK doca_error_t flow_descs_templates(const struct doca_flow_pipe_cfg *cfg, struct doca_flow_pipe *p,
						     struct nic_prog **progs, const char *who);
/* After nic_pipe_create: hand the template programs to the NIC pipe (which owns them). */
void flow_descs_attach(struct doca_flow_pipe *p, struct nic_prog **progs);

/*
 * A control entry's descriptors (or, when it has none, the pipe's template 0 ones):
 * translate actions/actions_mask into *out with them. NIC FULL (logged) when the pipe
 * holds NIC_MAX_PROGS distinct programs already.
 */
FLOWDPA_MUST_CHECK doca_error_t flow_descs_control_entry(struct doca_flow_pipe *pipe,
							 const struct doca_flow_action_descs *descs,
							 const struct doca_flow_actions *actions,
							 const struct doca_flow_actions *actions_mask, struct nic_actions *out,
							 const char *who);

/* ------------------------------------------------------------------ match conditions */

/*
 * Compile a control entry's condition into *cond (NULL when condition is NULL). With
 * field_op.b.field_string NULL the value compared with is field a's value in match,
 * whose bits compile clears in *match_copy (a copy of match, or zeroes) so that they are
 * not also matched exactly. INVALID_VALUE for an unknown operation, a missing or unknown
 * field, a width of 0 or over 64 or beyond a field, an offset beyond it.
 */
FLOWDPA_MUST_CHECK doca_error_t flow_cond_compile(const struct doca_flow_match_condition *c,
						  struct doca_flow_match *match_copy, struct nic_cond **cond,
						  const char *pipe_name, const char *who);

#endif /* FLOWDPA_FLOW_FIELD_H_ */
