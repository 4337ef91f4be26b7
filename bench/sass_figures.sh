#!/bin/sh
# sass_figures.sh: what the generated code costs, from the cubins themselves. For every kernel NAME
# with a hand-written twin bench/handwritten/NAME.cu and a program examples/NAME.tile (or
# bench/peer/NAME.tile), one line for each of
#   ptx      tilec NAME.tile -o X.cubin (tilec's PTX through ptxas, the default route)
#   nvcc     tilec --via=nvcc NAME.tile -o X.cubin (tilec's CUDA C through nvcc -cubin)
#   twin     nvcc -cubin on the twin (16-byte vectors where the alignment is known or tested)
#   twin16   the twin with -DALIGN16 (where it has that switch): CUTLASS's 16-byte alignment contract
#   peer     for epilogue_kernel, CuTe's epilogue (PEER_DIR/cute_epilogue_peer.cu) under the scalar
#            contract (-DVC=1 -DVD=1), built with the CUTLASS 4.2 headers of the PyPI wheel
#            nvidia-cutlass==4.2.0.0 (pip install --no-deps --target build/bench-cutlass, once)
#   peer16   the same under CUTLASS's 16-byte contract (-DVC=4 -DVD=8)
# with registers and spill bytes (ptxas -v), and from `cuobjdump -sass`: SASS instructions (up to
# the kernel's final self-branch, without the NOP padding after it), LDTM and STTM instructions, the
# global loads and stores by width (LDG/STG of 16 bits or less, 32, 64 and 128 bits), the branch
# regions (BSSY: a divergent region the hardware reconverges) and, where the twin states its
# "Elements per thread: K", SASS instructions per element (SASS / K). cuobjdump comes from the PyPI
# wheel nvidia-cuda-cuobjdump (with nvidia-cuda-nvdisasm, which `cuobjdump -sass` runs), installed
# into a virtual environment in build/bench-venv on first use; $CUOBJDUMP names another one. What
# cannot be installed or found is skipped with a message: the SASS columns without cuobjdump, the
# peer lines without the CUTLASS headers ($CUTLASS_INCLUDE names a directory holding cute/ and
# cutlass/) or without PEER_DIR (default: ../shared/bench beside the repository).
# Usage: bench/sass_figures.sh [--markdown] [TILEC] [NAME...]  (default: build/tilec, every twin)
#   --markdown  print the table as the rows of docs/performance.md's table
#   epilogue_aligned_kernel (bench/peer/, the epilogue under the align 16 contract; not in the default
#   list) is measured against epilogue_kernel's twin and peer, which do the same work
# Exit: 0; 1 when tilec's PTX route needs more registers or more SASS instructions than the twin;
# 3 when nvcc or tilec is missing or a build fails.
cd "$(dirname "$0")/.." || exit 3
markdown=0
[ "${1-}" = --markdown ] && markdown=1 && shift
tilec=build/tilec
case ${1-} in
*/*) tilec=$1; shift ;;
esac
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
nvcc=$(sh tools/find-nvcc.sh) || { echo "$0: nvcc not found (set CUDA_HOME)" >&2; exit 3; }
# tile_of NAME: the program a twin is the twin of
tile_of() {
	for t in "examples/$1.tile" "bench/peer/$1.tile"; do
		[ -f "$t" ] && echo "$t" && return 0
	done
	return 1
}
if [ $# -eq 0 ]; then
	for f in bench/handwritten/*.cu; do
		n=$(basename "$f" .cu)
		tile_of "$n" >/dev/null && set -- "$@" "$n"
	done
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sass_figures.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' HUP INT TERM
venv=build/bench-venv

# cuobjdump: $CUOBJDUMP, else the PyPI wheel in build/bench-venv (installed once)
cuobjdump=${CUOBJDUMP-}
if [ -z "$cuobjdump" ]; then
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

# The peer: CUTLASS's headers from the wheel (the include tree only; --no-deps keeps its Python
# dependencies out), looked for once, when a kernel with a peer is measured
peer_dir=${PEER_DIR:-../shared/bench}
cutlass_include=${CUTLASS_INCLUDE-}
peer_ready=
find_peer() {
	[ -n "$peer_ready" ] && { [ "$peer_ready" = yes ]; return; }
	peer_ready=no
	if [ ! -f "$peer_dir/cute_epilogue_peer.cu" ]; then
		echo "SKIP peer lines: $peer_dir/cute_epilogue_peer.cu not found (set PEER_DIR)" >&2
		return 1
	fi
	if [ -z "$cutlass_include" ]; then
		cutlass_include=build/bench-cutlass/cutlass_library/source/include
		if [ ! -f "$cutlass_include/cute/tensor.hpp" ]; then
			echo "installing the CUTLASS 4.2 headers from PyPI into build/bench-cutlass (pip install --no-deps nvidia-cutlass==4.2.0.0)" >&2
			pip=python3
			[ -x "$venv/bin/python3" ] && pip=$venv/bin/python3
			"$pip" -m pip install -q --no-deps --target build/bench-cutlass nvidia-cutlass==4.2.0.0 >"$tmp/pip-cutlass.log" 2>&1 ||
				tail -n 3 "$tmp/pip-cutlass.log" | sed 's/^/    /' >&2
		fi
	fi
	if [ ! -f "$cutlass_include/cute/tensor.hpp" ]; then
		if [ -n "${CUTLASS_INCLUDE-}" ]; then
			echo "SKIP peer lines: CUTLASS_INCLUDE=$CUTLASS_INCLUDE holds no cute/tensor.hpp" >&2
		else
			echo "SKIP peer lines: no CUTLASS headers (pip install nvidia-cutlass==4.2.0.0 failed; set CUTLASS_INCLUDE to a directory holding cute/ and cutlass/)" >&2
		fi
		return 1
	fi
	peer_ready=yes
}

# measure CUBIN LOG: "REGS SPILL SASS LDTM STTM LDG16 LDG32 LDG64 LDG128 STG16 STG32 STG64 STG128 BSSY"
# (- without cuobjdump)
measure() {
	regs=$(sed -n 's/.*Used \([0-9][0-9]*\) registers.*/\1/p' "$2" | sort -n | tail -n 1)
	spill=$(sed -n 's/.* \([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1 \2/p' "$2" |
		awk '{ s += $1 + $2 } END { print s + 0 }')
	if [ -z "$cuobjdump" ]; then
		echo "${regs:--} $spill - - - - - - - - - - - -"
		return
	fi
	"$cuobjdump" -sass "$1" >"$tmp/sass" 2>"$tmp/sass.err" || { echo "${regs:--} $spill ? ? ? ? ? ? ? ? ? ? ? ?"; return; }
	# instruction lines: /*ADDR*/ OPCODE ... ; the kernel ends at "BRA ADDR" to itself, NOPs follow
	awk '
		function width(op) {
			if (op ~ /\.128/) return 4
			if (op ~ /\.64/) return 3
			if (op ~ /\.(U|S)(8|16)/) return 1
			return 2
		}
		match($0, /^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+/) {
			addr = substr($0, RSTART, RLENGTH); gsub(/[^0-9a-f]/, "", addr); sub(/^0+/, "", addr)
			ins = substr($0, RSTART + RLENGTH); sub(/;.*/, "", ins)
			if (done) next
			n++
			if (ins ~ /^BRA 0x/ && ins == "BRA 0x" addr) done = 1
			split(ins, w, /[ \t]+/); op = w[1]; if (op ~ /^@/) op = w[2]
			if (op ~ /^LDTM/) ldtm++
			if (op ~ /^STTM/) sttm++
			if (op ~ /^BSSY/) bssy++
			if (op ~ /^LDG/) ldg[width(op)]++
			if (op ~ /^STG/) stg[width(op)]++
		}
		END {
			printf "%d %d %d %d %d %d %d %d %d %d %d %d\n", n, ldtm, sttm, ldg[1], ldg[2], ldg[3], ldg[4],
				stg[1], stg[2], stg[3], stg[4], bssy
		}' "$tmp/sass" | sed "s/^/${regs:--} $spill /"
}

# row NAME ROUTE ELEMENTS FIELDS...: one line of the table
row() {
	name=$1 route=$2 elems=$3
	shift 3
	per=-
	[ "$elems" != - ] && [ "$3" != - ] && per=$(awk -v s="$3" -v k="$elems" 'BEGIN { printf "%.1f", s / k }')
	if [ $markdown -eq 1 ]; then
		printf '| %s | %s | %s | %s | %s | %s/%s | %s/%s/%s/%s | %s/%s/%s/%s | %s | %s |\n' "$name" "$route" \
			"$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "${11}" "${12}" "${13}" "${14}" "$per"
	else
		printf '%-21s %-6s %5s %5s %5s %4s %4s  %-15s %-15s %4s %6s\n' "$name" "$route" "$1" "$2" "$3" "$4" "$5" \
			"$6/$7/$8/$9" "${10}/${11}/${12}/${13}" "${14}" "$per"
	fi
}

if [ $markdown -eq 1 ]; then
	echo '| kernel | route | regs | spill | SASS | LDTM/STTM | LDG 16/32/64/128 | STG 16/32/64/128 | BSSY | SASS/elem |'
	echo '|---|---|---:|---:|---:|---:|---|---|---:|---:|'
else
	printf '%-21s %-6s %5s %5s %5s %4s %4s  %-15s %-15s %4s %6s\n' kernel route regs spill sass LDTM STTM \
		'LDG 16/32/64/128' 'STG 16/32/64/128' BSSY 'SASS/e'
fi
worse=0 err=0
for name in "$@"; do
	hand=bench/handwritten/$name.cu
	# the epilogue under the align 16 contract does the same work as epilogue_kernel: the same twin and peer
	[ "$name" = epilogue_aligned_kernel ] && hand=bench/handwritten/epilogue_kernel.cu
	if ! tile=$(tile_of "$name") || [ ! -f "$hand" ]; then
		echo "$0: $name: need both $hand and examples/$name.tile (or bench/peer/$name.tile)" >&2
		err=1
		continue
	fi
	elems=$(sed -n 's/.*Elements per thread: \([0-9][0-9]*\).*/\1/p' "$hand" | head -n 1)
	: "${elems:=-}"
	routes="ptx nvcc twin"
	grep -q '^#ifdef ALIGN16' "$hand" && routes="$routes twin16"
	case $name in epilogue_kernel | epilogue_aligned_kernel) find_peer && routes="$routes peer peer16" ;; esac
	for route in $routes; do
		case $route in
		ptx) "$tilec" -Xptxas -v "$tile" -o "$tmp/$route.cubin" ;;
		nvcc) "$tilec" --via=nvcc -Xptxas -v "$tile" -o "$tmp/$route.cubin" ;;
		twin) "$nvcc" -cubin -arch=sm_100a -Xptxas -v -o "$tmp/$route.cubin" "$hand" ;;
		twin16) "$nvcc" -cubin -arch=sm_100a -Xptxas -v -DALIGN16 -o "$tmp/$route.cubin" "$hand" ;;
		peer | peer16)
			vec="-DVC=1 -DVD=1"
			[ "$route" = peer16 ] && vec="-DVC=4 -DVD=8"
			# shellcheck disable=SC2086 # two flags
			"$nvcc" -std=c++17 -cubin -arch=sm_100a -DNDEBUG -I"$cutlass_include" $vec -Xptxas -v \
				-o "$tmp/$route.cubin" "$peer_dir/cute_epilogue_peer.cu" ;;
		esac >"$tmp/$route.log" 2>&1 || {
			echo "$0: $name: the $route build failed:" >&2
			head -n 20 "$tmp/$route.log" >&2
			err=1
			continue
		}
		# shellcheck disable=SC2046 # the fields of one line
		set -- $(measure "$tmp/$route.cubin" "$tmp/$route.log")
		row "$name" "$route" "$elems" "$@"
		eval "${route}_regs=\$1 ${route}_sass=\$3"
	done
	# shellcheck disable=SC2154 # set by the eval above
	if [ -n "${ptx_regs-}" ] && [ -n "${twin_regs-}" ] &&
		{ [ "$ptx_regs" -gt "$twin_regs" ] || { [ "$ptx_sass" != - ] && [ "$ptx_sass" -gt "$twin_sass" ]; }; }; then
		echo "  ^ $name: tilec's PTX route above the twin ($ptx_regs registers / $ptx_sass SASS against $twin_regs / $twin_sass)" >&2
		worse=1
	fi
	unset ptx_regs twin_regs
done
[ $err -ne 0 ] && exit 3
exit $worse
