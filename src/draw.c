/* draw.c: tilec --draw: SVG pictures of a tcgen05.ld/st or tcgen05.cp image and of the mapping of one apply. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/*
 * One colour per lane of a warp. Lightness (CIELAB L* 94, 82, 70, 58) follows lane % 4, so that
 * neighbouring lanes differ on a grey print too; the hue (eight, 45 degrees apart) follows lane / 4,
 * which is one row of the 16-row images. Chroma is at most 34, so black text keeps a contrast of at
 * least 4.5:1 on every one. Written out, not computed: the pictures must not depend on libm.
 */
static const char *const lane_colour[32] = {
	"#ffe9e8", "#febbb8", "#e89593", "#c57674", "#ffead8", "#f5c391", "#d2a272", "#b08354",
	"#e9f4b2", "#c7d291", "#a5b172", "#859154", "#b0fed6", "#8fdcb5", "#6fba95", "#4f9a76",
	"#b5faff", "#67dde6", "#3fbbc4", "#0c9aa3", "#dff0fe", "#93d4fe", "#60b4e4", "#3994c3",
	"#eeecfd", "#cac6ff", "#a8a5e3", "#8786c1", "#ffe7f5", "#fdb7e2", "#da96c1", "#b977a0",
};

/* Geometry in pixels; text is monospace, about 0.6 em per character. */
enum {
	MARGIN = 16,
	CELL_H = 29,     /* two lines of 10 px text */
	ROW_LABELS = 30, /* the strip of row numbers, repeated every STRIP units */
	STRIP = 32,
	MAX_NOTES = 8,   /* mismatches listed under one panel */
};

/* ------------------------------------------------------------------ SVG text */

typedef struct Picture {
	Buf body;
	int width, y; /* extent so far; y is where the next block starts */
} Picture;

/* Text for XML: the five special characters escaped, bytes other than printable ASCII as '?'. */
static void
put_escaped(Buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '&')
			buf_puts(b, "&amp;");
		else if (c == '<')
			buf_puts(b, "&lt;");
		else if (c == '>')
			buf_puts(b, "&gt;");
		else if (c == '"')
			buf_puts(b, "&quot;");
		else
			buf_putc(b, c >= 0x20 && c < 0x7f ? (char)c : '?');
	}
}

static void
grow(Picture *p, int right)
{
	if (right > p->width)
		p->width = right;
}

/* A text element; size is the font size of cls, for the width estimate of left-anchored text. */
static void
text_at(Picture *p, int x, int y, const char *cls, int size, const char *s)
{
	buf_printf(&p->body, "<text x=\"%d\" y=\"%d\" class=\"%s\">", x, y, cls);
	put_escaped(&p->body, s);
	buf_puts(&p->body, "</text>\n");
	grow(p, x + (int)strlen(s) * size * 6 / 10 + MARGIN);
}

/* A line of text at the left margin, below the last block. */
static void
line_of_text(Picture *p, const char *cls, int size, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
line_of_text(Picture *p, const char *cls, int size, const char *fmt, ...)
{
	Buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	p->y += size + 5;
	text_at(p, MARGIN, p->y, cls, size, b.data ? b.data : "");
	buf_free(&b);
}

/* The legend: a swatch per lane in two rows of 16, and the mark of a cell that does not match. */
static void
legend(Picture *p, const char *what, bool with_bad)
{
	line_of_text(p, "sub", 11, "%s", what);
	p->y += 6;
	for (int lane = 0; lane < 32; lane++) {
		int x = MARGIN + (lane % 16) * 64, y = p->y + (lane / 16) * 20;
		buf_printf(&p->body, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" class=\"c%d\"/>\n", x, y, lane);
		char s[16];
		snprintf(s, sizeof s, "lane %d", lane);
		text_at(p, x + 18, y + 11, "lg", 10, s);
	}
	p->y += 40;
	if (with_bad) {
		buf_printf(&p->body, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" class=\"w\"/>"
		                     "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" class=\"bad\"/>"
		                     "<path d=\"M%d %dh7l-7 7z\" class=\"flag\"/>\n",
		           MARGIN, p->y, MARGIN + 1, p->y + 1, MARGIN + 1, p->y + 1);
		text_at(p, MARGIN + 18, p->y + 11, "lg", 10,
		        "does not match the image (white: the owner is in another warp, or no thread holds it)");
		p->y += 20;
	}
}

/* ------------------------------------------------------------------ grids */

typedef struct Cell {
	int colour; /* the lane whose colour fills it; -1: white */
	bool bad;   /* does not match the image */
	bool first; /* the mismatch the check reports */
	char text[2][24];
} Cell;

typedef struct Grid {
	const char *title;
	bool title_bad;
	int rows, units; /* a unit is a 32-bit column, or one part of it when parts > 1 */
	int parts;       /* units per numbered column: 1, or the 16- or 8-bit parts of a cell */
	int row0, col0;  /* the numbers of the first row and column */
	int rep_units;   /* units per repetition of the instruction, for the heavier lines */
	Cell *cells;     /* rows * units */
} Grid;

static Grid
grid_new(int rows, int units)
{
	Grid g = {0};
	g.rows = rows;
	g.units = units;
	g.parts = 1;
	g.cells = pool_alloc(sizeof(Cell) * (size_t)rows * (size_t)units);
	for (int i = 0; i < rows * units; i++)
		g.cells[i].colour = -1;
	return g;
}

static int
unit_x(int unit, int width)
{
	return MARGIN + (unit / STRIP + 1) * ROW_LABELS + unit * width;
}

/* The mark of a cell that does not match the image: a red frame and a red corner; no pattern
   fill, which renderers draw slowly when there are thousands. */
static void
bad_mark(Buf *b, int x, int y, int w, bool first)
{
	buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"bad%s\"/><path d=\"M%d %dh9l-9 9z\" "
	              "class=\"flag\"/>\n", x + 1, y + 1, w - 2, CELL_H - 2, first ? " first" : "", x + 1, y + 1);
}

/* Draws a grid below the last block: column numbers, the cells and their labels, row numbers
   before every STRIP units (so that a wide picture keeps them in view), heavier lines between
   repetitions. */
static void
draw_grid(Picture *p, const Grid *g)
{
	Buf *b = &p->body;
	size_t longest = 3;
	for (int i = 0; i < g->rows * g->units; i++)
		for (int t = 0; t < 2; t++)
			if (strlen(g->cells[i].text[t]) > longest)
				longest = strlen(g->cells[i].text[t]);
	int w = (int)longest * 6 + 8;
	if (g->title) {
		p->y += 8;
		line_of_text(p, g->title_bad ? "sub red" : "sub", 11, "%s", g->title);
	}
	int y = p->y + 14;
	char s[32];
	for (int u = 0; u < g->units; u += g->parts) {
		snprintf(s, sizeof s, "%d", g->col0 + u / g->parts);
		text_at(p, unit_x(u, w) + w * g->parts / 2, y, "h", 8, s);
	}
	if (g->parts > 1) {
		y += 10;
		for (int u = 0; u < g->units; u++) {
			if (g->parts == 2)
				snprintf(s, sizeof s, "%s", u % 2 ? "hi" : "lo");
			else
				snprintf(s, sizeof s, "b%d", u % g->parts);
			text_at(p, unit_x(u, w) + w / 2, y, "h", 8, s);
		}
	}
	y += 4;
	buf_puts(b, "<g class=\"grid\">\n");
	for (int r = 0; r < g->rows; r++) {
		for (int u = 0; u < g->units; u++) {
			const Cell *c = &g->cells[r * g->units + u];
			if (c->colour >= 0)
				buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"c%d\"/>\n", unit_x(u, w),
				           y + r * CELL_H, w, CELL_H, c->colour);
			else
				buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"w\"/>\n", unit_x(u, w),
				           y + r * CELL_H, w, CELL_H);
		}
	}
	buf_puts(b, "</g>\n");
	for (int r = 0; r < g->rows; r++)
		for (int u = 0; u < g->units; u++)
			if (g->cells[r * g->units + u].bad)
				bad_mark(b, unit_x(u, w), y + r * CELL_H, w, g->cells[r * g->units + u].first);
	/* heavier lines between repetitions; where a repetition is one column wide, every 8 or so */
	int sep = g->rep_units;
	if (sep <= g->parts)
		sep = 8 * g->parts;
	for (int u = sep; u < g->units; u += sep)
		buf_printf(b, "<path d=\"M%d %dv%d\" class=\"sep\"/>\n", unit_x(u, w), y - 4, g->rows * CELL_H + 8);
	buf_puts(b, "<g class=\"t\">\n");
	for (int r = 0; r < g->rows; r++) {
		for (int u = 0; u < g->units; u++) {
			const Cell *c = &g->cells[r * g->units + u];
			int cx = unit_x(u, w) + w / 2, cy = y + r * CELL_H;
			for (int t = 0; t < 2 && c->text[t][0]; t++) {
				buf_printf(b, "<text x=\"%d\" y=\"%d\">", cx, cy + 13 + 12 * t);
				put_escaped(b, c->text[t]);
				buf_puts(b, "</text>\n");
			}
		}
	}
	buf_puts(b, "</g>\n");
	for (int u = 0; u < g->units; u += STRIP) {
		for (int r = 0; r < g->rows; r++) {
			snprintf(s, sizeof s, "%d", g->row0 + r);
			text_at(p, unit_x(u, w) - 4, y + r * CELL_H + 18, "h r", 8, s);
		}
	}
	grow(p, unit_x(g->units, w) + MARGIN);
	p->y = y + g->rows * CELL_H + 4;
}

/* The SVG around the body: size, title, styles. */
static void
finish(Picture *p, const char *title, Buf *out)
{
	int height = p->y + MARGIN;
	buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
	           p->width, height, p->width, height);
	buf_puts(out, "<title>");
	put_escaped(out, title);
	buf_puts(out, "</title>\n<style>\n"
	              "text{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;fill:#000}\n"
	              ".title{font-size:15px;font-weight:bold}.sub{font-size:11px}.lg{font-size:10px}\n"
	              ".t text{font-size:10px;text-anchor:middle}.h{font-size:8px;text-anchor:middle;fill:#333}\n"
	              ".r{text-anchor:end}.red{fill:#c00000;font-weight:bold}\n"
	              ".grid rect,rect.w{stroke:#777;stroke-width:.5}.w{fill:#fff}\n"
	              ".bad{fill:none;stroke:#c00000;stroke-width:2}.first{stroke-width:4;stroke-dasharray:4 2}.flag{fill:#c00000}.sep{stroke:#000;stroke-width:1.5}\n");
	for (int lane = 0; lane < 32; lane++)
		buf_printf(out, ".c%d{fill:%s}%s", lane, lane_colour[lane], lane % 8 == 7 ? "\n" : "");
	buf_puts(out, "</style>\n");
	buf_printf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", p->width, height);
	buf_putn(out, p->body.data ? p->body.data : "", p->body.len);
	buf_puts(out, "</svg>\n");
	buf_free(&p->body);
}

/* ------------------------------------------------------------------ an opcode's image */

static void
draw_opcode(const Opcode *op, Buf *out)
{
	char name[96];
	opcode_format(op, name, sizeof name);
	Picture p = {0};
	int regs = opcode_regs(op), rows = shape_rows(op->shape), cols = opcode_tmem_cols(op);
	bool two = op->shape == SH_16X32BX2;
	line_of_text(&p, "title", 15, "%s", name);
	line_of_text(&p, "sub", 11, "One warp: %d register%s per thread; %d TMEM lanes x %d 32-bit columns%s, counted from the "
	             "address taddr the warp passes.", regs, regs == 1 ? "" : "s", rows, cols, two ? " per access" : "");
	line_of_text(&p, "sub", 11, "Each cell: the lane of the warp (lN) and the register of the instruction (rN) that %s it.",
	             op->is_ld ? "receive" : "provide");
	if (op->pack)
		line_of_text(&p, "sub", 11, ".%s: register bits 0..15 (lo) go with the low half of an even cell, bits 16..31 (hi) "
		             "with the low half of the odd cell after it.", op->is_ld ? "pack::16b" : "unpack::16b");
	if (two)
		line_of_text(&p, "sub", 11, "Two accesses: lanes 0..15 at taddr, lanes 16..31 at taddr + imm_half_splitoff "
		             "(no implicit lane offset).");
	legend(&p, "Colour: the lane of the warp.", false);
	for (int a = 0; a < (two ? 2 : 1); a++) {
		Grid g = grid_new(rows, cols);
		g.rep_units = shape_cols_per_rep(op->shape) * (op->pack ? 2 : 1);
		if (two)
			g.title = a ? "access 1: lanes 16..31, TMEM lanes from taddr + imm_half_splitoff"
			            : "access 0: lanes 0..15, TMEM lanes from taddr";
		else
			g.title = "rows: TMEM lanes from taddr; columns: 32-bit columns from taddr";
		for (int lane = 0; lane < 32; lane++) {
			for (int r = 0; r < regs; r++) {
				ImageCell ic = image_cell(op, lane, r);
				if (ic.access != a)
					continue;
				for (int h = 0; h < (op->pack ? 2 : 1); h++) {
					Cell *c = &g.cells[ic.row * cols + (op->pack ? 2 * ic.col + h : ic.col)];
					c->colour = lane;
					snprintf(c->text[0], sizeof c->text[0], "l%d", lane);
					snprintf(c->text[1], sizeof c->text[1], "r%d%s", r, op->pack ? (h ? " hi" : " lo") : "");
				}
			}
		}
		draw_grid(&p, &g);
	}
	finish(&p, name, out);
}

/* A tcgen05.cp form: which source row, chunk and word each TMEM cell receives; the colour is the
   source row's (row % 32, so the replicas of a row share it). */
static void
draw_cp_form(const CpForm *f, Buf *out)
{
	const char *name = cp_form_spelling(f);
	Picture p = {0};
	int rows = cp_rows(f->route), chunks = cp_chunks(f->route), cols = cp_tmem_cols(f->route), lanes = 0;
	for (int r = 0; r < rows; r++)
		for (int k = 0; k < cp_replicas(f->route); k++)
			if (cp_lane(f->route, r, k) + 1 > lanes)
				lanes = cp_lane(f->route, r, k) + 1;
	line_of_text(&p, "title", 15, "%s", name);
	line_of_text(&p, "sub", 11, "One thread issues it: %d shared-memory rows of %d 16-byte chunk%s (the descriptor's walk) "
	             "into TMEM lanes and 32-bit columns counted from taddr.", rows, chunks, chunks == 1 ? "" : "s");
	line_of_text(&p, "sub", 11, "Each cell: the source row (rowN) and its chunk and word (cC.wW: bytes 4W..4W+3 of chunk C)%s.",
	             cp_replicas(f->route) > 1 ? "; a multicast writes every row into several lanes" : "");
	if (f->decomp != CPD_NONE)
		line_of_text(&p, "sub", 11, ".%s: each chunk's first %s bytes become its 16 bytes, one value a byte.",
		             cp_decomp_name(f->decomp), f->decomp == CPD_B4X16_P64 ? "8" : "12");
	legend(&p, "Colour: the source row modulo 32 (lane N: rows N, N + 32, ...).", false);
	Grid g = grid_new(lanes, cols);
	g.rep_units = CP_CHUNK_WORDS;
	g.title = "rows: TMEM lanes from taddr; columns: 32-bit columns from taddr";
	for (int r = 0; r < rows; r++)
		for (int k = 0; k < cp_replicas(f->route); k++)
			for (int c = 0; c < chunks; c++)
				for (int w = 0; w < CP_CHUNK_WORDS; w++) {
					Cell *cell = &g.cells[cp_lane(f->route, r, k) * cols + cp_col(c, w)];
					cell->colour = r % 32;
					snprintf(cell->text[0], sizeof cell->text[0], "row%d", r);
					snprintf(cell->text[1], sizeof cell->text[1], "c%d.w%d", c, w);
				}
	draw_grid(&p, &g);
	finish(&p, name, out);
}

/* ------------------------------------------------------------------ an apply's mapping */

/* The applies and copies --draw FILE:LINE asks for (those on the line), as lowering meets them. */
enum { MAX_MAPS = 8, MAX_DRAWN = 16 };
typedef struct Drawn {
	Stmt *s;
	ApplyMap *maps[MAX_MAPS]; /* the apply's map (NULL when its operands do not fit the instruction), or
	                             those of the applies a copy chose */
	int nmaps;
	bool copy, matched;       /* a copy, and whether an instruction matched it (else: the closest) */
	const Tensor *tile;       /* a shared tile's declaration: the tensor */
} Drawn;
static struct {
	bool active;
	int file, line;
	Drawn at[MAX_DRAWN];
	int n;
} want;

/* The record of s when --draw asks for it and lowering meets it for the first time (an unrolled loop or
   a device function's calls lower it again); else NULL. */
static Drawn *
wanted(Stmt *s)
{
	if (!want.active || s->loc.file != want.file || s->loc.first_line > want.line || s->loc.last_line < want.line)
		return NULL;
	for (int i = 0; i < want.n; i++)
		if (want.at[i].s == s)
			return NULL;
	if (want.n == MAX_DRAWN)
		return NULL;
	Drawn *d = &want.at[want.n++];
	memset(d, 0, sizeof *d);
	d->s = s;
	return d;
}

static Drawn *
drawn_of(const Stmt *s)
{
	for (int i = 0; i < want.n; i++)
		if (want.at[i].s == s)
			return &want.at[i];
	return NULL;
}

/* The observer of applies while drawing: records an apply of the line. */
static bool
draw_apply(Stmt *s, View **operands, int noperands, ApplyCtx *ctx)
{
	Drawn *d = wanted(s);
	if (!d)
		return true;
	d->maps[0] = apply_map(s, operands, noperands, ctx);
	d->nmaps = 1;
	return d->maps[0] != NULL;
}

/* The observer of copies while drawing: the applies a copy of the line chose, or its closest candidate. */
static void
draw_copy(Stmt *s, const ApplyInput *ins, int n, bool matched)
{
	Drawn *d = wanted(s);
	if (!d)
		return;
	d->copy = true;
	d->matched = matched;
	for (int i = 0; i < n && d->nmaps < MAX_MAPS; i++) {
		Mismatch mm;
		ApplyMap *m = apply_map_input(&ins[i], &mm);
		if (m)
			d->maps[d->nmaps++] = m;
	}
}

/* The observer of shared tile declarations while drawing. */
static void
draw_shared_tile(Stmt *s, const Tensor *t)
{
	Drawn *d = wanted(s);
	if (d)
		d->tile = t;
}

/* "[3,17]": a coordinate short enough for a cell. */
static void
short_coords(char *buf, size_t len, const Tensor *t, int e)
{
	char full[96];
	format_coords(full, sizeof full, t->rank, t->dims, e);
	size_t n = 0;
	for (const char *q = full; *q && n + 1 < len; q++)
		if (*q != ' ')
			buf[n++] = *q;
	buf[n] = 0;
}

/* Which element of a tmem tensor sits at each (lane, element column) of its layout; -1 for none. */
typedef struct Occupancy {
	int lanes, cols;
	int *elem;
} Occupancy;

static Occupancy
occupancy(const Tensor *t)
{
	Occupancy o = {0, 0, NULL};
	const Layout *l = t->layout;
	for (int e = 0; e < l->count; e++) {
		for (int r = 0; r < l->nrep; r++) {
			const int32_t *pl = LAYOUT_PLACE(l, e, r);
			if (pl[AX_TLANE] >= o.lanes)
				o.lanes = pl[AX_TLANE] + 1;
			if (pl[AX_TCOL] >= o.cols)
				o.cols = pl[AX_TCOL] + 1;
		}
	}
	o.elem = pool_alloc(sizeof(int) * (size_t)o.lanes * (size_t)o.cols);
	for (int i = 0; i < o.lanes * o.cols; i++)
		o.elem[i] = -1;
	for (int e = l->count - 1; e >= 0; e--) {
		for (int r = 0; r < l->nrep; r++) {
			const int32_t *pl = LAYOUT_PLACE(l, e, r);
			if (pl[AX_TLANE] >= 0 && pl[AX_TCOL] >= 0)
				o.elem[pl[AX_TLANE] * o.cols + pl[AX_TCOL]] = e;
		}
	}
	return o;
}

static int
occupant(const Occupancy *o, int lane, int col)
{
	if (lane < 0 || col < 0 || lane >= o->lanes || col >= o->cols)
		return -1;
	return o->elem[lane * o->cols + col];
}

static int
ntmem(const ApplyMap *m)
{
	return m->in.op.shape == SH_16X32BX2 ? 2 : 1;
}

/* A mismatch the check finds at one cell (not at a whole atom or the immediate). */
static bool
at_cell(const Mismatch *mm)
{
	return mm->kind == MM_OWNER || mm->kind == MM_PART || mm->kind == MM_WORD || mm->kind == MM_TMEM_HIGH ||
	       mm->kind == MM_TMEM_PLACE;
}

/* One warp's panel: for each access, the cells the image reaches from the base that the first
   element fixes (as the check does), what the layouts put there, and what does not match. */
static int
draw_warp(Picture *p, const ApplyMap *m, int wi, Occupancy *occ, bool copy)
{
	const Opcode *op = &m->in.op;
	int w = m->warps[wi], regs = opcode_regs(op), rows = shape_rows(op->shape), half = m->half;
	int units = opcode_atom_cols(op) * half;
	const Layout *rl = m->in.reg->base->layout;
	int nbad = 0, nnotes = 0;
	char notes[MAX_NOTES][256];
	Grid grids[2];
	for (int k = 0; k < ntmem(m); k++) {
		const View *tv = m->in.tmem[k];
		const Tensor *t = tv->base;
		const AtomVerdict *atom = &m->atom[wi * 2 + k];
		Grid *g = &grids[k];
		*g = grid_new(rows, units);
		g->parts = op->pack ? 1 : half;
		g->rep_units = shape_cols_per_rep(op->shape) * half;
		for (int lane = 0; lane < 32; lane++) {
			for (int r = 0; r < regs; r++) {
				ImageCell ic = image_cell(op, lane, r);
				if (ic.access != k)
					continue;
				for (int h = 0; h < half; h++) {
					int i = ((wi * 32 + lane) * regs + r) * half + h;
					const CellVerdict *v = &m->cell[i];
					int want_col = op->pack ? 2 * ic.col + h : ic.col;
					int lane_at = atom->lane + ic.row, col_at = atom->col + want_col;
					/* the register element paired with it: the thread of this warp that holds it (the same
					   lane in every warp when the layout names only laneid), else the thread the layout
					   names, and its slot */
					int re = m->in.reg->map[m->reg_index[i]];
					int thread = w * 32 + lane;
					int slot = layout_slot_in_thread(rl, re, thread);
					const int32_t *rp = LAYOUT_PLACE(rl, re, 0);
					int pt = layout_place_thread(rp), mine = w * 32 + pt % 32;
					int owner = slot >= 0 ? thread : layout_place_owned_by(rl, rp, mine) ? mine : pt;
					int shown_slot = slot >= 0 ? slot : rp[AX_M];
					Cell *c = &g->cells[ic.row * units + ic.col * half + h];
					c->colour = owner / 32 == w ? owner % 32 : -1;
					int held = occupant(occ + k, lane_at, col_at * half + (op->pack ? 0 : h));
					if (held >= 0)
						short_coords(c->text[0], sizeof c->text[0], t, held);
					else
						snprintf(c->text[0], sizeof c->text[0], "-");
					snprintf(c->text[1], sizeof c->text[1], "t%d m%d", owner, shown_slot);
					c->bad = v->kind != MM_NONE;
					const Mismatch *mm = &m->first;
					c->first = !m->matched && at_cell(mm) && mm->repeat == 0 && mm->warp == w && mm->lane == lane &&
					           mm->reg == r && mm->part == h;
					if (!c->bad)
						continue;
					nbad++;
					if (nnotes == MAX_NOTES)
						continue;
					/* a copy's applies have operands of tilec's making: name the elements in their tensors */
					char rc[96], tc[96];
					const Tensor *rt = m->in.reg->base;
					int te = tv->map[m->tmem_index[i]];
					if (copy) {
						format_coords(rc, sizeof rc, rt->rank, rt->dims, re);
						format_coords(tc, sizeof tc, t->rank, t->dims, te);
					} else {
						format_coords(rc, sizeof rc, m->in.reg->rank, m->in.reg->dims, m->reg_index[i]);
						format_coords(tc, sizeof tc, tv->rank, tv->dims, m->tmem_index[i]);
					}
					const char *rname = copy ? rt->name : m->in.reg->name;
					const char *tname = copy ? t->name : tv->name;
					char *n = notes[nnotes++];
					const char *part = half > 1 ? pool_printf(", part %d", h) : "";
					const char *at = pool_printf("lane %d, register %d%s: element", lane, r, part);
					if (v->kind == MM_OWNER)
						snprintf(n, 256, "%s %s of '%s' is owned by thread %d (warp %d, lane %d), not by thread %d", at,
						         rc, rname, v->thread, v->thread / 32, v->thread % 32, thread);
					else if (v->kind == MM_PART)
						snprintf(n, 256, "%s %s of '%s' is slot %d of thread %d; the image needs slot %d, part %d of "
						         "one register word", at, rc, rname, v->slot, thread, v->want_slot, h);
					else if (v->kind == MM_WORD)
						snprintf(n, 256, "%s %s of '%s' is in register word %d of thread %d, but lane 0 gives this "
						         "instruction register word %d", at, rc, rname, v->slot, thread, v->word0);
					else
						snprintf(n, 256, "%s %s of '%s' is at TMEM lane %d, column %d (part %d); the image needs lane "
						         "%d, column %d (part %d)", at, tc, tname, t->lane_offset + v->tlane,
						         t->col_offset + v->tcol, v->tpart, t->lane_offset + v->need_lane,
						         t->col_offset + v->need_col, op->pack ? 0 : h);
				}
			}
		}
		int base_lane = atom->lane, base_col = atom->col;
		g->row0 = t->lane_offset + base_lane;
		g->col0 = t->col_offset + base_col;
		int slab = 32 * (w % 4), first = g->row0;
		bool slab_ok = atom->kind != MM_SLAB;
		g->title_bad = !slab_ok;
		bool same = !tv->name || strcmp(tv->name, t->name) == 0;
		g->title = pool_printf("%s'%s'%s: TMEM lanes %d..%d, columns %d..%d%s",
		                       ntmem(m) == 2 ? (k ? "access 1, " : "access 0, ") : "", same ? t->name : tv->name,
		                       same ? "" : pool_printf(" (of '%s')", t->name), first, first + rows - 1, g->col0, g->col0 + opcode_tmem_cols(op) - 1,
		                       slab_ok ? "" : pool_printf(" - outside the lanes of warp %d's slab (%d..%d, and "
		                                                  "starting at its lane %s)", w, slab, slab + 31,
		                                                  op->shape == SH_32X32B ? "0" : "0 or 16"));
	}
	p->y += 14;
	line_of_text(p, "sub", 12, "Warp %d (threads %d..%d)%s", w, 32 * w, 32 * w + 31,
	             nbad ? pool_printf(": %d cell%s not matching the image", nbad, nbad == 1 ? "" : "s") : "");
	for (int k = 0; k < ntmem(m); k++)
		draw_grid(p, &grids[k]);
	for (int i = 0; i < nnotes; i++)
		line_of_text(p, "sub red", 11, "%s", notes[i]);
	if (nbad > nnotes)
		line_of_text(p, "sub red", 11, "... and %d more", nbad - nnotes);
	return nbad;
}

/* What the check says, in one line: the error it reports is on standard error. */
static void
verdict(Picture *p, const ApplyMap *m)
{
	const Mismatch *mm = &m->first;
	if (m->matched) {
		line_of_text(p, "sub", 12, "The check accepts this apply.");
		return;
	}
	const char *why;
	if (at_cell(mm) && mm->repeat == 0)
		why = pool_printf("its first mismatch is lane %d, register %d of warp %d (the thick dashed frame)", mm->lane,
		                  mm->reg, mm->warp);
	else if (at_cell(mm))
		why = pool_printf("its first mismatch is in repeat %d of warp %d, which is not drawn (the picture shows "
		                  "repeat 0)", mm->repeat, mm->warp);
	else if (mm->kind == MM_SLAB)
		why = pool_printf("the atom of warp %d starts at a TMEM lane that warp may not access", mm->warp);
	else if (mm->kind == MM_COLUMNS)
		why = pool_printf("warp %d reaches TMEM columns %d..%d, past the %d available", mm->warp, mm->col_first,
		                  mm->col_first + opcode_tmem_cols(&m->in.op) - 1, mm->col_limit);
	else if (mm->kind == MM_SPLIT)
		why = "its two tmem operands lie in different allocations";
	else if (mm->kind == MM_OVERLAP)
		why = "its two accesses store to the same TMEM cells";
	else
		why = "imm_half_splitoff does not match the distance between its two tmem operands";
	line_of_text(p, "sub red", 12, "The check refuses this apply: %s; tilec prints its error.", why);
}

/* One apply's panels: what it is, a panel per warp, and the check's verdict. */
static void
draw_map(Picture *p, const ApplyMap *m, bool copy)
{
	char name[96];
	opcode_format(&m->in.op, name, sizeof name);
	Occupancy occ[2];
	for (int k = 0; k < ntmem(m); k++)
		occ[k] = occupancy(m->in.tmem[k]->base);
	int bad = 0;
	for (int wi = 0; wi < m->nwarps; wi++)
		bad += draw_warp(p, m, wi, occ, copy);
	p->y += 8;
	if (bad)
		line_of_text(p, "sub red", 12, "%d cell%s do%s not match the image of %s.", bad, bad == 1 ? "" : "s",
		             bad == 1 ? "es" : "", name);
	else
		line_of_text(p, "sub", 12, "Every cell drawn matches the image of %s.", name);
	verdict(p, m);
}

/* "OPCODE, S scope, warps ...": the line that says which apply a set of panels shows. */
static void
map_line(Picture *p, const ApplyMap *m, const char *before)
{
	char name[96];
	opcode_format(&m->in.op, name, sizeof name);
	ScopeKind sk = m->in.scope;
	const char *scope = sk == SCOPE_WARP ? "warp" : sk == SCOPE_WARPGROUP ? "warpgroup" : "cta";
	Buf warps = {0};
	for (int i = 0; i < m->nwarps; i++)
		buf_printf(&warps, "%s%d", i ? ", " : "", m->warps[i]);
	line_of_text(p, "sub", before[0] ? 12 : 11, "%s%s, %s scope, warp%s %s: one panel per warp, "
	             "its first repeat (of %d).", before, name, scope, m->nwarps == 1 ? "" : "s", warps.data, m->repeats);
	buf_free(&warps);
}

/* A shared tile: the byte address of each element of its first tile (up to TILE_DRAWN rows and columns)
   from the tile's start, coloured by the 16-byte chunk, so that the swizzle shows as the order of the
   chunks along each line; heavier lines between atoms along the columns. */
enum { TILE_DRAWN = 64 };
static void
draw_tile(Picture *p, const Tensor *t)
{
	const SmemTile *tile = t->tile;
	int rows = tile->rows < TILE_DRAWN ? tile->rows : TILE_DRAWN, cols = tile->cols < TILE_DRAWN ? tile->cols : TILE_DRAWN;
	int atom_rows, atom_cols;
	smem_atom_shape(tile, &atom_rows, &atom_cols);
	line_of_text(p, "sub", 11, "Shared tile '%s': %s[%d, %d]%s, %u bytes from a start aligned to %d bytes; an atom is "
	             "%d rows by %d columns.", t->name, etype_name(t->type), tile->rows, tile->cols, smem_tile_text(tile),
	             smem_tile_bytes(tile), smem_tensor_align(t), atom_rows, atom_cols);
	line_of_text(p, "sub", 11, "Each cell: the byte address of element [row, column] from the tile's start. Colour: its "
	             "16-byte chunk (address / 16, modulo 32); the cells of one chunk share a colour.");
	if (rows < tile->rows || cols < tile->cols || t->count > tile->rows * tile->cols)
		line_of_text(p, "sub", 11, "Drawn: rows 0 to %d and columns 0 to %d%s.", rows - 1, cols - 1,
		             t->count > tile->rows * tile->cols ? " of the first tile of the stack (the others follow it)" : "");
	Grid g = grid_new(rows, cols);
	g.rep_units = atom_cols;
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			Cell *cell = &g.cells[r * cols + c];
			uint32_t addr = smem_tile_addr(tile, r, c);
			cell->colour = (int)(addr / 16 % 32);
			snprintf(cell->text[0], sizeof cell->text[0], "%u", addr);
		}
	draw_grid(p, &g);
}

/* An apply (one map), or a copy: the applies it chose, one after the other. */
static void
draw_statement(Picture *p, const Drawn *d)
{
	ApplyMap *const *maps = d->maps;
	int n = d->nmaps;
	const ApplyMap *m = maps[0];
	if (d->copy)
		line_of_text(p, "sub", 11, "%s", d->matched ? pool_printf("tilec does this copy with %d apply statement%s, "
		                                                          "drawn below.", n, n == 1 ? "" : "s")
		                                            : "No instruction matches this copy; below, the closest candidate "
		                                              "tilec tried, as an apply.");
	else
		map_line(p, m, "");
	const char *tnames = ntmem(m) == 2 && m->in.tmem[0]->base != m->in.tmem[1]->base ? pool_printf("'%s' and '%s'", m->in.tmem[0]->base->name, m->in.tmem[1]->base->name)
	                                   : pool_printf("'%s'", m->in.tmem[0]->base->name);
	line_of_text(p, "sub", 11, "Each cell: the element of %s it holds (-: none); below, the thread that owns the element "
	             "of '%s' the image pairs with it (tN) and its register slot (mN).", tnames, m->in.reg->base->name);
	line_of_text(p, "sub", 11, "Rows are TMEM lanes, columns TMEM columns%s.",
	             m->in.op.pack ? " (each 16-bit element in the low half of its own cell)"
	             : m->half > 1 ? pool_printf(", split into the %d-bit parts of each 32-bit cell", 32 / m->half) : "");
	legend(p, "Colour: the owning thread's lane in its warp.", true);
	for (int i = 0; i < n; i++) {
		if (d->copy) {
			p->y += 14;
			map_line(p, maps[i], n > 1 ? pool_printf("apply %d of %d: ", i + 1, n) : "apply ");
		}
		draw_map(p, maps[i], d->copy);
	}
}

/* Why a statement of the line has no picture, for the text of a picture of the others. */
static const char *
undrawn_why(const Stmt *s, const Drawn *d, bool errors)
{
	if (s->kind == S_SHARED)
		return "its declaration was not accepted";
	if (d && d->copy)
		return "no candidate instruction fits its operands";
	if (d)
		return "its operands do not fit the instruction";
	if (s->kind == S_COPY && !errors)
		return "it moves data between registers and memory, with no tcgen05 instruction to draw";
	return "it was not checked";
}

/* The picture of the statements of a line (found, in source order): each that has cells, one after the
   other; a line of text for each that has none. */
static void
draw_mapping(Stmt **found, int nfound, Buf *out)
{
	Picture p = {0};
	const char *title = source_line_of(found[0]->loc, false);
	line_of_text(&p, "title", 15, "%s", title);
	for (int i = 0; i < nfound; i++) {
		const char *what = found[i]->kind == S_COPY ? "a copy" : found[i]->kind == S_SHARED ? "a shared tile" : "an apply";
		const Drawn *d = drawn_of(found[i]);
		bool cells = d && ((d->nmaps && d->maps[0]) || d->tile);
		if (nfound > 1) {
			p.y += i ? 14 : 0;
			line_of_text(&p, "sub", 13, "Statement %d of %d on this line, at column %d: %s%s.", i + 1, nfound,
			             found[i]->loc.first_column, what,
			             cells ? "" : pool_printf(", not drawn: %s", undrawn_why(found[i], d, error_count)));
		}
		if (cells && d->tile)
			draw_tile(&p, d->tile);
		else if (cells)
			draw_statement(&p, d);
	}
	finish(&p, title, out);
}

/* ------------------------------------------------------------------ the command */

static void
stmts_at(List *stmts, int file, int line, List *found, Buf *lines)
{
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		if ((s->kind == S_APPLY || s->kind == S_COPY || (s->kind == S_SHARED && s->layout)) && s->loc.file == file) {
			if (s->loc.first_line <= line && s->loc.last_line >= line)
				list_push(found, s);
			buf_printf(lines, "%s%d", lines->len ? ", " : "", s->loc.first_line);
		}
		stmts_at(&s->body, file, line, found, lines);
		stmts_at(&s->else_body, file, line, found, lines);
	}
}

static int
stmt_cmp(const void *pa, const void *pb)
{
	const Stmt *a = *(Stmt *const *)pa, *b = *(Stmt *const *)pb;
	if (a->loc.first_line != b->loc.first_line)
		return a->loc.first_line < b->loc.first_line ? -1 : 1;
	return (a->loc.first_column > b->loc.first_column) - (a->loc.first_column < b->loc.first_column);
}

static int
draw_file_line(const char *path, int line, List *include_dirs, const Arch *arch, Buf *svg)
{
	int file = source_count();
	List items = {0};
	if (!pipeline_read(path, include_dirs, &items, NULL))
		return 1;
	size_t len;
	const char *text = source_text(file, &len);
	int nlines = len && text[len - 1] != '\n' ? 1 : 0;
	for (size_t i = 0; i < len; i++)
		nlines += text[i] == '\n';
	if (line > nlines) {
		error(no_loc, "%s has %d line%s; there is no line %d to draw", path, nlines,
		      nlines == 1 ? "" : "s", line);
		return 1;
	}
	List found = {0}; /* Stmt*: the applies and copies on the line */
	Buf lines = {0};
	for (int i = 0; i < items.n; i++) {
		Item *it = LIST_AT(items, Item, i);
		if (it->kind == I_KERNEL || it->kind == I_DEVICE) /* a device function's apply as its own lowering sees it */
			stmts_at(&it->kernel->body, file, line, &found, &lines);
	}
	if (!found.n) {
		const char *at = text;
		for (int l = 1; l < line; at++)
			l += *at == '\n';
		int col = 1;
		while (at[col - 1] == ' ' || at[col - 1] == '\t')
			col++;
		Loc loc = {line, col, line, col, file};
		error(loc, "no apply or copy at line %d to draw%s%s", line,
		      lines.len ? "; this file has applies or copies at lines " : "", lines.len ? lines.data : "");
		buf_free(&lines);
		return 1;
	}
	buf_free(&lines);
	Stmt **stmts = (Stmt **)found.v;
	qsort(stmts, (size_t)found.n, sizeof *stmts, stmt_cmp);
	want.active = true;
	want.file = file;
	want.line = line;
	want.n = 0;
	scratch_hold(true); /* the apply's views are drawn after lowering */
	pipeline_lower(&items, path, &(LowerOptions){.observer = &(LowerObserver){draw_apply, draw_copy, draw_shared_tile}, .arch = arch});
	want.active = false;
	for (int i = 0; i < found.n; i++) {
		const Drawn *d = drawn_of(stmts[i]);
		if (d && ((d->nmaps && d->maps[0]) || d->tile)) {
			draw_mapping(stmts, found.n, svg);
			return 0;
		}
	}
	/* nothing to draw: why, for each statement of the line (the errors before these) */
	bool errors = error_count;
	for (int i = 0; i < found.n; i++) {
		const Drawn *d = drawn_of(stmts[i]);
		const char *what = stmts[i]->kind == S_COPY ? "copy" : stmts[i]->kind == S_SHARED ? "shared tile" : "apply";
		const char *at = found.n > 1 ? pool_printf("%s:%d:%d", path, line, stmts[i]->loc.first_column)
		                             : pool_printf("%s:%d", path, line);
		error(no_loc, "cannot draw the %s at %s: %s%s", what, at, undrawn_why(stmts[i], d, errors),
		      d ? " (see above)" : errors ? " because of the errors above" : "");
	}
	return 1;
}

int
draw_command(const char *what, List *include_dirs, const Arch *arch, Buf *svg)
{
	CpForm form;
	int status;
	if (cp_form_of_option(what, &form, &status)) {
		if (status == 0)
			draw_cp_form(&form, svg);
		return status;
	}
	if (strncmp(what, "tcgen05.", 8) == 0) {
		Opcode op;
		char why[256];
		if (!opcode_parse(what, &op, why, sizeof why)) {
			error(no_loc, "%s", why);
			return 2;
		}
		draw_opcode(&op, svg);
		return 0;
	}
	const char *colon = strrchr(what, ':');
	long line = 0;
	if (colon && colon > what && colon[1]) {
		const char *d = colon + 1;
		while (*d >= '0' && *d <= '9' && line <= 10000000)
			line = line * 10 + (*d++ - '0');
		if (*d)
			line = 0;
	}
	if (line < 1 || line > 10000000) {
		error(no_loc, "--draw takes a %s or %s opcode, or FILE.tile:LINE with a line number from 1; "
		      "not '%s' (see tilec --help)", isa_name(TC_LD, 0), isa_name(TC_ST, 0), what);
		return 2;
	}
	return draw_file_line(pool_strndup(what, (size_t)(colon - what)), (int)line, include_dirs, arch, svg);
}
