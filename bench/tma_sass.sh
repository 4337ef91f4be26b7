#!/bin/sh
# tma_sass.sh: the TMA loads of examples/tma_pipeline.tile in its SASS (issue 28's benchmark). Builds the
# program by both of tilec's routes (its PTX through ptxas, and --via=nvcc) and the hand-written CUDA twin
# bench/handwritten/tma_pipeline.cu (inline PTX for cp.async.bulk.tensor, try_wait loops, no CuTe), all for
# sm_100a, and prints for each: registers and spills (ptxas -v), UTMALDG instructions (sm_100's TMA load;
# `cuobjdump -sass`), the TMA copy statements of the .tile and the ring's stages. In the ring the stage is a
# run-time index (k % 4), so one UTMALDG per copy serves every stage where the loop stays a loop (ptxas on
# tilec's PTX); nvcc unrolls the producer's loop by the 4 stages and keeps a loop for the rest, one UTMALDG
# per copy in each of the 5 bodies. Each of tilec's routes must have a whole number of UTMALDG per copy, at
# most one per stage and one more, and no more registers than the twin. cuobjdump: $CUOBJDUMP,
# else the PyPI wheel that bench/sass_figures.sh installs into build/bench-venv (run that once).
# Usage: bench/tma_sass.sh [--markdown] [TILEC]  (default build/tilec). Exit 0; 1 when a route of tilec
# has another UTMALDG count or more registers than the twin; 3 when a tool is missing or a build fails.
# docs/performance.md ("TMA loads") has the table (--markdown).
cd "$(dirname "$0")/.." || exit 3
markdown=0
[ "${1-}" = --markdown ] && markdown=1 && shift
tilec=${1:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
nvcc=$(sh tools/find-nvcc.sh) || { echo "$0: nvcc not found (set CUDA_HOME)" >&2; exit 3; }
cuobjdump=${CUOBJDUMP-}
if [ -z "$cuobjdump" ]; then
	bin=$(ls -d build/bench-venv/lib/python*/site-packages/nvidia/cu*/bin 2>/dev/null | head -n 1)
	[ -n "$bin" ] && [ -x "$bin/cuobjdump" ] && cuobjdump=$bin/cuobjdump && PATH=$bin:$PATH && export PATH
fi
[ -n "$cuobjdump" ] || { echo "$0: no cuobjdump (run bench/sass_figures.sh once, or set CUOBJDUMP)" >&2; exit 3; }
tile=examples/tma_pipeline.tile
twin=bench/handwritten/tma_pipeline.cu
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT

# the TMA loads of the .tile (copy(...) ... mbarrier ...;) and the stages of its ring (the mbarrier array)
copies=$(grep -cE '^[[:space:]]*copy\(.*\)[[:space:]]+mbarrier[[:space:]]' "$tile")
stages=$(sed -n 's/.*shared full: mbarrier\[\([0-9][0-9]*\)\].*/\1/p' "$tile" | head -n 1)

if [ $markdown -eq 1 ]; then
	echo '| build | registers | spill bytes | UTMALDG | TMA copies in the .tile | UTMALDG per copy | stages |'
	echo '|---|---:|---:|---:|---:|---:|---:|'
else
	printf '%-22s %9s %6s %8s %7s %9s %7s\n' build registers spill UTMALDG copies 'per copy' stages
fi
twin_regs=
bad=0
for route in twin ptx nvcc; do
	case $route in
	ptx) "$tilec" -Xptxas -v "$tile" -o "$tmp/$route.cubin" ;;
	nvcc) "$tilec" --via=nvcc -Xptxas -v "$tile" -o "$tmp/$route.cubin" ;;
	twin) "$nvcc" -cubin -arch=sm_100a -Xptxas -v -o "$tmp/$route.cubin" "$twin" ;;
	esac >"$tmp/$route.log" 2>&1 || {
		echo "$0: the $route build failed:" >&2
		head -n 20 "$tmp/$route.log" >&2
		exit 3
	}
	regs=$(sed -n 's/.*Used \([0-9][0-9]*\) registers.*/\1/p' "$tmp/$route.log" | sort -n | tail -n 1)
	spill=$(sed -n 's/.* \([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1 \2/p' \
		"$tmp/$route.log" | awk '{ s += $1 + $2 } END { print s + 0 }')
	"$cuobjdump" -sass "$tmp/$route.cubin" >"$tmp/$route.sass" 2>"$tmp/$route.err" || {
		echo "$0: cuobjdump -sass failed on the $route build:" >&2
		head -n 5 "$tmp/$route.err" >&2
		exit 3
	}
	utma=$(grep -cE '[[:space:]]UTMALDG(\.[0-9A-Z]+)*[[:space:]]' "$tmp/$route.sass")
	case $route in
	twin) label="twin (hand-written)"; twin_regs=$regs ;;
	ptx) label="tilec (PTX, ptxas)" ;;
	nvcc) label="tilec --via=nvcc" ;;
	esac
	per=$(awk -v u="$utma" -v c="$copies" 'BEGIN { printf "%.2g", u / c }')
	if [ $markdown -eq 1 ]; then
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$regs" "$spill" "$utma" "$copies" "$per" "$stages"
	else
		printf '%-22s %9s %6s %8s %7s %9s %7s\n' "$label" "$regs" "$spill" "$utma" "$copies" "$per" "$stages"
	fi
	[ "$route" = twin ] && continue
	if [ "$utma" -eq 0 ] || [ $((utma % copies)) -ne 0 ] || [ "$utma" -gt $((copies * (stages + 1))) ]; then
		echo "$label: $utma UTMALDG for the $copies TMA copies of $tile (a whole number per copy expected, at most $((stages + 1)))" >&2
		bad=1
	fi
	if [ "$regs" -gt "$twin_regs" ]; then
		echo "$label: $regs registers, more than the twin's $twin_regs" >&2
		bad=1
	fi
done
exit $bad
