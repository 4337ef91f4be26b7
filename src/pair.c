/* pair.c: cta_group::2 kernels (LANGUAGE 11.6): which kernels work on the CTA pair, and the even CTA that issues for it. */
#include <string.h>

#include "tilec.h"

/* What a kernel's statements say about its cta_group: instructions written with either one, and the pair
   organisations of D (tmem tensors in datapath layout "A" or "B") next to an mma. */
typedef struct PairScan {
	bool instr1, instr2; /* alloc, dealloc, relinquish written with cta_group::1 or ::2 */
	bool cp1, cp2;       /* apply tcgen05.cp.cta_group::1 or ::2 */
	bool pair_layout, mma;
} PairScan;

/* The layout a named layout reaches (file-scope items; a name that reaches none: NULL). */
static const LayoutExpr *
layout_target(const LayoutExpr *le)
{
	for (int hops = 0; le && le->kind == LAY_NAME && hops < 64; hops++) {
		Sym *s = sym_lookup(le->name);
		le = s && s->kind == SYM_LAYOUT ? s->layout : NULL;
	}
	return le && le->kind != LAY_NAME ? le : NULL;
}

static void
scan(const List *stmts, PairScan *ps)
{
	for (int i = 0; i < stmts->n; i++) {
		const Stmt *s = LIST_AT(*stmts, Stmt, i);
		if (s->kind == S_INSTR || s->kind == S_APPLY) {
			int group = s->instr ? s->cta_group : !s->opcode ? 0 : strstr(s->opcode, "cta_group::2") ? 2
			                                      : strstr(s->opcode, "cta_group::1") ? 1 : 0;
			bool cp = s->kind == S_APPLY;
			ps->instr1 |= !cp && group == 1;
			ps->instr2 |= !cp && group == 2;
			ps->cp1 |= cp && group == 1;
			ps->cp2 |= cp && group == 2;
		}
		if (s->kind == S_TMEM && s->layout) {
			const LayoutExpr *le = layout_target(s->layout);
			ps->pair_layout |= le && le->kind == LAY_DATAPATH && le->letter &&
			                   (strcmp(le->letter, "A") == 0 || strcmp(le->letter, "B") == 0);
		}
		ps->mma |= s->kind == S_MMA;
		scan(&s->body, ps);
		scan(&s->else_body, ps);
	}
}

int
pair_kernel_group(const Kernel *kd, const KernelIR *k)
{
	if (!k->has_cluster || k->cluster[0] % 2)
		return 1;
	PairScan ps = {0};
	scan(&kd->body, &ps);
	/* the allocation's cta_group decides, then the cps' (a mix is an error at the cp that differs) */
	if (ps.instr1 || ps.instr2)
		return ps.instr1 ? 1 : 2;
	if (ps.cp1 || ps.cp2)
		return ps.cp1 ? 1 : 2;
	return ps.pair_layout && ps.mma ? 2 : 1;
}

IExpr *
pair_even_cta(void)
{
	/* the pair is ranks 2i and 2i + 1 along the cluster's x (TCGEN05.md 9), whose extent is even: the rank's
	   parity is block_idx.x's */
	return ie_binary(OP_EQ, ie_binary(OP_MOD, ie_builtin(B_BLOCK_X), ie_int(2, T_I32)), ie_int(0, T_I32));
}
