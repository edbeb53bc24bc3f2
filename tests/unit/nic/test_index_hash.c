/*
 * test_index_hash.c - the HASH pipe index hash (src/nic/index_hash.h): known answers of
 * the hardware's function (DPDK mlx5 HWS mlx5dr_rule_hash_calculate: reflected CRC-32
 * from 0 over the match tag, read big-endian), computed independently, bit by bit, with
 * the tag layout that header documents; the distributions NVIDIA's flow_ecmp and
 * flow_hash_pipe samples expect on hardware, from real parsed frames; and that bits
 * outside the mask do not count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <nic/nic.h>

#include "frames.h"

static void mask_dw(struct nic_key *mask, uint32_t off, uint32_t m)
{
	ft_wr32(mask->b + off, m);
}

/* One header word: the 32-byte match tag with it at bytes 20..23. */
static void test_known_answer_one_word(void **state)
{
	(void)state;
	struct nic_key k, mask;
	memset(&k, 0, sizeof(k));
	memset(&mask, 0, sizeof(mask));
	mask_dw(&mask, NIC_K_IP6_FLOW, 0x000fffff);
	ft_wr32(k.b + NIC_K_IP6_FLOW, 0x12345);
	assert_int_equal(nic_key_hash(&k, &mask), 0x5b21e1f1u);
	/* All zero: the CRC from 0 of zeros. */
	memset(&k, 0, sizeof(k));
	assert_int_equal(nic_key_hash(&k, &mask), 0);
}

/* Two words in key order (IPv4 source, then destination), and seven (the 44-byte tag). */
static void test_known_answer_several_words(void **state)
{
	(void)state;
	struct nic_key k, mask;
	memset(&k, 0, sizeof(k));
	memset(&mask, 0, sizeof(mask));
	mask_dw(&mask, NIC_K_IP_SRC, 0xffffffff);
	mask_dw(&mask, NIC_K_IP_DST, 0xffffffff);
	ft_wr32(k.b + NIC_K_IP_SRC, 0x01020304);
	ft_wr32(k.b + NIC_K_IP_DST, 0x05060708);
	assert_int_equal(nic_key_hash(&k, &mask), 0xe86f7f12u);

	static const uint32_t offs[7] = {NIC_K_IP_SRC, NIC_K_IP_SRC + 4, NIC_K_IP_SRC + 8, NIC_K_IP_SRC + 12,
					 NIC_K_IP_DST, NIC_K_IP_DST + 4, NIC_K_IP6_FLOW};
	memset(&k, 0, sizeof(k));
	memset(&mask, 0, sizeof(mask));
	for (uint32_t i = 0; i < 7; i++) {
		mask_dw(&mask, offs[i], 0xffffffff);
		ft_wr32(k.b + offs[i], i + 1);
	}
	assert_int_equal(nic_key_hash(&k, &mask), 0x8206ce79u);
}

/* Key bits outside the mask change nothing; a masked bit does. */
static void test_mask_only(void **state)
{
	(void)state;
	struct nic_key a, b, mask;
	memset(&a, 0x11, sizeof(a));
	memset(&b, 0x11, sizeof(b));
	memset(&mask, 0, sizeof(mask));
	mask_dw(&mask, NIC_K_IP6_FLOW, 0x000fffff);
	b.b[NIC_K_IP6_FLOW] = 0xff; /* bits above the flow label */
	b.b[NIC_K_L4_SRC] = 0x22;
	assert_int_equal(nic_key_hash(&a, &mask), nic_key_hash(&b, &mask));
	b.b[NIC_K_IP6_FLOW + 3] ^= 1;
	assert_int_not_equal(nic_key_hash(&a, &mask), nic_key_hash(&b, &mask));
}

/* flow_ecmp: 4 entries over the IPv6 flow label; the yaml's frames go to entries 3..0. */
static void test_ecmp_distribution(void **state)
{
	(void)state;
	static const struct {
		uint32_t fl, index;
	} want[] = {{0x00001, 3}, {0x55555, 2}, {0xaaaaa, 1}, {0xffffe, 0}};
	struct nic_key mask;
	memset(&mask, 0, sizeof(mask));
	mask_dw(&mask, NIC_K_IP6_FLOW, 0x000fffff);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint8_t f[128];
		uint32_t len = ft_udp6(f, 2, 1000, 2000);
		uint8_t *ip = f + 14;
		ip[1] = (uint8_t)((ip[1] & 0xf0) | (want[i].fl >> 16));
		ip[2] = (uint8_t)(want[i].fl >> 8);
		ip[3] = (uint8_t)want[i].fl;
		struct nic_key k;
		assert_true(nic_parse(f, len, 0, &k, NULL));
		assert_int_equal(nic_key_hash(&k, &mask) & 3, want[i].index);
	}
}

/* flow_hash_pipe: 2 entries over the IPv4 destination; 8.8.8.8 -> 0, 8.8.8.9 -> 1. */
static void test_hash_pipe_distribution(void **state)
{
	(void)state;
	struct nic_key mask;
	memset(&mask, 0, sizeof(mask));
	mask_dw(&mask, NIC_K_IP_DST, 0xffffffff);
	for (uint32_t last = 8; last <= 9; last++) {
		uint8_t f[128];
		uint32_t len = ft_udp4(f, 0x01020304, 0x08080800 | last, 1000, 2000);
		struct nic_key k;
		assert_true(nic_parse(f, len, 0, &k, NULL));
		assert_int_equal(nic_key_hash(&k, &mask) & 1, last - 8);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answer_one_word),
		cmocka_unit_test(test_known_answer_several_words),
		cmocka_unit_test(test_mask_only),
		cmocka_unit_test(test_ecmp_distribution),
		cmocka_unit_test(test_hash_pipe_distribution),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
