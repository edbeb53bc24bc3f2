/*
 * doca_flow_dpa_perf - the update / disable rate of the DPA-offloaded DOCA Flow path
 * (the DOCA Flow DPA Provider), in Kops/sec, with the workload axes of NVIDIA's tool of
 * the same name.
 *
 * The three programs of a provider application: a host DOCA Flow program (on port 0,
 * num-workers x num-tables path-selector tables, each a HASH pipe of table-size entries
 * matching the IPv4 destination, entry i rewriting the UDP source port to its
 * path-selector value and forwarding to port 1; or, with --pipeline-policy resources, a
 * memory resource (update) or an index selector (disable) of table-size cells / indices
 * per table), the host DPA + provider setup (one provider context, num-workers queues
 * of queue-size on port 0, every table exported), and the DPA kernel of
 * device/perf_kernels.c launched over num-workers DPA threads: worker w uses queue id w
 * and its own num-tables tables.
 *
 * Operations (one request each; a disable is followed by the enable of the same index,
 * so disable counts two requests per index and leaves every entry enabled):
 *   update  entries: doca_flow_pipe_hash_replace_index; resources: memory_update
 *   disable entries: disable_index + enable_index; resources: index selector modify
 *           DISABLE + ENABLE
 * An iteration is num-operations requests per worker, timed on the device clock from
 * the first worker's start to the last worker's end. --warmup rounds run before and are
 * not counted.
 *
 * --self-test: a host thread injects UDP frames into the first table (FLOWDPA injection)
 * and reads the egress capture of port 1 while the DPA replaces one path-selector value
 * with the sentinel 65432; it passes when frames left with source port 65432.
 *
 * Exit: 0 success, 1 a runtime failure, 2 invalid arguments (the message names the
 * rule), 3 a failed check (self-test, or requests that failed or did not complete).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow_dpa_provider.h>
#include <doca_sync_event.h>
#include <doca_version.h>

#include "device/perf_defs.h"
#include "flow_test_common.h"

extern struct doca_dpa_app *doca_flow_dpa_perf_app;
extern doca_dpa_func_t perf_kernel;

#define PROG "doca_flow_dpa_perf"
#define FRAME_LEN 64u
#define INJ_BURST 32u

/* ------------------------------------------------------------------ parameters */

struct params {
	bool disable;	    /* --operation disable (else update) */
	uint32_t burst;	    /* --burst-size */
	uint32_t queue_size;
	uint32_t threshold; /* --completion-threshold */
	uint32_t num_tables;
	uint32_t table_size;
	uint32_t workers;
	bool identity;	   /* --hash-algorithm identity (else random) */
	bool random_order; /* --work-policy random */
	uint32_t warmup;
	uint32_t iterations;
	uint64_t num_ops; /* per worker and iteration; 0 = default */
	bool resources;	  /* --pipeline-policy resources */
	bool self_test;
	bool json;
	int log_level, sdk_log_level;
};

static struct params P = {
	.burst = 32,
	.queue_size = 64,
	.threshold = 32,
	.num_tables = 1,
	.table_size = 1024,
	.workers = 1,
	.warmup = 1,
	.iterations = 5,
	.log_level = DOCA_LOG_LEVEL_WARNING,
	.sdk_log_level = DOCA_LOG_LEVEL_WARNING,
};

enum {
	OPT_OPERATION = 256,
	OPT_BURST,
	OPT_QUEUE,
	OPT_THRESHOLD,
	OPT_TABLES,
	OPT_TABLE_SIZE,
	OPT_WORKERS,
	OPT_HASH,
	OPT_WORK,
	OPT_WARMUP,
	OPT_ITER,
	OPT_OPS,
	OPT_PIPELINE,
	OPT_SELF_TEST,
	OPT_JSON,
	OPT_SDK_LOG,
};

static const struct option long_opts[] = {
	{"operation", required_argument, NULL, OPT_OPERATION},
	{"burst-size", required_argument, NULL, OPT_BURST},
	{"queue-size", required_argument, NULL, OPT_QUEUE},
	{"completion-threshold", required_argument, NULL, OPT_THRESHOLD},
	{"num-tables", required_argument, NULL, OPT_TABLES},
	{"table-size", required_argument, NULL, OPT_TABLE_SIZE},
	{"num-workers", required_argument, NULL, OPT_WORKERS},
	{"hash-algorithm", required_argument, NULL, OPT_HASH},
	{"work-policy", required_argument, NULL, OPT_WORK},
	{"warmup", required_argument, NULL, OPT_WARMUP},
	{"num-iterations", required_argument, NULL, OPT_ITER},
	{"num-operations", required_argument, NULL, OPT_OPS},
	{"pipeline-policy", required_argument, NULL, OPT_PIPELINE},
	{"self-test", no_argument, NULL, OPT_SELF_TEST},
	{"json", no_argument, NULL, OPT_JSON},
	{"log-level", required_argument, NULL, 'l'},
	{"sdk-log-level", required_argument, NULL, OPT_SDK_LOG},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void help(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [DOCA Flags] [Program Flags]\n"
		"\n"
		"The DPA update / disable rate of DOCA Flow HASH pipes (path selectors) through the\n"
		"DOCA Flow DPA Provider, in Kops/sec (flowdpa %s).\n"
		"\n"
		"DOCA Flags:\n"
		"  -h, --help                        Print a help synopsis\n"
		"  -l, --log-level <level>           Program log level: 10=DISABLE, 20=CRITICAL, 30=ERROR,\n"
		"                                    40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE (or the name)\n"
		"                                    (default: 40)\n"
		"      --sdk-log-level <level>       The SDK's log level, same values (default: 40)\n"
		"\n"
		"Program Flags:\n"
		"      --operation update|disable    update: replace the path-selector value; disable:\n"
		"                                    disable then enable the entry (default: update)\n"
		"      --burst-size <n>              Requests posted per flush; must divide\n"
		"                                    num-tables x table-size (default: 32)\n"
		"      --queue-size <n>              Requests a queue holds until polled; a power of 2,\n"
		"                                    >= burst-size (default: 64)\n"
		"      --completion-threshold <n>    Poll once this many requests are outstanding;\n"
		"                                    1..queue-size (default: 32)\n"
		"      --num-tables <n>              Path-selector tables per worker; num-workers x\n"
		"                                    num-tables <= %u (default: 1)\n"
		"      --table-size <n>              Entries per table, 1..%u (default: 1024)\n"
		"      --num-workers <n>             DPA workers (threads, one queue each), 1..%u (default: 1)\n"
		"      --hash-algorithm random|identity  The HASH pipes' map algorithm; identity supports\n"
		"                                    update only (default: random)\n"
		"      --work-policy sequential|random   Index order of the requests (default: sequential)\n"
		"      --warmup <n>                  Uncounted warm-up rounds before the iterations\n"
		"                                    (default: 1)\n"
		"      --num-iterations <n>          Timed iterations, 1..10000 (default: 5)\n"
		"      --num-operations <n>          Requests per worker and iteration (default:\n"
		"                                    num-tables x table-size, twice that for disable);\n"
		"                                    even for disable\n"
		"      --pipeline-policy entries|resources  entries: HASH pipe entries; resources: a memory\n"
		"                                    resource (update) or an index selector (disable)\n"
		"                                    (default: entries)\n"
		"      --self-test                   Check, with traffic flowing, that a replace reaches the\n"
		"                                    egress (source port 65432); entries only (default: off)\n"
		"      --json                        Print the results as one JSON object (default: off)\n",
		DOCA_VERSION_STRING, PERF_MAX_TABLES, 1u << 20, PERF_MAX_WORKERS);
}

static _Noreturn void invalid(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void invalid(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, PROG ": invalid arguments: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see " PROG " --help)\n");
	exit(2);
}

static uint64_t parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '\0')
		invalid("--%s \"%s\": not a number", opt, s);
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		invalid("--%s \"%s\": not a number", opt, s);
	if (v < min || v > max)
		invalid("--%s %llu: must be %" PRIu64 "..%" PRIu64, opt, v, min, max);
	return v;
}

static int parse_level(const char *opt, const char *s)
{
	static const struct {
		const char *name;
		int v;
	} names[] = {{"disable", 10}, {"critical", 20}, {"error", 30}, {"warning", 40},
		     {"info", 50},    {"debug", 60},    {"trace", 70}};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(s, names[i].name) == 0)
			return names[i].v;
	uint64_t v = parse_u64(opt, s, 10, 70);
	if (v % 10)
		invalid("--%s %s: a level is 10, 20, ... 70", opt, s);
	return (int)v;
}

static bool choice(const char *opt, const char *s, const char *a, const char *b)
{
	if (strcmp(s, a) == 0)
		return false;
	if (strcmp(s, b) == 0)
		return true;
	invalid("--%s \"%s\": must be %s or %s", opt, s, a, b);
}

static void parse(int argc, char **argv)
{
	int c;
	bool threshold_set = false;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hl:", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			exit(0);
		case 'l':
			P.log_level = parse_level("log-level", optarg);
			break;
		case OPT_SDK_LOG:
			P.sdk_log_level = parse_level("sdk-log-level", optarg);
			break;
		case OPT_OPERATION:
			P.disable = choice("operation", optarg, "update", "disable");
			break;
		case OPT_BURST:
			P.burst = (uint32_t)parse_u64("burst-size", optarg, 1, 1u << 20);
			break;
		case OPT_QUEUE:
			P.queue_size = (uint32_t)parse_u64("queue-size", optarg, 1, 1u << 30);
			break;
		case OPT_THRESHOLD:
			P.threshold = (uint32_t)parse_u64("completion-threshold", optarg, 1, 1u << 30);
			threshold_set = true;
			break;
		case OPT_TABLES:
			P.num_tables = (uint32_t)parse_u64("num-tables", optarg, 1, PERF_MAX_TABLES);
			break;
		case OPT_TABLE_SIZE:
			P.table_size = (uint32_t)parse_u64("table-size", optarg, 1, 1u << 20);
			break;
		case OPT_WORKERS:
			P.workers = (uint32_t)parse_u64("num-workers", optarg, 1, PERF_MAX_WORKERS);
			break;
		case OPT_HASH:
			P.identity = choice("hash-algorithm", optarg, "random", "identity");
			break;
		case OPT_WORK:
			P.random_order = choice("work-policy", optarg, "sequential", "random");
			break;
		case OPT_WARMUP:
			P.warmup = (uint32_t)parse_u64("warmup", optarg, 0, 1000);
			break;
		case OPT_ITER:
			P.iterations = (uint32_t)parse_u64("num-iterations", optarg, 1, 10000);
			break;
		case OPT_OPS:
			P.num_ops = parse_u64("num-operations", optarg, 1, 1ull << 40);
			break;
		case OPT_PIPELINE:
			P.resources = choice("pipeline-policy", optarg, "entries", "resources");
			break;
		case OPT_SELF_TEST:
			P.self_test = true;
			break;
		case OPT_JSON:
			P.json = true;
			break;
		case ':':
			invalid("%s needs a value", argv[optind - 1]);
		default:
			invalid("unknown option \"%s\"", argv[optind - 1]);
		}
	}
	if (optind < argc)
		invalid("unexpected argument \"%s\"", argv[optind]);
	(void)threshold_set;

	/* The combination rules, before anything starts. */
	const uint64_t span = (uint64_t)P.num_tables * P.table_size;
	if ((uint64_t)P.workers * P.num_tables > PERF_MAX_TABLES)
		invalid("num-workers x num-tables = %u exceeds %u (a provider context holds %u exports)",
			P.workers * P.num_tables, PERF_MAX_TABLES, PERF_MAX_TABLES);
	if (span % P.burst)
		invalid("burst size %u must divide num-tables x table-size = %" PRIu64, P.burst, span);
	if (P.queue_size & (P.queue_size - 1))
		invalid("queue size %u must be a power of 2", P.queue_size);
	if (P.queue_size < P.burst)
		invalid("queue size %u must be >= burst size %u", P.queue_size, P.burst);
	if (P.threshold > P.queue_size)
		invalid("completion threshold %u must be <= queue size %u", P.threshold, P.queue_size);
	if (P.identity && P.disable)
		invalid("hash algorithm identity supports update only (operation disable needs random)");
	if (P.self_test && P.resources)
		invalid("--self-test needs pipeline policy entries (it checks path selectors in traffic)");
	if (P.num_ops == 0)
		P.num_ops = P.disable ? 2 * span : span;
	if (P.disable && (P.num_ops & 1))
		invalid("operation disable posts disable + enable pairs: num-operations %" PRIu64 " must be even",
			P.num_ops);
}

/* ------------------------------------------------------------------ setup */

static struct {
	struct doca_flow_port *ports[2];
	struct entries_status status;
	uint32_t ntables;
	struct doca_flow_pipe **pipes;
	struct doca_flow_external_resource **res;
	struct doca_flow_dpa_pipe **dpipes;
	struct doca_flow_dpa_external_resource **dres;
	doca_flow_dpa_addr *addrs;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct flexio_process *proc;
	struct doca_flow_dpa_ctx *ctx;
	doca_dpa_dev_uintptr_t dev_args, dev_objs, dev_out;
	struct doca_sync_event *comp;
	uint64_t comp_value;
	uint32_t salt;
	/* All launches: what the provider's counters must show. */
	uint64_t posted, completed, failed, again;
} S;

#define TRY(call)                                                                                         \
	do {                                                                                              \
		doca_error_t _e = (call);                                                                 \
		if (_e != DOCA_SUCCESS) {                                                                 \
			fprintf(stderr, PROG ": %s: %s\n", #call, doca_error_get_name(_e));               \
			exit(1);                                                                          \
		}                                                                                         \
	} while (0)

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...)
{
	if (P.log_level < DOCA_LOG_LEVEL_INFO)
		return;
	va_list ap;
	fprintf(stderr, "[" PROG "] ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void log_setup(void)
{
	struct doca_log_backend *be;
	doca_log_level_set_global_lower_limit((uint32_t)P.log_level);
	if (doca_log_backend_create_with_file_sdk(stderr, &be) == DOCA_SUCCESS)
		doca_log_backend_set_sdk_level(be, (uint32_t)P.sdk_log_level);
}

static struct doca_flow_pipe *make_pipe(uint32_t t)
{
	struct doca_flow_match mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_fwd miss = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *pipe = NULL;
	char name[32];

	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	mask.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	mask.outer.ip4.dst_ip = 0xffffffff;
	act.outer.udp.l4_port.src_port = 0xffff; /* the path selector */
	snprintf(name, sizeof(name), "PATH_SELECTOR_%u", t);
	TRY(doca_flow_pipe_cfg_create(&cfg, S.ports[0]));
	TRY(set_flow_pipe_cfg(cfg, name, DOCA_FLOW_PIPE_HASH, t == 0));
	TRY(doca_flow_pipe_cfg_set_nr_entries(cfg, P.table_size));
	TRY(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask));
	TRY(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1));
	TRY(doca_flow_pipe_cfg_set_hash_map_algorithm(cfg, P.identity ? DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY
								      : DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_RANDOM));
	TRY(doca_flow_pipe_create(cfg, &fwd, &miss, &pipe));
	doca_flow_pipe_cfg_destroy(cfg);
	/* The provider's order: export_prepare before the entries. */
	TRY(doca_flow_dpa_pipe_export_prepare(S.ctx, pipe, P.table_size, &S.dpipes[t]));
	for (uint32_t i = 0; i < P.table_size; i++) {
		struct doca_flow_pipe_entry *e;
		memset(&act, 0, sizeof(act));
		act.outer.udp.l4_port.src_port = DOCA_HTOBE16((uint16_t)(1000 + i % 60000));
		TRY(doca_flow_pipe_hash_add_entry(0, pipe, i, 0, &act, NULL, NULL, 0, &S.status, &e));
		if ((i & 1023) == 1023)
			TRY(doca_flow_entries_process(S.ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	}
	TRY(doca_flow_entries_process(S.ports[0], 0, DEFAULT_TIMEOUT_US, 0));
	TRY(doca_flow_dpa_pipe_export(S.ctx, S.dpipes[t]));
	TRY(doca_flow_dpa_pipe_get_device_addr(S.ctx, S.dpipes[t], &S.addrs[t]));
	return pipe;
}

static void make_resource(uint32_t t)
{
	const enum doca_flow_external_resource_type type =
		P.disable ? DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_INDEX_SELECTOR : DOCA_FLOW_EXTERNAL_RESOURCE_TYPE_MEMORY;
	struct doca_flow_external_resource_cfg *cfg;
	TRY(doca_flow_external_resource_cfg_create(&cfg, S.ports[0]));
	TRY(doca_flow_external_resource_cfg_set_type(cfg, type));
	if (P.disable)
		TRY(doca_flow_external_resource_cfg_set_nr_indices(cfg, P.table_size));
	else
		TRY(doca_flow_external_resource_cfg_set_nr_cells(cfg, P.table_size));
	TRY(doca_flow_external_resource_create(cfg, &S.res[t]));
	TRY(doca_flow_external_resource_cfg_destroy(cfg));
	TRY(doca_flow_dpa_external_resource_export(S.ctx, type, S.res[t], &S.dres[t]));
	TRY(doca_flow_dpa_external_resource_get_device_addr(S.ctx, S.dres[t], &S.addrs[t]));
}

static void setup(void)
{
	struct doca_devinfo **list;
	uint32_t n;
	const struct doca_flow_dpa_queue_cfg qcfg = {
		P.resources ? DOCA_FLOW_DPA_QUEUE_TYPE_RESOURCES_WRITE : DOCA_FLOW_DPA_QUEUE_TYPE_GENERAL, P.queue_size,
		P.workers};

	S.ntables = P.workers * P.num_tables;
	S.pipes = calloc(S.ntables, sizeof(*S.pipes));
	S.res = calloc(S.ntables, sizeof(*S.res));
	S.dpipes = calloc(S.ntables, sizeof(*S.dpipes));
	S.dres = calloc(S.ntables, sizeof(*S.dres));
	S.addrs = calloc(S.ntables, sizeof(*S.addrs));
	if (!S.pipes || !S.res || !S.dpipes || !S.dres || !S.addrs) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	info("DOCA Flow: 2 ports");
	TRY(init_doca_flow(1, "vnf,hws"));
	TRY(init_doca_flow_ports(2, S.ports));
	info("DPA: device 0, provider context, %u queue(s) of %u", P.workers, P.queue_size);
	TRY(doca_devinfo_create_list(&list, &n));
	TRY(doca_dev_open(list[0], &S.dev));
	TRY(doca_devinfo_destroy_list(list));
	TRY(doca_dpa_create(S.dev, &S.dpa));
	TRY(doca_dpa_set_app(S.dpa, doca_flow_dpa_perf_app));
	TRY(doca_dpa_start(S.dpa));
	TRY(doca_dpa_get_flexio_process(S.dpa, &S.proc));
	TRY(doca_flow_dpa_init(S.proc, &S.ctx));
	TRY(doca_flow_dpa_queues_create(S.ctx, S.ports[0], &qcfg, 1));
	info("%u %s of %u", S.ntables, P.resources ? (P.disable ? "index selectors" : "memory resources") : "HASH pipes",
	     P.table_size);
	for (uint32_t t = 0; t < S.ntables; t++) {
		if (P.resources)
			make_resource(t);
		else
			S.pipes[t] = make_pipe(t);
	}
	if (S.status.failure) {
		fprintf(stderr, PROG ": adding the path-selector entries failed\n");
		exit(1);
	}
	TRY(doca_dpa_mem_alloc(S.dpa, sizeof(struct perf_args), &S.dev_args));
	TRY(doca_dpa_mem_alloc(S.dpa, S.ntables * sizeof(doca_flow_dpa_addr), &S.dev_objs));
	TRY(doca_dpa_mem_alloc(S.dpa, PERF_MAX_WORKERS * sizeof(struct perf_result), &S.dev_out));
	TRY(doca_dpa_h2d_memcpy(S.dpa, S.dev_objs, S.addrs, S.ntables * sizeof(doca_flow_dpa_addr)));
	TRY(doca_sync_event_create(&S.comp));
	TRY(doca_sync_event_add_publisher_location_dpa(S.comp, S.dpa));
	TRY(doca_sync_event_add_subscriber_location_cpu(S.comp, S.dev));
	TRY(doca_sync_event_start(S.comp));
	S.salt = 0x5a17;
}

static void teardown(void)
{
	TRY(doca_sync_event_destroy(S.comp));
	TRY(doca_dpa_mem_free(S.dpa, S.dev_out));
	TRY(doca_dpa_mem_free(S.dpa, S.dev_objs));
	TRY(doca_dpa_mem_free(S.dpa, S.dev_args));
	for (uint32_t t = 0; t < S.ntables; t++) {
		if (P.resources)
			TRY(doca_flow_dpa_external_resource_destroy(S.ctx, S.dres[t]));
		else
			TRY(doca_flow_dpa_pipe_destroy(S.ctx, S.dpipes[t]));
	}
	TRY(doca_flow_dpa_queues_destroy(S.ctx, S.ports[0]));
	TRY(doca_flow_dpa_destroy(S.ctx));
	TRY(doca_dpa_destroy(S.dpa));
	TRY(doca_dev_close(S.dev));
	for (uint32_t t = 0; t < S.ntables; t++) {
		if (P.resources)
			TRY(doca_flow_external_resource_destroy(S.res[t]));
		else
			doca_flow_pipe_destroy(S.pipes[t]);
	}
	stop_doca_flow_ports(2, S.ports);
	doca_flow_destroy();
	free(S.pipes);
	free(S.res);
	free(S.dpipes);
	free(S.dres);
	free(S.addrs);
}

/* ------------------------------------------------------------------ one launch */

/* Run op on nworkers, num_ops requests each; returns the device-clock span in ns. */
static uint64_t launch(enum perf_op op, uint32_t nworkers, uint64_t num_ops, uint64_t first)
{
	struct perf_result r[PERF_MAX_WORKERS];
	struct perf_args a = {
		.op = op,
		.num_tables = P.num_tables,
		.table_size = P.table_size,
		.burst = op == PERF_OP_SENTINEL ? 1 : P.burst,
		.threshold = op == PERF_OP_SENTINEL ? 1 : P.threshold,
		.queue_size = P.queue_size,
		.random = P.random_order,
		.salt = ++S.salt,
		.num_ops = num_ops,
		.first = first,
		.objs = S.dev_objs,
		.out = S.dev_out,
	};
	TRY(doca_dpa_h2d_memcpy(S.dpa, S.dev_args, &a, sizeof(a)));
	TRY(doca_dpa_memset(S.dpa, S.dev_out, 0, PERF_MAX_WORKERS * sizeof(struct perf_result)));
	S.comp_value++;
	TRY(doca_dpa_kernel_launch_update_set(S.dpa, NULL, 0, S.comp, S.comp_value, nworkers, &perf_kernel,
					      S.dev_args));
	TRY(doca_sync_event_wait_gt(S.comp, S.comp_value - 1, UINT64_MAX));
	TRY(doca_dpa_peek_at_last_error(S.dpa));
	TRY(doca_dpa_d2h_memcpy(S.dpa, r, S.dev_out, nworkers * sizeof(struct perf_result)));
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint32_t w = 0; w < nworkers; w++) {
		S.posted += r[w].posted;
		S.completed += r[w].completed;
		S.failed += r[w].failed;
		S.again += r[w].again;
		if (r[w].error != 0 || r[w].failed != 0 || r[w].completed != r[w].posted || r[w].posted != num_ops) {
			fprintf(stderr,
				PROG ": worker %u: posted %" PRIu64 " of %" PRIu64 ", completed %" PRIu64
				     ", failed %" PRIu64 ", error %s\n",
				w, r[w].posted, num_ops, r[w].completed, r[w].failed,
				doca_error_get_name((doca_error_t)r[w].error));
			exit(3);
		}
		lo = r[w].t0 < lo ? r[w].t0 : lo;
		hi = r[w].t1 > hi ? r[w].t1 : hi;
	}
	return hi > lo ? hi - lo : 1;
}

/* ------------------------------------------------------------------ self-test */

static struct {
	pthread_t th;
	_Atomic bool stop;
	_Atomic uint64_t frames, sentinel, other;
	uint32_t dst;
} T;

static void *injector(void *arg)
{
	(void)arg;
	uint8_t frames[INJ_BURST][FRAME_LEN], buf[FLOWDPA_MAX_FRAME];
	const void *ptrs[INJ_BURST];
	uint32_t lens[INJ_BURST], len;
	for (uint32_t i = 0; i < INJ_BURST; i++) {
		/* identity: the destination is the index; random: any destination. */
		ft_build4(frames[i], 17, 0x0a000001, P.identity ? T.dst : 0x0a000100u + i, 7, 9, FRAME_LEN - 42);
		ptrs[i] = frames[i];
		lens[i] = FRAME_LEN;
	}
	while (!atomic_load(&T.stop)) {
		uint32_t acc = 0;
		if (flowdpa_port_inject_burst(0, ptrs, lens, INJ_BURST, &acc) != DOCA_SUCCESS)
			break;
		while (flowdpa_port_capture_pop(1, buf, sizeof(buf), &len) == DOCA_SUCCESS) {
			atomic_fetch_add(&T.frames, 1);
			if (ft_sport(buf) == PERF_SENTINEL)
				atomic_fetch_add(&T.sentinel, 1);
			else
				atomic_fetch_add(&T.other, 1);
		}
		/* Paced, so that a FLOWDPA_PORT1_TX capture stays small; a random map over a large
		 * table needs every frame it can get to hit the one index. */
		if (P.identity || P.table_size <= 4096)
			usleep(200);
	}
	return NULL;
}

struct self_test {
	bool run, pass;
	uint32_t index;
	uint64_t before, sentinel, frames;
};

static void wait_until(_Atomic uint64_t *v, uint64_t min, double max_s)
{
	for (double t = 0; atomic_load(v) < min && t < max_s; t += 0.001)
		usleep(1000);
}

static struct self_test self_test(void)
{
	struct self_test st = {.run = true, .index = P.table_size / 2};
	T.dst = st.index;
	ft_drain(1);
	if (pthread_create(&T.th, NULL, injector, NULL) != 0) {
		fprintf(stderr, PROG ": cannot start the traffic thread\n");
		exit(1);
	}
	/* Traffic flows first, then the DPA replaces one path selector with the sentinel. */
	wait_until(&T.frames, 256, 5);
	st.before = atomic_load(&T.sentinel);
	launch(PERF_OP_SENTINEL, 1, 1, st.index);
	wait_until(&T.sentinel, 8, 10);
	atomic_store(&T.stop, true);
	pthread_join(T.th, NULL);
	st.sentinel = atomic_load(&T.sentinel);
	st.frames = atomic_load(&T.frames);
	st.pass = st.before == 0 && st.sentinel > 0 && atomic_load(&T.other) > 0;
	return st;
}

/* ------------------------------------------------------------------ output */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static const char *op_name(void)
{
	return P.disable ? "disable" : "update";
}

static void echo_params(void)
{
	printf(PROG " (flowdpa %s): DOCA Flow DPA Provider request rate\n", DOCA_VERSION_STRING);
	printf("  operation            %s (%s)\n", op_name(),
	       P.resources ? (P.disable ? "index selector modify disable + enable" : "memory_update")
			   : (P.disable ? "hash disable_index + enable_index" : "hash replace_index"));
	printf("  burst-size           %u\n", P.burst);
	printf("  queue-size           %u\n", P.queue_size);
	printf("  completion-threshold %u\n", P.threshold);
	printf("  num-tables           %u per worker (%u in all)\n", P.num_tables, P.num_tables * P.workers);
	printf("  table-size           %u\n", P.table_size);
	printf("  num-workers          %u\n", P.workers);
	printf("  hash-algorithm       %s\n", P.identity ? "identity" : "random");
	printf("  work-policy          %s\n", P.random_order ? "random" : "sequential");
	printf("  warmup               %u\n", P.warmup);
	printf("  num-iterations       %u\n", P.iterations);
	printf("  num-operations       %" PRIu64 " per worker and iteration\n", P.num_ops);
	printf("  pipeline-policy      %s\n", P.resources ? "resources" : "entries");
	printf("  self-test            %s\n", P.self_test ? "on" : "off");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	parse(argc, argv);
	log_setup();
	const bool tty = !P.json && isatty(STDOUT_FILENO);
	const uint64_t ops_per_iter = P.num_ops * P.workers;
	const enum perf_op op = P.resources ? (P.disable ? PERF_OP_SEL_DIS_EN : PERF_OP_MEM_UPDATE)
					    : (P.disable ? PERF_OP_DIS_EN : PERF_OP_REPLACE);
	uint64_t *ns = calloc(P.iterations, sizeof(*ns)), *sorted = calloc(P.iterations, sizeof(*sorted));
	if (!ns || !sorted)
		return 1;

	if (!P.json)
		echo_params();
	setup();
	for (uint32_t w = 0; w < P.warmup; w++) {
		if (tty) {
			printf("\rwarm-up %u/%u ...", w + 1, P.warmup);
			fflush(stdout);
		}
		launch(op, P.workers, P.num_ops, 0);
	}
	if (tty && P.warmup)
		printf("\r\033[K");
	for (uint32_t i = 0; i < P.iterations; i++) {
		if (tty) {
			printf("\r[iteration %u/%u] %" PRIu64 " operations on %u worker(s) ...", i + 1, P.iterations,
			       ops_per_iter, P.workers);
			fflush(stdout);
		}
		ns[i] = launch(op, P.workers, P.num_ops, 0);
		if (tty)
			printf("\r\033[K");
		if (!P.json) {
			printf("iteration %u/%u: %" PRIu64 " operations in %.3f ms (%.1f Kops/sec)\n", i + 1,
			       P.iterations, ops_per_iter, (double)ns[i] / 1e6, (double)ops_per_iter / (double)ns[i] * 1e6);
			fflush(stdout);
		}
	}
	struct self_test st = {0};
	if (P.self_test)
		st = self_test();

	memcpy(sorted, ns, P.iterations * sizeof(*ns));
	qsort(sorted, P.iterations, sizeof(*sorted), cmp_u64);
	double sum = 0, var = 0;
	for (uint32_t i = 0; i < P.iterations; i++)
		sum += (double)ns[i];
	const double avg = sum / P.iterations;
	for (uint32_t i = 0; i < P.iterations; i++)
		var += ((double)ns[i] - avg) * ((double)ns[i] - avg);
	const double sd = sqrt(var / P.iterations);
	const double median = P.iterations & 1 ? (double)sorted[P.iterations / 2]
					       : ((double)sorted[P.iterations / 2 - 1] + (double)sorted[P.iterations / 2]) / 2;
	const double maxv = (double)sorted[P.iterations - 1];
	const double kops = (double)ops_per_iter / median * 1e6;
	const uint64_t measured = ops_per_iter * P.iterations;

	if (P.json) {
		printf("{\"tool\": \"" PROG "\", \"version\": \"%s\",\n", DOCA_VERSION_STRING);
		printf(" \"parameters\": {\"operation\": \"%s\", \"burst_size\": %u, \"queue_size\": %u, "
		       "\"completion_threshold\": %u, \"num_tables\": %u, \"table_size\": %u, \"num_workers\": %u, "
		       "\"hash_algorithm\": \"%s\", \"work_policy\": \"%s\", \"warmup\": %u, \"num_iterations\": %u, "
		       "\"num_operations\": %" PRIu64 ", \"pipeline_policy\": \"%s\", \"self_test\": %s},\n",
		       op_name(), P.burst, P.queue_size, P.threshold, P.num_tables, P.table_size, P.workers,
		       P.identity ? "identity" : "random", P.random_order ? "random" : "sequential", P.warmup,
		       P.iterations, P.num_ops, P.resources ? "resources" : "entries", P.self_test ? "true" : "false");
		printf(" \"iterations\": [");
		for (uint32_t i = 0; i < P.iterations; i++)
			printf("%s{\"time_ms\": %.6f, \"kops_per_sec\": %.3f}", i ? ", " : "", (double)ns[i] / 1e6,
			       (double)ops_per_iter / (double)ns[i] * 1e6);
		printf("],\n \"overall\": {\"average_ms\": %.6f, \"median_ms\": %.6f, \"max_ms\": %.6f, "
		       "\"stddev_ms\": %.6f, \"kops_per_sec\": %.3f},\n",
		       avg / 1e6, median / 1e6, maxv / 1e6, sd / 1e6, kops);
		printf(" \"operations\": %" PRIu64 ", \"operations_per_iteration\": %" PRIu64 ",\n", measured,
		       ops_per_iter);
		printf(" \"requests\": {\"posted\": %" PRIu64 ", \"completed\": %" PRIu64 ", \"failed\": %" PRIu64
		       ", \"again\": %" PRIu64 "},\n",
		       S.posted, S.completed, S.failed, S.again);
		if (st.run)
			printf(" \"self_test\": {\"result\": \"%s\", \"index\": %u, \"sentinel\": %u, \"frames\": %" PRIu64
			       ", \"sentinel_frames\": %" PRIu64 "}}\n",
			       st.pass ? "pass" : "fail", st.index, PERF_SENTINEL, st.frames, st.sentinel);
		else
			printf(" \"self_test\": null}\n");
	} else {
		printf("overall (%u iterations of %" PRIu64 " operations):\n", P.iterations, ops_per_iter);
		printf("  average              %.3f ms\n", avg / 1e6);
		printf("  median               %.3f ms\n", median / 1e6);
		printf("  max                  %.3f ms\n", maxv / 1e6);
		printf("  standard deviation   %.3f ms\n", sd / 1e6);
		printf("  Kops/sec (median)    %.1f\n", kops);
		printf("  operations           %" PRIu64 " timed; %" PRIu64 " requests posted in all (warm-up%s "
		       "included), %" PRIu64 " completed, %" PRIu64 " failed, %" PRIu64 " AGAIN\n",
		       measured, S.posted, st.run ? ", self-test" : "", S.completed, S.failed, S.again);
		if (st.run)
			printf("self-test: %s: index %u of table 0 replaced with %u while traffic flowed: %" PRIu64
			       " of %" PRIu64 " egress frames had source port %u\n",
			       st.pass ? "PASS" : "FAIL", st.index, PERF_SENTINEL, st.sentinel, st.frames, PERF_SENTINEL);
	}
	fflush(stdout);
	teardown();
	free(ns);
	free(sorted);
	return st.run && !st.pass ? 3 : 0;
}
