#!/bin/sh
# run-step.sh LOG TAG NAME CMD...: runs one test runner of `make check`.
# Its output goes to the terminal when it ends (whole, so that steps run in parallel by make -j do
# not mix their lines) and is appended to LOG; with TAG other than '-', its
# "PASS x" and "FAIL x" lines become "PASS TAG/x" and "FAIL TAG/x". A runner that exits
# non-zero without printing a FAIL line (a crash, a missing program) adds one line
# "FAIL [TAG/]NAME: ...", so the total in LOG counts it.
log=$1 tag=$2 name=$3
shift 3
if [ "$tag" = - ]; then prefix=; else prefix=$tag/; fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
{ "$@" 2>&1; echo $? >"$tmp/rc"; } | sed -e "s|^PASS |PASS $prefix|" -e "s|^FAIL |FAIL $prefix|" >"$tmp/out"
cat "$tmp/out"
cat "$tmp/out" >>"$log"
rc=$(cat "$tmp/rc")
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$tmp/out"; then
	line="FAIL $prefix$name: exited with status $rc without a FAIL line"
	echo "$line"
	echo "$line" >>"$log"
fi
exit 0
