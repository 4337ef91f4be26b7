#!/bin/sh
# smem-banks.sh TILEC: the bank conflicts of copies between registers and shared tiles, one PASS/FAIL
# line per copy of bench/smem_banks.sh (every register layout of an epilogue's staging, element size,
# smem_tile major and swizzle, store and load).
#   smem-banks/LAYOUT/TYPE/MAJOR/SWIZZLE/COPY  FAIL when tilec's accesses have bank conflicts although
#       another order of each thread's same accesses would have none (smem_banks.c's check), unless
#       the line is in tests/smem-banks.known, which says why tilec does not take that order yet; and
#       FAIL for a line of smem-banks.known whose copy no longer has such conflicts (the list stays true).
#   smem-banks/vectors/NAME  for tests/golden/smem_copy_frag_*.tile, smem_tile_copy.tile and smem_matrix_copy.tile: every
#       vector access of a shared tile in tilec's CUDA C, and every stmatrix / ldmatrix as the PTX ISA's
#       fragment defines it, moves each register element to and from the element the emu target's
#       element-by-element code gives it, for every thread, aligned (tools/smem-vector-check.py); the
#       emulator's round trips (NAME.run) check that placement against the input.
# Exits 1 when a test failed.
runner=smem-banks
. "$(dirname "$0")/runner.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
known=tests/smem-banks.known
if ! sh bench/smem_banks.sh "$tilec" >"$tmp/table"; then
	echo "FAIL smem-banks: bench/smem_banks.sh failed"
	cat "$tmp/table"
	exit 1
fi
failed=0
tail -n +2 "$tmp/table" >"$tmp/rows"
while read -r layout type major swizzle copy what; do
	name="$layout/$type/$major/$swizzle/$copy"
	listed=$(grep -c "^$layout $type $major $swizzle $copy:" "$known")
	case $what in
	*"which another order of each thread's accesses would avoid"*)
		if [ "$listed" = 0 ]; then
			echo "FAIL smem-banks/$name: $what"
			failed=1
		else
			echo "PASS smem-banks/$name (known: $(grep "^$layout $type $major $swizzle $copy:" "$known" | sed 's/^[^:]*: //'))"
		fi
		;;
	*)
		if [ "$listed" != 0 ]; then
			echo "FAIL smem-banks/$name: listed in $known, but now: $what"
			failed=1
		else
			echo "PASS smem-banks/$name"
		fi
		;;
	esac
done <"$tmp/rows"
for tile in tests/golden/smem_copy_frag_*.tile tests/golden/smem_tile_copy.tile tests/golden/smem_matrix_copy.tile; do
	name=$(basename "$tile" .tile)
	if ! "$tilec" "$tile" -o "$tmp/v.cu" 2>"$tmp/err" || ! "$tilec" --target=emu "$tile" -o "$tmp/e.cu" 2>>"$tmp/err"; then
		echo "FAIL smem-banks/vectors/$name: $(head -n 1 "$tmp/err")"
		failed=1
	elif out=$(python3 tools/smem-vector-check.py "$tmp/e.cu" "$tmp/v.cu" 2>&1); then
		echo "PASS smem-banks/vectors/$name ($out)"
	else
		echo "FAIL smem-banks/vectors/$name: $out"
		failed=1
	fi
done
exit $failed
