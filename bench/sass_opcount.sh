#!/bin/sh
# sass_opcount.sh: one kind of machine instruction counted in the SASS of one program, against what the
# program's threads compute (issue 29's figures). Two measurements:
#   shuffles  bench/reduce/row_sum_16x256b.tile: SHFL per value of a reduce over 16x256b rows (2 rows a
#             thread; at most 2 shuffle steps per value)
#   mufu      examples/attention_softmax.tile with --fast-math: MUFU.EX2 per exponential of the FA4
#             softmax step (32 elements of P and alpha: 33 a thread; at most one each)
# Each builds by both routes (tilec's PTX through ptxas, and --via=nvcc), counts with `cuobjdump -sass`
# and prints the count, the work and the ratio. cuobjdump: $CUOBJDUMP, else the PyPI wheel that
# bench/sass_figures.sh installs into build/bench-venv (run it once); without one, the PTX's count only.
# Usage: bench/sass_opcount.sh shuffles|mufu [TILEC]  (default build/tilec). Exit 0; 1 when a route
# needs more than the bound; 2 on a wrong measurement name; 3 when a tool is missing or a build fails.
cd "$(dirname "$0")/.." || exit 3
case $1 in
shuffles) src=bench/reduce/row_sum_16x256b.tile flags= ptx_op=shfl.sync sass_op=SHFL
	work=2 unit='values' bound=2 ;;
mufu) src=examples/attention_softmax.tile flags=--fast-math ptx_op=ex2.approx sass_op=MUFU.EX2
	work=33 unit='exponentials' bound=1 ;;
*) echo "usage: $0 shuffles|mufu [TILEC]" >&2; exit 2 ;;
esac
tilec=${2:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
cuobjdump=${CUOBJDUMP-}
if [ -z "$cuobjdump" ]; then
	bin=$(ls -d build/bench-venv/lib/python*/site-packages/nvidia/cu*/bin 2>/dev/null | head -n 1)
	[ -n "$bin" ] && [ -x "$bin/cuobjdump" ] && cuobjdump=$bin/cuobjdump && PATH=$bin:$PATH && export PATH
fi
"$tilec" $flags --emit=ptx "$src" -o "$tmp/k.ptx" || exit 3
echo "ptx  $ptx_op in the PTX: $(grep -cF "$ptx_op" "$tmp/k.ptx") for $work $unit per thread"
if [ -z "$cuobjdump" ]; then
	echo "SKIP SASS: no cuobjdump (set CUOBJDUMP, or run bench/sass_figures.sh once to install it)"
	exit 0
fi
status=0
for route in ptx nvcc; do
	via=
	[ $route = nvcc ] && via=--via=nvcc
	"$tilec" $flags $via "$src" -o "$tmp/$route.cubin" || exit 3
	"$cuobjdump" -sass "$tmp/$route.cubin" >"$tmp/$route.sass" || exit 3
	n=$(grep -cF "$sass_op" "$tmp/$route.sass")
	echo "$route $sass_op in SASS: $n for $work $unit per thread: $(awk -v n="$n" -v v="$work" 'BEGIN { printf "%.2f", n / v }') each"
	[ "$n" -le $((bound * work)) ] || status=1
done
exit $status
