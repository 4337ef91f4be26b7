/* mbarcheck.c: the static checks of mbarrier pipelines (LANGUAGE 11.3, docs/mbarrier.md "Rings"): the parity
 * of the waits of a ring, the bytes of each phase, and a stage's tile read before its data or written before
 * its release, over the mbarrier statements, shared accesses and copy completions of a kernel in order. */
#include <string.h>

#include "tilec.h"

/* What a record does, for the checks. */
typedef enum EvKind {
	EV_NONE,
	EV_ARRIVE,   /* mbarrier.arrive or commit: amount arrivals (-1: not counted) */
	EV_EXPECT,   /* mbarrier.expect_tx (written, or a copy's): amount bytes (-1: not known) */
	EV_COMPLETE, /* a copy completing amount bytes on the barrier; data: the shared tensor it writes */
	EV_WAIT,     /* mbarrier.wait: value is the parity */
	EV_INIT,     /* mbarrier.init */
	EV_READ,     /* threads read the shared tensor data */
	EV_WRITE,    /* threads write it */
	EV_SYNC      /* cta_sync or a named barrier: an order the ring checks do not follow */
} EvKind;

typedef struct MbLoop MbLoop;

/* One event in program order: a lowered statement recorded when lowering emitted it (its fields are read
   at the end of the kernel, once lowering has filled them in), or a copy's completion. */
typedef struct MbEvent {
	EvKind kind;
	const LStmt *l;      /* the statement; NULL for a completion */
	const Tensor *t;     /* the barrier (arrive, expect, complete, wait) or the shared tensor (read, write) */
	const IExpr *index;  /* the barrier's element, or the element written */
	const IExpr *value;  /* wait: the parity */
	int64_t amount;
	const Tensor *data;  /* complete: the tile the copy writes */
	uint64_t warps;
	int threads;         /* the threads that run it where lowering knows them (whole warps), else -1 */
	Loc loc;
	MbLoop *loop;        /* the innermost run-time loop around it; NULL: none */
	MbLoop *ring;        /* the outermost one, whose trips the ring checks follow */
	int at;              /* its place in program order */
} MbEvent;

/* A run-time loop (an L_FOR that lowering did not unroll). */
struct MbLoop {
	const LStmt *l;
	MbLoop *outer;
	uint64_t warps;
	int first;   /* its events: at from first to last - 1 */
	int last;
	int group;   /* the ring it belongs to (loops_group) */
};

struct MbarCheck {
	KernelIR *k;
	int errors_before;
	List events; /* MbEvent* */
	List loops;  /* MbLoop* */
	MbLoop *cur;
};

MbarCheck *
mbarcheck_begin(KernelIR *k)
{
	MbarCheck *c = pool_alloc(sizeof *c);
	c->k = k;
	c->errors_before = error_count;
	return c;
}

static MbEvent *
event_new(MbarCheck *c, EvKind kind, uint64_t warps, int threads, Loc loc)
{
	MbEvent *e = pool_alloc(sizeof *e);
	e->kind = kind;
	e->warps = warps;
	e->threads = threads;
	e->loc = loc;
	e->loop = c->cur;
	e->at = c->events.n;
	list_push(&c->events, e);
	return e;
}

void
mbarcheck_stmt(MbarCheck *c, const LStmt *l, uint64_t warps, int threads)
{
	event_new(c, EV_NONE, warps, threads, l->loc)->l = l;
}

void
mbarcheck_loop_begin(MbarCheck *c, const LStmt *loop, uint64_t warps)
{
	MbLoop *m = pool_alloc(sizeof *m);
	m->l = loop;
	m->outer = c->cur;
	m->warps = warps;
	m->first = c->events.n;
	c->cur = m;
	list_push(&c->loops, m);
}

void
mbarcheck_loop_end(MbarCheck *c)
{
	c->cur->last = c->events.n;
	c->cur = c->cur->outer;
}

void
mbarcheck_complete_tx(MbarCheck *c, const Tensor *bar, const IExpr *index, int64_t bytes, const Tensor *data,
                      uint64_t warps, Loc loc)
{
	MbEvent *e = event_new(c, EV_COMPLETE, warps, -1, loc);
	e->t = bar;
	e->index = index;
	e->amount = bytes;
	e->data = data;
}

/* ---------------------------------------------------------------- the events of the statements */

/* The shared tensors (not barriers) that e loads from, as read events after 'from'. */
static void
note_reads(MbarCheck *c, const MbEvent *from, const IExpr *e, List *out)
{
	if (!e)
		return;
	if (e->kind == IE_LOAD && e->tensor && e->tensor->kind == TK_SHARED && e->tensor->type != T_MBARRIER) {
		MbEvent *r = pool_alloc(sizeof *r);
		*r = *from;
		r->kind = EV_READ;
		r->t = e->tensor;
		r->index = e->index;
		list_push(out, r);
	}
	note_reads(c, from, e->a, out);
	note_reads(c, from, e->b, out);
	note_reads(c, from, e->index, out);
}

/* The shared tiles that a tcgen05.mma or tcgen05.cp reads through its descriptors (the IE_SADDR in each
   descriptor's start address), as read events: the ring checks then know which stage an mma consumes. */
static void
note_operand_reads(const MbEvent *from, const IExpr *e, List *out)
{
	if (!e)
		return;
	if (e->kind == IE_SADDR && e->tensor && e->tensor->type != T_MBARRIER) {
		MbEvent *r = pool_alloc(sizeof *r);
		*r = *from;
		r->kind = EV_READ;
		r->t = e->tensor;
		r->index = e->index;
		list_push(out, r);
		return;
	}
	note_operand_reads(from, e->a, out);
	note_operand_reads(from, e->b, out);
	note_operand_reads(from, e->index, out);
}

/* The recorded statements turned into events, in program order (a statement's reads before its write). */
static List
events_of(MbarCheck *c)
{
	List out = {0};
	for (int i = 0; i < c->events.n; i++) {
		MbEvent *e = LIST_AT(c->events, MbEvent, i);
		const LStmt *l = e->l;
		if (!l) {
			list_push(&out, e);
			continue;
		}
		note_reads(c, e, l->value, &out);
		note_reads(c, e, l->index, &out);
		note_reads(c, e, l->cond, &out);
		if (l->kind == L_TC && l->instr && (l->instr->kind == TC_MMA || l->instr->kind == TC_CP))
			for (int o = 0; o < l->nops; o++)
				if (l->ops[o].slot->kind == IO_SHARED_DESC64)
					note_operand_reads(e, l->ops[o].addr, &out);
		if (l->kind == L_STORE && l->tensor && l->tensor->kind == TK_SHARED && l->tensor->type != T_MBARRIER) {
			e->kind = EV_WRITE;
			e->t = l->tensor;
			e->index = l->index;
			list_push(&out, e);
		} else if (l->kind == L_BARRIER || l->kind == L_NAMED_BAR ||
		           (l->kind == L_MBAR && l->mbar_op == MB_CLUSTER_SYNC)) {
			e->kind = EV_SYNC;
			list_push(&out, e);
		} else if (l->kind == L_MBAR && l->tensor) {
			int64_t v = -1;
			bool known = l->value && ie_is_const(l->value, &v);
			e->t = l->tensor;
			e->index = l->index;
			e->value = l->value;
			e->amount = -1;
			switch (l->mbar_op) {
			case MB_ARRIVE:
				e->kind = EV_ARRIVE;
				if (known && e->threads > 0)
					e->amount = v * e->threads;
				break;
			/* a single-thread statement runs once in each warp that reaches it: counted where that is one */
			case MB_COMMIT:
				e->kind = EV_ARRIVE;
				if (e->threads > 0 && l->cta_group == 1 && !(e->warps & (e->warps - 1)))
					e->amount = 1;
				break;
			case MB_EXPECT_TX:
				e->kind = EV_EXPECT;
				if (known && e->threads > 0 && !(e->warps & (e->warps - 1)))
					e->amount = v;
				break;
			case MB_WAIT:
				e->kind = EV_WAIT;
				break;
			case MB_INIT:
				e->kind = EV_INIT;
				break;
			default:
				continue;
			}
			list_push(&out, e);
		}
	}
	return out;
}

/* ---------------------------------------------------------------- evaluation at a trip */

/* e with the ring's loop variable v replaced by k, the variable of a loop inside it by its first value (a
   representative element: the trip's first), and the lets that lead to them by their definitions; NULL
   where e depends on another variable or on memory. */
static IExpr *
at_trip(const MbarCheck *c, const IExpr *e, const Var *v, int64_t k)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case IE_INT:
	case IE_BUILTIN:
		return (IExpr *)e;
	case IE_VAR:
		if (e->var == v)
			return ie_int(k, T_I32);
		for (int i = 0; i < c->loops.n; i++) {
			const LStmt *l = LIST_AT(c->loops, MbLoop, i)->l;
			int64_t first;
			if (l->var == e->var && ie_is_const(l->lo, &first))
				return ie_int(first, T_I32);
		}
		return e->var->is_let && e->var->def ? at_trip(c, e->var->def, v, k) : NULL;
	case IE_UNARY:
	case IE_BINARY:
	case IE_SELECT:
	case IE_CONV: {
		IExpr *a = e->a ? at_trip(c, e->a, v, k) : NULL;
		IExpr *b = e->b ? at_trip(c, e->b, v, k) : NULL;
		IExpr *x = e->index ? at_trip(c, e->index, v, k) : NULL;
		if ((e->a && !a) || (e->b && !b) || (e->index && !x))
			return NULL;
		return ie_with_children(e, a, b, x);
	}
	default:
		return NULL;
	}
}

/* The value of e in trip k of the loop around ev, in the first thread of ev's warps (and the same in its
   last warp's first thread, for an element that every thread must agree on: uniform). */
static bool
eval_at(const MbarCheck *c, const MbEvent *ev, const IExpr *e, int64_t k, bool uniform, int64_t *out)
{
	IExpr *x = at_trip(c, e, ev->ring ? ev->ring->l->var : NULL, k);
	if (!x || !ev->warps)
		return false;
	int lo = __builtin_ctzll(ev->warps), hi = 63 - __builtin_clzll(ev->warps);
	int64_t other;
	if (!ie_eval_thread(x, c->k->block, 32 * lo, out))
		return false;
	return !uniform || (ie_eval_thread(x, c->k->block, 32 * hi, &other) && other == *out);
}

/* ---------------------------------------------------------------- rings: loops that run side by side */

/* Run-time loops with the same constant start and the same end, run by different warps, take their trips
   side by side: the ring of a producer's loop and a consumer's. Loops inside another run-time loop belong
   to the outermost one's trips (group -1). */
static int
loops_group(MbarCheck *c)
{
	int groups = 0;
	for (int i = 0; i < c->loops.n; i++) {
		MbLoop *m = LIST_AT(c->loops, MbLoop, i);
		int64_t lo;
		m->group = -1;
		if (m->outer || !ie_is_const(m->l->lo, &lo) || !m->l->var)
			continue;
		for (int j = 0; j < i && m->group < 0; j++) {
			MbLoop *o = LIST_AT(c->loops, MbLoop, j);
			if (o->group < 0 || !ie_equal(o->l->lo, m->l->lo) || !ie_equal(o->l->hi, m->l->hi))
				continue;
			bool apart = true;
			for (int q = 0; q < i; q++) {
				MbLoop *g = LIST_AT(c->loops, MbLoop, q);
				if (g->group == o->group && (g->warps & m->warps))
					apart = false;
			}
			if (apart)
				m->group = o->group;
		}
		if (m->group < 0)
			m->group = groups++;
	}
	return groups;
}

/* The trips simulated: enough for the parities of a ring of up to 16 stages to repeat twice. */
#define TRIPS 64

typedef struct Ring {
	MbarCheck *c;
	List events; /* MbEvent*: those of the group's loops, in program order */
	int64_t lo;  /* the first trip's value of the loop variables */
	int trips;
	const MbLoop *first;
} Ring;

static bool
same_side(const MbEvent *a, const MbEvent *b)
{
	return a->ring == b->ring && (a->warps & b->warps);
}

/* Whether some event of the ring's loops touches the barrier or tile t as kind k, run by warps in 'warps'
   (0: any), after (after true) or before event 'of' on its side; 'data' matches a completion's tile. */
static const MbEvent *
side_event(const Ring *r, const MbEvent *of, bool after, EvKind kind, const Tensor *t)
{
	for (int i = 0; i < r->events.n; i++) {
		const MbEvent *e = LIST_AT(r->events, MbEvent, i);
		if (!same_side(e, of) || (after ? e->at < of->at : e->at > of->at) || e == of)
			continue;
		if (e->kind == kind && e->t == t)
			return e;
		if (kind == EV_WRITE && e->kind == EV_COMPLETE && e->data == t)
			return e;
	}
	return NULL;
}

/* The tile an access event touches: a read's or write's tensor, the tile a copy's completion writes. */
static const Tensor *
tile_of(const MbEvent *e)
{
	return e->kind == EV_COMPLETE ? e->data : e->t;
}

static bool
tile_in(const List *accesses, const Tensor *x)
{
	for (int i = 0; i < accesses->n; i++) {
		const MbEvent *e = LIST_AT(*accesses, MbEvent, i);
		if (tile_of(e) == x)
			return true;
	}
	return false;
}

/* The first event of each tile that the side of 'of' reads (kind EV_READ) or writes (EV_WRITE, a copy's
   completion included) after (after true) or before 'of', into out (MbEvent*). */
static void
side_tiles(const Ring *r, const MbEvent *of, bool after, EvKind kind, List *out)
{
	for (int i = 0; i < r->events.n; i++) {
		const MbEvent *e = LIST_AT(r->events, MbEvent, i);
		if (!same_side(e, of) || e == of || (after ? e->at < of->at : e->at > of->at))
			continue;
		const Tensor *x = e->kind == kind ? e->t : kind == EV_WRITE && e->kind == EV_COMPLETE ? e->data : NULL;
		if (x && !tile_in(out, x))
			list_push(out, (void *)e);
	}
}


/* How a wait of the ring relates to the arrivals on its barrier: 0 it waits for the phase that its own trip
   completes (the data of this trip), 1 for the phase completed before its trip (the release of a stage by
   the trip that used it before), -1 undecided. From the arrivals of its own threads, else from the data: a
   tile read after the wait and written before the others' arrival (0), or written after the wait and read
   before it (1). */
static int
wait_lag(const Ring *r, const MbEvent *w, const MbEvent **why)
{
	bool own_before = false, own_after = false, raw = false, war = false;
	List read_after = {0}, written_after = {0}; /* the first access to each tile after the wait, on its side */
	side_tiles(r, w, true, EV_READ, &read_after);
	side_tiles(r, w, true, EV_WRITE, &written_after);
	*why = NULL;
	for (int i = 0; i < r->events.n; i++) {
		const MbEvent *a = LIST_AT(r->events, MbEvent, i);
		if ((a->kind != EV_ARRIVE && a->kind != EV_COMPLETE) || a->t != w->t)
			continue;
		if (same_side(a, w)) {
			own_before |= a->at < w->at;
			own_after |= a->at > w->at;
			continue;
		}
		List written_before = {0}, read_before = {0};
		side_tiles(r, a, false, EV_WRITE, &written_before);
		side_tiles(r, a, false, EV_READ, &read_before);
		for (int j = 0; j < read_after.n; j++) {
			const MbEvent *d = LIST_AT(read_after, MbEvent, j);
			if ((a->kind == EV_COMPLETE && a->data == d->t) || tile_in(&written_before, tile_of(d))) {
				raw = true;
				*why = *why ? *why : d;
			}
		}
		for (int j = 0; j < written_after.n; j++) {
			const MbEvent *d = LIST_AT(written_after, MbEvent, j);
			if (tile_in(&read_before, tile_of(d))) {
				war = true;
				*why = *why ? *why : d;
			}
		}
	}
	if (raw != war)
		return raw ? 0 : 1;
	*why = NULL;
	if (own_before && !own_after)
		return 0;
	if (own_after && !own_before)
		return 1;
	return -1;
}

/* A barrier tensor of the ring whose phases tilec follows trip by trip: per element, the arrivals before
   each trip (arrived[k * count + e], from the kernel's start: those before the loops were counted). */
typedef struct RingBar {
	const Tensor *t;
	int64_t *arrived; /* (trips + 1) x count */
} RingBar;

/* The arrivals on t before the ring's loops, per element, from the events outside run-time loops; false
   where one of them was not counted or lies in another loop. The inits come first (lower.c's mbar_order):
   they start every element at phase 0. */
static bool
arrivals_before(const Ring *r, const List *all, const Tensor *t, int64_t *out)
{
	for (int i = 0; i < all->n; i++) {
		const MbEvent *e = LIST_AT(*all, MbEvent, i);
		if (e->at >= r->first->first)
			break;
		if (e->kind != EV_ARRIVE || e->t != t)
			continue;
		int64_t el;
		if (e->loop || e->amount < 0 || !ie_is_const(e->index, &el) || el < 0 || el >= t->count)
			return false;
		out[el] += e->amount;
	}
	return true;
}

static bool
ring_bar(Ring *r, const List *all, const Tensor *t, RingBar *b)
{
	int n = t->count;
	if (!t->mbar_count)
		return false;
	for (int e = 0; e < n; e++)
		if (t->mbar_count[e] <= 0)
			return false;
	for (int i = 0; i < r->events.n; i++) {
		const MbEvent *e = LIST_AT(r->events, MbEvent, i);
		if (e->kind == EV_INIT && e->t == t)
			return false; /* initialised again in the loop: its phases start over */
	}
	b->t = t;
	b->arrived = pool_alloc(sizeof(int64_t) * (size_t)(r->trips + 1) * (size_t)n);
	if (!arrivals_before(r, all, t, b->arrived))
		return false;
	bool arrives = false;
	for (int k = 0; k < r->trips; k++) {
		int64_t *now = &b->arrived[(size_t)k * n], *next = now + n;
		memcpy(next, now, sizeof(int64_t) * (size_t)n);
		for (int i = 0; i < r->events.n; i++) {
			const MbEvent *e = LIST_AT(r->events, MbEvent, i);
			int64_t el;
			if (e->t != t || (e->kind != EV_ARRIVE && e->kind != EV_WAIT && e->kind != EV_EXPECT && e->kind != EV_COMPLETE))
				continue;
			if (!eval_at(r->c, e, e->index, r->lo + k, true, &el) || el < 0 || el >= n)
				return false;
			if (e->kind != EV_ARRIVE)
				continue;
			if (e->amount < 0)
				return false;
			next[el] += e->amount;
			arrives = true;
		}
	}
	return arrives;
}

static int64_t
phases_done(const RingBar *b, int k, int el)
{
	return b->arrived[(size_t)k * b->t->count + el] / b->t->mbar_count[el];
}

/* The first arrival on t[el] in trip k (its line, for the notes). */
static const MbEvent *
arrival_in(const Ring *r, const Tensor *t, int k, int el)
{
	for (int i = 0; i < r->events.n; i++) {
		const MbEvent *e = LIST_AT(r->events, MbEvent, i);
		int64_t x;
		if (e->kind == EV_ARRIVE && e->t == t && eval_at(r->c, e, e->index, r->lo + k, true, &x) && x == el)
			return e;
	}
	return NULL;
}

/* The phase q of b's element el described for a message, with the trip whose arrivals complete it. */
static const char *
phase_words(const Ring *r, const RingBar *b, int el, int64_t q, const MbEvent **by)
{
	*by = NULL;
	if (q < 0)
		return pool_printf("the phase before the first of '%s[%d]' (parity 1: no earlier trip arrived on it, so "
		                   "the wait must pass at once)", b->t->name, el);
	for (int k = 0; k < r->trips; k++)
		if (phases_done(b, k + 1, el) > q) {
			*by = arrival_in(r, b->t, k, el);
			return pool_printf("phase %lld of '%s[%d]' (parity %d), which the arrivals of trip %lld complete",
			                   (long long)q, b->t->name, el, (int)(q & 1), (long long)(r->lo + k));
		}
	return pool_printf("phase %lld of '%s[%d]' (parity %d)", (long long)q, b->t->name, el, (int)(q & 1));
}

static const char *
var_name(const MbEvent *e)
{
	return e->ring->l->var->name;
}

/* The parity of each wait of the ring, trip by trip, against the phase it guards (LANGUAGE 11.3). */
static void
check_wait(Ring *r, const RingBar *b, const MbEvent *w)
{
	const MbEvent *why;
	int lag = wait_lag(r, w, &why);
	int64_t parity[TRIPS], el[TRIPS], want[2][TRIPS];
	for (int k = 0; k < r->trips; k++) {
		if (!eval_at(r->c, w, w->value, r->lo + k, false, &parity[k]) ||
		    !eval_at(r->c, w, w->index, r->lo + k, true, &el[k]))
			return;
		parity[k] &= 1;
		int64_t before = phases_done(b, k, (int)el[k]), after = phases_done(b, k + 1, (int)el[k]);
		want[0][k] = after > before ? after - 1 : -2; /* -2: this trip completes no phase of it */
		want[1][k] = before - 1;
	}
	int bad[2] = {-1, -1};
	for (int g = 0; g < 2; g++)
		for (int k = 0; k < r->trips && bad[g] < 0; k++)
			if (want[g][k] != -2 && parity[k] != ((want[g][k] & 1) || want[g][k] < 0 ? 1 : 0))
				bad[g] = k;
	if (lag < 0 && (bad[0] < 0 || bad[1] < 0))
		return;
	if (lag >= 0 && bad[lag] < 0)
		return;
	const char *v = var_name(w);
	if (lag < 0) {
		int k0 = bad[0], k1 = bad[1];
		error(w->loc, "the parities of this %s on '%s' follow neither the phases its trips complete (trip %s = "
		              "%lld waits for parity %d, but completes a phase of parity %d) nor the phases completed before "
		              "its trips (trip %s = %lld waits for parity %d, but the phase before it has parity %d)",
		      mbar_stmt_name(MB_WAIT), b->t->name,
		      v, (long long)(r->lo + k0), (int)parity[k0], (int)(want[0][k0] & 1), v, (long long)(r->lo + k1),
		      (int)parity[k1], want[1][k1] < 0 ? 1 : (int)(want[1][k1] & 1));
	} else {
		int k = bad[lag];
		const MbEvent *by;
		const char *phase = phase_words(r, b, (int)el[k], want[lag][k], &by);
		error(w->loc, "in trip %s = %lld this %s on '%s[%lld]' waits for parity %d, but %s is %s", v, (long long)(r->lo + k), mbar_stmt_name(MB_WAIT), b->t->name, (long long)el[k], (int)parity[k],
		      lag == 0 ? "the phase in which the data it guards arrives" : "the phase that releases the stage", phase);
		if (by)
			note(by->loc, "the arrival that completes that phase");
		for (int i = 0; i < r->events.n && !by && lag == 1; i++) {
			by = LIST_AT(r->events, MbEvent, i);
			if (by->kind != EV_ARRIVE || by->t != b->t || same_side(by, w))
				by = NULL;
			else
				note(by->loc, "the arrival that releases a stage for its next use");
		}
		if (why)
			note(why->loc, lag == 0 ? "the data the wait guards: read here, written before that arrival"
			                        : "the stage the wait guards: written here, read before that arrival");
	}
	note(w->ring->l->loc, "the loop");
	/* the usual mistake: a ring of S stages whose parity flips every trip instead of every S trips */
	int stages = 0;
	for (int k = 0; k < r->trips; k++)
		stages = el[k] + 1 > stages ? (int)el[k] + 1 : stages;
	for (int k = 0; k < r->trips; k++)
		if (el[k] != k % stages)
			stages = 0;
	if (stages > 1 && r->lo == 0)
		note(w->loc, "trip %s uses element %s of a ring of %d stages, so each element completes one phase every %d "
		             "trips: parity %s for data of the same trip, %s for a release", v,
		     pool_printf("%s %% %d", v, stages), stages, stages, pool_printf("(%s / %d) %% 2", v, stages),
		     pool_printf("(%s / %d + 1) %% 2", v, stages));
}

/* A phase whose announced bytes differ from the bytes completing on it (when: "" or "in trip k = 3, "). */
static void
bytes_error(const MbEvent *at, const MbEvent *copy, const char *when, int64_t phase, const Tensor *t, int el,
            int64_t expect, int64_t done)
{
	error(at->loc, "%sphase %lld of '%s[%d]' expects %lld bytes, but the copies completing on it in that phase "
	               "bring %lld%s", when, (long long)phase, t->name, el, (long long)expect, (long long)done,
	      expect > done ? ": the phase never completes" : ": more than it waits for");
	if (copy && copy != at)
		note(copy->loc, "a copy completing on it");
}

/* The bytes each phase of the ring's barriers expects against the bytes of the copies completing on it. */
static void
check_ring_bytes(Ring *r, const RingBar *b)
{
	int n = b->t->count;
	for (int k = 0; k < r->trips; k++)
		for (int el = 0; el < n; el++) {
			int64_t expect = 0, done = 0, x;
			const MbEvent *first_expect = NULL, *first_done = NULL;
			for (int i = 0; i < r->events.n; i++) {
				const MbEvent *e = LIST_AT(r->events, MbEvent, i);
				if ((e->kind != EV_EXPECT && e->kind != EV_COMPLETE) || e->t != b->t)
					continue;
				if (!eval_at(r->c, e, e->index, r->lo + k, true, &x) || e->amount < 0)
					return;
				if (x != el)
					continue;
				if (e->kind == EV_EXPECT) {
					expect += e->amount;
					first_expect = first_expect ? first_expect : e;
				} else {
					done += e->amount;
					first_done = first_done ? first_done : e;
				}
			}
			int64_t before = phases_done(b, k, el), after = phases_done(b, k + 1, el);
			int64_t cnt = b->t->mbar_count[el];
			/* only a trip that completes exactly one phase, from its start, has the phase's bytes */
			if (expect == done || after != before + 1 || b->arrived[(size_t)k * n + el] % cnt)
				continue;
			const MbEvent *at = first_expect ? first_expect : first_done;
			bytes_error(at, first_done, pool_printf("in trip %s = %lld, ", var_name(at), (long long)(r->lo + k)), before,
			            b->t, el, expect, done);
			note(at->ring->l->loc, "the loop");
			return;
		}
}

/* A tile of the ring that some warps write and others read in the trips: each read after a wait on a barrier
   that the writers arrive on (or a copy completes on) after their write, each write after a wait on a
   barrier that the readers arrive on after their read (LANGUAGE 11.3, 11.4). */
static void
check_tile(Ring *r, const MbEvent *acc)
{
	bool read = acc->kind == EV_READ;
	const Tensor *x = tile_of(acc);
	int reuse = 0; /* a write's first trip that writes an element again */
	const MbEvent *other = NULL;
	for (int i = 0; i < r->events.n && !other; i++) {
		const MbEvent *e = LIST_AT(r->events, MbEvent, i);
		bool touches = read ? (e->kind == EV_WRITE || e->kind == EV_COMPLETE) && tile_of(e) == x
		                    : e->kind == EV_READ && e->t == x;
		if (touches && !(e->warps & acc->warps))
			other = e;
	}
	if (!other)
		return;
	if (!read) {
		/* a write that never reuses an element (each trip its own) needs no release */
		int64_t first, el;
		if (!eval_at(r->c, acc, acc->index, r->lo, false, &first))
			return;
		for (reuse = 1; reuse < r->trips; reuse++) {
			if (!eval_at(r->c, acc, acc->index, r->lo + reuse, false, &el))
				return;
			if (el == first)
				break;
		}
		if (reuse == r->trips)
			return;
	}
	for (int i = 0; i < r->events.n; i++) {
		const MbEvent *w = LIST_AT(r->events, MbEvent, i);
		if (w->kind != EV_WAIT || !same_side(w, acc) || w->at > acc->at)
			continue;
		for (int j = 0; j < r->events.n; j++) {
			const MbEvent *a = LIST_AT(r->events, MbEvent, j);
			if ((a->kind != EV_ARRIVE && a->kind != EV_COMPLETE) || a->t != w->t || (a->warps & acc->warps))
				continue;
			if (read && a->kind == EV_COMPLETE && a->data == x)
				return;
			if (side_event(r, a, false, read ? EV_WRITE : EV_READ, x))
				return;
		}
	}
	const char *v = var_name(acc);
	if (read) {
		error(acc->loc, "'%s' is read here in each trip of the loop, but no %s before the read waits for a "
		                "barrier that its writers arrive on after writing it: the read may see the stage before its data "
		                "arrives", x->name, mbar_stmt_name(MB_WAIT));
		note(other->loc, "written here by other warps");
	} else {
		error(acc->loc, "'%s' is written here in each trip of the loop, from trip %s = %lld on where trip %s = %lld "
		                "wrote it, but no %s before the write waits for a barrier that its readers arrive "
		                "on after reading it: the stage may be overwritten before its readers released it",
		      x->name, v, (long long)(r->lo + reuse), v, (long long)r->lo, mbar_stmt_name(MB_WAIT));
		note(other->loc, "read here by other warps");
	}
	note(acc->ring->l->loc, "the loop");
}

static void
check_ring(MbarCheck *c, const List *all, int group)
{
	Ring r = {c, {0}, 0, TRIPS, NULL};
	for (int i = 0; i < all->n; i++) {
		MbEvent *e = LIST_AT(*all, MbEvent, i);
		if (!e->ring || e->ring->group != group)
			continue;
		/* a barrier statement in a loop inside the ring's: its trips no longer complete one phase each */
		if (e->loop != e->ring && e->kind >= EV_ARRIVE && e->kind <= EV_INIT)
			return;
		list_push(&r.events, e);
		if (!r.first || e->ring->first < r.first->first)
			r.first = e->ring;
	}
	if (!r.first)
		return;
	int64_t hi;
	ie_is_const(r.first->l->lo, &r.lo);
	if (ie_is_const(r.first->l->hi, &hi) && hi - r.lo < r.trips)
		r.trips = hi - r.lo < 0 ? 0 : (int)(hi - r.lo);
	bool waits = false;
	for (int i = 0; i < r.events.n; i++) {
		const MbEvent *e = LIST_AT(r.events, MbEvent, i);
		if (e->kind == EV_SYNC)
			return; /* another order between the sides: the checks of tiles and parities do not follow it */
		waits |= e->kind == EV_WAIT;
	}
	if (!waits || r.trips < 1)
		return;
	int errors = error_count;
	List seen = {0};
	for (int i = 0; i < r.events.n && error_count == errors; i++) {
		const MbEvent *e = LIST_AT(r.events, MbEvent, i);
		if (e->kind < EV_ARRIVE || e->kind > EV_WAIT || list_has(&seen, e->t))
			continue;
		list_push(&seen, (void *)e->t);
		RingBar b;
		if (!ring_bar(&r, all, e->t, &b))
			continue;
		check_ring_bytes(&r, &b);
		for (int j = 0; j < r.events.n && error_count == errors; j++) {
			const MbEvent *w = LIST_AT(r.events, MbEvent, j);
			if (w->kind == EV_WAIT && w->t == e->t)
				check_wait(&r, &b, w);
		}
	}
	/* one message per tile and kind of access */
	List done = {0};
	for (int i = 0; i < r.events.n && error_count == errors; i++) {
		const MbEvent *e = LIST_AT(r.events, MbEvent, i);
		if (e->kind != EV_READ && e->kind != EV_WRITE && !(e->kind == EV_COMPLETE && e->data))
			continue;
		const char *key = pool_printf("%p %d %p", (const void *)tile_of(e), e->kind == EV_READ, (const void *)e->ring);
		bool again = false;
		for (int j = 0; j < done.n && !again; j++)
			again = strcmp(LIST_AT(done, char, j), key) == 0;
		if (again)
			continue;
		list_push(&done, (void *)key);
		check_tile(&r, e);
	}
}

/* Outside run-time loops: an expect_tx of a known byte count on a barrier on which no copy of the kernel
   completes any byte waits for bytes that never come. */
static void
check_lonely_bytes(const List *all)
{
	for (int i = 0; i < all->n; i++) {
		const MbEvent *e = LIST_AT(*all, MbEvent, i);
		if (e->kind != EV_EXPECT || e->amount <= 0)
			continue;
		bool completes = false;
		for (int j = 0; j < all->n && !completes; j++) {
			const MbEvent *x = LIST_AT(*all, MbEvent, j);
			completes = x->kind == EV_COMPLETE && x->t == e->t;
		}
		if (completes)
			continue;
		error(e->loc, "%s announces %lld bytes on '%s', but no copy of the kernel completes bytes on "
		              "it: the phase never completes", mbar_stmt_name(MB_EXPECT_TX), (long long)e->amount, e->t->name);
		note(e->loc, "a TMA load (copy(tile, slice) %s %s[...]) expects and brings its own bytes; %s adds bytes beyond "
		             "them", etype_name(T_MBARRIER), e->t->name, mbar_stmt_name(MB_EXPECT_TX));
	}
}

/* Outside run-time loops, the phases of each element whose arrivals tilec counts: the bytes announced in
   a phase against those completing in it, checked as the phase completes. Stops following an element at
   the first event it cannot place (an element or count not known, or one in a loop). */
static void
check_straight_bytes(const List *all, const Tensor *t, int el)
{
	int64_t expect = 0, done = 0, arrivals = 0, phase = 0, x;
	bool known = true;
	const MbEvent *first = NULL, *copy = NULL;
	for (int i = 0; i < all->n; i++) {
		const MbEvent *e = LIST_AT(*all, MbEvent, i);
		if (e->t != t || (e->kind != EV_ARRIVE && e->kind != EV_EXPECT && e->kind != EV_COMPLETE))
			continue;
		if (e->loop || !ie_is_const(e->index, &x))
			return;
		if (x != el)
			continue;
		if (e->kind == EV_ARRIVE) {
			if (e->amount < 0)
				return;
			arrivals += e->amount;
			if (arrivals < t->mbar_count[el])
				continue;
			if (arrivals > t->mbar_count[el])
				return;
			if (known && expect != done) {
				bytes_error(first ? first : e, copy, "", phase, t, el, expect, done);
				return;
			}
			expect = done = arrivals = 0;
			known = true;
			first = copy = NULL;
			phase++;
			continue;
		}
		known &= e->amount >= 0;
		first = first ? first : e;
		if (e->kind == EV_EXPECT)
			expect += e->amount;
		else {
			done += e->amount;
			copy = copy ? copy : e;
		}
	}
}

void
mbarcheck_end(MbarCheck *c)
{
	if (error_count != c->errors_before || !c->events.n)
		return;
	List all = events_of(c);
	for (int i = 0; i < all.n; i++) {
		MbEvent *e = LIST_AT(all, MbEvent, i);
		e->at = i;
		for (e->ring = e->loop; e->ring && e->ring->outer; e->ring = e->ring->outer)
			;
	}
	for (int i = 0; i < c->loops.n; i++) {
		/* the loops' bounds in the renumbered events */
		MbLoop *m = LIST_AT(c->loops, MbLoop, i);
		int first = all.n, last = 0;
		for (int j = 0; j < all.n; j++) {
			const MbEvent *e = LIST_AT(all, MbEvent, j);
			for (const MbLoop *o = e->loop; o; o = o->outer)
				if (o == m) {
					first = j < first ? j : first;
					last = j + 1;
				}
		}
		m->first = first;
		m->last = last;
	}
	check_lonely_bytes(&all);
	for (int i = 0; i < all.n && error_count == c->errors_before; i++) {
		const MbEvent *e = LIST_AT(all, MbEvent, i);
		if (e->kind == EV_INIT && e->t->mbar_count && !e->loop) {
			int64_t el;
			if (ie_is_const(e->index, &el) && el >= 0 && el < e->t->count && e->t->mbar_count[el] > 0)
				check_straight_bytes(&all, e->t, (int)el);
		}
	}
	int groups = loops_group(c);
	for (int g = 0; g < groups && error_count == c->errors_before; g++)
		check_ring(c, &all, g);
}
