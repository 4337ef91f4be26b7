/* tma.c: TMA copies between global and shared memory (LANGUAGE 11.4): the box, swizzle and pieces of a copy, checked element by element against the shared tensor's layout, and the tensor maps a kernel receives. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* TCGEN05.md 14.1 and 14.3: a box has 1..256 elements per dimension; its inner bytes are a multiple of
   16, and equal the swizzle span with a swizzle. */
enum { TMA_BOX_MAX = 256 };

/* The source text of a one-line span (for messages naming an expression), else NULL. */
static const char *
loc_source(Loc loc)
{
	size_t len;
	const char *text = source_text(loc.file, &len);
	if (!text || loc.first_line != loc.last_line)
		return NULL;
	const char *p = text, *end = text + len;
	for (int line = 1; line < loc.first_line && p < end; p++)
		if (*p == '\n')
			line++;
	int from = loc.first_column - 1, to = loc.last_column;
	if (from < 0 || to <= from || p + to > end)
		return NULL;
	return pool_printf("%.*s", to - from, p + from);
}

/* Whether a slice's start is >= 0: a u32 value (widened to i64 by the box), else ie_nonneg_with. */
static bool
start_nonneg(const IExpr *e, bool (*var_nonneg)(const Var *))
{
	if (e->kind == IE_CONV && (e->a->type == T_U32 || e->a->type == T_U16 || e->a->type == T_U8))
		return true;
	if (e->kind == IE_CONV && e->a->type == T_I32)
		return ie_nonneg_with(e->a, var_nonneg);
	return ie_nonneg_with(e, var_nonneg);
}

/* The byte offset in shared tensor t's array of the element whose row-major index is flat. */
static uint32_t
shared_byte(const Tensor *t, int64_t flat)
{
	int e = etype_bits(t->type) / 8;
	return (uint32_t)((t->tile ? smem_tensor_element(t->tile, flat) : flat) * e);
}

/* The global coordinates (outermost first, as written) of element i of view gv, relative to its box's start
   (a run-time box) or to the tensor's origin. */
static void
global_coords(const View *gv, int i, int64_t *c)
{
	const Tensor *t = gv->base;
	int64_t f = gv->map[i];
	for (int d = t->rank - 1; d >= 0; d--) {
		int64_t n = gv->box ? gv->box->ext[d] : t->dims[d];
		c[d] = f % n;
		f /= n;
	}
}

/* The tensor map of (t, box, swizzle) in k, made on first use. A device function receives one map per tma
   parameter, the parameter itself (a const CUtensorMap *, LANGUAGE 11.4): NULL where t has a map of another
   box or swizzle already, *other that map. */
static const TmaMap *
map_for(struct KernelIR *k, Tensor *t, const int *box, SmemSwizzle sw, const TmaMap **other)
{
	for (int i = 0; i < k->tma_maps.n; i++) {
		TmaMap *m = LIST_AT(k->tma_maps, TmaMap, i);
		if (m->tensor == t && m->swizzle == sw && memcmp(m->box, box, sizeof m->box) == 0)
			return m;
		if (m->tensor == t && k->is_device) {
			*other = m;
			return NULL;
		}
	}
	TmaMap *m = pool_alloc(sizeof *m);
	m->pointer = k->is_device;
	m->tensor = t;
	m->rank = t->rank;
	memcpy(m->box, box, sizeof m->box);
	m->swizzle = sw;
	int n = 0;
	for (int i = 0; i < k->tma_maps.n; i++)
		n += LIST_AT(k->tma_maps, TmaMap, i)->tensor == t;
	m->cname = m->pointer ? t->cname : pool_printf("%s_tma%d", t->cname ? t->cname : t->name, n);
	m->index = k->tma_maps.n;
	list_push(&k->tma_maps, m);
	return m;
}

/* A box (innermost first) as written in a slice: outermost first, "[128, 64]". */
static const char *
tma_box_text(const int *box, int rank)
{
	const char *text = "[";
	for (int d = rank - 1; d >= 0; d--)
		text = pool_printf("%s%d%s", text, box[d], d ? ", " : "]");
	return text;
}

/* A candidate cut of the copy's box into pieces: w elements of the innermost dimension and h of the next
   (the others whole). */
typedef struct Cut {
	int w, h;
} Cut;

/* Where TMA puts the elements of a cut, against the shared tensor: the first element (in the view's order)
   whose address differs, as *bad with both addresses; true when every element lands where the layout
   says. dst[p] gets each piece's unswizzled destination. */
static bool
cut_places(const View *sv, const View *gv, const int *ext, int rank, SmemSwizzle sw, Cut cut, uint32_t *dst,
           int *bad, uint32_t *want, uint32_t *got)
{
	const Tensor *st = sv->base;
	int e = etype_bits(gv->base->type) / 8;
	int nw = ext[rank - 1] / cut.w, span = sw == SW_NONE ? cut.w * e : smem_swizzle_info(sw)->width;
	int pieces = nw * (rank > 1 ? ext[rank - 2] / cut.h : 1);
	for (int p = 0; p < pieces; p++)
		dst[p] = UINT32_MAX;
	int64_t c[MAX_RANK];
	/* each piece's destination: its box element 0, unswizzled (the swizzle is its own inverse) */
	for (int i = 0; i < sv->count; i++) {
		global_coords(gv, i, c);
		int64_t i0 = c[rank - 1] % cut.w, i1 = rank > 1 ? c[rank - 2] % cut.h : 0;
		bool origin = i0 == 0 && i1 == 0;
		for (int d = 0; d < rank - 2; d++)
			origin = origin && c[d] == 0;
		if (!origin)
			continue;
		int p = (int)(c[rank - 1] / cut.w) + nw * (rank > 1 ? (int)(c[rank - 2] / cut.h) : 0);
		dst[p] = smem_swizzle_addr(sw, shared_byte(st, sv->map[i]));
	}
	for (int i = 0; i < sv->count; i++) {
		global_coords(gv, i, c);
		int64_t i0 = c[rank - 1] % cut.w, i1 = rank > 1 ? c[rank - 2] % cut.h : 0, rest = 0;
		for (int d = 0; d < rank - 2; d++)
			rest = rest * ext[d] + c[d];
		int p = (int)(c[rank - 1] / cut.w) + nw * (rank > 1 ? (int)(c[rank - 2] / cut.h) : 0);
		uint32_t u = dst[p] + (uint32_t)(i0 * e + span * (i1 + (rank > 1 ? cut.h : 1) * rest));
		uint32_t have = shared_byte(st, sv->map[i]), lands = smem_swizzle_addr(sw, u);
		if (dst[p] % 16 != 0 || lands != have) {
			*bad = i;
			*want = have;
			*got = dst[p] % 16 != 0 ? dst[p] : lands;
			return false;
		}
	}
	return true;
}

/* The view element's coordinates as "[r, c]" of the shared view. */
static const char *
view_coords(const View *v, int i)
{
	char buf[128];
	size_t len = 0;
	buf[len++] = '[';
	int rest = i, at[MAX_RANK];
	for (int d = v->rank - 1; d >= 0; d--) {
		at[d] = rest % v->dims[d];
		rest /= v->dims[d];
	}
	for (int d = 0; d < v->rank && len < sizeof buf - 16; d++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%d", d ? ", " : "", at[d]);
	snprintf(buf + len, sizeof buf - len, "]");
	return pool_printf("%s", buf);
}

/* The box's start in each dimension (i32, outermost first, from the slice's start and lo, the least
   coordinate of the view); false after an error: the innermost start not provably a multiple of 16 bytes
   (hardware traps otherwise), or a store's start not provably >= 0 (store_nonneg: which loop counters are). */
static bool
tma_starts(const View *gv, const ViewExpr *gve, const int64_t *lo, bool (*store_nonneg)(const Var *), Loc loc,
           const char *what, IExpr **start)
{
	const Tensor *gt = gv->base;
	int rank = gt->rank, e = etype_bits(gt->type) / 8;
	bool store = store_nonneg != NULL;
	bool nonneg[MAX_RANK];
	for (int d = 0; d < rank; d++) {
		IExpr *raw = gv->box ? gv->box->start[d] : NULL;
		IExpr *s0 = raw ? ie_convert(raw, T_I32) : NULL;
		start[d] = s0 ? (lo[d] ? ie_binary(OP_ADD, s0, ie_int(lo[d], T_I32)) : s0) : ie_int(lo[d], T_I32);
		nonneg[d] = !raw || (store_nonneg && start_nonneg(raw, store_nonneg));
	}
	int64_t s0;
	bool aligned = ie_is_const(start[rank - 1], &s0) ? s0 * e % 16 == 0 : known_factor(start[rank - 1]) * e % 16 == 0;
	if (!aligned) {
		const char *text = NULL;
		Loc at = loc;
		const ViewOp *op0 = gve && gve->ops.n ? LIST_AT(gve->ops, ViewOp, 0) : NULL;
		if (op0 && op0->kind == VOP_SLICE && op0->indices.n == rank) {
			const SliceIndex *si = LIST_AT(op0->indices, SliceIndex, rank - 1);
			const Expr *x = si->is_range ? si->lo : si->index;
			if (x) {
				at = x->loc;
				text = loc_source(x->loc);
			}
		}
		error(at, "%s: the start %s of the innermost dimension of '%s' is not provably a multiple of 16 bytes "
		          "(%d elements of %s); TMA traps on such a start", what, text ? pool_printf("'%s'", text) : "",
		      gt->name, 16 / e, etype_name(gt->type));
		note(at, "write it as a multiple of %d, such as %d * j", 16 / e, 16 / e);
		return false;
	}
	if (store)
		for (int d = 0; d < rank; d++) {
			int64_t v;
			if (ie_is_const(start[d], &v) ? v < 0 : !nonneg[d]) {
				error(loc, "TMA store: the start of dimension %d of '%s' is not provably >= 0; TMA traps on a negative "
				           "store coordinate", d, gt->name);
				return false;
			}
		}
	return true;
}

bool
tma_plan(struct KernelIR *k, const View *sv, const View *gv, const ViewExpr *gve,
         bool (*store_nonneg)(const Var *), Loc loc, TmaPlan *out)
{
	bool store = store_nonneg != NULL;
	Tensor *gt = gv->base, *st = sv->base;
	const char *what = store ? "TMA store" : "TMA load";
	int bits = etype_bits(gt->type), e = bits / 8;
	if (bits < 8) /* fp4 and fp6 are refused in global and shared declarations (minifloat.c) */
		fatal("%s of %s: a TMA copy of elements below a byte", what, etype_name(gt->type));
	if (st->type != gt->type) {
		error(loc, "%s between '%s' (%s) and '%s' (%s): TMA moves bytes, so both have one element type", what,
		      st->name, etype_name(st->type), gt->name, etype_name(gt->type));
		return false;
	}
	if (sv->count != gv->count) {
		error(loc, "%s: the shared view has %d elements and the global slice %d", what, sv->count, gv->count);
		return false;
	}
	int rank = gt->rank;
	SmemSwizzle sw = st->tile ? st->tile->swizzle : SW_NONE;
	if (sw == SW_128B_BASE32B) {
		error(loc, "%s into '%s': TMA has no 128B_base32B swizzle; load it into a 128B tile", what, st->name);
		return false;
	}
	/* the box: the extent the slice covers in each dimension, from its least coordinate */
	int64_t lo[MAX_RANK], hi[MAX_RANK], c[MAX_RANK];
	for (int d = 0; d < rank; d++)
		lo[d] = INT64_MAX, hi[d] = -1;
	for (int i = 0; i < gv->count; i++) {
		global_coords(gv, i, c);
		for (int d = 0; d < rank; d++) {
			lo[d] = c[d] < lo[d] ? c[d] : lo[d];
			hi[d] = c[d] > hi[d] ? c[d] : hi[d];
		}
	}
	int ext[MAX_RANK];
	int64_t cells = 1;
	for (int d = 0; d < rank; d++) {
		ext[d] = (int)(hi[d] - lo[d] + 1);
		cells *= ext[d];
	}
	if (cells != gv->count) /* a slice selects a box, and views of it keep its elements */
		fatal("%s: the slice of '%s' is not a box", what, gt->name);
	/* a view relative to the box's least corner */
	View rel = *gv;
	rel.map = pool_alloc(sizeof(int32_t) * (size_t)gv->count);
	Box *rbox = pool_alloc(sizeof *rbox);
	for (int d = 0; d < rank; d++)
		rbox->ext[d] = ext[d];
	rel.box = rbox;
	for (int i = 0; i < gv->count; i++) {
		global_coords(gv, i, c);
		int64_t f = 0;
		for (int d = 0; d < rank; d++)
			f = f * ext[d] + (c[d] - lo[d]);
		rel.map[i] = (int32_t)f;
	}
	for (int d = 0; d < rank - 2; d++)
		if (ext[d] > TMA_BOX_MAX) {
			error(loc, "%s: dimension %d of the box over '%s' has %d elements; a TMA box has at most %d per "
			           "dimension", what, d, gt->name, ext[d], TMA_BOX_MAX);
			return false;
		}
	/* the cuts to try, fewest pieces first: the innermost extent whole or one swizzle span (16 bytes without
	   swizzle), the next whole (at most 256) or 8 rows (an atom) */
	int inner = ext[rank - 1] * e, span = sw == SW_NONE ? 0 : smem_swizzle_info(sw)->width;
	int widths[2], nwidths = 0, heights[2], nheights = 0;
	if (sw == SW_NONE) {
		if (inner % 16) {
			error(loc, "%s: the box's innermost dimension over '%s' is %d bytes; TMA moves multiples of 16 bytes",
			      what, gt->name, inner);
			return false;
		}
		if (ext[rank - 1] <= TMA_BOX_MAX)
			widths[nwidths++] = ext[rank - 1];
		if (inner > 16)
			widths[nwidths++] = 16 / e;
	} else {
		if (inner % span) {
			error(loc, "%s: the box's innermost dimension over '%s' is %d bytes, not a multiple of the %s swizzle "
			           "span of '%s' (%d bytes)", what, gt->name, inner, smem_swizzle_info(sw)->name, st->name, span);
			return false;
		}
		widths[nwidths++] = span / e;
	}
	int outer = rank > 1 ? ext[rank - 2] : 1;
	if (outer <= TMA_BOX_MAX)
		heights[nheights++] = outer;
	if (rank > 1 && outer > 8 && outer % 8 == 0)
		heights[nheights++] = 8;
	if (!nheights) {
		error(loc, "%s: dimension %d of the box over '%s' has %d elements; a TMA box has at most %d per dimension",
		      what, rank - 2, gt->name, outer, TMA_BOX_MAX);
		return false;
	}
	uint32_t *dst = pool_alloc(sizeof(uint32_t) * (size_t)sv->count);
	int bad = -1;
	uint32_t want = 0, got = 0;
	Cut found = {0, 0};
	for (int h = 0; h < nheights && !found.w; h++)
		for (int w = 0; w < nwidths && !found.w; w++) {
			Cut cut = {widths[w], heights[h]};
			int b;
			uint32_t x, y;
			if (cut_places(sv, &rel, ext, rank, sw, cut, dst, &b, &x, &y))
				found = cut;
			else if (bad < 0)
				bad = b, want = x, got = y;
		}
	if (!found.w) {
		error(loc, "%s: TMA would place element %s of '%s' at shared byte %u, but the layout of '%s' has it at %u",
		      what, view_coords(sv, bad), sv->name ? sv->name : st->name, got, st->name, want);
		const char *with = st->tile ? pool_printf(", with%s", smem_tile_text(st->tile)) : "";
		note(st->loc, "'%s' is declared here%s", st->name, with);
		return false;
	}
	IExpr *start[MAX_RANK];
	if (!tma_starts(gv, gve, lo, store_nonneg, loc, what, start))
		return false;
	/* the map and the pieces */
	int box[TMA_MAX_RANK] = {0};
	for (int d = 0; d < rank; d++)
		box[rank - 1 - d] = ext[d];
	box[0] = found.w;
	if (rank > 1)
		box[1] = found.h;
	const TmaMap *other = NULL, *map = map_for(k, gt, box, sw, &other);
	if (!map) {
		error(loc, "%s needs a tensor map of '%s' with box %s and swizzle %s, but device function '%s' receives "
		           "one map per tma parameter, and an earlier copy's has box %s and swizzle %s; copy boxes of one "
		           "shape (or pass the tensor twice, as two parameters)", what, gt->name, tma_box_text(box, rank),
		      smem_swizzle_info(sw)->name, k->name, tma_box_text(other->box, rank), smem_swizzle_info(other->swizzle)->name);
		return false;
	}
	int nw = ext[rank - 1] / found.w, nh = rank > 1 ? ext[rank - 2] / found.h : 1;
	int piece_bytes = e;
	for (int d = 0; d < rank; d++)
		piece_bytes *= box[d];
	out->n = nw * nh;
	out->pieces = pool_alloc(sizeof(TmaCopy) * (size_t)out->n);
	out->bytes = piece_bytes * out->n;
	IExpr *gdim[TMA_MAX_RANK], *gstride[TMA_MAX_RANK];
	IExpr *stride = ie_int(1, T_I64);
	for (int d = rank - 1; d >= 0; d--) {
		gdim[rank - 1 - d] = ie_convert(gt->rdims[d], T_I64);
		gstride[rank - 1 - d] = gt->rstrides[d] ? gt->rstrides[d] : stride;
		stride = ie_binary(OP_MUL, stride, ie_convert(gt->rdims[d], T_I64));
	}
	for (int p = 0; p < out->n; p++) {
		TmaCopy *tc = &out->pieces[p];
		tc->store = store;
		tc->map = map;
		tc->smem = st;
		tc->dst = dst[p];
		tc->bytes = piece_bytes;
		memcpy(tc->gdim, gdim, sizeof gdim);
		memcpy(tc->gstride, gstride, sizeof gstride);
		for (int d = 0; d < rank; d++) {
			int64_t off = d == rank - 1 ? (int64_t)(p % nw) * found.w : d == rank - 2 ? (int64_t)(p / nw) * found.h : 0;
			tc->coord[rank - 1 - d] = off ? ie_binary(OP_ADD, start[d], ie_int(off, T_I32)) : start[d];
		}
	}
	char boxes[64];
	size_t len = 0;
	for (int d = 0; d < rank; d++)
		len += (size_t)snprintf(boxes + len, sizeof boxes - len, "%s%d", d ? ", " : "{", box[d]);
	snprintf(boxes + len, sizeof boxes - len, "}");
	out->why = pool_printf("%s of '%s' %s '%s': box %s (innermost first), swizzle %s, %d cop%s of %d bytes (%d "
	                       "bytes), map %s", what, st->name, store ? "to" : "from", gt->name, boxes,
	                       smem_swizzle_info(sw)->name, out->n, out->n == 1 ? "y" : "ies", piece_bytes, out->bytes,
	                       map->cname);
	return true;
}

/* `multicast MASK` (LANGUAGE 11.4, TCGEN05.md 14.1): bit r of the 16-bit mask is the CTA of rank r in the
   kernel's cluster, so a kernel without a cluster has none to name, and a constant mask must name at least
   one CTA and none past the cluster's last rank. A run-time mask is checked by the emulator. */
IExpr *
tma_multicast_mask(const KernelIR *k, Expr *mask)
{
	if (!k || !k->has_cluster) {
		error(mask->loc, "a multicast TMA load writes into the CTAs of a thread-block cluster; %s%s%s has none: "
		                 "declare one with cluster = (x, y, z) in the kernel's launch(...)", k ? "kernel '" : "a device function",
		      k ? k->name : "", k ? "'" : "");
		return NULL;
	}
	IExpr *v = sema_expr(mask);
	if (!v)
		return NULL;
	if (v->type == T_F32) {
		error(mask->loc, "the multicast mask is an integer (bit r: the CTA of rank r in the cluster), not a float");
		return NULL;
	}
	int ctas = k->cluster[0] * k->cluster[1] * k->cluster[2];
	int64_t m;
	if (ie_is_const(v, &m) && (m <= 0 || m >> ctas)) {
		if (m <= 0)
			error(mask->loc, "the multicast mask is %lld; it must name at least one CTA of the cluster (bit r: the CTA "
			                 "of rank r, here 0 to %d)", (long long)m, ctas - 1);
		else
			error(mask->loc, "the multicast mask 0x%llx names the CTA of rank %d, outside the cluster of %d CTA%s "
			                 "(ranks 0 to %d)", (unsigned long long)m, 63 - __builtin_clzll((unsigned long long)m), ctas,
			      ctas == 1 ? "" : "s", ctas - 1);
		note(k->cluster_loc, "the cluster (%d, %d, %d) is declared here", k->cluster[0], k->cluster[1], k->cluster[2]);
		return NULL;
	}
	return ie_convert(v, T_U32);
}
