/*
 * Unit tests: emulated device inventory through doca_dev.h, for each model, from the
 * environment and from a config file; property getters; open/close/hold; bad inputs
 * (each refused with its code and exactly one SDK log line, state left intact).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <doca_dev.h>
#include <doca_log.h>

#include "core/core_internal.h"
#include "test_support.h"

/* SDK log lines, counted: the bad-input tests expect exactly one per refused call. */
#define CAP_LINES 64
static struct {
	char lines[CAP_LINES][512];
	int n;
} sdk_cap;
static char sdk_buf[600];

static void sdk_flush(char *buf)
{
	if (sdk_cap.n < CAP_LINES)
		snprintf(sdk_cap.lines[sdk_cap.n], sizeof(sdk_cap.lines[0]), "%s", buf);
	sdk_cap.n++;
}

/* test_clean_env, plus a fresh log with one SDK buffer backend capturing lines. */
static int setup_log_capture(void **state)
{
	struct doca_log_backend *be;

	test_clean_env(state);
	unsetenv("DOCA_LOG_LEVEL");
	core_log_env_reset();
	memset(&sdk_cap, 0, sizeof(sdk_cap));
	if (doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &be) != DOCA_SUCCESS)
		return -1;
	return 0;
}

/* A record is "[...][file:line][function] text"; the text must not start by repeating
 * the function the record already names. */
static void assert_name_not_repeated(const char *line)
{
	const char *end = strstr(line, "] ");
	const char *open = end;

	assert_non_null(end);
	while (open > line && *open != '[')
		open--;
	if (strncmp(end + 2, open + 1, (size_t)(end - open - 1)) == 0 && end[2 + (end - open - 1)] == ':')
		fail_msg("message repeats the function name: %s", line);
}

/* The call fails with the code and says so in exactly one SDK error line naming it. */
#define EXPECT_ONE_LINE(call, code, name) \
	do { \
		sdk_cap.n = 0; \
		assert_int_equal((call), (code)); \
		if (sdk_cap.n != 1) \
			fail_msg("%s: %d log lines", #call, sdk_cap.n); \
		assert_non_null(strstr(sdk_cap.lines[0], name)); \
		assert_non_null(strstr(sdk_cap.lines[0], "[ERR]")); \
		assert_name_not_repeated(sdk_cap.lines[0]); \
	} while (0)

static void test_default_bluefield3(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
	enum doca_pci_func_type type;
	uint8_t flag = 7;
	const struct core_dev_caps *caps;
	(void)state;

	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(n, 1);
	assert_null(list[1]);
	assert_int_equal(doca_devinfo_get_pci_addr_str(list[0], pci), DOCA_SUCCESS);
	assert_string_equal(pci, "0000:03:00.0");
	assert_int_equal(doca_devinfo_get_ibdev_name(list[0], ibdev, sizeof(ibdev)), DOCA_SUCCESS);
	assert_string_equal(ibdev, "mlx5_0");
	assert_int_equal(doca_devinfo_get_iface_name(list[0], iface, sizeof(iface)), DOCA_SUCCESS);
	assert_string_equal(iface, "p0");
	assert_int_equal(doca_devinfo_get_mac_addr(list[0], mac, sizeof(mac)), DOCA_SUCCESS);
	assert_int_equal(mac[0], 0x02);
	assert_int_equal(doca_devinfo_get_pci_func_type(list[0], &type), DOCA_SUCCESS);
	assert_int_equal(type, DOCA_PCI_FUNC_TYPE_PF);
	assert_int_equal(doca_devinfo_rep_cap_is_filter_net_supported(list[0], &flag), DOCA_SUCCESS);
	assert_int_equal(flag, 0); /* host-side BlueField view, as the DPA samples expect */
	caps = core_devinfo_caps(list[0]);
	assert_non_null(caps);
	assert_string_equal(caps->model_name, "bf3");
	assert_int_equal(caps->nr_ports, 2);
	assert_true(caps->has_dpa && caps->has_flow);
	assert_int_equal(caps->dpa_cores * caps->dpa_eus_per_core, 256);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

static void test_each_model(void **state)
{
	static const struct {
		const char *spec;
		bool dpa;
		uint32_t ports;
	} models[] = {{"bf3", true, 2}, {"cx7:1", true, 1}, {"bf2", false, 2}, {"cx6:4", false, 4}};
	(void)state;

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		struct doca_devinfo **list;
		uint32_t n;

		setenv("FLOWDPA_DEVICES", models[i].spec, 1);
		assert_int_equal(core_config_reload(), DOCA_SUCCESS);
		assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
		assert_int_equal(n, 1);
		assert_int_equal(core_devinfo_caps(list[0])->has_dpa, models[i].dpa);
		assert_int_equal(core_devinfo_caps(list[0])->nr_ports, models[i].ports);
		assert_int_equal(core_devinfo_caps(list[0])->dpa_heap_size, models[i].dpa ? 256ull << 20 : 0);
		doca_devinfo_destroy_list(list);
	}
}

static void test_several_devices_from_file(void **state)
{
	const char *path = test_write_temp("FLOWDPA_DEVICES=bf3,bf2,cx7\nFLOWDPA_DPA_CORES=2\n");
	struct doca_devinfo **list;
	uint32_t n;
	uint8_t eq;
	(void)state;

	setenv("FLOWDPA_CONFIG", path, 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(n, 3);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(core_devinfo_caps(list[i])->index, i);
	assert_false(core_devinfo_caps(list[1])->has_dpa);
	assert_int_equal(core_devinfo_caps(list[2])->dpa_cores, 2);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[1], "0000:04:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[2], "05:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[2], "0000:05:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "0000:05:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 0);
	doca_devinfo_destroy_list(list);
	unlink(path);
}

static void test_pci_compare_forms(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;
	uint8_t eq = 9;
	static const char *const bad[] = {"",	      "03:00",	      "0000:03:00:0", "0000-03-00.0",
					  "zz:00.0", "0000:03:00.0x", "03:20.0",      "03:00.8"};
	(void)state;

	setenv("FLOWDPA_DEVICES", "bf3,bf3,bf3,bf3,bf3,bf3,bf3,bf3", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(n, 8);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[7], "0000:0A:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1); /* hex in either case */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		eq = 9;
		assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], bad[i], &eq), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(eq, 9); /* untouched */
	}
	doca_devinfo_destroy_list(list);
}

static void test_open_close_hold(void **state)
{
	struct doca_devinfo **list;
	struct doca_dev *a, *b;
	uint32_t n;
	(void)state;

	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(list[0], &a), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(list[0], &b), DOCA_SUCCESS);
	assert_ptr_equal(a, b); /* refcounted, one handle */
	doca_devinfo_destroy_list(list);
	/* devinfo of an open device outlives its list */
	assert_non_null(doca_dev_as_devinfo(a));
	assert_string_equal(core_dev_caps(a)->ibdev_name, "mlx5_0");
	assert_int_equal(core_dev_hold(a, &n, "doca_flow port %u", 0), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(b), DOCA_SUCCESS); /* one of two opens */
	assert_int_equal(doca_dev_close(a), DOCA_ERROR_IN_USE);
	assert_non_null(core_dev_caps(a)); /* still open after the refusal */
	core_dev_release(a, &n);
	assert_int_equal(doca_dev_close(a), DOCA_SUCCESS);
	assert_null(doca_dev_as_devinfo(NULL));
	assert_int_equal(core_dev_hold(NULL, &n, "x"), DOCA_ERROR_INVALID_VALUE);
}

/* Issue 12: doca_dev_close's IN_USE line names what still holds the device. */
static void test_close_names_holders(void **state)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	char owners[20];
	uint32_t n;
	(void)state;

	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	doca_devinfo_destroy_list(list);
	assert_int_equal(core_dev_hold(dev, &owners[0], "doca_flow port %u", 0), DOCA_SUCCESS);
	assert_int_equal(core_dev_hold(dev, &owners[1], "doca_dpa context %u", 1), DOCA_SUCCESS);
	EXPECT_ONE_LINE(doca_dev_close(dev), DOCA_ERROR_IN_USE,
			"device mlx5_0 is still used by: doca_flow port 0, doca_dpa context 1; destroy them first");
	core_dev_release(dev, &owners[0]);
	EXPECT_ONE_LINE(doca_dev_close(dev), DOCA_ERROR_IN_USE, "is still used by: doca_dpa context 1;");
	/* More holders than are named: the rest are counted. */
	for (int i = 2; i < 20; i++)
		assert_int_equal(core_dev_hold(dev, &owners[i], "doca_dpa context %d", i), DOCA_SUCCESS);
	EXPECT_ONE_LINE(doca_dev_close(dev), DOCA_ERROR_IN_USE, "doca_dpa context 16 and 3 other DOCA object(s);");
	for (int i = 1; i < 20; i++)
		core_dev_release(dev, &owners[i]);
	/* A hold needs an owner to be released by. */
	EXPECT_ONE_LINE(core_dev_hold(dev, NULL, "doca_flow port %u", 3), DOCA_ERROR_INVALID_VALUE,
			"doca_flow port 3: not an open device");
	sdk_cap.n = 0;
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	assert_int_equal(sdk_cap.n, 0);
}

static void test_bad_inputs(void **state)
{
	struct doca_devinfo **list;
	struct doca_devinfo_rep **reps;
	struct doca_dev *dev;
	uint32_t n;
	char small[8];
	char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
	uint8_t ip[16];
	uint16_t lid;
	uint32_t sf;
	uint64_t rate;
	int not_a_dev[16] = {0};
	(void)state;

	assert_int_equal(doca_devinfo_create_list(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_create_list(&list, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_open(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_open((struct doca_devinfo *)not_a_dev, &dev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_close(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_close((struct doca_dev *)not_a_dev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_pci_addr_str(NULL, name), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_pci_addr_str(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_ibdev_name(list[0], small, sizeof(small)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_iface_name(list[0], name, 255), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_mac_addr(list[0], mac, 5), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_ipv4_addr(list[0], ip, 4), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_devinfo_get_ipv4_addr(list[0], ip, 3), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_ipv6_addr(list[0], ip, 16), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_devinfo_get_lid(list[0], &lid), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_devinfo_get_sf_index(list[0], &sf), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_devinfo_get_active_rate(list[0], &rate), DOCA_SUCCESS);
	assert_true(rate > 0);
	assert_int_equal(doca_devinfo_get_active_rate(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], NULL, mac), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_cap_is_hotplug_manager_supported(NULL, mac), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_devinfo_rep_create_list(NULL, 0, &reps, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_get_vuid(NULL, name, sizeof(name)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_INVALID_VALUE); /* already closed */
	doca_devinfo_destroy_list(list);
}

static void test_bad_inputs_one_line_each(void **state)
{
	struct doca_devinfo **list;
	struct doca_devinfo_rep **reps = NULL;
	struct doca_dev *dev;
	struct doca_dev_rep *rep = NULL;
	uint32_t n, nreps = 77, sf = 77;
	uint16_t u16 = 77;
	uint8_t flag = 7;
	uint8_t ip[16];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
	enum doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_SF;
	(void)state;

	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_int_equal(sdk_cap.n, 0);

	/* devices and representors */
	EXPECT_ONE_LINE(doca_dev_accelerate_resource_reclaim(NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_dev_accelerate_resource_reclaim");
	EXPECT_ONE_LINE(doca_dev_rep_open(NULL, &rep), DOCA_ERROR_INVALID_VALUE, "doca_dev_rep_open");
	assert_null(rep);
	EXPECT_ONE_LINE(doca_dev_rep_close(NULL), DOCA_ERROR_INVALID_VALUE, "doca_dev_rep_close");
	EXPECT_ONE_LINE(doca_dev_rep_as_devinfo(NULL) == NULL, true, "doca_dev_rep_as_devinfo");
	EXPECT_ONE_LINE(doca_devinfo_rep_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE, "doca_devinfo_rep_destroy_list");
	EXPECT_ONE_LINE(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, NULL, &nreps),
			DOCA_ERROR_INVALID_VALUE, "doca_devinfo_rep_create_list");
	EXPECT_ONE_LINE(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, NULL),
			DOCA_ERROR_INVALID_VALUE, "doca_devinfo_rep_create_list");
	assert_int_equal(nreps, 77);
	assert_null(reps);

	/* local device properties */
	EXPECT_ONE_LINE(doca_devinfo_get_vhca_id(list[0], NULL), DOCA_ERROR_INVALID_VALUE, "doca_devinfo_get_vhca_id");
	EXPECT_ONE_LINE(doca_devinfo_get_pci_func_type(list[0], NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_get_pci_func_type");
	EXPECT_ONE_LINE(doca_devinfo_get_sf_index(NULL, &sf), DOCA_ERROR_INVALID_VALUE, "doca_devinfo_get_sf_index");
	assert_int_equal(sf, 77);
	EXPECT_ONE_LINE(doca_devinfo_get_lid(list[0], NULL), DOCA_ERROR_INVALID_VALUE, "doca_devinfo_get_lid");
	memset(ip, 0xab, sizeof(ip));
	EXPECT_ONE_LINE(doca_devinfo_get_ipv6_addr(list[0], ip, 15), DOCA_ERROR_INVALID_VALUE, "needs 16");
	EXPECT_ONE_LINE(doca_devinfo_get_ipv4_addr(NULL, ip, sizeof(ip)), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_get_ipv4_addr");
	EXPECT_ONE_LINE(doca_devinfo_get_ipv6_addr(NULL, ip, sizeof(ip)), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_get_ipv6_addr");
	for (size_t i = 0; i < sizeof(ip); i++)
		assert_int_equal(ip[i], 0xab);
	memset(mac, 0xcd, sizeof(mac));
	EXPECT_ONE_LINE(doca_devinfo_get_mac_addr(NULL, mac, sizeof(mac)), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_get_mac_addr");
	assert_int_equal(mac[0], 0xcd);
	EXPECT_ONE_LINE(doca_devinfo_is_equal_pci_addr(NULL, "03:00.0", &flag), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_is_equal_pci_addr");
	EXPECT_ONE_LINE(doca_devinfo_is_equal_pci_addr(list[0], "03:00.0", NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_is_equal_pci_addr");
	EXPECT_ONE_LINE(doca_devinfo_is_equal_pci_addr(list[0], NULL, &flag), DOCA_ERROR_INVALID_VALUE,
			"pci_addr_str must not be NULL");
	EXPECT_ONE_LINE(doca_devinfo_is_equal_pci_addr(list[0], "3:0.0", &flag), DOCA_ERROR_INVALID_VALUE,
			"not a PCI address");
	EXPECT_ONE_LINE(doca_devinfo_cap_is_notification_moderation_supported(list[0], NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_cap_is_notification_moderation_supported");
	EXPECT_ONE_LINE(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(list[0], NULL),
			DOCA_ERROR_INVALID_VALUE, "doca_devinfo_cap_is_accelerate_resource_reclaim_supported");
	EXPECT_ONE_LINE(doca_devinfo_rep_cap_is_filter_all_supported(list[0], NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_cap_is_filter_all_supported");
	EXPECT_ONE_LINE(doca_devinfo_rep_cap_is_filter_net_supported(list[0], NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_cap_is_filter_net_supported");
	EXPECT_ONE_LINE(doca_devinfo_rep_cap_is_filter_emulated_supported(list[0], NULL), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_cap_is_filter_emulated_supported");
	assert_int_equal(flag, 7); /* no refused call wrote its output */

	/* representor properties */
	EXPECT_ONE_LINE(doca_devinfo_rep_get_pci_addr_str(NULL, pci), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_get_pci_addr_str");
	EXPECT_ONE_LINE(doca_devinfo_rep_get_pci_func_type(NULL, &type), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_get_pci_func_type");
	EXPECT_ONE_LINE(doca_devinfo_rep_get_is_hotplug(NULL, &flag), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_get_is_hotplug");
	EXPECT_ONE_LINE(doca_devinfo_rep_get_iface_name(NULL, name, sizeof(name)), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_get_iface_name");
	EXPECT_ONE_LINE(doca_devinfo_rep_get_vhca_id(NULL, &u16), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_get_vhca_id");
	EXPECT_ONE_LINE(doca_devinfo_rep_is_equal_pci_addr(NULL, "03:00.0", &flag), DOCA_ERROR_INVALID_VALUE,
			"doca_devinfo_rep_is_equal_pci_addr");
	assert_int_equal(type, DOCA_PCI_FUNC_TYPE_SF);
	assert_int_equal(u16, 77);
	assert_int_equal(flag, 7);

	/* other refusals name their call once too */
	EXPECT_ONE_LINE(doca_devinfo_create_list(NULL, &n), DOCA_ERROR_INVALID_VALUE, "doca_devinfo_create_list");
	EXPECT_ONE_LINE(doca_devinfo_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE, "doca_devinfo_destroy_list");
	EXPECT_ONE_LINE(doca_dev_open(NULL, &dev), DOCA_ERROR_INVALID_VALUE, "doca_dev_open");
	assert_int_equal(core_dev_hold(dev, &n, "doca_flow port %u", 1), DOCA_SUCCESS);
	EXPECT_ONE_LINE(doca_dev_close(dev), DOCA_ERROR_IN_USE, "still used by: doca_flow port 1;");
	core_dev_release(dev, &n);

	/* state intact: the device is still open once and answers */
	sdk_cap.n = 0;
	assert_int_equal(doca_devinfo_get_pci_addr_str(list[0], pci), DOCA_SUCCESS);
	assert_string_equal(pci, "0000:03:00.0");
	assert_int_equal(doca_devinfo_is_equal_pci_addr(list[0], "03:00.0", &flag), DOCA_SUCCESS);
	assert_int_equal(flag, 1);
	assert_int_equal(doca_dev_accelerate_resource_reclaim(dev), DOCA_SUCCESS);
	assert_ptr_equal(doca_dev_as_devinfo(dev), list[0]);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	assert_int_equal(sdk_cap.n, 0);
	EXPECT_ONE_LINE(doca_dev_close(dev), DOCA_ERROR_INVALID_VALUE, "doca_dev_close"); /* that was the only open */
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

/* The trace's device names come from the inventory's own fields, not a second spelling. */
static void test_describe_reads_the_inventory(void **state)
{
	struct doca_devinfo **list;
	struct core_dev_caps *caps;
	uint32_t n;
	char name[96];
	(void)state;

	setenv("FLOWDPA_DEVICES", "bf3,cx6", 1);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
	core_device_describe(1, name, sizeof(name));
	assert_string_equal(name, "device 1: cx6 mlx5_1");
	core_device_describe(2, name, sizeof(name));
	assert_string_equal(name, "device 2");
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	caps = (struct core_dev_caps *)core_devinfo_caps(list[1]);
	snprintf(caps->ibdev_name, sizeof(caps->ibdev_name), "mlx5_renamed");
	core_device_describe(1, name, sizeof(name));
	assert_string_equal(name, "device 1: cx6 mlx5_renamed");
	doca_devinfo_destroy_list(list);
	core_device_registry_reset(); /* undo the rename */
}

static void test_too_many_devices(void **state)
{
	struct doca_devinfo **list = NULL;
	uint32_t n;
	(void)state;

	setenv("FLOWDPA_DEVICES", "bf3,bf3,bf3,bf3,bf3,bf3,bf3,bf3,bf3", 1);
	fflush(stderr);
	assert_int_equal(core_config_reload(), DOCA_ERROR_BAD_CONFIG);
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_ERROR_BAD_CONFIG);
	assert_null(list);
}

static void test_bad_config_lists_nothing(void **state)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 99;
	const char *path = test_write_temp("FLOWDPA_DEVICES=bf3\nFLOWDPA_DPA_CORES=100\n");
	(void)state;

	setenv("FLOWDPA_CONFIG", path, 1);
	fflush(stderr);
	assert_int_equal(core_config_reload(), DOCA_ERROR_BAD_CONFIG);
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_ERROR_BAD_CONFIG);
	assert_null(list);
	assert_int_equal(n, 99);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_bluefield3, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_each_model, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_several_devices_from_file, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_pci_compare_forms, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_open_close_hold, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_close_names_holders, setup_log_capture, test_clean_env),
		cmocka_unit_test_setup_teardown(test_bad_inputs, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_too_many_devices, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_bad_config_lists_nothing, test_clean_env, test_clean_env),
		cmocka_unit_test_setup_teardown(test_bad_inputs_one_line_each, setup_log_capture, test_clean_env),
		cmocka_unit_test_setup_teardown(test_describe_reads_the_inventory, test_clean_env, test_clean_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
