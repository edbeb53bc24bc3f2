/*
 * doca_dpa_dev_sync_event.h - sync events from device code: read, update and wait on
 * an event whose handle the host got from doca_sync_event_get_dpa_handle. DOCA 3.0 names.
 * An invalid handle is a fatal device error: the instance ends, the context's
 * doca_dpa_peek_at_last_error turns BAD_STATE and the log says which handle.
 */
#ifndef DOCA_DPA_DEV_SYNC_EVENT_H_
#define DOCA_DPA_DEV_SYNC_EVENT_H_

#include <doca_dpa_dev.h>

#ifdef __cplusplus
extern "C" {
#endif

__dpa_global__ typedef uint64_t doca_dpa_dev_sync_event_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;

/* *value gets the event's current value. */
DOCA_EXPERIMENTAL
void doca_dpa_dev_sync_event_get(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t *value);

/* Atomically add value (wakes host and device waiters). */
DOCA_EXPERIMENTAL
void doca_dpa_dev_sync_event_update_add(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value);

/* Atomically set value (wakes host and device waiters). */
DOCA_EXPERIMENTAL
void doca_dpa_dev_sync_event_update_set(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value);

/* Block until (event value & mask) > value; ends the instance if the context is destroyed. */
DOCA_EXPERIMENTAL
void doca_dpa_dev_sync_event_wait_gt(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value, uint64_t mask);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_SYNC_EVENT_H_ */
