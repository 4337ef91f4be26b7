// subword_f16.cu: examples/subword_f16.tile written by hand, CUTLASS style: the register baseline for
// tilec's output (bench/compare_registers.sh tests/examples/subword_f16.cu bench/handwritten/subword_f16.cu).
//
// nvcc -cubin -arch=sm_100a -Xptxas -v (nvcc 13.0.88): Used 24 registers, 0 bytes stack frame,
// 0 bytes spill stores, 0 bytes spill loads (tilec's tests/examples/subword_f16.cu: 22 registers).
//
// Dense f16 data (two elements per 32-bit cell) moved with plain 32x32b.x8, no pack: thread tid moves
// row tid of A (16 halves, 8 registers).
// Global memory moves as 16-byte vectors (uint4), as a CUDA programmer writes it: A and Out are
// 16-byte aligned (tilec's contract for a global tensor's base; cudaMalloc gives 256) and every
// offset below is a whole number of vectors of halves (8 to a vector), so each access is aligned.
// No #include: the file must stand alone, as tilec's output does.

typedef unsigned int uint32_t;
typedef unsigned short uint16_t;	// f16 bits: no cuda_fp16.h, and a copy needs no arithmetic

extern "C" __global__ void __launch_bounds__(128)
subword_f16(const uint16_t *__restrict__ A, uint16_t *__restrict__ Out)
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

	// Element [i, j] is half j % 2 of cell (TLane i, TCol j / 2), so register c is cell c, exactly as
	// the registers hold it; thread t holds row t, so warp w's rows are lanes 32w .. 32w+31 (its slab),
	// cells 0..7: the base plus (32w << 16).
	const uint32_t taddr = tmem_base + ((warp * 32) << 16);

	uint32_t r[8];

	// Register c holds columns 2c (bits 0..15) and 2c + 1 (bits 16..31) of row tid.
#pragma unroll
	for (int c = 0; c < 8; c += 4) {
		const uint4 v = *(const uint4 *)&A[tid * 16 + 2 * c];
		r[c] = v.x, r[c + 1] = v.y, r[c + 2] = v.z, r[c + 3] = v.w;
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
	for (int c = 0; c < 8; c += 4)
		*(uint4 *)&Out[tid * 16 + 2 * c] = make_uint4(r[c], r[c + 1], r[c + 2], r[c + 3]);

	// Every warp's last ld is ordered before warp 0 frees the columns.
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_base) : "memory");
	}
}
