// separated_slots.cu: examples/separated_slots.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/separated_slots.cu bench/handwritten/separated_slots.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 70 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/separated_slots.cu: 70 registers).
//
// Two 128 x 32 tiles interleaved in one 64-register file: tile 0 in the even registers, tile 1 in
// the odd ones. Each warp stores the even registers with one 32x32b.x32 and loads the same cells back
// into the odd registers, so Out[t, 2k] = Out[t, 2k+1] = A[t, 2k].
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// Only the even words of A are live (the odd registers are overwritten by the ld), so nvcc splits the
// vector loads into 32-bit ones. The stores stay scalar: a vector store takes words that two
// different instructions wrote, and the copies that puts them side by side cost 8 registers and 16
// SASS instructions (78 registers, 231 instructions with uint4 stores; 70 and 215 without).
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
separated_slots(const float *__restrict__ A, float *__restrict__ Out)
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

	// Layout D, thread t holds row t: warp w's rows are lanes 32w .. 32w+31 (its slab), columns 0..31.
	const uint32_t taddr = tmem_base + ((warp * 32) << 16);

	uint32_t r[64];

#pragma unroll
	for (int j = 0; j < 64; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 64 + j];
		r[j] = v.x, r[j + 1] = v.y, r[j + 2] = v.z, r[j + 3] = v.w;
	}

	// Tile 0, column k, is register 2k.
	asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {"
	    "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
	    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32"
	    "};"
	    :
	    : "r"(taddr),
		  "r"(r[0]), "r"(r[2]), "r"(r[4]), "r"(r[6]), "r"(r[8]), "r"(r[10]), "r"(r[12]), "r"(r[14]),
		  "r"(r[16]), "r"(r[18]), "r"(r[20]), "r"(r[22]), "r"(r[24]), "r"(r[26]), "r"(r[28]), "r"(r[30]),
		  "r"(r[32]), "r"(r[34]), "r"(r[36]), "r"(r[38]), "r"(r[40]), "r"(r[42]), "r"(r[44]), "r"(r[46]),
		  "r"(r[48]), "r"(r[50]), "r"(r[52]), "r"(r[54]), "r"(r[56]), "r"(r[58]), "r"(r[60]), "r"(r[62])
	    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

	// Tile 1, column k, is register 2k + 1.
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
	    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
	    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
	    "}, [%32];"
	    :
		  "=r"(r[1]), "=r"(r[3]), "=r"(r[5]), "=r"(r[7]), "=r"(r[9]), "=r"(r[11]), "=r"(r[13]), "=r"(r[15]),
		  "=r"(r[17]), "=r"(r[19]), "=r"(r[21]), "=r"(r[23]), "=r"(r[25]), "=r"(r[27]), "=r"(r[29]), "=r"(r[31]),
		  "=r"(r[33]), "=r"(r[35]), "=r"(r[37]), "=r"(r[39]), "=r"(r[41]), "=r"(r[43]), "=r"(r[45]), "=r"(r[47]),
		  "=r"(r[49]), "=r"(r[51]), "=r"(r[53]), "=r"(r[55]), "=r"(r[57]), "=r"(r[59]), "=r"(r[61]), "=r"(r[63])
	    : "r"(taddr)
	    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");

#pragma unroll
	for (int j = 0; j < 64; j++)
		Out[tid * 64 + j] = __uint_as_float(r[j]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_base) : "memory");
	}
}
