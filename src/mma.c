/* mma.c: mma(D, A, B) checked (kind from the types, shape, D's datapath layout, every K step's shared descriptors element by element) and its instruction descriptor encoded. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* ---------------------------------------------------------------- the instruction descriptor

   TCGEN05.md 9: [0,2) sparsity selector, 2 sparsity, 3 saturate (all 0: dense, no saturation); [4,6) D
   format; [7,10) A format; [10,13) B format; 13 negate A; 14 negate B; 15 transpose A; 16 transpose B
   (0 = K-major); [17,23) N >> 3; 23 reserved; [24,29) M >> 4; 29 reserved; [30,32) max shift. */
uint32_t
mma_idesc_encode(const MmaIdesc *d)
{
	return (uint32_t)(d->d_format & 3) << 4 | (uint32_t)(d->a_format & 7) << 7 | (uint32_t)(d->b_format & 7) << 10 |
	       (uint32_t)d->negate_a << 13 | (uint32_t)d->negate_b << 14 | (uint32_t)d->transpose_a << 15 |
	       (uint32_t)d->transpose_b << 16 | (uint32_t)((d->n >> 3) & 63) << 17 | (uint32_t)((d->m >> 4) & 31) << 24 |
	       (uint32_t)(d->max_shift & 3) << 30;
}

MmaIdesc
mma_idesc_decode(uint32_t bits)
{
	return (MmaIdesc){.d_format = (int)(bits >> 4 & 3), .a_format = (int)(bits >> 7 & 7),
	                  .b_format = (int)(bits >> 10 & 7), .negate_a = bits >> 13 & 1, .negate_b = bits >> 14 & 1,
	                  .transpose_a = bits >> 15 & 1, .transpose_b = bits >> 16 & 1, .n = (int)(bits >> 17 & 63) << 3,
	                  .m = (int)(bits >> 24 & 31) << 4, .max_shift = (int)(bits >> 30 & 3)};
}

const char *
mma_idesc_text(uint32_t bits)
{
	MmaIdesc d = mma_idesc_decode(bits);
	return pool_printf("0x%08x: D format %d [4,6), A format %d [7,10), B format %d [10,13), negate A %d, negate B %d, "
	                   "transpose A %d (bit 15), transpose B %d (bit 16), N %d (N >> 3 = %d in [17,23)), M %d (M >> 4 = "
	                   "%d in [24,29)), max shift %d",
	                   bits, d.d_format, d.a_format, d.b_format, d.negate_a, d.negate_b, d.transpose_a, d.transpose_b, d.n,
	                   d.n >> 3, d.m, d.m >> 4, d.max_shift);
}

/* The shapes of cta_group::1 (TCGEN05.md 9; the PTX ISA's shape table for the dense kinds): M 64 or 128;
   N a multiple of 8 from 8 to 256 with M = 64, a multiple of 16 from 16 to 256 with M = 128. */
bool
mma_shape_check(int m, int n, Loc loc)
{
	if (m != 64 && m != 128) {
		error(loc, "mma: M (the rows of D and A) is %d; a cta_group::1 mma has M = 64 or 128", m);
		return false;
	}
	int step = m == 128 ? 16 : 8;
	if (n < step || n > 256 || n % step) {
		error(loc, "mma: N (the columns of D, the rows of B) is %d; with M = %d, N is a multiple of %d from %d to 256",
		      n, m, step, step);
		return false;
	}
	return true;
}

/* The shapes of cta_group::2, the CTA pair (CUTLASS's SM100_MMA_*_2x1SM atoms; TCGEN05.md 6): M 128 (layout "B",
   64 rows of D in each CTA) or 256 (layout "A", 128 rows in each), N a multiple of 16 from 16 to 256, each CTA
   holding N / 2 rows of B. */
static bool
mma_pair_shape_check(int m, int n, Loc loc)
{
	if (m != 128 && m != 256) {
		error(loc, "mma: M (the rows of D and A over the CTA pair) is %d (%d in each CTA); a cta_group::2 mma has M = "
		           "256 (128 rows in each CTA, D in layout \"A\") or 128 (64 rows in each CTA, layout \"B\")", m, m / 2);
		return false;
	}
	if (n < 16 || n > 256 || n % 16) {
		error(loc, "mma: N (the columns of D, the rows of B over the CTA pair) is %d (B holds %d rows in each CTA); a "
		           "cta_group::2 mma has N a multiple of 16 from 16 to 256, N / 2 rows of B in each CTA", n, n / 2);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- the operands */

static const char *
coord2(int r, int c)
{
	return pool_printf("[%d, %d]", r, c);
}

/* ", byte 2" / ", high half": the part of a 32-bit cell an element of 1 / per of it takes ("" for a whole cell). */
static const char *
part_text(int part, int per)
{
	if (per == 1)
		return "";
	if (per == 2)
		return part ? " (high half)" : " (low half)";
	return pool_printf(" (byte %d)", part);
}

/* D [M, N]: one TMEM place per element, row i in the lane the datapath layout of M gives (TCGEN05.md 6: M =
   128 layout "D", lane i; M = 64 layout "F", lane 32 * (i / 16) + i % 16 from a first lane 0 or 16), column
   j in the first column + j; inside the allocation. */
static bool
d_check(const View *d, int m, int n, Loc loc, int *lane0, int *col0)
{
	const Tensor *t = d->base;
	const Layout *l = t->layout;
	if (l->nrep != 1) {
		error(loc, "mma: D '%s' has %d TMEM places per element; an mma writes each element of D to one cell", d->name,
		      l->nrep);
		return false;
	}
	const int32_t *p0 = LAYOUT_PLACE(l, d->map[0], 0);
	*lane0 = p0[AX_TLANE];
	*col0 = p0[AX_TCOL];
	int abs_lane = t->lane_offset + *lane0;
	bool lane_ok = m == 128 ? abs_lane == 0 : abs_lane == 0 || abs_lane == 16;
	if (!lane_ok) {
		error(loc, "mma: D '%s' starts at TMEM lane %d; with M = %d it starts at lane %s (datapath layout \"%s\")",
		      d->name, abs_lane, m, m == 128 ? "0" : "0 or 16", m == 128 ? "D" : "F");
		return false;
	}
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			const int32_t *p = LAYOUT_PLACE(l, d->map[i * n + j], 0);
			int lane = *lane0 + (m == 128 ? i : 32 * (i / 16) + i % 16), col = *col0 + j;
			if (p[AX_TLANE] != lane || p[AX_TCOL] != col) {
				int per = 32 / etype_bits(t->type);
				error(loc, "mma: the M = %d mma leaves D%s in TMEM lane %d, column %d%s (datapath layout \"%s\"), "
				           "but '%s' has it in lane %d, column %d%s",
				      m, coord2(i, j), t->lane_offset + lane, col / per, part_text(col % per, per),
				      m == 128 ? "D" : "F", d->name, t->lane_offset + p[AX_TLANE], p[AX_TCOL] / per,
				      part_text(p[AX_TCOL] % per, per));
				note(loc, "declare D with a layout that puts row i in lane %s and column j in column j",
				     m == 128 ? "i" : "32 * (i / 16) + i % 16");
				return false;
			}
		}
	/* an f16 D: two elements per 32-bit cell, D[i, 2c] in the low half (columns count elements, layout.c) */
	int per = 32 / etype_bits(t->type);
	if (*col0 % per) {
		error(loc, "mma: D '%s' starts in the high half of TMEM column %d; an f16 D starts on a whole 32-bit column",
		      d->name, t->col_offset + *col0 / per);
		return false;
	}
	*col0 /= per;
	if (t->alloc && t->col_offset + *col0 + n / per > t->alloc->ncols) {
		error(loc, "mma: D '%s' needs TMEM columns %d..%d of the allocation of %d columns", d->name,
		      t->col_offset + *col0, t->col_offset + *col0 + n / per - 1, t->alloc->ncols);
		note(t->alloc->loc, "allocated here");
		return false;
	}
	return true;
}

/* D's element type: f32 for every kind, f16 also for kind::f16 and kind::f8f6f4 (TCGEN05.md 9: the D format
   field, F16 0, F32 1; kind::tf32 accumulates in f32 only). */
static bool
d_type_check(const View *d, MmaKind kind, Loc loc)
{
	EType dt = d->base->type;
	if (dt == T_F32 || (dt == T_F16 && kind != MMA_TF32))
		return true;
	error(loc, "mma: D '%s' holds %s; a %s mma accumulates in f32%s", d->name, etype_name(dt), mma_spelling(1, kind),
	      kind == MMA_TF32 ? "" : " or f16");
	return false;
}

/* A from TMEM [M, K] (the ts form, TCGEN05.md 15: kind::f16, tf32, f8f6f4): the tensor core reads row i from
   lane i and the K elements of a row packed in consecutive 32-bit columns, as many per column as fit
   (two 16-bit, four 8-bit; columns of a tmem tensor count elements, so element k sits in column c0 + k
   of the tensor, c0 on a whole 32-bit column). Each K step reads the next 32 bytes of every row. M = 128
   only: the lanes of an M = 64 A in TMEM are not in TCGEN05.md. */
static bool
a_tmem_check(const View *a, int m, int kfull, Loc loc)
{
	const Tensor *t = a->base;
	const Layout *l = t->layout;
	if (m != 128) {
		error(loc, "mma: A '%s' is in TMEM with M = %d; tilec reads A from TMEM for M = 128 (the lanes of an M = 64 A "
		           "in TMEM are not documented)", a->name, m);
		return false;
	}
	if (l->nrep != 1) {
		error(loc, "mma: A '%s' has %d TMEM places per element; the mma reads each element of A from one place",
		      a->name, l->nrep);
		return false;
	}
	const int32_t *p0 = LAYOUT_PLACE(l, a->map[0], 0);
	int lane0 = p0[AX_TLANE], col0 = p0[AX_TCOL], per = 32 / etype_bits(t->type);
	if (t->lane_offset + lane0 != 0 || col0 % per) {
		error(loc, "mma: A '%s' starts at TMEM lane %d, %s column %d; an A in TMEM starts at lane 0 on a whole "
		           "32-bit column", a->name, t->lane_offset + lane0, col0 % per ? "inside" : "at",
		      t->col_offset + col0 / per);
		return false;
	}
	for (int i = 0; i < m; i++)
		for (int k = 0; k < kfull; k++) {
			const int32_t *p = LAYOUT_PLACE(l, a->map[i * kfull + k], 0);
			int col = col0 + k;
			if (p[AX_TLANE] != lane0 + i || p[AX_TCOL] != col) {
				error(loc, "mma: the mma reads A%s from TMEM lane %d, column %d%s, but '%s' has it in lane %d, column "
				           "%d%s", coord2(i, k), t->lane_offset + lane0 + i, t->col_offset + col / per,
				      part_text(col % per, per), a->name, t->lane_offset + p[AX_TLANE], t->col_offset + p[AX_TCOL] / per,
				      part_text(p[AX_TCOL] % per, per));
				note(loc, "declare A with row i in lane i and its K elements packed along the columns (layout "
				          "S[(128, K) : (1@TLane, 1@TCol)])");
				return false;
			}
		}
	if (t->alloc && t->col_offset + col0 / per + kfull / per > t->alloc->ncols) {
		error(loc, "mma: A '%s' needs TMEM columns %d..%d of the allocation of %d columns", a->name,
		      t->col_offset + col0 / per, t->col_offset + col0 / per + kfull / per - 1, t->alloc->ncols);
		note(t->alloc->loc, "allocated here");
		return false;
	}
	return true;
}

/* D of a cta_group::2 mma, this CTA's rows [rows, N]: TCGEN05.md 6 layout "A" (rows 128: lane i, column j) or
   "B" (rows 64: lane i + 64 * (j / (N / 2)), column j % (N / 2)), from lane 0 and the first column; inside the
   allocation. The even CTA's mma writes the same cells in both CTAs' TMEM. */
static bool
pair_d_check(const View *d, int rows, int n, Loc loc, int *lane0, int *col0)
{
	const Tensor *t = d->base;
	const Layout *l = t->layout;
	const char *letter = rows == 128 ? "A" : "B";
	if (l->nrep != 1) {
		error(loc, "mma: D '%s' has %d TMEM places per element; an mma writes each element of D to one cell", d->name,
		      l->nrep);
		return false;
	}
	const int32_t *p0 = LAYOUT_PLACE(l, d->map[0], 0);
	*lane0 = p0[AX_TLANE];
	*col0 = p0[AX_TCOL];
	if (t->lane_offset + *lane0 != 0) {
		error(loc, "mma: D '%s' starts at TMEM lane %d; a cta_group::2 mma with M = %d starts at lane 0 (datapath "
		           "layout \"%s\")", d->name, t->lane_offset + *lane0, 2 * rows, letter);
		return false;
	}
	int half = rows == 128 ? n : n / 2;
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < n; j++) {
			const int32_t *p = LAYOUT_PLACE(l, d->map[i * n + j], 0);
			int lane = i + rows * (j / half), col = *col0 + j % half;
			if (p[AX_TLANE] != lane || p[AX_TCOL] != col) {
				error(loc, "mma: the cta_group::2 mma with M = %d leaves this CTA's D%s in TMEM lane %d, column %d "
				           "(datapath layout \"%s\"), but '%s' has it in lane %d, column %d",
				      2 * rows, coord2(i, j), t->lane_offset + lane, col, letter, d->name,
				      t->lane_offset + p[AX_TLANE], p[AX_TCOL]);
				note(loc, "declare D with tmem_datapath_layout(\"%s\", %d, %d)", letter, rows, n);
				return false;
			}
		}
	if (t->alloc && t->col_offset + *col0 + half > t->alloc->ncols) {
		error(loc, "mma: D '%s' needs TMEM columns %d..%d of the allocation of %d columns", d->name,
		      t->col_offset + *col0, t->col_offset + *col0 + half - 1, t->alloc->ncols);
		note(t->alloc->loc, "allocated here");
		return false;
	}
	return true;
}

bool
mma_a_tmem_origin(const View *a, int *lane0, int *col0)
{
	if (a->base->kind != TK_TMEM)
		return false;
	const int32_t *p0 = LAYOUT_PLACE(a->base->layout, a->map[0], 0);
	*lane0 = p0[AX_TLANE];
	*col0 = p0[AX_TCOL] * etype_bits(a->base->type) / 32;
	return true;
}

/* The descriptor of K step `step` of operand v ([rows, K] of a shared tile), derived from its first element
   and checked against every element of the step (smem.c's walk): false after an error naming the first
   element the walk reads elsewhere. */
static bool
step_desc(const View *v, const char *role, int rows, int kfull, int ik, int step, Loc loc, SmemDesc *out)
{
	const Tensor *s = v->base;
	const SmemTile *tile = s->tile;
	int per_tile = tile->rows * tile->cols, eb = tile->elem_bytes;
	int f0 = v->map[step * ik];
	int stack = f0 / per_tile, in = f0 % per_tile;
	SmemDesc d = smem_tile_desc(tile, in / tile->cols, in % tile->cols);
	d.start = d.start - tile->start + (uint32_t)stack * smem_tile_bytes(tile);
	SmemTouch *touch = scratch_alloc(sizeof *touch * (size_t)rows * (size_t)ik);
	for (int r = 0; r < rows; r++)
		for (int k = 0; k < ik; k++) {
			int at = r * kfull + step * ik + k;
			touch[r * ik + k] = (SmemTouch){.mn = r, .k = k,
			                                .addr = (uint32_t)(smem_tensor_element(tile, v->map[at]) * eb)};
		}
	SmemMismatch mm;
	if (!smem_desc_check(&d, tile->major, eb, touch, rows * ik, &mm)) {
		const SmemTouch *t = &touch[mm.index < 0 ? 0 : mm.index];
		int kk = step * ik + t->k;
		switch (mm.fault) {
		case SMEM_DESC_ADDRESS:
			error(loc, "mma: %s '%s' element %s is at byte %u of '%s' in its %s-major %s layout, but the descriptor of "
			           "K step %d (start %u, LBO %u, SBO %u) reads byte %u for it",
			      role, v->name, coord2(t->mn, kk), mm.tile_addr, s->name, smem_major_name(tile->major),
			      smem_swizzle_info(tile->swizzle)->name, step, d.start, d.lbo, d.sbo, mm.desc_addr);
			note(loc, "an mma reads %d bytes of K per row and step; its operand is a rectangle of a shared tile, "
			          "each step starting on a 16-byte chunk", ik * eb);
			return false;
		default:
			error(loc, "mma: no shared-memory descriptor reads %s '%s' for K step %d: %s", role, v->name, step,
			      mm.fault == SMEM_DESC_SAME_BYTE ? "two of its elements lie on one byte" : "its fields do not fit");
			return false;
		}
	}
	uint64_t bits;
	if (!smem_desc_encode(&d, &bits)) {
		error(loc, "mma: the descriptor of %s '%s' for K step %d does not encode (start %u, LBO %u, SBO %u: multiples "
		           "of 16 below 256 KiB)", role, v->name, step, d.start, d.lbo, d.sbo);
		return false;
	}
	*out = d;
	return true;
}

bool
mma_check(const View *d, const View *a, const View *b, Loc loc, MmaInstr *in, MmaStep **steps, int *nsteps,
          int *lane0, int *col0, int cta_group)
{
	if (d->base->kind != TK_TMEM || d->rank != 2) {
		error(loc, "mma: D '%s' is a %s; D is a two-dimensional tmem view [M, N]", d->name,
		      d->base->kind == TK_TMEM ? "tmem view of another rank" : "view of a tensor outside TMEM");
		return false;
	}
	const View *ops[2] = {a, b};
	static const char *const roles[2] = {"A", "B"}, *const shapes[2] = {"[M, K]", "[N, K]"};
	bool a_tmem = a->base->kind == TK_TMEM;
	for (int i = 0; i < 2; i++) {
		const Tensor *s = ops[i]->base;
		if (s->kind == TK_TMEM && i == 0)
			continue; /* A from TMEM: a_tmem_check */
		if (s->kind == TK_TMEM) {
			error(loc, "mma: B '%s' is in TMEM; B is read from shared memory (only A may come from TMEM)",
			      ops[i]->name);
			return false;
		}
		if (s->kind != TK_SHARED || !s->tile || ops[i]->box || ops[i]->rank != 2) {
			error(loc, "mma: %s '%s' is not a two-dimensional view %s of a shared tensor declared with layout "
			           "smem_tile(...)", roles[i], ops[i]->name, shapes[i]);
			note(loc, "an mma reads its operands through shared-memory descriptors: declare them with layout "
			          "smem_tile(\"K\", \"128B\") or another canonical layout (docs/shared-tiles.md)");
			return false;
		}
	}
	EType at = a->base->type, bt = b->base->type, dt = d->base->type;
	MmaKind kind;
	if (!mma_kind_of(at, &kind)) {
		error(loc, "mma: A '%s' holds %s; an mma multiplies f16 or bf16 (kind::f16), f32 (kind::tf32) or e4m3, e5m2, "
		           "e2m3, e3m2, e2m1 (kind::f8f6f4)", a->name, etype_name(at));
		return false;
	}
	const MmaKindInfo *ki = mma_kind_info(kind);
	bool same_needed = kind != MMA_F8F6F4;
	if (mma_type_code(kind, bt) < 0 || (same_needed && bt != at)) {
		error(loc, "mma: A '%s' holds %s and B '%s' %s; with A of %s, B holds %s", a->name, etype_name(at), b->name,
		      etype_name(bt), etype_name(at), same_needed ? etype_name(at) : ki->types_text);
		return false;
	}
	if (!d_type_check(d, kind, loc))
		return false;
	/* cta_group::2: each CTA's program names its own rows of A and D and its half of B's rows */
	int rows = a->dims[0], kfull = a->dims[1], m = rows * cta_group, n = b->dims[0] * cta_group;
	if (d->dims[0] != rows || d->dims[1] != n || b->dims[1] != kfull) {
		error(loc, "mma: the shapes do not agree: D '%s' is [%d, %d], A '%s' [%d, %d] and B '%s' [%d, %d]; %s", d->name,
		      d->dims[0], d->dims[1], a->name, a->dims[0], a->dims[1], b->name, b->dims[0], b->dims[1],
		      cta_group == 2 ? "in each CTA of a cta_group::2 pair, D [M / 2, N] = A [M / 2, K] * B [N / 2, K]^T "
		                       "(the even CTA's mma multiplies by both CTAs' halves of B)"
		                     : "D [M, N] = A [M, K] * B [N, K]^T");
		return false;
	}
	if (cta_group == 2 ? !mma_pair_shape_check(m, n, loc) : !mma_shape_check(m, n, loc))
		return false;
	int eb = etype_bits(at) / 8, ik = ki->k_bytes / eb;
	if (kfull % ik) {
		error(loc, "mma: K (the columns of A and B) is %d; a %s mma reads K = %d per instruction, so K is a multiple "
		           "of %d", kfull, mma_spelling(cta_group, kind), ik, ik);
		return false;
	}
	if (cta_group == 2 ? !pair_d_check(d, rows, n, loc, lane0, col0) : !d_check(d, m, n, loc, lane0, col0))
		return false;
	if (a_tmem && cta_group == 2) {
		error(loc, "mma: A '%s' is in TMEM in a cta_group::2 mma; tilec reads a pair's A from shared tiles only",
		      a->name);
		return false;
	}
	if (a_tmem && !a_tmem_check(a, rows, kfull, loc))
		return false;
	int count = kfull / ik;
	MmaStep *st = pool_alloc(sizeof *st * (size_t)count);
	for (int s = 0; s < count; s++)
		if ((!a_tmem && !step_desc(a, "A", rows, kfull, ik, s, loc, &st[s].a)) ||
		    !step_desc(b, "B", b->dims[0], kfull, ik, s, loc, &st[s].b))
			return false;
	MmaIdesc id = {.d_format = mma_d_code(dt), .a_format = mma_type_code(kind, at), .b_format = mma_type_code(kind, bt),
	               .transpose_a = !a_tmem && a->base->tile->major == SMEM_MN,
	               .transpose_b = b->base->tile->major == SMEM_MN, .n = n, .m = m};
	*in = (MmaInstr){.kind = kind, .atype = at, .btype = bt, .dtype = dt, .m = m, .n = n, .k = ik,
	                 .a_mn = id.transpose_a, .b_mn = id.transpose_b, .a_tmem = a_tmem, .idesc = mma_idesc_encode(&id)};
	*steps = st;
	*nsteps = count;
	return true;
}

/* ---------------------------------------------------------------- block scaling (scale_a, scale_b)

   TCGEN05.md 15 and CUTLASS's block-scaled descriptor: [0,4) sparsity (0: dense); [4,6) SFB_ID; [7,10) A
   format; [10,13) B format; 13 negate A; 14 negate B; 15 transpose A; 16 transpose B; [17,23) N >> 3; 23 scale
   format (0 ue4m3, 1 ue8m0); [24,29) M >> 4; [29,31) SFA_ID; 31 K size. */
uint32_t
mma_scaled_idesc_encode(const MmaScaledIdesc *d)
{
	return (uint32_t)(d->sfb_id & 3) << 4 | (uint32_t)(d->a_format & 7) << 7 | (uint32_t)(d->b_format & 7) << 10 |
	       (uint32_t)d->negate_a << 13 | (uint32_t)d->negate_b << 14 | (uint32_t)d->transpose_a << 15 |
	       (uint32_t)d->transpose_b << 16 | (uint32_t)((d->n >> 3) & 63) << 17 | (uint32_t)d->scale_ue8m0 << 23 |
	       (uint32_t)((d->m >> 4) & 31) << 24 | (uint32_t)(d->sfa_id & 3) << 29 | (uint32_t)(d->k_size & 1) << 31;
}

MmaScaledIdesc
mma_scaled_idesc_decode(uint32_t bits)
{
	return (MmaScaledIdesc){.sfb_id = (int)(bits >> 4 & 3), .a_format = (int)(bits >> 7 & 7),
	                        .b_format = (int)(bits >> 10 & 7), .negate_a = bits >> 13 & 1, .negate_b = bits >> 14 & 1,
	                        .transpose_a = bits >> 15 & 1, .transpose_b = bits >> 16 & 1,
	                        .n = (int)(bits >> 17 & 63) << 3, .scale_ue8m0 = bits >> 23 & 1,
	                        .m = (int)(bits >> 24 & 31) << 4, .sfa_id = (int)(bits >> 29 & 3), .k_size = (int)(bits >> 31)};
}

const char *
mma_scaled_idesc_text(uint32_t bits)
{
	MmaScaledIdesc d = mma_scaled_idesc_decode(bits);
	return pool_printf("0x%08x: SFB_ID %d [4,6), A format %d [7,10), B format %d [10,13), negate A %d, negate B %d, "
	                   "transpose A %d (bit 15), transpose B %d (bit 16), N %d (N >> 3 = %d in [17,23)), scale format "
	                   "%d (bit 23: %s), M %d (M >> 4 = %d in [24,29)), SFA_ID %d [29,31), K size %d (bit 31)",
	                   bits, d.sfb_id, d.a_format, d.b_format, d.negate_a, d.negate_b, d.transpose_a, d.transpose_b, d.n,
	                   d.n >> 3, d.scale_ue8m0, d.scale_ue8m0 ? "ue8m0" : "ue4m3", d.m, d.m >> 4, d.sfa_id, d.k_size);
}

/* The block-scaled kind of A and B of type at with scales of type sf, one per `block` K values: false after an
   error at loc naming what is not legal and the legal combinations (TCGEN05.md 15). */
static bool
scaled_kind(EType at, EType sf, int block, const View *sfa, Loc loc, MmaKind *kind, int *vec)
{
	if (block == 32 && sf == T_UE8M0) {
		*kind = MMA_MXF8F6F4;
		*vec = 1;
		return true;
	}
	error(loc, "mma: scale_a '%s' gives one %s scale per %d K values; with A of %s (one element a byte) the "
	           "block-scaled kind is kind::mxf8f6f4: ue8m0 scales, one per 32 K values (scale_a [M, K / 32], scale_b "
	           "[N, K / 32])", sfa->name, etype_name(sf), block, etype_name(at));
	note(loc, "kind::mxf4 (ue8m0 per 32) and kind::mxf4nvf4 (ue8m0 per 32, ue8m0 or ue4m3 per 16) read e2m1 packed "
	          "two to a byte from shared memory, which tilec does not store yet");
	return false;
}

/* The place of element (r, b) of scale operand v in block-scaled step s (scale_vec::1X: b = s): all four lanes
   r % 32 + 32 w, cell column col + r / 32, byte id; false after an error naming the element and its places. */
static bool
scale_place(const View *v, const char *role, int nb, int r, int b, int col, int id, Loc loc)
{
	const Tensor *t = v->base;
	const Layout *l = t->layout;
	int want = 4 * (col + r / 32) + id, lanes = 0;
	bool ok = l->nrep == 4;
	for (int k = 0; k < l->nrep && ok; k++) {
		const int32_t *p = LAYOUT_PLACE(l, v->map[r * nb + b], k);
		int lane = t->lane_offset + p[AX_TLANE];
		ok = p[AX_TCOL] == want && lane % 32 == r % 32 && !(lanes >> (lane / 32) & 1);
		lanes |= 1 << (lane / 32);
	}
	if (ok)
		return true;
	const int32_t *p = LAYOUT_PLACE(l, v->map[r * nb + b], 0);
	error(loc, "mma: %s '%s' has element %s in TMEM lane %d, cell column %d, byte %d (%d place%s); the mma reads it "
	           "in lanes %d, %d, %d and %d, cell column %d, byte %d", role, v->name, coord2(r, b),
	      t->lane_offset + p[AX_TLANE], p[AX_TCOL] / 4, p[AX_TCOL] % 4, l->nrep, l->nrep == 1 ? "" : "s", r % 32,
	      r % 32 + 32, r % 32 + 64, r % 32 + 96, col + r / 32, id);
	note(loc, "row r of a scale operand sits in lane r %% 32 of all four 32-lane partitions, in cell column first + "
	          "r / 32, and K block s of the mma in byte SF_ID of those cells: fill it with %s "
	          "32x128b.warpx4 into a layout such as S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]",
	     isa_name(TC_CP, 0));
	return false;
}

bool
mma_scale_check(const View *sfa, const View *sfb, int nsteps, Loc loc, MmaInstr *in, MmaStep *steps)
{
	const View *ops[2] = {sfa, sfb};
	static const char *const roles[2] = {"scale_a", "scale_b"};
	int rows[2] = {in->m, in->n};
	if (in->kind != MMA_F8F6F4) {
		error(loc, "mma: scale_a and scale_b make a block-scaled mma, whose A and B hold e4m3, e5m2, e2m3, e3m2 or "
		           "e2m1; these hold %s", etype_name(in->atype));
		return false;
	}
	for (int i = 0; i < 2; i++)
		if (ops[i]->base->kind != TK_TMEM || ops[i]->rank != 2) {
			error(loc, "mma: %s '%s' is not a two-dimensional tmem view; block scales are read from TMEM", roles[i],
			      ops[i]->name);
			note(loc, "copy them from a shared tile into a tmem tensor with %s (apply or copy)", isa_name(TC_CP, 0));
			return false;
		}
	EType sf = sfa->base->type;
	int kfull = in->k * nsteps, nb = sfa->dims[1];
	if (nb < 1 || kfull % nb || sfb->base->type != sf || sfa->dims[0] != in->m || sfb->dims[0] != in->n ||
	    sfb->dims[1] != nb) {
		error(loc, "mma: scale_a '%s' is %s [%d, %d] and scale_b '%s' %s [%d, %d]; with M = %d, N = %d and K = %d "
		           "they hold one type, [M, K / B] and [N, K / B] for a block of B K values", sfa->name,
		      etype_name(sf), sfa->dims[0], nb, sfb->name, etype_name(sfb->base->type), sfb->dims[0], sfb->dims[1],
		      in->m, in->n, kfull);
		return false;
	}
	MmaKind kind;
	int vec;
	if (!scaled_kind(in->atype, sf, kfull / nb, sfa, loc, &kind, &vec))
		return false;
	if (in->m != 128) {
		error(loc, "mma: a block-scaled mma has M = %d; tilec issues it with M = 128 (the scale factors of 128 rows "
		           "fill the four 32-lane partitions of TMEM)", in->m);
		return false;
	}
	for (int s = 0; s < nsteps; s++) {
		int col[2], id[2];
		for (int i = 0; i < 2; i++) {
			int tcol = LAYOUT_PLACE(ops[i]->base->layout, ops[i]->map[s], 0)[AX_TCOL];
			col[i] = tcol / 4;
			id[i] = tcol % 4;
			for (int r = 0; r < rows[i]; r++)
				if (!scale_place(ops[i], roles[i], nb, r, s, col[i], id[i], loc))
					return false;
			steps[s].sf_col[i] = col[i];
		}
		MmaScaledIdesc d = {.a_format = mma_type_code(kind, in->atype), .b_format = mma_type_code(kind, in->btype),
		                    .transpose_a = in->a_mn, .transpose_b = in->b_mn, .n = in->n, .m = in->m,
		                    .scale_ue8m0 = sf == T_UE8M0, .sfa_id = id[0], .sfb_id = id[1]};
		steps[s].idesc = mma_scaled_idesc_encode(&d);
	}
	in->kind = kind;
	in->scale_vec = vec;
	in->idesc = steps[0].idesc;
	return true;
}
