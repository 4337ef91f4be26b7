/* apply.c: checks an apply of tcgen05.ld / tcgen05.st against its image and lowers it per warp and repeat. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

typedef struct Operand {
	View *view;
	const char *name;
	int half;        /* elements per 32-bit word: 1, 2 or 4 */
	int repeat_at;   /* first repeat dimension */
} Operand;

typedef struct Check {
	Stmt *s;
	Opcode op;
	char text[96];
	int group;       /* group extent, 0 for warp scope */
	int nrepeat;
	int repeat_dims[MAX_RANK];
	int repeats;     /* product of repeat_dims */
	Operand reg, tmem[2];
	int ntmem;
	int imm_given;   /* 1 when imm_half_splitoff was written */
	uint32_t imm;
	bool imm_known;
	Loc imm_loc;
	ImageCell *cells; /* [lane * registers + r] */
	int *reg_inner, *tmem_inner; /* each cell's index inside its operand's atom */
} Check;

/* Per warp and repeat: the instruction's registers and its TMEM offsets. */
typedef struct Issue {
	int warp, repeat;
	int *words;      /* opcode_regs entries */
	uint32_t offset; /* (lane << 16) + column, relative to the tensor's base address */
	int lane[2], col[2]; /* each access's base, relative to its tensor */
} Issue;

/* The operand's expected suffix after the group and repeat dimensions. */
static int
atom_dims(const Check *c, bool is_reg, int half, int *dims)
{
	int n = 0;
	if (c->op.shape == SH_16X32BX2 && is_reg)
		dims[n++] = 2;
	dims[n++] = shape_rows(c->op.shape);
	dims[n++] = opcode_atom_cols(&c->op);
	if (half > 1)
		dims[n++] = half;
	return n;
}

static bool
check_operand_shape(Check *c, Operand *o, bool is_reg, const char *role)
{
	int bits = etype_bits(o->view->base->type);
	o->half = 32 / bits;
	int atom[4];
	int natom = atom_dims(c, is_reg, o->half, atom);
	int lead = c->group ? 1 : 0;
	View *v = o->view;
	int nrep = v->rank - lead - natom;
	char got[96], atomtext[64], need[256];
	bool ok = nrep >= 0 && (!c->group || v->dims[0] == c->group);
	for (int i = 0; ok && i < natom; i++)
		ok = v->dims[lead + nrep + i] == atom[i];
	if (!ok || (!is_reg && nrep != c->nrepeat)) {
		format_list(got, sizeof got, '(', v->dims, v->rank, ')');
		format_list(atomtext, sizeof atomtext, '(', atom, natom, ')');
	}
	if (!ok) {
		/* the whole rule in one line: group, repeat axes, atom, half axis */
		snprintf(need, sizeof need, "%s[repeat axes...] + %s%s%s", c->group ? pool_printf("(%d) + ", c->group) : "",
		         atomtext, c->group ? pool_printf(" (the %d warps of the scope, then the atom", c->group) : " (the atom",
		         o->half > 1 ? pool_printf(" with the half axis of %s)", etype_name(o->view->base->type)) : ")");
		error(c->s->loc, "%s operand '%s' has shape %s, but %s takes %s", role, o->name, got, c->text, need);
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
			char rep[96];
			format_list(got, sizeof got, '(', v->dims, v->rank, ')');
			format_list(rep, sizeof rep, '(', c->repeat_dims, c->nrepeat, ')');
			error(c->s->loc, "%s operand '%s' has shape %s; its repeat axes must be %s, as in the register operand",
			      role, o->name, got, rep);
			return false;
		}
	}
	return true;
}

/* Builds the operand coordinate of (group, repeat, atom...) into coord; returns the rank. */
static int
operand_coord(const Check *c, const Operand *o, int gi, int repeat, const int *atom, int natom, int *coord)
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
	(void)o;
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
	return c->s->scope == SCOPE_CTA ? w : w % 4;
}

static bool
check_register(Check *c, Issue *is, int gi, int lane, int reg, ImageCell cell, int word0[])
{
	Operand *o = &c->reg;
	Layout *l = o->view->base->layout;
	int thread = is->warp * 32 + lane;
	int word = -1;
	for (int h = 0; h < o->half; h++) {
		int atom[4], n = 0;
		if (c->op.shape == SH_16X32BX2)
			atom[n++] = cell.access;
		atom[n++] = cell.row;
		atom[n++] = cell.col;
		if (o->half > 1)
			atom[n++] = h;
		int e = o->view->map[operand_flat(c, o, true, gi, is->repeat, cell, h)];
		const int32_t *place = LAYOUT_PLACE(l, e, 0);
		int slot = l->nrep == 1 ? (layout_place_owned_by(l, place, thread) ? place[AX_M] : -1)
		                        : layout_slot_in_thread(l, e, thread);
		char where[96] = "";
		if (slot < 0 || slot % o->half != h || (word >= 0 && slot / o->half != word)) {
			int coord[MAX_RANK];
			int rank = operand_coord(c, o, gi, is->repeat, atom, n, coord);
			format_list(where, sizeof where, '[', coord, rank, ']');
		}
		if (slot < 0) {
			int owner = layout_place_thread(LAYOUT_PLACE(l, e, 0));
			error(c->s->loc, "register operand '%s' does not match the image of %s", o->name, c->text);
			if (c->op.shape == SH_16X32BX2)
				note(c->s->loc, "element %s is owned by thread %d (warp %d, lane %d); the image puts access %d, "
				                "row %d, column %d of warp %d in lane %d, register %d", where, owner, owner / 32,
				     owner % 32, cell.access, cell.row, cell.col, is->warp, lane, reg);
			else
				note(c->s->loc, "element %s is owned by thread %d (warp %d, lane %d); the image puts row %d, "
				                "column %d of warp %d in lane %d, register %d", where, owner, owner / 32, owner % 32,
				     cell.row, cell.col, is->warp, lane, reg);
			return false;
		}
		if (slot % o->half != h || (word >= 0 && slot / o->half != word)) {
			error(c->s->loc, "register operand '%s' does not match the image of %s", o->name, c->text);
			note(c->s->loc, "element %s is slot %d of thread %d; as part %d of register %d it must be slot %d of "
			                "a 32-bit register (%d %d-bit parts per register)", where, slot, thread, h, reg,
			     (word >= 0 ? word : slot / o->half) * o->half + h, o->half, 32 / o->half);
			return false;
		}
		word = slot / o->half;
	}
	if (lane == 0) {
		word0[reg] = word;
	} else if (word0[reg] != word) {
		error(c->s->loc, "register operand '%s' does not fit one instruction of %s", o->name, c->text);
		note(c->s->loc, "register %d is register word %d in lane 0 but word %d in lane %d of warp %d; one "
		                "instruction names the same register in every lane", reg, word0[reg], word, lane, is->warp);
		return false;
	}
	return true;
}

typedef struct Base {
	bool set;
	int lane, col;
	int first_lane, first_col; /* where the first element is */
	char first[96];
} Base;

static bool
check_tmem(Check *c, Issue *is, int k, int gi, ImageCell cell, Base *base)
{
	Operand *o = &c->tmem[k];
	Tensor *t = o->view->base;
	Layout *l = t->layout;
	for (int h = 0; h < o->half; h++) {
		int atom[3] = {cell.row, cell.col, h};
		int coord[MAX_RANK];
		int rank = 0;
		int e = o->view->map[operand_flat(c, o, false, gi, is->repeat, cell, h)];
		const int32_t *place = LAYOUT_PLACE(l, e, 0);
		int lane = place[AX_TLANE], tcol = place[AX_TCOL];
		char where[96] = ""; /* formatted only where a message needs it */
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
			rank = operand_coord(c, o, gi, is->repeat, atom, o->half > 1 ? 3 : 2, coord);
			format_list(base->first, sizeof base->first, '[', coord, rank, ']');
		}
		bool bad_part = c->op.pack ? part != 0 : part != h;
		if (lane != base->lane + cell.row || cellx != base->col + want_col || bad_part) {
			rank = operand_coord(c, o, gi, is->repeat, atom, o->half > 1 ? 3 : 2, coord);
			format_list(where, sizeof where, '[', coord, rank, ']');
			error(c->s->loc, "tmem operand '%s' does not match the image of %s", o->name, c->text);
			if (c->op.pack && part != 0) {
				note(c->s->loc, "element %s is the high half of TMEM cell (lane %d, column %d); with .%s each "
				                "16-bit element takes the low half of its own cell (strides 4@TCol and 2@TCol in "
				                "16-bit units); this layout packs two elements into one cell (dense 16-bit), "
				                "which is what the instruction without .%s moves", where, lane, cellx,
				     c->op.is_ld ? "pack::16b" : "unpack::16b", c->op.is_ld ? "pack::16b" : "unpack::16b");
			} else if (c->op.pack) {
				note(c->s->loc, "element %s is at TMEM lane %d, column %d; the image needs lane %d, column %d "
				                "(the atom's base, lane %d column %d, is fixed by element %s)", where, lane, cellx,
				     base->lane + cell.row, base->col + want_col, base->lane, base->col, base->first);
			} else {
				char half[48] = "";
				if (o->half > 1)
					snprintf(half, sizeof half, ", part %d", part);
				note(c->s->loc, "element %s is at TMEM lane %d, column %d%s; the image needs lane %d, column %d%s "
				                "(the atom's base, lane %d column %d, is fixed by element %s)", where, lane, cellx,
				     half, base->lane + cell.row, base->col + want_col, o->half > 1 ? pool_printf(", part %d", h) : "",
				     base->lane, base->col, base->first);
			}
			return false;
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
	const char *rule;
	if (c->op.shape == SH_32X32B) {
		ok = lane == slab;
		rule = "at the first lane of its slab";
	} else if (c->op.shape == SH_16X32BX2) {
		ok = lane >= slab && lane <= slab + 16;
		rule = "in 16 lanes inside its slab";
	} else {
		ok = lane == slab || lane == slab + 16;
		rule = "at lane offset 0 or 16 of its slab";
	}
	if (!ok) {
		error(c->s->loc, "tmem operand '%s' does not match the image of %s", c->tmem[k].name, c->text);
		note(c->s->loc, "element %s is at TMEM lane %d, column %d; the image puts row 0 of warp %d %s, lanes %d..%d "
		                "(32 * (warp %% 4))", b->first, t->lane_offset + b->first_lane, t->col_offset + b->first_col,
		     is->warp, rule, slab, slab + 31);
		note(t->loc, "'%s' is declared here", t->name);
		return false;
	}
	int cols = opcode_tmem_cols(&c->op);
	int first = t->col_offset + b->col;
	int limit = t->alloc && t->alloc->ncols ? t->alloc->ncols : 512;
	if (first < 0 || first + cols > limit) {
		error(c->s->loc, "%s of warp %d reaches TMEM columns %d..%d, past the %d columns %s", c->text, is->warp,
		      first, first + cols - 1, limit, limit < 512 ? "allocated" : "of tensor memory");
		if (limit < 512)
			note(t->alloc->loc, "the allocation of %d columns is here", t->alloc->ncols);
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
	   every failure, goes through check_register / check_tmem, which also report. */
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
			if (!check_tmem(c, is, k, gi, cell, &base[k]))
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
				error(c->s->loc, "the two tmem operands of %s must lie in one allocation at known offsets", c->text);
				return false;
			}
			imm = high + dh - (is->offset + dl);
		}
		if (!c->imm_known) {
			c->imm_known = true;
			if (c->imm_given && c->imm != imm) {
				error(c->imm_loc, "imm_half_splitoff is (%u << 16) + %u, but the tmem operands are (%u << 16) + %u "
				                  "apart", c->imm >> 16, c->imm & 0xffff, imm >> 16, imm & 0xffff);
				note(c->s->loc, "for warp %d, repeat %d: base(high) = base(low) + imm_half_splitoff must hold",
				     is->warp, is->repeat);
				return false;
			}
			c->imm = imm;
		} else if (c->imm != imm) {
			if (c->imm_given)
				error(c->imm_loc, "imm_half_splitoff is (%u << 16) + %u, but for warp %d, repeat %d the tmem "
				                  "operands are (%u << 16) + %u apart", c->imm >> 16, c->imm & 0xffff, is->warp,
				      is->repeat, imm >> 16, imm & 0xffff);
			else
				error(c->s->loc, "the tmem operands of %s are (%u << 16) + %u apart for warp %d, repeat %d, but "
				                 "(%u << 16) + %u apart elsewhere; one immediate must serve every warp and repeat",
				      c->text, imm >> 16, imm & 0xffff, is->warp, is->repeat, c->imm >> 16, c->imm & 0xffff);
			return false;
		}
	}
	return true;
}

/* The lowered instruction for one (warp, repeat). */
static LStmt *
make_tc(Check *c, Issue *is, IExpr *addr)
{
	LStmt *l = pool_alloc(sizeof *l);
	l->kind = L_TC;
	l->loc = c->s->loc;
	l->tc = c->op.is_ld ? TC_LD : TC_ST;
	l->op = c->op;
	l->addr = addr;
	l->imm = c->imm;
	l->nregs = opcode_regs(&c->op);
	l->regs = pool_alloc(sizeof(RegRef) * l->nregs);
	for (int r = 0; r < l->nregs; r++) {
		l->regs[r].tensor = c->reg.view->base;
		l->regs[r].word = is->words[r];
	}
	return l;
}

static IExpr *
tensor_base(Check *c)
{
	Tensor *t = c->tmem[0].view->base;
	/* Where an alloc's slot holds the address, each instruction reads the slot itself: the value
	   cannot change while the tensor is usable (a new alloc into the slot needs a dealloc first,
	   after which the tensor is refused), and a read next to its use keeps a register free. */
	if (t->alloc)
		return t->addr;
	IExpr *v = pool_alloc(sizeof *v);
	v->kind = IE_VAR;
	v->type = T_U32;
	Var *var = pool_alloc(sizeof *var);
	var->cname = t->cname;
	var->name = t->name;
	var->type = T_U32;
	var->is_let = true;
	v->var = var;
	return v;
}

static IExpr *
warp_cond(Builtin b, int value)
{
	return ie_binary(OP_EQ, ie_builtin(b), ie_int(value, T_I32));
}

static const char *
source_line_of(Loc loc)
{
	size_t len;
	const char *text = source_text(loc.file, &len);
	if (!text)
		return "";
	/* applies come in source order: scan on from the line found last time, not from the start */
	static const char *last_text;
	static size_t last_len, last_offset;
	static int last_file = -1, last_line;
	const char *p = text, *end = text + len;
	int line = 1;
	if (last_file == loc.file && last_text == text && last_len == len && last_line <= loc.first_line) {
		p = text + last_offset;
		line = last_line;
	}
	for (; line < loc.first_line && p < end; p++)
		if (*p == '\n')
			line++;
	last_file = loc.file;
	last_text = text;
	last_len = len;
	last_offset = (size_t)(p - text);
	last_line = line;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *e = p;
	while (e < end && *e != '\n' && *e != '\r')
		e++;
	char *s = pool_strndup(p, (size_t)(e - p));
	for (char *q = s; *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f || *q == '\\' || (*q == '*' && q[1] == '/'))
			*q = ' '; /* a backslash would continue the // comment onto the next line */
	const char *path = source_path(loc.file), *slash = strrchr(path, '/');
	return pool_printf("%s:%d: %s", slash ? slash + 1 : path, loc.first_line, s);
}

static bool
warps_of_scope(Check *c, ApplyCtx *ctx, uint64_t *warps)
{
	Stmt *s = c->s;
	int nwarps = (ctx->kernel->threads + 31) / 32;
	uint64_t all = nwarps >= 64 ? ~0ull : (1ull << nwarps) - 1;
	if (ctx->kernel->threads % 32) {
		error(s->loc, "apply needs whole warps, but the block has %d threads", ctx->kernel->threads);
		return false;
	}
	int64_t k = 0;
	if (s->scope_arg && !const_int(s->scope_arg, &k, "the scope's index"))
		return false;
	switch (s->scope) {
	case SCOPE_WARP:
		if (!s->scope_arg) {
			if (ctx->fixed_warp < 0) {
				error(s->scope_loc, "plain 'warp' scope needs code that fixes the warp, such as "
				                    "if (warp_id == K); or write warp(K)");
				return false;
			}
			k = ctx->fixed_warp;
		}
		if (k < 0 || k >= nwarps) {
			error(s->scope_arg ? s->scope_arg->loc : s->scope_loc, "warp %lld does not exist: the block has %d warps",
			      (long long)k, nwarps);
			return false;
		}
		if (!(ctx->warps >> k & 1)) {
			error(s->scope_loc, "warp %lld never reaches this apply", (long long)k);
			return false;
		}
		*warps = 1ull << k;
		c->group = 0;
		return true;
	case SCOPE_WARPGROUP:
		if (nwarps % 4) {
			error(s->scope_loc, "warpgroup scope needs whole warpgroups, but the block has %d warps", nwarps);
			return false;
		}
		if (s->scope_arg) {
			if (k < 0 || k >= nwarps / 4) {
				error(s->scope_arg->loc, "warpgroup %lld does not exist: the block has %d", (long long)k,
				      nwarps / 4);
				return false;
			}
			*warps = 0xfull << (4 * k);
			if ((ctx->warps & *warps) != *warps) {
				error(s->scope_loc, "not every warp of warpgroup %lld reaches this apply", (long long)k);
				return false;
			}
		} else {
			*warps = 0;
			for (int g = 0; g < nwarps / 4; g++) {
				uint64_t m = 0xfull << (4 * g);
				if ((ctx->warps & m) == m)
					*warps |= m;
				else if (ctx->warps & m) {
					error(s->scope_loc, "only part of warpgroup %d reaches this apply with warpgroup scope", g);
					return false;
				}
			}
		}
		c->group = 4;
		return true;
	case SCOPE_CTA:
		if (s->scope_arg) {
			error(s->scope_arg->loc, "cta scope takes no index");
			return false;
		}
		if ((ctx->warps & all) != all) {
			error(s->scope_loc, "cta scope needs every warp of the block, but some do not reach this apply");
			return false;
		}
		*warps = all;
		c->group = nwarps;
		return true;
	}
	return false;
}

static bool
setup(Check *c, View **ops, int nops, ApplyCtx *ctx, uint64_t *warps)
{
	Stmt *s = c->s;
	/* the last opcode parsed is kept: a kernel repeats the same few */
	static char last_text[128];
	static Opcode last_op;
	static char last_canon[96];
	if (strlen(s->opcode) < sizeof last_text && strcmp(s->opcode, last_text) == 0) {
		c->op = last_op;
		memcpy(c->text, last_canon, sizeof c->text);
	} else {
		char why[256];
		if (!opcode_parse(s->opcode, &c->op, why, sizeof why)) {
			error(s->opcode_loc, "%s", why);
			return false;
		}
		opcode_format(&c->op, c->text, sizeof c->text);
		if (strlen(s->opcode) < sizeof last_text) {
			strcpy(last_text, s->opcode);
			last_op = c->op;
			memcpy(last_canon, c->text, sizeof last_canon);
		}
	}
	for (int i = 0; i < s->named.n; i++) {
		NamedArg *na = LIST_AT(s->named, NamedArg, i);
		if (strcmp(na->name, "imm_half_splitoff") != 0) {
			error(na->loc, "unknown apply argument '%s'; the only one is imm_half_splitoff (for 16x32bx2)", na->name);
			return false;
		}
		if (c->op.shape != SH_16X32BX2) {
			error(na->loc, "imm_half_splitoff belongs to the 16x32bx2 shape; %s has no second access", c->text);
			return false;
		}
		if (c->imm_given) {
			error(na->loc, "imm_half_splitoff is given twice");
			return false;
		}
		int64_t v;
		if (!const_int(na->value, &v, "imm_half_splitoff"))
			return false;
		c->imm_given = 1;
		c->imm = (uint32_t)v;
		c->imm_loc = na->value->loc;
	}
	c->ntmem = c->op.shape == SH_16X32BX2 ? 2 : 1;
	if (nops != 1 + c->ntmem) {
		error(s->loc, "%s takes %d operands (%s), not %d", c->text, 1 + c->ntmem,
		      c->ntmem == 2 ? (c->op.is_ld ? "registers, tmem_low, tmem_high" : "tmem_low, tmem_high, registers")
		                    : (c->op.is_ld ? "registers, tmem" : "tmem, registers"),
		      nops);
		return false;
	}
	int reg_at = c->op.is_ld ? 0 : c->ntmem;
	int tm_at = c->op.is_ld ? 1 : 0;
	c->reg.view = ops[reg_at];
	c->reg.name = ops[reg_at]->name;
	for (int k = 0; k < c->ntmem; k++) {
		c->tmem[k].view = ops[tm_at + k];
		c->tmem[k].name = ops[tm_at + k]->name;
	}
	Operand *reg = &c->reg;
	if (reg->view->base->kind != TK_LOCAL || reg->view->per_thread) {
		error(LIST_AT(s->operands, ViewExpr, reg_at)->loc,
		      "the register operand of %s must be a view of a local tensor (not a per-thread view)", c->text);
		return false;
	}
	for (int k = 0; k < c->ntmem; k++) {
		if (c->tmem[k].view->base->kind != TK_TMEM) {
			error(LIST_AT(s->operands, ViewExpr, tm_at + k)->loc, "the tmem operand of %s must be a view of a tmem "
			                                                      "tensor; '%s' is not", c->text, c->tmem[k].name);
			return false;
		}
	}
	EType rt = reg->view->base->type;
	for (int k = 0; k < c->ntmem; k++) {
		EType tt = c->tmem[k].view->base->type;
		if (c->op.pack && etype_bits(tt) != 16) {
			error(LIST_AT(s->operands, ViewExpr, tm_at + k)->loc, ".%s moves 16-bit data: the tmem operand must "
			      "have a 16-bit type, not %s", c->op.is_ld ? "pack::16b" : "unpack::16b", etype_name(tt));
			return false;
		}
		if (etype_bits(rt) != etype_bits(tt) || etype_is_float(rt) != etype_is_float(tt)) {
			error(s->loc, "element types differ: register operand '%s' is %s, tmem operand '%s' is %s", reg->name,
			      etype_name(rt), c->tmem[k].name, etype_name(tt));
			return false;
		}
	}
	if (!warps_of_scope(c, ctx, warps))
		return false;
	if (!check_operand_shape(c, reg, true, "register"))
		return false;
	for (int k = 0; k < c->ntmem; k++)
		if (!check_operand_shape(c, &c->tmem[k], false, "tmem"))
			return false;
	return true;
}

/* Emits the instructions: shared by all warps when their registers agree, else one block per warp. */
/* The address of repeat p for every warp in one expression: affine in the warp's group index, or by
   slab and warpgroup, or else a chain of selects. */
static IExpr *
shared_address(Check *c, Issue *issues, int nwarp, int p, IExpr *gi_expr)
{
	Stmt *s = c->s;
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
	if (!affine && s->scope == SCOPE_CTA && nwarp > 4) {
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
			sel->kind = IE_BINARY;
			sel->type = T_U32;
			sel->op = OP_NONE; /* select: a ? b : previous */
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
		cond->loc = c->s->loc;
		cond->cond = warp_cond(B_WARP_ID, is->warp);
		for (int r = 0; r < nregs; r++) {
			LStmt *copy = pool_alloc(sizeof *copy);
			copy->kind = L_COPY;
			copy->loc = c->s->loc;
			copy->regs = pool_alloc(2 * sizeof(RegRef));
			copy->nregs = 2;
			RegRef mine = {c->reg.view->base, is->words[r]}, staged = {staging, p * nregs + r};
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
	Stmt *s = c->s;
	int nregs = opcode_regs(&c->op);
	bool shared = nwarp > 1;
	for (int w = 1; w < nwarp && shared; w++)
		for (int p = 0; p < c->repeats && shared; p++)
			shared = memcmp(issues[w * c->repeats + p].words, issues[p].words, sizeof(int) * nregs) == 0;
	/* a load can stage only when lower.c can put the copies right after its wait::ld */
	bool stage = !shared && nwarp > 1 && (!c->op.is_ld || ctx->can_defer);
	List *body = out;
	LStmt *first = NULL;
	if (s->scope == SCOPE_WARP && s->scope_arg) {
		first = pool_alloc(sizeof *first);
		first->kind = L_IF;
		first->loc = s->loc;
		first->cond = warp_cond(B_WARP_ID, issues[0].warp);
		list_push(out, first);
		body = &first->body;
	} else if (s->scope == SCOPE_WARPGROUP && s->scope_arg) {
		first = pool_alloc(sizeof *first);
		first->kind = L_IF;
		first->loc = s->loc;
		first->cond = warp_cond(B_WARPGROUP_ID, issues[0].warp / 4);
		list_push(out, first);
		body = &first->body;
	}
	IExpr *gi_expr = s->scope == SCOPE_CTA ? ie_builtin(B_WARP_ID)
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
		   wait::ld) out. */
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
			decl->loc = s->loc;
			decl->tensor = staging;
			list_push(body, decl);
			first = first ? first : decl;
		}
		for (int p = 0; p < c->repeats; p++) {
			IExpr *addr = shared_address(c, issues, nwarp, p, gi_expr);
			LStmt *l = make_tc(c, &issues[p], addr);
			if (staging) {
				for (int r = 0; r < nregs; r++) {
					l->regs[r].tensor = staging;
					l->regs[r].word = p * nregs + r;
				}
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
			cond->loc = s->loc;
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
		first->comment = source_line_of(s->loc);
}

/* An apply already checked: an identical one (same instruction, scope, warps and operand elements,
   as unrolled loops and repeated code produce) has the same result, so it is not checked again. */
typedef struct ApplyMemo {
	Opcode op;
	ScopeKind scope;
	uint64_t warps;
	int imm_given;
	uint32_t imm_in, imm;
	int nops;
	View *views[3];
	uint64_t hash[3];
	Issue *issues;
} ApplyMemo;

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

static bool
same_view(const View *a, const View *b)
{
	if (a->base != b->base || a->rank != b->rank || a->count != b->count || a->per_thread != b->per_thread)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return a->map == b->map || memcmp(a->map, b->map, sizeof(int32_t) * (size_t)a->count) == 0;
}

static ApplyMemo *
memo_find(KernelIR *k, const Check *c, View **ops, int nops, uint64_t warps, const uint64_t *hash)
{
	for (int i = 0; i < k->apply_memo.n; i++) {
		ApplyMemo *m = LIST_AT(k->apply_memo, ApplyMemo, i);
		if (m->op.is_ld != c->op.is_ld || m->op.shape != c->op.shape || m->op.n != c->op.n ||
		    m->op.pack != c->op.pack || m->scope != c->s->scope || m->warps != warps ||
		    m->imm_given != c->imm_given || (c->imm_given && m->imm_in != c->imm) || m->nops != nops)
			continue;
		bool same = true;
		for (int j = 0; j < nops && same; j++)
			same = m->hash[j] == hash[j] && same_view(m->views[j], ops[j]);
		if (same)
			return m;
	}
	return NULL;
}

bool
apply_lower(Stmt *s, View **ops, int nops, ApplyCtx *ctx, List *out)
{
	Check c = {0};
	c.s = s;
	uint64_t warps;
	if (!setup(&c, ops, nops, ctx, &warps))
		return false;
	int nwarp = 0;
	for (int w = 0; w < 64; w++)
		nwarp += (int)(warps >> w & 1);
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
			fatal("out of memory");
		for (int lane = 0; lane < 32; lane++)
			for (int r = 0; r < nregs; r++)
				cells[lane * nregs + r] = image_cell(&c.op, lane, r);
		image_cache[c.op.shape][log_n] = cells;
	}
	c.cells = image_cache[c.op.shape][log_n];
	uint64_t hash[3];
	for (int j = 0; j < nops && j < 3; j++)
		hash[j] = view_hash(ops[j]);
	ApplyMemo *memo = nops <= 3 ? memo_find(ctx->kernel, &c, ops, nops, warps, hash) : NULL;
	Issue *issues;
	if (memo) {
		issues = memo->issues;
		c.imm = memo->imm;
	} else {
		c.reg_inner = pool_alloc(sizeof(int) * 32 * nregs);
		c.tmem_inner = pool_alloc(sizeof(int) * 32 * nregs);
		for (int lane = 0; lane < 32; lane++) {
			for (int r = 0; r < nregs; r++) {
				ImageCell cell = c.cells[lane * nregs + r];
				c.reg_inner[lane * nregs + r] = operand_flat(&c, &c.reg, true, 0, 0, cell, 0);
				c.tmem_inner[lane * nregs + r] = operand_flat(&c, &c.tmem[0], false, 0, 0, cell, 0);
			}
		}
		uint32_t imm_in = c.imm;
		issues = pool_alloc(sizeof(Issue) * (size_t)nwarp * c.repeats);
		int i = 0;
		for (int w = 0; w < 64; w++) {
			if (!(warps >> w & 1))
				continue;
			for (int p = 0; p < c.repeats; p++, i++) {
				issues[i].warp = w;
				issues[i].repeat = p;
				issues[i].words = pool_alloc(sizeof(int) * nregs);
				if (!check_issue(&c, &issues[i]))
					return false;
			}
		}
		if (nops <= 3) {
			memo = pool_alloc(sizeof *memo);
			memo->op = c.op;
			memo->scope = s->scope;
			memo->warps = warps;
			memo->imm_given = c.imm_given;
			memo->imm_in = imm_in;
			memo->imm = c.imm;
			memo->nops = nops;
			for (int j = 0; j < nops; j++) {
				memo->views[j] = ops[j];
				memo->hash[j] = hash[j];
			}
			memo->issues = issues;
			list_push(&ctx->kernel->apply_memo, memo);
		}
	}
	emit_issues(&c, issues, nwarp, ctx, out);
	/* what the protocol checks of lower.c need to know */
	ctx->is_ld = c.op.is_ld;
	uint32_t seen[8] = {0}; /* register words named so far (at most 255) */
	for (int k = 0; k < nwarp * c.repeats; k++) {
		for (int a = 0; a < c.ntmem; a++) {
			Tensor *t = c.tmem[a].view->base;
			TmemRect *r = pool_alloc(sizeof *r);
			r->space = t->alloc ? (const void *)t->alloc : (const void *)t;
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
			if (seen[word >> 5] >> (word & 31) & 1)
				continue;
			seen[word >> 5] |= 1u << (word & 31);
			RegRef *ref = pool_alloc(sizeof *ref);
			ref->tensor = c.reg.view->base;
			ref->word = word;
			list_push(&ctx->regs, ref);
		}
	}
	return true;
}
