/* copy_reduce.c: copy(registers, src) reduce min|max(m): which register slots hold each row, and the copy's loads turned into tcgen05.ld.red where they fit. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

/* The slot of element e of a local tensor in thread u, or -1. */
static int
slot_in(const Layout *l, int e, int u)
{
	if (l->nrep == 1) {
		const int32_t *place = LAYOUT_PLACE(l, e, 0);
		return layout_place_owned_by(l, place, u) ? place[AX_M] : -1;
	}
	return layout_slot_in_thread(l, e, u);
}

/* Records that slot k of m in thread u reduces the row whose elements (columns in order) are in slots
   slots[0..ncols) of the registers; every thread must agree, since one code serves them all. */
static bool
record_row(CopyReducePlan *plan, Stmt *s, int k, int u, const int *slots)
{
	int *row = &plan->row_slots[k * plan->ncols];
	if (plan->thread_of[k] < 0) {
		memcpy(row, slots, sizeof(int) * (size_t)plan->ncols);
		plan->thread_of[k] = u;
		return true;
	}
	if (memcmp(row, slots, sizeof(int) * (size_t)plan->ncols) == 0)
		return true;
	error(s->reduce_into->loc, "register slot %d of '%s' is the result of a row in other register slots in thread %d "
	                           "than in thread %d; the reduction is one code for every thread", k, plan->m->name, u,
	      plan->thread_of[k]);
	return false;
}

bool
copy_reduce_plan(Stmt *s, View *regs, View *m, int threads, CopyReducePlan *plan)
{
	memset(plan, 0, sizeof *plan);
	if (strcmp(s->reduce_op, "min") != 0 && strcmp(s->reduce_op, "max") != 0) {
		error(s->reduce_loc, "reduce takes min or max, not '%s'", s->reduce_op);
		return false;
	}
	plan->op = strcmp(s->reduce_op, "max") == 0 ? RED_MAX : RED_MIN;
	if (regs->base->kind != TK_LOCAL) {
		error(s->loc, "copy ... reduce %s(...) reduces the rows of registers: its destination must be a view of a local "
		              "tensor, not of '%s'", s->reduce_op, regs->base->name);
		return false;
	}
	if (m->base->kind != TK_LOCAL || m->per_thread || m->base->type != regs->base->type) {
		error(s->reduce_into->loc, "the result of reduce %s(...) must be a view of a local tensor of the copy's "
		                           "type %s (not a per-thread view)", s->reduce_op, etype_name(regs->base->type));
		return false;
	}
	bool shape = regs->rank >= 2 && m->rank == regs->rank - 1;
	for (int i = 0; shape && i < m->rank; i++)
		shape = m->dims[i] == regs->dims[i];
	if (!shape) {
		char got[96], need[96];
		format_list(got, sizeof got, '(', m->dims, m->rank, ')');
		format_list(need, sizeof need, '(', regs->dims, regs->rank > 1 ? regs->rank - 1 : 0, ')');
		error(s->reduce_into->loc, "'%s' has shape %s, but reduce %s(...) writes one element per row of the copy: %s, "
		                           "its destination's shape without the last dimension", m->name, got, s->reduce_op, need);
		return false;
	}
	plan->m = m->base;
	plan->regs = regs->base;
	plan->ncols = regs->dims[regs->rank - 1];
	plan->nslots = m->base->layout->slots;
	plan->row_slots = pool_alloc(sizeof(int) * (size_t)plan->nslots * (size_t)plan->ncols);
	plan->thread_of = pool_alloc(sizeof(int) * (size_t)plan->nslots);
	plan->threads = threads;
	plan->held = pool_alloc((size_t)plan->nslots * (size_t)threads);
	for (int k = 0; k < plan->nslots; k++)
		plan->thread_of[k] = -1;
	const Layout *ml = m->base->layout, *rl = regs->base->layout;
	for (int e = 0; e < m->base->count; e++)
		for (int r = 0; r < ml->nrep; r++) {
			const int32_t *place = LAYOUT_PLACE(ml, e, r);
			for (int u = layout_place_thread(place) % 32; u < threads; u += 32)
				if (layout_place_owned_by(ml, place, u))
					plan->held[place[AX_M] * threads + u] |= 2;
		}
	int *slots = pool_alloc(sizeof(int) * (size_t)plan->ncols);
	for (int i = 0; i < m->count; i++) {
		int e = m->map[i];
		for (int r = 0; r < ml->nrep; r++) {
			const int32_t *place = LAYOUT_PLACE(ml, e, r);
			for (int u = layout_place_thread(place) % 32; u < threads; u += 32) {
				if (!layout_place_owned_by(ml, place, u))
					continue;
				for (int j = 0; j < plan->ncols; j++) {
					slots[j] = slot_in(rl, regs->map[i * plan->ncols + j], u);
					if (slots[j] >= 0)
						continue;
					char at[96], cell[96];
					format_coords(at, sizeof at, m->rank, m->dims, i);
					format_coords(cell, sizeof cell, regs->rank, regs->dims, i * plan->ncols + j);
					error(s->reduce_into->loc, "element %s of '%s' is in thread %d, which does not hold all of its row: "
					                           "element %s of '%s' is in another thread", at, m->name, u, cell, regs->name);
					return false;
				}
				if (!record_row(plan, s, place[AX_M], u, slots))
					return false;
				plan->held[place[AX_M] * threads + u] |= 1;
			}
		}
	}
	return true;
}

bool
copy_reduce_threads(const CopyReducePlan *plan, Stmt *s, uint64_t warps)
{
	for (int k = 0; k < plan->nslots; k++) {
		for (int u = 0; u < plan->threads && plan->thread_of[k] >= 0; u++) {
			if (!(warps >> (u / 32) & 1) || plan->held[k * plan->threads + u] != 2)
				continue;
			error(s->reduce_into->loc, "reduce %s(...) writes register slot %d of '%s' in every thread that runs the "
			                           "copy, but in thread %d that slot holds an element of '%s' outside the view; the "
			                           "result would overwrite it", s->reduce_op, k, plan->m->name, u, plan->m->name);
			return false;
		}
	}
	return true;
}

/* The slot of m whose row is exactly the loaded register words of s, or -1. */
static int
row_of(const CopyReducePlan *plan, const LStmt *s)
{
	int n = tc_nregs(s);
	if (n != plan->ncols)
		return -1;
	for (int k = 0; k < plan->nslots; k++) {
		if (plan->thread_of[k] < 0)
			continue;
		const int *row = &plan->row_slots[k * plan->ncols];
		bool same = true;
		for (int r = 0; r < n && same; r++) {
			bool found = false;
			for (int j = 0; j < n && !found; j++)
				found = tc_reg(s, r)->tensor == plan->regs && tc_reg(s, r)->word == row[j];
			same = found;
		}
		if (same)
			return k;
	}
	return -1;
}

/* Whether every tcgen05.ld of list (from index from, into nested blocks) loads exactly one row into the
   registers themselves (no staging) with a shape tcgen05.ld.red has; convert: turn each into it. */
static bool
each_load(const CopyReducePlan *plan, List *list, int from, bool convert, ApplyCtx *ctx)
{
	static const RedType types[] = {[T_F32] = RED_F32, [T_U32] = RED_U32, [T_I32] = RED_S32};
	for (int i = from; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_COPY)
			return false;
		if (!each_load(plan, &s->body, 0, convert, ctx) || !each_load(plan, &s->els, 0, convert, ctx))
			return false;
		if (s->kind != L_TC || s->instr->kind != TC_LD)
			continue;
		int k = row_of(plan, s);
		if (k < 0 || s->op.pack || s->op.n < 2 || (s->op.shape != SH_32X32B && s->op.shape != SH_16X32BX2))
			return false;
		if (!convert)
			continue;
		const IsaInstr *red = isa_instr(TC_LD_RED);
		LOperand *ops = pool_alloc(sizeof(LOperand) * ISA_MAX_OPERANDS);
		int n = 0;
		for (int o = 0; o < s->nops; o++) {
			for (int slot = 0; slot < red->noperands; slot++)
				if (red->operands[slot].kind == s->ops[o].slot->kind) {
					ops[n] = s->ops[o];
					ops[n++].slot = &red->operands[slot];
					break;
				}
			if (s->ops[o].slot->kind != IO_REG_VECTOR)
				continue;
			ops[n].slot = &red->operands[1];
			ops[n].nregs = 1;
			ops[n].regs = pool_alloc(sizeof(RegRef));
			ops[n++].regs[0] = (RegRef){.tensor = plan->m, .word = k};
		}
		s->instr = red;
		s->ops = ops;
		s->nops = n;
		s->op.red = plan->op;
		s->op.red_type = types[plan->regs->type];
		/* the result is pending for the warps whose registers the load fills, until their wait::ld */
		uint64_t warps = 0;
		for (int r = 0; r < ctx->regs.n; r++) {
			RegRef *ref = LIST_AT(ctx->regs, RegRef, r);
			if (ref->tensor == plan->regs && ref->word == tc_reg(s, 0)->word)
				warps |= ref->warps;
		}
		RegRef *ref = pool_alloc(sizeof *ref);
		*ref = (RegRef){.tensor = plan->m, .word = k, .warps = warps};
		list_push(&ctx->regs, ref);
	}
	return true;
}

bool
copy_reduce_use_ld_red(const CopyReducePlan *plan, List *out, int from, ApplyCtx *ctx)
{
	EType t = plan->regs->type;
	if (!ctx->arch->ld_red || (t != T_F32 && t != T_U32 && t != T_I32) || !each_load(plan, out, from, false, ctx))
		return false;
	each_load(plan, out, from, true, ctx);
	return true;
}

IExpr *
copy_reduce_value(const CopyReducePlan *plan, int k)
{
	const int *row = &plan->row_slots[k * plan->ncols];
	EType vt = value_type(plan->regs->type);
	IExpr *v = NULL;
	for (int j = 0; j < plan->ncols; j++) {
		IExpr *x = ie_new(IE_REG, vt);
		x->tensor = plan->regs;
		x->slot = row[j];
		if (!v) {
			v = x;
			continue;
		}
		IExpr *c = ie_new(IE_CALL, vt);
		c->fn = plan->op == RED_MAX ? F_MAX : F_MIN;
		c->a = v;
		c->b = x;
		v = c;
	}
	return v;
}
