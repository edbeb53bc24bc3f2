/* hello_kernels.c - device side of the installed-flowdpa user project. */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

__dpa_global__ void hello_kernel(doca_dpa_dev_uintptr_t out)
{
	DOCA_DPA_DEV_LOG_INFO("Hello from kernel rank %u\n", doca_dpa_dev_thread_rank());
	((uint64_t *)out)[doca_dpa_dev_thread_rank()] = 100 + doca_dpa_dev_thread_rank();
}

__dpa_rpc__ uint64_t sum_rpc(uint64_t a, uint64_t b)
{
	return a + b;
}
