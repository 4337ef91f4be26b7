/* sema.c: names and scopes, and the typing of expressions into the IR (ir.c builds and folds its nodes). */
#include <math.h>
#include <string.h>

#include "tilec.h"

static List symbols; /* Sym*, innermost last */
static int depth;
static int unit_warps; /* sema_set_unit */
static int barrier;    /* scope_push_isolated: the depth below which only depth 1 is seen */

/* Every name ever declared since sema_reset, to its innermost symbol (NULL once its scopes are gone). */
static Map table;

/* --fast-math, for the program being checked */
static bool fast_math;

/* The protocol state of the kernel being walked, which says whether the whole warp reaches a warp
   collective (sema_set_protocol); NULL outside a kernel's body */
static Protocol *walk_proto;
/* The innermost operand of ?:, && or || that only some lanes may evaluate, or NULL */
static const Expr *lane_choice;

void
sema_reset(bool fast)
{
	fast_math = fast;
	symbols = (List){0};
	depth = 0;
	barrier = 0;
	unit_warps = 0;
	walk_proto = NULL;
	lane_choice = NULL;
	table = (Map){0}; /* pool memory: freed with everything else */
}

void
scope_push(void)
{
	depth++;
}

void
scope_pop(void)
{
	while (symbols.n && LIST_AT(symbols, Sym, symbols.n - 1)->depth == depth) {
		Sym *s = LIST_AT(symbols, Sym, symbols.n - 1);
		map_slot(&table, s->name, false)->value = s->shadowed;
		symbols.n--;
	}
	depth--;
}

int
scope_push_isolated(void)
{
	int saved = barrier;
	scope_push();
	barrier = depth;
	return saved;
}

void
scope_pop_isolated(int saved)
{
	scope_pop();
	barrier = saved;
}

void
sema_set_protocol(Protocol *p)
{
	walk_proto = p;
}

int
sema_set_unit(int warps)
{
	int old = unit_warps;
	unit_warps = warps;
	return old;
}

Sym *
sym_lookup(const char *name)
{
	MapSlot *slot = map_slot(&table, name, false);
	Sym *s = slot ? slot->value : NULL;
	while (s && s->depth > 1 && s->depth < barrier)
		s = s->shadowed;
	return s;
}

Sym *
sym_declare(SymKind kind, const char *name, Loc loc)
{
	Func f;
	MapSlot *slot = map_slot(&table, name, true);
	Sym *outer = slot->value;
	/* the collectives came after programs that named a device function warp_sum: their names stay free */
	if (func_lookup(name, &f) && !func_info(f)->collective) {
		if (kind != SYM_POISON) {
			error(loc, "'%s' is a builtin function and cannot be redeclared; choose another name", name);
			/* its uses in the scope stay quiet, as after any failed declaration */
			if (!outer || outer->depth != depth)
				sym_declare(SYM_POISON, name, loc);
			return NULL;
		}
	} else if (outer && outer->depth == depth) {
		error(loc, "redefinition of '%s'", name);
		note(outer->loc, "'%s' was defined here", name);
		return NULL;
	}
	Sym *s = pool_alloc(sizeof *s);
	s->kind = kind;
	s->name = name;
	s->loc = loc;
	s->depth = depth;
	s->shadowed = outer;
	slot->value = s;
	list_push(&symbols, s);
	return s;
}


void
note_spelling(const char *name, Loc loc, bool in_scope, const char *const *extra, int nextra)
{
	const char *hint = cuda_habit(name);
	if (hint) {
		note(loc, "%s", hint);
		return;
	}
	List cands = {0};
	/* the inner declarations first: a tie goes to the nearest scope */
	for (int i = in_scope ? symbols.n - 1 : -1; i >= 0; i--)
		list_push(&cands, (void *)LIST_AT(symbols, Sym, i)->name);
	for (int i = 0; i < nextra; i++)
		list_push(&cands, (void *)extra[i]);
	const char *words[64];
	int nwords = parser_words(words, 64);
	for (int i = 0; i < nwords; i++)
		list_push(&cands, (void *)words[i]);
	const char *best = closest_name(name, (const char *const *)cands.v, cands.n);
	if (best)
		note(loc, "did you mean '%s'?", best);
}

Sym *
sym_use(const char *name, Loc loc)
{
	Sym *s = sym_lookup(name);
	Func f;
	if (!s && func_lookup(name, &f)) {
		error(loc, "'%s' is a builtin function; call it: %s(...)", name, name);
	} else if (!s) {
		error(loc, "unknown name '%s'", name);
		note_spelling(name, loc, true, NULL, 0);
	}
	return s && s->kind == SYM_POISON ? NULL : s;
}

void
sym_poison(const char *name, Loc loc)
{
	Sym *s = sym_lookup(name);
	Func f;
	if (s && s->depth == depth)
		return;
	if (func_lookup(name, &f) && !func_info(f)->collective)
		error(loc, "'%s' is a builtin function and cannot be redeclared; choose another name", name);
	sym_declare(SYM_POISON, name, loc);
}

LayoutExpr *
layout_lookup(const char *name, Loc loc)
{
	Sym *s = sym_lookup(name);
	if (!s) {
		error(loc, "unknown layout '%s'", name);
		note_spelling(name, loc, true, NULL, 0);
		return NULL;
	}
	if (s->kind != SYM_LAYOUT) {
		error(loc, "'%s' is not a layout", name);
		note(s->loc, "'%s' is defined here", name);
		return NULL;
	}
	return s->layout;
}

/* The truth of an operand of && or ||: a float is compared with zero, as in C. */
static IExpr *
truth(IExpr *a)
{
	return a->type == T_F32 ? ie_binary(OP_NE, a, ie_float(0.0)) : a;
}

static IExpr *
binary_checked(Expr *src, Op op, IExpr *a, IExpr *b)
{
	bool intonly = op == OP_MOD || op == OP_SHL || op == OP_SHR || op == OP_BITAND || op == OP_BITOR ||
	               op == OP_BITXOR;
	if (intonly && (a->type == T_F32 || b->type == T_F32)) {
		/* a compound assignment's value (lower.c) is marked by its name "=" */
		error(src->loc, "operator '%s%s' needs integer operands", op_text(op), src->name ? src->name : "");
		return NULL;
	}
	if (op == OP_LAND || op == OP_LOR) {
		a = truth(a);
		b = truth(b);
	}
	IExpr *r = ie_binary(op, a, b);
	if (r->kind == IE_BINARY && a->kind == IE_INT && b->kind == IE_INT) {
		bool shift = op == OP_SHL || op == OP_SHR;
		const char *why = (op == OP_DIV || op == OP_MOD) && b->ival == 0 ? "division by zero"
		                  : shift && b->ival < 0                         ? "a negative shift count"
		                  : shift                                        ? "a shift of 32 or more"
		                                                                 : "overflow";
		error(src->loc, "constant expression %s is undefined (%s)", op_text(op), why);
		return NULL;
	}
	return r;
}

static IExpr *
unary(Expr *src, Op op, IExpr *a)
{
	if (op == OP_BITNOT && a->type == T_F32) {
		error(src->loc, "operator '%s' needs an integer operand", op_text(op));
		return NULL;
	}
	if (op == OP_NOT && a->type == T_F32) /* !x is x == 0, as in C */
		return ie_binary(OP_EQ, a, ie_float(0.0));
	if (a->kind == IE_INT) {
		int64_t v = op == OP_NEG ? -a->ival : op == OP_NOT ? !a->ival : ~a->ival;
		return ie_int(v, op == OP_NOT ? T_I32 : a->type);
	}
	if (a->kind == IE_FLOAT && op == OP_NEG)
		return ie_float(-a->fval);
	IExpr *e = ie_new(IE_UNARY, op == OP_NOT ? T_I32 : a->type);
	e->op = op;
	e->a = a;
	return e;
}

/* The element index in shared tensor t's array of the element at coordinates at[] (i32 or u32) of its
   smem_tile layout: the leading coordinates pick the tile of the stack. */
static IExpr *
tile_index(const Tensor *t, IExpr *const *at)
{
	IExpr *stack = NULL;
	for (int d = 0; d < t->rank - 2; d++) {
		IExpr *c = ie_convert(at[d], T_I32);
		stack = stack ? ie_binary(OP_ADD, ie_binary(OP_MUL, stack, ie_int(t->dims[d], T_I32)), c) : c;
	}
	return ie_tile_index(t->tile, stack, ie_convert(at[t->rank - 2], T_I32), ie_convert(at[t->rank - 1], T_I32));
}

static bool
index_tensor(Expr *e, Tensor *t, IExpr **out, IExpr ***coords)
{
	if (e->args.n != t->rank) {
		error(e->loc, "'%s' has %d dimension%s but %d ind%s given", t->name, t->rank, t->rank == 1 ? "" : "s",
		      e->args.n, e->args.n == 1 ? "ex is" : "ices are");
		return false;
	}
	IExpr *flat = ie_int(0, t->wide ? T_I64 : T_I32);
	IExpr *at[MAX_RANK];
	if (coords)
		*coords = pool_alloc(sizeof(IExpr *) * (size_t)t->rank);
	for (int i = 0; i < t->rank; i++) {
		Expr *ae = LIST_AT(e->args, Expr, i);
		IExpr *ix = sema_expr(ae);
		if (!ix)
			return false;
		at[i] = ix;
		if (coords)
			(*coords)[i] = ix;
		if (ix->type == T_F32) {
			error(ae->loc, "index must be an integer");
			return false;
		}
		int64_t c, d = t->dims[i];
		bool known = !t->wide || ie_is_const(t->rdims[i], &d);
		if (ie_is_const(ix, &c) && (c < 0 || (known && c >= d))) {
			if (known)
				error(ae->loc, "index %lld is out of range for dimension %d of '%s' (size %lld)", (long long)c, i,
				      t->name, (long long)d);
			else
				error(ae->loc, "index %lld is out of range for dimension %d of '%s'", (long long)c, i, t->name);
			return false;
		}
		if (t->wide) /* 64 bits: sum of index * stride */
			flat = ie_binary(OP_ADD, flat, ie_binary(OP_MUL, ie_convert(ix, T_I64), t->rstrides[i]));
		else
			flat = ie_binary(OP_ADD, ie_binary(OP_MUL, flat, ie_int(t->dims[i], T_I32)), ix);
	}
	*out = t->tile ? tile_index(t, at) : flat;
	return true;
}

/* Reads one element of a per-thread view; the index must be a compile-time constant. */
static IExpr *
register_element(Expr *e, View *v, int *slot_out)
{
	if (e->args.n != v->rank) {
		error(e->loc, "view '%s' has %d dimension%s but %d ind%s given", v->name, v->rank,
		      v->rank == 1 ? "" : "s", e->args.n, e->args.n == 1 ? "ex is" : "ices are");
		return NULL;
	}
	int flat = 0;
	for (int i = 0; i < v->rank; i++) {
		Expr *ae = LIST_AT(e->args, Expr, i);
		IExpr *ix = sema_expr(ae);
		if (!ix)
			return NULL;
		int64_t c;
		if (!ie_is_const(ix, &c)) {
			error(ae->loc, "registers are not addressable: the index into '%s' must be a compile-time "
			               "constant (a loop over it must have constant bounds)", v->name);
			return NULL;
		}
		if (c < 0 || c >= v->dims[i]) {
			error(ae->loc, "index %lld is out of range for dimension %d of '%s' (size %d)", (long long)c, i,
			      v->name, v->dims[i]);
			return NULL;
		}
		flat = flat * v->dims[i] + (int)c;
	}
	*slot_out = v->map[flat];
	IExpr *r = ie_new(IE_REG, value_type(v->base->type));
	r->tensor = v->base;
	r->slot = v->map[flat];
	return r;
}

/* NAME[...] of a view of a global or shared tensor: the element's flat index in the base tensor, and the
   base coordinates that index stands for and, for run-time indices, the view's (for the emulator's bounds
   checks: an index past the view's extent may still give an element of the tensor). A view is a table, so
   run-time indices need one whose table is affine, base = map[0] + sum of index_i * stride_i (slices,
   reshapes, permutations of whole dimensions); constant indices need none. NULL after an error. */
static IExpr *
view_element(Expr *e, View *v, IExpr ***coords, const ViewAt **view_at)
{
	Tensor *t = v->base;
	if (e->args.n != v->rank) {
		error(e->loc, "view '%s' has %d dimension%s but %d ind%s given", v->name, v->rank,
		      v->rank == 1 ? "" : "s", e->args.n, e->args.n == 1 ? "ex is" : "ices are");
		return NULL;
	}
	IExpr *ix[MAX_RANK];
	bool all_const = true;
	int flat = 0;
	for (int i = 0; i < v->rank; i++) {
		Expr *ae = LIST_AT(e->args, Expr, i);
		int64_t c;
		if (!(ix[i] = sema_expr(ae)))
			return NULL;
		if (ix[i]->type == T_F32) {
			error(ae->loc, "index must be an integer");
			return NULL;
		}
		if (!ie_is_const(ix[i], &c)) {
			all_const = false;
			continue;
		}
		if (c < 0 || c >= v->dims[i]) {
			error(ae->loc, "index %lld is out of range for dimension %d of '%s' (size %d)", (long long)c, i,
			      v->name, v->dims[i]);
			return NULL;
		}
		flat = flat * v->dims[i] + (int)c;
	}
	*coords = NULL;
	*view_at = NULL;
	if (all_const)
		return ie_int(t->tile ? smem_tensor_element(t->tile, v->map[flat]) : v->map[flat], T_I32);
	int64_t stride[MAX_RANK];
	if (t->wide || v->box || !view_strides(v, stride)) {
		error(e->loc, "the index into view '%s' must be a compile-time constant: its elements are no affine "
		              "function of its indices; index '%s' itself for run-time indices", v->name, t->name);
		return NULL;
	}
	IExpr *index = ie_int(v->map[0], T_I32);
	ViewAt *va = pool_alloc(sizeof *va);
	va->name = v->name;
	va->base = t->name;
	va->rank = v->rank;
	for (int i = 0; i < v->rank; i++) {
		va->dims[i] = v->dims[i];
		va->at[i] = ie_convert(ix[i], T_I32);
		if (stride[i])
			index = ie_binary(OP_ADD, index, ie_binary(OP_MUL, va->at[i], ie_int(stride[i], T_I32)));
	}
	*view_at = va;
	/* the base coordinates: any index outside the base gives one outside its dimension */
	*coords = pool_alloc(sizeof(IExpr *) * (size_t)t->rank);
	int64_t inner = 1;
	for (int d = t->rank - 1; d >= 0; d--) {
		IExpr *c = inner > 1 ? ie_binary(OP_DIV, index, ie_int(inner, T_I32)) : index;
		(*coords)[d] = d ? ie_binary(OP_MOD, c, ie_int(t->dims[d], T_I32)) : c;
		inner *= t->dims[d];
	}
	return t->tile ? tile_index(t, *coords) : index;
}

/* Resolves NAME[...] as an element: a global or shared load, or a register of a per-thread view. */
IExpr *
sema_element(Expr *e, Tensor **tensor, IExpr **index, int *slot)
{
	Sym *s = sym_use(e->name, e->loc);
	*tensor = NULL;
	if (!s)
		return NULL;
	if (s->kind == SYM_VIEW) {
		View *v = s->view;
		if (v->base->kind == TK_TMEM) {
			error(e->loc, "'%s' is a view of tmem tensor '%s'; tensor memory is read and written only with apply "
			              "%s / %s", e->name, v->base->name, isa_name(TC_LD, 0), isa_name(TC_ST, 0));
			return NULL;
		}
		if (v->base->kind == TK_LOCAL && !v->per_thread) {
			error(e->loc, "'%s' is a view of local tensor '%s'; its elements are read and written only through "
			              "a per-thread view such as %s.view(%d, layout = default)", e->name, v->base->name,
			      v->base->name, v->base->layout->slots);
			return NULL;
		}
		if (v->per_thread) {
			/* registers are not addressable, so the indices must be known at compile time */
			IExpr *r = register_element(e, v, slot);
			*tensor = r ? v->base : NULL;
			return r;
		}
		IExpr **coords;
		const ViewAt *view_at;
		if (!(*index = view_element(e, v, &coords, &view_at)))
			return NULL;
		*tensor = v->base;
		IExpr *r = ie_new(IE_LOAD, value_type(v->base->type));
		r->tensor = v->base;
		r->index = *index;
		r->coords = coords;
		r->view_at = view_at;
		return r;
	}
	if (s->kind != SYM_TENSOR) {
		error(e->loc, "'%s' is not a tensor", e->name);
		note(s->loc, "'%s' is defined here", e->name);
		return NULL;
	}
	Tensor *t = s->tensor;
	if (t->kind == TK_LOCAL) {
		error(e->loc, "'%s' is distributed over threads; read and write it through a per-thread view: "
		              "%s.view(%d, layout = default)", t->name, t->name, t->layout->slots);
		return NULL;
	}
	if (t->kind == TK_TMEM) {
		error(e->loc, "'%s' lives in tensor memory; it is read and written only with apply %s / %s", t->name,
		      isa_name(TC_LD, 0), isa_name(TC_ST, 0));
		return NULL;
	}
	if (t->type == T_MBARRIER) {
		error(e->loc, "'%s' holds mbarriers; they are neither read nor written as values, only through the "
		              "mbarrier statements, commit and cluster_sync", t->name);
		return NULL;
	}
	IExpr **coords = NULL;
	if (!index_tensor(e, t, index, &coords))
		return NULL;
	*tensor = t;
	IExpr *r = ie_new(IE_LOAD, value_type(t->type));
	r->tensor = t;
	r->index = *index;
	r->coords = coords;
	return r;
}

/* The type two operands meet in, as C's usual arithmetic conversions on i32, u32 and f32. */
static EType
common_type(const IExpr *a, const IExpr *b)
{
	if (a->type == T_F32 || b->type == T_F32)
		return T_F32;
	return a->type == T_U32 || b->type == T_U32 ? T_U32 : T_I32;
}

/* c ? a : b, lazy as in C: only the chosen side is evaluated (a load on the other side is not made). */
static IExpr *
select_expr(Expr *e)
{
	IExpr *c = sema_expr(e->a);
	const Expr *saved = lane_choice;
	lane_choice = e;
	IExpr *a = c ? sema_expr(e->b) : NULL;
	IExpr *b = a ? sema_expr(e->c) : NULL;
	lane_choice = saved;
	if (!b)
		return NULL;
	EType t = common_type(a, b);
	a = ie_convert(a, t);
	b = ie_convert(b, t);
	int64_t k;
	if (ie_is_const(c, &k))
		return k ? a : b;
	if (c->kind == IE_FLOAT)
		return c->fval != 0 ? a : b;
	IExpr *r = ie_new(IE_SELECT, t);
	r->a = c;
	r->b = a;
	r->index = b;
	return r;
}

/* Where every lane of the warp executes a collective together: in a kernel's body, in no operand that
   only some lanes evaluate, and outside control flow that may split the warp (protocol.c). */
static bool
collective_reached(Expr *e)
{
	const char *name = e->name;
	if (!walk_proto) {
		error(e->loc, "'%s' is computed by the lanes of a warp together; it is a value of a kernel's or device "
		              "function's statements, not of a constant, layout or launch configuration", name);
		return false;
	}
	if (lane_choice) {
		error(e->loc, "'%s' inside an operand of %s, which only some lanes of the warp may evaluate; every lane "
		              "must execute it: compute it in a 'let' before", name,
		      lane_choice->kind == E_COND ? "?:" : lane_choice->op == OP_LAND ? "&&" : "||");
		note(lane_choice->loc, "this operator evaluates that operand only where its condition says so");
		return false;
	}
	return protocol_warp_collective(walk_proto, e->loc, pool_printf("'%s'", name));
}

/* The value argument of a collective: an i32, u32 or f32 (pred: an integer condition, as a comparison
   gives) */
static IExpr *
collective_value(Expr *call, Expr *arg, bool pred)
{
	IExpr *x = sema_expr(arg);
	if (x && pred && x->type == T_F32) {
		error(arg->loc, "'%s' takes a condition, an integer (a comparison gives one); this one is f32: compare it "
		                "(x != 0.0)", call->name);
		return NULL;
	}
	return x;
}

/* The second argument of a shuffle (a lane, a lane mask or a distance) or the group of lanes_*: an integer;
   for lanes_*, a constant 2, 4, 8 or 16. */
static IExpr *
collective_operand(Expr *call, Func f, Expr *arg)
{
	IExpr *x = sema_expr(arg);
	if (!x)
		return NULL;
	if (x->type == T_F32) {
		error(arg->loc, "the second argument of '%s' is an integer; this one is f32", call->name);
		return NULL;
	}
	if (f != F_LANES_SUM && f != F_LANES_MAX && f != F_LANES_MIN)
		return ie_convert(x, T_U32);
	int64_t n;
	if (!ie_is_const(x, &n) || (n != 2 && n != 4 && n != 8 && n != 16)) {
		error(arg->loc, "the group of '%s' is a constant 2, 4, 8 or 16 (aligned groups of that many lanes); "
		                "for the whole warp use 'warp_%s'", call->name, call->name + 6);
		return NULL;
	}
	return ie_int(n, T_I32);
}

/* A warp collective (language.md, Warp collectives): shfl_*, any, all, ballot, warp_*, lanes_*. */
static IExpr *
collective_expr(Expr *e, Func f)
{
	if (!collective_reached(e))
		return NULL;
	bool pred = f == F_ANY || f == F_ALL || f == F_BALLOT;
	IExpr *x = collective_value(e, LIST_AT(e->args, Expr, 0), pred);
	IExpr *y = x && e->args.n > 1 ? collective_operand(e, f, LIST_AT(e->args, Expr, 1)) : NULL;
	if (!x || (e->args.n > 1 && !y))
		return NULL;
	IExpr *r = ie_new(IE_CALL, pred ? (f == F_BALLOT ? T_U32 : T_I32) : x->type);
	r->fn = f;
	r->a = x;
	r->b = y;
	return r;
}

static IExpr *
call_expr(Expr *e)
{
	Func f;
	if (!func_lookup(e->name, &f)) {
		Sym *s = sym_lookup(e->name);
		if (s) {
			error(e->loc, "'%s' is not a function; the functions are min, max, abs, fma, exp, exp2, log, log2, "
			              "sqrt, rsqrt, tanh, erf, sin and cos", e->name);
			note(s->loc, "'%s' is defined here", e->name);
		} else {
			error(e->loc, "unknown function '%s'; the functions are min, max, abs, fma, exp, exp2, log, log2, "
			              "sqrt, rsqrt, tanh, erf, sin and cos", e->name);
			/* only the functions: a keyword or a variable is no spelling of a call */
			const char *names[F_COUNT], *hint = cuda_habit(e->name), *best;
			for (int i = 0; i < F_COUNT; i++)
				names[i] = func_name((Func)i);
			if (hint)
				note(e->loc, "%s", hint);
			else if ((best = closest_name(e->name, names, F_COUNT)))
				note(e->loc, "did you mean '%s'?", best);
		}
		return NULL;
	}
	if (e->args.n != func_info(f)->arity) {
		error(e->loc, "'%s' takes %d argument%s, not %d", func_info(f)->name, func_info(f)->arity,
		      func_info(f)->arity == 1 ? "" : "s", e->args.n);
		return NULL;
	}
	if (func_info(f)->collective)
		return collective_expr(e, f);
	IExpr *x[3] = {NULL, NULL, NULL};
	for (int i = 0; i < e->args.n; i++) {
		Expr *ae = LIST_AT(e->args, Expr, i);
		x[i] = sema_expr(ae);
		if (!x[i])
			return NULL;
		if (func_info(f)->float_only && x[i]->type != T_F32) {
			error(ae->loc, "'%s' takes float arguments; this one is %s: convert it with f32(...)",
			      func_info(f)->name, etype_name(x[i]->type));
			return NULL;
		}
	}
	EType t = x[0]->type;
	if (f == F_MIN || f == F_MAX) {
		t = common_type(x[0], x[1]);
		x[0] = ie_convert(x[0], t);
		x[1] = ie_convert(x[1], t);
		int64_t a, b;
		if (ie_is_const(x[0], &a) && ie_is_const(x[1], &b)) {
			bool less = t == T_U32 ? (uint32_t)a < (uint32_t)b : a < b;
			return ie_int(less == (f == F_MIN) ? a : b, t);
		}
	} else if (f == F_ABS) {
		int64_t a;
		if (t == T_U32)
			return x[0]; /* already not negative */
		if (ie_is_const(x[0], &a))
			return ie_int(a < 0 ? -a : a, t); /* wraps at INT32_MIN, as abs.s32 */
	}
	IExpr *r = ie_new(IE_CALL, t);
	r->fn = fast_math ? math_fast_func(f) : f;
	r->a = x[0];
	r->b = x[1];
	r->index = x[2];
	return r;
}

/* The operand of an alloc: &slot[i] (IE_SADDR), the one place that takes an address; any other
   operand as an expression. */
IExpr *
sema_address(Expr *e)
{
	if (e->kind != E_ADDR)
		return sema_expr(e);
	Sym *s = sym_use(e->name, e->loc);
	if (!s)
		return NULL;
	if (s->kind != SYM_TENSOR || s->tensor->kind != TK_SHARED) {
		error(e->loc, "'&' takes an element of a shared tensor; '%s' is not one", e->name);
		return NULL;
	}
	IExpr *ix;
	if (!index_tensor(e, s->tensor, &ix, NULL))
		return NULL;
	IExpr *r = ie_new(IE_SADDR, T_U32);
	r->tensor = s->tensor;
	r->index = ix;
	return r;
}

IExpr *
sema_expr(Expr *e)
{
	switch (e->kind) {
	case E_INT:
		return ie_int(e->ival, e->usuffix || e->ival > INT32_MAX ? T_U32 : T_I32);
	case E_FLOAT:
		return ie_float(e->fval);
	case E_TUPLE:
		error(e->loc, "a parenthesised list is not a value here");
		return NULL;
	case E_BUILTIN:
		if (unit_warps && e->builtin <= B_THREAD_Z) {
			error(e->loc, "%s is not known inside a device function of scope %s, which runs wherever it is called; "
			              "use lane_id and warp_id (which count within the calling %s)", builtin_name(e->builtin),
			      unit_warps == 1 ? "warp" : "warpgroup", unit_warps == 1 ? "warp" : "warpgroup");
			return NULL;
		}
		if (unit_warps && e->builtin == B_WARPGROUP_ID)
			return ie_int(0, T_I32);
		if (unit_warps == 1 && e->builtin == B_WARP_ID)
			return ie_int(0, T_I32);
		if (unit_warps == 4 && e->builtin == B_WARP_ID)
			return ie_binary(OP_BITAND, ie_builtin(B_WARP_ID), ie_int(3, T_I32));
		return ie_builtin(e->builtin);
	case E_NAME: {
		Sym *s = sym_use(e->name, e->loc);
		if (!s)
			return NULL;
		switch (s->kind) {
		case SYM_CONST:
		case SYM_VALUE:
			return s->value;
		case SYM_VAR: {
			IExpr *r = ie_var(s->var, value_type(s->var->type));
			/* an f16 or bf16 parameter arrives as a C float: its value is that float rounded to its
			   type, as a __half or __nv_bfloat16 argument would be */
			if (s->var->is_param && (s->var->type == T_F16 || s->var->type == T_BF16))
				return ie_convert(r, s->var->type);
			return r;
		}
		default:
			error(e->loc, "'%s' is not a value", e->name);
			note(s->loc, "'%s' is defined here", e->name);
			return NULL;
		}
	}
	case E_INDEX: {
		Tensor *t;
		IExpr *ix;
		int slot;
		return sema_element(e, &t, &ix, &slot);
	}
	case E_ADDR:
		/* the GPU's value is an offset in the CTA's shared window, where ptxas places the array: nothing
		   that tilec run could give too */
		error(e->loc, "'&%s[...]' is written only as the operand of %s (the shared slot that receives the TMEM "
		              "address): as a value it would be the GPU's shared-window offset of the element, which ptxas "
		              "chooses and tilec run cannot know", e->name, isa_name(TC_ALLOC, 0));
		return NULL;
	case E_UNARY: {
		IExpr *a = sema_expr(e->a);
		return a ? unary(e, e->op, a) : NULL;
	}
	case E_BINARY: {
		IExpr *a = sema_expr(e->a);
		const Expr *saved = lane_choice;
		if (e->op == OP_LAND || e->op == OP_LOR)
			lane_choice = e; /* C evaluates the right side only where the left does not decide */
		IExpr *b = a ? sema_expr(e->b) : NULL;
		lane_choice = saved;
		return b ? binary_checked(e, e->op, a, b) : NULL;
	}
	case E_CONV: {
		if (e->type == T_MBARRIER) {
			error(e->loc, "no value converts to an mbarrier; mbarriers are declared in shared tensors");
			return NULL;
		}
		IExpr *a = sema_expr(e->a);
		return a ? ie_convert(a, e->type) : NULL;
	}
	case E_CALL:
		return call_expr(e);
	case E_COND:
		return select_expr(e);
	case E_VIEW:
		error(e->loc, "'%s' with .view, .rearrange or a slice [a:b] is a view, not a value; a view is an argument of a device "
		              "function's tensor parameter, or declared with 'view V = ...;'", e->name);
		return NULL;
	}
	return NULL;
}

bool
const_int(Expr *e, int64_t *out, const char *what)
{
	int before = error_count;
	IExpr *v = sema_expr(e);
	if (!v)
		return false;
	if (v->kind != IE_INT) {
		if (error_count == before)
			error(e->loc, "%s must be a compile-time integer", what);
		return false;
	}
	*out = v->ival;
	return true;
}

bool
const_dims(List *dims, Tensor *t, Loc loc)
{
	if (dims->n > MAX_RANK) {
		error(loc, "at most %d dimensions", MAX_RANK);
		return false;
	}
	t->rank = dims->n;
	long long count = 1;
	for (int i = 0; i < dims->n; i++) {
		int64_t d;
		Expr *e = LIST_AT(*dims, Expr, i);
		if (!const_int(e, &d, "a dimension"))
			return false;
		if (d <= 0) {
			error(e->loc, "dimension must be positive, got %lld", (long long)d);
			return false;
		}
		count *= d;
		if (count > (1 << 24)) {
			error(loc, "tensor '%s' is too large (more than 2^24 elements)", t->name);
			return false;
		}
		t->dims[i] = (int)d;
	}
	t->count = (int)count;
	return true;
}
