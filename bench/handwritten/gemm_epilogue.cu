// gemm_epilogue.cu: examples/gemm_epilogue.tile written by hand: the baseline for its masked copies
// (bench/sass_figures.sh gemm_epilogue, bench/compare_registers.sh tests/examples/gemm_epilogue.cu
// bench/handwritten/gemm_epilogue.cu).
//
// D = GELU(alpha * Acc + beta * C) over an M x N matrix; C and D have leading dimensions ldc and ldd,
// Acc is row-major. Each block takes a tile of 128 rows by 32 columns, thread t row top + t. Each run
// of 4 columns moves as one float4 where it lies inside the matrix and its address is 16-byte
// aligned (the leading dimension is known only at launch), else element by element, skipping what
// lies outside: a load there gives 0, a store writes nothing. The arithmetic is the .tile program's,
// f32 operations in its order, x * 0.707106781 then erff.
// No #include: the file must stand alone, as tilec's output does.

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
		if (in_row && col + 3 < N && (a & 3) == 0) {
			const float4 v = *(const float4 *)&Acc[a];
			acc[k] = v.x, acc[k + 1] = v.y, acc[k + 2] = v.z, acc[k + 3] = v.w;
		} else {
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[k + e] = in_row && col + e < N ? Acc[a + e] : 0.0f;
		}
		if (in_row && col + 3 < N && (ci & 3) == 0) {
			const float4 v = *(const float4 *)&C[ci];
			c[k] = v.x, c[k + 1] = v.y, c[k + 2] = v.z, c[k + 3] = v.w;
		} else {
#pragma unroll
			for (int e = 0; e < 4; e++)
				c[k + e] = in_row && col + e < N ? C[ci + e] : 0.0f;
		}
	}
#pragma unroll
	for (int k = 0; k < 32; k++) {
		const float x = __fmaf_rn(beta, c[k], __fmul_rn(alpha, acc[k]));
		acc[k] = __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, erff(__fmul_rn(x, 0.707106781f))));
	}
#pragma unroll
	for (int k = 0; k < 32; k += 4) {
		const int col = left + k;
		const long long d = d_row + col;
		if (in_row && col + 3 < N && (d & 3) == 0) {
			*(float4 *)&D[d] = make_float4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]);
		} else {
#pragma unroll
			for (int e = 0; e < 4; e++)
				if (in_row && col + e < N)
					D[d + e] = acc[k + e];
		}
	}
}
