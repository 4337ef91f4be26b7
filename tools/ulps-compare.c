/* ulps-compare.c: compares two files of f32 values (the CPU emulator's and the GPU's copy of one tensor)
 * within a tolerance, for tools/gpu-emu-check.sh, where a program calls a function that the GPU computes
 * otherwise than the emulator (erf, within 2 ulps: LANGUAGE.md 10.2; the approximations exp2_approx,
 * exp_approx, rcp_approx and rsqrt_approx, within 3, 3, 1 and 5: docs/emulator.md).
 *
 *   ulps-compare ulps N CPU GPU     every element at most N ulps from the CPU's
 *   ulps-compare scale N CPU GPU    every element at most N ulps of the tensor's largest |value| (the
 *                                   CPU's) from the CPU's: for results that carry a function's error
 *                                   through arithmetic that cancels (GELU's 1 + erf for negative x)
 *
 * A NaN matches any NaN; +0 and -0 are equal. Prints the largest difference and, when one is over, the
 * first such element; exit 0 within, 1 over, 2 on an error.
 * Build: cc -std=c11 -O2 -o ulps-compare tools/ulps-compare.c -lm */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ulps.h"

static float *
load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "ulps-compare: cannot open %s\n", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	float *p = malloc(size > 0 ? (size_t)size : 1);
	if (!p || size < 0 || size % 4 || fread(p, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "ulps-compare: cannot read %s as f32 values\n", path);
		fclose(f);
		free(p);
		return NULL;
	}
	fclose(f);
	*n = (size_t)size / 4;
	return p;
}

int
main(int argc, char **argv)
{
	if (argc != 5 || (strcmp(argv[1], "ulps") && strcmp(argv[1], "scale"))) {
		fprintf(stderr, "usage: ulps-compare ulps|scale N CPU GPU\n");
		return 2;
	}
	bool scale = !strcmp(argv[1], "scale");
	double limit = strtod(argv[2], NULL);
	size_t n, m;
	float *cpu = load(argv[3], &n), *gpu = load(argv[4], &m);
	if (!cpu || !gpu)
		return 2;
	if (n != m) {
		printf("%zu values against %zu\n", n, m);
		return 1;
	}
	double unit = 0; /* scale: one ulp of the largest |value| */
	for (size_t i = 0; scale && i < n; i++)
		if (isfinite(cpu[i]) && fabsf(cpu[i]) > unit)
			unit = fabsf(cpu[i]);
	if (scale) {
		int e;
		frexp(unit, &e);
		unit = ldexp(1.0, (unit > 0 ? e : -125) - 24);
	}
	double worst = 0;
	size_t over = 0, first = 0;
	for (size_t i = 0; i < n; i++) {
		float c = cpu[i], g = gpu[i];
		if (c != c || g != g) {
			if (c == c || g == g) {
				if (!over++)
					first = i;
			}
			continue;
		}
		double d = scale ? (isinf(c) || isinf(g) ? (c == g ? 0 : INFINITY) : fabs((double)g - (double)c) / unit)
		                 : (double)ulps(c, g);
		if (d > worst)
			worst = d;
		if (d > limit && !over++)
			first = i;
	}
	printf("largest difference %.3g ulps%s", worst, scale ? " of the largest value" : "");
	if (over)
		printf("; %zu over %g, the first element %zu: %.9g against %.9g", over, limit, first, (double)cpu[first],
		       (double)gpu[first]);
	printf("\n");
	return over != 0;
}
