/* version.c - the runtime half of doca_version.h. */
#include <doca_version.h>

DOCA_EXPERIMENTAL const char *doca_version_runtime(void)
{
	return DOCA_VERSION_STRING;
}
