/*
 * test_flow_aging.c - entry aging (monitor.aging_sec, doca_flow_aging_handle) with real
 * frames and the test-advanceable aging clock (flowdpa_clock_advance_ms): entries hit by
 * frames do not age, idle ones do after aging_sec, each is reported once (until hit
 * again) through the entry callback as DOCA_FLOW_ENTRY_OP_AGED on the queue of its add;
 * max_entries and quota split a cycle; removal from the callback (as DOCA's flow_aging
 * sample does); pipe destruction and port stop with tracked entries; refused calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "flow_test_common.h"
#include "log_capture.h"

#define NR 10

struct ectx {
	int added, aged, deleted;
	uint16_t aged_queue;
	bool remove_on_age;
	unsigned sleep_us; /* in the AGED callback: makes a quota run out */
	struct doca_flow_pipe_entry *e;
};

static struct doca_flow_port *ports[2];
static struct ectx ctx[NR];
static int aged_total;

static void entry_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		     enum doca_flow_entry_op op, void *user_ctx)
{
	struct ectx *c = user_ctx;
	if (c == NULL)
		return;
	assert_int_equal(st, DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	if (op == DOCA_FLOW_ENTRY_OP_ADD)
		c->added++;
	if (op == DOCA_FLOW_ENTRY_OP_DEL)
		c->deleted++;
	if (op != DOCA_FLOW_ENTRY_OP_AGED)
		return;
	assert_ptr_equal(entry, c->e);
	c->aged++;
	c->aged_queue = q;
	aged_total++;
	if (c->sleep_us)
		usleep(c->sleep_us);
	if (c->remove_on_age)
		assert_int_equal(doca_flow_pipe_remove_entry(q, DOCA_FLOW_ENTRY_FLAGS_NO_WAIT, entry), DOCA_SUCCESS);
}

static int setup(void **state)
{
	(void)state;
	memset(ctx, 0, sizeof(ctx));
	aged_total = 0;
	if (init_doca_flow_cb(2, "vnf,hws", entry_cb) != DOCA_SUCCESS)
		return -1;
	return init_doca_flow_ports(2, ports) == DOCA_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	stop_doca_flow_ports(2, ports);
	doca_flow_destroy();
	return 0;
}

/* Root BASIC pipe on port 0 matching the UDP destination port, fwd port 1, miss drop,
 * with a miss counter; pipe_aging is the pipe monitor's aging_sec (UINT32_MAX: per entry);
 * no COUNT, so aging has to give entries a counter. */
static struct doca_flow_pipe *aging_pipe(uint32_t pipe_aging)
{
	struct doca_flow_match m;
	struct doca_flow_monitor mon;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	memset(&m, 0, sizeof(m));
	memset(&mon, 0, sizeof(mon));
	mon.aging_sec = pipe_aging;
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "AGING_PIPE", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 64), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, &miss, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

/* n entries for UDP dst ports 100.. on queue q; aging_sec 0 leaves monitor NULL. */
static void add_entries(struct doca_flow_pipe *p, int n, uint16_t q, uint32_t aging_sec)
{
	memset(ctx, 0, sizeof(ctx));
	for (int i = 0; i < n; i++) {
		struct doca_flow_match m;
		struct doca_flow_monitor mon;
		memset(&m, 0, sizeof(m));
		memset(&mon, 0, sizeof(mon));
		mon.aging_sec = aging_sec;
		m.outer.udp.l4_port.dst_port = DOCA_HTOBE16((uint16_t)(100 + i));
		assert_int_equal(doca_flow_pipe_basic_add_entry(q, p, &m, 0, NULL, aging_sec ? &mon : NULL, NULL,
								DOCA_FLOW_ENTRY_FLAGS_NO_WAIT, &ctx[i], &ctx[i].e),
				 DOCA_SUCCESS);
	}
	assert_int_equal(doca_flow_entries_process(ports[0], q, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	for (int i = 0; i < n; i++)
		assert_int_equal(ctx[i].added, 1);
}

/* A frame to entry i leaves port 1 (fwd port). */
static void hit(int i)
{
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	ft_drain(1);
	assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 1234, (uint16_t)(100 + i)), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_SUCCESS);
	assert_int_equal(ft_dport(buf), 100 + i);
}

/* Sum of one whole cycle's returns (every call until -1). */
static int handle_cycle(uint16_t q, uint64_t quota, uint64_t max)
{
	int total = 0, r, calls = 0;
	while ((r = doca_flow_aging_handle(ports[0], q, quota, max)) != -1) {
		assert_true(r >= 0);
		total += r;
		assert_true(++calls < 1000);
	}
	return total;
}

static void test_idle_entries_age_hit_ones_do_not(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = aging_pipe(UINT32_MAX);
	add_entries(p, 4, 0, 5);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 0), -1); /* nothing aged: cycle done */
	flowdpa_clock_advance_ms(3000);
	hit(0);
	hit(1);
	assert_int_equal(handle_cycle(0, 0, 0), 0); /* sees the hits */
	flowdpa_clock_advance_ms(3000);		    /* 2, 3: 6 s idle; 0, 1: 3 s */
	assert_int_equal(handle_cycle(0, 0, 0), 2);
	assert_int_equal(ctx[0].aged + ctx[1].aged, 0);
	assert_int_equal(ctx[2].aged, 1);
	assert_int_equal(ctx[3].aged, 1);
	assert_int_equal(ctx[2].aged_queue, 0);
	/* Reported once: later cycles skip them while they stay idle. */
	flowdpa_clock_advance_ms(1000);
	assert_int_equal(handle_cycle(0, 0, 0), 0);
	assert_int_equal(ctx[2].aged, 1);
	/* Aged entries still forward (DOCA only reports them). */
	hit(2);
	/* 0 and 1 reach 5 s idle; 2 was hit: active again. */
	flowdpa_clock_advance_ms(1000);
	assert_int_equal(handle_cycle(0, 0, 0), 2);
	assert_int_equal(ctx[0].aged, 1);
	assert_int_equal(ctx[1].aged, 1);
	assert_int_equal(ctx[2].aged, 1);
	flowdpa_clock_advance_ms(5000);
	assert_int_equal(handle_cycle(0, 0, 0), 1); /* 2 ages a second time */
	assert_int_equal(ctx[2].aged, 2);
	assert_int_equal(ctx[3].aged, 1);
}

/* Without COUNT the entry got a counter from aging; entries without aging never age. */
static void test_counter_given_and_no_aging_entries(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = aging_pipe(UINT32_MAX);
	add_entries(p, 2, 0, 0);
	struct doca_flow_resource_query q;
	assert_int_not_equal(doca_flow_resource_query_entry(ctx[0].e, &q), DOCA_SUCCESS);
	flowdpa_clock_advance_ms(100000);
	assert_int_equal(handle_cycle(0, 0, 0), 0);

	struct doca_flow_match m;
	struct doca_flow_monitor mon = {.aging_sec = 1};
	memset(&m, 0, sizeof(m));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(200);
	struct doca_flow_pipe_entry *e;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, &mon, NULL, 0, NULL, &e), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 200), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(e), 1);
}

/* The pipe monitor's aging_sec applies to entries added without one. */
static void test_pipe_level_aging(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = aging_pipe(2);
	add_entries(p, 3, 0, 0);
	flowdpa_clock_advance_ms(1500);
	hit(1);
	assert_int_equal(handle_cycle(0, 0, 0), 0);
	flowdpa_clock_advance_ms(600);
	assert_int_equal(handle_cycle(0, 0, 0), 2);
	assert_int_equal(ctx[1].aged, 0);
}

/* max_entries and quota end a call early; the cycle goes on at the next call. */
static void test_max_entries_and_quota(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = aging_pipe(UINT32_MAX);
	add_entries(p, NR, 0, 1);
	flowdpa_clock_advance_ms(1000);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 3), 3);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 3), 3);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 3), 3);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 3), 1); /* the last one: end of cycle */
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 3), -1);
	assert_int_equal(aged_total, NR);

	/* Each callback sleeps past a 100 us quota: one entry per call. */
	for (int i = 0; i < NR; i++) {
		hit(i);
		ctx[i].sleep_us = 2000;
	}
	assert_int_equal(handle_cycle(0, 0, 0), 0);
	flowdpa_clock_advance_ms(1000);
	for (int i = 0; i < NR; i++)
		assert_int_equal(doca_flow_aging_handle(ports[0], 0, 100, 0), 1);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 100, 0), -1);
	assert_int_equal(aged_total, 2 * NR);
}

/* An entry is reported on the queue of its add, and only there. */
static void test_queue_of_the_add(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = aging_pipe(UINT32_MAX);
	add_entries(p, 2, 1, 1);
	flowdpa_clock_advance_ms(1000);
	assert_int_equal(handle_cycle(0, 0, 0), 0);
	assert_int_equal(handle_cycle(1, 0, 0), 2);
	assert_int_equal(ctx[0].aged_queue, 1);
	assert_int_equal(ctx[1].aged_queue, 1);
}

/* As DOCA's flow_aging sample: remove the aged entry from the callback; its frames then
 * miss the pipe. Entry 0, hit before the first handle, is active at that handle. */
static void test_remove_in_callback(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = aging_pipe(UINT32_MAX);
	add_entries(p, NR, 0, 5);
	for (int i = 0; i < NR; i++)
		ctx[i].remove_on_age = true;
	hit(0);
	flowdpa_clock_advance_ms(5000);
	assert_int_equal(handle_cycle(0, 20000, 0), NR - 1);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(ctx[0].deleted, 0);
	for (int i = 1; i < NR; i++)
		assert_int_equal(ctx[i].deleted, 1);
	assert_int_equal(ft_miss_pkts(p), 0);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 101), DOCA_SUCCESS);
	assert_int_equal(ft_miss_pkts(p), 1);
	hit(0);
	/* Removed entries are no longer tracked: only entry 0 ages. */
	assert_int_equal(handle_cycle(0, 0, 0), 0);
	flowdpa_clock_advance_ms(10000);
	assert_int_equal(handle_cycle(0, 0, 0), 1);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(ctx[0].deleted, 1);
}

/* The flow_aging sample's two stages on one pipe: the miss counter counts frames of no
 * entry only, and keeps counting across the aging. Stage 1: two entries hit, one frame
 * of no entry (miss 1). Every entry ages and is removed in the callback. Stage 2: the
 * same three frames all miss (miss 4) and nothing leaves. */
static void test_staged_miss_counter(void **state)
{
	(void)state;
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len;
	struct doca_flow_pipe *p = aging_pipe(UINT32_MAX);
	add_entries(p, NR, 0, 5);
	for (int i = 0; i < NR; i++)
		ctx[i].remove_on_age = true;
	hit(0);
	hit(8);
	assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 1234, 999), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(ft_miss_pkts(p), 1);
	/* The sample handles once a second until all have aged. */
	int aged = 0;
	for (int s = 0; s < 20 && aged < NR; s++) {
		flowdpa_clock_advance_ms(1000);
		aged += handle_cycle(0, 20000, 0);
	}
	assert_int_equal(aged, NR);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	for (int i = 0; i < NR; i++) {
		assert_int_equal(ctx[i].aged, 1);
		assert_int_equal(ctx[i].deleted, 1);
	}
	assert_int_equal(ft_miss_pkts(p), 1); /* aging and removal count nothing */
	ft_drain(1);
	assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 1234, 100), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 1234, 108), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 0x0a000001, 0x0a000002, 1234, 999), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(ft_miss_pkts(p), 4);
}

/* Tracked entries go with their pipe and port. */
static void test_pipe_destroy_and_port_stop(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = aging_pipe(UINT32_MAX);
	add_entries(p, 4, 0, 1);
	doca_flow_pipe_destroy(p);
	flowdpa_clock_advance_ms(2000);
	assert_int_equal(handle_cycle(0, 0, 0), 0);
	p = aging_pipe(UINT32_MAX);
	add_entries(p, 4, 0, 1);
	flowdpa_clock_advance_ms(2000);
	assert_int_equal(doca_flow_aging_handle(ports[0], 0, 0, 1), 1);
	/* Stopped mid-cycle: the records go with the port. */
	assert_int_equal(doca_flow_port_stop(ports[0]), DOCA_SUCCESS);
	ports[0] = NULL;
}

static void test_bad_input(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = aging_pipe(UINT32_MAX);
	add_entries(p, 1, 0, 1);
	flowdpa_clock_advance_ms(2000);
	log_capture_clear();
	assert_int_equal(doca_flow_aging_handle(NULL, 0, 0, 0), -(int)DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("doca_flow_aging_handle"), 1);
	log_capture_clear();
	assert_int_equal(doca_flow_aging_handle(ports[0], 2, 0, 0), -(int)DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("doca_flow_aging_handle: queue 2 out of range"), 1);
	assert_int_equal(log_capture_count(NULL), 1);
	/* State intact: the entry still ages on queue 0. */
	assert_int_equal(aged_total, 0);
	assert_int_equal(handle_cycle(0, 0, 0), 1);
	struct doca_flow_port *stopped = ports[1];
	assert_int_equal(doca_flow_port_stop(stopped), DOCA_SUCCESS);
	ports[1] = NULL;
	log_capture_clear();
	assert_int_equal(doca_flow_aging_handle(stopped, 0, 0, 0), -(int)DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_capture_count(NULL), 1);
}

static void test_before_init(void **state)
{
	(void)state;
	log_capture_clear();
	assert_int_equal(doca_flow_aging_handle(NULL, 0, 0, 0), -(int)DOCA_ERROR_BAD_STATE);
	assert_int_equal(log_capture_count("doca_flow_aging_handle"), 1);
}

int main(void)
{
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_before_init),
		cmocka_unit_test_setup_teardown(test_idle_entries_age_hit_ones_do_not, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counter_given_and_no_aging_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_level_aging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_entries_and_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_of_the_add, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_in_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_staged_miss_counter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_destroy_and_port_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
