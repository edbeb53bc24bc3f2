/*
 * test_flow_entry_pool.c - the BASIC insertion fast path (issue 13): the compiled
 * per-entry match translation gives the keys the field walk gave (the pipe's field, the
 * same field reached through another selector group, fields outside the entry mask
 * ignored, an unsupported byte refused with one log line and nothing queued), and entry
 * handles come from the pipe's pool (adds queued past nr_entries get their own handle
 * and complete with ERROR; a handle freed by a processed removal is reused; a pipe
 * destroyed with live entries frees them; each adding thread takes handles from a run
 * of its own, a small pipe's runs leave handles for the other threads). Real frames
 * check what each entry matches.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <flow/flow_internal.h>

#include "flow_test_common.h"
#include "log_capture.h"

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

static const struct doca_flow_fwd to_port1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
static const struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};

/* One UDP frame to dport in on port 0: true when it left port 1. */
static bool forwarded(uint16_t dport)
{
	ft_drain(1);
	assert_int_equal(ft_inject_udp4(0, 0x0a000001u, 0x0a000002u, 1000, dport), DOCA_SUCCESS);
	return flowdpa_port_capture_count(1) == 1;
}

static struct doca_flow_pipe_entry *add_dport(struct doca_flow_pipe *p, struct doca_flow_match *m, uint16_t dport)
{
	struct doca_flow_pipe_entry *e = NULL;
	m->outer.udp.l4_port.dst_port = DOCA_HTOBE16(dport);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, m, 0, NULL, NULL, NULL, 0, &status, &e), DOCA_SUCCESS);
	assert_non_null(e);
	return e;
}

static void test_compiled_match(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = ft_udp_dport_pipe(ports[0], "udp", true, 8, &to_port1, &drop);
	assert_non_null(p);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	struct doca_flow_pipe_entry *a = add_dport(p, &m, 80);
	/* The same key bytes through the transport group (no l4_type_ext). */
	struct doca_flow_match t;
	struct doca_flow_pipe_entry *b = NULL;
	memset(&t, 0, sizeof(t));
	t.outer.transport.dst_port = DOCA_HTOBE16(81);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &t, 0, NULL, NULL, NULL, 0, &status, &b), DOCA_SUCCESS);
	/* A field outside the pipe's entry mask is not part of the key: a duplicate of a. */
	struct doca_flow_match d = m;
	d.outer.ip4.src_ip = DOCA_HTOBE32(0x01020304u);
	struct doca_flow_pipe_entry *dup = add_dport(p, &d, 80);
	/* A byte no supported field carries: refused at once, one line, nothing queued. */
	struct doca_flow_match bad = m;
	bad.inner.ip4.dst_ip = DOCA_HTOBE32(1);
	log_capture_clear();
	struct doca_flow_pipe_entry *none = NULL;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &bad, 0, NULL, NULL, NULL, 0, &status, &none),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(log_capture_count(NULL), 1);
	assert_int_equal(log_capture_count("doca_flow_pipe_basic_add_entry: match field at byte"), 1);
	assert_null(none);

	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_add, 3);
	assert_int_equal(doca_flow_pipe_entry_get_status(a), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(b), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(dup), DOCA_FLOW_ENTRY_STATUS_ERROR);
	assert_true(forwarded(80));
	assert_true(forwarded(81));
	assert_false(forwarded(82));
	assert_int_equal(ft_entry_pkts(a), 1);
	assert_int_equal(ft_entry_pkts(b), 1);
	assert_int_equal(ft_miss_pkts(p), 1);
}

static void test_pool_handles(void **state)
{
	(void)state;
	struct doca_flow_pipe *p = ft_udp_dport_pipe(ports[0], "small", true, 2, &to_port1, &drop);
	assert_non_null(p);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	/* Four adds queued on a pipe of two: every one gets a handle; two fail as FULL. */
	struct doca_flow_pipe_entry *e[4];
	for (int i = 0; i < 4; i++)
		e[i] = add_dport(p, &m, (uint16_t)(90 + i));
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(e[i], e[j]);
	log_capture_clear();
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_add, 4);
	assert_int_equal(log_capture_count("full (2 entries)"), 2);
	assert_int_equal(doca_flow_pipe_entry_get_status(e[0]), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(e[1]), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(e[2]), DOCA_FLOW_ENTRY_STATUS_ERROR);
	assert_int_equal(doca_flow_pipe_entry_get_status(e[3]), DOCA_FLOW_ENTRY_STATUS_ERROR);
	assert_true(forwarded(90));
	assert_false(forwarded(92));

	/* Removing e[0] and the failed ones: once processed, e[0]'s handle serves the next add. */
	for (int i = 0; i < 4; i += (i == 0 ? 2 : 1))
		assert_int_equal(doca_flow_pipe_remove_entry(0, 0, e[i]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_del, 3);
	assert_false(forwarded(90));
	struct doca_flow_pipe_entry *n = add_dport(p, &m, 95);
	assert_ptr_equal(n, e[0]);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(n), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_true(forwarded(95));
	assert_true(forwarded(91));
	assert_int_equal(ft_entry_pkts(n), 1);
	assert_int_equal(ft_entry_pkts(e[1]), 1);
	assert_int_equal(status.nb_add, 5);
	/* Destroyed with two live entries and one queued add (the sanitizer checks leaks). */
	(void)add_dport(p, &m, 96);
	doca_flow_pipe_destroy(p);
}

/* A thread's adds: `more` entries to dports first + n on, appended to e[]. */
struct handle_adder {
	struct doca_flow_pipe *p;
	uint16_t first;
	uint32_t n, more;
	struct doca_flow_pipe_entry *e[128];
};

static void *handle_add(void *arg)
{
	struct handle_adder *a = arg;
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	for (; a->more; a->more--, a->n++)
		a->e[a->n] = add_dport(a->p, &m, (uint16_t)(a->first + a->n));
	return NULL;
}

/* All queued adds processed: n of them, none failed. */
static void process_adds(int n)
{
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(status.nb_add, n);
	assert_false(status.failure);
}

static bool pool_handle(const struct doca_flow_pipe *p, const struct doca_flow_pipe_entry *e)
{
	return e >= p->pool && e < p->pool + p->pool_n;
}

/* Thread A adds 40 entries, thread B 40 while A waits, then A 40 more. */
struct interleaved {
	struct handle_adder a, b;
	pthread_barrier_t turn;
};

static void *interleaved_a(void *arg)
{
	struct interleaved *x = arg;
	x->a.more = 40;
	handle_add(&x->a);
	pthread_barrier_wait(&x->turn);
	pthread_barrier_wait(&x->turn);
	x->a.more = 40;
	handle_add(&x->a);
	return NULL;
}

static void *interleaved_b(void *arg)
{
	struct interleaved *x = arg;
	pthread_barrier_wait(&x->turn);
	handle_add(&x->b);
	pthread_barrier_wait(&x->turn);
	return NULL;
}

static void test_pool_runs_per_thread(void **state)
{
	(void)state;
	static struct interleaved x;
	memset(&x, 0, sizeof(x));
	struct doca_flow_pipe *p = ft_udp_dport_pipe(ports[0], "runs", true, 4096, &to_port1, &drop);
	assert_non_null(p);
	x.a = (struct handle_adder){.p = p, .first = 1000};
	x.b = (struct handle_adder){.p = p, .first = 2000, .more = 40};
	pthread_barrier_init(&x.turn, NULL, 2);
	pthread_t ta, tb;
	assert_int_equal(pthread_create(&ta, NULL, interleaved_a, &x), 0);
	assert_int_equal(pthread_create(&tb, NULL, interleaved_b, &x), 0);
	assert_int_equal(pthread_join(ta, NULL), 0);
	assert_int_equal(pthread_join(tb, NULL), 0);
	pthread_barrier_destroy(&x.turn);
	process_adds(120);
	/* A's 80 handles are consecutive across B's adds: B's came from a run of its own. */
	assert_int_equal(x.a.n, 80);
	for (uint32_t i = 0; i < 80; i++) {
		assert_true(pool_handle(p, x.a.e[i]));
		assert_ptr_equal(x.a.e[i], x.a.e[0] + i);
	}
	for (uint32_t i = 0; i < 40; i++) {
		assert_true(pool_handle(p, x.b.e[i]));
		assert_ptr_equal(x.b.e[i], x.b.e[0] + i);
		assert_true(x.b.e[i] < x.a.e[0] || x.b.e[i] > x.a.e[79]);
	}
	assert_true(forwarded(1000) && forwarded(1079) && forwarded(2039));
	doca_flow_pipe_destroy(p);
}

static void test_small_pool_runs(void **state)
{
	(void)state;
	/* 64 entries, two threads adding 32 each one after the other: the first thread's
	 * run does not take the second's handles. */
	struct doca_flow_pipe *p = ft_udp_dport_pipe(ports[0], "runs", true, 64, &to_port1, &drop);
	assert_non_null(p);
	struct handle_adder a[2] = {{.p = p, .first = 1000, .more = 32}, {.p = p, .first = 1032, .more = 32}};
	for (int t = 0; t < 2; t++) {
		pthread_t th;
		assert_int_equal(pthread_create(&th, NULL, handle_add, &a[t]), 0);
		assert_int_equal(pthread_join(th, NULL), 0);
	}
	process_adds(64);
	for (int t = 0; t < 2; t++)
		for (uint32_t i = 0; i < 32; i++)
			assert_true(pool_handle(p, a[t].e[i]));
	assert_true(forwarded(1000) && forwarded(1063));
	doca_flow_pipe_destroy(p);
}

int main(void)
{
	if (log_capture_setup() != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_compiled_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_handles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_runs_per_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_pool_runs, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
