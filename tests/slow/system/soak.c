/*
 * soak.c - everything at once for SOAK_SECONDS (default 30, at most 120): two
 * generator sources (FLOWDPA_PORT0_RX / PORT1_RX, paced, looped), a host thread adding
 * and removing entries of port 1's BASIC root pipe, and 4 DPA threads (one kernel
 * launch of system_flip_kernel) disabling, enabling and replacing the entries of port
 * 0's exported HASH root pipe through the provider. At the end every packet is
 * accounted for exactly, per port:
 *   port 0: sum of the HASH entries' counters + the HASH miss counter == injected,
 *           and port 1 transmitted exactly the entries' hits;
 *   port 1: the BASIC entries' shared counter + the BASIC miss counter == injected,
 *           and port 0 transmitted exactly those hits;
 *   misses are the only drops (port drops == miss counter), no rx error;
 * the DPA threads saw no failed request, the host thread no failed operation. Leaks are
 * LSan's (ASan tree), races TSan's (a TSan build). Exit 0 when every check held.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_bitfield.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow.h>
#include <doca_flow_dpa_provider.h>
#include <doca_log.h>
#include <doca_sync_event.h>
#include <flowdpa.h>

extern struct doca_dpa_app *system_test_app;
extern doca_dpa_func_t system_flip_kernel;

#define NR_HASH 64	  /* port 0's HASH root, flipped by the DPA threads */
#define NR_DPA_THREADS 4  /* each owns GENERAL queue rank and entries rank, rank + 4, ... */
#define NR_CHURN 32	  /* port 1's BASIC entries, 10.0.0.0 .. 10.0.0.31, added and removed */
#define GEN_FLOWS 256	  /* destinations 10.0.0.0 .. 10.0.0.255 */
#define GEN_PKTS 10000	  /* frames per loop of each source */
#define GEN_RATE 20000	  /* frames per second per source */

static int failures;

#define CHECK(cond, ...)                                  \
	do {                                              \
		if (!(cond)) {                            \
			printf("FAIL %s: ", #cond);      \
			printf(__VA_ARGS__);              \
			printf("\n");                     \
			failures++;                       \
		}                                         \
	} while (0)
#define OK(call) CHECK((call) == DOCA_SUCCESS, "%s", "the call failed")
#define MUST(call)                                                          \
	do {                                                                \
		doca_error_t e_ = (call);                                   \
		if (e_ != DOCA_SUCCESS) {                                   \
			printf("FAIL %s: %s\n", #call, doca_error_get_name(e_)); \
			exit(1);                                            \
		}                                                           \
	} while (0)

static struct doca_flow_port *ports[2];
static struct doca_flow_pipe *hash_pipe, *basic_pipe;
static struct doca_flow_pipe_entry *hash_entries[NR_HASH];
static uint32_t shared_id;
static atomic_bool churn_stop;
static atomic_int entry_errors; /* completions with status ERROR (callbacks of every thread) */

static void entry_cb(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue, enum doca_flow_entry_status status,
		     enum doca_flow_entry_op op, void *user_ctx)
{
	(void)entry;
	(void)pipe_queue;
	(void)op;
	(void)user_ctx;
	if (status != DOCA_FLOW_ENTRY_STATUS_SUCCESS)
		atomic_fetch_add(&entry_errors, 1);
}

/* Until told to stop: add the NR_CHURN entries, process, remove them, process. Their
 * hits all count into one shared counter, which outlives every entry. */
static void *churn_main(void *arg)
{
	uint64_t *rounds = arg;
	struct doca_flow_pipe_entry *e[NR_CHURN];
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
	struct doca_flow_match m;

	mon.shared_counter.shared_counter_id = shared_id;
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	while (!atomic_load(&churn_stop)) {
		for (uint32_t i = 0; i < NR_CHURN; i++) {
			m.outer.ip4.dst_ip = DOCA_HTOBE32(0x0a000000u + i);
			OK(doca_flow_pipe_basic_add_entry(0, basic_pipe, &m, 0, NULL, &mon, NULL, 0, NULL, &e[i]));
		}
		OK(doca_flow_entries_process(ports[1], 0, 1000000, NR_CHURN));
		for (uint32_t i = 0; i < NR_CHURN; i++)
			OK(doca_flow_pipe_remove_entry(0, 0, e[i]));
		OK(doca_flow_entries_process(ports[1], 0, 1000000, NR_CHURN));
		(*rounds)++;
	}
	return NULL;
}

static void flow_up(void)
{
	struct doca_flow_cfg *cfg;
	struct doca_flow_shared_resource_cfg shared = {0};

	MUST(doca_flow_cfg_create(&cfg));
	MUST(doca_flow_cfg_set_pipe_queues(cfg, 1));
	MUST(doca_flow_cfg_set_mode_args(cfg, "vnf,hws"));
	MUST(doca_flow_cfg_set_cb_entry_process(cfg, entry_cb));
	MUST(doca_flow_init(cfg));
	MUST(doca_flow_cfg_destroy(cfg));
	for (uint16_t i = 0; i < 2; i++) {
		struct doca_flow_port_cfg *pc;
		MUST(doca_flow_port_cfg_create(&pc));
		MUST(doca_flow_port_cfg_set_port_id(pc, i));
		MUST(doca_flow_port_cfg_set_dev(pc, NULL));
		MUST(doca_flow_port_cfg_set_nr_resources(pc, DOCA_FLOW_RESOURCE_COUNTER, 64));
		MUST(doca_flow_port_start(pc, &ports[i]));
		MUST(doca_flow_port_cfg_destroy(pc));
	}
	MUST(doca_flow_port_shared_resource_get(ports[1], DOCA_FLOW_SHARED_RESOURCE_COUNTER, &shared_id));
	MUST(doca_flow_port_shared_resource_set_cfg(ports[1], DOCA_FLOW_SHARED_RESOURCE_COUNTER, shared_id, &shared));
}

/* Port 0's root: HASH over the IPv4 destination, entry i rewrites the UDP source port to
 * 100 + i and goes to port 1, counted; misses dropped and counted. Prepared for export
 * before its entries. */
static void hash_up(struct doca_flow_dpa_ctx *ctx, struct doca_flow_dpa_pipe **dp, doca_flow_dpa_addr *addr)
{
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff;
	MUST(doca_flow_pipe_cfg_create(&cfg, ports[0]));
	MUST(doca_flow_pipe_cfg_set_name(cfg, "SOAK_HASH"));
	MUST(doca_flow_pipe_cfg_set_type(cfg, DOCA_FLOW_PIPE_HASH));
	MUST(doca_flow_pipe_cfg_set_is_root(cfg, true));
	MUST(doca_flow_pipe_cfg_set_nr_entries(cfg, NR_HASH));
	MUST(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask));
	MUST(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1));
	MUST(doca_flow_pipe_cfg_set_monitor(cfg, &mon));
	MUST(doca_flow_pipe_cfg_set_miss_counter(cfg, true));
	MUST(doca_flow_pipe_create(cfg, &fwd, &miss, &hash_pipe));
	MUST(doca_flow_pipe_cfg_destroy(cfg));
	MUST(doca_flow_dpa_pipe_export_prepare(ctx, hash_pipe, NR_HASH, dp));
	for (uint32_t i = 0; i < NR_HASH; i++) {
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)(100 + i));
		MUST(doca_flow_pipe_hash_add_entry(0, hash_pipe, i, 0, &act, NULL, NULL, 0, NULL, &hash_entries[i]));
	}
	MUST(doca_flow_entries_process(ports[0], 0, 1000000, NR_HASH));
	MUST(doca_flow_dpa_pipe_export(ctx, *dp));
	MUST(doca_flow_dpa_pipe_get_device_addr(ctx, *dp, addr));
}

/* Port 1's root: BASIC over the IPv4 destination (entries come and go), to port 0;
 * misses dropped and counted. */
static void basic_up(void)
{
	struct doca_flow_match m;
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_SHARED};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 0};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;

	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = 0xffffffff;
	MUST(doca_flow_pipe_cfg_create(&cfg, ports[1]));
	MUST(doca_flow_pipe_cfg_set_name(cfg, "SOAK_BASIC"));
	MUST(doca_flow_pipe_cfg_set_type(cfg, DOCA_FLOW_PIPE_BASIC));
	MUST(doca_flow_pipe_cfg_set_is_root(cfg, true));
	MUST(doca_flow_pipe_cfg_set_nr_entries(cfg, NR_CHURN * 2));
	MUST(doca_flow_pipe_cfg_set_match(cfg, &m, NULL));
	MUST(doca_flow_pipe_cfg_set_monitor(cfg, &mon));
	MUST(doca_flow_pipe_cfg_set_miss_counter(cfg, true));
	MUST(doca_flow_pipe_create(cfg, &fwd, &miss, &basic_pipe));
	MUST(doca_flow_pipe_cfg_destroy(cfg));
}

static uint64_t counter_of(doca_error_t rc, const struct doca_flow_resource_query *q, const char *what)
{
	CHECK(rc == DOCA_SUCCESS, "querying %s: %s", what, doca_error_get_name(rc));
	return q->counter.total_pkts;
}

/* The sources' shape from SOAK_SECONDS: set before the libraries read their
 * configuration (at load), so the program runs itself again with them. */
static void soak_env(char **argv)
{
	char spec[128];
	long seconds = getenv("SOAK_SECONDS") ? atol(getenv("SOAK_SECONDS")) : 30;

	if (getenv("FLOWDPA_PORT0_RX") != NULL)
		return;
	if (seconds < 1 || seconds > 120) {
		fprintf(stderr, "SOAK_SECONDS=%ld: 1..120\n", seconds);
		exit(2);
	}
	long loops = (seconds * GEN_RATE + GEN_PKTS - 1) / GEN_PKTS;
	for (int p = 0; p < 2; p++) {
		char key[32];
		snprintf(key, sizeof(key), "FLOWDPA_PORT%d_RX", p);
		snprintf(spec, sizeof(spec), "gen:flows=%d,pkts=%d,seed=%d,rate=%d,loop=%ld", GEN_FLOWS, GEN_PKTS, p + 1,
			 GEN_RATE, loops);
		setenv(key, spec, 1);
	}
	execv("/proc/self/exe", argv);
	perror("execv /proc/self/exe");
	exit(2);
}

int main(int argc, char **argv)
{
	struct doca_log_backend *be;
	struct doca_devinfo **devs;
	uint32_t nr_devs;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct flexio_process *proc;
	struct doca_flow_dpa_ctx *ctx;
	struct doca_flow_dpa_pipe *dp;
	doca_flow_dpa_addr pipe_addr;
	struct doca_sync_event *stop_ev, *done_ev;
	doca_dpa_dev_sync_event_t stop_h;
	doca_dpa_dev_uintptr_t out_dev;
	uint64_t out[2 * NR_DPA_THREADS];
	uint64_t churn_rounds = 0;
	pthread_t churn;
	static const struct doca_flow_dpa_queue_cfg qcfg[1] = {{DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, 32, NR_DPA_THREADS}};
	struct timespec t0, t1;

	(void)argc;
	soak_env(argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	MUST(doca_log_backend_create_with_file_sdk(stderr, &be));
	MUST(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING));
	printf("sources: %s | %s\n", getenv("FLOWDPA_PORT0_RX"), getenv("FLOWDPA_PORT1_RX"));

	MUST(doca_devinfo_create_list(&devs, &nr_devs));
	MUST(doca_dev_open(devs[0], &dev));
	MUST(doca_devinfo_destroy_list(devs));
	MUST(doca_dpa_create(dev, &dpa));
	MUST(doca_dpa_set_app(dpa, system_test_app));
	MUST(doca_dpa_start(dpa));
	MUST(doca_dpa_get_flexio_process(dpa, &proc));
	flow_up();
	MUST(doca_flow_dpa_init(proc, &ctx));
	MUST(doca_flow_dpa_queues_create(ctx, ports[0], qcfg, 1));
	hash_up(ctx, &dp, &pipe_addr);

	MUST(doca_sync_event_create(&stop_ev));
	MUST(doca_sync_event_add_publisher_location_cpu(stop_ev, dev));
	MUST(doca_sync_event_add_subscriber_location_dpa(stop_ev, dpa));
	MUST(doca_sync_event_start(stop_ev));
	MUST(doca_sync_event_get_dpa_handle(stop_ev, dpa, &stop_h));
	MUST(doca_sync_event_create(&done_ev));
	MUST(doca_sync_event_add_publisher_location_dpa(done_ev, dpa));
	MUST(doca_sync_event_add_subscriber_location_cpu(done_ev, dev));
	MUST(doca_sync_event_start(done_ev));
	MUST(doca_dpa_mem_alloc(dpa, sizeof(out), &out_dev));
	MUST(doca_dpa_memset(dpa, out_dev, 0, sizeof(out)));
	MUST(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, done_ev, 1, NR_DPA_THREADS, &system_flip_kernel, pipe_addr,
					       (uint32_t)NR_HASH, stop_h, out_dev));

	/* Port 1's root appears last: with it both start rules hold and traffic flows. */
	basic_up();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	MUST(pthread_create(&churn, NULL, churn_main, &churn_rounds) == 0 ? DOCA_SUCCESS : DOCA_ERROR_OPERATING_SYSTEM);
	doca_error_t traffic = flowdpa_traffic_wait(300 * 1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	atomic_store(&churn_stop, true);
	pthread_join(churn, NULL);
	MUST(doca_sync_event_update_set(stop_ev, 1));
	MUST(doca_sync_event_wait_gt(done_ev, 0, UINT64_MAX));
	MUST(doca_dpa_d2h_memcpy(dpa, out, out_dev, sizeof(out)));
	CHECK(traffic == DOCA_SUCCESS, "the sources did not finish: %s", doca_error_get_name(traffic));

	/* What the DPA threads and the host thread did. */
	uint64_t dpa_done = 0;
	for (int r = 0; r < NR_DPA_THREADS; r++) {
		CHECK(out[NR_DPA_THREADS + r] == 0, "DPA thread %d: %llu failed requests", r,
		      (unsigned long long)out[NR_DPA_THREADS + r]);
		CHECK(out[r] > 0, "DPA thread %d completed no request", r);
		dpa_done += out[r];
	}
	CHECK(atomic_load(&entry_errors) == 0, "%d entry operations completed with ERROR", atomic_load(&entry_errors));
	CHECK(churn_rounds > 0, "the host thread did not finish one round");

	/* Every packet accounted for. */
	uint64_t injected = (uint64_t)GEN_PKTS * (uint64_t)atol(strrchr(getenv("FLOWDPA_PORT0_RX"), '=') + 1);
	struct flowdpa_port_stats st[2];
	struct doca_flow_resource_query q;
	uint64_t hash_hits = 0, hash_miss, basic_hits, basic_miss;
	for (int p = 0; p < 2; p++)
		OK(flowdpa_port_stats_get((uint16_t)p, &st[p]));
	for (uint32_t i = 0; i < NR_HASH; i++) {
		memset(&q, 0, sizeof(q));
		hash_hits += counter_of(doca_flow_resource_query_entry(hash_entries[i], &q), &q, "a HASH entry");
	}
	memset(&q, 0, sizeof(q));
	hash_miss = counter_of(doca_flow_resource_query_pipe_miss(hash_pipe, &q), &q, "the HASH miss counter");
	memset(&q, 0, sizeof(q));
	basic_hits = counter_of(doca_flow_port_shared_resources_query(ports[1], DOCA_FLOW_SHARED_RESOURCE_COUNTER,
								      &shared_id, &q, 1),
				&q, "the shared counter");
	memset(&q, 0, sizeof(q));
	basic_miss = counter_of(doca_flow_resource_query_pipe_miss(basic_pipe, &q), &q, "the BASIC miss counter");
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%.1f s: port 0 rx %llu = %llu HASH hits + %llu misses; port 1 rx %llu = %llu BASIC hits + %llu "
	       "misses; %llu DPA requests completed by %d DPA threads, %llu host add/remove rounds of %d entries\n",
	       secs, (unsigned long long)st[0].rx_pkts, (unsigned long long)hash_hits, (unsigned long long)hash_miss,
	       (unsigned long long)st[1].rx_pkts, (unsigned long long)basic_hits, (unsigned long long)basic_miss,
	       (unsigned long long)dpa_done, NR_DPA_THREADS, (unsigned long long)churn_rounds, NR_CHURN);
	for (int p = 0; p < 2; p++) {
		CHECK(st[p].rx_pkts == injected, "port %d received %llu of %llu injected", p,
		      (unsigned long long)st[p].rx_pkts, (unsigned long long)injected);
		CHECK(st[p].rx_errors == 0, "port %d: %llu rx errors", p, (unsigned long long)st[p].rx_errors);
	}
	CHECK(hash_hits + hash_miss == injected, "port 0: %llu hits + %llu misses != %llu injected",
	      (unsigned long long)hash_hits, (unsigned long long)hash_miss, (unsigned long long)injected);
	CHECK(basic_hits + basic_miss == injected, "port 1: %llu hits + %llu misses != %llu injected",
	      (unsigned long long)basic_hits, (unsigned long long)basic_miss, (unsigned long long)injected);
	CHECK(st[1].tx_pkts == hash_hits, "port 1 sent %llu, port 0's entries hit %llu",
	      (unsigned long long)st[1].tx_pkts, (unsigned long long)hash_hits);
	CHECK(st[0].tx_pkts == basic_hits, "port 0 sent %llu, port 1's entries hit %llu",
	      (unsigned long long)st[0].tx_pkts, (unsigned long long)basic_hits);
	CHECK(st[0].drops == hash_miss && st[1].drops == basic_miss, "drops %llu/%llu, misses %llu/%llu",
	      (unsigned long long)st[0].drops, (unsigned long long)st[1].drops, (unsigned long long)hash_miss,
	      (unsigned long long)basic_miss);
	CHECK(hash_hits > 0 && hash_miss > 0 && basic_hits > 0 && basic_miss > 0,
	      "every path must have carried traffic");

	/* Teardown, in reverse order. */
	OK(doca_dpa_mem_free(dpa, out_dev));
	OK(doca_sync_event_destroy(done_ev));
	OK(doca_sync_event_destroy(stop_ev));
	OK(doca_flow_dpa_pipe_destroy(ctx, dp));
	OK(doca_flow_dpa_queues_destroy(ctx, ports[0]));
	OK(doca_flow_dpa_destroy(ctx));
	doca_flow_pipe_destroy(basic_pipe);
	doca_flow_pipe_destroy(hash_pipe);
	OK(doca_flow_port_stop(ports[1]));
	OK(doca_flow_port_stop(ports[0]));
	doca_flow_destroy();
	OK(doca_dpa_destroy(dpa));
	OK(doca_dev_close(dev));
	printf("%s\n", failures ? "FAILED" : "OK");
	return failures ? 1 : 0;
}
