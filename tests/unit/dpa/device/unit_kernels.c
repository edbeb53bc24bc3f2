/* unit_kernels.c - a minimal device image (unit_app) for the DPA unit tests. */
#include <doca_dpa_dev.h>

__dpa_global__ void unit_kernel(doca_dpa_dev_uintptr_t out, uint64_t value)
{
	*(uint64_t *)out = value + doca_dpa_dev_thread_rank();
}

__dpa_rpc__ uint64_t unit_rpc(uint64_t a)
{
	return a * 2;
}

/* Selects the context h (the base's or an extended context's handle). */
__dpa_rpc__ uint64_t set_device_rpc(doca_dpa_dev_t h)
{
	doca_dpa_dev_device_set(h);
	return 1;
}
