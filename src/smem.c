/* smem.c: shared-memory tiles in the tensor core's layouts: the swizzle table, element addresses, and
 * the 64-bit shared-memory descriptor (encoded, decoded, derived from a view of a tile, checked against it). */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* TCGEN05.md 11.1 and 11.2. An atom is 8 lines of the swizzle width; the XOR takes address bits 7 and
   up (the line within a 1024-byte block) into the 16-byte chunk bits 4..6, or 5..6 for 128B_base32B,
   which CUTLASS alone documents (MN-major only, provisional). Tiles start on their atom so that the
   pattern starts there and the descriptor's base offset is 0. */
static const SwizzleInfo swizzles[SW_COUNT] = {
	/*                   name            width lines period align code xor_mask xor_at mn_only */
	[SW_NONE] =         {"none",         16,   8,    0,     16,   0,   0,       4,     false},
	[SW_32B] =          {"32B",          32,   8,    256,   256,  6,   1,       4,     false},
	[SW_64B] =          {"64B",          64,   8,    512,   512,  4,   3,       4,     false},
	[SW_128B] =         {"128B",         128,  8,    1024,  1024, 2,   7,       4,     false},
	[SW_128B_BASE32B] = {"128B_base32B", 128,  8,    512,   1024, 1,   3,       5,     true},
};

static const char *const major_names[SMEM_MAJOR_COUNT] = {[SMEM_K] = "K", [SMEM_MN] = "MN"};

/* A descriptor's start, LBO and SBO are 14-bit fields of the address >> 4. */
#define DESC_ADDR_LIMIT (1u << 18)

const SwizzleInfo *
smem_swizzle_info(SmemSwizzle s)
{
	if ((unsigned)s >= SW_COUNT)
		fatal("swizzle %d out of range", (int)s);
	return &swizzles[s];
}

const char *
smem_major_name(SmemMajor m)
{
	if ((unsigned)m >= SMEM_MAJOR_COUNT)
		fatal("major %d out of range", (int)m);
	return major_names[m];
}

bool
smem_major_named(const char *name, SmemMajor *out)
{
	for (int m = 0; m < SMEM_MAJOR_COUNT; m++)
		if (strcmp(name, major_names[m]) == 0) {
			*out = (SmemMajor)m;
			return true;
		}
	return false;
}

bool
smem_swizzle_named(const char *name, SmemSwizzle *out)
{
	for (int s = 0; s < SW_COUNT; s++)
		if (strcmp(name, swizzles[s].name) == 0) {
			*out = (SmemSwizzle)s;
			return true;
		}
	return false;
}

bool
smem_swizzle_of_code(int code, SmemSwizzle *out)
{
	for (int s = 0; s < SW_COUNT; s++)
		if (swizzles[s].code == code) {
			*out = (SmemSwizzle)s;
			return true;
		}
	return false;
}

uint32_t
smem_swizzle_addr(SmemSwizzle s, uint32_t addr)
{
	const SwizzleInfo *sw = smem_swizzle_info(s);
	return addr ^ (((addr >> 7) & (uint32_t)sw->xor_mask) << sw->xor_at);
}

/* The unswizzled address of element (mn, k) of elem_bytes that a descriptor of this major, swizzle
   width (16: no swizzle) and strides reaches: TCGEN05.md 11.2's four formulas. MN-major, LBO steps
   along K without swizzle and along MN with it, SBO the other way round; a K-major swizzled walk has
   no LBO: it stays inside one atom line of width bytes (k * elem_bytes < width). */
static uint32_t
walk(SmemMajor major, uint32_t width, uint32_t e, uint32_t start, uint32_t lbo, uint32_t sbo, uint32_t mn, uint32_t k)
{
	uint32_t per_chunk = 16 / e;
	if (major == SMEM_K && width == 16)
		return start + (mn % 8) * 16 + (mn / 8) * sbo + (k % per_chunk) * e + (k / per_chunk) * lbo;
	if (major == SMEM_K)
		return start + (mn % 8) * width + (mn / 8) * sbo + (k % per_chunk) * e + (k / per_chunk) * 16;
	if (width == 16)
		return start + (mn % per_chunk) * e + (mn / per_chunk) * sbo + (k % 8) * 16 + (k / 8) * lbo;
	return start + (mn * e) % width + ((mn * e) / width) * lbo + (k % 8) * width + (k / 8) * sbo;
}

void
smem_atom_shape(const SmemTile *t, int *rows, int *cols)
{
	const SwizzleInfo *sw = smem_swizzle_info(t->swizzle);
	int along = sw->width / t->elem_bytes; /* elements of one atom line */
	*rows = t->major == SMEM_K ? sw->atom_lines : along;
	*cols = t->major == SMEM_K ? along : sw->atom_lines;
}

uint32_t
smem_tile_bytes(const SmemTile *t)
{
	return (uint32_t)t->rows * (uint32_t)t->cols * (uint32_t)t->elem_bytes;
}

SmemTileFault
smem_tile_check(const SmemTile *t)
{
	const SwizzleInfo *sw = smem_swizzle_info(t->swizzle);
	int e = t->elem_bytes;
	if (e < 1 || e > 16 || (e & (e - 1)))
		return SMEM_TILE_ELEM;
	if (sw->mn_only && t->major != SMEM_MN)
		return SMEM_TILE_MAJOR;
	if (t->rows < 1 || t->cols < 1)
		return SMEM_TILE_EMPTY;
	int atom_rows, atom_cols;
	smem_atom_shape(t, &atom_rows, &atom_cols);
	if (t->rows % atom_rows)
		return SMEM_TILE_ATOM_ROWS;
	if (t->cols % atom_cols)
		return SMEM_TILE_ATOM_COLS;
	if (t->start % (uint32_t)sw->align)
		return SMEM_TILE_ALIGN;
	if ((uint64_t)t->start + (uint64_t)t->rows * (uint64_t)t->cols * (uint64_t)e > DESC_ADDR_LIMIT)
		return SMEM_TILE_RANGE;
	return SMEM_TILE_FITS;
}

/* TCGEN05.md 11.2, tilec's canonical placement: atoms stacked along the rows first. */
void
smem_tile_strides(const SmemTile *t, uint32_t *lbo, uint32_t *sbo)
{
	uint32_t width = (uint32_t)smem_swizzle_info(t->swizzle)->width;
	uint32_t rows = (uint32_t)t->rows, e = (uint32_t)t->elem_bytes;
	if (t->major == SMEM_K && width == 16) {
		*sbo = 128;
		*lbo = rows * 16;
	} else if (t->major == SMEM_K) {
		*sbo = 8 * width;
		*lbo = 0; /* ignored by the hardware: the next K atom takes a new start address */
	} else if (width == 16) {
		*sbo = 128;
		*lbo = 8 * rows * e;
	} else {
		*lbo = 8 * width;
		*sbo = 8 * rows * e;
	}
}

uint32_t
smem_tile_unswizzled(const SmemTile *t, int row, int col)
{
	uint32_t width = (uint32_t)smem_swizzle_info(t->swizzle)->width;
	uint32_t e = (uint32_t)t->elem_bytes, start = t->start, k = (uint32_t)col, lbo, sbo;
	smem_tile_strides(t, &lbo, &sbo);
	if (t->major == SMEM_K && width > 16) {
		/* K atom j: the columns [j, j + 1) * width / e, all rows of it, from start + j * rows * width */
		uint32_t per_line = width / e;
		start += (k / per_line) * (uint32_t)t->rows * width;
		k %= per_line;
	}
	return walk(t->major, width, e, start, lbo, sbo, (uint32_t)row, k);
}

uint32_t
smem_tile_addr(const SmemTile *t, int row, int col)
{
	return smem_swizzle_addr(t->swizzle, smem_tile_unswizzled(t, row, col));
}

void
smem_tile_touches(const SmemTile *t, int row0, int col0, int rows, int cols, SmemTouch *out)
{
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			out[r * cols + c] = (SmemTouch){.mn = r, .k = c, .addr = smem_tile_addr(t, row0 + r, col0 + c)};
}

/* The swizzle acts on absolute address bits, so a view that starts inside an atom keeps base offset
   0 and starts at its first element's unswizzled address (TCGEN05.md 11.2). The start field holds
   that address >> 4: a view that starts inside a 16-byte chunk gets the chunk's address, which
   smem_desc_check then finds wrong for the view's first element. */
SmemDesc
smem_tile_desc(const SmemTile *t, int row0, int col0)
{
	SmemDesc d = {.start = smem_tile_unswizzled(t, row0, col0) & ~15u, .swizzle = t->swizzle};
	smem_tile_strides(t, &d.lbo, &d.sbo);
	return d;
}

/* TCGEN05.md 9 and 11.1: [0,14) start >> 4, [16,30) LBO >> 4, [32,46) SBO >> 4, [46,49) 0b001,
   [49,52) base offset, 52 LBO mode, [53,61) 0, [61,64) layout code; bits 14, 15, 30, 31 are 0. */
#define DESC_FIXED (UINT64_C(1) << 46)
#define DESC_ZERO ((UINT64_C(3) << 14) | (UINT64_C(3) << 30) | (UINT64_C(0xff) << 53))

static bool
desc_addr_fits(uint32_t bytes)
{
	return bytes % 16 == 0 && bytes < DESC_ADDR_LIMIT;
}

bool
smem_desc_encode(const SmemDesc *d, uint64_t *bits)
{
	if (!desc_addr_fits(d->start) || !desc_addr_fits(d->lbo) || !desc_addr_fits(d->sbo) ||
	    d->base_offset < 0 || d->base_offset > 7)
		return false;
	*bits = (uint64_t)(d->start >> 4) | (uint64_t)(d->lbo >> 4) << 16 | (uint64_t)(d->sbo >> 4) << 32 |
	        DESC_FIXED | (uint64_t)d->base_offset << 49 | (uint64_t)d->lbo_absolute << 52 |
	        (uint64_t)smem_swizzle_info(d->swizzle)->code << 61;
	return true;
}

bool
smem_desc_decode(uint64_t bits, SmemDesc *d)
{
	SmemSwizzle s;
	if ((bits & (UINT64_C(7) << 46)) != DESC_FIXED || (bits & DESC_ZERO) || !smem_swizzle_of_code((int)(bits >> 61), &s))
		return false;
	*d = (SmemDesc){
		.start = (uint32_t)(bits & 0x3fff) << 4,
		.lbo = (uint32_t)((bits >> 16) & 0x3fff) << 4,
		.sbo = (uint32_t)((bits >> 32) & 0x3fff) << 4,
		.base_offset = (int)((bits >> 49) & 7),
		.lbo_absolute = (bits >> 52) & 1,
		.swizzle = s,
	};
	return true;
}

uint32_t
smem_desc_addr(const SmemDesc *d, SmemMajor major, int elem_bytes, int mn, int k)
{
	uint32_t width = (uint32_t)smem_swizzle_info(d->swizzle)->width;
	uint32_t u = walk(major, width, (uint32_t)elem_bytes, d->start, d->lbo, d->sbo, (uint32_t)mn, (uint32_t)k);
	return smem_swizzle_addr(d->swizzle, u);
}

typedef struct AddrIndex {
	uint32_t addr;
	int index;
} AddrIndex;

static int
addr_index_cmp(const void *a, const void *b)
{
	const AddrIndex *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Of the touches that share an address with an earlier one, the first: its index in *second and the
   earliest touch at that address in *first; false when every address is different. The addresses of
   a tile and of a descriptor's walk are multiples of the element size, so two elements overlap only
   where they start on one byte. */
static bool
first_shared_address(const SmemTouch *touch, int n, int *first, int *second)
{
	*second = -1;
	if (n < 2)
		return false;
	AddrIndex *order = malloc(sizeof *order * (size_t)n);
	if (!order)
		out_of_memory();
	for (int i = 0; i < n; i++)
		order[i] = (AddrIndex){touch[i].addr, i};
	qsort(order, (size_t)n, sizeof *order, addr_index_cmp);
	/* sorted by address, then index: the second of each address comes before its later ones, so the
	   one before it is the earliest at that address */
	for (int i = 1; i < n; i++)
		if (order[i].addr == order[i - 1].addr && (*second < 0 || order[i].index < *second)) {
			*first = order[i - 1].index;
			*second = order[i].index;
		}
	free(order);
	return *second >= 0;
}

bool
smem_desc_check(const SmemDesc *d, SmemMajor major, int elem_bytes, const SmemTouch *touch, int n, SmemMismatch *out)
{
	*out = (SmemMismatch){.fault = SMEM_DESC_FITS, .index = -1, .other = -1};
	if (d->base_offset != 0 || d->lbo_absolute) {
		out->fault = SMEM_DESC_FIELDS;
		return false;
	}
	for (int i = 0; i < n; i++) {
		uint32_t reads = smem_desc_addr(d, major, elem_bytes, touch[i].mn, touch[i].k);
		if (reads != touch[i].addr) {
			*out = (SmemMismatch){SMEM_DESC_ADDRESS, i, -1, touch[i].addr, reads};
			return false;
		}
	}
	int first, second;
	if (first_shared_address(touch, n, &first, &second)) {
		*out = (SmemMismatch){SMEM_DESC_SAME_BYTE, first, second, touch[first].addr, touch[first].addr};
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- a view read through a descriptor */

bool
smem_view_descriptor(const SmemTile *t, const SmemView *v, SmemDesc *desc, SmemMismatch *why)
{
	int n = v->rows * v->cols;
	SmemTouch *touch = malloc(sizeof *touch * (size_t)(n > 0 ? n : 1));
	if (!touch)
		out_of_memory();
	smem_tile_touches(t, v->row0, v->col0, v->rows, v->cols, touch);
	*desc = smem_tile_desc(t, v->row0, v->col0);
	bool fits = smem_desc_check(desc, t->major, t->elem_bytes, touch, n, why);
	free(touch);
	return fits;
}

char *
smem_mismatch_text(const SmemTile *t, const SmemView *v, const SmemMismatch *m, const char *name)
{
	int row = v->row0 + m->index / v->cols, col = v->col0 + m->index % v->cols;
	SmemDesc d = smem_tile_desc(t, v->row0, v->col0);
	switch (m->fault) {
	case SMEM_DESC_FITS:
		return pool_printf("the descriptor reaches every element of '%s'", name);
	case SMEM_DESC_FIELDS:
		return pool_printf("a descriptor of '%s' needs base offset 0 and a relative LBO", name);
	case SMEM_DESC_ADDRESS:
		return pool_printf("element [%d, %d] of '%s' is at shared byte %u in its %s-major %s layout, but the "
		                   "descriptor (start %u, LBO %u, SBO %u) reads byte %u for it",
		                   row, col, name, m->tile_addr, smem_major_name(t->major), smem_swizzle_info(t->swizzle)->name,
		                   d.start, d.lbo, d.sbo, m->desc_addr);
	case SMEM_DESC_SAME_BYTE:
		break;
	}
	int orow = v->row0 + m->other / v->cols, ocol = v->col0 + m->other % v->cols;
	return pool_printf("elements [%d, %d] and [%d, %d] of '%s' both lie at shared byte %u", row, col, orow, ocol,
	                   name, m->tile_addr);
}

/* ---------------------------------------------------------------- element indices of a shared tensor */

/* The tile's unswizzled address of (row, col) splits into 16-byte chunks and the bytes inside one: the
   contiguous dimension's index modulo 16 / e is the element inside its chunk, and the swizzle permutes
   whole chunks only, so (chunk, inside) -> swizzle(chunk) * 16 / e + inside. ir.c's ie_tile_index writes
   the same as an expression (a unit test compares both with smem_tile_addr on every element). */
int64_t
smem_tensor_element(const SmemTile *t, int64_t flat)
{
	int64_t per_tile = (int64_t)t->rows * t->cols;
	int64_t stack = flat / per_tile, in = flat % per_tile;
	uint32_t addr = smem_tile_addr(t, (int)(in / t->cols), (int)(in % t->cols)) - t->start;
	return stack * per_tile + (int64_t)(addr / (uint32_t)t->elem_bytes);
}


/* ---------------------------------------------------------------- the layout as written */

bool
smem_layout_named(const LayoutExpr *le, SmemMajor *major, SmemSwizzle *swizzle)
{
	if (!smem_major_named(le->major, major)) {
		error(le->major_loc, "smem_tile's major is \"K\" (a row's columns contiguous) or \"MN\" (a column's rows "
		                     "contiguous), not \"%s\"", le->major);
		return false;
	}
	if (!smem_swizzle_named(le->swizzle, swizzle)) {
		Buf names = {0};
		for (int s = 0; s < SW_COUNT; s++)
			buf_printf(&names, "%s\"%s\"", s == 0 ? "" : s == SW_COUNT - 1 ? " or " : ", ", swizzles[s].name);
		error(le->swizzle_loc, "smem_tile's swizzle is %s, not \"%s\"", names.data, le->swizzle);
		buf_free(&names);
		return false;
	}
	if (swizzles[*swizzle].mn_only && *major != SMEM_MN) {
		error(le->swizzle_loc, "swizzle \"%s\" has only an MN-major form: smem_tile(\"MN\", \"%s\")",
		      swizzles[*swizzle].name, swizzles[*swizzle].name);
		return false;
	}
	return true;
}

SmemTile *
smem_tensor_tile(const Tensor *t, const LayoutExpr *written, const LayoutExpr *le, Loc loc)
{
	if (le->kind != LAY_SMEM_TILE) {
		error(written->loc, "shared tensor '%s' takes layout smem_tile(major, swizzle), not a layout of local or "
		                    "tmem tensors", t->name);
		return NULL;
	}
	SmemTile tile = {.elem_bytes = etype_bits(t->type) / 8};
	if (!smem_layout_named(le, &tile.major, &tile.swizzle))
		return NULL;
	if (t->rank < 2) {
		error(loc, "smem_tile places 2-D tiles (or a stack of them); '%s' has 1 dimension", t->name);
		return NULL;
	}
	tile.rows = t->dims[t->rank - 2];
	tile.cols = t->dims[t->rank - 1];
	SmemTileFault fault = smem_tile_check(&tile);
	if (fault == SMEM_TILE_ATOM_ROWS || fault == SMEM_TILE_ATOM_COLS) {
		const SwizzleInfo *sw = &swizzles[tile.swizzle];
		int atom_rows, atom_cols;
		smem_atom_shape(&tile, &atom_rows, &atom_cols);
		bool rows = fault == SMEM_TILE_ATOM_ROWS;
		error(loc, "'%s' does not fill whole atoms: a %s-major %s atom of %s is %d rows by %d columns (%d lines of %d "
		           "bytes along the %s), and %d %s no multiple of %d",
		      t->name, major_names[tile.major], sw->name, etype_name(t->type), atom_rows, atom_cols, sw->atom_lines,
		      sw->width, tile.major == SMEM_K ? "columns" : "rows", rows ? tile.rows : tile.cols,
		      rows ? "rows are" : "columns are", rows ? atom_rows : atom_cols);
		return NULL;
	}
	/* a tile beyond what a descriptor addresses is beyond a block's shared memory, which lower.c reports */
	if (fault != SMEM_TILE_FITS && fault != SMEM_TILE_RANGE)
		fatal("shared tile '%s': fault %d", t->name, (int)fault); /* the declaration's checks exclude the others */
	SmemTile *out = pool_alloc(sizeof *out);
	*out = tile;
	return out;
}

int
smem_tensor_align(const Tensor *t)
{
	int align = t->tile ? swizzles[t->tile->swizzle].align : 16;
	return align > 16 ? align : 16;
}

const char *
smem_tile_text(const SmemTile *t)
{
	return pool_printf(" layout smem_tile(\"%s\", \"%s\")", major_names[t->major], swizzles[t->swizzle].name);
}

int64_t
smem_tensor_logical(const SmemTile *t, int64_t element)
{
	int64_t per_tile = (int64_t)t->rows * t->cols, stack = element / per_tile;
	for (int64_t flat = 0; flat < per_tile; flat++)
		if (smem_tensor_element(t, flat) == element % per_tile)
			return stack * per_tile + flat;
	return element; /* not an element's place: as it came */
}
