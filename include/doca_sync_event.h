/*
 * doca_sync_event.h - DOCA sync events: a 64-bit value that host and DPA code update
 * and wait on, used to order kernel launches and to signal completions. The subset of
 * DOCA 3.0 that flowdpa's docs/dpa.md describes (GPU locations, tasks and remote-PCI
 * export are not declared).
 *
 * Locations (publisher/subscriber on CPU or DPA) are recorded as hints: any side may
 * update or wait on a started event. The remote-net calls exist so that programs link;
 * flowdpa has no network between hosts, so they return DOCA_ERROR_NOT_SUPPORTED.
 */
#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_sync_event;
struct doca_sync_event_remote_net;
struct doca_dev;
struct doca_devinfo;
struct doca_dpa;
struct doca_ctx;
struct doca_gpu;

/* Handles as device code sees them. */
typedef uint64_t doca_dpa_dev_sync_event_t;
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;
typedef uint64_t doca_gpu_dev_sync_event_t;

/* A new event, value 0, not started. INVALID_VALUE for NULL; NO_MEMORY. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_create(struct doca_sync_event **event);
/*
 * Destroy an event in any state (host waiters must be gone; device waiters end with a
 * fatal device error). INVALID_VALUE for NULL or a non-event; IN_USE (logged, event
 * intact) while a kernel launch not yet complete names it as wait or completion event;
 * TIME_OUT (logged, event intact) if a device call still uses it after 2 s.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_destroy(struct doca_sync_event *event);

/*
 * Declare who updates (publisher) and who waits (subscriber). Before start only
 * (BAD_STATE after); INVALID_VALUE for NULL arguments. The DPA forms hold the context:
 * doca_dpa_destroy returns IN_USE until the event is destroyed.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event, struct doca_dev *dev);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event, struct doca_dev *dev);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa);
/* NOT_SUPPORTED: there is no remote host in flowdpa. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event);

/*
 * Keep the value in user memory at addr (8-byte aligned, valid until destroy) instead
 * of inside the event. Before start; INVALID_VALUE for NULL or a misaligned address;
 * BAD_STATE (logged, event unchanged) while a kernel launch not yet complete names the
 * event, or once it has a DPA handle (doca_sync_event_get_dpa_handle): set it first.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/* Start (value operations allowed) / stop (back to configuration). BAD_STATE when
 * already in that state. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_start(struct doca_sync_event *event);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_stop(struct doca_sync_event *event);

/*
 * Atomic value operations on a started event (BAD_STATE otherwise; INVALID_VALUE for
 * NULL). update_add stores the previous value in *fetched when fetched is not NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value, uint64_t *fetched);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);

/*
 * Block until (event value & mask) is greater than / equal to / different from value.
 * No timeout. The plain forms spin briefly then sleep until the next update; the
 * _yield forms call sched_yield() between polls.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/* SUCCESS when the device has a DPA; NOT_SUPPORTED otherwise; INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);

/*
 * The handle device code passes to doca_dpa_dev_sync_event_*. The event must be
 * started and have a DPA location on this dpa (BAD_STATE otherwise). Nonzero, stable.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
					    doca_dpa_dev_sync_event_t *dpa_dev_se_handle);

/* Remote-net events: NOT_SUPPORTED (INVALID_VALUE for NULL arguments). */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data, size_t *sz);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
							   struct doca_sync_event_remote_net **event);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
						       doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
