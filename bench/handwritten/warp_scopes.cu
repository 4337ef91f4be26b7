// warp_scopes.cu: examples/warp_scopes.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/warp_scopes.cu bench/handwritten/warp_scopes.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 40 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/warp_scopes.cu: 40 registers).
//
// Single-warp accesses: warp 2 stores and loads lanes 64..95, warp 1 lanes 32..63, each with one
// 32x32b.x32 (the .tile's warp(2) and warp scopes, two separate guarded instructions as there).
// Warps 0 and 3 move nothing and write back zeros. Out[w, l, :] is what lane l of warp w read back.
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
warp_scopes(const float *__restrict__ A, float *__restrict__ Out)
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

	// Every lane of warp w holds its own row (TLane), columns 0..31. Warp 2 may touch only lanes 64..95
	// and warp 1 only 32..63 (their slabs): the base plus (64 << 16) and plus (32 << 16).
	const uint32_t lane = tid % 32;

	uint32_t r[32];

#pragma unroll
	for (int j = 0; j < 32; j += 4) {
		const uint4 v = *(const uint4 *)&A[(warp * 32 + lane) * 32 + j];
		r[j] = v.x, r[j + 1] = v.y, r[j + 2] = v.z, r[j + 3] = v.w;
	}

	if (warp == 2)
		asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {"
		    "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
		    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32"
		    "};"
		    :
		    : "r"(tmem_base + (64 << 16)),
			  "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
			  "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]),
			  "r"(r[16]), "r"(r[17]), "r"(r[18]), "r"(r[19]), "r"(r[20]), "r"(r[21]), "r"(r[22]), "r"(r[23]),
			  "r"(r[24]), "r"(r[25]), "r"(r[26]), "r"(r[27]), "r"(r[28]), "r"(r[29]), "r"(r[30]), "r"(r[31])
		    : "memory");
	if (warp == 1)
		asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {"
		    "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
		    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32"
		    "};"
		    :
		    : "r"(tmem_base + (32 << 16)),
			  "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
			  "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]),
			  "r"(r[16]), "r"(r[17]), "r"(r[18]), "r"(r[19]), "r"(r[20]), "r"(r[21]), "r"(r[22]), "r"(r[23]),
			  "r"(r[24]), "r"(r[25]), "r"(r[26]), "r"(r[27]), "r"(r[28]), "r"(r[29]), "r"(r[30]), "r"(r[31])
		    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

	// Clear the registers so that only the load can bring the data back.
#pragma unroll
	for (int j = 0; j < 32; j++)
		r[j] = 0;

	if (warp == 2)
		asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
		    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
		    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
		    "}, [%32];"
		    :
			  "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
			  "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
			  "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
			  "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
		    : "r"(tmem_base + (64 << 16))
		    : "memory");
	if (warp == 1)
		asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
		    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
		    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
		    "}, [%32];"
		    :
			  "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
			  "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
			  "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
			  "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
		    : "r"(tmem_base + (32 << 16))
		    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");

#pragma unroll
	for (int j = 0; j < 32; j += 4)
		*(uint4 *)&Out[(warp * 32 + lane) * 32 + j] = make_uint4(r[j], r[j + 1], r[j + 2], r[j + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_base) : "memory");
	}
}
