/*
 * core_internal.h - shared between the files of src/core only (and core's unit tests).
 */
#ifndef FLOWDPA_CORE_INTERNAL_H_
#define FLOWDPA_CORE_INTERNAL_H_

#include "core.h"

/* Forget every backend and level, then apply DOCA_LOG_LEVEL again (tests only). */
void core_log_env_reset(void);
/* Rebuild the device inventory from the current configuration (after a reload). */
void core_device_registry_reset(void);
/* "device <i>: <model> mlx5_<i>", the name a device's process gets in the trace. */
void core_device_describe(uint32_t index, char *buf, size_t len);
/* Open the trace file named by the configuration, or close it when none is named. */
void core_trace_configure(const char *path);
/* Start or stop collecting the report for the configured path. */
void core_report_configure(const char *path);

#endif /* FLOWDPA_CORE_INTERNAL_H_ */
