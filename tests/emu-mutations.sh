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

# mutate NAME FILE LINE TEXT ARGS...: FILE without its one line that contains LINE (a fixed string;
# K@LINE: the K-th of the lines that contain it), run with ARGS, exits 1 (or 0 for a TEXT that starts
# with "exit 0: ") and prints TEXT.
mutate() {
	name=emu-mutation/$1 file=$2 line=$3 text=$4 want=1
	shift 4
	case $text in "exit 0: "*) want=0 text=${text#"exit 0: "} ;; esac
	k=1
	case $line in
	[0-9]@*) k=${line%%@*} line=${line#*@} ;;
	*) if [ "$(grep -cF -- "$line" "$file")" -ne 1 ]; then k=0; fi ;;
	esac
	n=$(grep -nF -- "$line" "$file" | sed -n "${k}p" | cut -d: -f1)
	if [ -z "$n" ]; then
		fail "'$line' is not one line of $file"
		return
	fi
	dir=$(dirname "$file")
	mutant=$dir/.mutant-$$-$(basename "$file")
	sed "${n}d" "$file" >"$mutant"
	(cd "$dir" && $limit "$tilec" run "$(basename "$mutant")" "$@") >"$tmp/out" 2>&1
	rc=$?
	rm -f "$mutant"
	if [ $rc -ne $want ]; then
		fail "exit status $rc, expected $want ($file without line $n: $line; tilec run $*)"
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
no_wait_ld="read before tcgen05.wait::ld; it was loaded by"
no_wait_st="that no tcgen05.wait::st has completed; on hardware this load may come before or after it"
deadlock="deadlock: 256 thread(s) wait at a barrier that can never complete"
# examples/gemm.tile with 10 steps of K, so that its 4-stage ring goes round
gemm_run="--set M=130 --set N=40 --set K=600 --set lda=600 --set ldb=608 --set ldc=40 --set ldd=41"

# One mutation a line: NAME | FILE | LINE | TEXT | OPTIONS (the variables above expanded in TEXT).
# Registers never written: a register fill or a tcgen05.ld deleted. Tensor memory never written: a
# tcgen05.st deleted. A hand-written wait deleted: the static checks refuse those programs, and
# --unchecked-waits makes that a warning, so that the emulator shows what the hardware may do (a register
# read before its load completed, a load or a dealloc of cells whose store has not landed); the last line
# checks that without it the error stays. In wait_loop (one warp) the store lands at the wait::st
# without --seed, so the load after it stops the run; --seed 4 lets it land before the load (0 more
# instructions), which then reads the stored values: no message, and Out = A. examples/gemm.tile without
# the MMA's release of a stage, the producer's arrival or its wait for a free stage: its ring's phases no
# longer line up (tilec cannot count a run-time loop's phases), and the emulator reports the deadlock.
while IFS='|' read -r mname mfile mline mtext mopts; do
	mtext=$(printf '%s' "$mtext" | sed "s/\$never_wrote/$never_wrote/; s/\$tmem_poison/$tmem_poison/;
		s/\$no_wait_ld/$no_wait_ld/; s/\$no_wait_st/$no_wait_st/; s/\$deadlock/$deadlock/")
	if [ "$mopts" = GEMM ]; then mopts=$gemm_run; fi
	# the options are words
	mutate "$mname" "$mfile" "$mline" "$mtext" $mopts
done <<'EOF'
roundtrip_no_fill|examples/tmem_roundtrip.tile|local_src[j] = A[tid, j];|stores register slot 0 of 'src' with tcgen05.st, $never_wrote|--expect Out=A
roundtrip_no_ld|examples/tmem_roundtrip.tile|apply tcgen05.ld|reads register slot 0 of 'dst', $never_wrote|--expect Out=A
column_slice_no_fill|examples/column_slice.tile|s[j] = A[tid, j];|with tcgen05.st, $never_wrote|--expect Out=A
column_slice_no_ld|examples/column_slice.tile|apply tcgen05.ld|reads register slot 0 of 'dst', $never_wrote|--expect Out=A
subword_f16_no_fill|examples/subword_f16.tile|mine[j] = A[tid, j];|stores register slot 0 of 'r' with tcgen05.st, $never_wrote|--expect Out=A
trap_base_no_fill|tests/emu/trap_base.tile|mine[j] = A[tid, j];|stores register slot 0 of 'r' with tcgen05.st, $never_wrote|--expect Out=A
roundtrip_no_st|examples/tmem_roundtrip.tile|apply tcgen05.st|$tmem_poison|--expect Out=A
subword_f16_no_st|examples/subword_f16.tile|apply tcgen05.st|$tmem_poison|--expect Out=A
pack_roundtrip_no_st|examples/pack_roundtrip.tile|apply tcgen05.st|$tmem_poison|--expect Out=A
per_warp_slots_no_st|examples/per_warp_slots.tile|apply tcgen05.st|$tmem_poison|--expect Out=A
shape_16x64b_no_st|examples/shape_16x64b.tile|apply tcgen05.st|$tmem_poison|--expect Out=A
trap_base_no_st|tests/emu/trap_base.tile|apply tcgen05.st|$tmem_poison|--expect Out=A
roundtrip_no_wait_ld|examples/tmem_roundtrip.tile|tcgen05.wait::ld|$no_wait_ld|--unchecked-waits
roundtrip_no_wait_st|examples/tmem_roundtrip.tile|tcgen05.wait::st|$no_wait_st|--unchecked-waits
column_slice_no_wait_ld|examples/column_slice.tile|tcgen05.wait::ld|$no_wait_ld|--unchecked-waits
column_slice_no_wait_st|examples/column_slice.tile|tcgen05.wait::st|$no_wait_st|--unchecked-waits
subword_f16_no_wait_st|examples/subword_f16.tile|tcgen05.wait::st|$no_wait_st|--unchecked-waits
pack_roundtrip_no_wait_st|examples/pack_roundtrip.tile|tcgen05.wait::st|$no_wait_st|--unchecked-waits
per_warp_slots_no_wait_ld|examples/per_warp_slots.tile|tcgen05.wait::ld|$no_wait_ld|--unchecked-waits
layout_d_repeat_no_wait_st|examples/layout_d_repeat.tile|tcgen05.wait::st|$no_wait_st|--unchecked-waits
cta_scope_256_no_wait_ld|examples/cta_scope_256.tile|tcgen05.wait::ld|$no_wait_ld|--unchecked-waits
shared_columns_no_wait_st|examples/tmem_shared_columns.tile|2@tcgen05.wait::st|$no_wait_st|--unchecked-waits
shared_columns_no_wait_ld|examples/tmem_shared_columns.tile|3@tcgen05.wait::ld|$no_wait_ld|--unchecked-waits
shape_16x32bx2_no_wait_st|examples/shape_16x32bx2.tile|tcgen05.wait::st|$no_wait_st|--unchecked-waits
device_functions_no_wait_st|examples/device_functions.tile|tcgen05.wait::st|no tcgen05.wait::st has completed|--unchecked-waits
trap_base_no_wait_st|tests/emu/trap_base.tile|tcgen05.wait::st|$no_wait_st|--unchecked-waits
wait_loop_no_wait_st|tests/golden/proto_ld_wait_loop.tile|tcgen05.wait::st|proto_ld_wait_loop.tile:19: tcgen05.ld.sync.aligned.32x32b.x8.b32: block (0, 0, 0), warp 0: lane 0, register 0: TMEM (lane 0, column 0) has a store of|--unchecked-waits
wait_loop_no_wait_st_seed_4|tests/golden/proto_ld_wait_loop.tile|tcgen05.wait::st|exit 0: expect Out = A: all 256 elements equal|--unchecked-waits --seed 4 --expect Out=A
roundtrip_no_wait_st_refused|examples/tmem_roundtrip.tile|tcgen05.wait::st|error: tcgen05.ld reads TMEM (lane 0, column 0) that warp 0 stored with tcgen05.st without tcgen05.wait::st in between|
gemm_no_commit_empty_refused|examples/gemm.tile|commit(empty[k % 4]);|error: 'sa' is written here in each trip of the loop, from trip k = 4 on where trip k = 0 wrote it, but no mbarrier.wait before the write waits for a barrier that its readers arrive on after reading it|GEMM
gemm_no_arrive_full|examples/gemm.tile|mbarrier.arrive(full[s]);|$deadlock|GEMM
gemm_no_wait_empty_refused|examples/gemm.tile|mbarrier.wait(empty[s], (k / 4 + 1) % 2);|error: 'sa' is written here in each trip of the loop, from trip k = 4 on where trip k = 0 wrote it, but no mbarrier.wait before the write waits for a barrier that its readers arrive on after reading it|GEMM
EOF

exit $failed
