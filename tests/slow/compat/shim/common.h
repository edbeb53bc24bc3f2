/*
 * common.h (compat shim) - what DOCA's samples/common.h gives the flow samples' logic
 * files: the DOCA core headers. Ours; the samples' DPDK/argp helpers are not needed
 * because compat_main.c replaces each sample's *_main.c.
 */
#ifndef COMPAT_COMMON_H_
#define COMPAT_COMMON_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>

/* A device capability check (the samples' tasks_check). */
typedef doca_error_t (*tasks_check)(struct doca_devinfo *);

#endif
