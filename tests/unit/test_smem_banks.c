/* test_smem_banks.c: smem_banks.c's bank model on warp accesses worked out by hand: the phases of each
 * width, broadcast of one word, inactive lanes, the swizzled rows of an epilogue's tile, and the check
 * that an order of each lane's accesses without conflicts exists. (The tile index of the 16x256b
 * fragment's columns, which lets their accesses merge, is test_smem.c's tensor_index_matches_addr.) */
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

static Suite *
smem_banks_suite(void)
{
	static const TTest *const *tests[] = {&words_of_one_phase, &vector_phases, &units_and_orders};
	Suite *s = suite_create("smem_banks");
	for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
		TCase *tc = tcase_create((*tests[i])->name);
		tcase_add_test(tc, *tests[i]);
		suite_add_tcase(s, tc);
	}
	return s;
}

UNIT_MAIN(smem_banks_suite)
