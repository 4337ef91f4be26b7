/* test_parser.c: unit tests of the parser (grammar/parser.y) and of the AST dump (src/ast.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec.h"
#include "unit.h"

/* ---------------------------------------------------------------- helpers */


static int last_errors;
static const char *last_diags;

/* Parses text as file "t.tile"; the number of errors goes to last_errors, their text to last_diags. */
static List
parse(const char *text)
{
	size_t len = strlen(text);
	char *copy = malloc(len + 1);
	memcpy(copy, text, len + 1);
	int file = source_add("t.tile", copy, len);
	List items = {0};
	error_count = 0; /* the 100-error stop must not end the test run */
	int e = error_count;
	capture_start();
	bool ok = parse_file(file, &items);
	last_diags = capture_end();
	last_errors = error_count - e;
	ck_assert(ok == (last_errors == 0));
	return items;
}

static Kernel *
parse_kernel(const char *body)
{
	List items = parse(pool_printf("kernel k() launch(grid = 1, block = 128) {\n%s\n}\n", body));
	ck_assert_int_eq(items.n, 1);
	ck_assert_int_eq(LIST_AT(items, Item, 0)->kind, I_KERNEL);
	return LIST_AT(items, Item, 0)->kernel;
}

static Expr *
parse_expr(const char *text)
{
	List items = parse(pool_printf("const C = %s;", text));
	ck_assert_int_eq(items.n, 1);
	return LIST_AT(items, Item, 0)->value;
}

static LayoutExpr *
parse_layout(const char *text)
{
	List items = parse(pool_printf("layout L = %s;", text));
	ck_assert_int_eq(items.n, 1);
	return LIST_AT(items, Item, 0)->layout;
}

static char *
dump(List *items)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	ast_dump(out, items);
	fclose(out);
	char *s = pool_strdup(buf);
	free(buf);
	return s;
}

static const char example[] =
	"// examples/tmem_roundtrip.tile: Layout B round trip through tensor memory.\n"
	"layout TB  = tmem_datapath_layout(\"B\", 64, 128);\n"
	"layout REG = S[(64, 2, 64) : (1@tid_in_wg, 64@tid_in_wg, 1)];\n"
	"\n"
	"kernel tmem_roundtrip(A: f32[128, 64], Out: f32[128, 64]) launch(grid = 1, block = 128)\n"
	"{\n"
	"    let tid  = thread_idx.x;\n"
	"    let warp = warp_id;\n"
	"    shared address: u32[1];\n"
	"    if (warp == 0) {\n"
	"        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 64);\n"
	"    }\n"
	"    cta_sync;\n"
	"    tmem mem: f32[64, 128] at address[0] layout TB;\n"
	"    local src: f32[64, 128] layout REG;\n"
	"    local dst: f32[64, 128] layout REG;\n"
	"    view local_src = src.view(64, layout = default);\n"
	"    for j in 0..64 {\n"
	"        local_src[j] = A[tid, j];\n"
	"    }\n"
	"    view mv = mem.rearrange(\"(wh r) (wl c) -> (wl wh) r c\", wh = 2, r = 32, wl = 2);\n"
	"    view sv = src.rearrange(\"(wh r) (wl c) -> (wl wh) r c\", wh = 2, r = 32, wl = 2);\n"
	"    view dv = dst.rearrange(\"(wh r) (wl c) -> (wl wh) r c\", wh = 2, r = 32, wl = 2);\n"
	"    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n"
	"    tcgen05.wait::st.sync.aligned;\n"
	"    cta_sync;\n"
	"    apply tcgen05.ld.sync.aligned.32x32b.x64.b32(dv, mv) scope warpgroup;\n"
	"    tcgen05.wait::ld.sync.aligned;\n"
	"    view local_dst = dst.view(64, layout = default);\n"
	"    for j in 0..64 {\n"
	"        Out[tid, j] = local_dst[j];\n"
	"    }\n"
	"    cta_sync;\n"
	"    if (warp == 0) {\n"
	"        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
	"        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);\n"
	"    }\n"
	"}\n";

/* ---------------------------------------------------------------- tests */

START_TEST(test_example_program)
{
	List items = parse(example);
	ck_assert_int_eq(last_errors, 0);
	ck_assert_int_eq(items.n, 3);
	Item *tb = LIST_AT(items, Item, 0);
	ck_assert_int_eq(tb->kind, I_LAYOUT);
	ck_assert_str_eq(tb->name, "TB");
	ck_assert_int_eq(tb->layout->kind, LAY_DATAPATH);
	ck_assert_str_eq(tb->layout->letter, "B");
	ck_assert_ptr_null(tb->layout->sub_slab);
	LayoutExpr *reg = LIST_AT(items, Item, 1)->layout;
	ck_assert_int_eq(reg->kind, LAY_STRIDED);
	ck_assert_int_eq(reg->extents.n, 3);
	ck_assert_int_eq(reg->strides.n, 3);
	ck_assert_int_eq(LIST_AT(reg->strides, Stride, 0)->axis, AX_TID_IN_WG);
	ck_assert_int_eq(LIST_AT(reg->strides, Stride, 2)->axis, AX_M);
	Item *ki = LIST_AT(items, Item, 2);
	Kernel *k = ki->kernel;
	ck_assert_str_eq(k->name, "tmem_roundtrip");
	ck_assert_int_eq(k->loc.first_line, 5);
	ck_assert_int_eq(k->loc.last_line, 38);
	ck_assert_int_eq(k->name_loc.first_column, 8);
	ck_assert_int_eq(k->params.n, 2);
	ck_assert(LIST_AT(k->params, Param, 1)->has_shape);
	ck_assert_int_eq(k->launch.n, 2);
	ck_assert_str_eq(LIST_AT(k->launch, NamedArg, 1)->name, "block");
	ck_assert_int_eq(k->body.n, 22);
	Stmt *apply = LIST_AT(k->body, Stmt, 13);
	ck_assert_int_eq(apply->kind, S_APPLY);
	ck_assert_str_eq(apply->opcode, "tcgen05.st.sync.aligned.32x32b.x64.b32");
	ck_assert_int_eq(apply->scope, SCOPE_WARPGROUP);
	ck_assert_ptr_null(apply->scope_arg);
	ck_assert_int_eq(apply->operands.n, 2);
	ck_assert_int_eq(apply->loc.first_line, 24);
	ck_assert_int_eq(apply->loc.first_column, 5);
	ck_assert_int_eq(apply->loc.last_column, 73);
}
END_TEST

START_TEST(test_precedence)
{
	Expr *e = parse_expr("1 + 2 * 3 << 1 == 4 || !a && ~b | c ^ d & -e");
	ck_assert_int_eq(last_errors, 0);
	/* || binds loosest */
	ck_assert_int_eq(e->kind, E_BINARY);
	ck_assert_int_eq(e->op, OP_LOR);
	Expr *eq = e->a;
	ck_assert_int_eq(eq->op, OP_EQ);
	ck_assert_int_eq(eq->a->op, OP_SHL);
	ck_assert_int_eq(eq->a->a->op, OP_ADD);
	ck_assert_int_eq(eq->a->a->b->op, OP_MUL);
	Expr *and = e->b;
	ck_assert_int_eq(and->op, OP_LAND);
	ck_assert_int_eq(and->a->kind, E_UNARY);
	ck_assert_int_eq(and->a->op, OP_NOT);
	ck_assert_int_eq(and->b->op, OP_BITOR);
	ck_assert_int_eq(and->b->b->op, OP_BITXOR);
	ck_assert_int_eq(and->b->b->b->op, OP_BITAND);
	ck_assert_int_eq(and->b->b->b->b->op, OP_NEG);
	/* left associativity */
	e = parse_expr("10 - 3 - 2");
	ck_assert_int_eq(e->op, OP_SUB);
	ck_assert_int_eq(e->a->op, OP_SUB);
	ck_assert_int_eq(e->b->ival, 2);
}
END_TEST

START_TEST(test_primaries)
{
	Expr *e = parse_expr("f16(x[1, 2]) + &s[3] + thread_idx.z + block_idx.y + lane_id + warpgroup_id + 2.5 + 7u");
	ck_assert_int_eq(last_errors, 0);
	ck_assert_int_eq(e->b->kind, E_INT);
	ck_assert(e->b->usuffix);
	ck_assert(e->a->b->fval == 2.5);
	ck_assert_int_eq(e->a->a->b->builtin, B_WARPGROUP_ID);
	ck_assert_int_eq(e->a->a->a->b->builtin, B_LANE_ID);
	ck_assert_int_eq(e->a->a->a->a->b->builtin, B_BLOCK_Y);
	ck_assert_int_eq(e->a->a->a->a->a->b->builtin, B_THREAD_Z);
	Expr *addr = e->a->a->a->a->a->a->b;
	ck_assert_int_eq(addr->kind, E_ADDR);
	ck_assert_str_eq(addr->name, "s");
	ck_assert_int_eq(addr->args.n, 1);
	Expr *conv = e->a->a->a->a->a->a->a;
	ck_assert_int_eq(conv->kind, E_CONV);
	ck_assert_int_eq(conv->type, T_F16);
	ck_assert_int_eq(conv->a->kind, E_INDEX);
	ck_assert_int_eq(conv->a->args.n, 2);
	parse_expr("thread_idx.w");
	ck_assert_int_eq(last_errors, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "expected 'x', 'y' or 'z' after 'thread_idx.', not 'w'"));
}
END_TEST

START_TEST(test_tuples)
{
	Expr *e = parse_expr("(a)");
	ck_assert_int_eq(e->kind, E_NAME);
	e = parse_expr("(a,)");
	ck_assert_int_eq(e->kind, E_TUPLE);
	ck_assert_int_eq(e->args.n, 1);
	e = parse_expr("(1, 2, (3 + 4) * 5,)");
	ck_assert_int_eq(e->kind, E_TUPLE);
	ck_assert_int_eq(e->args.n, 3);
	ck_assert_int_eq(LIST_AT(e->args, Expr, 2)->op, OP_MUL);
	ck_assert_int_eq(e->loc.first_column, 11);
	ck_assert_int_eq(e->loc.last_column, 30);
	ck_assert_int_eq(last_errors, 0);
}
END_TEST

START_TEST(test_launch_args)
{
	List items = parse("kernel k(n: i32) launch(grid = (2, 3), block = (32, 4, 1)) { }");
	ck_assert_int_eq(last_errors, 0);
	Kernel *k = LIST_AT(items, Item, 0)->kernel;
	ck_assert_int_eq(k->launch.n, 2);
	ck_assert_int_eq(LIST_AT(k->launch, NamedArg, 0)->value->kind, E_TUPLE);
	ck_assert_int_eq(LIST_AT(k->launch, NamedArg, 1)->value->args.n, 3);
	ck_assert(!LIST_AT(k->params, Param, 0)->has_shape);
	parse("kernel k() launch(grid = 1, threads = 2) { }");
	ck_assert_int_eq(last_errors, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:1:29: error: expected 'grid', 'block' or 'cluster', not 'threads'"));
}
END_TEST

START_TEST(test_layout_strided)
{
	LayoutExpr *l = parse_layout("S[(4, 8) : (2@tx, 1@laneid)] + R[2 : 64@warpid] + 3@TCol + (1 + 1) * 2@TLane");
	ck_assert_int_eq(last_errors, 0);
	ck_assert_int_eq(l->kind, LAY_STRIDED);
	ck_assert_int_eq(l->extents.n, 2);
	ck_assert_int_eq(l->strides.n, 2);
	ck_assert_int_eq(LIST_AT(l->strides, Stride, 1)->axis, AX_LANEID);
	ck_assert_int_eq(l->terms.n, 3);
	LayoutTerm *r = LIST_AT(l->terms, LayoutTerm, 0);
	ck_assert_int_eq(r->kind, LT_REPLICA);
	ck_assert_int_eq(r->extents.n, 1);
	ck_assert_int_eq(LIST_AT(r->strides, Stride, 0)->axis, AX_WARPID);
	LayoutTerm *o = LIST_AT(l->terms, LayoutTerm, 1);
	ck_assert_int_eq(o->kind, LT_OFFSET);
	ck_assert_int_eq(o->axis, AX_TCOL);
	ck_assert_uint_eq(o->offset->ival, 3);
	o = LIST_AT(l->terms, LayoutTerm, 2);
	ck_assert_int_eq(o->axis, AX_TLANE);
	ck_assert_int_eq(o->offset->op, OP_MUL);
}
END_TEST

START_TEST(test_layout_stride_parentheses)
{
	/* A '(' in stride position: a list when a ',' or '@' follows its first expression, else an expression. */
	LayoutExpr *l = parse_layout("S[(2) : (1)]");
	ck_assert_int_eq(l->extents.n, 1);
	ck_assert_int_eq(l->strides.n, 1);
	ck_assert_int_eq(LIST_AT(l->strides, Stride, 0)->axis, AX_M);
	l = parse_layout("S[4 : (2) * 3@tid_in_wg]");
	ck_assert_int_eq(l->strides.n, 1);
	ck_assert_int_eq(LIST_AT(l->strides, Stride, 0)->value->op, OP_MUL);
	ck_assert_int_eq(LIST_AT(l->strides, Stride, 0)->axis, AX_TID_IN_WG);
	l = parse_layout("S[(4, 2) : ((1 + 1)@tx, 8,)]");
	ck_assert_int_eq(l->strides.n, 2);
	ck_assert_int_eq(LIST_AT(l->strides, Stride, 0)->axis, AX_TX);
	ck_assert_int_eq(LIST_AT(l->strides, Stride, 1)->axis, AX_M);
	l = parse_layout("S[(4,) : (1@wgid)]");
	ck_assert_int_eq(l->extents.n, 1);
	ck_assert_int_eq(LIST_AT(l->strides, Stride, 0)->axis, AX_WGID);
	l = parse_layout("S[(4, 4) : (1, 4@wid_in_wg)]");
	ck_assert_int_eq(LIST_AT(l->strides, Stride, 1)->axis, AX_WID_IN_WG);
	ck_assert_int_eq(last_errors, 0);
}
END_TEST

START_TEST(test_layout_forms)
{
	LayoutExpr *l = parse_layout("tmem_datapath_layout(\"F\", 64, 32, sub_slab = 1)");
	ck_assert_int_eq(l->kind, LAY_DATAPATH);
	ck_assert_str_eq(l->letter, "F");
	ck_assert_uint_eq(l->sub_slab->ival, 1);
	ck_assert_int_eq(l->letter_loc.first_column, 33);
	l = parse_layout("default");
	ck_assert_int_eq(l->kind, LAY_DEFAULT);
	l = parse_layout("REG");
	ck_assert_int_eq(l->kind, LAY_NAME);
	ck_assert_str_eq(l->name, "REG");
	ck_assert_int_eq(last_errors, 0);
}
END_TEST

START_TEST(test_layout_errors)
{
	parse_layout("Q[4 : 1@foo] + T[2 : 1]");
	ck_assert_int_eq(last_errors, 3);
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:1:12: error: expected 'S', 'tmem_datapath_layout', 'default' "
	                                         "or a layout name, not 'Q['"));
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:1:20: error: unknown axis 'foo'; the axes are tx, tid_in_wg"));
	ck_assert_ptr_nonnull(strstr(last_diags, "error: expected 'R[...]' or an offset 'k@axis', not 'T['"));
	parse_layout("tmem_datapath_layout(\"A\", 128, 32, slab = 0)");
	ck_assert_int_eq(last_errors, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "expected 'sub_slab', not 'slab'"));
}
END_TEST

START_TEST(test_view_expressions)
{
	Kernel *k = parse_kernel("view v = t.view(2, 64, layout = S[128 : 1])[1, 0:, :4, :, 2:3].rearrange(\"a b -> b a\", a = 2);");
	ck_assert_int_eq(last_errors, 0);
	Stmt *s = LIST_AT(k->body, Stmt, 0);
	ck_assert_int_eq(s->kind, S_VIEW);
	ViewExpr *v = s->view;
	ck_assert_str_eq(v->base, "t");
	ck_assert_int_eq(v->ops.n, 3);
	ViewOp *op = LIST_AT(v->ops, ViewOp, 0);
	ck_assert_int_eq(op->kind, VOP_VIEW);
	ck_assert_int_eq(op->dims.n, 2);
	ck_assert_int_eq(op->layout->kind, LAY_STRIDED);
	op = LIST_AT(v->ops, ViewOp, 1);
	ck_assert_int_eq(op->kind, VOP_SLICE);
	ck_assert_int_eq(op->indices.n, 5);
	SliceIndex *i0 = LIST_AT(op->indices, SliceIndex, 0), *i1 = LIST_AT(op->indices, SliceIndex, 1);
	SliceIndex *i2 = LIST_AT(op->indices, SliceIndex, 2), *i3 = LIST_AT(op->indices, SliceIndex, 3);
	ck_assert(!i0->is_range);
	ck_assert(i1->is_range && i1->lo && !i1->hi);
	ck_assert(i2->is_range && !i2->lo && i2->hi);
	ck_assert(i3->is_range && !i3->lo && !i3->hi);
	op = LIST_AT(v->ops, ViewOp, 2);
	ck_assert_int_eq(op->kind, VOP_REARRANGE);
	ck_assert_str_eq(op->pattern, "a b -> b a");
	ck_assert_int_eq(op->bindings.n, 1);
	parse_kernel("view v = t.reshape(\"a\");");
	ck_assert_int_eq(last_errors, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "expected 'view' or 'rearrange', not 'reshape'"));
}
END_TEST

START_TEST(test_apply_statements)
{
	Kernel *k = parse_kernel(
		"apply tcgen05.ld.sync.aligned.16x32bx2.x1.b32(r, a[0], b) scope warp(1), imm_half_splitoff = 16;\n"
		"apply tcgen05.st.sync.aligned.32x32b.x1.b32(m, r) scope warpgroup(0);\n"
		"apply tcgen05.st.sync.aligned.32x32b.x1.b32(m, r) scope cta;\n"
		"apply tcgen05.st.sync.aligned.32x32b.x1.b32(m, r) scope warp;");
	ck_assert_int_eq(last_errors, 0);
	Stmt *s = LIST_AT(k->body, Stmt, 0);
	ck_assert_int_eq(s->operands.n, 3);
	ck_assert_int_eq(s->scope, SCOPE_WARP);
	ck_assert_uint_eq(s->scope_arg->ival, 1);
	ck_assert_int_eq(s->named.n, 1);
	ck_assert_str_eq(LIST_AT(s->named, NamedArg, 0)->name, "imm_half_splitoff");
	ck_assert_int_eq(s->opcode_loc.first_column, 7);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 1)->scope, SCOPE_WARPGROUP);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 2)->scope, SCOPE_CTA);
	ck_assert_ptr_null(LIST_AT(k->body, Stmt, 3)->scope_arg);
	parse_kernel("apply tcgen05.ld(a) scope cta(2);\napply tcgen05.ld(a) scope team;");
	ck_assert_int_eq(last_errors, 2);
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:2:27: error: scope 'cta' takes no argument"));
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:3:27: error: unknown scope 'team'; expected 'warp', 'warpgroup' or 'cta'"));
}
END_TEST

START_TEST(test_instructions)
{
	Kernel *k = parse_kernel("tcgen05.wait::ld.sync.aligned;\ntcgen05.fence::after_thread_sync();\n"
	                         "tcgen05.dealloc.cta_group::1.sync.aligned.b32(a[0], 64);\ncta_sync;\nwarp_sync;");
	ck_assert_int_eq(last_errors, 0);
	ck_assert_int_eq(k->body.n, 5);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 0)->kind, S_INSTR);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 1)->operands.n, 0);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 2)->operands.n, 2);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 3)->kind, S_CTA_SYNC);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 4)->kind, S_WARP_SYNC);
}
END_TEST

START_TEST(test_declarations)
{
	Kernel *k = parse_kernel("let a = 1;\nvar b: f32;\nvar c: u32 = a;\nshared s: u32[2, 3];\n"
	                         "local l: f32[64] layout default;\ntmem t: f32[128, 32] at s[0] layout T;\nl2[1, a] = 2;\nx = 3;");
	ck_assert_int_eq(last_errors, 0);
	ck_assert_int_eq(k->body.n, 8);
	Stmt *b = LIST_AT(k->body, Stmt, 1);
	ck_assert_int_eq(b->kind, S_VAR);
	ck_assert_ptr_null(b->value);
	ck_assert_int_eq(b->type, T_F32);
	ck_assert_int_eq(b->name_loc.first_line, 3);
	ck_assert_int_eq(b->name_loc.first_column, 5);
	ck_assert_ptr_nonnull(LIST_AT(k->body, Stmt, 2)->value);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 3)->dims.n, 2);
	Stmt *t = LIST_AT(k->body, Stmt, 5);
	ck_assert_int_eq(t->kind, S_TMEM);
	ck_assert_int_eq(t->value->kind, E_INDEX);
	ck_assert_int_eq(t->layout->kind, LAY_NAME);
	Stmt *as = LIST_AT(k->body, Stmt, 6);
	ck_assert_int_eq(as->kind, S_ASSIGN);
	ck_assert_int_eq(as->target->kind, E_INDEX);
	ck_assert_int_eq(as->target->args.n, 2);
	ck_assert_int_eq(LIST_AT(k->body, Stmt, 7)->target->kind, E_NAME);
}
END_TEST

START_TEST(test_control_flow)
{
	Kernel *k = parse_kernel("if (a) { x = 1; } else if (b) { } else { { y = 2; } }\nfor i in 0..n + 1 { }\nif (c) { }");
	ck_assert_int_eq(last_errors, 0);
	ck_assert_int_eq(k->body.n, 3);
	Stmt *s = LIST_AT(k->body, Stmt, 0);
	ck_assert_int_eq(s->kind, S_IF);
	ck_assert(s->has_else);
	ck_assert_int_eq(s->body.n, 1);
	ck_assert_int_eq(s->else_body.n, 1);
	Stmt *elif = LIST_AT(s->else_body, Stmt, 0);
	ck_assert_int_eq(elif->kind, S_IF);
	ck_assert(elif->has_else);
	ck_assert_int_eq(LIST_AT(elif->else_body, Stmt, 0)->kind, S_BLOCK);
	Stmt *f = LIST_AT(k->body, Stmt, 1);
	ck_assert_int_eq(f->kind, S_FOR);
	ck_assert_str_eq(f->name, "i");
	ck_assert_int_eq(f->hi->op, OP_ADD);
	ck_assert(!LIST_AT(k->body, Stmt, 2)->has_else);
}
END_TEST

START_TEST(test_items)
{
	List items = parse("include \"lib/a.tile\";\nconst N = 4;\nlayout L = default;\nkernel k() launch(grid = 1) { }");
	ck_assert_int_eq(last_errors, 0);
	ck_assert_int_eq(items.n, 4);
	ck_assert_int_eq(LIST_AT(items, Item, 0)->kind, I_INCLUDE);
	ck_assert_str_eq(LIST_AT(items, Item, 0)->path, "lib/a.tile");
	ck_assert_int_eq(LIST_AT(items, Item, 1)->kind, I_CONST);
	ck_assert_int_eq(LIST_AT(items, Item, 1)->name_loc.first_column, 7);
	ck_assert_int_eq(LIST_AT(items, Item, 2)->kind, I_LAYOUT);
	ck_assert_int_eq(LIST_AT(items, Item, 3)->kind, I_KERNEL);
	items = parse("");
	ck_assert_int_eq(items.n, 0);
	ck_assert_int_eq(last_errors, 0);
}
END_TEST

START_TEST(test_syntax_error_messages)
{
	parse("include \"a\" foo");
	ck_assert_str_eq(last_diags, "t.tile:1:13: error: unexpected identifier 'foo', expected ';'\n"
	                             "include \"a\" foo\n"
	                             "            ^~~\n");
	parse("const X = ;");
	ck_assert_ptr_nonnull(strstr(last_diags, "error: unexpected ';', expected expression\n"));
	parse("const X = 5");
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:1:12: error: unexpected end of file, expected ';' or operator\n"));
	parse("kernel k(A f32) launch(grid = 1) { }");
	ck_assert_ptr_nonnull(strstr(last_diags, "error: unexpected element type 'f32', expected ':'\n"));
	parse("let x = 1;");
	ck_assert_ptr_nonnull(strstr(last_diags, "error: unexpected keyword 'let'\n"));
	parse("const X = 1 2;");
	ck_assert_ptr_nonnull(strstr(last_diags, "error: unexpected integer 2, expected ';' or operator\n"));
}
END_TEST

START_TEST(test_error_recovery)
{
	/* Every bad statement is reported, and the good ones around them are kept. */
	Kernel *k = parse_kernel("let a = ;\nlet b = 1;\nfoo bar;\nif (x) { let c = 1 }\nlet d = 2;");
	ck_assert_int_eq(last_errors, 3);
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:2:9: error"));
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:4:5: error: unexpected identifier 'bar', expected '(', '[' or assignment operator"));
	ck_assert_ptr_nonnull(strstr(last_diags, "t.tile:5:20: error: unexpected '}', expected ';' or operator"));
	ck_assert_int_eq(k->body.n, 3);
	ck_assert_str_eq(LIST_AT(k->body, Stmt, 0)->name, "b");
	ck_assert_str_eq(LIST_AT(k->body, Stmt, 2)->name, "d");
	/* After a bad kernel header the parser skips to the body; the items after it are parsed. */
	List items = parse("kernel k(A f32) launch(grid = 1) { let x = 1; }\nconst N = 1;\nconst M = ;\nlayout L = default;");
	ck_assert_int_eq(last_errors, 2);
	ck_assert_int_eq(items.n, 2);
}
END_TEST

START_TEST(test_error_limit)
{
	Buf b = {0};
	buf_puts(&b, "kernel k() launch(grid = 1) {\n");
	for (int i = 0; i < 40; i++)
		buf_printf(&b, "let x%d = ;\n", i);
	buf_puts(&b, "}\n");
	parse(b.data);
	buf_free(&b);
	ck_assert_int_eq(last_errors, 20);
	ck_assert_ptr_nonnull(strstr(last_diags, "note: too many syntax errors; the rest of t.tile is skipped"));
}
END_TEST

START_TEST(test_deep_nesting)
{
	int n = 100000;
	char *text = malloc(3 * (size_t)n + 32);
	char *p = text + sprintf(text, "const X = ");
	memset(p, '(', n);
	p += n;
	*p++ = '1';
	memset(p, ')', n);
	p += n;
	strcpy(p, ";");
	parse(text);
	ck_assert_int_ge(last_errors, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "error: nesting too deep for the parser"));
	/* A long flat chain builds a deep left-leaning tree, which is refused once. */
	p = text + sprintf(text, "const X = 1");
	for (int i = 0; i < 5000; i++)
		p += sprintf(p, "+a");
	strcpy(p, ";");
	parse(text);
	ck_assert_int_eq(last_errors, 1);
	ck_assert_ptr_nonnull(strstr(last_diags, "error: expression nested too deeply"));
	free(text);
}
END_TEST

START_TEST(test_locations)
{
	Kernel *k = parse_kernel("  x = a + b * 3;");
	Stmt *s = LIST_AT(k->body, Stmt, 0);
	ck_assert_int_eq(s->loc.first_line, 2);
	ck_assert_int_eq(s->loc.first_column, 3);
	ck_assert_int_eq(s->loc.last_column, 16);
	Expr *e = s->value;
	ck_assert_int_eq(e->loc.first_column, 7);
	ck_assert_int_eq(e->loc.last_column, 15);
	ck_assert_int_eq(e->b->loc.first_column, 11);
	ck_assert_int_eq(e->loc.file, source_count() - 1);
}
END_TEST

START_TEST(test_ast_dump)
{
	List items = parse("const N = -(1 + 2u) * 1.5;\n"
	                   "layout L = S[(2, 4) : (1@laneid, 2)] + 1@TCol;\n"
	                   "kernel k(A: f32[N]) launch(grid = (1, 2), block = 32) {\n"
	                   "  view v = A.view(2, 2)[0, 1:];\n"
	                   "  if (lane_id == 0) { cta_sync; } else { A[0] = f32(2); }\n"
	                   "}\n");
	ck_assert_int_eq(last_errors, 0);
	ck_assert_str_eq(dump(&items),
	                 "(const @1:1 N @1:7 (* @1:11 (- @1:11 (+ @1:13 (int 1 @1:13) (int 2u @1:17))) (float 1.5 @1:23)))\n"
	                 "(layout @2:1 L @2:8 (S @2:12 (extents (int 2 @2:15) (int 4 @2:18)) (strides (stride @2:24 (int 1 @2:24) "
	                 "laneid) (stride @2:34 (int 2 @2:34) m)) (terms (offset @2:40 (int 1 @2:40) TCol))))\n"
	                 "(kernel @3:1 k @3:8\n"
	                 "  (params (A @3:10 f32 (dims (name N @3:17))))\n"
	                 "  (launch (grid @3:28 (tuple @3:35 (int 1 @3:36) (int 2 @3:39))) (block @3:43 (int 32 @3:51)))\n"
	                 "  (body\n"
	                 "    (view @4:3 v @4:8 (viewexpr @4:12 A @4:12 (view @4:13 (dims (int 2 @4:19) (int 2 @4:22)) (layout nil)) "
	                 "(slice @4:24 (at @4:25 (int 0 @4:25)) (range @4:28 (int 1 @4:28) nil))))\n"
	                 "    (if @5:3 (== @5:7 (builtin lane_id @5:7) (int 0 @5:18))\n"
	                 "      (then\n"
	                 "        (cta_sync @5:23))\n"
	                 "      (else\n"
	                 "        (assign @5:42 (index A @5:42 (int 0 @5:44)) (conv f32 @5:49 (int 2 @5:53)))))))\n");
}
END_TEST

static Suite *
parser_suite(void)
{
	Suite *s = suite_create("parser");
	struct {
		const char *name;
		const TTest *test;
	} tests[] = {
		{"parser_example_program", test_example_program},
		{"parser_precedence", test_precedence},
		{"parser_primaries", test_primaries},
		{"parser_tuples", test_tuples},
		{"parser_launch_args", test_launch_args},
		{"parser_layout_strided", test_layout_strided},
		{"parser_layout_stride_parentheses", test_layout_stride_parentheses},
		{"parser_layout_forms", test_layout_forms},
		{"parser_layout_errors", test_layout_errors},
		{"parser_view_expressions", test_view_expressions},
		{"parser_apply_statements", test_apply_statements},
		{"parser_instructions", test_instructions},
		{"parser_declarations", test_declarations},
		{"parser_control_flow", test_control_flow},
		{"parser_items", test_items},
		{"parser_syntax_error_messages", test_syntax_error_messages},
		{"parser_error_recovery", test_error_recovery},
		{"parser_error_limit", test_error_limit},
		{"parser_deep_nesting", test_deep_nesting},
		{"parser_locations", test_locations},
		{"ast_dump_format", test_ast_dump},
	};
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		TCase *tc = tcase_create(tests[i].name);
		tcase_add_test(tc, tests[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

UNIT_MAIN(parser_suite)
