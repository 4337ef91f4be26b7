/* attention_softmax_dump_check.c DIR: checks what `tilec run examples/attention_softmax.tile --dump DIR` wrote
 * against a reference computed here with the C library's exp2f in place of exp2_approx (the scalars kv0,
 * scale_log2 and threshold come from DIR/manifest). The vote, the maximum and M_out are exact, so they
 * must be equal; a masked P is exactly 0. exp2_approx is within 2 ulps of the correctly rounded 2^x on
 * the GPU and the emulator's model within 1 (docs/emulator.md), exp2f within 1 in glibc, so P and alpha
 * may be 4 ulps from exp2f; O_out = O * alpha gets one more rounding (6 ulps) and L_out = L * alpha +
 * sum(P), whose terms may have either sign, is checked within 2^-20 of |L * alpha| + sum(P). A run in
 * which every warp or no warp rescaled fails too: the run lines are chosen to take both branches.
 * Prints one PASS or FAIL line. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../tools/ulps.h"

static const char *dir;
static int bad;

static void *
load(const char *file, size_t bytes)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "rb");
	void *p = malloc(bytes);
	if (!f || !p || fread(p, 1, bytes, f) != bytes) {
		printf("FAIL emu/example/attention_softmax: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return p;
}

/* scalar NAME of DIR/manifest ("scalar INDEX NAME TYPE BYTES 0xBITS"): its 32 bits. */
static uint32_t
scalar_bits(const char *name)
{
	char path[4096], line[512], word[8], nm[128], type[16];
	unsigned index, bytes, bits;
	snprintf(path, sizeof path, "%s/manifest", dir);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "%7s %u %127s %15s %u %x", word, &index, nm, type, &bytes, &bits) == 6 &&
		    strcmp(word, "scalar") == 0 && strcmp(nm, name) == 0) {
			fclose(f);
			return bits;
		}
	}
	printf("FAIL emu/example/attention_softmax: %s/manifest has no scalar %s\n", dir, name);
	exit(1);
}

static float
scalar_f32(const char *name)
{
	uint32_t bits = scalar_bits(name);
	float x;
	memcpy(&x, &bits, 4);
	return x;
}

static void
within_ulps(const char *what, int i, int j, float got, float want, int64_t limit)
{
	if (ulps(got, want) > limit && !bad++)
		printf("FAIL emu/example/attention_softmax: %s[%d, %d] = %.9g, the reference gives %.9g (more than %lld ulps)\n",
		       what, i, j, (double)got, (double)want, (long long)limit);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: attention_softmax_dump_check DIR\n");
		return 2;
	}
	dir = argv[1];
	int kv0 = (int32_t)scalar_bits("kv0");
	float scale_log2 = scalar_f32("scale_log2"), threshold = scalar_f32("threshold");
	float *s = load("0.in", 4 * 4096), *o = load("1.in", 4 * 4096), *m = load("2.in", 4 * 128),
	      *l = load("3.in", 4 * 128), *p_out = load("4.out", 4 * 4096), *o_out = load("5.out", 4 * 4096),
	      *m_out = load("6.out", 4 * 128), *l_out = load("7.out", 4 * 128);
	int32_t *rescaled = load("8.out", 4 * 4);
	int votes = 0;
	for (int w = 0; w < 4; w++) {
		int rescale = 0;
		float m_new[32];
		for (int r = 0; r < 32; r++) {
			int i = 32 * w + r;
			float m_tile = -INFINITY;
			for (int j = 0; j < 32; j++)
				if (kv0 + j <= i)
					m_tile = fmaxf(m_tile, s[i * 32 + j]);
			m_new[r] = fmaxf(m[i], m_tile * scale_log2);
			rescale |= m_new[r] - m[i] > threshold;
		}
		votes += rescale;
		if (rescaled[w] != rescale && !bad++)
			printf("FAIL emu/example/attention_softmax: warp %d voted %d, the reference %d\n", w, rescaled[w], rescale);
		for (int r = 0; r < 32; r++) {
			int i = 32 * w + r;
			float m_used = rescale ? m_new[r] : m[i];
			float alpha = rescale ? exp2f(m[i] - m_new[r]) : 1.0f;
			if (memcmp(&m_out[i], &m_used, 4) != 0 && !bad++)
				printf("FAIL emu/example/attention_softmax: M_out[%d] = %.9g, the reference gives %.9g\n", i,
				       (double)m_out[i], (double)m_used);
			float sum = 0.0f;
			for (int j = 0; j < 32; j++) {
				float got = p_out[i * 32 + j];
				if (kv0 + j > i) {
					if (got != 0.0f && !bad++)
						printf("FAIL emu/example/attention_softmax: masked P[%d, %d] = %.9g, not 0\n", i, j, (double)got);
					continue;
				}
				float want = exp2f(fmaf(s[i * 32 + j], scale_log2, -m_used));
				within_ulps("P", i, j, got, want, 4);
				sum += want;
			}
			for (int j = 0; j < 32; j++)
				within_ulps("O_out", i, j, o_out[i * 32 + j], o[i * 32 + j] * alpha, rescale ? 6 : 0);
			float want = fmaf(l[i], alpha, sum);
			if (fabsf(l_out[i] - want) > 0x1p-20f * (fabsf(l[i] * alpha) + sum) && !bad++)
				printf("FAIL emu/example/attention_softmax: L_out[%d] = %.9g, the reference gives %.9g\n", i,
				       (double)l_out[i], (double)want);
		}
	}
	if (!bad && (votes == 0 || votes == 4)) {
		printf("FAIL emu/example/attention_softmax: %d of 4 warps rescaled; the run should take both branches\n", votes);
		return 1;
	}
	if (bad)
		return 1;
	printf("PASS emu/example/attention_softmax/kv0=%d,scale_log2=%g,threshold=%g (%d of 4 warps rescaled)\n", kv0,
	       (double)scale_log2, (double)threshold, votes);
	return 0;
}
