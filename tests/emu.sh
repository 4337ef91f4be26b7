#!/bin/sh
# emu.sh TILEC: the tests of --target=emu and `tilec run` (docs/emulator.md), one PASS/FAIL line each.
#   emu/example/NAME   examples/NAME.tile runs on the CPU emulator and gives its intended result:
#                      `--expect Out=A`, or, when tests/emu/ref/NAME.tile exists, the same tensors
#                      (checksums included) as that reference kernel, which computes the result
#                      without tensor memory; or, when tests/emu/NAME_dump_check.c exists, each
#                      `// run: tilec run NAME.tile OPTIONS` line of the example runs with --dump DIR
#                      and that C program, given DIR, checks the result against its reference.
#   emu/cxx/NAME       its --target=emu output passes `$CXX -x c++ -Wall -Wextra -Werror`.
#   emu/nvcc/NAME/ARCH ... and `nvcc -cubin -arch=ARCH` for each ARCH of EMU_NVCC_ARCHS (default
#                      sm_80, the oldest GPU the emulator runs on; sm_90 instead for an example with
#                      mbarriers or TMA, which the emulator takes from the GPU, sm_90a for one with a
#                      multicast TMA load (ptxas advises it); make check-large builds for sm_90
#                      too) (SKIP without nvcc, or with EMU_NVCC=0, or for examples/gemm.tile, whose shared
#                      tiles take nvcc many minutes; tools/gpu-emu-check.sh builds it); emu/nvcc/host_pass: `nvcc -c` of
#                      one example.
#   emu/cxx/index_precedence  tests/emu/index_precedence.tile's --target=emu output, whose indices have
#                      ^ and & on top (lower than the + that adds the bounds check), passes the same check.
#   emu/wrong_slice    a program that passes every static check but loads the wrong columns stops at
#                      the first read of the poison it loaded; with --allow-uninit it fails --expect
#                      and names the first index.
#   emu/trap/...       each emulator trap a .tile program can reach at run time stops the run with
#                      the emulator's message and exit status 1.
#   emu/direct/...     the traps that the static checks keep .tile programs from reaching, driven
#                      through the emulator's functions by tests/emu/direct.cc.
#   emu/cluster/...    the cluster model through its functions (tests/emu/cluster.cc): a CTA writes the
#                      shared memory of another and arrives on its mbarrier; ranks and tensor memory per CTA.
#   emu/copy_edge/...  copies that cross the edges of a tensor of run-time shape give what
#                      tests/emu/copy_edge_ref.tile gives element by element.
#   emu/run/...        tilec run's usage errors and determinism; -Werror, -Wno-race and --dump with races.
#   emu/cache/...      the cache of compiled programs (here in $tmp; every other test runs with TILEC_CACHE=0):
#                      a second run compiles nothing and prints the same, --no-cache and TILEC_CACHE=0
#                      compile, another --set value is another entry, TILEC_CACHE_SIZE=0 keeps nothing,
#                      runs at once on an empty cache all succeed and leave one entry, no staging file.
#   emu/header/...     the --target=emu header of examples/device_functions.tile called by a kernel written
#                      by hand (tests/emu/header_kernel.cu) gives Out = A on the CPU, and builds with nvcc;
#                      tests/emu/header_unit_index.cu calls functions from warp 1 and warpgroup 1 the same way;
#                      the emulation headers of every golden .cuh (but those with tma parameters, which have
#                      none), together in one translation unit, pass
#                      $CXX -Wall -Wextra -Werror and nvcc -cubin -arch=sm_80.
# Without a C++ compiler: one SKIP line. Exits 1 when a test failed.
runner=emu
. "$(dirname "$0")/runner.sh"
cxx=
for c in ${CXX:-c++ g++ clang++}; do
	if command -v "$c" >/dev/null 2>&1; then
		cxx=$c
		break
	fi
done
if [ -z "$cxx" ]; then
	echo "SKIP emu: no C++ compiler (set CXX)"
	exit 0
fi
runner_work 300

# ---------------------------------------------------------------- the examples
nvcc=$(sh tools/find-nvcc.sh) || nvcc=
for tile in examples/*.tile; do
	[ -f "$tile" ] || continue
	stem=${tile##*/}
	stem=${stem%.tile}
	name=emu/example/$stem
	ref=tests/emu/ref/$stem.tile
	if [ -f "$ref" ]; then
		same_as_ref "$name" "$tile" "$ref"
	elif [ -f "tests/emu/${stem}_dump_check.c" ]; then
		# each `// run:` line of the example, its --dump checked against a reference in C
		if ! cc -O2 -std=c11 -ffp-contract=off -o "$tmp/check" "tests/emu/${stem}_dump_check.c" -lm 2>"$tmp/err"; then
			fail "cannot build tests/emu/${stem}_dump_check.c"
			show "$tmp/err"
		elif ! grep -q '^// run: tilec run ' "$tile"; then
			fail "$tile has no '// run:' line"
		else
			grep '^// run: tilec run ' "$tile" | sed 's|^// run: tilec run [^ ]*||' >"$tmp/runs"
			while IFS= read -r opts; do
				rm -rf "$tmp/dump"
				set -f
				# shellcheck disable=SC2086
				run "$tile" $opts --dump "$tmp/dump" </dev/null
				set +f
				if [ $rc -ne 0 ]; then
					fail "exit status $rc (tilec run $tile $opts)"
					show "$tmp/out"
				else
					"$tmp/check" "$tmp/dump" || failed=1
				fi
			done <"$tmp/runs"
		fi
	elif [ -f "tests/emu/${stem}_check.c" ]; then
		# runtime sizes that are not multiples of the tile, checked against a reference in C
		if ! cc -O2 -std=c11 -ffp-contract=off -o "$tmp/check" "tests/emu/${stem}_check.c" -lm 2>"$tmp/err"; then
			fail "cannot build tests/emu/${stem}_check.c"
			show "$tmp/err"
		else
			for size in "300 200 256 260 1.5 -0.5" "1 1 1 3 2.0 0.0" "33 129 129 130 -0.75 0.25"; do
				set -- $size
				rm -rf "$tmp/dump"
				run "$tile" --set M=$1 --set N=$2 --set ldc=$3 --set ldd=$4 --set alpha=$5 --set beta=$6 --dump "$tmp/dump"
				if [ $rc -ne 0 ]; then
					name=emu/$stem/$1x$2
					fail "exit status $rc"
					show "$tmp/out"
				else
					"$tmp/check" "$tmp/dump" "$@" || failed=1
				fi
			done
		fi
	else
		expect_run "$name" 0 "expect Out = A: all" "$tile" --expect Out=A
	fi

	name=emu/cxx/$stem
	if ! "$tilec" --target=emu "$tile" -o "$tmp/$stem.cu" 2>"$tmp/err"; then
		fail "tilec --target=emu failed"
		show "$tmp/err"
		continue
	fi
	if "$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror -pthread -fsyntax-only "$tmp/$stem.cu" >"$tmp/err" 2>&1; then
		echo "PASS $name"
	else
		fail "$cxx -x c++ -Wall -Wextra -Werror rejects the --target=emu output"
		show "$tmp/err"
	fi
	if [ -z "$nvcc" ] || [ "${EMU_NVCC:-1}" = 0 ]; then
		if [ -n "$nvcc" ]; then echo "SKIP emu/nvcc/$stem: EMU_NVCC=0"; else echo "SKIP emu/nvcc/$stem: no nvcc"; fi
		continue
	fi
	# examples/gemm.tile's emulation build (its 193 KB of shared tiles in dynamic shared memory) takes nvcc many
	# minutes (50 on two busy cores): tools/gpu-emu-check.sh builds and runs it on a GPU instead
	if [ "$stem" = gemm ]; then
		echo "SKIP emu/nvcc/$stem: its emulation build takes nvcc many minutes; tools/gpu-emu-check.sh builds it"
		continue
	fi
	archs=${EMU_NVCC_ARCHS:-sm_80}
	# the emulator's mbarriers are the GPU's own, from sm_90 on (TMA copies use them too)
	if grep -qE 'mbarrier|[] ]tma[,)]' "$tile"; then archs=$(echo "$archs" | sed 's/sm_80/sm_90/'); fi
	# ptxas advises sm_90a for a multicast TMA load (.multicast::cluster is slow on some later GPUs)
	if grep -q ' multicast ' "$tile"; then archs=$(echo "$archs" | sed -E 's/sm_90( |$)/sm_90a\1/g'); fi
	for arch in $archs; do
		name=emu/nvcc/$stem/$arch
		if "$nvcc" -cubin -arch=$arch -o "$tmp/$stem.cubin" "$tmp/$stem.cu" >"$tmp/err" 2>&1 && ! grep -q . "$tmp/err"; then
			echo "PASS $name"
		else
			fail "nvcc -cubin -arch=$arch failed or warned"
			show "$tmp/err"
		fi
	done
done

# nvcc -c: the host pass over the emulator's device code as well
if [ -n "$nvcc" ] && [ "${EMU_NVCC:-1}" != 0 ]; then
	name=emu/nvcc/host_pass
	"$tilec" --target=emu examples/tmem_roundtrip.tile -o "$tmp/host.cu"
	if "$nvcc" -c -arch=sm_80 -o "$tmp/host.o" "$tmp/host.cu" >"$tmp/err" 2>&1 && ! grep -q . "$tmp/err"; then
		echo "PASS $name"
	else
		fail "nvcc -c -arch=sm_80 failed or warned"
		show "$tmp/err"
	fi
fi

# ---------------------------------------------------------------- emulation headers
name=emu/header/run
if ! "$tilec" --target=emu --emit=cuh examples/device_functions.tile -o "$tmp/device_functions.cuh" 2>"$tmp/err"; then
	fail "tilec --target=emu --emit=cuh examples/device_functions.tile failed"
	show "$tmp/err"
elif ! "$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror -pthread -I"$tmp" -o "$tmp/header_kernel" tests/emu/header_kernel.cu \
	>"$tmp/err" 2>&1; then
	fail "$cxx rejects tests/emu/header_kernel.cu with the emulation header"
	show "$tmp/err"
else
	$limit "$tmp/header_kernel" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q 'Out = A, all 8192 elements' "$tmp/out"; then
		fail "exit status $rc, or Out differs from A"
		show "$tmp/out"
	else
		echo "PASS $name"
	fi
	if [ -n "$nvcc" ] && [ "${EMU_NVCC:-1}" != 0 ]; then
		name=emu/header/nvcc
		if "$nvcc" -c -arch=sm_80 -I"$tmp" -o "$tmp/header_kernel.o" tests/emu/header_kernel.cu >"$tmp/err" 2>&1 &&
			! grep -q . "$tmp/err"; then
			echo "PASS $name"
		else
			fail "nvcc -c -arch=sm_80 of tests/emu/header_kernel.cu failed or warned"
			show "$tmp/err"
		fi
	fi
fi
# the functions called by warp 1 and warpgroup 1: their threads count within the calling unit
name=emu/header/unit-index
if ! "$tilec" --target=emu --emit=cuh tests/golden/device_unit_index.tile -o "$tmp/device_unit_index.cuh" 2>"$tmp/err"; then
	fail "tilec --target=emu --emit=cuh tests/golden/device_unit_index.tile failed"
	show "$tmp/err"
elif ! "$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror -pthread -I"$tmp" -o "$tmp/header_unit_index" \
	tests/emu/header_unit_index.cu >"$tmp/err" 2>&1; then
	fail "$cxx rejects tests/emu/header_unit_index.cu with the emulation header"
	show "$tmp/err"
else
	$limit "$tmp/header_unit_index" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q 'Out and H as expected' "$tmp/out"; then
		fail "exit status $rc, or Out or H not as expected"
		show "$tmp/out"
	else
		echo "PASS $name"
	fi
fi
name=emu/header/together
set --
for h in tests/golden/*.cuh tests/examples/*.cuh; do
	[ -f "$h" ] || continue
	# a function with a tma parameter has no emulation header (its map is the GPU's): tests/golden's
	# device_tma_emu_header.err shows the error
	grep -q 'const CUtensorMap \*' "$h" && continue
	stem=${h##*/}
	stem=${stem%.cuh}
	tile=${h%.cuh}.tile
	[ -f "$tile" ] || tile=examples/$stem.tile
	if ! "$tilec" --target=emu --emit=cuh "$tile" -o "$tmp/emu_$stem.cuh" 2>"$tmp/err"; then
		fail "tilec --target=emu --emit=cuh $tile failed"
		show "$tmp/err"
	fi
	set -- "$@" "$tmp/emu_$stem.cuh"
done
python3 tests/cuh-wrap.py "$@" >"$tmp/together.cu"
if "$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror -pthread -fsyntax-only "$tmp/together.cu" >"$tmp/err" 2>&1; then
	echo "PASS $name ($# headers)"
else
	fail "$cxx rejects $# emulation headers in one translation unit"
	show "$tmp/err"
fi
# two .tile files of one name in different directories: both headers count (the guard names the contents)
name=emu/header/same-name
mkdir -p "$tmp/a" "$tmp/b"
sed 's/\<stash\>/stash_a/g; s/\<fetch\>/fetch_a/g' examples/device_functions.tile >"$tmp/a/k.tile"
sed 's/\<stash\>/stash_b/g; s/\<fetch\>/fetch_b/g' examples/device_functions.tile >"$tmp/b/k.tile"
if (cd "$tmp/a" && "$tilec" --target=emu --emit=cuh k.tile -o ../a.cuh) 2>"$tmp/err" &&
   (cd "$tmp/b" && "$tilec" --target=emu --emit=cuh k.tile -o ../b.cuh) 2>>"$tmp/err" &&
   python3 tests/cuh-wrap.py "$tmp/a.cuh" "$tmp/b.cuh" >"$tmp/same.cu" &&
   grep -q 'fetch_b(' "$tmp/same.cu" &&
   "$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror -pthread -fsyntax-only "$tmp/same.cu" >>"$tmp/err" 2>&1; then
	echo "PASS $name"
else
	fail "the headers of a/k.tile and b/k.tile in one translation unit"
	show "$tmp/err"
fi
# two files that include one file of device functions: both headers hold them, defined once in a unit
name=emu/header/shared-include
mkdir -p "$tmp/inc"
printf '%s\n' 'layout W = S[(32, 4) : (1@laneid, 1)];' 'device twice(r: local f32[32, 4] layout W) scope warp' '{' \
	'    view rs = r.view(4, layout = default);' '    for j in 0..4 {' '        rs[j] *= 2.0;' '    }' '}' \
	>"$tmp/inc/common.tile"
for f in a b; do
	printf '%s\n' 'include "common.tile";' "device use_$f(r: local f32[32, 4] layout W) scope warp" '{' '    twice(r);' \
		'}' >"$tmp/inc/$f.tile"
done
if "$tilec" --target=emu --emit=cuh "$tmp/inc/a.tile" -o "$tmp/inc/a.cuh" 2>"$tmp/err" &&
   "$tilec" --target=emu --emit=cuh "$tmp/inc/b.tile" -o "$tmp/inc/b.cuh" 2>>"$tmp/err" &&
   python3 tests/cuh-wrap.py "$tmp/inc/a.cuh" "$tmp/inc/b.cuh" | sed '/^extern "C" __global__ void wrap_twice/,/^}/d' \
	>"$tmp/inc/ab.cu" &&
   "$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror -pthread -fsyntax-only "$tmp/inc/ab.cu" >>"$tmp/err" 2>&1; then
	echo "PASS $name"
else
	fail "the headers of two files that include one file of device functions, in one translation unit"
	show "$tmp/err"
fi
if [ -n "$nvcc" ] && [ "${EMU_NVCC:-1}" != 0 ]; then
	name=emu/header/together/nvcc
	if "$nvcc" -cubin -arch=sm_80 -o "$tmp/together.cubin" "$tmp/together.cu" >"$tmp/err" 2>&1 && ! grep -q . "$tmp/err"; then
		echo "PASS $name"
	else
		fail "nvcc -cubin -arch=sm_80 of $# emulation headers in one translation unit failed or warned"
		show "$tmp/err"
	fi
fi

# ---------------------------------------------------------------- wrong data flow, run-time traps
name=emu/cxx/index_precedence
if ! "$tilec" --target=emu tests/emu/index_precedence.tile -o "$tmp/index_precedence.cu" 2>"$tmp/err"; then
	fail "tilec --target=emu failed"
	show "$tmp/err"
elif "$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror -pthread -fsyntax-only "$tmp/index_precedence.cu" >"$tmp/err" 2>&1; then
	echo "PASS $name"
else
	fail "$cxx -x c++ -Wall -Wextra -Werror rejects the --target=emu output"
	show "$tmp/err"
fi

expect_run emu/wrong_slice 1 "wrong_slice.tile:29:9: error: thread 0 (warp 0, lane 0) of block (0, 0, 0) reads register slot 0 of 'r', which a tcgen05.ld loaded from TMEM (lane 0, column 32), a cell that nothing wrote; it holds poison (--allow-uninit makes this a warning)" \
	tests/emu/wrong_slice.tile --expect Out=A
expect_run emu/wrong_slice_allowed 1 "expect Out = A: Out[0, 0] = nan but A[0, 0] = -0.138227582 (4096 of 4096 elements differ)" \
	tests/emu/wrong_slice.tile --expect Out=A --allow-uninit
# which warp reports first varies on the CPU: the texts leave the warp out
expect_run emu/trap/unallocated 1 "lane 0, register 0: TMEM column 32 (lane " \
	tests/emu/trap_base.tile --set off=32
expect_run emu/trap/slab 1 "'s slab (lanes " \
	tests/emu/trap_base.tile --set off=2097152
expect_run emu/trap/column_512 1 "TMEM column 512 is beyond the 512 columns" \
	tests/emu/trap_base.tile --set off=512
expect_run emu/trap/dealloc_address 1 "trap_dealloc.tile:17: tcgen05.dealloc.cta_group::1: block (0, 0, 0), warp 0: tcgen05.dealloc of address 0x00000020 (lane 0, column 32): no allocation starts there" \
	tests/emu/trap_dealloc.tile --set off=32
expect_run emu/trap/dealloc_ncols 1 "tcgen05.dealloc of 64 columns at column 64, but trap_dealloc.tile:9: tcgen05.alloc.cta_group::1 allocated 32 there" \
	tests/emu/trap_dealloc.tile --set swap=1
expect_run emu/trap/dealloc_ok 0 "A: f32[128, 32]" tests/emu/trap_dealloc.tile
expect_run emu/trap/not_uniform 1 "TMEM address not uniform across the warp: lane 0 passes 0x00000000 (lane 0, column 0), lane 16 passes 0x00000020" \
	tests/emu/trap_uniform.tile
expect_run emu/trap/base_ok 0 "A: f32[128, 32]" tests/emu/trap_base.tile

# ---------------------------------------------------------------- traps the static checks shield
name=emu/direct/build
if ! "$tilec" --target=emu tests/emu/trap_base.tile -o "$tmp/direct.cu" 2>"$tmp/err"; then
	fail "tilec --target=emu tests/emu/trap_base.tile failed"
	show "$tmp/err"
else
	cat "$tmp/direct.cu" tests/emu/direct.cc >"$tmp/direct.cc"
	if ! "$cxx" -std=c++11 -Wall -Wextra -Werror -pthread -o "$tmp/direct" "$tmp/direct.cc" >"$tmp/err" 2>&1; then
		fail "$cxx rejects tests/emu/direct.cc"
		show "$tmp/err"
	else
		echo "PASS $name"
		while IFS='|' read -r case status text; do
			name=emu/direct/$case
			$limit "$tmp/direct" "${case%%-*}" >"$tmp/out" 2>&1
			rc=$?
			if [ $rc -ne "$status" ]; then
				fail "exit status $rc, expected $status"
				show "$tmp/out"
			elif ! grep -qF -- "$text" "$tmp/out"; then
				fail "no line with '$text'"
				show "$tmp/out"
			else
				echo "PASS $name"
			fi
		done <<'EOF'
0-none|0|direct 0: no trap
1-leak|70|tilec emu: kernel tl_direct: block (0, 0, 0) exits with 32 column(s) at column 0 still allocated (by direct.cc:leak: tcgen05.alloc)
2-alloc_after_relinquish|70|tcgen05.alloc after this block gave up its allocation permit (direct.cc:relinquish: tcgen05.relinquish_alloc_permit)
3-ncols_grows|70|tcgen05.alloc of 64 columns after one of 32; ncols must not grow
4-ncols_power_of_two|70|tcgen05.alloc of 48 columns; ncols must be a power of two from 32 to 512
5-read_before_wait_ld|70|tilec emu: direct.cc:pending: register 0 of 'r' read before tcgen05.wait::ld; it was loaded by direct.cc:pending: tcgen05.ld
6-half_warp|70|deadlock: 64 thread(s) wait at a barrier that can never complete (thread 0, warp 0, lane 0 waits at direct.cc:diverged: tcgen05.wait::ld)
7-write_before_wait_ld|70|register 3 of 'r' written before tcgen05.wait::ld
8-alloc_not_free|70|tcgen05.alloc of 512 columns: no 512 free consecutive columns
EOF
	fi
fi

# ---------------------------------------------------------------- the cluster model
# tests/emu/cluster.cc on the emulator of tests/golden/cluster_run.tile's output: remote shared memory and
# remote arrives in clusters of 4 x 1 (case 0) and 2 x 2 (case 2); case 1 misses one arrival: a deadlock
name=emu/cluster/build
if ! "$tilec" --target=emu tests/golden/cluster_run.tile -o "$tmp/cluster.cu" 2>"$tmp/err"; then
	fail "tilec --target=emu tests/golden/cluster_run.tile failed"
	show "$tmp/err"
else
	cat "$tmp/cluster.cu" tests/emu/cluster.cc >"$tmp/cluster.cc"
	if ! "$cxx" -std=c++11 -Wall -Wextra -Werror -pthread -o "$tmp/cluster" "$tmp/cluster.cc" >"$tmp/err" 2>&1; then
		fail "$cxx rejects tests/emu/cluster.cc"
		show "$tmp/err"
	else
		echo "PASS $name"
		for case in 0 2; do
			name=emu/cluster/$case
			if $limit "$tmp/cluster" $case >"$tmp/out" 2>&1 && grep -q "^PASS $name:" "$tmp/out"; then
				echo "PASS $name"
			else
				fail "$(head -n 3 "$tmp/out")"
			fi
		done
		name=emu/cluster/1-missing_arrival
		$limit "$tmp/cluster" 1 >"$tmp/out" 2>&1
		rc=$?
		if [ $rc -ne 70 ] || ! grep -qF "bar[0]: phase 0 (parity 0), 1 of 64 arrivals and 0 bytes pending" "$tmp/out" ||
			! grep -qF "(counted over the cluster's CTAs)" "$tmp/out"; then
			fail "exit status $rc, expected 70 and the deadlock report"
			show "$tmp/out"
		else
			echo "PASS $name"
		fi
	fi
fi

# ---------------------------------------------------------------- tilec run itself
expect_run emu/run/no_input 2 "tilec run: error: no input file"
expect_run emu/run/unknown_option 2 "unknown option '--frobnicate'" examples/tmem_roundtrip.tile --frobnicate
expect_run emu/run/unknown_kernel 2 "has no kernel 'nope'; it has tmem_roundtrip" examples/tmem_roundtrip.tile --kernel nope
expect_run emu/run/expect_unknown 2 "kernel tmem_roundtrip has no tensor parameter 'B'" examples/tmem_roundtrip.tile --expect Out=B
# a name the kernel lacks: did you mean its nearest name of that kind, else a list of them
expect_run emu/run/expect_near 2 "tilec run: note: did you mean 'Out'?" examples/tmem_roundtrip.tile --expect out=A
expect_run emu/run/set_near 2 "tilec run: note: did you mean 'scale'?" tests/golden/scalar_param.tile --set scal=2
expect_run emu/run/set_list 2 "tilec run: note: the scalar parameters of kernel scalar_param are scale, n" \
	tests/golden/scalar_param.tile --set zzz=2
expect_run emu/run/set_none 2 "tilec run: note: kernel tmem_roundtrip has no scalar parameters" \
	examples/tmem_roundtrip.tile --set n=2
expect_run emu/run/tmem_near 2 "tilec run: note: did you mean 'mem'?" examples/tmem_roundtrip.tile --tmem mme=A
expect_run emu/run/tmem_param_near 2 "tilec run: note: did you mean 'A'?" examples/tmem_roundtrip.tile --tmem mem=a
expect_run emu/run/tmem_list 2 "tilec run: note: the tmem tensors of kernel tmem_roundtrip are mem" \
	examples/tmem_roundtrip.tile --tmem accumulator=A
# --set takes nan for a float (emulator.md: inf and nan may be written as such); a value past the type's range not.
# The products with it are the GPU's canonical NaN 0x7fffffff in every element (before: the CPU's 0x7fc00000)
expect_run emu/run/set_nan 0 "Out: f32[4096] fnv64 bd706d1e8d396325: nan nan nan nan" tests/golden/scalar_param.tile \
	--set scale=nan --set n=4096
# NaN results are 0x7fffffff as on the GPU: a negation (before: the sign flipped, 0xffc00000), a product
# (before: 0x7fc00000, the operand's); abs keeps the operand's bits (0x7fc00000) on both
expect_run emu/run/nan_neg 0 "Neg: f32[128] fnv64 102e49763452dd25: nan nan nan nan" tests/emu/nan_results.tile --set s=nan
expect_run emu/run/nan_mul 0 "Mul: f32[128] fnv64 102e49763452dd25: nan nan nan nan" tests/emu/nan_results.tile --set s=nan
expect_run emu/run/nan_abs 0 "Abs: f32[128] fnv64 ef1b734eff2cb725: nan nan nan nan" tests/emu/nan_results.tile --set s=nan
# inf, -inf and nan (language.md section 12): every tensor's bits (fnv64), nan the canonical 0x7fffffff
# (0x7fff in f16 and bf16); tools/gpu-emu-check.sh compares the same run with the GPU's
name=emu/run/float_constants
run tests/golden/float_constants.tile
if [ $rc -ne 0 ]; then
	fail "exit status $rc, expected 0"
	show "$tmp/out"
else
	missing=
	for sum in "Out: f32[32, 4] fnv64 ad0e718ab3409f25: nan inf -inf nan" "H: f16[32, 2] fnv64 2e604c64444a8145:" \
		"B: bf16[32, 2] fnv64 38d55d8c02f9f165:" "I: i32[32, 4] fnv64 35879fe21082eb25: 2147483647 -2147483648 0 15"; do
		grep -qF -- "$sum" "$tmp/out" || missing="$missing '$sum'"
	done
	if [ -n "$missing" ]; then
		fail "no line with$missing"
		show "$tmp/out"
	else
		echo "PASS $name"
	fi
fi
expect_run emu/run/set_f32_range 2 "1e40 is out of range for 'scale' of type f32" tests/golden/scalar_param.tile \
	--set scale=1e40
expect_run emu/run/grid_undefined 1 "grid dimension x of kernel grid_undefined is undefined with these --set values" \
	tests/emu/grid_undefined.tile --set n=4
expect_run emu/run/grid_defined 0 "Out: i32[4] fnv64 30d77e22c5da0365: 0 1 2 3" tests/emu/grid_undefined.tile --set n=4 --set d=1
expect_run emu/run/grid_lazy_zero 0 "run grid_lazy: grid 1x2x1" tests/golden/grid_lazy.tile --kernel grid_lazy --set M=0 --set N=0
expect_run emu/run/grid_lazy 0 "run grid_lazy: grid 50x2x2" tests/golden/grid_lazy.tile --kernel grid_lazy --set M=2 --set N=3
expect_run emu/run/grid_abs 0 "run grid_abs: grid 2x2x1" tests/golden/grid_lazy.tile --kernel grid_abs --set m=4294967295
expect_run emu/run/copy_box_start 0 "expect Out = A: all 4000 elements equal" tests/golden/copy_box_start.tile \
	--kernel runtime_rows --set r0=0 --expect Out=A
expect_run emu/run/copy_box_start_shifted 0 "expect Out = A: all 4000 elements equal" tests/golden/copy_box_start.tile \
	--kernel runtime_rows --set r0=-28 --expect Out=A
expect_run emu/run/copy_constant_tile 0 "expect Out = A: all 4000 elements equal" tests/golden/copy_box_start.tile \
	--kernel constant_tile --expect Out=A
expect_run emu/run/device_copy_scope 0 "expect Out = A: all 2048 elements equal" tests/golden/device_copy_scope.tile \
	--expect Out=A
expect_run emu/run/copy_wait_join 0 "expect Out = A: all 4096 elements equal" tests/golden/copy_wait_join.tile --set n=0 \
	--expect Out=A
expect_run emu/run/param_f16 0 "Out: f32[32] fnv64 3205345a6427eb25: 2.1015625" tests/golden/param_f16.tile --set v=1.1 --set h=1.0001
expect_run emu/run/set_unknown 2 "kernel trap_dealloc has no scalar parameter 'A' (it is a tensor)" tests/emu/trap_dealloc.tile --set A=1
expect_run emu/run/input_error 1 "error:" tests/emu/direct.cc
expect_run emu/run/outside_shape 1 "trap_outside.tile:10: element [0, 200] of A is outside its shape [100, 200]" \
	tests/emu/trap_outside.tile --set M=100 --set N=200
# which of the threads 27 to 31 reports first varies: element [32] to [36]
expect_run emu/run/outside_shared 1 "trap_shared.tile:9: element [3" \
	tests/emu/trap_shared.tile --set n=5
expect_run emu/run/inside_shared 0 "Out: f32[32]" tests/emu/trap_shared.tile
# a device function's tmem arguments written as slices in place (t[1], t[2, :, :], w[:, 8:16])
expect_run emu/run/device_call_slice 0 "expect Out = A: all 1024 elements equal" tests/golden/device_call_slice.tile \
	--expect Out=A
# a warpgroup function with a layout over tx and block = 128: Out = 2 * A (checked element by element
# once; the checksum keeps it)
expect_run emu/run/device_cta_axes 0 "Out: f32[128, 8] fnv64 6bd64957c58e4e79: -0.276455164 1.91030788" \
	tests/golden/device_cta_axes.tile
# copies without a scope over laneid alone where one warp runs: that warp's scope
for k in one_warp second_warp; do
	expect_run emu/run/copy_scope_warp/$k 0 "expect Out = A: all 1024 elements equal" tests/golden/copy_scope_warp.tile \
		--kernel $k --expect Out=A
done
# copies between registers and memory in a block of 96 threads and in a two-dimensional block
expect_run emu/run/copy_block_shapes/block96 0 "expect Out = A: all 384 elements equal" \
	tests/golden/copy_block_shapes.tile --kernel block96 --expect Out=A
expect_run emu/run/copy_block_shapes/block2d 0 "expect Out2 = B: all 512 elements equal" \
	tests/golden/copy_block_shapes.tile --kernel block2d --expect Out=A --expect Out2=B
# views of global and shared tensors indexed at run time (the values checked element by element once;
# the checksum keeps them), and one read past the view's end (row[8] of an 8-wide row, an element of A
# all the same), which the emulator reports
expect_run emu/run/view_runtime_index 0 "Out: f32[4, 8] fnv64 ed8deadefb6ed830: -0.282399178 1.0998379" \
	tests/golden/view_runtime_index.tile --set n=5
expect_run emu/run/view_runtime_outside 1 "view_runtime_index.tile:21: element [8] of row (a view of A) is outside its shape [8]" \
	tests/golden/view_runtime_index.tile --set n=57
# ! && || on floats as in C; the checksums are of 1 0 1 1 0 1 1 1 and 0 0 1 0 1 0 0 1, gcc's values
expect_run emu/run/expr_float_logic/zero 0 "O: i32[8] fnv64 c1e7b38ae5dbd1d5: 1 0 1 1" \
	tests/golden/expr_float_logic.tile --set x=0 --set y=-2
expect_run emu/run/expr_float_logic/nan 0 "O: i32[8] fnv64 94ddd0fc4d0066f4: 0 0 1 0" \
	tests/golden/expr_float_logic.tile --set x=nan --set y=0
# a layout item's names are the file's, not those of the kernel that uses it
expect_run emu/run/layout_scope 0 "expect Out = A: all 64 elements equal" tests/golden/layout_scope.tile --expect Out=A
# integer operations C leaves undefined, with run-time operands (tests/emu/trap_undefined.tile)
u=tests/emu/trap_undefined.tile
ok="--set d=3 --set e=3 --set v=5"
expect_run emu/run/undefined_div_zero 1 "trap_undefined.tile:9: 5 / 0 is undefined: division by zero (thread 0 of" \
	$u --set a=5 --set e=3 --set v=5
expect_run emu/run/undefined_div_overflow 1 "trap_undefined.tile:9: -2147483648 / -1 is undefined: the quotient overflows" \
	$u --set a=-2147483648 --set d=-1
expect_run emu/run/undefined_mod_zero 1 "trap_undefined.tile:11: -2147483648 % 0 is undefined: division by zero" \
	$u --set a=-2147483648 --set d=1
expect_run emu/run/undefined_mod_overflow 1 "trap_undefined.tile:11: -2147483648 % -1 is undefined: the quotient overflows" \
	$u --set a=-2147483648 --set d=1 --set e=-1
expect_run emu/run/undefined_shl 1 "trap_undefined.tile:13: 7 << 32 is undefined: a shift count outside 0..31" \
	$u --set a=7 $ok --set s=32
expect_run emu/run/undefined_shr 1 "trap_undefined.tile:14: 7 >> -1 is undefined: a shift count outside 0..31" \
	$u --set a=7 $ok --set n=-1
expect_run emu/run/undefined_u32_div 1 "trap_undefined.tile:15: 4 / 0 is undefined: division by zero" \
	$u --set a=7 --set d=3 --set e=3 --set u=4
expect_run emu/run/undefined_u32_shr 1 "trap_undefined.tile:16: 4294967295 >> 4294967295 is undefined: a shift count" \
	$u --set a=7 $ok --set u=4294967295 --set w=4294967295
expect_run emu/run/undefined_none 0 "Out: i32[4] fnv64 5e696aa493e3103b: -3 -1 -2147483648 -1" \
	$u --set a=-7 --set d=2 --set e=2 --set s=31 --set n=31 --set u=9 --set v=2 --set w=3
# float to integer out of range, as cvt.rzi: saturated, NaN to 0, narrower types the low bits (all values
# checked: the checksums cover the elements the lines leave out)
name=emu/run/float_to_int
run tests/emu/float_to_int.tile --set x=3e9
if [ $rc -ne 0 ]; then
	fail "exit status $rc"
	show "$tmp/out"
elif ! grep -qF "I: i32[6] fnv64 c9bbee5b163875e4: 2147483647 -2147483648 0 2147483647 ..." "$tmp/out" ||
	! grep -qF "U: u32[6] fnv64 41eb3541ecf9fdb9: 3000000000 0 0 4294967295 ..." "$tmp/out" ||
	! grep -qF "B: i8[2] fnv64 0a99a607b6f60bea: -1 0" "$tmp/out" ||
	! grep -qF "H: u16[2] fnv64 4a3d077f9b55736b: 0 65535" "$tmp/out"; then
	fail "other values than cvt.rzi's"
	show "$tmp/out"
else
	echo "PASS $name"
fi
expect_run emu/run/dim_not_positive 1 "dimension 0 of A is -5 with these --set values" \
	tests/emu/trap_outside.tile --set M=-5 --set N=200
# sizes past tilec run's 2^33 bytes, and a product of dimensions past 64 bits, are refused before the run
expect_run emu/run/dim_too_large 1 "tensor A is too large with these --set values: tilec run takes at most 2^33 bytes" \
	tests/emu/trap_outside.tile --set M=65536 --set N=65536
expect_run emu/run/dim_product_overflow 1 "tensor A is too large with these --set values" \
	tests/emu/trap_outside.tile --set M=2147483647 --set N=2147483647
# &s[i] as a value: an error before the run (it gave a host address), as on the GPU routes
expect_run emu/run/shared_address_value 1 "addr_value.tile:8:29: error: '&s[...]' is written only as the operand of tcgen05.alloc" \
	tests/golden/addr_value.tile
expect_run emu/run/select_dim_large 0 "expect Out = A: all 64 elements equal" tests/emu/select_dim.tile --set n=100 --expect Out=A
expect_run emu/run/select_dim_small 0 "expect Out = A: all 10 elements equal" tests/emu/select_dim.tile --set n=10 --expect Out=A
# a copy between registers and memory where only some threads hold elements
expect_run emu/run/copy_owner_half 0 "expect Out = A: all 4096 elements equal" tests/golden/copy_owner_threads.tile \
	--kernel half_block --expect Out=A
expect_run emu/run/copy_owner_warp 0 "expect Out = A: all 256 elements equal" tests/golden/copy_owner_threads.tile \
	--kernel one_warp --expect Out=A
expect_run emu/run/copy_owner_range 0 "expect Out = A: all 384 elements equal" tests/golden/copy_owner_threads.tile \
	--kernel first_96 --expect Out=A
# per-warp registers and the branches on the warp index made one (vectorize.c)
for k in two_warps halves swapped all_loaded; do
	expect_run emu/run/perwarp_$k 0 "expect Out = A: all" tests/golden/perwarp_uniform.tile --kernel $k --expect Out=A
done
expect_run emu/run/perwarp_cleared 0 "expect Out = A: all" tests/golden/perwarp_uniform.tile --kernel cleared --set n=1 \
	--expect Out=A
expect_run emu/run/perwarp_cleared_zero 0 "Out: f32[4, 32, 8] fnv64 b93a0c83ce3b6325: 0 0 0 0" tests/golden/perwarp_uniform.tile \
	--kernel cleared --set n=0
# a copy's wait whose first read is inside an edge test goes before the test: no deadlock
expect_run emu/run/copy_wait_split 0 "expect Out = A: all 20000 elements equal" tests/golden/copy_wait_split.tile \
	--set M=200 --set N=100 --expect Out=A
# tensors without `at` in the columns tilec planned around waits that complete their accesses
expect_run emu/run/plan_pending_ld 0 "expect OC = C: all 128 elements equal" tests/golden/plan_pending_ld.tile \
	--kernel pending --expect OA=A --expect OC=C
expect_run emu/run/plan_pending_loop 0 "expect Out = A: all 128 elements equal" tests/golden/plan_pending_st.tile \
	--kernel loop --expect Out=A
expect_run emu/run/plan_copy_pending 0 "expect OC = C: all 128 elements equal" tests/golden/plan_copy_pending.tile \
	--expect OA=A --expect OC=C
expect_run emu/run/plan_other_warps 0 "expect OC = C: all 32 elements equal" tests/golden/plan_other_warps.tile \
	--kernel synced --expect OA=A --expect OC=C
# a masked copy against the same moves written element by element: at each edge, below 0, and with
# a leading dimension that leaves some rows unaligned for 16-byte accesses
for sets in "M=100 N=50 lda=53 top=-5 left=30" "M=300 N=64 lda=64 top=100 left=32" "M=7 N=9 lda=12 top=-130 left=0" \
	"M=200 N=40 lda=44 top=72 left=-20"; do
	set --
	for a in $sets; do set -- "$@" --set "$a"; done
	same_as_ref "emu/copy_edge/$(echo "$sets" | tr ' ' ',')" tests/emu/copy_edge.tile tests/emu/copy_edge_ref.tile "$@"
done
# data races (tests/golden/race_*.tile has the warnings themselves): -Werror makes them errors (exit 1),
# -Wno-race and -w turn the detection off, and a run with races still writes its --dump files
expect_run emu/run/race_werror 1 "error: data race on Out[0] in block (0, 0, 0): thread 64 writes it" \
	-Werror tests/golden/race_write_write.tile
for off in -Wno-race -w; do
	name=emu/run/race_off$off
	run $off tests/golden/race_write_write.tile
	if [ $rc -ne 0 ] || grep -q 'data race' "$tmp/out"; then
		fail "exit status $rc, or a race reported with $off"
		show "$tmp/out"
	else
		echo "PASS $name"
	fi
done
name=emu/run/race_dump
run tests/golden/race_blocks.tile --dump "$tmp/race"
if [ $rc -ne 0 ] || ! grep -q 'warning: data race on Out\[0\]' "$tmp/out" || [ ! -s "$tmp/race/1.out" ]; then
	fail "exit status $rc, no warning or no $tmp/race/1.out"
	show "$tmp/out"
else
	echo "PASS $name"
fi
expect_run emu/run/race_unknown_warning 2 "unknown warning option '-Wraces'; did you mean '-Wrace'?" \
	-Wraces tests/golden/race_write_write.tile
name=emu/run/no_compiler
CXX=/nonexistent/c++ $limit "$tilec" run examples/tmem_roundtrip.tile >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 3 ] || ! grep -qF "no C++ compiler found" "$tmp/out"; then
	fail "exit status $rc, expected 3 and 'no C++ compiler found'"
	show "$tmp/out"
else
	echo "PASS $name"
fi
# ---------------------------------------------------------------- the cache of compiled programs
# $tmp/cxx counts the compilations (its --version calls are not counted) and runs the compiler.
mkdir -p "$tmp/cache"
printf '#!/bin/sh\ncase "$1" in --version) ;; *) echo compile >>"%s/compiles" ;; esac\nexec %s "$@"\n' "$tmp" "$cxx" >"$tmp/cxx"
chmod +x "$tmp/cxx"
# cached ARGS...: tilec run ARGS with the cache in $tmp/cache and $tmp/cxx; sets rc, the output in $tmp/out
cached() {
	CXX=$tmp/cxx XDG_CACHE_HOME=$tmp/cache TILEC_CACHE=${cache_on:-1} $limit "$tilec" run "$@" >"$tmp/out" 2>&1
	rc=$?
}
compiles() {
	if [ -f "$tmp/compiles" ]; then wc -l <"$tmp/compiles" | tr -d ' '; else echo 0; fi
}
entries() {
	find "$tmp/cache/tilec" -type f 2>/dev/null | grep -c '/[0-9a-f]\{32\}$'
}
name=emu/cache/hit
run examples/tmem_roundtrip.tile --expect Out=A
cp "$tmp/out" "$tmp/uncached"
cached examples/tmem_roundtrip.tile --expect Out=A
cp "$tmp/out" "$tmp/first"
cached examples/tmem_roundtrip.tile --expect Out=A
if [ $rc -ne 0 ] || ! cmp -s "$tmp/first" "$tmp/out" || ! cmp -s "$tmp/uncached" "$tmp/out"; then
	fail "exit status $rc, or the cached run printed something else than the first and an uncached one"
	show "$tmp/out"
elif [ "$(compiles)" != 1 ] || [ "$(entries)" != 1 ]; then
	fail "$(compiles) compilations and $(entries) cache entries after two runs of one program, expected 1 and 1"
else
	echo "PASS $name"
fi
name=emu/cache/no_cache
cached examples/tmem_roundtrip.tile --expect Out=A --no-cache
n1=$(compiles)
cache_on=0 cached examples/tmem_roundtrip.tile --expect Out=A
if [ $rc -ne 0 ] || [ "$n1" != 2 ] || [ "$(compiles)" != 3 ]; then
	fail "exit status $rc; --no-cache and TILEC_CACHE=0 gave $n1 and $(compiles) compilations in all, expected 2 and 3"
else
	echo "PASS $name"
fi
name=emu/cache/key
cached tests/golden/scalar_param.tile --set scale=2
cached tests/golden/scalar_param.tile --set scale=3
cached tests/golden/scalar_param.tile --set scale=2
if [ $rc -ne 0 ] || [ "$(compiles)" != 5 ] || [ "$(entries)" != 3 ]; then
	fail "exit status $rc; $(compiles) compilations and $(entries) entries, expected 5 and 3 (two --set values)"
else
	echo "PASS $name"
fi
name=emu/cache/bounded
TILEC_CACHE_SIZE=0 cached examples/column_slice.tile
if [ $rc -ne 0 ] || [ "$(entries)" != 0 ]; then
	fail "exit status $rc; $(entries) entries left with TILEC_CACHE_SIZE=0"
else
	echo "PASS $name"
fi
name=emu/cache/concurrent
rm -rf "$tmp/cache/tilec"
for i in 1 2 3 4; do
	CXX=$tmp/cxx XDG_CACHE_HOME=$tmp/cache TILEC_CACHE=1 $limit "$tilec" run examples/tmem_roundtrip.tile --expect Out=A \
		>"$tmp/par$i" 2>&1 &
done
wait
same=1
for i in 2 3 4; do cmp -s "$tmp/par1" "$tmp/par$i" || same=0; done
if [ $same = 0 ] || ! grep -q 'expect Out = A: all' "$tmp/par1"; then
	fail "four runs at once on an empty cache printed different things or failed"
	show "$tmp/par1"
elif [ "$(entries)" != 1 ] || [ -n "$(find "$tmp/cache/tilec" -name '.tmp-*')" ]; then
	fail "$(entries) entries (expected 1) or a staging file left behind"
else
	echo "PASS $name"
fi

name=emu/run/deterministic
run examples/column_slice.tile --seed 7
cp "$tmp/out" "$tmp/first"
run examples/column_slice.tile --seed 7
if ! cmp -s "$tmp/first" "$tmp/out"; then
	fail "two runs with --seed 7 printed different things"
elif ! grep -q 'seed 7' "$tmp/out"; then
	fail "no 'seed 7' in the output"
	show "$tmp/out"
else
	echo "PASS $name"
fi
name=emu/run/emu_deterministic
"$tilec" --target=emu examples/tmem_roundtrip.tile -o "$tmp/a.cu" && "$tilec" --target=emu examples/tmem_roundtrip.tile -o "$tmp/b.cu"
if cmp -s "$tmp/a.cu" "$tmp/b.cu" && ! grep -q 'asm[^"]*"tcgen05' "$tmp/a.cu"; then
	echo "PASS $name"
else
	fail "--target=emu output differs between two runs or contains a tcgen05 instruction"
fi
exit $failed
