/*
 * overrun_kernel.c - device code with a heap overrun: the kernel writes one element past
 * the doca_dpa_mem_alloc block it is given. Built with -fsanitize=address by
 * install_asan_device.sh, which checks that ASan's report names the line marked OVERRUN.
 */
#include <doca_dpa_dev.h>

__dpa_global__ void fill_kernel(doca_dpa_dev_uintptr_t out, uint64_t count)
{
	uint32_t *slots = (uint32_t *)out;

	for (uint64_t i = 0; i <= count; i++) /* <=: one too many */
		slots[i] = (uint32_t)i;           /* OVERRUN */
}
