/*
 * old_kernels.c - built with FLOWDPA_DPACC_VERSION_OVERRIDE set, so that its image
 * (old_app) claims another dpacc version; doca_dpa_set_app must refuse it.
 */
#include <doca_dpa_dev.h>

__dpa_global__ void old_kernel(void)
{
}
