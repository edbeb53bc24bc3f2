/*
 * fuzz_pipeline.c - fuzzes the packet path: frames through a pipeline of up to four
 * BASIC, CONTROL and HASH pipes on port 0 (match templates, constant and per-entry
 * rewrites of MACs, IPv4 addresses, TTL, L4 ports and packet meta, fwd to a port, a
 * later pipe, per entry or drop, every kind of miss), all chosen by the input, then
 * frames built from the input (UDP/TCP over IPv4, IPv6, raw bytes) injected into port 0.
 *
 * Checks: no crash or sanitizer report; pipe creation and entry adds either succeed or
 * are refused with a documented code; every injected frame of 14..FLOWDPA_MAX_FRAME
 * bytes is accepted, a shorter one refused with INVALID_VALUE; every frame that left a
 * port has the length of an injected frame (no supported action changes a length) and,
 * if it is one of the built frames (their source MAC), valid IPv4 and L4 checksums
 * after every rewrite;
 * packets are conserved: port 0's rx = tx (both ports) + host + drops, and, without a
 * FLOODING pipe, each pipe's entry counters plus its miss counter equal the packets
 * that reached it (the root: every rx; a later pipe: what earlier entries and misses
 * sent to it).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <doca_bitfield.h>
#include <doca_flow.h>
#include <flowdpa.h>

#include "fuzz_check.h"

#define MAX_PIPES 4
#define MAX_ENTRIES 8
#define MAX_FRAMES 48
#define NR_FIELDS 7
#define RUNS_PER_INIT 128

enum field { F_DMAC, F_DIP, F_SIP, F_DPORT, F_SPORT, F_META, F_TTL };

static struct doca_flow_port *ports[2];

/* Small value sets, so that frames and entries meet. */
static void set_field(struct doca_flow_header_format *h, struct doca_flow_meta *meta, enum field f, uint8_t v,
		      bool ones)
{
	v &= 3;
	switch (f) {
	case F_DMAC:
		if (ones)
			memset(h->eth.dst_mac, 0xff, 6);
		else
			memcpy(h->eth.dst_mac, (uint8_t[6]){2, 0, 0, 0, 0, v}, 6);
		break;
	case F_DIP:
		h->l3_type = DOCA_FLOW_L3_TYPE_IP4;
		h->ip4.dst_ip = ones ? UINT32_MAX : DOCA_HTOBE32(0x0a000000u + v);
		break;
	case F_SIP:
		h->l3_type = DOCA_FLOW_L3_TYPE_IP4;
		h->ip4.src_ip = ones ? UINT32_MAX : DOCA_HTOBE32(0x0a000100u + v);
		break;
	case F_DPORT:
		h->transport.dst_port = ones ? UINT16_MAX : DOCA_HTOBE16(1000 + v);
		break;
	case F_SPORT:
		h->transport.src_port = ones ? UINT16_MAX : DOCA_HTOBE16(2000 + v);
		break;
	case F_META:
		meta->pkt_meta = ones ? UINT32_MAX : DOCA_HTOBE32(v + 1u);
		break;
	case F_TTL:
		h->l3_type = DOCA_FLOW_L3_TYPE_IP4;
		h->ip4.ttl = ones ? 0xff : (uint8_t)(62 + v);
		break;
	}
}

static void match_field(struct doca_flow_match *m, enum field f, uint8_t v, bool ones)
{
	set_field(&m->outer, &m->meta, f, v, ones);
}

static void action_field(struct doca_flow_actions *a, enum field f, uint8_t v, bool ones)
{
	set_field(&a->outer, &a->meta, f, v, ones);
}

static void entry_cb(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue, enum doca_flow_entry_status status,
		     enum doca_flow_entry_op op, void *user_ctx)
{
	(void)entry;
	(void)pipe_queue;
	(void)status;
	(void)op;
	(void)user_ctx;
}

static void flow_start(void)
{
	struct doca_flow_cfg *cfg;

	FUZZ_EXPECT(doca_flow_cfg_create(&cfg), DOCA_SUCCESS, "cfg_create");
	FUZZ_EXPECT(doca_flow_cfg_set_mode_args(cfg, "vnf,hws"), DOCA_SUCCESS, "set_mode_args");
	FUZZ_EXPECT(doca_flow_cfg_set_cb_entry_process(cfg, entry_cb), DOCA_SUCCESS, "set_cb");
	FUZZ_EXPECT(doca_flow_init(cfg), DOCA_SUCCESS, "doca_flow_init");
	doca_flow_cfg_destroy(cfg);
	for (uint16_t i = 0; i < 2; i++) {
		struct doca_flow_port_cfg *pc;

		FUZZ_EXPECT(doca_flow_port_cfg_create(&pc), DOCA_SUCCESS, "port_cfg_create");
		FUZZ_EXPECT(doca_flow_port_cfg_set_port_id(pc, i), DOCA_SUCCESS, "set_port_id");
		FUZZ_EXPECT(doca_flow_port_cfg_set_dev(pc, NULL), DOCA_SUCCESS, "set_dev");
		FUZZ_EXPECT(doca_flow_port_start(pc, &ports[i]), DOCA_SUCCESS, "port_start");
		doca_flow_port_cfg_destroy(pc);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_logs();
	flow_start();
	atexit(doca_flow_destroy);
	return 0;
}

struct pipe_plan {
	struct doca_flow_pipe *pipe;
	enum doca_flow_pipe_type type;
	uint32_t hash_alg;
	uint8_t match_fields, chg_fields; /* bit per field: in the template / per entry */
	uint8_t act_fields, act_chg;
	struct doca_flow_fwd fwd, miss;
	bool fwd_per_entry;
	int fwd_pipe, miss_pipe; /* index of the pipe fwd / miss go to, or -1 */
	int nr_entries;
	struct doca_flow_pipe_entry *entries[MAX_ENTRIES];
	int entry_pipe[MAX_ENTRIES]; /* next pipe of the entry's own fwd, or -1 */
};

static void plan_fwd(struct fuzz_in *in, struct pipe_plan *pl, int i, int nr)
{
	uint8_t b = fuzz_u8(in);
	bool has_next = i + 1 < nr;
	int next = has_next ? i + 1 + (b >> 4) % (nr - i - 1) : -1;

	pl->fwd_pipe = pl->miss_pipe = -1;
	switch (b % 5) {
	case 0:
		pl->fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_DROP};
		break;
	case 1:
		pl->fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PORT, .port_id = (uint16_t)((b >> 3) & 1)};
		break;
	case 2:
		pl->fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PORT, .port_id = UINT16_MAX};
		pl->fwd_per_entry = true;
		break;
	case 3:
		if (has_next) {
			pl->fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PIPE};
			pl->fwd_per_entry = true; /* next_pipe NULL: each entry names its own */
			break;
		}
		/* fall through */
	default:
		if (has_next) {
			pl->fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PIPE};
			pl->fwd_pipe = next;
		} else {
			pl->fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_DROP};
		}
	}
	b = fuzz_u8(in);
	switch (b % 4) {
	case 0:
		pl->miss.type = DOCA_FLOW_FWD_NONE; /* passed as NULL */
		break;
	case 1:
		pl->miss = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_DROP};
		break;
	case 2:
		pl->miss = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PORT, .port_id = (uint16_t)((b >> 2) & 1)};
		break;
	default:
		if (has_next) {
			pl->miss = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PIPE};
			pl->miss_pipe = i + 1 + (b >> 4) % (nr - i - 1);
		} else {
			pl->miss = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_DROP};
		}
	}
}

static bool create_pipe(struct fuzz_in *in, struct pipe_plan *plans, int i, int nr)
{
	static const uint32_t algs[] = {DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_HASH, DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_RANDOM,
					DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY,
					DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_ROUND_ROBIN,
					DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_FLOODING};
	struct pipe_plan *pl = &plans[i];
	struct doca_flow_match m, mask;
	struct doca_flow_actions act, *acts[1] = {&act};
	struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
	struct doca_flow_pipe_cfg *cfg;
	uint8_t b = fuzz_u8(in);
	uint32_t nr_entries = 1 + fuzz_u8(in) % 16;
	char name[16];

	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	memset(&act, 0, sizeof(act));
	pl->type = b % 3 == 0 ? DOCA_FLOW_PIPE_BASIC : b % 3 == 1 ? DOCA_FLOW_PIPE_CONTROL : DOCA_FLOW_PIPE_HASH;
	pl->match_fields = fuzz_u8(in) & 0x7f;
	pl->chg_fields = fuzz_u8(in) & pl->match_fields;
	pl->act_fields = fuzz_u8(in) & 0x7f;
	pl->act_chg = fuzz_u8(in) & pl->act_fields;
	for (int f = 0; f < NR_FIELDS; f++) {
		uint8_t v = fuzz_u8(in);

		if (pl->type == DOCA_FLOW_PIPE_HASH && (pl->match_fields >> f & 1))
			match_field(&mask, (enum field)f, v, true);
		else if (pl->type == DOCA_FLOW_PIPE_BASIC && (pl->match_fields >> f & 1))
			match_field(&m, (enum field)f, v, pl->chg_fields >> f & 1);
		if (pl->act_fields >> f & 1)
			action_field(&act, (enum field)f, v, pl->act_chg >> f & 1);
	}
	plan_fwd(in, pl, i, nr);
	if (pl->type == DOCA_FLOW_PIPE_HASH)
		pl->hash_alg = algs[b / 3 % 5] | ((b & 0x80) ? DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_SELECT_ENABLED : 0);

	snprintf(name, sizeof(name), "fz%d", i);
	FUZZ_EXPECT(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS, "pipe_cfg_create");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_name(cfg, name), DOCA_SUCCESS, "set_name");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_type(cfg, pl->type), DOCA_SUCCESS, "set_type");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_is_root(cfg, i == 0), DOCA_SUCCESS, "set_is_root");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_nr_entries(cfg, nr_entries), DOCA_SUCCESS, "set_nr_entries");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_monitor(cfg, &mon), DOCA_SUCCESS, "set_monitor");
	FUZZ_EXPECT(doca_flow_pipe_cfg_set_miss_counter(cfg, true), DOCA_SUCCESS, "set_miss_counter");
	if (pl->type == DOCA_FLOW_PIPE_HASH) {
		FUZZ_EXPECT(doca_flow_pipe_cfg_set_match(cfg, NULL, &mask), DOCA_SUCCESS, "set_match");
		FUZZ_EXPECT(doca_flow_pipe_cfg_set_hash_map_algorithm(cfg, pl->hash_alg), DOCA_SUCCESS, "set_alg");
	} else if (pl->type == DOCA_FLOW_PIPE_BASIC) {
		FUZZ_EXPECT(doca_flow_pipe_cfg_set_match(cfg, &m, NULL), DOCA_SUCCESS, "set_match");
	}
	if (pl->act_fields)
		FUZZ_EXPECT(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, NULL, 1), DOCA_SUCCESS, "set_actions");
	if (pl->fwd_pipe >= 0)
		pl->fwd.next_pipe = plans[pl->fwd_pipe].pipe;
	if (pl->miss_pipe >= 0)
		pl->miss.next_pipe = plans[pl->miss_pipe].pipe;
	doca_error_t rc = doca_flow_pipe_create(cfg, pl->type == DOCA_FLOW_PIPE_CONTROL ? NULL : &pl->fwd,
						pl->miss.type == DOCA_FLOW_FWD_NONE ? NULL : &pl->miss, &pl->pipe);
	doca_flow_pipe_cfg_destroy(cfg);
	/* Templates the NIC cannot hold (e.g. an IDENTITY map over too wide a key) are
	 * refused up front, never half-created. */
	FUZZ_CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_INVALID_VALUE || rc == DOCA_ERROR_NOT_SUPPORTED,
		   "pipe_create returned %s", doca_error_get_name(rc));
	if (rc != DOCA_SUCCESS)
		pl->pipe = NULL;
	return rc == DOCA_SUCCESS;
}

static void add_entries(struct fuzz_in *in, struct pipe_plan *plans, int i, int nr)
{
	struct pipe_plan *pl = &plans[i];
	int n = fuzz_u8(in) % (MAX_ENTRIES + 1);

	for (int k = 0; k < n; k++) {
		struct doca_flow_match m, mask;
		struct doca_flow_actions act;
		struct doca_flow_monitor mon = {.counter_type = DOCA_FLOW_RESOURCE_TYPE_NON_SHARED};
		struct doca_flow_fwd fwd = {.type = DOCA_FLOW_FWD_DROP};
		uint8_t sel = fuzz_u8(in), mbits = fuzz_u8(in);
		struct doca_flow_pipe_entry *e = NULL;
		doca_error_t rc;

		memset(&m, 0, sizeof(m));
		memset(&mask, 0, sizeof(mask));
		memset(&act, 0, sizeof(act));
		for (int f = 0; f < NR_FIELDS; f++) {
			uint8_t v = fuzz_u8(in);

			if (pl->type == DOCA_FLOW_PIPE_BASIC && (pl->chg_fields >> f & 1))
				match_field(&m, (enum field)f, v, false);
			if (pl->type == DOCA_FLOW_PIPE_CONTROL && (mbits >> f & 1)) {
				match_field(&m, (enum field)f, v, false);
				if (sel & 0x40)
					match_field(&mask, (enum field)f, v, true);
			}
			if (pl->act_chg >> f & 1)
				action_field(&act, (enum field)f, v, false);
		}
		pl->entry_pipe[pl->nr_entries] = pl->fwd_pipe;
		if (pl->fwd_per_entry || pl->type == DOCA_FLOW_PIPE_CONTROL) {
			if (i + 1 < nr && (sel & 1)) {
				int next = i + 1 + (sel >> 1) % (nr - i - 1);

				fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PIPE, .next_pipe = plans[next].pipe};
				pl->entry_pipe[pl->nr_entries] = next;
			} else {
				fwd = (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PORT, .port_id = (uint16_t)(sel >> 1 & 1)};
				pl->entry_pipe[pl->nr_entries] = -1;
			}
			/* A pipe that fixes fwd to PORT/PIPE per entry takes only that type. */
			if (pl->fwd_per_entry && pl->type != DOCA_FLOW_PIPE_CONTROL && fwd.type != pl->fwd.type) {
				fwd = pl->fwd.type == DOCA_FLOW_FWD_PORT
					      ? (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PORT, .port_id = sel >> 2 & 1}
					      : (struct doca_flow_fwd){.type = DOCA_FLOW_FWD_PIPE,
								       .next_pipe = plans[i + 1].pipe};
				pl->entry_pipe[pl->nr_entries] = fwd.type == DOCA_FLOW_FWD_PIPE ? i + 1 : -1;
			}
		}
		const struct doca_flow_fwd *efwd =
			pl->fwd_per_entry || pl->type == DOCA_FLOW_PIPE_CONTROL ? &fwd : NULL;
		const struct doca_flow_actions *eact = pl->act_fields ? &act : NULL;

		switch (pl->type) {
		case DOCA_FLOW_PIPE_BASIC:
			rc = doca_flow_pipe_basic_add_entry(0, pl->pipe, &m, 0, eact, &mon, efwd, 0, NULL, &e);
			break;
		case DOCA_FLOW_PIPE_CONTROL:
			rc = doca_flow_pipe_control_add_entry(0, pl->pipe, &m, (sel & 0x40) ? &mask : NULL, NULL, eact,
							      NULL, NULL, &mon, sel >> 3 & 7, efwd, NULL, &e);
			break;
		default:
			rc = doca_flow_pipe_hash_add_entry(0, pl->pipe, sel % 16, 0, eact, &mon, efwd, 0, NULL, &e);
			break;
		}
		/* INVALID_VALUE: a HASH index past nr_entries. */
		FUZZ_CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_INVALID_VALUE, "add_entry returned %s",
			   doca_error_get_name(rc));
		if (rc == DOCA_SUCCESS)
			pl->entries[pl->nr_entries++] = e;
	}
}

static const uint8_t template_src[6] = {2, 0, 0, 0, 1, 0};

static uint32_t sum16(uint32_t s, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The one's-complement sum of the L4 segment with its pseudo-header (0xffff: valid). */
static uint16_t l4_sum(const uint8_t *f, uint32_t len, bool v6)
{
	const uint8_t *ip = f + 14;
	uint32_t l3 = v6 ? 40 : 20, seg = len - 14 - l3;
	uint32_t s = v6 ? sum16(0, ip + 8, 32) : sum16(0, ip + 12, 8);

	s += (v6 ? ip[6] : ip[9]) + seg;
	return fold(sum16(s, ip + l3, seg));
}

/*
 * A frame built by build_frame (valid checksums, or a UDP/IPv4 one without any) as it
 * left a port: every rewrite must have kept its IPv4 header checksum and its L4 checksum
 * valid (RFC 1624), and a UDP/IPv4 checksum of 0 ("none") must stay 0. Fragments carry
 * a checksum over the whole datagram: only their IPv4 header is checked.
 */
static void check_checksums(const uint8_t *f, uint32_t len)
{
	bool v6 = f[12] == 0x86 && f[13] == 0xdd;

	if (!v6) {
		FUZZ_CHECK(fold(sum16(0, f + 14, 20)) == 0xffff, "an IPv4 frame of %u bytes left with a bad header checksum",
			   len);
		if (f[14 + 6] & 0x3f)
			return;
	}
	bool udp = (v6 ? f[14 + 6] : f[14 + 9]) == 17;
	const uint8_t *l4 = f + 14 + (v6 ? 40 : 20);
	uint16_t stored = (uint16_t)(l4[udp ? 6 : 16] << 8 | l4[udp ? 7 : 17]);

	if (udp && !v6 && stored == 0)
		return;
	FUZZ_CHECK(l4_sum(f, len, v6) == 0xffff, "a %s/%s frame of %u bytes left with a bad L4 checksum 0x%04x",
		   udp ? "UDP" : "TCP", v6 ? "IPv6" : "IPv4", len, stored);
}

static uint32_t build_frame(struct fuzz_in *in, uint8_t *f)
{
	uint8_t kind = fuzz_u8(in), a = fuzz_u8(in), b = fuzz_u8(in);
	uint32_t len;

	if (kind % 4 == 3) {
		len = fuzz_u8(in) % 96;
		for (uint32_t i = 0; i < len; i++)
			f[i] = fuzz_u8(in);
		/* Never the built frames' source MAC (no action rewrites it): that tells them apart. */
		if (len >= 12 && memcmp(f + 6, template_src, 6) == 0)
			f[11] ^= 1;
		return len;
	}
	bool tcp = kind % 4 == 1, v6 = kind % 4 == 2;
	uint32_t l4 = tcp ? 20 : 8, l3 = v6 ? 40 : 20;

	len = 14 + l3 + l4 + (kind >> 4);
	memset(f, 0, len);
	memcpy(f, (uint8_t[6]){2, 0, 0, 0, 0, a & 3}, 6);
	memcpy(f + 6, template_src, 6);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	uint8_t *ip = f + 14, *l4p = ip + l3;
	if (v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)((l4 + (kind >> 4)) >> 8);
		ip[5] = (uint8_t)(l4 + (kind >> 4));
		ip[6] = tcp ? 6 : 17;
		ip[7] = 64;
	} else {
		uint16_t tot = (uint16_t)(len - 14);
		ip[0] = 0x45;
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		ip[8] = (uint8_t)(62 + (b & 3));
		ip[9] = 17;
		memcpy(ip + 12, (uint8_t[4]){10, 0, 1, (b >> 2) & 3}, 4);
		memcpy(ip + 16, (uint8_t[4]){10, 0, 0, (a >> 2) & 3}, 4);
		if (kind & 8) /* a fragment: the general parser's path */
			ip[6] = 0x20;
	}
	uint16_t sport = (uint16_t)(2000 + ((b >> 4) & 3)), dport = (uint16_t)(1000 + ((a >> 4) & 3));
	l4p[0] = (uint8_t)(sport >> 8), l4p[1] = (uint8_t)sport;
	l4p[2] = (uint8_t)(dport >> 8), l4p[3] = (uint8_t)dport;
	if (tcp) {
		l4p[12] = 0x50;
		if (!v6)
			ip[9] = 6;
	} else {
		l4p[4] = (uint8_t)((l4 + (kind >> 4)) >> 8), l4p[5] = (uint8_t)(l4 + (kind >> 4));
	}
	if (!v6) {
		uint16_t c = (uint16_t)~fold(sum16(0, ip, 20));
		ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
	}
	/* UDP over IPv4 may have no checksum (0); everything else gets a valid one. */
	if (tcp || v6 || !(kind & 4)) {
		uint32_t off = tcp ? 16 : 6;
		uint16_t c = (uint16_t)~l4_sum(f, len, v6);

		if (!tcp && c == 0)
			c = 0xffff;
		l4p[off] = (uint8_t)(c >> 8), l4p[off + 1] = (uint8_t)c;
	}
	return len;
}

static uint64_t entry_pkts(struct doca_flow_pipe_entry *e)
{
	struct doca_flow_resource_query q;
	doca_error_t rc;

	memset(&q, 0, sizeof(q));
	rc = doca_flow_resource_query_entry(e, &q);
	/* BAD_STATE: the add completed with ERROR (duplicate key, full pipe). */
	FUZZ_CHECK(rc == DOCA_SUCCESS || rc == DOCA_ERROR_BAD_STATE, "query_entry %s", doca_error_get_name(rc));
	return rc == DOCA_SUCCESS ? q.counter.total_pkts : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned int runs;
	struct fuzz_in in = {data, size};
	struct pipe_plan plans[MAX_PIPES];
	int nr = 1 + fuzz_u8(&in) % MAX_PIPES;
	bool flooding = false;
	uint32_t lens_seen[FLOWDPA_MAX_FRAME / 32 + 1] = {0};
	uint64_t rx = 0;

	if (++runs % RUNS_PER_INIT == 0) {
		doca_flow_destroy();
		flow_start();
	}
	memset(plans, 0, sizeof(plans));
	/* Last pipe first: a pipe's fwd and miss may name any later one. */
	for (int i = nr - 1; i >= 0; i--) {
		if (!create_pipe(&in, plans, i, nr)) {
			doca_flow_port_pipes_flush(ports[0]);
			return 0;
		}
		flooding |= plans[i].type == DOCA_FLOW_PIPE_HASH &&
			    (plans[i].hash_alg & DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_FLOODING) != 0;
	}
	for (int i = 0; i < nr; i++)
		add_entries(&in, plans, i, nr);
	FUZZ_EXPECT(doca_flow_entries_process(ports[0], 0, 0, 0), DOCA_SUCCESS, "entries_process");

	for (int k = 0; k < MAX_FRAMES && in.n > 0; k++) {
		uint8_t f[128];
		uint32_t len = build_frame(&in, f);
		doca_error_t rc = flowdpa_port_inject(0, f, len);

		FUZZ_EXPECT(rc, len >= 14 ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE, "flowdpa_port_inject");
		if (len >= 14) {
			rx++;
			lens_seen[len / 32] |= 1u << (len % 32);
		}
	}

	struct flowdpa_port_stats s0, s1;
	FUZZ_EXPECT(flowdpa_port_stats_get(0, &s0), DOCA_SUCCESS, "stats 0");
	FUZZ_EXPECT(flowdpa_port_stats_get(1, &s1), DOCA_SUCCESS, "stats 1");
	for (uint16_t p = 0; p < 2; p++) {
		uint8_t buf[FLOWDPA_MAX_FRAME];
		uint32_t len;

		while (flowdpa_port_capture_pop(p, buf, sizeof(buf), &len) == DOCA_SUCCESS) {
			FUZZ_CHECK(len < sizeof(buf) && (lens_seen[len / 32] >> (len % 32) & 1),
				   "port %u sent a frame of %u bytes, no injected frame had that length", p, len);
			if (len >= 14 && memcmp(buf + 6, template_src, 6) == 0)
				check_checksums(buf, len);
		}
		while (flowdpa_host_capture_pop(p, buf, sizeof(buf), &len) == DOCA_SUCCESS)
			FUZZ_CHECK(len < sizeof(buf) && (lens_seen[len / 32] >> (len % 32) & 1),
				   "port %u host queue got a frame of %u bytes, no injected frame had that length", p, len);
	}
	/* Stats are zeroed at port start, and every input's traffic is on port 0's: compare
	 * the differences since the previous input. */
	static struct flowdpa_port_stats p0, p1;
	if (runs % RUNS_PER_INIT == 0)
		memset(&p0, 0, sizeof(p0)), memset(&p1, 0, sizeof(p1));
	uint64_t d_rx = s0.rx_pkts - p0.rx_pkts, d_tx = s0.tx_pkts - p0.tx_pkts + s1.tx_pkts - p1.tx_pkts;
	uint64_t d_host = s0.host_pkts - p0.host_pkts, d_drop = s0.drops - p0.drops;
	p0 = s0, p1 = s1;
	FUZZ_CHECK(d_rx == rx, "port 0 received %llu frames, %llu were injected", (unsigned long long)d_rx,
		   (unsigned long long)rx);
	FUZZ_CHECK(s1.rx_pkts == 0 && s1.drops == 0 && s1.host_pkts == 0, "port 1 saw traffic of its own");
	if (!flooding) {
		uint64_t arrived[MAX_PIPES] = {rx};

		FUZZ_CHECK(d_tx + d_host + d_drop == rx, "rx %llu != tx %llu + host %llu + drops %llu",
			   (unsigned long long)rx, (unsigned long long)d_tx, (unsigned long long)d_host,
			   (unsigned long long)d_drop);
		for (int i = 0; i < nr; i++) {
			struct doca_flow_resource_query q;
			uint64_t hits = 0;

			memset(&q, 0, sizeof(q));
			FUZZ_EXPECT(doca_flow_resource_query_pipe_miss(plans[i].pipe, &q), DOCA_SUCCESS, "query_pipe_miss");
			for (int k = 0; k < plans[i].nr_entries; k++) {
				uint64_t n = entry_pkts(plans[i].entries[k]);

				hits += n;
				if (plans[i].entry_pipe[k] >= 0)
					arrived[plans[i].entry_pipe[k]] += n;
			}
			if (plans[i].miss_pipe >= 0)
				arrived[plans[i].miss_pipe] += q.counter.total_pkts;
			FUZZ_CHECK(hits + q.counter.total_pkts == arrived[i],
				   "pipe %d: %llu hits + %llu misses, but %llu packets reached it", i,
				   (unsigned long long)hits, (unsigned long long)q.counter.total_pkts,
				   (unsigned long long)arrived[i]);
		}
	}
	doca_flow_port_pipes_flush(ports[0]);
	return 0;
}
