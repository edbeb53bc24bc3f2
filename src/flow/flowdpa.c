/*
 * flowdpa.c - the emulator control API (include/flowdpa.h) over the NIC: synchronous
 * injection, captures (TX, host, kernel target), statistics.
 */
#include <string.h>

#include <flowdpa.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOWDPA);

_Static_assert(FLOWDPA_MAX_FRAME == NIC_MAX_FRAME, "frame limits differ");

/* Injected frames are copied here: processing rewrites in place. */
static _Thread_local uint8_t inject_buf[NIC_BURST_MAX][NIC_MAX_FRAME];

static doca_error_t check_port(uint16_t port_id, const char *who)
{
	if (port_id >= NIC_MAX_PORTS) {
		CORE_LOG_ERR("%s: port id %u out of range", who, port_id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!nic_port_started(port_id)) {
		CORE_LOG_ERR("%s: port %u is not started", who, port_id);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static bool frame_usable(const void *frame, uint32_t len)
{
	return frame != NULL && len >= 14 && len <= NIC_MAX_FRAME;
}

static bool frame_ok(const void *frame, uint32_t len, const char *who)
{
	if (frame == NULL) {
		CORE_LOG_ERR("%s: frame is NULL", who);
		return false;
	}
	if (!frame_usable(frame, len)) {
		CORE_LOG_ERR("%s: frame of %u bytes is unparseable (an Ethernet frame has 14..%u bytes)", who, len,
			     NIC_MAX_FRAME);
		return false;
	}
	return true;
}

doca_error_t flowdpa_port_inject(uint16_t port_id, const void *frame, uint32_t len)
{
	doca_error_t err = check_port(port_id, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (!frame_ok(frame, len, __func__)) {
		struct nic_buf b = {inject_buf[0], 0};
		nic_port_rx_burst(port_id, &b, 1); /* counted as an rx error */
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(inject_buf[0], frame, len);
	struct nic_buf b = {inject_buf[0], len};
	nic_port_rx_burst(port_id, &b, 1);
	return DOCA_SUCCESS;
}

doca_error_t flowdpa_port_inject_burst(uint16_t port_id, const void *const *frames, const uint32_t *lens, uint32_t n,
				       uint32_t *nb_accepted)
{
	doca_error_t err = check_port(port_id, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (frames == NULL || lens == NULL) {
		CORE_LOG_ERR("%s: frames or lens is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	uint32_t done = 0, bad = 0, first_bad = 0;
	struct nic_buf bufs[NIC_BURST_MAX];
	for (uint32_t i = 0; i < n;) {
		uint32_t k = 0;
		for (; k < NIC_BURST_MAX && i < n; i++, k++) {
			bufs[k].data = inject_buf[k];
			bufs[k].len = 0;
			if (!frame_usable(frames[i], lens[i])) {
				if (bad++ == 0)
					first_bad = i;
				continue; /* len 0: counted as an rx error by the NIC */
			}
			memcpy(inject_buf[k], frames[i], lens[i]);
			bufs[k].len = lens[i];
		}
		done += nic_port_rx_burst(port_id, bufs, k);
	}
	if (nb_accepted)
		*nb_accepted = done;
	/* One line per call, however many frames were bad. */
	CHECK(bad == 0, DOCA_ERROR_INVALID_VALUE,
	      "%s: %u of %u frames unparseable (NULL, or not 14..%u bytes; the first is frame %u), counted as rx "
	      "errors",
	      __func__, bad, n, NIC_MAX_FRAME, first_bad);
	return DOCA_SUCCESS;
}

static doca_error_t pop(uint16_t port_id, enum nic_capture_queue q, void *buf, uint32_t cap, uint32_t *len,
			const char *who)
{
	if (port_id >= NIC_MAX_PORTS || len == NULL || (buf == NULL && cap)) {
		CORE_LOG_ERR("%s: bad port id %u or NULL buffer/len", who, port_id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return nic_capture_pop(port_id, q, buf, cap, len);
}

doca_error_t flowdpa_port_capture_pop(uint16_t port_id, void *buf, uint32_t cap, uint32_t *len)
{
	return pop(port_id, NIC_CAPTURE_TX, buf, cap, len, __func__);
}

doca_error_t flowdpa_host_capture_pop(uint16_t port_id, void *buf, uint32_t cap, uint32_t *len)
{
	return pop(port_id, NIC_CAPTURE_HOST, buf, cap, len, __func__);
}

doca_error_t flowdpa_kernel_capture_pop(uint16_t port_id, void *buf, uint32_t cap, uint32_t *len)
{
	return pop(port_id, NIC_CAPTURE_KERNEL, buf, cap, len, __func__);
}

uint32_t flowdpa_port_capture_count(uint16_t port_id)
{
	return nic_capture_count(port_id, NIC_CAPTURE_TX);
}

uint32_t flowdpa_host_capture_count(uint16_t port_id)
{
	return nic_capture_count(port_id, NIC_CAPTURE_HOST);
}

uint32_t flowdpa_kernel_capture_count(uint16_t port_id)
{
	return nic_capture_count(port_id, NIC_CAPTURE_KERNEL);
}

static doca_error_t set_depth(uint16_t port_id, enum nic_capture_queue q, uint32_t depth, const char *who)
{
	doca_error_t err = check_port(port_id, who);
	if (err != DOCA_SUCCESS)
		return err;
	err = nic_capture_set_depth(port_id, q, depth);
	if (err != DOCA_SUCCESS)
		CORE_LOG_ERR("%s: port %u: cannot keep %u frames: %s", who, port_id, depth, doca_error_get_name(err));
	return err;
}

doca_error_t flowdpa_port_capture_set_depth(uint16_t port_id, uint32_t depth)
{
	return set_depth(port_id, NIC_CAPTURE_TX, depth, __func__);
}

doca_error_t flowdpa_host_capture_set_depth(uint16_t port_id, uint32_t depth)
{
	return set_depth(port_id, NIC_CAPTURE_HOST, depth, __func__);
}

doca_error_t flowdpa_kernel_capture_set_depth(uint16_t port_id, uint32_t depth)
{
	return set_depth(port_id, NIC_CAPTURE_KERNEL, depth, __func__);
}

doca_error_t flowdpa_port_stats_get(uint16_t port_id, struct flowdpa_port_stats *stats)
{
	if (port_id >= NIC_MAX_PORTS || stats == NULL) {
		CORE_LOG_ERR("%s: bad port id %u or NULL stats", __func__, port_id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	struct nic_port_stats s;
	doca_error_t err = nic_port_stats_get(port_id, &s);
	if (err != DOCA_SUCCESS)
		return err;
	stats->rx_pkts = s.rx_pkts;
	stats->rx_bytes = s.rx_bytes;
	stats->rx_errors = s.rx_errors;
	stats->tx_pkts = s.tx_pkts;
	stats->tx_bytes = s.tx_bytes;
	stats->host_pkts = s.host_pkts;
	stats->drops = s.drops;
	stats->capture_overflow = s.capture_overflow;
	stats->kernel_pkts = s.kernel_pkts;
	return DOCA_SUCCESS;
}

doca_error_t flowdpa_traffic_wait(uint32_t timeout_ms)
{
	uint16_t port = 0;
	doca_error_t err = nic_traffic_wait(timeout_ms, &port);
	if (err == DOCA_ERROR_BAD_STATE)
		CORE_LOG_ERR("%s: FLOWDPA_PORT%u_RX is set but port %u is not started: its source cannot play", __func__,
			     port, port);
	else if (err != DOCA_SUCCESS)
		CORE_LOG_ERR("%s: traffic sources still running after %u ms (port %u among them)", __func__, timeout_ms,
			     port);
	return err;
}
