/* A DOCA program that only uses the DOCA core API: logs and lists devices, and says
 * whether it was built against flowdpa (FLOWDPA) or NVIDIA's DOCA. It enables the
 * experimental API itself (doca_version_runtime is experimental): the .pc files must not
 * define it too, or this line is "redefined" under -Werror. */
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <stdio.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_version.h>

DOCA_LOG_REGISTER(USER::LIST);

int main(void)
{
	struct doca_devinfo **list;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint32_t n;
	doca_error_t rc;

	if (doca_log_backend_create_standard() != DOCA_SUCCESS)
		return 1;
	DOCA_LOG_INFO("built against %s, running on %s", doca_version(), doca_version_runtime());
#ifdef FLOWDPA
	printf("flowdpa %s (%d.%d.%d)\n", FLOWDPA_VERSION, FLOWDPA_VERSION_MAJOR, FLOWDPA_VERSION_MINOR,
	       FLOWDPA_VERSION_PATCH);
#else
	printf("NVIDIA DOCA\n");
#endif
#ifdef USER_DEVICE_APP
	extern struct doca_dpa_app *user_app;
	printf("device app %s\n", user_app != NULL ? "linked" : "missing");
#endif
	rc = doca_devinfo_create_list(&list, &n);
	if (rc != DOCA_SUCCESS) {
		DOCA_LOG_ERR("no devices: %s", doca_error_get_descr(rc));
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		doca_devinfo_get_pci_addr_str(list[i], pci);
		printf("device %u %s\n", i, pci);
	}
	doca_devinfo_destroy_list(list);
	return 0;
}
