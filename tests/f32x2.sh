#!/bin/sh
# f32x2.sh TILEC: the packed f32x2 arithmetic of the PTX route (docs/ptx.md, Packed f32 arithmetic).
# For every program of examples/, examples/copy/, bench/peer/ and tests/ that tilec compiles to PTX
# with a kernel in it, one PASS/FAIL line:
#   f32x2/NAME: tools/ptx-pack-check.py finds that the PTX for sm_103a (packed) computes what the PTX
#               for sm_110a (where tilec packs nothing: ptxas would split the pairs) computes, each
#               instruction on the same values and every load, store, branch and tcgen05 instruction in
#               the same order; NAME.args's options are used, its -arch= replaced.
# and f32x2/packs: tests/golden/f32x2_pack.tile, examples/gemm_epilogue.tile and
# tests/golden/copy_convert.tile do pack (a pass that packs nothing would pass the rest), and their PTX
# for sm_110a has no .f32x2 instruction. SKIP lines without python3.
runner=f32x2
. "$(dirname "$0")/runner.sh"
runner_work 120
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP f32x2: no python3"
	exit 0
fi
for tile in examples/*.tile examples/copy/*.tile bench/peer/*.tile $(find tests -name '*.tile' | sort); do
	name=f32x2/${tile%.tile}
	args=
	[ -f "${tile%.tile}.args" ] && args=$(tr ' ' '\n' <"${tile%.tile}.args" | grep -v '^-arch=' | tr '\n' ' ')
	dir=$(dirname "$tile")
	base=$(basename "$tile")
	# shellcheck disable=SC2086 # the options of NAME.args
	(cd "$dir" && $limit "$tilec" $args --emit=ptx -arch=sm_103a "$base" -o "$tmp/packed.ptx") >/dev/null 2>&1 || continue
	grep -q '^\.visible \.entry' "$tmp/packed.ptx" || continue
	# shellcheck disable=SC2086
	if ! (cd "$dir" && $limit "$tilec" $args --emit=ptx -arch=sm_110a "$base" -o "$tmp/scalar.ptx") >"$tmp/err" 2>&1; then
		echo "FAIL $name: no PTX for sm_110a: $(head -n 1 "$tmp/err")"
		failed=1
	elif ! python3 tools/ptx-pack-check.py "$tmp/scalar.ptx" "$tmp/packed.ptx" >"$tmp/out" 2>&1; then
		echo "FAIL $name: $(head -c 600 "$tmp/out")"
		failed=1
	else
		echo "PASS $name"
	fi
done
name=f32x2/packs
why=
for tile in tests/golden/f32x2_pack.tile examples/gemm_epilogue.tile tests/golden/copy_convert.tile; do
	"$tilec" --emit=ptx "$tile" -o "$tmp/p.ptx" 2>/dev/null && "$tilec" --emit=ptx -arch=sm_110a "$tile" -o "$tmp/s.ptx" 2>/dev/null ||
		why="$why $tile does not compile;"
	grep -q 'f32x2 ' "$tmp/p.ptx" || why="$why $tile packs nothing for sm_100a;"
	! grep -q 'f32x2 ' "$tmp/s.ptx" || why="$why $tile packs for sm_110a;"
done
if [ -n "$why" ]; then
	echo "FAIL $name:$why"
	failed=1
else
	echo "PASS $name"
fi
exit $failed
