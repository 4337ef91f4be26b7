#!/bin/sh
# tables.sh TILEC: the facts of src/isa.c stay in one place, one PASS/FAIL line each.
#   tables/mnemonic/WORD  no file of src/ or grammar/ but src/isa.c spells a tcgen05 mnemonic
#                      ("tcgen05." and a letter), an mbarrier one ("mbarrier.") or "cp.async.bulk" outside
#                      its comments: code and messages take them from isa_name / isa_spelling / isa_format.
#   tables/instr/NAME/alone  an instruction name that cannot be mistaken (it has "::" or "_", as
#                      wait::ld) is spelled alone in no other file either, outside comments.
#   tables/arch/ARCH   each architecture `tilec --help` lists is named in no file but src/isa.c.
#   tables/no-circles  no two files of src/ call each other in a circle (tools/file-cycles.py on the
#                      objects beside TILEC).
#   tables/function-length  no function of src/*.c is longer than 200 lines, from the line that names
#                      it to its closing brace at column 0.
#   tables/no-function-pointer-globals  src/tilec.h declares no extern function pointer: a file that
#                      another calls back takes the function as a parameter.
#   tables/ptx/no-text-parsing  the PTX back end (src/emit_ptx.c, src/ptx*.c) calls no string
#                      scanner (sscanf, strstr, strncmp, strchr, memchr, ...): its passes read
#                      instruction records, never the PTX text they print.
# Exits 1 when a test failed.
runner=tables
. "$(dirname "$0")/runner.sh"
failed=0

# check NAME TEXT: no file but src/isa.c contains TEXT.
check() {
	where=$(grep -l -F -- "$2" src/*.c src/*.h grammar/* | grep -v '^src/isa\.c$' | tr '\n' ' ')
	if [ -n "$where" ]; then
		echo "FAIL tables/$1: '$2' is spelled in $where(use isa.c's table)"
		failed=1
	else
		echo "PASS tables/$1"
	fi
}

# outside FILE WORD...: the lines of each file of src/ and grammar/ but src/isa.c, comments blanked
# (C's /* */ and //; strings and character constants kept, a string ends at its line's end), that
# match the extended regular expression WORD, as FILE:LINE: TEXT.
outside_comments() {
	python3 - "$@" src/*.c src/*.h grammar/* <<'PY'
import re, sys
pattern, files = re.compile(sys.argv[1]), [f for f in sys.argv[2:] if f != "src/isa.c"]
for name in files:
    text, out, i, state = open(name).read(), [], 0, "code"
    while i < len(text):
        c, two = text[i], text[i:i + 2]
        if state == "code":
            state = {'"': "dq", "'": "sq"}.get(c, "code")
            if two in ("/*", "//"):
                state, c, i = ("block" if two == "/*" else "line"), "  ", i + 1
        elif state in ("dq", "sq"):
            if c == "\\" and i + 1 < len(text):
                c, i = two, i + 1
            elif c == "\n" or c == {"dq": '"', "sq": "'"}[state]:
                state = "code"
        elif state == "line":
            state, c = ("code", c) if c == "\n" else ("line", " ")
        elif two == "*/":
            state, c, i = "code", "  ", i + 1
        else:
            c = c if c == "\n" else " "
        out.append(c)
        i += 1
    for n, line in enumerate("".join(out).split("\n"), 1):
        if pattern.search(line):
            print("%s:%d: %s" % (name, n, line.strip()[:80]))
PY
}

# mnemonic NAME REGEX: no file but src/isa.c spells REGEX outside its comments.
mnemonic() {
	where=$(outside_comments "$2")
	if [ -n "$where" ]; then
		echo "FAIL tables/$1: spelled outside src/isa.c (take it from isa.c's description):"
		printf "%s\n" "$where" | sed 's/^/    /'
		failed=1
	else
		echo "PASS tables/$1"
	fi
}

mnemonic mnemonic/tcgen05 'tcgen05\.[A-Za-z]'
mnemonic mnemonic/mbarrier 'mbarrier\.'
mnemonic mnemonic/cp.async.bulk 'cp\.async\.bulk'
names=$(sed -n 's/^	{TC_[A-Z_]*, "\([^"]*\)".*/\1/p' src/isa.c)
if [ "$(echo "$names" | wc -w)" -lt 9 ]; then
	echo "FAIL tables/instr: found only '$names' in src/isa.c's rows"
	failed=1
fi
for name in $names; do
	case $name in
	*::* | *_*) mnemonic "instr/$name/alone" "$(printf '%s' "$name" | sed 's/[.]/\\./g')" ;;
	esac
done
archs=$("$tilec" --help | sed -n 's/^  -arch=ARCH *//p' | sed 's/ (default)//; s/,//g')
if [ "$(echo "$archs" | wc -w)" -lt 6 ]; then
	echo "FAIL tables/arch: --help lists only '$archs'"
	failed=1
fi
for arch in $archs; do
	check "arch/$arch" "$arch"
done
objdir=$(dirname "$tilec")/obj
if [ ! -d "$objdir" ]; then
	echo "FAIL tables/no-circles: no objects in $objdir"
	failed=1
elif circles=$(python3 tools/file-cycles.py "$objdir") && [ -z "$circles" ]; then
	echo "PASS tables/no-circles"
else
	echo "FAIL tables/no-circles: these files call each other in a circle: $circles"
	failed=1
fi
long=$(awk '
	FNR == 1 { start = 0; open = 0 }
	/^[A-Za-z_][A-Za-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name); start = FNR }
	/^\{/ && start { open = start; start = 0 }
	/^\}/ && open {
		if (FNR - open + 1 > 200)
			printf "%s:%s (%d lines) ", FILENAME, name, FNR - open + 1
		open = 0
	}' src/*.c)
if [ -n "$long" ]; then
	echo "FAIL tables/function-length: longer than 200 lines: $long"
	failed=1
else
	echo "PASS tables/function-length"
fi
pointers=$(grep -nE '^extern[^;]*\(\*[A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*\(' src/tilec.h | tr '\n' ' ')
if [ -n "$pointers" ]; then
	echo "FAIL tables/no-function-pointer-globals: src/tilec.h declares $pointers"
	failed=1
else
	echo "PASS tables/no-function-pointer-globals"
fi
ptx_files=$(ls src/emit_ptx.c src/ptx*.c 2>/dev/null)
scanners=$(grep -n -E '\<(sscanf|strstr|strcasestr|strncmp|strchr|strrchr|memchr|memmem|strspn|strcspn|strpbrk|strtok|strtol|strtoul|atoi)\>' $ptx_files)
if [ -z "$ptx_files" ]; then
	echo "FAIL tables/ptx/no-text-parsing: no src/emit_ptx.c"
	failed=1
elif [ -n "$scanners" ]; then
	echo "FAIL tables/ptx/no-text-parsing: a string scanner in the PTX back end (its passes read records): $scanners"
	failed=1
else
	echo "PASS tables/ptx/no-text-parsing"
fi
exit $failed
