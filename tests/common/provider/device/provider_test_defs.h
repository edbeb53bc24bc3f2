/*
 * provider_test_defs.h - what the provider tests' host programs and their kernels share.
 */
#ifndef PROVIDER_TEST_DEFS_H_
#define PROVIDER_TEST_DEFS_H_

enum pv_test_hash_op {
	PV_T_ENABLE,
	PV_T_DISABLE,
	PV_T_REPLACE,
};

#endif /* PROVIDER_TEST_DEFS_H_ */
