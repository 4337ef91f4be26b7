#!/bin/sh
# gpu-embed-check.sh [TILEC]: on a machine with an NVIDIA GPU of sm_90 or later (made for the H200) and
# nvcc, the checks of clusters and of tilec inside hand-written CUDA that need a GPU. Not part of make
# check. One PASS/FAIL line each; exits 1 when one failed. Without TILEC, builds build/tilec first.
#   gpu-cluster/launch   tests/golden/cluster_runtime.tile (cluster = 2, grid computed at launch), its
#                        CUDA C built for sm_90 (it has no tcgen05), launched through libtilert
#                        (cuLaunchKernelEx with the cluster): the same tensors as `tilec run`.
#   gpu-cluster/grid     the same kernel with a grid of 3 CTAs: libtilert refuses the launch.
#   gpu-cluster/ranks    a kernel carrying tilec_cluster_ranks = {2, 1, 1}, launched by libtilert:
#                        each CTA reads %cluster_ctarank and %cluster_nctarank, proving the clusters.
#   gpu-embed/tensormap  tests/embed/tensormap_check.cu: the tensor maps of examples/embed/mainloop.tile's header
#                        functions equal, byte for byte, those libtilert encodes from the kernel's table.
#   gpu-embed/emu-header/MxN  the --target=emu header of examples/embed/epilogue.tile called by the
#                        hand-written kernel of tests/embed/emu_kernel.cu on the GPU: the same D, bit
#                        for bit, as `tilec run examples/embed/epilogue_test.tile` on the CPU.
cd "$(dirname "$0")/.." || exit 2
script=gpu-embed-check
. tools/gpu-setup.sh

fail() {
	echo "FAIL $name: $*"
	failed=1
}

indent() {
	head -n 20 "$1" | sed 's/^/    /'
}

# ---------------------------------------------------------------- clusters through libtilert
name=gpu-cluster/launch
dir=$tmp/cluster
mkdir -p "$dir"
if ! "$tilec" run tests/golden/cluster_runtime.tile --set N=100 --dump "$dir" >"$dir/cpu.txt" 2>&1 ||
   ! "$tilec" tests/golden/cluster_runtime.tile -o "$dir/k.cu" 2>"$dir/nvcc.txt" ||
   ! "$nvcc" -cubin -arch="$arch" -o "$dir/k.cubin" "$dir/k.cu" >>"$dir/nvcc.txt" 2>&1; then
	fail "tilec run, tilec or nvcc failed"
	indent "$dir/nvcc.txt"
	indent "$dir/cpu.txt"
elif ! "$runner" "$dir/k.cubin" "$dir" >"$dir/gpu.txt" 2>&1; then
	fail "the launch through libtilert failed"
	indent "$dir/gpu.txt"
elif ! cmp -s "$dir/1.out" "$dir/1.gpu"; then
	fail "Out differs between the GPU and tilec run"
else
	echo "PASS $name ($(tr '\n' ' ' <"$dir/gpu.txt"))"
fi

name=gpu-cluster/grid
sed 's/^scalar 2 N i32 4 .*/scalar 2 N i32 4 0x00000060/' "$dir/manifest" >"$dir/manifest.96" &&
	mv "$dir/manifest.96" "$dir/manifest"
if "$runner" "$dir/k.cubin" "$dir" >"$dir/gpu96.txt" 2>&1; then
	fail "a grid of 3 CTAs in clusters of 2 was launched"
elif ! grep -qF "tilert: kernel scale: grid 3x1x1 is not a whole number of its clusters of 2x1x1 CTAs (dimension x)" \
	"$dir/gpu96.txt"; then
	fail "not the expected message"
	indent "$dir/gpu96.txt"
else
	echo "PASS $name"
fi

name=gpu-cluster/ranks
dir=$tmp/ranks
mkdir -p "$dir"
cat >"$dir/ranks.cu" <<'EOF'
// Each CTA writes (number of CTAs in its cluster) << 8 | (its rank in the cluster).
extern "C" __global__ void __cluster_dims__(2, 1, 1) ranks(unsigned *out)
{
	unsigned rank, n;
	asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
	asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
	if (threadIdx.x == 0)
		out[blockIdx.x] = n << 8 | rank;
}
extern "C" __device__ const unsigned tilec_launch_ranks[6] = {6, 1, 1, 32, 1, 1};
extern "C" __device__ const unsigned tilec_cluster_ranks[3] = {2, 1, 1};
EOF
printf 'kernel ranks\nseed 0\ntensor 0 Out u32 4 6\n' >"$dir/manifest"
head -c 24 /dev/zero >"$dir/0.in"
printf '\000\002\000\000\001\002\000\000\000\002\000\000\001\002\000\000\000\002\000\000\001\002\000\000' >"$dir/want"
if ! "$nvcc" -cubin -arch="$arch" -o "$dir/k.cubin" "$dir/ranks.cu" >"$dir/nvcc.txt" 2>&1; then
	fail "nvcc failed"
	indent "$dir/nvcc.txt"
elif ! "$runner" "$dir/k.cubin" "$dir" >"$dir/gpu.txt" 2>&1; then
	fail "the launch through libtilert failed"
	indent "$dir/gpu.txt"
elif ! cmp -s "$dir/want" "$dir/0.gpu"; then
	fail "the CTAs did not run in clusters of 2: $(od -An -tx4 "$dir/0.gpu")"
else
	echo "PASS $name ($(od -An -tx4 "$dir/0.gpu" | tr -s ' '))"
fi

# ---------------------------------------------------------------- the emulation header on the GPU
# examples/embed/epilogue.tile's --target=emu header, called by the hand-written kernel of
# tests/embed/emu_kernel.cu (its accumulator written by plain stores), built with nvcc and run on the
# GPU with the inputs of `tilec run examples/embed/epilogue_test.tile`: D must equal the CPU emulator's.
dir=$tmp/emu
mkdir -p "$dir"
name=gpu-embed/emu-header
if ! "$tilec" --target=emu --emit=cuh examples/embed/epilogue.tile -o "$dir/epilogue.cuh" 2>"$dir/nvcc.txt" ||
   ! "$nvcc" -arch="$arch" -fmad=false -I"$dir" -o "$dir/kernel" tests/embed/emu_kernel.cu >>"$dir/nvcc.txt" 2>&1; then
	fail "tilec --target=emu --emit=cuh or nvcc -arch=$arch failed"
	indent "$dir/nvcc.txt"
else
	for size in "300 200 203 205 0.5 -1.25" "129 33 40 36 -2 0.75" "1000 700 700 704 0.25 1.5"; do
		set -- $size
		name=gpu-embed/emu-header/${1}x$2
		run=$dir/$1x$2
		mkdir -p "$run"
		if ! "$tilec" run examples/embed/epilogue_test.tile --set M="$1" --set N="$2" --set ldc="$3" --set ldd="$4" \
			--set alpha="$5" --set beta="$6" --dump "$run" >"$run/cpu.txt" 2>&1; then
			fail "tilec run failed"
			indent "$run/cpu.txt"
		elif "$dir/kernel" "$run" >"$run/gpu.txt" 2>&1; then
			echo "PASS $name ($(cat "$run/gpu.txt"))"
		else
			fail "$(head -n 3 "$run/gpu.txt")"
		fi
	done
fi

# ---------------------------------------------------------------- the header's tensor maps
# tests/embed/tensormap_check.cu: each map of examples/embed/mainloop.tile's header function against the map
# libtilert encodes from the kernel's table (mainloop_test.tile), byte for byte; needs the driver, not tcgen05
dir=$tmp/tensormap
mkdir -p "$dir"
name=gpu-embed/tensormap
if ! "$tilec" examples/embed/mainloop_test.tile -o "$dir/k.cu" 2>"$dir/nvcc.txt" ||
   ! "$tilec" --emit=cuh examples/embed/mainloop.tile -o "$dir/mainloop.cuh" 2>>"$dir/nvcc.txt" ||
   ! sed -n 's/^extern "C" __device__ const unsigned tilec_tma_mainloop_test\[[0-9]*\] = \({.*}\);$/static const unsigned tma_table[] = \1;/p' \
	"$dir/k.cu" >"$dir/table.h" ||
   ! "$nvcc" -std=c++17 -include "$dir/table.h" -I"$dir" -Iruntime -o "$dir/check" tests/embed/tensormap_check.cu -lcuda \
	>>"$dir/nvcc.txt" 2>&1; then
	fail "tilec or nvcc failed"
	indent "$dir/nvcc.txt"
elif "$dir/check" >"$dir/out.txt" 2>&1 && grep -q '^PASS' "$dir/out.txt"; then
	echo "PASS $name"
else
	fail "$(head -n 3 "$dir/out.txt")"
fi
exit $failed
