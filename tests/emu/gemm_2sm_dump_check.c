/* gemm_2sm_dump_check.c DIR: checks what `tilec run examples/gemm_2sm.tile --dump DIR` wrote. D = A * B^T (A bf16
 * [M, K] with row stride lda, B bf16 [N, K] with ldb, D f32 [M, N] with ldd; the sizes from DIR/manifest). Each
 * D[i, j] inside M x N must equal, bit for bit, the sum the emulator documents for the pair's mma (docs/emulator.md:
 * f32, k ascending, one fmaf per multiply-add, the first product onto -0), and lie within 1e-5 * sum_k |A[i, k]
 * B[j, k]| of the exact value in double precision (the tolerance a GPU run is held to: hardware's order of
 * accumulation is not documented). D's elements outside M x N (the columns N .. ldd - 1) must be unchanged.
 * Prints one PASS or FAIL line. */
#define DUMP_TEST "emu/example/gemm_2sm"
#include <math.h>
#include "dump_read.h"

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gemm_2sm_dump_check DIR\n");
		return 2;
	}
	const char *dir = argv[1];
	long m = scalar(dir, "M"), n = scalar(dir, "N"), k = scalar(dir, "K");
	long lda = scalar(dir, "lda"), ldb = scalar(dir, "ldb"), ldd = scalar(dir, "ldd");
	size_t as = (size_t)((m - 1) * lda + k), bs = (size_t)((n - 1) * ldb + k), ds = (size_t)((m - 1) * ldd + n);
	uint16_t *a = load(dir, "0.in", 2 * as), *b = load(dir, "1.in", 2 * bs);
	float *din = load(dir, "2.in", 4 * ds), *d = load(dir, "2.out", 4 * ds);
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
			if (memcmp(&got, &acc, 4) != 0) {
				printf("FAIL " DUMP_TEST ": D[%ld, %ld] is %.9g, the emulator's order gives %.9g (M, N, K = %ld, %ld, %ld)\n",
				       i, j, (double)got, (double)acc, m, n, k);
				return 1;
			}
			double err = fabs((double)got - exact) / (mag > 0 ? mag : 1);
			worst = err > worst ? err : worst;
		}
	if (worst > 1e-5) {
		printf("FAIL " DUMP_TEST ": an element is %.3g (relative to sum |a b|) from the exact value (M, N, K = %ld, "
		       "%ld, %ld)\n", worst, m, n, k);
		return 1;
	}
	printf("PASS " DUMP_TEST " (M, N, K = %ld, %ld, %ld: bit-exact in the documented order; at most %.2g from the exact "
	       "value)\n", m, n, k, worst);
	return 0;
}
