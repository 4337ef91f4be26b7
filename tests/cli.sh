#!/bin/sh
# cli.sh TILEC: tests of the tilec command line against LANGUAGE.md section 9, one PASS/FAIL
# line each. Where the contract does not fix a message's wording, only the exit status and a
# non-empty stderr are checked. Exits 1 when a test failed.
runner=cli
. "$(dirname "$0")/runner.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if command -v timeout >/dev/null 2>&1; then limit='timeout 120'; else limit=; fi
example=examples/tmem_roundtrip.tile
unset NO_COLOR
esc=$(printf '\033')
failed=0

pass() {
	echo "PASS cli/$1"
}

# fail NAME WHY: a FAIL line, then the head of the last run's stderr, indented.
fail() {
	echo "FAIL cli/$1: $2"
	if [ -s "$tmp/err" ]; then
		head -n 10 "$tmp/err" | sed 's/^/    stderr: /'
	fi
	failed=1
}

# run ARGS...: runs tilec, stdout into $tmp/out and stderr into $tmp/err; sets rc.
run() {
	$limit "$tilec" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# status NAME WANT ARGS...: runs tilec; true when its exit status matches the case pattern WANT.
status() {
	name=$1 want=$2
	shift 2
	run "$@"
	# shellcheck disable=SC2254 # WANT is a pattern
	case $rc in
	$want) return 0 ;;
	esac
	fail "$name" "tilec $* exited with status $rc, expected $want"
	return 1
}

# has NAME FILE WHY: true when FILE is not empty; else a FAIL line saying WHY.
has() {
	[ -s "$2" ] && return 0
	fail "$1" "$3"
	return 1
}

# lacks NAME FILE: true when FILE does not exist; else a FAIL line.
lacks() {
	[ ! -e "$2" ] && return 0
	fail "$1" "a failed run left ${2##*/} behind"
	return 1
}

# plain NAME FILE: true when FILE has no escape byte; else a FAIL line.
plain() {
	grep -q "$esc" "$2" || return 0
	fail "$1" "escape bytes in the diagnostics"
	return 1
}

# An input with a syntax error.
cat >"$tmp/bad.tile" <<'TILE'
kernel broken(A: f32[32]) launch(grid = 1, block = 32)
{
    let x = ;
}
TILE

# An input that includes a file from an -I directory.
mkdir "$tmp/inc"
echo 'const CLI_TEST_UNUSED = 1;' >"$tmp/inc/cli_defs.tile"
{ echo 'include "cli_defs.tile";'; cat "$example"; } >"$tmp/with_include.tile"

# A CUDA installation whose nvcc and ptxas always fail.
mkdir -p "$tmp/cuda/bin"
for tool in nvcc ptxas; do
	printf '#!/bin/sh\necho "fake %s: failing" >&2\nexit 1\n' "$tool" >"$tmp/cuda/bin/$tool"
	chmod +x "$tmp/cuda/bin/$tool"
done

status help 0 --help && has help "$tmp/out" "--help printed nothing on stdout" && pass help
status version 0 --version && has version "$tmp/out" "--version printed nothing on stdout" && pass version
status no-input 2 && has no-input "$tmp/err" "no message on stderr" && pass no-input
status unknown-option 2 --no-such-option "$example" -o - &&
	has unknown-option "$tmp/err" "no message on stderr" && pass unknown-option
status bad-emit 2 --emit=nonsense "$example" -o - && has bad-emit "$tmp/err" "no message on stderr" &&
	pass bad-emit

for arch in sm_90a sm_100; do
	if status "bad-arch-$arch" 2 "-arch=$arch" "$example" -o -; then
		lines=$(wc -l <"$tmp/err")
		if [ "$lines" -eq 1 ]; then
			pass "bad-arch-$arch"
		else
			fail "bad-arch-$arch" "$lines lines on stderr, expected exactly 1"
		fi
	fi
done

# The architectures as --help lists them from src/isa.c's table; each compiles, and the docs name each.
archs=$("$tilec" --help | sed -n 's/^  -arch=ARCH *//p' | sed 's/ (default)//; s/,//g')
if [ "$(echo "$archs" | wc -w)" -lt 6 ]; then
	fail help-archs "--help lists fewer than six architectures: '$archs'"
else
	pass help-archs
fi
for arch in $archs; do
	status "arch-$arch" 0 "-arch=$arch" "$example" -o - &&
		has "arch-$arch" "$tmp/out" "nothing on stdout" && pass "arch-$arch"
	if grep -q "\`$arch\`" docs/command.md && grep -q "^\.Cm $arch" docs/tilec.1; then
		pass "arch-docs-$arch"
	else
		fail "arch-docs-$arch" "docs/command.md or docs/tilec.1 does not name $arch"
	fi
done

if status missing-file '[12]' "$tmp/no_such_file.tile" -o -; then
	if grep -q no_such_file "$tmp/err"; then
		pass missing-file
	else
		fail missing-file "the message does not name the file"
	fi
fi

# -o FILE.cu writes what -o - prints; twice the same.
if status output-file 0 "$example" -o "$tmp/out1.cu" && status output-file 0 "$example" -o -; then
	if [ ! -s "$tmp/out1.cu" ]; then
		fail output-file "-o $tmp/out1.cu wrote nothing"
	elif ! cmp -s "$tmp/out1.cu" "$tmp/out"; then
		fail output-file "-o FILE.cu and -o - differ"
	else
		pass output-file
	fi
fi
if status deterministic 0 "$example" -o "$tmp/out2.cu"; then
	if cmp -s "$tmp/out1.cu" "$tmp/out2.cu"; then
		pass deterministic
	else
		fail deterministic "two runs wrote different files"
	fi
fi

status emit-cu 0 --emit=cu "$example" -o - && has emit-cu "$tmp/out" "nothing on stdout" && pass emit-cu
# the kind comes from the -o extension in any case: k.PTX is PTX (was CUDA C), k.Cu CUDA C, k.IR the ir
for pair in k.PTX:ptx k.Cu:cu k.IR:ir; do
	file=${pair%:*} kind=${pair#*:}
	if status "output-ext-case-$kind" 0 --emit=$kind "$example" -o - && cp "$tmp/out" "$tmp/case.want" &&
		status "output-ext-case-$kind" 0 "$example" -o "$tmp/$file"; then
		if cmp -s "$tmp/$file" "$tmp/case.want"; then
			pass "output-ext-case-$kind"
		else
			fail "output-ext-case-$kind" "-o $file differs from --emit=$kind -o -"
		fi
	fi
done
# an -o extension that names no kind is refused, and nothing is written (-o k.svg without --draw wrote
# CUDA C into k.svg; ../shared/repro/robustness3/09); --emit names the kind of any file name
for file in k.svg k.txt k; do
	case $file in
	*.svg) said='an SVG picture is written only by --draw' ;;
	*.*) said='unknown output kind' ;;
	*) said='no extension to name the output kind' ;;
	esac
	if status "output-ext-unknown-$file" 2 "$example" -o "$tmp/$file" && lacks "output-ext-unknown-$file" "$tmp/$file"; then
		if grep -qF "tilec: error: -o $tmp/$file: $said" "$tmp/err"; then pass "output-ext-unknown-$file"
		else fail "output-ext-unknown-$file" "the message does not say '$said'"; fi
	fi
done
status output-ext-emit 0 --emit=cu "$example" -o "$tmp/k.txt" && grep -q '__global__' "$tmp/k.txt" && pass output-ext-emit
status emit-tokens 0 --emit=tokens "$example" -o - &&
	has emit-tokens "$tmp/out" "nothing on stdout" && pass emit-tokens
status emit-ast 0 --emit=ast "$example" -o - && has emit-ast "$tmp/out" "nothing on stdout" && pass emit-ast

# --emit=ir: the lowered program, the same as -o FILE.ir writes and the same for every target; a
# program with an error writes no .ir.
if status emit-ir 0 --emit=ir "$example" -o - && has emit-ir "$tmp/out" "nothing on stdout"; then
	if grep -q '^kernel tmem_roundtrip ' "$tmp/out" && grep -q 'tcgen05.wait::ld.sync.aligned' "$tmp/out"; then
		pass emit-ir
	else
		fail emit-ir "no kernel line or no tcgen05.wait::ld in the lowered program"
	fi
	cp "$tmp/out" "$tmp/ir.want"
	if status emit-ir-file 0 "$example" -o "$tmp/k.ir"; then
		if cmp -s "$tmp/k.ir" "$tmp/ir.want"; then
			pass emit-ir-file
		else
			fail emit-ir-file "-o FILE.ir differs from --emit=ir -o -"
		fi
	fi
	if status emit-ir-emu 0 --target=emu --emit=ir "$example" -o - && cmp -s "$tmp/out" "$tmp/ir.want"; then
		pass emit-ir-emu
	else
		fail emit-ir-emu "--target=emu changes the lowered program"
	fi
fi
printf 'kernel bad() launch(grid = 1, block = 32)\n{\n    x = 1;\n}\n' >"$tmp/bad.tile"
if status emit-ir-error 1 --emit=ir "$tmp/bad.tile" -o "$tmp/bad.ir"; then
	if [ -e "$tmp/bad.ir" ]; then
		fail emit-ir-error "an .ir was written for a program with an error"
	else
		pass emit-ir-error
	fi
fi
# --emit=cuh: the device functions as a header, the same as -o FILE.cuh writes; no kernels, no extern
# "C"; a guard named after the .tile file; a program with an error or without device functions.
dev=examples/device_functions.tile
if status emit-cuh 0 --emit=cuh "$dev" -o - && has emit-cuh "$tmp/out" "nothing on stdout"; then
	if ! grep -q '^#ifndef TILEC_DEVICE_FUNCTIONS_TILE_[0-9A-F]\{16\}_CUH$' "$tmp/out"; then
		fail emit-cuh "no include guard TILEC_DEVICE_FUNCTIONS_TILE_<hash>_CUH"
	elif grep -q 'extern "C"\|__global__' "$tmp/out"; then
		fail emit-cuh "a kernel or an extern \"C\" entry in the header"
	elif ! grep -q '^static __device__ __forceinline__ void stash(uint32_t acc, uint32_t (&r)\[32\])$' "$tmp/out"; then
		fail emit-cuh "no 'stash(uint32_t acc, uint32_t (&r)[32])' in the header"
	else
		pass emit-cuh
	fi
	cp "$tmp/out" "$tmp/cuh.want"
	if status emit-cuh-file 0 "$dev" -o "$tmp/dev.cuh" && cmp -s "$tmp/dev.cuh" "$tmp/cuh.want"; then
		pass emit-cuh-file
	else
		fail emit-cuh-file "-o FILE.cuh differs from --emit=cuh -o -"
	fi
	if status emit-cuh-cu 0 "$dev" -o "$tmp/dev.cu" && grep -q '^static __device__ __forceinline__ void stash(' "$tmp/dev.cu" &&
		grep -q '^	stash(address\[0\] + 32u, x);$' "$tmp/dev.cu"; then
		pass emit-cuh-cu
	else
		fail emit-cuh-cu "the .cu has no device function stash above its kernel, or no call of it"
	fi
fi
# The PTX inlines a device function's body: its copy to a global tensor parameter stores into the
# caller's argument (B, tl_param_1), not into the kernel's first tensor.
if status ptx-device-global 0 --emit=ptx tests/golden/device_global_copy.tile -o - &&
	grep -q 'ld\.param\.u64 %rd[0-9]*, \[tl_param_1\];' "$tmp/out"; then
	pass ptx-device-global
else
	fail ptx-device-global "the PTX never loads B's address (tl_param_1): the inlined copy stores elsewhere"
fi
printf 'device f(v: f32) scope warp\n{\n    x = v;\n}\n' >"$tmp/baddev.tile"
status emit-cuh-error 1 --emit=cuh "$tmp/baddev.tile" -o "$tmp/baddev.cuh" && lacks emit-cuh-error "$tmp/baddev.cuh" &&
	pass emit-cuh-error
status emit-cuh-error-ext 1 "$tmp/baddev.tile" -o "$tmp/baddev2.cuh" && lacks emit-cuh-error-ext "$tmp/baddev2.cuh" &&
	pass emit-cuh-error-ext
if status emit-cuh-empty 0 --emit=cuh "$example" -o "$tmp/none.cuh" && grep -q 'declares no device function' "$tmp/err"; then
	pass emit-cuh-empty
else
	fail emit-cuh-empty "no warning that the header is empty"
fi
if status emit-cuh-emu 0 --target=emu --emit=cuh "$dev" -o "$tmp/dev_emu.cuh" &&
	grep -q '^#define TILEC_EMU_HEADER 1$' "$tmp/dev_emu.cuh" &&
	grep -q '^static __device__ __forceinline__ void stash(uint32_t acc, uint32_t (&r)\[32\])$' "$tmp/dev_emu.cuh" &&
	! grep -q '^extern "C"' "$tmp/dev_emu.cuh"; then
	pass emit-cuh-emu
else
	fail emit-cuh-emu "--target=emu --emit=cuh: no TILEC_EMU_HEADER, no stash with the signature of the cuda header, or a kernel"
fi
status werror-clean 0 -Werror "$example" -o - && pass werror-clean
status no-warnings 0 -w "$example" -o - && pass no-warnings

# Errors in the input: exit 1, a diagnostic, no output file.
status error-exit 1 "$tmp/bad.tile" -o "$tmp/bad.cu" && has error-exit "$tmp/err" "no diagnostic" &&
	lacks error-exit "$tmp/bad.cu" && pass error-exit
status error-no-cubin 1 "$tmp/bad.tile" -o "$tmp/bad.cubin" && lacks error-no-cubin "$tmp/bad.cubin" &&
	pass error-no-cubin
status error-no-depfile 1 -MD -MF "$tmp/bad.d" "$tmp/bad.tile" -o "$tmp/bad2.cu" &&
	lacks error-no-depfile "$tmp/bad2.cu" && lacks error-no-depfile "$tmp/bad.d" && pass error-no-depfile
# a depfile that cannot be written (a directory): nothing is written, the output neither
mkdir -p "$tmp/depdir"
status depfile-is-dir 1 -MD -MF "$tmp/depdir" "$example" -o "$tmp/depdir.cu" &&
	has depfile-is-dir "$tmp/err" "no diagnostic" && lacks depfile-is-dir "$tmp/depdir.cu" && pass depfile-is-dir

# --print-image of a store with unpack says where the bits go: to the cells.
status print-image-unpack 0 --print-image tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32 &&
	if head -n 1 "$tmp/out" | grep -q 'bits 0\.\.15 to cell low, 16\.\.31 to cell high'; then
	pass print-image-unpack
else
	fail print-image-unpack "the header does not say 'bits 0..15 to cell low'"
fi
status print-image-pack 0 --print-image tcgen05.ld.sync.aligned.32x32b.x1.pack::16b.b32 &&
	if head -n 1 "$tmp/out" | grep -q 'bits 0\.\.15 from cell low, 16\.\.31 from cell high'; then
	pass print-image-pack
else
	fail print-image-pack "the header does not say 'bits 0..15 from cell low'"
fi

# Named warnings: shown as [-WNAME], each turned off with -Wno-NAME or into an error with -Werror=NAME.
echo 'const ONLY_A_CONST = 1;' >"$tmp/nokernel.tile"
status warn-name 0 "$tmp/nokernel.tile" -o - && if grep -q 'warning: .*declares no kernel.* \[-Wempty-output\]$' "$tmp/err"; then
	pass warn-name
else
	fail warn-name "the warning does not end in [-Wempty-output]"
fi
status warn-off 0 -Wno-empty-output "$tmp/nokernel.tile" -o - && if [ -s "$tmp/err" ]; then
	fail warn-off "-Wno-empty-output still printed something"
else
	pass warn-off
fi
status warn-error-name 1 -Werror=empty-output "$tmp/nokernel.tile" -o "$tmp/nokernel.cu" &&
	lacks warn-error-name "$tmp/nokernel.cu" && if grep -q 'error: .* \[-Werror=empty-output\]$' "$tmp/err"; then
	pass warn-error-name
else
	fail warn-error-name "no error ending in [-Werror=empty-output]"
fi
status warn-no-error 0 -Werror -Wno-error=empty-output "$tmp/nokernel.tile" -o - &&
	if grep -q 'warning: .*\[-Wempty-output\]$' "$tmp/err"; then
	pass warn-no-error
else
	fail warn-no-error "-Wno-error=empty-output did not keep the warning a warning"
fi
# a file whose items all come from an include is warned about at its own first line
printf 'include "nokernel.tile";\n' >"$tmp/onlyinclude.tile"
status warn-include-place 0 "$tmp/onlyinclude.tile" -o - &&
	if head -n 1 "$tmp/err" | grep -q 'onlyinclude\.tile:1:1: warning: .*declares no kernel'; then
	pass warn-include-place
else
	fail warn-include-place "the warning does not point at the compiled file's first line"
fi
# a chain of includes: 200 files deep are read, 3000 are refused at the 201st (not a stack overflow)
mkdir "$tmp/chain"
awk -v d="$tmp/chain" 'BEGIN { for (i = 1; i < 3000; i++) printf "include \"c%d.tile\";\n", i + 1 >(d "/c" i ".tile")
	print "kernel k(A: f32[4]) launch(grid = 1, block = 32) { A[0] = 1.0; }" >(d "/c3000.tile") }'
status include-depth-200 0 "$tmp/chain/c2801.tile" -o "$tmp/chain200.cu" && pass include-depth-200
status include-depth-3000 1 "$tmp/chain/c1.tile" -o "$tmp/chain3000.cu" && lacks include-depth-3000 "$tmp/chain3000.cu" &&
	if grep -q '^.*c200\.tile:1:1: error: includes nested more than 200 deep$' "$tmp/err"; then
	pass include-depth-3000
else
	fail include-depth-3000 "no error at the 201st include"
fi
status warn-werror-all 1 -Werror "$tmp/nokernel.tile" -o - && pass warn-werror-all
status warn-unknown 2 -Wempty-outptu "$tmp/nokernel.tile" -o - && if grep -q "did you mean '-Wempty-output'" "$tmp/err"; then
	pass warn-unknown
else
	fail warn-unknown "no suggestion for a misspelt warning option"
fi

# Input from standard input is <stdin> in the messages.
$limit "$tilec" - -o - <"$tmp/bad.tile" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 1 ]; then
	fail stdin-name "exit status $rc, expected 1"
elif grep -q '^<stdin>:3:' "$tmp/err"; then
	pass stdin-name
else
	fail stdin-name "the diagnostic does not start with <stdin>:3:"
fi

# A failed run writes nothing: an output from an earlier run stays as it was (make sees it older
# than the input and runs tilec again).
echo 'an earlier output' >"$tmp/prev.cu"
status keeps-previous 1 "$tmp/bad.tile" -o "$tmp/prev.cu" &&
	if [ "$(cat "$tmp/prev.cu")" = 'an earlier output' ]; then
	pass keeps-previous
else
	fail keeps-previous "a failed run changed the earlier output"
fi

# No colour when stderr is not a terminal, nor with NO_COLOR set, even on a terminal.
status no-color-pipe 1 "$tmp/bad.tile" -o - && plain no-color-pipe "$tmp/err" && pass no-color-pipe
NO_COLOR=1
export NO_COLOR
status no-color-env 1 "$tmp/bad.tile" -o - && plain no-color-env "$tmp/err" && pass no-color-env
if command -v script >/dev/null 2>&1; then
	script -qec "'$tilec' '$tmp/bad.tile' -o -" /dev/null >"$tmp/tty" 2>&1 </dev/null
	rc=$?
	cp "$tmp/tty" "$tmp/err"
	if [ $rc -ne 1 ]; then
		fail no-color-tty "exit status $rc on a terminal, expected 1"
	elif ! grep -q 'error' "$tmp/tty"; then
		fail no-color-tty "no diagnostic on the terminal"
	elif grep -q -e Sanitizer -e 'runtime error' "$tmp/tty"; then
		fail no-color-tty "a sanitizer report on the terminal"
	else
		plain no-color-tty "$tmp/tty" && pass no-color-tty
	fi
else
	echo "SKIP cli/no-color-tty: script(1) is not installed"
fi
unset NO_COLOR

# Includes, -I and make dependencies.
status include-dir 0 -I "$tmp/inc" "$tmp/with_include.tile" -o - && pass include-dir
if status depfile 0 -I "$tmp/inc" -MD -MF "$tmp/dep.d" -MP "$tmp/with_include.tile" -o "$tmp/dep.cu"; then
	if [ ! -s "$tmp/dep.d" ]; then
		fail depfile "-MF wrote nothing"
	elif ! grep -q "dep\.cu *:" "$tmp/dep.d"; then
		fail depfile "no rule for the output dep.cu"
	elif ! grep -q "with_include\.tile" "$tmp/dep.d" || ! grep -q "cli_defs\.tile" "$tmp/dep.d"; then
		fail depfile "the input and the included file are not both listed"
	elif ! grep -q "cli_defs\.tile *:" "$tmp/dep.d"; then
		fail depfile "-MP gave no phony target for cli_defs.tile"
	else
		pass depfile
	fi
fi
if status depfile-target 0 -MD -MF "$tmp/dep2.d" -MT custom-target "$example" -o "$tmp/dep2.cu"; then
	if grep -q "^custom-target *:" "$tmp/dep2.d"; then
		pass depfile-target
	else
		fail depfile-target "-MT custom-target is not the rule's target"
	fi
fi
# several -MT: the rule has every target, in order, as gcc's
if status depfile-targets 0 -MD -MF "$tmp/dep3.d" -MT first -MT 'second third' "$example" -o "$tmp/dep3.cu"; then
	if grep -q "^first second third *:" "$tmp/dep3.d"; then
		pass depfile-targets
	else
		fail depfile-targets "-MT first -MT 'second third' did not give the rule 'first second third:'"
	fi
fi

# -MD with -o -: the rule is for ./NAME.cu, the file tilec writes without -o, in ./NAME.d.
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && $limit "$tilec" -I "$tmp/inc" -MD "$tmp/with_include.tile" -o - >"$tmp/out" 2>"$tmp/err")
rc=$?
if [ $rc -ne 0 ]; then
	fail depfile-stdout "exit status $rc, expected 0"
elif [ ! -s "$tmp/cwd/with_include.d" ]; then
	fail depfile-stdout "no ./with_include.d in the current directory"
elif ! grep -q '^with_include\.cu: ' "$tmp/cwd/with_include.d" || ! grep -q 'cli_defs\.tile' "$tmp/cwd/with_include.d"; then
	fail depfile-stdout "the rule is not 'with_include.cu: ...' with the include"
else
	pass depfile-stdout
fi

# An absolute -I and a relative one give the same files: the generated code names no directory (only
# the base name of the .tile file). Messages name an included file as the -I directory joined to the
# include's text, as written, one slash between (-I DIR/ too): as the user can find it.
mkdir "$tmp/absinc" "$tmp/absinc/lib"
cp examples/device_functions.tile "$tmp/absinc/lib/"
echo 'include "device_functions.tile";' >"$tmp/absinc/main.tile"
for kind in cu cuh ptx ir emu; do
	emit=--emit=$kind
	[ $kind = emu ] && emit="--target=emu --emit=cu"
	# shellcheck disable=SC2086 # emit is one or two options
	(cd "$tmp/absinc" && $limit "$tilec" $emit -I "$tmp/absinc/lib/" main.tile -o "$tmp/abs.$kind" 2>"$tmp/err" &&
		$limit "$tilec" $emit -I lib main.tile -o "$tmp/rel.$kind" 2>>"$tmp/err")
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "include-abs-$kind" "exit status $rc, expected 0"
	elif ! cmp -s "$tmp/abs.$kind" "$tmp/rel.$kind"; then
		fail "include-abs-$kind" "-I $tmp/absinc/lib/ and -I lib give different files"
	elif grep -q "$tmp" "$tmp/abs.$kind"; then
		fail "include-abs-$kind" "the output names the directory $tmp"
	else
		pass "include-abs-$kind"
	fi
done
echo 'const X = nosuch;' >"$tmp/absinc/lib/bad.tile"
echo 'include "bad.tile";' >"$tmp/absinc/bad_main.tile"
for pair in "abs-slash:$tmp/absinc/lib/" "abs:$tmp/absinc/lib" rel-slash:lib/ rel-slashes:lib//; do
	name=include-dir-message-${pair%%:*} dir=${pair#*:}
	want=${dir%%/}
	want=${want%/}/bad.tile:1:11
	(cd "$tmp/absinc" && $limit "$tilec" -I "$dir" bad_main.tile -o - >/dev/null 2>"$tmp/err")
	case $(head -n 1 "$tmp/err") in
	"$want: error: unknown name 'nosuch'") pass "$name" ;;
	*) fail "$name" "the message is not at $want" ;;
	esac
done

# External tools: a failing nvcc/ptxas is exit status 3 and leaves no output behind.
saved_cuda_home=${CUDA_HOME-}
CUDA_HOME=$tmp/cuda
export CUDA_HOME
status tool-fails 3 "$example" -o "$tmp/fake.cubin" &&
	has tool-fails "$tmp/err" "no message" && lacks tool-fails "$tmp/fake.cubin" && pass tool-fails
if [ -n "$saved_cuda_home" ]; then CUDA_HOME=$saved_cuda_home; else unset CUDA_HOME; fi
if sh tools/find-nvcc.sh >/dev/null; then
	if status cubin 0 "$example" -o "$tmp/x.cubin"; then
		if [ "$(head -c 4 "$tmp/x.cubin" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			pass cubin
		else
			fail cubin "x.cubin is not an ELF file"
		fi
	fi
	status emit-ptx 0 --emit=ptx "$example" -o - && if grep -q '^\.version' "$tmp/out"; then
		pass emit-ptx
	else
		fail emit-ptx "no .version line in the output"
	fi
	# -Xptxas: options reach ptxas (-v shows the registers); without -v ptxas's info stays quiet
	status cubin-quiet 0 "$example" -o "$tmp/q.cubin" && if [ -s "$tmp/err" ]; then
		fail cubin-quiet "stderr is not empty without -Xptxas -v"
	else
		pass cubin-quiet
	fi
	for route in ptx nvcc; do
		via=
		[ $route = nvcc ] && via=--via=nvcc
		status "xptxas-v-$route" 0 $via -Xptxas -v "$example" -o "$tmp/v.cubin" &&
			if grep -q 'Used [0-9]* registers' "$tmp/err"; then
				pass "xptxas-v-$route"
			else
				fail "xptxas-v-$route" "no 'Used N registers' from ptxas -v"
			fi
	done
	status xptxas-list 0 -Xptxas=-v,-O3 "$example" -o "$tmp/v.cubin" &&
		has xptxas-list "$tmp/err" "-Xptxas=-v,-O3 did not reach ptxas as -v" && pass xptxas-list
	status xptxas-no-arg 2 "$example" -o "$tmp/v.cubin" -Xptxas &&
		has xptxas-no-arg "$tmp/err" "no message" && pass xptxas-no-arg
	# a kernel that spills: 1024 threads leave 64 registers each, and 64 values live across the barrier
	cat >"$tmp/spill.tile" <<'TILE'
layout REG = S[(1024, 64) : (1@tx, 1)];

kernel reverse_rows(A: f32[1024, 64]) launch(grid = 1, block = 1024)
{
    let tid = thread_idx.x;
    local row: f32[1024, 64] layout REG;
    view v = row.view(64, layout = default);
    for j in 0..64 {
        v[j] = A[tid, j];
    }
    cta_sync;
    for j in 0..64 {
        A[1023 - tid, j] = v[63 - j];
    }
}
TILE
	for route in ptx nvcc; do
		via=
		[ $route = nvcc ] && via=--via=nvcc
		status "spill-warning-$route" 0 $via "$tmp/spill.tile" -o "$tmp/s.cubin" &&
			if grep -q "spill.tile:3:1: warning: ptxas spills registers in kernel 'reverse_rows'" "$tmp/err"; then
				pass "spill-warning-$route"
			else
				fail "spill-warning-$route" "no spill warning at the kernel's line"
			fi
	done
	status spill-werror 1 -Werror "$tmp/spill.tile" -o "$tmp/werror.cubin" &&
		lacks spill-werror "$tmp/werror.cubin" && pass spill-werror
else
	echo "SKIP cli/cubin: no nvcc"
	echo "SKIP cli/emit-ptx: no nvcc"
	echo "SKIP cli/xptxas: no nvcc"
fi

# TMEM planning: the seed program without its allocation (examples/tmem_auto.tile) compiles to the
# instructions of the written one, relinquish_alloc_permit moved up to right after the alloc; both
# emitters. Register names are left out of the comparison.
# instrs FILE: the tcgen05 instructions of a .cu or .ptx (not its comments), one a line, relinquish first.
instrs() {
	grep -v '^[[:space:]]*//' "$1" | grep -o 'tcgen05\.[a-z0-9_:.]*[^"(]*' | sed -e 's/%[A-Za-z0-9_]*//g' -e 's/[{}, ]*$//' >"$1.all"
	grep 'relinquish' "$1.all"
	grep -v 'relinquish' "$1.all"
}
for kind in cu ptx; do
	name=plan-same-instructions-$kind
	if status $name 0 --emit=$kind examples/tmem_roundtrip.tile -o "$tmp/explicit.$kind" &&
		status $name 0 --emit=$kind examples/tmem_auto.tile -o "$tmp/auto.$kind"; then
		instrs "$tmp/explicit.$kind" >"$tmp/explicit.list"
		instrs "$tmp/auto.$kind" >"$tmp/auto.list"
		if ! cmp -s "$tmp/explicit.list" "$tmp/auto.list"; then
			fail $name "other tcgen05 instructions: $(diff "$tmp/explicit.list" "$tmp/auto.list" | head -n 4 | tr '\n' ' ')"
		elif [ "$(grep -c 'tcgen05\.alloc.* 64;' "$tmp/auto.list")" != 1 ] || [ "$(grep -c '^tcgen05\.ld\.' "$tmp/auto.list")" != 1 ]; then
			fail $name "not one alloc of 64 columns and one load"
		else
			pass $name
		fi
	fi
done

# --explain prints the plan as notes; without it, nothing.
cat >"$tmp/plan.want" <<'EOF'
examples/tmem_shared_columns.tile:9:8: note: kernel 'tmem_shared_columns': tilec allocates 128 columns of tensor memory (the plan uses 96) for 3 tmem tensors without 'at': tcgen05.alloc by warp 0 at the kernel start, then relinquish_alloc_permit, and tcgen05.dealloc after a final cta_sync
examples/tmem_shared_columns.tile:12:10: note: 'keep': TMEM columns 0..31, lanes 0..127, live from line 26 to line 54
examples/tmem_shared_columns.tile:13:10: note: 'first': TMEM columns 32..95, lanes 0..127, live from line 32 to line 35; shares columns with 'second' (never live at the same time)
examples/tmem_shared_columns.tile:14:10: note: 'second': TMEM columns 32..95, lanes 0..127, live from line 44 to line 47; shares columns with 'first' (never live at the same time)
EOF
if status plan-explain 0 --explain examples/tmem_shared_columns.tile -o /dev/null; then
	grep ': note: ' "$tmp/err" >"$tmp/plan.got"
	if cmp -s "$tmp/plan.want" "$tmp/plan.got"; then
		pass plan-explain
	else
		fail plan-explain "other notes: $(diff "$tmp/plan.want" "$tmp/plan.got" | head -n 6 | tr '\n' ' ')"
	fi
fi
status plan-no-explain 0 examples/tmem_shared_columns.tile -o /dev/null &&
	if [ -s "$tmp/err" ]; then fail plan-no-explain "notes without --explain"; else pass plan-no-explain; fi

# Tensors loaded before any store are live from the kernel start: in plan_read_first_paths.tile
# B, C and E (a store under a condition the load is not under, in a loop that does not run, later in
# the loop's body), not A, D and F.
if status plan-read-first-paths 0 --explain tests/golden/plan_read_first_paths.tile -o /dev/null; then
	got=$(sed -n "s/^.*: note: '\([A-F]\)': .*live from the kernel start (a load may come before any store.*/\1/p" "$tmp/err" | tr -d '\n')
	if [ "$got" = BCE ]; then
		pass plan-read-first-paths
	else
		fail plan-read-first-paths "tensors live from the kernel start: '$got', expected 'BCE'"
	fi
fi

# The same through device functions (plan_read_first_device.tile): a function's store under an if, in
# a loop that does not run or in a function it calls counts only where it is sure to have run.
if status plan-read-first-device 0 --explain tests/golden/plan_read_first_device.tile -o /dev/null; then
	got=$(sed -n "s/^.*: note: '\([A-F]\)': .*live from the kernel start (a load may come before any store.*/\1/p" "$tmp/err" | tr -d '\n')
	if [ "$got" = ABDF ]; then
		pass plan-read-first-device
	else
		fail plan-read-first-device "tensors live from the kernel start: '$got', expected 'ABDF'"
	fi
fi

# --explain at copies into and out of a shared tile: the access width each thread's moves came out at,
# 16 bytes for smem_tile_copy's K-major 128B tile (one row per thread), 16 for the stores of its
# MN-major stack too (registers filled by scalar global loads, stored as vectors all the same because
# four 4-byte stores there have 4-way bank conflicts and one 16-byte store none) and 16 for its loads,
# 16 for the tile whose threads pick both line and chunk; none without a tile.
if status explain-tile-widths 0 --explain tests/golden/smem_tile_copy.tile -o /dev/null; then
	got=$(sed -n "s/^tests\/golden\/smem_tile_copy.tile:\([0-9]*\):5: note: each thread \([a-z]*\) .* shared tile '\([st]\)' .* with \([0-9]*\)-byte accesses.*/\1 \2 \3 \4/p" "$tmp/err" | tr '\n' ',')
	if [ "$got" = "18 stores s 16,20 loads s 16,34 stores t 16,36 loads t 16,51 stores s 16,53 loads s 16," ]; then
		pass explain-tile-widths
	else
		fail explain-tile-widths "widths: '$got'"
	fi
fi
status explain-no-tile-widths 0 --explain examples/gemm_epilogue.tile -o /dev/null &&
	if grep -q 'shared tile' "$tmp/err"; then fail explain-no-tile-widths "a tile note without a tile"; else pass explain-no-tile-widths; fi

# --explain at two copies whose loads one wait after an if/else completes: a note at each.
if status explain-join-waits 0 --explain tests/golden/copy_wait_join.tile -o /dev/null; then
	if [ "$(grep -c 'its tcgen05.wait::ld is placed before line 18' "$tmp/err")" = 2 ]; then
		pass explain-join-waits
	else
		fail explain-join-waits "not one note at each of the two loads: $(grep wait "$tmp/err" | tr '\n' ' ')"
	fi
fi

# --explain at a copy between registers and memory (LANGUAGE.md 10.4: notes for every copy): one note
# on each of gemm_epilogue's three copies, naming the tensor whose shape bounds it.
if status explain-memory-copy 0 --explain examples/gemm_epilogue.tile -o /dev/null; then
	if [ "$(grep -c ': note: no tcgen05 instruction and no wait: each thread' "$tmp/err")" = 3 ] &&
		grep -q "gemm_epilogue.tile:26:5: note: .*coordinates outside the shape of 'D' are skipped" "$tmp/err"; then
		pass explain-memory-copy
	else
		fail explain-memory-copy "not one note at each copy: $(grep note "$tmp/err" | tr '\n' ' ')"
	fi
fi

# --explain at copies whose waits the program writes itself: the note names the line of that wait.
cat >"$tmp/written_waits.tile" <<'EOF'
layout TD  = tmem_datapath_layout("D", 128, 32);
layout REG = S[(128, 32) : (1@tid_in_wg, 1)];
kernel k(A: f32[128, 32], B: f32[128, 32]) launch(grid = 1, block = 128)
{
    tmem t: f32[128, 32] layout TD;
    local r: f32[128, 32] layout REG;
    copy(r, A);
    copy(t, r);
    tcgen05.wait::st.sync.aligned;
    copy(r, t);
    tcgen05.wait::ld.sync.aligned;
    copy(B, r);
}
EOF
if status explain-written-waits 0 --explain "$tmp/written_waits.tile" -o /dev/null; then
	if grep -q 'written_waits.tile:8:5: note: its tcgen05.wait::st is the one written on line 9$' "$tmp/err" &&
		grep -q 'written_waits.tile:10:5: note: its tcgen05.wait::ld is the one written on line 11$' "$tmp/err"; then
		pass explain-written-waits
	else
		fail explain-written-waits "no note naming the waits of lines 9 and 11: $(grep 'note: its' "$tmp/err" | tr '\n' ' ')"
	fi
fi

# --draw (docs/command.md): a picture for an opcode or an apply; tests/draw.sh checks the pictures.
op=tcgen05.ld.sync.aligned.16x64b.x1.b32
if status draw-opcode 0 --draw $op -o "$tmp/d.svg" && has draw-opcode "$tmp/d.svg" "no picture written"; then
	if [ -s "$tmp/err" ] || ! grep -q "<title>$op</title>" "$tmp/d.svg"; then
		fail draw-opcode "a message on stderr, or no <title> with the opcode"
	else
		pass draw-opcode
	fi
fi
status draw-stdout 0 --draw $op -o - && if [ "$(head -n 1 "$tmp/out")" = '<?xml version="1.0" encoding="UTF-8"?>' ]; then
	pass draw-stdout
else
	fail draw-stdout "-o - did not print the SVG"
fi
# draw_error NAME STATUS FIRST-LINE ARGS...: exits with STATUS, stderr starts with FIRST-LINE, no file.
draw_error() {
	name=$1 want=$2 first=$3
	shift 3
	rm -f "$tmp/e.svg"
	status "$name" "$want" "$@" || return
	if [ "$(head -n 1 "$tmp/err")" != "$first" ]; then
		fail "$name" "stderr does not start with: $first"
	elif lacks "$name" "$tmp/e.svg"; then
		pass "$name"
	fi
}
draw_error draw-bad-opcode 2 \
	"tilec: error: '.x3' is not legal for 16x64b; legal: .x1, .x2, .x4, .x8, .x16, .x32, .x64, .x128" \
	--draw tcgen05.ld.sync.aligned.16x64b.x3.b32 -o "$tmp/e.svg"
draw_error draw-not-ldst 2 \
	"tilec: error: 'tcgen05.mma.cta_group::1.kind::f16' is not a load or store: apply takes tcgen05.ld.sync.aligned.SHAPE.xN[.pack::16b].b32 or tcgen05.st.sync.aligned.SHAPE.xN[.unpack::16b].b32" \
	--draw tcgen05.mma.cta_group::1.kind::f16 -o "$tmp/e.svg"
draw_error draw-no-output 2 "tilec: error: --draw needs -o FILE.svg (or -o - for standard output) (see tilec --help)" \
	--draw $op
# --draw writes only the picture: --emit and -MD, which name other outputs, are refused (--emit was ignored)
draw_error draw-with-emit 2 "tilec: error: --draw writes an SVG picture, not the output of --emit=cu; leave one of them out (see tilec --help)" \
	--draw $op --emit=cu -o "$tmp/e.svg"
draw_error draw-with-md 2 "tilec: error: --draw writes no dependency file; leave out -MD (see tilec --help)" \
	--draw "$example:24" -MD -o "$tmp/e.svg"
draw_error draw-no-argument 2 "tilec: error: --draw needs an opcode or FILE.tile:LINE (see tilec --help)" \
	--draw -o "$tmp/e.svg"
draw_error draw-no-line 2 "tilec: error: --draw takes a tcgen05.ld or tcgen05.st opcode, or FILE.tile:LINE with a line number from 1; not '$example' (see tilec --help)" \
	--draw "$example" -o "$tmp/e.svg"
draw_error draw-line-0 2 "tilec: error: --draw takes a tcgen05.ld or tcgen05.st opcode, or FILE.tile:LINE with a line number from 1; not '$example:0' (see tilec --help)" \
	--draw "$example:0" -o "$tmp/e.svg"
draw_error draw-two-inputs 2 "tilec: error: --draw names its file itself (--draw FILE.tile:LINE); '$example' is one input too many (see tilec --help)" \
	--draw $op "$example" -o "$tmp/e.svg"
draw_error draw-no-apply 1 "$example:1:1: error: no apply or copy at line 1 to draw; this file has applies or copies at lines 24, 27" \
	--draw "$example:1" -o "$tmp/e.svg"
# a copy between registers and memory has no tcgen05 instruction to draw
line=$(grep -n 'copy(Out, r)' tests/golden/copy_memory.tile | head -n 1 | cut -d: -f1)
draw_error draw-copy-memory 1 "tilec: error: cannot draw the copy at tests/golden/copy_memory.tile:$line: it moves data between registers and memory, with no tcgen05 instruction to draw" \
	--draw "tests/golden/copy_memory.tile:$line" -o "$tmp/e.svg"
# a line of two such copies: why for each, at its column
printf 'layout REG = S[(128, 32) : (1@tid_in_wg, 1)];\nkernel two(A: f32[128, 32], Out: f32[128, 32]) launch(grid = 1, block = 128)\n{\n    local r: f32[128, 32] layout REG;\n    copy(r, A); copy(Out, r);\n}\n' >"$tmp/two_copies.tile"
draw_error draw-copy-memory-two 1 "tilec: error: cannot draw the copy at $tmp/two_copies.tile:5:5: it moves data between registers and memory, with no tcgen05 instruction to draw" \
	--draw "$tmp/two_copies.tile:5" -o "$tmp/e.svg"
if [ "$(sed -n 2p "$tmp/err")" != "tilec: error: cannot draw the copy at $tmp/two_copies.tile:5:17: it moves data between registers and memory, with no tcgen05 instruction to draw" ]; then
	fail draw-copy-memory-two-second "the second copy of the line is not named with its column and reason"
else
	pass draw-copy-memory-two-second
fi
draw_error draw-past-end 1 "tilec: error: $example has 38 lines; there is no line 99 to draw" \
	--draw "$example:99" -o "$tmp/e.svg"
draw_error draw-missing-file 1 "tilec: error: cannot read '$tmp/missing.tile': No such file or directory" \
	--draw "$tmp/missing.tile:3" -o "$tmp/e.svg"
# operands that do not fit the instruction: their error, then why there is no picture
draw_error draw-misfit 1 "tests/golden/apply_shape.tile:21:5: error: register operand 'sv' has shape (4, 32, 64), but tcgen05.st.sync.aligned.32x32b.x32.b32 takes (4) + [repeat axes...] + (32, 32) (the 4 warps of the scope, then the atom)" \
	--draw tests/golden/apply_shape.tile:21 -o "$tmp/e.svg"
if [ "$(tail -n 1 "$tmp/err")" != "tilec: error: cannot draw the apply at tests/golden/apply_shape.tile:21: its operands do not fit the instruction (see above)" ]; then
	fail draw-misfit-last "the last line does not say why there is no picture"
else
	pass draw-misfit-last
fi
# a refused apply is drawn: its error is printed and the picture written, status 0
if status draw-refused 0 --draw tests/golden/apply_owner.tile:22 -o "$tmp/r.svg" &&
	has draw-refused "$tmp/r.svg" "no picture of the refused apply"; then
	if grep -q "error: register operand 'sv' does not match the image" "$tmp/err"; then
		pass draw-refused
	else
		fail draw-refused "the apply's error is not printed"
	fi
fi

# An output that is not a regular file (-o /dev/null, a pipe) is written in place, never replaced.
if mkfifo "$tmp/fifo" 2>/dev/null; then
	cat "$tmp/fifo" >"$tmp/fifo.out" &
	reader=$!
	status fifo-output 0 "$example" -o "$tmp/fifo"
	wait $reader
	if [ -p "$tmp/fifo" ] && [ -s "$tmp/fifo.out" ]; then
		pass fifo-output
	else
		fail fifo-output "the FIFO given as output was replaced or got nothing"
	fi
fi
# A load on the right of && or || is made only when the left side does not decide, in the PTX too:
# every ld.global of tests/golden/guarded_loads.tile comes after the branch that skips it.
if status ptx-lazy-loads 0 --emit=ptx tests/golden/guarded_loads.tile -o -; then
	if awk '/bra \$L/ && !seen { seen = NR } /ld\.global/ && (!seen || NR < seen) { bad = 1 } END { exit !seen || bad }' \
		"$tmp/out"; then
		pass ptx-lazy-loads
	else
		fail ptx-lazy-loads "a guarded ld.global comes before the branch that guards it"
	fi
fi
# TMEM addresses (docs/ptx.md): the slot is read once per barrier stretch, where its first use is, and
# again after a tcgen05.ld of 128 registers (k2: three ld.shared of the slot, the first before the
# first tcgen05.ld, one between the two loads, one at the dealloc), with one redux.sync of lane 0's
# thread index for the whole kernel; a fence.acq_rel.cta follows each wait::st.
if status ptx-tmem-base-once 0 --emit=ptx tests/routes/k2_axpby_x128.tile -o -; then
	if [ "$(grep -c 'ld\.shared\.u32 .*tl_smem_' "$tmp/out")" = 3 ] && [ "$(grep -c 'redux\.sync\.min' "$tmp/out")" = 1 ] &&
		awk '/^\tld\.shared\.u32/ { s++ } /^\ttcgen05\.ld/ { n++; if (s != n) bad = 1 } END { exit n != 2 || bad }' "$tmp/out"; then
		pass ptx-tmem-base-once
	else
		fail ptx-tmem-base-once "not one ld.shared of the slot before each tcgen05.ld, one at the dealloc and one redux.sync"
	fi
fi
# tmem_roundtrip: at its st and at its ld (after a barrier; its dealloc takes that read, every access
# lying outside ifs and loops), one redux.sync, the fence after the wait::st; layout_d_repeat: once
# for its four st, four ld and the dealloc
if status ptx-tmem-base-stores 0 --emit=ptx "$example" -o -; then
	if [ "$(grep -c 'ld\.shared\.u32 .*tl_smem_' "$tmp/out")" = 2 ] && [ "$(grep -c 'redux\.sync\.min' "$tmp/out")" = 1 ] &&
		grep -A1 'tcgen05\.wait::st' "$tmp/out" | grep -q 'fence\.acq_rel\.cta;$'; then
		pass ptx-tmem-base-stores
	else
		fail ptx-tmem-base-stores "tmem_roundtrip does not read its slot at its st and its ld only, with one redux.sync and a fence after its wait::st"
	fi
fi
if status ptx-tmem-base-kept 0 --emit=ptx examples/layout_d_repeat.tile -o -; then
	if [ "$(grep -c 'ld\.shared\.u32 .*tl_smem_' "$tmp/out")" = 1 ] && [ "$(grep -c '^.tcgen05\.\(ld\|st\)\.' "$tmp/out")" = 8 ] &&
		[ "$(grep -c 'redux\.sync\.min' "$tmp/out")" = 1 ]; then
		pass ptx-tmem-base-kept
	else
		fail ptx-tmem-base-kept "layout_d_repeat does not read its slot once for its eight tcgen05 instructions and its dealloc"
	fi
fi
# a tcgen05.ld right after the wait of a tcgen05.st at the same address, into other registers, takes
# the st's address: separated_slots reads its slot once, for the st, the ld and the dealloc; with
# one TMEM address there is no redux.sync, and before the other words of the same tensor no fence
if status ptx-tmem-address-kept 0 --emit=ptx examples/separated_slots.tile -o -; then
	if [ "$(grep -c 'ld\.shared\.u32 .*tl_smem_' "$tmp/out")" = 1 ] && ! grep -q 'redux\|fence\.acq_rel' "$tmp/out" &&
		[ "$(sed -n 's/.*tcgen05\.st\.[^[]*\[\(%r[0-9]*\)\].*/\1/p' "$tmp/out")" = \
			"$(sed -n 's/.*tcgen05\.ld\..*\[\(%r[0-9]*\)\];/\1/p' "$tmp/out")" ]; then
		pass ptx-tmem-address-kept
	else
		fail ptx-tmem-address-kept "separated_slots' tcgen05.ld does not take its st's address"
	fi
fi
# Loop-invariant code motion (docs/ptx.md, Statements) keeps in the loop what reads its counter, even
# when the counter's register number lies beyond every pure instruction's so far: 101 stores of
# computed values before `for j in 0..t` gave the counter %r205, and the loop's test was moved out.
awk 'BEGIN {
	print "kernel k(A: i32[32, 128], Out: f32[64]) launch(grid = 1, block = 32)\n{\n    let t = i32(thread_idx.x);"
	for (i = 0; i < 101; i++) printf "    A[t, %d] = t * %d + %d;\n", i, i + 3, 7 * i + 1
	print "    for j in 0..t {\n        Out[j] = 2.0;\n    }\n}"
}' >"$tmp/counter.tile"
if status ptx-loop-counter 0 --emit=ptx "$tmp/counter.tile" -o -; then
	if awk '/^\$L_0_1:/ { top = 1 } /setp\.ge/ && !top { bad = 1 } /setp\.ge/ && top { test = 1 } END { exit bad || !test }' "$tmp/out"; then
		pass ptx-loop-counter
	else
		fail ptx-loop-counter "the loop's test of its counter was moved before the loop"
	fi
fi
# inf, -inf and nan on the PTX route (language.md section 12): the bits the CUDA C writes, nan the GPU's
# canonical 0x7fffffff (the host's 0x7fc00000 before), 32767 (0x7fff) for nan stored as f16 or bf16.
if status ptx-float-constants 0 --emit=ptx tests/golden/float_constants.tile -o -; then
	if grep -q '0f7FFFFFFF' "$tmp/out" && grep -q '0f7F800000' "$tmp/out" && grep -q '0fFF800000' "$tmp/out" &&
		grep -q ', 32767;' "$tmp/out" && ! grep -q -e '0f7FC00000' -e '0fFFC00000' -e '0fFFFFFFFF' "$tmp/out"; then
		pass ptx-float-constants
	else
		fail ptx-float-constants "not the canonical bits of nan, inf and -inf in the PTX"
	fi
fi
# The edge test of a masked copy's vector adds the vector's extent in 64 bits (robustness3/03): shift + 3
# of shift = 2147483646 wrapped in add.s32, passed '< 98', and st.global.v4 wrote 8 GB before S. The
# register compared with 98 before the vector store must come from add.s64 (and setp.lt.s64).
if status ptx-vector-edge-64 0 --emit=ptx tests/golden/copy_start_overflow.tile -o -; then
	if awk '/add\.s64 %rd[0-9]+, %rd[0-9]+, 3;/ { split($2, d, ","); sum = d[1] }
		/setp\.lt\.s64 %p[0-9]+, %rd[0-9]+, 98;/ { split($3, c, ","); if (c[1] == sum) ok = 1 }
		/add\.s32 %r[0-9]+, %r[0-9]+, 3;/ && !ok { wrap = 1 }
		/st\.global\.v4/ { seen = 1; good = ok && !wrap; exit }
		END { exit !(seen && good) }' "$tmp/out"; then
		pass ptx-vector-edge-64
	else
		fail ptx-vector-edge-64 "the vector's edge test of copy_start_overflow is not shift + 3 < 98 in 64 bits"
	fi
fi
# Clusters: the PTX carries the cluster as the CUDA C's __cluster_dims__ does; the emulator refuses
# cta_group::2 (one error, no output file); tilec run checks a grid computed at launch against the cluster.
if status cluster-ptx 0 --emit=ptx tests/golden/cluster_pair.tile -o -; then
	if grep -q '^\.explicitcluster$' "$tmp/out" && grep -q '^\.reqnctapercluster 2, 1, 1$' "$tmp/out" &&
		grep -q 'tilec_cluster_pair\[3\] = {2, 1, 1};' "$tmp/out"; then
		pass cluster-ptx
	else
		fail cluster-ptx "no .explicitcluster / .reqnctapercluster 2, 1, 1 / tilec_cluster_pair in the PTX"
	fi
fi
pair_refused="mma_pair_m128.tile:29:9: error: the emulator (--target=emu, tilec run) does not emulate the cta_group::2 mma of M = 128"
status emu-refuses-pair 1 --target=emu tests/golden/mma_pair_m128.tile -o "$tmp/pair.cu" &&
	lacks emu-refuses-pair "$tmp/pair.cu" && if [ "$(grep -c error: "$tmp/err")" = 1 ] &&
	grep -q "$pair_refused" "$tmp/err"; then
	pass emu-refuses-pair
else
	fail emu-refuses-pair "not one error saying that the cta_group::2 mma of M = 128 is not emulated"
fi
status run-refuses-pair 1 run tests/golden/mma_pair_m128.tile && if grep -q "$pair_refused" "$tmp/err"; then
	pass run-refuses-pair
else
	fail run-refuses-pair "tilec run does not say that the cta_group::2 mma of M = 128 is not emulated"
fi
# the pair's allocation, the CTAs' own tensor memories and the pair commit run on the CPU (cluster model)
status run-pair 0 run tests/golden/cluster_pair.tile --expect Out=A && if grep -q 'all 8192 elements equal' "$tmp/out" "$tmp/err"; then
	pass run-pair
else
	fail run-pair "cluster_pair.tile (a cta_group::2 allocation) does not run with Out = A"
fi
status run-cluster-grid 1 run tests/golden/cluster_runtime.tile --set N=96 && if grep -q \
	"tilec run: error: grid dimension x of kernel scale is 3 with these --set values; it must be a multiple of the cluster's 2" \
	"$tmp/err"; then
	pass run-cluster-grid
else
	fail run-cluster-grid "no launch-time error for a grid of 3 in clusters of 2"
fi
status run-cluster-grid-ok 0 run tests/golden/cluster_runtime.tile --set N=100 && pass run-cluster-grid-ok
# the emulated program keeps __cluster_dims__ for sm_90 and later (a multicast TMA load needs the cluster on
# the GPU), and its emulator drops the attribute for sm_80, which has no clusters
status emu-cluster 0 --target=emu tests/golden/cluster_runtime.tile -o - && if ! grep -q '__cluster_dims__(2, 1, 1) scale' "$tmp/out" ||
	! grep -q '^#if defined(__CUDACC__) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 900)$' "$tmp/out"; then
	fail emu-cluster "no __cluster_dims__ in the emulated program, or no guard that drops it before sm_90"
else
	pass emu-cluster
fi
# --fast-math: exp and exp2 become exp_approx and exp2_approx in every output, the emulator's too, and
# nothing else changes (log, erf, rsqrt and division stay); without it, no approximation.
status fast-math-ir 0 --fast-math --emit=ir tests/golden/fast_math_option.tile -o - &&
	if grep -q 'exp2_approx(x) + exp_approx(x)' "$tmp/out" && ! grep -q 'exp(\|exp2(\|rsqrt_approx\|rcp_approx' "$tmp/out" &&
		grep -q 'log(abs(x) + 1.0)) + rsqrt(abs(x) + 1.0)) + erf(x)' "$tmp/out"; then
		pass fast-math-ir
	else
		fail fast-math-ir "not every exp and exp2 made an approximation, or something else changed"
	fi
status fast-math-emu 0 --fast-math --target=emu tests/golden/fast_math_option.tile -o - &&
	if grep -q 'tl_exp_approx(float v0)' "$tmp/out" && ! grep -q 'ex2\.approx\|tl_exp(float\|tl_exp2(float' "$tmp/out"; then
		pass fast-math-emu
	else
		fail fast-math-emu "the emulator's code has no model of ex2.approx, or has the instruction itself"
	fi
status fast-math-off 0 tests/golden/fast_math_option.tile -o - &&
	if grep -q 'tl_exp(float' "$tmp/out" && grep -q 'tl_exp2(float' "$tmp/out" && ! grep -q 'tl_exp_approx' "$tmp/out"; then
		pass fast-math-off
	else
		fail fast-math-off "without --fast-math, exp or exp2 is not tilec's exact sequence"
	fi
# tilec run --fast-math: Out holds exp and exp2, whose model differs from the exact sequences; Soft's
# exp(x - m) and exp2(-m) too
status run-fast-math 0 run --fast-math tests/golden/fast_math_option.tile && mv "$tmp/out" "$tmp/fast.out" &&
	status run-fast-math 0 run tests/golden/fast_math_option.tile &&
	if [ "$(grep -c fnv64 "$tmp/out")" = 3 ] && [ "$(grep fnv64 "$tmp/fast.out" | head -n 1)" = "$(grep fnv64 "$tmp/out" | head -n 1)" ] &&
		[ "$(grep '^Out' "$tmp/fast.out" | awk '{ print $4 }')" != "$(grep '^Out' "$tmp/out" | awk '{ print $4 }')" ]; then
		pass run-fast-math
	else
		fail run-fast-math "tilec run --fast-math gave the same Out as without it, or other inputs"
	fi
# tilec run -arch: tcgen05.ld.red is refused on the default sm_100a (exit 1, the error names the
# targets) and runs on sm_103a; an unknown -arch is bad usage (exit 2)
status run-arch 1 run tests/golden/ld_red_values.tile --expect Ok=B &&
	grep -q "it needs sm_103a, sm_103f, sm_110a or sm_110f" "$tmp/err" &&
	status run-arch 0 run -arch=sm_103a tests/golden/ld_red_values.tile --expect Ok=B &&
	status run-arch 2 run -arch=sm_90a tests/golden/ld_red_values.tile &&
	grep -q "unsupported -arch=sm_90a" "$tmp/err" && pass run-arch || fail run-arch "tilec run -arch did not choose the target"
exit $failed
