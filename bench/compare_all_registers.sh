#!/bin/sh
# compare_all_registers.sh: runs bench/compare_registers.sh on every example that has a hand-written
# twin (bench/handwritten/NAME.cu against tilec's tests/examples/NAME.cu) and prints one line each:
# name, generated registers/spill bytes, hand registers/spill bytes, ok or worse; then a total.
# Usage: bench/compare_all_registers.sh [NAME...]     (default: every bench/handwritten/*.cu)
# Exit: 0 none worse, 1 some generated kernel needs more registers or spills more, 3 nvcc missing or
# failed (or a NAME without both files).
here=$(dirname "$0")
root="$here/.."
if [ $# -eq 0 ]; then
	for f in "$here"/handwritten/*.cu; do
		n=$(basename "$f" .cu)
		# a twin of a bench-only program (bench/peer/NAME.tile) has no committed output to compare
		if [ -e "$f" ] && [ ! -e "$root/tests/examples/$n.cu" ]; then
			echo "note: bench/handwritten/$n.cu has no tests/examples/$n.cu (bench/sass_figures.sh measures it)" >&2
			continue
		fi
		[ -e "$f" ] && set -- "$@" "$n"
	done
fi
for f in "$root"/examples/*.tile; do
	n=$(basename "$f" .tile)
	[ -e "$here/handwritten/$n.cu" ] || echo "note: examples/$n.tile has no bench/handwritten/$n.cu" >&2
done

printf '%-22s %20s %16s  %s\n' example 'generated regs/spill' 'hand regs/spill' result
n_ok=0 n_worse=0 n_err=0 sum_gen=0 sum_hand=0
for name in "$@"; do
	gen="$root/tests/examples/$name.cu"
	hand="$here/handwritten/$name.cu"
	if [ ! -f "$gen" ] || [ ! -f "$hand" ]; then
		echo "$0: $name: need both $gen and $hand" >&2
		n_err=$((n_err + 1))
		continue
	fi
	out=$(sh "$here/compare_registers.sh" "$gen" "$hand" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
		printf '%s\n' "$out" >&2
		printf '%-22s %20s %16s  %s\n' "$name" - - error
		n_err=$((n_err + 1))
		continue
	fi
	# "generated FILE: R registers, S spill bytes" and "hand      FILE: R registers, S spill bytes"
	nums=$(printf '%s\n' "$out" | awk '
		/^generated / || /^hand / { for (i = 1; i < NF; i++) { if ($(i + 1) == "registers,") r = $i; if ($(i + 1) == "spill") s = $i } printf "%s %s ", r, s }')
	read -r gen_regs gen_spill hand_regs hand_spill rest <<-EOT
	$nums
	EOT
	if [ -z "$hand_spill" ] || [ -n "$rest" ]; then
		printf '%s\n' "$out" >&2
		printf '%-22s %20s %16s  %s\n' "$name" - - error
		n_err=$((n_err + 1))
		continue
	fi
	if [ $rc -eq 1 ]; then
		result=worse
		n_worse=$((n_worse + 1))
	else
		result=ok
		n_ok=$((n_ok + 1))
	fi
	printf '%-22s %20s %16s  %s\n' "$name" "$gen_regs/$gen_spill" "$hand_regs/$hand_spill" "$result"
	sum_gen=$((sum_gen + gen_regs))
	sum_hand=$((sum_hand + hand_regs))
done
printf '%-22s %20s %16s  %d ok, %d worse' total "$sum_gen" "$sum_hand" "$n_ok" "$n_worse"
[ $n_err -gt 0 ] && printf ', %d errors' "$n_err"
echo
[ $n_err -gt 0 ] && exit 3
[ $n_worse -gt 0 ] && exit 1
exit 0
