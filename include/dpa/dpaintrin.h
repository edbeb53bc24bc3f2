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

/*
 * <time.h> declares clock_gettime() and CLOCK_MONOTONIC only when POSIX is visible: a
 * strict ISO build (-std=c17 without _GNU_SOURCE or _POSIX_C_SOURCE) leaves them out,
 * although the C library has them. This header must compile on its own in such a
 * build too, so it declares them itself then (Linux's clock id; clockid_t is an int).
 */
#ifdef CLOCK_MONOTONIC
#define FLOWDPA_DPA_CLOCK_ CLOCK_MONOTONIC
#else
#define FLOWDPA_DPA_CLOCK_ 1
extern int clock_gettime(int, struct timespec *);
#endif

/* Monotonically increasing count; differences measure elapsed time (1 count = 1 ns). */
static inline uint64_t __dpa_thread_cycles(void)
{
	struct timespec ts;

	clock_gettime(FLOWDPA_DPA_CLOCK_, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keeps the compiler from moving memory accesses across this point. */
#define __dpa_compiler_barrier() __asm__ __volatile__("" ::: "memory")

#endif /* FLOWDPA_DPAINTRIN_H_ */
