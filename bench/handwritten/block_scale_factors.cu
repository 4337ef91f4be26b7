// block_scale_factors.cu: the hand-written twin of examples/block_scale_factors.tile for bench/cp_sass.sh: the
// same shared tile, TMEM layout and four tcgen05.cp.32x128b.warpx4, written as CUTLASS-style code would be:
// one descriptor computed once and advanced by a constant per cp, one elected thread issuing all four cps and
// the commit, one fence.proxy.async by the threads that wrote the tile, before the barrier.
#include <stdint.h>

__device__ __forceinline__ uint32_t
smem_addr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ bool
elect_one(void)
{
	uint32_t elected;
	asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(elected));
	return elected != 0;
}

extern "C" __global__ void __launch_bounds__(128)
block_scale_factors(const uint8_t *__restrict__ A, uint8_t *__restrict__ Out)
{
	__shared__ uint32_t slot;
	__shared__ __align__(8) uint64_t full;
	// [K group of 4 blocks][row r][block in the group][row quarter q]: one 16-byte chunk per (group, r)
	__shared__ __align__(16) uint8_t sf[4 * 32 * 4 * 4];
	const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
	if (warp == 0)
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem_addr(&slot)) : "memory");
	if (tid == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&full)) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	for (int kb = 0; kb < 16; kb++)
		sf[((kb / 4 * 32 + tid % 32) * 4 + kb % 4) * 4 + tid / 32] = A[tid * 16 + kb];
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	const uint32_t tmem = slot;
	if (warp == 0 && elect_one()) {
		// no swizzle, SBO 128 bytes (8 rows of 16), version 1: start address >> 4 in bits 0..13
		const uint64_t desc = 0x0000400800000000ull | ((smem_addr(sf) >> 4) & 0x3fff);
#pragma unroll
		for (int g = 0; g < 4; g++)
			asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" :: "r"(tmem + 4 * g), "l"(desc + 32 * g) : "memory");
		asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(smem_addr(&full))
		             : "memory");
	}
	asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra WAIT;\n\t}"
	             :: "r"(smem_addr(&full)) : "memory");
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	// each warp reads its 32 lanes x 16 columns (64 bytes a lane) and writes its row quarter
	uint32_t r[16];
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
	             "%14, %15}, [%16];"
	             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
	               "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
	             : "r"(tmem + ((uint32_t)(32 * warp) << 16)));
	asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
	for (int kb = 0; kb < 16; kb++)
		Out[(32 * warp + lane) * 16 + kb] = (uint8_t)(r[kb] >> (8 * warp));
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	if (warp == 0) {
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem) : "memory");
	}
}
