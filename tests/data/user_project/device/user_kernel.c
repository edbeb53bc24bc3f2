/* A device source that enables DOCA's experimental API itself (dpacc allows it for
 * device code too: neither may make this line "redefined" under -Werror) and checks
 * that FLOWDPA is visible on the device side. */
#define DOCA_ALLOW_EXPERIMENTAL_API 1

#include <doca_dpa_dev.h>

#ifndef FLOWDPA
#error "FLOWDPA is not defined in device code"
#endif

__dpa_global__ void user_kernel(uint64_t dpa)
{
	doca_dpa_dev_device_set(dpa); /* DOCA_EXPERIMENTAL */
}
