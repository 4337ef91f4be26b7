// gpu-tma-selftest.cu: the GPU's own TMA as --target=emu's GPU build uses it (docs/tma.md), checked alone on
// a GPU with TMA (sm_90 or later): a tensor map encoded with cuTensorMapEncodeTiled (as libtilert encodes
// them), one 2D load with the 128B swizzle into a 1024-byte aligned shared tile completing on a hardware
// mbarrier (expect_tx, then the copy, then the arrival, in the order tilec writes them), its elements read
// back through the byte placement of the CPU model (runtime/tilec_emu_tma.h), then the threads' writes to
// the tile stored with one TMA store (barrier, fence.proxy.async, commit_group, wait_group.read). The box
// reaches past the tensor's last row: the load must fill those rows with zeros and the store must leave
// them alone. Prints one PASS or FAIL line; exit 0 on PASS, 1 on FAIL, 2 on a GPU
// without TMA.
//   nvcc -arch=sm_90 -o gpu-tma-selftest tools/gpu-tma-selftest.cu -lcuda && ./gpu-tma-selftest
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

enum {
	COLS = 192,       // the tensors: u16[ROWS, COLS], rows of 384 bytes
	ROWS = 100,
	BOX = 64,         // the box: 64 x 64 elements, 128 bytes (one swizzle span) per row
	AT = 64,          // its coordinates in both dimensions: rows 100 .. 127 are outside the tensor
	SENTINEL = 0xbeef // the output tensor's elements that the store must not write
};

// The CPU model's placement (tl_emu_tma_place) of box element (col, row), 2-byte elements, 128B swizzle.
__device__ unsigned
placed(int col, int row)
{
	unsigned u = (unsigned)(col * 2 + 128 * row);
	return u ^ (((u >> 7) & 7u) << 4);
}

__global__ void __launch_bounds__(128)
tma_selftest(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map,
             unsigned short *read_back)
{
	__shared__ __align__(1024) unsigned short tile[BOX * BOX];
	__shared__ __align__(8) unsigned long long full;
	unsigned tile_s = (unsigned)__cvta_generic_to_shared(tile), full_s = (unsigned)__cvta_generic_to_shared(&full);
	if (threadIdx.x == 0)
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full_s) : "memory");
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(full_s), "r"(BOX * BOX * 2)
		             : "memory");
		asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, "
		             "{%2, %3}], [%4];" ::"r"(tile_s), "l"(&in_map), "r"(AT), "r"(AT), "r"(full_s)
		             : "memory");
		asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], 1;" ::"r"(full_s) : "memory");
	}
	asm volatile("{\n\t.reg .pred p;\n\tTL_WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
	             "@!p bra TL_WAIT;\n\t}" ::"r"(full_s) : "memory");
	for (int i = threadIdx.x; i < BOX * BOX; i += blockDim.x)
		read_back[i] = tile[placed(i % BOX, i / BOX) / 2];
	__syncthreads();
	for (int i = threadIdx.x; i < BOX * BOX; i += blockDim.x)
		tile[i] = (unsigned short)(tile[i] + 1);
	__syncthreads();
	if (threadIdx.x == 0)
		asm volatile("fence.proxy.async.shared::cta;\n\t"
		             "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];\n\t"
		             "cp.async.bulk.commit_group;\n\t"
		             "cp.async.bulk.wait_group.read 0;" ::"l"(&out_map), "r"(AT), "r"(AT), "r"(tile_s)
		             : "memory");
}

static int
fail_cuda(const char *what, cudaError_t e)
{
	printf("FAIL gpu-tma-selftest: %s: %s\n", what, cudaGetErrorString(e));
	return 1;
}

// A map of a u16[ROWS, COLS] tensor at p with a 64 x 64 box and the 128B swizzle.
static CUresult
encode(CUtensorMap *map, void *p)
{
	cuuint64_t dims[2] = {COLS, ROWS}, strides[1] = {COLS * 2};
	cuuint32_t box[2] = {BOX, BOX}, element_strides[2] = {1, 1};
	return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, p, dims, strides, box, element_strides,
	                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
	                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

int
main(void)
{
	static unsigned short in[ROWS * COLS], out[128 * COLS], read_back[BOX * BOX];
	for (int i = 0; i < ROWS * COLS; i++)
		in[i] = (unsigned short)(i * 2654435761u >> 16 | 1); // never 0, so a zero-filled element shows
	for (int i = 0; i < 128 * COLS; i++)
		out[i] = SENTINEL;
	int major = 0;
	cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
	if (e != cudaSuccess)
		return fail_cuda("no device", e);
	if (major < 9) {
		printf("FAIL gpu-tma-selftest: compute capability %d.x has no TMA\n", major);
		return 2;
	}
	unsigned short *d_in, *d_out, *d_back;
	// the output buffer has 128 rows, the tensor 100: rows 100 .. 127 catch a store that is not clipped
	if ((e = cudaMalloc(&d_in, sizeof in)) || (e = cudaMalloc(&d_out, sizeof out)) ||
	    (e = cudaMalloc(&d_back, sizeof read_back)) || (e = cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice)) ||
	    (e = cudaMemcpy(d_out, out, sizeof out, cudaMemcpyHostToDevice)))
		return fail_cuda("cudaMalloc / cudaMemcpy", e);
	CUtensorMap in_map, out_map;
	CUresult r;
	if ((r = encode(&in_map, d_in)) != CUDA_SUCCESS || (r = encode(&out_map, d_out)) != CUDA_SUCCESS) {
		printf("FAIL gpu-tma-selftest: cuTensorMapEncodeTiled returned %d\n", (int)r);
		return 1;
	}
	tma_selftest<<<1, 128>>>(in_map, out_map, d_back);
	if ((e = cudaDeviceSynchronize()) != cudaSuccess)
		return fail_cuda("the kernel", e);
	if ((e = cudaMemcpy(read_back, d_back, sizeof read_back, cudaMemcpyDeviceToHost)) ||
	    (e = cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost)))
		return fail_cuda("cudaMemcpy back", e);
	int bad = 0;
	for (int row = 0; row < BOX; row++)
		for (int col = 0; col < BOX; col++) {
			int y = AT + row, x = AT + col;
			unsigned want = y < ROWS ? in[y * COLS + x] : 0, got = read_back[row * BOX + col];
			if (got != want && bad++ < 5)
				printf("    load: box element [%d, %d] (tensor [%d, %d]) is 0x%04x, not 0x%04x\n", row, col, y, x,
				       got, want);
		}
	for (int y = 0; y < 128; y++)
		for (int x = 0; x < COLS; x++) {
			bool stored = y >= AT && y < ROWS && x >= AT && x < AT + BOX;
			unsigned want = stored ? (unsigned short)(in[y * COLS + x] + 1) : SENTINEL, got = out[y * COLS + x];
			if (got != want && bad++ < 10)
				printf("    store: Out[%d, %d] is 0x%04x, not 0x%04x%s\n", y, x, got, want,
				       y >= ROWS ? " (past the tensor's end)" : "");
		}
	if (bad) {
		printf("FAIL gpu-tma-selftest: %d elements differ\n", bad);
		return 1;
	}
	printf("PASS gpu-tma-selftest: 64 x 64 box, 128B swizzle: load (rows past the end zero), placement as the "
	       "emulator's, store (clipped)\n");
	return 0;
}
