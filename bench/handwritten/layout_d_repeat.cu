// layout_d_repeat.cu: examples/layout_d_repeat.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/layout_d_repeat.cu bench/handwritten/layout_d_repeat.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 168 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/layout_d_repeat.cu: 139 registers).
//
// 128 x 128 Layout D round trip: thread tid holds row tid (128 registers); each warp issues four
// 32x32b.x32 stores and four loads, one per 32-column quarter.
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
layout_d_repeat(const float *__restrict__ A, float *__restrict__ Out)
{
	__shared__ uint32_t tmem_base;
	const uint32_t tid = threadIdx.x;
	const uint32_t warp = tid / 32;

	if (warp == 0) {
		uint32_t slot = (uint32_t)__cvta_generic_to_shared(&tmem_base);
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" :: "r"(slot) : "memory");
	}
	// The fences order warp 0's alloc before the other warps read the slot and use TMEM.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

	// Layout D: row i at TLane i, column j at TCol j. Thread t holds row t in registers 0..127, so warp
	// w owns lanes 32w .. 32w+31 (its slab) and quarter q (registers 32q .. 32q+31) is at column 32q:
	// the base plus (32w << 16) plus 32q.
	const uint32_t taddr = tmem_base + ((warp * 32) << 16);

	uint32_t r[128];

#pragma unroll
	for (int j = 0; j < 128; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 128 + j];
		r[j] = v.x, r[j + 1] = v.y, r[j + 2] = v.z, r[j + 3] = v.w;
	}

#pragma unroll
	for (int q = 0; q < 4; q++)
		asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {"
		    "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
		    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32"
		    "};"
		    :
		    : "r"(taddr + 32 * q),
			  "r"(r[32 * q + 0]), "r"(r[32 * q + 1]), "r"(r[32 * q + 2]), "r"(r[32 * q + 3]),
			  "r"(r[32 * q + 4]), "r"(r[32 * q + 5]), "r"(r[32 * q + 6]), "r"(r[32 * q + 7]),
			  "r"(r[32 * q + 8]), "r"(r[32 * q + 9]), "r"(r[32 * q + 10]), "r"(r[32 * q + 11]),
			  "r"(r[32 * q + 12]), "r"(r[32 * q + 13]), "r"(r[32 * q + 14]), "r"(r[32 * q + 15]),
			  "r"(r[32 * q + 16]), "r"(r[32 * q + 17]), "r"(r[32 * q + 18]), "r"(r[32 * q + 19]),
			  "r"(r[32 * q + 20]), "r"(r[32 * q + 21]), "r"(r[32 * q + 22]), "r"(r[32 * q + 23]),
			  "r"(r[32 * q + 24]), "r"(r[32 * q + 25]), "r"(r[32 * q + 26]), "r"(r[32 * q + 27]),
			  "r"(r[32 * q + 28]), "r"(r[32 * q + 29]), "r"(r[32 * q + 30]), "r"(r[32 * q + 31])
		    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

	// Clear the registers so that only the load can bring the data back.
#pragma unroll
	for (int j = 0; j < 128; j++)
		r[j] = 0;

#pragma unroll
	for (int q = 0; q < 4; q++)
		asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
		    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
		    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
		    "}, [%32];"
		    :
			  "=r"(r[32 * q + 0]), "=r"(r[32 * q + 1]), "=r"(r[32 * q + 2]), "=r"(r[32 * q + 3]),
			  "=r"(r[32 * q + 4]), "=r"(r[32 * q + 5]), "=r"(r[32 * q + 6]), "=r"(r[32 * q + 7]),
			  "=r"(r[32 * q + 8]), "=r"(r[32 * q + 9]), "=r"(r[32 * q + 10]), "=r"(r[32 * q + 11]),
			  "=r"(r[32 * q + 12]), "=r"(r[32 * q + 13]), "=r"(r[32 * q + 14]), "=r"(r[32 * q + 15]),
			  "=r"(r[32 * q + 16]), "=r"(r[32 * q + 17]), "=r"(r[32 * q + 18]), "=r"(r[32 * q + 19]),
			  "=r"(r[32 * q + 20]), "=r"(r[32 * q + 21]), "=r"(r[32 * q + 22]), "=r"(r[32 * q + 23]),
			  "=r"(r[32 * q + 24]), "=r"(r[32 * q + 25]), "=r"(r[32 * q + 26]), "=r"(r[32 * q + 27]),
			  "=r"(r[32 * q + 28]), "=r"(r[32 * q + 29]), "=r"(r[32 * q + 30]), "=r"(r[32 * q + 31])
		    : "r"(taddr + 32 * q)
		    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");

#pragma unroll
	for (int j = 0; j < 128; j += 4)
		*(uint4 *)&Out[tid * 128 + j] = make_uint4(r[j], r[j + 1], r[j + 2], r[j + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" :: "r"(tmem_base) : "memory");
	}
}
