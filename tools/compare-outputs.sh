#!/bin/sh
# compare-outputs.sh TILEC OUTDIR: every .tile of the repository (run from its root) compiled to CUDA C,
# PTX, IR, emu CUDA C and a header, each output, its stderr and exit status kept in OUTDIR, for a change
# that must leave every output byte-identical (a refactoring): run it with the old and the new tilec
# and compare the two folders with `diff -r OUTDIR1 OUTDIR2`.
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); out=$2
mkdir -p "$out"
find examples tests fuzz/regress fuzz/crashers -name '*.tile' | sort | while read -r f; do
	d="$out/$(echo "$f" | tr / _)"
	mkdir -p "$d"
	dir=$(dirname "$f")
	for kind in cu ptx ir emu cuh; do
		case $kind in
		cu) opts="-o $d/out.cu" ;; ptx) opts="--emit=ptx -o $d/out.ptx" ;; ir) opts="--emit=ir -o $d/out.ir" ;;
		emu) opts="--target=emu -o $d/out.emu.cu" ;; cuh) opts="--emit=cuh -o $d/out.cuh" ;;
		esac
		timeout 60 "$tilec" -I "$dir" $opts "$f" >"$d/$kind.stdout" 2>"$d/$kind.stderr"
		echo $? >"$d/$kind.rc"
		sed -i "s#$(pwd)/##g" "$d/$kind.stderr"
	done
done
