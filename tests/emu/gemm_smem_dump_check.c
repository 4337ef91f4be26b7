/* gemm_smem_dump_check.c DIR: checks what `tilec run examples/gemm_smem.tile --dump DIR` wrote. D = A * B^T
 * (A, B bf16 [128, 256], D f32 [128, 128]) must equal, bit for bit, a reference that accumulates as the
 * emulator documents (docs/emulator.md: f32, k ascending, one fmaf per multiply-add, the first product onto
 * -0), and lie within 1e-5 * sum_k |A[i, k] * B[j, k]| of the exact sum in double precision (the tolerance a
 * GPU run is held to, hardware's order of accumulation being undocumented). Prints one PASS or FAIL line. */
#define DUMP_TEST "emu/example/gemm_smem"
#include <math.h>
#include "dump_read.h"

enum { M = 128, N = 128, K = 256 };

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gemm_smem_dump_check DIR\n");
		return 2;
	}
	uint16_t *a = load(argv[1], "0.in", 2 * M * K), *b = load(argv[1], "1.in", 2 * N * K);
	float *d = load(argv[1], "2.out", 4 * M * N);
	double worst = 0;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float acc = -0.0f; /* the identity of IEEE addition, as the emulator starts */
			double exact = 0, mag = 0;
			for (int k = 0; k < K; k++) {
				float x = bf16(a[i * K + k]), y = bf16(b[j * K + k]);
				acc = fmaf(x, y, acc);
				exact += (double)x * y;
				mag += fabs((double)x * y);
			}
			float got = d[i * N + j];
			if (memcmp(&got, &acc, 4) != 0) {
				printf("FAIL emu/example/gemm_smem: D[%d, %d] is %.9g, the emulator's order gives %.9g\n", i, j,
				       (double)got, (double)acc);
				return 1;
			}
			double err = fabs((double)got - exact) / (mag > 0 ? mag : 1);
			worst = err > worst ? err : worst;
		}
	if (worst > 1e-5) {
		printf("FAIL emu/example/gemm_smem: an element is %.3g (relative to sum |a b|) from the exact sum\n", worst);
		return 1;
	}
	printf("PASS emu/example/gemm_smem (bit-exact in the documented order; at most %.2g from the exact sum)\n", worst);
	return 0;
}
