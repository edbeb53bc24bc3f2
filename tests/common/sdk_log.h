/*
 * sdk_log.h - route flowdpa's own (SDK) log records of WARNING and above to stderr, as
 * the DOCA samples do, so that a failing test's meson log shows why. Shared by the NIC,
 * flow and benchmark programs (the DPA tests capture the SDK log instead: dpa_test_util.h).
 */
#ifndef FLOWDPA_TEST_SDK_LOG_H_
#define FLOWDPA_TEST_SDK_LOG_H_

#include <stdbool.h>
#include <stdio.h>

#include <doca_log.h>

/* Once per process; later calls do nothing. */
static inline void ft_log_init(void)
{
	static bool done;
	struct doca_log_backend *be;
	if (done)
		return;
	done = true;
	if (doca_log_backend_create_with_file_sdk(stderr, &be) == DOCA_SUCCESS)
		doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING);
}

#endif /* FLOWDPA_TEST_SDK_LOG_H_ */
