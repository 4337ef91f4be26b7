/* tma_epilogue_dump_check.c DIR: checks what `tilec run examples/tma_epilogue.tile --dump DIR` wrote: every
 * element of Out [M, N] must have the bits of alpha * A[i % 128, j % 64] (each CTA stores the scaled tile at
 * its place, clipped at the edges by TMA), and nothing else. M, N and alpha come from DIR/manifest. Prints
 * one PASS or FAIL line. */
#define DUMP_TEST "emu/example/tma_epilogue"
#include "dump_read.h"

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tma_epilogue_dump_check DIR\n");
		return 2;
	}
	long m = scalar(argv[1], "M"), n = scalar(argv[1], "N");
	int32_t bits = (int32_t)scalar(argv[1], "alpha");
	float alpha;
	memcpy(&alpha, &bits, 4);
	float *a = load(argv[1], "0.in", 4 * 128 * 64), *out = load(argv[1], "1.out", 4 * (size_t)(m * n));
	for (long i = 0; i < m; i++)
		for (long j = 0; j < n; j++) {
			float want = alpha * a[(i % 128) * 64 + j % 64];
			if (memcmp(&want, &out[i * n + j], 4) != 0) {
				printf("FAIL emu/example/tma_epilogue: Out[%ld, %ld] = %.9g, the reference gives %.9g (M = %ld, N = %ld)\n",
				       i, j, (double)out[i * n + j], (double)want, m, n);
				return 1;
			}
		}
	printf("PASS emu/example/tma_epilogue (M = %ld, N = %ld)\n", m, n);
	return 0;
}
