/* test_view.c: views as index maps (src/view.c): reshape, the per-thread register view, einops
 * rearrange (split, merge, permutation, inferred sizes and every error), slices and compositions.
 * Expected maps are computed here by hand from LANGUAGE.md section 6. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec.h"
#include "unit.h"

/* ---------------------------------------------------------------- helpers */


static const char *last_diags = "";


/* A view of a fresh global tensor of the given shape, named "t". */
static View *
base(int rank, ...)
{
	Tensor *t = tensor(TK_GLOBAL, T_F32, "t", 0);
	t->rank = rank;
	va_list ap;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++) {
		t->dims[i] = va_arg(ap, int);
		t->count *= t->dims[i];
	}
	va_end(ap);
	View *v = view_of_tensor(t);
	v->name = "t";
	return v;
}

/* view_rearrange with nbind (name, size) pairs after the pattern; diagnostics to last_diags. */
static View *
rearrange(View *v, const char *pattern, int nbind, ...)
{
	const char *names[16];
	int sizes[16];
	Loc locs[16];
	va_list ap;
	va_start(ap, nbind);
	for (int i = 0; i < nbind; i++) {
		names[i] = va_arg(ap, const char *);
		sizes[i] = va_arg(ap, int);
		locs[i] = no_loc;
	}
	va_end(ap);
	capture_start();
	error_count = 0;
	View *r = view_rearrange(v, pattern, no_loc, names, sizes, locs, nbind);
	last_diags = capture_end();
	ck_assert_msg((r == NULL) == (error_count > 0), "'%s': %d errors: %s", pattern, error_count, last_diags);
	return r;
}

/* The rearrange must fail with one error containing want. */
#define REARRANGE_FAILS(want, ...)                                                                         \
	do {                                                                                                   \
		View *r_ = rearrange(__VA_ARGS__);                                                                 \
		ck_assert_msg(r_ == NULL, "accepted; want '%s'", want);                                            \
		ck_assert_int_eq(error_count, 1);                                                                  \
		ck_assert_msg(strstr(last_diags, want) != NULL, "diagnostics lack '%s':\n%s", want, last_diags);   \
	} while (0)

static View *
reshape(View *v, int rank, ...)
{
	int dims[MAX_RANK];
	va_list ap;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++)
		dims[i] = va_arg(ap, int);
	va_end(ap);
	capture_start();
	error_count = 0;
	View *r = view_reshape(v, rank, dims, no_loc);
	last_diags = capture_end();
	return r;
}

static SliceSpec
rng(int lo, int hi)
{
	return (SliceSpec){true, lo, hi, no_loc};
}

static SliceSpec
idx(int i)
{
	return (SliceSpec){false, i, 0, no_loc};
}

static View *
slice(View *v, int n, const SliceSpec *spec)
{
	capture_start();
	error_count = 0;
	View *r = view_slice(v, spec, n);
	last_diags = capture_end();
	return r;
}

static void
check_dims(const View *v, int rank, ...)
{
	ck_assert_int_eq(v->rank, rank);
	va_list ap;
	va_start(ap, rank);
	int count = 1;
	for (int i = 0; i < rank; i++) {
		int d = va_arg(ap, int);
		ck_assert_msg(v->dims[i] == d, "dimension %d is %d, want %d", i, v->dims[i], d);
		count *= d;
	}
	va_end(ap);
	ck_assert_int_eq(v->count, count);
}

/* ---------------------------------------------------------------- reshape */

START_TEST(of_tensor)
{
	View *v = base(3, 2, 3, 4);
	check_dims(v, 3, 2, 3, 4);
	ck_assert(!v->per_thread);
	ck_assert_str_eq(v->base->name, "t");
	for (int i = 0; i < 24; i++)
		ck_assert_int_eq(v->map[i], i);
}
END_TEST

START_TEST(reshape_same_elements)
{
	View *v = base(2, 8, 6);
	View *r = reshape(v, 3, 4, 2, 6);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 3, 4, 2, 6);
	for (int i = 0; i < 48; i++)
		ck_assert_int_eq(r->map[i], i);
	ck_assert_ptr_eq(r->base, v->base);
	r = reshape(r, 1, 48);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 1, 48);
}
END_TEST

START_TEST(reshape_errors)
{
	View *v = base(2, 8, 8);
	ck_assert_ptr_null(reshape(v, 2, 8, 4));
	ck_assert_int_eq(error_count, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "view has 32 elements but 't' has 64"));
	ck_assert_ptr_null(reshape(v, 2, 0, 64));
	ck_assert_ptr_nonnull(strstr(last_diags, "view dimension 0 is 0; dimensions must be positive"));
	ck_assert_ptr_null(reshape(v, 3, 4, -4, -4));
	ck_assert_ptr_nonnull(strstr(last_diags, "view dimension 1 is -4"));
	/* large shapes do not overflow the element count */
	ck_assert_ptr_null(reshape(v, 3, 1 << 20, 1 << 20, 1 << 20));
	ck_assert_int_eq(error_count, 1);
}
END_TEST

/* ---------------------------------------------------------------- per-thread views */

static Tensor *
local_with_slots(const char *name, int slots, int rank, ...)
{
	Tensor *t = tensor(TK_LOCAL, T_F32, name, 0);
	t->rank = rank;
	va_list ap;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++) {
		t->dims[i] = va_arg(ap, int);
		t->count *= t->dims[i];
	}
	va_end(ap);
	t->layout = pool_alloc(sizeof *t->layout);
	t->layout->count = t->count;
	t->layout->nrep = 1;
	t->layout->slots = slots;
	return t;
}

START_TEST(per_thread)
{
	Tensor *t = local_with_slots("src", 64, 2, 64, 128);
	capture_start();
	error_count = 0;
	View *v = view_per_thread(t, 64, no_loc);
	capture_end();
	ck_assert_ptr_nonnull(v);
	ck_assert(v->per_thread);
	check_dims(v, 1, 64);
	ck_assert_ptr_eq(v->base, t);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(v->map[i], i);
	/* .view(4, 16, layout = default) reshapes the per-thread view; slots stay in order */
	View *r = reshape(v, 2, 4, 16);
	ck_assert_ptr_nonnull(r);
	ck_assert(r->per_thread);
	check_dims(r, 2, 4, 16);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(r->map[i], i);
	/* and a slice of it is still per-thread, over slots */
	SliceSpec s[] = {idx(2), rng(8, 12)};
	View *q = slice(r, 2, s);
	ck_assert_ptr_nonnull(q);
	ck_assert(q->per_thread);
	check_dims(q, 1, 4);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(q->map[i], 2 * 16 + 8 + i);
}
END_TEST

START_TEST(per_thread_errors)
{
	Tensor *t = local_with_slots("src", 64, 2, 64, 128);
	capture_start();
	error_count = 0;
	View *v = view_per_thread(t, 32, no_loc);
	last_diags = capture_end();
	ck_assert_ptr_null(v);
	ck_assert_int_eq(error_count, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "a thread of 'src' holds 64 register slots (its own elements), not 32"));
	Tensor *g = tensor(TK_GLOBAL, T_F32, "A", 1, 64);
	capture_start();
	error_count = 0;
	v = view_per_thread(g, 64, no_loc);
	last_diags = capture_end();
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(strstr(last_diags, "'A' is not a local tensor; only local tensors have a per-thread view"));
	Tensor *m = tensor(TK_TMEM, T_F32, "mem", 2, 128, 64);
	capture_start();
	error_count = 0;
	v = view_per_thread(m, 64, no_loc);
	last_diags = capture_end();
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(strstr(last_diags, "'mem' is not a local tensor"));
}
END_TEST

/* ---------------------------------------------------------------- rearrange */

START_TEST(rearrange_split)
{
	View *v = base(2, 8, 3);
	View *r = rearrange(v, "(a b) c -> a b c", 1, "a", 2);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 3, 2, 4, 3);
	for (int i = 0; i < 24; i++)
		ck_assert_int_eq(r->map[i], i);
	/* both sizes given */
	r = rearrange(v, "(a b) c -> a b c", 2, "a", 2, "b", 4);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 3, 2, 4, 3);
}
END_TEST

START_TEST(rearrange_merge)
{
	View *v = base(3, 2, 4, 3);
	View *r = rearrange(v, "a b c -> (a b) c", 0);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 8, 3);
	for (int i = 0; i < 24; i++)
		ck_assert_int_eq(r->map[i], i);
	r = rearrange(v, "a b c -> (a b c)", 0);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 1, 24);
}
END_TEST

START_TEST(rearrange_permute)
{
	View *v = base(2, 3, 5);
	View *r = rearrange(v, "a b -> b a", 0);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 5, 3);
	for (int b = 0; b < 5; b++)
		for (int a = 0; a < 3; a++)
			ck_assert_int_eq(r->map[b * 3 + a], a * 5 + b);
	/* a merge of permuted names: (b a) is b-major */
	r = rearrange(v, "a b -> (b a)", 0);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 1, 15);
	for (int b = 0; b < 5; b++)
		for (int a = 0; a < 3; a++)
			ck_assert_int_eq(r->map[b * 3 + a], a * 5 + b);
	/* whitespace is free */
	r = rearrange(v, "  a   b->b a ", 0);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 5, 3);
}
END_TEST

/* The view of examples/tmem_roundtrip.tile: out [2 wl + wh, r, c] is in [32 wh + r, 64 wl + c]. */
START_TEST(rearrange_roundtrip_example)
{
	View *v = base(2, 64, 128);
	View *r = rearrange(v, "(wh r) (wl c) -> (wl wh) r c", 3, "wh", 2, "r", 32, "wl", 2);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 3, 4, 32, 64);
	for (int wl = 0; wl < 2; wl++)
		for (int wh = 0; wh < 2; wh++)
			for (int row = 0; row < 32; row++)
				for (int c = 0; c < 64; c++) {
					int out = ((2 * wl + wh) * 32 + row) * 64 + c;
					ck_assert_int_eq(r->map[out], (32 * wh + row) * 128 + 64 * wl + c);
				}
}
END_TEST

START_TEST(rearrange_inferred)
{
	View *v = base(1, 12);
	View *r = rearrange(v, "(a b) -> b a", 1, "a", 4);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 3, 4);
	for (int b = 0; b < 3; b++)
		for (int a = 0; a < 4; a++)
			ck_assert_int_eq(r->map[b * 4 + a], a * 3 + b);
	/* the unknown may be the first name of its group */
	r = rearrange(v, "(a b) -> b a", 1, "b", 4);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 4, 3);
	/* a group of one unknown takes the whole dimension */
	View *w = base(2, 6, 7);
	r = rearrange(w, "(x y z) q -> q z y x", 2, "x", 1, "z", 3);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 4, 7, 3, 2, 1);
	for (int q = 0; q < 7; q++)
		for (int z = 0; z < 3; z++)
			for (int y = 0; y < 2; y++)
				ck_assert_int_eq(r->map[(q * 3 + z) * 2 + y], (y * 3 + z) * 7 + q);
}
END_TEST

/* An empty group on the right is a unit axis; on the left it matches a dimension of size 1. */
START_TEST(rearrange_unit_axes)
{
	View *v = base(2, 4, 1);
	View *r = rearrange(v, "a () -> () a ()", 0);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 3, 1, 4, 1);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(r->map[i], i);
	View *w = base(2, 4, 2);
	REARRANGE_FAILS("dimension 1 has size 2 but the pattern gives 1", w, "a () -> a", 0);
}
END_TEST

/* einops' '...': the dimensions the other groups leave, each its own or merged by a group on the right. */
START_TEST(rearrange_ellipsis)
{
	View *v = base(3, 2, 3, 4);
	View *r = rearrange(v, "... k -> k ...", 0);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 3, 4, 2, 3);
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 3; j++)
				ck_assert_int_eq(r->map[(k * 2 + i) * 3 + j], (i * 3 + j) * 4 + k);
	r = rearrange(v, "b ... -> b (...)", 0);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 2, 12);
	for (int e = 0; e < 24; e++)
		ck_assert_int_eq(r->map[e], e);
	/* none left: '...' stands for no dimension; and a split beside it */
	r = rearrange(v, "i j (c d) ... -> (d i) j ... c", 1, "d", 2);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 3, 4, 3, 2);
	ck_assert_int_eq(r->map[(1 * 2 + 0) * 6 + 0 * 2 + 1], 0 * 12 + 0 * 4 + 1 * 2 + 1);
	REARRANGE_FAILS("'...' twice on one side", v, "... k -> k ... ...", 0);
	REARRANGE_FAILS("'...' inside a group on the left", v, "(i ...) k -> k i ...", 0);
	REARRANGE_FAILS("4 input dimensions besides '...' but the operand has 3", v, "a b c d ... -> a b c d ...", 0);
	REARRANGE_FAILS("'...' on the left only", v, "... k -> k", 0);
	REARRANGE_FAILS("'...' on the right only", v, "i j k -> k ... i j", 0);
	REARRANGE_FAILS("unexpected '.'", v, "i .. k -> k i", 0);
}
END_TEST

START_TEST(rearrange_unknown_name)
{
	View *v = base(2, 8, 3);
	REARRANGE_FAILS("'q' does not appear in the rearrange pattern", v, "(a b) c -> a b c", 2, "a", 2, "q", 4);
	REARRANGE_FAILS("'x' is on the right but not on the left", v, "(a b) c -> a b x", 1, "a", 2);
}
END_TEST

START_TEST(rearrange_missing_on_one_side)
{
	View *v = base(2, 8, 3);
	REARRANGE_FAILS("'c' is on the left but not on the right", v, "(a b) c -> a b", 1, "a", 2);
	REARRANGE_FAILS("'d' is on the right but not on the left", v, "(a b) c -> a b c d", 1, "a", 2);
}
END_TEST

START_TEST(rearrange_duplicate)
{
	View *v = base(2, 8, 3);
	REARRANGE_FAILS("names 'a' twice on the left", v, "(a a) c -> a c", 0);
	REARRANGE_FAILS("names 'b' twice on the right", v, "(a b) c -> b a b c", 1, "a", 2);
	REARRANGE_FAILS("'a' is given twice", v, "(a b) c -> a b c", 2, "a", 2, "a", 2);
}
END_TEST

START_TEST(rearrange_size_mismatch)
{
	View *v = base(2, 8, 3);
	REARRANGE_FAILS("dimension 0 has size 8 but the pattern gives 6", v, "(a b) c -> a b c", 2, "a", 2, "b", 3);
	REARRANGE_FAILS("dimension 0 has size 8, not divisible by 3", v, "(a b) c -> a b c", 1, "a", 3);
	REARRANGE_FAILS("dimension 1 has size 3 but the pattern gives 4", v, "(a b) c -> a b c", 2, "a", 2, "c", 4);
	REARRANGE_FAILS("'a' must be positive, got 0", v, "(a b) c -> a b c", 1, "a", 0);
	REARRANGE_FAILS("'a' must be positive, got -2", v, "(a b) c -> a b c", 1, "a", -2);
}
END_TEST

START_TEST(rearrange_two_unknowns)
{
	View *v = base(2, 8, 3);
	REARRANGE_FAILS("group (a b) of dimension 0 has two names without a size, 'a' and 'b'", v, "(a b) c -> a b c", 0);
	REARRANGE_FAILS("group (a b d) of dimension 0 has two names without a size, 'b' and 'd'", v, "(a b d) c -> a b d c", 1, "a", 2);
}
END_TEST

START_TEST(rearrange_pattern_syntax)
{
	View *v = base(2, 8, 3);
	REARRANGE_FAILS("needs '->' between its two sides", v, "(a b) c", 1, "a", 2);
	REARRANGE_FAILS("groups do not nest", v, "((a b)) c -> a b c", 1, "a", 2);
	REARRANGE_FAILS("')' without '('", v, "a b) c -> a b c", 0);
	REARRANGE_FAILS("'(' without ')'", v, "(a b c -> a b c", 0);
	REARRANGE_FAILS("'(' without ')'", v, "(a b) c -> (a b c", 1, "a", 2);
	REARRANGE_FAILS("unexpected '*'", v, "(a b) c -> a * b c", 1, "a", 2);
	REARRANGE_FAILS("'2' is not a name; the only number a pattern may hold is 1", v, "(a 2) c -> a c", 0);
	REARRANGE_FAILS("dimension 1 has size 3 but the pattern gives 1", v, "a 1 -> a", 0);
}
END_TEST

START_TEST(rearrange_rank_mismatch)
{
	View *v = base(2, 8, 3);
	REARRANGE_FAILS("pattern has 3 input dimensions but the operand has 2", v, "a b c -> a b c", 0);
	REARRANGE_FAILS("pattern has 1 input dimensions but the operand has 2", v, "(a b) -> a b", 1, "a", 2);
}
END_TEST

/* ---------------------------------------------------------------- slices */

START_TEST(slice_ranges)
{
	View *v = base(2, 6, 10);
	SliceSpec s[] = {rng(1, 4), rng(2, 10)};
	View *r = slice(v, 2, s);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 3, 8);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 8; j++)
			ck_assert_int_eq(r->map[i * 8 + j], (1 + i) * 10 + 2 + j);
	/* the whole range, as ':' is passed */
	SliceSpec all[] = {rng(0, 6), rng(0, 10)};
	r = slice(v, 2, all);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 6, 10);
	for (int i = 0; i < 60; i++)
		ck_assert_int_eq(r->map[i], i);
}
END_TEST

START_TEST(slice_index_drops_dimension)
{
	View *v = base(3, 4, 5, 6);
	SliceSpec s[] = {rng(0, 4), idx(3), rng(1, 3)};
	View *r = slice(v, 3, s);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 4, 2);
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 2; k++)
			ck_assert_int_eq(r->map[i * 2 + k], (i * 5 + 3) * 6 + 1 + k);
	/* fewer indices than dimensions: the rest are kept whole */
	SliceSpec one[] = {idx(2)};
	r = slice(v, 1, one);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 2, 5, 6);
	for (int i = 0; i < 30; i++)
		ck_assert_int_eq(r->map[i], 2 * 30 + i);
	/* every dimension indexed: one element, rank 0 */
	SliceSpec point[] = {idx(3), idx(4), idx(5)};
	r = slice(v, 3, point);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->rank, 0);
	ck_assert_int_eq(r->count, 1);
	ck_assert_int_eq(r->map[0], 119);
}
END_TEST

START_TEST(slice_bounds)
{
	View *v = base(2, 6, 10);
	SliceSpec a[] = {rng(0, 6), rng(4, 11)};
	ck_assert_ptr_null(slice(v, 2, a));
	ck_assert_int_eq(error_count, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "slice 4:11 is out of range for dimension 1 of size 10"));
	SliceSpec b[] = {rng(-1, 3)};
	ck_assert_ptr_null(slice(v, 1, b));
	ck_assert_ptr_nonnull(strstr(last_diags, "slice -1:3 is out of range for dimension 0 of size 6"));
	SliceSpec c[] = {rng(3, 3)};
	ck_assert_ptr_null(slice(v, 1, c));
	ck_assert_ptr_nonnull(strstr(last_diags, "slice 3:3 of dimension 0 is empty"));
	SliceSpec d[] = {rng(4, 2)};
	ck_assert_ptr_null(slice(v, 1, d));
	ck_assert_ptr_nonnull(strstr(last_diags, "slice 4:2 of dimension 0 is empty"));
	SliceSpec e[] = {idx(6)};
	ck_assert_ptr_null(slice(v, 1, e));
	ck_assert_ptr_nonnull(strstr(last_diags, "index 6 is out of range for dimension 0 of size 6"));
	SliceSpec f[] = {idx(0), idx(-1)};
	ck_assert_ptr_null(slice(v, 2, f));
	ck_assert_ptr_nonnull(strstr(last_diags, "index -1 is out of range for dimension 1 of size 10"));
	SliceSpec g[] = {idx(0), idx(0), idx(0)};
	ck_assert_ptr_null(slice(v, 3, g));
	ck_assert_ptr_nonnull(strstr(last_diags, "3 indices for a view of rank 2"));
}
END_TEST

/* ---------------------------------------------------------------- composition */

/* big[:, 64:128] of a [128, 256] tensor, split into warps: examples/column_slice.tile. */
START_TEST(compose_slice_rearrange)
{
	View *v = base(2, 128, 256);
	SliceSpec s[] = {rng(0, 128), rng(64, 128)};
	View *cols = slice(v, 2, s);
	ck_assert_ptr_nonnull(cols);
	View *r = rearrange(cols, "(w r) c -> w r c", 1, "w", 4);
	ck_assert_ptr_nonnull(r);
	check_dims(r, 3, 4, 32, 64);
	for (int w = 0; w < 4; w++)
		for (int row = 0; row < 32; row++)
			for (int c = 0; c < 64; c++)
				ck_assert_int_eq(r->map[(w * 32 + row) * 64 + c], (32 * w + row) * 256 + 64 + c);
}
END_TEST

/* rearrange, then slice, then reshape, then rearrange back: each step composes with the last. */
START_TEST(compose_chain)
{
	View *v = base(2, 8, 12);
	View *a = rearrange(v, "r (q c) -> q r c", 1, "q", 3); /* [3, 8, 4]: a[q, r, c] = v[r, 4 q + c] */
	ck_assert_ptr_nonnull(a);
	SliceSpec s[] = {idx(1), rng(2, 6)}; /* [4, 4]: b[r, c] = v[2 + r, 4 + c] */
	View *b = slice(a, 2, s);
	ck_assert_ptr_nonnull(b);
	check_dims(b, 2, 4, 4);
	View *c = reshape(b, 1, 16);
	ck_assert_ptr_nonnull(c);
	View *d = rearrange(c, "(r c) -> c r", 1, "r", 4); /* d[c, r] = v[2 + r, 4 + c] */
	ck_assert_ptr_nonnull(d);
	check_dims(d, 2, 4, 4);
	for (int col = 0; col < 4; col++)
		for (int row = 0; row < 4; row++)
			ck_assert_int_eq(d->map[col * 4 + row], (2 + row) * 12 + 4 + col);
	/* the base tensor stays the same through the chain */
	ck_assert_ptr_eq(d->base, v->base);
	/* the source views are unchanged */
	for (int i = 0; i < 96; i++)
		ck_assert_int_eq(v->map[i], i);
	check_dims(a, 3, 3, 8, 4);
}
END_TEST

START_TEST(format_coords_text)
{
	char buf[64];
	int dims[] = {4, 5, 6};
	format_coords(buf, sizeof buf, 3, dims, 0);
	ck_assert_str_eq(buf, "[0, 0, 0]");
	format_coords(buf, sizeof buf, 3, dims, 119);
	ck_assert_str_eq(buf, "[3, 4, 5]");
	format_coords(buf, sizeof buf, 3, dims, 37);
	ck_assert_str_eq(buf, "[1, 1, 1]");
	format_coords(buf, sizeof buf, 3, dims, -1); /* the shape itself */
	ck_assert_str_eq(buf, "[4, 5, 6]");
	format_coords(buf, sizeof buf, 0, dims, 0);
	ck_assert_str_eq(buf, "[]");
	char small[6];
	format_coords(small, sizeof small, 3, dims, 119); /* truncated, still terminated */
	ck_assert_uint_lt(strlen(small), sizeof small);
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
view_suite(void)
{
	Suite *s = suite_create("view");
	ADD_CASE(s, of_tensor);
	ADD_CASE(s, reshape_same_elements);
	ADD_CASE(s, reshape_errors);
	ADD_CASE(s, per_thread);
	ADD_CASE(s, per_thread_errors);
	ADD_CASE(s, rearrange_split);
	ADD_CASE(s, rearrange_merge);
	ADD_CASE(s, rearrange_permute);
	ADD_CASE(s, rearrange_roundtrip_example);
	ADD_CASE(s, rearrange_inferred);
	ADD_CASE(s, rearrange_unit_axes);
	ADD_CASE(s, rearrange_ellipsis);
	ADD_CASE(s, rearrange_unknown_name);
	ADD_CASE(s, rearrange_missing_on_one_side);
	ADD_CASE(s, rearrange_duplicate);
	ADD_CASE(s, rearrange_size_mismatch);
	ADD_CASE(s, rearrange_two_unknowns);
	ADD_CASE(s, rearrange_pattern_syntax);
	ADD_CASE(s, rearrange_rank_mismatch);
	ADD_CASE(s, slice_ranges);
	ADD_CASE(s, slice_index_drops_dimension);
	ADD_CASE(s, slice_bounds);
	ADD_CASE(s, compose_slice_rearrange);
	ADD_CASE(s, compose_chain);
	ADD_CASE(s, format_coords_text);
	return s;
}

UNIT_MAIN(view_suite)
