# gpu-setup.sh: sourced by the GPU check scripts (tools/gpu-*-check.sh) after setting $script (its name,
# for messages) and before their first check. From the repository root, with the script's arguments
# still in "$@": sets tilec (absolute; built with make when no TILEC argument was given), arch
# ($EMU_ARCH, default sm_90), nvcc, tmp (removed at exit), runner (tools/emu-gpu-runner.c linked
# with libtilert) and ulps_compare (tools/ulps-compare.c), failed=0 and the function gpu_compare. Exits 2
# when one of them cannot be had.
tilec=${1:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
arch=${EMU_ARCH:-sm_90}
if ! nvcc=$(sh tools/find-nvcc.sh); then
	echo "$script: no nvcc (set CUDA_HOME)" >&2
	exit 2
fi
if [ $# -eq 0 ]; then
	make --no-print-directory build/tilec >/dev/null || exit 2
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
runner=$tmp/emu-gpu-runner
${CC:-cc} -std=c11 -Wall -Wextra -O2 -D_POSIX_C_SOURCE=200809L -Iruntime -o "$runner" tools/emu-gpu-runner.c \
	runtime/tilert.c -ldl || exit 2
ulps_compare=$tmp/ulps-compare
${CC:-cc} -std=c11 -Wall -Wextra -O2 -o "$ulps_compare" tools/ulps-compare.c -lm || exit 2
failed=0

# gpu_compare NAME DIR CUBIN [TOLERANCE]: launches CUBIN through libtilert on the inputs `tilec run --dump
# DIR` wrote and compares every tensor it leaves with the CPU emulator's, bit for bit; one PASS/FAIL line.
# With TOLERANCE ("ulps N" or "scale N", tools/ulps-compare.c), the f32 tensors within it instead.
gpu_compare() {
	name=$1 dir=$2 tolerance=${4-} within= over=
	if ! "$runner" "$3" "$dir" >"$dir/gpu.txt" 2>&1; then
		echo "FAIL $name: the GPU run failed"
		sed 's/^/    /' "$dir/gpu.txt" | head -n 20
		failed=1
		return
	fi
	bad=
	for out in "$dir"/*.out; do
		i=${out##*/}
		i=${i%.out}
		if [ -n "$tolerance" ] && grep -q "^tensor $i [^ ]* f32 " "$dir/manifest"; then
			# shellcheck disable=SC2086 # mode and bound are two words
			if r=$("$ulps_compare" $tolerance "$out" "$dir/$i.gpu"); then
				within="$within $i: $r;"
			else
				bad="$bad $i"
				over="$over    $i: $r
"
			fi
			continue
		fi
		cmp -s "$out" "$dir/$i.gpu" || bad="$bad $i"
	done
	# the checksums both printed, as a second look
	sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\): .* fnv64 \([0-9a-f]*\):.*/\1: fnv64 \2/p' "$dir/cpu.txt" >"$dir/cpu.sum"
	if [ -n "$bad" ]; then
		echo "FAIL $name: the GPU left other values than the CPU emulator in parameter(s)$bad"
		printf '%s' "$over"
		paste "$dir/cpu.sum" "$dir/gpu.txt" | sed 's/^/    cpu | gpu: /'
		failed=1
	elif [ -n "$tolerance" ]; then
		echo "PASS $name (within $tolerance:$within)"
	elif ! cmp -s "$dir/cpu.sum" "$dir/gpu.txt"; then
		echo "FAIL $name: the checksums differ"
		paste "$dir/cpu.sum" "$dir/gpu.txt" | sed 's/^/    cpu | gpu: /'
		failed=1
	else
		echo "PASS $name ($(tr '\n' ' ' <"$dir/gpu.txt"))"
	fi
}
