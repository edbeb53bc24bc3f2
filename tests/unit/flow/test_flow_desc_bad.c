/*
 * test_flow_desc_bad.c - refused action descriptors and match conditions: each returns
 * the documented DOCA_ERROR_*, logs exactly one line naming the field or the problem,
 * and leaves the state intact (the cfg still creates a pipe, the pipe takes a good
 * entry afterwards, nothing is queued).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "flow_test_common.h"
#include "log_capture.h"

#define FLOW_TEST_MANY 17 /* descriptors: one more than a template takes */

static struct doca_flow_port *ports[2];
static struct entries_status status;

static int setup(void **state)
{
	(void)state;
	if (ft_setup_two_ports(ports, &status) != 0)
		return -1;
	log_capture_clear();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return ft_teardown_two_ports(ports);
}

/* Exactly one line was logged since the last check, containing s. */
static void one_line(const char *s)
{
	if (log_capture_count(NULL) != 1 || log_capture_count(s) != 1)
		log_capture_dump();
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count(s), 1);
	log_capture_clear();
}

static struct doca_flow_action_desc good_desc(void)
{
	struct doca_flow_action_desc d = {.type = DOCA_FLOW_ACTION_COPY};
	d.field_op.src.field_string = "outer.ipv4.ttl";
	d.field_op.dst.field_string = "meta.data";
	d.field_op.dst.bit_offset = 32;
	d.field_op.width = 8;
	return d;
}

/* A pipe from a cfg with one action template carrying d; its result. */
static doca_error_t create_with(enum doca_flow_pipe_type type, struct doca_flow_action_desc d,
				struct doca_flow_pipe **p)
{
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_action_descs ds = {.nb_action_desc = 1, .desc_array = &d}, *dsa[1] = {&ds};
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "DESC", type, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, NULL, NULL, dsa, 1), DOCA_SUCCESS);
	*p = NULL;
	doca_error_t r = doca_flow_pipe_create(cfg, type == DOCA_FLOW_PIPE_CONTROL ? NULL : &drop, NULL, p);
	doca_flow_pipe_cfg_destroy(cfg);
	return r;
}

static void test_desc_set_actions_refusals(void **state)
{
	(void)state;
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_action_desc d = good_desc(), many[FLOW_TEST_MANY];
	struct doca_flow_action_descs ds = {.nb_action_desc = 1, .desc_array = &d}, *dsa[1] = {&ds};
	struct doca_flow_action_descs nul = {.nb_action_desc = 2, .desc_array = NULL}, *nula[1] = {&nul};
	for (int i = 0; i < FLOW_TEST_MANY; i++)
		many[i] = good_desc();
	struct doca_flow_action_descs big = {.nb_action_desc = FLOW_TEST_MANY, .desc_array = many}, *biga[1] = {&big};

	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "DESC", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, NULL, NULL, dsa, 1), DOCA_SUCCESS);
	log_capture_clear();
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, NULL, NULL, nula, 1), DOCA_ERROR_INVALID_VALUE);
	one_line("desc_array is NULL");
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, NULL, NULL, biga, 1), DOCA_ERROR_NOT_SUPPORTED);
	one_line("at most 16");
	/* The cfg kept its good descs: the pipe is created with them. */
	struct doca_flow_pipe *p = NULL;
	assert_int_equal(doca_flow_pipe_create(cfg, &drop, NULL, &p), DOCA_SUCCESS);
	assert_non_null(p);
	assert_int_equal(log_capture_count(NULL), 0);
	doca_flow_pipe_cfg_destroy(cfg);
}

static void test_desc_create_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *src, *dst;
		uint32_t type, src_bit, dst_bit, width;
		doca_error_t err;
		const char *line;
	} bad[] = {
		{"no.such", "meta.data", DOCA_FLOW_ACTION_COPY, 0, 32, 8, DOCA_ERROR_INVALID_VALUE, "'no.such' is unknown"},
		{"tunnel.nvgre.nvgre_vs_id", "meta.data", DOCA_FLOW_ACTION_COPY, 0, 32, 24, DOCA_ERROR_NOT_SUPPORTED,
		 "'tunnel.nvgre.nvgre_vs_id' is not supported"},
		{"outer.ipv4.ttl", "meta.data", DOCA_FLOW_ACTION_COPY, 0, 32, 0, DOCA_ERROR_INVALID_VALUE, "width 0"},
		{"meta.data", "parser_meta.random.value", DOCA_FLOW_ACTION_COPY, 0, 0, 16, DOCA_ERROR_INVALID_VALUE,
		 "'parser_meta.random.value' is read only"},
		{"outer.ipv4.ttl", "meta.data", DOCA_FLOW_ACTION_COPY, 0, 32, 9, DOCA_ERROR_INVALID_VALUE,
		 "'outer.ipv4.ttl' has 8 bits"},
		{"outer.ipv4.ttl", "meta.data", DOCA_FLOW_ACTION_COPY, 8, 32, 1, DOCA_ERROR_INVALID_VALUE,
		 "bit_offset 8 + width 1"},
		{"outer.ipv4.ttl", "meta.data", DOCA_FLOW_ACTION_COPY, 0, 192, 8, DOCA_ERROR_INVALID_VALUE,
		 "'meta.data' has 192 bits"},
		{"outer.ipv6.src_ip", "outer.ipv6.dst_ip", DOCA_FLOW_ACTION_ADD, 0, 0, 128, DOCA_ERROR_INVALID_VALUE,
		 "ADD takes 1..64"},
		{"outer.ipv4.ttl", "meta.data", DOCA_FLOW_ACTION_AUTO, 0, 32, 8, DOCA_ERROR_INVALID_VALUE,
		 "is not COPY or ADD"},
		{"outer.ipv4.ttl", NULL, DOCA_FLOW_ACTION_COPY, 0, 0, 8, DOCA_ERROR_INVALID_VALUE,
		 "dst field_string is NULL"},
		{NULL, "meta.data", DOCA_FLOW_ACTION_COPY, 0, 32, 8, DOCA_ERROR_INVALID_VALUE, "src field_string is NULL"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct doca_flow_action_desc d = {.type = (enum doca_flow_action_type)bad[i].type};
		d.field_op.src.field_string = bad[i].src;
		d.field_op.src.bit_offset = bad[i].src_bit;
		d.field_op.dst.field_string = bad[i].dst;
		d.field_op.dst.bit_offset = bad[i].dst_bit;
		d.field_op.width = bad[i].width;
		for (int t = 0; t < 3; t++) {
			enum doca_flow_pipe_type type = t == 0	 ? DOCA_FLOW_PIPE_BASIC
							: t == 1 ? DOCA_FLOW_PIPE_CONTROL
								 : DOCA_FLOW_PIPE_HASH;
			struct doca_flow_pipe *p;
			assert_int_equal(create_with(type, d, &p), bad[i].err);
			assert_null(p);
			one_line(bad[i].line);
		}
	}
	/* Nothing of the refused pipes is left: a good one on each type. */
	for (int t = 0; t < 3; t++) {
		struct doca_flow_pipe *p;
		assert_int_equal(create_with(t == 0 ? DOCA_FLOW_PIPE_BASIC : t == 1 ? DOCA_FLOW_PIPE_CONTROL
										: DOCA_FLOW_PIPE_HASH,
					     good_desc(), &p),
				 DOCA_SUCCESS);
		doca_flow_pipe_destroy(p);
	}
	assert_int_equal(log_capture_count(NULL), 0);
}

static struct doca_flow_pipe *control_pipe(void)
{
	struct doca_flow_pipe *p;
	struct doca_flow_pipe_cfg *cfg;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "CTRL", DOCA_FLOW_PIPE_CONTROL, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static doca_error_t add_cond(struct doca_flow_pipe *p, const struct doca_flow_match_condition *c,
			     const struct doca_flow_action_descs *ds)
{
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	return doca_flow_pipe_control_add_entry(0, p, NULL, NULL, c, NULL, NULL, ds, NULL, 0, &drop, &status, NULL);
}

static void test_condition_refusals(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = control_pipe();
	static const struct {
		uint32_t op;
		const char *a, *b;
		uint32_t a_bit, b_bit, width;
		doca_error_t err;
		const char *line;
	} bad[] = {
		{9, "outer.tcp.seq_num", NULL, 0, 0, 32, DOCA_ERROR_INVALID_VALUE, "operation 9"},
		{DOCA_FLOW_COMPARE_LT, NULL, NULL, 0, 0, 32, DOCA_ERROR_INVALID_VALUE, "field a is NULL"},
		{DOCA_FLOW_COMPARE_LT, "outer.tcp.seq_num", NULL, 0, 0, 0, DOCA_ERROR_INVALID_VALUE, "width 0"},
		{DOCA_FLOW_COMPARE_LT, "meta.data", NULL, 0, 0, 65, DOCA_ERROR_INVALID_VALUE, "width 65"},
		{DOCA_FLOW_COMPARE_LT, "outer.tcp.seq_num", NULL, 1, 0, 32, DOCA_ERROR_INVALID_VALUE,
		 "bit_offset 1 + width 32"},
		{DOCA_FLOW_COMPARE_LT, "outer.tcp.seq", NULL, 0, 0, 32, DOCA_ERROR_NOT_SUPPORTED,
		 "'outer.tcp.seq' is not supported"},
		{DOCA_FLOW_COMPARE_LT, "parser_meta.outer_l3_ok", NULL, 0, 0, 1, DOCA_ERROR_NOT_SUPPORTED,
		 "'parser_meta.outer_l3_ok' is not supported"},
		{DOCA_FLOW_COMPARE_LT, "parser_meta.random.value", NULL, 0, 0, 17, DOCA_ERROR_INVALID_VALUE,
		 "'parser_meta.random.value' has 16 bits"},
		{DOCA_FLOW_COMPARE_GT, "meta.data", "bogus", 32, 0, 32, DOCA_ERROR_INVALID_VALUE, "'bogus' is unknown"},
		{DOCA_FLOW_COMPARE_GT, "meta.data", "outer.ipv4.ttl", 32, 0, 32, DOCA_ERROR_INVALID_VALUE,
		 "'outer.ipv4.ttl' has 8 bits"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct doca_flow_match_condition c;
		memset(&c, 0, sizeof(c));
		c.operation = (enum doca_flow_compare_op)bad[i].op;
		c.field_op.a.field_string = bad[i].a;
		c.field_op.a.bit_offset = bad[i].a_bit;
		c.field_op.b.field_string = bad[i].b;
		c.field_op.b.bit_offset = bad[i].b_bit;
		c.field_op.width = bad[i].width;
		assert_int_equal(add_cond(p, &c, NULL), bad[i].err);
		one_line(bad[i].line);
	}
	/* Entry descs: a NULL array, an unknown field. */
	struct doca_flow_action_descs nul = {.nb_action_desc = 1, .desc_array = NULL};
	assert_int_equal(add_cond(p, NULL, &nul), DOCA_ERROR_INVALID_VALUE);
	one_line("desc_array is NULL");
	struct doca_flow_action_desc d = good_desc();
	d.field_op.src.field_string = "outer.ipv4.tll";
	struct doca_flow_action_descs one = {.nb_action_desc = 1, .desc_array = &d};
	assert_int_equal(add_cond(p, NULL, &one), DOCA_ERROR_NOT_SUPPORTED);
	one_line("'outer.ipv4.tll'");
	/* A condition on a BASIC pipe: not a CONTROL pipe. */
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *basic;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_match_condition c = {.operation = DOCA_FLOW_COMPARE_EQ};
	c.field_op.a.field_string = "outer.ipv4.ttl";
	c.field_op.width = 8;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "BASIC", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &drop, NULL, &basic), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	assert_int_equal(add_cond(basic, &c, NULL), DOCA_ERROR_INVALID_VALUE);
	one_line("is not a CONTROL pipe");

	/* Nothing was queued by the refusals; a good condition and desc entry completes. */
	struct doca_flow_action_desc auto_type = {.type = DOCA_FLOW_ACTION_AUTO};
	struct doca_flow_action_descs auto_descs = {.nb_action_desc = 1, .desc_array = &auto_type};
	assert_int_equal(add_cond(p, &c, &auto_descs), DOCA_ERROR_INVALID_VALUE);
	one_line("is not COPY or ADD");
	d = good_desc();
	assert_int_equal(add_cond(p, &c, &one), DOCA_SUCCESS);
	memset(&status, 0, sizeof(status));
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(log_capture_count(NULL), 0);
}

/* A CONTROL pipe holds at most 8 distinct desc programs; equal ones are shared. */
static void test_control_program_limit(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = control_pipe();
	struct doca_flow_action_desc d = good_desc();
	struct doca_flow_action_descs one = {.nb_action_desc = 1, .desc_array = &d};
	for (uint32_t i = 0; i < 8; i++) {
		d.field_op.dst.bit_offset = 32 + 8 * i; /* a different program each */
		assert_int_equal(add_cond(p, NULL, &one), DOCA_SUCCESS);
		assert_int_equal(add_cond(p, NULL, &one), DOCA_SUCCESS); /* the same: shared */
	}
	d.field_op.dst.bit_offset = 32 + 8 * 8;
	assert_int_equal(add_cond(p, NULL, &one), DOCA_ERROR_FULL);
	one_line("more than 8 distinct");
	memset(&status, 0, sizeof(status));
	assert_int_equal(flow_process_entries(ports[0], &status, 16), DOCA_SUCCESS);
}

/* Conditions of adds that never reach the NIC are freed (the ASan build checks leaks):
 * an add that completes with ERROR (the pipe is full), adds still queued when the pipe
 * is destroyed. */
static void test_condition_of_failed_or_dropped_adds(void **state)
{
	(void)state;
	struct doca_flow_pipe *p;
	struct doca_flow_pipe_cfg *cfg;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "CTRL1", DOCA_FLOW_PIPE_CONTROL, false), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_match_condition c = {.operation = DOCA_FLOW_COMPARE_EQ};
	c.field_op.a.field_string = "outer.ipv4.ttl";
	c.field_op.width = 8;
	assert_int_equal(add_cond(p, &c, NULL), DOCA_SUCCESS);
	assert_int_equal(add_cond(p, &c, NULL), DOCA_SUCCESS);
	memset(&status, 0, sizeof(status));
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 2), DOCA_SUCCESS);
	assert_int_equal(status.nb_processed, 2);
	assert_true(status.failure); /* the second: the pipe is full */
	log_capture_clear();
	assert_int_equal(add_cond(p, &c, NULL), DOCA_SUCCESS);
	doca_flow_pipe_destroy(p); /* with the add still queued */
	memset(&status, 0, sizeof(status));
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_processed, 0);
}

int main(void)
{
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_desc_set_actions_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_desc_create_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_condition_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_program_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_condition_of_failed_or_dropped_adds, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
