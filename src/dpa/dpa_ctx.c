/*
 * dpa_ctx.c - the doca_dpa context: create on a device with a DPA, load the dpacc app
 * image (refusing images of another dpacc version), start/stop, device log settings,
 * topology queries, handles, the owned DPA process (struct flexio_process) and the
 * process API of dpa.h, and the context's section of the exit report.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpa/dpa_internal.h"

DOCA_LOG_REGISTER(DPA::CTX);

static atomic_uint dpa_next_id;

/* Kernel run time reported by doca_dpa_get_kernel_max_run_time: 60 s in microseconds. */
#define DPA_KERNEL_MAX_RUN_TIME 60000000ull
/* How long destroy waits for kernels still running before returning TIME_OUT. */
#define DPA_DESTROY_WAIT_MS 2000u

doca_error_t dpa_check(const struct doca_dpa *dpa, const char *func)
{
	if (!dpa_valid(dpa)) {
		CORE_LOG_ERR("%s: dpa is %s", func, dpa == NULL ? "NULL" : "not a doca_dpa");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t dpa_devinfo_check(const struct doca_devinfo *devinfo, const char *func)
{
	const struct core_dev_caps *caps = core_devinfo_caps(devinfo);

	if (caps == NULL) {
		CORE_LOG_ERR("%s: devinfo is %s", func, devinfo == NULL ? "NULL" : "not a doca_devinfo");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return caps->has_dpa ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

/* ------------------------------------------------------------ report */

static void dpa_report(struct core_json *j, void *arg)
{
	struct doca_dpa *dpa = arg;

	core_json_key(j, "id");
	core_json_u64(j, dpa->id);
	core_json_key(j, "app");
	core_json_str(j, dpa->app ? dpa->app->app_name : "");
	core_json_key(j, "launches");
	core_json_u64(j, atomic_load(&dpa->nr_launches));
	core_json_key(j, "instances");
	core_json_u64(j, atomic_load(&dpa->nr_instances));
	core_json_key(j, "rpcs");
	core_json_u64(j, atomic_load(&dpa->nr_rpcs));
	core_json_key(j, "faults");
	core_json_u64(j, atomic_load(&dpa->nr_faults));
	core_json_key(j, "fatal_error");
	core_json_str(j, atomic_load(&dpa->fatal) ? dpa->fatal_msg : "");
	size_t used, peak, nlive;

	dpa_heap_usage(&dpa->process.heap, &used, &peak, &nlive);
	core_json_key(j, "heap_used");
	core_json_u64(j, used);
	core_json_key(j, "heap_peak");
	core_json_u64(j, peak);
	core_json_key(j, "heap_live_allocations");
	core_json_u64(j, nlive);
}

/* ------------------------------------------------------------ lifecycle */

doca_error_t doca_dpa_cap_is_supported(const struct doca_devinfo *devinfo)
{
	return dpa_devinfo_check(devinfo, __func__);
}

doca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa)
{
	DPA_CHECK_NULL(dpa);
	*dpa = NULL;
	const struct core_dev_caps *caps = core_dev_caps(dev);

	if (caps == NULL) {
		CORE_LOG_ERR("%s: dev is %s", __func__, dev == NULL ? "NULL" : "not an open doca_dev");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!caps->has_dpa) {
		CORE_LOG_ERR("%s: device %s (%s) has no DPA", __func__, caps->pci_addr, caps->model_name);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	struct doca_dpa *d = core_calloc(1, sizeof(*d));

	if (d == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	doca_error_t r = dpa_heap_init(&d->process.heap, caps->dpa_heap_size);

	if (r != DOCA_SUCCESS)
		goto fail;
	d->id = atomic_fetch_add(&dpa_next_id, 1) + 1;
	r = core_dev_hold(dev, d, "doca_dpa context %u", d->id);
	if (r != DOCA_SUCCESS) {
		CORE_LOG_ERR("%s: cannot hold device %s: %s", __func__, caps->pci_addr, doca_error_get_name(r));
		goto fail;
	}
	d->magic = DPA_MAGIC;
	d->dev = dev;
	d->caps = caps;
	d->state = DPA_STATE_CREATED;
	d->log_level = DOCA_DPA_DEV_LOG_LEVEL_INFO;
	d->cores = caps->dpa_cores;
	d->eus_per_core = caps->dpa_eus_per_core;
	d->total_eus = d->cores * d->eus_per_core;
	d->process.magic = DPA_PROCESS_MAGIC;
	d->process.dpa = d;
	pthread_mutex_init(&d->lock, NULL);
	/* Here, not per launch: re-installs only if another handler replaced ours since. */
	dpa_signals_install();
	d->report = core_report_register("dpa", dpa_report, d);
	*dpa = d;
	CORE_LOG_TRC("DPA context %u created on %s (%u cores x %u EUs, heap %zu bytes)", d->id, caps->pci_addr,
		     d->cores, d->eus_per_core, d->process.heap.size);
	return DOCA_SUCCESS;

fail:
	dpa_heap_fini(&d->process.heap); /* a no-op on the zeroed heap a failed dpa_heap_init leaves */
	free(d);
	return r;
}

/* Destroy an extended context: it owns only its device hold and its handle. */
static doca_error_t destroy_extension(struct doca_dpa *ext)
{
	unsigned int users = atomic_load(&ext->users), threads = atomic_load(&ext->thread_users);
	struct doca_dpa *base = ext->base;

	if (users || threads) {
		CORE_LOG_ERR("doca_dpa_destroy: extended DPA context %u is still used by %u sync event(s) and %u DPA "
			     "thread object(s); destroy those first",
			     ext->id, users, threads);
		return DOCA_ERROR_IN_USE;
	}
	bool found = false;

	pthread_mutex_lock(&base->lock);
	for (unsigned int i = 0; i < DPA_MAX_EXTENSIONS; i++)
		if (base->ext_ids[i] == ext->id) {
			base->ext_ids[i] = 0;
			found = true;
		}
	pthread_mutex_unlock(&base->lock);
	assert(found && "an extended context has a slot in its base (doca_dpa_device_extend)");
	(void)found;
	atomic_fetch_sub(&base->nextensions, 1);
	core_dev_release(ext->dev, ext);
	pthread_mutex_destroy(&ext->lock);
	CORE_LOG_TRC("extended DPA context %u (of %u) destroyed", ext->id, base->id);
	ext->magic = 0;
	free(ext);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_destroy(struct doca_dpa *dpa)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	if (dpa->base)
		return destroy_extension(dpa);
	if (atomic_load(&dpa->nextensions)) {
		CORE_LOG_ERR("%s: DPA context %u still has %u extended context(s) (doca_dpa_device_extend); destroy "
			     "them first",
			     __func__, dpa->id, atomic_load(&dpa->nextensions));
		return DOCA_ERROR_IN_USE;
	}
	unsigned int users = atomic_load(&dpa->users), threads = atomic_load(&dpa->thread_users);
	uint32_t holds = atomic_load(&dpa->process.holds);

	if (users || holds || threads) {
		CORE_LOG_ERR("%s: DPA context %u is still used by %u sync event(s), %u DPA thread object(s) "
			     "(threads, notification completions, EU affinities) and %u DPA provider context(s); "
			     "destroy those first",
			     __func__, dpa->id, users, threads, holds);
		return DOCA_ERROR_IN_USE;
	}
	if (dpa->state == DPA_STATE_STARTED) {
		struct dpa_stop_counts c;
		enum dpa_stop_result sr = dpa_exec_stop(dpa, DPA_DESTROY_WAIT_MS, &c);

		if (sr == DPA_STOP_BUSY) {
			/* An RPC runs device code on its caller's thread, in this heap. */
			CORE_LOG_ERR("%s: DPA context %u has %u RPC(s) running on other threads; not destroyed, "
				     "destroy it once they return",
				     __func__, dpa->id, c.rpcs);
			return DOCA_ERROR_IN_USE;
		}
		if (sr == DPA_STOP_TIMEOUT) {
			/* Device code that never returns still runs on our threads, may touch the
			 * heap and will signal its completion event: freeing anything now would be a
			 * use after free. The context stays whole (and usable, queued launches
			 * included); destroy it again once the kernel has returned. */
			CORE_LOG_ERR("%s: DPA context %u: %u launch(es) still running after %u ms (a kernel loop "
				     "that never calls the device API cannot be interrupted); not destroyed (%u queued "
				     "launch(es) kept), try again once it returns",
				     __func__, dpa->id, c.running, DPA_DESTROY_WAIT_MS, c.inflight - c.running);
			return DOCA_ERROR_TIME_OUT;
		}
	}
	core_report_unregister(dpa->report);
	free(dpa->launch_pool); /* left by a start whose dispatcher could not be created */
	free(dpa->workers);
	if (dpa->log_file)
		fclose(dpa->log_file);
	core_dev_release(dpa->dev, dpa);
	dpa_heap_fini(&dpa->process.heap);
	pthread_mutex_destroy(&dpa->lock);
	CORE_LOG_TRC("DPA context %u destroyed", dpa->id);
	dpa->magic = 0;
	dpa->process.magic = 0;
	free(dpa);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_start(struct doca_dpa *dpa)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	if (dpa->state == DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is already started", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (dpa->app == NULL) {
		CORE_LOG_ERR("%s: DPA context %u has no application (call doca_dpa_set_app first)", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (dpa->log_path[0] && dpa->log_file == NULL) {
		dpa->log_file = fopen(dpa->log_path, "a");
		if (dpa->log_file == NULL) {
			CORE_LOG_ERR("%s: cannot open DPA log file %s: %s", __func__, dpa->log_path, strerror(errno));
			return DOCA_ERROR_IO_FAILED;
		}
	}
	doca_error_t r = dpa_exec_start(dpa);

	if (r != DOCA_SUCCESS)
		return r;
	pthread_mutex_lock(&dpa->lock); /* launches and RPCs are admitted under it */
	dpa->state = DPA_STATE_STARTED;
	pthread_mutex_unlock(&dpa->lock);
	CORE_LOG_TRC("DPA context %u started with app %s", dpa->id, dpa->app->app_name);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_stop(struct doca_dpa *dpa)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	if (dpa->base) {
		CORE_LOG_ERR("%s: DPA context %u is an extended context; destroy it instead", __func__, dpa->id);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (atomic_load(&dpa->nextensions)) {
		CORE_LOG_ERR("%s: DPA context %u has %u extended context(s); destroy them first", __func__, dpa->id,
			     atomic_load(&dpa->nextensions));
		return DOCA_ERROR_IN_USE;
	}
	if (dpa->state != DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is not started", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	unsigned int threads = atomic_load(&dpa->thread_users);

	if (threads) {
		CORE_LOG_ERR("%s: DPA context %u still has %u DPA thread object(s) (threads, notification "
			     "completions, EU affinities); destroy them first",
			     __func__, dpa->id, threads);
		return DOCA_ERROR_IN_USE;
	}
	struct dpa_stop_counts c;

	/* No wait: checking for launches and RPCs and committing the stop is one locked
	 * section, so none is admitted between the check and the freeing of the records. */
	if (dpa_exec_stop(dpa, 0, &c) != DPA_STOP_DONE) {
		CORE_LOG_ERR("%s: DPA context %u has %u kernel launch(es) pending or running and %u RPC(s) running",
			     __func__, dpa->id, c.inflight, c.rpcs);
		return DOCA_ERROR_IN_USE;
	}
	pthread_mutex_lock(&dpa->lock);
	dpa->state = DPA_STATE_CREATED;
	pthread_mutex_unlock(&dpa->lock);
	CORE_LOG_TRC("DPA context %u stopped", dpa->id);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_device_extend(struct doca_dpa *dpa, struct doca_dev *other_dev, struct doca_dpa **extended_dpa)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(extended_dpa);
	const struct core_dev_caps *caps = core_dev_caps(other_dev);

	if (caps == NULL) {
		CORE_LOG_ERR("%s: other_dev is %s", __func__, other_dev == NULL ? "NULL" : "not an open doca_dev");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (dpa->base || dpa->state != DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u %s", __func__, dpa->id,
			     dpa->base ? "is itself an extended context" : "is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (!caps->has_dpa) {
		CORE_LOG_ERR("%s: device %s (%s) has no DPA", __func__, caps->pci_addr, caps->model_name);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	struct doca_dpa *e = core_calloc(1, sizeof(*e));

	if (e == NULL) {
		CORE_LOG_ERR("%s: out of memory", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	bool held = false;

	e->id = atomic_fetch_add(&dpa_next_id, 1) + 1;
	doca_error_t r = core_dev_hold(other_dev, e, "doca_dpa context %u (extends %u)", e->id, dpa->id);

	if (r != DOCA_SUCCESS) {
		CORE_LOG_ERR("%s: cannot hold device %s: %s", __func__, caps->pci_addr, doca_error_get_name(r));
		goto fail;
	}
	held = true;
	bool placed = false;

	pthread_mutex_lock(&dpa->lock);
	for (unsigned int i = 0; i < DPA_MAX_EXTENSIONS && !placed; i++) {
		if (dpa->ext_ids[i] == 0) {
			dpa->ext_ids[i] = e->id;
			placed = true;
		}
	}
	pthread_mutex_unlock(&dpa->lock);
	if (!placed) {
		CORE_LOG_ERR("%s: DPA context %u already has %u extended contexts", __func__, dpa->id,
			     DPA_MAX_EXTENSIONS);
		r = DOCA_ERROR_FULL;
		goto fail;
	}
	e->magic = DPA_MAGIC;
	e->base = dpa;
	e->dev = other_dev;
	e->caps = caps;
	e->state = DPA_STATE_STARTED;
	e->app = dpa->app;
	e->log_level = dpa->log_level;
	e->cores = dpa->cores;
	e->eus_per_core = dpa->eus_per_core;
	e->total_eus = dpa->total_eus;
	pthread_mutex_init(&e->lock, NULL);
	atomic_fetch_add(&dpa->nextensions, 1);
	*extended_dpa = e;
	CORE_LOG_TRC("DPA context %u extended to %s as context %u", dpa->id, caps->pci_addr, e->id);
	return DOCA_SUCCESS;

fail:
	if (held)
		core_dev_release(other_dev, e);
	free(e);
	return r;
}

doca_error_t doca_dpa_get_dpa_handle(struct doca_dpa *dpa, doca_dpa_dev_t *handle)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(handle);
	if (dpa->state != DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is not started", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	*handle = DPA_DEV_HANDLE_TAG | dpa->id;
	return DOCA_SUCCESS;
}

/* ------------------------------------------------------------ app image */

/* A dpacc image with a sane table, or NULL with a log line saying what is wrong. */
static bool app_valid(const struct doca_dpa_app *app, const char *func)
{
	if (app->magic != DPA_IMAGE_MAGIC) {
		CORE_LOG_ERR("%s: %p is not an application image built by dpacc (pass the --app-name variable)", func,
			     (const void *)app);
		return false;
	}
	if (app->layout != DPA_IMAGE_LAYOUT) {
		CORE_LOG_ERR("%s: image %s has layout %u, this library reads layout %u", func, app->app_name,
			     app->layout, DPA_IMAGE_LAYOUT);
		return false;
	}
	for (uint32_t i = 0; i < app->nentries; i++) {
		const struct dpa_image_entry *e = app->entries[i];

		if (e->args_size > DPA_ARGS_MAX) {
			CORE_LOG_ERR("%s: %s of image %s takes %u bytes of arguments; at most %u are supported", func,
				     e->name, app->app_name, e->args_size, DPA_ARGS_MAX);
			return false;
		}
		/* Launch records and the RPC buffer are DPA_ARGS_ALIGN_MAX-aligned, no more. */
		if (e->args_align == 0 || e->args_align > DPA_ARGS_ALIGN_MAX) {
			CORE_LOG_ERR("%s: %s of image %s needs %u-byte argument alignment; 1..%u is supported", func,
				     e->name, app->app_name, e->args_align, DPA_ARGS_ALIGN_MAX);
			return false;
		}
	}
	return true;
}

doca_error_t doca_dpa_set_app(struct doca_dpa *dpa, struct doca_dpa_app *app)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(app);
	if (dpa->state == DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is started; set the app before doca_dpa_start", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!app_valid(app, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	if (strcmp(app->dpacc_version, FLOWDPA_DPA_VERSION) != 0) {
		CORE_LOG_ERR("%s: application image %s was built by dpacc %s but this libdoca_dpa is %s; "
			     "rebuild host and device sides together",
			     __func__, app->app_name, app->dpacc_version, FLOWDPA_DPA_VERSION);
		return DOCA_ERROR_DRIVER;
	}
	dpa->app = app;
	CORE_LOG_TRC("DPA context %u: app %s set (%u entry points)", dpa->id, app->app_name, app->nentries);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_app(struct doca_dpa *dpa, struct doca_dpa_app **app)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(app);
	if (dpa->app == NULL) {
		CORE_LOG_ERR("%s: DPA context %u has no application", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	*app = (struct doca_dpa_app *)dpa->app;
	return DOCA_SUCCESS;
}

/* Copy a string into a caller buffer of *len bytes; *len gets the size needed. */
static doca_error_t copy_out(const char *s, char *buf, uint32_t *len, const char *func, const char *what)
{
	size_t need = strlen(s) + 1;

	if (buf == NULL || len == NULL) {
		CORE_LOG_ERR("%s: %s is NULL", func, buf == NULL ? what : "length");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (*len < need) {
		CORE_LOG_ERR("%s: buffer of %u bytes is too small, %zu needed", func, *len, need);
		*len = (uint32_t)need;
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(buf, s, need);
	*len = (uint32_t)need;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_app_get_name(struct doca_dpa_app *app, char *app_name, uint32_t *app_name_len)
{
	DPA_CHECK_NULL(app);
	if (!app_valid(app, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	return copy_out(app->app_name, app_name, app_name_len, __func__, "app_name");
}

/* ------------------------------------------------------------ device log settings */

/* Device log settings belong to the base context. */
static bool ext_not_permitted(const struct doca_dpa *dpa, const char *func)
{
	if (dpa->base == NULL)
		return false;
	CORE_LOG_ERR("%s: DPA context %u is an extended context; set this on context %u", func, dpa->id,
		     dpa->base->id);
	return true;
}

doca_error_t doca_dpa_set_log_level(struct doca_dpa *dpa, doca_dpa_dev_log_level_t log_level)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	if (ext_not_permitted(dpa, __func__))
		return DOCA_ERROR_NOT_PERMITTED;
	if (dpa->state == DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is started; set the log level before doca_dpa_start", __func__,
			     dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	switch (log_level) {
	case DOCA_DPA_DEV_LOG_LEVEL_DISABLE:
	case DOCA_DPA_DEV_LOG_LEVEL_ERROR:
	case DOCA_DPA_DEV_LOG_LEVEL_WARNING:
	case DOCA_DPA_DEV_LOG_LEVEL_INFO:
	case DOCA_DPA_DEV_LOG_LEVEL_DEBUG:
		dpa->log_level = log_level;
		return DOCA_SUCCESS;
	}
	CORE_LOG_ERR("%s: %d is not a doca_dpa_dev_log_level (10, 30, 40, 50 or 60)", __func__, (int)log_level);
	return DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_dpa_get_log_level(struct doca_dpa *dpa, doca_dpa_dev_log_level_t *log_level)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(log_level);
	*log_level = dpa->log_level;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_log_file_set_path(struct doca_dpa *dpa, const char *file_path)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(file_path);
	if (ext_not_permitted(dpa, __func__))
		return DOCA_ERROR_NOT_PERMITTED;
	if (dpa->state == DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is started; set the log file before doca_dpa_start", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	size_t len = strlen(file_path);

	if (len == 0 || len >= sizeof(dpa->log_path)) {
		CORE_LOG_ERR("%s: path length %zu is not in 1..%zu", __func__, len, sizeof(dpa->log_path) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(dpa->log_path, file_path, len + 1);
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_log_file_get_path(struct doca_dpa *dpa, char *file_path, uint32_t *file_path_len)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	if (dpa->log_path[0] == '\0') {
		CORE_LOG_ERR("%s: DPA context %u has no log file (messages go to stdout)", __func__, dpa->id);
		return DOCA_ERROR_NOT_FOUND;
	}
	return copy_out(dpa->log_path, file_path, file_path_len, __func__, "file_path");
}

/* ------------------------------------------------------------ topology */

doca_error_t doca_dpa_get_max_threads_per_kernel(const struct doca_dpa *dpa, unsigned int *value)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(value);
	*value = dpa->total_eus;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_kernel_max_run_time(const struct doca_dpa *dpa, unsigned long long *value)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(value);
	*value = DPA_KERNEL_MAX_RUN_TIME;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_core_num(struct doca_dpa *dpa, unsigned int *num_cores)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(num_cores);
	*num_cores = dpa->cores;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_num_eus_per_core(struct doca_dpa *dpa, unsigned int *eus_per_core)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(eus_per_core);
	*eus_per_core = dpa->eus_per_core;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_total_num_eus_available(struct doca_dpa *dpa, unsigned int *total_num_eus)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(total_num_eus);
	*total_num_eus = dpa->total_eus;
	return DOCA_SUCCESS;
}

doca_error_t doca_dpa_peek_at_last_error(const struct doca_dpa *dpa)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	return atomic_load(&dpa_base((struct doca_dpa *)dpa)->fatal) ? DOCA_ERROR_BAD_STATE : DOCA_SUCCESS;
}

/* ------------------------------------------------------------ the DPA process */

doca_error_t doca_dpa_get_flexio_process(struct doca_dpa *dpa, struct flexio_process **process)
{
	doca_error_t cr = dpa_check(dpa, __func__);

	if (cr != DOCA_SUCCESS)
		return cr;
	DPA_CHECK_NULL(process);
	if (dpa->state != DPA_STATE_STARTED) {
		CORE_LOG_ERR("%s: DPA context %u is not started (call doca_dpa_start first)", __func__, dpa->id);
		return DOCA_ERROR_BAD_STATE;
	}
	*process = &dpa_base(dpa)->process;
	return DOCA_SUCCESS;
}

doca_error_t dpa_process_check(const struct flexio_process *process, const char *caller)
{
	if (process == NULL || process->magic != DPA_PROCESS_MAGIC) {
		CORE_LOG_ERR("%s: process is %s", caller, process == NULL ? "NULL" : "not a DPA process");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

struct doca_dpa *dpa_process_dpa(struct flexio_process *process)
{
	return process->dpa;
}

struct doca_dev *dpa_process_dev(struct flexio_process *process)
{
	return process->dpa->dev;
}

const struct core_dev_caps *dpa_process_caps(const struct flexio_process *process)
{
	return process->dpa->caps;
}

uint32_t dpa_process_id(const struct flexio_process *process)
{
	return process->dpa->id;
}

doca_error_t dpa_process_hold(struct flexio_process *process)
{
	doca_error_t r = dpa_process_check(process, __func__);

	if (r == DOCA_SUCCESS)
		atomic_fetch_add(&process->holds, 1);
	return r;
}

void dpa_process_release(struct flexio_process *process)
{
	if (dpa_process_check(process, __func__) == DOCA_SUCCESS) {
		uint32_t holds = atomic_fetch_sub(&process->holds, 1);

		assert(holds > 0 && "a release without its dpa_process_hold");
		(void)holds;
	}
}
