// layout_f_subslab.cu: examples/layout_f_subslab.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/layout_f_subslab.cu bench/handwritten/layout_f_subslab.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 18 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/layout_f_subslab.cu: 18 registers).
//
// An M=64 Layout F accumulator with sub_slab = 1: each warp stores and loads its 16 rows with one
// 16x64b.x4 at lane offset 16 of its slab. A and Out hold each thread's 4 registers.
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
layout_f_subslab(const float *__restrict__ A, float *__restrict__ Out)
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

	// Layout F, sub_slab 1: row i at TLane 32 * (i / 16) + 16 + i % 16. The 16x64b image gives lane l
	// register c the row l/4 + 8*(l%2) and column (l/2)%2 + 2c, which is where the .tile's register
	// layout puts row 16w + .. of warp w: so warp w moves rows 16w .. 16w+15, i.e. TLanes 32w+16 ..
	// 32w+31, the second half of its slab, columns 0..7: the base plus (32w + 16) << 16.
	const uint32_t taddr = tmem_base + ((warp * 32 + 16) << 16);

	uint32_t r[4];

#pragma unroll
	for (int j = 0; j < 4; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 4 + j];
		r[j] = v.x, r[j + 1] = v.y, r[j + 2] = v.z, r[j + 3] = v.w;
	}

	asm volatile("tcgen05.st.sync.aligned.16x64b.x4.b32 [%0], {%1, %2, %3, %4};"
	    :
	    : "r"(taddr),
		  "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
	    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

	// Clear the registers so that only the load can bring the data back.
#pragma unroll
	for (int j = 0; j < 4; j++)
		r[j] = 0;

	asm volatile("tcgen05.ld.sync.aligned.16x64b.x4.b32 {%0, %1, %2, %3}, [%4];"
	    :
		  "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
	    : "r"(taddr)
	    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");

#pragma unroll
	for (int j = 0; j < 4; j += 4)
		*(uint4 *)&Out[tid * 4 + j] = make_uint4(r[j], r[j + 1], r[j + 2], r[j + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_base) : "memory");
	}
}
