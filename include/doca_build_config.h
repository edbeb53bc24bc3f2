/*
 * doca_build_config.h - the architecture flowdpa emulates: an x86 host that talks to
 * a BlueField through PCI. Nothing here depends on the real build machine.
 */
#ifndef DOCA_BUILD_CONFIG_H_
#define DOCA_BUILD_CONFIG_H_

#undef DOCA_ARCH_ARM
#undef DOCA_ARCH_DPU
#define DOCA_ARCH_DPU_BF2 false
#define DOCA_ARCH_HOST
#define DOCA_ARCH_X86

#endif /* DOCA_BUILD_CONFIG_H_ */
