/* rte_ethdev.h (compat shim) - flow_sampling includes DPDK's ethdev header but calls nothing of it. */
#ifndef COMPAT_RTE_ETHDEV_H_
#define COMPAT_RTE_ETHDEV_H_
#include <stdint.h>
#endif
