/*
 * doca_bitfield.h - byte-order helpers DOCA samples use to fill network-order fields of
 * match and action templates.
 */
#ifndef DOCA_BITFIELD_H_
#define DOCA_BITFIELD_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DOCA_HTOBE16(_x) ((uint16_t)__builtin_bswap16((uint16_t)(_x)))
#define DOCA_HTOBE32(_x) ((uint32_t)__builtin_bswap32((uint32_t)(_x)))
#define DOCA_HTOBE64(_x) ((uint64_t)__builtin_bswap64((uint64_t)(_x)))
#else
#define DOCA_HTOBE16(_x) ((uint16_t)(_x))
#define DOCA_HTOBE32(_x) ((uint32_t)(_x))
#define DOCA_HTOBE64(_x) ((uint64_t)(_x))
#endif
#define DOCA_BETOH16(_x) DOCA_HTOBE16(_x)
#define DOCA_BETOH32(_x) DOCA_HTOBE32(_x)
#define DOCA_BETOH64(_x) DOCA_HTOBE64(_x)

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BITFIELD_H_ */
