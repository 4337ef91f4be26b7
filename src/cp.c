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

/* The descriptor of the source, derived in this one place (a swizzled tile changes only this function):
   K-major without swizzle, started at row 0's chunk 0, SBO the step from row 0 to row 8 (128, the
   canonical value, for a route of fewer rows), LBO the step from chunk 0 to chunk 1 (0 for one chunk).
   chunk_bit holds the shared bit where each row's chunk starts. False when a field cannot hold the
   value: *field says which (0 start, 1 LBO, 2 SBO) and *value what it would be. */
static bool
source_desc(CpRoute route, const int64_t *chunk_bit, SmemDesc *d, int *field, int64_t *value)
{
	int chunks = cp_chunks(route);
	int64_t start = chunk_bit[0] / 8;
	int64_t sbo = cp_rows(route) > 8 ? chunk_bit[8 * chunks] / 8 - start : 128;
	int64_t lbo = chunks > 1 ? chunk_bit[1] / 8 - start : 0;
	int64_t fields[3] = {start, lbo, sbo};
	for (int i = 0; i < 3; i++)
		if (fields[i] < 0 || fields[i] % 16 || fields[i] >= (1 << 18) || (i == 0 && chunk_bit[0] % 8)) {
			*field = i;
			*value = fields[i];
			return false;
		}
	*d = (SmemDesc){.start = (uint32_t)start, .lbo = (uint32_t)lbo, .sbo = (uint32_t)sbo, .swizzle = SW_NONE};
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
cp_match(const CpForm *f, const CpElem *elems, int n, int elem_bytes, CpPlan *plan, CpMismatch *mm)
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
	if (!source_desc(route, chunk_bit, &d, &field, &value)) {
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
cp_choose(const CpElem *elems, int n, int elem_bytes, CpDecomp decomp, int cta_group, CpForm *form, CpPlan *plan)
{
	/* one instruction moves them all or none does: the form whose footprint is the elements' bytes and
	   whose image and walk fit; no two routes have one image, so at most one fits */
	for (int r = 0; r < CP_ROUTE_COUNT; r++) {
		CpForm f = {.route = (CpRoute)r, .decomp = decomp, .cta_group = cta_group};
		CpMismatch mm;
		if (cp_match(&f, elems, n, elem_bytes, plan, &mm)) {
			*form = f;
			return true;
		}
	}
	return false;
}
