#!/bin/sh
# draw.sh TILEC: the pictures of `tilec --draw`, one PASS/FAIL line each. Every picture must be
# well-formed XML (xmllint, when installed), self-contained (no script, no reference outside the
# file), the same on a second run, and must render with rsvg-convert, without a message, to a PNG
# that is not blank (tests/png-check.py). The pictures of applies must mark exactly the cells
# that do not match the image. Exits 1 when a test failed.
# With CHECK_SANITIZED=1 (make check's asan-draw) every picture is drawn once and not rendered: the
# pass on the normal binary draws the same pictures twice and renders them, and rendering is nearly
# all of this runner's time, none of it in tilec.
runner=draw
. "$(dirname "$0")/runner.sh"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL draw/$1: $2"
	if [ -s "$tmp/err" ]; then
		head -n 10 "$tmp/err" | sed 's/^/    stderr: /'
	fi
	failed=1
}

if ! command -v rsvg-convert >/dev/null 2>&1; then
	echo "FAIL draw: rsvg-convert is missing (Debian librsvg2-bin; tools/install-deps.sh installs it)"
	exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "FAIL draw: python3 is missing (tools/install-deps.sh installs it)"
	exit 1
fi
if command -v xmllint >/dev/null 2>&1; then xmllint=1; else xmllint=0; echo "SKIP draw/xmllint: xmllint is missing (libxml2-utils)"; fi

# picture NAME WHAT: draws WHAT into $tmp/NAME.svg and checks it; true when every check passed.
picture() {
	name=$1 what=$2 svg=$tmp/$1.svg
	if ! "$tilec" --draw "$what" -o "$svg" 2>"$tmp/err"; then
		fail "$name" "tilec --draw $what failed"
		return 1
	fi
	if [ $xmllint = 1 ] && ! xmllint --noout "$svg" 2>"$tmp/err"; then
		fail "$name" "not well-formed XML"
		return 1
	fi
	head -n 2 "$svg" >"$tmp/head"
	if ! grep -q '^<svg xmlns="http://www.w3.org/2000/svg" width="[0-9]*" height="[0-9]*" viewBox=' "$tmp/head"; then
		fail "$name" "no <svg> root with its size on line 2"
		return 1
	fi
	# self-contained: the namespace is the only URL, and nothing is linked, scripted or imported
	if grep -v '^<svg xmlns=' "$svg" | grep -qiE '<script|href|https?:|@import|url\((["'\'']?)[^#]|on[a-z]+='; then
		fail "$name" "refers outside the file or has a script"
		return 1
	fi
	[ "${CHECK_SANITIZED-}" = 1 ] && return 0
	if ! "$tilec" --draw "$what" -o "$tmp/again.svg" 2>/dev/null || ! cmp -s "$svg" "$tmp/again.svg"; then
		fail "$name" "a second run drew something else"
		return 1
	fi
	if ! rsvg-convert -w 600 "$svg" -o "$tmp/$name.png" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
		fail "$name" "rsvg-convert failed or complained"
		return 1
	fi
	if ! python3 tests/png-check.py "$tmp/$name.png" >"$tmp/err" 2>&1; then
		fail "$name" "the rendered PNG is blank or unreadable"
		return 1
	fi
	return 0
}

# Every shape, a store, both 16-bit forms, and a 128-column image.
for what in tcgen05.ld.sync.aligned.32x32b.x1.b32 tcgen05.ld.sync.aligned.16x64b.x2.b32 \
	tcgen05.ld.sync.aligned.16x128b.x2.b32 tcgen05.st.sync.aligned.16x256b.x2.b32 \
	tcgen05.ld.sync.aligned.16x32bx2.x2.b32 tcgen05.ld.sync.aligned.16x64b.x2.pack::16b.b32 \
	tcgen05.st.sync.aligned.16x32bx2.x1.unpack::16b.b32 tcgen05.ld.sync.aligned.32x32b.x128.b32; do
	name=${what#tcgen05.}
	name=$(echo "$name" | tr ':' '_')
	picture "$name" "$what" || continue
	svg=$tmp/$name.svg
	# every cell of the image is drawn once: 32 lanes x registers x (2 with pack) labels "lN"
	regs=$("$tilec" --print-image "$what" | sed -n 's/^[^ ]*b32: \([0-9]*\) register.*/\1/p')
	case $what in *pack*) per=2 ;; *) per=1 ;; esac
	cells=$(grep -c '^<text x="[0-9]*" y="[0-9]*">l[0-9]*</text>$' "$svg")
	if [ "$cells" != $((32 * regs * per)) ]; then
		fail "$name" "$cells cells labelled with a lane, expected $((32 * regs * per))"
	elif ! grep -q "<title>$what</title>" "$svg"; then
		fail "$name" "the title is not the opcode"
	else
		echo "PASS draw/$name"
	fi
done

# tcgen05.cp forms: every route, a decompression and cta_group::2; every TMEM cell of the image is drawn
# once, labelled with its source row (rows x replicas x chunks x 4 words).
for what in tcgen05.cp.cta_group::1.128x256b tcgen05.cp.cta_group::1.4x256b tcgen05.cp.cta_group::1.128x128b \
	tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 \
	tcgen05.cp.cta_group::1.32x128b.warpx4 tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b4x16_p64; do
	name=${what#tcgen05.}
	name=$(echo "$name" | tr ':' '_')
	picture "$name" "$what" || continue
	svg=$tmp/$name.svg
	case $what in
	*128x256b) cells=$((128 * 2 * 4)) ;; *4x256b) cells=$((4 * 2 * 4)) ;; *128x128b) cells=$((128 * 4)) ;;
	*64x128b*) cells=$((64 * 2 * 4)) ;; *) cells=$((32 * 4 * 4)) ;;
	esac
	got=$(grep -c '^<text x="[0-9]*" y="[0-9]*">row[0-9]*</text>$' "$svg")
	if [ "$got" != "$cells" ]; then
		fail "$name" "$got cells labelled with a source row, expected $cells"
	elif ! grep -q "<title>$what</title>" "$svg"; then
		fail "$name" "the title is not the opcode"
	else
		echo "PASS draw/$name"
	fi
done
if "$tilec" --draw tcgen05.cp.cta_group::1.64x128b -o "$tmp/bad.svg" 2>"$tmp/err"; then
	fail cp-refused "an illegal tcgen05.cp form was drawn"
elif [ -e "$tmp/bad.svg" ] || ! grep -q 'needs a multicast after 64x128b' "$tmp/err"; then
	fail cp-refused "no reason, or a partial picture"
else
	echo "PASS draw/cp-refused"
fi

# apply NAME FILE:LINE BAD FIRST: the picture of an apply, with BAD cells marked as not matching the
# image, FIRST of them (0 or 1) as the first mismatch that the check reports.
apply() {
	picture "$1" "$2" || return
	bad=$(grep -c '^<rect x="[0-9]*" y="[0-9]*" width="[0-9]*" height="27" class="bad[ a-z]*"/>' "$tmp/$1.svg")
	first=$(grep -c 'class="bad first"' "$tmp/$1.svg")
	if [ "$bad" != "$3" ]; then
		fail "$1" "$bad cells marked as not matching the image, expected $3"
	elif [ "$first" != "$4" ]; then
		fail "$1" "$first cells marked as the first mismatch the check reports, expected $4"
	else
		echo "PASS draw/$1"
	fi
}
st=$(grep -n 'apply tcgen05.st' examples/tmem_roundtrip.tile | cut -d: -f1)
apply seed-store "examples/tmem_roundtrip.tile:$st" 0 0
apply pack "examples/pack_roundtrip.tile:$(grep -n 'apply tcgen05.ld' examples/pack_roundtrip.tile | head -n 1 | cut -d: -f1)" 0 0
apply two-accesses "examples/shape_16x32bx2.tile:$(grep -n 'apply tcgen05.st' examples/shape_16x32bx2.tile | head -n 1 | cut -d: -f1)" 0 0
apply halves "examples/subword_f16.tile:$(grep -n 'apply tcgen05.st' examples/subword_f16.tile | head -n 1 | cut -d: -f1)" 0 0
# an apply inside a device function, as the function's own checks see it (warps of the calling warpgroup)
apply device "examples/device_functions.tile:$(grep -n 'apply tcgen05.st' examples/device_functions.tile | head -n 1 | cut -d: -f1)" 0 0

# A refused apply is drawn too (the program's errors still go to stderr), with its wrong cells
# marked: apply_owner.tile gives element [i, j] to thread 2*i + j/64, which is the image's thread
# 32*w + r for warp w = 2*(j/64) + i/32 only at row r = i%32 where 32*(i/32) + r = 63*(j/64):
# row 0 of warp 0 and row 31 of warp 3, 64 cells each, of the 4 * 32 * 64.
apply refused tests/golden/apply_owner.tile:22 $((4 * 32 * 64 - 2 * 64)) 1
if grep -q 'element \[0, 1, 0\] of .sv. is owned by thread 2 (warp 0, lane 2), not by thread 1' "$tmp/refused.svg"; then
	echo "PASS draw/refused-note"
else
	fail refused-note "the first mismatch of warp 0 is not written under its panel"
fi
if grep -q 'The check refuses this apply: its first mismatch is lane 1, register 0 of warp 0' "$tmp/refused.svg"; then
	echo "PASS draw/refused-verdict"
else
	fail refused-verdict "the check's verdict is not written"
fi

# A copy is drawn as the applies tilec chose for it: here the staged load of per_warp_slots' twin,
# whose registers differ from warp to warp, matches everywhere.
line=$(grep -n 'copy(r, tv)' examples/copy/per_warp_slots.tile | cut -d: -f1)
apply copy-chosen "examples/copy/per_warp_slots.tile:$line" 0 0
if grep -q 'tilec does this copy with 1 apply statement, drawn below' "$tmp/copy-chosen.svg" &&
	grep -q 'apply tcgen05.ld.sync.aligned.32x32b.x8.b32, warpgroup scope, warps 0, 1, 2, 3' "$tmp/copy-chosen.svg"; then
	echo "PASS draw/copy-chosen-apply"
else
	fail copy-chosen-apply "the picture does not name the apply the copy chose"
fi

# A copy of mixed widths is drawn as its two applies, one after the other.
line=$(grep -n 'copy(acc, r)' tests/golden/copy_mixed.tile | cut -d: -f1)
apply copy-mixed "tests/golden/copy_mixed.tile:$line" 0 0
if grep -q 'tilec does this copy with 2 apply statements, drawn below' "$tmp/copy-mixed.svg" &&
	grep -q 'apply 1 of 2: tcgen05.st.sync.aligned.32x32b.x64.b32' "$tmp/copy-mixed.svg" &&
	grep -q 'apply 2 of 2: tcgen05.st.sync.aligned.32x32b.x32.b32' "$tmp/copy-mixed.svg"; then
	echo "PASS draw/copy-mixed-applies"
else
	fail copy-mixed-applies "the picture does not show the two applies of the mixed copy"
fi

# A line of several statements draws each of them, in order (only the first was drawn): the seed
# program's store and load joined into one line, and a line of four copies, two of them between
# registers and memory (no instruction to draw, said in the picture).
st=$(grep -n 'apply tcgen05.st' examples/tmem_roundtrip.tile | cut -d: -f1)
ld=$(grep -n 'apply tcgen05.ld' examples/tmem_roundtrip.tile | cut -d: -f1)
awk -v a="$st" -v b="$ld" 'NR >= a && NR < b { printf "%s ", $0; next } { print }' examples/tmem_roundtrip.tile >"$tmp/joined.tile"
# says NAME SVG WHY PATTERN...: a PASS line when the picture holds every PATTERN, else a FAIL line with WHY.
says() {
	name=$1 svg=$2 why=$3
	shift 3
	for pattern in "$@"; do
		grep -q "$pattern" "$svg" || { fail "$name" "$why"; return; }
	done
	echo "PASS draw/$name"
}
apply line-two-applies "$tmp/joined.tile:$st" 0 0
says line-two-applies-both "$tmp/line-two-applies.svg" "the picture does not show both applies of the line" \
	'Statement 1 of 2 on this line, at column 5: an apply' 'Statement 2 of 2 on this line, at column [0-9]*: an apply' \
	'tcgen05.st.sync.aligned.32x32b.x64.b32, warpgroup scope' 'tcgen05.ld.sync.aligned.32x32b.x64.b32, warpgroup scope'
cat >"$tmp/four.tile" <<'TILE'
layout TD  = tmem_datapath_layout("D", 128, 32);
layout REG = S[(128, 32) : (1@tid_in_wg, 1)];

kernel line_of_four(A: f32[128, 32], Out: f32[128, 32]) launch(grid = 1, block = 128)
{
    tmem t: f32[128, 32] layout TD;
    local r: f32[128, 32] layout REG;
    local q: f32[128, 32] layout REG;
    copy(r, A); copy(t, r); copy(q, t); copy(Out, q);
}
TILE
apply line-four-copies "$tmp/four.tile:9" 0 0
says line-four-copies-each "$tmp/line-four-copies.svg" "the picture does not show the line's two tmem copies and name the two others" \
	'Statement 1 of 4 on this line, at column 5: a copy, not drawn: it moves data between registers and memory' \
	'apply tcgen05.st.sync.aligned.32x32b.x32.b32, warpgroup scope' 'apply tcgen05.ld.sync.aligned.32x32b.x32.b32, warpgroup scope' \
	'Statement 4 of 4 on this line, at column 41: a copy, not drawn'

# A copy no instruction matches: the closest candidate, its wrong cells marked, and its first mismatch
# the one the error names (tests/golden/copy_no_match.err).
name=copy-closest
if picture copy-closest tests/golden/copy_no_match.tile:15; then
	want=$(sed -n 's/.*the image puts .* of warp \([0-9]*\) in lane \([0-9]*\), register \([0-9]*\)$/lane \2, register \3 of warp \1/p' tests/golden/copy_no_match.err | head -n 1)
	bad=$(grep -c '^<rect x="[0-9]*" y="[0-9]*" width="[0-9]*" height="27" class="bad[ a-z]*"/>' "$tmp/copy-closest.svg")
	if [ -z "$want" ] || ! grep -q "its first mismatch is $want " "$tmp/copy-closest.svg"; then
		fail copy-closest "the first mismatch is not the one of copy_no_match.err ($want)"
	elif [ "$bad" -eq 0 ] || [ "$(grep -c 'class="bad first"' "$tmp/copy-closest.svg")" != 1 ]; then
		fail copy-closest "$bad cells marked as wrong, and not one first mismatch"
	elif ! grep -q 'No instruction matches this copy; below, the closest candidate' "$tmp/copy-closest.svg"; then
		fail copy-closest "the picture does not say that no instruction matches"
	elif ! grep -qF "$(sed -n 's/.*note: \(element \[[0-9, ]*\]\) \(is owned by thread [0-9]*\).*/\1 of '"'r'"' \2/p' tests/golden/copy_no_match.err | head -n 1)" "$tmp/copy-closest.svg"; then
		fail copy-closest "the note under the panel does not name the element of the error in the copy's coordinates"
	else
		echo "PASS draw/copy-closest"
	fi
fi
# A shared tile: every element of examples/smem_tile.tile's f16[16, 64] K-major 128B tile once, at a
# distinct even byte address below 2048, and the swizzle drawn: row 1's first element sits in chunk 1 of
# its 128-byte line (byte 128 + 16), row 2's in chunk 2 (256 + 32) (the line number XORed into the chunk).
line=$(grep -n 'shared s:' examples/smem_tile.tile | cut -d: -f1)
if picture smem-tile "examples/smem_tile.tile:$line"; then
	sed -n 's/^<text x="[0-9]*" y="[0-9]*">\([0-9]*\)<\/text>$/\1/p' "$tmp/smem-tile.svg" >"$tmp/addrs"
	if [ "$(sort -n "$tmp/addrs" | tr '\n' ' ')" != "$(seq 0 2 2046 | tr '\n' ' ')" ]; then
		fail smem-tile "the cells are not the 1024 even addresses 0 to 2046, each once"
	elif [ "$(sed -n '65p;129p' "$tmp/addrs" | tr '\n' ' ')" != "144 288 " ]; then
		fail smem-tile "rows 1 and 2 do not start at bytes 144 and 288 (the 128B swizzle)"
	elif ! grep -q 'layout smem_tile(&quot;K&quot;, &quot;128B&quot;), 2048 bytes from a start aligned to 1024 bytes' "$tmp/smem-tile.svg"; then
		fail smem-tile "the picture does not name the tile's layout, size and alignment"
	else
		echo "PASS draw/smem-tile"
	fi
fi
exit $failed
