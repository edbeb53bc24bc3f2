/*
 * test_flow_match_scan.c - the coverage scan of every BASIC add (flow_match.c): each
 * vector width this CPU has gives a byte-by-byte reference's answer, on single bytes at
 * every offset and on random matches and masks, and reads nothing past the match (the
 * match is a heap object of its exact size, for ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <flow/flow_internal.h>

#define MASK_BYTES ((sizeof(struct doca_flow_match) + 31) / 32 * 32)

static bool reference(const uint8_t *m, const uint8_t *mask)
{
	for (size_t i = 0; i < sizeof(struct doca_flow_match); i++)
		if (m[i] & mask[i])
			return true;
	return false;
}

/* The widths to check: 128 always, and the CPU's widest. */
static unsigned widths(unsigned w[2])
{
	w[0] = 128;
	w[1] = flow_match_simd_bits();
	return w[1] == 128 ? 1 : 2;
}

static void test_single_bytes(void **state)
{
	(void)state;
	uint8_t *m = calloc(1, sizeof(struct doca_flow_match));
	uint8_t mask[MASK_BYTES];
	assert_non_null(m);
	unsigned w[2], nw = widths(w);
	print_message("widths: 128%s\n", nw == 2 ? " and 256 (AVX2)" : " only");
	for (unsigned k = 0; k < nw; k++) {
		memset(mask, 0xff, sizeof(mask));
		assert_false(flow_match_uncovered_any(m, mask, w[k]));
		for (size_t i = 0; i < sizeof(struct doca_flow_match); i++) {
			m[i] = 0x81;
			assert_true(flow_match_uncovered_any(m, mask, w[k]));
			mask[i] = 0x7e; /* the other bits only */
			assert_false(flow_match_uncovered_any(m, mask, w[k]));
			mask[i] = 0x01;
			assert_true(flow_match_uncovered_any(m, mask, w[k]));
			mask[i] = 0xff;
			m[i] = 0;
		}
		/* Mask bytes past the match are not the match's. */
		memset(mask, 0, sizeof(mask));
		memset(mask + sizeof(struct doca_flow_match), 0xff, MASK_BYTES - sizeof(struct doca_flow_match));
		memset(m, 0xff, sizeof(struct doca_flow_match));
		assert_false(flow_match_uncovered_any(m, mask, w[k]));
		memset(m, 0, sizeof(struct doca_flow_match));
	}
	free(m);
}

static void test_random(void **state)
{
	(void)state;
	uint8_t *m = malloc(sizeof(struct doca_flow_match));
	uint8_t mask[MASK_BYTES];
	assert_non_null(m);
	unsigned w[2], nw = widths(w), hits = 0;
	uint32_t x = 12345;
	for (int round = 0; round < 4000; round++) {
		/* Sparse bytes in both, so that some rounds overlap and some do not. */
		for (size_t i = 0; i < sizeof(struct doca_flow_match); i++) {
			x = x * 1664525u + 1013904223u;
			m[i] = (x >> 24) % 97 == 0 ? (uint8_t)(x >> 8) : 0;
		}
		for (size_t i = 0; i < sizeof(mask); i++) {
			x = x * 1664525u + 1013904223u;
			mask[i] = (x >> 24) % 3 == 0 ? (uint8_t)(x >> 8) : 0;
		}
		bool want = reference(m, mask);
		hits += want;
		for (unsigned k = 0; k < nw; k++)
			assert_int_equal(flow_match_uncovered_any(m, mask, w[k]), want);
	}
	/* Both answers were exercised. */
	assert_true(hits > 400 && hits < 3600);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_bytes),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
