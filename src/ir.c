/* ir.c: the expression IR (IExpr: its nodes built and folded, evaluated, compared, summed in one order)
 * and the ir target (--emit=ir): the lowered program as readable text, one line per statement, in the
 * spelling of .tile expressions; tcgen05 instructions as the back ends spell them (docs/internals.md). */
#include <math.h>
#include <string.h>

#include "tilec.h"

/* ---------------------------------------------------------------- the expression IR */

static const FuncInfo funcs[F_COUNT] = {
	[F_MIN] = {"min", 2, false}, [F_MAX] = {"max", 2, false}, [F_ABS] = {"abs", 1, false},
	[F_FMA] = {"fma", 3, true}, [F_EXP] = {"exp", 1, true}, [F_EXP2] = {"exp2", 1, true},
	[F_LOG] = {"log", 1, true}, [F_LOG2] = {"log2", 1, true}, [F_SQRT] = {"sqrt", 1, true},
	[F_RSQRT] = {"rsqrt", 1, true}, [F_TANH] = {"tanh", 1, true}, [F_ERF] = {"erf", 1, true},
	[F_SIN] = {"sin", 1, true}, [F_COS] = {"cos", 1, true},
	[F_EXP_APPROX] = {"exp_approx", 1, true}, [F_EXP2_APPROX] = {"exp2_approx", 1, true},
	[F_RCP_APPROX] = {"rcp_approx", 1, true}, [F_RSQRT_APPROX] = {"rsqrt_approx", 1, true},
	[F_SHFL_XOR] = {"shfl_xor", 2, false, true, false}, [F_SHFL_IDX] = {"shfl_idx", 2, false, true, false},
	[F_SHFL_DOWN] = {"shfl_down", 2, false, true, false}, [F_SHFL_UP] = {"shfl_up", 2, false, true, false},
	[F_ANY] = {"any", 1, false, true, true}, [F_ALL] = {"all", 1, false, true, true},
	[F_BALLOT] = {"ballot", 1, false, true, true}, [F_WARP_SUM] = {"warp_sum", 1, false, true, true},
	[F_WARP_MAX] = {"warp_max", 1, false, true, true}, [F_WARP_MIN] = {"warp_min", 1, false, true, true},
	[F_LANES_SUM] = {"lanes_sum", 2, false, true, false}, [F_LANES_MAX] = {"lanes_max", 2, false, true, false},
	[F_LANES_MIN] = {"lanes_min", 2, false, true, false},
};

bool
func_lookup(const char *name, Func *out)
{
	for (int f = 0; f < F_COUNT; f++)
		if (strcmp(funcs[f].name, name) == 0) {
			*out = (Func)f;
			return true;
		}
	return false;
}

const FuncInfo *
func_info(Func f)
{
	return &funcs[f];
}

const char *
func_name(Func f)
{
	return funcs[f].name;
}

EType
value_type(EType t)
{
	if (etype_is_float(t))
		return T_F32;
	return t == T_U32 || t == T_I64 ? t : T_I32;
}

IExpr *
ie_new(IKind kind, EType type)
{
	IExpr *e = pool_alloc(sizeof *e);
	e->kind = kind;
	e->type = type;
	return e;
}

IExpr *
ie_with_children(const IExpr *e, IExpr *a, IExpr *b, IExpr *index)
{
	IExpr *c = pool_alloc(sizeof *c);
	*c = *e;
	c->a = a;
	c->b = b;
	c->index = index;
	return c;
}

IExpr *
ie_int(int64_t v, EType type)
{
	IExpr *e = ie_new(IE_INT, type);
	e->ival = type == T_U32 ? (int64_t)(uint32_t)v : type == T_I64 ? v : (int64_t)(int32_t)v;
	return e;
}

IExpr *
ie_float(double v)
{
	IExpr *e = ie_new(IE_FLOAT, T_F32);
	e->fval = (float)v;
	return e;
}

IExpr *
ie_builtin(Builtin b)
{
	IExpr *e = ie_new(IE_BUILTIN, T_I32);
	e->builtin = b;
	return e;
}

IExpr *
ie_var(Var *v, EType type)
{
	IExpr *e = ie_new(IE_VAR, type);
	e->var = v;
	return e;
}

bool
ie_is_const(const IExpr *e, int64_t *out)
{
	if (e->kind != IE_INT)
		return false;
	*out = e->ival;
	return true;
}

/* Rounds a float to a 16-bit float format, for constant conversions. */
static double
round_to(double v, EType to)
{
	if (etype_is_minifloat(to))
		return minifloat_round(to, v);
	if (to == T_BF16) {
		float f = (float)v;
		uint32_t bits;
		memcpy(&bits, &f, 4);
		if ((bits & 0x7f800000u) != 0x7f800000u)
			bits += 0x7fffu + ((bits >> 16) & 1);
		bits &= 0xffff0000u;
		memcpy(&f, &bits, 4);
		return f;
	}
	if (to == T_F16) {
		if (v != v || fabs(v) >= 65520.0)
			return v != v ? v : copysign(INFINITY, v);
		int exp;
		frexp(v, &exp);
		int shift = exp - 1 < -14 ? -24 : exp - 11; /* ulp of the f16 result */
		return nearbyint(ldexp(v, -shift)) * ldexp(1.0, shift);
	}
	return (float)v;
}

static int64_t
wrap(int64_t v, EType t)
{
	if (t == T_I64)
		return v;
	return t == T_U32 ? (int64_t)(uint32_t)v : (int64_t)(int32_t)(uint32_t)v;
}

static int64_t
int_convert(int64_t v, EType to)
{
	switch (to) {
	case T_I8: return (int8_t)v;
	case T_U8: return (uint8_t)v;
	case T_I16: return (int16_t)v;
	case T_U16: return (uint16_t)v;
	case T_U32: return (uint32_t)v;
	case T_I64: return v;
	default: return (int32_t)(uint32_t)v;
	}
}

/* A float converted to an integer as the GPU's cvt.rzi does (and the emulator): toward zero, saturated to
   i32 (signed) or u32, NaN to 0; a narrower type then keeps the low bits (int_convert). */
static int64_t
float_to_int(double v, bool is_signed)
{
	double lo = is_signed ? -2147483648.0 : 0.0, hi = is_signed ? 2147483647.0 : 4294967295.0;
	return v != v ? 0 : v <= lo ? (int64_t)lo : v >= hi ? (int64_t)hi : (int64_t)v;
}

IExpr *
ie_convert(IExpr *e, EType to)
{
	EType vt = value_type(to);
	if (e->kind == IE_INT && !etype_is_float(to))
		return ie_int(int_convert(e->ival, to), vt);
	if (e->kind == IE_INT && etype_is_float(to))
		return ie_float(round_to((double)e->ival, to));
	if (e->kind == IE_FLOAT && etype_is_float(to))
		return ie_float(round_to(e->fval, to));
	if (e->kind == IE_FLOAT && !etype_is_float(to) && to != T_I64)
		return ie_int(int_convert(float_to_int(e->fval, etype_is_signed(to)), to), vt);
	if (e->type == to && (to == T_I32 || to == T_U32 || to == T_F32 || to == T_I64))
		return e;
	if (e->kind == IE_CONV && e->to == to)
		return e; /* already rounded to that type */
	IExpr *c = ie_new(IE_CONV, vt);
	c->a = e;
	c->to = to;
	return c;
}

static bool
op_is_compare(Op op)
{
	return op >= OP_LT && op <= OP_NE;
}

/* Folds a binary operation on constants as 32-bit C does; false when it is undefined. */
static bool
fold_int(Op op, int64_t x, int64_t y, EType t, int64_t *out)
{
	uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
	bool u = t == T_U32;
	if (t == T_I64) {
		/* offsets: + - * only, wrapping as the 64-bit machine does */
		uint64_t a = (uint64_t)x, b = (uint64_t)y;
		switch (op) {
		case OP_ADD: *out = (int64_t)(a + b); return true;
		case OP_SUB: *out = (int64_t)(a - b); return true;
		case OP_MUL: *out = (int64_t)(a * b); return true;
		default: return false;
		}
	}
	switch (op) {
	case OP_MUL: *out = (int64_t)((uint64_t)x * (uint64_t)y); break;
	case OP_DIV:
	case OP_MOD:
		if (y == 0 || (!u && x == INT32_MIN && y == -1))
			return false;
		if (u)
			*out = op == OP_DIV ? ux / uy : ux % uy;
		else
			*out = op == OP_DIV ? x / y : x % y;
		break;
	case OP_ADD: *out = x + y; break;
	case OP_SUB: *out = x - y; break;
	case OP_SHL:
		if (uy >= 32)
			return false;
		*out = (int64_t)(ux << uy);
		break;
	case OP_SHR:
		if (uy >= 32)
			return false;
		*out = u ? (int64_t)(ux >> uy) : (int64_t)((int32_t)ux >> uy);
		break;
	case OP_LT: *out = u ? ux < uy : x < y; break;
	case OP_LE: *out = u ? ux <= uy : x <= y; break;
	case OP_GT: *out = u ? ux > uy : x > y; break;
	case OP_GE: *out = u ? ux >= uy : x >= y; break;
	case OP_EQ: *out = ux == uy; break;
	case OP_NE: *out = ux != uy; break;
	case OP_BITAND: *out = ux & uy; break;
	case OP_BITXOR: *out = ux ^ uy; break;
	case OP_BITOR: *out = ux | uy; break;
	case OP_LAND: *out = x && y; break;
	case OP_LOR: *out = x || y; break;
	default: return false;
	}
	*out = wrap(*out, op_is_compare(op) || op == OP_LAND || op == OP_LOR ? T_I32 : t);
	return true;
}

IExpr *
ie_binary(Op op, IExpr *a, IExpr *b)
{
	EType t;
	if (op == OP_LAND || op == OP_LOR)
		t = T_I32;
	else if (op == OP_SHL || op == OP_SHR)
		t = a->type;
	else if (a->type == T_F32 || b->type == T_F32)
		t = T_F32;
	else if (a->type == T_I64 || b->type == T_I64)
		t = T_I64;
	else if (a->type == T_U32 || b->type == T_U32)
		t = T_U32;
	else
		t = T_I32;
	EType operand = op == OP_SHL || op == OP_SHR ? a->type : t;
	if (op != OP_LAND && op != OP_LOR) {
		if (operand == T_F32) {
			a = ie_convert(a, T_F32);
			b = ie_convert(b, T_F32);
		} else if (op != OP_SHL && op != OP_SHR) {
			a = ie_convert(a, operand);
			b = ie_convert(b, operand);
		}
	}
	EType result = op_is_compare(op) ? T_I32 : t;
	int64_t x, y, v;
	if (a->kind == IE_INT && b->kind == IE_INT && fold_int(op, a->ival, b->ival, operand, &v))
		return ie_int(v, result);
	IExpr *e = ie_new(IE_BINARY, result);
	e->op = op;
	e->a = a;
	e->b = b;
	/* x + 0, x * 1 and friends keep generated address arithmetic readable */
	if (operand != T_F32) {
		if (ie_is_const(b, &y) && y == 0 && (op == OP_ADD || op == OP_SUB || op == OP_BITOR || op == OP_SHL))
			return a;
		if (ie_is_const(a, &x) && x == 0 && (op == OP_ADD || op == OP_BITOR))
			return b;
		if (ie_is_const(b, &y) && y == 1 && (op == OP_MUL || op == OP_DIV))
			return a;
		if (ie_is_const(a, &x) && x == 1 && op == OP_MUL)
			return b;
	}
	return e;
}

uint32_t
half_bits(double v, EType t)
{
	float f = (float)v;
	uint32_t b;
	memcpy(&b, &f, 4);
	if ((b & 0x7fffffffu) > 0x7f800000u)
		return 0x7fffu; /* a NaN: the canonical one, as cvt.rn.f16.f32 and cvt.rn.bf16.f32 give */
	if (t == T_BF16) {
		return (b + 0x7fffu + ((b >> 16) & 1u)) >> 16; /* to nearest, ties to even */
	}
	uint32_t sign = (b >> 16) & 0x8000u;
	int exp = (int)((b >> 23) & 0xff) - 127;
	uint32_t man = b & 0x7fffffu;
	if (exp == 128)
		return sign | 0x7c00u;
	/* the bits of the 24-bit significand below an f16's last: 13, more for an f16 subnormal; a
	   value below half the least subnormal (f32 subnormals and zero too) rounds to zero */
	int shift = exp < -14 ? 13 - 14 - exp : 13;
	if (shift > 24)
		return sign;
	uint32_t m = man | 0x800000u;
	uint32_t q = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
	q += rest > half || (rest == half && (q & 1u));
	/* a carry out of the significand moves into the exponent, up to infinity */
	uint32_t bits = exp < -14 ? q : (uint32_t)(exp + 14) * 0x400u + q;
	return sign | (bits >= 0x7c00u ? 0x7c00u : bits);
}

bool
ie_eval_thread_block(const IExpr *e, const int dims[3], int thread, const int64_t *block, int64_t *out)
{
	int64_t x, y;
	switch (e->kind) {
	case IE_INT:
		*out = e->ival;
		return true;
	case IE_BUILTIN:
		switch (e->builtin) {
		case B_WARP_ID: *out = thread / 32; return true;
		case B_LANE_ID: *out = thread % 32; return true;
		case B_WARPGROUP_ID: *out = thread / 128; return true;
		case B_THREAD_X: *out = thread % dims[0]; return true;
		case B_THREAD_Y: *out = thread / dims[0] % dims[1]; return true;
		case B_THREAD_Z: *out = thread / (dims[0] * dims[1]); return true;
		case B_BLOCK_X: case B_BLOCK_Y: case B_BLOCK_Z:
			if (!block)
				return false;
			*out = block[e->builtin - B_BLOCK_X];
			return true;
		default: return false;
		}
	case IE_VAR:
		return e->var->is_let && e->var->def && ie_eval_thread_block(e->var->def, dims, thread, block, out);
	case IE_UNARY:
		if (!ie_eval_thread_block(e->a, dims, thread, block, &x))
			return false;
		*out = wrap(e->op == OP_NEG ? -x : e->op == OP_NOT ? !x : ~x, e->op == OP_NOT ? T_I32 : e->type);
		return true;
	case IE_SELECT:
		return ie_eval_thread_block(e->a, dims, thread, block, &x) &&
		       ie_eval_thread_block(x ? e->b : e->index, dims, thread, block, out);
	case IE_BINARY:
		if (!ie_eval_thread_block(e->a, dims, thread, block, &x) ||
		    !ie_eval_thread_block(e->b, dims, thread, block, &y))
			return false;
		return fold_int(e->op, x, y, e->op == OP_SHL || e->op == OP_SHR ? e->a->type : e->a->type, out);
	case IE_CONV:
		if (etype_is_float(e->to) || !ie_eval_thread_block(e->a, dims, thread, block, &x))
			return false;
		*out = int_convert(x, e->to);
		return true;
	default:
		return false;
	}
}

bool
ie_eval_thread(const IExpr *e, const int dims[3], int thread, int64_t *out)
{
	return ie_eval_thread_block(e, dims, thread, NULL, out);
}

/* Whether an i32 value is known not to be negative (signed overflow being undefined in C); var_nonneg,
   where given, knows more variables than their definitions say (the PTX emitter's loop counters). */
bool
ie_nonneg_with(const IExpr *e, bool (*var_nonneg)(const Var *))
{
	int64_t c;
	if (ie_is_const(e, &c))
		return c >= 0;
	switch (e->kind) {
	case IE_BUILTIN:
		return true;
	case IE_VAR:
		if (var_nonneg && var_nonneg(e->var))
			return true;
		return e->var->is_let && e->var->def && ie_nonneg_with(e->var->def, var_nonneg);
	case IE_SELECT:
		return ie_nonneg_with(e->b, var_nonneg) && ie_nonneg_with(e->index, var_nonneg);
	case IE_BINARY:
		if (e->type != T_I32)
			return false;
		switch (e->op) {
		case OP_BITAND: return ie_nonneg_with(e->a, var_nonneg) || ie_nonneg_with(e->b, var_nonneg);
		case OP_MOD: return ie_nonneg_with(e->a, var_nonneg); /* C's remainder has the sign of the dividend */
		case OP_ADD: case OP_MUL: case OP_DIV: case OP_SHR: case OP_BITOR: case OP_BITXOR:
			return ie_nonneg_with(e->a, var_nonneg) && ie_nonneg_with(e->b, var_nonneg);
		default: return false;
		}
	default:
		return false;
	}
}

bool
ie_nonneg(const IExpr *e)
{
	return ie_nonneg_with(e, NULL);
}

bool
ie_params_only(const IExpr *e)
{
	if (!e)
		return true;
	switch (e->kind) {
	case IE_INT:
		return true;
	case IE_VAR:
		return e->var->is_param && e->type != T_F32;
	case IE_UNARY:
	case IE_BINARY:
	case IE_SELECT:
	case IE_CONV:
	case IE_CALL:
		return e->type != T_F32 && !(e->kind == IE_CALL && funcs[e->fn].collective) && ie_params_only(e->a) &&
		       ie_params_only(e->b) && ie_params_only(e->index);
	default:
		return false;
	}
}

bool
ie_eval_params(const IExpr *e, int64_t (*value)(const Var *v, void *ctx), void *ctx, int64_t *out)
{
	int64_t x, y;
	switch (e->kind) {
	case IE_INT:
		*out = e->ival;
		return true;
	case IE_VAR:
		if (!e->var->is_param)
			return false;
		*out = wrap(int_convert(value(e->var, ctx), e->var->type), e->type);
		return true;
	case IE_UNARY:
		if (!ie_eval_params(e->a, value, ctx, &x))
			return false;
		*out = wrap(e->op == OP_NEG ? (int64_t)(0 - (uint64_t)x) : e->op == OP_NOT ? !x : ~x,
		            e->op == OP_NOT ? T_I32 : e->type);
		return true;
	case IE_SELECT:
		return ie_eval_params(e->a, value, ctx, &x) && ie_eval_params(x ? e->b : e->index, value, ctx, out);
	case IE_BINARY:
		if (!ie_eval_params(e->a, value, ctx, &x))
			return false;
		if ((e->op == OP_LAND && !x) || (e->op == OP_LOR && x)) {
			*out = e->op == OP_LOR; /* C leaves the right side unevaluated */
			return true;
		}
		if (!ie_eval_params(e->b, value, ctx, &y))
			return false;
		return fold_int(e->op, x, y, e->a->type, out);
	case IE_CONV:
		if (etype_is_float(e->to) || !ie_eval_params(e->a, value, ctx, &x))
			return false;
		*out = int_convert(x, e->to);
		return true;
	case IE_CALL:
		if (!ie_eval_params(e->a, value, ctx, &x))
			return false;
		if (e->fn == F_ABS) {
			*out = wrap(x < 0 ? (int64_t)(0 - (uint64_t)x) : x, e->type);
			return true;
		}
		if ((e->fn != F_MIN && e->fn != F_MAX) || !ie_eval_params(e->b, value, ctx, &y))
			return false;
		bool less = e->type == T_U32 ? (uint32_t)x < (uint32_t)y : x < y;
		*out = less == (e->fn == F_MIN) ? x : y;
		return true;
	default:
		return false;
	}
}

/* Whether e may differ between the lanes of a warp (BY_LANE), the threads of a CTA (BY_THREAD), or does by
   the thread's indices with no memory, register or var in between (BY_INDEX). */
enum { BY_LANE, BY_THREAD, BY_INDEX };

static bool
may_differ(const IExpr *e, int by)
{
	if (!e)
		return false;
	switch (e->kind) {
	case IE_BUILTIN:
		if (by == BY_LANE)
			return e->builtin == B_LANE_ID || e->builtin == B_THREAD_X || e->builtin == B_THREAD_Y ||
			       e->builtin == B_THREAD_Z;
		return e->builtin != B_BLOCK_X && e->builtin != B_BLOCK_Y && e->builtin != B_BLOCK_Z;
	case IE_VAR:
		if (by == BY_LANE)
			return e->var->varying;
		if (by == BY_INDEX)
			return e->var->is_let && may_differ(e->var->def, by);
		return e->var->varying || e->var->per_thread || (e->var->is_let && may_differ(e->var->def, by));
	case IE_REG:
		return by != BY_INDEX;
	case IE_LOAD:
		return by != BY_INDEX && may_differ(e->index, by);
	case IE_SADDR:
		return may_differ(e->index, by);
	case IE_CALL:
		/* a collective's value comes from other lanes' registers; some are the same in the whole warp */
		if (funcs[e->fn].collective)
			return by == BY_THREAD || (by == BY_LANE && !funcs[e->fn].lane_uniform);
		return may_differ(e->a, by) || may_differ(e->b, by) || may_differ(e->index, by);
	default:
		return may_differ(e->a, by) || may_differ(e->b, by) || may_differ(e->index, by);
	}
}

bool
ie_varying(const IExpr *e)
{
	return may_differ(e, BY_LANE);
}

bool
ie_per_thread(const IExpr *e)
{
	return may_differ(e, BY_THREAD);
}

bool
ie_thread_index(const IExpr *e)
{
	return may_differ(e, BY_INDEX);
}

const IExpr *
global_index(const Tensor *t, const IExpr *index)
{
	if (!t->base_off)
		return index;
	return ie_binary(OP_ADD, t->base_off, ie_convert((IExpr *)index, T_I64));
}

int
tensor_align(const Tensor *t)
{
	int a = t->base_align ? t->base_align : 16;
	for (int i = 0; i < t->align_from.n; i++) {
		int b = tensor_align(LIST_AT(t->align_from, Tensor, i));
		a = b < a ? b : a;
	}
	/* an `align N` promise holds for every pointer passed: tilec checks it at each call, the launch at run time */
	return t->align > a ? t->align : a;
}

bool
view_at_same(const ViewAt *a, const ViewAt *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->base, b->base) && a->rank == b->rank &&
	       !memcmp(a->dims, b->dims, sizeof a->dims);
}

/* Whether two view accesses (ViewAt) are the same view at the same indices. */
static bool
view_at_equal(const ViewAt *a, const ViewAt *b)
{
	if (a == b)
		return true;
	if (!a || !b || !view_at_same(a, b))
		return false;
	for (int i = 0; i < a->rank; i++)
		if (!ie_equal(a->at[i], b->at[i]))
			return false;
	return true;
}

bool
ie_equal(const IExpr *a, const IExpr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->type != b->type)
		return false;
	switch (a->kind) {
	case IE_INT: return a->ival == b->ival;
	case IE_FLOAT: return memcmp(&a->fval, &b->fval, sizeof a->fval) == 0;
	case IE_VAR: return a->var == b->var;
	case IE_BUILTIN: return a->builtin == b->builtin;
	case IE_LOAD: return a->tensor == b->tensor && ie_equal(a->index, b->index) && view_at_equal(a->view_at, b->view_at);
	case IE_SADDR: return a->tensor == b->tensor && ie_equal(a->index, b->index);
	case IE_REG: return a->tensor == b->tensor && a->slot == b->slot;
	case IE_UNARY: return a->op == b->op && ie_equal(a->a, b->a);
	case IE_BINARY: return a->op == b->op && ie_equal(a->a, b->a) && ie_equal(a->b, b->b) && ie_equal(a->index, b->index);
	case IE_CONV: return a->to == b->to && ie_equal(a->a, b->a);
	case IE_CALL: return a->fn == b->fn && ie_equal(a->a, b->a) && ie_equal(a->b, b->b) && ie_equal(a->index, b->index);
	case IE_SELECT: return ie_equal(a->a, b->a) && ie_equal(a->b, b->b) && ie_equal(a->index, b->index);
	}
	return false;
}

static IExpr *
node(IKind kind, EType type, Op op, IExpr *a, IExpr *b)
{
	IExpr *e = ie_new(kind, type);
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

static int
cmp_int(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int
cmp_name(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

int
ie_order(const IExpr *a, const IExpr *b)
{
	if (!a || !b)
		return !a - !b ? (!a ? -1 : 1) : 0;
	/* constants last, so that they end a sum where ie_split_offset takes them */
	int ca = a->kind == IE_INT, cb = b->kind == IE_INT;
	int c = ca != cb ? ca - cb : cmp_int(a->kind, b->kind);
	if (!c)
		c = cmp_int(a->type, b->type);
	if (c)
		return c;
	switch (a->kind) {
	case IE_INT: return cmp_int(a->ival, b->ival);
	case IE_FLOAT: return memcmp(&a->fval, &b->fval, sizeof a->fval);
	case IE_VAR: return cmp_name(a->var->cname, b->var->cname);
	case IE_BUILTIN: return cmp_int(a->builtin, b->builtin);
	case IE_REG:
		c = cmp_name(a->tensor->cname, b->tensor->cname);
		return c ? c : cmp_int(a->slot, b->slot);
	case IE_LOAD:
	case IE_SADDR:
		c = cmp_name(a->tensor->cname, b->tensor->cname);
		return c ? c : ie_order(a->index, b->index);
	case IE_CONV:
		c = cmp_int(a->to, b->to);
		return c ? c : ie_order(a->a, b->a);
	case IE_UNARY:
	case IE_BINARY:
	case IE_CALL:
	case IE_SELECT:
		c = a->kind == IE_CALL ? cmp_int(a->fn, b->fn) : cmp_int(a->op, b->op);
		if (!c)
			c = ie_order(a->a, b->a);
		if (!c)
			c = ie_order(a->b, b->b);
		return c ? c : ie_order(a->index, b->index);
	}
	return 0;
}

static void
sum_terms(IExpr *e, EType type, List *terms)
{
	if (e->kind == IE_BINARY && e->op == OP_ADD && e->type == type && e->a->type == type && e->b->type == type) {
		sum_terms(e->a, type, terms);
		sum_terms(e->b, type, terms);
	} else {
		list_push(terms, e);
	}
}

IExpr *
ie_sorted_sum(IExpr *e)
{
	if (!e || e->kind != IE_BINARY || e->op != OP_ADD || (e->type != T_I32 && e->type != T_U32 && e->type != T_I64))
		return e;
	List terms = {0};
	sum_terms(e, e->type, &terms);
	/* insertion sort: sums have a few terms, and equal terms keep their order */
	for (int i = 1; i < terms.n; i++)
		for (int j = i; j > 0 && ie_order(terms.v[j - 1], terms.v[j]) > 0; j--) {
			void *t = terms.v[j];
			terms.v[j] = terms.v[j - 1];
			terms.v[j - 1] = t;
		}
	IExpr *sum = terms.v[0];
	for (int i = 1; i < terms.n; i++)
		sum = node(IE_BINARY, e->type, OP_ADD, sum, terms.v[i]);
	return sum;
}

/* Only through i32 and i64 + and -: their overflow is undefined in C, so moving a constant out cannot
 * change a defined result; an unsigned index wraps before it is widened. */
IExpr *
ie_split_offset(IExpr *e, int64_t *c)
{
	int64_t v;
	if (ie_is_const(e, &v)) {
		*c = v;
		return NULL;
	}
	if (e->kind == IE_BINARY && (e->type == T_I32 || e->type == T_I64) && (e->op == OP_ADD || e->op == OP_SUB) &&
	    e->a->type == e->type && e->b->type == e->type) {
		int64_t ca, cb;
		IExpr *ra = ie_split_offset(e->a, &ca), *rb = ie_split_offset(e->b, &cb);
		if (ca || cb) {
			*c = e->op == OP_ADD ? ca + cb : ca - cb;
			if (!rb)
				return ra;
			if (!ra)
				return e->op == OP_ADD ? rb : node(IE_UNARY, e->type, OP_NEG, rb, NULL);
			return node(IE_BINARY, e->type, e->op, ra, rb);
		}
	}
	if (e->kind == IE_CONV && e->to == T_I64 && e->a->type == T_I32) {
		/* (long long)(x + k) is (long long)x + k for the same reason: a runtime shape's column
		   c + j then shares its row's 64-bit address (copy_wait_split: 255 registers, 400 bytes of
		   spills before, as nvcc, which knows the add cannot wrap, 128 after) */
		int64_t ca;
		IExpr *ra = ie_split_offset(e->a, &ca);
		if (ca) {
			*c = ca;
			return ra ? ie_convert(ra, T_I64) : NULL;
		}
	}
	*c = 0;
	return e;
}

/* Whether e is one of the outer strides of global tensor t (the strides that its `align N` promise
 * covers: every one but the innermost's). */
static bool
outer_stride(const IExpr *e, const Tensor *t)
{
	for (int d = 0; t->wide && d + 1 < t->rank; d++)
		if (t->rstrides[d] && ie_equal(e, t->rstrides[d]))
			return true;
	return false;
}

/* known_factor, where t is not NULL: an outer stride of t counts as a multiple of the elements its
 * `align N` promise gives (N / element size). */
static int64_t
factor_of(const IExpr *e, const Tensor *t)
{
	const int64_t top = 1 << 20;
	int64_t v;
	if (!e)
		return top;
	if (t && t->align && etype_bits(t->type) >= 8 && outer_stride(e, t))
		return t->align / (etype_bits(t->type) / 8);
	if (ie_is_const(e, &v)) {
		uint32_t u = (uint32_t)v;
		return u == 0 ? top : (int64_t)(u & -u) < top ? (int64_t)(u & -u) : top;
	}
	switch (e->kind) {
	case IE_VAR:
		return e->var->is_let && e->var->def ? factor_of(e->var->def, t) : 1;
	case IE_CONV:
		return e->to == T_I32 || e->to == T_U32 || e->to == T_I64 ? factor_of(e->a, t) : 1;
	case IE_SELECT: {
		int64_t b = factor_of(e->b, t), c = factor_of(e->index, t);
		return b < c ? b : c;
	}
	case IE_BINARY: {
		int64_t a = factor_of(e->a, t), b = e->b ? factor_of(e->b, t) : 1, r = 1;
		switch (e->op) {
		case OP_MUL: r = a * b; break;
		case OP_ADD:
		case OP_SUB: r = a < b ? a : b; break;
		case OP_SHL:
			r = ie_is_const(e->b, &v) && v >= 0 && v < 32 ? a << v : 1;
			break;
		case OP_BITAND: r = a > b ? a : b; break;
		case OP_MOD: r = a < b ? a : b; break; /* x - m * q: both terms multiples of the smaller */
		default: r = 1; break;
		}
		return r < top ? r : top;
	}
	default:
		return 1;
	}
}

/* The largest power of two (up to 2^20) known to divide an integer value; powers of two divide
 * 2^32, so wrapping arithmetic keeps them. */
int64_t
known_factor(const IExpr *e)
{
	return factor_of(e, NULL);
}

int64_t
index_factor(const IExpr *e, const Tensor *t)
{
	return factor_of(e, t->kind == TK_GLOBAL ? t : NULL);
}

int
tensor_row_align(const Tensor *t)
{
	int size = etype_bits(t->type) / 8, a = 16;
	int64_t stride = 1;
	for (int d = t->rank - 1; d > 0; d--) {
		stride *= t->wide ? 1 : t->dims[d];
		int64_t f = (t->wide ? index_factor(t->rstrides[d - 1], t) : known_factor(ie_int(stride, T_I64))) * size;
		a = f < a ? (int)f : a;
	}
	return a;
}

bool
loads_from(const IExpr *e, const Tensor *t)
{
	if (!e)
		return false;
	if ((e->kind == IE_LOAD || e->kind == IE_SADDR) && e->tensor == t)
		return true;
	return loads_from(e->a, t) || loads_from(e->b, t) || loads_from(e->index, t);
}

bool
list_loads(const List *list, const Tensor *t)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (loads_from(s->value, t) || loads_from(s->index, t) || loads_from(s->cond, t) || loads_from(s->lo, t) ||
		    loads_from(s->hi, t) || loads_from(tc_addr(s), t) || list_loads(&s->body, t) || list_loads(&s->els, t))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------- the ir target */

typedef struct IrWriter {
	Buf *out;
	int indent;
} IrWriter;

static void expr(IrWriter *w, const IExpr *e);

/* An expression where it needs no parentheses of its own: a statement's value, an index, an argument. */
static void
expr_top(IrWriter *w, const IExpr *e)
{
	if (e->kind != IE_BINARY) {
		expr(w, e);
		return;
	}
	expr(w, e->a);
	buf_printf(w->out, " %s ", op_text(e->op));
	expr(w, e->b);
}

static void
line(IrWriter *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Starts a line at the current indent; the caller ends it. */
static void
line(IrWriter *w, const char *fmt, ...)
{
	for (int i = 0; i < w->indent; i++)
		buf_putc(w->out, '\t');
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(w->out, fmt, ap);
	va_end(ap);
}

/* "f32[128, 32]"; a global tensor whose shape is known at launch: "f32[M, N] stride (i64(N), 1ll)", with
   " align 16" after it where it promises that. */
static void
tensor_type(IrWriter *w, const Tensor *t)
{
	buf_printf(w->out, "%s[", etype_name(t->type));
	for (int i = 0; i < t->rank; i++) {
		buf_puts(w->out, i ? ", " : "");
		if (t->wide && t->rdims[i])
			expr_top(w, t->rdims[i]);
		else
			buf_printf(w->out, "%d", t->dims[i]);
	}
	buf_puts(w->out, "]");
	if (t->wide) {
		buf_puts(w->out, " stride (");
		for (int i = 0; i < t->rank; i++) {
			buf_puts(w->out, i ? ", " : "");
			expr_top(w, t->rstrides[i]);
		}
		buf_puts(w->out, ")");
	}
	if (t->align)
		buf_printf(w->out, " align %d", t->align);
}

/* A copy's access that is skipped outside its tensor's shape: the coordinates tested. */
static void
masked(IrWriter *w, const LStmt *s, const Tensor *t, IExpr *const *coords)
{
	if (!(s->mask_lo | s->mask_hi))
		return;
	buf_printf(w->out, " if %s[", t->name);
	for (int d = 0; d < t->rank; d++) {
		buf_puts(w->out, d ? ", " : "");
		expr_top(w, coords[d]);
	}
	buf_puts(w->out, "] is inside");
}

static void
literal(IrWriter *w, const IExpr *e)
{
	if (e->kind == IE_INT) {
		if (e->type == T_U32)
			buf_printf(w->out, "%lluu", (unsigned long long)(uint32_t)e->ival);
		else if (e->type == T_I64)
			buf_printf(w->out, "%lldll", (long long)e->ival);
		else
			buf_printf(w->out, "%lld", (long long)(int32_t)e->ival);
		return;
	}
	float f = (float)e->fval;
	if (isnan(f) || isinf(f)) {
		buf_puts(w->out, isnan(f) ? "nan" : f > 0 ? "inf" : "-inf");
		return;
	}
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.9g", (double)f);
	buf_printf(w->out, "%s%s", tmp, strpbrk(tmp, ".eEn") ? "" : ".0");
}

static void
expr(IrWriter *w, const IExpr *e)
{
	switch (e->kind) {
	case IE_INT:
	case IE_FLOAT:
		literal(w, e);
		break;
	case IE_VAR:
		buf_puts(w->out, e->var->cname);
		break;
	case IE_BUILTIN:
		buf_puts(w->out, builtin_name(e->builtin));
		break;
	case IE_LOAD:
	case IE_SADDR:
		buf_printf(w->out, "%s%s[", e->kind == IE_SADDR ? "&" : "", e->tensor->cname);
		expr_top(w, global_index(e->tensor, e->index));
		buf_puts(w->out, "]");
		break;
	case IE_REG:
		buf_printf(w->out, "%s.slot[%d]", e->tensor->cname, e->slot);
		break;
	case IE_UNARY:
		buf_printf(w->out, "(%s", op_text(e->op));
		expr(w, e->a);
		buf_puts(w->out, ")");
		break;
	case IE_BINARY:
		buf_puts(w->out, "(");
		expr(w, e->a);
		buf_printf(w->out, " %s ", op_text(e->op));
		expr(w, e->b);
		buf_puts(w->out, ")");
		break;
	case IE_SELECT:
		buf_puts(w->out, "select(");
		expr_top(w, e->a);
		buf_puts(w->out, ", ");
		expr_top(w, e->b);
		buf_puts(w->out, ", ");
		expr_top(w, e->index);
		buf_puts(w->out, ")");
		break;
	case IE_CONV:
		buf_printf(w->out, "%s(", etype_name(e->to));
		expr_top(w, e->a);
		buf_puts(w->out, ")");
		break;
	case IE_CALL:
		buf_printf(w->out, "%s(", func_name(e->fn));
		expr_top(w, e->a);
		for (const IExpr *more = e->b; more; more = more == e->b ? e->index : NULL) {
			buf_puts(w->out, ", ");
			expr_top(w, more);
		}
		buf_puts(w->out, ")");
		break;
	}
}

/* A register vector; a run of consecutive words of one tensor as NAME.word[FIRST..LAST]. */
static void
words(IrWriter *w, const LOperand *o)
{
	buf_puts(w->out, "{");
	for (int r = 0, end; r < o->nregs; r = end) {
		const RegRef *first = &o->regs[r];
		for (end = r + 1; end < o->nregs && o->regs[end].tensor == first->tensor &&
		                  o->regs[end].word == first->word + (end - r); end++)
			;
		buf_printf(w->out, "%s%s.word[%d", r ? ", " : "", first->tensor->cname, first->word);
		if (end - r > 1)
			buf_printf(w->out, "..%d", o->regs[end - 1].word);
		buf_puts(w->out, "]");
	}
	buf_puts(w->out, "}");
}

/* A tcgen05.mma in PTX order: [d], the two shared descriptors, the instruction descriptor, for the block-scaled
   kinds [sfa] and [sfb], the accumulate predicate. */
static void
mma_ir(IrWriter *w, const LStmt *s)
{
	const LOperand *t = tc_operand(s, IO_TMEM_ADDR), *d = tc_operand(s, IO_SHARED_DESC64),
	               *p = tc_operand(s, IO_PRED);
	line(w, "%s [", mma_instr_spelling(s->cta_group, s->mma));
	expr_top(w, t->addr);
	buf_puts(w->out, "]");
	for (int i = 0; i < 2; i++) {
		buf_printf(w->out, ", desc(0x%016llx | (", (unsigned long long)d[i].desc);
		expr_top(w, d[i].addr);
		buf_puts(w->out, ") >> 4)");
	}
	buf_printf(w->out, ", 0x%08x", s->mma->idesc);
	for (int i = 1; s->mma->scale_vec && i <= 2; i++) {
		buf_puts(w->out, ", [");
		expr_top(w, p[i].addr);
		buf_puts(w->out, "]");
	}
	buf_puts(w->out, ", ");
	expr_top(w, p->addr);
	buf_printf(w->out, "\t// %s%s\n", s->instr->does, s->mbar_elect ? "; in one lane (elect.sync)" : "");
}

/* A tcgen05 instruction, with isa.c's spelling and the operands in PTX order. */
static void
tc(IrWriter *w, const LStmt *s)
{
	if (s->instr->kind == TC_MMA) {
		mma_ir(w, s);
		return;
	}
	if (s->instr->kind == TC_CP) {
		const LOperand *t = tc_operand(s, IO_TMEM_ADDR), *d = tc_operand(s, IO_SHARED_DESC64);
		line(w, "%s [", cp_form_spelling(s->cp));
		expr_top(w, t->addr);
		buf_printf(w->out, "], desc(0x%016llx | (", (unsigned long long)d->desc);
		expr_top(w, d->addr);
		buf_printf(w->out, ") >> 4)\t// %s, after fence.proxy.async.shared::cta%s\n", s->instr->does,
		           s->mbar_elect ? "; in one lane of each warp (elect.sync)" : "");
		return;
	}
	line(w, "%s", isa_format(s->instr, s->cta_group, &s->op));
	for (int i = 0; i < s->nops; i++) {
		const LOperand *o = &s->ops[i];
		buf_puts(w->out, i ? ", " : " ");
		buf_puts(w->out, o->slot->bracketed ? "[" : "");
		switch (o->slot->kind) {
		case IO_REG_VECTOR:
			words(w, o);
			break;
		case IO_REG:
			buf_printf(w->out, "%s.word[%d]", o->regs[0].tensor->cname, o->regs[0].word);
			break;
		case IO_SHARED_SLOT:
		case IO_TMEM_ADDR:
			expr_top(w, o->addr);
			break;
		case IO_NCOLS:
			buf_printf(w->out, "%d", (int)o->imm);
			break;
		case IO_IMM:
			buf_printf(w->out, "%u", o->imm);
			break;
		default:
			fatal("--emit=ir: no operand of kind %d yet", (int)o->slot->kind);
		}
		buf_puts(w->out, o->slot->bracketed ? "]" : "");
	}
	if (s->instr->use == ISA_STATEMENT)
		buf_printf(w->out, "\t// %s\n", s->kind != L_FENCE        ? s->instr->does
		                               : s->mbar_op == MB_WAIT ? "placed by tilec after the wait that completes a cp"
		                                                       : "placed by tilec next to cta_sync");
	else
		buf_puts(w->out, "\n");
}

/* An mbarrier statement: its instruction, its barrier and operand, and what it does. */
static void
mbar(IrWriter *w, const LStmt *s)
{
	line(w, "%s%s", s->proxy_fence ? "fence.proxy.async.shared::cta; " : "", isa_format(s->instr, s->cta_group, NULL));
	if (s->mbar_op == MB_CLUSTER_SYNC)
		buf_printf(w->out, "; %s", isa_spelling(TC_CLUSTER_WAIT, 0));
	if (s->mbar) {
		buf_puts(w->out, " [");
		expr_top(w, s->mbar);
		buf_puts(w->out, "]");
	}
	if (s->value) {
		buf_puts(w->out, ", ");
		expr_top(w, s->value);
	}
	buf_printf(w->out, "\t// %s: %s%s%s\n", mbar_op_name(s->mbar_op), s->instr->does,
	           s->mbar_op == MB_WAIT ? ", in a loop until it has" : "",
	           s->mbar_elect ? "; in one lane of each warp (elect.sync)" : "");
}

/* A TMA copy: its instruction, shared destination, tensor map, coordinates and barrier. */
static void
tma(IrWriter *w, const LStmt *s)
{
	const TmaCopy *c = s->tma;
	if (c->wait_read) {
		line(w, "%s\t// the TMA stores before it have read their shared tiles\n", tma_opcode(c));
		return;
	}
	line(w, "%s ", tma_opcode(c));
	buf_printf(w->out, "[&%s + %u", c->smem->name, c->dst);
	if (c->stage) {
		buf_puts(w->out, " + ");
		expr_top(w, c->stage);
	}
	buf_printf(w->out, "], [%s, {", c->map->cname);
	for (int d = 0; d < c->map->rank; d++) {
		buf_puts(w->out, d ? ", " : "");
		expr_top(w, c->coord[d]);
	}
	buf_puts(w->out, "}]");
	if (c->mbar) {
		buf_puts(w->out, ", [");
		expr_top(w, c->mbar);
		buf_puts(w->out, "]");
	}
	buf_printf(w->out, "\t// %d bytes%s%s\n", c->bytes, c->store ? ", after fence.proxy.async, then commit_group" : ", completing on the barrier",
	           s->mbar_elect ? "; in one lane of each warp (elect.sync)" : "");
}

static void stmts(IrWriter *w, const List *list);

bool
ir_declares(const List *body)
{
	for (int i = 0; i < body->n; i++) {
		LKind k = LIST_AT(*body, LStmt, i)->kind;
		if (k == L_LET || k == L_VAR || k == L_SHARED || k == L_REGS || k == L_TMEM)
			return true;
	}
	return false;
}

static void
block(IrWriter *w, const List *body)
{
	w->indent++;
	stmts(w, body);
	w->indent--;
}

static void
stmt(IrWriter *w, const LStmt *s)
{
	if (s->comment)
		line(w, "// %s\n", s->comment);
	switch (s->kind) {
	case L_LET:
	case L_VAR:
		line(w, "%s %s: %s", s->kind == L_LET ? "let" : "var", s->var->cname, etype_name(s->var->type));
		if (s->value) {
			buf_puts(w->out, " = ");
			expr_top(w, s->value);
		}
		buf_puts(w->out, "\n");
		break;
	case L_ASSIGN:
		line(w, "%s = ", s->var->cname);
		expr_top(w, s->value);
		buf_puts(w->out, "\n");
		break;
	case L_STORE:
		line(w, "%s[", s->tensor->cname);
		expr_top(w, global_index(s->tensor, s->index));
		buf_puts(w->out, "] = ");
		expr_top(w, s->value);
		masked(w, s, s->tensor, s->coords);
		buf_puts(w->out, "\n");
		break;
	case L_SHARED:
	case L_REGS:
		line(w, "%s %s: ", s->kind == L_SHARED ? "shared" : "local", s->tensor->cname);
		tensor_type(w, s->tensor);
		if (s->kind == L_REGS)
			buf_printf(w->out, " in %d register%s", s->tensor->words, s->tensor->words == 1 ? "" : "s");
		if (s->tensor->tile)
			buf_puts(w->out, smem_tile_text(s->tensor->tile));
		buf_puts(w->out, "\n");
		break;
	case L_REG_STORE:
		line(w, "%s.slot[%d] = ", s->tensor->cname, s->slot);
		expr_top(w, s->value);
		if (s->mask_lo | s->mask_hi) {
			const IExpr *m = s->value;
			while (m->kind == IE_CONV)
				m = m->a;
			masked(w, s, m->tensor, m->coords);
			buf_puts(w->out, ", else 0");
		}
		buf_puts(w->out, "\n");
		break;
	case L_TMEM:
		line(w, "tmem %s: ", s->tensor->cname);
		tensor_type(w, s->tensor);
		buf_puts(w->out, " at ");
		expr_top(w, s->value);
		buf_puts(w->out, "\n");
		break;
	case L_IF:
		line(w, "if ");
		expr_top(w, s->cond);
		buf_puts(w->out, " {\n");
		block(w, &s->body);
		if (s->els.n) {
			line(w, "} else {\n");
			block(w, &s->els);
		}
		line(w, "}\n");
		break;
	case L_FOR:
		line(w, "for %s in ", s->var->cname);
		expr_top(w, s->lo);
		buf_puts(w->out, " .. ");
		expr_top(w, s->hi);
		buf_puts(w->out, " {\n");
		block(w, &s->body);
		line(w, "}\n");
		break;
	case L_BLOCK:
		/* a scope only where it declares something (an unrolled iteration often does not) */
		if (!ir_declares(&s->body)) {
			stmts(w, &s->body);
			break;
		}
		line(w, "{\n");
		block(w, &s->body);
		line(w, "}\n");
		break;
	case L_BARRIER:
		line(w, "cta_sync\n");
		break;
	case L_WARP_SYNC:
		line(w, "warp_sync\n");
		break;
	case L_NAMED_BAR:
		line(w, "%s(%d, %d)\n", s->bar_arrive ? "bar_arrive" : "bar_sync", s->bar_id, s->bar_threads);
		break;
	case L_COPY:
		line(w, "%s.word[%d] = %s.word[%d]\n", s->regs[0].tensor->cname, s->regs[0].word, s->regs[1].tensor->cname,
		     s->regs[1].word);
		break;
	case L_FENCE:
	case L_TC:
		tc(w, s);
		break;
	case L_MBAR:
		mbar(w, s);
		break;
	case L_TMA:
		tma(w, s);
		break;
	}
}

static void
stmts(IrWriter *w, const List *list)
{
	for (int i = 0; i < list->n; i++)
		stmt(w, LIST_AT(*list, LStmt, i));
}

static void
kernel(IrWriter *w, KernelIR *k)
{
	buf_printf(w->out, "kernel %s grid (", k->name);
	for (int d = 0; d < 3; d++) {
		buf_puts(w->out, d ? ", " : "");
		if (k->grid_expr[d])
			expr_top(w, k->grid_expr[d]);
		else
			buf_printf(w->out, "%d", k->grid[d]);
	}
	buf_printf(w->out, ") block (%d, %d, %d)\n", k->block[0], k->block[1], k->block[2]);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (t) {
			buf_printf(w->out, "\tparam %s: ", t->cname);
			tensor_type(w, t);
			buf_puts(w->out, "\n");
		} else {
			Var *v = LIST_AT(k->params, Var, i);
			buf_printf(w->out, "\tparam %s: %s\n", v->cname, etype_name(v->type));
		}
	}
	buf_puts(w->out, "{\n");
	w->indent = 1;
	stmts(w, &k->body);
	buf_puts(w->out, "}\n");
}

/* A device function: its scope, its parameters as lowering declared them, its body (a kernel's call of it
   is the same body in place, a block commented with the call). */
static void
device(IrWriter *w, KernelIR *k)
{
	static const char *const scopes[] = {"warp", "warpgroup", "cta"};
	buf_printf(w->out, "device %s scope %s", k->name, scopes[k->scope]);
	if (k->has_block)
		buf_printf(w->out, " block %d", k->block[0]);
	buf_puts(w->out, "\n");
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		Tensor *t = dp->tensor;
		if (!t) {
			buf_printf(w->out, "\tparam %s: %s\n", dp->var->cname, etype_name(dp->var->type));
			continue;
		}
		static const char *const kinds[] = {[PK_VALUE] = "", [PK_SHARED] = "shared ", [PK_TMEM] = "tmem ",
		                                    [PK_LOCAL] = "local "};
		buf_printf(w->out, "\tparam %s: %s", t->cname, kinds[dp->kind]);
		tensor_type(w, t);
		if (dp->kind == PK_LOCAL)
			buf_printf(w->out, " in %d registers", t->words);
		if (dp->kind == PK_TMEM)
			buf_puts(w->out, " at the u32 address passed");
		buf_puts(w->out, "\n");
	}
	buf_puts(w->out, "{\n");
	w->indent = 1;
	stmts(w, &k->body);
	buf_puts(w->out, "}\n");
}

bool
emit_ir(Program *p, const TargetOptions *opt, Buf *out)
{
	IrWriter w = {out, 0};
	buf_printf(out, "// The lowered program of %s for %s (tilec %s, --emit=ir).\n", p->source_name, opt->arch,
	           TILEC_VERSION);
	for (int i = 0; i < p->devices.n; i++) {
		buf_puts(out, "\n");
		device(&w, LIST_AT(p->devices, KernelIR, i));
	}
	for (int i = 0; i < p->kernels.n; i++) {
		buf_puts(out, "\n");
		kernel(&w, LIST_AT(p->kernels, KernelIR, i));
	}
	return true;
}

/* x, the index along the contiguous dimension, as the index of an element of the same chunk (returned)
   plus the rest of the element's place inside the chunk (*inside): where x is a sum known to be a
   multiple of f plus a constant k, the constant's part below f (k % f) goes into *inside as a constant
   and the element returned is x less it, which lies in the same chunk (a multiple of f plus less than
   f never carries into the next one); so neighbouring elements of a thread differ only in that
   constant. With f at least per_chunk the rest of *inside is 0; below it, the returned element's place
   in its chunk (a multiple of f: the 16x256b fragment's pairs of columns). */
static IExpr *
split_chunk(IExpr *x, int per_chunk, IExpr **inside)
{
	int64_t k;
	IExpr *rest = ie_split_offset(x, &k);
	int64_t f = rest ? known_factor(rest) : per_chunk;
	f = f < per_chunk ? f : per_chunk;
	if (rest && f > 1) {
		int64_t in = ((k % f) + f) % f;
		IExpr *same = ie_binary(OP_ADD, rest, ie_int(k - in, T_I32));
		*inside = f == per_chunk ? ie_int(in, T_I32)
		                         : ie_binary(OP_ADD, ie_binary(OP_MOD, same, ie_int(per_chunk, T_I32)), ie_int(in, T_I32));
		return same;
	}
	*inside = ie_binary(OP_MOD, x, ie_int(per_chunk, T_I32));
	return x;
}

/* smem.c's placement of a tile's elements (smem_tensor_element) as an expression: the unswizzled
   address in 16-byte chunks, the swizzle's XOR on the chunk number, and the element inside the chunk
   as a separate last term, so that a thread's neighbouring elements share the rest of the index,
   which is what vectorize.c needs to merge them into one access. */
IExpr *
ie_tile_index(const SmemTile *t, IExpr *stack, IExpr *row, IExpr *col)
{
	const SwizzleInfo *sw = smem_swizzle_info(t->swizzle);
	int e = t->elem_bytes, per_chunk = 16 / e, per_line = sw->width / e;
	int line_chunks = sw->width / 16;
#define I(v) ie_int((v), T_I32)
#define OP(op, a, b) ie_binary(OP_##op, (a), (b))
	IExpr *chunk, *inside;
	if (t->major == SMEM_K) {
		/* K atom of the column, then the row's line, then the chunk inside the line */
		col = split_chunk(col, per_chunk, &inside);
		chunk = OP(ADD, OP(ADD, OP(MUL, OP(DIV, col, I(per_line)), I(t->rows * line_chunks)), OP(MUL, row, I(line_chunks))),
		           OP(DIV, OP(MOD, col, I(per_line)), I(per_chunk)));
	} else {
		/* MN-major: atoms of per_line rows by 8 columns, stacked along the rows, then along the columns */
		row = split_chunk(row, per_chunk, &inside);
		IExpr *atom = OP(ADD, OP(MUL, OP(DIV, col, I(8)), I(t->rows / per_line)), OP(DIV, row, I(per_line)));
		chunk = OP(ADD, OP(ADD, OP(MUL, atom, I(8 * line_chunks)), OP(MUL, OP(MOD, col, I(8)), I(line_chunks))),
		           OP(DIV, OP(MOD, row, I(per_line)), I(per_chunk)));
	}
	if (sw->xor_mask) /* address bits 7.. are chunk bits 3..; the XOR lands at chunk bit xor_at - 4 */
		chunk = OP(BITXOR, chunk, OP(SHL, OP(BITAND, OP(SHR, chunk, I(3)), I(sw->xor_mask)), I(sw->xor_at - 4)));
	IExpr *index = OP(MUL, chunk, I(per_chunk));
	if (stack)
		index = OP(ADD, OP(MUL, stack, I(t->rows * t->cols)), index);
	return OP(ADD, index, inside);
#undef I
#undef OP
}
