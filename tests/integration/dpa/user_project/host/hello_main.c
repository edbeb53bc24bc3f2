/* hello_main.c - host side of the installed-flowdpa user project (unmodified DOCA calls). */
#include <stdio.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_sync_event.h>

extern struct doca_dpa_app *hello_app;
extern doca_dpa_func_t hello_kernel, sum_rpc;

#define TRY(call)                                                                            \
	do {                                                                                 \
		doca_error_t r_ = (call);                                                    \
		if (r_ != DOCA_SUCCESS) {                                                    \
			fprintf(stderr, "%s: %s\n", #call, doca_error_get_name(r_));         \
			return 1;                                                            \
		}                                                                            \
	} while (0)

int main(void)
{
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev;
	struct doca_dpa *dpa;
	struct doca_sync_event *comp;
	doca_dpa_dev_uintptr_t out;
	uint64_t ranks[4], sum = 0;

	TRY(doca_devinfo_create_list(&list, &n));
	TRY(doca_dev_open(list[0], &dev));
	TRY(doca_devinfo_destroy_list(list));
	TRY(doca_dpa_create(dev, &dpa));
	TRY(doca_dpa_set_app(dpa, hello_app));
	TRY(doca_dpa_start(dpa));
	TRY(doca_dpa_mem_alloc(dpa, sizeof(ranks), &out));
	TRY(doca_sync_event_create(&comp));
	TRY(doca_sync_event_add_publisher_location_dpa(comp, dpa));
	TRY(doca_sync_event_add_subscriber_location_cpu(comp, dev));
	TRY(doca_sync_event_start(comp));
	TRY(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, comp, 1, 4, &hello_kernel, out));
	TRY(doca_sync_event_wait_gt(comp, 0, UINT64_MAX));
	TRY(doca_dpa_d2h_memcpy(dpa, ranks, out, sizeof(ranks)));
	TRY(doca_dpa_rpc(dpa, &sum_rpc, &sum, 40ull, 2ull));
	printf("ranks %llu %llu %llu %llu sum %llu\n", (unsigned long long)ranks[0], (unsigned long long)ranks[1],
	       (unsigned long long)ranks[2], (unsigned long long)ranks[3], (unsigned long long)sum);
	TRY(doca_sync_event_destroy(comp));
	TRY(doca_dpa_mem_free(dpa, out));
	TRY(doca_dpa_destroy(dpa));
	TRY(doca_dev_close(dev));
	return 0;
}
