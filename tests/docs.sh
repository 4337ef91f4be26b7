#!/bin/sh
# docs.sh: the generated documentation is up to date, the documented examples behave as shown, and
# docs/diagnostics.md shows every message of the sources.
cd "$(dirname "$0")/.." || exit 2
tilec=${TILEC:-build/tilec}
TILEC_CACHE=0 # the documented runs compile as shown, and write nothing to ~/.cache
export TILEC_CACHE
failed=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if sh tools/gen-images-doc.sh "$tilec" "$tmp" && cmp -s "$tmp/images.md" docs/images.md &&
	diff -r "$tmp/images" docs/images >/dev/null; then
	echo "PASS docs/images.md"
else
	echo "FAIL docs/images.md and docs/images/: out of date; run: sh tools/gen-images-doc.sh $tilec docs"
	failed=1
fi
if [ -f tools/check-docs.sh ]; then
	TILEC=$tilec sh tools/check-docs.sh || failed=1
fi
# docs/ stands alone: no page points to files a user of the repository does not have (the development
# notes beside the checkout: ../shared/, its reproducers, TCGEN05.md, LANGUAGE.md)
if grep -nE '\.\./shared|shared/repro|TCGEN05\.md|LANGUAGE\.md' README.md docs/*.md docs/tilec.1 >"$tmp/outside.txt"; then
	echo "FAIL docs/stand-alone: a page refers to files outside the repository:"
	sed 's/^/    /' "$tmp/outside.txt"
	failed=1
else
	echo "PASS docs/stand-alone"
fi
# every message of the sources is on docs/diagnostics.md
python3 tools/diag-coverage.py || failed=1
exit $failed
