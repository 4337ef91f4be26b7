// header_unit_index.cu: a kernel written by hand in CUDA C++ that calls the functions of
// tests/golden/device_unit_index.tile through their --target=emu header (tests/emu.sh writes it as
// device_unit_index.cuh) from warps and warpgroups other than the first: warp 1 moves rows 32..63 of A to
// Out through shared memory, each warpgroup g copies rows 128 g .. 128 g + 127 of A to H. Out must hold
// A's rows 32..63 (the others 0) and H must equal A. It builds with nvcc and with a C++ compiler.
#include "device_unit_index.cuh"
#include <stdio.h>
#include <string.h>

enum { ROWS = 256, COLS = 8 };

__global__ void units(float *A, float *Out, float *H)
{
	__shared__ float s[32 * COLS];
	const int t = (int)threadIdx.x;
	if (t < 32)
		for (int j = 0; j < COLS; j++)
			s[t * COLS + j] = A[(32 + t) * COLS + j];
	__syncthreads();
	if (t / 32 == 1) {
		uint32_t r[COLS];
		rows_in(s, r);
		rows_out(Out, r, ROWS, 32);
	}
	tile_copy(A, H, ROWS, t / 128 * 128);
}

static int
check(const float *A, const float *Out, const float *H)
{
	for (int i = 0; i < ROWS * COLS; i++) {
		float want = i / COLS >= 32 && i / COLS < 64 ? A[i] : 0.0f;
		if (memcmp(&want, &Out[i], sizeof(float)) != 0 || memcmp(&A[i], &H[i], sizeof(float)) != 0) {
			printf("header_unit_index: element [%d, %d]: Out %g (want %g), H %g (want %g)\n", i / COLS, i % COLS,
			       (double)Out[i], (double)want, (double)H[i], (double)A[i]);
			return 1;
		}
	}
	printf("header_unit_index: Out and H as expected, all %d elements\n", ROWS * COLS);
	return 0;
}

#ifndef __CUDACC__
static void
entry(void **args)
{
	units(*(float **)args[0], *(float **)args[1], *(float **)args[2]);
}

int
main(void)
{
	static float A[ROWS * COLS], Out[ROWS * COLS], H[ROWS * COLS];
	for (int i = 0; i < ROWS * COLS; i++)
		A[i] = (float)(i % 977) * 0.25f - 100.0f;
	float *a = A, *out = Out, *h = H;
	void *args[] = {&a, &out, &h};
	const unsigned grid[3] = {1, 1, 1}, block[3] = {256, 1, 1};
	tl_cpu_launch(grid, block, entry, args);
	return check(A, Out, H);
}
#else
int
main(void)
{
	static float A[ROWS * COLS], Out[ROWS * COLS], H[ROWS * COLS];
	for (int i = 0; i < ROWS * COLS; i++)
		A[i] = (float)(i % 977) * 0.25f - 100.0f;
	float *dA, *dOut, *dH;
	if (cudaMalloc(&dA, sizeof A) || cudaMalloc(&dOut, sizeof Out) || cudaMalloc(&dH, sizeof H) ||
	    cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice) || cudaMemset(dOut, 0, sizeof Out) ||
	    cudaMemset(dH, 0, sizeof H)) {
		printf("header_unit_index: no GPU memory\n");
		return 2;
	}
	units<<<1, 256>>>(dA, dOut, dH);
	if (cudaDeviceSynchronize() || cudaMemcpy(Out, dOut, sizeof Out, cudaMemcpyDeviceToHost) ||
	    cudaMemcpy(H, dH, sizeof H, cudaMemcpyDeviceToHost)) {
		printf("header_unit_index: the kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 2;
	}
	return check(A, Out, H);
}
#endif
