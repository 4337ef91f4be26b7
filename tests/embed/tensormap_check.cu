// tensormap_check.cu: the tensor maps that mainloop.cuh's host functions encode (gemm_producer_A_tensormap,
// gemm_producer_B_tensormap) against the maps libtilert encodes at a launch of examples/embed/mainloop_test.tile:
// libtilert's input, the table tilec writes into the kernel (tilec_tma_mainloop_test: per map the parameter,
// rank, data type, swizzle, element size and box), walked as runtime/tilert.c's encode_maps walks it, and
// encoded the way it encodes (tilec_tensormap_encode) with the tensors' dimensions and strides: the 128 bytes of
// each map must be equal. Built by tests/embed.sh with nvcc (host code only; -include the table as
// `static const unsigned tma_table[]`, -I the header's directory and runtime/); run by tools/gpu-embed-check.sh
// on a GPU (cuTensorMapEncodeTiled needs a current context: 201, CUDA_ERROR_INVALID_CONTEXT, without one on the H200's driver). Prints one PASS or FAIL line.
#include <cstdio>
#include <cstring>

#include "mainloop.cuh"
#include "tilert.h"

namespace {

// A: bf16 [M, K] rows lda apart, B: bf16 [N, K] rows ldb apart (parameters 0 and 1 of mainloop_test)
const uint64_t M = 300, N = 200, K = 256, lda = 264, ldb = 272;

// Map i of the table, encoded as libtilert does: its parameter's dimensions (innermost first) and strides in
// bytes, the box and swizzle tilec wrote. False where the table ends early or the driver refuses the map (why:
// in why).
bool libtilert_map(const unsigned *w, size_t n, unsigned i, CUtensorMap *map, unsigned *param, char *why, size_t len)
{
	snprintf(why, len, "the table ends early");
	size_t pc = 2; // after the counts of maps and of the kernel's own parameters
	for (unsigned m = 0; m <= i; m++) {
		if (pc + 10 > n)
			return false;
		unsigned p = w[pc], rank = w[pc + 1], dtype = w[pc + 2], swizzle = w[pc + 3], elem = w[pc + 4];
		uint32_t box[5];
		for (int d = 0; d < 5; d++)
			box[d] = w[pc + 5 + d];
		pc += 10;
		for (int g = 0; g < 9; g++) // the nine grid programs: this test passes the values itself
			while (pc < n && w[pc++] != TILERT_GP_END)
				if (w[pc - 1] == TILERT_GP_CONST || w[pc - 1] == TILERT_GP_PARAM)
					pc++;
		if (pc >= n)
			return false;
		pc += 1 + (w[pc] + 3) / 4; // the tensor's name
		if (m < i)
			continue;
		const uint64_t dims[2] = {K, p == 0 ? M : N};
		const uint64_t strides[1] = {(p == 0 ? lda : ldb) * elem};
		void *base = reinterpret_cast<void *>((uintptr_t)(p == 0 ? 0x7f0000000000ull : 0x7f0000100000ull));
		*param = p;
		int r = rank == 2 ? tilec_tensormap_encode((tilec_tensormap_encoder)cuTensorMapEncodeTiled, map, (int)dtype,
		                                           rank, base, dims, strides, box, (int)swizzle) : -1;
		snprintf(why, len, "parameter %u, rank %u, data type %u, swizzle %u, element %u bytes, box %u x %u: "
		         "cuTensorMapEncodeTiled returns %d", p, rank, dtype, swizzle, elem, box[0], box[1], r);
		return r == CUDA_SUCCESS;
	}
	return false;
}

} // namespace

int main()
{
	CUdevice dev;
	CUcontext ctx;
	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
	    cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
		printf("FAIL embed/tensormap: no driver, GPU or context\n");
		return 1;
	}
	const size_t n = sizeof tma_table / sizeof tma_table[0];
	if (n < 1 || tma_table[0] != 2) {
		printf("FAIL embed/tensormap: the kernel's table names %u maps, not 2\n", n ? tma_table[0] : 0);
		return 1;
	}
	for (unsigned i = 0; i < 2; i++) {
		CUtensorMap want, got;
		unsigned param = 0;
		char why[256];
		memset(&want, 0, sizeof want);
		memset(&got, 0, sizeof got);
		if (!libtilert_map(tma_table, n, i, &want, &param, why, sizeof why)) {
			printf("FAIL embed/tensormap: map %u of the table does not encode: %s\n", i, why);
			return 1;
		}
		CUresult r = param == 0
			? gemm_producer_A_tensormap(&got, reinterpret_cast<void *>((uintptr_t)0x7f0000000000ull), M, K, lda, 1)
			: gemm_producer_B_tensormap(&got, reinterpret_cast<void *>((uintptr_t)0x7f0000100000ull), N, K, ldb, 1);
		if (r != CUDA_SUCCESS) {
			printf("FAIL embed/tensormap: the header's function of parameter %u returns %d\n", param, (int)r);
			return 1;
		}
		if (memcmp(&want, &got, sizeof want) != 0) {
			printf("FAIL embed/tensormap: the map of parameter %u differs from libtilert's\n", param);
			return 1;
		}
	}
	printf("PASS embed/tensormap (both maps: the 128 bytes of libtilert's encoding)\n");
	return 0;
}
