/* tma_pipeline_dump_check.c DIR: checks what `tilec run examples/tma_pipeline.tile --dump DIR` wrote: Out[i]
 * must have the bits of acc = acc + A[i, k] * B[i, k] over k in 32-column tiles, the columns past K of the
 * last tile counted as the zeros TMA fills in (each product rounded, then each sum: the kernel's order).
 * M and K come from DIR/manifest. Prints one PASS or FAIL line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *
load(const char *dir, const char *file, size_t bytes)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "rb");
	void *p = malloc(bytes ? bytes : 1);
	if (!f || !p || fread(p, 1, bytes, f) != bytes) {
		printf("FAIL emu/example/tma_pipeline: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return p;
}

/* The value of scalar NAME in DIR/manifest ("scalar INDEX NAME TYPE BYTES 0xBITS"). */
static long
scalar(const char *dir, const char *name)
{
	char path[4096], line[512], word[64];
	snprintf(path, sizeof path, "%s/manifest", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("FAIL emu/example/tma_pipeline: cannot read %s\n", path);
		exit(1);
	}
	while (fgets(line, sizeof line, f)) {
		unsigned index, bytes, bits;
		char type[16];
		if (sscanf(line, "scalar %u %63s %15s %u %x", &index, word, type, &bytes, &bits) == 5 &&
		    strcmp(word, name) == 0) {
			fclose(f);
			return (long)(int32_t)bits;
		}
	}
	printf("FAIL emu/example/tma_pipeline: no scalar %s in %s\n", name, path);
	exit(1);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tma_pipeline_dump_check DIR\n");
		return 2;
	}
	long m = scalar(argv[1], "M"), k = scalar(argv[1], "K");
	float *a = load(argv[1], "0.in", 4 * (size_t)(m * k)), *b = load(argv[1], "1.in", 4 * (size_t)(m * k));
	float *out = load(argv[1], "2.out", 4 * (size_t)m);
	long tiles = (k + 31) / 32;
	for (long i = 0; i < m; i++) {
		float acc = 0.0f;
		for (long c = 0; c < 32 * tiles; c++) {
			float x = c < k ? a[i * k + c] : 0.0f, y = c < k ? b[i * k + c] : 0.0f;
			acc = acc + x * y;
		}
		if (memcmp(&acc, &out[i], 4) != 0) {
			printf("FAIL emu/example/tma_pipeline: Out[%ld] = %.9g, the reference gives %.9g (M = %ld, K = %ld)\n", i,
			       (double)out[i], (double)acc, m, k);
			return 1;
		}
	}
	printf("PASS emu/example/tma_pipeline (M = %ld, K = %ld)\n", m, k);
	return 0;
}
