/*
 * dpdk_bridge.c - doca_dpdk.h: DPDK port numbers <-> emulated devices. Port ids count the
 * ports of the devices of FLOWDPA_DEVICES in inventory order (device 0's ports first).
 * The devices this bridge opens stay open until exit, one open per device, as DOCA's
 * DPDK port holds its device.
 */
#include "core.h"

#include <pthread.h>

#include <doca_dpdk.h>

DOCA_LOG_REGISTER(CORE::DPDK);

static pthread_mutex_t bridge_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doca_dev *bridge_devs[CORE_MAX_DEVICES];

doca_error_t doca_dpdk_port_as_dev(uint16_t port_id, struct doca_dev **dev)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0, first = 0;
	doca_error_t err;

	if (dev == NULL) {
		CORE_LOG_ERR("doca_dpdk_port_as_dev: dev is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = doca_devinfo_create_list(&list, &n);
	if (err != DOCA_SUCCESS)
		return err;
	err = DOCA_ERROR_NOT_FOUND;
	for (uint32_t i = 0; i < n; i++) {
		const struct core_dev_caps *caps = core_devinfo_caps(list[i]);
		if (port_id >= first + caps->nr_ports) {
			first += caps->nr_ports;
			continue;
		}
		pthread_mutex_lock(&bridge_lock);
		err = DOCA_SUCCESS;
		if (caps->index >= CORE_MAX_DEVICES)
			err = DOCA_ERROR_NOT_FOUND;
		else if (bridge_devs[caps->index] == NULL)
			err = doca_dev_open(list[i], &bridge_devs[caps->index]);
		if (err == DOCA_SUCCESS)
			*dev = bridge_devs[caps->index];
		pthread_mutex_unlock(&bridge_lock);
		break;
	}
	doca_devinfo_destroy_list(list);
	if (err == DOCA_ERROR_NOT_FOUND)
		CORE_LOG_ERR("doca_dpdk_port_as_dev: no emulated device has DPDK port %u (the devices have %u ports)",
			     port_id, first);
	return err;
}

doca_error_t doca_dpdk_get_first_port_id(const struct doca_dev *dev, uint16_t *port_id)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0, first = 0;
	const struct core_dev_caps *want;
	doca_error_t err;

	if (dev == NULL || port_id == NULL) {
		CORE_LOG_ERR("doca_dpdk_get_first_port_id: %s is NULL", dev == NULL ? "dev" : "port_id");
		return DOCA_ERROR_INVALID_VALUE;
	}
	want = core_dev_caps(dev);
	if (want == NULL || want->nr_ports == 0) {
		CORE_LOG_ERR("doca_dpdk_get_first_port_id: %s", want == NULL ? "not an open flowdpa device" : "device has no ports");
		return DOCA_ERROR_NOT_FOUND;
	}
	err = doca_devinfo_create_list(&list, &n);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		const struct core_dev_caps *caps = core_devinfo_caps(list[i]);
		if (caps->index == want->index)
			break;
		first += caps->nr_ports;
	}
	doca_devinfo_destroy_list(list);
	*port_id = (uint16_t)first;
	return DOCA_SUCCESS;
}
