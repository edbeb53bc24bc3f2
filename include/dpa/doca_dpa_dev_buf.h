/*
 * doca_dpa_dev_buf.h - DOCA buffer descriptors as device code sees them. A buffer or
 * buffer-array handle is the device address of the struct below, so the accessors are
 * inline dereferences (as in DOCA 3.0). The out-of-line memcpy posts need async ops,
 * which flowdpa does not emulate yet, and are not declared.
 */
#ifndef DOCA_DPA_DEV_BUF_H_
#define DOCA_DPA_DEV_BUF_H_

#include <doca_dpa_dev.h>

#ifdef __cplusplus
extern "C" {
#endif

__dpa_global__ typedef uint32_t doca_dpa_dev_mmap_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_buf_t;
__dpa_global__ typedef uint64_t doca_dpa_dev_buf_arr_t;

struct doca_dpa_dev_buf {
	uintptr_t addr;
	uint64_t len;
	doca_dpa_dev_mmap_t mmap;
	unsigned char reserved[12];
} __attribute__((__packed__));

struct doca_dpa_dev_buf_arr {
	struct doca_dpa_dev_buf *bufs;
	unsigned char reserved[20];
} __attribute__((__packed__, aligned(64)));

/*
 * DOCA marks these accessors DOCA_EXPERIMENTAL; on a static inline function only its
 * deprecation part applies (visibility and section would be ignored, and warned about).
 */
#ifndef DOCA_ALLOW_EXPERIMENTAL_API
#define DOCA_DPA_DEV_BUF_EXPERIMENTAL_ __attribute__((deprecated("Symbol is defined as experimental")))
#else
#define DOCA_DPA_DEV_BUF_EXPERIMENTAL_
#endif

/* The handle of buffer buf_idx of an array. */
DOCA_DPA_DEV_BUF_EXPERIMENTAL_ __forceinline doca_dpa_dev_buf_t doca_dpa_dev_buf_array_get_buf(doca_dpa_dev_buf_arr_t buf_arr,
										  const uint64_t buf_idx)
{
	struct doca_dpa_dev_buf_arr *arr = (struct doca_dpa_dev_buf_arr *)buf_arr;

	return (doca_dpa_dev_buf_t)(uintptr_t)&arr->bufs[buf_idx];
}

DOCA_DPA_DEV_BUF_EXPERIMENTAL_ __forceinline void doca_dpa_dev_buf_set_addr(doca_dpa_dev_buf_t buf, uintptr_t addr)
{
	((struct doca_dpa_dev_buf *)buf)->addr = addr;
}

DOCA_DPA_DEV_BUF_EXPERIMENTAL_ __forceinline void doca_dpa_dev_buf_set_len(doca_dpa_dev_buf_t buf, size_t len)
{
	((struct doca_dpa_dev_buf *)buf)->len = len;
}

DOCA_DPA_DEV_BUF_EXPERIMENTAL_ __forceinline void doca_dpa_dev_buf_set_mmap(doca_dpa_dev_buf_t buf, doca_dpa_dev_mmap_t mmap)
{
	((struct doca_dpa_dev_buf *)buf)->mmap = mmap;
}

DOCA_DPA_DEV_BUF_EXPERIMENTAL_ __forceinline uintptr_t doca_dpa_dev_buf_get_addr(doca_dpa_dev_buf_t buf)
{
	return ((struct doca_dpa_dev_buf *)buf)->addr;
}

DOCA_DPA_DEV_BUF_EXPERIMENTAL_ __forceinline uint64_t doca_dpa_dev_buf_get_len(doca_dpa_dev_buf_t buf)
{
	return ((struct doca_dpa_dev_buf *)buf)->len;
}

DOCA_DPA_DEV_BUF_EXPERIMENTAL_ __forceinline doca_dpa_dev_mmap_t doca_dpa_dev_buf_get_mmap(doca_dpa_dev_buf_t buf)
{
	return ((struct doca_dpa_dev_buf *)buf)->mmap;
}

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_BUF_H_ */
