/* gemm_dump_check.c DIR: checks what `tilec run examples/gemm.tile --dump DIR` wrote. D = alpha * A * B^T +
 * beta * C (A bf16 [M, K] with row stride lda, B bf16 [N, K] with ldb, C and D f32 [M, N] with ldc and ldd;
 * every size and alpha, beta from DIR/manifest). Each D[i, j] inside M x N must equal, bit for bit,
 * fmaf(beta, C[i, j], alpha * acc) where acc accumulates as the emulator documents (docs/emulator.md: f32,
 * k ascending, one fmaf per multiply-add, the first product onto -0), and lie within
 * 1e-5 * (|alpha| sum_k |A[i, k] B[j, k]| + |beta C[i, j]|) of the exact value in double precision (the
 * tolerance a GPU run is held to: hardware's order of accumulation is not documented). D's elements outside
 * M x N (the columns N .. ldd - 1) must be unchanged. Prints one PASS or FAIL line. */
#ifndef DUMP_TEST
#define DUMP_TEST "emu/example/gemm"
#endif
#include <math.h>
#include "dump_read.h"

static float
scalar_f32(const char *dir, const char *name)
{
	uint32_t bits = (uint32_t)scalar(dir, name);
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gemm_dump_check DIR\n");
		return 2;
	}
	const char *dir = argv[1];
	long m = scalar(dir, "M"), n = scalar(dir, "N"), k = scalar(dir, "K");
	long lda = scalar(dir, "lda"), ldb = scalar(dir, "ldb"), ldc = scalar(dir, "ldc"), ldd = scalar(dir, "ldd");
	float alpha = scalar_f32(dir, "alpha"), beta = scalar_f32(dir, "beta");
	size_t as = (size_t)((m - 1) * lda + k), bs = (size_t)((n - 1) * ldb + k), cs = (size_t)((m - 1) * ldc + n),
	       ds = (size_t)((m - 1) * ldd + n);
	uint16_t *a = load(dir, "0.in", 2 * as), *b = load(dir, "1.in", 2 * bs);
	float *c = load(dir, "2.in", 4 * cs), *din = load(dir, "3.in", 4 * ds), *d = load(dir, "3.out", 4 * ds);
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
			for (long q = 0; q < k; q++) {
				float x = bf16(a[i * lda + q]), y = bf16(b[j * ldb + q]);
				acc = fmaf(x, y, acc);
				exact += (double)x * y;
				mag += fabs((double)x * y);
			}
			float cij = c[i * ldc + j];
			float want = fmaf(beta, cij, alpha * acc);
			if (memcmp(&got, &want, 4) != 0) {
				printf("FAIL " DUMP_TEST ": D[%ld, %ld] is %.9g, the emulator's order gives %.9g (M, N, K = %ld, %ld, %ld)\n",
				       i, j, (double)got, (double)want, m, n, k);
				return 1;
			}
			double scale = fabs((double)alpha) * mag + fabs((double)beta * cij);
			double err = fabs((double)got - ((double)alpha * exact + (double)beta * cij)) / (scale > 0 ? scale : 1);
			worst = err > worst ? err : worst;
		}
	if (worst > 1e-5) {
		printf("FAIL " DUMP_TEST ": an element is %.3g (relative to |alpha| sum |a b| + |beta c|) from the exact value "
		       "(M, N, K = %ld, %ld, %ld)\n", worst, m, n, k);
		return 1;
	}
	printf("PASS " DUMP_TEST " (M, N, K = %ld, %ld, %ld: bit-exact in the documented order; at most %.2g from the exact "
	       "value)\n", m, n, k, worst);
	return 0;
}
