// tmem_shared_columns.cu: examples/tmem_shared_columns.tile written by hand, CUTLASS style: the register
// baseline for tilec's output (bench/compare_registers.sh tests/examples/tmem_shared_columns.cu
// bench/handwritten/tmem_shared_columns.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 96 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/tmem_shared_columns.cu: 142 registers).
//
// The column plan a person would make: 'keep' (32 columns) at columns 0..31 for the whole kernel,
// 'first' and 'second' (64 columns each, one after the other) both at columns 32..95, so 96 columns
// in use and an allocation of 128. Layout A puts row i at TLane i, so thread t's row is in its own
// warp's slab: each warp's address is the base plus (32 * warp) << 16, plus the column.
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
tmem_shared_columns(const float *__restrict__ A, float *__restrict__ Out)
{
	__shared__ uint32_t tmem_base;
	const uint32_t tid = threadIdx.x;
	const uint32_t warp = tid / 32;

	if (warp == 0) {
		uint32_t slot = (uint32_t)__cvta_generic_to_shared(&tmem_base);
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" :: "r"(slot) : "memory");
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
	}
	// The fences order warp 0's alloc before the other warps read the slot and use TMEM.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	const uint32_t keep = tmem_base + ((warp * 32) << 16);
	const uint32_t shared_cols = keep + 32; // 'first', then 'second'

	uint32_t r32[32], r64[64];

	// columns 0..31 of A wait in 'keep' until the end
#pragma unroll
	for (int j = 0; j < 32; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 160 + j];
		r32[j] = v.x, r32[j + 1] = v.y, r32[j + 2] = v.z, r32[j + 3] = v.w;
	}
	asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {"
	    "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
	    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32"
	    "};"
	    :
	    : "r"(keep),
		  "r"(r32[0]), "r"(r32[1]), "r"(r32[2]), "r"(r32[3]), "r"(r32[4]), "r"(r32[5]), "r"(r32[6]), "r"(r32[7]),
		  "r"(r32[8]), "r"(r32[9]), "r"(r32[10]), "r"(r32[11]), "r"(r32[12]), "r"(r32[13]), "r"(r32[14]), "r"(r32[15]),
		  "r"(r32[16]), "r"(r32[17]), "r"(r32[18]), "r"(r32[19]), "r"(r32[20]), "r"(r32[21]), "r"(r32[22]), "r"(r32[23]),
		  "r"(r32[24]), "r"(r32[25]), "r"(r32[26]), "r"(r32[27]), "r"(r32[28]), "r"(r32[29]), "r"(r32[30]), "r"(r32[31])
	    : "memory");

	// columns 32..95 go through 'first'
#pragma unroll
	for (int j = 0; j < 64; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 160 + 32 + j];
		r64[j] = v.x, r64[j + 1] = v.y, r64[j + 2] = v.z, r64[j + 3] = v.w;
	}
	asm volatile("tcgen05.st.sync.aligned.32x32b.x64.b32 [%0], {"
	    "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
	    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, "
	    "%33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, "
	    "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64"
	    "};"
	    :
	    : "r"(shared_cols),
		  "r"(r64[0]), "r"(r64[1]), "r"(r64[2]), "r"(r64[3]), "r"(r64[4]), "r"(r64[5]), "r"(r64[6]), "r"(r64[7]),
		  "r"(r64[8]), "r"(r64[9]), "r"(r64[10]), "r"(r64[11]), "r"(r64[12]), "r"(r64[13]), "r"(r64[14]), "r"(r64[15]),
		  "r"(r64[16]), "r"(r64[17]), "r"(r64[18]), "r"(r64[19]), "r"(r64[20]), "r"(r64[21]), "r"(r64[22]), "r"(r64[23]),
		  "r"(r64[24]), "r"(r64[25]), "r"(r64[26]), "r"(r64[27]), "r"(r64[28]), "r"(r64[29]), "r"(r64[30]), "r"(r64[31]),
		  "r"(r64[32]), "r"(r64[33]), "r"(r64[34]), "r"(r64[35]), "r"(r64[36]), "r"(r64[37]), "r"(r64[38]), "r"(r64[39]),
		  "r"(r64[40]), "r"(r64[41]), "r"(r64[42]), "r"(r64[43]), "r"(r64[44]), "r"(r64[45]), "r"(r64[46]), "r"(r64[47]),
		  "r"(r64[48]), "r"(r64[49]), "r"(r64[50]), "r"(r64[51]), "r"(r64[52]), "r"(r64[53]), "r"(r64[54]), "r"(r64[55]),
		  "r"(r64[56]), "r"(r64[57]), "r"(r64[58]), "r"(r64[59]), "r"(r64[60]), "r"(r64[61]), "r"(r64[62]), "r"(r64[63])
	    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x64.b32 {"
	    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
	    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
	    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
	    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
	    "}, [%64];"
	    :
		  "=r"(r64[0]), "=r"(r64[1]), "=r"(r64[2]), "=r"(r64[3]), "=r"(r64[4]), "=r"(r64[5]), "=r"(r64[6]), "=r"(r64[7]),
		  "=r"(r64[8]), "=r"(r64[9]), "=r"(r64[10]), "=r"(r64[11]), "=r"(r64[12]), "=r"(r64[13]), "=r"(r64[14]), "=r"(r64[15]),
		  "=r"(r64[16]), "=r"(r64[17]), "=r"(r64[18]), "=r"(r64[19]), "=r"(r64[20]), "=r"(r64[21]), "=r"(r64[22]), "=r"(r64[23]),
		  "=r"(r64[24]), "=r"(r64[25]), "=r"(r64[26]), "=r"(r64[27]), "=r"(r64[28]), "=r"(r64[29]), "=r"(r64[30]), "=r"(r64[31]),
		  "=r"(r64[32]), "=r"(r64[33]), "=r"(r64[34]), "=r"(r64[35]), "=r"(r64[36]), "=r"(r64[37]), "=r"(r64[38]), "=r"(r64[39]),
		  "=r"(r64[40]), "=r"(r64[41]), "=r"(r64[42]), "=r"(r64[43]), "=r"(r64[44]), "=r"(r64[45]), "=r"(r64[46]), "=r"(r64[47]),
		  "=r"(r64[48]), "=r"(r64[49]), "=r"(r64[50]), "=r"(r64[51]), "=r"(r64[52]), "=r"(r64[53]), "=r"(r64[54]), "=r"(r64[55]),
		  "=r"(r64[56]), "=r"(r64[57]), "=r"(r64[58]), "=r"(r64[59]), "=r"(r64[60]), "=r"(r64[61]), "=r"(r64[62]), "=r"(r64[63])
	    : "r"(shared_cols)
	    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
	for (int j = 0; j < 64; j += 4)
		*(uint4 *)&Out[tid * 160 + 32 + j] = make_uint4(r64[j], r64[j + 1], r64[j + 2], r64[j + 3]);

	// columns 96..159 go through 'second', in the columns 'first' had
#pragma unroll
	for (int j = 0; j < 64; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 160 + 96 + j];
		r64[j] = v.x, r64[j + 1] = v.y, r64[j + 2] = v.z, r64[j + 3] = v.w;
	}
	asm volatile("tcgen05.st.sync.aligned.32x32b.x64.b32 [%0], {"
	    "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
	    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, "
	    "%33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, "
	    "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64"
	    "};"
	    :
	    : "r"(shared_cols),
		  "r"(r64[0]), "r"(r64[1]), "r"(r64[2]), "r"(r64[3]), "r"(r64[4]), "r"(r64[5]), "r"(r64[6]), "r"(r64[7]),
		  "r"(r64[8]), "r"(r64[9]), "r"(r64[10]), "r"(r64[11]), "r"(r64[12]), "r"(r64[13]), "r"(r64[14]), "r"(r64[15]),
		  "r"(r64[16]), "r"(r64[17]), "r"(r64[18]), "r"(r64[19]), "r"(r64[20]), "r"(r64[21]), "r"(r64[22]), "r"(r64[23]),
		  "r"(r64[24]), "r"(r64[25]), "r"(r64[26]), "r"(r64[27]), "r"(r64[28]), "r"(r64[29]), "r"(r64[30]), "r"(r64[31]),
		  "r"(r64[32]), "r"(r64[33]), "r"(r64[34]), "r"(r64[35]), "r"(r64[36]), "r"(r64[37]), "r"(r64[38]), "r"(r64[39]),
		  "r"(r64[40]), "r"(r64[41]), "r"(r64[42]), "r"(r64[43]), "r"(r64[44]), "r"(r64[45]), "r"(r64[46]), "r"(r64[47]),
		  "r"(r64[48]), "r"(r64[49]), "r"(r64[50]), "r"(r64[51]), "r"(r64[52]), "r"(r64[53]), "r"(r64[54]), "r"(r64[55]),
		  "r"(r64[56]), "r"(r64[57]), "r"(r64[58]), "r"(r64[59]), "r"(r64[60]), "r"(r64[61]), "r"(r64[62]), "r"(r64[63])
	    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x64.b32 {"
	    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
	    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
	    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
	    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
	    "}, [%64];"
	    :
		  "=r"(r64[0]), "=r"(r64[1]), "=r"(r64[2]), "=r"(r64[3]), "=r"(r64[4]), "=r"(r64[5]), "=r"(r64[6]), "=r"(r64[7]),
		  "=r"(r64[8]), "=r"(r64[9]), "=r"(r64[10]), "=r"(r64[11]), "=r"(r64[12]), "=r"(r64[13]), "=r"(r64[14]), "=r"(r64[15]),
		  "=r"(r64[16]), "=r"(r64[17]), "=r"(r64[18]), "=r"(r64[19]), "=r"(r64[20]), "=r"(r64[21]), "=r"(r64[22]), "=r"(r64[23]),
		  "=r"(r64[24]), "=r"(r64[25]), "=r"(r64[26]), "=r"(r64[27]), "=r"(r64[28]), "=r"(r64[29]), "=r"(r64[30]), "=r"(r64[31]),
		  "=r"(r64[32]), "=r"(r64[33]), "=r"(r64[34]), "=r"(r64[35]), "=r"(r64[36]), "=r"(r64[37]), "=r"(r64[38]), "=r"(r64[39]),
		  "=r"(r64[40]), "=r"(r64[41]), "=r"(r64[42]), "=r"(r64[43]), "=r"(r64[44]), "=r"(r64[45]), "=r"(r64[46]), "=r"(r64[47]),
		  "=r"(r64[48]), "=r"(r64[49]), "=r"(r64[50]), "=r"(r64[51]), "=r"(r64[52]), "=r"(r64[53]), "=r"(r64[54]), "=r"(r64[55]),
		  "=r"(r64[56]), "=r"(r64[57]), "=r"(r64[58]), "=r"(r64[59]), "=r"(r64[60]), "=r"(r64[61]), "=r"(r64[62]), "=r"(r64[63])
	    : "r"(shared_cols)
	    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
	for (int j = 0; j < 64; j += 4)
		*(uint4 *)&Out[tid * 160 + 96 + j] = make_uint4(r64[j], r64[j + 1], r64[j + 2], r64[j + 3]);

	// and 'keep' gives its columns back
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
	    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
	    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
	    "}, [%32];"
	    :
		  "=r"(r32[0]), "=r"(r32[1]), "=r"(r32[2]), "=r"(r32[3]), "=r"(r32[4]), "=r"(r32[5]), "=r"(r32[6]), "=r"(r32[7]),
		  "=r"(r32[8]), "=r"(r32[9]), "=r"(r32[10]), "=r"(r32[11]), "=r"(r32[12]), "=r"(r32[13]), "=r"(r32[14]), "=r"(r32[15]),
		  "=r"(r32[16]), "=r"(r32[17]), "=r"(r32[18]), "=r"(r32[19]), "=r"(r32[20]), "=r"(r32[21]), "=r"(r32[22]), "=r"(r32[23]),
		  "=r"(r32[24]), "=r"(r32[25]), "=r"(r32[26]), "=r"(r32[27]), "=r"(r32[28]), "=r"(r32[29]), "=r"(r32[30]), "=r"(r32[31])
	    : "r"(keep)
	    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
	for (int j = 0; j < 32; j += 4)
		*(uint4 *)&Out[tid * 160 + j] = make_uint4(r32[j], r32[j + 1], r32[j + 2], r32[j + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0)
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" :: "r"(tmem_base) : "memory");
}
