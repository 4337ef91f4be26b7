#!/bin/sh
# run-step.sh LOG TAG NAME CMD...: runs one test runner of `make check`.
# Its output goes to the terminal when it ends (whole, so that steps run in parallel by make -j do
# not mix their lines) and is appended to LOG; with TAG other than '-', its
# "PASS x" and "FAIL x" lines become "PASS TAG/x" and "FAIL TAG/x". A runner that exits
# non-zero without printing a FAIL line (a crash, a missing program) adds one line
# "FAIL [TAG/]NAME: ...", so the total in LOG counts it.
# The CPU seconds the runner and everything it waited for used (user + system, from `times`) and
# its wall seconds are appended to LOG with .log replaced by .cpu, one line "NAME CPU WALL" a run;
# tools/check-times.sh adds them up per step.
log=$1 tag=$2 name=$3
shift 3
if [ "$tag" = - ]; then prefix=; else prefix=$tag/; fi
# A log older than build/check/lsan, which check-env writes when a make run starts its steps, is from
# an earlier run: started anew, so that `make check-NAME` twice counts its tests once (a step may run
# several runners into one log, each after the first appending).
if [ -f "$log" ] && [ -n "$(find "$(dirname "$log")/lsan" -newer "$log" 2>/dev/null)" ]; then
	rm -f "$log" "${log%.log}.cpu"
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# no test writes the cache of tilec run into the user's ~/.cache (tests/emu.sh tests it in a directory of its own)
TILEC_CACHE=0
export TILEC_CACHE
# `times` runs in this shell (in a $(...) subshell it would see no children); its second line holds
# the children's user and system times as XmY.Zs.
times >"$tmp/cpu0"
wall0=$(date +%s.%N)
{ "$@" 2>&1; echo $? >"$tmp/rc"; } | sed -e "s|^PASS |PASS $prefix|" -e "s|^FAIL |FAIL $prefix|" >"$tmp/out"
cat "$tmp/out"
cat "$tmp/out" >>"$log"
rc=$(cat "$tmp/rc")
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$tmp/out"; then
	line="FAIL $prefix$name: exited with status $rc without a FAIL line"
	echo "$line"
	echo "$line" >>"$log"
fi
wall1=$(date +%s.%N)
times >"$tmp/cpu1"
cat "$tmp/cpu0" "$tmp/cpu1" | awk -v name="$prefix$name" -v wall="$wall1 - $wall0" '
	FNR % 2 == 0 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); cpu[NR] += t[1] * 60 + t[2] } }
	END { split(wall, w, / - /); printf "%s %.2f %.2f\n", name, cpu[4] - cpu[2], w[1] - w[2] }' >>"${log%.log}.cpu"
exit 0
