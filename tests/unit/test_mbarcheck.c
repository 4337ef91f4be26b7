/* test_mbarcheck.c: mbarcheck.c's byte accounting with copies completing on a barrier (the TMA loads'
 * completions, which no .tile statement of this version makes): per phase in straight-line code and per
 * trip in a ring, against the bytes mbarrier.expect_tx announced. */
#include <string.h>

#include "tilec.h"
#include "unit.h"

static KernelIR kernel = {.name = "k", .block = {128, 1, 1}, .threads = 128};

/* A shared tensor of n mbarriers whose inits expect 32 arrivals each. */
static Tensor *
barriers(int n)
{
	Tensor *t = tensor(TK_SHARED, T_MBARRIER, "full", 1, n);
	t->mbar_count = pool_alloc(sizeof(int) * (size_t)n);
	for (int e = 0; e < n; e++)
		t->mbar_count[e] = 32;
	return t;
}

/* An mbarrier statement on t[index] with operand value, as lowering emits it, recorded for warp w. */
static void
mbar(MbarCheck *c, MbarOp op, Tensor *t, IExpr *index, IExpr *value, int w)
{
	LStmt *l = pool_alloc(sizeof *l);
	l->kind = L_MBAR;
	l->loc = no_loc;
	l->mbar_op = op;
	l->tensor = t;
	l->index = index;
	l->value = value;
	l->mbar_elect = op == MB_EXPECT_TX;
	mbarcheck_stmt(c, l, 1ull << w, 32);
}

/* One phase of t[0] outside loops: expect_tx of expect bytes, a copy completing done bytes, 32 arrivals;
   the messages tilec prints. */
static const char *
straight(int64_t expect, int64_t done)
{
	Tensor *t = barriers(1);
	MbarCheck *c = mbarcheck_begin(&kernel);
	mbar(c, MB_INIT, t, ie_int(0, T_I32), ie_int(32, T_U32), 0);
	mbar(c, MB_EXPECT_TX, t, ie_int(0, T_I32), ie_int(expect, T_U32), 1);
	mbarcheck_complete_tx(c, t, ie_int(0, T_I32), done, NULL, 2, no_loc);
	mbar(c, MB_ARRIVE, t, ie_int(0, T_I32), ie_int(1, T_U32), 1);
	mbar(c, MB_WAIT, t, ie_int(0, T_I32), ie_int(0, T_U32), 1);
	capture_start();
	mbarcheck_end(c);
	return capture_end();
}

/* the bytes of a phase that match, then a phase short of its bytes */
START_TEST(straight_bytes)
{
	error_count = 0;
	straight(4096, 4096);
	ck_assert_int_eq(error_count, 0);
	const char *got = straight(4096, 2048);
	ck_assert_int_eq(error_count, 1);
	ck_assert_ptr_nonnull(strstr(got, "phase 0 of 'full[0]' expects 4096 bytes, but the copies completing on it in "
	                                  "that phase bring 2048: the phase never completes"));
}
END_TEST

/* A ring of two stages: trip k announces expect bytes on full[k % 2], a copy completes done bytes on it,
   the producer warp arrives, and the consumer warp waits with parity (k / 2) % 2. */
static const char *
ring(int64_t expect, int64_t done)
{
	static Var k = {.name = "k", .cname = "k", .type = T_I32, .is_let = true};
	static Var n = {.name = "n", .cname = "n", .type = T_I32, .is_param = true};
	Tensor *t = barriers(2);
	MbarCheck *c = mbarcheck_begin(&kernel);
	for (int e = 0; e < 2; e++)
		mbar(c, MB_INIT, t, ie_int(e, T_I32), ie_int(32, T_U32), 0);
	LStmt *loop = pool_alloc(sizeof *loop);
	loop->kind = L_FOR;
	loop->loc = no_loc;
	loop->var = &k;
	loop->lo = ie_int(0, T_I32);
	loop->hi = ie_var(&n, T_I32);
	mbarcheck_loop_begin(c, loop, 3ull << 1);
	IExpr *stage = ie_binary(OP_MOD, ie_var(&k, T_I32), ie_int(2, T_I32));
	IExpr *parity = ie_binary(OP_MOD, ie_binary(OP_DIV, ie_var(&k, T_I32), ie_int(2, T_I32)), ie_int(2, T_I32));
	mbar(c, MB_EXPECT_TX, t, stage, ie_int(expect, T_U32), 1);
	mbarcheck_complete_tx(c, t, stage, done, NULL, 1ull << 1, no_loc);
	mbar(c, MB_ARRIVE, t, stage, ie_int(1, T_U32), 1);
	mbar(c, MB_WAIT, t, stage, parity, 2);
	mbarcheck_loop_end(c);
	capture_start();
	mbarcheck_end(c);
	return capture_end();
}

/* a ring whose trips bring the bytes they announce, then one whose copies bring more */
START_TEST(ring_bytes)
{
	error_count = 0;
	ring(8192, 8192);
	ck_assert_int_eq(error_count, 0);
	const char *got = ring(4096, 8192);
	ck_assert_int_eq(error_count, 1);
	ck_assert_ptr_nonnull(strstr(got, "in trip k = 0, phase 0 of 'full[0]' expects 4096 bytes, but the copies "
	                                  "completing on it in that phase bring 8192: more than it waits for"));
}
END_TEST

static Suite *
mbarcheck_suite(void)
{
	static const TTest *const *tests[] = {
		&straight_bytes, &ring_bytes,
	};
	Suite *s = suite_create("mbarcheck");
	for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
		TCase *tc = tcase_create((*tests[i])->name);
		tcase_add_test(tc, *tests[i]);
		suite_add_tcase(s, tc);
	}
	return s;
}

UNIT_MAIN(mbarcheck_suite)
