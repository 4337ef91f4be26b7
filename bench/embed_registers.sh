#!/bin/sh
# embed_registers.sh: the figures docs/embedding.md quotes for examples/embed/gemm.cu, measured: the
# header from examples/embed/epilogue.tile, then gemm.cu built as `make -C examples embed/gemm` does
# (in a scratch copy, with -Xptxas -v), and for each function ptxas reports, its registers and spill
# bytes, with the nvcc release that built it. tests/embed.sh (make check) checks that there are no spills.
# Usage: bench/embed_registers.sh [TILEC]      (default: build/tilec)
# Exit: 0; 3 when nvcc or tilec is missing or the build fails.
cd "$(dirname "$0")/.." || exit 3
tilec=${1:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
nvcc=$(sh tools/find-nvcc.sh) || { echo "$0: nvcc not found (set CUDA_HOME)" >&2; exit 3; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/embed_registers.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' HUP INT TERM
cp -R examples/Makefile examples/embed "$tmp/"
rm -f "$tmp"/embed/*.cuh "$tmp"/embed/*.d "$tmp/embed/gemm"
if ! MAKEFLAGS='' make -C "$tmp" --no-print-directory TILEC="$tilec" NVCC="$nvcc" \
	NVCCFLAGS="-gencode arch=compute_100a,code=sm_100a -O2 -Xptxas -v" embed/gemm </dev/null >"$tmp/make.txt" 2>&1; then
	echo "$0: make embed/gemm failed:" >&2
	cat "$tmp/make.txt" >&2
	exit 3
fi
echo "examples/embed/gemm.cu for sm_100a, $("$nvcc" --version | sed -n 's/.*\(release [0-9.]*\).*/nvcc \1/p')"
# ptxas -v: "Compiling entry function 'NAME'", then "N bytes spill stores, M bytes spill loads",
# then "Used R registers"
awk '
	/Compiling entry function/ { split($0, q, "'"'"'"); name = q[2] }
	/Function properties for/ { split($0, q, "Function properties for "); name = q[2] }
	/bytes spill stores/ { for (i = 1; i <= NF; i++) { if ($(i+1) == "bytes" && $(i+2) == "spill") { if ($(i+3) == "stores,") st = $i; else ld = $i } } }
	/Used [0-9]+ registers/ {
		for (i = 1; i <= NF; i++) if ($i == "Used") r = $(i+1)
		printf "  %s: %d registers, %d bytes spill stores, %d bytes spill loads\n", name, r, st, ld
	}' "$tmp/make.txt" | if command -v c++filt >/dev/null 2>&1; then c++filt; else cat; fi
