#!/bin/sh
# sass_figures.sh: what the generated code costs, from the cubins themselves. For every
# examples/NAME.tile with a hand-written twin bench/handwritten/NAME.cu, one line for each of
#   tilec   tilec NAME.tile -o X.cubin (tilec's PTX through ptxas, the default route)
#   nvcc    tilec --via=nvcc NAME.tile -o X.cubin (tilec's CUDA C through nvcc -cubin)
#   hand    nvcc -cubin on the hand-written twin
# with registers and spill bytes (ptxas -v), and from `cuobjdump -sass`: SASS instructions (up to
# the kernel's final self-branch, without the NOP padding after it), LDTM and STTM instructions, and
# the global accesses by width (LDG/STG of 32, 64 and 128 bits). cuobjdump comes from the PyPI wheel
# nvidia-cuda-cuobjdump (with nvidia-cuda-nvdisasm, which `cuobjdump -sass` runs), installed into a
# virtual environment in build/bench-venv on first use; $CUOBJDUMP names another one. When it cannot
# be installed, the SASS columns are skipped with a message.
# Usage: bench/sass_figures.sh [TILEC] [NAME...]      (default: build/tilec, every twin)
# Exit: 0; 1 when tilec's route needs more registers or more SASS instructions than the twin;
# 3 when nvcc or tilec is missing or fails.
cd "$(dirname "$0")/.." || exit 3
tilec=build/tilec
case ${1-} in
*/*) tilec=$1; shift ;;
esac
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
nvcc=$(sh tools/find-nvcc.sh) || { echo "$0: nvcc not found (set CUDA_HOME)" >&2; exit 3; }
if [ $# -eq 0 ]; then
	for f in bench/handwritten/*.cu; do
		n=$(basename "$f" .cu)
		[ -f "examples/$n.tile" ] && set -- "$@" "$n"
	done
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sass_figures.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' HUP INT TERM

# cuobjdump: $CUOBJDUMP, else the PyPI wheel in build/bench-venv (installed once)
cuobjdump=${CUOBJDUMP-}
if [ -z "$cuobjdump" ]; then
	venv=build/bench-venv
	bin=$(ls -d "$venv"/lib/python*/site-packages/nvidia/cu*/bin 2>/dev/null | head -n 1)
	if [ -z "$bin" ] || [ ! -x "$bin/cuobjdump" ]; then
		echo "installing cuobjdump from PyPI into $venv (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)" >&2
		if python3 -m venv "$venv" >"$tmp/pip.log" 2>&1 &&
			"$venv/bin/pip" install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm >>"$tmp/pip.log" 2>&1; then
			bin=$(ls -d "$venv"/lib/python*/site-packages/nvidia/cu*/bin 2>/dev/null | head -n 1)
		else
			tail -n 3 "$tmp/pip.log" | sed 's/^/    /' >&2
		fi
	fi
	[ -n "$bin" ] && [ -x "$bin/cuobjdump" ] && cuobjdump=$bin/cuobjdump && PATH=$bin:$PATH && export PATH
fi
if [ -z "$cuobjdump" ]; then
	echo "SKIP SASS columns: cuobjdump could not be installed (pip install nvidia-cuda-cuobjdump failed); registers only" >&2
fi

# measure CUBIN LOG: "REGS SPILL SASS LDTM STTM LDG32 LDG64 LDG128 STG32 STG64 STG128" (- without cuobjdump)
measure() {
	regs=$(sed -n 's/.*Used \([0-9][0-9]*\) registers.*/\1/p' "$2" | sort -n | tail -n 1)
	spill=$(sed -n 's/.* \([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1 \2/p' "$2" |
		awk '{ s += $1 + $2 } END { print s + 0 }')
	if [ -z "$cuobjdump" ]; then
		echo "${regs:--} $spill - - - - - - - - -"
		return
	fi
	"$cuobjdump" -sass "$1" >"$tmp/sass" 2>"$tmp/sass.err" || { echo "${regs:--} $spill ? ? ? ? ? ? ? ? ?"; return; }
	# instruction lines: /*ADDR*/ OPCODE ... ; the kernel ends at "BRA ADDR" to itself, NOPs follow
	awk '
		match($0, /^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+/) {
			addr = substr($0, RSTART, RLENGTH); gsub(/[^0-9a-f]/, "", addr); sub(/^0+/, "", addr)
			ins = substr($0, RSTART + RLENGTH); sub(/;.*/, "", ins)
			if (done) next
			n++
			if (ins ~ /^BRA 0x/ && ins == "BRA 0x" addr) done = 1
			split(ins, w, /[ \t]+/); op = w[1]; if (op ~ /^@/) op = w[2]
			if (op ~ /^LDTM/) ldtm++
			if (op ~ /^STTM/) sttm++
			if (op ~ /^LDG/) { if (op ~ /\.128/) g128++; else if (op ~ /\.64/) g64++; else g32++ }
			if (op ~ /^STG/) { if (op ~ /\.128/) s128++; else if (op ~ /\.64/) s64++; else s32++ }
		}
		END { printf "%d %d %d %d %d %d %d %d %d\n", n, ldtm, sttm, g32, g64, g128, s32, s64, s128 }' \
		"$tmp/sass" | sed "s/^/${regs:--} $spill /"
}

printf '%-21s %-5s %5s %5s %5s %4s %4s  %-14s %-14s\n' example route regs spill sass LDTM STTM \
	'LDG 32/64/128' 'STG 32/64/128'
worse=0 err=0
for name in "$@"; do
	tile=examples/$name.tile hand=bench/handwritten/$name.cu
	if [ ! -f "$tile" ] || [ ! -f "$hand" ]; then
		echo "$0: $name: need both $tile and $hand" >&2
		err=1
		continue
	fi
	ok=1
	"$tilec" -Xptxas -v "$tile" -o "$tmp/t.cubin" >"$tmp/t.log" 2>&1 || ok=0
	"$tilec" --via=nvcc -Xptxas -v "$tile" -o "$tmp/n.cubin" >"$tmp/n.log" 2>&1 || ok=0
	"$nvcc" -cubin -arch=sm_100a -Xptxas -v -o "$tmp/h.cubin" "$hand" >"$tmp/h.log" 2>&1 || ok=0
	if [ $ok -eq 0 ]; then
		echo "$0: $name: a build failed" >&2
		cat "$tmp/t.log" "$tmp/n.log" "$tmp/h.log" | head -n 20 >&2
		err=1
		continue
	fi
	for route in tilec nvcc hand; do
		case $route in tilec) c=t ;; nvcc) c=n ;; hand) c=h ;; esac
		# shellcheck disable=SC2046 # the fields of one line
		set -- $(measure "$tmp/$c.cubin" "$tmp/$c.log")
		printf '%-21s %-5s %5s %5s %5s %4s %4s  %-14s %-14s\n' "$name" "$route" "$1" "$2" "$3" "$4" "$5" \
			"$6/$7/$8" "$9/${10}/${11}"
		eval "${c}_regs=\$1 ${c}_sass=\$3"
	done
	# shellcheck disable=SC2154 # set by the eval above
	if [ "$t_regs" -gt "$h_regs" ] || { [ "$t_sass" != - ] && [ "$t_sass" -gt "$h_sass" ]; }; then
		echo "  ^ $name: tilec above the hand-written twin" >&2
		worse=1
	fi
done
[ $err -ne 0 ] && exit 3
exit $worse
