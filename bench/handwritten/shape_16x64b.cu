// shape_16x64b.cu: examples/shape_16x64b.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/shape_16x64b.cu bench/handwritten/shape_16x64b.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 72 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/shape_16x64b.cu: 72 registers).
//
// 16x64b.x8 over a 128 x 64 Layout D tile: each warp moves its slab as two 16-lane halves h and four
// 16-column quarters p, eight instructions of 8 registers each. A and Out hold each thread's 64
// registers.
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
shape_16x64b(const float *__restrict__ A, float *__restrict__ Out)
{
	__shared__ uint32_t tmem_base;
	const uint32_t tid = threadIdx.x;
	const uint32_t warp = tid / 32;

	if (warp == 0) {
		uint32_t slot = (uint32_t)__cvta_generic_to_shared(&tmem_base);
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;" :: "r"(slot) : "memory");
	}
	// The fences order warp 0's alloc before the other warps read the slot and use TMEM.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

	// The 16x64b image puts lane l, register k at row l/4 + 8*(l%2), column (l/2)%2 + 2k; the .tile's
	// register layout puts element [32w + 16h + 8a + b, 16p + 2c + d] in lane 4b + 2d + a of warp w,
	// register 32h + 8p + c. So instruction (h, p) of warp w sends registers 32h + 8p .. 32h + 8p + 7 in
	// order, at TLane 32w + 16h (inside the slab) and column 16p: the base plus ((32w + 16h) << 16) + 16p.
	const uint32_t taddr = tmem_base + ((warp * 32) << 16);

	uint32_t r[64];

#pragma unroll
	for (int j = 0; j < 64; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 64 + j];
		r[j] = v.x, r[j + 1] = v.y, r[j + 2] = v.z, r[j + 3] = v.w;
	}

#pragma unroll
	for (int h = 0; h < 2; h++)
#pragma unroll
		for (int p = 0; p < 4; p++)
			asm volatile("tcgen05.st.sync.aligned.16x64b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
			    :
			    : "r"(taddr + ((16 * h) << 16) + 16 * p),
				  "r"(r[32 * h + 8 * p + 0]), "r"(r[32 * h + 8 * p + 1]), "r"(r[32 * h + 8 * p + 2]), "r"(r[32 * h + 8 * p + 3]),
				  "r"(r[32 * h + 8 * p + 4]), "r"(r[32 * h + 8 * p + 5]), "r"(r[32 * h + 8 * p + 6]), "r"(r[32 * h + 8 * p + 7])
			    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

	// Clear the registers so that only the load can bring the data back.
#pragma unroll
	for (int j = 0; j < 64; j++)
		r[j] = 0;

#pragma unroll
	for (int h = 0; h < 2; h++)
#pragma unroll
		for (int p = 0; p < 4; p++)
			asm volatile("tcgen05.ld.sync.aligned.16x64b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
			    :
				  "=r"(r[32 * h + 8 * p + 0]), "=r"(r[32 * h + 8 * p + 1]), "=r"(r[32 * h + 8 * p + 2]), "=r"(r[32 * h + 8 * p + 3]),
				  "=r"(r[32 * h + 8 * p + 4]), "=r"(r[32 * h + 8 * p + 5]), "=r"(r[32 * h + 8 * p + 6]), "=r"(r[32 * h + 8 * p + 7])
			    : "r"(taddr + ((16 * h) << 16) + 16 * p)
			    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");

#pragma unroll
	for (int j = 0; j < 64; j += 4)
		*(uint4 *)&Out[tid * 64 + j] = make_uint4(r[j], r[j + 1], r[j + 2], r[j + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" :: "r"(tmem_base) : "memory");
	}
}
