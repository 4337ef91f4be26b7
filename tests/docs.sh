#!/bin/sh
# docs.sh: the generated documentation is up to date, and the documented examples behave as shown.
cd "$(dirname "$0")/.." || exit 2
tilec=${TILEC:-build/tilec}
failed=0
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
if sh tools/gen-images-doc.sh "$tilec" >"$tmp" && cmp -s "$tmp" docs/images.md; then
	echo "PASS docs/images.md"
else
	echo "FAIL docs/images.md: out of date; run: sh tools/gen-images-doc.sh $tilec > docs/images.md"
	failed=1
fi
if [ -f tools/check-docs.sh ]; then
	TILEC=$tilec sh tools/check-docs.sh || failed=1
fi
exit $failed
