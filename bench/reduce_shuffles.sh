#!/bin/sh
# reduce_shuffles.sh: the shuffles a reduce over 16x256b rows costs in SASS (issue 29: two shuffle steps
# per value). Builds bench/reduce/row_sum_16x256b.tile by both routes (tilec's PTX through ptxas, and
# --via=nvcc), counts the SHFL instructions of `cuobjdump -sass` and prints them with the values a
# thread reduces (2 rows) and the shuffles per value. cuobjdump: $CUOBJDUMP, else the PyPI wheel that
# bench/sass_figures.sh installs into build/bench-venv (run it once, or pip install
# nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm there); without one, the PTX's shfl.sync count only.
# Usage: bench/reduce_shuffles.sh [TILEC]  (default build/tilec). Exit 0; 1 when a route needs more
# than 2 shuffles per value; 3 when a tool is missing or a build fails.
cd "$(dirname "$0")/.." || exit 3
tilec=${1:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
src=bench/reduce/row_sum_16x256b.tile
values=2 # rows per thread
cuobjdump=${CUOBJDUMP-}
if [ -z "$cuobjdump" ]; then
	bin=$(ls -d build/bench-venv/lib/python*/site-packages/nvidia/cu*/bin 2>/dev/null | head -n 1)
	[ -n "$bin" ] && [ -x "$bin/cuobjdump" ] && cuobjdump=$bin/cuobjdump && PATH=$bin:$PATH && export PATH
fi
"$tilec" --emit=ptx "$src" -o "$tmp/k.ptx" || exit 3
echo "ptx  shfl.sync in the PTX: $(grep -c 'shfl\.sync' "$tmp/k.ptx") for $values values per thread"
if [ -z "$cuobjdump" ]; then
	echo "SKIP SASS: no cuobjdump (set CUOBJDUMP, or run bench/sass_figures.sh once to install it)"
	exit 0
fi
status=0
for route in ptx nvcc; do
	via=
	[ $route = nvcc ] && via=--via=nvcc
	"$tilec" $via "$src" -o "$tmp/$route.cubin" || exit 3
	"$cuobjdump" -sass "$tmp/$route.cubin" >"$tmp/$route.sass" || exit 3
	n=$(grep -c 'SHFL\.' "$tmp/$route.sass")
	echo "$route SHFL in SASS: $n for $values values per thread: $(awk -v n="$n" -v v="$values" 'BEGIN { printf "%.1f", n / v }') per value"
	[ "$n" -le $((2 * values)) ] || status=1
done
exit $status
