#!/bin/sh
# install.sh [MAKE]: `make install DESTDIR=TMP PREFIX=/usr` puts every file where it belongs,
# and `make uninstall` with the same variables removes them again. One PASS/FAIL line each.
cd "$(dirname "$0")/.." || exit 2
make=${1:-make}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
files="usr/bin/tilec usr/share/man/man1/tilec.1 usr/lib/libtilert.a usr/lib/libtilert.so
usr/include/tilert.h usr/lib/pkgconfig/tilert.pc"
failed=0

fail() {
	echo "FAIL $1: $2"
	sed 's/^/    /' "$tmp/log"
	failed=1
}

if ! $make --no-print-directory install DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/log" 2>&1; then
	fail install/make "make install DESTDIR=... PREFIX=/usr failed"
	exit 1
fi
missing=
for f in $files; do
	[ -f "$tmp/root/$f" ] || missing="$missing $f"
done
pc=$tmp/root/usr/lib/pkgconfig/tilert.pc
if [ -n "$missing" ]; then
	fail install/files "not installed:$missing"
elif [ ! -x "$tmp/root/usr/bin/tilec" ]; then
	fail install/files "usr/bin/tilec is not executable"
elif grep -q '@[A-Z]*@' "$pc"; then
	fail install/files "tilert.pc still has a @VARIABLE@: $(grep '@[A-Z]*@' "$pc" | head -n 1)"
elif ! grep -q '^Version: *[0-9]' "$pc"; then
	fail install/files "tilert.pc has no version: $(grep '^Version' "$pc")"
elif ! grep -q '/usr' "$pc" || grep -q '/usr/local' "$pc"; then
	fail install/files "tilert.pc does not use PREFIX=/usr"
else
	echo "PASS install/files"
fi
if ! $make --no-print-directory uninstall DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/log" 2>&1; then
	fail install/uninstall "make uninstall failed"
	exit 1
fi
left=$(cd "$tmp/root" && find . -type f | sort | tr '\n' ' ')
if [ -n "$left" ]; then
	fail install/uninstall "left behind: $left"
else
	echo "PASS install/uninstall"
fi
exit $failed
