/*
 * flow_target.c - DOCA Flow targets (doca_flow_get_target) for DOCA_FLOW_FWD_TARGET.
 * The one target type, DOCA_FLOW_TARGET_KERNEL, is the kernel network stack of the port
 * that received the frame: the software NIC gives such frames to that port's kernel
 * capture queue (flowdpa_kernel_capture_pop) and counts them in its kernel_pkts, not as
 * drops. A target is a process-wide constant, valid across DOCA Flow sessions.
 */
#include "flow_internal.h"

DOCA_LOG_REGISTER(FLOW::TARGET);

#define FLOW_TARGET_MAGIC 0x66746774u /* "ftgt" */

struct doca_flow_target {
	uint32_t magic;
	enum doca_flow_target_type type;
};

static const struct doca_flow_target kernel_target = {FLOW_TARGET_MAGIC, DOCA_FLOW_TARGET_KERNEL};

doca_error_t doca_flow_get_target(enum doca_flow_target_type type, struct doca_flow_target **target)
{
	CHECK(target != NULL, DOCA_ERROR_INVALID_VALUE, "%s: target is NULL", __func__);
	if (!flow_inited(__func__))
		return DOCA_ERROR_BAD_STATE;
	CHECK(type == DOCA_FLOW_TARGET_KERNEL, DOCA_ERROR_INVALID_VALUE, "%s: unknown target type %u", __func__,
	      (unsigned)type);
	/* Never written through: the handle is opaque to programs. */
	*target = (struct doca_flow_target *)(uintptr_t)&kernel_target;
	return DOCA_SUCCESS;
}

doca_error_t flow_target_convert(const struct doca_flow_target *target, struct nic_fwd *out, const char *who)
{
	CHECK(target != NULL, DOCA_ERROR_INVALID_VALUE, "%s: fwd TARGET with a NULL target (doca_flow_get_target)",
	      who);
	CHECK(target->magic == FLOW_TARGET_MAGIC, DOCA_ERROR_INVALID_VALUE,
	      "%s: fwd target is not a DOCA Flow target (doca_flow_get_target)", who);
	out->type = NIC_FWD_KERNEL;
	return DOCA_SUCCESS;
}
