/*
 * test_parse_meta.c - key word 12 of the NIC parser (random value, VXLAN inner meta,
 * checksum verdicts): off until a mask asks for it, then computed on every frame, the
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extras_off_then_on),
		cmocka_unit_test(test_random_seeded),
		cmocka_unit_test(test_checksums),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
