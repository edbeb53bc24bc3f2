/*
 * dpa_wake.c - the wake words every sleeper in src/dpa sleeps on, and the broadcast
 * that reaches all of them.
 *
 * A wake word is a 32-bit futex sequence plus a count of its sleepers. Each thing a
 * thread can wait for has its own word (a sync event, a DPA thread, a context's drain,
 * a handle table, the dispatchers), so an update wakes only the threads waiting for it,
 * and enters the kernel only when one of them sleeps: a launch and its completion cost
 * one wake each way, as a futex ping-pong does.
 *
 * Some conditions concern sleepers on any word: a context being destroyed (device waits
 * end), a DPA thread being stopped, an event being destroyed under a device wait.
 * dpa_wake_all reaches those: every sleeper registers the word it sleeps on (a node on
 * its stack, in a list under a mutex, only on the sleep path), and the broadcast bumps
 * and wakes each registered word. A global broadcast sequence, snapshotted with the
 * word's, closes the window between a sleeper's last check and its registration.
 *
 * Before sleeping, a waiter spins as its site's record allows (dpa_spin, see
 * dpa_internal.h): a short spin while spinning has been paying, almost none once it has
 * not, so that the common short wait costs neither side a syscall and a long one (or a
 * wait for a thread on this same CPU) burns no CPU.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dpa/dpa_internal.h"

struct dpa_wake dpa_dispatch_wake;

struct wake_node {
	struct dpa_wake *w;
	struct wake_node *prev, *next;
};

static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wake_node *wake_sleepers; /* under wake_lock */
static atomic_uint wake_bcast;

uint64_t dpa_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t dpa_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A site's record: its debt (low 16 bits) and probe counter (high 16 bits). */
static void spin_record(struct dpa_spin *s, uint32_t probes, uint32_t debt)
{
	atomic_store_explicit(&s->state, (probes << 16) | debt, memory_order_relaxed);
}

bool dpa_spin(struct dpa_spin *s, bool (*done)(const void *arg), const void *arg)
{
	/* Relaxed, and racing waiters of one site may lose each other's updates: the
	 * record is a hint, each wait still checks its condition before it sleeps. */
	uint32_t st = atomic_load_explicit(&s->state, memory_order_relaxed);
	uint32_t debt = st & 0xffffu, probes = st >> 16;
	uint64_t budget = DPA_SPIN_NS;

	if (debt >= DPA_SPIN_DEBT_MAX) {
		probes = (probes + 1) & 0xffffu;
		spin_record(s, probes, debt);
		if (probes % DPA_SPIN_PROBE_EVERY != 0)
			return done(arg);
		budget = DPA_SPIN_PROBE_NS;
	}
	uint64_t start = dpa_now_ns();

	do {
		/* A pause is tens of ns: the clock is read every few of them. */
		for (int i = 0; i < 4; i++) {
			if (done(arg)) {
				spin_record(s, probes, debt ? debt - 1 : 0);
				return true;
			}
			core_cpu_relax();
		}
	} while (dpa_now_ns() - start < budget);
	debt += DPA_SPIN_MISS_COST;
	spin_record(s, probes, debt > DPA_SPIN_DEBT_MAX ? DPA_SPIN_DEBT_MAX : debt);
	return done(arg);
}

static void futex_wake(atomic_uint *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

struct dpa_wake_snap dpa_wake_snapshot(struct dpa_wake *w)
{
	/* The broadcast sequence first: a broadcast after it is seen by dpa_wake_wait. */
	uint32_t bcast = atomic_load(&wake_bcast);

	return (struct dpa_wake_snap){atomic_load(&w->seq), bcast};
}

void dpa_wake(struct dpa_wake *w)
{
	atomic_fetch_add(&w->seq, 1);
	if (atomic_load(&w->sleepers) != 0)
		futex_wake(&w->seq);
}

void dpa_wake_wait(struct dpa_wake *w, struct dpa_wake_snap snap, uint64_t timeout_us)
{
	struct timespec ts = {(time_t)(timeout_us / 1000000u), (long)(timeout_us % 1000000u) * 1000};
	struct wake_node node = {.w = w};

	pthread_mutex_lock(&wake_lock);
	node.next = wake_sleepers;
	if (wake_sleepers)
		wake_sleepers->prev = &node;
	wake_sleepers = &node;
	pthread_mutex_unlock(&wake_lock);
	/* Counted before the word is re-read: a waker that missed the count bumped the word
	 * first, and the futex then refuses to sleep on the old value. */
	atomic_fetch_add(&w->sleepers, 1);
	if (atomic_load(&w->seq) == snap.seq && atomic_load(&wake_bcast) == snap.bcast)
		syscall(SYS_futex, &w->seq, FUTEX_WAIT_PRIVATE, snap.seq, timeout_us ? &ts : NULL, NULL, 0);
	atomic_fetch_sub(&w->sleepers, 1);
	pthread_mutex_lock(&wake_lock);
	if (node.prev)
		node.prev->next = node.next;
	else
		wake_sleepers = node.next;
	if (node.next)
		node.next->prev = node.prev;
	pthread_mutex_unlock(&wake_lock);
}

void dpa_wake_all(void)
{
	atomic_fetch_add(&wake_bcast, 1);
	/* Under the lock: a registered word stays valid until its sleeper unregisters. */
	pthread_mutex_lock(&wake_lock);
	for (struct wake_node *n = wake_sleepers; n; n = n->next) {
		atomic_fetch_add(&n->w->seq, 1);
		futex_wake(&n->w->seq);
	}
	pthread_mutex_unlock(&wake_lock);
}
