/*
 * test_dpa_wake.c - the wake words of src/dpa/dpa_wake.c, compiled into this test: a
 * wake reaches the sleepers of its own word and not those of another, a snapshot taken
 * before the wake makes the later wait return at once (no lost wake-up), and the
 * broadcast reaches a sleeper whatever word it sleeps on, including one that checked its
 * condition just before the broadcast and registered just after (many rounds of that
 * race, none may hang: the sleeps have no timeout, a hang is the test's timeout).
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wake_own_word_only),
		cmocka_unit_test(test_wake_before_wait_not_lost),
		cmocka_unit_test(test_broadcast_reaches_every_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
