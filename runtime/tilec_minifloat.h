// tilec_minifloat.h: the conversions between f32 and the 8-bit and narrower element types (e4m3 e5m2 e2m3 e3m2 e2m1 ue8m0 ue4m3), in integer arithmetic only, one text for tilec's constant folding, the CUDA C target and the emulator on the GPU and the CPU.
// Every type is held in one byte (a register or TMEM byte): the code in the low bits, except e2m1 whose code
// sits in bits 5..2 as tcgen05.cp's decompression leaves it. To f32: exact (NaN: 0x7fffffff). From f32: to
// nearest, ties to even, saturated to the largest finite magnitude (infinities too); NaN gives the type's NaN
// (e4m3 0x7f, e5m2 0x7f, ue8m0 0xff) or, where the type has none, the largest finite value; a negative value
// gives 0 in ue4m3 and the least value 2^-127 in ue8m0, which have no sign.
// The includer defines TL_MF_FN (the functions' qualifiers), __float_as_uint and __uint_as_float.
#ifndef TILEC_MINIFLOAT_H
#define TILEC_MINIFLOAT_H

// A format: exponent and mantissa bits, bias, a sign bit above them, the largest finite magnitude, how NaN
// and infinity are encoded (0 none, 1 the all-ones magnitude is NaN (e4m3), 2 an all-ones exponent is
// infinity (mantissa 0) or NaN (e5m2)), and the code's place in its byte.
TL_MF_FN unsigned
tl_mf_encode(float x, unsigned ebits, unsigned mbits, int bias, unsigned has_sign, unsigned maxmag, unsigned nan_kind,
             unsigned place)
{
	unsigned u = __float_as_uint(x), sign = u >> 31, a = u & 0x7fffffffu, mag;
	if (a > 0x7f800000u)
		return (nan_kind ? (1u << (ebits + mbits)) - 1 : maxmag) << place;
	if (sign && !has_sign)
		return 0;
	int e = (int)(a >> 23) - 127 + bias; // the biased exponent in the format, if normal there
	unsigned shift = 23 - mbits + (e < 1 ? (unsigned)(1 - e) : 0);
	if (a >> 23 == 0 || shift > 24) {
		mag = 0; // below half the least subnormal (f32 subnormals and zero too)
	} else {
		unsigned sig = (a & 0x7fffffu) | 0x800000u, q = sig >> shift, rest = sig & ((1u << shift) - 1);
		unsigned half = 1u << (shift - 1);
		q += rest > half || (rest == half && (q & 1u));
		// a normal's q holds the hidden bit: a carry out of the mantissa moves to the exponent by itself
		mag = e < 1 ? q : e > 64 ? maxmag + 1 : ((unsigned)e << mbits) + q - (1u << mbits);
	}
	if (mag > maxmag)
		mag = maxmag;
	return (has_sign ? sign << (ebits + mbits) | mag : mag) << place;
}

TL_MF_FN float
tl_mf_decode(unsigned byte, unsigned ebits, unsigned mbits, int bias, unsigned has_sign, unsigned nan_kind,
             unsigned place)
{
	unsigned code = byte >> place, mbits_all = ebits + mbits;
	unsigned sign = has_sign ? (code >> mbits_all) & 1u : 0, mag = code & ((1u << mbits_all) - 1);
	unsigned e = mag >> mbits, m = mag & ((1u << mbits) - 1);
	if ((nan_kind == 1 && mag == (1u << mbits_all) - 1) || (nan_kind == 2 && e == (1u << ebits) - 1 && m))
		return __uint_as_float(0x7fffffffu);
	if (nan_kind == 2 && e == (1u << ebits) - 1)
		return __uint_as_float(sign << 31 | 0x7f800000u);
	if (e == 0) {
		if (m == 0)
			return __uint_as_float(sign << 31);
		// a subnormal: m * 2^(1 - bias - mbits), normalised at m's highest bit p
		int p = 0;
		while (m >> (p + 1))
			p++;
		unsigned fe = (unsigned)(1 - bias - (int)mbits + p + 127);
		return __uint_as_float(sign << 31 | fe << 23 | (m - (1u << p)) << (23 - p));
	}
	return __uint_as_float(sign << 31 | (unsigned)((int)e - bias + 127) << 23 | m << (23 - mbits));
}

// ue8m0: 2^(b - 127) for b < 255, 255 NaN; to nearest in value (the midpoint of 2^k and 2^(k+1) is
// 1.5 * 2^k), ties to the even code.
TL_MF_FN unsigned char
tl_to_ue8m0(float x)
{
	unsigned u = __float_as_uint(x), a = u & 0x7fffffffu;
	if (a > 0x7f800000u)
		return 0xff;
	if (u >> 31 || a <= 0x00600000u)
		return 0; // at most 1.5 * 2^-127, the tie going to the even 0
	if (a < 0x00800000u)
		return 1; // above 1.5 * 2^-127, below 2^-126
	unsigned b = a >> 23, man = a & 0x7fffffu;
	b += man > 0x400000u || (man == 0x400000u && (b & 1u));
	return (unsigned char)(b > 254 ? 254 : b);
}

TL_MF_FN float
tl_from_ue8m0(unsigned char b)
{
	return __uint_as_float(b == 255 ? 0x7fffffffu : b ? (unsigned)b << 23 : 0x00400000u);
}

TL_MF_FN unsigned char tl_to_e4m3(float x) { return (unsigned char)tl_mf_encode(x, 4, 3, 7, 1, 0x7e, 1, 0); }
TL_MF_FN unsigned char tl_to_e5m2(float x) { return (unsigned char)tl_mf_encode(x, 5, 2, 15, 1, 0x7b, 2, 0); }
TL_MF_FN unsigned char tl_to_e2m3(float x) { return (unsigned char)tl_mf_encode(x, 2, 3, 1, 1, 0x1f, 0, 0); }
TL_MF_FN unsigned char tl_to_e3m2(float x) { return (unsigned char)tl_mf_encode(x, 3, 2, 3, 1, 0x1f, 0, 0); }
TL_MF_FN unsigned char tl_to_e2m1(float x) { return (unsigned char)tl_mf_encode(x, 2, 1, 1, 1, 0x7, 0, 2); }
TL_MF_FN unsigned char tl_to_ue4m3(float x) { return (unsigned char)tl_mf_encode(x, 4, 3, 7, 0, 0x7f, 0, 0); }
TL_MF_FN float tl_from_e4m3(unsigned char b) { return tl_mf_decode(b, 4, 3, 7, 1, 1, 0); }
TL_MF_FN float tl_from_e5m2(unsigned char b) { return tl_mf_decode(b, 5, 2, 15, 1, 2, 0); }
TL_MF_FN float tl_from_e2m3(unsigned char b) { return tl_mf_decode(b & 0x3fu, 2, 3, 1, 1, 0, 0); }
TL_MF_FN float tl_from_e3m2(unsigned char b) { return tl_mf_decode(b & 0x3fu, 3, 2, 3, 1, 0, 0); }
TL_MF_FN float tl_from_e2m1(unsigned char b) { return tl_mf_decode(b & 0x3cu, 2, 1, 1, 1, 0, 2); }
TL_MF_FN float tl_from_ue4m3(unsigned char b) { return tl_mf_decode(b & 0x7fu, 4, 3, 7, 0, 0, 0); }

#endif
