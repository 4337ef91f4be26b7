/* epilogue_check.c DIR M N LDC LDD ALPHA BETA: checks what `tilec run examples/embed/epilogue_test.tile
 * --dump DIR` wrote against a reference computed here: inside the M x N matrix
 *     v = fma(alpha, Acc[i, j], fma(beta, C[i, j], bias[j])),  D[i, j] = bf16(0.5 * v * (1 + erf(v * 0.707106781)))
 * with the same f32 steps (erf from the C library, which may differ from tilec's by an ulp or two, so
 * the bf16 result may differ by one unit after rounding), and D's padding columns N .. LDD-1 unchanged.
 * Prints one PASS or FAIL line (NAME from $CHECK_NAME, default embed/epilogue). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *name = "embed/epilogue";

static void *
load(const char *dir, const char *file, size_t n, size_t size)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "rb");
	void *p = malloc(n * size);
	if (!f || !p || fread(p, size, n, f) != n) {
		printf("FAIL %s: cannot read %zu elements of %s\n", name, n, path);
		exit(1);
	}
	fclose(f);
	return p;
}

/* round to nearest even, as cvt.rn.bf16.f32 (the values here are finite) */
static uint16_t
to_bf16(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float
from_bf16(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float x;
	memcpy(&x, &u, 4);
	return x;
}

int
main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: epilogue_check DIR M N LDC LDD ALPHA BETA\n");
		return 2;
	}
	if (getenv("CHECK_NAME"))
		name = getenv("CHECK_NAME");
	const char *dir = argv[1];
	size_t m = strtoull(argv[2], NULL, 0), n = strtoull(argv[3], NULL, 0), ldc = strtoull(argv[4], NULL, 0),
	       ldd = strtoull(argv[5], NULL, 0);
	float alpha = strtof(argv[6], NULL), beta = strtof(argv[7], NULL);
	size_t cs = (m - 1) * ldc + n, ds = (m - 1) * ldd + n;
	float *acc = load(dir, "0.in", m * n, 4), *c = load(dir, "1.in", cs, 4), *bias = load(dir, "2.in", n, 4);
	uint16_t *din = load(dir, "3.in", ds, 2), *dout = load(dir, "3.out", ds, 2);
	size_t exact = 0, near = 0, bad = 0;
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < ldd && i * ldd + j < ds; j++) {
			size_t at = i * ldd + j;
			if (j >= n) {
				if (dout[at] != din[at]) {
					if (!bad)
						printf("FAIL %s: padding D[%zu, %zu] changed from 0x%04x to 0x%04x\n", name, i, j, din[at],
						       dout[at]);
					bad++;
				}
				continue;
			}
			volatile float v = fmaf(alpha, acc[i * n + j], fmaf(beta, c[i * ldc + j], bias[j]));
			volatile float half = 0.5f * v, e = 1.0f + erff(v * 0.707106781f);
			uint16_t want = to_bf16(half * e), got = dout[at];
			int diff = abs((int)(int16_t)want - (int)(int16_t)got);
			if (got == want) {
				exact++;
			} else if (diff == 1 && (want & 0x8000) == (got & 0x8000)) {
				near++;
			} else {
				if (!bad)
					printf("FAIL %s: D[%zu, %zu] is %.9g (0x%04x), expected %.9g (0x%04x)\n", name, i, j,
					       from_bf16(got), got, from_bf16(want), want);
				bad++;
			}
		}
	}
	if (bad) {
		printf("    %zu element(s) wrong of %zu\n", bad, m * ldd);
		return 1;
	}
	printf("PASS %s (%zu x %zu: %zu elements exact, %zu one bf16 unit off; padding unchanged)\n", name, m, n, exact,
	       near);
	return 0;
}
