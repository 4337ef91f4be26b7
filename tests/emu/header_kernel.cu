// header_kernel.cu: a kernel written by hand in CUDA C++ that calls the device functions of
// examples/device_functions.tile through their --target=emu header (tests/emu.sh writes it as
// device_functions.cuh): it fills the right half of its tensor memory itself, as an MMA would, and
// the left half with stash; fetch reads both back. Out must equal A. It builds with nvcc for any
// GPU from sm_80 (main below runs it there) and with a C++ compiler for the CPU emulator.
#include "device_functions.cuh"
#include <stdio.h>
#include <string.h>

__global__ void roundtrip(const float *A, float *Out, uint32_t *cells)
{
	__shared__ uint32_t slot;
	tilec_emu_begin(cells + (size_t)blockIdx.x * TILEC_EMU_CELLS);
	const int t = (int)threadIdx.x;
	if (t / 32 == 0)
		tilec_emu_alloc(&slot, 64);
	__syncthreads();
	const uint32_t base = slot;
	for (int j = 0; j < 32; j++) // row t lives in TMEM lane t (layout D)
		*tilec_emu_cell(base + ((uint32_t)t << 16) + 32 + (uint32_t)j) = __float_as_uint(A[t * 64 + 32 + j]);
	uint32_t r[32];
	for (int j = 0; j < 32; j++)
		r[j] = __float_as_uint(A[t * 64 + j]);
	stash(base, r);
	fetch(r, base + 32);
	for (int j = 0; j < 32; j++)
		Out[t * 64 + 32 + j] = __uint_as_float(r[j]);
	fetch(r, base);
	for (int j = 0; j < 32; j++)
		Out[t * 64 + j] = __uint_as_float(r[j]);
	__syncthreads();
	if (t / 32 == 0) {
		tilec_emu_relinquish();
		tilec_emu_dealloc(base, 64);
	}
	tilec_emu_end();
}

static int
check(const float *A, const float *Out)
{
	for (int i = 0; i < 128 * 64; i++)
		if (memcmp(&A[i], &Out[i], sizeof(float)) != 0) {
			printf("header_kernel: Out[%d, %d] = %g but A[%d, %d] = %g\n", i / 64, i % 64, (double)Out[i], i / 64,
			       i % 64, (double)A[i]);
			return 1;
		}
	printf("header_kernel: Out = A, all %d elements\n", 128 * 64);
	return 0;
}

#ifndef __CUDACC__
static void
entry(void **args)
{
	roundtrip(*(const float **)args[0], *(float **)args[1], *(uint32_t **)args[2]);
}

int
main(void)
{
	static float A[128 * 64], Out[128 * 64];
	static uint32_t cells[TILEC_EMU_CELLS];
	for (int i = 0; i < 128 * 64; i++)
		A[i] = (float)(i % 977) * 0.25f - 100.0f;
	const float *a = A;
	float *out = Out;
	uint32_t *c = cells;
	void *args[] = {&a, &out, &c};
	const unsigned grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};
	tl_cpu_launch(grid, block, entry, args);
	return check(A, Out);
}
#else
int
main(void)
{
	static float A[128 * 64], Out[128 * 64];
	for (int i = 0; i < 128 * 64; i++)
		A[i] = (float)(i % 977) * 0.25f - 100.0f;
	float *dA, *dOut;
	uint32_t *cells;
	if (cudaMalloc(&dA, sizeof A) || cudaMalloc(&dOut, sizeof Out) || cudaMalloc(&cells, 4 * TILEC_EMU_CELLS) ||
	    cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice)) {
		printf("header_kernel: no GPU memory\n");
		return 2;
	}
	roundtrip<<<1, 128>>>(dA, dOut, cells);
	if (cudaDeviceSynchronize() || cudaMemcpy(Out, dOut, sizeof Out, cudaMemcpyDeviceToHost)) {
		printf("header_kernel: the kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 2;
	}
	return check(A, Out);
}
#endif
