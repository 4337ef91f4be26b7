/* launch.c: what libtilert computes or checks at launch, as programs (runtime/tilert.h, TILERT_GP_*) that
 * the CUDA C and the PTX carry: the grid (tilec_grid_<kernel>), the tensor maps of TMA copies
 * (tilec_tma_<kernel>) and the `align N` promises of the tensor parameters (tilec_align_<kernel>). */
#include <string.h>

#include "tilec.h"
#include "tilert.h"

typedef struct Prog {
	KernelIR *k;
	uint32_t *out;
	int n, max;
	bool ok;
} Prog;

static void
put(Prog *p, uint32_t w)
{
	if (p->n < p->max)
		p->out[p->n] = w;
	p->n++;
}

static int
param_kind(EType t)
{
	switch (t) {
	case T_U32: return TILERT_GP_U32;
	case T_I16: return TILERT_GP_I16;
	case T_U16: return TILERT_GP_U16;
	case T_I8: return TILERT_GP_I8;
	case T_U8: return TILERT_GP_U8;
	default: return TILERT_GP_I32;
	}
}

static void code(Prog *p, const IExpr *e);

/* cond ? then : other, evaluating only the side chosen. For && and || (truth), a side is its truth
   value, 0 or 1, and a NULL side is then's 1 or other's 0. */
static void
side(Prog *p, const IExpr *e, uint32_t constant, bool truth)
{
	if (!e) {
		put(p, TILERT_GP_CONST);
		put(p, constant);
		return;
	}
	code(p, e);
	if (truth) {
		put(p, TILERT_GP_NOT);
		put(p, TILERT_GP_NOT);
	}
}

/* A skip's count, written once the words it skips are out: counting them beforehand would code every
   nested ?: twice per level, exponential in its depth. */
static void
patch(Prog *p, int at, uint32_t w)
{
	if (at < p->max)
		p->out[at] = w;
}

static void
choose(Prog *p, const IExpr *cond, const IExpr *then, const IExpr *other, bool truth)
{
	code(p, cond);
	put(p, TILERT_GP_SKIPZ);
	int skipz = p->n;
	put(p, 0);
	side(p, then, 1, truth);
	put(p, TILERT_GP_SKIP);
	int skip = p->n;
	put(p, 0);
	side(p, other, 0, truth);
	patch(p, skipz, (uint32_t)(skip - skipz));
	patch(p, skip, (uint32_t)(p->n - skip - 1));
}

static void
code(Prog *p, const IExpr *e)
{
	static const uint32_t binary[][2] = {
		[OP_MUL] = {TILERT_GP_MUL, TILERT_GP_MUL}, [OP_DIV] = {TILERT_GP_DIV, TILERT_GP_DIVU},
		[OP_MOD] = {TILERT_GP_REM, TILERT_GP_REMU}, [OP_ADD] = {TILERT_GP_ADD, TILERT_GP_ADD},
		[OP_SUB] = {TILERT_GP_SUB, TILERT_GP_SUB}, [OP_SHL] = {TILERT_GP_SHL, TILERT_GP_SHL},
		[OP_SHR] = {TILERT_GP_SHR, TILERT_GP_SHRU}, [OP_LT] = {TILERT_GP_LT, TILERT_GP_LTU},
		[OP_LE] = {TILERT_GP_LE, TILERT_GP_LEU}, [OP_GT] = {TILERT_GP_GT, TILERT_GP_GTU},
		[OP_GE] = {TILERT_GP_GE, TILERT_GP_GEU}, [OP_EQ] = {TILERT_GP_EQ, TILERT_GP_EQ},
		[OP_NE] = {TILERT_GP_NE, TILERT_GP_NE}, [OP_BITAND] = {TILERT_GP_AND, TILERT_GP_AND},
		[OP_BITXOR] = {TILERT_GP_XOR, TILERT_GP_XOR}, [OP_BITOR] = {TILERT_GP_OR, TILERT_GP_OR},
		[OP_LAND] = {TILERT_GP_LAND, TILERT_GP_LAND}, [OP_LOR] = {TILERT_GP_LOR, TILERT_GP_LOR},
	};
	switch (e->kind) {
	case IE_INT:
		put(p, TILERT_GP_CONST);
		put(p, (uint32_t)e->ival);
		return;
	case IE_VAR:
		for (int i = 0; i < p->k->params.n; i++)
			if (LIST_AT(p->k->params, Var, i) == e->var && !LIST_AT(p->k->param_is_tensor, Tensor, i)) {
				put(p, TILERT_GP_PARAM);
				put(p, (uint32_t)i << 8 | (uint32_t)param_kind(e->var->type));
				return;
			}
		break;
	case IE_UNARY:
		code(p, e->a);
		put(p, e->op == OP_NEG ? TILERT_GP_NEG : e->op == OP_NOT ? TILERT_GP_NOT : TILERT_GP_BITNOT);
		return;
	case IE_SELECT:
		choose(p, e->a, e->b, e->index, false);
		return;
	case IE_BINARY:
		if (e->op == OP_LAND || e->op == OP_LOR) {
			/* C evaluates the right side only when the left one does not decide */
			choose(p, e->a, e->op == OP_LAND ? e->b : NULL, e->op == OP_LAND ? NULL : e->b, true);
			return;
		}
		code(p, e->a);
		code(p, e->b);
		/* the operands' type decides signedness (the left one for shifts), as in fold_int */
		put(p, binary[e->op][e->a->type == T_U32 || (e->op != OP_SHR && e->b->type == T_U32)]);
		return;
	case IE_CONV:
		code(p, e->a);
		if (e->to == T_I8 || e->to == T_U8 || e->to == T_I16 || e->to == T_U16)
			put(p, e->to == T_I8 ? TILERT_GP_SEXT8 : e->to == T_U8 ? TILERT_GP_ZEXT8
			       : e->to == T_I16 ? TILERT_GP_SEXT16 : TILERT_GP_ZEXT16);
		return;
	case IE_CALL:
		code(p, e->a);
		if (e->fn == F_ABS) {
			if (e->type != T_U32) /* an unsigned value is its own magnitude, as in the kernel's code */
				put(p, TILERT_GP_ABS);
			return;
		}
		code(p, e->b);
		put(p, e->fn == F_MIN ? (e->type == T_U32 ? TILERT_GP_MINU : TILERT_GP_MIN)
		                      : (e->type == T_U32 ? TILERT_GP_MAXU : TILERT_GP_MAX));
		return;
	default:
		break;
	}
	p->ok = false;
}

int
grid_depth(const IExpr *e)
{
	int a = e->a ? grid_depth(e->a) : 0, b = e->b ? grid_depth(e->b) : 0, c = e->index ? grid_depth(e->index) : 0;
	switch (e->kind) {
	case IE_INT:
	case IE_VAR:
		return 1;
	case IE_SELECT: /* each side starts where the condition was */
		return a > b ? (a > c ? a : c) : (b > c ? b : c);
	case IE_BINARY: /* b is pushed above a, except for && and ||, whose right side starts where a was */
		if (e->op == OP_LAND || e->op == OP_LOR)
			return a > b ? a : b;
		return a > b + 1 ? a : b + 1;
	case IE_CALL:
		return a > b + 1 ? a : b + 1;
	default:
		return a;
	}
}

int
grid_program(KernelIR *k, uint32_t *out, int max)
{
	Prog p = {k, out, 0, max, true};
	for (int d = 0; d < 3; d++) {
		if (k->grid_expr[d])
			code(&p, k->grid_expr[d]);
		put(&p, TILERT_GP_END);
	}
	if (!p.ok)
		fatal("grid_program: a grid expression that is not over constants and parameters");
	return p.n;
}

bool
grid_at_launch(const KernelIR *k)
{
	return k->grid_expr[0] || k->grid_expr[1] || k->grid_expr[2];
}

int
tma_dtype(EType t)
{
	switch (t) {
	case T_U8: case T_I8: case T_E4M3: case T_E5M2: case T_UE8M0: case T_UE4M3: return 0; /* UINT8 */
	case T_U16: case T_I16: return 1;                                                     /* UINT16 */
	case T_U32: return 2;                                                                 /* UINT32 */
	case T_I32: return 3;                                                                 /* INT32 */
	case T_F16: return 6;                                                                 /* FLOAT16 */
	case T_F32: return 7;                                                                 /* FLOAT32 */
	case T_BF16: return 9;                                                                /* BFLOAT16 */
	default: return -1;
	}
}

/* A name for libtilert's messages: its length, then four bytes a word, the first in the low byte. */
static void
put_name(Prog *p, const char *name)
{
	size_t len = strlen(name);
	put(p, (uint32_t)len);
	for (size_t c = 0; c < len; c += 4) {
		uint32_t w = 0;
		for (size_t b = 0; b < 4 && c + b < len; b++)
			w |= (uint32_t)(unsigned char)name[c + b] << (8 * b);
		put(p, w);
	}
}

int
tma_program(KernelIR *k, uint32_t *out, int max)
{
	Prog p = {k, out, 0, max, true};
	put(&p, (uint32_t)k->tma_maps.n);
	/* the kernel's own parameters, which the maps follow: libtilert cannot always ask the driver (#27) */
	put(&p, (uint32_t)k->params.n);
	for (int i = 0; i < k->tma_maps.n; i++) {
		const TmaMap *m = LIST_AT(k->tma_maps, TmaMap, i);
		const Tensor *t = m->tensor;
		int dtype = tma_dtype(t->type);
		if (dtype < 0)
			fatal("tma_program: no tensor map type for %s", etype_name(t->type));
		put(&p, (uint32_t)t->index);
		put(&p, (uint32_t)m->rank);
		put(&p, (uint32_t)dtype);
		put(&p, (uint32_t)m->swizzle); /* SW_NONE .. SW_128B are CU_TENSOR_MAP_SWIZZLE_NONE .. 128B */
		put(&p, (uint32_t)(etype_bits(t->type) / 8));
		for (int d = 0; d < TMA_MAX_RANK; d++)
			put(&p, d < m->rank ? (uint32_t)m->box[d] : 0);
		/* the dimensions, innermost first, then the strides of dimensions 1.. in elements: nine programs */
		for (int d = 0; d < TMA_MAX_RANK; d++) {
			if (d < m->rank)
				code(&p, t->rdims[m->rank - 1 - d]);
			put(&p, TILERT_GP_END);
		}
		IExpr *stride = ie_int(1, T_I64);
		for (int d = m->rank - 1; d >= 0; d--) {
			IExpr *sd = t->rstrides[d] ? t->rstrides[d] : stride;
			stride = ie_binary(OP_MUL, stride, ie_convert(t->rdims[d], T_I64));
			if (d < m->rank - 1)
				code(&p, sd);
			if (d < m->rank - 1)
				put(&p, TILERT_GP_END);
		}
		for (int d = m->rank; d < TMA_MAX_RANK; d++)
			put(&p, TILERT_GP_END);
		put_name(&p, t->name);
	}
	if (!p.ok)
		fatal("tma_program: a dimension or stride that is not over constants and parameters");
	return p.n;
}

int
align_program(KernelIR *k, uint32_t *out, int max)
{
	Prog p = {k, out, 0, max, true};
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (!t || !t->align)
			continue;
		put(&p, (uint32_t)i);
		put(&p, (uint32_t)t->align);
		put(&p, (uint32_t)(etype_bits(t->type) / 8));
		put_name(&p, t->name);
		/* the outer strides known only at launch; lower.c checked the constant ones */
		int outer = t->wide ? t->rank - 1 : 0;
		put(&p, (uint32_t)outer);
		for (int d = 0; d < outer; d++) {
			code(&p, t->rstrides[d]);
			put(&p, TILERT_GP_END);
		}
	}
	if (!p.ok)
		fatal("align_program: a stride that is not over constants and parameters");
	return p.n;
}

const char *
align_promise_text(const Tensor *t)
{
	if (!t->align)
		return "";
	return pool_printf("// %s: align %d promised: its address and the start of each row (each outer stride times %d "
	                   "bytes) are multiples of %d bytes, so its accesses are %d bytes wide without a run-time test\n",
	                   t->name, t->align, etype_bits(t->type) / 8, t->align, t->align);
}
