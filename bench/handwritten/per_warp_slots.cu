// per_warp_slots.cu: examples/per_warp_slots.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/per_warp_slots.cu bench/handwritten/per_warp_slots.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 24 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/per_warp_slots.cu: 24 registers).
//
// Each warp moves one 32 x 8 tile with one 32x32b.x8 st and ld: warp w stores row l of A[w] from lane
// l into its own slab and loads it back into Out[w]. In the .tile every thread has a 32-slot register
// file (tile t in slots 8t .. 8t+7) and warp w uses only tile w's eight slots; by hand each thread
// simply keeps those eight registers, so one instruction with a warp-dependent address serves all
// warps (tilec, which names registers statically, issues a four-way branch instead).
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
per_warp_slots(const float *__restrict__ A, float *__restrict__ Out)
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

	// Layout D, tile w = rows 32w .. 32w+31 of the 128 x 8 tensor, lane l holding row 32w + l: TLanes
	// 32w .. 32w+31 (warp w's slab), columns 0..7: the base plus (32w << 16).
	const uint32_t taddr = tmem_base + ((warp * 32) << 16);

	uint32_t r[8];

	// A[w, l, c] with w = warp, l = lane is A[tid * 8 + c].
#pragma unroll
	for (int j = 0; j < 8; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 8 + j];
		r[j] = v.x, r[j + 1] = v.y, r[j + 2] = v.z, r[j + 3] = v.w;
	}

	asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
	    :
	    : "r"(taddr),
		  "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7])
	    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

	// Clear the registers so that only the load can bring the data back.
#pragma unroll
	for (int j = 0; j < 8; j++)
		r[j] = 0;

	asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
	    :
		  "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
	    : "r"(taddr)
	    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");

#pragma unroll
	for (int j = 0; j < 8; j += 4)
		*(uint4 *)&Out[tid * 8 + j] = make_uint4(r[j], r[j + 1], r[j + 2], r[j + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_base) : "memory");
	}
}
