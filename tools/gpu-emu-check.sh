#!/bin/sh
# gpu-emu-check.sh [--part I/N] [--only REGEX] [TILEC]: on a machine with an NVIDIA GPU (sm_80 or later; made for the H200,
# sm_90) and nvcc: for every examples/*.tile, runs the --target=emu program on the GPU and on the
# CPU emulator with the same inputs and compares every tensor bit for bit. Not part of make check.
#   1. tilec run FILE --dump DIR          the CPU run: DIR/manifest, DIR/N.in, DIR/N.out
#   2. tilec --target=emu FILE | nvcc -cubin -arch=$ARCH -fmad=false
#   3. emu-gpu-runner CUBIN DIR           the same launch through libtilert: DIR/N.gpu
#   4. cmp DIR/N.out DIR/N.gpu            for each tensor
# One PASS/FAIL line per example; ARCH from $EMU_ARCH, default sm_90. Exits 1 when one failed.
# --part I/N runs only the I-th of N parts (1 <= I <= N): the programs whose place in the lists below, counted
# from 0, is I-1 modulo N, and the TMA self-test in part 1; all parts together are the whole check, each
# within a device command's ten minutes on the H200 where the whole takes longer (docs/emulator.md).
# --only REGEX (grep's): only the programs whose line ("FILE OPTIONS") matches it.
# Without TILEC, builds build/tilec with make first.
# Scalar parameters take tilec run's defaults (0), or the --set options of the example's
# `// run: tilec run FILE OPTIONS` comment line; tests/emu/trap_base.tile with off=0 is included, and
# the TMA goldens' kernels with the options of their .run files (emu_list below): the GPU build's TMA
# copies are the GPU's own (docs/tma.md), so these compare the CPU model of TMA with the hardware; the
# kernels with a cluster (examples/tma_multicast.tile, tests/golden/tma_multicast.tile, cluster_run.tile)
# run as clusters there (libtilert reads tilec_cluster_<kernel>), so they check the CPU's cluster model
# and its multicast TMA.
# Before them, tools/gpu-tma-selftest.cu checks the GPU's TMA alone (a PASS/FAIL line, gpu-tma-selftest).
# Part 2 (gpu-ptx/NAME.N, gpu-nvcc/NAME.N): the programs of routes_list below, and the examples, whose
# sm_100a PTX has no tcgen05 instruction run through tilec's own PTX (its .target set to ARCH, then
# ptxas) and through its CUDA C (nvcc -arch=ARCH), compared with the CPU emulator in the same way, but
# where erf's argument reaches 1: the GPU's own code computes it there otherwise, within 2 ulps of the
# emulator's (LANGUAGE.md 10.2), so those f32 tensors are compared with tools/ulps-compare.c within the
# bound that follows (route_tolerance).
cd "$(dirname "$0")/.." || exit 2
script=gpu-emu-check
part=1 parts=1
if [ "${1-}" = --part ]; then
	part=${2%%/*} parts=${2#*/}
	case $part/$parts in
	*[!0-9/]* | /* | */ | 0/* | */0) echo "$script: --part wants I/N with 1 <= I <= N, not '${2-}'" >&2; exit 2 ;;
	esac
	[ "$part" -le "$parts" ] || { echo "$script: --part $2: I is above N" >&2; exit 2; }
	shift 2
fi
only=
if [ "${1-}" = --only ]; then
	only=$2
	shift 2
fi
. tools/gpu-setup.sh
# Part 2: programs without tcgen05 also run as tilec's own PTX and as its CUDA C (the same kernels
# as for sm_100a with the target retold): each line is a .tile and its tilec run options. Not listed:
# guarded_loads and expr_select, where two threads store to one element (their GPU result depends on
# which store lands last; tilec run warns about both races, -Wrace).
routes_list='tests/golden/copy_owner_threads.tile --kernel half_block
tests/golden/smem_matrix_copy.tile --kernel k_major
tests/golden/smem_matrix_copy.tile --kernel mn_major
tests/golden/copy_broadcast.tile --kernel every_thread
tests/golden/copy_broadcast.tile --kernel own_row
tests/golden/copy_broadcast.tile --kernel own_row_store
tests/golden/copy_broadcast.tile --kernel one_warp
tests/golden/copy_owner_threads.tile --kernel one_warp
tests/golden/copy_owner_threads.tile --kernel first_96
tests/golden/perwarp_uniform.tile --kernel two_warps
tests/golden/perwarp_uniform.tile --kernel halves
tests/golden/perwarp_uniform.tile --kernel swapped
tests/golden/perwarp_uniform.tile --kernel all_loaded
tests/golden/perwarp_uniform.tile --kernel cleared --set n=1
tests/emu/copy_edge.tile --set M=100 --set N=50 --set lda=53 --set top=-5 --set left=30
tests/emu/copy_edge.tile --set M=7 --set N=9 --set lda=12 --set top=-130 --set left=0
tests/golden/runtime_shape.tile --set M=100 --set N=200 --set K=64 --set ldc=208
tests/golden/cluster_runtime.tile --set N=100
tests/emu/select_dim.tile --set n=10
tests/golden/runtime_loop.tile
tests/golden/loop_motion.tile --set n=5 --set m=3
tests/golden/loop_motion.tile --set n=0 --set m=60
tests/emu/copy_edge_ref.tile --set M=100 --set N=50 --set lda=53 --set top=-5 --set left=30
tests/emu/copy_edge_ref.tile --set M=7 --set N=9 --set lda=12 --set top=-130 --set left=0
tests/emu/ref/warp_scopes.tile
tests/golden/rearrange_unit.tile
tests/golden/expr_funcs.tile
tests/golden/expr_compound.tile
tests/golden/f16_loads.tile
tests/golden/scalar_param.tile --set scale=1.5 --set n=100
tests/emu/nan_results.tile --set s=nan
tests/golden/float_constants.tile
tests/golden/copy_divergent_memory.tile
tests/golden/named_bar_run.tile --kernel handoff
tests/golden/named_bar_run.tile --kernel two_groups
tests/golden/mbar_run.tile --kernel ring --set n=32
tests/golden/mbar_run.tile --kernel stuck --set n=1
tests/emu/erf_values.tile
tests/golden/fast_math.tile
tests/golden/warp_collectives.tile
tests/golden/reduce_rows.tile --kernel reduce_rows
tests/golden/reduce_rows.tile --kernel reduce_cols
bench/reduce/row_sum_16x256b.tile
tests/golden/copy_convert.tile --kernel halves
tests/golden/copy_convert.tile --kernel ints
tests/golden/copy_convert.tile --kernel narrow
tests/golden/copy_convert.tile --kernel edge --set M=100 --set N=50 --set ld=53 --set top=-5 --set left=30
tests/golden/copy_convert.tile --kernel edge --set M=7 --set N=9 --set ld=12 --set top=-120 --set left=-3
tests/golden/copy_convert.tile --kernel to_f16 --set scale=70000
tests/golden/copy_convert.tile --kernel to_f16 --set scale=1e-4
tests/golden/copy_convert.tile --kernel to_f16 --set scale=nan
tests/golden/copy_convert.tile --kernel to_bf16 --set scale=3e38
tests/golden/copy_convert.tile --kernel to_bf16 --set scale=1e-38
tests/golden/copy_convert.tile --kernel to_bf16 --set scale=nan
tests/golden/copy_convert.tile --kernel to_u8 --set scale=300
tests/golden/copy_convert.tile --kernel to_u8 --set scale=-1e10
tests/golden/copy_convert.tile --kernel to_i8 --set scale=300
tests/golden/copy_convert.tile --kernel to_i8 --set scale=-1e10
tests/golden/copy_convert.tile --kernel to_u16 --set scale=1e5
tests/golden/copy_convert.tile --kernel to_u16 --set scale=-7
tests/golden/copy_convert.tile --kernel to_i16 --set scale=1e5
tests/golden/copy_convert.tile --kernel to_i16 --set scale=-1e10
tests/golden/copy_convert.tile --kernel to_i32 --set scale=3e9
tests/golden/copy_convert.tile --kernel to_i32 --set scale=nan
tests/golden/copy_convert.tile --kernel to_u32 --set scale=5e9
tests/golden/copy_convert.tile --kernel to_u32 --set scale=-inf
tests/golden/minifloat_copy.tile --kernel round_trip
tests/golden/minifloat_copy.tile --kernel rounding --set scale=1
tests/golden/minifloat_copy.tile --kernel rounding --set scale=600
tests/golden/minifloat_copy.tile --kernel rounding --set scale=3e-3
tests/golden/minifloat_copy.tile --kernel rounding --set scale=-inf
tests/golden/minifloat_copy.tile --kernel rounding --set scale=nan
tests/golden/minifloat_copy.tile --kernel narrow
tests/golden/minifloat_exprs.tile --set scale=1
tests/golden/minifloat_exprs.tile --set scale=1000
tests/golden/minifloat_exprs.tile --set scale=-3e-3
tests/golden/minifloat_exprs.tile --set scale=inf
tests/golden/minifloat_exprs.tile --set scale=nan'

# route_tolerance TILE: how the routes' f32 results may differ from the emulator's, for the programs
# whose erf arguments reach |x| >= 1 (below, the GPU's erf is the emulator's, bit for bit); all others
# exact. erf_values stores erf itself: 2 ulps. gemm_epilogue's GELU, 0.5 * x * (1 + erf(x / sqrt 2)),
# carries erf's 2 ulps (under 2^-23, as |erf| < 1) into 1 + erf, which may also round the other way
# (2^-23 more), times 0.5|x|, and one ulp of the product: where 1 + erf cancels (x negative) that is
# many ulps of the result, but at most 3 ulps of the tensor's largest value (max |x| is about max D).
# fast_math stores exp2_approx, exp_approx, rcp_approx and rsqrt_approx, which the emulator models
# (docs/emulator.md, "The GPU's approximations"): 3, 3, 1 and 5 ulps apart at most; 5 for all.
route_tolerance() {
	case $1 in
	*/erf_values.tile) echo "ulps 2" ;;
	*/fast_math.tile) echo "ulps 5" ;;
	examples/gemm_epilogue.tile) echo "scale 4" ;;
	esac
}
# Part 1 beyond the examples: a .tile and its tilec run options per line.
emu_list='tests/emu/trap_base.tile
tests/golden/tma_load.tile --kernel whole
tests/golden/tma_load.tile --kernel pieces --set M=64 --set m0=0
tests/golden/tma_load.tile --kernel pieces --set M=40 --set m0=0
tests/golden/tma_store.tile --kernel whole --set M=128
tests/golden/tma_store.tile --kernel whole --set M=100
tests/golden/tma_store.tile --kernel ring --set N=96
tests/golden/elect_tma_mma.tile --kernel tma_lanes
tests/golden/elect_tma_mma.tile --kernel tma_lane0
tests/golden/elect_tma_mma.tile --kernel mma_lanes
tests/golden/elect_tma_mma.tile --kernel mma_lane0
tests/golden/cp_copy_all_warps.tile
tests/golden/tma_early_read.tile --kernel wrong_phase --set M=32 --set parity=0
tests/golden/tma_early_read.tile --kernel skipped_wait --set M=64 --set waits=1
tests/golden/tma_multicast.tile --set mask=15
tests/golden/cluster_run.tile --kernel exchange'
# the GPU's TMA alone, where ARCH has TMA (sm_90 and later)
[ "$part" -eq 1 ] || arch_tma=part
case ${arch_tma:-$arch} in
part) echo "gpu-tma-selftest: in part 1" ;;
sm_[5-8]?*) echo "gpu-tma-selftest: skipped, $arch has no TMA" ;;
*)
	if "$nvcc" -arch="$arch" -o "$tmp/tma-selftest" tools/gpu-tma-selftest.cu -lcuda >"$tmp/tma-selftest.txt" 2>&1
	then
		"$tmp/tma-selftest" || failed=1
	else
		echo "FAIL gpu-tma-selftest: nvcc -arch=$arch failed"
		sed 's/^/    /' "$tmp/tma-selftest.txt" | head -n 20
		failed=1
	fi
	;;
esac
n=0
{ for tile in examples/*.tile; do echo "$tile"; done; echo "$emu_list"; echo --; } >"$tmp/list"
echo "$routes_list" >>"$tmp/list"
if [ -n "$only" ]; then
	grep -e "$only" -e '^--$' "$tmp/list" >"$tmp/only"
	mv "$tmp/only" "$tmp/list"
fi
while read -r tile given; do
	[ "$tile" != -- ] || { part2=yes; continue; }
	n=$((n + 1))
	[ $(((n - 1) % parts + 1)) -eq "$part" ] || continue
	stem=${tile##*/}
	stem=${stem%.tile}
	[ -z "${part2:-}" ] && [ -z "$given" ] || stem=$stem.$n
	name=gpu-emu/$stem
	dir=$tmp/$stem
	mkdir -p "$dir"
	# PTX for sm_110a: tilec packs no f32x2 there (sm_90 has no packed f32 arithmetic; the packing is
	# checked against this scalar PTX by make check's check-f32x2)
	if ! "$tilec" -arch=sm_110a "$tile" -o "$dir/k.ptx" 2>"$dir/ptx.txt"; then
		echo "FAIL gpu/$stem: tilec $tile failed"
		sed 's/^/    /' "$dir/ptx.txt" | head -n 20
		failed=1
		continue
	fi
	routes=
	grep -v '^[[:space:]]*//' "$dir/k.ptx" | grep -q 'tcgen05\.' || routes=yes
	tolerance=$(route_tolerance "$tile")
	run_options=${given:-$(sed -n 's|^// run: tilec run [^ ]* ||p' "$tile" | head -n 1)}
	# shellcheck disable=SC2086 # the options are words on purpose
	if ! "$tilec" run "$tile" $run_options --dump "$dir" >"$dir/cpu.txt" 2>&1; then
		echo "FAIL $name: tilec run failed"
		sed 's/^/    /' "$dir/cpu.txt" | head -n 20
		failed=1
		continue
	fi
	# without tcgen05, tilec's own PTX and its CUDA C run on this GPU as they are (the target retold)
	if [ -n "$routes" ]; then
		sed "s/^\.target sm_[0-9a-z]*/.target $arch/" "$dir/k.ptx" >"$dir/k-$arch.ptx"
		if "$(dirname "$nvcc")/ptxas" -arch="$arch" -o "$dir/ptx.cubin" "$dir/k-$arch.ptx" >"$dir/ptxas.txt" 2>&1; then
			gpu_compare "gpu-ptx/$stem" "$dir" "$dir/ptx.cubin" "$tolerance"
		else
			echo "FAIL gpu-ptx/$stem: ptxas -arch=$arch on tilec's PTX failed"
			sed 's/^/    /' "$dir/ptxas.txt" | head -n 20
			failed=1
		fi
		if "$tilec" "$tile" -o "$dir/nv.cu" &&
		   "$nvcc" -cubin -arch="$arch" -o "$dir/nv.cubin" "$dir/nv.cu" >"$dir/nvcc.txt" 2>&1; then
			gpu_compare "gpu-nvcc/$stem" "$dir" "$dir/nv.cubin" "$tolerance"
		else
			echo "FAIL gpu-nvcc/$stem: nvcc -cubin -arch=$arch on tilec's CUDA C failed"
			sed 's/^/    /' "$dir/nvcc.txt" | head -n 20
			failed=1
		fi
	fi
	[ -z "${part2:-}" ] || continue
	if ! "$tilec" --target=emu "$tile" -o "$dir/k.cu" ||
	   ! "$nvcc" -cubin -arch="$arch" -fmad=false -o "$dir/k.cubin" "$dir/k.cu" >"$dir/nvcc.txt" 2>&1; then
		echo "FAIL $name: tilec --target=emu or nvcc -cubin -arch=$arch failed"
		sed 's/^/    /' "$dir/nvcc.txt" | head -n 20
		failed=1
		continue
	fi
	gpu_compare "gpu-emu/$stem" "$dir" "$dir/k.cubin"
done <"$tmp/list"
exit $failed
