/*
 * flowdpa_dpa_prelude.h - force-included by dpacc before every device translation unit.
 *
 * Device code runs natively on host threads in flowdpa, so the host C library would
 * link; a DPA has none of it. Every call that does not exist on a DPA is marked
 * unavailable here, so that such a call fails to compile with a message naming the
 * rule, as it would fail to build with the real DPACC.
 */
#ifndef FLOWDPA_DPA_PRELUDE_H_
#define FLOWDPA_DPA_PRELUDE_H_

#ifndef DOCA_DPA_DEVICE
#error "flowdpa_dpa_prelude.h is for device code built by dpacc (DOCA_DPA_DEVICE is not defined)"
#endif

/* The declarations first, so that the attributes below attach to them. glibc's extern
 * inline bodies (putchar, vprintf, ... at -O2) would be definitions the attributes can no
 * longer attach to: ask for plain declarations. */
#ifndef __NO_INLINE__
#define __NO_INLINE__ 1
#endif
/* Several of them are POSIX (strdup, posix_memalign, usleep, pthread_spin_lock), which a
 * strict ISO mode (-std=c17 in the devicecc options) leaves undeclared. Nothing comes
 * before the prelude in the translation unit, so it can still ask for them; it asks for
 * what the compiler's default GNU mode gives anyway. */
#if defined(__STRICT_ANSI__) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE) && \
	!defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_POSIX_SOURCE)
#define _DEFAULT_SOURCE 1
#endif
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* DOCA's device builds pass -DDOCA_ALLOW_EXPERIMENTAL_API, so device calls to DOCA's
 * experimental API do not warn. dpacc does the same, but only while the DOCA markers are
 * fixed (doca_compat.h is include-guarded and defines nothing else a device source could
 * set first: DOCA_COMPAT_HELPERS is always off on the device), then takes the macro back:
 * a device source that defines DOCA_ALLOW_EXPERIMENTAL_API itself, empty or to any value,
 * is not told "redefined" under -Werror. A -D of it in the devicecc options is left alone. */
#ifndef DOCA_ALLOW_EXPERIMENTAL_API
#define DOCA_ALLOW_EXPERIMENTAL_API
#include <doca_compat.h>
#undef DOCA_ALLOW_EXPERIMENTAL_API
#endif

#if defined(__has_attribute)
#if __has_attribute(unavailable)
#define FLOWDPA_DPA_RULE_ATTR(msg) __attribute__((unavailable(msg)))
#endif
#endif
#ifndef FLOWDPA_DPA_RULE_ATTR
#define FLOWDPA_DPA_RULE_ATTR(msg) __attribute__((error(msg)))
#endif

#define FLOWDPA_DPA_FORBID(fn, why) \
	extern __typeof__(fn) fn FLOWDPA_DPA_RULE_ATTR("flowdpa DPA rule: " #fn "() does not exist on the DPA; " why)

#define FLOWDPA_DPA_NO_HEAP "there is no device allocator: allocate device memory from the host with doca_dpa_mem_alloc"
#define FLOWDPA_DPA_NO_STDIO "there is no stdio: print with DOCA_DPA_DEV_LOG_* (doca_dpa_dev_log)"
#define FLOWDPA_DPA_NO_THREADS \
	"there are no pthreads: launch more DPA threads (num_threads) and order them with sync events"
#define FLOWDPA_DPA_NO_OS "there is no operating system on the DPA"

FLOWDPA_DPA_FORBID(malloc, FLOWDPA_DPA_NO_HEAP);
FLOWDPA_DPA_FORBID(calloc, FLOWDPA_DPA_NO_HEAP);
FLOWDPA_DPA_FORBID(realloc, FLOWDPA_DPA_NO_HEAP);
FLOWDPA_DPA_FORBID(free, FLOWDPA_DPA_NO_HEAP);
FLOWDPA_DPA_FORBID(aligned_alloc, FLOWDPA_DPA_NO_HEAP);
FLOWDPA_DPA_FORBID(posix_memalign, FLOWDPA_DPA_NO_HEAP);
FLOWDPA_DPA_FORBID(strdup, FLOWDPA_DPA_NO_HEAP);
FLOWDPA_DPA_FORBID(strndup, FLOWDPA_DPA_NO_HEAP);

FLOWDPA_DPA_FORBID(printf, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(fprintf, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(vprintf, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(vfprintf, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(puts, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(putchar, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(fputs, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(fputc, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(fwrite, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(fread, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(fopen, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(fclose, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(fflush, FLOWDPA_DPA_NO_STDIO);
FLOWDPA_DPA_FORBID(perror, FLOWDPA_DPA_NO_STDIO);

FLOWDPA_DPA_FORBID(pthread_create, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_join, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_detach, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_self, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_mutex_init, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_mutex_lock, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_mutex_trylock, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_mutex_unlock, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_mutex_destroy, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_cond_init, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_cond_wait, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_cond_timedwait, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_cond_signal, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_cond_broadcast, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_spin_lock, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_spin_unlock, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_once, FLOWDPA_DPA_NO_THREADS);
FLOWDPA_DPA_FORBID(pthread_key_create, FLOWDPA_DPA_NO_THREADS);

FLOWDPA_DPA_FORBID(sleep, FLOWDPA_DPA_NO_OS);
FLOWDPA_DPA_FORBID(usleep, FLOWDPA_DPA_NO_OS);
FLOWDPA_DPA_FORBID(nanosleep, FLOWDPA_DPA_NO_OS);
FLOWDPA_DPA_FORBID(fork, FLOWDPA_DPA_NO_OS);
FLOWDPA_DPA_FORBID(system, FLOWDPA_DPA_NO_OS);
FLOWDPA_DPA_FORBID(exit, FLOWDPA_DPA_NO_OS);
FLOWDPA_DPA_FORBID(getenv, FLOWDPA_DPA_NO_OS);

#endif /* FLOWDPA_DPA_PRELUDE_H_ */
