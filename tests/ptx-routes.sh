#!/bin/sh
# ptx-routes.sh TILEC: the direct PTX back end against ptxas and against the nvcc route.
# For every examples/NAME.tile with a tests/examples/NAME.cu and every tests/golden/NAME.tile with a
# NAME.cu (arch: sm_100a, or the -arch= of NAME.args), one PASS/FAIL line each for
#   ptx/NAME:      `TILEC --emit=ptx` twice gives the same bytes, and `ptxas -arch=ARCH -v` accepts it
#                  with 0 bytes of spill stores and loads;
#   ptx-seq/NAME:  the tcgen05 instructions of that PTX (each opcode with its .xN etc., in order, one
#                  per line) equal those of `nvcc -ptx -arch=ARCH` on TILEC's CUDA C of the same file;
# and, on one example, for every target:
#   ptx-arch/ARCH: .version is the lowest PTX ISA ptxas accepts for ARCH, .target ARCH, and ptxas
#                  -arch=ARCH accepts it; `-o X.cubin` (the ptxas route) makes a cubin too.
# Without ptxas: one SKIP line (not counted). Without nvcc: the ptx-seq tests are SKIP lines.
# NO_COLOR=1 throughout. Exits 1 when a test failed.
runner=ptx
. "$(dirname "$0")/runner.sh"

# ptxas: where tilec looks (CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda), else beside nvcc
ptxas=
for dir in ${CUDA_HOME:+"$CUDA_HOME/bin"} ${CUDA_PATH:+"$CUDA_PATH/bin"}; do
	if [ -z "$ptxas" ] && [ -x "$dir/ptxas" ]; then ptxas=$dir/ptxas; fi
done
[ -z "$ptxas" ] && ptxas=$(command -v ptxas 2>/dev/null)
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
if [ -z "$ptxas" ]; then
	echo "SKIP ptx: no ptxas (looked in CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda)"
	exit 0
fi
nvcc=$(sh tools/find-nvcc.sh) || nvcc=

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if command -v timeout >/dev/null 2>&1; then limit='timeout 300'; else limit=; fi
failed=0

fail() {
	echo "FAIL $name: $*"
	failed=1
}

indent() {
	head -n "${1:-30}" | sed 's/^/    /'
}

# The tcgen05 instruction sequence of a PTX file, one opcode per line (comments, which carry the
# source line of each apply, dropped).
tc_sequence() {
	sed 's|//.*||' "$1" | grep -o 'tcgen05\(\.[A-Za-z0-9_:]*\)*'
}

# spills LOG: the number of functions with spill stores or loads above 0 bytes in ptxas -v output
spills() {
	sed -n 's/.* \([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1 \2/p' "$1" |
		awk '$1 > 0 || $2 > 0 { n++ } END { print n + 0 }'
}

# check DIR STEM ARCH ARGS...: the ptx/ and ptx-seq/ tests of one file; tilec runs inside DIR.
check() {
	dir=$1 stem=$2 arch=$3
	shift 3
	name=ptx/$label
	if ! (cd "$dir" && exec $limit "$tilec" "$@" --emit=ptx -o -) >"$tmp/a.ptx" 2>"$tmp/err"; then
		fail "tilec --emit=ptx exited with status $?"
		indent <"$tmp/err"
		return
	fi
	(cd "$dir" && exec $limit "$tilec" "$@" --emit=ptx -o -) >"$tmp/b.ptx" 2>/dev/null
	if ! cmp -s "$tmp/a.ptx" "$tmp/b.ptx"; then
		fail "not deterministic: a second run printed other PTX"
	elif ! $limit "$ptxas" -arch="$arch" -v -o "$tmp/a.cubin" "$tmp/a.ptx" >"$tmp/log" 2>&1; then
		fail "ptxas -arch=$arch rejected tilec's PTX"
		indent <"$tmp/log"
	elif grep -Eq '(^|[ :])(error|fatal)[ :]' "$tmp/log"; then
		fail "ptxas -arch=$arch printed an error"
		indent <"$tmp/log"
	elif [ "$(spills "$tmp/log")" -ne 0 ]; then
		fail "register spills (ptxas -arch=$arch -v)"
		indent <"$tmp/log"
	else
		echo "PASS $name"
	fi

	name=ptx-seq/$label
	if [ -z "$nvcc" ]; then
		echo "SKIP $name: no nvcc"
		return
	fi
	if ! (cd "$dir" && exec $limit "$tilec" "$@" --emit=cu -o -) >"$tmp/a.cu" 2>"$tmp/err"; then
		fail "tilec --emit=cu exited with status $?"
		indent <"$tmp/err"
		return
	fi
	if ! $limit "$nvcc" -ptx -arch="$arch" -o "$tmp/nv.ptx" "$tmp/a.cu" >"$tmp/log" 2>&1; then
		fail "nvcc -ptx -arch=$arch failed on tilec's CUDA C"
		indent <"$tmp/log"
		return
	fi
	tc_sequence "$tmp/nv.ptx" >"$tmp/nv.seq"
	tc_sequence "$tmp/a.ptx" >"$tmp/a.seq"
	if [ ! -s "$tmp/nv.seq" ] && grep -q tcgen05 "$tmp/a.cu"; then
		fail "no tcgen05 instruction in nvcc's PTX"
	elif ! cmp -s "$tmp/nv.seq" "$tmp/a.seq"; then
		fail "tcgen05 sequence differs from nvcc's (- nvcc -ptx, + tilec --emit=ptx)"
		diff -u --label nvcc --label tilec "$tmp/nv.seq" "$tmp/a.seq" | indent 60
	else
		echo "PASS $name"
	fi
}

arch_of() { # ARGS-FILE: the last -arch= in it, else sm_100a
	a=
	[ -f "$1" ] && a=$(tr ' ' '\n' <"$1" | sed -n 's/^-arch=//p' | tail -n 1)
	echo "${a:-sm_100a}"
}

for tile in examples/*.tile; do
	[ -f "$tile" ] || continue
	stem=${tile##*/}
	stem=${stem%.tile}
	[ -f "tests/examples/$stem.cu" ] || continue
	label=example/$stem
	check . "$stem" sm_100a "$tile"
done

for tile in tests/golden/*.tile; do
	[ -f "$tile" ] || continue
	base=${tile%.tile}
	stem=${base##*/}
	[ -f "$base.cu" ] || continue
	label=golden/$stem
	args=
	[ -f "$base.args" ] && args=$(cat "$base.args")
	set -f # NAME.args is split into words, never globbed
	# shellcheck disable=SC2086
	check tests/golden "$stem" "$(arch_of "$base.args")" $args "$stem.tile"
	set +f
done

# every target: its .version, and ptxas for that target accepts the PTX; the ptxas route makes a cubin
example=examples/tmem_roundtrip.tile
for pair in sm_100a:8.6 sm_100f:8.8 sm_103a:8.8 sm_103f:8.8 sm_110a:9.0 sm_110f:9.0; do
	arch=${pair%%:*} version=${pair#*:}
	name=ptx-arch/$arch
	if ! $limit "$tilec" -arch="$arch" --emit=ptx -o "$tmp/t.ptx" "$example" 2>"$tmp/err"; then
		fail "tilec -arch=$arch --emit=ptx failed"
		indent <"$tmp/err"
		continue
	fi
	got=$(sed -n 's/^\.version //p' "$tmp/t.ptx")
	target=$(sed -n 's/^\.target //p' "$tmp/t.ptx")
	if [ "$got" != "$version" ] || [ "$target" != "$arch" ]; then
		fail ".version $got .target $target, expected .version $version .target $arch"
		continue
	fi
	if ! $limit "$ptxas" -arch="$arch" -o "$tmp/t.cubin" "$tmp/t.ptx" >"$tmp/log" 2>&1; then
		fail "ptxas -arch=$arch rejected it"
		indent <"$tmp/log"
		continue
	fi
	# one below the lowest version: ptxas must reject it, else tilec could use it
	lower=$(echo "$version" | awk '{ split($1, v, "."); if (v[2] > 0) printf "%d.%d", v[1], v[2] - 1; else printf "%d.%d", v[1] - 1, 8 }')
	sed "s/^\\.version .*/.version $lower/" "$tmp/t.ptx" >"$tmp/lower.ptx"
	if $limit "$ptxas" -arch="$arch" -o "$tmp/lower.cubin" "$tmp/lower.ptx" >/dev/null 2>&1; then
		fail "ptxas also accepts .version $lower for $arch: $version is not the lowest"
		continue
	fi
	rm -f "$tmp/t.cubin"
	if ! $limit "$tilec" -arch="$arch" -o "$tmp/t.cubin" "$example" >"$tmp/log" 2>&1 || [ ! -s "$tmp/t.cubin" ]; then
		fail "tilec -arch=$arch -o X.cubin (the ptxas route) failed"
		indent <"$tmp/log"
		continue
	fi
	echo "PASS $name"
done
exit $failed
