/* test_mma.c: tcgen05.mma's instruction descriptor against values worked out by hand from TCGEN05.md 9 and 15,
 * field by field; isa.c's kind table and spellings; and runtime/tilec_mma.h's descriptor walk (the emulator's)
 * against smem.c's on every element each K step of an mma reads, for tiles of every major, swizzle and size. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"
#include "unit.h"

#define TL_MMA_FN static inline
#include "tilec_mma.h"

/* TCGEN05.md 9's worked value, and three more composed by hand from its bit table:
   [4,6) D format, [7,10) A, [10,13) B, 15 / 16 transpose, [17,23) N >> 3, [24,29) M >> 4. */
START_TEST(idesc_by_hand)
{
	static const struct {
		MmaIdesc d;
		uint32_t bits;
	} cases[] = {
		/* bf16 x bf16 -> f32, K-major, M 128, N 64: 0x10 | 1 << 7 | 1 << 10 | 8 << 17 | 8 << 24 */
		{{.d_format = 1, .a_format = 1, .b_format = 1, .n = 64, .m = 128}, 0x08100490u},
		/* f16 x f16 -> f32, A MN-major, M 64, N 256: 0x10 | 1 << 15 | 32 << 17 | 4 << 24 */
		{{.d_format = 1, .transpose_a = true, .n = 256, .m = 64}, 0x04408010u},
		/* tf32 (2) x tf32 -> f32, M 128, N 128: 0x10 | 2 << 7 | 2 << 10 | 16 << 17 | 8 << 24 */
		{{.d_format = 1, .a_format = 2, .b_format = 2, .n = 128, .m = 128}, 0x08200910u},
		/* e4m3 (0) x e5m2 (1), both MN-major, M 128, N 32: 0x10 | 1 << 10 | 3 << 15 | 4 << 17 | 8 << 24 */
		{{.d_format = 1, .b_format = 1, .transpose_a = true, .transpose_b = true, .n = 32, .m = 128}, 0x08098410u},
		/* f16 accumulator (0), N 8, M 64, negate B: 1 << 14 | 1 << 17 | 4 << 24 */
		{{.negate_b = true, .n = 8, .m = 64}, 0x04024000u},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_uint_eq(mma_idesc_encode(&cases[i].d), cases[i].bits);
		MmaIdesc back = mma_idesc_decode(cases[i].bits);
		ck_assert(memcmp(&back, &cases[i].d, sizeof back) == 0);
	}
	ck_assert_str_eq(mma_idesc_text(0x08100490u),
	                 "0x08100490: D format 1 [4,6), A format 1 [7,10), B format 1 [10,13), negate A 0, negate B 0, "
	                 "transpose A 0 (bit 15), transpose B 0 (bit 16), N 64 (N >> 3 = 8 in [17,23)), M 128 (M >> 4 = 8 "
	                 "in [24,29)), max shift 0");
}
END_TEST

/* The block-scaled descriptor (TCGEN05.md 15, CUTLASS's block-scaled layout), composed by hand: [4,6) SFB_ID,
   [7,10) A, [10,13) B, 15 / 16 transpose, [17,23) N >> 3, 23 scale format (1 ue8m0), [24,29) M >> 4, [29,31)
   SFA_ID, 31 K size. */
START_TEST(scaled_idesc_by_hand)
{
	static const struct {
		MmaScaledIdesc d;
		uint32_t bits;
	} cases[] = {
		/* e4m3 x e4m3, ue8m0, M 128, N 128, K step 0: 16 << 17 | 1 << 23 | 8 << 24 */
		{{.n = 128, .m = 128, .scale_ue8m0 = true}, 0x08a00000u},
		/* the same, K step 1 (SFA_ID = SFB_ID = 1): | 1 << 4 | 1 << 29 */
		{{.n = 128, .m = 128, .scale_ue8m0 = true, .sfa_id = 1, .sfb_id = 1}, 0x28a00010u},
		/* e5m2 (1) x e2m1 (5), ue4m3 (0), M 128, N 256, SFA_ID 3, SFB_ID 2:
		   2 << 4 | 1 << 7 | 5 << 10 | 32 << 17 | 8 << 24 | 3 << 29 */
		{{.a_format = 1, .b_format = 5, .n = 256, .m = 128, .sfa_id = 3, .sfb_id = 2}, 0x684014a0u},
		/* kind::mxf4's E2M1 (1) both, ue8m0, M 128, N 64, B MN-major, K size 1:
		   1 << 7 | 1 << 10 | 1 << 16 | 8 << 17 | 1 << 23 | 8 << 24 | 1 << 31 */
		{{.a_format = 1, .b_format = 1, .transpose_b = true, .n = 64, .m = 128, .scale_ue8m0 = true, .k_size = 1},
		 0x88910480u},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_uint_eq(mma_scaled_idesc_encode(&cases[i].d), cases[i].bits);
		/* field by field: the struct has padding after scale_ue8m0 */
		MmaScaledIdesc back = mma_scaled_idesc_decode(cases[i].bits);
		const MmaScaledIdesc *d = &cases[i].d;
		ck_assert(back.a_format == d->a_format && back.b_format == d->b_format && back.negate_a == d->negate_a &&
		          back.negate_b == d->negate_b && back.transpose_a == d->transpose_a &&
		          back.transpose_b == d->transpose_b && back.n == d->n && back.m == d->m &&
		          back.scale_ue8m0 == d->scale_ue8m0 && back.sfa_id == d->sfa_id && back.sfb_id == d->sfb_id &&
		          back.k_size == d->k_size);
	}
	ck_assert_str_eq(mma_scaled_idesc_text(0x28a00010u),
	                 "0x28a00010: SFB_ID 1 [4,6), A format 0 [7,10), B format 0 [10,13), negate A 0, negate B 0, "
	                 "transpose A 0 (bit 15), transpose B 0 (bit 16), N 128 (N >> 3 = 16 in [17,23)), scale format 1 "
	                 "(bit 23: ue8m0), M 128 (M >> 4 = 8 in [24,29)), SFA_ID 1 [29,31), K size 0 (bit 31)");
	/* the block-scaled kinds' types and spellings (PTX ISA: mxf8f6f4 takes 1X only, the mxf4 kinds 2X / 4X) */
	ck_assert_int_eq(mma_type_code(MMA_MXF8F6F4, T_E3M2), 4);
	ck_assert_int_eq(mma_type_code(MMA_MXF4, T_E2M1), 1);
	ck_assert_int_eq(mma_type_code(MMA_MXF4NVF4, T_E4M3), -1);
	ck_assert_str_eq(mma_scaled_spelling(1, MMA_MXF8F6F4, 1),
	                 "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X");
	ck_assert_str_eq(mma_scaled_spelling(1, MMA_MXF4, 2), "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X");
	ck_assert_str_eq(mma_scaled_spelling(2, MMA_MXF4NVF4, 4),
	                 "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.scale_vec::4X");
}
END_TEST

/* TCGEN05.md 15: the kind of each input type and its format code; the spellings from the row's slots */
START_TEST(kinds)
{
	static const struct {
		EType t;
		MmaKind kind;
		int code;
	} want[] = {{T_F16, MMA_F16, 0},     {T_BF16, MMA_F16, 1},    {T_F32, MMA_TF32, 2},    {T_E4M3, MMA_F8F6F4, 0},
	            {T_E5M2, MMA_F8F6F4, 1}, {T_E2M3, MMA_F8F6F4, 3}, {T_E3M2, MMA_F8F6F4, 4}, {T_E2M1, MMA_F8F6F4, 5}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		MmaKind k;
		ck_assert(mma_kind_of(want[i].t, &k));
		ck_assert_int_eq(k, want[i].kind);
		ck_assert_int_eq(mma_type_code(k, want[i].t), want[i].code);
		ck_assert_int_eq(mma_kind_info(k)->k_bytes, 32);
	}
	MmaKind k;
	ck_assert(!mma_kind_of(T_I32, &k) && !mma_kind_of(T_UE8M0, &k));
	ck_assert_int_eq(mma_d_code(T_F32), 1);
	ck_assert_int_eq(mma_d_code(T_F16), 0);
	ck_assert_str_eq(mma_spelling(1, MMA_F16), "tcgen05.mma.cta_group::1.kind::f16");
	ck_assert_str_eq(mma_spelling(1, MMA_TF32), "tcgen05.mma.cta_group::1.kind::tf32");
	ck_assert_str_eq(mma_spelling(2, MMA_F8F6F4), "tcgen05.mma.cta_group::2.kind::f8f6f4");
}
END_TEST

/* The emulator's walk reads every element of every K step (32 bytes of K) where smem.c's does: tiles of two
   atoms each way, from a period-aligned start, each major, swizzle and element size. */
START_TEST(walk_matches_smem)
{
	static const int elem[] = {1, 2, 4};
	int checked = 0;
	for (int major = 0; major < SMEM_MAJOR_COUNT; major++)
		for (int s = 0; s < SW_COUNT; s++)
			for (int ei = 0; ei < 3; ei++) {
				SmemTile t = {(SmemMajor)major, (SmemSwizzle)s, elem[ei], 0, 0, 2048};
				if (smem_tile_check(&t) == SMEM_TILE_MAJOR)
					continue;
				int ar, ac;
				smem_atom_shape(&t, &ar, &ac);
				t.rows = 2 * ar;
				t.cols = 2 * ac > 64 / elem[ei] ? 2 * ac : 64 / elem[ei];
				ck_assert_int_eq(smem_tile_check(&t), SMEM_TILE_FITS);
				int ik = 32 / elem[ei];
				for (int k0 = 0; k0 + ik <= t.cols; k0 += ik) {
					SmemDesc d = smem_tile_desc(&t, 0, k0);
					uint64_t bits;
					ck_assert(smem_desc_encode(&d, &bits));
					for (int mn = 0; mn < t.rows; mn++)
						for (int k = 0; k < ik; k++) {
							uint32_t want = smem_desc_addr(&d, t.major, elem[ei], mn, k);
							ck_assert_uint_eq(tl_mma_addr(bits, major == SMEM_MN, (unsigned)elem[ei], (unsigned)mn,
							                              (unsigned)k), want);
							checked++;
						}
				}
			}
	ck_assert_int_gt(checked, 10000);
	/* a layout code no swizzle has */
	ck_assert_uint_eq(tl_mma_addr(UINT64_C(3) << 61 | UINT64_C(1) << 46, 0, 2, 0, 0), 0xffffffffu);
	/* the datapath lanes of TCGEN05.md 6: layout "D" row i in lane i, layout "F" in 32 (i / 16) + i % 16 */
	ck_assert_uint_eq(tl_mma_lane(128, 77), 77);
	ck_assert_uint_eq(tl_mma_lane(64, 17), 33);
	ck_assert_uint_eq(tl_mma_lane(64, 63), 111);
}
END_TEST

static Suite *
mma_suite(void)
{
	static const TTest *const *tests[] = {&idesc_by_hand, &scaled_idesc_by_hand, &kinds, &walk_matches_smem};
	Suite *s = suite_create("mma");
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		TCase *tc = tcase_create((*tests[i])->name);
		tcase_add_test(tc, *tests[i]);
		suite_add_tcase(s, tc);
	}
	return s;
}

UNIT_MAIN(mma_suite)
