/* gemm_mxfp8_dump_check.c DIR: checks what `tilec run examples/gemm_mxfp8.tile --dump DIR` wrote. D = (A * SA)
 * (B * SB)^T with A e4m3 [M, K] (row stride lda), B e4m3 [N, K] (ldb), the scale of row i and K block kb
 * 2^(SA[i, kb] % 9 - 4) (SA, SB u8 [M or N, KS], stride lds) and D f32 [M, N] (ldd); sizes from DIR/manifest.
 * Each D[i, j] inside M x N must equal, bit for bit, acc accumulated as the emulator documents for a
 * block-scaled mma (docs/emulator.md: f32, k ascending over the 128-wide K steps, one fmaf(a * sa, b * sb, acc)
 * each, the first onto -0; the K past K of the last step holds zeros, scaled by 1), and lie within
 * 1e-5 * sum_k |a sa b sb| of the exact value in double precision (the tolerance a GPU run is held to:
 * hardware's order of accumulation is not documented). D's elements outside M x N (the columns N .. ldd - 1)
 * must be unchanged. Prints one PASS or FAIL line. */
#define DUMP_TEST "emu/example/gemm_mxfp8"
#include <math.h>
#include "dump_read.h"

/* the value of e4m3 code c (sign, 4 exponent bits of bias 7, 3 mantissa bits; exponent 0 is subnormal); the
   inputs hold no NaN (0x7f, 0xff) */
static float
e4m3(uint8_t c)
{
	int e = c >> 3 & 15, m = c & 7;
	float v = e ? ldexpf(1.0f + m / 8.0f, e - 7) : ldexpf(m / 8.0f, -6);
	return c & 0x80 ? -v : v;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gemm_mxfp8_dump_check DIR\n");
		return 2;
	}
	const char *dir = argv[1];
	long m = scalar(dir, "M"), n = scalar(dir, "N"), k = scalar(dir, "K"), ks = scalar(dir, "KS");
	long lda = scalar(dir, "lda"), ldb = scalar(dir, "ldb"), lds = scalar(dir, "lds"), ldd = scalar(dir, "ldd");
	size_t as = (size_t)((m - 1) * lda + k), bs = (size_t)((n - 1) * ldb + k), sas = (size_t)((m - 1) * lds + ks),
	       sbs = (size_t)((n - 1) * lds + ks), ds = (size_t)((m - 1) * ldd + n);
	uint8_t *a = load(dir, "0.in", as), *b = load(dir, "1.in", bs), *sa = load(dir, "2.in", sas),
	        *sb = load(dir, "3.in", sbs);
	float *din = load(dir, "4.in", 4 * ds), *d = load(dir, "4.out", 4 * ds);
	long kpad = (k + 127) / 128 * 128;
	double worst = 0;
	for (long i = 0; i < m; i++)
		for (long j = 0; j < ldd && (size_t)(i * ldd + j) < ds; j++) {
			float got = d[i * ldd + j];
			if (j >= n) {
				if (memcmp(&got, &din[i * ldd + j], 4) != 0) {
					printf("FAIL " DUMP_TEST ": D[%ld, %ld], outside the %ld x %ld matrix, was written\n", i, j, m, n);
					return 1;
				}
				continue;
			}
			float acc = -0.0f; /* the identity of IEEE addition, as the emulator starts */
			double exact = 0, mag = 0;
			for (long q = 0; q < kpad; q++) {
				long kb = q / 32;
				float x = q < k ? e4m3(a[i * lda + q]) : 0.0f, y = q < k ? e4m3(b[j * ldb + q]) : 0.0f;
				float xs = kb < ks ? ldexpf(1.0f, sa[i * lds + kb] % 9 - 4) : 1.0f;
				float ys = kb < ks ? ldexpf(1.0f, sb[j * lds + kb] % 9 - 4) : 1.0f;
				acc = fmaf(x * xs, y * ys, acc);
				exact += (double)x * xs * y * ys;
				mag += fabs((double)x * xs * y * ys);
			}
			if (memcmp(&got, &acc, 4) != 0) {
				printf("FAIL " DUMP_TEST ": D[%ld, %ld] is %.9g, the emulator's order gives %.9g (M, N, K = %ld, %ld, %ld)\n",
				       i, j, (double)got, (double)acc, m, n, k);
				return 1;
			}
			double err = fabs((double)got - exact) / (mag > 0 ? mag : 1);
			worst = err > worst ? err : worst;
		}
	if (worst > 1e-5) {
		printf("FAIL " DUMP_TEST ": an element is %.3g (relative to sum |a sa b sb|) from the exact value (M, N, K = "
		       "%ld, %ld, %ld)\n", worst, m, n, k);
		return 1;
	}
	printf("PASS " DUMP_TEST " (M, N, K = %ld, %ld, %ld: bit-exact in the documented order; at most %.2g from the exact "
	       "value)\n", m, n, k, worst);
	return 0;
}
