/*
 * dpa_common.h (compat shim) - what DOCA's samples/doca_dpa/dpa_common.h gives the DPA
 * samples that flowdpa runs (dpa_nvqual): the DOCA headers it pulls in. The RDMA and
 * mmap helpers of NVIDIA's file are not needed by those samples and not provided.
 */
#ifndef COMPAT_DPA_COMMON_H_
#define COMPAT_DPA_COMMON_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_sync_event.h>
#include <doca_types.h>

#define DEVICE_DEFAULT_NAME "NOT_SET"

#endif
