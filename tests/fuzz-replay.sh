#!/bin/sh
# fuzz-replay.sh TILEC: every input the fuzzer ever found (fuzz/crashers/) and the hand-written stress
# inputs (fuzz/regress/, plus the large ones made below), one PASS/FAIL line each.
# Each input is compiled six ways, `TILEC FILE -o -` and the same with --target=emu, --emit=ptx,
# --emit=tokens, --emit=ast and --emit=ir; each run must exit 0 or 1 within 60 seconds with no sanitizer report (a generous
# limit: the slowest input takes 3 s of CPU under ASan, and make check shares the machine; the
# blow-ups this catches took minutes or never ended).
# With the ASan binary, run it under the ASAN_OPTIONS and UBSAN_OPTIONS of `make check`.
runner=fuzz-replay
. "$(dirname "$0")/runner.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if command -v timeout >/dev/null 2>&1; then limit='timeout 60'; else limit=; fi
failed=0

# check NAME FILE: the six runs of one input.
check() {
	name=$1 file=$2
	for mode in cu emu ptx tokens ast ir; do
		case $mode in
		cu) set -- "$file" -o - ;;
		emu) set -- --target=emu "$file" -o - ;;
		*) set -- --emit=$mode "$file" -o - ;;
		esac
		$limit "$tilec" "$@" >/dev/null 2>"$tmp/err" </dev/null
		rc=$?
		why=
		if grep -Eq 'Sanitizer|runtime error:' "$tmp/err"; then
			why="sanitizer report"
		elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			why="did not finish within 60 s"
		elif [ $rc -gt 1 ]; then
			why="exit status $rc, expected 0 or 1"
		fi
		if [ -n "$why" ]; then
			echo "FAIL $name: $why (tilec $*)"
			grep -E -A 30 'Sanitizer|runtime error:|internal error' "$tmp/err" | head -n 40 | sed 's/^/    /'
			failed=1
			return
		fi
	done
	echo "PASS $name"
}

for file in fuzz/crashers/* fuzz/regress/*; do
	[ -f "$file" ] || continue
	case $file in *.md | */README*) continue ;; esac
	check "$file" "$file"
done

# Inputs too large to keep in the repository: deep nesting of every kind (past the parser's
# limits and just under them), a 1 MB identifier and line, a million lines, a flood of errors.
# gen NAME PREFIX BODY-START REPEAT N BODY-END SUFFIX: PREFIX BODY-START, REPEAT N times, BODY-END SUFFIX.
gen() {
	awk -v a="$2" -v r="$3" -v n="$4" -v b="$5" 'BEGIN {
		printf "%s", a; for (i = 0; i < n; i++) printf "%s", r; printf "%s\n", b }' >"$tmp/$1.tile"
}
k='kernel k(A: f32[128]) launch(grid = 1, block = 128) {'
gen deep-parens "$k A[0] = f32(" '(' 100000 ''
gen deep-parens-closed "$k A[0] = f32(" '((((((((((' 400 'thread_idx.x))))))))));}'
gen deep-unary "$k let x = " '-~!' 40000 '1; }'
gen deep-unary-999 "$k A[0] = f32(" '-' 999 'thread_idx.x); }'
gen deep-binary "$k let x = 1" '+1' 100000 '; }'
gen deep-binary-999 "$k A[0] = f32(thread_idx.x" '*2' 999 '); }'
gen deep-index "$k shared s: i32[4]; let x = " 's[' 100000 '0'
gen deep-conv "$k let x = " 'f32(i32(' 50000 '1'
gen deep-blocks "$k" '{' 100000 ''
gen deep-blocks-3000 "$k" '{{{{{{{{{{' 300 'A[0] = 1.0;'
gen deep-ifs "$k" 'if (thread_idx.x < 64) {' 50000 ''
gen deep-else-if "$k if (thread_idx.x == 0) {}" ' else if (thread_idx.x == 1) {}' 50000 '}'
gen deep-fors "$k" 'for i in 0..2 {' 50000 ''
gen deep-views "$k local r: f32[128] layout default; view v = r" '.view(128)' 20000 '; }'
# a grid of ?: nested 900 deep: its launch program was coded in time exponential in the depth
gen deep-grid-select 'kernel k(A: i32[4], M: i32) launch(grid = ' 'M != 0 ? 1 : ' 900 '2, block = 32) { A[0] = 1; }'
gen deep-layout "layout L = S[(" '(' 100000 ''
gen long-identifier "$k let " 'abcdefghij' 100000 ' = 1; let y = x; }'
gen long-line 'const A = 1;' '          ' 100000 ' @'
gen many-lines '' '
' 1000000 'const A = ;'
gen many-errors '' '@ ; const = ;
' 20000 ''
gen many-kernels '' 'kernel k() launch(grid = 1, block = 32) { }
' 5000 ''
gen many-consts '' 'const c = 1; ' 20000 ''
# tmem tensors without `at` for the planner: 2000 used one after the other (each store waited for
# before the next), 600 live at once (too many)
planned() {
	awk -v n="$2" -v twice="$3" 'BEGIN {
		print "kernel k(A: f32[128]) launch(grid = 1, block = 128) {"
		print "local r: f32[128, 1] layout S[(128, 1) : (1@tid_in_wg, 1)]; view rv = r.view(4, 32, 1);"
		for (i = 0; i < n; i++) print "tmem t" i ": f32[128, 1] layout default;"
		for (k = 0; k <= twice; k++)
			for (i = 0; i < n; i++) {
				print "apply tcgen05.st.sync.aligned.32x32b.x1.b32(t" i ".view(4, 32, 1), rv) scope warpgroup;"
				if (!twice) print "tcgen05.wait::st.sync.aligned;"
			}
		print "tcgen05.wait::st.sync.aligned; }" }' >"$tmp/$1.tile"
}
planned many-planned 2000 0
planned many-planned-live 600 1
for file in "$tmp"/*.tile; do
	name=${file##*/}
	check "fuzz/generated/$name" "$file"
done

# `make fuzz` seeds its corpus without the inputs that outlast its -timeout in the instrumented
# harness (it stopped at device-call-doubling.tile, 70 s there, before fuzzing: robustness3/08), and
# with the other stress inputs.
if seeds=$(${MAKE:-make} -s --no-print-directory -f fuzz/Makefile.fuzz fuzz-seeds 2>"$tmp/err"); then
	if echo "$seeds" | grep -qx 'fuzz/regress/device-call-doubling.tile'; then
		echo "FAIL fuzz-seeds: make fuzz seeds with fuzz/regress/device-call-doubling.tile (past its -timeout)"
		failed=1
	elif ! echo "$seeds" | grep -qx 'fuzz/regress/nul-bytes.tile'; then
		echo "FAIL fuzz-seeds: the other stress inputs of fuzz/regress are missing from the seeds"
		failed=1
	else
		echo "PASS fuzz-seeds"
	fi
else
	echo "FAIL fuzz-seeds: make -f fuzz/Makefile.fuzz fuzz-seeds failed: $(head -n 1 "$tmp/err")"
	failed=1
fi
exit $failed
