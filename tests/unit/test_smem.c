/* test_smem.c: smem.c's shared tiles: the swizzle table, element addresses against values worked out by
 * hand from TCGEN05.md 11.2 for every swizzle and both majors, the descriptor's bits (TVM's encoder
 * cases, hand-made ones, round trips), and the descriptor derived from a view and checked against it. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"
#include "unit.h"

static SmemTile
tile(SmemMajor major, SmemSwizzle swizzle, int elem_bytes, int rows, int cols, uint32_t start)
{
	SmemTile t = {major, swizzle, elem_bytes, rows, cols, start};
	ck_assert_int_eq(smem_tile_check(&t), SMEM_TILE_FITS);
	return t;
}

/* ---------------------------------------------------------------- the table */

START_TEST(table_rows)
{
	/* TCGEN05.md 11.1: the layout codes; 11.2: the XOR of each mode; an atom is 8 lines of the width */
	static const struct {
		const char *name;
		int width, code, period, align;
		bool mn_only;
	} want[SW_COUNT] = {
		[SW_NONE] = {"none", 16, 0, 0, 16, false},
		[SW_32B] = {"32B", 32, 6, 256, 256, false},
		[SW_64B] = {"64B", 64, 4, 512, 512, false},
		[SW_128B] = {"128B", 128, 2, 1024, 1024, false},
		[SW_128B_BASE32B] = {"128B_base32B", 128, 1, 512, 1024, true},
	};
	for (int s = 0; s < SW_COUNT; s++) {
		const SwizzleInfo *sw = smem_swizzle_info((SmemSwizzle)s);
		ck_assert_str_eq(sw->name, want[s].name);
		ck_assert_int_eq(sw->width, want[s].width);
		ck_assert_int_eq(sw->atom_lines, 8);
		ck_assert_int_eq(sw->code, want[s].code);
		ck_assert_int_eq(sw->period, want[s].period);
		ck_assert_int_eq(sw->align, want[s].align);
		ck_assert_int_eq(sw->mn_only, want[s].mn_only);
		SmemSwizzle back;
		ck_assert(smem_swizzle_named(want[s].name, &back) && back == (SmemSwizzle)s);
		ck_assert(smem_swizzle_of_code(want[s].code, &back) && back == (SmemSwizzle)s);
	}
	SmemSwizzle none;
	for (int code = 3; code <= 7; code += 2)
		ck_assert_msg(!smem_swizzle_of_code(code, &none), "layout code %d is invalid", code);
	ck_assert(!smem_swizzle_named("128b", &none));
	SmemMajor m;
	ck_assert(smem_major_named("K", &m) && m == SMEM_K);
	ck_assert(smem_major_named("MN", &m) && m == SMEM_MN);
	ck_assert(!smem_major_named("M", &m));
	ck_assert_str_eq(smem_major_name(SMEM_MN), "MN");
}
END_TEST

/* Each swizzle keeps the 16-byte chunks whole, permutes the chunks of each period, and repeats with it. */
START_TEST(swizzle_permutes_chunks)
{
	for (int s = 1; s < SW_COUNT; s++) {
		const SwizzleInfo *sw = smem_swizzle_info((SmemSwizzle)s);
		for (uint32_t base = 0; base < 4096; base += (uint32_t)sw->period) {
			int seen[64] = {0};
			for (uint32_t a = base; a < base + (uint32_t)sw->period; a++) {
				uint32_t p = smem_swizzle_addr((SmemSwizzle)s, a);
				ck_assert_uint_eq(p % 16, a % 16);
				ck_assert_uint_eq(p / (uint32_t)sw->period, a / (uint32_t)sw->period);
				ck_assert_uint_eq(smem_swizzle_addr((SmemSwizzle)s, a + (uint32_t)sw->period), p + (uint32_t)sw->period);
				if (a % 16 == 0)
					seen[(p - base) / 16]++;
			}
			for (int c = 0; c < sw->period / 16; c++)
				ck_assert_int_eq(seen[c], 1);
		}
	}
	for (uint32_t a = 0; a < 4096; a++)
		ck_assert_uint_eq(smem_swizzle_addr(SW_NONE, a), a);
}
END_TEST

/* ---------------------------------------------------------------- element addresses */

typedef struct AddrCase {
	int row, col;
	uint32_t addr;
} AddrCase;

static void
expect_addrs(const SmemTile *t, const AddrCase *cases, int n)
{
	for (int i = 0; i < n; i++)
		ck_assert_msg(smem_tile_addr(t, cases[i].row, cases[i].col) == cases[i].addr,
		              "%s-major %s, e %d: element (%d, %d) at %u, expected %u", smem_major_name(t->major),
		              smem_swizzle_info(t->swizzle)->name, t->elem_bytes, cases[i].row, cases[i].col,
		              smem_tile_addr(t, cases[i].row, cases[i].col), cases[i].addr);
}

/* The expected addresses below come from TCGEN05.md 11.2's formulas, worked by hand (the arithmetic in
 * the comments): U = unswizzled address, then the swizzle of U. */

START_TEST(addr_k_none)
{
	/* bf16, 16 x 16, start 0: T = 8 per 16 bytes, SBO 128, LBO = R * 16 = 256;
	 * U = (mn % 8) * 16 + (mn / 8) * 128 + (k % 8) * 2 + (k / 8) * 256 */
	SmemTile t = tile(SMEM_K, SW_NONE, 2, 16, 16, 0);
	static const AddrCase cases[] = {
		{0, 0, 0}, {1, 0, 16}, {7, 7, 112 + 14}, {8, 0, 128}, {9, 3, 16 + 128 + 6}, {0, 8, 256},
		{10, 9, 32 + 128 + 2 + 256}, {15, 15, 112 + 128 + 14 + 256},
	};
	expect_addrs(&t, cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(addr_k_32b)
{
	/* bf16, 8 x 32, start 1024: 16 columns a line; K atom j at 1024 + j * 8 * 32; SBO 256;
	 * U = atom + (mn % 8) * 32 + (k % 16) * 2; A ^ (((A >> 7) & 1) << 4) */
	SmemTile t = tile(SMEM_K, SW_32B, 2, 8, 32, 1024);
	static const AddrCase cases[] = {
		{0, 0, 1024},             /* U 1024, (1024 >> 7) & 1 = 0 */
		{4, 0, 1152 ^ 16},        /* U 1024 + 128, 9 & 1 = 1 */
		{4, 9, 1154},             /* U 1152 + 18 = 1170 = 1152 + 16 + 2, ^ 16 */
		{5, 3, 1206},             /* U 1024 + 160 + 6 = 1190 = 1152 + 38, ^ 16: 1152 + 54 */
		{3, 17, 1378},            /* atom 1: 1280 + 96 + 2, 10 & 1 = 0 */
		{7, 31, 1518},            /* atom 1: 1280 + 224 + 30 = 1534, 11 & 1 = 1: 1408 + (126 ^ 16) */
	};
	expect_addrs(&t, cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(addr_k_64b)
{
	/* f32, 16 x 32, start 2048: 16 columns a line; K atom j at 2048 + j * 16 * 64; SBO 512;
	 * U = atom + (mn % 8) * 64 + (mn / 8) * 512 + (k % 16) * 4; A ^ (((A >> 7) & 3) << 4) */
	SmemTile t = tile(SMEM_K, SW_64B, 4, 16, 32, 2048);
	static const AddrCase cases[] = {
		{0, 0, 2048},             /* 16 & 3 = 0 */
		{2, 0, 2192},             /* U 2176, 17 & 3 = 1: ^ 16 */
		{3, 5, 2244},             /* U 2048 + 192 + 20 = 2260 = 2176 + 84, 84 ^ 16 = 68 */
		{6, 15, 2444},            /* U 2048 + 384 + 60 = 2492 = 2432 + 60, 19 & 3 = 3: 60 ^ 48 = 12 */
		{9, 2, 2632},             /* U 2048 + 64 + 512 + 8, 20 & 3 = 0 */
		{13, 18, 3944},           /* atom 1: 3072 + 320 + 512 + 8 = 3912 = 3840 + 72, 30 & 3 = 2: 72 ^ 32 */
	};
	expect_addrs(&t, cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(addr_k_128b)
{
	/* bf16, 8 x 128, start 0: 64 columns a line; K atom j at j * 8 * 128; SBO 1024;
	 * U = atom + (mn % 8) * 128 + (k % 64) * 2; A ^ (((A >> 7) & 7) << 4) */
	SmemTile t = tile(SMEM_K, SW_128B, 2, 8, 128, 0);
	static const AddrCase cases[] = {
		{0, 0, 0},
		{3, 5, 442},              /* U 384 + 10, 3: 10 ^ 48 = 58 */
		{7, 63, 910},             /* U 896 + 126, 7: 126 ^ 112 = 14 */
		{1, 64, 1168},            /* atom 1: 1024 + 128 = 1152, 9 & 7 = 1: ^ 16 */
		{6, 100, 1832},           /* atom 1: 1024 + 768 + 72 = 1864 = 1792 + 72, 14 & 7 = 6: 72 ^ 96 = 40 */
	};
	expect_addrs(&t, cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(addr_mn_none)
{
	/* bf16, 16 x 16, start 0: T = 8, SBO 128, LBO = 8 * R * e = 256;
	 * U = (mn % 8) * 2 + (mn / 8) * 128 + (k % 8) * 16 + (k / 8) * 256 */
	SmemTile t = tile(SMEM_MN, SW_NONE, 2, 16, 16, 0);
	static const AddrCase cases[] = {
		{0, 0, 0}, {1, 0, 2}, {0, 1, 16}, {7, 7, 14 + 112}, {8, 0, 128}, {9, 10, 2 + 128 + 32 + 256},
		{15, 15, 14 + 128 + 112 + 256},
	};
	expect_addrs(&t, cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(addr_mn_32b)
{
	/* f32, 16 x 16, start 512: LBO = 8 * 32 = 256, SBO = 8 * R * e = 512;
	 * U = 512 + (mn * 4) % 32 + (mn * 4 / 32) * 256 + (k % 8) * 32 + (k / 8) * 512; A ^ (((A >> 7) & 1) << 4) */
	SmemTile t = tile(SMEM_MN, SW_32B, 4, 16, 16, 512);
	static const AddrCase cases[] = {
		{0, 0, 512},
		{3, 4, 668},              /* U 512 + 12 + 128 = 652 = 640 + 12, 5 & 1 = 1: 12 ^ 16 = 28 */
		{9, 1, 804},              /* U 512 + 4 + 256 + 32 = 804, 6 & 1 = 0 */
		{14, 13, 1448},           /* U 512 + 24 + 256 + 160 + 512 = 1464 = 1408 + 56, 11 & 1 = 1: 56 ^ 16 = 40 */
	};
	expect_addrs(&t, cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(addr_mn_64b)
{
	/* u8, 128 x 8, start 0: LBO = 8 * 64 = 512, SBO = 8 * 128 = 1024;
	 * U = mn % 64 + (mn / 64) * 512 + (k % 8) * 64; A ^ (((A >> 7) & 3) << 4) */
	SmemTile t = tile(SMEM_MN, SW_64B, 1, 128, 8, 0);
	static const AddrCase cases[] = {
		{0, 0, 0},
		{5, 2, 149},              /* U 133 = 128 + 5, 1: 5 ^ 16 = 21 */
		{63, 7, 463},             /* U 63 + 448 = 511 = 384 + 127, 3: 127 ^ 48 = 79 */
		{70, 3, 726},             /* U 6 + 512 + 192 = 710 = 640 + 70, 5 & 3 = 1: 70 ^ 16 = 86 */
	};
	expect_addrs(&t, cases, sizeof cases / sizeof *cases);
}
END_TEST

START_TEST(addr_mn_128b)
{
	/* bf16, 128 x 16, start 1024: LBO = 8 * 128 = 1024, SBO = 8 * 128 * 2 = 2048;
	 * U = 1024 + (mn * 2) % 128 + (mn * 2 / 128) * 1024 + (k % 8) * 128 + (k / 8) * 2048 */
	SmemTile t = tile(SMEM_MN, SW_128B, 2, 128, 16, 1024);
	/* 128B: A ^ (((A >> 7) & 7) << 4) */
	static const AddrCase cases[] = {
		{0, 0, 1024},
		{1, 1, 1170},             /* U 1024 + 2 + 128 = 1154, 9 & 7 = 1: 2 ^ 16 = 18 */
		{70, 5, 2780},            /* U 1024 + 12 + 1024 + 640 = 2700 = 2688 + 12, 21 & 7 = 5: 12 ^ 80 = 92 */
		{127, 15, 5006},          /* U 1024 + 126 + 1024 + 896 + 2048 = 5118 = 4992 + 126, 39 & 7 = 7: 126 ^ 112 */
	};
	expect_addrs(&t, cases, sizeof cases / sizeof *cases);
	/* 128B_base32B, the same tile: A ^ (((A >> 7) & 3) << 5) */
	SmemTile b = tile(SMEM_MN, SW_128B_BASE32B, 2, 128, 16, 1024);
	static const AddrCase base32[] = {
		{0, 0, 1024},
		{1, 1, 1186},             /* U 1154, 9 & 3 = 1: 2 ^ 32 = 34 */
		{70, 5, 2732},            /* U 2700, 21 & 3 = 1: 12 ^ 32 = 44 */
		{127, 15, 5022},          /* U 5118, 39 & 3 = 3: 126 ^ 96 = 30 */
	};
	expect_addrs(&b, base32, sizeof base32 / sizeof *base32);
}
END_TEST

/* Every valid tile of a few shapes: its elements take distinct, element-aligned addresses that fill
 * [start, start + bytes) exactly. */
START_TEST(addr_fills_tile)
{
	static const int elem[] = {1, 2, 4, 8, 16};
	char *hit = malloc(1 << 16);
	ck_assert_ptr_nonnull(hit);
	int tiles = 0;
	for (int major = 0; major < SMEM_MAJOR_COUNT; major++)
		for (int s = 0; s < SW_COUNT; s++)
			for (int ei = 0; ei < 5; ei++) {
				SmemTile t = {(SmemMajor)major, (SmemSwizzle)s, elem[ei], 0, 0, 2048};
				if (smem_tile_check(&t) == SMEM_TILE_MAJOR)
					continue;
				int ar, ac;
				smem_atom_shape(&t, &ar, &ac);
				t.rows = 2 * ar;
				t.cols = 3 * ac;
				ck_assert_int_eq(smem_tile_check(&t), SMEM_TILE_FITS);
				uint32_t bytes = smem_tile_bytes(&t);
				ck_assert_uint_eq(bytes, 6u * 8u * (uint32_t)smem_swizzle_info(t.swizzle)->width);
				memset(hit, 0, bytes);
				for (int r = 0; r < t.rows; r++)
					for (int c = 0; c < t.cols; c++) {
						uint32_t a = smem_tile_addr(&t, r, c);
						ck_assert_uint_eq(a % (uint32_t)t.elem_bytes, 0);
						ck_assert(a >= t.start && a + (uint32_t)t.elem_bytes <= t.start + bytes);
						for (int b = 0; b < t.elem_bytes; b++)
							ck_assert_int_eq(hit[a - t.start + (uint32_t)b]++, 0);
					}
				tiles++;
			}
	free(hit);
	ck_assert_int_eq(tiles, 2 * 4 * 5 + 5); /* 128B_base32B is MN only */
}
END_TEST

START_TEST(strides)
{
	uint32_t lbo, sbo;
	SmemTile t = tile(SMEM_K, SW_NONE, 2, 128, 16, 0); /* LBO = R * 16 */
	smem_tile_strides(&t, &lbo, &sbo);
	ck_assert_uint_eq(lbo, 2048);
	ck_assert_uint_eq(sbo, 128);
	t = tile(SMEM_K, SW_128B, 2, 128, 64, 0); /* TCGEN05.md 11.2's worked value: SBO 1024, LBO ignored */
	smem_tile_strides(&t, &lbo, &sbo);
	ck_assert_uint_eq(sbo, 1024);
	ck_assert_uint_eq(lbo, 0);
	t = tile(SMEM_MN, SW_NONE, 2, 16, 8, 0); /* LBO = 8 * R * e */
	smem_tile_strides(&t, &lbo, &sbo);
	ck_assert_uint_eq(lbo, 256);
	ck_assert_uint_eq(sbo, 128);
	t = tile(SMEM_MN, SW_64B, 2, 64, 8, 0); /* LBO = 8 * SW, SBO = 8 * R * e */
	smem_tile_strides(&t, &lbo, &sbo);
	ck_assert_uint_eq(lbo, 512);
	ck_assert_uint_eq(sbo, 1024);
}
END_TEST

START_TEST(tile_faults)
{
	static const struct {
		SmemTile t;
		SmemTileFault want;
	} cases[] = {
		{{SMEM_K, SW_128B, 2, 8, 64, 0}, SMEM_TILE_FITS},
		{{SMEM_K, SW_128B, 3, 8, 64, 0}, SMEM_TILE_ELEM},
		{{SMEM_K, SW_128B, 32, 8, 64, 0}, SMEM_TILE_ELEM},
		{{SMEM_K, SW_128B_BASE32B, 2, 8, 64, 0}, SMEM_TILE_MAJOR},
		{{SMEM_K, SW_128B, 2, 0, 64, 0}, SMEM_TILE_EMPTY},
		{{SMEM_K, SW_NONE, 2, 12, 8, 0}, SMEM_TILE_ATOM_ROWS},
		{{SMEM_K, SW_128B, 2, 8, 32, 0}, SMEM_TILE_ATOM_COLS},  /* a line holds 64 bf16 */
		{{SMEM_MN, SW_32B, 4, 4, 8, 0}, SMEM_TILE_ATOM_ROWS},   /* an atom is 8 f32 along MN */
		{{SMEM_MN, SW_32B, 4, 8, 12, 0}, SMEM_TILE_ATOM_COLS},
		{{SMEM_K, SW_128B, 2, 8, 64, 512}, SMEM_TILE_ALIGN},
		{{SMEM_K, SW_NONE, 2, 8, 8, 8}, SMEM_TILE_ALIGN},
		{{SMEM_K, SW_128B, 2, 2048, 64, 0}, SMEM_TILE_FITS},    /* 256 KiB from 0 fits ... */
		{{SMEM_K, SW_128B, 2, 2048, 64, 1024}, SMEM_TILE_RANGE}, /* ... and not from 1024 */
		{{SMEM_K, SW_128B, 2, 1024, 64, 1024}, SMEM_TILE_FITS},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		SmemTileFault got = smem_tile_check(&cases[i].t);
		SmemTileFault want = cases[i].want;
		ck_assert_msg(got == want, "case %zu: fault %d, expected %d", i, (int)got, (int)want);
	}
	int rows, cols;
	smem_atom_shape(&(SmemTile){SMEM_K, SW_128B, 2, 8, 64, 0}, &rows, &cols);
	ck_assert(rows == 8 && cols == 64);
	smem_atom_shape(&(SmemTile){SMEM_MN, SW_32B, 4, 8, 8, 0}, &rows, &cols);
	ck_assert(rows == 8 && cols == 8);
	smem_atom_shape(&(SmemTile){SMEM_MN, SW_NONE, 1, 16, 8, 0}, &rows, &cols);
	ck_assert(rows == 16 && cols == 8);
}
END_TEST

/* ---------------------------------------------------------------- the descriptor's bits */

static bool
desc_eq(const SmemDesc *a, const SmemDesc *b)
{
	return a->start == b->start && a->lbo == b->lbo && a->sbo == b->sbo && a->base_offset == b->base_offset &&
	       a->lbo_absolute == b->lbo_absolute && a->swizzle == b->swizzle;
}

/* apache/tvm tests/python/tirx/codegen/test_tcgen05_descriptor_encoders.py,
 * test_smem_descriptor_matches_runtime_encoder: its (ldo, sdo, swizzle) cases. The test compares TVM's
 * two encoders with each other and lists no values; the expected bits here are worked by hand from the
 * layout its compile-time encoder documents (python/tvm/backend/cuda/cpp/descriptors.py,
 * encode_smem_descriptor_base_uint64: ldo and sdo in 16-byte units at bits 16 and 32, 1 << 46, the
 * swizzle enum 0 none, 1 32B, 2 64B, 3 128B, 4 128B_base32B as layout code 0, 6, 4, 2, 1 at bit 61),
 * which is TCGEN05.md 9's; the start address (>> 4) goes into bits 0..13. */
START_TEST(encode_tvm_cases)
{
	static const struct {
		int ldo, sdo;
		SmemSwizzle swizzle;
		uint64_t bits;
	} cases[] = {
		{0, 8, SW_NONE, 0x0000400800000000},         /* 8 << 32 | 1 << 46 */
		{0, 8, SW_128B, 0x4000400800000000},         /* + 2 << 61 */
		{64, 128, SW_64B, 0x8000408000400000},       /* 64 << 16 | 128 << 32 | 1 << 46 | 4 << 61 */
		{32, 64, SW_32B, 0xc000404000200000},        /* 32 << 16 | 64 << 32 | 1 << 46 | 6 << 61 */
		{16, 16, SW_128B_BASE32B, 0x2000401000100000}, /* 16 << 16 | 16 << 32 | 1 << 46 | 1 << 61 */
	};
	static const uint32_t starts[] = {0, 0x400, 0x1230, 0x3fff0};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		for (size_t j = 0; j < sizeof starts / sizeof *starts; j++) {
			SmemDesc d = {.start = starts[j], .lbo = 16u * (uint32_t)cases[i].ldo, .sbo = 16u * (uint32_t)cases[i].sdo,
			              .swizzle = cases[i].swizzle};
			uint64_t bits, want = cases[i].bits | starts[j] >> 4;
			ck_assert(smem_desc_encode(&d, &bits));
			ck_assert_msg(bits == want, "case %zu start 0x%x: 0x%016llx, expected 0x%016llx", i, starts[j],
			              (unsigned long long)bits, (unsigned long long)want);
		}
}
END_TEST

START_TEST(encode_hand_cases)
{
	static const struct {
		SmemDesc d;
		uint64_t bits;
	} cases[] = {
		/* TCGEN05.md 10.2: scale factors, no swizzle, SBO 128, LBO 0, here at 0x400 */
		{{0x400, 0, 128, 0, false, SW_NONE}, 0x0000400800000040},
		/* TCGEN05.md 11.2's worked value: K-major 128B bf16, SBO 1024 (64 << 32), at 0x2000 */
		{{0x2000, 0, 1024, 0, false, SW_128B}, 0x4000404000000200},
		/* every field at once: base offset 5 at 49 (0xa << 48), absolute LBO at 52 */
		{{16, 16, 16, 5, true, SW_NONE}, 0x001a400100010001},
		/* the largest fields: 0x3fff each, layout code 6 */
		{{0x3fff0, 0x3fff0, 0x3fff0, 7, false, SW_32B}, 0xc00e7fff3fff3fff},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint64_t bits;
		ck_assert(smem_desc_encode(&cases[i].d, &bits));
		ck_assert_msg(bits == cases[i].bits, "case %zu: 0x%016llx, expected 0x%016llx", i, (unsigned long long)bits,
		              (unsigned long long)cases[i].bits);
		SmemDesc back;
		ck_assert(smem_desc_decode(cases[i].bits, &back));
		ck_assert(desc_eq(&back, &cases[i].d));
	}
	/* what the fields cannot hold */
	static const SmemDesc refused[] = {
		{8, 0, 128, 0, false, SW_NONE},          /* start not a multiple of 16 */
		{0, 24, 128, 0, false, SW_NONE},         /* LBO */
		{0, 0, 1u << 18, 0, false, SW_NONE},     /* SBO of 256 KiB: 14 bits of >> 4 */
		{1u << 18, 0, 128, 0, false, SW_NONE},
		{0, 0, 128, 8, false, SW_NONE},          /* base offset of 3 bits */
		{0, 0, 128, -1, false, SW_NONE},
	};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		uint64_t bits;
		ck_assert_msg(!smem_desc_encode(&refused[i], &bits), "refused case %zu encoded", i);
	}
}
END_TEST

START_TEST(decode_refuses)
{
	const uint64_t good = 0x4000404000000200; /* the worked value above */
	SmemDesc d;
	ck_assert(smem_desc_decode(good, &d));
	static const uint64_t bad[] = {
		good & ~((uint64_t)1 << 46),           /* the fixed 0b001 missing */
		good | (uint64_t)1 << 47,              /* 0b011 */
		good | (uint64_t)1 << 48,
		good | (uint64_t)1 << 53,              /* bits 53..60 are 0 */
		good | (uint64_t)1 << 60,
		good | (uint64_t)1 << 14,              /* the gaps between the 14-bit fields */
		good | (uint64_t)1 << 15,
		good | (uint64_t)1 << 30,
		good | (uint64_t)1 << 31,
		(good & ~((uint64_t)7 << 61)) | (uint64_t)3 << 61, /* layout codes 3, 5 and 7 */
		(good & ~((uint64_t)7 << 61)) | (uint64_t)5 << 61,
		(good & ~((uint64_t)7 << 61)) | (uint64_t)7 << 61,
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(!smem_desc_decode(bad[i], &d), "0x%016llx decoded", (unsigned long long)bad[i]);
}
END_TEST

/* decode(encode(d)) == d for descriptors over every field value, and encode(decode(b)) == b for every
 * bit pattern that decodes: fields from a fixed linear congruential sequence. */
START_TEST(round_trip)
{
	uint64_t x = 0x9e3779b97f4a7c15u;
	int decoded = 0;
	for (int i = 0; i < 200000; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		SmemDesc d = {
			.start = (uint32_t)(x >> 10) & 0x3fff0,
			.lbo = (uint32_t)(x >> 24) & 0x3fff0,
			.sbo = (uint32_t)(x >> 38) & 0x3fff0,
			.base_offset = (int)(x >> 56) & 7,
			.lbo_absolute = (x >> 59) & 1,
			.swizzle = (SmemSwizzle)((x >> 60) % SW_COUNT),
		};
		uint64_t bits;
		SmemDesc back;
		ck_assert(smem_desc_encode(&d, &bits));
		ck_assert(smem_desc_decode(bits, &back));
		ck_assert(desc_eq(&back, &d));
		/* any 64 bits with the fixed field set: decoded or not, never a different encoding */
		uint64_t raw = (x & ~((uint64_t)7 << 46)) | (uint64_t)1 << 46;
		if (i % 2)
			raw &= ~((UINT64_C(3) << 14) | (UINT64_C(3) << 30) | (UINT64_C(0xff) << 53));
		if (smem_desc_decode(raw, &back)) {
			ck_assert(smem_desc_encode(&back, &bits));
			ck_assert_msg(bits == raw, "0x%016llx came back as 0x%016llx", (unsigned long long)raw,
			              (unsigned long long)bits);
			decoded++;
		}
	}
	ck_assert_int_gt(decoded, 50000);
}
END_TEST

/* ---------------------------------------------------------------- descriptors of views */

static bool
check_view(const SmemTile *t, int row0, int col0, int rows, int cols, SmemMismatch *m)
{
	SmemTouch *touch = malloc(sizeof *touch * (size_t)(rows * cols));
	ck_assert_ptr_nonnull(touch);
	smem_tile_touches(t, row0, col0, rows, cols, touch);
	SmemDesc d = smem_tile_desc(t, row0, col0);
	uint64_t bits;
	ck_assert(smem_desc_encode(&d, &bits));
	bool ok = smem_desc_check(&d, t->major, t->elem_bytes, touch, rows * cols, m);
	free(touch);
	return ok;
}

/* The views a descriptor can express: whole tiles where the walk spans them (no swizzle, MN-major) and,
 * K-major swizzled, every K atom and every start an MMA's K step or a cp at a row inside an atom takes. */
START_TEST(desc_of_views)
{
	static const int elem[] = {1, 2, 4};
	SmemMismatch m;
	int views = 0;
	for (int major = 0; major < SMEM_MAJOR_COUNT; major++)
		for (int s = 0; s < SW_COUNT; s++)
			for (int ei = 0; ei < 3; ei++) {
				SmemTile t = {(SmemMajor)major, (SmemSwizzle)s, elem[ei], 0, 0, 3072};
				if (smem_tile_check(&t) == SMEM_TILE_MAJOR)
					continue;
				int ar, ac;
				smem_atom_shape(&t, &ar, &ac);
				t.rows = 4 * ar;
				t.cols = 2 * ac;
				ck_assert_int_eq(smem_tile_check(&t), SMEM_TILE_FITS);
				bool k_swizzled = major == SMEM_K && s != SW_NONE;
				if (!k_swizzled) {
					ck_assert_msg(check_view(&t, 0, 0, t.rows, t.cols, &m), "%s %s e %d: element %d",
					              smem_major_name(t.major), smem_swizzle_info(t.swizzle)->name, t.elem_bytes, m.index);
					views++;
					continue;
				}
				int chunk = 16 / t.elem_bytes;
				for (int atom = 0; atom < 2; atom++)
					for (int k0 = 0; k0 < ac; k0 += chunk)
						for (int row0 = 0; row0 < t.rows; row0 += 4) {
							ck_assert_msg(check_view(&t, row0, atom * ac + k0, t.rows - row0, ac - k0, &m),
							              "K %s e %d view (%d, %d): element %d", smem_swizzle_info(t.swizzle)->name,
							              t.elem_bytes, row0, atom * ac + k0, m.index);
							views++;
						}
			}
	ck_assert_int_gt(views, 500);
}
END_TEST

START_TEST(desc_start_inside_atom)
{
	/* bf16 K-major 128B from 0: the MMA's second K step (16 bf16 = 32 bytes), from row 4 */
	SmemTile t = tile(SMEM_K, SW_128B, 2, 16, 64, 0);
	SmemDesc d = smem_tile_desc(&t, 4, 16);
	ck_assert_uint_eq(d.start, 4 * 128 + 32);
	ck_assert_uint_eq(d.sbo, 1024);
	ck_assert_int_eq(d.base_offset, 0);
	SmemMismatch m;
	ck_assert(check_view(&t, 4, 16, 12, 16, &m));
}
END_TEST

START_TEST(desc_mismatches)
{
	SmemMismatch m;
	/* K-major 32B bf16 from 1024, the view [0, 8) x [8, 24): its k = 8 is column 16, the next K atom,
	 * at 1024 + 8 * 32 = 1280 (10 & 1 = 0: unswizzled); the walk from 1040 reads 1040 + 16 = 1056 */
	SmemTile k32 = tile(SMEM_K, SW_32B, 2, 8, 32, 1024);
	ck_assert(!check_view(&k32, 0, 8, 8, 16, &m));
	ck_assert_int_eq(m.fault, SMEM_DESC_ADDRESS);
	ck_assert_int_eq(m.index, 8);
	ck_assert_uint_eq(m.tile_addr, 1280);
	ck_assert_uint_eq(m.desc_addr, 1056);

	/* a K slice that starts inside a 16-byte chunk: bf16 column 3 is at byte 6; the start field holds
	 * 0, so the first element differs */
	SmemTile kn = tile(SMEM_K, SW_NONE, 2, 8, 16, 0);
	ck_assert_uint_eq(smem_tile_desc(&kn, 0, 3).start, 0);
	ck_assert(!check_view(&kn, 0, 3, 8, 8, &m));
	ck_assert_int_eq(m.index, 0);
	ck_assert_uint_eq(m.tile_addr, 6);
	ck_assert_uint_eq(m.desc_addr, 0);

	/* MN-major 32B f32 16 x 8 from 0, the view from row 4: its row 4 is row 8, in the next atom, at
	 * LBO = 256 (2 & 1 = 0); the walk from 16 stays in the atom's line: 16 + 16 = 32 */
	SmemTile mn32 = tile(SMEM_MN, SW_32B, 4, 16, 8, 0);
	ck_assert(!check_view(&mn32, 4, 0, 8, 1, &m));
	ck_assert_int_eq(m.index, 4);
	ck_assert_uint_eq(m.tile_addr, 256);
	ck_assert_uint_eq(m.desc_addr, 32);
	/* without swizzle the rows of a core matrix column are contiguous: a view from row 4 fits */
	SmemTile k16 = tile(SMEM_K, SW_NONE, 2, 16, 16, 0);
	ck_assert(check_view(&k16, 4, 0, 12, 16, &m));

	/* LBO and SBO swapped: MN-major 128B bf16 128 x 16 from 1024 has LBO 1024, SBO 2048; element (0, 8)
	 * is at 1024 + 2048 = 3072 (24 & 7 = 0), the swapped walk reads 1024 + 1024 = 2048 (16 & 7 = 0) */
	SmemTile mn = tile(SMEM_MN, SW_128B, 2, 128, 16, 1024);
	SmemTouch *touch = malloc(sizeof *touch * 128 * 16);
	ck_assert_ptr_nonnull(touch);
	smem_tile_touches(&mn, 0, 0, 128, 16, touch);
	SmemDesc d = smem_tile_desc(&mn, 0, 0);
	ck_assert(d.lbo == 1024 && d.sbo == 2048);
	ck_assert(smem_desc_check(&d, SMEM_MN, 2, touch, 128 * 16, &m));
	SmemDesc swapped = d;
	swapped.lbo = d.sbo;
	swapped.sbo = d.lbo;
	ck_assert(!smem_desc_check(&swapped, SMEM_MN, 2, touch, 128 * 16, &m));
	ck_assert_int_eq(m.index, 8);
	ck_assert_uint_eq(m.tile_addr, 3072);
	ck_assert_uint_eq(m.desc_addr, 2048);
	/* read as K-major, the same descriptor reaches element (0, 1) at 1024 + 2 (MN-major: 1024 + 128 ^ 16) */
	ck_assert(!smem_desc_check(&d, SMEM_K, 2, touch, 128 * 16, &m));
	ck_assert_int_eq(m.index, 1);
	ck_assert_uint_eq(m.tile_addr, 1168);
	ck_assert_uint_eq(m.desc_addr, 1026);
	free(touch);

	/* a missing >> 4: SBO 1024 written into the field as 1024 instead of 64 decodes as 16384; K-major
	 * 128B bf16 16 x 64 from 0: row 8 is at 1024 (8 & 7 = 0), the walk reads 16384 */
	SmemTile k128 = tile(SMEM_K, SW_128B, 2, 16, 64, 0);
	uint64_t wrong = (uint64_t)1024 << 32 | (uint64_t)1 << 46 | (uint64_t)2 << 61;
	ck_assert(smem_desc_decode(wrong, &d));
	ck_assert_uint_eq(d.sbo, 16384);
	touch = malloc(sizeof *touch * 16 * 64);
	ck_assert_ptr_nonnull(touch);
	smem_tile_touches(&k128, 0, 0, 16, 64, touch);
	ck_assert(!smem_desc_check(&d, SMEM_K, 2, touch, 16 * 64, &m));
	ck_assert_int_eq(m.index, 8 * 64);
	ck_assert_uint_eq(m.tile_addr, 1024);
	ck_assert_uint_eq(m.desc_addr, 16384);
	free(touch);
}
END_TEST

START_TEST(desc_same_byte_and_fields)
{
	SmemTile t = tile(SMEM_K, SW_NONE, 4, 8, 8, 0);
	SmemTouch touch[11];
	smem_tile_touches(&t, 0, 0, 1, 8, touch);
	touch[8] = touch[5];
	touch[9] = touch[3];
	touch[10] = touch[5];
	SmemDesc d = smem_tile_desc(&t, 0, 0);
	SmemMismatch m;
	ck_assert(smem_desc_check(&d, SMEM_K, 4, touch, 8, &m));
	ck_assert_int_eq(m.fault, SMEM_DESC_FITS);
	/* element 5 (column 5: 4 + LBO 128) comes again at 8 and 10, element 3 (12) at 9: touch 8 is the
	 * first to repeat one, though element 3 comes before element 5 */
	ck_assert(!smem_desc_check(&d, SMEM_K, 4, touch, 11, &m));
	ck_assert_int_eq(m.fault, SMEM_DESC_SAME_BYTE);
	ck_assert_int_eq(m.index, 5);
	ck_assert_int_eq(m.other, 8);
	ck_assert_uint_eq(m.tile_addr, 132);
	ck_assert(!smem_desc_check(&d, SMEM_K, 4, touch + 1, 10, &m)); /* from touch 1: 3 at 2 and 8, 5 at 4, 7, 9 */
	ck_assert_int_eq(m.index, 4);
	ck_assert_int_eq(m.other, 7);
	ck_assert_uint_eq(m.tile_addr, 132);
	ck_assert(smem_desc_check(&d, SMEM_K, 4, touch + 3, 5, &m));   /* columns 3..7 */
	ck_assert(!smem_desc_check(&d, SMEM_K, 4, touch + 3, 6, &m));  /* and 5 again */
	ck_assert(m.index == 2 && m.other == 5);
	d.base_offset = 1;
	ck_assert(!smem_desc_check(&d, SMEM_K, 4, touch, 8, &m));
	ck_assert_int_eq(m.fault, SMEM_DESC_FIELDS);
	d.base_offset = 0;
	d.lbo_absolute = true;
	ck_assert(!smem_desc_check(&d, SMEM_K, 4, touch, 8, &m));
	ck_assert_int_eq(m.fault, SMEM_DESC_FIELDS);
}
END_TEST


/* ---------------------------------------------------------------- a view through smem_view_descriptor */

START_TEST(view_descriptor_contract)
{
	SmemMismatch m;
	SmemDesc d;
	/* K-major 128B bf16 128 x 64 from 0: the whole tile (one K atom) and the MMA's second K step */
	SmemTile t = tile(SMEM_K, SW_128B, 2, 128, 64, 0);
	ck_assert(smem_view_descriptor(&t, &(SmemView){0, 0, 128, 64}, &d, &m));
	ck_assert(d.start == 0 && d.sbo == 1024 && d.swizzle == SW_128B && d.base_offset == 0);
	ck_assert(smem_view_descriptor(&t, &(SmemView){0, 16, 128, 16}, &d, &m));
	ck_assert_uint_eq(d.start, 32);
	/* the same descriptor as smem_tile_desc gives, checked the same way as smem_desc_check does */
	SmemDesc by_hand = smem_tile_desc(&t, 0, 16);
	ck_assert(desc_eq(&d, &by_hand));
	/* a K slice from column 3 starts inside a 16-byte chunk: element [0, 3] at byte 6, the field holds 0 */
	SmemTile kn = tile(SMEM_K, SW_NONE, 2, 8, 16, 0);
	SmemView v = {0, 3, 8, 8};
	ck_assert(!smem_view_descriptor(&kn, &v, &d, &m));
	ck_assert_int_eq(m.fault, SMEM_DESC_ADDRESS);
	ck_assert_str_eq(smem_mismatch_text(&kn, &v, &m, "S"),
	                 "element [0, 3] of 'S' is at shared byte 6 in its K-major none layout, but the descriptor "
	                 "(start 0, LBO 128, SBO 128) reads byte 0 for it");
	/* K-major 32B: a view across two K atoms (TCGEN05.md 11.2: the next atom needs a new start) */
	SmemTile k32 = tile(SMEM_K, SW_32B, 2, 8, 32, 1024);
	v = (SmemView){0, 8, 8, 16};
	ck_assert(!smem_view_descriptor(&k32, &v, &d, &m));
	ck_assert(m.index == 8 && m.tile_addr == 1280 && m.desc_addr == 1056);
	ck_assert_str_eq(smem_mismatch_text(&k32, &v, &m, "B"),
	                 "element [0, 16] of 'B' is at shared byte 1280 in its K-major 32B layout, but the descriptor "
	                 "(start 1040, LBO 0, SBO 256) reads byte 1056 for it");
	SmemMismatch same = {SMEM_DESC_SAME_BYTE, 1, 9, 64, 64};
	ck_assert_str_eq(smem_mismatch_text(&k32, &(SmemView){2, 4, 4, 8}, &same, "B"),
	                 "elements [2, 5] and [3, 5] of 'B' both lie at shared byte 64");
}
END_TEST

/* ---------------------------------------------------------------- the element index of a shared tensor */

/* smem_tensor_element (and its inverse, smem_tensor_logical) and ie_tile_index (folded from constants, and evaluated for each thread with the
 * row or column from the thread's index) agree with smem_tile_addr on every element of stacked tiles of
 * every major, swizzle and element size. */
/* ie_tile_index of a contiguous coordinate m * tid + k with m a power of two below a chunk's elements
   (the 16x256b fragment: pairs of f32 columns, quads of 16-bit ones, m = 2 or 4): every element where
   the tile's layout puts it, and the constant's part below m outside the rest of the index with the rest
   a known multiple of m, so that a thread's m neighbours merge into one aligned access (vectorize.c). */
static void
check_below_a_chunk(const SmemTile *t, const int dims[3])
{
	IExpr *tid = ie_builtin(B_THREAD_X);
	int per_chunk = 16 / t->elem_bytes;
	/* the contiguous coordinate is the column of a K-major tile, the row of an MN one */
	int other = t->major == SMEM_K ? t->rows : t->cols, along = t->major == SMEM_K ? t->cols : t->rows;
	for (int m = 2; m < per_chunk; m *= 2)
		for (int k = 0; k < 2 * m; k++) {
			IExpr *x = ie_binary(OP_ADD, ie_binary(OP_MUL, tid, ie_int(m, T_I32)), ie_int(k, T_I32));
			for (int o = 0; o < other; o += 3) {
				IExpr *e = t->major == SMEM_K ? ie_tile_index(t, NULL, ie_int(o, T_I32), x)
				                              : ie_tile_index(t, NULL, x, ie_int(o, T_I32));
				int64_t off;
				IExpr *rest = ie_split_offset(e, &off);
				ck_assert_ptr_nonnull(rest);
				ck_assert_int_eq(off, k % m);
				ck_assert_int_eq(known_factor(rest) % m, 0);
				for (int th = 0; th * m + k < along; th++) {
					int64_t got;
					int r = t->major == SMEM_K ? o : th * m + k, c = t->major == SMEM_K ? th * m + k : o;
					ck_assert(ie_eval_thread(e, dims, th, &got));
					ck_assert_int_eq(got, smem_tile_addr(t, r, c) / (uint32_t)t->elem_bytes);
				}
			}
		}
}

START_TEST(tensor_index_matches_addr)
{
	static const int elem[] = {1, 2, 4};
	const int dims[3] = {256, 1, 1};
	int tiles = 0;
	for (int major = 0; major < SMEM_MAJOR_COUNT; major++)
		for (int s = 0; s < SW_COUNT; s++)
			for (int ei = 0; ei < 3; ei++) {
				SmemTile t = {(SmemMajor)major, (SmemSwizzle)s, elem[ei], 0, 0, 0};
				if (smem_tile_check(&t) == SMEM_TILE_MAJOR)
					continue;
				int ar, ac;
				smem_atom_shape(&t, &ar, &ac);
				t.rows = 2 * ar;
				t.cols = 2 * ac;
				int64_t per_tile = (int64_t)t.rows * t.cols;
				for (int stack = 0; stack < 2; stack++)
					for (int r = 0; r < t.rows; r++)
						for (int c = 0; c < t.cols; c++) {
							int64_t want = stack * per_tile + smem_tile_addr(&t, r, c) / (uint32_t)t.elem_bytes, got;
							ck_assert_int_eq(smem_tensor_element(&t, stack * per_tile + r * t.cols + c), want);
							ck_assert_int_eq(smem_tensor_logical(&t, want), stack * per_tile + r * t.cols + c);
							IExpr *e = ie_tile_index(&t, ie_int(stack, T_I32), ie_int(r, T_I32), ie_int(c, T_I32));
							ck_assert(ie_is_const(e, &got));
							ck_assert_int_eq(got, want);
						}
				/* run-time row, then run-time column: thread i stands for row (or column) i */
				IExpr *tid = ie_builtin(B_THREAD_X);
				for (int c = 0; c < t.cols; c++) {
					IExpr *e = ie_tile_index(&t, NULL, tid, ie_int(c, T_I32));
					for (int r = 0; r < t.rows; r++) {
						int64_t got;
						ck_assert(ie_eval_thread(e, dims, r, &got));
						ck_assert_int_eq(got, smem_tile_addr(&t, r, c) / (uint32_t)t.elem_bytes);
					}
				}
				for (int r = 0; r < t.rows; r++) {
					/* column 8 * tid + k, whose k lands inside its chunk as a constant where 8 fills chunks */
					for (int k = 0; k < 8 && k < t.cols; k++) {
						IExpr *col = ie_binary(OP_ADD, ie_binary(OP_MUL, tid, ie_int(8, T_I32)), ie_int(k, T_I32));
						IExpr *e = ie_tile_index(&t, NULL, ie_int(r, T_I32), col);
						for (int c = k; c < t.cols; c += 8) {
							int64_t got;
							ck_assert(ie_eval_thread(e, dims, c / 8, &got));
							ck_assert_int_eq(got, smem_tile_addr(&t, r, c) / (uint32_t)t.elem_bytes);
						}
					}
				}
				check_below_a_chunk(&t, dims);
				tiles++;
			}
	ck_assert_int_eq(tiles, 2 * 4 * 3 + 3);
}
END_TEST

static Suite *
smem_suite(void)
{
	/* one case each, so that each prints its own PASS line */
	static const TTest *const *tests[] = {
		&table_rows, &swizzle_permutes_chunks, &addr_k_none, &addr_k_32b, &addr_k_64b, &addr_k_128b,
		&addr_mn_none, &addr_mn_32b, &addr_mn_64b, &addr_mn_128b, &addr_fills_tile, &strides, &tile_faults,
		&encode_tvm_cases, &encode_hand_cases, &decode_refuses, &round_trip, &desc_of_views,
		&desc_start_inside_atom, &desc_mismatches, &desc_same_byte_and_fields, &view_descriptor_contract,
		&tensor_index_matches_addr,
	};
	Suite *s = suite_create("smem");
	for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
		TCase *tc = tcase_create((*tests[i])->name);
		tcase_add_test(tc, *tests[i]);
		suite_add_tcase(s, tc);
	}
	return s;
}

UNIT_MAIN(smem_suite)
