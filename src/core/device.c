/*
 * device.c - the emulated device inventory behind doca_dev.h.
 *
 * The inventory is built once from the configuration (FLOWDPA_DEVICES) and lives until
 * exit, so a struct doca_devinfo stays valid after its list is destroyed, as DOCA
 * promises for opened devices. Each devinfo embeds its one struct doca_dev with an
 * open count; other DOCA objects (a DPA context, a flow port) hold it under a short
 * name, and close refuses with IN_USE while they do, naming them. Handles live in
 * static storage and carry a magic that is cleared at the last close, so a double
 * close or a foreign pointer is refused instead of touching freed memory.
 */
#include "core.h"
#include "core_internal.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVINFO_MAGIC 0x64657669u /* "devi" */
#define DEV_MAGIC 0x6465766fu	  /* "devo" */

/* Holders named in doca_dev_close's IN_USE line; more are counted, not named. */
#define DEV_NAMED_HOLDERS 16

struct dev_holder {
	const void *owner; /* NULL: free slot */
	char what[48];
};

struct doca_dev {
	uint32_t magic; /* DEV_MAGIC while open */
	struct doca_devinfo *info;
	uint32_t opens;
	uint32_t holds; /* named or not */
	struct dev_holder holders[DEV_NAMED_HOLDERS];
};

struct doca_devinfo {
	uint32_t magic;
	struct core_dev_caps caps;
	struct doca_dev dev;
};

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doca_devinfo dev_registry[CORE_MAX_DEVICES];
static uint32_t dev_count;
static bool dev_built;

DOCA_LOG_REGISTER(DOCA_DEV);

static void caps_fill(struct core_dev_caps *c, uint32_t index, const struct core_device_cfg *d,
		      const struct core_config *cfg)
{
	memset(c, 0, sizeof(*c));
	c->index = index;
	c->model = d->model;
	c->model_name = core_device_model_name(d->model);
	c->nr_ports = d->nr_ports;
	c->has_flow = true;
	c->has_dpa = d->model == CORE_MODEL_BF3 || d->model == CORE_MODEL_CX7;
	if (c->has_dpa) {
		c->dpa_cores = cfg->dpa_cores;
		c->dpa_eus_per_core = cfg->dpa_eus_per_core;
		c->dpa_heap_size = cfg->dpa_heap_size;
		c->dpa_max_queues = 64;
		c->dpa_max_queue_size = 1u << 15;
	}
	snprintf(c->pci_addr, sizeof(c->pci_addr), "0000:%02x:00.0", 3 + index);
	snprintf(c->ibdev_name, sizeof(c->ibdev_name), "mlx5_%u", index);
	snprintf(c->iface_name, sizeof(c->iface_name), "p%u", index);
	/* Locally administered unicast MACs, unique per device. */
	c->mac[0] = 0x02;
	c->mac[4] = (uint8_t)index;
}

/* Called with dev_lock held. */
static void registry_build_locked(void)
{
	const struct core_config *cfg;

	if (dev_built)
		return;
	dev_built = true;
	dev_count = 0;
	cfg = core_config_get();
	if (cfg == NULL)
		return;
	for (uint32_t i = 0; i < cfg->nr_devices; i++) {
		dev_registry[i].magic = DEVINFO_MAGIC;
		caps_fill(&dev_registry[i].caps, i, &cfg->devices[i], cfg);
	}
	dev_count = cfg->nr_devices;
}

void core_device_registry_reset(void)
{
	pthread_mutex_lock(&dev_lock);
	dev_built = false;
	memset(dev_registry, 0, sizeof(dev_registry));
	registry_build_locked();
	pthread_mutex_unlock(&dev_lock);
}

static bool devinfo_valid(const struct doca_devinfo *info)
{
	return info != NULL && info >= dev_registry && info < dev_registry + CORE_MAX_DEVICES &&
	       info->magic == DEVINFO_MAGIC;
}

/* Only a pointer to one of the registry's embedded handles is looked into. */
static bool dev_valid(const struct doca_dev *dev)
{
	for (uint32_t i = 0; i < CORE_MAX_DEVICES; i++)
		if (dev == &dev_registry[i].dev)
			return dev->magic == DEV_MAGIC;
	return false;
}

const struct core_dev_caps *core_devinfo_caps(const struct doca_devinfo *devinfo)
{
	return devinfo_valid(devinfo) ? &devinfo->caps : NULL;
}

/* The caps of an open device, checked under the lock so that a concurrent close is seen. */
const struct core_dev_caps *core_dev_caps(const struct doca_dev *dev)
{
	const struct core_dev_caps *caps;

	pthread_mutex_lock(&dev_lock);
	caps = dev_valid(dev) ? &dev->info->caps : NULL;
	pthread_mutex_unlock(&dev_lock);
	return caps;
}

/* The trace's name for a device, from the inventory's own fields. */
void core_device_describe(uint32_t index, char *buf, size_t len)
{
	pthread_mutex_lock(&dev_lock);
	registry_build_locked();
	if (index < dev_count)
		snprintf(buf, len, "device %u: %s %s", index, dev_registry[index].caps.model_name,
			 dev_registry[index].caps.ibdev_name);
	else
		snprintf(buf, len, "device %u", index);
	pthread_mutex_unlock(&dev_lock);
}

DOCA_STABLE doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	struct doca_devinfo **list;

	if (dev_list == NULL || nb_devs == NULL) {
		CORE_LOG_ERR("dev_list and nb_devs must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (core_config_status() != DOCA_SUCCESS) {
		CORE_LOG_ERR("no devices: the flowdpa configuration is invalid (see the configuration error above)");
		return DOCA_ERROR_BAD_CONFIG;
	}
	pthread_mutex_lock(&dev_lock);
	registry_build_locked();
	/* One spare NULL slot so that the list is also NULL-terminated. */
	list = core_calloc(dev_count + 1, sizeof(*list));
	if (list != NULL)
		for (uint32_t i = 0; i < dev_count; i++)
			list[i] = &dev_registry[i];
	*nb_devs = list ? dev_count : 0;
	pthread_mutex_unlock(&dev_lock);
	if (list == NULL) {
		CORE_LOG_ERR("out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	*dev_list = list;
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
	if (dev_list == NULL) {
		CORE_LOG_ERR("dev_list must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	free(dev_list);
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
						       struct doca_devinfo_rep ***dev_list_rep, uint32_t *nb_devs_rep)
{
	(void)filter;
	if (core_dev_caps(dev) == NULL || dev_list_rep == NULL || nb_devs_rep == NULL) {
		CORE_LOG_ERR("dev must be an open device and the out pointers non-NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	CORE_LOG_DBG("%s is a host-side device and exposes no representors", dev->info->caps.ibdev_name);
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_STABLE doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep)
{
	if (dev_list_rep == NULL) {
		CORE_LOG_ERR("dev_list_rep must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	free(dev_list_rep);
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
	struct doca_dev *d;

	if (!devinfo_valid(devinfo) || dev == NULL) {
		CORE_LOG_ERR("devinfo must come from doca_devinfo_create_list and dev must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&dev_lock);
	d = &devinfo->dev;
	if (d->opens == 0)
		*d = (struct doca_dev){.magic = DEV_MAGIC, .info = devinfo};
	d->opens++;
	pthread_mutex_unlock(&dev_lock);
	*dev = d;
	return DOCA_SUCCESS;
}

/* "a, b and N other DOCA object(s)": the holders of dev, for doca_dev_close's IN_USE
 * line. Called with dev_lock held. */
static void holders_describe_locked(const struct doca_dev *dev, char *buf, size_t len)
{
	size_t off = 0;
	uint32_t named = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < DEV_NAMED_HOLDERS; i++) {
		if (dev->holders[i].owner == NULL)
			continue;
		int n = snprintf(buf + off, len - off, "%s%s", named ? ", " : "", dev->holders[i].what);

		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
		named++;
	}
	if (dev->holds > named)
		snprintf(buf + off, len - off, "%s%u other DOCA object(s)", named ? " and " : "", dev->holds - named);
}

DOCA_STABLE doca_error_t doca_dev_close(struct doca_dev *dev)
{
	char holders[DEV_NAMED_HOLDERS * 50 + 64];

	pthread_mutex_lock(&dev_lock);
	if (!dev_valid(dev)) {
		pthread_mutex_unlock(&dev_lock);
		CORE_LOG_ERR("not an open device (NULL, already closed, or not a doca_dev)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (dev->opens == 1 && dev->holds > 0) {
		holders_describe_locked(dev, holders, sizeof(holders));
		pthread_mutex_unlock(&dev_lock);
		CORE_LOG_ERR("device %s is still used by: %s; destroy them first", dev->info->caps.ibdev_name, holders);
		return DOCA_ERROR_IN_USE;
	}
	if (--dev->opens == 0)
		dev->magic = 0;
	pthread_mutex_unlock(&dev_lock);
	return DOCA_SUCCESS;
}

doca_error_t core_dev_hold(struct doca_dev *dev, const void *owner, const char *fmt, ...)
{
	doca_error_t rc = DOCA_SUCCESS;
	char what[sizeof(dev->holders[0].what)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&dev_lock);
	if (dev_valid(dev) && owner != NULL) {
		dev->holds++;
		for (uint32_t i = 0; i < DEV_NAMED_HOLDERS; i++) {
			if (dev->holders[i].owner == NULL) {
				dev->holders[i].owner = owner;
				memcpy(dev->holders[i].what, what, sizeof(what));
				break;
			}
		}
	} else {
		rc = DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_unlock(&dev_lock);
	if (rc != DOCA_SUCCESS)
		CORE_LOG_ERR("%s: not an open device (NULL, closed, or not a doca_dev): open it with doca_dev_open first",
			     what);
	return rc;
}

void core_dev_release(struct doca_dev *dev, const void *owner)
{
	pthread_mutex_lock(&dev_lock);
	if (dev_valid(dev) && dev->holds > 0) {
		dev->holds--;
		for (uint32_t i = 0; i < DEV_NAMED_HOLDERS; i++) {
			if (dev->holders[i].owner == owner) {
				dev->holders[i].owner = NULL;
				break;
			}
		}
	}
	pthread_mutex_unlock(&dev_lock);
}

DOCA_EXPERIMENTAL doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev)
{
	if (core_dev_caps(dev) == NULL) {
		CORE_LOG_ERR("not an open device");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep)
{
	(void)devinfo;
	(void)dev_rep;
	CORE_LOG_ERR("flowdpa devices have no representors");
	return DOCA_ERROR_INVALID_VALUE;
}

DOCA_STABLE doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev)
{
	(void)dev;
	CORE_LOG_ERR("flowdpa devices have no representors");
	return DOCA_ERROR_INVALID_VALUE;
}

DOCA_STABLE struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev)
{
	return core_dev_caps(dev) ? dev->info : NULL;
}

DOCA_STABLE struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep)
{
	(void)dev_rep;
	CORE_LOG_ERR("flowdpa devices have no representors; this handle cannot be valid");
	return NULL;
}

/* ---------------------------------------------------------------- properties */

/* Every getter starts here: one line naming the call when its arguments are wrong. */
static const struct core_dev_caps *getter_caps(const struct doca_devinfo *devinfo, const void *out,
					       const char *call)
{
	if (!devinfo_valid(devinfo) || out == NULL) {
		CORE_LOG_ERR("%s: devinfo must be a flowdpa device and the output pointer non-NULL", call);
		return NULL;
	}
	return &devinfo->caps;
}

static bool size_at_least(uint32_t size, uint32_t min, const char *call)
{
	if (size >= min)
		return true;
	CORE_LOG_ERR("%s: buffer of %u bytes is too small; it needs %u", call, size, min);
	return false;
}

static doca_error_t copy_name(const char *name, char *out, uint32_t size, uint32_t min, const char *call)
{
	if (!size_at_least(size, min, call))
		return DOCA_ERROR_INVALID_VALUE;
	snprintf(out, size, "%s", name);
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
	const struct core_dev_caps *c = getter_caps(devinfo, pci_addr_str, __func__);

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(pci_addr_str, c->pci_addr, DOCA_DEVINFO_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

/* Normalises "dddd:bb:dd.f" or "bb:dd.f" to lowercase "dddd:bb:dd.f"; false if malformed
 * (including a device above 0x1f or a function above 7, which PCI cannot address). */
static bool pci_normalise(const char *in, char out[DOCA_DEVINFO_PCI_ADDR_SIZE])
{
	static const char shape[] = "hhhh:hh:hh.h";
	char full[DOCA_DEVINFO_PCI_ADDR_SIZE];
	size_t len = strlen(in);

	if (len == 7)
		snprintf(full, sizeof(full), "0000:%s", in);
	else if (len == 12)
		memcpy(full, in, 13);
	else
		return false;
	for (size_t i = 0; i < 12; i++) {
		if (shape[i] == 'h' ? !isxdigit((unsigned char)full[i]) : full[i] != shape[i])
			return false;
		out[i] = (char)tolower((unsigned char)full[i]);
	}
	out[12] = '\0';
	return strtoul(out + 8, NULL, 16) <= 0x1f && out[11] <= '7';
}

DOCA_STABLE doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str,
							 uint8_t *is_equal)
{
	const struct core_dev_caps *c = getter_caps(devinfo, is_equal, __func__);
	char norm[DOCA_DEVINFO_PCI_ADDR_SIZE];

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (pci_addr_str == NULL) {
		CORE_LOG_ERR("pci_addr_str must not be NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!pci_normalise(pci_addr_str, norm)) {
		CORE_LOG_ERR("\"%s\" is not a PCI address (expected dddd:bb:dd.f or bb:dd.f)", pci_addr_str);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*is_equal = strcmp(norm, c->pci_addr) == 0;
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
						     uint32_t size)
{
	if (getter_caps(devinfo, ipv4_addr, __func__) == NULL || !size_at_least(size, DOCA_DEVINFO_IPV4_ADDR_SIZE, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_FOUND; /* emulated ports have no IP address assigned */
}

DOCA_STABLE doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
						     uint32_t size)
{
	if (getter_caps(devinfo, ipv6_addr, __func__) == NULL || !size_at_least(size, DOCA_DEVINFO_IPV6_ADDR_SIZE, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_FOUND;
}

DOCA_STABLE doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr,
						    uint32_t size)
{
	const struct core_dev_caps *c = getter_caps(devinfo, mac_addr, __func__);

	if (c == NULL || !size_at_least(size, DOCA_DEVINFO_MAC_ADDR_SIZE, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(mac_addr, c->mac, DOCA_DEVINFO_MAC_ADDR_SIZE);
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
						      uint32_t size)
{
	const struct core_dev_caps *c = getter_caps(devinfo, iface_name, __func__);

	return c ? copy_name(c->iface_name, iface_name, size, DOCA_DEVINFO_IFACE_NAME_SIZE, __func__)
		 : DOCA_ERROR_INVALID_VALUE;
}

DOCA_STABLE doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
						      uint32_t size)
{
	const struct core_dev_caps *c = getter_caps(devinfo, ibdev_name, __func__);

	return c ? copy_name(c->ibdev_name, ibdev_name, size, DOCA_DEVINFO_IBDEV_NAME_SIZE, __func__)
		 : DOCA_ERROR_INVALID_VALUE;
}

DOCA_STABLE doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid)
{
	if (getter_caps(devinfo, lid, __func__) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED; /* Ethernet ports have no InfiniBand LID */
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_active_rate(const struct doca_devinfo *devinfo, uint64_t *active_rate)
{
	const struct core_dev_caps *c = getter_caps(devinfo, active_rate, __func__);

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*active_rate = (c->model == CORE_MODEL_BF3 || c->model == CORE_MODEL_CX7) ? 400000000000ull : 100000000000ull;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_vhca_id(const struct doca_devinfo *devinfo, uint16_t *vhca_id)
{
	const struct core_dev_caps *c = getter_caps(devinfo, vhca_id, __func__);

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*vhca_id = (uint16_t)c->index;
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
							 enum doca_pci_func_type *pci_func_type)
{
	if (getter_caps(devinfo, pci_func_type, __func__) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*pci_func_type = DOCA_PCI_FUNC_TYPE_PF;
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index)
{
	if (getter_caps(devinfo, sf_index, __func__) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED; /* every emulated device is a PF */
}

/* Capability flags that are plain yes/no facts of the emulated host-side device. */
static doca_error_t cap_flag(const struct doca_devinfo *devinfo, uint8_t *out, uint8_t value, const char *call)
{
	if (getter_caps(devinfo, out, call) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*out = value;
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
									uint8_t *is_hotplug_manager)
{
	return cap_flag(devinfo, is_hotplug_manager, 0, __func__);
}

DOCA_EXPERIMENTAL doca_error_t
doca_devinfo_cap_is_notification_moderation_supported(const struct doca_devinfo *devinfo,
						      uint8_t *is_notification_moderation_supported)
{
	return cap_flag(devinfo, is_notification_moderation_supported, 0, __func__);
}

DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
								       uint8_t *filter_all_supported)
{
	return cap_flag(devinfo, filter_all_supported, 0, __func__);
}

/* 0 with SUCCESS: the host-side BlueField view the DPA samples expect (docs/differences-from-hardware.md). */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
								       uint8_t *filter_net_supported)
{
	return cap_flag(devinfo, filter_net_supported, 0, __func__);
}

DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
									    uint8_t *filter_emulated_supported)
{
	return cap_flag(devinfo, filter_emulated_supported, 0, __func__);
}

DOCA_EXPERIMENTAL doca_error_t
doca_devinfo_cap_is_accelerate_resource_reclaim_supported(const struct doca_devinfo *devinfo,
							  uint8_t *is_accelerate_resource_reclaim)
{
	return cap_flag(devinfo, is_accelerate_resource_reclaim, 1, __func__);
}

/* ---------------------------------------------------------------- representors */

/* No representor can exist (rep_create_list never succeeds), so any pointer is foreign. */
static doca_error_t no_representor(const char *call)
{
	CORE_LOG_ERR("%s: flowdpa devices have no representors; this handle cannot be valid", call);
	return DOCA_ERROR_INVALID_VALUE;
}

DOCA_STABLE doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
						    uint32_t size)
{
	(void)devinfo_rep, (void)rep_vuid, (void)size;
	return no_representor(__func__);
}

DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
							    char *pci_addr_str)
{
	(void)devinfo_rep, (void)pci_addr_str;
	return no_representor(__func__);
}

DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
							     enum doca_pci_func_type *pci_func_type)
{
	(void)devinfo_rep, (void)pci_func_type;
	return no_representor(__func__);
}

DOCA_STABLE doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
							  uint8_t *is_hotplug)
{
	(void)devinfo_rep, (void)is_hotplug;
	return no_representor(__func__);
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep,
							       char *iface_name, uint32_t size)
{
	(void)devinfo_rep, (void)iface_name, (void)size;
	return no_representor(__func__);
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_vhca_id(const struct doca_devinfo_rep *devinfo_rep,
							    uint16_t *vhca_id)
{
	(void)devinfo_rep, (void)vhca_id;
	return no_representor(__func__);
}

DOCA_STABLE doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
							     const char *pci_addr_str, uint8_t *is_equal)
{
	(void)devinfo_rep, (void)pci_addr_str, (void)is_equal;
	return no_representor(__func__);
}
