// gemm_epilogue.cu: examples/gemm_epilogue.tile written by hand: the baseline for its masked copies
// (bench/sass_figures.sh gemm_epilogue, bench/compare_registers.sh tests/examples/gemm_epilogue.cu
// bench/handwritten/gemm_epilogue.cu).
//
// D = GELU(alpha * Acc + beta * C) over an M x N matrix; C and D have leading dimensions ldc and ldd,
// Acc is row-major. Each block takes a tile of 128 rows by 32 columns, thread t row top + t. Each run
// of 4 columns moves as one float4 where it lies inside the matrix and its address is 16-byte
// aligned (the leading dimension is known only at launch), else element by element, skipping what
// lies outside: a load there gives 0, a store writes nothing. The arithmetic is the .tile program's,
// f32 operations in its order, x * 0.707106781 then erf, tilec's sequence (src/mathfn.c: x * P(x^2)
// below 1, 1 - erfc(1) * 2^Q(|x| - 1) above), so that the twin computes the same bits.
// Alignment: Acc, C and D are 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc
// gives 256) and the tile's columns start at multiples of 32; whether a row starts 16-byte aligned
// (N, ldc, ldd) is known only at launch, hence the run-time test. With -DALIGN16 the twin takes
// CUTLASS's 16-byte contract instead (N, ldc and ldd multiples of 4): every access is a vector, one
// test per vector.
// Elements per thread: 32 (bench/sass_figures.sh divides the SASS count by it).
// No #include: the file must stand alone, as tilec's output does.

#ifdef ALIGN16
// N % 4 == 0: a vector that starts inside the matrix lies inside whole; no element-wise path
#define ALIGNED(index) true
#define INSIDE(col) ((col) < N)
#define ELEMENTWISE false
#else
#define ALIGNED(index) (((index) & 3) == 0)
#define INSIDE(col) ((col) + 3 < N)
#define ELEMENTWISE true
#endif

static __device__ __forceinline__ float erf_tilec(float x)
{
	const float a = fabsf(x), x2 = __fmul_rn(x, x), t = __fsub_rn(a, 1.0f);
	float p = __fmaf_rn(-9.66704465e-06f, x2, 0.000112659589f);
	p = __fmaf_rn(p, x2, -0.000848408032f);
	p = __fmaf_rn(p, x2, 0.00522103161f);
	p = __fmaf_rn(p, x2, -0.0268654302f);
	p = __fmaf_rn(p, x2, 0.112837821f);
	p = __fmaf_rn(p, x2, -0.376126379f);
	p = __fmaf_rn(p, x2, 1.12837923f);
	float q = __fmaf_rn(-3.12878255e-05f, t, 0.00041770289f);
	q = __fmaf_rn(q, t, -0.00290265866f);
	q = __fmaf_rn(q, t, 0.0144939711f);
	q = __fmaf_rn(q, t, -0.0599634312f);
	q = __fmaf_rn(q, t, -1.21634638f);
	q = __fmaf_rn(q, t, -3.80722547f);
	q = __fmaf_rn(q, t, 2.29766677e-08f);
	float e;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(q));
	const float big = __int_as_float(__float_as_int(__fmaf_rn(-0.157299206f, e, 1.0f)) | (__float_as_int(x) & 0x80000000));
	return a < 1.0f ? __fmul_rn(x, p) : big;
}

extern "C" __global__ void __launch_bounds__(128)
gemm_epilogue(const float *__restrict__ Acc, const float *__restrict__ C, float *__restrict__ D, int M, int N,
              int ldc, int ldd, float alpha, float beta)
{
	const int row = (int)blockIdx.y * 128 + (int)threadIdx.x;
	const int left = (int)blockIdx.x * 32;
	const bool in_row = row < M;
	const long long a_row = (long long)row * N, c_row = (long long)row * ldc, d_row = (long long)row * ldd;
	float acc[32], c[32];
#pragma unroll
	for (int k = 0; k < 32; k += 4) {
		const int col = left + k;
		const long long a = a_row + col, ci = c_row + col;
		if (in_row && INSIDE(col) && ALIGNED(a)) {
			const float4 v = *(const float4 *)&Acc[a];
			acc[k] = v.x, acc[k + 1] = v.y, acc[k + 2] = v.z, acc[k + 3] = v.w;
		} else {
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[k + e] = ELEMENTWISE && in_row && col + e < N ? Acc[a + e] : 0.0f;
		}
		if (in_row && INSIDE(col) && ALIGNED(ci)) {
			const float4 v = *(const float4 *)&C[ci];
			c[k] = v.x, c[k + 1] = v.y, c[k + 2] = v.z, c[k + 3] = v.w;
		} else {
#pragma unroll
			for (int e = 0; e < 4; e++)
				c[k + e] = ELEMENTWISE && in_row && col + e < N ? C[ci + e] : 0.0f;
		}
	}
#pragma unroll
	for (int k = 0; k < 32; k++) {
		const float x = __fmaf_rn(beta, c[k], __fmul_rn(alpha, acc[k]));
		acc[k] = __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, erf_tilec(__fmul_rn(x, 0.707106781f))));
	}
#pragma unroll
	for (int k = 0; k < 32; k += 4) {
		const int col = left + k;
		const long long d = d_row + col;
		if (in_row && INSIDE(col) && ALIGNED(d)) {
			*(float4 *)&D[d] = make_float4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]);
		} else {
#pragma unroll
			for (int e = 0; e < 4; e++)
				if (ELEMENTWISE && in_row && col + e < N)
					D[d + e] = acc[k + e];
		}
	}
}
