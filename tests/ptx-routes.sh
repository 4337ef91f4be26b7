#!/bin/sh
# ptx-routes.sh TILEC: the direct PTX back end against ptxas and against the nvcc route.
# For every examples/NAME.tile with a tests/examples/NAME.cu and every tests/golden/NAME.tile with a
# NAME.cu (arch: sm_100a, or the -arch= of NAME.args), one PASS/FAIL line each for
#   ptx/NAME:      `TILEC --emit=ptx` twice gives the same bytes, and `ptxas -arch=ARCH -v` accepts it
#                  with 0 bytes of spill stores and loads;
#   ptx-seq/NAME:  the tcgen05 instructions of that PTX (each opcode with its .xN etc., in order, one
#                  per line) equal those of `nvcc -ptx -arch=ARCH` on TILEC's CUDA C of the same file;
#   ptx-regs/NAME: the registers and spill bytes of that PTX under `ptxas -arch=ARCH -v` are not above
#                  those of nvcc's route (ptxas -v on nvcc's PTX of the same CUDA C, as `nvcc -cubin` runs
#                  it). tests/ptx-regs.known lists the programs where tilec's route is still above, with
#                  its figures then: such a program gives a SKIP line while it stays at or below them,
#                  a FAIL when it needs more, and a FAIL when it is no longer above (drop its line);
# the same three for every examples/copy/NAME.tile, and for every tests/routes/NAME.tile (programs
# kept for this comparison: ptx/NAME allows spills there, ptx-regs/NAME compares them);
# ptx/ and ptx-regs/ for every other tests/**/NAME.tile that compiles to a kernel (label
# test/PATH; its ptx-seq/ is left out: a loop of waits is one wait in tilec's PTX and unrolled in
# nvcc's), by rule: a program tilec refuses with its exit status 1 (an error test) and one whose PTX
# has no .entry (include-only files, device functions alone) are left out; the programs of
# tests/emu/ (which the other tests run under the emulator) are compared too;
# nvcc's PTX is kept in build/ptx-routes-cache/, keyed by nvcc's version, the arch and the CUDA C,
# so that a program whose CUDA C did not change costs no nvcc;
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
cache= nvcc_version=
if [ -n "$nvcc" ] && mkdir -p build/ptx-routes-cache 2>/dev/null; then
	cache=$PWD/build/ptx-routes-cache
	nvcc_version=$("$nvcc" --version | cksum)
fi

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


# regs LOG: the most registers a function of ptxas -v output uses
regs() {
	sed -n 's/.*Used \([0-9][0-9]*\) registers.*/\1/p' "$1" | sort -n | tail -n 1
}

# spill_bytes LOG: spill stores and loads of every function of ptxas -v output, in bytes
spill_bytes() {
	sed -n 's/.* \([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1 \2/p' "$1" |
		awk '{ s += $1 + $2 } END { print s + 0 }'
}

# compare_regs ARCH: the ptx-regs/ test of $tmp/a.log (tilec's PTX) against ptxas on $tmp/nv.ptx
compare_regs() {
	name=ptx-regs/$label
	if ! $limit "$ptxas" -arch="$1" -v -o "$tmp/nv.cubin" "$tmp/nv.ptx" >"$tmp/nv.log" 2>&1; then
		fail "ptxas -arch=$1 rejected nvcc's PTX"
		indent <"$tmp/nv.log"
		return
	fi
	pr=$(regs "$tmp/a.log") ps=$(spill_bytes "$tmp/a.log") nr=$(regs "$tmp/nv.log") ns=$(spill_bytes "$tmp/nv.log")
	if [ -z "$pr" ] || [ -z "$nr" ]; then
		fail "no register count from ptxas -v (tilec's PTX: '$pr', nvcc's: '$nr')"
		return
	fi
	known=$(awk -v l="$label" '$1 == l { print $2, $3 }' tests/ptx-regs.known)
	figures="$pr registers, $ps bytes spilled; nvcc's route $nr, $ns"
	if [ "$pr" -le "$nr" ] && [ "$ps" -le "$ns" ]; then
		if [ -n "$known" ]; then
			fail "no longer above the nvcc route ($figures): remove its line from tests/ptx-regs.known"
		else
			echo "PASS $name"
		fi
	elif [ -n "$known" ] && [ "$pr" -le "${known% *}" ] && [ "$ps" -le "${known#* }" ]; then
		echo "SKIP $name: a known gap (tests/ptx-regs.known): $figures"
	else
		fail "tilec's PTX route is above the nvcc route: $figures${known:+ (known gap: $known)}"
	fi
}

# check DIR STEM ARCH ARGS...: the ptx/, ptx-seq/ and ptx-regs/ tests of one file; tilec runs inside
# DIR; with allow_spills=1 the ptx/ test accepts spills.
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
	elif ! $limit "$ptxas" -arch="$arch" -v -o "$tmp/a.cubin" "$tmp/a.ptx" >"$tmp/a.log" 2>&1; then
		fail "ptxas -arch=$arch rejected tilec's PTX"
		indent <"$tmp/a.log"
	elif grep -Eq '(^|[ :])(error|fatal)[ :]' "$tmp/a.log"; then
		fail "ptxas -arch=$arch printed an error"
		indent <"$tmp/a.log"
	elif [ "$allow_spills" != 1 ] && [ "$(spill_bytes "$tmp/a.log")" -ne 0 ]; then
		fail "register spills (ptxas -arch=$arch -v)"
		indent <"$tmp/a.log"
	else
		echo "PASS $name"
	fi

	name=ptx-seq/$label
	if [ -z "$nvcc" ]; then
		[ "$seq" = 0 ] || echo "SKIP $name: no nvcc"
		echo "SKIP ptx-regs/$label: no nvcc"
		return
	fi
	if ! (cd "$dir" && exec $limit "$tilec" "$@" --emit=cu -o -) >"$tmp/a.cu" 2>"$tmp/err"; then
		fail "tilec --emit=cu exited with status $?"
		indent <"$tmp/err"
		return
	fi
	hit=
	if [ -n "$cache" ]; then
		key=$cache/$arch-$( (echo "$nvcc_version"; cat "$tmp/a.cu") | cksum | tr ' ' -)
		[ -f "$key.ptx" ] && cp "$key.ptx" "$tmp/nv.ptx" && hit=1
	fi
	if [ -z "$hit" ]; then
		if ! $limit "$nvcc" -ptx -arch="$arch" -o "$tmp/nv.ptx" "$tmp/a.cu" >"$tmp/log" 2>&1; then
			fail "nvcc -ptx -arch=$arch failed on tilec's CUDA C"
			indent <"$tmp/log"
			return
		fi
		[ -n "$cache" ] && cp "$tmp/nv.ptx" "$key.ptx.$$" && mv "$key.ptx.$$" "$key.ptx"
	fi
	tc_sequence "$tmp/nv.ptx" >"$tmp/nv.seq"
	tc_sequence "$tmp/a.ptx" >"$tmp/a.seq"
	# (tcgen05 in a comment, such as a device function's contract, is no instruction)
	if [ "$seq" = 0 ]; then
		: # not compared (the programs of tests/ other than the goldens with a .cu)
	elif [ ! -s "$tmp/nv.seq" ] && grep -v '^[[:space:]]*//' "$tmp/a.cu" | grep -q tcgen05; then
		fail "no tcgen05 instruction in nvcc's PTX"
	elif ! cmp -s "$tmp/nv.seq" "$tmp/a.seq"; then
		fail "tcgen05 sequence differs from nvcc's (- nvcc -ptx, + tilec --emit=ptx)"
		diff -u --label nvcc --label tilec "$tmp/nv.seq" "$tmp/a.seq" | indent 60
	else
		echo "PASS $name"
	fi
	compare_regs "$arch"
}

arch_of() { # ARGS-FILE: the last -arch= in it, else sm_100a
	a=
	[ -f "$1" ] && a=$(tr ' ' '\n' <"$1" | sed -n 's/^-arch=//p' | tail -n 1)
	echo "${a:-sm_100a}"
}

allow_spills=0 seq=1
for tile in examples/*.tile; do
	[ -f "$tile" ] || continue
	stem=${tile##*/}
	stem=${stem%.tile}
	[ -f "tests/examples/$stem.cu" ] || continue
	label=example/$stem
	check . "$stem" sm_100a "$tile"
done
for tile in examples/copy/*.tile; do
	[ -f "$tile" ] || continue
	stem=${tile##*/}
	stem=${stem%.tile}
	label=example-copy/$stem
	check . "$stem" sm_100a "$tile"
done
allow_spills=1
for tile in tests/routes/*.tile; do
	[ -f "$tile" ] || continue
	stem=${tile##*/}
	stem=${stem%.tile}
	label=routes/$stem
	check . "$stem" sm_100a "$tile"
done
allow_spills=0

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

# every other test program that compiles to a kernel (see the top)
for tile in $(find tests -name '*.tile' | LC_ALL=C sort); do
	base=${tile%.tile}
	dir=${tile%/*}
	stem=${base##*/}
	case $tile in
	tests/routes/*) continue ;; # compared above
	tests/golden/*) [ -f "$base.cu" ] && continue ;; # compared above
	esac
	args=
	[ -f "$base.args" ] && args=$(cat "$base.args")
	set -f
	# shellcheck disable=SC2086
	(cd "$dir" && exec $limit "$tilec" $args --emit=ptx -o - "$stem.tile") >"$tmp/probe.ptx" 2>/dev/null
	rc=$?
	set +f
	case $rc in 1 | 2) continue ;; esac # refused: an error test, or options that write no PTX (--target=emu)
	[ $rc -eq 0 ] && ! grep -q '^\.visible \.entry' "$tmp/probe.ptx" && continue # no kernel
	label=test/${tile#tests/}
	label=${label%.tile}
	set -f
	seq=0
	# shellcheck disable=SC2086
	check "$dir" "$stem" "$(arch_of "$base.args")" $args "$stem.tile"
	seq=1
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
