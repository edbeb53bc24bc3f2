/*
 * doca_flow_definitions.h - the DOCA Flow definitions API (custom field opcodes).
 * Declared so programs that pass definitions compile; flowdpa stores nothing from them
 * and the creating calls return DOCA_ERROR_NOT_SUPPORTED.
 */
#ifndef DOCA_FLOW_DEFINITIONS_H_
#define DOCA_FLOW_DEFINITIONS_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_flow_definitions;
struct doca_flow_definitions_cfg;

/* NOT_SUPPORTED; *defs_cfg is set to NULL (INVALID_VALUE when defs_cfg is NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_definitions_cfg_create(struct doca_flow_definitions_cfg **defs_cfg);
/* NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_definitions_cfg_destroy(struct doca_flow_definitions_cfg *defs_cfg);
/* NOT_SUPPORTED; *defs is set to NULL (INVALID_VALUE when defs is NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_definitions_create(struct doca_flow_definitions_cfg *defs_cfg,
							    struct doca_flow_definitions **defs);
/* NOT_SUPPORTED (INVALID_VALUE for NULL defs or field_opcode_str). */
DOCA_EXPERIMENTAL doca_error_t doca_flow_definitions_add_field(struct doca_flow_definitions *defs,
							       const char *field_opcode_str, uint32_t field_offset,
							       uint32_t field_length);
/* No-op. */
DOCA_EXPERIMENTAL void doca_flow_definitions_destroy(struct doca_flow_definitions *defs);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_FLOW_DEFINITIONS_H_ */
