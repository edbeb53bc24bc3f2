/*
 * test_dpa_handle.c - the handle tables behind device handles (src/dpa/dpa_handle.c),
 * compiled into this test with the wake words (dpa_wake.c): publish, lookup, stale
 * handles after unpublish, and an unpublish that times out while a lookup still holds
 * the slot, which must give the slot back to its object under the table lock so that no
 * publish can take it (and no handle of it turns stale) in between.
 */

#include "dpa/dpa_internal.h"

#include "dpa_test_util.h"

/* What dpa_handle.c needs from the rest of the runtime (dpa_launch.c). */
__thread struct dpa_exec *dpa_exec_current __attribute__((tls_model("initial-exec")));

#define TAG 0x4200000000000000ULL

static void test_publish_lookup_unpublish(void **state)
{
	(void)state;
	DPA_HTAB_DEFINE(tab, TAG, 2);
	int a, b, c;
	uint32_t sa, sb, sc, s;
	uint64_t ha, hb, hc;

	assert_true(dpa_htab_publish(&tab, &a, &sa, &ha));
	assert_true(dpa_htab_publish(&tab, &b, &sb, &hb));
	assert_false(dpa_htab_publish(&tab, &c, &sc, &hc)); /* full */
	assert_true(sa != sb && ha != hb && (ha & 0xff00000000000000ULL) == TAG);
	assert_ptr_equal(dpa_htab_get(&tab, ha, &s), &a);
	assert_int_equal(s, sa);
	dpa_htab_put(&tab, s);
	assert_null(dpa_htab_get(&tab, 0x1234, &s));			/* forged tag */
	assert_null(dpa_htab_get(&tab, TAG | 7, &s));			/* slot out of range */
	assert_true(dpa_htab_unpublish(&tab, sa, 100));
	assert_null(dpa_htab_get(&tab, ha, &s));			/* stale */
	assert_true(dpa_htab_publish(&tab, &c, &sc, &hc));		/* the slot is reused ... */
	assert_int_equal(sc, sa);
	assert_true(hc != ha);						/* ... with a new generation */
	assert_null(dpa_htab_get(&tab, ha, &s));
	assert_ptr_equal(dpa_htab_get(&tab, hc, &s), &c);
	dpa_htab_put(&tab, s);
}

/*
 * A lookup holds a's slot across the whole unpublish wait: unpublish reports false and
 * a is published again with its old handle. When the lookup then ends, a publish finds
 * the (one-slot) table full instead of taking a's slot, and a's handle still reaches a.
 */
static void test_unpublish_timeout_restores_slot(void **state)
{
	(void)state;
	DPA_HTAB_DEFINE(tab, TAG, 1);
	int a, b;
	uint32_t sa, sb, s;
	uint64_t ha, hb;

	assert_true(dpa_htab_publish(&tab, &a, &sa, &ha));
	assert_ptr_equal(dpa_htab_get(&tab, ha, &s), &a); /* a device call in progress */
	assert_false(dpa_htab_unpublish(&tab, sa, 20));
	/* Restored before unpublish returned: a's handle is valid again. */
	uint32_t s2;

	assert_ptr_equal(dpa_htab_get(&tab, ha, &s2), &a);
	dpa_htab_put(&tab, s2);
	dpa_htab_put(&tab, s); /* the device call ends: the slot has no users now */
	assert_false(dpa_htab_publish(&tab, &b, &sb, &hb)); /* still a's */
	assert_ptr_equal(dpa_htab_get(&tab, ha, &s), &a);
	dpa_htab_put(&tab, s);
	/* A second unpublish, with no users, succeeds and frees the slot. */
	assert_true(dpa_htab_unpublish(&tab, sa, 20));
	assert_null(dpa_htab_get(&tab, ha, &s));
	assert_true(dpa_htab_publish(&tab, &b, &sb, &hb));
	assert_ptr_equal(dpa_htab_get(&tab, hb, &s), &b);
	dpa_htab_put(&tab, s);
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_publish_lookup_unpublish),
		cmocka_unit_test(test_unpublish_timeout_restores_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
