/*
 * flow_stubs.c - DOCA Flow calls declared so more programs compile, with no software
 * NIC behind them: each logs what is missing (every call) and returns NOT_SUPPORTED (or the
 * neutral value of its type). doca_flow_mpls_label_encode is real (pure bit packing).
 */
#include <string.h>

#include <doca_flow_definitions.h>

#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::STUB);

#define UNSUPPORTED()                                                                          \
	do {                                                                                   \
		CORE_LOG_ERR("%s: not supported by flowdpa's software NIC", __func__);         \
		return DOCA_ERROR_NOT_SUPPORTED;                                               \
	} while (0)

doca_error_t doca_flow_pipe_lpm_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
					  const struct doca_flow_match *match, const struct doca_flow_match *match_mask,
					  uint8_t action_idx, const struct doca_flow_actions *actions,
					  const struct doca_flow_monitor *monitor, const struct doca_flow_fwd *fwd,
					  uint32_t flags, void *usr_ctx, struct doca_flow_pipe_entry **entry)
{
	(void)pipe_queue, (void)pipe, (void)match, (void)match_mask, (void)action_idx, (void)actions;
	(void)monitor, (void)fwd, (void)flags, (void)usr_ctx, (void)entry;
	UNSUPPORTED();
}

doca_error_t doca_flow_pipe_acl_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe,
					  const struct doca_flow_match *match, const struct doca_flow_match *match_mask,
					  uint8_t action_idx, const struct doca_flow_actions *actions,
					  const uint32_t priority, const struct doca_flow_fwd *fwd, uint32_t flags,
					  void *usr_ctx, struct doca_flow_pipe_entry **entry)
{
	(void)pipe_queue, (void)pipe, (void)match, (void)match_mask, (void)action_idx, (void)actions;
	(void)priority, (void)fwd, (void)flags, (void)usr_ctx, (void)entry;
	UNSUPPORTED();
}

doca_error_t doca_flow_pipe_ordered_list_add_entry(uint16_t pipe_queue, struct doca_flow_pipe *pipe, uint32_t idx,
						   const struct doca_flow_ordered_list *ordered_list,
						   const struct doca_flow_fwd *fwd, uint32_t flags, void *user_ctx,
						   struct doca_flow_pipe_entry **entry)
{
	(void)pipe_queue, (void)pipe, (void)idx, (void)ordered_list, (void)fwd, (void)flags, (void)user_ctx;
	(void)entry;
	UNSUPPORTED();
}

doca_error_t doca_flow_pipe_cfg_set_ordered_lists(struct doca_flow_pipe_cfg *cfg,
						  struct doca_flow_ordered_list *const *ordered_lists,
						  size_t nr_ordered_lists)
{
	(void)cfg, (void)ordered_lists, (void)nr_ordered_lists;
	UNSUPPORTED();
}

doca_error_t doca_flow_port_cfg_set_operation_state(struct doca_flow_port_cfg *cfg,
						    enum doca_flow_port_operation_state state)
{
	(void)cfg, (void)state;
	UNSUPPORTED();
}

doca_error_t doca_flow_port_operation_state_modify(struct doca_flow_port *port,
						   enum doca_flow_port_operation_state state)
{
	(void)port, (void)state;
	UNSUPPORTED();
}

doca_error_t doca_flow_parser_geneve_opt_create(const struct doca_flow_port *port,
						const struct doca_flow_parser_geneve_opt_cfg tlv_list[],
						uint8_t nb_options, struct doca_flow_parser **parser)
{
	(void)port, (void)tlv_list, (void)nb_options;
	if (parser)
		*parser = NULL;
	UNSUPPORTED();
}

doca_error_t doca_flow_mpls_label_encode(uint32_t label, uint8_t traffic_class, uint8_t ttl, bool bottom_of_stack,
					 struct doca_flow_header_mpls *mpls)
{
	if (mpls == NULL || label >= (1u << 20) || traffic_class >= 8) {
		CORE_LOG_ERR("%s: NULL output, label %u >= 2^20 or traffic class %u >= 8", __func__, label,
			     traffic_class);
		return DOCA_ERROR_INVALID_VALUE;
	}
	uint32_t v = label << 12 | (uint32_t)traffic_class << 9 | (bottom_of_stack ? 1u << 8 : 0) | ttl;
	mpls->label = __builtin_bswap32(v);
	return DOCA_SUCCESS;
}

doca_error_t doca_flow_definitions_cfg_create(struct doca_flow_definitions_cfg **defs_cfg)
{
	if (defs_cfg == NULL) {
		CORE_LOG_ERR("%s: defs_cfg is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*defs_cfg = NULL;
	UNSUPPORTED();
}

doca_error_t doca_flow_definitions_cfg_destroy(struct doca_flow_definitions_cfg *defs_cfg)
{
	if (defs_cfg == NULL) {
		CORE_LOG_ERR("%s: defs_cfg is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	UNSUPPORTED();
}

doca_error_t doca_flow_definitions_create(struct doca_flow_definitions_cfg *defs_cfg,
					  struct doca_flow_definitions **defs)
{
	(void)defs_cfg;
	if (defs == NULL) {
		CORE_LOG_ERR("%s: defs is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*defs = NULL;
	UNSUPPORTED();
}

doca_error_t doca_flow_definitions_add_field(struct doca_flow_definitions *defs, const char *field_opcode_str,
					     uint32_t field_offset, uint32_t field_length)
{
	(void)field_offset, (void)field_length;
	if (defs == NULL || field_opcode_str == NULL) {
		CORE_LOG_ERR("%s: defs or field_opcode_str is NULL", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	UNSUPPORTED();
}

void doca_flow_definitions_destroy(struct doca_flow_definitions *defs)
{
	(void)defs;
}
