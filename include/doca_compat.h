/*
 * doca_compat.h - symbol visibility and API-stability markers, as DOCA spells them.
 *
 * flowdpa keeps DOCA's macro names and expansions so that user code which tests
 * them, or relies on the experimental-API warning, behaves the same.
 */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#include <doca_config.h>
/* FLOWDPA and its version: lets a program tell flowdpa from NVIDIA's DOCA (#ifdef FLOWDPA). */
#include <flowdpa_version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__linux__) || defined(DOCA_DPA_DEVICE)

#define DOCA_USED __attribute__((used))
#define DOCA_STABLE __attribute__((visibility("default"))) DOCA_USED

#ifndef DOCA_ALLOW_EXPERIMENTAL_API
#define DOCA_EXPERIMENTAL \
	__attribute__((deprecated("Symbol is defined as experimental"), section(".text.experimental"))) DOCA_STABLE
#else
#define DOCA_EXPERIMENTAL __attribute__((section(".text.experimental"))) DOCA_STABLE
#endif

#ifndef DOCA_ALLOW_DEPRECATED_API
#define DOCA_DEPRECATED \
	__attribute__((deprecated("Symbol is defined as deprecated"), section(".text.deprecated"))) DOCA_STABLE
#else
#define DOCA_DEPRECATED __attribute__((section(".text.deprecated"))) DOCA_STABLE
#endif

#else
#error "flowdpa supports Linux hosts only"
#endif

#ifdef __cplusplus
}
#endif

/* doca_version.h needs the markers above, so it comes after them. */
#ifdef DOCA_COMPAT_HELPERS
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <doca_version.h>

/* Versioned-struct helpers: the first member records the API version it was built with. */
#define DOCA_STRUCT_START size_t __doca_api_version
#define DOCA_STRUCT_GET_VERSION(_X_) (_X_)->__doca_api_version
#define DOCA_STRUCT_CTOR(_X_) (_X_).__doca_api_version = DOCA_VERSION_EXACT
#define DOCA_STRUCT_PTR_CTOR(_X_) DOCA_STRUCT_CTOR(*(_X_))
#define DOCA_STRUCT_MEMSET_CTOR(_X_) \
	do { \
		memset(&(_X_), 0, sizeof(_X_)); \
		(_X_).__doca_api_version = DOCA_VERSION_EXACT; \
	} while (0)
#define DOCA_STRUCT_PTR_MEMSET_CTOR(_X_) DOCA_STRUCT_MEMSET_CTOR(*(_X_))
#define DOCA_STRUCT_CTOR_LIST_START .__doca_api_version = DOCA_VERSION_EXACT
#define DOCA_STRUCT_DEF(__st__, __name__) struct __st__ __name__ = {.__doca_api_version = DOCA_VERSION_EXACT}
#endif

#endif /* DOCA_COMPAT_H_ */
