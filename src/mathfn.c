/* mathfn.c: exp, exp2, log, log2, tanh, erf, sin and cos (LANGUAGE.md 10.2) as fixed sequences of
 * IEEE operations, built once here and rendered by both emitters (and interpreted by the unit test):
 * the CUDA C, the PTX and the emulator compute the same bits, except erf in the GPU's own code, which
 * uses the hardware's ex2 and stays within 2 ulps of the emulator's, and the *_approx functions, the
 * hardware's approximations on the GPU and a correctly rounded model of them in the emulator. See
 * docs/language.md for the errors. */
#include <math.h>
#include <string.h>

#include "tilec.h"

/* Polynomial coefficients, highest degree first: Chebyshev fits (mpmath.chebyfit) rounded to f32, but
 * erfc_log2_poly (tools/math-coeffs.py). */
static const float exp2_poly[] = {0.00015461444854736328f, 0.0013400427997112274f, 0.009618056938052177f,
                                  0.05550327152013779f, 0.24022650718688965f, 0.6931471824645996f, 1.0f};
static const float exp_poly[] = {0.0013941110810264945f, 0.008375127799808979f, 0.04166635125875473f,
                                 0.16666415333747864f, 0.5f, 1.0f, 1.0f};
/* tanh(x) = x + x * z * P(z), z = x^2 <= 0.625^2 */
static const float tanh_poly[] = {0.002292744815349579f, -0.008343945257365704f, 0.02176891826093197f,
                                  -0.053959257900714874f, 0.13333304226398468f, -0.3333333432674408f};
/* erf(x) = x * P(x^2) for |x| < 1 */
static const float erf_poly[] = {-9.667044650996104e-06f, 0.00011265958892181516f, -0.0008484080317430198f,
                                 0.005221031606197357f, -0.026865430176258087f, 0.11283782124519348f,
                                 -0.37612637877464294f, 1.128379225730896f};
/* erf on the GPU, |x| >= 1: log2(erfc(1 + t) / erfc_1) for t = |x| - 1 in [0, 2.92], fitted with the
 * weight erfc(1 + t), by which an error of the exponent moves the result: 0.019 ulps at most. Its
 * leading coefficient is negative, so beyond 2.92 it only falls further: 1 - erfc_1 * 2^P rounds to 1. */
static const float erfc_1 = 0.15729920566082f;
static const float erfc_log2_poly[] = {-3.1287825549952686e-05f, 0.0004177028895355761f, -0.0029026586562395096f,
                                       0.014493971131742f, -0.05996343120932579f, -1.2163463830947876f,
                                       -3.807225465774536f, 2.297666767958617e-08f};
/* erfc(1.5 + t), |t| <= 0.5, and erfc(2.96 + t), |t| <= 0.96 */
static const float erfc1_poly[] = {0.00024081509036477655f, 3.940219176001847e-05f, -0.0017059717793017626f,
                                   0.002377303782850504f, 0.00474255345761776f, -0.0193280428647995f,
                                   0.014866315759718418f, 0.04459896683692932f, -0.13875199854373932f,
                                   0.17839543521404266f, -0.11893028765916824f, 0.0338948518037796f};
static const float erfc2_poly[] = {1.042628900904674e-05f, -2.610613046272192e-05f, -4.600163265422452e-06f,
                                   0.00014331270358525217f, -0.0004354040138423443f, 0.0008514139335602522f,
                                   -0.0012070598313584924f, 0.0012667500413954258f, -0.0009734676568768919f,
                                   0.000523124064784497f, -0.0001767420762917027f, 2.838273940142244e-05f};
/* sin(r) = r + r * z * S(z), cos(r) = 1 - z / 2 + z^2 * C(z), z = r^2 <= (pi/4)^2 */
static const float sin_poly[] = {2.7249925551586784e-06f, -0.00019840087043121457f, 0.008333331905305386f,
                                 -0.1666666716337204f};
static const float cos_poly[] = {-2.730095900460583e-07f, 2.480059993104078e-05f, -0.00138888880610466f,
                                 0.0416666679084301f};

/* (2^(8w) * 2/pi) mod 4 for w = -1 .. 13, each in four parts whose lowest bits are 2^-22, 2^-46, 2^-70
 * and 2^-94 (so each part holds 24 bits): tools/pio2-windows.py computes them from pi. */
static const float pio2_windows[15][4] = {
	{0x1.45fp-9f, 0x1.836e4cp-24f, 0x1.220a94p-47f, 0x1.fc2754p-72f},
	{0x1.45f3p-1f, 0x1.b72722p-23f, 0x1.529fcp-52f, 0x1.3abe8p-75f},
	{0x1.7cc1b6p+1f, 0x1.27220ap-23f, 0x1.29fc24p-48f, 0x1.abe8fap-71f},
	{0x1.836e4cp+0f, 0x1.220a94p-23f, 0x1.fc2754p-48f, 0x1.e8fa9ap-71f},
	{0x1.b72722p+1f, 0x1.529fcp-28f, 0x1.3abe8p-51f, 0x1.f534dcp-72f},
	{0x1.27220ap+1f, 0x1.29fc24p-24f, 0x1.abe8fap-47f, 0x1.34ddcp-72f},
	{0x1.220a94p+1f, 0x1.fc2754p-24f, 0x1.e8fa9ap-47f, 0x1.bb81bp-73f},
	{0x1.529fcp-4f, 0x1.3abe8p-27f, 0x1.f534dcp-48f, 0x1.c0db6p-72f},
	{0x1.29fc24p+0f, 0x1.abe8fap-23f, 0x1.34ddcp-48f, 0x1.b6c528p-73f},
	{0x1.fc2754p+0f, 0x1.e8fa9ap-23f, 0x1.bb81bp-49f, 0x1.b14accp-71f},
	{0x1.3abe8p-3f, 0x1.f534dcp-24f, 0x1.c0db6p-48f, 0x1.4acc9ep-71f},
	{0x1.abe8fap+1f, 0x1.34ddcp-24f, 0x1.b6c528p-49f, 0x1.993c4p-72f},
	{0x1.e8fa9ap+1f, 0x1.bb81bp-25f, 0x1.b14accp-47f, 0x1.3c439p-72f},
	{0x1.f534dcp+0f, 0x1.c0db6p-24f, 0x1.4acc9ep-47f, 0x1.0e41p-74f},
	{0x1.34ddcp+0f, 0x1.b6c528p-25f, 0x1.993c4p-48f, 0x1.c820fep-71f},
};

#define N(a) ((int)(sizeof(a) / sizeof(a)[0]))

typedef struct B {
	MathGen *g;
} B;

static int op(B *b, MOp o, int x, int y, int z) { return b->g->op(b->g, o, x, y, z); }
static int kf(B *b, float v) { return b->g->kf(b->g, v); }
static int ki(B *b, int32_t v) { return b->g->ki(b->g, v); }
static int fma3(B *b, int x, int y, int z) { return op(b, MO_FMA, x, y, z); }
static int mul(B *b, int x, int y) { return op(b, MO_MUL, x, y, -1); }
static int add(B *b, int x, int y) { return op(b, MO_ADD, x, y, -1); }
static int sub(B *b, int x, int y) { return op(b, MO_SUB, x, y, -1); }
static int sel(B *b, int p, int x, int y) { return op(b, MO_SEL, p, x, y); }
static int lt(B *b, int x, int y) { return op(b, MO_FLT, x, y, -1); }

/* Horner's rule with fma, highest degree first. */
static int
poly(B *b, const float *c, int n, int x)
{
	int p = kf(b, c[0]);
	for (int i = 1; i < n; i++)
		p = fma3(b, p, x, kf(b, c[i]));
	return p;
}

/* 2^n for an integer n in [-126, 127] held as i32 */
static int
pow2i(B *b, int n)
{
	/* (n << 23) + (127 << 23), the bits of (n + 127) << 23: ptxas makes it one IMAD (func_float_only_fixed 14
	   -> 12 registers, as nvcc's route) */
	return op(b, MO_ASFLT, op(b, MO_IADD, op(b, MO_SHL, n, ki(b, 23), -1), ki(b, 127 << 23), -1), -1, -1);
}

/* p * 2^n for n (an integral f32) in [-151, 129]: two exact steps, so a subnormal result rounds once */
static int
scale(B *b, int p, int nf)
{
	int n = op(b, MO_F2I, nf, -1, -1);
	int n1 = op(b, MO_SHRA, n, ki(b, 1), -1);
	int n2 = op(b, MO_ISUB, n, n1, -1);
	return mul(b, mul(b, p, pow2i(b, n1)), pow2i(b, n2));
}

static int
clamp(B *b, int x, float lo, float hi)
{
	int k = kf(b, lo);
	x = sel(b, lt(b, x, k), k, x);
	k = kf(b, hi);
	return sel(b, lt(b, k, x), k, x);
}

/* NaN in, the same NaN out */
static int
keep_nan(B *b, int x, int r)
{
	return sel(b, op(b, MO_FNAN, x, -1, -1), x, r);
}

static int
build_exp2(B *b, int x)
{
	int c = clamp(b, x, -151.0f, 129.0f);
	int n = op(b, MO_RINT, c, -1, -1);
	int f = sub(b, c, n);
	return keep_nan(b, x, scale(b, poly(b, exp2_poly, N(exp2_poly), f), n));
}

/* e^x = 2^n * e^r, r = x - n ln2 in [-ln2/2, ln2/2]; ln2 in two parts, the first times n exact in fma */
static int
exp_core(B *b, int x)
{
	int c = clamp(b, x, -104.0f, 89.0f);
	int n = op(b, MO_RINT, mul(b, c, kf(b, 1.44269502f)), -1, -1);
	int r = fma3(b, n, kf(b, -0.693145752f), c);
	r = fma3(b, n, kf(b, -1.42860677e-06f), r);
	return scale(b, poly(b, exp_poly, N(exp_poly), r), n);
}

static int
build_exp(B *b, int x)
{
	return keep_nan(b, x, exp_core(b, x));
}

/* log1p(f) for f = m - 1, m in [sqrt(1/2), sqrt(2)), and the exponent e (i32): returns log(x) when
 * want2 is false, log2(x) when true; special operands are handled by the caller */
static int
log_core(B *b, int x, bool want2)
{
	/* subnormals are scaled into the normal range first */
	int tiny = lt(b, x, kf(b, 1.17549435e-38f));
	int xs = sel(b, tiny, mul(b, x, kf(b, 8388608.0f)), x);
	int adj = sel(b, tiny, ki(b, -23), ki(b, 0));
	int bits = op(b, MO_ASINT, xs, -1, -1);
	int e = op(b, MO_SHRA, op(b, MO_ISUB, bits, ki(b, 0x3f3504f3), -1), ki(b, 23), -1);
	int m = op(b, MO_ASFLT, op(b, MO_ISUB, bits, op(b, MO_SHL, e, ki(b, 23), -1), -1), -1, -1);
	e = op(b, MO_IADD, e, adj, -1);
	int f = sub(b, m, kf(b, 1.0f)); /* exact */
	int s = op(b, MO_DIV, f, add(b, f, kf(b, 2.0f)), -1);
	int z = mul(b, s, s);
	static const float series[] = {2.0f / 11, 2.0f / 9, 2.0f / 7, 2.0f / 5, 2.0f / 3};
	int r = mul(b, z, poly(b, series, N(series), z));
	int hfsq = mul(b, mul(b, f, f), kf(b, 0.5f));
	/* log1p(f) = f - hfsq + s * (hfsq + R) */
	int tail = mul(b, s, add(b, hfsq, r));
	int l1p = add(b, f, sub(b, tail, hfsq));
	int ef = op(b, MO_I2F, e, -1, -1);
	if (want2) {
		int t = fma3(b, l1p, kf(b, 1.44269502f), mul(b, l1p, kf(b, 1.92596303e-08f)));
		return add(b, ef, t);
	}
	/* e * ln2_hi is exact: ln2_hi has 16 significant bits */
	return add(b, fma3(b, ef, kf(b, 1.42860677e-06f), l1p), mul(b, ef, kf(b, 0.693145752f)));
}

static int
build_log(B *b, int x, bool want2)
{
	int r = log_core(b, x, want2);
	int zero = kf(b, 0.0f);
	int inf = kf(b, INFINITY);
	r = sel(b, lt(b, x, kf(b, INFINITY)), r, inf);             /* log(inf) = inf */
	r = sel(b, lt(b, zero, x), r, kf(b, -INFINITY));            /* log(0) = -inf */
	r = sel(b, lt(b, x, zero), kf(b, NAN), r);                  /* log(negative) = NaN */
	return keep_nan(b, x, r);
}

/* |x| and x's sign bit (an i32) */
static int
abs_sign(B *b, int x, int *sign)
{
	int bits = op(b, MO_ASINT, x, -1, -1);
	*sign = op(b, MO_IAND, bits, ki(b, (int32_t)0x80000000u), -1);
	return op(b, MO_ASFLT, op(b, MO_IAND, bits, ki(b, 0x7fffffff), -1), -1, -1);
}

static int
with_sign(B *b, int v, int sign)
{
	return op(b, MO_ASFLT, op(b, MO_IOR, op(b, MO_ASINT, v, -1, -1), sign, -1), -1, -1);
}

static int
build_tanh(B *b, int x)
{
	int sign;
	int a = abs_sign(b, x, &sign);
	int z = mul(b, x, x);
	int small = fma3(b, mul(b, x, z), poly(b, tanh_poly, N(tanh_poly), z), x);
	/* 1 - 2 / (e^2a + 1); e^2a overflows to inf for a large, giving 1 */
	int e = exp_core(b, add(b, a, a));
	int big = sub(b, kf(b, 1.0f), op(b, MO_DIV, kf(b, 2.0f), add(b, e, kf(b, 1.0f)), -1));
	int r = sel(b, lt(b, a, kf(b, 0.625f)), small, with_sign(b, big, sign));
	return keep_nan(b, x, r);
}

/* erf(x) = x * P(x^2) for |x| < 1 */
static int
erf_small(B *b, int x)
{
	return mul(b, x, poly(b, erf_poly, N(erf_poly), mul(b, x, x)));
}

static int
build_erf(B *b, int x)
{
	int sign;
	int a = abs_sign(b, x, &sign);
	int small = erf_small(b, x);
	int c1 = poly(b, erfc1_poly, N(erfc1_poly), sub(b, a, kf(b, 1.5f)));
	int c2 = poly(b, erfc2_poly, N(erfc2_poly), sub(b, a, kf(b, 2.96f)));
	int c = sel(b, lt(b, a, kf(b, 2.0f)), c1, c2);
	c = sel(b, lt(b, a, kf(b, 3.92f)), c, kf(b, 0.0f)); /* erfc(3.92) < 2^-25: erf rounds to 1 */
	int big = with_sign(b, sub(b, kf(b, 1.0f), c), sign);
	return keep_nan(b, x, sel(b, lt(b, a, kf(b, 1.0f)), small, big));
}

/* erf in the GPU's own code: below |x| = 1 the emulator's sequence, bit for bit; above, 1 - erfc(|x|)
 * with erfc(|x|) = erfc_1 * 2^P(|x| - 1) from the hardware's ex2, whose relative error reaches the
 * result scaled by erfc(|x|) <= 0.157: about 24 SASS instructions where the exact sequence takes 45.
 * A NaN goes through every step (a NaN out); |x| = inf makes P -inf, so 1. */
static int
build_erf_gpu(B *b, int x)
{
	int a = op(b, MO_FABS, x, -1, -1);
	int bits = op(b, MO_ASINT, x, -1, -1);
	int sign = op(b, MO_IAND, bits, ki(b, (int32_t)0x80000000u), -1);
	int small = erf_small(b, x);
	int t = sub(b, a, kf(b, 1.0f));
	int e = op(b, MO_EX2, poly(b, erfc_log2_poly, N(erfc_log2_poly), t), -1, -1);
	int c = kf(b, -erfc_1);
	int big = with_sign(b, fma3(b, c, e, kf(b, 1.0f)), sign);
	return sel(b, lt(b, a, kf(b, 1.0f)), small, big);
}

/* x + y exactly as the rounded sum and its error (Knuth's two-sum) */
static int
two_sum(B *b, int x, int y, int *err)
{
	int s = add(b, x, y);
	int yy = sub(b, s, x);
	*err = add(b, sub(b, x, sub(b, s, yy)), sub(b, y, yy));
	return s;
}

/* v minus the nearest multiple of 4, exactly */
static int
mod4(B *b, int v)
{
	return fma3(b, op(b, MO_RINT, mul(b, v, kf(b, 0.25f)), -1, -1), kf(b, -4.0f), v);
}

/* The reduction for |x| >= 2^16 (a = |x|), after Payne and Hanek: x * 2/pi mod 4 from only the bits of
 * 2/pi that matter at x's exponent. x' = x * 2^(-8w), with w chosen so that x' lies in [2^23, 2^31),
 * is an integer, so x' * (2^(8w) * 2/pi mod 4) is x * 2/pi mod 4; its four products with the parts of
 * pio2_windows[w] are exact as a product and its fma error, and their sum, taken mod 4 as it goes and
 * its small terms added smallest first, keeps the fraction to about 2^-60, where a float x comes no
 * closer than about 2^-30 to a multiple of pi/2. Returns r = (x * 2/pi - n) * pi/2 and the quadrant
 * *n, an integral f32. */
static int
reduce_large(B *b, int x, int a, int *n)
{
	int t[4], s = kf(b, 256.0f);
	for (int i = 0; i < 4; i++)
		t[i] = kf(b, pio2_windows[0][i]);
	for (int w = 0; w < 14; w++) {
		int below = lt(b, a, kf(b, ldexpf(1.0f, 23 + 8 * w)));
		s = sel(b, below, s, kf(b, ldexpf(1.0f, -8 * w)));
		for (int i = 0; i < 4; i++)
			t[i] = sel(b, below, t[i], kf(b, pio2_windows[w + 1][i]));
	}
	int xs = mul(b, x, s), p[4], e[3];
	for (int i = 0; i < 4; i++) {
		p[i] = mul(b, xs, t[i]);
		if (i < 3)
			e[i] = fma3(b, xs, t[i], sub(b, kf(b, 0.0f), p[i]));
	}
	/* the two largest terms are multiples of 2^-22 in [-2, 2]: their sum is exact */
	int big = mod4(b, add(b, mod4(b, p[0]), mod4(b, e[0])));
	int clo, chi = two_sum(b, big, mod4(b, p[1]), &clo);
	int n1 = op(b, MO_RINT, chi, -1, -1);
	chi = sub(b, chi, n1);
	int err, shi = two_sum(b, e[2], p[3], &err), slo = err;
	shi = two_sum(b, shi, p[2], &err);
	slo = add(b, slo, err);
	shi = two_sum(b, shi, e[1], &err);
	slo = add(b, slo, err);
	shi = two_sum(b, shi, clo, &err);
	slo = add(b, slo, err);
	int vhi = two_sum(b, chi, shi, &err), vlo = add(b, err, slo);
	int n2 = op(b, MO_RINT, vhi, -1, -1);
	vhi = sub(b, vhi, n2);
	int fh = add(b, vhi, vlo), fl = sub(b, vlo, sub(b, fh, vhi));
	*n = add(b, n1, n2);
	/* (fh + fl) * pi/2, pi/2 in two parts */
	return fma3(b, fh, kf(b, 1.57079637f), fma3(b, fh, kf(b, -4.37113883e-08f), mul(b, fl, kf(b, 1.57079637f))));
}

/* sin (cos_shift 0) or cos (cos_shift 1): r = x - n pi/2, in three parts with fma for |x| < 2^16,
 * else by reduce_large; quadrant n + shift */
static int
build_sincos(B *b, int x, int cos_shift)
{
	int n = op(b, MO_RINT, mul(b, x, kf(b, 0.636619747f)), -1, -1);
	int r = fma3(b, n, kf(b, -1.57079637f), x);
	r = fma3(b, n, kf(b, 4.37113883e-08f), r);
	r = fma3(b, n, kf(b, 1.71512451e-15f), r);
	int a = op(b, MO_ASFLT, op(b, MO_IAND, op(b, MO_ASINT, x, -1, -1), ki(b, 0x7fffffff), -1), -1, -1), nl;
	int rl = reduce_large(b, x, a, &nl);
	int small = lt(b, a, kf(b, 65536.0f));
	r = sel(b, small, r, rl);
	n = sel(b, small, n, nl);
	int z = mul(b, r, r);
	int s = fma3(b, mul(b, r, z), poly(b, sin_poly, N(sin_poly), z), r);
	int c = fma3(b, mul(b, z, z), poly(b, cos_poly, N(cos_poly), z), fma3(b, z, kf(b, -0.5f), kf(b, 1.0f)));
	int q = op(b, MO_IADD, op(b, MO_F2I, n, -1, -1), ki(b, cos_shift), -1);
	int odd = op(b, MO_IAND, q, ki(b, 1), -1);
	int v = sel(b, op(b, MO_INE0, odd, -1, -1), c, s);
	/* quadrants 2 and 3 negate: bit 1 of q moved to the sign bit */
	int flip = op(b, MO_SHL, op(b, MO_IAND, q, ki(b, 2), -1), ki(b, 30), -1);
	return op(b, MO_ASFLT, op(b, MO_IXOR, op(b, MO_ASINT, v, -1, -1), flip, -1), -1, -1);
}

/* x, or a zero of its sign where x is subnormal: the operands and results of the .ftz instructions */
static int
flush(B *b, int x)
{
	int sign = op(b, MO_ASFLT, op(b, MO_IAND, op(b, MO_ASINT, x, -1, -1), ki(b, INT32_MIN), -1), -1, -1);
	return sel(b, lt(b, op(b, MO_FABS, x, -1, -1), kf(b, 0x1p-126f)), sign, x);
}

/* exp_approx, exp2_approx, rcp_approx, rsqrt_approx: on the GPU the instruction (exp as ex2 of x * log2 e,
 * the product rounded); elsewhere a model from exact steps, which the hardware's results stay near (their
 * bits are documented only as error bounds): exp2 as build_exp2 (1 ulp), 1/x as div.rn, 1/sqrt(x) as
 * div.rn of sqrt.rn, each with the instruction's flushing of subnormal operands and results. */
static int
build_approx(B *b, Func fn, int x)
{
	if (fn == F_EXP_APPROX)
		x = mul(b, x, kf(b, 1.44269502f));
	if (b->g->approx)
		return op(b, fn == F_RCP_APPROX ? MO_RCP : fn == F_RSQRT_APPROX ? MO_RSQ : MO_EX2, x, -1, -1);
	switch (fn) {
	case F_RCP_APPROX: return flush(b, op(b, MO_DIV, kf(b, 1.0f), flush(b, x), -1));
	case F_RSQRT_APPROX: return op(b, MO_DIV, kf(b, 1.0f), op(b, MO_SQRT, flush(b, x), -1, -1), -1);
	default: return flush(b, build_exp2(b, x)); /* 2^x of a subnormal x is 1 with or without flushing */
	}
}

Func
math_fast_func(Func fn)
{
	return fn == F_EXP ? F_EXP_APPROX : fn == F_EXP2 ? F_EXP2_APPROX : fn;
}

const char *
math_gpu_difference(Func fn)
{
	switch (fn) {
	case F_ERF: return "2 ulps";
	case F_EXP_APPROX: case F_EXP2_APPROX: return "3 ulps";
	case F_RCP_APPROX: return "1 ulp";
	case F_RSQRT_APPROX: return "5 ulps";
	default: return NULL;
	}
}

int
math_build(MathGen *g, Func fn, int x)
{
	B b = {g};
	switch (fn) {
	case F_EXP: return build_exp(&b, x);
	case F_EXP2: return build_exp2(&b, x);
	case F_LOG: return build_log(&b, x, false);
	case F_LOG2: return build_log(&b, x, true);
	case F_TANH: return build_tanh(&b, x);
	case F_ERF: return g->approx && math_has_approx(fn) ? build_erf_gpu(&b, x) : build_erf(&b, x);
	case F_SIN: return build_sincos(&b, x, 0);
	case F_COS: return build_sincos(&b, x, 1);
	case F_EXP_APPROX: case F_EXP2_APPROX: case F_RCP_APPROX: case F_RSQRT_APPROX: return build_approx(&b, fn, x);
	default: fatal("math_build: %s is not built here", func_name(fn));
	}
}

bool
math_is_built(Func fn)
{
	return fn == F_EXP || fn == F_EXP2 || fn == F_LOG || fn == F_LOG2 || fn == F_TANH || fn == F_ERF ||
	       fn == F_SIN || fn == F_COS || math_has_approx(fn);
}

bool
math_has_approx(Func fn)
{
	return fn == F_ERF || fn == F_EXP_APPROX || fn == F_EXP2_APPROX || fn == F_RCP_APPROX || fn == F_RSQRT_APPROX;
}

MathKind
math_result_kind(MOp o, MathKind b_kind)
{
	switch (o) {
	case MO_F2I: case MO_ASINT: case MO_IADD: case MO_ISUB: case MO_IAND: case MO_IOR: case MO_IXOR:
	case MO_SHL: case MO_SHRA:
		return MK_I32;
	case MO_FLT: case MO_FNAN: case MO_INE0:
		return MK_PRED;
	case MO_SEL:
		return b_kind;
	default:
		return MK_F32;
	}
}

/* The interpreter: the same operations on the CPU, for the unit test's accuracy sweep. */
typedef struct Interp {
	MathGen g;
	double ex2_error; /* MO_EX2, MO_RCP, MO_RSQ: the true value times (1 + ex2_error) */
	union {
		float f;
		int32_t i;
	} v[512];
	int n;
} Interp;

static int
interp_new(Interp *in)
{
	if (in->n >= 512)
		fatal("math interpreter: too many values");
	return in->n++;
}

static int
interp_kf(MathGen *g, float v)
{
	Interp *in = (Interp *)g;
	int r = interp_new(in);
	in->v[r].f = v;
	return r;
}

static int
interp_ki(MathGen *g, int32_t v)
{
	Interp *in = (Interp *)g;
	int r = interp_new(in);
	in->v[r].i = v;
	return r;
}

static int
interp_op(MathGen *g, MOp o, int a, int b, int c)
{
	Interp *in = (Interp *)g;
	float x = a >= 0 ? in->v[a].f : 0, y = b >= 0 ? in->v[b].f : 0, z = c >= 0 ? in->v[c].f : 0;
	int32_t i = a >= 0 ? in->v[a].i : 0, j = b >= 0 ? in->v[b].i : 0;
	int r = interp_new(in);
	switch (o) {
	case MO_FMA: in->v[r].f = fmaf(x, y, z); break;
	case MO_MUL: in->v[r].f = x * y; break;
	case MO_ADD: in->v[r].f = x + y; break;
	case MO_SUB: in->v[r].f = x - y; break;
	case MO_DIV: in->v[r].f = x / y; break;
	case MO_RINT: in->v[r].f = rintf(x); break;
	case MO_F2I: in->v[r].i = x != x ? 0 : x >= 2147483647.0f ? INT32_MAX : x <= -2147483648.0f ? INT32_MIN
	                                                                            : (int32_t)rintf(x); break;
	case MO_I2F: in->v[r].f = (float)i; break;
	case MO_ASINT: in->v[r].i = i; break;
	case MO_ASFLT: in->v[r].i = i; break;
	case MO_IADD: in->v[r].i = (int32_t)((uint32_t)i + (uint32_t)j); break;
	case MO_ISUB: in->v[r].i = (int32_t)((uint32_t)i - (uint32_t)j); break;
	case MO_IAND: in->v[r].i = i & j; break;
	case MO_IOR: in->v[r].i = i | j; break;
	case MO_IXOR: in->v[r].i = i ^ j; break;
	case MO_SHL: in->v[r].i = (int32_t)((uint32_t)i << j); break;
	case MO_SHRA: in->v[r].i = i < 0 ? ~(~i >> j) : i >> j; break;
	case MO_FLT: in->v[r].i = x < y; break;
	case MO_FNAN: in->v[r].i = x != x; break;
	case MO_INE0: in->v[r].i = i != 0; break;
	case MO_SEL: in->v[r] = in->v[a].i ? in->v[b] : in->v[c]; break;
	case MO_EX2: /* .ftz: a result below the normal range is 0 */
		in->v[r].f = (float)(exp2((double)x) * (1.0 + in->ex2_error));
		if (in->v[r].f < 0x1p-126f)
			in->v[r].f = 0.0f;
		break;
	case MO_FABS: in->v[r].f = fabsf(x); break;
	case MO_SQRT: in->v[r].f = sqrtf(x); break;
	case MO_RCP: /* .ftz: subnormal operands are zeros of their sign, subnormal results too */
	case MO_RSQ:
		x = fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x;
		in->v[r].f = (float)((o == MO_RCP ? 1.0 / x : 1.0 / sqrt((double)x)) * (1.0 + in->ex2_error));
		if (fabsf(in->v[r].f) < 0x1p-126f)
			in->v[r].f = copysignf(0.0f, in->v[r].f);
		break;
	}
	return r;
}

static float
interp_run(Func fn, float x, bool approx, double ex2_error)
{
	static Interp in;
	memset(&in, 0, sizeof in);
	in.g.op = interp_op;
	in.g.kf = interp_kf;
	in.g.ki = interp_ki;
	in.g.approx = approx;
	in.ex2_error = ex2_error;
	int a = interp_kf(&in.g, x);
	return in.v[math_build(&in.g, fn, a)].f;
}

float
math_eval(Func fn, float x)
{
	return interp_run(fn, x, false, 0.0);
}

float
math_eval_gpu(Func fn, float x, double ex2_error)
{
	return interp_run(fn, x, true, ex2_error);
}
