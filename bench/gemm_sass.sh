#!/bin/sh
# gemm_sass.sh: examples/gemm.tile against its hand-written CUDA twin bench/handwritten/gemm.cu (issue 30's
# benchmark), from the cubins. One line per build:
#   ptx    tilec examples/gemm.tile -o X.cubin (tilec's PTX through ptxas, the default route)
#   nvcc   tilec --via=nvcc examples/gemm.tile -o X.cubin (tilec's CUDA C through nvcc)
#   twin   nvcc -gencode arch=compute_100a,code=sm_100a -O3 -cubin bench/handwritten/gemm.cu
# with its registers (ptxas -v), its SASS instructions (cuobjdump -sass, up to the kernel's final self-branch,
# NOP padding left out), and per stage of the steady-state K loops: the instructions of the producer's loop
# and of the MMA warp's loop (each loop: of the regions between a backward branch and its target that hold a
# barrier wait, the one with the most UTMALDG, resp. UTCHMMA / UTCMMA: the main loop where ptxas unrolled it;
# divided by the stages unrolled into it: UTMALDG / 2, resp. MMAs / 4), and in those loops per stage the TMA issues (UTMALDG), the MMAs, and the barrier operations
# (SYNCS.*, UTCBAR: waits, arrivals, expected bytes, commits) and elections (ELECT).
# cuobjdump: $CUOBJDUMP, else the PyPI wheel that bench/sass_figures.sh installs into build/bench-venv (or
# /work/main's). Usage: bench/gemm_sass.sh [--markdown] [TILEC]  (default build/tilec). Exit 0; 1 when tilec's
# PTX route is above the twin in a column; 3 when a tool is missing or a build fails.
cd "$(dirname "$0")/.." || exit 3
markdown=0
[ "${1-}" = --markdown ] && markdown=1 && shift
tilec=${1:-build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 3; }
nvcc=$(sh tools/find-nvcc.sh) || { echo "$0: nvcc not found (set CUDA_HOME)" >&2; exit 3; }
cuobjdump=${CUOBJDUMP-}
if [ -z "$cuobjdump" ]; then
	for venv in build/bench-venv ../main/build/bench-venv /work/main/build/bench-venv; do
		bin=$(ls -d $venv/lib/python*/site-packages/nvidia/cu*/bin 2>/dev/null | head -n 1)
		[ -n "$bin" ] && [ -x "$bin/cuobjdump" ] && cuobjdump=$bin/cuobjdump && PATH=$bin:$PATH && export PATH && break
	done
fi
[ -n "$cuobjdump" ] || { echo "$0: no cuobjdump (set CUOBJDUMP, or run bench/sass_figures.sh once)" >&2; exit 3; }
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
ptxas=$(dirname "$nvcc")/ptxas

# figures SASS: registers-free columns of one cubin's SASS, tab-separated
figures() {
	awk '
	function hex(s,   i, c, v) { v = 0; s = tolower(s); for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 } return v }
	/^[ \t]+\/\*[0-9a-f]+\*\// {
		match($0, /\/\*[0-9a-f]+\*\//); a = hex(substr($0, RSTART + 2, RLENGTH - 4))
		line = $0; sub(/^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+/, "", line); sub(/[ \t]*;.*$/, "", line)
		if (done) next
		n++; addr[n] = a; text[n] = line
		if (line ~ /BRA 0x/) { t = line; sub(/.*BRA[^0]*0x/, "", t); sub(/[^0-9a-f].*/, "", t); to[n] = hex(t); if (to[n] == a) done = 1 }
	}
	# one loop: of the backward-branch regions that hold a stage wait (SYNCS.PHASECHK) and instructions
	# matching re, the one with the most of them (the main loop ptxas unrolled), the smallest on a tie
	function loop(re, per,   i, j, c, w, best, most, blo, bhi, m) {
		best = -1; most = 0
		for (i = 1; i <= n; i++) {
			if (!(i in to) || to[i] >= addr[i]) continue
			c = 0; w = 0
			for (j = 1; j <= n; j++)
				if (addr[j] >= to[i] && addr[j] <= addr[i]) {
					if (text[j] ~ re) c++
					if (text[j] ~ /SYNCS\.PHASECHK/) w++
					if (text[j] ~ /^EXIT/) w = -1000000 # a retry stub after the end of the kernel, jumping back
				}
			if (c == 0 || w <= 0) continue
			if (c > most || (c == most && addr[i] - to[i] < best)) { most = c; best = addr[i] - to[i]; blo = to[i]; bhi = addr[i] }
		}
		L_ins = 0; L_tma = 0; L_mma = 0; L_bar = 0; L_elect = 0
		if (best < 0) return
		for (i = 1; i <= n; i++) {
			if (addr[i] < blo || addr[i] > bhi || text[i] ~ /^NOP/) continue
			L_ins++
			if (text[i] ~ /UTMALDG/) L_tma++
			if (text[i] ~ /UTC[A-Z]*MMA/) L_mma++
			if (text[i] ~ /SYNCS\.|UTCBAR/) L_bar++
			if (text[i] ~ /ELECT/) L_elect++
		}
		m = (per == "tma" ? L_tma / 2 : L_mma / 4); if (m < 1) m = 1
		L_stages = m
	}
	END {
		total = 0
		for (i = 1; i <= n; i++) if (text[i] !~ /^NOP/) total++
		loop("UTMALDG", "tma"); p_ins = L_ins / L_stages; p_tma = L_tma / L_stages; p_bar = L_bar / L_stages; p_el = L_elect / L_stages; p_st = L_stages
		loop("UTC[A-Z]*MMA", "mma"); m_ins = L_ins / L_stages; m_mma = L_mma / L_stages; m_bar = L_bar / L_stages; m_el = L_elect / L_stages; m_st = L_stages
		printf "%d\t%.1f\t%g\t%g\t%g\t%d\t%.1f\t%g\t%g\t%g\t%d\n", total, p_ins, p_tma, p_bar, p_el, p_st, m_ins, m_mma, m_bar, m_el, m_st
	}' "$1"
}

status=0
if [ $markdown = 1 ]; then
	echo "| build | registers | SASS | producer loop / stage | UTMALDG | barrier ops | ELECT | MMA loop / stage | MMAs | barrier ops | ELECT |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
else
	printf '%-5s %5s %6s | %-38s | %-38s\n' build regs SASS "producer / stage: ins TMA bar elect (unroll)" "MMA / stage: ins MMA bar elect (unroll)"
fi
for build in ptx nvcc twin; do
	case $build in
	ptx) "$tilec" --emit=ptx examples/gemm.tile -o "$tmp/ptx.ptx" || exit 3
		"$ptxas" -arch=sm_100a -v "$tmp/ptx.ptx" -o "$tmp/ptx.cubin" >"$tmp/ptx.log" 2>&1 || exit 3 ;;
	nvcc) "$tilec" examples/gemm.tile -o "$tmp/nvcc.cu" || exit 3
		"$nvcc" -gencode arch=compute_100a,code=sm_100a -O3 -cubin -Xptxas -v "$tmp/nvcc.cu" -o "$tmp/nvcc.cubin" \
			>"$tmp/nvcc.log" 2>&1 || exit 3 ;;
	twin) "$nvcc" -gencode arch=compute_100a,code=sm_100a -O3 -cubin -Xptxas -v bench/handwritten/gemm.cu \
			-o "$tmp/twin.cubin" >"$tmp/twin.log" 2>&1 || exit 3 ;;
	esac
	regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$tmp/$build.log" | head -n 1)
	"$cuobjdump" -sass "$tmp/$build.cubin" >"$tmp/$build.sass" || exit 3
	f=$(figures "$tmp/$build.sass")
	echo "$regs	$f" >"$tmp/$build.row"
	set -- $f
	if [ $markdown = 1 ]; then
		echo "| $build | $regs | $1 | $2 | $3 | $4 | $5 | $7 | $8 | $9 | ${10} |"
	else
		printf '%-5s %5s %6s | %6s %4s %4s %4s (x%s)%14s | %6s %4s %4s %4s (x%s)\n' $build "$regs" "$1" "$2" "$3" "$4" "$5" "$6" "" \
			"$7" "$8" "$9" "${10}" "${11}"
	fi
done
# tilec's PTX route against the twin, column by column (the TMA and MMA counts must be equal)
awk -F '\t' 'NR == FNR { for (i = 1; i <= NF; i++) t[i] = $i; next }
	{ for (i = 1; i <= NF; i++) if (i != 7 && i != 12 && $i + 0 > t[i] + 0) { bad = 1; print "above the twin in column " i ": " $i " > " t[i] } }
	END { exit bad }' "$tmp/twin.row" "$tmp/ptx.row" || status=1
exit $status
