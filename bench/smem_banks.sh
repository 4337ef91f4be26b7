#!/bin/sh
# smem_banks.sh [TILEC]: the shared-memory accesses of an epilogue's staging copies, measured: for every
# element size (f32, bf16, f16), smem_tile major and swizzle, a 128 x N tile written by `copy` from
# registers laid out as tcgen05.ld leaves them (32x32b: a thread holds a row; 16x256b: two rows, pairs
# of f32 columns, quads of 16-bit ones with .pack::16b; 16x256b-cvt: the f32 16x256b fragment converted
# to 16 bits in registers, pairs of 16-bit columns: the fragment of stmatrix) and read back by `copy`,
# prints one line per copy with what
# `tilec --explain` says of it: the access width, and the bank conflicts of a warp's accesses
# (smem_banks.c's model; the wavefronts of all warp accesses of the copy). Not a timed test.
cd "$(dirname "$0")/.." || exit 2
tilec=${1:-${TILEC:-build/tilec}}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
NO_COLOR=1
export NO_COLOR
printf '%-8s %-5s %-3s %-13s %-6s %s\n' layout type maj swizzle copy "what tilec chose"
for regs in 32x32b 16x256b 16x256b-cvt; do
	for type in f32 bf16 f16; do
		case $type in f32) n=32 ;; *) n=64 ;; esac
		case $regs/$type in
		32x32b/*) layout="S[(128, $n) : (1@tid_in_wg, 1)]" ;;
		16x256b-cvt/f32) continue ;;
		16x256b/f32 | 16x256b-cvt/*) layout="S[(4, 2, 2, 8, $((n / 8)), 4, 2) : (32@tid_in_wg, $((n / 2)), 2, 4@tid_in_wg, 4, 1@tid_in_wg, 1)]" ;;
		16x256b/*) layout="S[(4, 2, 2, 8, $((n / 16)), 4, 4) : (32@tid_in_wg, $((n / 2)), 4, 4@tid_in_wg, 8, 1@tid_in_wg, 1)]" ;;
		esac
		for major in K MN; do
			for swizzle in none 32B 64B 128B 128B_base32B; do
				[ "$major/$swizzle" = K/128B_base32B ] && continue
				cat >"$tmp/b.tile" <<TILE
kernel staging(A: $type[128, $n], B: $type[128, $n]) launch(grid = 1, block = 128)
{
    shared s: $type[128, $n] layout smem_tile("$major", "$swizzle");
    local r: $type[128, $n] layout $layout;
    copy(r, A);
    copy(s, r);
    cta_sync;
    copy(r, s);
    copy(B, r);
}
TILE
				"$tilec" --explain "$tmp/b.tile" -o "$tmp/b.cu" 2>"$tmp/b.err" || { cat "$tmp/b.err"; exit 1; }
				for line in 6 8; do
					full=$(grep "^.*b.tile:$line:5: note: each thread" "$tmp/b.err" | head -n 1 |
						sed -e 's/.* with //' -e 's/ ([^)]*)//')
					[ $line = 6 ] && dir=store || dir=load
					printf '%-8s %-5s %-3s %-13s %-6s %s\n' "$regs" "$type" "$major" "$swizzle" "$dir" "$full"
				done
			done
		done
	done
done
