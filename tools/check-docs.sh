#!/bin/sh
# check-docs.sh [TILEC]: compiles the complete programs of the documentation.
#
# Every ```tile block of docs/*.md (language.md, copy.md and diagnostics.md must exist) whose first
# line is
#
#     // example: NAME [error|warning] [OPTION...]
#
# is written to a scratch directory as NAME.tile and compiled there with
# `TILEC [OPTION...] NAME.tile -o NAME.cu` (NO_COLOR=1):
#   no kind    it must compile: exit 0 and nothing on stderr;
#   error      it must fail with exit 1, and the first line of stderr must equal the first
#              line of the next ```text block of the same file (the documented message);
#   warning    it must compile (exit 0), and the first line of stderr must equal the first
#              line of the next ```text block.
# An example with --emit=cubin among its options needs ptxas; without one it is a SKIP line.
# One with the word `run` among its options runs instead: `TILEC run [OPTION...] NAME.tile` (stdout
# ignored), for the warnings of the emulator (data races); without a C++ compiler it is a SKIP line.
# Blocks without the marker are fragments and are not compiled. NAME must be unique per file.
# Prints `PASS docs/STEM/NAME` or `FAIL docs/STEM/NAME: why` (STEM: the page, e.g. language) per
# example and exits 1 when one failed (2 on bad usage). TILEC is the first argument, else $TILEC, else build/tilec.
cd "$(dirname "$0")/.." || exit 2
tilec=${1:-${TILEC:-build/tilec}}
case $tilec in
/*) ;;
*) tilec=$PWD/$tilec ;;
esac
if [ ! -x "$tilec" ]; then
	echo "FAIL docs: $tilec is not an executable (run make build/tilec)"
	exit 1
fi
NO_COLOR=1
export NO_COLOR
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
total=0
# examples with --emit=cubin need ptxas, looked for where tilec looks
ptxas=
for d in ${CUDA_HOME:+"$CUDA_HOME/bin"} ${CUDA_PATH:+"$CUDA_PATH/bin"} $(echo "$PATH" | tr ':' ' ') /usr/local/cuda/bin; do
	if [ -z "$ptxas" ] && [ -x "$d/ptxas" ]; then ptxas=$d/ptxas; fi
done

for doc in docs/language.md docs/copy.md docs/diagnostics.md $(ls docs/*.md | grep -v -e '^docs/language.md$' -e '^docs/copy.md$' -e '^docs/diagnostics.md$'); do
	if [ ! -f "$doc" ]; then
		echo "FAIL $doc: missing"
		failed=1
		continue
	fi
	stem=$(basename "$doc" .md)
	dir=$tmp/$stem
	mkdir -p "$dir"
	# Split the document: each marked block becomes NAME.tile, with NAME.kind (kind and options)
	# and NAME.expect (the first line of the next ```text block, for error and warning).
	awk -v dir="$dir" '
	function flush_expect(line) {
		if (pending != "") {
			print line > (dir "/" pending ".expect")
			close(dir "/" pending ".expect")
			pending = ""
		}
	}
	/^```tile[ \t]*$/ && !inblock { inblock = 1; first = 1; name = ""; next }
	/^```text[ \t]*$/ && !inblock { intext = 1; firsttext = 1; next }
	/^```/ && inblock {
		if (name != "") { close(file); names = names " " name }
		inblock = 0; next
	}
	/^```/ && intext { if (firsttext) flush_expect(""); intext = 0; next }
	intext {
		if (firsttext) { flush_expect($0); firsttext = 0 }
		next
	}
	inblock {
		if (first) {
			first = 0
			if ($0 ~ /^\/\/ example: [A-Za-z0-9_]+/) {
				n = split($0, w, /[ \t]+/)
				name = w[3]
				if (seen[name]++) { print "DUP " name > (dir "/errors"); name = ""; next }
				kind = "ok"; opts = ""
				for (i = 4; i <= n; i++) {
					if (w[i] == "error" || w[i] == "warning") kind = w[i]
					else if (w[i] != "") opts = opts " " w[i]
				}
				file = dir "/" name ".tile"
				print kind > (dir "/" name ".kind")
				print opts > (dir "/" name ".opts")
				close(dir "/" name ".kind"); close(dir "/" name ".opts")
				if (kind != "ok") { if (pending != "") print "NOTEXT " pending > (dir "/errors"); pending = name }
			}
		}
		if (name != "") print > file
		next
	}
	END {
		if (pending != "") print "NOTEXT " pending > (dir "/errors")
		if (inblock || intext) print "UNCLOSED" > (dir "/errors")
	}' "$doc"
	if [ -f "$dir/errors" ]; then
		while read -r what name; do
			case $what in
			DUP) echo "FAIL docs/$stem/$name: the example name is used twice" ;;
			NOTEXT) echo "FAIL docs/$stem/$name: no \`\`\`text block with the expected message follows" ;;
			UNCLOSED) echo "FAIL $doc: a code block is not closed" ;;
			esac
			failed=1
		done <"$dir/errors"
	fi
	for tile in "$dir"/*.tile; do
		[ -f "$tile" ] || continue
		name=$(basename "$tile" .tile)
		kind=$(cat "$dir/$name.kind")
		opts=$(cat "$dir/$name.opts")
		total=$((total + 1))
		case " $opts " in
		*" --emit=cubin "*)
			if [ -z "$ptxas" ]; then
				echo "SKIP docs/$stem/$name: needs ptxas (--emit=cubin), none found"
				continue
			fi ;;
		esac
		set -f
		case " $opts " in
		*" run "*)
			# shellcheck disable=SC2086
			(cd "$dir" && exec "$tilec" run $(echo " $opts " | sed 's/ run / /') "$name.tile") >"$dir/$name.out" 2>"$dir/$name.err"
			rc=$?
			if [ $rc -eq 3 ]; then
				echo "SKIP docs/$stem/$name: needs a C++ compiler (tilec run)"
				set +f
				continue
			fi ;;
		*)
			# shellcheck disable=SC2086
			(cd "$dir" && exec "$tilec" $opts "$name.tile" -o "$name.cu") >"$dir/$name.out" 2>"$dir/$name.err"
			rc=$? ;;
		esac
		set +f
		got=$(head -n 1 "$dir/$name.err")
		want=
		[ -f "$dir/$name.expect" ] && want=$(cat "$dir/$name.expect")
		why=
		case $kind in
		ok)
			if [ $rc -ne 0 ]; then
				why="exit status $rc, expected 0: $got"
			elif [ -s "$dir/$name.err" ]; then
				why="compiles, but prints: $got"
			fi
			;;
		error | warning)
			if [ "$kind" = error ] && [ $rc -ne 1 ]; then
				why="exit status $rc, expected 1"
			elif [ "$kind" = warning ] && [ $rc -ne 0 ]; then
				why="exit status $rc, expected 0: $got"
			elif [ "$got" != "$want" ]; then
				why="first line of stderr differs
    documented: $want
    printed:    $got"
			fi
			;;
		esac
		if [ -n "$why" ]; then
			echo "FAIL docs/$stem/$name: $why"
			failed=1
		else
			echo "PASS docs/$stem/$name"
		fi
	done
done
if [ $total -eq 0 ]; then
	echo "FAIL docs: no marked examples found"
	failed=1
fi
exit $failed
