/* test_bits.c: half_bits (vectorize.c), the f16 and bf16 bits of a constant, against a decoder of
 * every 16-bit pattern: each value gives back its own bits, each midpoint rounds to the even
 * neighbour (a constant is an f32 first, so the values beside a midpoint are its f32 neighbours),
 * and values beyond the range or below half the least subnormal give infinity or zero. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tilec.h"
#include "unit.h"

static double
f16_value(uint32_t h)
{
	int exp = (int)((h >> 10) & 0x1f), man = (int)(h & 0x3ff);
	double v = exp ? ldexp(1024 + man, exp - 25) : ldexp(man, -24);
	if (exp == 0x1f)
		v = man ? NAN : INFINITY;
	return h & 0x8000u ? -v : v;
}

static double
bf16_value(uint32_t h)
{
	uint32_t b = h << 16;
	float f;
	memcpy(&f, &b, 4);
	return f;
}

START_TEST(f16_every_value)
{
	for (uint32_t h = 0; h < 0x10000; h++) {
		if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu))
			continue; /* NaNs: below */
		ck_assert_msg(half_bits(f16_value(h), T_F16) == h, "f16 0x%04x", h);
	}
	/* every NaN converts to the canonical 0x7fff, as cvt.rn.f16.f32 gives and the emulator's tl_f2h */
	ck_assert_uint_eq(half_bits(NAN, T_F16), 0x7fffu);
	ck_assert_uint_eq(half_bits(-NAN, T_F16), 0x7fffu);
}
END_TEST

START_TEST(f16_rounding)
{
	/* between neighbours h and h + 1 (both finite, same sign): the midpoint goes to the even one */
	for (uint32_t h = 0; h < 0x7bff; h++) {
		double mid = (f16_value(h) + f16_value(h + 1)) / 2;
		uint32_t even = h & 1u ? h + 1 : h;
		ck_assert_msg(half_bits(mid, T_F16) == even, "midpoint after 0x%04x", h);
		ck_assert_uint_eq(half_bits(-mid, T_F16), even | 0x8000u);
		ck_assert_uint_eq(half_bits(nextafterf((float)mid, 0), T_F16), h);
		ck_assert_uint_eq(half_bits(nextafterf((float)mid, 1e9f), T_F16), h + 1);
	}
	ck_assert_uint_eq(half_bits(65519.0, T_F16), 0x7bffu);
	ck_assert_uint_eq(half_bits(65520.0, T_F16), 0x7c00u);
	ck_assert_uint_eq(half_bits(1e30, T_F16), 0x7c00u);
	ck_assert_uint_eq(half_bits(-1e30, T_F16), 0xfc00u);
	ck_assert_uint_eq(half_bits(ldexp(1, -25), T_F16), 0u);     /* half the least subnormal: to even */
	ck_assert_uint_eq(half_bits(ldexp(1.5, -25), T_F16), 1u);
	ck_assert_uint_eq(half_bits(1e-10, T_F16), 0u);
	ck_assert_uint_eq(half_bits(-1e-30, T_F16), 0x8000u);
	ck_assert_uint_eq(half_bits(1e-40, T_F16), 0u);             /* an f32 subnormal */
}
END_TEST

START_TEST(bf16_values)
{
	for (uint32_t h = 0; h < 0x10000; h++) {
		if ((h & 0x7f80u) == 0x7f80u && (h & 0x7fu))
			continue;
		ck_assert_msg(half_bits(bf16_value(h), T_BF16) == h, "bf16 0x%04x", h);
	}
	for (uint32_t h = 0; h < 0x7f7f; h += 7) {
		double mid = (bf16_value(h) + bf16_value(h + 1)) / 2;
		ck_assert_uint_eq(half_bits(mid, T_BF16), h & 1u ? h + 1 : h);
	}
	ck_assert_uint_eq(half_bits(NAN, T_BF16), 0x7fffu);
	ck_assert_uint_eq(half_bits(-NAN, T_BF16), 0x7fffu);
}
END_TEST

static Suite *
bits_suite(void)
{
	Suite *s = suite_create("bits");
	TCase *tc = tcase_create("half_bits");
	tcase_add_test(tc, f16_every_value);
	tcase_add_test(tc, f16_rounding);
	tcase_add_test(tc, bf16_values);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(bits_suite)
