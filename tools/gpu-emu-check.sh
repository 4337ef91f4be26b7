#!/bin/sh
# gpu-emu-check.sh [TILEC]: on a machine with an NVIDIA GPU (sm_80 or later; made for the H200,
# sm_90) and nvcc: for every examples/*.tile, runs the --target=emu program on the GPU and on the
# CPU emulator with the same inputs and compares every tensor bit for bit. Not part of make check.
#   1. tilec run FILE --dump DIR          the CPU run: DIR/manifest, DIR/N.in, DIR/N.out
#   2. tilec --target=emu FILE | nvcc -cubin -arch=$ARCH -fmad=false
#   3. emu-gpu-runner CUBIN DIR           the same launch through libtilert: DIR/N.gpu
#   4. cmp DIR/N.out DIR/N.gpu            for each tensor
# One PASS/FAIL line per example; ARCH from $EMU_ARCH, default sm_90. Exits 1 when one failed.
# Without TILEC, builds build/tilec with make first.
# Scalar parameters take tilec run's defaults (0), or the --set options of the example's
# `// run: tilec run FILE OPTIONS` comment line; tests/emu/trap_base.tile with off=0 is included.
cd "$(dirname "$0")/.." || exit 2
script=gpu-emu-check
. tools/gpu-setup.sh
for tile in examples/*.tile tests/emu/trap_base.tile; do
	stem=${tile##*/}
	stem=${stem%.tile}
	name=gpu-emu/$stem
	dir=$tmp/$stem
	mkdir -p "$dir"
	run_options=$(sed -n 's|^// run: tilec run [^ ]* ||p' "$tile" | head -n 1)
	# shellcheck disable=SC2086 # the options are words on purpose
	if ! "$tilec" run "$tile" $run_options --dump "$dir" >"$dir/cpu.txt" 2>&1; then
		echo "FAIL $name: tilec run failed"
		sed 's/^/    /' "$dir/cpu.txt" | head -n 20
		failed=1
		continue
	fi
	if ! "$tilec" --target=emu "$tile" -o "$dir/k.cu" ||
	   ! "$nvcc" -cubin -arch="$arch" -fmad=false -o "$dir/k.cubin" "$dir/k.cu" >"$dir/nvcc.txt" 2>&1; then
		echo "FAIL $name: tilec --target=emu or nvcc -cubin -arch=$arch failed"
		sed 's/^/    /' "$dir/nvcc.txt" | head -n 20
		failed=1
		continue
	fi
	if ! "$runner" "$dir/k.cubin" "$dir" >"$dir/gpu.txt" 2>&1; then
		echo "FAIL $name: the GPU run failed"
		sed 's/^/    /' "$dir/gpu.txt" | head -n 20
		failed=1
		continue
	fi
	bad=
	for out in "$dir"/*.out; do
		i=${out##*/}
		i=${i%.out}
		cmp -s "$out" "$dir/$i.gpu" || bad="$bad $i"
	done
	# the checksums both printed, as a second look
	sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\): .* fnv64 \([0-9a-f]*\):.*/\1: fnv64 \2/p' "$dir/cpu.txt" >"$dir/cpu.sum"
	if [ -n "$bad" ]; then
		echo "FAIL $name: the GPU left other values than the CPU emulator in parameter(s)$bad"
		paste "$dir/cpu.sum" "$dir/gpu.txt" | sed 's/^/    cpu | gpu: /'
		failed=1
	elif ! cmp -s "$dir/cpu.sum" "$dir/gpu.txt"; then
		echo "FAIL $name: the checksums differ"
		paste "$dir/cpu.sum" "$dir/gpu.txt" | sed 's/^/    cpu | gpu: /'
		failed=1
	else
		echo "PASS $name ($(tr '\n' ' ' <"$dir/gpu.txt"))"
	fi
done
exit $failed
