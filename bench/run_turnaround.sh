#!/bin/sh
# run_turnaround.sh: how long `tilec run` takes on every example, cold (an empty cache of compiled
# programs: tilec lowers, writes and compiles the program, then runs it) and warm (the same command
# again: the executable comes from the cache). One line per example: wall seconds cold and warm, and
# the CPU seconds (user + system) of each, tilec, the C++ compiler and the emulated program together:
# on a busy machine the wall time is larger, the CPU time much less so; then the largest of each
# column. Issue 31 asks under 3 s cold and under 1 s warm.
#
# Usage: bench/run_turnaround.sh [TILEC] [FILE.tile...]
#   TILEC  the compiler (default build/tilec)
#   FILE   default: examples/*.tile, examples/copy/*.tile and examples/embed/epilogue_test.tile
# The arguments of a run are those of the file's `// run: tilec run FILE ARGS` line, else none. The
# cache is a temporary $XDG_CACHE_HOME, removed at the end; the user's is not touched.
here=$(dirname "$0")
root=$(cd "$here/.." && pwd)
tilec=${1:-$root/build/tilec}
[ $# -gt 0 ] && shift
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
if [ ! -x "$tilec" ]; then
	echo "$0: $tilec is not an executable (make build/tilec)" >&2
	exit 2
fi
cd "$root" || exit 2
if [ $# -eq 0 ]; then
	set -- examples/*.tile examples/copy/*.tile examples/embed/epilogue_test.tile
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run_turnaround.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' HUP INT TERM
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
unset TILEC_CACHE

# seconds FROM TO: the difference of two `date +%s%N` readings, in seconds with two decimals
seconds() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'
}

# cpu FILE: the children's user + system seconds that `times` wrote to FILE
cpu() {
	awk 'NR == 2 { gsub(/[ms]/, " "); printf "%.2f", $1 * 60 + $2 + $3 * 60 + $4 }' "$1"
}

printf '%-42s %7s %7s %9s %9s\n' example cold warm 'cold cpu' 'warm cpu'
worst_cold=0 worst_warm=0 failed=0
for f in "$@"; do
	args=$(sed -n 's|^// run: tilec run [^ ]* *||p' "$f" | head -n 1)
	start=$(date +%s%N)
	# shellcheck disable=SC2086 # the run line's words
	sh -c '"$@" >"'"$tmp"'/cold" 2>&1; rc=$?; times >"'"$tmp"'/ctimes"; exit $rc' sh "$tilec" run "$f" $args
	rc=$?
	mid=$(date +%s%N)
	# shellcheck disable=SC2086
	sh -c '"$@" >"'"$tmp"'/warm" 2>&1; rc=$?; times >"'"$tmp"'/times"; exit $rc' sh "$tilec" run "$f" $args
	rc2=$?
	end=$(date +%s%N)
	if [ $rc -ne 0 ] || [ $rc2 -ne 0 ] || ! cmp -s "$tmp/cold" "$tmp/warm"; then
		echo "$f: exit status $rc cold, $rc2 warm, or different output" >&2
		failed=1
	fi
	cold=$(seconds "$start" "$mid")
	warm=$(seconds "$mid" "$end")
	printf '%-42s %7s %7s %9s %9s\n' "$f" "$cold" "$warm" "$(cpu "$tmp/ctimes")" "$(cpu "$tmp/times")"
	worst_cold=$(awk -v a="$worst_cold" -v b="$cold" 'BEGIN { print (b > a ? b : a) }')
	worst_warm=$(awk -v a="$worst_warm" -v b="$warm" 'BEGIN { print (b > a ? b : a) }')
done
printf '%-42s %7s %7s\n' 'largest' "$worst_cold" "$worst_warm"
exit $failed
