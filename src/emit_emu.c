/* emit_emu.c: the emu target: emit_cu.c's CUDA C with each tcgen05 instruction a call into the emulator of
 * runtime/tilec_emu.h, which the output carries; for any GPU from sm_80 and for the CPU (docs/emulator.md). */
#include <string.h>

#include "tilec.h"

/* runtime/tilec_emu.h as a C string, made by the Makefile (build/tilec_emu.inc). */
static const char emu_source[] =
#include "tilec_emu.inc"
	;

static struct {
	List ld_tensors; /* Tensor*: local tensors that some tcgen05.ld of the kernel writes */
	List images;     /* Opcode*: one image table per shape and .xN */
	bool has_cp;     /* the kernel issues a cp or mma: its commit and wait go through tilec_emu_cp.h */
	bool has_mma;    /* the kernel issues an mma: its commit and wait go through tilec_emu_mma.h */
	bool has_shared; /* the kernel declares shared tensors: on the GPU in dynamic shared memory (emu_shared) */
	long long shared_bytes; /* the dynamic shared memory that the kernel's shared tensors declared so far take */
} M;

static bool has_cp(const List *list);
static bool has_tc(const List *list, TcKind kind);

static bool
is_ld_tensor(const Tensor *t)
{
	return list_has(&M.ld_tensors, t);
}

/* "file.tile:LINE" of the statement being written, as the body of a C string literal. */
static const char *
where(CuWriter *w)
{
	return emu_where(w->cur ? w->cur->loc : no_loc);
}

const char *
emu_where(Loc loc)
{
	const char *path = loc.file >= 0 && loc.file < source_count() ? source_path(loc.file) : "?";
	const char *slash = strrchr(path, '/');
	Buf b = {0};
	for (const char *p = slash ? slash + 1 : path; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_putc(&b, '\\');
		if ((unsigned char)*p >= ' ' && *p != '?')
			buf_putc(&b, *p);
	}
	buf_printf(&b, ":%d", loc.first_line);
	char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* The elements of a register tensor's type in one 32-bit register word. */
static int
per_word(const Tensor *t)
{
	return 32 / etype_bits(t->type);
}

/* The number of the site (statement, tensor, verb) of a register read in TargetOptions.poison. */
static unsigned
poison_site(CuWriter *w, const Tensor *t, const char *verb)
{
	Loc loc = w->cur ? w->cur->loc : no_loc;
	EmuPoison *poison = w->opt->poison;
	for (int i = 0; i < poison->sites.n; i++) {
		EmuPoisonSite *s = LIST_AT(poison->sites, EmuPoisonSite, i);
		if (s->tensor == t && s->verb == verb && s->loc.file == loc.file && s->loc.first_line == loc.first_line &&
		    s->loc.first_column == loc.first_column)
			return (unsigned)i;
	}
	EmuPoisonSite *s = pool_alloc(sizeof *s);
	*s = (EmuPoisonSite){loc, t, verb};
	list_push(&poison->sites, s);
	return (unsigned)(poison->sites.n - 1);
}

/* A read of a register word goes through the pending-load check, and for tilec run through the test that
   the elements it uses were written (a move into another register only moves their shadow). */
static const char *
emu_reg(CuWriter *w, const Tensor *t, int word, int slot, const char *verb)
{
	const char *v = !is_ld_tensor(t) ? pool_printf("%s[%d]", t->cname, word)
	                : pool_printf("tl_emu_rd(tl_pend_%s[%d] & 0x%xu, %s[%d], \"%s: register %d of '%s' %s\", tl_ld_where)",
	                              t->cname, word / 32, 1u << (word % 32), t->cname, word, where(w), word, t->name, verb);
	if (!w->opt->poison || strcmp(verb, "copied") == 0)
		return v;
	int per = per_word(t);
	unsigned need = slot < 0 ? (1u << per) - 1 : 1u << (slot % per);
	unsigned site = poison_site(w, t, strcmp(verb, "stored") == 0 ? "stores" : "reads");
	return pool_printf("tl_emu_chk(tl_ok_%s[%d], 0x%xu, %uu, %du, %du, %s)", t->cname, word, need, site, word, per, v);
}

static void
emu_reg_written(CuWriter *w, const Tensor *t, int word, int slot)
{
	if (w->opt->poison) {
		cu_line_start(w);
		buf_printf(w->out, "tl_ok_%s[%d] |= 0x%xu;\n", t->cname, word, 1u << (slot % per_word(t)));
	}
	if (!is_ld_tensor(t))
		return;
	cu_line_start(w);
	buf_printf(w->out, "tl_emu_wr(tl_pend_%s[%d] & 0x%xu, \"%s: register %d of '%s' written\", tl_ld_where);\n",
	           t->cname, word / 32, 1u << (word % 32), where(w), word, t->name);
}

static void
emu_reg_copied(CuWriter *w, const RegRef *dst, const RegRef *src)
{
	if (!w->opt->poison)
		return;
	cu_line_start(w);
	buf_printf(w->out, "tl_ok_%s[%d] = tl_ok_%s[%d];\n", dst->tensor->cname, dst->word, src->tensor->cname, src->word);
}

/* The pending-load masks of a register tensor that some tcgen05.ld writes. */
static void
pending_declared(CuWriter *w, const Tensor *t)
{
	if (!is_ld_tensor(t))
		return;
	/* bit w % 32 of word w / 32: register w holds a tcgen05.ld's result not yet waited for */
	cu_line_start(w);
	buf_printf(w->out, "unsigned tl_pend_%s[%d] = {0};\n", t->cname, (t->words + 31) / 32);
	cu_line_start(w);
	buf_printf(w->out, "(void)tl_pend_%s;\n", t->cname);
}

/* A register tensor starts as poison, on the CPU and the GPU alike (docs/emulator.md): 0x7fbadbad in each
   word of 32-bit elements (a NaN as f32), 0x7fba in each 16-bit element (a NaN as f16 and bf16), 0xba in
   each byte; tilec run also keeps the shadow of the elements written, none yet. */
static void
emu_regs_declared(CuWriter *w, const Tensor *t)
{
	int bits = etype_bits(t->type);
	unsigned poison = bits == 32 ? 0x7fbadbadu : bits == 16 ? 0x7fba7fbau : 0xbabababau;
	for (int i = 0; i < t->words; i++) {
		if (i % 8 == 0)
			cu_line_start(w);
		buf_printf(w->out, "%s[%d] = ", t->cname, i);
		if (i % 8 == 7 || i + 1 == t->words)
			buf_printf(w->out, "0x%08xu;\n", poison);
	}
	if (w->opt->poison) {
		cu_line_start(w);
		buf_printf(w->out, "unsigned tl_ok_%s[%d] = {0};\n", t->cname, t->words);
	}
	pending_declared(w, t);
}

/* The name of the image table of an opcode's shape and .xN (pack and direction do not change it). */
static const char *
image_name(const Opcode *op)
{
	bool known = false;
	for (int i = 0; i < M.images.n && !known; i++) {
		Opcode *o = LIST_AT(M.images, Opcode, i);
		known = o->shape == op->shape && o->n == op->n;
	}
	if (!known) {
		Opcode *copy = pool_alloc(sizeof *copy);
		*copy = *op;
		list_push(&M.images, copy);
	}
	return pool_printf("tl_img_%s_x%d", shape_name(op->shape), op->n);
}

/* Every table: entry [lane * regs + r] = row | access << 5 | column << 6, from image_cell(). */
static void
image_tables(CuWriter *w, Buf *out)
{
	for (int i = 0; i < M.images.n; i++) {
		Opcode *op = LIST_AT(M.images, Opcode, i);
		int regs = opcode_regs(op);
		cu_guard_begin(w, out, pool_printf("tl_img_%s_x%d", shape_name(op->shape), op->n));
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
		cu_guard_end(w, out);
	}
}

/* The arguments of a tcgen05 instruction's runtime call: every operand of its row in order, ", " before
 * each; an operand the qualifiers leave out is 0 (ld / st without .16x32bx2), and the register vector is
 * passed as tl_r by the caller. */
static void
emu_operands(CuWriter *w, const LStmt *s)
{
	Buf *out = w->out;
	for (int i = 0; i < s->instr->noperands; i++) {
		const IsaOperandSlot *slot = &s->instr->operands[i];
		const LOperand *o = NULL;
		for (int k = 0; k < s->nops && !o; k++)
			o = s->ops[k].slot == slot ? &s->ops[k] : NULL;
		switch (slot->kind) {
		case IO_REG_VECTOR:
		case IO_REG:
			continue;
		case IO_SHARED_SLOT:
			buf_printf(out, ", &%s[", o->addr->tensor->cname);
			cu_expr(w, o->addr->index);
			buf_puts(out, "]");
			break;
		case IO_TMEM_ADDR:
			buf_puts(out, ", ");
			cu_expr(w, o->addr);
			break;
		case IO_NCOLS:
			buf_printf(out, ", %d", (int)o->imm);
			break;
		case IO_IMM:
			buf_printf(out, ", %uu", o ? o->imm : 0);
			break;
		default:
			fatal("emu: no operand of kind %d yet", (int)slot->kind);
		}
	}
}

/* tcgen05.ld.red's result from the words it loaded (tl_r): tl_emu_ld_red, written into the programs that
   use it only (emu_ld_red_source), then the result's pending bit and, for tilec run, its shadow: written
   where every loaded word was (the first one that was not, otherwise). */
static void
emu_red(CuWriter *w, const LStmt *s, const RegRef *red, int nregs)
{
	Buf *out = w->out;
	const Tensor *t = red->tensor;
	cu_line_start(w);
	buf_printf(out, "%s[%d] = tl_emu_ld_red(tl_r, %d, %d, %d, %d, %d);\n", t->cname, red->word, nregs,
	           s->op.red == RED_MAX, (int)s->op.red_type, s->op.red_abs, s->op.red_nan);
	if (w->opt->poison) {
		cu_line_start(w);
		buf_printf(out, "tl_ok_%s[%d] = tl_emu_parts(tl_hw[0], 1);\n", t->cname, red->word);
		cu_line_start(w);
		buf_printf(out, "for (int tl_k = 1; tl_k < %d; tl_k++) if ((tl_ok_%s[%d] & 1u) == 1u) tl_ok_%s[%d] = "
		                "tl_emu_parts(tl_hw[tl_k], 1);\n", nregs, t->cname, red->word, t->cname, red->word);
	}
	cu_line_start(w);
	buf_printf(out, "tl_pend_%s[%d] |= 0x%xu;\n", t->cname, red->word / 32, 1u << (red->word % 32));
}

/* A tcgen05.ld or tcgen05.st: the registers through tl_r, the access through the image table. */
static void
emu_access(CuWriter *w, const LStmt *s, const char *at)
{
	char text[96];
	Buf *out = w->out;
	opcode_format(&s->op, text, sizeof text);
	const char *img = image_name(&s->op);
	bool ld = tc_loads(s);
	const LOperand *v = tc_operand(s, IO_REG_VECTOR);
	const LOperand *red = tc_operand(s, IO_REG);
	buf_printf(out, "{\n");
	w->indent++;
	cu_line_start(w);
	if (ld && w->opt->poison) {
		cu_line_start(w);
		buf_printf(out, "unsigned tl_hw[%d];\n", v->nregs);
		cu_line_start(w);
	}
	buf_printf(out, "unsigned tl_r[%d]", v->nregs);
	if (!ld) {
		buf_puts(out, " = {");
		for (int r = 0; r < v->nregs; r++) {
			if (r % 8 == 0) {
				buf_puts(out, "\n");
				cu_line_start(w);
				buf_puts(out, "\t");
			}
			buf_printf(out, "%s%s", emu_reg(w, v->regs[r].tensor, v->regs[r].word, -1, "stored"),
			           r + 1 == v->nregs ? "" : r % 8 == 7 ? "," : ", ");
		}
		buf_puts(out, "}");
	}
	buf_puts(out, ";\n");
	cu_line_start(w);
	buf_printf(out, "tl_emu_access(&tl_emu, %s, %d, %d", img, v->nregs, s->op.pack ? 1 : 0);
	emu_operands(w, s);
	buf_printf(out, ", %d, tl_r, \"%s: %s\"%s);\n", ld ? 1 : 0, at, text, ld && w->opt->poison ? ", tl_hw" : "");
	if (ld) {
		for (int r = 0; r < v->nregs; r++) {
			if (r % 8 == 0)
				cu_line_start(w);
			buf_printf(out, "%s[%d] = tl_r[%d];%s", v->regs[r].tensor->cname, v->regs[r].word, r,
			           r + 1 == v->nregs || r % 8 == 7 ? "\n" : " ");
		}
		for (int r = 0; r < v->nregs && w->opt->poison; r++) {
			if (r % 4 == 0)
				cu_line_start(w);
			buf_printf(out, "tl_ok_%s[%d] = tl_emu_parts(tl_hw[%d], %d);%s", v->regs[r].tensor->cname, v->regs[r].word,
			           r, per_word(v->regs[r].tensor), r + 1 == v->nregs || r % 4 == 3 ? "\n" : " ");
		}
		if (red)
			emu_red(w, s, red->regs, v->nregs);
		/* the pending bits of the loaded words, a mask per 32 words */
		const Tensor *t = v->regs[0].tensor;
		for (int k = 0; k < (t->words + 31) / 32; k++) {
			unsigned mask = 0;
			for (int r = 0; r < v->nregs; r++)
				if (v->regs[r].tensor == t && v->regs[r].word / 32 == k)
					mask |= 1u << (v->regs[r].word % 32);
			if (mask) {
				cu_line_start(w);
				buf_printf(out, "tl_pend_%s[%d] |= 0x%xu;\n", t->cname, k, mask);
			}
		}
		cu_line_start(w);
		buf_printf(out, "tl_ld_where = \"%s: %s\";\n", at, text);
	}
	w->indent--;
	cu_line_start(w);
	buf_puts(out, "}\n");
}

static void
emu_tc(CuWriter *w, const LStmt *s)
{
	const char *at = where(w);
	Buf *out = w->out;
	cu_line_start(w);
	TcKind kind = s->instr->kind;
	switch (kind) {
	case TC_ALLOC:
	case TC_DEALLOC:
	case TC_RELINQUISH:
		buf_printf(out, "tl_emu_%s(&tl_emu", kind == TC_ALLOC ? "alloc" : kind == TC_DEALLOC ? "dealloc" : "relinquish");
		emu_operands(w, s);
		buf_printf(out, ", \"%s: %s\");\n", at, isa_name(kind, s->cta_group));
		return;
	case TC_WAIT_LD:
		buf_printf(out, "tl_emu_wait(\"%s: %s\");\n", at, isa_name(kind, 0));
		for (int i = 0; i < w->in_scope.n; i++) {
			Tensor *t = LIST_AT(w->in_scope, Tensor, i);
			if (!is_ld_tensor(t))
				continue;
			for (int k = 0; k < (t->words + 31) / 32; k++) {
				cu_line_start(w);
				buf_printf(out, "tl_pend_%s[%d] = 0u;\n", t->cname, k);
			}
		}
		w->pending.n = 0;
		return;
	case TC_WAIT_ST:
		buf_printf(out, "tl_emu_wait(\"%s: %s\", 1);\n", at, isa_name(kind, 0));
		return;
	case TC_FENCE_BEFORE:
	case TC_FENCE_AFTER:
		buf_printf(out, "// %s: nothing to emulate\n", isa_name(kind, 0));
		return;
	case TC_LD:
	case TC_LD_RED:
	case TC_ST:
		emu_access(w, s, at);
		return;
	case TC_CP: {
		/* the window is the shared tensor's first byte: the CPU's shared addresses do not fit the descriptor */
		const LOperand *t = tc_operand(s, IO_TMEM_ADDR), *d = tc_operand(s, IO_SHARED_DESC64);
		const IExpr *sa = d->addr->kind == IE_SADDR ? d->addr : d->addr->a;
		const CpLaneRule *rule = cp_lane_rule(s->cp->route);
		if (s->mbar_elect)
			buf_printf(out, "if (tl_emu_elect(%d)) ", s->elect_lane);
		SmemSwizzle sw;
		if (!smem_swizzle_of_code((int)(d->desc >> 61), &sw))
			fatal("emu_tc: a cp descriptor with layout code %d", (int)(d->desc >> 61));
		const SwizzleInfo *swi = smem_swizzle_info(sw);
		buf_printf(out, "tl_emu_cp%s(&tl_emu, &%s[0], 0x%016llxull, %d, %d, %d, ", s->cta_group == 2 ? "_pair" : "",
		           sa->tensor->cname,
		           (unsigned long long)(d->desc | d->imm >> 4), swi->width, swi->xor_mask, swi->xor_at);
		cu_expr(w, t->addr);
		buf_printf(out, ", %d, %d, %d, %d, %d, %d, %d, %d, \"%s: %s\");\n", cp_rows(s->cp->route),
		           cp_chunks(s->cp->route), cp_replicas(s->cp->route), rule->group, rule->group_step, rule->row_step,
		           rule->replica_step, (int)s->cp->decomp, at, cp_form_spelling(s->cp));
		return;
	}
	case TC_MMA: {
		/* executed from its encoding (tilec_emu_mma.h); windows: the shared tensors' first bytes */
		const LOperand *t = tc_operand(s, IO_TMEM_ADDR), *d = tc_operand(s, IO_SHARED_DESC64);
		if (s->mbar_elect)
			buf_printf(out, "if (tl_emu_elect(%d)) ", s->elect_lane);
		if (s->mma->a_tmem) { /* A from TMEM: its address, then B's window and descriptor */
			buf_puts(out, "tl_emu_mma_ts(&tl_emu, ");
			cu_expr(w, t[1].addr);
		} else {
			buf_puts(out, s->mma->scale_vec ? "tl_emu_mma_scaled(&tl_emu"
			              : s->cta_group == 2 ? "tl_emu_mma_pair(&tl_emu" : "tl_emu_mma(&tl_emu");
		}
		for (int i = 0; i < 2 - s->mma->a_tmem; i++) {
			/* the window: the operand's tile (a run-time stage of a stack: its first element) */
			const IExpr *sa = d[i].addr->kind == IE_SADDR ? d[i].addr : d[i].addr->a;
			buf_printf(out, ", &%s[", sa->tensor->cname);
			cu_expr(w, sa->index);
			buf_printf(out, "], 0x%016llxull", (unsigned long long)(d[i].desc | d[i].imm >> 4));
		}
		buf_puts(out, ", ");
		cu_expr(w, t->addr);
		/* the block-scaled kind::mxf8f6f4 reads its operands as kind::f8f6f4 (2), its scales at [sfa], [sfb] */
		const LOperand *pred = tc_operand(s, IO_PRED);
		buf_printf(out, ", 0x%08xu, %d, (unsigned)((", s->mma->idesc,
		           (int)(s->mma->scale_vec ? MMA_F8F6F4 : s->mma->kind));
		cu_expr(w, pred->addr);
		buf_puts(out, ") != 0)");
		for (int i = 1; s->mma->scale_vec && i <= 2; i++) {
			buf_puts(out, ", ");
			cu_expr(w, pred[i].addr);
		}
		buf_printf(out, ", \"%s: %s\");\n", at, mma_instr_spelling(s->cta_group, s->mma));
		return;
	}
	case TC_MB_INIT: case TC_MB_ARRIVE: case TC_MB_EXPECT_TX: case TC_MB_TRY_WAIT: case TC_MB_FENCE_INIT:
	case TC_COMMIT: case TC_CLUSTER_ARRIVE: case TC_CLUSTER_WAIT: case TC_COMMIT_PAIR:
		fatal("emu_tc: %s is written by emu_mbar", isa_name(kind, 0));
	}
}

static void
collect_ld_tensors(List *list)
{
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (tc_loads(s) && tc_nregs(s) > 0 && !is_ld_tensor(tc_reg(s, 0)->tensor))
			list_push(&M.ld_tensors, tc_reg(s, 0)->tensor);
		const LOperand *red = s->kind == L_TC ? tc_operand(s, IO_REG) : NULL;
		if (red && !is_ld_tensor(red->regs[0].tensor))
			list_push(&M.ld_tensors, red->regs[0].tensor);
		collect_ld_tensors(&s->body);
		collect_ld_tensors(&s->els);
	}
}

/* A device function of a header: the emulator of the calling CTA (tl_emu_hdr, which the hand-written
   kernel sets up with tilec_emu_begin), and the pending bits of the registers it loads. */
/* Whether device function k takes mbarriers: its waits may be on a commit of mmas issued elsewhere (another
   function, the caller), so they go through tilec_emu_mma.h, which lands those mmas. */
static bool
has_mbar_param(const KernelIR *k)
{
	for (int i = 0; i < k->dparams.n; i++) {
		const DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		if (dp->kind == PK_SHARED && dp->tensor->type == T_MBARRIER)
			return true;
	}
	return false;
}

static void
emu_device_begin(CuWriter *w, KernelIR *k)
{
	M.ld_tensors = (List){0};
	collect_ld_tensors(&k->body);
	M.has_cp = has_cp(&k->body) || has_mbar_param(k);
	M.has_mma = has_tc(&k->body, TC_MMA) || has_mbar_param(k);
	buf_puts(w->out, "\tTlEmuCta &tl_emu = tl_emu_hdr;\n\t(void)tl_emu;\n");
	if (M.ld_tensors.n)
		buf_puts(w->out, "\tconst char *tl_ld_where __attribute__((unused)) = \"\";\n");
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		if (dp->kind == PK_LOCAL)
			pending_declared(w, dp->tensor);
	}
}

/* Whether a statement of list declares a shared tensor. */
static bool
declares_shared(const List *list)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_SHARED || declares_shared(&s->body) || declares_shared(&s->els))
			return true;
	}
	return false;
}

/* The alignment of the GPU build's dynamic shared memory, which tl_emu_shared rounds its start up to: the
   largest a shared tensor asks (a tile's 1024-byte swizzle period, smem_tensor_align). */
#define EMU_SHARED_ALIGN 1024

/* A shared tensor of a kernel. On the GPU a pointer into dynamic shared memory: static shared memory ends at
   48 KB, less than a GEMM's tiles (examples/gemm.tile has 193 KB); libtilert launches with the bytes
   tilec_shared_<kernel> says (emu_kernel_end). On the CPU the static array of every other target. */
static void
emu_shared(CuWriter *w, const LStmt *s)
{
	const Tensor *t = s->tensor;
	int align = smem_tensor_align(t);
	int element_bytes = etype_bits(t->type) / 8; /* a sub-byte type is stored a byte per element (etype_ctype) */
	long long offset = (M.shared_bytes + align - 1) / align * align;
	M.shared_bytes = offset + (long long)t->count * (element_bytes ? element_bytes : 1);
	const char *unread = list_loads(&w->k->body, t) ? "" : " (void)&";
	cu_line_start(w);
	buf_printf(w->out, "#ifdef __CUDACC__\n");
	cu_line_start(w);
	buf_printf(w->out, "%s *const %s = (%s *)(tl_emu_shared + %lld);%s%s%s\n", etype_ctype(t->type), t->cname,
	           etype_ctype(t->type), offset, unread, *unread ? t->cname : "", *unread ? "[0];" : "");
	cu_line_start(w);
	buf_printf(w->out, "#else\n");
	cu_line_start(w);
	buf_printf(w->out, "__shared__ __align__(%d) %s %s[%d];%s%s%s\n", align, etype_ctype(t->type), t->cname, t->count,
	           unread, *unread ? t->cname : "", *unread ? "[0];" : "");
	cu_line_start(w);
	buf_printf(w->out, "#endif\n");
}

static void
emu_kernel_begin(CuWriter *w, KernelIR *k)
{
	M.ld_tensors = (List){0};
	M.has_shared = declares_shared(&k->body);
	M.shared_bytes = 0;
	collect_ld_tensors(&k->body);
	M.has_cp = has_cp(&k->body);
	M.has_mma = has_tc(&k->body, TC_MMA);
	if (k->grid_expr[0] || k->grid_expr[1] || k->grid_expr[2]) {
		buf_printf(w->out, "// the tensor memory of %s's blocks: 128 lanes x 512 columns each, for the grid computed "
		                   "at launch\n__device__ unsigned tl_emu_tmem_%s[TL_EMU_GRID_SLOTS * TL_EMU_CELLS];\n\n",
		           k->name, k->name);
		return;
	}
	unsigned long long blocks = (unsigned long long)k->grid[0] * k->grid[1] * k->grid[2];
	buf_printf(w->out, "// the tensor memory of %s's blocks: 128 lanes x 512 columns each\n"
	                   "__device__ unsigned tl_emu_tmem_%s[TL_EMU_TMEM_BLOCKS(%lluull) * TL_EMU_CELLS];\n\n", k->name, k->name, blocks);
}

static void
emu_body_begin(CuWriter *w, KernelIR *k)
{
	bool runtime_grid = k->grid_expr[0] || k->grid_expr[1] || k->grid_expr[2];
	buf_printf(w->out, "\t__shared__ TlEmuCta tl_emu;\n\ttl_emu_begin(&tl_emu, tl_emu_tmem_%s%s);\n", k->name,
	           runtime_grid ? ", TL_EMU_GRID_SLOTS" : "");
	if (M.has_shared)
		buf_printf(w->out, "#ifdef __CUDACC__\n"
		                   "\t// the shared tensors, in dynamic shared memory from a start rounded up to %d bytes\n"
		                   "\textern __shared__ __align__(16) unsigned char tl_emu_dynamic[];\n"
		                   "\tunsigned char *const tl_emu_shared = tl_emu_dynamic + (-tl_emu_saddr(tl_emu_dynamic) & %du);\n"
		                   "#endif\n", EMU_SHARED_ALIGN, EMU_SHARED_ALIGN - 1);
	if (M.ld_tensors.n)
		buf_puts(w->out, "\tconst char *tl_ld_where = \"\";\n\t(void)tl_ld_where;\n");
}

static void
emu_body_end(CuWriter *w, KernelIR *k)
{
	buf_printf(w->out, "\ttl_emu_end(&tl_emu, \"%s\");\n", k->name);
}

/* The CPU entry of a kernel: its arguments as cuLaunchKernel's kernelParams, the grid run block by block. */
static void
emu_kernel_end(CuWriter *w, KernelIR *k)
{
	if (M.has_shared)
		buf_printf(w->out, "#ifdef __CUDACC__\n"
		                   "// the dynamic shared memory of %s's shared tensors, for libtilert's launch\n"
		                   "extern \"C\" __device__ const unsigned tilec_shared_%s[1] = {%lldu};\n#endif\n",
		           k->name, k->name, M.shared_bytes + EMU_SHARED_ALIGN - 16);
	buf_printf(w->out, "\n#ifndef __CUDACC__\n"
	                   "static void tl_emu_entry_%s(void **tl_args)\n{\n\t%s(", k->name, k->name);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		Var *v = LIST_AT(k->params, Var, i);
		const char *type = t ? etype_ctype(t->type) : etype_is_float(v->type) ? "float" : etype_ctype(v->type);
		buf_printf(w->out, "%s*(%s %s*)tl_args[%d]", i ? ", " : "", type, t ? "*" : "", i);
	}
	buf_printf(w->out, ");\n}\n\n"
	                   "// Runs %s's grid on the CPU; tl_args as cuLaunchKernel's kernelParams.\n"
	                   "extern \"C\" void tl_emu_launch_%s(void **tl_args)\n{\n", k->name, k->name);
	/* a grid computed from the scalar parameters, by the same C expressions as in the kernel */
	for (int i = 0; i < k->params.n; i++) {
		Var *v = LIST_AT(k->params, Var, i);
		if (LIST_AT(k->param_is_tensor, Tensor, i) || etype_is_float(v->type))
			continue;
		buf_printf(w->out, "\tconst %s %s = *(const %s *)tl_args[%d];\n\t(void)%s;\n", etype_ctype(v->type), v->cname,
		           etype_ctype(v->type), i, v->cname);
	}
	buf_puts(w->out, "\tconst unsigned grid[3] = {");
	for (int d = 0; d < 3; d++) {
		buf_puts(w->out, d ? ", " : "");
		if (k->grid_expr[d])
			cu_expr(w, k->grid_expr[d]);
		else
			buf_printf(w->out, "%du", k->grid[d]);
	}
	buf_printf(w->out, "}, block[3] = {%du, %du, %du};\n", k->block[0], k->block[1], k->block[2]);
	if (k->cluster[0] * k->cluster[1] * k->cluster[2] > 1)
		/* the CTAs of a cluster run together (tilec_emu.h's cluster model) */
		buf_printf(w->out, "\tconst unsigned cluster[3] = {%du, %du, %du};\n"
		                   "\ttl_cpu_launch_cluster(grid, block, cluster, tl_emu_entry_%s, tl_args);\n}\n#endif\n",
		           k->cluster[0], k->cluster[1], k->cluster[2], k->name);
	else
		buf_printf(w->out, "\ttl_cpu_launch(grid, block, tl_emu_entry_%s, tl_args);\n}\n#endif\n", k->name);
}

/* bar_sync / bar_arrive, written after the emulator into the programs that use them only (so that the
   output of every other program stays as it was): bar.sync / bar.arrive on the GPU, a counted barrier
   on the CPU, with tilec_emu.h's deadlock report. */
static const char emu_named_bars[] =
	"// bar_sync(id, count) and bar_arrive(id, count). On the CPU barrier id completes when count threads have\n"
	"// arrived, a warp counting 32 even when the block's last warp is shorter, as on the GPU; bar_arrive\n"
	"// arrives and goes on. The race detection orders nothing at them (only cta_sync and warp_sync do).\n"
	"#ifndef __CUDACC__\n"
	"struct TlCpuNamedBars {\n"
	"\tTlDim3 at; // the block whose phases these are: a new block starts with none\n"
	"\tTlCpuBar bar[16];\n"
	"\tint waiting[16];\n"
	"};\n"
	"static TlCpuNamedBars tl_cpu_named;\n"
	"\n"
	"static void\n"
	"tl_cpu_named_bar(int id, int count, bool wait)\n"
	"{\n"
	"\tTlCpuBlock *b = tl_cpu_block;\n"
	"\tint lanes = b->nthreads - (tl_cpu_tid & ~31) < 32 ? b->nthreads - (tl_cpu_tid & ~31) : 32;\n"
	"\tint adds = lanes < 32 && (tl_cpu_tid & 31) == 0 ? 33 - lanes : 1;\n"
	"\tpthread_mutex_lock(&b->mu);\n"
	"\tTlCpuNamedBars *n = &tl_cpu_named;\n"
	"\tif (n->at.x != blockIdx.x || n->at.y != blockIdx.y || n->at.z != blockIdx.z) {\n"
	"\t\tmemset(n, 0, sizeof *n);\n"
	"\t\tn->at = blockIdx;\n"
	"\t}\n"
	"\tTlCpuBar *bar = &n->bar[id];\n"
	"\tif (bar->arrived == 0)\n"
	"\t\tbar->count = count;\n"
	"\telse if (bar->count != count)\n"
	"\t\ttl_cpu_fail(\"tilec emu: block (%u, %u, %u): thread %d arrives at named barrier %d counting %d \"\n"
	"\t\t            \"threads while the barrier counts %d\\n\", blockIdx.x, blockIdx.y, blockIdx.z, tl_cpu_tid, id,\n"
	"\t\t            count, bar->count);\n"
	"\tunsigned gen = bar->gen;\n"
	"\tbar->arrived += adds;\n"
	"\tif (bar->arrived >= bar->count) {\n"
	"\t\tb->waiting -= n->waiting[id]; // the others are released now, before they run again\n"
	"\t\tn->waiting[id] = 0;\n"
	"\t\tbar->arrived -= bar->count; // lane 0 of a short warp may carry into the next phase\n"
	"\t\tbar->gen++;\n"
	"\t\tpthread_cond_broadcast(&b->cv);\n"
	"\t} else if (wait) {\n"
	"\t\tb->waiting++;\n"
	"\t\tn->waiting[id]++;\n"
	"\t\tb->where[tl_cpu_tid] = \"bar_sync (a named barrier)\";\n"
	"\t\ttl_cpu_check_deadlock();\n"
	"\t\twhile (bar->gen == gen)\n"
	"\t\t\tpthread_cond_wait(&b->cv, &b->mu);\n"
	"\t\tb->where[tl_cpu_tid] = NULL;\n"
	"\t}\n"
	"\tpthread_mutex_unlock(&b->mu);\n"
	"}\n"
	"#endif\n"
	"\n"
	"TL_EMU_INLINE void\n"
	"tl_emu_bar_sync(int id, int count)\n"
	"{\n"
	"#ifdef __CUDACC__\n"
	"\tasm volatile(\"bar.sync %0, %1;\" ::\"r\"(id), \"r\"(count) : \"memory\");\n"
	"#else\n"
	"\ttl_cpu_named_bar(id, count, true);\n"
	"#endif\n"
	"}\n"
	"\n"
	"TL_EMU_INLINE void\n"
	"tl_emu_bar_arrive(int id, int count)\n"
	"{\n"
	"#ifdef __CUDACC__\n"
	"\tasm volatile(\"bar.arrive %0, %1;\" ::\"r\"(id), \"r\"(count) : \"memory\");\n"
	"#else\n"
	"\ttl_cpu_named_bar(id, count, false);\n"
	"#endif\n"
	"}\n\n";

/* The warp collectives' CUDA intrinsics on the CPU, written after the emulator into the programs that call
   a collective only: every lane of the warp publishes its value and reads the lane it names (the low 5 bits
   of the operand, as shfl.sync reads it); a reduction adds in lane order, which integers allow. */
static const char emu_collectives[] =
	"// The warp collectives on the CPU: shuffles, votes and redux.sync through the warp's exchange; once in\n"
	"// a translation unit that includes several headers.\n"
	"#if !defined(__CUDACC__) && !defined(TILEC_EMU_COLLECTIVES)\n"
	"#define TILEC_EMU_COLLECTIVES 1\n"
	"template <class T>\n"
	"static inline T\n"
	"__shfl_xor_sync(unsigned mask, T v, int m)\n"
	"{\n"
	"\treturn __shfl_sync(mask, v, (tl_cpu_tid & 31) ^ (m & 31));\n"
	"}\n"
	"\n"
	"template <class T>\n"
	"static inline T\n"
	"__shfl_down_sync(unsigned mask, T v, int d)\n"
	"{\n"
	"\tint from = (tl_cpu_tid & 31) + (d & 31);\n"
	"\treturn __shfl_sync(mask, v, from > 31 ? tl_cpu_tid : from);\n"
	"}\n"
	"\n"
	"template <class T>\n"
	"static inline T\n"
	"__shfl_up_sync(unsigned mask, T v, int d)\n"
	"{\n"
	"\tint from = (tl_cpu_tid & 31) - (d & 31);\n"
	"\treturn __shfl_sync(mask, v, from < 0 ? tl_cpu_tid : from);\n"
	"}\n"
	"\n"
	"static inline int __all_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) == __activemask(); }\n"
	"\n"
	"// redux.sync: op 0 add, 1 max, 2 min; the values of the lanes in lane order\n"
	"static inline unsigned\n"
	"tl_cpu_redux(unsigned v, int op, bool is_signed)\n"
	"{\n"
	"\tunsigned long long *x = tl_cpu_block->xchg[tl_cpu_tid >> 5];\n"
	"\ttl_cpu_exchange(v, 0);\n"
	"\tunsigned r = (unsigned)x[0];\n"
	"\tfor (int l = 1; l < 32; l++) {\n"
	"\t\tunsigned o = (unsigned)x[l];\n"
	"\t\tbool less = is_signed ? (int)o < (int)r : o < r;\n"
	"\t\tr = op == 0 ? r + o : (op == 1) != less ? o : r;\n"
	"\t}\n"
	"\treturn r;\n"
	"}\n"
	"\n"
	"static inline unsigned __reduce_add_sync(unsigned m, unsigned v) { (void)m; return tl_cpu_redux(v, 0, false); }\n"
	"static inline int __reduce_add_sync(unsigned m, int v) { (void)m; return (int)tl_cpu_redux((unsigned)v, 0, true); }\n"
	"static inline unsigned __reduce_max_sync(unsigned m, unsigned v) { (void)m; return tl_cpu_redux(v, 1, false); }\n"
	"static inline int __reduce_max_sync(unsigned m, int v) { (void)m; return (int)tl_cpu_redux((unsigned)v, 1, true); }\n"
	"static inline unsigned __reduce_min_sync(unsigned m, unsigned v) { (void)m; return tl_cpu_redux(v, 2, false); }\n"
	"static inline int __reduce_min_sync(unsigned m, int v) { (void)m; return (int)tl_cpu_redux((unsigned)v, 2, true); }\n"
	"#endif\n\n";
/* tcgen05.ld.red's reduction (TCGEN05.md section 13), written after the emulator into the programs
   that use it only. Floats: .abs reduces |x|; without .NaN a NaN is left out (all NaN: the canonical
   NaN), with .NaN any NaN gives the canonical NaN 0x7fffffff; -0.0 counts as less than +0.0, as PTX's
   min and max order them. */
static const char emu_ld_red_source[] =
	"// The reducing load: each thread's min (is_max 0) or max of the n words it loaded; type 0 f32, 1 u32, 2 s32.\n"
	"TL_EMU_INLINE unsigned\n"
	"tl_emu_ld_red(const unsigned *r, int n, int is_max, int type, int abs_, int nan_)\n"
	"{\n"
	"\tunsigned best = 0;\n"
	"\tint have = 0, saw_nan = 0;\n"
	"\tfor (int k = 0; k < n; k++) {\n"
	"\t\tunsigned v = r[k];\n"
	"\t\tif (type == 1 || type == 2) {\n"
	"\t\t\tint less = type == 1 ? v < best : (int)v < (int)best;\n"
	"\t\t\tif (!have || (is_max ? !less && v != best : less))\n"
	"\t\t\t\tbest = v;\n"
	"\t\t\thave = 1;\n"
	"\t\t\tcontinue;\n"
	"\t\t}\n"
	"\t\tif (abs_)\n"
	"\t\t\tv &= 0x7fffffffu;\n"
	"\t\tif ((v & 0x7fffffffu) > 0x7f800000u) {\n"
	"\t\t\tsaw_nan = 1;\n"
	"\t\t\tcontinue;\n"
	"\t\t}\n"
	"\t\t// the order of floats on their bits: negative ones reversed, -0.0 just below +0.0\n"
	"\t\tunsigned key = v & 0x80000000u ? ~v : v | 0x80000000u;\n"
	"\t\tunsigned kb = best & 0x80000000u ? ~best : best | 0x80000000u;\n"
	"\t\tif (!have || (is_max ? key > kb : key < kb))\n"
	"\t\t\tbest = v;\n"
	"\t\thave = 1;\n"
	"\t}\n"
	"\tif (type == 0 && ((saw_nan && nan_) || !have))\n"
	"\t\treturn 0x7fffffffu;\n"
	"\treturn best;\n"
	"}\n\n";

static bool
has_ld_red(const List *stmts)
{
	for (int i = 0; i < stmts->n; i++) {
		const LStmt *s = LIST_AT(*stmts, LStmt, i);
		if ((s->kind == L_TC && s->instr->kind == TC_LD_RED) || has_ld_red(&s->body) || has_ld_red(&s->els))
			return true;
	}
	return false;
}

static bool
has_stmt(const List *stmts, LKind kind)
{
	for (int i = 0; i < stmts->n; i++) {
		const LStmt *s = LIST_AT(*stmts, LStmt, i);
		if (s->kind == kind || has_stmt(&s->body, kind) || has_stmt(&s->els, kind))
			return true;
	}
	return false;
}

/* Whether a kernel of p has a statement of that kind. */
static bool
program_has(const Program *p, LKind kind)
{
	for (int i = 0; i < p->kernels.n; i++)
		if (has_stmt(&LIST_AT(p->kernels, KernelIR, i)->body, kind))
			return true;
	return false;
}

/* runtime/tilec_emu_mbarriers.h as a C string (build/tilec_emu_mbarriers.inc), for the programs with mbarriers. */
static const char emu_mbarriers[] =
#include "tilec_emu_mbarriers.inc"
	;

/* runtime/tilec_cp.h and tilec_emu_cp.h as C strings, for the programs that issue a cp. */
static const char emu_cp_walk[] =
#include "tilec_cp.inc"
	;
static const char emu_cp_glue[] =
#include "tilec_emu_cp.inc"
	;

static const char emu_mma_walk[] =
#include "tilec_mma.inc"
	;
static const char emu_mma_glue[] =
#include "tilec_emu_mma.inc"
	;

/* Whether a statement of list is a tcgen05 instruction of that kind. */
static bool
has_tc(const List *list, TcKind kind)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if ((s->kind == L_TC && s->instr->kind == kind) || has_tc(&s->body, kind) || has_tc(&s->els, kind))
			return true;
	}
	return false;
}

/* A program with an mma also has the cp machinery (its commit and wait call tilec_emu_cp.h's). */
static bool
has_cp(const List *list)
{
	return has_tc(list, TC_CP) || has_tc(list, TC_MMA);
}

/* An mbarrier statement as a call of tilec_emu_mbarriers.h: the barrier's element, its tensor's name and
   index, the operand and the .tile line. */
static void
emu_mbar(CuWriter *w, const LStmt *s)
{
	Buf *out = w->out;
	cu_line_start(w);
	if (s->mbar_op == MB_FENCE_INIT) {
		buf_puts(out, "tl_emu_mbar_fence_init();\n");
		return;
	}
	if (s->mbar_op == MB_CLUSTER_SYNC) {
		buf_puts(out, "tl_emu_cluster_sync();\n");
		return;
	}
	Buf index = {0};
	Buf *saved = w->out;
	w->out = &index;
	cu_expr(w, s->index);
	w->out = saved;
	if (s->mbar_elect)
		buf_printf(out, "if (tl_emu_elect(%d)) ", s->elect_lane);
	bool cp = M.has_cp && (s->mbar_op == MB_COMMIT || s->mbar_op == MB_WAIT);
	/* the pair commit arrives on the barrier of both CTAs of the pair (tilec_emu_cp.h, tilec_emu_mma.h) */
	bool pair = s->instr->kind == TC_COMMIT_PAIR;
	buf_printf(out, "tl_emu_%s_%s%s(%s&%s[%s], \"%s\", %s, ", cp ? M.has_mma ? "mma" : "cp" : "mbar", mbar_op_name(s->mbar_op),
	           pair ? "_pair" : "", pair && cp ? "&tl_emu, " : "", s->tensor->cname, index.data, s->tensor->name,
	           index.data);
	if (s->value) {
		cu_expr(w, s->value);
		buf_puts(out, ", ");
	}
	buf_printf(out, "\"%s\");\n", where(w));
	buf_free(&index);
}

/* runtime/tilec_emu_tma.h as a C string (build/tilec_emu_tma.inc), for the programs with a TMA copy. */
static const char emu_tma_source[] =
#include "tilec_emu_tma.inc"
	;

/* A TMA copy: on the GPU (sm_90 and later) the cuda target's cp.async.bulk.tensor with the kernel's tensor
   map, so the CPU model is checked against the hardware (LANGUAGE 11.9); on the CPU a call of
   tilec_emu_tma.h by the elected lane: the box, the tensor's dimensions and strides and the coordinates as
   arrays (innermost first), the placement (inner pitch, swizzle) and the barrier. A store's
   wait_group.read is the GPU's only: the CPU model's stores are complete when issued. */
static void
emu_tma(CuWriter *w, const LStmt *s)
{
	const TmaCopy *c = s->tma;
	Buf *out = w->out;
	buf_puts(out, "#ifdef __CUDACC__\n");
	cu_tma_asm(w, s);
	if (c->wait_read) {
		buf_puts(out, "#endif\n");
		return;
	}
	buf_puts(out, "#else\n");
	const TmaMap *m = c->map;
	int e = etype_bits(c->smem->type) / 8;
	const SwizzleInfo *sw = smem_swizzle_info(m->swizzle);
	int pitch = m->swizzle == SW_NONE ? m->box[0] * e : sw->width;
	cu_line_start(w);
	buf_printf(out, "{\n");
	cu_line_start(w);
	buf_printf(out, "\tconst int tl_box[%d] = {", m->rank);
	for (int d = 0; d < m->rank; d++)
		buf_printf(out, "%s%d", d ? ", " : "", m->box[d]);
	const char *arrays[3] = {"const long long tl_dim", "const long long tl_stride", "const int tl_at"};
	IExpr *const *vals[3] = {c->gdim, c->gstride, c->coord};
	for (int a = 0; a < 3; a++) {
		buf_printf(out, "};\n");
		cu_line_start(w);
		buf_printf(out, "\t%s[%d] = {", arrays[a], m->rank);
		for (int d = 0; d < m->rank; d++) {
			buf_puts(out, d ? ", " : "");
			cu_expr(w, vals[a][d]);
		}
	}
	buf_printf(out, "};\n");
	cu_line_start(w);
	buf_puts(out, "\t");
	if (s->mbar_elect)
		buf_printf(out, "if (tl_emu_elect(%d)) ", s->elect_lane);
	if (c->multicast) {
		/* every CTA of the mask runs it; the one of lowest rank writes the box into each (tilec_emu_tma.h) */
		buf_puts(out, "tl_emu_tma_load_multicast(");
		cu_expr(w, c->multicast);
		buf_puts(out, ", ");
	} else
		buf_printf(out, "tl_emu_tma_%s(", c->store ? "store" : "load");
	buf_printf(out, "(unsigned char *)%s, %uu", c->smem->cname, c->dst);
	if (c->stage) {
		buf_puts(out, " + (");
		cu_expr(w, c->stage);
		buf_puts(out, ")");
	}
	buf_printf(out, ", %d, %d, %d, %d, tl_box, (%sunsigned char *)%s, tl_dim, tl_stride, tl_at, ", e, pitch,
	           sw->xor_mask, m->rank, c->store ? "" : "const ", m->tensor->cname);
	if (!c->store) {
		buf_printf(out, "&%s[", c->mbar->tensor->cname);
		cu_expr(w, c->mbar->index);
		buf_printf(out, "], \"%s\", ", c->mbar->tensor->name);
		cu_expr(w, c->mbar->index);
		buf_puts(out, ", ");
	}
	buf_printf(out, "\"%s\", \"%s\");\n", m->tensor->name, where(w));
	cu_line_start(w);
	buf_puts(out, "}\n#endif\n");
}

/* The emulator defines tl_f2h, tl_h2f, tl_f2bf and tl_bf2f for both the GPU and the CPU. */
static void
emu_file(CuWriter *w, Program *p, const char *arch, const char *guard, Buf *out)
{
	(void)arch;
	if (guard)
		buf_printf(out, "// Generated by tilec %s from %s for --target=emu: its device functions with tcgen05 "
		                "emulated, for #include in CUDA C++ (nvcc -arch=sm_80 or later) or C++ on the CPU. Do not "
		                "edit.\n#ifndef %s\n#define %s\n\n#include <stdint.h>\n#define TILEC_EMU_HEADER 1\n\n",
		           TILEC_VERSION, p->source_name, guard, guard);
	else
		buf_printf(out, "// Generated by tilec %s from %s for --target=emu: tcgen05 emulated, for nvcc -arch=sm_80 or "
		                "later, or C++ on the CPU. Do not edit.\n\n", TILEC_VERSION, p->source_name);
	buf_puts(out, emu_source);
	buf_puts(out, "\n");
	cu_minifloat_helpers(w, out, "TL_EMU_INLINE");
	if (program_has(p, L_NAMED_BAR))
		buf_puts(out, emu_named_bars);
	bool cp = false, mma = false;
	for (int i = 0; i < p->kernels.n; i++) {
		cp |= has_cp(&LIST_AT(p->kernels, KernelIR, i)->body);
		mma |= has_tc(&LIST_AT(p->kernels, KernelIR, i)->body, TC_MMA);
	}
	for (int i = 0; i < p->devices.n; i++) { /* a header's functions: what they issue, or wait for */
		const KernelIR *k = LIST_AT(p->devices, KernelIR, i);
		cp |= has_cp(&k->body) || has_mbar_param(k);
		mma |= has_tc(&k->body, TC_MMA) || has_mbar_param(k);
	}
	if (mma && !w->minifloat) {
		/* kind::f8f6f4's operands decode through tilec_minifloat.h */
		w->minifloat = true;
		cu_minifloat_helpers(w, out, "TL_EMU_INLINE");
	}
	if (program_has(p, L_MBAR) || cp || program_has(p, L_TMA)) /* a TMA load completes on the barriers' model */
		buf_puts(out, emu_mbarriers);
	if (program_has(p, L_TMA)) {
		/* the GPU build's TMA copies are the GPU's own, with the kernels' tensor maps (cuda.h's type) */
		if (!guard)
			buf_puts(out, "#ifdef __CUDACC__\n#include <cuda.h>\n#endif\n");
		buf_puts(out, emu_tma_source);
	}
	if (w->collectives)
		buf_puts(out, emu_collectives);
	bool ld_red = false;
	for (int i = 0; i < p->kernels.n; i++)
		ld_red = ld_red || has_ld_red(&LIST_AT(p->kernels, KernelIR, i)->body);
	for (int i = 0; i < p->devices.n; i++)
		ld_red = ld_red || has_ld_red(&LIST_AT(p->devices, KernelIR, i)->body);
	if (ld_red)
		buf_puts(out, emu_ld_red_source);
	if (cp) {
		buf_puts(out, "#define TL_CP_FN TL_EMU_INLINE\n");
		buf_puts(out, emu_cp_walk);
		buf_puts(out, emu_cp_glue);
	}
	if (mma) {
		buf_puts(out, "#define TL_MMA_FN TL_EMU_INLINE\n");
		buf_puts(out, emu_mma_walk);
		buf_puts(out, emu_mma_glue);
	}
	image_tables(w, out);
}

/* The numbers of the statement being written and of tensor t in TargetOptions.race, each known once. */
static unsigned long long
race_key(CuWriter *w, const Tensor *t, int *site)
{
	Loc loc = w->cur ? w->cur->loc : no_loc;
	EmuRace *race = w->opt->race;
	int tensor = 0;
	while (tensor < race->tensors.n && strcmp(LIST_AT(race->tensors, Tensor, tensor)->cname, t->cname) != 0)
		tensor++;
	if (tensor == race->tensors.n)
		list_push(&race->tensors, (void *)t);
	for (*site = 0; *site < race->sites.n; ++*site) {
		EmuSite *s = LIST_AT(race->sites, EmuSite, *site);
		if (s->tensor == LIST_AT(race->tensors, Tensor, tensor) && s->loc.file == loc.file &&
		    s->loc.first_line == loc.first_line && s->loc.first_column == loc.first_column)
			break;
	}
	if (*site == race->sites.n) {
		EmuSite *s = pool_alloc(sizeof *s);
		*s = (EmuSite){loc, LIST_AT(race->tensors, Tensor, tensor)};
		list_push(&race->sites, s);
	}
	return (unsigned long long)tensor << 40 | (unsigned long long)(t->kind == TK_SHARED) << 63;
}

/* Whether a TMA load of list writes shared tensor t. */
static bool
tma_loads_into(const List *list, const Tensor *t)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if ((s->kind == L_TMA && s->tma && !s->tma->store && !s->tma->wait_read && s->tma->smem == t) ||
		    tma_loads_into(&s->body, t) || tma_loads_into(&s->els, t))
			return true;
	}
	return false;
}

/* tl_emu_bounds<RANK>("file:LINE", "NAME", {coordinates}, {shape}) + (offset), for a global or shared tensor,
   after the same test of the indices of the view it is accessed through (named "VIEW (a view of NAME)");
   for tilec run, inside tl_emu_race(tensor, site, write, ...), which logs the access. */
static void
emu_global_access(CuWriter *w, const Tensor *t, IExpr *const *coords, const ViewAt *view_at, const IExpr *index,
                  bool write)
{
	int site = 0;
	/* a thread's read of a tile that TMA loads: the CPU emulator stops it while the load's phase is pending */
	bool tma_read = !write && t->kind == TK_SHARED && w->k && tma_loads_into(&w->k->body, t);
	if (tma_read)
		buf_printf(w->out, "tl_emu_tma_read(%s, sizeof %s[0], \"%s\", ", t->cname, t->cname, where(w));
	if (w->opt->race) {
		unsigned long long key = race_key(w, t, &site);
		buf_printf(w->out, "tl_emu_race(0x%llxull, %du, %d, ", key, site, write ? 1 : 0);
	}
	if (view_at) {
		buf_printf(w->out, "tl_emu_bounds<%d>(\"%s\", \"%s (a view of %s)\", {", view_at->rank, where(w),
		           view_at->name, view_at->base);
		for (int d = 0; d < view_at->rank; d++) {
			buf_puts(w->out, d ? ", " : "");
			buf_puts(w->out, "(long long)(");
			cu_expr(w, view_at->at[d]);
			buf_puts(w->out, ")");
		}
		buf_puts(w->out, "}, {");
		for (int d = 0; d < view_at->rank; d++)
			buf_printf(w->out, "%s%dll", d ? ", " : "", view_at->dims[d]);
		buf_puts(w->out, "}) + ");
	}
	if (coords) {
		buf_printf(w->out, "tl_emu_bounds<%d>(\"%s\", \"%s\", {", t->rank, where(w), t->name);
		for (int d = 0; d < t->rank; d++) {
			buf_puts(w->out, d ? ", " : "");
			buf_puts(w->out, "(long long)(");
			cu_expr(w, coords[d]);
			buf_puts(w->out, ")");
		}
		buf_puts(w->out, "}, {");
		for (int d = 0; d < t->rank; d++) {
			buf_puts(w->out, d ? ", " : "");
			if (!t->rdims[d]) { /* a shared tensor */
				buf_printf(w->out, "%dll", t->dims[d]);
				continue;
			}
			buf_puts(w->out, "(long long)(");
			cu_expr(w, t->rdims[d]);
			buf_puts(w->out, ")");
		}
		buf_puts(w->out, "}) + ");
	}
	/* one term after the checks' "+ ": an index of ^, & or << would otherwise take the sum as its operand */
	bool checked = view_at || coords;
	buf_puts(w->out, checked ? "(" : "");
	cu_expr(w, index);
	buf_puts(w->out, checked ? ")" : "");
	if (w->opt->race)
		buf_puts(w->out, ")");
	if (tma_read)
		buf_puts(w->out, ")");
}

/* Integer division, remainder and shifts through the emulator's functions that stop the run where C leaves
   the result undefined (tl_emu_div_s32 ...); a constant operand that cannot be such a case keeps C's operator. */
static bool
emu_int_op(CuWriter *w, const IExpr *e)
{
	int64_t c;
	const char *op, *ty;
	bool shift = e->op == OP_SHL || e->op == OP_SHR;
	switch (e->op) {
	case OP_DIV: op = "div"; break;
	case OP_MOD: op = "mod"; break;
	case OP_SHL: op = "shl"; break;
	case OP_SHR: op = "shr"; break;
	default: return false;
	}
	switch (shift ? e->a->type : e->type) {
	case T_I32: ty = "s32"; break;
	case T_U32: ty = "u32"; break;
	case T_I64: ty = shift ? NULL : "s64"; break;
	default: ty = NULL; break;
	}
	if (!ty || (ie_is_const(e->b, &c) && (shift ? c >= 0 && c < 32 : c != 0 && c != -1)))
		return false;
	buf_printf(w->out, "tl_emu_%s_%s(", op, ty);
	cu_expr(w, e->a);
	buf_puts(w->out, ", ");
	cu_expr(w, e->b);
	buf_printf(w->out, ", \"%s\")", where(w));
	return true;
}

static const CuDialect emu = {
	.shared_addr = "tl_emu_saddr",
	.placed_fences = false, /* the emulator's __syncthreads orders everything */
	.named_bar = "tl_emu_bar", /* on the CPU a barrier of tilec_emu.h, on the GPU bar.sync / bar.arrive */
	.f2i = true,
	.fneg = "tl_emu_fneg",
	.tc = emu_tc,
	.mbar = emu_mbar,
	.tma = emu_tma,
	.shared = emu_shared,
	.tma_maps = true, /* the GPU build issues the cuda target's TMA copies, with its tensor maps */
	.tma_maps_if = "defined(__CUDACC__)",
	.clusters = true, /* launched as a cluster on sm_90 and later (TMA multicast); tilec_emu.h drops it before */
	.reg = emu_reg,
	.reg_written = emu_reg_written,
	.reg_copied = emu_reg_copied,
	.global_access = emu_global_access,
	.int_op = emu_int_op,
	.regs_declared = emu_regs_declared,
	.kernel_begin = emu_kernel_begin,
	.body_begin = emu_body_begin,
	.body_end = emu_body_end,
	.kernel_end = emu_kernel_end,
	.device_begin = emu_device_begin,
	.file = emu_file,
};

/* The first cta_group::2 instruction of a statement list that the emulator does not run (an mma of M = 128 over
   the pair, whose D is in layout "B"), or NULL. */
static const LStmt *
first_pair_instr(const List *list)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i), *in;
		if (s->kind == L_TC && s->cta_group == 2 && s->instr->kind == TC_MMA && s->mma->m != 256)
			return s;
		if ((in = first_pair_instr(&s->body)) || (in = first_pair_instr(&s->els)))
			return in;
	}
	return NULL;
}

/* The emulator gives each CTA of a cluster a tensor memory of its own and runs them together (tilec_emu.h): the
   CTA pair's allocation, mma of M = 256, cp and commit are emulated; its mma of M = 128 (D in layout "B") is
   not: an error, once per kernel. */
bool
emu_refuses(const Program *p)
{
	bool refused = false;
	for (int i = 0; i < p->kernels.n; i++) {
		const KernelIR *k = LIST_AT(p->kernels, KernelIR, i);
		const LStmt *s = first_pair_instr(&k->body);
		if (!s)
			continue;
		error(s->loc, "the emulator (--target=emu, tilec run) does not emulate the cta_group::2 mma of M = 128 (D in "
		              "layout \"B\"); kernel '%s' runs only on a Blackwell GPU", k->name);
		refused = true;
	}
	return refused;
}

bool
emit_emu(Program *p, const TargetOptions *opt, Buf *out)
{
	if (emu_refuses(p))
		return false;
	M.ld_tensors = M.images = (List){0};
	return cu_write(p, opt, &emu, false, out);
}

bool
emit_emu_cuh(Program *p, const TargetOptions *opt, Buf *out)
{
	M.ld_tensors = M.images = (List){0};
	return cu_write(p, opt, &emu, true, out);
}
