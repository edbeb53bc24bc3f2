/*
 * trace.c - FLOWDPA_TRACE: Chrome/Perfetto trace-event JSON of host calls, kernel runs,
 * provider requests and packet batches.
 *
 * Events are formatted into a process-wide buffer under a mutex and written out with
 * write(2) when it fills, at exit, and from crash signals. The signal path only reads
 * atomics and calls write() and nanosleep(), all async-signal-safe: it writes the
 * committed bytes not yet written (trace_written tracks a drain in progress), then the
 * footer, once, so a crashing program still leaves a loadable file with everything up
 * to the crash. Whoever writes holds trace_writer (a drain, or the signal path, which
 * keeps it for good): a crash in one thread while another drains waits for that drain
 * instead of writing the same bytes a second time. A
 * forked child stops tracing: the file belongs to the process that opened it. With the
 * variable unset, callers test core_trace_active and nothing else runs.
 */
#include "core.h"
#include "core_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TRACE_BUF_SIZE (1u << 20)
#define TRACE_EVENT_MAX 2048

static const char trace_header[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
static const char trace_footer[] = "\n]}\n";

_Atomic bool core_trace_active;

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static char trace_buf[TRACE_BUF_SIZE];
static _Atomic size_t trace_len;     /* bytes of trace_buf that hold whole events */
static _Atomic size_t trace_written; /* of those, bytes already in the file */
static int trace_fd = -1;
static pid_t trace_owner;
static bool trace_first_event = true;
static atomic_flag trace_finished = ATOMIC_FLAG_INIT;
/* Thread id of whoever writes trace_buf out right now, 0 when nobody does. */
static _Atomic long trace_writer;

/* How long the signal path waits for another thread's drain: 2000 x 1 ms. */
#define TRACE_CRASH_WAIT_STEPS 2000

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGINT, SIGTERM};
static struct sigaction crash_old[sizeof(crash_signals) / sizeof(crash_signals[0])];
static bool crash_installed;

uint64_t core_trace_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* Writes trace_buf[trace_written, upto) and advances trace_written as bytes land. */
static void write_pending(size_t upto)
{
	size_t done = atomic_load(&trace_written);

	while (done < upto) {
		ssize_t w = write(trace_fd, trace_buf + done, upto - done);

		if (w <= 0)
			return;
		done += (size_t)w;
		atomic_store(&trace_written, done);
	}
}

static long trace_tid(void)
{
	return (long)syscall(SYS_gettid);
}

/* Called with trace_lock held. False when the buffer could not be emptied: the signal
 * path is finishing the file (it owns trace_writer from then on). */
static bool trace_drain_locked(void)
{
	long none = 0;
	long self;

	if (trace_fd < 0)
		return false;
	self = trace_tid();
	if (!atomic_compare_exchange_strong(&trace_writer, &none, self))
		return false;
	write_pending(atomic_load(&trace_len));
	/* Empty the buffer length first: a crash between the two stores then writes nothing. */
	atomic_store(&trace_len, 0);
	atomic_store(&trace_written, 0);
	/* Released only if still ours: a signal path that gave up waiting keeps it. */
	atomic_compare_exchange_strong(&trace_writer, &self, 0);
	return true;
}

static void trace_append(const char *event, size_t n)
{
	pthread_mutex_lock(&trace_lock);
	/* Inactive once finished (crash or exit): nothing may follow the footer. */
	if (trace_fd < 0 || !atomic_load(&core_trace_active)) {
		pthread_mutex_unlock(&trace_lock);
		return;
	}
	if (atomic_load(&trace_len) + n + 2 > TRACE_BUF_SIZE && !trace_drain_locked()) {
		pthread_mutex_unlock(&trace_lock);
		return;
	}
	size_t len = atomic_load(&trace_len);

	if (!trace_first_event) {
		trace_buf[len++] = ',';
		trace_buf[len++] = '\n';
	}
	trace_first_event = false;
	memcpy(trace_buf + len, event, n);
	/* Publish only after the bytes are in place: the crash path reads this length. */
	atomic_store(&trace_len, len + n);
	pthread_mutex_unlock(&trace_lock);
}

#define TRACE_PHASE_INSTANT (-1)
#define TRACE_PHASE_COUNTER (-2)

/* One event line; dur_us < 0 makes an instant (TRACE_PHASE_INSTANT) or counter event. */
static void trace_event(uint32_t pid, const char *cat, const char *name, uint64_t ts_us, int64_t dur_us,
			const char *args_json)
{
	char ev[TRACE_EVENT_MAX];
	char qname[256];
	char qcat[64];
	char phase[48];
	int n;

	core_json_escape(name, qname, sizeof(qname));
	core_json_escape(cat, qcat, sizeof(qcat));
	if (dur_us == TRACE_PHASE_COUNTER)
		snprintf(phase, sizeof(phase), "\"ph\":\"C\"");
	else if (dur_us < 0)
		snprintf(phase, sizeof(phase), "\"ph\":\"i\",\"s\":\"t\"");
	else
		snprintf(phase, sizeof(phase), "\"ph\":\"X\",\"dur\":%" PRId64, dur_us);
	n = snprintf(ev, sizeof(ev), "{\"name\":%s,\"cat\":%s,%s,\"ts\":%" PRIu64 ",\"pid\":%u,\"tid\":%ld,\"args\":%s}",
		     qname, qcat, phase, ts_us, pid, trace_tid(), args_json ? args_json : "{}");
	if (n > 0 && (size_t)n < sizeof(ev))
		trace_append(ev, (size_t)n);
}

void core_trace_complete(uint32_t pid, const char *cat, const char *name, uint64_t ts_us, uint64_t dur_us,
			 const char *args_json)
{
	if (core_trace_enabled())
		trace_event(pid, cat, name, ts_us, dur_us > INT64_MAX ? INT64_MAX : (int64_t)dur_us, args_json);
}

void core_trace_instant(uint32_t pid, const char *cat, const char *name, const char *args_json)
{
	if (core_trace_enabled())
		trace_event(pid, cat, name, core_trace_now_us(), TRACE_PHASE_INSTANT, args_json);
}

void core_trace_counter(uint32_t pid, const char *name, const char *args_json)
{
	if (core_trace_enabled())
		trace_event(pid, "counter", name, core_trace_now_us(), TRACE_PHASE_COUNTER, args_json);
}

static void trace_call(const char *cat, const char *name, uint64_t t0, const char *args_json)
{
	uint64_t now = core_trace_now_us();

	trace_event(0, cat, name, t0, now > t0 ? (int64_t)(now - t0) : 0, args_json);
}

void core_trace_call_error(const char *cat, const char *name, uint64_t t0, doca_error_t result)
{
	char args[96];

	if (!core_trace_enabled())
		return;
	snprintf(args, sizeof(args), "{\"result\":\"%s\"}", doca_error_get_name(result));
	trace_call(cat, name, t0, args);
}

void core_trace_call_integer(const char *cat, const char *name, uint64_t t0, int64_t result)
{
	char args[48];

	if (!core_trace_enabled())
		return;
	snprintf(args, sizeof(args), "{\"result\":%" PRId64 "}", result);
	trace_call(cat, name, t0, args);
}

void core_trace_call_pointer(const char *cat, const char *name, uint64_t t0, const void *result)
{
	char args[48];

	if (!core_trace_enabled())
		return;
	if (result == NULL)
		snprintf(args, sizeof(args), "{\"result\":null}");
	else
		snprintf(args, sizeof(args), "{\"result\":\"%p\"}", result);
	trace_call(cat, name, t0, args);
}

void core_trace_call_void(const char *cat, const char *name, uint64_t t0)
{
	if (core_trace_enabled())
		trace_call(cat, name, t0, NULL);
}

static void trace_metadata(const char *what, uint32_t pid, long tid, const char *value)
{
	char ev[512];
	char qvalue[256];
	int n;

	core_json_escape(value, qvalue, sizeof(qvalue));
	n = snprintf(ev, sizeof(ev), "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%ld,\"args\":{\"name\":%s}}",
		     what, pid, tid, qvalue);
	if (n > 0 && (size_t)n < sizeof(ev))
		trace_append(ev, (size_t)n);
}

void core_trace_thread_name(uint32_t pid, const char *name)
{
	if (core_trace_enabled())
		trace_metadata("thread_name", pid, trace_tid(), name);
}

void core_thread_name(uint32_t pid, const char *trace_name, const char *os_name)
{
	if (os_name != NULL) {
		char comm[16];

		/* The kernel refuses (ERANGE) a name of 16 bytes or more: cut it instead. */
		snprintf(comm, sizeof(comm), "%s", os_name);
		pthread_setname_np(pthread_self(), comm);
	}
	if (trace_name != NULL)
		core_trace_thread_name(pid, trace_name);
}

void core_trace_flush(void)
{
	pthread_mutex_lock(&trace_lock);
	trace_drain_locked();
	pthread_mutex_unlock(&trace_lock);
}

/* Async-signal-safe: what is committed and not yet written, then the footer, once.
 * Only the process that opened the file writes to it. Another thread's drain in
 * progress is waited for (boundedly: a drain stuck for seconds is taken over); a drain
 * this thread was in when the signal came never resumes, so its bytes are ours. */
static void trace_finish_unlocked(void)
{
	long self;
	long none = 0;

	if (trace_fd < 0 || getpid() != trace_owner || atomic_flag_test_and_set(&trace_finished))
		return;
	atomic_store(&core_trace_active, false);
	self = trace_tid();
	for (int i = 0; i < TRACE_CRASH_WAIT_STEPS; i++) {
		if (atomic_compare_exchange_strong(&trace_writer, &none, self) || none == self)
			break;
		none = 0;
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	/* Kept: no drain may write after the footer. */
	atomic_store(&trace_writer, self);
	write_pending(atomic_load(&trace_len));
	write_all(trace_fd, trace_footer, sizeof(trace_footer) - 1);
}

static void trace_at_exit(void)
{
	pthread_mutex_lock(&trace_lock);
	atomic_store(&core_trace_active, false);
	trace_finish_unlocked();
	if (trace_fd >= 0)
		close(trace_fd);
	trace_fd = -1;
	pthread_mutex_unlock(&trace_lock);
}

static void trace_on_crash(int sig, siginfo_t *info, void *uctx)
{
	size_t i;

	trace_finish_unlocked();
	for (i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		if (crash_signals[i] == sig)
			break;
	/* Hand the signal to whoever had it before us (default action, a debugger, ASan). */
	if (i < sizeof(crash_signals) / sizeof(crash_signals[0])) {
		struct sigaction *old = &crash_old[i];

		if (old->sa_flags & SA_SIGINFO && old->sa_sigaction != NULL) {
			old->sa_sigaction(sig, info, uctx);
			return;
		}
		if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
			old->sa_handler(sig);
			return;
		}
		sigaction(sig, old, NULL);
	}
	raise(sig);
}

static void trace_install_crash_handlers(void)
{
	struct sigaction sa;

	if (crash_installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trace_on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++) {
		sigaction(crash_signals[i], NULL, &crash_old[i]);
		/* Leave interrupt handling alone when the program already chose one. */
		if ((crash_signals[i] == SIGINT || crash_signals[i] == SIGTERM) && crash_old[i].sa_handler != SIG_DFL)
			continue;
		sigaction(crash_signals[i], &sa, NULL);
	}
	crash_installed = true;
}

static void trace_name_processes(void)
{
	const struct core_config *cfg = core_config_get();
	char name[96];

	trace_metadata("process_name", 0, 0, "host program");
	/* The configuration is read at load, on the program's main thread. */
	if (getpid() == trace_tid()) {
		char main_name[128];

		snprintf(main_name, sizeof(main_name), "main (%s)", program_invocation_short_name);
		trace_metadata("thread_name", 0, trace_tid(), main_name);
	}
	for (uint32_t i = 0; cfg != NULL && i < cfg->nr_devices; i++) {
		core_device_describe(i, name, sizeof(name));
		trace_metadata("process_name", i + 1, 0, name);
	}
}

/* The child of a fork must neither append to nor finish the parent's file. */
static void trace_after_fork_child(void)
{
	atomic_store(&core_trace_active, false);
	if (trace_fd >= 0)
		close(trace_fd);
	trace_fd = -1;
	pthread_mutex_init(&trace_lock, NULL);
}

void core_trace_configure(const char *path)
{
	static bool atexit_done;
	int fd;

	trace_at_exit();
	if (path == NULL || path[0] == '\0')
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "flowdpa: FLOWDPA_TRACE=\"%s\": cannot create the file: %s; tracing is off\n", path,
			strerror(errno));
		return;
	}
	pthread_mutex_lock(&trace_lock);
	trace_fd = fd;
	trace_owner = getpid();
	atomic_store(&trace_writer, 0);
	trace_first_event = true;
	atomic_store(&trace_len, 0);
	atomic_store(&trace_written, 0);
	atomic_flag_clear(&trace_finished);
	write_all(fd, trace_header, sizeof(trace_header) - 1);
	atomic_store(&core_trace_active, true);
	pthread_mutex_unlock(&trace_lock);
	trace_name_processes();
	trace_install_crash_handlers();
	if (!atexit_done) {
		atexit(trace_at_exit);
		pthread_atfork(NULL, NULL, trace_after_fork_child);
		atexit_done = true;
	}
}
