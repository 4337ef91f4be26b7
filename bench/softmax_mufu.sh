#!/bin/sh
# softmax_mufu.sh: the exponentials of the FA4 softmax step in SASS (issue 29: one MUFU.EX2 per element
# with --fast-math). Builds examples/attention_softmax.tile with --fast-math by both routes (tilec's PTX
# through ptxas, and --via=nvcc), counts MUFU.EX2 in `cuobjdump -sass` and prints it against the
# exponentials a softmax thread computes: its row's 32 elements of P and the rescale factor alpha (33).
# cuobjdump: $CUOBJDUMP, else the PyPI wheel that bench/sass_figures.sh installs into build/bench-venv;
# without one, the PTX's ex2.approx count only.
# Usage: bench/softmax_mufu.sh [TILEC]  (default build/tilec). Exit 0; 1 when a route needs more than one
# MUFU.EX2 per exponential; 3 when a tool is missing or a build fails.
cd "$(dirname "$0")/.." || exit 3
tilec=${1:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
src=examples/attention_softmax.tile
exps=33 # per softmax thread: 32 elements of P, one alpha
cuobjdump=${CUOBJDUMP-}
if [ -z "$cuobjdump" ]; then
	bin=$(ls -d build/bench-venv/lib/python*/site-packages/nvidia/cu*/bin 2>/dev/null | head -n 1)
	[ -n "$bin" ] && [ -x "$bin/cuobjdump" ] && cuobjdump=$bin/cuobjdump && PATH=$bin:$PATH && export PATH
fi
"$tilec" --fast-math --emit=ptx "$src" -o "$tmp/k.ptx" || exit 3
echo "ptx  ex2.approx in the PTX: $(grep -c 'ex2\.approx' "$tmp/k.ptx") for $exps exponentials per thread"
if [ -z "$cuobjdump" ]; then
	echo "SKIP SASS: no cuobjdump (set CUOBJDUMP, or run bench/sass_figures.sh once to install it)"
	exit 0
fi
status=0
for route in ptx nvcc; do
	via=
	[ $route = nvcc ] && via=--via=nvcc
	"$tilec" --fast-math $via "$src" -o "$tmp/$route.cubin" || exit 3
	"$cuobjdump" -sass "$tmp/$route.cubin" >"$tmp/$route.sass" || exit 3
	n=$(grep -c 'MUFU\.EX2' "$tmp/$route.sass")
	echo "$route MUFU.EX2 in SASS: $n for $exps exponentials per thread: $(awk -v n="$n" -v v="$exps" 'BEGIN { printf "%.2f", n / v }') per exponential"
	[ "$n" -le "$exps" ] || status=1
done
exit $status
