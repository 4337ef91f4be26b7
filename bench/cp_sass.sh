#!/bin/sh
# cp_sass.sh: the machine code of a scale-factor load (issue 27's figure): examples/block_scale_factors.tile's
# four tcgen05.cp.32x128b.warpx4 built by tilec's PTX route (ptxas) and its CUDA C route (nvcc), against the
# hand-written twin bench/handwritten/block_scale_factors.cu, all for sm_100a. Per build, from `cuobjdump
# -sass`: the UTCCP instructions (the SASS of tcgen05.cp; one per cp is the goal), the shared-memory loads
# (LDS) and the integer instructions that compute addresses and descriptors (IADD3, VIADD, IMAD, LEA, SHF,
# SGXT, LOP3, BMSK, and their uniform-datapath U forms), the elections (ELECT) and the proxy fences
# (FENCE.VIEW.ASYNC.S), for the whole kernel and between the first and the last UTCCP. A benchmark, not a
# test: it prints the table docs/performance.md quotes and exits 0 (3 when a tool is missing or a build fails).
# cuobjdump: $CUOBJDUMP, else the PyPI wheel bench/sass_figures.sh installs into build/bench-venv.
# Usage: bench/cp_sass.sh [TILEC]  (default build/tilec)
cd "$(dirname "$0")/.." || exit 3
tilec=${1:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
nvcc=$(sh tools/find-nvcc.sh) || { echo "$0: no nvcc (set CUDA_HOME)" >&2; exit 3; }
cuobjdump=${CUOBJDUMP-}
if [ -z "$cuobjdump" ]; then
	bin=$(ls -d build/bench-venv/lib/python*/site-packages/nvidia/cu*/bin 2>/dev/null | head -n 1)
	[ -n "$bin" ] && [ -x "$bin/cuobjdump" ] && cuobjdump=$bin/cuobjdump
fi
[ -n "$cuobjdump" ] || { echo "$0: no cuobjdump (set CUOBJDUMP, or run bench/sass_figures.sh once)" >&2; exit 3; }
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
src=examples/block_scale_factors.tile
"$tilec" --emit=ptx "$src" -o "$tmp/tilec.ptx" &&
	"$(dirname "$nvcc")/ptxas" -arch=sm_100a -o "$tmp/tilec-ptx.cubin" "$tmp/tilec.ptx" || exit 3
"$tilec" "$src" -o "$tmp/tilec.cu" && "$nvcc" -cubin -arch=sm_100a -o "$tmp/tilec-nvcc.cubin" "$tmp/tilec.cu" || exit 3
"$nvcc" -cubin -arch=sm_100a -o "$tmp/handwritten.cubin" bench/handwritten/block_scale_factors.cu || exit 3
echo "tcgen05.cp in tilec's PTX: $(grep -v '^[[:space:]]*//' "$tmp/tilec.ptx" | grep -c 'tcgen05\.cp\.')"
# opcodes, one a line (the predicate dropped), of the whole kernel or (cps) from the first UTCCP to the last
opcodes() {
	"$cuobjdump" -sass "$1" | sed -n 's|^ *\/\*[0-9a-f]*\*\/ *\(@!*U*P[0-9T] *\)*\([A-Z][A-Z0-9_.]*\).*|\2|p' >"$tmp/ops"
	if [ "$2" = cps ]; then
		first=$(grep -n '^UTCCP' "$tmp/ops" | head -n 1 | cut -d: -f1)
		last=$(grep -n '^UTCCP' "$tmp/ops" | tail -n 1 | cut -d: -f1)
		sed -n "${first:-1},${last:-0}p" "$tmp/ops"
	else
		cat "$tmp/ops"
	fi
}
count() {
	grep -cE "$1" || true
}
arith='^U?(IADD3|VIADD|IMAD|LEA|SHF|SGXT|LOP3|BMSK)(\.|$)'
printf '%-14s %-6s %6s %5s %10s %6s %6s %6s\n' build range UTCCP LDS arithmetic ELECT fences total
for build in tilec-ptx tilec-nvcc handwritten; do
	for range in kernel cps; do
		opcodes "$tmp/$build.cubin" $range >"$tmp/r"
		printf '%-14s %-6s %6d %5d %10d %6d %6d %6d\n' $build $range "$(count '^UTCCP' <"$tmp/r")" \
			"$(count '^LDS' <"$tmp/r")" "$(count "$arith" <"$tmp/r")" "$(count '^ELECT' <"$tmp/r")" \
			"$(count '^FENCE\.VIEW\.ASYNC\.S' <"$tmp/r")" "$(wc -l <"$tmp/r")"
	done
done
exit 0
