// epilogue_kernel.cu: bench/peer/epilogue_kernel.tile (examples/embed/epilogue.tile's gemm_epilogue in a
// kernel) written by hand as a CUDA programmer would: the twin beside tilec and the CuTe peer in
// bench/sass_figures.sh.
//
// D[i, j] = bf16(GELU(alpha * acc[i, j] + beta * C[i, j] + bias[j])) for the 128 x 128 tile of TMEM
// columns 0..127 (datapath layout D: row i in lane i), masked to the M x N matrix. Thread t of the
// warpgroup holds row t: four chunks of 32 columns, each one tcgen05.ld 32x32b.x32. A chunk's loads of
// C and bias are issued between its tcgen05.ld and the wait, so their latency overlaps the TMEM read.
// The arithmetic is the .tile program's, f32 operations in its order; erf is tilec's sequence
// (src/mathfn.c: x * P(x^2) below 1, 1 - erfc(1) * 2^Q(|x| - 1) above), bf16 rounds to nearest even.
//
// Alignment. C, bias and D are 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc
// gives 256) and the tile's columns start at multiples of 128, so every run of 4 columns of bias is an
// aligned float4. The rows of C and D start at row * ldc and row * ldd, whose alignment is known only
// at launch: a run of 4 floats of C (8 bf16 of D) moves as one 16-byte vector where it lies inside the
// matrix and ldc % 4 == 0 (ldd % 8 == 0), else element by element, skipping what lies outside.
// With -DALIGN16 the twin takes CUTLASS's 16-byte contract instead (ldc % 4 == 0, ldd % 8 == 0 and
// N % 8 == 0, as CUTLASS's can_implement demands): every access is a vector, one test per vector.
// Elements per thread: 128 (bench/sass_figures.sh divides the SASS count by it).
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;
typedef unsigned short uint16_t;	// bf16 bits

#ifdef ALIGN16
// N % 8 == 0: a vector that starts inside the matrix lies inside whole; no element-wise path
#define VECTOR_OK(ld_mask) true
#define INSIDE(col, width) ((col) < N)
#define ELEMENTWISE false
#else
#define VECTOR_OK(ld_mask) ((ld_mask) == 0)
#define INSIDE(col, width) ((col) + (width) - 1 < N)
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

static __device__ __forceinline__ uint16_t bf16_rn(float x)
{
	uint16_t h;
	asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
	return h;
}

extern "C" __global__ void __launch_bounds__(128)
epilogue_kernel(const float *__restrict__ C, const float *__restrict__ bias, uint16_t *__restrict__ D, int M, int N,
                int ldc, int ldd, float alpha, float beta)
{
	__shared__ uint32_t tmem_base;
	const uint32_t warp = threadIdx.x / 32;
	if (warp == 0) {
		uint32_t slot = (uint32_t)__cvta_generic_to_shared(&tmem_base);
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" :: "r"(slot) : "memory");
	}
	// The fences order warp 0's alloc before the other warps read the slot and use TMEM.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	// Warp w reads its own slab, lanes 32w .. 32w+31.
	const uint32_t taddr = tmem_base + ((warp * 32) << 16);

	const int row = (int)blockIdx.y * 128 + (int)threadIdx.x;
	const int col0 = (int)blockIdx.x * 128;
	const bool in_row = row < M;
	const float *c_row = C + (long long)row * ldc;
	uint16_t *d_row = D + (long long)row * ldd;
	const bool c_vec = VECTOR_OK(ldc & 3), d_vec = VECTOR_OK(ldd & 7);

#pragma unroll
	for (int q = 0; q < 4; q++) {
		uint32_t x[32];
		float c[32], b[32];
		asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
			"%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
			: "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]), "=r"(x[4]), "=r"(x[5]), "=r"(x[6]), "=r"(x[7]),
			  "=r"(x[8]), "=r"(x[9]), "=r"(x[10]), "=r"(x[11]), "=r"(x[12]), "=r"(x[13]), "=r"(x[14]), "=r"(x[15]),
			  "=r"(x[16]), "=r"(x[17]), "=r"(x[18]), "=r"(x[19]), "=r"(x[20]), "=r"(x[21]), "=r"(x[22]), "=r"(x[23]),
			  "=r"(x[24]), "=r"(x[25]), "=r"(x[26]), "=r"(x[27]), "=r"(x[28]), "=r"(x[29]), "=r"(x[30]), "=r"(x[31])
			: "r"(taddr + q * 32) : "memory");
#pragma unroll
		for (int k = 0; k < 32; k += 4) {
			const int col = col0 + q * 32 + k;
			if (in_row && INSIDE(col, 4) && c_vec) {
				const float4 u = *(const float4 *)&c_row[col], v = *(const float4 *)&bias[col];
				c[k] = u.x, c[k + 1] = u.y, c[k + 2] = u.z, c[k + 3] = u.w;
				b[k] = v.x, b[k + 1] = v.y, b[k + 2] = v.z, b[k + 3] = v.w;
			} else {
#pragma unroll
				for (int e = 0; e < 4; e++) {
					const bool inside = ELEMENTWISE && in_row && col + e < N;
					c[k + e] = inside ? c_row[col + e] : 0.0f;
					b[k + e] = inside ? bias[col + e] : 0.0f;
				}
			}
		}
		// The registers are tied to the wait, so that nothing reads them before it.
		asm volatile("tcgen05.wait::ld.sync.aligned;"
			: "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3]), "+r"(x[4]), "+r"(x[5]), "+r"(x[6]), "+r"(x[7]),
			  "+r"(x[8]), "+r"(x[9]), "+r"(x[10]), "+r"(x[11]), "+r"(x[12]), "+r"(x[13]), "+r"(x[14]), "+r"(x[15]),
			  "+r"(x[16]), "+r"(x[17]), "+r"(x[18]), "+r"(x[19]), "+r"(x[20]), "+r"(x[21]), "+r"(x[22]), "+r"(x[23]),
			  "+r"(x[24]), "+r"(x[25]), "+r"(x[26]), "+r"(x[27]), "+r"(x[28]), "+r"(x[29]), "+r"(x[30]), "+r"(x[31])
			:: "memory");
		uint16_t d[32];
#pragma unroll
		for (int k = 0; k < 32; k++) {
			const float v = __fmaf_rn(alpha, __uint_as_float(x[k]), __fmaf_rn(beta, c[k], b[k]));
			d[k] = bf16_rn(__fmul_rn(__fmul_rn(0.5f, v), __fadd_rn(1.0f, erf_tilec(__fmul_rn(v, 0.707106769f)))));
		}
#pragma unroll
		for (int k = 0; k < 32; k += 8) {
			const int col = col0 + q * 32 + k;
			if (in_row && INSIDE(col, 8) && d_vec) {
				*(uint4 *)&d_row[col] = make_uint4(d[k] | (uint32_t)d[k + 1] << 16, d[k + 2] | (uint32_t)d[k + 3] << 16,
				                                   d[k + 4] | (uint32_t)d[k + 5] << 16, d[k + 6] | (uint32_t)d[k + 7] << 16);
			} else {
#pragma unroll
				for (int e = 0; e < 8; e++)
					if (ELEMENTWISE && in_row && col + e < N)
						d_row[col + e] = d[k + e];
			}
		}
	}

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" :: "r"(tmem_base) : "memory");
	}
}
