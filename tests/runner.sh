# runner.sh: the start every test runner shares, sourced after setting `runner` (its name in FAIL
# lines): checks the one argument TILEC, moves to the repository root, makes $tilec absolute and
# sets NO_COLOR. It also defines what the runners of `tilec run` share (runner_work and below).
if [ $# -ne 1 ]; then
	echo "usage: $0 TILEC" >&2
	exit 2
fi
cd "$(dirname "$0")/.." || exit 2
case $1 in
/*) tilec=$1 ;;
*) tilec=$PWD/$1 ;;
esac
if [ ! -x "$tilec" ]; then
	echo "FAIL $runner: $1 is not an executable"
	exit 1
fi
NO_COLOR=1
export NO_COLOR
# tilec run compiles every program (tests/emu.sh tests the cache, in its own directory): nothing is
# written to the user's ~/.cache, and a test of the compile step never gets a program from the cache
TILEC_CACHE=0
export TILEC_CACHE

# runner_work SECONDS: a temporary directory $tmp, removed at exit; $limit, the command that bounds
# one run to SECONDS (empty without timeout(1)); failed=0. fail and show below report into $name.
runner_work() {
	tmp=$(mktemp -d) || exit 2
	trap 'rm -rf "$tmp"' EXIT
	if command -v timeout >/dev/null 2>&1; then limit="timeout $1"; else limit=; fi
	failed=0
}

fail() {
	echo "FAIL $name: $*"
	failed=1
}

show() {
	head -n 20 "$1" | sed 's/^/    /'
}

# run ARGS...: `tilec run ARGS`, stdout and stderr together into $tmp/out; sets rc.
run() {
	$limit "$tilec" run "$@" >"$tmp/out" 2>&1
	rc=$?
}

# expect_run NAME STATUS TEXT ARGS...: tilec run exits with STATUS and prints a line containing TEXT.
expect_run() {
	name=$1 status=$2 text=$3
	shift 3
	run "$@"
	if [ $rc -ne "$status" ]; then
		fail "exit status $rc, expected $status (tilec run $*)"
		show "$tmp/out"
	elif ! grep -qF -- "$text" "$tmp/out"; then
		fail "no line with '$text' (tilec run $*)"
		show "$tmp/out"
	else
		echo "PASS $name"
	fi
}

# same_as_ref NAME TILE REF [ARGS...]: TILE runs (tilec run TILE ARGS) and gives the same tensors
# (checksums included) as the reference kernel REF with the same ARGS.
same_as_ref() {
	name=$1 sar_tile=$2 sar_ref=$3
	shift 3
	run "$sar_tile" "$@"
	if [ $rc -ne 0 ]; then
		fail "exit status $rc (tilec run $sar_tile $*)"
		show "$tmp/out"
		return
	fi
	grep 'fnv64' "$tmp/out" >"$tmp/got"
	run "$sar_ref" "$@"
	grep 'fnv64' "$tmp/out" >"$tmp/want"
	if [ $rc -ne 0 ] || [ ! -s "$tmp/want" ]; then
		fail "the reference $sar_ref did not run (status $rc)"
		show "$tmp/out"
	elif ! cmp -s "$tmp/want" "$tmp/got"; then
		fail "tensors differ from those of $sar_ref (- reference, + $sar_tile)"
		diff -u "$tmp/want" "$tmp/got" | sed 's/^/    /'
	else
		echo "PASS $name"
	fi
}
