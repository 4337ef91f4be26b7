#!/bin/sh
# gpu-robust-check.sh [TILEC]: on a machine with an NVIDIA GPU (made for the H200, sm_90) and nvcc:
# the robustness3 reproducers that need a driver (issue 25, ../shared/repro/robustness3 01 and 02),
# one PASS/FAIL line each, figures on the way. Not part of make check (tests/unit/test_tilert.c
# checks the same files against libtilert's checks without a driver).
#   valid          every examples/*.tile and tests/golden/*.tile program that compiles to a kernel,
#                  as tilec --target=emu CUDA C through nvcc -cubin and -fatbin (-arch=$EMU_ARCH),
#                  and up to 1500 cubins of CUDA's cuSPARSE and cuFFT (cuobjdump -xelf): loaded, or
#                  refused by the driver, never refused by libtilert's file checks
#   crashers       tests/data/modules/* (cubins and fatbinaries that crashed or hung the host in
#                  cuModuleLoadData): each refused with TILERT_ERR_FILE, no signal, no hang
#   mutants        460 corrupt copies of a cubin and a fatbinary (tools/module-mutants.py, fixed
#                  seed): no signal and no hang (20 s) in the loading process; how many were refused
#                  by the checks, by the driver, or loaded
#   grid-param     a PTX module whose grid program reads parameter 65535 of a kernel of 6: refused
#                  by tilert_kernel_get (cuFuncGetParamInfo), no crash; the module as tilec wrote it loads
#   ovf/ROUTE/shift=S  robustness3/03: tests/golden/copy_start_overflow.tile through the PTX, the CUDA C
#                  and the --target=emu CUDA C on the GPU, each equal to tilec run, starts near 2^31 too
# Exits 1 when one failed.
cd "$(dirname "$0")/.." || exit 2
script=gpu-robust-check
. tools/gpu-setup.sh
loader=$tmp/gpu-robust-load
${CC:-cc} -std=c11 -Wall -Wextra -O2 -D_POSIX_C_SOURCE=200809L -Iruntime -o "$loader" tools/gpu-robust-load.c \
	runtime/tilert.c -ldl || exit 2
nvidia-smi -L 2>/dev/null | head -n 1

# summary NAME FILE: PASS when FILE (the loader's lines) has no crash or hang; the counts either way
summary() {
	bad=$(grep -c '^\(crashed\|hung\) ' "$2")
	counts="$(grep -c '^loaded ' "$2") loaded, $(grep -c '^refused-file ' "$2") refused by libtilert's checks, $(grep -c '^refused ' "$2") refused by the driver"
	if [ "$bad" -ne 0 ]; then
		echo "FAIL $1: $bad crashed or hung ($counts)"
		grep '^\(crashed\|hung\) ' "$2" | sed 's/^/    /' | head -n 20
		failed=1
	else
		echo "PASS $1: $counts"
	fi
}

# valid modules: no false refusal by the file checks. nvcc runs on every core (serially the
# programs took longer than the device tool's 10 minutes a command)
mkdir -p "$tmp/valid"
for f in examples/*.tile tests/golden/*.tile; do
	stem=${f##*/}
	stem=${stem%.tile}
	"$tilec" --target=emu "$f" -o "$tmp/valid/$stem.cu" >/dev/null 2>&1 || continue
	grep -q '__global__' "$tmp/valid/$stem.cu" || continue
	kernel=$(sed -n 's/^extern "C" __global__ .* \([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$tmp/valid/$stem.cu" | head -n 1)
	[ -n "$kernel" ] || continue
	echo "$stem $kernel" >>"$tmp/valid.list"
done
cut -d' ' -f1 "$tmp/valid.list" | xargs -P "$(nproc)" -I{} sh -c \
	'"$0" -cubin -arch="$1" -o "$2/{}.cubin" "$2/{}.cu" >/dev/null 2>&1 &&
	"$0" -fatbin -arch="$1" -o "$2/{}.fatbin" "$2/{}.cu" >/dev/null 2>&1; exit 0' "$nvcc" "$arch" "$tmp/valid"
# each module loads in a child of its own, which starts the driver (a second or so on the H200):
# the children run on every core
while read -r stem kernel; do
	printf '%s' "$kernel"
	for m in "$tmp/valid/$stem.cubin" "$tmp/valid/$stem.fatbin"; do
		[ -f "$m" ] && printf ' %s' "$m"
	done
	echo
done <"$tmp/valid.list" | xargs -P "$(nproc)" -L 1 "$loader" >>"$tmp/valid.txt"
n=$(grep -c . "$tmp/valid.txt")
# NVIDIA's own cubins, of every GPU and several compiler versions: those in CUDA's libraries
cuobjdump=${nvcc%/nvcc}/cuobjdump
mkdir -p "$tmp/lib"
for lib in libcusparse.so libcufft.so; do
	[ -f "${nvcc%/bin/nvcc}/lib64/$lib" ] || continue
	(cd "$tmp/lib" && timeout 120 "$cuobjdump" -xelf all "${nvcc%/bin/nvcc}/lib64/$lib" >/dev/null 2>&1)
done
ls "$tmp/lib" | head -n 1500 | sed "s|^|$tmp/lib/|" | xargs -r -P "$(nproc)" -n 16 "$loader" k >>"$tmp/valid.txt"
n=$((n + $(ls "$tmp/lib" | head -n 1500 | wc -l)))
if grep -q '^refused-file ' "$tmp/valid.txt"; then
	echo "FAIL valid: a module nvcc wrote was refused by libtilert's checks"
	grep '^refused-file ' "$tmp/valid.txt" | sed 's/^/    /' | head -n 20
	failed=1
else
	summary "valid ($n modules)" "$tmp/valid.txt"
fi

# the reproducers of robustness3/01
"$loader" k tests/data/modules/*.cubin tests/data/modules/*.fatbin >"$tmp/crashers.txt"
if grep -v '/k.cubin$' "$tmp/crashers.txt" | grep -vq '^refused-file '; then
	echo "FAIL crashers: not each refused by libtilert's checks"
	grep -v '^refused-file ' "$tmp/crashers.txt" | sed 's/^/    /'
	failed=1
elif ! grep -q '^loaded .*/k.cubin$' "$tmp/crashers.txt"; then
	echo "FAIL crashers: k.cubin, the module they were made from, does not load"
	sed 's/^/    /' "$tmp/crashers.txt"
	failed=1
else
	summary "crashers ($(grep -c . "$tmp/crashers.txt") files, k.cubin among them)" "$tmp/crashers.txt"
fi

# mutants of a cubin and a fatbinary of the same kernel
cat >"$tmp/edge.tile" <<'TILE'
layout ROW = S[(128, 32) : (1@tid_in_wg, 1)];
kernel k(A: f32[M, N] stride (lda, 1), Out: f32[M, N] stride (ldo, 1), M: i32, N: i32, lda: i32, ldo: i32)
    launch(grid = ((N + 31) / 32, (M + 127) / 128), block = 128)
{
    let top = block_idx.y * 128;
    let left = block_idx.x * 32;
    local r: f32[128, 32] layout ROW;
    copy(r, A[top : top + 128, left : left + 32]);
    copy(Out[top : top + 128, left : left + 32], r);
}
TILE
if "$tilec" "$tmp/edge.tile" -o "$tmp/edge.cu" && "$nvcc" -cubin -arch="$arch" -o "$tmp/edge.cubin" "$tmp/edge.cu" &&
	"$nvcc" -fatbin -arch="$arch" -o "$tmp/edge.fatbin" "$tmp/edge.cu" &&
	python3 tools/module-mutants.py "$tmp/m" "$tmp/edge.cubin" "$tmp/edge.fatbin"; then
	ls "$tmp"/m/* | xargs -P "$(nproc)" -n 16 "$loader" k >"$tmp/mutants.txt"
	summary "mutants ($(ls "$tmp/m" | wc -l) files)" "$tmp/mutants.txt"
else
	echo "FAIL mutants: could not build the cubin and fatbinary to mutate"
	failed=1
fi

# robustness3/02: a grid program that names parameter 65535 (tilec's reads parameter 3, N, first)
"$tilec" --emit=ptx "$tmp/edge.tile" -o - | sed "s/^\.target sm_100a/.target $arch/" >"$tmp/edge.ptx"
sed 's/\(tilec_grid_k\[[0-9]*\] = {2, \)[0-9]*/\116776960/' "$tmp/edge.ptx" >"$tmp/edge_hostile.ptx"
"$loader" k "$tmp/edge.ptx" "$tmp/edge_hostile.ptx" >"$tmp/grid.txt"
if cmp -s "$tmp/edge.ptx" "$tmp/edge_hostile.ptx"; then
	echo "FAIL grid-param: the grid program was not found in the PTX to change"
	failed=1
elif ! grep -q '^loaded .*/edge.ptx$' "$tmp/grid.txt"; then
	echo "FAIL grid-param: the module as tilec wrote it does not load"
	sed 's/^/    /' "$tmp/grid.txt"
	failed=1
elif grep -q '^refused-file .*/edge_hostile.ptx: .*reads parameter 65535 (kind 0) of kernel k, which has 6 parameters' "$tmp/grid.txt"; then
	echo "PASS grid-param: $(grep edge_hostile "$tmp/grid.txt" | sed 's/^[^:]*: //')"
else
	echo "FAIL grid-param: the module reading parameter 65535 was not refused by tilert_kernel_get"
	sed 's/^/    /' "$tmp/grid.txt"
	failed=1
fi
# robustness3/03: a copy into S[:, shift : shift + 4] with shift near 2^31, through tilec's PTX (its
# .target retold), its CUDA C (nvcc) and the --target=emu CUDA C, each compared with tilec run: the
# PTX's vector test wrapped in 32 bits and st.global.v4 faulted (CUDA_ERROR_ILLEGAL_ADDRESS)
ovf=tests/golden/copy_start_overflow.tile
"$tilec" --emit=ptx "$ovf" -o - | sed "s/^\.target sm_100a/.target $arch/" >"$tmp/ovf.ptx"
"$tilec" "$ovf" -o "$tmp/ovf.cu" && "$nvcc" -cubin -arch="$arch" -o "$tmp/ovf_cu.cubin" "$tmp/ovf.cu"
"$tilec" --target=emu "$ovf" -o "$tmp/ovf_emu.cu" && "$nvcc" -cubin -arch="$arch" -fmad=false -o "$tmp/ovf_emu.cubin" "$tmp/ovf_emu.cu"
for shift in 2147483646 2147483645 90 -2147483647; do
	for route in ptx:ovf.ptx cu:ovf_cu.cubin emu:ovf_emu.cubin; do
		d=$tmp/ovf_${route%%:*}_$shift
		mkdir -p "$d"
		if ! "$tilec" run "$ovf" --set shift=$shift --dump "$d" >"$d/cpu.txt" 2>&1; then
			echo "FAIL ovf/${route%%:*}/shift=$shift: tilec run failed"
			failed=1
			continue
		fi
		gpu_compare "ovf/${route%%:*}/shift=$shift" "$d" "$tmp/${route#*:}"
	done
done
exit $failed
