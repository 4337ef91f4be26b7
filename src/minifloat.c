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

/* The arguments of the header's wrappers, for the PTX route (ue8m0 has its own functions). */
static const MiniFormat tables[T_COUNT] = {
	[T_E4M3] = {4, 3, 7, 1, 0x7e, 1, 0},
	[T_E5M2] = {5, 2, 15, 1, 0x7b, 2, 0},
	[T_E2M3] = {2, 3, 1, 1, 0x1f, 0, 0},
	[T_E3M2] = {3, 2, 3, 1, 0x1f, 0, 0},
	[T_E2M1] = {2, 1, 1, 1, 0x7, 0, 2},
	[T_UE4M3] = {4, 3, 7, 0, 0x7f, 0, 0},
};

const MiniFormat *
minifloat_format(EType t)
{
	return t == T_UE8M0 || !etype_is_minifloat(t) ? NULL : &tables[t];
}

uint8_t
minifloat_encode_table(EType t, float x)
{
	const MiniFormat *f = &tables[t];
	return (uint8_t)tl_mf_encode(x, f->ebits, f->mbits, f->bias, f->has_sign, f->maxmag, f->nan_kind, f->place);
}

float
minifloat_decode_table(EType t, uint8_t byte)
{
	const MiniFormat *f = &tables[t];
	return tl_mf_decode(byte, f->ebits, f->mbits, f->bias, f->has_sign, f->nan_kind, f->place);
}

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

/* Whether a tensor or scalar of type t may live where it is declared (kind; scalar: a scalar parameter);
   false after an error at loc. fp4 and fp6 are packed below a byte in memory, which tilec does not do yet. */
bool
minifloat_storage_ok(EType t, TensorKind kind, bool scalar, const char *name, Loc loc)
{
	if (!etype_is_minifloat(t))
		return true;
	if (scalar) {
		error(loc, "scalar parameter '%s' cannot have type %s: the 8-bit and narrower floats are element types of "
		           "tensors; pass an f32 and convert it with %s(...)", name, etype_name(t), etype_name(t));
		return false;
	}
	if ((kind == TK_GLOBAL || kind == TK_SHARED) && (t == T_E2M1 || t == T_E2M3 || t == T_E3M2)) {
		error(loc, "'%s': %s in %s memory is packed %s, which tilec does not support yet; keep %s values in "
		           "registers or TMEM (one byte each), or move their bytes as u8", name, etype_name(t),
		      kind == TK_GLOBAL ? "global" : "shared", t == T_E2M1 ? "two to a byte" : "four to three bytes",
		      t == T_E2M1 ? "fp4" : "fp6");
		return false;
	}
	return true;
}

/* tilec run's host code after tl_host_fill of tensor slot of type t (random bytes below 200, as for u8): a
   byte that is not a finite value's own code (NaN, an infinity, ue4m3's unused bit 7 set) keeps its low 6
   bits, which are one in every format: inputs of these types hold finite values. Without the helpers the
   kernel never converts the tensor. */
void
minifloat_run_fill(Buf *b, int slot, EType t)
{
	buf_printf(b, "#ifdef TILEC_MINIFLOAT_H\n"
	              "\tfor (size_t e = 0; e < t[%d].storage; e++) {\n"
	              "\t\tunsigned char *c = (unsigned char *)t[%d].data + e;\n"
	              "\t\tfloat v = %s(*c);\n"
	              "\t\tif (!(v - v == 0) || %s(v) != *c)\n"
	              "\t\t\t*c &= 0x3f;\n"
	              "\t}\n"
	              "\tmemcpy(t[%d].init, t[%d].data, t[%d].storage);\n"
	              "#endif\n",
	           slot, slot, minifloat_from_func(t), minifloat_to_func(t), slot, slot, slot);
}
