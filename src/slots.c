/* slots.c: the shared slots that hold a TMEM base address: the one alloc that fills each and the barrier that publishes it. */
#include "tilec.h"

typedef struct Finder {
	const KernelIR *k;
	TmemSlot *out;
	int n, max;
} Finder;

/* Counts the allocs into k's slot outside loops (*allocs); *other when something else writes its tensor. */
static void
slot_writes(const List *list, const TmemSlot *k, int *allocs, bool *other, bool in_loop)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		int64_t c;
		if (s->kind == L_TC && s->instr->kind == TC_ALLOC && tc_addr(s)->tensor == k->t) {
			if (ie_is_const(tc_addr(s)->index, &c) && c == k->index && !in_loop)
				++*allocs;
			else
				*other = true;
		}
		if (s->kind == L_STORE && s->tensor == k->t)
			*other = true;
		slot_writes(&s->body, k, allocs, other, in_loop || s->kind == L_FOR);
		slot_writes(&s->els, k, allocs, other, in_loop || s->kind == L_FOR);
	}
}

/* The allocs in a statement tree outside loops whose slot nothing else writes: candidate slots. */
static void
find_allocs(Finder *f, const LStmt *s)
{
	int64_t c;
	const IExpr *slot = s->kind == L_TC && s->instr->kind == TC_ALLOC ? tc_addr(s) : NULL;
	if (slot && slot->kind == IE_SADDR && ie_is_const(slot->index, &c)) {
		TmemSlot k = {slot->tensor, c, slot->index, NULL};
		int allocs = 0;
		bool other = f->n == f->max;
		slot_writes(&f->k->body, &k, &allocs, &other, false);
		for (int i = 0; i < f->n; i++)
			other |= f->out[i].t == k.t;
		if (allocs == 1 && !other)
			f->out[f->n++] = k;
		return;
	}
	if (s->kind == L_FOR)
		return;
	for (int i = 0; i < s->body.n; i++)
		find_allocs(f, LIST_AT(s->body, LStmt, i));
	for (int i = 0; i < s->els.n; i++)
		find_allocs(f, LIST_AT(s->els, LStmt, i));
}

/* Each alloc's slot gets the first cta_sync after it in the straight-line part of the kernel (its
   statements and the blocks among them): every statement after that barrier outside ifs and loops
   runs after it, in every thread. */
static void
find_slots(Finder *f, const List *list)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_BLOCK) {
			find_slots(f, &s->body);
		} else if (s->kind == L_BARRIER) {
			for (int j = 0; j < f->n; j++)
				if (!f->out[j].publish)
					f->out[j].publish = s;
		} else {
			find_allocs(f, s);
		}
	}
}

int
tmem_slots(const KernelIR *k, TmemSlot *out, int max)
{
	if (k->threads % 32 != 0)
		return 0;
	Finder f = {k, out, 0, max};
	find_slots(&f, &k->body);
	return f.n;
}
