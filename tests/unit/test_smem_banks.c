/* test_smem_banks.c: smem_banks.c's bank model on warp accesses worked out by hand: the phases of each
 * width, broadcast of one word, inactive lanes, the swizzled rows of an epilogue's tile, and the check
 * that an order of each lane's accesses without conflicts exists. */
#include "tilec.h"
#include "unit.h"

/* addr[l] = base + (l % per_row) * step + (l / per_row) * row_stride, every lane active */
static void
lanes(int64_t *addr, int64_t base, int per_row, int64_t step, int64_t row_stride)
{
	for (int l = 0; l < 32; l++)
		addr[l] = base + (l % per_row) * step + (l / per_row) * row_stride;
}

START_TEST(words_of_one_phase)
{
	int64_t addr[32];
	int degree;
	lanes(addr, 0, 32, 4, 0); /* 32 consecutive words: one per bank */
	ck_assert_int_eq(smem_wavefronts(addr, 4, &degree), 1);
	ck_assert_int_eq(degree, 1);
	lanes(addr, 0, 1, 0, 128); /* a column of a row-major 32 x 32 f32 array: every lane in bank 0 */
	ck_assert_int_eq(smem_wavefronts(addr, 4, &degree), 32);
	ck_assert_int_eq(degree, 32);
	lanes(addr, 64, 32, 0, 0); /* one word for all: a broadcast */
	ck_assert_int_eq(smem_wavefronts(addr, 4, &degree), 1);
	lanes(addr, 0, 2, 128, 4); /* lanes 2k, 2k+1 in word k and word k + 32: same bank, two words */
	ck_assert_int_eq(smem_wavefronts(addr, 4, &degree), 2);
	ck_assert_int_eq(degree, 2);
	lanes(addr, 0, 32, 2, 0); /* 2-byte elements: two lanes to a word */
	ck_assert_int_eq(smem_wavefronts(addr, 2, &degree), 1);
	lanes(addr, 0, 8, 2, 256); /* 8 elements of 16-bit in a row, rows 256 bytes apart: 4 rows a bank */
	ck_assert_int_eq(smem_wavefronts(addr, 2, &degree), 4);
	ck_assert_int_eq(degree, 4);
	for (int l = 1; l < 32; l += 2) /* the odd lanes take no part */
		addr[l] = -1;
	ck_assert_int_eq(smem_wavefronts(addr, 2, &degree), 4);
	for (int l = 0; l < 32; l++)
		addr[l] = l < 8 ? 4 * l : -1;
	ck_assert_int_eq(smem_wavefronts(addr, 4, &degree), 1);
}
END_TEST

START_TEST(vector_phases)
{
	int64_t addr[32];
	int degree;
	ck_assert_int_eq(smem_phase_lanes(1), 32);
	ck_assert_int_eq(smem_phase_lanes(4), 32);
	ck_assert_int_eq(smem_phase_lanes(8), 16);
	ck_assert_int_eq(smem_phase_lanes(16), 8);
	lanes(addr, 0, 32, 16, 0); /* 512 contiguous bytes: four quarter warps of 128 */
	ck_assert_int_eq(smem_wavefronts(addr, 16, &degree), 4);
	ck_assert_int_eq(degree, 1);
	lanes(addr, 0, 32, 8, 0); /* 256 contiguous bytes: two half warps */
	ck_assert_int_eq(smem_wavefronts(addr, 8, &degree), 2);
	ck_assert_int_eq(degree, 1);
	lanes(addr, 0, 1, 0, 128); /* chunk 0 of consecutive 128-byte rows: all in banks 0..3 */
	ck_assert_int_eq(smem_wavefronts(addr, 16, &degree), 32);
	ck_assert_int_eq(degree, 8);
	/* the same rows under the 128B swizzle: row r's chunk 0 at chunk r % 8 (TCGEN05.md 14.5) */
	for (int l = 0; l < 32; l++)
		addr[l] = 128 * l + 16 * (l % 8);
	ck_assert_int_eq(smem_wavefronts(addr, 16, &degree), 4);
	ck_assert_int_eq(degree, 1);
	/* 8 bytes: four lanes of a row, the 16x256b fragment of f32 in 128-byte rows, unswizzled: four rows
	   of a half warp on banks 0..7 */
	lanes(addr, 0, 4, 8, 128);
	ck_assert_int_eq(smem_wavefronts(addr, 8, &degree), 8);
	ck_assert_int_eq(degree, 4);
}
END_TEST

START_TEST(units_and_orders)
{
	ck_assert_int_eq(smem_bank_unit(0, 16), 0);
	ck_assert_int_eq(smem_bank_unit(144, 16), 1);
	ck_assert_int_eq(smem_bank_unit(1024 + 120, 8), 15);
	ck_assert_int_eq(smem_bank_unit(4 * 33, 4), 1);
	int even[8] = {2, 2, 2, 2, 2, 2, 2, 2}, heavy[8] = {3, 1, 2, 2, 2, 2, 2, 2};
	ck_assert(smem_conflict_free_order(even, 8, 2));
	ck_assert(!smem_conflict_free_order(heavy, 8, 2));
	ck_assert(smem_conflict_free_order(heavy, 8, 3));
}
END_TEST

/* ie_tile_index of a contiguous coordinate m * tid + k with m a power of two below a chunk's elements
   (the 16x256b fragment: pairs of f32 columns, quads of 16-bit ones, m = 2 or 4): every element where
   the tile's layout puts it, and the constant's part below m outside the rest of the index with the rest
   a known multiple of m, so that a thread's m neighbours merge into one aligned access (vectorize.c). */
START_TEST(index_below_a_chunk)
{
	static const int elem[] = {1, 2, 4};
	const int dims[3] = {256, 1, 1};
	IExpr *tid = ie_builtin(B_THREAD_X);
	int tiles = 0;
	for (int major = 0; major < SMEM_MAJOR_COUNT; major++)
		for (int s = 0; s < SW_COUNT; s++)
			for (int ei = 0; ei < 3; ei++) {
				SmemTile t = {(SmemMajor)major, (SmemSwizzle)s, elem[ei], 0, 0, 0};
				if (smem_tile_check(&t) == SMEM_TILE_MAJOR)
					continue;
				int ar, ac, per_chunk = 16 / elem[ei];
				smem_atom_shape(&t, &ar, &ac);
				t.rows = 2 * ar;
				t.cols = 2 * ac;
				for (int m = 2; m < per_chunk; m *= 2)
					for (int k = 0; k < 2 * m; k++) {
						/* the contiguous coordinate is the column of a K-major tile, the row of an MN one */
						IExpr *x = ie_binary(OP_ADD, ie_binary(OP_MUL, tid, ie_int(m, T_I32)), ie_int(k, T_I32));
						int other = major == SMEM_K ? t.rows : t.cols, along = major == SMEM_K ? t.cols : t.rows;
						for (int o = 0; o < other; o += 3) {
							IExpr *e = major == SMEM_K ? ie_tile_index(&t, NULL, ie_int(o, T_I32), x)
							                           : ie_tile_index(&t, NULL, x, ie_int(o, T_I32));
							int64_t off;
							IExpr *rest = ie_split_offset(e, &off);
							ck_assert_ptr_nonnull(rest);
							ck_assert_int_eq(off, k % m);
							ck_assert_int_eq(known_factor(rest) % m, 0);
							for (int th = 0; th * m + k < along; th++) {
								int64_t got;
								int r = major == SMEM_K ? o : th * m + k, c = major == SMEM_K ? th * m + k : o;
								ck_assert(ie_eval_thread(e, dims, th, &got));
								ck_assert_int_eq(got, smem_tile_addr(&t, r, c) / (uint32_t)t.elem_bytes);
							}
						}
					}
				tiles++;
			}
	ck_assert_int_eq(tiles, 2 * 4 * 3 + 3);
}
END_TEST

static Suite *
smem_banks_suite(void)
{
	static const TTest *const *tests[] = {&words_of_one_phase, &vector_phases, &units_and_orders, &index_below_a_chunk};
	Suite *s = suite_create("smem_banks");
	for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
		TCase *tc = tcase_create((*tests[i])->name);
		tcase_add_test(tc, *tests[i]);
		suite_add_tcase(s, tc);
	}
	return s;
}

UNIT_MAIN(smem_banks_suite)
