/*
 * doca_flow.h - DOCA Flow (3.3 names, argument order, enum values and struct layouts)
 * on flowdpa's software NIC. See docs/flow.md for what each call does in software and
 * where flowdpa differs from hardware.
 */
#ifndef DOCA_FLOW_H_
#define DOCA_FLOW_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_flow_crypto.h>
#include <doca_flow_net.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dev_rep;
struct doca_flow_cfg;
struct doca_flow_port_cfg;
struct doca_flow_pipe_cfg;
struct doca_flow_port;
struct doca_flow_pipe;
struct doca_flow_pipe_entry;
struct doca_flow_target;
struct doca_flow_parser;
struct doca_flow_definitions;
struct doca_flow_tune_cfg;

/* ------------------------------------------------------------------ enums */

enum doca_flow_resource_mode {
	DOCA_FLOW_RESOURCE_MODE_SYSTEM,
	DOCA_FLOW_RESOURCE_MODE_PORT,
};

enum doca_flow_resource {
	DOCA_FLOW_RESOURCE_METER,
	DOCA_FLOW_RESOURCE_COUNTER,
	DOCA_FLOW_RESOURCE_RSS,
	DOCA_FLOW_RESOURCE_PSP,
	DOCA_FLOW_RESOURCE_ENCAP,
	DOCA_FLOW_RESOURCE_DECAP,
	DOCA_FLOW_RESOURCE_IPSEC_SA,
};

enum doca_flow_shared_resource_type {
	DOCA_FLOW_SHARED_RESOURCE_METER,
	DOCA_FLOW_SHARED_RESOURCE_COUNTER,
	DOCA_FLOW_SHARED_RESOURCE_RSS,
	DOCA_FLOW_SHARED_RESOURCE_PSP,
	DOCA_FLOW_SHARED_RESOURCE_ENCAP,
	DOCA_FLOW_SHARED_RESOURCE_DECAP,
	DOCA_FLOW_SHARED_RESOURCE_IPSEC_SA,
};

enum doca_flow_entry_flags {
	DOCA_FLOW_ENTRY_FLAGS_NO_WAIT = (1u << 0),
	DOCA_FLOW_ENTRY_FLAGS_WAIT_FOR_BATCH = (1u << 1),
};

#define DOCA_FLOW_FLAGS_SET(flags, flag) ((flags) |= (flag))
#define DOCA_FLOW_FLAGS_UNSET(flags, flag) ((flags) &= ~(flag))
#define DOCA_FLOW_FLAGS_IS_SET(flags, flag) (((flags) & (flag)) != 0)

enum doca_flow_pipe_op {
	DOCA_FLOW_PIPE_OP_CONGESTION_REACHED,
	DOCA_FLOW_PIPE_OP_RESIZED,
	DOCA_FLOW_PIPE_OP_DESTROYED,
};

enum doca_flow_pipe_status {
	DOCA_FLOW_PIPE_STATUS_SUCCESS = 1,
	DOCA_FLOW_PIPE_STATUS_ERROR,
};

enum doca_flow_entry_op {
	DOCA_FLOW_ENTRY_OP_ADD,
	DOCA_FLOW_ENTRY_OP_DEL,
	DOCA_FLOW_ENTRY_OP_UPD,
	DOCA_FLOW_ENTRY_OP_AGED,
};

enum doca_flow_entry_status {
	DOCA_FLOW_ENTRY_STATUS_IN_PROCESS,
	DOCA_FLOW_ENTRY_STATUS_SUCCESS,
	DOCA_FLOW_ENTRY_STATUS_ERROR,
};

enum doca_flow_rss_hash_function {
	DOCA_FLOW_RSS_HASH_FUNCTION_TOEPLITZ,
	DOCA_FLOW_RSS_HASH_FUNCTION_SYMMETRIC_TOEPLITZ,
};

enum doca_flow_pipe_type {
	DOCA_FLOW_PIPE_BASIC,
	DOCA_FLOW_PIPE_CONTROL,
	DOCA_FLOW_PIPE_LPM,
	DOCA_FLOW_PIPE_CT,
	DOCA_FLOW_PIPE_ACL,
	DOCA_FLOW_PIPE_ORDERED_LIST,
	DOCA_FLOW_PIPE_HASH,
};

enum doca_flow_pipe_domain {
	DOCA_FLOW_PIPE_DOMAIN_DEFAULT = 0,
	DOCA_FLOW_PIPE_DOMAIN_SECURE_INGRESS,
	DOCA_FLOW_PIPE_DOMAIN_EGRESS,
	DOCA_FLOW_PIPE_DOMAIN_SECURE_EGRESS,
};

#define DOCA_FLOW_META_SCRATCH_PAD_MAX 10
#define DOCA_FLOW_META_MAX ((DOCA_FLOW_META_SCRATCH_PAD_MAX + 1) * 4)
#define DOCA_FLOW_MAX_ENTRY_ACTIONS_MEM_SIZE (128)
#define DOCA_FLOW_VLAN_MAX 2
#define DOCA_FLOW_PSP_DECRYPTION_ID UINT32_MAX

enum __attribute__((__packed__)) doca_flow_meter_color {
	DOCA_FLOW_METER_COLOR_RED = 0,
	DOCA_FLOW_METER_COLOR_YELLOW,
	DOCA_FLOW_METER_COLOR_GREEN,
};

enum doca_flow_l2_meta {
	DOCA_FLOW_L2_META_NO_VLAN = 0,
	DOCA_FLOW_L2_META_MULTI_VLAN,
	DOCA_FLOW_L2_META_SINGLE_VLAN,
	DOCA_FLOW_L2_META_CUSTOM_VLAN,
};

enum doca_flow_l3_meta {
	DOCA_FLOW_L3_META_NONE = 0,
	DOCA_FLOW_L3_META_IPV4,
	DOCA_FLOW_L3_META_IPV6,
};

/* ICMP covers ICMPv4 and ICMPv6. */
enum doca_flow_l4_meta {
	DOCA_FLOW_L4_META_NONE = 0,
	DOCA_FLOW_L4_META_TCP,
	DOCA_FLOW_L4_META_UDP,
	DOCA_FLOW_L4_META_ICMP,
	DOCA_FLOW_L4_META_ESP,
};

enum doca_flow_crypto_syndrome {
	DOCA_FLOW_CRYPTO_SYNDROME_OK,
	DOCA_FLOW_CRYPTO_SYNDROME_ICV_FAIL,
	DOCA_FLOW_CRYPTO_SYNDROME_BAD_TRAILER,
};

enum doca_flow_pipe_hash_map_algorithm {
	DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_HASH = 1 << 0,
	DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_RANDOM = 1 << 1,
	DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY = 1 << 2,
	DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_ROUND_ROBIN = 1 << 3,
	DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_FLOODING = 1 << 4,
	DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_SELECT_ENABLED = 1 << 5,
};

enum doca_flow_match_tcp_flags {
	DOCA_FLOW_MATCH_TCP_FLAG_FIN = (1 << 0),
	DOCA_FLOW_MATCH_TCP_FLAG_SYN = (1 << 1),
	DOCA_FLOW_MATCH_TCP_FLAG_RST = (1 << 2),
	DOCA_FLOW_MATCH_TCP_FLAG_PSH = (1 << 3),
	DOCA_FLOW_MATCH_TCP_FLAG_ACK = (1 << 4),
	DOCA_FLOW_MATCH_TCP_FLAG_URG = (1 << 5),
	DOCA_FLOW_MATCH_TCP_FLAG_ECE = (1 << 6),
	DOCA_FLOW_MATCH_TCP_FLAG_CWR = (1 << 7),
};

enum doca_flow_l2_valid_header {
	DOCA_FLOW_L2_VALID_HEADER_VLAN_0 = (1 << 0),
	DOCA_FLOW_L2_VALID_HEADER_VLAN_1 = (1 << 1),
};

enum doca_flow_compare_op {
	DOCA_FLOW_COMPARE_EQ,
	DOCA_FLOW_COMPARE_NE,
	DOCA_FLOW_COMPARE_LT,
	DOCA_FLOW_COMPARE_LE,
	DOCA_FLOW_COMPARE_GT,
	DOCA_FLOW_COMPARE_GE,
};

enum doca_flow_push_action_type {
	DOCA_FLOW_PUSH_ACTION_VLAN,
};

enum doca_flow_resource_type {
	DOCA_FLOW_RESOURCE_TYPE_NONE,
	DOCA_FLOW_RESOURCE_TYPE_SHARED,
	DOCA_FLOW_RESOURCE_TYPE_NON_SHARED,
};

enum doca_flow_target_type {
	DOCA_FLOW_TARGET_KERNEL,
};

enum doca_flow_fwd_type {
	DOCA_FLOW_FWD_NONE = 0,
	DOCA_FLOW_FWD_RSS,
	DOCA_FLOW_FWD_PORT,
	DOCA_FLOW_FWD_PIPE,
	DOCA_FLOW_FWD_DROP,
	DOCA_FLOW_FWD_TARGET,
	DOCA_FLOW_FWD_ORDERED_LIST_PIPE,
	DOCA_FLOW_FWD_HASH_PIPE,
	DOCA_FLOW_FWD_CHANGEABLE = 100,
};

enum doca_rss_type {
	DOCA_FLOW_RSS_IPV4 = (1 << 0),
	DOCA_FLOW_RSS_IPV6 = (1 << 1),
	DOCA_FLOW_RSS_UDP = (1 << 2),
	DOCA_FLOW_RSS_TCP = (1 << 3),
	DOCA_FLOW_RSS_ESP = (1 << 4),
	DOCA_FLOW_RSS_IPV4_SRC = (1 << 5),
	DOCA_FLOW_RSS_IPV4_DST = (1 << 6),
	DOCA_FLOW_RSS_IPV6_SRC = (1 << 7),
	DOCA_FLOW_RSS_IPV6_DST = (1 << 8),
	DOCA_FLOW_RSS_UDP_SRC = (1 << 9),
	DOCA_FLOW_RSS_UDP_DST = (1 << 10),
	DOCA_FLOW_RSS_TCP_SRC = (1 << 11),
	DOCA_FLOW_RSS_TCP_DST = (1 << 12),
	DOCA_FLOW_RSS_AUTO = (1 << 30),
};

enum doca_flow_meter_algorithm_type {
	DOCA_FLOW_METER_ALGORITHM_TYPE_RFC2697,
	DOCA_FLOW_METER_ALGORITHM_TYPE_RFC2698,
	DOCA_FLOW_METER_ALGORITHM_TYPE_RFC4115,
};

enum doca_flow_meter_limit_type {
	DOCA_FLOW_METER_LIMIT_TYPE_BYTES = 0,
	DOCA_FLOW_METER_LIMIT_TYPE_PACKETS,
};

enum doca_flow_meter_color_mode {
	DOCA_FLOW_METER_COLOR_MODE_BLIND = 0,
	DOCA_FLOW_METER_COLOR_MODE_AWARE,
};

enum doca_flow_action_type {
	DOCA_FLOW_ACTION_AUTO = 0,
	DOCA_FLOW_ACTION_ADD,
	DOCA_FLOW_ACTION_COPY,
};

enum doca_flow_ordered_list_element_type {
	DOCA_FLOW_ORDERED_LIST_ELEMENT_ACTIONS,
	DOCA_FLOW_ORDERED_LIST_ELEMENT_MONITOR,
	DOCA_FLOW_ORDERED_LIST_ELEMENT_NAT64,
	DOCA_FLOW_ORDERED_LIST_ELEMENT_CRYPTO,
};

enum doca_flow_port_operation_state {
	DOCA_FLOW_PORT_OPERATION_STATE_ACTIVE,
	DOCA_FLOW_PORT_OPERATION_STATE_ACTIVE_READY_TO_SWAP,
	DOCA_FLOW_PORT_OPERATION_STATE_STANDBY,
	DOCA_FLOW_PORT_OPERATION_STATE_UNCONNECTED,
};

enum doca_flow_parser_geneve_opt_mode {
	DOCA_FLOW_PARSER_GENEVE_OPT_MODE_IGNORE,
	DOCA_FLOW_PARSER_GENEVE_OPT_MODE_FIXED,
	DOCA_FLOW_PARSER_GENEVE_OPT_MODE_MATCHABLE,
};

/* ------------------------------------------------------------------ structs */

struct doca_flow_meta {
	doca_be32_t pkt_meta;
	doca_be32_t u32[DOCA_FLOW_META_SCRATCH_PAD_MAX];
};

struct doca_flow_parser_meta {
	uint16_t port_id;
	doca_be16_t random;
	uint8_t ipsec_syndrome;
	uint8_t ipsec_ar_syndrome;
	uint8_t psp_syndrome;
	enum doca_flow_meter_color meter_color;
	enum doca_flow_l2_meta outer_l2_type;
	enum doca_flow_l3_meta outer_l3_type;
	enum doca_flow_l4_meta outer_l4_type;
	enum doca_flow_l2_meta inner_l2_type;
	enum doca_flow_l3_meta inner_l3_type;
	enum doca_flow_l4_meta inner_l4_type;
	uint8_t outer_ip_fragmented;
	uint8_t inner_ip_fragmented;
	uint8_t outer_l3_ok;
	uint8_t outer_ip4_checksum_ok;
	uint8_t outer_l4_ok;
	uint8_t outer_l4_checksum_ok;
	uint8_t inner_l3_ok;
	uint8_t inner_ip4_checksum_ok;
	uint8_t inner_l4_ok;
	uint8_t inner_l4_checksum_ok;
};

struct doca_flow_header_format {
	struct doca_flow_header_eth eth;
	uint16_t l2_valid_headers;
	struct doca_flow_header_eth_vlan eth_vlan[DOCA_FLOW_VLAN_MAX];
	enum doca_flow_l3_type l3_type;
	union {
		struct doca_flow_header_ip4 ip4;
		struct doca_flow_header_ip6 ip6;
	};
	enum doca_flow_l4_type_ext l4_type_ext;
	union {
		struct doca_flow_header_icmp icmp;
		struct doca_flow_header_udp udp;
		struct doca_flow_header_tcp tcp;
		struct doca_flow_header_l4_port transport;
		struct doca_flow_header_roce_v2 roce_v2;
	};
};

struct doca_flow_match {
	struct doca_flow_meta meta;
	struct doca_flow_parser_meta parser_meta;
	struct doca_flow_header_format outer;
	struct doca_flow_tun tun;
	struct doca_flow_header_format inner;
};

struct doca_flow_entropy_format {
	enum doca_flow_l3_type l3_type;
	union {
		struct doca_flow_header_ip4 ip4;
		struct doca_flow_header_ip6 ip6;
	};
	bool is_transport;
	struct doca_flow_header_l4_port transport;
};

struct doca_flow_desc_field {
	const char *field_string;
	uint32_t bit_offset;
};

struct doca_flow_match_condition {
	enum doca_flow_compare_op operation;
	union {
		struct {
			struct doca_flow_desc_field a;
			struct doca_flow_desc_field b;
			uint32_t width;
		} field_op;
	};
};

struct doca_flow_encap_action {
	struct doca_flow_header_format outer;
	struct doca_flow_tun tun;
};

struct doca_flow_push_vlan_action {
	doca_be16_t eth_type;
	struct doca_flow_header_eth_vlan vlan_hdr;
};

struct doca_flow_push_action {
	enum doca_flow_push_action_type type;
	union {
		struct doca_flow_push_vlan_action vlan;
	};
};

struct doca_flow_nat64_action {
	enum doca_flow_l3_type original_l3_type;
};

struct doca_flow_crypto_action {
	enum doca_flow_crypto_action_type action_type;
	enum doca_flow_crypto_resource_type resource_type;
	union {
		struct {
			bool sn_en;
		} ipsec_sa;
	};
	uint32_t crypto_id;
};

struct doca_flow_crypto_encap_action {
	enum doca_flow_crypto_encap_action_type action_type;
	enum doca_flow_crypto_encap_net_type net_type;
	uint16_t icv_size;
	uint16_t data_size;
	uint8_t encap_data[DOCA_FLOW_CRYPTO_HEADER_LEN_MAX];
};

struct doca_flow_resource_encap_cfg {
	bool is_l2;
	struct doca_flow_encap_action encap;
};

struct doca_flow_resource_decap_cfg {
	bool is_l2;
	struct doca_flow_header_eth eth;
	uint16_t l2_valid_headers;
	struct doca_flow_header_eth_vlan eth_vlan[DOCA_FLOW_VLAN_MAX];
};

struct doca_flow_actions {
	enum doca_flow_resource_type decap_type;
	union {
		struct doca_flow_resource_decap_cfg decap_cfg;
		uint32_t shared_decap_id;
	};
	bool pop_vlan;
	struct doca_flow_meta meta;
	struct doca_flow_parser_meta parser_meta;
	struct doca_flow_header_format outer;
	struct doca_flow_tun tun;
	enum doca_flow_resource_type encap_type;
	union {
		struct doca_flow_resource_encap_cfg encap_cfg;
		uint32_t shared_encap_id;
	};
	bool has_push;
	struct doca_flow_push_action push;
	struct doca_flow_nat64_action nat64;
	bool has_crypto_encap;
	struct doca_flow_crypto_encap_action crypto_encap;
	struct doca_flow_crypto_action crypto;
};

struct doca_flow_crypto {
	bool has_crypto_encap;
	struct doca_flow_crypto_encap_action crypto_encap;
	struct doca_flow_crypto_action crypto;
};

struct doca_flow_resource_rss_cfg {
	uint32_t outer_flags;
	uint32_t inner_flags;
	uint16_t *queues_array;
	int nr_queues;
	enum doca_flow_rss_hash_function rss_hash_func;
};

struct doca_flow_fwd {
	enum doca_flow_fwd_type type;
	union {
		struct {
			enum doca_flow_resource_type rss_type;
			union {
				struct doca_flow_resource_rss_cfg rss;
				uint32_t shared_rss_id;
			};
		};
		struct {
			uint16_t port_id;
		};
		struct {
			struct doca_flow_pipe *next_pipe;
		};
		struct {
			struct doca_flow_pipe *pipe;
			uint32_t idx;
		} ordered_list_pipe;
		struct {
			struct doca_flow_target *target;
		};
		struct {
			struct doca_flow_pipe *pipe;
			enum doca_flow_pipe_hash_map_algorithm algorithm;
		} hash_pipe;
	};
};

struct doca_flow_resource_meter_cfg {
	enum doca_flow_meter_limit_type limit_type;
	enum doca_flow_meter_color_mode color_mode;
	enum doca_flow_meter_algorithm_type alg;
	uint64_t cir;
	uint64_t cbs;
	union {
		struct {
			uint64_t ebs;
		} rfc2697;
		struct {
			uint64_t pir;
			uint64_t pbs;
		} rfc2698;
		struct {
			uint64_t eir;
			uint64_t ebs;
		} rfc4115;
	};
};

struct doca_flow_resource_psp_cfg {
	struct doca_flow_crypto_key_cfg key_cfg;
};

struct doca_flow_resource_ipsec_sa_cfg {
	struct doca_flow_crypto_key_cfg key_cfg;
	uint32_t salt;
	uint64_t implicit_iv;
	enum doca_flow_crypto_icv_len icv_len;
	enum doca_flow_crypto_sn_offload_type sn_offload_type;
	enum doca_flow_crypto_replay_win_size win_size;
	bool esn_en;
	uint64_t sn_initial;
	uint32_t lifetime_threshold;
};

struct doca_flow_shared_resource_cfg {
	union {
		struct doca_flow_resource_meter_cfg meter_cfg;
		struct doca_flow_resource_rss_cfg rss_cfg;
		struct doca_flow_resource_psp_cfg psp_cfg;
		struct doca_flow_resource_encap_cfg encap_cfg;
		struct doca_flow_resource_decap_cfg decap_cfg;
		struct doca_flow_resource_ipsec_sa_cfg ipsec_sa_cfg;
	};
};

struct doca_flow_monitor {
	enum doca_flow_resource_type meter_type;
	union {
		struct {
			enum doca_flow_meter_limit_type limit_type;
			uint64_t cir;
			uint64_t cbs;
		} non_shared_meter;
		struct {
			uint32_t shared_meter_id;
			enum doca_flow_meter_color meter_init_color;
		} shared_meter;
	};
	enum doca_flow_resource_type counter_type;
	union {
		struct {
			uint32_t shared_counter_id;
		} shared_counter;
	};
	uint32_t aging_sec;
};

struct doca_flow_action_desc {
	enum doca_flow_action_type type;
	union {
		struct {
			struct doca_flow_desc_field src;
			struct doca_flow_desc_field dst;
			uint32_t width;
		} field_op;
	};
};

struct doca_flow_action_descs {
	uint8_t nb_action_desc;
	struct doca_flow_action_desc *desc_array;
};

struct doca_flow_ordered_list_element {
	enum doca_flow_ordered_list_element_type type;
	union {
		struct {
			struct doca_flow_actions *actions;
			struct doca_flow_actions *actions_mask;
			struct doca_flow_action_descs *action_descs;
		};
		struct doca_flow_monitor *monitor;
		struct doca_flow_nat64_action *nat64;
		struct doca_flow_crypto *crypto;
	};
};

struct doca_flow_ordered_list {
	uint32_t idx;
	uint32_t size;
	struct doca_flow_ordered_list_element *elements;
};

struct doca_flow_resource_query {
	union {
		struct {
			uint64_t total_bytes;
			uint64_t total_pkts;
		} counter;
		struct {
			uint64_t current_sn;
		} ipsec_sa;
	};
};

struct doca_flow_parser_geneve_opt_cfg {
	enum doca_flow_parser_geneve_opt_mode match_on_class_mode;
	doca_be16_t option_class;
	uint8_t option_type;
	uint8_t option_len;
	doca_be32_t data_mask[DOCA_FLOW_GENEVE_DATA_OPTION_LEN_MAX];
};

/* ------------------------------------------------------------------ callbacks */

typedef void (*doca_flow_entry_process_cb)(struct doca_flow_pipe_entry *entry, uint16_t pipe_queue,
					   enum doca_flow_entry_status status, enum doca_flow_entry_op op,
					   void *user_ctx);
typedef void (*doca_flow_pipe_process_cb)(struct doca_flow_pipe *pipe, enum doca_flow_pipe_status status,
					  enum doca_flow_pipe_op op, void *user_ctx);
typedef void (*doca_flow_shared_resource_unbind_cb)(enum doca_flow_shared_resource_type,
						    uint32_t shared_resource_id, void *bindable_obj);
typedef doca_error_t (*doca_flow_pipe_resize_nr_entries_changed_cb)(void *pipe_user_ctx, uint32_t nr_entries);
typedef doca_error_t (*doca_flow_pipe_resize_entry_relocate_cb)(void *pipe_user_ctx, uint16_t pipe_queue,
								 void *entry_user_ctx, void **new_entry_user_ctx);

/*
 * Common error conventions for every call below: INVALID_VALUE for a NULL object or out
 * pointer and for out-of-range values, BAD_STATE when doca_flow_init has not run (or an
 * object is in the wrong state), NO_MEMORY on allocation failure. Each failure logs one
 * line naming the call and the reason.
 */

/* ------------------------------------------------------------------ global cfg, init */

/* Allocate a global configuration with defaults (1 pipe queue, "vnf" mode). */
DOCA_STABLE doca_error_t doca_flow_cfg_create(struct doca_flow_cfg **cfg);
/* Free a configuration. */
DOCA_STABLE doca_error_t doca_flow_cfg_destroy(struct doca_flow_cfg *cfg);
/* Entry queues per port, 1..256. */
DOCA_STABLE doca_error_t doca_flow_cfg_set_pipe_queues(struct doca_flow_cfg *cfg, uint16_t pipe_queues);
/* "vnf[,...]" or "switch[,...]": the first token picks the mode, the rest is ignored. */
DOCA_STABLE doca_error_t doca_flow_cfg_set_mode_args(struct doca_flow_cfg *cfg, const char *mode_args);
/* SYSTEM-mode counter pool size (stored; pools are not enforced). */
DOCA_STABLE doca_error_t doca_flow_cfg_set_nr_counters(struct doca_flow_cfg *cfg, uint32_t nr_counters);
/* SYSTEM-mode meter pool size (stored, no effect). */
DOCA_STABLE doca_error_t doca_flow_cfg_set_nr_meters(struct doca_flow_cfg *cfg, uint32_t nr_meters);
/* SYSTEM-mode shared resource pool size of one type (counters: number of shared ids). */
DOCA_STABLE doca_error_t doca_flow_cfg_set_nr_shared_resource(struct doca_flow_cfg *cfg, uint32_t nr_shared_resource,
							      enum doca_flow_shared_resource_type type);
/* Queue depth (stored, no effect). */
DOCA_STABLE doca_error_t doca_flow_cfg_set_queue_depth(struct doca_flow_cfg *cfg, uint32_t queue_depth);
/* Pipe callback (stored; flowdpa emits no pipe events). */
DOCA_STABLE doca_error_t doca_flow_cfg_set_cb_pipe_process(struct doca_flow_cfg *cfg, doca_flow_pipe_process_cb cb);
/* Entry completion callback, called from doca_flow_entries_process. */
DOCA_STABLE doca_error_t doca_flow_cfg_set_cb_entry_process(struct doca_flow_cfg *cfg, doca_flow_entry_process_cb cb);
/* Stored, no effect. */
DOCA_STABLE doca_error_t doca_flow_cfg_set_cb_shared_resource_unbind(struct doca_flow_cfg *cfg,
								     doca_flow_shared_resource_unbind_cb cb);
/* Stored, no effect (INVALID_VALUE for a NULL key with a non-zero length). */
DOCA_STABLE doca_error_t doca_flow_cfg_set_rss_key(struct doca_flow_cfg *cfg, const uint8_t *rss_key,
						   uint32_t rss_key_len);
/* Stored, no effect. */
DOCA_STABLE doca_error_t doca_flow_cfg_set_nr_acl_collisions(struct doca_flow_cfg *cfg, uint8_t nr_acl_collisions);
/* Stored, no effect. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_cfg_set_definitions(struct doca_flow_cfg *cfg,
							     const struct doca_flow_definitions *defs);
/* SYSTEM (default) or PORT resource pools. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_cfg_set_resource_mode(struct doca_flow_cfg *cfg,
							       const enum doca_flow_resource_mode mode);
/* Start DOCA Flow; the cfg may be destroyed afterwards. BAD_STATE when already started. */
DOCA_STABLE doca_error_t doca_flow_init(struct doca_flow_cfg *cfg);
/* Stop DOCA Flow: stops ports still started and frees every pipe, entry and resource. */
DOCA_STABLE void doca_flow_destroy(void);

/* ------------------------------------------------------------------ ports */

DOCA_STABLE doca_error_t doca_flow_port_cfg_create(struct doca_flow_port_cfg **cfg);
DOCA_STABLE doca_error_t doca_flow_port_cfg_destroy(struct doca_flow_port_cfg *cfg);
/* Stored, ignored. */
DOCA_STABLE doca_error_t doca_flow_port_cfg_set_devargs(struct doca_flow_port_cfg *cfg, const char *devargs);
/* The device of a VNF port or switch manager (NULL accepted for tests). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_cfg_set_dev(struct doca_flow_port_cfg *cfg, struct doca_dev *dev);
/* The representor of a switch port. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_cfg_set_dev_rep(struct doca_flow_port_cfg *cfg,
							      struct doca_dev_rep *dev);
/* Logical port id (< 16) that fwd.port_id and parser_meta.port_id refer to. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_cfg_set_port_id(struct doca_flow_port_cfg *cfg, uint16_t port_id);
/* Stored, ignored. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_cfg_set_actions_mem_size(struct doca_flow_port_cfg *cfg, uint32_t size);
/* PORT-mode pool sizes (counters: number of shared counter ids of the port). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_cfg_set_nr_resources(struct doca_flow_port_cfg *cfg,
								   enum doca_flow_resource resource,
								   uint32_t nr_resources);
/* Size of the per-port private area returned by doca_flow_port_priv_data. */
DOCA_STABLE doca_error_t doca_flow_port_cfg_set_priv_data_size(struct doca_flow_port_cfg *cfg, uint16_t priv_data_size);
/* Stored, ignored. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_cfg_set_service_threads_cycle(struct doca_flow_port_cfg *cfg,
									    uint32_t cycle_ms);
/* Start a port. ALREADY_EXIST for a port id already started; BAD_STATE before init. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_start(const struct doca_flow_port_cfg *cfg,
						    struct doca_flow_port **port);
/* Stop a port: flushes its pipes, completes its pcap capture. IN_USE for a switch
 * manager whose representors are still started. */
DOCA_STABLE doca_error_t doca_flow_port_stop(struct doca_flow_port *port);
/* Pair two VNF ports (no datapath effect). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_pair(struct doca_flow_port *port, struct doca_flow_port *pair_port);
/* The private area of the port (NULL when its size is 0). */
DOCA_STABLE uint8_t *doca_flow_port_priv_data(struct doca_flow_port *port);
/* The switch manager of port (NULL: the first manager started); NULL in VNF mode. */
DOCA_STABLE struct doca_flow_port *doca_flow_port_switch_get(const struct doca_flow_port *port);
/* Destroy every pipe and entry of the port, without callbacks. */
DOCA_STABLE void doca_flow_port_pipes_flush(struct doca_flow_port *port);
/* Not supported. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_cfg_set_operation_state(struct doca_flow_port_cfg *cfg,
								      enum doca_flow_port_operation_state state);
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_operation_state_modify(struct doca_flow_port *port,
								     enum doca_flow_port_operation_state state);
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_calc_entropy(struct doca_flow_port *port,
							   struct doca_flow_entropy_format *header, uint16_t *entropy);

/* ------------------------------------------------------------------ pipe cfg */

/* Pipe configuration on a started port (BASIC, nr_entries 8192 by default). */
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_create(struct doca_flow_pipe_cfg **cfg, struct doca_flow_port *port);
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_destroy(struct doca_flow_pipe_cfg *cfg);
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_name(struct doca_flow_pipe_cfg *cfg, const char *name);
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_cfg_set_label(struct doca_flow_pipe_cfg *cfg, const char *label);
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_type(struct doca_flow_pipe_cfg *cfg, enum doca_flow_pipe_type type);
/* Stored; EGRESS pipes are created but never see traffic. */
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_domain(struct doca_flow_pipe_cfg *cfg,
						       enum doca_flow_pipe_domain domain);
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_is_root(struct doca_flow_pipe_cfg *cfg, bool is_root);
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_nr_entries(struct doca_flow_pipe_cfg *cfg, uint32_t nr_entries);
/* Match template (docs/flow.md, Pipes): 0 ignored, all ones changeable, other constant. */
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_match(struct doca_flow_pipe_cfg *cfg,
						      const struct doca_flow_match *match,
						      const struct doca_flow_match *match_mask);
/* Action templates (docs/flow.md, Actions), nr_actions <= 8; action_descs per template
 * (docs/flow.md, Action descriptors; INVALID_VALUE for a NULL desc_array with
 * nb_action_desc > 0). */
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_actions(struct doca_flow_pipe_cfg *cfg,
							struct doca_flow_actions *const *actions,
							struct doca_flow_actions *const *actions_masks,
							struct doca_flow_action_descs *const *action_descs,
							size_t nr_actions);
/* Monitor template: counters (NON_SHARED per entry, SHARED by id); meters NOT_SUPPORTED at create. */
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_monitor(struct doca_flow_pipe_cfg *cfg,
							const struct doca_flow_monitor *monitor);
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_cfg_set_miss_counter(struct doca_flow_pipe_cfg *cfg, bool miss_counter);
DOCA_STABLE doca_error_t doca_flow_pipe_cfg_set_user_ctx(struct doca_flow_pipe_cfg *cfg, void *user_ctx);
/* HASH pipes: one of HASH, RANDOM, IDENTITY, ROUND_ROBIN, FLOODING, optionally | SELECT_ENABLED. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_cfg_set_hash_map_algorithm(struct doca_flow_pipe_cfg *cfg,
									 uint32_t algorithm_flags);
/* Not supported. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_cfg_set_ordered_lists(struct doca_flow_pipe_cfg *cfg,
								    struct doca_flow_ordered_list *const *ordered_lists,
								    size_t nr_ordered_lists);
/*
 * Resizable BASIC and CONTROL pipes (a resizable HASH pipe: NOT_SUPPORTED at create).
 * threshold: percent in (0, 100] (else INVALID_VALUE); an add that brings the pipe's
 * entries (queued ones included) to it delivers DOCA_FLOW_PIPE_OP_CONGESTION_REACHED
 * once, from that add call, until the next resize. An excluded queue (INVALID_VALUE
 * when >= pipe_queues) never completes the pipe's resize.
 */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_cfg_set_is_resizable(struct doca_flow_pipe_cfg *cfg, bool is_resizable);
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_cfg_set_congestion_level_threshold(struct doca_flow_pipe_cfg *cfg,
										 uint8_t threshold);
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_cfg_set_excluded_queue(struct doca_flow_pipe_cfg *cfg,
								     uint16_t pipe_queue);

/* ------------------------------------------------------------------ pipes */

/*
 * Create a pipe from cfg (which may be destroyed afterwards). NOT_SUPPORTED for LPM, CT,
 * ACL, ORDERED_LIST, meters, encap/decap, fwd TARGET/ORDERED_LIST/HASH_PIPE, descs naming
 * a field the NIC lacks (docs/flow.md, Action descriptors: INVALID_VALUE for bad ones);
 * ALREADY_EXIST for a second root on a port; INVALID_VALUE for fwd to a destroyed pipe.
 */
DOCA_STABLE doca_error_t doca_flow_pipe_create(const struct doca_flow_pipe_cfg *cfg, const struct doca_flow_fwd *fwd,
					       const struct doca_flow_fwd *fwd_miss, struct doca_flow_pipe **pipe);
/* Destroy a pipe and its entries (no callbacks); packets still forwarded to it are dropped. */
DOCA_STABLE void doca_flow_pipe_destroy(struct doca_flow_pipe *pipe);
/* Replace fwd_miss live (NULL, DROP, PIPE, PORT, RSS). */
DOCA_STABLE doca_error_t doca_flow_pipe_update_miss(struct doca_flow_pipe *pipe, const struct doca_flow_fwd *fwd_miss);
/* Write a text description of the pipe and its entries to f. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_dump(struct doca_flow_pipe *pipe, FILE *f);

/* ------------------------------------------------------------------ entries */

/*
 * Queue the addition of a BASIC entry; *entry (if entry is not NULL) is valid at once
 * with status IN_PROCESS. INVALID_VALUE for a non-BASIC pipe, pipe_queue out of range,
 * action_idx >= nr_actions, both NO_WAIT and WAIT_FOR_BATCH set, a missing fwd where the
 * pipe needs one. Duplicate key or a full pipe complete with ERROR.
 */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_basic_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
							      const struct doca_flow_match *match, uint8_t action_idx,
							      const struct doca_flow_actions *actions,
							      const struct doca_flow_monitor *monitor,
							      const struct doca_flow_fwd *fwd, uint32_t flags,
							      void *usr_ctx, struct doca_flow_pipe_entry **entry);
/* Queue an update of the actions/fwd of a BASIC or HASH entry (completes with op UPD). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_basic_update_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
								 uint8_t action_idx,
								 const struct doca_flow_actions *actions,
								 const struct doca_flow_monitor *monitor,
								 const struct doca_flow_fwd *fwd, uint32_t flags,
								 struct doca_flow_pipe_entry *entry);
/* Queue a CONTROL entry; lower priority numbers match first. condition and action_descs:
 * docs/flow.md, Match conditions and Action descriptors (FULL: 8 desc programs per pipe). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_control_add_entry(
	uint16_t pipe_queue, struct doca_flow_pipe *pipe, const struct doca_flow_match *match,
	const struct doca_flow_match *match_mask, const struct doca_flow_match_condition *condition,
	const struct doca_flow_actions *actions, const struct doca_flow_actions *actions_mask,
	const struct doca_flow_action_descs *action_descs, const struct doca_flow_monitor *monitor,
	uint32_t priority, const struct doca_flow_fwd *fwd, void *usr_ctx, struct doca_flow_pipe_entry **entry);
/* Queue a HASH entry at entry_index (< nr_entries, else INVALID_VALUE). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_hash_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
							     uint32_t entry_index, uint8_t action_idx,
							     const struct doca_flow_actions *actions,
							     const struct doca_flow_monitor *monitor,
							     const struct doca_flow_fwd *fwd, uint32_t flags,
							     void *usr_ctx, struct doca_flow_pipe_entry **entry);
/* Queue the removal of an entry; after its DEL completion the handle is dead. */
DOCA_STABLE doca_error_t doca_flow_pipe_remove_entry(uint16_t pipe_queue, uint32_t flags,
						     struct doca_flow_pipe_entry *entry);
/*
 * Complete up to max_processed_entries (0 = all) queued operations of (port, pipe_queue)
 * in FIFO order, calling the entry callback for each. timeout is in microseconds.
 */
DOCA_STABLE doca_error_t doca_flow_entries_process(struct doca_flow_port *port, uint16_t pipe_queue, uint64_t timeout,
						   uint32_t max_processed_entries);
/* IN_PROCESS until the add/update completes, then SUCCESS or ERROR. */
DOCA_STABLE enum doca_flow_entry_status doca_flow_pipe_entry_get_status(struct doca_flow_pipe_entry *entry);

/* Not supported (NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_lpm_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
							    const struct doca_flow_match *match,
							    const struct doca_flow_match *match_mask, uint8_t action_idx,
							    const struct doca_flow_actions *actions,
							    const struct doca_flow_monitor *monitor,
							    const struct doca_flow_fwd *fwd, uint32_t flags, void *usr_ctx,
							    struct doca_flow_pipe_entry **entry);
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_acl_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
							    const struct doca_flow_match *match,
							    const struct doca_flow_match *match_mask, uint8_t action_idx,
							    const struct doca_flow_actions *actions, const uint32_t priority,
							    const struct doca_flow_fwd *fwd, uint32_t flags, void *usr_ctx,
							    struct doca_flow_pipe_entry **entry);
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_ordered_list_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
								     uint32_t idx,
								     const struct doca_flow_ordered_list *ordered_list,
								     const struct doca_flow_fwd *fwd, uint32_t flags,
								     void *user_ctx, struct doca_flow_pipe_entry **entry);
/*
 * Report entries of queue whose counter did not change for their monitor.aging_sec
 * (DOCA_FLOW_ENTRY_OP_AGED, status SUCCESS, through the entry process callback), each
 * once until it is hit again. quota: microseconds (0: no limit), max_entries (0: no
 * limit). Returns the number reported by this call, 0 when none, -1 when the cycle over
 * the port's aging entries is complete; -DOCA_ERROR_* (below -1) for a refused call:
 * -BAD_STATE before doca_flow_init or for a stopped port, -INVALID_VALUE for NULL or a
 * queue out of range. Time is flowdpa's aging clock (flowdpa_clock_advance_ms).
 */
DOCA_EXPERIMENTAL int doca_flow_aging_handle(struct doca_flow_port *port, uint16_t queue, uint64_t quota,
					     uint64_t max_entries);
/*
 * Grow a resizable pipe so that its entries fill new_congestion_level percent (0 < level
 * <= 100): the next power of two, never smaller than before. Takes effect at once (more
 * entries fit); the next doca_flow_entries_process of the port on a queue the pipe does
 * not exclude calls nr_entries_changed_cb, entry_relocation_cb per entry in the pipe
 * (the context it returns replaces the entry's) and delivers DOCA_FLOW_PIPE_OP_RESIZED
 * (status ERROR when a callback failed). Either callback may be NULL. INVALID_VALUE for
 * NULL, a pipe not created resizable or a level out of range; BAD_STATE while the
 * previous resize has not completed.
 */
DOCA_EXPERIMENTAL doca_error_t doca_flow_pipe_resize(struct doca_flow_pipe *pipe, uint8_t new_congestion_level,
						     doca_flow_pipe_resize_nr_entries_changed_cb nr_entries_changed_cb,
						     doca_flow_pipe_resize_entry_relocate_cb entry_relocation_cb);
/*
 * DOCA_FLOW_TARGET_KERNEL for DOCA_FLOW_FWD_TARGET (pipe fwd, fwd_miss or entry fwd):
 * frames go to the receiving port's kernel queue (flowdpa_kernel_capture_pop, counted in
 * kernel_pkts). INVALID_VALUE for NULL or another type; BAD_STATE before doca_flow_init.
 */
DOCA_EXPERIMENTAL doca_error_t doca_flow_get_target(enum doca_flow_target_type type, struct doca_flow_target **target);
DOCA_EXPERIMENTAL doca_error_t doca_flow_parser_geneve_opt_create(const struct doca_flow_port *port,
								  const struct doca_flow_parser_geneve_opt_cfg tlv_list[],
								  uint8_t nb_options, struct doca_flow_parser **parser);
/* Pure bit packing: label 20 bits, TC 3, bottom-of-stack 1, TTL 8, big endian. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_mpls_label_encode(uint32_t label, uint8_t traffic_class, uint8_t ttl,
							   bool bottom_of_stack, struct doca_flow_header_mpls *mpls);

/* ------------------------------------------------------------------ queries */

/* Counter of an entry (its own or its shared counter). INVALID_VALUE when it has none. */
DOCA_STABLE doca_error_t doca_flow_resource_query_entry(struct doca_flow_pipe_entry *entry,
							struct doca_flow_resource_query *data);
/* Miss counter of a pipe. INVALID_VALUE unless created with set_miss_counter(true). */
DOCA_STABLE doca_error_t doca_flow_resource_query_pipe_miss(struct doca_flow_pipe *pipe,
							    struct doca_flow_resource_query *data);
/* The hash the datapath computes for a packet equal to match (HASH pipes; masked fields). */
DOCA_STABLE doca_error_t doca_flow_pipe_calc_hash(struct doca_flow_pipe *pipe, const struct doca_flow_match *match,
						  uint32_t *hash);

/* ------------------------------------------------------------------ shared resources */

/* A free shared id of the type on the port (NO_MEMORY... FULL when none is left). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_shared_resource_get(struct doca_flow_port *port,
								  enum doca_flow_shared_resource_type type,
								  uint32_t *shared_resource_id);
/* Give an id back; IN_USE while an entry references it. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_shared_resource_put(struct doca_flow_port *port,
								  enum doca_flow_shared_resource_type type,
								  uint32_t shared_resource_id);
/* Configure (activate) an id. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_shared_resource_set_cfg(struct doca_flow_port *port,
								      enum doca_flow_shared_resource_type type,
								      uint32_t shared_resource_id,
								      struct doca_flow_shared_resource_cfg *cfg);
/* Read array_len shared counters. NOT_SUPPORTED for other types. */
DOCA_EXPERIMENTAL doca_error_t doca_flow_port_shared_resources_query(struct doca_flow_port *port,
								     enum doca_flow_shared_resource_type type,
								     uint32_t *res_array,
								     struct doca_flow_resource_query *data_array,
								     uint32_t array_len);

#ifdef __cplusplus
}
#endif

#include <doca_flow_external_resource.h>

#endif /* DOCA_FLOW_H_ */
