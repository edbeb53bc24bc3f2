/* Calls an experimental DOCA function without DOCA_ALLOW_EXPERIMENTAL_API: as with
 * NVIDIA's DOCA, this must warn ("Symbol is defined as experimental"), so an error under
 * -Werror. The install test checks that it does (the .pc files do not enable it). */
#include <stdio.h>

#include <doca_version.h>

int main(void)
{
	printf("%s\n", doca_version_runtime());
	return 0;
}
