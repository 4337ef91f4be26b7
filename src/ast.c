/* ast.c: the --emit=ast dump (every field, each node with its @line:col); an instr statement's row. */
#include <stdlib.h>

#include "tilec.h"

static void dump_expr(FILE *out, Expr *e);
static void dump_layout(FILE *out, LayoutExpr *l);
static void dump_view(FILE *out, ViewExpr *v);
static void dump_stmts(FILE *out, List *stmts, int indent);

static const char *const scope_names[] = {
	[SCOPE_WARP] = "warp", [SCOPE_WARPGROUP] = "warpgroup", [SCOPE_CTA] = "cta",
};

static void
at(FILE *out, Loc l)
{
	fprintf(out, " @%d:%d", l.first_line, l.first_column);
}

static void
indent_to(FILE *out, int indent)
{
	fputc('\n', out);
	for (int i = 0; i < indent; i++)
		fputs("  ", out);
}

/* Strings print in C syntax so that the dump stays one token per string and plain ASCII. */
static void
dump_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void
dump_exprs(FILE *out, List *l)
{
	for (int i = 0; i < l->n; i++) {
		fputc(' ', out);
		dump_expr(out, LIST_AT(*l, Expr, i));
	}
}

static void
dump_expr(FILE *out, Expr *e)
{
	if (!e) {
		fputs("nil", out);
		return;
	}
	switch (e->kind) {
	case E_INT:
		fprintf(out, "(int %u%s", e->ival, e->usuffix ? "u" : "");
		break;
	case E_FLOAT: {
		/* The shortest spelling that reads back as the same double, so dumps stay readable. */
		char buf[64];
		for (int prec = 6; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, "%.*g", prec, e->fval);
			if (strtod(buf, NULL) == e->fval)
				break;
		}
		fprintf(out, "(float %s", buf);
		break;
	}
	case E_NAME:
		fprintf(out, "(name %s", e->name);
		break;
	case E_INDEX:
		fprintf(out, "(index %s", e->name);
		at(out, e->loc);
		dump_exprs(out, &e->args);
		fputc(')', out);
		return;
	case E_ADDR:
		fprintf(out, "(addr %s", e->name);
		at(out, e->loc);
		dump_exprs(out, &e->args);
		fputc(')', out);
		return;
	case E_UNARY:
		fprintf(out, "(%s", op_text(e->op));
		at(out, e->loc);
		fputc(' ', out);
		dump_expr(out, e->a);
		fputc(')', out);
		return;
	case E_BINARY: {
		/* Long left-leaning chains (a + b + c + ...) are walked with a loop, not recursion. */
		int n = 0;
		for (Expr *x = e; x && x->kind == E_BINARY; x = x->a)
			n++;
		Expr **spine = malloc((size_t)n * sizeof *spine);
		if (!spine)
			out_of_memory();
		n = 0;
		for (Expr *x = e; x && x->kind == E_BINARY; x = x->a)
			spine[n++] = x;
		for (int i = 0; i < n; i++) {
			fprintf(out, "(%s", op_text(spine[i]->op));
			at(out, spine[i]->loc);
			fputc(' ', out);
		}
		dump_expr(out, spine[n - 1]->a);
		for (int i = n - 1; i >= 0; i--) {
			fputc(' ', out);
			dump_expr(out, spine[i]->b);
			fputc(')', out);
		}
		free(spine);
		return;
	}
	case E_CONV:
		fprintf(out, "(conv %s", etype_name(e->type));
		at(out, e->loc);
		fputc(' ', out);
		dump_expr(out, e->a);
		fputc(')', out);
		return;
	case E_BUILTIN:
		fprintf(out, "(builtin %s", builtin_name(e->builtin));
		break;
	case E_TUPLE:
		fputs("(tuple", out);
		at(out, e->loc);
		dump_exprs(out, &e->args);
		fputc(')', out);
		return;
	case E_CALL:
		fprintf(out, "(call %s", e->name);
		at(out, e->loc);
		dump_exprs(out, &e->args);
		fputc(')', out);
		return;
	case E_VIEW:
		dump_view(out, e->view);
		return;
	case E_COND:
		fputs("(?:", out);
		at(out, e->loc);
		fputc(' ', out);
		dump_expr(out, e->a);
		fputc(' ', out);
		dump_expr(out, e->b);
		fputc(' ', out);
		dump_expr(out, e->c);
		fputc(')', out);
		return;
	}
	at(out, e->loc);
	fputc(')', out);
}

static void
dump_strides(FILE *out, List *strides)
{
	fputs("(strides", out);
	for (int i = 0; i < strides->n; i++) {
		Stride *s = LIST_AT(*strides, Stride, i);
		fputs(" (stride", out);
		at(out, s->loc);
		fputc(' ', out);
		dump_expr(out, s->value);
		fprintf(out, " %s)", axis_name(s->axis));
	}
	fputc(')', out);
}

static void
dump_layout(FILE *out, LayoutExpr *l)
{
	if (!l) {
		fputs("nil", out);
		return;
	}
	switch (l->kind) {
	case LAY_STRIDED:
		fputs("(S", out);
		at(out, l->loc);
		fputs(" (extents", out);
		dump_exprs(out, &l->extents);
		fputs(") ", out);
		dump_strides(out, &l->strides);
		fputs(" (terms", out);
		for (int i = 0; i < l->terms.n; i++) {
			LayoutTerm *t = LIST_AT(l->terms, LayoutTerm, i);
			if (t->kind == LT_REPLICA) {
				fputs(" (R", out);
				at(out, t->loc);
				fputs(" (extents", out);
				dump_exprs(out, &t->extents);
				fputs(") ", out);
				dump_strides(out, &t->strides);
				fputc(')', out);
			} else {
				fputs(" (offset", out);
				at(out, t->loc);
				fputc(' ', out);
				dump_expr(out, t->offset);
				fprintf(out, " %s)", axis_name(t->axis));
			}
		}
		fputs("))", out);
		break;
	case LAY_DATAPATH:
		fputs("(tmem_datapath_layout", out);
		at(out, l->loc);
		fputc(' ', out);
		dump_string(out, l->letter);
		at(out, l->letter_loc);
		fputs(" (rows ", out);
		dump_expr(out, l->rows);
		fputs(") (cols ", out);
		dump_expr(out, l->cols);
		fputs(") (sub_slab ", out);
		dump_expr(out, l->sub_slab);
		fputs("))", out);
		break;
	case LAY_DEFAULT:
		fputs("(default", out);
		at(out, l->loc);
		fputc(')', out);
		break;
	case LAY_NAME:
		fprintf(out, "(layout-name %s", l->name);
		at(out, l->loc);
		fputc(')', out);
		break;
	case LAY_SMEM_TILE:
		fputs("(smem_tile", out);
		at(out, l->loc);
		fputc(' ', out);
		dump_string(out, l->major);
		at(out, l->major_loc);
		fputc(' ', out);
		dump_string(out, l->swizzle);
		at(out, l->swizzle_loc);
		fputc(')', out);
		break;
	}
}

static void
dump_named(FILE *out, const char *head, List *named)
{
	fprintf(out, "(%s", head);
	for (int i = 0; i < named->n; i++) {
		NamedArg *a = LIST_AT(*named, NamedArg, i);
		fprintf(out, " (%s", a->name);
		at(out, a->loc);
		fputc(' ', out);
		dump_expr(out, a->value);
		fputc(')', out);
	}
	fputc(')', out);
}

static void
dump_view(FILE *out, ViewExpr *v)
{
	fputs("(viewexpr", out);
	at(out, v->loc);
	fprintf(out, " %s", v->base);
	at(out, v->base_loc);
	for (int i = 0; i < v->ops.n; i++) {
		ViewOp *op = LIST_AT(v->ops, ViewOp, i);
		switch (op->kind) {
		case VOP_VIEW:
			fputs(" (view", out);
			at(out, op->loc);
			fputs(" (dims", out);
			dump_exprs(out, &op->dims);
			fputs(") (layout ", out);
			dump_layout(out, op->layout);
			fputs("))", out);
			break;
		case VOP_REARRANGE:
			fputs(" (rearrange", out);
			at(out, op->loc);
			fputc(' ', out);
			dump_string(out, op->pattern);
			at(out, op->pattern_loc);
			fputc(' ', out);
			dump_named(out, "bindings", &op->bindings);
			fputc(')', out);
			break;
		case VOP_SLICE:
			fputs(" (slice", out);
			at(out, op->loc);
			for (int j = 0; j < op->indices.n; j++) {
				SliceIndex *s = LIST_AT(op->indices, SliceIndex, j);
				if (s->is_range) {
					fputs(" (range", out);
					at(out, s->loc);
					fputc(' ', out);
					dump_expr(out, s->lo);
					fputc(' ', out);
					dump_expr(out, s->hi);
				} else {
					fputs(" (at", out);
					at(out, s->loc);
					fputc(' ', out);
					dump_expr(out, s->index);
				}
				fputc(')', out);
			}
			fputc(')', out);
			break;
		}
	}
	fputc(')', out);
}

static const char *const stmt_names[] = {
	[S_LET] = "let", [S_VAR] = "var", [S_SHARED] = "shared", [S_LOCAL] = "local", [S_TMEM] = "tmem",
	[S_VIEW] = "view", [S_ASSIGN] = "assign", [S_IF] = "if", [S_FOR] = "for", [S_APPLY] = "apply",
	[S_INSTR] = "instr", [S_CTA_SYNC] = "cta_sync", [S_WARP_SYNC] = "warp_sync", [S_BLOCK] = "block",
	[S_COPY] = "copy", [S_CALL] = "call", [S_NAMED_BAR] = "named_bar",
	[S_MBAR] = "mbarrier",
	[S_REDUCE] = "reduce",
	[S_MMA] = "mma",
};

/* " (operands V1 V2 ...)" of a statement whose operands are views (copy, reduce) */
static void
dump_view_operands(FILE *out, Stmt *s)
{
	fputs(" (operands", out);
	for (int i = 0; i < s->operands.n; i++) {
		fputc(' ', out);
		dump_view(out, LIST_AT(s->operands, ViewExpr, i));
	}
	fputc(')', out);
}

static void
dump_stmt(FILE *out, Stmt *s, int indent)
{
	indent_to(out, indent);
	fprintf(out, "(%s", stmt_names[s->kind]);
	at(out, s->loc);
	switch (s->kind) {
	case S_LET:
		fprintf(out, " %s", s->name);
		at(out, s->name_loc);
		fputc(' ', out);
		dump_expr(out, s->value);
		break;
	case S_VAR:
		fprintf(out, " %s", s->name);
		at(out, s->name_loc);
		fprintf(out, " %s ", etype_name(s->type));
		dump_expr(out, s->value);
		break;
	case S_SHARED:
	case S_LOCAL:
	case S_TMEM:
		fprintf(out, " %s", s->name);
		at(out, s->name_loc);
		fprintf(out, " %s (dims", etype_name(s->type));
		dump_exprs(out, &s->dims);
		fputc(')', out);
		if (s->kind == S_TMEM && s->value) {
			fputs(" (at ", out);
			dump_expr(out, s->value);
			fputc(')', out);
		}
		if (s->layout) {
			fputs(" (layout ", out);
			dump_layout(out, s->layout);
			fputc(')', out);
		}
		break;
	case S_VIEW:
		fprintf(out, " %s", s->name);
		at(out, s->name_loc);
		fputc(' ', out);
		dump_view(out, s->view);
		break;
	case S_ASSIGN:
		if (s->assign_op != OP_NONE)
			fprintf(out, " %s=", op_text(s->assign_op));
		fputc(' ', out);
		dump_expr(out, s->target);
		fputc(' ', out);
		dump_expr(out, s->value);
		break;
	case S_IF:
		fputc(' ', out);
		dump_expr(out, s->value);
		indent_to(out, indent + 1);
		fputs("(then", out);
		dump_stmts(out, &s->body, indent + 2);
		fputc(')', out);
		if (s->has_else) {
			indent_to(out, indent + 1);
			fputs("(else", out);
			dump_stmts(out, &s->else_body, indent + 2);
			fputc(')', out);
		}
		break;
	case S_FOR:
		fprintf(out, " %s", s->name);
		at(out, s->name_loc);
		fputc(' ', out);
		dump_expr(out, s->value);
		fputc(' ', out);
		dump_expr(out, s->hi);
		dump_stmts(out, &s->body, indent + 1);
		break;
	case S_APPLY:
		fprintf(out, " %s", s->opcode);
		at(out, s->opcode_loc);
		fputs(" (operands", out);
		for (int i = 0; i < s->operands.n; i++) {
			fputc(' ', out);
			dump_view(out, LIST_AT(s->operands, ViewExpr, i));
		}
		fprintf(out, ") (scope %s", scope_names[s->scope]);
		at(out, s->scope_loc);
		fputc(' ', out);
		dump_expr(out, s->scope_arg);
		fputs(") ", out);
		dump_named(out, "named", &s->named);
		break;
	case S_MMA:
		dump_view_operands(out, s);
		fputc(' ', out);
		dump_named(out, "named", &s->named);
		break;
	case S_COPY:
		dump_view_operands(out, s);
		if (s->has_scope) {
			fprintf(out, " (scope %s", scope_names[s->scope]);
			at(out, s->scope_loc);
			fputc(' ', out);
			dump_expr(out, s->scope_arg);
			fputc(')', out);
		}
		if (s->reduce_into) {
			fprintf(out, " (reduce %s", s->reduce_op);
			at(out, s->reduce_loc);
			fputc(' ', out);
			dump_view(out, s->reduce_into);
			fputc(')', out);
		}
		break;
	case S_CALL:
		fprintf(out, " %s", s->name);
		at(out, s->name_loc);
		fputs(" (operands", out);
		dump_exprs(out, &s->operands);
		fputc(')', out);
		break;
	case S_INSTR:
		fprintf(out, " %s", s->opcode);
		at(out, s->opcode_loc);
		fputs(" (operands", out);
		dump_exprs(out, &s->operands);
		fputc(')', out);
		break;
	case S_BLOCK:
		dump_stmts(out, &s->body, indent + 1);
		break;
	case S_CTA_SYNC:
	case S_WARP_SYNC:
		break;
	case S_REDUCE:
		fprintf(out, " %s", s->name);
		at(out, s->name_loc);
		dump_view_operands(out, s);
		fputc(' ', out);
		dump_expr(out, s->value);
		break;
	case S_NAMED_BAR:
		fprintf(out, " %s", s->bar_arrive ? "arrive" : "sync");
		fputc(' ', out);
		dump_expr(out, s->value);
		fputc(' ', out);
		dump_expr(out, s->hi);
		break;
	case S_MBAR:
		fprintf(out, " %s", mbar_op_name(s->mbar_op));
		if (s->target) {
			fputc(' ', out);
			dump_expr(out, s->target);
		}
		if (s->value) {
			fputc(' ', out);
			dump_expr(out, s->value);
		}
		break;
	}
	fputc(')', out);
}

static void
dump_stmts(FILE *out, List *stmts, int indent)
{
	for (int i = 0; i < stmts->n; i++)
		dump_stmt(out, LIST_AT(*stmts, Stmt, i), indent);
}

static void
dump_kernel(FILE *out, Kernel *k)
{
	fputs(k->is_device ? "(device" : "(kernel", out);
	at(out, k->loc);
	fprintf(out, " %s", k->name);
	at(out, k->name_loc);
	indent_to(out, 1);
	fputs("(params", out);
	for (int i = 0; i < k->params.n; i++) {
		Param *p = LIST_AT(k->params, Param, i);
		fprintf(out, " (%s", p->name);
		at(out, p->loc);
		static const char *const kinds[] = {[PK_VALUE] = "", [PK_SHARED] = " shared", [PK_TMEM] = " tmem",
		                                    [PK_LOCAL] = " local"};
		fprintf(out, "%s %s", kinds[p->kind], etype_name(p->type));
		if (p->has_shape) {
			fputs(" (dims", out);
			dump_exprs(out, &p->dims);
			fputc(')', out);
		}
		if (p->strides.n) {
			fputs(" (stride", out);
			dump_exprs(out, &p->strides);
			fputc(')', out);
		}
		if (p->align)
			fprintf(out, " (align %u)", p->align->ival);
		if (p->layout) {
			fputs(" (layout ", out);
			dump_layout(out, p->layout);
			fputc(')', out);
		}
		fputc(')', out);
	}
	fputc(')', out);
	indent_to(out, 1);
	if (k->is_device) {
		fprintf(out, "(scope %s", scope_names[k->scope]);
		if (k->block) {
			fputs(" (block ", out);
			dump_expr(out, k->block);
			fputc(')', out);
		}
		fputc(')', out);
	} else {
		dump_named(out, "launch", &k->launch);
	}
	indent_to(out, 1);
	fputs("(body", out);
	dump_stmts(out, &k->body, 2);
	fputs("))", out);
}

void
ast_dump(FILE *out, List *items)
{
	for (int i = 0; i < items->n; i++) {
		Item *it = LIST_AT(*items, Item, i);
		switch (it->kind) {
		case I_INCLUDE:
			fputs("(include", out);
			at(out, it->loc);
			fputc(' ', out);
			dump_string(out, it->path);
			fputc(')', out);
			break;
		case I_CONST:
			fputs("(const", out);
			at(out, it->loc);
			fprintf(out, " %s", it->name);
			at(out, it->name_loc);
			fputc(' ', out);
			dump_expr(out, it->value);
			fputc(')', out);
			break;
		case I_LAYOUT:
			fputs("(layout", out);
			at(out, it->loc);
			fprintf(out, " %s", it->name);
			at(out, it->name_loc);
			fputc(' ', out);
			dump_layout(out, it->layout);
			fputc(')', out);
			break;
		case I_KERNEL:
		case I_DEVICE:
			dump_kernel(out, it->kernel);
			break;
		}
		fputc('\n', out);
	}
}

const IsaInstr *
stmt_instr(const Stmt *s, int *cta_group)
{
	if (!s->instr)
		return isa_parse(s->opcode, cta_group);
	if (cta_group)
		*cta_group = s->cta_group;
	return s->instr;
}
