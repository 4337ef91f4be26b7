/* apply.c: checks an apply of tcgen05.ld / tcgen05.st against its image and lowers it per warp and repeat. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* The check itself is quiet: apply_match returns the first mismatch as data, and apply_report turns
   it into diagnostics, so that copy can try many candidate instructions without printing. */

typedef struct Operand {
	View *view;
	int half;        /* elements per 32-bit word: 1, 2 or 4 */
	int repeat_at;   /* first repeat dimension */
} Operand;

typedef struct Check {
	const ApplyInput *in;
	Opcode op;
	int group;       /* group extent, 0 for warp scope */
	int nrepeat;
	int repeat_dims[MAX_RANK];
	int repeats;     /* product of repeat_dims */
	Operand reg, tmem[2];
	int ntmem;
	uint32_t imm;
	bool imm_known;
	ImageCell *cells; /* [lane * registers + r] */
	int *reg_inner, *tmem_inner; /* each cell's index inside its operand's atom */
	Mismatch *mm;
	Loc loc;         /* of the statement, for the lowered code */
} Check;

typedef ApplyIssue Issue;

/* The operand's expected suffix after the group and repeat dimensions. */
static int
atom_dims(const Opcode *op, bool is_reg, int half, int *dims)
{
	int n = 0;
	if (op->shape == SH_16X32BX2 && is_reg)
		dims[n++] = 2;
	dims[n++] = shape_rows(op->shape);
	dims[n++] = opcode_atom_cols(op);
	if (half > 1)
		dims[n++] = half;
	return n;
}

static bool
check_operand_shape(Check *c, Operand *o, bool is_reg, int operand)
{
	int bits = etype_bits(o->view->base->type);
	o->half = 32 / bits;
	int atom[4];
	int natom = atom_dims(&c->op, is_reg, o->half, atom);
	int lead = c->group ? 1 : 0;
	View *v = o->view;
	int nrep = v->rank - lead - natom;
	bool ok = nrep >= 0 && (!c->group || v->dims[0] == c->group);
	for (int i = 0; ok && i < natom; i++)
		ok = v->dims[lead + nrep + i] == atom[i];
	if (!ok) {
		c->mm->kind = MM_SHAPE;
		c->mm->operand = operand;
		return false;
	}
	o->repeat_at = lead;
	if (is_reg) {
		c->nrepeat = nrep;
		c->repeats = 1;
		for (int i = 0; i < nrep; i++) {
			c->repeat_dims[i] = v->dims[lead + i];
			c->repeats *= v->dims[lead + i];
		}
	} else {
		bool same = nrep == c->nrepeat;
		for (int i = 0; same && i < nrep; i++)
			same = v->dims[lead + i] == c->repeat_dims[i];
		if (!same) {
			c->mm->kind = MM_REPEAT;
			c->mm->operand = operand;
			return false;
		}
	}
	return true;
}

/* Builds the operand coordinate of (group, repeat, atom...) into coord; returns the rank. */
static int
operand_coord(const Check *c, int gi, int repeat, const int *atom, int natom, int *coord)
{
	int n = 0;
	if (c->group)
		coord[n++] = gi;
	int rest = repeat;
	for (int i = c->nrepeat - 1; i >= 0; i--) {
		coord[n + i] = rest % c->repeat_dims[i];
		rest /= c->repeat_dims[i];
	}
	n += c->nrepeat;
	for (int i = 0; i < natom; i++)
		coord[n++] = atom[i];
	return n;
}

/* The operand's row-major index of (group, repeat, atom..., half): its trailing dims are the atom. */
static int
operand_flat(const Check *c, const Operand *o, bool is_reg, int gi, int repeat, ImageCell cell, int h)
{
	int rows = shape_rows(c->op.shape), cols = opcode_atom_cols(&c->op);
	int accesses = is_reg && c->op.shape == SH_16X32BX2 ? 2 : 1;
	int atom = accesses * rows * cols * o->half;
	int prefix = (c->group ? gi * c->repeats : 0) + repeat;
	int inner = ((accesses == 2 ? cell.access * rows : 0) + cell.row) * cols + cell.col;
	return prefix * atom + inner * o->half + h;
}

static int
group_index(const Check *c, int w)
{
	return c->in->scope == SCOPE_CTA ? w : w % 4;
}

/* Fills the mismatch's place: which element, and where the image puts it. */
static bool
mismatch(Check *c, MismatchKind kind, int operand, Issue *is, int gi, int lane, int reg, ImageCell cell, int h)
{
	Mismatch *mm = c->mm;
	mm->kind = kind;
	mm->operand = operand;
	mm->warp = is->warp;
	mm->repeat = is->repeat;
	mm->lane = lane;
	mm->reg = reg;
	mm->part = h;
	mm->cell = cell;
	int atom[4], n = 0;
	if (operand == 0 && c->op.shape == SH_16X32BX2)
		atom[n++] = cell.access;
	atom[n++] = cell.row;
	atom[n++] = cell.col;
	if ((operand == 0 ? c->reg.half : c->tmem[operand - 1].half) > 1)
		atom[n++] = h;
	mm->rank = operand_coord(c, gi, is->repeat, atom, n, mm->coord);
	return false;
}

static bool
check_register(Check *c, Issue *is, int gi, int lane, int reg, ImageCell cell, int word0[])
{
	Operand *o = &c->reg;
	Layout *l = o->view->base->layout;
	int thread = is->warp * 32 + lane;
	int word = -1;
	for (int h = 0; h < o->half; h++) {
		int e = o->view->map[operand_flat(c, o, true, gi, is->repeat, cell, h)];
		const int32_t *place = LAYOUT_PLACE(l, e, 0);
		int slot = l->nrep == 1 ? (layout_place_owned_by(l, place, thread) ? place[AX_M] : -1)
		                        : layout_slot_in_thread(l, e, thread);
		if (slot < 0) {
			c->mm->thread = layout_place_thread(LAYOUT_PLACE(l, e, 0));
			return mismatch(c, MM_OWNER, 0, is, gi, lane, reg, cell, h);
		}
		if (slot % o->half != h || (word >= 0 && slot / o->half != word)) {
			c->mm->thread = thread;
			c->mm->slot = slot;
			c->mm->want_slot = (word >= 0 ? word : slot / o->half) * o->half + h;
			return mismatch(c, MM_PART, 0, is, gi, lane, reg, cell, h);
		}
		word = slot / o->half;
	}
	if (lane == 0 || word0[reg] < 0) { /* < 0: lane 0 failed (apply_map_input goes on after failures) */
		word0[reg] = word;
	} else if (word0[reg] != word) {
		c->mm->word0 = word0[reg];
		c->mm->slot = word;
		return mismatch(c, MM_WORD, 0, is, gi, lane, reg, cell, 0);
	}
	return true;
}

typedef struct Base {
	bool set;
	int lane, col;
	int first_lane, first_col; /* where the first element is */
	int first_rank, first[MAX_RANK];
} Base;

static bool
check_tmem(Check *c, Issue *is, int k, int gi, int lane_of_image, int reg, ImageCell cell, Base *base)
{
	Operand *o = &c->tmem[k];
	Tensor *t = o->view->base;
	Layout *l = t->layout;
	for (int h = 0; h < o->half; h++) {
		int e = o->view->map[operand_flat(c, o, false, gi, is->repeat, cell, h)];
		const int32_t *place = LAYOUT_PLACE(l, e, 0);
		int lane = place[AX_TLANE], tcol = place[AX_TCOL];
		/* the cell (and half) the element occupies */
		int cellx, part;
		if (c->op.pack) {
			cellx = tcol / 2;
			part = tcol % 2;
		} else {
			cellx = tcol / o->half;
			part = tcol % o->half;
		}
		int want_col = c->op.pack ? 2 * cell.col + h : cell.col;
		if (!base->set) {
			base->set = true;
			base->lane = lane - cell.row;
			base->col = cellx - want_col;
			base->first_lane = lane;
			base->first_col = cellx;
			int atom[3] = {cell.row, cell.col, h};
			base->first_rank = operand_coord(c, gi, is->repeat, atom, o->half > 1 ? 3 : 2, base->first);
		}
		bool bad_part = c->op.pack ? part != 0 : part != h;
		if (lane != base->lane + cell.row || cellx != base->col + want_col || bad_part) {
			Mismatch *mm = c->mm;
			mm->tlane = lane;
			mm->tcol = cellx;
			mm->tpart = part;
			mm->need_lane = base->lane + cell.row;
			mm->need_col = base->col + want_col;
			mm->base_lane = base->lane;
			mm->base_col = base->col;
			mm->base_rank = base->first_rank;
			memcpy(mm->base_coord, base->first, sizeof base->first);
			return mismatch(c, c->op.pack && part != 0 ? MM_TMEM_HIGH : MM_TMEM_PLACE, 1 + k, is, gi,
			                lane_of_image, reg, cell, h);
		}
	}
	return true;
}

static bool
check_slab(Check *c, Issue *is, Base *b, int k)
{
	Tensor *t = c->tmem[k].view->base;
	int lane = t->lane_offset + b->lane;
	int slab = 32 * (is->warp % 4);
	bool ok;
	if (c->op.shape == SH_32X32B)
		ok = lane == slab;
	else if (c->op.shape == SH_16X32BX2)
		ok = lane >= slab && lane <= slab + 16;
	else
		ok = lane == slab || lane == slab + 16;
	Mismatch *mm = c->mm;
	if (!ok) {
		mm->kind = MM_SLAB;
		mm->operand = 1 + k;
		mm->warp = is->warp;
		mm->repeat = is->repeat;
		mm->base_rank = b->first_rank;
		memcpy(mm->base_coord, b->first, sizeof b->first);
		mm->base_lane = b->lane;
		mm->base_col = b->col;
		mm->base_tlane = b->first_lane;
		mm->base_tcol = b->first_col;
		return false;
	}
	int cols = opcode_tmem_cols(&c->op);
	int first = t->col_offset + b->col;
	int limit = t->alloc && t->alloc->ncols ? t->alloc->ncols : TMEM_COLS;
	if (first < 0 || first + cols > limit) {
		mm->kind = MM_COLUMNS;
		mm->operand = 1 + k;
		mm->warp = is->warp;
		mm->repeat = is->repeat;
		mm->col_first = first;
		mm->col_limit = limit;
		return false;
	}
	return true;
}

static bool
check_issue(Check *c, Issue *is)
{
	int gi = group_index(c, is->warp);
	int nregs = opcode_regs(&c->op);
	Base base[2] = {{0}};
	/* The common case (one place per element, 32-bit data) is checked inline; anything unusual, and
	   every failure, goes through check_register / check_tmem, which also find the mismatch. */
	const Layout *rl = c->reg.view->base->layout;
	bool fast = rl->nrep == 1 && c->reg.half == 1 && c->tmem[0].half == 1 && !c->op.pack;
	int reg_prefix = operand_flat(c, &c->reg, true, gi, is->repeat, (ImageCell){0, 0, 0}, 0);
	int tm_prefix = operand_flat(c, &c->tmem[0], false, gi, is->repeat, (ImageCell){0, 0, 0}, 0);
	for (int lane = 0; lane < 32; lane++) {
		int thread = is->warp * 32 + lane;
		for (int r = 0; r < nregs; r++) {
			ImageCell cell = c->cells[lane * nregs + r];
			int k = c->ntmem == 2 ? cell.access : 0;
			if (fast && base[k].set) {
				int idx = lane * nregs + r;
				const int32_t *place = LAYOUT_PLACE(rl, c->reg.view->map[reg_prefix + c->reg_inner[idx]], 0);
				int slot = layout_place_owned_by(rl, place, thread) ? place[AX_M] : -1;
				const Layout *tl = c->tmem[k].view->base->layout;
				const int32_t *tp = LAYOUT_PLACE(tl, c->tmem[k].view->map[tm_prefix + c->tmem_inner[idx]], 0);
				if (slot >= 0 && (lane ? is->words[r] == slot : (is->words[r] = slot, true)) &&
				    tp[AX_TLANE] == base[k].lane + cell.row && tp[AX_TCOL] == base[k].col + cell.col)
					continue;
			}
			if (!check_register(c, is, gi, lane, r, cell, is->words))
				return false;
			if (!check_tmem(c, is, k, gi, lane, r, cell, &base[k]))
				return false;
		}
	}
	for (int k = 0; k < c->ntmem; k++) {
		if (!check_slab(c, is, &base[k], k))
			return false;
		is->lane[k] = base[k].lane;
		is->col[k] = base[k].col;
	}
	is->offset = ((uint32_t)base[0].lane << 16) + (uint32_t)base[0].col;
	if (c->ntmem == 2) {
		uint32_t high = ((uint32_t)base[1].lane << 16) + (uint32_t)base[1].col;
		/* the high operand may be another tensor: compare physical addresses relative to the low one's base */
		Tensor *tl = c->tmem[0].view->base, *th = c->tmem[1].view->base;
		uint32_t imm = high - is->offset;
		if (tl != th) {
			uint32_t dl = ((uint32_t)tl->lane_offset << 16) + (uint32_t)tl->col_offset;
			uint32_t dh = ((uint32_t)th->lane_offset << 16) + (uint32_t)th->col_offset;
			bool same_alloc = tl->alloc && tl->alloc == th->alloc;
			if (!same_alloc) {
				c->mm->kind = MM_SPLIT;
				c->mm->operand = 2;
				return false;
			}
			imm = high + dh - (is->offset + dl);
		}
		bool first = !c->imm_known;
		if (first) {
			c->imm_known = true;
			if (!c->in->imm_given)
				c->imm = imm;
		}
		if (c->imm != imm) {
			c->mm->kind = c->in->imm_given ? MM_IMM : MM_IMM_VARIES;
			c->mm->operand = 2;
			c->mm->warp = is->warp;
			c->mm->repeat = is->repeat;
			c->mm->imm = c->imm;
			c->mm->imm_got = imm;
			c->mm->first = first;
			return false;
		}
		/* a store whose accesses share cells writes them twice, in an unspecified order */
		int lane_lo = tl->lane_offset + base[0].lane, col_lo = tl->col_offset + base[0].col;
		int lane_hi = th->lane_offset + base[1].lane, col_hi = th->col_offset + base[1].col;
		int cols = opcode_tmem_cols(&c->op);
		if (!c->op.is_ld && abs(lane_lo - lane_hi) < 16 && abs(col_lo - col_hi) < cols) {
			c->mm->kind = MM_OVERLAP;
			c->mm->operand = 2;
			c->mm->warp = is->warp;
			c->mm->repeat = is->repeat;
			c->mm->col_first = lane_lo > lane_hi ? lane_lo : lane_hi;
			c->mm->col_limit = col_lo > col_hi ? col_lo : col_hi;
			return false;
		}
	}
	return true;
}

/* True when dims (rank n) end in the atom, after the group extent when there is one. */
static bool
ends_in_atom(const ApplyInput *in, const int *dims, int n, const int *atom, int natom)
{
	int lead = in->group ? 1 : 0;
	if (n - lead - natom < 0 || (in->group && dims[0] != in->group))
		return false;
	for (int i = 0; i < natom; i++)
		if (dims[n - natom + i] != atom[i])
			return false;
	return true;
}

/* After a shape error: the .xN whose atom the operand has, else the rearrange that splits a repeat
 * axis off its columns. */
static void
note_shape_fix(const ApplyInput *in, const View *v, const char *name, bool is_reg, int half, Loc loc)
{
	int atom[4], natom;
	for (int n = 1; n <= shape_max_n(in->op.shape); n *= 2) {
		Opcode alt = in->op;
		alt.n = n;
		char text[96], why[8];
		opcode_format(&alt, text, sizeof text);
		if (n == in->op.n || !opcode_parse(text, &alt, why, sizeof why))
			continue;
		natom = atom_dims(&alt, is_reg, half, atom);
		if (ends_in_atom(in, v->dims, v->rank, atom, natom)) {
			char atomtext[64];
			format_list(atomtext, sizeof atomtext, '(', atom, natom, ')');
			note(loc, "with .x%d the atom is %s, as '%s' has it: %s", n, atomtext, name, text);
			return;
		}
	}
	natom = atom_dims(&in->op, is_reg, half, atom);
	int cols = natom - (half > 1 ? 2 : 1); /* the atom's column axis */
	int split = v->rank - natom + cols;   /* the operand's axis in its place */
	if (split < (in->group ? 1 : 0) || v->dims[split] <= atom[cols] || v->dims[split] % atom[cols] ||
	    v->rank >= MAX_RANK)
		return;
	int want[MAX_RANK];
	memcpy(want, v->dims, sizeof want[0] * (size_t)v->rank);
	want[split] = atom[cols];
	if (!ends_in_atom(in, want, v->rank, atom, natom))
		return;
	/* "a b (rep c) -> a rep b c": the new repeat axis goes after the group and the other repeat axes */
	Buf pin = {0}, pout = {0};
	for (int i = 0; i < v->rank; i++) {
		buf_printf(&pin, i == split ? "%s(rep %c)" : "%s%c", i ? " " : "", 'a' + i);
		if (i == v->rank - natom)
			buf_puts(&pout, pout.len ? " rep" : "rep");
		buf_printf(&pout, "%s%c", pout.len ? " " : "", 'a' + i);
	}
	note(loc, "a repeat axis split off the columns gives that shape: %s.rearrange(\"%s -> %s\", %c = %d)%s", name,
	     pin.data, pout.data, 'a' + split, atom[cols], is_reg ? ", and the tmem operand needs the same" : "");
	buf_free(&pin);
	buf_free(&pout);
}

/* The first line of a report: an error of its own, or a note under the error of a copy. */
static void __attribute__((format(printf, 3, 4)))
headline(bool as_note, Loc loc, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (as_note)
		note(loc, "%s", text);
	else
		error(loc, "%s", text);
}

void
apply_report(const ApplyInput *in, const Mismatch *mm, Loc loc, Loc imm_loc, bool as_notes)
{
	char text[96], where[96], first[96];
	opcode_format(&in->op, text, sizeof text);
	const Opcode *op = &in->op;
	View *v = mm->operand == 0 ? in->reg : in->tmem[mm->operand - 1];
	const char *name = v->name;
	int half = 32 / etype_bits(v->base->type);
	format_list(where, sizeof where, '[', mm->coord, mm->rank, ']');
	format_list(first, sizeof first, '[', mm->base_coord, mm->base_rank, ']');
	switch (mm->kind) {
	case MM_NONE:
		return;
	case MM_SHAPE: {
		char got[96], atomtext[64], need[256];
		int atom[4];
		int natom = atom_dims(op, mm->operand == 0, half, atom);
		format_list(got, sizeof got, '(', v->dims, v->rank, ')');
		format_list(atomtext, sizeof atomtext, '(', atom, natom, ')');
		/* the whole rule in one line: group, repeat axes, atom, half axis */
		snprintf(need, sizeof need, "%s[repeat axes...] + %s%s%s", in->group ? pool_printf("(%d) + ", in->group) : "",
		         atomtext, in->group ? pool_printf(" (the %d warps of the scope, then the atom", in->group) : " (the atom",
		         half > 1 ? pool_printf(" with the half axis of %s)", etype_name(v->base->type)) : ")");
		headline(as_notes, loc, "%s operand '%s' has shape %s, but %s takes %s", mm->operand ? "tmem" : "register", name, got,
		      text, need);
		note_shape_fix(in, v, name, mm->operand == 0, half, loc);
		return;
	}
	case MM_REPEAT: {
		char got[96], rep[96];
		int atom[4];
		int lead = in->group ? 1 : 0;
		int nrep = in->reg->rank - lead - atom_dims(op, true, 32 / etype_bits(in->reg->base->type), atom);
		format_list(got, sizeof got, '(', v->dims, v->rank, ')');
		format_list(rep, sizeof rep, '(', in->reg->dims + lead, nrep, ')');
		headline(as_notes, loc, "%s operand '%s' has shape %s; its repeat axes must be %s, as in the register operand", "tmem",
		      name, got, rep);
		return;
	}
	case MM_OWNER:
		headline(as_notes, loc, "register operand '%s' does not match the image of %s", name, text);
		if (op->shape == SH_16X32BX2)
			note(loc, "element %s is owned by thread %d (warp %d, lane %d); the image puts access %d, "
			          "row %d, column %d of warp %d in lane %d, register %d", where, mm->thread, mm->thread / 32,
			     mm->thread % 32, mm->cell.access, mm->cell.row, mm->cell.col, mm->warp, mm->lane, mm->reg);
		else
			note(loc, "element %s is owned by thread %d (warp %d, lane %d); the image puts row %d, "
			          "column %d of warp %d in lane %d, register %d", where, mm->thread, mm->thread / 32,
			     mm->thread % 32, mm->cell.row, mm->cell.col, mm->warp, mm->lane, mm->reg);
		return;
	case MM_PART:
		headline(as_notes, loc, "register operand '%s' does not match the image of %s", name, text);
		note(loc, "element %s is slot %d of thread %d; as part %d of register %d it must be slot %d of "
		          "a 32-bit register (%d %d-bit parts per register)", where, mm->slot, mm->thread, mm->part, mm->reg,
		     mm->want_slot, half, 32 / half);
		return;
	case MM_WORD:
		headline(as_notes, loc, "register operand '%s' does not fit one instruction of %s", name, text);
		note(loc, "register %d is register word %d in lane 0 but word %d in lane %d of warp %d; one "
		          "instruction names the same register in every lane", mm->reg, mm->word0, mm->slot, mm->lane,
		     mm->warp);
		return;
	case MM_TMEM_HIGH:
		headline(as_notes, loc, "tmem operand '%s' does not match the image of %s", name, text);
		note(loc, "element %s is the high half of TMEM cell (lane %d, column %d); with .%s each "
		          "16-bit element takes the low half of its own cell (strides 4@TCol and 2@TCol in "
		          "16-bit units); this layout packs two elements into one cell (dense 16-bit), "
		          "which is what the instruction without .%s moves", where, mm->tlane, mm->tcol,
		     op->is_ld ? "pack::16b" : "unpack::16b", op->is_ld ? "pack::16b" : "unpack::16b");
		return;
	case MM_TMEM_PLACE:
		headline(as_notes, loc, "tmem operand '%s' does not match the image of %s", name, text);
		if (op->pack) {
			note(loc, "element %s is at TMEM lane %d, column %d; the image needs lane %d, column %d "
			          "(the atom's base, lane %d column %d, is fixed by element %s)", where, mm->tlane, mm->tcol,
			     mm->need_lane, mm->need_col, mm->base_lane, mm->base_col, first);
		} else {
			char part[48] = "";
			if (half > 1)
				snprintf(part, sizeof part, ", part %d", mm->tpart);
			note(loc, "element %s is at TMEM lane %d, column %d%s; the image needs lane %d, column %d%s "
			          "(the atom's base, lane %d column %d, is fixed by element %s)", where, mm->tlane, mm->tcol,
			     part, mm->need_lane, mm->need_col, half > 1 ? pool_printf(", part %d", mm->part) : "",
			     mm->base_lane, mm->base_col, first);
		}
		return;
	case MM_SLAB: {
		Tensor *t = v->base;
		int slab = 32 * (mm->warp % 4);
		const char *rule = op->shape == SH_32X32B     ? "at the first lane of its slab"
		                   : op->shape == SH_16X32BX2 ? "in 16 lanes inside its slab"
		                                              : "at lane offset 0 or 16 of its slab";
		headline(as_notes, loc, "tmem operand '%s' does not match the image of %s", name, text);
		note(loc, "element %s is at TMEM lane %d, column %d; the image puts row 0 of warp %d %s, lanes %d..%d "
		          "(32 * (warp %% 4))", first, t->lane_offset + mm->base_tlane, t->col_offset + mm->base_tcol,
		     mm->warp, rule, slab, slab + 31);
		note(t->loc, "'%s' is declared here", t->name);
		return;
	}
	case MM_COLUMNS: {
		Tensor *t = v->base;
		int cols = opcode_tmem_cols(op);
		headline(as_notes, loc, "%s of warp %d reaches TMEM columns %d..%d, past the %d columns %s", text, mm->warp,
		      mm->col_first, mm->col_first + cols - 1, mm->col_limit, mm->col_limit < TMEM_COLS ? "allocated" : "of tensor memory");
		if (mm->col_limit < TMEM_COLS)
			note(t->alloc->loc, "the allocation of %d columns is here", t->alloc->ncols);
		return;
	}
	case MM_SPLIT:
		headline(as_notes, loc, "the two tmem operands of %s must lie in one allocation at known offsets", text);
		return;
	case MM_IMM:
		if (mm->first) {
			headline(as_notes, imm_loc, "imm_half_splitoff is (%u << 16) + %u, but the tmem operands are (%u << 16) + %u "
			               "apart", mm->imm >> 16, mm->imm & 0xffff, mm->imm_got >> 16, mm->imm_got & 0xffff);
			note(loc, "for warp %d, repeat %d: base(high) = base(low) + imm_half_splitoff must hold", mm->warp,
			     mm->repeat);
		} else {
			headline(as_notes, imm_loc, "imm_half_splitoff is (%u << 16) + %u, but for warp %d, repeat %d the tmem "
			               "operands are (%u << 16) + %u apart", mm->imm >> 16, mm->imm & 0xffff, mm->warp,
			      mm->repeat, mm->imm_got >> 16, mm->imm_got & 0xffff);
		}
		return;
	case MM_IMM_VARIES:
		headline(as_notes, loc, "the tmem operands of %s are (%u << 16) + %u apart for warp %d, repeat %d, but "
		           "(%u << 16) + %u apart elsewhere; one immediate must serve every warp and repeat",
		      text, mm->imm_got >> 16, mm->imm_got & 0xffff, mm->warp, mm->repeat, mm->imm >> 16, mm->imm & 0xffff);
		return;
	case MM_OVERLAP:
		headline(as_notes, loc, "the two accesses of %s both write TMEM lane %d, column %d (warp %d, repeat %d); a "
		           "store writes each cell once: move the high operand 16 lanes or %d columns away from the low one",
		      text, mm->col_first, mm->col_limit, mm->warp, mm->repeat, opcode_tmem_cols(op));
		return;
	}
}

/* The lowered instruction for one (warp, repeat). */
static LStmt *
make_tc(Check *c, Issue *is, IExpr *addr)
{
	LStmt *l = pool_alloc(sizeof *l);
	l->kind = L_TC;
	l->loc = c->loc;
	l->instr = isa_instr(c->op.red ? TC_LD_RED : c->op.is_ld ? TC_LD : TC_ST);
	l->op = c->op;
	/* the operands in the row's order: ld r, [taddr], imm; st [taddr], imm, r */
	for (int i = 0; i < l->instr->noperands; i++) {
		const IsaOperandSlot *slot = &l->instr->operands[i];
		if (slot->split_only && c->op.shape != SH_16X32BX2)
			continue;
		LOperand *o = tc_add_operand(l, slot->kind);
		if (slot->kind == IO_TMEM_ADDR)
			o->addr = addr;
		else if (slot->kind == IO_IMM)
			o->imm = c->imm;
		else if (slot->kind == IO_REG_VECTOR) {
			o->nregs = opcode_regs(&c->op);
			o->regs = pool_alloc(sizeof(RegRef) * o->nregs);
			for (int r = 0; r < o->nregs; r++)
				o->regs[r] = (RegRef){.tensor = c->in->reg->base, .word = is->words[r]};
		} else if (slot->kind == IO_REG) {
			o->nregs = 1;
			o->regs = pool_alloc(sizeof(RegRef));
			o->regs[0] = (RegRef){.tensor = c->in->red->base, .word = is->red_word};
		}
	}
	return l;
}

static IExpr *
tensor_base(Check *c)
{
	return tmem_base_addr(c->in->tmem[0]->base);
}

IExpr *
tmem_base_addr(Tensor *t)
{
	/* Where an alloc's slot holds the address, each instruction reads the slot itself: the value
	   cannot change while the tensor is usable (a new alloc into the slot needs a dealloc first,
	   after which the tensor is refused), and a read next to its use keeps a register free. */
	if (t->alloc)
		return t->addr;
	Var *var = pool_alloc(sizeof *var);
	var->cname = t->cname;
	var->name = t->name;
	var->type = T_U32;
	var->is_let = true;
	return ie_var(var, T_U32);
}

static IExpr *
warp_cond(Builtin b, int value)
{
	return ie_binary(OP_EQ, ie_builtin(b), ie_int(value, T_I32));
}

IExpr *
apply_scope_guard(const ApplyInput *in, const ApplyCtx *ctx, int warp)
{
	if (!in->guard)
		return NULL;
	if (in->scope == SCOPE_WARPGROUP)
		return warp_cond(B_WARPGROUP_ID, warp / 4);
	if (in->scope != SCOPE_WARP)
		return NULL;
	if (ctx->unit_size == 4) /* warp K of each calling warpgroup */
		return ie_binary(OP_EQ, ie_binary(OP_BITAND, ie_builtin(B_WARP_ID), ie_int(3, T_I32)), ie_int(warp % 4, T_I32));
	return warp_cond(B_WARP_ID, warp);
}

/* Where each line of a source file starts, found at the file's first use: the applies of a device
   function's body alternate with its callers' lines, and a scan from the file's start for each was
   quadratic in the number of calls. */
typedef struct LineIndex {
	const char *text;
	size_t len;
	size_t *start; /* start[k]: the offset of line k + 1 */
	int n;
} LineIndex;

static const char *
line_start(int file, const char *text, size_t len, int line)
{
	static LineIndex *index;
	static int nindex;
	if (file >= nindex) {
		LineIndex *grown = realloc(index, sizeof *index * (size_t)(file + 1));
		if (!grown)
			out_of_memory();
		memset(grown + nindex, 0, sizeof *grown * (size_t)(file + 1 - nindex));
		index = grown;
		nindex = file + 1;
	}
	LineIndex *x = &index[file];
	if (x->text != text || x->len != len) {
		int n = 1;
		for (size_t i = 0; i < len; i++)
			n += text[i] == '\n';
		free(x->start);
		x->start = malloc(sizeof *x->start * (size_t)n);
		if (!x->start)
			out_of_memory();
		x->n = 0;
		x->start[x->n++] = 0;
		for (size_t i = 0; i < len; i++)
			if (text[i] == '\n')
				x->start[x->n++] = i + 1;
		x->text = text;
		x->len = len;
	}
	if (line < 1)
		line = 1;
	return line <= x->n ? text + x->start[line - 1] : text + len;
}

const char *
source_line_of(Loc loc, bool for_comment)
{
	size_t len;
	const char *text = source_text(loc.file, &len);
	if (!text)
		return "";
	const char *p = line_start(loc.file, text, len, loc.first_line), *end = text + len;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *e = p;
	while (e < end && *e != '\n' && *e != '\r')
		e++;
	char *s = pool_strndup(p, (size_t)(e - p));
	for (char *q = s; for_comment && *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f || *q == '\\' || (*q == '*' && q[1] == '/'))
			*q = ' '; /* a backslash would continue the // comment onto the next line */
	const char *path = source_path(loc.file), *slash = strrchr(path, '/');
	return pool_printf("%s:%d: %s", slash ? slash + 1 : path, loc.first_line, s);
}

bool
apply_scope_warps(Stmt *s, ApplyInput *in, ApplyCtx *ctx)
{
	uint64_t *warps = &in->warps;
	const char *what = s->kind == S_COPY ? "copy" : "apply";
	int nwarps = (ctx->kernel->threads + 31) / 32;
	uint64_t all = nwarps >= 64 ? ~0ull : (1ull << nwarps) - 1;
	if (ctx->kernel->threads % 32) {
		error(s->loc, "%s needs whole warps, but the block has %d threads", what, ctx->kernel->threads);
		return false;
	}
	int64_t k = 0;
	if (s->scope_arg && !const_int(s->scope_arg, &k, "the scope's index"))
		return false;
	switch (s->scope) {
	case SCOPE_WARP:
		if (s->scope_arg && ctx->unit_size) {
			/* in a warp or warpgroup function K counts within the calling unit: warp K of each unit
			   that reaches the statement, wherever in the CTA the function is called */
			if (k < 0 || k >= ctx->unit_size) {
				error(s->scope_arg->loc, "warp %lld does not exist: a device function of scope %s runs in %s",
				      (long long)k, ctx->unit_size == 1 ? "warp" : "warpgroup",
				      ctx->unit_size == 1 ? "one warp, warp 0" : "one warpgroup, warps 0 to 3");
				return false;
			}
			uint64_t m = 0;
			for (int w = (int)k; w < nwarps && w < 64; w += ctx->unit_size)
				if (ctx->warps >> (w - k) & ((1ull << ctx->unit_size) - 1))
					m |= 1ull << w;
			if (!m || (ctx->warps & m) != m) {
				error(s->scope_loc, "warp %lld never reaches this %s", (long long)k, what);
				return false;
			}
			*warps = m;
			in->group = 0;
			in->guard = ctx->unit_size > 1;
			return true;
		}
		if (!s->scope_arg) {
			if (ctx->fixed_warp < 0 && ctx->kernel->is_device && ctx->kernel->cta_axes) {
				error(s->scope_loc, "plain 'warp' scope in a warp function laid out over the CTA's threads (block = %d): "
				                    "any of its warps may be the calling one; write the %s for the whole CTA with "
				                    "scope cta (each calling warp does its part), or use copy", ctx->kernel->threads,
				      what);
				return false;
			}
			if (ctx->fixed_warp < 0 && ctx->unit_warps) {
				/* each calling warpgroup's warp K of a device function, each with its own slab */
				*warps = ctx->unit_warps;
				in->group = 0;
				return true;
			}
			if (ctx->fixed_warp < 0) {
				error(s->scope_loc, "plain 'warp' scope needs code that fixes the warp, such as "
				                    "if (warp_id == K); or write warp(K)");
				return false;
			}
			k = ctx->fixed_warp;
		}
		if (k < 0 || k >= nwarps) {
			error(s->scope_arg ? s->scope_arg->loc : s->scope_loc, "warp %lld does not exist: the block has %d warp%s",
			      (long long)k, nwarps, nwarps == 1 ? "" : "s");
			return false;
		}
		if (!(ctx->warps >> k & 1)) {
			error(s->scope_loc, "warp %lld never reaches this %s", (long long)k, what);
			return false;
		}
		*warps = 1ull << k;
		in->group = 0;
		return true;
	case SCOPE_WARPGROUP:
		if (s->scope_arg && ctx->unit_size == 4) {
			/* inside a warpgroup function the calling warpgroup is warpgroup 0 (warpgroup_id is 0 there) */
			if (k != 0) {
				error(s->scope_arg->loc, "warpgroup %lld does not exist: a device function of scope warpgroup runs "
				                         "in one warpgroup, warpgroup 0", (long long)k);
				return false;
			}
			in->guard = false;
		}
		/* a block whose size is not a multiple of 128 ends in a partial warpgroup, which may not take part */
		if (s->scope_arg && in->guard) {
			if (k < 0 || k >= (nwarps + 3) / 4) {
				error(s->scope_arg->loc, "warpgroup %lld does not exist: the block has %d warpgroup%s",
				      (long long)k, (nwarps + 3) / 4, (nwarps + 3) / 4 == 1 ? "" : "s");
				return false;
			}
			if (4 * k + 4 > nwarps) {
				error(s->scope_loc, "warpgroup scope needs whole warpgroups, but warpgroup %lld of the block has "
				                    "only %d warps", (long long)k, nwarps - 4 * (int)k);
				return false;
			}
			*warps = 0xfull << (4 * k);
			if ((ctx->warps & *warps) != *warps) {
				error(s->scope_loc, "not every warp of warpgroup %lld reaches this %s", (long long)k, what);
				return false;
			}
		} else {
			*warps = 0;
			for (int g = 0; g < (nwarps + 3) / 4; g++) {
				uint64_t m = 0xfull << (4 * g);
				if (4 * g + 4 > nwarps && (ctx->warps & m)) {
					error(s->scope_loc, "warpgroup scope needs whole warpgroups, but warpgroup %d of the block, "
					                    "which reaches this %s, has only %d warps", g, what, nwarps - 4 * g);
					return false;
				}
				if ((ctx->warps & m) == m)
					*warps |= m;
				else if (ctx->warps & m) {
					error(s->scope_loc, "only part of warpgroup %d reaches this %s with warpgroup scope", g, what);
					return false;
				}
			}
		}
		in->group = 4;
		return true;
	case SCOPE_CTA:
		if (s->scope_arg) {
			error(s->scope_arg->loc, "cta scope takes no index");
			return false;
		}
		/* in a warp or warpgroup function (its layouts over the CTA's threads): the calling units' part */
		if ((ctx->warps & all) != all && !ctx->unit) {
			error(s->scope_loc, "cta scope needs every warp of the block, but some do not reach this %s", what);
			return false;
		}
		*warps = ctx->warps & all;
		in->group = nwarps;
		return true;
	}
	return false;
}

/* tcgen05.ld.red's result operand: a view of a local tensor of the reduction's type, as the register
   operand is. */
static bool
red_operand(Stmt *s, View *red, ApplyInput *in, const char *text)
{
	static const EType types[] = {[RED_F32] = T_F32, [RED_U32] = T_U32, [RED_S32] = T_I32};
	EType want = types[in->op.red_type];
	Loc loc = LIST_AT(s->operands, ViewExpr, 1)->loc;
	if (red->base->kind != TK_LOCAL || red->per_thread) {
		error(loc, "the red operand of %s must be a view of a local tensor (not a per-thread view)", text);
		return false;
	}
	if (red->base->type != want || in->reg->base->type != want) {
		error(loc, "%s reduces %s values: the register operand '%s' and the red operand '%s' must be %s, not %s and %s",
		      text, etype_name(want), in->reg->name, red->name, etype_name(want), etype_name(in->reg->base->type),
		      etype_name(red->base->type));
		return false;
	}
	in->red = red;
	return true;
}

/* The register word of tcgen05.ld.red's result in each issue: the red operand has the register operand's
   shape without its last dimension, so that element (group, repeats, lane) is lane's result, which that
   lane's thread must own, in one register word for all lanes. Reports and returns false otherwise. */
static bool
red_words(Stmt *s, const ApplyInput *in, ApplyIssue *issues, int nissues)
{
	const View *red = in->red, *reg = in->reg;
	Loc loc = LIST_AT(s->operands, ViewExpr, 1)->loc;
	char text[96];
	opcode_format(&in->op, text, sizeof text);
	bool shape = red->rank == reg->rank - 1;
	for (int i = 0; shape && i < red->rank; i++)
		shape = red->dims[i] == reg->dims[i];
	if (!shape) {
		char got[96], need[96];
		format_list(got, sizeof got, '(', red->dims, red->rank, ')');
		format_list(need, sizeof need, '(', reg->dims, reg->rank - 1, ')');
		error(loc, "red operand '%s' has shape %s, but %s needs %s: the register operand's shape without its last "
		           "dimension, one element per thread and instruction", red->name, got, text, need);
		return false;
	}
	const Layout *l = red->base->layout;
	int nwarp = __builtin_popcountll(in->warps), repeats = nissues / nwarp;
	for (int k = 0; k < nissues; k++) {
		ApplyIssue *is = &issues[k];
		int gi = in->scope == SCOPE_CTA ? is->warp : is->warp % 4;
		int prefix = (in->group ? gi * repeats : 0) + is->repeat;
		for (int lane = 0; lane < 32; lane++) {
			int flat = prefix * 32 + lane, e = red->map[flat], thread = is->warp * 32 + lane;
			const int32_t *place = LAYOUT_PLACE(l, e, 0);
			int slot = l->nrep == 1 ? (layout_place_owned_by(l, place, thread) ? place[AX_M] : -1)
			                        : layout_slot_in_thread(l, e, thread);
			char where[96];
			format_coords(where, sizeof where, red->rank, red->dims, flat);
			if (slot < 0) {
				error(loc, "element %s of red operand '%s' is not in thread %d (lane %d of warp %d), which computes it "
				           "with %s", where, red->name, thread, lane, is->warp, text);
				return false;
			}
			if (lane && slot != is->red_word) {
				error(loc, "element %s of red operand '%s' is register word %d of thread %d, but lane 0 of warp %d "
				           "has its result in word %d; one instruction register is one word in every lane", where,
				      red->name, slot, thread, is->warp, is->red_word);
				return false;
			}
			is->red_word = slot;
		}
	}
	return true;
}

/* Everything an apply states, from its statement: the opcode, its named arguments, the operands'
   kinds and types and the warps of its scope. Reports and returns false on a mistake; whether the
   operands fit the image is apply_match's question. */
static bool
setup(Stmt *s, View **ops, int nops, ApplyCtx *ctx, ApplyInput *in, Loc *imm_loc)
{
	/* the last opcode parsed is kept: a kernel repeats the same few */
	static char last_text[128];
	static Opcode last_op;
	char text[96];
	if (strlen(s->opcode) < sizeof last_text && strcmp(s->opcode, last_text) == 0) {
		in->op = last_op;
	} else {
		char why[256];
		if (!opcode_parse(s->opcode, &in->op, why, sizeof why)) {
			error(s->opcode_loc, "%s", why);
			return false;
		}
		if (strlen(s->opcode) < sizeof last_text) {
			strcpy(last_text, s->opcode);
			last_op = in->op;
		}
	}
	opcode_format(&in->op, text, sizeof text);
	if (in->op.red && !ctx->arch->ld_red) {
		error(s->opcode_loc, "%s is not on -arch=%s: it needs %s", isa_name(TC_LD_RED, 0), ctx->arch->name,
		      arch_list_ld_red());
		return false;
	}
	in->scope = s->scope;
	in->guard = s->scope_arg && s->scope != SCOPE_CTA;
	for (int i = 0; i < s->named.n; i++) {
		NamedArg *na = LIST_AT(s->named, NamedArg, i);
		if (strcmp(na->name, "imm_half_splitoff") != 0) {
			error(na->loc, "unknown apply argument '%s'; the only one is imm_half_splitoff (for 16x32bx2)", na->name);
			return false;
		}
		if (in->op.shape != SH_16X32BX2) {
			error(na->loc, "imm_half_splitoff belongs to the 16x32bx2 shape; %s has no second access", text);
			return false;
		}
		if (in->imm_given) {
			error(na->loc, "imm_half_splitoff is given twice");
			return false;
		}
		int64_t v;
		if (!const_int(na->value, &v, "imm_half_splitoff"))
			return false;
		in->imm_given = true;
		in->imm = (uint32_t)v;
		*imm_loc = na->value->loc;
	}
	int ntmem = in->op.shape == SH_16X32BX2 ? 2 : 1, nred = in->op.red ? 1 : 0;
	if (nops != 1 + nred + ntmem) {
		const char *names = ntmem == 2 ? (in->op.is_ld ? "registers, tmem_low, tmem_high" : "tmem_low, tmem_high, registers")
		                               : (in->op.is_ld ? "registers, tmem" : "tmem, registers");
		error(s->loc, "%s takes %d operands (%s), not %d", text, 1 + nred + ntmem,
		      nred ? pool_printf("registers, red, %s", strchr(names, ',') + 2) : names, nops);
		return false;
	}
	int reg_at = in->op.is_ld ? 0 : ntmem;
	int tm_at = in->op.is_ld ? 1 + nred : 0;
	in->reg = ops[reg_at];
	if (nred && !red_operand(s, ops[1], in, text))
		return false;
	for (int k = 0; k < ntmem; k++)
		in->tmem[k] = ops[tm_at + k];
	if (in->reg->base->kind != TK_LOCAL || in->reg->per_thread) {
		error(LIST_AT(s->operands, ViewExpr, reg_at)->loc,
		      "the register operand of %s must be a view of a local tensor (not a per-thread view)", text);
		return false;
	}
	for (int k = 0; k < ntmem; k++) {
		if (in->tmem[k]->base->kind != TK_TMEM) {
			error(LIST_AT(s->operands, ViewExpr, tm_at + k)->loc, "the tmem operand of %s must be a view of a tmem "
			                                                      "tensor; '%s' is not", text, in->tmem[k]->name);
			return false;
		}
	}
	EType rt = in->reg->base->type;
	for (int k = 0; k < ntmem; k++) {
		EType tt = in->tmem[k]->base->type;
		if (in->op.pack && etype_bits(tt) != 16) {
			error(LIST_AT(s->operands, ViewExpr, tm_at + k)->loc, ".%s moves 16-bit data: the tmem operand must "
			      "have a 16-bit type, not %s", in->op.is_ld ? "pack::16b" : "unpack::16b", etype_name(tt));
			return false;
		}
		if (rt != tt) {
			error(s->loc, "element types differ: register operand '%s' is %s, tmem operand '%s' is %s", in->reg->name,
			      etype_name(rt), in->tmem[k]->name, etype_name(tt));
			return false;
		}
	}
	return apply_scope_warps(s, in, ctx);
}

/* The checks that need no warp: each operand's shape against the atom. */
static bool
check_init(Check *c, const ApplyInput *in, Mismatch *mm)
{
	memset(c, 0, sizeof *c);
	memset(mm, 0, sizeof *mm);
	c->in = in;
	c->op = in->op;
	c->group = in->group;
	c->mm = mm;
	c->imm = in->imm;
	c->ntmem = in->op.shape == SH_16X32BX2 ? 2 : 1;
	c->reg.view = in->reg;
	for (int k = 0; k < c->ntmem; k++)
		c->tmem[k].view = in->tmem[k];
	if (!check_operand_shape(c, &c->reg, true, 0))
		return false;
	for (int k = 0; k < c->ntmem; k++)
		if (!check_operand_shape(c, &c->tmem[k], false, 1 + k))
			return false;
	return true;
}

bool
apply_match(const ApplyInput *in, ApplyIssue **out, int *nissues, uint32_t *imm, Mismatch *mm)
{
	Check c;
	if (!check_init(&c, in, mm))
		return false;
	int nregs = opcode_regs(&c.op);
	/* an image depends only on the shape and .xN: each is computed once per run */
	static ImageCell *image_cache[SH_COUNT][8];
	int log_n = 0;
	while ((1 << log_n) < c.op.n)
		log_n++;
	if (!image_cache[c.op.shape][log_n]) {
		/* outside the pool: the cache outlives pool_free_all (the fuzzer compiles many inputs) */
		ImageCell *cells = malloc(sizeof(ImageCell) * 32 * nregs);
		if (!cells)
			out_of_memory();
		for (int lane = 0; lane < 32; lane++)
			for (int r = 0; r < nregs; r++)
				cells[lane * nregs + r] = image_cell(&c.op, lane, r);
		image_cache[c.op.shape][log_n] = cells;
	}
	c.cells = image_cache[c.op.shape][log_n];
	/* read only within this check: one buffer for all of them (from the pool, 8 KB an apply stayed until
	   the end; ten thousand calls of device functions kept 160 MB) */
	static int *inner;
	static size_t inner_cap;
	if (inner_cap < 2 * 32 * (size_t)nregs) {
		inner_cap = 2 * 32 * (size_t)nregs;
		free(inner);
		inner = malloc(sizeof(int) * inner_cap);
		if (!inner)
			out_of_memory();
	}
	c.reg_inner = inner;
	c.tmem_inner = inner + 32 * nregs;
	for (int lane = 0; lane < 32; lane++) {
		for (int r = 0; r < nregs; r++) {
			ImageCell cell = c.cells[lane * nregs + r];
			c.reg_inner[lane * nregs + r] = operand_flat(&c, &c.reg, true, 0, 0, cell, 0);
			c.tmem_inner[lane * nregs + r] = operand_flat(&c, &c.tmem[0], false, 0, 0, cell, 0);
		}
	}
	int n = __builtin_popcountll(in->warps) * c.repeats;
	Issue *issues = pool_alloc(sizeof(Issue) * (size_t)n);
	int i = 0;
	for (int w = 0; w < 64; w++) {
		if (!(in->warps >> w & 1))
			continue;
		for (int p = 0; p < c.repeats; p++, i++) {
			issues[i].warp = w;
			issues[i].repeat = p;
			issues[i].words = pool_alloc(sizeof(int) * nregs);
			if (!check_issue(&c, &issues[i]))
				return false;
		}
	}
	*out = issues;
	*nissues = n;
	*imm = c.imm;
	return true;
}

/* Emits the instructions: shared by all warps when their registers agree, else one block per warp. */
/* The address of repeat p for every warp in one expression: affine in the warp's group index, or by
   slab and warpgroup, or else a chain of selects. */
static IExpr *
shared_address(Check *c, Issue *issues, int nwarp, int p, IExpr *gi_expr)
{
	/* offset = a + gi * d when it is affine in the warp's group index */
	uint32_t a = issues[p].offset;
	int g0 = group_index(c, issues[0].warp);
	int g1 = group_index(c, issues[c->repeats + p].warp);
	uint32_t d = (issues[c->repeats + p].offset - a) / (uint32_t)(g1 - g0 ? g1 - g0 : 1);
	a -= d * (uint32_t)g0;
	bool affine = true;
	for (int w = 0; w < nwarp && affine; w++) {
		Issue *is = &issues[w * c->repeats + p];
		affine = is->offset == a + d * (uint32_t)group_index(c, is->warp);
	}
	IExpr *addr;
	/* a CTA-wide group often moves by slab (w % 4) and by warpgroup (w / 4) separately */
	uint32_t b = 0, q = 0, base_off = 0;
	bool split = false;
	if (!affine && c->in->scope == SCOPE_CTA && nwarp > 4) {
		base_off = issues[p].offset;
		b = issues[c->repeats + p].offset - base_off;
		q = issues[4 * c->repeats + p].offset - base_off;
		split = true;
		for (int w = 0; w < nwarp && split; w++) {
			Issue *is = &issues[w * c->repeats + p];
			split = is->offset == base_off + b * (uint32_t)(is->warp % 4) + q * (uint32_t)(is->warp / 4);
		}
	}
	if (affine) {
		IExpr *step = ie_binary(OP_MUL, ie_convert(gi_expr, T_U32), ie_int(d, T_U32));
		addr = ie_binary(OP_ADD, tensor_base(c), ie_binary(OP_ADD, ie_int(a, T_U32), step));
	} else if (split) {
		IExpr *slab = ie_binary(OP_BITAND, ie_builtin(B_WARP_ID), ie_int(3, T_I32));
		IExpr *group = ie_builtin(B_WARPGROUP_ID);
		IExpr *off = ie_binary(OP_ADD, ie_int(base_off, T_U32),
		                       ie_binary(OP_ADD, ie_binary(OP_MUL, ie_convert(slab, T_U32), ie_int(b, T_U32)),
		                                 ie_binary(OP_MUL, ie_convert(group, T_U32), ie_int(q, T_U32))));
		addr = ie_binary(OP_ADD, tensor_base(c), off);
	} else {
		/* a chain of selects keeps one instruction for all warps */
		addr = ie_int(issues[p].offset, T_U32);
		for (int w = nwarp - 1; w >= 1; w--) {
			Issue *is = &issues[w * c->repeats + p];
			IExpr *sel = pool_alloc(sizeof *sel);
			sel->kind = IE_SELECT;
			sel->type = T_U32;
			sel->a = warp_cond(B_WARP_ID, is->warp);
			sel->b = ie_int(is->offset, T_U32);
			sel->index = addr;
			addr = sel;
		}
		addr = ie_binary(OP_ADD, tensor_base(c), addr);
	}
	return addr;
}

/* Per warp, the copies between the warp's own registers of repeat p and the staging array. */
static LStmt *
staging_copies(Check *c, Issue *issues, int nwarp, int p, Tensor *staging, bool into_staging)
{
	int nregs = opcode_regs(&c->op);
	LStmt *chain = NULL;
	for (int w = nwarp - 1; w >= 0; w--) {
		Issue *is = &issues[w * c->repeats + p];
		LStmt *cond = pool_alloc(sizeof *cond);
		cond->kind = L_IF;
		cond->loc = c->loc;
		cond->cond = warp_cond(B_WARP_ID, is->warp);
		for (int r = 0; r < nregs; r++) {
			LStmt *copy = pool_alloc(sizeof *copy);
			copy->kind = L_COPY;
			copy->loc = c->loc;
			copy->regs = pool_alloc(2 * sizeof(RegRef));
			RegRef mine = {.tensor = c->in->reg->base, .word = is->words[r]}, staged = {.tensor = staging, .word = p * nregs + r};
			copy->regs[0] = into_staging ? staged : mine; /* destination */
			copy->regs[1] = into_staging ? mine : staged; /* source */
			list_push(&cond->body, copy);
		}
		if (chain)
			list_push(&cond->els, chain);
		chain = cond;
	}
	return chain;
}

static void
emit_issues(Check *c, Issue *issues, int nwarp, ApplyCtx *ctx, List *out)
{
	const ApplyInput *in = c->in;
	int nregs = opcode_regs(&c->op);
	bool shared = nwarp > 1;
	for (int w = 1; w < nwarp && shared; w++)
		for (int p = 0; p < c->repeats && shared; p++)
			shared = memcmp(issues[w * c->repeats + p].words, issues[p].words, sizeof(int) * nregs) == 0;
	/* ld.red's result is not staged: where its word differs between warps, each warp has its own instruction */
	bool red_same = true;
	for (int w = 1; w < nwarp && in->red; w++)
		for (int p = 0; p < c->repeats; p++)
			red_same = red_same && issues[w * c->repeats + p].red_word == issues[p].red_word;
	shared = shared && red_same;
	/* a load can stage only when lower.c can put the copies right after its wait for loads */
	bool stage = !shared && nwarp > 1 && (!c->op.is_ld || ctx->can_defer) && red_same;
	List *body = out;
	LStmt *first = NULL;
	IExpr *guard = apply_scope_guard(in, ctx, issues[0].warp);
	if (guard) {
		first = pool_alloc(sizeof *first);
		first->kind = L_IF;
		first->loc = c->loc;
		first->cond = guard;
		list_push(out, first);
		body = &first->body;
	}
	IExpr *gi_expr = in->scope == SCOPE_CTA ? ie_builtin(B_WARP_ID)
	                                      : ie_binary(OP_BITAND, ie_builtin(B_WARP_ID), ie_int(3, T_I32));
	if (nwarp == 1) {
		for (int p = 0; p < c->repeats; p++) {
			LStmt *l = make_tc(c, &issues[p], ie_binary(OP_ADD, tensor_base(c), ie_int(issues[p].offset, T_U32)));
			list_push(body, l);
			if (!first)
				first = l;
		}
	} else if (shared || stage) {
		/* Registers that differ from warp to warp go through a staging array that every warp names
		   the same way: one instruction for all warps, and per-warp copies in and (after the
		   wait for loads) out. */
		Tensor *staging = NULL;
		if (!shared) {
			staging = pool_alloc(sizeof *staging);
			staging->kind = TK_LOCAL;
			staging->type = T_U32;
			staging->name = "(staging)";
			staging->cname = pool_printf("tl_stage%d", ctx->kernel->nstaging++);
			staging->words = nregs * c->repeats;
			LStmt *decl = pool_alloc(sizeof *decl);
			decl->kind = L_REGS;
			decl->loc = c->loc;
			decl->tensor = staging;
			list_push(body, decl);
			first = first ? first : decl;
		}
		for (int p = 0; p < c->repeats; p++) {
			IExpr *addr = shared_address(c, issues, nwarp, p, gi_expr);
			LStmt *l = make_tc(c, &issues[p], addr);
			if (staging) {
				for (int r = 0; r < nregs; r++)
					tc_operand(l, IO_REG_VECTOR)->regs[r] = (RegRef){.tensor = staging, .word = p * nregs + r};
				LStmt *copies = staging_copies(c, issues, nwarp, p, staging, !c->op.is_ld);
				if (c->op.is_ld) {
					list_push(body, l);
					list_push(&ctx->after_wait, copies);
				} else {
					list_push(body, copies);
					list_push(body, l);
				}
			} else {
				list_push(body, l);
			}
			if (!first)
				first = l;
		}
	} else {
		LStmt *chain = NULL;
		for (int w = nwarp - 1; w >= 0; w--) {
			LStmt *cond = pool_alloc(sizeof *cond);
			cond->kind = L_IF;
			cond->loc = c->loc;
			cond->cond = warp_cond(B_WARP_ID, issues[w * c->repeats].warp);
			for (int p = 0; p < c->repeats; p++) {
				Issue *is = &issues[w * c->repeats + p];
				list_push(&cond->body, make_tc(c, is, ie_binary(OP_ADD, tensor_base(c), ie_int(is->offset, T_U32))));
			}
			if (chain)
				list_push(&cond->els, chain);
			chain = cond;
		}
		list_push(body, chain);
		if (!first)
			first = chain;
	}
	if (first)
		first->comment = source_line_of(c->loc, true);
}

/* An apply already checked: an identical one (same instruction, scope, warps and operand elements,
   as unrolled loops and repeated code produce) has the same result, so it is not checked again. */
typedef struct ApplyMemo {
	Opcode op;
	ScopeKind scope;
	uint64_t warps;
	bool imm_given;
	uint32_t imm_in, imm;
	int nops;
	View *views[3];
	uint64_t hash[3];
	Issue *issues;
	int nissues;
	KernelIR *kernel;
	struct ApplyMemo *same_bucket; /* the next memo in its bucket of memo_index */
} ApplyMemo;

/* The memos by kernel and operands' hashes: a kernel of thousands of different applies looked
   through all of its memos at each. Its views' maps are scratch memory: the index starts anew when
   that is given back. */
#define MEMO_BUCKETS 4096
static ApplyMemo *memo_index[MEMO_BUCKETS];
static unsigned memo_epoch;

static ApplyMemo **
memo_bucket(const KernelIR *k, const uint64_t *hash, int nops)
{
	scratch_index_fresh(memo_index, sizeof memo_index, &memo_epoch);
	uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull;
	for (int j = 0; j < nops && j < 3; j++)
		h = (h ^ hash[j]) * 1099511628211ull;
	return &memo_index[(h ^ h >> 29) % MEMO_BUCKETS];
}

static uint64_t
view_hash(View *v)
{
	if (v->hash)
		return v->hash;
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)v->base;
	for (int i = 0; i < v->count; i++)
		h = (h ^ (uint32_t)v->map[i]) * 1099511628211ull;
	v->hash = h ? h : 1;
	return v->hash;
}

static ApplyMemo *
memo_find(KernelIR *k, const ApplyInput *in, View **ops, int nops, const uint64_t *hash)
{
	for (ApplyMemo *m = *memo_bucket(k, hash, nops); m; m = m->same_bucket) {
		if (m->kernel != k || m->op.is_ld != in->op.is_ld || m->op.shape != in->op.shape || m->op.n != in->op.n ||
		    m->op.pack != in->op.pack || m->scope != in->scope || m->warps != in->warps ||
		    m->imm_given != in->imm_given || (in->imm_given && m->imm_in != in->imm) || m->nops != nops)
			continue;
		bool same = true;
		for (int j = 0; j < nops && same; j++)
			same = m->hash[j] == hash[j] && view_same(m->views[j], ops[j]);
		if (same)
			return m;
	}
	return NULL;
}

/* The TMEM of the tmem parameters of a device function lowered alone, and of tensors within them. */
const char tmem_unknown_space[] = "tensor memory at an address passed";

void
apply_emit(const ApplyInput *in, ApplyIssue *issues, int nissues, uint32_t imm, Loc loc, ApplyCtx *ctx, List *out)
{
	Check c = {0};
	c.in = in;
	c.op = in->op;
	c.loc = loc;
	c.imm = imm;
	c.ntmem = in->op.shape == SH_16X32BX2 ? 2 : 1;
	int nwarp = __builtin_popcountll(in->warps);
	c.repeats = nissues / nwarp;
	int nregs = opcode_regs(&c.op);
	emit_issues(&c, issues, nwarp, ctx, out);
	/* what the protocol checks of lower.c need to know */
	ctx->is_ld = c.op.is_ld;
	RegRef *named[256] = {0}; /* register words named so far (at most 255) */
	for (int k = 0; k < nissues; k++) {
		for (int a = 0; a < c.ntmem; a++) {
			Tensor *t = in->tmem[a]->base;
			TmemRect *r = pool_alloc(sizeof *r);
			r->space = t->alloc ? (const void *)t->alloc : (const void *)tmem_unknown_space;
			r->param = t->alloc ? NULL : t->param_root ? t->param_root : t;
			r->warp = issues[k].warp;
			r->lane0 = t->lane_offset + issues[k].lane[a];
			r->lanes = shape_rows(c.op.shape);
			r->col0 = t->col_offset + issues[k].col[a];
			r->cols = opcode_tmem_cols(&c.op);
			list_push(&ctx->rects, r);
		}
		/* each register word once: warps usually name the same words */
		for (int r = 0; r < nregs; r++) {
			int word = issues[k].words[r];
			if (!named[word]) {
				named[word] = pool_alloc(sizeof *named[word]);
				named[word]->tensor = in->reg->base;
				named[word]->word = word;
				list_push(&ctx->regs, named[word]);
			}
			named[word]->warps |= 1ull << issues[k].warp;
		}
		if (in->red) {
			RegRef *ref = pool_alloc(sizeof *ref);
			*ref = (RegRef){.tensor = in->red->base, .word = issues[k].red_word, .warps = 1ull << issues[k].warp};
			list_push(&ctx->regs, ref);
		}
	}
}

void
apply_check_replicas(Stmt *s, const ApplyCtx *ctx)
{
	if (!ctx->is_ld || !ctx->regs.n || s->stale_warned)
		return;
	Tensor *t = LIST_AT(ctx->regs, RegRef, 0)->tensor;
	const Layout *l = t->layout;
	if (!l || l->nrep < 2)
		return;
	int threads = ctx->kernel->threads, bits = etype_bits(t->type);
	int per_word = bits < 32 ? 32 / bits : 1;
	uint64_t *written = pool_alloc(sizeof(uint64_t) * (size_t)(l->slots / per_word + 1)); /* word: its warps */
	for (int i = 0; i < ctx->regs.n; i++) {
		RegRef *ref = LIST_AT(ctx->regs, RegRef, i);
		if (ref->tensor == t && ref->word <= l->slots / per_word)
			written[ref->word] |= ref->warps;
	}
	/* per copy of the tensor: a thread whose replica of the element was loaded, and one whose was not */
	int *got = pool_alloc(sizeof(int) * (size_t)threads), *missed = pool_alloc(sizeof(int) * (size_t)threads);
	for (int e = 0; e < t->count; e++) {
		for (int c = 0; c < threads; c++)
			got[c] = missed[c] = -1;
		for (int r = 0; r < l->nrep; r++) {
			const int32_t *place = LAYOUT_PLACE(l, e, r);
			for (int u = layout_place_thread(place) % 32; u < threads; u += 32) {
				if (!layout_place_owned_by(l, place, u))
					continue;
				int c = layout_copy_of(l, u);
				if (written[place[AX_M] / per_word] >> (u / 32) & 1) {
					if (got[c] < 0)
						got[c] = u;
				} else if (missed[c] < 0) {
					missed[c] = u;
				}
				if (got[c] < 0 || missed[c] < 0)
					continue;
				char coords[96];
				format_coords(coords, sizeof coords, t->rank, t->dims, e);
				warn(WARN_STALE_REPLICA, s->loc, "this %s loads element %s of '%s' into thread %d (warp %d) but "
				     "not into its replica in thread %d (warp %d), which keeps its old value",
				     s->kind == S_COPY ? "copy" : "apply", coords, t->name, got[c], got[c] / 32, missed[c],
				     missed[c] / 32);
				note(t->loc, "the layout of '%s' keeps each element in several threads (+ R); load every "
				     "replica, or leave the replicas out of the layout", t->name);
				s->stale_warned = true;
				return;
			}
		}
	}
}

bool
apply_lower(Stmt *s, View **ops, int nops, ApplyCtx *ctx, List *out)
{
	ApplyInput in = {0};
	Loc imm_loc = s->loc;
	if (!setup(s, ops, nops, ctx, &in, &imm_loc))
		return false;
	uint64_t hash[3];
	for (int j = 0; j < nops && j < 3; j++)
		hash[j] = view_hash(ops[j]);
	/* ld.red's operands (with its result) are not a plain load's: no memo */
	ApplyMemo *memo = nops <= 3 && !in.red ? memo_find(ctx->kernel, &in, ops, nops, hash) : NULL;
	if (!memo) {
		Issue *issues;
		int nissues;
		uint32_t imm;
		Mismatch mm;
		if (!apply_match(&in, &issues, &nissues, &imm, &mm)) {
			apply_report(&in, &mm, s->loc, imm_loc, false);
			return false;
		}
		if (in.red && !red_words(s, &in, issues, nissues))
			return false;
		memo = pool_alloc(sizeof *memo);
		memo->op = in.op;
		memo->scope = in.scope;
		memo->warps = in.warps;
		memo->imm_given = in.imm_given;
		memo->imm_in = in.imm;
		memo->imm = imm;
		memo->nops = nops;
		for (int j = 0; j < nops && j < 3; j++) {
			memo->views[j] = ops[j];
			memo->hash[j] = hash[j];
		}
		memo->issues = issues;
		memo->nissues = nissues;
		if (nops <= 3 && !in.red) {
			list_push(&ctx->kernel->apply_memo, memo);
			ApplyMemo **b = memo_bucket(ctx->kernel, hash, nops);
			memo->kernel = ctx->kernel;
			memo->same_bucket = *b;
			*b = memo;
		}
	}
	apply_emit(&in, memo->issues, memo->nissues, memo->imm, s->loc, ctx, out);
	return true;
}

/* The pairs the check compares, for draw.c: the operand shapes as apply_match checks them (NULL
   when they do not fit; *mm says why), its verdict, and for each participating warp's first repeat
   the operand positions the image gives every lane, register and part. */
ApplyMap *
apply_map_input(const ApplyInput *in, Mismatch *mm)
{
	ApplyMap *m = pool_alloc(sizeof *m);
	m->in = *in;
	Check c;
	if (!check_init(&c, &m->in, mm))
		return NULL;
	ApplyIssue *issues;
	int nissues;
	uint32_t imm;
	m->matched = apply_match(&m->in, &issues, &nissues, &imm, &m->first);
	m->half = c.reg.half;
	m->repeats = c.repeats;
	for (int w = 0; w < 64; w++)
		if (m->in.warps >> w & 1)
			m->warps[m->nwarps++] = w;
	int nregs = opcode_regs(&c.op);
	size_t n = (size_t)m->nwarps * 32 * (size_t)nregs * (size_t)m->half;
	m->reg_index = pool_alloc(sizeof(int) * n);
	m->tmem_index = pool_alloc(sizeof(int) * n);
	m->cell = pool_alloc(sizeof(CellVerdict) * n);
	m->atom = pool_alloc(sizeof(AtomVerdict) * (size_t)m->nwarps * 2);
	size_t i = 0;
	int *words = pool_alloc(sizeof(int) * (size_t)nregs);
	for (int wi = 0; wi < m->nwarps; wi++) {
		int gi = group_index(&c, m->warps[wi]);
		Issue is = {.warp = m->warps[wi], .repeat = 0, .words = words};
		Base base[2] = {{0}};
		for (int r = 0; r < nregs; r++)
			words[r] = -1;
		for (int lane = 0; lane < 32; lane++) {
			for (int r = 0; r < nregs; r++) {
				ImageCell cell = image_cell(&c.op, lane, r);
				size_t at = i;
				for (int h = 0; h < m->half; h++, i++) {
					m->reg_index[i] = operand_flat(&c, &c.reg, true, gi, 0, cell, h);
					m->tmem_index[i] = operand_flat(&c, &c.tmem[cell.access], false, gi, 0, cell, h);
				}
				/* the check's own verdict on each cell, going on after a mismatch: the first of the
				   register's parts that fails, the register side before the TMEM side */
				Mismatch cm;
				for (int side = 0; side < 2; side++) {
					memset(&cm, 0, sizeof cm);
					c.mm = &cm;
					bool ok = side == 0 ? check_register(&c, &is, gi, lane, r, cell, words)
					                    : check_tmem(&c, &is, c.ntmem == 2 ? cell.access : 0, gi, lane, r, cell,
					                                 &base[c.ntmem == 2 ? cell.access : 0]);
					CellVerdict *v = &m->cell[at + (size_t)cm.part];
					if (ok || v->kind != MM_NONE)
						continue;
					*v = (CellVerdict){cm.kind, cm.thread, cm.slot, cm.want_slot, cm.word0,
					                   cm.tlane, cm.tcol, cm.tpart, cm.need_lane, cm.need_col};
				}
			}
		}
		Mismatch cm_atom;
		for (int k = 0; k < c.ntmem; k++) {
			memset(&cm_atom, 0, sizeof cm_atom);
			c.mm = &cm_atom;
			AtomVerdict *a = &m->atom[wi * 2 + k];
			a->lane = base[k].lane;
			a->col = base[k].col;
			a->kind = check_slab(&c, &is, &base[k], k) ? MM_NONE : cm_atom.kind;
		}
	}
	c.mm = mm;
	return m;
}

/* The same for an apply statement, after the checks of apply_lower's setup; a failure is reported. */
ApplyMap *
apply_map(Stmt *s, View **ops, int nops, ApplyCtx *ctx)
{
	ApplyInput in = {0};
	Loc imm_loc = s->loc;
	if (!setup(s, ops, nops, ctx, &in, &imm_loc))
		return NULL;
	Mismatch mm;
	ApplyMap *m = apply_map_input(&in, &mm);
	if (!m)
		apply_report(&in, &mm, s->loc, imm_loc, false);
	return m;
}

/* --------------------------------------------------------------- the tensor arguments of a call */

/* The mismatch's element: flat index i of the argument view, as coordinates. */
static void
mismatch_element(Mismatch *mm, const View *v, int i)
{
	mm->rank = v->rank;
	for (int d = v->rank - 1, rest = i; d >= 0; d--) {
		mm->coord[d] = rest % v->dims[d];
		rest /= v->dims[d];
	}
}

bool
call_match(const CallArg *c, Mismatch *mm, int *base_lane, int *base_col)
{
	const Tensor *t = c->arg->base, *p = c->param;
	*mm = (Mismatch){.kind = MM_NONE};
	if (p->kind == TK_TMEM) {
		const int32_t *p0 = LAYOUT_PLACE(p->layout, 0, 0), *a0 = LAYOUT_PLACE(t->layout, c->arg->map[0], 0);
		*base_lane = a0[AX_TLANE] - p0[AX_TLANE];
		*base_col = a0[AX_TCOL] - p0[AX_TCOL];
		for (int i = 0; i < c->arg->count; i++) {
			const int32_t *pp = LAYOUT_PLACE(p->layout, i, 0), *ap = LAYOUT_PLACE(t->layout, c->arg->map[i], 0);
			if (ap[AX_TLANE] - *base_lane == pp[AX_TLANE] && ap[AX_TCOL] - *base_col == pp[AX_TCOL])
				continue;
			mm->kind = MM_TMEM_PLACE;
			mismatch_element(mm, c->arg, i);
			mm->tlane = ap[AX_TLANE];
			mm->tcol = ap[AX_TCOL];
			mm->need_lane = pp[AX_TLANE] + *base_lane;
			mm->need_col = pp[AX_TCOL] + *base_col;
			mm->base_lane = *base_lane;
			mm->base_col = *base_col;
			return false;
		}
		return true;
	}
	/* one place per element, named down to the lane: only the threads of that lane can hold an element, so
	   the others are not asked (a call of a 128 x 32 parameter asked 128 threads for each of its 4096) */
	bool by_lane = p->layout->nrep == 1 && layout_names_lane(p->layout);
	for (int u = 0; u < c->nbases; u++)
		for (int i = 0; i < c->arg->count; i++) {
			int first = 0, step = 1;
			if (by_lane) {
				int owner = layout_place_thread(LAYOUT_PLACE(p->layout, i, 0)) - (c->absolute ? c->bases[u] : 0);
				first = (owner % 32 + 32) % 32;
				step = 32;
			}
			for (int th = first; th < c->unit; th += step) {
				int want = layout_slot_in_thread(p->layout, i, c->absolute ? c->bases[u] + th : th);
				if (want < 0)
					continue;
				int got = layout_slot_in_thread(t->layout, c->arg->map[i], c->bases[u] + th);
				if (got == want && !c->slot_map)
					continue;
				if (got >= 0 && c->slot_map && (c->slot_map[want] < 0 || c->slot_map[want] == got)) {
					c->slot_map[want] = got;
					c->slot_thread[want] = c->bases[u] + th;
					continue;
				}
				mm->kind = got >= 0 && c->slot_map ? MM_WORD : MM_OWNER;
				mm->word0 = c->slot_map ? c->slot_map[want] : -1;
				mm->col_first = c->slot_map ? c->slot_thread[want] : -1;
				mismatch_element(mm, c->arg, i);
				mm->thread = c->bases[u] + th;
				mm->slot = got;
				mm->want_slot = want;
				mm->lane = th;
				return false;
			}
		}
	return true;
}

void
call_report(const CallArg *c, const Mismatch *mm, const char *callee, Loc loc)
{
	char where[96];
	format_list(where, sizeof where, '[', mm->coord, mm->rank, ']');
	const char *kind = c->param->kind == TK_TMEM ? "tmem" : "local";
	error(loc, "%s argument '%s' does not match the layout of parameter '%s' of '%s'", kind, c->arg->name,
	      c->param->name, callee);
	if (mm->kind == MM_TMEM_PLACE)
		note(loc, "element %s is at TMEM lane %d, column %d of '%s'; the parameter's layout needs lane %d, column %d "
		          "(its base, lane %d column %d, is fixed by element [0%s])", where, mm->tlane, mm->tcol,
		     c->arg->base->name, mm->need_lane, mm->need_col, mm->base_lane, mm->base_col,
		     c->arg->rank > 1 ? pool_printf("%.*s", 3 * (c->arg->rank - 1), ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0")
		                      : "");
	else if (mm->kind == MM_WORD)
		note(loc, "element %s is slot %d of '%s' in thread %d (warp %d, lane %d), but the parameter's slot %d is slot %d "
		          "of '%s' in thread %d: registers are not indexed at run time, so each slot of the parameter must be "
		          "the same slot of the argument's tensor in every thread", where, mm->slot, c->arg->base->name,
		     mm->thread, mm->thread / 32, mm->thread % 32, mm->want_slot, mm->word0, c->arg->base->name,
		     mm->col_first);
	else if (mm->slot < 0)
		note(loc, "element %s is not held by thread %d (warp %d, lane %d); the parameter's layout puts it in slot %d "
		          "of thread %d of the calling %s", where, mm->thread, mm->thread / 32, mm->thread % 32, mm->want_slot,
		     mm->lane, c->unit == 32 ? "warp" : c->unit == 128 ? "warpgroup" : "CTA");
	else
		note(loc, "element %s is slot %d of thread %d (warp %d, lane %d); the parameter's layout puts it in slot %d of "
		          "that thread", where, mm->slot, mm->thread, mm->thread / 32, mm->thread % 32, mm->want_slot);
}
