#!/bin/sh
# scaling.sh: how tilec's compile time and memory grow with the size of a program. Four generated
# kinds of program, each at K = 10, 20, 40, ... up to MAX (default 10240):
#   applies  K applies, tcgen05.st and tcgen05.ld in turn, each with its wait, over distinct TMEM
#            rectangles (32x32b.xW, W = 1, 2, 4, ... 128 in turn, each at the next column; the columns
#            of W start again after 513 - W of its applies) and no cta_sync, so that every access
#            stays on record for the other warps
#   copies   the same K accesses written as copy(), with the waits left to tilec
#   devices  K device functions (a store and its wait each), each called once
#   planned  K tmem tensors without `at`, placed by tilec's plan, each stored and loaded once
# For each: `tilec --emit=ptx` wall seconds, CPU seconds (user + system) and peak resident memory
# (MiB), from getrusage, and the ratio of CPU time and memory to the previous K's: about 2 where the
# growth is linear, 4 where it is quadratic (small K are noise; on a busy machine the CPU time is the
# steadier). A run past LIMIT seconds (default 120) is stopped and the
# larger K of that kind are skipped.
#
# Usage: bench/scaling.sh [-m MAX] [-t LIMIT] [-k KIND]... [TILEC]
#   TILEC  default build/tilec
#        bench/scaling.sh -p KIND K   prints the program of KIND with K, for a profiler
# Issue 31's targets: every kind linear up to 10,000; 10,000 device functions under 10 s and 1 GB.
max=10240 limit=120 kinds= print=
while [ $# -gt 0 ]; do
	case $1 in
	-m) max=$2; shift 2 ;;
	-t) limit=$2; shift 2 ;;
	-k) kinds="$kinds $2"; shift 2 ;;
	-p) print=$2 max=$3; shift 3 ;;
	-h|--help) sed -n '2,/^# Issue/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "usage: $0 [-m MAX] [-t LIMIT] [-k KIND]... [TILEC]" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -n "$kinds" ] || kinds="applies copies devices planned"
root=$(cd "$(dirname "$0")/.." && pwd) || exit 2
tilec=${1:-$root/build/tilec}
case $tilec in /*) ;; *) tilec=$PWD/$tilec ;; esac
[ -x "$tilec" ] || { echo "$0: $tilec is not an executable (make build/tilec)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scaling.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' HUP INT TERM

# measure LIMIT CMD...: runs CMD; prints "SECONDS CPU_SECONDS MIB STATUS" (STATUS 124: stopped at LIMIT)
cat >"$tmp/measure.c" <<'EOF'
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct timespec t0, t1;
	if (argc < 3)
		return 2;
	int limit = atoi(argv[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		alarm((unsigned)limit);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	int status = WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st) == SIGALRM ? 124 : 128 + WTERMSIG(st);
	double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	printf("%.3f %.3f %.1f %d\n", s, cpu, (double)ru.ru_maxrss / 1024.0, status);
	return 0;
}
EOF
cc -O2 -o "$tmp/measure" "$tmp/measure.c" || { echo "$0: cannot compile the timing helper with cc" >&2; exit 3; }

# The kernel's start: a 512-column allocation, local tensors of every width W (32x32b.xW) written.
prologue() {
	cat <<'EOF'
layout TD = tmem_datapath_layout("D", 128, 512);
layout TD32 = tmem_datapath_layout("D", 128, 32);
EOF
	for w in 1 2 4 8 16 32 64 128; do
		echo "layout R$w = S[(128, $w) : (1@tid_in_wg, 1)];"
	done
}

kernel_start() { # NAME, with the allocation when $2 is alloc
	echo "kernel $1(A: f32[128, 128], Out: f32[128, 128]) launch(grid = 1, block = 128)"
	echo "{"
	echo "    let tid = thread_idx.x;"
	if [ "$2" = alloc ]; then
		echo "    shared address: u32[1];"
		echo "    if (warp_id == 0) {"
		echo "        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 512);"
		echo "    }"
		echo "    cta_sync;"
		echo "    tmem big: f32[128, 512] at address[0] layout TD;"
	fi
}

kernel_end() { # with the dealloc when $1 is alloc
	echo "    cta_sync;"
	if [ "$1" = alloc ]; then
		echo "    if (warp_id == 0) {"
		echo "        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"
		echo "        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 512);"
		echo "    }"
	fi
	echo "}"
}

locals() {
	for w in 1 2 4 8 16 32 64 128; do
		echo "    local r$w: f32[128, $w] layout R$w;"
		echo "    view s$w = r$w.view($w, layout = default);"
		echo "    for j in 0..$w {"
		echo "        s$w[j] = A[tid, j];"
		echo "    }"
		echo "    view v$w = r$w.rearrange(\"(w l) c -> w l c\", w = 4);"
	done
}

# gen_applies K copy|apply
gen_applies() {
	prologue
	kernel_start many alloc
	locals
	awk -v k="$1" -v how="$2" 'BEGIN {
		for (i = 0; i < k; i++) {
			w = 2 ^ (i % 8); c = int(i / 8) % (513 - w)
			printf "    view t%d = big[:, %d:%d].rearrange(\"(w l) c -> w l c\", w = 4);\n", i, c, c + w
			if (how == "copy") {
				if (i % 2 == 0) printf "    copy(t%d, v%d);\n", i, w
				else printf "    copy(v%d, t%d);\n", w, i
			} else if (i % 2 == 0) {
				printf "    apply tcgen05.st.sync.aligned.32x32b.x%d.b32(t%d, v%d) scope warpgroup;\n", w, i, w
				print "    tcgen05.wait::st.sync.aligned;"
			} else {
				printf "    apply tcgen05.ld.sync.aligned.32x32b.x%d.b32(v%d, t%d) scope warpgroup;\n", w, w, i
				print "    tcgen05.wait::ld.sync.aligned;"
			}
		}
	}'
	echo "    for j in 0..128 {"
	echo "        Out[tid, j] = s128[j];"
	echo "    }"
	kernel_end alloc
}

gen_devices() {
	prologue
	awk -v k="$1" 'BEGIN {
		for (i = 0; i < k; i++) {
			printf "device stash%d(acc: tmem f32[128, 32] layout TD32, r: local f32[128, 32] layout R32) scope warpgroup\n", i
			print "{"
			print "    view rv = r.rearrange(\"(w l) c -> w l c\", w = 4);"
			print "    view av = acc.rearrange(\"(w l) c -> w l c\", w = 4);"
			print "    apply tcgen05.st.sync.aligned.32x32b.x32.b32(av, rv) scope warpgroup;"
			print "    tcgen05.wait::st.sync.aligned;"
			print "}"
		}
	}'
	kernel_start many alloc
	locals
	awk -v k="$1" 'BEGIN {
		for (i = 0; i < k; i++)
			printf "    stash%d(big[:, %d:%d], r32);\n", i, 32 * (i % 16), 32 * (i % 16) + 32
	}'
	echo "    for j in 0..32 {"
	echo "        Out[tid, j] = s32[j];"
	echo "    }"
	kernel_end alloc
}

gen_planned() {
	prologue
	kernel_start many
	locals
	awk -v k="$1" 'BEGIN {
		for (i = 0; i < k; i++) {
			printf "    tmem m%d: f32[128, 32] layout TD32;\n", i
			printf "    view t%d = m%d.rearrange(\"(w l) c -> w l c\", w = 4);\n", i, i
			printf "    apply tcgen05.st.sync.aligned.32x32b.x32.b32(t%d, v32) scope warpgroup;\n", i
			print "    tcgen05.wait::st.sync.aligned;"
			printf "    apply tcgen05.ld.sync.aligned.32x32b.x32.b32(v32, t%d) scope warpgroup;\n", i
			print "    tcgen05.wait::ld.sync.aligned;"
		}
	}'
	echo "    for j in 0..32 {"
	echo "        Out[tid, j] = s32[j];"
	echo "    }"
	kernel_end
}

# gen KIND K: the program
gen() {
	case $1 in
	applies) gen_applies "$2" apply ;;
	copies) gen_applies "$2" copy ;;
	devices) gen_devices "$2" ;;
	planned) gen_planned "$2" ;;
	*) echo "$0: unknown kind $1 (applies, copies, devices, planned)" >&2; exit 2 ;;
	esac
}
if [ -n "$print" ]; then
	gen "$print" "$max"
	exit 0
fi

echo "tilec: $tilec ($("$tilec" --version))"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for kind in $kinds; do
	echo
	printf '%-8s %7s %9s %9s %8s %9s %8s\n' "$kind" K seconds 'cpu s' ratio 'peak MiB' ratio
	k=10 prev_s= prev_m=
	while [ $k -le "$max" ]; do
		gen "$kind" $k >"$tmp/p.tile"
		set -- $("$tmp/measure" "$limit" "$tilec" --emit=ptx -o "$tmp/p.ptx" "$tmp/p.tile" 2>"$tmp/err")
		if [ "$4" = 124 ]; then
			printf '%-8s %7d %9s\n' "" $k "> $limit (stopped; larger K skipped)"
			break
		elif [ "$4" != 0 ]; then
			echo "$0: tilec failed (status $4) on the $kind program with K = $k:" >&2
			head -n 20 "$tmp/err" >&2
			exit 1
		fi
		awk -v k=$k -v w="$1" -v s="$2" -v m="$3" -v ps="$prev_s" -v pm="$prev_m" 'BEGIN {
			rs = ps != "" && ps > 0 ? sprintf("%.2f", s / ps) : "-"
			rm = pm != "" && pm > 0 ? sprintf("%.2f", m / pm) : "-"
			printf "%-8s %7d %9.3f %9.3f %8s %9.1f %8s\n", "", k, w, s, rs, m, rm
		}'
		prev_s=$2 prev_m=$3
		k=$((k * 2))
	done
done
