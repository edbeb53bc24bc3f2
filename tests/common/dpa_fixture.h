/*
 * dpa_fixture.h - the cmocka fixture the DPA tests share: emulated device 0 (a device
 * with a DPA), optionally device 1 (the suites configure one without a DPA there), and a
 * DPA context on device 0, either only created or with an app set and started. A test's
 * setup may add an event of its own in ev (and its DPA handle in ev_h); dpa_fx_close
 * destroys it before the context. Each open ends with the captured SDK log cleared.
 *
 * A test file wraps it in its setup and teardown, naming the app its suite builds:
 *
 *	static int fx_setup(void **state)
 *	{
 *		*state = dpa_fx_open(DPA_FX_STARTED, unit_app);
 *		return 0;
 *	}
 *
 *	static int fx_teardown(void **state)
 *	{
 *		dpa_fx_close(*state);
 *		return 0;
 *	}
 */
#ifndef DPA_TEST_FIXTURE_H_
#define DPA_TEST_FIXTURE_H_

#include <string.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_sync_event.h>

#include "dpa_test_util.h"

struct dpa_fx {
	struct doca_dev *dev;	      /* device 0 */
	struct doca_dev *nodpa;	      /* device 1 with DPA_FX_NODPA, else NULL */
	struct doca_dpa *dpa;	      /* with DPA_FX_CREATED or DPA_FX_STARTED, else NULL */
	struct doca_sync_event *ev;   /* the test's own event, or NULL */
	doca_dpa_dev_sync_event_t ev_h; /* its DPA handle, when the test takes one */
};

enum dpa_fx_flags {
	DPA_FX_DEV = 0,		 /* device 0 only */
	DPA_FX_NODPA = 1u << 0,	 /* also open device 1 */
	DPA_FX_CREATED = 1u << 1, /* a context on device 0, not started (no app) */
	DPA_FX_STARTED = 1u << 2, /* a context on device 0 with app set and started */
};

/* One fixture per process (cmocka runs one test at a time); fails the test on error. */
static inline struct dpa_fx *dpa_fx_open(unsigned int flags, struct doca_dpa_app *app)
{
	static struct dpa_fx f;

	memset(&f, 0, sizeof(f));
	f.dev = dpa_test_open_dev(0);
	if (flags & DPA_FX_NODPA)
		f.nodpa = dpa_test_open_dev(1);
	if (flags & DPA_FX_STARTED)
		f.dpa = dpa_test_started(f.dev, app);
	else if (flags & DPA_FX_CREATED)
		assert_int_equal(doca_dpa_create(f.dev, &f.dpa), DOCA_SUCCESS);
	dpa_test_log_clear();
	return &f;
}

/* Destroy in reverse order: the test's event, the context, device 0, device 1. */
static inline void dpa_fx_close(struct dpa_fx *f)
{
	if (f->ev)
		assert_int_equal(doca_sync_event_destroy(f->ev), DOCA_SUCCESS);
	if (f->dpa)
		assert_int_equal(doca_dpa_destroy(f->dpa), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(f->dev), DOCA_SUCCESS);
	if (f->nodpa)
		assert_int_equal(doca_dev_close(f->nodpa), DOCA_SUCCESS);
}

#endif /* DPA_TEST_FIXTURE_H_ */
