/*
 * doca_caps - lists the emulated devices and what they can do, in the spirit of
 * DOCA's tool of the same name. Reads the same configuration as every flowdpa
 * program (FLOWDPA_DEVICES, FLOWDPA_CONFIG, ...), so it shows what a program will see.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_version.h>

#include "core/core.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: doca_caps --list-devs [--json]\n"
		     "       doca_caps --version\n"
		     "Lists flowdpa's emulated devices: model, PCI address, ports and capabilities.\n"
		     "Devices come from FLOWDPA_DEVICES (default bf3) or the FLOWDPA_CONFIG file.\n");
}

static void print_text(const struct core_dev_caps *c)
{
	printf("%s  pci %s  iface %s  model %s  ports %u  mac %02x:%02x:%02x:%02x:%02x:%02x\n", c->ibdev_name,
	       c->pci_addr, c->iface_name, c->model_name, c->nr_ports, c->mac[0], c->mac[1], c->mac[2], c->mac[3],
	       c->mac[4], c->mac[5]);
	printf("    flow: %s\n", c->has_flow ? "yes" : "no");
	if (c->has_dpa)
		printf("    dpa: yes (%u cores x %u EUs = %u EUs, heap %llu MiB, %u queues per type of depth <= %u)\n",
		       c->dpa_cores, c->dpa_eus_per_core, c->dpa_cores * c->dpa_eus_per_core,
		       (unsigned long long)(c->dpa_heap_size >> 20), c->dpa_max_queues, c->dpa_max_queue_size);
	else
		printf("    dpa: no\n");
}

static void print_json(struct core_json *j, const struct core_dev_caps *c)
{
	char mac[18];

	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", c->mac[0], c->mac[1], c->mac[2], c->mac[3],
		 c->mac[4], c->mac[5]);
	core_json_object_begin(j);
	core_json_key(j, "ibdev_name");
	core_json_str(j, c->ibdev_name);
	core_json_key(j, "pci_addr");
	core_json_str(j, c->pci_addr);
	core_json_key(j, "iface_name");
	core_json_str(j, c->iface_name);
	core_json_key(j, "mac");
	core_json_str(j, mac);
	core_json_key(j, "model");
	core_json_str(j, c->model_name);
	core_json_key(j, "ports");
	core_json_u64(j, c->nr_ports);
	core_json_key(j, "caps");
	core_json_object_begin(j);
	core_json_key(j, "flow");
	core_json_bool(j, c->has_flow);
	core_json_key(j, "dpa");
	core_json_bool(j, c->has_dpa);
	core_json_key(j, "dpa_cores");
	core_json_u64(j, c->dpa_cores);
	core_json_key(j, "dpa_eus_per_core");
	core_json_u64(j, c->dpa_eus_per_core);
	core_json_key(j, "dpa_eus");
	core_json_u64(j, (uint64_t)c->dpa_cores * c->dpa_eus_per_core);
	core_json_key(j, "dpa_heap_size");
	core_json_u64(j, c->dpa_heap_size);
	core_json_object_end(j);
	core_json_object_end(j);
}

static int list_devs(int json)
{
	struct doca_devinfo **list;
	struct core_json *j = NULL;
	uint32_t n;
	doca_error_t rc = doca_devinfo_create_list(&list, &n);

	if (rc != DOCA_SUCCESS) {
		fprintf(stderr, "doca_caps: cannot list devices: %s\n", doca_error_get_descr(rc));
		return 2;
	}
	if (json) {
		j = core_json_new();
		if (j == NULL) {
			doca_devinfo_destroy_list(list);
			return 2;
		}
		core_json_array_begin(j);
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct core_dev_caps *c = core_devinfo_caps(list[i]);

		if (json)
			print_json(j, c);
		else
			print_text(c);
	}
	if (json) {
		core_json_array_end(j);
		puts(core_json_text(j) ? core_json_text(j) : "null");
		core_json_free(j);
	}
	doca_devinfo_destroy_list(list);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"list-devs", no_argument, NULL, 'l'},
		{"json", no_argument, NULL, 'j'},
		{"version", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int list = 0;
	int json = 0;
	int c;

	while ((c = getopt_long(argc, argv, "ljvh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			list = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'v':
			printf("doca_caps (flowdpa) %s\n", doca_version_runtime());
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc || !list) {
		usage(stderr);
		return 1;
	}
	return list_devs(json);
}
