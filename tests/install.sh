#!/bin/sh
# install.sh [MAKE]: `make install DESTDIR=TMP PREFIX=/usr` puts every file where it belongs,
# libtilert with its SONAME and versioned names as Debian expects, and `make uninstall` removes
# them again; a program built against an installed copy through tilert.pc, shared and -static,
# links and starts. One PASS/FAIL line each.
cd "$(dirname "$0")/.." || exit 2
make=${1:-make}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/^#define TILEC_VERSION "\(.*\)"$/\1/p' src/tilec.h)
major=${version%%.*}
files="usr/bin/tilec usr/share/man/man1/tilec.1 usr/lib/libtilert.a usr/lib/libtilert.so.$version
usr/include/tilert.h usr/lib/pkgconfig/tilert.pc"
failed=0

fail() {
	echo "FAIL $1: $2"
	[ -s "$tmp/log" ] && sed 's/^/    /' "$tmp/log"
	failed=1
}

# link NAME: the symbolic link usr/lib/NAME, or empty.
link() {
	[ -h "$tmp/root/usr/lib/$1" ] && readlink "$tmp/root/usr/lib/$1"
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
elif ! grep -q "^Version: *$version\$" "$pc"; then
	fail install/files "tilert.pc's version is not $version: $(grep '^Version' "$pc")"
elif ! grep -q '/usr' "$pc" || grep -q '/usr/local' "$pc"; then
	fail install/files "tilert.pc does not use PREFIX=/usr"
else
	echo "PASS install/files"
fi

# libtilert.so.VERSION is the file, libtilert.so.MAJOR (its SONAME) and libtilert.so the links.
: >"$tmp/log"
soname=$(LC_ALL=C readelf -d "$tmp/root/usr/lib/libtilert.so.$version" 2>/dev/null |
	sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ "$soname" != "libtilert.so.$major" ]; then
	fail install/soname "the SONAME of libtilert.so.$version is '$soname', not libtilert.so.$major"
elif [ "$(link "libtilert.so.$major")" != "libtilert.so.$version" ]; then
	fail install/soname "libtilert.so.$major is not a link to libtilert.so.$version"
elif [ "$(link libtilert.so)" != "libtilert.so.$major" ]; then
	fail install/soname "libtilert.so is not a link to libtilert.so.$major"
else
	echo "PASS install/soname"
fi

if ! $make --no-print-directory uninstall DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/log" 2>&1; then
	fail install/uninstall "make uninstall failed"
	exit 1
fi
left=$(cd "$tmp/root" && find . ! -type d | sort | tr '\n' ' ')
if [ -n "$left" ]; then
	fail install/uninstall "left behind: $left"
else
	echo "PASS install/uninstall"
fi

# A program that uses libtilert, built against a copy installed under PREFIX through its .pc file.
prefix=$tmp/prefix
if ! $make --no-print-directory install PREFIX="$prefix" >"$tmp/log" 2>&1; then
	fail install/prefix "make install PREFIX=$prefix failed"
	exit 1
fi
cat >"$tmp/use.c" <<'EOF'
/* Starts libtilert: without a Blackwell driver tilert_init fails with a message, which is fine here. */
#include <stdio.h>
#include <tilert.h>
int
main(void)
{
	tilert_ctx *ctx = NULL;
	if (tilert_init(&ctx, 0) == 0) {
		tilert_destroy(ctx);
		puts("tilert: initialised");
	} else {
		printf("tilert: %s\n", tilert_last_error());
	}
	return 0;
}
EOF
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
cc=${CC:-cc}
# shellcheck disable=SC2046 # pkg-config's output is a list of words
if ! $cc -o "$tmp/use" "$tmp/use.c" $(pkg-config --cflags --libs tilert) >"$tmp/log" 2>&1; then
	fail install/pkg-config-shared "cc ... \$(pkg-config --cflags --libs tilert) failed"
elif ! LC_ALL=C readelf -d "$tmp/use" | grep -q "(NEEDED).*\[libtilert\.so\.$major\]"; then
	readelf -d "$tmp/use" >"$tmp/log" 2>&1
	fail install/pkg-config-shared "the program does not need libtilert.so.$major"
elif ! LD_LIBRARY_PATH=$prefix/lib "$tmp/use" >"$tmp/log" 2>&1 || ! grep -q '^tilert: ' "$tmp/log"; then
	fail install/pkg-config-shared "the program linked with libtilert.so did not start"
else
	echo "PASS install/pkg-config-shared"
fi
# -static: libtilert.a and what it needs (pkg-config --static); glibc warns that dlopen in a static
# program needs the shared libraries at run time, which is what libtilert does with libcuda.so.1.
if ! printf 'int main(void) { return 0; }\n' >"$tmp/probe.c" || ! $cc -static -o "$tmp/probe" "$tmp/probe.c" 2>/dev/null; then
	echo "SKIP install/pkg-config-static: $cc cannot link static programs here"
	# shellcheck disable=SC2046
elif ! $cc -static -o "$tmp/use-static" "$tmp/use.c" $(pkg-config --static --cflags --libs tilert) >"$tmp/log" 2>&1; then
	fail install/pkg-config-static "cc -static ... \$(pkg-config --static --cflags --libs tilert) failed"
elif LC_ALL=C readelf -d "$tmp/use-static" 2>/dev/null | grep -q '(NEEDED)'; then
	fail install/pkg-config-static "the -static program needs shared libraries"
elif ! "$tmp/use-static" >"$tmp/log" 2>&1 || ! grep -q '^tilert: ' "$tmp/log"; then
	fail install/pkg-config-static "the -static program did not start"
else
	echo "PASS install/pkg-config-static"
fi
exit $failed
