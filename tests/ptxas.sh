#!/bin/sh
# ptxas.sh: compiles every expected CUDA C file (tests/examples/*.cu, tests/golden/*.cu) with
# `nvcc -cubin -arch=ARCH -Xptxas -v`, ARCH being sm_100a or the -arch= of the golden test's
# NAME.args. One PASS/FAIL line each: FAIL on a non-zero exit, an error or warning message, or spill
# stores or loads above 0 bytes. Without nvcc, one SKIP line (not counted).
cd "$(dirname "$0")/.." || exit 2
if ! nvcc=$(sh tools/find-nvcc.sh); then
	echo "SKIP ptxas: no nvcc (looked in CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda)"
	exit 0
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
for cu in tests/examples/*.cu tests/golden/*.cu; do
	[ -f "$cu" ] || continue
	name=ptxas/${cu#tests/}
	name=${name%.cu}
	arch=sm_100a
	args=${cu%.cu}.args
	if [ -f "$args" ]; then
		a=$(tr ' ' '\n' <"$args" | sed -n 's/^-arch=//p' | tail -n 1)
		[ -n "$a" ] && arch=$a
	fi
	"$nvcc" -cubin -arch="$arch" -Xptxas -v -o "$tmp/out.cubin" "$cu" >"$tmp/log" 2>&1
	rc=$?
	spill=$(sed -n 's/.* \([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1 \2/p' "$tmp/log" |
		awk '$1 > 0 || $2 > 0 { n++ } END { print n + 0 }')
	if [ $rc -ne 0 ]; then
		why="nvcc exited with status $rc"
	elif grep -Eq '(^|[ :])(error|fatal)[ :]' "$tmp/log"; then
		why="nvcc printed an error"
	elif grep -Eq '(^|[ :])warning[ #:]' "$tmp/log"; then
		why="nvcc printed a warning"
	elif [ "$spill" -ne 0 ]; then
		why="register spills in $spill function(s)"
	else
		echo "PASS $name"
		continue
	fi
	echo "FAIL $name: $why (nvcc -cubin -arch=$arch -Xptxas -v $cu)"
	head -n 30 "$tmp/log" | sed 's/^/    /'
	failed=1
done
# The headers (tests/golden/*.cuh, tests/examples/*.cuh): all of them in one translation unit, each
# function called from a kernel of its own (tests/cuh-wrap.py), compiled the same way.
set -- tests/golden/*.cuh tests/examples/*.cuh
if [ -f "$1" ]; then
	name=ptxas/headers
	python3 tests/cuh-wrap.py "$@" >"$tmp/headers.cu"
	"$nvcc" -cubin -arch=sm_100a -Xptxas -v -I. -o "$tmp/headers.cubin" "$tmp/headers.cu" >"$tmp/log" 2>&1
	rc=$?
	spill=$(sed -n 's/.* \([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1 \2/p' "$tmp/log" |
		awk '$1 > 0 || $2 > 0 { n++ } END { print n + 0 }')
	entries=$(grep -c "Compiling entry function 'wrap_" "$tmp/log")
	functions=$(cat "$@" | grep -c '^static __device__ __forceinline__ void ')
	if [ $rc -ne 0 ] || grep -Eq '(^|[ :])(error|fatal|warning)[ #:]' "$tmp/log" || [ "$spill" -ne 0 ]; then
		echo "FAIL $name: nvcc -cubin -arch=sm_100a of $# headers in one translation unit failed, warned or spilled"
		head -n 30 "$tmp/log" | sed 's/^/    /'
		failed=1
	elif [ "$entries" -ne "$functions" ] || [ "$functions" -eq 0 ]; then
		echo "FAIL $name: $functions device functions in the headers, but ptxas compiled $entries wrappers"
		failed=1
	else
		echo "PASS $name ($# headers, $functions functions)"
	fi
fi
exit $failed
