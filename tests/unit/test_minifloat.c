/* test_minifloat.c: every byte of e4m3 e5m2 e2m3 e3m2 e2m1 ue8m0 ue4m3 decoded, and f32 values at every rounding boundary encoded, against values this test derives from the formats' definitions (bias, exponent and mantissa bits, NaN and infinity rules), never from minifloat.c. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tilec.h"
#include "unit.h"

/* A format as the OCP MX specification and the language define it. */
typedef struct Format {
	EType type;
	int ebits, mbits, bias;
	bool has_sign;
	int nan;        /* 0: none; 1: magnitude all ones (e4m3); 2: exponent all ones, mantissa not 0 (e5m2) */
	bool inf;       /* exponent all ones, mantissa 0 is infinity (e5m2) */
	int place;      /* the code's lowest bit in its byte */
} Format;

static const Format formats[] = {
	{T_E4M3, 4, 3, 7, true, 1, false, 0},
	{T_E5M2, 5, 2, 15, true, 2, true, 0},
	{T_E2M3, 2, 3, 1, true, 0, false, 0},
	{T_E3M2, 3, 2, 3, true, 0, false, 0},
	{T_E2M1, 2, 1, 1, true, 0, false, 2},
	{T_UE4M3, 4, 3, 7, false, 0, false, 0},
};
enum { NFORMATS = sizeof formats / sizeof formats[0] };

static int
code_bits(const Format *f)
{
	return f->ebits + f->mbits + (f->has_sign ? 1 : 0);
}

/* The value of a code: NAN for a NaN, +-INFINITY for an infinity. */
static double
code_value(const Format *f, unsigned code)
{
	unsigned magbits = (unsigned)(f->ebits + f->mbits);
	unsigned mag = code & ((1u << magbits) - 1), e = mag >> f->mbits, m = mag & ((1u << f->mbits) - 1);
	double sign = f->has_sign && (code >> magbits & 1u) ? -1.0 : 1.0;
	unsigned eall = (1u << f->ebits) - 1;
	if (f->nan == 1 && mag == (1u << magbits) - 1)
		return NAN;
	if (f->nan == 2 && e == eall && m != 0)
		return NAN;
	if (f->inf && e == eall)
		return sign * INFINITY;
	double frac = (double)m / (double)(1u << f->mbits);
	return sign * (e == 0 ? ldexp(frac, 1 - f->bias) : ldexp(1.0 + frac, (int)e - f->bias));
}

static uint32_t
f32_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

static float
f32_of(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

START_TEST(decode_every_byte)
{
	for (int i = 0; i < NFORMATS; i++) {
		const Format *f = &formats[i];
		unsigned mask = (1u << code_bits(f)) - 1;
		for (unsigned byte = 0; byte < 256; byte++) {
			double want = code_value(f, (byte >> f->place) & mask);
			float got = minifloat_decode(f->type, (uint8_t)byte);
			if (isnan(want))
				ck_assert_msg(f32_bits(got) == 0x7fffffffu, "%s 0x%02x: 0x%08x, want the NaN 0x7fffffff",
				              etype_name(f->type), byte, f32_bits(got));
			else
				ck_assert_msg(f32_bits(got) == f32_bits((float)want), "%s 0x%02x: %a, want %a",
				              etype_name(f->type), byte, (double)got, want);
		}
	}
	for (unsigned b = 0; b < 256; b++) {
		float got = minifloat_decode(T_UE8M0, (uint8_t)b);
		if (b == 255)
			ck_assert_uint_eq(f32_bits(got), 0x7fffffffu);
		else
			ck_assert_msg((double)got == ldexp(1.0, (int)b - 127), "ue8m0 0x%02x: %a", b, (double)got);
	}
}
END_TEST

/* The byte f32 x converts to, by search: the nearest finite code (ties to the even magnitude), a value at
   or beyond the largest finite magnitude that magnitude, NaN the NaN code or the largest magnitude, a
   negative value 0 in an unsigned format. */
static unsigned
nearest_code(const Format *f, float x)
{
	unsigned magbits = (unsigned)(f->ebits + f->mbits), best = 0, maxmag = 0;
	double maxval = 0;
	for (unsigned mag = 0; mag < 1u << magbits; mag++) {
		double v = code_value(f, mag);
		if (isfinite(v) && v > maxval) {
			maxval = v;
			maxmag = mag;
		}
	}
	unsigned nan_code = f->nan == 1 ? (1u << magbits) - 1 : f->nan == 2 ? (1u << magbits) - 1 : maxmag;
	if (isnan(x))
		return nan_code << f->place;
	bool neg = signbit(x);
	if (neg && !f->has_sign)
		return 0;
	double a = fabs((double)x);
	unsigned mag;
	if (a >= maxval) {
		mag = maxmag;
	} else {
		double best_d = INFINITY;
		for (unsigned c = 0; c <= maxmag; c++) {
			double v = code_value(f, c);
			if (!isfinite(v))
				continue;
			double d = fabs(a - v);
			if (d < best_d || (d == best_d && !(c & 1u))) {
				best_d = d;
				best = c;
			}
		}
		mag = best;
	}
	return ((neg ? 1u << magbits : 0) | mag) << f->place;
}

/* The values next to v in f32: v itself, one f32 step below and above, for both signs. */
static void
check_around(const Format *f, double v)
{
	float base = (float)v;
	float xs[] = {base, nextafterf(base, 0), nextafterf(base, INFINITY), -base, -nextafterf(base, 0),
	              -nextafterf(base, INFINITY)};
	for (unsigned k = 0; k < sizeof xs / sizeof xs[0]; k++) {
		unsigned want = nearest_code(f, xs[k]), got = minifloat_encode(f->type, xs[k]);
		ck_assert_msg(got == want, "%s(%a): 0x%02x, want 0x%02x", etype_name(f->type), (double)xs[k], got, want);
	}
}

START_TEST(encode_boundaries)
{
	for (int i = 0; i < NFORMATS; i++) {
		const Format *f = &formats[i];
		unsigned magbits = (unsigned)(f->ebits + f->mbits);
		double prev = -1;
		for (unsigned mag = 0; mag < 1u << magbits; mag++) {
			double v = code_value(f, mag);
			if (!isfinite(v))
				continue;
			check_around(f, v);
			if (prev >= 0)
				check_around(f, (prev + v) / 2); /* the midpoint: a tie */
			prev = v;
		}
		/* beyond the largest: a step past it, its midpoint with the next binade, far out, f32's largest */
		check_around(f, prev * 1.0625);
		check_around(f, prev * 2);
		check_around(f, 0x1.fffffep127);
		check_around(f, 0x1p-149); /* f32 subnormals */
		check_around(f, 0x1p-130);
		float specials[] = {INFINITY, -INFINITY, NAN, -NAN, 0.0f, -0.0f};
		for (unsigned k = 0; k < sizeof specials / sizeof specials[0]; k++)
			ck_assert_uint_eq(minifloat_encode(f->type, specials[k]), nearest_code(f, specials[k]));
	}
}
END_TEST

/* Every 8191st f32 bit pattern, so every exponent and many mantissas, against the search. */
START_TEST(encode_sweep)
{
	for (int i = 0; i < NFORMATS; i++)
		for (uint64_t u = 0; u < 1ull << 32; u += 8191) {
			float x = f32_of((uint32_t)u);
			unsigned want = nearest_code(&formats[i], x), got = minifloat_encode(formats[i].type, x);
			ck_assert_msg(got == want, "%s(0x%08x): 0x%02x, want 0x%02x", etype_name(formats[i].type),
			              (unsigned)u, got, want);
		}
}
END_TEST

/* ue8m0: 2^(b - 127); to nearest in value, ties to the even code; at most 2^127 and at least 2^-127 (a
   negative value too). */
static unsigned
ue8m0_nearest(float x)
{
	if (isnan(x))
		return 255;
	if (signbit(x))
		return 0; /* no sign: the least value */
	double a = (double)x, best_d = INFINITY;
	unsigned best = 0;
	for (unsigned b = 0; b < 255; b++) {
		double d = fabs(a - ldexp(1.0, (int)b - 127));
		if (d < best_d || (d == best_d && !(b & 1u))) {
			best_d = d;
			best = b;
		}
	}
	return best;
}

START_TEST(ue8m0_encode)
{
	for (int b = 0; b < 255; b++) {
		double v = ldexp(1.0, b - 127);
		double pts[] = {v, v * 1.5, v * 0.75};
		for (unsigned k = 0; k < 3; k++) {
			float xs[] = {(float)pts[k], nextafterf((float)pts[k], 0), nextafterf((float)pts[k], INFINITY),
			              -(float)pts[k]};
			for (unsigned j = 0; j < 4; j++)
				ck_assert_msg(minifloat_encode(T_UE8M0, xs[j]) == ue8m0_nearest(xs[j]), "ue8m0(%a): %u, want %u",
				              (double)xs[j], minifloat_encode(T_UE8M0, xs[j]), ue8m0_nearest(xs[j]));
		}
	}
	float specials[] = {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 0x1p-149f, 0x1.fffffep127f};
	for (unsigned k = 0; k < sizeof specials / sizeof specials[0]; k++)
		ck_assert_uint_eq(minifloat_encode(T_UE8M0, specials[k]), ue8m0_nearest(specials[k]));
	for (uint64_t u = 0; u < 1ull << 32; u += 65521) {
		float x = f32_of((uint32_t)u);
		ck_assert_msg(minifloat_encode(T_UE8M0, x) == ue8m0_nearest(x), "ue8m0(0x%08x)", (unsigned)u);
	}
}
END_TEST

/* Saturation and NaN as the language states them, spelled out for the record. */
START_TEST(named_values)
{
	ck_assert_uint_eq(minifloat_encode(T_E4M3, 1e9f), 0x7e);   /* 448 */
	ck_assert_uint_eq(minifloat_encode(T_E4M3, -INFINITY), 0xfe);
	ck_assert_uint_eq(minifloat_encode(T_E4M3, NAN), 0x7f);
	ck_assert_uint_eq(minifloat_encode(T_E5M2, INFINITY), 0x7b); /* 57344, not infinity */
	ck_assert_uint_eq(minifloat_encode(T_E2M3, NAN), 0x1f);      /* 7.5 */
	ck_assert_uint_eq(minifloat_encode(T_E3M2, 1e9f), 0x1f);     /* 28 */
	ck_assert_uint_eq(minifloat_encode(T_E2M1, -6.5f), 0xf << 2); /* -6 in bits 5..2 */
	ck_assert_uint_eq(minifloat_encode(T_E2M1, 0.25f), 0);        /* a tie: to the even 0 */
	ck_assert_uint_eq(minifloat_encode(T_E2M1, 0.75f), 2 << 2);   /* a tie: to the even 1.0 */
	ck_assert_uint_eq(minifloat_encode(T_UE4M3, -1.0f), 0);
	ck_assert_uint_eq(minifloat_encode(T_UE4M3, NAN), 0x7f);      /* 480: ue4m3 has no NaN */
	ck_assert(minifloat_decode(T_UE4M3, 0x7f) == 480.0f);
	ck_assert(minifloat_decode(T_E2M1, 0x3c) == -6.0f);
	ck_assert(isinf(minifloat_decode(T_E5M2, 0xfc)) && minifloat_decode(T_E5M2, 0xfc) < 0);
}
END_TEST

/* The format table the PTX route takes its constants from says what the header's wrappers say. */
START_TEST(table_matches_wrappers)
{
	for (int i = 0; i < NFORMATS; i++) {
		EType t = formats[i].type;
		ck_assert_ptr_nonnull(minifloat_format(t));
		for (unsigned b = 0; b < 256; b++)
			ck_assert_uint_eq(f32_bits(minifloat_decode_table(t, (uint8_t)b)), f32_bits(minifloat_decode(t, (uint8_t)b)));
		for (uint64_t u = 0; u < 1ull << 32; u += 65521)
			ck_assert_uint_eq(minifloat_encode_table(t, f32_of((uint32_t)u)), minifloat_encode(t, f32_of((uint32_t)u)));
	}
	ck_assert_ptr_null(minifloat_format(T_UE8M0));
}
END_TEST

/* One case per test, so that each prints its own PASS line. */
static void
add_case(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

static Suite *
minifloat_suite(void)
{
	Suite *s = suite_create("minifloat");
	add_case(s, "minifloat_decode_every_byte", decode_every_byte);
	add_case(s, "minifloat_encode_boundaries", encode_boundaries);
	add_case(s, "minifloat_encode_sweep", encode_sweep);
	add_case(s, "minifloat_ue8m0_encode", ue8m0_encode);
	add_case(s, "minifloat_named_values", named_values);
	add_case(s, "minifloat_table_matches_wrappers", table_matches_wrappers);
	return s;
}

UNIT_MAIN(minifloat_suite)
