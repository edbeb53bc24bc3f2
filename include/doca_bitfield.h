/*
 * doca_bitfield.h - byte-order and bit-field helpers DOCA samples use to fill
 * network-order fields of match and action templates (DOCA 3.3 macro names).
 *
 * Masks are "shifted masks": the bits of the field at their place in the register
 * (DOCA_BE32_GENMASK(23, 4) is the big-endian form of 0x00fffff0). _SET shifts a host
 * value up into such a mask, _GET masks a register and shifts the field down to host
 * order; the P variants write through a pointer (GENMASK stores, SET ORs in).
 */
#ifndef DOCA_BITFIELD_H_
#define DOCA_BITFIELD_H_

#include <arpa/inet.h>
#include <stdint.h>

#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Position of the lowest set bit of _x (0 for 0). */
#define DOCA_SHIFT(_x) (((_x) ? (__builtin_ffsll((long long)(_x)) - 1) : 0))

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

/* Bits _l.._h (inclusive, 0 = least significant) set, in host order. */
#define DOCA_U8_GENMASK(_h, _l) ((uint8_t)((0xffu << (_l)) & (0xffu >> (7 - (_h)))))
#define DOCA_BE16_GENMASK(_h, _l) DOCA_HTOBE16((0xffffu << (_l)) & (0xffffu >> (15 - (_h))))
#define DOCA_BE32_GENMASK(_h, _l) DOCA_HTOBE32((UINT32_MAX << (_l)) & (UINT32_MAX >> (31 - (_h))))

#define DOCA_U8P_GENMASK(_h, _l, _p) \
	do { \
		*(uint8_t *)(_p) = DOCA_U8_GENMASK((_h), (_l)); \
	} while (0)
#define DOCA_BE16P_GENMASK(_h, _l, _p) \
	do { \
		*(doca_be16_t *)(_p) = DOCA_BE16_GENMASK((_h), (_l)); \
	} while (0)
#define DOCA_BE32P_GENMASK(_h, _l, _p) \
	do { \
		*(doca_be32_t *)(_p) = DOCA_BE32_GENMASK((_h), (_l)); \
	} while (0)

/* Host value _v placed into shifted mask _m (same order as _m); OR it with the other fields.
 * _v is taken as unsigned, so a value reaching bit 31 is not a signed overflow. */
#define DOCA_U8_SET(_m, _v) ((uint8_t)(((uint32_t)(_v) << DOCA_SHIFT(_m)) & (_m)))
#define DOCA_BE16_SET(_m, _v) ((uint16_t)(DOCA_HTOBE16((uint32_t)(_v) << DOCA_SHIFT(DOCA_BETOH16(_m))) & (_m)))
#define DOCA_BE32_SET(_m, _v) ((uint32_t)(DOCA_HTOBE32((uint32_t)(_v) << DOCA_SHIFT(DOCA_BETOH32(_m))) & (_m)))

#define DOCA_U8P_SET(_m, _v, _p) \
	do { \
		*(uint8_t *)(_p) |= DOCA_U8_SET((_m), (_v)); \
	} while (0)
#define DOCA_BE16P_SET(_m, _v, _p) \
	do { \
		*(doca_be16_t *)(_p) |= DOCA_BE16_SET((_m), (_v)); \
	} while (0)
#define DOCA_BE32P_SET(_m, _v, _p) \
	do { \
		*(doca_be32_t *)(_p) |= DOCA_BE32_SET((_m), (_v)); \
	} while (0)

/* The field of register _f under shifted mask _m, shifted down, in host order. */
#define DOCA_U8_GET(_m, _f) ((uint8_t)(((_m) & (_f)) >> DOCA_SHIFT(_m)))
#define DOCA_BE16_GET(_m, _f) ((uint16_t)(DOCA_BETOH16((_m) & (_f)) >> DOCA_SHIFT(DOCA_BETOH16(_m))))
#define DOCA_BE32_GET(_m, _f) ((uint32_t)(DOCA_BETOH32((_m) & (_f)) >> DOCA_SHIFT(DOCA_BETOH32(_m))))

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BITFIELD_H_ */
