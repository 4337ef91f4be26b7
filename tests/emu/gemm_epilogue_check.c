/* gemm_epilogue_check.c DIR M N LDC LDD ALPHA BETA: checks what `tilec run examples/gemm_epilogue.tile
 * --dump DIR` wrote against a reference computed here: D[i, j] = GELU(alpha * Acc[i, j] + beta * C[i, j])
 * inside the M x N matrix (the same f32 steps, erf from the C library: within 4 ulps), and D's padding
 * columns N .. LDD-1 unchanged. Prints one PASS or FAIL line. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../tools/ulps.h"

static float *
load(const char *dir, const char *name, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	float *p = malloc(n * sizeof *p);
	if (!f || !p || fread(p, sizeof *p, n, f) != n) {
		printf("FAIL emu/gemm_epilogue: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return p;
}

int
main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: gemm_epilogue_check DIR M N LDC LDD ALPHA BETA\n");
		return 2;
	}
	const char *dir = argv[1];
	size_t m = strtoull(argv[2], NULL, 0), n = strtoull(argv[3], NULL, 0), ldc = strtoull(argv[4], NULL, 0),
	       ldd = strtoull(argv[5], NULL, 0);
	float alpha = strtof(argv[6], NULL), beta = strtof(argv[7], NULL);
	size_t cs = (m - 1) * ldc + n, ds = (m - 1) * ldd + n;
	float *acc = load(dir, "0.in", m * n), *c = load(dir, "1.in", cs), *din = load(dir, "2.in", ds),
	      *dout = load(dir, "2.out", ds);
	int64_t worst = 0;
	size_t bad = 0;
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < ldd && i * ldd + j < ds; j++) {
			float got = dout[i * ldd + j];
			if (j >= n) {
				if (memcmp(&got, &din[i * ldd + j], 4) != 0 && !bad++)
					printf("FAIL emu/gemm_epilogue/%zux%zu: padding D[%zu, %zu] was written\n", m, n, i, j);
				continue;
			}
			float x = fmaf(beta, c[i * ldc + j], alpha * acc[i * n + j]);
			float want = 0.5f * x * (1.0f + (float)erf((double)(x * 0.707106781f)));
			int64_t e = ulps(got, want);
			if (e > worst)
				worst = e;
			if (e > 4 && fabsf(got - want) > 1e-6f && !bad++)
				printf("FAIL emu/gemm_epilogue/%zux%zu: D[%zu, %zu] = %.9g, the reference gives %.9g\n", m, n, i, j,
				       (double)got, (double)want);
		}
	}
	if (!bad)
		printf("PASS emu/gemm_epilogue/%zux%zu (ldc %zu, ldd %zu; at most %lld ulps from the reference)\n", m, n, ldc,
		       ldd, (long long)worst);
	return bad != 0;
}
