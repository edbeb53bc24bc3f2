/* rte_random.h (compat shim) - DPDK's rte_rand, the one call flow_aging makes. */
#ifndef COMPAT_RTE_RANDOM_H_
#define COMPAT_RTE_RANDOM_H_

#include <stdint.h>
#include <stdlib.h>

static inline uint64_t rte_rand(void)
{
	return ((uint64_t)random() << 33) ^ ((uint64_t)random() << 11) ^ (uint64_t)random();
}

#endif
