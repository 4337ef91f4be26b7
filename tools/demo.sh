#!/bin/sh
# demo.sh TILEC: what `make demo` shows. Compiles examples/tmem_roundtrip.tile to CUDA C and to a
# .cubin in build/demo/, and prints what came out: the files, the tcgen05 instructions of the
# CUDA C, and the LDTM/STTM count of the machine code when cuobjdump or nvdisasm is there; then
# runs the kernel on the CPU emulator (tilec run, docs/emulator.md) and checks Out = A.
# Each step is one numbered block; later steps (running the kernel) go at the end.
set -u
cd "$(dirname "$0")/.." || exit 2
tilec=$1
example=examples/tmem_roundtrip.tile
out=build/demo
mkdir -p "$out"
rm -f "$out/tmem_roundtrip.cu" "$out/tmem_roundtrip.cubin"

echo "== 1. CUDA C: $tilec $example -o $out/tmem_roundtrip.cu"
"$tilec" "$example" -o "$out/tmem_roundtrip.cu" || exit 1
echo "   $(wc -c <"$out/tmem_roundtrip.cu") bytes; tcgen05 instructions (count, opcode):"
grep -v '^[[:space:]]*//' "$out/tmem_roundtrip.cu" | grep -o 'tcgen05.[a-z0-9_:.]*[a-z0-9_]' | sort | uniq -c | sed 's/^ */     /'

echo "== 2. cubin: $tilec $example -o $out/tmem_roundtrip.cubin"
"$tilec" "$example" -o "$out/tmem_roundtrip.cubin"
rc=$?
if [ $rc -eq 3 ]; then
	echo "   skipped: tilec could not run the CUDA toolkit (exit status 3; set CUDA_HOME)"
elif [ $rc -ne 0 ]; then
	exit 1
else
	echo "   $(wc -c <"$out/tmem_roundtrip.cubin") bytes"
	# cuobjdump or nvdisasm: beside nvcc, else on PATH.
	nvcc=$(sh tools/find-nvcc.sh) || nvcc=/nonexistent/nvcc
	sass=
	for tool in "${nvcc%/*}/cuobjdump" "${nvcc%/*}/nvdisasm" cuobjdump nvdisasm; do
		command -v "$tool" >/dev/null 2>&1 || continue
		case $tool in
		*cuobjdump) sass=$("$tool" -sass "$out/tmem_roundtrip.cubin") ;;
		*) sass=$("$tool" "$out/tmem_roundtrip.cubin") ;;
		esac
		break
	done
	if [ -n "$sass" ]; then
		echo "   SASS: $(printf '%s\n' "$sass" | grep -c 'LDTM') LDTM lines, $(printf '%s\n' "$sass" | grep -c 'STTM') STTM lines"
	else
		echo "   (no cuobjdump or nvdisasm found: SASS not shown)"
	fi
fi

echo "== 3. run on the CPU, tensor memory emulated: $tilec run $example --expect Out=A"
"$tilec" run "$example" --expect Out=A >"$out/run.txt" 2>&1
rc=$?
sed 's/^/   /' "$out/run.txt"
if [ $rc -eq 3 ]; then
	echo "   skipped: no C++ compiler (exit status 3; set CXX)"
elif [ $rc -ne 0 ]; then
	exit 1
fi
