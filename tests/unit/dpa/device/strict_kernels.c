/*
 * strict_kernels.c - entry points whose parameter types exercise dpacc's generated
 * packers (narrow integers, float and a typedef of it, const, enum, struct by value,
 * pointers, arrays) under the strictest warning flags a user may pass: the generated
 * code must add no warning (and a typedef'd float must not be va_arg'd as float).
 */
#include <doca_dpa_dev.h>

/* A float under another name: its packer must still va_arg a double. */
typedef float strict_f32;
enum strict_color { STRICT_RED, STRICT_BLUE };

struct strict_pair {
	uint16_t lo;
	int8_t hi;
};

/* Prototypes, as -Wmissing-prototypes wants (the definitions carry the keywords). */
void strict_kernel(uint8_t a, const int16_t b, float c, struct strict_pair d, const char *e, uint64_t f[4], _Bool g,
		   unsigned char h, void (*i)(int));
uint32_t strict_rpc(const uint32_t x, double y);
uint32_t strict_f32_rpc(strict_f32 x, const strict_f32 y, enum strict_color c);

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

__dpa_rpc__ uint32_t strict_f32_rpc(strict_f32 x, const strict_f32 y, enum strict_color c)
{
	return (uint32_t)(x + y) + (uint32_t)c;
}
