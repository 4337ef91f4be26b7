#!/bin/sh
# gpu-erf-check.sh [TILEC]: on a machine with an NVIDIA GPU (sm_80 or later; made for the H200, sm_90) and
# nvcc: erf of every one of the 2^32 float bit patterns through tilec's own PTX (its .target set to
# $EMU_ARCH, default sm_90, then ptxas) and through its CUDA C (nvcc), against the emulator's exact
# sequence (the tl_erf of `tilec --target=emu`, compiled into tools/gpu-erf-check.cu), which the GPU's
# own code may differ from by at most 2 ulps (LANGUAGE.md 10.2), and all three against erf in double.
# NaN must give NaN, +-inf +-1 and +-0 +-0. Prints the counts and one PASS/FAIL line; exits 1 when it
# failed. Not part of make check. Without TILEC, builds build/tilec with make first. 3 seconds on an
# H200.
cd "$(dirname "$0")/.." || exit 2
script=gpu-erf-check
. tools/gpu-setup.sh
cat >"$tmp/erf_all.tile" <<'TILE'
kernel erf_all(X: f32[n], Y: f32[n], n: i32) launch(grid = (n + 127) / 128, block = 128)
{
    let i = block_idx.x * 128 + thread_idx.x;
    if (i < n) {
        Y[i] = erf(X[i]);
    }
}
TILE
if ! "$tilec" "$tmp/erf_all.tile" -o "$tmp/k.ptx" || ! "$tilec" "$tmp/erf_all.tile" -o "$tmp/k.cu" ||
   ! "$tilec" --target=emu "$tmp/erf_all.tile" -o "$tmp/emu.cu"; then
	echo "FAIL gpu-erf: tilec failed"
	exit 1
fi
# the emulator's erf: its tl_erf function, up to the closing brace
sed -n '/^static __device__ __forceinline__ float tl_erf(float v0)$/,/^}$/p' "$tmp/emu.cu" >"$tmp/exact_erf.h"
if ! grep -q '^}$' "$tmp/exact_erf.h" || grep -q 'ex2' "$tmp/exact_erf.h"; then
	echo "FAIL gpu-erf: no exact tl_erf in tilec --target=emu's output"
	exit 1
fi
sed "s/^\.target sm_[0-9a-z]*/.target $arch/" "$tmp/k.ptx" >"$tmp/k-$arch.ptx"
if ! "$(dirname "$nvcc")/ptxas" -arch="$arch" -o "$tmp/ptx.cubin" "$tmp/k-$arch.ptx" ||
   ! "$nvcc" -cubin -arch="$arch" -o "$tmp/cu.cubin" "$tmp/k.cu" ||
   ! "$nvcc" -O2 -arch="$arch" -fmad=false -I"$tmp" -o "$tmp/check" tools/gpu-erf-check.cu -lcuda; then
	echo "FAIL gpu-erf: ptxas or nvcc failed"
	exit 1
fi
"$tmp/check" "$tmp/ptx.cubin" "$tmp/cu.cubin"
