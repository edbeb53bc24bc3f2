/*
 * test_flow_bad_input.c - refused calls of the doca_flow and flowdpa API, each checked
 * three ways: the documented DOCA_ERROR_* is returned, exactly one line naming the call
 * is logged through the SDK log (docs/flow.md, Observability), and the state is intact
 * afterwards (the pipe, entry, counter or cfg still works; counts are unchanged).
 *
 * Covered: basic_update_entry, update_miss, calc_hash, pipe_dump, query_pipe_miss, the
 * per-port shared resource calls, calls before doca_flow_init and after
 * doca_flow_destroy, NULL cfg for every implemented setter (table-driven), the external
 * resource cfg setters, and the flowdpa capture / traffic calls.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include <core/core.h>
#include <doca_flow_external_resource.h>

#include "flow_test_common.h"

/* test_traffic_wait: port 5 plays a generator that cannot finish within the timeout. */
#define GEN_PORT 5
#define GEN_PORT_ENV "FLOWDPA_PORT5_RX"
#define GEN_SOURCE "gen:flows=4,pkts=1000000,rate=1000"

static struct doca_flow_port *ports[2];
static struct entries_status status;

/* ------------------------------------------------------------------ SDK log capture */

static char log_rec[4096];
static char log_text[64 * 1024];
static size_t log_len;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_flush(char *rec)
{
	pthread_mutex_lock(&log_lock);
	size_t n = strlen(rec);
	if (log_len + n + 2 < sizeof(log_text)) {
		memcpy(log_text + log_len, rec, n);
		log_len += n;
		if (n == 0 || rec[n - 1] != '\n')
			log_text[log_len++] = '\n';
		log_text[log_len] = '\0';
	}
	pthread_mutex_unlock(&log_lock);
}

/* Every SDK record of WARNING and above into log_text; stderr keeps them in the meson log. */
static void log_setup(void)
{
	struct doca_log_backend *b = NULL;
	ft_log_init();
	assert_int_equal(doca_log_backend_create_with_buf_sdk(log_rec, sizeof(log_rec), log_flush, &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
}

static void log_clear(void)
{
	pthread_mutex_lock(&log_lock);
	log_len = 0;
	log_text[0] = '\0';
	pthread_mutex_unlock(&log_lock);
}

/* Records logged since the last clear; *with: those containing s (may be NULL). */
static int log_lines(const char *s, int *with)
{
	int n = 0, w = 0;
	pthread_mutex_lock(&log_lock);
	for (const char *line = log_text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char rec[4096];
		if (len >= sizeof(rec))
			len = sizeof(rec) - 1;
		memcpy(rec, line, len);
		rec[len] = '\0';
		n++;
		w += s && strstr(rec, s) != NULL;
		line += len + (end ? 1 : 0);
	}
	pthread_mutex_unlock(&log_lock);
	if (with)
		*with = w;
	return n;
}

static void expect_refused(doca_error_t got, doca_error_t want, const char *name, const char *expr, const char *file,
			   int line)
{
	int with = 0, n = log_lines(name, &with);
	if (got != want || n != 1 || with != 1)
		print_error("%s:%d: %s\n  returned %s (want %s), logged %d line(s), %d naming %s:\n%s", file, line, expr,
			    doca_error_get_name(got), doca_error_get_name(want), n, with, name, log_text);
	_assert_int_equal(got, want, file, line);
	_assert_int_equal(n, 1, file, line);
	_assert_int_equal(with, 1, file, line);
	log_clear();
}

/* call returns want and logs exactly one line, which names the called function. */
#define EXPECT_REFUSED(want, name, call)                                                      \
	do {                                                                                  \
		log_clear();                                                                  \
		doca_error_t got_ = (call);                                                   \
		expect_refused(got_, want, name, #call, __FILE__, __LINE__);                  \
	} while (0)

/* A valid call: succeeds and logs nothing. */
#define EXPECT_OK(call)                                                                       \
	do {                                                                                  \
		log_clear();                                                                  \
		doca_error_t got_ = (call);                                                   \
		int n_ = log_lines(NULL, NULL);                                               \
		if (got_ != DOCA_SUCCESS || n_ != 0)                                          \
			print_error("%s: %s, %d line(s):\n%s", #call, doca_error_get_name(got_), n_, \
				    log_text);                                                \
		assert_int_equal(got_, DOCA_SUCCESS);                                         \
		assert_int_equal(n_, 0);                                                      \
	} while (0)

/* ------------------------------------------------------------------ fixture and builders */

static int setup(void **state)
{
	(void)state;
	int rc = ft_setup_two_ports(ports, &status);
	log_clear();
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	ft_teardown_two_ports(ports);
	log_clear();
	return 0;
}

/* BASIC pipe on port 0: changeable UDP destination port, per-entry counter, miss counter. */
static struct doca_flow_pipe *basic_pipe(const char *name, bool root, const struct doca_flow_fwd *fwd,
					 const struct doca_flow_fwd *miss)
{
	struct doca_flow_pipe *p = ft_udp_dport_pipe(ports[0], name, root, 16, fwd, miss);
	assert_non_null(p);
	return p;
}

static struct doca_flow_pipe *control_pipe(const char *name, bool root)
{
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, name, DOCA_FLOW_PIPE_CONTROL, root), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, NULL, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

/* HASH pipe on port 0 over the IPv4 destination, 16 entries, per-entry counter, fwd port 1. */
static struct doca_flow_pipe *hash_pipe(const char *name, bool root)
{
	struct doca_flow_match mask;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	memset(&mask, 0, sizeof(mask));
	mask.outer.ip4.dst_ip = 0xffffffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, name, DOCA_FLOW_PIPE_HASH, root), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 16), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static struct doca_flow_pipe_entry *add_basic(struct doca_flow_pipe *p, uint16_t dport)
{
	struct doca_flow_match m;
	struct doca_flow_pipe_entry *e = NULL;
	memset(&m, 0, sizeof(m));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(dport);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, &e), DOCA_SUCCESS);
	return e;
}

static struct doca_flow_pipe_entry *add_control(struct doca_flow_pipe *p, uint16_t dport,
						const struct doca_flow_monitor *mon)
{
	struct doca_flow_match m;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_entry *e = NULL;
	memset(&m, 0, sizeof(m));
	m.outer.transport.dst_port = DOCA_HTOBE16(dport);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, NULL, NULL, NULL, NULL, mon, 0, &fwd, &status,
							  &e),
			 DOCA_SUCCESS);
	return e;
}

static uint32_t hash_of(struct doca_flow_pipe *p, uint32_t dst)
{
	struct doca_flow_match m;
	uint32_t h = 0;
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = DOCA_HTOBE32(dst);
	assert_int_equal(doca_flow_pipe_calc_hash(p, &m, &h), DOCA_SUCCESS);
	return h;
}

/* Start port id as a VNF port, like init_doca_flow_ports does for 0..n-1. */
static struct doca_flow_port *start_port(uint16_t id)
{
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;
	assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_set_port_id(pc, id), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_set_nr_resources(pc, DOCA_FLOW_RESOURCE_COUNTER, 64), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_set_dev(pc, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_start(pc, &p), DOCA_SUCCESS);
	doca_flow_port_cfg_destroy(pc);
	return p;
}

static uint64_t rx_pkts(uint16_t port)
{
	struct flowdpa_port_stats st;
	assert_int_equal(flowdpa_port_stats_get(port, &st), DOCA_SUCCESS);
	return st.rx_pkts;
}

static void sleep_ms(long ms)
{
	struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&d, NULL);
}

/* ------------------------------------------------------------------ basic_update_entry */

static void test_update_entry(void **state)
{
	(void)state;
	static const char *fn = "doca_flow_pipe_basic_update_entry";
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe *p = basic_pipe("root", true, &to1, NULL);
	struct doca_flow_pipe *other = basic_pipe("other", false, &drop, NULL);
	struct doca_flow_pipe *ctl = control_pipe("ctl", false);
	struct doca_flow_pipe_entry *e = add_basic(p, 80);
	struct doca_flow_pipe_entry *e_other = add_basic(other, 81);
	struct doca_flow_pipe_entry *e_ctl = add_control(ctl, 90, NULL);
	assert_int_equal(flow_process_entries(ports[0], &status, 3), DOCA_SUCCESS);
	log_clear();

	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn, doca_flow_pipe_basic_update_entry(0, p, 0, NULL, NULL, NULL, 0, NULL));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn,
		       doca_flow_pipe_basic_update_entry(0, p, 0, NULL, NULL, NULL, 0, e_other));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn,
		       doca_flow_pipe_basic_update_entry(0, ctl, 0, NULL, NULL, NULL, 0, e_ctl));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn, doca_flow_pipe_basic_update_entry(0, p, 1, NULL, NULL, NULL, 0, e));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn,
		       doca_flow_pipe_basic_update_entry(
			       0, p, 0, NULL, NULL, NULL,
			       DOCA_FLOW_ENTRY_FLAGS_NO_WAIT | DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH, e));

	/* Nothing was queued: processing completes nothing, every entry is still SUCCESS. */
	EXPECT_OK(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	assert_int_equal(status.nb_processed, 3);
	assert_int_equal(status.nb_upd, 0);
	assert_false(status.failure);
	assert_int_equal(doca_flow_pipe_entry_get_status(e), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(e_other), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(doca_flow_pipe_entry_get_status(e_ctl), DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(e), 1);
	assert_int_equal(flowdpa_port_capture_count(1), 1);

	/* A valid update of the same entry is queued and completes as one UPD. */
	EXPECT_OK(doca_flow_pipe_basic_update_entry(0, p, 0, NULL, NULL, NULL, 0, e));
	EXPECT_OK(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	assert_int_equal(status.nb_processed, 4);
	assert_int_equal(status.nb_upd, 1);
	assert_false(status.failure);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(e), 2);
	assert_int_equal(flowdpa_port_capture_count(1), 2);
}

/* ------------------------------------------------------------------ update_miss */

static void test_update_miss(void **state)
{
	(void)state;
	static const char *fn = "doca_flow_pipe_update_miss";
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_fwd per_entry_port = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0xffff};
	struct doca_flow_pipe *p = basic_pipe("root", true, &to1, NULL); /* NULL miss: the host queue */
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 99), DOCA_SUCCESS);
	assert_int_equal(flowdpa_host_capture_count(0), 1);

	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn, doca_flow_pipe_update_miss(NULL, &drop));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn, doca_flow_pipe_update_miss(p, &per_entry_port));

	/* The miss path is unchanged (still the host queue), then a valid update moves it. */
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 99), DOCA_SUCCESS);
	assert_int_equal(flowdpa_host_capture_count(0), 2);
	assert_int_equal(flowdpa_port_capture_count(1), 0);
	assert_int_equal(ft_miss_pkts(p), 2);
	EXPECT_OK(doca_flow_pipe_update_miss(p, &to1));
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 99), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	assert_int_equal(flowdpa_host_capture_count(0), 2);
	assert_int_equal(ft_miss_pkts(p), 3);
}

/* docs/flow.md, Targets: a TARGET fwd (miss included) without a target from
 * doca_flow_get_target is INVALID_VALUE. */
static void test_update_miss_target(void **state)
{
	(void)state;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd target = {.type = DOCA_FLOW_FWD_TARGET};
	struct doca_flow_pipe *p = basic_pipe("root", true, &to1, NULL);
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, "doca_flow_pipe_update_miss", doca_flow_pipe_update_miss(p, &target));
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 99), DOCA_SUCCESS);
	assert_int_equal(flowdpa_host_capture_count(0), 1);
	assert_int_equal(ft_miss_pkts(p), 1);
}

/* ------------------------------------------------------------------ calc_hash, dump, miss query */

static void test_calc_hash(void **state)
{
	(void)state;
	static const char *fn = "doca_flow_pipe_calc_hash";
	struct doca_flow_pipe *h = hash_pipe("hash", true);
	const uint32_t dst = 0x0a000001u;
	uint32_t h0 = hash_of(h, dst), out = 0x5a5a5a5a;
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = DOCA_HTOBE32(dst);

	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn, doca_flow_pipe_calc_hash(NULL, &m, &out));
	assert_int_equal(out, 0x5a5a5a5a);
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, fn, doca_flow_pipe_calc_hash(h, &m, NULL));

	/* Same hash as before, and it still names the entry the datapath uses. */
	EXPECT_OK(doca_flow_pipe_calc_hash(h, &m, &out));
	assert_int_equal(out, h0);
	struct doca_flow_pipe_entry *e = NULL;
	assert_int_equal(doca_flow_pipe_hash_add_entry(0, h, h0 % 16, 0, NULL, NULL, NULL, 0, &status, &e),
			 DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, dst, 3, 4), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(e), 1);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
}

static void test_dump_and_miss_query(void **state)
{
	(void)state;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *p = basic_pipe("root", true, &to1, NULL);
	struct doca_flow_resource_query q;
	FILE *f = tmpfile();
	assert_non_null(f);
	add_basic(p, 80);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 99), DOCA_SUCCESS);
	log_clear();

	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, "doca_flow_pipe_dump", doca_flow_pipe_dump(NULL, f));
	assert_int_equal(ftell(f), 0);
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, "doca_flow_resource_query_pipe_miss",
		       doca_flow_resource_query_pipe_miss(p, NULL));

	EXPECT_OK(doca_flow_pipe_dump(p, f));
	assert_true(ftell(f) > 0);
	fclose(f);
	memset(&q, 0, sizeof(q));
	EXPECT_OK(doca_flow_resource_query_pipe_miss(p, &q));
	assert_int_equal(q.counter.total_pkts, 1);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 99), DOCA_SUCCESS);
	assert_int_equal(ft_miss_pkts(p), 2);
}

/* ------------------------------------------------------------------ shared resources */

static void test_shared_resources(void **state)
{
	(void)state;
	static const char *put = "doca_flow_port_shared_resource_put";
	static const char *query = "doca_flow_port_shared_resources_query";
	static const char *set_cfg = "doca_flow_port_shared_resource_set_cfg";
	const enum doca_flow_shared_resource_type cnt = DOCA_FLOW_SHARED_RESOURCE_COUNTER;
	struct doca_flow_shared_resource_cfg scfg;
	struct doca_flow_resource_query out[1];
	uint32_t id, id2, ids[1];
	memset(&scfg, 0, sizeof(scfg));
	assert_int_equal(doca_flow_port_shared_resource_get(ports[0], cnt, &id), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_shared_resource_set_cfg(ports[0], cnt, id, &scfg), DOCA_SUCCESS);
	struct doca_flow_pipe *ctl = control_pipe("ctl", true);
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
	mon.shared_counter.shared_counter_id = id;
	add_control(ctl, 90, &mon);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 90), DOCA_SUCCESS);
	ids[0] = id;
	log_clear();

	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, put, doca_flow_port_shared_resource_put(ports[0], cnt, 64));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, put, doca_flow_port_shared_resource_put(NULL, cnt, id));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, put, doca_flow_port_shared_resource_put(ports[0], 9, id));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, query,
		       doca_flow_port_shared_resources_query(ports[0], cnt, NULL, out, 1));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, query,
		       doca_flow_port_shared_resources_query(ports[0], cnt, ids, NULL, 1));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, query, doca_flow_port_shared_resources_query(NULL, cnt, ids, out, 1));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, set_cfg, doca_flow_port_shared_resource_set_cfg(NULL, cnt, id, &scfg));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, set_cfg, doca_flow_port_shared_resource_set_cfg(ports[0], 9, id, &scfg));

	/* The counter still counts and reads, and its id is still taken. */
	memset(out, 0, sizeof(out));
	EXPECT_OK(doca_flow_port_shared_resources_query(ports[0], cnt, ids, out, 1));
	assert_int_equal(out[0].counter.total_pkts, 1);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 90), DOCA_SUCCESS);
	EXPECT_OK(doca_flow_port_shared_resources_query(ports[0], cnt, ids, out, 1));
	assert_int_equal(out[0].counter.total_pkts, 2);
	EXPECT_OK(doca_flow_port_shared_resource_get(ports[0], cnt, &id2));
	assert_int_not_equal(id2, id);
	EXPECT_OK(doca_flow_port_shared_resource_put(ports[0], cnt, id2));
	EXPECT_OK(doca_flow_port_shared_resource_set_cfg(ports[0], cnt, id2, &scfg));
}

/* ------------------------------------------------------------------ before init / after destroy */

/* Calls with NULL handles: each checks the init state before reading any handle. */
static void refused_without_init_null_handles(void)
{
	static char sentinel;
	struct doca_flow_match m;
	struct doca_flow_pipe_entry *e = (void *)&sentinel; /* must stay untouched */
	struct doca_flow_external_resource_cfg *xc = NULL;
	uint32_t id = 77;
	memset(&m, 0, sizeof(m));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_entries_process",
		       doca_flow_entries_process(NULL, 0, DEFAULT_TIMEOUT_US, 0));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_pipe_basic_add_entry",
		       doca_flow_pipe_basic_add_entry(0, NULL, &m, 0, NULL, NULL, NULL, 0, NULL, &e));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_pipe_control_add_entry",
		       doca_flow_pipe_control_add_entry(0, NULL, &m, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL,
							&e));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_pipe_hash_add_entry",
		       doca_flow_pipe_hash_add_entry(0, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, &e));
	assert_ptr_equal(e, (void *)&sentinel);
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_external_resource_cfg_create",
		       doca_flow_external_resource_cfg_create(&xc, NULL));
	assert_null(xc);
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_port_shared_resource_get",
		       doca_flow_port_shared_resource_get(NULL, DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id));
	assert_int_equal(id, 77);
}

/*
 * Runs first in the process (never initialized), then again after doca_flow_destroy with
 * the handles of the destroyed session: every call here tests the init state before it
 * reads any handle (flow_inited / check_common / shared_check come first), so the freed
 * port, pipes and entries are never read (ASan build checks it). The pipe cfg is the
 * caller's memory and is still allocated.
 */
static void test_before_init_and_after_destroy(void **state)
{
	(void)state;
	log_clear();
	refused_without_init_null_handles();
	doca_flow_destroy(); /* harmless before init, logs nothing */
	assert_int_equal(log_lines(NULL, NULL), 0);

	assert_int_equal(ft_setup_two_ports(ports, &status), 0);
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *p = basic_pipe("root", true, &to1, NULL);
	struct doca_flow_pipe *ctl = control_pipe("ctl", false);
	struct doca_flow_pipe *h = hash_pipe("hash", false);
	struct doca_flow_port *port0 = ports[0];
	struct doca_flow_pipe_cfg *pc;
	assert_int_equal(doca_flow_pipe_cfg_create(&pc, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(pc, "later", DOCA_FLOW_PIPE_BASIC, false), DOCA_SUCCESS);
	doca_flow_destroy(); /* stops the ports, frees the pipes */
	log_clear();

	refused_without_init_null_handles();
	struct doca_flow_match m;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_entry *e = NULL;
	struct doca_flow_pipe *np = NULL;
	struct doca_flow_external_resource_cfg *xc = NULL;
	uint32_t id = 77;
	memset(&m, 0, sizeof(m));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_entries_process",
		       doca_flow_entries_process(port0, 0, DEFAULT_TIMEOUT_US, 0));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_pipe_basic_add_entry",
		       doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, NULL, &e));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_pipe_control_add_entry",
		       doca_flow_pipe_control_add_entry(0, ctl, &m, NULL, NULL, NULL, NULL, NULL, NULL, 0, &to1, NULL,
							&e));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_pipe_hash_add_entry",
		       doca_flow_pipe_hash_add_entry(0, h, 0, 0, NULL, NULL, NULL, 0, NULL, &e));
	assert_null(e);
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_pipe_create", doca_flow_pipe_create(pc, &drop, NULL, &np));
	assert_null(np);
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_external_resource_cfg_create",
		       doca_flow_external_resource_cfg_create(&xc, port0));
	assert_null(xc);
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "doca_flow_port_shared_resource_get",
		       doca_flow_port_shared_resource_get(port0, DOCA_FLOW_SHARED_RESOURCE_COUNTER, &id));
	assert_int_equal(id, 77);
	assert_int_equal(doca_flow_pipe_cfg_destroy(pc), DOCA_SUCCESS);

	/* Nothing was left half-done: a new session starts and works. */
	assert_int_equal(ft_setup_two_ports(ports, &status), 0);
	p = basic_pipe("root", true, &to1, NULL);
	struct doca_flow_pipe_entry *e80 = add_basic(p, 80);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(ft_entry_pkts(e80), 1);
	ft_teardown_two_ports(ports);
}

/* ------------------------------------------------------------------ NULL cfg, table-driven */

static void dummy_entry_cb(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue, enum doca_flow_entry_status st,
			   enum doca_flow_entry_op op, void *user_ctx)
{
	(void)entry, (void)pipe_queue, (void)st, (void)op, (void)user_ctx;
}

static const uint8_t rss_key[4] = {1, 2, 3, 4};
static struct doca_flow_match any_match;
static struct doca_flow_monitor any_monitor;
static struct doca_flow_actions any_actions;
static struct doca_flow_actions *const any_actions_arr[1] = {&any_actions};

/* X(setter, arguments after the NULL cfg): every implemented setter refuses a NULL cfg. */
#define NULL_CFG_CASES(X)                                                                          \
	X(doca_flow_cfg_set_pipe_queues, 1)                                                        \
	X(doca_flow_cfg_set_mode_args, "vnf,hws")                                                  \
	X(doca_flow_cfg_set_nr_counters, 16)                                                       \
	X(doca_flow_cfg_set_nr_meters, 16)                                                         \
	X(doca_flow_cfg_set_nr_shared_resource, 16, DOCA_FLOW_SHARED_RESOURCE_COUNTER)             \
	X(doca_flow_cfg_set_queue_depth, 128)                                                      \
	X(doca_flow_cfg_set_cb_pipe_process, NULL)                                                 \
	X(doca_flow_cfg_set_cb_entry_process, dummy_entry_cb)                                      \
	X(doca_flow_cfg_set_cb_shared_resource_unbind, NULL)                                       \
	X(doca_flow_cfg_set_rss_key, rss_key, sizeof(rss_key))                                     \
	X(doca_flow_cfg_set_nr_acl_collisions, 2)                                                  \
	X(doca_flow_cfg_set_definitions, NULL)                                                     \
	X(doca_flow_cfg_set_resource_mode, DOCA_FLOW_RESOURCE_MODE_PORT)                           \
	X(doca_flow_port_cfg_set_devargs, "th_win_us=0")                                           \
	X(doca_flow_port_cfg_set_dev, NULL)                                                        \
	X(doca_flow_port_cfg_set_dev_rep, NULL)                                                    \
	X(doca_flow_port_cfg_set_port_id, 0)                                                       \
	X(doca_flow_port_cfg_set_actions_mem_size, 4096)                                           \
	X(doca_flow_port_cfg_set_nr_resources, DOCA_FLOW_RESOURCE_COUNTER, 64)                     \
	X(doca_flow_port_cfg_set_priv_data_size, 16)                                               \
	X(doca_flow_port_cfg_set_service_threads_cycle, 10)                                        \
	X(doca_flow_pipe_cfg_set_name, "name")                                                     \
	X(doca_flow_pipe_cfg_set_label, "label")                                                   \
	X(doca_flow_pipe_cfg_set_type, DOCA_FLOW_PIPE_BASIC)                                       \
	X(doca_flow_pipe_cfg_set_domain, DOCA_FLOW_PIPE_DOMAIN_DEFAULT)                            \
	X(doca_flow_pipe_cfg_set_is_root, true)                                                    \
	X(doca_flow_pipe_cfg_set_nr_entries, 16)                                                   \
	X(doca_flow_pipe_cfg_set_match, &any_match, NULL)                                          \
	X(doca_flow_pipe_cfg_set_actions, any_actions_arr, NULL, NULL, 1)                          \
	X(doca_flow_pipe_cfg_set_monitor, &any_monitor)                                            \
	X(doca_flow_pipe_cfg_set_miss_counter, true)                                               \
	X(doca_flow_pipe_cfg_set_user_ctx, &any_match)                                             \
	X(doca_flow_pipe_cfg_set_hash_map_algorithm, DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_HASH)       \
	X(doca_flow_pipe_cfg_set_external_resource, NULL)                                          \
	X(doca_flow_external_resource_cfg_set_type, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR) \
	X(doca_flow_external_resource_cfg_set_nr_indices, 4)                                       \
	X(doca_flow_external_resource_cfg_set_nr_cells, 4)

#define NULL_CFG_WRAPPER(fn, ...)                                                                  \
	static doca_error_t null_cfg_##fn(void)                                                    \
	{                                                                                          \
		return fn(NULL, __VA_ARGS__);                                                      \
	}
NULL_CFG_CASES(NULL_CFG_WRAPPER)

struct null_cfg_case {
	const char *name;
	doca_error_t (*call)(void);
};

#define NULL_CFG_ROW(fn, ...) {#fn, null_cfg_##fn},
static const struct null_cfg_case null_cfg_cases[] = {NULL_CFG_CASES(NULL_CFG_ROW)};

static void test_null_cfg_setters(void **state)
{
	(void)state;
	memset(&any_match, 0, sizeof(any_match));
	memset(&any_monitor, 0, sizeof(any_monitor));
	memset(&any_actions, 0, sizeof(any_actions));
	for (size_t i = 0; i < sizeof(null_cfg_cases) / sizeof(null_cfg_cases[0]); i++) {
		const struct null_cfg_case *c = &null_cfg_cases[i];
		log_clear();
		doca_error_t got = c->call();
		expect_refused(got, DOCA_ERROR_INVALID_VALUE, c->name, c->name, __FILE__, __LINE__);
	}

	/* A real pipe cfg refuses a NULL label and stays usable. */
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "labelled", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, "doca_flow_pipe_cfg_set_label", doca_flow_pipe_cfg_set_label(cfg, NULL));
	EXPECT_OK(doca_flow_pipe_cfg_set_label(cfg, "label"));
	EXPECT_OK(doca_flow_pipe_create(cfg, &to1, NULL, &p));
	doca_flow_pipe_cfg_destroy(cfg);
	struct doca_flow_pipe_entry *e = NULL;
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, &e), DOCA_SUCCESS);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);

	/* The external resource cfg setters still work on a real cfg. */
	struct doca_flow_external_resource_cfg *xc;
	struct doca_flow_external_resource *r = NULL;
	assert_int_equal(doca_flow_external_resource_cfg_create(&xc, ports[0]), DOCA_SUCCESS);
	EXPECT_OK(doca_flow_external_resource_cfg_set_type(xc, DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY));
	EXPECT_OK(doca_flow_external_resource_cfg_set_nr_cells(xc, 4));
	EXPECT_OK(doca_flow_external_resource_create(xc, &r));
	assert_int_equal(doca_flow_external_resource_cfg_destroy(xc), DOCA_SUCCESS);
	assert_int_equal(doca_flow_external_resource_destroy(r), DOCA_SUCCESS);
}

/* ------------------------------------------------------------------ flowdpa captures and traffic */

static void test_capture_calls(void **state)
{
	(void)state;
	uint8_t buf[FLOWDPA_MAX_FRAME];
	uint32_t len = 0;
	struct doca_flow_port *p2 = start_port(2);
	assert_int_equal(doca_flow_port_stop(p2), DOCA_SUCCESS);
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *p = basic_pipe("root", true, &to1, NULL);
	add_basic(p, 80);
	assert_int_equal(flow_process_entries(ports[0], &status, 1), DOCA_SUCCESS);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 80), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	log_clear();

	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, "flowdpa_host_capture_set_depth", flowdpa_host_capture_set_depth(16, 4));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "flowdpa_host_capture_set_depth", flowdpa_host_capture_set_depth(2, 4));
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "flowdpa_host_capture_set_depth", flowdpa_host_capture_set_depth(3, 4));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, "flowdpa_port_capture_pop",
		       flowdpa_port_capture_pop(16, buf, sizeof(buf), &len));
	assert_int_equal(len, 0);

	/* The captured frame is still there; the host ring of a started port can be resized. */
	assert_int_equal(flowdpa_port_capture_count(1), 1);
	EXPECT_OK(flowdpa_port_capture_pop(1, buf, sizeof(buf), &len));
	assert_int_equal(len, 60);
	assert_int_equal(ft_dport(buf), 80);
	EXPECT_OK(flowdpa_host_capture_set_depth(0, 4));
	for (int i = 0; i < 6; i++)
		assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 99), DOCA_SUCCESS); /* misses: the host queue */
	assert_int_equal(flowdpa_host_capture_count(0), 4);
}

/*
 * The configuration is read when libdoca_common loads, so the source is set as
 * test_flow_pcap does: setenv, core_config_reload (test-only), then init; undone at the
 * end so that no other test sees it.
 */
static int setup_traffic(void **state)
{
	if (setenv(GEN_PORT_ENV, GEN_SOURCE, 1) != 0 || core_config_reload() != DOCA_SUCCESS)
		return -1;
	return setup(state);
}

static int teardown_traffic(void **state)
{
	teardown(state);
	unsetenv(GEN_PORT_ENV);
	return core_config_reload() == DOCA_SUCCESS ? 0 : -1;
}

static void test_traffic_wait(void **state)
{
	(void)state;
	struct doca_flow_port *p5 = start_port(GEN_PORT);
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *root = NULL;
	struct doca_flow_fwd drop = {.type = DOCA_FLOW_FWD_DROP};
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, p5), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "gen_root", DOCA_FLOW_PIPE_BASIC, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &drop, &drop, &root), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	/* Root present, nothing pending: the source starts playing now. */
	assert_int_equal(doca_flow_entries_process(p5, 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	uint64_t rx = 0;
	for (int i = 0; i < 2000 && (rx = rx_pkts(GEN_PORT)) == 0; i++)
		sleep_ms(1);
	assert_true(rx > 0);
	log_clear();

	/* 1000 pps for 1e6 frames: it cannot finish within 1 ms. */
	EXPECT_REFUSED(DOCA_ERROR_TIME_OUT, "flowdpa_traffic_wait", flowdpa_traffic_wait(1));

	/* The source keeps playing; stopping its port ends it, and then the wait succeeds. */
	uint64_t rx2 = rx;
	for (int i = 0; i < 2000 && (rx2 = rx_pkts(GEN_PORT)) == rx; i++)
		sleep_ms(1);
	assert_true(rx2 > rx);
	assert_int_equal(ft_inject_udp4(0, 1, 2, 3, 4), DOCA_SUCCESS); /* other ports unaffected */
	/* The stop says the source did not play out (one WARNING, not a refusal). */
	log_clear();
	assert_int_equal(doca_flow_port_stop(p5), DOCA_SUCCESS);
	int with = 0;
	assert_int_equal(log_lines(NULL, NULL), 1);
	log_lines("port 5: source gen played ", &with);
	assert_int_equal(with, 1);
	log_lines("/1000000 frames (port stopped first)", &with);
	assert_int_equal(with, 1);
	EXPECT_OK(flowdpa_traffic_wait(1));
}

/*
 * Issue 12: doca_flow_port_cfg_set_devargs takes DOCA's forms, a port number or the PCI
 * address of an emulated device (with options or not), and the port then starts without
 * set_dev; anything else is refused at once with a line naming doca_flow_port_cfg_set_dev
 * (it used to be SUCCESS here and INVALID_VALUE at doca_flow_port_start).
 */
static void test_port_devargs(void **state)
{
	(void)state;
	static const char *const good[] = {"0", "1,dv_flow_en=2", "03:00.0", "0000:03:00.0,th_win_us=0"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct doca_flow_port_cfg *pc;
		struct doca_flow_port *p = NULL;
		assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
		assert_int_equal(doca_flow_port_cfg_set_port_id(pc, 4), DOCA_SUCCESS);
		EXPECT_OK(doca_flow_port_cfg_set_devargs(pc, good[i]));
		EXPECT_OK(doca_flow_port_start(pc, &p));
		doca_flow_port_cfg_destroy(pc);
		EXPECT_OK(doca_flow_port_stop(p));
	}
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *p = NULL;
	assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
	assert_int_equal(doca_flow_port_cfg_set_port_id(pc, 4), DOCA_SUCCESS);
	static const struct {
		const char *devargs, *line;
	} bad[] = {
		{"2", "doca_flow_port_cfg_set_devargs: devargs \"2\": port number 2 does not exist (the emulated devices "
		      "have 2 ports, 0..1); or open the device and call doca_flow_port_cfg_set_dev"},
		{"04:00.0,dv_flow_en=2", "doca_flow_port_cfg_set_devargs: devargs \"04:00.0,dv_flow_en=2\": no emulated "
					 "device has PCI address 04:00.0 (doca_caps lists them); or open the device "
					 "and call doca_flow_port_cfg_set_dev"},
		{"mlx5_0", "doca_flow_port_cfg_set_devargs: devargs \"mlx5_0\" is neither a port number, the PCI address "
			   "of an emulated device (doca_caps lists them) nor key=value options; to choose the device, "
			   "open it and call doca_flow_port_cfg_set_dev"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, bad[i].line,
			       doca_flow_port_cfg_set_devargs(pc, bad[i].devargs));
	}
	/* Options alone choose no device: the start names both ways to choose one. */
	EXPECT_OK(doca_flow_port_cfg_set_devargs(pc, "th_win_us=0"));
	EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE,
		       "doca_flow_port_start: port 4: set exactly one of a device (doca_flow_port_cfg_set_dev, or "
		       "devargs naming a port number or PCI address) or a representor "
		       "(doca_flow_port_cfg_set_dev_rep)",
		       doca_flow_port_start(pc, &p));
	/* With a representor, a port number is DPDK's port id, not a second device. */
	assert_int_equal(doca_flow_port_cfg_set_dev_rep(pc, NULL), DOCA_SUCCESS);
	EXPECT_OK(doca_flow_port_cfg_set_devargs(pc, "1"));
	EXPECT_OK(doca_flow_port_start(pc, &p));
	EXPECT_OK(doca_flow_port_stop(p));
	doca_flow_port_cfg_destroy(pc);
}

/* docs/flow.md, Devices and ports: one doca_dev for two ports works, held by both. */
static void test_one_dev_two_ports(void **state)
{
	(void)state;
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev;
	struct doca_flow_port *p[2];
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_true(n >= 1);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	doca_devinfo_destroy_list(list);
	for (int i = 0; i < 2; i++) {
		struct doca_flow_port_cfg *pc;
		assert_int_equal(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS);
		assert_int_equal(doca_flow_port_cfg_set_port_id(pc, (uint16_t)(4 + i)), DOCA_SUCCESS);
		assert_int_equal(doca_flow_port_cfg_set_dev(pc, dev), DOCA_SUCCESS);
		EXPECT_OK(doca_flow_port_start(pc, &p[i]));
		doca_flow_port_cfg_destroy(pc);
	}
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	EXPECT_OK(doca_flow_port_stop(p[1]));
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	EXPECT_OK(doca_flow_port_stop(p[0]));
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	log_clear();
}

/* Issue 12: a configured source whose port never started cannot play: the wait says so
 * at once instead of returning SUCCESS over zero traffic. */
static void test_traffic_wait_port_never_started(void **state)
{
	(void)state;
	EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, "flowdpa_traffic_wait", flowdpa_traffic_wait(1));
	int with = 0;
	log_clear();
	(void)flowdpa_traffic_wait(0);
	log_lines("flowdpa_traffic_wait: FLOWDPA_PORT5_RX is set but port 5 is not started: its source cannot play",
		  &with);
	assert_int_equal(with, 1);
}

int main(void)
{
	log_setup();
	const struct CMUnitTest tests[] = {
		/* first: it starts with DOCA Flow never initialized in this process */
		cmocka_unit_test(test_before_init_and_after_destroy),
		cmocka_unit_test_setup_teardown(test_update_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_miss, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_miss_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_calc_hash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_and_miss_query, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_resources, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_cfg_setters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capture_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traffic_wait, setup_traffic, teardown_traffic),
		cmocka_unit_test_setup_teardown(test_traffic_wait_port_never_started, setup_traffic, teardown_traffic),
		cmocka_unit_test_setup_teardown(test_port_devargs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_dev_two_ports, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
