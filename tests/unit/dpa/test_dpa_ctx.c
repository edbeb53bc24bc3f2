/*
 * test_dpa_ctx.c - the doca_dpa context: capabilities, create/destroy/start/stop, the
 * app image (including one built by another dpacc version), device log settings,
 * topology queries, handles and the DPA process accessor, with every refusal.
 * Runs with FLOWDPA_DEVICES=bf3,bf2,bf3 (device 1 has no DPA).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "dpa_fixture.h"
#include "dpa/dpa.h"

extern struct doca_dpa_app *unit_app, *old_app;
extern doca_dpa_func_t unit_kernel, unit_rpc, set_device_rpc;

/* f->dev: bf3; f->nodpa: bf2; f->dpa: created, not started. */
static int fx_setup(void **state)
{
	*state = dpa_fx_open(DPA_FX_NODPA | DPA_FX_CREATED, NULL);
	return 0;
}

static int fx_teardown(void **state)
{
	dpa_fx_close(*state);
	return 0;
}

static void test_cap_is_supported(void **state)
{
	struct dpa_fx *f = *state;

	assert_int_equal(doca_dpa_cap_is_supported(doca_dev_as_devinfo(f->dev)), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_cap_is_supported(doca_dev_as_devinfo(f->nodpa)), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_dpa_cap_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("devinfo is NULL");
	int junk[16] = {0};

	assert_int_equal(doca_dpa_cap_is_supported((const struct doca_devinfo *)junk), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("devinfo is not a doca_devinfo");
}

static void test_create_refusals(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa *dpa = (struct doca_dpa *)0x1;

	assert_int_equal(doca_dpa_create(f->dev, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_create(NULL, &dpa), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dev is NULL");
	assert_null(dpa);
	assert_int_equal(doca_dpa_create(f->nodpa, &dpa), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_log("has no DPA");
	assert_null(dpa);
}

static void test_destroy_refusals(void **state)
{
	struct dpa_fx *f = *state;
	uint64_t junk[32] = {0};

	assert_int_equal(doca_dpa_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_destroy((struct doca_dpa *)junk), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("not a doca_dpa");
	/* The device is held by the context: closing it first is refused. */
	assert_int_equal(doca_dev_close(f->dev), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("is still used by: doca_dpa context ");
	/* A sync event naming the context holds it. */
	struct doca_sync_event *ev;

	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_dpa(ev, f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("still used by 1 sync event(s)");
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

static void test_start_stop(void **state)
{
	struct dpa_fx *f = *state;

	assert_int_equal(doca_dpa_start(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("has no application");
	assert_int_equal(doca_dpa_stop(f->dpa), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is already started");
	assert_int_equal(doca_dpa_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_stop(f->dpa), DOCA_SUCCESS);
	/* Restartable, device memory kept across stop/start. */
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_SUCCESS);
	uint64_t ret = 0;

	assert_int_equal(doca_dpa_rpc(f->dpa, &unit_rpc, &ret, 21ull), DOCA_SUCCESS);
	assert_int_equal(ret, 42);
}

static void test_set_app(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_app *got = NULL;
	uint64_t junk[8] = {0};

	assert_int_equal(doca_dpa_get_app(f->dpa, &got), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("has no application");
	assert_int_equal(doca_dpa_set_app(NULL, unit_app), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_set_app(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("app is NULL");
	assert_int_equal(doca_dpa_set_app(f->dpa, (struct doca_dpa_app *)junk), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("is not an application image built by dpacc");
	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_app(f->dpa, &got), DOCA_SUCCESS);
	assert_ptr_equal(got, unit_app);
	assert_int_equal(doca_dpa_get_app(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("app is NULL");
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is started; set the app before doca_dpa_start");
}

/* The image layout as dpacc's generated <app>.meta.c spells it (tools/dpacc/dpacc.py.in). */
struct test_image_entry {
	const char *name;
	uint32_t kind, nparams;
	void (*host_sym)(void);
	uint32_t args_size, args_align;
	void (*pack)(void *buf, va_list *ap);
	uint64_t (*invoke)(const void *buf);
};

struct test_image {
	uint64_t magic;
	uint32_t layout, nentries;
	const char *app_name, *dpacc_version;
	const struct test_image_entry *const *entries;
};

/* An entry asking for more argument alignment than launch records have: refused. */
static void test_set_app_args_align(void **state)
{
	struct dpa_fx *f = *state;
	const struct test_image *img = (const struct test_image *)unit_app;
	struct test_image_entry entry = *img->entries[0];
	const struct test_image_entry *entries[] = {&entry};
	struct test_image bad = *img;

	bad.nentries = 1;
	bad.entries = entries;
	entry.args_align = 128;
	assert_int_equal(doca_dpa_set_app(f->dpa, (struct doca_dpa_app *)&bad), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("needs 128-byte argument alignment; 1..64 is supported");
	entry.args_align = 64; /* the largest accepted */
	assert_int_equal(doca_dpa_set_app(f->dpa, (struct doca_dpa_app *)&bad), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
}

/* An image from another dpacc version: DRIVER, and a line naming both versions. */
static void test_set_app_other_dpacc_version(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dpa_app *got = NULL;

	assert_int_equal(doca_dpa_set_app(f->dpa, old_app), DOCA_ERROR_DRIVER);
	dpa_test_expect_log("old_app was built by dpacc 0.0.1", "this libdoca_dpa is " FLOWDPA_TEST_VERSION,
			    "rebuild host and device sides together");
	assert_int_equal(doca_dpa_get_app(f->dpa, &got), DOCA_ERROR_BAD_STATE); /* state intact */
	dpa_test_log_clear();
	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
}

static void test_app_get_name(void **state)
{
	(void)state;
	char name[32];
	uint32_t len = sizeof(name);

	assert_int_equal(doca_dpa_app_get_name(unit_app, name, &len), DOCA_SUCCESS);
	assert_string_equal(name, "unit_app");
	assert_int_equal(len, 9);
	len = 4;
	assert_int_equal(doca_dpa_app_get_name(unit_app, name, &len), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("buffer of 4 bytes is too small, 9 needed");
	assert_int_equal(len, 9);
	assert_int_equal(doca_dpa_app_get_name(NULL, name, &len), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("app is NULL");
	assert_int_equal(doca_dpa_app_get_name(unit_app, NULL, &len), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("app_name is NULL");
	assert_int_equal(doca_dpa_app_get_name(unit_app, name, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("length is NULL");
}

static void test_log_settings(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_log_level_t lvl = 0;
	char path[64];
	uint32_t len = sizeof(path);

	assert_int_equal(doca_dpa_get_log_level(f->dpa, &lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, DOCA_DPA_DEV_LOG_LEVEL_INFO);
	assert_int_equal(doca_dpa_set_log_level(f->dpa, DOCA_DPA_DEV_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_log_level(f->dpa, &lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, DOCA_DPA_DEV_LOG_LEVEL_DEBUG);
	assert_int_equal(doca_dpa_set_log_level(f->dpa, (doca_dpa_dev_log_level_t)20), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("20 is not a doca_dpa_dev_log_level");
	assert_int_equal(doca_dpa_get_log_level(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("log_level is NULL");
	assert_int_equal(doca_dpa_set_log_level(NULL, DOCA_DPA_DEV_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");

	assert_int_equal(doca_dpa_log_file_get_path(f->dpa, path, &len), DOCA_ERROR_NOT_FOUND);
	dpa_test_expect_log("has no log file");
	assert_int_equal(doca_dpa_log_file_set_path(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("file_path is NULL");
	assert_int_equal(doca_dpa_log_file_set_path(f->dpa, ""), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("path length 0 is not in 1..");
	assert_int_equal(doca_dpa_log_file_set_path(f->dpa, "/tmp/flowdpa-unit-dpa.log"), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_log_file_get_path(f->dpa, path, &len), DOCA_SUCCESS);
	assert_string_equal(path, "/tmp/flowdpa-unit-dpa.log");
	assert_int_equal(len, strlen(path) + 1);
	/* Too small a buffer, NULL buffer or length: INVALID_VALUE, one line; the path stays. */
	char small[8] = "unset";
	uint32_t small_len = sizeof(small);

	assert_int_equal(doca_dpa_log_file_get_path(f->dpa, small, &small_len), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_log_file_get_path", "buffer of 8 bytes is too small, 26 needed");
	assert_int_equal(small_len, 26); /* the size needed */
	assert_string_equal(small, "unset");
	assert_int_equal(doca_dpa_log_file_get_path(f->dpa, NULL, &len), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_log_file_get_path", "file_path is NULL");
	assert_int_equal(doca_dpa_log_file_get_path(f->dpa, path, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_one_log("doca_dpa_log_file_get_path", "length is NULL");
	len = sizeof(path);
	assert_int_equal(doca_dpa_log_file_get_path(f->dpa, path, &len), DOCA_SUCCESS);
	assert_string_equal(path, "/tmp/flowdpa-unit-dpa.log");

	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_set_log_level(f->dpa, DOCA_DPA_DEV_LOG_LEVEL_ERROR), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("set the log level before doca_dpa_start");
	assert_int_equal(doca_dpa_log_file_set_path(f->dpa, "/tmp/x"), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("set the log file before doca_dpa_start");
	assert_int_equal(doca_dpa_get_log_level(f->dpa, &lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, DOCA_DPA_DEV_LOG_LEVEL_DEBUG); /* unchanged */
	unlink("/tmp/flowdpa-unit-dpa.log");
}

/* A log file that cannot be opened makes start fail (IO_FAILED) and leaves the context stopped. */
static void test_log_file_unopenable(void **state)
{
	struct dpa_fx *f = *state;

	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_log_file_set_path(f->dpa, "/nonexistent-dir/x.log"), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_ERROR_IO_FAILED);
	dpa_test_expect_log("cannot open DPA log file /nonexistent-dir/x.log");
	assert_int_equal(doca_dpa_stop(f->dpa), DOCA_ERROR_BAD_STATE);
	dpa_test_log_clear();
}

static void test_topology(void **state)
{
	struct dpa_fx *f = *state;
	unsigned int cores = 0, eus = 0, total = 0, max = 0;
	unsigned long long rt = 0;

	assert_int_equal(doca_dpa_get_core_num(f->dpa, &cores), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_num_eus_per_core(f->dpa, &eus), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_total_num_eus_available(f->dpa, &total), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_max_threads_per_kernel(f->dpa, &max), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_kernel_max_run_time(f->dpa, &rt), DOCA_SUCCESS);
	/* FLOWDPA_DPA_CORES=4, FLOWDPA_DPA_EUS_PER_CORE=8 in this test's environment */
	assert_int_equal(cores, 4);
	assert_int_equal(eus, 8);
	assert_int_equal(total, 32);
	assert_int_equal(max, 32);
	assert_true(rt > 0);
	assert_int_equal(doca_dpa_get_core_num(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("num_cores is NULL");
	assert_int_equal(doca_dpa_get_num_eus_per_core(NULL, &eus), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_get_total_num_eus_available(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("total_num_eus is NULL");
	assert_int_equal(doca_dpa_get_max_threads_per_kernel(NULL, &max), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_get_kernel_max_run_time(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("value is NULL");
	assert_int_equal(doca_dpa_peek_at_last_error(NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_peek_at_last_error(f->dpa), DOCA_SUCCESS);
}

/* More threads than the 32 EUs of this configuration. */
static void test_launch_more_threads_than_eus(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_uintptr_t out = 0;

	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_alloc(f->dpa, 64 * sizeof(uint64_t), &out), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_kernel_launch_update_set(f->dpa, NULL, 0, NULL, 0, 33, &unit_kernel, out, 1ull),
			 DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("num_threads 33 is not in 1..32");
	assert_int_equal(doca_dpa_mem_free(f->dpa, out), DOCA_SUCCESS);
}

static void test_handles_and_process(void **state)
{
	struct dpa_fx *f = *state;
	doca_dpa_dev_t h = 0, h2 = 0;
	struct flexio_process *p = NULL;

	assert_int_equal(doca_dpa_get_dpa_handle(f->dpa, &h), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_get_flexio_process(f->dpa, &p), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_null(p);
	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_dpa_handle(f->dpa, &h), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_dpa_handle(f->dpa, &h2), DOCA_SUCCESS);
	assert_true(h != 0 && h == h2);
	assert_int_equal(doca_dpa_get_dpa_handle(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("handle is NULL");
	assert_int_equal(doca_dpa_get_dpa_handle(NULL, &h), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_get_flexio_process(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("dpa is NULL");
	assert_int_equal(doca_dpa_get_flexio_process(f->dpa, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("process is NULL");
	assert_int_equal(doca_dpa_get_flexio_process(f->dpa, &p), DOCA_SUCCESS);
	assert_non_null(p);

	/* The layer API of dpa.h on the process. */
	assert_int_equal(dpa_process_check(p, "test"), DOCA_SUCCESS);
	assert_ptr_equal(dpa_process_dpa(p), f->dpa);
	assert_ptr_equal(dpa_process_dev(p), f->dev);
	assert_non_null(dpa_process_caps(p));
	assert_int_equal(dpa_process_check(NULL, "test_caller"), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("test_caller: process is NULL");
	assert_false(dpa_in_device());
	assert_null(dpa_current_process());
	assert_string_equal(dpa_current_kernel(), "(host)");

	uint64_t dev_ptr = 0, v = 5, back = 0;

	assert_int_equal(dpa_heap_alloc(p, 8, &dev_ptr, "test_caller"), DOCA_SUCCESS);
	assert_int_equal(dpa_heap_h2d(p, dev_ptr, &v, 8), DOCA_SUCCESS);
	assert_int_equal(dpa_heap_d2h(p, &back, dev_ptr, 8), DOCA_SUCCESS);
	assert_int_equal(back, 5);
	assert_ptr_equal(dpa_heap_ptr(p, dev_ptr, 8), (void *)(uintptr_t)dev_ptr);
	assert_null(dpa_heap_ptr(p, dev_ptr, 9));
	assert_int_equal(dpa_heap_free(p, dev_ptr), DOCA_SUCCESS);

	/* The provider's hold makes destroy refuse. */
	assert_int_equal(dpa_process_hold(p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("1 DPA provider context(s)");
	dpa_process_release(p);
}

/* doca_dpa_device_extend: a started context on a second DPA device sharing the base. */
static void test_device_extend(void **state)
{
	struct dpa_fx *f = *state;
	struct doca_dev *dev2 = dpa_test_open_dev(2);
	struct doca_dpa *ext = NULL, *ext2 = NULL;
	doca_dpa_dev_t base_h = 0, ext_h = 0;
	doca_dpa_dev_uintptr_t p = 0;
	uint64_t ret = 0, v = 9, back = 0;
	struct flexio_process *bp = NULL, *ep = NULL;

	assert_int_equal(doca_dpa_device_extend(f->dpa, dev2, &ext), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is not started");
	assert_int_equal(doca_dpa_set_app(f->dpa, unit_app), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_start(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_device_extend(f->dpa, NULL, &ext), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("other_dev is NULL");
	assert_int_equal(doca_dpa_device_extend(f->dpa, dev2, NULL), DOCA_ERROR_INVALID_VALUE);
	dpa_test_expect_log("extended_dpa is NULL");
	assert_int_equal(doca_dpa_device_extend(f->dpa, f->nodpa, &ext), DOCA_ERROR_NOT_SUPPORTED);
	dpa_test_expect_log("has no DPA");
	assert_int_equal(doca_dpa_device_extend(f->dpa, dev2, &ext), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_device_extend(ext, dev2, &ext2), DOCA_ERROR_BAD_STATE);
	dpa_test_expect_log("is itself an extended context");

	assert_int_equal(doca_dpa_get_dpa_handle(f->dpa, &base_h), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_dpa_handle(ext, &ext_h), DOCA_SUCCESS);
	assert_true(ext_h != 0 && ext_h != base_h);
	/* Shared heap, app and process; RPCs on either run on the base. */
	assert_int_equal(doca_dpa_mem_alloc(ext, 8, &p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_h2d_memcpy(ext, p, &v, 8), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_d2h_memcpy(f->dpa, &back, p, 8), DOCA_SUCCESS);
	assert_int_equal(back, 9);
	assert_int_equal(doca_dpa_mem_free(f->dpa, p), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_flexio_process(ext, &ep), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_get_flexio_process(f->dpa, &bp), DOCA_SUCCESS);
	assert_ptr_equal(ep, bp);
	assert_int_equal(doca_dpa_rpc(ext, &unit_rpc, &ret, 4ull), DOCA_SUCCESS);
	assert_int_equal(ret, 8);
	assert_int_equal(doca_dpa_rpc(f->dpa, &set_device_rpc, &ret, ext_h), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_rpc(ext, &set_device_rpc, &ret, base_h), DOCA_SUCCESS);
	/* Settings that belong to the base. */
	assert_int_equal(doca_dpa_set_log_level(ext, DOCA_DPA_DEV_LOG_LEVEL_DEBUG), DOCA_ERROR_NOT_PERMITTED);
	dpa_test_expect_log("is an extended context");
	assert_int_equal(doca_dpa_log_file_set_path(ext, "/tmp/x"), DOCA_ERROR_NOT_PERMITTED);
	dpa_test_expect_log("is an extended context");
	assert_int_equal(doca_dpa_stop(ext), DOCA_ERROR_NOT_PERMITTED);
	dpa_test_expect_log("is an extended context; destroy it instead");
	/* The base goes last. */
	assert_int_equal(doca_dpa_stop(f->dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("has 1 extended context(s)");
	assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("still has 1 extended context(s)");
	assert_int_equal(doca_dev_close(dev2), DOCA_ERROR_IN_USE);
	dpa_test_expect_log("device mlx5_2 is still used by: doca_dpa context ", " (extends ");
	assert_int_equal(doca_dpa_destroy(ext), DOCA_SUCCESS);
	/* The extension's handle is gone: selecting it is a fatal device error. */
	assert_int_equal(doca_dpa_rpc(f->dpa, &set_device_rpc, &ret, ext_h), DOCA_ERROR_DRIVER);
	dpa_test_expect_log("is not the handle of DPA context", "or of one of its extended contexts");
	assert_int_equal(doca_dev_close(dev2), DOCA_SUCCESS);
}

int main(void)
{
	dpa_test_log_setup(DOCA_LOG_LEVEL_WARNING);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cap_is_supported, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_create_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_start_stop, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_set_app, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_set_app_args_align, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_set_app_other_dpacc_version, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_app_get_name, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_log_settings, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_log_file_unopenable, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_topology, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_launch_more_threads_than_eus, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_handles_and_process, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_device_extend, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
