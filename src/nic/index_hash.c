/*
 * index_hash.c - the layout and tables of the HASH pipe index hash (index_hash.h says
 * which hardware function it is and where that is documented).
 */
#include "index_hash.h"

#include <pthread.h>

uint32_t nic_idx_tab[NIC_IDX_NPOS][256];

static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void tab_fill(void)
{
	/* Row 0: the reflected CRC-32 (0xedb88320) of one byte from a zero register. */
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int i = 0; i < 8; i++)
			c = (c & 1u) ? (c >> 1) ^ 0xedb88320u : c >> 1;
		nic_idx_tab[0][b] = c;
	}
	/* Row j: row j-1 advanced over one more zero byte. */
	for (uint32_t j = 1; j < NIC_IDX_NPOS; j++)
		for (uint32_t b = 0; b < 256; b++) {
			uint32_t c = nic_idx_tab[j - 1][b];
			nic_idx_tab[j][b] = (c >> 8) ^ nic_idx_tab[0][c & 0xffu];
		}
}

void nic_index_layout(const struct nic_key *mask, struct nic_index_layout *out)
{
	pthread_once(&tab_once, tab_fill);
	out->n = 0;
	for (uint32_t d = 0; d < NIC_IDX_DWS; d++) {
		uint32_t m = nic_idx_load_be32(mask->b + 4u * d);
		if (m == 0)
			continue;
		out->dw[out->n] = (uint8_t)d;
		out->mask[out->n] = m;
		out->n++;
	}
}
