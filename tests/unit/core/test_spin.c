/*
 * Unit tests: core_spin_lock (core.h), the lock of the entry queues, the NIC buckets and
 * a pipe's add bursts: mutual exclusion with more takers than cores (so that holders are
 * preempted and takers go past the spinning rounds to yielding), and a taker that waits
 * for a holder sleeping far longer than the spinning rounds last.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <time.h>

#include "core/core.h"

#define TAKERS 4
#define ROUNDS 100000

static _Atomic uint32_t lock;
static _Atomic uint32_t inside;	   /* takers in the critical section: at most 1 */
static _Atomic uint32_t overlaps;  /* times a taker found another inside */
static uint64_t counter;	   /* plain: only the lock orders its updates */

static void *taker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		core_spin_lock(&lock);
		if (atomic_fetch_add_explicit(&inside, 1, memory_order_relaxed) != 0)
			atomic_fetch_add_explicit(&overlaps, 1, memory_order_relaxed);
		counter++;
		atomic_fetch_sub_explicit(&inside, 1, memory_order_relaxed);
		core_spin_unlock(&lock);
	}
	return NULL;
}

static void test_spin_lock_excludes(void **state)
{
	(void)state;
	pthread_t th[TAKERS];
	counter = 0;
	for (int i = 0; i < TAKERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, taker, NULL), 0);
	for (int i = 0; i < TAKERS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&overlaps), 0);
	assert_int_equal(counter, (uint64_t)TAKERS * ROUNDS);
	assert_int_equal(atomic_load(&lock), 0);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static _Atomic int waiter_started;
static double released_ms, acquired_ms;

static void *waiter(void *arg)
{
	(void)arg;
	atomic_store(&waiter_started, 1);
	core_spin_lock(&lock);
	acquired_ms = now_ms();
	core_spin_unlock(&lock);
	return NULL;
}

/* 20 ms is thousands of times CORE_SPIN_TRIES pauses: the taker yields meanwhile, and
 * still takes the lock only once it is given back. */
static void test_spin_lock_waits_for_a_long_holder(void **state)
{
	(void)state;
	pthread_t th;
	core_spin_lock(&lock);
	atomic_store(&waiter_started, 0);
	assert_int_equal(pthread_create(&th, NULL, waiter, NULL), 0);
	while (!atomic_load(&waiter_started))
		sched_yield();
	struct timespec nap = {0, 20 * 1000 * 1000};
	nanosleep(&nap, NULL);
	released_ms = now_ms();
	core_spin_unlock(&lock);
	pthread_join(th, NULL);
	assert_true(acquired_ms >= released_ms);
	assert_int_equal(atomic_load(&lock), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin_lock_excludes),
		cmocka_unit_test(test_spin_lock_waits_for_a_long_holder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
