/*
 * test_flow_desc.c - action descriptors and match conditions on real frames: the
 * desc and condition parts of DOCA's flow_copy_to_meta, flow_add_to_meta,
 * flow_match_comparison, flow_modify_header, flow_tcp_seq and flow_fwd_miss samples,
 * the desc parts of flow_lpm_em and flow_ipv6_flow_label, the condition of flow_esp,
 * each comparison operation against a constant and between two fields. Frames that
 * changed are checked byte by byte and their checksums recomputed; the rewritten ones
 * are also written to a pcap file and read back with tshark (checksums, TTL, TCP ack).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "flow_test_common.h"

#define META_U32_BIT_OFFSET(idx) (offsetof(struct doca_flow_meta, u32[(idx)]) << 3)

static struct doca_flow_port *ports[2];
static struct entries_status status;
static const char *tshark, *workdir;

static int setup(void **state)
{
	(void)state;
	return ft_setup_two_ports(ports, &status);
}

static int teardown(void **state)
{
	(void)state;
	return ft_teardown_two_ports(ports);
}

/* A pipe on port 0 (descs: one per action template, may be NULL). */
static struct doca_flow_pipe *mk_pipe(const char *name, enum doca_flow_pipe_type type, bool root,
				      const struct doca_flow_match *match, const struct doca_flow_match *mask,
				      struct doca_flow_actions *const *acts, struct doca_flow_action_descs *const *descs,
				      size_t nr_actions, const struct doca_flow_fwd *fwd,
				      const struct doca_flow_fwd *miss)
{
	struct doca_flow_pipe_cfg *cfg;
	struct doca_flow_pipe *p = NULL;
	assert_int_equal(doca_flow_pipe_cfg_create(&cfg, ports[0]), DOCA_SUCCESS);
	assert_int_equal(set_flow_pipe_cfg(cfg, name, type, root), DOCA_SUCCESS);
	if (match || mask)
		assert_int_equal(doca_flow_pipe_cfg_set_match(cfg, match, mask), DOCA_SUCCESS);
	if (nr_actions)
		assert_int_equal(doca_flow_pipe_cfg_set_actions(cfg, acts, NULL, descs, nr_actions), DOCA_SUCCESS);
	assert_int_equal(doca_flow_pipe_create(cfg, fwd, miss, &p), DOCA_SUCCESS);
	doca_flow_pipe_cfg_destroy(cfg);
	return p;
}

static void process(int n)
{
	memset(&status, 0, sizeof(status));
	assert_int_equal(flow_process_entries(ports[0], &status, n), DOCA_SUCCESS);
}

/* Inject f on port 0; the frame that left port 1 into out (its length), or 0 for none. */
static uint32_t through(const uint8_t *f, uint32_t len, uint8_t *out)
{
	ft_drain(1);
	assert_int_equal(flowdpa_port_inject(0, f, len), DOCA_SUCCESS);
	uint32_t olen = 0;
	if (flowdpa_port_capture_pop(1, out, FLOWDPA_MAX_FRAME, &olen) != DOCA_SUCCESS)
		return 0;
	assert_int_equal(flowdpa_port_capture_count(1), 0);
	return olen;
}

/* Lines tshark prints for frames[] written to a pcap file with args. */
static int tshark_lines(const uint8_t frames[][FLOWDPA_MAX_FRAME], const uint32_t *lens, int n, const char *args,
			char *out, size_t cap)
{
	char path[600], cmd[1600];
	snprintf(path, sizeof(path), "%s/desc_out.pcap", workdir);
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = pcap_dump_open(dead, path);
	assert_non_null(d);
	for (int i = 0; i < n; i++) {
		struct pcap_pkthdr h = {.caplen = lens[i], .len = lens[i]};
		h.ts.tv_sec = 1;
		h.ts.tv_usec = i;
		pcap_dump((u_char *)d, &h, frames[i]);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	snprintf(cmd, sizeof(cmd), "'%s' -r '%s' %s 2>/dev/null", tshark, path, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t got = fread(out, 1, cap - 1, p);
	out[got] = 0;
	pclose(p);
	int lines = 0;
	for (size_t i = 0; i < got; i++)
		lines += out[i] == '\n';
	return lines;
}

/* A BASIC pipe matching meta.u32[0] and the low 16 bits of u32[1] (flow_copy_to_meta's
 * MATCH_PIPE), one entry for (w0, w1), fwd port 1, miss drop. */
static struct doca_flow_pipe *meta_match_pipe(uint32_t w0, uint32_t w1)
{
	struct doca_flow_match m, mask;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1}, drop = {.type = DOCA_FLOW_FWD_DROP};
	memset(&m, 0, sizeof(m));
	memset(&mask, 0, sizeof(mask));
	m.meta.u32[0] = m.meta.u32[1] = UINT32_MAX; /* changeable, under the mask */
	mask.meta.u32[0] = UINT32_MAX;
	mask.meta.u32[1] = DOCA_HTOBE32(0xffff);
	struct doca_flow_pipe *p = mk_pipe("MATCH_META", DOCA_FLOW_PIPE_BASIC, false, &m, &mask, NULL, NULL, 0, &to1,
					   &drop);
	m.meta.u32[0] = DOCA_HTOBE32(w0);
	m.meta.u32[1] = DOCA_HTOBE32(w1);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, NULL), DOCA_SUCCESS);
	return p;
}

/* flow_copy_to_meta: the source MAC into u32[0] (low 32 bits) and u32[1] (high 16). */
static void test_copy_mac_to_meta(void **state)
{
	(void)state;
	struct doca_flow_pipe *next = meta_match_pipe(0xccddeeff, 0xaabb);
	struct doca_flow_action_desc d[2] = {{.type = DOCA_FLOW_ACTION_COPY}, {.type = DOCA_FLOW_ACTION_COPY}};
	d[0].field_op.src.field_string = "outer.eth.src_mac";
	d[0].field_op.dst.field_string = "meta.data";
	d[0].field_op.dst.bit_offset = META_U32_BIT_OFFSET(0);
	d[0].field_op.width = 32;
	d[1].field_op.src.field_string = "outer.eth.src_mac";
	d[1].field_op.src.bit_offset = 32;
	d[1].field_op.dst.field_string = "meta.data";
	d[1].field_op.dst.bit_offset = META_U32_BIT_OFFSET(1);
	d[1].field_op.width = 16;
	struct doca_flow_action_descs ds = {.nb_action_desc = 2, .desc_array = d}, *dsa[1] = {&ds};
	struct doca_flow_actions a, *aa[1] = {&a};
	memset(&a, 0, sizeof(a));
	struct doca_flow_fwd to_next = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = next};
	struct doca_flow_pipe *root = mk_pipe("COPY_MAC", DOCA_FLOW_PIPE_BASIC, true, NULL, NULL, aa, dsa, 1, &to_next,
					      NULL);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);
	process(2);

	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t len = ft_udp4(f, 0x01020304, 0x08080808, 1234, 80);
	static const uint8_t mac[6] = {0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
	memcpy(f + 6, mac, 6);
	uint32_t olen = through(f, len, out);
	assert_int_equal(olen, len);
	assert_memory_equal(out, f, len); /* meta only: the frame is unchanged */
	f[11] = 0xfe;			  /* another MAC: its meta misses the next pipe */
	assert_int_equal(through(f, len, out), 0);
}

/* flow_add_to_meta: COPY src_ip to u32[0], then ADD src_ip to it: 2 * src_ip. */
static void test_add_to_meta(void **state)
{
	(void)state;
	struct doca_flow_pipe *next = meta_match_pipe(2u * 0x01020304u, 0);
	struct doca_flow_action_desc d[2] = {{.type = DOCA_FLOW_ACTION_COPY}, {.type = DOCA_FLOW_ACTION_ADD}};
	for (int i = 0; i < 2; i++) {
		d[i].field_op.src.field_string = "outer.ipv4.src_ip";
		d[i].field_op.dst.field_string = "meta.data";
		d[i].field_op.dst.bit_offset = META_U32_BIT_OFFSET(0);
		d[i].field_op.width = 32;
	}
	struct doca_flow_action_descs ds = {.nb_action_desc = 2, .desc_array = d}, *dsa[1] = {&ds};
	struct doca_flow_fwd to_next = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = next};
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = UINT32_MAX;
	struct doca_flow_pipe *root = mk_pipe("ADD_META", DOCA_FLOW_PIPE_BASIC, true, &m, NULL, NULL, dsa, 1, &to_next,
					      NULL);
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(8, 8, 8, 8);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);
	process(2);
	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t len = ft_udp4(f, 0x01020304, 0x08080808, 1234, 80);
	assert_int_equal(through(f, len, out), len);
	len = ft_udp4(f, 0x01020305, 0x08080808, 1234, 80); /* 2 * src differs */
	assert_int_equal(through(f, len, out), 0);
}

/*
 * flow_match_comparison: IPv4 + TCP header length (IHL and data offset, each * 4, by
 * writing them 2 bits up) into u32[0], total_len into u32[1]; a CONTROL pipe passes
 * frames whose u32[1] > u32[0], i.e. that carry payload.
 */
static void test_match_comparison(void **state)
{
	(void)state;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1}, drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe *cmp = mk_pipe("COMPARE", DOCA_FLOW_PIPE_CONTROL, false, NULL, NULL, NULL, NULL, 0, NULL,
					     &drop);
	struct doca_flow_match_condition c;
	memset(&c, 0, sizeof(c));
	c.operation = DOCA_FLOW_COMPARE_GT;
	c.field_op.a.field_string = "meta.data";
	c.field_op.a.bit_offset = META_U32_BIT_OFFSET(1);
	c.field_op.b.field_string = "meta.data";
	c.field_op.b.bit_offset = META_U32_BIT_OFFSET(0);
	c.field_op.width = 32;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, cmp, NULL, NULL, &c, NULL, NULL, NULL, NULL, 0, &to1,
							  &status, NULL),
			 DOCA_SUCCESS);

	struct doca_flow_action_desc d[3] = {{.type = DOCA_FLOW_ACTION_COPY},
					     {.type = DOCA_FLOW_ACTION_ADD},
					     {.type = DOCA_FLOW_ACTION_ADD}};
	d[0].field_op.src.field_string = "outer.ipv4.version_ihl";
	d[0].field_op.dst.field_string = "meta.data";
	d[0].field_op.dst.bit_offset = META_U32_BIT_OFFSET(0) + 2;
	d[0].field_op.width = 4;
	d[1].field_op.src.field_string = "outer.tcp.data_offset";
	d[1].field_op.dst.field_string = "meta.data";
	d[1].field_op.dst.bit_offset = META_U32_BIT_OFFSET(0) + 2;
	d[1].field_op.width = 4;
	d[2].field_op.src.field_string = "outer.ipv4.total_len";
	d[2].field_op.dst.field_string = "meta.data";
	d[2].field_op.dst.bit_offset = META_U32_BIT_OFFSET(1);
	d[2].field_op.width = 16;
	struct doca_flow_action_descs ds = {.nb_action_desc = 3, .desc_array = d}, *dsa[1] = {&ds};
	struct doca_flow_actions a, *aa[1] = {&a};
	memset(&a, 0, sizeof(a));
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_TCP;
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.src_ip = UINT32_MAX;
	m.outer.ip4.dst_ip = UINT32_MAX;
	m.outer.tcp.l4_port.src_port = UINT16_MAX;
	m.outer.tcp.l4_port.dst_port = UINT16_MAX;
	struct doca_flow_fwd to_cmp = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = cmp};
	struct doca_flow_pipe *root = mk_pipe("SUM_TO_META", DOCA_FLOW_PIPE_BASIC, true, &m, NULL, aa, dsa, 1, &to_cmp,
					      NULL);
	m.outer.ip4.src_ip = BE_IPV4_ADDR(1, 2, 3, 4);
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(8, 8, 8, 8);
	m.outer.tcp.l4_port.src_port = DOCA_HTOBE16(1234);
	m.outer.tcp.l4_port.dst_port = DOCA_HTOBE16(80);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, &a, NULL, NULL, 0, &status, NULL), DOCA_SUCCESS);
	process(2);

	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t len = ft_build4(f, 6, 0x01020304, 0x08080808, 1234, 80, 10); /* 50 > 20 + 20 */
	assert_int_equal(through(f, len, out), len);
	assert_memory_equal(out, f, len);
	len = ft_build4(f, 6, 0x01020304, 0x08080808, 1234, 80, 0); /* 40 == 40: not GT */
	assert_int_equal(through(f, len, out), 0);
}

static uint8_t rewritten[4][FLOWDPA_MAX_FRAME];
static uint32_t rewritten_len[4];

/* flow_modify_header: TTL "+= 255" (minus one) by ADD with the template's value, the
 * source MAC set per entry. The IPv4 checksum stays valid. */
static void test_add_ttl(void **state)
{
	(void)state;
	struct doca_flow_action_desc d = {.type = DOCA_FLOW_ACTION_ADD};
	d.field_op.dst.field_string = "outer.ipv4.ttl";
	d.field_op.width = 8;
	struct doca_flow_action_descs ds = {.nb_action_desc = 1, .desc_array = &d}, *dsa[1] = {&ds};
	struct doca_flow_actions a, *aa[1] = {&a};
	memset(&a, 0, sizeof(a));
	a.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	a.outer.ip4.ttl = UINT8_MAX;
	memset(a.outer.eth.src_mac, 0xff, 6);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV4;
	m.outer.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	m.outer.ip4.dst_ip = UINT32_MAX;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *root = mk_pipe("MODIFY_HEADER", DOCA_FLOW_PIPE_BASIC, true, &m, NULL, aa, dsa, 1, &to1,
					      NULL);
	m.outer.ip4.dst_ip = BE_IPV4_ADDR(8, 8, 8, 8);
	struct doca_flow_actions ea;
	memset(&ea, 0, sizeof(ea));
	static const uint8_t mac[6] = {0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
	memcpy(ea.outer.eth.src_mac, mac, 6);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, &ea, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);
	process(1);

	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	for (int proto = 0; proto < 2; proto++) {
		uint32_t len = ft_build4(f, proto ? 6 : 17, 0x01020304, 0x08080808, 1234, 80, 6);
		uint32_t olen = through(f, len, out);
		assert_int_equal(olen, len);
		assert_int_equal(out[14 + 8], 63);
		assert_memory_equal(out + 6, mac, 6);
		assert_true(ft_checksums_ok(out, olen));
		/* Nothing else changed: TTL, the IPv4 checksum and the MAC aside. */
		memcpy(f + 6, mac, 6);
		f[14 + 8] = 63;
		memcpy(f + 14 + 10, out + 14 + 10, 2);
		assert_memory_equal(out, f, len);
		memcpy(rewritten[proto], out, olen);
		rewritten_len[proto] = olen;
	}
	char txt[2048];
	assert_int_equal(tshark_lines(rewritten, rewritten_len, 2,
				      "-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -o tcp.check_checksum:TRUE "
				      "-Y 'ip.ttl == 63 && ip.checksum.status == 1 && eth.src == aa:bb:cc:dd:ee:ff && "
				      "(udp.checksum.status == 1 || tcp.checksum.status == 1)'",
				      txt, sizeof(txt)),
			 2);
}

/*
 * flow_tcp_seq: a CONTROL root passes TCP frames whose sequence number is below 10 (the
 * immediate value from the entry's match) to a pipe adding 314 to the ack number.
 */
static void test_tcp_seq(void **state)
{
	(void)state;
	struct doca_flow_action_desc d = {.type = DOCA_FLOW_ACTION_ADD};
	d.field_op.dst.field_string = "outer.tcp.ack_num";
	d.field_op.width = 32;
	struct doca_flow_action_descs ds = {.nb_action_desc = 1, .desc_array = &d}, *dsa[1] = {&ds};
	struct doca_flow_actions a, *aa[1] = {&a};
	memset(&a, 0, sizeof(a));
	a.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_TCP;
	a.outer.tcp.ack_num = DOCA_HTOBE32(314);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV4;
	m.parser_meta.outer_l4_type = DOCA_FLOW_L4_META_TCP;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *act = mk_pipe("TCP_SEQ_ACTION", DOCA_FLOW_PIPE_BASIC, false, &m, NULL, aa, dsa, 1, &to1,
					     NULL);
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, act, &m, 0, NULL, NULL, NULL, 0, &status, NULL), DOCA_SUCCESS);

	struct doca_flow_pipe *cmp = mk_pipe("TCP_SEQ_COMPARE", DOCA_FLOW_PIPE_CONTROL, true, NULL, NULL, NULL, NULL, 0,
					     NULL, NULL);
	struct doca_flow_match_condition c;
	memset(&c, 0, sizeof(c));
	c.operation = DOCA_FLOW_COMPARE_LT;
	c.field_op.a.field_string = "outer.tcp.seq_num";
	c.field_op.width = 32;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_TCP;
	m.outer.tcp.seq_num = DOCA_HTOBE32(10);
	struct doca_flow_fwd to_act = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = act};
	assert_int_equal(doca_flow_pipe_control_add_entry(0, cmp, &m, NULL, &c, NULL, NULL, NULL, NULL, 0, &to_act,
							  &status, NULL),
			 DOCA_SUCCESS);
	process(2);

	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t seqs[3] = {9, 10, 3}, ack = 0xfffffff0u; /* the add wraps */
	for (int i = 0; i < 3; i++) {
		uint32_t len = ft_build4(f, 6, 0x01020304, 0x08080808, 1234, 80, 4);
		uint8_t *tcp = f + 34;
		ft_wr32(tcp + 4, seqs[i]);
		ft_wr32(tcp + 8, ack);
		tcp[13] = 0x10; /* ACK */
		ft_wr16(tcp + 16, 0); /* the checksum again, over the new numbers */
		uint8_t ph[12];
		memcpy(ph, f + 26, 8);
		ph[8] = 0, ph[9] = 6;
		ft_wr16(ph + 10, 24);
		ft_wr16(tcp + 16, ft_fold(ft_sum(ft_sum(0, ph, 12), tcp, 24)));
		assert_true(ft_checksums_ok(f, len));
		uint32_t olen = through(f, len, out);
		if (i == 1) { /* 10 < 10 is false: the CONTROL root misses, to the host */
			assert_int_equal(olen, 0);
			continue;
		}
		assert_int_equal(olen, len);
		assert_int_equal(ft_rd32(out + 34 + 8), ack + 314u);
		assert_int_equal(ft_rd32(out + 34 + 4), seqs[i]);
		assert_true(ft_checksums_ok(out, olen));
		memcpy(rewritten[i / 2], out, olen);
		rewritten_len[i / 2] = olen;
	}
	char txt[2048];
	assert_int_equal(tshark_lines(rewritten, rewritten_len, 2,
				      "-o tcp.check_checksum:TRUE -o tcp.relative_sequence_numbers:FALSE "
				      "-Y 'tcp.checksum.status == 1' -T fields -e tcp.ack",
				      txt, sizeof(txt)),
			 2);
	assert_string_equal(txt, "298\n298\n"); /* 0xfffffff0 + 314 modulo 2^32 */
}

/*
 * flow_fwd_miss's MODIFY_PIPE: per L3 type, COPY the IPv4 IHL into the DSCP/ECN bits,
 * or the low byte of the IPv6 payload length into the traffic class (field to field).
 */
static void test_copy_field_to_field(void **state)
{
	(void)state;
	struct doca_flow_action_desc d4 = {.type = DOCA_FLOW_ACTION_COPY}, d6 = {.type = DOCA_FLOW_ACTION_COPY};
	d4.field_op.src.field_string = "outer.ipv4.version_ihl";
	d4.field_op.dst.field_string = "outer.ipv4.dscp_ecn";
	d4.field_op.width = 4;
	d6.field_op.src.field_string = "outer.ipv6.payload_len";
	d6.field_op.dst.field_string = "outer.ipv6.traffic_class";
	d6.field_op.width = 8;
	struct doca_flow_action_descs ds4 = {.nb_action_desc = 1, .desc_array = &d4};
	struct doca_flow_action_descs ds6 = {.nb_action_desc = 1, .desc_array = &d6}, *dsa[2] = {&ds4, &ds6};
	struct doca_flow_match m = {.parser_meta = {.outer_l3_type = UINT32_MAX}};
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *p = mk_pipe("MODIFY_PIPE", DOCA_FLOW_PIPE_BASIC, true, &m, NULL, NULL, dsa, 2, &to1, NULL);
	m.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV4;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 0, NULL, NULL, NULL, 0, &status, NULL), DOCA_SUCCESS);
	m.parser_meta.outer_l3_type = DOCA_FLOW_L3_META_IPV6;
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, p, &m, 1, NULL, NULL, NULL, 0, &status, NULL), DOCA_SUCCESS);
	process(2);

	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t len = ft_udp4(f, 0x01020304, 0x08080808, 1234, 80);
	assert_int_equal(through(f, len, out), len);
	assert_int_equal(out[15], 0x05); /* IHL 5 in the low 4 bits; the rest kept */
	assert_true(ft_checksums_ok(out, len));
	memcpy(rewritten[0], out, len);
	rewritten_len[0] = len;
	len = ft_udp6(f, 7, 1234, 80);
	assert_int_equal(through(f, len, out), len);
	/* Traffic class (bits 4..11 of the first word) = payload length 16. */
	assert_int_equal(out[14], 0x61);
	assert_int_equal(out[15] & 0xf0, 0x00);
	assert_true(ft_udp6_checksum_ok(out));
	memcpy(rewritten[1], out, len);
	rewritten_len[1] = len;
	char txt[2048];
	assert_int_equal(tshark_lines(rewritten, rewritten_len, 2,
				      "-o ip.check_checksum:TRUE -T fields -e ip.dsfield -e ipv6.tclass", txt, sizeof(txt)),
			 2);
	assert_string_equal(txt, "0x05\t\n\t0x00000010\n");
}

/* One CONTROL root entry "udp.dst_port OP 100" (or "src_port OP dst_port"), fwd port 1:
 * which of dst ports 99, 100, 101 (src port 100) get through, as a bit mask. */
static unsigned cond_pass(enum doca_flow_compare_op op, bool two_fields)
{
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1}, drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe *p = mk_pipe("COND", DOCA_FLOW_PIPE_CONTROL, true, NULL, NULL, NULL, NULL, 0, NULL, &drop);
	struct doca_flow_match_condition c;
	memset(&c, 0, sizeof(c));
	c.operation = op;
	c.field_op.a.field_string = two_fields ? "outer.udp.src_port" : "outer.udp.dst_port";
	c.field_op.b.field_string = two_fields ? "outer.udp.dst_port" : NULL;
	c.field_op.width = 16;
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.outer.l4_type_ext = DOCA_FLOW_L4_TYPE_EXT_UDP;
	m.outer.udp.l4_port.dst_port = two_fields ? 0 : DOCA_HTOBE16(100);
	struct doca_flow_pipe_entry *e = NULL;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, &c, NULL, NULL, NULL, NULL, 0, &to1, &status,
							  &e),
			 DOCA_SUCCESS);
	process(1);
	unsigned pass = 0;
	for (unsigned i = 0; i < 3; i++) {
		uint8_t f[128], out[FLOWDPA_MAX_FRAME];
		uint32_t len = ft_udp4(f, 0x01020304, 0x08080808, two_fields ? 100 : 5, (uint16_t)(99 + i));
		if (through(f, len, out) == len)
			pass |= 1u << i;
	}
	doca_flow_pipe_destroy(p);
	return pass;
}

static void test_conditions(void **state)
{
	(void)state;
	/* Bit i: dst port 99 + i passed (a against the constant 100; or src 100 against dst). */
	static const struct {
		enum doca_flow_compare_op op;
		unsigned vs_const, vs_field;
	} want[] = {
		{DOCA_FLOW_COMPARE_EQ, 0x2, 0x2}, {DOCA_FLOW_COMPARE_NE, 0x5, 0x5}, {DOCA_FLOW_COMPARE_LT, 0x1, 0x4},
		{DOCA_FLOW_COMPARE_LE, 0x3, 0x6}, {DOCA_FLOW_COMPARE_GT, 0x4, 0x1}, {DOCA_FLOW_COMPARE_GE, 0x6, 0x3},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(cond_pass(want[i].op, false), want[i].vs_const);
		assert_int_equal(cond_pass(want[i].op, true), want[i].vs_field);
	}
}

/* A condition on a field of a header the frame lacks never holds: the entry misses. */
static void test_condition_absent_header(void **state)
{
	(void)state;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1}, drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe *p = mk_pipe("COND_TCP", DOCA_FLOW_PIPE_CONTROL, true, NULL, NULL, NULL, NULL, 0, NULL,
					   &drop);
	struct doca_flow_match_condition c;
	memset(&c, 0, sizeof(c));
	c.operation = DOCA_FLOW_COMPARE_GE;
	c.field_op.a.field_string = "outer.tcp.seq_num";
	c.field_op.width = 32;
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, NULL, NULL, &c, NULL, NULL, NULL, NULL, 0, &to1,
							  &status, NULL),
			 DOCA_SUCCESS);
	process(1);
	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t len = ft_udp4(f, 0x01020304, 0x08080808, 1, 2); /* seq >= 0 holds for any TCP frame */
	assert_int_equal(through(f, len, out), 0);
	len = ft_build4(f, 6, 0x01020304, 0x08080808, 1, 2, 0);
	assert_int_equal(through(f, len, out), len);
}

/* flow_lpm_em: the low 8 bits of the VLAN TCI into meta u32[1], matched by the next pipe. */
static void test_copy_vlan_tci_to_meta(void **state)
{
	(void)state;
	struct doca_flow_pipe *next = meta_match_pipe(0, 0x34);
	struct doca_flow_action_desc d = {.type = DOCA_FLOW_ACTION_COPY};
	d.field_op.src.field_string = "outer.eth_vlan0.tci";
	d.field_op.dst.field_string = "meta.data";
	d.field_op.dst.bit_offset = META_U32_BIT_OFFSET(1);
	d.field_op.width = 8;
	struct doca_flow_action_descs ds = {.nb_action_desc = 1, .desc_array = &d}, *dsa[1] = {&ds};
	struct doca_flow_fwd to_next = {.type = DOCA_FLOW_FWD_PIPE, .next_pipe = next};
	struct doca_flow_pipe *root = mk_pipe("COPY_TCI", DOCA_FLOW_PIPE_BASIC, true, NULL, NULL, NULL, dsa, 1, &to_next,
					      NULL);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);
	process(2);
	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t len = ft_vlan_push(f, ft_udp4(f, 0x01020304, 0x08080808, 1, 2), 0x1234);
	assert_int_equal(through(f, len, out), len);
	assert_memory_equal(out, f, len);
	len = ft_vlan_push(f, ft_udp4(f, 0x01020304, 0x08080808, 1, 2), 0x1235);
	assert_int_equal(through(f, len, out), 0);
	len = ft_udp4(f, 0x01020304, 0x08080808, 1, 2); /* untagged: no TCI, meta stays 0 */
	assert_int_equal(through(f, len, out), 0);
}

/* flow_ipv6_flow_label: meta bits 0..19 (pkt_meta, set by the same template) into the
 * IPv6 flow label; then a 128-bit COPY of the source address onto the destination,
 * whose UDP checksum (pseudo-header) stays valid. */
static void test_ipv6_flow_label_and_address(void **state)
{
	(void)state;
	struct doca_flow_action_desc d[2] = {{.type = DOCA_FLOW_ACTION_COPY}, {.type = DOCA_FLOW_ACTION_COPY}};
	d[0].field_op.src.field_string = "meta.data";
	d[0].field_op.dst.field_string = "outer.ipv6.flow_label";
	d[0].field_op.width = 20;
	d[1].field_op.src.field_string = "outer.ipv6.src_ip";
	d[1].field_op.dst.field_string = "outer.ipv6.dst_ip";
	d[1].field_op.width = 128;
	struct doca_flow_action_descs ds = {.nb_action_desc = 2, .desc_array = d}, *dsa[1] = {&ds};
	struct doca_flow_actions a, *aa[1] = {&a};
	memset(&a, 0, sizeof(a));
	a.meta.pkt_meta = DOCA_HTOBE32(0xfabcde); /* the flow label takes the low 20 bits */
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1};
	struct doca_flow_pipe *root = mk_pipe("FLOW_LABEL", DOCA_FLOW_PIPE_BASIC, true, NULL, NULL, aa, dsa, 1, &to1,
					      NULL);
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	assert_int_equal(doca_flow_pipe_basic_add_entry(0, root, &m, 0, NULL, NULL, NULL, 0, &status, NULL),
			 DOCA_SUCCESS);
	process(1);
	uint8_t f[128], out[FLOWDPA_MAX_FRAME];
	uint32_t len = ft_udp6(f, 9, 1000, 2000);
	assert_int_equal(through(f, len, out), len);
	assert_int_equal(ft_rd32(out + 14) & 0xfffff, 0xabcde);
	assert_int_equal(ft_rd32(out + 14) >> 20, 0x600); /* version 6, traffic class 0 kept */
	assert_memory_equal(out + 14 + 24, f + 14 + 8, 16);
	assert_true(ft_udp6_checksum_ok(out));
	memcpy(rewritten[0], out, len);
	rewritten_len[0] = len;
	char txt[2048];
	assert_int_equal(tshark_lines(rewritten, rewritten_len, 1,
				      "-o udp.check_checksum:TRUE -Y 'udp.checksum.status == 1' -T fields "
				      "-e ipv6.flow -e ipv6.dst",
				      txt, sizeof(txt)),
			 1);
	unsigned label = 0;
	char dst[64] = "";
	assert_int_equal(sscanf(txt, "%x\t%63s", &label, dst), 2);
	assert_int_equal(label, 0xabcde);
	assert_string_equal(dst, "2001::1");
}

/* flow_esp (condition part): ESP sequence numbers above 3 pass, the others miss. */
static void test_esp_sn_condition(void **state)
{
	(void)state;
	struct doca_flow_fwd to1 = {.type = DOCA_FLOW_FWD_PORT, .port_id = 1}, drop = {.type = DOCA_FLOW_FWD_DROP};
	struct doca_flow_pipe *p = mk_pipe("ESP_SN", DOCA_FLOW_PIPE_CONTROL, true, NULL, NULL, NULL, NULL, 0, NULL, &drop);
	struct doca_flow_match_condition c;
	memset(&c, 0, sizeof(c));
	c.operation = DOCA_FLOW_COMPARE_GT;
	c.field_op.a.field_string = "tunnel.esp.sn";
	c.field_op.width = 32;
	struct doca_flow_match m;
	memset(&m, 0, sizeof(m));
	m.tun.esp_sn = DOCA_HTOBE32(3);
	assert_int_equal(doca_flow_pipe_control_add_entry(0, p, &m, NULL, &c, NULL, NULL, NULL, NULL, 0, &to1, &status,
							  NULL),
			 DOCA_SUCCESS);
	process(1);
	for (uint32_t sn = 2; sn <= 5; sn++) {
		uint8_t f[128], out[FLOWDPA_MAX_FRAME];
		uint32_t len = ft_build4(f, 17, 0x01020304, 0x08080808, 0, 0, 8); /* then made ESP */
		f[14 + 9] = 50;
		ft_wr16(f + 14 + 10, 0);
		ft_wr16(f + 14 + 10, ft_fold(ft_sum(0, f + 14, 20)));
		ft_wr32(f + 34, 0x1000);
		ft_wr32(f + 38, sn);
		assert_int_equal(through(f, len, out), sn > 3 ? len : 0);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s TSHARK WORKDIR\n", argv[0]);
		return 2;
	}
	tshark = argv[1];
	workdir = argv[2];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copy_mac_to_meta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_to_meta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match_comparison, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_ttl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_seq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_field_to_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conditions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_condition_absent_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_vlan_tci_to_meta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_flow_label_and_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_esp_sn_condition, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
