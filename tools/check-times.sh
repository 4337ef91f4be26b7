#!/bin/sh
# check-times.sh: what each step of `make check` costs, from the records tests/run-step.sh keeps
# (build/check/check-NAME.cpu: CPU seconds, user + system, of the runner and everything it ran, and
# its wall seconds). One line a step, the costliest first: CPU seconds, wall seconds, tests (PASS and
# FAIL lines of its log); then the total, and the wall time the steps would take on N cores when make
# starts them in CHECK_STEPS order, each on the first free core, each as long as its CPU time (the
# steps run one process at a time). The steps of make check-large that have figures follow.
# Usage: tools/check-times.sh [-j N] [STEP...]
#   without STEP: the figures of the last `make check` (or of the check-NAME targets run since);
#   with STEP names (e.g. asan-emu cli): runs `make check-STEP` for each, one after another, first.
#   -j N: the number of cores of the estimate (default: this machine's, as make check uses).
# The compiler builds that make check does first (make all check-build, normal and sanitizer) are not
# in these figures.
cd "$(dirname "$0")/.." || exit 2
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 1)
if [ "${1-}" = -j ]; then
	cores=$2
	shift 2
fi
for step in "$@"; do
	rm -f "build/check/check-$step.log" "build/check/check-$step.cpu"
	make --no-print-directory "check-$step" >/dev/null || exit 2
done
steps=$(make -pn 2>/dev/null | sed -n 's/^CHECK_STEPS = //p' | head -n 1)
[ -n "$steps" ] || { echo "$0: no CHECK_STEPS in the Makefile" >&2; exit 2; }
for step in $steps; do
	cpu=build/check/check-$step.cpu
	[ -f "$cpu" ] || continue
	tests=$(grep -c '^\(PASS\|FAIL\) ' "build/check/check-$step.log" 2>/dev/null)
	awk -v step="$step" -v tests="${tests:-0}" '{ c += $2; w += $3 } END { printf "%s %.1f %.1f %d\n", step, c, w, tests }' "$cpu"
done | awk -v cores="$cores" '
	{ name[NR] = $1; cpu[NR] = $2; wall[NR] = $3; tests[NR] = $4; total += $2; n += $4 }
	END {
		if (NR == 0) { print "no figures: run make check (or make check-NAME) first"; exit 1 }
		# make starts the steps in order, each on the first core that is free
		for (i = 1; i <= cores; i++) free[i] = 0
		for (s = 1; s <= NR; s++) {
			k = 1
			for (i = 2; i <= cores; i++) if (free[i] < free[k]) k = i
			free[k] += cpu[s]
		}
		end = 0
		for (i = 1; i <= cores; i++) if (free[i] > end) end = free[i]
		printf "%-22s %9s %9s %6s\n", "step", "CPU s", "wall s", "tests"
		# the costliest first
		for (s = 1; s <= NR; s++) order[s] = s
		for (s = 2; s <= NR; s++) for (t = s; t > 1 && cpu[order[t]] > cpu[order[t-1]]; t--) {
			x = order[t]; order[t] = order[t-1]; order[t-1] = x
		}
		for (s = 1; s <= NR; s++) { i = order[s]; printf "%-22s %9.1f %9.1f %6d\n", name[i], cpu[i], wall[i], tests[i] }
		printf "%-22s %9.1f %9s %6d\n", "total", total, "", n
		printf "estimated wall time on %d cores, steps in make order: %.0f s (%.1f min)\n", cores, end, end / 60
	}'
large=$(make -pn 2>/dev/null | sed -n 's/^CHECK_LARGE_STEPS = //p' | head -n 1)
for step in $large; do
	cpu=build/check/check-$step.cpu
	[ -f "$cpu" ] || continue
	awk -v step="$step" '{ c += $2; w += $3 } END { printf "%-22s %9.1f %9.1f   (make check-large)\n", step, c, w }' "$cpu"
done
