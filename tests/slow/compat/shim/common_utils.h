/* common_utils.h (compat shim) - the one helper of DOCA's common_utils.h that flow_common.h's macros use. */
#ifndef COMPAT_COMMON_UTILS_H_
#define COMPAT_COMMON_UTILS_H_

#include <stdint.h>

static inline uint64_t common_utils_next_power_of_two(uint64_t x)
{
	uint64_t p = 1;
	while (p < x)
		p <<= 1;
	return p;
}

#endif
