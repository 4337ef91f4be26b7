/* emit_cu.c: writes the lowered program as self-contained CUDA C with one asm volatile per tcgen05 instruction;
 * with emu (--target=emu), the same program with each tcgen05 instruction a call into the emulator of
 * runtime/tilec_emu.h, which the output carries (see docs/emulator.md). */
#include <math.h>
#include <string.h>

#include "tilec.h"

/* runtime/tilec_emu.h as a C string, made by the Makefile (build/tilec_emu.inc). */
static const char emu_source[] =
#include "tilec_emu.inc"
	;

typedef struct Emitter {
	Buf *out;
	KernelIR *k;
	int indent;
	bool f2h, h2f, f2bf, bf2f; /* the conversion helpers the body uses */
	List pending;  /* RegRef*: registers loaded since the last wait::ld */
	List in_scope; /* Tensor*: local tensors whose registers are declared here */
	/* emu only */
	bool emu;
	const LStmt *cur;   /* the statement being emitted, for the emulator's messages */
	List ld_tensors;    /* Tensor*: local tensors that some tcgen05.ld of the kernel writes */
	List read_names;    /* const char*: the variables and tensors the kernel's code reads */
	List images;        /* Opcode*: one image table per shape and .xN */
} Emitter;

static Emitter E;


/* The C type of a scalar variable: 16-bit floats are held as float, rounded at each assignment. */
static const char *
var_ctype(EType t)
{
	return etype_is_float(t) ? "float" : etype_ctype(t);
}

static void
line_start(void)
{
	for (int i = 0; i < E.indent; i++)
		buf_putc(E.out, '\t');
}

static void expr(const IExpr *e);
static void expr_top(const IExpr *e);
static const char *unread(const char *cname);

static void
int_literal(int64_t v, EType t)
{
	if (t == T_U32)
		buf_printf(E.out, "%lluu", (unsigned long long)(uint32_t)v);
	else if (v == INT32_MIN)
		buf_puts(E.out, "(-2147483647 - 1)");
	else if (v < 0)
		buf_printf(E.out, "(%lld)", (long long)v);
	else
		buf_printf(E.out, "%lld", (long long)v);
}

static void
float_literal(double v)
{
	float f = (float)v;
	if (isnan(f)) {
		buf_puts(E.out, "__int_as_float(0x7fffffff)");
	} else if (isinf(f)) {
		buf_puts(E.out, f > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float((int)0xff800000u)");
	} else {
		char tmp[64];
		snprintf(tmp, sizeof tmp, "%.9g", (double)f);
		if (!strpbrk(tmp, ".eE"))
			strcat(tmp, ".0");
		buf_printf(E.out, f < 0 ? "(%sf)" : "%sf", tmp);
	}
}

static void
thread_linear(void)
{
	if (E.k->block[1] == 1 && E.k->block[2] == 1)
		buf_puts(E.out, "threadIdx.x");
	else
		buf_printf(E.out, "(threadIdx.x + %du * (threadIdx.y + %du * threadIdx.z))", E.k->block[0], E.k->block[1]);
}

static void
builtin(Builtin b)
{
	switch (b) {
	case B_THREAD_X: buf_puts(E.out, "(int)threadIdx.x"); break;
	case B_THREAD_Y: buf_puts(E.out, "(int)threadIdx.y"); break;
	case B_THREAD_Z: buf_puts(E.out, "(int)threadIdx.z"); break;
	case B_BLOCK_X: buf_puts(E.out, "(int)blockIdx.x"); break;
	case B_BLOCK_Y: buf_puts(E.out, "(int)blockIdx.y"); break;
	case B_BLOCK_Z: buf_puts(E.out, "(int)blockIdx.z"); break;
	case B_WARP_ID: buf_puts(E.out, "tl_warp_id"); break;
	case B_LANE_ID:
		buf_puts(E.out, "(int)(");
		thread_linear();
		buf_puts(E.out, " & 31u)");
		break;
	case B_WARPGROUP_ID: buf_puts(E.out, "(tl_warp_id >> 2)"); break;
	}
}

static const char *
binop_text(Op op)
{
	switch (op) {
	case OP_MUL: return "*";
	case OP_DIV: return "/";
	case OP_MOD: return "%";
	case OP_ADD: return "+";
	case OP_SUB: return "-";
	case OP_SHL: return "<<";
	case OP_SHR: return ">>";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_BITAND: return "&";
	case OP_BITXOR: return "^";
	case OP_BITOR: return "|";
	case OP_LAND: return "&&";
	case OP_LOR: return "||";
	case OP_NEG: return "-";
	case OP_NOT: return "!";
	case OP_BITNOT: return "~";
	default: return "?";
	}
}

/* Widens a stored element (its C storage value in text) to its value type. */
static void
widen(EType t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
widen(EType t, const char *fmt, ...)
{
	Buf inner = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&inner, fmt, ap);
	va_end(ap);
	switch (t) {
	case T_F16:
		E.h2f = true;
		buf_printf(E.out, "tl_h2f(%s)", inner.data);
		break;
	case T_BF16:
		E.bf2f = true;
		buf_printf(E.out, "tl_bf2f(%s)", inner.data);
		break;
	case T_F32:
	case T_U32:
		buf_puts(E.out, inner.data);
		break;
	default:
		buf_printf(E.out, "(int)%s", inner.data);
		break;
	}
	buf_free(&inner);
}

/* ---------------------------------------------------------------- emu helpers */

static bool
is_ld_tensor(const Tensor *t)
{
	for (int i = 0; i < E.ld_tensors.n; i++)
		if (LIST_AT(E.ld_tensors, Tensor, i) == t)
			return true;
	return false;
}

/* "file.tile:LINE" of the statement being emitted, as the body of a C string literal. */
static const char *
where(void)
{
	const char *path = E.cur && E.cur->loc.file >= 0 && E.cur->loc.file < source_count() ? source_path(E.cur->loc.file)
	                                                                                    : "?";
	const char *slash = strrchr(path, '/');
	Buf b = {0};
	for (const char *p = slash ? slash + 1 : path; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_putc(&b, '\\');
		if ((unsigned char)*p >= ' ' && *p != '?')
			buf_putc(&b, *p);
	}
	buf_printf(&b, ":%d", E.cur ? E.cur->loc.first_line : 0);
	char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* A register word as the generated code reads it: in emu, through the pending-load check. */
static const char *
reg_text(const Tensor *t, int word, const char *verb)
{
	if (!E.emu || !is_ld_tensor(t))
		return pool_printf("%s[%d]", t->cname, word);
	return pool_printf("tl_emu_rd(tl_pend_%s[%d] & 0x%xu, %s[%d], \"%s: register %d of '%s' %s\", tl_ld_where)",
	                   t->cname, word / 32, 1u << (word % 32), t->cname, word, where(), word, t->name, verb);
}

static void
register_read(const Tensor *t, int slot)
{
	int bits = etype_bits(t->type);
	int per = 32 / bits;
	int word = slot / per, part = slot % per;
	const char *reg = reg_text(t, word, "read");
	if (bits == 32) {
		if (t->type == T_F32)
			buf_printf(E.out, "__uint_as_float(%s)", reg);
		else if (t->type == T_I32)
			buf_printf(E.out, "(int)%s", reg);
		else
			buf_puts(E.out, reg);
		return;
	}
	const char *cast = t->type == T_I16 ? "(short)" : t->type == T_I8 ? "(signed char)"
	                   : t->type == T_U8 ? "(unsigned char)" : "(unsigned short)";
	if (part)
		widen(t->type, "%s(%s >> %d)", cast, reg, part * bits);
	else
		widen(t->type, "%s%s", cast, reg);
}

static void
convert(const IExpr *e)
{
	const IExpr *a = e->a;
	switch (e->to) {
	case T_F32:
		buf_puts(E.out, "(float)(");
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	case T_F16:
		E.h2f = E.f2h = true;
		buf_puts(E.out, "tl_h2f(tl_f2h((float)(");
		expr_top(a);
		buf_puts(E.out, ")))");
		break;
	case T_BF16:
		E.bf2f = E.f2bf = true;
		buf_puts(E.out, "tl_bf2f(tl_f2bf((float)(");
		expr_top(a);
		buf_puts(E.out, ")))");
		break;
	case T_I32:
		buf_puts(E.out, "(int)(");
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	case T_U32:
		buf_puts(E.out, "(unsigned)(");
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	default:
		buf_printf(E.out, "(int)(%s)(", etype_ctype(e->to));
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	}
}

/* An expression in a position that needs no parentheses of its own (a statement, an argument). */
static void
expr_top(const IExpr *e)
{
	if (e->kind == IE_BINARY && e->op != OP_NONE) {
		expr(e->a);
		buf_printf(E.out, " %s ", binop_text(e->op));
		expr(e->b);
	} else {
		expr(e);
	}
}

static void
expr(const IExpr *e)
{
	switch (e->kind) {
	case IE_INT:
		int_literal(e->ival, e->type);
		break;
	case IE_FLOAT:
		float_literal(e->fval);
		break;
	case IE_VAR:
		buf_puts(E.out, e->var->cname);
		break;
	case IE_BUILTIN:
		builtin(e->builtin);
		break;
	case IE_LOAD: {
		Buf idx = {0};
		Buf *saved = E.out;
		E.out = &idx;
		expr_top(e->index);
		E.out = saved;
		widen(e->tensor->type, "%s[%s]", e->tensor->cname, idx.data);
		buf_free(&idx);
		break;
	}
	case IE_SADDR:
		buf_printf(E.out, E.emu ? "tl_emu_saddr(&%s[" : "(unsigned)__cvta_generic_to_shared(&%s[", e->tensor->cname);
		expr_top(e->index);
		buf_puts(E.out, "])");
		break;
	case IE_REG:
		register_read(e->tensor, e->slot);
		break;
	case IE_UNARY:
		buf_printf(E.out, "(%s", binop_text(e->op));
		expr(e->a);
		buf_puts(E.out, ")");
		break;
	case IE_BINARY:
		if (e->op == OP_NONE) { /* select, built by apply for per-warp offsets */
			buf_puts(E.out, "(");
			expr(e->a);
			buf_puts(E.out, " ? ");
			expr(e->b);
			buf_puts(E.out, " : ");
			expr(e->index);
			buf_puts(E.out, ")");
			break;
		}
		buf_puts(E.out, "(");
		expr(e->a);
		buf_printf(E.out, " %s ", binop_text(e->op));
		expr(e->b);
		buf_puts(E.out, ")");
		break;
	case IE_CONV:
		convert(e);
		break;
	}
}

/* The bits to store for an element of type t, from a value already rounded to t. */
static void
stored_bits(EType t, const IExpr *value)
{
	if (value->kind == IE_CONV && value->to == t)
		value = value->a;
	if (value->type == t && (t == T_F32 || t == T_I32 || t == T_U32)) {
		expr_top(value);
		return;
	}
	switch (t) {
	case T_F32:
		buf_puts(E.out, "(float)(");
		break;
	case T_F16:
		E.f2h = true;
		buf_puts(E.out, "tl_f2h((float)(");
		break;
	case T_BF16:
		E.f2bf = true;
		buf_puts(E.out, "tl_f2bf((float)(");
		break;
	default:
		buf_printf(E.out, "(%s)(", etype_ctype(t));
		break;
	}
	expr_top(value);
	buf_puts(E.out, t == T_F16 || t == T_BF16 ? "))" : ")");
}

static void stmts(List *list);

static void
reg_operands(const LStmt *s, int first)
{
	for (int r = 0; r < s->nregs; r++) {
		buf_printf(E.out, "%s%%%d", r ? (r % 16 ? ", " : ",\"\n\t\t\"") : "", first + r);
	}
}

static void
reg_constraints(const LStmt *s, const char *constraint)
{
	for (int r = 0; r < s->nregs; r++) {
		if (r % 8 == 0) {
			buf_puts(E.out, "\n");
			line_start();
			buf_puts(E.out, "\t  ");
		}
		buf_printf(E.out, "\"%s\"(%s[%d])%s", constraint, s->regs[r].tensor->cname, s->regs[r].word,
		           r + 1 == s->nregs ? "" : r % 8 == 7 ? "," : ", ");
	}
}

static bool
tensor_in_scope(const Tensor *t)
{
	for (int i = 0; i < E.in_scope.n; i++)
		if (LIST_AT(E.in_scope, Tensor, i) == t)
			return true;
	return false;
}

/* wait::ld names the loaded registers as in-out operands so that no read of them moves above it. */
static void
wait_ld(void)
{
	List regs = {0};
	for (int i = 0; i < E.pending.n; i++) {
		RegRef *r = LIST_AT(E.pending, RegRef, i);
		bool dup = false;
		for (int j = 0; j < regs.n && !dup; j++) {
			RegRef *q = LIST_AT(regs, RegRef, j);
			dup = q->tensor == r->tensor && q->word == r->word;
		}
		if (!dup && tensor_in_scope(r->tensor))
			list_push(&regs, r);
	}
	E.pending.n = 0;
	for (int chunk = 0; chunk == 0 || chunk * 64 < regs.n; chunk++) {
		line_start();
		buf_printf(E.out, "asm volatile(\"%s\"", chunk ? "" : "tcgen05.wait::ld.sync.aligned;");
		int end = regs.n < (chunk + 1) * 64 ? regs.n : (chunk + 1) * 64;
		if (end > chunk * 64) {
			buf_puts(E.out, " :");
			for (int i = chunk * 64; i < end; i++) {
				RegRef *r = LIST_AT(regs, RegRef, i);
				if ((i - chunk * 64) % 8 == 0) {
					buf_puts(E.out, "\n");
					line_start();
					buf_puts(E.out, "\t  ");
				}
				buf_printf(E.out, "\"+r\"(%s[%d])%s", r->tensor->cname, r->word,
				           i + 1 == end ? "" : (i - chunk * 64) % 8 == 7 ? "," : ", ");
			}
			buf_puts(E.out, " :: \"memory\");\n");
		} else {
			buf_puts(E.out, " ::: \"memory\");\n");
		}
	}
}

/* The name of the image table of an opcode's shape and .xN (pack and direction do not change it). */
static const char *
image_name(const Opcode *op)
{
	bool known = false;
	for (int i = 0; i < E.images.n && !known; i++) {
		Opcode *o = LIST_AT(E.images, Opcode, i);
		known = o->shape == op->shape && o->n == op->n;
	}
	if (!known) {
		Opcode *copy = pool_alloc(sizeof *copy);
		*copy = *op;
		list_push(&E.images, copy);
	}
	return pool_printf("tl_img_%s_x%d", shape_name(op->shape), op->n);
}

/* Every table: entry [lane * regs + r] = row | access << 5 | column << 6, from image_cell(). */
static void
image_tables(Buf *out)
{
	for (int i = 0; i < E.images.n; i++) {
		Opcode *op = LIST_AT(E.images, Opcode, i);
		int regs = opcode_regs(op);
		buf_printf(out, "// tcgen05 %s.x%d, from tilec's image table: lane l, register r -> entry [l * %d + r] = "
		                "row | access << 5 | column << 6\n", shape_name(op->shape), op->n, regs);
		buf_printf(out, "static __device__ const unsigned short tl_img_%s_x%d[%d] = {", shape_name(op->shape), op->n,
		           32 * regs);
		for (int l = 0; l < 32; l++)
			for (int r = 0; r < regs; r++) {
				ImageCell c = image_cell(op, l, r);
				int k = l * regs + r;
				buf_printf(out, "%s%d", k == 0 ? "\n\t" : k % 16 ? ", " : ",\n\t", c.row | c.access << 5 | c.col << 6);
			}
		buf_puts(out, "\n};\n\n");
	}
}

static void
tc_emu(const LStmt *s)
{
	char text[96];
	const char *w = where();
	line_start();
	switch (s->tc) {
	case TC_ALLOC:
		buf_printf(E.out, "tl_emu_alloc(&tl_emu, &%s[", s->addr->tensor->cname);
		expr_top(s->addr->index);
		buf_printf(E.out, "], %d, \"%s: tcgen05.alloc.cta_group::%d\");\n", s->ncols, w, s->cta_group);
		return;
	case TC_DEALLOC:
		buf_puts(E.out, "tl_emu_dealloc(&tl_emu, ");
		expr_top(s->addr);
		buf_printf(E.out, ", %d, \"%s: tcgen05.dealloc.cta_group::%d\");\n", s->ncols, w, s->cta_group);
		return;
	case TC_RELINQUISH:
		buf_printf(E.out, "tl_emu_relinquish(&tl_emu, \"%s: tcgen05.relinquish_alloc_permit.cta_group::%d\");\n", w,
		           s->cta_group);
		return;
	case TC_WAIT_LD:
		buf_printf(E.out, "tl_emu_wait(\"%s: tcgen05.wait::ld\");\n", w);
		for (int i = 0; i < E.in_scope.n; i++) {
			Tensor *t = LIST_AT(E.in_scope, Tensor, i);
			if (!is_ld_tensor(t))
				continue;
			for (int k = 0; k < (t->words + 31) / 32; k++) {
				line_start();
				buf_printf(E.out, "tl_pend_%s[%d] = 0u;\n", t->cname, k);
			}
		}
		E.pending.n = 0;
		return;
	case TC_WAIT_ST:
		buf_printf(E.out, "tl_emu_wait(\"%s: tcgen05.wait::st\");\n", w);
		return;
	case TC_FENCE_BEFORE:
	case TC_FENCE_AFTER:
		buf_printf(E.out, "// tcgen05.fence::%s_thread_sync: nothing to emulate\n",
		           s->tc == TC_FENCE_BEFORE ? "before" : "after");
		return;
	case TC_LD:
	case TC_ST:
		break;
	}
	opcode_format(&s->op, text, sizeof text);
	const char *img = image_name(&s->op);
	bool ld = s->tc == TC_LD;
	buf_printf(E.out, "{\n");
	E.indent++;
	line_start();
	buf_printf(E.out, "unsigned tl_r[%d]", s->nregs);
	if (!ld) {
		buf_puts(E.out, " = {");
		for (int r = 0; r < s->nregs; r++) {
			if (r % 8 == 0) {
				buf_puts(E.out, "\n");
				line_start();
				buf_puts(E.out, "\t");
			}
			buf_printf(E.out, "%s%s", reg_text(s->regs[r].tensor, s->regs[r].word, "stored"),
			           r + 1 == s->nregs ? "" : r % 8 == 7 ? "," : ", ");
		}
		buf_puts(E.out, "}");
	}
	buf_puts(E.out, ";\n");
	line_start();
	buf_printf(E.out, "tl_emu_access(&tl_emu, %s, %d, %d, ", img, s->nregs, s->op.pack ? 1 : 0);
	expr_top(s->addr);
	buf_printf(E.out, ", %uu, %d, tl_r, \"%s: %s\");\n", s->imm, ld ? 1 : 0, w, text);
	if (ld) {
		for (int r = 0; r < s->nregs; r++) {
			if (r % 8 == 0)
				line_start();
			buf_printf(E.out, "%s[%d] = tl_r[%d];%s", s->regs[r].tensor->cname, s->regs[r].word, r,
			           r + 1 == s->nregs || r % 8 == 7 ? "\n" : " ");
		}
		/* the pending bits of the loaded words, a mask per 32 words */
		const Tensor *t = s->regs[0].tensor;
		for (int k = 0; k < (t->words + 31) / 32; k++) {
			unsigned mask = 0;
			for (int r = 0; r < s->nregs; r++)
				if (s->regs[r].tensor == t && s->regs[r].word / 32 == k)
					mask |= 1u << (s->regs[r].word % 32);
			if (mask) {
				line_start();
				buf_printf(E.out, "tl_pend_%s[%d] |= 0x%xu;\n", t->cname, k, mask);
			}
		}
		line_start();
		buf_printf(E.out, "tl_ld_where = \"%s: %s\";\n", w, text);
	}
	E.indent--;
	line_start();
	buf_puts(E.out, "}\n");
}

static void
tc(const LStmt *s)
{
	char text[96];
	if (E.emu) {
		tc_emu(s);
		return;
	}
	switch (s->tc) {
	case TC_ALLOC:
		line_start();
		buf_printf(E.out, "asm volatile(\"tcgen05.alloc.cta_group::%d.sync.aligned.shared::cta.b32 [%%0], %d;\" :: \"r\"(",
		           s->cta_group, s->ncols);
		expr(s->addr);
		buf_puts(E.out, ") : \"memory\");\n");
		return;
	case TC_DEALLOC:
		line_start();
		buf_printf(E.out, "asm volatile(\"tcgen05.dealloc.cta_group::%d.sync.aligned.b32 %%0, %d;\" :: \"r\"(",
		           s->cta_group, s->ncols);
		expr(s->addr);
		buf_puts(E.out, ") : \"memory\");\n");
		return;
	case TC_RELINQUISH:
		line_start();
		buf_printf(E.out, "asm volatile(\"tcgen05.relinquish_alloc_permit.cta_group::%d.sync.aligned;\" ::: \"memory\");\n",
		           s->cta_group);
		return;
	case TC_WAIT_LD:
		wait_ld();
		return;
	case TC_WAIT_ST:
		line_start();
		buf_puts(E.out, "asm volatile(\"tcgen05.wait::st.sync.aligned;\" ::: \"memory\");\n");
		return;
	case TC_FENCE_BEFORE:
		line_start();
		buf_puts(E.out, "asm volatile(\"tcgen05.fence::before_thread_sync;\" ::: \"memory\");\n");
		return;
	case TC_FENCE_AFTER:
		line_start();
		buf_puts(E.out, "asm volatile(\"tcgen05.fence::after_thread_sync;\" ::: \"memory\");\n");
		return;
	case TC_LD:
	case TC_ST:
		break;
	}
	opcode_format(&s->op, text, sizeof text);
	bool x2 = s->op.shape == SH_16X32BX2;
	line_start();
	if (s->tc == TC_LD) {
		buf_printf(E.out, "asm volatile(\"%s {", text);
		reg_operands(s, 0);
		buf_printf(E.out, "}, [%%%d]", s->nregs);
		if (x2)
			buf_printf(E.out, ", %u", s->imm);
		buf_puts(E.out, ";\"\n");
		line_start();
		buf_puts(E.out, "\t:");
		reg_constraints(s, "=r");
		buf_puts(E.out, "\n");
		line_start();
		buf_puts(E.out, "\t: \"r\"(");
		expr_top(s->addr);
		buf_puts(E.out, ") : \"memory\");\n");
		for (int r = 0; r < s->nregs; r++)
			list_push(&E.pending, &s->regs[r]);
	} else {
		buf_printf(E.out, "asm volatile(\"%s [%%0]", text);
		if (x2)
			buf_printf(E.out, ", %u", s->imm);
		buf_puts(E.out, ", {");
		reg_operands(s, 1);
		buf_puts(E.out, "};\"\n");
		line_start();
		buf_puts(E.out, "\t:: \"r\"(");
		expr_top(s->addr);
		buf_puts(E.out, "),");
		reg_constraints(s, "r");
		buf_puts(E.out, " : \"memory\");\n");
	}
}

static void
reg_store(const LStmt *s)
{
	const Tensor *t = s->tensor;
	int bits = etype_bits(t->type);
	int per = 32 / bits;
	int word = s->slot / per, shift = (s->slot % per) * bits;
	if (E.emu && is_ld_tensor(t)) {
		line_start();
		buf_printf(E.out, "tl_emu_wr(tl_pend_%s[%d] & 0x%xu, \"%s: register %d of '%s' written\", tl_ld_where);\n",
		           t->cname, word / 32, 1u << (word % 32), where(), word, t->name);
	}
	line_start();
	if (bits == 32) {
		buf_printf(E.out, "%s[%d] = ", t->cname, word);
		if (t->type == T_F32) {
			const IExpr *v = s->value->kind == IE_CONV && s->value->to == T_F32 ? s->value->a : s->value;
			buf_puts(E.out, "__float_as_uint(");
			if (v->type == T_F32)
				expr(v);
			else {
				buf_puts(E.out, "(float)(");
				expr(v);
				buf_puts(E.out, ")");
			}
			buf_puts(E.out, ");\n");
		} else {
			buf_puts(E.out, "(unsigned)(");
			expr(s->value);
			buf_puts(E.out, ");\n");
		}
		return;
	}
	unsigned mask = bits == 16 ? 0xffffu : 0xffu;
	buf_printf(E.out, "%s[%d] = (%s[%d] & 0x%08xu) | ((unsigned)(", t->cname, word, t->cname, word, ~(mask << shift));
	stored_bits(t->type, s->value);
	buf_printf(E.out, " & 0x%xu) << %d);\n", mask, shift);
}

static void
comment(const LStmt *s)
{
	if (!s->comment)
		return;
	line_start();
	buf_printf(E.out, "// %s\n", s->comment);
}

static bool
declares(const List *body)
{
	for (int i = 0; i < body->n; i++) {
		LKind k = LIST_AT(*body, LStmt, i)->kind;
		if (k == L_LET || k == L_VAR || k == L_SHARED || k == L_REGS || k == L_TMEM)
			return true;
	}
	return false;
}

static void
block(List *body)
{
	int scope = E.in_scope.n;
	E.indent++;
	stmts(body);
	E.indent--;
	E.in_scope.n = scope;
}

static void
stmt(const LStmt *s)
{
	E.cur = s;
	comment(s);
	switch (s->kind) {
	case L_LET:
		line_start();
		buf_printf(E.out, "%sconst %s %s = ", unread(s->var->cname), etype_ctype(s->var->type), s->var->cname);
		expr_top(s->value);
		buf_puts(E.out, ";\n");
		break;
	case L_VAR:
		line_start();
		buf_printf(E.out, "%s%s %s", unread(s->var->cname), var_ctype(s->var->type), s->var->cname);
		if (s->value) {
			buf_puts(E.out, " = ");
			expr_top(s->value);
		}
		buf_puts(E.out, ";\n");
		break;
	case L_ASSIGN:
		line_start();
		buf_printf(E.out, "%s = ", s->var->cname);
		expr_top(s->value);
		buf_puts(E.out, ";\n");
		break;
	case L_STORE:
		line_start();
		buf_printf(E.out, "%s[", s->tensor->cname);
		expr_top(s->index);
		buf_puts(E.out, "] = ");
		stored_bits(s->tensor->type, s->value);
		buf_puts(E.out, ";\n");
		break;
	case L_SHARED:
		line_start();
		buf_printf(E.out, "%s__shared__ __align__(16) %s %s[%d];\n", unread(s->tensor->cname), etype_ctype(s->tensor->type),
		           s->tensor->cname, s->tensor->count);
		break;
	case L_REGS:
		line_start();
		buf_printf(E.out, "%sunsigned %s[%d]%s;\n", unread(s->tensor->cname), s->tensor->cname, s->tensor->words,
		           etype_bits(s->tensor->type) < 32 ? " = {0}" : "");
		if (E.emu && is_ld_tensor(s->tensor)) {
			/* bit w % 32 of word w / 32: register w holds a tcgen05.ld's result not yet waited for */
			line_start();
			buf_printf(E.out, "unsigned tl_pend_%s[%d] = {0};\n", s->tensor->cname, (s->tensor->words + 31) / 32);
			line_start();
			buf_printf(E.out, "(void)tl_pend_%s;\n", s->tensor->cname);
		}
		list_push(&E.in_scope, s->tensor);
		break;
	case L_REG_STORE:
		reg_store(s);
		break;
	case L_TMEM:
		line_start();
		buf_printf(E.out, "%sconst unsigned %s = ", unread(s->tensor->cname), s->tensor->cname);
		expr_top(s->value);
		buf_puts(E.out, ";\n");
		break;
	case L_IF: {
		line_start();
		const LStmt *cur = s;
		buf_puts(E.out, "if (");
		for (;;) {
			expr_top(cur->cond);
			buf_puts(E.out, ") {\n");
			block((List *)&cur->body);
			line_start();
			if (cur->els.n == 1 && LIST_AT(cur->els, LStmt, 0)->kind == L_IF &&
			    !LIST_AT(cur->els, LStmt, 0)->comment) {
				cur = LIST_AT(cur->els, LStmt, 0);
				buf_puts(E.out, "} else if (");
				continue;
			}
			if (cur->els.n) {
				buf_puts(E.out, "} else {\n");
				block((List *)&cur->els);
				line_start();
			}
			buf_puts(E.out, "}\n");
			break;
		}
		break;
	}
	case L_FOR:
		line_start();
		buf_printf(E.out, "for (int %s = ", s->var->cname);
		expr_top(s->lo);
		buf_printf(E.out, "; %s < ", s->var->cname);
		expr_top(s->hi);
		buf_printf(E.out, "; %s++) {\n", s->var->cname);
		block((List *)&s->body);
		line_start();
		buf_puts(E.out, "}\n");
		break;
	case L_BLOCK:
		if (!declares(&s->body)) {
			stmts((List *)&s->body);
			break;
		}
		line_start();
		buf_puts(E.out, "{\n");
		block((List *)&s->body);
		line_start();
		buf_puts(E.out, "}\n");
		break;
	case L_BARRIER:
		if (E.emu) {
			line_start();
			buf_puts(E.out, "__syncthreads();\n");
			break;
		}
		if (s->fence_before) {
			line_start();
			buf_puts(E.out, "asm volatile(\"tcgen05.fence::before_thread_sync;\" ::: \"memory\");\n");
		}
		line_start();
		buf_puts(E.out, "__syncthreads();\n");
		if (s->fence_after) {
			line_start();
			buf_puts(E.out, "asm volatile(\"tcgen05.fence::after_thread_sync;\" ::: \"memory\");\n");
		}
		break;
	case L_WARP_SYNC:
		line_start();
		buf_puts(E.out, "__syncwarp();\n");
		break;
	case L_COPY:
		line_start();
		buf_printf(E.out, "%s[%d] = %s;\n", s->regs[0].tensor->cname, s->regs[0].word,
		           reg_text(s->regs[1].tensor, s->regs[1].word, "read"));
		break;
	case L_TC:
		tc(s);
		break;
	}
}

static void
stmts(List *list)
{
	for (int i = 0; i < list->n; i++)
		stmt(LIST_AT(*list, LStmt, i));
}

static bool
uses_builtin(const IExpr *e, Builtin b);

static bool
list_uses_warp(List *list)
{
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (uses_builtin(s->value, B_WARP_ID) || uses_builtin(s->cond, B_WARP_ID) ||
		    uses_builtin(s->addr, B_WARP_ID) || uses_builtin(s->index, B_WARP_ID) ||
		    uses_builtin(s->lo, B_WARP_ID) || uses_builtin(s->hi, B_WARP_ID) ||
		    uses_builtin(s->value, B_WARPGROUP_ID) || uses_builtin(s->cond, B_WARPGROUP_ID) ||
		    uses_builtin(s->addr, B_WARPGROUP_ID) || uses_builtin(s->index, B_WARPGROUP_ID) ||
		    list_uses_warp(&s->body) || list_uses_warp(&s->els))
			return true;
	}
	return false;
}

static bool
uses_builtin(const IExpr *e, Builtin b)
{
	if (!e)
		return false;
	if (e->kind == IE_BUILTIN)
		return e->builtin == b;
	return uses_builtin(e->a, b) || uses_builtin(e->b, b) || uses_builtin(e->index, b);
}

static void
collect_ld_tensors(List *list)
{
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_TC && s->tc == TC_LD && s->nregs > 0 && !is_ld_tensor(s->regs[0].tensor))
			list_push(&E.ld_tensors, s->regs[0].tensor);
		collect_ld_tensors(&s->body);
		collect_ld_tensors(&s->els);
	}
}

/* The CPU entry of a kernel: its arguments as cuLaunchKernel's kernelParams, the grid run block by block. */
static void
cpu_launcher(KernelIR *k)
{
	buf_printf(E.out, "\n#ifndef __CUDACC__\n"
	                  "static void tl_emu_entry_%s(void **tl_args)\n{\n\t%s(", k->name, k->name);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		Var *v = LIST_AT(k->params, Var, i);
		const char *type = t ? etype_ctype(t->type) : etype_is_float(v->type) ? "float" : etype_ctype(v->type);
		buf_printf(E.out, "%s*(%s %s*)tl_args[%d]", i ? ", " : "", type, t ? "*" : "", i);
	}
	buf_printf(E.out, ");\n}\n\n"
	                  "// Runs %s's grid on the CPU; tl_args as cuLaunchKernel's kernelParams.\n"
	                  "extern \"C\" void tl_emu_launch_%s(void **tl_args)\n{\n"
	                  "\tstatic const unsigned grid[3] = {%du, %du, %du}, block[3] = {%du, %du, %du};\n"
	                  "\ttl_cpu_launch(grid, block, tl_emu_entry_%s, tl_args);\n}\n#endif\n",
	           k->name, k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->name);
}

static void
note_read(const char *cname)
{
	for (int i = 0; i < E.read_names.n; i++)
		if (strcmp(LIST_AT(E.read_names, char, i), cname) == 0)
			return;
	list_push(&E.read_names, (void *)cname);
}

static void
collect_expr_reads(const IExpr *e)
{
	if (!e)
		return;
	if (e->kind == IE_VAR)
		note_read(e->var->cname);
	if (e->tensor)
		note_read(e->tensor->cname);
	collect_expr_reads(e->a);
	collect_expr_reads(e->b);
	collect_expr_reads(e->index);
}

static void
collect_reads(const List *list)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		collect_expr_reads(s->value);
		collect_expr_reads(s->index);
		collect_expr_reads(s->cond);
		collect_expr_reads(s->lo);
		collect_expr_reads(s->hi);
		collect_expr_reads(s->addr);
		for (int r = 0; r < s->nregs; r++)
			note_read(s->regs[r].tensor->cname);
		if (s->kind == L_STORE || s->kind == L_REG_STORE)
			note_read(s->tensor->cname);
		collect_reads(&s->body);
		collect_reads(&s->els);
	}
}

/* A declaration the code never reads says so: the CUDA C compiles without warnings. */
static const char *
unread(const char *cname)
{
	for (int i = 0; i < E.read_names.n; i++)
		if (strcmp(LIST_AT(E.read_names, char, i), cname) == 0)
			return "";
	return "[[maybe_unused]] ";
}

static void
kernel(KernelIR *k)
{
	E.k = k;
	E.indent = 1;
	E.pending = (List){0};
	E.in_scope = (List){0};
	E.ld_tensors = (List){0};
	E.cur = NULL;
	E.read_names = (List){0};
	collect_reads(&k->body);
	if (E.emu) {
		collect_ld_tensors(&k->body);
		unsigned long long blocks = (unsigned long long)k->grid[0] * k->grid[1] * k->grid[2];
		buf_printf(E.out, "// the tensor memory of %s's blocks: 128 lanes x 512 columns each\n"
		                  "__device__ unsigned tl_emu_tmem_%s[%lluull * TL_EMU_CELLS];\n\n", k->name, k->name, blocks);
	}
	buf_printf(E.out, "extern \"C\" __global__ void __launch_bounds__(%d) %s(", k->threads, k->name);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (i)
			buf_puts(E.out, ", ");
		if (t) {
			buf_printf(E.out, "%s *__restrict__ %s", etype_ctype(t->type), t->cname);
		} else {
			Var *v = LIST_AT(k->params, Var, i);
			buf_printf(E.out, "%s %s", etype_is_float(v->type) ? "float" : etype_ctype(v->type), v->cname);
		}
	}
	buf_puts(E.out, ")\n{\n");
	if (E.emu) {
		buf_printf(E.out, "\t__shared__ TlEmuCta tl_emu;\n\ttl_emu_begin(&tl_emu, tl_emu_tmem_%s);\n", k->name);
		if (E.ld_tensors.n)
			buf_puts(E.out, "\tconst char *tl_ld_where = \"\";\n\t(void)tl_ld_where;\n");
	}
	if (list_uses_warp(&k->body)) {
		/* a plain shift: ptxas finds it uniform, and a shuffle would keep it live in a register */
		buf_puts(E.out, "\tconst int tl_warp_id = (int)(");
		thread_linear();
		buf_puts(E.out, " >> 5);\n");
	}
	stmts(&k->body);
	if (E.emu)
		buf_printf(E.out, "\ttl_emu_end(&tl_emu, \"%s\");\n", k->name);
	buf_puts(E.out, "}\n\n");
	buf_printf(E.out, "// launch configuration for libtilert: grid x, y, z, block x, y, z\n"
	                  "extern \"C\" __device__ const unsigned tilec_launch_%s[6] = {%d, %d, %d, %d, %d, %d};\n",
	           k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2]);
	if (E.emu)
		cpu_launcher(k);
}

bool
emit_cuda(Program *p, const char *arch, bool emu, Buf *out)
{
	Buf body = {0};
	E = (Emitter){0};
	E.out = &body;
	E.emu = emu;
	for (int i = 0; i < p->kernels.n; i++) {
		if (i)
			buf_puts(&body, "\n");
		kernel(LIST_AT(p->kernels, KernelIR, i));
	}
	if (emu) {
		/* the emulator defines tl_f2h, tl_h2f, tl_f2bf and tl_bf2f for both the GPU and the CPU */
		buf_printf(out, "// Generated by tilec %s from %s for --target=emu: tcgen05 emulated, for nvcc -arch=sm_80 or "
		                "later, or C++ on the CPU. Do not edit.\n\n", TILEC_VERSION, p->source_name);
		buf_puts(out, emu_source);
		buf_puts(out, "\n");
		image_tables(out);
		buf_puts(out, body.data ? body.data : "");
		buf_free(&body);
		return true;
	}
	buf_printf(out, "// Generated by tilec %s from %s for %s. Do not edit.\n\n", TILEC_VERSION, p->source_name, arch);
	/* only the helpers the body calls: nvcc warns about a static function never referenced */
	if (E.f2h)
		buf_puts(out, "static __device__ __forceinline__ unsigned short tl_f2h(float x)\n"
		              "{\n\tunsigned short h;\n\tasm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(x));\n\treturn h;\n}\n\n");
	if (E.h2f)
		buf_puts(out, "static __device__ __forceinline__ float tl_h2f(unsigned short h)\n"
		              "{\n\tfloat x;\n\tasm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(x) : \"h\"(h));\n\treturn x;\n}\n\n");
	if (E.f2bf)
		buf_puts(out, "static __device__ __forceinline__ unsigned short tl_f2bf(float x)\n"
		              "{\n\tunsigned short h;\n\tasm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(x));\n\treturn h;\n}\n\n");
	if (E.bf2f)
		buf_puts(out, "static __device__ __forceinline__ float tl_bf2f(unsigned short h)\n"
		              "{\n\treturn __uint_as_float((unsigned)h << 16);\n}\n\n");
	buf_puts(out, body.data ? body.data : "");
	buf_free(&body);
	return true;
}
