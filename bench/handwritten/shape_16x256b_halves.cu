// shape_16x256b_halves.cu: examples/shape_16x256b_halves.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/shape_16x256b_halves.cu bench/handwritten/shape_16x256b_halves.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 38 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/shape_16x256b_halves.cu: 38 registers).
//
// A 128 x 16 Layout D accumulator moved with 16x256b.x2 (the mma.sync m16n8 fragment) in two halves:
// each warp issues one instruction at lane offset 0 and one at 16. A and Out hold each thread's 16
// registers.
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
shape_16x256b_halves(const float *__restrict__ A, float *__restrict__ Out)
{
	__shared__ uint32_t tmem_base;
	const uint32_t tid = threadIdx.x;
	const uint32_t warp = tid / 32;

	if (warp == 0) {
		uint32_t slot = (uint32_t)__cvta_generic_to_shared(&tmem_base);
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(slot) : "memory");
	}
	// The fences order warp 0's alloc before the other warps read the slot and use TMEM.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

	// The 16x256b image puts lane l, register k at row l/4 + 8*((k/2)%2), column k%2 + 2*(l%4) + 8*(k/4);
	// the .tile's fragment layout puts element [32w + 16h + 8a + b, 8c + 2d + e] in lane 4b + d of warp
	// w, register 8h + 4c + 2a + e. So half h of warp w is registers 8h .. 8h+7 in image order, at TLane
	// 32w + 16h (inside the slab), column 0: the base plus (32w + 16h) << 16.
	const uint32_t taddr = tmem_base + ((warp * 32) << 16);

	uint32_t r[16];

#pragma unroll
	for (int j = 0; j < 16; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 16 + j];
		r[j] = v.x, r[j + 1] = v.y, r[j + 2] = v.z, r[j + 3] = v.w;
	}

#pragma unroll
	for (int h = 0; h < 2; h++)
		asm volatile("tcgen05.st.sync.aligned.16x256b.x2.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
		    :
		    : "r"(taddr + ((16 * h) << 16)),
			  "r"(r[8 * h + 0]), "r"(r[8 * h + 1]), "r"(r[8 * h + 2]), "r"(r[8 * h + 3]),
			  "r"(r[8 * h + 4]), "r"(r[8 * h + 5]), "r"(r[8 * h + 6]), "r"(r[8 * h + 7])
		    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

	// Clear the registers so that only the load can bring the data back.
#pragma unroll
	for (int j = 0; j < 16; j++)
		r[j] = 0;

#pragma unroll
	for (int h = 0; h < 2; h++)
		asm volatile("tcgen05.ld.sync.aligned.16x256b.x2.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
		    :
			  "=r"(r[8 * h + 0]), "=r"(r[8 * h + 1]), "=r"(r[8 * h + 2]), "=r"(r[8 * h + 3]),
			  "=r"(r[8 * h + 4]), "=r"(r[8 * h + 5]), "=r"(r[8 * h + 6]), "=r"(r[8 * h + 7])
		    : "r"(taddr + ((16 * h) << 16))
		    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");

#pragma unroll
	for (int j = 0; j < 16; j += 4)
		*(uint4 *)&Out[tid * 16 + j] = make_uint4(r[j], r[j + 1], r[j + 2], r[j + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_base) : "memory");
	}
}
