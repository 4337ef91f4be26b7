#!/bin/sh
# install-deps.sh: makes sure the tools that build and test tilec are present (Debian names).
# Quiet when everything is there. When something is missing: as root with apt-get, installs it;
# otherwise says what to install and exits 1. mandoc (man page lint), xmllint (the pictures as
# XML) and nvcc (.cubin output, tests/ptxas.sh) are optional: their absence is only reported.
need=
want=
command -v "${CC:-cc}" >/dev/null 2>&1 || need="$need gcc"
command -v re2c >/dev/null 2>&1 || need="$need re2c"
command -v bison >/dev/null 2>&1 || need="$need bison"
if command -v pkg-config >/dev/null 2>&1; then
	pkg-config --exists check || need="$need check"
else
	need="$need pkg-config"
	[ -f /usr/include/check.h ] || need="$need check"
fi
# the pictures of tilec --draw are rendered (rsvg-convert) and checked (python3) by tests/draw.sh
command -v rsvg-convert >/dev/null 2>&1 || need="$need librsvg2-bin"
command -v python3 >/dev/null 2>&1 || need="$need python3"
command -v mandoc >/dev/null 2>&1 || want="$want mandoc"
command -v xmllint >/dev/null 2>&1 || want="$want libxml2-utils"

apt_install() {
	apt-get install -y --no-install-recommends "$@" ||
		{ apt-get update && apt-get install -y --no-install-recommends "$@"; }
}
if [ "${1-}" != --no-install ] && [ -n "$need$want" ] && [ "$(id -u)" = 0 ] &&
	command -v apt-get >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	echo "tilec: installing Debian packages:$need$want" >&2
	# shellcheck disable=SC2086 # lists of package names
	apt_install $need $want || { [ -n "$need" ] && apt_install $need; }
	# Look again: only what is still missing counts.
	exec sh "$0" --no-install
fi

if [ -n "$need" ]; then
	need=${need# }
	echo "tilec: missing Debian packages: $need; run: sudo apt-get install $need" >&2
	exit 1
fi
case $want in
*mandoc*) echo "tilec: warning: mandoc is missing, so the man page is not linted; run: sudo apt-get install mandoc" >&2 ;;
esac
case $want in
*libxml2-utils*) echo "tilec: warning: xmllint is missing, so the pictures are not checked as XML; run: sudo apt-get install libxml2-utils" >&2 ;;
esac
if ! sh "$(dirname "$0")/find-nvcc.sh" >/dev/null; then
	echo "tilec: warning: nvcc not found (CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda): no .cubin output, tests/ptxas.sh skipped" >&2
fi
exit 0
