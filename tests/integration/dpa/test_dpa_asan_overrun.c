/*
 * test_dpa_asan_overrun.c - in an ASan build, a kernel that writes past its device
 * allocation is reported by AddressSanitizer (the free part of the heap is poisoned).
 * Run through expect_report.py, which checks the report names the kernel.
 */
#include <stdio.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_sync_event.h>

extern struct doca_dpa_app *dpa_test_app;
extern doca_dpa_func_t rank_kernel;

uint64_t helper(uint64_t x);
uint64_t helper(uint64_t x)
{
	return x;
}

int main(void)
{
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct doca_sync_event *comp;
	doca_dpa_dev_uintptr_t slot;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || doca_dev_open(list[0], &dev) != DOCA_SUCCESS ||
	    doca_dpa_create(dev, &dpa) != DOCA_SUCCESS || doca_dpa_set_app(dpa, dpa_test_app) != DOCA_SUCCESS ||
	    doca_dpa_start(dpa) != DOCA_SUCCESS || doca_sync_event_create(&comp) != DOCA_SUCCESS ||
	    doca_sync_event_start(comp) != DOCA_SUCCESS || doca_dpa_mem_alloc(dpa, 8, &slot) != DOCA_SUCCESS)
		return 2;
	/* Two ranks, one 8-byte slot: rank 1 writes bytes 8..15, past the allocation. */
	if (doca_dpa_kernel_launch_update_set(dpa, NULL, 0, comp, 1, 2, &rank_kernel, slot) != DOCA_SUCCESS)
		return 2;
	doca_sync_event_wait_gt(comp, 0, UINT64_MAX);
	printf("overrun not detected\n");
	return 0;
}
