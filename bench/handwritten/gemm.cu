// gemm.cu: examples/gemm.tile written by hand as CUTLASS's sm100 warp-specialized kernels are (inline PTX for
// every tcgen05, TMA and mbarrier instruction; bench/gemm_sass.sh compares the two).
//
// D = alpha * A * B^T + beta * C: A [M, K] and B [N, K] bf16 through TMA tensor maps (box 64 x 128 and 64 x 256,
// 128B swizzle), C and D [M, N] f32 with leading dimensions ldc and ldd. One CTA of 8 warps per 128 x 256 tile
// of D, K in steps of 64 through a ring of 4 stages (A 16 KB + B 32 KB each), as the .tile program:
//   warp 0, the producer: per K step, one elected lane waits for the stage's empty barrier, announces the
//     stage's 48 KB and arrives on its full barrier in one mbarrier.arrive.expect_tx, and issues the two TMA
//     loads (CUTLASS's PipelineTmaUmmaAsync::producer_acquire and copy);
//   warp 1, the MMA: one elected lane waits for the full barrier, issues the four mma of K = 16 and commits
//     them to the empty barrier (umma_arrive); after the last step a commit to `ready`;
//   warps 4 to 7, the epilogue: wait for `ready`, then per 32 columns tcgen05.ld 32x32b.x32 (thread t of the
//     warpgroup row t), wait::ld, and alpha * acc + beta * c stored where the row and column lie inside M x N.
// The shared tiles sit in a 1024-aligned static array (192 KB + barriers: the .tile program's declarations).
// No #include: the file must stand alone, as tilec's output does (CUtensorMap as its 128 bytes).
// Elements per thread: 256 (one row of the tile in each epilogue thread).

typedef struct __align__(64) {
	unsigned long long opaque[16];
} TensorMap;

#define STAGES 4
#define BM 128
#define BN 256
#define BK 64
#define A_BYTES (BM * BK * 2)
#define B_BYTES (BN * BK * 2)
// tcgen05.mma kind::f16: D f32 (bit 4), A and B bf16 (bits 7, 10), K-major, N >> 3 at bit 17, M >> 4 at bit 24
#define IDESC ((1u << 4) | (1u << 7) | (1u << 10) | ((unsigned)(BN >> 3) << 17) | ((unsigned)(BM >> 4) << 24))
// a K-major 128B-swizzled operand: SBO 1024 bytes (8 rows of 128 bytes), version 1 (bit 46), swizzle 128B (bit 62)
#define DESC_HI ((1024ull >> 4) << 32 | 1ull << 46 | 2ull << 61)

static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ bool elect_one(void)
{
	unsigned pred;
	asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}"
	             : "=r"(pred) : "r"(0xffffffffu));
	return pred != 0;
}

static __device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
	asm volatile("{\n\t.reg .pred p;\n\tWAIT_%=:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
	             "@!p bra WAIT_%=;\n\t}" :: "r"(bar), "r"(parity) : "memory");
}

extern "C" __global__ void __launch_bounds__(256) gemm(const __grid_constant__ TensorMap tma_a,
                                                       const __grid_constant__ TensorMap tma_b, const float *C,
                                                       float *D, int M, int N, int K, int ldc, int ldd,
                                                       float alpha, float beta)
{
	__shared__ __align__(1024) unsigned char tiles[STAGES * (A_BYTES + B_BYTES)];
	__shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES], ready;
	__shared__ unsigned slot;
	const int warp = threadIdx.x >> 5;
	const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
	const int steps = (K + BK - 1) / BK;
	if (warp == 0) {
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" :: "r"(smem_u32(&slot))
		             : "memory");
		if (elect_one()) {
			for (int s = 0; s < STAGES; s++) {
				asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&full[s])) : "memory");
				asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&empty[s])) : "memory");
			}
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&ready)) : "memory");
			asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		}
	}
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	const unsigned tmem = slot;
	const unsigned sa = smem_u32(tiles), sb = sa + STAGES * A_BYTES;
	if (warp == 0) {
		if (elect_one()) {
			for (int k = 0; k < steps; k++) {
				const int s = k % STAGES;
				const unsigned fb = smem_u32(&full[s]);
				mbar_wait(smem_u32(&empty[s]), ((k / STAGES) + 1) & 1);
				asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(fb),
				             "r"(A_BYTES + B_BYTES) : "memory");
				asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
				             "[%0], [%1, {%2, %3}], [%4];" :: "r"(sa + s * A_BYTES), "l"(&tma_a), "r"(k * BK),
				             "r"(m0), "r"(fb) : "memory");
				asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
				             "[%0], [%1, {%2, %3}], [%4];" :: "r"(sb + s * B_BYTES), "l"(&tma_b), "r"(k * BK),
				             "r"(n0), "r"(fb) : "memory");
			}
		}
	} else if (warp == 1) {
		if (elect_one()) {
			for (int k = 0; k < steps; k++) {
				const int s = k % STAGES;
				mbar_wait(smem_u32(&full[s]), (k / STAGES) & 1);
				asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
				const unsigned long long da = DESC_HI | ((sa + s * A_BYTES) >> 4);
				const unsigned long long db = DESC_HI | ((sb + s * B_BYTES) >> 4);
				for (int j = 0; j < BK / 16; j++) // K = 16 is 32 bytes further along the swizzled row
					asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
					             "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}"
					             :: "r"(tmem), "l"(da + 2 * j), "l"(db + 2 * j), "r"(IDESC), "r"(k | j) : "memory");
				asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
				             :: "r"(smem_u32(&empty[s])) : "memory");
			}
			asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
			             :: "r"(smem_u32(&ready)) : "memory");
		}
	} else if (warp >= 4) {
		mbar_wait(smem_u32(&ready), 0);
		asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
		const int t = threadIdx.x - 128, row = m0 + t;
		// warp w of the warpgroup reads TMEM lanes 32 w ..: lane bits 31-16 of the address
		const unsigned taddr = tmem + ((unsigned)(32 * (warp - 4)) << 16);
		for (int j = 0; j < BN / 32; j++) {
			unsigned r[32];
			asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
			             "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
			             "%30, %31}, [%32];"
			             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
			               "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]),
			               "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]),
			               "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]),
			               "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
			             : "r"(taddr + 32 * j) : "memory");
			asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
			if (row < M)
				for (int i = 0; i < 32; i++) {
					const int col = n0 + 32 * j + i;
					if (col < N)
						D[(long long)row * ldd + col] =
							__fmaf_rn(beta, C[(long long)row * ldc + col], alpha * __uint_as_float(r[i]));
				}
		}
	}
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	if (warp == 0) {
		asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" :: "r"(tmem) : "memory");
	}
}
