/* copy.c: copy(dst, src) between tmem and local views: searches the tcgen05.ld / st instructions an apply could express. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* The search. An instruction's TMEM image fixes where each element goes inside it: the element's
   TMEM lane gives its slab (and so its warp) and its row, its column gives the atom it falls in and
   its place there. So for each candidate (shape, .xN, pack) the copy's elements are tiled into atoms
   from their TMEM places alone, which gives the operand views an apply would take; apply_match then
   decides, quietly, whether the registers fit. Candidates are tried in order of cost, so the first
   that matches is the one kept. */

typedef struct Elem {
	int x;     /* the copy's flat coordinate */
	int gi;    /* group index of the warp that moves it */
	int row;   /* TMEM lane inside that warp's slab, 0..31 */
	int tcol;  /* TMEM column in elements (the layout's TCol) */
} Elem;

enum { MAX_CHUNKS = 16 };

typedef struct Candidate {
	Opcode op;            /* mixed: the widest of its instructions */
	int repeats;          /* instructions per warp */
	int order;            /* place in the table: the last tie-break */
	bool mixed;           /* a sequence of .xN of one shape, chunk[k] atoms of .x1 each, from the left */
	int chunk[MAX_CHUNKS];
} Candidate;

/* A candidate that could not be tiled: the TMEM place it fails at. */
typedef struct TileFail {
	bool set;
	bool high;            /* .pack/.unpack and an element in the high half of a cell */
	bool uneven;          /* warps would need different numbers of instructions */
	int x;                /* the element (high), or -1 */
	int lane, cell;       /* the TMEM cell the instruction would move though the copy does not name it */
	int gi;
	int atoms, atoms0;    /* uneven: the instructions group gi and group 0 would need */
} TileFail;

typedef struct Search {
	View *lv, *tv;        /* the copy's local and tmem operands */
	View *cv;             /* the destination, whose coordinates messages use */
	bool is_ld;
	ApplyInput in;        /* scope, warps, group */
	int groups;           /* group extent, 1 for warp scope */
	int half;             /* elements per 32-bit word */
	Elem *elems;
	int n;
	int words;            /* 32-bit register words per thread */
	/* per candidate */
	int *pos_x;           /* register operand position -> copy coordinate */
	int npos;
	int *tm_x[2];         /* tmem operand position -> copy coordinate */
	int ntm;
	TileFail fail;
} Search;

static int
group_of(Search *s, const int32_t *lplace, int slab)
{
	switch (s->in.scope) {
	case SCOPE_WARP:
		return 0;
	case SCOPE_WARPGROUP:
		return slab;
	case SCOPE_CTA:
		break;
	}
	int owner_warp = layout_place_thread(lplace) / 32;
	return slab + 4 * (owner_warp / 4);
}

/* The elements with their TMEM places and warps; false (reported) when a warp cannot reach one. */
static void
collect(Search *s)
{
	Tensor *lt = s->lv->base, *tt = s->tv->base;
	s->n = s->lv->count;
	s->elems = pool_alloc(sizeof(Elem) * (size_t)s->n);
	for (int x = 0; x < s->n; x++) {
		const int32_t *lp = LAYOUT_PLACE(lt->layout, s->lv->map[x], 0);
		const int32_t *tp = LAYOUT_PLACE(tt->layout, s->tv->map[x], 0);
		int lane = tt->lane_offset + tp[AX_TLANE];
		Elem *e = &s->elems[x];
		e->x = x;
		e->row = lane % 32;
		e->tcol = tp[AX_TCOL];
		e->gi = group_of(s, lp, lane / 32 % 4);
		if (e->gi >= s->groups)
			e->gi = s->groups - 1; /* apply_match finds the warp's mistake */
	}
	s->words = s->n / s->groups / 32 / s->half;
}

/* Tiles the elements into atoms of op; fills pos_x / tm_x and the repeats. */
static bool
tile(Search *s, Candidate *cand)
{
	const Opcode *op = &cand->op;
	bool bx2 = op->shape == SH_16X32BX2;
	int rows = shape_rows(op->shape), acols = opcode_atom_cols(op), width = opcode_tmem_cols(op);
	int blocks = 32 / rows;
	int ncell = 0;
	memset(&s->fail, 0, sizeof s->fail);
	for (int i = 0; i < s->n; i++) {
		int cell = op->pack ? s->elems[i].tcol / 2 : s->elems[i].tcol / s->half;
		if (op->pack && s->elems[i].tcol % 2) {
			s->fail = (TileFail){.set = true, .high = true, .x = s->elems[i].x};
			return false;
		}
		if (cell + 1 > ncell)
			ncell = cell + 1;
	}
	/* which cells each (group, lane block) uses, then its atoms from the left */
	int nkeys = s->groups * blocks;
	unsigned char *used = pool_alloc((size_t)nkeys * (size_t)ncell);
	int *atom_of = pool_alloc(sizeof(int) * (size_t)nkeys * (size_t)ncell);
	int *atom_col = pool_alloc(sizeof(int) * (size_t)nkeys * (size_t)ncell);
	for (int i = 0; i < s->n; i++) {
		Elem *e = &s->elems[i];
		int cell = op->pack ? e->tcol / 2 : e->tcol / s->half;
		used[(e->gi * blocks + e->row / rows) * ncell + cell] = 1;
	}
	int per_group = -1;
	for (int g = 0; g < s->groups; g++) {
		int atoms = 0;
		for (int b = 0; b < blocks; b++) {
			unsigned char *u = &used[(g * blocks + b) * ncell];
			for (int c = 0; c < ncell;) {
				if (!u[c]) {
					c++;
					continue;
				}
				for (int k = 0; k < width; k++) {
					if (c + k >= ncell || !u[c + k]) {
						s->fail = (TileFail){.set = true, .x = -1, .lane = b * rows, .cell = c + k, .gi = g};
						return false;
					}
					atom_of[(g * blocks + b) * ncell + c + k] = atoms;
					atom_col[(g * blocks + b) * ncell + c + k] = k;
				}
				atoms++;
				c += width;
			}
		}
		if (per_group >= 0 && atoms != per_group) {
			s->fail = (TileFail){.set = true, .uneven = true, .x = -1, .gi = g, .atoms = atoms, .atoms0 = per_group};
			return false;
		}
		per_group = atoms;
	}
	if (bx2 && per_group % 2) {
		s->fail = (TileFail){.set = true, .x = -1, .cell = -1};
		return false;
	}
	cand->repeats = bx2 ? per_group / 2 : per_group;
	/* each element's place in the operands: (group, repeat, [access], row, column, part) */
	int parts = s->half;
	s->npos = s->groups * per_group * rows * acols * parts;
	if (s->npos != s->n) {
		/* some atom row is not in the copy: find it for the message */
		s->fail = (TileFail){.set = true, .x = -1};
	}
	s->pos_x = pool_alloc(sizeof(int) * (size_t)(s->npos > s->n ? s->npos : s->n));
	for (int i = 0; i < s->npos; i++)
		s->pos_x[i] = -1;
	for (int i = 0; i < s->n; i++) {
		Elem *e = &s->elems[i];
		int cell = op->pack ? e->tcol / 2 : e->tcol / s->half;
		int key = (e->gi * blocks + e->row / rows) * ncell + cell;
		int atom = atom_of[key], k = atom_col[key];
		int col = op->pack ? k / 2 : k;
		int h = op->pack ? k % 2 : e->tcol % s->half;
		/* 16x32bx2: atoms in pairs, the second of a pair is access 1 */
		int pos = (((e->gi * per_group + atom) * rows + e->row % rows) * acols + col) * parts + h;
		if (pos >= s->npos || s->pos_x[pos] >= 0) {
			s->fail = (TileFail){.set = true, .x = -1, .lane = e->row, .cell = cell, .gi = e->gi};
			return false;
		}
		s->pos_x[pos] = e->x;
	}
	for (int i = 0; i < s->npos; i++) {
		if (s->pos_x[i] < 0) {
			int rest = i / parts / acols;
			int row = rest % rows;
			int g = rest / rows / per_group;
			s->fail = (TileFail){.set = true, .x = -1, .lane = row, .cell = -1, .gi = g};
			return false;
		}
	}
	/* the tmem operands: for 16x32bx2 the accesses split off, each (group, repeat, row, column, part) */
	s->ntm = bx2 ? 2 : 1;
	int atom_size = rows * acols * parts;
	for (int a = 0; a < s->ntm; a++) {
		int nt = s->npos / s->ntm;
		s->tm_x[a] = pool_alloc(sizeof(int) * (size_t)nt);
		for (int j = 0; j < nt; j++) {
			int unit = j / atom_size, inner = j % atom_size;
			s->tm_x[a][j] = s->pos_x[(unit * s->ntm + a) * atom_size + inner];
		}
	}
	return true;
}

static View *
operand_view(View *of, const int *xs, int rank, const int *dims, int count)
{
	View *v = pool_alloc(sizeof *v);
	v->base = of->base;
	v->name = of->name;
	v->rank = rank;
	memcpy(v->dims, dims, sizeof(int) * (size_t)rank);
	v->count = count;
	v->map = pool_alloc(sizeof(int32_t) * (size_t)count);
	for (int i = 0; i < count; i++)
		v->map[i] = of->map[xs[i]];
	return v;
}

/* The operand views of the tiled candidate, into in. */
static void
build_views(Search *s, const Candidate *cand, ApplyInput *in)
{
	const Opcode *op = &cand->op;
	bool bx2 = op->shape == SH_16X32BX2;
	int dims[8], n = 0;
	if (s->in.group)
		dims[n++] = s->in.group;
	dims[n++] = cand->repeats;
	int lead = n;
	if (bx2)
		dims[n++] = 2;
	dims[n++] = shape_rows(op->shape);
	dims[n++] = opcode_atom_cols(op);
	if (s->half > 1)
		dims[n++] = s->half;
	*in = s->in;
	in->op = *op;
	in->reg = operand_view(s->lv, s->pos_x, n, dims, s->npos);
	/* a tmem operand has no access axis */
	int tdims[8], tn = 0;
	for (int i = 0; i < n; i++)
		if (!(bx2 && i == lead))
			tdims[tn++] = dims[i];
	for (int a = 0; a < s->ntm; a++)
		in->tmem[a] = operand_view(s->tv, s->tm_x[a], tn, tdims, s->npos / s->ntm);
}

static int
candidate_cmp(const void *pa, const void *pb)
{
	const Candidate *a = pa, *b = pb;
	if (a->repeats != b->repeats)
		return a->repeats - b->repeats;
	int ra = opcode_regs(&a->op), rb = opcode_regs(&b->op);
	if (ra != rb)
		return ra - rb;
	return a->order - b->order;
}

/* Every legal instruction in the direction, with the instructions per warp it would need. */
static int
candidates(Search *s, Candidate *out)
{
	int n = 0;
	for (int sh = 0; sh < SH_COUNT; sh++) {
		for (int pack = 0; pack <= (s->half == 2); pack++) {
			for (int xn = 1; xn <= shape_max_n((Shape)sh); xn *= 2) {
				Opcode op = {.is_ld = s->is_ld, .shape = (Shape)sh, .n = xn, .pack = pack != 0};
				int regs = opcode_regs(&op);
				if (regs > s->words || s->words % regs)
					continue;
				out[n] = (Candidate){.op = op, .repeats = s->words / regs, .order = n};
				n++;
			}
		}
	}
	/* mixed widths: where the .x1 atoms of a shape are no power of two, the widest .xN that fit from the
	   left (64 + 32 rather than three times 32), when that takes fewer instructions than any one .xN */
	for (int sh = 0; sh < SH_COUNT; sh++) {
		if (sh == SH_16X32BX2) /* its instructions take their atoms in pairs */
			continue;
		for (int pack = 0; pack <= (s->half == 2); pack++) {
			Opcode op = {.is_ld = s->is_ld, .shape = (Shape)sh, .n = 1, .pack = pack != 0};
			int regs = opcode_regs(&op), max = shape_max_n((Shape)sh);
			if (s->words % regs)
				continue;
			int atoms = s->words / regs, even = 1;
			while (even * 2 <= max && atoms % (even * 2) == 0)
				even *= 2;
			Candidate c = {.op = op, .mixed = true, .order = 1000 + n};
			for (int left = atoms; left > 0 && c.repeats < MAX_CHUNKS; c.repeats++) {
				int w = 1;
				while (w * 2 <= max && w * 2 <= left)
					w *= 2;
				c.chunk[c.repeats] = w;
				left -= w;
			}
			c.op.n = c.chunk[0];
			int sum = 0;
			for (int k = 0; k < c.repeats; k++)
				sum += c.chunk[k];
			if (sum == atoms && c.repeats < atoms / even)
				out[n++] = c;
		}
	}
	qsort(out, (size_t)n, sizeof *out, candidate_cmp);
	return n;
}

/* A mixed candidate: each chunk of .x1 atoms (the same ones in every warp) is one apply of its own .xN;
   false when one of them does not tile or match. */
static bool
tile_mixed(Search *s, const Candidate *c, Search *subs, ApplyInput *ins, ApplyIssue **issues, int *nissues,
           uint32_t *imms)
{
	Candidate one = {.op = c->op};
	one.op.n = 1;
	if (!tile(s, &one))
		return false;
	int per_group = one.repeats, rows = shape_rows(one.op.shape), acols = opcode_atom_cols(&one.op);
	int *atom_of = pool_alloc(sizeof(int) * (size_t)s->n);
	for (int pos = 0; pos < s->npos; pos++)
		atom_of[s->pos_x[pos]] = pos / s->half / acols / rows % per_group;
	for (int k = 0, start = 0; k < c->repeats; start += c->chunk[k++]) {
		Search *sub = &subs[k];
		*sub = *s;
		sub->elems = pool_alloc(sizeof(Elem) * (size_t)s->n);
		sub->n = 0;
		for (int i = 0; i < s->n; i++) {
			int a = atom_of[s->elems[i].x];
			if (a >= start && a < start + c->chunk[k])
				sub->elems[sub->n++] = s->elems[i];
		}
		sub->words = c->chunk[k] * opcode_regs(&one.op);
		Candidate part = {.op = c->op};
		part.op.n = c->chunk[k];
		Mismatch mm;
		if (!tile(sub, &part) || part.repeats != 1)
			return false;
		build_views(sub, &part, &ins[k]);
		if (!apply_match(&ins[k], &issues[k], &nissues[k], &imms[k], &mm))
			return false;
	}
	return true;
}

/* How far apply_match got before the mismatch: later is closer. */
static long
progress(const Mismatch *mm, const ApplyInput *in, int repeats)
{
	int regs = opcode_regs(&in->op);
	int w = 0;
	for (int i = 0; i < mm->warp && i < 64; i++)
		w += (int)(in->warps >> i & 1);
	long issue = (long)w * repeats + mm->repeat;
	long at = mm->kind == MM_SLAB || mm->kind == MM_COLUMNS || mm->kind >= MM_SPLIT ? 32L * regs
	                                                                                : (long)mm->lane * regs + mm->reg;
	return 1 + issue * (32L * regs + 1) + at;
}

static void
coords_of(const View *v, int x, int *c)
{
	for (int d = v->rank - 1; d >= 0; d--) {
		c[d] = x % v->dims[d];
		x /= v->dims[d];
	}
}

/* Rewrites an operand coordinate of the candidate's views as the copy's own coordinate. */
static int
copy_coord(Search *s, const ApplyInput *in, int operand, const int *coord, int rank, int *out)
{
	View *v = operand == 0 ? in->reg : in->tmem[operand - 1];
	const int *xs = operand == 0 ? s->pos_x : s->tm_x[operand - 1];
	int flat = 0;
	for (int i = 0; i < rank && i < v->rank; i++)
		flat = flat * v->dims[i] + coord[i];
	coords_of(s->cv, xs[flat], out);
	return s->cv->rank;
}

/* What would make the closest candidate match, for its mismatch. */
static void
advise(Search *s, const Mismatch *mm, const char *text, Loc loc)
{
	char where[96];
	format_list(where, sizeof where, '[', mm->coord, mm->rank, ']');
	switch (mm->kind) {
	case MM_OWNER:
		note(loc, "to use %s, the layout of '%s' must give element %s to lane %d of warp %d", text, s->lv->base->name,
		     where, mm->lane, mm->warp);
		break;
	case MM_PART:
	case MM_WORD:
		note(loc, "to use %s, the layout of '%s' must keep the elements of one instruction register in the same "
		          "register slot in every lane", text, s->lv->base->name);
		break;
	case MM_TMEM_HIGH:
	case MM_TMEM_PLACE:
		note(loc, "to use %s, the layout of '%s' must put element %s at TMEM lane %d, column %d", text,
		     s->tv->base->name, where, mm->need_lane, mm->need_col);
		break;
	default:
		note(loc, "to use %s, move '%s' in tensor memory so that each warp's atom starts where the image needs", text,
		     s->tv->base->name);
		break;
	}
}

/* --------------------------------------------------------------- --explain: the apply a copy equals */

/* The source text of a view expression, as written. */
static char *
loc_text(Loc loc)
{
	size_t len;
	const char *text = source_text(loc.file, &len);
	if (!text)
		return NULL;
	const char *p = text, *end = text + len, *start = NULL;
	int line = 1;
	for (; p < end; p++) {
		if (line == loc.first_line && !start)
			start = p + loc.first_column - 1;
		if (line == loc.last_line) {
			const char *stop = p + loc.last_column;
			if (!start || stop > end || stop <= start)
				return NULL;
			return pool_strndup(start, (size_t)(stop - start));
		}
		if (*p == '\n')
			line++;
	}
	return NULL;
}

/* One digit of a copy dimension (its coordinate split row-major into digits): its size, what one step of
   it adds to the copy's flat index, and to the operand's; the operand dimension it lands in. */
typedef struct Digit {
	int dim, size;
	int step;     /* in the copy's flat index */
	int delta;    /* in the operand's flat index */
	int odim;
	char name[12];
} Digit;

static int
digit_cmp(const void *pa, const void *pb)
{
	const Digit *a = *(Digit *const *)pa, *b = *(Digit *const *)pb;
	if (a->odim != b->odim)
		return a->odim - b->odim;
	return b->delta - a->delta;
}

/* The operand view ov (operand position -> copy coordinate xs) as text over the copy's view cv written
   `text`: one rearrange (and a view for unit dimensions) when the operand's positions are a digit
   permutation of the copy's coordinates; NULL otherwise. */
static char *
rearranged(const View *cv, const char *text, const View *ov, const int *xs)
{
	int n = cv->count;
	int *inv = pool_alloc(sizeof(int) * (size_t)n);
	for (int i = 0; i < n; i++)
		inv[xs[i]] = i;
	Digit digits[64];
	int nd = 0, dimstride = n;
	for (int d = 0; d < cv->rank; d++) {
		dimstride /= cv->dims[d];
		int odd = cv->dims[d], bits = 0;
		while (odd % 2 == 0) {
			odd /= 2;
			bits++;
		}
		if (nd + bits + 2 > 64)
			return NULL;
		if (odd > 1 || bits == 0)
			digits[nd++] = (Digit){.dim = d, .size = odd, .step = (1 << bits) * dimstride};
		for (int b = bits - 1; b >= 0; b--)
			digits[nd++] = (Digit){.dim = d, .size = 2, .step = (1 << b) * dimstride};
	}
	if (inv[0] != 0)
		return NULL;
	for (int k = 0; k < nd; k++)
		digits[k].delta = digits[k].size > 1 ? inv[digits[k].step] : 0;
	/* the operand position must be the sum of the digits' steps, for every element */
	for (int x = 0; x < n; x++) {
		int pos = 0, rest = x;
		for (int k = 0; k < nd; k++) {
			pos += rest / digits[k].step * digits[k].delta;
			rest %= digits[k].step;
		}
		if (pos != inv[x])
			return NULL;
	}
	/* each digit lands in one operand dimension, whose digits make it up exactly (mixed radix) */
	int ostride[MAX_RANK];
	for (int m = ov->rank - 1, st = 1; m >= 0; m--) {
		ostride[m] = st;
		st *= ov->dims[m];
	}
	Digit *order[64];
	for (int k = 0; k < nd; k++) {
		Digit *g = &digits[k];
		order[k] = g;
		g->odim = -1;
		for (int m = 0; m < ov->rank && g->size > 1; m++)
			if (ov->dims[m] > 1 && g->delta % ostride[m] == 0 && g->delta / ostride[m] < ov->dims[m])
				g->odim = m;
		if (g->size > 1 && g->odim < 0)
			return NULL;
	}
	qsort(order, (size_t)nd, sizeof *order, digit_cmp);
	for (int k = 0; k < nd; k++) {
		Digit *g = order[k];
		if (g->odim < 0)
			continue;
		bool last = k + 1 == nd || order[k + 1]->odim != g->odim;
		int want = last ? ostride[g->odim] : order[k + 1]->delta * order[k + 1]->size;
		if (g->delta != want)
			return NULL;
	}
	/* digits next to each other in the copy and in the operand are one name */
	int names = 0;
	for (int k = 0; k < nd; k++) {
		Digit *g = &digits[k];
		if (k > 0 && g->size > 1 && digits[k - 1].size > 1 && digits[k - 1].dim == g->dim &&
		    digits[k - 1].odim == g->odim && digits[k - 1].delta == g->delta * g->size) {
			/* merge into the previous: it keeps the name, takes this one's step */
			Digit *h = &digits[k - 1];
			h->size *= g->size;
			h->delta = g->delta;
			h->step = g->step;
			memmove(g, g + 1, sizeof *g * (size_t)(nd - k - 1));
			nd--;
			k--;
			continue;
		}
	}
	for (int k = 0; k < nd; k++)
		snprintf(digits[k].name, sizeof digits[k].name, "%c%s", 'a' + names % 26, names >= 26 ? "2" : ""), names++;
	Buf lhs = {0}, rhs = {0}, sizes = {0};
	for (int d = 0; d < cv->rank; d++) {
		int first = -1, count = 0;
		for (int k = 0; k < nd; k++)
			if (digits[k].dim == d)
				count++, first = first < 0 ? k : first;
		buf_puts(&lhs, d ? " " : "");
		if (count > 1)
			buf_putc(&lhs, '(');
		for (int k = first, i = 0; i < count; k++, i++)
			buf_printf(&lhs, "%s%s", i ? " " : "", digits[k].name);
		if (count > 1)
			buf_putc(&lhs, ')');
	}
	for (int k = 0; k < nd; k++)
		order[k] = &digits[k];
	qsort(order, (size_t)nd, sizeof *order, digit_cmp);
	bool first_group = true;
	for (int k = 0; k < nd;) {
		int j = k;
		while (j < nd && order[j]->odim == order[k]->odim)
			j++;
		bool group = j - k > 1 || (first_group && order[0]->odim < 0);
		buf_puts(&rhs, first_group ? "" : " ");
		if (j - k > 1)
			buf_putc(&rhs, '(');
		for (int i = k; i < j; i++)
			buf_printf(&rhs, "%s%s", i > k ? " " : "", order[i]->name);
		if (j - k > 1)
			buf_putc(&rhs, ')');
		(void)group;
		first_group = false;
		k = j;
	}
	for (int k = 0; k < nd; k++)
		buf_printf(&sizes, ", %s = %d", digits[k].name, digits[k].size);
	/* the same order and grouping: no rearrange at all */
	bool identity = strcmp(lhs.data, rhs.data) == 0;
	char *out = identity ? pool_strdup(text)
	                     : pool_printf("%s.rearrange(\"%s -> %s\"%s)", text, lhs.data, rhs.data, sizes.data);
	buf_free(&lhs);
	buf_free(&rhs);
	buf_free(&sizes);
	bool same_dims = ov->rank == cv->rank && memcmp(ov->dims, cv->dims, sizeof(int) * (size_t)cv->rank) == 0;
	int nontrivial = 0;
	for (int m = 0; m < ov->rank; m++)
		nontrivial += ov->dims[m] > 1;
	if (nontrivial != ov->rank && !(same_dims && identity)) {
		char dims[128];
		format_list(dims, sizeof dims, '(', ov->dims, ov->rank, ')');
		out = pool_printf("%s.view%s", out, dims);
	}
	return out;
}

static const char *
scope_text(const Stmt *st)
{
	if (st->scope == SCOPE_CTA)
		return "cta";
	const char *name = st->scope == SCOPE_WARP ? "warp" : "warpgroup";
	char *arg = st->scope_arg ? loc_text(st->scope_arg->loc) : NULL;
	return arg ? pool_printf("%s(%s)", name, arg) : name;
}

/* An operand of part of a copy (a chunk of mixed widths): the copy's view sliced to the box its
   elements fill, then rearranged; NULL when they fill no box. */
static char *
chunk_text(const Search *s, const char *text, const View *ov, const int *xs, int nx)
{
	const View *cv = s->lv;
	if (nx == cv->count)
		return rearranged(cv, text, ov, xs);
	int lo[MAX_RANK], hi[MAX_RANK], c[MAX_RANK];
	for (int d = 0; d < cv->rank; d++) {
		lo[d] = cv->dims[d];
		hi[d] = -1;
	}
	for (int i = 0; i < nx; i++) {
		coords_of(cv, xs[i], c);
		for (int d = 0; d < cv->rank; d++) {
			lo[d] = c[d] < lo[d] ? c[d] : lo[d];
			hi[d] = c[d] > hi[d] ? c[d] : hi[d];
		}
	}
	View box = *cv;
	box.count = 1;
	Buf slice = {0};
	for (int d = 0; d < cv->rank; d++) {
		box.dims[d] = hi[d] - lo[d] + 1;
		box.count *= box.dims[d];
		if (box.dims[d] == cv->dims[d])
			buf_printf(&slice, "%s:", d ? ", " : "[");
		else
			buf_printf(&slice, "%s%d:%d", d ? ", " : "[", lo[d], hi[d] + 1);
	}
	buf_putc(&slice, ']');
	char *sliced = pool_printf("%s%s", text, slice.data);
	buf_free(&slice);
	if (box.count != nx)
		return NULL;
	int *bx = pool_alloc(sizeof(int) * (size_t)nx);
	for (int i = 0; i < nx; i++) {
		coords_of(cv, xs[i], c);
		bx[i] = 0;
		for (int d = 0; d < cv->rank; d++)
			bx[i] = bx[i] * box.dims[d] + c[d] - lo[d];
	}
	return rearranged(&box, sliced, ov, bx);
}

/* The note of --explain at a copy: the apply statement that compiles to the same instructions. */
static void
explain_copy(Search *s, Stmt *st, const ApplyInput *in, uint32_t imm)
{
	if (!diag_explain)
		return;
	int li = s->is_ld ? 0 : 1, ti = s->is_ld ? 1 : 0; /* the copy's operands: dst, src */
	char *ltext = loc_text(LIST_AT(st->operands, ViewExpr, li)->loc);
	char *ttext = loc_text(LIST_AT(st->operands, ViewExpr, ti)->loc);
	char op[96];
	opcode_format(&in->op, op, sizeof op);
	char *reg = ltext ? chunk_text(s, ltext, in->reg, s->pos_x, s->npos) : NULL;
	char *tm[2] = {NULL, NULL};
	for (int a = 0; a < s->ntm; a++)
		tm[a] = ttext ? chunk_text(s, ttext, in->tmem[a], s->tm_x[a], s->npos / s->ntm) : NULL;
	if (!reg || !tm[0] || (s->ntm == 2 && !tm[1])) {
		explain_note(st->loc, "this copy is %s, %d per warp; its operands are no single rearrange of the copy's", op,
		             (int)in->reg->dims[in->group ? 1 : 0]);
		return;
	}
	const char *tmems = s->ntm == 2 ? pool_printf("%s, %s", tm[0], tm[1]) : tm[0];
	const char *ops = s->is_ld ? pool_printf("%s, %s", reg, tmems) : pool_printf("%s, %s", tmems, reg);
	const char *named = s->ntm == 2 ? pool_printf(", imm_half_splitoff = (%u << 16) + %u", imm >> 16, imm & 0xffff) : "";
	explain_note(st->loc, "in its place: apply %s(%s) scope %s%s;", op, ops, scope_text(st), named);
}

/* The notes of --explain on where the waits of a kernel's copies went. */
void
copy_explain_waits(KernelIR *k)
{
	if (!diag_explain)
		return;
	for (int i = 0; i < k->placed_waits.n; i++) {
		PlacedWait *w = LIST_AT(k->placed_waits, PlacedWait, i);
		const char *what = isa_name(w->kind, 0);
		if (w->written)
			explain_note(w->copy, "its %s is the one written on line %d", what, w->at.first_line);
		else if (w->at.file == k->loc.file && w->at.first_line == k->loc.first_line)
			explain_note(w->copy, "its %s is at the end of %s '%s'", what, k->is_device ? "device function" : "kernel",
			             k->name);
		else if (w->at.first_column == 0)
			explain_note(w->copy, "its %s is placed at the end of the branch or loop body that ends on line %d, so "
			                      "that every path copies the staged registers once", what, w->at.first_line);
		else if (w->at.first_line == w->copy.first_line && w->at.file == w->copy.file)
			explain_note(w->copy, "its %s follows it at once", what);
		else
			explain_note(w->copy, "its %s is placed before line %d, the first statement that needs it", what,
			             w->at.first_line);
	}
}

typedef struct CopyMemo {
	View *lv, *tv;
	ScopeKind scope;
	uint64_t warps;
	bool is_ld;
	int n;                /* the applies of the copy, in order */
	ApplyInput *in;
	ApplyIssue **issues;
	int *nissues;
	uint32_t *imm;
} CopyMemo;

static CopyMemo *
memo_find(KernelIR *k, View *lv, View *tv, const ApplyInput *in, bool is_ld)
{
	for (int i = 0; i < k->copy_memo.n; i++) {
		CopyMemo *m = LIST_AT(k->copy_memo, CopyMemo, i);
		if (m->scope == in->scope && m->warps == in->warps && m->is_ld == is_ld && view_same(m->lv, lv) &&
		    view_same(m->tv, tv))
			return m;
	}
	return NULL;
}

/* Keeps a copy's applies for the copies like it (an unrolled loop, the same views). */
static void
remember(const Search *s, ApplyCtx *ctx, CopyMemo *m)
{
	m->lv = s->lv;
	m->tv = s->tv;
	m->scope = s->in.scope;
	m->warps = s->in.warps;
	m->is_ld = s->is_ld;
	list_push(&ctx->kernel->copy_memo, m);
}

/* The instructions of a copy's applies, in order; with their searches (subs, one per apply) the notes of
   --explain too. */
static void
emit_applies(Stmt *st, ApplyCtx *ctx, List *out, CopyChoice *choice, const CopyMemo *m, Search *subs)
{
	if (ctx->observer)
		ctx->observer->copy(st, m->in, m->n, true);
	for (int k = 0; k < m->n; k++) {
		apply_emit(&m->in[k], m->issues[k], m->nissues[k], m->imm[k], st->loc, ctx, out);
		if (subs)
			explain_copy(&subs[k], st, &m->in[k], m->imm[k]);
	}
	choice->in = m->in[0];
	choice->imm = m->imm[0];
}

/* Where the images put a TMEM lane (row r of a warp's 32 lanes) in the thread lanes of its warp: 32x32b
   in lane r, 16x32bx2 in lane r % 16 (or r % 16 + 16, the second access), the other 16-row shapes in
   the group of four lanes 4 * (r % 8) .. + 3. A copy one of whose elements fits none of these in the
   layout that holds it, or whose elements fit no one rule together, or that lies in another warp than
   its TMEM lane's, no instruction can move: say so, with the element. */
static bool
explain_impossible(const Search *s, Stmt *st, const char *dir)
{
	const Layout *ll = s->lv->base->layout;
	bool warp_level = layout_names_thread(ll) && layout_copy_of(ll, 32) == layout_copy_of(ll, 0);
	int first[3] = {-1, -1, -1}, wrong_warp = -1;
	for (int x = 0; x < s->n; x++) {
		const int32_t *lp = LAYOUT_PLACE(ll, s->lv->map[x], 0);
		const int32_t *tp = LAYOUT_PLACE(s->tv->base->layout, s->tv->map[x], 0);
		int lane = s->tv->base->lane_offset + tp[AX_TLANE], row = lane % 32, thread = layout_place_thread(lp);
		int tl = layout_names_thread(ll) ? thread % 32 : -1;
		if (tl < 0)
			return false; /* every thread holds it: the ownership check says more */
		bool fits[3] = {tl == row, tl % 16 == row % 16, tl / 4 == row % 8};
		for (int k = 0; k < 3; k++)
			if (!fits[k] && first[k] < 0)
				first[k] = x;
		if (warp_level && s->in.scope != SCOPE_WARP && (thread / 32) % 4 != lane / 32 % 4 && wrong_warp < 0)
			wrong_warp = x;
	}
	if (wrong_warp < 0 && (first[0] < 0 || first[1] < 0 || first[2] < 0))
		return false;
	int x = wrong_warp >= 0 ? wrong_warp : first[2] >= 0 ? first[2] : first[0];
	const int32_t *lp = LAYOUT_PLACE(ll, s->lv->map[x], 0);
	const int32_t *tp = LAYOUT_PLACE(s->tv->base->layout, s->tv->map[x], 0);
	int lane = s->tv->base->lane_offset + tp[AX_TLANE], thread = layout_place_thread(lp);
	char where[96];
	format_coords(where, sizeof where, s->cv->rank, s->cv->dims, x);
	if (wrong_warp >= 0)
		note(st->loc, "no %s instruction can do this copy, whatever its shape: element %s lies in TMEM lane %d, "
		              "which only warp %d of a warpgroup reaches, but the layout of '%s' gives it to thread %d "
		              "(warp %d); elements move between warps only through memory (a shared tensor and cta_sync)",
		     dir, where, lane, lane / 32 % 4, s->lv->base->name, thread, thread / 32);
	else
		note(st->loc, "no %s instruction can do this copy, whatever its shape: element %s lies in TMEM lane %d, "
		              "which an instruction moves to or from lane %d of the warp (32x32b), lane %d or %d "
		              "(16x32bx2) or lanes %d to %d (the other 16-row shapes), but the layout of '%s' gives it to "
		              "lane %d; a %s or st keeps each TMEM lane in its thread lane or 16-lane group, so a "
		              "transpose goes through memory (a shared tensor and cta_sync) or through a tmem tensor "
		              "stored transposed", dir, where, lane, lane % 32, lane % 16, lane % 16 + 16, 4 * (lane % 8),
		     4 * (lane % 8) + 3, s->lv->base->name, thread % 32, isa_name(TC_LD, 0));
	return true;
}

/* The rule of a shape's image in words, and, for a tmem view of rows in lanes and columns in columns
   (a datapath or default layout), the local layout that 32x32b takes: what the closest candidate's
   mismatch most likely asks for. */
static void
explain_rule(const Search *s, Stmt *st, const Opcode *op)
{
	static const char *const rules[SH_COUNT] = {
		[SH_32X32B] = "lane l of warp w holds TMEM lane 32 * (w % 4) + l, its registers the columns in order",
		[SH_16X64B] = "16 TMEM lanes of 2 columns: row r, column c in lane 4 * (r % 8) + 2 * c + r / 8",
		[SH_16X128B] = "16 TMEM lanes of 4 columns: row r, column c in lane 4 * (r % 8) + c, register r / 8",
		[SH_16X256B] = "16 TMEM lanes of 8 columns: row r, column c in lane 4 * (r % 8) + c / 2, register c % 2 + "
		               "2 * (r / 8)",
		[SH_16X32BX2] = "two blocks of 16 TMEM lanes: row r of the first in lane r, of the second in lane r + 16",
	};
	char text[96];
	opcode_format(op, text, sizeof text);
	note(st->loc, "the rule of %s: %s (tilec --print-image %s shows it all)", shape_name(op->shape),
	     rules[op->shape], text);
	View *tv = s->tv;
	if (tv->rank != 2)
		return;
	int rows = tv->dims[0], cols = tv->dims[1];
	for (int x = 0; x < tv->count; x++) {
		const int32_t *tp = LAYOUT_PLACE(tv->base->layout, tv->map[x], 0);
		const int32_t *t0 = LAYOUT_PLACE(tv->base->layout, tv->map[0], 0);
		if (tp[AX_TLANE] - t0[AX_TLANE] != x / cols || tp[AX_TCOL] - t0[AX_TCOL] != x % cols)
			return;
	}
	int lane0 = tv->base->lane_offset + LAYOUT_PLACE(tv->base->layout, tv->map[0], 0)[AX_TLANE];
	if (lane0 % 32 || (rows != 32 && rows != TMEM_LANES) || (rows == TMEM_LANES && lane0))
		return;
	note(st->loc, "'%s' holds row i of its %d rows in TMEM lane %s%s: for 32x32b, a layout that gives row i to "
	              "thread %s, e.g. S[(%d, %d) : (1@%s, 1)]", tv->base->name, rows, lane0 ? pool_printf("%d + ", lane0) : "",
	     "i", rows == 32 ? "lane i of the warp" : "i of the warpgroup", rows, cols, rows == 32 ? "laneid" : "tid_in_wg");
}

/* tmem <-> local: the search, then the instructions of the best candidate. */
static bool
copy_tmem(Stmt *st, View *dst, View *lv, View *tv, ApplyCtx *ctx, List *out, CopyChoice *choice)
{
	Search s = {0};
	s.lv = lv;
	s.tv = tv;
	s.cv = dst;
	s.is_ld = dst == lv;
	s.in.scope = st->scope;
	s.in.guard = st->scope_arg && st->scope != SCOPE_CTA;
	if (!apply_scope_warps(st, &s.in, ctx))
		return false;
	s.groups = s.in.group ? s.in.group : 1;
	s.half = 32 / etype_bits(lv->base->type);
	CopyMemo *memo = memo_find(ctx->kernel, lv, tv, &s.in, s.is_ld);
	if (memo && diag_explain)
		memo = NULL; /* the notes need the search's operand maps */
	if (memo) {
		emit_applies(st, ctx, out, choice, memo, NULL);
		return true;
	}
	const char *dir = isa_name(s.is_ld ? TC_LD : TC_ST, 0);
	if (lv->count % (s.groups * 32 * s.half)) {
		error(st->loc, "this copy moves %d elements, which %d warp%s of 32 threads cannot share evenly", lv->count,
		      s.groups, s.groups > 1 ? "s" : "");
		return false;
	}
	collect(&s);
	Candidate cands[SH_COUNT * 2 * 9];
	int ncand = candidates(&s, cands);
	long best_progress = -1;
	Mismatch best_mm = {0};
	ApplyInput best_in = {0};
	Candidate best = {0};
	TileFail best_fail = {0};
	int best_coord[MAX_RANK], best_base[MAX_RANK];
	for (int i = 0; i < ncand; i++) {
		Candidate *c = &cands[i];
		if (c->mixed) {
			CopyMemo *m = pool_alloc(sizeof *m);
			Search *subs = pool_alloc(sizeof(Search) * MAX_CHUNKS);
			m->in = pool_alloc(sizeof(ApplyInput) * MAX_CHUNKS);
			m->issues = pool_alloc(sizeof(ApplyIssue *) * MAX_CHUNKS);
			m->nissues = pool_alloc(sizeof(int) * MAX_CHUNKS);
			m->imm = pool_alloc(sizeof(uint32_t) * MAX_CHUNKS);
			if (!tile_mixed(&s, c, subs, m->in, m->issues, m->nissues, m->imm))
				continue;
			m->n = c->repeats;
			remember(&s, ctx, m);
			emit_applies(st, ctx, out, choice, m, subs);
			return true;
		}
		if (!tile(&s, c)) {
			if (best_progress < 0 && !best_fail.set) {
				best_fail = s.fail;
				best = *c;
			}
			continue;
		}
		ApplyInput in;
		build_views(&s, c, &in);
		ApplyIssue *issues;
		int nissues;
		uint32_t imm;
		Mismatch mm;
		if (apply_match(&in, &issues, &nissues, &imm, &mm)) {
			CopyMemo *m = pool_alloc(sizeof *m);
			m->n = 1;
			m->in = pool_alloc(sizeof in);
			*m->in = in;
			m->issues = pool_alloc(sizeof issues);
			*m->issues = issues;
			m->nissues = pool_alloc(sizeof(int));
			*m->nissues = nissues;
			m->imm = pool_alloc(sizeof(uint32_t));
			*m->imm = imm;
			remember(&s, ctx, m);
			emit_applies(st, ctx, out, choice, m, &s);
			return true;
		}
		long p = progress(&mm, &in, c->repeats);
		if (p > best_progress) {
			best_progress = p;
			best_mm = mm;
			best_in = in;
			best = *c;
			/* the element, in the copy's coordinates, while the candidate's views are at hand */
			int rank = copy_coord(&s, &in, mm.operand, mm.coord, mm.rank, best_coord);
			memcpy(best_mm.coord, best_coord, sizeof(int) * (size_t)rank);
			best_mm.rank = rank;
			if (mm.base_rank) {
				rank = copy_coord(&s, &in, mm.operand, mm.base_coord, mm.base_rank, best_base);
				memcpy(best_mm.base_coord, best_base, sizeof(int) * (size_t)rank);
				best_mm.base_rank = rank;
			}
		}
	}
	char text[96];
	opcode_format(&best.op, text, sizeof text);
	error(st->loc, "no %s instruction matches the layouts of this copy; the closest candidate is %s", dir, text);
	if (best_progress >= 0) {
		if (ctx->observer)
			ctx->observer->copy(st, &best_in, 1, false);
		apply_report(&best_in, &best_mm, st->loc, st->loc, true);
		advise(&s, &best_mm, text, st->loc);
		if (!explain_impossible(&s, st, dir) && best_mm.kind == MM_OWNER)
			explain_rule(&s, st, &best.op);
	} else if (best_fail.high) {
		format_coords(text, sizeof text, dst->rank, dst->dims, best_fail.x);
		note(st->loc, "element %s is the high half of a TMEM cell: .pack::16b / .unpack::16b need each element in "
		              "the low half of its own cell", text);
	} else if (best_fail.uneven) {
		note(st->loc, "warp %d of the %s would issue %d of them and warp 0 would issue %d: each warp moves the "
		              "elements in its own TMEM lanes, and every warp of the scope must move as many; give the copy "
		              "the scope of the warps that hold its elements", best_fail.gi,
		     st->scope == SCOPE_CTA ? "CTA" : "warpgroup", best_fail.atoms, best_fail.atoms0);
	} else {
		int warp = s.in.scope == SCOPE_WARP ? __builtin_ctzll(s.in.warps) : best_fail.gi;
		note(st->loc, "it would also move TMEM lane %d%s, which the copy does not name: each instruction of warp %d "
		              "covers %d lanes by %d column%s", 32 * (warp % 4) + best_fail.lane,
		     best_fail.cell >= 0 ? pool_printf(", column %d", tv->base->col_offset + best_fail.cell) : "", warp,
		     shape_rows(best.op.shape), opcode_tmem_cols(&best.op), opcode_tmem_cols(&best.op) > 1 ? "s" : "");
	}
	return false;
}

/* --------------------------------------------------------------- local <-> global or shared */

/* The block of the copy being lowered (copy_regs), for thread_index. */
static const int *copy_block;
static int copy_unit; /* a warp or warpgroup function's own code: its 32 or 128 threads, else 0 */

/* The thread's linear index in the CTA, x + y * X + z * X * Y, as layouts count it (tx). */
static IExpr *
thread_index(void)
{
	IExpr *tid = ie_builtin(B_THREAD_X);
	if (copy_block[1] > 1 || copy_block[2] > 1)
		tid = ie_binary(OP_ADD, tid, ie_binary(OP_MUL, ie_builtin(B_THREAD_Y), ie_int(copy_block[0], T_I32)));
	if (copy_block[2] > 1)
		tid = ie_binary(OP_ADD, tid, ie_binary(OP_MUL, ie_builtin(B_THREAD_Z), ie_int(copy_block[0] * copy_block[1], T_I32)));
	/* a warp or warpgroup function counts its threads within the calling unit, which may be any of the CTA,
	   in a block of any shape: the lane, and in a warpgroup the warp's place in it (its warp_id) */
	if (copy_unit == 32)
		return ie_builtin(B_LANE_ID);
	if (copy_unit)
		return ie_binary(OP_ADD, ie_builtin(B_LANE_ID), ie_binary(OP_MUL, ie_builtin(B_WARP_ID), ie_int(32, T_I32)));
	return tid;
}

/* The offset of slot s in thread t, as an expression of the thread's index: the sum of bit fields of the
   index, each times a constant (what strided layouts give); NULL when the offsets are not of that form.
   A block that is no power of two (96 threads) has the fields of the next one, checked on its threads. */
static IExpr *
thread_offset(const int64_t *off, int threads)
{
	int bits = 0;
	while ((1 << bits) < threads)
		bits++;
	int64_t coef[32];
	for (int b = 0; b < bits; b++)
		coef[b] = off[1 << b] - off[0];
	for (int t = 0; t < threads; t++) {
		int64_t v = off[0];
		for (int b = 0; b < bits; b++)
			v += (t >> b & 1) * coef[b];
		if (v != off[t])
			return NULL;
	}
	IExpr *tid = thread_index();
	IExpr *sum = ie_int(off[0], T_I32);
	for (int b = 0; b < bits;) {
		if (!coef[b]) {
			b++;
			continue;
		}
		/* a run of bits whose constants double is one field: ((t >> b) & mask) * coef */
		int e = b + 1;
		while (e < bits && coef[e] == 2 * coef[e - 1])
			e++;
		IExpr *field = b ? ie_binary(OP_SHR, tid, ie_int(b, T_I32)) : tid;
		if (e < bits)
			field = ie_binary(OP_BITAND, field, ie_int((1 << (e - b)) - 1, T_I32));
		if (coef[b] != 1)
			field = ie_binary(OP_MUL, field, ie_int(coef[b], T_I32));
		sum = ie_binary(OP_ADD, sum, field);
		b = e;
	}
	return sum;
}

/* The element index in the array of shared tile t of the element at row-major index off[thread] (off: one
   register slot's elements, thread by thread): a sum of bit fields of the thread's index where the
   swizzled indices are one (the XOR of a thread-independent chunk with row bits is: each bit flips or
   not), else the tile's address function of the row and column, each such a sum; NULL when neither is. */
static IExpr *
tile_thread_offset(const Tensor *t, const int64_t *off, int threads)
{
	int64_t *phys = malloc(sizeof *phys * (size_t)threads * 3);
	if (!phys)
		out_of_memory();
	int64_t *row = phys + threads, *col = row + threads, per_tile = (int64_t)t->tile->rows * t->tile->cols;
	bool inside = true;
	for (int i = 0; i < threads; i++) {
		inside = inside && off[i] >= 0 && off[i] < t->count;
		phys[i] = inside ? smem_tensor_element(t->tile, off[i]) : 0;
		row[i] = off[i] / t->tile->cols; /* with the stacked tile's index: rows of the whole stack */
		col[i] = off[i] % t->tile->cols;
	}
	IExpr *index = inside ? thread_offset(phys, threads) : NULL;
	if (!index) {
		IExpr *r = thread_offset(row, threads), *c = thread_offset(col, threads);
		if (r && c) {
			IExpr *stack = t->count > per_tile ? ie_binary(OP_DIV, r, ie_int(t->tile->rows, T_I32)) : NULL;
			index = ie_tile_index(t->tile, stack, stack ? ie_binary(OP_MOD, r, ie_int(t->tile->rows, T_I32)) : r, c);
		}
	}
	free(phys);
	return index;
}

/* The offset of slot s in thread t inside a run-time box of tensor t (off: the flat index in the box
   per thread), and the coordinates it stands for (the box's start plus bit fields of the thread's
   index, then a constant). The constants go outside, rest + c, so that a thread's neighbouring
   elements share the rest and their accesses can merge into a vector (vectorize.c). */
static IExpr *
box_offset(const Box *b, const Tensor *t, const int64_t *off, int threads, IExpr ***coords_out)
{
	int64_t *cd = pool_alloc(sizeof(int64_t) * (size_t)threads);
	IExpr **coords = pool_alloc(sizeof(IExpr *) * (size_t)t->rank);
	EType it = t->wide ? T_I64 : T_I32;
	IExpr *rest = ie_int(0, it);
	int64_t c = 0, inner = 1, sstride = 1;
	for (int d = t->rank - 1; d >= 0; d--) {
		for (int k = 0; k < threads; k++)
			cd[k] = off[k] / inner % b->ext[d];
		int64_t c0 = cd[0];
		for (int k = 0; k < threads; k++)
			cd[k] -= c0;
		IExpr *fields = thread_offset(cd, threads);
		if (!fields)
			return NULL;
		IExpr *var = b->start[d] ? ie_binary(OP_ADD, b->start[d], fields) : fields;
		coords[d] = ie_binary(OP_ADD, var, ie_int(c0, T_I32));
		int64_t stride = sstride;
		bool known = !t->wide || ie_is_const(t->rstrides[d], &stride);
		IExpr *mul = t->wide ? t->rstrides[d] : ie_int(stride, T_I32);
		int64_t cv = 0;
		bool vconst = ie_is_const(var, &cv);
		if (!vconst || !known)
			rest = ie_binary(OP_ADD, rest, ie_binary(OP_MUL, ie_convert(known ? var : coords[d], it), mul));
		if (known) /* a constant start (A[r0 : r0 + 128, 8 : 40]) counts with c0 */
			c += (c0 + (vconst ? cv : 0)) * stride;
		inner *= b->ext[d];
		sstride *= t->dims[d];
	}
	*coords_out = coords;
	return ie_binary(OP_ADD, rest, ie_int(c, it));
}

/* The threads that own a register slot, as a test of thread_idx.x: every thread (NULL), those whose
   index has fixed bits (a layout over fewer threads than the block, or one warp's threads), or a range
   [lo, hi). Threads outside it get the offsets their bit fields would give, so that one expression of
   the thread's index serves the owners (false: the owners are neither, or their offsets are not of that
   form). */
static bool
owner_test(int64_t *off, const unsigned char *has, int threads, IExpr **test)
{
	*test = NULL;
	int bits = 0, first = -1, last = -1, count = 0;
	while ((1 << bits) < threads)
		bits++;
	unsigned all_and = ~0u, all_or = 0;
	for (int t = 0; t < threads; t++) {
		if (!has[t])
			continue;
		if (first < 0)
			first = t;
		last = t;
		count++;
		all_and &= (unsigned)t;
		all_or |= (unsigned)t;
	}
	if (count == threads)
		return true;
	unsigned fixed = ~(all_and ^ all_or) & ((1u << bits) - 1);
	/* the threads of the block with those bits fixed: all owners, in a block that is no power of two
	   (96 threads) too, where the indices past the block are no threads at all */
	bool bit_set = true;
	for (int t = 0; t < threads && bit_set; t++)
		bit_set = (has[t] != 0) == (((unsigned)t & fixed) == (all_and & fixed));
	IExpr *tid = thread_index();
	if (bit_set)
		*test = ie_binary(OP_EQ, ie_binary(OP_BITAND, tid, ie_int(fixed, T_I32)), ie_int(all_and & fixed, T_I32));
	else if (count == last - first + 1 && first == 0)
		*test = ie_binary(OP_LT, tid, ie_int(last + 1, T_I32));
	else if (count == last - first + 1)
		*test = ie_binary(OP_LAND, ie_binary(OP_GE, tid, ie_int(first, T_I32)),
		                  ie_binary(OP_LT, tid, ie_int(last + 1, T_I32)));
	else
		return false;
	/* the owners' offsets as a constant plus a multiple of each bit of the index */
	int64_t coef[32] = {0};
	for (int b = 0; b < bits; b++) {
		if (fixed >> b & 1 && *test && (*test)->op == OP_EQ)
			continue;
		int t = first;
		while (t <= last && !(has[t] && !(t >> b & 1) && (t | 1 << b) < threads && has[t | 1 << b]))
			t++;
		if (t <= last)
			coef[b] = off[t | 1 << b] - off[t];
		else if ((all_and ^ all_or) >> b & 1)
			return false;
	}
	int64_t base = off[first];
	for (int b = 0; b < bits; b++)
		base -= (first >> b & 1) * coef[b];
	for (int t = 0; t < threads; t++) {
		int64_t v = base;
		for (int b = 0; b < bits; b++)
			v += (t >> b & 1) * coef[b];
		if (has[t] && v != off[t])
			return true; /* the owners are fine; their offsets are no sum of fields, which the caller reports */
	}
	for (int t = 0; t < threads; t++) {
		int64_t v = base;
		for (int b = 0; b < bits; b++)
			v += (t >> b & 1) * coef[b];
		if (!has[t])
			off[t] = v;
	}
	return true;
}

/* The threads that may hold a place: those of its lane in every warp, or, for a layout that names no
   thread axis, every thread (each holds its own copy of the whole tensor), or no lane-level axis, every
   thread of the warps it names (each lane holds a copy). */
static int
replica_first(const Layout *l, const int32_t *place)
{
	return layout_names_lane(l) ? layout_place_thread(place) % 32 : 0;
}

static int
replica_step(const Layout *l)
{
	return layout_names_lane(l) ? 32 : 1;
}

/* The list a copy's moves go into: out, or, under a written warp(K) / warpgroup(K), the body of the test
   that the other warps reaching the copy skip it by, as they skip such an apply. */
static List *
scope_body(Stmt *st, ApplyCtx *ctx, List *out, const ApplyInput *scope)
{
	IExpr *cond = scope ? apply_scope_guard(scope, ctx, __builtin_ctzll(scope->warps)) : NULL;
	if (!cond)
		return out;
	LStmt *g = pool_alloc(sizeof *g);
	g->kind = L_IF;
	g->loc = st->loc;
	g->cond = cond;
	list_push(out, g);
	return &g->body;
}

/* Register slot s of local tensor t, as an expression. */
static IExpr *
reg_slot(Tensor *t, int s)
{
	IExpr *reg = pool_alloc(sizeof *reg);
	reg->kind = IE_REG;
	reg->type = value_type(t->type);
	reg->tensor = t;
	reg->slot = s;
	return reg;
}

/* Appends one move behind the test of its owners (NULL: every thread); the moves of one set of owners
   share their test (*guard, the last test written). */
static void
push_owned(List *out, LStmt **guard, IExpr *owners, LStmt *move)
{
	if (owners && !(*guard && ie_equal((*guard)->cond, owners))) {
		LStmt *g = pool_alloc(sizeof *g);
		g->kind = L_IF;
		g->loc = move->loc;
		g->cond = owners;
		g->owner_test = true;
		list_push(out, g);
		*guard = g;
	} else if (!owners) {
		*guard = NULL;
	}
	list_push(*guard ? &(*guard)->body : out, move);
}

/* Each thread moves the elements it owns: for every register slot, one access at an offset computed
   from the thread's index. */
static bool
copy_regs_moves(Stmt *st, View *dst, View *lv, View *mv, ApplyCtx *ctx, List *out, const ApplyInput *scope,
                const int *coord_of, int64_t *off, unsigned char *has)
{
	uint64_t scope_warps = scope ? scope->warps : 0;
	KernelIR *k = ctx->kernel;
	Tensor *lt = lv->base, *mt = mv->base;
	const Layout *l = lt->layout;
	int threads = k->threads, slots = l->slots;
	copy_block = k->block;
	copy_unit = k->is_device && k->scope != SCOPE_CTA ? threads : 0;
	bool is_load = dst == lv;
	/* a load fills every replica of an element; a store writes it once, from the replica of the lowest
	   thread (then slot) among the warps that run it (those of its written scope), where those are known
	   (whole warps). The replicas of warps that do not run it stay, so that their threads keep the owners'
	   pattern of bits (no test of the warp inside if (warp_id == 1)). Not into a slice of run-time bounds:
	   its start may differ between threads (O[warp_id * 32 : ...]), and so may the replicas' addresses. */
	bool once = !is_load && ctx->whole_warps && !mv->box;
	uint64_t runs = scope_warps ? ctx->warps & scope_warps : ctx->warps;
	for (int e = 0; e < lt->count; e++) {
		if (coord_of[e] < 0)
			continue;
		bool held = !scope_warps;
		int holder = -1;
		size_t chosen = SIZE_MAX; /* (slot, thread) index of the replica that stores */
		for (int r = 0; r < l->nrep; r++) {
			const int32_t *place = LAYOUT_PLACE(l, e, r);
			for (int t = replica_first(l, place); t < threads; t += replica_step(l)) {
				if (!layout_place_owned_by(l, place, t))
					continue;
				size_t i = (size_t)place[AX_M] * (size_t)threads + (size_t)t;
				off[i] = mv->map[coord_of[e]];
				has[i] = 1;
				held = held || (t / 32 < 64 && (scope_warps >> (t / 32) & 1));
				holder = holder < 0 ? t : holder;
				if (!once || !(runs >> (t / 32) & 1))
					continue;
				if (chosen == SIZE_MAX || (size_t)t < chosen % (size_t)threads ||
				    ((size_t)t == chosen % (size_t)threads && i < chosen))
					chosen = i;
			}
		}
		/* the other replicas in warps that run the copy do not store; in the other warps those of the
		   chosen one's lane and slot stay, which keeps the pattern of lane bits */
		for (int r = 0; chosen != SIZE_MAX && r < l->nrep; r++) {
			const int32_t *place = LAYOUT_PLACE(l, e, r);
			for (int t = replica_first(l, place); t < threads; t += replica_step(l)) {
				size_t i = (size_t)place[AX_M] * (size_t)threads + (size_t)t;
				bool mirror = !(runs >> (t / 32) & 1) && t % 32 == (int)(chosen % (size_t)threads) % 32 &&
				              i / (size_t)threads == chosen / (size_t)threads;
				if (i != chosen && !mirror && layout_place_owned_by(l, place, t))
					has[i] = 0;
			}
		}
		/* a written scope runs the copy in its warps only; every element must have a thread there */
		if (!held) {
			char text[96];
			format_coords(text, sizeof text, lv->rank, lv->dims, coord_of[e]);
			error(st->scope_loc, "no thread of this copy's scope holds element %s of '%s' (thread %d of the block "
			                     "does): each thread moves the elements it holds, so the copy would leave it out",
			      text, lv->name, holder);
			return false;
		}
	}
	out = scope_body(st, ctx, out, scope);
	LStmt *guard = NULL;
	for (int s = 0; s < slots; s++) {
		int count = 0;
		for (int t = 0; t < threads; t++)
			count += has[(size_t)s * (size_t)threads + (size_t)t];
		if (!count)
			continue;
		IExpr *owners;
		if (!owner_test(&off[(size_t)s * (size_t)threads], &has[(size_t)s * (size_t)threads], threads, &owners)) {
			error(st->loc, "copy: register slot %d of '%s' holds an element of the copy in %d of the %d threads, "
			               "which are neither a range of thread_idx.x nor the threads with some bits of it fixed",
			      s, lt->name, count, threads);
			return false;
		}
		IExpr *index, **coords = NULL;
		if (mv->box)
			index = box_offset(mv->box, mt, &off[(size_t)s * (size_t)threads], threads, &coords);
		else if (mt->tile)
			index = tile_thread_offset(mt, &off[(size_t)s * (size_t)threads], threads);
		else
			index = thread_offset(&off[(size_t)s * (size_t)threads], threads);
		if (!index) {
			error(st->loc, "copy: the memory offsets of register slot %d of '%s' are no sum of bit fields of "
			               "thread_idx.x; move the elements by hand with a per-thread view", s, lt->name);
			return false;
		}
		IExpr *reg = reg_slot(lt, s);
		IExpr *mem = pool_alloc(sizeof *mem);
		mem->kind = IE_LOAD;
		mem->type = value_type(mt->type);
		mem->tensor = mt;
		mem->index = index;
		LStmt *l2 = pool_alloc(sizeof *l2);
		l2->loc = st->loc;
		if (mv->box) {
			l2->mask_lo = mv->box->check_lo;
			l2->mask_hi = mv->box->check_hi;
			l2->align_test = true;
			if (is_load)
				mem->coords = coords;
			else
				l2->coords = coords;
		}
		if (is_load) {
			l2->kind = L_REG_STORE;
			l2->tensor = lt;
			l2->slot = s;
			l2->value = ie_convert(mem, lt->type);
		} else {
			l2->kind = L_STORE;
			l2->tensor = mt;
			l2->index = index;
			l2->value = ie_convert(reg, mt->type);
		}
		push_owned(out, &guard, owners, l2);
	}
	if (diag_explain)
		explain_note(st->loc, "no tcgen05 instruction and no wait: each thread %s the elements of '%s' that it holds, "
		             "one access per register slot, those next to each other in memory merged up to 16 bytes where "
		             "the address is aligned%s%s%s", is_load ? "loads" : "stores", lt->name,
		             mv->box ? "; coordinates outside the shape of '" : "", mv->box ? mt->name : "",
		             mv->box ? "' are skipped" : "");
	return true;
}

/* --------------------------------------------------------------- local <-> local */

/* A register-to-register copy: each thread that holds an element of dst assigns it from its own copy
   of the element in src, converted as an assignment would; so every such thread must hold it in src
   too. Every replica of a dst element that a thread holds is written. Registers are named at compile
   time: a dst slot whose element comes from different src slots in different threads is one move per
   src slot, each behind the test of its threads. */

/* The src slot that thread t reads for each dst slot (from, -1: none) over the dst elements of the copy;
   with all_warps, also in the warps that do not run it (those where t holds an element of src). Returns
   the copy coordinate of a dst element that some thread of a warp that runs it holds in dst but not in
   src (*thread: that thread), or -1. */
static int
local_moves(const View *dst, const View *src, int threads, uint64_t runs, bool all_warps, int *from, int *thread)
{
	const Layout *dl = dst->base->layout, *sl = src->base->layout;
	for (int i = 0; i < dl->slots * threads; i++)
		from[i] = -1;
	for (int x = 0; x < dst->count; x++) {
		int de = dst->map[x], se = src->map[x];
		for (int t = 0; t < threads; t++) {
			bool running = t / 32 >= 64 || (runs >> (t / 32) & 1);
			if (!running && !all_warps)
				continue;
			int ss = -2;
			for (int r = 0; r < dl->nrep; r++) {
				const int32_t *place = LAYOUT_PLACE(dl, de, r);
				if (!layout_place_owned_by(dl, place, t))
					continue;
				if (ss == -2)
					ss = layout_slot_in_thread(sl, se, t);
				if (ss < 0 && running) {
					*thread = t;
					return x;
				}
				if (ss >= 0)
					from[(size_t)place[AX_M] * (size_t)threads + (size_t)t] = ss;
			}
		}
	}
	return -1;
}

static bool
copy_locals(Stmt *st, View *dst, View *src, ApplyCtx *ctx, List *out, const ApplyInput *scope)
{
	KernelIR *k = ctx->kernel;
	Tensor *dt = dst->base, *sT = src->base;
	const Layout *dl = dt->layout, *sl = sT->layout;
	int threads = k->threads;
	uint64_t runs = scope ? ctx->warps & scope->warps : ctx->warps;
	copy_block = k->block;
	copy_unit = k->is_device && k->scope != SCOPE_CTA ? threads : 0;
	/* per dst slot: the src slot each thread reads (-1: the thread does not hold that slot's element);
	   from_all also in the warps that do not run the copy: where the threads that run it are no pattern
	   of bits, those of the other warps may complete one, as they skip the move anyway */
	int *from = pool_alloc(sizeof(int) * (size_t)dl->slots * (size_t)threads);
	int *from_all = pool_alloc(sizeof(int) * (size_t)dl->slots * (size_t)threads);
	int t = -1;
	int x = local_moves(dst, src, threads, runs, false, from, &t);
	if (x < 0)
		local_moves(dst, src, threads, runs, true, from_all, &t);
	if (x >= 0) {
		char text[96];
		format_coords(text, sizeof text, dst->rank, dst->dims, x);
		int other = -1;
		for (int u = 0; u < threads && other < 0; u++)
			if (layout_slot_in_thread(sl, src->map[x], u) >= 0)
				other = u;
		error(st->loc, "copy between local tensors: thread %d holds element %s of '%s' but not of '%s' "
		               "(thread %d holds it there); each thread assigns the elements it holds from its own "
		               "registers, so both layouts must give every element to the same threads", t, text,
		      dst->name, src->name, other);
		return false;
	}
	/* the moves: dst slot, src slot, and the test of their threads */
	int nmoves = 0;
	int *move_dst = pool_alloc(sizeof(int) * (size_t)dl->slots * (size_t)sl->slots);
	int *move_src = pool_alloc(sizeof(int) * (size_t)dl->slots * (size_t)sl->slots);
	IExpr **move_owners = pool_alloc(sizeof(IExpr *) * (size_t)dl->slots * (size_t)sl->slots);
	int64_t *off = pool_alloc(sizeof(int64_t) * (size_t)threads);
	unsigned char *has = pool_alloc((size_t)threads);
	for (int ds = 0; ds < dl->slots; ds++) {
		/* one move per source slot that this slot takes in some thread, each for its threads */
		for (int ss = 0; ss < sl->slots; ss++) {
			int count = 0;
			for (int u = 0; u < threads; u++) {
				has[u] = from[(size_t)ds * (size_t)threads + (size_t)u] == ss;
				off[u] = 0;
				count += has[u];
			}
			if (!count)
				continue;
			IExpr *owners;
			bool found = owner_test(off, has, threads, &owners);
			if (!found) {
				for (int u = 0; u < threads; u++)
					has[u] = from_all[(size_t)ds * (size_t)threads + (size_t)u] == ss;
				found = owner_test(off, has, threads, &owners);
			}
			if (!found) {
				error(st->loc, "copy: register slot %d of '%s' holds an element of the copy in %d of the %d threads, "
				               "which are neither a range of thread_idx.x nor the threads with some bits of it fixed",
				      ds, dt->name, count, threads);
				return false;
			}
			move_dst[nmoves] = ds;
			move_src[nmoves] = ss;
			move_owners[nmoves++] = owners;
		}
	}
	/* A copy between views of one tensor that overlap: a move must not read a slot that an earlier move
	   wrote, so where one may, every move reads its source into a variable of its own first (the copy
	   reads all of src before it writes dst) */
	bool overlap = false;
	for (int a = 0; dt == sT && a < nmoves && !overlap; a++)
		for (int b = a + 1; b < nmoves && !overlap; b++)
			overlap = move_dst[a] != move_src[a] && move_dst[a] == move_src[b];
	out = scope_body(st, ctx, out, scope);
	LStmt *guard = NULL;
	IExpr **value = pool_alloc(sizeof(IExpr *) * (size_t)(nmoves ? nmoves : 1));
	for (int m = 0; m < nmoves; m++) {
		value[m] = reg_slot(sT, move_src[m]);
		if (!overlap)
			continue;
		Var *var = pool_alloc(sizeof *var);
		var->cname = var->name = pool_printf("tl_copy%d", k->ncopy_vars++);
		var->type = value[m]->type;
		var->varying = var->per_thread = true;
		LStmt *decl = pool_alloc(sizeof *decl);
		decl->kind = L_VAR;
		decl->loc = st->loc;
		decl->var = var;
		/* every thread reads it: declared with its value; else assigned behind the owners' test below */
		decl->value = move_owners[m] ? NULL : value[m];
		list_push(out, decl);
		value[m] = ie_var(var, var->type);
	}
	for (int m = 0; overlap && m < nmoves; m++) {
		if (!move_owners[m])
			continue;
		LStmt *read = pool_alloc(sizeof *read);
		read->kind = L_ASSIGN;
		read->loc = st->loc;
		read->var = value[m]->var;
		read->value = reg_slot(sT, move_src[m]);
		push_owned(out, &guard, move_owners[m], read);
	}
	guard = NULL;
	for (int m = 0; m < nmoves; m++) {
		LStmt *l2 = pool_alloc(sizeof *l2);
		l2->loc = st->loc;
		l2->kind = L_REG_STORE;
		l2->tensor = dt;
		l2->slot = move_dst[m];
		l2->value = ie_convert(value[m], dt->type);
		push_owned(out, &guard, move_owners[m], l2);
	}
	if (diag_explain)
		explain_note(st->loc, "no tcgen05 instruction and no wait: each thread assigns the elements of '%s' that it "
		             "holds from its own registers of '%s', converted as an assignment would", dt->name, sT->name);
	return true;
}

static bool
copy_regs(Stmt *st, View *dst, View *lv, View *mv, ApplyCtx *ctx, List *out, const ApplyInput *scope)
{
	Tensor *lt = lv->base;
	size_t cells = (size_t)ctx->kernel->threads * (size_t)lt->layout->slots;
	/* which copy coordinate each local element is, and each (thread, slot)'s memory offset; freed on
	   return: in the pool they stayed for every copy of every inlined call (06_device_chain) */
	int *coord_of = malloc(sizeof(int) * (size_t)lt->count);
	int64_t *off = calloc(cells, sizeof(int64_t));
	unsigned char *has = calloc(cells, 1);
	if (!coord_of || !off || !has)
		out_of_memory();
	for (int e = 0; e < lt->count; e++)
		coord_of[e] = -1;
	for (int x = 0; x < lv->count; x++)
		coord_of[lv->map[x]] = x;
	bool ok = copy_regs_moves(st, dst, lv, mv, ctx, out, scope, coord_of, off, has);
	free(coord_of);
	free(off);
	free(has);
	return ok;
}

bool
copy_lower(Stmt *st, View *dst, View *src, ApplyCtx *ctx, List *out, CopyChoice *choice)
{
	memset(choice, 0, sizeof *choice);
	if (!st->has_scope) {
		/* the scope the local operand's thread axes name (LANGUAGE 10.4); a layout over laneid alone where
		   one warp runs (a block of one warp, inside if (warp_id == K)) is that warp's, which a warpgroup
		   scope could only refuse */
		View *l = dst->base->kind == TK_LOCAL ? dst : src;
		unsigned cta_axes = 1u << AX_TX | 1u << AX_WARPID | 1u << AX_WGID;
		unsigned wg_axes = 1u << AX_TID_IN_WG | 1u << AX_WID_IN_WG;
		bool local = l->base->kind == TK_LOCAL;
		st->scope = local && (l->base->layout->axes & cta_axes) ? SCOPE_CTA
		            : local && !(l->base->layout->axes & wg_axes) && (ctx->fixed_warp >= 0 || ctx->unit_warps)
		                ? SCOPE_WARP
		                                                                                 : SCOPE_WARPGROUP;
		st->scope_arg = NULL;
		st->scope_loc = st->loc;
		st->scope_auto = true;
		/* in a device function the scope follows its parameters' layouts, as its own code has it: at a
		   call its body sees the caller's tensors, whose layouts may name other axes (tx for tid_in_wg) */
		if (ctx->kernel && ctx->kernel->is_device)
			st->has_scope = true;
	}
	if (dst->rank != src->rank || dst->count != src->count ||
	    memcmp(dst->dims, src->dims, sizeof(int) * (size_t)dst->rank) != 0) {
		char a[96], b[96];
		format_list(a, sizeof a, '(', dst->dims, dst->rank, ')');
		format_list(b, sizeof b, '(', src->dims, src->rank, ')');
		error(st->loc, "copy needs operands of one shape: '%s' is %s, '%s' is %s", dst->name, a, src->name, b);
		return false;
	}
	TensorKind dk = dst->base->kind, sk = src->base->kind;
	View *lv = dk == TK_LOCAL ? dst : src, *tv = dk == TK_TMEM ? dst : src;
	if ((dk == TK_TMEM && sk == TK_LOCAL) || (dk == TK_LOCAL && sk == TK_TMEM)) {
		if (lv->per_thread) {
			error(st->loc, "copy with tensor memory takes a view of the whole local tensor '%s', not a per-thread view",
			      lv->base->name);
			return false;
		}
		if (dst->base->type != src->base->type) {
			error(st->loc, "copy between tmem and local needs one element type: '%s' is %s, '%s' is %s", dst->name,
			      etype_name(dst->base->type), src->name, etype_name(src->base->type));
			const char *tt = etype_name(tv->base->type);
			if (dk == TK_LOCAL)
				note(st->loc, "%s moves bits: load into a local %s tensor of the same shape (with a layout that "
				              "fits an instruction), then copy('%s', that local) converts each element",
				     isa_name(TC_LD, 0), tt, lv->base->name);
			else
				note(st->loc, "%s moves bits: copy '%s' into a local %s tensor of the same shape first (a "
				              "conversion in each thread), then copy that local into '%s'", isa_name(TC_ST, 0),
				     lv->base->name, tt, tv->base->name);
			return false;
		}
		choice->is_tc = true;
		return copy_tmem(st, dst, lv, tv, ctx, out, choice);
	}
	bool dmem = dk == TK_GLOBAL || dk == TK_SHARED, smem = sk == TK_GLOBAL || sk == TK_SHARED;
	if ((dk == TK_LOCAL && smem) || (dmem && sk == TK_LOCAL)) {
		View *l = dk == TK_LOCAL ? dst : src, *m = dk == TK_LOCAL ? src : dst;
		if (l->per_thread) {
			error(st->loc, "copy with memory takes a view of the whole local tensor '%s', not a per-thread view",
			      l->base->name);
			return false;
		}
		/* a written scope: its warps, checked as for an apply */
		ApplyInput in = {.scope = st->scope, .guard = st->scope_arg && st->scope != SCOPE_CTA};
		bool written = st->has_scope && !st->scope_auto;
		if (written && !apply_scope_warps(st, &in, ctx))
			return false;
		return copy_regs(st, dst, l, m, ctx, out, written ? &in : NULL);
	}
	if (dk == TK_LOCAL && sk == TK_LOCAL) {
		if (dst->per_thread || src->per_thread) {
			error(st->loc, "copy between local tensors takes views of the whole tensors, not per-thread views");
			return false;
		}
		ApplyInput in = {.scope = st->scope, .guard = st->scope_arg && st->scope != SCOPE_CTA};
		bool written = st->has_scope && !st->scope_auto;
		if (written && !apply_scope_warps(st, &in, ctx))
			return false;
		return copy_locals(st, dst, src, ctx, out, written ? &in : NULL);
	}
	static const char *const kinds[] = {"a global tensor", "a shared tensor", "a local tensor", "a tmem tensor"};
	error(st->loc, "copy moves between tmem and local views, between local views and global or shared tensors, or between two local views; "
	               "'%s' is %s and '%s' is %s", dst->name, kinds[dk], src->name, kinds[sk]);
	return false;
}
