/* layout.c: evaluates layouts (S/R strides, offsets, default, datapath layouts) into per-element places. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

#define THREAD_AXES ((1u << AX_TX) | (1u << AX_TID_IN_WG) | (1u << AX_LANEID) | (1u << AX_WARPID) | \
                     (1u << AX_WID_IN_WG) | (1u << AX_WGID))
#define WARP_LEVEL_AXES ((1u << AX_TX) | (1u << AX_TID_IN_WG) | (1u << AX_WARPID) | (1u << AX_WID_IN_WG))
#define GROUP_LEVEL_AXES ((1u << AX_TX) | (1u << AX_WARPID) | (1u << AX_WGID))
#define LANE_LEVEL_AXES ((1u << AX_TX) | (1u << AX_TID_IN_WG) | (1u << AX_LANEID))
#define TMEM_AXES ((1u << AX_TLANE) | (1u << AX_TCOL))
/* layout B = A; may name a layout that names another: a longer chain than this is a cycle */
#define MAX_LAYOUT_HOPS 64

typedef struct Digits {
	int n;
	int64_t extent[MAX_RANK * 2];
	int64_t stride[MAX_RANK * 2];
	Axis axis[MAX_RANK * 2];
} Digits;

static bool
eval_digits(List *extents, List *strides, Loc loc, Digits *d)
{
	if (extents->n != strides->n) {
		error(loc, "%d extents but %d strides", extents->n, strides->n);
		return false;
	}
	if (extents->n > MAX_RANK * 2) {
		error(loc, "too many modes (at most %d)", MAX_RANK * 2);
		return false;
	}
	d->n = extents->n;
	for (int i = 0; i < extents->n; i++) {
		Stride *s = LIST_AT(*strides, Stride, i);
		if (!const_int(LIST_AT(*extents, Expr, i), &d->extent[i], "a layout extent") ||
		    !const_int(s->value, &d->stride[i], "a layout stride"))
			return false;
		if (d->extent[i] <= 0) {
			error(LIST_AT(*extents, Expr, i)->loc, "layout extent must be positive, got %lld",
			      (long long)d->extent[i]);
			return false;
		}
		d->axis[i] = s->axis;
	}
	return true;
}

static int64_t
digits_product(const Digits *d)
{
	int64_t p = 1;
	for (int i = 0; i < d->n; i++) {
		p *= d->extent[i];
		if (p > (1 << 24))
			return -1;
	}
	return p;
}

/* The places serve only the checks of the tensor's kernel (scratch memory; tilec run --tmem holds it). */
static Layout *
layout_new(const Tensor *t, int nrep)
{
	Layout *l = pool_alloc(sizeof *l);
	l->count = t->count;
	l->nrep = nrep;
	l->place = scratch_alloc((size_t)t->count * nrep * AX_COUNT * sizeof(int32_t));
	return l;
}

/* Places are summed in 64 bits: strides and offsets come from the user and may be huge. */
static void
add_digits(int64_t *place, const Digits *d, int64_t index)
{
	for (int i = d->n - 1; i >= 0; i--) {
		int64_t digit = index % d->extent[i];
		index /= d->extent[i];
		place[d->axis[i]] += digit * d->stride[i];
	}
}

static Layout *
eval_strided(LayoutExpr *le, Tensor *t)
{
	Digits main;
	if (!eval_digits(&le->extents, &le->strides, le->loc, &main))
		return NULL;
	int64_t product = digits_product(&main);
	if (product != t->count) {
		error(le->loc, "layout extents cover %lld elements but tensor '%s' has %d",
		      (long long)product, t->name, t->count);
		return NULL;
	}
	Digits reps[8];
	int nreps = 0;
	int64_t nrep = 1;
	int64_t offset[AX_COUNT] = {0};
	unsigned axes = 0;
	for (int i = 0; i < main.n; i++)
		axes |= 1u << main.axis[i];
	for (int i = 0; i < le->terms.n; i++) {
		LayoutTerm *term = LIST_AT(le->terms, LayoutTerm, i);
		if (term->kind == LT_OFFSET) {
			int64_t v;
			if (!const_int(term->offset, &v, "a layout offset"))
				return NULL;
			offset[term->axis] += v;
			axes |= 1u << term->axis;
			continue;
		}
		if (nreps == 8) {
			error(term->loc, "too many replica terms (at most 8)");
			return NULL;
		}
		if (!eval_digits(&term->extents, &term->strides, term->loc, &reps[nreps]))
			return NULL;
		for (int k = 0; k < reps[nreps].n; k++)
			axes |= 1u << reps[nreps].axis[k];
		int64_t p = digits_product(&reps[nreps]);
		nrep *= p;
		if (p < 0 || nrep > 4096) {
			error(term->loc, "too many replicas");
			return NULL;
		}
		nreps++;
	}
	Layout *l = layout_new(t, (int)nrep);
	l->axes = axes;
	for (int e = 0; e < t->count; e++) {
		for (int r = 0; r < nrep; r++) {
			int64_t wide[AX_COUNT];
			memcpy(wide, offset, sizeof offset);
			add_digits(wide, &main, e);
			int64_t rest = r;
			for (int k = nreps - 1; k >= 0; k--) {
				int64_t p = digits_product(&reps[k]);
				add_digits(wide, &reps[k], rest % p);
				rest /= p;
			}
			int32_t *place = LAYOUT_PLACE(l, e, r);
			for (int a = 0; a < AX_COUNT; a++) {
				if (wide[a] < -(1 << 30) || wide[a] > (1 << 30)) {
					char c[96];
					format_coords(c, sizeof c, t->rank, t->dims, e);
					error(le->loc, "layout puts element %s of '%s' at %s = %lld, far outside any storage", c,
					      t->name, axis_name((Axis)a), (long long)wide[a]);
					return NULL;
				}
				place[a] = (int32_t)wide[a];
			}
		}
	}
	return l;
}

static Layout *
eval_default(Tensor *t)
{
	Layout *l = layout_new(t, 1);
	int last = t->rank ? t->dims[t->rank - 1] : 1;
	for (int e = 0; e < t->count; e++) {
		int32_t *place = LAYOUT_PLACE(l, e, 0);
		if (t->kind == TK_TMEM) {
			place[AX_TLANE] = e / last;
			place[AX_TCOL] = e % last;
		} else {
			place[AX_M] = e;
		}
	}
	l->axes = t->kind == TK_TMEM ? TMEM_AXES : 1u << AX_M;
	return l;
}

/* The parameters of tmem_datapath_layout, checked (they need no tensor); false after an error. */
static bool
datapath_params(const LayoutExpr *le, char *letter_out, int64_t *rows_out, int64_t *cols_out, int64_t *sub_out)
{
	static const struct {
		char letter;
		int rows;
		char family; /* the MMAs a letter serves: 1 cta_group::1, 2 cta_group::2, w .ws */
		const char *mma;
	} letters[] = {{'A', 128, '2', "M=256, cta_group::2"}, {'B', 64, '2', "M=128, cta_group::2, dense"},
	               {'D', 128, '1', "M=128, cta_group::1"}, {'E', 64, 'w', "M=64, .ws"},
	               {'F', 64, '1', "M=64, cta_group::1"},   {'G', 32, 'w', "M=32, .ws"}};
	enum { NLETTERS = sizeof letters / sizeof letters[0] };
	const char *s = le->letter;
	if (strcmp(s, "C") == 0) {
		error(le->letter_loc, "tmem_datapath_layout \"C\" (M=128 sparse, cta_group::2) is not supported: "
		                      "its lane organisation is not settled (the sources disagree)");
		return false;
	}
	int want = -1;
	char family = 0;
	for (int i = 0; i < NLETTERS; i++)
		if (s[0] == letters[i].letter && s[1] == 0) {
			want = letters[i].rows;
			family = letters[i].family;
		}
	if (want < 0) {
		error(le->letter_loc, "unknown datapath layout \"%s\"; expected one of \"A\", \"B\", \"D\", \"E\", \"F\", \"G\"", s);
		return false;
	}
	int64_t rows, cols, sub = 0;
	if (!const_int(le->rows, &rows, "the row count") || !const_int(le->cols, &cols, "the column count"))
		return false;
	if (le->sub_slab && !const_int(le->sub_slab, &sub, "sub_slab"))
		return false;
	char letter = s[0];
	if (rows != want) {
		error(le->rows->loc, "layout \"%c\" has %d rows per CTA, not %lld", letter, want, (long long)rows);
		/* the letters of this row count, the one for the same kind of MMA as the written letter first */
		int fits[NLETTERS], nfits = 0;
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < NLETTERS; i++)
				if (letters[i].rows == rows && (letters[i].family == family) == (pass == 0))
					fits[nfits++] = i;
		Buf names = {0};
		for (int i = 0; i < nfits; i++)
			buf_printf(&names, "%s\"%c\" (%s)", i == 0 ? "" : i == nfits - 1 ? " or " : ", ",
			           letters[fits[i]].letter, letters[fits[i]].mma);
		if (nfits)
			note(le->letter_loc, "an accumulator of %lld rows per CTA is layout %s", (long long)rows, names.data);
		else
			note(le->rows->loc, "the datapath layouts have 128 rows (\"A\", \"D\"), 64 (\"B\", \"E\", \"F\") or 32 "
			                    "(\"G\")");
		buf_free(&names);
		return false;
	}
	if (cols <= 0) {
		error(le->cols->loc, "column count must be positive, got %lld", (long long)cols);
		return false;
	}
	if (letter == 'F') {
		if (sub != 0 && sub != 1) {
			error(le->sub_slab->loc, "sub_slab of layout \"F\" must be 0 or 1, got %lld", (long long)sub);
			return false;
		}
	} else if (sub != 0) {
		error(le->sub_slab->loc, "layout \"%c\" has no sub-slabs (sub_slab must be 0)", letter);
		return false;
	}
	if ((letter == 'B' || letter == 'E') && cols % 2) {
		error(le->cols->loc, "layout \"%c\" needs an even column count, got %lld", letter, (long long)cols);
		return false;
	}
	if (letter == 'G' && cols % 4) {
		error(le->cols->loc, "layout \"G\" needs a column count divisible by 4, got %lld", (long long)cols);
		return false;
	}
	*letter_out = letter;
	*rows_out = rows;
	*cols_out = cols;
	*sub_out = sub;
	return true;
}

static Layout *
eval_datapath(LayoutExpr *le, Tensor *t)
{
	char letter;
	int64_t rows, cols, sub;
	if (!datapath_params(le, &letter, &rows, &cols, &sub))
		return NULL;
	if (t->rank != 2 || t->dims[0] != rows || t->dims[1] != cols) {
		char shape[64];
		format_coords(shape, sizeof shape, t->rank, t->dims, -1);
		error(le->loc, "tmem_datapath_layout(\"%c\", %lld, %lld) describes a [%lld, %lld] tensor, but '%s' is %s",
		      letter, (long long)rows, (long long)cols, (long long)rows, (long long)cols, t->name, shape);
		return NULL;
	}
	Layout *l = layout_new(t, 1);
	l->axes = TMEM_AXES;
	int c = (int)cols;
	for (int i = 0; i < rows; i++) {
		for (int j = 0; j < c; j++) {
			int32_t *place = LAYOUT_PLACE(l, i * c + j, 0);
			switch (letter) {
			case 'A':
			case 'D':
				place[AX_TLANE] = i;
				place[AX_TCOL] = j;
				break;
			case 'B':
			case 'E':
				place[AX_TLANE] = i + 64 * (j / (c / 2));
				place[AX_TCOL] = j % (c / 2);
				break;
			case 'F':
				place[AX_TLANE] = 32 * (i / 16) + 16 * (int)sub + i % 16;
				place[AX_TCOL] = j;
				break;
			case 'G':
				place[AX_TLANE] = i + 32 * (j / (c / 4));
				place[AX_TCOL] = j % (c / 4);
				break;
			}
		}
	}
	return l;
}

int
layout_place_thread(const int32_t *place)
{
	return place[AX_TX] + place[AX_TID_IN_WG] + place[AX_LANEID] +
	       32 * (place[AX_WARPID] + place[AX_WID_IN_WG]) + 128 * place[AX_WGID];
}

bool
layout_names_thread(const Layout *l)
{
	return (l->axes & THREAD_AXES) != 0;
}

bool
layout_names_lane(const Layout *l)
{
	return (l->axes & LANE_LEVEL_AXES) != 0;
}

bool
layout_place_owned_by(const Layout *l, const int32_t *place, int thread)
{
	if (!(l->axes & THREAD_AXES))
		return true;
	int owner = layout_place_thread(place);
	if ((l->axes & LANE_LEVEL_AXES) && owner % 32 != thread % 32)
		return false;
	if ((l->axes & WARP_LEVEL_AXES) && (owner / 32) % 4 != (thread / 32) % 4)
		return false;
	if ((l->axes & GROUP_LEVEL_AXES) && owner / 128 != thread / 128)
		return false;
	return true;
}

int
layout_copy_of(const Layout *l, int thread)
{
	if (!(l->axes & THREAD_AXES))
		return thread;
	/* no lane-level axis: every lane of the warps the layout names holds its own copy */
	if (!(l->axes & LANE_LEVEL_AXES))
		return thread % 32 + 32 * ((l->axes & WARP_LEVEL_AXES) ? 0 : thread / 32 % 4) +
		       128 * ((l->axes & GROUP_LEVEL_AXES) ? 0 : thread / 128);
	if (!(l->axes & WARP_LEVEL_AXES))
		return thread / 32;
	if (!(l->axes & GROUP_LEVEL_AXES))
		return thread / 128;
	return 0;
}

int
layout_slot_in_thread(const Layout *l, int e, int thread)
{
	for (int r = 0; r < l->nrep; r++) {
		const int32_t *place = LAYOUT_PLACE(l, e, r);
		if (layout_place_owned_by(l, place, thread))
			return place[AX_M];
	}
	return -1;
}

/* Open-addressing set of 64-bit keys mapping to the first element that took them. */
typedef struct KeySet {
	uint64_t *keys;
	int32_t *elem;
	size_t cap;
} KeySet;

static int
keyset_put(KeySet *ks, uint64_t key, int elem)
{
	size_t h = (size_t)(((key ^ (key >> 32)) * 0x9E3779B97F4A7C15ull) >> 32) & (ks->cap - 1);
	while (ks->elem[h] >= 0) {
		if (ks->keys[h] == key)
			return ks->elem[h];
		h = (h + 1) & (ks->cap - 1);
	}
	ks->keys[h] = key;
	ks->elem[h] = elem;
	return -1;
}

bool
layout_check_one_to_one(Layout *l, Tensor *t, Loc loc)
{
	size_t need = (size_t)l->count * l->nrep * 2, cap = 16;
	while (cap < need)
		cap *= 2;
	KeySet ks = {malloc(cap * sizeof(uint64_t)), malloc(cap * sizeof(int32_t)), cap};
	if (!ks.keys || !ks.elem)
		out_of_memory();
	memset(ks.elem, 0xff, cap * sizeof(int32_t));
	bool ok = true;
	for (int e = 0; e < l->count && ok; e++) {
		for (int r = 0; r < l->nrep && ok; r++) {
			const int32_t *place = LAYOUT_PLACE(l, e, r);
			uint64_t a, b;
			if (t->kind == TK_TMEM) {
				a = (uint32_t)place[AX_TLANE];
				b = (uint32_t)place[AX_TCOL];
			} else {
				/* the owner as the layout fixes it: within the warp or warpgroup when it names no more */
				int owner = layout_place_thread(place);
				if (!(l->axes & THREAD_AXES))
					owner = 0;
				else if (!(l->axes & (WARP_LEVEL_AXES | GROUP_LEVEL_AXES)))
					owner %= 32;
				else if (!(l->axes & GROUP_LEVEL_AXES))
					owner %= 128;
				a = (uint32_t)owner;
				b = (uint32_t)place[AX_M];
			}
			int other = keyset_put(&ks, a << 32 | b, e);
			if (other >= 0 && other != e) {
				char c1[96], c2[96];
				format_coords(c1, sizeof c1, t->rank, t->dims, other);
				format_coords(c2, sizeof c2, t->rank, t->dims, e);
				if (t->kind == TK_TMEM)
					error(loc, "layout of '%s' is not one-to-one: elements %s and %s share TMEM lane %d, column %d",
					      t->name, c1, c2, place[AX_TLANE], place[AX_TCOL]);
				else
					error(loc, "layout of '%s' is not one-to-one: elements %s and %s share thread %d, slot %d",
					      t->name, c1, c2, (int)a, place[AX_M]);
				ok = false;
			}
		}
	}
	free(ks.keys);
	free(ks.elem);
	return ok;
}

/* Checks that every place lies on the axes and in the ranges the tensor's storage allows. */
static bool
validate(Layout *l, Tensor *t, Loc loc, int block_threads)
{
	unsigned allowed = t->kind == TK_TMEM ? TMEM_AXES : THREAD_AXES | (1u << AX_M);
	for (int a = 0; a < AX_COUNT; a++) {
		if ((l->axes & (1u << a)) && !(allowed & (1u << a))) {
			error(loc, "a %s layout cannot use axis '%s' (it takes %s)",
			      t->kind == TK_TMEM ? "tmem" : "local", axis_name((Axis)a),
			      t->kind == TK_TMEM ? "TLane and TCol" : "thread axes and m");
			return false;
		}
	}
	int bits = etype_bits(t->type);
	int nwarps = (block_threads + 31) / 32;
	struct {
		Axis axis;
		int limit;
	} ranges[] = {
		{AX_TX, block_threads}, {AX_TID_IN_WG, 128}, {AX_LANEID, 32}, {AX_WARPID, nwarps},
		{AX_WID_IN_WG, 4}, {AX_WGID, (block_threads + 127) / 128}, {AX_M, 1 << 20},
		{AX_TLANE, TMEM_LANES}, {AX_TCOL, TMEM_COLS * 32 / (bits ? bits : 32)},
	};
	int max_m = -1;
	for (int e = 0; e < l->count; e++) {
		for (int r = 0; r < l->nrep; r++) {
			const int32_t *place = LAYOUT_PLACE(l, e, r);
			for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
				int v = place[ranges[k].axis];
				if (v < 0 || v >= ranges[k].limit) {
					char c[96];
					format_coords(c, sizeof c, t->rank, t->dims, e);
					if (ranges[k].axis == AX_TCOL)
						error(loc, "element %s of '%s' is at TCol %d, past the %d columns of tensor memory",
						      c, t->name, v, TMEM_COLS);
					else
						error(loc, "element %s of '%s' is at %s = %d, outside 0..%d", c, t->name,
						      axis_name(ranges[k].axis), v, ranges[k].limit - 1);
					return false;
				}
			}
			if (t->kind != TK_TMEM && (l->axes & THREAD_AXES) && layout_place_thread(place) >= block_threads) {
				char c[96];
				format_coords(c, sizeof c, t->rank, t->dims, e);
				error(loc, "element %s of '%s' belongs to thread %d, but the block has %d threads", c, t->name,
				      layout_place_thread(place), block_threads);
				return false;
			}
			if (place[AX_M] > max_m)
				max_m = place[AX_M];
		}
	}
	l->slots = max_m + 1;
	return true;
}

unsigned
layout_expr_axes(const LayoutExpr *le)
{
	for (int hops = 0; le && le->kind == LAY_NAME; hops++) {
		Sym *s = hops < MAX_LAYOUT_HOPS ? sym_lookup(le->name) : NULL;
		le = s && s->kind == SYM_LAYOUT ? s->layout : NULL;
	}
	if (!le || le->kind != LAY_STRIDED)
		return 0;
	unsigned axes = 0;
	for (int i = 0; i < le->strides.n; i++)
		axes |= 1u << LIST_AT(le->strides, Stride, i)->axis;
	for (int i = 0; i < le->terms.n; i++) {
		const LayoutTerm *term = LIST_AT(le->terms, LayoutTerm, i);
		if (term->kind == LT_OFFSET)
			axes |= 1u << term->axis;
		for (int j = 0; j < term->strides.n; j++)
			axes |= 1u << LIST_AT(term->strides, Stride, j)->axis;
	}
	return axes;
}

/* The layouts evaluated from named layout items, shared by the tensors of one shape, element type and
   kind: a named item is evaluated in the file's scope, so these decide the result. Every call of a
   device function evaluates its parameters' layouts again; shared, 10,000 calls hold one copy, not
   10,000 (they live in scratch memory, so the table starts anew whenever that is given back). */
typedef struct LayoutMemo {
	struct LayoutMemo *next;
	const LayoutExpr *item;
	TensorKind kind;
	EType type;
	int rank, block_threads;
	int dims[MAX_RANK];
	Layout *layout;
} LayoutMemo;

#define LAYOUT_MEMO_BUCKETS 256
static LayoutMemo *layout_memo[LAYOUT_MEMO_BUCKETS];
static unsigned layout_memo_epoch;

static LayoutMemo **
memo_bucket(const LayoutExpr *item, const Tensor *t, int block_threads)
{
	scratch_index_fresh(layout_memo, sizeof layout_memo, &layout_memo_epoch);
	uint64_t h = (uint64_t)(uintptr_t)item * 0x9e3779b97f4a7c15ull ^ (uint64_t)t->kind ^ (uint64_t)t->type << 8 ^
	             (uint64_t)block_threads << 16;
	for (int i = 0; i < t->rank; i++)
		h = (h ^ (uint64_t)t->dims[i]) * 1099511628211ull;
	return &layout_memo[(h >> 32) % LAYOUT_MEMO_BUCKETS];
}

static Layout *
memo_find(const LayoutExpr *item, const Tensor *t, int block_threads)
{
	for (LayoutMemo *m = *memo_bucket(item, t, block_threads); m; m = m->next)
		if (m->item == item && m->kind == t->kind && m->type == t->type && m->rank == t->rank &&
		    m->block_threads == block_threads && memcmp(m->dims, t->dims, sizeof(int) * (size_t)t->rank) == 0)
			return m->layout;
	return NULL;
}

static void
memo_add(const LayoutExpr *item, const Tensor *t, int block_threads, Layout *l)
{
	LayoutMemo **b = memo_bucket(item, t, block_threads);
	LayoutMemo *m = scratch_alloc(sizeof *m);
	m->item = item;
	m->kind = t->kind;
	m->type = t->type;
	m->rank = t->rank;
	m->block_threads = block_threads;
	memcpy(m->dims, t->dims, sizeof(int) * (size_t)t->rank);
	m->layout = l;
	m->next = *b;
	*b = m;
}

Layout *
layout_eval(LayoutExpr *le, Tensor *t, int block_threads)
{
	Layout *l = NULL;
	LayoutExpr *orig = le;
	/* a layout item's names are the file's (consts), not those of the code that uses it: lexical scope */
	int saved = 0;
	bool misused = false; /* reported here, without the note below */
	if (le->kind == LAY_NAME) {
		le = layout_lookup(le->name, le->loc);
		if (!le)
			return NULL;
		le->used = true;
		saved = scope_push_isolated();
		/* layout B = A; names A's layout: follow the names, in the file's scope */
		for (int hops = 0; le && le->kind == LAY_NAME && !misused; hops++) {
			if (hops == MAX_LAYOUT_HOPS) {
				error(orig->loc, "layout '%s' names itself through a chain of layout names", orig->name);
				misused = true;
			} else {
				le = layout_lookup(le->name, le->loc);
				if (le)
					le->used = true;
			}
		}
		misused |= !le;
		if (!misused && (l = memo_find(le, t, block_threads))) {
			scope_pop_isolated(saved);
			return l;
		}
	}
	switch (misused ? LAY_NAME : le->kind) {
	case LAY_DEFAULT:
		l = eval_default(t);
		break;
	case LAY_STRIDED:
		l = eval_strided(le, t);
		break;
	case LAY_DATAPATH:
		if ((misused = t->kind != TK_TMEM))
			error(orig->loc, "tmem_datapath_layout describes tensor memory; '%s' is not a tmem tensor", t->name);
		else
			l = eval_datapath(le, t);
		break;
	case LAY_SMEM_TILE:
		misused = true;
		error(orig->loc, "smem_tile(major, swizzle) places a shared tensor; '%s' is a %s tensor", t->name,
		      t->kind == TK_TMEM ? "tmem" : "local");
		break;
	case LAY_NAME:
		break;
	}
	if (orig->kind == LAY_NAME)
		scope_pop_isolated(saved);
	if (misused)
		return NULL;
	if (!l || !validate(l, t, orig->loc, block_threads) || !layout_check_one_to_one(l, t, orig->loc)) {
		if (orig->kind == LAY_NAME)
			note(t->loc, "'%s' is declared here with layout '%s'", t->name, orig->name);
		return NULL;
	}
	if (orig->kind == LAY_NAME)
		memo_add(le, t, block_threads, l);
	return l;
}

/* A layout item that no tensor used: the checks that need no tensor (the names it follows, its
   numbers, a datapath layout's parameters), so that its errors are reported all the same. */
void
layout_check_unused(LayoutExpr *item, const char *name)
{
	LayoutExpr *le = item;
	item->used = true;
	for (int hops = 0; le->kind == LAY_NAME; hops++) {
		le = layout_lookup(le->name, le->loc);
		if (le == item || hops == MAX_LAYOUT_HOPS) {
			error(item->loc, "layout '%s' names itself through a chain of layout names", name);
			return;
		}
		if (!le || le->used)
			return;
		le->used = true;
	}
	Digits d;
	switch (le->kind) {
	case LAY_DATAPATH: {
		char letter;
		int64_t rows, cols, sub;
		datapath_params(le, &letter, &rows, &cols, &sub);
		break;
	}
	case LAY_STRIDED: {
		if (!eval_digits(&le->extents, &le->strides, le->loc, &d))
			return;
		for (int i = 0; i < le->terms.n; i++) {
			LayoutTerm *term = LIST_AT(le->terms, LayoutTerm, i);
			int64_t v;
			if (term->kind == LT_OFFSET ? !const_int(term->offset, &v, "a layout offset")
			                            : !eval_digits(&term->extents, &term->strides, term->loc, &d))
				return;
		}
		unsigned axes = layout_expr_axes(le);
		if ((axes & TMEM_AXES) && (axes & ~TMEM_AXES))
			error(le->loc, "layout '%s' mixes TLane or TCol with thread axes or m: a local layout takes thread axes "
			               "and m, a tmem layout only TLane and TCol",
			      name);
		break;
	}
	case LAY_SMEM_TILE: {
		SmemMajor major;
		SmemSwizzle swizzle;
		smem_layout_named(le, &major, &swizzle);
		break;
	}
	case LAY_DEFAULT:
	case LAY_NAME:
		break;
	}
}

LayoutExpr *
layout_follow_names(LayoutExpr *le)
{
	LayoutExpr *orig = le;
	for (int hops = 0; le && le->kind == LAY_NAME; hops++) {
		if (hops == MAX_LAYOUT_HOPS) {
			error(orig->loc, "layout '%s' names itself through a chain of layout names", orig->name);
			return NULL;
		}
		le = layout_lookup(le->name, le->loc);
		if (le)
			le->used = true;
	}
	return le;
}
