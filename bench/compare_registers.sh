#!/bin/sh
# compare_registers.sh: compiles a tilec-generated kernel and its hand-written twin with ptxas -v and
# says whether the generated one needs more registers or spills more.
# Usage: bench/compare_registers.sh GENERATED.cu HAND.cu
# Exit: 0 ok, 1 worse, 2 bad usage, 3 nvcc missing or failed.
if [ $# -ne 2 ]; then
	echo "usage: $0 GENERATED.cu HAND.cu" >&2
	exit 2
fi
here=$(dirname "$0")
nvcc=$(sh "$here/../tools/find-nvcc.sh") || {
	echo "$0: nvcc not found (set CUDA_HOME)" >&2
	exit 3
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare_registers.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' HUP INT TERM

# Prints "REGISTERS SPILL_BYTES" for one file: the most registers of any kernel in it, and its
# spill stores plus spill loads summed over all functions.
measure() {
	if ! "$nvcc" -cubin -arch=sm_100a -Xptxas -v -o "$tmp/out.cubin" "$1" >"$tmp/log" 2>&1; then
		cat "$tmp/log" >&2
		echo "$0: nvcc failed on $1" >&2
		exit 3
	fi
	awk '
		/Used [0-9]+ registers/ { for (i = 1; i < NF; i++) if ($(i + 1) == "registers," || $(i + 1) == "registers") if ($i + 0 > regs) regs = $i + 0; found = 1 }
		/bytes spill stores/ { for (i = 1; i < NF; i++) if ($(i + 1) == "bytes" && ($(i + 2) == "spill")) spill += $i }
		END { if (!found) exit 1; printf "%d %d\n", regs, spill }
	' "$tmp/log" || {
		echo "$0: no register count in the ptxas output for $1" >&2
		exit 3
	}
}

# Register counts follow __launch_bounds__ as much as the code (see bench/handwritten/tmem_roundtrip.cu).
bounds() {
	sed 's://.*$::' "$1" | grep -o '__launch_bounds__([^)]*)' | tr -d ' ' | sort -u | tr '\n' ' '
}
if [ "$(bounds "$1")" != "$(bounds "$2")" ]; then
	echo "warning: the two files differ in __launch_bounds__ ($(bounds "$1")vs $(bounds "$2")): the counts are not comparable" >&2
fi

gen=$(measure "$1") || exit 3
hand=$(measure "$2") || exit 3
set -- "$1" "$2" $gen $hand
printf 'generated %s: %d registers, %d spill bytes\n' "$1" "$3" "$4"
printf 'hand      %s: %d registers, %d spill bytes\n' "$2" "$5" "$6"
if [ "$3" -gt "$5" ] || [ "$4" -gt "$6" ]; then
	echo worse
	exit 1
fi
echo ok
