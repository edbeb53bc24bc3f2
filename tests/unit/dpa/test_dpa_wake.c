/*
 * test_dpa_wake.c - the wake words of src/dpa/dpa_wake.c, compiled into this test: a
 * wake reaches the sleepers of its own word and not those of another, a snapshot taken
 * before the wake makes the later wait return at once (no lost wake-up), and the
 * broadcast reaches a sleeper whatever word it sleeps on, including one that checked its
 * condition just before the broadcast and registered just after (many rounds of that
 * race, none may hang: the sleeps have no timeout, a hang is the test's timeout).
 * Also the spin record of dpa_spin (by counting condition checks, not by timing): warm
 * sites spin until their condition holds, misses make a site cold, a cold site checks
 * once and sleeps but for a probe every DPA_SPIN_PROBE_EVERY waits, and a probe that
 * succeeds warms it again; and waiters that spin and waiters that sleep on one word
 * are all woken by one update (many rounds, none may hang).
 */
#include <pthread.h>
#include <sched.h>

#include "dpa/dpa_internal.h"

#include "dpa_test_util.h"

struct sleeper {
	struct dpa_wake *w;
	atomic_bool *flag; /* the condition the sleeper waits for */
	uint64_t timeout_us;
	atomic_bool done;
	unsigned int returns; /* times dpa_wake_wait returned */
};

/* Sleep on s->w until *s->flag, as the runtime's waiters do (snapshot, check, wait). */
static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	uint64_t end = dpa_now_us() + s->timeout_us;

	for (;;) {
		struct dpa_wake_snap snap = dpa_wake_snapshot(s->w);
		uint64_t now = dpa_now_us();

		if (atomic_load(s->flag) || (s->timeout_us && now >= end))
			break;
		/* A bounded sleeper sleeps the rest of its time: more than one return means
		 * it was woken early. */
		dpa_wake_wait(s->w, snap, s->timeout_us ? end - now : 0);
		s->returns++;
	}
	atomic_store(&s->done, true);
	return NULL;
}

/* Until s sleeps on its word (or already left: a stalled machine may outlast its timeout). */
static void wait_sleeping(struct sleeper *s)
{
	while (atomic_load(&s->w->sleepers) == 0 && !atomic_load(&s->done))
		sched_yield();
}

static void test_wake_own_word_only(void **state)
{
	(void)state;
	struct dpa_wake a = {0}, b = {0};
	atomic_bool flag_a = false, flag_b = false;
	struct sleeper sa = {.w = &a, .flag = &flag_a}, sb = {.w = &b, .flag = &flag_b, .timeout_us = 500000};
	pthread_t ta, tb;

	assert_int_equal(pthread_create(&ta, NULL, sleeper_main, &sa), 0);
	assert_int_equal(pthread_create(&tb, NULL, sleeper_main, &sb), 0);
	wait_sleeping(&sa);
	wait_sleeping(&sb);
	atomic_store(&flag_a, true);
	dpa_wake(&a); /* sa wakes; sb (another word) sleeps on until its timeout */
	assert_int_equal(pthread_join(ta, NULL), 0);
	assert_true(atomic_load(&sa.done));
	assert_int_equal(pthread_join(tb, NULL), 0);
	/* sb's sleep ended by its timeout only, and it slept once: a's wake did not reach it
	 * (with one word for all, it would have returned early, the flag still unset). */
	assert_int_equal(sb.returns, 1);
	assert_true(sb.w == &b);
	assert_int_equal(atomic_load(&a.sleepers), 0);
	assert_int_equal(atomic_load(&b.sleepers), 0);
}

static void test_wake_before_wait_not_lost(void **state)
{
	(void)state;
	struct dpa_wake w = {0};
	struct dpa_wake_snap snap = dpa_wake_snapshot(&w);
	uint64_t t0 = dpa_now_us();

	dpa_wake(&w); /* between the check and the sleep: the wait must not sleep */
	dpa_wake_wait(&w, snap, 0);
	snap = dpa_wake_snapshot(&w);
	dpa_wake_all(); /* likewise for a broadcast */
	dpa_wake_wait(&w, snap, 0);
	assert_true(dpa_now_us() - t0 < 5000000);
	/* Without a wake, a bounded wait sleeps its time. */
	snap = dpa_wake_snapshot(&w);
	t0 = dpa_now_us();
	dpa_wake_wait(&w, snap, 50000);
	assert_true(dpa_now_us() - t0 >= 50000);
}

/* The broadcast reaches sleepers on any word; rounds race the sleeper's check against it. */
static void test_broadcast_reaches_every_word(void **state)
{
	(void)state;
	enum { ROUNDS = 300, SLEEPERS = 3 };

	for (int r = 0; r < ROUNDS; r++) {
		struct dpa_wake words[SLEEPERS] = {0};
		atomic_bool flag = false;
		struct sleeper s[SLEEPERS];
		pthread_t t[SLEEPERS];

		for (int i = 0; i < SLEEPERS; i++) {
			s[i] = (struct sleeper){.w = &words[i], .flag = &flag};
			assert_int_equal(pthread_create(&t[i], NULL, sleeper_main, &s[i]), 0);
		}
		if (r % 2)
			for (int i = 0; i < SLEEPERS; i++)
				wait_sleeping(&s[i]); /* half the rounds: all asleep first */
		atomic_store(&flag, true);
		dpa_wake_all();
		for (int i = 0; i < SLEEPERS; i++) {
			assert_int_equal(pthread_join(t[i], NULL), 0);
			assert_true(atomic_load(&s[i].done));
		}
	}
}

/* A condition that holds from its `at`-th check on, counting its checks. */
struct counted {
	unsigned int at, calls;
};

static bool counted_done(const void *arg)
{
	struct counted *c = (struct counted *)(uintptr_t)arg;

	return ++c->calls >= c->at;
}

static uint32_t spin_debt(struct dpa_spin *s)
{
	return atomic_load(&s->state) & 0xffffu;
}

static void test_spin_record(void **state)
{
	(void)state;
	struct dpa_spin s = {0};
	struct counted c = {.at = 3};

	/* Warm (a new site): spins until the condition holds. */
	assert_true(dpa_spin(&s, counted_done, &c));
	assert_int_equal(c.calls, 3);
	assert_int_equal(spin_debt(&s), 0);
	/* Spins in vain: each adds DPA_SPIN_MISS_COST of debt, up to cold. */
	unsigned int misses = 0;

	while (spin_debt(&s) < DPA_SPIN_DEBT_MAX) {
		c = (struct counted){.at = UINT32_MAX};
		assert_false(dpa_spin(&s, counted_done, &c));
		assert_true(c.calls > 4); /* it did spin */
		misses++;
	}
	assert_int_equal(misses, (DPA_SPIN_DEBT_MAX + DPA_SPIN_MISS_COST - 1) / DPA_SPIN_MISS_COST);
	/* Cold: one check and no spin, but for a probe every DPA_SPIN_PROBE_EVERY waits. */
	unsigned int probes = 0;

	for (unsigned int i = 0; i < 4 * DPA_SPIN_PROBE_EVERY; i++) {
		c = (struct counted){.at = UINT32_MAX};
		assert_false(dpa_spin(&s, counted_done, &c));
		if (c.calls > 1)
			probes++;
		else
			assert_int_equal(c.calls, 1);
	}
	assert_int_equal(probes, 4);
	assert_int_equal(spin_debt(&s), DPA_SPIN_DEBT_MAX);
	/* A probe that succeeds makes the site warm again: the next wait spins. */
	for (;;) {
		c = (struct counted){.at = 2};
		bool done = dpa_spin(&s, counted_done, &c);

		if (c.calls > 1) {
			assert_true(done);
			break;
		}
		assert_false(done);
	}
	assert_int_equal(spin_debt(&s), DPA_SPIN_DEBT_MAX - 1);
	c = (struct counted){.at = 5};
	assert_true(dpa_spin(&s, counted_done, &c));
	assert_int_equal(c.calls, 5);
}

struct spin_waiter {
	struct dpa_wake *w;
	struct dpa_spin spin;
	atomic_bool *flag;
	atomic_bool done;
};

static bool flag_set(const void *arg)
{
	return atomic_load((atomic_bool *)(uintptr_t)arg);
}

/* Wait for the flag as se_wait does: spin as the record allows, then sleep. */
static void *spin_waiter_main(void *arg)
{
	struct spin_waiter *s = arg;

	if (!dpa_spin(&s->spin, flag_set, s->flag))
		for (;;) {
			struct dpa_wake_snap snap = dpa_wake_snapshot(s->w);

			if (atomic_load(s->flag))
				break;
			dpa_wake_wait(s->w, snap, 0);
		}
	atomic_store(&s->done, true);
	return NULL;
}

/* One update reaches a waiter that spins and one that sleeps (many rounds, none may hang). */
static void test_spinner_and_sleeper_woken(void **state)
{
	(void)state;
	enum { ROUNDS = 500 };

	for (int r = 0; r < ROUNDS; r++) {
		struct dpa_wake w = {0};
		atomic_bool flag = false;
		/* One cold (sleeps at once unless probing), one warm (spins first). */
		struct spin_waiter cold = {.w = &w, .spin = {DPA_SPIN_DEBT_MAX}, .flag = &flag};
		struct spin_waiter warm = {.w = &w, .flag = &flag};
		pthread_t tc, tw;

		assert_int_equal(pthread_create(&tc, NULL, spin_waiter_main, &cold), 0);
		if (r % 2) /* half the rounds: the cold one is asleep first */
			while (atomic_load(&w.sleepers) == 0)
				sched_yield();
		assert_int_equal(pthread_create(&tw, NULL, spin_waiter_main, &warm), 0);
		if (r % 3 == 0)
			sched_yield();
		atomic_store(&flag, true);
		dpa_wake(&w);
		assert_int_equal(pthread_join(tc, NULL), 0);
		assert_int_equal(pthread_join(tw, NULL), 0);
		assert_true(atomic_load(&cold.done) && atomic_load(&warm.done));
		assert_int_equal(atomic_load(&w.sleepers), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wake_own_word_only),
		cmocka_unit_test(test_wake_before_wait_not_lost),
		cmocka_unit_test(test_broadcast_reaches_every_word),
		cmocka_unit_test(test_spin_record),
		cmocka_unit_test(test_spinner_and_sleeper_woken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
