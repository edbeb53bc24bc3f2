/*
 * flow_entropy.c - doca_flow_port_calc_entropy: the value a ConnectX writes as the UDP
 * source port of a tunnel it encapsulates (VXLAN, GENEVE ...), so that a program can
 * predict it. The NIC computes a CRC-16 (polynomial 0x100b, initial value 0, MSB first)
 * over a 37-byte key: destination address (16 bytes; IPv4 as 12 zero bytes + address),
 * source address (same), IP next protocol, destination port, source port (both zero
 * when the next header is not a transport), and ORs in 0xc000, the bottom of the
 * default RoCE/tunnel source-port range 49152..65535. The result is big endian, as a
 * port field. This reproduces the values DOCA's flow_entropy sample prints (0xdb9e for
 * 8.8.8.8 -> 7.7.7.7 UDP 1234 -> 5678, 0xde18 for 10.11.12.13 -> 255.255.255.255 GRE).
 */
#include <string.h>

#include <doca_bitfield.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::ENTROPY);

#define ENTROPY_KEY_LEN 37
#define ENTROPY_CRC_POLY 0x100bu
#define ENTROPY_MIN_PORT 0xc000u

static uint16_t entropy_crc16(const uint8_t *p, size_t len)
{
	uint16_t crc = 0;

	for (size_t i = 0; i < len; i++) {
		crc ^= (uint16_t)(p[i] << 8);
		for (int bit = 0; bit < 8; bit++)
			crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ ENTROPY_CRC_POLY) : (uint16_t)(crc << 1);
	}
	return crc;
}

doca_error_t doca_flow_port_calc_entropy(struct doca_flow_port *port, struct doca_flow_entropy_format *header,
					 uint16_t *entropy)
{
	uint8_t key[ENTROPY_KEY_LEN] = {0};
	doca_error_t err = flow_port_check(port, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (header == NULL || entropy == NULL) {
		CORE_LOG_ERR("doca_flow_port_calc_entropy: %s is NULL", header == NULL ? "header" : "entropy");
		return DOCA_ERROR_INVALID_VALUE;
	}
	switch (header->l3_type) {
	case DOCA_FLOW_L3_TYPE_IP4:
		memcpy(&key[12], &header->ip4.dst_ip, 4);
		memcpy(&key[28], &header->ip4.src_ip, 4);
		key[32] = header->ip4.next_proto;
		break;
	case DOCA_FLOW_L3_TYPE_IP6:
		memcpy(&key[0], header->ip6.dst_ip, 16);
		memcpy(&key[16], header->ip6.src_ip, 16);
		key[32] = header->ip6.next_proto;
		break;
	default:
		CORE_LOG_ERR("doca_flow_port_calc_entropy: l3_type %d is neither IP4 nor IP6", (int)header->l3_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (header->is_transport) {
		memcpy(&key[33], &header->transport.dst_port, 2);
		memcpy(&key[35], &header->transport.src_port, 2);
	}
	*entropy = DOCA_HTOBE16(entropy_crc16(key, sizeof(key)) | ENTROPY_MIN_PORT);
	return DOCA_SUCCESS;
}
