/* ir.c: the ir target (--emit=ir): the lowered program as readable text, one line per statement, in the
 * spelling of .tile expressions; tcgen05 instructions as the back ends spell them (docs/internals.md). */
#include <math.h>
#include <string.h>

#include "tilec.h"

typedef struct IrWriter {
	Buf *out;
	int indent;
} IrWriter;

static void expr(IrWriter *w, const IExpr *e);

/* An expression where it needs no parentheses of its own: a statement's value, an index, an argument. */
static void
expr_top(IrWriter *w, const IExpr *e)
{
	if (e->kind != IE_BINARY) {
		expr(w, e);
		return;
	}
	expr(w, e->a);
	buf_printf(w->out, " %s ", op_text(e->op));
	expr(w, e->b);
}

static void
line(IrWriter *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts a line at the current indent; the caller ends it. */
static void
line(IrWriter *w, const char *fmt, ...)
{
	for (int i = 0; i < w->indent; i++)
		buf_putc(w->out, '\t');
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(w->out, fmt, ap);
	va_end(ap);
}

/* "f32[128, 32]"; a global tensor whose shape is known at launch: "f32[M, N] stride (i64(N), 1ll)". */
static void
tensor_type(IrWriter *w, const Tensor *t)
{
	buf_printf(w->out, "%s[", etype_name(t->type));
	for (int i = 0; i < t->rank; i++) {
		buf_puts(w->out, i ? ", " : "");
		if (t->wide && t->rdims[i])
			expr_top(w, t->rdims[i]);
		else
			buf_printf(w->out, "%d", t->dims[i]);
	}
	buf_puts(w->out, "]");
	if (!t->wide)
		return;
	buf_puts(w->out, " stride (");
	for (int i = 0; i < t->rank; i++) {
		buf_puts(w->out, i ? ", " : "");
		expr_top(w, t->rstrides[i]);
	}
	buf_puts(w->out, ")");
}

/* A copy's access that is skipped outside its tensor's shape: the coordinates tested. */
static void
masked(IrWriter *w, const LStmt *s, const Tensor *t, IExpr *const *coords)
{
	if (!(s->mask_lo | s->mask_hi))
		return;
	buf_printf(w->out, " if %s[", t->name);
	for (int d = 0; d < t->rank; d++) {
		buf_puts(w->out, d ? ", " : "");
		expr_top(w, coords[d]);
	}
	buf_puts(w->out, "] is inside");
}

static void
literal(IrWriter *w, const IExpr *e)
{
	if (e->kind == IE_INT) {
		if (e->type == T_U32)
			buf_printf(w->out, "%lluu", (unsigned long long)(uint32_t)e->ival);
		else if (e->type == T_I64)
			buf_printf(w->out, "%lldll", (long long)e->ival);
		else
			buf_printf(w->out, "%lld", (long long)(int32_t)e->ival);
		return;
	}
	float f = (float)e->fval;
	if (isnan(f) || isinf(f)) {
		buf_puts(w->out, isnan(f) ? "nan" : f > 0 ? "inf" : "-inf");
		return;
	}
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.9g", (double)f);
	buf_printf(w->out, "%s%s", tmp, strpbrk(tmp, ".eEn") ? "" : ".0");
}

static void
expr(IrWriter *w, const IExpr *e)
{
	switch (e->kind) {
	case IE_INT:
	case IE_FLOAT:
		literal(w, e);
		break;
	case IE_VAR:
		buf_puts(w->out, e->var->cname);
		break;
	case IE_BUILTIN:
		buf_puts(w->out, builtin_name(e->builtin));
		break;
	case IE_LOAD:
	case IE_SADDR:
		buf_printf(w->out, "%s%s[", e->kind == IE_SADDR ? "&" : "", e->tensor->cname);
		expr_top(w, global_index(e->tensor, e->index));
		buf_puts(w->out, "]");
		break;
	case IE_REG:
		buf_printf(w->out, "%s.slot[%d]", e->tensor->cname, e->slot);
		break;
	case IE_UNARY:
		buf_printf(w->out, "(%s", op_text(e->op));
		expr(w, e->a);
		buf_puts(w->out, ")");
		break;
	case IE_BINARY:
		buf_puts(w->out, "(");
		expr(w, e->a);
		buf_printf(w->out, " %s ", op_text(e->op));
		expr(w, e->b);
		buf_puts(w->out, ")");
		break;
	case IE_SELECT:
		buf_puts(w->out, "select(");
		expr_top(w, e->a);
		buf_puts(w->out, ", ");
		expr_top(w, e->b);
		buf_puts(w->out, ", ");
		expr_top(w, e->index);
		buf_puts(w->out, ")");
		break;
	case IE_CONV:
		buf_printf(w->out, "%s(", etype_name(e->to));
		expr_top(w, e->a);
		buf_puts(w->out, ")");
		break;
	case IE_CALL:
		buf_printf(w->out, "%s(", func_name(e->fn));
		expr_top(w, e->a);
		for (const IExpr *more = e->b; more; more = more == e->b ? e->index : NULL) {
			buf_puts(w->out, ", ");
			expr_top(w, more);
		}
		buf_puts(w->out, ")");
		break;
	}
}

/* A register vector; a run of consecutive words of one tensor as NAME.word[FIRST..LAST]. */
static void
words(IrWriter *w, const LOperand *o)
{
	buf_puts(w->out, "{");
	for (int r = 0, end; r < o->nregs; r = end) {
		const RegRef *first = &o->regs[r];
		for (end = r + 1; end < o->nregs && o->regs[end].tensor == first->tensor &&
		                  o->regs[end].word == first->word + (end - r); end++)
			;
		buf_printf(w->out, "%s%s.word[%d", r ? ", " : "", first->tensor->cname, first->word);
		if (end - r > 1)
			buf_printf(w->out, "..%d", o->regs[end - 1].word);
		buf_puts(w->out, "]");
	}
	buf_puts(w->out, "}");
}

/* A tcgen05 instruction, with isa.c's spelling and the operands in PTX order. */
static void
tc(IrWriter *w, const LStmt *s)
{
	line(w, "%s", isa_format(s->instr, s->cta_group, &s->op));
	for (int i = 0; i < s->nops; i++) {
		const LOperand *o = &s->ops[i];
		buf_puts(w->out, i ? ", " : " ");
		buf_puts(w->out, o->slot->bracketed ? "[" : "");
		switch (o->slot->kind) {
		case IO_REG_VECTOR:
			words(w, o);
			break;
		case IO_SHARED_SLOT:
		case IO_TMEM_ADDR:
			expr_top(w, o->addr);
			break;
		case IO_NCOLS:
			buf_printf(w->out, "%d", (int)o->imm);
			break;
		case IO_IMM:
			buf_printf(w->out, "%u", o->imm);
			break;
		default:
			fatal("--emit=ir: no operand of kind %d yet", (int)o->slot->kind);
		}
		buf_puts(w->out, o->slot->bracketed ? "]" : "");
	}
	if (s->instr->use == ISA_STATEMENT)
		buf_printf(w->out, "\t// %s\n", s->kind == L_FENCE ? "placed by tilec next to cta_sync" : s->instr->does);
	else
		buf_puts(w->out, "\n");
}

static void stmts(IrWriter *w, const List *list);

bool
ir_declares(const List *body)
{
	for (int i = 0; i < body->n; i++) {
		LKind k = LIST_AT(*body, LStmt, i)->kind;
		if (k == L_LET || k == L_VAR || k == L_SHARED || k == L_REGS || k == L_TMEM)
			return true;
	}
	return false;
}

static void
block(IrWriter *w, const List *body)
{
	w->indent++;
	stmts(w, body);
	w->indent--;
}

static void
stmt(IrWriter *w, const LStmt *s)
{
	if (s->comment)
		line(w, "// %s\n", s->comment);
	switch (s->kind) {
	case L_LET:
	case L_VAR:
		line(w, "%s %s: %s", s->kind == L_LET ? "let" : "var", s->var->cname, etype_name(s->var->type));
		if (s->value) {
			buf_puts(w->out, " = ");
			expr_top(w, s->value);
		}
		buf_puts(w->out, "\n");
		break;
	case L_ASSIGN:
		line(w, "%s = ", s->var->cname);
		expr_top(w, s->value);
		buf_puts(w->out, "\n");
		break;
	case L_STORE:
		line(w, "%s[", s->tensor->cname);
		expr_top(w, global_index(s->tensor, s->index));
		buf_puts(w->out, "] = ");
		expr_top(w, s->value);
		masked(w, s, s->tensor, s->coords);
		buf_puts(w->out, "\n");
		break;
	case L_SHARED:
	case L_REGS:
		line(w, "%s %s: ", s->kind == L_SHARED ? "shared" : "local", s->tensor->cname);
		tensor_type(w, s->tensor);
		if (s->kind == L_REGS)
			buf_printf(w->out, " in %d register%s", s->tensor->words, s->tensor->words == 1 ? "" : "s");
		buf_puts(w->out, "\n");
		break;
	case L_REG_STORE:
		line(w, "%s.slot[%d] = ", s->tensor->cname, s->slot);
		expr_top(w, s->value);
		if (s->mask_lo | s->mask_hi) {
			const IExpr *m = s->value;
			while (m->kind == IE_CONV)
				m = m->a;
			masked(w, s, m->tensor, m->coords);
			buf_puts(w->out, ", else 0");
		}
		buf_puts(w->out, "\n");
		break;
	case L_TMEM:
		line(w, "tmem %s: ", s->tensor->cname);
		tensor_type(w, s->tensor);
		buf_puts(w->out, " at ");
		expr_top(w, s->value);
		buf_puts(w->out, "\n");
		break;
	case L_IF:
		line(w, "if ");
		expr_top(w, s->cond);
		buf_puts(w->out, " {\n");
		block(w, &s->body);
		if (s->els.n) {
			line(w, "} else {\n");
			block(w, &s->els);
		}
		line(w, "}\n");
		break;
	case L_FOR:
		line(w, "for %s in ", s->var->cname);
		expr_top(w, s->lo);
		buf_puts(w->out, " .. ");
		expr_top(w, s->hi);
		buf_puts(w->out, " {\n");
		block(w, &s->body);
		line(w, "}\n");
		break;
	case L_BLOCK:
		/* a scope only where it declares something (an unrolled iteration often does not) */
		if (!ir_declares(&s->body)) {
			stmts(w, &s->body);
			break;
		}
		line(w, "{\n");
		block(w, &s->body);
		line(w, "}\n");
		break;
	case L_BARRIER:
		line(w, "cta_sync\n");
		break;
	case L_WARP_SYNC:
		line(w, "warp_sync\n");
		break;
	case L_NAMED_BAR:
		line(w, "%s(%d, %d)\n", s->bar_arrive ? "bar_arrive" : "bar_sync", s->bar_id, s->bar_threads);
		break;
	case L_COPY:
		line(w, "%s.word[%d] = %s.word[%d]\n", s->regs[0].tensor->cname, s->regs[0].word, s->regs[1].tensor->cname,
		     s->regs[1].word);
		break;
	case L_FENCE:
	case L_TC:
		tc(w, s);
		break;
	}
}

static void
stmts(IrWriter *w, const List *list)
{
	for (int i = 0; i < list->n; i++)
		stmt(w, LIST_AT(*list, LStmt, i));
}

static void
kernel(IrWriter *w, KernelIR *k)
{
	buf_printf(w->out, "kernel %s grid (", k->name);
	for (int d = 0; d < 3; d++) {
		buf_puts(w->out, d ? ", " : "");
		if (k->grid_expr[d])
			expr_top(w, k->grid_expr[d]);
		else
			buf_printf(w->out, "%d", k->grid[d]);
	}
	buf_printf(w->out, ") block (%d, %d, %d)\n", k->block[0], k->block[1], k->block[2]);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (t) {
			buf_printf(w->out, "\tparam %s: ", t->cname);
			tensor_type(w, t);
			buf_puts(w->out, "\n");
		} else {
			Var *v = LIST_AT(k->params, Var, i);
			buf_printf(w->out, "\tparam %s: %s\n", v->cname, etype_name(v->type));
		}
	}
	buf_puts(w->out, "{\n");
	w->indent = 1;
	stmts(w, &k->body);
	buf_puts(w->out, "}\n");
}

/* A device function: its scope, its parameters as lowering declared them, its body (a kernel's call of it
   is the same body in place, a block commented with the call). */
static void
device(IrWriter *w, KernelIR *k)
{
	static const char *const scopes[] = {"warp", "warpgroup", "cta"};
	buf_printf(w->out, "device %s scope %s", k->name, scopes[k->scope]);
	if (k->has_block)
		buf_printf(w->out, " block %d", k->block[0]);
	buf_puts(w->out, "\n");
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		Tensor *t = dp->tensor;
		if (!t) {
			buf_printf(w->out, "\tparam %s: %s\n", dp->var->cname, etype_name(dp->var->type));
			continue;
		}
		static const char *const kinds[] = {[PK_VALUE] = "", [PK_SHARED] = "shared ", [PK_TMEM] = "tmem ",
		                                    [PK_LOCAL] = "local "};
		buf_printf(w->out, "\tparam %s: %s", t->cname, kinds[dp->kind]);
		tensor_type(w, t);
		if (dp->kind == PK_LOCAL)
			buf_printf(w->out, " in %d registers", t->words);
		if (dp->kind == PK_TMEM)
			buf_puts(w->out, " at the u32 address passed");
		buf_puts(w->out, "\n");
	}
	buf_puts(w->out, "{\n");
	w->indent = 1;
	stmts(w, &k->body);
	buf_puts(w->out, "}\n");
}

static bool
emit_ir(Program *p, const char *arch, Buf *out)
{
	IrWriter w = {out, 0};
	buf_printf(out, "// The lowered program of %s for %s (tilec %s, --emit=ir).\n", p->source_name, arch, TILEC_VERSION);
	for (int i = 0; i < p->devices.n; i++) {
		buf_puts(out, "\n");
		device(&w, LIST_AT(p->devices, KernelIR, i));
	}
	for (int i = 0; i < p->kernels.n; i++) {
		buf_puts(out, "\n");
		kernel(&w, LIST_AT(p->kernels, KernelIR, i));
	}
	return true;
}

const Target target_ir = {"the lowered program", emit_ir, NULL};
