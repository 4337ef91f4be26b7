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
 *   mma       .cta_group, kind (kind::f16, kind::tf32, kind::f8f6f4, ...); [IO_TMEM_ADDR],
 *             IO_SHARED_DESC64, IO_SHARED_DESC64, IO_INSTR_DESC32, IO_PRED; completes at commit
 *   commit    .cta_group, .mbarrier::arrive::one, .shared::cluster, multicast, .b64; [IO_MBARRIER_ADDR]
 *   mbarrier  init, arrive, expect_tx, try_wait (state space .shared::cta, .b64): IO_MBARRIER_ADDR,
 *             IO_IMM (count, bytes), IO_PRED (try_wait's result)
 *   TMA       cp.async.bulk.tensor: dimension, direction, .tile, .mbarrier::complete_tx::bytes, multicast,
 *             .cta_group; IO_TENSOR_MAP, IO_MBARRIER_ADDR */
#define Q(kind, values) {kind, values}
#define SYNC_ALIGNED Q(IQ_WORD, "sync.aligned")
#define CTA_GROUP Q(IQ_CTA_GROUP, "cta_group::1|cta_group::2")
#define OPND(kind, bracketed) {kind, bracketed, false, false}
#define SPLIT_IMM {IO_IMM, false, true, false}
#define WRITTEN_REGS {IO_REG_VECTOR, false, false, true}
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
};
#undef Q
#undef SYNC_ALIGNED
#undef CTA_GROUP
#undef OPND
#undef SPLIT_IMM
#undef WRITTEN_REGS

/* The lowest PTX ISA version that ptxas (CUDA 13.0) accepts for each target with every tcgen05
 * instruction tilec emits: tcgen05 needs 8.6; the f variants of sm_100 and both of sm_103 need 8.8;
 * sm_110 needs 9.0 (each checked with `ptxas -arch=...` on the lower versions, which it rejects).
 * The first row is the default. f32x2: ptxas (CUDA 13.0) makes FADD2, FMUL2 and FFMA2 of the packed
 * f32 operations for sm_100 and sm_103 and splits them into scalar ones for sm_110. */
static const Arch archs[] = {
	{"sm_100a", "8.6", true}, {"sm_100f", "8.8", true}, {"sm_103a", "8.8", true},
	{"sm_103f", "8.8", true}, {"sm_110a", "9.0", false}, {"sm_110f", "9.0", false},
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
spell(Buf *b, const IsaInstr *in, int cta_group, const Opcode *op)
{
	buf_printf(b, "tcgen05.%s", in->name);
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
		}
	}
}

const char *
isa_format(const IsaInstr *in, int cta_group, const Opcode *op)
{
	Buf b = {0};
	spell(&b, in, cta_group, op);
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
			spell(&b, in, group, NULL);
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

const char *
isa_name(TcKind kind, int cta_group)
{
	const IsaInstr *in = isa_instr(kind);
	const IsaQualSlot *cg = qual_slot(in, IQ_CTA_GROUP);
	Buf b = {0};
	buf_printf(&b, "tcgen05.%s", in->name);
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
	/* Split on '.': '::' stays inside a part, as in "pack::16b". */
	Part parts[MAX_PARTS];
	int np = 0;
	for (const char *p = text;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		if (np == MAX_PARTS)
			return fail(why, whylen, "'%s' has too many '.' parts for a tcgen05.ld or tcgen05.st opcode", show(whole, q));
		parts[np++] = (Part){p, len > 1000 ? 1000 : (int)len};
		if (!dot)
			break;
		p = dot + 1;
	}

	if (np < 2 || !part_is(parts[0], "tcgen05") || !(part_is(parts[1], "ld") || part_is(parts[1], "st")))
		return fail(why, whylen, "'%s' is not a load or store: apply takes tcgen05.ld.sync.aligned.SHAPE.xN[.pack::16b].b32"
		            " or tcgen05.st.sync.aligned.SHAPE.xN[.unpack::16b].b32", show(whole, q));
	Opcode op = {.is_ld = part_is(parts[1], "ld")};
	const char *verb = op.is_ld ? "tcgen05.ld" : "tcgen05.st";
	if (np < 4 || !part_is(parts[2], "sync") || !part_is(parts[3], "aligned"))
		return fail(why, whylen, "%s needs .sync.aligned right after '%s'", verb, op.is_ld ? "ld" : "st");
	if (np < 5)
		return fail(why, whylen, "%s.sync.aligned needs a shape: %s", verb, shapes_text);

	int s = 0;
	while (s < SH_COUNT && !part_is(parts[4], shapes[s].name))
		s++;
	if (s == SH_COUNT)
		return fail(why, whylen, "unknown shape '%s'; the shapes are %s", show(parts[4], q), shapes_text);
	op.shape = (Shape)s;
	const struct ShapeInfo *info = &shapes[s];

	char legal[256];
	legal_n_list(info, legal, sizeof legal);
	if (np < 6)
		return fail(why, whylen, "%s needs a repetition .xN after %s; legal: %s", verb, info->name, legal);
	Part xn = parts[5];
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
	spell(&b, ld_st(op->is_ld), 0, op);
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
