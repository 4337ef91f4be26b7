// examples/embed/gemm.cu: a Blackwell GEMM whose mainloop and epilogue are tilec's, in a kernel written by hand,
// D = bf16(GELU(alpha * A B^T + beta * C + bias)). The kernel owns the shared memory, the mbarriers and the
// tensor memory; it calls gemm_producer and gemm_mma from mainloop.cuh (`tilec mainloop.tile -o mainloop.cuh`:
// a 4-stage TMA ring and the tcgen05.mma of a 128 x 128 tile) and gemm_epilogue from epilogue.cuh (`tilec
// epilogue.tile -o epilogue.cuh`). The host encodes the tensor maps of A and B with the header's
// gemm_producer_A_tensormap and gemm_producer_B_tensormap, which know the box and the swizzle tilec chose.
//
// A is M x K and B is N x K, both bf16 and row-major (K-major for the MMA); C is M x N fp32 with leading
// dimension ldc, bias has N elements, D is M x N bf16 with leading dimension ldd. K is a multiple of 8 (a
// tensor map's row stride is a multiple of 16 bytes).
//
//   nvcc -gencode arch=compute_100a,code=sm_100a -I. -o gemm gemm.cu -lcuda     (examples/Makefile does it)
//   ./gemm [M N K]      on a Blackwell GPU (sm_100); checks D against a reference computed on the CPU
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "epilogue.cuh"
#include "mainloop.cuh"

namespace {

constexpr int BM = 128, BN = 128, BK = 64, STAGES = 4; // the CTA's tile, the K step, the ring (mainloop.tile's)
constexpr uint32_t TMEM_COLS = BN;                     // the fp32 accumulator: 128 lanes x BN columns
constexpr int TILE_ELEMS = BM * BK;                    // one stage of A (and of B: BN = BM) in bf16
// the two rings, each 1024-byte aligned (the 128B swizzle of their layout is a function of the address),
// and 1 KB to align the dynamic shared memory's start
constexpr size_t SMEM_BYTES = 2 * STAGES * TILE_ELEMS * 2 + 1024;

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

// Eight warps a CTA, one 128 x 128 tile of D each: blockIdx.x along N, blockIdx.y along M. Warp 0 allocates
// the accumulator, initialises the barriers and runs the producer; warp 1 the MMA; warps 4 to 7 (a warpgroup,
// whose warp w may read TMEM lanes 32 (w % 4) ..) the epilogue; warps 2 and 3 only take part in the barriers.
__global__ void __launch_bounds__(256) gemm(const __grid_constant__ CUtensorMap A_map,
                                            const __grid_constant__ CUtensorMap B_map, const float *C,
                                            const float *bias, uint16_t *D, int M, int N, int K, int ldc, int ldd,
                                            float alpha, float beta)
{
	extern __shared__ unsigned char smem_raw[];
	uint16_t *sa = reinterpret_cast<uint16_t *>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~(uintptr_t)1023);
	uint16_t *sb = sa + STAGES * TILE_ELEMS;
	__shared__ alignas(8) uint64_t full[STAGES], empty[STAGES], ready[1];
	__shared__ uint32_t tmem_slot;
	const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN, warp = threadIdx.x / 32;

	if (warp == 0) {
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
		             :: "r"(smem_addr(&tmem_slot)), "n"(TMEM_COLS) : "memory");
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
		if (threadIdx.x == 0) {
			// every barrier completes a phase on one arrival: the producer's arrive (full), the MMA's commit
			// (empty, ready); the contract of mainloop.cuh
			for (int s = 0; s < STAGES; s++) {
				asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&full[s])) : "memory");
				asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&empty[s])) : "memory");
			}
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&ready[0])) : "memory");
			asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		}
	}
	// publishes the inits and the TMEM address to every warp
	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
	const uint32_t tmem = tmem_slot;

	// tilec's mainloop: the TMA ring and the MMA, with their waits, expected bytes and commits
	if (warp == 0)
		gemm_producer(sa, sb, full, empty, &A_map, &B_map, M, N, K, K, K, row0, col0);
	if (warp == 1)
		gemm_mma(tmem, sa, sb, full, empty, ready, K);
	if (warp >= 4) {
		// the accumulator is complete once the last commit's phase 0 has completed
		uint32_t done = 0;
		while (!done)
			asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
			             "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(smem_addr(&ready[0])) : "memory");
		asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
		// tilec's epilogue: TMEM -> registers with its checked loads, the arithmetic, the masked bf16 store
		gemm_epilogue(tmem, C, bias, D, M, N, ldc, ldd, row0, col0, alpha, beta);
	}

	asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
	__syncthreads();
	if (warp == 0) {
		asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" :: "r"(tmem), "n"(TMEM_COLS) : "memory");
	}
}

uint16_t to_bf16(float x) // round to nearest even, as cvt.rn.bf16.f32 (finite values)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

float from_bf16(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float x;
	memcpy(&x, &u, 4);
	return x;
}

bool check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess)
		fprintf(stderr, "gemm: %s: %s\n", what, cudaGetErrorString(e));
	return e == cudaSuccess;
}

} // namespace

int main(int argc, char **argv)
{
	int M = argc > 1 ? atoi(argv[1]) : 300, N = argc > 2 ? atoi(argv[2]) : 200, K = argc > 3 ? atoi(argv[3]) : 256;
	if (M <= 0 || N <= 0 || K <= 0 || K % 8) {
		fprintf(stderr, "usage: gemm [M N K], positive, K a multiple of 8\n");
		return 2;
	}
	cudaDeviceProp prop;
	if (!check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties"))
		return 1;
	if (prop.major != 10) {
		fprintf(stderr, "gemm: tcgen05 needs a Blackwell GPU (sm_100); device 0 is %s, sm_%d%d\n", prop.name,
		        prop.major, prop.minor);
		return 2;
	}
	const int ldc = N + 3, ldd = N + 5; // leading dimensions wider than N: the padding must stay untouched
	std::vector<uint16_t> a((size_t)M * K), b((size_t)N * K), d((size_t)M * ldd, 0xffff);
	std::vector<float> c((size_t)M * ldc), bias(N);
	srand(1);
	auto rnd = [] { return (float)rand() / RAND_MAX * 2.0f - 1.0f; };
	for (auto &x : a) x = to_bf16(rnd());
	for (auto &x : b) x = to_bf16(rnd());
	for (auto &x : c) x = rnd();
	for (auto &x : bias) x = rnd();
	const float alpha = 0.5f, beta = -1.25f;

	uint16_t *da, *db, *dd;
	float *dc, *dbias;
	if (!check(cudaMalloc(&da, a.size() * 2), "cudaMalloc") || !check(cudaMalloc(&db, b.size() * 2), "cudaMalloc") ||
	    !check(cudaMalloc(&dd, d.size() * 2), "cudaMalloc") || !check(cudaMalloc(&dc, c.size() * 4), "cudaMalloc") ||
	    !check(cudaMalloc(&dbias, bias.size() * 4), "cudaMalloc"))
		return 1;
	cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
	cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
	cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
	cudaMemcpy(dbias, bias.data(), bias.size() * 4, cudaMemcpyHostToDevice);
	cudaMemcpy(dd, d.data(), d.size() * 2, cudaMemcpyHostToDevice);
	// the tensor maps, encoded as tilec's copies expect them (the header's functions: box and swizzle)
	CUtensorMap amap, bmap;
	CUresult r = gemm_producer_A_tensormap(&amap, da, (uint64_t)M, (uint64_t)K, (uint64_t)K, 1);
	if (r == CUDA_SUCCESS)
		r = gemm_producer_B_tensormap(&bmap, db, (uint64_t)N, (uint64_t)K, (uint64_t)K, 1);
	if (r != CUDA_SUCCESS) {
		fprintf(stderr, "gemm: cuTensorMapEncodeTiled: error %d\n", (int)r);
		return 1;
	}
	if (!check(cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES),
	           "cudaFuncSetAttribute"))
		return 1;
	dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
	gemm<<<grid, 256, SMEM_BYTES>>>(amap, bmap, dc, dbias, dd, M, N, K, ldc, ldd, alpha, beta);
	if (!check(cudaGetLastError(), "launch") || !check(cudaDeviceSynchronize(), "the kernel"))
		return 1;
	cudaMemcpy(d.data(), dd, d.size() * 2, cudaMemcpyDeviceToHost);

	// the reference: fp32 sums of the bf16 products, then the epilogue in fp32
	double worst = 0;
	long bad = 0;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < ldd; j++) {
			if (j >= N) {
				bad += d[(size_t)i * ldd + j] != 0xffff;
				continue;
			}
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += from_bf16(a[(size_t)i * K + k]) * from_bf16(b[(size_t)j * K + k]);
			float x = alpha * acc + beta * c[(size_t)i * ldc + j] + bias[j];
			float want = 0.5f * x * (1.0f + erff(x * 0.707106781f));
			float got = from_bf16(d[(size_t)i * ldd + j]);
			double err = fabs((double)got - want) / (1.0 + fabs(want));
			worst = err > worst ? err : worst;
			bad += err > 1e-2;
		}
	printf("gemm %d x %d x %d: largest relative error %.3g, %ld bad elements\n", M, N, K, worst, bad);
	cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dbias), cudaFree(dd);
	return bad ? 1 : 0;
}
