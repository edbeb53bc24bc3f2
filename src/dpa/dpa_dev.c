/*
 * dpa_dev.c - the device API of doca_dpa_dev.h (rank, thread count, context selection,
 * yield, end of run, logging) and the device-context helpers of dpa.h. Device code
 * reaches its context through the thread's execution record (dpa_exec_current), set
 * while a kernel instance or RPC runs.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dpa_dev.h>

#include "dpa/dpa_internal.h"

DOCA_LOG_REGISTER(DPA::DEV);

/* Longest device log message; longer ones are cut (and say so). On the stack: no allocation. */
#define DPA_DEV_LOG_MAX 1024

static struct dpa_exec *exec_or_log(const char *func)
{
	struct dpa_exec *x = dpa_exec_current;

	if (x == NULL)
		CORE_LOG_ERR("%s called outside device code (no kernel or RPC runs on this thread)", func);
	return x;
}

bool dpa_in_device(void)
{
	return dpa_exec_current != NULL;
}

struct flexio_process *dpa_current_process(void)
{
	struct dpa_exec *x = dpa_exec_current;

	return x ? &x->dpa->process : NULL;
}

const char *dpa_current_kernel(void)
{
	struct dpa_exec *x = dpa_exec_current;

	return x ? x->entry->name : "(host)";
}

unsigned int dpa_current_rank(void)
{
	struct dpa_exec *x = dpa_exec_current;

	return x ? x->rank : 0;
}

void dpa_dev_fatal(const char *fmt, ...)
{
	struct dpa_exec *x = dpa_exec_current;
	char msg[sizeof(x->fatal_msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x == NULL || !x->armed) {
		CORE_LOG_ERR("%s (called outside device code)", msg);
		return;
	}
	memcpy(x->fatal_msg, msg, sizeof(msg));
	x->armed = 0;
	siglongjmp(x->jmp, DPA_END_FATAL);
}

bool dpa_dev_cancelled(void)
{
	struct dpa_exec *x = dpa_exec_current;

	return x != NULL && x->armed &&
	       (atomic_load_explicit(&x->dpa->cancel, memory_order_relaxed) ||
		(x->stop != NULL && atomic_load_explicit(x->stop, memory_order_relaxed)));
}

void dpa_dev_check_cancel(void)
{
	struct dpa_exec *x = dpa_exec_current;

	if (dpa_dev_cancelled()) {
		x->armed = 0;
		siglongjmp(x->jmp, DPA_END_CANCEL);
	}
}

void doca_dpa_dev_device_set(doca_dpa_dev_t dpa_handle)
{
	struct dpa_exec *x = exec_or_log(__func__);

	if (x == NULL || dpa_handle == (DPA_DEV_HANDLE_TAG | x->dpa->id))
		return;
	bool known = false;

	pthread_mutex_lock(&x->dpa->lock);
	for (unsigned int i = 0; i < DPA_MAX_EXTENSIONS; i++)
		known |= x->dpa->ext_ids[i] != 0 && dpa_handle == (DPA_DEV_HANDLE_TAG | x->dpa->ext_ids[i]);
	pthread_mutex_unlock(&x->dpa->lock);
	if (!known)
		dpa_dev_fatal("doca_dpa_dev_device_set: 0x%" PRIx64 " is not the handle of DPA context %u or of one "
			      "of its extended contexts",
			      dpa_handle, x->dpa->id);
}

unsigned int doca_dpa_dev_thread_rank(void)
{
	struct dpa_exec *x = exec_or_log(__func__);

	return x ? x->rank : 0;
}

unsigned int doca_dpa_dev_num_threads(void)
{
	struct dpa_exec *x = exec_or_log(__func__);

	return x ? x->num_threads : 0;
}

void doca_dpa_dev_yield(void)
{
	dpa_dev_check_cancel();
	sched_yield();
}

static void __attribute__((noreturn)) end_run(const char *func, enum dpa_end end)
{
	struct dpa_exec *x = exec_or_log(func);

	if (x == NULL || !x->armed) {
		CORE_LOG_CRIT("%s cannot return; aborting", func);
		abort();
	}
	x->armed = 0;
	siglongjmp(x->jmp, end);
}

void doca_dpa_dev_thread_reschedule(void)
{
	end_run(__func__, DPA_END_RESCHEDULE);
}

void doca_dpa_dev_thread_finish(void)
{
	end_run(__func__, DPA_END_FINISH);
}

doca_dpa_dev_uintptr_t doca_dpa_dev_thread_get_local_storage(void)
{
	struct dpa_exec *x = exec_or_log(__func__);

	return x ? x->local_storage : 0;
}

void doca_dpa_dev_log(doca_dpa_dev_log_level_t log_level, const char *format, ...)
{
	struct dpa_exec *x = exec_or_log(__func__);

	if (x == NULL || format == NULL)
		return;
	if (log_level <= DOCA_DPA_DEV_LOG_LEVEL_DISABLE || log_level > x->dpa->log_level)
		return;
	char msg[DPA_DEV_LOG_MAX];
	va_list ap;

	va_start(ap, format);
	int n = vsnprintf(msg, sizeof(msg), format, ap);

	va_end(ap);
	if (n >= (int)sizeof(msg)) {
		static const char cut[] = "...[cut]\n";

		memcpy(msg + sizeof(msg) - sizeof(cut), cut, sizeof(cut));
	}
	/* One locked write + flush: concurrent instances never interleave within a message,
	 * and the text is ordered with the host program's own stdout. */
	FILE *out = x->dpa->log_file ? x->dpa->log_file : stdout;

	flockfile(out);
	fputs(msg, out);
	fflush(out);
	funlockfile(out);
	if (core_log_sdk_enabled(DOCA_LOG_LEVEL_DEBUG)) {
		size_t len = strlen(msg);

		while (len > 0 && msg[len - 1] == '\n')
			msg[--len] = '\0';
		CORE_LOG_DBG("DPA context %u %s %s rank %u: %s", x->dpa->id,
			     x->entry->kind == DPA_ENTRY_RPC ? "RPC" : "kernel", x->entry->name, x->rank, msg);
	}
}
