/* test_sema.c: names and scopes, typing and constant folding (src/sema.c), and the 32x32b apply check
 * on small programs through lower_program (src/lower.c, src/apply.c): accepted and rejected; the API of
 * the protocol state (src/protocol.c) driven directly. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec.h"
#include "unit.h"

/* ---------------------------------------------------------------- helpers */


static int last_errors;
static const char *last_diags = "";

static List
parse_text(const char *text)
{
	size_t len = strlen(text);
	char *copy = malloc(len + 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, len + 1);
	int file = source_add("t.tile", copy, len);
	List items = {0};
	error_count = 0;
	capture_start();
	bool ok = parse_file(file, &items);
	const char *d = capture_end();
	ck_assert_msg(ok, "parse failed:\n%s", d);
	return items;
}

/* Folds EXPR in a scope holding the consts of PRELUDE (`const A = ...;` items). */
static IExpr *
fold_with(const char *prelude, const char *expr)
{
	List items = parse_text(pool_printf("%s\nconst RESULT__ = %s;\n", prelude, expr));
	sema_reset(false);
	scope_push();
	IExpr *r = NULL;
	capture_start();
	for (int i = 0; i < items.n; i++) {
		Item *it = LIST_AT(items, Item, i);
		if (it->kind != I_CONST)
			continue;
		if (strcmp(it->name, "RESULT__") == 0) {
			r = sema_expr(it->value);
			break;
		}
		int64_t v;
		if (const_int(it->value, &v, "a const")) {
			Sym *s = sym_declare(SYM_CONST, it->name, it->name_loc);
			if (s)
				s->value = ie_int(v, v > INT32_MAX ? T_U32 : T_I32);
		}
	}
	last_diags = capture_end();
	last_errors = error_count;
	scope_pop();
	return r;
}

static IExpr *
fold(const char *expr)
{
	return fold_with("", expr);
}

/* EXPR folds to the integer want of type type, with no error. */
static void
folds_to(const char *expr, int64_t want, EType type)
{
	IExpr *e = fold(expr);
	ck_assert_msg(e != NULL && last_errors == 0, "'%s' refused: %s", expr, last_diags);
	ck_assert_msg(e->kind == IE_INT, "'%s' is not folded to an integer (kind %d)", expr, e->kind);
	ck_assert_msg(e->ival == want && e->type == type, "'%s' = %lld (%s), want %lld (%s)", expr, (long long)e->ival,
	              etype_name(e->type), (long long)want, etype_name(type));
}

static void
folds_to_float(const char *expr, double want)
{
	IExpr *e = fold(expr);
	ck_assert_msg(e != NULL && last_errors == 0, "'%s' refused: %s", expr, last_diags);
	ck_assert_msg(e->kind == IE_FLOAT && e->type == T_F32, "'%s' is not a float constant", expr);
	ck_assert_msg(e->fval == want, "'%s' = %.17g, want %.17g", expr, e->fval, want);
}

/* EXPR is refused with one error containing want. */
static void
fold_fails(const char *expr, const char *want)
{
	IExpr *e = fold(expr);
	ck_assert_msg(e == NULL, "'%s' accepted", expr);
	ck_assert_msg(last_errors == 1, "'%s': %d errors: %s", expr, last_errors, last_diags);
	ck_assert_msg(strstr(last_diags, want) != NULL, "'%s': diagnostics lack '%s':\n%s", expr, want, last_diags);
}

/* Parses and lowers a whole program; its diagnostics go to last_diags. */
static Program *
compile(const char *text)
{
	List items = parse_text(text);
	capture_start();
	Program *p = lower_program(&items, "t.tile");
	last_diags = capture_end();
	last_errors = error_count;
	ck_assert_msg((p == NULL) == (last_errors > 0), "program %s with %d errors", p ? "returned" : "refused",
	              last_errors);
	return p;
}

static Program *
accepted(const char *text)
{
	Program *p = compile(text);
	ck_assert_msg(p != NULL, "refused:\n%s", last_diags);
	ck_assert_int_eq(p->kernels.n, 1);
	return p;
}

/* The program is refused and the first error contains want. */
static void
refused(const char *text, const char *want)
{
	Program *p = compile(text);
	ck_assert_msg(p == NULL, "accepted; want '%s'", want);
	const char *first = strstr(last_diags, "error: ");
	ck_assert_msg(first != NULL, "no error line in:\n%s", last_diags);
	const char *eol = strchr(first, '\n');
	ck_assert_msg(strstr(first, want) != NULL && (!eol || strstr(first, want) < eol),
	              "the first error lacks '%s':\n%s", want, last_diags);
}

/* A kernel of 128 threads with BODY, and A, Out: f32[128, 64]. */
static const char *
kernel_body(const char *body)
{
	return pool_printf("kernel k(A: f32[128, 64], Out: f32[128, 64], n: i32) launch(grid = 1, block = 128)\n"
	                   "{\n%s\n}\n", body);
}

static int
count_kind(List *stmts, LKind kind)
{
	int n = 0;
	for (int i = 0; i < stmts->n; i++) {
		LStmt *s = LIST_AT(*stmts, LStmt, i);
		n += s->kind == kind;
		n += count_kind(&s->body, kind) + count_kind(&s->els, kind);
	}
	return n;
}

/* The first tcgen05 ld or st found in program order. */
static LStmt *
find_tc(List *stmts, TcKind tc)
{
	for (int i = 0; i < stmts->n; i++) {
		LStmt *s = LIST_AT(*stmts, LStmt, i);
		if (s->kind == L_TC && s->instr->kind == tc)
			return s;
		LStmt *r = find_tc(&s->body, tc);
		if (!r)
			r = find_tc(&s->els, tc);
		if (r)
			return r;
	}
	return NULL;
}

static int
count_tc(List *stmts, TcKind tc)
{
	int n = 0;
	for (int i = 0; i < stmts->n; i++) {
		LStmt *s = LIST_AT(*stmts, LStmt, i);
		n += s->kind == L_TC && s->instr->kind == tc;
		n += count_tc(&s->body, tc) + count_tc(&s->els, tc);
	}
	return n;
}

/* ---------------------------------------------------------------- constant folding */

START_TEST(fold_signed_arithmetic)
{
	folds_to("1 + 2 * 3", 7, T_I32);
	folds_to("(1 + 2) * 3", 9, T_I32);
	folds_to("10 - 4 - 3", 3, T_I32);
	folds_to("7 / 2", 3, T_I32);
	folds_to("-7 / 2", -3, T_I32); /* C truncates toward zero */
	folds_to("-7 % 2", -1, T_I32);
	folds_to("7 % -2", 1, T_I32);
	folds_to("2 * 3 % 4", 2, T_I32);
	folds_to("-2 * -3", 6, T_I32);
	folds_to("3 - 5", -2, T_I32);
	/* 32-bit two's complement wrap */
	folds_to("2147483647 + 1", INT32_MIN, T_I32);
	folds_to("-2147483647 - 2", INT32_MAX, T_I32);
	folds_to("65536 * 65536", 0, T_I32);
	folds_to("65537 * 65537", 131073, T_I32);
	folds_to("0x7fffffff", INT32_MAX, T_I32);
}
END_TEST

START_TEST(fold_unsigned)
{
	folds_to("5u", 5, T_U32);
	folds_to("0x80000000", 0x80000000u, T_U32); /* does not fit in i32: u32, as a C hex literal */
	folds_to("4294967295", 4294967295u, T_U32);
	folds_to("0u - 1", 4294967295u, T_U32);
	folds_to("1u + -2", 4294967295u, T_U32);
	folds_to("0xffffffff / 2", 0x7fffffff, T_U32);
	folds_to("0xffffffffu % 7", 3, T_U32);
	folds_to("0xffffffff * 0xffffffff", 1, T_U32);
	folds_to("7u / 2", 3, T_U32);
	folds_to("-7 / 2u", 2147483644, T_U32); /* -7 converts to 4294967289 first, as in C */
	/* comparisons are done unsigned when either side is u32, and give i32 */
	folds_to("-1 < 0u", 0, T_I32);
	folds_to("(0u - 1) > 0", 1, T_I32);
	folds_to("0xffffffff == -1", 1, T_I32);
	folds_to("0x80000000 >= 1", 1, T_I32);
	folds_to("-1 < 0", 1, T_I32);
}
END_TEST

START_TEST(fold_shifts)
{
	folds_to("1 << 4", 16, T_I32);
	folds_to("1 << 2 + 1", 8, T_I32); /* + binds tighter than << */
	folds_to("1 << 31", INT32_MIN, T_I32);
	folds_to("-8 >> 1", -4, T_I32); /* arithmetic shift for i32 */
	folds_to("-1 >> 28", -1, T_I32);
	folds_to("0x80000000 >> 31", 1, T_U32); /* logical shift for u32 */
	folds_to("1u << 31", 0x80000000u, T_U32);
	/* the result has the type of the left operand */
	folds_to("1 << 3u", 8, T_I32);
	folds_to("16u >> 2", 4, T_U32);
	folds_to("-16 >> 2u", -4, T_I32);
	fold_fails("1 << 32", "constant expression << is undefined");
	fold_fails("1 << -1", "constant expression << is undefined");
	fold_fails("1u >> 32", "constant expression >> is undefined");
	fold_fails("1 >> 40u", "constant expression >> is undefined");
}
END_TEST

START_TEST(fold_division_by_zero)
{
	fold_fails("1 / 0", "constant expression / is undefined (division by zero");
	fold_fails("1 % 0", "constant expression % is undefined");
	fold_fails("0u / 0u", "constant expression / is undefined");
	fold_fails("5 / (3 - 3)", "constant expression / is undefined");
	/* INT_MIN / -1 overflows in C */
	fold_fails("(-2147483647 - 1) / -1", "constant expression / is undefined");
	fold_fails("(-2147483647 - 1) % -1", "constant expression % is undefined");
	/* but not in u32 */
	folds_to("0x80000000 / 0xffffffff", 0, T_U32);
}
END_TEST

START_TEST(fold_unary)
{
	folds_to("-5", -5, T_I32);
	folds_to("--5", 5, T_I32);
	folds_to("~0", -1, T_I32);
	folds_to("~0u", 4294967295u, T_U32);
	folds_to("!0", 1, T_I32);
	folds_to("!7", 0, T_I32);
	folds_to("!0u", 1, T_I32);
	folds_to("-(0u + 1)", 4294967295u, T_U32);
	folds_to("-(-2147483647 - 1)", INT32_MIN, T_I32);
	folds_to("~0x0f0f0f0f", (int32_t)0xf0f0f0f0u, T_I32);
	fold_fails("~1.0", "operator '~' needs an integer operand");
	/* as in C, a float operand of ! is compared with zero: !x is x == 0.0 */
	IExpr *e = fold("!1.5");
	ck_assert_msg(e && last_errors == 0 && e->kind == IE_BINARY && e->op == OP_EQ && e->type == T_I32, "!1.5: %s",
	              last_diags);
}
END_TEST

START_TEST(fold_bitwise_and_logic)
{
	folds_to("1 | 2 ^ 3 & 4", 3, T_I32); /* & before ^ before | */
	folds_to("0xf0 & 0x3c", 0x30, T_I32);
	folds_to("0xf0 ^ 0x3c", 0xcc, T_I32);
	folds_to("0xf0 | 0x0f", 0xff, T_I32);
	folds_to("0xffffffff & 1", 1, T_U32);
	folds_to("3 < 4", 1, T_I32);
	folds_to("4 <= 3", 0, T_I32);
	folds_to("4 > 3", 1, T_I32);
	folds_to("3 >= 3", 1, T_I32);
	folds_to("2 == 2", 1, T_I32);
	folds_to("2 != 2", 0, T_I32);
	folds_to("1 < 2 == 1", 1, T_I32);
	folds_to("2 && 0", 0, T_I32);
	folds_to("0 || 7", 1, T_I32);
	folds_to("5 && 6", 1, T_I32);
	folds_to("0x80000000 && 1", 1, T_I32);
	folds_to("1 || 1 / 1", 1, T_I32);
	folds_to("0 && 1 || 1", 1, T_I32);
}
END_TEST

START_TEST(fold_conversions)
{
	folds_to("i8(300)", 44, T_I32);
	folds_to("i8(128)", -128, T_I32);
	folds_to("u8(-1)", 255, T_I32);
	folds_to("i16(40000)", -25536, T_I32);
	folds_to("u16(70000)", 4464, T_I32);
	folds_to("u32(-1)", 4294967295u, T_U32);
	folds_to("i32(0xffffffff)", -1, T_I32);
	folds_to("i32(3.7)", 3, T_I32);
	folds_to("i32(-3.7)", -3, T_I32); /* truncation toward zero */
	folds_to("u8(258.9)", 2, T_I32);
	folds_to("i8(u32(255))", -1, T_I32);
	folds_to_float("f32(3)", 3.0);
	folds_to_float("f32(16777217)", 16777216.0); /* rounds to f32 */
	folds_to_float("f16(0.1)", 0.0999755859375);
	folds_to_float("f16(65519.0)", 65504.0);
	folds_to_float("bf16(1.00390625)", 1.0);      /* a tie: to even */
	folds_to_float("bf16(1.01171875)", 1.015625); /* a tie: to even, upwards */
	folds_to_float("bf16(3)", 3.0);
}
END_TEST

START_TEST(fold_floats)
{
	folds_to_float("1.5", 1.5);
	folds_to_float("-2.5e-3", (float)-2.5e-3);
	/* float arithmetic is not folded: it stays an f32 expression, not a compile-time integer */
	IExpr *e = fold("1 + 2.5");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->type, T_F32);
	ck_assert_int_ne(e->kind, IE_INT);
	fold_fails("7 % 2.0", "operator '%' needs integer operands");
	fold_fails("1.0 << 2", "operator '<<' needs integer operands");
	fold_fails("3 & 1.0", "operator '&' needs integer operands");
	/* a float operand of && or || is compared with zero, as in C */
	e = fold("1.0 && 1");
	ck_assert_msg(e && last_errors == 0 && e->kind == IE_BINARY && e->op == OP_LAND && e->a->op == OP_NE,
	              "1.0 && 1: %s", last_diags);
	e = fold("1.0 < 2");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->type, T_I32); /* comparisons give i32 */
}
END_TEST

START_TEST(fold_consts)
{
	IExpr *e = fold_with("const W = 32; const N = W * 4; const M = N - W;", "M / W + N");
	ck_assert_msg(e && e->kind == IE_INT && e->ival == 131, "%s", last_diags);
	e = fold_with("const BIG = 0xffffffff;", "BIG + 1");
	ck_assert_msg(e && e->kind == IE_INT && e->ival == 0 && e->type == T_U32, "%s", last_diags);
	fold_fails("UNDEFINED + 1", "unknown name 'UNDEFINED'");
	e = fold("lane_id + 1");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_ne(e->kind, IE_INT);
	/* const_int names what it wanted */
	List items = parse_text("const X = warp_id * 2;\n");
	sema_reset(false);
	scope_push();
	int64_t v;
	capture_start();
	bool ok = const_int(LIST_AT(items, Item, 0)->value, &v, "the answer");
	const char *d = capture_end();
	scope_pop();
	ck_assert(!ok);
	ck_assert_ptr_nonnull(strstr(d, "the answer must be a compile-time integer"));
}
END_TEST

/* ---------------------------------------------------------------- scopes */

START_TEST(scopes)
{
	sema_reset(false);
	error_count = 0;
	scope_push();
	Sym *a = sym_declare(SYM_CONST, "a", no_loc);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_eq(sym_lookup("a"), a);
	ck_assert_ptr_null(sym_lookup("b"));
	scope_push();
	Sym *inner = sym_declare(SYM_VAR, "a", no_loc); /* shadowing in an inner scope is allowed */
	ck_assert_ptr_nonnull(inner);
	ck_assert_ptr_eq(sym_lookup("a"), inner);
	Sym *b = sym_declare(SYM_VALUE, "b", no_loc);
	ck_assert_ptr_nonnull(b);
	capture_start();
	Sym *again = sym_declare(SYM_VALUE, "b", no_loc);
	const char *d = capture_end();
	ck_assert_ptr_null(again);
	ck_assert_int_eq(error_count, 1);
	ck_assert_ptr_nonnull(strstr(d, "redefinition of 'b'"));
	ck_assert_ptr_nonnull(strstr(d, "note: 'b' was defined here"));
	scope_pop();
	ck_assert_ptr_eq(sym_lookup("a"), a);
	ck_assert_ptr_null(sym_lookup("b"));
	scope_pop();
	ck_assert_ptr_null(sym_lookup("a"));
	error_count = 0;
}
END_TEST

/* ---------------------------------------------------------------- programs: names, let, var, types */

START_TEST(program_unknown_names)
{
	refused(kernel_body("Out[thread_idx.x, 0] = B[thread_idx.x, 0];"), "unknown name 'B'");
	ck_assert_int_eq(last_errors, 1);
	refused(kernel_body("Out[thread_idx.x, 0] = q;"), "unknown name 'q'");
	refused(kernel_body("q = 1;"), "unknown name 'q'");
	refused(kernel_body("view v = nothing.view(4);"), "unknown name 'nothing'");
	refused(kernel_body("local r: f32[32] layout NOLAYOUT;"), "unknown layout 'NOLAYOUT'");
	refused(kernel_body("Out[0, 0] = A;"), "'A' is not a value");
	ck_assert_ptr_nonnull(strstr(last_diags, "note: 'A' is defined here"));
	refused(kernel_body("let t = 1;\nOut[0, 0] = t[0];"), "'t' is not a tensor");
	refused(kernel_body("let t = 1;\nview v = t.view(1);"), "'t' is not a tensor or a view");
}
END_TEST

START_TEST(program_redefinition)
{
	refused(kernel_body("let tid = thread_idx.x;\nlet tid = lane_id;"), "redefinition of 'tid'");
	ck_assert_int_eq(last_errors, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:4:5: error"));
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:3:5: note: 'tid' was defined here"));
	/* two consts at file scope */
	refused("const X = 1;\nconst X = 2;\n", "redefinition of 'X'");
	/* shadowing in a nested block is fine */
	accepted(kernel_body("let tid = thread_idx.x;\nif (tid < 4) {\n let tid = 3;\n Out[tid, 0] = 1.0;\n}"));
}
END_TEST

START_TEST(program_let_and_var)
{
	Program *p = accepted(kernel_body("let c = 4 * 8;\nlet tid = thread_idx.x;\nvar x: f32 = 1.0;\n"
	                                  "var h: f16;\nx = x + A[tid, c];\nOut[tid, c] = x;"));
	KernelIR *k = LIST_AT(p->kernels, KernelIR, 0);
	ck_assert_int_eq(count_kind(&k->body, L_LET), 1); /* 'c' folds away; 'tid' is a let */
	ck_assert_int_eq(count_kind(&k->body, L_VAR), 2);
	ck_assert_int_eq(count_kind(&k->body, L_ASSIGN), 1);
	ck_assert_int_eq(count_kind(&k->body, L_STORE), 1);
	ck_assert(k->uses_f16);
	ck_assert(!k->uses_bf16);
	/* a let of a constant is a compile-time integer: it can size a tensor */
	accepted(kernel_body("let n2 = 16;\nshared s: f32[n2 * 2];\ns[31] = 1.0;"));
	/* let is immutable, and only var and elements are assigned */
	refused(kernel_body("let tid = thread_idx.x;\ntid = 3;"), "cannot assign to 'tid'");
	refused(kernel_body("A = 3;"), "cannot assign to 'A'");
	refused(kernel_body("let c = 2;\nc = 3;"), "cannot assign to 'c'");
}
END_TEST

START_TEST(program_types)
{
	refused(kernel_body("Out[1.0, 0] = 2.0;"), "index must be an integer");
	refused(kernel_body("Out[128, 0] = 2.0;"), "index 128 is out of range for dimension 0 of 'Out' (size 128)");
	refused(kernel_body("Out[0, -1] = 2.0;"), "index -1 is out of range for dimension 1 of 'Out' (size 64)");
	refused(kernel_body("Out[0] = 2.0;"), "'Out' has 2 dimensions but 1 index is given");
	refused(kernel_body("Out[0, 0, 0] = 2.0;"), "'Out' has 2 dimensions but 3 indices are given");
	refused(kernel_body("for i in 0..2.5 {\n Out[i, 0] = 1.0;\n}"), "loop bounds must be integers");
	refused(kernel_body("shared s: f32[thread_idx.x];"), "a dimension must be a compile-time integer");
	refused(kernel_body("shared s: f32[0];"), "dimension must be positive, got 0");
	refused(kernel_body("var x: f32 = 1.0;\nvar y: i32 = x % 2;"), "operator '%' needs integer operands");
	refused(kernel_body("Out[0, 0] = 1 / 0;"), "constant expression / is undefined");
	/* conversions and mixed arithmetic are accepted */
	accepted(kernel_body("var x: i32 = i32(A[0, 0]) + 1;\nOut[0, 0] = f32(x) * 0.5 + n;"));
}
END_TEST

START_TEST(program_consts_and_launch)
{
	Program *p = accepted("const W = 32;\nconst T = W * 4;\n"
	                      "kernel k(A: f32[T]) launch(grid = (2, 3), block = T)\n{\n A[thread_idx.x] = 1.0;\n}\n");
	KernelIR *k = LIST_AT(p->kernels, KernelIR, 0);
	ck_assert_int_eq(k->threads, 128);
	ck_assert_int_eq(k->grid[0], 2);
	ck_assert_int_eq(k->grid[1], 3);
	ck_assert_int_eq(k->grid[2], 1);
	refused("const X = lane_id;\n", "a const must be a compile-time integer");
	refused("kernel k(A: f32[4]) launch(grid = 1)\n{\n}\n", "kernel 'k' needs 'block = N'");
	refused("kernel k(A: f32[4]) launch(grid = 1, block = 2048)\n{\n}\n", "a block has at most 1024 threads");
	refused("kernel k(A: f32[4]) launch(grid = 1, block = 0)\n{\n}\n", "block dimension must be positive, got 0");
}
END_TEST

/* The builtins for one thread of the block, and which values differ between lanes. */
START_TEST(thread_builtins)
{
	int block[3] = {8, 4, 2};
	int64_t v;
	ck_assert(ie_eval_thread(ie_builtin(B_THREAD_X), block, 45, &v) && v == 5);
	ck_assert(ie_eval_thread(ie_builtin(B_THREAD_Y), block, 45, &v) && v == 1);
	ck_assert(ie_eval_thread(ie_builtin(B_THREAD_Z), block, 45, &v) && v == 1);
	ck_assert(ie_eval_thread(ie_builtin(B_WARP_ID), block, 45, &v) && v == 1);
	ck_assert(ie_eval_thread(ie_builtin(B_LANE_ID), block, 45, &v) && v == 13);
	ck_assert(ie_eval_thread(ie_builtin(B_WARPGROUP_ID), block, 45, &v) && v == 0);
	ck_assert(!ie_eval_thread(ie_builtin(B_BLOCK_X), block, 45, &v));
	IExpr *c = ie_binary(OP_EQ, ie_binary(OP_MOD, ie_builtin(B_WARP_ID), ie_int(4, T_I32)), ie_int(1, T_I32));
	ck_assert(ie_eval_thread(c, block, 40, &v) && v == 1);
	ck_assert(ie_eval_thread(c, block, 64, &v) && v == 0);
	ck_assert(ie_varying(ie_builtin(B_LANE_ID)));
	ck_assert(ie_varying(ie_builtin(B_THREAD_X)));
	ck_assert(!ie_varying(ie_builtin(B_WARP_ID)));
	ck_assert(!ie_varying(ie_builtin(B_WARPGROUP_ID)));
	ck_assert(!ie_varying(c));
	ck_assert(ie_varying(ie_binary(OP_ADD, ie_builtin(B_WARP_ID), ie_builtin(B_LANE_ID))));
}
END_TEST

/* ---------------------------------------------------------------- the 32x32b apply check */

/* examples/tmem_roundtrip.tile with the register layout, the tmem view pattern and the statements
 * between the views and the waits replaced. */
static const char *
roundtrip(const char *reg_layout, const char *tmem_pattern, const char *stmts)
{
	return pool_printf(
		"layout TB  = tmem_datapath_layout(\"B\", 64, 128);\n"
		"layout REG = %s;\n"
		"kernel k(A: f32[128, 64], Out: f32[128, 64]) launch(grid = 1, block = 128)\n"
		"{\n"
		"    let tid = thread_idx.x;\n"
		"    shared address: u32[1];\n"
		"    if (warp_id == 0) {\n"
		"        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 64);\n"
		"    }\n"
		"    cta_sync;\n"
		"    tmem mem: f32[64, 128] at address[0] layout TB;\n"
		"    local src: f32[64, 128] layout REG;\n"
		"    local dst: f32[64, 128] layout REG;\n"
		"    view mv = mem.rearrange(\"%s\", wh = 2, r = 32, wl = 2);\n"
		"    view sv = src.rearrange(\"(wh r) (wl c) -> (wl wh) r c\", wh = 2, r = 32, wl = 2);\n"
		"    view dv = dst.rearrange(\"(wh r) (wl c) -> (wl wh) r c\", wh = 2, r = 32, wl = 2);\n"
		"%s\n"
		"    tcgen05.wait::ld.sync.aligned;\n"
		"    tcgen05.wait::st.sync.aligned;\n"
		"    cta_sync;\n"
		"    if (warp_id == 0) {\n"
		"        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
		"        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);\n"
		"    }\n"
		"}\n",
		reg_layout, tmem_pattern, stmts);
}

#define GOOD_REG "S[(64, 2, 64) : (1@tid_in_wg, 64@tid_in_wg, 1)]"
#define GOOD_PAT "(wh r) (wl c) -> (wl wh) r c"
#define ST_LD                                                                       \
	"    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n"  \
	"    tcgen05.wait::st.sync.aligned;\n"                                         \
	"    cta_sync;\n"                                                              \
	"    apply tcgen05.ld.sync.aligned.32x32b.x64.b32(dv, mv) scope warpgroup;"

START_TEST(apply_accepts_roundtrip)
{
	Program *p = accepted(roundtrip(GOOD_REG, GOOD_PAT, ST_LD));
	KernelIR *k = LIST_AT(p->kernels, KernelIR, 0);
	/* one instruction serves all four warps: their registers agree */
	ck_assert_int_eq(count_tc(&k->body, TC_ST), 1);
	ck_assert_int_eq(count_tc(&k->body, TC_LD), 1);
	LStmt *st = find_tc(&k->body, TC_ST);
	ck_assert_int_eq(tc_nregs(st), 64);
	/* st's operands in PTX order: [taddr], then the registers (no immHalfSplitoff for 32x32b) */
	ck_assert_int_eq(st->nops, 2);
	ck_assert_int_eq(st->ops[0].slot->kind, IO_TMEM_ADDR);
	ck_assert_int_eq(st->ops[1].slot->kind, IO_REG_VECTOR);
	ck_assert_int_eq(st->op.shape, SH_32X32B);
	ck_assert_int_eq(st->op.n, 64);
	ck_assert(!st->op.is_ld);
	for (int r = 0; r < 64; r++) {
		ck_assert_str_eq(tc_reg(st, r)->tensor->name, "src");
		ck_assert_int_eq(tc_reg(st, r)->word, r);
	}
	LStmt *ld = find_tc(&k->body, TC_LD);
	ck_assert_str_eq(tc_reg(ld, 0)->tensor->name, "dst");
	ck_assert_int_eq(ld->ops[0].slot->kind, IO_REG_VECTOR);
	ck_assert_ptr_nonnull(ld->comment);
	ck_assert_ptr_nonnull(strstr(ld->comment, "t.tile:"));
}
END_TEST

/* Registers may sit in any slots: a reversed slot order is a different register list. */
START_TEST(apply_accepts_any_slots)
{
	Program *p = accepted(roundtrip("S[(64, 2, 64) : (1@tid_in_wg, 64@tid_in_wg, -1)] + 63@m", GOOD_PAT, ST_LD));
	KernelIR *k = LIST_AT(p->kernels, KernelIR, 0);
	LStmt *st = find_tc(&k->body, TC_ST);
	for (int r = 0; r < 64; r++)
		ck_assert_int_eq(tc_reg(st, r)->word, 63 - r);
}
END_TEST

/* A repeat axis issues one instruction per repeat index; warp(K), plain warp under a guard and
 * cta scope on one warpgroup. */
START_TEST(apply_accepts_scopes_and_repeats)
{
	accepted(roundtrip(GOOD_REG, GOOD_PAT,
	                   "    view mv2 = mv.rearrange(\"g r (p c) -> g p r c\", p = 2);\n"
	                   "    view sv2 = sv.rearrange(\"g r (p c) -> g p r c\", p = 2);\n"
	                   "    apply tcgen05.st.sync.aligned.32x32b.x32.b32(mv2, sv2) scope warpgroup;"));
	KernelIR *k = LIST_AT(compile(roundtrip(GOOD_REG, GOOD_PAT,
	                                        "    view mv2 = mv.rearrange(\"g r (p c) -> g p r c\", p = 2);\n"
	                                        "    view sv2 = sv.rearrange(\"g r (p c) -> g p r c\", p = 2);\n"
	                                        "    apply tcgen05.st.sync.aligned.32x32b.x32.b32(mv2, sv2) scope "
	                                        "warpgroup;"))->kernels, KernelIR, 0);
	ck_assert_int_eq(count_tc(&k->body, TC_ST), 2);
	/* warp(2): the operands lose the group axis */
	accepted(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv[2], sv[2]) scope warp(2);"));
	/* plain warp under if (warp_id == 3) */
	accepted(roundtrip(GOOD_REG, GOOD_PAT,
	                   "    if (warp_id == 3) {\n"
	                   "        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv[3], sv[3]) scope warp;\n"
	                   "    }"));
	/* cta scope on a block of 128 threads: the group is the 4 warps of the CTA */
	accepted(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope cta;"));
	/* warpgroup(0) */
	accepted(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup(0);"));
}
END_TEST

START_TEST(apply_rejects_wrong_owner)
{
	refused(roundtrip("S[(64, 2, 64) : (2@tid_in_wg, 1@tid_in_wg, 1)]", GOOD_PAT, ST_LD),
	        "register operand 'sv' does not match the image of tcgen05.st.sync.aligned.32x32b.x64.b32");
	ck_assert_int_eq(last_errors, 2); /* the st and the ld */
	ck_assert_ptr_nonnull(strstr(last_diags, "note: element [0, 1, 0] is owned by thread 2 (warp 0, lane 2); the "
	                                         "image puts row 1, column 0 of warp 0 in lane 1, register 0"));
	/* the right lanes in the wrong warp: rows 32..63 (group 1) live in warp 2 */
	refused(roundtrip("S[(2, 32, 2, 64) : (2@wid_in_wg, 1@laneid, 1@wid_in_wg, 1)]", GOOD_PAT, ST_LD),
	        "register operand 'sv' does not match the image");
	ck_assert_ptr_nonnull(strstr(last_diags, "note: element [1, 0, 0] is owned by thread 64 (warp 2, lane 0); the "
	                                         "image puts row 0, column 0 of warp 1 in lane 0, register 0"));
	/* a transposed tile: thread 32 w + c holds column c of the warp's rows, row r in slot r */
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    local t: f32[128, 32] layout S[(4, 32, 32) : (32@tid_in_wg, 1, 1@tid_in_wg)];\n"
	                  "    view tv = t.rearrange(\"(w r) c -> w r c\", w = 4);\n"
	                  "    apply tcgen05.st.sync.aligned.32x32b.x32.b32(mv[:, :, 0:32], tv) scope warpgroup;"),
	        "register operand 'tv' does not match the image of tcgen05.st.sync.aligned.32x32b.x32.b32");
	ck_assert_ptr_nonnull(strstr(last_diags, "note: element [0, 0, 1] is owned by thread 1 (warp 0, lane 1); the "
	                                         "image puts row 0, column 1 of warp 0 in lane 0, register 1"));
}
END_TEST

START_TEST(apply_rejects_wrong_slab)
{
	refused(roundtrip(GOOD_REG, "(wh r) (wl c) -> (wh wl) r c", ST_LD),
	        "tmem operand 'mv' does not match the image of tcgen05.st.sync.aligned.32x32b.x64.b32");
	ck_assert_ptr_nonnull(strstr(last_diags, "note: element [1, 0, 0] is at TMEM lane 64, column 0; the image puts "
	                                         "row 0 of warp 1 at the first lane of its slab, lanes 32..63"));
	ck_assert_ptr_nonnull(strstr(last_diags, "note: 'mem' is declared here"));
	/* warp(0) on warp 2's data */
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv[2], sv[0]) scope warp(0);"),
	        "tmem operand 'mv' does not match the image");
	ck_assert_ptr_nonnull(strstr(last_diags, "is at TMEM lane 64, column 0; the image puts row 0 of warp 0 at the "
	                                         "first lane of its slab, lanes 0..31"));
}
END_TEST

START_TEST(apply_rejects_tmem_not_consecutive)
{
	/* the rows of the tmem operand in reverse: not consecutive lanes from one base */
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    tmem rev: f32[128, 64] at address[0] layout S[(128, 64) : (-1@TLane, 1@TCol)] + 127@TLane;\n"
	                  "    view rv = rev.rearrange(\"(w r) c -> w r c\", w = 4);\n"
	                  "    view s4 = src.rearrange(\"(wh r) (wl c) -> (wl wh) r c\", wh = 2, r = 32, wl = 2);\n"
	                  "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(rv, s4) scope warpgroup;"),
	        "tmem operand 'rv' does not match the image of tcgen05.st.sync.aligned.32x32b.x64.b32");
	ck_assert_ptr_nonnull(strstr(last_diags, "is at TMEM lane"));
}
END_TEST

START_TEST(apply_rejects_opcode_and_shape)
{
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x3.b32(mv, sv) scope warpgroup;"),
	        "'.x3' is not legal for 32x32b; legal: .x1, .x2, .x4, .x8, .x16, .x32, .x64, .x128");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x32.b32(mv, sv) scope warpgroup;"),
	        "register operand 'sv' has shape (4, 32, 64)");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(sv, mv) scope warpgroup;"),
	        "the register operand of tcgen05.st.sync.aligned.32x32b.x64.b32 must be a view of a local tensor");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv) scope warpgroup;"),
	        "takes 2 operands (tmem, registers), not 1");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv[0], sv[0]) scope warpgroup;"),
	        "register operand 'sv' has shape (32, 64)");
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    view s2 = sv.rearrange(\"g r (p c) -> g p r c\", p = 2);\n"
	                  "    apply tcgen05.st.sync.aligned.32x32b.x32.b32(mv.rearrange(\"g r (p c) -> g () p r c\", p = 2), s2) "
	                  "scope warpgroup;"),
	        "its repeat axes must be (2), as in the register operand");
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup, imm_half_splitoff = 4;"),
	        "imm_half_splitoff belongs to the 16x32bx2 shape");
}
END_TEST

START_TEST(apply_rejects_types)
{
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    local isrc: i32[64, 128] layout REG;\n"
	                  "    view iv = isrc.rearrange(\"(wh r) (wl c) -> (wl wh) r c\", wh = 2, r = 32, wl = 2);\n"
	                  "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, iv) scope warpgroup;"),
	        "element types differ: register operand 'iv' is i32, tmem operand 'mv' is f32");
}
END_TEST

START_TEST(apply_rejects_scopes)
{
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv[0], sv[0]) scope warp;"),
	        "plain 'warp' scope needs code that fixes the warp");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv[0], sv[0]) scope warp(4);"),
	        "warp 4 does not exist: the block has 4 warps");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup(1);"),
	        "warpgroup 1 does not exist: the block has 1");
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    if (warp_id == 1) {\n"
	                  "        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv[0], sv[0]) scope warp(0);\n"
	                  "    }"),
	        "warp 0 never reaches this apply");
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    if (warp_id < 2) {\n"
	                  "        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n"
	                  "    }"),
	        "only part of warpgroup 0 reaches this apply");
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    if (warp_id != 2) {\n"
	                  "        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope cta;\n"
	                  "    }"),
	        "cta scope needs every warp of the block");
}
END_TEST

/* tcgen05 instructions inside control flow that can split a warp. */
START_TEST(apply_rejects_lane_dependent_flow)
{
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    if (lane_id == 0) {\n"
	                  "        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n"
	                  "    }"),
	        "apply inside control flow that can split a warp");
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    if (tid < 16) {\n"
	                  "        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n"
	                  "    }"),
	        "apply inside control flow that can split a warp");
	refused(roundtrip(GOOD_REG, GOOD_PAT,
	                  "    var v: i32 = lane_id;\n"
	                  "    if (v == 3) {\n"
	                  "        tcgen05.wait::st.sync.aligned;\n"
	                  "    }"),
	        "tcgen05.wait::st.sync.aligned inside control flow that can split a warp");
	/* a warp-uniform condition is fine, even one that is only known at run time */
	accepted(roundtrip(GOOD_REG, GOOD_PAT,
	                   "    if (block_idx.x == 0) {\n"
	                   "        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n"
	                   "    }"));
}
END_TEST

/* The single-instruction checks of LANGUAGE.md section 8 that tilec makes. */
START_TEST(instruction_checks)
{
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    tcgen05.ld.sync.aligned.32x32b.x64.b32(dv, mv);"),
	        "tcgen05.ld is written with apply");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    tcgen05.commit.cta_group::1.sync.aligned;"),
	        "unknown tcgen05 instruction 'tcgen05.commit.cta_group::1.sync.aligned'");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    tcgen05.wait::ld.sync.aligned(1);"),
	        "tcgen05.wait::ld.sync.aligned takes 0 operands, not 1");
	refused(roundtrip(GOOD_REG, GOOD_PAT, "    tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;"),
	        "cta_group::2 mixed with cta_group::1 in one kernel");
	ck_assert_ptr_nonnull(strstr(last_diags, "note: cta_group::1 is used here"));
	refused(kernel_body("shared a: u32[1];\ntcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&a[0], 32);"),
	        "tcgen05.alloc must be executed by one warp, but 4 warps can reach it here");
	refused(kernel_body("shared a: u32[1];\nif (warp_id == 0) {\n"
	                    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&a[0], 48);\n}"),
	        "tcgen05 allocations take a power of two from 32 to 512 columns, not 48");
	refused(kernel_body("shared a: u32[1];\nif (warp_id == 0) {\n"
	                    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&a[0], 1024);\n}"),
	        "not 1024");
	refused(kernel_body("shared a: u32[1];\nif (warp_id == 0) {\n"
	                    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&a[0], 16);\n}"),
	        "not 16");
	refused(kernel_body("shared a: i32[1];\nif (warp_id == 0) {\n"
	                    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&a[0], 32);\n}"),
	        "tcgen05.alloc writes the TMEM address to a shared u32 slot");
	refused(kernel_body("shared a: u32[1];\ntcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], 32);"),
	        "tcgen05.dealloc must be executed by one warp");
	/* the columns are the CTA's: any one warp frees them, once, after a cta_sync that hands it the address */
	const char *alloc1 = "shared a: u32[1];\nif (warp_id == 1) {\n"
	                     "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&a[0], 32);\n"
	                     "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n}\n";
	const char *free0 = "if (warp_id == 0) {\ntcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], 32);\n}\n";
	accepted(kernel_body(pool_printf("%scta_sync;\n%s", alloc1, free0)));
	refused(kernel_body(pool_printf("%s%s", alloc1, free0)), "warp 0 reads the TMEM address that warp 1's");
	refused(kernel_body(pool_printf("%scta_sync;\n%s%s", alloc1, free0,
	                                "if (warp_id == 1) {\ntcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], "
	                                "32);\n}\n")),
	        "tensor memory freed twice");
	refused(kernel_body(pool_printf("%scta_sync;\nif (warp_id == 0) {\n"
	                                "tcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], 32);\n} else {\n"
	                                "if (warp_id == 3) {\ntcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], "
	                                "32);\n}\n}\n", alloc1)),
	        "tensor memory freed twice");
	refused(kernel_body(pool_printf("%scta_sync;\nif (warp_id == 0) {\nif (n > 0) {\n"
	                                "tcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], 32);\n}\n}\n", alloc1)),
	        "is not freed with tcgen05.dealloc (32 columns) on every path");
	/* one warp, either side of a condition it cannot split: freed once on every path */
	accepted(kernel_body(pool_printf("%scta_sync;\nif (warp_id == 2) {\nif (n > 0) {\n"
	                                 "tcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], 32);\n} else {\n"
	                                 "tcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], 32);\n}\n}\n", alloc1)));
	/* the fences are allowed anywhere */
	accepted(kernel_body("if (lane_id == 0) {\n tcgen05.fence::before_thread_sync;\n}"));
}
END_TEST

/* A loop over registers is unrolled; its bounds must be constants. */
START_TEST(register_loops)
{
	Program *p = accepted(roundtrip(GOOD_REG, GOOD_PAT,
	                                "    view s = src.view(64, layout = default);\n"
	                                "    for j in 0..64 {\n"
	                                "        s[j] = A[tid, j];\n"
	                                "    }"));
	KernelIR *k = LIST_AT(p->kernels, KernelIR, 0);
	ck_assert_int_eq(count_kind(&k->body, L_REG_STORE), 64);
	ck_assert_int_eq(count_kind(&k->body, L_FOR), 0);
	refused(kernel_body("local r: f32[32] layout S[32 : 1@laneid];\nview s = r.view(1, layout = default);\n"
	                    "for j in 0..n {\n s[j] = 1.0;\n}"),
	        "this loop touches registers or views, so tilec unrolls it; its bounds must be compile-time constants");
	refused(kernel_body("local r: f32[32, 4] layout S[(32, 4) : (1@laneid, 1)];\nview s = r.view(4, layout = default);\n"
	                    "var i: i32 = 0;\ns[i] = 1.0;"),
	        "registers are not addressable: the index into 's' must be a compile-time constant");
	refused(kernel_body("local r: f32[32, 4] layout S[(32, 4) : (1@laneid, 1)];\nview s = r.view(4, layout = default);\n"
	                    "s[4] = 1.0;"),
	        "index 4 is out of range for dimension 0 of 's' (size 4)");
	refused(kernel_body("local r: f32[32, 4] layout S[(32, 4) : (1@laneid, 1)];\nOut[0, 0] = r[0, 0];"),
	        "'r' is distributed over threads; read and write it through a per-thread view: r.view(4, layout = default)");
	refused(kernel_body("local r: f32[32, 4] layout S[(32, 4) : (1@laneid, 1)];\nview v = r.view(128);\n"
	                    "Out[0, 0] = v[0];"),
	        "'v' is a view of local tensor 'r'");
	/* a loop that touches only global memory stays a loop */
	p = accepted(kernel_body("for j in 0..n {\n Out[thread_idx.x, j % 64] = A[thread_idx.x, 0];\n}"));
	k = LIST_AT(p->kernels, KernelIR, 0);
	ck_assert_int_eq(count_kind(&k->body, L_FOR), 1);
}
END_TEST

/* ---------------------------------------------------------------- tmem tensors without `at` (tmemplan.c) */

/* A store of the registers rv into tmem tensor T, of N columns, completed. */
#define PLAN_ST(t, n)                                                                             \
	"apply tcgen05.st.sync.aligned.32x32b.x" #n ".b32(" t ".rearrange(\"(w r) c -> w r c\", w = 4), " \
	"rv" #n ") scope warpgroup;\ntcgen05.wait::st.sync.aligned;\n"

/* A kernel with registers rv32 and rv16 for PLAN_ST, then BODY. */
static const char *
plan_kernel(const char *body)
{
	return kernel_body(pool_printf("local r32: f32[128, 32] layout S[(128, 32) : (1@tid_in_wg, 1)];\n"
	                               "local r16: f32[128, 16] layout S[(128, 16) : (1@tid_in_wg, 1)];\n"
	                               "view rv32 = r32.rearrange(\"(w r) c -> w r c\", w = 4);\n"
	                               "view rv16 = r16.rearrange(\"(w r) c -> w r c\", w = 4);\n%s", body));
}

#define T32(name) "tmem " name ": f32[128, 32] layout tmem_datapath_layout(\"A\", 128, 32);\n"
#define T16(name) "tmem " name ": f32[128, 16] layout tmem_datapath_layout(\"A\", 128, 16);\n"

/* The columns of the one planned allocation of an accepted program. */
static int
planned_ncols(const char *text)
{
	Program *p = accepted(text);
	KernelIR *k = LIST_AT(p->kernels, KernelIR, 0);
	ck_assert_int_eq(count_kind(&k->body, L_BARRIER), 2);
	LStmt *alloc = find_tc(&k->body, TC_ALLOC), *dealloc = find_tc(&k->body, TC_DEALLOC);
	ck_assert_ptr_nonnull(alloc);
	ck_assert_ptr_nonnull(dealloc);
	ck_assert_int_eq(tc_operand(alloc, IO_NCOLS)->imm, tc_operand(dealloc, IO_NCOLS)->imm);
	ck_assert_ptr_nonnull(find_tc(&k->body, TC_RELINQUISH));
	return (int)tc_operand(alloc, IO_NCOLS)->imm;
}

START_TEST(tmem_planning)
{
	/* one after the other: the same columns; at the same time: side by side */
	ck_assert_int_eq(planned_ncols(plan_kernel(T32("a") T32("b") PLAN_ST("a", 32) PLAN_ST("b", 32))), 32);
	ck_assert_int_eq(planned_ncols(plan_kernel(T32("a") T32("b") PLAN_ST("a", 32) PLAN_ST("b", 32) PLAN_ST("a", 32))),
	                 64);
	/* a store not yet waited for keeps its columns: the wait after the next store completes it */
	ck_assert_int_eq(planned_ncols(plan_kernel(T32("a") T32("b") "apply tcgen05.st.sync.aligned.32x32b.x32.b32("
	                                           "a.rearrange(\"(w r) c -> w r c\", w = 4), rv32) scope warpgroup;\n"
	                                           PLAN_ST("b", 32))),
	                 64);
	/* a loop counts whole for tensors declared outside it: 'a' keeps its data into the next iteration */
	ck_assert_int_eq(planned_ncols(plan_kernel(T32("a") T32("b") "for i in 0..2 {\n" PLAN_ST("a", 32)
	                                           PLAN_ST("b", 32) "}\n")),
	                 64);
	ck_assert_int_eq(planned_ncols(plan_kernel("for i in 0..2 {\n" T32("a") T32("b") PLAN_ST("a", 32)
	                                           PLAN_ST("b", 32) "}\n")),
	                 32);
	/* the two sides of a branch come one after the other in program order */
	ck_assert_int_eq(planned_ncols(plan_kernel(T32("a") T32("b") "if (n > 0) {\n" PLAN_ST("a", 32) "} else {\n"
	                                           PLAN_ST("b", 32) "}\n")),
	                 32);
	/* views reach their tensor; a tensor never used still lies inside the allocation */
	ck_assert_int_eq(planned_ncols(plan_kernel(T32("a") T32("b") "view va = a[:, 0:32];\n" PLAN_ST("b", 32)
	                                           PLAN_ST("va", 32) PLAN_ST("b", 32))),
	                 64);
	ck_assert_int_eq(planned_ncols(plan_kernel("tmem big: f32[128, 64] layout tmem_datapath_layout(\"A\", 128, 64);\n")),
	                 64);
	/* 16-bit elements take half a column each, 8-bit ones a quarter */
	ck_assert_int_eq(planned_ncols(plan_kernel("tmem h: f16[128, 128] layout tmem_datapath_layout(\"A\", 128, 128);\n")),
	                 64);
	ck_assert_int_eq(planned_ncols(plan_kernel("tmem q: u8[128, 256] layout tmem_datapath_layout(\"A\", 128, 256);\n")),
	                 64);
	/* columns are shared only where that makes the allocation smaller: 16 + 16 fit in 32 apart */
	diag_explain = true;
	ck_assert_int_eq(planned_ncols(plan_kernel(T16("a") T16("b") PLAN_ST("a", 16) PLAN_ST("b", 16))), 32);
	diag_explain = false;
	ck_assert_ptr_nonnull(strstr(last_diags, "'a': TMEM columns 0..15, lanes 0..127, live from line"));
	ck_assert_ptr_nonnull(strstr(last_diags, "'b': TMEM columns 16..31, lanes 0..127, live from line"));
	ck_assert_ptr_null(strstr(last_diags, "shares columns"));
	/* misuse */
	refused(plan_kernel("tmem a: f32[128, 512] layout tmem_datapath_layout(\"A\", 128, 512);\n" T32("b")
	                    "view va = a[:, 0:32];\n" PLAN_ST("va", 32) PLAN_ST("b", 32) PLAN_ST("va", 32)),
	        "the tmem tensors of kernel 'k' need 544 columns of tensor memory at the same time, more than the 512 a CTA has");
	ck_assert_msg(strstr(last_diags, "'b' needs 32 columns (lanes 0..127), live from line 12 to line 13, together with "
	                                 "'a'"), "%s",
	              last_diags);
	refused(plan_kernel("shared s: u32[1];\nif (warp_id == 0) {\n"
	                    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&s[0], 32);\n}\n" T32("a")),
	        "kernel 'k' declares tmem tensors without 'at', whose tensor memory tilec allocates");
	ck_assert_ptr_nonnull(strstr(last_diags, "error: 'a' is declared without 'at' in kernel 'k', which allocates"));
	refused(plan_kernel(T32("a") "if (warp_id == 0) {\ntcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n}"),
	        "tilec relinquishes and frees the tensor memory it allocates for them");
	refused(plan_kernel("let c = 32;\ntmem a: f32[128, c] layout tmem_datapath_layout(\"A\", 128, 32);\n"),
	        "the size and layout of 'a' must be known when the kernel starts");
	refused(plan_kernel("tmem a: f32[128, n] layout tmem_datapath_layout(\"A\", 128, 32);\n"),
	        "a dimension must be a compile-time integer");
	ck_assert_int_eq(last_errors, 1);
}
END_TEST

/* "did you mean": the distance counts a swap of neighbours as one edit and ignores case; a name
 * is only matched within a third of its length, so one or two letters meet only their other case. */
START_TEST(spelling_suggestions)
{
	ck_assert_int_eq(edit_distance("warp_idx", "warp_id", 8), 1);
	ck_assert_int_eq(edit_distance("lte", "let", 8), 1);
	ck_assert_int_eq(edit_distance("Lane_id", "lane_id", 8), 0);
	ck_assert_int_eq(edit_distance("kitten", "sitting", 8), 3);
	ck_assert_int_eq(edit_distance("kitten", "sitting", 2), 3); /* limit + 1 */
	ck_assert_int_eq(edit_distance("", "abc", 8), 3);
	static const char *const names[] = {"warp_id", "lane_id", "warpgroup_id", "A", "b"};
	ck_assert_str_eq(closest_name("warp_idx", names, 5), "warp_id");
	ck_assert_str_eq(closest_name("lane_idx", names, 5), "lane_id");
	ck_assert_str_eq(closest_name("B", names, 5), "b");
	ck_assert_ptr_null(closest_name("C", names, 5));
	ck_assert_ptr_null(closest_name("frobnicate", names, 5));
	ck_assert_ptr_null(closest_name("warp_id", names, 5)); /* itself is no suggestion */
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

/* The protocol state as a caller other than lower.c drives it: warps through an if and a loop, the
   effect of isa.c's rows, a read before the wait reported once. */
START_TEST(protocol_api)
{
	KernelIR k = {.name = "k", .threads = 128, .block = {128, 1, 1}};
	Protocol *p = protocol_begin(&k, false);
	ck_assert_uint_eq(protocol_warps(p), 0xf);
	ck_assert_int_eq(protocol_fixed_warp(p), -1);
	IExpr *warp1 = ie_binary(OP_EQ, ie_builtin(B_WARP_ID), ie_int(1, T_I32));
	ProtoFork *f = protocol_if(p, warp1, no_loc);
	ck_assert_uint_eq(protocol_warps(p), 0x2);
	ck_assert_int_eq(protocol_fixed_warp(p), 1);
	ck_assert(!protocol_varying(p));
	ck_assert(protocol_split(p)); /* warps 0, 2 and 3 skip it: a cta_sync here is an error */
	protocol_else(p, f);
	ck_assert_uint_eq(protocol_warps(p), 0xd);
	ck_assert(protocol_split(p));
	protocol_join(p, f);
	ck_assert_uint_eq(protocol_warps(p), 0xf);
	ck_assert(!protocol_split(p));
	/* true in every thread: the else is reached by none, the if by all */
	f = protocol_if(p, ie_binary(OP_LT, ie_builtin(B_THREAD_X), ie_int(1024, T_I32)), no_loc);
	ck_assert(!protocol_split(p));
	protocol_else(p, f);
	ck_assert_uint_eq(protocol_warps(p), 0);
	protocol_join(p, f);
	IExpr *lane0 = ie_binary(OP_EQ, ie_builtin(B_LANE_ID), ie_int(0, T_I32));
	f = protocol_if(p, lane0, no_loc);
	ck_assert(protocol_varying(p));
	capture_start();
	ck_assert(!protocol_uniform(p, no_loc, "apply"));
	ck_assert_ptr_nonnull(strstr(capture_end(), "apply inside control flow that can split a warp"));
	protocol_else(p, f);
	protocol_join(p, f);
	ck_assert(!protocol_varying(p));
	f = protocol_loop(p, true, ie_int(0, T_I32), ie_builtin(B_LANE_ID), no_loc, true, false);
	ck_assert(protocol_varying(p));
	ck_assert(protocol_split(p));
	protocol_join(p, f);
	ck_assert(!protocol_varying(p));
	ck_assert(!protocol_split(p));
	f = protocol_loop(p, false, ie_int(0, T_I32), ie_builtin(B_BLOCK_X), no_loc, true, false);
	ck_assert(!protocol_split(p));
	protocol_join(p, f);

	/* a load pending in every warp until a wait::ld row's effect */
	Tensor r = {.kind = TK_LOCAL, .name = "r", .cname = "r", .type = T_F32, .words = 1};
	RegRef ref = {.tensor = &r, .word = 0};
	ApplyCtx ctx = {.kernel = &k, .warps = 0xf, .fixed_warp = -1, .is_ld = true};
	list_push(&ctx.regs, &ref);
	protocol_apply(p, no_loc, &ctx, false);
	ck_assert(protocol_pending_load(p, &r, 0));
	IExpr *read = pool_alloc(sizeof *read);
	read->kind = IE_REG;
	read->type = T_F32;
	read->tensor = &r;
	int errors = error_count;
	capture_start();
	protocol_read(p, read, no_loc);
	protocol_read(p, read, no_loc);
	const char *diags = capture_end();
	ck_assert_int_eq(error_count, errors + 1);
	ck_assert_ptr_nonnull(strstr(diags, "reads register slot 0 of 'r' before tcgen05.wait::ld"));
	protocol_apply(p, no_loc, &ctx, false);
	LStmt wait = {.kind = L_TC, .instr = isa_instr(TC_WAIT_LD)};
	TcOperands none = {.ncols_ok = true};
	ck_assert(protocol_instr(p, isa_instr(TC_WAIT_LD), &wait, true, &none));
	ck_assert(!protocol_pending_load(p, &r, 0));
	error_count = errors;
	pool_free_all();
}
END_TEST

/* pipeline.c's table and the code passes: the ir target shows the program as lowered, a code target
   runs the code passes first (four consecutive stores become one vector store), once per program. */
START_TEST(pipeline_targets)
{
	static const char *const names[] = {"cuda", "cuh", "emu", "emu-cuh", "ptx", "ir"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const Target *t = target_named(names[i]);
		ck_assert_ptr_nonnull(t);
		ck_assert_str_eq(t->name, names[i]);
		ck_assert(t->code_passes == (strcmp(names[i], "ir") != 0));
	}
	ck_assert_ptr_null(target_named("cubin"));
	ck_assert_str_eq(target_named("emu")->ext, ".cu");
	ck_assert_str_eq(target_named("ptx")->tool, "ptxas");
	Program *p = accepted(kernel_body("let tid = thread_idx.x;\nOut[tid, 0] = 1.0;\nOut[tid, 1] = 2.0;\n"
	                                  "Out[tid, 2] = 3.0;\nOut[tid, 3] = 4.0;"));
	KernelIR *k = LIST_AT(p->kernels, KernelIR, 0);
	LStmt *first = LIST_AT(k->body, LStmt, count_kind(&k->body, L_LET));
	ck_assert_int_eq(first->kind, L_STORE);
	TargetOptions opt = {.arch = "sm_100a"};
	Buf out = {0};
	ck_assert(pipeline_emit(p, target_named("ir"), &opt, &out));
	ck_assert_ptr_nonnull(strstr(out.data, "Out[(tid * 64) + 3] = 4.0"));
	ck_assert(!p->code_passes_done);
	ck_assert_int_eq(first->vec, 0);
	buf_free(&out);
	ck_assert(pipeline_emit(p, target_named("ptx"), &opt, &out));
	ck_assert_ptr_nonnull(strstr(out.data, ".target sm_100a"));
	ck_assert(p->code_passes_done);
	ck_assert_int_eq(first->vec, 4);
	buf_free(&out);
}
END_TEST

static Suite *
sema_suite(void)
{
	Suite *s = suite_create("sema");
	ADD_CASE(s, spelling_suggestions);
	ADD_CASE(s, fold_signed_arithmetic);
	ADD_CASE(s, fold_unsigned);
	ADD_CASE(s, fold_shifts);
	ADD_CASE(s, fold_division_by_zero);
	ADD_CASE(s, fold_unary);
	ADD_CASE(s, fold_bitwise_and_logic);
	ADD_CASE(s, fold_conversions);
	ADD_CASE(s, fold_floats);
	ADD_CASE(s, fold_consts);
	ADD_CASE(s, scopes);
	ADD_CASE(s, program_unknown_names);
	ADD_CASE(s, program_redefinition);
	ADD_CASE(s, program_let_and_var);
	ADD_CASE(s, program_types);
	ADD_CASE(s, program_consts_and_launch);
	ADD_CASE(s, thread_builtins);
	ADD_CASE(s, apply_accepts_roundtrip);
	ADD_CASE(s, apply_accepts_any_slots);
	ADD_CASE(s, apply_accepts_scopes_and_repeats);
	ADD_CASE(s, apply_rejects_wrong_owner);
	ADD_CASE(s, apply_rejects_wrong_slab);
	ADD_CASE(s, tmem_planning);
	ADD_CASE(s, apply_rejects_tmem_not_consecutive);
	ADD_CASE(s, apply_rejects_opcode_and_shape);
	ADD_CASE(s, apply_rejects_types);
	ADD_CASE(s, apply_rejects_scopes);
	ADD_CASE(s, apply_rejects_lane_dependent_flow);
	ADD_CASE(s, instruction_checks);
	ADD_CASE(s, register_loops);
	ADD_CASE(s, protocol_api);
	ADD_CASE(s, pipeline_targets);
	return s;
}

UNIT_MAIN(sema_suite)
