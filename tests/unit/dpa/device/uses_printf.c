/* uses_printf.c - must not build: a DPA has no stdio, device code logs with DOCA_DPA_DEV_LOG_*. */
#include <stdio.h>
#include <doca_dpa_dev.h>

__dpa_global__ void bad_kernel(void)
{
	printf("hello\n");
}
