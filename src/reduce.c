/* reduce.c: the plan of `reduce OP(dst, src, dims)` over local tensors: from the layouts, which register
 * slots of src each thread folds into which slot of dst, and over how many lanes the partial results meet. */
#include <string.h>

#include "tilec.h"

/* One thread's part: per row (an element of dst, flat in dst's view), the dst slot it writes (-1: none)
 * and the src slots of the row it holds, in the row's order. */
typedef struct ThreadPart {
	int *row_at;    /* per dst slot: the row the thread writes there, or -1 */
	int *nsrc;      /* per row */
	int *src;       /* per row, row_len entries from row * row_len */
} ThreadPart;

/* The row of src's element i and its position in the row, from the reduced dimensions. */
static void
row_of(const View *src, unsigned dims, int i, int *row, int *pos)
{
	int coord[MAX_RANK];
	for (int d = src->rank - 1; d >= 0; d--) {
		coord[d] = i % src->dims[d];
		i /= src->dims[d];
	}
	*row = 0;
	*pos = 0;
	for (int d = 0; d < src->rank; d++) {
		if (dims >> d & 1)
			*pos = *pos * src->dims[d] + coord[d];
		else
			*row = *row * src->dims[d] + coord[d];
	}
}

/* dst's shape is src's without the reduced dimensions (or with them of extent 1). */
static bool
shapes_match(const View *dst, const View *src, unsigned dims, Loc loc)
{
	int kept[MAX_RANK], n = 0;
	for (int d = 0; d < src->rank; d++)
		if (!(dims >> d & 1))
			kept[n++] = src->dims[d];
	bool ok = dst->rank == n;
	for (int d = 0; ok && d < n; d++)
		ok = dst->dims[d] == kept[d];
	if (!ok && dst->rank == src->rank) {
		ok = true;
		for (int d = 0; ok && d < src->rank; d++)
			ok = dst->dims[d] == ((dims >> d & 1) ? 1 : src->dims[d]);
	}
	if (!ok) {
		char want[64], got[64];
		format_list(want, sizeof want, '[', kept, n, ']');
		format_list(got, sizeof got, '[', dst->dims, dst->rank, ']');
		error(loc, "reduce: '%s' has the shape %s; the reduction of '%s' over the dimensions given has the shape %s",
		      dst->name, got, src->name, want);
	}
	return ok;
}

static void
thread_part(const View *dst, const View *src, unsigned dims, int row_len, int thread, ThreadPart *p)
{
	const Layout *ld = dst->base->layout, *ls = src->base->layout;
	for (int ds = 0; ds < ld->slots; ds++)
		p->row_at[ds] = -1;
	for (int r = 0; r < dst->count; r++) {
		int ds = layout_slot_in_thread(ld, dst->map[r], thread);
		if (ds >= 0)
			p->row_at[ds] = r;
		p->nsrc[r] = 0;
	}
	for (int i = 0; i < src->count; i++) {
		int slot = layout_slot_in_thread(ls, src->map[i], thread), row, pos;
		if (slot < 0)
			continue;
		row_of(src, dims, i, &row, &pos);
		p->src[row * row_len + p->nsrc[row]++] = slot;
	}
}

/* Whether two threads run the same code: for each dst slot, none or the same src slots. */
static bool
same_part(const ThreadPart *a, const ThreadPart *b, int dslots, int row_len)
{
	for (int ds = 0; ds < dslots; ds++) {
		int ra = a->row_at[ds], rb = b->row_at[ds];
		if ((ra < 0) != (rb < 0))
			return false;
		if (ra < 0)
			continue;
		if (a->nsrc[ra] != b->nsrc[rb] ||
		    memcmp(&a->src[ra * row_len], &b->src[rb * row_len], (size_t)a->nsrc[ra] * sizeof(int)) != 0)
			return false;
	}
	return true;
}

/* The lanes of one group write each dst slot for the same row, so that the shuffles combine one row. */
static bool
groups_agree(const ThreadPart *parts, int threads, int dslots, uint32_t mask)
{
	for (int t = 0; t < threads; t++)
		for (int m = 1; m < 32; m <<= 1)
			for (int ds = 0; (mask & (uint32_t)m) && (t ^ m) < threads && ds < dslots; ds++)
				if (parts[t].row_at[ds] != parts[t ^ m].row_at[ds])
					return false;
	return true;
}

/* The lanes of warp w that hold src elements of row r, and how many elements they hold together. */
static uint32_t
row_lanes(ThreadPart *parts, int w, int threads, int r, int *held)
{
	uint32_t lanes = 0;
	*held = 0;
	for (int l = 0; l < 32 && w * 32 + l < threads; l++)
		if (parts[w * 32 + l].nsrc[r]) {
			lanes |= 1u << l;
			*held += parts[w * 32 + l].nsrc[r];
		}
	return lanes;
}

/* The warp other than w that holds an element of row r, or -1. */
static int
other_warp(ThreadPart *parts, int w, int threads, int r)
{
	for (int t = 0; t < threads; t++)
		if (t / 32 != w && parts[t].nsrc[r])
			return t / 32;
	return -1;
}

/* Every lane of a row's group holds its part: the lanes that differ from the lowest one in the bits of one
   mask (a butterfly's distances), the same mask for every row; *mask gets it (-1 before a row is seen). */
static bool
check_groups(ThreadPart *parts, const View *dst, const View *src, int threads, int rows, int row_len, int64_t *mask,
             Loc loc)
{
	*mask = -1;
	for (int w = 0; w * 32 < threads; w++)
		for (int r = 0; r < rows; r++) {
			int held;
			uint32_t group = row_lanes(parts, w, threads, r, &held), bits = 0;
			if (!group)
				continue;
			int first = __builtin_ctz(group);
			for (int l = first; l < 32; l++)
				bits |= (group >> l & 1) ? (uint32_t)(l ^ first) : 0;
			if (held < row_len && other_warp(parts, w, threads, r) >= 0) {
				error(loc, "reduce: the elements of '%s' that make element %d of '%s' are spread over warps %d and %d; "
				           "the lanes of one warp exchange registers, warps exchange through shared memory: reduce "
				           "each warp's part into a shared tensor, cta_sync, and reduce that", src->name, r, dst->name,
				      w, other_warp(parts, w, threads, r));
				return false;
			}
			bool coset = __builtin_popcount(group) == 1 << __builtin_popcount(bits);
			if (held != row_len || !coset || (*mask >= 0 && bits != (uint32_t)*mask)) {
				error(loc, "reduce: the elements of '%s' that make element %d of '%s' lie in lanes 0x%08x of warp %d "
				           "(%d held for %d elements); tilec reduces over lanes that differ in a fixed set of lane bits "
				           "and hold each element once, the same set for every element", src->name, r, dst->name,
				      group, w, held, row_len);
				return false;
			}
			*mask = bits;
		}
	return true;
}

bool
reduce_plan(const View *dst, const View *src, unsigned dims, int threads, Loc loc, ReducePlan *plan)
{
	if (!shapes_match(dst, src, dims, loc))
		return false;
	int rows = dst->count, row_len = src->count / rows, dslots = dst->base->layout->slots;
	ThreadPart *parts = scratch_alloc((size_t)threads * sizeof *parts);
	for (int t = 0; t < threads; t++) {
		parts[t].row_at = scratch_alloc((size_t)dslots * sizeof(int));
		parts[t].nsrc = scratch_alloc((size_t)rows * sizeof(int));
		parts[t].src = scratch_alloc((size_t)rows * row_len * sizeof(int));
		thread_part(dst, src, dims, row_len, t, &parts[t]);
	}
	int64_t mask;
	if (!check_groups(parts, dst, src, threads, rows, row_len, &mask, loc))
		return false;
	plan->mask = mask < 0 ? 0 : (uint32_t)mask;
	bool agree = mask >= 0 && groups_agree(parts, threads, dslots, plan->mask);
	for (int t = 1; t < threads || !agree; t++)
		if (!agree || !same_part(&parts[t], &parts[0], dslots, row_len)) {
			error(loc, "reduce: thread %d holds other slots of '%s' or '%s' than thread 0, or a row other than its "
			           "lanes; tilec writes one code for every thread, so the layouts must give each thread the same "
			           "slots of its rows", t, dst->name, src->name);
			return false;
		}
	plan->n = 0;
	plan->dst_slot = pool_alloc((size_t)dslots * sizeof(int));
	plan->nsrc = pool_alloc((size_t)dslots * sizeof(int));
	plan->src = pool_alloc((size_t)dslots * sizeof(int *));
	for (int ds = 0; ds < dslots; ds++) {
		int r = parts[0].row_at[ds];
		if (r < 0)
			continue;
		if (!parts[0].nsrc[r]) {
			error(loc, "reduce: thread 0 writes element %d of '%s' but holds no element of its row in '%s'", r,
			      dst->name, src->name);
			return false;
		}
		plan->dst_slot[plan->n] = ds;
		plan->nsrc[plan->n] = parts[0].nsrc[r];
		plan->src[plan->n] = pool_alloc((size_t)row_len * sizeof(int));
		memcpy(plan->src[plan->n], &parts[0].src[r * row_len], (size_t)parts[0].nsrc[r] * sizeof(int));
		plan->n++;
	}
	return true;
}

/* The value of entry i of the plan: src's slots folded left to right (OP_ADD, F_MAX or F_MIN), then, where
   the lanes are an aligned group (the mask's bits the lowest ones), lanes_OP over it or warp_OP; other
   masks take reduce_step per bit. */
IExpr *
reduce_value(const ReducePlan *plan, int i, Tensor *src, ReduceKind kind)
{
	IExpr *v = NULL;
	for (int k = 0; k < plan->nsrc[i]; k++) {
		IExpr *reg = ie_new(IE_REG, value_type(src->type));
		reg->tensor = src;
		reg->slot = plan->src[i][k];
		v = v ? reduce_combine(v, reg, kind) : reg;
	}
	if (!plan->mask || !reduce_aligned(plan))
		return v;
	static const Func lanes_fn[] = {[REDUCE_SUM] = F_LANES_SUM, [REDUCE_MAX] = F_LANES_MAX, [REDUCE_MIN] = F_LANES_MIN};
	static const Func warp_fn[] = {[REDUCE_SUM] = F_WARP_SUM, [REDUCE_MAX] = F_WARP_MAX, [REDUCE_MIN] = F_WARP_MIN};
	IExpr *c = ie_new(IE_CALL, v->type);
	c->fn = plan->mask == 31 ? warp_fn[kind] : lanes_fn[kind];
	c->a = v;
	c->b = plan->mask == 31 ? NULL : ie_int(plan->mask + 1, T_I32);
	return c;
}

bool
reduce_aligned(const ReducePlan *plan)
{
	return (plan->mask & (plan->mask + 1)) == 0;
}

/* a OP b for the fold */
IExpr *
reduce_combine(IExpr *a, IExpr *b, ReduceKind kind)
{
	if (kind == REDUCE_SUM)
		return ie_binary(OP_ADD, a, b);
	IExpr *c = ie_new(IE_CALL, a->type);
	c->fn = kind == REDUCE_MAX ? F_MAX : F_MIN;
	c->a = a;
	c->b = b;
	return c;
}

/* One butterfly step at lane distance m: own and other (other = shfl_xor(own, m), a variable) combined with
   the lower lane's value first, as lanes_* do, so that both lanes of the pair get the same bits. */
IExpr *
reduce_step(IExpr *own, IExpr *other, int m, ReduceKind kind)
{
	if (kind == REDUCE_SUM)
		return ie_binary(OP_ADD, own, other);
	IExpr *upper = ie_binary(OP_NE, ie_binary(OP_BITAND, ie_builtin(B_LANE_ID), ie_int(m, T_I32)), ie_int(0, T_I32));
	IExpr *lo = ie_new(IE_SELECT, own->type), *hi = ie_new(IE_SELECT, own->type);
	lo->a = hi->a = upper;
	lo->b = hi->index = other;
	lo->index = hi->b = own;
	return reduce_combine(lo, hi, kind);
}

/* shfl_xor(v, m) */
IExpr *
reduce_shuffle(IExpr *v, int m)
{
	IExpr *c = ie_new(IE_CALL, v->type);
	c->fn = F_SHFL_XOR;
	c->a = v;
	c->b = ie_int(m, T_U32);
	return c;
}
