/*
 * test_flow_entropy.c - doca_flow_port_calc_entropy against the values DOCA documents
 * for its flow_entropy sample (UDP and GRE over IPv4), an independent bitwise CRC-16
 * for IPv6, the bad inputs, and the doca_bitfield.h mask macros the samples build
 * their templates with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "flow_test_common.h"
#include "log_capture.h"

static struct doca_flow_port *ports[2];
static struct entries_status status;

static int setup(void **state)
{
	(void)state;
	if (log_capture_setup() != 0)
		return -1;
	return ft_setup_two_ports(ports, &status);
}

static int teardown(void **state)
{
	(void)state;
	return ft_teardown_two_ports(ports);
}

static void ipv4_udp_and_gre(void **state)
{
	(void)state;
	struct doca_flow_entropy_format h;
	uint16_t e = 0;

	memset(&h, 0, sizeof(h));
	h.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	h.ip4.src_ip = BE_IPV4_ADDR(8, 8, 8, 8);
	h.ip4.dst_ip = BE_IPV4_ADDR(7, 7, 7, 7);
	h.ip4.next_proto = IPPROTO_UDP;
	h.is_transport = true;
	h.transport.src_port = DOCA_HTOBE16(1234);
	h.transport.dst_port = DOCA_HTOBE16(5678);
	assert_int_equal(doca_flow_port_calc_entropy(ports[0], &h, &e), DOCA_SUCCESS);
	assert_int_equal(DOCA_BETOH16(e), 0xdb9e);

	/* Not a transport: the ports are left out of the key, whatever they hold. */
	h.ip4.src_ip = BE_IPV4_ADDR(10, 11, 12, 13);
	h.ip4.dst_ip = BE_IPV4_ADDR(255, 255, 255, 255);
	h.ip4.next_proto = IPPROTO_GRE;
	h.is_transport = false;
	assert_int_equal(doca_flow_port_calc_entropy(ports[1], &h, &e), DOCA_SUCCESS);
	assert_int_equal(DOCA_BETOH16(e), 0xde18);
}

/* The reference: the same CRC computed bit by bit from the polynomial's definition. */
static uint16_t ref_crc(const uint8_t *p, size_t n)
{
	uint32_t reg = 0;
	for (size_t i = 0; i < n; i++)
		for (int b = 7; b >= 0; b--) {
			uint32_t in = (p[i] >> b) & 1u, top = (reg >> 15) & 1u;
			reg = ((reg << 1) & 0xffffu) ^ ((in ^ top) ? 0x100bu : 0u);
		}
	return (uint16_t)reg;
}

static void ipv6_tcp(void **state)
{
	(void)state;
	struct doca_flow_entropy_format h;
	uint8_t key[37] = {0};
	uint16_t e = 0;

	memset(&h, 0, sizeof(h));
	h.l3_type = DOCA_FLOW_L3_TYPE_IP6;
	for (int i = 0; i < 4; i++) {
		h.ip6.src_ip[i] = DOCA_HTOBE32(0x20010db8u + (uint32_t)i);
		h.ip6.dst_ip[i] = DOCA_HTOBE32(0xfe800000u + (uint32_t)i);
	}
	h.ip6.next_proto = IPPROTO_TCP;
	h.is_transport = true;
	h.transport.src_port = DOCA_HTOBE16(40000);
	h.transport.dst_port = DOCA_HTOBE16(443);
	memcpy(key, h.ip6.dst_ip, 16);
	memcpy(key + 16, h.ip6.src_ip, 16);
	key[32] = IPPROTO_TCP;
	memcpy(key + 33, &h.transport.dst_port, 2);
	memcpy(key + 35, &h.transport.src_port, 2);
	assert_int_equal(doca_flow_port_calc_entropy(ports[0], &h, &e), DOCA_SUCCESS);
	assert_int_equal(DOCA_BETOH16(e), ref_crc(key, sizeof(key)) | 0xc000);
	assert_true(DOCA_BETOH16(e) >= 0xc000);
	/* A different source port gives a different value (the ports are in the key). */
	uint16_t e2 = 0;
	h.transport.src_port = DOCA_HTOBE16(40001);
	assert_int_equal(doca_flow_port_calc_entropy(ports[0], &h, &e2), DOCA_SUCCESS);
	assert_int_not_equal(e, e2);
}

static void bad_inputs(void **state)
{
	(void)state;
	struct doca_flow_entropy_format h;
	uint16_t e = 0x1234;

	memset(&h, 0, sizeof(h));
	h.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	log_capture_clear();
	assert_int_equal(doca_flow_port_calc_entropy(ports[0], NULL, &e), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("doca_flow_port_calc_entropy: header is NULL"), 1);
	assert_int_equal(doca_flow_port_calc_entropy(ports[0], &h, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("doca_flow_port_calc_entropy: entropy is NULL"), 1);
	h.l3_type = DOCA_FLOW_L3_TYPE_NONE;
	assert_int_equal(doca_flow_port_calc_entropy(ports[0], &h, &e), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(log_capture_count("l3_type 0 is neither IP4 nor IP6"), 1);
	assert_int_equal(e, 0x1234); /* untouched on error */
	log_capture_clear();
	h.l3_type = DOCA_FLOW_L3_TYPE_IP4;
	assert_int_not_equal(doca_flow_port_calc_entropy(NULL, &h, &e), DOCA_SUCCESS);
	assert_int_equal(log_capture_count("doca_flow_port_calc_entropy"), 1);
	assert_int_equal(e, 0x1234);
	/* State intact: the ports still compute. */
	assert_int_equal(doca_flow_port_calc_entropy(ports[0], &h, &e), DOCA_SUCCESS);
}

static void bitfield_macros(void **state)
{
	(void)state;
	assert_int_equal(DOCA_U8_GENMASK(7, 4), 0xf0);
	assert_int_equal(DOCA_U8_GENMASK(0, 0), 0x01);
	assert_int_equal(DOCA_BETOH16(DOCA_BE16_GENMASK(11, 4)), 0x0ff0);
	assert_int_equal(DOCA_BETOH16(DOCA_BE16_GENMASK(15, 0)), 0xffff);
	assert_int_equal(DOCA_BETOH32(DOCA_BE32_GENMASK(23, 4)), 0x00fffff0u);
	assert_int_equal(DOCA_BETOH32(DOCA_BE32_GENMASK(31, 0)), 0xffffffffu);
	assert_int_equal(DOCA_SHIFT(0x0ff0), 4);
	assert_int_equal(DOCA_SHIFT(0), 0);
	/* Set then get round-trips; bits outside the mask are cut off. */
	doca_be32_t m32 = DOCA_BE32_GENMASK(23, 12);
	doca_be32_t r32 = DOCA_BE32_SET(m32, 0xabcu);
	assert_int_equal(DOCA_BETOH32(r32), 0x00abc000u);
	assert_int_equal(DOCA_BE32_GET(m32, r32), 0xabcu);
	assert_int_equal(DOCA_BETOH32(DOCA_BE32_SET(m32, 0x1fffu)), 0x00fff000u);
	doca_be16_t m16 = DOCA_BE16_GENMASK(7, 4);
	assert_int_equal(DOCA_BETOH16(DOCA_BE16_SET(m16, 0x5u)), 0x0050);
	assert_int_equal(DOCA_BE16_GET(m16, DOCA_HTOBE16(0x1234)), 0x3);
	assert_int_equal(DOCA_U8_SET(0x0c, 2), 0x08);
	assert_int_equal(DOCA_U8_GET(0x0c, 0xff), 3);
	uint8_t b = 0x01;
	DOCA_U8P_SET(0xf0, 0xa, &b);
	assert_int_equal(b, 0xa1);
	DOCA_U8P_GENMASK(3, 2, &b);
	assert_int_equal(b, 0x0c);
	doca_be16_t w = DOCA_HTOBE16(0x0001);
	DOCA_BE16P_SET(DOCA_BE16_GENMASK(15, 8), 0x7f, &w);
	assert_int_equal(DOCA_BETOH16(w), 0x7f01);
	DOCA_BE16P_GENMASK(3, 0, &w);
	assert_int_equal(DOCA_BETOH16(w), 0x000f);
	doca_be32_t d = DOCA_HTOBE32(0x1);
	DOCA_BE32P_SET(DOCA_BE32_GENMASK(31, 28), 0x9, &d);
	assert_int_equal(DOCA_BETOH32(d), 0x90000001u);
	DOCA_BE32P_GENMASK(4, 1, &d);
	assert_int_equal(DOCA_BETOH32(d), 0x1eu);
	/* doca_flow_net.h brings IPPROTO_* as DOCA's does. */
	assert_int_equal(IPPROTO_UDP, 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipv4_udp_and_gre),
		cmocka_unit_test(ipv6_tcp),
		cmocka_unit_test(bad_inputs),
		cmocka_unit_test(bitfield_macros),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
