#!/bin/sh
# emu-large.sh TILEC: the slow check that make check leaves out (`make check-large`): the GEMM epilogue
# of examples/gemm_epilogue.tile on an 8192 x 8192 matrix (ldc 8200) on the CPU emulator, every
# element checked against tests/emu/gemm_epilogue_check.c's reference. Needs about 2 GB of memory and
# about a minute (72 s on two busy cores; 3 minutes when the emulator's threads were pthreads).
# One PASS/FAIL line; exits 1 when it failed.
runner=emu-large
. "$(dirname "$0")/runner.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if ! cc -O2 -std=c11 -ffp-contract=off -o "$tmp/check" tests/emu/gemm_epilogue_check.c -lm; then
	echo "FAIL emu/gemm_epilogue/8192x8192: cannot build the checker"
	exit 1
fi
start=$(date +%s)
if ! "$tilec" run examples/gemm_epilogue.tile --set M=8192 --set N=8192 --set ldc=8200 --set ldd=8192 \
	--set alpha=1.5 --set beta=-0.5 --dump "$tmp/dump" >"$tmp/out" 2>&1; then
	echo "FAIL emu/gemm_epilogue/8192x8192: tilec run failed"
	sed 's/^/    /' "$tmp/out" | head -20
	exit 1
fi
echo "    tilec run took $(($(date +%s) - start)) s"
"$tmp/check" "$tmp/dump" 8192 8192 8200 8192 1.5 -0.5
