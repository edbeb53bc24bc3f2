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
#define DP_OWNED 0u			/* the shard one thread owns: its cell is in the entry */
#define DP_SHARED (NIC_CNT_SHARDS - 1) /* the shard every other thread counts on */
_Static_assert(NIC_CNT_SHARDS == 2, "one owned shard and one shared");

/* One per datapath thread; odd seq = inside a burst. Padded: each is written per burst. */
struct dp_slot {
	_Alignas(64) _Atomic uint64_t seq;
	_Atomic bool used;
	_Atomic uint32_t shard; /* counter shard of the thread; a thief may set it to DP_SHARED */
};

static struct dp_slot dp_slots[DP_MAX_THREADS];
/* Slots ever used are below this: a grace period scans only them (each is a cache line). */
static _Atomic int dp_slots_hw;
/* The slot + 1 of the thread owning DP_OWNED, 0: none. */
static _Atomic int dp_owner;
static _Thread_local int dp_me = -1;
static pthread_key_t dp_key;
static pthread_once_t dp_once = PTHREAD_ONCE_INIT;

/*
 * A thread on the shared shard watches the owner: when it ran no burst in
 * NIC_DP_STEAL_PERIOD of this thread's, the shard is taken over (dp_shard_steal).
 * Without this, a thread that handled a few frames once and lived on (a test's or an
 * application's control thread) kept the shard whose cell sits in the entry for its
 * lifetime, and the threads doing the work counted with locked adds on a line of their
 * own: a W1 N=1M run in bench/datapath lost a third of its rate to that.
 */
static _Thread_local struct {
	uint32_t countdown;
	int owner;    /* slot watched, -1: none */
	uint64_t seq; /* its seq when last seen */
} dp_watch = {NIC_DP_STEAL_PERIOD, -1, 0};

/* Wait until the thread of slot i, seen at seq q, is out of the burst q says it is in. */
static void dp_wait_out(int i, uint64_t q)
{
	if (!(q & 1))
		return;
	for (unsigned spins = 0; atomic_load_explicit(&dp_slots[i].seq, memory_order_acquire) == q; spins++)
		if (spins > 64)
			sched_yield();
}

/* This thread owns DP_OWNED from now on. Release: a thief's compare-and-swap of the
 * shard, then its fence, acquire what this thread acquired from the shard's last owner.
 * The watch starts over, for the time a thief makes this thread look again. */
static void dp_shard_own(int me)
{
	atomic_store_explicit(&dp_slots[me].shard, DP_OWNED, memory_order_release);
	dp_watch.countdown = NIC_DP_STEAL_PERIOD;
	dp_watch.owner = -1;
}

/* At thread exit: give DP_OWNED back, unless a thief took it first. */
static void dp_shard_release(int me)
{
	uint32_t sh = DP_OWNED;
	if (atomic_compare_exchange_strong_explicit(&dp_slots[me].shard, &sh, DP_SHARED, memory_order_acq_rel,
						    memory_order_relaxed))
		/* Only the owner's slot writes the word while it owns the shard. Release: the
		 * next owner sees every count this thread wrote. */
		atomic_store_explicit(&dp_owner, 0, memory_order_release);
}

static void dp_thread_exit(void *arg)
{
	struct dp_slot *s = arg;
	atomic_store_explicit(&s->seq, 0, memory_order_release);
	dp_shard_release((int)(s - dp_slots));
	atomic_store_explicit(&s->used, false, memory_order_release);
}

static void dp_key_init(void)
{
	pthread_key_create(&dp_key, dp_thread_exit);
}

/* DP_OWNED when no thread owns it, for this thread (outside a burst). */
static void dp_shard_claim(int me)
{
	int none = 0;
	/* Acquire: the counts of its last owner (dp_shard_release). */
	if (atomic_compare_exchange_strong_explicit(&dp_owner, &none, me + 1, memory_order_acquire,
						    memory_order_relaxed))
		dp_shard_own(me);
}

/*
 * Take DP_OWNED from the thread of slot v for this thread (outside a burst). The owner
 * reads its shard after making its seq odd and a full fence (nic_dp_enter); the thief
 * marks it shared, fences, then reads the owner's seq: either the owner's next burst
 * reads DP_SHARED, or the thief sees it inside and waits for it to leave. Both fences
 * being seq_cst, no burst of the owner on the shard overlaps the thief's, and the
 * owner's release at the end of its last burst on it makes its counts visible.
 */
static void dp_shard_steal(int me, int v)
{
	uint32_t cur = DP_OWNED;
	if (!atomic_compare_exchange_strong_explicit(&dp_slots[v].shard, &cur, DP_SHARED, memory_order_relaxed,
						     memory_order_relaxed))
		return; /* it left, or another thief came first */
	atomic_thread_fence(memory_order_seq_cst);
	dp_wait_out(v, atomic_load_explicit(&dp_slots[v].seq, memory_order_acquire));
	atomic_store_explicit(&dp_owner, me + 1, memory_order_relaxed);
	dp_shard_own(me);
}

/* A thread on the shared shard, before a burst: DP_OWNED when it is free (a load of a
 * line that seldom changes), or every NIC_DP_STEAL_PERIOD bursts, when its owner ran no
 * burst since the last look. */
static void dp_shard_seek(int me)
{
	int v = atomic_load_explicit(&dp_owner, memory_order_relaxed) - 1;
	if (v < 0) {
		dp_shard_claim(me);
		return;
	}
	if (--dp_watch.countdown)
		return;
	dp_watch.countdown = NIC_DP_STEAL_PERIOD;
	if (v == me) /* this thread was robbed, and its thief has not yet named itself */
		return;
	uint64_t q = atomic_load_explicit(&dp_slots[v].seq, memory_order_relaxed);
	if (v == dp_watch.owner && q == dp_watch.seq && !(q & 1)) {
		dp_shard_steal(me, v);
		return;
	}
	dp_watch.owner = v;
	dp_watch.seq = q;
}

static int dp_register(void)
{
	pthread_once(&dp_once, dp_key_init);
	for (int i = 0; i < DP_MAX_THREADS; i++) {
		bool expected = false;
		/* seq is 0 already: slots start so, and dp_thread_exit leaves them so. */
		if (atomic_compare_exchange_strong(&dp_slots[i].used, &expected, true)) {
			pthread_setspecific(dp_key, &dp_slots[i]);
			dp_me = i;
			int hw = atomic_load_explicit(&dp_slots_hw, memory_order_relaxed);
			while (hw <= i && !atomic_compare_exchange_weak(&dp_slots_hw, &hw, i + 1))
				;
			atomic_store_explicit(&dp_slots[i].shard, DP_SHARED, memory_order_relaxed);
			dp_shard_claim(i);
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
	if (atomic_load_explicit(&s->shard, memory_order_relaxed) == DP_SHARED)
		dp_shard_seek(me);
	atomic_store_explicit(&s->seq, atomic_load_explicit(&s->seq, memory_order_relaxed) + 1, memory_order_relaxed);
	/* Order the odd seq before every load of pipe state, and before the load of the
	 * shard (a thief's dp_shard_steal); pairs with synchronize's fence. */
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&s->shard, memory_order_relaxed);
}

uint32_t nic_dp_shard_take(void)
{
	int me = dp_me >= 0 ? dp_me : dp_register();
	int v = atomic_load_explicit(&dp_owner, memory_order_relaxed) - 1;
	if (v < 0)
		dp_shard_claim(me);
	else if (v != me)
		dp_shard_steal(me, v);
	return atomic_load_explicit(&dp_slots[me].shard, memory_order_relaxed);
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
		dp_wait_out(i, atomic_load_explicit(&dp_slots[i].seq, memory_order_acquire));
	}
}
