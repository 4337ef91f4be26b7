/* amax_fp8_dump_check.c DIR: checks what `tilec run examples/amax_fp8.tile --dump DIR` wrote against a
 * reference computed here: amax = max |A| over the 128 x 128 tile, scale = 448 / amax (one f32
 * division, so the same bits), and each Q code the e4m3 value nearest to the f32 product A * scale, a
 * tie to the even code, saturated at +-448: the codes must be equal, no tolerance. The reference finds
 * the nearest of the 127 finite codes by search, not by the bit manipulation tilec uses. Prints one
 * PASS or FAIL line. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROWS = 128, COLS = 128 };

static void *
load(const char *dir, const char *file, size_t bytes)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "rb");
	void *p = malloc(bytes);
	if (!f || !p || fread(p, 1, bytes, f) != bytes) {
		printf("FAIL emu/example/amax_fp8: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return p;
}

/* the value of the non-negative e4m3 code c (0 .. 0x7e): exponent bias 7, subnormals below 2^-6 */
static double
e4m3_value(int c)
{
	int e = c >> 3, m = c & 7;
	return e == 0 ? ldexp(m, -9) : ldexp(8 + m, e - 10);
}

/* the e4m3 code of x: the nearest value, ties to the even code, beyond 448 saturated */
static uint8_t
e4m3_code(float x)
{
	double a = fabs((double)x);
	int best = 0;
	for (int c = 1; c <= 0x7e; c++) {
		double d = fabs(e4m3_value(c) - a), b = fabs(e4m3_value(best) - a);
		if (d < b || (d == b && c % 2 == 0))
			best = c;
	}
	return (uint8_t)(best | (signbit(x) ? 0x80 : 0));
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: amax_fp8_dump_check DIR\n");
		return 2;
	}
	float *a = load(argv[1], "0.in", 4 * ROWS * COLS), *scale_out = load(argv[1], "2.out", 4);
	uint8_t *q = load(argv[1], "1.out", ROWS * COLS);
	float amax = 0.0f;
	for (int i = 0; i < ROWS * COLS; i++)
		amax = fmaxf(amax, fabsf(a[i]));
	float scale = amax > 0.0f ? 448.0f / amax : 1.0f;
	if (memcmp(scale_out, &scale, 4) != 0) {
		printf("FAIL emu/example/amax_fp8: Scale[0] = %.9g, the reference gives %.9g (amax %.9g)\n",
		       (double)*scale_out, (double)scale, (double)amax);
		return 1;
	}
	int full_scale = 0;
	for (int i = 0; i < ROWS * COLS; i++) {
		uint8_t want = e4m3_code(a[i] * scale);
		if (q[i] != want) {
			printf("FAIL emu/example/amax_fp8: Q[%d, %d] = 0x%02x, the reference gives 0x%02x (A = %.9g)\n",
			       i / COLS, i % COLS, q[i], want, (double)a[i]);
			return 1;
		}
		full_scale += (want & 0x7f) == 0x7e;
	}
	if (full_scale == 0) {
		printf("FAIL emu/example/amax_fp8: no element reached 448, though amax should\n");
		return 1;
	}
	printf("PASS emu/example/amax_fp8/amax=%.9g (scale %.9g, %d codes at +-448)\n", (double)amax, (double)scale,
	       full_scale);
	return 0;
}
