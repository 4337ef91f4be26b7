/* lower.c: walks each kernel, checks statements and tcgen05 instructions, and builds the lowered program. */
#include <string.h>

#include "tilec.h"
#include "tilert.h"

/* What the walks of one file share (lower_program): budgets over all its kernels, so that the output
   stays in proportion to the input, and the device functions declared so far. */
typedef struct FileWalk {
	/* iterations unrolled so far in the whole file (all kernels) */
	int64_t unrolled;
	/* calls inlined so far in the whole file: a call is its callee's body in place, so calls of calls multiply
	   as nested loops do (16 functions that each call the one before twice made 2^16 copies) */
	int64_t inlined;
	/* elements moved between registers and memory by copies so far in the whole file: each is a statement
	   per register slot, so a few device calls of calls or an unrolled loop around a large copy made GBs */
	int64_t moved;
	/* the device functions declared so far: no name of the generated code may hide one */
	List device_names;
	Map device_name_order; /* a device function's name -> its place in device_names, from 1 */
	KernelIR *names_kernel; /* the kernel (or device function) whose walk began last */
	int names_devices;      /* how many device functions were declared then */
	const LowerObserver *observer; /* --draw's, or NULL */
	bool unchecked_waits;          /* tilec run --unchecked-waits */
	const Arch *arch;              /* -arch */
} FileWalk;

enum { MAX_CONDS = 16 };

typedef struct Walk {
	FileWalk *file;
	KernelIR *k;
	List *out;          /* where lowered statements go */
	Protocol *proto;    /* the protocol state at the statement being lowered (protocol.c) */
	List *cur_list;     /* the statement list being lowered, and the statement's place in it */
	int cur_index;
	List after_wait;    /* LStmt* to put after the next wait for loads (TC_WAIT_LD) of this list */
	bool skipped;       /* an error made code be skipped (an if, a loop, an alloc): allocations may be missing */
	int wait_at;        /* where a wait that a copy owes goes in out; -1: at its end */
	List *split_list;   /* the list holding the outermost open if or loop that may split a warp, and its */
	int split_at;       /* place there: a wait a copy owes inside it goes before it; NULL: none is open */
	int64_t shared_bytes; /* static shared memory declared so far */
	uint32_t arrive_ids;  /* the named barrier ids some bar_arrive of the kernel may use (arrive_ids) */
	bool pair_reported; /* a cta_group::2 without a CTA pair: said once per kernel */
	Kernel *dev;        /* the device function whose body is being lowered (alone or inlined at a call) */
	List mbar_tensors;  /* the shared mbarrier tensors declared so far (Tensor*) */
	struct MbarLoop *mbar_loop; /* the innermost run-time loop being lowered, for the arrivals per trip */
	bool mbar_unpublished; /* an mbarrier.init that no cta_sync or cluster_sync has published yet */
	List shared_writes; /* SharedWrite*: threads' stores to shared tensors since the last barrier, for cp */
	List tma_stores;    /* Tensor*: the shared tiles of TMA stores that no wait_group.read has completed yet */
	int pair_group;     /* the kernel's cta_group (pair_kernel_group): 2 issues mma and cp for the CTA pair */
	bool pair_issued;   /* a pair mma or cp was issued before: its commits are the even CTA's */
	List pair_writes;   /* SharedWrite*: stores and TMA loads into shared tensors since the last cluster_sync */
	/* the conditions of the ifs around the statement (negated: in the else), innermost last, for the lanes
	   that reach a single-thread statement (elected_lane); past MAX_CONDS the lanes are unknown */
	const IExpr *conds[MAX_CONDS];
	bool cond_negated[MAX_CONDS];
	int nconds;
} Walk;

/* Threads' stores to a shared tensor (an assignment or a copy) that no cta_sync or mbarrier wait has
   ordered yet: a tcgen05.cp of the tensor by another warp would read it unordered (LANGUAGE 11.5). */
typedef struct SharedWrite {
	const Tensor *t;
	uint64_t warps;
	Loc loc;
	bool thread_store; /* false: a TMA load (pair_writes) */
} SharedWrite;

/* The tile of a stack of shared tiles that elements [lo, hi] of t (physical element indices) lie in: 0 for
   an unstacked tensor, -1 where they span two or are not known (lo < 0). */
static int
tile_stage(const Tensor *t, int64_t lo, int64_t hi)
{
	if (!t->tile || t->rank < 3)
		return 0;
	int64_t per = (int64_t)t->tile->rows * t->tile->cols;
	return lo >= 0 && lo / per == hi / per ? (int)(lo / per) : -1;
}

/* The stack tile an element store reaches: its first coordinate where that is the same in every thread and
   known (a constant, such as an unrolled loop's), else -1. */
static int
store_stage(Walk *walk, const Tensor *t, IExpr *const *coords)
{
	int64_t first, other;
	if (!t->tile || t->rank < 3)
		return 0;
	if (!coords || !ie_eval_thread(coords[0], walk->k->block, 0, &first) || first < 0 || first >= t->dims[0])
		return -1;
	int threads = walk->k->block[0] * walk->k->block[1] * walk->k->block[2];
	return ie_eval_thread(coords[0], walk->k->block, threads - 1, &other) && other == first ? (int)first : -1;
}

/* The stack tile a view's elements lie in (tile_stage). */
static int
view_stage(const View *v)
{
	int64_t lo = INT64_MAX, hi = -1;
	for (int i = 0; i < v->count; i++) {
		lo = v->map[i] < lo ? v->map[i] : lo;
		hi = v->map[i] > hi ? v->map[i] : hi;
	}
	return tile_stage(v->base, v->count ? lo : -1, hi);
}

static void
note_shared_write(Walk *walk, const Tensor *t, int stage, Loc loc)
{
	protocol_shared_store(walk->proto, t, stage, loc);
	SharedWrite *w = pool_alloc(sizeof *w);
	*w = (SharedWrite){t, protocol_warps(walk->proto), loc, true};
	list_push(&walk->shared_writes, w);
	list_push(&walk->pair_writes, w);
}

static LStmt *emit(Walk *walk, LKind kind, Loc loc);

/* A pair mma or cp (`op`) reads src in both CTAs of the pair: the odd CTA's stores and TMA loads into it
   reach the even CTA's instruction only through a cluster_sync after them (LANGUAGE 11.6); an error naming
   the write otherwise. */
static bool
pair_published(Walk *walk, const Tensor *src, const char *op, Loc loc)
{
	for (int i = 0; i < walk->pair_writes.n; i++) {
		SharedWrite *sw = LIST_AT(walk->pair_writes, SharedWrite, i);
		if (sw->t != src)
			continue;
		error(loc, "%s reads '%s' in both CTAs of the pair, which is written at line %d with no cluster_sync between; "
		           "the even CTA issues it and sees the other CTA's writes only after a cluster_sync", op, src->name,
		      sw->loc.first_line);
		note(sw->loc, "written here; put cluster_sync; after the writes (and after the wait of a TMA load) and "
		              "before it");
		return false;
	}
	return true;
}

/* Where a pair instruction goes: inside `if (the even CTA)`, whose body becomes walk->out; returns the
   list to restore. */
static List *
pair_even_open(Walk *walk, Loc loc)
{
	List *out = walk->out;
	LStmt *branch = emit(walk, L_IF, loc);
	branch->cond = pair_even_cta();
	walk->out = &branch->body;
	return out;
}

#define COPY_BUDGET (1 << 21)

/* The arrivals of one trip of a run-time loop on one mbarrier tensor, at an element that changes with
   the trip (the ring pattern full[k % S]): counted is false when one of them could not be counted. */
typedef struct MbarTrip {
	Tensor *t;
	int64_t arrivals;
	bool counted;
	Loc first; /* its first arrive in the loop */
} MbarTrip;

typedef struct MbarLoop {
	Loc loc;
	List trips; /* MbarTrip* */
	struct MbarLoop *outer;
} MbarLoop;

static void mbar_loop_end(Walk *walk, MbarLoop *loop);
static void tma_wait_read(Walk *walk, Loc loc, bool end);

/* The counters of the run-time loops being lowered whose first value is >= 0: they stay >= 0 in the body
   (a TMA store's start must be provably >= 0). */
static List nonneg_counters;

static bool
counter_nonneg(const Var *v)
{
	for (int i = 0; i < nonneg_counters.n; i++)
		if (LIST_AT(nonneg_counters, Var, i) == v)
			return true;
	return false;
}

static bool copy_is_tma_store(const Stmt *s);

static bool
within_copy_budget(Walk *walk, Stmt *s, int count)
{
	bool reported = walk->file->moved > COPY_BUDGET; /* once per file; the later copies are skipped quietly */
	walk->file->moved += count;
	if (walk->file->moved <= COPY_BUDGET)
		return true;
	if (!reported)
		error(s->loc, "this copy makes the file move more than %d elements between registers and memory in all "
		              "(unrolled loops and calls of device functions repeat a copy)", COPY_BUDGET);
	return false;
}

static void
list_insert(List *l, int at, void *item)
{
	list_push(l, NULL);
	memmove(&l->v[at + 1], &l->v[at], sizeof(void *) * (size_t)(l->n - 1 - at));
	l->v[at] = item;
}

/* A wait a copy owes (protocol_take_wait), before the statement being lowered (or before the
   instructions of the apply or copy whose protocol is being checked), or before the if or loop that
   splits a warp. The copies out of a load's staging registers follow its wait for loads. */
static void
place_wait(Walk *walk, TcKind kind, Loc loc, bool before_split)
{
	LStmt *l = pool_alloc(sizeof *l);
	l->kind = L_TC;
	l->loc = loc;
	l->instr = isa_instr(kind);
	List *into = before_split && walk->split_list ? walk->split_list : walk->out;
	int at = into != walk->out ? walk->split_at : walk->wait_at >= 0 ? walk->wait_at : walk->out->n;
	list_insert(into, at++, l);
	if (kind == TC_WAIT_LD) {
		for (int k = 0; k < walk->after_wait.n; k++)
			list_insert(into, at++, walk->after_wait.v[k]);
		walk->after_wait.n = 0;
	}
	if (into != walk->out)
		walk->split_at = at;
	else if (walk->wait_at >= 0)
		walk->wait_at = at;
}

/* Writes the waits that the protocol call just made placed, in order. */
static void
place_waits(Walk *walk)
{
	ProtoWait pw;
	while (protocol_take_wait(walk->proto, &pw))
		place_wait(walk, pw.kind, pw.loc, pw.before_split);
}

/* Entering the body of the if or loop just emitted: where the waits go if it splits a warp. */
static void
split_enter(Walk *walk, List **saved_list, int *saved_at)
{
	*saved_list = walk->split_list;
	*saved_at = walk->split_at;
	if (!walk->split_list && protocol_varying(walk->proto)) {
		walk->split_list = walk->out;
		walk->split_at = walk->out->n - 1;
	}
}

static void
split_leave(Walk *walk, List *saved_list, int saved_at)
{
	walk->split_list = saved_list;
	walk->split_at = saved_at;
}

static const char *const reserved_names[] = {
	"auto", "bool", "break", "case", "char", "class", "const", "continue", "default", "delete", "do",
	"double", "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline", "int", "long",
	"namespace", "new", "operator", "private", "protected", "public", "register", "restrict", "return",
	"short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "true", "typedef",
	"typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "asm", "threadIdx",
	"blockIdx", "blockDim", "gridDim", "warpSize", "main", "dim3", "uint", "half", "nullptr", "and", "or",
	"not", "xor", "bitand", "bitor", "compl", "catch", "try", "throw", "friend", "mutable", "export",
};

/* The CUDA vector types and their make_ functions (uint4, make_uint4, float2, ...), which the generated
   code uses for vector accesses, and the <stdint.h> types of the headers' signatures. */
static bool
cuda_type_name(const char *name)
{
	static const char *const bases[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
	                                    "longlong", "ulonglong", "float", "double", "half", "bfloat"};
	if (strncmp(name, "make_", 5) == 0)
		name += 5;
	for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
		size_t n = strlen(bases[i]);
		if (strncmp(name, bases[i], n) == 0 && name[n] >= '1' && name[n] <= '4' && !name[n + 1])
			return true;
	}
	static const char *const ints[] = {"int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
	                                   "int64_t", "uint64_t", "size_t", "intptr_t", "uintptr_t", "ptrdiff_t"};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		if (strcmp(name, ints[i]) == 0)
			return true;
	return false;
}

/* Whether the generated code may not use name in k. A kernel's walk reserves the device functions
   declared before it began, looked up in one map (a copy of them all in every device function's
   names was quadratic in the number of functions). */
static bool
name_taken(FileWalk *file, KernelIR *k, const char *name)
{
	if (strncmp(name, "tl_", 3) == 0 || strncmp(name, "__", 2) == 0 || cuda_type_name(name))
		return true;
	for (size_t i = 0; i < sizeof reserved_names / sizeof reserved_names[0]; i++)
		if (strcmp(reserved_names[i], name) == 0)
			return true;
	if (k == file->names_kernel) {
		MapSlot *d = map_slot(&file->device_name_order, name, false);
		if (d && (intptr_t)d->value <= file->names_devices)
			return true;
	}
	return map_slot(&k->names, name, false) != NULL;
}

/* A name for the generated code: the source name where it is free, else the name with a suffix. */
static const char *
cname_for(Walk *walk, const char *want)
{
	/* names the generated code keeps for itself get a prefix of their own */
	if (strncmp(want, "tl_", 3) == 0 || strncmp(want, "__", 2) == 0)
		want = pool_printf("u%s", want);
	const char *name = want;
	for (int n = 1; name_taken(walk->file, walk->k, name); n++)
		name = pool_printf("%s_%d", want, n);
	map_slot(&walk->k->names, name, true);
	return name;
}

static int mbar_threads(Walk *walk);
static int mbar_counted_threads(Walk *walk);

static LStmt *
emit(Walk *walk, LKind kind, Loc loc)
{
	protocol_waits_taken(walk->proto);
	LStmt *s = pool_alloc(sizeof *s);
	s->kind = kind;
	s->loc = loc;
	list_push(walk->out, s);
	if (walk->mbar_tensors.n) /* the pipeline checks of a kernel with mbarriers see every statement */
		mbarcheck_stmt(protocol_mbarcheck(walk->proto), s, protocol_warps(walk->proto), mbar_counted_threads(walk));
	return s;
}


/* An integer stride expression with its +, - and * in 64 bits (LANGUAGE.md 10.1: offsets may pass 2^32, and
   ld * K may pass 2^31 before any offset does); other operators keep their 32-bit meaning, widened after. */
static IExpr *
widen64(IExpr *e)
{
	if (e->kind == IE_BINARY && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL))
		return ie_binary(e->op, widen64(e->a), widen64(e->b));
	if (e->kind == IE_UNARY && e->op == OP_NEG)
		return ie_binary(OP_SUB, ie_int(0, T_I64), widen64(e->a));
	return ie_convert(e, T_I64);
}

/* A dimension or stride of a global tensor parameter: a constant or an integer expression over scalar
   parameters (declared anywhere in the list). */
static IExpr *
param_size(Expr *e, const Tensor *t, const char *what)
{
	IExpr *v = sema_expr(e);
	if (!v)
		return NULL;
	if (v->type == T_F32 || !ie_params_only(v)) {
		error(e->loc, "a %s of '%s' is a constant or an integer expression over scalar parameters", what, t->name);
		return NULL;
	}
	int64_t c;
	if (ie_is_const(v, &c) && (strcmp(what, "dimension") == 0 ? c <= 0 : c < 0)) {
		error(e->loc, "%s must be %s, got %lld", what, strcmp(what, "dimension") == 0 ? "positive" : "0 or more",
		      (long long)c);
		return NULL;
	}
	return v;
}

/* The first name in e of a tensor among params (NULL: none). */
static const Param *
tensor_param_in(const Expr *e, const List *params)
{
	if (!e)
		return NULL;
	if (e->name)
		for (int i = 0; i < params->n; i++) {
			const Param *p = LIST_AT(*params, Param, i);
			if ((p->has_shape || p->kind != PK_VALUE) && strcmp(p->name, e->name) == 0)
				return p;
		}
	const Param *p = NULL;
	const Expr *sub[] = {e->a, e->b, e->c};
	for (int i = 0; i < 3 && !p; i++)
		p = tensor_param_in(sub[i], params);
	for (int i = 0; i < e->args.n && !p; i++)
		p = tensor_param_in(LIST_AT(e->args, Expr, i), params);
	return p;
}

/* A dimension or stride of parameter p that names a tensor parameter: an error of its own, as the
   tensor may be declared after p (where sema would say unknown name). */
static bool
shape_names_tensor(const Param *p, const List *params)
{
	const List *lists[] = {&p->dims, &p->strides};
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < lists[l]->n; i++) {
			const Expr *e = LIST_AT(*lists[l], Expr, i);
			const Param *t = tensor_param_in(e, params);
			if (!t)
				continue;
			if (p->kind == PK_VALUE)
				error(e->loc, "%s %d of '%s' names tensor parameter '%s': a global tensor's dimensions and strides "
				              "are constants or integer expressions over scalar parameters (such as n: i32)",
				      l ? "stride" : "dimension", i, p->name, t->name);
			else
				error(e->loc, "dimension %d of '%s' names tensor parameter '%s': the dimensions of a %s parameter are "
				              "compile-time constants", i, p->name, t->name,
				      p->kind == PK_SHARED ? "shared" : p->kind == PK_TMEM ? "tmem" : "local");
			note(t->loc, "'%s' is defined here", t->name);
			return true;
		}
	return false;
}

/* A global tensor's `align N` (LANGUAGE 11.10), checked against its shape and kept on t: N is 4, 8 or
   16 bytes (each at least an element: no element type is wider than 4 bytes); the promise is about
   where rows start, so the innermost stride is 1; an outer stride known at compile time must already
   keep it. */
static bool
align_promise(const Param *p, Tensor *t)
{
	if (!p->align)
		return true;
	uint32_t n = p->align->ival;
	if (n != 4 && n != 8 && n != 16) {
		error(p->align->loc, "align %u: the promise is 4, 8 or 16 bytes (the widths of a thread's vector accesses)", n);
		return false;
	}
	int64_t c;
	if (t->wide && p->strides.n && !(ie_is_const(t->rstrides[t->rank - 1], &c) && c == 1)) {
		error(t->stride_src[t->rank - 1]->loc, "'%s' promises align %u for the start of each row, which needs its "
		      "innermost stride to be 1", t->name, n);
		return false;
	}
	int64_t size = etype_bits(t->type) / 8, stride = 1;
	for (int d = t->rank - 2; d >= 0; d--) {
		stride *= t->dims[d + 1]; /* row-major, where the shape is constant */
		if (!t->wide)
			c = stride;
		else if (!ie_is_const(t->rstrides[d], &c))
			continue; /* known at the launch, which checks it */
		if ((c * size) % n) {
			error(p->align->loc, "'%s' cannot keep align %u: stride %d is %lld elements, %lld bytes, which is "
			      "no multiple of %u", t->name, n, d, (long long)c, (long long)(c * size), n);
			return false;
		}
	}
	t->align = (int)n;
	return true;
}

/* The shape of a global tensor parameter (dims, strides, whether offsets need 64 bits). */
static bool
global_shape(Param *p, Tensor *t)
{
	if (p->dims.n > MAX_RANK) {
		error(p->loc, "at most %d dimensions", MAX_RANK);
		return false;
	}
	if (p->strides.n && p->strides.n != p->dims.n) {
		error(LIST_AT(p->strides, Expr, 0)->loc, "'%s' has %d dimension%s but %d stride%s", t->name, p->dims.n,
		      p->dims.n == 1 ? "" : "s", p->strides.n, p->strides.n == 1 ? "" : "s");
		return false;
	}
	t->rank = p->dims.n;
	bool constant = true;
	double count = 1;
	for (int i = 0; i < t->rank; i++) {
		t->dim_src[i] = LIST_AT(p->dims, Expr, i);
		t->rdims[i] = param_size(t->dim_src[i], t, "dimension");
		if (!t->rdims[i])
			return false;
		int64_t c;
		if (ie_is_const(t->rdims[i], &c)) {
			t->dims[i] = c > INT32_MAX ? INT32_MAX : (int)c;
			count *= (double)c;
		} else {
			constant = false;
		}
	}
	t->wide = !constant || p->strides.n || count >= 2147483648.0;
	if (!t->wide) {
		t->count = (int)count;
		return align_promise(p, t);
	}
	/* row-major strides, each the product of the later dimensions, in 64 bits */
	IExpr *stride = ie_int(1, T_I64);
	for (int i = t->rank - 1; i >= 0; i--) {
		if (p->strides.n) {
			t->stride_src[i] = LIST_AT(p->strides, Expr, i);
			IExpr *s = param_size(t->stride_src[i], t, "stride");
			if (!s)
				return false;
			t->rstrides[i] = widen64(s);
		} else {
			t->rstrides[i] = stride;
			stride = ie_binary(OP_MUL, stride, ie_convert(t->rdims[i], T_I64));
		}
	}
	return align_promise(p, t);
}

static Tensor *
tensor_new(TensorKind kind, const char *name, Loc loc, EType type)
{
	Tensor *t = pool_alloc(sizeof *t);
	t->kind = kind;
	t->name = name;
	t->loc = loc;
	t->type = type;
	return t;
}

/* A scalar parameter: its variable, declared; NULL after an error. */
static Var *
param_var(Walk *walk, Param *p)
{
	Sym *s = sym_declare(SYM_VAR, p->name, p->loc);
	if (!s)
		return NULL;
	Var *v = pool_alloc(sizeof *v);
	v->name = p->name;
	v->cname = cname_for(walk, p->name);
	v->type = p->type;
	v->is_param = true;
	s->var = v;
	return v;
}

/* A tensor parameter (position i), declared; false after an error. */
static bool
param_tensor(Walk *walk, Param *p, Tensor *t, int i)
{
	Sym *s = sym_declare(SYM_TENSOR, p->name, p->loc);
	if (!s)
		return false;
	s->tensor = t;
	t->cname = cname_for(walk, p->name);
	t->index = i;
	return true;
}

/* A global tensor parameter's `tma` mark (LANGUAGE 11.4) on t; false after an error (a rank no map has). */
static bool
tma_param(const Param *p, Tensor *t)
{
	if (p->tma && t->rank > TMA_MAX_RANK) {
		error(p->loc, "'%s' has %d dimensions; a tma tensor has 1 to %d (a tensor map's rank)", p->name, t->rank,
		      TMA_MAX_RANK);
		return false;
	}
	t->tma = p->tma;
	return true;
}

/* A read of a u32 variable of the generated code (a TMEM address), with a variable of its own. */
static IExpr *
u32_ref(const char *name, const char *cname, bool is_param)
{
	Var *var = pool_alloc(sizeof *var);
	var->name = name;
	var->cname = cname;
	var->type = T_U32;
	var->is_let = !is_param;
	var->is_param = is_param;
	return ie_var(var, T_U32);
}

/* --------------------------------------------------------------- tcgen05 single instructions */

static bool
check_ncols(Expr *e, int *out)
{
	int64_t n;
	if (!const_int(e, &n, "the column count"))
		return false;
	if (n < 32 || n > TMEM_COLS || (n & (n - 1))) {
		error(e->loc, "tcgen05 allocations take a power of two from 32 to %d columns, not %lld", TMEM_COLS, (long long)n);
		return false;
	}
	*out = (int)n;
	return true;
}

/* An opcode without the qualifiers people leave out (.sync.aligned, .shared::cta, .b32, .cta_group::N). */
static char *
opcode_core(const char *text)
{
	static const char *const optional[] = {".sync.aligned", ".shared::cta", ".b32", ".cta_group::1", ".cta_group::2"};
	char *core = pool_strdup(text);
	for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++) {
		char *at;
		size_t n = strlen(optional[i]);
		while ((at = strstr(core, optional[i])) != NULL)
			memmove(at, at + n, strlen(at + n) + 1);
	}
	return core;
}

/* The exact spelling nearest to a misspelt single instruction, or NULL. */
static const char *
nearest_instr(const char *text)
{
	const char *core = opcode_core(text);
	int limit = (int)strlen(core) / 3, best_d = limit + 1, best_full = 0;
	const char *best = NULL;
	for (int i = 0; i < isa_count(); i++) {
		const IsaInstr *in = isa_at(i);
		bool takes = isa_takes_cta_group(in);
		for (int group = 1; in->use == ISA_STATEMENT && group <= (takes ? 2 : 1); group++) {
			const char *cand = isa_spelling(in->kind, takes ? group : 0);
			int d = edit_distance(core, opcode_core(cand), limit);
			int full = edit_distance(text, cand, 1000);
			if (d < best_d || (d == best_d && best && full < best_full)) {
				best = cand;
				best_d = d;
				best_full = full;
			}
		}
	}
	return best;
}

static void
lower_instr(Walk *walk, Stmt *s)
{
	int group = 0;
	const IsaInstr *spec = stmt_instr(s, &group);
	if (!spec) {
		const char *near = NULL;
		const IsaInstr *family = isa_family(s->opcode);
		if (family && family->kind == TC_CP) {
			error(s->opcode_loc, "%s is written with apply, which checks it against its image: apply %s(tmem_view, "
			                     "shared_view);", isa_name(family->kind, 0), s->opcode);
		} else if (family && family->use == ISA_APPLY) {
			error(s->opcode_loc, "%s is written with apply, which checks it against its image: "
			                     "apply %s(...) scope warpgroup;", isa_name(family->kind, 0), s->opcode);
		} else {
			error(s->opcode_loc, "unknown tcgen05 instruction '%s'; tilec knows %s (with their exact PTX spelling), "
			                     "and ld / st through apply", s->opcode, isa_known());
			near = nearest_instr(s->opcode);
		}
		/* the statement goes on as the instruction it nearly spells, so that its effect is not lost */
		if (!near) {
			walk->skipped = true;
			return;
		}
		note(s->opcode_loc, "did you mean '%s'?", near);
		spec = isa_parse(near, &group);
	}
	const char *opcode = s->opcode ? s->opcode : isa_spelling(spec->kind, group);
	if (walk->dev && (spec->effect & (EFF_ALLOCATES | EFF_FREES | EFF_RELINQUISHES))) {
		error(s->opcode_loc, "%s in device function '%s': the caller owns tensor memory and passes it as a tmem "
		                     "parameter; allocation, dealloc and relinquish stay in the kernel", isa_name(spec->kind, group),
		      walk->dev->name);
		walk->skipped = true;
		return;
	}
	if (s->operands.n != spec->noperands) {
		error(s->loc, "%s takes %d operand%s, not %d", opcode, spec->noperands, spec->noperands == 1 ? "" : "s",
		      s->operands.n);
		walk->skipped = true;
		return;
	}
	bool uniform;
	int errors = error_count;
	if (!protocol_instr_enter(walk->proto, spec, group, opcode, s->loc, s->opcode_loc, &uniform))
		return;
	/* a cta_group mixed with the kernel's other one is that error alone */
	if (group == 2 && error_count == errors && walk->k && walk->k->cluster[0] % 2 && !walk->pair_reported) {
		walk->pair_reported = true;
		/* TCGEN05.md 9: the pair is the CTAs of ranks 2i and 2i + 1 along the cluster's x */
		error(s->opcode_loc, "cta_group::2 works on a pair of CTAs of a cluster; kernel '%s' needs a cluster whose x "
		                     "extent is even, e.g. cluster = (2, 1, 1) in its launch(...)", walk->k->name);
		if (walk->k->has_cluster)
			note(walk->k->cluster_loc, "the cluster's x extent is %d here", walk->k->cluster[0]);
	}
	TcOperands ops = {.ncols_ok = true};
	LStmt *l = pool_alloc(sizeof *l);
	l->kind = L_TC;
	l->loc = s->loc;
	l->instr = spec;
	l->cta_group = group;
	int ncols = 0;
	if (spec->kind == TC_ALLOC) {
		Expr *slot = LIST_AT(s->operands, Expr, 0);
		IExpr *addr = sema_address(slot);
		if (!addr || addr->kind != IE_SADDR || addr->tensor->type != T_U32) {
			if (addr)
				error(slot->loc, "%s writes the TMEM address to a shared u32 slot: pass &slot[i]",
				      isa_name(TC_ALLOC, 0));
			walk->skipped = true;
			return;
		}
		ops.ncols_ok = check_ncols(LIST_AT(s->operands, Expr, 1), &ncols);
		if (!ops.ncols_ok)
			ncols = 0; /* unknown: later checks of the column count stay quiet */
		ops.addr = addr;
		tc_add_operand(l, IO_SHARED_SLOT)->addr = addr;
		tc_add_operand(l, IO_NCOLS)->imm = (uint32_t)ncols;
	} else if (spec->kind == TC_DEALLOC) {
		Expr *ae = LIST_AT(s->operands, Expr, 0);
		IExpr *addr = sema_expr(ae);
		if (!addr)
			return;
		if (addr->type == T_F32) {
			error(ae->loc, "%s takes a TMEM address (u32), not a float", isa_name(TC_DEALLOC, 0));
			return;
		}
		ops.ncols_ok = check_ncols(LIST_AT(s->operands, Expr, 1), &ncols);
		if (!ops.ncols_ok)
			ncols = 0;
		ops.addr = addr;
		ops.addr_loc = ae->loc;
		ops.ncols_loc = LIST_AT(s->operands, Expr, 1)->loc;
		ops.allocs_known = !walk->skipped;
		tc_add_operand(l, IO_TMEM_ADDR)->addr = ie_convert(addr, T_U32);
		tc_add_operand(l, IO_NCOLS)->imm = (uint32_t)ncols;
	}
	bool checked = protocol_instr(walk->proto, spec, l, uniform, &ops);
	place_waits(walk);
	if (checked)
		list_push(walk->out, l);
}

/* --------------------------------------------------------------- statements */

static void lower_stmts(Walk *walk, List *stmts);
static bool wait_ld_follows(List *stmts, int i);
static void lower_call(Walk *walk, Stmt *s);
static IExpr *subst(IExpr *e, Var **from, IExpr **to, int n);
static uint64_t unit_fixed_warps(Walk *walk);

/* memory_views, in needs_unroll: whether a view of global or shared memory counts. It does for a loop of
   constant bounds (unrolled, its indices are constants, which any view takes); a loop of run-time bounds
   indexes such a view at run time where its elements are an affine function of its indices (sema.c,
   view_element). */

/* Whether e names the variable of an unrolled loop, directly or through a constant let. */
static bool
names_iteration(const Expr *e)
{
	if (!e)
		return false;
	if (e->kind == E_NAME) {
		const Sym *s = sym_lookup(e->name);
		if (s && s->per_iteration)
			return true;
	}
	if (names_iteration(e->a) || names_iteration(e->b) || names_iteration(e->c))
		return true;
	for (int i = 0; i < e->args.n; i++)
		if (names_iteration(LIST_AT(e->args, Expr, i)))
			return true;
	return false;
}

/* A loop must be unrolled when its body touches registers, views or tensor memory. */
static bool
needs_unroll_expr(Expr *e, bool memory_views)
{
	if (!e)
		return false;
	if (e->kind == E_INDEX || e->kind == E_NAME) {
		Sym *s = sym_lookup(e->name);
		if (s && s->kind == SYM_VIEW &&
		    (memory_views || s->view->base->kind == TK_LOCAL || s->view->base->kind == TK_TMEM))
			return true;
		if (s && s->kind == SYM_TENSOR && s->tensor->kind == TK_LOCAL)
			return true;
	}
	if (needs_unroll_expr(e->a, memory_views) || needs_unroll_expr(e->b, memory_views))
		return true;
	for (int i = 0; i < e->args.n; i++)
		if (needs_unroll_expr(LIST_AT(e->args, Expr, i), memory_views))
			return true;
	return false;
}

static bool
needs_unroll(List *stmts, bool memory_views)
{
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		switch (s->kind) {
		case S_COPY:
			if (s->tma_bar || copy_is_tma_store(s)) /* TMA moves no registers; its run-time slice starts stay */
				break;
			return true;
		case S_APPLY:
		case S_REDUCE:
		case S_VIEW:
		case S_LOCAL:
		case S_TMEM:
			return true;
		case S_ASSIGN:
			if (needs_unroll_expr(s->target, memory_views) || needs_unroll_expr(s->value, memory_views))
				return true;
			break;
		case S_LET:
		case S_VAR:
			if (needs_unroll_expr(s->value, memory_views))
				return true;
			break;
		case S_IF:
			if (needs_unroll_expr(s->value, memory_views) || needs_unroll(&s->body, memory_views) ||
			    needs_unroll(&s->else_body, memory_views))
				return true;
			break;
		case S_FOR:
		case S_BLOCK:
			if (needs_unroll(&s->body, memory_views))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* Lowers a nested statement list into into, in a scope of its own. */
static void
lower_nested(Walk *walk, List *into, List *stmts)
{
	List *saved_out = walk->out;
	walk->out = into;
	scope_push();
	lower_stmts(walk, stmts);
	scope_pop();
	walk->out = saved_out;
}

/* A copy's staged load (apply.c's staging array) waits where its registers are first needed, and its
   copies out of the array follow that wait. Every path must run them exactly once, so the wait does not
   move into a branch or a loop body that may not run (or run again): such a statement gets it before
   it, and one that staged a load inside gets it at its end. Unrolled loops and blocks run once. */
static void
complete_staged(Walk *walk, Loc loc)
{
	if (walk->after_wait.n)
		protocol_complete_copies(walk->proto, EFF_COMPLETES_LOADS, loc);
	place_waits(walk);
}

/* Whether a wait may be placed inside these statements: they touch registers, views or tensor memory, or
   hold a barrier or a tcgen05 instruction. Other work (arithmetic, global and shared memory) runs while a
   staged load is in flight. */
static bool
may_place_wait(List *stmts)
{
	return needs_unroll(stmts, true) || fence_count_syncs_and_instrs(stmts) > 0;
}

static void
lower_branch(Walk *walk, List *into, List *stmts, Loc loc)
{
	List *saved_out = walk->out;
	int staged = walk->after_wait.n; /* from before the branch: they wait after it */
	walk->out = into;
	scope_push();
	lower_stmts(walk, stmts);
	if (walk->after_wait.n > staged) /* column 0: at the end of the body (copy_explain_waits) */
		complete_staged(walk, (Loc){loc.last_line, 0, loc.last_line, 0, loc.file});
	scope_pop();
	walk->out = saved_out;
}

/* x op= e is x = x op e: the target is read once, as part of the value, and written once. */
static Expr *
compound_value(Stmt *s)
{
	if (s->assign_op == OP_NONE)
		return s->value;
	Expr *e = pool_alloc(sizeof *e);
	e->kind = E_BINARY;
	e->loc = s->loc;
	e->op = s->assign_op;
	e->name = "="; /* names the operator '%=' rather than '%' in sema.c's messages */
	e->a = s->target;
	e->b = s->value;
	return e;
}

static void
lower_assign(Walk *walk, Stmt *s)
{
	IExpr *value = sema_expr(compound_value(s));
	if (!value)
		return;
	protocol_read(walk->proto, value, s->value->loc);
	place_waits(walk);
	Expr *t = s->target;
	if (t->kind == E_NAME) {
		Sym *sym = sym_use(t->name, t->loc);
		if (!sym)
			return;
		/* a scalar parameter is read-only: the dimensions, strides and grid written with it mean the value passed */
		if (sym->kind != SYM_VAR || sym->var->is_param) {
			error(t->loc, "cannot assign to '%s': only 'var' scalars and elements can be assigned", t->name);
			note(sym->loc, "'%s' is defined here", t->name);
			return;
		}
		Var *v = sym->var;
		if (ie_varying(value) || protocol_varying(walk->proto))
			v->varying = true;
		if (ie_per_thread(value) || protocol_split(walk->proto))
			v->per_thread = true;
		LStmt *l = emit(walk, L_ASSIGN, s->loc);
		l->var = v;
		l->value = ie_convert(value, v->type);
		return;
	}
	Tensor *tensor;
	IExpr *index;
	int slot;
	IExpr *target = sema_element(t, &tensor, &index, &slot);
	if (!target)
		return;
	if (tensor->kind == TK_LOCAL) {
		protocol_reg_write(walk->proto, tensor, slot, t->loc);
		place_waits(walk);
		LStmt *l = emit(walk, L_REG_STORE, s->loc);
		l->tensor = tensor;
		l->slot = slot;
		l->value = ie_convert(value, tensor->type);
	} else {
		protocol_read(walk->proto, index, t->loc); /* Out[i32(r[0]), j] = ... reads r[0] too */
		place_waits(walk);
		if (tensor->kind == TK_SHARED)
			note_shared_write(walk, tensor, store_stage(walk, tensor, target->coords), s->loc);
		LStmt *l = emit(walk, L_STORE, s->loc);
		l->tensor = tensor;
		l->index = index;
		l->coords = target->coords;
		l->view_at = target->view_at;
		l->value = ie_convert(value, tensor->type);
	}
}

static void
lower_for(Walk *walk, Stmt *s)
{
	IExpr *lo = sema_expr(s->value);
	IExpr *hi = lo ? sema_expr(s->hi) : NULL;
	if (!hi || lo->type == T_F32 || hi->type == T_F32) {
		if (hi)
			error(s->loc, "loop bounds must be integers");
		walk->skipped = true;
		return;
	}
	protocol_read(walk->proto, lo, s->value->loc);
	place_waits(walk);
	protocol_read(walk->proto, hi, s->hi->loc);
	place_waits(walk);
	int64_t a, b;
	bool constant = ie_is_const(lo, &a) && ie_is_const(hi, &b);
	bool unroll = needs_unroll(&s->body, constant);
	if (unroll) {
		if (!constant) {
			error(s->loc, "this loop touches registers or views, so tilec unrolls it; its bounds must be "
			              "compile-time constants");
			return;
		}
		if (b - a > 4096) {
			error(s->loc, "loop of %lld iterations is too long to unroll (at most 4096)", (long long)(b - a));
			return;
		}
		/* nested unrolled loops multiply, and so do kernels: the file as a whole gets a budget */
		bool reported = walk->file->unrolled > 65536; /* once per file; the later loops are skipped quietly */
		walk->file->unrolled += b > a ? b - a : 0;
		if (walk->file->unrolled > 65536) {
			if (!reported)
				error(s->loc, "unrolling this loop makes the file longer than 65536 unrolled iterations in all");
			return;
		}
		int errors_before = error_count;
		for (int64_t i = a; i < b && error_count == errors_before; i++) {
			LStmt *block = emit(walk, L_BLOCK, s->loc);
			List *saved = walk->out;
			walk->out = &block->body;
			scope_push();
			Sym *sym = sym_declare(SYM_VALUE, s->name, s->name_loc);
			if (sym) {
				sym->value = ie_int(i, T_I32);
				sym->per_iteration = true;
			}
			lower_nested(walk, &block->body, &s->body);
			scope_pop();
			walk->out = saved;
			if (block->body.n == 0)
				walk->out->n--;
			/* an error that the first iterations did not give depends on the loop variable's value */
			if (error_count > errors_before && i == a + 1)
				note(s->name_loc, "in the iteration %s = %lld of this unrolled loop; the iteration %lld gave no error",
				     s->name, (long long)i, (long long)a);
			else if (error_count > errors_before && i > a)
				note(s->name_loc, "in the iteration %s = %lld of this unrolled loop; the iterations from %lld to %lld "
				     "gave no error", s->name, (long long)i, (long long)a, (long long)(i - 1));
		}
		return;
	}
	if (may_place_wait(&s->body))
		complete_staged(walk, s->loc);
	LStmt *l = emit(walk, L_FOR, s->loc);
	Var *v = pool_alloc(sizeof *v);
	v->name = s->name;
	v->cname = cname_for(walk, s->name);
	v->type = T_I32;
	v->is_let = true;
	v->varying = ie_varying(lo) || ie_varying(hi) || protocol_varying(walk->proto);
	v->per_thread = ie_per_thread(lo) || ie_per_thread(hi) || protocol_split(walk->proto);
	l->var = v;
	l->lo = ie_convert(lo, T_I32);
	l->hi = ie_convert(hi, T_I32);
	scope_push();
	Sym *sym = sym_declare(SYM_VALUE, s->name, s->name_loc);
	if (sym) {
		sym->value = ie_var(v, T_I32);
	}
	/* the body may run zero times; applies and register reads never sit in such a loop */
	int64_t first, last;
	bool constant_bounds = ie_is_const(l->lo, &first) && ie_is_const(l->hi, &last);
	bool repeats = !constant_bounds || last - first > 1;
	ProtoFork *f = protocol_loop(walk->proto, v->varying, l->lo, l->hi, loc_span(s->value->loc, s->hi->loc), repeats,
	                             constant_bounds && last > first);
	List *split_list;
	int split_at;
	split_enter(walk, &split_list, &split_at);
	MbarLoop loop = {s->loc, {0}, walk->mbar_loop};
	walk->mbar_loop = &loop;
	int stores = walk->tma_stores.n;
	if (ie_nonneg(l->lo))
		list_push(&nonneg_counters, v);
	int async_mark, store_mark;
	protocol_loop_marks(walk->proto, &async_mark, &store_mark);
	mbarcheck_loop_begin(protocol_mbarcheck(walk->proto), l, protocol_warps(walk->proto));
	lower_branch(walk, &l->body, &s->body, s->loc);
	if (nonneg_counters.n && LIST_AT(nonneg_counters, Var, nonneg_counters.n - 1) == v)
		nonneg_counters.n--;
	if (walk->tma_stores.n > stores) {
		/* the next trip may write the tile before its own store: the wait ends each trip */
		List *saved = walk->out;
		walk->out = &l->body;
		tma_wait_read(walk, s->loc, false);
		walk->out = saved;
	}
	mbarcheck_loop_end(protocol_mbarcheck(walk->proto));
	if (repeats)
		protocol_loop_next_trip(walk->proto, async_mark, store_mark, s->loc);
	mbar_loop_end(walk, &loop);
	split_leave(walk, split_list, split_at);
	protocol_join(walk->proto, f);
	scope_pop();
}

static bool lower_decl_checked(Walk *walk, Stmt *s);

/* The reads and writes of registers of a copy between registers and memory, or between two local
   tensors (copy_lower's statements: moves, and tests of which threads own a slot around them; between
   overlapping views of one tensor, variables that hold the source slots first). */
static void
copy_moves_protocol(Walk *walk, LStmt *l, Loc loc)
{
	if (l->kind == L_IF) {
		for (int i = 0; i < l->body.n; i++)
			copy_moves_protocol(walk, LIST_AT(l->body, LStmt, i), loc);
	} else if (l->kind == L_STORE || l->kind == L_ASSIGN) {
		protocol_read(walk->proto, l->value, loc);
		place_waits(walk);
	} else if (l->kind == L_REG_STORE) {
		protocol_read(walk->proto, l->value, loc);
		place_waits(walk);
		protocol_reg_write(walk->proto, l->tensor, l->slot, loc);
		place_waits(walk);
	}
}

static void
lower_decl(Walk *walk, Stmt *s)
{
	/* a declaration that failed quietly failed because of an earlier error: its name stays quiet too */
	if (!lower_decl_checked(walk, s))
		sym_poison(s->name, s->name_loc);
}

/* The per-element tracking of shared mbarrier tensor t (LANGUAGE 11.3), each element starting in state
   entry (lower.c's MBS_* bits; 0 for a declaration). */
static void
mbar_track(Walk *walk, Tensor *t, unsigned char entry)
{
	t->mbar_state = pool_alloc((size_t)t->count);
	t->mbar_count = pool_alloc(sizeof(int) * (size_t)t->count);
	t->mbar_arrivals = pool_alloc(sizeof(int64_t) * (size_t)t->count);
	t->mbar_waits = pool_alloc(sizeof(short) * 64 * (size_t)t->count);
	t->mbar_uncounted = pool_alloc((size_t)t->count);
	memset(t->mbar_state, entry, (size_t)t->count);
	list_push(&walk->mbar_tensors, t);
}

/* Declares a shared, local or tmem tensor; false when it could not. */
static bool
lower_decl_checked(Walk *walk, Stmt *s)
{
	TensorKind kind = s->kind == S_SHARED ? TK_SHARED : s->kind == S_LOCAL ? TK_LOCAL : TK_TMEM;
	if (kind == TK_TMEM && !s->value && walk->dev) {
		error(s->loc, "tmem tensor '%s' has no 'at': tilec allocates TMEM for kernels, but a device function may "
		              "not declare one (the caller owns TMEM); take it as a tmem parameter", s->name);
		return false;
	}
	/* a tmem tensor without `at` that tmemplan.c did not place: it has said why */
	if (kind == TK_TMEM && !s->value) {
		sym_poison(s->name, s->name_loc);
		return false;
	}
	if (!minifloat_storage_ok(s->type, kind, false, s->name, s->name_loc))
		return false;
	if (s->type == T_MBARRIER && kind != TK_SHARED) {
		error(s->loc, "'%s' is a %s tensor of mbarriers; an mbarrier lives in shared memory only (shared %s: %s[...];)",
		      s->name, kind == TK_LOCAL ? "local" : "tmem", s->name, etype_name(T_MBARRIER));
		return false;
	}
	Tensor *t = tensor_new(kind, s->name, s->name_loc, s->type);
	if (!const_dims(&s->dims, t, s->loc))
		return false;
	if (kind == TK_LOCAL || kind == TK_TMEM) {
		t->layout = layout_eval(s->layout, t, walk->k->threads);
		if (!t->layout)
			return false;
	}
	IExpr *addr = NULL;
	if (kind == TK_TMEM) {
		addr = sema_expr(s->value);
		if (!addr)
			return false;
		if (addr->type == T_F32) {
			error(s->value->loc, "a TMEM address is a u32, not a float");
			return false;
		}
		/* quiet after an error that skipped code: the alloc may be in that code */
		t->alloc = protocol_at_alloc(walk->proto, addr, s->value, s->name, walk->skipped, &t->col_offset, &t->lane_offset);
		if (!t->alloc && walk->skipped)
			return false;
		if (t->alloc)
			protocol_alive(walk->proto, t, t->name, s->value->loc);
	}
	if (kind == TK_SHARED && s->layout) {
		LayoutExpr *le = layout_follow_names(s->layout);
		if (!le || !(t->tile = smem_tensor_tile(t, s->layout, le, s->loc)))
			return false;
	}
	if (t->tile && walk->file->observer && walk->file->observer->shared_tile)
		walk->file->observer->shared_tile(s, t);
	if (kind == TK_SHARED) {
		/* each array is 16-byte aligned (emit_cu.c); ptxas would refuse the kernel otherwise; a tile starts
		   on its swizzle's period, which may leave up to that alignment less 16 bytes before it */
		int64_t bytes = ((int64_t)t->count * etype_bits(t->type) / 8 + 15) / 16 * 16;
		if (t->tile)
			bytes += smem_tensor_align(t) - 16;
		walk->shared_bytes += bytes;
		if (walk->shared_bytes > MAX_SHARED_BYTES) {
			if (walk->shared_bytes - bytes > MAX_SHARED_BYTES)
				return false; /* reported at the declaration that crossed the limit */
			error(s->loc, "shared memory of kernel '%s' reaches %lld bytes with '%s' (%lld bytes); a block has at "
			              "most %d bytes (227 KB)", walk->k->name, (long long)walk->shared_bytes, t->name, (long long)bytes,
			      MAX_SHARED_BYTES);
			return false;
		}
	}
	if (kind == TK_LOCAL) {
		/* checked before the name is declared: a failed tensor is poisoned, its applies stay quiet */
		t->words = (t->layout->slots * etype_bits(t->type) + 31) / 32;
		if (t->words > 255) {
			error(s->loc, "'%s' needs %d registers per thread; a thread has at most 255", t->name, t->words);
			note(s->loc, "split it into %d or more local tensors (chunks of at most 255 registers) and move them one "
			             "after another, each with its own apply", (t->words + 254) / 255);
			return false;
		}
	}
	Sym *sym = sym_declare(SYM_TENSOR, s->name, s->name_loc);
	if (!sym)
		return false;
	sym->tensor = t;
	t->cname = cname_for(walk, s->name);
	if (kind == TK_TMEM)
		list_push(&walk->k->tmem_tensors, t);
	if (kind == TK_SHARED) {
		if (t->type == T_MBARRIER)
			mbar_track(walk, t, 0);
		emit(walk, L_SHARED, s->loc)->tensor = t;
	} else if (kind == TK_LOCAL) {
		emit(walk, L_REGS, s->loc)->tensor = t;
	} else {
		t->addr = ie_convert(addr, T_U32);
		/* a tensor in a known allocation is addressed by reading its slot at each use (apply.c) */
		if (!t->alloc) {
			LStmt *l = emit(walk, L_TMEM, s->loc);
			l->tensor = t;
			l->value = t->addr;
		}
	}
	return true;
}

/* An operand of bar_sync / bar_arrive: a compile-time constant (tilec checks ids and counts), or false. */
static bool
named_bar_operand(Expr *e, const char *what, const char *stmt, int64_t *out)
{
	IExpr *v = sema_expr(e);
	if (!v)
		return false;
	if (v->type == T_F32 || !ie_is_const(v, out)) {
		error(e->loc, "the %s of %s is not a compile-time constant; tilec checks the ids and the counts of "
		              "named barriers", what, stmt);
		return false;
	}
	return true;
}

/* The ids some bar_arrive of the statements may use (every id where one is not a literal): arrivals
   count toward the same phase as a bar_sync's, so that bar_sync orders nothing between its warps. */
static uint32_t
arrive_ids(List *stmts)
{
	uint32_t ids = 0;
	for (int i = 0; i < stmts->n; i++) {
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		if (s->kind == S_NAMED_BAR && s->bar_arrive)
			ids |= s->value && s->value->kind == E_INT && s->value->ival < 32 ? 1u << s->value->ival : ~0u;
		ids |= arrive_ids(&s->body) | arrive_ids(&s->else_body);
	}
	return ids;
}

/* The dims of a reduce: a constant dimension of src or a tuple of them, as a bit per dimension; 0 after an
   error. */
static unsigned
reduce_dims(Expr *e, const View *src)
{
	unsigned dims = 0;
	int n = e->kind == E_TUPLE ? e->args.n : 1;
	for (int i = 0; i < n; i++) {
		Expr *d = e->kind == E_TUPLE ? LIST_AT(e->args, Expr, i) : e;
		int64_t v;
		if (!const_int(d, &v, "a dimension of reduce"))
			return 0;
		if (v < 0 || v >= src->rank || (dims >> v & 1)) {
			error(d->loc, "reduce: %lld is no dimension of '%s' (0 to %d), or given twice", (long long)v, src->name,
			      src->rank - 1);
			return 0;
		}
		dims |= 1u << v;
	}
	return dims;
}

/* A variable of a reduce's butterfly, declared with its value: a value read twice is computed once. */
static IExpr *
reduce_var(Walk *walk, IExpr *value, Loc loc)
{
	Var *var = pool_alloc(sizeof *var);
	var->cname = var->name = pool_printf("tl_red%d", walk->k->nreduce_vars++);
	var->type = value->type;
	var->varying = var->per_thread = true;
	LStmt *l = emit(walk, L_VAR, loc);
	l->var = var;
	l->value = value;
	return ie_var(var, var->type);
}

/* reduce max|min|sum(dst, src, dims) over local tensors: each thread folds its registers of a row, then
   the lanes that share the row exchange (reduce.c). */
static void
lower_reduce(Walk *walk, Stmt *s)
{
	static const char *const kinds[] = {[REDUCE_SUM] = "sum", [REDUCE_MAX] = "max", [REDUCE_MIN] = "min"};
	int kind = 0;
	while (kind < 3 && strcmp(kinds[kind], s->name) != 0)
		kind++;
	if (kind == 3) {
		error(s->name_loc, "unknown reduction '%s'; expected max, min or sum", s->name);
		return;
	}
	View *v[2];
	for (int i = 0; i < 2; i++) {
		ViewExpr *ve = LIST_AT(s->operands, ViewExpr, i);
		v[i] = viewexpr_eval(ve, false);
		if (!v[i])
			return;
		if (v[i]->base->kind != TK_LOCAL || v[i]->per_thread) {
			error(ve->loc, "reduce: '%s' is not a local tensor or a view of one; reduce works on registers (for "
			               "tensor memory, copy to a local tensor first)", ve->base);
			return;
		}
	}
	unsigned dims = reduce_dims(s->value, v[1]);
	ReducePlan plan;
	if (!dims || !reduce_plan(v[0], v[1], dims, walk->k->threads, s->loc, &plan))
		return;
	if (plan.mask && !protocol_warp_collective(walk->proto, s->loc, "reduce"))
		return;
	for (int i = 0; i < plan.n; i++) {
		IExpr *value = reduce_value(&plan, i, v[1]->base, (ReduceKind)kind);
		protocol_read(walk->proto, value, s->loc);
		place_waits(walk);
		for (int m = 1; !reduce_aligned(&plan) && m < 32; m <<= 1)
			if (plan.mask & (uint32_t)m) {
				IExpr *own = reduce_var(walk, value, s->loc);
				value = reduce_step(own, reduce_var(walk, reduce_shuffle(own, m), s->loc), m, (ReduceKind)kind);
			}
		protocol_reg_write(walk->proto, v[0]->base, plan.dst_slot[i], s->loc);
		place_waits(walk);
		LStmt *l = emit(walk, L_REG_STORE, s->loc);
		l->tensor = v[0]->base;
		l->slot = plan.dst_slot[i];
		l->value = ie_convert(value, v[0]->base->type);
	}
}

/* bar_sync(id, nthreads) / bar_arrive: PTX bar.sync / bar.arrive, with the fences of a cta_sync. */
static void
lower_named_bar(Walk *walk, Stmt *s)
{
	const char *stmt = s->bar_arrive ? "bar_arrive" : "bar_sync";
	if (walk->dev) {
		error(s->loc, "%s in device function '%s'; a named barrier is a statement of a kernel, where tilec counts "
		              "the warps that reach it", stmt, walk->dev->name);
		return;
	}
	int64_t id, threads;
	bool id_ok = named_bar_operand(s->value, "barrier id", stmt, &id);
	if (!named_bar_operand(s->hi, "thread count", stmt, &threads) || !id_ok)
		return;
	if (id < 1 || id > 15) {
		error(s->value->loc, "barrier id %lld of %s is out of range; the named barriers are 1 to 15 (barrier 0 is "
		                     "the one cta_sync uses, for every thread of the block)", (long long)id, stmt);
		return;
	}
	if (threads <= 0 || threads % 32) {
		error(s->hi->loc, "%s counts %lld threads, not a positive multiple of 32; a barrier counts whole warps",
		      stmt, (long long)threads);
		return;
	}
	int block = (walk->k->threads + 31) / 32 * 32;
	if (threads > block) {
		error(s->hi->loc, "%s counts %lld threads, more than the %d of the block; the barrier never completes",
		      stmt, (long long)threads, block);
		return;
	}
	protocol_named_bar(walk->proto, s->loc, (int)id, (int)threads, s->bar_arrive, s->writes_follow,
	                   walk->arrive_ids >> id & 1);
	place_waits(walk);
	if (s->fence_before)
		emit(walk, L_FENCE, s->loc)->instr = isa_instr(TC_FENCE_BEFORE);
	LStmt *l = emit(walk, L_NAMED_BAR, s->loc);
	l->bar_id = (int)id;
	l->bar_threads = (int)threads;
	l->bar_arrive = s->bar_arrive;
	if (s->fence_after)
		emit(walk, L_FENCE, s->loc)->instr = isa_instr(TC_FENCE_AFTER);
}

/* What lowering has seen of an mbarrier element (Tensor.mbar_state): LANGUAGE 11.3's order is init, a
   barrier that publishes it (tilec's fence, the program's cta_sync or cluster_sync), then uses. */
enum { MBS_INIT = 1, MBS_PUBLISHED = 2, MBS_USED = 4 };

/* At a cta_sync or cluster_sync: the fence that publishes the inits before it, where there are any. */
static void
mbar_publish(Walk *walk, Loc loc)
{
	if (!walk->mbar_unpublished)
		return;
	LStmt *l = emit(walk, L_MBAR, loc);
	l->mbar_op = MB_FENCE_INIT;
	l->instr = isa_instr(TC_MB_FENCE_INIT);
	for (int i = 0; i < walk->mbar_tensors.n; i++) {
		Tensor *t = LIST_AT(walk->mbar_tensors, Tensor, i);
		for (int e = 0; e < t->count; e++)
			if (t->mbar_state[e] & MBS_INIT)
				t->mbar_state[e] |= MBS_PUBLISHED;
	}
	walk->mbar_unpublished = false;
}

/* A parameter is no mbarrier: barriers are a kernel's shared tensors, where lowering follows their use. */
static bool
mbar_param_ok(const Param *p)
{
	if (p->type != T_MBARRIER)
		return true;
	error(p->loc, "parameter '%s' has type %s; mbarriers are declared in a kernel's body, as shared tensors "
	              "(shared full: %s[2];)", p->name, etype_name(T_MBARRIER), etype_name(T_MBARRIER));
	return false;
}

/* The barrier operand b (an element of a shared mbarrier tensor): its address, with *t the tensor and
   *elem its element where constant (-1 otherwise); NULL after an error. */
static IExpr *
mbar_barrier(Expr *b, const char *stmt, Tensor **t, int *elem)
{
	if (b->kind != E_NAME && b->kind != E_INDEX) {
		error(b->loc, "the barrier of %s is an element of a shared mbarrier tensor, such as full[0]", stmt);
		return NULL;
	}
	Sym *sym = sym_use(b->name, b->loc);
	if (!sym)
		return NULL;
	if (sym->kind != SYM_TENSOR || sym->tensor->kind != TK_SHARED || sym->tensor->type != T_MBARRIER) {
		error(b->loc, "'%s' is not a shared mbarrier tensor; %s takes an element of one (shared full: %s[2];)",
		      b->name, stmt, etype_name(T_MBARRIER));
		note(sym->loc, "'%s' is declared here", b->name);
		return NULL;
	}
	*t = sym->tensor;
	Expr element = *b;
	element.kind = E_ADDR;
	if (b->kind == E_NAME) {
		if ((*t)->count != 1 || (*t)->rank != 1) {
			error(b->loc, "'%s' holds %d mbarriers; %s takes one of them, such as %s[0]", b->name, (*t)->count, stmt,
			      b->name);
			return NULL;
		}
		Expr *zero = pool_alloc(sizeof *zero);
		zero->kind = E_INT;
		zero->loc = b->loc;
		element.args = (List){0};
		list_push(&element.args, zero);
	}
	IExpr *addr = sema_address(&element);
	if (!addr)
		return NULL;
	int64_t c;
	*elem = ie_is_const(addr->index, &c) ? (int)c : -1;
	return addr;
}

/* The integer operand of an mbarrier statement: count, bytes or parity, within lo..hi where constant. */
static IExpr *
mbar_value(Expr *e, const char *what, const char *stmt, int64_t lo, int64_t hi, int64_t *known)
{
	IExpr *v = sema_expr(e);
	if (!v)
		return NULL;
	if (v->type == T_F32) {
		error(e->loc, "the %s of %s is an integer, not a float", what, stmt);
		return NULL;
	}
	*known = -1;
	if (ie_is_const(v, known) && (*known < lo || *known > hi)) {
		error(e->loc, "the %s of %s is %lld; it is %lld to %lld", what, stmt, (long long)*known, (long long)lo,
		      (long long)hi);
		return NULL;
	}
	return ie_convert(v, T_U32);
}

/* The threads that run a statement here, where tilec knows them (whole warps of a known set), else -1. */
static int
mbar_threads(Walk *walk)
{
	if (!protocol_whole_warps(walk->proto) || protocol_varying(walk->proto))
		return -1;
	uint64_t warps = protocol_warps(walk->proto);
	int n = 0;
	for (int w = 0; w < 64; w++)
		if (warps >> w & 1)
			n += walk->k->threads - 32 * w < 32 ? walk->k->threads - 32 * w : 32;
	return n;
}

/* The threads that run a statement here, for the pipeline checks (mbarcheck.c): whole warps (mbar_threads),
   or, inside conditions that tilec can evaluate for every thread of the warps that may reach it (the
   producer's if (lane_id == 0) around its arrival), those that take them; -1 where it cannot tell. */
static int
mbar_counted_threads(Walk *walk)
{
	int n = mbar_threads(walk);
	if (n > 0 || walk->dev || walk->nconds == 0 || walk->nconds > MAX_CONDS)
		return n;
	uint64_t warps = protocol_warps(walk->proto);
	n = 0;
	for (int u = 0; u < walk->k->threads; u++) {
		bool reaches = warps >> (u / 32) & 1;
		for (int c = 0; c < walk->nconds && reaches; c++) {
			int64_t v;
			if (!ie_eval_thread(walk->conds[c], walk->k->block, u, &v))
				return -1;
			reaches = (v != 0) != walk->cond_negated[c];
		}
		n += reaches;
	}
	return n > 0 ? n : -1;
}

/* A single-thread statement (LANGUAGE 11.8) that whole warps reach runs in one elected lane of each: where
   tilec knows the threads and more than one warp reaches it, an error (what repeats: `repeated`, such as
   "it would be issued") and false. */
static bool
single_thread_one_warp(Walk *walk, Stmt *s, const char *stmt, const char *repeated)
{
	uint64_t warps = protocol_warps(walk->proto);
	if (mbar_threads(walk) <= 0 || !(warps & (warps - 1)))
		return true;
	int n = __builtin_popcountll(warps);
	error(s->loc, "%s is a single-thread statement but %d warps reach it; tilec runs it in one elected lane of "
	              "each warp, so %s %d times", stmt, n, repeated, n);
	note(s->loc, "put it under a condition that one warp takes, such as if (warp_id == 0)");
	return false;
}

/* Whether a single-thread statement here runs in one elected lane of each warp that reaches it (LANGUAGE
   11.8), and which lane the CPU emulator elects (*lane: the lowest that reaches it, as elect.sync among the
   active lanes picks on the GPU). Whole warps: yes, lane 0. Inside conditions that only some lanes take:
   where tilec can evaluate the conditions for every thread of the warps that may reach it and the
   statement runs in more than one lane of a warp, yes, with the lowest lane (the same in every warp);
   where it runs in one lane of each warp (if (lane_id == 0)), no: as written. Elsewhere no (unknown). */
static bool
elected_lane(Walk *walk, int *lane)
{
	*lane = 0;
	if (mbar_threads(walk) > 0)
		return true;
	if (walk->dev || walk->nconds > MAX_CONDS || walk->nconds == 0)
		return false;
	uint64_t warps = protocol_warps(walk->proto);
	int lowest = -1;
	bool several = false;
	for (int w = 0; w < 64 && 32 * w < walk->k->threads; w++) {
		if (!(warps >> w & 1))
			continue;
		int first = -1, n = 0;
		for (int u = 32 * w; u < 32 * w + 32 && u < walk->k->threads; u++) {
			bool reaches = true;
			for (int c = 0; c < walk->nconds && reaches; c++) {
				int64_t v;
				if (!ie_eval_thread(walk->conds[c], walk->k->block, u, &v))
					return false;
				reaches = (v != 0) != walk->cond_negated[c];
			}
			if (reaches) {
				first = first < 0 ? u % 32 : first;
				n++;
			}
		}
		if (n == 0)
			continue;
		if (lowest >= 0 && first != lowest)
			return false;
		lowest = first;
		several |= n > 1;
	}
	if (!several)
		return false;
	*lane = lowest;
	return true;
}

/* How many of the threads that run a statement here (whole warps: mbar_threads) name element e by index, a
   barrier index that varies (bar[warp_id]: each warp its own); -1 where tilec cannot compute it per thread. */
static int
mbar_arrivers(Walk *walk, const IExpr *index, int e)
{
	uint64_t warps = protocol_warps(walk->proto);
	int n = 0;
	for (int u = 0; u < walk->k->threads; u++) {
		int64_t v;
		if (!(warps >> (u / 32) & 1))
			continue;
		if (!ie_eval_thread(index, walk->k->block, u, &v))
			return -1;
		n += v == e;
	}
	return n;
}

/* The order of LANGUAGE 11.3 for the elements a statement names (elem, or every one when -1): init
   before use and published; no init after the first use. */
static bool
mbar_order(Walk *walk, Stmt *s, const char *stmt, Tensor *t, int elem)
{
	int from = elem < 0 ? 0 : elem, to = elem < 0 ? t->count : elem + 1;
	const char *which = elem < 0 ? pool_printf("'%s'", t->name) : pool_printf("'%s[%d]'", t->name, elem);
	for (int e = from; e < to; e++) {
		unsigned char st = t->mbar_state[e];
		if (s->mbar_op == MB_INIT) {
			if (st & MBS_USED) {
				error(s->loc, "%s of %s after its first use; a barrier is initialised once, before any thread "
				              "uses it", stmt, which);
				note(t->mbar_use_loc, "first used here");
				return false;
			}
			continue;
		}
		if (!(st & MBS_INIT)) {
			error(s->loc, "%s on %s before its %s.init; initialise every barrier first (in one thread), then "
			              "cta_sync", stmt, which, etype_name(T_MBARRIER));
			return false;
		}
		if (!(st & MBS_PUBLISHED)) {
			error(s->loc, "%s on %s before a cta_sync published its %s.init; other threads may see the barrier "
			              "uninitialised (tilec places the init fence at the next cta_sync or cluster_sync)",
			      stmt, which, etype_name(T_MBARRIER));
			note(t->mbar_init_loc, "initialised here");
			return false;
		}
	}
	(void)walk;
	return true;
}

/* Records the arrivals of an arrive (n, -1 where tilec cannot count them) or a commit (one: commit, -1 where
   not counted, as a pair commit, which the other CTA's may add to) on t[elem] (elem -1: an index that varies): outside run-time loops toward the element's total,
   inside one toward the innermost loop's trip when the element changes with the trip. */
static void
mbar_count_arrivals(Walk *walk, Stmt *s, Tensor *t, int elem, int64_t n, int64_t commit)
{
	int64_t arrivals = s->mbar_op == MB_COMMIT ? commit : n;
	if (walk->mbar_loop && elem < 0) {
		MbarTrip *trip = NULL;
		for (int i = 0; i < walk->mbar_loop->trips.n && !trip; i++)
			if (LIST_AT(walk->mbar_loop->trips, MbarTrip, i)->t == t)
				trip = LIST_AT(walk->mbar_loop->trips, MbarTrip, i);
		if (!trip) {
			trip = pool_alloc(sizeof *trip);
			trip->t = t;
			trip->counted = true;
			trip->first = s->loc;
			list_push(&walk->mbar_loop->trips, trip);
		}
		if (arrivals < 0)
			trip->counted = false;
		else
			trip->arrivals += arrivals;
	}
	int from = elem < 0 ? 0 : elem, to = elem < 0 ? t->count : elem + 1;
	for (int e = from; e < to; e++) {
		if (walk->mbar_loop || elem < 0 || arrivals < 0)
			t->mbar_uncounted[e] = 1;
		else
			t->mbar_arrivals[e] += arrivals;
	}
}

/* The n-th wait of a warp on a barrier (from 0) waits for the phase of parity n % 2, where tilec knows n:
   whole warps, waits outside run-time loops on an element it can compute since the element's init, a
   constant parity (-1 otherwise, which makes n unknown for the warps that may be here). */
static bool
mbar_wait_parity(Walk *walk, Stmt *s, Tensor *t, int elem, int64_t parity)
{
	uint64_t warps = protocol_warps(walk->proto);
	int from = elem < 0 ? 0 : elem, to = elem < 0 ? t->count : elem + 1;
	bool known = parity >= 0 && elem >= 0 && !walk->mbar_loop;
	for (int e = from; e < to; e++)
		for (int w = 0; w < 64; w++) {
			short *n = &t->mbar_waits[64 * e + w];
			if (!(warps >> w & 1))
				continue;
			if (!known || *n < 0) {
				*n = -1;
				continue;
			}
			if ((*n & 1) != parity) {
				error(s->value->loc, "this is wait %d of warp %d on '%s[%d]' since its init, which waits for the "
				                     "phase of parity %d, not %lld: its phases complete in order, 0, 1, 0, ...",
				      *n + 1, w, t->name, e, *n & 1, (long long)parity);
				note(t->mbar_init_loc, "initialised here");
				return false;
			}
			++*n;
		}
	return true;
}

/* The end of a run-time loop: each trip that arrives on an element that changes with the trip completes
   one phase of it, so a trip's counted arrivals equal the init count (the ring pattern). */
static void
mbar_loop_end(Walk *walk, MbarLoop *loop)
{
	walk->mbar_loop = loop->outer;
	for (int i = 0; i < loop->trips.n; i++) {
		MbarTrip *trip = LIST_AT(loop->trips, MbarTrip, i);
		int count = trip->t->mbar_count[0];
		for (int e = 1; e < trip->t->count; e++)
			if (trip->t->mbar_count[e] != count)
				count = 0;
		if (!trip->counted || count == 0 || trip->arrivals == count)
			continue;
		error(trip->first, "each trip of this loop arrives %lld time%s on an element of '%s' that changes with the "
		                   "trip, but its init expects %d arrivals per phase; the phases would not line up with the trips",
		      (long long)trip->arrivals, trip->arrivals == 1 ? "" : "s", trip->t->name, count);
		note(loop->loc, "the loop");
		note(trip->t->mbar_init_loc, "initialised here");
	}
}

/* The end of the kernel: an element whose arrivals tilec counted in full gets a whole number of phases. */
static void
mbar_end(Walk *walk)
{
	for (int i = 0; i < walk->mbar_tensors.n; i++) {
		Tensor *t = LIST_AT(walk->mbar_tensors, Tensor, i);
		for (int e = 0; e < t->count; e++) {
			int64_t got = t->mbar_arrivals[e];
			if (t->mbar_uncounted[e] || !t->mbar_count[e] || got % t->mbar_count[e] == 0)
				continue;
			error(t->mbar_init_loc, "the arrivals on '%s[%d]' add up to %lld, not a multiple of the %d its init "
			                        "expects per phase; its last phase never completes", t->name, e, (long long)got,
			      t->mbar_count[e]);
			note(t->mbar_use_loc, "first used here");
		}
	}
	mbarcheck_end(protocol_mbarcheck(walk->proto)); /* the rings, once the statements are complete */
}

/* A barrier of every thread of the CTA (cta_sync, cluster_sync): its protocol effect, the tcgen05 fences
   marked around it, the fence that publishes mbarrier inits before it; returns the barrier's statement. */
static LStmt *
lower_barrier(Walk *walk, Stmt *s, LKind kind)
{
	if (walk->tma_stores.n) {
		/* the TMA stores before it complete their reads here, so every write after the barrier may follow */
		TmaCopy *w = pool_alloc(sizeof *w);
		w->wait_read = w->store = true;
		emit(walk, L_TMA, s->loc)->tma = w;
		explain_note(s->loc, "%s placed before this barrier: the TMA stores of '%s' before it have read their "
		             "tiles after it", tma_bulk_spelling(true), LIST_AT(walk->tma_stores, Tensor, 0)->name);
		walk->tma_stores.n = 0;
	}
	protocol_cta_sync(walk->proto, s->loc, s->writes_follow);
	place_waits(walk);
	walk->shared_writes.n = 0;
	if (s->fence_before)
		emit(walk, L_FENCE, s->loc)->instr = isa_instr(TC_FENCE_BEFORE);
	mbar_publish(walk, s->loc);
	LStmt *l = emit(walk, kind, s->loc);
	if (s->fence_after)
		emit(walk, L_FENCE, s->loc)->instr = isa_instr(TC_FENCE_AFTER);
	return l;
}

/* cluster_sync: barrier.cluster arrive.release and wait.acquire, with the fences of a cta_sync and the one
   that publishes mbarrier inits. */
static void
lower_cluster_sync(Walk *walk, Stmt *s)
{
	if (walk->dev) {
		error(s->loc, "cluster_sync in device function '%s'; it is a statement of a kernel, which every thread "
		              "of every CTA of the cluster reaches", walk->dev->name);
		return;
	}
	/* the threads' stores a pair's mma or cp reads reach the async proxy of the other CTA through this barrier */
	bool stores = false;
	for (int i = 0; i < walk->pair_writes.n; i++)
		stores |= walk->pair_group == 2 && LIST_AT(walk->pair_writes, SharedWrite, i)->thread_store;
	LStmt *l = lower_barrier(walk, s, L_MBAR);
	walk->pair_writes.n = 0;
	l->proxy_fence = stores;
	l->mbar_op = MB_CLUSTER_SYNC;
	l->instr = isa_instr(TC_CLUSTER_ARRIVE);
}

/* mbarrier.init / arrive / expect_tx / wait and commit (LANGUAGE 11.3). */
static void
lower_mbar(Walk *walk, Stmt *s)
{
	if (s->mbar_op == MB_CLUSTER_SYNC) {
		lower_cluster_sync(walk, s);
		return;
	}
	const char *stmt = mbar_stmt_name(s->mbar_op);
	Tensor *t;
	int elem;
	IExpr *addr = mbar_barrier(s->target, stmt, &t, &elem);
	if (!addr)
		return;
	IExpr *value = NULL;
	int64_t known = -1;
	switch (s->mbar_op) {
	case MB_INIT:
		value = mbar_value(s->value, "arrival count", stmt, 1, (1 << 20) - 1, &known);
		break;
	case MB_ARRIVE:
		value = s->value ? mbar_value(s->value, "arrival count", stmt, 1, (1 << 20) - 1, &known) : ie_int(1, T_U32);
		if (!s->value)
			known = 1;
		break;
	case MB_EXPECT_TX:
		value = mbar_value(s->value, "byte count", stmt, 0, (1 << 20) - 1, &known);
		break;
	case MB_WAIT:
		value = mbar_value(s->value, "parity", stmt, 0, 1, &known);
		if (value && known < 0)
			value = ie_binary(OP_BITAND, value, ie_int(1, T_U32));
		break;
	default:
		break;
	}
	if (s->value && !value)
		return;
	if (!mbar_order(walk, s, stmt, t, elem))
		return;
	bool single = s->mbar_op == MB_INIT || s->mbar_op == MB_EXPECT_TX || s->mbar_op == MB_COMMIT;
	int threads = mbar_threads(walk);
	if (single && !single_thread_one_warp(walk, s, stmt, "the barrier would see it"))
		return;
	int from = elem < 0 ? 0 : elem, to = elem < 0 ? t->count : elem + 1;
	if (s->mbar_op == MB_ARRIVE && threads > 0 && known > 0)
		for (int e = from; e < to; e++) {
			int on = elem < 0 ? mbar_arrivers(walk, addr->index, e) : threads;
			if (t->mbar_count[e] && on > 0 && (int64_t)on * known > t->mbar_count[e]) {
				error(s->loc, "%s on '%s[%d]' by %d thread%s counts %lld arrivals, more than the %d its init expects "
				              "per phase", stmt, t->name, e, on, on == 1 ? "" : "s", (long long)on * known,
				      t->mbar_count[e]);
				note(t->mbar_init_loc, "initialised here");
				return;
			}
		}
	if (s->mbar_op == MB_WAIT && !mbar_wait_parity(walk, s, t, elem, threads > 0 ? known : -1))
		return;
	if (s->mbar_op == MB_ARRIVE || s->mbar_op == MB_COMMIT)
		mbar_count_arrivals(walk, s, t, elem, threads > 0 && known > 0 ? (int64_t)threads * known : -1,
		                    s->mbar_op == MB_COMMIT && threads > 0 &&
		                    (protocol_cta_group(walk->proto) == 1 || walk->pair_issued) ? 1 : -1);
	for (int e = from; e < to; e++) {
		if (s->mbar_op == MB_INIT) {
			t->mbar_state[e] = MBS_INIT;
			t->mbar_count[e] = known > 0 ? (int)known : 0;
			t->mbar_arrivals[e] = 0;
			t->mbar_uncounted[e] = 0;
			memset(&t->mbar_waits[64 * e], 0, 64 * sizeof(short));
		} else {
			if (!(t->mbar_state[e] & MBS_USED) && !t->mbar_use_loc.file)
				t->mbar_use_loc = s->loc;
			t->mbar_state[e] |= MBS_USED;
		}
	}
	if (s->mbar_op == MB_INIT) {
		t->mbar_init_loc = s->loc;
		walk->mbar_unpublished = true;
	}
	if (s->mbar_op == MB_COMMIT)
		protocol_commit(walk->proto, t, addr->index, s->loc);
	bool cp_waited = s->mbar_op == MB_WAIT && protocol_mbar_wait(walk->proto, t, addr->index);
	if (s->mbar_op == MB_WAIT)
		walk->shared_writes.n = 0; /* the arrivals it waits for order the stores before them */
	static const TcKind rows[] = {[MB_INIT] = TC_MB_INIT, [MB_ARRIVE] = TC_MB_ARRIVE, [MB_EXPECT_TX] = TC_MB_EXPECT_TX,
	                              [MB_WAIT] = TC_MB_TRY_WAIT, [MB_COMMIT] = TC_COMMIT};
	/* the commit of a pair's mma or cp: the even CTA's thread that issued them, arriving in both CTAs */
	bool pair_commit = s->mbar_op == MB_COMMIT && walk->pair_issued && protocol_cta_group(walk->proto) == 2;
	List *out = pair_commit ? pair_even_open(walk, s->loc) : walk->out;
	LStmt *l = emit(walk, L_MBAR, s->loc);
	l->mbar_op = s->mbar_op;
	l->instr = isa_instr(rows[s->mbar_op]);
	l->tensor = t;
	l->index = addr->index;
	l->mbar = addr;
	l->value = value;
	l->mbar_elect = single && elected_lane(walk, &l->elect_lane);
	l->cta_group = s->mbar_op == MB_COMMIT ? protocol_cta_group(walk->proto) : 0;
	if (l->cta_group == 2)
		l->instr = isa_instr(TC_COMMIT_PAIR);
	walk->out = out;
	/* the TMEM a cp wrote is read by this thread's tcgen05.ld only after the fence (LANGUAGE 11.5) */
	if (cp_waited) {
		LStmt *f = emit(walk, L_FENCE, s->loc);
		f->instr = isa_instr(TC_FENCE_AFTER);
		f->mbar_op = MB_WAIT;
	}
}

/* cp.async.bulk.wait_group.read 0 by every thread (a no-op where it issued no store): the shared tiles of the
   TMA stores before it may be written again once the threads that write them have passed a barrier after
   it (the CTA's where every thread is here, else __syncwarp where one warp is; at the kernel's end none). */
static void
tma_wait_read(Walk *walk, Loc loc, bool end)
{
	if (!walk->tma_stores.n)
		return;
	TmaCopy *w = pool_alloc(sizeof *w);
	w->wait_read = true;
	w->store = true;
	LStmt *l = emit(walk, L_TMA, loc);
	l->tma = w;
	const char *name = LIST_AT(walk->tma_stores, Tensor, 0)->name;
	int stores = walk->tma_stores.n;
	walk->tma_stores.n = 0;
	uint64_t warps = protocol_warps(walk->proto);
	int threads = mbar_threads(walk);
	const char *then = "";
	if (!end && threads == walk->k->threads) {
		Stmt sync = {.kind = S_CTA_SYNC, .loc = loc};
		lower_barrier(walk, &sync, L_BARRIER);
		then = ", then a barrier of the CTA";
	} else if (!end && threads > 0 && !(warps & (warps - 1))) {
		emit(walk, L_WARP_SYNC, loc);
		then = ", then __syncwarp";
	} else if (!end) {
		error(loc, "'%s' is written here while a TMA store may still read it, and not every thread of the CTA (nor "
		           "one warp) reaches this point, so tilec cannot put the wait and its barrier here; write "
		           "cta_sync; between the store and this write", name);
		note(loc, "the stores' wait goes before the first write of the tile after them");
	}
	explain_note(loc, "%s placed here%s: the TMA store%s of '%s' must have read the tile before it is written again "
	             "or the kernel ends", tma_bulk_spelling(true), then, stores > 1 ? "s" : "", name);
}

/* Before a statement that writes a shared tile a TMA store may still be reading (an assignment to it, a copy
   or TMA load into it): the wait. */
static void
tma_wait_before_write(Walk *walk, Stmt *s)
{
	if (!walk->tma_stores.n)
		return;
	const char *name = NULL;
	if (s->kind == S_ASSIGN && s->target && (s->target->kind == E_INDEX || s->target->kind == E_NAME))
		name = s->target->name;
	else if (s->kind == S_COPY && s->operands.n)
		name = LIST_AT(s->operands, ViewExpr, 0)->base;
	Sym *sym = name ? sym_lookup(name) : NULL;
	const Tensor *t = sym && sym->kind == SYM_TENSOR ? sym->tensor : sym && sym->kind == SYM_VIEW ? sym->view->base : NULL;
	for (int i = 0; t && i < walk->tma_stores.n; i++)
		if (LIST_AT(walk->tma_stores, Tensor, i) == t) {
			tma_wait_read(walk, s->loc, false);
			return;
		}
}

/* copy(global_slice, shared_view); with a tma tensor (LANGUAGE 11.4): the threads' writes of the tile ordered
   before it (a barrier tilec inserts where every thread of the CTA, or the one warp that wrote, reaches the
   store; else an error), then per piece, in one elected lane, fence.proxy.async, cp.async.bulk.tensor and
   commit_group; the wait_group.read comes as late as the tile allows (tma_wait_before_write, loop ends, the
   kernel's end). */
static void
lower_tma_store(Walk *walk, Stmt *s)
{
	ViewExpr *gve = LIST_AT(s->operands, ViewExpr, 0), *sve = LIST_AT(s->operands, ViewExpr, 1);
	View *gv = viewexpr_eval(gve, true);
	View *sv = gv ? viewexpr_eval(sve, false) : NULL;
	if (!sv)
		return;
	TmaPlan plan;
	if (!tma_plan(walk->k, sv, gv, gve, counter_nonneg, s->loc, &plan))
		return;
	uint64_t warps = protocol_warps(walk->proto), wrote = 0;
	Loc first = {0};
	for (int i = 0; i < walk->shared_writes.n; i++) {
		SharedWrite *sw = LIST_AT(walk->shared_writes, SharedWrite, i);
		if (sw->t != sv->base)
			continue;
		if (!wrote)
			first = sw->loc;
		wrote |= sw->warps;
	}
	if (wrote) {
		int threads = mbar_threads(walk);
		if (threads == walk->k->threads) {
			Stmt sync = {.kind = S_CTA_SYNC, .loc = s->loc};
			lower_barrier(walk, &sync, L_BARRIER);
			explain_note(s->loc, "a barrier of the CTA inserted before the TMA store: threads stored to '%s' at line "
			             "%d", sv->base->name, first.first_line);
		} else if (threads > 0 && !(wrote & ~warps) && !(warps & (warps - 1))) {
			emit(walk, L_WARP_SYNC, s->loc);
			explain_note(s->loc, "__syncwarp inserted before the TMA store: this warp stored to '%s' at line %d",
			             sv->base->name, first.first_line);
		} else {
			error(s->loc, "the TMA store of '%s' reads the tile that threads store to at line %d, and not every thread "
			              "of the CTA reaches it, so tilec cannot put the barrier between; write cta_sync; where every "
			              "thread reaches it", sv->base->name, first.first_line);
			note(first, "stored here");
			return;
		}
	}
	place_waits(walk);
	/* reached by several warps (all of them, after the barrier): the first one issues */
	List *out = walk->out;
	int first_warp = warps ? __builtin_ctzll(warps) : 0;
	bool several = mbar_threads(walk) > 0 && (warps & (warps - 1));
	if (several) {
		LStmt *branch = emit(walk, L_IF, s->loc);
		branch->cond = ie_binary(OP_EQ, ie_builtin(B_WARP_ID), ie_int(first_warp, T_I32));
		walk->out = &branch->body;
	}
	explain_note(s->loc, "%s; fence.proxy.async.shared::cta, then the copies and %s in one elected lane%s", plan.why,
	             tma_bulk_spelling(false), several ? pool_printf(" of warp %d", first_warp) : "");
	for (int i = 0; i < plan.n; i++) {
		LStmt *l = emit(walk, L_TMA, s->loc);
		l->tma = &plan.pieces[i];
		l->tensor = sv->base;
		l->mbar_elect = elected_lane(walk, &l->elect_lane);
		l->comment = source_line_of(s->loc, true);
	}
	walk->out = out;
	bool listed = false;
	for (int i = 0; i < walk->tma_stores.n; i++)
		listed |= LIST_AT(walk->tma_stores, Tensor, i) == sv->base;
	if (!listed)
		list_push(&walk->tma_stores, sv->base);
}

/* The destination of a TMA load may pick a tile of a stack of smem_tile tiles at run time (a ring's stage,
   sa[k % 4, :, :]): every tile of the stack has the same layout on its own swizzle period, so the view is
   checked at tile 0 and the stage's bytes are added to the address. *dve becomes that view (NULL after an
   error); returns the stage index, NULL when the view is a compile-time one. */
static IExpr *
tma_stage(ViewExpr **dve)
{
	ViewExpr *ve = *dve;
	Sym *sym = sym_lookup(ve->base);
	ViewOp *op0 = ve->ops.n ? LIST_AT(ve->ops, ViewOp, 0) : NULL;
	if (!sym || sym->kind != SYM_TENSOR || sym->tensor->kind != TK_SHARED || !sym->tensor->tile ||
	    sym->tensor->rank < 3 || !op0 || op0->kind != VOP_SLICE || !op0->indices.n)
		return NULL;
	SliceIndex *si = LIST_AT(op0->indices, SliceIndex, 0);
	if (si->is_range || !si->index)
		return NULL;
	IExpr *stage = sema_expr(si->index);
	int64_t c;
	if (!stage) {
		*dve = NULL;
		return NULL;
	}
	if (ie_is_const(stage, &c) || stage->type == T_F32)
		return NULL;
	SliceIndex *zero = pool_alloc(sizeof *zero);
	*zero = *si;
	Expr *z = pool_alloc(sizeof *z);
	z->kind = E_INT;
	z->loc = si->loc;
	zero->index = z;
	ViewOp *op = pool_alloc(sizeof *op);
	*op = *op0;
	op->indices = (List){0};
	list_push(&op->indices, zero);
	for (int i = 1; i < op0->indices.n; i++)
		list_push(&op->indices, LIST_AT(op0->indices, SliceIndex, i));
	ViewExpr *at0 = pool_alloc(sizeof *at0);
	*at0 = *ve;
	at0->ops = (List){0};
	list_push(&at0->ops, op);
	for (int i = 1; i < ve->ops.n; i++)
		list_push(&at0->ops, LIST_AT(ve->ops, ViewOp, i));
	*dve = at0;
	return stage;
}

/* copy(shared_view, global_slice) mbarrier b; (LANGUAGE 11.4): tma.c's checked pieces, each one
   cp.async.bulk.tensor issued by one elected lane, after the expect_tx of their bytes on b, which is lowered
   as the written mbarrier.expect_tx is (its checks, its count of the barrier's bytes). */
static void
lower_tma_load(Walk *walk, Stmt *s)
{
	ViewExpr *dve = LIST_AT(s->operands, ViewExpr, 0), *gve = LIST_AT(s->operands, ViewExpr, 1);
	IExpr *stage = tma_stage(&dve);
	if (!dve)
		return;
	View *sv = viewexpr_eval(dve, false);
	View *gv = sv ? viewexpr_eval(gve, true) : NULL;
	if (!gv)
		return;
	if (sv->base->kind != TK_SHARED || gv->base->kind != TK_GLOBAL) {
		error(s->loc, "a TMA load copies a global slice into a shared view: copy(shared_view, global_slice) "
		              "mbarrier b; here '%s' is %s and '%s' is %s", dve->base,
		      sv->base->kind == TK_SHARED ? "shared" : "not shared", gve->base,
		      gv->base->kind == TK_GLOBAL ? "global" : "not global");
		return;
	}
	if (!gv->base->tma) {
		error(gve->base_loc, "copy(...) mbarrier is a TMA load, but '%s' is not marked tma; declare it "
		                     "%s: %s[...] tma", gve->base, gve->base, etype_name(gv->base->type));
		note(gv->base->loc, "'%s' is declared here", gve->base);
		return;
	}
	IExpr *mask = NULL;
	if (s->multicast && !(mask = tma_multicast_mask(walk->dev ? NULL : walk->k, s->multicast)))
		return;
	TmaPlan plan;
	if (!tma_plan(walk->k, sv, gv, gve, NULL, s->loc, &plan))
		return;
	if (!single_thread_one_warp(walk, s, "a TMA load", "it would be issued"))
		return;
	int errors = error_count;
	Expr bytes = {.kind = E_INT, .loc = s->loc, .ival = (uint32_t)plan.bytes};
	Stmt expect = {.kind = S_MBAR, .loc = s->loc, .mbar_op = MB_EXPECT_TX, .target = s->tma_bar, .value = &bytes};
	lower_mbar(walk, &expect);
	if (error_count != errors)
		return;
	Tensor *bt;
	int elem;
	IExpr *bar = mbar_barrier(s->tma_bar, "a TMA load", &bt, &elem);
	if (!bar)
		return;
	place_waits(walk);
	explain_note(s->loc, "%s; barrier '%s' expects the %d bytes (expect_tx by the issuing lane)%s", plan.why,
	             bt->name, plan.bytes,
	             mask ? "; multicast: each CTA of the mask expects them on its own barrier, the CTA of lowest "
	                    "rank in the mask issues one copy for all (.multicast::cluster)" : "");
	if (stage) {
		const SmemTile *tile = sv->base->tile;
		uint32_t bytes = (uint32_t)tile->rows * (uint32_t)tile->cols * (uint32_t)tile->elem_bytes;
		stage = ie_binary(OP_MUL, ie_convert(stage, T_U32), ie_int(bytes, T_U32));
	}
	for (int i = 0; i < plan.n; i++) {
		plan.pieces[i].mbar = bar;
		plan.pieces[i].stage = stage;
		plan.pieces[i].multicast = mask;
		LStmt *l = emit(walk, L_TMA, s->loc);
		l->tma = &plan.pieces[i];
		l->tensor = sv->base;
		l->mbar_elect = elected_lane(walk, &l->elect_lane);
		l->comment = source_line_of(s->loc, true);
	}
	/* the bytes the expect_tx above announced arrive with the copy: the ring checks count them (mbarcheck.c) */
	protocol_mbar_complete_tx(walk->proto, bt, bar->index, plan.bytes, sv->base, s->loc);
	if (walk->pair_group == 2) {
		SharedWrite *w = pool_alloc(sizeof *w);
		*w = (SharedWrite){sv->base, protocol_warps(walk->proto), s->loc, false};
		list_push(&walk->pair_writes, w);
	}
}

static bool operand_views(Walk *walk, ViewExpr **ves, int n, View **v);

/* The views a cp or mma names (s->operands), each tmem one alive; false after an error. */
static bool
single_thread_operands(Walk *walk, Stmt *s, View **v)
{
	ViewExpr *ves[3];
	for (int i = 0; i < s->operands.n && i < 3; i++)
		ves[i] = LIST_AT(s->operands, ViewExpr, i);
	return operand_views(walk, ves, s->operands.n, v);
}

/* The views of n view expressions, each tmem one alive; false after an error. */
static bool
operand_views(Walk *walk, ViewExpr **ves, int n, View **v)
{
	for (int i = 0; i < n; i++) {
		ViewExpr *ve = ves[i];
		v[i] = viewexpr_eval(ve, false);
		if (!v[i])
			return false;
		v[i]->base->used = true;
		if (v[i]->base->kind == TK_TMEM && !protocol_alive(walk->proto, v[i]->base, ve->base, ve->loc))
			return false;
	}
	return true;
}

/* Whether threads of warps other than the issuing ones stored to src with no barrier since (LANGUAGE 11.3):
   then the cp or mma (`reader`, spelled op) would not see their stores; an error naming the store. */
static bool
stores_published(Walk *walk, const Tensor *src, const char *op, const char *reader, Loc loc)
{
	uint64_t warps = protocol_warps(walk->proto);
	for (int i = 0; i < walk->shared_writes.n; i++) {
		SharedWrite *sw = LIST_AT(walk->shared_writes, SharedWrite, i);
		if (sw->t != src || !(sw->warps & ~warps))
			continue;
		error(loc, "%s reads '%s', which threads of other warps store to at line %d with no cta_sync between; "
		           "the %s sees their stores only after a barrier", op, src->name, sw->loc.first_line, reader);
		note(sw->loc, "stored here; put cta_sync; between the stores and the %s", reader);
		return false;
	}
	return true;
}

static bool cp_issue(Walk *walk, Stmt *s, const CpForm *cf, const View *tv, const View *sv, const CpPlan *cp_plan);

/* apply tcgen05.cp...(tmem_view, shared_view); (LANGUAGE 11.5): checked element by element (cp.c), issued
   by one elected thread of the one warp that reaches it, pending until its commit's barrier is waited. */
static void
lower_cp(Walk *walk, Stmt *s)
{
	CpForm f;
	char why[256];
	if (!cp_form_parse(s->opcode, &f, why, sizeof why)) {
		error(s->opcode_loc, "%s", why);
		return;
	}
	const char *op = cp_form_spelling(&f);
	if (!s->no_scope) {
		error(s->scope_loc, "%s takes no scope: one elected thread issues it (apply %s(tmem_view, shared_view);)",
		      op, op);
		return;
	}
	int kernel_group = walk->pair_group == 2 ? 2 : 1;
	if (f.cta_group != kernel_group) {
		if (f.cta_group == 2 && (!walk->k->has_cluster || walk->k->cluster[0] % 2)) {
			error(s->opcode_loc, "%s works on a pair of CTAs of a cluster; kernel '%s' needs a cluster whose x extent "
			                     "is even, e.g. cluster = (2, 1, 1) in its launch(...)", op, walk->k->name);
			if (walk->k->has_cluster)
				note(walk->k->cluster_loc, "the cluster's x extent is %d here", walk->k->cluster[0]);
		} else
			error(s->opcode_loc, "%s in kernel '%s', whose tcgen05 instructions are cta_group::%d; write %s...", op,
			      walk->k->name, kernel_group, isa_name(TC_CP, kernel_group));
		return;
	}
	if (walk->dev) {
		error(s->loc, "%s in device function '%s'; a cp is issued in a kernel, where tilec follows its commit "
		              "and wait", op, walk->dev->name);
		return;
	}
	if (s->operands.n != 2) {
		error(s->loc, "%s takes two operands: apply %s(tmem_view, shared_view);", op, op);
		return;
	}
	View *v[2];
	if (!single_thread_operands(walk, s, v))
		return;
	CpPlan plan;
	if (!cp_apply_check(&f, v[0], v[1], s->loc, &plan))
		return;
	if (!single_thread_one_warp(walk, s, op, "it would be issued"))
		return;
	cp_issue(walk, s, &f, v[0], v[1], &plan);
}

/* An operand of an mma written as a stage of a stack of shared tiles chosen at run time (sa[k % S]: the ring
   of a pipelined mainloop): *stage the index's value, and *vep a copy of the view expression with its first
   index 0 (every stage has the same layout and descriptor but its start); *stage NULL for any other
   operand. False after an error. */
static bool
mma_stage(ViewExpr **vep, IExpr **stage)
{
	ViewExpr *ve = *vep;
	*stage = NULL;
	if (ve->ops.n < 1)
		return true;
	ViewOp *op = LIST_AT(ve->ops, ViewOp, 0);
	if (op->kind != VOP_SLICE || op->indices.n < 1 || LIST_AT(op->indices, SliceIndex, 0)->is_range)
		return true;
	SliceIndex *first = LIST_AT(op->indices, SliceIndex, 0);
	IExpr *value = sema_expr(first->index);
	int64_t c;
	if (!value)
		return false;
	if (ie_is_const(value, &c))
		return true;
	SliceIndex *zero = pool_alloc(sizeof *zero);
	*zero = *first;
	zero->index = pool_alloc(sizeof *zero->index);
	*zero->index = (Expr){.kind = E_INT, .loc = first->loc, .ival = 0};
	ViewOp *op0 = pool_alloc(sizeof *op0);
	*op0 = *op;
	op0->indices = (List){0};
	list_push(&op0->indices, zero);
	for (int i = 1; i < op->indices.n; i++)
		list_push(&op0->indices, LIST_AT(op->indices, SliceIndex, i));
	List ops = {0};
	list_push(&ops, op0);
	for (int i = 1; i < ve->ops.n; i++)
		list_push(&ops, LIST_AT(ve->ops, ViewOp, i));
	ViewExpr *at_zero = pool_alloc(sizeof *at_zero);
	*at_zero = *ve;
	at_zero->ops = ops;
	*vep = at_zero;
	*stage = value;
	return true;
}

/* A run-time stage of a stack of tiles: the operand a stage of the first dimension of a stacked shared tile,
   its index `e % S` with S at most the stages (an index from 0 up, such as a loop's variable, stays inside);
   false after an error at loc. */
static bool
mma_stage_fits(const View *v, const IExpr *stage, Loc loc)
{
	const Tensor *t = v->base;
	int64_t modulus;
	if (t->kind != TK_SHARED || !t->tile || t->rank != 3) {
		error(loc, "mma: an operand indexed at run time is a stage of a stack of shared tiles (shared s: T[S, R, C] "
		           "layout smem_tile(...); s[k %% S]); '%s' is not one", t->name);
		return false;
	}
	if (stage->kind != IE_BINARY || stage->op != OP_MOD || !ie_is_const(stage->b, &modulus) || modulus < 1 ||
	    modulus > t->dims[0]) {
		error(loc, "mma: the run-time stage of '%s' is written e %% S with a constant S from 1 to %d (its stages), so "
		           "that it stays inside the stack", t->name, t->dims[0]);
		return false;
	}
	return true;
}

/* The TMEM cells [lane0, lane0 + lanes) x [col0, col0 + cols) of tmem tensor t (lane0, col0 relative to it) that
   an mma issued by the current warp writes or reads, for the protocol. */
static TmemRect
mma_tmem_rect(Walk *walk, const Tensor *t, int lane0, int col0, int lanes, int cols)
{
	return (TmemRect){.space = t->alloc ? (const void *)t->alloc : (const void *)tmem_unknown_space,
	                  .param = t->alloc ? NULL : t->param_root ? t->param_root : t,
	                  .warp = protocol_fixed_warp(walk->proto) < 0 ? 0 : protocol_fixed_warp(walk->proto),
	                  .lane0 = t->lane_offset + lane0,
	                  .lanes = lanes,
	                  .col0 = t->col_offset + col0,
	                  .cols = cols};
}

/* The view expression of name (E_NAME) or name[i, ...] (E_INDEX: a slice of integers). */
static ViewExpr *
index_view_expr(const Expr *a)
{
	ViewExpr *v = pool_alloc(sizeof *v);
	v->base = a->name;
	v->loc = v->base_loc = a->loc;
	if (a->kind != E_INDEX)
		return v;
	ViewOp *op = pool_alloc(sizeof *op);
	op->kind = VOP_SLICE;
	op->loc = a->loc;
	for (int k = 0; k < a->args.n; k++) {
		SliceIndex *x = pool_alloc(sizeof *x);
		x->index = LIST_AT(a->args, Expr, k);
		x->loc = x->index->loc;
		list_push(&op->indices, x);
	}
	list_push(&v->ops, op);
	return v;
}

/* The view an mma's scale_a / scale_b names: a tensor, an element-indexed one (sft[s]) or a view expression. */
static bool
scale_views(Walk *walk, NamedArg **scale, View **sv)
{
	ViewExpr *ves[2];
	for (int i = 0; i < 2; i++) {
		Expr *e = scale[i]->value;
		if (e->kind == E_VIEW) {
			ves[i] = e->view;
			continue;
		}
		if (e->kind != E_NAME && e->kind != E_INDEX) {
			error(e->loc, "mma: %s is a tmem tensor or a view of one (a name, name[i] or name.view(...)), not an "
			              "expression", scale[i]->name);
			return false;
		}
		ves[i] = index_view_expr(e);
	}
	return operand_views(walk, ves, 2, sv);
}

/* The TMEM cells of scale operand v: every lane from its tensor's first, the columns its elements touch. */
static TmemRect
scale_rect(Walk *walk, const View *v)
{
	const Tensor *t = v->base;
	int lo = INT32_MAX, hi = -1, count = v->dims[0] * v->dims[1];
	for (int e = 0; e < count; e++)
		for (int k = 0; k < t->layout->nrep; k++) {
			int cell = LAYOUT_PLACE(t->layout, v->map[e], k)[AX_TCOL] / 4;
			lo = cell < lo ? cell : lo;
			hi = cell > hi ? cell : hi;
		}
	return mma_tmem_rect(walk, t, 0, lo, 128 - t->lane_offset, hi - lo + 1);
}

/* The scale factors an mma reads are complete (LANGUAGE 11.6): a cp that writes them was issued by the same
   warp (cp -> mma of one thread is pipelined) or waited; false after an error naming both lines. */
static bool
scales_complete(Walk *walk, View **sv, Loc loc)
{
	for (int i = 0; i < 2; i++) {
		TmemRect r = scale_rect(walk, sv[i]);
		if (!protocol_scales_ready(walk->proto, &r, i ? "scale_b" : "scale_a", loc))
			return false;
	}
	return true;
}

/* mma(D, A, B, accumulate = p) (LANGUAGE 11.6): checked by mma.c (kind, shape, D's datapath layout, each K
   step's descriptors element by element), issued by one elected thread of the one warp that reaches it: one
   instruction per K step, the first with p and the others accumulating; D pending until the commit's barrier
   is waited (then tcgen05.fence::after_thread_sync, as for cp). */
static void
lower_mma(Walk *walk, Stmt *s)
{
	Expr *accumulate = NULL;
	NamedArg *scale[2] = {NULL, NULL};
	for (int i = 0; i < s->named.n; i++) {
		NamedArg *na = LIST_AT(s->named, NamedArg, i);
		if (strcmp(na->name, "accumulate") == 0 && !accumulate) {
			accumulate = na->value;
			continue;
		}
		bool is_a = strcmp(na->name, "scale_a") == 0;
		if ((is_a || strcmp(na->name, "scale_b") == 0) && !scale[is_a ? 0 : 1]) {
			scale[is_a ? 0 : 1] = na;
			continue;
		}
		error(na->loc, "mma takes the named arguments accumulate = p (once), scale_a = SFA and scale_b = SFB, not '%s'",
		      na->name);
		return;
	}
	if (!accumulate) {
		error(s->loc, "mma needs accumulate = p: true adds A * B to D, false overwrites D (mma(D, A, B, accumulate = "
		              "0);)");
		return;
	}
	if (!scale[0] != !scale[1]) {
		error(scale[0] ? scale[0]->loc : scale[1]->loc, "mma: %s without %s; a block-scaled mma takes both "
		      "(mma(D, A, B, accumulate = p, scale_a = SFA, scale_b = SFB);)", scale[0] ? "scale_a" : "scale_b",
		      scale[0] ? "scale_b" : "scale_a");
		return;
	}
	IExpr *stage[3] = {NULL, NULL, NULL};
	ViewExpr *ves[3];
	for (int i = 0; i < 3; i++) {
		ves[i] = LIST_AT(s->operands, ViewExpr, i);
		if (i > 0 && !mma_stage(&ves[i], &stage[i]))
			return;
	}
	View *v[3];
	if (!operand_views(walk, ves, 3, v))
		return;
	for (int i = 1; i < 3; i++)
		if (stage[i] && !mma_stage_fits(v[i], stage[i], LIST_AT(s->operands, ViewExpr, i)->loc))
			return;
	IExpr *p = sema_expr(accumulate);
	if (!p)
		return;
	if (p->type == T_F32) {
		error(accumulate->loc, "mma: accumulate = p is an integer condition (nonzero: add to D), not an f32 value");
		return;
	}
	MmaInstr in;
	MmaStep *steps;
	int nsteps, lane0, col0, group = walk->pair_group == 2 ? 2 : 1;
	if (!mma_check(v[0], v[1], v[2], s->loc, &in, &steps, &nsteps, &lane0, &col0, group))
		return;
	View *sv[2] = {NULL, NULL};
	if (scale[0] && (in.a_tmem || group == 2)) {
		error(s->loc, "mma: a block-scaled mma %s; tilec issues block-scaled mmas with A from a shared tile, "
		              "cta_group::1", in.a_tmem ? "with A in TMEM" : "in a cta_group::2 kernel");
		return;
	}
	if (scale[0] && (!scale_views(walk, scale, sv) || !mma_scale_check(sv[0], sv[1], nsteps, s->loc, &in, steps) ||
	                 !scales_complete(walk, sv, s->loc)))
		return;
	if (!single_thread_one_warp(walk, s, "mma", "it would be issued"))
		return;
	for (int k = in.a_tmem ? 2 : 1; k < 3; k++)
		if ((group == 2 && !pair_published(walk, v[k]->base, "the cta_group::2 mma", s->loc)) ||
		    !stores_published(walk, v[k]->base, "mma", "mma", s->loc))
			return;
	Tensor *t = v[0]->base;
	int d_cols = group == 2 && in.m == 128 ? in.n / 2 : in.n;
	TmemRect r = mma_tmem_rect(walk, t, lane0, col0, in.m == 128 || group == 2 ? 128 : 112,
	                           d_cols * etype_bits(in.dtype) / 32);
	int a_lane0 = 0, a_col0 = 0;
	TmemRect ar = {0};
	if (mma_a_tmem_origin(v[1], &a_lane0, &a_col0)) {
		ar = mma_tmem_rect(walk, v[1]->base, a_lane0, a_col0, 128, in.k * nsteps * etype_bits(in.atype) / 32);
		if (ar.space == r.space && ar.param == r.param && ar.col0 < r.col0 + r.cols && r.col0 < ar.col0 + ar.cols) {
			error(s->loc, "mma: D '%s' and A '%s' share TMEM column %d; the mma would write cells it reads",
			      v[0]->name, v[1]->name, ar.col0 > r.col0 ? ar.col0 : r.col0);
			return;
		}
		bool ready = protocol_mma_a_ready(walk->proto, &ar, s->loc);
		place_waits(walk); /* the copies' waits it placed, also before an error about another warp */
		if (!ready)
			return;
	}
	if (!protocol_async_reads_free(walk->proto, &r, "the mma's D", s->loc))
		return;
	place_waits(walk);
	explain_note(s->loc, "%s: M %d, N %d, K %d as %d instruction%s of K %d (the first with accumulate = p, the others "
	                     "accumulating), issued by one thread elect.sync picks%s; instruction descriptor %s",
	             mma_instr_spelling(group, &in), in.m, in.n, in.k * nsteps, nsteps, nsteps == 1 ? "" : "s", in.k,
	             group == 2 ? " in the even CTA of the pair (block_idx.x % 2 == 0), writing D in both CTAs' TMEM" : "",
	             in.scale_vec ? mma_scaled_idesc_text(in.idesc) : mma_idesc_text(in.idesc));
	if (in.a_tmem)
		explain_note(s->loc, "A '%s' from TMEM (the ts form): K step k reads lanes 0..127, columns %d + %d k .. "
		                     "%d + %d k of '%s' (%d elements of %s per 32-bit column)",
		             v[1]->name, a_col0, ar.cols / nsteps, a_col0 + ar.cols / nsteps - 1, ar.cols / nsteps,
		             v[1]->base->name, 32 / etype_bits(in.atype), etype_name(in.atype));
	for (int k = 0; in.scale_vec && k < nsteps; k++)
		explain_note(s->loc, "K step %d: scale_a '%s' at TMEM cell column %d, scale_b '%s' at cell column %d (relative "
		                     "to their bases), instruction descriptor %s", k, sv[0]->name, steps[k].sf_col[0],
		             sv[1]->name, steps[k].sf_col[1], mma_scaled_idesc_text(steps[k].idesc));
	for (int k = 0; k < nsteps; k++)
		for (int o = in.a_tmem; o < 2; o++) {
			SmemDesc d = o ? steps[k].b : steps[k].a;
			uint64_t bits;
			if (!smem_desc_encode(&d, &bits))
				fatal("mma: the descriptor mma_check derived does not encode");
			explain_note(s->loc, "K step %d, %s '%s': shared descriptor 0x%016llx plus the address of '%s' >> 4: start "
			                     "'%s' + %u, LBO %u, SBO %u, layout %s (code %d), base offset 0",
			             k, o ? "B" : "A", v[1 + o]->name, (unsigned long long)bits, v[1 + o]->base->name,
			             v[1 + o]->base->name, d.start, d.lbo, d.sbo, smem_swizzle_info(d.swizzle)->name,
			             smem_swizzle_info(d.swizzle)->code);
		}
	List *out = group == 2 ? pair_even_open(walk, s->loc) : walk->out;
	walk->pair_issued |= group == 2;
	for (int k = 0; k < nsteps; k++) {
		LStmt *l = emit(walk, L_TC, s->loc);
		l->instr = isa_instr(TC_MMA);
		l->cta_group = group;
		MmaInstr *step_in = pool_alloc(sizeof *step_in);
		*step_in = in;
		step_in->step = k;
		l->mma = step_in;
		l->mbar_elect = elected_lane(walk, &l->elect_lane);
		l->comment = k == 0 ? source_line_of(s->loc, true) : pool_printf("K step %d", k);
		LOperand *ta = tc_add_operand(l, IO_TMEM_ADDR);
		ta->addr = ie_binary(OP_ADD, tmem_base_addr(t), ie_int(((int64_t)lane0 << 16) + col0, T_U32));
		if (in.a_tmem) /* a second TMEM address, after D's (isa.c's row names D's); each K step reads the next 32
		                  bytes of every row: 8 columns */
			l->ops[l->nops++] = (LOperand){.slot = ta->slot,
			                               .addr = ie_binary(OP_ADD, tmem_base_addr(v[1]->base),
			                                                 ie_int(((int64_t)a_lane0 << 16) + a_col0 +
			                                                            k * (ar.cols / nsteps), T_U32))};
		const SmemDesc *descs[2] = {&steps[k].a, &steps[k].b};
		for (int o = in.a_tmem; o < 2; o++) {
			SmemDesc d = *descs[o];
			uint32_t start = d.start;
			d.start = 0;
			uint64_t bits;
			if (!smem_desc_encode(&d, &bits))
				fatal("mma: the descriptor mma_check derived does not encode");
			LOperand *da = tc_add_operand(l, IO_SHARED_DESC64);
			IExpr *saddr = ie_new(IE_SADDR, T_U32);
			saddr->tensor = v[1 + o]->base;
			/* a stage chosen at run time: the address of its first element (the tiles of a stack are alike) */
			const SmemTile *tile = v[1 + o]->base->tile;
			saddr->index = stage[1 + o] ? ie_binary(OP_MUL, ie_convert(stage[1 + o], T_I32),
			                                        ie_int((int64_t)tile->rows * tile->cols, T_I32))
			                            : ie_int(0, T_I32);
			da->addr = start ? ie_binary(OP_ADD, saddr, ie_int(start, T_U32)) : saddr;
			da->desc = bits;
			da->imm = start;
		}
		if (in.scale_vec)
			step_in->idesc = steps[k].idesc;
		tc_add_operand(l, IO_INSTR_DESC32)->imm = step_in->idesc;
		tc_add_operand(l, IO_PRED)->addr = k == 0 ? p : ie_int(1, T_U32);
		for (int o = 0; in.scale_vec && o < 2; o++)
			tc_add_operand(l, IO_TMEM_ADDR)->addr =
				ie_binary(OP_ADD, tmem_base_addr(sv[o]->base), ie_int(steps[k].sf_col[o], T_U32));
		protocol_async_issue(walk->proto, l->instr, &r, s->loc);
		protocol_async_reads(walk->proto, in.a_tmem ? NULL : v[1]->base, stage[1] ? -1 : view_stage(v[1]),
		                     v[2]->base, stage[2] ? -1 : view_stage(v[2]));
		if (in.a_tmem)
			protocol_async_reads_tmem(walk->proto, &ar);
		for (int o = 0; in.scale_vec && o < 2; o++) {
			TmemRect sr = scale_rect(walk, sv[o]);
			protocol_async_scale_reads(walk->proto, &sr, s->loc);
		}
	}
	walk->out = out;
}

/* One cp of a checked form and plan, after the ordering checks: its instruction, issued by one elected lane. */
static bool
cp_issue(Walk *walk, Stmt *s, const CpForm *cf, const View *tv, const View *sv, const CpPlan *cp_plan)
{
	CpForm f = *cf;
	CpPlan plan = *cp_plan;
	const char *op = cp_form_spelling(&f);
	Tensor *t = tv->base, *src = sv->base;
	if ((f.cta_group == 2 && !pair_published(walk, src, op, s->loc)) || !stores_published(walk, src, op, "cp", s->loc))
		return false;
	TmemRect r = {.space = t->alloc ? (const void *)t->alloc : (const void *)tmem_unknown_space,
	              .param = t->alloc ? NULL : t->param_root ? t->param_root : t,
	              .warp = protocol_fixed_warp(walk->proto) < 0 ? 0 : protocol_fixed_warp(walk->proto),
	              .lane0 = t->lane_offset + plan.lane0,
	              .lanes = cp_lane(f.route, cp_rows(f.route) - 1, cp_replicas(f.route) - 1) + 1,
	              .col0 = t->col_offset + plan.col0,
	              .cols = cp_tmem_cols(f.route)};
	if (!protocol_async_free(walk->proto, &r, s->loc) || !protocol_cp_cells_free(walk->proto, &r, s->loc))
		return false;
	place_waits(walk);
	SmemDesc d = plan.desc;
	uint32_t start = d.start;
	d.start = 0;
	uint64_t bits;
	if (!smem_desc_encode(&d, &bits))
		fatal("%s: the descriptor cp_match derived does not encode", op);
	List *out = f.cta_group == 2 ? pair_even_open(walk, s->loc) : walk->out;
	walk->pair_issued |= f.cta_group == 2;
	LStmt *l = emit(walk, L_TC, s->loc);
	l->instr = isa_instr(TC_CP);
	l->cta_group = f.cta_group;
	CpForm *form = pool_alloc(sizeof *form);
	*form = f;
	l->cp = form;
	l->mbar_elect = elected_lane(walk, &l->elect_lane);
	l->comment = source_line_of(s->loc, true);
	LOperand *ta = tc_add_operand(l, IO_TMEM_ADDR);
	ta->addr = ie_binary(OP_ADD, tmem_base_addr(t),
	                     ie_int(((int64_t)plan.lane0 << 16) + plan.col0, T_U32));
	LOperand *da = tc_add_operand(l, IO_SHARED_DESC64);
	IExpr *saddr = ie_new(IE_SADDR, T_U32);
	saddr->tensor = src;
	saddr->index = ie_int(0, T_I32);
	da->addr = start ? ie_binary(OP_ADD, saddr, ie_int(start, T_U32)) : saddr;
	da->desc = bits;
	da->imm = start;
	walk->out = out;
	protocol_async_issue(walk->proto, l->instr, &r, s->loc);
	return true;
}

/* One step of the barrier of a copy into TMEM: the init and the commit in one elected lane, the fence of the
   init and the wait in every thread that runs it. */
static void
cp_barrier_step(Walk *walk, Loc loc, IExpr *addr, MbarOp op, TcKind row)
{
	LStmt *l = emit(walk, L_MBAR, loc);
	l->mbar_op = op;
	l->instr = isa_instr(row);
	l->tensor = addr->tensor;
	l->index = addr->index;
	l->mbar = addr;
	l->value = op == MB_INIT ? ie_int(1, T_U32) : op == MB_WAIT ? ie_int(0, T_U32) : NULL;
	l->mbar_elect = op == MB_INIT || op == MB_COMMIT;
	l->cta_group = op == MB_COMMIT ? 1 : 0;
}

/* if (warp_id == first) { ... }: what follows, until walk->out is set back, in that warp only. */
static void
cp_first_warp(Walk *walk, Loc loc, int first)
{
	LStmt *branch = emit(walk, L_IF, loc);
	branch->cond = ie_binary(OP_EQ, ie_builtin(B_WARP_ID), ie_int(first, T_I32));
	walk->out = &branch->body;
}

/* copy(tmem_view, shared_view) (LANGUAGE 11.5): the cps of the form cp.c chose, issued by one elected lane of
   the one warp that reaches it, or of the first warp where every warp of the CTA does (a loop around a copy is
   unrolled: each trip its own barrier), completed at the copy itself through a barrier of tilec's own: init
   (with its fence, and __syncwarp so that every lane of the warp sees it, or a barrier of the CTA so that
   every warp does), the cps, their commit, then each thread that reached the copy waits and fences
   (tcgen05.fence::after_thread_sync) before its next statement. */
static void
lower_copy_cp(Walk *walk, Stmt *s, View *tv, View *sv)
{
	const char *what = pool_printf("copy(%s, %s)", tv->name, sv->name);
	if (walk->dev) {
		error(s->loc, "%s in device function '%s'; a cp is issued in a kernel, where tilec follows its commit "
		              "and wait", what, walk->dev->name);
		return;
	}
	if (s->has_scope && !s->scope_auto) {
		error(s->scope_loc, "%s into TMEM takes no scope: one elected thread issues its cps", what);
		return;
	}
	if (!protocol_alive(walk->proto, tv->base, tv->base->name, s->loc))
		return;
	if (walk->pair_group == 2) {
		/* the pair's cp is the even CTA's, and the barrier it completes on must be the odd CTA's too, published
		   by a cluster_sync that one warp cannot run */
		error(s->loc, "%s into TMEM in kernel '%s', a cta_group::2 kernel: copy does not issue the pair's cp yet", what,
		      walk->k->name);
		note(s->loc, "write apply %s...(tmem_view, shared_view); then commit(b); on a barrier that a cluster_sync "
		             "published, and %s.%s(b, parity); in both CTAs (docs/cp.md)", isa_name(TC_CP, 2),
		     etype_name(T_MBARRIER), mbar_op_name(MB_WAIT));
		return;
	}
	CpForm f;
	CpPlan *plans;
	int count;
	if (!cp_copy_choose(tv, sv, s->loc, &f, &plans, &count))
		return;
	int threads = mbar_threads(walk);
	uint64_t warps = protocol_warps(walk->proto);
	/* several warps: every warp of the CTA, as a barrier of the CTA publishes the init of tilec's barrier */
	bool several = threads > 0 && (warps & (warps - 1));
	if (threads <= 0 || (several && threads != walk->k->threads)) {
		error(s->loc, "%s into TMEM is reached by %s; tilec issues its cps from one warp and waits for them in that "
		              "warp, or in every warp of the CTA after a barrier of the CTA", what,
		      threads <= 0 ? "threads tilec cannot count"
		                   : pool_printf("%d of the CTA's %d warps", __builtin_popcountll(warps),
		                                 (walk->k->threads + 31) / 32));
		note(s->loc, "put it under a condition that one warp takes, such as if (warp_id == 0), or where every "
		             "thread of the CTA reaches it");
		return;
	}
	if (!protocol_uniform(walk->proto, s->loc, pool_printf("%s into TMEM (its barrier's init reaches the warp's "
	                                                       "lanes through __syncwarp)", what)))
		return;
	Tensor *bar = tensor_new(TK_SHARED, pool_printf("the barrier of %s", what), s->loc, T_MBARRIER);
	bar->rank = 1;
	bar->dims[0] = 1;
	bar->count = 1;
	bar->cname = pool_printf("tl_cp_bar_%d_%d", s->loc.first_line, s->loc.first_column);
	walk->shared_bytes += 16;
	if (walk->shared_bytes > MAX_SHARED_BYTES) {
		error(s->loc, "shared memory of kernel '%s' reaches %lld bytes with '%s' (%lld bytes); a block has at "
		              "most %d bytes (227 KB)", walk->k->name, (long long)walk->shared_bytes, bar->cname, 16LL,
		      MAX_SHARED_BYTES);
		return;
	}
	emit(walk, L_SHARED, s->loc)->tensor = bar;
	IExpr *addr = ie_new(IE_SADDR, T_U32);
	addr->tensor = bar;
	addr->index = ie_int(0, T_I32);
	List *out = walk->out;
	int first_warp = __builtin_ctzll(warps);
	if (several)
		cp_first_warp(walk, s->loc, first_warp);
	cp_barrier_step(walk, s->loc, addr, MB_INIT, TC_MB_INIT);
	cp_barrier_step(walk, s->loc, addr, MB_FENCE_INIT, TC_MB_FENCE_INIT);
	if (several) {
		/* the init reaches the other warps, and the threads' stores to the source the cps, through the barrier */
		walk->out = out;
		Stmt sync = {.kind = S_CTA_SYNC, .loc = s->loc};
		lower_barrier(walk, &sync, L_BARRIER);
		cp_first_warp(walk, s->loc, first_warp);
	} else {
		emit(walk, L_WARP_SYNC, s->loc);
	}
	for (int k = 0; k < count; k++)
		if (!cp_issue(walk, s, &f, tv, sv, &plans[k])) {
			walk->out = out;
			return;
		}
	protocol_commit(walk->proto, bar, addr->index, s->loc);
	cp_barrier_step(walk, s->loc, addr, MB_COMMIT, TC_COMMIT);
	walk->out = out;
	cp_barrier_step(walk, s->loc, addr, MB_WAIT, TC_MB_TRY_WAIT);
	if (protocol_mbar_wait(walk->proto, bar, addr->index)) {
		LStmt *fence = emit(walk, L_FENCE, s->loc);
		fence->instr = isa_instr(TC_FENCE_AFTER);
		fence->mbar_op = MB_WAIT;
	}
	walk->shared_writes.n = 0;
	explain_note(s->loc, "%s: %d %s (%s) issued by one elected lane%s, committed to tilec's barrier %s and waited "
	             "here by %s", what, count, count == 1 ? "cp" : "cps", cp_form_spelling(&f),
	             several ? pool_printf(" of warp %d (its init published by a barrier of the CTA)", first_warp) : "",
	             bar->cname, several ? "every warp" : "the warp");
}

/* A let: a constant folded into the name, or a variable of the generated code. */
static void
lower_let(Walk *walk, Stmt *s)
{
	IExpr *v = sema_expr(s->value);
	if (!v) {
		sym_poison(s->name, s->name_loc);
		return;
	}
	protocol_read(walk->proto, v, s->value->loc);
	place_waits(walk);
	if (v->type == T_F32) {
		error(s->value->loc, "let binds an i32 or u32 value; for a float write var %s: f32 = ...", s->name);
		sym_poison(s->name, s->name_loc);
		return;
	}
	Sym *sym = sym_declare(SYM_VALUE, s->name, s->name_loc);
	if (!sym)
		return;
	if (v->kind == IE_INT) {
		sym->value = v;
		sym->per_iteration = names_iteration(s->value);
		return;
	}
	Var *var = pool_alloc(sizeof *var);
	var->name = s->name;
	var->cname = cname_for(walk, s->name);
	var->type = v->type;
	var->is_let = true;
	var->def = v;
	var->varying = ie_varying(v);
	sym->value = ie_var(var, v->type);
	LStmt *l = emit(walk, L_LET, s->loc);
	l->var = var;
	l->value = v;
}

static void
lower_var(Walk *walk, Stmt *s)
{
	IExpr *v = s->value ? sema_expr(s->value) : NULL;
	if (s->value && !v) {
		sym_poison(s->name, s->name_loc);
		return;
	}
	if (v)
		protocol_read(walk->proto, v, s->value->loc);
	place_waits(walk);
	Sym *sym = sym_declare(SYM_VAR, s->name, s->name_loc);
	if (!sym)
		return;
	Var *var = pool_alloc(sizeof *var);
	var->name = s->name;
	var->cname = cname_for(walk, s->name);
	var->type = s->type;
	var->varying = (v && ie_varying(v)) || protocol_varying(walk->proto);
	var->per_thread = (v && ie_per_thread(v)) || protocol_split(walk->proto);
	sym->var = var;
	if (s->type == T_F16)
		walk->k->uses_f16 = true;
	if (s->type == T_BF16)
		walk->k->uses_bf16 = true;
	LStmt *l = emit(walk, L_VAR, s->loc);
	l->var = var;
	l->value = v ? ie_convert(v, s->type) : NULL;
}

static void
lower_view(Stmt *s)
{
	View *v = viewexpr_eval(s->view, false);
	if (!v) {
		/* reported now, or quiet because it views a declaration that failed: its uses stay quiet */
		sym_poison(s->name, s->name_loc);
		return;
	}
	Sym *sym = sym_declare(SYM_VIEW, s->name, s->name_loc);
	if (sym) {
		View *named = pool_alloc(sizeof *named);
		*named = *v;
		named->name = s->name;
		sym->view = named;
	}
}

static void
lower_if(Walk *walk, Stmt *s)
{
	IExpr *cond = sema_expr(s->value);
	if (!cond) {
		walk->skipped = true;
		return;
	}
	protocol_read(walk->proto, cond, s->value->loc);
	place_waits(walk);
	int64_t taken;
	if (ie_is_const(cond, &taken) && names_iteration(s->value)) {
		/* this iteration of an unrolled loop never runs the other side: it is not lowered, so what it
		   does only in other iterations (a slice at j - 1 under j > 0) is no error here */
		LStmt *block = emit(walk, L_BLOCK, s->loc);
		lower_nested(walk, &block->body, taken ? &s->body : &s->else_body);
		if (block->body.n == 0)
			walk->out->n--;
		return;
	}
	if (may_place_wait(&s->body) || may_place_wait(&s->else_body))
		complete_staged(walk, s->loc);
	LStmt *l = emit(walk, L_IF, s->loc);
	l->cond = cond;
	ProtoFork *f = protocol_if(walk->proto, cond, s->value->loc);
	List *split_list;
	int split_at;
	split_enter(walk, &split_list, &split_at);
	int depth = walk->nconds++;
	if (depth < MAX_CONDS) {
		walk->conds[depth] = cond;
		walk->cond_negated[depth] = false;
	}
	lower_branch(walk, &l->body, &s->body, s->loc);
	protocol_else(walk->proto, f);
	if (depth < MAX_CONDS)
		walk->cond_negated[depth] = true;
	if (s->has_else)
		lower_branch(walk, &l->els, &s->else_body, s->loc);
	walk->nconds = depth;
	split_leave(walk, split_list, split_at);
	protocol_join(walk->proto, f);
}

/* After a copy between registers and memory lowered its moves into walk->out from at on. */
static void
copy_moves_lowered(Walk *walk, Stmt *s, int at)
{
	/* registers <-> memory: the reads and writes of registers, waits before them */
	walk->wait_at = at;
	for (int i = at; i < walk->out->n; i++)
		copy_moves_protocol(walk, LIST_AT(*walk->out, LStmt, i), s->loc);
	walk->wait_at = -1;
	/* a copy whose owners are the threads the copy just before tested joins its test: the
	   registers loaded under one test are stored under it, not kept live across two */
	for (int i = at > 0 ? at : 1; i < walk->out->n; i++) {
		LStmt *prev = LIST_AT(*walk->out, LStmt, i - 1), *l = LIST_AT(*walk->out, LStmt, i);
		if (l->owner_test && prev->owner_test && ie_equal(prev->cond, l->cond)) {
			for (int j = 0; j < l->body.n; j++)
				list_push(&prev->body, l->body.v[j]);
			memmove(&walk->out->v[i], &walk->out->v[i + 1], sizeof(void *) * (size_t)(walk->out->n - i - 1));
			walk->out->n--;
			i--;
		}
	}
}

/* An apply, or a copy (copy.c): between tmem and registers its tcgen05 instructions as an apply's,
   between registers and memory its moves. */
/* copy ... reduce where no tcgen05.ld.red does it: each result slot of m from its row's registers, after
   the copy (reading them places the copy's wait for loads). */
static void
lower_copy_reduce_fold(Walk *walk, Stmt *s, const CopyReducePlan *plan)
{
	for (int k = 0; k < plan->nslots; k++) {
		if (plan->thread_of[k] < 0)
			continue;
		IExpr *v = copy_reduce_value(plan, k);
		protocol_read(walk->proto, v, s->loc);
		place_waits(walk);
		protocol_reg_write(walk->proto, plan->m, k, s->loc);
		place_waits(walk);
		LStmt *l = emit(walk, L_REG_STORE, s->loc);
		l->tensor = plan->m;
		l->slot = k;
		l->value = ie_convert(v, plan->m->type);
	}
}

static void
lower_apply(Walk *walk, Stmt *s)
{
	View *ops[8];
	if (s->operands.n > 8) {
		error(s->loc, "too many operands");
		return;
	}
	for (int i = 0; i < s->operands.n; i++) {
		ops[i] = viewexpr_eval(LIST_AT(s->operands, ViewExpr, i), s->kind == S_COPY);
		if (!ops[i])
			return;
		ops[i]->base->used = true;
		if (ops[i]->base->kind == TK_TMEM &&
		    !protocol_alive(walk->proto, ops[i]->base, LIST_AT(s->operands, ViewExpr, i)->base,
		                    LIST_AT(s->operands, ViewExpr, i)->loc))
			return;
	}
	bool copy = s->kind == S_COPY;
	/* tcgen05.ld / st are .sync.aligned; a copy between registers and memory is per thread */
	bool tc = !copy || (s->operands.n == 2 && (ops[0]->base->kind == TK_TMEM || ops[1]->base->kind == TK_TMEM));
	if (tc && !protocol_uniform(walk->proto, s->loc, copy ? "copy" : "apply"))
		return;
	ApplyCtx ctx = {0};
	/* a copy's load always gets its wait, placed by tilec; only a load asks (no scan for every store) */
	Opcode op;
	ctx.can_defer = copy || (walk->cur_list && opcode_parse(s->opcode, &op, NULL, 0) && op.is_ld &&
	                         wait_ld_follows(walk->cur_list, walk->cur_index));
	ctx.kernel = walk->k;
	ctx.observer = walk->file->observer;
	ctx.arch = walk->file->arch;
	ctx.warps = protocol_warps(walk->proto);
	ctx.whole_warps = protocol_whole_warps(walk->proto);
	ctx.fixed_warp = protocol_fixed_warp(walk->proto);
	ctx.unit_warps = ctx.fixed_warp < 0 ? unit_fixed_warps(walk) : 0;
	ctx.unit = walk->dev && walk->dev->scope != SCOPE_CTA;
	ctx.unit_size = !walk->dev || !walk->dev->lowering ? 0 : walk->dev->scope == SCOPE_WARP ? 1
	                : walk->dev->scope == SCOPE_WARPGROUP ? 4 : 0;
	CopyChoice choice;
	int at = walk->out->n;
	if (copy && !tc && !within_copy_budget(walk, s, ops[0]->count))
		return;
	CopyReducePlan plan;
	bool reducing = copy && s->reduce_into, on_ld_red = false, copied = false;
	if (reducing) {
		View *m = viewexpr_eval(s->reduce_into, false);
		if (!m || !copy_reduce_plan(s, ops[0], m, walk->k->threads, &plan) || !copy_reduce_threads(&plan, s, ctx.warps))
			return;
		m->base->used = true;
	}
	if (copy && (copied = copy_lower(s, ops[0], ops[1], &ctx, walk->out, &choice)) && !choice.is_tc) {
		copy_moves_lowered(walk, s, at);
		if (ops[0]->base->kind == TK_SHARED)
			note_shared_write(walk, ops[0]->base, view_stage(ops[0]), s->loc);
	}
	if (copy ? choice.is_tc
	         : (!ctx.observer || ctx.observer->apply(s, ops, s->operands.n, &ctx)) &&
	               apply_lower(s, ops, s->operands.n, &ctx, walk->out)) {
		on_ld_red = reducing && copy_reduce_use_ld_red(&plan, walk->out, at, &ctx);
		/* waits this one depends on go before its instructions */
		walk->wait_at = at;
		protocol_apply(walk->proto, s->loc, &ctx, copy);
		place_waits(walk);
		walk->wait_at = -1;
		apply_check_replicas(s, &ctx);
		for (int k = 0; k < ctx.after_wait.n; k++)
			list_push(&walk->after_wait, ctx.after_wait.v[k]);
	}
	if (reducing && copied && on_ld_red)
		explain_note(s->loc, "reduce %s(%s): each of these loads is %s into '%s'", s->reduce_op,
		             s->reduce_into->base, isa_name(TC_LD_RED, 0), plan.m->name);
	if (reducing && copied && !on_ld_red) {
		explain_note(s->loc, "reduce %s(%s): after the copy each thread folds %s over the %d registers of each row "
		             "(%s)", s->reduce_op, s->reduce_into->base, s->reduce_op, plan.ncols,
		             !walk->file->arch->ld_red ? pool_printf("-arch=%s has no %s", walk->file->arch->name,
		                                                     isa_name(TC_LD_RED, 0))
		                                       : pool_printf("its loads are no %s: a load of part of a row, "
		                                                     "another shape or a copy from memory",
		                                                     isa_name(TC_LD_RED, 0)));
		lower_copy_reduce_fold(walk, s, &plan);
	}
}

/* cta_sync with the fences fence_mark asked for around it. */
static void
lower_cta_sync(Walk *walk, Stmt *s)
{
	if (walk->dev && walk->dev->scope != SCOPE_CTA) {
		error(s->loc, "cta_sync in device function '%s' of scope %s; only a function of scope cta, which every "
		              "thread of the CTA calls, may synchronise the CTA", walk->dev->name,
		      walk->dev->scope == SCOPE_WARP ? "warp" : "warpgroup");
		return;
	}
	lower_barrier(walk, s, L_BARRIER);
}

static void
lower_block(Walk *walk, Stmt *s)
{
	LStmt *l = emit(walk, L_BLOCK, s->loc);
	lower_nested(walk, &l->body, &s->body);
}

/* copy(global, shared) with a tma global tensor: a TMA store (the names as declared). */
static bool
copy_is_tma_store(const Stmt *s)
{
	if (s->operands.n != 2 || s->reduce_into || s->has_scope)
		return false;
	Sym *d = sym_lookup(LIST_AT(s->operands, ViewExpr, 0)->base);
	Sym *src = sym_lookup(LIST_AT(s->operands, ViewExpr, 1)->base);
	const Tensor *st = src && src->kind == SYM_TENSOR ? src->tensor : src && src->kind == SYM_VIEW ? src->view->base : NULL;
	return d && d->kind == SYM_TENSOR && d->tensor->kind == TK_GLOBAL && d->tensor->tma && st && st->kind == TK_SHARED;
}

/* copy(tmem, shared): a copy that tcgen05.cp makes (the names as declared; a wrong one is copy's error). */
static bool
copy_is_cp(const Stmt *s)
{
	if (s->operands.n != 2 || s->reduce_into)
		return false;
	Sym *d = sym_lookup(LIST_AT(s->operands, ViewExpr, 0)->base);
	Sym *src = sym_lookup(LIST_AT(s->operands, ViewExpr, 1)->base);
	return d && src && d->kind == SYM_TENSOR && src->kind == SYM_TENSOR && d->tensor->kind == TK_TMEM &&
	       src->tensor->kind == TK_SHARED;
}

static void
lower_stmt(Walk *walk, Stmt *s)
{
	switch (s->kind) {
	case S_LET:
		lower_let(walk, s);
		return;
	case S_VAR:
		lower_var(walk, s);
		return;
	case S_SHARED:
	case S_LOCAL:
	case S_TMEM:
		lower_decl(walk, s);
		return;
	case S_VIEW:
		lower_view(s);
		return;
	case S_ASSIGN:
		tma_wait_before_write(walk, s);
		lower_assign(walk, s);
		return;
	case S_IF:
		lower_if(walk, s);
		return;
	case S_FOR:
		lower_for(walk, s);
		return;
	case S_APPLY:
		/* a cp form, or any cp spelling written without a scope; one with a scope that is no form stays the
		   load-or-store apply it was meant as */
		if (s->opcode && isa_family(s->opcode) && isa_family(s->opcode)->kind == TC_CP &&
		    (s->no_scope || cp_form_parse(s->opcode, &(CpForm){0}, NULL, 0))) {
			lower_cp(walk, s);
			return;
		}
		if (s->no_scope) {
			error(s->opcode_loc, "apply of a %s or %s names the threads that execute it: apply %s(...) scope warp;",
			      isa_name(TC_LD, 0), isa_name(TC_ST, 0), s->opcode);
			return;
		}
		lower_apply(walk, s);
		return;
	case S_COPY:
		tma_wait_before_write(walk, s);
		if (s->tma_bar) {
			lower_tma_load(walk, s);
			return;
		}
		if (copy_is_tma_store(s)) {
			lower_tma_store(walk, s);
			return;
		}
		if (copy_is_cp(s)) {
			View *tv = viewexpr_eval(LIST_AT(s->operands, ViewExpr, 0), false);
			View *sv = tv ? viewexpr_eval(LIST_AT(s->operands, ViewExpr, 1), false) : NULL;
			if (sv) {
				tv->base->used = sv->base->used = true;
				lower_copy_cp(walk, s, tv, sv);
			}
			return;
		}
		lower_apply(walk, s);
		return;
	case S_INSTR:
		lower_instr(walk, s);
		return;
	case S_CALL:
		lower_call(walk, s);
		return;
	case S_CTA_SYNC:
		lower_cta_sync(walk, s);
		return;
	case S_NAMED_BAR:
		lower_named_bar(walk, s);
		return;
	case S_MBAR:
		lower_mbar(walk, s);
		return;
	case S_REDUCE:
		lower_reduce(walk, s);
		return;
	case S_MMA:
		lower_mma(walk, s);
		return;
	case S_WARP_SYNC:
		/* __syncwarp() names every lane: those a branch leaves out would never arrive (undefined in CUDA) */
		if (!protocol_uniform(walk->proto, s->loc, "warp_sync"))
			return;
		emit(walk, L_WARP_SYNC, s->loc);
		return;
	case S_BLOCK:
		lower_block(walk, s);
		return;
	}
}

static bool
is_wait_ld(const Stmt *s)
{
	const IsaInstr *in = s->kind == S_INSTR ? stmt_instr(s, NULL) : NULL;
	return in && in->kind == TC_WAIT_LD;
}

/* True when statement i of the list is followed, with no control flow between, by a wait for loads. */
static bool
wait_ld_follows(List *stmts, int i)
{
	for (int j = i + 1; j < stmts->n; j++) {
		Stmt *s = LIST_AT(*stmts, Stmt, j);
		if (is_wait_ld(s))
			return true;
		if (s->kind == S_IF || s->kind == S_FOR || s->kind == S_BLOCK)
			return false;
	}
	return false;
}

static void
lower_stmts(Walk *walk, List *stmts)
{
	List *saved_list = walk->cur_list;
	int saved_index = walk->cur_index;
	walk->cur_list = stmts;
	for (int i = 0; i < stmts->n; i++) {
		walk->cur_index = i;
		Stmt *s = LIST_AT(*stmts, Stmt, i);
		lower_stmt(walk, s);
		protocol_waits_taken(walk->proto);
		/* copies out of the staging registers of loads (apply.c) belong right after their wait */
		if (is_wait_ld(s) && walk->after_wait.n) {
			for (int k = 0; k < walk->after_wait.n; k++)
				list_push(walk->out, walk->after_wait.v[k]);
			walk->after_wait.n = 0;
		}
	}
	walk->cur_list = saved_list;
	walk->cur_index = saved_index;
}


/* --------------------------------------------------------------- kernels */

/* The first kernel parameter that e names, or NULL: block and cluster cannot use one. */
static const Param *
param_in(const Expr *e, const Kernel *kd)
{
	if (!e)
		return NULL;
	if (e->kind == E_NAME)
		for (int i = 0; i < kd->params.n; i++)
			if (strcmp(LIST_AT(kd->params, Param, i)->name, e->name) == 0)
				return LIST_AT(kd->params, Param, i);
	const Param *p = param_in(e->a, kd);
	p = p ? p : param_in(e->b, kd);
	p = p ? p : param_in(e->c, kd);
	for (int i = 0; i < e->args.n && !p; i++)
		p = param_in(LIST_AT(e->args, Expr, i), kd);
	return p;
}

/* grid and block: up to three dimensions; grid's may be expressions over integer scalar parameters
   (into k->grid_expr, with the parameters in scope), block's are compile-time integers. */
static bool
launch_dims(NamedArg *a, int out[3], KernelIR *k)
{
	out[0] = out[1] = out[2] = 1;
	List single = {0};
	List *elems = &single;
	if (a->value->kind == E_TUPLE)
		elems = &a->value->args;
	else
		list_push(&single, a->value);
	if (elems->n > 3) {
		error(a->value->loc, "%s takes at most three dimensions", a->name);
		return false;
	}
	for (int i = 0; i < elems->n; i++) {
		int64_t v;
		Expr *e = LIST_AT(*elems, Expr, i);
		if (k) {
			IExpr *g = sema_expr(e);
			if (!g)
				return false;
			if (g->type == T_F32 || !ie_params_only(g)) {
				error(e->loc, "a grid dimension is a constant or an integer expression over scalar parameters");
				return false;
			}
			if (!ie_is_const(g, &v) && grid_depth(g) > TILERT_GP_STACK) {
				error(e->loc, "this grid dimension nests too deep for libtilert, which evaluates it at launch with "
				              "room for %d values (this one needs %d): write it with fewer parentheses on the right",
				      TILERT_GP_STACK, grid_depth(g));
				return false;
			}
			if (!ie_is_const(g, &v)) {
				k->grid_expr[i] = ie_convert(g, T_U32);
				out[i] = 0;
				continue;
			}
		} else if (!const_int(e, &v, a->name))
			return false;
		if (v <= 0) {
			error(e->loc, "%s dimension must be positive, got %lld", a->name, (long long)v);
			return false;
		}
		/* CUDA's limits per dimension; block x and y are also bounded by the 1024 threads of a block */
		static const int64_t max_grid[3] = {0x7fffffff, 65535, 65535}, max_block[3] = {0x7fffffff, 0x7fffffff, 64};
		int64_t max = strcmp(a->name, "block") == 0 ? max_block[i] : max_grid[i];
		if (v > max) {
			error(e->loc, "%s dimension %c is at most %lld, got %lld", a->name, "xyz"[i], (long long)max, (long long)v);
			return false;
		}
		out[i] = (int)v;
	}
	return true;
}

/* A cluster's CTAs are consecutive in the grid: each constant grid dimension is a multiple of the cluster's
   (a grid computed at launch is checked there, by libtilert and tilec run). */
static bool
grid_fits_cluster(const KernelIR *k, const NamedArg *grid)
{
	for (int d = 0; d < 3; d++) {
		if (k->grid_expr[d] || k->grid[d] % k->cluster[d] == 0)
			continue;
		error(grid->value->loc, "grid dimension %c (%d) is not a multiple of the cluster's (%d)", "xyz"[d], k->grid[d],
		      k->cluster[d]);
		note(k->cluster_loc, "the cluster is declared here");
		return false;
	}
	return true;
}

/* In a device function lowered at a call, the warps that run the statement when its code has fixed the
   warp: a warp function's calls (one warp each), or warp K of each calling warpgroup (if (warp_id == K)
   in a warpgroup function that two warpgroups call). 0 elsewhere. */
static uint64_t
unit_fixed_warps(Walk *walk)
{
	uint64_t m = protocol_warps(walk->proto);
	if (!walk->dev || !walk->dev->lowering || !m)
		return 0;
	if (walk->dev->scope == SCOPE_WARP)
		return m;
	if (walk->dev->scope != SCOPE_WARPGROUP)
		return 0;
	int k = -1;
	for (int g = 0; g < 16; g++) {
		uint64_t x = m >> (4 * g) & 0xf;
		if (!x)
			continue;
		if (x & (x - 1) || (k >= 0 && x != 1ull << k))
			return 0;
		k = __builtin_ctzll(x);
	}
	return m;
}

/* The walk over the body of a kernel or (dev) device function. */
static void
walk_begin(Walk *walk, KernelIR *k, Kernel *dev)
{
	FileWalk *file = walk->file;
	*walk = (Walk){0};
	walk->file = file;
	walk->k = k;
	walk->out = &k->body;
	walk->proto = protocol_begin(k, walk->file->unchecked_waits);
	sema_set_protocol(walk->proto);
	walk->wait_at = -1;
	walk->dev = dev;
	/* names the generated code uses for its own purposes, and the device functions it may call */
	map_slot(&k->names, k->name, true);
	walk->file->names_kernel = k;
	walk->file->names_devices = walk->file->device_names.n;
}

static KernelIR *
lower_kernel(Walk *walk, Kernel *kd)
{
	KernelIR *k = pool_alloc(sizeof *k);
	k->name = kd->name;
	k->loc = kd->loc;
	bool have_block = false, have_grid = false, have_cluster = false, ok = true;
	k->grid[0] = k->grid[1] = k->grid[2] = 1;
	k->cluster[0] = k->cluster[1] = k->cluster[2] = 1;
	for (int i = 0; i < kd->launch.n; i++) {
		NamedArg *a = LIST_AT(kd->launch, NamedArg, i);
		bool is_block = strcmp(a->name, "block") == 0, is_cluster = strcmp(a->name, "cluster") == 0;
		if (!is_block && !is_cluster && strcmp(a->name, "grid") != 0) {
			error(a->loc, "unknown launch argument '%s'; expected 'grid', 'block' or 'cluster'", a->name);
			ok = false;
			continue;
		}
		bool *have = is_block ? &have_block : is_cluster ? &have_cluster : &have_grid;
		if (*have) {
			error(a->loc, "'%s' is given twice", a->name);
			ok = false;
			continue;
		}
		*have = true;
		const Param *p = is_block || is_cluster ? param_in(a->value, kd) : NULL;
		if (p) {
			error(a->value->loc, "'%s' must be a compile-time integer (layouts and the generated code depend on it); "
			      "'%s' is a kernel parameter, known only at launch", a->name, p->name);
			note(p->loc, "'%s' is declared here", p->name);
			ok = false;
		} else if (is_block)
			ok &= launch_dims(a, k->block, NULL);
		else if (is_cluster && (k->has_cluster = launch_dims(a, k->cluster, NULL)))
			k->cluster_loc = a->loc;
		else if (is_cluster)
			ok = false;
	}
	if (!have_block) {
		error(kd->name_loc, "kernel '%s' needs 'block = N' in its launch(...)", kd->name);
		return NULL;
	}
	if (!ok)
		return NULL;
	long long ctas = (long long)k->cluster[0] * k->cluster[1] * k->cluster[2];
	if (ctas > 8) {
		error(k->cluster_loc, "a cluster has at most 8 CTAs (the portable size); '%s' asks for %lld", kd->name, ctas);
		return NULL;
	}
	long long threads = (long long)k->block[0] * k->block[1] * k->block[2];
	if (threads > 1024) {
		error(kd->name_loc, "a block has at most 1024 threads; '%s' asks for %lld", kd->name, threads);
		return NULL;
	}
	k->threads = (int)threads;
	if (name_taken(walk->file, k, kd->name)) {
		error(kd->name_loc, "kernel name '%s' is reserved in the generated CUDA C; choose another", kd->name);
		return NULL;
	}

	walk_begin(walk, k, NULL);
	walk->arrive_ids = arrive_ids(&kd->body);

	scope_push();
	/* scalars first: a tensor's dims and strides may name a scalar declared after it */
	void **slots = pool_alloc(sizeof(void *) * (size_t)(kd->params.n + 1));
	bool *is_tensor = pool_alloc(sizeof(bool) * (size_t)(kd->params.n + 1));
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < kd->params.n; i++) {
			Param *p = LIST_AT(kd->params, Param, i);
			if (p->has_shape != (pass == 1))
				continue;
			if (p->kind != PK_VALUE) {
				error(p->loc, "kernel parameter '%s' is a %s tensor; shared, tmem and local parameters belong to device "
				              "functions, and a kernel declares such tensors in its body", p->name,
				      p->kind == PK_SHARED ? "shared" : p->kind == PK_TMEM ? "tmem" : "local");
				sym_poison(p->name, p->loc);
				continue;
			}
			if (!mbar_param_ok(p) || !minifloat_storage_ok(p->type, TK_GLOBAL, !p->has_shape, p->name, p->loc)) {
				sym_poison(p->name, p->loc);
				continue;
			}
			if (p->type == T_F16)
				k->uses_f16 = true;
			if (p->type == T_BF16)
				k->uses_bf16 = true;
			if (p->has_shape) {
				Tensor *t = tensor_new(TK_GLOBAL, p->name, p->loc, p->type);
				if (shape_names_tensor(p, &kd->params) || !global_shape(p, t)) {
					sym_poison(p->name, p->loc);
					continue;
				}
				if (!tma_param(p, t)) {
					sym_poison(p->name, p->loc);
					continue;
				}
				if (!param_tensor(walk, p, t, i))
					continue;
				slots[i] = t;
				is_tensor[i] = true;
			} else {
				slots[i] = param_var(walk, p);
			}
		}
	}
	for (int i = 0; i < kd->params.n; i++) {
		if (!slots[i])
			continue;
		list_push(&k->params, slots[i]);
		list_push(&k->param_is_tensor, is_tensor[i] ? slots[i] : NULL);
	}
	for (int i = 0; i < kd->launch.n; i++) {
		NamedArg *a = LIST_AT(kd->launch, NamedArg, i);
		if (strcmp(a->name, "grid") == 0 && (!launch_dims(a, k->grid, k) || !grid_fits_cluster(k, a)))
			return NULL;
	}
	walk->pair_group = pair_kernel_group(kd, k);
	tmemplan_kernel(kd, k->threads, walk->pair_group);
	fence_mark(kd);
	lower_stmts(walk, &kd->body); /* parameters share the scope of the body, as in C */
	tma_wait_read(walk, kd->loc, true);
	scope_pop();
	protocol_complete_copies(walk->proto, EFF_COMPLETES_LOADS | EFF_COMPLETES_STORES, kd->loc);
	place_waits(walk);
	copy_explain_waits(k);
	mbar_end(walk);
	protocol_end(walk->proto, kd->name, kd->name_loc);
	sema_set_protocol(NULL);
	fence_prune(k);
	/* the layouts' places and the views' maps served the checks; the code needs neither */
	scratch_free_all();
	return k;
}

/* --------------------------------------------------------------- device functions (LANGUAGE.md 10.3) */

static const char *
scope_word(ScopeKind s)
{
	return s == SCOPE_WARP ? "warp" : s == SCOPE_WARPGROUP ? "warpgroup" : "cta";
}

/* Whether shared tensor t (the argument a, symbol as) lies in the layout of shared parameter p (its tensor
   pt, position i of callee): the same smem_tile, or both row-major; an error otherwise. */
static bool
arg_tile_fits(const Expr *a, const Sym *as, const Tensor *t, const Tensor *pt, const Param *p, int i,
              const char *callee)
{
	const SmemTile *want = pt->tile, *got = t->tile;
	if (!want && !got)
		return true;
	if (want && got && want->major == got->major && want->swizzle == got->swizzle && want->rows == got->rows &&
	    want->cols == got->cols && want->elem_bytes == got->elem_bytes)
		return true;
	error(a->loc, "argument %d of '%s' is shared tensor parameter '%s', which is%s, but '%s' is%s; pass a tile of "
	              "the parameter's layout", i + 1, callee, p->name, want ? smem_tile_text(want) : " row-major", a->name,
	      got ? smem_tile_text(got) : " row-major");
	note(as->loc, "'%s' is defined here", a->name);
	return false;
}

/* Whether the argument a (symbol as, tensor t) of tma parameter p can lend p its tensor maps: a tma tensor of
   the caller, whole (a map describes the whole tensor); an error otherwise. */
static bool
arg_tma_fits(const Expr *a, const Sym *as, const Tensor *t, const Param *p, int i, const char *callee)
{
	if (t->tma && a->kind == E_NAME)
		return true;
	error(a->loc, "argument %d of '%s' is tma parameter '%s', but '%s' is %s; pass a whole tma tensor by its "
	              "name, whose tensor maps the function's copies use", i + 1, callee, p->name,
	      a->kind == E_NAME ? a->name : a->view->base, t->tma ? "a slice of one" : "not marked tma");
	note(as->loc, "'%s' is defined here", t->name);
	return false;
}

/* The tensor a call argument names (a view for tmem), or NULL after an error. */
static Sym *
arg_tensor(Expr *a, Param *p, int i, const char *callee, const char *what)
{
	bool viewable = p->kind != PK_SHARED;
	if (a->kind == E_INDEX && viewable) { /* mem[k]: a slice of integers, a view (mem[k, :]) */
		a->view = index_view_expr(a);
		a->kind = E_VIEW;
	}
	if (a->kind != E_NAME && !(a->kind == E_VIEW && viewable)) {
		error(a->loc, "argument %d of '%s' is %s parameter '%s': pass a tensor%s by its name", i + 1, callee, what,
		      p->name, viewable ? " or a view" : "");
		return NULL;
	}
	Sym *s = a->kind == E_VIEW ? sym_use(a->view->base, a->view->base_loc) : sym_use(a->name, a->loc);
	if (!s)
		return NULL;
	if (s->kind != SYM_TENSOR && !(s->kind == SYM_VIEW && viewable)) {
		error(a->loc, "argument %d of '%s' is %s parameter '%s', but '%s' is not a tensor", i + 1, callee, what, p->name,
		      a->name);
		note(s->loc, "'%s' is defined here", a->name);
		return NULL;
	}
	return s;
}

/* Element type and shape of a tensor argument against its parameter. */
static bool
arg_fits(Expr *a, const char *name, EType type, int rank, const int *dims, const int *pdims, Param *p, int i,
         const char *callee)
{
	bool same = rank == p->dims.n;
	for (int d = 0; same && d < rank; d++)
		same = !pdims || dims[d] == pdims[d] || !dims[d] || !pdims[d];
	if (type == p->type && same)
		return true;
	char got[96], want[96];
	format_list(got, sizeof got, '[', dims, rank, ']');
	if (pdims)
		format_list(want, sizeof want, '[', pdims, p->dims.n, ']');
	else
		snprintf(want, sizeof want, " of rank %d", p->dims.n);
	error(a->loc, "argument %d of '%s' is '%s', %s%s, but parameter '%s' is %s%s", i + 1, callee, name,
	      etype_name(type), got, p->name, etype_name(p->type), want);
	return false;
}

/* The word of t where the parameter's registers start, when slot k of the parameter is slot map[k] of t
   for consecutive whole words (a C call passes them by reference); else -1. */
static int
slice_word(const int *map, const Tensor *pt, const Tensor *t)
{
	int per = 32 / etype_bits(t->type), off = 0;
	bool seen = false;
	for (int k = 0; k < pt->layout->slots; k++) {
		if (map[k] < 0)
			continue;
		if (!seen)
			off = map[k] - k;
		seen = true;
		if (map[k] != off + k)
			return -1;
	}
	return seen && off >= 0 && off % per == 0 && off / per + pt->words <= t->words ? off / per : -1;
}

/* A register copy: dst's slot ds = src's slot ss; with word, register word ds = register word ss. */
static LStmt *
reg_move(Tensor *dst, int ds, Tensor *src, int ss, bool word, Loc loc)
{
	LStmt *l = pool_alloc(sizeof *l);
	l->loc = loc;
	if (word) {
		l->kind = L_COPY;
		l->regs = pool_alloc(2 * sizeof(RegRef));
		l->regs[0] = (RegRef){.tensor = dst, .word = ds};
		l->regs[1] = (RegRef){.tensor = src, .word = ss};
		return l;
	}
	IExpr *r = pool_alloc(sizeof *r);
	r->kind = IE_REG;
	r->type = value_type(src->type);
	r->tensor = src;
	r->slot = ss;
	l->kind = L_REG_STORE;
	l->tensor = dst;
	l->slot = ds;
	l->value = r;
	return l;
}

/* The registers of local parameter p, bound to a view of the caller's tensor t whose slot map[k] holds the
   parameter's slot k in every thread: a temporary laid out as p (its declaration and the copies from t
   into in, the copies back into out); NULL after an error. */
static Tensor *
view_temp(Walk *walk, Param *p, Tensor *t, const int *map, List *in, List *out)
{
	Tensor *tmp = tensor_new(TK_LOCAL, p->name, p->loc, p->type);
	if (!const_dims(&p->dims, tmp, p->loc) || !(tmp->layout = layout_eval(p->layout, tmp, walk->k->threads)))
		return NULL;
	tmp->words = (tmp->layout->slots * etype_bits(tmp->type) + 31) / 32;
	tmp->cname = cname_for(walk, p->name);
	LStmt *decl = pool_alloc(sizeof *decl);
	decl->kind = L_REGS;
	decl->loc = p->loc;
	decl->tensor = tmp;
	list_push(in, decl);
	/* whole words where a word's elements are the parts of one word of t in the same order (bit for bit,
	   and fewer statements), else element by element */
	int per = 32 / etype_bits(tmp->type);
	for (int w = 0; w < tmp->words; w++) {
		bool whole = true;
		for (int h = 0; h < per && whole; h++) {
			int k = w * per + h;
			whole = k < tmp->layout->slots && map[k] >= 0 && map[k] % per == h && map[k] / per == map[w * per] / per;
		}
		if (whole) {
			list_push(in, reg_move(tmp, w, t, map[w * per] / per, true, p->loc));
			list_push(out, reg_move(t, map[w * per] / per, tmp, w, true, p->loc));
			continue;
		}
		for (int k = w * per; k < (w + 1) * per && k < tmp->layout->slots; k++) {
			if (map[k] < 0)
				continue;
			list_push(in, reg_move(tmp, k, t, map[k], false, p->loc));
			list_push(out, reg_move(t, map[k], tmp, k, false, p->loc));
		}
	}
	return tmp;
}

static int64_t
no_value(const Var *v, void *ctx)
{
	(void)v;
	*(bool *)ctx = true;
	return 0;
}

/* e's value when it has one at compile time; a call's substitution leaves constants unfolded. */
static bool
folded(const IExpr *e, int64_t *out)
{
	bool runtime = false;
	return ie_eval_params(e, no_value, &runtime, out) && !runtime;
}

/* A call of a device function being lowered: what its steps share. */
typedef struct CallSite {
	int unit, bases[32], nbases; /* the calling units: their threads, and their first threads in the caller */
	int n;                       /* the arguments */
	CallInfo *ci;
	GlobalArg *gargs;
	Tensor **bound;              /* what each parameter names in the inlined body */
	View **views;
	List outer_in, outer_out;    /* the copies into and out of the temporaries the C call passes, around it */
	List inner_in, inner_out;    /* those the inlined body works on */
} CallSite;

/* The device function s calls, checked against the call; NULL after an error. */
static Kernel *
call_callee(Walk *walk, Stmt *s)
{
	Sym *sym = sym_lookup(s->name);
	Func fn;
	if (!sym || sym->kind != SYM_DEVICE) {
		if (sym && sym->kind == SYM_POISON)
			return NULL;
		if (!sym && func_lookup(s->name, &fn)) {
			error(s->name_loc, "'%s' is a builtin function: use its value in an expression; only device functions "
			                   "are called as statements", s->name);
		} else if (!sym) {
			error(s->name_loc, "unknown function '%s'", s->name);
			note_spelling(s->name, s->name_loc, true, NULL, 0);
		} else if (sym->kind == SYM_KERNEL) {
			error(s->name_loc, "'%s' is a kernel: kernels are launched, not called; only device functions are called",
			      s->name);
		} else {
			error(s->name_loc, "'%s' is not a device function", s->name);
			note(sym->loc, "'%s' is defined here", s->name);
		}
		return NULL;
	}
	Kernel *fd = sym->device;
	if (fd->lowering) {
		error(s->name_loc, "recursive call of '%s': a device function is inlined where it is called, so it cannot call "
		                   "itself", s->name);
		note(fd->name_loc, "'%s' is defined here", s->name);
		return NULL;
	}
	if (!fd->ir)
		return NULL; /* its errors are reported */
	bool reported = walk->file->inlined > 65536; /* once per file; the later calls are skipped quietly */
	if (++walk->file->inlined > 65536) {
		if (!reported)
			error(s->name_loc, "inlining this call of '%s' makes the file longer than 65536 inlined calls in all",
			      s->name);
		return NULL;
	}
	KernelIR *callee = fd->ir;
	if (s->operands.n != fd->params.n) {
		error(s->loc, "'%s' takes %d argument%s, not %d", s->name, fd->params.n, fd->params.n == 1 ? "" : "s",
		      s->operands.n);
		note(fd->name_loc, "'%s' is defined here", s->name);
		return NULL;
	}
	if (walk->dev && fd->scope > walk->dev->scope) {
		error(s->loc, "'%s' has scope %s; device function '%s' of scope %s cannot call it", s->name,
		      scope_word(fd->scope), walk->dev->name, scope_word(walk->dev->scope));
		return NULL;
	}
	if (!protocol_uniform(walk->proto, s->loc, pool_printf("a call of '%s'", s->name)))
		return NULL;
	if (callee->cta_axes && walk->k->threads != callee->block[0]) {
		error(s->loc, "'%s' has scope %s and layouts over the threads of a CTA of %d (tx, warpid or wgid), but '%s' "
		              "runs %d", s->name, scope_word(fd->scope), callee->block[0], walk->k->name, walk->k->threads);
		note(fd->name_loc, "'%s' is defined here", s->name);
		return NULL;
	}
	return fd;
}

/* The calling units of the call of fd at s (site->unit, bases, nbases); false after an error. */
static bool
call_units(Walk *walk, Stmt *s, Kernel *fd, CallSite *site)
{
	KernelIR *callee = fd->ir;
	/* the calling units: their first threads in the caller */
	uint64_t warps = protocol_warps(walk->proto);
	int nwarps = (walk->k->threads + 31) / 32, unit = 32, *bases = site->bases, nbases = 0;
	if (fd->scope == SCOPE_WARP) {
		int w = protocol_fixed_warp(walk->proto);
		uint64_t each = w < 0 ? unit_fixed_warps(walk) : 1ull << w;
		if (!each) {
			error(s->loc, "'%s' has scope warp: one warp calls it, where the code has fixed the warp (inside "
			              "if (warp_id == K) { ... })", s->name);
			return false;
		}
		for (w = 0; w < nwarps; w++)
			if (each >> w & 1)
				bases[nbases++] = 32 * w;
	} else if (fd->scope == SCOPE_WARPGROUP) {
		unit = 128;
		for (int g = 0; g * 4 < nwarps; g++) {
			uint64_t m = 0xfull << (4 * g);
			if (!(warps & m))
				continue;
			if ((warps & m) != m || 4 * g + 4 > nwarps) {
				error(s->loc, "'%s' has scope warpgroup: all four warps of a warpgroup call it together, but only "
				              "some warps of warpgroup %d (warps %d..%d) reach this call", s->name, g, 4 * g, 4 * g + 3);
				return false;
			}
			bases[nbases++] = 128 * g;
		}
	} else {
		unit = callee->threads;
		uint64_t all = nwarps >= 64 ? ~0ull : (1ull << nwarps) - 1;
		if (walk->k->threads != callee->threads) {
			error(s->loc, "'%s' has scope cta for a block of %d threads, but '%s' runs %d", s->name, callee->threads,
			      walk->k->name, walk->k->threads);
			return false;
		}
		if (warps != all) {
			error(s->loc, "'%s' has scope cta: every warp of the CTA calls it, but some warps do not reach this call",
			      s->name);
			return false;
		}
		bases[nbases++] = 0;
	}
	site->unit = unit;
	site->nbases = nbases;
	return true;
}

/* The arguments of the call, bound to the parameters of fd (site->ci, gargs, bound, views); false after an error. */
static bool
call_args(Walk *walk, Stmt *s, Kernel *fd, CallSite *site)
{
	KernelIR *callee = fd->ir;
	int n = s->operands.n;
	CallInfo *ci = pool_alloc(sizeof *ci);
	ci->callee = callee;
	ci->nargs = n;
	ci->values = pool_alloc(sizeof(IExpr *) * (size_t)(n + 1));
	ci->tensors = pool_alloc(sizeof(Tensor *) * (size_t)(n + 1));
	ci->first_word = pool_alloc(sizeof(int) * (size_t)(n + 1));
	ci->offsets = pool_alloc(sizeof(IExpr *) * (size_t)(n + 1));
	GlobalArg *gargs = pool_alloc(sizeof(GlobalArg) * (size_t)(n + 1));
	Tensor **bound = pool_alloc(sizeof(Tensor *) * (size_t)(n + 1));
	View **views = pool_alloc(sizeof(View *) * (size_t)(n + 1));
	bool ok = true;
	for (int i = 0; i < n; i++) {
		Param *p = LIST_AT(fd->params, Param, i);
		DevParam *dp = LIST_AT(callee->dparams, DevParam, i);
		Expr *a = LIST_AT(s->operands, Expr, i);
		if (p->kind == PK_VALUE && !p->has_shape) {
			Sym *as = a->kind == E_NAME ? sym_lookup(a->name) : NULL;
			if (as && (as->kind == SYM_TENSOR || as->kind == SYM_VIEW)) {
				error(a->loc, "argument %d of '%s' is scalar parameter '%s' (%s), but '%s' is a tensor", i + 1, s->name,
				      p->name, etype_name(p->type), a->name);
				ok = false;
				continue;
			}
			IExpr *v = sema_expr(a);
			if (!v) {
				ok = false;
				continue;
			}
			protocol_read(walk->proto, v, a->loc);
			place_waits(walk);
			ci->values[i] = ie_convert(v, p->type);
			continue;
		}
		static const char *const what[] = {[PK_VALUE] = "global tensor", [PK_SHARED] = "shared tensor",
		                                   [PK_TMEM] = "tmem", [PK_LOCAL] = "local tensor"};
		Sym *as = arg_tensor(a, p, i, s->name, what[p->kind]);
		if (!as) {
			ok = false;
			continue;
		}
		TensorKind want = p->kind == PK_VALUE ? TK_GLOBAL : p->kind == PK_SHARED ? TK_SHARED
		                  : p->kind == PK_TMEM   ? TK_TMEM   : TK_LOCAL;
		Tensor *t = as->kind == SYM_VIEW ? as->view->base : as->tensor;
		if (t->kind != want) {
			static const char *const kinds[] = {[TK_GLOBAL] = "a global", [TK_SHARED] = "a shared",
			                                    [TK_LOCAL] = "a local", [TK_TMEM] = "a tmem"};
			error(a->loc, "argument %d of '%s' is %s parameter '%s', but '%s' is %s tensor", i + 1, s->name,
			      what[p->kind], p->name, a->name, kinds[t->kind]);
			note(as->loc, "'%s' is defined here", a->name);
			ok = false;
			continue;
		}
		if (p->kind == PK_SHARED && !arg_tile_fits(a, as, t, dp->tensor, p, i, s->name)) {
			ok = false;
			continue;
		}
		if (p->kind == PK_VALUE && dp->tensor->tma && !arg_tma_fits(a, as, t, p, i, s->name)) {
			ok = false;
			continue;
		}
		if (p->kind == PK_TMEM || (p->kind == PK_LOCAL && (a->kind == E_VIEW || as->kind == SYM_VIEW))) {
			ViewExpr ve = {.base = a->name, .loc = a->loc, .base_loc = a->loc};
			View *v = viewexpr_eval(a->kind == E_VIEW ? a->view : &ve, false);
			if (v)
				v->base->used = true;
			if (v && v->per_thread) {
				error(a->loc, "argument %d of '%s' is local tensor parameter '%s', but '%s' is a per-thread view (the "
				              "calling thread's registers in slot order); pass the local tensor or a view of it",
				      i + 1, s->name, p->name, a->name);
				ok = false;
				continue;
			}
			if (!v || (p->kind == PK_TMEM && !protocol_alive(walk->proto, t, a->name, a->loc)) ||
			    !arg_fits(a, a->name, t->type, v->rank, v->dims, dp->tensor->dims, p, i, s->name)) {
				ok = false;
				continue;
			}
			views[i] = v;
			if (p->kind == PK_LOCAL) {
				ci->tensors[i] = t;
				if (view_same(v, view_of_tensor(t)))
					views[i] = NULL; /* the whole tensor: passed as by its name */
			}
		} else if (p->kind == PK_VALUE) {
			int dims[MAX_RANK];
			if (!viewexpr_global_arg(a, as, t, &gargs[i])) {
				ok = false;
				continue;
			}
			for (int d = 0; d < gargs[i].rank; d++) {
				int64_t c;
				dims[d] = ie_is_const(gargs[i].dims[d], &c) && c <= INT32_MAX ? (int)c : 0;
			}
			if (!arg_fits(a, a->name, t->type, gargs[i].rank, dims, NULL, p, i, s->name)) {
				ok = false;
				continue;
			}
			ci->tensors[i] = t;
			ci->offsets[i] = gargs[i].off;
		} else {
			if (!arg_fits(a, a->name, t->type, t->rank, t->dims, dp->tensor->dims, p, i, s->name)) {
				ok = false;
				continue;
			}
			ci->tensors[i] = t;
		}
		bound[i] = t;
	}
	site->n = n;
	site->ci = ci;
	site->gargs = gargs;
	site->bound = bound;
	site->views = views;
	return ok;
}

/* Whether the argument ga (of the caller's tensor t) keeps an `align n` promise: its first element's
   address and each of its outer strides times the element's bytes multiples of n. */
static bool
keeps_align(const Tensor *t, const GlobalArg *ga, int n)
{
	int64_t size = etype_bits(t->type) / 8;
	if (tensor_align(t) % n || (ga->off && (index_factor(ga->off, t) * size) % n))
		return false;
	for (int d = 0; d + 1 < ga->rank; d++)
		if (ga->strides[d] && (index_factor(ga->strides[d], t) * size) % n)
			return false;
	return true;
}

/* Each global tensor parameter of fd as a tensor of the caller, its dims and strides checked against the argument's. */
static bool
call_global_params(Stmt *s, Kernel *fd, CallSite *site)
{
	KernelIR *callee = fd->ir;
	int n = site->n;
	CallInfo *ci = site->ci;
	GlobalArg *gargs = site->gargs;
	Tensor **bound = site->bound;
	bool ok = true;
	/* a global tensor parameter: the callee's dims and strides over the values passed */
	Var **from = pool_alloc(sizeof(Var *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		DevParam *dp = LIST_AT(callee->dparams, DevParam, i);
		from[i] = dp->kind == PK_VALUE && !dp->tensor ? dp->var : NULL;
	}
	for (int i = 0; i < n && ok; i++) {
		DevParam *dp = LIST_AT(callee->dparams, DevParam, i);
		if (dp->kind != PK_VALUE || !dp->tensor)
			continue;
		Tensor *t = bound[i], *g = pool_alloc(sizeof *g);
		GlobalArg *ga = &gargs[i];
		Expr *a = LIST_AT(s->operands, Expr, i);
		*g = *dp->tensor;
		g->identity = NULL; /* the callee's own view of the parameter names the parameter, not g */
		g->cname = t->cname;
		g->index = t->index;
		g->align_from = (List){0};
		IExpr *stride = ie_int(1, T_I64);
		for (int d = g->rank - 1; d >= 0; d--) {
			g->rdims[d] = subst(g->rdims[d], from, ci->values, n);
			if (g->rstrides[d])
				g->rstrides[d] = subst(g->rstrides[d], from, ci->values, n);
			int64_t x, y;
			bool one = (folded(ga->dims[d], &x) && x == 1) || (folded(g->rdims[d], &y) && y == 1);
			if (folded(ga->dims[d], &x) && folded(g->rdims[d], &y) && x != y) {
				error(a->loc, "dimension %d of '%s' is %lld, but parameter '%s' of '%s' has %lld here", d, a->name,
				      (long long)x, dp->tensor->name, s->name, (long long)y);
				ok = false;
			}
			/* the function steps through the pointer with its own strides: they must be the argument's */
			IExpr *want = g->wide ? g->rstrides[d] : stride;
			if (!g->wide)
				stride = ie_binary(OP_MUL, stride, ie_int(g->dims[d], T_I64));
			bool differ = folded(want, &y) && folded(ga->strides[d], &x) && x != y;
			/* a whole tensor passed on keeps its strides in the values passed (an inlined function's
			   scalars are variables of their own, equal only in value): checked where constants differ */
			if (one || ie_equal(ie_convert(want, T_I64), ie_convert(ga->strides[d], T_I64)) || (!ga->view && !differ))
				continue;
			if (differ)
				error(a->loc, "stride %d of '%s' is %lld, but parameter '%s' of '%s' has stride %lld here: the "
				              "function is passed a pointer to the first element and steps with its own strides",
				      d, a->name, (long long)x, dp->tensor->name, s->name, (long long)y);
			else
				error(a->loc, "tilec cannot show that stride %d of '%s' equals the stride of parameter '%s' of '%s' "
				              "(one of them is known only at run time): the function is passed a pointer to the "
				              "first element and steps with its own strides", d, a->name, dp->tensor->name, s->name);
			if (LIST_AT(fd->params, Param, i)->strides.n)
				note(dp->tensor->loc, "pass the strides of '%s' to the scalar parameters that the strides of '%s' are "
				                      "written with", a->name, dp->tensor->name);
			else
				note(dp->tensor->loc, "declare '%s' with stride (...) over scalar parameters and pass the strides of "
				                      "'%s' to them", dp->tensor->name, a->name);
			ok = false;
		}
		if (dp->tensor->align && !keeps_align(t, ga, dp->tensor->align)) {
			error(a->loc, "parameter '%s' of '%s' promises align %d, but tilec cannot show that the address and the "
			      "start of each row of this argument are multiples of %d bytes", dp->tensor->name, s->name,
			      dp->tensor->align, dp->tensor->align);
			if (tensor_align(t) % dp->tensor->align || tensor_row_align(t) % dp->tensor->align)
				note(t->loc, "declare '%s' with align %d", t->name, dp->tensor->align);
			else
				note(t->loc, "'%s' keeps align %d: start the slice at a multiple of %d bytes", t->name,
				     dp->tensor->align, dp->tensor->align);
			ok = false;
			continue;
		}
		/* the pointer passed: as aligned as the caller's and the offset of the slice allow */
		if (ga->off) {
			int64_t bytes = known_factor(ga->off) * (etype_bits(t->type) / 8);
			int align = bytes < 16 ? (int)bytes : 16;
			g->base_align = align;
			if (!dp->tensor->base_align || align < dp->tensor->base_align)
				dp->tensor->base_align = align;
			g->base_off = t->base_off ? ie_binary(OP_ADD, t->base_off, ga->off) : ga->off;
		} else {
			g->base_align = 0;
			g->base_off = t->base_off;
		}
		list_push(&g->align_from, t);
		if (!list_has(&dp->tensor->align_from, t))
			list_push(&dp->tensor->align_from, t);
		/* a tma tensor (passed whole) is the caller's own: its copies use the caller's tensor maps, which
		   describe the caller's tensor */
		bound[i] = dp->tensor->tma ? t : g;
	}
	return ok;
}

/* The layouts of fd's tmem and local parameters, evaluated where the function's names are visible, against
   the arguments; then nothing of the caller may be pending. False after an error. */
static bool
call_params_fit(Walk *walk, Stmt *s, Kernel *fd, CallSite *site)
{
	KernelIR *callee = fd->ir;
	int n = site->n, unit = site->unit, *bases = site->bases, nbases = site->nbases;
	CallInfo *ci = site->ci;
	Tensor **bound = site->bound;
	View **views = site->views;
	bool ok = true;
	for (int i = 0; i < n && ok; i++) {
		Param *p = LIST_AT(fd->params, Param, i);
		if (p->kind != PK_TMEM && p->kind != PK_LOCAL)
			continue;
		Tensor *pt = pool_alloc(sizeof *pt);
		*pt = *LIST_AT(callee->dparams, DevParam, i)->tensor;
		pt->layout = layout_eval(p->layout, pt, callee->threads);
		if (!pt->layout) {
			ok = false;
			break;
		}
		CallArg c = {.arg = views[i] ? views[i] : view_of_tensor(bound[i]), .param = pt, .unit = unit,
		             .nbases = nbases, .absolute = callee->cta_axes};
		c.arg->name = LIST_AT(s->operands, Expr, i)->name;
		memcpy(c.bases, bases, sizeof(int) * (size_t)nbases);
		if (p->kind == PK_LOCAL && views[i]) {
			c.slot_map = pool_alloc(sizeof(int) * (size_t)(pt->layout->slots + 1));
			c.slot_thread = pool_alloc(sizeof(int) * (size_t)(pt->layout->slots + 1));
			for (int k = 0; k < pt->layout->slots; k++)
				c.slot_map[k] = -1;
		}
		Mismatch mm;
		int lane = 0, col = 0;
		if (!call_match(&c, &mm, &lane, &col)) {
			call_report(&c, &mm, s->name, LIST_AT(s->operands, Expr, i)->loc);
			note(p->loc, "parameter '%s' is declared here", p->name);
			ok = false;
			continue;
		}
		if (p->kind == PK_LOCAL && views[i]) {
			/* the inlined body works on a temporary of the parameter's registers, copied in and out; the C
			   call passes the caller's words themselves where they are consecutive, else that temporary */
			Tensor *t = bound[i];
			int w0 = slice_word(c.slot_map, pt, t);
			Tensor *tmp = view_temp(walk, p, t, c.slot_map, w0 >= 0 ? &site->inner_in : &site->outer_in,
		                       w0 >= 0 ? &site->inner_out : &site->outer_out);
			if (!tmp) {
				ok = false;
				continue;
			}
			ci->tensors[i] = w0 >= 0 ? t : tmp;
			ci->first_word[i] = w0 >= 0 ? w0 : 0;
			bound[i] = tmp;
			continue;
		}
		if (p->kind != PK_TMEM)
			continue;
		Tensor *t = bound[i];
		int per = 32 / etype_bits(t->type);
		if (col % per) {
			error(LIST_AT(s->operands, Expr, i)->loc, "tmem argument '%s' starts inside a TMEM cell (element column "
			      "%d); the address of parameter '%s' names a whole 32-bit cell", c.arg->name, col, p->name);
			ok = false;
			continue;
		}
		if (lane < 0 || col < 0) {
			error(LIST_AT(s->operands, Expr, i)->loc, "tmem argument '%s' puts the base of parameter '%s' before its "
			      "tensor (lane %d, column %d)", c.arg->name, p->name, lane, col);
			ok = false;
			continue;
		}
		/* the parameter as a tensor of the caller: at the argument's base */
		Tensor *it = tensor_new(TK_TMEM, p->name, p->loc, p->type);
		it->rank = pt->rank;
		memcpy(it->dims, pt->dims, sizeof it->dims);
		it->count = pt->count;
		it->layout = pt->layout;
		it->alloc = t->alloc;
		it->param_root = t->alloc ? NULL : t->param_root ? t->param_root : t;
		it->col_offset = t->col_offset + col / per;
		it->lane_offset = t->lane_offset + lane;
		IExpr *base = t->alloc ? t->addr : u32_ref(t->name, t->cname, false);
		uint32_t off = ((uint32_t)lane << 16) + (uint32_t)(col / per);
		it->addr = off ? ie_binary(OP_ADD, base, ie_int(off, T_U32)) : base;
		ci->values[i] = it->addr;
		bound[i] = it;
	}
	if (ok) {
		protocol_complete_copies(walk->proto, EFF_COMPLETES_LOADS | EFF_COMPLETES_STORES, s->loc);
		place_waits(walk);
		ok = protocol_settled(walk->proto, s->loc, pool_printf("at the call of '%s'", s->name));
	}
	return ok;
}

/* The body of fd in place, with its parameters bound to the arguments. */
static void
call_inline(Walk *walk, Stmt *s, Kernel *fd, CallSite *site)
{
	int n = site->n;
	CallInfo *ci = site->ci;
	Tensor **bound = site->bound;
	Kernel *saved_dev = walk->dev;
	List *saved_out = walk->out;
	LStmt *outer = NULL;
	if (site->outer_in.n) { /* the temporaries that the C call passes: around it */
		outer = emit(walk, L_BLOCK, s->loc);
		outer->comment = source_line_of(s->loc, true);
		outer->body = site->outer_in;
		walk->out = &outer->body;
	}
	LStmt *blk = emit(walk, L_BLOCK, s->loc);
	blk->call = ci;
	blk->comment = outer ? NULL : source_line_of(s->loc, true);
	blk->body = site->inner_in;
	walk->out = &blk->body;
	walk->dev = fd;
	/* scalars first: the dims of a global tensor parameter may name them */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			Param *p = LIST_AT(fd->params, Param, i);
			bool scalar = p->kind == PK_VALUE && !p->has_shape;
			if (scalar != (pass == 0))
				continue;
			if (scalar) {
				Sym *ps = sym_declare(SYM_VAR, p->name, p->loc);
				Var *var = pool_alloc(sizeof *var);
				var->name = p->name;
				var->cname = cname_for(walk, p->name);
				var->type = p->type;
				var->varying = ie_varying(ci->values[i]) || protocol_varying(walk->proto);
				/* every thread that calls computes the same value where the argument is the same in each: the
				   threads that skip the call (a split around it) never read the parameter */
				var->per_thread = ie_per_thread(ci->values[i]);
				ps->var = var;
				LStmt *l = emit(walk, L_VAR, s->loc);
				l->var = var;
				l->value = ci->values[i];
				continue;
			}
			Tensor *t = bound[i];
			if (p->kind == PK_TMEM && !t->alloc) {
				t->cname = cname_for(walk, p->name);
				LStmt *l = emit(walk, L_TMEM, s->loc);
				l->tensor = t;
				l->value = t->addr;
			}
			Sym *ps = sym_declare(SYM_TENSOR, p->name, p->loc);
			ps->tensor = t;
		}
	/* --explain has described the function's copies and waits where it lowered the function itself */
	bool saved_explain = diag_explain;
	int waits = walk->k->placed_waits.n;
	diag_explain = false;
	fd->lowering = true;
	lower_stmts(walk, &fd->body);
	fd->lowering = false;
	/* the function waits for its copies before it returns, as its own code does */
	protocol_complete_copies(walk->proto, EFF_COMPLETES_LOADS | EFF_COMPLETES_STORES, s->loc);
	place_waits(walk);
	diag_explain = saved_explain;
	walk->k->placed_waits.n = waits;
	for (int k = 0; k < site->inner_out.n; k++)
		list_push(&blk->body, site->inner_out.v[k]);
	for (int k = 0; outer && k < site->outer_out.n; k++)
		list_push(&outer->body, site->outer_out.v[k]);
	walk->out = saved_out;
	walk->dev = saved_dev;
}

static void
lower_call(Walk *walk, Stmt *s)
{
	Kernel *fd = call_callee(walk, s);
	CallSite site = {0};
	if (!fd || !call_units(walk, s, fd, &site) || !call_args(walk, s, fd, &site) || !call_global_params(s, fd, &site))
		return;
	int saved_scope = scope_push_isolated();
	int saved_unit = sema_set_unit(fd->scope == SCOPE_CTA || fd->ir->cta_axes ? 0 : site.unit / 32);
	int errors = error_count;
	bool fits = call_params_fit(walk, s, fd, &site);
	if (fits)
		call_inline(walk, s, fd, &site);
	sema_set_unit(saved_unit);
	scope_pop_isolated(saved_scope);
	if (fits && error_count > errors)
		note(s->loc, "in this call of '%s'", s->name);
}

/* e with each use of from[i] replaced by to[i]: the dims and strides of a global tensor parameter
   over the callee's scalars, as the caller passes them. */
static IExpr *
subst(IExpr *e, Var **from, IExpr **to, int n)
{
	if (!e)
		return NULL;
	if (e->kind == IE_VAR) {
		for (int i = 0; i < n; i++)
			if (from[i] && e->var == from[i])
				return ie_convert(to[i], e->type);
		return e;
	}
	IExpr *a = subst(e->a, from, to, n), *b = subst(e->b, from, to, n), *index = subst(e->index, from, to, n);
	if (a == e->a && b == e->b && index == e->index)
		return e;
	/* folded again, so that a constant passed makes a constant dimension or stride */
	if (e->kind == IE_CONV)
		return ie_convert(a, e->to);
	if (e->kind == IE_BINARY && e->op != OP_NONE) {
		IExpr *f = ie_binary(e->op, a, b);
		if (f->type == e->type)
			return f;
	}
	return ie_with_children(e, a, b, index);
}

/* The contract's line of shared parameter t (dims: its shape as text): what a barrier or a tile needs from
   the caller; "" for a row-major tensor. */
static const char *
shared_param_contract(const Tensor *t, const char *dims)
{
	if (t->type == T_MBARRIER)
		return pool_printf("// %s: %d %s%s in shared memory (8 bytes each), initialised by the caller and published "
		                   "(by a barrier after the init) before the call; the caller chose their arrival counts\n", t->name,
		                   t->count, etype_name(T_MBARRIER), t->count == 1 ? "" : "s");
	if (t->tile)
		return pool_printf("// %s: a pointer to %s%s in shared memory,%s, aligned to %d bytes (the swizzle applies to the "
		                   "absolute address)\n", t->name, etype_name(t->type), dims, smem_tile_text(t->tile),
		                   smem_tensor_align(t));
	return "";
}

/* The comment above a device function: its contract in words (LANGUAGE.md 10.3). */
static const char *
device_contract(Kernel *kd, KernelIR *k)
{
	Buf b = {0};
	static const char *const who[] = {"one warp (32 threads)", "one warpgroup (128 threads, 4 consecutive warps)",
	                                  "every thread of the CTA"};
	buf_printf(&b, "// %s: scope %s, called by %s", kd->name, scope_word(kd->scope), who[kd->scope]);
	if (k->has_block)
		buf_printf(&b, "; block = %d", k->block[0]);
	buf_printf(&b, "\n// on entry the TMEM passed is allocated and no %s or st is pending; it returns with none "
	               "pending\n", isa_name(TC_LD, 0));
	Buf tmem = {0};
	int ntmem = 0;
	for (int i = 0; i < k->dparams.n; i++)
		if (LIST_AT(k->dparams, DevParam, i)->kind == PK_TMEM)
			buf_printf(&tmem, "%s%s", ntmem++ ? ", " : "", LIST_AT(k->dparams, DevParam, i)->tensor->name);
	if (ntmem > 1)
		buf_printf(&b, "// %s may share TMEM: one address may be passed for several of them, or columns in common at the "
		               "same lanes (as FlashAttention-4 writes P over S); the function completes each %s "
		               "(%s) before a %s to any of them\n", tmem.data, isa_name(TC_LD, 0), isa_name(TC_WAIT_LD, 0),
		           isa_name(TC_ST, 0));
	buf_free(&tmem);
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		Tensor *t = dp->tensor;
		char dims[96];
		if (!t)
			continue;
		format_list(dims, sizeof dims, '[', t->dims, t->rank, ']');
		if (dp->kind == PK_TMEM) {
			int lane0 = 127, lane1 = 0, col0 = 511, col1 = 0, bits = etype_bits(t->type);
			for (int e = 0; e < t->count; e++)
				for (int r = 0; r < t->layout->nrep; r++) {
					const int32_t *place = LAYOUT_PLACE(t->layout, e, r);
					int lane = place[AX_TLANE], col = place[AX_TCOL] * bits / 32;
					lane0 = lane < lane0 ? lane : lane0;
					lane1 = lane > lane1 ? lane : lane1;
					col0 = col < col0 ? col : col0;
					col1 = col > col1 ? col : col1;
				}
			buf_printf(&b, "// %s: the TMEM address of element [0%s] of %s%s; the layout places the others relative to "
			               "it, in lanes %d..%d and 32-bit columns %d..%d from it\n", t->name,
			           t->rank > 1 ? pool_printf("%.*s", 3 * (t->rank - 1), ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0") : "",
			           etype_name(t->type), dims, lane0, lane1, col0, col1);
			continue;
		}
		if (dp->kind == PK_SHARED)
			buf_puts(&b, shared_param_contract(t, dims));
		if (dp->kind != PK_LOCAL)
			continue;
		int per = 32 / etype_bits(t->type);
		buf_printf(&b, "// %s: %s%s, %d register word%s per thread", t->name, etype_name(t->type), dims, t->words,
		           t->words == 1 ? "" : "s");
		if (per > 1)
			buf_printf(&b, ", %d elements to a word from its low bits up", per);
		buf_puts(&b, "; each word holds:\n");
		int unit = kd->scope == SCOPE_CTA || k->cta_axes ? k->threads : kd->scope == SCOPE_WARP ? 32 : 128;
		const char *of = k->cta_axes || kd->scope == SCOPE_CTA ? "CTA" : kd->scope == SCOPE_WARP ? "warp" : "warpgroup";
		int threads[3] = {0, 1, unit - 1};
		for (int ti = 0; ti < 3; ti++) {
			int th = threads[ti];
			buf_printf(&b, "//   %sthread %d of the %s:", ti == 2 ? "... " : "", th, of);
			for (int w = 0; w < t->words; w++) {
				if (w == 4 && t->words > 5) {
					buf_puts(&b, " ...");
					w = t->words - 1;
				}
				buf_printf(&b, " %s[%d] =", t->name, w);
				for (int h = 0; h < per; h++) {
					int slot = w * per + h, e = -1;
					for (int x = 0; x < t->count && e < 0; x++)
						if (layout_slot_in_thread(t->layout, x, th) == slot)
							e = x;
					char coord[96] = "-";
					if (e >= 0)
						format_coords(coord, sizeof coord, t->rank, t->dims, e);
					buf_printf(&b, " %s", coord);
				}
				buf_puts(&b, w + 1 < t->words ? "," : "\n");
			}
		}
	}
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* Whether e reads tensor t. */
static bool
expr_names(const IExpr *e, const Tensor *t)
{
	return e && (e->tensor == t || expr_names(e->a, t) || expr_names(e->b, t) || expr_names(e->index, t));
}

/* The statement of list that reads or writes global tensor t other than by a TMA copy (a call passing it to
   a parameter without tma included), or NULL. */
static const LStmt *
plain_use(const List *list, const Tensor *t)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if ((s->kind != L_TMA && s->tensor == t) || expr_names(s->value, t) || expr_names(s->index, t) ||
		    expr_names(s->cond, t) || expr_names(s->lo, t) || expr_names(s->hi, t))
			return s;
		for (int a = 0; s->call && a < s->call->nargs; a++)
			if (s->call->tensors[a] == t && !LIST_AT(s->call->callee->dparams, DevParam, a)->tensor->tma)
				return s;
		const LStmt *in = plain_use(&s->body, t);
		if (!in)
			in = plain_use(&s->els, t);
		if (in)
			return in;
	}
	return NULL;
}

/* A device function receives a tma parameter as its tensor map only (a const CUtensorMap * in a header,
   LANGUAGE 11.4): an error at a statement of k that reads or writes one otherwise. */
static void
tma_params_copied_only(const KernelIR *k)
{
	for (int i = 0; i < k->dparams.n; i++) {
		const DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		const LStmt *s = dp->kind == PK_VALUE && dp->tensor && dp->tensor->tma ? plain_use(&k->body, dp->tensor) : NULL;
		if (!s)
			continue;
		error(s->loc, "'%s' is a tma parameter of device function '%s', passed as its tensor map only (const "
		              "CUtensorMap * in a header); only TMA copies may use it: take the tensor a second time, as a "
		              "parameter without tma, for other accesses", dp->tensor->name, k->name);
		note(dp->tensor->loc, "'%s' is declared here", dp->tensor->name);
	}
}

/* A device function's shared parameter t (LANGUAGE 10.3): a tile where a layout is written (11.2, the caller
   passes a tile of that layout), row-major otherwise; a tensor of mbarriers starts as its caller passes it,
   initialised and published, with an arrival count tilec does not know. False after an error. */
static bool
shared_param_tile(Walk *walk, const Param *p, Tensor *t)
{
	if (p->layout && t->type == T_MBARRIER) {
		error(p->loc, "shared parameter '%s' is a tensor of mbarriers; barriers have no layout (%s: shared %s[%d])",
		      p->name, p->name, etype_name(T_MBARRIER), t->count);
		return false;
	}
	if (p->layout) {
		LayoutExpr *le = layout_follow_names(p->layout);
		return le && (t->tile = smem_tensor_tile(t, p->layout, le, p->loc));
	}
	if (t->type == T_MBARRIER) {
		mbar_track(walk, t, MBS_INIT | MBS_PUBLISHED | MBS_USED);
		memset(t->mbar_uncounted, 1, (size_t)t->count);
		t->mbar_use_loc = p->loc;
	}
	return true;
}

static KernelIR *
lower_device(Walk *walk, Kernel *kd)
{
	KernelIR *k = pool_alloc(sizeof *k);
	k->name = kd->name;
	k->loc = kd->loc;
	k->is_device = true;
	k->scope = kd->scope;
	int unit = kd->scope == SCOPE_WARP ? 32 : kd->scope == SCOPE_WARPGROUP ? 128 : 0;
	int64_t block = unit;
	if (kd->block) {
		if (!const_int(kd->block, &block, "block"))
			return NULL;
		if (block < 32 || block > 1024 || block % 32) {
			error(kd->block->loc, "block of a device function is a multiple of 32 from 32 to 1024, not %lld",
			      (long long)block);
			return NULL;
		}
		if (unit && block % unit) {
			error(kd->block->loc, "block = %lld is not a whole number of %ss", (long long)block, scope_word(kd->scope));
			return NULL;
		}
		k->has_block = true;
	} else if (!unit) {
		error(kd->scope_loc, "device function '%s' of scope cta needs 'block = N', the CTA size it assumes", kd->name);
		return NULL;
	}
	/* a warp or warpgroup function whose layouts name the CTA's threads (tx, warpid, wgid) is lowered for the
	   whole CTA of its block, each calling unit doing its part (LANGUAGE.md 10.3: block is the CTA size it
	   assumes); checked on the axes written, before their ranges are */
	unsigned cta_bits = (1u << AX_TX) | (1u << AX_WARPID) | (1u << AX_WGID);
	for (int i = 0; unit && i < kd->params.n; i++) {
		Param *p = LIST_AT(kd->params, Param, i);
		if (!p->layout || !(layout_expr_axes(p->layout) & cta_bits))
			continue;
		if (kd->block) {
			k->cta_axes = true;
			continue;
		}
		error(p->layout->loc, "the layout of '%s' names a thread of the CTA (tx, warpid or wgid), but '%s' has scope "
		                      "%s and no block: name threads within the calling %s (laneid%s), or declare block = N, "
		                      "the size of the CTA that calls it", p->name, kd->name, scope_word(kd->scope),
		      scope_word(kd->scope), unit == 128 ? ", tid_in_wg, wid_in_wg" : "");
		return NULL;
	}
	k->threads = unit && !k->cta_axes ? unit : (int)block;
	k->block[0] = (int)block;
	k->block[1] = k->block[2] = 1;
	k->grid[0] = k->grid[1] = k->grid[2] = 1;
	if (name_taken(walk->file, k, kd->name)) {
		error(kd->name_loc, "function name '%s' is reserved in the generated CUDA C; choose another", kd->name);
		return NULL;
	}
	walk_begin(walk, k, kd);
	int errors = error_count;
	int saved_unit = sema_set_unit(k->cta_axes ? 0 : unit / 32);
	scope_push();
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < kd->params.n; i++) {
			Param *p = LIST_AT(kd->params, Param, i);
			if ((p->kind == PK_VALUE && !p->has_shape) != (pass == 0))
				continue;
			bool scalar = p->kind == PK_VALUE && !p->has_shape;
			TensorKind where = p->kind == PK_SHARED ? TK_SHARED : p->kind == PK_VALUE ? TK_GLOBAL : TK_LOCAL;
			if ((p->kind != PK_SHARED && !mbar_param_ok(p)) ||
			    !minifloat_storage_ok(p->type, where, scalar, p->name, p->loc)) {
				sym_poison(p->name, p->loc);
				continue;
			}
			if (p->type == T_F16)
				k->uses_f16 = true;
			if (p->type == T_BF16)
				k->uses_bf16 = true;
			if (p->kind == PK_VALUE && !p->has_shape) {
				param_var(walk, p);
				continue;
			}
			TensorKind tk = p->kind == PK_VALUE ? TK_GLOBAL : p->kind == PK_SHARED ? TK_SHARED
			                : p->kind == PK_TMEM   ? TK_TMEM   : TK_LOCAL;
			Tensor *t = tensor_new(tk, p->name, p->loc, p->type);
			if (shape_names_tensor(p, &kd->params) ||
			    (tk == TK_GLOBAL ? !global_shape(p, t) : !const_dims(&p->dims, t, p->loc))) {
				sym_poison(p->name, p->loc);
				continue;
			}
			if (tk == TK_GLOBAL && !tma_param(p, t)) {
				sym_poison(p->name, p->loc);
				continue;
			}
			if (tk == TK_SHARED ? !shared_param_tile(walk, p, t) : p->layout && !(t->layout = layout_eval(p->layout, t,
			                                                                                                k->threads))) {
				sym_poison(p->name, p->loc);
				continue;
			}
			if (!param_tensor(walk, p, t, i))
				continue;
			if (tk == TK_LOCAL) {
				t->words = (t->layout->slots * etype_bits(t->type) + 31) / 32;
				if (t->words > 255) {
					error(p->loc, "'%s' needs %d registers per thread; a thread has at most 255", t->name, t->words);
					continue;
				}
			}
			if (tk == TK_TMEM) {
				t->addr = u32_ref(p->name, t->cname, true);
				list_push(&k->tmem_tensors, t);
			}
		}
	}
	/* the parameters in the order declared (the passes above took the scalars first) */
	if (error_count == errors) {
		for (int i = 0; i < kd->params.n; i++) {
			Param *p = LIST_AT(kd->params, Param, i);
			Sym *s = sym_lookup(p->name);
			DevParam *dp = pool_alloc(sizeof *dp);
			dp->kind = p->kind;
			if (s && s->kind == SYM_VAR)
				dp->var = s->var;
			else if (s && s->kind == SYM_TENSOR) {
				dp->tensor = s->tensor;
				if (p->kind == PK_TMEM)
					dp->var = s->tensor->addr->var;
			}
			list_push(&k->dparams, dp);
			list_push(&k->params, dp->tensor ? (void *)dp->tensor : (void *)dp->var);
			list_push(&k->param_is_tensor, dp->tensor && p->kind == PK_VALUE ? dp->tensor : NULL);
		}
		k->contract = device_contract(kd, k);
		fence_mark(kd);
		kd->lowering = true;
		lower_stmts(walk, &kd->body);
		kd->lowering = false;
		protocol_complete_copies(walk->proto, EFF_COMPLETES_LOADS | EFF_COMPLETES_STORES, kd->loc);
		place_waits(walk);
		if (error_count == errors)
			tma_params_copied_only(k);
		if (error_count == errors)
			protocol_settled(walk->proto, kd->name_loc, pool_printf("at the return of '%s'", kd->name));
		protocol_end(walk->proto, kd->name, kd->name_loc);
		sema_set_protocol(NULL);
	}
	scope_pop();
	sema_set_unit(saved_unit);
	copy_explain_waits(k);
	scratch_free_all();
	return error_count == errors ? k : NULL;
}

Program *
lower_program(List *items, const char *source_name)
{
	return lower_program_with(items, source_name, &(LowerOptions){0});
}

Program *
lower_program_with(List *items, const char *source_name, const LowerOptions *opt)
{
	Program *p = pool_alloc(sizeof *p);
	p->source_name = source_name;
	FileWalk file = {.observer = opt->observer, .unchecked_waits = opt->unchecked_waits,
	                 .arch = opt->arch ? opt->arch : arch_default()};
	Walk *walk = &(Walk){.file = &file};
	sema_reset(opt->fast_math);
	scope_push();
	for (int i = 0; i < items->n; i++) {
		Item *it = LIST_AT(*items, Item, i);
		sema_set_protocol(NULL); /* a kernel that stopped at an error left its own */
		switch (it->kind) {
		case I_INCLUDE:
			break;
		case I_CONST: {
			int64_t v;
			if (!const_int(it->value, &v, "a const")) {
				sym_poison(it->name, it->name_loc);
				break;
			}
			Sym *s = sym_declare(SYM_CONST, it->name, it->name_loc);
			if (s)
				s->value = ie_int(v, v > INT32_MAX ? T_U32 : T_I32);
			break;
		}
		case I_LAYOUT: {
			Sym *s = sym_declare(SYM_LAYOUT, it->name, it->name_loc);
			if (s)
				s->layout = it->layout;
			break;
		}
		case I_DEVICE: {
			Sym *s = sym_declare(SYM_DEVICE, it->kernel->name, it->kernel->name_loc);
			if (!s)
				break;
			list_push(&walk->file->device_names, (void *)it->kernel->name);
			map_slot(&walk->file->device_name_order, it->kernel->name, true)->value =
				(void *)(intptr_t)walk->file->device_names.n;
			s->device = it->kernel;
			KernelIR *k = lower_device(walk, it->kernel);
			it->kernel->ir = k;
			if (k)
				list_push(&p->devices, k);
			break;
		}
		case I_KERNEL: {
			Sym *s = sym_declare(SYM_KERNEL, it->kernel->name, it->kernel->name_loc);
			if (!s)
				break;
			KernelIR *k = lower_kernel(walk, it->kernel);
			if (k)
				list_push(&p->kernels, k);
			break;
		}
		}
	}
	for (int i = 0; i < items->n; i++) {
		Item *it = LIST_AT(*items, Item, i);
		if (it->kind == I_LAYOUT && !it->layout->used && sym_lookup(it->name) &&
		    sym_lookup(it->name)->layout == it->layout)
			layout_check_unused(it->layout, it->name);
	}
	scope_pop();
	if (!p->kernels.n && !p->devices.n && !error_count) {
		/* a file of layouts and constants is meant for include; compiled alone it yields nothing */
		/* at the compiled file's first item: the items of its includes come first when it has some */
		Loc at = {1, 1, 1, 1, source_count() ? 0 : -1};
		for (int i = 0; i < items->n; i++)
			if (LIST_AT(*items, Item, i)->loc.file == at.file) {
				at = LIST_AT(*items, Item, i)->loc;
				break;
			}
		warn(WARN_EMPTY_OUTPUT, at, "%s declares no kernel; the output is empty", source_name);
	}
	return error_count ? NULL : p;
}
