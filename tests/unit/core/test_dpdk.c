/*
 * test_dpdk.c - doca_dpdk.h: DPDK port ids count the ports of FLOWDPA_DEVICES in order;
 * the device of a port is opened once and is the same handle for every port of it;
 * get_first_port_id is the inverse; the refusals (NULL, a port no device has).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <doca_dpdk.h>

#include "log_capture.h"
#include "test_support.h"

static void ports_map_to_devices(void **state)
{
	(void)state;
	struct doca_dev *d0 = NULL, *d1 = NULL, *d2 = NULL, *d3 = NULL;
	uint16_t first = 99;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];

	assert_int_equal(doca_dpdk_port_as_dev(0, &d0), DOCA_SUCCESS);
	assert_int_equal(doca_dpdk_port_as_dev(1, &d1), DOCA_SUCCESS);
	assert_int_equal(doca_dpdk_port_as_dev(2, &d2), DOCA_SUCCESS);
	assert_int_equal(doca_dpdk_port_as_dev(4, &d3), DOCA_SUCCESS);
	assert_ptr_equal(d0, d1); /* device 0 has ports 0 and 1 */
	assert_ptr_not_equal(d0, d2);
	assert_ptr_equal(d2, d3); /* device 1 has ports 2..4 */
	assert_int_equal(doca_devinfo_get_pci_addr_str(doca_dev_as_devinfo(d2), pci), DOCA_SUCCESS);
	assert_string_equal(pci, "0000:04:00.0");
	assert_int_equal(doca_dpdk_get_first_port_id(d0, &first), DOCA_SUCCESS);
	assert_int_equal(first, 0);
	assert_int_equal(doca_dpdk_get_first_port_id(d3, &first), DOCA_SUCCESS);
	assert_int_equal(first, 2);
	/* The bridge keeps its open: the handle stays valid across calls. */
	struct doca_dev *again = NULL;
	assert_int_equal(doca_dpdk_port_as_dev(3, &again), DOCA_SUCCESS);
	assert_ptr_equal(again, d2);
}

static void refusals(void **state)
{
	(void)state;
	struct doca_dev *d = (struct doca_dev *)0x1;
	uint16_t id = 7;
	log_capture_clear();
	assert_int_equal(doca_dpdk_port_as_dev(5, &d), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(log_capture_count("no emulated device has DPDK port 5 (the devices have 5 ports)"), 1);
	assert_ptr_equal(d, (struct doca_dev *)0x1);
	assert_int_equal(doca_dpdk_port_as_dev(0, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("doca_dpdk_port_as_dev: dev is NULL"), 1);
	assert_int_equal(doca_dpdk_get_first_port_id(NULL, &id), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dpdk_port_as_dev(0, &d), DOCA_SUCCESS);
	assert_int_equal(doca_dpdk_get_first_port_id(d, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dpdk_get_first_port_id((const struct doca_dev *)&id, &id), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(id, 7);
	assert_int_equal(log_capture_count(NULL), 5);
}

int main(void)
{
	test_clear_flowdpa_env();
	setenv("FLOWDPA_DEVICES", "bf3:2,cx7:3", 1);
	if (log_capture_setup() != 0 || core_config_reload() != DOCA_SUCCESS)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ports_map_to_devices),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
