/*
 * frames.h - the frame builders and readers every test and benchmark shares: Ethernet
 * frames carrying IPv4 (UDP, TCP, or any protocol number), IPv6 (UDP, ICMPv6) and a VLAN
 * tag, with valid checksums, plus the byte-order helpers and checksum checks that read
 * injected and captured frames back. Header-only and independent of any flowdpa layer
 * (only <stdint.h> and <string.h>), so NIC, flow and DPA tests can all use it.
 *
 * Layout of what ft_build4 writes (the offsets the readers use):
 *   0..5 dst MAC 02:00:00:00:00:bb, 6..11 src MAC 02:00:00:00:00:aa, 12..13 0x0800,
 *   14..33 IPv4 (TTL 64, no options), 34.. L4: UDP 8 bytes or TCP 20 bytes, then payload
 *   bytes 0, 1, 2, ...
 */
#ifndef FLOWDPA_TEST_FRAMES_H_
#define FLOWDPA_TEST_FRAMES_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ bytes, checksums */

static inline uint16_t ft_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t ft_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void ft_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void ft_wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Ones'-complement sum of n bytes added to s (RFC 1071), not yet folded. */
static inline uint32_t ft_sum(uint32_t s, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		s += ft_rd16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

/* Fold a sum to 16 bits and complement it: the checksum field's value. */
static inline uint16_t ft_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* ------------------------------------------------------------------ IPv4 */

/* Eth/IPv4/(UDP|TCP) with valid checksums; addresses and ports in host order. */
static inline uint32_t ft_build4(uint8_t *f, uint8_t proto, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
				 uint32_t payload)
{
	static const uint8_t eth[14] = {0x02, 0, 0, 0, 0, 0xbb, 0x02, 0, 0, 0, 0, 0xaa, 0x08, 0x00};
	uint32_t l4len = (proto == 6 ? 20 : 8) + payload;
	uint32_t len = 14 + 20 + l4len;
	memset(f, 0, len);
	memcpy(f, eth, 14);
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	ft_wr16(ip + 2, (uint16_t)(20 + l4len));
	ip[8] = 64;
	ip[9] = proto;
	ft_wr32(ip + 12, src);
	ft_wr32(ip + 16, dst);
	ft_wr16(ip + 10, ft_fold(ft_sum(0, ip, 20)));
	uint8_t *l4 = ip + 20;
	ft_wr16(l4, sport);
	ft_wr16(l4 + 2, dport);
	for (uint32_t i = 0; i < payload; i++)
		l4[l4len - payload + i] = (uint8_t)i;
	if (proto == 6)
		l4[12] = 5 << 4;
	else
		ft_wr16(l4 + 4, (uint16_t)l4len);
	uint8_t ph[12];
	memcpy(ph, ip + 12, 8);
	ph[8] = 0;
	ph[9] = proto;
	ft_wr16(ph + 10, (uint16_t)l4len);
	uint16_t c = ft_fold(ft_sum(ft_sum(0, ph, 12), l4, l4len));
	if (proto == 17 && c == 0)
		c = 0xffff;
	ft_wr16(l4 + (proto == 6 ? 16 : 6), c);
	return len;
}

/* Eth/IPv4/UDP with 18 payload bytes: a 60-byte frame. */
static inline uint32_t ft_udp4(uint8_t *f, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
	return ft_build4(f, 17, src, dst, sport, dport, 18);
}

/* IPv4 header and L4 checksums of a frame built by ft_build4 (after rewrites). */
static inline bool ft_checksums_ok(const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + 14;
	if (len < 34 || ft_fold(ft_sum(0, ip, 20)) != 0)
		return false;
	uint32_t l4len = ft_rd16(ip + 2) - 20u;
	uint8_t ph[12];
	memcpy(ph, ip + 12, 8);
	ph[8] = 0;
	ph[9] = ip[9];
	ft_wr16(ph + 10, (uint16_t)l4len);
	return ft_fold(ft_sum(ft_sum(0, ph, 12), ip + 20, l4len)) == 0;
}

/* Fields of an untagged Eth/IPv4 frame without options, host order. */
static inline uint32_t ft_ip4_src(const uint8_t *f)
{
	return ft_rd32(f + 26);
}

static inline uint32_t ft_ip4_dst(const uint8_t *f)
{
	return ft_rd32(f + 30);
}

static inline uint16_t ft_sport(const uint8_t *f)
{
	return ft_rd16(f + 34);
}

static inline uint16_t ft_dport(const uint8_t *f)
{
	return ft_rd16(f + 36);
}

/* ------------------------------------------------------------------ IPv6 */

/*
 * The pseudo-header sum of an Eth/IPv6 frame's L4 part (RFC 8200 8.1) of l4len bytes
 * and next header nh, added to the sum of those bytes: 0 after ft_fold when valid.
 */
static inline uint16_t ft_l4_sum6(const uint8_t *f, uint8_t nh, uint32_t l4len)
{
	const uint8_t *ip = f + 14;
	uint8_t ph[40];
	memcpy(ph, ip + 8, 32);
	memset(ph + 32, 0, 8);
	ph[35] = (uint8_t)l4len, ph[39] = nh;
	return ft_fold(ft_sum(ft_sum(0, ph, 40), ip + 40, l4len));
}

/* Eth/IPv6/UDP 2001::1 -> fd00::<last_dst_byte>, hop limit 64, 8 payload bytes of 0,
 * with a valid UDP checksum: a 70-byte frame. */
static inline uint32_t ft_udp6(uint8_t *f, uint8_t last_dst_byte, uint16_t sport, uint16_t dport)
{
	memset(f, 0, 14 + 40 + 8 + 8);
	f[12] = 0x86, f[13] = 0xdd;
	uint8_t *ip = f + 14, *udp = ip + 40;
	ip[0] = 0x60;
	ft_wr16(ip + 4, 16);
	ip[6] = 17;
	ip[7] = 64;
	ip[8] = 0x20, ip[9] = 0x01, ip[23] = 0x01;		     /* 2001::1 */
	ip[24] = 0xfd, ip[25] = 0x00, ip[39] = last_dst_byte; /* fd00::x */
	ft_wr16(udp, sport);
	ft_wr16(udp + 2, dport);
	ft_wr16(udp + 4, 16);
	ft_wr16(udp + 6, ft_l4_sum6(f, 17, 16));
	return 14 + 40 + 16;
}

/* The UDP checksum of a frame built by ft_udp6 (after rewrites). */
static inline bool ft_udp6_checksum_ok(const uint8_t *f)
{
	return ft_l4_sum6(f, 17, 16) == 0;
}

/* Eth/IPv6/ICMPv6 echo request (ident 0x1234, sequence 1) 2001::1 -> fd00::<last_dst_byte>
 * with a valid checksum: a 62-byte frame. */
static inline uint32_t ft_icmp6(uint8_t *f, uint8_t last_dst_byte)
{
	uint8_t *ip = f + 14, *icmp = ip + 40;

	memset(f, 0, 14 + 40 + 8);
	f[12] = 0x86, f[13] = 0xdd;
	ip[0] = 0x60;
	ft_wr16(ip + 4, 8);
	ip[6] = 58;
	ip[7] = 64;
	ip[8] = 0x20, ip[9] = 0x01, ip[23] = 0x01;
	ip[24] = 0xfd, ip[25] = 0x00, ip[39] = last_dst_byte;
	icmp[0] = 128;
	ft_wr16(icmp + 4, 0x1234);
	ft_wr16(icmp + 6, 1);
	ft_wr16(icmp + 2, ft_l4_sum6(f, 58, 8));
	return 14 + 40 + 8;
}

/* The ICMPv6 checksum of a frame built by ft_icmp6 (after rewrites). */
static inline bool ft_icmp6_checksum_ok(const uint8_t *f)
{
	return ft_l4_sum6(f, 58, 8) == 0;
}

/* ------------------------------------------------------------------ VLAN */

/* Insert an 802.1Q tag (TPID 0x8100, tci) after the MAC addresses of the len-byte frame
 * f, in place (f must have room for 4 more bytes); returns the new length. */
static inline uint32_t ft_vlan_push(uint8_t *f, uint32_t len, uint16_t tci)
{
	memmove(f + 16, f + 12, len - 12);
	f[12] = 0x81, f[13] = 0x00;
	ft_wr16(f + 14, tci);
	return len + 4;
}

#endif /* FLOWDPA_TEST_FRAMES_H_ */
