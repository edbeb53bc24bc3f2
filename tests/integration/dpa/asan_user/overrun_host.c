/*
 * overrun_host.c - the host side of install_asan_device.sh: allocates 16 uint32_t of
 * device memory (the line marked ALLOC) and launches fill_kernel over them, which
 * writes a 17th (a second block follows the first, so only a redzone between them
 * makes the overrun visible). With "free": frees the block first, and fill_kernel writes its first
 * element only (a use after free). Exit 0 means ASan did not see the bad access.
 */
#include <string.h>
#include <stdio.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_sync_event.h>

extern struct doca_dpa_app *overrun_app;
extern doca_dpa_func_t fill_kernel;

#define COUNT 16

int main(int argc, char **argv)
{
	int after_free = argc > 1 && strcmp(argv[1], "free") == 0;
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct doca_sync_event *done;
	doca_dpa_dev_uintptr_t slots, next;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || doca_dev_open(list[0], &dev) != DOCA_SUCCESS ||
	    doca_dpa_create(dev, &dpa) != DOCA_SUCCESS || doca_dpa_set_app(dpa, overrun_app) != DOCA_SUCCESS ||
	    doca_dpa_start(dpa) != DOCA_SUCCESS || doca_sync_event_create(&done) != DOCA_SUCCESS ||
	    doca_sync_event_add_publisher_location_dpa(done, dpa) != DOCA_SUCCESS ||
	    doca_sync_event_add_subscriber_location_cpu(done, dev) != DOCA_SUCCESS ||
	    doca_sync_event_start(done) != DOCA_SUCCESS) {
		fprintf(stderr, "setup failed\n");
		return 2;
	}
	if (doca_dpa_mem_alloc(dpa, COUNT * sizeof(uint32_t), &slots) != DOCA_SUCCESS) /* ALLOC */
		return 2;
	/* A block right behind: without a redzone between them the overrun would land in it. */
	if (doca_dpa_mem_alloc(dpa, 64, &next) != DOCA_SUCCESS)
		return 2;
	if (after_free && doca_dpa_mem_free(dpa, slots) != DOCA_SUCCESS)
		return 2;
	if (doca_dpa_kernel_launch_update_set(dpa, NULL, 0, done, 1, 1, &fill_kernel, slots,
					      (uint64_t)(after_free ? 0 : COUNT)) != DOCA_SUCCESS)
		return 2;
	doca_sync_event_wait_gt(done, 0, UINT64_MAX);
	printf("bad device access not detected\n");
	return 0;
}
