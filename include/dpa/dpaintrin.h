/*
 * dpaintrin.h - stand-in for the DPA compiler's intrinsics header, with the intrinsics
 * the public DOCA samples use (nvqual): a per-thread cycle counter and a compiler
 * barrier. In flowdpa device code runs on the host, so the counter is the host's
 * monotonic clock in nanoseconds (a 1 GHz "cycle").
 */
#ifndef FLOWDPA_DPAINTRIN_H_
#define FLOWDPA_DPAINTRIN_H_

#include <stdint.h>
#include <time.h>

/* Monotonically increasing count; differences measure elapsed time (1 count = 1 ns). */
static inline uint64_t __dpa_thread_cycles(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keeps the compiler from moving memory accesses across this point. */
#define __dpa_compiler_barrier() __asm__ __volatile__("" ::: "memory")

#endif /* FLOWDPA_DPAINTRIN_H_ */
