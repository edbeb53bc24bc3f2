/*
 * doca_flow_net.h - network header structures and constants used by DOCA Flow match and
 * action templates (DOCA 3.3 names and layouts). All multi-byte header fields are in
 * network byte order, as on the wire.
 */
#ifndef DOCA_FLOW_NET_H_
#define DOCA_FLOW_NET_H_

/* As DOCA's: IPPROTO_* (netinet/in.h) for next_proto fields. */
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DOCA_FLOW_ETHER_ADDR_LEN (6)
#define DOCA_FLOW_PROTO_ICMP (1)
#define DOCA_FLOW_PROTO_ICMP6 (58)
#define DOCA_FLOW_PROTO_IPV4 (4)
#define DOCA_FLOW_PROTO_IPV6 (41)
#define DOCA_FLOW_PROTO_TCP (6)
#define DOCA_FLOW_PROTO_UDP (17)
#define DOCA_FLOW_PROTO_IB_BTH (16)
#define DOCA_FLOW_PROTO_GRE (47)
#define DOCA_FLOW_PROTO_ESP (50)
#define DOCA_FLOW_PROTO_IP4_IN_IP (4)
#define DOCA_FLOW_PROTO_IP6_IN_IP (41)
#define DOCA_FLOW_GTPU_DEFAULT_PORT (2152)
#define DOCA_FLOW_VXLAN_DEFAULT_PORT (4789)
#define DOCA_FLOW_VXLAN_GPE_DEFAULT_PORT (4790)
#define DOCA_FLOW_MPLS_DEFAULT_PORT (6635)
#define DOCA_FLOW_GENEVE_DEFAULT_PORT (6081)
#define DOCA_FLOW_PSP_DEFAULT_PORT (1000)
#define DOCA_FLOW_ROCEV2_DEFAULT_PORT (4791)
#define DOCA_FLOW_ETHER_TYPE_IPV4 (0x0800)
#define DOCA_FLOW_ETHER_TYPE_IPV6 (0x86DD)
#define DOCA_FLOW_ETHER_TYPE_TEB (0x6558)
#define DOCA_FLOW_ETHER_TYPE_ARP (0x0806)
#define DOCA_FLOW_ETHER_TYPE_VLAN (0x8100)
#define DOCA_FLOW_ETHER_TYPE_QINQ (0x88A8)
#define DOCA_FLOW_UDP_HEADER_LEN (8)
#define DOCA_FLOW_ESP_HEADER_LEN (4 * sizeof(doca_be32_t))
#define DOCA_FLOW_ESP_HEADER_MARKER_LEN_4B (4)
#define DOCA_FLOW_ESP_HEADER_MARKER_LEN_8B (8)
#define DOCA_FLOW_CRYPTO_KEY_LEN_MAX (32)
#define DOCA_FLOW_GENEVE_OPT_LEN_MAX (63)
#define DOCA_FLOW_ENCAP_GENEVE_OPT_LEN_MAX (19)
#define DOCA_FLOW_GENEVE_DATA_OPTION_LEN_MAX (31)
#define DOCA_FLOW_GENEVE_NUM_OF_OPTIONS_MAX (8)
#define DOCA_FLOW_MPLS_LABELS_MAX (5)
#define DOCA_FLOW_PSP_HEADER_LEN (6 * sizeof(doca_be32_t))
#define DOCA_FLOW_VXLAN_GPE_TYPE_IPV4 (1)
#define DOCA_FLOW_VXLAN_GPE_TYPE_IPV6 (2)
#define DOCA_FLOW_VXLAN_GPE_TYPE_ETH (3)
#define DOCA_FLOW_VXLAN_GPE_TYPE_NSH (4)
#define DOCA_FLOW_VXLAN_GPE_TYPE_MPLS (5)
#define DOCA_FLOW_VXLAN_GPE_TYPE_GBP (6)
#define DOCA_FLOW_VXLAN_GPE_TYPE_VBNG (7)
#define DOCA_FLOW_GTP_EXT_PSC (0x85)
#define DOCA_FLOW_IB_BTH_DST_QP_LEN (3)
#define DOCA_FLOW_IB_BTH_PSN_LEN (3)
#define DOCA_FLOW_CRYPTO_HEADER_LEN_MAX \
	(DOCA_FLOW_ETHER_ADDR_LEN * 2 + sizeof(doca_be16_t) + sizeof(doca_be16_t) * 2 * 2 + \
	 sizeof(doca_be32_t) * 15 + sizeof(doca_be32_t) * 2 + DOCA_FLOW_PSP_HEADER_LEN)

/* One VLAN tag (TCI only; the TPID is implied by the position). */
struct doca_flow_header_eth_vlan {
	doca_be16_t tci;
};

/* Selector of the IPv4/IPv6 union in header formats. */
enum doca_flow_l3_type {
	DOCA_FLOW_L3_TYPE_NONE = 0,
	DOCA_FLOW_L3_TYPE_IP4,
	DOCA_FLOW_L3_TYPE_IP6,
};

struct doca_flow_header_eth {
	uint8_t src_mac[DOCA_FLOW_ETHER_ADDR_LEN];
	uint8_t dst_mac[DOCA_FLOW_ETHER_ADDR_LEN];
	doca_be16_t type;
};

struct doca_flow_ip_addr {
	enum doca_flow_l3_type type;
	union {
		doca_be32_t ipv4_addr;
		doca_be32_t ipv6_addr[4];
	};
};

/* Selector of the L4 union in header formats. */
enum doca_flow_l4_type_ext {
	DOCA_FLOW_L4_TYPE_EXT_NONE = 0,
	DOCA_FLOW_L4_TYPE_EXT_TCP,
	DOCA_FLOW_L4_TYPE_EXT_UDP,
	DOCA_FLOW_L4_TYPE_EXT_ICMP,
	DOCA_FLOW_L4_TYPE_EXT_ICMP6,
	DOCA_FLOW_L4_TYPE_EXT_TRANSPORT,
	DOCA_FLOW_L4_TYPE_EXT_ROCE_V2,
};

struct doca_flow_header_ib_bth {
	uint8_t opcode;
	uint8_t sempt;
	doca_be16_t pkey;
	uint8_t flags0;
	uint8_t dest_qp[DOCA_FLOW_IB_BTH_DST_QP_LEN];
	uint8_t flags1;
	uint8_t psn[DOCA_FLOW_IB_BTH_PSN_LEN];
};

struct doca_flow_header_l4_port {
	doca_be16_t src_port;
	doca_be16_t dst_port;
};

struct doca_flow_header_udp {
	struct doca_flow_header_l4_port l4_port;
};

struct doca_flow_header_roce_v2 {
	struct doca_flow_header_udp udp;
	struct doca_flow_header_ib_bth bth;
};

struct doca_flow_header_tcp {
	struct doca_flow_header_l4_port l4_port;
	uint8_t data_offset;
	uint8_t flags;
	doca_be32_t seq_num;
	doca_be32_t ack_num;
};

struct doca_flow_header_icmp {
	uint8_t type;
	uint8_t code;
	doca_be16_t ident;
};

enum doca_flow_ip_fragment_flags {
	DOCA_FLOW_IP4_FLAG_MORE_FRAGMENTS = (1 << 13),
	DOCA_FLOW_IP4_FLAG_DONT_FRAGMENT = (1 << 14),
};

struct doca_flow_header_ip4 {
	doca_be32_t src_ip;
	doca_be32_t dst_ip;
	uint8_t version_ihl;
	uint8_t dscp_ecn;
	doca_be16_t total_len;
	doca_be16_t identification;
	doca_be16_t flags_fragment_offset;
	uint8_t next_proto;
	uint8_t ttl;
};

struct doca_flow_header_ip6 {
	doca_be32_t src_ip[4];
	doca_be32_t dst_ip[4];
	uint8_t traffic_class;
	doca_be32_t flow_label;
	doca_be16_t payload_len;
	uint8_t next_proto;
	uint8_t hop_limit;
};

struct doca_flow_ct_ip4 {
	doca_be32_t src_ip;
	doca_be32_t dst_ip;
};

struct doca_flow_ct_ip6 {
	doca_be32_t src_ip[4];
	doca_be32_t dst_ip[4];
};

struct doca_flow_header_mpls {
	doca_be32_t label;
};

struct doca_flow_header_geneve {
	uint8_t ver_opt_len;
	uint8_t o_c;
	doca_be16_t next_proto;
	doca_be32_t vni;
};

union doca_flow_geneve_option {
	struct {
		doca_be16_t class_id;
		uint8_t type;
		uint8_t length;
	};
	doca_be32_t data;
};

struct doca_flow_header_psp {
	uint8_t nexthdr;
	uint8_t hdrextlen;
	uint8_t res_cryptofst;
	uint8_t s_d_ver_v;
	doca_be32_t spi;
	doca_be64_t iv;
	doca_be64_t vc;
};

enum doca_flow_tun_type {
	DOCA_FLOW_TUN_NONE = 0,
	DOCA_FLOW_TUN_VXLAN,
	DOCA_FLOW_TUN_GTPU,
	DOCA_FLOW_TUN_GRE,
	DOCA_FLOW_TUN_ESP,
	DOCA_FLOW_TUN_MPLS_O_UDP,
	DOCA_FLOW_TUN_GENEVE,
	DOCA_FLOW_TUN_PSP,
	DOCA_FLOW_TUN_IP_IN_IP,
	DOCA_FLOW_TUN_MAX,
};

enum doca_flow_tun_ext_vxlan_type {
	DOCA_FLOW_TUN_EXT_VXLAN_STANDARD = 0,
	DOCA_FLOW_TUN_EXT_VXLAN_GPE,
	DOCA_FLOW_TUN_EXT_VXLAN_GBP,
};

enum doca_flow_tun_ext_gre_type {
	DOCA_FLOW_TUN_EXT_GRE_STANDARD = 0,
	DOCA_FLOW_TUN_EXT_GRE_NVGRE,
};

/* Tunnel header; the member used is selected by type. Matched by a later wave only. */
struct doca_flow_tun {
	enum doca_flow_tun_type type;
	union {
		struct {
			enum doca_flow_tun_ext_vxlan_type vxlan_type;
			union {
				struct {
					uint8_t vxlan_gpe_flags;
					uint8_t vxlan_gpe_next_protocol;
				};
				struct {
					doca_be16_t vxlan_gbp_group_policy_id;
				};
			};
			doca_be32_t vxlan_tun_id;
			uint8_t vxlan_tun_rsvd1;
		};
		struct {
			enum doca_flow_tun_ext_gre_type gre_type;
			doca_be16_t protocol;
			union {
				struct {
					bool key_present;
					doca_be32_t gre_key;
				};
				struct {
					doca_be32_t nvgre_vs_id;
					uint8_t nvgre_flow_id;
				};
			};
		};
		struct {
			doca_be32_t gtp_teid;
			uint8_t gtp_next_ext_hdr_type;
			uint8_t gtp_ext_psc_qfi;
		};
		struct {
			doca_be32_t esp_spi;
			doca_be32_t esp_sn;
		};
		struct {
			struct doca_flow_header_mpls mpls[DOCA_FLOW_MPLS_LABELS_MAX];
		};
		struct {
			struct doca_flow_header_geneve geneve;
			union doca_flow_geneve_option geneve_options[DOCA_FLOW_GENEVE_OPT_LEN_MAX];
		};
		struct {
			struct doca_flow_header_psp psp;
		};
	};
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_FLOW_NET_H_ */
