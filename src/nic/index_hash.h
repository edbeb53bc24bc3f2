/*
 * index_hash.h - the entry index hash of a HASH pipe (HASH map algorithm and
 * doca_flow_pipe_calc_hash), computed as ConnectX HWS steering computes it.
 *
 * The hardware source (DPDK drivers/net/mlx5/hws: mlx5dr_rule_hash_calculate,
 * mlx5dr_crc32_calc, mlx5dr_definer_find_byte_in_tag): the hash is a CRC-32 (reflected
 * polynomial 0xedb88320, initial value 0, no final xor, the register then read as a
 * big-endian word) over the rule's match tag. In the tag the definer puts dword
 * selector i at byte 32 - 4 i of 44 and the 8 byte selectors after dword selector 0;
 * the hash covers the last 32 bytes (all 44 for a jumbo tag). A lone matched dword sits
 * in selector 0, so 8 zero bytes follow it; flowdpa puts further dwords in selectors 1,
 * 2, ... in key order (the definer's own choice for several dwords is not reproduced,
 * see below). Because the CRC starts from 0 it is linear:
 * leading zero bytes change nothing, and the hash is the xor of one table value per
 * key byte, the table chosen by the byte's distance from the tag's end. The index is
 * the hash's low bits (nr_entries a power of two).
 *
 * A pipe's layout (nic_index_layout) lists the key dwords its entry mask covers, in key
 * order. Checked against hardware for one dword (NVIDIA's flow_ecmp and flow_hash_pipe
 * samples' expected distributions); docs/differences-from-hardware.md says where the
 * layouts may differ.
 */
#ifndef FLOWDPA_NIC_INDEX_HASH_H_
#define FLOWDPA_NIC_INDEX_HASH_H_

#include <stdint.h>

#include "nic.h"

#define NIC_IDX_DWS (NIC_KEY_SIZE / 4)
/* Distance from the tag's end of the first byte of dword k: 8 byte-selector bytes and
 * the 3 other bytes of dword 0 follow dword 0's first byte. */
#define NIC_IDX_POS(k) (11u + 4u * (k))
#define NIC_IDX_NPOS (NIC_IDX_POS(NIC_IDX_DWS - 1) + 1)

struct nic_index_layout {
	uint8_t n;		   /* dwords covered by the mask */
	uint8_t dw[NIC_IDX_DWS];   /* their key dword indices, ascending */
	uint32_t mask[NIC_IDX_DWS]; /* their masks, as big-endian loads */
};

/* nic_idx_tab[j][b]: the CRC of byte b followed by j zero bytes. Filled by
 * nic_index_layout before any pipe can use it. */
extern uint32_t nic_idx_tab[NIC_IDX_NPOS][256];

/* The layout of the key dwords mask covers (and the table, on first use). */
void nic_index_layout(const struct nic_key *mask, struct nic_index_layout *out);

static inline uint32_t nic_idx_load_be32(const uint8_t *b)
{
	return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

/* The hash of key under layout l (the hardware's, as described above). */
static inline uint32_t nic_index_hash(const struct nic_index_layout *l, const struct nic_key *key)
{
	uint32_t crc = 0;
	for (uint32_t k = 0; k < l->n; k++) {
		uint32_t v = nic_idx_load_be32(key->b + 4u * l->dw[k]) & l->mask[k];
		const uint32_t(*t)[256] = (const uint32_t(*)[256])nic_idx_tab[NIC_IDX_POS(k) - 3];
		/* t[3] is the first (most distant) byte's table, t[0] the last's. */
		crc ^= t[3][v >> 24] ^ t[2][(v >> 16) & 0xff] ^ t[1][(v >> 8) & 0xff] ^ t[0][v & 0xff];
	}
	/* The CRC register read as a big-endian word (rte_be_to_cpu_32 of it). */
	return __builtin_bswap32(crc);
}

#endif
