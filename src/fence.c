/* fence.c: the tcgen05 fences around cta_sync: placed before lowering, removed after it where they order nothing. */
#include <string.h>

#include "tilec.h"

/* --------------------------------------------------------------- fences around cta_sync */

static bool
is_tc_stmt(Stmt *s)
{
	if (s->kind == S_APPLY || s->kind == S_COPY || s->kind == S_CALL)
		return true;
	const IsaInstr *in = s->kind == S_INSTR ? stmt_instr(s, NULL) : NULL;
	return s->kind == S_INSTR && !(in && in->effect == EFF_ORDERS);
}

/* The names of the kernel's tmem tensors (tmem_names), for is_tmem_write. */
static void
collect_tmem_names(List *stmts, List *tmem_names)
{
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		if (s->kind == S_TMEM)
			list_push(tmem_names, (void *)s->name);
		collect_tmem_names(&s->body, tmem_names);
		collect_tmem_names(&s->else_body, tmem_names);
	}
}

/* A statement that may store to or free tensor memory: what another warp's pending load must not race
   (by name: a copy into any tmem tensor of that name counts). */
static bool
is_tmem_write(Stmt *s, const List *tmem_names)
{
	Opcode op;
	if (s->kind == S_CALL)
		return true; /* a device function may store to the TMEM it is passed */
	if (s->kind == S_APPLY)
		return opcode_parse(s->opcode, &op, NULL, 0) && !op.is_ld;
	if (s->kind == S_COPY && s->operands.n) {
		const char *dst = LIST_AT(s->operands, ViewExpr, 0)->base;
		for (int i = 0; i < tmem_names->n; i++)
			if (strcmp(tmem_names->v[i], dst) == 0)
				return true;
		return false;
	}
	const IsaInstr *in = s->kind == S_INSTR ? stmt_instr(s, NULL) : NULL;
	return in && (in->effect & EFF_FREES);
}

static int
count_stmts(List *stmts, bool (*is)(Stmt *))
{
	int n = 0;
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		n += is(s) + count_stmts(&s->body, is) + count_stmts(&s->else_body, is);
	}
	return n;
}

static bool
is_fence(Stmt *s, TcKind which)
{
	const IsaInstr *in = s && s->kind == S_INSTR ? stmt_instr(s, NULL) : NULL;
	return in && in->kind == which;
}

/* Whether a store or dealloc can run after the statements from start on without a cta_sync between:
   1 yes, 0 a cta_sync comes first, -1 the list ends first. A sync inside an if or a loop does not stop
   the search (the path may skip it). */
static int
write_before_sync(List *stmts, int start, const List *tmem_names)
{
	for (int j = start; j < stmts->n; j++) {
		Stmt *s = LIST_AT(*stmts, Stmt, j);
		if (s->kind == S_CTA_SYNC)
			return 0;
		if (is_tmem_write(s, tmem_names))
			return 1;
		int r = write_before_sync(&s->body, 0, tmem_names);
		if (r == 1 || (r == 0 && s->kind == S_BLOCK))
			return r;
		if (write_before_sync(&s->else_body, 0, tmem_names) == 1)
			return 1;
	}
	return -1;
}

/* A statement list being marked and where in it, linked to the lists around it. */
typedef struct Frame {
	List *stmts;
	int i;
	bool loop;
	const struct Frame *outer;
} Frame;

/* Whether, after the cta_sync at f, another warp may store to or free tensor memory before the next
   cta_sync: then the loads of copies complete before this one (TCGEN05.md 5, the last ld before
   dealloc). Past the end of a loop body the search goes round to its start. */
static bool
writes_follow(const Frame *f, const List *tmem_names)
{
	for (int start = f->i + 1; f; f = f->outer) {
		int r = write_before_sync(f->stmts, start, tmem_names);
		if (r < 0 && f->loop)
			r = write_before_sync(f->stmts, 0, tmem_names);
		if (r >= 0)
			return r == 1;
		start = f->outer ? f->outer->i + 1 : 0;
	}
	return false;
}

/* A cta_sync needs the before-fence when tcgen05 work may precede it (seen of the kernel's total so far),
   the after-fence when some may follow. */
static void
mark_syncs(Frame *f, int total, int *seen, bool in_tc_loop, const List *tmem_names)
{
	for (f->i = 0; f->i < f->stmts->n; f->i++) {
		int i = f->i;
		Stmt *s = LIST_AT(*f->stmts, Stmt, i);
		if (s->kind == S_CTA_SYNC || s->kind == S_NAMED_BAR || (s->kind == S_MBAR && s->mbar_op == MB_CLUSTER_SYNC)) {
			Stmt *prev = i > 0 ? LIST_AT(*f->stmts, Stmt, i - 1) : NULL;
			Stmt *next = i + 1 < f->stmts->n ? LIST_AT(*f->stmts, Stmt, i + 1) : NULL;
			s->fence_before = (*seen > 0 || in_tc_loop) && !is_fence(prev, TC_FENCE_BEFORE);
			s->fence_after = (*seen < total || in_tc_loop) && !is_fence(next, TC_FENCE_AFTER);
			s->writes_follow = writes_follow(f, tmem_names);
		}
		*seen += is_tc_stmt(s);
		bool loop_tc = in_tc_loop || (s->kind == S_FOR && count_stmts(&s->body, is_tc_stmt) > 0);
		Frame body = {&s->body, 0, s->kind == S_FOR, f}, els = {&s->else_body, 0, false, f};
		mark_syncs(&body, total, seen, loop_tc, tmem_names);
		mark_syncs(&els, total, seen, loop_tc, tmem_names);
	}
}

void
fence_mark(Kernel *kd)
{
	List tmem_names = {0};
	int seen = 0, extra = 0;
	if (kd->is_device) {
		/* a barrier inside may follow or precede the caller's tcgen05 work: fences on both sides */
		for (int i = 0; i < kd->params.n; i++)
			if (LIST_AT(kd->params, Param, i)->kind == PK_TMEM)
				list_push(&tmem_names, (void *)LIST_AT(kd->params, Param, i)->name);
		seen = 1;
		extra = 2;
	}
	collect_tmem_names(&kd->body, &tmem_names);
	Frame top = {&kd->body, 0, false, NULL};
	mark_syncs(&top, count_stmts(&kd->body, is_tc_stmt) + extra, &seen, false, &tmem_names);
}

static bool
is_sync_or_instr(Stmt *s)
{
	return s->kind == S_CTA_SYNC || s->kind == S_NAMED_BAR || (s->kind == S_MBAR && s->mbar_op == MB_CLUSTER_SYNC) ||
	       (s->kind == S_INSTR && is_tc_stmt(s));
}

int
fence_count_syncs_and_instrs(List *stmts)
{
	return count_stmts(stmts, is_sync_or_instr);
}

/* --------------------------------------------------------------- fences that order nothing

   mark_syncs places the fences before lowering, from the statements alone. Once the kernel is lowered,
   the warps that execute each tcgen05 instruction are known, and a cta_sync keeps the fence pair only
   where it orders tcgen05 work of one warp before work of another that touches the same tensor
   memory (TCGEN05.md section 5): an alloc or dealloc (the whole allocation) against anything of
   another warp, a st against a ld or st of another warp with the same lanes (warp w reaches lanes
   32 (w % 4) .. 32 (w % 4) + 31 only); and the first barrier after an alloc, which publishes the
   slot. A warp's own ld and st are ordered by its waits. A barrier without fences leaves the work
   before it pending: the next barrier with fences orders it against the work after that one. */

/* What a stretch of the kernel does to tensor memory: the warps that may load, store, or allocate and
   free; all when something cannot be followed (a barrier inside control flow). */
typedef struct TcUse {
	uint64_t ld, st, whole;
	bool alloc; /* an alloc: the barrier after it publishes the slot it wrote (TCGEN05.md section 4) */
	bool all;
} TcUse;

/* Whether a warp of a and a different warp of c may both reach the same lanes (same_lanes) or any. */
static bool
other_warps(uint64_t a, uint64_t c, bool same_lanes)
{
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 64; j++)
			if ((a >> i & 1) && (c >> j & 1) && i != j && (!same_lanes || i % 4 == j % 4))
				return true;
	return false;
}

static bool
tc_conflict(const TcUse *a, const TcUse *c)
{
	uint64_t any_a = a->ld | a->st | a->whole, any_c = c->ld | c->st | c->whole;
	if (a->alloc || (a->all && (any_c || c->all)) || (c->all && any_a))
		return true;
	return other_warps(a->whole, any_c, false) || other_warps(any_a, c->whole, false) ||
	       other_warps(a->st, c->ld | c->st, true) || other_warps(a->ld, c->st, true);
}

/* The warps of cur for which cond may hold (then) and may not (els), by evaluating it for each thread. */
static void
split_by(const IExpr *cond, uint64_t cur, const KernelIR *k, uint64_t *then, uint64_t *els)
{
	*then = *els = 0;
	for (int w = 0; w < 64 && w * 32 < k->threads; w++) {
		if (!(cur >> w & 1))
			continue;
		for (int l = 0; l < 32 && w * 32 + l < k->threads; l++) {
			int64_t v;
			if (!ie_eval_thread(cond, k->block, w * 32 + l, &v)) {
				*then = *els = cur;
				return;
			}
			*(v ? then : els) |= 1ull << w;
		}
	}
}

/* The tensor memory work of statements nested in control flow, executed by the warps of cur. */
static void
tc_use_of(const List *stmts, uint64_t cur, const KernelIR *k, TcUse *u)
{
	for (int i = 0; i < stmts->n; i++) {
		const LStmt *s = LIST_AT(*stmts, LStmt, i);
		switch (s->kind) {
		case L_TC:
			if (tc_loads(s))
				u->ld |= cur;
			else if (s->instr->kind == TC_ST)
				u->st |= cur;
			else if (s->instr->kind == TC_ALLOC || s->instr->kind == TC_DEALLOC || s->instr->kind == TC_CP ||
			         (s->instr->kind == TC_MMA && s->mma->a_tmem))
				u->whole |= cur; /* a cp writes the lanes of every warp its image names, an mma with A from
				                    TMEM reads them */
			u->alloc |= s->instr->kind == TC_ALLOC;
			break;
		case L_BARRIER:
			u->all = true;
			break;
		case L_IF: {
			uint64_t then, els;
			split_by(s->cond, cur, k, &then, &els);
			tc_use_of(&s->body, then, k, u);
			tc_use_of(&s->els, els, k, u);
			break;
		}
		default:
			tc_use_of(&s->body, cur, k, u);
			break;
		}
	}
}

/* The kernel's straight-line statements (its body and the blocks in it) in order. */
static void
flatten(List *stmts, List *out)
{
	for (int i = 0; i < stmts->n; i++) {
		LStmt *s = LIST_AT(*stmts, LStmt, i);
		if (s->kind == L_BLOCK && !s->call)
			flatten(&s->body, out);
		else
			list_push(out, s);
	}
}

/* Removes the statement s from the list that holds it, searched from stmts down through blocks. */
static bool
remove_stmt(List *stmts, const LStmt *s)
{
	for (int i = 0; i < stmts->n; i++) {
		LStmt *t = LIST_AT(*stmts, LStmt, i);
		if (t == s) {
			memmove(&stmts->v[i], &stmts->v[i + 1], sizeof stmts->v[0] * (size_t)(stmts->n - i - 1));
			stmts->n--;
			return true;
		}
		if (t->kind == L_BLOCK && !t->call && remove_stmt(&t->body, s))
			return true;
	}
	return false;
}

void
fence_prune(KernelIR *k)
{
	List flat = {0};
	flatten(&k->body, &flat);
	uint64_t everyone = k->threads >= 64 * 32 ? ~0ull : (1ull << ((k->threads + 31) / 32)) - 1;
	TcUse pending = {0};
	for (int i = 0; i < flat.n; i++) {
		LStmt *s = LIST_AT(flat, LStmt, i);
		if (s->kind != L_BARRIER) {
			List one = {&flat.v[i], 1, 1};
			tc_use_of(&one, everyone, k, &pending);
			continue;
		}
		/* the stretch after it, up to the next barrier of the straight line */
		TcUse next = {0};
		for (int j = i + 1; j < flat.n && LIST_AT(flat, LStmt, j)->kind != L_BARRIER; j++) {
			List one = {&flat.v[j], 1, 1};
			tc_use_of(&one, everyone, k, &next);
		}
		LStmt *before = i > 0 ? LIST_AT(flat, LStmt, i - 1) : NULL;
		LStmt *after = i + 1 < flat.n ? LIST_AT(flat, LStmt, i + 1) : NULL;
		if (tc_conflict(&pending, &next)) {
			pending = (TcUse){0}; /* ordered against everything later by this barrier's fences */
			continue;
		}
		if (before && before->kind == L_FENCE && before->instr->kind == TC_FENCE_BEFORE)
			remove_stmt(&k->body, before);
		if (after && after->kind == L_FENCE && after->instr->kind == TC_FENCE_AFTER)
			remove_stmt(&k->body, after);
	}
}
