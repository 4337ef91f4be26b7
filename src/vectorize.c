/* vectorize.c: the code passes that pipeline.c runs for the code targets: how data moves as bits: runs of
 * a thread's accesses to consecutive global or shared elements become one 4-, 8- or 16-byte access (also
 * where each element is converted between the memory's type and the registers'), and 16-bit data that is
 * only moved is never converted; and the per-warp shape of the code (dead register stores, each warp's own
 * register words, branches on the warp index joined or made one). Both emitters read the marks (LStmt.vec)
 * and the helpers here; see docs/ptx.md. */
#include <string.h>

#include "tilec.h"

static bool
same_bits(EType a, EType b)
{
	return a == b || ((a == T_I32 || a == T_U32) && (b == T_I32 || b == T_U32));
}

const IExpr *
moved_bits(EType t, const IExpr *value)
{
	if (value->kind == IE_CONV && same_bits(value->to, t))
		value = value->a;
	if ((value->kind == IE_LOAD || value->kind == IE_REG) && same_bits(value->tensor->type, t))
		return value;
	return NULL;
}

const IExpr *
rounded_half(EType t, const IExpr *value)
{
	if (value->kind == IE_CONV && value->to == t)
		value = value->a;
	if ((t != T_F16 && t != T_BF16) || moved_bits(t, value) || value->kind == IE_FLOAT)
		return NULL;
	return value;
}

/* Whether e reads register word w of t. */
static bool
reads_word(const IExpr *e, const Tensor *t, int w)
{
	if (!e)
		return false;
	if (e->kind == IE_REG && e->tensor == t && e->slot * etype_bits(t->type) / 32 == w)
		return true;
	return reads_word(e->a, t, w) || reads_word(e->b, t, w) || reads_word(e->index, t, w);
}

bool
paired_halves(const List *list, int i, bool in_vector)
{
	if (i + 1 >= list->n)
		return false;
	const LStmt *a = LIST_AT(*list, LStmt, i), *b = LIST_AT(*list, LStmt, i + 1);
	return a->kind == L_REG_STORE && b->kind == L_REG_STORE && (in_vector || (!a->vec && !b->vec)) &&
	       a->tensor == b->tensor && (a->tensor->type == T_F16 || a->tensor->type == T_BF16) && a->slot % 2 == 0 &&
	       b->slot == a->slot + 1 && rounded_half(a->tensor->type, a->value) &&
	       rounded_half(a->tensor->type, b->value) && !reads_word(b->value, a->tensor, a->slot / 2) && !b->comment;
}

static bool
reads_registers(const IExpr *e)
{
	if (!e)
		return false;
	if (e->kind == IE_REG)
		return true;
	return reads_registers(e->a) || reads_registers(e->b) || reads_registers(e->index);
}

const IExpr *
vector_load(const IExpr *value)
{
	while (value->kind == IE_CONV)
		value = value->a;
	return value->kind == IE_LOAD ? value : NULL;
}

bool
vector_converts(const LStmt *s)
{
	const IExpr *m = moved_bits(s->tensor->type, s->value);
	return s->kind == L_REG_STORE ? !m || m->kind != IE_LOAD : !m || m->kind != IE_REG;
}

/* What statement s moves: the memory tensor and index, and for a register side the register
 * tensor and slot (NULL when the statement stores a computed value); conv: the elements are
 * converted one by one (vector_converts), not moved as whole register words. */
typedef struct Access {
	const Tensor *mem, *reg;
	IExpr *rest;
	int64_t off;
	int slot;
	bool conv;
} Access;

static bool
access_of(const LStmt *s, Access *a)
{
	const IExpr *m;
	if (s->kind == L_REG_STORE) {
		a->conv = vector_converts(s);
		m = a->conv ? vector_load(s->value) : moved_bits(s->tensor->type, s->value);
		if (!m)
			return false;
		a->mem = m->tensor;
		a->reg = s->tensor;
		a->slot = s->slot;
		a->rest = ie_split_offset(m->index, &a->off);
	} else if (s->kind == L_STORE) {
		a->mem = s->tensor;
		m = moved_bits(s->tensor->type, s->value);
		a->conv = vector_converts(s);
		a->reg = a->conv ? NULL : m->tensor;
		a->slot = a->reg ? m->slot : 0;
		if (a->conv && loads_from(s->value, s->tensor))
			return false;
		a->rest = ie_split_offset(s->index, &a->off);
	} else {
		return false;
	}
	return (a->mem->kind == TK_GLOBAL || a->mem->kind == TK_SHARED) && !reads_registers(a->rest) &&
	       !loads_from(a->rest, a->mem);
}

/* How many statements from list[i] on one access of `bytes` bytes can do (0: none). *align_rest is
 * set to the part of the address whose alignment a copy's access tests at run time (vector_guard),
 * NULL when it is known. */
static int
group_at(const List *list, int i, int bytes, IExpr **align_rest)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	Access a;
	*align_rest = NULL;
	if (!access_of(s, &a))
		return 0;
	int size = etype_bits(a.mem->type) / 8;
	int n = bytes / size;
	if (n < 2 || i + n > list->n)
		return 0;
	/* the rest's factor counts a tensor's outer strides as its `align N` promise makes them */
	int64_t factor = index_factor(a.rest, a.mem);
	if ((size * a.off) % bytes || ((size * factor) % bytes && !s->align_test) ||
	    bytes > tensor_align(a.mem))
		return 0;
	if (a.reg && !a.conv && (a.slot * size * 8) % 32)
		return 0;
	for (int k = 1; k < n; k++) {
		const LStmt *t = LIST_AT(*list, LStmt, i + k);
		Access b;
		if (t->kind != s->kind || t->comment || !access_of(t, &b) || b.mem != a.mem || b.reg != a.reg || b.conv != a.conv ||
		    b.off != a.off + k || !ie_equal(b.rest, a.rest) || (a.reg && b.slot != a.slot + k) ||
		    t->mask_lo != s->mask_lo || t->mask_hi != s->mask_hi || t->align_test != s->align_test)
			return 0;
	}
	if ((size * factor) % bytes)
		*align_rest = a.rest;
	return n;
}

/* Statements a run of accesses may be gathered from: loads into registers, or stores of register
 * words, each plain (no mask, no run-time alignment test, no comment). */
static bool
gatherable(const LStmt *s, LKind kind)
{
	Access a;
	return s->kind == kind && !s->comment && !(s->mask_lo | s->mask_hi) && !s->align_test && access_of(s, &a) && a.reg;
}

/* Whether two gatherable statements of one kind may swap: loads into other register slots (they
 * read memory that no statement of the window writes), or stores to other elements (tensors are
 * never aliased, language.md section 3; within one tensor, the same index apart from constants). */
static bool
commute(const LStmt *t, const LStmt *u)
{
	if (t->kind == L_REG_STORE)
		return t->tensor != u->tensor || t->slot != u->slot;
	if (t->tensor != u->tensor)
		return true;
	int64_t ct, cu;
	IExpr *rt = ie_split_offset(t->index, &ct), *ru = ie_split_offset(u->index, &cu);
	return ct != cu && ie_equal(rt, ru);
}

static int vector_at(const List *list, int i, int bytes, IExpr **align_rest);

/* Moves the statements that continue the access of list[i] by bytes bytes (the next elements into
 * the next slots) up behind it, where they lie further on (up to 64 statements) among statements
 * of its kind that they may cross: `a[j] = A[tid, j]; b[j] = A[tid, 16 + j];` unrolled becomes four
 * loads of a, four of b, ..., each four one vector access. Returns vector_at's count, 0 with the
 * list unchanged when some element is missing or cannot move, or the run is no vector access. */
static int
gather(List *list, int i, int bytes, IExpr **align_rest)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	Access a;
	if (!gatherable(s, s->kind) || !access_of(s, &a))
		return 0;
	int n = bytes / (etype_bits(a.mem->type) / 8), end = i + 1;
	enum { REACH = 64 };
	while (end < list->n && end - i < REACH && gatherable(LIST_AT(*list, LStmt, end), s->kind))
		end++;
	if (n < 2 || end - i < n)
		return 0;
	/* on the stack: a pool copy per attempt was half of what a long copy's lowering allocated */
	void *saved[REACH];
	memcpy(saved, list->v + i, (size_t)(end - i) * sizeof *saved);
	for (int k = 1; k < n; k++) {
		int j = i + k;
		for (; j < end; j++) {
			const LStmt *t = LIST_AT(*list, LStmt, j);
			Access b;
			access_of(t, &b);
			if (b.mem == a.mem && b.reg == a.reg && b.conv == a.conv && b.off == a.off + k && b.slot == a.slot + k &&
			    ie_equal(b.rest, a.rest))
				break;
		}
		bool ok = j < end;
		for (int m = i + k; ok && m < j; m++)
			ok = commute(LIST_AT(*list, LStmt, j), LIST_AT(*list, LStmt, m));
		if (!ok)
			break;
		void *t = list->v[j];
		memmove(list->v + i + k + 1, list->v + i + k, (size_t)(j - i - k) * sizeof *list->v);
		list->v[i + k] = t;
	}
	int got = vector_at(list, i, bytes, align_rest);
	if (got < n)
		memcpy(list->v + i, saved, (size_t)(end - i) * sizeof *saved);
	return got == n ? n : 0;
}

/* ---------------------------------------------------------------- masked accesses of a copy */

/* The global load a register store of a copy makes. */
static const IExpr *
load_of(const IExpr *e)
{
	if (!e || e->kind == IE_LOAD)
		return e;
	const IExpr *r = load_of(e->a);
	return r ? r : load_of(e->b);
}

static IExpr *const *
coords_of(const LStmt *s)
{
	return s->kind == L_STORE ? s->coords : load_of(s->value)->coords;
}

static void
conjoin(IExpr **cond, IExpr *test)
{
	*cond = *cond ? ie_binary(OP_LAND, *cond, test) : test;
}

/* The tests of dimension d for coordinates rest + kmin .. rest + kmax. Those of a vector (kmin < kmax)
 * add in 64 bits: rest + 3 of a start near 2^31 wrapped in 32 (PTX add.s32 wraps), passed '< N' and
 * stored the vector about 8 GB before the tensor, where the CUDA C and the emulator stored nothing. The
 * test of one element may wrap: a coordinate that wraps lies outside, and its wrapped value fails '>= 0'
 * or '< N'. */
static void
bound_tests(IExpr **cond, const LStmt *s, int d, IExpr *rest, int64_t kmin, int64_t kmax)
{
	const Tensor *t = s->kind == L_STORE ? s->tensor : load_of(s->value)->tensor;
	IExpr *wide = rest && kmin < kmax && rest->type != T_I64 ? ie_convert(rest, T_I64) : rest;
	EType ct = rest ? rest->type : T_I32, wt = wide ? wide->type : T_I32;
	/* the low end in 32 bits where it only grows: a wrap there makes it negative, and fails */
	IExpr *lo = !rest ? ie_int(kmin, ct)
	            : kmin >= 0 ? ie_binary(OP_ADD, rest, ie_int(kmin, ct))
	                        : ie_binary(OP_SUB, wide, ie_int(-kmin, wt));
	IExpr *hi = rest ? ie_binary(kmax < 0 ? OP_SUB : OP_ADD, wide, ie_int(kmax < 0 ? -kmax : kmax, wt)) : ie_int(kmax, ct);
	IExpr *dim = t->wide ? t->rdims[d] : ie_int(t->dims[d], T_I32);
	if (s->mask_lo >> d & 1)
		conjoin(cond, ie_binary(OP_GE, lo, ie_int(0, lo->type)));
	if (s->mask_hi >> d & 1)
		conjoin(cond, ie_binary(OP_LT, hi, hi->type == T_I64 ? ie_convert(dim, T_I64) : dim));
}

/* Whether statements list[i] .. list[i + n - 1] all lie inside their tensor's shape: per dimension,
 * the least and the greatest of their coordinates where these differ by constants. */
static IExpr *
bounds_test(const List *list, int i, int n)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	IExpr *cond = NULL;
	for (int d = 0; d < MAX_RANK; d++) {
		if (!((s->mask_lo | s->mask_hi) >> d & 1))
			continue;
		int64_t kmin = 0, kmax = 0, k;
		IExpr *rest0 = ie_split_offset(coords_of(s)[d], &kmin);
		bool same = true;
		kmax = kmin;
		for (int j = 1; j < n && same; j++) {
			IExpr *rest = ie_split_offset(coords_of(LIST_AT(*list, LStmt, i + j))[d], &k);
			same = ie_equal(rest, rest0);
			kmin = k < kmin ? k : kmin;
			kmax = k > kmax ? k : kmax;
		}
		if (same) {
			bound_tests(&cond, s, d, rest0, kmin, kmax);
			continue;
		}
		for (int j = 0; j < n; j++) {
			IExpr *rest = ie_split_offset(coords_of(LIST_AT(*list, LStmt, i + j))[d], &k);
			bound_tests(&cond, s, d, rest, k, k);
		}
	}
	return cond;
}

/* A copy's load of 0 into the register that load s fills (its element lies outside the shape). */
static LStmt *
zero_load(const LStmt *s)
{
	LStmt *z = pool_alloc(sizeof *z);
	*z = *s;
	z->value = ie_convert(ie_int(0, T_I32), s->tensor->type);
	return z;
}

/* Whether the n elements of a copy's vector from list[i] on lie all inside the shape or all outside:
 * in each dimension that is tested, the vector's coordinates are n consecutive ones from a multiple of
 * n, and the tensor's size there is known to be a multiple of n (`f32[M, 8 * n8]`), or they are one. */
static bool
whole_vector(const List *list, int i, int n)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	const Tensor *t = s->kind == L_STORE ? s->tensor : load_of(s->value)->tensor;
	for (int d = 0; d < MAX_RANK; d++) {
		if (!((s->mask_lo | s->mask_hi) >> d & 1))
			continue;
		int64_t k0, k;
		IExpr *rest0 = ie_split_offset(coords_of(s)[d], &k0);
		bool one = true, run = k0 % n == 0 && known_factor(rest0) % n == 0 &&
		           known_factor(t->wide ? t->rdims[d] : ie_int(t->dims[d], T_I32)) % n == 0;
		for (int j = 1; j < n; j++) {
			IExpr *rest = ie_split_offset(coords_of(LIST_AT(*list, LStmt, i + j))[d], &k);
			one = one && ie_equal(rest, rest0) && k == k0;
			run = run && ie_equal(rest, rest0) && k == k0 + j;
		}
		if (!one && !run)
			return false;
	}
	return true;
}

/* A copy's access outside the shape: a store does nothing, a load gives 0. */
static LStmt *
masked_one(LStmt *s)
{
	LStmt *g = pool_alloc(sizeof *g);
	g->kind = L_IF;
	g->loc = s->loc;
	g->comment = s->comment;
	s->comment = NULL;
	g->cond = bounds_test(&(List){.v = (void **)&s, .n = 1}, 0, 1);
	list_push(&g->body, s);
	if (s->kind == L_REG_STORE)
		list_push(&g->els, zero_load(s));
	return g;
}

/* A vector access of a copy that may cross the tensor's edge, or whose alignment is known only at
 * run time: the vector where it lies inside and is aligned, else element by element; a vector that
 * lies whole inside or outside (whole_vector) has no elements to do one by one: outside, a store does
 * nothing and a load gives 0. */
static LStmt *
vector_guard(List *list, int i, int n, IExpr *align_rest)
{
	LStmt *s = LIST_AT(*list, LStmt, i);
	LStmt *g = pool_alloc(sizeof *g);
	g->kind = L_IF;
	g->loc = s->loc;
	g->cond = bounds_test(list, i, n);
	if (align_rest)
		conjoin(&g->cond, ie_binary(OP_EQ, ie_binary(OP_BITAND, ie_convert(align_rest, T_I32), ie_int(n - 1, T_I32)),
		                            ie_int(0, T_I32)));
	bool whole = !align_rest && whole_vector(list, i, n);
	g->comment = s->comment;
	for (int k = 0; k < n; k++) {
		LStmt *one = pool_alloc(sizeof *one);
		*one = *LIST_AT(*list, LStmt, i + k);
		one->vec = 0;
		one->comment = NULL;
		if (!whole)
			list_push(&g->els, one->mask_lo | one->mask_hi ? masked_one(one) : one);
		else if (one->kind == L_REG_STORE)
			list_push(&g->els, zero_load(one));
		list_push(&g->body, LIST_AT(*list, LStmt, i + k));
	}
	s->comment = NULL;
	return g;
}

/* Unrolled iterations are blocks: those that declare nothing join the enclosing list, so that
 * runs can span iterations. */
static void
flatten(List *out, const List *list)
{
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_BLOCK && !s->comment && !ir_declares(&s->body))
			flatten(out, &s->body);
		else
			list_push(out, s);
	}
}

/* Where the value of each register word last came from, in program order: the instruction that
 * wrote it (a number) and its place in that instruction's register list. A vector store of register
 * words needs them in consecutive registers, which ptxas gives for free only when one instruction
 * wrote them so (a tcgen05.ld, a vector load); words written apart would be copied together. */
typedef struct Def {
	const Tensor *t;
	int word, id, pos;
} Def;

static List defs; /* Def* */
static int def_ids;

static Def *
def_of(const Tensor *t, int word)
{
	for (int i = 0; i < defs.n; i++) {
		Def *d = LIST_AT(defs, Def, i);
		if (d->t == t && d->word == word)
			return d;
	}
	Def *d = pool_alloc(sizeof *d);
	d->t = t;
	d->word = word;
	list_push(&defs, d);
	return d;
}

static void
define(const Tensor *t, int word, int id, int pos)
{
	Def *d = def_of(t, word);
	d->id = id;
	d->pos = pos;
}

static void
track(const LStmt *s)
{
	if (tc_loads(s)) {
		int id = ++def_ids;
		for (int r = 0; r < tc_nregs(s); r++)
			define(tc_reg(s, r)->tensor, tc_reg(s, r)->word, id, r);
		const LOperand *red = tc_operand(s, IO_REG);
		if (red)
			define(red->regs[0].tensor, red->regs[0].word, ++def_ids, 0);
	} else if (s->kind == L_COPY) {
		Def *from = def_of(s->regs[1].tensor, s->regs[1].word);
		define(s->regs[0].tensor, s->regs[0].word, from->id, from->pos);
	} else if (s->kind == L_REG_STORE) {
		int bits = etype_bits(s->tensor->type);
		define(s->tensor, s->slot * bits / 32, ++def_ids, 0);
	}
}

/* Whether register words w0 .. w0 + n - 1 of t were written together, in this order. */
static bool
written_together(const Tensor *t, int w0, int n)
{
	const Def *first = def_of(t, w0);
	if (!first->id)
		return false;
	for (int k = 1; k < n; k++) {
		const Def *d = def_of(t, w0 + k);
		if (d->id != first->id || d->pos != first->pos + k)
			return false;
	}
	return true;
}

/* ---------------------------------------------------------------- warp dispatches */

/* Whether cond is warp_id == K (through lets), and K. */
static bool
warp_test(const IExpr *cond, int64_t *k)
{
	if (cond->kind != IE_BINARY || cond->op != OP_EQ || !ie_is_const(cond->b, k))
		return false;
	const IExpr *x = cond->a;
	while (x->kind == IE_VAR && x->var->is_let && x->var->def)
		x = x->var->def;
	return x->kind == IE_BUILTIN && x->builtin == B_WARP_ID;
}

bool
ie_warp_test(const IExpr *cond, int64_t *k)
{
	return warp_test(cond, k);
}

/* An if / else-if chain on the warp index with no final else: each arm runs on one warp. */
static bool
is_dispatch(const LStmt *s)
{
	int64_t k;
	if (s->kind != L_IF || !warp_test(s->cond, &k))
		return false;
	if (!s->els.n)
		return true;
	const LStmt *e = LIST_AT(s->els, LStmt, 0);
	return s->els.n == 1 && !e->comment && is_dispatch(e);
}

typedef struct Arm {
	int64_t warp;
	IExpr *cond;
	Loc loc;
	List body; /* LStmt* */
} Arm;

static void
add_arms(List *arms, const LStmt *s)
{
	for (; s; s = s->els.n ? LIST_AT(s->els, LStmt, 0) : NULL) {
		int64_t k;
		warp_test(s->cond, &k);
		Arm *a = NULL;
		for (int i = 0; i < arms->n && !a; i++)
			if (LIST_AT(*arms, Arm, i)->warp == k)
				a = LIST_AT(*arms, Arm, i);
		if (!a) {
			a = pool_alloc(sizeof *a);
			a->warp = k;
			a->cond = s->cond;
			a->loc = s->loc;
			list_push(arms, a);
		}
		for (int i = 0; i < s->body.n; i++)
			list_push(&a->body, s->body.v[i]);
	}
}

/* Consecutive dispatches on the warp index become one chain, each warp's arms in their order (a
 * warp runs only its own arm of each, so this runs the same code): the values an arm computes for
 * a later one (loads for the staging copies of an apply whose registers differ per warp, copies
 * out for the stores after it) then live inside one branch, not across the whole chain. Register
 * declarations between them move up front. */
static void
merge_dispatches(List *list)
{
	List out = {0};
	for (int i = 0; i < list->n;) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (!is_dispatch(s)) {
			list_push(&out, s);
			i++;
			continue;
		}
		List arms = {0}, decls = {0};
		int j = i, merged = 0;
		for (; j < list->n; j++) {
			LStmt *t = LIST_AT(*list, LStmt, j);
			if (is_dispatch(t) && (j == i || !t->comment)) {
				add_arms(&arms, t);
				merged++;
			} else if (t->kind == L_REGS) {
				list_push(&decls, t);
			} else {
				break;
			}
		}
		if (merged < 2) {
			list_push(&out, s);
			i++;
			continue;
		}
		for (int k = 0; k < decls.n; k++)
			list_push(&out, decls.v[k]);
		LStmt *top = NULL, *prev = NULL;
		for (int k = 0; k < arms.n; k++) {
			Arm *a = LIST_AT(arms, Arm, k);
			LStmt *c = pool_alloc(sizeof *c);
			c->kind = L_IF;
			c->loc = a->loc;
			c->cond = a->cond;
			c->body = a->body;
			if (prev)
				list_push(&prev->els, c);
			else
				top = c;
			prev = c;
		}
		top->comment = s->comment;
		list_push(&out, top);
		i = j;
	}
	*list = out;
}

/* ---------------------------------------------------------------- per-warp registers */

/* A local tensor whose words are used only inside branches on the warp index keeps, in each warp,
 * only the words that warp uses, in their order: examples/per_warp_slots.tile gives each thread 32
 * slots and warp w uses slots 8w .. 8w + 7, which become its words 0 .. 7. Registers are per thread,
 * so each warp's words may be numbered apart; the branches of different warps then often move the
 * same words, and uniform_dispatches() makes them one. */
typedef struct WarpUse {
	Tensor *t;
	bool bad;      /* a use where the warp is not known, or the tensor is a device function's */
	bool outside;  /* stores of values (no register read) outside the branches: see outside_run */
	uint8_t *used; /* [warp * words + word] */
	int *map;      /* [warp * words + word]: the word it becomes */
} WarpUse;

static List warp_uses; /* WarpUse* */
static IExpr *warp_value; /* the warp index that a template of per-warp code (generalize) names */
static bool generalize_list(List *out, const List *a, const List *b, int64_t ka, int64_t kb);
static bool list_in_warp(const List *t, const List *s, int64_t w);
static int nwarps;

static WarpUse *
warp_use(const Tensor *t)
{
	for (int i = 0; i < warp_uses.n; i++)
		if (LIST_AT(warp_uses, WarpUse, i)->t == t)
			return LIST_AT(warp_uses, WarpUse, i);
	WarpUse *u = pool_alloc(sizeof *u);
	u->t = (Tensor *)t;
	u->used = pool_alloc((size_t)nwarps * (size_t)t->words + 1);
	list_push(&warp_uses, u);
	return u;
}

static void
use_word(const Tensor *t, int word, int warp)
{
	WarpUse *u = warp_use(t);
	if (warp < 0 || warp >= nwarps)
		u->bad = true;
	else
		u->used[warp * t->words + word] = 1;
}

static void
use_expr(const IExpr *e, int warp)
{
	if (!e)
		return;
	if (e->kind == IE_REG)
		use_word(e->tensor, e->slot * etype_bits(e->tensor->type) / 32, warp);
	if (e->kind == IE_LOAD && e->coords)
		for (int d = 0; d < e->tensor->rank; d++)
			use_expr(e->coords[d], warp);
	use_expr(e->a, warp);
	use_expr(e->b, warp);
	use_expr(e->index, warp);
}

/* The warp that runs the body of s, in statements that warp runs (-1: not known): K in an if on
 * warp_id == K. */
static int
body_warp(const LStmt *s, int warp)
{
	int64_t k;
	return s->kind == L_IF && warp_test(s->cond, &k) && k >= 0 && k < nwarps ? (int)k : warp;
}

/* The warp that runs the statements of list: -1 where it is not known. */
static void
use_list(const List *list, int warp)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_REG_STORE && warp < 0 && !reads_registers(s->value))
			warp_use(s->tensor)->outside = true;
		else if (s->kind == L_REG_STORE)
			use_word(s->tensor, s->slot * etype_bits(s->tensor->type) / 32, warp);
		for (int r = 0; r < tc_nregs(s); r++)
			use_word(tc_reg(s, r)->tensor, tc_reg(s, r)->word, warp);
		if (s->kind == L_COPY)
			for (int r = 0; r < 2; r++)
				use_word(s->regs[r].tensor, s->regs[r].word, warp);
		for (int a = 0; s->call && a < s->call->nargs; a++)
			if (s->call->tensors[a] && s->call->tensors[a]->kind == TK_LOCAL)
				warp_use(s->call->tensors[a])->bad = true;
		if (s->kind == L_STORE && s->coords)
			for (int d = 0; d < s->tensor->rank; d++)
				use_expr(s->coords[d], warp);
		use_expr(s->value, warp);
		use_expr(s->index, warp);
		use_expr(s->cond, warp);
		use_expr(s->lo, warp);
		use_expr(s->hi, warp);
		use_expr(tc_addr(s), warp);
		use_list(&s->body, body_warp(s, warp));
		use_list(&s->els, warp);
	}
}

static int
new_word(const Tensor *t, int word, int warp)
{
	WarpUse *u = warp_use(t);
	return u->map && warp >= 0 ? u->map[warp * t->words + word] : word;
}

static const ViewAt *remap_view_at(const ViewAt *v, int warp);
static IExpr *
remap_expr(IExpr *e, int warp)
{
	if (!e)
		return NULL;
	IExpr *a = remap_expr(e->a, warp), *b = remap_expr(e->b, warp), *index = remap_expr(e->index, warp);
	int slot = e->slot;
	if (e->kind == IE_REG) {
		int per = 32 / etype_bits(e->tensor->type);
		slot = new_word(e->tensor, e->slot / per, warp) * per + e->slot % per;
	}
	IExpr **coords = e->coords;
	if (e->kind == IE_LOAD && e->coords) {
		coords = pool_alloc((size_t)e->tensor->rank * sizeof *coords);
		for (int d = 0; d < e->tensor->rank; d++)
			coords[d] = remap_expr(e->coords[d], warp);
	}
	const ViewAt *view_at = remap_view_at(e->view_at, warp);
	if (a == e->a && b == e->b && index == e->index && slot == e->slot && view_at == e->view_at &&
	    (!coords || !memcmp(coords, e->coords, (size_t)e->tensor->rank * sizeof *coords)))
		return e;
	IExpr *c = ie_with_children(e, a, b, index);
	c->slot = slot;
	c->coords = coords;
	c->view_at = view_at;
	return c;
}

/* A view access's indices (ViewAt) in the words warp keeps; v itself when they read no register. */
static const ViewAt *
remap_view_at(const ViewAt *v, int warp)
{
	if (!v)
		return NULL;
	ViewAt *r = pool_alloc(sizeof *r);
	*r = *v;
	bool same = true;
	for (int i = 0; i < v->rank; i++) {
		r->at[i] = remap_expr(v->at[i], warp);
		same = same && r->at[i] == v->at[i];
	}
	return same ? v : r;
}

/* Stores of values into a remapped tensor outside the branches (where every warp runs them), from
 * list[i] on: the run of them, up to *end, when the words each warp keeps receive the same values
 * in the same order in every warp that keeps words of the tensor (the clear loop `for j in 0..32 {
 * mine[j] = 0.0; }` before per-warp code: in every warp, its 8 words are zeroed). The other stores
 * of the run write words that warp never reads. Returns the run's statements for the warps, or
 * NULL (with *end) when they differ. */
static List *
outside_run(const List *list, int i, int *end)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	WarpUse *u = warp_use(s->tensor);
	int per = 32 / etype_bits(s->tensor->type);
	for (*end = i; *end < list->n; (*end)++) {
		const LStmt *t = LIST_AT(*list, LStmt, *end);
		if (t->kind != L_REG_STORE || t->tensor != s->tensor || reads_registers(t->value))
			break;
	}
	List **mine = pool_alloc((size_t)nwarps * sizeof *mine), *seq = NULL;
	int keeping = 0;
	bool same = true;
	for (int w = 0; w < nwarps; w++) {
		bool keeps = false; /* a warp that keeps no word of the tensor never reads what the run writes */
		for (int x = 0; x < s->tensor->words && !keeps; x++)
			keeps = u->used[w * s->tensor->words + x];
		if (!keeps)
			continue;
		keeping++;
		mine[w] = pool_alloc(sizeof *mine[w]);
		for (int j = i; j < *end; j++) {
			const LStmt *t = LIST_AT(*list, LStmt, j);
			int word = t->slot / per;
			if (!u->used[w * s->tensor->words + word])
				continue;
			LStmt *c = pool_alloc(sizeof *c);
			*c = *t;
			c->slot = u->map[w * s->tensor->words + word] * per + t->slot % per;
			list_push(mine[w], c);
		}
		if (!seq) {
			seq = mine[w];
			continue;
		}
		same = same && seq->n == mine[w]->n;
		for (int j = 0; same && j < seq->n; j++) {
			const LStmt *a = LIST_AT(*seq, LStmt, j), *b = LIST_AT(*mine[w], LStmt, j);
			same = a->slot == b->slot && ie_equal(a->value, b->value);
		}
	}
	if (same)
		return seq ? seq : pool_alloc(sizeof *seq);
	/* values that step with the warp (`mine[j] = A[j / 8, lane, j % 8]`: warp t loads tile t) as a
	 * template of the warp index, when every warp keeps words: a warp that keeps none would read
	 * where the program never does */
	if (keeping < nwarps || nwarps < 2)
		return NULL;
	List *g = pool_alloc(sizeof *g);
	warp_value = ie_builtin(B_WARP_ID);
	if (!generalize_list(g, mine[nwarps - 2], mine[nwarps - 1], nwarps - 2, nwarps - 1))
		return NULL;
	for (int w = 0; w < nwarps; w++)
		if (!list_in_warp(g, mine[w], w))
			return NULL;
	return g;
}

/* Marks bad the remapped tensors whose stores outside the branches are not uniform runs. */
static void
check_outside(const List *list, int warp)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (warp < 0 && s->kind == L_REG_STORE && warp_use(s->tensor)->map) {
			int end;
			if (!outside_run(list, i, &end)) {
				warp_use(s->tensor)->map = NULL;
				warp_use(s->tensor)->bad = true;
			}
			i = end - 1;
			continue;
		}
		check_outside(&s->body, body_warp(s, warp));
		check_outside(&s->els, warp);
	}
}

/* A copy of n register references with warp's words. */
static RegRef *
remap_regs(const RegRef *from, int n, int warp)
{
	RegRef *regs = pool_alloc((size_t)n * sizeof *regs);
	for (int r = 0; r < n; r++) {
		regs[r] = from[r];
		regs[r].word = new_word(regs[r].tensor, regs[r].word, warp);
	}
	return regs;
}

static void
remap_list(List *list, int warp)
{
	List out = {0};
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (warp < 0 && s->kind == L_REG_STORE && warp_use(s->tensor)->map) {
			int end;
			List *seq = outside_run(list, i, &end);
			for (int j = 0; j < seq->n; j++)
				list_push(&out, seq->v[j]);
			i = end - 1;
			continue;
		}
		list_push(&out, s);
		if (s->kind == L_REG_STORE) {
			int per = 32 / etype_bits(s->tensor->type);
			s->slot = new_word(s->tensor, s->slot / per, warp) * per + s->slot % per;
		}
		if (s->kind == L_COPY)
			s->regs = remap_regs(s->regs, 2, warp);
		if (s->nops) {
			/* fresh arrays: the copies of the statement for other warps share the old ones */
			LOperand *ops = pool_alloc(ISA_MAX_OPERANDS * sizeof *ops);
			for (int k = 0; k < s->nops; k++) {
				ops[k] = s->ops[k];
				ops[k].addr = remap_expr(ops[k].addr, warp);
				if (ops[k].regs)
					ops[k].regs = remap_regs(ops[k].regs, ops[k].nregs, warp);
			}
			s->ops = ops;
		}
		if (s->kind == L_STORE && s->coords) {
			IExpr **coords = pool_alloc((size_t)s->tensor->rank * sizeof *coords);
			for (int d = 0; d < s->tensor->rank; d++)
				coords[d] = remap_expr(s->coords[d], warp);
			s->coords = coords;
		}
		s->view_at = remap_view_at(s->view_at, warp);
		s->value = remap_expr(s->value, warp);
		s->index = remap_expr(s->index, warp);
		s->mbar = remap_expr(s->mbar, warp); /* an L_MBAR's address holds its index */
		s->cond = remap_expr(s->cond, warp);
		s->lo = remap_expr(s->lo, warp);
		s->hi = remap_expr(s->hi, warp);
		remap_list(&s->body, body_warp(s, warp));
		remap_list(&s->els, warp);
	}
	*list = out;
}

static void flatten(List *out, const List *list);

/* flatten() everywhere, as dispatch_list() does it: the runs of outside_run span the iterations. */
static void
flatten_all(List *list)
{
	List flat = {0};
	flatten(&flat, list);
	*list = flat;
	for (int i = 0; i < list->n; i++) {
		flatten_all(&LIST_AT(*list, LStmt, i)->body);
		flatten_all(&LIST_AT(*list, LStmt, i)->els);
	}
}

void
per_warp_registers(KernelIR *k)
{
	warp_uses = (List){0};
	flatten_all(&k->body);
	nwarps = (k->threads + 31) / 32;
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		if (dp->kind == PK_LOCAL)
			warp_use(dp->tensor)->bad = true;
	}
	use_list(&k->body, -1);
	bool any = false;
	for (int i = 0; i < warp_uses.n; i++) {
		WarpUse *u = LIST_AT(warp_uses, WarpUse, i);
		int most = 0, words = u->t->words;
		for (int w = 0; w < nwarps && !u->bad; w++) {
			int n = 0;
			for (int x = 0; x < words; x++)
				n += u->used[w * words + x];
			most = n > most ? n : most;
		}
		if (u->bad || u->t->kind != TK_LOCAL || most >= words)
			continue;
		u->map = pool_alloc((size_t)nwarps * (size_t)words * sizeof *u->map);
		for (int w = 0; w < nwarps; w++)
			for (int x = 0, n = 0; x < words; x++)
				u->map[w * words + x] = u->used[w * words + x] ? n++ : 0;
		any = true;
	}
	if (any)
		check_outside(&k->body, -1);
	if (any)
		remap_list(&k->body, -1);
	for (int i = 0; i < warp_uses.n; i++) {
		WarpUse *u = LIST_AT(warp_uses, WarpUse, i);
		if (u->map) {
			int most = 0;
			for (int x = 0; x < nwarps * u->t->words; x++)
				most = u->map[x] + 1 > most ? u->map[x] + 1 : most;
			u->t->words = most;
		}
	}
}

/* ---------------------------------------------------------------- uniform dispatches */

/* A chain of branches on the warp index whose arms do the same but for constants that grow with
 * the warp (after per_warp_registers, the loop `for t in 0..4 { if (warp == t) { mine[8 * t + c] =
 * A[t, lane, c]; } }` unrolled) becomes one body in which the warp index stands for them: one
 * instruction stream instead of a branch per warp, as a hand-written kernel has it. */

static bool
int_type(EType t)
{
	return t == T_I32 || t == T_U32 || t == T_I64;
}

/* Whether e is the warp index (through lets and integer conversions). */
static bool
is_warp(const IExpr *e)
{
	for (;;) {
		if (e->kind == IE_VAR && e->var->is_let && e->var->def)
			e = e->var->def;
		else if (e->kind == IE_CONV && int_type(e->to) && int_type(e->a->type))
			e = e->a;
		else
			return e->kind == IE_BUILTIN && e->builtin == B_WARP_ID;
	}
}

/* An integer value as a sum of terms (atom times coefficient) and a constant; with subst, the warp
 * index is the constant warp. */
enum { LIN_MAX = 8 };
typedef struct Lin {
	int n;
	const IExpr *atom[LIN_MAX];
	int64_t coef[LIN_MAX];
	int64_t c;
} Lin;

static bool
lin_add(Lin *l, const IExpr *e, int64_t scale, bool subst, int64_t warp)
{
	int64_t v;
	if (ie_is_const(e, &v)) {
		l->c += scale * v;
		return true;
	}
	if (subst && is_warp(e)) {
		l->c += scale * warp;
		return true;
	}
	if (e->kind == IE_BINARY && e->a->type == e->type && (e->op == OP_ADD || e->op == OP_SUB) && e->b->type == e->type)
		return lin_add(l, e->a, scale, subst, warp) &&
		       lin_add(l, e->b, e->op == OP_ADD ? scale : -scale, subst, warp);
	if (e->kind == IE_BINARY && e->op == OP_MUL && e->a->type == e->type && e->b->type == e->type) {
		if (ie_is_const(e->b, &v))
			return lin_add(l, e->a, scale * v, subst, warp);
		if (ie_is_const(e->a, &v))
			return lin_add(l, e->b, scale * v, subst, warp);
	}
	if (e->kind == IE_BINARY && e->op == OP_SHL && e->a->type == e->type && ie_is_const(e->b, &v) && v >= 0 && v < 31)
		return lin_add(l, e->a, scale * ((int64_t)1 << v), subst, warp);
	if (e->kind == IE_UNARY && e->op == OP_NEG && e->a->type == e->type)
		return lin_add(l, e->a, -scale, subst, warp);
	for (int i = 0; i < l->n; i++)
		if (ie_equal(l->atom[i], e)) {
			l->coef[i] += scale;
			return true;
		}
	if (l->n == LIN_MAX)
		return false;
	l->atom[l->n] = e;
	l->coef[l->n++] = scale;
	return true;
}

static bool
lin_of(const IExpr *e, Lin *l, bool subst, int64_t warp)
{
	*l = (Lin){0};
	return int_type(e->type) && (e->type == T_I64 || e->type == T_I32 || e->type == T_U32) &&
	       lin_add(l, e, 1, subst, warp);
}

/* Equal as values of type t (32-bit ones modulo 2^32). */
static bool
same_value(int64_t a, int64_t b, EType t)
{
	return t == T_I64 ? a == b : (uint32_t)a == (uint32_t)b;
}

static int64_t
coef_of(const Lin *l, const IExpr *atom)
{
	int64_t c = 0;
	for (int i = 0; i < l->n; i++)
		if (ie_equal(l->atom[i], atom))
			c += l->coef[i];
	return c;
}

/* Whether a and b have the same terms. */
static bool
same_terms(const Lin *a, const Lin *b, EType t)
{
	for (int i = 0; i < a->n; i++)
		if (!same_value(coef_of(a, a->atom[i]), coef_of(b, a->atom[i]), t))
			return false;
	for (int i = 0; i < b->n; i++)
		if (!same_value(coef_of(a, b->atom[i]), coef_of(b, b->atom[i]), t))
			return false;
	return true;
}

static int64_t
signed_value(int64_t v, EType t)
{
	return t == T_I64 ? v : (int64_t)(int32_t)(uint32_t)v;
}

static IExpr *
lin_term(IExpr *sum, IExpr *atom, int64_t coef, EType t)
{
	coef = signed_value(coef, t);
	if (!coef)
		return sum;
	int64_t mag = coef < 0 ? -coef : coef;
	IExpr *term = mag == 1 ? atom : ie_binary(OP_MUL, atom, ie_int(mag, t));
	if (!sum)
		return coef < 0 ? ie_binary(OP_SUB, ie_int(0, t), term) : term;
	return ie_binary(coef < 0 ? OP_SUB : OP_ADD, sum, term);
}


/* The template of a (in the arm of warp ka) and b (warp kb): equal parts as they are, integer
 * values that differ by a multiple of kb - ka as a term of the warp index. */
static const ViewAt *generalize_view_at(const ViewAt *a, const ViewAt *b, int64_t ka, int64_t kb);

static IExpr *
generalize(IExpr *a, IExpr *b, int64_t ka, int64_t kb)
{
	if (!a || !b)
		return a == b ? a : NULL;
	if (ie_equal(a, b))
		return a;
	Lin la, lb;
	if (a->type == b->type && lin_of(a, &la, false, 0) && lin_of(b, &lb, false, 0) && same_terms(&la, &lb, a->type)) {
		int64_t d = signed_value(lb.c - la.c, a->type);
		if (d % (kb - ka))
			return NULL;
		int64_t slope = d / (kb - ka);
		IExpr *sum = NULL;
		for (int i = 0; i < la.n; i++) {
			bool first = true;
			for (int j = 0; j < i && first; j++)
				first = !ie_equal(la.atom[j], la.atom[i]);
			if (first)
				sum = lin_term(sum, (IExpr *)la.atom[i], coef_of(&la, la.atom[i]), a->type);
		}
		sum = lin_term(sum, ie_convert(warp_value, a->type), slope, a->type);
		int64_t c = signed_value(la.c - slope * ka, a->type);
		if (!sum)
			return ie_int(c, a->type);
		return c ? ie_binary(c < 0 ? OP_SUB : OP_ADD, sum, ie_int(c < 0 ? -c : c, a->type)) : sum;
	}
	if (a->kind != b->kind || a->type != b->type || a->op != b->op || a->to != b->to || a->fn != b->fn ||
	    a->var != b->var || a->builtin != b->builtin || a->tensor != b->tensor || a->slot != b->slot ||
	    a->kind == IE_INT || a->kind == IE_FLOAT || !a->coords != !b->coords || !a->view_at != !b->view_at)
		return NULL;
	IExpr *g = pool_alloc(sizeof *g);
	*g = *a;
	g->a = generalize(a->a, b->a, ka, kb);
	g->b = generalize(a->b, b->b, ka, kb);
	g->index = generalize(a->index, b->index, ka, kb);
	if ((a->a && !g->a) || (a->b && !g->b) || (a->index && !g->index))
		return NULL;
	if (a->coords) {
		g->coords = pool_alloc((size_t)a->tensor->rank * sizeof *g->coords);
		for (int d = 0; d < a->tensor->rank; d++)
			if (!(g->coords[d] = generalize(a->coords[d], b->coords[d], ka, kb)))
				return NULL;
	}
	if (a->view_at && !(g->view_at = generalize_view_at(a->view_at, b->view_at, ka, kb)))
		return NULL;
	return g;
}

/* The template of two view accesses (ViewAt) of the same view, as generalize; NULL when they differ. */
static const ViewAt *
generalize_view_at(const ViewAt *a, const ViewAt *b, int64_t ka, int64_t kb)
{
	if (!view_at_same(a, b))
		return NULL;
	ViewAt *g = pool_alloc(sizeof *g);
	*g = *a;
	for (int i = 0; i < a->rank; i++)
		if (!(g->at[i] = generalize(a->at[i], b->at[i], ka, kb)))
			return NULL;
	return g;
}

static bool view_at_in_warp(const ViewAt *t, const ViewAt *e, int64_t w);

/* Whether template t computes, in the warp w, what e computes there. */
static bool
same_in_warp(const IExpr *t, const IExpr *e, int64_t w)
{
	if (!t || !e)
		return t == e;
	if (ie_equal(t, e))
		return true;
	Lin lt, le;
	if (t->type == e->type && lin_of(t, &lt, true, w) && lin_of(e, &le, true, w) && same_terms(&lt, &le, t->type) &&
	    same_value(lt.c, le.c, t->type))
		return true;
	if (t->kind != e->kind || t->type != e->type || t->op != e->op || t->to != e->to || t->fn != e->fn ||
	    t->var != e->var || t->builtin != e->builtin || t->tensor != e->tensor || t->slot != e->slot ||
	    t->kind == IE_INT || t->kind == IE_FLOAT || !t->coords != !e->coords)
		return false;
	if (!same_in_warp(t->a, e->a, w) || !same_in_warp(t->b, e->b, w) || !same_in_warp(t->index, e->index, w))
		return false;
	for (int d = 0; t->coords && d < t->tensor->rank; d++)
		if (!same_in_warp(t->coords[d], e->coords[d], w))
			return false;
	return view_at_in_warp(t->view_at, e->view_at, w);
}

/* same_in_warp for the view accesses (ViewAt) of a template and of an arm. */
static bool
view_at_in_warp(const ViewAt *t, const ViewAt *e, int64_t w)
{
	if (!t || !e)
		return t == e;
	if (!view_at_same(t, e))
		return false;
	for (int i = 0; i < t->rank; i++)
		if (!same_in_warp(t->at[i], e->at[i], w))
			return false;
	return true;
}

/* Whether two register lists name the same words. */
static bool
same_regs(const RegRef *a, const RegRef *b, int na, int nb)
{
	if (na != nb)
		return false;
	for (int r = 0; r < na; r++)
		if (a[r].tensor != b[r].tensor || a[r].word != b[r].word)
			return false;
	return true;
}

/* Whether a and b are the same statement but for their expressions. */
static bool
same_shape(const LStmt *a, const LStmt *b)
{
	if (a->kind != b->kind || a->var != b->var || a->tensor != b->tensor || a->slot != b->slot || a->instr != b->instr ||
	    a->cta_group != b->cta_group || memcmp(&a->op, &b->op, sizeof a->op) || a->nops != b->nops ||
	    a->mask_lo != b->mask_lo || a->mask_hi != b->mask_hi ||
	    a->align_test != b->align_test || a->owner_test != b->owner_test || a->call || b->call ||
	    a->vec != b->vec || a->body.n != b->body.n || a->els.n != b->els.n || !a->coords != !b->coords ||
	    a->mbar_op != b->mbar_op || a->mbar_elect != b->mbar_elect ||
	    !a->view_at != !b->view_at ||
	    !a->value != !b->value || !a->index != !b->index || !a->cond != !b->cond || !a->lo != !b->lo ||
	    !a->hi != !b->hi || !a->comment != !b->comment || (a->comment && strcmp(a->comment, b->comment)))
		return false;
	for (int k = 0; k < a->nops; k++) {
		const LOperand *x = &a->ops[k], *y = &b->ops[k];
		if (x->slot != y->slot || x->imm != y->imm || !x->addr != !y->addr || !same_regs(x->regs, y->regs, x->nregs, y->nregs))
			return false;
	}
	return a->kind != L_COPY || same_regs(a->regs, b->regs, 2, 2);
}


static LStmt *
generalize_stmt(const LStmt *a, const LStmt *b, int64_t ka, int64_t kb)
{
	if (!same_shape(a, b))
		return NULL;
	LStmt *g = pool_alloc(sizeof *g);
	*g = *a;
	g->body = g->els = (List){0};
#define GEN(f)                                                  \
	do {                                                    \
		g->f = generalize(a->f, b->f, ka, kb);          \
		if (a->f && !g->f)                              \
			return NULL;                            \
	} while (0)
	GEN(value);
	GEN(index);
	GEN(cond);
	GEN(lo);
	GEN(hi);
	GEN(mbar); /* an L_MBAR's address holds its index: generalized with it */
#undef GEN
	if (a->nops) {
		g->ops = pool_alloc(ISA_MAX_OPERANDS * sizeof *g->ops);
		for (int k = 0; k < a->nops; k++) {
			g->ops[k] = a->ops[k];
			g->ops[k].addr = generalize(a->ops[k].addr, b->ops[k].addr, ka, kb);
			if (a->ops[k].addr && !g->ops[k].addr)
				return NULL;
		}
	}
	if (a->coords) {
		g->coords = pool_alloc((size_t)a->tensor->rank * sizeof *g->coords);
		for (int d = 0; d < a->tensor->rank; d++)
			if (!(g->coords[d] = generalize(a->coords[d], b->coords[d], ka, kb)))
				return NULL;
	}
	if (a->view_at && !(g->view_at = generalize_view_at(a->view_at, b->view_at, ka, kb)))
		return NULL;
	if (!generalize_list(&g->body, &a->body, &b->body, ka, kb) || !generalize_list(&g->els, &a->els, &b->els, ka, kb))
		return NULL;
	return g;
}

static bool
generalize_list(List *out, const List *a, const List *b, int64_t ka, int64_t kb)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		LStmt *g = generalize_stmt(LIST_AT(*a, LStmt, i), LIST_AT(*b, LStmt, i), ka, kb);
		if (!g)
			return false;
		list_push(out, g);
	}
	return true;
}

static bool
list_in_warp(const List *t, const List *s, int64_t w)
{
	if (t->n != s->n)
		return false;
	for (int i = 0; i < t->n; i++) {
		const LStmt *a = LIST_AT(*t, LStmt, i), *b = LIST_AT(*s, LStmt, i);
		if (!same_shape(a, b) || !same_in_warp(a->value, b->value, w) || !same_in_warp(a->index, b->index, w) ||
		    !same_in_warp(a->cond, b->cond, w) || !same_in_warp(a->lo, b->lo, w) ||
		    !same_in_warp(a->hi, b->hi, w) || !same_in_warp(tc_addr(a), tc_addr(b), w) ||
		    !same_in_warp(a->mbar, b->mbar, w) ||
		    !list_in_warp(&a->body, &b->body, w) || !list_in_warp(&a->els, &b->els, w))
			return false;
		for (int d = 0; a->coords && d < a->tensor->rank; d++)
			if (!same_in_warp(a->coords[d], b->coords[d], w))
				return false;
		if (!view_at_in_warp(a->view_at, b->view_at, w))
			return false;
	}
	return true;
}

/* The statements that replace dispatch s: its arms' template, for every warp when the arms are
 * those of all warps, else behind one test of the warp's range. NULL when the arms differ. */
static LStmt *
uniform_dispatch(LStmt *s)
{
	List arms = {0};
	add_arms(&arms, s);
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (int i = 0; i < arms.n; i++) {
		int64_t w = LIST_AT(arms, Arm, i)->warp;
		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
	}
	if (arms.n < 2 || hi - lo + 1 != arms.n || lo < 0 || hi >= nwarps)
		return NULL;
	const Arm *a = NULL, *b = NULL; /* the two last warps: the first may have folded its constants away */
	for (int i = 0; i < arms.n; i++) {
		const Arm *x = LIST_AT(arms, Arm, i);
		if (x->warp == hi)
			b = x;
		if (x->warp == hi - 1)
			a = x;
	}
	warp_value = s->cond->a;
	LStmt *g = pool_alloc(sizeof *g);
	g->kind = L_BLOCK;
	g->loc = s->loc;
	g->comment = s->comment;
	if (!generalize_list(&g->body, &a->body, &b->body, a->warp, b->warp))
		return NULL;
	for (int i = 0; i < arms.n; i++)
		if (!list_in_warp(&g->body, &LIST_AT(arms, Arm, i)->body, LIST_AT(arms, Arm, i)->warp))
			return NULL;
	if (lo == 0 && hi == nwarps - 1)
		return g;
	g->kind = L_IF;
	g->cond = ie_binary(OP_LT, warp_value, ie_int(hi + 1, warp_value->type));
	if (lo > 0)
		g->cond = ie_binary(OP_LAND, ie_binary(OP_GE, warp_value, ie_int(lo, warp_value->type)), g->cond);
	return g;
}

static void
uniform_dispatches(List *list)
{
	List out = {0};
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i), *u = is_dispatch(s) ? uniform_dispatch(s) : NULL;
		list_push(&out, u ? u : s);
	}
	*list = (List){0};
	flatten(list, &out); /* a template of every warp joins the list, and so do its unrolled iterations */
}

/* ---------------------------------------------------------------- vector groups */

static const KernelIR *vector_kernel;

/* The conditions around the statement being vectorized: a thread runs it where each cond is want. */
enum { MAX_CONDS = 64 };
static const IExpr *around_cond[MAX_CONDS];
static bool around_want[MAX_CONDS];
static int n_around;
static int divergent_loops; /* loops around it whose bounds may differ between threads */

/* Whether thread t runs the statement inside the conditions around it (one tilec cannot evaluate for
   the thread, such as a test of a parameter, counts as taken). */
static bool
thread_runs(int t)
{
	for (int i = 0; i < n_around && i < MAX_CONDS; i++) {
		int64_t v;
		if (ie_eval_thread(around_cond[i], vector_kernel->block, t, &v) && (v != 0) != around_want[i])
			return false;
	}
	return true;
}

/* The byte addresses of warp wp's access at element index `index` of a tile of elem-byte elements
   (addr[lane]; -1: the lane does not run it). Returns 1, 0 when no lane of the warp runs it, -1 when
   some address cannot be evaluated (a loop variable, a parameter). */
static int
warp_addresses(const IExpr *index, int elem, int wp, int64_t addr[32])
{
	int threads = vector_kernel->threads, any = 0;
	for (int l = 0; l < 32; l++) {
		int t = wp * 32 + l;
		addr[l] = -1;
		if (t >= threads || !thread_runs(t))
			continue;
		int64_t e;
		if (!ie_eval_thread(index, vector_kernel->block, t, &e) || e < 0)
			return -1;
		addr[l] = e * elem;
		any = 1;
	}
	return any;
}

/* The wavefronts of every warp's access of `bytes` per thread at index (smem_banks.c), -1: unknown. */
static int
access_wavefronts(const IExpr *index, int elem, int bytes)
{
	int total = 0, degree;
	for (int wp = 0; wp < (vector_kernel->threads + 31) / 32; wp++) {
		int64_t addr[32];
		int got = warp_addresses(index, elem, wp, addr);
		if (got < 0)
			return -1;
		if (got)
			total += smem_wavefronts(addr, bytes, &degree);
	}
	return total;
}

/* For a store of n register words to a shared tile that separate instructions wrote: whether the
 * vector takes fewer wavefronts than the n stores would (bank conflicts the swizzle avoids for the
 * wider access, as an MN-major column of 16-bit elements loaded one by one from global memory). */
static bool
vector_saves_wavefronts(const List *list, int i, int n)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	if (!s->tensor->tile)
		return false;
	int elem = etype_bits(s->tensor->type) / 8, narrow = 0;
	int wide = access_wavefronts(s->index, elem, n * elem);
	for (int k = 0; k < n && wide >= 0; k++) {
		int w = access_wavefronts(LIST_AT(*list, LStmt, i + k)->index, elem, elem);
		if (w < 0)
			return false;
		narrow += w;
	}
	return wide >= 0 && wide < narrow;
}

/* group_at, and for a store of register words, only words that one instruction wrote
 * together, or into a shared tile where the vector takes fewer wavefronts. */
static int
vector_at(const List *list, int i, int bytes, IExpr **align_rest)
{
	const LStmt *s = LIST_AT(*list, LStmt, i);
	int n = group_at(list, i, bytes, align_rest);
	const IExpr *m = n && s->kind == L_STORE ? moved_bits(s->tensor->type, s->value) : NULL;
	/* a copy's store at run-time bounds keeps its vector even so: the tile of an epilogue is
	 * computed word by word, and the vector with its one test costs less than four stores with
	 * a test each (examples/gemm_epilogue.tile: 2704 SASS instructions against 2904) */
	if (m && m->kind == IE_REG) {
		int bits = etype_bits(m->tensor->type);
		if (!s->align_test && !written_together(m->tensor, m->slot * bits / 32, n * bits / 32) &&
		    !vector_saves_wavefronts(list, i, n))
			return 0;
	}
	return n;
}

/* ---------------------------------------------------------------- stmatrix / ldmatrix */

/* The PTX ISA's m8n8 x4 fragment of 16-bit elements: lane l's register word k holds two elements of
 * matrix k, and lanes 8k .. 8k + 7 give the shared addresses of matrix k's 8 rows of 16 bytes. Plain:
 * word k of lane l is row l / 4, columns 2 (l % 4) and + 1; .trans: column l / 4 of rows 2 (l % 4) and
 * + 1. A copy's 8 elements from a register slot that is a multiple of 8 are one instruction where every
 * lane's addresses are those, so tilec evaluates them for every thread (as the bank model does). */
enum { MATRIX_PLAIN = 1, MATRIX_TRANS = 2 };

/* e with the calling thread's lane replaced by `lane` (an expression of the thread): its thread index
 * changes by lane - lane_id, nothing else does (the block's x extent is a multiple of 32). NULL: e
 * reads something else of the thread (a variable, memory). */
static IExpr *
at_lane(const IExpr *e, IExpr *lane)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case IE_INT:
		return (IExpr *)e;
	case IE_BUILTIN:
		if (e->builtin == B_LANE_ID)
			return lane;
		if (e->builtin == B_THREAD_X)
			return ie_binary(OP_ADD, ie_binary(OP_SUB, (IExpr *)e, ie_builtin(B_LANE_ID)), lane);
		return (IExpr *)e;
	case IE_UNARY:
	case IE_BINARY:
	case IE_SELECT:
	case IE_CONV: {
		IExpr *a = at_lane(e->a, lane), *b = at_lane(e->b, lane), *index = at_lane(e->index, lane);
		if ((e->a && !a) || (e->b && !b) || (e->index && !index))
			return NULL;
		return ie_with_children(e, a, b, index);
	}
	default:
		return NULL;
	}
}

/* choices[c] for c = the value of `which` (0 .. n - 1), as a chain of selects. */
static IExpr *
select_of(IExpr *which, IExpr **choices, int n)
{
	IExpr *e = choices[n - 1];
	for (int c = n - 2; c >= 0; c--) {
		IExpr *s = ie_new(IE_SELECT, e->type);
		s->a = ie_binary(OP_EQ, which, ie_int(c, which->type));
		s->b = choices[c];
		s->index = e;
		e = s;
	}
	return e;
}

/* The element index whose address each lane gives: plain, matrix l / 8's row l % 8 is where lane
 * 4 (l % 8) has element 2 (l / 8) (its column 0); .trans, where lane (l % 8) / 2 has element 2 (l / 8) +
 * l % 2 (row l % 8 of the matrix, column 0). */
static IExpr *
matrix_row_index(const IExpr *const idx[8], int form)
{
	IExpr *lane = ie_builtin(B_LANE_ID), *row = ie_binary(OP_BITAND, lane, ie_int(7, T_I32));
	IExpr *source = form == MATRIX_PLAIN ? ie_binary(OP_MUL, row, ie_int(4, T_I32))
	                                     : ie_binary(OP_SHR, row, ie_int(1, T_I32));
	IExpr *choices[8];
	int n = form == MATRIX_PLAIN ? 4 : 8;
	for (int c = 0; c < n; c++)
		if (!(choices[c] = at_lane(idx[form == MATRIX_PLAIN ? 2 * c : c], source)))
			return NULL;
	IExpr *which = form == MATRIX_PLAIN
	                   ? ie_binary(OP_SHR, lane, ie_int(3, T_I32))
	                   : ie_binary(OP_BITOR, ie_binary(OP_SHL, ie_binary(OP_SHR, lane, ie_int(3, T_I32)), ie_int(1, T_I32)),
	                               ie_binary(OP_BITAND, lane, ie_int(1, T_I32)));
	return select_of(which, choices, n);
}

/* Whether warp addresses A (bytes, of elements 0 .. 7) are the fragment `form`; rows[k * 8 + r]: the
 * address of matrix k's row r. */
static bool
matrix_fragment(int64_t A[8][32], int form, int64_t rows[32])
{
	for (int k = 0; k < 4; k++)
		for (int r = 0; r < 8; r++) {
			int64_t a = form == MATRIX_PLAIN ? A[2 * k][4 * r] : A[2 * k + (r & 1)][r >> 1];
			if (a < 0 || a % 16)
				return false;
			rows[k * 8 + r] = a;
		}
	for (int k = 0; k < 4; k++)
		for (int l = 0; l < 32; l++)
			for (int d = 0; d < 2; d++) {
				int64_t want = form == MATRIX_PLAIN ? rows[k * 8 + l / 4] + 4 * (l % 4) + 2 * d
				                                    : rows[k * 8 + 2 * (l % 4) + d] + 2 * (l / 4);
				if (A[2 * k + d][l] != want)
					return false;
			}
	return true;
}

/* Whether list[i] .. list[i + 7] move whole 16-bit register elements of one slot group (a multiple of 8,
 * in any order) between registers and a tile, unmasked; idx[e]: the tile index of element slot0 + e. */
static bool
matrix_candidates(const List *list, int i, const IExpr *idx[8])
{
	Access a, b;
	const LStmt *s = LIST_AT(*list, LStmt, i);
	if (i + 8 > list->n || !access_of(s, &a) || a.mem->kind != TK_SHARED || !a.mem->tile || !a.reg || a.reg->kind != TK_LOCAL || a.conv ||
	    etype_bits(a.mem->type) != 16 || a.slot % 8 || vector_kernel->block[0] % 32)
		return false;
	memset(idx, 0, 8 * sizeof *idx);
	for (int k = 0; k < 8; k++) {
		const LStmt *u = LIST_AT(*list, LStmt, i + k);
		if (u->kind != s->kind || !access_of(u, &b) || b.mem != a.mem || b.reg != a.reg || b.conv ||
		    b.slot < a.slot || b.slot >= a.slot + 8 || idx[b.slot - a.slot] || u->mask_lo | u->mask_hi ||
		    u->align_test || etype_bits(b.reg->type) != 16)
			return false;
		idx[b.slot - a.slot] = s->kind == L_STORE ? u->index : vector_load(u->value)->index;
	}
	return true;
}

/* The form (MATRIX_PLAIN, MATRIX_TRANS; 0: none) in which list[i] .. list[i + 7] are one stmatrix /
 * ldmatrix: the fragment holds in every warp, every lane of a warp runs them or none does, the lanes'
 * row addresses (*row_index) are checked against it, and the banks take no more wavefronts than the
 * widest accesses of the same elements (4 bytes plain: a word's two columns; 2 bytes .trans). */
static int
matrix_at(const List *list, int i, IExpr **row_index)
{
	const IExpr *idx[8];
	if (divergent_loops || n_around >= MAX_CONDS || !matrix_candidates(list, i, idx))
		return 0;
	for (int c = 0; c < n_around; c++) { /* a branch that tilec cannot evaluate for a thread may diverge */
		int64_t v;
		if (ie_per_thread(around_cond[c]) && !ie_eval_thread(around_cond[c], vector_kernel->block, 0, &v))
			return 0;
	}
	for (int form = MATRIX_PLAIN; form <= MATRIX_TRANS; form++) {
		IExpr *ri = NULL;
		int matrix_wf = 0, element_wf = 0, ran = 0, degree;
		bool ok = true;
		for (int wp = 0; ok && wp < (vector_kernel->threads + 31) / 32; wp++) {
			int64_t A[8][32], rows[32], given[32];
			/* the 8 statements are in one list: the same lanes run them; .aligned wants all or none */
			int got = 1;
			for (int e = 0; e < 8 && ok && got > 0; e++) {
				got = warp_addresses(idx[e], 2, wp, A[e]);
				ok = got >= 0;
				for (int l = 0; ok && got > 0 && l < 32; l++)
					ok = A[e][l] >= 0;
			}
			if (!ok || !got)
				continue;
			ran = 1;
			if (!(ok = matrix_fragment(A, form, rows)))
				break;
			if (!ri && !(ri = matrix_row_index(idx, form))) {
				ok = false;
				break;
			}
			ok = warp_addresses(ri, 2, wp, given) > 0;
			for (int l = 0; ok && l < 32; l++)
				ok = given[l] == rows[l];
			matrix_wf += smem_wavefronts(given, 16, &degree);
			for (int e = 0; ok && e < 8; e += form == MATRIX_PLAIN ? 2 : 1)
				element_wf += smem_wavefronts(A[e], form == MATRIX_PLAIN ? 4 : 2, &degree);
		}
		if (ok && ran && matrix_wf <= element_wf) {
			*row_index = ri;
			return form;
		}
	}
	return 0;
}

const Tensor *
matrix_operands(const LStmt *s, const Tensor **reg, int *word)
{
	bool ld = s->kind == L_REG_STORE;
	const IExpr *m = ld ? vector_load(s->value) : moved_bits(s->tensor->type, s->value);
	*reg = ld ? s->tensor : m->tensor;
	*word = (ld ? s->slot : m->slot) / 2;
	return ld ? m->tensor : s->tensor;
}

/* Pushes list[i] .. list[i + 7] onto out in slot order, the first one the instruction (its vec 8). */
static void
matrix_group(List *out, const List *list, int i, int form, IExpr *row_index)
{
	LStmt *group[8];
	for (int k = 0; k < 8; k++) {
		LStmt *u = LIST_AT(*list, LStmt, i + k);
		Access a;
		access_of(u, &a);
		group[a.slot % 8] = u;
	}
	group[0]->vec = 8;
	group[0]->matrix = form == MATRIX_TRANS ? 2 : 1;
	group[0]->matrix_index = row_index;
	if (group[0]->kind == L_REG_STORE) { /* ldmatrix writes the 4 words together */
		int id = ++def_ids;
		for (int k = 0; k < 4; k++)
			define(group[0]->tensor, group[0]->slot / 2 + k, id, k);
	}
	for (int k = 0; k < 8; k++)
		list_push(out, group[k]);
}

/* --explain: the widths a statement's accesses to a shared tile (smem_tile) came out at, and what the
 * shared-memory banks make of them (smem_banks.c), for the note vectorize_accesses writes, so that a user
 * sees where the swizzle kept 16 bytes contiguous and whether a warp's accesses conflict. */
typedef struct TileWidths {
	Loc loc;
	const Tensor *tile;
	bool store;
	int narrowest, widest; /* bytes */
	bool banks_known;      /* every address of every access was evaluated for every thread */
	int accesses;          /* warp accesses (instructions times warps) */
	int wavefronts, ideal; /* their wavefronts, and those they would take without conflicts */
	int degree;            /* the most wavefronts of one phase of one access */
	/* per warp, for one width: the accesses of each (phase, bank group) and of each lane */
	int *unit_load, *lane_load;
	bool elements;          /* some accesses move elements (not a matrix instruction) */
	const char *matrix;     /* the stmatrix / ldmatrix some accesses are */
} TileWidths;
static List tile_widths;
/* Adds one access of `bytes` per thread at element index `index` of tile a to w: per warp, its byte
   addresses through the bank model, and the loads of the bank groups and lanes for the order check. */
static void
count_banks(TileWidths *w, const IExpr *index, int elem, int bytes)
{
	for (int wp = 0; w->banks_known && wp < (vector_kernel->threads + 31) / 32; wp++) {
		int64_t addr[32];
		int got = warp_addresses(index, elem, wp, addr);
		if (got < 0)
			w->banks_known = false;
		if (got <= 0)
			continue;
		int degree, lanes = smem_phase_lanes(bytes);
		w->accesses++;
		w->wavefronts += smem_wavefronts(addr, bytes, &degree);
		for (int p = 0; p < 32; p += lanes) {
			bool active = false;
			for (int l = p; l < p + lanes; l++)
				active = active || addr[l] >= 0;
			w->ideal += active;
		}
		w->degree = degree > w->degree ? degree : w->degree;
		for (int l = 0; bytes >= 4 && l < 32; l++) {
			if (addr[l] < 0)
				continue;
			w->lane_load[wp * 32 + l]++;
			w->unit_load[wp * 32 + l / lanes * (128 / bytes) + smem_bank_unit(addr[l], bytes)]++;
		}
	}
}

/* The note's record of the copy statement s belongs to (NULL: none, or no --explain). */
static TileWidths *
tile_widths_of(const LStmt *s)
{
	Access a;
	if (!diag_explain || !access_of(s, &a) || !a.mem->tile)
		return NULL;
	bool store = s->kind == L_STORE;
	TileWidths *w = NULL;
	for (int i = 0; i < tile_widths.n && !w; i++) {
		TileWidths *x = LIST_AT(tile_widths, TileWidths, i);
		if (x->tile == a.mem && x->store == store && !memcmp(&x->loc, &s->loc, sizeof s->loc))
			w = x;
	}
	if (!w) {
		int warps = (vector_kernel->threads + 31) / 32;
		w = pool_alloc(sizeof *w);
		*w = (TileWidths){s->loc, a.mem, store, 1 << 30, 0, true, 0, 0, 0, 0, NULL, NULL, false, NULL};
		w->unit_load = pool_alloc(sizeof(int) * 32 * (size_t)warps);
		w->lane_load = pool_alloc(sizeof(int) * 32 * (size_t)warps);
		list_push(&tile_widths, w);
	}
	return w;
}

static void
note_tile_width(const LStmt *s, int n)
{
	TileWidths *w = tile_widths_of(s);
	if (!w)
		return;
	int elem = etype_bits(w->tile->type) / 8, bytes = (n ? n : 1) * elem;
	w->elements = true;
	w->narrowest = bytes < w->narrowest ? bytes : w->narrowest;
	w->widest = bytes > w->widest ? bytes : w->widest;
	const IExpr *index = w->store ? s->index : vector_load(s->value)->index;
	count_banks(w, index, elem, bytes);
}

/* A stmatrix / ldmatrix: each phase of 8 lanes at 16 bytes is one matrix's 8 rows (its wavefronts). */
static void
note_matrix(const LStmt *s, int form, const IExpr *row_index)
{
	TileWidths *w = tile_widths_of(s);
	if (!w)
		return;
	w->matrix = isa_matrix(w->store, form == MATRIX_TRANS);
	count_banks(w, row_index, 2, 16);
}

/* What the banks make of w's accesses, for its note: conflict-free, or the degree and whether an order
   of the same accesses per thread would have none. */
static const char *
banks_text(const TileWidths *w)
{
	if (!w->banks_known || !w->accesses)
		return "";
	if (w->degree <= 1)
		return pool_printf("; conflict-free: %d wavefronts for %d warp accesses", w->wavefronts, w->accesses);
	const char *order = "";
	if (w->narrowest == w->widest && w->widest >= 4 && !w->matrix) {
		int lanes = smem_phase_lanes(w->widest), units = 128 / w->widest;
		bool exists = true;
		for (int wp = 0; wp < (vector_kernel->threads + 31) / 32 && exists; wp++)
			for (int p = 0; p < 32 && exists; p += lanes) {
				int most = 0;
				for (int l = p; l < p + lanes; l++)
					most = w->lane_load[wp * 32 + l] > most ? w->lane_load[wp * 32 + l] : most;
				exists = smem_conflict_free_order(&w->unit_load[wp * 32 + p / lanes * units], units, most);
			}
		order = exists ? ", which another order of each thread's accesses would avoid"
		               : ", which no order of these accesses avoids in this swizzle";
	}
	return pool_printf("; %d-way bank conflicts: %d wavefronts where %d would do%s", w->degree, w->wavefronts,
	                   w->ideal, order);
}

static void
explain_tile_widths(void)
{
	for (int i = 0; i < tile_widths.n; i++) {
		const TileWidths *w = LIST_AT(tile_widths, TileWidths, i);
		if (w->matrix) {
			explain_note(w->loc, "each thread %s shared tile '%s'%s with %s%s (the registers are the instruction's fragment: a warp moves four 8 x 8 matrices of 16-bit elements, a row of 16 bytes from one lane's address)%s",
			             w->store ? "stores to" : "loads from", w->tile->name, smem_tile_text(w->tile->tile), w->matrix,
			             w->elements ? pool_printf(" and %d- to %d-byte accesses", w->narrowest, w->widest) : "", banks_text(w));
			continue;
		}
		const char *widths = w->narrowest == w->widest ? pool_printf("%d-byte", w->widest)
		                                               : pool_printf("%d- to %d-byte", w->narrowest, w->widest);
		explain_note(w->loc, "each thread %s shared tile '%s'%s with %s accesses%s%s", w->store ? "stores to" : "loads from",
		             w->tile->name, smem_tile_text(w->tile->tile), widths,
		             w->widest == 16 ? " (16 contiguous bytes of a thread stay contiguous under the swizzle)"
		                             : " (no 16 bytes of a thread are contiguous and aligned in the tile, or their registers were not written together)",
		             banks_text(w));
	}
	tile_widths = (List){0};
}

/* Unrolled iterations joined to their list, and the branches on the warp index of each list joined and
 * made uniform, from the outside in. */
static void
dispatch_list(List *list, bool chain_rest)
{
	List flat = {0};
	flatten(&flat, list);
	*list = flat;
	merge_dispatches(list);
	if (!chain_rest) /* the rest of a chain runs on the warps its first arms do not select */
		uniform_dispatches(list);
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		dispatch_list(&s->body, false);
		dispatch_list(&s->els, is_dispatch(s));
	}
}

/* The runs of accesses of each list (after dispatch_list), the inner lists of a statement before the
 * runs that start at it. */
static void
vectorize_list(List *list)
{
	List out = {0};
	for (int i = 0; i < list->n;) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_IF && n_around < MAX_CONDS) {
			around_cond[n_around] = s->cond;
			around_want[n_around++] = true;
			vectorize_list(&s->body);
			around_want[n_around - 1] = false;
			vectorize_list(&s->els);
			n_around--;
		} else {
			bool diverges = s->kind == L_FOR && (ie_per_thread(s->lo) || ie_per_thread(s->hi));
			divergent_loops += diverges;
			vectorize_list(&s->body);
			vectorize_list(&s->els);
			divergent_loops -= diverges;
		}
		IExpr *row_index = NULL;
		int form = matrix_at(list, i, &row_index);
		if (form) {
			note_matrix(s, form, row_index);
			matrix_group(&out, list, i, form, row_index);
			i += 8;
			continue;
		}
		int n = 0, bytes = 16;
		IExpr *align_rest = NULL;
		for (; bytes >= 4 && !n; bytes /= 2) {
			n = vector_at(list, i, bytes, &align_rest);
			if (!n)
				n = gather(list, i, bytes, &align_rest);
		}
		note_tile_width(s, n);
		if (n) {
			s->vec = n;
			if (s->kind == L_REG_STORE) {
				/* a converting load's words count as written together too: each conversion
				   writes a new register, which ptxas places where a vector store of the words
				   wants it (copy_convert's narrow: 46 registers, 408 SASS instructions; 48 and
				   440 with those words stored one by one) */
				int id = ++def_ids, bits = etype_bits(s->tensor->type);
				for (int k = 0; k < n * bits / 32; k++)
					define(s->tensor, s->slot * bits / 32 + k, id, k);
			}
			if (s->mask_lo | s->mask_hi || align_rest)
				list_push(&out, vector_guard(list, i, n, align_rest));
			else
				for (int k = 0; k < n; k++)
					list_push(&out, list->v[i + k]);
			i += n;
		} else {
			track(s);
			list_push(&out, s->mask_lo | s->mask_hi ? masked_one(s) : s);
			i++;
		}
	}
	*list = out;
}

/* ---------------------------------------------------------------- dead register stores */

/* Register words live at a point, for one warp: a bit per word of each local tensor. */
typedef struct Live {
	List tensors; /* Tensor* */
	List bits;    /* uint8_t*: words bytes each */
} Live;

static uint8_t *
live_bits(Live *l, const Tensor *t)
{
	for (int i = 0; i < l->tensors.n; i++)
		if (LIST_AT(l->tensors, Tensor, i) == t)
			return LIST_AT(l->bits, uint8_t, i);
	list_push(&l->tensors, (void *)t);
	list_push(&l->bits, pool_alloc((size_t)t->words + 1));
	return LIST_AT(l->bits, uint8_t, l->bits.n - 1);
}

static void
live_copy(Live *to, Live *from)
{
	for (int i = 0; i < from->tensors.n; i++) {
		const Tensor *t = LIST_AT(from->tensors, Tensor, i);
		memcpy(live_bits(to, t), LIST_AT(from->bits, uint8_t, i), (size_t)t->words);
	}
}

static void
live_union(Live *to, Live *from)
{
	for (int i = 0; i < from->tensors.n; i++) {
		const Tensor *t = LIST_AT(from->tensors, Tensor, i);
		uint8_t *d = live_bits(to, t), *f = LIST_AT(from->bits, uint8_t, i);
		for (int w = 0; w < t->words; w++)
			d[w] |= f[w];
	}
}

static void
reads(Live *l, const IExpr *e)
{
	if (!e)
		return;
	if (e->kind == IE_REG)
		live_bits(l, e->tensor)[e->slot * etype_bits(e->tensor->type) / 32] = 1;
	reads(l, e->a);
	reads(l, e->b);
	reads(l, e->index);
}

/* The statements a warp may run, backwards: a register store whose word no later statement of the
 * warp reads before writing it whole is dead for that warp; one dead for every warp that runs it
 * is dropped. Branches on the warp index are followed for the warp
 * they select; other branches as both paths. (The clears before a guarded tcgen05.ld, for example,
 * are read by no warp: the warp that loads overwrites them, the others never read them.) */
static void
live_list(List *list, int warp, Live *l)
{
	for (int i = list->n - 1; i >= 0; i--) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		switch (s->kind) {
		case L_REG_STORE: {
			int bits = etype_bits(s->tensor->type);
			uint8_t *b = live_bits(l, s->tensor);
			int w = s->slot * bits / 32;
			if (!b[w])
				break; /* dead here: its value is never read on this path */
			s->live = true;
			if (bits == 32)
				b[w] = 0;
			reads(l, s->value);
			break;
		}
		case L_COPY:
			live_bits(l, s->regs[0].tensor)[s->regs[0].word] = 0;
			live_bits(l, s->regs[1].tensor)[s->regs[1].word] = 1;
			break;
		case L_TC:
			for (int r = 0; r < tc_nregs(s); r++)
				live_bits(l, tc_reg(s, r)->tensor)[tc_reg(s, r)->word] = s->instr->kind == TC_ST;
			reads(l, tc_addr(s));
			break;
		case L_IF: {
			int64_t k;
			if (warp_test(s->cond, &k)) {
				live_list(k == warp ? &s->body : &s->els, warp, l);
			} else {
				Live other = {0};
				live_copy(&other, l);
				live_list(&s->body, warp, l);
				live_list(&s->els, warp, &other);
				live_union(l, &other);
			}
			reads(l, s->cond);
			break;
		}
		case L_FOR: {
			/* twice: what the body reads is live around the back edge too */
			Live before = {0};
			live_copy(&before, l);
			live_list(&s->body, warp, l);
			live_union(l, &before);
			live_list(&s->body, warp, l);
			live_union(l, &before);
			reads(l, s->lo);
			reads(l, s->hi);
			break;
		}
		default:
			live_list(&s->body, warp, l);
			reads(l, s->value);
			reads(l, s->index);
			reads(l, s->cond);
			break;
		}
	}
}

static void
drop_dead(List *list)
{
	int n = 0;
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_REG_STORE && !s->live)
			continue;
		drop_dead(&s->body);
		drop_dead(&s->els);
		list->v[n++] = s;
	}
	list->n = n;
}

void
drop_dead_stores(KernelIR *k)
{
	for (int w = 0; w < (k->threads + 31) / 32; w++) {
		Live l = {0};
		/* a device function's local parameters are the caller's registers: read after it returns */
		for (int i = 0; i < k->dparams.n; i++) {
			DevParam *dp = LIST_AT(k->dparams, DevParam, i);
			if (dp->kind == PK_LOCAL)
				memset(live_bits(&l, dp->tensor), 1, (size_t)dp->tensor->words);
		}
		live_list(&k->body, w, &l);
	}
	drop_dead(&k->body);
}

void
join_dispatches(KernelIR *k)
{
	dispatch_list(&k->body, false);
}

void
vectorize_accesses(KernelIR *k)
{
	defs = (List){0};
	def_ids = 0;
	vector_kernel = k;
	n_around = 0;
	divergent_loops = 0;
	vectorize_list(&k->body);
	explain_tile_widths();
}
