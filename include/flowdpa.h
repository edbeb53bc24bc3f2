/*
 * flowdpa.h - the emulator control API of flowdpa (not DOCA): put frames into a port of
 * the software NIC, take what left a port or reached the host queue, wait for the
 * FLOWDPA_PORTn_RX sources, read port statistics.
 *
 * Injection is synchronous ("manual mode"): when flowdpa_port_inject returns, the frame
 * has walked the port's pipes, its counters are bumped and its copy (if transmitted) is
 * in the capture ring, so tests are deterministic. Any number of threads may inject at
 * once. A port id is the logical id given to doca_flow_port_cfg_set_port_id.
 */
#ifndef FLOWDPA_H_
#define FLOWDPA_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest frame the software NIC carries. */
#define FLOWDPA_MAX_FRAME 2048

struct flowdpa_port_stats {
	uint64_t rx_pkts;	   /* frames received and parsed */
	uint64_t rx_bytes;
	uint64_t rx_errors;	   /* frames refused as unparseable (shorter than Ethernet) */
	uint64_t tx_pkts;	   /* frames that left this port */
	uint64_t tx_bytes;
	uint64_t host_pkts;	   /* frames of this port's pipeline delivered to the host (RSS, default miss) */
	uint64_t drops;		   /* frames received here and dropped (fwd DROP, no root pipe, destroyed pipe) */
	uint64_t capture_overflow; /* frames transmitted but not kept by a full capture ring */
	uint64_t kernel_pkts;	   /* frames of this port's pipeline sent to the kernel target (not drops) */
};

/*
 * Run one frame (copied; the caller's buffer is not changed) through the pipeline of a
 * started port. INVALID_VALUE for NULL, a frame shorter than 14 bytes (unparseable) or
 * longer than FLOWDPA_MAX_FRAME; BAD_STATE when the port is not started.
 */
DOCA_EXPERIMENTAL doca_error_t flowdpa_port_inject(uint16_t port_id, const void *frame, uint32_t len);
/*
 * The same for n frames; *nb_accepted (may be NULL) gets how many were run. Unparseable
 * frames are counted in rx_errors and skipped; the call then returns INVALID_VALUE
 * after running the others.
 */
DOCA_EXPERIMENTAL doca_error_t flowdpa_port_inject_burst(uint16_t port_id, const void *const *frames,
							 const uint32_t *lens, uint32_t n, uint32_t *nb_accepted);
/*
 * Pop the oldest frame that left port_id (flowdpa_port_capture_pop) or that the port's
 * pipeline delivered to the host (flowdpa_host_capture_pop). At most cap bytes are
 * copied; *len gets the frame length. NOT_FOUND when nothing is captured,
 * INVALID_VALUE for a bad port id or NULL len.
 */
DOCA_EXPERIMENTAL doca_error_t flowdpa_port_capture_pop(uint16_t port_id, void *buf, uint32_t cap, uint32_t *len);
DOCA_EXPERIMENTAL doca_error_t flowdpa_host_capture_pop(uint16_t port_id, void *buf, uint32_t cap, uint32_t *len);
/*
 * The kernel queue: frames of port_id's pipeline forwarded to DOCA_FLOW_TARGET_KERNEL
 * (DOCA_FLOW_FWD_TARGET), as the kernel network stack would receive them. Same rules as
 * flowdpa_host_capture_pop / _count / _set_depth (1024 frames at port start).
 */
DOCA_EXPERIMENTAL doca_error_t flowdpa_kernel_capture_pop(uint16_t port_id, void *buf, uint32_t cap, uint32_t *len);
DOCA_EXPERIMENTAL uint32_t flowdpa_kernel_capture_count(uint16_t port_id);
DOCA_EXPERIMENTAL doca_error_t flowdpa_kernel_capture_set_depth(uint16_t port_id, uint32_t depth);
/* Frames waiting in a capture ring (0 for a bad port id). */
DOCA_EXPERIMENTAL uint32_t flowdpa_port_capture_count(uint16_t port_id);
DOCA_EXPERIMENTAL uint32_t flowdpa_host_capture_count(uint16_t port_id);
/*
 * Capture ring depth in frames (1024 at port start; 0 turns the ring off, e.g. for
 * benchmarks). Clears the ring. BAD_STATE when the port is not started.
 */
DOCA_EXPERIMENTAL doca_error_t flowdpa_port_capture_set_depth(uint16_t port_id, uint32_t depth);
DOCA_EXPERIMENTAL doca_error_t flowdpa_host_capture_set_depth(uint16_t port_id, uint32_t depth);
/* Statistics of a port (zeroed at port start). INVALID_VALUE for a bad id or NULL. */
DOCA_EXPERIMENTAL doca_error_t flowdpa_port_stats_get(uint16_t port_id, struct flowdpa_port_stats *stats);
/*
 * Wait until every FLOWDPA_PORTn_RX source has played out (timeout_ms 0: no limit).
 * TIME_OUT when one is still running; BAD_STATE at once when a configured source cannot
 * play because its port has not started since doca_flow_init. A source whose port was
 * stopped before it played out has ended.
 */
DOCA_EXPERIMENTAL doca_error_t flowdpa_traffic_wait(uint32_t timeout_ms);

/*
 * Move the aging clock ms milliseconds ahead, for every port at once. The clock is the
 * monotonic time plus everything advanced so far: doca_flow_aging_handle compares it
 * with monitor.aging_sec, so a test ages entries without sleeping.
 */
DOCA_EXPERIMENTAL void flowdpa_clock_advance_ms(uint64_t ms);

#ifdef __cplusplus
}
#endif

#endif /* FLOWDPA_H_ */
