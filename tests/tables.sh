#!/bin/sh
# tables.sh TILEC: the facts of src/isa.c stay in one place, one PASS/FAIL line each.
#   tables/instr/NAME  the instruction of isa.c's row NAME is spelled ("tcgen05.NAME", or NAME alone
#                      when it cannot be mistaken: it has "::" or "_") in no other file of src/ or
#                      grammar/; the others take it from isa_name / isa_spelling.
#   tables/arch/ARCH   each architecture `tilec --help` lists is named in no file but src/isa.c.
#   tables/no-circles  no two files of src/ call each other in a circle (tools/file-cycles.py on the
#                      objects beside TILEC).
#   tables/ptx/no-text-parsing  the PTX back end (src/emit_ptx.c, src/ptx*.c) calls no string
#                      scanner (sscanf, strstr, strncmp, strchr, memchr, ...): its passes read
#                      instruction records, never the PTX text they print.
#   tables/ptx/function-length  no function of the PTX back end is longer than 200 lines (from the
#                      line of its name to its closing brace).
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

names=$(sed -n 's/^	{TC_[A-Z_]*, "\([^"]*\)".*/\1/p' src/isa.c)
if [ "$(echo "$names" | wc -w)" -lt 7 ]; then
	echo "FAIL tables/instr: found only '$names' in src/isa.c's rows"
	failed=1
fi
for name in $names; do
	check "instr/$name" "tcgen05.$name"
	case $name in
	*::* | *_*) check "instr/$name/alone" "$name" ;;
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
long=$(awk '/^[A-Za-z_][A-Za-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name); start = FNR }
	/^}/ && start { if (FNR - start + 1 > 200) print FILENAME ": " name " (" FNR - start + 1 " lines)"; start = 0 }' $ptx_files)
if [ -n "$ptx_files" ] && [ -z "$long" ]; then
	echo "PASS tables/ptx/function-length"
else
	echo "FAIL tables/ptx/function-length: longer than 200 lines: $long"
	failed=1
fi
exit $failed
