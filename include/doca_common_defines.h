/* doca_common_defines.h - branch-prediction hints shared by every DOCA header. */
#ifndef DOCA_COMMON_DEFINES_H_
#define DOCA_COMMON_DEFINES_H_

#ifdef __GNUC__
#define doca_likely(x) __builtin_expect(!!(x), 1)
#define doca_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define doca_likely(x) (x)
#define doca_unlikely(x) (x)
#endif

#endif /* DOCA_COMMON_DEFINES_H_ */
