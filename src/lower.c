/* lower.c: walks each kernel, checks statements and tcgen05 instructions, and builds the lowered program. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* Facts of the protocol checks carry the set of warps on whose path they hold: a branch whose
   condition splits the CTA by warp sends each warp down one side only. */

/* A register written by tcgen05.ld that no wait::ld has covered yet. */
typedef struct LoadedReg {
	Tensor *tensor;
	int word;
	Loc loc;
	uint64_t warps;
} LoadedReg;

/* An allocation not yet freed. */
typedef struct LiveAlloc {
	AllocInfo *alloc;
	uint64_t warps;
} LiveAlloc;

/* A TMEM rectangle written by one warp's tcgen05.st, and how far it has completed on this path. */
typedef struct StoreState {
	TmemRect rect;
	Loc loc;
	bool pending;  /* its warp has not executed wait::st since */
	bool unsynced; /* no cta_sync after that wait: other warps may not read it */
	int id;
} StoreState;

/* What the protocol checks know at a point of the kernel; merged where control flow joins. */
typedef struct Flow {
	List loaded;  /* LoadedReg*, owned by this path */
	List stores;  /* StoreState*, owned by this path */
	List live;    /* LiveAlloc*, owned by this path */
	List freed;   /* AllocInfo*: freed on some path */
	uint64_t relinquished_some, relinquished_all; /* warps */
	Loc relinquish_loc;
} Flow;

typedef struct Walk {
	KernelIR *k;
	List *out;          /* where lowered statements go */
	uint64_t warps;     /* warps that may execute the current statement */
	bool varying_flow;  /* inside control flow that may split a warp */
	Loc varying_loc;    /* the condition that splits it */
	int cta_group;      /* 0 until the first instruction that names one */
	Loc cta_group_loc;
	List allocs;        /* AllocInfo* */
	Flow flow;
	int store_ids;
	int64_t unrolled;   /* iterations unrolled so far in this kernel */
	List *cur_list;     /* the statement list being lowered, and the statement's place in it */
	int cur_index;
	List after_wait;    /* LStmt* to put after the next wait::ld of this list */
} Walk;

static Walk W;

static const char *const reserved_names[] = {
	"auto", "bool", "break", "case", "char", "class", "const", "continue", "default", "delete", "do",
	"double", "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline", "int", "long",
	"namespace", "new", "operator", "private", "protected", "public", "register", "restrict", "return",
	"short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "true", "typedef",
	"typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "asm", "threadIdx",
	"blockIdx", "blockDim", "gridDim", "warpSize", "main", "dim3", "uint", "half", "nullptr", "and", "or",
	"not", "xor", "bitand", "bitor", "compl", "catch", "try", "throw", "friend", "mutable", "export",
};

static bool
name_taken(KernelIR *k, const char *name)
{
	if (strncmp(name, "tl_", 3) == 0 || strncmp(name, "__", 2) == 0)
		return true;
	for (size_t i = 0; i < sizeof reserved_names / sizeof reserved_names[0]; i++)
		if (strcmp(reserved_names[i], name) == 0)
			return true;
	for (int i = 0; i < k->names.n; i++)
		if (strcmp(LIST_AT(k->names, char, i), name) == 0)
			return true;
	return false;
}

/* A name for the generated code: the source name where it is free, else the name with a suffix. */
static const char *
cname_for(const char *want)
{
	/* names the generated code keeps for itself get a prefix of their own */
	if (strncmp(want, "tl_", 3) == 0 || strncmp(want, "__", 2) == 0)
		want = pool_printf("u%s", want);
	const char *name = want;
	for (int n = 1; name_taken(W.k, name); n++)
		name = pool_printf("%s_%d", want, n);
	list_push(&W.k->names, (void *)name);
	return name;
}

static LStmt *
emit(LKind kind, Loc loc)
{
	LStmt *s = pool_alloc(sizeof *s);
	s->kind = kind;
	s->loc = loc;
	list_push(W.out, s);
	return s;
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

static Tensor *
tensor_new(TensorKind kind, const char *name, Loc loc, EType type)
{
	Tensor *t = pool_alloc(sizeof *t);
	t->kind = kind;
	t->name = name;
	t->loc = loc;
	t->type = type;
	return t;
}

/* --------------------------------------------------------------- views */

static View *
eval_view(ViewExpr *ve)
{
	Sym *s = sym_use(ve->base, ve->base_loc);
	if (!s)
		return NULL;
	View *v;
	if (s->kind == SYM_VIEW)
		v = s->view;
	else if (s->kind == SYM_TENSOR)
		v = view_of_tensor(s->tensor);
	else {
		error(ve->base_loc, "'%s' is not a tensor or a view", ve->base);
		note(s->loc, "'%s' is defined here", ve->base);
		return NULL;
	}
	v->name = ve->base;
	for (int i = 0; i < ve->ops.n && v; i++) {
		ViewOp *op = LIST_AT(ve->ops, ViewOp, i);
		if (op->kind == VOP_VIEW) {
			int dims[MAX_RANK];
			if (op->dims.n > MAX_RANK) {
				error(op->loc, "at most %d dimensions", MAX_RANK);
				return NULL;
			}
			for (int d = 0; d < op->dims.n; d++) {
				int64_t x;
				if (!const_int(LIST_AT(op->dims, Expr, d), &x, "a view dimension"))
					return NULL;
				if (x <= 0 || x > (1 << 24)) {
					error(LIST_AT(op->dims, Expr, d)->loc, "view dimension %lld is out of range (1 to %d)",
					      (long long)x, 1 << 24);
					return NULL;
				}
				dims[d] = (int)x;
			}
			if (op->layout) {
				if (op->layout->kind != LAY_DEFAULT) {
					error(op->layout->loc, "a per-thread view takes only 'layout = default'");
					return NULL;
				}
				if (i != 0 || s->kind != SYM_TENSOR) {
					error(op->loc, "the per-thread view is taken of a local tensor itself, not of a view");
					return NULL;
				}
				int n = 1;
				for (int d = 0; d < op->dims.n; d++)
					n *= dims[d];
				v = view_per_thread(s->tensor, n, op->loc);
				if (v && op->dims.n != 1)
					v = view_reshape(v, op->dims.n, dims, op->loc);
			} else {
				v = view_reshape(v, op->dims.n, dims, op->loc);
			}
		} else if (op->kind == VOP_REARRANGE) {
			int n = op->bindings.n;
			const char **names = malloc(sizeof(char *) * (n ? n : 1));
			int *sizes = malloc(sizeof(int) * (n ? n : 1));
			Loc *locs = malloc(sizeof(Loc) * (n ? n : 1));
			bool ok = names && sizes && locs;
			for (int b = 0; b < n && ok; b++) {
				NamedArg *na = LIST_AT(op->bindings, NamedArg, b);
				int64_t x;
				ok = const_int(na->value, &x, "a rearrange size");
				names[b] = na->name;
				sizes[b] = x < -(1 << 24) ? -(1 << 24) : x > (1 << 24) ? (1 << 24) : (int)x;
				locs[b] = na->loc;
			}
			v = ok ? view_rearrange(v, op->pattern, op->pattern_loc, names, sizes, locs, n) : NULL;
			free(names);
			free(sizes);
			free(locs);
		} else {
			SliceSpec spec[MAX_RANK];
			if (op->indices.n > v->rank || op->indices.n > MAX_RANK) {
				error(op->loc, "%d indices for '%s' of rank %d", op->indices.n, ve->base, v->rank);
				return NULL;
			}
			for (int d = 0; d < op->indices.n; d++) {
				SliceIndex *si = LIST_AT(op->indices, SliceIndex, d);
				int64_t lo = 0, hi = v->dims[d];
				spec[d].loc = si->loc;
				spec[d].is_range = si->is_range;
				if (si->is_range) {
					if ((si->lo && !const_int(si->lo, &lo, "a slice bound")) ||
					    (si->hi && !const_int(si->hi, &hi, "a slice bound")))
						return NULL;
				} else if (!const_int(si->index, &lo, "an index into a view")) {
					return NULL;
				}
				/* view.c reports bounds against the dimension; values beyond any dimension are reported here */
				if (lo < -(1 << 24) || lo > (1 << 24) || hi < -(1 << 24) || hi > (1 << 24)) {
					error(si->loc, "%s %lld is out of range for dimension %d of size %d",
					      si->is_range ? "slice bound" : "index", (long long)(lo < -(1 << 24) || lo > (1 << 24) ? lo : hi),
					      d, v->dims[d]);
					return NULL;
				}
				spec[d].lo = (int)lo;
				spec[d].hi = (int)hi;
			}
			v = view_slice(v, spec, op->indices.n);
		}
		if (v)
			v->name = ve->base;
	}
	return v;
}

/* --------------------------------------------------------------- warps and control flow */

static int
popcount64(uint64_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

static int
lowest_warp(uint64_t x)
{
	for (int i = 0; i < 64; i++)
		if (x >> i & 1)
			return i;
	return -1;
}

/* Splits the current warps by a condition: which warps take each side, and whether a warp may split. */
static void
split_warps(IExpr *cond, uint64_t *then_warps, uint64_t *else_warps, bool *varying)
{
	*then_warps = *else_warps = 0;
	*varying = false;
	int nwarps = (W.k->threads + 31) / 32;
	for (int w = 0; w < nwarps; w++) {
		if (!(W.warps >> w & 1))
			continue;
		int ntrue = 0, nfalse = 0;
		for (int l = 0; l < 32 && w * 32 + l < W.k->threads; l++) {
			int64_t v;
			if (!ie_eval_thread(cond, w * 32 + l, &v)) {
				*then_warps = *else_warps = W.warps;
				*varying = ie_varying(cond);
				return;
			}
			if (v)
				ntrue++;
			else
				nfalse++;
		}
		if (ntrue)
			*then_warps |= 1ull << w;
		if (nfalse)
			*else_warps |= 1ull << w;
		if (ntrue && nfalse)
			*varying = true;
	}
}


static AllocInfo *find_alloc(IExpr *addr, int *col_offset, int *lane_offset);

/* --------------------------------------------------------------- protocol flow */

static List
list_copy(const List *l)
{
	List r = {0};
	for (int i = 0; i < l->n; i++)
		list_push(&r, l->v[i]);
	return r;
}

static Flow
flow_copy(const Flow *f)
{
	Flow r = *f;
	r.freed = list_copy(&f->freed);
	r.loaded = r.stores = r.live = (List){0};
	for (int i = 0; i < f->loaded.n; i++) {
		LoadedReg *x = pool_alloc(sizeof *x);
		*x = *LIST_AT(f->loaded, LoadedReg, i);
		list_push(&r.loaded, x);
	}
	for (int i = 0; i < f->stores.n; i++) {
		StoreState *x = pool_alloc(sizeof *x);
		*x = *LIST_AT(f->stores, StoreState, i);
		list_push(&r.stores, x);
	}
	for (int i = 0; i < f->live.n; i++) {
		LiveAlloc *x = pool_alloc(sizeof *x);
		*x = *LIST_AT(f->live, LiveAlloc, i);
		list_push(&r.live, x);
	}
	return r;
}

/* Joins two paths: warps that went only one way keep that side's facts, warps that may have gone
   either way keep the union (may facts) or the intersection (must facts). */
static uint64_t
join_may(uint64_t a, uint64_t b, uint64_t t, uint64_t e)
{
	return (a & t) | (b & e) | (a & ~t & ~e);
}

static uint64_t
join_must(uint64_t a, uint64_t b, uint64_t t, uint64_t e)
{
	return (a & t & ~e) | (b & e & ~t) | (a & b & t & e) | (a & ~t & ~e);
}

static Flow
flow_merge(const Flow *a, const Flow *b, uint64_t t, uint64_t e)
{
	Flow r = flow_copy(a);
	for (int i = 0; i < r.loaded.n; i++) {
		LoadedReg *x = LIST_AT(r.loaded, LoadedReg, i);
		uint64_t other = 0;
		for (int j = 0; j < b->loaded.n; j++) {
			LoadedReg *y = LIST_AT(b->loaded, LoadedReg, j);
			if (y->tensor == x->tensor && y->word == x->word)
				other = y->warps;
		}
		x->warps = join_may(x->warps, other, t, e);
	}
	for (int j = 0; j < b->loaded.n; j++) {
		LoadedReg *y = LIST_AT(b->loaded, LoadedReg, j);
		bool seen = false;
		for (int i = 0; i < a->loaded.n && !seen; i++)
			seen = LIST_AT(a->loaded, LoadedReg, i)->tensor == y->tensor &&
			       LIST_AT(a->loaded, LoadedReg, i)->word == y->word;
		if (!seen) {
			LoadedReg *x = pool_alloc(sizeof *x);
			*x = *y;
			x->warps = join_may(0, y->warps, t, e);
			list_push(&r.loaded, x);
		}
	}
	for (int i = 0; i < r.live.n; i++) {
		LiveAlloc *x = LIST_AT(r.live, LiveAlloc, i);
		uint64_t other = 0;
		for (int j = 0; j < b->live.n; j++)
			if (LIST_AT(b->live, LiveAlloc, j)->alloc == x->alloc)
				other = LIST_AT(b->live, LiveAlloc, j)->warps;
		x->warps = join_may(x->warps, other, t, e);
	}
	for (int j = 0; j < b->live.n; j++) {
		LiveAlloc *y = LIST_AT(b->live, LiveAlloc, j);
		bool seen = false;
		for (int i = 0; i < a->live.n && !seen; i++)
			seen = LIST_AT(a->live, LiveAlloc, i)->alloc == y->alloc;
		if (!seen) {
			LiveAlloc *x = pool_alloc(sizeof *x);
			*x = *y;
			x->warps = join_may(0, y->warps, t, e);
			list_push(&r.live, x);
		}
	}
	for (int i = 0; i < b->freed.n; i++)
		if (!list_has(&r.freed, b->freed.v[i]))
			list_push(&r.freed, b->freed.v[i]);
	for (int i = 0; i < r.stores.n; i++) {
		StoreState *x = LIST_AT(r.stores, StoreState, i);
		uint64_t bit = 1ull << x->rect.warp, pb = 0, ub = 0;
		for (int j = 0; j < b->stores.n; j++) {
			StoreState *y = LIST_AT(b->stores, StoreState, j);
			if (y->id == x->id) {
				pb = y->pending ? bit : 0;
				ub = y->unsynced ? bit : 0;
			}
		}
		x->pending = join_may(x->pending ? bit : 0, pb, t, e) != 0;
		x->unsynced = join_may(x->unsynced ? bit : 0, ub, t, e) != 0;
	}
	for (int j = 0; j < b->stores.n; j++) {
		StoreState *y = LIST_AT(b->stores, StoreState, j);
		bool seen = false;
		for (int i = 0; i < a->stores.n && !seen; i++)
			seen = LIST_AT(a->stores, StoreState, i)->id == y->id;
		if (!seen) {
			StoreState *x = pool_alloc(sizeof *x);
			*x = *y;
			list_push(&r.stores, x);
		}
	}
	r.relinquished_some = join_may(a->relinquished_some, b->relinquished_some, t, e);
	r.relinquished_all = join_must(a->relinquished_all, b->relinquished_all, t, e);
	if (!a->relinquished_some)
		r.relinquish_loc = b->relinquish_loc;
	return r;
}

/* Drops facts that no longer constrain anything, so long kernels keep the lists short. */
static void
flow_prune(Flow *f)
{
	int n = 0;
	for (int i = 0; i < f->loaded.n; i++)
		if (LIST_AT(f->loaded, LoadedReg, i)->warps)
			f->loaded.v[n++] = f->loaded.v[i];
	f->loaded.n = n;
	n = 0;
	for (int i = 0; i < f->stores.n; i++) {
		StoreState *st = LIST_AT(f->stores, StoreState, i);
		if (st->pending || st->unsynced)
			f->stores.v[n++] = st;
	}
	f->stores.n = n;
}

static LoadedReg *
find_loaded(Tensor *t, int word)
{
	for (int i = 0; i < W.flow.loaded.n; i++) {
		LoadedReg *r = LIST_AT(W.flow.loaded, LoadedReg, i);
		if (r->tensor == t && r->word == word && (r->warps & W.warps))
			return r;
	}
	return NULL;
}

/* Reports a read of a register that a tcgen05.ld may still be writing. */
static void
check_reads(const IExpr *e, Loc loc)
{
	if (!e)
		return;
	if (e->kind == IE_REG) {
		int word = e->slot * etype_bits(e->tensor->type) / 32;
		LoadedReg *r = find_loaded(e->tensor, word);
		if (r) {
			error(loc, "reads register slot %d of '%s' before %s; the tcgen05.ld that writes it may not have "
			           "completed", e->slot, e->tensor->name, isa_name(TC_WAIT_LD, 0));
			note(r->loc, "the tcgen05.ld that writes it is here; put %s; after it on every path to the read",
			     isa_spelling(TC_WAIT_LD, 0));
			/* one report per load is enough */
			for (int i = 0; i < W.flow.loaded.n; i++)
				if (LIST_AT(W.flow.loaded, LoadedReg, i)->loc.first_line == r->loc.first_line &&
				    LIST_AT(W.flow.loaded, LoadedReg, i)->loc.file == r->loc.file)
					LIST_AT(W.flow.loaded, LoadedReg, i)->warps = 0;
		}
		return;
	}
	check_reads(e->a, loc);
	check_reads(e->b, loc);
	check_reads(e->index, loc);
}

static bool
rects_overlap(const TmemRect *a, const TmemRect *b)
{
	return a->space == b->space && a->lane0 < b->lane0 + b->lanes && b->lane0 < a->lane0 + a->lanes &&
	       a->col0 < b->col0 + b->cols && b->col0 < a->col0 + a->cols;
}

/* The ordering rules of TCGEN05.md section 5 for one apply, then its effect on the flow. */
static void
apply_protocol(Stmt *s, ApplyCtx *ctx)
{
	if (!ctx->is_ld) {
		for (int i = 0; i < ctx->regs.n; i++) {
			RegRef *ref = LIST_AT(ctx->regs, RegRef, i);
			LoadedReg *r = find_loaded(ref->tensor, ref->word);
			if (r) {
				error(s->loc, "this tcgen05.st stores registers of '%s' that a tcgen05.ld may still be writing",
				      ref->tensor->name);
				note(r->loc, "the tcgen05.ld is here; %s must come between", isa_spelling(TC_WAIT_LD, 0));
				for (int j = 0; j < W.flow.loaded.n; j++)
					LIST_AT(W.flow.loaded, LoadedReg, j)->warps = 0;
				break;
			}
		}
		for (int i = 0; i < ctx->rects.n; i++) {
			TmemRect *r = LIST_AT(ctx->rects, TmemRect, i);
			/* a store of the same cells by the same warp supersedes an older one */
			int n = 0;
			for (int j = 0; j < W.flow.stores.n; j++) {
				StoreState *old = LIST_AT(W.flow.stores, StoreState, j);
				if (!(old->rect.space == r->space && old->rect.warp == r->warp && old->rect.lane0 == r->lane0 &&
				      old->rect.lanes == r->lanes && old->rect.col0 == r->col0 && old->rect.cols == r->cols))
					W.flow.stores.v[n++] = old;
			}
			W.flow.stores.n = n;
			StoreState *st = pool_alloc(sizeof *st);
			st->rect = *r;
			st->loc = s->loc;
			st->pending = st->unsynced = true;
			st->id = ++W.store_ids;
			list_push(&W.flow.stores, st);
		}
		return;
	}
	bool reported = false;
	for (int i = 0; i < ctx->rects.n && !reported; i++) {
		TmemRect *r = LIST_AT(ctx->rects, TmemRect, i);
		for (int j = 0; j < W.flow.stores.n && !reported; j++) {
			StoreState *st = LIST_AT(W.flow.stores, StoreState, j);
			if (!rects_overlap(r, &st->rect))
				continue;
			int lane = r->lane0 > st->rect.lane0 ? r->lane0 : st->rect.lane0;
			int col = r->col0 > st->rect.col0 ? r->col0 : st->rect.col0;
			if (st->rect.warp == r->warp && st->pending) {
				error(s->loc, "tcgen05.ld reads TMEM (lane %d, column %d) that warp %d stored with tcgen05.st "
				              "without %s in between", lane, col, r->warp, isa_name(TC_WAIT_ST, 0));
				note(st->loc, "the tcgen05.st is here; put %s; after it", isa_spelling(TC_WAIT_ST, 0));
				reported = true;
			} else if (st->rect.warp != r->warp && st->unsynced) {
				error(s->loc, "warp %d reads TMEM (lane %d, column %d) that warp %d stored; warp %d must execute "
				              "%s and then cta_sync before this load", r->warp, lane, col, st->rect.warp,
				      st->rect.warp, isa_name(TC_WAIT_ST, 0));
				note(st->loc, "the tcgen05.st of warp %d is here", st->rect.warp);
				reported = true;
			}
		}
	}
	for (int i = 0; i < ctx->regs.n; i++) {
		RegRef *ref = LIST_AT(ctx->regs, RegRef, i);
		LoadedReg *r = NULL;
		for (int j = 0; j < W.flow.loaded.n && !r; j++)
			if (LIST_AT(W.flow.loaded, LoadedReg, j)->tensor == ref->tensor &&
			    LIST_AT(W.flow.loaded, LoadedReg, j)->word == ref->word)
				r = LIST_AT(W.flow.loaded, LoadedReg, j);
		if (!r) {
			r = pool_alloc(sizeof *r);
			r->tensor = ref->tensor;
			r->word = ref->word;
			list_push(&W.flow.loaded, r);
		}
		r->loc = s->loc;
		r->warps |= W.warps;
	}
}

static bool
check_not_freed(Tensor *t, Loc loc)
{
	if (t->alloc && list_has(&W.flow.freed, t->alloc)) {
		error(loc, "'%s' is used after the %s of its tensor memory", t->name, isa_name(TC_DEALLOC, 0));
		note(t->alloc->freed_at, "the %s is here", isa_name(TC_DEALLOC, 0));
		return false;
	}
	return true;
}

/* --------------------------------------------------------------- tcgen05 single instructions */

static bool
check_ncols(Expr *e, int *out)
{
	int64_t n;
	if (!const_int(e, &n, "the column count"))
		return false;
	if (n < 32 || n > 512 || (n & (n - 1))) {
		error(e->loc, "tcgen05 allocations take a power of two from 32 to 512 columns, not %lld", (long long)n);
		return false;
	}
	*out = (int)n;
	return true;
}

static void
note_cta_group(int group, Loc loc)
{
	if (!W.cta_group) {
		W.cta_group = group;
		W.cta_group_loc = loc;
	} else if (W.cta_group != group) {
		error(loc, "cta_group::%d mixed with cta_group::%d in one kernel", group, W.cta_group);
		note(W.cta_group_loc, "cta_group::%d is used here", W.cta_group);
	}
}

/* tcgen05 instructions are .sync.aligned: the whole warp must execute each one. */
static bool
check_warp_uniform(Loc loc, const char *what)
{
	if (W.varying_flow) {
		error(loc, "%s inside control flow that can split a warp; every lane of the warp must execute it", what);
		note(W.varying_loc, "this condition differs between the lanes of a warp");
		return false;
	}
	return true;
}

static void
lower_instr(Stmt *s)
{
	int group = 0;
	const IsaInstr *spec = isa_parse(s->opcode, &group);
	if (!spec) {
		if (strncmp(s->opcode, "tcgen05.ld.", 11) == 0 || strncmp(s->opcode, "tcgen05.st.", 11) == 0)
			error(s->opcode_loc, "tcgen05.%s is written with apply, which checks it against its image: "
			                     "apply %s(...) scope warpgroup;", s->opcode[8] == 'l' ? "ld" : "st", s->opcode);
		else
			error(s->opcode_loc, "unknown tcgen05 instruction '%s'; tilec knows %s (with their exact PTX spelling), "
			                     "and ld / st through apply", s->opcode, isa_known());
		return;
	}
	if (s->operands.n != spec->noperands) {
		error(s->loc, "%s takes %d operand%s, not %d", s->opcode, spec->noperands, spec->noperands == 1 ? "" : "s",
		      s->operands.n);
		return;
	}
	/* alloc and dealloc go on after this error so that the allocation they name stays known */
	bool uniform = !spec->aligned || check_warp_uniform(s->loc, s->opcode);
	if (!uniform && !spec->one_warp)
		return;
	if (group)
		note_cta_group(group, s->opcode_loc);
	LStmt *l = pool_alloc(sizeof *l);
	l->kind = L_TC;
	l->loc = s->loc;
	l->tc = spec->kind;
	l->cta_group = group;
	if (spec->kind == TC_ALLOC) {
		Expr *slot = LIST_AT(s->operands, Expr, 0);
		IExpr *addr = sema_expr(slot);
		if (!addr)
			return;
		if (addr->kind != IE_SADDR || addr->tensor->type != T_U32) {
			error(slot->loc, "%s writes the TMEM address to a shared u32 slot: pass &slot[i]", isa_name(TC_ALLOC, 0));
			return;
		}
		/* after an error the allocation is still recorded, so later statements do not cascade */
		bool ok = check_ncols(LIST_AT(s->operands, Expr, 1), &l->ncols);
		if (!ok)
			l->ncols = 0; /* unknown: later checks of the column count stay quiet */
		if (popcount64(W.warps) > 1) {
			if (uniform)
				error(s->loc, "%s must be executed by one warp, but %d warps can reach it here; guard it with "
				              "if (warp_id == K)", isa_name(TC_ALLOC, 0), popcount64(W.warps));
			ok = false;
		}
		uint64_t by = ok ? W.warps : 1ull << lowest_warp(W.warps);
		if (ok && (W.flow.relinquished_some & W.warps)) {
			error(s->loc, "%s after %s: this CTA gave up its right to allocate", isa_name(TC_ALLOC, 0),
			      isa_name(TC_RELINQUISH, 0));
			note(W.flow.relinquish_loc, "the %s is here", isa_instr(TC_RELINQUISH)->name);
		}
		for (int i = 0; i < W.allocs.n && ok; i++) {
			AllocInfo *prev = LIST_AT(W.allocs, AllocInfo, i);
			if (prev->ncols && prev->ncols < l->ncols) {
				error(s->loc, "%s of %d columns after one of %d: the column count must not grow between "
				              "allocations of a CTA", isa_name(TC_ALLOC, 0), l->ncols, prev->ncols);
				note(prev->loc, "the earlier allocation is here");
				ok = false;
			}
		}
		int64_t index;
		AllocInfo *a = pool_alloc(sizeof *a);
		a->slot = addr->tensor;
		a->slot_index = ie_is_const(addr->index, &index) ? (int)index : -1;
		a->ncols = l->ncols;
		a->loc = s->loc;
		a->warps = by;
		list_push(&W.allocs, a);
		LiveAlloc *live = pool_alloc(sizeof *live);
		live->alloc = a;
		live->warps = by;
		list_push(&W.flow.live, live);
		l->addr = addr;
		if (!ok)
			return;
	} else if (spec->kind == TC_DEALLOC) {
		Expr *ae = LIST_AT(s->operands, Expr, 0);
		IExpr *addr = sema_expr(ae);
		if (!addr)
			return;
		if (addr->type == T_F32) {
			error(ae->loc, "%s takes a TMEM address (u32), not a float", isa_name(TC_DEALLOC, 0));
			return;
		}
		bool ncols_valid = check_ncols(LIST_AT(s->operands, Expr, 1), &l->ncols);
		if (!ncols_valid)
			l->ncols = 0;
		if (popcount64(W.warps) > 1) {
			if (uniform)
				error(s->loc, "%s must be executed by one warp, but %d warps can reach it here; guard it with "
				              "if (warp_id == K)", isa_name(TC_DEALLOC, 0), popcount64(W.warps));
			ncols_valid = false; /* still frees what it names, so the end of the kernel stays quiet */
		}
		check_reads(addr, ae->loc);
		l->addr = ie_convert(addr, T_U32);
		int col, lane;
		AllocInfo *a = find_alloc(addr, &col, &lane);
		if (a && (col || lane)) {
			error(ae->loc, "%s takes the address the allocation returned, not an offset into it",
			      isa_name(TC_DEALLOC, 0));
			note(a->loc, "the allocation is here");
			return;
		}
		if (a && list_has(&W.flow.freed, a)) {
			error(s->loc, "tensor memory freed twice");
			note(a->freed_at, "it is freed here first");
			return;
		}
		bool ncols_ok = ncols_valid;
		if (a && a->ncols && l->ncols && a->ncols != l->ncols) {
			error(LIST_AT(s->operands, Expr, 1)->loc, "%s of %d columns, but the allocation has %d",
			      isa_name(TC_DEALLOC, 0), l->ncols, a->ncols);
			note(a->loc, "the allocation is here");
			ncols_ok = false;
		}
		for (int i = 0; i < W.flow.live.n; i++) {
			LiveAlloc *live = LIST_AT(W.flow.live, LiveAlloc, i);
			if (a ? live->alloc == a : (live->alloc->ncols == l->ncols || !l->ncols) && (live->warps & W.warps)) {
				live->warps &= ~W.warps;
				a = live->alloc;
			}
		}
		if (a) {
			if (!list_has(&W.flow.freed, a))
				list_push(&W.flow.freed, a);
			a->freed_at = s->loc;
		}
		if (!ncols_ok)
			return;
	} else if (spec->kind == TC_RELINQUISH) {
		if (!W.flow.relinquished_some)
			W.flow.relinquish_loc = s->loc;
		W.flow.relinquished_some |= W.warps;
		W.flow.relinquished_all |= W.warps;
	} else if (spec->kind == TC_WAIT_LD) {
		for (int i = 0; i < W.flow.loaded.n; i++)
			LIST_AT(W.flow.loaded, LoadedReg, i)->warps &= ~W.warps;
		flow_prune(&W.flow);
	} else if (spec->kind == TC_WAIT_ST) {
		for (int i = 0; i < W.flow.stores.n; i++) {
			StoreState *st = LIST_AT(W.flow.stores, StoreState, i);
			if (W.warps >> st->rect.warp & 1)
				st->pending = false;
		}
	}
	list_push(W.out, l);
}

/* --------------------------------------------------------------- statements */

static void lower_stmts(List *stmts);
static bool wait_ld_follows(List *stmts, int i);

/* A loop must be unrolled when its body touches registers, views or tensor memory. */
static bool
needs_unroll_expr(Expr *e)
{
	if (!e)
		return false;
	if (e->kind == E_INDEX || e->kind == E_NAME) {
		Sym *s = sym_lookup(e->name);
		if (s && (s->kind == SYM_VIEW || (s->kind == SYM_TENSOR && s->tensor->kind == TK_LOCAL)))
			return true;
	}
	if (needs_unroll_expr(e->a) || needs_unroll_expr(e->b))
		return true;
	for (int i = 0; i < e->args.n; i++)
		if (needs_unroll_expr(LIST_AT(e->args, Expr, i)))
			return true;
	return false;
}

static bool
needs_unroll(List *stmts)
{
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		switch (s->kind) {
		case S_APPLY:
		case S_VIEW:
		case S_LOCAL:
		case S_TMEM:
			return true;
		case S_ASSIGN:
			if (needs_unroll_expr(s->target) || needs_unroll_expr(s->value))
				return true;
			break;
		case S_LET:
		case S_VAR:
			if (needs_unroll_expr(s->value))
				return true;
			break;
		case S_IF:
			if (needs_unroll_expr(s->value) || needs_unroll(&s->body) || needs_unroll(&s->else_body))
				return true;
			break;
		case S_FOR:
		case S_BLOCK:
			if (needs_unroll(&s->body))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

static void
lower_nested(LStmt *holder, List *into, List *stmts, uint64_t warps, bool varying)
{
	(void)holder;
	List *saved_out = W.out;
	uint64_t saved_warps = W.warps;
	bool saved_varying = W.varying_flow;
	W.out = into;
	W.warps = warps;
	W.varying_flow = varying;
	scope_push();
	lower_stmts(stmts);
	scope_pop();
	W.out = saved_out;
	W.warps = saved_warps;
	W.varying_flow = saved_varying;
}

/* x op= e is x = x op e: the target is read once, as part of the value, and written once. */
static Expr *
compound_value(Stmt *s)
{
	if (s->assign_op == OP_NONE)
		return s->value;
	Expr *e = pool_alloc(sizeof *e);
	e->kind = E_BINARY;
	e->loc = s->loc;
	e->op = s->assign_op;
	e->name = "="; /* names the operator '%=' rather than '%' in sema.c's messages */
	e->a = s->target;
	e->b = s->value;
	return e;
}

static void
lower_assign(Stmt *s)
{
	IExpr *value = sema_expr(compound_value(s));
	if (!value)
		return;
	check_reads(value, s->value->loc);
	Expr *t = s->target;
	if (t->kind == E_NAME) {
		Sym *sym = sym_use(t->name, t->loc);
		if (!sym)
			return;
		if (sym->kind != SYM_VAR) {
			error(t->loc, "cannot assign to '%s': only 'var' scalars and elements can be assigned", t->name);
			note(sym->loc, "'%s' is defined here", t->name);
			return;
		}
		Var *v = sym->var;
		if (ie_varying(value) || W.varying_flow)
			v->varying = true;
		LStmt *l = emit(L_ASSIGN, s->loc);
		l->var = v;
		l->value = ie_convert(value, v->type);
		return;
	}
	Tensor *tensor;
	IExpr *index;
	int slot;
	if (!sema_element(t, &tensor, &index, &slot))
		return;
	if (tensor->kind == TK_LOCAL) {
		LoadedReg *r = find_loaded(tensor, slot * etype_bits(tensor->type) / 32);
		if (r) {
			error(t->loc, "writes register slot %d of '%s' while a tcgen05.ld may still be writing it; put "
			              "%s; before the write", slot, tensor->name, isa_spelling(TC_WAIT_LD, 0));
			note(r->loc, "the tcgen05.ld is here");
			r->warps = 0;
		}
		LStmt *l = emit(L_REG_STORE, s->loc);
		l->tensor = tensor;
		l->slot = slot;
		l->value = ie_convert(value, tensor->type);
	} else {
		LStmt *l = emit(L_STORE, s->loc);
		l->tensor = tensor;
		l->index = index;
		l->value = ie_convert(value, tensor->type);
	}
}

static void
lower_for(Stmt *s)
{
	IExpr *lo = sema_expr(s->value);
	IExpr *hi = lo ? sema_expr(s->hi) : NULL;
	if (!hi)
		return;
	if (lo->type == T_F32 || hi->type == T_F32) {
		error(s->loc, "loop bounds must be integers");
		return;
	}
	check_reads(lo, s->value->loc);
	check_reads(hi, s->hi->loc);
	int64_t a, b;
	bool constant = ie_is_const(lo, &a) && ie_is_const(hi, &b);
	if (needs_unroll(&s->body)) {
		if (!constant) {
			error(s->loc, "this loop touches registers or views, so tilec unrolls it; its bounds must be "
			              "compile-time constants");
			return;
		}
		if (b - a > 4096) {
			error(s->loc, "loop of %lld iterations is too long to unroll (at most 4096)", (long long)(b - a));
			return;
		}
		/* nested unrolled loops multiply: the kernel as a whole gets a budget */
		W.unrolled += b > a ? b - a : 0;
		if (W.unrolled > 65536) {
			error(s->loc, "unrolling this loop makes the kernel longer than 65536 unrolled iterations in all");
			return;
		}
		int errors_before = error_count;
		for (int64_t i = a; i < b && error_count == errors_before; i++) {
			LStmt *block = emit(L_BLOCK, s->loc);
			List *saved = W.out;
			W.out = &block->body;
			scope_push();
			Sym *sym = sym_declare(SYM_VALUE, s->name, s->name_loc);
			if (sym)
				sym->value = ie_int(i, T_I32);
			lower_nested(block, &block->body, &s->body, W.warps, W.varying_flow);
			scope_pop();
			W.out = saved;
			if (block->body.n == 0)
				W.out->n--;
		}
		return;
	}
	LStmt *l = emit(L_FOR, s->loc);
	Var *v = pool_alloc(sizeof *v);
	v->name = s->name;
	v->cname = cname_for(s->name);
	v->type = T_I32;
	v->is_let = true;
	v->varying = ie_varying(lo) || ie_varying(hi) || W.varying_flow;
	l->var = v;
	l->lo = ie_convert(lo, T_I32);
	l->hi = ie_convert(hi, T_I32);
	scope_push();
	Sym *sym = sym_declare(SYM_VALUE, s->name, s->name_loc);
	if (sym) {
		IExpr *ref = pool_alloc(sizeof *ref);
		ref->kind = IE_VAR;
		ref->type = T_I32;
		ref->var = v;
		sym->value = ref;
	}
	/* the body may run zero times; applies and register reads never sit in such a loop */
	Flow before = flow_copy(&W.flow);
	Loc saved_varying_loc = W.varying_loc;
	if (v->varying && !W.varying_flow)
		W.varying_loc = loc_span(s->value->loc, s->hi->loc);
	lower_nested(l, &l->body, &s->body, W.warps, W.varying_flow || v->varying);
	W.varying_loc = saved_varying_loc;
	W.flow = flow_merge(&before, &W.flow, W.warps, W.warps);
	scope_pop();
}

static AllocInfo *
find_alloc(IExpr *addr, int *col_offset, int *lane_offset)
{
	int64_t off = 0, index;
	while (addr->kind == IE_VAR && addr->var->is_let && addr->var->def)
		addr = addr->var->def;
	if (addr->kind == IE_BINARY && addr->op == OP_ADD && ie_is_const(addr->b, &off))
		addr = addr->a;
	while (addr->kind == IE_CONV || (addr->kind == IE_VAR && addr->var->is_let && addr->var->def))
		addr = addr->kind == IE_CONV ? addr->a : addr->var->def;
	if (addr->kind != IE_LOAD || addr->tensor->kind != TK_SHARED || !ie_is_const(addr->index, &index))
		return NULL;
	for (int i = W.allocs.n - 1; i >= 0; i--) {
		AllocInfo *a = LIST_AT(W.allocs, AllocInfo, i);
		if (a->slot == addr->tensor && a->slot_index == index) {
			*col_offset = (int)(off & 0xffff);
			*lane_offset = (int)((uint32_t)off >> 16);
			return a;
		}
	}
	return NULL;
}

static bool lower_decl_checked(Stmt *s);

static void
lower_decl(Stmt *s)
{
	int before = error_count;
	if (!lower_decl_checked(s) && error_count > before)
		sym_poison(s->name, s->name_loc);
}

/* Declares a shared, local or tmem tensor; false when it could not. */
static bool
lower_decl_checked(Stmt *s)
{
	TensorKind kind = s->kind == S_SHARED ? TK_SHARED : s->kind == S_LOCAL ? TK_LOCAL : TK_TMEM;
	/* a tmem tensor without `at` that tmemplan.c did not place: it has said why */
	if (kind == TK_TMEM && !s->value) {
		sym_poison(s->name, s->name_loc);
		return false;
	}
	Tensor *t = tensor_new(kind, s->name, s->name_loc, s->type);
	if (!const_dims(&s->dims, t, s->loc))
		return false;
	if (kind == TK_LOCAL || kind == TK_TMEM) {
		t->layout = layout_eval(s->layout, t, W.k->threads);
		if (!t->layout)
			return false;
	}
	IExpr *addr = NULL;
	if (kind == TK_TMEM) {
		addr = sema_expr(s->value);
		if (!addr)
			return false;
		if (addr->type == T_F32) {
			error(s->value->loc, "a TMEM address is a u32, not a float");
			return false;
		}
		t->alloc = find_alloc(addr, &t->col_offset, &t->lane_offset);
		if (!t->alloc)
			error(s->value->loc, "no %s writes the address '%s' is declared at; declare a tmem tensor at the "
			                     "shared slot an alloc filled (plus a constant offset)", isa_name(TC_ALLOC, 0), s->name);
		else
			check_not_freed(t, s->value->loc);
	}
	Sym *sym = sym_declare(SYM_TENSOR, s->name, s->name_loc);
	if (!sym)
		return false;
	sym->tensor = t;
	t->cname = cname_for(s->name);
	if (kind == TK_SHARED) {
		emit(L_SHARED, s->loc)->tensor = t;
	} else if (kind == TK_LOCAL) {
		int bits = etype_bits(t->type);
		t->words = (t->layout->slots * bits + 31) / 32;
		if (t->words > 255) {
			error(s->loc, "'%s' needs %d registers per thread; a thread has at most 255", t->name, t->words);
			return false;
		}
		emit(L_REGS, s->loc)->tensor = t;
	} else {
		t->addr = ie_convert(addr, T_U32);
		/* a tensor in a known allocation is addressed by reading its slot at each use (apply.c) */
		if (!t->alloc) {
			LStmt *l = emit(L_TMEM, s->loc);
			l->tensor = t;
			l->value = t->addr;
		}
	}
	return true;
}

static void
lower_stmt(Stmt *s)
{
	switch (s->kind) {
	case S_LET: {
		IExpr *v = sema_expr(s->value);
		if (!v) {
			sym_poison(s->name, s->name_loc);
			return;
		}
		check_reads(v, s->value->loc);
		if (v->type == T_F32) {
			error(s->value->loc, "let binds an i32 or u32 value; for a float write var %s: f32 = ...", s->name);
			return;
		}
		Sym *sym = sym_declare(SYM_VALUE, s->name, s->name_loc);
		if (!sym)
			return;
		if (v->kind == IE_INT) {
			sym->value = v;
			return;
		}
		Var *var = pool_alloc(sizeof *var);
		var->name = s->name;
		var->cname = cname_for(s->name);
		var->type = v->type;
		var->is_let = true;
		var->def = v;
		var->varying = ie_varying(v);
		IExpr *ref = pool_alloc(sizeof *ref);
		ref->kind = IE_VAR;
		ref->type = v->type;
		ref->var = var;
		sym->value = ref;
		LStmt *l = emit(L_LET, s->loc);
		l->var = var;
		l->value = v;
		return;
	}
	case S_VAR: {
		IExpr *v = s->value ? sema_expr(s->value) : NULL;
		if (s->value && !v) {
			sym_poison(s->name, s->name_loc);
			return;
		}
		if (v)
			check_reads(v, s->value->loc);
		Sym *sym = sym_declare(SYM_VAR, s->name, s->name_loc);
		if (!sym)
			return;
		Var *var = pool_alloc(sizeof *var);
		var->name = s->name;
		var->cname = cname_for(s->name);
		var->type = s->type;
		var->varying = (v && ie_varying(v)) || W.varying_flow;
		sym->var = var;
		if (s->type == T_F16)
			W.k->uses_f16 = true;
		if (s->type == T_BF16)
			W.k->uses_bf16 = true;
		LStmt *l = emit(L_VAR, s->loc);
		l->var = var;
		l->value = v ? ie_convert(v, s->type) : NULL;
		return;
	}
	case S_SHARED:
	case S_LOCAL:
	case S_TMEM:
		lower_decl(s);
		return;
	case S_VIEW: {
		View *v = eval_view(s->view);
		if (!v) {
			/* reported now, or quiet because it views a declaration that failed: its uses stay quiet */
			sym_poison(s->name, s->name_loc);
			return;
		}
		Sym *sym = sym_declare(SYM_VIEW, s->name, s->name_loc);
		if (sym) {
			View *named = pool_alloc(sizeof *named);
			*named = *v;
			named->name = s->name;
			sym->view = named;
		}
		return;
	}
	case S_ASSIGN:
		lower_assign(s);
		return;
	case S_IF: {
		IExpr *cond = sema_expr(s->value);
		if (!cond)
			return;
		uint64_t then_warps, else_warps;
		bool varying;
		split_warps(cond, &then_warps, &else_warps, &varying);
		Loc saved_varying_loc = W.varying_loc;
		if (varying && !W.varying_flow)
			W.varying_loc = s->value->loc;
		varying |= W.varying_flow;
		check_reads(cond, s->value->loc);
		LStmt *l = emit(L_IF, s->loc);
		l->cond = cond;
		Flow before = flow_copy(&W.flow);
		lower_nested(l, &l->body, &s->body, then_warps, varying);
		Flow after_then = W.flow;
		W.flow = before;
		if (s->has_else)
			lower_nested(l, &l->els, &s->else_body, else_warps, varying);
		W.flow = flow_merge(&after_then, &W.flow, then_warps, else_warps);
		W.varying_loc = saved_varying_loc;
		return;
	}
	case S_FOR:
		lower_for(s);
		return;
	case S_APPLY: {
		View *ops[8];
		if (s->operands.n > 8) {
			error(s->loc, "too many operands");
			return;
		}
		for (int i = 0; i < s->operands.n; i++) {
			ops[i] = eval_view(LIST_AT(s->operands, ViewExpr, i));
			if (!ops[i])
				return;
			if (ops[i]->base->kind == TK_TMEM &&
			    !check_not_freed(ops[i]->base, LIST_AT(s->operands, ViewExpr, i)->loc))
				return;
		}
		if (!check_warp_uniform(s->loc, "apply"))
			return;
		ApplyCtx ctx = {0};
		ctx.can_defer = W.cur_list && wait_ld_follows(W.cur_list, W.cur_index);
		ctx.kernel = W.k;
		ctx.warps = W.warps;
		ctx.fixed_warp = popcount64(W.warps) == 1 ? lowest_warp(W.warps) : -1;
		if (apply_lower(s, ops, s->operands.n, &ctx, W.out)) {
			apply_protocol(s, &ctx);
			for (int k = 0; k < ctx.after_wait.n; k++)
				list_push(&W.after_wait, ctx.after_wait.v[k]);
		}
		return;
	}
	case S_INSTR:
		lower_instr(s);
		return;
	case S_CTA_SYNC: {
		if (W.varying_flow)
			warning(s->loc, "cta_sync inside control flow that can split a warp");
		/* stores their warps have waited for become visible to every warp */
		for (int i = 0; i < W.flow.stores.n; i++) {
			StoreState *st = LIST_AT(W.flow.stores, StoreState, i);
			st->unsynced = st->pending;
		}
		flow_prune(&W.flow);
		if (s->fence_before)
			emit(L_FENCE, s->loc)->tc = TC_FENCE_BEFORE;
		emit(L_BARRIER, s->loc);
		if (s->fence_after)
			emit(L_FENCE, s->loc)->tc = TC_FENCE_AFTER;
		return;
	}
	case S_WARP_SYNC:
		emit(L_WARP_SYNC, s->loc);
		return;
	case S_BLOCK: {
		LStmt *l = emit(L_BLOCK, s->loc);
		lower_nested(l, &l->body, &s->body, W.warps, W.varying_flow);
		return;
	}
	}
}

static bool
is_wait_ld(const Stmt *s)
{
	const IsaInstr *in = s->kind == S_INSTR ? isa_parse(s->opcode, NULL) : NULL;
	return in && in->kind == TC_WAIT_LD;
}

/* True when statement i of the list is followed, with no control flow between, by a wait::ld. */
static bool
wait_ld_follows(List *stmts, int i)
{
	for (int j = i + 1; j < stmts->n; j++) {
		Stmt *s = LIST_AT(*stmts, Stmt, j);
		if (is_wait_ld(s))
			return true;
		if (s->kind == S_IF || s->kind == S_FOR || s->kind == S_BLOCK)
			return false;
	}
	return false;
}

static void
lower_stmts(List *stmts)
{
	List *saved_list = W.cur_list;
	int saved_index = W.cur_index;
	W.cur_list = stmts;
	for (int i = 0; i < stmts->n; i++) {
		W.cur_index = i;
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		lower_stmt(s);
		/* copies out of the staging registers of loads (apply.c) belong right after their wait */
		if (is_wait_ld(s) && W.after_wait.n) {
			for (int k = 0; k < W.after_wait.n; k++)
				list_push(W.out, W.after_wait.v[k]);
			W.after_wait.n = 0;
		}
	}
	W.cur_list = saved_list;
	W.cur_index = saved_index;
}

/* --------------------------------------------------------------- fences around cta_sync */

static bool
is_tc_stmt(Stmt *s)
{
	if (s->kind == S_APPLY)
		return true;
	const IsaInstr *in = s->kind == S_INSTR ? isa_parse(s->opcode, NULL) : NULL;
	return s->kind == S_INSTR && !(in && in->effect == EFF_ORDERS);
}

static int
count_tc(List *stmts)
{
	int n = 0;
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		n += is_tc_stmt(s) + count_tc(&s->body) + count_tc(&s->else_body);
	}
	return n;
}

static bool
is_fence(Stmt *s, TcKind which)
{
	const IsaInstr *in = s && s->kind == S_INSTR ? isa_parse(s->opcode, NULL) : NULL;
	return in && in->kind == which;
}

/* A cta_sync needs fence::before when tcgen05 work may precede it, fence::after when some may follow. */
static void
mark_fences(List *stmts, int total, int *seen, bool in_tc_loop)
{
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		if (s->kind == S_CTA_SYNC) {
			Stmt *prev = i > 0 ? LIST_AT(*stmts, Stmt, i - 1) : NULL;
			Stmt *next = i + 1 < stmts->n ? LIST_AT(*stmts, Stmt, i + 1) : NULL;
			s->fence_before = (*seen > 0 || in_tc_loop) && !is_fence(prev, TC_FENCE_BEFORE);
			s->fence_after = (*seen < total || in_tc_loop) && !is_fence(next, TC_FENCE_AFTER);
		}
		*seen += is_tc_stmt(s);
		bool loop_tc = in_tc_loop || (s->kind == S_FOR && count_tc(&s->body) > 0);
		mark_fences(&s->body, total, seen, loop_tc);
		mark_fences(&s->else_body, total, seen, loop_tc);
	}
}

/* --------------------------------------------------------------- kernels */

static bool
launch_dims(NamedArg *a, int out[3])
{
	out[0] = out[1] = out[2] = 1;
	List single = {0};
	List *elems = &single;
	if (a->value->kind == E_TUPLE)
		elems = &a->value->args;
	else
		list_push(&single, a->value);
	if (elems->n > 3) {
		error(a->value->loc, "%s takes at most three dimensions", a->name);
		return false;
	}
	for (int i = 0; i < elems->n; i++) {
		int64_t v;
		Expr *e = LIST_AT(*elems, Expr, i);
		if (!const_int(e, &v, a->name))
			return false;
		if (v <= 0 || v > 0x7fffffff) {
			error(e->loc, "%s dimension must be positive, got %lld", a->name, (long long)v);
			return false;
		}
		out[i] = (int)v;
	}
	return true;
}

static KernelIR *
lower_kernel(Kernel *kd)
{
	KernelIR *k = pool_alloc(sizeof *k);
	k->name = kd->name;
	k->loc = kd->loc;
	bool have_block = false, have_grid = false, ok = true;
	k->grid[0] = k->grid[1] = k->grid[2] = 1;
	for (int i = 0; i < kd->launch.n; i++) {
		NamedArg *a = LIST_AT(kd->launch, NamedArg, i);
		bool is_block = strcmp(a->name, "block") == 0;
		if (!is_block && strcmp(a->name, "grid") != 0) {
			error(a->loc, "unknown launch argument '%s'; expected 'grid' or 'block'", a->name);
			ok = false;
			continue;
		}
		bool *have = is_block ? &have_block : &have_grid;
		if (*have) {
			error(a->loc, "'%s' is given twice", a->name);
			ok = false;
			continue;
		}
		*have = true;
		ok &= launch_dims(a, is_block ? k->block : k->grid);
	}
	if (!have_block) {
		error(kd->name_loc, "kernel '%s' needs 'block = N' in its launch(...)", kd->name);
		return NULL;
	}
	if (!ok)
		return NULL;
	long long threads = (long long)k->block[0] * k->block[1] * k->block[2];
	if (threads > 1024) {
		error(kd->name_loc, "a block has at most 1024 threads; '%s' asks for %lld", kd->name, threads);
		return NULL;
	}
	k->threads = (int)threads;
	sema_set_block(k->block);
	if (name_taken(k, kd->name)) {
		error(kd->name_loc, "kernel name '%s' is reserved in the generated CUDA C; choose another", kd->name);
		return NULL;
	}

	W = (Walk){0};
	W.k = k;
	W.out = &k->body;
	int nwarps = (k->threads + 31) / 32;
	W.warps = nwarps >= 64 ? ~0ull : (1ull << nwarps) - 1;
	/* names the generated code uses for its own purposes */
	list_push(&k->names, (void *)k->name);

	scope_push();
	for (int i = 0; i < kd->params.n; i++) {
		Param *p = LIST_AT(kd->params, Param, i);
		if (p->type == T_F16)
			k->uses_f16 = true;
		if (p->type == T_BF16)
			k->uses_bf16 = true;
		if (p->has_shape) {
			Tensor *t = tensor_new(TK_GLOBAL, p->name, p->loc, p->type);
			if (!const_dims(&p->dims, t, p->loc))
				continue;
			Sym *s = sym_declare(SYM_TENSOR, p->name, p->loc);
			if (!s)
				continue;
			s->tensor = t;
			t->cname = cname_for(p->name);
			t->index = i;
			list_push(&k->params, t);
			list_push(&k->param_is_tensor, t);
		} else {
			Sym *s = sym_declare(SYM_VAR, p->name, p->loc);
			if (!s)
				continue;
			Var *v = pool_alloc(sizeof *v);
			v->name = p->name;
			v->cname = cname_for(p->name);
			v->type = p->type;
			v->is_param = true;
			s->var = v;
			list_push(&k->params, v);
			list_push(&k->param_is_tensor, NULL);
		}
	}
	tmemplan_kernel(kd, k->threads);
	int seen = 0;
	mark_fences(&kd->body, count_tc(&kd->body), &seen, false);
	lower_stmts(&kd->body); /* parameters share the scope of the body, as in C */
	scope_pop();
	uint64_t alloc_warps = 0;
	for (int i = 0; i < W.flow.live.n; i++) {
		LiveAlloc *live = LIST_AT(W.flow.live, LiveAlloc, i);
		AllocInfo *a = live->alloc;
		alloc_warps |= 1ull << lowest_warp(a->warps);
		if (!live->warps)
			continue;
		error(a->loc, "tensor memory allocated here is not freed with %s (%d columns) on every path to the end "
		              "of kernel '%s'", isa_name(TC_DEALLOC, 0), a->ncols, kd->name);
		if (a->freed_at.first_line)
			note(a->freed_at, "it is freed here, but not on every path");
	}
	if ((alloc_warps & ~W.flow.relinquished_all) && !error_count) {
		warning(kd->name_loc, "kernel '%s' allocates tensor memory but does not execute %s on every path; other "
		                      "CTAs on the SM may wait for columns", kd->name, isa_name(TC_RELINQUISH, 0));
		note(LIST_AT(W.allocs, AllocInfo, 0)->loc, "the allocation is here");
	}
	return k;
}

Program *
lower_program(List *items, const char *source_name)
{
	Program *p = pool_alloc(sizeof *p);
	p->source_name = source_name;
	sema_reset();
	scope_push();
	for (int i = 0; i < items->n; i++) {
		Item *it = LIST_AT(*items, Item, i);
		switch (it->kind) {
		case I_INCLUDE:
			break;
		case I_CONST: {
			int64_t v;
			if (!const_int(it->value, &v, "a const"))
				break;
			Sym *s = sym_declare(SYM_CONST, it->name, it->name_loc);
			if (s)
				s->value = ie_int(v, v > INT32_MAX ? T_U32 : T_I32);
			break;
		}
		case I_LAYOUT: {
			Sym *s = sym_declare(SYM_LAYOUT, it->name, it->name_loc);
			if (s)
				s->layout = it->layout;
			break;
		}
		case I_KERNEL: {
			Sym *s = sym_declare(SYM_KERNEL, it->kernel->name, it->kernel->name_loc);
			if (!s)
				break;
			KernelIR *k = lower_kernel(it->kernel);
			if (k)
				list_push(&p->kernels, k);
			break;
		}
		}
	}
	scope_pop();
	if (!p->kernels.n && !error_count) {
		/* a file of layouts and constants is meant for include; compiled alone it yields nothing */
		Loc at = items->n ? LIST_AT(*items, Item, 0)->loc : (Loc){1, 1, 1, 1, source_count() ? 0 : -1};
		warning(at, "%s declares no kernel; the output is empty", source_name);
	}
	return error_count ? NULL : p;
}
