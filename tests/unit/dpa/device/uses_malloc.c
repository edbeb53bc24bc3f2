/* uses_malloc.c - must not build: a DPA has no malloc (the dpacc prelude says so). */
#include <stdlib.h>
#include <doca_dpa_dev.h>

__dpa_global__ void bad_kernel(doca_dpa_dev_uintptr_t out)
{
	uint64_t *p = malloc(sizeof(*p));

	*(uint64_t **)out = p;
}
