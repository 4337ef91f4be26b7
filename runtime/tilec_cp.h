// tilec_cp.h: tcgen05.cp on the emulator's cells: the decompression of one 16-byte shared-memory chunk into the 16 TMEM bytes it becomes, and one whole cp through its descriptor and its route's lanes; one text for tilec and the emulator.
// The includer defines TL_CP_FN (the function's qualifiers). decomp follows tilec's CpDecomp: 0 none (the
// chunk as it is), 1 b8x16.b6x16_p32, 2 b8x16.b4x16_p64. fp4: 16 values in the first 8 bytes, value 2i in
// bits 3..0 of byte i and 2i+1 in bits 7..4; output byte k holds value k in bits 5..2. fp6: 16 values in the
// first 12 bytes, value k in bits 6k..6k+5 of their little-endian 96-bit integer; output byte k holds value
// k in bits 5..0, or in bits 6..1 when b6_high is set: the sources disagree (a simulator and the PTX mma
// text say 5..0, a CUTLASS example 6..1) and no Blackwell run settled it, so it is one switch
// (docs/cp.md). The padding bytes (4 of fp6, 8 of fp4) are not read into any output bit.
#ifndef TILEC_CP_H
#define TILEC_CP_H

TL_CP_FN void
tl_cp_decompress(unsigned decomp, unsigned b6_high, const unsigned char *in, unsigned char *out)
{
	for (unsigned k = 0; k < 16; k++) {
		if (decomp == 2) {
			out[k] = (unsigned char)(((in[k / 2] >> (4 * (k % 2))) & 15u) << 2);
		} else if (decomp == 1) {
			unsigned bit = 6 * k, pair = in[bit / 8] | (bit % 8 > 2 ? (unsigned)in[bit / 8 + 1] << 8 : 0u);
			unsigned v = (pair >> (bit % 8)) & 63u;
			out[k] = (unsigned char)(b6_high ? v << 1 : v);
		} else {
			out[k] = in[k];
		}
	}
}

// One tcgen05.cp on the emulator's cells (lane-major, ncols 32-bit columns a lane): the descriptor desc walks
// the source K-major, row r's chunk c at U = start + (r % 8) * line + (r / 8) * SBO + c * step (line 16 and
// step LBO without swizzle; line the swizzle width and step 16 with one), and reads it at the swizzled
// absolute shared address A = base + U, A ^ (((A >> 7) & sw_mask) << sw_at) (sw_mask 0: none), where base is
// the absolute shared address of window[0] and the walk's addresses are relative to it. sw_width, sw_mask,
// sw_at are the swizzle's numbers from tilec's table (src/smem.c), which the descriptor's layout code names.
// Each chunk, decompressed, goes to columns (taddr & 0xffff) + 4c .. + 3 of the lanes (taddr >> 16) +
// (r / group) * group_step + (r % group) * row_step + k * replica_step, k below replicas (tilec's CpLaneRule
// of the route). Returns 0, or 1 without writing when the descriptor's fixed bits are wrong, its base offset
// or LBO mode is set, or a cell falls outside lanes 0..127 or the ncols columns.
TL_CP_FN unsigned
tl_cp_run(const unsigned char *window, unsigned base, unsigned long long desc, unsigned sw_width, unsigned sw_mask,
          unsigned sw_at, unsigned taddr, unsigned rows, unsigned chunks, unsigned replicas, unsigned group,
          unsigned group_step, unsigned row_step, unsigned replica_step, unsigned decomp, unsigned b6_high,
          unsigned *cells, unsigned ncols)
{
	unsigned start = (unsigned)(desc & 0x3fffu) << 4, lbo = (unsigned)((desc >> 16) & 0x3fffu) << 4;
	unsigned sbo = (unsigned)((desc >> 32) & 0x3fffu) << 4, lane0 = taddr >> 16, col0 = taddr & 0xffffu;
	unsigned line = sw_mask ? sw_width : 16u, step = sw_mask ? 16u : lbo;
	if (((desc >> 46) & 7u) != 1u || ((desc >> 49) & 0xfffu) != 0 || ((desc >> 14) & 3u) || ((desc >> 30) & 3u))
		return 1;
	for (unsigned r = 0; r < rows; r++)
		for (unsigned k = 0; k < replicas; k++)
			if (lane0 + r / group * group_step + r % group * row_step + k * replica_step >= 128 || col0 + 4 * chunks > ncols)
				return 1;
	for (unsigned r = 0; r < rows; r++)
		for (unsigned c = 0; c < chunks; c++) {
			unsigned char out[16];
			unsigned at = base + start + (r % 8) * line + (r / 8) * sbo + c * step;
			at ^= ((at >> 7) & sw_mask) << sw_at;
			tl_cp_decompress(decomp, b6_high, window + (at - base), out);
			for (unsigned k = 0; k < replicas; k++) {
				unsigned lane = lane0 + r / group * group_step + r % group * row_step + k * replica_step;
				for (unsigned w = 0; w < 4; w++)
					cells[lane * ncols + col0 + 4 * c + w] = (unsigned)out[4 * w] | (unsigned)out[4 * w + 1] << 8 |
					                                          (unsigned)out[4 * w + 2] << 16 | (unsigned)out[4 * w + 3] << 24;
			}
		}
	return 0;
}

#endif
