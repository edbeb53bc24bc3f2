/*
 * test_dpa_observe.c - runs a 4-thread launch, an RPC and a faulting kernel so that
 * check_observe.py can verify the DPA section of FLOWDPA_REPORT and the kernel slices
 * and DPA thread names in FLOWDPA_TRACE.
 */
#include <stdio.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_log.h>
#include <doca_sync_event.h>

extern struct doca_dpa_app *dpa_test_app;
extern doca_dpa_func_t rank_kernel, fault_kernel, add_rpc;

uint64_t helper(uint64_t x);
uint64_t helper(uint64_t x)
{
	return x;
}

#define TRY(call)                                                                    \
	do {                                                                         \
		if ((call) != DOCA_SUCCESS) {                                        \
			fprintf(stderr, "%s failed\n", #call);                       \
			return 1;                                                    \
		}                                                                    \
	} while (0)

int main(void)
{
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev;
	struct doca_dpa *dpa, *dpa2;
	struct doca_sync_event *comp;
	doca_dpa_dev_uintptr_t buf;
	uint64_t ret = 0;

	TRY(doca_devinfo_create_list(&list, &n));
	TRY(doca_dev_open(list[0], &dev));
	TRY(doca_devinfo_destroy_list(list));
	TRY(doca_dpa_create(dev, &dpa));
	TRY(doca_dpa_set_app(dpa, dpa_test_app));
	TRY(doca_dpa_start(dpa));
	TRY(doca_dpa_mem_alloc(dpa, 4 * sizeof(uint64_t), &buf));
	TRY(doca_sync_event_create(&comp));
	TRY(doca_sync_event_start(comp));
	TRY(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, comp, 1, 4, &rank_kernel, buf));
	TRY(doca_sync_event_wait_gt(comp, 0, UINT64_MAX));
	TRY(doca_dpa_rpc(dpa, &add_rpc, &ret, 1ull, 2u));
	TRY(doca_dpa_mem_free(dpa, buf));
	TRY(doca_dpa_destroy(dpa));
	/* A second context whose kernel faults. */
	TRY(doca_dpa_create(dev, &dpa2));
	TRY(doca_dpa_set_app(dpa2, dpa_test_app));
	TRY(doca_dpa_start(dpa2));
	TRY(doca_dpa_kernel_launch_update_set(dpa2, NULL, 0, NULL, 0, 1, &fault_kernel, 0x10ull, 0u));
	for (int i = 0; i < 2000 && doca_dpa_peek_at_last_error(dpa2) == DOCA_SUCCESS; i++)
		usleep(1000);
	usleep(10000);
	TRY(doca_dpa_destroy(dpa2));
	TRY(doca_sync_event_destroy(comp));
	TRY(doca_dev_close(dev));
	return 0;
}
