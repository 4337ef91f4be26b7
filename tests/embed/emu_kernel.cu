// emu_kernel.cu DIR: a kernel written by hand that calls gemm_epilogue through the --target=emu header of
// examples/embed/epilogue.tile (built as epilogue.cuh), on the CPU (c++) or on any GPU from sm_80 (nvcc).
// It reads the inputs that `tilec run examples/embed/epilogue_test.tile --dump DIR` wrote, fills each
// CTA's emulated tensor memory with its 128 x 128 tile of Acc by plain stores, where the tcgen05.mma of
// examples/embed/gemm.cu leaves the accumulator (datapath layout D: row i in lane i, column j in column j),
// calls gemm_epilogue as gemm.cu does, and compares D with DIR/3.out, the CPU emulator's, bit for bit.
// Prints one line; exit status 0 equal, 1 different, 2 a file or the GPU failed.
#include "epilogue.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void epilogue_kernel(const float *Acc, float *C, float *bias, uint16_t *D, int M, int N, int ldc, int ldd,
                                float alpha, float beta, uint32_t *cells)
{
	__shared__ uint32_t slot;
	const unsigned cta = blockIdx.x + gridDim.x * blockIdx.y;
	tilec_emu_begin(cells + (size_t)cta * TILEC_EMU_CELLS);
	const int t = (int)threadIdx.x;
	if (t / 32 == 0)
		tilec_emu_alloc(&slot, 128);
	__syncthreads();
	const uint32_t acc = slot;
	const int row0 = (int)blockIdx.y * 128, col0 = (int)blockIdx.x * 128, i = row0 + t;
	// the accumulator tile: thread t writes row t, TMEM lane t; zeros outside the matrix, as an MMA over
	// zero-filled tiles of A and B leaves there
	for (int j = 0; j < 128; j++)
		*tilec_emu_cell(acc + ((uint32_t)t << 16) + (uint32_t)j) =
			i < M && col0 + j < N ? __float_as_uint(Acc[(size_t)i * N + col0 + j]) : 0u;
	// on Blackwell: the MMA's commit, the mbarrier wait and tcgen05.fence::after_thread_sync
	__syncthreads();
	gemm_epilogue(acc, C, bias, D, M, N, ldc, ldd, row0, col0, alpha, beta);
	__syncthreads();
	if (t / 32 == 0) {
		tilec_emu_relinquish();
		tilec_emu_dealloc(acc, 128);
	}
	tilec_emu_end();
}

typedef struct Input {
	int M, N, ldc, ldd;
	float alpha, beta;
	size_t count[4]; // elements of Acc, C, bias, D
	void *host[4];
	uint16_t *want;
} Input;

static void *
read_file(const char *dir, const char *name, size_t bytes)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	void *p = malloc(bytes ? bytes : 1);
	if (!f || !p || fread(p, 1, bytes, f) != bytes) {
		printf("emu_kernel: cannot read %zu bytes of %s\n", bytes, path);
		exit(2);
	}
	fclose(f);
	return p;
}

// DIR/manifest: the tensors in order (Acc, C, bias, D) and the scalars M, N, ldc, ldd, alpha, beta.
static void
read_input(const char *dir, Input *in)
{
	char path[4096], line[512];
	snprintf(path, sizeof path, "%s/manifest", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("emu_kernel: cannot open %s\n", path);
		exit(2);
	}
	int seen = 0;
	while (fgets(line, sizeof line, f)) {
		int index;
		char name[128], type[16];
		size_t size, count;
		unsigned bits;
		if (sscanf(line, "tensor %d %127s %15s %zu %zu", &index, name, type, &size, &count) == 5 && index < 4) {
			in->count[index] = count;
			seen++;
		} else if (sscanf(line, "scalar %d %127s %15s %zu %x", &index, name, type, &size, &bits) == 5) {
			float fv;
			memcpy(&fv, &bits, 4);
			if (!strcmp(name, "M")) in->M = (int)bits;
			if (!strcmp(name, "N")) in->N = (int)bits;
			if (!strcmp(name, "ldc")) in->ldc = (int)bits;
			if (!strcmp(name, "ldd")) in->ldd = (int)bits;
			if (!strcmp(name, "alpha")) in->alpha = fv;
			if (!strcmp(name, "beta")) in->beta = fv;
			seen++;
		}
	}
	fclose(f);
	if (seen != 10) {
		printf("emu_kernel: %s is not the manifest of epilogue_test (%d entries)\n", path, seen);
		exit(2);
	}
	static const size_t size[4] = {4, 4, 4, 2};
	for (int k = 0; k < 4; k++) {
		char name[16];
		snprintf(name, sizeof name, "%d.in", k);
		in->host[k] = read_file(dir, name, in->count[k] * size[k]);
	}
	in->want = (uint16_t *)read_file(dir, "3.out", in->count[3] * 2);
}

#ifndef __CUDACC__
static void
entry(void **a)
{
	epilogue_kernel(*(const float **)a[0], *(float **)a[1], *(float **)a[2], *(uint16_t **)a[3], *(int *)a[4],
	                *(int *)a[5], *(int *)a[6], *(int *)a[7], *(float *)a[8], *(float *)a[9], *(uint32_t **)a[10]);
}
#endif

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: emu_kernel DIR\n");
		return 2;
	}
	Input in;
	memset(&in, 0, sizeof in);
	read_input(argv[1], &in);
	const unsigned grid[3] = {(unsigned)(in.N + 127) / 128, (unsigned)(in.M + 127) / 128, 1}, block[3] = {128, 1, 1};
	const size_t ncells = (size_t)grid[0] * grid[1] * TILEC_EMU_CELLS;
	uint16_t *D = (uint16_t *)in.host[3];
#ifndef __CUDACC__
	const char *where = "the CPU";
	uint32_t *cells = (uint32_t *)calloc(ncells, 4);
	const float *acc = (const float *)in.host[0];
	float *c = (float *)in.host[1], *bias = (float *)in.host[2];
	void *args[] = {&acc, &c, &bias, &D, &in.M, &in.N, &in.ldc, &in.ldd, &in.alpha, &in.beta, &cells};
	tl_cpu_launch(grid, block, entry, args);
#else
	const char *where = "the GPU";
	void *dev[4];
	uint32_t *cells;
	static const size_t size[4] = {4, 4, 4, 2};
	for (int k = 0; k < 4; k++)
		if (cudaMalloc(&dev[k], in.count[k] * size[k]) ||
		    cudaMemcpy(dev[k], in.host[k], in.count[k] * size[k], cudaMemcpyHostToDevice)) {
			printf("emu_kernel: no GPU memory\n");
			return 2;
		}
	if (cudaMalloc(&cells, ncells * 4)) {
		printf("emu_kernel: no GPU memory\n");
		return 2;
	}
	epilogue_kernel<<<dim3(grid[0], grid[1]), dim3(block[0])>>>((const float *)dev[0], (float *)dev[1], (float *)dev[2],
	                                                  (uint16_t *)dev[3], in.M, in.N, in.ldc, in.ldd, in.alpha,
	                                                  in.beta, cells);
	if (cudaDeviceSynchronize() || cudaMemcpy(D, dev[3], in.count[3] * 2, cudaMemcpyDeviceToHost)) {
		printf("emu_kernel: the kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 2;
	}
#endif
	unsigned long long h = 0xcbf29ce484222325ull;
	for (size_t k = 0; k < in.count[3]; k++) {
		if (D[k] != in.want[k]) {
			printf("emu_kernel: on %s, D element %zu (row %zu, column %zu) is 0x%04x, tilec run left 0x%04x\n", where,
			       k, k / (size_t)in.ldd, k % (size_t)in.ldd, D[k], in.want[k]);
			return 1;
		}
		h = (h ^ (D[k] & 0xff)) * 0x100000001b3ull;
		h = (h ^ (D[k] >> 8)) * 0x100000001b3ull;
	}
	printf("emu_kernel: on %s, D (%d x %d, ldd %d) equals tilec run's, all %zu elements (fnv64 %016llx)\n", where,
	       in.M, in.N, in.ldd, in.count[3], h);
	return 0;
}
