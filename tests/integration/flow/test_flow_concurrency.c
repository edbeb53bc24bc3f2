/*
 * test_flow_concurrency.c - two injector threads run packets through a root BASIC pipe
 * while a host thread removes, re-adds and updates its entries. Afterwards every
 * injected packet is accounted for exactly once: packets injected == sum of the live
 * entries' counters + the final counters of removed entries (read in their DEL
 * completion, after which no packet can reach them) + pipe misses. Also two threads,
 * each on its own queue, adding the same HASH indices. Run under TSan too.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <flow/flow_provider.h>
#include <nic/nic.h>

#include "flow_test_common.h"

#define NB_ENTRIES 64
#define PKTS_PER_THREAD 40000
#define BURST 32

static struct doca_flow_port *ports[2];
static struct doca_flow_pipe *root;
static struct doca_flow_pipe_entry *entries[NB_ENTRIES];
static uint64_t removed_pkts;
static int processed;
static _Atomic int injectors_done;

/* Entry callback: on DEL, the entry's counter is final. */
static void entry_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		     enum doca_flow_entry_op op, void *ctx)
{
	(void)q;
	(void)ctx;
	assert_int_equal(st, DOCA_FLOW_ENTRY_STATUS_SUCCESS);
	processed++;
	if (op == DOCA_FLOW_ENTRY_OP_DEL)
		removed_pkts += ft_entry_pkts(entry);
}

static doca_error_t add_entry(int i)
{
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.udp.l4_port.dst_port = DOCA_HTOBE16(1000 + i);
	return doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, NULL, &entries[i]);
}

static void *injector(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	uint8_t frames[BURST][128];
	const void *ptrs[BURST];
	uint32_t lens[BURST];
	for (int sent = 0; sent < PKTS_PER_THREAD; sent += BURST) {
		for (int k = 0; k < BURST; k++) {
			seed = seed * 1103515245u + 12345u;
			uint16_t dport = (uint16_t)(1000 + (seed >> 8) % (NB_ENTRIES + 8)); /* some misses */
			lens[k] = ft_udp4(frames[k], 0x01010101, 0x0a000000u + (seed & 0xff), 9, dport);
			ptrs[k] = frames[k];
		}
		uint32_t ok = 0;
		assert_int_equal(flowdpa_port_inject_burst(0, ptrs, lens, BURST, &ok), DOCA_SUCCESS);
		assert_int_equal(ok, BURST);
	}
	atomic_fetch_add(&injectors_done, 1);
	return NULL;
}

/* A BASIC pipe on the UDP destination port, rewriting the source port per entry, fwd
 * port 1; counted: a counter per entry and a counted miss that drops. */
static struct doca_flow_pipe *udp_pipe(const char *name, bool is_root, uint32_t nr_entries, bool counted)
{
	struct doca_flow_match m;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p;
	memset(&m, 0, sizeof(m));
	memset(&act, 0, sizeof(act));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = 0xffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, name, DOCA_FLOW_PIPE_BASIC, is_root), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	if (counted) {
		assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
		assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	}
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, nr_entries), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, counted ? &miss : NULL, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static void test_concurrent_updates(void **state)
{
	(void)state;
	struct doca_flow_actions act;

	root = udp_pipe("ROOT", true, NB_ENTRIES, true);
	for (int i = 0; i < NB_ENTRIES; i++)
		assert_int_equal(add_entry(i), DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_set_depth(1, 0), DOCA_SUCCESS);

	pthread_t th[2];
	assert_int_equal(pthread_create(&th[0], NULL, injector, (void *)1), 0);
	assert_int_equal(pthread_create(&th[1], NULL, injector, (void *)2), 0);

	/* The host thread: remove / re-add / update while traffic runs. */
	int rounds = 0;
	while (atomic_load(&injectors_done) < 2 || rounds < 50) {
		int i = rounds % NB_ENTRIES;
		assert_int_equal(doca_flow_pipe_remove_entry(0, 0, entries[i]), DOCA_SUCCESS);
		assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
		assert_int_equal(add_entry(i), DOCA_SUCCESS);
		int j = (rounds * 7 + 3) % NB_ENTRIES;
		memset(&act, 0, sizeof(act));
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)(2000 + rounds));
		assert_int_equal(doca_flow_pipe_basic_update_entry(0, root, 0, &act, NULL, NULL, 0, entries[j]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
		rounds++;
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	assert_int_equal(processed, NB_ENTRIES + 3 * rounds);

	uint64_t live = 0;
	for (int i = 0; i < NB_ENTRIES; i++)
		live += ft_entry_pkts(entries[i]);
	uint64_t misses = ft_miss_pkts(root);
	struct flowdpa_port_stats s0, s1;
	assert_int_equal(flowdpa_port_stats_get(0, &s0), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_stats_get(1, &s1), DOCA_SUCCESS);
	const uint64_t injected = 2ull * PKTS_PER_THREAD;
	print_message("rounds=%d live=%llu removed=%llu misses=%llu\n", rounds, (unsigned long long)live,
		      (unsigned long long)removed_pkts, (unsigned long long)misses);
	assert_int_equal(s0.rx_pkts, injected);
	assert_int_equal(live + removed_pkts + misses, injected);
	assert_int_equal(s0.drops, misses);
	assert_int_equal(s1.tx_pkts, live + removed_pkts);
	assert_true(misses > 0);
}

/* A HASH root whose entries the "provider" disables, enables and re-points while two
 * injectors run: counts still add up and TSan sees no race. */
static void test_concurrent_provider_ops(void **state)
{
	(void)state;
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *hash;
	struct doca_flow_pipe_entry *he[16];

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, "HASH", DOCA_FLOW_PIPE_HASH, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, 16), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, &miss, &hash), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	for (uint32_t i = 0; i < 16; i++)
		assert_int_equal(doca_flow_pipe_hash_add_entry(0, hash, i, 0, &act, NULL, NULL, 0, NULL, &he[i]),
				 DOCA_SUCCESS);
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	assert_int_equal(flowdpa_port_capture_set_depth(1, 0), DOCA_SUCCESS);
	struct flow_export *np = NULL;
	assert_int_equal(flow_export_pipe(hash, "test", __func__, &np), DOCA_SUCCESS);
	struct flow_xop op[2];

	/* Entries 0..3 stay enabled and 4..7 disabled whatever the timing, so both hits and
	 * misses occur even if the injectors finish before the first toggle; 8..15 flip. */
	for (uint32_t i = 4; i < 8; i++) {
		op[0] = (struct flow_xop){.type = FLOW_XOP_DISABLE, .index = i};
		flow_export_execute(np, op, 1);
		assert_int_equal(op[0].result, DOCA_SUCCESS);
	}
	atomic_store(&injectors_done, 0);
	pthread_t th[2];
	assert_int_equal(pthread_create(&th[0], NULL, injector, (void *)3), 0);
	assert_int_equal(pthread_create(&th[1], NULL, injector, (void *)4), 0);
	unsigned r = 0;
	while (atomic_load(&injectors_done) < 2 || r < 1000) {
		uint32_t i = 8 + r % 8;
		op[0] = (struct flow_xop){.type = (r / 8) % 2 == 0 ? FLOW_XOP_ENABLE : FLOW_XOP_DISABLE, .index = i};
		op[1] = (struct flow_xop){.type = FLOW_XOP_REPLACE, .index = (i * 5) % 16, .value = 3000 + r % 1000};
		flow_export_execute(np, op, 2);
		assert_int_equal(op[0].result, DOCA_SUCCESS);
		assert_int_equal(op[1].result, DOCA_SUCCESS);
		r++;
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	flow_export_release(np);
	uint64_t sum = 0;
	for (int i = 0; i < 16; i++)
		sum += ft_entry_pkts(he[i]);
	uint64_t misses = ft_miss_pkts(hash);
	struct flowdpa_port_stats s1;
	assert_int_equal(flowdpa_port_stats_get(1, &s1), DOCA_SUCCESS);
	assert_int_equal(sum + misses, 2ull * PKTS_PER_THREAD);
	assert_int_equal(s1.tx_pkts, sum);
	assert_true(misses > 0 && sum > 0);
}

#define RACE_ENTRIES 4096

struct racer {
	uint16_t q;
	struct doca_flow_pipe *pipe;
	uint32_t ok, failed, removed; /* completions, counted by the racer's own processing */
};

static void race_cb(struct doca_flow_pipe_entry *entry, uint16_t q, enum doca_flow_entry_status st,
		    enum doca_flow_entry_op op, void *ctx)
{
	(void)entry;
	struct racer *r = ctx;
	assert_int_equal(q, r->q);
	if (op == DOCA_FLOW_ENTRY_OP_DEL) {
		assert_int_equal(st, DOCA_FLOW_ENTRY_STATUS_SUCCESS);
		r->removed++;
		return;
	}
	assert_int_equal(op, DOCA_FLOW_ENTRY_OP_ADD);
	if (st == DOCA_FLOW_ENTRY_STATUS_SUCCESS)
		r->ok++;
	else
		r->failed++;
}

/* The root of the race tests: a HASH pipe on the IPv4 destination, fwd port 1. */
static struct doca_flow_pipe *race_pipe(const char *name, uint32_t nr_entries)
{
	struct doca_flow_match mask;
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *hash;
	memset(&mask, 0, sizeof(mask));
	mask.outer.ip4.dst_ip = 0xffffffff;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, name, DOCA_FLOW_PIPE_HASH, true), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_nr_entries(cfg, nr_entries), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, &fwd, NULL, &hash), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return hash;
}

static void *racer(void *arg)
{
	struct racer *r = arg;
	for (uint32_t i = 0; i < RACE_ENTRIES; i++) {
		assert_int_equal(doca_flow_pipe_hash_add_entry(r->q, r->pipe, i, 0, NULL, NULL, NULL, 0, r, NULL),
				 DOCA_SUCCESS);
		if (i % 64 == 63)
			assert_int_equal(doca_flow_entries_process(ports[0], r->q, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	}
	assert_int_equal(doca_flow_entries_process(ports[0], r->q, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	return NULL;
}

/* Both threads add every index of one HASH pipe, each on its own queue: each index is
 * won by exactly one add, the other completes with ERROR (an entry object of its own,
 * freed with the pipe), whatever the interleaving. */
static void test_same_index_two_queues(void **state)
{
	(void)state;
	struct doca_flow_pipe *hash = race_pipe("RACE", RACE_ENTRIES);
	struct racer r[2] = {{.q = 0, .pipe = hash}, {.q = 1, .pipe = hash}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, racer, &r[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(r[0].ok + r[1].ok, RACE_ENTRIES);
	assert_int_equal(r[0].failed + r[1].failed, RACE_ENTRIES);
	/* The failed entries stay until removed (here: with the pipe). */
	assert_int_equal(flow_pipe_nr_entries_added(hash), 2 * RACE_ENTRIES);
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(doca_flow_pipe_dump(hash, f), DOCA_SUCCESS);
	rewind(f);
	char line[256];
	uint32_t ok_lines = 0, err_lines = 0;
	while (fgets(line, sizeof(line), f)) {
		ok_lines += strstr(line, "status=ok") != NULL;
		err_lines += strstr(line, "status=error") != NULL;
	}
	fclose(f);
	assert_int_equal(ok_lines, RACE_ENTRIES);
	assert_int_equal(err_lines, RACE_ENTRIES);
	doca_flow_pipe_destroy(hash);
}

/*
 * Both threads add index 0, process, remove what they added (won or failed), process,
 * over and over on their own queues while a third sends packets that use the index: a
 * slot freed by one queue's remove is never filled by the other's add mid-release
 * (under TSan: no race), and every operation completes once.
 */
#define READD_ROUNDS 20000

static pthread_barrier_t readd_start;

struct readd_sender {
	_Atomic bool stop;
	uint64_t sent;
};

static void *readd_send(void *arg)
{
	struct readd_sender *s = arg;
	while (!atomic_load(&s->stop)) {
		ft_inject_udp4(0, 0xc0a80001u, 0x0a000001u, 1000, 5000);
		s->sent++;
	}
	return NULL;
}

static void *readder(void *arg)
{
	struct racer *r = arg;
	pthread_barrier_wait(&readd_start);
	for (uint32_t i = 0; i < READD_ROUNDS; i++) {
		struct doca_flow_pipe_entry *e = NULL;
		assert_int_equal(doca_flow_pipe_hash_add_entry(r->q, r->pipe, 0, 0, NULL, NULL, NULL, 0, r, &e),
				 DOCA_SUCCESS);
		assert_int_equal(doca_flow_entries_process(ports[0], r->q, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
		assert_int_equal(doca_flow_pipe_remove_entry(r->q, 0, e), DOCA_SUCCESS);
		assert_int_equal(doca_flow_entries_process(ports[0], r->q, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	}
	return NULL;
}

static void test_same_index_readd_two_queues(void **state)
{
	(void)state;
	struct doca_flow_pipe *hash = race_pipe("READD", 1);
	assert_int_equal(flowdpa_port_capture_set_depth(1, 0), DOCA_SUCCESS);
	struct readd_sender snd = {.sent = 0};
	struct racer r[2] = {{.q = 0, .pipe = hash}, {.q = 1, .pipe = hash}};
	pthread_t th[3];
	pthread_barrier_init(&readd_start, NULL, 2);
	assert_int_equal(pthread_create(&th[2], NULL, readd_send, &snd), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, readder, &r[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	atomic_store(&snd.stop, true);
	pthread_join(th[2], NULL);
	pthread_barrier_destroy(&readd_start);
	assert_int_equal(r[0].ok + r[0].failed + r[1].ok + r[1].failed, 2 * READD_ROUNDS);
	assert_int_equal(r[0].removed + r[1].removed, 2 * READD_ROUNDS);
	assert_int_equal(flow_pipe_nr_entries_added(hash), 0);
	struct flowdpa_port_stats s0;
	assert_int_equal(flowdpa_port_stats_get(0, &s0), DOCA_SUCCESS);
	assert_int_equal(s0.rx_pkts, snd.sent);
	doca_flow_pipe_destroy(hash);
}

/*
 * A thread updates the entries of its pipe, queue 0, while another creates and destroys
 * an unrelated pipe of the same port, over and over: each destruction scans the batches
 * queue 0 is executing for the dying pipe's operations (flow_queue_drop_pipe), and must
 * not read an operation the worker has taken and freed meanwhile (under TSan: no race).
 */
#define CHURN_ENTRIES 256
#define CHURN_ROUNDS 200

static struct doca_flow_pipe_entry *churn_e[CHURN_ENTRIES];
static _Atomic bool churn_done;

static void *churn_updater(void *arg)
{
	struct doca_flow_pipe *work = arg;
	struct doca_flow_actions act;
	memset(&act, 0, sizeof(act));
	for (int r = 0; r < CHURN_ROUNDS; r++) {
		for (int j = 0; j < CHURN_ENTRIES; j++) {
			act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)(r * CHURN_ENTRIES + j));
			assert_int_equal(doca_flow_pipe_basic_update_entry(0, work, 0, &act, NULL, NULL,
									   DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH,
									   churn_e[j]),
					 DOCA_SUCCESS);
		}
		assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	}
	atomic_store(&churn_done, true);
	return NULL;
}

static void test_destroy_other_pipe_while_processing(void **state)
{
	(void)state;
	processed = 0;
	struct doca_flow_pipe *work = udp_pipe("WORK", true, CHURN_ENTRIES, false);
	for (int i = 0; i < CHURN_ENTRIES; i++) {
		struct doca_flow_match m;
		memset(&m, 0, sizeof(m));
		m.outer.udp.l4_port.dst_port = DOCA_HTOBE16((uint16_t)(1000 + i));
		assert_int_equal(doca_flow_pipe_basic_add_entry(0, work, &m, 0, NULL, NULL, NULL, 0, NULL, &churn_e[i]),
				 DOCA_SUCCESS);
	}
	assert_int_equal(doca_flow_entries_process(ports[0], 0, DEFAULT_TIMEOUT_US, 0), DOCA_SUCCESS);
	atomic_store(&churn_done, false);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, churn_updater, work), 0);
	int churned = 0;
	while (!atomic_load(&churn_done) || churned < 10) {
		doca_flow_pipe_destroy(udp_pipe("CHURN", false, 16, false));
		churned++;
	}
	pthread_join(th, NULL);
	assert_int_equal(processed, CHURN_ENTRIES * (1 + CHURN_ROUNDS));
	doca_flow_pipe_destroy(work);
}

static int setup_race(void **state)
{
	(void)state;
	ft_log_init();
	if (init_doca_flow_cb(2, "vnf,hws", race_cb) != DOCA_SUCCESS)
		return -1;
	return init_doca_flow_ports(2, ports) == DOCA_SUCCESS ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	ft_log_init();
	if (init_doca_flow_cb(1, "vnf,hws", entry_cb) != DOCA_SUCCESS)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_concurrent_updates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_provider_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_index_two_queues, setup_race, teardown),
		cmocka_unit_test_setup_teardown(test_same_index_readd_two_queues, setup_race, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_other_pipe_while_processing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
