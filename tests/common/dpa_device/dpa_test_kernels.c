/*
 * dpa_test_kernels.c - device side of the DPA integration and lifecycle tests, built by
 * dpacc into the app image dpa_test_app (each suite builds its own copy with its flags).
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>
#include <dpaintrin.h>
#include <signal.h>

#include "dpa_test_defs.h"

/* Same name as a host function in test_dpa_launch.c: must stay local to the image. */
uint64_t helper(uint64_t x)
{
	return x * 3 + 1;
}

/* A device global: local to the image too. */
uint64_t dpa_counter;

__dpa_global__ void hello_kernel(void)
{
	DOCA_DPA_DEV_LOG_INFO("Hello from kernel rank %u of %u\n", doca_dpa_dev_thread_rank(),
			      doca_dpa_dev_num_threads());
}

/* Every instance writes its rank (and the thread count) into slot rank of out. */
__dpa_global__ void rank_kernel(doca_dpa_dev_uintptr_t out)
{
	uint64_t *slots = (uint64_t *)out;
	unsigned int rank = doca_dpa_dev_thread_rank();

	slots[rank] = ((uint64_t)doca_dpa_dev_num_threads() << 32) | rank;
}

/* 13 parameters of mixed types; stores them as received. */
__dpa_global__ void args13_kernel(uint32_t u32, uint64_t u64, int32_t i32, doca_dpa_dev_uintptr_t out, uint8_t u8,
				  int16_t i16, double dbl, float flt, struct dpa_test_triple triple, uint32_t mmap,
				  int64_t i64, const uint64_t last, char ch)
{
	struct dpa_test_args13 *r = (struct dpa_test_args13 *)out;

	r->u32 = u32;
	r->u64 = u64;
	r->i32 = i32;
	r->ptr = out;
	r->u8 = u8;
	r->i16 = i16;
	r->dbl = dbl;
	r->flt = flt;
	r->triple = triple;
	r->mmap = mmap;
	r->i64 = i64;
	r->last = last;
	r->ch = ch;
}

/* Uses the device helper() and global: the host's helper() must not be called. */
__dpa_global__ void helper_kernel(doca_dpa_dev_uintptr_t out, uint64_t x)
{
	dpa_counter += helper(x);
	*(uint64_t *)out = dpa_counter;
}

/* Sets a sync event from the device; waits for another first when wait_handle != 0. */
__dpa_global__ void signal_kernel(doca_dpa_dev_sync_event_t wait_handle, uint64_t wait_gt,
				  doca_dpa_dev_sync_event_t set_handle, uint64_t value)
{
	if (wait_handle)
		doca_dpa_dev_sync_event_wait_gt(wait_handle, wait_gt, ~0ull);
	doca_dpa_dev_sync_event_update_add(set_handle, value);
}

/* Reads through a bad pointer when rank == bad_rank. */
__dpa_global__ void fault_kernel(doca_dpa_dev_uintptr_t bad, unsigned int bad_rank)
{
	if (doca_dpa_dev_thread_rank() == bad_rank) {
		volatile uint64_t *p = (volatile uint64_t *)bad;

		*p = 42;
	}
}

/* Passes a forged sync-event handle to the device API (a fatal device error). */
__dpa_global__ void bad_handle_kernel(uint64_t forged)
{
	doca_dpa_dev_sync_event_update_set(forged, 1);
}

/* Ends through doca_dpa_dev_thread_finish instead of returning. */
__dpa_global__ void finish_kernel(doca_dpa_dev_uintptr_t out)
{
	*(uint64_t *)out = 7;
	doca_dpa_dev_thread_finish();
}

__dpa_rpc__ uint64_t add_rpc(uint64_t a, uint32_t b)
{
	return a + b + helper(0);
}

/* Two structs by value, plus a device write through the first one's buffer. */
__dpa_rpc__ uint64_t structs_rpc(struct dpa_test_thread_arg ping, struct dpa_test_thread_arg pong)
{
	uint64_t *buf = (uint64_t *)ping.dev_buf;

	buf[0] = pong.tag;
	return (uint64_t)ping.count * 1000000u + pong.count * 1000u + ping.seed + pong.seed + (ping.tag ^ pong.tag);
}

__dpa_rpc__ uint64_t rank_rpc(void)
{
	return ((uint64_t)doca_dpa_dev_num_threads() << 32) | doca_dpa_dev_thread_rank();
}

/* Faults in an RPC: the host gets DRIVER and survives. */
__dpa_rpc__ uint64_t fault_rpc(doca_dpa_dev_uintptr_t bad)
{
	return *(volatile uint64_t *)bad;
}

/* DPA thread body: counts its runs, signals done_event, finishes at run finish_at. */
__dpa_global__ void thread_kernel(uint64_t state_addr)
{
	struct dpa_test_thread_state *st = (struct dpa_test_thread_state *)state_addr;

	st->runs++;
	st->tls_seen = doca_dpa_dev_thread_get_local_storage();
	st->rank_seen = ((uint64_t)doca_dpa_dev_thread_rank() << 32) | doca_dpa_dev_num_threads();
	doca_dpa_dev_sync_event_update_add(st->done_event, 1);
	if (st->runs == st->finish_at)
		doca_dpa_dev_thread_finish();
	doca_dpa_dev_thread_reschedule();
}

/* A thread body without arguments (nvqual-style): notifies the thread it is given via TLS. */
__dpa_global__ void thread_noarg_kernel(void)
{
	doca_dpa_dev_sync_event_update_add(*(uint64_t *)doca_dpa_dev_thread_get_local_storage(), 1);
}

__dpa_global__ void notify_kernel(doca_dpa_dev_notification_completion_t h)
{
	doca_dpa_dev_thread_notify(h);
}

__dpa_rpc__ uint64_t notify_rpc(doca_dpa_dev_notification_completion_t h)
{
	doca_dpa_dev_thread_notify(h);
	return 1;
}

/* A thread run that waits on an event forever (until the thread is stopped). */
__dpa_global__ void thread_blocking_kernel(uint64_t wait_handle)
{
	doca_dpa_dev_sync_event_wait_gt(wait_handle, 0, ~0ull);
}

/* nvqual-style timing with dpaintrin.h: cycles elapsed across a short busy loop. */
__dpa_rpc__ uint64_t cycles_rpc(uint64_t spins)
{
	uint64_t t0 = __dpa_thread_cycles();

	for (volatile uint64_t i = 0; i < spins; i++)
		__dpa_compiler_barrier();
	return __dpa_thread_cycles() - t0;
}

/* Spins in its own code (no device API call) until *flag != 0: destroy cannot end it. */
__dpa_global__ void spin_kernel(doca_dpa_dev_uintptr_t flag)
{
	while (__atomic_load_n((volatile uint64_t *)flag, __ATOMIC_ACQUIRE) == 0)
		__dpa_compiler_barrier();
}

/* Passes a bad output pointer to a device API call (faults inside the call). */
__dpa_global__ void bad_get_kernel(doca_dpa_dev_sync_event_t h, doca_dpa_dev_uintptr_t bad)
{
	doca_dpa_dev_sync_event_get(h, (uint64_t *)bad);
}

/* A typedef'd float parameter: dpacc must va_arg it as double (the promoted type). */
typedef float dpa_test_f32;

__dpa_rpc__ uint64_t f32_rpc(dpa_test_f32 x, uint32_t scale)
{
	return (uint64_t)(x * (dpa_test_f32)scale);
}

/* Sends itself a signal: not a hardware fault, so not reported as one. */
__dpa_rpc__ uint64_t raise_rpc(int sig)
{
	raise(sig);
	return 1;
}

/* Recurses until the stack overflows (limit is never reached; it keeps the recursion finite to the compiler). */
static uint64_t overflow_step(uint64_t depth, uint64_t limit)
{
	volatile char frame[512];

	frame[0] = (char)depth;
	if (depth >= limit)
		return (uint64_t)frame[0];
	return overflow_step(depth + 1, limit) + (uint64_t)frame[0];
}

__dpa_rpc__ uint64_t overflow_rpc(uint64_t limit)
{
	return overflow_step(0, limit);
}

/*
 * A DPA thread body that spins in its own code until *flag != 0 (no device call: stop
 * and destroy cannot end it), then counts the run in the event whose handle is at its
 * local storage.
 */
__dpa_global__ void thread_spin_kernel(uint64_t flag)
{
	while (__atomic_load_n((volatile uint64_t *)flag, __ATOMIC_ACQUIRE) == 0)
		__dpa_compiler_barrier();
	doca_dpa_dev_sync_event_update_add(*(uint64_t *)doca_dpa_dev_thread_get_local_storage(), 1);
}

/* One parameter wider than the uint64_t a DPA thread passes: refused as a thread body. */
__dpa_global__ void wide_param_kernel(struct dpa_test_triple t)
{
	*(uint64_t *)t.b = t.a;
}

/* An RPC spinning in its own code until flag[0] != 0 (it keeps the context in use),
 * having set flag[1] to say that it runs. */
__dpa_rpc__ uint64_t spin_rpc(doca_dpa_dev_uintptr_t flag)
{
	volatile uint64_t *f = (volatile uint64_t *)flag;
	__atomic_store_n(&f[1], 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&f[0], __ATOMIC_ACQUIRE) == 0)
		__dpa_compiler_barrier();
	return 5;
}
