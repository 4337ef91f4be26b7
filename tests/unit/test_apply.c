/* test_apply.c: the quiet apply check (apply_match): issues of a matching apply, the first mismatch as
 * data for wrong ones, and that nothing is printed while checking. Layouts are built here by hand. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"
#include "unit.h"

/* A tensor of rank 2 whose element [i, j] lies where place(i, j, out) says (a layout of one place each). */
typedef void (*PlaceFn)(int i, int j, int32_t *place);

static Tensor *
tensor2(TensorKind kind, const char *name, int rows, int cols, PlaceFn fn)
{
	Tensor *t = pool_alloc(sizeof *t);
	t->kind = kind;
	t->type = T_F32;
	t->name = name;
	t->loc = no_loc;
	t->rank = 2;
	t->dims[0] = rows;
	t->dims[1] = cols;
	t->count = rows * cols;
	Layout *l = pool_alloc(sizeof *l);
	l->count = t->count;
	l->nrep = 1;
	l->place = pool_alloc(sizeof(int32_t) * AX_COUNT * (size_t)t->count);
	for (int i = 0; i < rows; i++) {
		for (int j = 0; j < cols; j++) {
			int32_t *p = LAYOUT_PLACE(l, i * cols + j, 0);
			fn(i, j, p);
			for (int a = 0; a < AX_COUNT; a++)
				if (p[a])
					l->axes |= 1u << a;
			if (p[AX_M] + 1 > l->slots)
				l->slots = p[AX_M] + 1;
		}
	}
	if (kind == TK_LOCAL)
		l->axes |= 1u << AX_LANEID;
	else
		l->axes |= 1u << AX_TLANE | 1u << AX_TCOL;
	t->layout = l;
	t->words = l->slots;
	return t;
}

static View *
whole(Tensor *t)
{
	View *v = view_of_tensor(t);
	v->name = t->name;
	return v;
}

/* Registers: row i in lane i, column j in slot j (what 32x32b gives). */
static void
reg_rows(int i, int j, int32_t *p)
{
	p[AX_LANEID] = i;
	p[AX_M] = j;
}

/* Registers: row i in lane i, column j in slot 3 - j (slots in reverse: still one instruction). */
static void
reg_reversed(int i, int j, int32_t *p)
{
	p[AX_LANEID] = i;
	p[AX_M] = 3 - j;
}

/* Registers: row i in lane (i + j) % 32: the wrong owner from column 1 on. */
static void
reg_skewed(int i, int j, int32_t *p)
{
	p[AX_LANEID] = (i + j) % 32;
	p[AX_M] = j;
}

static void
tmem_plain(int i, int j, int32_t *p)
{
	p[AX_TLANE] = i;
	p[AX_TCOL] = j;
}

/* TMEM: columns 0 and 2 swapped for row 5 only. */
static void
tmem_swapped(int i, int j, int32_t *p)
{
	p[AX_TLANE] = i;
	p[AX_TCOL] = i == 5 && (j == 0 || j == 2) ? 2 - j : j;
}

static ApplyInput
input(bool is_ld, View *reg, View *tmem)
{
	ApplyInput in = {0};
	in.op = (Opcode){.is_ld = is_ld, .shape = SH_32X32B, .n = 4};
	in.scope = SCOPE_WARP;
	in.warps = 1;
	in.group = 0;
	in.reg = reg;
	in.tmem[0] = tmem;
	return in;
}

START_TEST(match_32x32b)
{
	ApplyInput in = input(true, whole(tensor2(TK_LOCAL, "r", 32, 4, reg_reversed)),
	                      whole(tensor2(TK_TMEM, "m", 32, 4, tmem_plain)));
	ApplyIssue *issues;
	int n;
	uint32_t imm;
	Mismatch mm;
	error_count = 0;
	ck_assert(apply_match(&in, &issues, &n, &imm, &mm));
	ck_assert_int_eq(error_count, 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(issues[0].warp, 0);
	ck_assert_uint_eq(issues[0].offset, 0);
	for (int r = 0; r < 4; r++)
		ck_assert_int_eq(issues[0].words[r], 3 - r);
}
END_TEST

START_TEST(mismatch_owner)
{
	ApplyInput in = input(false, whole(tensor2(TK_LOCAL, "r", 32, 4, reg_skewed)),
	                      whole(tensor2(TK_TMEM, "m", 32, 4, tmem_plain)));
	ApplyIssue *issues;
	int n;
	uint32_t imm;
	Mismatch mm;
	error_count = 0;
	ck_assert(!apply_match(&in, &issues, &n, &imm, &mm));
	ck_assert_int_eq(error_count, 0); /* quiet */
	ck_assert_int_eq(mm.kind, MM_OWNER);
	ck_assert_int_eq(mm.operand, 0);
	/* lane 0, register 1: element [0, 1], which lane 1 owns */
	ck_assert_int_eq(mm.rank, 2);
	ck_assert_int_eq(mm.coord[0], 0);
	ck_assert_int_eq(mm.coord[1], 1);
	ck_assert_int_eq(mm.lane, 0);
	ck_assert_int_eq(mm.reg, 1);
	ck_assert_int_eq(mm.thread, 1);
	ck_assert_int_eq(mm.cell.row, 0);
	ck_assert_int_eq(mm.cell.col, 1);
}
END_TEST

START_TEST(mismatch_tmem_place)
{
	ApplyInput in = input(true, whole(tensor2(TK_LOCAL, "r", 32, 4, reg_rows)),
	                      whole(tensor2(TK_TMEM, "m", 32, 4, tmem_swapped)));
	ApplyIssue *issues;
	int n;
	uint32_t imm;
	Mismatch mm;
	ck_assert(!apply_match(&in, &issues, &n, &imm, &mm));
	ck_assert_int_eq(mm.kind, MM_TMEM_PLACE);
	ck_assert_int_eq(mm.operand, 1);
	ck_assert_int_eq(mm.coord[0], 5);
	ck_assert_int_eq(mm.coord[1], 0);
	ck_assert_int_eq(mm.tlane, 5);
	ck_assert_int_eq(mm.tcol, 2);
	ck_assert_int_eq(mm.need_lane, 5);
	ck_assert_int_eq(mm.need_col, 0);
}
END_TEST

START_TEST(mismatch_shape)
{
	/* 32x32b.x8 needs an atom of (32, 8): a (32, 4) operand is the wrong shape */
	ApplyInput in = input(true, whole(tensor2(TK_LOCAL, "r", 32, 4, reg_rows)),
	                      whole(tensor2(TK_TMEM, "m", 32, 4, tmem_plain)));
	in.op.n = 8;
	ApplyIssue *issues;
	int n;
	uint32_t imm;
	Mismatch mm;
	ck_assert(!apply_match(&in, &issues, &n, &imm, &mm));
	ck_assert_int_eq(mm.kind, MM_SHAPE);
	ck_assert_int_eq(mm.operand, 0);
}
END_TEST

/* One case per test, so that each prints its own PASS line. */
/* TMEM: element [i, j] at lane 64 + i, column 8 + j (a view's base inside its tensor). */
static void
tmem_offset(int i, int j, int32_t *p)
{
	p[AX_TLANE] = 64 + i;
	p[AX_TCOL] = 8 + j;
}

/* A call's tmem argument: the base is where element [0, 0] is; every element must follow the parameter. */
START_TEST(call_tmem_base)
{
	CallArg c = {.arg = whole(tensor2(TK_TMEM, "m", 32, 4, tmem_offset)), .param = tensor2(TK_TMEM, "p", 32, 4, tmem_plain)};
	Mismatch mm;
	int lane = -1, col = -1;
	error_count = 0;
	ck_assert(call_match(&c, &mm, &lane, &col));
	ck_assert_int_eq(lane, 64);
	ck_assert_int_eq(col, 8);
	c.arg = whole(tensor2(TK_TMEM, "m", 32, 4, tmem_swapped));
	ck_assert(!call_match(&c, &mm, &lane, &col));
	ck_assert_int_eq(mm.kind, MM_TMEM_PLACE);
	ck_assert_int_eq(mm.coord[0], 5); /* [5, 0] is at column 2, the parameter wants column 0 */
	ck_assert_int_eq(mm.coord[1], 0);
	ck_assert_int_eq(mm.tcol, 2);
	ck_assert_int_eq(mm.need_col, 0);
	ck_assert_int_eq(error_count, 0);
}
END_TEST

/* A call's local argument: the same slot of the same thread of each calling unit. */
START_TEST(call_local_slots)
{
	CallArg c = {.arg = whole(tensor2(TK_LOCAL, "x", 32, 4, reg_rows)), .param = tensor2(TK_LOCAL, "r", 32, 4, reg_rows),
	             .unit = 32, .nbases = 1, .bases = {64}};
	Mismatch mm;
	int lane, col;
	error_count = 0;
	ck_assert(call_match(&c, &mm, &lane, &col));
	c.arg = whole(tensor2(TK_LOCAL, "x", 32, 4, reg_reversed));
	ck_assert(!call_match(&c, &mm, &lane, &col));
	ck_assert_int_eq(mm.kind, MM_OWNER);
	ck_assert_int_eq(mm.thread, 64); /* element [0, 0]: thread 64 holds it in slot 3, the parameter wants 0 */
	ck_assert_int_eq(mm.slot, 3);
	ck_assert_int_eq(mm.want_slot, 0);
	c.arg = whole(tensor2(TK_LOCAL, "x", 32, 4, reg_skewed));
	ck_assert(!call_match(&c, &mm, &lane, &col));
	ck_assert_int_eq(mm.coord[0], 0); /* [0, 1] lives in lane 1: thread 64 does not hold it */
	ck_assert_int_eq(mm.coord[1], 1);
	ck_assert_int_eq(mm.slot, -1);
	ck_assert_int_eq(error_count, 0);
}
END_TEST

static void
add(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);
	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

static Suite *
apply_suite(void)
{
	Suite *s = suite_create("apply");
	add(s, "apply_match_32x32b", match_32x32b);
	add(s, "apply_mismatch_owner", mismatch_owner);
	add(s, "apply_mismatch_tmem_place", mismatch_tmem_place);
	add(s, "apply_mismatch_shape", mismatch_shape);
	add(s, "call_tmem_base", call_tmem_base);
	add(s, "call_local_slots", call_local_slots);
	return s;
}

UNIT_MAIN(apply_suite)
