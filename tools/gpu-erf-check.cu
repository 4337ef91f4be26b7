// gpu-erf-check.cu: the GPU half of tools/gpu-erf-check.sh. For every one of the 2^32 float bit patterns,
// erf through tilec's two GPU routes (two cubins of the kernel erf_all(X, Y, n), loaded with the driver
// API) against the emulator's exact sequence (tl_erf as `tilec --target=emu` writes it, from the header
// the script extracts: exact_erf.h), and all three against erf in double precision rounded to f32.
//   gpu-erf-check PTX.cubin CUDA_C.cubin
// Prints the counts of each difference in ulps and the largest, the largest distance from the true
// value, and checks NaN -> NaN, +-inf -> +-1 and +-0 -> +-0 on both routes. Exit 0: every route within
// 2 ulps of the emulator and the special values right; 1 otherwise; 2 on a CUDA error.
#include <cuda.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "exact_erf.h"

#define CHUNK (1u << 28)

struct Stats {
	unsigned long long hist[2][4];   // PTX, CUDA C: elements 0, 1, 2, more than 2 ulps from the emulator
	unsigned long long largest[2];   // (ulps << 32) | x's bits
	unsigned long long true_err[3];  // (ulps from erf in double rounded) << 32 | x's bits: emulator, PTX, CUDA C
	unsigned long long routes_differ; // elements where the PTX and the CUDA C differ
	unsigned long long special_bad;  // NaN not NaN, +-inf not +-1, +-0 not itself: count
	unsigned long long special_first; // 1 + x's bits of one of them
};

__global__ void
fill(float *x, unsigned base, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = __uint_as_float(base + i);
}

__global__ void
exact(const float *x, float *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = tl_erf(x[i]);
}

// the number of floats between a and b (docs/language.md counts the functions' errors so, against the
// value in double rounded to f32)
__device__ long long
ulps(float a, float b)
{
	int i = __float_as_int(a), j = __float_as_int(b);
	long long x = i < 0 ? (long long)INT32_MIN - i : i, y = j < 0 ? (long long)INT32_MIN - j : j;
	return x > y ? x - y : y - x;
}

__global__ void
compare(const float *x, const float *e, const float *p, const float *c, unsigned base, unsigned n, Stats *s)
{
	unsigned long long hist[2][4] = {{0}}, largest[2] = {0, 0}, true_err[3] = {0, 0, 0}, differ = 0, bad = 0,
	                   first = 0;
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		unsigned bits = base + i;
		float xv = x[i], ev = e[i], r[2] = {p[i], c[i]};
		if (__float_as_uint(r[0]) != __float_as_uint(r[1]))
			differ++;
		for (int k = 0; k < 2; k++) {
			bool ok = true;
			if (xv != xv)
				ok = r[k] != r[k];
			else if (isinf(xv))
				ok = r[k] == copysignf(1.0f, xv);
			else if (xv == 0.0f)
				ok = __float_as_uint(r[k]) == bits;
			if (!ok && !bad++)
				first = 1 + (unsigned long long)bits;
			if (xv != xv)
				continue;
			long long d = r[k] == r[k] ? ulps(r[k], ev) : 1ll << 31;
			hist[k][d < 3 ? d : 3]++;
			unsigned long long packed = (unsigned long long)d << 32 | bits;
			if (d > 0 && packed > largest[k])
				largest[k] = packed;
		}
		if (xv != xv)
			continue;
		float t = (float)erf((double)xv);
		float v[3] = {ev, r[0], r[1]};
		for (int k = 0; k < 3; k++) {
			unsigned long long packed = (unsigned long long)ulps(v[k], t) << 32 | bits;
			if (packed > true_err[k])
				true_err[k] = packed;
		}
	}
	for (int k = 0; k < 2; k++) {
		for (int b = 0; b < 4; b++)
			if (hist[k][b])
				atomicAdd(&s->hist[k][b], hist[k][b]);
		atomicMax(&s->largest[k], largest[k]);
	}
	for (int k = 0; k < 3; k++)
		atomicMax(&s->true_err[k], true_err[k]);
	if (differ)
		atomicAdd(&s->routes_differ, differ);
	if (bad) {
		atomicAdd(&s->special_bad, bad);
		atomicMax(&s->special_first, first);
	}
}

#define CU(call)                                                                                       \
	do {                                                                                               \
		CUresult r_ = (call);                                                                          \
		if (r_ != CUDA_SUCCESS) {                                                                      \
			const char *m_ = "?";                                                                      \
			cuGetErrorString(r_, &m_);                                                                 \
			fprintf(stderr, "gpu-erf-check: %s: %s\n", #call, m_);                                     \
			return 2;                                                                                  \
		}                                                                                              \
	} while (0)
#define RT(call)                                                                                       \
	do {                                                                                               \
		cudaError_t r_ = (call);                                                                       \
		if (r_ != cudaSuccess) {                                                                       \
			fprintf(stderr, "gpu-erf-check: %s: %s\n", #call, cudaGetErrorString(r_));                 \
			return 2;                                                                                  \
		}                                                                                              \
	} while (0)

static float
bits_float(unsigned long long packed)
{
	unsigned b = (unsigned)packed;
	float f;
	memcpy(&f, &b, 4);
	return f;
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gpu-erf-check PTX.cubin CUDA_C.cubin\n");
		return 2;
	}
	RT(cudaFree(0));
	CUfunction route[2];
	for (int k = 0; k < 2; k++) {
		CUmodule m;
		CU(cuModuleLoad(&m, argv[1 + k]));
		CU(cuModuleGetFunction(&route[k], m, "erf_all"));
	}
	float *x, *y[3];
	Stats *s;
	RT(cudaMalloc(&x, CHUNK * sizeof(float)));
	for (int k = 0; k < 3; k++)
		RT(cudaMalloc(&y[k], CHUNK * sizeof(float)));
	RT(cudaMalloc(&s, sizeof *s));
	RT(cudaMemset(s, 0, sizeof *s));
	for (unsigned long long base = 0; base < (1ull << 32); base += CHUNK) {
		unsigned n = CHUNK;
		fill<<<n / 256, 256>>>(x, (unsigned)base, n);
		exact<<<n / 256, 256>>>(x, y[2], n);
		for (int k = 0; k < 2; k++) {
			int ni = (int)n;
			void *args[] = {&x, &y[k], &ni};
			CU(cuLaunchKernel(route[k], (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, 0));
		}
		compare<<<2048, 256>>>(x, y[2], y[0], y[1], (unsigned)base, n, s);
		RT(cudaGetLastError());
	}
	RT(cudaDeviceSynchronize());
	Stats h;
	RT(cudaMemcpy(&h, s, sizeof h, cudaMemcpyDeviceToHost));
	static const char *const name[3] = {"emulator's sequence", "tilec's PTX", "tilec's CUDA C"};
	int failed = 0;
	for (int k = 0; k < 2; k++) {
		unsigned long long d = h.largest[k] >> 32;
		printf("%s against the emulator: %llu equal, %llu 1 ulp apart, %llu 2 ulps, %llu more; the largest %llu ulps "
		       "at %a\n",
		       name[1 + k], h.hist[k][0], h.hist[k][1], h.hist[k][2], h.hist[k][3], d,
		       (double)bits_float(h.largest[k]));
		failed |= h.hist[k][3] != 0;
	}
	printf("the two routes differ in %llu elements\n", h.routes_differ);
	for (int k = 0; k < 3; k++)
		printf("%s against erf in double rounded to f32: at most %llu ulps, at %a\n", name[k], h.true_err[k] >> 32,
		       (double)bits_float(h.true_err[k]));
	if (h.special_bad) {
		printf("%llu special values wrong (NaN -> NaN, +-inf -> +-1, +-0 -> +-0), e.g. x = %a\n", h.special_bad,
		       (double)bits_float(h.special_first - 1));
		failed = 1;
	} else {
		printf("NaN -> NaN, +-inf -> +-1, +-0 -> +-0 on both routes\n");
	}
	printf("%s gpu-erf: every float, both routes within 2 ulps of the emulator\n", failed ? "FAIL" : "PASS");
	return failed;
}
