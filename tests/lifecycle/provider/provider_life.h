/*
 * provider_life.h - helpers of the provider lifecycle suite (host and DPA-side negative
 * tests): configuration changes between cases, external resources and their exports, a
 * second DPA context with its own provider ctx, a fixture without a provider ctx (for
 * init-time failures), and log assertions for WARNING lines.
 */
#ifndef PROVIDER_LIFE_H_
#define PROVIDER_LIFE_H_

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <core/core.h>

#include "provider_test.h"

/*
 * Set (val NULL: unset) one FLOWDPA_* variable and parse the configuration again. Only
 * with no device open: a reload rebuilds the device inventory.
 */
static inline void lc_env(const char *key, const char *val)
{
	if (val)
		setenv(key, val, 1);
	else
		unsetenv(key);
	assert_int_equal(core_config_reload(), DOCA_SUCCESS);
}

/* Records at a level with all substrings since the last clear. */
#define lc_count(level, ...) dpa_test_log_count(level, __VA_ARGS__, (const char *)NULL)

/* Exactly one WARNING record, with all substrings, and no ERROR record; then clears. */
#define lc_expect_one_warn(...)                                                                   \
	do {                                                                                      \
		int w_ = dpa_test_log_count("[WRN]", (const char *)NULL);                         \
		int e_ = dpa_test_log_count("[ERR]", (const char *)NULL);                         \
		int m_ = lc_count("[WRN]", __VA_ARGS__);                                          \
		if (w_ != 1 || e_ != 0 || m_ != 1)                                                \
			print_error("expected 1 WARNING (%d) with the text (%d) and no ERROR (%d); log:\n%s\n", w_, \
				    m_, e_, dpa_test_log);                                        \
		assert_int_equal(w_, 1);                                                          \
		assert_int_equal(e_, 0);                                                          \
		assert_int_equal(m_, 1);                                                          \
		dpa_test_log_clear();                                                             \
	} while (0)

/* Nothing at WARNING or above since the last clear. */
static inline void lc_expect_quiet(void)
{
	int n = dpa_test_log_count("[WRN]", (const char *)NULL) + dpa_test_log_count("[ERR]", (const char *)NULL);
	if (n)
		print_error("expected no WARNING/ERROR record, got %d; log:\n%s\n", n, dpa_test_log);
	assert_int_equal(n, 0);
}

/* A second DPA context on device 0 (its own DPA process) with a provider ctx. */
struct lc_ctx2 {
	struct doca_dpa *dpa;
	struct flexio_process *proc;
	struct doca_flow_dpa_ctx *ctx;
	uint64_t scratch;
	bool queues; /* on port 0 */
};

static inline void lc_ctx2_open(struct pv_fx *f, struct lc_ctx2 *c, const struct doca_flow_dpa_queue_cfg *cfgs,
				uint32_t n)
{
	memset(c, 0, sizeof(*c));
	c->dpa = dpa_test_started(f->dev, provider_test_app);
	assert_int_equal(doca_dpa_get_flexio_process(c->dpa, &c->proc), DOCA_SUCCESS);
	assert_ptr_not_equal(c->proc, f->proc);
	assert_int_equal(doca_flow_dpa_init(c->proc, &c->ctx), DOCA_SUCCESS);
	if (cfgs)
		assert_int_equal(doca_flow_dpa_queues_create(c->ctx, f->ports[0], cfgs, n), DOCA_SUCCESS);
	c->queues = cfgs != NULL;
	assert_int_equal(doca_dpa_mem_alloc(c->dpa, PV_SCRATCH, &c->scratch), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_memset(c->dpa, c->scratch, 0, PV_SCRATCH), DOCA_SUCCESS);
	dpa_test_log_clear();
}

static inline void lc_ctx2_close(struct pv_fx *f, struct lc_ctx2 *c)
{
	if (c->queues)
		assert_int_equal(doca_flow_dpa_queues_destroy(c->ctx, f->ports[0]), DOCA_SUCCESS);
	assert_int_equal(doca_flow_dpa_destroy(c->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_mem_free(c->dpa, c->scratch), DOCA_SUCCESS);
	assert_int_equal(doca_dpa_destroy(c->dpa), DOCA_SUCCESS);
}

/* The fixture of provider_test.h without the provider ctx (f->ctx NULL): for failures of
 * doca_flow_dpa_init itself. */
static inline struct pv_fx *lc_fx_open_noctx(void)
{
	static struct pv_fx f;
	pv_fx_base(&f);
	dpa_test_log_clear();
	return &f;
}

/*
 * Teardown of either fixture that does not cascade: when the test failed and left
 * provider objects alive, its DPA context is leaked (and -1 returned, failing the
 * teardown), but DOCA Flow is still destroyed so that the next test can start.
 */
static inline int lc_fx_close(struct pv_fx *f)
{
	int rc = 0;
	if (f == NULL)
		return 0; /* the test failed before opening it */
	if (f->ctx) {
		doca_flow_dpa_queues_destroy(f->ctx, f->ports[0]);
		if (doca_flow_dpa_destroy(f->ctx) != DOCA_SUCCESS) {
			print_error("teardown: provider objects left alive; DPA context leaked\n");
			rc = -1;
		}
	}
	if (rc == 0) {
		if (f->scratch && doca_dpa_mem_free(f->dpa, f->scratch) != DOCA_SUCCESS)
			rc = -1;
		if (doca_dpa_destroy(f->dpa) != DOCA_SUCCESS || doca_dev_close(f->dev) != DOCA_SUCCESS)
			rc = -1;
	}
	stop_doca_flow_ports(2, f->ports);
	doca_flow_destroy();
	return rc;
}

/*
 * Run fn in a child process, for a state the test cannot undo; fn must not use cmocka's
 * asserts (they would resume the test run in the child) and returns 0 or the number of
 * its failed check. The child's exit code.
 */
static inline int lc_in_child(int (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif /* PROVIDER_LIFE_H_ */
