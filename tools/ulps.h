/* ulps.h: the distance in units in the last place between two floats, for the programs that compare
 * f32 results (tools/ulps-compare.c, tests/emu/gemm_epilogue_check.c, tests/unit/test_math.c). */
#ifndef TILEC_ULPS_H
#define TILEC_ULPS_H
#include <stdint.h>
#include <string.h>

/* the number of floats between a and b (their order as integers) */
static inline int64_t
ulps(float a, float b)
{
	int32_t i, j;
	memcpy(&i, &a, 4);
	memcpy(&j, &b, 4);
	int64_t x = i < 0 ? (int64_t)INT32_MIN - i : i, y = j < 0 ? (int64_t)INT32_MIN - j : j;
	return x > y ? x - y : y - x;
}
#endif
