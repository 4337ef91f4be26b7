// tma_pipeline.cu: examples/tma_pipeline.tile written by hand, as a CUDA programmer would without CuTe: the
// baseline of bench/tma_sass.sh (registers and UTMALDG count) and bench/sass_figures.sh tma_pipeline.
//
// Out[i] = sum over k of A[i, k] * B[i, k] for A, B [M, K] f32 (row-major, K a multiple of 4), 32 rows per
// CTA, K in tiles of 32 columns through a 4-stage ring of shared tiles (A and B, 4 KB each a stage) with the
// 128-byte swizzle. Warp 0 produces: for tile k it takes stage s = k % 4, waits for the consumers' release
// (empty[s], parity (k / 4 + 1) % 2), lets one elected lane announce the 8 KB on full[s] (expect_tx) and issue
// the two TMA loads (cp.async.bulk.tensor.2d, tensor maps of box 32 x 32, swizzle 128B, built on the host
// with cuTensorMapEncodeTiled), then lane 0 arrives on full[s]. Warp 1 consumes: it waits on full[s] (parity
// (k / 4) % 2), thread t adds the products of row t (the column chunk j / 4 of row t lies at chunk
// (j / 4) ^ (t % 8) of the row's 128 bytes), and every lane arrives on empty[s] (init count 32). TMA fills
// rows and columns past M and K with zeros, so the loop has no edge test; the store is masked. The kernel
// takes the same parameters as tilec's (A and B unused beside their maps), so the two build alike.
// Elements per thread: 32 (bench/sass_figures.sh divides the SASS count by it).
#include <cuda.h> // CUtensorMap (as tilec's output includes it)

static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
	asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t@!p bra WAIT;\n\t}"
	             :: "r"(bar), "r"(parity) : "memory");
}

static __device__ __forceinline__ void mbar_arrive(unsigned bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}

static __device__ __forceinline__ void tma_load_2d(unsigned dst, const CUtensorMap *map, int x, int y, unsigned bar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
	             :: "r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar) : "memory");
}

extern "C" __global__ void __launch_bounds__(64) tma_pipeline(float *__restrict__ A, float *__restrict__ B,
                                                              float *__restrict__ Out, int M, int K,
                                                              const __grid_constant__ CUtensorMap A_tma0,
                                                              const __grid_constant__ CUtensorMap B_tma0)
{
	(void)A, (void)B;
	constexpr int STAGES = 4, ROWS = 32, COLS = 32, TILE_BYTES = ROWS * COLS * 4;
	__shared__ __align__(1024) float sa[STAGES][ROWS * COLS];
	__shared__ __align__(1024) float sb[STAGES][ROWS * COLS];
	__shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
	const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	const int m0 = blockIdx.x * ROWS;
	const int tiles = (K + COLS - 1) / COLS;
	if (threadIdx.x == 0) {
		for (int s = 0; s < STAGES; s++) {
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&full[s])) : "memory");
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"(smem_addr(&empty[s])) : "memory");
		}
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	__syncthreads();
	if (warp == 0) {
		for (int k = 0; k < tiles; k++) {
			const int s = k % STAGES;
			mbar_wait(smem_addr(&empty[s]), (k / STAGES + 1) % 2);
			if (lane == 0) {
				const unsigned bar = smem_addr(&full[s]);
				asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(2 * TILE_BYTES)
				             : "memory");
				tma_load_2d(smem_addr(sa[s]), &A_tma0, COLS * k, m0, bar);
				tma_load_2d(smem_addr(sb[s]), &B_tma0, COLS * k, m0, bar);
			}
		}
	} else if (warp == 1) {
		float acc = 0.0f;
		for (int k = 0; k < tiles; k++) {
			const int s = k % STAGES;
			mbar_wait(smem_addr(&full[s]), (k / STAGES) % 2);
			const float *ra = &sa[s][lane * COLS], *rb = &sb[s][lane * COLS];
			for (int j = 0; j < COLS; j++) {
				const int at = ((j / 4) ^ (lane % 8)) * 4 + j % 4; // the 128B swizzle of the row's 16-byte chunks
				acc = __fadd_rn(acc, __fmul_rn(ra[at], rb[at]));
			}
			mbar_arrive(smem_addr(&empty[s]));
		}
		if (m0 + lane < M)
			Out[m0 + lane] = acc;
	}
}
