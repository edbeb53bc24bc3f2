/*
 * strict_kernels.c - entry points whose parameter types exercise dpacc's generated
 * packers (narrow integers, float, const, struct by value, pointers, arrays) under the
 * strictest warning flags a user may pass: the generated code must add no warning.
 */
#include <doca_dpa_dev.h>

struct strict_pair {
	uint16_t lo;
	int8_t hi;
};

/* Prototypes, as -Wmissing-prototypes wants (the definitions carry the keywords). */
void strict_kernel(uint8_t a, const int16_t b, float c, struct strict_pair d, const char *e, uint64_t f[4], _Bool g,
		   unsigned char h, void (*i)(int));
uint32_t strict_rpc(const uint32_t x, double y);

__dpa_global__ void strict_kernel(uint8_t a, const int16_t b, float c, struct strict_pair d, const char *e,
				  uint64_t f[4], _Bool g, unsigned char h, void (*i)(int))
{
	(void)a;
	(void)b;
	(void)c;
	(void)d;
	(void)e;
	(void)f;
	(void)g;
	(void)h;
	(void)i;
}

__dpa_rpc__ uint32_t strict_rpc(const uint32_t x, double y)
{
	return x + (uint32_t)y;
}
