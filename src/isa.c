/* isa.c: the one description of the tcgen05 instructions (their rows, the tcgen05.ld / st shapes and
 * images) and of the architectures tilec compiles for; every spelling of them comes from here. */
#include <string.h>

#include "tilec.h"

/* The rows: one per instruction family (TCGEN05.md sections 2, 4 and 5; the PTX ISA's tcgen05 chapter).
 * A new instruction is one more row here, plus the code of its effect where the effect is new
 * (docs/internals.md). The families to come, each one row of use ISA_STATEMENT or ISA_APPLY, with
 * the qualifier slots and operand kinds they will need (TCGEN05.md sections 9, 10, 14):
 *   cp        .cta_group, shape (128x256b, 4x256b, 128x128b, 64x128b.warpx2::..., 32x128b.warpx4),
 *             multicast, decompression (b8x16.b6x16_p32 | b8x16.b4x16_p64); [IO_TMEM_ADDR], IO_SHARED_DESC64;
 *             completes at commit
 *   shift     .cta_group, .down; [IO_TMEM_ADDR]; completes at commit
 *   mma       (its row is below; the block-scaled kinds add [sfa], [sfb] operands)
 *   commit    multicast (cta_group::2's pair commit); the row of commit itself is below
 *   TMA       cp.async.bulk.tensor: dimension, direction, .tile, .mbarrier::complete_tx::bytes, multicast,
 *             .cta_group; IO_TENSOR_MAP, IO_MBARRIER_ADDR */
#define Q(kind, values) {kind, values}
#define SYNC_ALIGNED Q(IQ_WORD, "sync.aligned")
#define SHARED_CTA Q(IQ_WORD, "shared::cta")
#define B64 Q(IQ_WORD, "b64")
#define CTA_GROUP Q(IQ_CTA_GROUP, "cta_group::1|cta_group::2")
#define OPND(kind, bracketed) {kind, bracketed, false, false}
#define SPLIT_IMM {IO_IMM, false, true, false}
#define WRITTEN_REGS {IO_REG_VECTOR, false, false, true}
#define WRITTEN_REG {IO_REG, false, false, true}
static const IsaInstr instrs[] = {
	{TC_ALLOC, "alloc", ISA_STATEMENT, 4, {CTA_GROUP, SYNC_ALIGNED, Q(IQ_WORD, "shared::cta"), Q(IQ_WORD, "b32")},
	 2, {OPND(IO_SHARED_SLOT, true), OPND(IO_NCOLS, false)}, true, COMPLETES_AT_ONCE,
	 EFF_ALLOCATES, "allocates columns for the CTA; one warp; not after relinquish_alloc_permit"},
	{TC_DEALLOC, "dealloc", ISA_STATEMENT, 3, {CTA_GROUP, SYNC_ALIGNED, Q(IQ_WORD, "b32")},
	 2, {OPND(IO_TMEM_ADDR, false), OPND(IO_NCOLS, false)}, true, COMPLETES_AT_ONCE,
	 EFF_FREES, "frees an allocation; one warp; its tensors are dead afterwards"},
	{TC_RELINQUISH, "relinquish_alloc_permit", ISA_STATEMENT, 2, {CTA_GROUP, SYNC_ALIGNED}, 0, {{0}}, true,
	 COMPLETES_AT_ONCE, EFF_RELINQUISHES, "gives up the CTA's right to allocate"},
	{TC_WAIT_LD, "wait::ld", ISA_STATEMENT, 1, {SYNC_ALIGNED}, 0, {{0}}, false, COMPLETES_AT_ONCE,
	 EFF_COMPLETES_LOADS, "the warp's tcgen05.ld results are in its registers"},
	{TC_WAIT_ST, "wait::st", ISA_STATEMENT, 1, {SYNC_ALIGNED}, 0, {{0}}, false, COMPLETES_AT_ONCE,
	 EFF_COMPLETES_STORES, "the warp's tcgen05.st writes are in tensor memory"},
	{TC_FENCE_BEFORE, "fence::before_thread_sync", ISA_STATEMENT, 0, {{0}}, 0, {{0}}, false, COMPLETES_AT_ONCE,
	 EFF_ORDERS, "orders the tcgen05 work before it against a following thread sync"},
	{TC_FENCE_AFTER, "fence::after_thread_sync", ISA_STATEMENT, 0, {{0}}, 0, {{0}}, false, COMPLETES_AT_ONCE,
	 EFF_ORDERS, "orders the tcgen05 work after it against a preceding thread sync"},
	{TC_LD, "ld", ISA_APPLY, 5,
	 {SYNC_ALIGNED, Q(IQ_SHAPE, NULL), Q(IQ_NUM, NULL), Q(IQ_PACK, "pack::16b"), Q(IQ_WORD, "b32")},
	 3, {WRITTEN_REGS, OPND(IO_TMEM_ADDR, true), SPLIT_IMM}, false, COMPLETES_AT_WAIT_LD,
	 0, "loads TMEM cells into the warp's registers, as its image places them"},
	{TC_ST, "st", ISA_APPLY, 5,
	 {SYNC_ALIGNED, Q(IQ_SHAPE, NULL), Q(IQ_NUM, NULL), Q(IQ_PACK, "unpack::16b"), Q(IQ_WORD, "b32")},
	 3, {OPND(IO_TMEM_ADDR, true), SPLIT_IMM, OPND(IO_REG_VECTOR, false)}, false, COMPLETES_AT_WAIT_ST,
	 0, "stores the warp's registers into TMEM cells, as its image places them"},
	{TC_CP, "cp", ISA_APPLY, 3, {CTA_GROUP, Q(IQ_CP_ROUTE, NULL), Q(IQ_CP_DECOMP, "b8x16.b6x16_p32|b8x16.b4x16_p64")},
	 2, {OPND(IO_TMEM_ADDR, true), OPND(IO_SHARED_DESC64, false)}, false, COMPLETES_AT_COMMIT,
	 0, "copies shared-memory rows into TMEM lanes, as its image places them; one thread issues it"},
	/* The synchronisation rows (TCGEN05.md 9 and 14.4): written by the mbarrier statements, commit and
	   cluster_sync (ISA_SYNC), never as instruction statements. try_wait loops until its predicate is true. */
	{TC_MB_INIT, "init", ISA_SYNC, 2, {SHARED_CTA, B64}, 2, {OPND(IO_MBARRIER_ADDR, true), OPND(IO_IMM, false)},
	 false, COMPLETES_AT_ONCE, 0, "sets the barrier's expected arrivals; phase 0"},
	{TC_MB_ARRIVE, "arrive", ISA_SYNC, 2, {SHARED_CTA, B64}, 2, {OPND(IO_MBARRIER_ADDR, true), OPND(IO_IMM, false)},
	 false, COMPLETES_AT_ONCE, 0, "counts arrivals toward the barrier's current phase"},
	{TC_MB_EXPECT_TX, "expect_tx.relaxed.cta", ISA_SYNC, 2, {SHARED_CTA, B64}, 2,
	 {OPND(IO_MBARRIER_ADDR, true), OPND(IO_IMM, false)}, false, COMPLETES_AT_ONCE, 0,
	 "adds bytes the current phase waits for"},
	{TC_MB_TRY_WAIT, "try_wait.parity", ISA_SYNC, 2, {SHARED_CTA, B64}, 3,
	 {OPND(IO_PRED, false), OPND(IO_MBARRIER_ADDR, true), OPND(IO_IMM, false)}, false, COMPLETES_AT_ONCE, 0,
	 "tests whether the phase of that parity has completed"},
	{TC_MB_FENCE_INIT, "mbarrier_init.release.cluster", ISA_SYNC, 0, {{0}}, 0, {{0}}, false, COMPLETES_AT_ONCE,
	 EFF_ORDERS, "publishes the barrier inits before it to the following thread sync"},
	{TC_COMMIT, "commit", ISA_SYNC, 4, {CTA_GROUP, Q(IQ_WORD, "mbarrier::arrive::one"), Q(IQ_WORD, "shared::cluster"), B64},
	 1, {OPND(IO_MBARRIER_ADDR, true)}, false, COMPLETES_AT_ONCE, 0,
	 "arrives once on the barrier when the thread's earlier mma and cp have completed"},
	/* a cta_group::2 kernel's commit: the arrival at the same offset in both CTAs of the pair (the CTA mask) */
	{TC_COMMIT_PAIR, "commit", ISA_SYNC, 5,
	 {CTA_GROUP, Q(IQ_WORD, "mbarrier::arrive::one"), Q(IQ_WORD, "shared::cluster"), Q(IQ_WORD, "multicast::cluster"), B64},
	 2, {OPND(IO_MBARRIER_ADDR, true), OPND(IO_IMM, false)}, false, COMPLETES_AT_ONCE, 0,
	 "arrives once on the barrier in both CTAs of the pair when the thread's earlier mma and cp have completed"},
	{TC_CLUSTER_ARRIVE, "cluster.arrive.release", ISA_SYNC, 0, {{0}}, 0, {{0}}, false, COMPLETES_AT_ONCE, 0,
	 "arrives at the cluster barrier, releasing the thread's memory operations"},
	{TC_CLUSTER_WAIT, "cluster.wait.acquire", ISA_SYNC, 0, {{0}}, 0, {{0}}, false, COMPLETES_AT_ONCE, 0,
	 "waits until every thread of the cluster has arrived"},
	/* TCGEN05.md section 13: ld's image, and each thread's min or max of the values it loaded in redval */
	{TC_LD_RED, "ld.red", ISA_APPLY, 7,
	 {SYNC_ALIGNED, Q(IQ_SHAPE, NULL), Q(IQ_NUM, NULL), Q(IQ_RED_OP, "min|max"), Q(IQ_RED_ABS, "abs"),
	  Q(IQ_RED_NAN, "NaN"), Q(IQ_RED_TYPE, "f32|u32|s32")},
	 4, {WRITTEN_REGS, WRITTEN_REG, OPND(IO_TMEM_ADDR, true), SPLIT_IMM}, false, COMPLETES_AT_WAIT_LD,
	 0, "loads TMEM cells as tcgen05.ld does, and each thread's min or max of them into one more register"},
	/* TCGEN05.md 9 and 15: written by the mma statement (mma.c); D += or = A * B^T, one thread issues it */
	/* the block-scaled kinds add [sfa], [sfb]: the TMEM addresses of the scale factors (the last two operands) */
	{TC_MMA, "mma", ISA_SYNC, 2,
	 {CTA_GROUP, Q(IQ_MMA_KIND, "kind::f16|kind::tf32|kind::f8f6f4|kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4")},
	 7, {OPND(IO_TMEM_ADDR, true), OPND(IO_SHARED_DESC64, false), OPND(IO_SHARED_DESC64, false),
	     OPND(IO_INSTR_DESC32, false), OPND(IO_PRED, false), OPND(IO_TMEM_ADDR, true), OPND(IO_TMEM_ADDR, true)},
	 false, COMPLETES_AT_COMMIT,
	 0, "multiplies two shared-memory tiles into a TMEM accumulator (adding to it where the predicate is true)"},
};
#undef Q
#undef SYNC_ALIGNED
#undef SHARED_CTA
#undef B64
#undef CTA_GROUP
#undef OPND
#undef SPLIT_IMM
#undef WRITTEN_REGS
#undef WRITTEN_REG

/* The lowest PTX ISA version that ptxas (CUDA 13.0) accepts for each target with every tcgen05
 * instruction tilec emits: tcgen05 needs 8.6; the f variants of sm_100 and both of sm_103 need 8.8;
 * sm_110 needs 9.0 (each checked with `ptxas -arch=...` on the lower versions, which it rejects).
 * tcgen05.ld.red: sm_103a/f and sm_110a/f (TCGEN05.md section 13; ptxas rejects it for sm_100a/f).
 * f32x2: ptxas (CUDA 13.0) makes FADD2, FMUL2 and FFMA2 of the packed f32 operations for sm_100 and
 * sm_103 and splits them into scalar ones for sm_110. The first row is the default. */
static const Arch archs[] = {
	{"sm_100a", "8.6", false, true}, {"sm_100f", "8.8", false, true}, {"sm_103a", "8.8", true, true},
	{"sm_103f", "8.8", true, true},  {"sm_110a", "9.0", true, false}, {"sm_110f", "9.0", true, false},
};

int isa_count(void) { return (int)(sizeof instrs / sizeof instrs[0]); }
const IsaInstr *isa_at(int i) { return &instrs[i]; }

const IsaInstr *
isa_instr(TcKind kind)
{
	for (int i = 0; i < isa_count(); i++)
		if (instrs[i].kind == kind)
			return &instrs[i];
	fatal("isa_instr: tcgen05 kind %d has no row", (int)kind);
}

/* The family a row's name follows: the synchronisation rows are not tcgen05's. */
static const char *
family(const IsaInstr *in)
{
	switch (in->kind) {
	case TC_MB_INIT: case TC_MB_ARRIVE: case TC_MB_EXPECT_TX: case TC_MB_TRY_WAIT:
		return "mbarrier";
	case TC_MB_FENCE_INIT:
		return "fence";
	case TC_CLUSTER_ARRIVE: case TC_CLUSTER_WAIT:
		return "barrier";
	default:
		return "tcgen05";
	}
}

/* The row's slot of that kind, or NULL. */
static const IsaQualSlot *
qual_slot(const IsaInstr *in, IsaQual kind)
{
	for (int i = 0; i < in->nquals; i++)
		if (in->quals[i].kind == kind)
			return &in->quals[i];
	return NULL;
}

bool isa_takes_cta_group(const IsaInstr *in) { return qual_slot(in, IQ_CTA_GROUP) != NULL; }

bool
isa_aligned(const IsaInstr *in)
{
	for (int i = 0; i < in->nquals; i++)
		if (in->quals[i].kind == IQ_WORD && strcmp(in->quals[i].values, "sync.aligned") == 0)
			return true;
	return false;
}

static const char *cp_route_name(CpRoute r);

/* Alternative k (from 0) of a '|'-separated list, as "." and the alternative. */
static void
put_alternative(Buf *b, const char *values, int k)
{
	const char *p = values;
	for (; k > 0 && p; k--)
		p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
	if (!p)
		fatal("no alternative %d in '%s'", k, values);
	const char *end = strchr(p, '|');
	buf_putc(b, '.');
	buf_putn(b, p, end ? (size_t)(end - p) : strlen(p));
}

/* The spelling of row in, slot by slot: "tcgen05." name, then each qualifier the choices give. */
static void
spell(Buf *b, const IsaInstr *in, int cta_group, const Opcode *op, const CpForm *cp)
{
	buf_printf(b, "%s.%s", family(in), in->name);
	for (int i = 0; i < in->nquals; i++) {
		const IsaQualSlot *q = &in->quals[i];
		switch (q->kind) {
		case IQ_WORD:
			buf_printf(b, ".%s", q->values);
			break;
		case IQ_CTA_GROUP:
			if (cta_group)
				put_alternative(b, q->values, cta_group - 1);
			break;
		case IQ_RED_OP:
		case IQ_RED_ABS:
		case IQ_RED_NAN:
		case IQ_RED_TYPE:
			if (!op)
				fatal("the spelling of tcgen05.%s needs its reduction", in->name);
			if (q->kind == IQ_RED_OP)
				put_alternative(b, q->values, op->red == RED_MAX);
			else if (q->kind == IQ_RED_TYPE)
				put_alternative(b, q->values, (int)op->red_type);
			else if (q->kind == IQ_RED_ABS ? op->red_abs : op->red_nan)
				buf_printf(b, ".%s", q->values);
			break;
		case IQ_SHAPE:
		case IQ_NUM:
		case IQ_PACK:
			if (!op)
				fatal("the spelling of tcgen05.%s needs its shape", in->name);
			if (q->kind == IQ_SHAPE)
				buf_printf(b, ".%s", shape_name(op->shape));
			else if (q->kind == IQ_NUM)
				buf_printf(b, ".x%d", op->n);
			else if (op->pack)
				buf_printf(b, ".%s", q->values);
			break;
		case IQ_MMA_KIND:
			fatal("tcgen05.%s is spelled by mma_spelling", in->name);
		case IQ_CP_ROUTE:
		case IQ_CP_DECOMP:
			if (!cp)
				fatal("the spelling of tcgen05.%s needs its form", in->name);
			if (q->kind == IQ_CP_ROUTE)
				buf_printf(b, ".%s", cp_route_name(cp->route));
			else if (cp->decomp != CPD_NONE)
				put_alternative(b, q->values, (int)cp->decomp - 1);
			break;
		}
	}
}

const char *
isa_format(const IsaInstr *in, int cta_group, const Opcode *op)
{
	Buf b = {0};
	spell(&b, in, cta_group, op, NULL);
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

const IsaInstr *
isa_parse(const char *text, int *cta_group)
{
	for (int i = 0; i < isa_count(); i++) {
		const IsaInstr *in = &instrs[i];
		bool takes = isa_takes_cta_group(in);
		for (int group = takes ? 1 : 0; in->use == ISA_STATEMENT && group <= (takes ? 2 : 0); group++) {
			Buf b = {0};
			spell(&b, in, group, NULL, NULL);
			bool same = strcmp(text, b.data) == 0;
			buf_free(&b);
			if (same) {
				if (cta_group)
					*cta_group = group;
				return in;
			}
		}
	}
	return NULL;
}

LOperand *
tc_add_operand(LStmt *s, IsaOperand kind)
{
	const IsaInstr *in = s->instr;
	int from = 0;
	if (s->nops)
		from = (int)(s->ops[s->nops - 1].slot - in->operands) + 1;
	while (from < in->noperands && in->operands[from].kind != kind)
		from++;
	if (from == in->noperands)
		fatal("tc_add_operand: tcgen05.%s has no further operand of kind %d", in->name, (int)kind);
	if (!s->ops)
		s->ops = pool_alloc(sizeof(LOperand) * ISA_MAX_OPERANDS);
	LOperand *o = &s->ops[s->nops++];
	o->slot = &in->operands[from];
	return o;
}

LOperand *
tc_operand(const LStmt *s, IsaOperand kind)
{
	for (int i = 0; i < s->nops; i++)
		if (s->ops[i].slot->kind == kind)
			return &s->ops[i];
	return NULL;
}

IExpr *
tc_addr(const LStmt *s)
{
	for (int i = 0; i < s->nops; i++)
		if (s->ops[i].slot->kind == IO_TMEM_ADDR || s->ops[i].slot->kind == IO_SHARED_SLOT)
			return s->ops[i].addr;
	return NULL;
}

int
tc_nregs(const LStmt *s)
{
	const LOperand *o = tc_operand(s, IO_REG_VECTOR);
	return o ? o->nregs : 0;
}

const RegRef *
tc_reg(const LStmt *s, int r)
{
	return &tc_operand(s, IO_REG_VECTOR)->regs[r];
}

const IsaInstr *
isa_family(const char *text)
{
	for (int i = 0; i < isa_count(); i++) {
		if (instrs[i].use == ISA_SYNC)
			continue;
		const char *name = isa_name(instrs[i].kind, 0);
		size_t n = strlen(name);
		if (strncmp(text, name, n) == 0 && text[n] == '.')
			return &instrs[i];
	}
	return NULL;
}

/* "alloc, dealloc, ... and the two thread_sync fences": the names of the statement rows, the fences summed up. */
const char *
isa_known(void)
{
	static const char *const count[] = {"no", "one", "two", "three", "four"};
	Buf b = {0};
	int fences = 0;
	for (int i = 0; i < isa_count(); i++) {
		if (instrs[i].use != ISA_STATEMENT)
			continue;
		if (instrs[i].effect == EFF_ORDERS)
			fences++;
		else
			buf_printf(&b, "%s%s", b.len ? ", " : "", instrs[i].name);
	}
	if (fences)
		buf_printf(&b, " and the %s thread_sync fence%s", fences < 5 ? count[fences] : "several", fences == 1 ? "" : "s");
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

bool
tc_loads(const LStmt *s)
{
	return s->kind == L_TC && s->instr->completes == COMPLETES_AT_WAIT_LD;
}

bool
tc_accesses(const LStmt *s)
{
	return s->kind == L_TC && s->instr->use == ISA_APPLY;
}

const char *
isa_name(TcKind kind, int cta_group)
{
	const IsaInstr *in = isa_instr(kind);
	const IsaQualSlot *cg = qual_slot(in, IQ_CTA_GROUP);
	Buf b = {0};
	buf_printf(&b, "%s.%s", family(in), in->name);
	if (cg && cta_group)
		put_alternative(&b, cg->values, cta_group - 1);
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

const char *
isa_spelling(TcKind kind, int cta_group)
{
	return isa_format(isa_instr(kind), cta_group, NULL);
}

const Arch *
arch_find(const char *name)
{
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
		if (strcmp(name, archs[i].name) == 0)
			return &archs[i];
	return NULL;
}

const char *
arch_list_ld_red(void)
{
	Buf b = {0};
	int n = 0, count = 0;
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
		count += archs[i].ld_red;
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
		if (archs[i].ld_red)
			buf_printf(&b, "%s%s", n++ == 0 ? "" : n == count ? " or " : ", ", archs[i].name);
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

const Arch *
arch_default(void)
{
	return &archs[0];
}

const char *
arch_list(const char *after_default)
{
	Buf b = {0};
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
		buf_printf(&b, "%s%s%s", i ? ", " : "", archs[i].name, i ? "" : after_default);
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* ---------------------------------------------------------------- tcgen05.ld / st shapes and images */

/*
 * The x1 images of TCGEN05.md section 3: lane l, register r of one repetition (r < regs_per_rep).
 * Columns are 32-bit cells of the unpacked image, relative to the access's own address.
 */
static ImageCell
x1_32x32b(int l, int r)
{
	return (ImageCell){.row = l, .col = r};
}

static ImageCell
x1_16x64b(int l, int r)
{
	return (ImageCell){.row = l / 4 + 8 * (l % 2), .col = (l / 2) % 2 + 2 * r};
}

static ImageCell
x1_16x128b(int l, int r)
{
	return (ImageCell){.row = l / 4 + 8 * (r % 2), .col = l % 4 + 4 * (r / 2)};
}

static ImageCell
x1_16x256b(int l, int r)
{
	return (ImageCell){.row = l / 4 + 8 * ((r / 2) % 2), .col = r % 2 + 2 * (l % 4) + 8 * (r / 4)};
}

/* Threads 16..31 make the second access, at taddr + imm; the hardware adds no lanes for them. */
static ImageCell
x1_16x32bx2(int l, int r)
{
	return (ImageCell){.row = l % 16, .col = r, .access = l / 16};
}

/* TCGEN05.md section 2; max_n keeps a thread at 128 registers or fewer (checked by a unit test). */
static const struct ShapeInfo {
	const char *name;
	int rows;         /* lanes per access */
	int cols_per_rep; /* 32-bit columns per repetition, per access */
	int regs_per_rep; /* registers per thread per repetition */
	int max_n;
	ImageCell (*x1)(int lane, int reg);
} shapes[SH_COUNT] = {
	[SH_32X32B] = {"32x32b", 32, 1, 1, 128, x1_32x32b},
	[SH_16X64B] = {"16x64b", 16, 2, 1, 128, x1_16x64b},
	[SH_16X128B] = {"16x128b", 16, 4, 2, 64, x1_16x128b},
	[SH_16X256B] = {"16x256b", 16, 8, 4, 32, x1_16x256b},
	[SH_16X32BX2] = {"16x32bx2", 16, 1, 1, 128, x1_16x32bx2},
};

static const struct ShapeInfo *
shape_info(Shape s)
{
	if ((unsigned)s >= SH_COUNT)
		fatal("shape %d out of range", (int)s);
	return &shapes[s];
}

const char *shape_name(Shape s) { return shape_info(s)->name; }
int shape_rows(Shape s) { return shape_info(s)->rows; }
int shape_cols_per_rep(Shape s) { return shape_info(s)->cols_per_rep; }
int shape_max_n(Shape s) { return shape_info(s)->max_n; }

int
opcode_regs(const Opcode *op)
{
	return shape_info(op->shape)->regs_per_rep * op->n;
}

int
opcode_atom_cols(const Opcode *op)
{
	return shape_info(op->shape)->cols_per_rep * op->n;
}

int
opcode_tmem_cols(const Opcode *op)
{
	return opcode_atom_cols(op) * (op->pack ? 2 : 1);
}

ImageCell
image_cell(const Opcode *op, int lane, int reg)
{
	const struct ShapeInfo *s = shape_info(op->shape);
	if (lane < 0 || lane >= 32 || reg < 0 || reg >= opcode_regs(op))
		fatal("image_cell: lane %d, register %d outside tcgen05 %s.x%d", lane, reg, s->name, op->n);
	/* Registers enumerate repetitions slowest; repetition k is the x1 image shifted k atoms right. */
	ImageCell c = s->x1(lane, reg % s->regs_per_rep);
	c.col += reg / s->regs_per_rep * s->cols_per_rep;
	return c;
}

static const IsaInstr *
ld_st(bool is_ld)
{
	return isa_instr(is_ld ? TC_LD : TC_ST);
}

/* The 16-bit qualifier's spelling: pack on a load, unpack on a store. */
static const char *
pack_name(bool is_ld)
{
	return qual_slot(ld_st(is_ld), IQ_PACK)->values;
}

/* "32x32b, 16x64b, ...", from the table. */
static void
shape_list(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int s = 0; s < SH_COUNT && used < len; s++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", s ? ", " : "", shapes[s].name);
}

static bool
legal_n(const struct ShapeInfo *s, long n)
{
	return n >= 1 && n <= s->max_n && (n & (n - 1)) == 0;
}

/* ".x1, .x2, .x4, ..., .x128", every value written out so the user can copy one. */
static void
legal_n_list(const struct ShapeInfo *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int n = 1; n <= s->max_n && used < len; n *= 2) {
		int w = snprintf(buf + used, len - used, "%s.x%d", n > 1 ? ", " : "", n);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* Writes the reason for a failed parse; why may be NULL or short, it is then cut. */
static bool
fail(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool
fail(char *why, size_t whylen, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* The parts of a dotted opcode; a part quoted in a message is cut at this many bytes. */
enum { MAX_PARTS = 16, QUOTE = 40 };

typedef struct Part {
	const char *s;
	int len;
} Part;

static bool
part_is(Part p, const char *word)
{
	return (size_t)p.len == strlen(word) && memcmp(p.s, word, (size_t)p.len) == 0;
}

/* b16, f32, bf16, s32, u64, f16x2...: a PTX type, so the complaint can be about the type. */
static bool
looks_like_type(Part p)
{
	int i = 0;
	if (p.len < 2 || !memchr("bfsu", p.s[0], 4))
		return false;
	i = (p.s[0] == 'b' && p.s[1] == 'f') ? 2 : 1;
	return i < p.len && p.s[i] >= '1' && p.s[i] <= '9';
}

/* Copies p for a message: at most QUOTE bytes, other than printable ASCII as '?', so a reason stays one line. */
static const char *
show(Part p, char *buf)
{
	int n = p.len > QUOTE ? QUOTE : p.len;
	for (int i = 0; i < n; i++)
		buf[i] = p.s[i] >= 0x20 && p.s[i] < 0x7f ? p.s[i] : '?';
	strcpy(buf + n, p.len > QUOTE ? "..." : "");
	return buf;
}

/* text split on '.' into parts ('::' stays inside a part, as in "pack::16b"): their number, or -1 when
   there are more than MAX_PARTS. */
static int
split_dots(const char *text, Part *parts)
{
	int np = 0;
	for (const char *p = text;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		if (np == MAX_PARTS)
			return -1;
		parts[np++] = (Part){p, len > 1000 ? 1000 : (int)len};
		if (!dot)
			return np;
		p = dot + 1;
	}
}

/* The reduction of tcgen05.ld.red after its .xN, parts[i..np), as the row's slots spell it:
   min|max, then .abs and .NaN (each at most once, in that order, .f32 only), then the type. */
static bool
parse_red(const Part *parts, int i, int np, Opcode *op, Opcode *out, char *why, size_t whylen)
{
	const IsaInstr *in = isa_instr(TC_LD_RED);
	const char *verb = isa_name(TC_LD_RED, 0);
	char q[QUOTE + 8];
	if (op->n < 2)
		return fail(why, whylen, "%s needs .x2 or more: each thread reduces over the columns it loads", verb);
	int at = i;
	for (int k = 0; k < 2 && i < np && op->red == RED_NONE; k++) {
		Buf alt = {0};
		put_alternative(&alt, qual_slot(in, IQ_RED_OP)->values, k);
		if (part_is(parts[i], alt.data + 1)) {
			op->red = k ? RED_MAX : RED_MIN;
			i++;
		}
		buf_free(&alt);
	}
	if (op->red != RED_NONE && i < np && part_is(parts[i], qual_slot(in, IQ_RED_ABS)->values)) {
		op->red_abs = true;
		i++;
	}
	if (op->red != RED_NONE && i < np && part_is(parts[i], qual_slot(in, IQ_RED_NAN)->values)) {
		op->red_nan = true;
		i++;
	}
	bool typed = false;
	for (int k = 0; k < 3 && i < np && op->red != RED_NONE && !typed; k++) {
		Buf alt = {0};
		put_alternative(&alt, qual_slot(in, IQ_RED_TYPE)->values, k);
		typed = part_is(parts[i], alt.data + 1);
		buf_free(&alt);
		op->red_type = (RedType)k;
	}
	bool float_only = (op->red_abs || op->red_nan) && op->red_type != RED_F32;
	if (!typed || float_only || i + 1 != np) {
		int bad = !typed ? i : float_only ? at + 1 : i + 1;
		if (bad >= np)
			strcpy(q, "the end");
		else
			snprintf(q, sizeof q, "'.%.*s'", parts[bad].len > QUOTE ? QUOTE : parts[bad].len, parts[bad].s);
		return fail(why, whylen, "%s.x%d must go on with .min or .max, then .f32 (after .abs, .NaN or both), .u32 or "
		            ".s32; found %s", verb, op->n, q);
	}
	if (out)
		*out = *op;
	return true;
}

bool
opcode_parse(const char *text, Opcode *out, char *why, size_t whylen)
{
	char shapes_text[128];
	shape_list(shapes_text, sizeof shapes_text);
	if (!text)
		return fail(why, whylen, "no opcode");
	char q[QUOTE + 4];
	Part whole = {text, 0};
	while (whole.len <= QUOTE && text[whole.len])
		whole.len++;
	Part parts[MAX_PARTS];
	int np = split_dots(text, parts);
	if (np < 0)
		return fail(why, whylen, "'%s' has too many '.' parts for a tcgen05.ld or tcgen05.st opcode", show(whole, q));

	if (np < 2 || !part_is(parts[0], "tcgen05") || !(part_is(parts[1], "ld") || part_is(parts[1], "st")))
		return fail(why, whylen, "'%s' is not a load or store: apply takes tcgen05.ld.sync.aligned.SHAPE.xN[.pack::16b].b32"
		            " or tcgen05.st.sync.aligned.SHAPE.xN[.unpack::16b].b32", show(whole, q));
	Opcode op = {.is_ld = part_is(parts[1], "ld")};
	/* tcgen05.ld.red: every part after "red" one place further on */
	const char *red_word = strchr(isa_instr(TC_LD_RED)->name, '.') + 1;
	int b = op.is_ld && np > 2 && part_is(parts[2], red_word) ? 1 : 0;
	const char *verb = b ? isa_name(TC_LD_RED, 0) : op.is_ld ? "tcgen05.ld" : "tcgen05.st";
	if (np < 4 + b || !part_is(parts[2 + b], "sync") || !part_is(parts[3 + b], "aligned"))
		return fail(why, whylen, "%s needs .sync.aligned right after '%s'", verb, verb + strlen("tcgen05."));
	if (np < 5 + b)
		return fail(why, whylen, "%s.sync.aligned needs a shape: %s", verb, shapes_text);

	int s = 0;
	while (s < SH_COUNT && !part_is(parts[4 + b], shapes[s].name))
		s++;
	if (s == SH_COUNT)
		return fail(why, whylen, "unknown shape '%s'; the shapes are %s", show(parts[4 + b], q), shapes_text);
	op.shape = (Shape)s;
	const struct ShapeInfo *info = &shapes[s];
	if (b && s != SH_32X32B && s != SH_16X32BX2)
		return fail(why, whylen, "%s takes the shapes %s and %s, not %s", verb, shapes[SH_32X32B].name,
		            shapes[SH_16X32BX2].name, info->name);

	char legal[256];
	legal_n_list(info, legal, sizeof legal);
	if (np < 6 + b)
		return fail(why, whylen, "%s needs a repetition .xN after %s; legal: %s", verb, info->name, legal);
	Part xn = parts[5 + b];
	long n = -1;
	/* Digits only, no sign, no leading zero, at most 9 of them: anything else is not a legal N. */
	if (xn.len >= 2 && xn.len <= 10 && xn.s[0] == 'x' && xn.s[1] != '0') {
		n = 0;
		for (int i = 1; i < xn.len && n >= 0; i++)
			n = (xn.s[i] >= '0' && xn.s[i] <= '9') ? n * 10 + (xn.s[i] - '0') : -1;
	}
	if (!legal_n(info, n)) {
		if (xn.len >= 1 && xn.s[0] == 'x')
			return fail(why, whylen, "'.%s' is not legal for %s; legal: %s", show(xn, q), info->name, legal);
		return fail(why, whylen, "expected a repetition .xN after %s, found '.%s'; legal: %s", info->name, show(xn, q), legal);
	}
	op.n = (int)n;
	if (b)
		return parse_red(parts, 6 + b, np, &op, out, why, whylen);

	int i = 6;
	if (i < np && (part_is(parts[i], pack_name(true)) || part_is(parts[i], pack_name(false)))) {
		if (!part_is(parts[i], pack_name(op.is_ld)))
			return fail(why, whylen, "%s is only for tcgen05.%s; a %s takes .%s", pack_name(!op.is_ld),
			            op.is_ld ? "st" : "ld", op.is_ld ? "load" : "store", pack_name(op.is_ld));
		op.pack = true;
		i++;
	}
	if (i == np)
		return fail(why, whylen, "%s needs the type .b32 at the end", verb);
	if (!part_is(parts[i], "b32")) {
		if (looks_like_type(parts[i]))
			return fail(why, whylen, "type '.%s' is not allowed: %s takes only .b32", show(parts[i], q), verb);
		return fail(why, whylen, "unexpected '.%s' after %s.x%d%s%s; expected %s%s%s.b32", show(parts[i], q), info->name,
		            op.n, op.pack ? "." : "", op.pack ? pack_name(op.is_ld) : "", op.pack ? "" : "[.",
		            op.pack ? "" : pack_name(op.is_ld), op.pack ? "" : "]");
	}
	if (i + 1 < np) {
		if (part_is(parts[i + 1], pack_name(true)) || part_is(parts[i + 1], pack_name(false)))
			return fail(why, whylen, "'.%s' must come before .b32", show(parts[i + 1], q));
		return fail(why, whylen, "unexpected '.%s' after .b32; %s ends with .b32", show(parts[i + 1], q), verb);
	}
	if (out)
		*out = op;
	return true;
}

void
opcode_format(const Opcode *op, char *buf, size_t len)
{
	Buf b = {0};
	spell(&b, op->red ? isa_instr(TC_LD_RED) : ld_st(op->is_ld), 0, op, NULL);
	snprintf(buf, len, "%s", b.data);
	buf_free(&b);
}

void
image_print(FILE *out, const Opcode *op)
{
	char name[96];
	opcode_format(op, name, sizeof name);
	bool two = op->shape == SH_16X32BX2;
	int regs = opcode_regs(op), cols = opcode_tmem_cols(op);
	fprintf(out, "%s: %d register%s per thread, %d lanes x %d column%s%s; rN=(row,col) relative to taddr%s%s\n", name,
	        regs, regs == 1 ? "" : "s", shape_rows(op->shape), cols, cols == 1 ? "" : "s", two ? " per access" : "",
	        two ? ", a0 at taddr, a1 at taddr + imm_half_splitoff" : "",
	        !op->pack ? ""
	        : op->is_ld ? ", (row,low|high): bits 0..15 from cell low, 16..31 from cell high"
	                    : ", (row,low|high): bits 0..15 to cell low, 16..31 to cell high (their high halves undefined)");
	for (int lane = 0; lane < 32; lane++) {
		fprintf(out, "lane %d:", lane);
		for (int r = 0; r < opcode_regs(op); r++) {
			ImageCell c = image_cell(op, lane, r);
			fprintf(out, " r%d=", r);
			if (two)
				fprintf(out, "a%d:", c.access);
			if (op->pack)
				fprintf(out, "(%d,%d|%d)", c.row, 2 * c.col, 2 * c.col + 1);
			else
				fprintf(out, "(%d,%d)", c.row, c.col);
		}
		fputc('\n', out);
	}
}

/* ---------------------------------------------------------------- tcgen05.cp forms and images */

/* The six routes: the one table the image functions read (TCGEN05.md 10.2; CUTLASS's SM100_UTCCP_* and
   TVM's B200-run table agree, Triton names the two warpx2 routes the other way round). Source row r's
   replica k lands in lane (r / group) * group_step + (r % group) * row_step + k * replica_step from
   taddr's lane (CpLaneRule, which the emulator's runtime/tilec_cp.h takes as it is); chunk c of a row
   goes to columns 4c..4c+3 of each of its lanes. */
static const struct CpRouteInfo {
	const char *name; /* shape, and ".multicast" where the shape takes one */
	int rows, chunks, replicas;
	CpLaneRule lanes;
} cp_routes[CP_ROUTE_COUNT] = {
	/*                                                          group step row replica */
	[CP_128X256B] = {"128x256b", 128, 2, 1,                    {128, 0, 1, 0}},
	[CP_4X256B] = {"4x256b", 4, 2, 1,                          {128, 0, 32, 0}},
	[CP_128X128B] = {"128x128b", 128, 1, 1,                    {128, 0, 1, 0}},
	[CP_64X128B_02_13] = {"64x128b.warpx2::02_13", 64, 1, 2,   {128, 0, 1, 64}},
	[CP_64X128B_01_23] = {"64x128b.warpx2::01_23", 64, 1, 2,   {32, 64, 1, 32}},
	[CP_32X128B_WARPX4] = {"32x128b.warpx4", 32, 1, 4,         {128, 0, 1, 32}},
};

static const struct CpRouteInfo *
cp_route(CpRoute r)
{
	if ((unsigned)r >= CP_ROUTE_COUNT)
		fatal("tcgen05.cp route %d out of range", (int)r);
	return &cp_routes[r];
}

static const char *cp_route_name(CpRoute r) { return cp_route(r)->name; }
int cp_rows(CpRoute r) { return cp_route(r)->rows; }
int cp_chunks(CpRoute r) { return cp_route(r)->chunks; }
int cp_replicas(CpRoute r) { return cp_route(r)->replicas; }
int cp_tmem_cols(CpRoute r) { return cp_route(r)->chunks * CP_CHUNK_WORDS; }
int cp_col(int chunk, int word) { return CP_CHUNK_WORDS * chunk + word; }
const CpLaneRule *cp_lane_rule(CpRoute r) { return &cp_route(r)->lanes; }

int
cp_lane(CpRoute r, int row, int replica)
{
	const struct CpRouteInfo *info = cp_route(r);
	if (row < 0 || row >= info->rows || replica < 0 || replica >= info->replicas)
		fatal("cp_lane: row %d, replica %d outside tcgen05.cp %s", row, replica, info->name);
	const CpLaneRule *l = &info->lanes;
	return row / l->group * l->group_step + row % l->group * l->row_step + replica * l->replica_step;
}

CpForm
cp_form_at(int i)
{
	if (i < 0 || i >= CP_FORM_COUNT)
		fatal("tcgen05.cp form %d out of range", i);
	return (CpForm){.route = (CpRoute)(i % CP_ROUTE_COUNT), .decomp = (CpDecomp)(i / CP_ROUTE_COUNT % CPD_COUNT),
	                .cta_group = 1 + i / (CP_ROUTE_COUNT * CPD_COUNT)};
}

const char *
cp_form_spelling(const CpForm *f)
{
	Buf b = {0};
	spell(&b, isa_instr(TC_CP), f->cta_group, NULL, f);
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

const char *
cp_decomp_name(CpDecomp d)
{
	if (d == CPD_NONE)
		return "";
	Buf b = {0};
	put_alternative(&b, qual_slot(isa_instr(TC_CP), IQ_CP_DECOMP)->values, (int)d - 1);
	const char *r = pool_strdup(b.data + 1);
	buf_free(&b);
	return r;
}

/* The length of a route name's shape: up to its '.'. */
static int
route_shape_len(const char *name)
{
	const char *dot = strchr(name, '.');
	return dot ? (int)(dot - name) : (int)strlen(name);
}

/* "128x256b, 4x256b, ...": each shape once, in the table's order; with multicast set, the routes that
   have a multicast, each as "SHAPE.MULTICAST"; with shape set, that shape's multicasts, as ".MULTICAST". */
static void
cp_route_list(Buf *b, bool multicast, const Part *shape)
{
	for (int r = 0; r < CP_ROUTE_COUNT; r++) {
		const char *name = cp_routes[r].name;
		int n = route_shape_len(name);
		bool seen = false;
		for (int e = 0; e < r && !multicast && !shape; e++)
			seen |= route_shape_len(cp_routes[e].name) == n && memcmp(cp_routes[e].name, name, (size_t)n) == 0;
		if (seen || ((multicast || shape) && !name[n]))
			continue;
		if (shape && (shape->len != n || memcmp(shape->s, name, (size_t)n) != 0))
			continue;
		buf_printf(b, "%s", b->len ? (shape ? " or " : ", ") : "");
		if (shape)
			buf_printf(b, "%s", name + n);
		else if (multicast)
			buf_printf(b, "%s", name);
		else
			buf_putn(b, name, (size_t)n);
	}
}

static bool
looks_like_multicast(Part p)
{
	return p.len >= 5 && memcmp(p.s, "warpx", 5) == 0;
}

bool
cp_form_parse(const char *text, CpForm *out, char *why, size_t whylen)
{
	if (!text)
		return fail(why, whylen, "no opcode");
	char q[QUOTE + 4], shape[QUOTE + 4];
	Part whole = {text, 0};
	while (whole.len <= QUOTE && text[whole.len])
		whole.len++;
	Part parts[MAX_PARTS];
	int np = split_dots(text, parts);
	const char *verb = isa_name(TC_CP, 0);
	if (np < 0)
		return fail(why, whylen, "'%s' has too many '.' parts for a %s opcode", show(whole, q), verb);
	if (np < 2 || !part_is(parts[0], "tcgen05") || !part_is(parts[1], "cp"))
		return fail(why, whylen, "'%s' is not a %s opcode", show(whole, q), verb);
	CpForm f = {0};
	if (np >= 3 && part_is(parts[2], "cta_group::1"))
		f.cta_group = 1;
	else if (np >= 3 && part_is(parts[2], "cta_group::2"))
		f.cta_group = 2;
	else
		return fail(why, whylen, "%s needs .cta_group::1 or .cta_group::2 right after 'cp'", verb);

	Buf list = {0};
	bool ok = true;
	int i = 4;
	if (np < 4) {
		cp_route_list(&list, false, NULL);
		ok = fail(why, whylen, "%s needs a shape: %s", verb, list.data);
		goto done;
	}
	int route = -1;
	bool shape_known = false;
	for (int r = 0; r < CP_ROUTE_COUNT; r++) {
		const char *name = cp_routes[r].name;
		int n = route_shape_len(name);
		if (parts[3].len != n || memcmp(parts[3].s, name, (size_t)n) != 0)
			continue;
		shape_known = true;
		if (!name[n] || (i < np && part_is(parts[i], name + n + 1)))
			route = r;
	}
	if (!shape_known) {
		cp_route_list(&list, false, NULL);
		ok = fail(why, whylen, "unknown %s shape '%s'; the shapes are %s", verb, show(parts[3], q), list.data);
		goto done;
	}
	if (route < 0) {
		cp_route_list(&list, false, &parts[3]);
		if (i < np && looks_like_multicast(parts[i]))
			ok = fail(why, whylen, "'.%s' is not a multicast of %s; it takes %s", show(parts[i], q),
			          show(parts[3], shape), list.data);
		else
			ok = fail(why, whylen, "%s needs a multicast after %s: %s", verb, show(parts[3], q), list.data);
		goto done;
	}
	f.route = (CpRoute)route;
	if (strchr(cp_routes[route].name, '.'))
		i++;
	else if (i < np && looks_like_multicast(parts[i])) {
		cp_route_list(&list, true, NULL);
		ok = fail(why, whylen, "%s takes no multicast, found '.%s'; the routes with one are %s", cp_routes[route].name,
		          show(parts[i], q), list.data);
		goto done;
	}
	if (i < np) {
		/* ".b8x16.b6x16_p32": two parts of the text, one alternative of the slot */
		for (int d = 1; d < CPD_COUNT && !f.decomp; d++) {
			const char *name = cp_decomp_name((CpDecomp)d), *dot = strchr(name, '.');
			if (i + 1 < np && parts[i].len == (int)(dot - name) && memcmp(parts[i].s, name, (size_t)(dot - name)) == 0 &&
			    part_is(parts[i + 1], dot + 1))
				f.decomp = (CpDecomp)d;
		}
		if (!f.decomp) {
			ok = fail(why, whylen, "unexpected '.%s' after %s; a decompression is .%s or .%s", show(parts[i], q),
			          cp_routes[route].name, cp_decomp_name(CPD_B6X16_P32), cp_decomp_name(CPD_B4X16_P64));
			goto done;
		}
		i += 2;
	}
	if (i < np) {
		ok = fail(why, whylen, "unexpected '.%s' after .%s; %s ends with its shape, multicast and decompression",
		          show(parts[i], q), f.decomp ? cp_decomp_name(f.decomp) : cp_routes[route].name, verb);
		goto done;
	}
	if (out)
		*out = f;
done:
	buf_free(&list);
	return ok;
}

bool
cp_form_of_option(const char *text, CpForm *out, int *status)
{
	const IsaInstr *family = isa_family(text);
	if (!family || family->kind != TC_CP)
		return false;
	char why[256];
	*status = 0;
	if (!cp_form_parse(text, out, why, sizeof why)) {
		error(no_loc, "%s", why);
		*status = 2;
	}
	return true;
}

void
cp_image_print(FILE *out, const CpForm *f)
{
	const struct CpRouteInfo *info = cp_route(f->route);
	int last = 0;
	for (int r = 0; r < info->rows; r++)
		for (int k = 0; k < info->replicas; k++)
			last = cp_lane(f->route, r, k) > last ? cp_lane(f->route, r, k) : last;
	fprintf(out, "%s: %d rows x %d chunk%s of 16 bytes (%d bytes) -> %d lanes of 0..%d x %d columns; row r, chunk c -> "
	        "lanes, columns relative to taddr; word w of a chunk (bytes 4w..4w+3) in column 4c+w%s%s\n",
	        cp_form_spelling(f), info->rows, info->chunks, info->chunks == 1 ? "" : "s",
	        info->rows * info->chunks * CP_CHUNK_BYTES, info->rows * info->replicas, last, cp_tmem_cols(f->route),
	        f->decomp == CPD_NONE ? ""
	        : f->decomp == CPD_B4X16_P64 ? "; each chunk's first 8 bytes (16 fp4 values) become its 16 bytes"
	                                     : "; each chunk's first 12 bytes (16 fp6 values) become its 16 bytes",
	        f->cta_group == 2 ? "; each CTA of the pair from its own shared memory into its own TMEM" : "");
	for (int r = 0; r < info->rows; r++) {
		fprintf(out, "row %d:", r);
		for (int c = 0; c < info->chunks; c++) {
			fprintf(out, " c%d=lanes ", c);
			for (int k = 0; k < info->replicas; k++)
				fprintf(out, "%s%d", k ? "," : "", cp_lane(f->route, r, k));
			fprintf(out, " cols %d..%d", cp_col(c, 0), cp_col(c, CP_CHUNK_WORDS - 1));
		}
		fputc('\n', out);
	}
}

#define TL_CP_FN static inline
#include "tilec_cp.h"

void
cp_decompress_chunk(CpDecomp d, bool b6_high, const uint8_t in[CP_CHUNK_BYTES], uint8_t out[CP_CHUNK_BYTES])
{
	tl_cp_decompress((unsigned)d, b6_high, in, out);
}

bool
cp_run_cells(const CpForm *f, const uint8_t *window, uint32_t base, uint64_t desc, uint32_t taddr, bool b6_high,
             uint32_t *cells, int ncols)
{
	const struct CpRouteInfo *info = cp_route(f->route);
	const CpLaneRule *l = &info->lanes;
	SmemSwizzle sw;
	if (!smem_swizzle_of_code((int)(desc >> 61), &sw))
		return false;
	const SwizzleInfo *swi = smem_swizzle_info(sw);
	return tl_cp_run(window, base, desc, (unsigned)swi->width, (unsigned)swi->xor_mask, (unsigned)swi->xor_at, taddr,
	                 (unsigned)info->rows, (unsigned)info->chunks, (unsigned)info->replicas, (unsigned)l->group,
	                 (unsigned)l->group_step, (unsigned)l->row_step, (unsigned)l->replica_step, (unsigned)f->decomp,
	                 b6_high, cells, (unsigned)ncols) == 0;
}

/* ---------------------------------------------------------------- tcgen05.mma's kinds

   TCGEN05.md 9 and 15: per kind the A / B element types and their format codes in the instruction
   descriptor (kind::f16: F16 0, BF16 1; kind::tf32: TF32 2, read from f32 storage; kind::f8f6f4: E4M3 0,
   E5M2 1, E2M3 3, E3M2 4, E2M1 5), and the K of one instruction: 32 bytes of every row. The kinds' names are
   the values of the mma row's IQ_MMA_KIND slot, in MmaKind's order. The block-scaled kinds (TCGEN05.md 15):
   kind::mxf8f6f4 takes the types and codes of kind::f8f6f4 (one byte each); kind::mxf4 and kind::mxf4nvf4 take
   e2m1 packed two to a byte (MXF4 format code E2M1 = 1, CUTLASS), 64 values in 32 bytes. */
static const MmaKindInfo mma_kinds[] = {
	{MMA_F16, 2, {T_F16, T_BF16}, {0, 1}, 32, "f16 or bf16"},
	{MMA_TF32, 1, {T_F32}, {2}, 32, "f32 (read as tf32)"},
	{MMA_F8F6F4, 5, {T_E4M3, T_E5M2, T_E2M3, T_E3M2, T_E2M1}, {0, 1, 3, 4, 5}, 32,
	 "e4m3, e5m2, e2m3, e3m2 or e2m1"},
	{MMA_MXF8F6F4, 5, {T_E4M3, T_E5M2, T_E2M3, T_E3M2, T_E2M1}, {0, 1, 3, 4, 5}, 32,
	 "e4m3, e5m2, e2m3, e3m2 or e2m1"},
	{MMA_MXF4, 1, {T_E2M1}, {1}, 32, "e2m1 (packed)"},
	{MMA_MXF4NVF4, 1, {T_E2M1}, {1}, 32, "e2m1 (packed)"},
};

const MmaKindInfo *
mma_kind_info(MmaKind k)
{
	if ((unsigned)k >= MMA_KIND_COUNT)
		fatal("mma kind %d out of range", (int)k);
	return &mma_kinds[k];
}

int
mma_type_code(MmaKind k, EType t)
{
	const MmaKindInfo *info = mma_kind_info(k);
	for (int i = 0; i < info->ntypes; i++)
		if (info->types[i] == t)
			return info->codes[i];
	return -1;
}

bool
mma_kind_of(EType t, MmaKind *out)
{
	for (int k = 0; k < MMA_KIND_COUNT; k++)
		if (mma_type_code((MmaKind)k, t) >= 0) {
			*out = (MmaKind)k;
			return true;
		}
	return false;
}

int
mma_d_code(EType d)
{
	return d == T_F32 ? 1 : d == T_F16 ? 0 : -1;
}

const char *
mma_spelling(int cta_group, MmaKind k)
{
	const IsaInstr *in = isa_instr(TC_MMA);
	Buf b = {0};
	buf_printf(&b, "%s.%s", family(in), in->name);
	for (int i = 0; i < in->nquals; i++) {
		const IsaQualSlot *q = &in->quals[i];
		if (q->kind == IQ_CTA_GROUP)
			put_alternative(&b, q->values, cta_group - 1);
		else if (q->kind == IQ_MMA_KIND)
			put_alternative(&b, q->values, (int)k);
		else
			buf_printf(&b, ".%s", q->values);
	}
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* TCGEN05.md 15: a block-scaled kind's spelling adds .block_scale and the scale vector size (scale_vec::1X for
   kind::mxf8f6f4, 2X for kind::mxf4, 2X or 4X for kind::mxf4nvf4). */
const char *
mma_scaled_spelling(int cta_group, MmaKind k, int scale_vec)
{
	if (k < MMA_MXF8F6F4 || (scale_vec != 1 && scale_vec != 2 && scale_vec != 4))
		fatal("mma_scaled_spelling: kind %d with scale_vec %d", (int)k, scale_vec);
	return pool_printf("%s.block_scale.scale_vec::%dX", mma_spelling(cta_group, k), scale_vec);
}

const char *
mma_instr_spelling(int cta_group, const MmaInstr *in)
{
	return in->scale_vec ? mma_scaled_spelling(cta_group, in->kind, in->scale_vec) : mma_spelling(cta_group, in->kind);
}

/* The TMA instructions (TCGEN05.md 14.1, 14.2): a copy's opcode by direction and rank, and the bulk group's
   commit and read wait, which tilec places after stores. */
const char *
tma_opcode(const TmaCopy *c)
{
	if (c->wait_read)
		return tma_bulk_spelling(true);
	if (c->store)
		return pool_printf("cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group", c->map->rank);
	return pool_printf("cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes%s",
	                   c->map->rank, c->multicast ? ".multicast::cluster" : "");
}

const char *
tma_bulk_spelling(bool wait_read)
{
	return wait_read ? "cp.async.bulk.wait_group.read 0" : "cp.async.bulk.commit_group";
}

/* The warp's matrix copy between registers and shared memory that vectorize.c chooses (TCGEN05.md 14.5):
   x4, four 8 x 8 matrices of 16-bit elements, a register word of each per lane. */
const char *
isa_matrix(bool store, bool trans)
{
	return store ? (trans ? "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16" : "stmatrix.sync.aligned.m8n8.x4.shared.b16")
	             : (trans ? "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" : "ldmatrix.sync.aligned.m8n8.x4.shared.b16");
}
