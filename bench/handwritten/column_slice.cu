// column_slice.cu: examples/column_slice.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/column_slice.cu bench/handwritten/column_slice.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 96 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/column_slice.cu: 96 registers).
//
// Each of the 128 threads copies row tid of A (64 floats) into src, stores it with one 32x32b.x64
// into columns 64..127 of a 256-column allocation, loads it back into a second array dst with one
// 32x32b.x64 and writes dst to row tid of Out.
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of floats (4 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;

extern "C" __global__ void __launch_bounds__(128)
column_slice(const float *__restrict__ A, float *__restrict__ Out)
{
	__shared__ uint32_t tmem_base;
	const uint32_t tid = threadIdx.x;
	const uint32_t warp = tid / 32;

	if (warp == 0) {
		uint32_t slot = (uint32_t)__cvta_generic_to_shared(&tmem_base);
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" :: "r"(slot) : "memory");
	}
	// The fences order warp 0's alloc before the other warps read the slot and use TMEM.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

	// Layout D puts row i, column j of the 128 x 256 tensor at TLane i, TCol j, and thread t holds row
	// t. Warp w's rows 32w .. 32w+31 are its own slab; the slice big[:, 64:128] starts at column 64.
	// So warp w addresses lane 32w, column 64: the base plus (32w << 16) plus 64, for both st and ld.
	const uint32_t taddr = tmem_base + ((warp * 32) << 16) + 64;

	uint32_t src[64], dst[64];

#pragma unroll
	for (int j = 0; j < 64; j += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 64 + j];
		src[j] = v.x, src[j + 1] = v.y, src[j + 2] = v.z, src[j + 3] = v.w;
	}

	asm volatile("tcgen05.st.sync.aligned.32x32b.x64.b32 [%0], {"
	    "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
	    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, "
	    "%33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, "
	    "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64"
	    "};"
	    :
	    : "r"(taddr),
		  "r"(src[0]), "r"(src[1]), "r"(src[2]), "r"(src[3]), "r"(src[4]), "r"(src[5]), "r"(src[6]), "r"(src[7]),
		  "r"(src[8]), "r"(src[9]), "r"(src[10]), "r"(src[11]), "r"(src[12]), "r"(src[13]), "r"(src[14]), "r"(src[15]),
		  "r"(src[16]), "r"(src[17]), "r"(src[18]), "r"(src[19]), "r"(src[20]), "r"(src[21]), "r"(src[22]), "r"(src[23]),
		  "r"(src[24]), "r"(src[25]), "r"(src[26]), "r"(src[27]), "r"(src[28]), "r"(src[29]), "r"(src[30]), "r"(src[31]),
		  "r"(src[32]), "r"(src[33]), "r"(src[34]), "r"(src[35]), "r"(src[36]), "r"(src[37]), "r"(src[38]), "r"(src[39]),
		  "r"(src[40]), "r"(src[41]), "r"(src[42]), "r"(src[43]), "r"(src[44]), "r"(src[45]), "r"(src[46]), "r"(src[47]),
		  "r"(src[48]), "r"(src[49]), "r"(src[50]), "r"(src[51]), "r"(src[52]), "r"(src[53]), "r"(src[54]), "r"(src[55]),
		  "r"(src[56]), "r"(src[57]), "r"(src[58]), "r"(src[59]), "r"(src[60]), "r"(src[61]), "r"(src[62]), "r"(src[63])
	    : "memory");
	asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

	asm volatile("tcgen05.ld.sync.aligned.32x32b.x64.b32 {"
	    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
	    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
	    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
	    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
	    "}, [%64];"
	    :
		  "=r"(dst[0]), "=r"(dst[1]), "=r"(dst[2]), "=r"(dst[3]), "=r"(dst[4]), "=r"(dst[5]), "=r"(dst[6]), "=r"(dst[7]),
		  "=r"(dst[8]), "=r"(dst[9]), "=r"(dst[10]), "=r"(dst[11]), "=r"(dst[12]), "=r"(dst[13]), "=r"(dst[14]), "=r"(dst[15]),
		  "=r"(dst[16]), "=r"(dst[17]), "=r"(dst[18]), "=r"(dst[19]), "=r"(dst[20]), "=r"(dst[21]), "=r"(dst[22]), "=r"(dst[23]),
		  "=r"(dst[24]), "=r"(dst[25]), "=r"(dst[26]), "=r"(dst[27]), "=r"(dst[28]), "=r"(dst[29]), "=r"(dst[30]), "=r"(dst[31]),
		  "=r"(dst[32]), "=r"(dst[33]), "=r"(dst[34]), "=r"(dst[35]), "=r"(dst[36]), "=r"(dst[37]), "=r"(dst[38]), "=r"(dst[39]),
		  "=r"(dst[40]), "=r"(dst[41]), "=r"(dst[42]), "=r"(dst[43]), "=r"(dst[44]), "=r"(dst[45]), "=r"(dst[46]), "=r"(dst[47]),
		  "=r"(dst[48]), "=r"(dst[49]), "=r"(dst[50]), "=r"(dst[51]), "=r"(dst[52]), "=r"(dst[53]), "=r"(dst[54]), "=r"(dst[55]),
		  "=r"(dst[56]), "=r"(dst[57]), "=r"(dst[58]), "=r"(dst[59]), "=r"(dst[60]), "=r"(dst[61]), "=r"(dst[62]), "=r"(dst[63])
	    : "r"(taddr)
	    : "memory");
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");

#pragma unroll
	for (int j = 0; j < 64; j += 4)
		*(uint4 *)&Out[tid * 64 + j] = make_uint4(dst[j], dst[j + 1], dst[j + 2], dst[j + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" :: "r"(tmem_base) : "memory");
	}
}
