// tilec_mma.h: the walk of a shared-memory descriptor and the datapath lanes of an mma's D, as the emulator executes tcgen05.mma; one text for the emulator and tests/unit/test_mma.c, which compares the walk with src/smem.c's on every element of tiles of each layout.
// The includer defines TL_MMA_FN (the functions' qualifiers).
#ifndef TILEC_MMA_H
#define TILEC_MMA_H

// The byte (relative to the descriptor's window) that a descriptor's walk reads for element (mn, k) of e bytes:
// TCGEN05.md 11.2's four formulas, then the swizzle of the layout code (bits 61..63). 0xffffffff for a code
// that names no layout.
TL_MMA_FN unsigned
tl_mma_addr(unsigned long long desc, unsigned mn_major, unsigned e, unsigned mn, unsigned k)
{
	unsigned start = (unsigned)(desc & 0x3fffu) << 4, lbo = (unsigned)((desc >> 16) & 0x3fffu) << 4;
	unsigned sbo = (unsigned)((desc >> 32) & 0x3fffu) << 4, code = (unsigned)(desc >> 61);
	unsigned width, mask, at;
	switch (code) {
	case 0: width = 16; mask = 0; at = 4; break;
	case 1: width = 128; mask = 3; at = 5; break;
	case 2: width = 128; mask = 7; at = 4; break;
	case 4: width = 64; mask = 3; at = 4; break;
	case 6: width = 32; mask = 1; at = 4; break;
	default: return 0xffffffffu;
	}
	unsigned per = 16 / e, u;
	if (!mn_major && width == 16)
		u = start + (mn % 8) * 16 + (mn / 8) * sbo + (k % per) * e + (k / per) * lbo;
	else if (!mn_major)
		u = start + (mn % 8) * width + (mn / 8) * sbo + (k % per) * e + (k / per) * 16;
	else if (width == 16)
		u = start + (mn % per) * e + (mn / per) * sbo + (k % 8) * 16 + (k / 8) * lbo;
	else
		u = start + (mn * e) % width + ((mn * e) / width) * lbo + (k % 8) * width + (k / 8) * sbo;
	return u ^ (((u >> 7) & mask) << at);
}

// The lane of D's row i from the first lane: layout "D" (M = 128) or "F" (M = 64) of TCGEN05.md 6.
TL_MMA_FN unsigned
tl_mma_lane(unsigned m, unsigned i)
{
	return m == 128 ? i : 32 * (i / 16) + i % 16;
}

#endif
