/* bench_kernels.c - device side of bench_dpa: kernels and an RPC that do (almost) nothing. */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

__dpa_global__ void bench_noop_kernel(void)
{
}

/* Touches device memory so the instance is not an empty call. */
__dpa_global__ void bench_store_kernel(doca_dpa_dev_uintptr_t out, uint64_t value)
{
	((uint64_t *)out)[doca_dpa_dev_thread_rank()] = value;
}

__dpa_rpc__ uint64_t bench_echo_rpc(uint64_t value)
{
	return value + 1;
}

/* DPA thread body: one run per notification, signals the host through a sync event. */
__dpa_global__ void bench_thread_kernel(uint64_t event_handle)
{
	doca_dpa_dev_sync_event_update_add(event_handle, 1);
}

__dpa_rpc__ uint64_t bench_notify_rpc(doca_dpa_dev_notification_completion_t h)
{
	doca_dpa_dev_thread_notify(h);
	return 0;
}
