/*
 * dpa_signal.c - the crash-signal handler that turns a faulting kernel instance or RPC
 * into a reported launch error while the host program carries on, and the alternate
 * signal stacks that let it run after a stack overflow.
 *
 * The handler is installed by doca_dpa_create (once, and again only if another handler
 * replaced it since), never on the launch or RPC path: a sigaction per launch costs a
 * syscall, and re-installing over a handler that chains to ours would make the two
 * chain to each other. A per-thread guard breaks any such cycle anyway.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpa/dpa_internal.h"

DOCA_LOG_REGISTER(DPA::SIGNAL);

static const int dpa_fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define DPA_NSIGS (sizeof(dpa_fault_signals) / sizeof(dpa_fault_signals[0]))

/*
 * What was installed before us, per fault signal. Double-buffered: an install writes
 * the idle copy and then flips dpa_prev_cur, so a handler running meanwhile (on another
 * thread) reads a complete action, never one being rewritten.
 */
static struct sigaction dpa_prev_action[2][DPA_NSIGS];
static atomic_uint dpa_prev_cur;
static pthread_mutex_t dpa_install_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Set while this thread's handler chains to the previous one (cycle guard). A previous
 * handler that longjmps out (cmocka's) leaves it set: later faults outside device code
 * on that thread then get the default action (the program ends; faults in device code
 * are still caught). Only a program already past one host fault is affected.
 */
static __thread volatile sig_atomic_t dpa_chaining __attribute__((tls_model("initial-exec")));
/* RPC callers' alternate signal stack (dpa_thread_altstack); a TLS root for LeakSanitizer. */
static __thread void *dpa_rpc_altstack __attribute__((tls_model("initial-exec")));
static __thread bool dpa_altstack_tried __attribute__((tls_model("initial-exec")));
static pthread_key_t dpa_altstack_key;
static pthread_once_t dpa_altstack_once = PTHREAD_ONCE_INIT;

static int sig_index(int sig)
{
	for (size_t i = 0; i < DPA_NSIGS; i++)
		if (dpa_fault_signals[i] == sig)
			return (int)i;
	return -1;
}

static void default_action(int sig, const siginfo_t *info)
{
	/* Restore the default; a hardware fault re-executes and terminates with the right
	 * signal, a sent signal is raised again. */
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (info == NULL || info->si_code <= 0)
		raise(sig);
}

/*
 * On a thread running device code, a real fault (si_code > 0: raised by the CPU, not
 * sent by kill/tgkill/raise) ends the instance. Anything else goes to whoever had the
 * signal before us (core's trace flush, a sanitizer, the application) or gets the
 * default action.
 */
static void dpa_fault_handler(int sig, siginfo_t *info, void *uctx)
{
	struct dpa_exec *x = dpa_exec_current;

	if (x != NULL && x->armed && info != NULL && info->si_code > 0) {
		x->armed = 0;
		x->sig = sig;
		x->fault_addr = info->si_addr;
		siglongjmp(x->jmp, DPA_END_FAULT);
	}
	int i = sig_index(sig);

	if (i < 0 || dpa_chaining) {
		/* Re-entered through a handler that chains back to us: stop the cycle. */
		default_action(sig, info);
		return;
	}
	struct sigaction prev = dpa_prev_action[atomic_load(&dpa_prev_cur) & 1u][i];

	if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction != NULL && prev.sa_sigaction != dpa_fault_handler) {
		dpa_chaining = 1;
		prev.sa_sigaction(sig, info, uctx);
		dpa_chaining = 0;
		return;
	}
	if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
		dpa_chaining = 1;
		prev.sa_handler(sig);
		dpa_chaining = 0;
		return;
	}
	default_action(sig, info);
}

void dpa_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = dpa_fault_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	pthread_mutex_lock(&dpa_install_lock);
	unsigned int cur = atomic_load(&dpa_prev_cur) & 1u, next = cur ^ 1u;
	bool changed = false;

	memcpy(dpa_prev_action[next], dpa_prev_action[cur], sizeof(dpa_prev_action[next]));
	for (size_t i = 0; i < DPA_NSIGS; i++) {
		int sig = dpa_fault_signals[i];
		struct sigaction old;

		if (sigaction(sig, NULL, &old) == 0 && (old.sa_flags & SA_SIGINFO) && old.sa_sigaction == dpa_fault_handler)
			continue;
		if (sigaction(sig, &sa, &old) != 0) {
			CORE_LOG_WARN("cannot install the DPA fault handler for signal %d: %s; a faulting kernel will "
				      "terminate the program",
				      sig, strerror(errno));
			continue;
		}
		dpa_prev_action[next][i] = old;
		changed = true;
	}
	if (changed)
		atomic_store(&dpa_prev_cur, next);
	pthread_mutex_unlock(&dpa_install_lock);
}

static void altstack_free(void *stack)
{
	stack_t ss = {.ss_flags = SS_DISABLE};

	sigaltstack(&ss, NULL);
	free(stack);
}

static void altstack_key_create(void)
{
	pthread_key_create(&dpa_altstack_key, altstack_free);
}

/*
 * RPCs run on the caller's thread: without an alternate stack, the handler itself could
 * not run after a stack overflow in the RPC and the process would die. The stack stays
 * for the thread's life (freed at its exit): a syscall only on the thread's first RPC.
 */
void dpa_thread_altstack(void)
{
	stack_t cur;

	if (dpa_altstack_tried)
		return;
	dpa_altstack_tried = true;
	if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) {
		dpa_rpc_altstack = cur.ss_sp; /* the thread has one already (a sanitizer's, the app's) */
		return;
	}
	void *stack = core_malloc(DPA_ALTSTACK_SIZE);
	stack_t ss = {.ss_sp = stack, .ss_size = DPA_ALTSTACK_SIZE, .ss_flags = 0};

	if (stack == NULL || sigaltstack(&ss, NULL) != 0) {
		CORE_LOG_WARN("no alternate signal stack for RPCs on this thread (%s); a stack overflow in an RPC "
			      "will not be caught",
			      stack == NULL ? "out of memory" : strerror(errno));
		free(stack);
		return;
	}
	dpa_rpc_altstack = stack;
	pthread_once(&dpa_altstack_once, altstack_key_create);
	pthread_setspecific(dpa_altstack_key, stack);
}
