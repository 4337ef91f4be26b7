/* test_layout.c: layout evaluation (src/layout.c): strided layouts with replicas and offsets, default,
 * every tmem_datapath_layout letter, and the errors of LANGUAGE.md section 5. Expected places are
 * computed here from the formulas of LANGUAGE.md, independently of layout.c. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec.h"
#include "unit.h"

/* ---------------------------------------------------------------- helpers */


static int last_errors;
static const char *last_diags = "";


/* Parses `PRELUDE layout L = TEXT;`, declares its consts and layouts as lower_program does, and
 * evaluates L for t. Errors (parse or layout) go to last_errors, their text to last_diags. */
static Layout *
eval_with(const char *prelude, const char *text, Tensor *t, int block_threads)
{
	char *src = pool_printf("%s\nlayout L = %s;\n", prelude, text);
	size_t len = strlen(src);
	char *copy = malloc(len + 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, src, len + 1);
	int file = source_add("t.tile", copy, len);
	List items = {0};
	error_count = 0;
	capture_start();
	bool ok = parse_file(file, &items);
	Layout *l = NULL;
	if (ok) {
		sema_reset(false);
		scope_push();
		LayoutExpr *le = NULL;
		for (int i = 0; i < items.n; i++) {
			Item *it = LIST_AT(items, Item, i);
			if (it->kind == I_CONST) {
				int64_t v;
				if (const_int(it->value, &v, "a const")) {
					Sym *s = sym_declare(SYM_CONST, it->name, it->name_loc);
					if (s)
						s->value = ie_int(v, v > INT32_MAX ? T_U32 : T_I32);
				}
			} else if (it->kind == I_LAYOUT) {
				Sym *s = sym_declare(SYM_LAYOUT, it->name, it->name_loc);
				if (s)
					s->layout = it->layout;
				if (strcmp(it->name, "L") == 0)
					le = it->layout;
			}
		}
		ck_assert_ptr_nonnull(le);
		l = layout_eval(le, t, block_threads);
		scope_pop();
	}
	last_diags = capture_end();
	last_errors = error_count;
	ck_assert_msg(ok, "parse failed: %s", last_diags);
	ck_assert_msg((l == NULL) == (last_errors > 0), "layout %s but %d errors: %s", l ? "returned" : "failed",
	              last_errors, last_diags);
	return l;
}

static Layout *
eval(const char *text, Tensor *t, int block_threads)
{
	return eval_with("", text, t, block_threads);
}

/* The layout must be accepted. */
static Layout *
good(const char *text, Tensor *t, int block_threads)
{
	Layout *l = eval(text, t, block_threads);
	ck_assert_msg(l != NULL, "'%s' refused: %s", text, last_diags);
	return l;
}

/* The layout must be refused with exactly one error whose text contains want. */
static void
bad_with(const char *prelude, const char *text, Tensor *t, int block_threads, const char *want)
{
	Layout *l = eval_with(prelude, text, t, block_threads);
	ck_assert_msg(l == NULL, "'%s' accepted for '%s'", text, t->name);
	ck_assert_msg(last_errors == 1, "'%s': %d errors, want 1: %s", text, last_errors, last_diags);
	ck_assert_msg(strstr(last_diags, want) != NULL, "'%s': diagnostics lack '%s':\n%s", text, want, last_diags);
}

static void
bad(const char *text, Tensor *t, int block_threads, const char *want)
{
	bad_with("", text, t, block_threads, want);
}

static int32_t
at(const Layout *l, int e, int r, Axis a)
{
	return LAYOUT_PLACE(l, e, r)[a];
}

/* Every axis of place (e, r) other than the listed ones is zero. */
static void
only_axes(const Layout *l, int e, int r, unsigned axes)
{
	for (int a = 0; a < AX_COUNT; a++)
		if (!(axes >> a & 1))
			ck_assert_msg(at(l, e, r, (Axis)a) == 0, "element %d replica %d: axis %s is %d, want 0", e, r,
			              axis_name((Axis)a), at(l, e, r, (Axis)a));
}

#define BIT(a) (1u << (a))

/* ---------------------------------------------------------------- the two worked tiles */

/* The 8x16 register tile of one warp, as mma.sync's m16n8 fragments lay out 8 rows: lane 4*i + q
 * holds row i, columns 2q, 2q+1 (slots 0, 1) and 8+2q, 8+2q+1 (slots 2, 3). Flat index
 * e = 16 i + 8 h + 2 q + b splits as (8, 2, 4, 2) with strides (4@laneid, 2, 1@laneid, 1). */
START_TEST(register_tile_8x16)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "frag", 2, 8, 16);
	Layout *l = good("S[(8, 2, 4, 2) : (4@laneid, 2, 1@laneid, 1)]", t, 128);
	ck_assert_int_eq(l->count, 128);
	ck_assert_int_eq(l->nrep, 1);
	ck_assert_int_eq(l->slots, 4);
	ck_assert_uint_eq(l->axes, BIT(AX_LANEID) | BIT(AX_M));
	ck_assert(layout_names_thread(l));
	int seen[32][4] = {{0}};
	for (int i = 0; i < 8; i++) {
		for (int j = 0; j < 16; j++) {
			int e = i * 16 + j;
			int lane = 4 * i + (j % 8) / 2;
			int slot = 2 * (j / 8) + j % 2;
			ck_assert_msg(at(l, e, 0, AX_LANEID) == lane && at(l, e, 0, AX_M) == slot,
			              "[%d, %d]: lane %d slot %d, want lane %d slot %d", i, j, at(l, e, 0, AX_LANEID),
			              at(l, e, 0, AX_M), lane, slot);
			only_axes(l, e, 0, BIT(AX_LANEID) | BIT(AX_M));
			ck_assert_int_eq(layout_place_thread(LAYOUT_PLACE(l, e, 0)), lane);
			seen[lane][slot]++;
			/* no warp axis: every warp holds its own copy, in the same slot */
			for (int thread = 0; thread < 128; thread++)
				ck_assert_int_eq(layout_slot_in_thread(l, e, thread), thread % 32 == lane ? slot : -1);
		}
	}
	for (int lane = 0; lane < 32; lane++)
		for (int s = 0; s < 4; s++)
			ck_assert_msg(seen[lane][s] == 1, "lane %d slot %d holds %d elements", lane, s, seen[lane][s]);
}
END_TEST

/* A (2, 128, 112) tmem tensor: two 128-lane x 112-column tiles side by side, tile a at columns
 * 112a .. 112a + 111. Element [a, i, j] is at TLane i, TCol 112 a + j. */
START_TEST(tmem_tile_2x128x112)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "acc", 3, 2, 128, 112);
	Layout *l = good("S[(2, 128, 112) : (112@TCol, 1@TLane, 1@TCol)]", t, 128);
	ck_assert_int_eq(l->count, 2 * 128 * 112);
	ck_assert_int_eq(l->nrep, 1);
	ck_assert_uint_eq(l->axes, BIT(AX_TLANE) | BIT(AX_TCOL));
	ck_assert(!layout_names_thread(l));
	for (int a = 0; a < 2; a++) {
		for (int i = 0; i < 128; i++) {
			for (int j = 0; j < 112; j++) {
				int e = (a * 128 + i) * 112 + j;
				ck_assert_msg(at(l, e, 0, AX_TLANE) == i && at(l, e, 0, AX_TCOL) == 112 * a + j,
				              "[%d, %d, %d]: lane %d col %d", a, i, j, at(l, e, 0, AX_TLANE), at(l, e, 0, AX_TCOL));
				only_axes(l, e, 0, BIT(AX_TLANE) | BIT(AX_TCOL));
			}
		}
	}
}
END_TEST

/* The same tile in bf16 with the halves interleaved: TCol counts 16-bit elements, so 2 x 112
 * columns of bf16 are 112 cells; + 256@TCol moves it to element column 256 (cell 128). */
START_TEST(tmem_tile_bf16_offset)
{
	Tensor *t = tensor(TK_TMEM, T_BF16, "acc16", 3, 2, 128, 112);
	Layout *l = good("S[(2, 128, 112) : (1@TCol, 1@TLane, 2@TCol)] + 256@TCol", t, 128);
	for (int a = 0; a < 2; a++)
		for (int i = 0; i < 128; i++)
			for (int j = 0; j < 112; j++) {
				int e = (a * 128 + i) * 112 + j;
				ck_assert_int_eq(at(l, e, 0, AX_TLANE), i);
				ck_assert_int_eq(at(l, e, 0, AX_TCOL), 256 + a + 2 * j);
			}
}
END_TEST

/* ---------------------------------------------------------------- strided layouts */

/* The register layout of examples/tmem_roundtrip.tile: thread i + 64 (j / 64) of the warpgroup
 * holds [i, j] in slot j % 64; a layout on tid_in_wg alone gives each warpgroup its own copy. */
START_TEST(strided_tid_in_wg)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "src", 2, 64, 128);
	Layout *l = good("S[(64, 2, 64) : (1@tid_in_wg, 64@tid_in_wg, 1)]", t, 256);
	ck_assert_int_eq(l->slots, 64);
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 128; j++) {
			int e = i * 128 + j, owner = i + 64 * (j / 64);
			ck_assert_int_eq(at(l, e, 0, AX_TID_IN_WG), owner);
			ck_assert_int_eq(at(l, e, 0, AX_M), j % 64);
			ck_assert_int_eq(layout_slot_in_thread(l, e, owner), j % 64);
			ck_assert_int_eq(layout_slot_in_thread(l, e, owner + 128), j % 64);
			ck_assert_int_eq(layout_slot_in_thread(l, e, (owner + 1) % 128), -1);
		}
}
END_TEST

/* tx names the thread in the CTA: thread 128 + x does not hold what thread x holds. */
START_TEST(strided_tx)
{
	Tensor *t = tensor(TK_LOCAL, T_I32, "rows", 2, 256, 4);
	Layout *l = good("S[(256, 4) : (1@tx, 1)]", t, 256);
	ck_assert_int_eq(l->slots, 4);
	for (int x = 0; x < 256; x++)
		for (int c = 0; c < 4; c++) {
			int e = x * 4 + c;
			ck_assert_int_eq(layout_slot_in_thread(l, e, x), c);
			ck_assert_int_eq(layout_slot_in_thread(l, e, (x + 128) % 256), -1);
			ck_assert_int_eq(layout_slot_in_thread(l, e, (x + 32) % 256), -1);
		}
}
END_TEST

/* Warp axes: wid_in_wg and laneid give thread 32 w + l of each warpgroup. */
START_TEST(strided_warp_axes)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "w", 3, 4, 32, 2);
	Layout *l = good("S[(4, 32, 2) : (1@wid_in_wg, 1@laneid, 1)]", t, 256);
	for (int w = 0; w < 4; w++)
		for (int lane = 0; lane < 32; lane++)
			for (int s = 0; s < 2; s++) {
				int e = (w * 32 + lane) * 2 + s;
				ck_assert_int_eq(layout_place_thread(LAYOUT_PLACE(l, e, 0)), 32 * w + lane);
				ck_assert_int_eq(layout_slot_in_thread(l, e, 32 * w + lane), s);
				ck_assert_int_eq(layout_slot_in_thread(l, e, 128 + 32 * w + lane), s);
				ck_assert_int_eq(layout_slot_in_thread(l, e, 32 * ((w + 1) % 4) + lane), -1);
			}
	/* warpid and wgid: thread 128 g + 32 w + l of the CTA */
	Tensor *u = tensor(TK_LOCAL, T_F32, "g", 3, 2, 4, 32);
	l = good("S[(2, 4, 32) : (1@wgid, 1@warpid, 1@laneid)]", u, 256);
	ck_assert_int_eq(l->slots, 1);
	for (int e = 0; e < 256; e++) {
		ck_assert_int_eq(layout_place_thread(LAYOUT_PLACE(l, e, 0)), e);
		ck_assert_int_eq(layout_slot_in_thread(l, e, e), 0);
		ck_assert_int_eq(layout_slot_in_thread(l, e, (e + 128) % 256), -1);
	}
}
END_TEST

/* A layout with no thread axis gives every thread its own copy. */
START_TEST(strided_no_thread_axis)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "own", 2, 4, 8);
	Layout *l = good("S[(4, 8) : (1, 4)]", t, 64);
	ck_assert(!layout_names_thread(l));
	ck_assert_int_eq(l->slots, 32);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++) {
			ck_assert_int_eq(at(l, i * 8 + j, 0, AX_M), i + 4 * j);
			for (int thread = 0; thread < 64; thread += 7)
				ck_assert_int_eq(layout_slot_in_thread(l, i * 8 + j, thread), i + 4 * j);
		}
}
END_TEST

/* Extents and strides are compile-time expressions, and may use consts. */
START_TEST(strided_const_expressions)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "c", 2, 32, 8);
	Layout *l = eval_with("const W = 32; const N = W / 4;", "S[(W, N) : (1 << 0 @laneid, N - 7)]", t, 32);
	ck_assert_msg(l != NULL, "%s", last_diags);
	for (int e = 0; e < 256; e++) {
		ck_assert_int_eq(at(l, e, 0, AX_LANEID), e / 8);
		ck_assert_int_eq(at(l, e, 0, AX_M), e % 8);
	}
}
END_TEST

/* A single extent needs no parentheses: S[n : s]. */
START_TEST(strided_single_mode)
{
	Tensor *t = tensor(TK_LOCAL, T_U32, "v", 1, 32);
	Layout *l = good("S[32 : 1@laneid]", t, 32);
	ck_assert_int_eq(l->slots, 1);
	for (int e = 0; e < 32; e++) {
		ck_assert_int_eq(at(l, e, 0, AX_LANEID), e);
		ck_assert_int_eq(at(l, e, 0, AX_M), 0);
	}
}
END_TEST

/* + R[...] adds replicas: element e lives at every r * s on the replica's axis. */
START_TEST(replicas)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "bcast", 2, 32, 4);
	Layout *l = good("S[(32, 4) : (1@laneid, 1)] + R[4 : 1@warpid]", t, 128);
	ck_assert_int_eq(l->nrep, 4);
	ck_assert_uint_eq(l->axes, BIT(AX_LANEID) | BIT(AX_M) | BIT(AX_WARPID));
	for (int e = 0; e < 128; e++) {
		for (int r = 0; r < 4; r++) {
			ck_assert_int_eq(at(l, e, r, AX_LANEID), e / 4);
			ck_assert_int_eq(at(l, e, r, AX_M), e % 4);
			ck_assert_int_eq(at(l, e, r, AX_WARPID), r);
			ck_assert_int_eq(layout_place_thread(LAYOUT_PLACE(l, e, r)), e / 4 + 32 * r);
			/* every warp holds the element */
			ck_assert_int_eq(layout_slot_in_thread(l, e, e / 4 + 32 * r), e % 4);
		}
	}
	/* two replica terms, the later one varying fastest; strides and axes per mode */
	Tensor *u = tensor(TK_LOCAL, T_F32, "b2", 1, 32);
	l = good("S[32 : 1@laneid] + R[(2, 2) : (2@wid_in_wg, 1@wid_in_wg)] + R[2 : 1@wgid]", u, 256);
	ck_assert_int_eq(l->nrep, 8);
	for (int e = 0; e < 32; e++)
		for (int r = 0; r < 8; r++) {
			ck_assert_int_eq(at(l, e, r, AX_WID_IN_WG), r / 2);
			ck_assert_int_eq(at(l, e, r, AX_WGID), r % 2);
			ck_assert_int_eq(layout_place_thread(LAYOUT_PLACE(l, e, r)), e + 32 * (r / 2) + 128 * (r % 2));
		}
	/* a replica that adds nothing on an axis keeps the element one-to-one */
	l = good("S[32 : 1@laneid] + R[3 : 0@m]", u, 32);
	ck_assert_int_eq(l->nrep, 3);
}
END_TEST

/* + k@axis adds a constant to every place. */
START_TEST(offset_terms)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "off", 2, 32, 4);
	Layout *l = good("S[(32, 4) : (1@laneid, 1)] + 4@m + 32@tx", t, 128);
	ck_assert_int_eq(l->slots, 8);
	for (int e = 0; e < 128; e++) {
		ck_assert_int_eq(at(l, e, 0, AX_M), 4 + e % 4);
		ck_assert_int_eq(at(l, e, 0, AX_TX), 32);
		ck_assert_int_eq(layout_place_thread(LAYOUT_PLACE(l, e, 0)), 32 + e / 4);
	}
	/* offsets add up, on tmem too */
	Tensor *u = tensor(TK_TMEM, T_F32, "tm", 2, 32, 16);
	l = good("S[(32, 16) : (1@TLane, 1@TCol)] + 32@TLane + 8@TCol + 8@TCol", u, 128);
	for (int e = 0; e < 512; e++) {
		ck_assert_int_eq(at(l, e, 0, AX_TLANE), 32 + e / 16);
		ck_assert_int_eq(at(l, e, 0, AX_TCOL), 16 + e % 16);
	}
}
END_TEST

/* default: row-major over m for a local tensor, one TMEM row per leading index for tmem. */
START_TEST(default_layout)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "d", 3, 2, 3, 4);
	Layout *l = good("default", t, 128);
	ck_assert_int_eq(l->slots, 24);
	ck_assert_uint_eq(l->axes, BIT(AX_M));
	ck_assert(!layout_names_thread(l));
	for (int e = 0; e < 24; e++) {
		ck_assert_int_eq(at(l, e, 0, AX_M), e);
		only_axes(l, e, 0, BIT(AX_M));
	}
	Tensor *u = tensor(TK_TMEM, T_F32, "dt", 2, 128, 64);
	l = good("default", u, 128);
	ck_assert_uint_eq(l->axes, BIT(AX_TLANE) | BIT(AX_TCOL));
	for (int e = 0; e < 128 * 64; e++) {
		ck_assert_int_eq(at(l, e, 0, AX_TLANE), e / 64);
		ck_assert_int_eq(at(l, e, 0, AX_TCOL), e % 64);
	}
}
END_TEST

/* A layout name resolves through the scope; errors name the layout. */
START_TEST(layout_names)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "n", 1, 32);
	Layout *l = eval_with("layout LANES = S[32 : 1@laneid];", "LANES", t, 32);
	ck_assert_msg(l != NULL, "%s", last_diags);
	for (int e = 0; e < 32; e++)
		ck_assert_int_eq(at(l, e, 0, AX_LANEID), e);
	bad("NOWHERE", t, 32, "unknown layout 'NOWHERE'");
	bad_with("const K = 3;", "K", t, 32, "'K' is not a layout");
}
END_TEST

/* ---------------------------------------------------------------- tmem_datapath_layout */

/* Checks every element of a datapath tensor against LANGUAGE.md section 5's table. */
static void
check_datapath(char letter, int rows, int cols, int sub, EType type)
{
	Tensor *t = tensor(TK_TMEM, type, "acc", 2, rows, cols);
	char *text = sub >= 0 ? pool_printf("tmem_datapath_layout(\"%c\", %d, %d, sub_slab = %d)", letter, rows, cols, sub)
	                      : pool_printf("tmem_datapath_layout(\"%c\", %d, %d)", letter, rows, cols);
	Layout *l = good(text, t, 128);
	ck_assert_int_eq(l->nrep, 1);
	ck_assert_uint_eq(l->axes, BIT(AX_TLANE) | BIT(AX_TCOL));
	int s = sub < 0 ? 0 : sub;
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++) {
			int lane, col;
			switch (letter) {
			case 'A':
			case 'D': lane = i; col = j; break;
			case 'B':
			case 'E': lane = i + 64 * (j / (cols / 2)); col = j % (cols / 2); break;
			case 'F': lane = 32 * (i / 16) + 16 * s + i % 16; col = j; break;
			default: lane = i + 32 * (j / (cols / 4)); col = j % (cols / 4); break;
			}
			int e = i * cols + j;
			ck_assert_msg(at(l, e, 0, AX_TLANE) == lane && at(l, e, 0, AX_TCOL) == col,
			              "%s [%d, %d]: lane %d col %d, want lane %d col %d", text, i, j, at(l, e, 0, AX_TLANE),
			              at(l, e, 0, AX_TCOL), lane, col);
			only_axes(l, e, 0, BIT(AX_TLANE) | BIT(AX_TCOL));
		}
}

START_TEST(datapath_a_d)
{
	check_datapath('A', 128, 64, -1, T_F32);
	check_datapath('D', 128, 256, -1, T_F32);
	check_datapath('D', 128, 512, 0, T_F32);
	check_datapath('A', 128, 3, 0, T_I32);
}
END_TEST

START_TEST(datapath_b_e)
{
	check_datapath('B', 64, 128, -1, T_F32);
	check_datapath('B', 64, 2, 0, T_F32);
	check_datapath('E', 64, 256, -1, T_F32);
	check_datapath('E', 64, 6, -1, T_U32);
	/* lane i + 64 for the right half: [3, 64] of a 64 x 128 B tile is lane 67, column 0 */
	Tensor *t = tensor(TK_TMEM, T_F32, "b", 2, 64, 128);
	Layout *l = good("tmem_datapath_layout(\"B\", 64, 128)", t, 128);
	ck_assert_int_eq(at(l, 3 * 128 + 64, 0, AX_TLANE), 67);
	ck_assert_int_eq(at(l, 3 * 128 + 64, 0, AX_TCOL), 0);
}
END_TEST

START_TEST(datapath_f)
{
	check_datapath('F', 64, 32, -1, T_F32);
	check_datapath('F', 64, 32, 0, T_F32);
	check_datapath('F', 64, 32, 1, T_F32);
	/* sub-slab 1: row 17 is lane 32 + 16 + 1 */
	Tensor *t = tensor(TK_TMEM, T_F32, "f", 2, 64, 8);
	Layout *l = good("tmem_datapath_layout(\"F\", 64, 8, sub_slab = 1)", t, 128);
	ck_assert_int_eq(at(l, 17 * 8, 0, AX_TLANE), 49);
}
END_TEST

START_TEST(datapath_g)
{
	check_datapath('G', 32, 128, -1, T_F32);
	check_datapath('G', 32, 4, 0, T_F32);
	/* column 3 * 32 of a 32 x 128 G tile is lane 96 + i, column 0 */
	Tensor *t = tensor(TK_TMEM, T_F32, "g", 2, 32, 128);
	Layout *l = good("tmem_datapath_layout(\"G\", 32, 128)", t, 128);
	ck_assert_int_eq(at(l, 5 * 128 + 96, 0, AX_TLANE), 101);
	ck_assert_int_eq(at(l, 5 * 128 + 96, 0, AX_TCOL), 0);
}
END_TEST

/* TCol counts elements of the tensor's type: 16-bit data has 1024 element columns. */
START_TEST(datapath_16bit_columns)
{
	check_datapath('D', 128, 1024, -1, T_BF16);
	check_datapath('B', 64, 2048, -1, T_F16);
	Tensor *t = tensor(TK_TMEM, T_F32, "wide", 2, 128, 1024);
	bad("tmem_datapath_layout(\"D\", 128, 1024)", t, 128, "past the 512 columns");
}
END_TEST

START_TEST(datapath_c_rejected)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "c", 2, 64, 128);
	bad("tmem_datapath_layout(\"C\", 64, 128)", t, 128, "not settled");
}
END_TEST

START_TEST(datapath_unknown_letter)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "x", 2, 64, 128);
	bad("tmem_datapath_layout(\"H\", 64, 128)", t, 128, "unknown datapath layout \"H\"");
	bad("tmem_datapath_layout(\"BB\", 64, 128)", t, 128, "unknown datapath layout \"BB\"");
	bad("tmem_datapath_layout(\"b\", 64, 128)", t, 128, "unknown datapath layout");
	bad("tmem_datapath_layout(\"\", 64, 128)", t, 128, "unknown datapath layout");
}
END_TEST

START_TEST(datapath_odd_columns)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "o", 2, 64, 127);
	bad("tmem_datapath_layout(\"B\", 64, 127)", t, 128, "layout \"B\" needs an even column count, got 127");
	bad("tmem_datapath_layout(\"E\", 64, 127)", t, 128, "layout \"E\" needs an even column count, got 127");
	/* odd columns are fine for the layouts that do not split them */
	Tensor *u = tensor(TK_TMEM, T_F32, "a", 2, 128, 127);
	good("tmem_datapath_layout(\"D\", 128, 127)", u, 128);
}
END_TEST

START_TEST(datapath_g_columns)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "g", 2, 32, 126);
	bad("tmem_datapath_layout(\"G\", 32, 126)", t, 128, "divisible by 4, got 126");
	Tensor *u = tensor(TK_TMEM, T_F32, "g2", 2, 32, 2);
	bad("tmem_datapath_layout(\"G\", 32, 2)", u, 128, "divisible by 4, got 2");
}
END_TEST

START_TEST(datapath_sub_slab)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "f", 2, 64, 32);
	bad("tmem_datapath_layout(\"F\", 64, 32, sub_slab = 2)", t, 128, "sub_slab of layout \"F\" must be 0 or 1, got 2");
	bad("tmem_datapath_layout(\"F\", 64, 32, sub_slab = -1)", t, 128, "must be 0 or 1, got -1");
	Tensor *u = tensor(TK_TMEM, T_F32, "b", 2, 64, 32);
	bad("tmem_datapath_layout(\"B\", 64, 32, sub_slab = 1)", u, 128, "layout \"B\" has no sub-slabs");
	Tensor *v = tensor(TK_TMEM, T_F32, "d", 2, 128, 32);
	bad("tmem_datapath_layout(\"D\", 128, 32, sub_slab = 1)", v, 128, "layout \"D\" has no sub-slabs");
	bad("tmem_datapath_layout(\"A\", 128, 32, sub_slab = lane_id)", v, 128, "sub_slab must be a compile-time integer");
}
END_TEST

START_TEST(datapath_rows)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "r", 2, 64, 32);
	bad("tmem_datapath_layout(\"D\", 64, 32)", t, 128, "layout \"D\" has 128 rows per CTA, not 64");
	bad("tmem_datapath_layout(\"A\", 64, 32)", t, 128, "layout \"A\" has 128 rows per CTA, not 64");
	Tensor *u = tensor(TK_TMEM, T_F32, "r2", 2, 128, 32);
	bad("tmem_datapath_layout(\"B\", 128, 32)", u, 128, "layout \"B\" has 64 rows per CTA, not 128");
	bad("tmem_datapath_layout(\"F\", 128, 32)", u, 128, "layout \"F\" has 64 rows per CTA, not 128");
	bad("tmem_datapath_layout(\"G\", 128, 32)", u, 128, "layout \"G\" has 32 rows per CTA, not 128");
	/* the note names the letter of that row count for the same kind of MMA first */
	bad("tmem_datapath_layout(\"D\", 64, 32)", t, 128, "is layout \"F\" (M=64, cta_group::1), \"B\"");
	bad("tmem_datapath_layout(\"G\", 64, 32)", t, 128, "is layout \"E\" (M=64, .ws), \"B\"");
	bad("tmem_datapath_layout(\"F\", 128, 32)", u, 128, "is layout \"D\" (M=128, cta_group::1) or \"A\"");
	Tensor *w = tensor(TK_TMEM, T_F32, "r3", 2, 100, 32);
	bad("tmem_datapath_layout(\"D\", 100, 32)", w, 128, "the datapath layouts have 128 rows");
	bad("tmem_datapath_layout(\"G\", 32, 0)", u, 128, "column count must be positive");
}
END_TEST

/* The layout's rows and columns must be the tensor's shape, and only tmem tensors take it. */
START_TEST(datapath_tensor_shape)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "mem", 2, 128, 32);
	bad("tmem_datapath_layout(\"D\", 128, 64)", t, 128, "describes a [128, 64] tensor, but 'mem' is [128, 32]");
	Tensor *u = tensor(TK_TMEM, T_F32, "flat", 1, 4096);
	bad("tmem_datapath_layout(\"D\", 128, 32)", u, 128, "'flat' is [4096]");
	Tensor *v = tensor(TK_LOCAL, T_F32, "regs", 2, 128, 32);
	bad("tmem_datapath_layout(\"D\", 128, 32)", v, 128, "'regs' is not a tmem tensor");
}
END_TEST

/* ---------------------------------------------------------------- errors of strided layouts */

START_TEST(product_mismatch)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "src", 2, 64, 128);
	bad("S[(64, 2, 32) : (1@tid_in_wg, 64@tid_in_wg, 1)]", t, 128,
	    "layout extents cover 4096 elements but tensor 'src' has 8192");
	bad("S[(64, 4, 64) : (1@tid_in_wg, 64@tid_in_wg, 1)]", t, 128, "cover 16384 elements");
}
END_TEST

START_TEST(extents_strides_mismatch)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "x", 1, 64);
	bad("S[(32, 2) : (1@laneid, 1, 2)]", t, 32, "2 extents but 3 strides");
	bad("S[(32, 2) : 1@laneid]", t, 32, "2 extents but 1 strides");
	bad("S[(32, 2) : (1@laneid, 1)] + R[(2, 2) : 1@warpid]", t, 64, "2 extents but 1 strides");
}
END_TEST

START_TEST(extent_not_positive)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "x", 1, 64);
	bad("S[(0, 64) : (1@laneid, 1)]", t, 32, "layout extent must be positive, got 0");
	bad("S[(-1, 64) : (1@laneid, 1)]", t, 32, "layout extent must be positive, got -1");
	bad("S[64 : 1] + R[0 : 1@warpid]", t, 32, "layout extent must be positive, got 0");
}
END_TEST

START_TEST(extent_not_constant)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "x", 1, 64);
	bad("S[(lane_id, 2) : (1@laneid, 1)]", t, 32, "a layout extent must be a compile-time integer");
	bad("S[(32, 2) : (warp_id@laneid, 1)]", t, 32, "a layout stride must be a compile-time integer");
	bad("S[64 : 1] + lane_id@m", t, 32, "a layout offset must be a compile-time integer");
	bad("S[(UNDEFINED, 2) : (1@laneid, 1)]", t, 32, "unknown name 'UNDEFINED'");
}
END_TEST

START_TEST(one_to_one_local)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "dup", 2, 32, 2);
	bad("S[(32, 2) : (1@laneid, 0)]", t, 32,
	    "layout of 'dup' is not one-to-one: elements [0, 0] and [0, 1] share thread 0, slot 0");
	/* two threads' axes that collide: tid_in_wg 32 is lane 0 of warp 1 */
	Tensor *u = tensor(TK_LOCAL, T_F32, "dup2", 2, 2, 64);
	bad("S[(2, 64) : (32@tid_in_wg, 1@tid_in_wg)]", u, 128, "elements [0, 32] and [1, 0] share thread 32, slot 0");
	/* a replica that lands on another element's place */
	Tensor *v = tensor(TK_LOCAL, T_F32, "rep", 1, 2);
	bad("S[2 : 1] + R[2 : 1@m]", v, 32, "elements [0] and [1] share thread 0, slot 1");
}
END_TEST

START_TEST(one_to_one_tmem)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "dupt", 2, 128, 2);
	bad("S[(128, 2) : (1@TLane, 0@TCol)]", t, 128,
	    "layout of 'dupt' is not one-to-one: elements [0, 0] and [0, 1] share TMEM lane 0, column 0");
	Tensor *u = tensor(TK_TMEM, T_F32, "wrap", 2, 2, 64);
	bad("S[(2, 64) : (32@TCol, 1@TCol)]", u, 128, "elements [0, 32] and [1, 0] share TMEM lane 0, column 32");
}
END_TEST

START_TEST(axis_ranges)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "r", 1, 64);
	bad("S[64 : 1@laneid]", t, 64, "element [32] of 'r' is at laneid = 32, outside 0..31");
	bad("S[64 : 1@tx]", t, 32, "element [32] of 'r' is at tx = 32, outside 0..31");
	bad("S[64 : 3@tid_in_wg]", t, 128, "element [43] of 'r' is at tid_in_wg = 129, outside 0..127");
	bad("S[64 : 1@wid_in_wg]", t, 128, "element [4] of 'r' is at wid_in_wg = 4, outside 0..3");
	bad("S[64 : 1@warpid]", t, 128, "element [4] of 'r' is at warpid = 4, outside 0..3");
	bad("S[64 : 1@wgid]", t, 256, "element [2] of 'r' is at wgid = 2, outside 0..1");
	bad("S[64 : -1@m]", t, 32, "element [1] of 'r' is at m = -1, outside");
	bad("S[64 : 1] + -1@m", t, 32, "element [0] of 'r' is at m = -1");
	/* tid_in_wg 64..127 exist only in a block of more than 64 threads */
	Tensor *u = tensor(TK_LOCAL, T_F32, "big", 1, 128);
	bad("S[128 : 1@tid_in_wg]", u, 64, "element [64] of 'big' belongs to thread 64, but the block has 64 threads");
	good("S[128 : 1@tid_in_wg]", u, 128);
	Tensor *v = tensor(TK_TMEM, T_F32, "tm", 2, 256, 4);
	bad("S[(256, 4) : (1@TLane, 1@TCol)]", v, 128, "element [128, 0] of 'tm' is at TLane = 128, outside 0..127");
	Tensor *w = tensor(TK_TMEM, T_F32, "wide", 1, 513);
	bad("S[513 : 1@TCol]", w, 128, "element [512] of 'wide' is at TCol 512, past the 512 columns of tensor memory");
	Tensor *h = tensor(TK_TMEM, T_F16, "half", 1, 1024);
	good("S[1024 : 1@TCol]", h, 128);
	Tensor *h2 = tensor(TK_TMEM, T_F16, "half2", 1, 1025);
	bad("S[1025 : 1@TCol]", h2, 128, "element [1024] of 'half2' is at TCol 1024, past the 512 columns");
}
END_TEST

START_TEST(axis_kinds)
{
	Tensor *t = tensor(TK_TMEM, T_F32, "tm", 2, 128, 4);
	bad("S[(128, 4) : (1@laneid, 1@TCol)]", t, 128, "a tmem layout cannot use axis 'laneid' (it takes TLane and TCol)");
	bad("S[(128, 4) : (1@TLane, 1)]", t, 128, "a tmem layout cannot use axis 'm'");
	Tensor *u = tensor(TK_LOCAL, T_F32, "loc", 2, 32, 4);
	bad("S[(32, 4) : (1@laneid, 1@TCol)]", u, 128, "a local layout cannot use axis 'TCol' (it takes thread axes and m)");
	bad("S[(32, 4) : (1@laneid, 1)] + 1@TLane", u, 128, "a local layout cannot use axis 'TLane'");
	bad("S[(32, 4) : (1@laneid, 1)] + R[2 : 1@TLane]", u, 128, "a local layout cannot use axis 'TLane'");
}
END_TEST

/* layout_check_one_to_one on its own, for a layout built by layout_eval with a stride 0 replica. */
START_TEST(one_to_one_direct)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, "ok", 1, 32);
	Layout *l = good("S[32 : 1@laneid]", t, 32);
	error_count = 0;
	capture_start();
	bool ok = layout_check_one_to_one(l, t, no_loc);
	capture_end();
	ck_assert(ok);
	ck_assert_int_eq(error_count, 0);
	/* move element 1 onto element 0's place */
	LAYOUT_PLACE(l, 1, 0)[AX_LANEID] = 0;
	capture_start();
	ok = layout_check_one_to_one(l, t, no_loc);
	const char *d = capture_end();
	ck_assert(!ok);
	ck_assert_int_eq(error_count, 1);
	ck_assert_ptr_nonnull(strstr(d, "elements [0] and [1] share thread 0, slot 0"));
}
END_TEST

/* ---------------------------------------------------------------- suite */

#define ADD_CASE(suite, test)                     \
	do {                                          \
		TCase *tc = tcase_create(#test);          \
		tcase_set_timeout(tc, 60);                \
		tcase_add_test(tc, test);                 \
		suite_add_tcase(suite, tc);               \
	} while (0)

static Suite *
layout_suite(void)
{
	Suite *s = suite_create("layout");
	ADD_CASE(s, register_tile_8x16);
	ADD_CASE(s, tmem_tile_2x128x112);
	ADD_CASE(s, tmem_tile_bf16_offset);
	ADD_CASE(s, strided_tid_in_wg);
	ADD_CASE(s, strided_tx);
	ADD_CASE(s, strided_warp_axes);
	ADD_CASE(s, strided_no_thread_axis);
	ADD_CASE(s, strided_const_expressions);
	ADD_CASE(s, strided_single_mode);
	ADD_CASE(s, replicas);
	ADD_CASE(s, offset_terms);
	ADD_CASE(s, default_layout);
	ADD_CASE(s, layout_names);
	ADD_CASE(s, datapath_a_d);
	ADD_CASE(s, datapath_b_e);
	ADD_CASE(s, datapath_f);
	ADD_CASE(s, datapath_g);
	ADD_CASE(s, datapath_16bit_columns);
	ADD_CASE(s, datapath_c_rejected);
	ADD_CASE(s, datapath_unknown_letter);
	ADD_CASE(s, datapath_odd_columns);
	ADD_CASE(s, datapath_g_columns);
	ADD_CASE(s, datapath_sub_slab);
	ADD_CASE(s, datapath_rows);
	ADD_CASE(s, datapath_tensor_shape);
	ADD_CASE(s, product_mismatch);
	ADD_CASE(s, extents_strides_mismatch);
	ADD_CASE(s, extent_not_positive);
	ADD_CASE(s, extent_not_constant);
	ADD_CASE(s, one_to_one_local);
	ADD_CASE(s, one_to_one_tmem);
	ADD_CASE(s, axis_ranges);
	ADD_CASE(s, axis_kinds);
	ADD_CASE(s, one_to_one_direct);
	return s;
}

UNIT_MAIN(layout_suite)
