# runner.sh: the start every test runner shares, sourced after setting `runner` (its name in FAIL
# lines): checks the one argument TILEC, moves to the repository root, makes $tilec absolute and
# sets NO_COLOR.
if [ $# -ne 1 ]; then
	echo "usage: $0 TILEC" >&2
	exit 2
fi
cd "$(dirname "$0")/.." || exit 2
case $1 in
/*) tilec=$1 ;;
*) tilec=$PWD/$1 ;;
esac
if [ ! -x "$tilec" ]; then
	echo "FAIL $runner: $1 is not an executable"
	exit 1
fi
NO_COLOR=1
export NO_COLOR
