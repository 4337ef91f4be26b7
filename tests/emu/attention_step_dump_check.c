/* attention_step_dump_check.c DIR: checks what `tilec run examples/attention_step.tile --dump DIR` wrote against
 * a reference computed here. S = Q K^T is accumulated as the emulator documents (f32, k ascending, one fmaf per
 * product, from -0), so M_out = max(M, max_j S * scale_log2) must be equal bit for bit. P = bf16(exp2(S *
 * scale_log2 - m)) uses the C library's exp2f where the emulator runs tilec's exp2 (each within 1 ulp of 2^x,
 * docs/emulator.md), so a P may round to the neighbouring bf16 (2^-8 relative) and alpha = exp2(M - m) may be 2
 * ulps off: O_out = O * alpha + P V is held to 2^-8 * sum_k |P V| + 2^-20 * (|O alpha| + sum_k |P V|), and
 * L_out = L * alpha + sum_j P to 2^-8 * sum_j P + 2^-20 * (|L alpha| + sum_j P). Prints one PASS or FAIL line. */
#define DUMP_TEST "emu/example/attention_step"
#include <math.h>
#include "dump_read.h"

enum { ROWS = 128, KEYS = 64, D = 64 };

/* f32 to bf16, rounding to nearest even (the emulator's conversion; no NaN here) */
static float
to_bf16(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	u = (u + 0x7fffu + (u >> 16 & 1u)) & 0xffff0000u;
	memcpy(&x, &u, 4);
	return x;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: attention_step_dump_check DIR\n");
		return 2;
	}
	const char *dir = argv[1];
	uint16_t *q = load(dir, "0.in", 2 * ROWS * D), *k = load(dir, "1.in", 2 * KEYS * D), *v = load(dir, "2.in", 2 * KEYS * D);
	float *o = load(dir, "3.in", 4 * ROWS * D), *m_in = load(dir, "4.in", 4 * ROWS), *l_in = load(dir, "5.in", 4 * ROWS);
	float *o_out = load(dir, "6.out", 4 * ROWS * D), *m_out = load(dir, "7.out", 4 * ROWS), *l_out = load(dir, "8.out", 4 * ROWS);
	uint32_t bits = (uint32_t)scalar(dir, "scale_log2");
	float scale;
	memcpy(&scale, &bits, 4);
	double worst_o = 0, worst_l = 0;
	for (int i = 0; i < ROWS; i++) {
		float s[KEYS], p[KEYS], m_tile = -INFINITY;
		for (int j = 0; j < KEYS; j++) {
			float acc = -0.0f;
			for (int c = 0; c < D; c++)
				acc = fmaf(bf16(q[i * D + c]), bf16(k[j * D + c]), acc);
			s[j] = acc;
			m_tile = fmaxf(m_tile, acc);
		}
		float m_new = fmaxf(m_in[i], m_tile * scale);
		if (memcmp(&m_new, &m_out[i], 4) != 0) {
			printf("FAIL " DUMP_TEST ": M_out[%d] is %.9g, the reference %.9g\n", i, (double)m_out[i], (double)m_new);
			return 1;
		}
		double alpha = exp2((double)m_in[i] - m_new), sum = 0;
		for (int j = 0; j < KEYS; j++) {
			p[j] = to_bf16(exp2f(fmaf(s[j], scale, -m_new)));
			sum += p[j];
		}
		double l_ref = l_in[i] * alpha + sum, l_tol = sum / 256 + (fabs(l_in[i] * alpha) + sum) / 1048576;
		if (fabs(l_out[i] - l_ref) > l_tol) {
			printf("FAIL " DUMP_TEST ": L_out[%d] is %.9g, the reference %.9g (tolerance %.3g)\n", i, (double)l_out[i],
			       l_ref, l_tol);
			return 1;
		}
		worst_l = fmax(worst_l, fabs(l_out[i] - l_ref) / l_tol);
		for (int c = 0; c < D; c++) {
			double ref = o[i * D + c] * alpha, mag = 0;
			for (int j = 0; j < KEYS; j++) {
				ref += (double)p[j] * bf16(v[j * D + c]);
				mag += fabs((double)p[j] * bf16(v[j * D + c]));
			}
			double tol = mag / 256 + (fabs(o[i * D + c] * alpha) + mag) / 1048576;
			double err = fabs(o_out[i * D + c] - ref);
			if (err > tol) {
				printf("FAIL " DUMP_TEST ": O_out[%d, %d] is %.9g, the reference %.9g (tolerance %.3g)\n", i, c,
				       (double)o_out[i * D + c], ref, tol);
				return 1;
			}
			worst_o = fmax(worst_o, err / tol);
		}
	}
	printf("PASS " DUMP_TEST " (M bit-exact; O at most %.2g, L at most %.2g of their tolerance)\n", worst_o, worst_l);
	return 0;
}
