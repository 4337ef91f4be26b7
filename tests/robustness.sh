#!/bin/sh
# robustness.sh TILEC: the reproducers of issue 11 (crashes, data loss, leftovers, limits, the emulator's
# checks) as regression tests, one PASS/FAIL line each. Exits 1 when a test failed.
runner=robustness
. "$(dirname "$0")/runner.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if command -v timeout >/dev/null 2>&1; then limit='timeout 60'; else limit=; fi
example=$PWD/examples/tmem_roundtrip.tile
failed=0

pass() {
	echo "PASS robustness/$1"
}

fail() {
	echo "FAIL robustness/$1: $2"
	[ -s "$tmp/err" ] && head -n 8 "$tmp/err" | sed 's/^/    stderr: /'
	failed=1
}

# expect NAME WANT ARGS...: runs tilec (stdout $tmp/out, stderr $tmp/err); true when it exits with WANT.
expect() {
	name=$1 want=$2
	shift 2
	$limit "$tilec" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ "$rc" = "$want" ] && return 0
	fail "$name" "tilec $* exited with status $rc, expected $want"
	return 1
}

# said NAME TEXT: true when stderr of the last run contains TEXT.
said() {
	grep -qF -- "$2" "$tmp/err" && return 0
	fail "$1" "stderr lacks '$2'"
	return 1
}

# ------------------------------------------------------------------ limits

# Nested unrolled loops in many kernels: one budget for the file, one error, no output.
awk 'BEGIN {
	for (k = 0; k < 8; k++) {
		printf "kernel k%d(A: f32[128]) launch(grid = 1, block = 128)\n{\n    local r: f32[128] layout S[(128) : (1@tid_in_wg)];\n", k
		printf "    view rv = r.view(1, layout = default);\n"
		printf "    for a in 0..15 {\n        for b in 0..1000 {\n            rv[0] = A[thread_idx.x];\n        }\n    }\n}\n"
	}
}' >"$tmp/amplify.tile"
if expect unroll-budget-per-file 1 "$tmp/amplify.tile" -o "$tmp/amplify.cu" && said unroll-budget-per-file \
	"longer than 65536 unrolled iterations"; then
	n=$(grep -c 'error:' "$tmp/err")
	if [ "$n" -ne 1 ]; then fail unroll-budget-per-file "$n errors, expected 1"
	elif [ -e "$tmp/amplify.cu" ]; then fail unroll-budget-per-file "an output was written"
	else pass unroll-budget-per-file; fi
fi

# Device functions that call each other and copy large tiles (../shared/repro/robustness3/06): the work
# inlined, not only the calls, has a budget; refused within seconds in 300 MB, one error, no output.
for f in r3_06_device_chain_1KB_1GB r3_06_device_chain_1KB_oom; do
	if sh -c 'ulimit -v 300000 && "$1" --version; exit $?' sh "$tilec" >/dev/null 2>&1; then
		run_limited() { (ulimit -v 300000 && exec $limit "$tilec" "$@") >"$tmp/out" 2>"$tmp/err" </dev/null; }
	else
		run_limited() { $limit "$tilec" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; } # a sanitizer build
	fi
	run_limited "tests/repro/$f.tile" -o "$tmp/chain.cu"
	rc=$?
	if [ $rc -ne 1 ]; then fail "copy-budget-$f" "exit status $rc, expected 1 (124: over 60 s)"
	elif ! grep -qE "$f.tile:[0-9]+:73: error: this copy makes the file move more than 2097152 elements" "$tmp/err"; then
		fail "copy-budget-$f" "no copy budget error at the first copy"
	elif [ "$(grep -c 'error:' "$tmp/err")" -ne 1 ]; then fail "copy-budget-$f" "more than one error"
	elif [ -e "$tmp/chain.cu" ]; then fail "copy-budget-$f" "an output was written"
	else pass "copy-budget-$f"; fi
done
# Below the budget: five levels (the functions each checked alone, and the kernel) compile.
awk 'BEGIN {
	print "layout R = S[(32, 128) : (1@laneid, 1)];"
	printf "device f0(A: f32[32, 128], r: local f32[32, 128] layout R) scope warp {"
	for (i = 0; i < 8; i++) printf " copy(A, r);"
	print " }"
	for (d = 1; d < 5; d++)
		printf "device f%d(A: f32[32, 128], r: local f32[32, 128] layout R) scope warp { f%d(A, r); f%d(A, r); }\n", d, d - 1, d - 1
	print "kernel k(A: f32[32, 128]) launch(grid = 1, block = 32) {\n    local r: f32[32, 128] layout R;\n    copy(r, A); f4(A, r);\n}"
}' >"$tmp/chain5.tile"
expect copy-budget-below 0 "$tmp/chain5.tile" -o "$tmp/chain5.cu" && pass copy-budget-below

# Declarations cost the same however many there are (they were quadratic: 10^5 took minutes).
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "layout L%d = S[(32) : (1@laneid)];\n", i }' >"$tmp/layouts.tile"
awk 'BEGIN {
	n = 30000; printf "kernel k("
	for (i = 0; i < n; i++) printf "%sA%d: f32[1]", i ? ", " : "", i
	printf ") launch(grid = 1, block = 32)\n{\n"
	for (i = 0; i < n; i++) printf "    let v%d = %d;\n", i, i
	printf "    A0[0] = A%d[v%d - %d];\n}\n", n - 1, n - 1, n - 1
}' >"$tmp/names.tile"
for f in layouts names; do
	if command -v timeout >/dev/null 2>&1; then
		timeout 30 "$tilec" -w "$tmp/$f.tile" -o /dev/null >/dev/null 2>"$tmp/err"
		rc=$?
	else
		"$tilec" -w "$tmp/$f.tile" -o /dev/null >/dev/null 2>"$tmp/err"
		rc=$?
	fi
	if [ $rc -eq 0 ]; then pass "linear-names-$f"; else fail "linear-names-$f" "exit status $rc (124: over 30 s)"; fi
done

# Memory is given back after each kernel (the checks' layouts and view maps), so 400 kernels compile
# in 300 MB of address space (they took 600 MB); out of memory is an input too large for the machine:
# exit 1 and a message, no output file (2000 kernels). Only where tilec starts in 300 MB (not under
# AddressSanitizer, which reserves terabytes).
many() {
	awk -v n="$1" -v body="$(sed -n '/^kernel/,$p' "$example" | sed 1d)" 'BEGIN {
		print "layout TB  = tmem_datapath_layout(\"B\", 64, 128);"
		print "layout REG = S[(64, 2, 64) : (1@tid_in_wg, 64@tid_in_wg, 1)];"
		for (k = 0; k < n; k++) printf "kernel k%d(A: f32[128, 64], Out: f32[128, 64]) launch(grid = 1, block = 128)\n%s\n", k, body
	}'
}
if sh -c 'ulimit -v 300000 && "$1" --version; exit $?' sh "$tilec" >/dev/null 2>&1; then
	many 400 >"$tmp/many.tile"
	(ulimit -v 300000 && exec "$tilec" "$tmp/many.tile" -o "$tmp/many.cu") >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && [ "$(grep -c '__global__' "$tmp/many.cu")" -eq 400 ]; then pass memory-per-kernel
	else fail memory-per-kernel "400 kernels in 300 MB: exit status $rc"; fi
	many 2000 >"$tmp/many.tile"
	rm -f "$tmp/many.cu"
	(ulimit -v 300000 && exec "$tilec" "$tmp/many.tile" -o "$tmp/many.cu") >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 1 ]; then fail out-of-memory "exit status $rc, expected 1"
	elif ! grep -qx 'tilec: error: out of memory' "$tmp/err"; then fail out-of-memory "no 'out of memory' message"
	elif [ -e "$tmp/many.cu" ]; then fail out-of-memory "an output was written"
	else pass out-of-memory; fi
else
	echo "SKIP robustness/memory-per-kernel, out-of-memory: tilec does not start in 300 MB of address space (a sanitizer build)"
fi

# Static shared memory: 227 KB is the most a block has; grid y and z at most 65535, block z 64.
shared() {
	printf 'kernel k(A: f32[128]) launch(grid = 1, block = 128)\n{\n    shared s: f32[%d];\n' "$1"
	printf '    s[thread_idx.x] = A[thread_idx.x];\n    cta_sync;\n    A[thread_idx.x] = s[127 - thread_idx.x];\n}\n'
}
shared 58112 >"$tmp/shared_ok.tile"
shared 58113 >"$tmp/shared_over.tile"
expect shared-at-limit 0 "$tmp/shared_ok.tile" -o - && pass shared-at-limit
expect shared-over-limit 1 "$tmp/shared_over.tile" -o - && said shared-over-limit "shared_over.tile:3:5: error:" &&
	said shared-over-limit "a block has at most 232448 bytes" && pass shared-over-limit
for launch in 'grid = (1, 65536, 1), block = 32' 'grid = (1, 1, 65536), block = 32' 'grid = 1, block = (1, 1, 65)'; do
	printf 'kernel k(A: f32[1]) launch(%s)\n{\n    A[0] = 1.0;\n}\n' "$launch" >"$tmp/launch.tile"
	name=launch-limit-$(echo "$launch" | tr -c 'a-z0-9\n' '_')
	expect "$name" 1 "$tmp/launch.tile" -o - && said "$name" "launch.tile:1:" && said "$name" "is at most" && pass "$name"
done
printf 'kernel k(A: f32[1]) launch(grid = (2147483647, 65535, 65535), block = (1, 1, 64))\n{\n    A[0] = 1.0;\n}\n' \
	>"$tmp/launch_max.tile"
expect launch-at-limits 0 "$tmp/launch_max.tile" -o - && pass launch-at-limits

# ------------------------------------------------------------------ outputs: no data loss

# -o or -MF naming the input (or an included file) is refused; the source stays.
cp "$example" "$tmp/same.tile"
expect output-is-input 1 "$tmp/same.tile" -o "$tmp/same.tile" && said output-is-input "is the input file" &&
	cmp -s "$example" "$tmp/same.tile" && pass output-is-input
expect depfile-is-input 1 "$tmp/same.tile" -MD -MF "$tmp/same.tile" -o "$tmp/same.cu" &&
	said depfile-is-input "is the input file" && cmp -s "$example" "$tmp/same.tile" && [ ! -e "$tmp/same.cu" ] &&
	pass depfile-is-input
ln -s same.tile "$tmp/link.tile"
expect output-is-input-by-link 1 "$tmp/same.tile" -o "$tmp/link.tile" && cmp -s "$example" "$tmp/same.tile" &&
	pass output-is-input-by-link
mkdir "$tmp/inc"
echo 'const UNUSED = 1;' >"$tmp/inc/defs.tile"
{ echo 'include "defs.tile";'; cat "$example"; } >"$tmp/inc/main.tile"
expect output-is-include 1 "$tmp/inc/main.tile" -o "$tmp/inc/defs.tile" && said output-is-include "included file" &&
	grep -q UNUSED "$tmp/inc/defs.tile" && pass output-is-include
# An input named k.cu, compiled without -o, would be its own default output.
mkdir "$tmp/cwd"
cp "$example" "$tmp/cwd/k.cu"
(cd "$tmp/cwd" && $limit "$tilec" k.cu >"$tmp/out" 2>"$tmp/err")
rc=$?
if [ $rc -ne 1 ]; then fail input-named-cu "exit status $rc, expected 1"
elif ! cmp -s "$example" "$tmp/cwd/k.cu"; then fail input-named-cu "k.cu was replaced"
else said input-named-cu "name another output with -o" && pass input-named-cu; fi

# A failed depfile leaves no new output, and the old output as it was.
echo old >"$tmp/keep.cu"
expect depfile-fails 1 "$example" -MD -MF "$tmp/no/such/dir/k.d" -o "$tmp/keep.cu" && said depfile-fails "k.d" &&
	[ "$(cat "$tmp/keep.cu")" = old ] && ! ls -a "$tmp" | grep -q '^\.tilec-' && pass depfile-fails
expect depfile-fails-new 1 "$example" -MD -MF "$tmp/no/such/dir/k.d" -o "$tmp/new.cu" && [ ! -e "$tmp/new.cu" ] &&
	pass depfile-fails-new

# Links: /dev/stdout is written through (in place), even when it leads to a regular file; a link to a
# regular file stays a link and its target gets the output.
"$tilec" "$example" -o - >"$tmp/ref.cu" 2>/dev/null
if "$tilec" "$example" -o /dev/stdout >"$tmp/stdout.cu" 2>"$tmp/err"; then
	if cmp -s "$tmp/ref.cu" "$tmp/stdout.cu" && [ -L /dev/stdout ] || [ -c /dev/stdout ]; then pass dev-stdout
	else fail dev-stdout "the redirected file differs from -o - (or /dev/stdout was replaced)"; fi
else
	fail dev-stdout "tilec -o /dev/stdout failed"
fi
echo old >"$tmp/target.cu"
ln -s target.cu "$tmp/link.cu"
expect link-kept 0 "$example" -o "$tmp/link.cu" && [ -L "$tmp/link.cu" ] && cmp -s "$tmp/ref.cu" "$tmp/target.cu" &&
	pass link-kept
ln -s /proc/self/fd/1 "$tmp/fd1.cu"
"$tilec" "$example" -o "$tmp/fd1.cu" >"$tmp/fd1.out" 2>"$tmp/err"
if [ -L "$tmp/fd1.cu" ] && cmp -s "$tmp/ref.cu" "$tmp/fd1.out"; then pass link-to-fd
else fail link-to-fd "a link to /proc/self/fd/1 was replaced, or the output did not reach stdout"; fi

# ------------------------------------------------------------------ --emit=tokens|ast, stdin

for kind in tokens ast; do
	expect "emit-$kind-o" 0 --emit=$kind "$example" -o "$tmp/k.$kind" -MD && [ ! -s "$tmp/out" ] &&
		[ -s "$tmp/k.$kind" ] && grep -q "k\.$kind *:" "$tmp/k.d" && pass "emit-$kind-o"
	expect "emit-$kind-stdout" 0 --emit=$kind "$example" && [ -s "$tmp/out" ] && pass "emit-$kind-stdout"
	expect "emit-$kind-unwritable" 1 --emit=$kind "$example" -o "$tmp/no/such/dir/x" && pass "emit-$kind-unwritable"
done
mkdir "$tmp/stdin"
(cd "$tmp/stdin" && "$tilec" - -MD -o s.cu <"$example" >/dev/null 2>"$tmp/err")
if [ ! -s "$tmp/stdin/s.d" ]; then fail stdin-depfile "no s.d"
elif grep -q ' -\( \|$\)' "$tmp/stdin/s.d"; then fail stdin-depfile "the rule lists '-': $(cat "$tmp/stdin/s.d")"
elif command -v make >/dev/null 2>&1 &&
	! (cd "$tmp/stdin" && printf 'all: s.cu\n-include s.d\ns.cu:\n\ttrue\n' >Mk && make -s -f Mk >/dev/null 2>&1); then
	fail stdin-depfile "make cannot use s.d"
else pass stdin-depfile; fi
(cd "$tmp/stdin" && "$tilec" - <"$example" >"$tmp/stdin.out" 2>"$tmp/err")
if ls -a "$tmp/stdin" | grep -q '^-'; then fail stdin-no-dash-file "a file named -.cu was written"
elif ! grep -q tilec_launch_tmem_roundtrip "$tmp/stdin.out"; then fail stdin-no-dash-file "no output on stdout"
else pass stdin-no-dash-file; fi

# ------------------------------------------------------------------ signals: nothing left behind

# A fake ptxas / C++ compiler that records its pid and waits: tilec gets SIGTERM (or SIGINT, SIGHUP)
# meanwhile; its temporary directory and its child must be gone after it died of the signal.
mkdir -p "$tmp/cuda/bin" "$tmp/t"
printf '#!/bin/sh\necho $$ >"%s/child.pid"\nexec sleep 30\n' "$tmp" >"$tmp/cuda/bin/ptxas"
chmod +x "$tmp/cuda/bin/ptxas"
cp "$tmp/cuda/bin/ptxas" "$tmp/cuda/bin/fakecxx"
# signalled NAME SIGNAL CMD...: runs CMD in the background with TMPDIR=$tmp/t, signals it once the child runs.
signalled() {
	name=$1 sig=$2
	shift 2
	rm -f "$tmp/child.pid"
	# a background job of sh starts with SIGINT ignored; python3 gives it back its default action
	TMPDIR=$tmp/t CUDA_HOME=$tmp/cuda CXX=$tmp/cuda/bin/fakecxx python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$@" >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ ! -s "$tmp/child.pid" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	kill -s "$sig" $pid
	wait $pid 2>/dev/null
	child=$(cat "$tmp/child.pid" 2>/dev/null)
	# the child dies of SIGKILL soon, but not at once on a busy machine: up to 10 s
	i=0
	while [ -n "$child" ] && [ -e "/proc/$child" ] && ! grep -q ') Z' "/proc/$child/stat" 2>/dev/null &&
		[ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if [ -z "$child" ]; then fail "$name" "the child never started"
	elif [ -e "/proc/$child" ] && ! grep -q ') Z' "/proc/$child/stat" 2>/dev/null; then
		fail "$name" "the child $child still runs"
		kill "$child"
	elif [ "$sig" != KILL ] && [ -n "$(ls -A "$tmp/t")" ]; then fail "$name" "left behind: $(ls -A "$tmp/t")"; rm -rf "$tmp/t"/*
	else rm -rf "$tmp/t"/*; pass "$name"; fi
}
signalled signal-ptxas-TERM TERM "$tilec" "$example" -o "$tmp/k.cubin"
signalled signal-ptxas-INT INT "$tilec" "$example" -o "$tmp/k.cubin"
signalled signal-ptxas-HUP HUP "$tilec" "$example" -o "$tmp/k.cubin"
signalled signal-run-TERM TERM "$tilec" run "$example"
# SIGKILL runs no handler: the child dies with tilec all the same (PR_SET_PDEATHSIG, Linux; it ran on
# as an orphan: ../shared/repro/robustness3/10); the temporary directory stays (docs/command.md).
if [ "$(uname -s)" = Linux ]; then
	signalled signal-run-KILL KILL "$tilec" run "$example"
fi
# The emulated program stopped by a signal from outside is said so, exit 1 (it was 'died of signal 15',
# exit 4, an internal error): a fake C++ compiler writes a program that records its pid and waits.
printf '#!/bin/sh\nwhile [ "$1" != -o ]; do shift; done\nprintf "#!/bin/sh\\necho \\$\\$ >%s/child.pid\\nexec sleep 30\\n" >"$2"\nchmod +x "$2"\n' \
	"$tmp" >"$tmp/cuda/bin/progcxx"
chmod +x "$tmp/cuda/bin/progcxx"
rm -f "$tmp/child.pid"
TMPDIR=$tmp/t CXX=$tmp/cuda/bin/progcxx "$tilec" run "$example" >/dev/null 2>"$tmp/err" &
pid=$!
i=0
while [ ! -s "$tmp/child.pid" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/child.pid" ] && kill -s TERM "$(cat "$tmp/child.pid")"
wait $pid
rc=$?
if [ ! -s "$tmp/child.pid" ]; then fail run-child-signalled "the emulated program never started"; kill $pid
elif [ $rc -ne 1 ]; then fail run-child-signalled "exit status $rc, expected 1"
else said run-child-signalled "the emulated program was stopped by signal 15 (SIGTERM) from outside tilec" &&
	pass run-child-signalled; fi
[ -e "$tmp/k.cubin" ] && fail signal-no-output "an interrupted run wrote k.cubin"
# During the write: the output is a FIFO nobody reads (tilec blocks opening it), the depfile is
# already staged as .tilec-XXXXXX next to it; SIGTERM must remove that file.
mkdir "$tmp/w"
mkfifo "$tmp/w/out.cu"
"$tilec" "$example" -MD -MF "$tmp/w/k.d" -o "$tmp/w/out.cu" >/dev/null 2>&1 &
pid=$!
i=0
while ! ls -a "$tmp/w" | grep -q '^\.tilec-' && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -s TERM $pid
wait $pid 2>/dev/null
if [ $i -ge 300 ]; then fail signal-write "no staged .tilec- file appeared"
elif ls -a "$tmp/w" | grep -q '^\.tilec-'; then fail signal-write "left behind: $(ls -a "$tmp/w" | grep '^\.tilec-')"
elif [ -e "$tmp/w/k.d" ]; then fail signal-write "an interrupted run wrote k.d"
else pass signal-write; fi

# ------------------------------------------------------------------ the environment

# A $TMPDIR that does not exist: /tmp instead (it was exit 4 for tilec run, 3 for the ptxas route).
TMPDIR=$tmp/no/such/dir
export TMPDIR
expect tmpdir-missing-run 0 run "$example" && pass tmpdir-missing-run
$limit "$tilec" "$example" -o "$tmp/t.cubin" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q 'ptxas not found' "$tmp/err"; then
	echo "SKIP robustness/tmpdir-missing-ptxas: no ptxas"
elif [ $rc -eq 0 ] && [ -s "$tmp/t.cubin" ]; then pass tmpdir-missing-ptxas
else fail tmpdir-missing-ptxas "exit status $rc"; fi
unset TMPDIR

# libtilert refuses a cubin whose ELF header names tables or sections outside the file (the driver
# crashed on them); the good cubin passes its checks (and fails only for want of a context).
rtdir=$(dirname "$tilec")
cat >"$tmp/rt.c" <<'C'
#include <stdio.h>
#include "tilert.h"
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		tilert_module *m = NULL;
		printf("%d %s\n", tilert_module_load_file(NULL, argv[i], &m), tilert_last_error());
	}
	return 0;
}
C
if [ ! -s "$tmp/t.cubin" ]; then
	echo "SKIP robustness/tilert-corrupt-cubin: no cubin (no ptxas)"
elif ! ${CC:-cc} -Iruntime -o "$tmp/rt" "$tmp/rt.c" "$rtdir/libtilert.a" -ldl >/dev/null 2>&1; then
	echo "SKIP robustness/tilert-corrupt-cubin: cannot link $rtdir/libtilert.a with ${CC:-cc} (a sanitizer build)"
else
	python3 - "$tmp/t.cubin" "$tmp" <<'PY'
import struct, sys
good = open(sys.argv[1], 'rb').read()
fields = {'phoff': (32, '<Q', 1 << 50), 'shoff': (40, '<Q', 1 << 40), 'phnum': (56, '<H', 60000),
          'shentsize': (58, '<H', 65535), 'shnum': (60, '<H', 60000), 'shstrndx': (62, '<H', 60000)}
for name, (off, fmt, v) in fields.items():
    d = bytearray(good)
    struct.pack_into(fmt, d, off, v)
    open('%s/bad_%s.cubin' % (sys.argv[2], name), 'wb').write(d)
open('%s/bad_trunc.cubin' % sys.argv[2], 'wb').write(good[:len(good) // 2])
PY
	"$tmp/rt" "$tmp/t.cubin" "$tmp"/bad_*.cubin >"$tmp/rt.out" 2>&1
	if ! head -n 1 "$tmp/rt.out" | grep -q '^1 .*ctx is NULL'; then fail tilert-corrupt-cubin "the good cubin: $(head -n 1 "$tmp/rt.out")"
	elif [ "$(grep -c '^3 .*corrupt ELF' "$tmp/rt.out")" -ne 7 ]; then fail tilert-corrupt-cubin "$(cat "$tmp/rt.out")"
	else pass tilert-corrupt-cubin; fi
fi

# ------------------------------------------------------------------ tilec run: the emulator's checks

# Global accesses at run-time coordinates are checked: the run stops with the tensor, the coordinates
# and the line (it was silent, or a segfault reported as an internal error).
cat >"$tmp/oob.tile" <<'TILE'
kernel k(A: f32[128, 4], Out: f32[128, 4], n: i32, m: i32) launch(grid = 1, block = 32)
{
    let tid = thread_idx.x;
    Out[tid, 0] = A[n, 0];
    Out[m, 1] = 1.0;
}
TILE
for n in 128 -1 1000000; do
	expect "emu-oob-read-$n" 1 run "$tmp/oob.tile" --set n=$n &&
		said "emu-oob-read-$n" "oob.tile:4: element [$n, 0] of A is outside its shape [128, 4]" && pass "emu-oob-read-$n"
done
expect emu-oob-write 1 run "$tmp/oob.tile" --set m=-3 && said emu-oob-write "oob.tile:5: element [-3, 1] of Out is outside" &&
	pass emu-oob-write
expect emu-in-bounds 0 run "$tmp/oob.tile" --set n=127 && pass emu-in-bounds

# --set refuses values outside the parameter's type (they wrapped silently).
printf 'kernel k(A: i32[4], n: i32, u: u8, h: f16) launch(grid = 1, block = 32)
{
    A[0] = n + i32(u) + i32(h);
}
' \
	>"$tmp/set.tile"
for bad in n=4294967296 n=-2147483649 u=256 u=-1 h=70000; do
	expect "set-range-$bad" 2 run "$tmp/set.tile" --set $bad && said "set-range-$bad" "is out of range" && pass "set-range-$bad"
done
expect set-range-edges 0 run "$tmp/set.tile" --set n=-2147483648 --set u=255 --set h=65504 && pass set-range-edges

# Grids of more than 8191 blocks link and run (each block's tensor memory was one static array).
printf 'kernel k(A: f32[1]) launch(grid = 8200, block = 1)
{
    if (block_idx.x == 8199) {
        A[0] = 1.0;
    }
}
' \
	>"$tmp/grid.tile"
expect emu-large-grid 0 run "$tmp/grid.tile" && grep -q 'A: f32\[1\] .*: 1$' "$tmp/out" && pass emu-large-grid

# --time-limit stops a kernel that runs too long.
printf 'kernel k(A: f32[1], n: i32) launch(grid = 1, block = 32)
{
    var i: i32 = 0;
    for j in 0..n {
        i = i + 1;
    }
    A[0] = f32(i);
}
' \
	>"$tmp/spin.tile"
expect time-limit 1 run "$tmp/spin.tile" --set n=2147483647 --time-limit 1 && said time-limit "ran longer than --time-limit=1" &&
	pass time-limit

# The -Wunwritten probe (the blocks a grid one larger adds, run after the kernel) is no part of the
# run: --time-limit does not count its time (here its block spins for about a second), and a read of
# a register it did not write reports nothing (it was an error for a block outside the grid).
printf 'kernel k(Out: f32[64], n: i32) launch(grid = 1, block = 32)
{
    var i: i32 = 0;
    if (block_idx.x > 0) {
        for j in 0..n {
            i = i + 1;
        }
    }
    Out[block_idx.x * 32 + thread_idx.x] = f32(i);
}
' \
	>"$tmp/probe_slow.tile"
expect probe-time-limit 0 run "$tmp/probe_slow.tile" --set n=100000000 --time-limit 1 &&
	said probe-time-limit "leaves 32 elements of 'Out' unwritten" && pass probe-time-limit
printf 'layout ROW = S[(32, 1) : (1@tid_in_wg, 1)];
kernel k(A: f32[N], Out: f32[N], N: i32) launch(grid = 1, block = 32)
{
    let col = block_idx.x * 32 + thread_idx.x;
    local r: f32[32, 1] layout ROW;
    view mine = r.view(1, layout = default);
    if (block_idx.x < 1) {
        mine[0] = A[col];
    }
    if (col < N) {
        Out[col] = mine[0];
    }
}
' \
	>"$tmp/probe_poison.tile"
expect probe-poison 0 run "$tmp/probe_poison.tile" --set N=64 &&
	said probe-poison "leaves 32 elements of 'Out' unwritten" && pass probe-poison

# --tmem NAME=PARAM: a pure epilogue (a load with nothing stored before it) reads PARAM's values.
cat >"$tmp/epilogue.tile" <<'TILE'
layout TD  = tmem_datapath_layout("D", 128, 32);
layout ROW = S[(128, 32) : (1@tid_in_wg, 1)];

kernel epilogue(Acc: f32[128, 32], Out: f32[128, 32]) launch(grid = 2, block = 128)
{
    shared address: u32[1];
    if (warp_id == 0) {
        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 64);
    }
    cta_sync;
    tmem acc: f32[128, 32] at address[0] + 32 layout TD;
    local r: f32[128, 32] layout ROW;
    view tv = acc.rearrange("(w r) c -> w r c", w = 4);
    view rv = r.rearrange("(w r) c -> w r c", w = 4);
    apply tcgen05.ld.sync.aligned.32x32b.x32.b32(rv, tv) scope warpgroup;
    tcgen05.wait::ld.sync.aligned;
    view mine = r.view(32, layout = default);
    for j in 0..32 {
        Out[thread_idx.x, j] = mine[j];
    }
    cta_sync;
    if (warp_id == 0) {
        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);
    }
}
TILE
expect tmem-fill 0 run "$tmp/epilogue.tile" --tmem acc=Acc --expect Out=Acc &&
	grep -q 'expect Out = Acc: all 4096 elements equal' "$tmp/out" && pass tmem-fill
expect tmem-fill-needed 1 run "$tmp/epilogue.tile" --expect Out=Acc && pass tmem-fill-needed
expect tmem-fill-no-tensor 2 run "$tmp/epilogue.tile" --tmem nope=Acc && said tmem-fill-no-tensor "no tmem tensor 'nope'" &&
	pass tmem-fill-no-tensor
expect tmem-fill-no-param 2 run "$tmp/epilogue.tile" --tmem acc=Nope && pass tmem-fill-no-param

# No tcgen05.st is left waiting when a block ends (the CPU runs the next block over the same cells):
# block 0's stores, with no wait::st, stop the run at its dealloc, with --seed too.
cat >"$tmp/pending.tile" <<'TILE'
layout TB  = tmem_datapath_layout("B", 64, 128);
layout REG = S[(64, 2, 64) : (1@tid_in_wg, 64@tid_in_wg, 1)];

kernel pending(A: f32[128, 64]) launch(grid = 2, block = 128)
{
    shared address: u32[1];
    if (warp_id == 0) {
        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 64);
    }
    cta_sync;
    tmem mem: f32[64, 128] at address[0] layout TB;
    local src: f32[64, 128] layout REG;
    view local_src = src.view(64, layout = default);
    for j in 0..64 {
        local_src[j] = A[thread_idx.x, j];
    }
    view mv = mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2);
    view sv = src.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2);
    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;
    cta_sync;
    if (warp_id == 0) {
        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);
    }
}
TILE
expect st-pending-at-block-end 1 run "$tmp/pending.tile" --unchecked-waits --seed 3 &&
	said st-pending-at-block-end "block (0, 0, 0), warp 0: tcgen05.dealloc frees TMEM" &&
	said st-pending-at-block-end "may land after the dealloc" && pass st-pending-at-block-end

# A --save-temps program run by hand with no report files tracks no poison: its tcgen05.ld read the
# cells' shadow all the same and crashed.
if expect save-temps-by-hand 0 run "$tmp/epilogue.tile" --tmem acc=Acc --save-temps; then
	program=$(sed -n 's/^tilec run: the program is \(.*\)\.cc$/\1/p' "$tmp/err")
	if [ -x "$program" ] && $limit "$program" >"$tmp/out" 2>"$tmp/err" </dev/null; then
		grep -q '^Out: f32\[128, 32\]' "$tmp/out" && pass save-temps-by-hand ||
			fail save-temps-by-hand "no Out line from $program"
	else
		fail save-temps-by-hand "$program (the program --save-temps kept) failed with status $?"
	fi
	[ -n "$program" ] && rm -rf "$(dirname "$program")"
fi

# Two --tmem tensors in the same cells (placed there by hand) would each write their values at the
# allocation, the later over the earlier: refused, naming both and a cell; the same tensor twice too.
# A --tmem tensor the kernel never accesses gets a note. (The automatic plan gives tensors loaded
# before any store columns of their own: tests/golden/run_tmem_seed_apart.)
cat >"$tmp/seed_shared.tile" <<'TILE'
layout TD = tmem_datapath_layout("D", 128, 32);
layout ROW = S[(128, 32) : (1@tid_in_wg, 1)];
kernel k(A: f32[128, 32], B: f32[128, 32], OA: f32[128, 32], OB: f32[128, 32]) launch(grid = 1, block = 128)
{
    shared slot: u32[1];
    if (warp_id == 0) {
        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&slot[0], 64);
        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    }
    cta_sync;
    tmem acc1: f32[128, 32] at slot[0] layout TD;
    tmem acc2: f32[128, 32] at slot[0] + 16 layout TD;
    tmem apart: f32[128, 32] at slot[0] + 32 layout TD;
    tmem unused: f32[128, 32] at slot[0] + 32 layout TD;
    local r: f32[128, 32] layout ROW;
    copy(r, acc1);
    copy(OA, r);
    copy(r, apart);
    copy(OB, r);
    cta_sync;
    if (warp_id == 0) {
        tcgen05.dealloc.cta_group::1.sync.aligned.b32(slot[0], 64);
    }
}
TILE
expect tmem-fill-shared 2 run "$tmp/seed_shared.tile" --tmem acc1=A --tmem acc2=B &&
	said tmem-fill-shared "--tmem acc1=A and --tmem acc2=B: 'acc1' and 'acc2' share TMEM lane 0, column 16 of their allocation" &&
	pass tmem-fill-shared
expect tmem-fill-twice 2 run "$tmp/seed_shared.tile" --tmem acc1=A --tmem acc1=B &&
	said tmem-fill-twice "--tmem acc1=A and --tmem acc1=B both fill 'acc1'" && pass tmem-fill-twice
expect tmem-fill-apart 0 run "$tmp/seed_shared.tile" --tmem acc1=A --tmem apart=B --expect OA=A --expect OB=B &&
	if [ -s "$tmp/err" ]; then fail tmem-fill-apart "a message: $(head -n 2 "$tmp/err")"; else pass tmem-fill-apart; fi
# acc1 and apart are read with no --tmem for them: their poison is a warning under --allow-uninit
expect tmem-fill-unused 0 run "$tmp/seed_shared.tile" --tmem unused=A --allow-uninit &&
	said tmem-fill-unused "note: --tmem unused=A: kernel k never loads or stores 'unused', so its values are not read" &&
	pass tmem-fill-unused

# A tmem layout with replicas (+ R[...]) places each element in every replica; --tmem fills them all.
# Warps 2 and 3 read the replica 64 lanes below the first.
cat >"$tmp/replica.tile" <<'TILE'
layout TWICE = S[(64, 32) : (1@TLane, 1@TCol)] + R[2 : 64@TLane];
layout ROW = S[(32, 32) : (1@laneid, 1)];

kernel replica(Acc: f32[64, 32], Out: f32[64, 32]) launch(grid = 1, block = 128)
{
    shared address: u32[1];
    if (warp_id == 0) {
        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 32);
    }
    cta_sync;
    tmem acc: f32[64, 32] at address[0] layout TWICE;
    tmem low: f32[32, 32] at address[0] + (64 << 16) layout default;
    tmem high: f32[32, 32] at address[0] + (96 << 16) layout default;
    local r: f32[32, 32] layout ROW;
    view mine = r.view(32, layout = default);
    if (warp_id == 2) {
        apply tcgen05.ld.sync.aligned.32x32b.x32.b32(r, low) scope warp;
        tcgen05.wait::ld.sync.aligned;
        for j in 0..32 {
            Out[lane_id, j] = mine[j];
        }
    }
    if (warp_id == 3) {
        apply tcgen05.ld.sync.aligned.32x32b.x32.b32(r, high) scope warp;
        tcgen05.wait::ld.sync.aligned;
        for j in 0..32 {
            Out[32 + lane_id, j] = mine[j];
        }
    }
    cta_sync;
    if (warp_id == 0) {
        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 32);
    }
}
TILE
expect tmem-fill-replicas 0 run "$tmp/replica.tile" --tmem acc=Acc --expect Out=Acc &&
	grep -q 'expect Out = Acc: all 2048 elements equal' "$tmp/out" && pass tmem-fill-replicas

# --expect OUT=IN~ULPS: within a tolerance (floats in units in the last place, integers absolute).
printf 'kernel k(A: f32[256], Out: f32[256], I: i32[256], J: i32[256]) launch(grid = 1, block = 256)
{
    Out[thread_idx.x] = A[thread_idx.x] * 1.0000001;
    J[thread_idx.x] = I[thread_idx.x] + 1;
}
' \
	>"$tmp/ulps.tile"
expect expect-exact 1 run "$tmp/ulps.tile" --expect Out=A && pass expect-exact
expect expect-ulps 0 run "$tmp/ulps.tile" --expect Out=A~2 --expect J=I~1 && grep -q 'within 2 ulps' "$tmp/out" &&
	pass expect-ulps
expect expect-ulps-short 1 run "$tmp/ulps.tile" --expect J=I~0 && pass expect-ulps-short
expect expect-ulps-bad 2 run "$tmp/ulps.tile" --expect Out=A~x && pass expect-ulps-bad

if [ $failed -ne 0 ]; then exit 1; fi
exit 0
