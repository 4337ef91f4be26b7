/* minifloat.c: the 8-bit and narrower floats (e4m3 e5m2 e2m3 e3m2 e2m1 ue8m0 ue4m3): runtime/tilec_minifloat.h compiled for tilec's constant folding, and its text for the outputs. */
#include <string.h>

#include "tilec.h"

static inline unsigned
__float_as_uint(float f)
{
	unsigned u;
	memcpy(&u, &f, 4);
	return u;
}

static inline float
__uint_as_float(unsigned u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

#define TL_MF_FN static inline
#include "tilec_minifloat.h"

const char minifloat_source[] =
#include "tilec_minifloat.inc"
	;

static const struct {
	unsigned char (*to)(float);
	float (*from)(unsigned char);
	const char *to_name, *from_name;
} formats[T_COUNT] = {
	[T_E4M3] = {tl_to_e4m3, tl_from_e4m3, "tl_to_e4m3", "tl_from_e4m3"},
	[T_E5M2] = {tl_to_e5m2, tl_from_e5m2, "tl_to_e5m2", "tl_from_e5m2"},
	[T_E2M3] = {tl_to_e2m3, tl_from_e2m3, "tl_to_e2m3", "tl_from_e2m3"},
	[T_E3M2] = {tl_to_e3m2, tl_from_e3m2, "tl_to_e3m2", "tl_from_e3m2"},
	[T_E2M1] = {tl_to_e2m1, tl_from_e2m1, "tl_to_e2m1", "tl_from_e2m1"},
	[T_UE8M0] = {tl_to_ue8m0, tl_from_ue8m0, "tl_to_ue8m0", "tl_from_ue8m0"},
	[T_UE4M3] = {tl_to_ue4m3, tl_from_ue4m3, "tl_to_ue4m3", "tl_from_ue4m3"},
};

bool
etype_is_minifloat(EType t)
{
	return t > T_NONE && t < T_COUNT && formats[t].to != NULL;
}

uint8_t
minifloat_encode(EType t, float x)
{
	return formats[t].to(x);
}

float
minifloat_decode(EType t, uint8_t byte)
{
	return formats[t].from(byte);
}

/* A constant converted to t: the f32 value of its byte, as the generated code computes it. */
double
minifloat_round(EType t, double v)
{
	return minifloat_decode(t, minifloat_encode(t, (float)v));
}

const char *minifloat_to_func(EType t) { return formats[t].to_name; }
const char *minifloat_from_func(EType t) { return formats[t].from_name; }
