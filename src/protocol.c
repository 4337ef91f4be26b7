/* protocol.c: the protocol checks of TCGEN05.md section 5 (waits, fences, allocation, relinquish, use after
 * dealloc, warp uniformity) over the lowered program, statement by statement; the state is a Protocol. */
#include <string.h>

#include "tilec.h"

/* Facts carry the set of warps on whose path they hold: a branch whose condition splits the CTA by
   warp sends each warp down one side only. */

/* A register written by tcgen05.ld that no wait for loads (TC_WAIT_LD) has covered yet. */
typedef struct LoadedReg {
	Tensor *tensor;
	int word;
	Loc loc;
	uint64_t warps;
	bool auto_wait; /* a copy's: tilec places the wait for it */
} LoadedReg;

/* An allocation made on this path. Its columns are the CTA's (TCGEN05.md 4), so it is live or freed for
   every warp at once: a dealloc by any one warp frees it for all. */
typedef struct LiveAlloc {
	AllocInfo *alloc;
	bool live;        /* it may not have been freed yet */
	bool unpublished; /* no cta_sync since the alloc: only its warp may read the address yet */
} LiveAlloc;

/* A dealloc on this path, of the whole CTA's allocation. */
typedef struct Freed {
	AllocInfo *alloc;
	Loc at;
	int warp; /* the warp that executes the dealloc */
} Freed;

/* A TMEM rectangle written by one warp's tcgen05.st, or read by its tcgen05.ld, and how far the access
   has completed on this path. Nothing orders a tcgen05.ld or st before a later one of the same thread
   (they are not pipelined), so the cells stay the access's until its wait, and for other warps until a
   cta_sync after the wait. */
typedef struct StoreState {
	TmemRect rect;
	Loc loc;
	bool ld;       /* a load's: it reads the cells */
	bool pending;  /* its warp has not waited for it (TC_WAIT_ST, TC_WAIT_LD) since */
	bool unsynced; /* no cta_sync after that wait: other warps may not access the cells */
	uint64_t ordered_for; /* while unsynced: the warps a bar_sync after the wait ordered it for */
	int id;
	bool auto_wait; /* a copy's: tilec places the wait for it */
	bool dead;      /* superseded by a later access to the same rect: off the list at the next compaction */
	struct StoreState *same_bucket; /* the next record in its bucket of the flow's rect index */
} StoreState;

/* The record store of a path is linear in the number of accesses: a new access finds the records it
   supersedes through the rect index, the waits and the checks of pending accesses walk only the records
   that may be pending, and the check of an access's cells walks the list only when a record of its own
   warp may be pending or another warp's unsynced record may share its lanes (the summaries below, kept
   conservative). A superseded record is marked dead (pending and unsynced cleared, so no check sees it)
   and leaves the list with the next compaction, before anything that depends on which records are on it
   (a copy, a merge, the races of an if's sides). */
#define LANE_WARPS 64

/* What the protocol checks know at a point of the kernel; merged where control flow joins. */
typedef struct Flow {
	List loaded;  /* LoadedReg*, owned by this path */
	List stores;  /* StoreState*, owned by this path: the loads' rects too */
	List live;    /* LiveAlloc*, owned by this path */
	List freed;   /* Freed*: freed on some path */
	uint64_t relinquished_some, relinquished_all; /* warps */
	Loc relinquish_loc;
	List pending;       /* StoreState*: the records of stores that may be pending, in the same order */
	bool maybe_inert;   /* a record on stores may be neither pending nor unsynced: flow_prune has work */
	bool has_dead;      /* a record on stores is dead */
	StoreState **rect_index; /* buckets of the live records by rect; NULL: built at the next access */
	size_t rect_buckets;
	int rect_live;      /* records put into the index since it was built */
	uint64_t pending_warps[2];   /* [ld]: warps that may have a pending store ([0]) or load ([1]) */
	uint64_t unsynced_any;       /* warps that may have an unsynced record */
	uint64_t unsynced_lanes[LANE_WARPS][2]; /* per warp, the TMEM lanes (0-127) its unsynced records may touch */
} Flow;

/* Whether every thread of the CTA reaches a point: a barrier needs them all (CUDA's __syncthreads). */
typedef enum SplitKind {
	SPLIT_NONE,    /* every thread that started the kernel */
	SPLIT_DATA,    /* the threads may part where values read per thread (memory, registers, vars) decide */
	SPLIT_THREADS  /* they part: by their indices, or on a condition of their indices */
} SplitKind;

typedef struct Split {
	SplitKind kind;
	Loc loc;         /* the condition or loop bounds where they part */
	const char *why; /* the note there */
} Split;

struct Protocol {
	bool unchecked_waits; /* tilec run --unchecked-waits: a warp's own missing wait is a warning */
	KernelIR *k;
	int errors_before; /* error_count when the kernel began: a later error may have hidden an allocation */
	uint64_t warps;    /* warps that may execute the current statement */
	bool varying;      /* inside control flow that may split a warp */
	Loc varying_loc;   /* the condition that splits it */
	bool partial;      /* some threads of warps may skip the statement while others run it: a split of a warp, or
	                      a condition or loop bound that tilec could not evaluate in each thread */
	Split split;       /* whether every thread of the CTA reaches the current statement */
	int cta_group;     /* 0 until the first instruction that names one */
	Loc cta_group_loc;
	List allocs;       /* AllocInfo*: the kernel's allocations, in order */
	Flow flow;
	int store_ids;
	List forks;        /* ProtoFork*: the ifs and loops open around the statement, outermost first */
	List waits;        /* ProtoWait*: the waits placed for copies, for lowering to write (protocol_take_wait) */
	int waits_taken;
	List named_bars;   /* NamedBarUse*: the kernel's bar_sync and bar_arrive statements */
	List async;        /* ProtoAsync*: tcgen05 work that completes at a commit's barrier (cp, mma) */
	List stores;       /* ProtoStore*: threads' stores to shared tensors, for the stores of a loop's next trip */
	MbarCheck *mbarcheck; /* the mbarrier pipeline checks (mbarcheck.c) */
};

/* A threads' store to a shared tensor (protocol_shared_store). */
typedef struct ProtoStore {
	const Tensor *t;
	int stage; /* the tile of a stack of tiles it writes (0 unstacked), -1: not known */
	Loc loc;
} ProtoStore;


/* A commit after the first one of an asynchronous instruction's thread: it covers the instruction too. */
typedef struct ProtoCommit {
	const Tensor *bar;
	const IExpr *index;
} ProtoCommit;

/* An asynchronous tcgen05 instruction (a row that completes at commit) of a warp's issuing thread: pending
   until that thread's commit names a barrier, then complete once a wait on that barrier has passed. Not
   followed per path: a commit or wait on any path counts. */
typedef struct ProtoAsync {
	const IsaInstr *in;
	Loc loc;
	uint64_t warps;          /* the warps whose elected thread issued it */
	const Tensor *bar;       /* the commit's barrier tensor; NULL: not committed yet */
	const IExpr *bar_index;  /* and element */
	Loc commit_loc;
	List later_commits;      /* ProtoCommit*: the thread's commits after the first: tcgen05.commit tracks every
	                            earlier mma and cp of the thread, so a wait on any of their barriers completes it
	                            (the accumulator-ready commit after a mainloop that commits each stage) */
	bool has_rect;           /* it writes TMEM (cp): the cells, which a ld may read only once it is waited */
	bool reads_only;         /* the rect holds the scale factors an mma reads: a cp over them waits for the mma */
	TmemRect rect;
	uint64_t waited;         /* the warps that passed a wait on its commit's barrier */
	const Tensor *reads[2];  /* the shared tensors it reads (mma: A and B), NULL: none */
	int read_stage[2];       /* the tile of each in a stack of tiles (0 unstacked), -1: chosen at run time */
	bool complete;           /* some wait on its commit's barrier has passed */
	bool reads_tmem;         /* an mma with A from TMEM: the cells it reads, which no st, cp or mma may write */
	TmemRect read_rect;      /* until a wait on its commit's barrier has passed (LANGUAGE 11.8) */
	bool store_reported;     /* a store to what it reads was reported */
} ProtoAsync;

/* A bar_sync or bar_arrive statement and the warps that reach it (each lowering of it: a loop's too). */
typedef struct NamedBarUse {
	Loc loc;
	int id, threads;
	bool arrive;
	uint64_t warps;
	bool counted; /* tilec knows the warps that reach it: whole warps, no condition that values read decide */
} NamedBarUse;

/* Where control flow splits, what its join needs. */
struct ProtoFork {
	uint64_t warps, then_warps, else_warps; /* loop: then and else are the warps that reach it */
	bool varying;
	bool partial, sides_partial; /* before the fork, and in its branches */
	Loc varying_loc;
	Split split, then_split, else_split; /* before the fork, and on each side */
	Flow first; /* if: the state at its start, after protocol_else the state after the then side; loop: before it */
	bool repeats;     /* loop: its body may run more than once */
	bool runs;        /* loop: its body runs at least once (constant bounds), so no path skips it */
	int allocs_before; /* loop: p->allocs.n at its start */
	int freed_before;  /* p->flow.freed.n at its start */
	int stores_before; /* p->store_ids at its start */
	Loc loop_loc;
	const IExpr *cond; /* if: its condition */
	Loc cond_loc;
};

/* Around the report of a warp's own access that lacks its wait: under --unchecked-waits a warning. */
static void
own_wait_missing(const Protocol *p, bool reporting)
{
	diag_demoted = reporting && p->unchecked_waits ? WARN_UNCHECKED_WAIT : WARN_COUNT;
}

/* --------------------------------------------------------------- warps */

static int
popcount64(uint64_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

static int
lowest_warp(uint64_t x)
{
	for (int i = 0; i < 64; i++)
		if (x >> i & 1)
			return i;
	return -1;
}

/* Splits the current warps by a condition: which warps take each side, and whether a warp may split. */
static void
split_warps(Protocol *p, const IExpr *cond, uint64_t *then_warps, uint64_t *else_warps, bool *varying)
{
	*then_warps = *else_warps = 0;
	*varying = false;
	/* a && b takes the then side in the warps where both may hold, a || b where either may: so that
	   if (warp_id == 1 && n > 0) fixes warp 1 although n is known only at run time */
	if (cond->kind == IE_BINARY && (cond->op == OP_LAND || cond->op == OP_LOR)) {
		uint64_t ta, ea, tb, eb;
		bool va, vb;
		split_warps(p, cond->a, &ta, &ea, &va);
		split_warps(p, cond->b, &tb, &eb, &vb);
		bool and = cond->op == OP_LAND;
		*then_warps = and ? ta & tb : ta | tb;
		*else_warps = and ? ea | eb : ea & eb;
		*varying = va || vb;
		return;
	}
	int nwarps = (p->k->threads + 31) / 32;
	for (int w = 0; w < nwarps; w++) {
		if (!(p->warps >> w & 1))
			continue;
		int ntrue = 0, nfalse = 0;
		for (int l = 0; l < 32 && w * 32 + l < p->k->threads; l++) {
			int64_t v;
			if (!ie_eval_thread(cond, p->k->block, w * 32 + l, &v)) {
				*then_warps = *else_warps = p->warps;
				*varying = ie_varying(cond);
				return;
			}
			if (v)
				ntrue++;
			else
				nfalse++;
		}
		if (ntrue)
			*then_warps |= 1ull << w;
		if (nfalse)
			*else_warps |= 1ull << w;
		if (ntrue && nfalse)
			*varying = true;
	}
}

/* The first thread that reaches here (in p->warps) and the first whose value of e (its truth, with truth)
   differs from that one's (-1 when none); false when e cannot be evaluated in some thread. */
static bool
thread_values(Protocol *p, const IExpr *e, bool truth, int *first, int64_t *first_value, int *other)
{
	*first = *other = -1;
	for (int t = 0; t < p->k->threads; t++) {
		int64_t v;
		if (!(p->warps >> (t / 32) & 1))
			continue;
		if (!ie_eval_thread(e, p->k->block, t, &v))
			return false;
		if (truth)
			v = v != 0;
		if (*first < 0) {
			*first = t;
			*first_value = v;
		} else if (*other < 0 && v != *first_value) {
			*other = t;
		}
	}
	return true;
}

/* The split of a value that cannot be evaluated in every thread: by what it reads */
static Split
split_by_reads(const IExpr *e, Loc loc, const char *what)
{
	if (ie_thread_index(e))
		return (Split){SPLIT_THREADS, loc, pool_printf("%s depends on the thread's index", what)};
	if (ie_per_thread(e))
		return (Split){SPLIT_DATA, loc, pool_printf("%s depends on values that may differ between threads", what)};
	return (Split){SPLIT_NONE, loc, NULL};
}

/* The split of code inside outer whose own split is inner: the stronger, the outer one when they tie */
static Split
split_within(Split outer, Split inner)
{
	return inner.kind > outer.kind ? inner : outer;
}

/* --------------------------------------------------------------- the flow: facts, merged where paths join */

/* The lanes of a rect as two words of bits; every lane when they fall outside 0-127. */
static void
rect_lanes(const TmemRect *r, uint64_t lanes[2])
{
	lanes[0] = lanes[1] = 0;
	if (r->lane0 < 0 || r->lanes < 0 || r->lane0 + r->lanes > 128) {
		lanes[0] = lanes[1] = ~0ull;
		return;
	}
	for (int l = r->lane0; l < r->lane0 + r->lanes; l++)
		lanes[l / 64] |= 1ull << (l % 64);
}

/* A warp's bit in a set of warps; every bit for a warp past the set's 64. */
static uint64_t
warp_bit(int warp)
{
	return warp >= 0 && warp < LANE_WARPS ? 1ull << warp : ~0ull;
}

static void
note_unsynced(Flow *f, const TmemRect *r)
{
	uint64_t lanes[2];
	rect_lanes(r, lanes);
	int w = r->warp >= 0 && r->warp < LANE_WARPS ? r->warp : 0;
	f->unsynced_any |= 1ull << w;
	f->unsynced_lanes[w][0] |= lanes[0];
	f->unsynced_lanes[w][1] |= lanes[1];
}

/* The summaries of f from its records: the pending list, the warps with pending records, the lanes of
   the unsynced ones; the rect index to be built again. */
static void
flow_summarise(Flow *f)
{
	f->pending = (List){0};
	f->pending_warps[0] = f->pending_warps[1] = 0;
	f->unsynced_any = 0;
	memset(f->unsynced_lanes, 0, sizeof f->unsynced_lanes);
	f->rect_index = NULL;
	for (int i = 0; i < f->stores.n; i++) {
		StoreState *st = LIST_AT(f->stores, StoreState, i);
		if (st->pending) {
			list_push(&f->pending, st);
			f->pending_warps[st->ld] |= warp_bit(st->rect.warp);
		}
		if (st->unsynced)
			note_unsynced(f, &st->rect);
	}
}

/* Takes the dead records off f's list. */
static void
flow_drop_dead(Flow *f)
{
	if (!f->has_dead)
		return;
	int n = 0;
	for (int i = 0; i < f->stores.n; i++)
		if (!LIST_AT(f->stores, StoreState, i)->dead)
			f->stores.v[n++] = f->stores.v[i];
	f->stores.n = n;
	f->has_dead = false;
}

static List
list_copy(const List *l)
{
	List r = {0};
	for (int i = 0; i < l->n; i++)
		list_push(&r, l->v[i]);
	return r;
}

static Flow
flow_copy(const Flow *f)
{
	Flow r = *f;
	r.freed = list_copy(&f->freed);
	r.loaded = r.stores = r.live = (List){0};
	for (int i = 0; i < f->loaded.n; i++) {
		LoadedReg *x = pool_alloc(sizeof *x);
		*x = *LIST_AT(f->loaded, LoadedReg, i);
		list_push(&r.loaded, x);
	}
	for (int i = 0; i < f->stores.n; i++) {
		StoreState *x = pool_alloc(sizeof *x);
		*x = *LIST_AT(f->stores, StoreState, i);
		list_push(&r.stores, x);
	}
	for (int i = 0; i < f->live.n; i++) {
		LiveAlloc *x = pool_alloc(sizeof *x);
		*x = *LIST_AT(f->live, LiveAlloc, i);
		list_push(&r.live, x);
	}
	flow_summarise(&r);
	return r;
}

/* Joins two paths: warps that went only one way keep that side's facts, warps that may have gone
   either way keep the union (may facts) or the intersection (must facts). */
static uint64_t
join_may(uint64_t a, uint64_t b, uint64_t t, uint64_t e)
{
	return (a & t) | (b & e) | (a & ~t & ~e);
}

static uint64_t
join_must(uint64_t a, uint64_t b, uint64_t t, uint64_t e)
{
	return (a & t & ~e) | (b & e & ~t) | (a & b & t & e) | (a & ~t & ~e);
}

/* The dealloc of a on this path, if any. */
static Freed *
freed_on(const Flow *f, const AllocInfo *a)
{
	for (int i = 0; i < f->freed.n; i++)
		if (LIST_AT(f->freed, Freed, i)->alloc == a)
			return LIST_AT(f->freed, Freed, i);
	return NULL;
}

/* The same register word loaded by the same statement: the loads of two branches stay apart, so that
   the wait placed after the join is the wait of each (--explain names both copies). */
static bool
same_load(const LoadedReg *x, const LoadedReg *y)
{
	return x->tensor == y->tensor && x->word == y->word && x->loc.file == y->loc.file &&
	       x->loc.first_line == y->loc.first_line && x->loc.first_column == y->loc.first_column;
}

static Flow
flow_merge(const Flow *a, const Flow *b, uint64_t t, uint64_t e)
{
	Flow r = flow_copy(a);
	for (int i = 0; i < r.loaded.n; i++) {
		LoadedReg *x = LIST_AT(r.loaded, LoadedReg, i);
		uint64_t other = 0;
		for (int j = 0; j < b->loaded.n; j++) {
			LoadedReg *y = LIST_AT(b->loaded, LoadedReg, j);
			if (same_load(x, y))
				other = y->warps;
		}
		x->warps = join_may(x->warps, other, t, e);
	}
	for (int j = 0; j < b->loaded.n; j++) {
		LoadedReg *y = LIST_AT(b->loaded, LoadedReg, j);
		bool seen = false;
		for (int i = 0; i < a->loaded.n && !seen; i++)
			seen = same_load(LIST_AT(a->loaded, LoadedReg, i), y);
		if (!seen) {
			LoadedReg *x = pool_alloc(sizeof *x);
			*x = *y;
			x->warps = join_may(0, y->warps, t, e);
			list_push(&r.loaded, x);
		}
	}
	/* An allocation is the CTA's: a side that some warp surely took (a warp that goes down it only) has
	   surely run, and its dealloc freed the memory for every warp. An allocation on both lists was made
	   before the fork (none is made twice), so it stays live only if neither side freed it; when a side
	   may not have run, it stays live if it is on either. */
	bool then_ran = t & ~e, else_ran = e & ~t;
	for (int i = 0; i < r.live.n; i++) {
		LiveAlloc *x = LIST_AT(r.live, LiveAlloc, i);
		for (int j = 0; j < b->live.n; j++) {
			LiveAlloc *y = LIST_AT(b->live, LiveAlloc, j);
			if (y->alloc != x->alloc)
				continue;
			if (!t)
				x->live = y->live;
			else if (then_ran && else_ran)
				x->live &= y->live;
			else if (e)
				x->live |= y->live;
			x->unpublished |= y->unpublished;
		}
	}
	for (int j = 0; j < b->live.n; j++) {
		LiveAlloc *y = LIST_AT(b->live, LiveAlloc, j);
		bool seen = false;
		for (int i = 0; i < a->live.n && !seen; i++)
			seen = LIST_AT(a->live, LiveAlloc, i)->alloc == y->alloc;
		if (!seen) {
			LiveAlloc *x = pool_alloc(sizeof *x);
			*x = *y;
			list_push(&r.live, x);
		}
	}
	for (int i = 0; i < b->freed.n; i++)
		if (!freed_on(&r, LIST_AT(b->freed, Freed, i)->alloc))
			list_push(&r.freed, b->freed.v[i]);
	for (int i = 0; i < r.stores.n; i++) {
		StoreState *x = LIST_AT(r.stores, StoreState, i);
		uint64_t bit = 1ull << x->rect.warp, pb = 0, ub = 0, ob = t;
		for (int j = 0; j < b->stores.n; j++) {
			StoreState *y = LIST_AT(b->stores, StoreState, j);
			if (y->id == x->id) {
				pb = y->pending ? bit : 0;
				ub = y->unsynced ? bit : 0;
				ob = y->unsynced ? y->ordered_for : ~0ull;
			}
		}
		/* the warps a bar_sync ordered it for on their own paths (a cta_sync orders it for all); a path
		   that lacks the access keeps what the other path says for the warps that may have taken that one
		   (the access was made on it), as a record only the other side has is kept whole */
		x->ordered_for = join_must(x->unsynced ? x->ordered_for : ~0ull, ob, t, e);
		x->pending = join_may(x->pending ? bit : 0, pb, t, e) != 0;
		x->unsynced = join_may(x->unsynced ? bit : 0, ub, t, e) != 0;
	}
	for (int j = 0; j < b->stores.n; j++) {
		StoreState *y = LIST_AT(b->stores, StoreState, j);
		bool seen = false;
		for (int i = 0; i < a->stores.n && !seen; i++)
			seen = LIST_AT(a->stores, StoreState, i)->id == y->id;
		if (!seen) {
			StoreState *x = pool_alloc(sizeof *x);
			*x = *y;
			list_push(&r.stores, x);
		}
	}
	r.relinquished_some = join_may(a->relinquished_some, b->relinquished_some, t, e);
	r.relinquished_all = join_must(a->relinquished_all, b->relinquished_all, t, e);
	if (!a->relinquished_some)
		r.relinquish_loc = b->relinquish_loc;
	r.maybe_inert = true;
	flow_summarise(&r);
	return r;
}

/* Drops facts that no longer constrain anything, so long kernels keep the lists short. */
static void
flow_prune(Flow *f)
{
	int n = 0;
	for (int i = 0; i < f->loaded.n; i++)
		if (LIST_AT(f->loaded, LoadedReg, i)->warps)
			f->loaded.v[n++] = f->loaded.v[i];
	f->loaded.n = n;
	if (!f->maybe_inert)
		return; /* every record is pending, unsynced or dead: the dead go before a walk that counts them */
	n = 0;
	for (int i = 0; i < f->stores.n; i++) {
		StoreState *st = LIST_AT(f->stores, StoreState, i);
		if (st->pending || st->unsynced)
			f->stores.v[n++] = st;
	}
	f->stores.n = n;
	f->maybe_inert = f->has_dead = false;
}

static LoadedReg *
find_loaded(Protocol *p, const Tensor *t, int word)
{
	for (int i = 0; i < p->flow.loaded.n; i++) {
		LoadedReg *r = LIST_AT(p->flow.loaded, LoadedReg, i);
		if (r->tensor == t && r->word == word && (r->warps & p->warps))
			return r;
	}
	return NULL;
}

/* --------------------------------------------------------------- the waits of copies */

/* A copy is complete where the program depends on it (LANGUAGE.md 10.4): where an apply's load or store
   would make an error, a copy's gets its wait from tilec, just before the statement that needs it. */

bool
protocol_take_wait(Protocol *p, ProtoWait *out)
{
	if (p->waits_taken == p->waits.n) {
		p->waits.n = p->waits_taken = 0;
		return false;
	}
	*out = *LIST_AT(p->waits, ProtoWait, p->waits_taken++);
	return true;
}

void
protocol_waits_taken(const Protocol *p)
{
	if (p->waits_taken != p->waits.n)
		fatal("protocol: %d wait%s placed for copies not written by lowering", p->waits.n - p->waits_taken,
		      p->waits.n - p->waits_taken == 1 ? "" : "s");
}

static void
record_wait(Protocol *p, Loc copy, Loc at, TcKind kind, bool written)
{
	List *waits = &p->k->placed_waits;
	for (int i = waits->n - 1; i >= 0 && i >= waits->n - 8; i--) {
		PlacedWait *w = LIST_AT(*waits, PlacedWait, i);
		if (w->kind == kind && w->copy.first_line == copy.first_line && w->copy.file == copy.file &&
		    w->at.first_line == at.first_line && w->at.first_column == at.first_column)
			return;
	}
	PlacedWait *w = pool_alloc(sizeof *w);
	w->copy = copy;
	w->at = at;
	w->kind = kind;
	w->written = written;
	list_push(waits, w);
}

/* The effect of a wait of this kind executed by warps on the facts of one path: every load (store) of
   those warps is complete, as the instruction does. */
static void
complete_on(Protocol *p, Flow *fl, TcKind kind, uint64_t warps, Loc at, bool record, bool written)
{
	bool ld = kind == TC_WAIT_LD;
	for (int i = 0; ld && i < fl->loaded.n; i++) {
		LoadedReg *r = LIST_AT(fl->loaded, LoadedReg, i);
		if (record && r->auto_wait && (r->warps & warps))
			record_wait(p, r->loc, at, kind, written);
		r->warps &= ~warps;
	}
	int n = 0;
	for (int i = 0; i < fl->pending.n; i++) {
		StoreState *st = LIST_AT(fl->pending, StoreState, i);
		if (!(warps >> st->rect.warp & 1) || !st->pending || st->ld != ld) {
			if (st->pending)
				fl->pending.v[n++] = st;
			continue;
		}
		/* a copy's load is recorded by its registers */
		if (record && st->auto_wait && !ld)
			record_wait(p, st->loc, at, kind, written);
		st->pending = false;
		fl->maybe_inert |= !st->unsynced;
	}
	fl->pending.n = n;
	fl->pending_warps[ld] &= ~warps;
	flow_prune(fl);
}

/* Has lowering put a wait of this kind before the statement at loc, then applies its effect. A wait is
   .sync.aligned: in code that may split a warp it goes before the if or loop that splits it, which the
   whole warp reaches, and so completes the copies on every path inside that statement too. */
static void
place_wait(Protocol *p, TcKind kind, Loc loc)
{
	int outer = p->forks.n;
	uint64_t warps = p->warps;
	if (p->varying) {
		while (outer > 0 && LIST_AT(p->forks, ProtoFork, outer - 1)->varying)
			outer--;
		if (outer > 0) {
			outer--;
			warps = LIST_AT(p->forks, ProtoFork, outer)->warps;
			loc = p->varying_loc;
		}
	}
	ProtoWait *w = pool_alloc(sizeof *w);
	*w = (ProtoWait){kind, loc, outer < p->forks.n};
	list_push(&p->waits, w);
	complete_on(p, &p->flow, kind, warps, loc, true, false);
	for (int i = outer; i < p->forks.n; i++)
		complete_on(p, &LIST_AT(p->forks, ProtoFork, i)->first, kind, warps, loc, false, false);
}

/* Whether a copy's load (store) of one of the current warps is outstanding. */
static bool
copy_pending(Protocol *p, TcKind kind)
{
	if (kind == TC_WAIT_LD) {
		for (int i = 0; i < p->flow.loaded.n; i++) {
			LoadedReg *r = LIST_AT(p->flow.loaded, LoadedReg, i);
			if (r->auto_wait && (r->warps & p->warps))
				return true;
		}
	}
	for (int i = 0; i < p->flow.pending.n; i++) {
		StoreState *st = LIST_AT(p->flow.pending, StoreState, i);
		if (st->auto_wait && st->pending && st->ld == (kind == TC_WAIT_LD) && (p->warps >> st->rect.warp & 1))
			return true;
	}
	return false;
}

void
protocol_complete_copies(Protocol *p, int effects, Loc loc)
{
	if ((effects & EFF_COMPLETES_LOADS) && copy_pending(p, TC_WAIT_LD))
		place_wait(p, TC_WAIT_LD, loc);
	if ((effects & EFF_COMPLETES_STORES) && copy_pending(p, TC_WAIT_ST))
		place_wait(p, TC_WAIT_ST, loc);
}

/* --------------------------------------------------------------- statements */

/* Rects of two tensors at addresses a device function's caller passes (param) may share cells in any
   column: the caller may pass one address for both (FlashAttention-4 writes P over S). Their lanes
   count from the same base: a warp reaches only its own 32 lanes of each. */
static bool
rects_overlap(const TmemRect *a, const TmemRect *b)
{
	return a->space == b->space && a->lane0 < b->lane0 + b->lanes && b->lane0 < a->lane0 + a->lanes &&
	       (a->param != b->param || (a->col0 < b->col0 + b->cols && b->col0 < a->col0 + a->cols));
}

/* After an error about an ld or st, no further error about that statement's access. */
static void
forget_access(Protocol *p, Loc loc)
{
	for (int i = 0; i < p->flow.stores.n; i++) {
		StoreState *st = LIST_AT(p->flow.stores, StoreState, i);
		if (st->loc.first_line == loc.first_line && st->loc.file == loc.file)
			st->pending = st->unsynced = false;
	}
	p->flow.maybe_inert = true;
}

void
protocol_read(Protocol *p, const IExpr *e, Loc loc)
{
	if (!e)
		return;
	if (e->kind == IE_REG) {
		int word = e->slot * etype_bits(e->tensor->type) / 32;
		LoadedReg *r = find_loaded(p, e->tensor, word);
		if (r && r->auto_wait) {
			place_wait(p, TC_WAIT_LD, loc);
		} else if (r) {
			own_wait_missing(p, true);
			error(loc, "reads register slot %d of '%s' before %s; the %s that writes it may not have "
			           "completed", e->slot, e->tensor->name, isa_name(TC_WAIT_LD, 0), isa_name(TC_LD, 0));
			note(r->loc, "the %s that writes it is here; put %s; after it on every path to the read",
			     isa_name(TC_LD, 0), isa_spelling(TC_WAIT_LD, 0));
			own_wait_missing(p, false);
			/* one report per load is enough */
			for (int i = 0; i < p->flow.loaded.n; i++)
				if (LIST_AT(p->flow.loaded, LoadedReg, i)->loc.first_line == r->loc.first_line &&
				    LIST_AT(p->flow.loaded, LoadedReg, i)->loc.file == r->loc.file)
					LIST_AT(p->flow.loaded, LoadedReg, i)->warps = 0;
			forget_access(p, r->loc);
		}
		return;
	}
	protocol_read(p, e->a, loc);
	protocol_read(p, e->b, loc);
	protocol_read(p, e->index, loc);
}


/* Whether the cells of rect r may be accessed now (a load when ld) by r's warp: every earlier access
   to them that is not a load when this is one must be complete, by the same warp's wait, and for
   other warps by a cta_sync after it. A copy's access gets its wait here; any other is reported once. */
/* The records that may keep rect r's cells from its warp: those of its own warp that may be pending, and
   other warps' unsynced ones on its lanes. NULL when there is none; the list of pending records when only
   those of its own warp can (in the order of f's list, so the first found is the same). */
static const List *
cells_may_be_held(const Flow *f, const TmemRect *r, bool ld)
{
	if (r->warp < 0 || r->warp >= LANE_WARPS)
		return &f->stores;
	bool own = (f->pending_warps[0] | (ld ? 0 : f->pending_warps[1])) >> r->warp & 1;
	uint64_t lanes[2];
	rect_lanes(r, lanes);
	uint64_t others = f->unsynced_any & ~(1ull << r->warp);
	for (int w = 0; others; w++, others >>= 1)
		if ((others & 1) && ((f->unsynced_lanes[w][0] & lanes[0]) | (f->unsynced_lanes[w][1] & lanes[1])))
			return &f->stores;
	return own ? &f->pending : NULL;
}

/* The cells two overlapping rects share, for a message. */
static const char *
cells_text(const TmemRect *r, const StoreState *st)
{
	int lane = r->lane0 > st->rect.lane0 ? r->lane0 : st->rect.lane0;
	int col = r->col0 > st->rect.col0 ? r->col0 : st->rect.col0;
	return st->rect.param != r->param
	       ? pool_printf("the cells of tmem parameter '%s' (when the caller passes '%s' over them)",
	                     st->rect.param->name, r->param->name)
	       : pool_printf("TMEM (lane %d, column %d)", lane, col);
}

/* auto_wait: the access is a copy's, which places the wait::ld a store over cells a pending load of its
   own warp reads needs, whoever wrote that load (LANGUAGE 11.8: the PTX ISA orders ld -> st only so). */
static bool
cells_ready_for(Protocol *p, const TmemRect *r, bool ld, bool auto_wait, bool mma, Loc loc)
{
	const List *records = cells_may_be_held(&p->flow, r, ld);
	for (int j = 0; records && j < records->n; j++) {
		StoreState *st = LIST_AT(*records, StoreState, j);
		if ((ld && st->ld) || !rects_overlap(r, &st->rect))
			continue;
		TcKind wait = st->ld ? TC_WAIT_LD : TC_WAIT_ST;
		if (st->rect.warp == r->warp && st->pending && (st->auto_wait || (auto_wait && st->ld && !ld)) &&
		    (p->warps >> r->warp & 1)) {
			if (!st->auto_wait) /* an apply's load: --explain says at it where the copy put its wait */
				record_wait(p, st->loc, loc, wait, false);
			place_wait(p, wait, loc);
			j = -1; /* the wait completed its warps' accesses: look again */
			continue;
		}
		if (st->rect.warp == r->warp && st->pending) {
			const char *cells = cells_text(r, st);
			own_wait_missing(p, true);
			if (mma)
				error(loc, "the mma reads A from %s that warp %d stored with %s without %s in between", cells,
				      r->warp, isa_name(TC_ST, 0), isa_name(TC_WAIT_ST, 0));
			else if (ld)
				error(loc, "%s reads %s that warp %d stored with %s without %s in between", isa_name(TC_LD, 0),
				      cells, r->warp, isa_name(TC_ST, 0), isa_name(TC_WAIT_ST, 0));
			else if (st->ld)
				error(loc, "%s writes %s that a %s of warp %d may still be reading; without %s in "
				           "between, the store may come first", isa_name(TC_ST, 0), cells, isa_name(TC_LD, 0), r->warp,
				      isa_name(TC_WAIT_LD, 0));
			else
				error(loc, "%s writes %s that an earlier %s of warp %d may still be writing; without "
				           "%s in between, the two complete in any order", isa_name(TC_ST, 0), cells, isa_name(TC_ST, 0),
				      r->warp, isa_name(TC_WAIT_ST, 0));
			note(st->loc, "the %s is here; put %s; after it", isa_name(st->ld ? TC_LD : TC_ST, 0),
			     isa_spelling(wait, 0));
			own_wait_missing(p, false);
			forget_access(p, st->loc);
			return false;
		}
		if (st->rect.warp != r->warp && st->unsynced && !(st->ordered_for >> r->warp & 1)) {
			const char *cells = cells_text(r, st);
			if (mma)
				error(loc, "the mma of warp %d reads A from %s that warp %d stored; warp %d must execute %s and then "
				           "a barrier (cta_sync) before the mma", r->warp, cells, st->rect.warp, st->rect.warp,
				      isa_name(TC_WAIT_ST, 0));
			else if (ld)
				error(loc, "warp %d reads %s that warp %d stored; warp %d must execute %s and then cta_sync before "
				           "this load", r->warp, cells, st->rect.warp, st->rect.warp, isa_name(TC_WAIT_ST, 0));
			else
				error(loc, "warp %d writes %s that warp %d %s; warp %d must execute %s and then cta_sync before this "
				           "store", r->warp, cells, st->rect.warp,
				      st->ld ? pool_printf("reads with %s", isa_name(TC_LD, 0)) : "stored", st->rect.warp,
				      isa_name(wait, 0));
			note(st->loc, "the %s of warp %d is here", isa_name(st->ld ? TC_LD : TC_ST, 0), st->rect.warp);
			forget_access(p, st->loc);
			return false;
		}
	}
	return true;
}

static bool
cells_ready(Protocol *p, const TmemRect *r, bool ld, bool auto_wait, Loc loc)
{
	return cells_ready_for(p, r, ld, auto_wait, false, loc);
}

/* TCGEN05.md 4: other warps read the address an alloc wrote into its shared slot only after a barrier. */
static bool
address_published(Protocol *p, const AllocInfo *a, uint64_t warps, Loc loc)
{
	if (!a || !(warps & ~a->warps))
		return true;
	for (int i = 0; i < p->flow.live.n; i++) {
		LiveAlloc *live = LIST_AT(p->flow.live, LiveAlloc, i);
		if (live->alloc != a || !live->unpublished)
			continue;
		error(loc, "warp %d reads the TMEM address that warp %d's %s writes into '%s[%d]' before a cta_sync; "
		           "other warps see the address only after a barrier", lowest_warp(warps & ~a->warps),
		      lowest_warp(a->warps), isa_name(TC_ALLOC, 0), a->slot->name, a->slot_index);
		note(a->loc, "the %s is here; put cta_sync between", isa_name(TC_ALLOC, 0));
		live->unpublished = false;
		return false;
	}
	return true;
}

static bool
same_access(const StoreState *a, const StoreState *b)
{
	return a->ld == b->ld && a->rect.space == b->rect.space && a->rect.param == b->rect.param &&
	       a->rect.warp == b->rect.warp && a->rect.lane0 == b->rect.lane0 && a->rect.lanes == b->rect.lanes &&
	       a->rect.col0 == b->rect.col0 && a->rect.cols == b->rect.cols;
}

static size_t
access_bucket(const StoreState *st, size_t buckets)
{
	uint64_t h = (uint64_t)(uintptr_t)st->rect.space ^ (uint64_t)(uintptr_t)st->rect.param * 31;
	int fields[] = {st->ld, st->rect.warp, st->rect.lane0, st->rect.lanes, st->rect.col0, st->rect.cols};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		h = (h ^ (uint64_t)(uint32_t)fields[i]) * 1099511628211ull;
	return (size_t)(h >> 17) & (buckets - 1);
}

static void
index_put(Flow *f, StoreState *st)
{
	size_t b = access_bucket(st, f->rect_buckets);
	st->same_bucket = f->rect_index[b];
	f->rect_index[b] = st;
	f->rect_live++;
}

/* The records on f's list that a new access st supersedes (the same access to the same rect) are dead
   from now; st goes into the index. The index may still hold records that have left the list (pruned,
   or dead): marking one dead changes nothing, and a rebuild from the list drops them. */
static void
supersede(Flow *f, StoreState *st)
{
	if (!f->rect_index || f->rect_live > 2 * (int)f->rect_buckets) {
		size_t want = 64;
		while (want < 2 * (size_t)f->stores.n + 2)
			want *= 2;
		f->rect_buckets = want;
		f->rect_index = pool_alloc(sizeof *f->rect_index * want);
		f->rect_live = 0;
		for (int i = 0; i < f->stores.n; i++)
			if (!LIST_AT(f->stores, StoreState, i)->dead)
				index_put(f, LIST_AT(f->stores, StoreState, i));
	}
	StoreState **link = &f->rect_index[access_bucket(st, f->rect_buckets)];
	while (*link) {
		StoreState *old = *link;
		if (old->dead) {
			*link = old->same_bucket;
		} else if (same_access(old, st)) {
			old->dead = true;
			old->pending = old->unsynced = false;
			f->has_dead = true;
			*link = old->same_bucket;
		} else {
			link = &old->same_bucket;
		}
	}
	index_put(f, st);
}

static bool async_written(Protocol *p, const TmemRect *r, TcKind by, Loc loc);

void
protocol_apply(Protocol *p, Loc loc, const ApplyCtx *ctx, bool auto_wait)
{
	bool reported = false;
	for (int i = 0; i < ctx->rects.n && !reported; i++) {
		TmemRect *r = LIST_AT(ctx->rects, TmemRect, i);
		for (int j = 0; j < p->allocs.n && !reported; j++)
			if (LIST_AT(p->allocs, AllocInfo, j) == r->space)
				reported = !address_published(p, r->space, 1ull << r->warp, loc);
	}
	if (!ctx->is_ld) {
		for (int i = 0; i < ctx->regs.n; i++) {
			RegRef *ref = LIST_AT(ctx->regs, RegRef, i);
			LoadedReg *r = find_loaded(p, ref->tensor, ref->word);
			if (r && r->auto_wait) {
				place_wait(p, TC_WAIT_LD, loc);
				break;
			}
			if (r) {
				own_wait_missing(p, true);
				error(loc, "this %s stores registers of '%s' that a %s may still be writing", isa_name(TC_ST, 0),
				      ref->tensor->name, isa_name(TC_LD, 0));
				note(r->loc, "the %s is here; %s must come between", isa_name(TC_LD, 0), isa_spelling(TC_WAIT_LD, 0));
				own_wait_missing(p, false);
				for (int j = 0; j < p->flow.loaded.n; j++)
					LIST_AT(p->flow.loaded, LoadedReg, j)->warps = 0;
				reported = true;
				break;
			}
		}
	}
	for (int i = 0; i < ctx->rects.n && !reported; i++)
		reported = !cells_ready(p, LIST_AT(ctx->rects, TmemRect, i), ctx->is_ld, auto_wait, loc);
	for (int i = 0; i < ctx->rects.n && !reported && !ctx->is_ld && p->async.n; i++)
		reported = !protocol_async_reads_free(p, LIST_AT(ctx->rects, TmemRect, i), isa_name(TC_ST, 0), loc);
	for (int i = 0; i < ctx->rects.n && !reported && ctx->is_ld && p->async.n; i++)
		reported = !async_written(p, LIST_AT(ctx->rects, TmemRect, i), TC_LD, loc);
	/* one store executed by several warps (a warpgroup scope reached by two warpgroups) writes their cells at once */
	for (int i = 0; i < ctx->rects.n && !reported && !ctx->is_ld; i++)
		for (int j = i + 1; j < ctx->rects.n && !reported; j++) {
			TmemRect *a = LIST_AT(ctx->rects, TmemRect, i), *b = LIST_AT(ctx->rects, TmemRect, j);
			if (a->warp == b->warp || !rects_overlap(a, b))
				continue;
			error(loc, "warps %d and %d both write TMEM (lane %d, column %d) with this %s, in no defined "
			           "order", a->warp, b->warp, a->lane0 > b->lane0 ? a->lane0 : b->lane0,
			      a->col0 > b->col0 ? a->col0 : b->col0, isa_name(TC_ST, 0));
			note(loc, "give each warp its own columns (a warpgroup scope reached by several warpgroups runs the "
			          "store once per warpgroup: name one with warpgroup(K))");
			reported = true;
		}
	for (int i = 0; i < ctx->rects.n; i++) {
		TmemRect *r = LIST_AT(ctx->rects, TmemRect, i);
		/* an access to the same cells by the same warp supersedes an older one: that one is complete
		   for this warp, and this one keeps the cells from other warps */
		StoreState *st = pool_alloc(sizeof *st);
		st->rect = *r;
		st->loc = loc;
		st->ld = ctx->is_ld;
		supersede(&p->flow, st);
		st->pending = st->unsynced = true;
		st->auto_wait = auto_wait;
		st->id = ++p->store_ids;
		list_push(&p->flow.stores, st);
		list_push(&p->flow.pending, st);
		p->flow.pending_warps[st->ld] |= warp_bit(r->warp);
		note_unsynced(&p->flow, r);
	}
	if (!ctx->is_ld)
		return;
	for (int i = 0; i < ctx->regs.n; i++) {
		RegRef *ref = LIST_AT(ctx->regs, RegRef, i);
		LoadedReg *r = NULL;
		for (int j = 0; j < p->flow.loaded.n && !r; j++)
			if (LIST_AT(p->flow.loaded, LoadedReg, j)->tensor == ref->tensor &&
			    LIST_AT(p->flow.loaded, LoadedReg, j)->word == ref->word)
				r = LIST_AT(p->flow.loaded, LoadedReg, j);
		if (!r) {
			r = pool_alloc(sizeof *r);
			r->tensor = ref->tensor;
			r->word = ref->word;
			list_push(&p->flow.loaded, r);
		}
		r->loc = loc;
		r->warps |= p->warps;
		r->auto_wait = auto_wait;
	}
}

bool
protocol_settled(Protocol *p, Loc loc, const char *where)
{
	for (int i = 0; i < p->flow.loaded.n; i++) {
		LoadedReg *r = LIST_AT(p->flow.loaded, LoadedReg, i);
		if (!(r->warps & p->warps))
			continue;
		own_wait_missing(p, true);
		error(loc, "a %s into '%s' may still be pending %s; a device function starts and returns with no "
		           "%s or st pending", isa_name(TC_LD, 0), r->tensor->name, where, isa_name(TC_LD, 0));
		note(r->loc, "the %s is here; put %s; after it", isa_name(TC_LD, 0), isa_spelling(TC_WAIT_LD, 0));
		own_wait_missing(p, false);
		return p->unchecked_waits;
	}
	for (int i = 0; i < p->flow.pending.n; i++) {
		StoreState *st = LIST_AT(p->flow.pending, StoreState, i);
		if (st->ld || !st->pending || !(p->warps >> st->rect.warp & 1))
			continue;
		own_wait_missing(p, true);
		error(loc, "a %s of warp %d may still be pending %s; a device function starts and returns with no "
		           "%s or st pending", isa_name(TC_ST, 0), st->rect.warp, where, isa_name(TC_LD, 0));
		note(st->loc, "the %s is here; put %s; after it", isa_name(TC_ST, 0), isa_spelling(TC_WAIT_ST, 0));
		own_wait_missing(p, false);
		return p->unchecked_waits;
	}
	return true;
}

bool
protocol_alive(Protocol *p, const Tensor *t, const char *used, Loc loc)
{
	Freed *fr = t->alloc ? freed_on(&p->flow, t->alloc) : NULL;
	if (fr) {
		if (strcmp(used, t->name) != 0)
			error(loc, "'%s' (a view of tmem tensor '%s') is used after the %s of its tensor memory", used, t->name,
			      isa_name(TC_DEALLOC, 0));
		else
			error(loc, "'%s' is used after the %s of its tensor memory", t->name, isa_name(TC_DEALLOC, 0));
		note(fr->at, "the %s is here", isa_name(TC_DEALLOC, 0));
		return false;
	}
	return true;
}
static void
note_cta_group(Protocol *p, int group, Loc loc)
{
	if (!p->cta_group) {
		p->cta_group = group;
		p->cta_group_loc = loc;
	} else if (p->cta_group != group) {
		error(loc, "cta_group::%d mixed with cta_group::%d in one kernel", group, p->cta_group);
		note(p->cta_group_loc, "cta_group::%d is used here", p->cta_group);
	}
}

bool
protocol_uniform(Protocol *p, Loc loc, const char *what)
{
	if (p->varying) {
		error(loc, "%s inside control flow that can split a warp; every lane of the warp must execute it", what);
		note(p->varying_loc, "this condition differs between the lanes of a warp");
		return false;
	}
	return true;
}
/* e without the let names and conversions around it */
static const IExpr *
through_names(const IExpr *e)
{
	while (e->kind == IE_CONV || (e->kind == IE_VAR && e->var->is_let && e->var->def))
		e = e->kind == IE_CONV ? e->a : e->var->def;
	return e;
}

/* addr as SLOT[K] + OFF or OFF + SLOT[K]: the shared load and the offset (0 when none); false when addr has
   no such form */
static bool
slot_plus_offset(const IExpr *addr, const IExpr **load, int64_t *off)
{
	*off = 0;
	addr = through_names(addr);
	if (addr->kind == IE_BINARY && addr->op == OP_ADD) {
		if (ie_is_const(through_names(addr->b), off))
			addr = addr->a;
		else if (ie_is_const(through_names(addr->a), off))
			addr = addr->b;
		else
			return false;
		addr = through_names(addr);
	}
	*load = addr;
	return addr->kind == IE_LOAD && addr->tensor->kind == TK_SHARED;
}

AllocInfo *
protocol_find_alloc(Protocol *p, const IExpr *addr, int *col_offset, int *lane_offset)
{
	int64_t off, index;
	if (!slot_plus_offset(addr, &addr, &off) || !ie_is_const(through_names(addr->index), &index))
		return NULL;
	for (int i = p->allocs.n - 1; i >= 0; i--) {
		AllocInfo *a = LIST_AT(p->allocs, AllocInfo, i);
		if (a->slot == addr->tensor && a->slot_index == index) {
			*col_offset = (int)(off & 0xffff);
			*lane_offset = (int)((uint32_t)off >> 16);
			return a;
		}
	}
	return NULL;
}

/* The shared load in e, if any (the first, left to right) */
static const IExpr *
find_shared_load(const IExpr *e)
{
	if (!e)
		return NULL;
	e = through_names(e);
	if (e->kind == IE_LOAD && e->tensor->kind == TK_SHARED)
		return e;
	const IExpr *r = find_shared_load(e->a);
	return r ? r : find_shared_load(e->b);
}

/* The operand of src, a sum or difference whose other operand is the slot, that makes it wrong: for a note */
static const Expr *
offending_operand(const Expr *src)
{
	if (src->kind != E_BINARY || !src->a || !src->b)
		return NULL;
	return src->a->kind == E_INDEX ? src->b : src->b->kind == E_INDEX ? src->a : NULL;
}

AllocInfo *
protocol_at_alloc(Protocol *p, const IExpr *addr, const Expr *src, const char *name, bool quiet, int *col_offset,
                  int *lane_offset)
{
	const char *accepted = pool_printf("a tmem tensor is declared at SLOT[K] + C, the shared slot a %s filled plus "
	                                   "a constant offset (columns, and lanes as k << 16)", isa_name(TC_ALLOC, 0));
	const IExpr *load;
	int64_t off, index;
	bool form = slot_plus_offset(addr, &load, &off);
	AllocInfo *a = protocol_find_alloc(p, addr, col_offset, lane_offset);
	/* TMEM has 128 lanes of 512 columns: an offset past them is no place in an allocation (and a
	   negative one wraps round to such an offset) */
	if (a && (*col_offset < TMEM_COLS && *lane_offset < TMEM_LANES))
		return a;
	if (quiet)
		return NULL;
	const Expr *part = offending_operand(src);
	if (a && (int32_t)off < 0) {
		error(src->loc, "'%s' is declared at '%s[%d]' minus %lld, before the start of its allocation; %s", name,
		      a->slot->name, a->slot_index, -(long long)(int32_t)off, accepted);
		if (part)
			note(part->loc, "a negative offset");
		return NULL;
	}
	if (a) {
		error(src->loc, "'%s' is declared at lane %d, column %d of the allocation in '%s[%d]', outside tensor memory "
		                "(%d lanes of %d columns); %s", name, *lane_offset, *col_offset, a->slot->name, a->slot_index,
		      TMEM_LANES, TMEM_COLS, accepted);
		if (part)
			note(part->loc, "the offset: columns, plus lanes << 16");
		return NULL;
	}
	if (form && !ie_is_const(through_names(load->index), &index)) {
		error(src->loc, "'%s' is declared at an element of '%s' whose index is not a compile-time constant; tilec must "
		                "know which %s filled the slot: %s", name, load->tensor->name, isa_name(TC_ALLOC, 0), accepted);
		return NULL;
	}
	if (form) {
		error(src->loc, "no %s writes the address '%s' is declared at; declare a tmem tensor at the shared slot an "
		                "alloc filled (plus a constant offset)", isa_name(TC_ALLOC, 0), name);
		if (p->allocs.n) {
			AllocInfo *last = LIST_AT(p->allocs, AllocInfo, p->allocs.n - 1);
			note(last->loc, "this %s writes '%s[%d]'", isa_name(TC_ALLOC, 0), last->slot->name, last->slot_index);
		}
		return NULL;
	}
	const IExpr *e = through_names(addr), *slot = find_shared_load(addr);
	if (e->kind == IE_BINARY && e->op == OP_SUB && slot && through_names(e->a) == slot) {
		error(src->loc, "'%s' is declared at an address subtracted from the one in '%s', before the start of its "
		                "allocation; %s", name, slot->tensor->name, accepted);
		if (part)
			note(part->loc, "subtracted here");
	} else if (e->kind == IE_BINARY && e->op == OP_ADD && slot) {
		error(src->loc, "the offset in the address of '%s' is not a compile-time constant; tilec must know which "
		                "lanes and columns the tensor covers: %s", name, accepted);
		if (part)
			note(part->loc, "not a compile-time constant");
	} else if (slot) {
		error(src->loc, "the address of '%s' is computed from '%s' in a way tilec does not follow; %s", name,
		      slot->tensor->name, accepted);
	} else {
		const char *what = e->kind == IE_INT                    ? pool_printf("the number %lld", (long long)e->ival)
		                   : e->kind == IE_VAR && e->var->is_param ? pool_printf("parameter '%s'", e->var->name)
		                   : e->kind == IE_VAR                    ? pool_printf("'%s', a var (tilec follows let names only)", e->var->name)
		                   : e->kind == IE_LOAD                   ? pool_printf("an element of global tensor '%s'", e->tensor->name)
		                                                          : "a value computed at run time";
		error(src->loc, "'%s' is declared at %s, which no shared slot of a %s holds; %s", name, what,
		      isa_name(TC_ALLOC, 0), accepted);
	}
	return NULL;
}

/* Stores their warps have waited for become visible to every warp. */
void
protocol_cta_sync(Protocol *p, Loc loc, bool writes_follow)
{
	/* no thread reaches code whose warps are none (the other side of a condition every thread decides alike) */
	if (p->warps && p->split.kind == SPLIT_THREADS) {
		error(loc, "cta_sync that not every thread of the CTA reaches: the barrier waits for all %d threads, so "
		           "those that arrive wait for the others forever (__syncthreads() in divergent code); put it "
		           "where every thread passes", p->k->threads);
		note(p->split.loc, "%s", p->split.why);
	} else if (p->warps && p->split.kind == SPLIT_DATA) {
		warn(WARN_DIVERGENT_SYNC, loc, "cta_sync inside control flow that values read per thread decide: if the "
		                               "threads of the CTA go different ways, the barrier waits forever");
		note(p->split.loc, "%s", p->split.why);
	}
	/* a copy's store is complete before a barrier that may order it for other warps; so is a copy's load
	   when another warp may store to its cells or free them after the barrier (TCGEN05.md 5: the last ld
	   before dealloc) */
	protocol_complete_copies(p, EFF_COMPLETES_STORES | (writes_follow ? EFF_COMPLETES_LOADS : 0), loc);
	for (int i = 0; i < p->flow.stores.n; i++) {
		StoreState *st = LIST_AT(p->flow.stores, StoreState, i);
		st->unsynced = st->pending;
	}
	for (int i = 0; i < p->flow.live.n; i++)
		LIST_AT(p->flow.live, LiveAlloc, i)->unpublished = false;
	p->flow.maybe_inert = true;
	flow_prune(&p->flow);
	flow_summarise(&p->flow);
	/* a cp that a warp has waited for is complete for every warp past the barrier (its after-fence follows) */
	for (int i = 0; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (a->has_rect && a->waited && !a->warps)
			a->waited = ~0ull;
	}
}

/* "warps 0-3, 8": a set of warps in words. */
static const char *
warps_text(uint64_t warps)
{
	Buf b = {0};
	buf_puts(&b, popcount64(warps) == 1 ? "warp " : "warps ");
	for (int w = 0; w < 64; w++) {
		if (!(warps >> w & 1) || (w > 0 && warps >> (w - 1) & 1))
			continue;
		int last = w;
		while (last < 63 && warps >> (last + 1) & 1)
			last++;
		buf_printf(&b, "%s%d", b.len > 6 ? ", " : "", w);
		if (last > w)
			buf_printf(&b, "-%d", last);
	}
	const char *text = pool_printf("%.*s", (int)b.len, b.data);
	buf_free(&b);
	return text;
}

/* bar_sync and bar_arrive (PTX bar.sync / bar.arrive): the warps that reach it are counted where tilec
   knows them; a bar_sync orders the completed tcgen05 accesses of the warps that reach it for each
   other. A bar_arrive orders nothing here: the warps that wait for it sit on another statement, which
   tilec does not pair with it, so an access other warps make after it still needs a cta_sync. */
void
protocol_named_bar(Protocol *p, Loc loc, int id, int threads, bool arrive, bool writes_follow, bool arrivals)
{
	const char *what = arrive ? "bar_arrive" : "bar_sync";
	if (!p->warps || !protocol_uniform(p, loc, what))
		return;
	NamedBarUse *u = pool_alloc(sizeof *u);
	*u = (NamedBarUse){loc, id, threads, arrive, p->warps, !p->partial && p->split.kind != SPLIT_DATA};
	list_push(&p->named_bars, u);
	int reach = 32 * popcount64(p->warps);
	if (u->counted && reach > threads) {
		error(loc, "%s(%d, %d) is reached by the %d threads of %s, more than the %d it counts; the barrier would "
		           "complete before some of them arrive", what, id, threads, reach, warps_text(p->warps), threads);
		u->counted = false;
		return;
	}
	/* a copy's store is complete before a barrier that may order it for other warps (as at cta_sync) */
	protocol_complete_copies(p, EFF_COMPLETES_STORES | (writes_follow ? EFF_COMPLETES_LOADS : 0), loc);
	/* with a bar_arrive of the same id anywhere in the kernel, other warps' arrivals may complete the
	   phase before the warps here meet: it orders nothing for them */
	if (arrive || !u->counted || arrivals)
		return;
	for (int i = 0; i < p->flow.stores.n; i++) {
		StoreState *st = LIST_AT(p->flow.stores, StoreState, i);
		if (!st->pending && st->unsynced && (p->warps >> st->rect.warp & 1))
			st->ordered_for |= p->warps;
	}
}

/* A named barrier that the warps which can reach it are too few to complete, when tilec counted them all:
   reported once per id, at its first statement of the largest count. */
static void
check_named_bars(Protocol *p)
{
	for (int i = 0; i < p->named_bars.n; i++) {
		NamedBarUse *u = LIST_AT(p->named_bars, NamedBarUse, i);
		uint64_t warps = 0;
		bool counted = true, first = true;
		for (int j = 0; j < p->named_bars.n; j++) {
			NamedBarUse *v = LIST_AT(p->named_bars, NamedBarUse, j);
			if (v->id != u->id)
				continue;
			first &= j >= i ? v->threads <= u->threads : v->threads < u->threads;
			warps |= v->warps;
			counted &= v->counted;
		}
		if (!first || !counted || 32 * popcount64(warps) >= u->threads)
			continue;
		error(u->loc, "%s(%d, %d) counts %d threads, but only the %d threads of %s reach a bar_sync or "
		              "bar_arrive of barrier %d; the barrier never completes", u->arrive ? "bar_arrive" : "bar_sync",
		      u->id, u->threads, u->threads, 32 * popcount64(warps), warps_text(warps), u->id);
	}
}

void
protocol_reg_write(Protocol *p, const Tensor *t, int slot, Loc loc)
{
	LoadedReg *r = find_loaded(p, t, slot * etype_bits(t->type) / 32);
	if (r && r->auto_wait) {
		place_wait(p, TC_WAIT_LD, loc);
	} else if (r) {
		own_wait_missing(p, true);
		error(loc, "writes register slot %d of '%s' while a %s may still be writing it; put %s; before the "
		           "write", slot, t->name, isa_name(TC_LD, 0), isa_spelling(TC_WAIT_LD, 0));
		note(r->loc, "the %s is here", isa_name(TC_LD, 0));
		own_wait_missing(p, false);
		r->warps = 0;
	}
}

bool
protocol_pending_load(Protocol *p, const Tensor *t, int word)
{
	return find_loaded(p, t, word) != NULL;
}

/* --------------------------------------------------------------- tcgen05 instructions other than ld / st */

/* TCGEN05.md 1: the whole warp executes each .sync.aligned instruction; the last warp of a block whose size is
   not a multiple of 32 has fewer threads. */
static bool
whole_warps(Protocol *p, Loc loc, const char *what, const char *needs)
{
	int last = p->k->threads / 32, threads = p->k->threads % 32;
	if (!threads || !(p->warps >> last & 1))
		return true;
	error(loc, "%s would be executed by warp %d, which has only %d threads in a block of %d; %s needs the whole "
	           "warp of 32", what, last, threads, p->k->threads, needs);
	return false;
}

bool
protocol_warp_collective(Protocol *p, Loc loc, const char *what)
{
	return protocol_uniform(p, loc, what) && whole_warps(p, loc, what, "a warp collective");
}

/* Whether e reads block_idx.x, itself or through a let. */
static bool
reads_block_x(const IExpr *e)
{
	if (!e)
		return false;
	if (e->kind == IE_BUILTIN)
		return e->builtin == B_BLOCK_X;
	if (e->kind == IE_VAR)
		return e->var->is_let && reads_block_x(e->var->def);
	return reads_block_x(e->a) || reads_block_x(e->b) || reads_block_x(e->index);
}

/* TCGEN05.md 9: a cta_group::2 alloc, dealloc or relinquish is executed by one warp with the same warp
 * id in each CTA of the pair, ranks 2i and 2i + 1 along the cluster's x: an if whose condition on
 * block_idx.x differs between them (if (block_idx.x == 0)) leaves the other CTA's half out, and the
 * pair waits forever. Checked for each warp's first thread and the first 64 pairs (block_idx.y and z,
 * the same in both, at 0 and 1); a condition that also reads what tilec cannot evaluate (a parameter,
 * memory) may split them. */
static void
check_pair_reaches(Protocol *p, const char *opcode, Loc opcode_loc)
{
	for (int i = 0; i < p->forks.n; i++) {
		const ProtoFork *f = LIST_AT(p->forks, ProtoFork, i);
		if (!f->cond || !reads_block_x(f->cond))
			continue;
		int pairs = p->k->grid[0] > 1 ? p->k->grid[0] / 2 : 64;
		for (int pair = 0; pair < pairs && pair < 64; pair++) {
			for (int t = 0; t < p->k->threads * 2; t += 32) {
				int64_t even, odd, yz = t >= p->k->threads;
				int64_t first[3] = {2 * pair, yz, yz}, second[3] = {2 * pair + 1, yz, yz};
				bool known = ie_eval_thread_block(f->cond, p->k->block, t % p->k->threads, first, &even) &&
				             ie_eval_thread_block(f->cond, p->k->block, t % p->k->threads, second, &odd);
				if (known && !even == !odd)
					continue;
				error(opcode_loc, "%s inside a condition on block_idx.x: the pair instruction must be executed by "
				                  "the same warp of both CTAs of the pair (ranks 2i and 2i + 1 along the cluster's x), "
				                  "or the pair waits for its other half forever", opcode);
				if (known)
					note(f->cond_loc, "warp %d of block %d takes this branch and that of block %d does not",
					     t % p->k->threads / 32,
					     !even ? 2 * pair + 1 : 2 * pair, !even ? 2 * pair : 2 * pair + 1);
				else
					note(f->cond_loc, "tilec cannot tell that both CTAs of a pair take this branch the same way");
				return;
			}
		}
	}
}

bool
protocol_instr_enter(Protocol *p, const IsaInstr *in, int cta_group, const char *opcode, Loc loc, Loc opcode_loc,
                     bool *uniform)
{
	*uniform = !isa_aligned(in) || (protocol_uniform(p, loc, opcode) && whole_warps(p, loc, opcode, "a .sync.aligned instruction"));
	/* one-warp instructions go on after this error so that the allocation they name stays known */
	if (!*uniform && !in->one_warp)
		return false;
	if (cta_group)
		note_cta_group(p, cta_group, opcode_loc);
	if (cta_group == 2 && in->effect & (EFF_ALLOCATES | EFF_FREES | EFF_RELINQUISHES))
		check_pair_reaches(p, opcode, opcode_loc);
	return true;
}

/* A new allocation; after an error it is still recorded, so later statements do not cascade. */
static bool
allocates(Protocol *p, const LStmt *l, const TcOperands *ops, bool ok)
{
	int ncols = (int)tc_operand(l, IO_NCOLS)->imm;
	uint64_t by = ok || !p->warps ? p->warps : 1ull << lowest_warp(p->warps);
	/* TCGEN05.md 4: the permit is the CTA's; a relinquish by any of its warps ends it */
	if (ok && p->flow.relinquished_some) {
		error(l->loc, "%s after %s: this CTA gave up its right to allocate", isa_name(TC_ALLOC, 0),
		      isa_name(TC_RELINQUISH, 0));
		note(p->flow.relinquish_loc, "the %s is here", isa_instr(TC_RELINQUISH)->name);
	}
	for (int i = 0; i < p->allocs.n && ok; i++) {
		AllocInfo *prev = LIST_AT(p->allocs, AllocInfo, i);
		if (prev->ncols && prev->ncols < ncols) {
			error(l->loc, "%s of %d columns after one of %d: the column count must not grow between allocations "
			              "of a CTA", isa_name(TC_ALLOC, 0), ncols, prev->ncols);
			note(prev->loc, "the earlier allocation is here");
			ok = false;
		}
	}
	/* TCGEN05.md 4: alloc blocks until the columns are free; the CTA's own live columns never free themselves */
	int held = 0;
	AllocInfo *holder = NULL;
	for (int i = 0; i < p->flow.live.n && ok; i++) {
		LiveAlloc *live = LIST_AT(p->flow.live, LiveAlloc, i);
		if (live->live) {
			held += live->alloc->ncols;
			holder = live->alloc;
		}
	}
	if (ok && held + ncols > TMEM_COLS) {
		error(l->loc, "%s of %d columns while this CTA holds %d of its %d columns: it waits for a dealloc that "
		              "never comes (a deadlock)", isa_name(TC_ALLOC, 0), ncols, held, TMEM_COLS);
		note(holder->loc, "columns still allocated here; free them first with %s", isa_name(TC_DEALLOC, 0));
		ok = false;
	}
	int64_t index;
	AllocInfo *a = pool_alloc(sizeof *a);
	a->slot = ops->addr->tensor;
	a->slot_index = ie_is_const(ops->addr->index, &index) ? (int)index : -1;
	a->ncols = ncols;
	a->loc = l->loc;
	a->warps = by;
	list_push(&p->allocs, a);
	LiveAlloc *live = pool_alloc(sizeof *live);
	live->alloc = a;
	live->live = by != 0;
	live->unpublished = true;
	list_push(&p->flow.live, live);
	return ok;
}

/* Ends the allocation the address names; with an error in the column count it still frees it, so the
   end of the kernel stays quiet. */
static bool
frees(Protocol *p, const LStmt *l, const TcOperands *ops, bool ncols_ok)
{
	int ncols = (int)tc_operand(l, IO_NCOLS)->imm;
	protocol_read(p, ops->addr, ops->addr_loc);
	int col, lane;
	AllocInfo *a = protocol_find_alloc(p, ops->addr, &col, &lane);
	/* TCGEN05.md 4: a dealloc takes exactly an allocated address, and a slot no alloc wrote holds none (it
	   still frees a live allocation of its size below, so that the end of the kernel stays quiet) */
	const IExpr *slot;
	int64_t off, index;
	bool reported = false;
	if (!a && ops->allocs_known && slot_plus_offset(ops->addr, &slot, &off) &&
	    ie_is_const(through_names(slot->index), &index)) {
		error(ops->addr_loc, "%s takes the address an alloc wrote into its shared slot, but no %s writes '%s[%lld]'",
		      isa_name(TC_DEALLOC, 0), isa_name(TC_ALLOC, 0), slot->tensor->name, (long long)index);
		ncols_ok = false;
		reported = true;
	}
	/* still freed after this error, so the end of the kernel stays quiet */
	if (!address_published(p, a, p->warps, ops->addr_loc))
		ncols_ok = false;
	if (a && (col || lane)) {
		error(ops->addr_loc, "%s takes the address the allocation returned, not an offset into it",
		      isa_name(TC_DEALLOC, 0));
		note(a->loc, "the allocation is here");
		return false;
	}
	Freed *before = a ? freed_on(&p->flow, a) : NULL;
	if (before) {
		error(l->loc, "tensor memory freed twice");
		note(before->at, "it is freed here first");
		return false;
	}
	if (a && a->ncols && ncols && a->ncols != ncols) {
		error(ops->ncols_loc, "%s of %d columns, but the allocation has %d", isa_name(TC_DEALLOC, 0), ncols,
		      a->ncols);
		note(a->loc, "the allocation is here");
		ncols_ok = false;
	}
	bool traced = a != NULL;
	for (int i = 0; i < p->flow.live.n; i++) {
		LiveAlloc *live = LIST_AT(p->flow.live, LiveAlloc, i);
		if (a ? live->alloc == a : live->live && (live->alloc->ncols == ncols || !ncols)) {
			/* the columns are the CTA's: freed by one warp, they are freed for all */
			if (p->warps)
				live->live = false;
			a = live->alloc;
		}
	}
	/* an address tilec cannot trace (a parameter, a computed value) frees a live allocation of its size;
	   with none live on this path it frees nothing that was allocated */
	if (!a && !traced && !reported && ops->allocs_known && error_count == p->errors_before && ncols_ok && p->warps) {
		if (p->allocs.n)
			error(l->loc, "%s of %d columns, but no allocation of that size is live here", isa_name(TC_DEALLOC, 0),
			      ncols);
		else
			error(l->loc, "%s without a %s in this kernel: a dealloc frees exactly an allocated address",
			      isa_name(TC_DEALLOC, 0), isa_name(TC_ALLOC, 0));
		return false;
	}
	/* TCGEN05.md 5: the last ld / st of the columns is complete (and, for another warp, synchronised)
	   before the dealloc; a copy's got its wait above, an apply's is the program's */
	bool planned = a && !strcmp(a->slot->name, PLANNED_SLOT_NAME);
	char freer[96];
	snprintf(freer, sizeof freer, planned ? "the end of the kernel frees (tilec's %s)" : "%s frees",
	         isa_name(TC_DEALLOC, 0));
	for (int i = 0; a && i < p->flow.stores.n; i++) {
		StoreState *st = LIST_AT(p->flow.stores, StoreState, i);
		const char *what = isa_name(st->ld ? TC_LD : TC_ST, 0);
		TcKind wait = st->ld ? TC_WAIT_LD : TC_WAIT_ST;
		if (st->rect.space != a)
			continue;
		if (st->pending && (p->warps >> st->rect.warp & 1)) {
			own_wait_missing(p, true);
			error(l->loc, "%s tensor memory that a %s of warp %d may still be %s; put %s; before %s", freer,
			      what, st->rect.warp, st->ld ? "reading" : "writing", isa_spelling(wait, 0), planned ? "the end" : "it");
			note(st->loc, "the %s is here", what);
			own_wait_missing(p, false);
			break;
		}
		if (st->unsynced && !(p->warps >> st->rect.warp & 1)) {
			error(l->loc, "%s tensor memory that warp %d %s; warp %d must execute %s and then cta_sync before %s",
			      freer, st->rect.warp, st->ld ? pool_printf("reads with %s", what) : "stores to", st->rect.warp,
			      isa_name(wait, 0), planned ? "the end" : "it");
			note(st->loc, "the %s of warp %d is here", what, st->rect.warp);
			break;
		}
	}
	if (a) {
		Freed *fr = pool_alloc(sizeof *fr);
		fr->alloc = a;
		fr->at = l->loc;
		fr->warp = lowest_warp(p->warps);
		if (!freed_on(&p->flow, a))
			list_push(&p->flow.freed, fr);
		a->freed_at = l->loc;
	}
	return ncols_ok;
}

bool
protocol_instr(Protocol *p, const IsaInstr *in, const LStmt *l, bool uniform, const TcOperands *ops)
{
	bool ok = ops->ncols_ok;
	if (in->one_warp && popcount64(p->warps) > 1) {
		if (uniform)
			error(l->loc, "%s must be executed by one warp, but %d warps can reach it here; guard it with "
			              "if (warp_id == K)", isa_name(in->kind, 0), popcount64(p->warps));
		ok = false;
	}
	/* copies of this warp are complete before their tensor memory goes */
	if (in->effect & EFF_FREES)
		protocol_complete_copies(p, EFF_COMPLETES_LOADS | EFF_COMPLETES_STORES, l->loc);
	if (in->effect & EFF_ALLOCATES)
		ok = allocates(p, l, ops, ok);
	if (in->effect & EFF_FREES)
		ok = frees(p, l, ops, ok);
	if (in->effect & EFF_RELINQUISHES) {
		if (!p->flow.relinquished_some)
			p->flow.relinquish_loc = l->loc;
		p->flow.relinquished_some |= p->warps;
		p->flow.relinquished_all |= p->warps;
	}
	/* a wait of the user's completes the copies before it: --explain says so at each */
	if (in->effect & EFF_COMPLETES_LOADS)
		complete_on(p, &p->flow, TC_WAIT_LD, p->warps, l->loc, true, true);
	if (in->effect & EFF_COMPLETES_STORES)
		complete_on(p, &p->flow, TC_WAIT_ST, p->warps, l->loc, true, true);
	return ok;
}

/* --------------------------------------------------------------- mbarriers and commit */

int
protocol_cta_group(const Protocol *p)
{
	return p->cta_group ? p->cta_group : 1;
}

void
protocol_async_issue(Protocol *p, const IsaInstr *in, const TmemRect *rect, Loc loc)
{
	ProtoAsync *a = pool_alloc(sizeof *a);
	a->in = in;
	a->loc = loc;
	a->warps = p->warps;
	if (rect) {
		a->has_rect = true;
		a->rect = *rect;
	}
	list_push(&p->async, a);
}

void
protocol_async_scale_reads(Protocol *p, const TmemRect *rect, Loc loc)
{
	protocol_async_issue(p, isa_instr(TC_MMA), rect, loc);
	LIST_AT(p->async, ProtoAsync, p->async.n - 1)->reads_only = true;
}

void
protocol_commit(Protocol *p, const Tensor *bar, const IExpr *index, Loc loc)
{
	for (int i = 0; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (!(a->warps & p->warps))
			continue;
		if (!a->bar) {
			a->bar = bar;
			a->bar_index = index;
			a->commit_loc = loc;
		} else {
			ProtoCommit *c = pool_alloc(sizeof *c);
			*c = (ProtoCommit){bar, index};
			list_push(&a->later_commits, c);
		}
	}
}

/* Whether a store to tile `stage` of t overwrites what a reads. Where either tile is chosen at run time
   tilec cannot tell (a ring's stages: the next one is another tile) and says nothing. */
static bool
store_hits(const ProtoAsync *a, const Tensor *t, int stage)
{
	for (int i = 0; i < 2; i++)
		if (a->reads[i] == t && stage >= 0 && stage == a->read_stage[i])
			return true;
	return false;
}

void
protocol_async_reads(Protocol *p, const Tensor *a, int a_stage, const Tensor *b, int b_stage)
{
	if (!p->async.n)
		fatal("protocol_async_reads before any asynchronous instruction");
	ProtoAsync *last = LIST_AT(p->async, ProtoAsync, p->async.n - 1);
	last->reads[0] = a;
	last->reads[1] = b;
	last->read_stage[0] = a_stage;
	last->read_stage[1] = b_stage;
}

void
protocol_loop_marks(const Protocol *p, int *async, int *stores)
{
	*async = p->async.n;
	*stores = p->stores.n;
}

/* The next trip of a loop lowered once: an mma of the body (w) writing its D over cells that a later mma of the
   body (a) reads as A, while no wait on a's commit's barrier follows a in the body. */
static bool
loop_tmem_a_next_trip(Protocol *p, int async_mark, Loc loop)
{
	for (int i = async_mark; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (!a->reads_tmem || a->complete || a->store_reported)
			continue;
		for (int j = async_mark; j < i; j++) {
			ProtoAsync *w = LIST_AT(p->async, ProtoAsync, j);
			if (!w->has_rect || !rects_overlap(&w->rect, &a->read_rect))
				continue;
			a->store_reported = true;
			error(w->loc, "the %s at line %d writes D over TMEM that the mma at line %d reads as A, in the next trip of "
			              "the loop at line %d: no wait on that mma's commit's barrier follows it in the loop",
			      isa_name(w->in->kind, 0), w->loc.first_line, a->loc.first_line, loop.first_line);
			note(a->bar ? a->commit_loc : a->loc, "%s here; put %s.%s on its barrier after it, in the loop",
			     a->bar ? "committed" : "issued", etype_name(T_MBARRIER), mbar_op_name(MB_WAIT));
			return false;
		}
	}
	return true;
}

bool
protocol_loop_next_trip(Protocol *p, int async_mark, int store_mark, Loc loop)
{
	if (!loop_tmem_a_next_trip(p, async_mark, loop))
		return false;
	for (int i = async_mark; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (a->complete || a->store_reported)
			continue;
		for (int k = store_mark; k < p->stores.n; k++) {
			ProtoStore *st = LIST_AT(p->stores, ProtoStore, k);
			if (!store_hits(a, st->t, st->stage))
				continue;
			a->store_reported = true;
			error(st->loc, "a store to '%s' in the next trip of the loop at line %d, while the %s at line %d may still "
			               "be reading it: no wait on its commit's barrier follows it in the loop", st->t->name,
			      loop.first_line, isa_name(a->in->kind, 0), a->loc.first_line);
			note(a->bar ? a->commit_loc : a->loc, "%s here; put %s.%s on its barrier after it, in the loop",
			     a->bar ? "committed" : "issued", etype_name(T_MBARRIER), mbar_op_name(MB_WAIT));
			return false;
		}
	}
	return true;
}

/* The note of an error about a write (`what`: "store", "write") to what the asynchronous a may still read. */
static void
note_wait_before(const ProtoAsync *a, const char *what)
{
	if (a->bar)
		note(a->commit_loc, "committed here: put %s.%s on '%s' before the %s", etype_name(T_MBARRIER),
		     mbar_op_name(MB_WAIT), a->bar->name, what);
	else
		note(a->loc, "issued here; put commit(b); and %s.%s(b, parity); before the %s", etype_name(T_MBARRIER),
		     mbar_op_name(MB_WAIT), what);
}

bool
protocol_shared_store(Protocol *p, const Tensor *t, int stage, Loc loc)
{
	ProtoStore *st = pool_alloc(sizeof *st);
	*st = (ProtoStore){t, stage, loc};
	list_push(&p->stores, st);
	for (int i = 0; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (a->complete || a->store_reported || !store_hits(a, t, stage))
			continue;
		a->store_reported = true;
		error(loc, "a store to '%s', which the %s at line %d reads; the mma may still be reading it until a wait on "
		           "its commit's barrier has passed", t->name, isa_name(a->in->kind, 0), a->loc.first_line);
		note_wait_before(a, "store");
		return false;
	}
	return true;
}

bool
protocol_async_pending(const Protocol *p, Loc *issued_at)
{
	for (int i = 0; i < p->async.n; i++) {
		const ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (a->warps & p->warps) {
			*issued_at = a->loc;
			return true;
		}
	}
	return false;
}

/* Whether a commit of a's thread names barrier `bar` (element `index`; NULL: not known, which matches). */
static bool
commits_to(const ProtoAsync *a, const Tensor *bar, const IExpr *index)
{
	if (a->bar == bar && (!a->bar_index || !index || ie_equal(a->bar_index, index)))
		return true;
	for (int i = 0; i < a->later_commits.n; i++) {
		const ProtoCommit *c = LIST_AT(a->later_commits, ProtoCommit, i);
		if (c->bar == bar && (!c->index || !index || ie_equal(c->index, index)))
			return true;
	}
	return false;
}

bool
protocol_mbar_wait(Protocol *p, const Tensor *bar, const IExpr *index)
{
	/* the waiting warps have seen the work committed to this barrier complete: it is no longer pending */
	bool tmem_written = false;
	for (int i = 0; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (commits_to(a, bar, index)) {
			a->warps = 0;
			a->waited |= p->warps;
			a->complete = true;
			tmem_written |= a->has_rect;
		}
	}
	return tmem_written;
}

/* A ld (or a cp, or an mma reading A: by) of cells that an asynchronous instruction (cp, mma) writes, before the
   warp waited for it. */
static bool
async_written(Protocol *p, const TmemRect *r, TcKind by, Loc loc)
{
	for (int i = 0; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (!a->has_rect || (a->waited >> r->warp & 1))
			continue;
		if (by == TC_MMA && a->in->kind == TC_CP && (a->warps & p->warps))
			continue; /* an mma reading A that a cp of its thread writes: pipelined (TCGEN05.md 12) */
		TmemRect mine = a->rect;
		mine.warp = r->warp;
		if (!rects_overlap(r, &mine) || (a->reads_only && by == TC_LD))
			continue;
		if (a->reads_only)
			error(loc, "%s of warp %d writes TMEM (lane %d, column %d), which the mma at line %d reads as scale "
			           "factors; the cells are free again only once the mma's commit(b) and a %s.%s on b have passed",
			      isa_name(by, 0), r->warp, r->lane0 > mine.lane0 ? r->lane0 : mine.lane0,
			      r->col0 > mine.col0 ? r->col0 : mine.col0, a->loc.first_line, etype_name(T_MBARRIER),
			      mbar_op_name(MB_WAIT));
		else
			error(loc, "%s of warp %d %s TMEM (lane %d, column %d), which the %s at line %d writes; %s is "
			           "complete only once commit(b) and a %s.%s on b have passed", isa_name(by, 0), r->warp,
			      by == TC_LD || by == TC_MMA ? "reads" : "writes", r->lane0 > mine.lane0 ? r->lane0 : mine.lane0,
			      r->col0 > mine.col0 ? r->col0 : mine.col0, isa_name(a->in->kind, 0), a->loc.first_line,
			      a->in->kind == TC_MMA ? "an mma" : "a cp",
			      etype_name(T_MBARRIER), mbar_op_name(MB_WAIT));
		if (a->bar)
			note(a->commit_loc, "committed here: wait on '%s' before the %s", a->bar->name, isa_name(by, 0));
		else
			note(a->loc, "issued here; put commit(b); and %s.%s(b, parity); between", etype_name(T_MBARRIER),
			     mbar_op_name(MB_WAIT));
		a->waited = ~0ull;
		return false;
	}
	return true;
}

bool
protocol_cp_cells_free(Protocol *p, const TmemRect *r, Loc loc)
{
	/* LANGUAGE 11.8: a st or ld of the issuing warp over the cp's cells completes at its wait first; a
	   copy's gets the wait tilec places, once */
	bool placed[2] = {false, false};
	for (int i = 0; i < p->flow.pending.n; i++) {
		StoreState *st = LIST_AT(p->flow.pending, StoreState, i);
		TmemRect mine = *r;
		mine.warp = st->rect.warp;
		if (st->dead || !st->pending || !(p->warps >> st->rect.warp & 1) || !rects_overlap(&mine, &st->rect))
			continue;
		TcKind wait = st->ld ? TC_WAIT_LD : TC_WAIT_ST;
		if (st->auto_wait && !placed[st->ld]) {
			placed[st->ld] = true;
			place_wait(p, wait, loc);
			i = -1;
			continue;
		}
		own_wait_missing(p, true);
		error(loc, "%s writes %s that a %s of warp %d may still be %s; without %s in between, the two may come in "
		           "either order", isa_name(TC_CP, 0), cells_text(&mine, st), isa_name(st->ld ? TC_LD : TC_ST, 0),
		      st->rect.warp, st->ld ? "reading" : "writing", isa_name(wait, 0));
		note(st->loc, "the %s is here; put %s; after it", isa_name(st->ld ? TC_LD : TC_ST, 0), isa_spelling(wait, 0));
		own_wait_missing(p, false);
		return false;
	}
	return true;
}

/* LANGUAGE 11.6: the scale factors an mma reads (cells r) are complete: a cp that writes them was issued by the
   issuing warp's elected thread (cp -> mma of one thread is pipelined, TCGEN05.md 10.3) or its commit's barrier
   was waited; an mma still writing them (as D) is never complete. */
bool
protocol_scales_ready(Protocol *p, const TmemRect *r, const char *role, Loc loc)
{
	for (int i = 0; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (!a->has_rect || a->reads_only || !(p->warps & ~a->waited))
			continue;
		TmemRect mine = a->rect;
		mine.warp = r->warp;
		if (!rects_overlap(r, &mine))
			continue;
		if (a->in->kind == TC_CP && a->warps == p->warps && !(p->warps & (p->warps - 1)))
			continue;
		error(loc, "the mma reads %s in TMEM (lane %d, column %d), which the %s at line %d writes from another "
		           "thread; it is complete for the mma only once commit(b) and a %s.%s on b have passed", role,
		      r->lane0 > mine.lane0 ? r->lane0 : mine.lane0, r->col0 > mine.col0 ? r->col0 : mine.col0,
		      isa_name(a->in->kind, 0), a->loc.first_line, etype_name(T_MBARRIER), mbar_op_name(MB_WAIT));
		note(a->loc, "issued here; issue it from the mma's warp, or commit it and wait on the barrier before the mma");
		return false;
	}
	return true;
}

bool
protocol_async_free(Protocol *p, const TmemRect *r, Loc loc)
{
	return async_written(p, r, TC_CP, loc) && protocol_async_reads_free(p, r, isa_name(TC_CP, 0), loc);
}

void
protocol_async_reads_tmem(Protocol *p, const TmemRect *r)
{
	if (!p->async.n)
		fatal("protocol_async_reads_tmem before any asynchronous instruction");
	ProtoAsync *last = LIST_AT(p->async, ProtoAsync, p->async.n - 1);
	last->reads_tmem = true;
	last->read_rect = *r;
}

bool
protocol_async_reads_free(Protocol *p, const TmemRect *r, const char *writer, Loc loc)
{
	for (int i = 0; i < p->async.n; i++) {
		ProtoAsync *a = LIST_AT(p->async, ProtoAsync, i);
		if (!a->reads_tmem || a->complete || a->store_reported || !rects_overlap(r, &a->read_rect))
			continue;
		a->store_reported = true;
		error(loc, "%s writes TMEM (lane %d, column %d), which the mma at line %d reads as A; the mma may still be "
		           "reading it until a wait on its commit's barrier has passed", writer,
		      r->lane0 > a->read_rect.lane0 ? r->lane0 : a->read_rect.lane0,
		      r->col0 > a->read_rect.col0 ? r->col0 : a->read_rect.col0, a->loc.first_line);
		note_wait_before(a, "write");
		return false;
	}
	return true;
}

bool
protocol_mma_a_ready(Protocol *p, const TmemRect *r, Loc loc)
{
	if (!cells_ready_for(p, r, true, true, true, loc))
		return false;
	/* cells an earlier cp or mma writes: complete only at its commit's barrier wait, but for a cp of the issuing
	   thread (cp -> mma is pipelined) */
	return !p->async.n || async_written(p, r, TC_MMA, loc);
}

/* --------------------------------------------------------------- control flow */

uint64_t
protocol_warps(const Protocol *p)
{
	return p->warps;
}

int
protocol_fixed_warp(const Protocol *p)
{
	return popcount64(p->warps) == 1 ? lowest_warp(p->warps) : -1;
}

bool
protocol_varying(const Protocol *p)
{
	return p->varying;
}

bool
protocol_whole_warps(const Protocol *p)
{
	return !p->partial;
}

bool
protocol_split(const Protocol *p)
{
	return p->split.kind != SPLIT_NONE;
}

static ProtoFork *
fork_new(Protocol *p)
{
	ProtoFork *f = pool_alloc(sizeof *f);
	f->warps = p->warps;
	f->varying = p->varying;
	f->partial = p->partial;
	f->varying_loc = p->varying_loc;
	f->split = p->split;
	flow_drop_dead(&p->flow);
	f->first = flow_copy(&p->flow);
	f->freed_before = p->flow.freed.n;
	f->stores_before = p->store_ids;
	list_push(&p->forks, f);
	return f;
}

ProtoFork *
protocol_if(Protocol *p, const IExpr *cond, Loc cond_loc)
{
	bool varying;
	ProtoFork *f = fork_new(p);
	f->cond = cond;
	f->cond_loc = cond_loc;
	split_warps(p, cond, &f->then_warps, &f->else_warps, &varying);
	int first, other;
	int64_t value;
	Split then_split = {SPLIT_NONE, cond_loc, NULL}, else_split = then_split;
	f->sides_partial = p->partial || varying;
	if (!thread_values(p, cond, true, &first, &value, &other)) {
		then_split = else_split = split_by_reads(cond, cond_loc, "this condition");
		f->sides_partial |= then_split.kind != SPLIT_NONE;
	} else if (other >= 0) {
		int taker = value ? first : other, skipper = value ? other : first;
		then_split = (Split){SPLIT_THREADS, cond_loc,
		                     pool_printf("thread %d takes this if and thread %d does not", taker, skipper)};
		else_split = (Split){SPLIT_THREADS, cond_loc,
		                     pool_printf("thread %d takes the else of this if and thread %d does not", skipper, taker)};
	}
	f->then_split = split_within(p->split, then_split);
	f->else_split = split_within(p->split, else_split);
	if (varying && !p->varying)
		p->varying_loc = cond_loc;
	p->varying |= varying;
	p->warps = f->then_warps;
	p->split = f->then_split;
	p->partial = f->sides_partial;
	return f;
}

void
protocol_else(Protocol *p, ProtoFork *f)
{
	Flow after_then = p->flow;
	p->flow = f->first;
	f->first = after_then;
	p->warps = f->else_warps;
	p->split = f->else_split;
	p->partial = f->sides_partial;
}

ProtoFork *
protocol_loop(Protocol *p, bool varying, const IExpr *lo, const IExpr *hi, Loc bounds_loc, bool repeats, bool runs)
{
	ProtoFork *f = fork_new(p);
	int first[2], other[2];
	int64_t value[2];
	if (!thread_values(p, lo, false, &first[0], &value[0], &other[0]) ||
	    !thread_values(p, hi, false, &first[1], &value[1], &other[1])) {
		IExpr both = {.kind = IE_BINARY, .op = OP_ADD, .type = T_I32, .a = (IExpr *)lo, .b = (IExpr *)hi};
		Split by = split_by_reads(&both, bounds_loc, "the bound of this loop");
		p->split = split_within(p->split, by);
		p->partial |= by.kind != SPLIT_NONE;
	} else if (other[0] >= 0 || other[1] >= 0) {
		p->partial = true;
		int t = other[0] >= 0 ? other[0] : other[1];
		p->split = split_within(p->split, (Split){SPLIT_THREADS, bounds_loc,
		                                          pool_printf("threads %d and %d run this loop with different "
		                                                      "bounds", first[0], t)});
	}
	f->then_warps = f->else_warps = p->warps;
	f->repeats = repeats;
	f->runs = runs;
	f->allocs_before = p->allocs.n;
	f->loop_loc = bounds_loc;
	if (varying && !p->varying)
		p->varying_loc = bounds_loc;
	p->varying |= varying;
	p->partial |= varying;
	return f;
}

/* TCGEN05.md 4: every allocation is freed exactly once; a loop body that runs again repeats its alloc
   (the slot is overwritten while the first columns are held) or its dealloc (of memory already freed). */
static void
check_loop_allocs(Protocol *p, ProtoFork *f)
{
	for (int i = f->allocs_before; i < p->allocs.n; i++) {
		AllocInfo *a = LIST_AT(p->allocs, AllocInfo, i);
		for (int j = 0; j < p->flow.live.n; j++) {
			LiveAlloc *live = LIST_AT(p->flow.live, LiveAlloc, j);
			if (live->alloc != a || !live->live)
				continue;
			error(a->loc, "%s inside a loop runs again before the columns of the first run are freed; free "
			              "them with %s in the same iteration, or allocate before the loop",
			      isa_name(TC_ALLOC, 0), isa_name(TC_DEALLOC, 0));
			note(f->loop_loc, "the loop is here");
			live->live = false;
		}
		if (p->flow.relinquished_some) {
			error(a->loc, "%s inside a loop runs again after the %s of the first run: this CTA gave up its "
			              "right to allocate", isa_name(TC_ALLOC, 0), isa_name(TC_RELINQUISH, 0));
			note(p->flow.relinquish_loc, "the %s is here", isa_instr(TC_RELINQUISH)->name);
			note(f->loop_loc, "the loop is here");
		}
	}
	for (int i = 0; i < f->allocs_before; i++) {
		AllocInfo *a = LIST_AT(p->allocs, AllocInfo, i);
		Freed *fr = freed_on(&p->flow, a);
		if (!fr || freed_on(&f->first, a))
			continue;
		error(fr->at, "%s inside a loop frees the same tensor memory again on the next iteration; "
		                   "tensor memory freed twice", isa_name(TC_DEALLOC, 0));
		note(f->loop_loc, "the loop is here");
		note(a->loc, "the allocation is here, before the loop");
		for (int j = 0; j < f->first.live.n; j++)
			if (LIST_AT(f->first.live, LiveAlloc, j)->alloc == a)
				LIST_AT(f->first.live, LiveAlloc, j)->live = false;
	}
}

/* An if whose two sides warps surely take (each by a warp that goes down it only) runs both at once, in
   no order: a dealloc on one side must not meet a dealloc of the same allocation, or an access to its
   tensor memory, on the other. A barrier after the if would order them. */
static void
check_side_races(const ProtoFork *f, const Flow *side, const Flow *other)
{
	for (int i = f->freed_before; i < side->freed.n; i++) {
		Freed *fr = LIST_AT(side->freed, Freed, i);
		if (freed_on(other, fr->alloc))
			continue;
		for (int j = 0; j < other->stores.n; j++) {
			StoreState *st = LIST_AT(other->stores, StoreState, j);
			if (st->id <= f->stores_before || st->rect.space != fr->alloc)
				continue;
			error(st->loc, "%s of warp %d on one side of an if and %s of its tensor memory by warp %d on the "
			               "other: nothing orders the two", isa_name(st->ld ? TC_LD : TC_ST, 0), st->rect.warp,
			      isa_name(TC_DEALLOC, 0), fr->warp);
			note(fr->at, "the %s is here; free the memory after the if, once the access is waited for and "
			             "a cta_sync follows", isa_name(TC_DEALLOC, 0));
			break;
		}
	}
}

static void
check_sides(const ProtoFork *f, const Flow *then_side, const Flow *else_side)
{
	if (!(f->then_warps & ~f->else_warps) || !(f->else_warps & ~f->then_warps))
		return;
	/* an allocation freed before the if is on both lists from the start; one freed on a side is new there */
	for (int i = f->freed_before; i < else_side->freed.n; i++) {
		Freed *fe = LIST_AT(else_side->freed, Freed, i), *ft = freed_on(then_side, fe->alloc);
		if (!ft)
			continue;
		error(fe->at, "tensor memory freed twice");
		note(ft->at, "warp %d frees it here too, on the other side of the if; one warp frees an allocation, "
		             "once", ft->warp);
	}
	check_side_races(f, then_side, else_side);
	check_side_races(f, else_side, then_side);
}

void
protocol_join(Protocol *p, ProtoFork *f)
{
	flow_drop_dead(&f->first);
	flow_drop_dead(&p->flow);
	if (f->repeats)
		check_loop_allocs(p, f);
	else
		check_sides(f, &f->first, &p->flow);
	if (!f->runs)
		p->flow = flow_merge(&f->first, &p->flow, f->then_warps, f->else_warps);
	p->forks.n--; /* f is the innermost */
	p->warps = f->warps;
	p->varying = f->varying;
	p->varying_loc = f->varying_loc;
	p->split = f->split;
	p->partial = f->partial;
}

/* --------------------------------------------------------------- a kernel */

Protocol *
protocol_begin(KernelIR *k, bool unchecked_waits)
{
	Protocol *p = pool_alloc(sizeof *p);
	p->k = k;
	p->unchecked_waits = unchecked_waits;
	p->errors_before = error_count;
	int nwarps = (k->threads + 31) / 32;
	p->warps = nwarps >= 64 ? ~0ull : (1ull << nwarps) - 1;
	p->mbarcheck = mbarcheck_begin(k);
	return p;
}

MbarCheck *
protocol_mbarcheck(Protocol *p)
{
	return p->mbarcheck;
}

void
protocol_mbar_complete_tx(Protocol *p, const Tensor *bar, const IExpr *index, int64_t bytes, const Tensor *data,
                          Loc loc)
{
	mbarcheck_complete_tx(p->mbarcheck, bar, index, bytes, data, p->warps, loc);
}

void
protocol_end(Protocol *p, const char *kernel, Loc name_loc)
{
	check_named_bars(p);
	uint64_t alloc_warps = 0;
	for (int i = 0; i < p->flow.live.n; i++) {
		LiveAlloc *live = LIST_AT(p->flow.live, LiveAlloc, i);
		AllocInfo *a = live->alloc;
		if (a->warps) /* else no warp of the block executes it */
			alloc_warps |= 1ull << lowest_warp(a->warps);
		if (!live->live)
			continue;
		/* an alloc whose column count was refused is still recorded, with none */
		const char *size = a->ncols ? pool_printf(" (%d columns)", a->ncols) : "";
		error(a->loc, "tensor memory allocated here is not freed with %s%s on every path to the end of kernel '%s'",
		      isa_name(TC_DEALLOC, 0), size, kernel);
		if (a->freed_at.first_line)
			note(a->freed_at, "it is freed here, but not on every path");
	}
	if (alloc_warps && !p->flow.relinquished_all && !error_count) {
		warn(WARN_MISSING_RELINQUISH, name_loc, "kernel '%s' allocates tensor memory but does not execute %s on "
		     "every path; other CTAs on the SM may wait for columns", kernel, isa_name(TC_RELINQUISH, 0));
		note(LIST_AT(p->allocs, AllocInfo, 0)->loc, "the allocation is here");
	}
}
