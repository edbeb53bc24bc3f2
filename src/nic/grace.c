/*
 * grace.c - datapath thread registration and grace periods: a burst is bracketed by
 * nic_dp_enter/exit (an odd sequence number while inside), and nic_dp_synchronize waits
 * until every thread that was inside a burst has left it, so that a control path may
 * free what a burst could still hold. Also hands out the counter shards.
 */
#include <sched.h>
#include <stdlib.h>

#include <core/core.h>

#include "nic_internal.h"

DOCA_LOG_REGISTER(NIC::GRACE);

#define DP_MAX_THREADS 256

/* One per datapath thread; odd seq = inside a burst. Padded: each is written per burst. */
struct dp_slot {
	_Alignas(64) _Atomic uint64_t seq;
	_Atomic bool used;
	uint32_t shard; /* counter shard of the thread */
};

static struct dp_slot dp_slots[DP_MAX_THREADS];
/* Slots ever used are below this: a grace period scans only them (each is a cache line). */
static _Atomic int dp_slots_hw;
/* Counter shards 0 .. NIC_CNT_SHARDS - 2 owned by a thread (bit set); the last is shared. */
static _Atomic uint32_t dp_shards_owned;
static _Thread_local int dp_me = -1;
static pthread_key_t dp_key;
static pthread_once_t dp_once = PTHREAD_ONCE_INIT;

static void dp_thread_exit(void *arg)
{
	struct dp_slot *s = arg;
	atomic_store_explicit(&s->seq, 0, memory_order_release);
	/* Release: the next owner of the shard sees every count this thread wrote. */
	if (s->shard < NIC_CNT_SHARDS - 1)
		atomic_fetch_and_explicit(&dp_shards_owned, ~(1u << s->shard), memory_order_release);
	atomic_store_explicit(&s->used, false, memory_order_release);
}

static void dp_key_init(void)
{
	pthread_key_create(&dp_key, dp_thread_exit);
}

static int dp_register(void)
{
	pthread_once(&dp_once, dp_key_init);
	for (int i = 0; i < DP_MAX_THREADS; i++) {
		bool expected = false;
		if (atomic_compare_exchange_strong(&dp_slots[i].used, &expected, true)) {
			atomic_store_explicit(&dp_slots[i].seq, 0, memory_order_relaxed);
			pthread_setspecific(dp_key, &dp_slots[i]);
			dp_me = i;
			int hw = atomic_load_explicit(&dp_slots_hw, memory_order_relaxed);
			while (hw <= i && !atomic_compare_exchange_weak(&dp_slots_hw, &hw, i + 1))
				;
			dp_slots[i].shard = NIC_CNT_SHARDS - 1;
			for (uint32_t sh = 0; sh < NIC_CNT_SHARDS - 1; sh++) {
				uint32_t bit = 1u << sh;
				if (!(atomic_fetch_or_explicit(&dp_shards_owned, bit, memory_order_acquire) & bit)) {
					dp_slots[i].shard = sh;
					break;
				}
			}
			return i;
		}
	}
	/* More datapath threads than slots: fail loudly rather than run unprotected. */
	CORE_LOG_CRIT("more than %d datapath threads", DP_MAX_THREADS);
	abort();
}

uint32_t nic_dp_enter(void)
{
	int me = dp_me >= 0 ? dp_me : dp_register();
	struct dp_slot *s = &dp_slots[me];
	atomic_store_explicit(&s->seq, atomic_load_explicit(&s->seq, memory_order_relaxed) + 1, memory_order_relaxed);
	/* Order the odd seq before every load of pipe state (pairs with synchronize's fence). */
	atomic_thread_fence(memory_order_seq_cst);
	return s->shard;
}

void nic_dp_exit(void)
{
	struct dp_slot *s = &dp_slots[dp_me];
	atomic_store_explicit(&s->seq, atomic_load_explicit(&s->seq, memory_order_relaxed) + 1, memory_order_release);
}

void nic_dp_synchronize(void)
{
	atomic_thread_fence(memory_order_seq_cst);
	int hw = atomic_load_explicit(&dp_slots_hw, memory_order_acquire);
	for (int i = 0; i < hw; i++) {
		if (i == dp_me || !atomic_load_explicit(&dp_slots[i].used, memory_order_acquire))
			continue;
		uint64_t s = atomic_load_explicit(&dp_slots[i].seq, memory_order_acquire);
		if (!(s & 1))
			continue;
		for (unsigned spins = 0; atomic_load_explicit(&dp_slots[i].seq, memory_order_acquire) == s; spins++)
			if (spins > 64)
				sched_yield();
	}
}
