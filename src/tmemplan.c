/* tmemplan.c: plans the columns of tmem tensors declared without `at` and writes their allocation into the kernel. */
#include <string.h>

#include "tilec.h"

/* The plan works on the kernel's statements before lowering: it gives each tensor without `at` the
   address `tmem[0] + column`, where `tmem` is a shared slot of its own (a keyword, so no program can
   name it), and adds the statements a user would write around the body. Lowering then sees an
   ordinary program: the protocol checks, the fences, the emulator and both emitters treat the
   planned allocation exactly like a written one.

   Device functions (LANGUAGE.md 10.3) are never planned: their caller owns tensor memory, and lower.c
   refuses a tmem tensor without `at` in them. */

#define MAX_ORDERS 5040 /* orders of tensors tried by the search: all of them up to 7 tensors */
#define SEARCH_MAX 64   /* beyond, one first fit in declaration order */

typedef struct Planned {
	Stmt *decl;
	int need;          /* 32-bit columns: the largest cell of its layout, plus one */
	uint64_t lanes[2]; /* the TMEM lanes its layout uses */
	int loops;         /* for loops around the declaration */
	uint64_t warps;    /* the warps that may access it */
	int first, last;   /* live range in statement order, to the wait that completes its last access;
	                      first < 0: never used */
	int first_line, last_line;
	int sfirst, slast; /* the same, for other warps: to the cta_sync after that wait */
	int slast_line;
	bool written;      /* a store sure to come before the walk's place wrote it */
	const struct Guard *wguard; /* the ifs around a store that may not run (the fewest of them): it ran where they hold */
	int nwguard;       /* -1: no such store */
	bool read_first;   /* some path loads it before any store: it holds data from outside the program */
	int col;           /* the plan */
} Planned;

/* What a device function does with each tmem parameter, as its caller sees it: whether some path
   loads it before storing to it, and whether every path stores to it. */
typedef struct TmemAccess {
	bool busy;         /* being summarised: a call now is recursion, which lowering reports */
	bool *read_first;
	bool *written;
} TmemAccess;

/* An access to a tensor not complete yet at the walk's place: a tcgen05.ld or st of an apply until the
   wait of its kind, then (and for a copy or a call, whose waits tilec owns, at once) until a cta_sync
   orders it before other warps. A wait or cta_sync completes it only where it is sure to follow it:
   in the same statement list or one around it (depth), not inside an if or loop of its own. */
typedef enum PendKind { PEND_LD, PEND_ST, PEND_SYNC, PEND_MMA } PendKind; /* PEND_MMA: an mma's D or A, in use
                                                                            until an mbarrier.wait (its commit's) */

typedef struct Pending {
	Planned *p;
	PendKind kind;
	int depth;
} Pending;

/* A name in scope while walking the body: the tensor it reaches, NULL for anything else. */
typedef struct Binding {
	const char *name;
	Planned *p;
	struct Binding *shadowed; /* the binding of the name that this one hides, or NULL */
} Binding;

typedef struct Loop {
	Stmt *s;
	int first, last; /* the statements it spans, itself included */
} Loop;

/* An if around the walk's place whose condition is the same for a thread wherever it is evaluated
   (builtins, kernel parameters, constants), in its then or else branch; cond NULL for any other if, and
   for a loop that may not run. */
typedef struct Guard {
	const Expr *cond;
	bool in_else;
} Guard;

typedef struct PlanState {
	List planned;  /* Planned* */
	List bindings; /* Binding*; scopes are marks into it */
	Map innermost; /* name -> its innermost Binding (a lookup scanned every binding: quadratic in them) */
	Loop loops[64];
	int nloops;
	int depth;     /* statement lists around the walk's place */
	List pending;  /* Pending* */
	int pos;       /* the next statement's place in program order */
	List allocs;   /* Stmt*: allocations (TC_ALLOC) written in the kernel */
	List frees;    /* Stmt*: deallocations and relinquishes written in the kernel */
	int threads;
	bool failed;
	bool summary;  /* walking a device function's body for its TmemAccess: nothing is planned */
	Guard guards[64];
	int nguards;
} PlanState;

static PlanState P;

static void
bind(const char *name, Planned *p)
{
	Binding *b = pool_alloc(sizeof *b);
	b->name = name;
	b->p = p;
	MapSlot *slot = map_slot(&P.innermost, name, true);
	b->shadowed = slot->value;
	slot->value = b;
	list_push(&P.bindings, b);
}

/* Leaves the scopes opened since the bindings were mark long. */
static void
unbind_to(int mark)
{
	while (P.bindings.n > mark) {
		Binding *b = LIST_AT(P.bindings, Binding, --P.bindings.n);
		map_slot(&P.innermost, b->name, false)->value = b->shadowed;
	}
}

static Binding *
lookup(const char *name)
{
	MapSlot *slot = map_slot(&P.innermost, name, false);
	return slot ? slot->value : NULL;
}

/* --------------------------------------------------------------- loads before stores */

/* A tensor whose first access on some path is a load holds data the program did not write (an MMA's
   result, or `tilec run --tmem`): it is in tensor memory from the allocation on, so it is live from the
   kernel's start. Only a store sure to run before the load counts: one earlier in the same statement
   list or a list around it, in both branches of an if, or in a loop that surely runs; a store to part
   of the tensor counts as writing it. */
static bool
invariant(const Expr *e)
{
	if (!e)
		return true;
	switch (e->kind) {
	case E_INT:
	case E_FLOAT:
	case E_BUILTIN:
		return true;
	case E_NAME:
		return !lookup(e->name); /* a kernel parameter or a const: the body declares every variable */
	case E_UNARY:
	case E_BINARY:
	case E_COND:
		return invariant(e->a) && invariant(e->b) && invariant(e->c);
	default:
		return false;
	}
}

static bool
same_expr(const Expr *a, const Expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->op != b->op || a->ival != b->ival || a->fval != b->fval || a->builtin != b->builtin ||
	    (a->kind == E_NAME && strcmp(a->name, b->name) != 0))
		return false;
	return same_expr(a->a, b->a) && same_expr(a->b, b->b) && same_expr(a->c, b->c);
}

static void
guard_push(const Expr *cond, bool in_else)
{
	if (P.nguards < (int)(sizeof P.guards / sizeof P.guards[0]))
		P.guards[P.nguards] = (Guard){cond && invariant(cond) ? cond : NULL, in_else};
	P.nguards++;
}

/* Whether every guard of the store is around the walk's place too. */
static bool
guards_hold(const Guard *g, int n)
{
	if (n < 0 || P.nguards > (int)(sizeof P.guards / sizeof P.guards[0]))
		return false;
	for (int i = 0; i < n; i++) {
		bool found = false;
		for (int j = 0; g[i].cond && j < P.nguards && !found; j++)
			found = P.guards[j].cond && P.guards[j].in_else == g[i].in_else && same_expr(P.guards[j].cond, g[i].cond);
		if (!found)
			return false;
	}
	return true;
}

static void
access(Planned *p, bool is_load)
{
	if (!is_load) {
		p->written = true;
		if ((p->nwguard < 0 || P.nguards < p->nwguard) && P.nguards <= (int)(sizeof P.guards / sizeof P.guards[0])) {
			Guard *g = pool_alloc(sizeof(Guard) * (size_t)(P.nguards + 1));
			memcpy(g, P.guards, sizeof(Guard) * (size_t)P.nguards);
			p->wguard = g;
			p->nwguard = P.nguards;
		}
	} else if (!p->written && !guards_hold(p->wguard, p->nwguard)) {
		p->read_first = true;
	}
}

/* The written marks of the tensors declared so far, to restore or meet after a nested list. */
static bool *
written_save(void)
{
	bool *w = pool_alloc(sizeof(bool) * (size_t)(P.planned.n + 1));
	for (int i = 0; i < P.planned.n; i++)
		w[i] = LIST_AT(P.planned, Planned, i)->written;
	return w;
}

/* Keeps a mark only where it was set before the nested list (meet: and where it is set now too). */
static void
written_restore(const bool *w, int n, bool meet)
{
	for (int i = 0; i < n; i++) {
		Planned *p = LIST_AT(P.planned, Planned, i);
		p->written = meet ? p->written && w[i] : w[i];
	}
}

static bool
const_value(const Expr *e, int64_t *v)
{
	if (e && e->kind == E_INT) {
		*v = e->ival;
		return true;
	}
	if (!e || e->kind != E_NAME || lookup(e->name))
		return false;
	Sym *s = sym_lookup(e->name);
	if (!s || s->kind != SYM_CONST || !s->value || s->value->kind != IE_INT)
		return false;
	*v = s->value->ival;
	return true;
}

/* A loop `for i in lo..hi` of constant bounds with at least one iteration. */
static bool
surely_runs(const Stmt *s)
{
	int64_t lo, hi;
	return const_value(s->value, &lo) && const_value(s->hi, &hi) && lo < hi;
}

static void walk(List *stmts);

/* The loads and stores of a device function's tmem parameters, from its body (once per function). NULL
   for a recursive call. */
static TmemAccess *
device_access(Kernel *fd)
{
	if (fd->tmem_access)
		return fd->tmem_access->busy ? NULL : fd->tmem_access;
	int n = fd->params.n;
	TmemAccess *a = pool_alloc(sizeof *a);
	a->busy = true;
	a->read_first = pool_alloc(sizeof(bool) * (size_t)(n + 1));
	a->written = pool_alloc(sizeof(bool) * (size_t)(n + 1));
	fd->tmem_access = a;
	PlanState caller = P;
	P = (PlanState){0};
	P.threads = caller.threads;
	P.summary = true;
	Planned **params = pool_alloc(sizeof(Planned *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		Param *prm = LIST_AT(fd->params, Param, i);
		if (prm->kind == PK_TMEM) {
			params[i] = pool_alloc(sizeof(Planned));
			params[i]->first = params[i]->last = params[i]->sfirst = params[i]->slast = params[i]->nwguard = -1;
			/* in P.planned so that an if or a loop that may not run takes back the parameter's store
			   (written_restore); this P.planned is the function's own, dropped with P = caller */
			list_push(&P.planned, params[i]);
		}
		bind(prm->name, params[i]);
	}
	walk(&fd->body);
	for (int i = 0; i < n; i++) {
		a->read_first[i] = params[i] && params[i]->read_first;
		a->written[i] = params[i] && params[i]->written;
	}
	P = caller;
	a->busy = false;
	return a;
}

/* --------------------------------------------------------------- columns and lanes of a declaration */

/* The first name of the expression that the kernel body declares (dims must be known at kernel start). */
static Expr *
body_name_in_expr(Expr *e)
{
	if (!e)
		return NULL;
	if ((e->kind == E_NAME || e->kind == E_INDEX || e->kind == E_ADDR) && lookup(e->name))
		return e;
	Expr *r = body_name_in_expr(e->a);
	if (!r)
		r = body_name_in_expr(e->b);
	for (int i = 0; !r && i < e->args.n; i++)
		r = body_name_in_expr(LIST_AT(e->args, Expr, i));
	return r;
}

static Expr *
body_name_in_strides(List *strides)
{
	Expr *r = NULL;
	for (int i = 0; !r && i < strides->n; i++)
		r = body_name_in_expr(LIST_AT(*strides, Stride, i)->value);
	return r;
}

static Expr *
body_name_in_list(List *exprs)
{
	Expr *r = NULL;
	for (int i = 0; !r && i < exprs->n; i++)
		r = body_name_in_expr(LIST_AT(*exprs, Expr, i));
	return r;
}

static Expr *
body_name_in_layout(LayoutExpr *le)
{
	Expr *r = body_name_in_list(&le->extents);
	if (!r)
		r = body_name_in_strides(&le->strides);
	for (int i = 0; !r && i < le->terms.n; i++) {
		LayoutTerm *t = LIST_AT(le->terms, LayoutTerm, i);
		r = body_name_in_list(&t->extents);
		if (!r)
			r = body_name_in_strides(&t->strides);
		if (!r)
			r = body_name_in_expr(t->offset);
	}
	if (!r)
		r = body_name_in_expr(le->rows);
	if (!r)
		r = body_name_in_expr(le->cols);
	if (!r)
		r = body_name_in_expr(le->sub_slab);
	return r;
}

/* Evaluates the tensor's dims and layout at kernel start: its columns and lanes. */
static bool
measure(Planned *p)
{
	Stmt *s = p->decl;
	Expr *late = body_name_in_list(&s->dims);
	if (!late)
		late = body_name_in_layout(s->layout);
	if (late || (s->layout->kind == LAY_NAME && lookup(s->layout->name))) {
		error(late ? late->loc : s->layout->loc, "the size and layout of '%s' must be known when the kernel starts, "
		      "because tilec allocates its tensor memory there; '%s' is declared inside the kernel",
		      s->name, late ? late->name : s->layout->name);
		note(s->name_loc, "'%s' is declared without 'at' here; use a const, or give it 'at' and allocate yourself",
		     s->name);
		return false;
	}
	Tensor *t = pool_alloc(sizeof *t);
	t->kind = TK_TMEM;
	t->name = s->name;
	t->loc = s->name_loc;
	t->type = s->type;
	if (!const_dims(&s->dims, t, s->loc))
		return false;
	Layout *l = layout_eval(s->layout, t, P.threads);
	if (!l)
		return false;
	int bits = etype_bits(s->type);
	for (int e = 0; e < l->count; e++) {
		for (int r = 0; r < l->nrep; r++) {
			const int32_t *place = LAYOUT_PLACE(l, e, r);
			int cell = place[AX_TCOL] * bits / 32, lane = place[AX_TLANE];
			if (cell + 1 > p->need)
				p->need = cell + 1;
			p->lanes[lane / 64] |= 1ull << (lane % 64);
		}
	}
	return true;
}

/* --------------------------------------------------------------- live ranges */

static int
count_stmts(List *stmts)
{
	int n = 0;
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		n += 1 + count_stmts(&s->body) + count_stmts(&s->else_body);
	}
	return n;
}

/* A use at statement s, place pos in program order: a loop around it that is not around the
   declaration counts whole, since the tensor keeps its contents from one iteration to the next. */
static void
use(Planned *p, Stmt *s, int pos)
{
	int first = pos, last = pos, first_line = s->loc.first_line, last_line = s->loc.last_line;
	if (P.nloops > p->loops && p->loops < (int)(sizeof P.loops / sizeof P.loops[0])) {
		Loop *l = &P.loops[p->loops];
		first = l->first;
		last = l->last;
		first_line = l->s->loc.first_line;
		last_line = l->s->loc.last_line;
	}
	if (p->first < 0 || first < p->first) {
		p->first = first;
		p->first_line = first_line;
	}
	if (last > p->last) {
		p->last = last;
		p->last_line = last_line;
	}
	if (p->sfirst < 0 || first < p->sfirst)
		p->sfirst = first;
	if (last > p->slast) {
		p->slast = last;
		p->slast_line = last_line;
	}
}

/* The warps of the CTA that a statement of this scope may run on: warp(K) and warpgroup(K) with a
   literal K, else every warp. */
static uint64_t
scope_warps(ScopeKind scope, const Expr *arg)
{
	int nwarps = (P.threads + 31) / 32;
	uint64_t all = nwarps >= 64 ? ~0ull : (1ull << nwarps) - 1;
	if (!arg || arg->kind != E_INT || arg->ival >= 64)
		return all;
	if (scope == SCOPE_WARP)
		return (1ull << arg->ival) & all;
	if (scope == SCOPE_WARPGROUP && arg->ival < 16)
		return (0xfull << (4 * arg->ival)) & all;
	return all;
}

/* An access that some later wait or cta_sync completes (see Pending). */
static void
pend(Planned *p, PendKind kind)
{
	for (int i = 0; i < P.pending.n; i++) {
		Pending *q = LIST_AT(P.pending, Pending, i);
		if (q->p == p && q->kind == kind) {
			if (P.depth < q->depth)
				q->depth = P.depth;
			return;
		}
	}
	Pending *q = pool_alloc(sizeof *q);
	q->p = p;
	q->kind = kind;
	q->depth = P.depth;
	list_push(&P.pending, q);
}

/* The accesses of kind (PEND_SYNC: waited for) that the wait or cta_sync s at place pos completes:
   their tensor stays live up to it. */
static void
complete(PendKind kind, Stmt *s, int pos)
{
	int n = 0;
	List done = {0};
	for (int i = 0; i < P.pending.n; i++) {
		Pending *q = LIST_AT(P.pending, Pending, i);
		if (q->kind != kind || q->depth < P.depth) {
			P.pending.v[n++] = q;
			continue;
		}
		if (kind != PEND_SYNC && pos > q->p->last) {
			q->p->last = pos;
			q->p->last_line = s->loc.last_line;
		}
		if (pos > q->p->slast) {
			q->p->slast = pos;
			q->p->slast_line = s->loc.last_line;
		}
		if (kind != PEND_SYNC)
			list_push(&done, q->p);
	}
	P.pending.n = n;
	for (int i = 0; i < done.n; i++)
		pend(done.v[i], PEND_SYNC);
}

/* Leaving a statement list: what is still pending in it is pending after the statement around it; out
   of a loop's body it is also pending across the back edge, so the whole loop joins its range. */
static void
leave(const Loop *loop)
{
	for (int i = 0; i < P.pending.n; i++) {
		Pending *q = LIST_AT(P.pending, Pending, i);
		if (q->depth <= P.depth)
			continue;
		q->depth = P.depth;
		if (!loop)
			continue;
		Planned *p = q->p;
		if (q->kind != PEND_SYNC) {
			if (loop->first < p->first) {
				p->first = loop->first;
				p->first_line = loop->s->loc.first_line;
			}
			if (loop->last > p->last) {
				p->last = loop->last;
				p->last_line = loop->s->loc.last_line;
			}
		}
		if (loop->first < p->sfirst)
			p->sfirst = loop->first;
		if (loop->last > p->slast) {
			p->slast = loop->last;
			p->slast_line = loop->s->loc.last_line;
		}
	}
}

static void
walk_nested(List *stmts, const Loop *loop)
{
	int mark = P.bindings.n;
	P.depth++;
	walk(stmts);
	P.depth--;
	leave(loop);
	unbind_to(mark);
}

/* The tensors an apply or copy names, and what it leaves pending. */
static void
use_operands(Stmt *s, int pos)
{
	PendKind kind = PEND_SYNC;
	Opcode op;
	char why[8];
	if (s->kind == S_APPLY && opcode_parse(s->opcode, &op, why, sizeof why))
		kind = op.is_ld ? PEND_LD : PEND_ST;
	uint64_t warps = s->kind == S_APPLY || s->has_scope ? scope_warps(s->scope, s->scope_arg) : scope_warps(SCOPE_CTA, NULL);
	for (int k = 0; k < s->operands.n; k++) {
		Binding *b = lookup(LIST_AT(s->operands, ViewExpr, k)->base);
		if (!b || !b->p)
			continue;
		/* copy(dst, src) */
		access(b->p, s->kind == S_APPLY ? kind == PEND_LD : k > 0);
		use(b->p, s, pos);
		b->p->warps |= warps;
		pend(b->p, kind);
	}
}

static void
walk(List *stmts)
{
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		int pos = P.pos++;
		switch (s->kind) {
		case S_TMEM:
			if (!s->value && !P.summary) {
				Planned *p = pool_alloc(sizeof *p);
				p->decl = s;
				p->first = p->last = p->sfirst = p->slast = p->nwguard = -1;
				p->loops = P.nloops;
				if (!measure(p))
					P.failed = true;
				list_push(&P.planned, p);
				bind(s->name, p);
				break;
			}
			/* fall through */
		case S_LET:
		case S_VAR:
		case S_SHARED:
		case S_LOCAL:
			bind(s->name, NULL);
			break;
		case S_VIEW: {
			Binding *b = lookup(s->view->base);
			bind(s->name, b ? b->p : NULL);
			break;
		}
		case S_APPLY:
		case S_COPY:
			use_operands(s, pos);
			break;
		case S_MMA: /* D written (k = 0), A and B read: as a copy's operands, and the tensor core's until a wait */
			use_operands(s, pos);
			for (int k = 0; k < s->operands.n; k++) {
				Binding *b = lookup(LIST_AT(s->operands, ViewExpr, k)->base);
				if (b && b->p)
					pend(b->p, PEND_MMA);
			}
			break;
		case S_MBAR:
			if (s->mbar_op == MB_WAIT)
				complete(PEND_MMA, s, pos);
			break;
		case S_CALL: {
			/* a device function's tmem argument: a name, or a view written in place (its base, also of mem[k]); the
			   function returns with its accesses complete */
			Sym *fn = lookup(s->name) ? NULL : sym_lookup(s->name);
			TmemAccess *acc = fn && fn->kind == SYM_DEVICE && fn->device->params.n == s->operands.n
			                  ? device_access(fn->device) : NULL;
			for (int k = 0; k < s->operands.n; k++) {
				Expr *a = LIST_AT(s->operands, Expr, k);
				Binding *b = a->kind == E_NAME || a->kind == E_VIEW || a->kind == E_INDEX ? lookup(a->name) : NULL;
				if (b && b->p) {
					/* a function lowering refuses is counted as loading its arguments */
					if (!acc || acc->read_first[k])
						access(b->p, true);
					if (acc && acc->written[k])
						access(b->p, false);
					use(b->p, s, pos);
					b->p->warps |= scope_warps(SCOPE_CTA, NULL);
					pend(b->p, PEND_SYNC);
				}
			}
			break;
		}
		case S_INSTR: {
			const IsaInstr *in = stmt_instr(s, NULL);
			if (in && in->kind == TC_ALLOC)
				list_push(&P.allocs, s);
			else if (in && (in->kind == TC_DEALLOC || in->kind == TC_RELINQUISH))
				list_push(&P.frees, s);
			else if (in && (in->kind == TC_WAIT_LD || in->kind == TC_WAIT_ST))
				complete(in->kind == TC_WAIT_LD ? PEND_LD : PEND_ST, s, pos);
			break;
		}
		case S_CTA_SYNC:
			complete(PEND_SYNC, s, pos);
			break;
		case S_FOR: {
			int mark = P.bindings.n;
			bind(s->name, NULL);
			Loop loop = {s, pos, pos + count_stmts(&s->body)};
			if (P.nloops < (int)(sizeof P.loops / sizeof P.loops[0]))
				P.loops[P.nloops] = loop;
			P.nloops++;
			int n = P.planned.n;
			bool *before = written_save();
			bool runs = surely_runs(s);
			if (!runs)
				guard_push(NULL, false);
			walk_nested(&s->body, &loop);
			if (!runs) {
				P.nguards--;
				written_restore(before, n, false);
			}
			P.nloops--;
			unbind_to(mark);
			break;
		}
		case S_IF: {
			int n = P.planned.n;
			bool *before = written_save();
			guard_push(s->value, false);
			walk_nested(&s->body, NULL);
			P.nguards--;
			bool *then = written_save();
			written_restore(before, n, false);
			guard_push(s->value, true);
			walk_nested(&s->else_body, NULL);
			P.nguards--;
			written_restore(then, n, true);
			break;
		}
		case S_BLOCK:
			walk_nested(&s->body, NULL);
			break;
		default:
			break;
		}
	}
}

/* Accesses still pending at the end of the kernel keep their tensors live to tilec's final cta_sync. */
static void
walk_end(Kernel *kd)
{
	for (int i = 0; i < P.pending.n; i++) {
		Pending *q = LIST_AT(P.pending, Pending, i);
		if (q->kind != PEND_SYNC) {
			q->p->last = P.pos;
			q->p->last_line = kd->loc.last_line;
		}
		q->p->slast = P.pos;
		q->p->slast_line = kd->loc.last_line;
	}
	P.pending.n = 0;
}

/* --------------------------------------------------------------- placing the columns */

static bool
has_lane(const Planned *p, int lane)
{
	return lane >= 0 && lane < TMEM_LANES && (p->lanes[lane / 64] >> (lane % 64) & 1);
}

/* Whether a warp may access a's cells and another warp b's, in some lane both use: accesses of
   different warps are ordered only by a cta_sync. In a CTA of up to four warps each lane is one warp's. */
static bool
other_warps(const Planned *a, const Planned *b)
{
	if (P.threads <= 128)
		return false;
	for (int slab = 0; slab < 4; slab++) {
		uint64_t lanes = 0xffffffffull << (32 * (slab % 2)), warps = a->warps | b->warps, in_slab = 0;
		if (!(a->lanes[slab / 2] & b->lanes[slab / 2] & lanes))
			continue;
		for (int w = slab; w < 64; w += 4)
			in_slab |= warps & 1ull << w;
		if (in_slab & (in_slab - 1))
			return true;
	}
	return false;
}

static bool
live_together(const Planned *a, const Planned *b)
{
	if (a->first < 0 || b->first < 0)
		return false;
	if (a->first <= b->last && b->first <= a->last)
		return true;
	return a->sfirst <= b->slast && b->sfirst <= a->slast && other_warps(a, b);
}

/* Two tensors need disjoint columns when they are live together, even in lanes of their own: the
   language gives tensors live at the same time disjoint columns, so a tensor's columns are its own
   in every lane while it is live. */
static bool
conflict(const Planned *a, const Planned *b)
{
	return live_together(a, b);
}

static Planned *
planned(int i)
{
	return LIST_AT(P.planned, Planned, i);
}

static bool
overlap(int a0, int an, int b0, int bn)
{
	return a0 < b0 + bn && b0 < a0 + an;
}

/* The lowest column from which p's columns are free of the tensors placed so far (bystart: placed
   indices sorted by first column) that it conflicts with. */
static int
first_fit(const Planned *p, const int *cols, const int *bystart, int nplaced)
{
	int at = 0;
	for (int i = 0; i < nplaced; i++) {
		const Planned *q = planned(bystart[i]);
		int q0 = cols[bystart[i]];
		if (q0 >= at + p->need)
			break;
		if (conflict(p, q) && q0 + q->need > at)
			at = q0 + q->need;
	}
	return at;
}

/* Places the tensors one by one in the given order. Without a cap, each goes to the lowest column
   free of conflicts (first fit: some order of it reaches the optimum), found in one sweep over the
   tensors placed so far in column order; a plan past 512 columns is given up at once. With a cap,
   each goes where it shares columns with the fewest tensors, keeping below the cap. Returns the
   columns used, or -1 when the cap was not kept; *shared counts the pairs of tensors with common
   columns. */
static int
place(const int *order, int *cols, int cap, int *shared, int *bystart)
{
	int n = P.planned.n, end = 0;
	*shared = 0;
	for (int k = 0; k < n && end <= TMEM_COLS; k++) {
		Planned *p = planned(order[k]);
		int best = -1, best_shared = 0;
		if (!cap)
			best = first_fit(p, cols, bystart, k);
		for (int c = -1; cap && c < k; c++) {
			int at = c < 0 ? 0 : cols[order[c]] + planned(order[c])->need, nshared = 0;
			bool ok = at + p->need <= cap;
			for (int j = 0; j < k && ok; j++) {
				Planned *q = planned(order[j]);
				if (overlap(at, p->need, cols[order[j]], q->need)) {
					ok = !conflict(p, q);
					nshared++;
				}
			}
			if (!ok)
				continue;
			if (best < 0 || nshared < best_shared || (nshared == best_shared && at < best)) {
				best = at;
				best_shared = nshared;
			}
		}
		if (best < 0)
			return -1;
		cols[order[k]] = best;
		*shared += best_shared;
		if (best + p->need > end)
			end = best + p->need;
		int i = k;
		while (i > 0 && cols[bystart[i - 1]] > best) {
			bystart[i] = bystart[i - 1];
			i--;
		}
		bystart[i] = order[k];
	}
	return end;
}

static int
alloc_size(int cols)
{
	int n = 32;
	while (n < cols)
		n *= 2;
	return n;
}

/* The next order to try: every permutation up to 7 tensors, else declaration order, then ones
   sorted by live range and by size, then a fixed pseudo-random sequence, as far as a budget of
   steps allows. false after the last. */
static bool
next_order(int *order, int n, int round, uint32_t *seed)
{
	if (n <= 7) {
		int i = n - 2;
		while (i >= 0 && order[i] > order[i + 1])
			i--;
		if (i < 0)
			return false;
		int j = n - 1;
		while (order[j] < order[i])
			j--;
		int t = order[i];
		order[i] = order[j];
		order[j] = t;
		for (int a = i + 1, b = n - 1; a < b; a++, b--) {
			t = order[a];
			order[a] = order[b];
			order[b] = t;
		}
		return true;
	}
	/* placing n tensors under a cap costs up to n^3 steps (first fit n^2): larger kernels get fewer orders */
	long long steps = (long long)n * n * n;
	if (round >= MAX_ORDERS || n > SEARCH_MAX || (round >= 3 && round * steps > 20000000))
		return false;
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = 1; i < n; i++) {
		int j = i;
		while (j > 0) {
			Planned *a = planned(order[j - 1]), *b = planned(order[j]);
			bool swap = round == 1 ? b->first < a->first : round == 2 ? b->need > a->need : false;
			if (!swap)
				break;
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
			j--;
		}
	}
	if (round > 2) {
		for (int i = n - 1; i > 0; i--) {
			*seed = *seed * 1103515245u + 12345u;
			int j = (int)((*seed >> 16) % (uint32_t)(i + 1));
			int t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}
	return true;
}

/* The most columns live at one point of the program (the start of some tensor's live range): no
   plan does with less. */
static int
lower_bound(void)
{
	int n = P.planned.n, bound = 0;
	for (int i = 0; i < n; i++) {
		Planned *p = planned(i);
		int sum = 0;
		for (int j = 0; j < n; j++) {
			Planned *q = planned(j);
			if (j == i || (q->first >= 0 && p->first >= 0 && q->first <= p->first && p->first <= q->last))
				sum += q->need;
		}
		bound = sum > bound ? sum : bound;
	}
	return bound;
}

/* Finds the smallest allocation, then within it the plan that shares columns between the fewest
   tensors (up to SEARCH_MAX tensors). Returns the columns the plan uses: more than 512 when none
   fits, and then *bound is the most columns live at once. */
static int
plan(int *ncols, int *bound)
{
	int n = P.planned.n;
	int *order = pool_alloc(sizeof(int) * n), *cols = pool_alloc(sizeof(int) * n);
	int *best = pool_alloc(sizeof(int) * n), *bystart = pool_alloc(sizeof(int) * n);
	*bound = lower_bound();
	int target = alloc_size(*bound), best_end = -1, shared;
	uint32_t seed = 1;
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int round = 1;; round++) {
		int end = place(order, cols, 0, &shared, bystart);
		if (best_end < 0 || end < best_end) {
			best_end = end;
			memcpy(best, cols, sizeof(int) * n);
		}
		if (alloc_size(best_end) <= target || !next_order(order, n, round, &seed))
			break;
	}
	*ncols = alloc_size(best_end);
	if (*ncols > TMEM_COLS)
		return best_end;
	int fewest = n > SEARCH_MAX ? 0 : -1;
	seed = 1;
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int round = 1; fewest != 0; round++) {
		int end = place(order, cols, *ncols, &shared, bystart);
		if (end >= 0 && (fewest < 0 || shared < fewest)) {
			fewest = shared;
			best_end = end;
			memcpy(best, cols, sizeof(int) * n);
		}
		if (!next_order(order, n, round, &seed))
			break;
	}
	for (int i = 0; i < n; i++)
		planned(i)->col = best[i];
	return best_end;
}

/* --------------------------------------------------------------- the statements it writes */

static Expr *
mk_expr(ExprKind kind, Loc loc)
{
	Expr *e = pool_alloc(sizeof *e);
	e->kind = kind;
	e->loc = loc;
	return e;
}

static Expr *
mk_int(int v, Loc loc)
{
	Expr *e = mk_expr(E_INT, loc);
	e->ival = (uint32_t)v;
	return e;
}

/* slot[0] (E_INDEX) or &slot[0] (E_ADDR) */
static Expr *
mk_slot(ExprKind kind, Loc loc)
{
	Expr *e = mk_expr(kind, loc);
	e->name = PLANNED_SLOT_NAME;
	list_push(&e->args, mk_int(0, loc));
	return e;
}

static Stmt *
mk_stmt(StmtKind kind, Loc loc)
{
	Stmt *s = pool_alloc(sizeof *s);
	s->kind = kind;
	s->loc = loc;
	return s;
}

static Stmt *
mk_instr(TcKind kind, int cta_group, Loc loc)
{
	Stmt *s = mk_stmt(S_INSTR, loc);
	s->instr = isa_instr(kind);
	s->cta_group = cta_group;
	s->opcode_loc = loc;
	return s;
}

/* if (warp_id == 0) { body } */
static Stmt *
mk_warp0(Loc loc)
{
	Stmt *s = mk_stmt(S_IF, loc);
	Expr *w = mk_expr(E_BUILTIN, loc);
	w->builtin = B_WARP_ID;
	s->value = mk_expr(E_BINARY, loc);
	s->value->op = OP_EQ;
	s->value->a = w;
	s->value->b = mk_int(0, loc);
	return s;
}

/* The statements of a hand-written allocation, around the body: at the start the slot, the alloc
   and the relinquish by warp 0 and the barrier that publishes the address; at the end (a
   kernel has no early exit) the barrier after the last use and the dealloc. lower.c adds the fences. */
static void
write_allocation(Kernel *kd, int ncols, int cta_group)
{
	Loc start = kd->name_loc, end = kd->loc;
	end.first_line = end.last_line;
	end.first_column = end.last_column;
	Stmt *slot = mk_stmt(S_SHARED, start);
	slot->name = PLANNED_SLOT_NAME;
	slot->name_loc = start;
	slot->type = T_U32;
	list_push(&slot->dims, mk_int(1, start));
	Stmt *alloc = mk_instr(TC_ALLOC, cta_group, start);
	list_push(&alloc->operands, mk_slot(E_ADDR, start));
	list_push(&alloc->operands, mk_int(ncols, start));
	Stmt *first = mk_warp0(start);
	list_push(&first->body, alloc);
	list_push(&first->body, mk_instr(TC_RELINQUISH, cta_group, start));
	Stmt *dealloc = mk_instr(TC_DEALLOC, cta_group, end);
	list_push(&dealloc->operands, mk_slot(E_INDEX, end));
	list_push(&dealloc->operands, mk_int(ncols, end));
	Stmt *last = mk_warp0(end);
	list_push(&last->body, dealloc);

	List body = {0};
	list_push(&body, slot);
	list_push(&body, first);
	list_push(&body, mk_stmt(S_CTA_SYNC, start));
	for (int i = 0; i < kd->body.n; i++)
		list_push(&body, kd->body.v[i]);
	/* a pair's dealloc waits for both CTAs: the even CTA's mma and cp write the odd CTA's columns too */
	Stmt *final = mk_stmt(cta_group == 2 ? S_MBAR : S_CTA_SYNC, end);
	final->mbar_op = MB_CLUSTER_SYNC;
	list_push(&body, final);
	list_push(&body, last);
	kd->body = body;

	for (int i = 0; i < P.planned.n; i++) {
		Planned *p = planned(i);
		Expr *at = mk_slot(E_INDEX, p->decl->name_loc);
		if (p->col) {
			Expr *sum = mk_expr(E_BINARY, p->decl->name_loc);
			sum->op = OP_ADD;
			sum->a = at;
			sum->b = mk_int(p->col, p->decl->name_loc);
			at = sum;
		}
		p->decl->value = at;
	}
}

/* --------------------------------------------------------------- reports */

/* The tensors live together with tensor i, or (sharing) those with columns in
   common with it: the first few by name, then how many more. */
static const char *
others(int i, bool sharing)
{
	Planned *p = planned(i);
	Buf b = {0};
	int n = 0;
	for (int j = 0; j < P.planned.n; j++) {
		Planned *q = planned(j);
		if (j == i || !(sharing ? overlap(p->col, p->need, q->col, q->need) : conflict(p, q)) || n++ >= 8)
			continue;
		buf_printf(&b, "%s'%s'", n > 1 ? ", " : "", q->decl->name);
		if (sharing)
			buf_printf(&b, " (never live at the same time)");
	}
	if (n > 8)
		buf_printf(&b, " and %d more", n - 8);
	const char *r = pool_strdup(b.len ? b.data : "");
	buf_free(&b);
	return r;
}

/* "lanes 0..127", or the runs of lanes: "lanes 0..15, 32..47" */
static const char *
lanes_text(const Planned *p)
{
	Buf b = {0};
	for (int lane = 0; lane < TMEM_LANES; lane++) {
		if (!has_lane(p, lane) || has_lane(p, lane - 1))
			continue;
		int last = lane;
		while (has_lane(p, last + 1))
			last++;
		buf_printf(&b, "%s%d..%d", b.len ? ", " : "lanes ", lane, last);
	}
	const char *r = pool_strdup(b.len ? b.data : "no lanes");
	buf_free(&b);
	return r;
}

static const char *
live_text(const Planned *p)
{
	if (p->first < 0)
		return "never used";
	/* other warps in its lanes wait for a cta_sync (other_warps) */
	const char *others = P.threads > 128 && p->slast_line > p->last_line
	                     ? pool_printf(" (for other warps to line %d)", p->slast_line) : "";
	if (p->read_first)
		return pool_printf("live from the kernel start (a load may come before any store: it holds data from "
		                   "outside the kernel) to line %d%s", p->last_line, others);
	if (p->first_line == p->last_line)
		return pool_printf("live on line %d%s", p->first_line, others);
	return pool_printf("live from line %d to line %d%s", p->first_line, p->last_line, others);
}

static void
report_too_large(Kernel *kd, int bound)
{
	if (bound > TMEM_COLS)
		error(kd->name_loc, "the tmem tensors of kernel '%s' need %d columns of tensor memory at the same time, "
		      "more than the %d a CTA has", kd->name, bound, TMEM_COLS);
	else
		error(kd->name_loc, "the tmem tensors of kernel '%s' do not fit in the 512 columns of tensor memory a CTA "
		      "has: no placement of the columns they need at the same time fits", kd->name);
	for (int i = 0; i < P.planned.n; i++) {
		Planned *p = planned(i);
		const char *with = others(i, false);
		note(p->decl->name_loc, "'%s' needs %d columns (%s), %s%s%s", p->decl->name, p->need, lanes_text(p),
		     live_text(p), *with ? ", together with " : "", with);
	}
}

static void
explain(Kernel *kd, int ncols, int used, int cta_group)
{
	explain_note(kd->name_loc, "kernel '%s': tilec allocates %d columns of tensor memory (the plan uses %d) for %d "
	             "tmem tensor%s without 'at': %s by warp 0 at the kernel start%s, then %s, and %s after a final "
	             "%s", kd->name, ncols, used, P.planned.n, P.planned.n == 1 ? "" : "s", isa_name(TC_ALLOC, cta_group == 2 ? 2 : 0),
	             cta_group == 2 ? " (of both CTAs of the pair)" : "", isa_instr(TC_RELINQUISH)->name,
	             isa_name(TC_DEALLOC, cta_group == 2 ? 2 : 0), cta_group == 2 ? "cluster_sync" : "cta_sync");
	for (int i = 0; i < P.planned.n; i++) {
		Planned *p = planned(i);
		const char *with = others(i, true);
		explain_note(p->decl->name_loc, "'%s': TMEM columns %d..%d, %s, %s%s%s", p->decl->name, p->col,
		             p->col + p->need - 1, lanes_text(p), live_text(p), *with ? "; shares columns with " : "", with);
	}
}

/* --------------------------------------------------------------- the entry */

void
tmemplan_kernel(Kernel *kd, int threads, int cta_group)
{
	P = (PlanState){0};
	P.threads = threads;
	walk(&kd->body);
	walk_end(kd);
	if (!P.planned.n)
		return;
	for (int i = 0; i < P.planned.n; i++) {
		Planned *p = planned(i);
		if (p->read_first && p->first >= 0) {
			p->first = p->sfirst = 0;
			p->first_line = kd->name_loc.first_line;
		}
	}
	if (P.allocs.n) {
		Stmt *first = planned(0)->decl;
		for (int i = 0; i < P.allocs.n; i++) {
			Stmt *s = LIST_AT(P.allocs, Stmt, i);
			error(s->opcode_loc, "kernel '%s' declares tmem tensors without 'at', whose tensor memory tilec "
			      "allocates; it may not also allocate with %s", kd->name, isa_name(TC_ALLOC, 0));
			note(first->name_loc, "'%s' is declared without 'at' here", first->name);
		}
		error(first->name_loc, "'%s' is declared without 'at' in kernel '%s', which allocates tensor memory itself; "
		      "declare it 'at' the slot that %s fills", first->name, kd->name, isa_name(TC_ALLOC, 0));
		note(LIST_AT(P.allocs, Stmt, 0)->opcode_loc, "the %s is here", isa_name(TC_ALLOC, 0));
		return;
	}
	for (int i = 0; i < P.frees.n; i++) {
		Stmt *s = LIST_AT(P.frees, Stmt, i);
		error(s->opcode_loc, "kernel '%s' declares tmem tensors without 'at': tilec relinquishes and frees the "
		      "tensor memory it allocates for them; remove this instruction", kd->name);
		note(planned(0)->decl->name_loc, "'%s' is declared without 'at' here", planned(0)->decl->name);
	}
	if (P.frees.n || P.failed)
		return;
	int ncols, bound, used = plan(&ncols, &bound);
	if (ncols > 512) {
		report_too_large(kd, bound);
		return;
	}
	explain(kd, ncols, used, cta_group);
	write_allocation(kd, ncols, cta_group);
}
