#!/bin/sh
# compare_routes.sh: registers and spill bytes of tilec's two routes to a cubin, for every example,
# every golden test with an expected .cu (with its NAME.args) and every NAME.tile in the directories
# given: tilec's PTX through `ptxas -arch=ARCH -v`, against tilec's CUDA C through
# `nvcc -cubin -arch=ARCH -Xptxas -v`. One line each; `above` marks a program whose PTX route needs
# more registers or spills more than the nvcc route.
# Usage: bench/compare_routes.sh [-t TILEC] [DIR...]      (e.g. ../shared/repro/codegen)
# Exit: 0 none above, 1 some above, 3 a tool missing or failing.
cd "$(dirname "$0")/.." || exit 3
root=$PWD
tilec=$root/build/tilec
if [ "${1-}" = -t ]; then
	tilec=$2
	shift 2
	case $tilec in /*) ;; *) tilec=$root/$tilec ;; esac
fi
nvcc=$(sh tools/find-nvcc.sh) || { echo "$0: nvcc not found (set CUDA_HOME)" >&2; exit 3; }
ptxas=$(dirname "$nvcc")/ptxas
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable" >&2; exit 3; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare_routes.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' HUP INT TERM

regs() { sed -n 's/.*Used \([0-9][0-9]*\) registers.*/\1/p' "$1" | sort -n | tail -n 1; }
spill() {
	sed -n 's/.* \([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1 \2/p' "$1" |
		awk '{ s += $1 + $2 } END { print s + 0 }'
}

above=0 err=0
printf '%-40s %14s %14s\n' program 'ptx regs/spill' 'nvcc regs/spill'
# one LABEL DIR ARGS...: tilec runs inside DIR
one() {
	label=$1 dir=$2
	shift 2
	arch=$(printf '%s\n' "$@" | sed -n 's/^-arch=//p' | tail -n 1)
	arch=${arch:-sm_100a}
	if ! (cd "$dir" && "$tilec" "$@" --emit=ptx -o "$tmp/a.ptx" && "$tilec" "$@" --emit=cu -o "$tmp/a.cu") 2>"$tmp/err" ||
		! "$ptxas" -arch="$arch" -v -o "$tmp/p.cubin" "$tmp/a.ptx" >"$tmp/p.log" 2>&1 ||
		! "$nvcc" -cubin -arch="$arch" -Xptxas -v -o "$tmp/n.cubin" "$tmp/a.cu" >"$tmp/n.log" 2>&1; then
		printf '%-40s %14s %14s  error\n' "$label" - -
		err=1
		return
	fi
	pr=$(regs "$tmp/p.log") ps=$(spill "$tmp/p.log") nr=$(regs "$tmp/n.log") ns=$(spill "$tmp/n.log")
	mark=
	if [ "$pr" -gt "$nr" ] || [ "$ps" -gt "$ns" ]; then
		mark=above
		above=1
	fi
	printf '%-40s %14s %14s  %s\n' "$label" "$pr/$ps" "$nr/$ns" "$mark"
}

for tile in examples/*.tile; do
	one "example/$(basename "$tile" .tile)" . "$tile"
done
for cu in tests/golden/*.cu; do
	base=${cu%.cu}
	[ -f "$base.tile" ] || continue
	args=
	[ -f "$base.args" ] && args=$(cat "$base.args")
	set -f
	# shellcheck disable=SC2086 # NAME.args is words
	one "golden/$(basename "$base")" tests/golden $args "$(basename "$base").tile"
	set +f
done
for dir in "$@"; do
	for tile in "$dir"/*.tile; do
		[ -f "$tile" ] && one "$(basename "$dir")/$(basename "$tile" .tile)" "$dir" "$(basename "$tile")"
	done
done
[ $err -ne 0 ] && exit 3
exit $above
