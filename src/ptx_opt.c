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
