#!/bin/sh
# copy-diff.sh TILEC: a fixed-seed sample of tools/copy-diff.py, the differential tester of `copy`:
# random programs of copies between global, local (registers), shared and tmem tensors, run with
# `tilec run --dump` and compared element by element with what the script computes from the inputs.
# One PASS/FAIL line per program (copy-diff/SEED/N: the cases that passed, those tilec refused), and
# copy-diff/cases: at least 60 cases ran and passed, so that a generator that stops producing
# programs tilec accepts shows. SKIP without python3 or a C++ compiler. Exits 1 when a test failed.
runner=copy-diff
. "$(dirname "$0")/runner.sh"
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP copy-diff: no python3"
	exit 0
fi
if ! command -v "${CXX:-c++}" >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
	echo "SKIP copy-diff: no C++ compiler"
	exit 0
fi
runner_work 300
python3 tools/copy-diff.py --tilec "$tilec" --seed 7 --programs 12 --cases 8 --lines --tmp "$tmp" >"$tmp/out" 2>&1
rc=$?
grep -E '^(PASS|FAIL) ' "$tmp/out"
summary=$(grep '^copy-diff: ' "$tmp/out")
name=copy-diff/cases
passed=$(echo "$summary" | sed -n 's/.* cases: \([0-9]*\) passed.*/\1/p')
if [ $rc -ne 0 ] || [ -z "$passed" ] || [ "$passed" -lt 60 ]; then
	fail "exit status $rc, ${passed:-no} cases passed: ${summary:-no summary}"
	grep -vE '^(PASS|FAIL) ' "$tmp/out" | head -n 40 | sed 's/^/    /'
else
	echo "PASS $name ($summary)"
fi
exit $failed
