// tilec_cp.h: tcgen05.cp's decompression of one 16-byte shared-memory chunk into the 16 TMEM bytes it becomes, one text for tilec and the emulator.
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

#endif
