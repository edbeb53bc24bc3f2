/*
 * test_parse_meta.c - key word 12 of the NIC parser (random value, VXLAN and IP-in-IP
 * inner meta, checksum verdicts) and the length checks behind l3_ok/l4_ok: off until a mask asks for it, then computed on every frame, the
 * other words unchanged; FLOWDPA_RANDOM_SEED (set by meson.build) repeats the random
 * sequence at each reseed. Its own
 * process: turning the extras on is sticky and would slow test_nic's fast-path tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <nic/nic.h>
#include <nic/nic_internal.h>

#include "frames.h"

static uint16_t key_random(const struct nic_key *k)
{
	return ft_rd16(k->b + NIC_K_RANDOM);
}

/* Off by default: word 12 zero and the fast parse in use; on: the other words stay. */
static void test_extras_off_then_on(void **state)
{
	(void)state;
	uint8_t f[128];
	uint32_t len = ft_udp4(f, 1, 2, 3, 4);
	struct nic_key before, after, m;
	assert_int_equal(atomic_load(&nic_parse_extras), 0);
	assert_true(nic_parse_fast(f, len, 1, &before, NULL));
	assert_true(nic_parse(f, len, 1, &before, NULL));
	assert_int_equal(before.w[12], 0);

	/* A mask outside word 12 changes nothing. */
	memset(&m, 0, sizeof(m));
	m.b[NIC_K_IP_DST] = 0xff;
	nic_parse_extras_note(&m);
	assert_int_equal(atomic_load(&nic_parse_extras), 0);

	memset(&m, 0, sizeof(m));
	m.b[NIC_K_XBITS] = 1u << NIC_XB_OUTER_L4_CSUM_OK;
	nic_parse_extras_note(&m);
	assert_int_not_equal(atomic_load(&nic_parse_extras), 0);
	assert_false(nic_parse_fast(f, len, 1, &after, NULL)); /* the general parser fills word 12 */
	assert_true(nic_parse(f, len, 1, &after, NULL));
	assert_memory_equal(before.b, after.b, 96);
	assert_int_equal(after.b[NIC_K_XBITS], 1u << NIC_XB_OUTER_IP4_CSUM_OK | 1u << NIC_XB_OUTER_L4_CSUM_OK);
	assert_int_equal(key_random(&after), 0); /* random not asked for */
}

/* With a seed, each reseed (a new pipe matching on random) repeats the sequence; the
 * values vary per packet and cover both values of every bit. */
static void test_random_seeded(void **state)
{
	(void)state;
	uint8_t f[128];
	uint32_t len = ft_udp4(f, 1, 2, 3, 4);
	struct nic_key k, m;
	enum { N = 2000 };
	static uint16_t seq[2][N];
	memset(&m, 0, sizeof(m));
	m.b[NIC_K_RANDOM + 1] = 1;
	for (int run = 0; run < 2; run++) {
		nic_parse_extras_note(&m);
		for (int i = 0; i < N; i++) {
			assert_true(nic_parse(f, len, 0, &k, NULL));
			seq[run][i] = key_random(&k);
		}
	}
	assert_memory_equal(seq[0], seq[1], sizeof(seq[0]));
	uint32_t ones[16] = {0}, distinct_next = 0;
	for (int i = 0; i < N; i++) {
		for (int b = 0; b < 16; b++)
			ones[b] += seq[0][i] >> b & 1;
		distinct_next += i > 0 && seq[0][i] != seq[0][i - 1];
	}
	for (int b = 0; b < 16; b++)
		assert_in_range(ones[b], N / 2 - 150, N / 2 + 150); /* sd 22 */
	assert_true(distinct_next > N - 10);

	/* FLOWDPA_RANDOM_SEED came through core_config (meson.build sets it). */
	const struct core_config *cfg = core_config_get();
	assert_non_null(cfg);
	assert_true(cfg->has_random_seed);
	assert_int_equal(cfg->random_seed, 4660);
}

/* Checksum verdicts on IPv4 and IPv6, good and bad; IPv6 UDP without checksum is bad. */
static void test_checksums(void **state)
{
	(void)state;
	uint8_t f[160];
	struct nic_key k, m;
	memset(&m, 0, sizeof(m));
	m.b[NIC_K_XBITS] = 1u << NIC_XB_OUTER_IP4_CSUM_OK;
	nic_parse_extras_note(&m);
	const uint8_t both = 1u << NIC_XB_OUTER_IP4_CSUM_OK | 1u << NIC_XB_OUTER_L4_CSUM_OK;

	uint32_t len = ft_build4(f, 6, 7, 8, 9, 10, 33);
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_XBITS], both);
	f[len - 1] ^= 1; /* payload byte: the TCP checksum fails */
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_XBITS], 1u << NIC_XB_OUTER_IP4_CSUM_OK);

	len = ft_udp6(f, 3, 1000, 2000);
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_XBITS], 1u << NIC_XB_OUTER_L4_CSUM_OK); /* no IPv4 header */
	f[54 + 6] = f[54 + 7] = 0;
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_XBITS], 0);

	/* A VLAN tag in front: the same verdicts. */
	len = ft_udp4(f, 1, 2, 3, 4);
	len = ft_vlan_push(f, len, 7);
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_XBITS], both);
	/* Truncated IPv4 header: neither. */
	assert_true(nic_parse(f, 18 + 19, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_XBITS], 0);
}

/* The outer l3_ok / l4_ok of frame f[0..len), parsed both ways (nic_parse and the
 * general parser agree; the fast shape takes only a frame whose lengths are all valid). */
static void oks(const uint8_t *f, uint32_t len, uint8_t l3_ok, uint8_t l4_ok)
{
	struct nic_key k, g;
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_true(nic_parse_general(f, len, 0, &g, NULL));
	assert_memory_equal(k.b, g.b, NIC_K_RANDOM); /* word 12's random differs per packet */
	assert_memory_equal(k.b + NIC_K_RANDOM + 2, g.b + NIC_K_RANDOM + 2, sizeof(k.b) - NIC_K_RANDOM - 2);
	assert_int_equal(k.b[NIC_K_L3_OK], l3_ok);
	assert_int_equal(k.b[NIC_K_L4_OK], l4_ok);
	if (!(l3_ok && l4_ok))
		assert_int_equal(nic_fast_shape(f, len), 0);
}

/* The length checks behind l3_ok and l4_ok, one bad length at a time on real frames:
 * IPv4 total length under the header or beyond the frame, IPv6 payload length beyond
 * the frame, TCP data offset under 5 or beyond the frame, UDP length under 8 or beyond
 * the frame. Ethernet padding (a total length under the frame's) stays ok. The header
 * fields stay readable (the ports are still in the key). */
static void test_length_oks(void **state)
{
	(void)state;
	uint8_t f[160];
	struct nic_key k;
	uint32_t len = ft_udp4(f, 1, 2, 3, 4);
	oks(f, len, 1, 1);
	assert_int_not_equal(nic_fast_shape(f, len), 0);
	ft_wr16(f + 16, 10); /* IPv4 total length 10 < 20 */
	oks(f, len, 0, 1);
	ft_wr16(f + 16, (uint16_t)(len - 14 + 1)); /* one byte beyond the frame */
	oks(f, len, 0, 1);
	ft_wr16(f + 16, (uint16_t)(len - 14 - 4)); /* padding after the packet: fine */
	ft_wr16(f + 38, (uint16_t)(len - 34 - 4));
	oks(f, len, 1, 1);
	assert_int_not_equal(nic_fast_shape(f, len), 0);

	len = ft_udp4(f, 1, 2, 3, 4);
	ft_wr16(f + 38, 4); /* UDP length 4 < 8 */
	oks(f, len, 1, 0);
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(ft_rd16(k.b + NIC_K_L4_DST), 4);
	ft_wr16(f + 38, (uint16_t)(len - 34 + 1));
	oks(f, len, 1, 0);

	len = ft_build4(f, 6, 1, 2, 3, 4, 8);
	oks(f, len, 1, 1);
	f[46] = 2 << 4; /* TCP data offset 2 words */
	oks(f, len, 1, 0);
	f[46] = 15 << 4; /* 60 bytes: beyond this 62-byte frame's 28 TCP bytes */
	oks(f, len, 1, 0);
	f[46] = 7 << 4; /* 28 bytes: exactly the frame's */
	oks(f, len, 1, 1);

	len = ft_udp6(f, 3, 1000, 2000);
	oks(f, len, 1, 1);
	ft_wr16(f + 18, 9999); /* IPv6 payload length 9999 */
	oks(f, len, 0, 1);
	ft_wr16(f + 18, 16);
	ft_wr16(f + 54 + 4, 4);
	oks(f, len, 1, 0);
}

/* IP in IP (protocol 4 or 41) has an inner packet: its types and ok bits, lengths
 * checked as the outer ones; the outer L4 type is none. */
static void test_ip_in_ip(void **state)
{
	(void)state;
	uint8_t in[160], f[200];
	struct nic_key k, m;
	memset(&m, 0, sizeof(m));
	m.b[NIC_K_INNER_L3_META] = 0xff;
	nic_parse_extras_note(&m);
	const uint8_t ok34 = 1u << NIC_XB_INNER_L3_OK | 1u << NIC_XB_INNER_L4_OK;
	for (int v6 = 0; v6 < 2; v6++) {
		uint32_t n = v6 ? ft_udp6(in, 3, 1000, 2000) : ft_build4(in, 6, 5, 6, 7, 8, 4);
		/* Outer Eth/IPv4 (protocol 4 or 41) around the inner IP packet in + 14. */
		uint32_t len = ft_build4(f, 17, 1, 2, 3, 4, 0);
		f[14 + 9] = v6 ? 41 : 4;
		memcpy(f + 34, in + 14, n - 14);
		len = 34 + n - 14;
		ft_wr16(f + 16, (uint16_t)(len - 14));
		assert_true(nic_parse(f, len, 0, &k, NULL));
		assert_int_equal(k.b[NIC_K_L4_META], NIC_L4_META_NONE);
		assert_int_equal(k.b[NIC_K_L3_OK], 1);
		assert_int_equal(k.b[NIC_K_INNER_L2_META], NIC_L2_META_NO_VLAN);
		assert_int_equal(k.b[NIC_K_INNER_L3_META], v6 ? NIC_L3_META_IPV6 : NIC_L3_META_IPV4);
		assert_int_equal(k.b[NIC_K_INNER_L4_META], v6 ? NIC_L4_META_UDP : NIC_L4_META_TCP);
		assert_int_equal(k.b[NIC_K_XBITS] & ok34, ok34);
		if (v6)
			ft_wr16(f + 34 + 4, 9999); /* inner IPv6 payload length */
		else
			ft_wr16(f + 34 + 2, 10); /* inner IPv4 total length */
		assert_true(nic_parse(f, len, 0, &k, NULL));
		assert_int_equal(k.b[NIC_K_XBITS] & ok34, 1u << NIC_XB_INNER_L4_OK);
		assert_int_equal(k.b[NIC_K_L3_OK], 1); /* the outer lengths are fine */
	}
	/* Protocol 4 over IPv6 too. */
	uint32_t n = ft_udp4(in, 1, 2, 3, 4);
	uint32_t len = ft_udp6(f, 3, 1000, 2000);
	f[14 + 6] = 4;
	memcpy(f + 54, in + 14, n - 14);
	len = 54 + n - 14;
	ft_wr16(f + 18, (uint16_t)(len - 54));
	assert_true(nic_parse(f, len, 0, &k, NULL));
	assert_int_equal(k.b[NIC_K_INNER_L3_META], NIC_L3_META_IPV4);
	assert_int_equal(k.b[NIC_K_INNER_L4_META], NIC_L4_META_UDP);
	assert_int_equal(k.b[NIC_K_XBITS] & ok34, ok34);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extras_off_then_on),
		cmocka_unit_test(test_random_seeded),
		cmocka_unit_test(test_checksums),
		cmocka_unit_test(test_length_oks),
		cmocka_unit_test(test_ip_in_ip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
