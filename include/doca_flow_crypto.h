/*
 * doca_flow_crypto.h - crypto types referenced by doca_flow.h structs. Compile support
 * only: flowdpa's datapath does no crypto, and actions that need it are refused at pipe
 * creation with DOCA_ERROR_NOT_SUPPORTED.
 */
#ifndef DOCA_FLOW_CRYPTO_H_
#define DOCA_FLOW_CRYPTO_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum doca_flow_crypto_resource_type {
	DOCA_FLOW_CRYPTO_RESOURCE_NONE,
	DOCA_FLOW_CRYPTO_RESOURCE_IPSEC_SA,
	DOCA_FLOW_CRYPTO_RESOURCE_PSP,
};

enum doca_flow_crypto_action_type {
	DOCA_FLOW_CRYPTO_ACTION_NONE,
	DOCA_FLOW_CRYPTO_ACTION_ENCRYPT,
	DOCA_FLOW_CRYPTO_ACTION_DECRYPT,
};

enum doca_flow_crypto_encap_action_type {
	DOCA_FLOW_CRYPTO_REFORMAT_NONE,
	DOCA_FLOW_CRYPTO_REFORMAT_ENCAP,
	DOCA_FLOW_CRYPTO_REFORMAT_DECAP,
};

enum doca_flow_crypto_encap_net_type {
	DOCA_FLOW_CRYPTO_HEADER_NONE,
	DOCA_FLOW_CRYPTO_HEADER_ESP_TUNNEL,
	DOCA_FLOW_CRYPTO_HEADER_ESP_OVER_IPV4,
	DOCA_FLOW_CRYPTO_HEADER_ESP_OVER_IPV6,
	DOCA_FLOW_CRYPTO_HEADER_UDP_ESP_OVER_IPV4,
	DOCA_FLOW_CRYPTO_HEADER_UDP_ESP_OVER_IPV6,
	DOCA_FLOW_CRYPTO_HEADER_ESP_OVER_LAN,
	DOCA_FLOW_CRYPTO_HEADER_PSP_TUNNEL,
	DOCA_FLOW_CRYPTO_HEADER_PSP_OVER_IPV4,
	DOCA_FLOW_CRYPTO_HEADER_PSP_OVER_IPV6,
};

enum doca_flow_crypto_key_type {
	DOCA_FLOW_CRYPTO_KEY_128,
	DOCA_FLOW_CRYPTO_KEY_256,
};

enum doca_flow_crypto_icv_len {
	DOCA_FLOW_CRYPTO_ICV_LENGTH_8,
	DOCA_FLOW_CRYPTO_ICV_LENGTH_12,
	DOCA_FLOW_CRYPTO_ICV_LENGTH_16,
};

enum doca_flow_crypto_replay_win_size {
	DOCA_FLOW_CRYPTO_REPLAY_WIN_SIZE_32,
	DOCA_FLOW_CRYPTO_REPLAY_WIN_SIZE_64,
	DOCA_FLOW_CRYPTO_REPLAY_WIN_SIZE_128,
	DOCA_FLOW_CRYPTO_REPLAY_WIN_SIZE_256,
};

enum doca_flow_crypto_sn_offload_type {
	DOCA_FLOW_CRYPTO_SN_OFFLOAD_INC,
	DOCA_FLOW_CRYPTO_SN_OFFLOAD_AR,
};

struct doca_flow_crypto_key_cfg {
	enum doca_flow_crypto_key_type key_type;
	uint32_t *key;
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_FLOW_CRYPTO_H_ */
