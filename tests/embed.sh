#!/bin/sh
# embed.sh TILEC: examples/embed/, tilec's device functions inside a hand-written CUDA program
# (docs/embedding.md), one PASS/FAIL line each.
#   embed/epilogue/MxN   examples/embed/epilogue_test.tile (its accumulator from a global matrix, then
#                        gemm_epilogue) under `tilec run --dump`, D checked against a reference in C
#                        (tests/embed/epilogue_check.c), for sizes whose tiles cross the matrix edge.
#   embed/epilogue-aligned/MxN  the same for examples/embed/epilogue_aligned_test.tile (align 16).
#   embed/mainloop/MxNxK examples/embed/mainloop_test.tile (the GEMM of examples/gemm.tile with its mainloop
#                        from the device functions of examples/embed/mainloop.tile: TMA ring, mbarriers, mma and
#                        commit inside functions) for each `// run:` line, D checked by tests/emu/gemm_dump_check.c.
#   embed/mainloop-header the header of mainloop.tile declares each tma parameter as const CUtensorMap * and a
#                        host function NAME_PARAM_tensormap per map.
#   embed/mainloop/cuda  the CUDA C of mainloop_test.tile (its calls pass the kernel's tensor maps to the
#                        functions) builds with nvcc for sm_100a without a message.
#   embed/tensormap/build tests/embed/tensormap_check.cu (each map through the header's function and as libtilert
#                        encodes it from the kernel's tilec_tma_ table) builds with nvcc and -lcuda;
#                        tools/gpu-embed-check.sh runs it where a driver is.
#   embed/emu-header/MxN the epilogue's --target=emu header, called by the hand-written kernel of
#                        tests/embed/emu_kernel.cu built for the CPU, on each size's inputs: the same D,
#                        bit for bit, as tilec run; embed/emu-header/nvcc: its nvcc build for sm_80.
#   embed/gemm           `make -C examples embed/gemm` in a scratch copy: the header from the .tile file,
#                        then nvcc -gencode arch=compute_100a,code=sm_100a on gemm.cu, the hand-written
#                        tcgen05.mma kernel that includes it (ptxas runs on both): no error, warning or spill.
#   embed/depfiles       after that build, a newer epilogue.tile remakes the header and the program,
#                        and nothing else is remade when nothing changed.
# Without nvcc the nvcc ones are SKIP lines. The inner makes run without the MAKEFLAGS of a `make -j check`
# around them (whose jobserver they cannot use, and say so in a warning). Exits 1 when a test failed.
runner=embed
. "$(dirname "$0")/runner.sh"
runner_work 300

if ! ${CC:-cc} -std=c11 -Wall -Wextra -Werror -O2 -ffp-contract=off -o "$tmp/check" tests/embed/epilogue_check.c \
	-lm 2>"$tmp/cc.txt"; then
	name=embed/epilogue
	fail "tests/embed/epilogue_check.c does not compile"
	show "$tmp/cc.txt"
fi

# epilogue NAME DIR TILE N_NAME N_VALUE M N LDC LDD ALPHA BETA: tilec run TILE with those sizes (its
# column count given as N_NAME=N_VALUE) into DIR, and D checked against the reference
epilogue() {
	name=$1 dir=$2 tile=$3 n_name=$4 n_value=$5
	shift 5
	mkdir -p "$dir"
	if ! $limit "$tilec" run "$tile" --set M="$1" --set "$n_name=$n_value" --set ldc="$3" --set ldd="$4" \
		--set alpha="$5" --set beta="$6" --dump "$dir" >"$dir/run.txt" 2>&1; then
		fail "tilec run failed"
		show "$dir/run.txt"
	elif [ -x "$tmp/check" ]; then
		CHECK_NAME=$name "$tmp/check" "$dir" "$@" || failed=1
	fi
}

dirs=
# M N LDC LDD ALPHA BETA: 300 x 200 is 3 x 2 tiles, both edges inside a tile; 129 x 33 one row and
# most columns of the second tiles; 1 x 1 a single element
for size in "300 200 203 205 0.5 -1.25" "129 33 40 36 -2 0.75" "1 1 1 1 1.5 1"; do
	set -- $size
	dirs="$dirs $tmp/$1x$2"
	epilogue "embed/epilogue/${1}x$2" "$tmp/$1x$2" examples/embed/epilogue_test.tile N "$2" "$@"
done

# the epilogue under the align 16 contract (examples/embed/epilogue_aligned_test.tile, 16-byte accesses of
# C, bias and D with no run-time alignment test), with leading dimensions that keep it and N a multiple
# of 8 (N8 = N / 8): the same reference
for size in "300 200 204 208 0.5 -1.25" "129 40 44 48 -2 0.75"; do
	set -- $size
	epilogue "embed/epilogue-aligned/${1}x$2" "$tmp/aligned-$1x$2" examples/embed/epilogue_aligned_test.tile N8 \
		$(($2 / 8)) "$@"
done

# the mainloop in device functions: each run line of mainloop_test.tile, D against gemm_dump_check.c's reference
if ! ${CC:-cc} -std=c11 -Wall -Wextra -Werror -O2 -ffp-contract=off -DDUMP_TEST='"embed/mainloop"' -Itests/emu \
	-o "$tmp/gemm_check" tests/emu/gemm_dump_check.c -lm 2>"$tmp/cc.txt"; then
	name=embed/mainloop
	fail "tests/emu/gemm_dump_check.c does not compile"
	show "$tmp/cc.txt"
fi
grep '^// run: tilec run ' examples/embed/mainloop_test.tile | sed 's|^// run: tilec run [^ ]*||' >"$tmp/runs.txt"
while read -r options; do
	set -- $options
	size=$(echo "$options" | sed 's/.*M=\([0-9]*\) --set N=\([0-9]*\) --set K=\([0-9]*\).*/\1x\2x\3/')
	name=embed/mainloop/$size
	rm -rf "$tmp/mainloop"
	mkdir -p "$tmp/mainloop"
	if ! $limit "$tilec" run examples/embed/mainloop_test.tile "$@" --dump "$tmp/mainloop" >"$tmp/mainloop.txt" 2>&1; then
		fail "tilec run failed"
		show "$tmp/mainloop.txt"
	elif [ -x "$tmp/gemm_check" ]; then
		"$tmp/gemm_check" "$tmp/mainloop" | sed "s|embed/mainloop|$name|" | tee "$tmp/check.txt"
		grep -q '^PASS' "$tmp/check.txt" || failed=1
	fi
done <"$tmp/runs.txt"

name=embed/mainloop-header
if ! "$tilec" --emit=cuh examples/embed/mainloop.tile -o "$tmp/mainloop.cuh" 2>"$tmp/err.txt"; then
	fail "tilec --emit=cuh examples/embed/mainloop.tile failed"
	show "$tmp/err.txt"
elif ! grep -q 'const CUtensorMap \*A, const CUtensorMap \*B' "$tmp/mainloop.cuh" ||
	! grep -q '^static inline CUresult gemm_producer_A_tensormap(CUtensorMap \*map, void \*base, uint64_t dim0, uint64_t dim1, uint64_t stride0, uint64_t stride1)$' "$tmp/mainloop.cuh"; then
	fail "the header lacks the tensor map parameters or gemm_producer_A_tensormap"
else
	echo "PASS $name"
fi

# the same epilogue through the --target=emu header, called by the hand-written kernel of
# tests/embed/emu_kernel.cu (built for the CPU), on the inputs of each tilec run above: D bit for bit
mkdir -p "$tmp/emu"
name=embed/emu-header
if ! "$tilec" --target=emu --emit=cuh examples/embed/epilogue.tile -o "$tmp/emu/epilogue.cuh" 2>"$tmp/emu/err.txt"; then
	fail "tilec --target=emu --emit=cuh failed"
	show "$tmp/emu/err.txt"
elif ! ${CXX:-c++} -std=c++17 -x c++ -O2 -ffp-contract=off -Wall -Wextra -Werror -I"$tmp/emu" -o "$tmp/emu/kernel" \
	tests/embed/emu_kernel.cu -lpthread -lm >"$tmp/emu/cxx.txt" 2>&1; then
	fail "tests/embed/emu_kernel.cu does not build with the emulation header"
	show "$tmp/emu/cxx.txt"
else
	for dir in $dirs; do
		name=embed/emu-header/${dir##*/}
		if $limit "$tmp/emu/kernel" "$dir" >"$tmp/emu/out.txt" 2>&1; then
			echo "PASS $name ($(cat "$tmp/emu/out.txt"))"
		else
			fail "$(head -n 1 "$tmp/emu/out.txt")"
		fi
	done
fi

if ! nvcc=$(sh tools/find-nvcc.sh); then
	echo "SKIP embed/emu-header/nvcc: no nvcc"
	echo "SKIP embed/tensormap/build: no nvcc"
	echo "SKIP embed/mainloop/cuda: no nvcc"
	echo "SKIP embed/gemm: no nvcc"
	echo "SKIP embed/depfiles: no nvcc"
	exit $failed
fi
# the GPU build of the same program (tools/gpu-embed-check.sh runs it on a GPU)
name=embed/emu-header/nvcc
if [ -f "$tmp/emu/epilogue.cuh" ] && "$nvcc" -arch=sm_80 -fmad=false -I"$tmp/emu" -o "$tmp/emu/gpu" \
	tests/embed/emu_kernel.cu >"$tmp/emu/nvcc.txt" 2>&1 && ! grep -q . "$tmp/emu/nvcc.txt"; then
	echo "PASS $name"
else
	fail "nvcc -arch=sm_80 failed or printed something"
	show "$tmp/emu/nvcc.txt"
fi

# the header's tensor map functions against libtilert's encoding (tests/embed/tensormap_check.cu): built here
# (host code, linked with the driver library); tools/gpu-embed-check.sh runs it where a driver is
name=embed/tensormap/build
mkdir -p "$tmp/tm"
if ! "$tilec" examples/embed/mainloop_test.tile -o "$tmp/tm/k.cu" 2>"$tmp/tm/err.txt" ||
	! "$tilec" --emit=cuh examples/embed/mainloop.tile -o "$tmp/tm/mainloop.cuh" 2>>"$tmp/tm/err.txt"; then
	fail "tilec failed"
	show "$tmp/tm/err.txt"
elif ! sed -n 's/^extern "C" __device__ const unsigned tilec_tma_mainloop_test\[[0-9]*\] = \({.*}\);$/static const unsigned tma_table[] = \1;/p' \
	"$tmp/tm/k.cu" >"$tmp/tm/table.h" || ! grep -q tma_table "$tmp/tm/table.h"; then
	fail "no tilec_tma_mainloop_test table in the kernel's CUDA C"
elif ! "$nvcc" -std=c++17 -include "$tmp/tm/table.h" -I"$tmp/tm" -Iruntime -o "$tmp/tm/check" \
	tests/embed/tensormap_check.cu -lcuda >"$tmp/tm/nvcc.txt" 2>&1 || grep -q . "$tmp/tm/nvcc.txt"; then
	fail "nvcc failed or printed something"
	show "$tmp/tm/nvcc.txt"
else
	echo "PASS $name"
fi
# the kernel's CUDA C, whose calls pass the functions its tensor maps (&A_tma0): nvcc builds it without a word
name=embed/mainloop/cuda
if [ -f "$tmp/tm/k.cu" ] && "$nvcc" -gencode arch=compute_100a,code=sm_100a -cubin -o "$tmp/tm/k.cubin" "$tmp/tm/k.cu" \
	>"$tmp/tm/k.txt" 2>&1 && ! grep -q . "$tmp/tm/k.txt"; then
	echo "PASS $name"
else
	fail "nvcc -cubin of the CUDA C of mainloop_test.tile failed or printed something"
	show "$tmp/tm/k.txt"
fi

name=embed/gemm
mkdir -p "$tmp/ex"
cp -R examples/Makefile examples/embed "$tmp/ex/"
rm -f "$tmp"/ex/embed/*.cuh "$tmp"/ex/embed/*.d "$tmp/ex/embed/gemm"
if ! MAKEFLAGS= $limit make -C "$tmp/ex" --no-print-directory TILEC="$tilec" NVCC="$nvcc" NVCCFLAGS="-gencode \
	arch=compute_100a,code=sm_100a -O2 -Xptxas -v" embed/gemm </dev/null >"$tmp/make.txt" 2>&1; then
	fail "make embed/gemm failed"
	show "$tmp/make.txt"
elif grep -q 'error\|warning' "$tmp/make.txt"; then
	fail "the build printed an error or a warning"
	grep 'error\|warning' "$tmp/make.txt" | head -n 10 | sed 's/^/    /'
elif grep 'spill' "$tmp/make.txt" | grep -qv ' 0 bytes spill stores, 0 bytes spill loads'; then
	fail "ptxas reports spills"
	grep 'spill' "$tmp/make.txt" | sed 's/^/    /'
else
	echo "PASS $name ($(sed -n 's/.*ptxas info *: Used \([0-9]*\) registers.*/\1 registers/p' "$tmp/make.txt" | head -n 1))"
fi

name=embed/depfiles
if [ ! -x "$tmp/ex/embed/gemm" ]; then
	fail "no program from embed/gemm to start from"
elif ! grep -q 'epilogue.cuh' "$tmp/ex/embed/gemm.d" 2>/dev/null; then
	fail "nvcc's depfile embed/gemm.d does not name the header"
else
	MAKEFLAGS= make -C "$tmp/ex" --no-print-directory -q TILEC="$tilec" NVCC="$nvcc" embed/gemm </dev/null >/dev/null 2>&1
	remade=$?
	touch "$tmp/ex/embed/epilogue.tile"
	after=$(MAKEFLAGS= make -C "$tmp/ex" --no-print-directory -n TILEC="$tilec" NVCC="$nvcc" embed/gemm </dev/null 2>&1)
	case $after in
	*epilogue.cuh*gemm.cu*) ok=1 ;;
	*) ok= ;;
	esac
	if [ $remade -ne 0 ]; then
		fail "make -q says embed/gemm is out of date right after its build"
	elif [ -z "$ok" ]; then
		fail "a newer epilogue.tile does not remake the header, then the program: $after"
	else
		echo "PASS $name"
	fi
fi
exit $failed
