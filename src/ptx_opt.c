/* ptx_opt.c: the PTX back end's passes over a kernel's instruction records (tilec.h, ptx_opt.c:
 * PTX instruction records) and their text: the CSE key of a pure instruction, loop-invariant
 * motion, and the printing of the records once the kernel is complete. emit_ptx.c makes the
 * records; docs/ptx.md, Instruction records. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

void
ptx_put_int(Buf *b, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[n++] = '-';
	char rev[24];
	for (int i = 0; i < n; i++)
		rev[i] = tmp[n - 1 - i];
	rev[n] = 0;
	buf_puts(b, rev);
}

/* The register name of word w of local tensor t: %NAME_W. Underscore-and-digits never occurs in the
 * temporaries (%r7, %f2, ...), and NAME_W splits uniquely at its last underscore, so no two tensors
 * collide. A few special registers have the same shape (%pm0_64, %reserved_smem_offset_0): those
 * names get a tl_ prefix, which no tilec name starts with. */
void
ptx_put_word(Buf *b, const Tensor *t, int w)
{
	const char *name = t->cname;
	bool special = strcmp(name, "reserved_smem_offset") == 0 ||
	               (name[0] == 'p' && name[1] == 'm' && name[2] >= '0' && name[2] <= '7' && !name[3]);
	buf_puts(b, special ? "%tl_" : "%");
	buf_puts(b, name);
	buf_putc(b, '_');
	ptx_put_int(b, w);
}

static void
put_op(Buf *b, Opnd o)
{
	static const char hex[] = "0123456789ABCDEF";
	switch (o.k) {
	case O_R: buf_puts(b, "%r"); ptx_put_int(b, o.n); break;
	case O_F: buf_puts(b, "%f"); ptx_put_int(b, o.n); break;
	case O_H: buf_puts(b, "%h"); ptx_put_int(b, o.n); break;
	case O_P: buf_puts(b, "%p"); ptx_put_int(b, o.n); break;
	case O_D: buf_puts(b, "%rd"); ptx_put_int(b, o.n); break;
	case O_IMM: ptx_put_int(b, o.v); break;
	case O_FIMM: {
		char tmp[11] = "0f";
		for (int i = 0; i < 8; i++)
			tmp[2 + i] = hex[(o.v >> (28 - 4 * i)) & 15];
		tmp[10] = 0;
		buf_puts(b, tmp);
		break;
	}
	case O_WORD: ptx_put_word(b, o.t, o.n); break;
	case O_NONE: fatal("emit_ptx: an operand without a value");
	}
}

static void
put_addr(Buf *b, const Addr *a)
{
	buf_putc(b, '[');
	if (a->sym)
		buf_puts(b, a->sym);
	else
		put_op(b, a->base);
	if (a->off) { /* a negative offset is written +-N (ptxas refuses [%rd1-256]) */
		buf_putc(b, '+');
		ptx_put_int(b, a->off);
	}
	buf_putc(b, ']');
}

/* The index of register n of kind k (O_R, O_F, O_H, O_P, O_D) in a table of registers. */
size_t
ptx_reg_index(OKind k, int n)
{
	int kind = k == O_R ? 0 : k == O_F ? 1 : k == O_H ? 2 : k == O_P ? 3 : 4;
	return 5 * (size_t)n + (size_t)kind;
}

/* An operand as written; in a CSE key (key set) a var's register carries its assignment count, and
 * the return says whether the operand is a register that is assigned more than once (a var, a
 * tensor word), which makes a key useless. */
static bool
put_piece(Buf *b, const PtxRec *r, const PtxPiece *p, bool key)
{
	switch (p->k) {
	case PC_TEXT: buf_puts(b, p->text); return false;
	case PC_INT: ptx_put_int(b, p->i); return false;
	case PC_COMMA: buf_puts(b, ", "); return false;
	case PC_ADDR: put_addr(b, &p->a); return p->a.base.mut;
	case PC_DEST:
		if (key)
			buf_putc(b, '#');
		else
			put_op(b, r->dest);
		return false;
	case PC_OPND:
		put_op(b, p->o);
		if (key && p->o.mut && (p->o.k == O_R || p->o.k == O_F)) {
			/* a var's register: the same value until it is assigned again */
			buf_putc(b, '@');
			ptx_put_int(b, p->version);
			return false;
		}
		return p->o.mut;
	}
	return false;
}

/* The text of an instruction record without its tab and newline. Returns whether an operand makes a
 * CSE key useless (put_piece). */
bool
ptx_put_instr(Buf *b, const PtxRec *r, bool key)
{
	bool mut = false;
	if (r->guard.k != O_NONE) {
		buf_puts(b, r->negated ? "@!" : "@");
		put_op(b, r->guard);
		buf_putc(b, ' ');
	}
	buf_puts(b, r->opcode);
	if (r->npc)
		buf_putc(b, ' ');
	for (int i = 0; i < r->npc; i++)
		mut |= put_piece(b, r, &r->pc[i], key);
	buf_putc(b, ';');
	return mut;
}

/* The kernel's body: its records as PTX text. */
void
ptx_print(Buf *b, const PtxRec *recs, size_t n, int ki)
{
	for (size_t i = 0; i < n; i++) {
		const PtxRec *r = &recs[i];
		switch (r->kind) {
		case RK_INSTR:
			buf_putc(b, '\t');
			ptx_put_instr(b, r, false);
			break;
		case RK_LABEL:
			buf_puts(b, "$L_");
			ptx_put_int(b, ki);
			buf_putc(b, '_');
			ptx_put_int(b, r->label);
			buf_putc(b, ':');
			break;
		case RK_COMMENT:
			buf_puts(b, "\t// ");
			buf_puts(b, r->opcode);
			/* ptxas reads ASCII */
			for (const unsigned char *s = (const unsigned char *)r->text; s && *s; s++)
				buf_putc(b, *s >= 0x20 && *s < 0x7f ? (char)*s : *s == '\t' ? ' ' : '?');
			if (r->dest.k != O_NONE)
				put_op(b, r->dest);
			break;
		}
		buf_putc(b, '\n');
	}
}

/* The ptx_reg_index of a piece's register (a temporary: %r, %f, %h, %p, %rd); -1 for a tensor
 * word, -2 for anything else (an immediate, text). */
static long
piece_register(const PtxRec *r, const PtxPiece *p)
{
	Opnd o = {O_NONE, 0, 0, NULL, false};
	if (p->k == PC_DEST)
		o = r->dest;
	else if (p->k == PC_OPND)
		o = p->o;
	else if (p->k == PC_ADDR && !p->a.sym)
		o = p->a.base;
	switch (o.k) {
	case O_R: case O_F: case O_H: case O_P: case O_D: return (long)ptx_reg_index(o.k, o.n);
	case O_WORD: return -1;
	default: return -2;
	}
}

/* Whether ptx_loop_invariants may move the record: an unpredicated instruction whose first operand
 * is a register that a pure instruction made (pure_dest), and neither a memory access (but for a
 * parameter's) nor collective. */
static bool
movable(const PtxRec *r, const unsigned char *pure_dest, size_t pure_cap)
{
	if (r->kind != RK_INSTR || r->guard.k != O_NONE || (r->flags & (PF_LOAD | PF_STORE | PF_SYNC)) || !r->npc ||
	    r->first_memory)
		return false;
	long d = piece_register(r, &r->pc[0]);
	return d >= 0 && (size_t)d < pure_cap && pure_dest[d];
}

/* Loop-invariant code motion over the records of a loop, from top (its first label) to the last: each
 * pure instruction whose operands no instruction of the loop writes (or only those moved
 * already) moves before the loop, as nvcc's does: a row's address, its bounds tests and the
 * parameters are then computed once, not in every iteration (copy_edge_ref: 40 registers, N so). */
void
ptx_loop_invariants(PtxRec *recs, size_t top, size_t end, const unsigned char *pure_dest, size_t pure_cap,
                    size_t nregs)
{
	/* the registers written in the loop: those of a first operand that is no memory operand; the
	   table covers every register so far (a var's may lie beyond pure_cap) */
	size_t ncap = nregs;
	unsigned char *written = pool_alloc(ncap);
	memset(written, 0, ncap);
	for (size_t i = top; i < end; i++) {
		const PtxRec *r = &recs[i];
		if (r->kind != RK_INSTR || r->first_memory)
			continue;
		for (int j = 0; j < r->npc && r->pc[j].k != PC_COMMA; j++) {
			long reg = piece_register(r, &r->pc[j]);
			if (reg >= 0 && (size_t)reg < ncap)
				written[reg] = 1;
		}
	}
	PtxRec *moved = malloc((end - top + 1) * sizeof *moved), *rest = malloc((end - top + 1) * sizeof *rest);
	if (!moved || !rest)
		out_of_memory();
	size_t nmoved = 0, nrest = 0;
	for (size_t i = top; i < end; i++) {
		const PtxRec *r = &recs[i];
		bool move = movable(r, pure_dest, pure_cap);
		/* the sources: every register after the destination */
		for (int j = 1; move && j < r->npc; j++) {
			long reg = piece_register(r, &r->pc[j]);
			if (reg >= 0 && ((size_t)reg >= ncap || written[reg]))
				move = false; /* written in the loop, or no register of this kernel's */
			else if (reg == -1)
				move = false; /* a tensor word: assigned anywhere */
		}
		if (move) {
			written[piece_register(r, &r->pc[0])] = 0;
			moved[nmoved++] = *r;
		} else {
			rest[nrest++] = *r;
		}
	}
	if (nmoved) {
		memcpy(recs + top, moved, nmoved * sizeof *moved);
		memcpy(recs + top + nmoved, rest, nrest * sizeof *rest);
	}
	free(moved);
	free(rest);
}

/* ---------------------------------------------------------------- packed f32x2 arithmetic */

/* The scalar f32 operations that sm_100 and sm_103 also execute two at a time on a 64-bit register
 * pair (FADD2, FMUL2, FFMA2): each half of the packed form is rounded as the scalar one is (.rn, no
 * .ftz), so packing changes no bit of a result. */
static const struct {
	const char *scalar, *packed;
	int nsrc;
} f32x2_ops[] = {
	{"add.rn.f32", "add.rn.f32x2", 2},
	{"sub.rn.f32", "sub.rn.f32x2", 2},
	{"mul.rn.f32", "mul.rn.f32x2", 2},
	{"fma.rn.f32", "fma.rn.f32x2", 3},
};

/* The longest stretch of records tried as one iteration of a loop that tilec unrolled. */
#define F32X2_SPAN 256

static bool
is_register(Opnd o)
{
	return o.k == O_R || o.k == O_F || o.k == O_H || o.k == O_P || o.k == O_D || o.k == O_WORD;
}

static bool
same_register(Opnd a, Opnd b)
{
	return is_register(a) && a.k == b.k && a.n == b.n && a.t == b.t;
}

/* The row of f32x2_ops of an unguarded "OP d, a, b[, c]" whose sources are f32 registers or
 * immediates; -1 for any other record. */
static int
f32x2_row(const PtxRec *r)
{
	if (r->kind != RK_INSTR || r->guard.k != O_NONE || r->first_memory || !r->opcode)
		return -1;
	for (int op = 0; op < (int)(sizeof f32x2_ops / sizeof f32x2_ops[0]); op++) {
		if (strcmp(r->opcode, f32x2_ops[op].scalar) != 0)
			continue;
		if (r->npc != 2 * f32x2_ops[op].nsrc + 1 || !(r->pc[0].k == PC_DEST || r->pc[0].k == PC_OPND))
			return -1;
		for (int s = 1; s < r->npc; s++) {
			const PtxPiece *p = &r->pc[s];
			if (s % 2 ? p->k != PC_COMMA : p->k != PC_OPND || !(is_register(p->o) || p->o.k == O_FIMM))
				return -1;
		}
		return op;
	}
	return -1;
}

static Opnd
f32x2_dest(const PtxRec *r)
{
	return r->pc[0].k == PC_DEST ? r->dest : r->pc[0].o;
}

/* The registers one record reads and writes. */
typedef struct RegUse {
	Opnd read[12], write[4];
	int nread, nwrite;
} RegUse;

/* What r reads and writes; false when it is no straight-line register computation (a label, a
 * branch, a memory write, a collective, a guard, a register vector), which is never moved. */
static bool
reg_use(const PtxRec *r, RegUse *u)
{
	u->nread = u->nwrite = 0;
	if (r->kind == RK_COMMENT)
		return true;
	if (r->kind != RK_INSTR || r->guard.k != O_NONE || (r->flags & ~(unsigned)(PF_PURE | PF_LOAD)) ||
	    ((r->flags & PF_LOAD) && !(r->flags & PF_PURE)) || !r->npc)
		return false;
	bool dest = !r->first_memory; /* the registers before the first comma are written */
	for (int j = 0; j < r->npc; j++) {
		const PtxPiece *p = &r->pc[j];
		if (p->k == PC_TEXT && p->text[0] == '{')
			return false;
		if (p->k == PC_COMMA)
			dest = false;
		Opnd none = {O_NONE, 0, 0, NULL, false};
		Opnd o = p->k == PC_DEST ? r->dest : p->k == PC_OPND ? p->o : p->k == PC_ADDR && !p->a.sym ? p->a.base : none;
		if (!is_register(o))
			continue;
		if (dest ? u->nwrite == 4 : u->nread == 12)
			return false;
		if (dest)
			u->write[u->nwrite++] = o;
		else
			u->read[u->nread++] = o;
	}
	return true;
}

static bool
uses_any(const Opnd *regs, int n, const Opnd *of, int nof)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < nof; j++)
			if (same_register(regs[i], of[j]))
				return true;
	return false;
}

/* Whether b may run before a (a came first): neither writes what the other reads or writes. */
static bool
reorderable(const RegUse *a, const RegUse *b)
{
	return !uses_any(b->write, b->nwrite, a->read, a->nread) && !uses_any(b->write, b->nwrite, a->write, a->nwrite) &&
	       !uses_any(a->write, a->nwrite, b->read, b->nread);
}

/* Whether two records do the same thing on other operands: one iteration's record and the next's. */
static bool
isomorphic(const PtxRec *a, const PtxRec *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind != RK_INSTR)
		return a->kind == RK_COMMENT;
	if (a->flags != b->flags || a->npc != b->npc || a->first_memory != b->first_memory ||
	    a->guard.k != b->guard.k || !a->opcode || !b->opcode || strcmp(a->opcode, b->opcode) != 0)
		return false;
	for (int j = 0; j < a->npc; j++) {
		const PtxPiece *p = &a->pc[j], *q = &b->pc[j];
		if (p->k != q->k || (p->k == PC_TEXT && strcmp(p->text, q->text) != 0) || (p->k == PC_INT && p->i != q->i) ||
		    (p->k == PC_OPND && p->o.k != q->o.k))
			return false;
	}
	return true;
}

/* Whether in[i, i + len) and in[i + len, i + 2 len) are two iterations that may run interleaved,
 * record k of the second right after (or, packed, together with) record k of the first: the same
 * records on other operands, all straight-line register code, and no record of the second that
 * moves before a record of the first, or runs together with it, depends on it or it on that one
 * (use: scratch for 2 len entries). */
static bool
iterations(const PtxRec *in, size_t i, size_t len, RegUse *use)
{
	for (size_t k = 0; k < len; k++)
		if (!isomorphic(&in[i + k], &in[i + len + k]) || !reg_use(&in[i + k], &use[k]) ||
		    !reg_use(&in[i + len + k], &use[len + k]))
			return false;
	for (size_t m = 0; m < len; m++) /* k == m: a packed pair runs as one */
		for (size_t k = m; k < len; k++)
			if (!reorderable(&use[k], &use[len + m]))
				return false;
	return true;
}

/* Whether packing a and b saves instructions: two different immediates as one operand would be a
 * register pair of their own (two moves for each of ptxas' FADD2, FMUL2, FFMA2; examples/embed's
 * 0.5 * v and v * 0.707106781 packed: 128 more SASS instructions, 7056 -> 7184). */
static bool
f32x2_worth(const PtxRec *a, const PtxRec *b)
{
	for (int s = 2; s < a->npc; s += 2) {
		Opnd x = a->pc[s].o, y = b->pc[s].o;
		if ((x.k == O_FIMM || y.k == O_FIMM) && !(x.k == y.k && x.v == y.v))
			return false;
	}
	return true;
}

static PtxPiece *
f32x2_pieces(int n)
{
	PtxPiece *pc = pool_alloc((size_t)n * sizeof *pc);
	memset(pc, 0, (size_t)n * sizeof *pc);
	return pc;
}

static PtxRec
f32x2_record(const char *opcode, PtxPiece *pc, int npc)
{
	PtxRec r;
	memset(&r, 0, sizeof r);
	r.kind = RK_INSTR;
	r.opcode = opcode;
	r.pc = pc;
	r.npc = npc;
	return r;
}

static void
f32x2_opnd(PtxPiece *p, Opnd o)
{
	p->k = PC_OPND;
	p->o = o;
}

static void
f32x2_text(PtxPiece *p, const char *text)
{
	p->k = PC_TEXT;
	p->text = text;
}

/* Appends to out the packed form of r and q (f32x2_ops row op): each source pair into a 64-bit
 * register, the packed operation, its halves into r's and q's destinations. */
static size_t
f32x2_emit(PtxRec *out, size_t n, const PtxRec *r, const PtxRec *q, int op, int *nd)
{
	int nsrc = f32x2_ops[op].nsrc;
	PtxPiece *pc = f32x2_pieces(2 * nsrc + 1);
	for (int s = 0; s < nsrc; s++) {
		Opnd pair = {O_D, ++*nd, 0, NULL, false};
		PtxPiece *mv = f32x2_pieces(7);
		f32x2_opnd(&mv[0], pair);
		mv[1].k = PC_COMMA;
		f32x2_text(&mv[2], "{");
		f32x2_opnd(&mv[3], r->pc[2 + 2 * s].o);
		mv[4].k = PC_COMMA;
		f32x2_opnd(&mv[5], q->pc[2 + 2 * s].o);
		f32x2_text(&mv[6], "}");
		out[n++] = f32x2_record("mov.b64", mv, 7);
		f32x2_opnd(&pc[2 + 2 * s], pair);
		pc[1 + 2 * s].k = PC_COMMA;
	}
	Opnd result = {O_D, ++*nd, 0, NULL, false};
	f32x2_opnd(&pc[0], result);
	out[n++] = f32x2_record(f32x2_ops[op].packed, pc, 2 * nsrc + 1);
	PtxPiece *mv = f32x2_pieces(7);
	f32x2_text(&mv[0], "{");
	f32x2_opnd(&mv[1], f32x2_dest(r));
	mv[2].k = PC_COMMA;
	f32x2_opnd(&mv[3], f32x2_dest(q));
	f32x2_text(&mv[4], "}");
	mv[5].k = PC_COMMA;
	f32x2_opnd(&mv[6], result);
	out[n++] = f32x2_record("mov.b64", mv, 7);
	return n;
}

/* Packed f32x2 arithmetic (sm_100, sm_103). Where straight-line code holds two iterations of an
 * unrolled loop one after the other (the same records on other registers, the second independent
 * of the first: iterations), they are interleaved record by record, and each add, sub, mul or fma
 * (.rn.f32) of the first runs with its twin of the second as one .f32x2 operation. The records are
 * replaced by a new array (*recs freed); *nd counts the 64-bit registers. Returns the new number of
 * records. */
size_t
ptx_pack_f32x2(PtxRec **recs, size_t n, int *nd)
{
	PtxRec *in = *recs;
	PtxRec *out = malloc((3 * n + 1) * sizeof *out); /* two records become at most 3 + 3 */
	RegUse *use = malloc(2 * F32X2_SPAN * sizeof *use);
	size_t *next_op = malloc((n + 1) * sizeof *next_op); /* the first record from i on that packs */
	if (!out || !use || !next_op)
		out_of_memory();
	next_op[n] = n;
	for (size_t i = n; i-- > 0;)
		next_op[i] = f32x2_row(&in[i]) >= 0 ? i : next_op[i + 1];
	size_t m = 0, i = 0;
	while (i < n) {
		size_t len = 0;
		/* an iteration holds an operation to pack: it is at least next_op[i] - i + 1 records long */
		for (size_t l = next_op[i] - i + 1; in[i].kind == RK_INSTR && l <= F32X2_SPAN && i + 2 * l <= n && !len; l++)
			if (isomorphic(&in[i], &in[i + l]) && iterations(in, i, l, use))
				len = l;
		bool packs = false;
		for (size_t k = 0; k < len && !packs; k++)
			packs = f32x2_row(&in[i + k]) >= 0 && f32x2_worth(&in[i + k], &in[i + len + k]);
		if (!packs) {
			out[m++] = in[i++];
			continue;
		}
		for (size_t k = 0; k < len; k++) {
			const PtxRec *a = &in[i + k], *b = &in[i + len + k];
			int op = f32x2_row(a);
			if (op >= 0 && f32x2_worth(a, b)) {
				m = f32x2_emit(out, m, a, b, op, nd);
			} else {
				out[m++] = *a;
				out[m++] = *b;
			}
		}
		i += 2 * len;
	}
	free(use);
	free(next_op);
	free(in);
	*recs = out;
	return m;
}
