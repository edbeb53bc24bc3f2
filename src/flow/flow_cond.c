/*
 * flow_cond.c - DOCA Flow match conditions (struct doca_flow_match_condition) of
 * CONTROL entries, checked and compiled into the NIC's conditions (src/nic/field.c):
 * an entry then hits only when its match and its condition hold (docs/flow.md, "Match
 * conditions").
 */
#include <stdlib.h>
#include <string.h>

#include "flow_field.h"
#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::COND);

_Static_assert((int)NIC_CMP_EQ == (int)DOCA_FLOW_COMPARE_EQ && (int)NIC_CMP_NE == (int)DOCA_FLOW_COMPARE_NE &&
		       (int)NIC_CMP_LT == (int)DOCA_FLOW_COMPARE_LT && (int)NIC_CMP_LE == (int)DOCA_FLOW_COMPARE_LE &&
		       (int)NIC_CMP_GT == (int)DOCA_FLOW_COMPARE_GT && (int)NIC_CMP_GE == (int)DOCA_FLOW_COMPARE_GE,
	       "the NIC's comparison values are DOCA's");

static doca_error_t cond_field(const struct doca_flow_desc_field *df, uint32_t width, const char *role,
			       const char *pipe_name, const char *who, const struct flow_field **out)
{
	CHECK(df->field_string != NULL, DOCA_ERROR_INVALID_VALUE, "%s: pipe '%s': condition field %s is NULL", who,
	      pipe_name, role);
	const struct flow_field *f = flow_field_find(df->field_string);
	if (f == NULL) {
		bool doca_like = strncmp(df->field_string, "outer.", 6) == 0 || strncmp(df->field_string, "inner.", 6) == 0 ||
				 strncmp(df->field_string, "tunnel.", 7) == 0 ||
				 strncmp(df->field_string, "parser_meta.", 12) == 0 || strncmp(df->field_string, "meta.", 5) == 0;
		CORE_LOG_ERR("%s: pipe '%s': condition field %s '%.64s' is %s (the software NIC supports: %s)", who,
			     pipe_name, role, df->field_string, doca_like ? "not supported" : "unknown", flow_field_names());
		return doca_like ? DOCA_ERROR_NOT_SUPPORTED : DOCA_ERROR_INVALID_VALUE;
	}
	CHECK(df->bit_offset < f->nf.bits && width <= f->nf.bits - df->bit_offset, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s': condition field %s '%s' has %u bits; bit_offset %u + width %u is beyond it", who,
	      pipe_name, role, f->name, f->nf.bits, df->bit_offset, width);
	*out = f;
	return DOCA_SUCCESS;
}

doca_error_t flow_cond_compile(const struct doca_flow_match_condition *c, struct doca_flow_match *match_copy,
			       struct nic_cond **cond, const char *pipe_name, const char *who)
{
	*cond = NULL;
	if (c == NULL)
		return DOCA_SUCCESS;
	CHECK((uint32_t)c->operation <= DOCA_FLOW_COMPARE_GE, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s': condition operation %u is not one of EQ, NE, LT, LE, GT, GE", who, pipe_name,
	      (unsigned)c->operation);
	uint32_t width = c->field_op.width;
	CHECK(width >= 1 && width <= 64, DOCA_ERROR_INVALID_VALUE,
	      "%s: pipe '%s': condition width %u (the software NIC compares 1..64 bits)", who, pipe_name, width);
	const struct flow_field *a = NULL, *b = NULL;
	doca_error_t err = cond_field(&c->field_op.a, width, "a", pipe_name, who, &a);
	bool b_const = c->field_op.b.field_string == NULL;
	if (err == DOCA_SUCCESS && !b_const)
		err = cond_field(&c->field_op.b, width, "b", pipe_name, who, &b);
	if (err != DOCA_SUCCESS)
		return err;
	struct nic_cond *nc = core_calloc(1, sizeof(*nc));
	if (nc == NULL)
		return CORE_LOG_NOMEM(who, "the entry's match condition");
	nc->op = (uint8_t)c->operation;
	nc->width = (uint8_t)width;
	nc->a = a->nf;
	nc->a_bit = (uint16_t)c->field_op.a.bit_offset;
	nc->b_const = b_const;
	if (b_const) {
		/* The immediate value is field a's in the match; it is compared, not matched. */
		struct nic_field v = flow_field_doca_view(a);
		uint8_t *at = flow_field_in_match(a, match_copy);
		nc->konst = nic_field_get(&v, at, c->field_op.a.bit_offset, width);
		nic_field_set(&v, at, c->field_op.a.bit_offset, width, 0);
	} else {
		nc->b = b->nf;
		nc->b_bit = (uint16_t)c->field_op.b.bit_offset;
	}
	/* A condition on parser_meta.random needs its parse, as a match on it does. */
	nic_field_note(&nc->a);
	if (!b_const)
		nic_field_note(&nc->b);
	*cond = nc;
	return DOCA_SUCCESS;
}
