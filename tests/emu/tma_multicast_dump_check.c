/* tma_multicast_dump_check.c DIR: checks what `tilec run examples/tma_multicast.tile --dump DIR` wrote: Out[i]
 * must have the bits of acc = acc + A[i, k] * B[i % 32, k] over k in 32-column tiles (B's tile is the one the
 * CTA of rank 0 multicast to both CTAs of the cluster), the columns past K of the last tile counted as the
 * zeros TMA fills in (each product rounded, then each sum: the kernel's order).
 * M and K come from DIR/manifest. Prints one PASS or FAIL line. */
#define DUMP_TEST "emu/example/tma_multicast"
#include "dump_read.h"

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tma_multicast_dump_check DIR\n");
		return 2;
	}
	long m = scalar(argv[1], "M"), k = scalar(argv[1], "K");
	float *a = load(argv[1], "0.in", 4 * (size_t)(m * k)), *b = load(argv[1], "1.in", 4 * (size_t)(32 * k));
	float *out = load(argv[1], "2.out", 4 * (size_t)m);
	long tiles = (k + 31) / 32;
	for (long i = 0; i < m; i++) {
		float acc = 0.0f;
		for (long c = 0; c < 32 * tiles; c++) {
			float x = c < k ? a[i * k + c] : 0.0f, y = c < k ? b[i % 32 * k + c] : 0.0f;
			acc = acc + x * y;
		}
		if (memcmp(&acc, &out[i], 4) != 0) {
			printf("FAIL emu/example/tma_multicast: Out[%ld] = %.9g, the reference gives %.9g (M = %ld, K = %ld)\n", i,
			       (double)out[i], (double)acc, m, k);
			return 1;
		}
	}
	printf("PASS emu/example/tma_multicast (M = %ld, K = %ld)\n", m, k);
	return 0;
}
