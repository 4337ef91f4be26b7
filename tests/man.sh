#!/bin/sh
# man.sh: lints the man page with `mandoc -Tlint -W warning`; any output is a failure.
# Without mandoc, one SKIP line (not counted).
cd "$(dirname "$0")/.." || exit 2
if ! command -v mandoc >/dev/null 2>&1; then
	echo "SKIP man/tilec.1: mandoc is not installed"
	exit 0
fi
if out=$(mandoc -Tlint -W warning docs/tilec.1 2>&1) && [ -z "$out" ]; then
	echo "PASS man/tilec.1"
	exit 0
fi
echo "FAIL man/tilec.1: mandoc -Tlint -W warning docs/tilec.1 is not silent"
printf '%s\n' "$out" | sed 's/^/    /'
exit 1
