#!/bin/sh
# emu-mutations.sh TILEC: mutations of existing test programs that tilec accepts and that compute the
# wrong thing, each of which `tilec run` must catch (docs/emulator.md, "Poison"). A mutation deletes
# the one line of a program that holds a fixed text (a tcgen05.st or ld, the loop body that fills the
# registers a store reads, a hand-written wait under --unchecked-waits) and runs the result in the
# program's directory; the run must exit 1 with a line holding the expected text. The unmutated
# programs pass with the same options (tests/emu.sh, tests/run-golden.sh), so each line here is a
# mutation caught. One PASS/FAIL line per mutation: emu-mutation/NAME.
runner=emu-mutations
. "$(dirname "$0")/runner.sh"
runner_work 120

# mutate NAME FILE LINE TEXT ARGS...: FILE without its one line that contains LINE (a fixed string),
# run with ARGS, exits 1 and prints TEXT.
mutate() {
	name=emu-mutation/$1 file=$2 line=$3 text=$4
	shift 4
	n=$(grep -nF -- "$line" "$file" | cut -d: -f1)
	if [ -z "$n" ] || [ "$(printf '%s\n' "$n" | wc -l)" -ne 1 ]; then
		fail "'$line' is not one line of $file"
		return
	fi
	dir=$(dirname "$file")
	mutant=$dir/.mutant-$$-$(basename "$file")
	sed "${n}d" "$file" >"$mutant"
	(cd "$dir" && $limit "$tilec" run "$(basename "$mutant")" "$@") >"$tmp/out" 2>&1
	rc=$?
	rm -f "$mutant"
	if [ $rc -ne 1 ]; then
		fail "exit status $rc, expected 1 ($file without line $n: $line; tilec run $*)"
		show "$tmp/out"
	elif ! grep -qF -- "$text" "$tmp/out"; then
		fail "no line with '$text' ($file without line $n: $line; tilec run $*)"
		show "$tmp/out"
	else
		echo "PASS $name"
	fi
}

never_wrote="but nothing wrote it; it holds poison"
tmem_poison="a cell that nothing wrote; it holds poison"

# ---------------------------------------------------------------- registers never written
mutate roundtrip_no_fill examples/tmem_roundtrip.tile "local_src[j] = A[tid, j];" \
	"stores register slot 0 of 'src' with tcgen05.st, $never_wrote" --expect Out=A
mutate roundtrip_no_ld examples/tmem_roundtrip.tile "apply tcgen05.ld" \
	"reads register slot 0 of 'dst', $never_wrote" --expect Out=A
mutate column_slice_no_fill examples/column_slice.tile "s[j] = A[tid, j];" \
	"with tcgen05.st, $never_wrote" --expect Out=A
mutate column_slice_no_ld examples/column_slice.tile "apply tcgen05.ld" \
	"reads register slot 0 of 'dst', $never_wrote" --expect Out=A
mutate subword_f16_no_fill examples/subword_f16.tile "mine[j] = A[tid, j];" \
	"stores register slot 0 of 'r' with tcgen05.st, $never_wrote" --expect Out=A
mutate trap_base_no_fill tests/emu/trap_base.tile "mine[j] = A[tid, j];" \
	"stores register slot 0 of 'r' with tcgen05.st, $never_wrote" --expect Out=A

# ---------------------------------------------------------------- tensor memory never written
mutate roundtrip_no_st examples/tmem_roundtrip.tile "apply tcgen05.st" "$tmem_poison" --expect Out=A
mutate subword_f16_no_st examples/subword_f16.tile "apply tcgen05.st" "$tmem_poison" --expect Out=A
mutate pack_roundtrip_no_st examples/pack_roundtrip.tile "apply tcgen05.st" "$tmem_poison" --expect Out=A
mutate per_warp_slots_no_st examples/per_warp_slots.tile "apply tcgen05.st" "$tmem_poison" --expect Out=A
mutate shape_16x64b_no_st examples/shape_16x64b.tile "apply tcgen05.st" "$tmem_poison" --expect Out=A
mutate trap_base_no_st tests/emu/trap_base.tile "apply tcgen05.st" "$tmem_poison" --expect Out=A

exit $failed
