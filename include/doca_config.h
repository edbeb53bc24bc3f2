/*
 * doca_config.h - build-wide switches. Host builds get the struct-versioning helpers;
 * device (DPA) builds do not, because they cannot include the C library headers.
 */
#ifndef DOCA_CONFIG_H_
#define DOCA_CONFIG_H_

#include <doca_build_config.h>

#define DOCA_COMPAT_HELPERS
#ifdef DOCA_DPA_DEVICE
#undef DOCA_COMPAT_HELPERS
#endif

#endif /* DOCA_CONFIG_H_ */
