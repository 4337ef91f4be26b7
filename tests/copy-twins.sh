#!/bin/sh
# copy-twins.sh TILEC: each examples/copy/NAME.tile, the copy twin of examples/NAME.tile, one PASS/FAIL
# line per check:
#   copy-twin/NAME/same     both files compile to the same tcgen05 instructions, in the same order
#                           (every `asm volatile("tcgen05...` line of the CUDA C: ld, st, the waits
#                           tilec placed against the ones written in the apply file, fences, alloc)
#   copy-twin/NAME/no-wait  the twin writes no tcgen05.wait itself
#   copy-twin/NAME/run      the twin runs on the CPU emulator and gives its result: `--expect Out=A`,
#                           or the same tensors as tests/emu/ref/NAME.tile where that exists
#   copy-twin/NAME/explain  each copy replaced by the apply its --explain note gives (and a wait after
#                           it) compiles to the same tcgen05.ld / st instructions
#   copy-golden/NAME/...    explain and run for tests/golden/NAME.tile, copies no example has (mixed .xN)
#   copy-twin/coverage      every example with an apply has a twin, or is one of those below that copy
#                           cannot express
# Examples without a twin, and why:
#   shape_16x32bx2  its two accesses sit 16 lanes and 8 columns apart; a copy takes one view of a tmem
#                   tensor, and no view or layout moves one coordinate along both TLane and TCol, so
#                   no copy operand names exactly those cells.
#   block_scale_factors  its tcgen05.cp has no copy form yet (copy(tmem, shared) is to come); it reads
#                   back with copy already.
#   gemm_mxfp8  its tcgen05.cps of scale factors are issued by the mma's thread just before the mma, with no
#                   wait between (cp -> mma of one thread is pipelined); copy(tmem, shared) completes its cps with
#                   a commit and wait of its own, which a twin would add to every K step.
no_twin="shape_16x32bx2 block_scale_factors gemm_mxfp8"
# Exits 1 when a test failed.
runner=copy-twins
. "$(dirname "$0")/runner.sh"
runner_work 300

# instructions FILE OUT: the tcgen05 instruction lines of FILE's CUDA C; sets rc
instructions() {
	"$tilec" "$1" -o "$tmp/out.cu" 2>"$tmp/err"
	rc=$?
	grep 'asm volatile("tcgen05' "$tmp/out.cu" >"$2" 2>/dev/null
}

# explain_check NAME FILE: FILE with each copy replaced by the applies of its --explain notes (and a
# wait after them) compiles to the same tcgen05.ld / st instructions as FILE.
explain_check() {
	name=$1
	"$tilec" --explain "$2" -o "$tmp/twin.cu" 2>"$tmp/notes"
	awk 'NR == FNR {
			# a copy of mixed widths has several applies; an unrolled loop repeats them all
			if (match($0, /: note: in its place: apply /)) {
				split($0, f, ":")
				text = substr($0, RSTART + 22)
				if (!(f[2] in a)) {
					a[f[2]] = text
					k[f[2]] = 1
				} else if (text == a[f[2]])
					done[f[2]] = 1
				else if (!done[f[2]])
					a[f[2], ++k[f[2]]] = text
			}
			next
		}
		FNR in a {
			match($0, /^ */)
			ind = substr($0, 1, RLENGTH)
			print ind a[FNR]
			for (j = 2; j <= k[FNR]; j++)
				print ind a[FNR, j]
			print ind "tcgen05.wait::" (a[FNR] ~ /^apply tcgen05\.ld/ ? "ld" : "st") ".sync.aligned;"
			n++
			next
		}
		{ print }
		END { if (!n) exit 1 }' "$tmp/notes" "$2" >"$tmp/explained.tile"
	rc=$?
	grep 'asm volatile("tcgen05\.\(ld\|st\)\.' "$tmp/twin.cu" >"$tmp/want"
	if [ $rc -ne 0 ]; then
		fail "tilec --explain $2 gave no apply"
		show "$tmp/notes"
	elif ! "$tilec" "$tmp/explained.tile" -o "$tmp/explained.cu" 2>"$tmp/err"; then
		fail "the applies of --explain do not compile in place of the copies"
		show "$tmp/err"
	elif ! grep 'asm volatile("tcgen05\.\(ld\|st\)\.' "$tmp/explained.cu" | cmp -s - "$tmp/want"; then
		fail "the applies of --explain give other instructions than the copies"
	else
		echo "PASS $name"
	fi
}

found=0
for twin in examples/copy/*.tile; do
	[ -f "$twin" ] || continue
	found=1
	stem=${twin##*/}
	stem=${stem%.tile}
	orig=examples/$stem.tile
	name=copy-twin/$stem/same
	if [ ! -f "$orig" ]; then
		fail "$twin has no $orig"
		continue
	fi
	instructions "$orig" "$tmp/want"
	if [ $rc -ne 0 ]; then
		fail "tilec $orig failed"
		show "$tmp/err"
	else
		instructions "$twin" "$tmp/got"
		if [ $rc -ne 0 ]; then
			fail "tilec $twin failed"
			show "$tmp/err"
		elif ! grep -q 'tcgen05\.\(ld\|st\)\.' "$tmp/want"; then
			fail "$orig has no tcgen05.ld / st"
		elif ! cmp -s "$tmp/want" "$tmp/got"; then
			fail "the tcgen05 instructions differ (- $orig, + $twin)"
			diff -u "$tmp/want" "$tmp/got" | head -n 40 | sed 's/^/    /'
		else
			echo "PASS $name"
		fi
	fi

	name=copy-twin/$stem/no-wait
	if grep -v '^ *//' "$twin" | grep -q 'tcgen05\.wait'; then
		fail "$twin writes a tcgen05.wait itself"
	elif ! grep -q '^ *copy(' "$twin" || grep -q '^ *apply ' "$twin"; then
		fail "$twin must move its data with copy and without apply"
	else
		echo "PASS $name"
	fi

	explain_check "copy-twin/$stem/explain" "$twin"

	ref=tests/emu/ref/$stem.tile
	if [ -f "$ref" ]; then
		same_as_ref "copy-twin/$stem/run" "$twin" "$ref"
	else
		expect_run "copy-twin/$stem/run" 0 "expect Out = A: all" "$twin" --expect Out=A
	fi
done
# goldens whose copies are no example's twin: their explained applies, and their result on the emulator
for g in tests/golden/copy_mixed.tile; do
	stem=${g##*/}
	stem=${stem%.tile}
	explain_check "copy-golden/$stem/explain" "$g"
	expect_run "copy-golden/$stem/run" 0 "expect Out = A: all" "$g" --expect Out=A
done

name=copy-twin/coverage
missing=
for orig in examples/*.tile; do
	stem=${orig##*/}
	stem=${stem%.tile}
	listed=0
	for n in $no_twin; do [ "$n" = "$stem" ] && listed=1; done
	if [ -f "examples/copy/$stem.tile" ]; then
		[ $listed = 1 ] && missing="$missing $stem(has a twin but is listed as having none)"
	elif grep -q '^ *apply tcgen05' "$orig" && [ $listed = 0 ]; then
		missing="$missing $stem"
	fi
done
if [ -n "$missing" ]; then
	fail "examples with an apply and no twin in examples/copy/:$missing"
else
	echo "PASS $name"
fi
if [ $found -eq 0 ]; then
	echo "FAIL copy-twin: no examples/copy/*.tile"
	failed=1
fi
exit $failed
