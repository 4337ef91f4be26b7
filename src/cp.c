/* cp.c: a tcgen05.cp checked element by element against its image (isa.c's route table) and the
 * descriptor of its source (smem.c's walk); the first mismatch as data, for the apply that issues it. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* Source bits per TMEM byte: a plain copy moves bytes, b6x16_p32 6-bit values, b4x16_p64 4-bit ones. */
static int
value_bits(CpDecomp d)
{
	return d == CPD_B6X16_P32 ? 6 : d == CPD_B4X16_P64 ? 4 : 8;
}

static bool
fault(CpMismatch *mm, CpFault f, int elem, int64_t have, int64_t want)
{
	mm->fault = f;
	mm->elem = elem;
	mm->have = have;
	mm->want = want;
	return false;
}

/* The descriptor of the source, derived in this one place from where the chunks are: the cp walks it
   K-major (TCGEN05.md 10.2), row r's chunk c at swizzle(start + (r % 8) * line + (r / 8) * SBO + c * step),
   line 16 and step LBO without swizzle, line the swizzle width and step 16 with one (LBO ignored: 0).
   The swizzle is the source tile's (none for a shared tensor without smem_tile); it is an involution
   on the tile's addresses (which start on the swizzle's period), so undoing it on each chunk's address
   gives the walk's unswizzled one. start is row 0's chunk 0, SBO the step from row 0 to row 8 (the
   canonical 8 lines for a route of 8 rows or fewer), LBO the step from chunk 0 to chunk 1 (0 for one
   chunk). chunk_bit holds the shared bit where each row's chunk starts. False when a field cannot hold
   the value: *field says which (0 start, 1 LBO, 2 SBO) and *value what it would be. */
static bool
source_desc(CpRoute route, SmemSwizzle swizzle, const int64_t *chunk_bit, SmemDesc *d, int *field, int64_t *value)
{
	int chunks = cp_chunks(route);
	int64_t line = smem_swizzle_info(swizzle)->width;
	int64_t start = smem_swizzle_addr(swizzle, (uint32_t)(chunk_bit[0] / 8));
	int64_t sbo = cp_rows(route) > 8 ? smem_swizzle_addr(swizzle, (uint32_t)(chunk_bit[8 * chunks] / 8)) - start
	                                 : 8 * line;
	int64_t lbo = chunks > 1 && line == 16 ? chunk_bit[1] / 8 - start : 0;
	int64_t fields[3] = {start, lbo, sbo};
	for (int i = 0; i < 3; i++)
		if (fields[i] < 0 || fields[i] % 16 || fields[i] >= (1 << 18) || (i == 0 && chunk_bit[0] % 8)) {
			*field = i;
			*value = fields[i];
			return false;
		}
	*d = (SmemDesc){.start = (uint32_t)start, .lbo = (uint32_t)lbo, .sbo = (uint32_t)sbo, .swizzle = swizzle};
	return true;
}

/* Which source row and replica land in each lane from the first (-1: none), the inverse of cp_lane. */
static void
route_inverse(CpRoute route, int *row_of, int *replica_of)
{
	for (int l = 0; l < TMEM_LANES; l++)
		row_of[l] = replica_of[l] = -1;
	for (int r = 0; r < cp_rows(route); r++)
		for (int k = 0; k < cp_replicas(route); k++) {
			row_of[cp_lane(route, r, k)] = r;
			replica_of[cp_lane(route, r, k)] = k;
		}
}

/* Each element's source row, chunk and byte in the chunk from its TMEM places (which must all be cells of
   the image, one per replica, none taken twice); elem_at[(row, chunk, byte) and replica] the element there. */
static bool
place_elements(const CpForm *f, const CpElem *elems, int n, int lane0, int byte0, int *where, int *elem_at,
               CpMismatch *mm)
{
	int row_of[TMEM_LANES], replica_of[TMEM_LANES];
	route_inverse(f->route, row_of, replica_of);
	int chunks = cp_chunks(f->route), reps = cp_replicas(f->route);
	for (int i = 0; i < n; i++) {
		if (elems[i].nplaces != reps)
			return fault(mm, CP_REPLICAS, i, elems[i].nplaces, reps);
		for (int p = 0; p < reps; p++) {
			int dl = elems[i].lane[p] - lane0, db = elems[i].byte[p] - byte0;
			mm->replica = p;
			if (dl < 0 || dl >= TMEM_LANES || row_of[dl] < 0 || db < 0 || db >= chunks * CP_CHUNK_BYTES)
				return fault(mm, CP_TMEM_PLACE, i, 0, 0);
			int at = (row_of[dl] * chunks + db / CP_CHUNK_BYTES) * CP_CHUNK_BYTES + db % CP_CHUNK_BYTES;
			mm->row = row_of[dl];
			mm->chunk = db / CP_CHUNK_BYTES;
			mm->byte = db % CP_CHUNK_BYTES;
			if (p > 0 && at != where[i])
				return fault(mm, CP_SPLIT, i, 0, 0);
			where[i] = at;
			int *owner = &elem_at[at * reps + replica_of[dl]];
			if (*owner >= 0) {
				mm->other = *owner;
				return fault(mm, CP_TMEM_TWICE, i, 0, 0);
			}
			*owner = i;
		}
	}
	return true;
}

bool
cp_match(const CpForm *f, const CpElem *elems, int n, int elem_bytes, SmemSwizzle swizzle, CpPlan *plan,
         CpMismatch *mm)
{
	*mm = (CpMismatch){.fault = CP_FITS, .elem = -1, .other = -1, .replica = -1, .row = -1, .chunk = -1, .byte = -1,
	                   .field = -1};
	CpRoute route = f->route;
	int chunks = cp_chunks(route), bytes = cp_rows(route) * chunks * CP_CHUNK_BYTES;
	if (f->decomp != CPD_NONE && elem_bytes != 1)
		return fault(mm, CP_DECOMP_SIZE, -1, elem_bytes, 1);
	if ((int64_t)n * elem_bytes != bytes)
		return fault(mm, CP_SIZE, -1, (int64_t)n * elem_bytes, bytes);
	int lane0 = TMEM_LANES, byte0 = 4 * TMEM_COLS, last = 0;
	for (int i = 0; i < n; i++)
		for (int p = 0; p < elems[i].nplaces && p < CP_MAX_REPLICAS; p++) {
			lane0 = elems[i].lane[p] < lane0 ? elems[i].lane[p] : lane0;
			byte0 = elems[i].byte[p] < byte0 ? elems[i].byte[p] : byte0;
		}
	if (byte0 % CP_CHUNK_BYTES)
		return fault(mm, CP_COLUMN, -1, byte0 / 4, byte0 / 4 / CP_CHUNK_WORDS * CP_CHUNK_WORDS);
	for (int r = 0; r < cp_rows(route); r++)
		for (int k = 0; k < cp_replicas(route); k++)
			last = cp_lane(route, r, k) > last ? cp_lane(route, r, k) : last;
	if (lane0 + last >= TMEM_LANES)
		return fault(mm, CP_LANES, -1, lane0, TMEM_LANES - 1 - last);

	int reps = cp_replicas(route), vb = value_bits(f->decomp);
	int *where = scratch_alloc(sizeof(int) * (size_t)n);
	int *elem_at = scratch_alloc(sizeof(int) * (size_t)bytes * (size_t)reps);
	for (int i = 0; i < bytes * reps; i++)
		elem_at[i] = -1;
	if (!place_elements(f, elems, n, lane0, byte0, where, elem_at, mm))
		return false;
	mm->replica = -1;
	/* every byte of the footprint is an element's first or inside one: the chunks' first bytes are firsts */
	int64_t *chunk_bit = scratch_alloc(sizeof(int64_t) * (size_t)(bytes / CP_CHUNK_BYTES));
	for (int c = 0; c < bytes / CP_CHUNK_BYTES; c++)
		chunk_bit[c] = elems[elem_at[c * CP_CHUNK_BYTES * reps]].smem_bit;
	SmemDesc d;
	int field;
	int64_t value;
	if (!source_desc(route, swizzle, chunk_bit, &d, &field, &value)) {
		mm->field = field;
		return fault(mm, CP_DESC, -1, value, -1);
	}
	for (int i = 0; i < n; i++) {
		int row = where[i] / CP_CHUNK_BYTES / chunks, chunk = where[i] / CP_CHUNK_BYTES % chunks;
		int byte = where[i] % CP_CHUNK_BYTES;
		int64_t want = (int64_t)smem_desc_addr(&d, SMEM_K, 1, row, CP_CHUNK_BYTES * chunk) * 8 + (int64_t)byte * vb;
		if (want != elems[i].smem_bit) {
			mm->row = row;
			mm->chunk = chunk;
			mm->byte = byte;
			return fault(mm, CP_SHARED, i, elems[i].smem_bit, want);
		}
	}
	*plan = (CpPlan){.lane0 = lane0, .col0 = byte0 / 4, .desc = d};
	return true;
}

bool
cp_choose(const CpElem *elems, int n, int elem_bytes, SmemSwizzle swizzle, CpDecomp decomp, int cta_group,
          CpForm *form, CpPlan *plan)
{
	/* one instruction moves them all or none does: the form whose footprint is the elements' bytes and
	   whose image and walk fit; no two routes have one image, so at most one fits */
	for (int r = 0; r < CP_ROUTE_COUNT; r++) {
		CpForm f = {.route = (CpRoute)r, .decomp = decomp, .cta_group = cta_group};
		CpMismatch mm;
		if (cp_match(&f, elems, n, elem_bytes, swizzle, plan, &mm)) {
			*form = f;
			return true;
		}
	}
	return false;
}

/* The swizzle of a cp's source: its tile's, none for a shared tensor in v0's row-major order. */
static SmemSwizzle
source_swizzle(const View *smem)
{
	return smem->base->tile ? smem->base->tile->swizzle : SW_NONE;
}

/* The coordinates of a view's flat element i, as "[r, c]". */
static const char *
view_coord(const View *v, int i)
{
	int c[MAX_RANK];
	for (int d = v->rank - 1; d >= 0; d--) {
		c[d] = i % v->dims[d];
		i /= v->dims[d];
	}
	char buf[128];
	size_t len = 0;
	buf[len++] = '[';
	for (int d = 0; d < v->rank && len < sizeof buf - 16; d++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, d ? ", %d" : "%d", c[d]);
	snprintf(buf + len, sizeof buf - len, "]");
	return pool_printf("%s", buf);
}

/* The error of a cp whose elements do not fit its form (cp_match's first mismatch), in the apply's words. */
static void
cp_report(const CpForm *f, const View *tmem, const View *smem, const CpElem *elems, const CpMismatch *mm, Loc loc,
          int first)
{
	const char *op = cp_form_spelling(f);
	const char *e = mm->elem >= 0 ? view_coord(tmem, first + mm->elem) : "";
	static const char *const fields[] = {"start address", "leading byte offset (LBO)", "stride byte offset (SBO)"};
	switch (mm->fault) {
	case CP_FITS:
		return;
	case CP_SIZE:
		error(loc, "%s moves %lld bytes (%d rows of %d bytes), but the views hold %lld", op, (long long)mm->want,
		      cp_rows(f->route), cp_chunks(f->route) * CP_CHUNK_BYTES, (long long)mm->have);
		return;
	case CP_DECOMP_SIZE:
	case CP_TMEM_TWICE:
		/* the apply refuses the decompressing forms first, and a tmem layout that is not one-to-one at its
		   declaration */
		fatal("%s: cp_match fault %d behind the apply's own checks", op, (int)mm->fault);
	case CP_COLUMN:
		error(loc, "%s starts at TMEM column %lld; a cp's first column is a multiple of 4 (such as %lld)", op,
		      (long long)mm->have, (long long)mm->want);
		return;
	case CP_LANES:
		error(loc, "%s from lane %d of '%s' passes lane 127", op, (int)mm->have + tmem->base->lane_offset,
		      tmem->base->name);
		return;
	case CP_REPLICAS:
		error(loc, "%s writes each source row to %lld lane%s, but '%s' element %s has %lld TMEM place%s", op,
		      (long long)mm->want, mm->want == 1 ? "" : "s", tmem->name, e, (long long)mm->have,
		      mm->have == 1 ? "" : "s");
		return;
	case CP_TMEM_PLACE:
		error(loc, "'%s' element %s is in TMEM (lane %d, byte column %d), which %s does not write from its first "
		           "cell", tmem->name, e, elems[mm->elem].lane[mm->replica < 0 ? 0 : mm->replica],
		      elems[mm->elem].byte[mm->replica < 0 ? 0 : mm->replica], op);
		note(loc, "tilec --print-image %s prints the image: source row, 16-byte chunk -> lanes, columns", op);
		return;
	case CP_SPLIT:
		error(loc, "the TMEM places of '%s' element %s are cells of different source rows or chunks of %s; a "
		           "multicast writes one source byte to every replica", tmem->name, e, op);
		return;
	case CP_DESC:
		error(loc, "no shared-memory descriptor reads '%s' for %s: its %s would be %lld bytes, not a multiple of 16 "
		           "below 256 KiB", smem->name, op, fields[mm->field < 0 ? 0 : mm->field], (long long)mm->have);
		return;
	case CP_SHARED:
		error(loc, "%s puts source row %d, chunk %d, byte %d in '%s' element %s, which the descriptor reads at "
		           "shared byte %lld of '%s', but '%s' element %s is at byte %lld", op, mm->row, mm->chunk, mm->byte,
		      tmem->name, e, (long long)mm->want / 8, smem->base->name, smem->name, view_coord(smem, first + mm->elem),
		      (long long)mm->have / 8);
		if (source_swizzle(smem) == SW_NONE)
			note(loc, "the rows of a cp's source are 16-byte chunks: row r's chunk c at start + (r / 8) * SBO + (r %% "
			          "8) * 16 + c * LBO (K-major, no swizzle)");
		else
			note(loc, "the rows of a cp's source are 16-byte chunks: row r's chunk c at swizzle(start + (r / 8) * "
			          "SBO + (r %% 8) * %d + c * 16) (K-major, %s swizzle of '%s'; a row reads at most %d bytes)",
			     smem_swizzle_info(source_swizzle(smem))->width, smem_swizzle_info(source_swizzle(smem))->name,
			     smem->base->name, smem_swizzle_info(source_swizzle(smem))->width);
		return;
	}
}

/* Each element of the views' TMEM places and shared bit, in the views' order. */
static CpElem *
cp_elements(const View *tmem, const View *smem)
{
	const Tensor *t = tmem->base, *s = smem->base;
	int eb = etype_bits(t->type) / 8, n = tmem->count;
	CpElem *elems = scratch_alloc(sizeof(CpElem) * (size_t)n);
	const Layout *l = t->layout;
	for (int i = 0; i < n; i++) {
		int e = tmem->map[i];
		/* a shared tile's element lies where its layout puts it (swizzle included): a descriptor the
		   walk below derives from row-major positions would read other bytes */
		int64_t at = s->tile ? smem_tensor_element(s->tile, smem->map[i]) : smem->map[i];
		elems[i].smem_bit = (uint32_t)at * (uint32_t)eb * 8;
		elems[i].nplaces = l->nrep < CP_MAX_REPLICAS ? l->nrep : CP_MAX_REPLICAS;
		for (int r = 0; r < elems[i].nplaces; r++) {
			const int32_t *place = LAYOUT_PLACE(l, e, r);
			elems[i].lane[r] = place[AX_TLANE];
			elems[i].byte[r] = place[AX_TCOL] * eb;
		}
		if (l->nrep > CP_MAX_REPLICAS)
			elems[i].nplaces = l->nrep;
	}
	return elems;
}

static bool cp_footprint_check(const CpForm *f, const View *tmem, const CpPlan *plan, Loc loc);

bool
cp_apply_check(const CpForm *f, const View *tmem, const View *smem, Loc loc, CpPlan *plan)
{
	const Tensor *t = tmem->base, *s = smem->base;
	const char *op = cp_form_spelling(f);
	if (t->kind != TK_TMEM || s->kind != TK_SHARED || smem->box) {
		error(loc, "%s copies shared memory to TMEM: apply %s(tmem_view, shared_view);", op, op);
		return false;
	}
	if (f->decomp != CPD_NONE) {
		error(loc, "%s: the decompressing forms are not issued by apply yet; a shared tensor holds one minifloat "
		           "value a byte, and the packed fp4 / fp6 source is not expressible", op);
		return false;
	}
	if (etype_bits(t->type) != etype_bits(s->type)) {
		error(loc, "%s copies bytes: '%s' (%s) and '%s' (%s) have elements of different sizes", op, tmem->name,
		      etype_name(t->type), smem->name, etype_name(s->type));
		return false;
	}
	if (tmem->count != smem->count) {
		error(loc, "%s: '%s' has %d elements and '%s' %d; the apply moves each element of one to the other", op,
		      tmem->name, tmem->count, smem->name, smem->count);
		return false;
	}
	int eb = etype_bits(t->type) / 8, n = tmem->count;
	CpElem *elems = cp_elements(tmem, smem);
	CpMismatch mm;
	if (!cp_match(f, elems, n, eb, source_swizzle(smem), plan, &mm)) {
		cp_report(f, tmem, smem, elems, &mm, loc, 0);
		return false;
	}
	return cp_footprint_check(f, tmem, plan, loc);
}

/* The footprint of a fitting cp inside lanes 0..127 and the allocation of its tmem tensor. */
static bool
cp_footprint_check(const CpForm *f, const View *tmem, const CpPlan *plan, Loc loc)
{
	const Tensor *t = tmem->base;
	const char *op = cp_form_spelling(f);
	if (t->lane_offset + plan->lane0 + cp_lane(f->route, cp_rows(f->route) - 1, cp_replicas(f->route) - 1) >=
	    TMEM_LANES) {
		error(loc, "%s from lane %d of '%s' passes lane 127", op, t->lane_offset + plan->lane0, t->name);
		return false;
	}
	if (t->alloc && t->col_offset + plan->col0 + cp_tmem_cols(f->route) > t->alloc->ncols) {
		error(loc, "%s writes TMEM columns %d..%d of the allocation of %d columns that '%s' lies in", op,
		      t->col_offset + plan->col0, t->col_offset + plan->col0 + cp_tmem_cols(f->route) - 1, t->alloc->ncols,
		      t->name);
		note(t->alloc->loc, "allocated here");
		return false;
	}
	return true;
}

bool
cp_copy_choose(const View *tmem, const View *smem, Loc loc, CpForm *form, CpPlan **plans, int *count)
{
	const Tensor *t = tmem->base, *s = smem->base;
	if (etype_bits(t->type) != etype_bits(s->type) || tmem->count != smem->count) {
		error(loc, "copy(%s, %s) is a %s, which moves bytes: the views hold %d %s and %d %s elements; they need "
		           "as many elements of one size", tmem->name, smem->name, isa_name(TC_CP, 0), tmem->count,
		      etype_name(t->type), smem->count, etype_name(s->type));
		return false;
	}
	int eb = etype_bits(t->type) / 8, n = tmem->count;
	CpElem *elems = cp_elements(tmem, smem);
	/* the fewest instructions: the largest form whose cps, each over the next run of elements in the views'
	   order, all fit; otherwise the error of the form that fitted the longest run of cps */
	static const CpRoute by_size[] = {CP_128X256B, CP_128X128B, CP_64X128B_02_13, CP_64X128B_01_23,
	                                  CP_32X128B_WARPX4, CP_4X256B};
	int best_fits = -1, best_route = -1, best_cp = 0;
	CpMismatch best_mm = {0};
	for (size_t r = 0; r < sizeof by_size / sizeof by_size[0]; r++) {
		CpForm f = {.route = by_size[r], .decomp = CPD_NONE, .cta_group = 1};
		int bytes = cp_rows(f.route) * cp_chunks(f.route) * CP_CHUNK_BYTES, per = bytes / eb;
		if ((int64_t)n * eb % bytes)
			continue;
		int cps = n / per, k;
		CpPlan *p = pool_alloc(sizeof(CpPlan) * (size_t)cps);
		CpMismatch mm;
		for (k = 0; k < cps; k++)
			if (!cp_match(&f, elems + (size_t)k * (size_t)per, per, eb, source_swizzle(smem), &p[k], &mm))
				break;
		if (k == cps) {
			for (k = 0; k < cps; k++)
				if (!cp_footprint_check(&f, tmem, &p[k], loc))
					return false;
			*form = f;
			*plans = p;
			*count = cps;
			return true;
		}
		if (k > best_fits) {
			best_fits = k;
			best_route = (int)r;
			best_cp = k;
			best_mm = mm;
		}
	}
	if (best_route < 0) {
		error(loc, "copy(%s, %s) moves %lld bytes; a %s moves 4096, 2048, 1024, 512 or 128 bytes, and copy issues "
		           "cps of one form", tmem->name, smem->name, (long long)n * eb, isa_name(TC_CP, 0));
		return false;
	}
	CpForm f = {.route = by_size[best_route], .decomp = CPD_NONE, .cta_group = 1};
	int per = cp_rows(f.route) * cp_chunks(f.route) * CP_CHUNK_BYTES / eb;
	cp_report(&f, tmem, smem, elems + (size_t)best_cp * (size_t)per, &best_mm, loc, best_cp * per);
	if (n == per)
		note(loc, "no %s form fits copy(%s, %s); the nearest is %s, one cp of all the elements, which fails as "
		          "said", isa_name(TC_CP, 0), tmem->name, smem->name, cp_form_spelling(&f));
	else
		note(loc, "no %s form fits copy(%s, %s); the nearest is %s, as %d cps of %d elements each in the views' "
		          "order, and its cp %d (from '%s' element %s) fails as said", isa_name(TC_CP, 0), tmem->name,
		     smem->name, cp_form_spelling(&f), n / per, per, best_cp, tmem->name, view_coord(tmem, best_cp * per));
	return false;
}
