/* emit_ptx.c: writes the lowered program directly as PTX: one .entry per kernel, virtual registers
 * (ptxas allocates them), structured branches, and every tcgen05 instruction spelled from isa.c's
 * description, as emit_cu.c spells it. A kernel's instructions are records (tilec.h, ptx_opt.c)
 * that CSE and loop-invariant motion work on; ptx_opt.c prints their text at the kernel's end. The
 * semantics are those of the CUDA C that emit_cu.c writes; see docs/ptx.md. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* Where a value read once holds: the block (if branch, loop body) it was read in, and every block
 * inside that one: the depth of P.blocks then and the block's number. */
typedef struct Scoped {
	int depth;
	int block;
} Scoped;

/* A TMEM base address slot (tmem_slots) and its register. */
typedef struct Slot {
	TmemSlot s;
	bool published;       /* its publishing barrier was emitted: the slot holds its final value */
	Opnd val;             /* the register the slot was read into (O_NONE: not yet) */
	Scoped at;            /* ... where val holds */
	Opnd for_dealloc;     /* a read outside ifs and loops that a barrier ended, kept for the dealloc */
} Slot;

/* A bit field of x: (x << r) & mask for r >= 0, (x >> -r) & mask (logical) for r < 0; x NULL is the
 * linear thread index. */
typedef struct Field {
	const IExpr *x;
	int r;
	uint32_t mask;
} Field;

/* cname -> operand, for vars, lets, tmem base addresses and scalar parameters. */
typedef struct MapEntry {
	const char *key;
	Opnd val;
	const IExpr *expr; /* a let computed again at each use (see bind) */
} MapEntry;

/* How a local tensor's 32-bit words are used in a kernel (scan_words), and the value of each word
 * whose store is deferred to its one read (deferred_store). */
typedef struct WordUse {
	const Tensor *t;
	int *reads, *writes; /* per word; a read or write inside a loop or an if counts twice */
	bool pinned;         /* read or written whole (tcgen05, a register copy, a vector access) */
	const IExpr **value; /* per word: the deferred store's value, resolved; NULL: none */
} WordUse;

typedef struct Px {
	KernelIR *k;
	int ki;
	int nr, nf, nh, np, nd, nlabel;
	int elect_open; /* the skip label of an elected region that the next single-thread statement may join; 0: none */
	List folded_tx; /* LStmt*: expect_tx statements whose bytes an earlier one of the region announces */
	int64_t tx_total; /* the bytes of expect_tx tx_stmt, with those folded into it */
	const LStmt *tx_stmt; /* the expect_tx that announces the bytes of later ones; NULL: none */
	const IExpr *mma_base[2]; /* the shared addresses of the last mma's first K step, and its descriptors */
	Opnd mma_desc[2];
	const LStmt *mma_last;    /* that mma's last K step written */
	MapEntry *map;
	size_t map_cap, map_n;
	MapEntry *cse; /* instruction text with '#' for the destination -> destination */
	unsigned *cse_gens;
	size_t cse_cap, cse_n;
	unsigned cse_gen; /* entries of generations that are not it or its ancestors are dead */
	unsigned gen_next; /* the last generation handed out */
	unsigned *gen_parent; /* per generation: the one whose values it sees too (0: none) */
	size_t gen_cap;
	unsigned cuts;     /* barriers and tcgen05.ld / st so far */
	Buf key;
	List regs;   /* Tensor*: local tensors, declared as .b32 word registers */
	List shared; /* Tensor*: shared arrays */
	Var **param_of; /* per parameter: the Var of a scalar parameter, else NULL */
	List counters;  /* Var*: loop counters that never go below 0 */
	List assigned;  /* Var*: vars that an assignment names (the others are bound as lets) */
	List shared_seen, shared_read; /* Tensor*: shared arrays asked about (shared_read), those read */
	List fixed;     /* Var*: vars bound as lets, and fixed_value: their values */
	List fixed_value;
	unsigned *ver;  /* per var register (2n, 2n + 1 for %fn): how often it was assigned */
	size_t ver_cap;
	bool *param_written;
	List guards;    /* IExpr*: conditions of ids tested at depth 0 (guard()) */
	List guard_p;   /* Opnd*: their predicates */
	List guard_at;  /* int*: the epoch when each was tested */
	int epoch;      /* counts the ifs and loops emitted (guard()) */
	/* TMEM addresses from a base read once and a warp-uniform thread index (see TMEM base addresses) */
	Slot slots[8];
	int nslots;
	int depth;    /* ifs and runtime loops open around the statement */
	List known;     /* IExpr*: conditions of ids of the ifs open around the statement, and known_val: */
	List known_val; /* ... 1 inside the then branch, 0 inside the else branch (see stmt's L_IF) */
	bool in_tc;   /* evaluating the TMEM address of a tcgen05 instruction */
	Opnd tid[3];  /* %tid.x, .y, .z, read once at the kernel's entry (see kernel()) */
	Opnd utid;    /* the linear thread index of the warp's lane 0, once read (O_NONE before) */
	Scoped utid_at; /* ... where it holds */
	int tc_addresses; /* the kernel's tcgen05.ld / st with addresses of their own (thread_addresses) */
	bool dealloc;     /* evaluating a dealloc's operand */
	bool has_ld;      /* the kernel has a tcgen05.ld */
	bool flat_tc;     /* every tcgen05.ld / st of the kernel is outside ifs and loops */
	bool interleaved; /* the wait being emitted is followed by an access to the other words of the
	                     same tensors at the same address (same_tensors) */
	List blocks;  /* the numbers of the blocks open around the statement (see Scoped) */
	int nblocks;  /* blocks numbered so far */
	bool sink;      /* the let being bound may be computed where it is used, float work included */
	Opnd pred;      /* inside an if written as predicated code (predicated_if): its predicate, which
	                   every memory access takes; O_NONE elsewhere */
	Opnd next_pred; /* the predicate of the next predicated if, tested before it (predicated_run) */
	bool run_tests; /* the tests of a predicated_run's elements are being written (offset_difference) */
	List word_uses; /* WordUse*: per local tensor, how its words are used (scan_words) */
	const LStmt *tc_prev; /* the last tcgen05.ld / st while nothing but its wait followed it (see tc()) */
	Opnd tc_prev_addr;    /* its TMEM address register */
	bool tc_waited;       /* its wait was emitted */
	const IExpr *vec_load; /* inside a converting vector load (vector_access): the load whose element */
	Opnd vec_elem;         /* ... the words of the access hold here */
	unsigned char *pure_dest; /* per register (ptx_reg_index): written by a pure instruction */
	size_t pure_cap;
	PtxRec *recs;    /* the kernel's instructions, labels and comments so far */
	size_t nrecs, recs_cap;
	PtxRec cur;      /* the record being built (rec_begin) and its pieces */
	PtxPiece *scratch;
	int nscratch, scratch_cap;
} Px;

static Px P;

static const Opnd NO_REG = {O_NONE, 0, 0, NULL, false};

/* ---------------------------------------------------------------- instruction records */

/* The assignment count of a var's register. */
static unsigned *
var_version(Opnd o)
{
	size_t i = 2 * (size_t)o.n + (o.k == O_F);
	if (i >= P.ver_cap) {
		size_t cap = P.ver_cap ? P.ver_cap : 64;
		while (cap <= i)
			cap *= 2;
		unsigned *v = pool_alloc(cap * sizeof *v);
		if (P.ver_cap)
			memcpy(v, P.ver, P.ver_cap * sizeof *v);
		P.ver = v;
		P.ver_cap = cap;
	}
	return &P.ver[i];
}

/* A new record under construction (P.cur, its pieces in P.scratch): rec_op, rec_addr, rec_text,
 * rec_int and rec_comma add to it, rec_end appends it to the kernel's records. */
static void
rec_begin(unsigned flags, const char *opcode)
{
	memset(&P.cur, 0, sizeof P.cur);
	P.cur.kind = RK_INSTR;
	P.cur.flags = flags;
	P.cur.opcode = opcode;
	P.nscratch = 0;
}

static PtxPiece *
rec_piece(PtxPieceKind k)
{
	if (P.nscratch == P.scratch_cap) {
		P.scratch_cap = P.scratch_cap ? 2 * P.scratch_cap : 64;
		P.scratch = realloc(P.scratch, (size_t)P.scratch_cap * sizeof *P.scratch);
		if (!P.scratch)
			out_of_memory();
	}
	PtxPiece *p = &P.scratch[P.nscratch++];
	memset(p, 0, sizeof *p);
	p->k = k;
	return p;
}

static void
rec_op(Opnd o)
{
	PtxPiece *p = rec_piece(PC_OPND);
	p->o = o;
	if (o.mut && (o.k == O_R || o.k == O_F))
		p->version = *var_version(o);
}

static void rec_text(const char *s) { rec_piece(PC_TEXT)->text = s; }
static void rec_int(int64_t v) { rec_piece(PC_INT)->i = v; }
static void rec_comma(void) { rec_piece(PC_COMMA); }

static void
rec_addr(const Addr *a)
{
	if (P.nscratch == 0)
		P.cur.first_memory = true;
	rec_piece(PC_ADDR)->a = *a;
}

static void
rec_end(void)
{
	PtxRec *r = &P.cur;
	r->npc = P.nscratch;
	r->pc = pool_alloc((size_t)(r->npc ? r->npc : 1) * sizeof *r->pc);
	if (r->npc)
		memcpy(r->pc, P.scratch, (size_t)r->npc * sizeof *r->pc);
	if (P.nrecs == P.recs_cap) {
		P.recs_cap = P.recs_cap ? 2 * P.recs_cap : 1024;
		P.recs = realloc(P.recs, P.recs_cap * sizeof *P.recs);
		if (!P.recs)
			out_of_memory();
	}
	P.recs[P.nrecs++] = *r;
}

/* Text of fmt up to one of the stop characters, an operand (%o, %a, %D) or its end, with %s
 * (string), %d (int) and %% replaced; *fmt moves past it. */
static const char *
template_text(const char **fmt, const char *stop, va_list *ap)
{
	Buf t = {0};
	const char *f = *fmt;
	for (; *f; f++) {
		bool end = f[0] == '%' && f[1] != 's' && f[1] != 'd' && f[1] != '%';
		for (const char *s = stop; *s && !end; s++)
			end = *f == *s;
		if (end)
			break;
		if (*f != '%') {
			buf_putc(&t, *f);
			continue;
		}
		f++;
		if (*f == 's')
			buf_puts(&t, va_arg(*ap, const char *));
		else if (*f == 'd')
			ptx_put_int(&t, va_arg(*ap, int));
		else
			buf_putc(&t, '%');
	}
	*fmt = f;
	const char *s = pool_strndup(t.data ? t.data : "", t.len);
	buf_free(&t);
	return s;
}

/* Starts the record of an instruction template, as C code writes it: "[@[!]%o ]OPCODE[ OPERAND[, OPERAND]...];"
 * where an operand is fixed text and %o (Opnd), %a (Addr *), %d (int), %s (string), %D (the
 * destination of a pure instruction), %% ('%'). */
static void
rec_template(unsigned flags, const char *fmt, va_list *ap)
{
	rec_begin(flags, NULL);
	const char *f = fmt;
	if (*f == '@') {
		P.cur.negated = f[1] == '!';
		f += P.cur.negated ? 2 : 1;
		if (f[0] != '%' || f[1] != 'o' || f[2] != ' ')
			fatal("emit_ptx: a guard that is no register in '%s'", fmt);
		P.cur.guard = va_arg(*ap, Opnd);
		f += 3;
	}
	P.cur.opcode = template_text(&f, " ;", ap);
	if (*f == ' ')
		f++;
	P.cur.first_memory = *f == '[';
	int depth = 0;
	while (*f && *f != ';') {
		if (*f == ',' && depth == 0) {
			if (f[1] != ' ')
				fatal("emit_ptx: operands not separated by \", \" in '%s'", fmt);
			rec_comma();
			f += 2;
		} else if (*f == '{' || *f == '}') {
			depth += *f == '{' ? 1 : -1;
			rec_text(*f == '{' ? "{" : "}");
			f++;
		} else if (*f != '%' || f[1] == 's' || f[1] == 'd' || f[1] == '%') {
			rec_text(template_text(&f, depth ? ";{}" : ",;{}", ap));
		} else {
			f++;
			if (*f == 'o')
				rec_op(va_arg(*ap, Opnd));
			else if (*f == 'a')
				rec_addr(va_arg(*ap, const Addr *));
			else if (*f == 'D')
				rec_piece(PC_DEST);
			else
				fatal("emit_ptx: %%%c in '%s'", *f, fmt);
			f++;
		}
	}
	if (f[0] != ';' || f[1])
		fatal("emit_ptx: template '%s' does not end with ';'", fmt);
	if (P.pred.k != O_NONE && P.cur.guard.k == O_NONE && (flags & (PF_LOAD | PF_STORE)))
		P.cur.guard = P.pred;
}




/* One instruction from a template (rec_template) with the given flags. */
static void
ins(unsigned flags, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rec_template(flags, fmt, &ap);
	va_end(ap);
	rec_end();
}

static Opnd *cse_find(const char *key);
static void cse_put(const char *key, Opnd val);
static unsigned gen_new(unsigned parent);


static void
mark_pure(OKind k, int n)
{
	size_t i = ptx_reg_index(k, n);
	if (i >= P.pure_cap) {
		size_t cap = P.pure_cap ? P.pure_cap : 1024;
		while (cap <= i)
			cap *= 2;
		unsigned char *d = pool_alloc(cap);
		memset(d, 0, cap);
		if (P.pure_cap)
			memcpy(d, P.pure_dest, P.pure_cap);
		P.pure_dest = d;
		P.pure_cap = cap;
	}
	P.pure_dest[i] = 1;
}

/* A pure instruction whose destination (%D) is a new register of kind k, unless the same
 * instruction on the same operands was emitted earlier in this straight-line stretch (a label ends
 * one): then its register. Operands that are assigned again (vars, tensor words) are never reused.
 * This keeps the PTX small (e.g. the address arithmetic of an unrolled loop), which ptxas reads
 * faster. The key is the record's text with '#' for the destination (ptx_put_instr): records that
 * print alike compute alike (an immediate written by %o or by %d), as with the text keys before.
 * flags adds to PF_PURE (PF_LOAD: a load of memory nothing writes, which stays in its loop). */
static Opnd
vpure(OKind k, unsigned flags, const char *fmt, va_list *ap)
{
	rec_template(PF_PURE | flags, fmt, ap);
	P.cur.pc = P.scratch; /* the pieces so far, for the key */
	P.cur.npc = P.nscratch;
	P.key.len = 0;
	bool mut = ptx_put_instr(&P.key, &P.cur, true);
	Opnd *hit = mut ? NULL : cse_find(P.key.data);
	if (hit)
		return *hit;
	int n = k == O_R ? ++P.nr : k == O_F ? ++P.nf : k == O_H ? ++P.nh : k == O_P ? ++P.np : ++P.nd;
	Opnd d = {k, n, 0, NULL, false};
	mark_pure(k, n);
	P.cur.dest = d;
	rec_end();
	if (!mut)
		cse_put(pool_strndup(P.key.data, P.key.len), d);
	return d;
}

static Opnd
pure(OKind k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Opnd d = vpure(k, 0, fmt, &ap);
	va_end(ap);
	return d;
}

static Opnd
pure_load(OKind k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	Opnd d = vpure(k, PF_LOAD, fmt, &ap);
	va_end(ap);
	return d;
}

static void
label(int n)
{
	P.cse_gen = gen_new(0);
	rec_begin(0, NULL);
	P.cur.kind = RK_LABEL;
	P.cur.label = n;
	rec_end();
}

static const char *
label_name(int n)
{
	return pool_printf("$L_%d_%d", P.ki, n);
}

/* A comment line: prefix as it is, then text with bytes that are not printable ASCII as '?', then
 * register v unless it is O_NONE. */
static void
comment_line(const char *prefix, const char *text, Opnd v)
{
	rec_begin(0, prefix);
	P.cur.kind = RK_COMMENT;
	P.cur.text = text;
	P.cur.dest = v;
	rec_end();
}

/* ---------------------------------------------------------------- registers and the name map */

static Opnd new_r(void) { return (Opnd){O_R, ++P.nr, 0, NULL, false}; }
static Opnd new_f(void) { return (Opnd){O_F, ++P.nf, 0, NULL, false}; }
static Opnd new_h(void) { return (Opnd){O_H, ++P.nh, 0, NULL, false}; }
static Opnd imm(int64_t v) { return (Opnd){O_IMM, 0, v, NULL, false}; }

static Opnd
fimm(double v)
{
	float f = (float)v;
	uint32_t bits;
	memcpy(&bits, &f, 4);
	if (f != f)
		bits = 0x7fffffffu; /* a constant NaN has the GPU's canonical bits, as the CUDA C route writes it */
	return (Opnd){O_FIMM, 0, bits, NULL, false};
}

static bool is_imm(Opnd o) { return o.k == O_IMM || o.k == O_FIMM; }

/* An immediate moved into a register, for operand positions that take only registers. */
static Opnd
reg(Opnd o)
{
	if (o.k == O_IMM)
		return pure(O_R, "mov.b32 %D, %o;", o);
	if (o.k == O_FIMM)
		return pure(O_F, "mov.f32 %D, %o;", o);
	return o;
}

static MapEntry *
map_put(const char *key, Opnd val)
{
	if (2 * (P.map_n + 1) > P.map_cap) {
		size_t cap = P.map_cap ? 2 * P.map_cap : 64;
		MapEntry *m = pool_alloc(cap * sizeof *m);
		for (size_t i = 0; i < P.map_cap; i++) {
			if (!P.map[i].key)
				continue;
			size_t j = str_hash(P.map[i].key) & (cap - 1);
			while (m[j].key)
				j = (j + 1) & (cap - 1);
			m[j] = P.map[i];
		}
		P.map = m;
		P.map_cap = cap;
	}
	size_t j = str_hash(key) & (P.map_cap - 1);
	while (P.map[j].key && strcmp(P.map[j].key, key) != 0)
		j = (j + 1) & (P.map_cap - 1);
	if (!P.map[j].key)
		P.map_n++;
	P.map[j].key = key;
	P.map[j].val = val;
	P.map[j].expr = NULL;
	return &P.map[j];
}

static const MapEntry *
map_find(const char *key)
{
	if (P.map_cap) {
		size_t j = str_hash(key) & (P.map_cap - 1);
		for (; P.map[j].key; j = (j + 1) & (P.map_cap - 1))
			if (strcmp(P.map[j].key, key) == 0)
				return &P.map[j];
	}
	fatal("emit_ptx: '%s' is used before its definition", key);
}

static Opnd
map_get(const char *key)
{
	return map_find(key)->val;
}

/* A new generation of pure values; with a parent, one that sees the parent's values too (code that
 * the parent's code dominates: the body of an if). */
static unsigned
gen_new(unsigned parent)
{
	unsigned g = ++P.gen_next;
	if (g >= P.gen_cap) {
		size_t cap = P.gen_cap ? 2 * P.gen_cap : 256;
		unsigned *p = pool_alloc(cap * sizeof *p);
		if (P.gen_cap)
			memcpy(p, P.gen_parent, P.gen_cap * sizeof *p);
		P.gen_parent = p;
		P.gen_cap = cap;
	}
	P.gen_parent[g] = parent;
	return g;
}

/* Whether the values of generation g hold where code is emitted now. */
static bool
gen_live(unsigned g)
{
	for (unsigned c = P.cse_gen; c; c = P.gen_parent[c])
		if (c == g)
			return true;
	return false;
}

static Opnd *
cse_find(const char *key)
{
	if (!P.cse_cap)
		return NULL;
	for (size_t j = str_hash(key) & (P.cse_cap - 1); P.cse[j].key; j = (j + 1) & (P.cse_cap - 1))
		if (gen_live(P.cse_gens[j]) && strcmp(P.cse[j].key, key) == 0)
			return &P.cse[j].val;
	return NULL;
}

static void
cse_put(const char *key, Opnd val)
{
	if (2 * (P.cse_n + 1) > P.cse_cap) {
		/* rebuild, dropping dead entries; grow when the live ones need it */
		size_t live = 0;
		for (size_t i = 0; i < P.cse_cap; i++)
			live += P.cse[i].key && gen_live(P.cse_gens[i]);
		size_t cap = P.cse_cap ? P.cse_cap : 256;
		while (4 * (live + 1) > cap)
			cap *= 2;
		MapEntry *m = calloc(cap, sizeof *m);
		unsigned *g = calloc(cap, sizeof *g);
		if (!m || !g)
			out_of_memory();
		P.cse_n = 0;
		for (size_t i = 0; i < P.cse_cap; i++) {
			if (!P.cse[i].key || !gen_live(P.cse_gens[i]))
				continue;
			size_t j = str_hash(P.cse[i].key) & (cap - 1);
			while (m[j].key)
				j = (j + 1) & (cap - 1);
			m[j] = P.cse[i];
			g[j] = P.cse_gens[i];
			P.cse_n++;
		}
		free(P.cse);
		free(P.cse_gens);
		P.cse = m;
		P.cse_gens = g;
		P.cse_cap = cap;
	}
	size_t j = str_hash(key) & (P.cse_cap - 1);
	while (P.cse[j].key)
		j = (j + 1) & (P.cse_cap - 1);
	P.cse[j].key = key;
	P.cse[j].val = val;
	P.cse_gens[j] = P.cse_gen;
	P.cse_n++;
}

/* ---------------------------------------------------------------- expressions */

static Opnd ev(const IExpr *e);
static Opnd pred(const IExpr *e);

static bool
is_compare(Op op)
{
	return op >= OP_LT && op <= OP_NE;
}

static const char *
int_suffix(EType t)
{
	return t == T_U32 ? "u32" : "s32";
}

/* An i32 / u32 / f32 value as f32, as C's (float) does. */
static Opnd
to_f32(Opnd v, EType from)
{
	if (from == T_F32)
		return v;
	if (v.k == O_IMM)
		return fimm(from == T_U32 ? (double)(uint32_t)v.v : (double)(int32_t)v.v);
	return pure(O_F, "cvt.rn.f32.%s %D, %o;", int_suffix(from), v);
}

/* A value as a 32-bit integer: C's (int) or (unsigned) of a float truncates. */
static Opnd
to_int(Opnd v, EType from, bool is_unsigned)
{
	if (from != T_F32)
		return v;
	return pure(O_R, "cvt.rzi.%s.f32 %D, %o;", is_unsigned ? "u32" : "s32", reg(v));
}

/* f32 bits of a bf16 held in the low 16 bits of r, as tl_bf2f does: (unsigned)h << 16. */
static Opnd
bf16_bits_to_f32(Opnd r16)
{
	Opnd s = pure(O_R, "shl.b32 %D, %o, 16;", r16);
	return pure(O_F, "mov.b32 %D, %o;", s);
}

static Opnd
half_to_f32(Opnd h, EType t)
{
	if (t == T_F16)
		return pure(O_F, "cvt.f32.f16 %D, %o;", h);
	return bf16_bits_to_f32(pure(O_R, "cvt.u32.u16 %D, %o;", h));
}

static Opnd
f32_to_half(Opnd f, EType t)
{
	return pure(O_H, "cvt.rn.%s.f32 %D, %o;", t == T_F16 ? "f16" : "bf16", reg(f));
}

/* The f32 value of the 8-bit or narrower float in bits pos.. of the .b32 w, as runtime/tilec_minifloat.h
 * computes it: an integer significand times a power of two, both exact in f32; NaN 0x7fffffff. */
static Opnd
minifloat_to_f32(Opnd w, EType t, int pos)
{
	const MiniFormat *f = minifloat_format(t);
	if (!f) { /* ue8m0: 2^(b - 127), b = 0 the f32 subnormal 2^-127, 255 NaN */
		Opnd b = pure(O_R, "bfe.u32 %D, %o, %d, 8;", reg(w), pos);
		Opnd bits = pure(O_R, "shl.b32 %D, %o, 23;", b);
		bits = pure(O_R, "selp.b32 %D, 4194304, %o, %o;", bits, pure(O_P, "setp.eq.u32 %D, %o, 0;", b));
		bits = pure(O_R, "selp.b32 %D, 2147483647, %o, %o;", bits, pure(O_P, "setp.eq.u32 %D, %o, 255;", b));
		return pure(O_F, "mov.b32 %D, %o;", bits);
	}
	unsigned magbits = f->ebits + f->mbits;
	Opnd mag = pure(O_R, "bfe.u32 %D, %o, %d, %d;", reg(w), pos + (int)f->place, (int)magbits);
	Opnd e = pure(O_R, "shr.u32 %D, %o, %d;", mag, (int)f->mbits);
	/* a subnormal (e = 0) scales as e = 1 without the hidden bit: significand mag - (max(e, 1) - 1) << M */
	Opnd e1 = pure(O_R, "max.u32 %D, %o, 1;", e);
	Opnd sig = pure(O_R, "sub.s32 %D, %o, %o;", mag,
	                pure(O_R, "shl.b32 %D, %o, %d;", pure(O_R, "add.s32 %D, %o, -1;", e1), (int)f->mbits));
	Opnd scale = pure(O_R, "shl.b32 %D, %o, 23;", pure(O_R, "add.s32 %D, %o, %d;", e1, 127 - f->bias - (int)f->mbits));
	Opnd v = pure(O_F, "mul.rn.f32 %D, %o, %o;", pure(O_F, "cvt.rn.f32.u32 %D, %o;", sig),
	              pure(O_F, "mov.b32 %D, %o;", scale));
	Opnd bits = pure(O_R, "mov.b32 %D, %o;", v);
	if (f->has_sign) {
		Opnd sign = pure(O_R, "bfe.u32 %D, %o, %d, 1;", reg(w), pos + (int)(f->place + magbits));
		bits = pure(O_R, "or.b32 %D, %o, %o;", bits, pure(O_R, "shl.b32 %D, %o, 31;", sign));
	}
	unsigned eall = (1u << f->ebits) - 1;
	if (f->nan_kind == 2) { /* e5m2: exponent all ones: infinity with mantissa 0, else NaN */
		Opnd top = pure(O_P, "setp.eq.u32 %D, %o, %d;", e, (int)eall);
		Opnd inf = pure(O_R, "or.b32 %D, %o, 2139095040;", pure(O_R, "and.b32 %D, %o, -2147483648;", bits));
		bits = pure(O_R, "selp.b32 %D, %o, %o, %o;", inf, bits, top);
		Opnd nan = pure(O_P, "setp.gt.u32 %D, %o, %d;", mag, (int)(eall << f->mbits));
		bits = pure(O_R, "selp.b32 %D, 2147483647, %o, %o;", bits, nan);
	} else if (f->nan_kind == 1) { /* e4m3: the all-ones magnitude */
		Opnd nan = pure(O_P, "setp.eq.u32 %D, %o, %d;", mag, (int)((1u << magbits) - 1));
		bits = pure(O_R, "selp.b32 %D, 2147483647, %o, %o;", bits, nan);
	}
	return pure(O_F, "mov.b32 %D, %o;", bits);
}

/* The byte (in a .b32, code at the format's place) that f32 f converts to: to nearest even, saturated to the
 * largest finite magnitude. e4m3 and e5m2 by cvt.rn.satfinite (sm_89 on); the others, which sm_90 lacks
 * or which the GPU only rounds toward zero or up (ue8m0), in the integer steps of runtime/tilec_minifloat.h. */
static Opnd
f32_to_minifloat(Opnd f, EType t)
{
	if (t == T_E4M3 || t == T_E5M2) {
		Opnd pair = pure(O_H, "cvt.rn.satfinite.%s.f32 %D, 0f00000000, %o;", t == T_E4M3 ? "e4m3x2" : "e5m2x2", reg(f));
		return pure(O_R, "and.b32 %D, %o, 255;", pure(O_R, "cvt.u32.u16 %D, %o;", pair));
	}
	Opnd u = pure(O_R, "mov.b32 %D, %o;", reg(f));
	Opnd a = pure(O_R, "and.b32 %D, %o, 2147483647;", u);
	Opnd nan = pure(O_P, "setp.gt.u32 %D, %o, 2139095040;", a);
	Opnd neg = pure(O_P, "setp.lt.s32 %D, %o, 0;", u);
	const MiniFormat *mf = minifloat_format(t);
	if (!mf) { /* ue8m0: to nearest in value, 1.5 * 2^k the tie, to the even code */
		Opnd b = pure(O_R, "shr.u32 %D, %o, 23;", a);
		Opnd man = pure(O_R, "and.b32 %D, %o, 8388607;", a);
		Opnd up = pure(O_P, "setp.gt.u32 %D, %o, 4194304;", man);
		Opnd tie = pure(O_P, "setp.eq.u32 %D, %o, 4194304;", man);
		Opnd odd = pure(O_P, "setp.ne.u32 %D, %o, 0;", pure(O_R, "and.b32 %D, %o, 1;", b));
		Opnd tie_odd = pure(O_P, "and.pred %D, %o, %o;", tie, odd);
		Opnd round = pure(O_R, "selp.u32 %D, 1, 0, %o;", pure(O_P, "or.pred %D, %o, %o;", up, tie_odd));
		Opnd r = pure(O_R, "min.u32 %D, %o, 254;", pure(O_R, "add.s32 %D, %o, %o;", b, round));
		r = pure(O_R, "selp.b32 %D, 1, %o, %o;", r, pure(O_P, "setp.lt.u32 %D, %o, 8388608;", a));
		r = pure(O_R, "selp.b32 %D, 0, %o, %o;", r, pure(O_P, "setp.le.u32 %D, %o, 6291456;", a));
		r = pure(O_R, "selp.b32 %D, 0, %o, %o;", r, neg);
		return pure(O_R, "selp.b32 %D, 255, %o, %o;", r, nan);
	}
	/* e: the biased exponent in the format; the bits of the 24-bit significand below its last: 23 - M, more
	   for a subnormal, at most 25 (which leaves 0 for anything smaller, f32 subnormals included) */
	Opnd e = pure(O_R, "add.s32 %D, %o, %d;", pure(O_R, "shr.u32 %D, %o, 23;", a), mf->bias - 127);
	Opnd below = pure(O_R, "max.s32 %D, %o, 0;", pure(O_R, "sub.s32 %D, 1, %o;", e));
	Opnd shift = pure(O_R, "min.u32 %D, %o, 25;", pure(O_R, "add.s32 %D, %o, %d;", below, 23 - (int)mf->mbits));
	shift = pure(O_R, "selp.b32 %D, 25, %o, %o;", shift, pure(O_P, "setp.lt.u32 %D, %o, 8388608;", a));
	Opnd sig = pure(O_R, "or.b32 %D, %o, 8388608;", pure(O_R, "and.b32 %D, %o, 8388607;", a));
	Opnd q = pure(O_R, "shr.u32 %D, %o, %o;", sig, shift);
	Opnd rest = pure(O_R, "and.b32 %D, %o, %o;", sig,
	                 pure(O_R, "add.s32 %D, %o, -1;", pure(O_R, "shl.b32 %D, 1, %o;", shift)));
	Opnd half = pure(O_R, "shl.b32 %D, 1, %o;", pure(O_R, "add.s32 %D, %o, -1;", shift));
	Opnd up = pure(O_P, "setp.gt.u32 %D, %o, %o;", rest, half);
	Opnd tie = pure(O_P, "setp.eq.u32 %D, %o, %o;", rest, half);
	Opnd odd = pure(O_P, "setp.ne.u32 %D, %o, 0;", pure(O_R, "and.b32 %D, %o, 1;", q));
	Opnd round = pure(O_R, "selp.u32 %D, 1, 0, %o;",
	                  pure(O_P, "or.pred %D, %o, %o;", up, pure(O_P, "and.pred %D, %o, %o;", tie, odd)));
	q = pure(O_R, "add.s32 %D, %o, %o;", q, round);
	/* a normal's q holds the hidden bit: (e << M) + q - 2^M, a carry moving into the exponent */
	Opnd normal = pure(O_R, "add.s32 %D, %o, %d;",
	                   pure(O_R, "add.s32 %D, %o, %o;", pure(O_R, "shl.b32 %D, %o, %d;", e, (int)mf->mbits), q),
	                   -(1 << mf->mbits));
	Opnd mag = pure(O_R, "selp.b32 %D, %o, %o, %o;", q, normal, pure(O_P, "setp.lt.s32 %D, %o, 1;", e));
	mag = pure(O_R, "min.u32 %D, %o, %d;", mag, (int)mf->maxmag);
	unsigned magbits = mf->ebits + mf->mbits;
	if (mf->has_sign)
		mag = pure(O_R, "or.b32 %D, %o, %o;", mag,
		           pure(O_R, "shl.b32 %D, %o, %d;", pure(O_R, "shr.u32 %D, %o, 31;", u), (int)magbits));
	else
		mag = pure(O_R, "selp.b32 %D, 0, %o, %o;", mag, neg);
	mag = pure(O_R, "selp.b32 %D, %o, %o, %o;", imm(mf->nan_kind ? (1 << magbits) - 1 : (int)mf->maxmag), mag, nan);
	return mf->place ? pure(O_R, "shl.b32 %D, %o, %d;", mag, (int)mf->place) : mag;
}

static bool nonneg(const IExpr *e);

static Opnd
convert(const IExpr *e)
{
	const IExpr *a = e->a;
	Opnd v = ev(a);
	switch (e->to) {
	case T_F32:
		return to_f32(v, a->type);
	case T_F16:
	case T_BF16:
		return half_to_f32(f32_to_half(to_f32(v, a->type), e->to), e->to);
	case T_E4M3: case T_E5M2: case T_E2M3: case T_E3M2: case T_E2M1: case T_UE8M0: case T_UE4M3:
		return minifloat_to_f32(f32_to_minifloat(to_f32(v, a->type), e->to), e->to, 0);
	case T_I32:
	case T_U32:
		if (a->type == T_I64 && v.k != O_IMM) /* the low half, as C's (int) of a long long */
			return pure(O_R, "cvt.u32.u64 %D, %o;", v);
		return to_int(v, a->type, e->to == T_U32);
	case T_I64:
		if (v.k == O_IMM)
			return v;
		/* zero-extension when the value is never negative: ptxas keeps no sign word for it */
		return pure(O_D, a->type == T_U32 || nonneg(a) ? "cvt.u64.u32 %D, %o;" : "cvt.s64.s32 %D, %o;", v);
	default: {
		/* (int)(short)(x) and friends: sign- or zero-extend the low bits */
		bool sgn = etype_is_signed(e->to);
		int bits = etype_bits(e->to);
		Opnd x = to_int(v, a->type, !sgn);
		if (sgn)
			return pure(O_R, "bfe.s32 %D, %o, 0, %d;", reg(x), bits);
		return pure(O_R, "and.b32 %D, %o, %d;", reg(x), bits == 16 ? 0xffff : 0xff);
	}
	}
}

/* a * c for a 64-bit a: a shift when c is a power of two (ptxas keeps a 64-bit multiplication by a
 * constant as one, which costs registers and instructions). */
static Opnd
scale64(Opnd a, int64_t c)
{
	if (c == 1)
		return a;
	if (c > 0 && (c & (c - 1)) == 0) {
		int log = 0;
		while ((1ll << log) < c)
			log++;
		return pure(O_D, "shl.b64 %D, %o, %d;", a, log);
	}
	return pure(O_D, "mul.lo.s64 %D, %o, %o;", a, imm(c));
}

/* The global address of tensor parameter i, read next to its use. */
static Opnd
param_address(int i)
{
	return pure(O_D, "cvta.to.global.u64 %D, %o;", pure(O_D, "ld.param.u64 %D, [tl_param_%d];", i));
}

/* e with each name that is computed where it is used (bind) replaced by its value, constants folded:
 * a device function's constant argument becomes part of the constant offset of an address. */
static IExpr *
resolve(const IExpr *e)
{
	if (!e)
		return NULL;
	if (e->kind == IE_VAR) {
		const MapEntry *m = e->var->is_param ? NULL : map_find(e->var->cname);
		return m && m->expr ? ie_convert(resolve(m->expr), e->type) : (IExpr *)e;
	}
	IExpr *a = resolve(e->a), *b = resolve(e->b), *index = resolve(e->index);
	if (a == e->a && b == e->b && index == e->index)
		return (IExpr *)e;
	if (e->kind == IE_CONV)
		return ie_convert(a, e->to);
	if (e->kind == IE_BINARY) {
		IExpr *f = ie_binary(e->op, a, b);
		if (f->type == e->type)
			return f;
	}
	return ie_with_children(e, a, b, index);
}

static bool field(const IExpr *e, Field *f);
static Opnd field_value(const Field *f);
static bool lane_wide(uint32_t mask);

/* The address of element index of a global or shared tensor. */
static Addr
address(const Tensor *t, const IExpr *index)
{
	int size = etype_bits(t->type) / 8;
	Addr a = {{O_NONE, 0, 0, NULL, false}, NULL, 0};
	int64_t c;
	/* constant terms move into the offset (see ie_split_offset for why that is safe) */
	const IExpr *idx = ie_split_offset(ie_sorted_sum(resolve(global_index(t, index))), &c);
	a.off = c * size;
	if (!idx) {
		if (t->kind == TK_GLOBAL)
			a.base = param_address(t->index);
		else
			a.sym = pool_printf("tl_smem_%s", t->cname);
		return a;
	}
	if (idx->type == T_I64) { /* a wide tensor's offset, in 64 bits already */
		Opnd i = ev(idx);
		if (i.k == O_IMM)
			i = pure(O_D, "mov.b64 %D, %o;", i);
		Opnd w = scale64(i, size);
		a.base = pure(O_D, "add.s64 %D, %o, %o;", param_address(t->index), w);
		return a;
	}
	Field f;
	int log = size == 4 ? 2 : size == 2 ? 1 : 0;
	if (t->kind == TK_GLOBAL && size <= 4 && field(idx, &f) && f.mask <= INT32_MAX && f.r > -32 && f.r + log < 32 &&
	    (uint64_t)f.mask << log <= UINT32_MAX && lane_wide(f.mask)) {
		/* a lane's offset times the element size is one field, zero-extended: lane_id * 32 * 4 is
		   (tid << 7) & 0xf80, as nvcc writes it, rather than an and, a mul.lo and a mul.wide
		   (measured: warp_scope 40 -> 39 registers, as nvcc's route) */
		f.r += log;
		f.mask <<= log;
		Opnd w = pure(O_D, "cvt.u64.u32 %D, %o;", field_value(&f));
		a.base = pure(O_D, "add.s64 %D, %o, %o;", param_address(t->index), w);
		return a;
	}
	int64_t m = 0;
	if (t->kind == TK_GLOBAL && idx->kind == IE_BINARY && ie_is_const(idx->b, &m) && idx->op == OP_MOD && m > 1 &&
	    (m & (m - 1)) == 0)
		m--; /* x % 2^k is x & (2^k - 1) for x >= 0 */
	else if (!(t->kind == TK_GLOBAL && idx->kind == IE_BINARY && idx->op == OP_BITAND && ie_is_const(idx->b, &m)))
		m = 0;
	if (m > 0 && (m & (m + 1)) == 0 && idx->a->type != T_I64 && nonneg(idx->a)) {
		/* x & (2^k - 1) of a value >= 0: the widened x * size masked, as nvcc writes it, sharing the
		   widened x * size of another access (race_write_write: Out[i % 64] = A[i], 10 registers,
		   8 so, as nvcc's route) */
		Opnd w = pure(O_D, "mul.wide.u32 %D, %o, %d;", reg(ev(idx->a)), size);
		w = pure(O_D, "and.b64 %D, %o, %d;", w, m * size);
		a.base = pure(O_D, "add.s64 %D, %o, %o;", param_address(t->index), w);
		return a;
	}
	Opnd i = reg(ev(idx));
	if (t->kind == TK_GLOBAL) {
		Opnd w = pure(O_D, "mul.wide.%s %D, %o, %d;", nonneg(idx) ? "u32" : int_suffix(idx->type), i, size);
		a.base = pure(O_D, "add.s64 %D, %o, %o;", param_address(t->index), w);
	} else {
		Opnd base = pure(O_R, "mov.u32 %D, tl_smem_%s;", t->cname);
		Opnd off = size == 1 ? i : pure(O_R, "shl.b32 %D, %o, %d;", i, size == 2 ? 1 : 2);
		a.base = pure(O_R, "add.s32 %D, %o, %o;", base, off);
	}
	return a;
}

static const char *
space(const Tensor *t)
{
	if (t->kind == TK_SHARED)
		return "shared";
	return P.param_written[t->index] ? "global" : "global.nc";
}

/* Loads an element and widens it to its value type, as C does; a 32-bit element goes into *into
 * when that is given (a .b32 register serves an .f32 load: same size). */
static Opnd
load(const Tensor *t, const IExpr *index, const Opnd *into)
{
	Addr a = address(t, index);
	const char *sp = space(t);
	/* a tensor the kernel never writes reads the same everywhere: its loads are pure */
	bool ro = !into && t->kind == TK_GLOBAL && !P.param_written[t->index];
	static const char *const sfx[T_COUNT] = {
		[T_F32] = "f32", [T_F16] = "b16", [T_BF16] = "u16", [T_I32] = "u32", [T_U32] = "u32",
		[T_I16] = "s16", [T_U16] = "u16", [T_I8] = "s8", [T_U8] = "u8",
		[T_E4M3] = "u8", [T_E5M2] = "u8", [T_E2M3] = "u8", [T_E3M2] = "u8", [T_E2M1] = "u8", [T_UE8M0] = "u8",
		[T_UE4M3] = "u8",
	};
	OKind k = t->type == T_F32 ? O_F : t->type == T_F16 ? O_H : O_R;
	Opnd r;
	if (ro) {
		r = pure_load(k, "ld.%s.%s %D, %a;", sp, sfx[t->type], &a);
	} else {
		r = into && etype_bits(t->type) == 32 ? *into : k == O_F ? new_f() : k == O_H ? new_h() : new_r();
		ins(PF_LOAD, "ld.%s.%s %o, %a;", sp, sfx[t->type], r, &a);
	}
	if (t->type == T_F16)
		return half_to_f32(r, T_F16);
	if (t->type == T_BF16)
		return bf16_bits_to_f32(r);
	if (etype_is_minifloat(t->type))
		return minifloat_to_f32(r, t->type, 0);
	return r;
}

static Opnd
shared_address(const IExpr *e)
{
	int size = etype_bits(e->tensor->type) / 8;
	Opnd base = pure(O_R, "mov.u32 %D, tl_smem_%s;", e->tensor->cname);
	int64_t c;
	if (ie_is_const(e->index, &c))
		return c == 0 ? base : pure(O_R, "add.s32 %D, %o, %d;", base, (int)(c * size));
	Opnd off = pure(O_R, "mul.lo.s32 %D, %o, %d;", reg(ev(e->index)), size);
	return pure(O_R, "add.s32 %D, %o, %o;", base, off);
}

static const char *param_load_type(EType t);

/* A scalar parameter, read next to its use. */
static Opnd
param_value(const Var *v)
{
	for (int i = 0; i < P.k->params.n; i++)
		if (P.param_of[i] == v)
			return pure(value_type(v->type) == T_F32 ? O_F : O_R, "ld.param.%s %D, [tl_param_%d];",
			            param_load_type(v->type), i);
	fatal("emit_ptx: '%s' is not a parameter", v->name);
}

static bool
holds(Scoped at)
{
	return P.blocks.n >= at.depth && (at.depth == 0 || (int)(intptr_t)P.blocks.v[at.depth - 1] == at.block);
}

static Scoped
here(void)
{
	return (Scoped){P.blocks.n, P.blocks.n ? (int)(intptr_t)P.blocks.v[P.blocks.n - 1] : 0};
}

static void
block_open(void)
{
	list_push(&P.blocks, (void *)(intptr_t)++P.nblocks);
}

static void
block_close(void)
{
	P.blocks.n--;
}

/* A published slot t[index] (see TMEM base addresses): its register, read here unless a read in a block
 * around this one holds; else NULL. */
static Opnd *
kept_slot(const Tensor *t, const IExpr *index)
{
	int64_t c;
	if (t->kind != TK_SHARED || !ie_is_const(index, &c))
		return NULL;
	for (int i = 0; i < P.nslots; i++) {
		Slot *k = &P.slots[i];
		if (k->s.t != t || k->s.index != c || !k->published)
			continue;
		if (P.dealloc && k->for_dealloc.k != O_NONE)
			return &k->for_dealloc;
		if (k->val.k == O_NONE || !holds(k->at)) {
			Addr a = address(k->s.t, k->s.index_e);
			k->val = new_r();
			k->at = here();
			ins(PF_LOAD, "ld.shared.u32 %o, %a;", k->val, &a);
		}
		return &k->val;
	}
	return NULL;
}

/* Element `part` of type t of the 32-bit word w, widened as a load of it is. */
static Opnd
word_element(Opnd w, EType t, int part)
{
	int bits = etype_bits(t);
	if (bits == 32)
		return w; /* also for f32: a .b32 register is a valid .f32 operand (same size) */
	switch (t) {
	case T_F16:
		if (part)
			w = pure(O_R, "shr.u32 %D, %o, 16;", w);
		return half_to_f32(pure(O_H, "cvt.u16.u32 %D, %o;", w), T_F16);
	case T_BF16:
		return pure(O_F, "mov.b32 %D, %o;", part ? pure(O_R, "and.b32 %D, %o, -65536;", w)
		                                         : pure(O_R, "shl.b32 %D, %o, 16;", w));
	case T_E4M3: case T_E5M2: case T_E2M3: case T_E3M2: case T_E2M1: case T_UE8M0: case T_UE4M3:
		return minifloat_to_f32(w, t, part * bits);
	default:
		return pure(O_R, "bfe.%s32 %D, %o, %d, %d;", etype_is_signed(t) ? "s" : "u", w, part * bits, bits);
	}
}

static WordUse *word_use(const Tensor *t);
static Opnd stored_bits(EType t, const IExpr *value);

/* Element slot of a local tensor, widened as emit_cu.c's register_read does; a word whose store was
 * deferred (deferred_store) is its value, computed here. */
static Opnd
register_read(const Tensor *t, int slot)
{
	WordUse *u = etype_bits(t->type) == 32 ? word_use(t) : NULL;
	if (u && u->value && u->value[slot])
		return stored_bits(t->type, u->value[slot]);
	int per = 32 / etype_bits(t->type);
	return word_element((Opnd){O_WORD, slot / per, 0, t, true}, t->type, slot % per);
}

/* Thread and block ids are computed next to their use, like every pure value: ptxas rematerializes
 * them rather than keeping them live across the kernel. */
static Opnd
special(const char *name)
{
	static const char *const tid[3] = {"tid.x", "tid.y", "tid.z"};
	for (int d = 0; d < 3; d++)
		if (strcmp(name, tid[d]) == 0)
			return P.tid[d];
	return pure(O_R, "mov.u32 %D, %%%s;", name);
}

static Opnd linear_tid(void);

/* The linear thread index of the warp's lane 0, read where a tcgen05 address first needs it in the
 * block (every lane of the warp is there: tcgen05.ld / st are .sync.aligned), for the whole block. */
static Opnd
lane0_tid(void)
{
	/* with one TMEM address in the kernel, or no tcgen05.ld, lane 0's index gains nothing: the
	   thread's own (separated_slots: 2 SASS instructions more with it; docs' at_offset_form_fixed,
	   which only stores, 38 registers with it, 34 without, as nvcc's route) */
	bool lane0 = P.tc_addresses >= 2 && P.has_ld;
	if (lane0 && P.utid.k != O_NONE && holds(P.utid_at))
		return P.utid;
	P.in_tc = false;
	Opnd t = linear_tid();
	P.in_tc = true;
	if (!lane0)
		return t;
	P.utid = new_r();
	P.utid_at = here();
	ins(PF_SYNC, "redux.sync.min.u32 %o, %o, -1;", P.utid, t);
	return P.utid;
}

static Opnd
linear_tid(void)
{
	const KernelIR *k = P.k;
	if (P.in_tc && P.k->threads % 32 == 0)
		return lane0_tid();
	if (k->block[1] == 1 && k->block[2] == 1)
		return special("tid.x");
	/* threadIdx.x + bx * (threadIdx.y + by * threadIdx.z) */
	Opnd yz = pure(O_R, "mad.lo.s32 %D, %o, %d, %o;", special("tid.z"), k->block[1], special("tid.y"));
	return pure(O_R, "mad.lo.s32 %D, %o, %d, %o;", yz, k->block[0], special("tid.x"));
}

/* The values a thread id can take in a block of this kernel's size. */
static void
builtin_range(Builtin b, int64_t *lo, int64_t *hi)
{
	const KernelIR *k = P.k;
	int64_t n = k->block[0] * k->block[1] * k->block[2];
	*lo = 0;
	switch (b) {
	case B_THREAD_X: *hi = k->block[0] - 1; break;
	case B_THREAD_Y: *hi = k->block[1] - 1; break;
	case B_THREAD_Z: *hi = k->block[2] - 1; break;
	case B_WARP_ID: *hi = (n - 1) >> 5; break;
	case B_LANE_ID: *hi = n < 32 ? n - 1 : 31; break;
	case B_WARPGROUP_ID: *hi = (n - 1) >> 7; break;
	default: *hi = INT32_MAX; break;
	}
}

/* 1 or 0 when a comparison of a thread id with a constant has the same value in every thread of
 * the block (warp_id == 5 in a block of 4 warps, warp_id == 0 in one of 1), else -1: nvcc knows the
 * ids' ranges from the block size and drops the code (and the registers) of the branch never taken. */
static int
id_test(const IExpr *e)
{
	int64_t c, lo, hi;
	if (e->kind == IE_UNARY && e->op == OP_NOT) {
		int a = id_test(e->a);
		return a < 0 ? -1 : !a;
	}
	if (e->kind == IE_BINARY && (e->op == OP_LAND || e->op == OP_LOR)) {
		int a = id_test(e->a), b = id_test(e->b);
		if (e->op == OP_LAND)
			return a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : -1;
		return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : -1;
	}
	if (e->kind != IE_BINARY || !is_compare(e->op) || e->a->kind != IE_BUILTIN || !ie_is_const(e->b, &c) ||
	    (e->a->type != T_I32 && e->a->type != T_U32))
		return -1;
	builtin_range(e->a->builtin, &lo, &hi);
	if (e->a->type == T_I32)
		c = (int32_t)c;
	switch (e->op) {
	case OP_EQ: return c < lo || c > hi ? 0 : lo == hi ? 1 : -1;
	case OP_NE: return c < lo || c > hi ? 1 : lo == hi ? 0 : -1;
	case OP_LT: return hi < c ? 1 : lo >= c ? 0 : -1;
	case OP_LE: return hi <= c ? 1 : lo > c ? 0 : -1;
	case OP_GT: return lo > c ? 1 : hi <= c ? 0 : -1;
	case OP_GE: return lo >= c ? 1 : hi < c ? 0 : -1;
	default: return -1;
	}
}

static Opnd
builtin(Builtin b)
{
	int64_t lo, hi;
	builtin_range(b, &lo, &hi);
	if (lo == hi)
		return imm(lo); /* warp_id in a block of one warp, thread_idx.y in a flat block */
	switch (b) {
	case B_THREAD_X:
		if (P.in_tc && P.k->threads % 32 == 0 && P.k->block[1] == 1 && P.k->block[2] == 1)
			return lane0_tid();
		return special("tid.x");
	case B_THREAD_Y: return special("tid.y");
	case B_THREAD_Z: return special("tid.z");
	case B_BLOCK_X: return special("ctaid.x");
	case B_BLOCK_Y: return special("ctaid.y");
	case B_BLOCK_Z: return special("ctaid.z");
	/* a plain shift, as in emit_cu.c: ptxas finds it uniform */
	case B_WARP_ID: return pure(O_R, "shr.u32 %D, %o, 5;", linear_tid());
	case B_LANE_ID:
		if (P.k->block[0] * P.k->block[1] * P.k->block[2] <= 32)
			return linear_tid(); /* a block of one warp: the lane is the thread */
		return pure(O_R, "and.b32 %D, %o, 31;", linear_tid());
	case B_WARPGROUP_ID: return pure(O_R, "shr.u32 %D, %o, 7;", linear_tid());
	}
	return imm(0);
}

/* Reads the thread index into new registers (P.tid). */
static void
read_tid(void)
{
	static const char *const tid_read[3] = {"mov.u32 %o, %%tid.x;", "mov.u32 %o, %%tid.y;", "mov.u32 %o, %%tid.z;"};
	for (int d = 0; d < 3; d++)
		if (d == 0 || P.k->block[1] * P.k->block[2] > 1) {
			P.tid[d] = new_r();
			ins(0, tid_read[d], P.tid[d]);
		}
}

/* A loop counter that starts at a value known not to be negative only grows; a var never assigned
 * keeps the value it was declared with. */
static bool
counter_nonneg(const Var *v)
{
	for (int i = 0; i < P.counters.n; i++)
		if (LIST_AT(P.counters, Var, i) == v)
			return true;
	for (int i = P.fixed.n - 1; i >= 0; i--)
		if (LIST_AT(P.fixed, Var, i) == v)
			return nonneg(LIST_AT(P.fixed_value, IExpr, i));
	return false;
}

static bool
nonneg(const IExpr *e)
{
	return ie_nonneg_with(e, counter_nonneg);
}

static bool
commutes(Op op)
{
	return op == OP_ADD || op == OP_MUL || op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR ||
	       op == OP_EQ || op == OP_NE;
}

static bool
has_load(const IExpr *e)
{
	return e && (e->kind == IE_LOAD || has_load(e->a) || has_load(e->b) || has_load(e->index));
}

/* c ? a : b. Both sides are computed and selp picks one, unless a side loads from memory: C computes
 * only the chosen side, and a load on the other (a guarded access past a tensor's end) must not be
 * made, so then it branches. */
static Opnd
select_value(const IExpr *e)
{
	bool f = e->type == T_F32;
	Opnd p = pred(e->a);
	if (!has_load(e->b) && !has_load(e->index)) {
		Opnd x = ev(e->b), y = ev(e->index);
		return pure(f ? O_F : O_R, f ? "selp.f32 %D, %o, %o, %o;" : "selp.b32 %D, %o, %o, %o;", x, y, p);
	}
	Opnd r = f ? new_f() : new_r();
	const char *mov = f ? "mov.f32 %o, %o;" : "mov.b32 %o, %o;";
	int l_else = ++P.nlabel, l_end = ++P.nlabel;
	ins(PF_BRANCH, "@!%o bra %s;", p, label_name(l_else));
	ins(0, mov, r, ev(e->b));
	ins(PF_BRANCH, "bra %s;", label_name(l_end));
	label(l_else);
	ins(0, mov, r, ev(e->index));
	label(l_end);
	return r;
}

/* ---------------------------------------------------------------- functions of 10.2 */

typedef struct PGen {
	MathGen g;
	Opnd v[512];
	int n;
	int not_nan; /* a value known not to be NaN (an integer converted), else -1 */
	int and_of[512][2]; /* the operands (handle + 1) of a value made by MO_IAND, else 0 */
	Func fn;            /* the function being built */
} PGen;

static int
pgen_put(PGen *pg, Opnd o)
{
	if (pg->n >= 512)
		fatal("emit_ptx: a math function with too many values");
	pg->v[pg->n] = o;
	return pg->n++;
}

static int pgen_kf(MathGen *g, float v) { return pgen_put((PGen *)g, fimm(v)); }
static int pgen_ki(MathGen *g, int32_t v) { return pgen_put((PGen *)g, imm(v)); }

static int
pgen_op(MathGen *g, MOp o, int a, int b, int c)
{
	PGen *pg = (PGen *)g;
	Opnd x = a >= 0 ? pg->v[a] : imm(0), y = b >= 0 ? pg->v[b] : imm(0), z = c >= 0 ? pg->v[c] : imm(0);
	Opnd r;
	if (o == MO_FNAN && a == pg->not_nan)
		return pgen_put(pg, imm(0)); /* a test nvcc drops too (func_float_only_fixed: 16 -> 12 registers) */
	if (o == MO_SEL && x.k == O_IMM)
		return x.v ? b : c;
	switch (o) {
	case MO_FMA:
		if (is_imm(x) && !is_imm(y)) /* the constant factor second, as nvcc writes it: no mov */
			r = pure(O_F, "fma.rn.f32 %D, %o, %o, %o;", y, x, z);
		else
			r = pure(O_F, "fma.rn.f32 %D, %o, %o, %o;", reg(x), y, z);
		break;
	case MO_MUL: r = pure(O_F, "mul.rn.f32 %D, %o, %o;", reg(x), y); break;
	case MO_ADD: r = pure(O_F, "add.rn.f32 %D, %o, %o;", reg(x), y); break;
	case MO_SUB: r = pure(O_F, "sub.rn.f32 %D, %o, %o;", reg(x), y); break;
	case MO_DIV: r = pure(O_F, "div.rn.f32 %D, %o, %o;", reg(x), y); break;
	case MO_RINT: r = pure(O_F, "cvt.rni.f32.f32 %D, %o;", reg(x)); break;
	case MO_F2I: r = pure(O_R, "cvt.rni.s32.f32 %D, %o;", reg(x)); break;
	case MO_I2F: r = pure(O_F, "cvt.rn.f32.s32 %D, %o;", reg(x)); break;
	case MO_ASINT: r = pure(O_R, "mov.b32 %D, %o;", reg(x)); break;
	case MO_ASFLT: r = pure(O_F, "mov.b32 %D, %o;", reg(x)); break;
	case MO_IADD: r = pure(O_R, "add.s32 %D, %o, %o;", reg(x), y); break;
	case MO_ISUB: r = pure(O_R, "sub.s32 %D, %o, %o;", reg(x), y); break;
	case MO_IAND: r = pure(O_R, "and.b32 %D, %o, %o;", reg(x), y); break;
	case MO_IOR:
		if (pg->fn == F_ERF && b >= 0 && (pg->and_of[a][0] || pg->and_of[b][0])) {
			/* (p & q) | y in one lop3 (0xEA: a & b | c): erf's sign bit and or, which ptxas leaves
			   two LOP3s (epilogue_kernel: one instruction an erf); not tanh's, where the argument's
			   bits then stay live across its division (expr_funcs: 26 registers, 30 so) */
			const int *pq = pg->and_of[a][0] ? pg->and_of[a] : pg->and_of[b];
			Opnd other = pg->and_of[a][0] ? y : x;
			r = pure(O_R, "lop3.b32 %D, %o, %o, %o, 0xEA;", reg(pg->v[pq[0] - 1]), pg->v[pq[1] - 1], reg(other));
		} else
			r = pure(O_R, "or.b32 %D, %o, %o;", reg(x), y);
		break;
	case MO_IXOR: r = pure(O_R, "xor.b32 %D, %o, %o;", reg(x), y); break;
	case MO_SHL: r = pure(O_R, "shl.b32 %D, %o, %o;", reg(x), y); break;
	case MO_SHRA: r = pure(O_R, "shr.s32 %D, %o, %o;", reg(x), y); break;
	case MO_FLT:
		if (is_imm(x) && !is_imm(y))
			r = pure(O_P, "setp.gt.f32 %D, %o, %o;", y, x);
		else
			r = pure(O_P, "setp.lt.f32 %D, %o, %o;", reg(x), y);
		break;
	case MO_FNAN: r = pure(O_P, "setp.nan.f32 %D, %o, %o;", reg(x), x); break;
	case MO_INE0: r = pure(O_P, "setp.ne.s32 %D, %o, 0;", reg(x)); break;
	case MO_SEL:
		r = y.k == O_F || y.k == O_FIMM ? pure(O_F, "selp.f32 %D, %o, %o, %o;", y, z, x)
		                                : pure(O_R, "selp.b32 %D, %o, %o, %o;", y, z, x);
		break;
	case MO_EX2: r = pure(O_F, "ex2.approx.ftz.f32 %D, %o;", reg(x)); break;
	case MO_FABS: r = pure(O_F, "abs.f32 %D, %o;", reg(x)); break;
	case MO_RCP: r = pure(O_F, "rcp.approx.ftz.f32 %D, %o;", reg(x)); break;
	case MO_RSQ: r = pure(O_F, "rsqrt.approx.ftz.f32 %D, %o;", reg(x)); break;
	case MO_SQRT: r = pure(O_F, "sqrt.rn.f32 %D, %o;", reg(x)); break;
	default: fatal("emit_ptx: math operation %d", (int)o);
	}
	int h = pgen_put(pg, r);
	if (o == MO_IAND) {
		pg->and_of[h][0] = a + 1;
		pg->and_of[h][1] = b + 1;
	}
	return h;
}

/* An integer converted to f32, or a constant other than NaN. */
static bool
never_nan(const IExpr *e)
{
	if (e->kind == IE_FLOAT)
		return e->fval == e->fval;
	return e->kind == IE_CONV && e->a->type != T_F32 && e->a->type != T_F16 && e->a->type != T_BF16;
}

/* min or max of a and b as tl_fmin / tl_fmax of the CUDA C: b when b is beyond a or a is NaN, else a */
static Opnd
float_min_max(bool min, Opnd a, Opnd b, bool a_never_nan)
{
	Opnd beyond = pure(O_P, min ? "setp.lt.f32 %D, %o, %o;" : "setp.gt.f32 %D, %o, %o;", reg(b), a);
	if (a_never_nan)
		return pure(O_F, "selp.f32 %D, %o, %o, %o;", b, a, beyond);
	Opnd nan = pure(O_P, "setp.nan.f32 %D, %o, %o;", a, a);
	return pure(O_F, "selp.f32 %D, %o, %o, %o;", b, pure(O_F, "selp.f32 %D, %o, %o, %o;", b, a, nan), beyond);
}

/* shfl.sync of a 32-bit value: mode bfly, idx, down or up; never merged with another or moved out of
 * its loop, since every lane must execute it where the program does */
static Opnd
shuffle(const char *mode, Opnd v, Opnd b)
{
	Opnd r = v.k == O_F ? new_f() : new_r();
	/* the clamp operand: lanes 0-31 as one segment; up counts down to lane 0 */
	ins(0, "shfl.sync.%s.b32 %o, %o, %o, %d, -1;", mode, r, v, b, strcmp(mode, "up") == 0 ? 0 : 31);
	return r;
}

/* lanes_sum, lanes_max, lanes_min over aligned groups of n lanes (and warp_* of floats, n = 32): the
 * butterfly over lane distances 1, 2, 4, ..., each step combining the value of the lower lane of a pair
 * with that of the upper one, so that both lanes compute the same bits (language.md, Warp collectives) */
static Opnd
lanes_reduce(Func fn, EType t, Opnd v, int n)
{
	bool min = fn == F_LANES_MIN || fn == F_WARP_MIN, sum = fn == F_LANES_SUM || fn == F_WARP_SUM;
	Opnd lane = t == T_F32 && !sum ? builtin(B_LANE_ID) : NO_REG;
	for (int m = 1; m < n; m <<= 1) {
		Opnd o = shuffle("bfly", v, imm(m));
		if (t != T_F32) {
			const char *ty = t == T_U32 ? "u32" : "s32";
			v = pure(O_R, sum ? "add.%s %D, %o, %o;" : min ? "min.%s %D, %o, %o;" : "max.%s %D, %o, %o;", ty, v, o);
		} else if (sum) {
			v = pure(O_F, "add.rn.f32 %D, %o, %o;", v, o);
		} else {
			Opnd upper = pure(O_P, "setp.ne.u32 %D, %o, 0;", pure(O_R, "and.b32 %D, %o, %d;", reg(lane), m));
			Opnd lo = pure(O_F, "selp.f32 %D, %o, %o, %o;", o, v, upper), hi = pure(O_F, "selp.f32 %D, %o, %o, %o;", v, o, upper);
			v = float_min_max(min, lo, hi, false);
		}
	}
	return v;
}

/* A warp collective (language.md, Warp collectives): shuffles, votes, redux.sync for integers */
static Opnd
collective(const IExpr *e)
{
	static const char *const modes[] = {[F_SHFL_XOR] = "bfly", [F_SHFL_IDX] = "idx", [F_SHFL_DOWN] = "down", [F_SHFL_UP] = "up"};
	switch (e->fn) {
	case F_SHFL_XOR: case F_SHFL_IDX: case F_SHFL_DOWN: case F_SHFL_UP:
		return shuffle(modes[e->fn], reg(ev(e->a)), ev(e->b));
	case F_ANY: case F_ALL: {
		Opnd p = {O_P, ++P.np, 0, NULL, false};
		ins(0, e->fn == F_ANY ? "vote.sync.any.pred %o, %o, -1;" : "vote.sync.all.pred %o, %o, -1;", p, pred(e->a));
		return pure(O_R, "selp.s32 %D, 1, 0, %o;", p);
	}
	case F_BALLOT: {
		Opnd r = new_r();
		ins(0, "vote.sync.ballot.b32 %o, %o, -1;", r, pred(e->a));
		return r;
	}
	case F_WARP_SUM: case F_WARP_MAX: case F_WARP_MIN:
		if (e->type != T_F32) {
			Opnd r = new_r();
			const char *op = e->fn == F_WARP_SUM ? "add" : e->fn == F_WARP_MAX ? "max" : "min";
			ins(0, "redux.sync.%s.%s %o, %o, -1;", op, e->type == T_U32 ? "u32" : "s32", r, reg(ev(e->a)));
			return r;
		}
		return lanes_reduce(e->fn, e->type, reg(ev(e->a)), 32);
	default:
		return lanes_reduce(e->fn, e->type, reg(ev(e->a)), (int)e->b->ival);
	}
}

static Opnd
func_call(const IExpr *e)
{
	bool f = e->type == T_F32, u = e->type == T_U32;
	if (func_info(e->fn)->collective)
		return collective(e);
	Opnd a = reg(ev(e->a));
	switch (e->fn) {
	case F_MIN:
	case F_MAX: {
		Opnd b = ev(e->b);
		if (!f)
			return pure(O_R, "%s.%s %D, %o, %o;", e->fn == F_MIN ? "min" : "max", u ? "u32" : "s32", a, b);
		return float_min_max(e->fn == F_MIN, a, b, never_nan(e->a));
	}
	case F_ABS:
		if (f)
			return pure(O_F, "mov.b32 %D, %o;", pure(O_R, "and.b32 %D, %o, 2147483647;", pure(O_R, "mov.b32 %D, %o;", a)));
		return pure(O_R, "abs.s32 %D, %o;", a);
	case F_FMA:
		return pure(O_F, "fma.rn.f32 %D, %o, %o, %o;", a, ev(e->b), ev(e->index));
	case F_SQRT:
		return pure(O_F, "sqrt.rn.f32 %D, %o;", a);
	case F_RSQRT:
		return pure(O_F, "div.rn.f32 %D, 0f3F800000, %o;", pure(O_F, "sqrt.rn.f32 %D, %o;", a));
	default: {
		PGen *pg = pool_alloc(sizeof *pg);
		pg->g.op = pgen_op;
		pg->g.kf = pgen_kf;
		pg->g.ki = pgen_ki;
		pg->g.approx = true; /* the PTX runs on the GPU only */
		pg->fn = e->fn;
		int x = pgen_put(pg, a);
		pg->not_nan = never_nan(e->a) ? x : -1;
		return pg->v[math_build(&pg->g, e->fn, x)];
	}
	}
}

static int
log2_exact(uint32_t d)
{
	for (int log = 0; log < 32; log++)
		if ((1u << log) == d)
			return log;
	return -1;
}

/* n / d or n % d (C's truncating division) for a constant d >= 2, by a multiplication with d's
 * reciprocal: ptxas turns div and rem even by a constant into the generic sequence (a float
 * reciprocal and corrections), which costs registers and a dozen instructions. The multiplier
 * is the least m = ceil(2^(32+s) / d) with m * d - 2^(32+s) <= 2^s, exact for every 32-bit n
 * (Granlund and Montgomery); signed division rounds towards zero by adding one for negative n. */
static Opnd
div_const(Opnd n, uint32_t d, bool u, bool mod)
{
	int log = log2_exact(d);
	Opnd q;
	if (log >= 0 && u) {
		if (mod)
			return pure(O_R, "and.b32 %D, %o, %o;", n, imm((int64_t)d - 1));
		return pure(O_R, "shr.u32 %D, %o, %d;", n, log);
	}
	if (log >= 0) {
		/* the bias 2^log - 1 for negative n, so that the arithmetic shift truncates */
		Opnd sign = log == 1 ? n : pure(O_R, "shr.s32 %D, %o, 31;", n);
		Opnd bias = pure(O_R, "shr.u32 %D, %o, %d;", sign, 32 - log);
		Opnd t = pure(O_R, "add.s32 %D, %o, %o;", n, bias);
		if (mod) /* n - (n + bias) with its low bits cleared */
			return pure(O_R, "sub.s32 %D, %o, %o;", n, pure(O_R, "and.b32 %D, %o, %o;", t, imm(-(int64_t)d)));
		return pure(O_R, "shr.s32 %D, %o, %d;", t, log);
	}
	if (u && d > 0x80000000u) { /* the quotient is 0 or 1 */
		Opnd ge = pure(O_P, "setp.ge.u32 %D, %o, %o;", n, imm(d));
		if (!mod)
			return pure(O_R, "selp.u32 %D, 1, 0, %o;", ge);
		return pure(O_R, "sub.s32 %D, %o, %o;", n, pure(O_R, "selp.u32 %D, %o, 0, %o;", imm(d), ge));
	}
	/* u: n < 2^32; signed: |n| <= 2^31, 31 bits of precision suffice, and s >= 1 leaves the
	   shift after mul.hi (by s - 1) non-negative */
	int bits = u ? 32 : 31;
	int s = u ? 0 : 1;
	uint64_t m;
	for (;; s++) {
		uint64_t p = 1ull << (bits + s);
		m = p / d + (p % d != 0);
		if (m * d - p <= (1ull << s))
			break;
	}
	if (u) {
		if (m < (1ull << 32)) {
			q = pure(O_R, "mul.hi.u32 %D, %o, %o;", n, imm((int64_t)m));
		} else {
			/* a 33-bit m: t = n * (m - 2^32) / 2^32, q = (n + t) / 2^s without overflowing */
			Opnd t = pure(O_R, "mul.hi.u32 %D, %o, %o;", n, imm((int64_t)(m - (1ull << 32))));
			Opnd h = pure(O_R, "shr.u32 %D, %o, 1;", pure(O_R, "sub.s32 %D, %o, %o;", n, t));
			q = pure(O_R, "add.s32 %D, %o, %o;", h, t);
			s--;
		}
		if (s)
			q = pure(O_R, "shr.u32 %D, %o, %d;", q, s);
	} else {
		/* m < 2^32 here; m * n / 2^(32 + s) with m read as signed needs n added back when m >= 2^31 */
		s -= 1;
		q = pure(O_R, "mul.hi.s32 %D, %o, %o;", n, imm((int64_t)(int32_t)(uint32_t)m));
		if (m >= (1ull << 31))
			q = pure(O_R, "add.s32 %D, %o, %o;", q, n);
		if (s > 0)
			q = pure(O_R, "shr.s32 %D, %o, %d;", q, s);
		q = pure(O_R, "add.s32 %D, %o, %o;", q, pure(O_R, "shr.u32 %D, %o, 31;", n));
	}
	if (!mod)
		return q;
	return pure(O_R, "mad.lo.s32 %D, %o, %o, %o;", q, imm((int32_t)(0u - d)), n);
}

/* A 32-bit conversion that keeps the bits (between i32 and u32) looked through. */
static const IExpr *
same_bits(const IExpr *e)
{
	while (e->kind == IE_CONV && (e->to == T_I32 || e->to == T_U32) && (e->a->type == T_I32 || e->a->type == T_U32))
		e = e->a;
	return e;
}

static bool
const_pow2(const IExpr *e, int *log)
{
	int64_t c;
	return ie_is_const(e, &c) && c > 0 && c <= INT32_MAX && (*log = log2_exact((uint32_t)c)) >= 0;
}

/* e as x >> a with a logical shift (x NULL: the linear thread index, as warp_id is). */
static bool
shifted(const IExpr *e, const IExpr **x, int *a)
{
	e = same_bits(e);
	if (e->kind == IE_BUILTIN && (e->builtin == B_WARP_ID || e->builtin == B_WARPGROUP_ID)) {
		*x = NULL;
		*a = e->builtin == B_WARP_ID ? 5 : 7;
		return true;
	}
	if (e->kind != IE_BINARY || (e->a->type != T_U32 && !nonneg(e->a)))
		return false;
	int64_t c;
	if (e->op == OP_SHR && ie_is_const(e->b, &c) && c >= 0 && c < 32) {
		*x = e->a;
		*a = (int)c;
		return true;
	}
	*x = e->a;
	return e->op == OP_DIV && const_pow2(e->b, a);
}

/* e as a Field: lane_id, (y >> a) & m, y & m, and those multiplied by or shifted left by a power of
 * two. */
static bool
field(const IExpr *e, Field *f)
{
	e = same_bits(e);
	int64_t c;
	int sa, sb;
	const IExpr *x;
	if (e->kind == IE_BUILTIN && e->builtin == B_LANE_ID) {
		*f = (Field){NULL, 0, 31};
		return true;
	}
	if (e->kind != IE_BINARY)
		return false;
	if (e->op == OP_BITAND && ie_is_const(e->b, &c) && c > 0 && c <= UINT32_MAX) {
		if (shifted(e->a, &x, &sa)) {
			*f = (Field){x, -sa, (uint32_t)c & (uint32_t)(UINT32_MAX >> sa)};
			return sa > 0 || x;
		}
		*f = (Field){same_bits(e->a), 0, (uint32_t)c};
		return true;
	}
	if (e->op == OP_SHL && ie_is_const(e->b, &c) && c >= 0 && c < 32)
		sb = (int)c;
	else if (e->op != OP_MUL || !const_pow2(e->b, &sb))
		return false;
	if (!field(e->a, f))
		return false;
	f->r += sb;
	f->mask = (uint32_t)((uint64_t)f->mask << sb);
	return true;
}

/* Whether a mask spans at most 5 bits, as a lane number does. Only those offsets take the field form
 * in an address: a wider one (tid & 63 of a half block) measured worse (copy_owner_threads 32 -> 40
 * registers, ptxas then batching more loads). */
static bool
lane_wide(uint32_t mask)
{
	while (mask && !(mask & 1))
		mask >>= 1;
	return mask <= 31;
}

/* The value of a Field: one shift and one mask. */
static Opnd
field_value(const Field *f)
{
	Opnd v = f->x ? reg(ev(f->x)) : linear_tid();
	if (f->r > 0)
		v = pure(O_R, "shl.b32 %D, %o, %d;", v, f->r);
	else if (f->r < 0)
		v = pure(O_R, "shr.u32 %D, %o, %d;", v, -f->r);
	return pure(O_R, "and.b32 %D, %o, %d;", v, (int64_t)f->mask);
}

/* The 32-bit operand of a (long long) conversion, else NULL. */
static const IExpr *
widened32(const IExpr *e)
{
	if (e->kind == IE_CONV && e->to == T_I64 && (e->a->type == T_I32 || e->a->type == T_U32))
		return e->a;
	return NULL;
}

static Opnd
binary(const IExpr *e)
{
	if (is_compare(e->op) || e->op == OP_LAND || e->op == OP_LOR)
		return pure(O_R, "selp.s32 %D, 1, 0, %o;", pred(e));
	Field f;
	if ((e->type == T_I32 || e->type == T_U32) && (e->op == OP_MUL || e->op == OP_SHL) && field(e, &f) && f.r > -32 &&
	    f.r < 32)
		/* a masked value scaled by a power of two is one shift and one mask, as nvcc writes
		   (warp_id & 3) * 2^21 as (tid << 16) & 0x600000 */
		return field_value(&f);
	const IExpr *x = widened32(e->a), *y = widened32(e->b);
	if (e->type == T_I64 && e->op == OP_MUL && x && y) {
		/* the product of two widened 32-bit values, from the 32-bit values themselves */
		bool zx = x->type == T_U32 || nonneg(x), zy = y->type == T_U32 || nonneg(y);
		bool sx = x->type == T_I32, sy = y->type == T_I32;
		if ((sx && sy) || (zx && zy)) {
			Opnd u = ev(x), v = ev(y);
			if (is_imm(u)) {
				Opnd t = u;
				u = v;
				v = t;
			}
			return pure(O_D, "mul.wide.%s %D, %o, %o;", sx && sy ? "s32" : "u32", reg(u), v);
		}
	}
	Opnd a = ev(e->a), b = ev(e->b);
	if (e->type != T_F32 && (a.k == O_IMM || b.k == O_IMM)) {
		/* constants that a name bound to a constant brings (a device function's argument) fold */
		IExpr *f = ie_binary(e->op, a.k == O_IMM ? ie_int(a.v, e->a->type) : e->a, b.k == O_IMM ? ie_int(b.v, e->b->type) : e->b);
		int64_t v;
		if (ie_is_const(f, &v))
			return imm(v);
		if (f == e->a && a.k != O_IMM)
			return a;
		if (f == e->b && b.k != O_IMM)
			return b;
	}
	if (is_imm(a) && !is_imm(b) && commutes(e->op)) {
		Opnd t = a;
		a = b;
		b = t;
	}
	if (e->type == T_I64) {
		if (a.k == O_IMM)
			a = pure(O_D, "mov.b64 %D, %o;", a);
		const char *op = e->op == OP_ADD ? "add.s64" : e->op == OP_SUB ? "sub.s64" : "mul.lo.s64";
		if (e->op != OP_ADD && e->op != OP_SUB && e->op != OP_MUL)
			fatal("emit_ptx: 64-bit operator %d", (int)e->op);
		if (e->op == OP_MUL && b.k == O_IMM)
			return scale64(a, b.v);

		return pure(O_D, "%s %D, %o, %o;", op, a, b);
	}
	a = reg(a);
	if (e->type == T_F32) {
		/* .rn: never contracted into an fma, as the CUDA C's __fadd_rn and friends */
		const char *op = e->op == OP_ADD ? "add.rn.f32" : e->op == OP_SUB ? "sub.rn.f32" : e->op == OP_MUL ? "mul.rn.f32"
		                 : "div.rn.f32";
		if (e->op != OP_ADD && e->op != OP_SUB && e->op != OP_MUL && e->op != OP_DIV)
			fatal("emit_ptx: float operator %d", (int)e->op);
		return pure(O_F, "%s %D, %o, %o;", op, a, b);
	}
	bool u = (e->op == OP_SHR ? e->a->type : e->type) == T_U32;
	int64_t c;
	if ((e->op == OP_DIV || e->op == OP_MOD) && ie_is_const(e->b, &c)) {
		/* the C result of a value >= 0 by a constant > 0 is the unsigned one: ptxas does not know
		   that %tid is never negative */
		if (!u && nonneg(e->a) && (int32_t)c > 0)
			u = true;
		uint32_t d = u ? (uint32_t)c : (uint32_t)(int32_t)c;
		if (u ? d >= 2 : (int32_t)c >= 2)
			return div_const(a, d, u, e->op == OP_MOD);
	}
	if (e->op == OP_ADD && ((ie_is_const(e->b, &c) && c > 0 && c < known_factor(e->a)) ||
	                        (ie_is_const(e->a, &c) && c > 0 && c < known_factor(e->b))))
		/* a constant below the low zero bits of the other side: or, as nvcc writes a column added
		   to the lane part of a tcgen05 address */
		return pure(O_R, "or.b32 %D, %o, %o;", a, b);
	const char *op;
	switch (e->op) {
	case OP_MUL: op = "mul.lo.s32"; break;
	case OP_DIV: op = u ? "div.u32" : "div.s32"; break;
	case OP_MOD: op = u ? "rem.u32" : "rem.s32"; break;
	case OP_ADD: op = "add.s32"; break;
	case OP_SUB: op = "sub.s32"; break;
	case OP_SHL: op = "shl.b32"; break;
	case OP_SHR: op = u ? "shr.u32" : "shr.s32"; break;
	case OP_BITAND: op = "and.b32"; break;
	case OP_BITXOR: op = "xor.b32"; break;
	case OP_BITOR: op = "or.b32"; break;
	default: fatal("emit_ptx: integer operator %d", (int)e->op);
	}
	return pure(O_R, "%s %D, %o, %o;", op, a, b);
}

static Opnd
unary(const IExpr *e)
{
	if (e->op == OP_NOT)
		return pure(O_R, "selp.s32 %D, 1, 0, %o;", pred(e));
	Opnd a = reg(ev(e->a));
	if (e->op == OP_NEG && e->type == T_F32)
		return pure(O_F, "neg.f32 %D, %o;", a);
	return pure(O_R, e->op == OP_NEG ? "neg.s32 %D, %o;" : "not.b32 %D, %o;", a);
}

static Opnd
ev(const IExpr *e)
{
	switch (e->kind) {
	case IE_INT:
		return imm(e->type == T_U32 ? (int64_t)(uint32_t)e->ival : (int64_t)(int32_t)e->ival);
	case IE_FLOAT:
		return fimm(e->fval);
	case IE_VAR: {
		if (e->var->is_param)
			return param_value(e->var);
		const MapEntry *m = map_find(e->var->cname);
		return m->expr ? ev(m->expr) : m->val;
	}
	case IE_BUILTIN:
		return builtin(e->builtin);
	case IE_LOAD: {
		if (e == P.vec_load)
			return P.vec_elem;
		const Opnd *k = kept_slot(e->tensor, e->index);
		return k ? *k : load(e->tensor, e->index, NULL);
	}
	case IE_SADDR:
		return shared_address(e);
	case IE_REG:
		return register_read(e->tensor, e->slot);
	case IE_UNARY:
		return unary(e);
	case IE_BINARY:
		return binary(e);
	case IE_SELECT:
		return select_value(e);
	case IE_CONV:
		return convert(e);
	case IE_CALL:
		return func_call(e);
	}
	fatal("emit_ptx: expression kind %d", (int)e->kind);
}

/* A predicate that is true where C's truth value of e is nonzero. */
/* x + k < b (i32, k a positive constant) as k < b - x, the difference saturated (sub.sat.s32: the
 * same test wherever x + k does not overflow, which C leaves undefined, as language.md's operators
 * do): the difference is one register for all the k of a predicated run and each test one comparison
 * with a constant (epilogue_kernel: each element's column test was an addition and a comparison).
 * Only there: tests in branches of their own compute the difference again in each (gemm_epilogue's
 * masked copies: 96 SASS instructions more). NO_REG where e is not of that form. */
static Opnd
offset_difference(const IExpr *e)
{
	int64_t k, c;
	if (!P.run_tests || e->op != OP_LT || e->a->type != T_I32 || e->b->type != T_I32 || ie_is_const(e->b, &c) || has_load(e->a) ||
	    has_load(e->b))
		return NO_REG;
	const IExpr *x = ie_split_offset(resolve(e->a), &k);
	if (!x || k <= 0 || k >= INT32_MAX)
		return NO_REG;
	Opnd d = pure(O_R, "sub.sat.s32 %D, %o, %o;", reg(ev(e->b)), reg(ev(x)));
	return pure(O_P, "setp.gt.s32 %D, %o, %d;", d, (int)k);
}

static Opnd
pred(const IExpr *e)
{
	if (e->kind == IE_BINARY && is_compare(e->op)) {
		static const char *const cmp[] = {
			[OP_LT] = "lt", [OP_LE] = "le", [OP_GT] = "gt", [OP_GE] = "ge", [OP_EQ] = "eq", [OP_NE] = "ne",
		};
		static const char *const swapped[] = {
			[OP_LT] = "gt", [OP_LE] = "ge", [OP_GT] = "lt", [OP_GE] = "le", [OP_EQ] = "eq", [OP_NE] = "ne",
		};
		const IExpr *sx;
		int sa;
		int64_t zero;
		if ((e->op == OP_EQ || e->op == OP_NE) && ie_is_const(e->b, &zero) && zero == 0 && shifted(e->a, &sx, &sa) && sa > 0) {
			/* (x >> a) == 0 as x < 2^a: no shifted copy of x kept (warp_id == 0 is tid < 32) */
			Opnd x = sx ? reg(ev(sx)) : linear_tid();
			return pure(O_P, "setp.%s.u32 %D, %o, %d;", e->op == OP_EQ ? "lt" : "ge", x, 1 << sa);
		}
		Opnd d = offset_difference(e);
		if (d.k != O_NONE)
			return d;
		Opnd a = ev(e->a), b = ev(e->b);
		const char *c = cmp[e->op];
		if (is_imm(a) && !is_imm(b)) {
			Opnd t = a;
			a = b;
			b = t;
			c = swapped[e->op];
		}
		EType t = e->a->type;
		if (t == T_F32 && e->op == OP_NE)
			c = "neu"; /* C's != is true when either side is NaN */
		return pure(O_P, "setp.%s.%s %D, %o, %o;", c, t == T_F32 ? "f32" : t == T_I64 ? "s64" : int_suffix(t), reg(a), b);
	}
	if (e->kind == IE_BINARY && (e->op == OP_LAND || e->op == OP_LOR)) {
		Opnd a = pred(e->a);
		if (has_load(e->b)) {
			/* the right side reads memory (i < M && C[i, j] > 0): as in C, only when the left one
			   does not decide, so that a guarded access past a tensor's end is never made */
			Opnd r = {O_P, ++P.np, 0, NULL, false};
			int l_end = ++P.nlabel;
			ins(0, "mov.pred %o, %o;", r, a);
			ins(PF_BRANCH, e->op == OP_LAND ? "@!%o bra %s;" : "@%o bra %s;", a, label_name(l_end));
			ins(0, "mov.pred %o, %o;", r, pred(e->b));
			label(l_end);
			return r;
		}
		/* neither side has side effects, so both are evaluated and combined */
		Opnd b = pred(e->b);
		return pure(O_P, e->op == OP_LAND ? "and.pred %D, %o, %o;" : "or.pred %D, %o, %o;", a, b);
	}
	if (e->kind == IE_UNARY && e->op == OP_NOT) {
		return pure(O_P, "not.pred %D, %o;", pred(e->a));
	}
	Opnd v = reg(ev(e));
	if (e->type == T_F32)
		return pure(O_P, "setp.neu.f32 %D, %o, 0f00000000;", v);
	return pure(O_P, "setp.ne.s32 %D, %o, 0;", v);
}

/* ---------------------------------------------------------------- stores */

/* The bits of a narrow element that is only moved (moved_bits): loaded, or taken out of its
 * register word, into the low bits of a .b32 register; no conversion. */
static Opnd
narrow_bits(const IExpr *m)
{
	int bits = etype_bits(m->tensor->type);
	if (m->kind == IE_LOAD) {
		Addr a = address(m->tensor, m->index);
		Opnd r = new_r();
		ins(PF_LOAD, "ld.%s.u%d %o, %a;", space(m->tensor), bits, r, &a);
		return r;
	}
	int per = 32 / bits;
	Opnd w = {O_WORD, m->slot / per, 0, m->tensor, true};
	return pure(O_R, "bfe.u32 %D, %o, %d, %d;", w, (m->slot % per) * bits, bits);
}

/* The bits to store for an element of type t: a .b32 register (or immediate) for 32-bit and integer
 * types (st truncates narrow ones), an .f32 for f32, a .b16 for f16 / bf16 computed from a value,
 * a .b32 for 16-bit data that is only moved or constant. */
static Opnd
stored_bits(EType t, const IExpr *value)
{
	if (value->kind == IE_CONV && value->to == t)
		value = value->a;
	const IExpr *m = etype_bits(t) < 32 ? moved_bits(t, value) : NULL;
	if (m)
		return narrow_bits(m);
	if ((t == T_F16 || t == T_BF16) && value->kind == IE_FLOAT)
		return reg(imm(half_bits(value->fval, t)));
	Opnd v = ev(value);
	switch (t) {
	case T_F32:
		return reg(to_f32(v, value->type));
	case T_F16:
	case T_BF16:
		return f32_to_half(to_f32(v, value->type), t);
	case T_E4M3: case T_E5M2: case T_E2M3: case T_E3M2: case T_E2M1: case T_UE8M0: case T_UE4M3:
		return f32_to_minifloat(to_f32(v, value->type), t);
	default:
		return reg(to_int(v, value->type, !etype_is_signed(t)));
	}
}

static void
store(const LStmt *s)
{
	const Tensor *t = s->tensor;
	Opnd v = stored_bits(t->type, s->value);
	Addr a = address(t, s->index);
	static const char *const sfx[T_COUNT] = {
		[T_F32] = "f32", [T_F16] = "b16", [T_BF16] = "b16", [T_I32] = "u32", [T_U32] = "u32",
		[T_I16] = "u16", [T_U16] = "u16", [T_I8] = "u8", [T_U8] = "u8",
		[T_E4M3] = "u8", [T_E5M2] = "u8", [T_E2M3] = "u8", [T_E3M2] = "u8", [T_E2M1] = "u8", [T_UE8M0] = "u8",
		[T_UE4M3] = "u8",
	};
	ins(PF_STORE, "st.%s.%s %a, %o;", t->kind == TK_SHARED ? "shared" : "global", v.k == O_H ? "b16" : etype_bits(t->type) == 16 ? "u16" : sfx[t->type], &a, v);
}

/* Whether a word's value may be computed at its read instead of its store: constants, parameters,
 * ids and loads of global tensors the kernel never writes (memory that reads the same anywhere),
 * with every name resolved to its value; no register, var or call. */
static bool
movable_value(const IExpr *e)
{
	if (!e)
		return true;
	switch (e->kind) {
	case IE_VAR:
		return e->var->is_param;
	case IE_REG:
	case IE_CALL:
	case IE_SADDR:
		return false;
	case IE_LOAD:
		if (e->tensor->kind != TK_GLOBAL || P.param_written[e->tensor->index])
			return false;
		break;
	default:
		break;
	}
	return movable_value(e->a) && movable_value(e->b) && movable_value(e->index);
}

/* A register store outside every if and runtime loop, to a 32-bit word that nothing else writes and
 * at most one expression reads, once, of a value movable_value allows: nothing is emitted here, and
 * the read computes the value (a row loaded into registers and stored under a test per element:
 * the load moves into the test's branch, as nvcc's route sinks it; tests/routes/residue_store.tile,
 * 43 registers before, one per element held). Returns false where the store is emitted. */
static bool
deferred_store(const LStmt *s)
{
	const Tensor *t = s->tensor;
	WordUse *u = etype_bits(t->type) == 32 && !s->vec && P.depth == 0 && P.pred.k == O_NONE ? word_use(t) : NULL;
	if (!u || u->pinned || u->writes[s->slot] != 1 || u->reads[s->slot] > 1)
		return false;
	IExpr *v = resolve(s->value);
	if (!movable_value(v))
		return false;
	if (!u->value) {
		u->value = pool_alloc((size_t)t->words * sizeof *u->value);
		memset(u->value, 0, (size_t)t->words * sizeof *u->value);
	}
	u->value[s->slot] = v;
	return true;
}

static void
reg_store(const LStmt *s)
{
	const Tensor *t = s->tensor;
	int bits = etype_bits(t->type);
	if (deferred_store(s))
		return;
	int per = 32 / bits;
	Opnd w = {O_WORD, s->slot / per, 0, t, true};
	int shift = (s->slot % per) * bits;
	const IExpr *value = s->value->kind == IE_CONV && s->value->to == t->type ? s->value->a : s->value;
	if (bits == 32 && value->kind == IE_LOAD && etype_bits(value->tensor->type) == 32 &&
	    (value->tensor->type == T_F32) == (t->type == T_F32)) {
		load(value->tensor, value->index, &w); /* the bits as they are: no register copy */
		return;
	}
	Opnd v = stored_bits(t->type, s->value);
	if (bits == 32) {
		ins(0, "mov.b32 %o, %o;", w, v);
		return;
	}
	if (v.k == O_H)
		v = pure(O_R, "cvt.u32.u16 %D, %o;", v);
	ins(0, "bfi.b32 %o, %o, %o, %d, %d;", w, v, w, shift, bits);
}

/* The f32 value that s, one of paired_halves, rounds. */
static Opnd
half_source(const LStmt *s)
{
	const IExpr *h = rounded_half(s->tensor->type, s->value);
	return reg(to_f32(ev(h), h->type));
}

/* The word of paired_halves a and b, from the values they round. */
static void
paired_reg_store(const LStmt *a, Opnd lo, Opnd hi)
{
	Opnd w = {O_WORD, a->slot / 2, 0, a->tensor, true};
	ins(0, "cvt.rn.%s.f32 %o, %o, %o;", a->tensor->type == T_F16 ? "f16x2" : "bf16x2", w, hi, lo);
}

/* Element `part` of type t of the word w of a converting vector load, widened: word_element, but the
 * low and the high integer field as nvcc writes them (cvt / and, shr), of which ptxas keeps fewer
 * registers live than of bfe (i16 to f32 loads then stores: 32 registers instead of 35, as nvcc's). */
static Opnd
vector_element(Opnd w, EType t, int part)
{
	int bits = etype_bits(t);
	bool sgn = etype_is_signed(t);
	if (bits == 32 || etype_is_float(t) || (part && (part + 1) * bits != 32))
		return word_element(w, t, part);
	if (part)
		return pure(O_R, "shr.%s32 %D, %o, %d;", sgn ? "s" : "u", w, part * bits);
	if (sgn)
		return pure(O_R, "cvt.s32.s%d %D, %o;", bits, w);
	return pure(O_R, "and.b32 %D, %o, %d;", w, bits == 16 ? 0xffff : 0xff);
}

/* One 32-bit word of a converting vector store to type t (vector_converts): the bits that the stores
 * of list[i] .. list[i + 32 / bits - 1] would each write, side by side. Two f16 or bf16 rounded from
 * values are one cvt.rn.f16x2.f32 / bf16x2: the same rounding as two cvt.rn.f16.f32 (ptxas makes
 * either one F2FP.PACK_AB). */
static Opnd
packed_word(EType t, const List *list, int i)
{
	int bits = etype_bits(t), per = 32 / bits;
	const IExpr *v0 = LIST_AT(*list, LStmt, i)->value;
	if (per == 1)
		return stored_bits(t, v0);
	const IExpr *h0 = rounded_half(t, v0), *h1 = rounded_half(t, LIST_AT(*list, LStmt, i + 1)->value);
	if (h0 && h1) {
		Opnd lo = reg(to_f32(ev(h0), h0->type)), hi = reg(to_f32(ev(h1), h1->type));
		return pure(O_R, "cvt.rn.%s.f32 %D, %o, %o;", t == T_F16 ? "f16x2" : "bf16x2", hi, lo);
	}
	/* and, shl and or as nvcc writes C's packing: ptxas keeps fewer registers live than of bfi (i16
	   loads to f32 then u16 stores: 32 registers instead of 35) */
	Opnd w = {O_NONE, 0, 0, NULL, false};
	for (int p = 0; p < per; p++) {
		Opnd e = stored_bits(t, LIST_AT(*list, LStmt, i + p)->value);
		if (e.k == O_H)
			e = pure(O_R, "cvt.u32.u16 %D, %o;", e);
		if (p)
			e = pure(O_R, "shl.b32 %D, %o, %d;", e, p * bits);
		if (p + 1 < per)
			e = pure(O_R, "and.b32 %D, %o, %d;", e, (int)((((uint32_t)1 << bits) - 1) << (p * bits)));
		w = p ? pure(O_R, "or.b32 %D, %o, %o;", w, e) : e;
	}
	return w;
}

/* Statements list[i] .. list[i + 7], one stmatrix / ldmatrix (vectorize.c: LStmt.matrix): the four register
 * words of the slots and the shared address of the matrix row this lane gives. */
static void
matrix_access(const LStmt *s)
{
	bool ld = s->kind == L_REG_STORE;
	const Tensor *reg;
	int w0;
	const Tensor *t = matrix_operands(s, &reg, &w0);
	Addr a = address(t, s->matrix_index);
	rec_begin(ld ? PF_LOAD : PF_STORE, isa_matrix(!ld, s->matrix == 2));
	if (!ld) {
		rec_addr(&a);
		rec_comma();
	}
	rec_text("{");
	for (int k = 0; k < 4; k++) {
		if (k)
			rec_text(", ");
		rec_op((Opnd){O_WORD, w0 + k, 0, reg, true});
	}
	rec_text("}");
	if (ld) {
		rec_comma();
		rec_addr(&a);
	}
	rec_end();
}

/* Statements list[i] .. list[i + vec - 1], one vector access (vectorize.c) moved as .b32: whole
 * register words, or elements converted one by one (vector_converts) as the statements alone would:
 * a load then stores each element's value into its register, a store packs the bits each value
 * would store (packed_word). */
static void
vector_access(const LStmt *s, const List *list, int i)
{
	bool ld = s->kind == L_REG_STORE, conv = vector_converts(s);
	const IExpr *m = ld ? vector_load(s->value) : moved_bits(s->tensor->type, s->value);
	const Tensor *t = ld ? m->tensor : s->tensor;
	int bits = etype_bits(t->type), words = s->vec * bits / 32, per = 32 / bits;
	Opnd v[4];
	for (int k = 0; k < words; k++) {
		if (ld && conv)
			v[k] = new_r();
		else if (ld)
			v[k] = (Opnd){O_WORD, s->slot * bits / 32 + k, 0, s->tensor, true};
		else if (!conv)
			v[k] = (Opnd){O_WORD, m->slot * bits / 32 + k, 0, m->tensor, true};
		else
			v[k] = packed_word(t->type, list, i + k * per);
	}
	Addr a = address(t, ld ? m->index : s->index);
	rec_begin(ld ? PF_LOAD : PF_STORE, pool_printf("%s.%s%s", ld ? "ld" : "st",
	                                             ld ? space(t) : t->kind == TK_SHARED ? "shared" : "global",
	                                             words == 4 ? ".v4.b32" : words == 2 ? ".v2.b32" : ".b32"));
	if (!ld) {
		rec_addr(&a);
		rec_comma();
	}
	if (words > 1)
		rec_text("{");
	for (int k = 0; k < words; k++) {
		if (k)
			rec_text(", ");
		rec_op(v[k]);
	}
	if (words > 1)
		rec_text("}");
	if (ld) {
		rec_comma();
		rec_addr(&a);
	}
	rec_end();
	for (int k = 0; ld && conv && k < s->vec; k++) {
		const LStmt *e = LIST_AT(*list, LStmt, i + k);
		P.vec_load = vector_load(e->value);
		P.vec_elem = vector_element(v[k / per], t->type, k % per);
		if (k + 1 < s->vec && paired_halves(list, i + k, true)) {
			Opnd lo = half_source(e);
			const LStmt *f = LIST_AT(*list, LStmt, i + k + 1);
			P.vec_load = vector_load(f->value);
			P.vec_elem = vector_element(v[(k + 1) / per], t->type, (k + 1) % per);
			paired_reg_store(e, lo, half_source(f));
			k++;
			continue;
		}
		reg_store(e);
	}
	P.vec_load = NULL;
}

/* ---------------------------------------------------------------- tcgen05 */

/* A tcgen05.ld / st's registers, as an operand of the record being built. */
static void
reg_list(const LOperand *o)
{
	rec_text("{");
	for (int r = 0; r < o->nregs; r++) {
		if (r)
			rec_text(", ");
		rec_op((Opnd){O_WORD, o->regs[r].word, 0, o->regs[r].tensor, true});
	}
	rec_text("}");
}

/* Whether two tcgen05.ld / st name a register in common. */
static bool
same_words(const LStmt *a, const LStmt *b)
{
	for (int i = 0; i < tc_nregs(a); i++)
		for (int j = 0; j < tc_nregs(b); j++)
			if (tc_reg(a, i)->tensor == tc_reg(b, j)->tensor && tc_reg(a, i)->word == tc_reg(b, j)->word)
				return true;
	return false;
}

/* Whether tcgen05.ld / st b, right after the wait of a, takes a's address register (see tc). */
static bool
keeps_address(const LStmt *a, const LStmt *b)
{
	return tc_accesses(b) && ie_equal(tc_addr(a), tc_addr(b)) &&
	       !same_words(a, b);
}

/* Whether b names words of the tensors a names only: the interleaved tiles of separated_slots, where
 * the words the st sent stay live beside those the ld fills, so that a fence after the wait frees
 * nothing (1 SASS instruction more, and the twin's 215 passed). */
static bool
same_tensors(const LStmt *a, const LStmt *b)
{
	for (int j = 0; j < tc_nregs(b); j++) {
		bool found = false;
		for (int i = 0; i < tc_nregs(a) && !found; i++)
			found = tc_reg(a, i)->tensor == tc_reg(b, j)->tensor;
		if (!found)
			return false;
	}
	return true;
}

/* The tcgen05.ld / st of a list whose address differs between the threads and that do not take the
 * address of the one before them (keeps_address). */
static int
thread_addresses(const List *list)
{
	int n = 0;
	const LStmt *prev = NULL;
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (tc_accesses(s)) {
			n += ie_per_thread(tc_addr(s)) && !(prev && keeps_address(prev, s));
			prev = s;
		} else if (!(s->kind == L_TC && (s->instr->kind == TC_WAIT_LD || s->instr->kind == TC_WAIT_ST))) {
			prev = NULL;
		}
		n += thread_addresses(&s->body) + thread_addresses(&s->els);
	}
	return n;
}

/* Whether the list has a tcgen05.ld. */
static bool
has_ld(const List *list)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (tc_loads(s) || has_ld(&s->body) || has_ld(&s->els))
			return true;
	}
	return false;
}

/* Whether a tcgen05.ld / st of the list lies inside an if or a loop (nested: the list is a body). */
static bool
nested_access(const List *list, bool nested)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (tc_accesses(s) && nested)
			return true;
		bool inner = nested || s->kind == L_IF || s->kind == L_FOR;
		if (nested_access(&s->body, inner) || nested_access(&s->els, inner))
			return true;
	}
	return false;
}

/* The record of tcgen05 instruction s whose address operand (TMEM address, shared slot) is addr:
 * the opcode and operands as isa.c's row and s's operand list give them, with one loop over the
 * operands. Every one is warp-collective (.sync.aligned) or orders the warp's TMEM accesses. */
static void
tc_instr(const LStmt *s, Opnd addr)
{
	Addr at = {addr, NULL, 0};
	rec_begin(PF_SYNC | PF_SIDE, isa_format(s->instr, s->cta_group, &s->op));
	for (int i = 0; i < s->nops; i++) {
		const LOperand *o = &s->ops[i];
		if (i)
			rec_comma();
		switch (o->slot->kind) {
		case IO_REG_VECTOR:
			reg_list(o);
			break;
		case IO_REG:
			rec_op((Opnd){O_WORD, o->regs[0].word, 0, o->regs[0].tensor, true});
			break;
		case IO_SHARED_SLOT:
		case IO_TMEM_ADDR:
			if (o->slot->bracketed)
				rec_addr(&at);
			else
				rec_op(addr);
			break;
		case IO_NCOLS:
		case IO_IMM:
			rec_int(o->imm);
			break;
		default:
			fatal("PTX: no operand of kind %d yet", (int)o->slot->kind);
		}
	}
	rec_end();
}

/* The lane elect.sync picks goes on, the others branch to the label returned (a single-thread statement
   that whole warps reach); the caller places the label after the statement. */
static int
elect_lane(void)
{
	if (P.elect_open) { /* the previous statement's region: one elect for a run of them, as CUTLASS writes it */
		int l_skip = P.elect_open;
		P.elect_open = 0;
		return l_skip;
	}
	Opnd elected = (Opnd){O_P, ++P.np, 0, NULL, false}, active = new_r();
	int l_skip = ++P.nlabel;
	ins(PF_SYNC | PF_SIDE, "activemask.b32 %o;", active); /* a block's last warp may be short */
	ins(PF_SYNC | PF_SIDE, "elect.sync _|%o, %o;", elected, active);
	ins(PF_BRANCH, "@!%o bra %s;", elected, label_name(l_skip));
	return l_skip;
}

/* After a single-thread statement in the elected lane: its region stays open for the next statement to join
   (elect_join closes it where that statement does not). */
static void
elect_keep(int l_skip)
{
	if (l_skip)
		P.elect_open = l_skip;
}

/* Whether s can join an open elected region: a single-thread statement in the elected lane whose operands
   may be computed by that lane alone (a TMA load, an expect_tx or commit, an mma after its first K step:
   the first's proxy fence is every lane's). */
static bool
elect_joins(const LStmt *s)
{
	if (!s->mbar_elect)
		return false;
	if (s->kind == L_TMA)
		return !s->tma->store && !s->tma->wait_read;
	if (s->kind == L_MBAR)
		return s->mbar_op == MB_EXPECT_TX || s->mbar_op == MB_COMMIT;
	return s->kind == L_TC && s->instr->kind == TC_MMA && s->mma->step > 0;
}

/* At expect_tx statement list[i]: the bytes of the later expect_tx on the same barrier that join its elected
   region with only TMA loads between (a stage's copies: one expect_tx of their sum before them, as CUTLASS
   announces a stage's bytes once), recorded in P.folded_tx; P.tx_stmt list[i] and P.tx_total the sum where
   there are such. */
static void
fold_expect_tx(const List *list, int i)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	int64_t total, bytes;
	if (s->kind != L_MBAR || s->mbar_op != MB_EXPECT_TX || !s->mbar_elect || !ie_is_const(s->value, &total))
		return;
	int folded = 0;
	for (int j = i + 1; j < list->n; j++) {
		const LStmt *t = LIST_AT(*list, LStmt, j);
		if (!elect_joins(t) || (t->kind != L_TMA && t->kind != L_MBAR))
			break;
		if (t->kind == L_MBAR && (t->mbar_op != MB_EXPECT_TX || !ie_equal(t->mbar, s->mbar) ||
		                          !ie_is_const(t->value, &bytes)))
			break;
		if (t->kind == L_MBAR) {
			list_push(&P.folded_tx, (void *)t);
			total += bytes;
			folded++;
		}
	}
	if (folded && total < (1 << 20)) {
		P.tx_stmt = s;
		P.tx_total = total;
	} else {
		P.folded_tx.n -= folded;
	}
}

/* Before statement s (NULL: the end of a statement list): the open elected region ends unless s joins it.
   The label starts a new generation of values: what the elected lane computed is not the others'. */
static void
elect_join(const LStmt *s)
{
	if (!P.elect_open || (s && elect_joins(s)))
		return;
	label(P.elect_open);
	P.elect_open = 0;
}

/* An mbarrier statement, commit, cluster_sync or the init fence (isa.c's spellings): a single-thread
   statement that whole warps reach in the lane elect.sync picks, a wait as a try_wait loop. Shared memory
   that other threads wrote may change across a wait or a cluster barrier: values are recomputed after. */
static void
mbar(const LStmt *s)
{
	const char *op = isa_format(s->instr, s->cta_group, NULL);
	if (s->mbar_op == MB_FENCE_INIT) {
		ins(PF_SYNC | PF_SIDE, "%s;", op);
		return;
	}
	if (s->mbar_op == MB_CLUSTER_SYNC) {
		P.cse_gen = gen_new(0);
		P.cuts++;
		if (s->proxy_fence)
			ins(PF_SYNC | PF_SIDE, "fence.proxy.async.shared::cta;");
		ins(PF_SYNC | PF_SIDE, "%s;", op);
		ins(PF_SYNC | PF_SIDE, "%s;", isa_spelling(TC_CLUSTER_WAIT, 0));
		return;
	}
	if (list_has(&P.folded_tx, s)) { /* announced by the region's first expect_tx on its barrier */
		elect_keep(elect_lane());
		return;
	}
	Addr at = {ev(s->mbar), NULL, 0};
	Opnd value = s == P.tx_stmt ? imm(P.tx_total) : s->value ? ev(s->value) : imm(0);
	if (s->mbar_op == MB_WAIT) {
		int l_top = ++P.nlabel;
		label(l_top);
		Opnd done = (Opnd){O_P, ++P.np, 0, NULL, false};
		ins(PF_SYNC | PF_SIDE | PF_LOAD, "%s %o, %a, %o;", op, done, &at, value);
		ins(PF_BRANCH, "@!%o bra %s;", done, label_name(l_top));
		P.cse_gen = gen_new(0);
		P.cuts++;
		return;
	}
	int l_skip = s->mbar_elect ? elect_lane() : 0;
	if (s->instr->kind == TC_COMMIT_PAIR) {
		/* the mask of the pair: bits (rank & ~1) and (rank | 1) of the cluster's CTAs */
		Opnd rank = new_r(), first = new_r(), mask = new_r(), mask16 = new_h();
		ins(0, "mov.u32 %o, %%cluster_ctarank;", rank);
		ins(0, "and.b32 %o, %o, -2;", first, rank);
		ins(0, "shl.b32 %o, 3, %o;", mask, first);
		ins(0, "cvt.u16.u32 %o, %o;", mask16, mask);
		ins(PF_SYNC | PF_SIDE | PF_STORE, "%s %a, %o;", op, &at, mask16);
	} else if (s->mbar_op == MB_COMMIT)
		ins(PF_SYNC | PF_SIDE | PF_STORE, "%s %a;", op, &at);
	else if (s->mbar_op == MB_ARRIVE)
		ins(PF_SYNC | PF_SIDE | PF_STORE, "%s _, %a, %o;", op, &at, value);
	else
		ins(PF_SYNC | PF_SIDE | PF_STORE, "%s %a, %o;", op, &at, value);
	elect_keep(l_skip);
}

/* A TMA copy (tma.c): the generic address of its tensor map (the kernel's .param, cvta.param), the shared
   destination (the tensor's address plus the piece's unswizzled offset), the coordinates innermost first,
   in the lane elect.sync picks. */
static void
tma(const LStmt *s)
{
	const TmaCopy *c = s->tma;
	if (c->wait_read) {
		ins(PF_SYNC | PF_SIDE, "%s;", tma_opcode(c));
		return;
	}
	int rank = c->map->rank;
	Opnd map = pure(O_D, "cvta.param.u64 %D, %o;", pure(O_D, pool_printf("mov.b64 %%D, %s;", c->map->cname)));
	IExpr *saddr = ie_new(IE_SADDR, T_U32);
	saddr->tensor = c->smem;
	saddr->index = ie_int(0, T_I32);
	Addr dst = {reg(ev(c->stage ? ie_binary(OP_ADD, saddr, c->stage) : saddr)), NULL, (int64_t)c->dst};
	Opnd co[TMA_MAX_RANK];
	for (int d = 0; d < TMA_MAX_RANK; d++)
		co[d] = d < rank ? reg(ev(c->coord[d])) : imm(0);
	Buf f = {0};
	buf_printf(&f, "%s ", tma_opcode(c));
	buf_puts(&f, c->store ? "[%o, {" : "%a, [%o, {");
	for (int d = 0; d < rank; d++)
		buf_puts(&f, d ? ", %o" : "%o");
	buf_puts(&f, c->multicast ? "}], %a, %o;" : "}], %a;");
	const char *fmt = pool_printf("%s", f.data);
	buf_free(&f);
	Addr bar = {c->store ? (Opnd){0} : ev(c->mbar), NULL, 0};
	Opnd mask = c->multicast ? reg(ev(c->multicast)) : (Opnd){0}, mask16 = {0};
	int l_skip = s->mbar_elect ? elect_lane() : 0, l_other = 0;
	if (c->multicast) {
		/* the CTA of lowest rank in the mask (ctz: bfind.shiftamt of the bit-reversed mask) issues the copy for
		   every CTA of it; the others skip it (their expect_tx is before it) */
		Opnd rank = new_r(), low = new_r(), other = (Opnd){O_P, ++P.np, 0, NULL, false};
		mask16 = new_h();
		l_other = ++P.nlabel;
		ins(0, "mov.u32 %o, %%cluster_ctarank;", rank);
		ins(0, "brev.b32 %o, %o;", low, mask);
		ins(0, "bfind.shiftamt.u32 %o, %o;", low, low);
		ins(0, "cvt.u16.u32 %o, %o;", mask16, mask);
		ins(0, "setp.ne.u32 %o, %o, %o;", other, rank, low);
		ins(PF_BRANCH, "@%o bra %s;", other, label_name(l_other));
	}
	if (c->store) {
		ins(PF_SYNC | PF_SIDE, "fence.proxy.async.shared::cta;");
		if (rank == 1)
			ins(PF_SYNC | PF_SIDE | PF_LOAD, fmt, map, co[0], &dst);
		else if (rank == 2)
			ins(PF_SYNC | PF_SIDE | PF_LOAD, fmt, map, co[0], co[1], &dst);
		else if (rank == 3)
			ins(PF_SYNC | PF_SIDE | PF_LOAD, fmt, map, co[0], co[1], co[2], &dst);
		else if (rank == 4)
			ins(PF_SYNC | PF_SIDE | PF_LOAD, fmt, map, co[0], co[1], co[2], co[3], &dst);
		else
			ins(PF_SYNC | PF_SIDE | PF_LOAD, fmt, map, co[0], co[1], co[2], co[3], co[4], &dst);
		ins(PF_SYNC | PF_SIDE, "%s;", tma_bulk_spelling(false));
	}
	else if (rank == 1)
		ins(PF_SYNC | PF_SIDE | PF_STORE, fmt, &dst, map, co[0], &bar, mask16);
	else if (rank == 2)
		ins(PF_SYNC | PF_SIDE | PF_STORE, fmt, &dst, map, co[0], co[1], &bar, mask16);
	else if (rank == 3)
		ins(PF_SYNC | PF_SIDE | PF_STORE, fmt, &dst, map, co[0], co[1], co[2], &bar, mask16);
	else if (rank == 4)
		ins(PF_SYNC | PF_SIDE | PF_STORE, fmt, &dst, map, co[0], co[1], co[2], co[3], &bar, mask16);
	else
		ins(PF_SYNC | PF_SIDE | PF_STORE, fmt, &dst, map, co[0], co[1], co[2], co[3], co[4], &bar, mask16);
	if (l_other)
		label(l_other);
	elect_keep(l_skip);
}

/* A tcgen05.cp: the source's writes made visible to the async proxy, the 64-bit descriptor (its constant
   fields or the shared tensor's start address >> 4), and the cp in the lane elect.sync picks. */
static void
cp_ins(const LStmt *s)
{
	const LOperand *t = tc_operand(s, IO_TMEM_ADDR), *d = tc_operand(s, IO_SHARED_DESC64);
	ins(PF_SYNC | PF_SIDE, "fence.proxy.async.shared::cta;");
	P.in_tc = true;
	Opnd taddr = reg(ev(t->addr));
	P.in_tc = false;
	Opnd start = pure(O_R, "bfe.u32 %D, %o, 4, 14;", reg(ev(d->addr)));
	Opnd desc = pure(O_D, "cvt.u64.u32 %D, %o;", start);
	desc = pure(O_D, "or.b64 %D, %o, %s;", desc, pool_printf("0x%016llx", (unsigned long long)d->desc));
	int l_skip = s->mbar_elect ? elect_lane() : 0;
	ins(PF_SYNC | PF_SIDE | PF_STORE, "%s [%o], %o;", cp_form_spelling(s->cp), taddr, desc);
	if (l_skip)
		label(l_skip);
}

/* A tcgen05.mma: the operands' writes made visible to the async proxy before its first K step, the two
   descriptors as cp's, the instruction descriptor as an immediate, the accumulate predicate, in the lane
   elect.sync picks. */
static void
mma_ins(const LStmt *s)
{
	const LOperand *t = tc_operand(s, IO_TMEM_ADDR), *p = tc_operand(s, IO_PRED);
	const LOperand *a = tc_operand(s, IO_SHARED_DESC64);
	bool a_tmem = s->mma->a_tmem; /* the ts form: A's TMEM address, and B's descriptor the only one */
	if (s->mma->step == 0)
		ins(PF_SYNC | PF_SIDE, "fence.proxy.async.shared::cta;");
	P.in_tc = true;
	Opnd taddr = reg(ev(t->addr)), a_taddr = a_tmem ? reg(ev(t[1].addr)) : imm(0);
	P.in_tc = false;
	Opnd desc[2];
	for (int i = 0; i < 2 - a_tmem; i++) {
		/* a later K step of the same mma starts c bytes further: its descriptor is the first step's plus
		   c >> 4 (start addresses stay below 2^18, so the 14-bit field does not carry), as CUTLASS
		   advances a descriptor */
		const IExpr *x = a[i].addr;
		int64_t c;
		if (s->mma->step > 0 && P.mma_last && P.mma_last->mma->step == s->mma->step - 1 && x->kind == IE_BINARY &&
		    x->op == OP_ADD && ie_is_const(x->b, &c) && c > 0 && c % 16 == 0 && ie_equal(x->a, P.mma_base[i])) {
			desc[i] = pure(O_D, "add.s64 %D, %o, %s;", P.mma_desc[i], pool_printf("%lld", (long long)(c >> 4)));
			continue;
		}
		Opnd start = pure(O_R, "bfe.u32 %D, %o, 4, 14;", reg(ev(x)));
		desc[i] = pure(O_D, "cvt.u64.u32 %D, %o;", start);
		desc[i] = pure(O_D, "or.b64 %D, %o, %s;", desc[i], pool_printf("0x%016llx", (unsigned long long)a[i].desc));
		if (s->mma->step == 0) {
			P.mma_base[i] = x;
			P.mma_desc[i] = desc[i];
		}
	}
	P.mma_last = s;
	Opnd pred = pure(O_P, "setp.ne.s32 %D, %o, 0;", reg(ev(p->addr)));
	Opnd sf[2];
	for (int i = 0; s->mma->scale_vec && i < 2; i++) {
		P.in_tc = true;
		sf[i] = reg(ev(p[1 + i].addr));
		P.in_tc = false;
	}
	int l_skip = s->mbar_elect ? elect_lane() : 0;
	if (a_tmem)
		ins(PF_SYNC | PF_SIDE | PF_STORE, "%s [%o], [%o], %o, %s, %o;", mma_spelling(s->cta_group, s->mma->kind),
		    taddr, a_taddr, desc[0], pool_printf("%u", s->mma->idesc), pred);
	else if (s->mma->scale_vec)
		ins(PF_SYNC | PF_SIDE | PF_STORE, "%s [%o], %o, %o, %s, [%o], [%o], %o;", mma_instr_spelling(s->cta_group, s->mma),
		    taddr, desc[0], desc[1], pool_printf("%u", s->mma->idesc), sf[0], sf[1], pred);
	else
		ins(PF_SYNC | PF_SIDE | PF_STORE, "%s [%o], %o, %o, %s, %o;", mma_spelling(s->cta_group, s->mma->kind), taddr,
		    desc[0], desc[1], pool_printf("%u", s->mma->idesc), pred);
	elect_keep(l_skip);
}

static void
tc(const LStmt *s)
{
	TcKind kind = s->instr->kind;
	if (kind == TC_CP) {
		cp_ins(s);
		return;
	}
	if (kind == TC_MMA) {
		mma_ins(s);
		return;
	}
	Opnd addr = imm(0);
	if (!tc_accesses(s)) {
		if (tc_addr(s)) {
			P.in_tc = tc_operand(s, IO_TMEM_ADDR) != NULL;
			P.dealloc = kind == TC_DEALLOC;
			addr = reg(ev(tc_addr(s)));
			P.in_tc = P.dealloc = false;
		}
	} else {
		P.cse_gen = gen_new(0); /* nothing computed before it stays live across it (ptxas would keep it) */
		P.cuts++;
		if (P.tc_prev && P.tc_waited && keeps_address(P.tc_prev, s)) {
			/* right after the wait of an access to the same cells, into other registers: that access's
			   address (a st and then a ld of the same columns: the slot is read once, as a hand-written
			   kernel keeps its address). Where the ld refills the registers the st sent, reading the
			   slot again measured better (docs/performance.md). */
			addr = P.tc_prev_addr;
		} else {
			P.in_tc = true;
			addr = reg(ev(tc_addr(s)));
			P.in_tc = false;
		}
		P.tc_prev = s;
		P.tc_prev_addr = addr;
		P.tc_waited = false;
		if (tc_loads(s) && tc_nregs(s) >= 128)
			/* kept across a load of 128 registers, the slot took one of theirs (k2_axpby_x128: 16 bytes
			   of spills; none with the slot read again after it) */
			for (int i = 0; i < P.nslots; i++)
				P.slots[i].val.k = O_NONE;
	}
	tc_instr(s, addr);
	if (kind == TC_WAIT_ST && !P.interleaved)
		/* a point after the wait at which ptxas lets the st's registers go (TMEM base addresses) */
		ins(PF_SIDE, "fence.acq_rel.cta;");
}

/* ---------------------------------------------------------------- TMEM base addresses

   The slot an alloc fills is read once where a TMEM address (or the dealloc) first needs it after the
   barrier that publishes it, and that register serves every later use up to the next barrier (or a
   tcgen05.ld of 128 registers) in the same block (if branch, loop body) and the blocks inside it, and
   in a kernel whose tcgen05.ld / st all lie outside ifs and loops, the dealloc's too; the
   thread index in a TMEM address is that of the warp's lane 0 (redux.sync), kept the same way but
   across barriers too (the address is the same in every lane: tcgen05.ld / st are .sync.aligned).
   ptxas keeps the whole address in a uniform register: an LDTM / STTM needs no LDS, IMAD or R2UR
   before it. Each wait for stores is followed by a fence.acq_rel.cta: without an instruction there,
   ptxas let the st's registers go only at the next tcgen05.ld and gave it a further block of
   registers (layout_d_repeat: 168 registers, 135 with the fence, 139 when the slot was read again
   before each instruction; docs/performance.md). */

/* ---------------------------------------------------------------- statements */

static void stmts(const List *list);
static void stmt(const LStmt *s);

/* Whether a value is cheap to compute again anywhere later, with the same result: integer work on
 * ids, parameters and constants; no memory, no registers of local tensors, no var that is
 * assigned again. */
static bool
recomputable(const IExpr *e)
{
	if (!e)
		return true;
	if (e->type == T_F32 && !P.sink)
		return false; /* float work is not cheap to repeat (and a call may be long) */
	switch (e->kind) {
	case IE_REG:
		return P.sink;
	case IE_LOAD:
	case IE_CALL:
		return false;
	case IE_VAR:
		return e->var->is_param || !map_find(e->var->cname)->val.mut;
	default:
		return recomputable(e->a) && recomputable(e->b) && recomputable(e->index);
	}
}

/* Binds a let / tmem name. A value of ids, parameters and constants is computed again where it is
 * used, as nvcc rematerialises it, rather than kept live in a register across the kernel;
 * otherwise the name is the value's own register when nothing assigns that register again. */
static void
bind(const char *cname, const char *what, const char *name, const IExpr *value)
{
	bool lazy = recomputable(value);
	P.sink = false;
	if (lazy) {
		map_put(cname, (Opnd){O_NONE, 0, 0, NULL, false})->expr = value;
		comment_line(what, pool_printf("%s: computed where it is used", name), NO_REG);
		return;
	}
	Opnd v = ev(value);
	if (v.mut || is_imm(v)) {
		Opnd r = value->type == T_F32 ? new_f() : new_r();
		ins(0, value->type == T_F32 ? "mov.f32 %o, %o;" : "mov.b32 %o, %o;", r, v);
		v = r;
	}
	v.mut = false;
	map_put(cname, v);
	comment_line(pool_printf("%s%s = ", what, name), NULL, v);
}

static Opnd
var_reg(const Var *v)
{
	Opnd r = value_type(v->type) == T_F32 ? new_f() : new_r();
	r.mut = true;
	return r;
}

/* The predicate of an if's condition. A condition of ids and constants tested again (the
 * `warp_id == 0` around an alloc and around the dealloc) reuses the predicate of the first test when
 * that one ran on every path and no other branch came in between: ptxas merges every read of %tid
 * after the first barrier into one value, so a test that reads the id again after the tcgen05 data
 * keeps the id live across that data (subword_f16: 23 registers, 22 with the predicate, as nvcc's
 * route). Across other branches a kept predicate competes for the seven predicate registers
 * (device_call: 54 registers instead of 52), so every other if and loop starts a new epoch, after
 * which the test is made again. */
static Opnd
guard(const IExpr *cond)
{
	if (recomputable(cond))
		for (int i = 0; i < P.guards.n; i++)
			if (*LIST_AT(P.guard_at, int, i) == P.epoch && ie_equal(LIST_AT(P.guards, IExpr, i), cond))
				return *LIST_AT(P.guard_p, Opnd, i);
	Opnd p = pred(cond);
	P.epoch++;
	if (P.depth == 0 && recomputable(cond)) {
		Opnd *keep = pool_alloc(sizeof *keep);
		int *at = pool_alloc(sizeof *at);
		*keep = p;
		*at = P.epoch;
		list_push(&P.guards, (void *)cond);
		list_push(&P.guard_p, keep);
		list_push(&P.guard_at, at);
	}
	return p;
}

static void
assign(Opnd var, const IExpr *value)
{
	Opnd v = ev(value);
	ins(0, var.k == O_F ? "mov.f32 %o, %o;" : "mov.b32 %o, %o;", var, v);
	++*var_version(var);
}

/* Whether a statement of list assigns v. */
static bool
assigns(const List *list, const Var *v)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if ((s->kind == L_ASSIGN && s->var == v) || assigns(&s->body, v) || assigns(&s->els, v))
			return true;
	}
	return false;
}

static void load_addresses(const IExpr *e, const List *declared);

/* The addresses of the loads of the deferred words (deferred_store) that e reads: computed before a
 * test, they serve every element's branch (tests/routes/residue_store.tile: each branch read the
 * parameter and built the row's address again). */
static void
deferred_addresses(const IExpr *e)
{
	if (!e)
		return;
	WordUse *u = e->kind == IE_REG && etype_bits(e->tensor->type) == 32 ? word_use(e->tensor) : NULL;
	if (u && u->value && u->value[e->slot]) {
		List none = {0};
		load_addresses(u->value[e->slot], &none);
	}
	deferred_addresses(e->a);
	deferred_addresses(e->b);
	deferred_addresses(e->index);
}

/* Computes the address of the global access that list makes when it is one (a statement, or a run
 * of them that is one vector access) and its index reads no memory: computing it before the test
 * that guards the list is then harmless. */
static void
guarded_address(const List *list)
{
	const LStmt *s = list->n ? LIST_AT(*list, LStmt, 0) : NULL;
	const IExpr *m;
	if (!s || (list->n > 1 && s->vec != list->n))
		return;
	if (s->kind == L_STORE && s->tensor->kind == TK_GLOBAL && !has_load(s->index)) {
		(void)address(s->tensor, s->index);
		deferred_addresses(s->value);
	}
	else if (s->kind == L_REG_STORE && (m = s->vec ? vector_load(s->value) : s->value)->kind == IE_LOAD &&
	         m->tensor->kind == TK_GLOBAL && !has_load(m->index))
		(void)address(m->tensor, m->index);
}

/* The operations of an expression, a math function counting as many. */
static int
expr_size(const IExpr *e)
{
	if (!e)
		return 0;
	int n = e->kind == IE_CALL && e->fn != F_MIN && e->fn != F_MAX && e->fn != F_ABS && e->fn != F_FMA ? 64 : 1;
	return n + expr_size(e->a) + expr_size(e->b) + expr_size(e->index);
}

/* Whether a runtime loop of constant bounds is written out iteration by iteration: a short one whose
 * body only stores computed values to memory, with little arithmetic. ptxas unrolls such a loop
 * itself, but with an address per iteration kept live; written out, the iterations share one. */
/* The operations of a list of stores, lets, assignments and ifs of them, or -1 when it holds
 * anything else (an accumulation sum += A[i, j] is written out as nvcc does: device_slice_arg_fixed
 * 18 -> 16 registers). */
static int
stores_size(const List *list)
{
	int size = 0;
	for (int i = 0; i < list->n; i++) {
		const LStmt *b = LIST_AT(*list, LStmt, i);
		if (b->kind == L_IF) {
			int t = stores_size(&b->body), e = stores_size(&b->els);
			if (t < 0 || e < 0)
				return -1;
			size += 1 + expr_size(b->cond) + t + e;
		} else if (b->kind == L_STORE || b->kind == L_LET || b->kind == L_ASSIGN) {
			size += 1 + expr_size(b->value) + expr_size(b->index);
		} else {
			return -1;
		}
	}
	return size;
}

static bool
unrolls(const LStmt *s, int64_t lo, int64_t hi)
{
	if (hi <= lo || hi - lo > 64 || assigns(&s->body, s->var))
		return false;
	int size = stores_size(&s->body);
	return s->body.n > 0 && size >= 0 && size * (hi - lo) <= 1024;
}

/* How many iterations of a runtime loop of constant bounds one pass of the PTX loop does, as nvcc
 * unrolls the CUDA C's loop by 8 where the trip count allows: ptxas, left the loop, unrolls it itself
 * and keeps the accesses of several iterations live at once (copy_edge_ref: 40 registers, 32 so). */
static int
unroll_by(const LStmt *s, int64_t lo, int64_t hi)
{
	if (hi <= lo || assigns(&s->body, s->var))
		return 1;
	int size = stores_size(&s->body);
	for (int by = 8; by > 1; by /= 2)
		if ((hi - lo) % by == 0 && size >= 0 && size * by <= 1024)
			return by;
	return 1;
}

/* 1 or 0 when an if around the statement tests cond (its then or its else branch), else -1: a masked
 * copy's element test inside the else branch of its vector's test, when both test the same bounds
 * (copy_box_start: each element was tested again, and ptxas kept every branch's values apart). */
static int
known_cond(const IExpr *cond)
{
	for (int i = P.known.n - 1; i >= 0; i--)
		if (ie_equal(LIST_AT(P.known, IExpr, i), cond))
			return (int)(intptr_t)P.known_val.v[i];
	return -1;
}




/* How many elements share one branch (predicated_run); the size of an element (predicable_size) up to
 * which it needs no branch at all (a store of a register alone: predicated by ptxas itself, and
 * grouped it costs more than it saves, gemm_epilogue's edge stores 1468 -> 1504 SASS instructions). */
enum { PREDICATED_GROUP = 4, PREDICATED_CHEAP = 8 };

/* The operations of an if's branch that may run as predicated code (predicated_if), or -1: global
 * and shared stores (no vector access: vectorize.c's branches at a tensor's edge stay), lets, vars it
 * declares and assignments to them, and ifs of those; no register store, loop, barrier or tcgen05.
 * The lets and vars it declares go into *declared. */
static int
predicable_size(const List *list, List *declared)
{
	int size = 0;
	for (int i = 0; i < list->n; i++) {
		const LStmt *b = LIST_AT(*list, LStmt, i);
		int n;
		switch (b->kind) {
		case L_IF:
			if (b->vec || b->els.n || has_load(b->cond) || (n = predicable_size(&b->body, declared)) < 0)
				return -1;
			size += 2 + expr_size(b->cond) + n;
			break;
		case L_VAR:
		case L_LET:
			list_push(declared, b->var);
			size += 1 + expr_size(b->value);
			break;
		case L_ASSIGN:
			if (!list_has(declared, b->var))
				return -1;
			size += 1 + expr_size(b->value);
			break;
		case L_STORE:
			if (b->vec)
				return -1;
			size += 1 + expr_size(b->value); /* the address is mostly shared with the others' */
			break;
		default:
			return -1;
		}
	}
	return size;
}

/* Whether e names a var of the list (declared in a branch, by predicable_size). */
static bool
names_any(const IExpr *e, const List *vars)
{
	if (!e)
		return false;
	if (e->kind == IE_VAR && list_has(vars, e->var))
		return true;
	return names_any(e->a, vars) || names_any(e->b, vars) || names_any(e->index, vars);
}

/* The addresses of e's global loads whose index names only what holds before the branch. */
static void
load_addresses(const IExpr *e, const List *declared)
{
	if (!e)
		return;
	if (e->kind == IE_LOAD && e->tensor->kind == TK_GLOBAL && !has_load(e->index) && !names_any(e->index, declared))
		(void)address(e->tensor, e->index);
	load_addresses(e->a, declared);
	load_addresses(e->b, declared);
	load_addresses(e->index, declared);
}

/* The addresses of the global accesses of a branch that predicated_run writes, computed before its
 * group's branch: the group's elements and the next groups share them (a row's base address and the
 * parameters it reads: epilogue_kernel 5265 -> 4693 SASS instructions). */
static void
branch_addresses(const List *list, const List *declared)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *b = LIST_AT(*list, LStmt, i);
		load_addresses(b->value, declared);
		if (b->kind == L_STORE && b->tensor->kind == TK_GLOBAL && !has_load(b->index) &&
		    !names_any(b->index, declared))
			(void)address(b->tensor, b->index);
		if (b->kind == L_IF)
			branch_addresses(&b->body, declared);
	}
}

/* An if without else whose branch is a few stores of computed values (an epilogue's element guarded
 * by its bounds), written without a branch: the test's predicate guards each load and store of the
 * branch, the rest runs in every thread. The elements of an unrolled loop are then one straight
 * stretch: a row's address and the parameters are computed once, not per branch, and ptxas
 * schedules the loads of several elements together (epilogue_kernel: 128 branch regions before;
 * docs/performance.md). Returns false where the if is not of that form. */
static bool
predicated_if(const LStmt *s)
{
	if (P.next_pred.k == O_NONE && P.pred.k == O_NONE)
		return false; /* alone, the branch costs fewer registers (run_unwritten: 10 -> 8, nvcc's) */
	List declared = {0};
	int size = s->els.n || has_load(s->cond) ? -1 : predicable_size(&s->body, &declared);
	if (size < 0 || size > 256)
		return false;
	Opnd p = P.next_pred;
	P.next_pred = NO_REG;
	if (p.k == O_NONE) {
		guarded_address(&s->body);
		p = guard(s->cond);
	}
	Opnd outer = P.pred;
	if (outer.k != O_NONE)
		p = pure(O_P, "and.pred %D, %o, %o;", outer, p);
	P.pred = p;
	stmts(&s->body);
	P.pred = outer;
	return true;
}

/* An if: its test and branches, or only the branch taken where the test is known. */
static void
if_stmt(const LStmt *s)
{
	int64_t c;
	bool fixed = recomputable(s->cond);
	int known = ie_is_const(s->cond, &c) ? c != 0 : id_test(s->cond) == 0 ? 0 : -1;
	if (known < 0 && fixed)
		known = known_cond(s->cond);
	if (known >= 0) {
		stmts(known ? &s->body : &s->els);
		return;
	}
	if (predicated_if(s))
		return;
	if (!has_load(s->cond)) {
		/* a guarded access (a masked copy's element or vector): its address first, before
		   the test's comparisons too, so that the tests and accesses that follow share it
		   (gemm_epilogue: 78 registers, 79 with the comparisons first; docs/performance.md) */
		guarded_address(&s->body);
		guarded_address(&s->els);
	}
	Opnd p = guard(s->cond);
	int l_else = ++P.nlabel, l_end = s->els.n ? ++P.nlabel : l_else;
	unsigned gen = P.cse_gen, cuts = P.cuts;
	ins(PF_BRANCH, "@!%o bra %s;", p, label_name(l_else));
	P.cse_gen = gen_new(gen);
	P.depth++;
	if (fixed) {
		list_push(&P.known, (void *)s->cond);
		list_push(&P.known_val, (void *)(intptr_t)1);
	}
	block_open();
	stmts(&s->body);
	block_close();
	unsigned then_cuts = P.cuts;
	if (s->els.n) {
		ins(PF_BRANCH, "bra %s;", label_name(l_end));
		label(l_else);
		/* reached only through the test, so what was computed before the if holds here too;
		   computed again, the ids, parameters and row address of a masked copy's fallback */
		P.cse_gen = gen_new(gen);
		if (fixed)
			P.known_val.v[P.known_val.n - 1] = (void *)(intptr_t)0;
		block_open();
		stmts(&s->els);
		block_close();
	}
	if (fixed) {
		P.known.n--;
		P.known_val.n--;
	}
	P.depth--;
	label(l_end);
	/* what was computed before the if holds after it, unless a barrier or a tcgen05.ld / st
	   inside asks for values to be computed again */
	if (P.cuts == cuts)
		P.cse_gen = gen;
	else if (then_cuts != cuts && P.cuts != then_cuts)
		/* both branches end a stretch: the thread index is read again after them, as nvcc
		   does (copy_wait_join: 41 registers, 40 so, nvcc's route's; read again after an if
		   with one such branch, fences_placed 39 -> 40) */
		read_tid();
}

/* Moves the invariant instructions of the loop whose records start at top (ptx_loop_invariants). */
static void
loop_invariants(size_t top)
{
	int most = P.nr > P.nf ? P.nr : P.nf;
	most = most > P.nh ? most : P.nh;
	most = most > P.np ? most : P.np;
	most = most > P.nd ? most : P.nd;
	ptx_loop_invariants(P.recs, top, P.nrecs, P.pure_dest, P.pure_cap, ptx_reg_index(O_D, most) + 1);
}

/* One element of a predicated run: a list of lets that read no memory and, last, an if that
 * predicated_if writes without a branch; with the loop counter's value where a loop is written out. */
typedef struct PredItem {
	const List *body;
	const Var *counter; /* NULL: none */
	int64_t value;
	const char *comment; /* a block's, written before its body */
} PredItem;

/* What may come before an element's if: a let that reads no memory, or the wait of the tcgen05.ld
 * that brought the element's registers (written once, before the group's branch). */
static bool
pred_prefix(const LStmt *b)
{
	return (b->kind == L_LET && !has_load(b->value)) ||
	       (b->kind == L_TC && (b->instr->kind == TC_WAIT_LD || b->instr->kind == TC_WAIT_ST));
}

static bool
pred_item(const List *body)
{
	const LStmt *last = body->n ? LIST_AT(*body, LStmt, body->n - 1) : NULL;
	if (!last || last->kind != L_IF || last->vec || last->els.n || has_load(last->cond))
		return false;
	for (int i = 0; i + 1 < body->n; i++)
		if (!pred_prefix(LIST_AT(*body, LStmt, i)))
			return false;
	List declared = {0};
	int size = predicable_size(&last->body, &declared);
	return size > PREDICATED_CHEAP && size <= 256;
}

static void
pred_bind(const PredItem *it)
{
	if (it->counter)
		map_put(it->counter->cname, (Opnd){O_NONE, 0, 0, NULL, false})->expr = ie_int(it->value, T_I32);
}

/* Whether test b holds only where test a does because it is a with larger offsets: both resolved, the
 * same but for comparisons x + kb < y where a has x + ka < y, ka <= kb (x + k not overflowing, as
 * offset_difference assumes). a's comparisons that differ from b's go into *varies, once each. */
static bool
stronger_offsets(const IExpr *a, const IExpr *b, List *varies)
{
	if (a->kind == IE_BINARY && b->kind == IE_BINARY && a->op == OP_LAND && b->op == OP_LAND)
		return stronger_offsets(a->a, b->a, varies) && stronger_offsets(a->b, b->b, varies);
	if (ie_equal(a, b))
		return true;
	if (a->kind != IE_BINARY || b->kind != IE_BINARY || a->op != OP_LT || b->op != OP_LT ||
	    a->a->type != T_I32 || b->a->type != T_I32 || !ie_equal(a->b, b->b))
		return false;
	int64_t ka, kb;
	const IExpr *xa = ie_split_offset(a->a, &ka), *xb = ie_split_offset(b->a, &kb);
	if (!xa || !xb || !ie_equal(xa, xb) || kb < ka)
		return false;
	if (!list_has(varies, a))
		list_push(varies, (void *)a);
	return true;
}

/* The test of a group's branch: where each element's test is the first's with larger offsets (an
 * unrolled loop's `i < M && col0 + j < N`), the first's comparisons that differ (col0 + j0 < N): every
 * element's test implies them, and each access keeps its own predicate. They read no thread index
 * there, so the branch is uniform: no or.pred of every test, no reconvergence region, no registers
 * reloaded inside it (epilogue_kernel: 9 instructions a group of four). Else the or of the tests. */
static Opnd
group_test(const IExpr *const *tests, const Opnd *p, int m)
{
	List varies = {0};
	bool implied = true;
	for (int k = 1; k < m && implied; k++)
		implied = stronger_offsets(tests[0], tests[k], &varies);
	if (implied && varies.n == 0)
		return p[0];
	Opnd any = p[0];
	if (implied) {
		for (int i = 0; i < varies.n; i++) {
			Opnd t = pred(LIST_AT(varies, IExpr, i));
			any = i ? pure(O_P, "and.pred %D, %o, %o;", any, t) : t;
		}
		return any;
	}
	for (int k = 1; k < m; k++)
		any = pure(O_P, "or.pred %D, %o, %o;", any, p[k]);
	return any;
}

/* Elements in a row whose ifs predicated_if writes without a branch (an epilogue's unrolled loop over a
 * chunk's columns): PREDICATED_GROUP of them at a time, their tests first, then one branch around them
 * taken when no test holds, then their bodies with each access predicated. Without the branches ptxas
 * schedules a whole chunk as one stretch, the loads and math of every element at once
 * (epilogue_kernel: 255 registers and spills); a group bounds that, and its elements still share
 * their row addresses and parameters, computed before its branch. */
static void
predicated_run(const PredItem *items, int n)
{
	for (int g = 0; g < n; g += PREDICATED_GROUP) {
		int m = n - g < PREDICATED_GROUP ? n - g : PREDICATED_GROUP;
		Opnd p[PREDICATED_GROUP];
		const IExpr *tests[PREDICATED_GROUP];
		for (int k = 0; k < m; k++) {
			const List *body = items[g + k].body;
			const LStmt *last = LIST_AT(*body, LStmt, body->n - 1);
			pred_bind(&items[g + k]);
			for (int i = 0; i + 1 < body->n; i++) {
				const LStmt *b = LIST_AT(*body, LStmt, i);
				if (b->kind == L_TC) {
					P.tc_waited = true;
					P.interleaved = false;
					P.tc_prev = NULL;
				}
				stmt(b);
			}
			List declared = {0};
			(void)predicable_size(&last->body, &declared);
			branch_addresses(&last->body, &declared);
			P.run_tests = true;
			p[k] = guard(last->cond);
			P.run_tests = false;
			tests[k] = resolve(last->cond);
		}
		P.run_tests = true;
		Opnd any = group_test(tests, p, m);
		P.run_tests = false;
		int l_end = ++P.nlabel;
		unsigned gen = P.cse_gen;
		ins(PF_BRANCH, "@!%o bra %s;", any, label_name(l_end));
		P.cse_gen = gen_new(gen);
		P.depth++;
		P.epoch++;
		block_open();
		for (int k = 0; k < m; k++) {
			pred_bind(&items[g + k]);
			if (items[g + k].comment)
				comment_line("", items[g + k].comment, NO_REG);
			const List *body = items[g + k].body;
			for (int i = 0; i + 1 < body->n; i++)
				if (LIST_AT(*body, LStmt, i)->kind == L_LET)
					stmt(LIST_AT(*body, LStmt, i));
			P.next_pred = p[k];
			stmt(LIST_AT(*body, LStmt, body->n - 1));
		}
		block_close();
		P.depth--;
		label(l_end);
		P.cse_gen = gen;
	}
}

/* A written-out loop whose every iteration is a pred_item: predicated_run. */
static bool
predicated_loop(const LStmt *s, int64_t lo, int64_t hi)
{
	if (P.pred.k != O_NONE || !pred_item(&s->body) || hi - lo < 2)
		return false;
	PredItem *items = pool_alloc((size_t)(hi - lo) * sizeof *items);
	for (int64_t i = lo; i < hi; i++)
		items[i - lo] = (PredItem){&s->body, s->var, i, NULL};
	predicated_run(items, (int)(hi - lo));
	return true;
}

static const LStmt *
pred_last(const PredItem *it)
{
	return LIST_AT(*it->body, LStmt, it->body->n - 1);
}

/* Whether two ifs' branches do the same statements to the same tensors, as the iterations of an
 * unrolled loop do (two unrelated ifs in a row keep their branches: rearrange_ellipsis's store of
 * lane 0 alone, predicated in every lane, took 191 SASS instructions instead of 85). */
static bool
same_shape(const LStmt *a, const LStmt *b)
{
	if (a->body.n != b->body.n)
		return false;
	for (int i = 0; i < a->body.n; i++) {
		const LStmt *x = LIST_AT(a->body, LStmt, i), *y = LIST_AT(b->body, LStmt, i);
		if (x->kind != y->kind || x->tensor != y->tensor || (x->kind == L_IF && !same_shape(x, y)))
			return false;
	}
	return true;
}

static bool
reads_register(const IExpr *e)
{
	return e && (e->kind == IE_REG || reads_register(e->a) || reads_register(e->b) || reads_register(e->index));
}

/* Whether a branch only stores and names values: nothing in it changes what a later test reads. */
static bool
stores_only(const List *list)
{
	for (int i = 0; i < list->n; i++) {
		LKind k = LIST_AT(*list, LStmt, i)->kind;
		if (k != L_STORE && k != L_LET && k != L_VAR)
			return false;
	}
	return true;
}

/* The constant k of an if's test `k < x` (x the same in every if of a run: *x), else false. */
static bool
bound_test(const LStmt *s, const IExpr **x, int64_t *k)
{
	const IExpr *c = s->kind == L_IF && !s->vec && !s->els.n && stores_only(&s->body) ? s->cond : NULL;
	if (!c || c->kind != IE_BINARY || c->op != OP_LT || !ie_is_const(c->a, k) || c->b->kind == IE_INT ||
	    has_load(c->b) || reads_register(c->b) || (*x && !ie_equal(*x, c->b)))
		return false;
	*x = c->b;
	return true;
}

/* How many ifs from list[i] on test `k < x` for one x and growing constants k (a residue: `for j in
 * 0..32 { if (j < n) D[tid, j] = m[j]; }` unrolled); 0 where fewer than two. */
static int
bound_chain(const List *list, int i)
{
	const IExpr *x = NULL;
	int64_t k, last = 0;
	int n = 0;
	while (i + n < list->n && bound_test(LIST_AT(*list, LStmt, i + n), &x, &k) && (n == 0 || k > last)) {
		last = k;
		n++;
	}
	return n >= 2 ? n : 0;
}

/* A bound_chain: where one test fails every later one fails too, so each test branches to the end of
 * the chain rather than past its own statement, as nvcc's route does; each branch is then reached
 * only through the ones before, whose values it reuses (tests/routes/residue_store.tile). */
static void
bound_chain_stmts(const List *list, int i, int n)
{
	int l_end = ++P.nlabel;
	unsigned gen = P.cse_gen;
	P.depth++;
	for (int k = 0; k < n; k++) {
		const LStmt *s = LIST_AT(*list, LStmt, i + k);
		if (s->comment)
			comment_line("", s->comment, NO_REG);
		guarded_address(&s->body);
		Opnd p = guard(s->cond);
		ins(PF_BRANCH, "@!%o bra %s;", p, label_name(l_end));
		P.cse_gen = gen_new(P.cse_gen);
		block_open();
		stmts(&s->body);
	}
	for (int k = 0; k < n; k++)
		block_close();
	P.depth--;
	label(l_end);
	P.cse_gen = gen;
}

/* The run of statements from list[i] on that are pred_items (blocks, or lets and an if in the list
 * itself, as the first iteration of an unrolled loop is): how many statements it takes, with its
 * items in *out and their number in *nitems; 0 where fewer than two items follow. */
static int
predicated_items(const List *list, int i, PredItem **out, int *nitems)
{
	if (P.pred.k != O_NONE)
		return 0;
	PredItem *items = NULL;
	int n = 0, j = i;
	while (j < list->n) {
		const LStmt *s = LIST_AT(*list, LStmt, j);
		PredItem it = {NULL, NULL, 0, NULL};
		int next = j + 1;
		if (s->vec)
			break;
		if (s->kind == L_BLOCK) {
			if (!pred_item(&s->body))
				break;
			it.body = &s->body;
			it.comment = s->comment;
		} else {
			while (next - 1 < list->n && pred_prefix(LIST_AT(*list, LStmt, next - 1)))
				next++;
			List *part = pool_alloc(sizeof *part);
			*part = (List){0};
			for (int k = j; k < next && k < list->n; k++)
				list_push(part, list->v[k]);
			if (next > list->n || !pred_item(part))
				break;
			it.body = part;
		}
		if (n && !same_shape(pred_last(&items[0]), pred_last(&it)))
			break;
		if (n % 16 == 0) {
			PredItem *more = pool_alloc((size_t)(n + 16) * sizeof *more);
			if (n)
				memcpy(more, items, (size_t)n * sizeof *more);
			items = more;
		}
		items[n++] = it;
		j = next;
	}
	if (n < 2)
		return 0;
	*out = items;
	*nitems = n;
	return j - i;
}

/* A loop: written out, unrolled by 8, 4 or 2, or a loop of one body with its invariants moved
 * before it. */
static void
for_stmt(const LStmt *s)
{
	/* counting up by one from a value >= 0 while below hi, the counter stays >= 0 */
	if (nonneg(s->lo) && !assigns(&s->body, s->var))
		list_push(&P.counters, s->var);
	int64_t lo, hi;
	if (ie_is_const(s->lo, &lo) && ie_is_const(s->hi, &hi) && unrolls(s, lo, hi)) {
		/* straight-line code with the counter a constant: one address for all iterations,
		   the counter in the offsets, as nvcc unrolls the CUDA C's loop */
		if (predicated_loop(s, lo, hi))
			return;
		for (int64_t i = lo; i < hi; i++) {
			map_put(s->var->cname, (Opnd){O_NONE, 0, 0, NULL, false})->expr = ie_int(i, T_I32);
			stmts(&s->body);
		}
		return;
	}
	int by = ie_is_const(s->lo, &lo) && ie_is_const(s->hi, &hi) ? unroll_by(s, lo, hi) : 1;
	Opnd i = var_reg(s->var);
	Var *counter = s->var;
	if (by > 1) {
		/* each copy of the body sees the counter as counter + k */
		counter = pool_alloc(sizeof *counter);
		*counter = *s->var;
		counter->cname = pool_printf("%s.unrolled", s->var->cname);
		if (list_has(&P.counters, s->var))
			list_push(&P.counters, counter);
	}
	map_put(counter->cname, i);
	int l_top = ++P.nlabel, l_end = ++P.nlabel;
	comment_line(pool_printf("for %s = ", s->var->name), NULL, i);
	assign(i, s->lo);
	size_t top = P.nrecs;
	label(l_top);
	block_open();
	Opnd p = pure(O_P, "setp.ge.s32 %D, %o, %o;", i, ev(s->hi));
	P.epoch++; /* see guard() */
	ins(PF_BRANCH, "@%o bra %s;", p, label_name(l_end));
	P.depth++;
	if (by > 1) {
		IExpr *ref = ie_var(counter, counter->type);
		for (int k = 0; k < by; k++) {
			map_put(s->var->cname, (Opnd){O_NONE, 0, 0, NULL, false})->expr =
				k ? ie_binary(OP_ADD, ref, ie_int(k, ref->type)) : ref;
			stmts(&s->body);
		}
	} else {
		stmts(&s->body);
	}
	P.depth--;
	ins(0, "add.s32 %o, %o, %d;", i, i, by);
	++*var_version(i);
	ins(PF_BRANCH, "bra %s;", label_name(l_top));
	block_close();
	label(l_end);
	loop_invariants(top);
}

static void
stmt(const LStmt *s)
{
	if (s->comment)
		comment_line("", s->comment, NO_REG);
	switch (s->kind) {
	case L_LET:
		bind(s->var->cname, "let ", s->var->name, s->value);
		break;
	case L_VAR: {
		if (s->value && !list_has(&P.assigned, s->var)) {
			/* never assigned (a device function's scalar parameter, most often): a let, so that a
			   constant argument stays a constant and a parameter is read where it is used, as
			   nvcc's inlining of the CUDA C propagates them */
			bind(s->var->cname, "var ", s->var->name, s->value);
			list_push(&P.fixed, s->var);
			list_push(&P.fixed_value, (void *)s->value);
			break;
		}
		Opnd r = var_reg(s->var);
		map_put(s->var->cname, r);
		comment_line(pool_printf("var %s = ", s->var->name), NULL, r);
		if (s->value)
			assign(r, s->value);
		break;
	}
	case L_ASSIGN:
		assign(map_get(s->var->cname), s->value);
		break;
	case L_STORE:
		store(s);
		break;
	case L_SHARED:
		list_push(&P.shared, s->tensor);
		break;
	case L_REGS:
		list_push(&P.regs, s->tensor);
		if (etype_bits(s->tensor->type) < 32) /* emit_cu.c zeroes them: = {0} */
			for (int w = 0; w < s->tensor->words; w++)
				ins(0, "mov.b32 %o, 0;", (Opnd){O_WORD, w, 0, s->tensor, true});
		break;
	case L_REG_STORE:
		reg_store(s);
		break;
	case L_TMEM:
		bind(s->tensor->cname, "tmem ", s->tensor->name, s->value);
		break;
	case L_IF:
		if_stmt(s);
		break;
	case L_FOR:
		for_stmt(s);
		break;
	case L_BLOCK:
		stmts(&s->body);
		break;
	case L_BARRIER:
		P.cse_gen = gen_new(0); /* values are recomputed after it rather than kept live across it */
		P.cuts++;
		ins(PF_SYNC, "bar.sync 0;");
		for (int i = 0; i < P.nslots; i++) {
			Slot *k = &P.slots[i];
			/* the fence after the barrier evaluates nothing: from here on the slot may be read */
			k->published |= k->s.publish == s;
			/* in a kernel whose tcgen05.ld / st are all outside ifs and loops, the dealloc takes
			   the last such read (copy_memory 74 -> 72 registers, nvcc's 72; read again where an
			   access lies in a branch: copy_wait_join 41 -> 39, device_warp_tmem 40 -> 39) */
			if (P.flat_tc && k->val.k != O_NONE && k->at.depth == 0)
				k->for_dealloc = k->val;
			/* any other use reads it again: kept across, the slot cost registers (device_warp_tmem
			   40 -> 39, copy_wait_join 41 -> 39, the round trips 74 -> 72; docs/performance.md) */
			k->val.k = O_NONE;
		}
		break;
	case L_WARP_SYNC:
		ins(PF_SYNC, "bar.warp.sync -1;");
		break;
	case L_NAMED_BAR:
		/* shared memory other warps wrote may change across it: values are recomputed after it */
		P.cse_gen = gen_new(0);
		P.cuts++;
		ins(PF_SYNC, s->bar_arrive ? "bar.arrive %d, %d;" : "bar.sync %d, %d;", s->bar_id, s->bar_threads);
		break;
	case L_COPY:
		ins(0, "mov.b32 %o, %o;", (Opnd){O_WORD, s->regs[0].word, 0, s->regs[0].tensor, true},
		    (Opnd){O_WORD, s->regs[1].word, 0, s->regs[1].tensor, true});
		break;
	case L_TC:
	case L_FENCE:
		tc(s);
		break;
	case L_MBAR:
		mbar(s);
		break;
	case L_TMA:
		tma(s);
		break;
	}
}

/* Uses of v in e. */
static int
var_uses(const IExpr *e, const Var *v)
{
	if (!e)
		return 0;
	return (e->kind == IE_VAR && e->var == v) + var_uses(e->a, v) + var_uses(e->b, v) + var_uses(e->index, v);
}

/* The uses of v in list[from..], one inside a runtime loop counting twice. */
static int
later_uses(const List *list, int from, const Var *v, bool loop)
{
	int n = 0;
	for (int i = from; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		int k = var_uses(s->value, v) + var_uses(s->index, v) + var_uses(s->cond, v) + var_uses(tc_addr(s), v) +
		        var_uses(s->lo, v) + var_uses(s->hi, v);
		n += loop || s->kind == L_FOR ? 2 * k : k;
		n += later_uses(&s->body, 0, v, loop || s->kind == L_FOR);
		n += later_uses(&s->els, 0, v, loop);
	}
	return n;
}

/* Whether e reads register word w of t (any word when w < 0). */
static bool
reads_word(const IExpr *e, const Tensor *t, int w)
{
	if (!e)
		return false;
	if (e->kind == IE_REG && e->tensor == t && (w < 0 || e->slot * etype_bits(t->type) / 32 == w))
		return true;
	return reads_word(e->a, t, w) || reads_word(e->b, t, w) || reads_word(e->index, t, w);
}

/* Whether a statement of list[from..] may write a register word that e reads. */
static bool
writes_read(const List *list, int from, const IExpr *e)
{
	for (int i = from; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if ((s->kind == L_REG_STORE && reads_word(e, s->tensor, s->slot * etype_bits(s->tensor->type) / 32)) ||
		    (s->kind == L_COPY && reads_word(e, s->regs[0].tensor, s->regs[0].word)) ||
		    (s->kind == L_REGS && reads_word(e, s->tensor, -1)))
			return true;
		for (int r = 0; s->kind == L_TC && r < tc_nregs(s); r++)
			if (reads_word(e, tc_reg(s, r)->tensor, tc_reg(s, r)->word))
				return true;
		if (writes_read(&s->body, 0, e) || writes_read(&s->els, 0, e))
			return true;
	}
	return false;
}

/* Whether a TMA store of list reads shared array t (through the async proxy: no load names it). */
static bool
tma_stores_from(const List *list, const Tensor *t)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if ((s->kind == L_TMA && s->tma->store && s->tma->smem == t) || tma_stores_from(&s->body, t) ||
		    tma_stores_from(&s->els, t))
			return true;
	}
	return false;
}

/* Whether the kernel reads shared array t (or takes an element's address, or a TMA store copies it out),
   asked once per array. */
static bool
shared_read(const Tensor *t)
{
	for (int i = 0; i < P.shared_seen.n; i++)
		if (LIST_AT(P.shared_seen, Tensor, i) == t)
			return list_has(&P.shared_read, t);
	list_push(&P.shared_seen, (void *)t);
	if (list_loads(&P.k->body, t) || tma_stores_from(&P.k->body, t))
		list_push(&P.shared_read, (void *)t);
	return list_has(&P.shared_read, t);
}

/* How many ifs from list[i] on test the same condition of ids, parameters and constants, which
 * nothing in their branches can change. */
static int
same_tests(const List *list, int i)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	int n = 1;
	if (!recomputable(s->cond))
		return 1;
	while (i + n < list->n) {
		const LStmt *t = LIST_AT(*list, LStmt, i + n);
		if (t->kind != L_IF || t->vec || !ie_equal(t->cond, s->cond))
			break;
		n++;
	}
	return n;
}

static void
stmts(const List *list)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		elect_join(s);
		fold_expect_tx(list, i);
		bool tc_step = tc_accesses(s);
		if (s->kind == L_TC && (s->instr->kind == TC_WAIT_LD || s->instr->kind == TC_WAIT_ST)) {
			P.tc_waited = true;
			const LStmt *next = i + 1 < list->n ? LIST_AT(*list, LStmt, i + 1) : NULL;
			P.interleaved = next && P.tc_prev && keeps_address(P.tc_prev, next) && same_tensors(P.tc_prev, next);
		}
		else if (!tc_step)
			P.tc_prev = NULL;
		/* a float let used once, reading registers nothing writes before that use, is computed
		   there (inside the branch that uses it, as nvcc sinks it) rather than kept live */
		P.sink = (s->kind == L_LET || s->kind == L_VAR) && s->value && s->value->type == T_F32 &&
		         later_uses(list, i + 1, s->var, false) <= 1 && !writes_read(list, i + 1, s->value);
		int same = s->kind == L_IF && !s->vec ? same_tests(list, i) : 1;
		if (s->kind == L_STORE && s->tensor->kind == TK_SHARED && !shared_read(s->tensor)) {
			/* nothing reads the array: its stores are dead, as nvcc finds (trap_shared: 14
			   registers with the store, 12 without, as nvcc's route) */
			i += s->vec ? s->vec - 1 : 0;
			continue;
		}
		PredItem *items;
		int nitems = 0;
		int run = s->kind == L_BLOCK || s->kind == L_IF || pred_prefix(s) ? predicated_items(list, i, &items, &nitems) : 0;
		int chain = run || s->kind != L_IF ? 0 : bound_chain(list, i);
		if (run) {
			predicated_run(items, nitems);
			i += run - 1;
		} else if (chain) {
			bound_chain_stmts(list, i, chain);
			i += chain - 1;
		} else if (s->matrix) {
			if (s->comment)
				comment_line("", s->comment, NO_REG);
			matrix_access(s);
			i += s->vec - 1;
		} else if (s->vec) {
			if (s->comment)
				comment_line("", s->comment, NO_REG);
			vector_access(s, list, i);
			i += s->vec - 1;
		} else if (paired_halves(list, i, false)) {
			if (s->comment)
				comment_line("", s->comment, NO_REG);
			Opnd lo = half_source(s);
			paired_reg_store(s, lo, half_source(LIST_AT(*list, LStmt, i + 1)));
			i++;
		} else if (same > 1) {
			/* ifs in a row that test the same ids: one if, as nvcc threads them (copy_box_start:
			   the vectors of a copy whose bounds test only the row) */
			LStmt *m = pool_alloc(sizeof *m);
			*m = *s;
			m->body = m->els = (List){0};
			for (int j = i; j < i + same; j++) {
				const LStmt *t = LIST_AT(*list, LStmt, j);
				for (int k = 0; k < t->body.n; k++)
					list_push(&m->body, t->body.v[k]);
				for (int k = 0; k < t->els.n; k++)
					list_push(&m->els, t->els.v[k]);
			}
			stmt(m);
			i += same - 1;
		} else {
			stmt(s);
		}
		P.sink = false;
		if (!tc_step && s->kind != L_TC)
			P.tc_prev = NULL;
	}
	elect_join(NULL);
	P.tc_prev = NULL; /* the end of a branch or loop body */
}

/* ---------------------------------------------------------------- kernels */

/* The WordUse of local tensor t (NULL for another tensor), made when first asked for. */
static WordUse *
word_use(const Tensor *t)
{
	if (t->kind != TK_LOCAL)
		return NULL;
	for (int i = 0; i < P.word_uses.n; i++) {
		WordUse *u = LIST_AT(P.word_uses, WordUse, i);
		if (u->t == t)
			return u;
	}
	WordUse *u = pool_alloc(sizeof *u);
	memset(u, 0, sizeof *u);
	u->t = t;
	u->reads = pool_alloc((size_t)(t->words + 1) * sizeof *u->reads);
	u->writes = pool_alloc((size_t)(t->words + 1) * sizeof *u->writes);
	memset(u->reads, 0, (size_t)(t->words + 1) * sizeof *u->reads);
	memset(u->writes, 0, (size_t)(t->words + 1) * sizeof *u->writes);
	list_push(&P.word_uses, u);
	return u;
}

static void
pin(const Tensor *t)
{
	WordUse *u = t ? word_use(t) : NULL;
	if (u)
		u->pinned = true;
}

/* The register reads of e, each counting n; with whole, their tensors pinned. */
static void
scan_reads(const IExpr *e, int n, bool whole)
{
	if (!e)
		return;
	if (e->kind == IE_REG) {
		WordUse *u = word_use(e->tensor);
		if (u && (whole || etype_bits(e->tensor->type) != 32))
			u->pinned = true;
		else if (u && e->slot >= 0 && e->slot < e->tensor->words)
			u->reads[e->slot] += n;
	}
	scan_reads(e->a, n, whole);
	scan_reads(e->b, n, whole);
	scan_reads(e->index, n, whole);
}

/* How the kernel uses its local tensors' words (deferred_store): a read inside a loop counts twice
 * (it runs again), a write inside an if or a loop too (it may not run, or run again). */
static void
scan_words(const List *list, bool in_if, bool in_loop)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		int reads = in_loop ? 2 : 1;
		bool whole = s->vec != 0;
		scan_reads(s->value, reads, whole);
		scan_reads(s->index, reads, whole);
		scan_reads(s->cond, reads, whole);
		scan_reads(s->lo, reads, whole);
		scan_reads(s->hi, 2, whole);
		if (s->kind == L_REG_STORE) {
			WordUse *u = word_use(s->tensor);
			if (u && (whole || etype_bits(s->tensor->type) != 32 || s->slot < 0 || s->slot >= s->tensor->words))
				u->pinned = true;
			else if (u)
				u->writes[s->slot] += in_if || in_loop ? 2 : 1;
		}
		if (s->kind == L_COPY) {
			pin(s->regs[0].tensor);
			pin(s->regs[1].tensor);
		}
		for (int k = 0; (s->kind == L_TC || s->kind == L_FENCE) && k < s->nops; k++)
			for (int r = 0; r < s->ops[k].nregs; r++)
				pin(s->ops[k].regs[r].tensor);
		scan_words(&s->body, in_if || s->kind == L_IF, in_loop || s->kind == L_FOR);
		scan_words(&s->els, true, in_loop);
	}
}

/* Which global tensors and which vars the kernel writes. */
static void
scan(const List *list)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_STORE && s->tensor->kind == TK_GLOBAL)
			P.param_written[s->tensor->index] = true;
		if (s->kind == L_ASSIGN && !list_has(&P.assigned, s->var))
			list_push(&P.assigned, s->var);
		scan(&s->body);
		scan(&s->els);
	}
}

/* The .param type of a scalar, as nvcc declares the C parameter (float for the 16-bit floats). */
static const char *
param_type(EType t)
{
	switch (t) {
	case T_F32: case T_F16: case T_BF16: return "f32";
	case T_I16: case T_U16: return "u16";
	case T_I8: case T_U8: return "u8";
	default: return "u32";
	}
}

static const char *
param_load_type(EType t)
{
	switch (t) {
	case T_F32: case T_F16: case T_BF16: return "f32";
	case T_I16: return "s16";
	case T_U16: return "u16";
	case T_I8: return "s8";
	case T_U8: return "u8";
	default: return "u32";
	}
}

/* Scalar parameters are read where they are used (ld.param is pure: see pure()). */
static void
prologue(void)
{
	KernelIR *k = P.k;
	for (int i = 0; i < k->params.n; i++)
		if (!LIST_AT(k->param_is_tensor, Tensor, i))
			P.param_of[i] = LIST_AT(k->params, Var, i);
}

/* "f32[128, 64]": a tensor's type and shape, for comments. */
static const char *
shape_text(const Tensor *t)
{
	Buf b = {0};
	buf_printf(&b, "%s[", etype_name(t->type));
	for (int i = 0; i < t->rank; i++)
		buf_printf(&b, "%s%d", i ? ", " : "", t->dims[i]);
	buf_putc(&b, ']');
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* A program for libtilert (launch.c) as the u32 array SYMBOL<kernel>, after its comment; nothing for an
   empty one. */
static void
program_symbol(Buf *out, KernelIR *k, const char *comment, const char *symbol,
               int (*program)(KernelIR *, uint32_t *, int))
{
	int n = program(k, NULL, 0);
	if (!n)
		return;
	uint32_t *prog = pool_alloc(sizeof(uint32_t) * (size_t)n);
	program(k, prog, n);
	buf_printf(out, "// %s (tilert.h)\n.visible .global .align 4 .u32 %s%s[%d] = {", comment, symbol, k->name, n);
	for (int i = 0; i < n; i++)
		buf_printf(out, "%s%u", i ? ", " : "", prog[i]);
	buf_puts(out, "};\n\n");
}

static void
kernel(KernelIR *k, int ki, bool pack_f32x2, Buf *out)
{
	Buf body = {0};
	P = (Px){0};
	P.k = k;
	P.ki = ki;
	P.param_of = pool_alloc(sizeof(Var *) * (size_t)(k->params.n + 1));
	P.param_written = pool_alloc(sizeof(bool) * (size_t)(k->params.n + 1));
	scan(&k->body);
	scan_words(&k->body, false, false);
	P.cse_gen = gen_new(0);
	P.tc_addresses = thread_addresses(&k->body);
	P.has_ld = has_ld(&k->body);
	P.flat_tc = !nested_access(&k->body, false);
	TmemSlot found[8];
	P.nslots = tmem_slots(k, found, 8);
	for (int i = 0; i < P.nslots; i++)
		P.slots[i].s = found[i];
	prologue();
	/* The thread index is read once at entry and kept, as nvcc's PTX does: read again after the
	   alloc's branch, it took a register of its own there (plan_pending_ld, plan_copy_pending: 14
	   registers, 12 so, as nvcc's route; plan_pending_st 12 -> 11; docs/performance.md) */
	read_tid();
	stmts(&k->body);
	ins(PF_BRANCH, "ret;");
	if (pack_f32x2)
		P.nrecs = P.recs_cap = ptx_pack_f32x2(&P.recs, P.nrecs, &P.nd);
	ptx_print(&body, P.recs, P.nrecs, P.ki);
	free(P.cse);
	free(P.cse_gens);
	free(P.recs);
	free(P.scratch);
	buf_free(&P.key);

	buf_puts(out, "\n// launch configuration for libtilert: grid x, y, z, block x, y, z\n");
	buf_printf(out, ".visible .global .align 4 .u32 tilec_launch_%s[6] = {%d, %d, %d, %d, %d, %d};\n\n", k->name,
	           k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2]);
	if (grid_at_launch(k))
		program_symbol(out, k, "the grid dimensions given as 0 above, computed at launch from the parameters",
		               "tilec_grid_", grid_program);
	if (k->tma_maps.n)
		program_symbol(out, k, "the tensor maps libtilert encodes at launch and passes after the parameters",
		               "tilec_tma_", tma_program);
	program_symbol(out, k, "the align promises of the tensor parameters, which libtilert checks at launch",
	               "tilec_align_", align_program);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (t)
			buf_puts(out, align_promise_text(t));
	}
	if (k->has_cluster)
		buf_printf(out, "// the cluster for libtilert's launch: x, y, z\n"
		                ".visible .global .align 4 .u32 tilec_cluster_%s[3] = {%d, %d, %d};\n\n", k->name, k->cluster[0],
		           k->cluster[1], k->cluster[2]);
	buf_printf(out, ".visible .entry %s(", k->name);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		const char *type = t ? "u64" : param_type(LIST_AT(k->params, Var, i)->type);
		const char *name = t ? t->name : LIST_AT(k->params, Var, i)->name;
		buf_printf(out, "\n\t.param .%s tl_param_%d%s // %s%s", type, i, i + 1 < k->params.n || k->tma_maps.n ? "," : "",
		           name, t ? pool_printf(": %s", shape_text(t)) : "");
	}
	for (int i = 0; i < k->tma_maps.n; i++) {
		const TmaMap *m = LIST_AT(k->tma_maps, TmaMap, i);
		buf_printf(out, "\n\t.param .align 64 .b8 %s[128]%s // the CUtensorMap of %s", m->cname,
		           i + 1 < k->tma_maps.n ? "," : "", m->tensor->name);
	}
	buf_printf(out, "%s)\n.maxntid %d, %d, %d\n", k->params.n || k->tma_maps.n ? "\n" : "", k->block[0], k->block[1], k->block[2]);
	if (k->has_cluster)
		buf_printf(out, ".explicitcluster\n.reqnctapercluster %d, %d, %d\n", k->cluster[0], k->cluster[1], k->cluster[2]);
	buf_puts(out, "{\n");
	if (P.np)
		buf_printf(out, "\t.reg .pred %%p<%d>;\n", P.np + 1);
	if (P.nh)
		buf_printf(out, "\t.reg .b16 %%h<%d>;\n", P.nh + 1);
	if (P.nr)
		buf_printf(out, "\t.reg .b32 %%r<%d>;\n", P.nr + 1);
	if (P.nf)
		buf_printf(out, "\t.reg .f32 %%f<%d>;\n", P.nf + 1);
	if (P.nd)
		buf_printf(out, "\t.reg .b64 %%rd<%d>;\n", P.nd + 1);
	for (int i = 0; i < P.regs.n; i++) {
		Tensor *t = LIST_AT(P.regs, Tensor, i);
		buf_printf(out, "\t.reg .b32 ");
		/* %NAME_<n> declares %NAME_0 .. %NAME_(n-1) */
		Buf tmp = {0};
		ptx_put_word(&tmp, t, 0);
		tmp.data[tmp.len - 1] = 0; /* drop the 0, keep the underscore */
		buf_printf(out, "%s<%d>; // local %s: %s\n", tmp.data, t->words, t->name, shape_text(t));
		buf_free(&tmp);
	}
	for (int i = 0; i < P.shared.n; i++) {
		Tensor *t = LIST_AT(P.shared, Tensor, i);
		buf_printf(out, "\t.shared .align %d .b8 tl_smem_%s[%d]; // shared %s: %s%s\n", smem_tensor_align(t), t->cname,
		           t->count * etype_bits(t->type) / 8, t->name, shape_text(t), t->tile ? smem_tile_text(t->tile) : "");
	}
	buf_puts(out, "\n");
	buf_puts(out, body.data ? body.data : "");
	buf_puts(out, "}\n");
	buf_free(&body);
}

bool
emit_ptx(Program *p, const TargetOptions *opt, Buf *out)
{
	const char *arch = opt->arch;
	const Arch *target = arch_find(arch);
	if (!target)
		fatal("emit_ptx: no PTX version for %s", arch);
	const char *version = target->ptx_version;
	buf_printf(out, "//\n// Generated by tilec %s from %s for %s. Do not edit.\n//\n\n", TILEC_VERSION,
	           p->source_name, arch);
	buf_printf(out, ".version %s\n.target %s\n.address_size 64\n", version, arch);
	for (int i = 0; i < p->kernels.n; i++)
		kernel(LIST_AT(p->kernels, KernelIR, i), i, target->f32x2, out);
	return true;
}
