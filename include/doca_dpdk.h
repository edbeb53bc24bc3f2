/*
 * doca_dpdk.h - the part of DOCA's DPDK bridge that DOCA Flow samples call to turn a
 * DPDK port number into a DOCA device. flowdpa has no DPDK: its "DPDK ports" are the
 * ports of the emulated devices (FLOWDPA_DEVICES) numbered across the devices in
 * inventory order, as DPDK numbers the ports it probes (docs/configuration.md), so port
 * ids here are the same as doca_flow_port_cfg_set_devargs's port numbers.
 */
#ifndef DOCA_DPDK_H_
#define DOCA_DPDK_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_dev.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The device that owns DPDK port port_id, opened on the first call and kept open by the
 * bridge for the life of the process (as DOCA's port keeps its device): the caller must
 * not close it. INVALID_VALUE: dev is NULL. NOT_FOUND: no emulated device has that port.
 */
DOCA_EXPERIMENTAL doca_error_t doca_dpdk_port_as_dev(uint16_t port_id, struct doca_dev **dev);

/* The first DPDK port id of dev. INVALID_VALUE: NULL argument; NOT_FOUND: dev is not a
 * flowdpa device or has no ports. */
DOCA_EXPERIMENTAL doca_error_t doca_dpdk_get_first_port_id(const struct doca_dev *dev, uint16_t *port_id);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPDK_H_ */
