/* viewexpr.c: the view expressions of the source (slices, .view, .rearrange) evaluated into views. */
#include <stdlib.h>

#include "tilec.h"

/* A slice's bounds as written: lo[d] and hi[d] of a range (NULL where left out), lo[d] of an index. */
typedef struct SliceVals {
	IExpr *lo[MAX_RANK], *hi[MAX_RANK];
} SliceVals;

static bool
slice_eval(ViewOp *op, const char *name, int rank, SliceVals *sv)
{
	if (op->indices.n > rank || op->indices.n > MAX_RANK) {
		error(op->loc, "%d indices for '%s' of rank %d", op->indices.n, name, rank);
		return false;
	}
	for (int d = 0; d < op->indices.n; d++) {
		SliceIndex *si = LIST_AT(op->indices, SliceIndex, d);
		Expr *ends[2] = {si->is_range ? si->lo : si->index, si->is_range ? si->hi : NULL};
		IExpr **vals[2] = {&sv->lo[d], &sv->hi[d]};
		for (int k = 0; k < 2; k++) {
			*vals[k] = NULL;
			if (!ends[k])
				continue;
			if (!(*vals[k] = sema_expr(ends[k])))
				return false;
			if ((*vals[k])->type == T_F32) {
				error(ends[k]->loc, "%s must be an integer", si->is_range ? "a slice bound" : "an index into a view");
				return false;
			}
		}
	}
	return true;
}

static bool
slice_runtime(const ViewOp *op, const SliceVals *sv)
{
	int64_t c;
	for (int d = 0; d < op->indices.n; d++)
		if ((sv->lo[d] && !ie_is_const(sv->lo[d], &c)) || (sv->hi[d] && !ie_is_const(sv->hi[d], &c)))
			return true;
	return false;
}

/* A range of compile-time bounds that starts inside dimension d of t and ends past it: in a copy, the
   last tile of a matrix of compile-time size, whose outside part is skipped (LANGUAGE 10.4). */
static bool
slice_past_end(const ViewOp *op, const SliceVals *sv, const Tensor *t)
{
	for (int d = 0; d < op->indices.n && d < t->rank; d++) {
		int64_t lo = 0, hi;
		if (LIST_AT(op->indices, SliceIndex, d)->is_range && sv->hi[d] && ie_is_const(sv->hi[d], &hi) &&
		    (!sv->lo[d] || ie_is_const(sv->lo[d], &lo)) && lo >= 0 && lo < t->dims[d] && hi > t->dims[d])
			return true;
	}
	return false;
}

/* A slice with compile-time bounds (section 6: checked against the dimensions). */
static View *
slice_const(View *v, ViewOp *op, const SliceVals *sv, bool global)
{
	SliceSpec spec[MAX_RANK];
	for (int d = 0; d < op->indices.n; d++) {
		SliceIndex *si = LIST_AT(op->indices, SliceIndex, d);
		int64_t b[2] = {0, v->dims[d]};
		spec[d].loc = si->loc;
		spec[d].is_range = si->is_range;
		for (int k = 0; k < 2; k++) {
			IExpr *x = k ? sv->hi[d] : sv->lo[d];
			if (x && !ie_is_const(x, &b[k])) {
				Expr *src = si->is_range ? (k ? si->hi : si->lo) : si->index;
				error(src->loc, "%s must be a compile-time integer", si->is_range ? "a slice bound" : "an index into a view");
				if (global)
					note(src->loc, "only an operand of copy may slice a global tensor at run-time bounds");
				return NULL;
			}
		}
		int64_t lo = b[0], hi = b[1];
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
	return view_slice(v, spec, op->indices.n);
}

/* e as rest + *c: ie_split_offset's sums of i32, and a u32 plus or minus a constant at the top, whose
   difference with the same rest plus another constant is the same however the sums wrap (top : top +
   128 with top: u32, refused as if its end were no constant plus the start). */
static IExpr *
split_bound(IExpr *e, int64_t *c)
{
	int64_t k;
	if (e->type == T_U32 && e->kind == IE_BINARY && (e->op == OP_ADD || e->op == OP_SUB) && ie_is_const(e->b, &k) &&
	    !ie_is_const(e->a, c)) {
		*c = e->op == OP_ADD ? k : -k;
		return e->a;
	}
	return ie_split_offset(e, c);
}

/* hi - lo when it is a compile-time constant (the same expression plus different constants). */
static bool
slice_extent(IExpr *lo, IExpr *hi, int64_t *ext)
{
	int64_t cl = 0, ch;
	IExpr *rl = lo ? split_bound(lo, &cl) : NULL, *rh = split_bound(hi, &ch);
	if (!(rl == rh || (rl && rh && ie_equal(rl, rh))))
		return false;
	*ext = ch - cl;
	return true;
}

/* A copy's operand over a global tensor whose slice has run-time bounds, or whose shape is known only
   at run time (LANGUAGE 10.4): the box of the tensor it selects, each dimension of compile-time extent;
   where the box may leave the tensor's shape its coordinates are tested when the copy runs. op is
   the slice, or NULL for the whole tensor. */
static View *
box_view(Tensor *t, ViewExpr *ve, ViewOp *op, const SliceVals *sv)
{
	Box *b = pool_alloc(sizeof *b);
	int n = op ? op->indices.n : 0, dims[MAX_RANK], rank = 0;
	int64_t count = 1;
	for (int d = 0; d < t->rank; d++) {
		int64_t size = t->dims[d];
		bool known = !t->wide || ie_is_const(t->rdims[d], &size);
		SliceIndex *si = d < n ? LIST_AT(op->indices, SliceIndex, d) : NULL;
		IExpr *lo = si ? sv->lo[d] : NULL, *hi = si ? sv->hi[d] : NULL;
		bool range = !si || si->is_range;
		Loc loc = si ? si->loc : ve->loc;
		int64_t clo = 0, ext = 1;
		bool lo_known = !lo || ie_is_const(lo, &clo);
		if (range && !hi) {
			if (!known || !lo_known) {
				error(loc, "dimension %d of '%s' is %s: a copy takes a slice of it with a compile-time extent, "
				           "such as %s[lo : lo + 128%s]", d, t->name,
				      known ? "sliced from a run-time start to its end" : "known only at run time", t->name,
				      t->rank > 1 ? ", ..." : "");
				return NULL;
			}
			ext = size - clo;
		} else if (range && !slice_extent(lo, hi, &ext)) {
			error(loc, "the slice of dimension %d of '%s' needs a compile-time extent: write its end as its start "
			           "plus a constant (lo : lo + 128)", d, t->name);
			return NULL;
		}
		if (ext <= 0 || ext > (1 << 24)) {
			error(loc, "the slice of dimension %d of '%s' has %lld elements; a slice has 1 to %d", d, t->name,
			      (long long)ext, 1 << 24);
			return NULL;
		}
		if (lo_known && clo < 0) {
			if (range)
				error(loc, "the slice of dimension %d of '%s' starts at %lld, below 0", d, t->name, (long long)clo);
			else
				error(loc, "index %lld of dimension %d of '%s' is below 0", (long long)clo, d, t->name);
			return NULL;
		}
		bool past = lo_known && known && clo + ext > size;
		if (past && !(range && clo < size)) {
			if (range)
				error(loc, "slice %lld:%lld is out of range for dimension %d of size %lld", (long long)clo,
				      (long long)(clo + ext), d, (long long)size);
			else
				error(loc, "index %lld is out of range for dimension %d of size %lld", (long long)clo, d,
				      (long long)size);
			return NULL;
		}
		b->ext[d] = (int)ext;
		b->start[d] = lo && !(lo_known && clo == 0) ? lo : NULL;
		/* a u32 start's coordinates (start + k) are tested as the address takes them, in 64 bits: in
		   32 they wrapped past 2^32 to small ones inside the shape while the address did not */
		if (b->start[d] && lo->type == T_U32)
			b->start[d] = ie_convert(lo, T_I64);
		if (!lo_known && lo->type != T_U32 && !ie_nonneg(lo))
			b->check_lo |= 1u << d;
		if (!known || !lo_known || past)
			b->check_hi |= 1u << d;
		if (range)
			dims[rank++] = (int)ext;
		count *= ext;
		if (count > (1 << 24)) {
			error(loc, "a copy's slice of '%s' is too large (more than 2^24 elements)", t->name);
			return NULL;
		}
	}
	return view_of_box(t, b, rank, dims);
}

View *
viewexpr_eval(ViewExpr *ve, bool in_copy)
{
	Sym *s = sym_use(ve->base, ve->base_loc);
	if (!s)
		return NULL;
	View *v;
	int first = 0;
	Tensor *gt = s->kind == SYM_TENSOR && s->tensor->kind == TK_GLOBAL ? s->tensor : NULL;
	ViewOp *op0 = ve->ops.n ? LIST_AT(ve->ops, ViewOp, 0) : NULL;
	SliceVals sv;
	bool sliced = gt && op0 && op0->kind == VOP_SLICE;
	if (sliced && !slice_eval(op0, ve->base, gt->rank, &sv))
		return NULL;
	if (s->kind == SYM_VIEW)
		v = s->view;
	else if (gt && in_copy && (gt->wide || (sliced && (slice_runtime(op0, &sv) || slice_past_end(op0, &sv, gt))))) {
		v = box_view(gt, ve, sliced ? op0 : NULL, &sv);
		first = sliced;
	} else if (s->kind == SYM_TENSOR && s->tensor->wide) {
		error(ve->base_loc, "'%s' has a shape known only at run time, strides, or 2^31 elements or more: it is "
		                    "indexed element by element, not viewed", ve->base);
		note(ve->base_loc, "a copy's operand may slice it: %s[lo : lo + 128%s]", ve->base, gt->rank > 1 ? ", ..." : "");
		return NULL;
	} else if (s->kind == SYM_TENSOR && s->tensor->count > (1 << 24)) {
		error(ve->base_loc, "a view of '%s' is too large (more than 2^24 elements)", ve->base);
		return NULL;
	} else if (s->kind == SYM_TENSOR)
		v = view_of_tensor(s->tensor);
	else {
		error(ve->base_loc, "'%s' is not a tensor or a view", ve->base);
		note(s->loc, "'%s' is defined here", ve->base);
		return NULL;
	}
	if (v)
		v->name = ve->base;
	for (int i = first; i < ve->ops.n && v; i++) {
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
		} else if (i == 0 && sliced) {
			v = slice_const(v, op, &sv, true);
		} else {
			SliceVals vals;
			v = slice_eval(op, ve->base, v->rank, &vals) ? slice_const(v, op, &vals, false) : NULL;
		}
		if (v)
			v->name = ve->base;
	}
	return v;
}

/* The argument a (tensor t, through symbol as) of a global tensor parameter: the tensor, a slice of it
   written in place (its bounds may be known only at run time), or a view of a tensor of constant shape
   whose elements are an affine function of its indices; false after an error. */
bool
viewexpr_global_arg(Expr *a, Sym *as, Tensor *t, GlobalArg *g)
{
	IExpr *dim[MAX_RANK], *stride[MAX_RANK];
	for (int d = t->rank - 1, inner = 1; d >= 0; d--) {
		dim[d] = t->wide ? t->rdims[d] : ie_int(t->dims[d], T_I32);
		stride[d] = t->wide ? t->rstrides[d] : ie_int(inner, T_I64);
		inner *= t->wide ? 1 : t->dims[d];
	}
	*g = (GlobalArg){0};
	ViewOp *op = a->kind == E_VIEW && a->view->ops.n == 1 ? LIST_AT(a->view->ops, ViewOp, 0) : NULL;
	g->view = a->kind != E_NAME || as->kind != SYM_TENSOR;
	if (as->kind == SYM_TENSOR && (a->kind == E_NAME || (op && op->kind == VOP_SLICE))) {
		SliceVals sv;
		int n = op ? op->indices.n : 0;
		if (op && !slice_eval(op, t->name, t->rank, &sv))
			return false;
		for (int d = 0; d < t->rank; d++) {
			SliceIndex *si = d < n ? LIST_AT(op->indices, SliceIndex, d) : NULL;
			IExpr *lo = si ? sv.lo[d] : NULL, *hi = si && si->is_range ? sv.hi[d] : NULL;
			int64_t clo = 0, chi, size;
			bool known = ie_is_const(dim[d], &size);
			if (lo && ie_is_const(lo, &clo) && (clo < 0 || (known && clo >= size + (si->is_range ? 1 : 0)))) {
				error(si->loc, "%s %lld is out of range for dimension %d of '%s'%s", si->is_range ? "slice start" : "index",
				      (long long)clo, d, t->name, known ? pool_printf(" (size %lld)", (long long)size) : "");
				return false;
			}
			if (hi && ie_is_const(hi, &chi) && (chi <= clo || (known && chi > size))) {
				error(si->loc, "slice %lld:%lld of dimension %d of '%s'%s is empty or out of range", (long long)clo,
				      (long long)chi, d, t->name, known ? pool_printf(" (size %lld)", (long long)size) : "");
				return false;
			}
			if (lo && !(ie_is_const(lo, &clo) && clo == 0)) {
				IExpr *o = ie_binary(OP_MUL, ie_convert(lo, T_I64), stride[d]);
				g->off = g->off ? ie_binary(OP_ADD, g->off, o) : o;
			}
			if (si && !si->is_range)
				continue;
			IExpr *end = hi ? hi : dim[d];
			g->dims[g->rank] = lo ? ie_binary(OP_SUB, end, lo) : end;
			g->strides[g->rank++] = stride[d];
		}
		return true;
	}
	ViewExpr ve = {.base = a->name, .loc = a->loc, .base_loc = a->loc};
	View *v = viewexpr_eval(a->kind == E_VIEW ? a->view : &ve, false);
	if (!v)
		return false;
	int64_t st[MAX_RANK];
	if (!view_strides(v, st)) {
		error(a->loc, "'%s' is no slice of a global tensor with strides: its elements are no affine function of "
		              "its indices, and a global parameter is a pointer stepped through with strides", a->name);
		return false;
	}
	g->off = v->map[0] ? ie_int(v->map[0], T_I64) : NULL;
	g->rank = v->rank;
	for (int d = 0; d < v->rank; d++) {
		g->dims[d] = ie_int(v->dims[d], T_I32);
		g->strides[d] = ie_int(st[d], T_I64);
	}
	return true;
}
