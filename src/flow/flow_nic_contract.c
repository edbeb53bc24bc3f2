/*
 * flow_nic_contract.c - the DOCA values that reach the software NIC as they are.
 *
 * The NIC (src/nic) sits below DOCA Flow and includes no DOCA Flow header, yet some DOCA
 * enum values pass through it unchanged: a match's parser_meta types become packet-key
 * bytes (flow_match.c) and the NIC's parser writes the same bytes, a pipe's map-algorithm
 * flags and an index selector's states are stored as given, and the NIC's values come
 * back up as DOCA values (doca_flow_pipe_dump, index_selector_get, the provider's export
 * info). The NIC names each of them in nic.h; this file, which sees both sides, checks
 * every one at compile time. Values the flow layer translates (fwd types, pipe types,
 * rewrite fields, capture queues) are not mirrored and are not listed.
 *
 * The flow layer's own mirror of the NIC's burst ops (FLOW_XOP_* == NIC_HASH_OP_*) is
 * asserted beside the code that relies on it, in flow_provider.c.
 */
#include <stdint.h>

#include <doca_flow.h>
#include <doca_flow_external_resource.h>
#include <doca_flow_net.h>

#include <nic/nic.h>

#define SAME(doca, nic) _Static_assert((long long)(doca) == (long long)(nic), #doca " is " #nic " in the NIC")

/* ------------------------------------------------------------------ parser_meta */

/* enum doca_flow_l2_meta: NIC_K_L2_META. The NIC never reports CUSTOM_VLAN (a match on
 * it matches nothing), so it must not alias a value it does report. */
SAME(DOCA_FLOW_L2_META_NO_VLAN, NIC_L2_META_NO_VLAN);
SAME(DOCA_FLOW_L2_META_MULTI_VLAN, NIC_L2_META_MULTI_VLAN);
SAME(DOCA_FLOW_L2_META_SINGLE_VLAN, NIC_L2_META_SINGLE_VLAN);
_Static_assert((int)DOCA_FLOW_L2_META_CUSTOM_VLAN > (int)NIC_L2_META_SINGLE_VLAN,
	       "CUSTOM_VLAN is no value the NIC reports");

/* enum doca_flow_l3_meta: NIC_K_L3_META and nic_hdr_off.l3_type. */
SAME(DOCA_FLOW_L3_META_NONE, NIC_L3_META_NONE);
SAME(DOCA_FLOW_L3_META_IPV4, NIC_L3_META_IPV4);
SAME(DOCA_FLOW_L3_META_IPV6, NIC_L3_META_IPV6);

/* enum doca_flow_l3_type: flow_match_value stores a match's outer.l3_type as its L3 meta. */
SAME(DOCA_FLOW_L3_TYPE_IP4, NIC_L3_META_IPV4);
SAME(DOCA_FLOW_L3_TYPE_IP6, NIC_L3_META_IPV6);

/* enum doca_flow_l4_meta: NIC_K_L4_META and nic_hdr_off.l4_type. */
SAME(DOCA_FLOW_L4_META_NONE, NIC_L4_META_NONE);
SAME(DOCA_FLOW_L4_META_TCP, NIC_L4_META_TCP);
SAME(DOCA_FLOW_L4_META_UDP, NIC_L4_META_UDP);
SAME(DOCA_FLOW_L4_META_ICMP, NIC_L4_META_ICMP);
SAME(DOCA_FLOW_L4_META_ESP, NIC_L4_META_ESP);

/* The key holds each type in one byte, read from a 32-bit enum field (flow_match.c FK_ENUM8),
 * and parser_meta.port_id as the key's host-order u16 (FK_U16). */
_Static_assert(sizeof(((struct doca_flow_parser_meta *)0)->outer_l2_type) == 4 &&
		       sizeof(((struct doca_flow_parser_meta *)0)->outer_l3_type) == 4 &&
		       sizeof(((struct doca_flow_parser_meta *)0)->outer_l4_type) == 4,
	       "FK_ENUM8 reads parser_meta types as 32-bit fields");
_Static_assert(DOCA_FLOW_L2_META_CUSTOM_VLAN <= UINT8_MAX && DOCA_FLOW_L3_META_IPV6 <= UINT8_MAX &&
		       DOCA_FLOW_L4_META_ESP <= UINT8_MAX,
	       "a parser_meta type is one key byte");
_Static_assert(sizeof(((struct doca_flow_parser_meta *)0)->port_id) == 2, "NIC_K_PORT is a u16");

/* doca_flow_meta.u32[0..NIC_META_SCRATCH-1] are key words and rewrite fields of the NIC. */
_Static_assert(NIC_META_SCRATCH <= DOCA_FLOW_META_SCRATCH_PAD_MAX, "the NIC carries a prefix of meta.u32[]");

/* ------------------------------------------------------------------ hash pipes */

/* enum doca_flow_pipe_hash_map_algorithm: nic_pipe_attr.map_algorithm, nic_pipe_map_algorithm,
 * and the rule both layers check (nic_map_algorithm_valid). */
SAME(DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_HASH, NIC_MAP_HASH);
SAME(DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_RANDOM, NIC_MAP_RANDOM);
SAME(DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_IDENTITY, NIC_MAP_IDENTITY);
SAME(DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_ROUND_ROBIN, NIC_MAP_ROUND_ROBIN);
SAME(DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_FLOODING, NIC_MAP_FLOODING);
SAME(DOCA_FLOW_PIPE_HASH_MAP_ALGORITHM_SELECT_ENABLED, NIC_MAP_SELECT_ENABLED);

/* ------------------------------------------------------------------ external resources */

/* enum doca_flow_index_selector_op: the state of an index-selector slot (nic_idxsel_set/_get). */
SAME(DOCA_FLOW_INDEX_SELECTOR_OP_ENABLE, NIC_SEL_ENABLE);
SAME(DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_ONCE, NIC_SEL_SKIP_ONCE);
SAME(DOCA_FLOW_INDEX_SELECTOR_OP_SKIP_TWICE, NIC_SEL_SKIP_TWICE);
SAME(DOCA_FLOW_INDEX_SELECTOR_OP_DISABLE, NIC_SEL_DISABLE);
