#!/bin/sh
# minifloat-ptx.sh TILEC: the PTX route's conversions of the 8-bit and narrower floats against
# runtime/tilec_minifloat.h (which CUDA C and the emulator run, and test_minifloat checks against the
# formats' definitions). For each type a kernel O[i] = f32(T(B[i])) (f32 -> T -> f32) and, for those
# that global memory holds, one that loads every byte (T -> f32), compiled with --emit=ptx and run by
# tools/ptx-straight.py on the CPU for every input, compared word for word with the header's functions
# compiled by cc. Inputs: every f32 exponent with the mantissas at and around each format's rounding
# points (for 1 to 3 mantissa bits), both signs, NaN, infinities, and 4000 seeded random words. e4m3
# and e5m2 round with the GPU's cvt.rn.satfinite, which only a GPU runs (tools/gpu-emu-check.sh): their
# f32 -> T -> f32 kernel is not run here. One PASS/FAIL line per kernel; SKIP without python3.
runner=minifloat-ptx
. "$(dirname "$0")/runner.sh"
runner_work 120
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP minifloat-ptx: no python3"
	exit 0
fi
cat >"$tmp/ref.c" <<'EOF'
#include <stdio.h>
#include <string.h>
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
#define TL_MF_FN static inline
#include "tilec_minifloat.h"
#define TYPE(N) if (!strcmp(argv[1], #N)) r = load ? tl_from_##N((unsigned char)x) : tl_from_##N(tl_to_##N(__uint_as_float(x)));
int main(int argc, char **argv)
{
	unsigned x;
	int load = argc > 2;
	while (scanf("%x", &x) == 1) {
		float r = 0;
		TYPE(e4m3) TYPE(e5m2) TYPE(e2m3) TYPE(e3m2) TYPE(e2m1) TYPE(ue8m0) TYPE(ue4m3)
		printf("%08x\n", __uint_as_float(0) == 0 ? __float_as_uint(r) : 0);
	}
	return 0;
}
EOF
if ! ${CC:-cc} -std=c11 -O1 -Iruntime -o "$tmp/ref" "$tmp/ref.c" 2>"$tmp/cc.txt"; then
	echo "FAIL minifloat-ptx: the reference does not compile"
	show "$tmp/cc.txt"
	exit 1
fi
awk 'BEGIN {
	srand(27);
	split("0 1 4194303 4194304 4194305 8388607 2097152 6291456 1048576 3145728 5242880 7340032", m, " ");
	for (e = 0; e < 256; e++) for (i = 1; i <= 12; i++) for (s = 0; s < 2; s++)
		printf "%08x\n", s * 2147483648 + e * 8388608 + m[i];
	for (i = 0; i < 4000; i++) printf "%04x%04x\n", int(rand() * 65536), int(rand() * 65536);
}' >"$tmp/words"
awk 'BEGIN { for (b = 0; b < 256; b++) printf "%02x\n", b }' >"$tmp/bytes"
# check NAME TYPE INPUTS [load]: the kernel in $tmp/NAME.tile, its PTX run on INPUTS against the reference
check() {
	name=minifloat-ptx/$1
	if ! "$tilec" --emit=ptx -o "$tmp/$1.ptx" "$tmp/$1.tile" 2>"$tmp/err"; then
		fail "tilec --emit=ptx failed"
		show "$tmp/err"
		return
	fi
	"$tmp/ref" "$2" $4 <"$3" >"$tmp/want"
	if ! python3 tools/ptx-straight.py "$tmp/$1.ptx" <"$3" >"$tmp/got" 2>"$tmp/err"; then
		fail "tools/ptx-straight.py could not run the PTX"
		show "$tmp/err"
		return
	fi
	paste -d ' ' "$3" "$tmp/want" "$tmp/got" | awk '$2 != $3' >"$tmp/diff"
	if [ -s "$tmp/diff" ]; then
		fail "$(wc -l <"$tmp/diff") inputs differ (input, header, PTX):"
		show "$tmp/diff"
	else
		echo "PASS $name"
	fi
}
for t in e2m3 e3m2 e2m1 ue8m0 ue4m3; do
	printf 'kernel k(B: f32[32], O: f32[32]) launch(grid = 1, block = 32)\n{\n    O[thread_idx.x] = %s(B[thread_idx.x]);\n}\n' $t >"$tmp/round_$t.tile"
	check round_$t $t "$tmp/words"
done
for t in e4m3 e5m2 ue8m0 ue4m3; do
	printf 'kernel k(B: %s[32], O: f32[32]) launch(grid = 1, block = 32)\n{\n    O[thread_idx.x] = B[thread_idx.x];\n}\n' $t >"$tmp/load_$t.tile"
	check load_$t $t "$tmp/bytes" load
done
exit $failed
