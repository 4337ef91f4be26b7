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
# Exits 1 when a test failed.
runner=copy-twins
. "$(dirname "$0")/runner.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if command -v timeout >/dev/null 2>&1; then limit='timeout 300'; else limit=; fi
failed=0

fail() {
	echo "FAIL $name: $*"
	failed=1
}

show() {
	head -n 20 "$1" | sed 's/^/    /'
}

# instructions FILE OUT: the tcgen05 instruction lines of FILE's CUDA C; sets rc
instructions() {
	"$tilec" "$1" -o "$tmp/out.cu" 2>"$tmp/err"
	rc=$?
	grep 'asm volatile("tcgen05' "$tmp/out.cu" >"$2" 2>/dev/null
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

	name=copy-twin/$stem/explain
	"$tilec" --explain "$twin" -o "$tmp/twin.cu" 2>"$tmp/notes"
	awk 'NR == FNR {
			if (match($0, /: note: in its place: apply /)) {
				split($0, f, ":")
				if (!(f[2] in a))
					a[f[2]] = substr($0, RSTART + 22)
			}
			next
		}
		FNR in a {
			match($0, /^ */)
			ind = substr($0, 1, RLENGTH)
			print ind a[FNR]
			print ind "tcgen05.wait::" (a[FNR] ~ /^apply tcgen05\.ld/ ? "ld" : "st") ".sync.aligned;"
			n++
			next
		}
		{ print }
		END { if (!n) exit 1 }' "$tmp/notes" "$twin" >"$tmp/explained.tile"
	rc=$?
	grep 'asm volatile("tcgen05\.\(ld\|st\)\.' "$tmp/twin.cu" >"$tmp/want"
	if [ $rc -ne 0 ]; then
		fail "tilec --explain $twin gave no apply"
		show "$tmp/notes"
	elif ! "$tilec" "$tmp/explained.tile" -o "$tmp/explained.cu" 2>"$tmp/err"; then
		fail "the applies of --explain do not compile in place of the copies"
		show "$tmp/err"
	elif ! grep 'asm volatile("tcgen05\.\(ld\|st\)\.' "$tmp/explained.cu" | cmp -s - "$tmp/want"; then
		fail "the applies of --explain give other instructions than the copies"
	else
		echo "PASS $name"
	fi

	name=copy-twin/$stem/run
	ref=tests/emu/ref/$stem.tile
	if [ -f "$ref" ]; then
		$limit "$tilec" run "$twin" >"$tmp/out" 2>&1
		rc=$?
		grep 'fnv64' "$tmp/out" >"$tmp/got"
		$limit "$tilec" run "$ref" >"$tmp/out2" 2>&1
		grep 'fnv64' "$tmp/out2" >"$tmp/want"
		if [ $rc -ne 0 ] || [ ! -s "$tmp/want" ]; then
			fail "tilec run failed (status $rc)"
			show "$tmp/out"
		elif ! cmp -s "$tmp/want" "$tmp/got"; then
			fail "tensors differ from those of $ref (- reference, + twin)"
			diff -u "$tmp/want" "$tmp/got" | sed 's/^/    /'
		else
			echo "PASS $name"
		fi
	else
		$limit "$tilec" run "$twin" --expect Out=A >"$tmp/out" 2>&1
		rc=$?
		if [ $rc -ne 0 ] || ! grep -q 'expect Out = A: all' "$tmp/out"; then
			fail "tilec run $twin --expect Out=A: status $rc"
			show "$tmp/out"
		else
			echo "PASS $name"
		fi
	fi
done
if [ $found -eq 0 ]; then
	echo "FAIL copy-twin: no examples/copy/*.tile"
	failed=1
fi
exit $failed
