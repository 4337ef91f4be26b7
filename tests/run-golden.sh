#!/bin/sh
# run-golden.sh TILEC: the golden tests and the examples, one PASS/FAIL line each.
#   tests/golden/NAME.tile + NAME.cu:  `TILEC [NAME.args] NAME.tile -o -`, run inside tests/golden,
#       exits 0 and prints exactly NAME.cu, twice the same (determinism).
#   tests/golden/NAME.tile + NAME.err: the same command exits 1 and its stderr is exactly NAME.err.
#   examples/NAME.tile + tests/examples/NAME.cu: `TILEC examples/NAME.tile -o -` from the
#       repository root prints exactly NAME.cu, twice the same.
#   NAME.ir next to either kind of NAME.tile: the same with --emit=ir prints exactly NAME.ir (the
#       lowered program), twice the same; a golden/NAME.tile may have an .ir and nothing else.
#   NAME.cuh next to either kind of NAME.tile: the same with --emit=cuh prints exactly NAME.cuh (the
#       header of its device functions), twice the same.
#   NAME.ptx next to a golden NAME.tile: the same with --emit=ptx prints exactly NAME.ptx (tilec's
#       PTX), twice the same; make check's ptx-routes has ptxas read it.
#   NAME.run next to a golden NAME.tile: each of its lines is the options of one `TILEC run OPTIONS
#       NAME.tile` inside tests/golden (an empty line: none), which must exit 0, or 1 for a line that
#       starts with "! " (a run the emulator stops); their stderr together is exactly NAME.run.err
#       (empty when there is none), twice the same. stdout is not compared: what a racy program leaves
#       depends on the order of its threads. SKIP without a C++ compiler.
# NO_COLOR=1 throughout; NAME.args is one line of extra options. Exits 1 when a test failed.
# With CHECK_SANITIZED=1 (make check's asan-run-golden) each command runs once: the second run only
# tests determinism, which the pass on the normal binary does, and half of the time of the .run tests
# is the C++ compiler's, which the sanitizers do not look at.
runner=golden
. "$(dirname "$0")/runner.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if command -v timeout >/dev/null 2>&1; then limit='timeout 120'; else limit=; fi
failed=0

fail() {
	echo "FAIL $name: $*"
	failed=1
}

# compile DIR RUN ARGS...: runs tilec inside DIR, stdout and stderr into $tmp/RUN.out and
# $tmp/RUN.err; sets rc.
compile() {
	dir=$1 run=$2
	shift 2
	(cd "$dir" && exec $limit "$tilec" "$@") >"$tmp/$run.out" 2>"$tmp/$run.err"
	rc=$?
}

# show_diff EXPECTED GOT: the first 200 lines of a unified diff, indented.
show_diff() {
	diff -u --label "$1" --label got "$1" "$2" | head -n 200 | sed 's/^/    /'
}

show_stderr() {
	if [ -s "$tmp/a.err" ]; then
		echo "    stderr:"
		head -n 40 "$tmp/a.err" | sed 's/^/    /'
	fi
}

# expect_cu DIR EXPECTED.cu ARGS...: the test of a .cu-producing run inside DIR.
expect_cu() {
	where=$1 expected=$2
	shift 2
	compile "$where" a "$@"
	if [ $rc -ne 0 ]; then
		fail "exit status $rc, expected 0"
		show_stderr
		return
	fi
	if ! cmp -s "$expected" "$tmp/a.out"; then
		fail "output differs from $expected (- expected, + got)"
		show_diff "$expected" "$tmp/a.out"
		return
	fi
	if [ "${CHECK_SANITIZED-}" = 1 ]; then
		echo "PASS $name"
		return
	fi
	compile "$where" b "$@"
	if ! cmp -s "$tmp/a.out" "$tmp/b.out"; then
		fail "not deterministic: a second run printed something else"
		return
	fi
	echo "PASS $name"
}

# expect_run BASE STEM: the runs of BASE.run (see above).
expect_run() {
	runs="a b"
	[ "${CHECK_SANITIZED-}" = 1 ] && runs=a
	for run in $runs; do
		: >"$tmp/$run.all"
		while IFS= read -r opts; do
			want=0
			case $opts in "! "*) want=1 opts=${opts#"! "} ;; esac
			set -f
			# shellcheck disable=SC2086
			compile tests/golden "$run" run $opts "$2.tile"
			set +f
			if [ $rc -eq 3 ]; then
				echo "SKIP $name: no C++ compiler"
				return
			fi
			if [ $rc -ne $want ]; then
				fail "tilec run $opts: exit status $rc, expected $want"
				head -n 20 "$tmp/$run.err" | sed 's/^/    /'
				return
			fi
			cat "$tmp/$run.err" >>"$tmp/$run.all"
		done <"$1.run"
	done
	expected=$1.run.err
	[ -f "$expected" ] || expected=/dev/null
	if ! cmp -s "$expected" "$tmp/a.all"; then
		fail "stderr differs from $expected (- expected, + got)"
		show_diff "$expected" "$tmp/a.all"
	elif [ "$runs" != a ] && ! cmp -s "$tmp/a.all" "$tmp/b.all"; then
		fail "not deterministic: a second run printed something else on stderr"
	else
		echo "PASS $name"
	fi
}

for tile in tests/golden/*.tile; do
	[ -f "$tile" ] || continue
	base=${tile%.tile}
	stem=${base##*/}
	name=golden/$stem
	args=
	[ -f "$base.args" ] && args=$(cat "$base.args")
	if [ -f "$base.cu" ] && [ -f "$base.err" ]; then
		fail "both $stem.cu and $stem.err exist"
	elif [ -f "$base.cu" ]; then
		set -f # NAME.args is split into words, never globbed
		# shellcheck disable=SC2086
		expect_cu tests/golden "$base.cu" $args "$stem.tile" -o -
		set +f
	elif [ -f "$base.err" ]; then
		set -f
		# shellcheck disable=SC2086
		compile tests/golden a $args "$stem.tile" -o -
		set +f
		if [ $rc -ne 1 ]; then
			fail "exit status $rc, expected 1"
			show_stderr
		elif ! cmp -s "$base.err" "$tmp/a.err"; then
			fail "stderr differs from $base.err (- expected, + got)"
			show_diff "$base.err" "$tmp/a.err"
		else
			echo "PASS $name"
		fi
	elif [ ! -f "$base.ir" ] && [ ! -f "$base.cuh" ] && [ ! -f "$base.run" ] && [ ! -f "$base.ptx" ]; then
		fail "neither $stem.cu nor $stem.err nor $stem.ir nor $stem.cuh nor $stem.run nor $stem.ptx exists"
	fi
	if [ -f "$base.run" ]; then
		name=golden/$stem.run
		expect_run "$base" "$stem"
	fi
	if [ -f "$base.cuh" ]; then
		name=golden/$stem.cuh
		set -f
		# shellcheck disable=SC2086
		expect_cu tests/golden "$base.cuh" $args --emit=cuh "$stem.tile" -o -
		set +f
	fi
	if [ -f "$base.ptx" ]; then
		name=golden/$stem.ptx
		set -f
		# shellcheck disable=SC2086
		expect_cu tests/golden "$base.ptx" $args --emit=ptx "$stem.tile" -o -
		set +f
	fi
	if [ -f "$base.ir" ]; then
		name=golden/$stem.ir
		set -f
		# shellcheck disable=SC2086
		expect_cu tests/golden "$base.ir" $args --emit=ir "$stem.tile" -o -
		set +f
	fi
done

for tile in examples/*.tile; do
	[ -f "$tile" ] || continue
	stem=${tile##*/}
	stem=${stem%.tile}
	name=example/$stem
	if [ -f "tests/examples/$stem.cu" ]; then
		expect_cu . "tests/examples/$stem.cu" "$tile" -o -
	else
		echo "SKIP $name: no tests/examples/$stem.cu"
	fi
	if [ -f "tests/examples/$stem.ir" ]; then
		name=example/$stem.ir
		expect_cu . "tests/examples/$stem.ir" --emit=ir "$tile" -o -
	fi
	if [ -f "tests/examples/$stem.cuh" ]; then
		name=example/$stem.cuh
		expect_cu . "tests/examples/$stem.cuh" --emit=cuh "$tile" -o -
	fi
done
exit $failed
