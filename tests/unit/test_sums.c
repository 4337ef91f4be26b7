/* test_sums.c: ie_sorted_sum (vectorize.c), the terms of an integer sum in one order: one offset
 * written through two views is one tree, constants come last, and sums of other types or through
 * conversions are left as they are. */
#include "tilec.h"
#include "unit.h"

static Var vi = {"i", "i", T_I32, true, false, false, NULL, false};
static Var vj = {"j", "j", T_I32, true, false, false, NULL, false};
static Var vk = {"k", "k", T_I32, true, false, false, NULL, false};

static Var vf = {"f", "f", T_F32, true, false, false, NULL, false};

static IExpr *
var(Var *v)
{
	return ie_var(v, v->type);
}

static IExpr *
add(IExpr *a, IExpr *b)
{
	return ie_binary(OP_ADD, a, b);
}

static IExpr *
mul(IExpr *a, int64_t c)
{
	return ie_binary(OP_MUL, a, ie_int(c, a->type));
}

START_TEST(two_orders_one_tree)
{
	/* rearrange_unit: (k + i * 12) + j * 4 and (i * 12 + j * 4) + k */
	IExpr *a = add(add(var(&vk), mul(var(&vi), 12)), mul(var(&vj), 4));
	IExpr *b = add(add(mul(var(&vi), 12), mul(var(&vj), 4)), var(&vk));
	ck_assert(!ie_equal(a, b));
	ck_assert(ie_equal(ie_sorted_sum(a), ie_sorted_sum(b)));
	/* and k + (j * 4 + i * 12) */
	IExpr *c = add(var(&vk), add(mul(var(&vj), 4), mul(var(&vi), 12)));
	ck_assert(ie_equal(ie_sorted_sum(a), ie_sorted_sum(c)));
}
END_TEST

START_TEST(constants_last)
{
	IExpr *s = ie_sorted_sum(add(ie_int(8, T_I32), add(var(&vj), var(&vi))));
	ck_assert_int_eq(s->kind, IE_BINARY);
	ck_assert_int_eq(s->b->kind, IE_INT);
	ck_assert_int_eq(s->b->ival, 8);
	int64_t c;
	const IExpr *rest = ie_split_offset(s, &c);
	ck_assert_int_eq(c, 8);
	ck_assert(ie_equal(rest, ie_sorted_sum(add(var(&vi), var(&vj)))));
}
END_TEST

START_TEST(other_sums_kept)
{
	IExpr *m = mul(add(var(&vj), var(&vi)), 3);
	ck_assert_ptr_eq(ie_sorted_sum(m), m); /* not a sum */
	IExpr *f = add(var(&vf), var(&vf));
	ck_assert_int_eq(f->type, T_F32);
	ck_assert_ptr_eq(ie_sorted_sum(f), f); /* float addition does not reassociate */
	/* the terms of a sum inside a conversion stay inside it */
	IExpr *wide = add(ie_convert(add(var(&vj), var(&vi)), T_I64), ie_int(1, T_I64));
	IExpr *s = ie_sorted_sum(wide);
	ck_assert_int_eq(s->b->kind, IE_INT);
	ck_assert_int_eq(s->a->kind, IE_CONV);
	ck_assert(ie_equal(s->a->a, add(var(&vj), var(&vi))));
}
END_TEST

static Suite *
sums_suite(void)
{
	Suite *s = suite_create("sums");
	TCase *tc = tcase_create("ie_sorted_sum");
	tcase_add_test(tc, two_orders_one_tree);
	tcase_add_test(tc, constants_last);
	tcase_add_test(tc, other_sums_kept);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(sums_suite)
