/* emit_cu.c: writes the lowered program as self-contained CUDA C with one asm volatile per tcgen05 instruction;
 * the writer of emit_emu.c's target too, through the hooks of its CuDialect. */
#include <math.h>
#include <string.h>

#include "tilec.h"

static CuWriter E;

/* Helper functions of the functions of 10.2 that are more than one CUDA call. */
typedef enum Helper {
	H_MIN_S32, H_MIN_U32, H_MAX_S32, H_MAX_U32, H_ABS_S32, H_FMIN, H_FMAX, H_FABS, H_F2H2, H_F2BF2,
	/* the warp collectives' reductions over aligned groups of lanes, after the min and max they call */
	H_LANES_SUM_F32, H_LANES_MAX_F32, H_LANES_MIN_F32, H_LANES_SUM_U32, H_LANES_MAX_S32, H_LANES_MAX_U32,
	H_LANES_MIN_S32, H_LANES_MIN_U32, H_COUNT
} Helper;

static const char *const helper_source[H_COUNT] = {
	[H_MIN_S32] = "int tl_min_s32(int a, int b)\n{\n\treturn b < a ? b : a;\n}\n",
	[H_MIN_U32] = "unsigned tl_min_u32(unsigned a, unsigned b)\n{\n\treturn b < a ? b : a;\n}\n",
	[H_MAX_S32] = "int tl_max_s32(int a, int b)\n{\n\treturn b > a ? b : a;\n}\n",
	[H_MAX_U32] = "unsigned tl_max_u32(unsigned a, unsigned b)\n{\n\treturn b > a ? b : a;\n}\n",
	/* as abs.s32: the most negative value stays itself, with no undefined overflow */
	[H_ABS_S32] = "int tl_abs_s32(int a)\n{\n\treturn (int)(a < 0 ? 0u - (unsigned)a : (unsigned)a);\n}\n",
	/* min and max of floats: the other operand when one is NaN, the first when they compare equal */
	[H_FMIN] = "float tl_fmin(float a, float b)\n{\n\treturn b < a || a != a ? b : a;\n}\n",
	[H_FMAX] = "float tl_fmax(float a, float b)\n{\n\treturn b > a || a != a ? b : a;\n}\n",
	[H_FABS] = "float tl_fabs(float a)\n{\n\treturn __uint_as_float(__float_as_uint(a) & 0x7fffffffu);\n}\n",
	/* two tl_f2h (tl_f2bf) in one word, lo in the low half: the same rounding, one instruction (ptxas
	   makes cvt.rn.f16.f32 an F2FP.PACK_AB with a zero half too); a vector store's packing */
	[H_F2H2] = "unsigned tl_f2h2(float lo, float hi)\n{\n\tunsigned r;\n"
	           "\tasm(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo));\n\treturn r;\n}\n",
	[H_F2BF2] = "unsigned tl_f2bf2(float lo, float hi)\n{\n\tunsigned r;\n"
	            "\tasm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo));\n\treturn r;\n}\n",
	/* the butterfly over lane distances 1, 2, 4, ...: both lanes of a pair combine the lower lane's value
	   with the upper one's, so that they compute the same bits (language.md, Warp collectives) */
	[H_LANES_SUM_F32] = "float tl_lanes_sum_f32(float v, int n)\n{\n\tfor (int m = 1; m < n; m <<= 1)\n"
	                    "\t\tv = __fadd_rn(v, __shfl_xor_sync(0xffffffffu, v, m));\n\treturn v;\n}\n",
	[H_LANES_MAX_F32] = "float tl_lanes_max_f32(float v, int n, int lane)\n{\n\tfor (int m = 1; m < n; m <<= 1) {\n"
	                    "\t\tfloat o = __shfl_xor_sync(0xffffffffu, v, m);\n"
	                    "\t\tv = lane & m ? tl_fmax(o, v) : tl_fmax(v, o);\n\t}\n\treturn v;\n}\n",
	[H_LANES_MIN_F32] = "float tl_lanes_min_f32(float v, int n, int lane)\n{\n\tfor (int m = 1; m < n; m <<= 1) {\n"
	                    "\t\tfloat o = __shfl_xor_sync(0xffffffffu, v, m);\n"
	                    "\t\tv = lane & m ? tl_fmin(o, v) : tl_fmin(v, o);\n\t}\n\treturn v;\n}\n",
	[H_LANES_SUM_U32] = "unsigned tl_lanes_sum_u32(unsigned v, int n)\n{\n\tfor (int m = 1; m < n; m <<= 1)\n"
	                    "\t\tv += __shfl_xor_sync(0xffffffffu, v, m);\n\treturn v;\n}\n",
	[H_LANES_MAX_S32] = "int tl_lanes_max_s32(int v, int n)\n{\n\tfor (int m = 1; m < n; m <<= 1)\n"
	                    "\t\tv = tl_max_s32(v, __shfl_xor_sync(0xffffffffu, v, m));\n\treturn v;\n}\n",
	[H_LANES_MAX_U32] = "unsigned tl_lanes_max_u32(unsigned v, int n)\n{\n\tfor (int m = 1; m < n; m <<= 1)\n"
	                    "\t\tv = tl_max_u32(v, __shfl_xor_sync(0xffffffffu, v, m));\n\treturn v;\n}\n",
	[H_LANES_MIN_S32] = "int tl_lanes_min_s32(int v, int n)\n{\n\tfor (int m = 1; m < n; m <<= 1)\n"
	                    "\t\tv = tl_min_s32(v, __shfl_xor_sync(0xffffffffu, v, m));\n\treturn v;\n}\n",
	[H_LANES_MIN_U32] = "unsigned tl_lanes_min_u32(unsigned v, int n)\n{\n\tfor (int m = 1; m < n; m <<= 1)\n"
	                    "\t\tv = tl_min_u32(v, __shfl_xor_sync(0xffffffffu, v, m));\n\treturn v;\n}\n",
};


/* The C type of a scalar variable: 16-bit floats are held as float, rounded at each assignment. */
static const char *
var_ctype(EType t)
{
	return etype_is_float(t) ? "float" : etype_ctype(t);
}

void
cu_line_start(CuWriter *w)
{
	for (int i = 0; i < w->indent; i++)
		buf_putc(w->out, '\t');
}

static void
line_start(void)
{
	cu_line_start(&E);
}

static void expr(const IExpr *e);
static void expr_top(const IExpr *e);
static void tma_asm(const LStmt *s);
static void mbar_asm(const LStmt *s);
static const char *unread(const char *cname);

static void
int_literal(int64_t v, EType t)
{
	if (t == T_U32)
		buf_printf(E.out, "%lluu", (unsigned long long)(uint32_t)v);
	else if (t == T_I64)
		buf_printf(E.out, v < 0 ? "(%lldll)" : "%lldll", (long long)v);
	else if (v == INT32_MIN)
		buf_puts(E.out, "(-2147483647 - 1)");
	else if (v < 0)
		buf_printf(E.out, "(%lld)", (long long)v);
	else
		buf_printf(E.out, "%lld", (long long)v);
}

static void
float_literal(double v)
{
	float f = (float)v;
	if (isnan(f)) {
		buf_puts(E.out, "__int_as_float(0x7fffffff)");
	} else if (isinf(f)) {
		buf_puts(E.out, f > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float((int)0xff800000u)");
	} else {
		char tmp[64];
		snprintf(tmp, sizeof tmp, "%.9g", (double)f);
		if (!strpbrk(tmp, ".eE"))
			strcat(tmp, ".0");
		buf_printf(E.out, f < 0 ? "(%sf)" : "%sf", tmp);
	}
}

static void
thread_linear(void)
{
	if (E.k->is_device) /* called from a kernel whose block tilec does not know */
		buf_puts(E.out, "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))");
	else if (E.k->block[1] == 1 && E.k->block[2] == 1)
		buf_puts(E.out, "threadIdx.x");
	else
		buf_printf(E.out, "(threadIdx.x + %du * (threadIdx.y + %du * threadIdx.z))", E.k->block[0], E.k->block[1]);
}

static void
builtin(Builtin b)
{
	switch (b) {
	case B_THREAD_X: buf_puts(E.out, "(int)threadIdx.x"); break;
	case B_THREAD_Y: buf_puts(E.out, "(int)threadIdx.y"); break;
	case B_THREAD_Z: buf_puts(E.out, "(int)threadIdx.z"); break;
	case B_BLOCK_X: buf_puts(E.out, "(int)blockIdx.x"); break;
	case B_BLOCK_Y: buf_puts(E.out, "(int)blockIdx.y"); break;
	case B_BLOCK_Z: buf_puts(E.out, "(int)blockIdx.z"); break;
	case B_WARP_ID: buf_puts(E.out, "tl_warp_id"); break;
	case B_LANE_ID:
		buf_puts(E.out, "(int)(");
		thread_linear();
		buf_puts(E.out, " & 31u)");
		break;
	case B_WARPGROUP_ID: buf_puts(E.out, "(tl_warp_id >> 2)"); break;
	}
}

/* Widens a stored element (its C storage value in text) to its value type. */
static void
widen(EType t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
widen(EType t, const char *fmt, ...)
{
	Buf inner = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&inner, fmt, ap);
	va_end(ap);
	switch (t) {
	case T_F16:
		E.h2f = true;
		buf_printf(E.out, "tl_h2f(%s)", inner.data);
		break;
	case T_BF16:
		E.bf2f = true;
		buf_printf(E.out, "tl_bf2f(%s)", inner.data);
		break;
	case T_F32:
	case T_U32:
		buf_puts(E.out, inner.data);
		break;
	default:
		if (etype_is_minifloat(t)) {
			E.minifloat = true;
			buf_printf(E.out, "%s(%s)", minifloat_from_func(t), inner.data);
			break;
		}
		buf_printf(E.out, "(int)%s", inner.data);
		break;
	}
	buf_free(&inner);
}

/* A register word as the generated code reads it (the dialect may check it first): for element slot, or
   the whole word (slot -1). */
static const char *
reg_text(const Tensor *t, int word, int slot, const char *verb)
{
	if (E.d->reg)
		return E.d->reg(&E, t, word, slot, verb);
	return pool_printf("%s[%d]", t->cname, word);
}

/* Element `part` of type t of the 32-bit word reg, widened as a load of it is. */
static void
word_element(EType t, const char *reg, int part)
{
	int bits = etype_bits(t);
	if (bits == 32) {
		if (t == T_F32)
			buf_printf(E.out, "__uint_as_float(%s)", reg);
		else if (t == T_I32)
			buf_printf(E.out, "(int)%s", reg);
		else
			buf_puts(E.out, reg);
		return;
	}
	const char *cast = t == T_I16 ? "(short)" : t == T_I8 ? "(signed char)"
	                   : t == T_U8 || etype_is_minifloat(t) ? "(unsigned char)" : "(unsigned short)";
	if (part)
		widen(t, "%s(%s >> %d)", cast, reg, part * bits);
	else
		widen(t, "%s%s", cast, reg);
}

static void
register_read(const Tensor *t, int slot)
{
	int per = 32 / etype_bits(t->type);
	word_element(t->type, reg_text(t, slot / per, slot, "read"), slot % per);
}

/* Inside a converting vector load (vector_access): the load whose element the words of tl_v hold. */
static const IExpr *vector_elem_load;
static int vector_elem, vector_elem_words;

/* A float value converted to integer type t: the GPU's cvt.rzi saturates (NaN gives 0) where C leaves the
   result undefined; a dialect that runs on the CPU says so with f2i and gets the same values through the
   function this returns (NULL: C's conversion). */
static const char *
f2i_func(EType t, const IExpr *value)
{
	if (!E.d->f2i || value->type != T_F32 || etype_is_float(t) || t == T_I64)
		return NULL;
	return etype_is_signed(t) ? "tl_emu_f2s32" : "tl_emu_f2u32";
}

static void
convert(const IExpr *e)
{
	const IExpr *a = e->a;
	const char *f2i = f2i_func(e->to, a);
	if (f2i) {
		buf_printf(E.out, "((%s)%s(", etype_ctype(e->to), f2i);
		expr_top(a);
		buf_puts(E.out, "))");
		return;
	}
	switch (e->to) {
	case T_F32:
		buf_puts(E.out, "(float)(");
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	case T_F16:
		E.h2f = E.f2h = true;
		buf_puts(E.out, "tl_h2f(tl_f2h((float)(");
		expr_top(a);
		buf_puts(E.out, ")))");
		break;
	case T_BF16:
		E.bf2f = E.f2bf = true;
		buf_puts(E.out, "tl_bf2f(tl_f2bf((float)(");
		expr_top(a);
		buf_puts(E.out, ")))");
		break;
	case T_E4M3: case T_E5M2: case T_E2M3: case T_E3M2: case T_E2M1: case T_UE8M0: case T_UE4M3:
		E.minifloat = true;
		buf_printf(E.out, "%s(%s((float)(", minifloat_from_func(e->to), minifloat_to_func(e->to));
		expr_top(a);
		buf_puts(E.out, ")))");
		break;
	case T_I32:
		buf_puts(E.out, "(int)(");
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	case T_U32:
		buf_puts(E.out, "(unsigned)(");
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	case T_I64:
		buf_puts(E.out, "(long long)(");
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	default:
		buf_printf(E.out, "(int)(%s)(", etype_ctype(e->to));
		expr_top(a);
		buf_puts(E.out, ")");
		break;
	}
}

/* f32 + - * / as the CUDA intrinsics that round to nearest even and are never contracted into an fma:
 * the emulator and the PTX route compute the same bits whatever nvcc's -fmad says. */
static const char *
float_op(const IExpr *e)
{
	if (e->kind != IE_BINARY || e->type != T_F32)
		return NULL;
	switch (e->op) {
	case OP_ADD: return "__fadd_rn";
	case OP_SUB: return "__fsub_rn";
	case OP_MUL: return "__fmul_rn";
	case OP_DIV: return "__fdiv_rn";
	default: return NULL;
	}
}

static void
call2(const char *fn, const IExpr *a, const IExpr *b)
{
	buf_printf(E.out, "%s(", fn);
	expr_top(a);
	if (b) {
		buf_puts(E.out, ", ");
		expr_top(b);
	}
	buf_puts(E.out, ")");
}

static void
helper_call(Helper h, const char *name, const IExpr *a, const IExpr *b)
{
	E.helpers |= 1u << h;
	call2(name, a, b);
}

/* lanes_sum, lanes_max, lanes_min over groups of n lanes (warp_* of floats: n = 32) by a helper of the table;
   the integer sum in unsigned arithmetic, which wraps as add.s32 does */
static void
lanes_call(const IExpr *e, int n)
{
	bool sum = e->fn == F_LANES_SUM || e->fn == F_WARP_SUM, min = e->fn == F_LANES_MIN || e->fn == F_WARP_MIN;
	const char *ty = e->type == T_F32 ? "f32" : e->type == T_U32 ? "u32" : "s32";
	Helper h = sum ? (e->type == T_F32 ? H_LANES_SUM_F32 : H_LANES_SUM_U32)
	         : e->type == T_F32 ? (min ? H_LANES_MIN_F32 : H_LANES_MAX_F32)
	         : e->type == T_U32 ? (min ? H_LANES_MIN_U32 : H_LANES_MAX_U32) : (min ? H_LANES_MIN_S32 : H_LANES_MAX_S32);
	/* the min and max each step calls, defined before */
	if (!sum)
		E.helpers |= 1u << (e->type == T_F32 ? (min ? H_FMIN : H_FMAX)
		                    : e->type == T_U32 ? (min ? H_MIN_U32 : H_MAX_U32) : (min ? H_MIN_S32 : H_MAX_S32));
	E.helpers |= 1u << h;
	bool s32_sum = sum && e->type == T_I32;
	buf_printf(E.out, "%stl_lanes_%s_%s(%s", s32_sum ? "(int)" : "", sum ? "sum" : min ? "min" : "max",
	           sum && !s32_sum ? ty : sum ? "u32" : ty, s32_sum ? "(unsigned)(" : "");
	expr_top(e->a);
	buf_printf(E.out, "%s, %d", s32_sum ? ")" : "", n);
	if (e->type == T_F32 && !sum) {
		buf_puts(E.out, ", ");
		builtin(B_LANE_ID);
	}
	buf_puts(E.out, ")");
}

/* A warp collective (language.md, Warp collectives) as CUDA's intrinsics, every lane of the warp named */
static void
collective_call(const IExpr *e)
{
	static const char *const fns[] = {
		[F_SHFL_XOR] = "__shfl_xor_sync", [F_SHFL_IDX] = "__shfl_sync", [F_SHFL_DOWN] = "__shfl_down_sync",
		[F_SHFL_UP] = "__shfl_up_sync", [F_ANY] = "__any_sync", [F_ALL] = "__all_sync", [F_BALLOT] = "__ballot_sync",
		[F_WARP_SUM] = "__reduce_add_sync", [F_WARP_MAX] = "__reduce_max_sync", [F_WARP_MIN] = "__reduce_min_sync",
	};
	if (e->fn >= F_LANES_SUM || (e->fn >= F_WARP_SUM && e->type == T_F32)) {
		lanes_call(e, e->fn >= F_LANES_SUM ? (int)e->b->ival : 32);
		return;
	}
	bool vote = e->fn == F_ANY || e->fn == F_ALL;
	buf_printf(E.out, "%s%s(0xffffffffu, ", vote ? "(" : "", fns[e->fn]);
	expr_top(e->a);
	if (e->b) {
		buf_puts(E.out, ", ");
		expr_top(e->b);
	}
	/* CUDA says nonzero; the value is 1 */
	buf_puts(E.out, vote ? ") != 0)" : ")");
}

static void
func_call(const IExpr *e)
{
	bool u = e->type == T_U32, f = e->type == T_F32;
	if (func_info(e->fn)->collective) {
		E.collectives = true;
		collective_call(e);
		return;
	}
	switch (e->fn) {
	case F_MIN:
		helper_call(f ? H_FMIN : u ? H_MIN_U32 : H_MIN_S32, f ? "tl_fmin" : u ? "tl_min_u32" : "tl_min_s32", e->a, e->b);
		break;
	case F_MAX:
		helper_call(f ? H_FMAX : u ? H_MAX_U32 : H_MAX_S32, f ? "tl_fmax" : u ? "tl_max_u32" : "tl_max_s32", e->a, e->b);
		break;
	case F_ABS:
		helper_call(f ? H_FABS : H_ABS_S32, f ? "tl_fabs" : "tl_abs_s32", e->a, NULL);
		break;
	case F_FMA:
		buf_puts(E.out, "__fmaf_rn(");
		expr_top(e->a);
		buf_puts(E.out, ", ");
		expr_top(e->b);
		buf_puts(E.out, ", ");
		expr_top(e->index);
		buf_puts(E.out, ")");
		break;
	case F_SQRT:
		call2("__fsqrt_rn", e->a, NULL);
		break;
	case F_RSQRT:
		buf_puts(E.out, "__fdiv_rn(1.0f, __fsqrt_rn(");
		expr_top(e->a);
		buf_puts(E.out, "))");
		break;
	default:
		E.funcs |= 1u << e->fn;
		call2(pool_printf("tl_%s", func_name(e->fn)), e->a, NULL);
		break;
	}
}

/* An expression in a position that needs no parentheses of its own (a statement, an argument). */
/* The offset inside the brackets of an element access of a global or shared tensor. */
static void
element_index(const Tensor *t, IExpr *const *coords, const ViewAt *view_at, const IExpr *index, bool write)
{
	index = global_index(t, index);
	if (E.d->global_access)
		E.d->global_access(&E, t, coords, view_at, index, write);
	else
		expr_top(index);
}

static void
expr_top(const IExpr *e)
{
	if (float_op(e)) {
		call2(float_op(e), e->a, e->b);
	} else if (e->kind == IE_BINARY && E.d->int_op && E.d->int_op(&E, e)) {
		return;
	} else if (e->kind == IE_BINARY) {
		expr(e->a);
		buf_printf(E.out, " %s ", op_text(e->op));
		expr(e->b);
	} else {
		expr(e);
	}
}

static void
expr(const IExpr *e)
{
	switch (e->kind) {
	case IE_INT:
		int_literal(e->ival, e->type);
		break;
	case IE_FLOAT:
		float_literal(e->fval);
		break;
	case IE_VAR:
		buf_puts(E.out, e->var->cname);
		break;
	case IE_BUILTIN:
		builtin(e->builtin);
		break;
	case IE_LOAD: {
		if (e == vector_elem_load) {
			int per = 32 / etype_bits(e->tensor->type), words = vector_elem_words;
			const char *w = words == 1 ? "tl_v" : pool_printf("tl_v.%c", "xyzw"[vector_elem / per]);
			word_element(e->tensor->type, w, vector_elem % per);
			break;
		}
		Buf idx = {0};
		Buf *saved = E.out;
		E.out = &idx;
		element_index(e->tensor, e->coords, e->view_at, e->index, false);
		E.out = saved;
		widen(e->tensor->type, "%s[%s]", e->tensor->cname, idx.data);
		buf_free(&idx);
		break;
	}
	case IE_SADDR:
		buf_printf(E.out, "%s(&%s[", E.d->shared_addr, e->tensor->cname);
		expr_top(e->index);
		buf_puts(E.out, "])");
		break;
	case IE_REG:
		register_read(e->tensor, e->slot);
		break;
	case IE_UNARY:
		if (e->op == OP_NEG && e->type == T_F32 && E.d->fneg) {
			call2(E.d->fneg, e->a, NULL);
			break;
		}
		buf_printf(E.out, "(%s", op_text(e->op));
		expr(e->a);
		buf_puts(E.out, ")");
		break;
	case IE_SELECT:
		buf_puts(E.out, "(");
		expr(e->a);
		buf_puts(E.out, " ? ");
		expr(e->b);
		buf_puts(E.out, " : ");
		expr(e->index);
		buf_puts(E.out, ")");
		break;
	case IE_BINARY:
		if (float_op(e)) {
			call2(float_op(e), e->a, e->b);
			break;
		}
		if (E.d->int_op && E.d->int_op(&E, e))
			break;
		buf_puts(E.out, "(");
		expr(e->a);
		buf_printf(E.out, " %s ", op_text(e->op));
		expr(e->b);
		buf_puts(E.out, ")");
		break;
	case IE_CONV:
		convert(e);
		break;
	case IE_CALL:
		func_call(e);
		break;
	}
}

/* The bits to store for an element of type t, from a value already rounded to t. */
static void
stored_bits(EType t, const IExpr *value)
{
	if (value->kind == IE_CONV && value->to == t)
		value = value->a;
	const IExpr *m = etype_bits(t) < 32 ? moved_bits(t, value) : NULL;
	if (m && m->kind == IE_LOAD) { /* only moved: the bits as they are */
		buf_printf(E.out, "%s[", m->tensor->cname);
		element_index(m->tensor, m->coords, m->view_at, m->index, false);
		buf_puts(E.out, "]");
		return;
	}
	if (m && m->kind == IE_REG) {
		int bits = etype_bits(t), per = 32 / bits, part = m->slot % per;
		buf_printf(E.out, "(%s)(%s", etype_ctype(t), reg_text(m->tensor, m->slot / per, m->slot, "read"));
		if (part)
			buf_printf(E.out, " >> %d", part * bits);
		buf_puts(E.out, ")");
		return;
	}
	if ((t == T_F16 || t == T_BF16) && value->kind == IE_FLOAT) {
		buf_printf(E.out, "(unsigned short)0x%04xu", half_bits(value->fval, t));
		return;
	}
	if (value->type == t && (t == T_F32 || t == T_I32 || t == T_U32)) {
		expr_top(value);
		return;
	}
	switch (t) {
	case T_F32:
		buf_puts(E.out, "(float)(");
		break;
	case T_F16:
		E.f2h = true;
		buf_puts(E.out, "tl_f2h((float)(");
		break;
	case T_BF16:
		E.f2bf = true;
		buf_puts(E.out, "tl_f2bf((float)(");
		break;
	default:
		if (etype_is_minifloat(t)) {
			E.minifloat = true;
			buf_printf(E.out, "%s((float)(", minifloat_to_func(t));
			break;
		}
		buf_printf(E.out, "(%s)%s(", etype_ctype(t), f2i_func(t, value) ? f2i_func(t, value) : "");
		break;
	}
	expr_top(value);
	buf_puts(E.out, t == T_F16 || t == T_BF16 || etype_is_minifloat(t) ? "))" : ")");
}

static void stmts(List *list);

static void
reg_operands(const LOperand *o, int first)
{
	for (int r = 0; r < o->nregs; r++) {
		buf_printf(E.out, "%s%%%d", r ? (r % 16 ? ", " : ",\"\n\t\t\"") : "", first + r);
	}
}

static void
reg_constraints(const LOperand *o, const char *constraint)
{
	for (int r = 0; r < o->nregs; r++) {
		if (r % 8 == 0) {
			buf_puts(E.out, "\n");
			line_start();
			buf_puts(E.out, "\t  ");
		}
		buf_printf(E.out, "\"%s\"(%s[%d])%s", constraint, o->regs[r].tensor->cname, o->regs[r].word,
		           r + 1 == o->nregs ? "" : r % 8 == 7 ? "," : ", ");
	}
}

/* The wait for loads names the loaded registers as in-out operands so that no read of them moves above it. */
static void
wait_ld(void)
{
	List regs = {0};
	for (int i = 0; i < E.pending.n; i++) {
		RegRef *r = LIST_AT(E.pending, RegRef, i);
		bool dup = false;
		for (int j = 0; j < regs.n && !dup; j++) {
			RegRef *q = LIST_AT(regs, RegRef, j);
			dup = q->tensor == r->tensor && q->word == r->word;
		}
		if (!dup && list_has(&E.in_scope, r->tensor))
			list_push(&regs, r);
	}
	E.pending.n = 0;
	for (int chunk = 0; chunk == 0 || chunk * 64 < regs.n; chunk++) {
		line_start();
		buf_printf(E.out, "asm volatile(\"%s%s\"", chunk ? "" : isa_spelling(TC_WAIT_LD, 0), chunk ? "" : ";");
		int end = regs.n < (chunk + 1) * 64 ? regs.n : (chunk + 1) * 64;
		if (end > chunk * 64) {
			buf_puts(E.out, " :");
			for (int i = chunk * 64; i < end; i++) {
				RegRef *r = LIST_AT(regs, RegRef, i);
				if ((i - chunk * 64) % 8 == 0) {
					buf_puts(E.out, "\n");
					line_start();
					buf_puts(E.out, "\t  ");
				}
				buf_printf(E.out, "\"+r\"(%s[%d])%s", r->tensor->cname, r->word,
				           i + 1 == end ? "" : (i - chunk * 64) % 8 == 7 ? "," : ", ");
			}
			buf_puts(E.out, " :: \"memory\");\n");
		} else {
			buf_puts(E.out, " ::: \"memory\");\n");
		}
	}
}

/* The asm's constraints: the outputs (the registers a load writes), then the inputs (addresses, the
   registers a store reads); an instruction with a register vector spreads them over lines. */
static void
tc_constraints(const LStmt *s, bool vector)
{
	for (int pass = 0; pass < 2; pass++) {
		buf_puts(E.out, pass ? (vector ? ": " : ":") : (vector ? "\t:" : " :"));
		bool first = true;
		for (int i = 0; i < s->nops; i++) {
			const LOperand *o = &s->ops[i];
			if (o->slot->written != !pass || o->slot->kind == IO_NCOLS || o->slot->kind == IO_IMM)
				continue;
			buf_puts(E.out, first ? "" : ",");
			first = false;
			if (o->slot->kind == IO_REG_VECTOR || o->slot->kind == IO_REG) {
				reg_constraints(o, o->slot->written ? "=r" : "r");
			} else if (vector) {
				buf_puts(E.out, "\"r\"(");
				expr_top(o->addr);
				buf_puts(E.out, ")");
			} else {
				buf_puts(E.out, " \"r\"(");
				expr(o->addr);
				buf_puts(E.out, ") ");
			}
		}
		if (!pass && vector && !first) {
			buf_puts(E.out, "\n");
			line_start();
			buf_puts(E.out, "\t");
		}
	}
	buf_puts(E.out, vector ? " : \"memory\");\n" : ": \"memory\");\n");
}

/* The lane elect.sync picks runs what follows (a single-thread statement that whole warps reach); the
   caller closes the brace. */
static void
elect_open(void)
{
	buf_puts(E.out, "{ unsigned tl_elected; asm volatile(\"{\\n\\t.reg .pred p;\\n\\telect.sync _|p, %1;\\n\\t"
	                "selp.u32 %0, 1, 0, p;\\n\\t}\" : \"=r\"(tl_elected) : \"r\"(__activemask())); if (tl_elected) ");
}

/* A tcgen05.cp: the source's writes made visible to the async proxy, then one elected thread issues it
   with its 64-bit descriptor (the constant fields, and the start address of the shared tensor >> 4). */
static void
cp_asm(const LStmt *s)
{
	const LOperand *t = tc_operand(s, IO_TMEM_ADDR), *d = tc_operand(s, IO_SHARED_DESC64);
	line_start();
	buf_puts(E.out, "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n");
	line_start();
	if (s->mbar_elect)
		elect_open();
	buf_printf(E.out, "asm volatile(\"%s [%%0], %%1;\" :: \"r\"(", cp_form_spelling(s->cp));
	expr_top(t->addr);
	buf_printf(E.out, "), \"l\"(0x%016llxull | (unsigned long long)((", (unsigned long long)d->desc);
	expr_top(d->addr);
	buf_puts(E.out, ") >> 4 & 0x3fffu)) : \"memory\");");
	buf_puts(E.out, s->mbar_elect ? " }\n" : "\n");
}

/* A tcgen05.mma: before the first K step the threads' writes of the operands made visible to the async proxy;
   one elected thread issues it with its two 64-bit descriptors (A from TMEM: its TMEM address and B's) (constant fields or'ed with each shared
   tensor's start address >> 4), the instruction descriptor and the accumulate predicate. */
static void
mma_asm(const LStmt *s)
{
	const LOperand *t = tc_operand(s, IO_TMEM_ADDR), *p = tc_operand(s, IO_PRED);
	/* the shared descriptors: A's (unless A is in TMEM) and B's */
	const LOperand *first = tc_operand(s, IO_SHARED_DESC64), *last = s->mma->a_tmem ? first : first + 1;
	line_start();
	if (s->mma->step == 0) {
		buf_puts(E.out, "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n");
		line_start();
	}
	if (s->mbar_elect)
		elect_open();
	/* A from TMEM (the ts form): its address in brackets where A's descriptor goes */
	buf_printf(E.out, "asm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.ne.u32 p, %%4, 0;\\n\\t%s [%%0], %s, %%2, %%3, "
	                  "%sp;\\n\\t}\" :: \"r\"(", mma_instr_spelling(s->cta_group, s->mma), s->mma->a_tmem ? "[%1]" : "%1",
	           s->mma->scale_vec ? "[%5], [%6], " : "");
	expr_top(t->addr);
	if (s->mma->a_tmem) {
		buf_puts(E.out, "), \"r\"(");
		expr_top(t[1].addr);
	}
	for (const LOperand *d = first; d <= last; d++) {
		buf_printf(E.out, "), \"l\"(0x%016llxull | (unsigned long long)((", (unsigned long long)d->desc);
		expr_top(d->addr);
		buf_puts(E.out, ") >> 4 & 0x3fffu)");
	}
	buf_printf(E.out, "), \"r\"(0x%08xu), \"r\"((unsigned)(", s->mma->idesc);
	expr_top(p->addr);
	buf_puts(E.out, "))");
	/* block-scaled: [sfa] and [sfb], the TMEM addresses after the predicate */
	for (const LOperand *sf = p + 1; s->mma->scale_vec && sf <= p + 2; sf++) {
		buf_puts(E.out, ", \"r\"(");
		expr_top(sf->addr);
		buf_puts(E.out, ")");
	}
	buf_puts(E.out, " : \"memory\");");
	buf_puts(E.out, s->mbar_elect ? " }\n" : "\n");
}

static void
tc(const LStmt *s)
{
	if (s->instr->kind == TC_MMA) {
		mma_asm(s);
		return;
	}
	if (s->instr->kind == TC_WAIT_LD) {
		wait_ld();
		return;
	}
	if (s->instr->kind == TC_CP) {
		cp_asm(s);
		return;
	}
	/* the template: the operands in the row's order, numbered %0, %1, ... as they come */
	bool vector = tc_operand(s, IO_REG_VECTOR) != NULL;
	int n = 0;
	line_start();
	buf_printf(E.out, "asm volatile(\"%s", isa_format(s->instr, s->cta_group, &s->op));
	for (int i = 0; i < s->nops; i++) {
		const LOperand *o = &s->ops[i];
		buf_puts(E.out, i ? ", " : " ");
		buf_puts(E.out, o->slot->bracketed ? "[" : "");
		switch (o->slot->kind) {
		case IO_REG_VECTOR:
			buf_puts(E.out, "{");
			reg_operands(o, n);
			buf_puts(E.out, "}");
			n += o->nregs;
			if (o->slot->written)
				for (int r = 0; r < o->nregs; r++)
					list_push(&E.pending, &o->regs[r]);
			break;
		case IO_REG:
			reg_operands(o, n++);
			if (o->slot->written)
				list_push(&E.pending, &o->regs[0]);
			break;
		case IO_SHARED_SLOT:
		case IO_TMEM_ADDR:
			buf_printf(E.out, "%%%d", n++);
			break;
		case IO_NCOLS:
			buf_printf(E.out, "%d", (int)o->imm);
			break;
		case IO_IMM:
			buf_printf(E.out, "%u", o->imm);
			break;
		default:
			fatal("CUDA C: no operand of kind %d yet", (int)o->slot->kind);
		}
		buf_puts(E.out, o->slot->bracketed ? "]" : "");
	}
	buf_puts(E.out, vector ? ";\"\n" : ";\"");
	if (vector)
		line_start();
	tc_constraints(s, vector);
}

static void
reg_store(const LStmt *s)
{
	const Tensor *t = s->tensor;
	int bits = etype_bits(t->type);
	int per = 32 / bits;
	int word = s->slot / per, shift = (s->slot % per) * bits;
	if (E.d->reg_written)
		E.d->reg_written(&E, t, word, s->slot);
	line_start();
	if (bits == 32) {
		buf_printf(E.out, "%s[%d] = ", t->cname, word);
		if (t->type == T_F32) {
			const IExpr *v = s->value->kind == IE_CONV && s->value->to == T_F32 ? s->value->a : s->value;
			buf_puts(E.out, "__float_as_uint(");
			if (v->type == T_F32)
				expr(v);
			else {
				buf_puts(E.out, "(float)(");
				expr(v);
				buf_puts(E.out, ")");
			}
			buf_puts(E.out, ");\n");
		} else {
			buf_puts(E.out, "(unsigned)(");
			expr(s->value);
			buf_puts(E.out, ");\n");
		}
		return;
	}
	unsigned mask = bits == 16 ? 0xffffu : 0xffu;
	buf_printf(E.out, "%s[%d] = (%s[%d] & 0x%08xu) | ((unsigned)(", t->cname, word, t->cname, word, ~(mask << shift));
	stored_bits(t->type, s->value);
	buf_printf(E.out, " & 0x%xu) << %d);\n", mask, shift);
}

static void
comment(const LStmt *s)
{
	if (!s->comment)
		return;
	line_start();
	buf_printf(E.out, "// %s\n", s->comment);
}

static void
block(List *body)
{
	int scope = E.in_scope.n;
	E.indent++;
	stmts(body);
	E.indent--;
	E.in_scope.n = scope;
}

/* The C type of a device function's scalar (pointer: of its elements): <stdint.h> names in a header. */
static const char *
param_ctype(EType t, bool pointer)
{
	if (etype_is_float(t) && (t == T_F32 || !pointer))
		return "float";
	if (!E.header)
		return etype_ctype(t);
	switch (t) {
	case T_I32: return "int32_t";
	case T_U32: return "uint32_t";
	case T_I16: return "int16_t";
	case T_I8: return "int8_t";
	case T_U8: return "uint8_t";
	case T_MBARRIER: return "uint64_t";
	default: return "uint16_t";
	}
}

/* The map that a call passes for tma parameter p of callee (LANGUAGE 11.4): the caller's map of its tensor t
   with the box and swizzle of p's map (lowering the call in place made it); a null pointer where the callee
   copies nothing through p. */
static void
map_arg(const KernelIR *callee, const Tensor *p, const Tensor *t)
{
	const TmaMap *want = NULL;
	for (int i = 0; i < callee->tma_maps.n && !want; i++)
		if (LIST_AT(callee->tma_maps, TmaMap, i)->tensor == p)
			want = LIST_AT(callee->tma_maps, TmaMap, i);
	if (!want) {
		buf_puts(E.out, "(const CUtensorMap *)0");
		return;
	}
	for (int i = 0; i < E.k->tma_maps.n; i++) {
		const TmaMap *m = LIST_AT(E.k->tma_maps, TmaMap, i);
		if (m->tensor == t && m->swizzle == want->swizzle && memcmp(m->box, want->box, sizeof m->box) == 0) {
			buf_printf(E.out, "%s%s", m->pointer ? "" : "&", m->cname);
			return;
		}
	}
	fatal("map_arg: %s has no map of %s for the call of %s", E.k->name, t->name, callee->name);
}

/* A call of a device function: the tensors by name, the registers by reference, the rest as values. */
static void
call(const CallInfo *c)
{
	line_start();
	buf_printf(E.out, "%s(", c->callee->name);
	for (int i = 0; i < c->nargs; i++) {
		DevParam *dp = LIST_AT(c->callee->dparams, DevParam, i);
		buf_puts(E.out, i ? ", " : "");
		Tensor *t = c->tensors[i];
		if (!t) {
			expr_top(c->values[i]);
		} else if (dp->kind == PK_VALUE && dp->tensor->tma) {
			map_arg(c->callee, dp->tensor, t);
		} else if (c->offsets[i]) { /* a slice: a pointer to its first element */
			buf_printf(E.out, "%s + ", t->cname);
			expr(c->offsets[i]);
		} else if (dp->kind == PK_LOCAL && c->first_word[i]) { /* a view: its consecutive words, by reference */
			buf_printf(E.out, "reinterpret_cast<unsigned (&)[%d]>(%s[%d])", dp->tensor->words, t->cname,
			           c->first_word[i]);
		} else if (dp->kind == PK_LOCAL && t->words != dp->tensor->words) {
			buf_printf(E.out, "reinterpret_cast<unsigned (&)[%d]>(%s)", dp->tensor->words, t->cname);
		} else {
			buf_puts(E.out, t->cname);
		}
	}
	buf_puts(E.out, ");\n");
}

static void
stmt(const LStmt *s)
{
	E.cur = s;
	comment(s);
	switch (s->kind) {
	case L_LET:
		line_start();
		buf_printf(E.out, "%sconst %s %s = ", unread(s->var->cname), etype_ctype(s->var->type), s->var->cname);
		expr_top(s->value);
		buf_puts(E.out, ";\n");
		break;
	case L_VAR:
		line_start();
		buf_printf(E.out, "%s%s %s", unread(s->var->cname), var_ctype(s->var->type), s->var->cname);
		if (s->value) {
			buf_puts(E.out, " = ");
			expr_top(s->value);
		}
		buf_puts(E.out, ";\n");
		break;
	case L_ASSIGN:
		line_start();
		buf_printf(E.out, "%s = ", s->var->cname);
		expr_top(s->value);
		buf_puts(E.out, ";\n");
		break;
	case L_STORE:
		line_start();
		buf_printf(E.out, "%s[", s->tensor->cname);
		element_index(s->tensor, s->coords, s->view_at, s->index, true);
		buf_puts(E.out, "] = ");
		stored_bits(s->tensor->type, s->value);
		buf_puts(E.out, ";\n");
		break;
	case L_SHARED:
		if (E.d->shared && !E.k->is_device) {
			E.d->shared(&E, s);
			break;
		}
		line_start();
		buf_printf(E.out, "__shared__ __align__(%d) %s %s[%d];", smem_tensor_align(s->tensor),
		           etype_ctype(s->tensor->type), s->tensor->cname, s->tensor->count);
		/* an array that is written but never read: [[maybe_unused]] does not keep nvcc from warning
		   (#550, set but never used), taking an element's address does */
		if (!list_loads(&E.k->body, s->tensor))
			buf_printf(E.out, " (void)&%s[0];", s->tensor->cname);
		buf_puts(E.out, "\n");
		break;
	case L_REGS:
		line_start();
		buf_printf(E.out, "%sunsigned %s[%d]%s;\n", unread(s->tensor->cname), s->tensor->cname, s->tensor->words,
		           etype_bits(s->tensor->type) < 32 ? " = {0}" : "");
		if (E.d->regs_declared)
			E.d->regs_declared(&E, s->tensor);
		list_push(&E.in_scope, s->tensor);
		break;
	case L_REG_STORE:
		reg_store(s);
		break;
	case L_TMEM:
		line_start();
		buf_printf(E.out, "%sconst unsigned %s = ", unread(s->tensor->cname), s->tensor->cname);
		expr_top(s->value);
		buf_puts(E.out, ";\n");
		break;
	case L_IF: {
		line_start();
		const LStmt *cur = s;
		buf_puts(E.out, "if (");
		for (;;) {
			expr_top(cur->cond);
			buf_puts(E.out, ") {\n");
			block((List *)&cur->body);
			line_start();
			if (cur->els.n == 1 && LIST_AT(cur->els, LStmt, 0)->kind == L_IF &&
			    !LIST_AT(cur->els, LStmt, 0)->comment) {
				cur = LIST_AT(cur->els, LStmt, 0);
				buf_puts(E.out, "} else if (");
				continue;
			}
			if (cur->els.n) {
				buf_puts(E.out, "} else {\n");
				block((List *)&cur->els);
				line_start();
			}
			buf_puts(E.out, "}\n");
			break;
		}
		break;
	}
	case L_FOR:
		line_start();
		buf_printf(E.out, "for (int %s = ", s->var->cname);
		expr_top(s->lo);
		buf_printf(E.out, "; %s < ", s->var->cname);
		expr_top(s->hi);
		buf_printf(E.out, "; %s++) {\n", s->var->cname);
		block((List *)&s->body);
		line_start();
		buf_puts(E.out, "}\n");
		break;
	case L_BLOCK:
		if (s->call && E.d->devices) {
			call(s->call);
			break;
		}
		if (!ir_declares(&s->body)) {
			stmts((List *)&s->body);
			break;
		}
		line_start();
		buf_puts(E.out, "{\n");
		block((List *)&s->body);
		line_start();
		buf_puts(E.out, "}\n");
		break;
	case L_BARRIER:
		line_start();
		buf_puts(E.out, "__syncthreads();\n");
		break;
	case L_FENCE:
		if (E.d->placed_fences)
			E.d->tc(&E, s);
		break;
	case L_WARP_SYNC:
		line_start();
		buf_puts(E.out, "__syncwarp();\n");
		break;
	case L_NAMED_BAR:
		line_start();
		if (E.d->named_bar)
			buf_printf(E.out, "%s_%s(%d, %d);\n", E.d->named_bar, s->bar_arrive ? "arrive" : "sync", s->bar_id,
			           s->bar_threads);
		else
			buf_printf(E.out, "asm volatile(\"bar.%s %d, %d;\" ::: \"memory\");\n", s->bar_arrive ? "arrive" : "sync",
			           s->bar_id, s->bar_threads);
		break;
	case L_COPY:
		line_start();
		buf_printf(E.out, "%s[%d] = %s;\n", s->regs[0].tensor->cname, s->regs[0].word,
		           reg_text(s->regs[1].tensor, s->regs[1].word, -1, "copied"));
		if (E.d->reg_copied)
			E.d->reg_copied(&E, &s->regs[0], &s->regs[1]);
		break;
	case L_TC:
		E.d->tc(&E, s);
		break;
	case L_MBAR:
		if (E.d->mbar)
			E.d->mbar(&E, s);
		else
			mbar_asm(s);
		break;
	case L_TMA:
		if (E.d->tma)
			E.d->tma(&E, s);
		else
			tma_asm(s);
		break;
	}
}

/* A TMA copy (tma.c) as inline PTX: its tensor map is the kernel's __grid_constant__ parameter, whose
   generic address the instruction takes; the shared destination is the tensor's address plus the piece's
   unswizzled offset; a load completes on its barrier. One elected lane issues it where whole warps reach it. */
static void
tma_asm(const LStmt *s)
{
	const TmaCopy *c = s->tma;
	line_start();
	if (c->wait_read) {
		buf_printf(E.out, "asm volatile(\"%s;\" ::: \"memory\");\n", tma_opcode(c));
		return;
	}
	int rank = c->map->rank, n = 0;
	if (s->mbar_elect)
		elect_open();
	/* multicast: the CTA of lowest rank in the mask (ctz = bfind.shiftamt of the bit-reversed mask) issues the
	   copy for every CTA of it, with the mask as 16 bits; the mask is the last operand */
	if (c->multicast)
		buf_printf(E.out, "asm volatile(\"{\\n\\t.reg .b32 r, l;\\n\\t.reg .b16 m;\\n\\t.reg .pred p;\\n\\t"
		                  "mov.u32 r, %%%%cluster_ctarank;\\n\\tbrev.b32 l, %%%d;\\n\\tbfind.shiftamt.u32 l, l;\\n\\t"
		                  "cvt.u16.u32 m, %%%d;\\n\\tsetp.eq.u32 p, r, l;\\n\\t@p ", rank + 3, rank + 3);
	else
		buf_puts(E.out, "asm volatile(\"");
	buf_printf(E.out, "%s%s ", c->store ? "fence.proxy.async.shared::cta;\\n\\t" : "", tma_opcode(c));
	if (c->store)
		buf_printf(E.out, "[%%%d, {", n++);
	else
		buf_printf(E.out, "[%%%d], [%%%d, {", n, n + 1), n += 2;
	for (int d = 0; d < rank; d++)
		buf_printf(E.out, "%s%%%d", d ? ", " : "", n++);
	if (c->store)
		buf_printf(E.out, "}], [%%%d];\\n\\t%s;\" :: ", n, tma_bulk_spelling(false));
	else
		buf_printf(E.out, "}], [%%%d]%s;%s\" :: ", n, c->multicast ? ", m" : "", c->multicast ? "\\n\\t}" : "");
	IExpr *saddr = ie_new(IE_SADDR, T_U32);
	saddr->tensor = c->smem;
	saddr->index = ie_int(0, T_I32);
	IExpr *dst = c->dst ? ie_binary(OP_ADD, saddr, ie_int(c->dst, T_U32)) : saddr;
	if (c->stage)
		dst = ie_binary(OP_ADD, dst, c->stage);
	if (!c->store) {
		buf_puts(E.out, "\"r\"(");
		expr_top(dst);
		buf_puts(E.out, "), ");
	}
	buf_printf(E.out, "\"l\"(%s%s)", c->map->pointer ? "" : "&", c->map->cname);
	for (int d = 0; d < rank; d++) {
		buf_puts(E.out, ", \"r\"(");
		expr_top(c->coord[d]);
		buf_puts(E.out, ")");
	}
	buf_puts(E.out, ", \"r\"(");
	expr_top(c->store ? dst : c->mbar);
	if (c->multicast) {
		buf_puts(E.out, "), \"r\"(");
		expr_top(c->multicast);
	}
	buf_puts(E.out, ") : \"memory\");");
	buf_puts(E.out, s->mbar_elect ? " }\n" : "\n");
}

void
cu_tma_asm(CuWriter *w, const LStmt *s)
{
	if (w != &E)
		fatal("cu_tma_asm: not the writer of the running cu_write");
	tma_asm(s);
}

/* An mbarrier statement, commit, cluster_sync or the init fence as inline PTX (isa.c's spellings); a
   single-thread statement that whole warps reach runs in the lane elect.sync picks among the active
   lanes (a block's last warp may be short), a wait loops on try_wait (the label is local to the braces). */
static void
mbar_asm(const LStmt *s)
{
	const char *op = isa_format(s->instr, s->cta_group, NULL);
	line_start();
	switch (s->mbar_op) {
	case MB_FENCE_INIT:
		buf_printf(E.out, "asm volatile(\"%s;\" ::: \"memory\");\n", op);
		return;
	case MB_CLUSTER_SYNC:
		buf_printf(E.out, "asm volatile(\"%s%s;\\n\\t%s;\" ::: \"memory\");\n",
		           s->proxy_fence ? "fence.proxy.async.shared::cta;\\n\\t" : "", op, isa_spelling(TC_CLUSTER_WAIT, 0));
		return;
	case MB_WAIT:
		buf_printf(E.out, "asm volatile(\"{\\n\\t.reg .pred p;\\n\\tTL_WAIT:\\n\\t%s p, [%%0], %%1;\\n\\t@!p bra "
		                  "TL_WAIT;\\n\\t}\" :: \"r\"(", op);
		expr_top(s->mbar);
		buf_puts(E.out, "), \"r\"(");
		expr_top(s->value);
		buf_puts(E.out, ") : \"memory\");\n");
		return;
	default:
		break;
	}
	if (s->mbar_elect)
		elect_open();
	if (s->instr->kind == TC_COMMIT_PAIR) {
		/* the mask of the pair: bits (rank & ~1) and (rank | 1) of the cluster's CTAs */
		buf_printf(E.out, "asm volatile(\"{\\n\\t.reg .b32 r, t;\\n\\t.reg .b16 m;\\n\\tmov.u32 r, %%%%cluster_ctarank;\\n\\t"
		                  "and.b32 r, r, 0xfffffffe;\\n\\tmov.b32 t, 3;\\n\\tshl.b32 t, t, r;\\n\\tcvt.u16.u32 m, t;\\n\\t"
		                  "%s [%%0], m;\\n\\t}\" :: \"r\"(", op);
		expr_top(s->mbar);
		buf_puts(E.out, ") : \"memory\");");
	} else if (s->mbar_op == MB_COMMIT) {
		buf_printf(E.out, "asm volatile(\"%s [%%0];\" :: \"r\"(", op);
		expr_top(s->mbar);
		buf_puts(E.out, ") : \"memory\");");
	} else {
		buf_printf(E.out, "asm volatile(\"%s %s[%%0], %%1;\" :: \"r\"(", op, s->mbar_op == MB_ARRIVE ? "_, " : "");
		expr_top(s->mbar);
		buf_puts(E.out, "), \"r\"(");
		expr_top(s->value);
		buf_puts(E.out, ") : \"memory\");");
	}
	buf_puts(E.out, s->mbar_elect ? " }\n" : "\n");
}

/* paired_halves list[i] and list[i + 1] (elements k and k + 1 of a converting vector load where k >= 0):
 * the word written whole by tl_f2h2 / tl_f2bf2, one conversion. The CUDA C's vector dialect only: the
 * emulator follows each element's write (reg_written). */
static void
paired_reg_store(const List *list, int i, int k)
{
	const LStmt *a = LIST_AT(*list, LStmt, i), *b = LIST_AT(*list, LStmt, i + 1);
	const Tensor *t = a->tensor;
	E.helpers |= 1u << (t->type == T_F16 ? H_F2H2 : H_F2BF2);
	line_start();
	buf_printf(E.out, "%s[%d] = %s((float)(", t->cname, a->slot / 2, t->type == T_F16 ? "tl_f2h2" : "tl_f2bf2");
	for (int h = 0; h < 2; h++) {
		const LStmt *e = h ? b : a;
		if (k >= 0) {
			vector_elem_load = vector_load(e->value);
			vector_elem = k + h;
		}
		expr_top(rounded_half(t->type, e->value));
		buf_puts(E.out, h ? "));\n" : "), (float)(");
	}
}

/* Statements list[i] .. list[i + 7] as one stmatrix / ldmatrix (vectorize.c: LStmt.matrix): inline PTX on
 * the four register words of the slots and the shared address of the matrix row this lane gives. */
static void
matrix_access(const LStmt *s)
{
	bool ld = s->kind == L_REG_STORE;
	const Tensor *reg;
	int w0;
	const Tensor *t = matrix_operands(s, &reg, &w0);
	line_start();
	buf_printf(E.out, "asm volatile(\"%s %s;\" :", isa_matrix(!ld, s->matrix == 2),
	           ld ? "{%0, %1, %2, %3}, [%4]" : "[%0], {%1, %2, %3, %4}");
	for (int k = 0; ld && k < 4; k++)
		buf_printf(E.out, "%s \"=r\"(%s)", k ? "," : "", reg_text(reg, w0 + k, -1, "stored"));
	buf_printf(E.out, " : \"r\"(%s(&%s[", E.d->shared_addr, t->cname);
	expr_top(global_index(t, s->matrix_index));
	buf_puts(E.out, "]))");
	for (int k = 0; !ld && k < 4; k++)
		buf_printf(E.out, ", \"r\"(%s)", reg_text(reg, w0 + k, -1, "read"));
	buf_puts(E.out, " : \"memory\");\n");
}

/* Statements list[i] .. list[i + vec - 1] as one vector access (vectorize.c): uint4, uint2 or one
 * unsigned of whole register words, or of elements converted one by one (vector_converts) as the
 * statements alone would: a load then stores each element's value into its register, a store packs
 * the bits each value would store. */
static void
vector_access(const LStmt *s, List *list, int i)
{
	static const char *const lanes = "xyzw";
	bool ld = s->kind == L_REG_STORE, conv = vector_converts(s);
	const IExpr *m = ld ? vector_load(s->value) : moved_bits(s->tensor->type, s->value);
	const Tensor *t = ld ? m->tensor : s->tensor;
	int bits = etype_bits(t->type), words = s->vec * bits / 32, per = 32 / bits;
	const char *vt = words == 4 ? "uint4" : words == 2 ? "uint2" : "unsigned";
	line_start();
	if (ld && conv) {
		buf_printf(E.out, "{\n");
		E.indent++;
		line_start();
		buf_printf(E.out, "const %s tl_v = *(const %s *)&%s[", vt, vt, t->cname);
		expr_top(m->index);
		buf_puts(E.out, "];\n");
		vector_elem_words = words;
		for (int k = 0; k < s->vec; k++) {
			const LStmt *e = LIST_AT(*list, LStmt, i + k);
			if (k + 1 < s->vec && !E.d->reg_written && paired_halves(list, i + k, true)) {
				paired_reg_store(list, i + k, k);
				k++;
				continue;
			}
			vector_elem_load = vector_load(e->value);
			vector_elem = k;
			reg_store(e);
		}
		vector_elem_load = NULL;
		E.indent--;
		line_start();
		buf_puts(E.out, "}\n");
		return;
	}
	if (ld) {
		int w0 = s->slot * bits / 32;
		buf_printf(E.out, "{ const %s tl_v = *(const %s *)&%s[", vt, vt, t->cname);
		expr_top(global_index(t, m->index));
		buf_puts(E.out, "];");
		for (int k = 0; k < words; k++) {
			if (words == 1)
				buf_printf(E.out, " %s[%d] = tl_v;", s->tensor->cname, w0);
			else
				buf_printf(E.out, " %s[%d] = tl_v.%c;", s->tensor->cname, w0 + k, lanes[k]);
		}
		buf_puts(E.out, " }\n");
		return;
	}
	buf_printf(E.out, "*(%s *)&%s[", vt, t->cname);
	expr_top(global_index(t, s->index));
	buf_printf(E.out, "] = %s%s(", words > 1 ? "make_" : "", words > 1 ? vt : "");
	for (int k = 0; k < words; k++) {
		if (k)
			buf_puts(E.out, ",");
		if (conv && bits < 32) { /* a word of packed elements per line */
			buf_puts(E.out, "\n");
			E.indent++;
			line_start();
			E.indent--;
		} else if (k) {
			buf_puts(E.out, " ");
		}
		if (!conv) {
			buf_puts(E.out, reg_text(m->tensor, m->slot * bits / 32 + k, -1, "read"));
			continue;
		}
		const IExpr *lo = per == 2 ? rounded_half(t->type, LIST_AT(*list, LStmt, i + 2 * k)->value) : NULL;
		const IExpr *hi = per == 2 ? rounded_half(t->type, LIST_AT(*list, LStmt, i + 2 * k + 1)->value) : NULL;
		if (lo && hi) {
			E.helpers |= 1u << (t->type == T_F16 ? H_F2H2 : H_F2BF2);
			buf_printf(E.out, "%s((float)(", t->type == T_F16 ? "tl_f2h2" : "tl_f2bf2");
			expr_top(lo);
			buf_puts(E.out, "), (float)(");
			expr_top(hi);
			buf_puts(E.out, "))");
			continue;
		}
		for (int p = 0; p < per; p++) {
			const IExpr *v = LIST_AT(*list, LStmt, i + k * per + p)->value;
			if (bits == 32) {
				buf_puts(E.out, t->type == T_F32 ? "__float_as_uint(" : "(unsigned)(");
				stored_bits(t->type, v);
				buf_puts(E.out, ")");
				continue;
			}
			buf_printf(E.out, "%s%s(unsigned)(%s)(", p ? " | " : "", p ? "(" : "",
			           bits == 16 ? "unsigned short" : "unsigned char");
			stored_bits(t->type, v);
			buf_puts(E.out, ")");
			if (p)
				buf_printf(E.out, " << %d)", p * bits);
		}
	}
	buf_puts(E.out, ");\n");
}

static void
stmts(List *list)
{
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (E.d->vector && !E.d->reg_written && paired_halves(list, i, false)) {
			E.cur = s;
			comment(s);
			paired_reg_store(list, i, -1);
			i++;
		} else if (s->matrix && E.d->vector) {
			E.cur = s;
			comment(s);
			matrix_access(s);
			i += s->vec - 1;
		} else if (s->vec && E.d->vector) {
			E.cur = s;
			comment(s);
			vector_access(s, list, i);
			i += s->vec - 1;
		} else {
			stmt(s);
		}
	}
}

static bool
uses_builtin(const IExpr *e, Builtin b);

static bool
uses_warp(const IExpr *e)
{
	return uses_builtin(e, B_WARP_ID) || uses_builtin(e, B_WARPGROUP_ID);
}

static bool
list_uses_warp(List *list)
{
	for (int i = 0; i < list->n; i++) {
		LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->call && E.d->devices) {
			/* written as a C call: the function computes its own warp index, the caller its arguments' */
			for (int a = 0; a < s->call->nargs; a++)
				if (s->call->values && uses_warp(s->call->values[a]))
					return true;
			continue;
		}
		if (uses_warp(s->value) || uses_warp(s->cond) || uses_warp(tc_addr(s)) || uses_warp(s->index) ||
		    uses_warp(s->lo) || uses_warp(s->hi) || list_uses_warp(&s->body) || list_uses_warp(&s->els))
			return true;
	}
	return false;
}

static bool
uses_builtin(const IExpr *e, Builtin b)
{
	if (!e)
		return false;
	if (e->kind == IE_BUILTIN)
		return e->builtin == b;
	return uses_builtin(e->a, b) || uses_builtin(e->b, b) || uses_builtin(e->index, b);
}

static void
note_read(const char *cname)
{
	for (int i = 0; i < E.read_names.n; i++)
		if (strcmp(LIST_AT(E.read_names, char, i), cname) == 0)
			return;
	list_push(&E.read_names, (void *)cname);
}

static void
collect_expr_reads(const IExpr *e)
{
	if (!e)
		return;
	if (e->kind == IE_VAR)
		note_read(e->var->cname);
	if (e->tensor)
		note_read(e->tensor->cname);
	collect_expr_reads(e->a);
	collect_expr_reads(e->b);
	collect_expr_reads(e->index);
}

static void
collect_reads(const List *list)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		collect_expr_reads(s->value);
		collect_expr_reads(s->index);
		collect_expr_reads(s->cond);
		collect_expr_reads(s->lo);
		collect_expr_reads(s->hi);
		collect_expr_reads(tc_addr(s));
		for (int r = 0; r < tc_nregs(s); r++)
			note_read(tc_reg(s, r)->tensor->cname);
		if (s->kind == L_STORE || s->kind == L_REG_STORE)
			note_read(s->tensor->cname);
		collect_reads(&s->body);
		collect_reads(&s->els);
	}
}

/* A declaration the code never reads says so: the CUDA C compiles without warnings. */
static const char *
unread(const char *cname)
{
	for (int i = 0; i < E.read_names.n; i++)
		if (strcmp(LIST_AT(E.read_names, char, i), cname) == 0)
			return "";
	return "[[maybe_unused]] ";
}

/* The writer's state at the start of a kernel or device function. */
static void
function_begin(KernelIR *k)
{
	E.k = k;
	E.indent = 1;
	E.pending = (List){0};
	E.in_scope = (List){0};
	E.cur = NULL;
	E.read_names = (List){0};
	collect_reads(&k->body);
}

/* tl_warp_id, where the body uses the warp index: a plain shift, which ptxas finds uniform (a
   shuffle would keep it live in a register); in a warp or warpgroup device function, the warp within
   the calling warp or warpgroup, as its checks counted it. */
static void
warp_id_decl(KernelIR *k)
{
	if (!list_uses_warp(&k->body))
		return;
	buf_puts(E.out, "\tconst int tl_warp_id = (int)(");
	thread_linear();
	buf_puts(E.out, !k->is_device || k->scope == SCOPE_CTA || k->cta_axes ? " >> 5);\n"
	                : k->scope == SCOPE_WARP                ? " >> 5) & 0;\n"
	                                                        : " >> 5) & 3;\n");
}

/* A program for libtilert (launch.c) as the u32 array SYMBOL<kernel>, after its comment; nothing for an
   empty one. */
static void
program_symbol(KernelIR *k, const char *comment, const char *symbol, int (*program)(KernelIR *, uint32_t *, int))
{
	int n = program(k, NULL, 0);
	if (!n)
		return;
	uint32_t *prog = pool_alloc(sizeof(uint32_t) * (size_t)n);
	program(k, prog, n);
	buf_printf(E.out, "// %s (tilert.h)\nextern \"C\" __device__ const unsigned %s%s[%d] = {", comment, symbol, k->name, n);
	for (int i = 0; i < n; i++)
		buf_printf(E.out, "%s%u", i ? ", " : "", prog[i]);
	buf_puts(E.out, "};\n");
}

static void
kernel(KernelIR *k)
{
	function_begin(k);
	if (E.d->kernel_begin)
		E.d->kernel_begin(&E, k);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (t)
			buf_puts(E.out, align_promise_text(t));
	}
	buf_printf(E.out, "extern \"C\" __global__ void __launch_bounds__(%d) ", k->threads);
	if (k->has_cluster && E.d->clusters)
		buf_printf(E.out, "__cluster_dims__(%d, %d, %d) ", k->cluster[0], k->cluster[1], k->cluster[2]);
	buf_printf(E.out, "%s(", k->name);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (i)
			buf_puts(E.out, ", ");
		if (t) {
			buf_printf(E.out, "%s *__restrict__ %s", etype_ctype(t->type), t->cname);
		} else {
			Var *v = LIST_AT(k->params, Var, i);
			buf_printf(E.out, "%s %s", etype_is_float(v->type) ? "float" : etype_ctype(v->type), v->cname);
		}
	}
	bool maps_if = k->tma_maps.n && E.d->tma_maps && E.d->tma_maps_if;
	if (maps_if)
		buf_printf(E.out, "\n#if %s\n", E.d->tma_maps_if);
	for (int i = 0; i < k->tma_maps.n && E.d->tma_maps; i++)
		buf_printf(E.out, "%sconst __grid_constant__ CUtensorMap %s", i || k->params.n ? ", " : "",
		           LIST_AT(k->tma_maps, TmaMap, i)->cname);
	if (maps_if)
		buf_puts(E.out, "\n#endif\n");
	buf_puts(E.out, ")\n{\n");
	if (E.d->body_begin)
		E.d->body_begin(&E, k);
	warp_id_decl(k);
	stmts(&k->body);
	if (E.d->body_end)
		E.d->body_end(&E, k);
	buf_puts(E.out, "}\n\n");
	buf_printf(E.out, "// launch configuration for libtilert: grid x, y, z, block x, y, z\n"
	                  "extern \"C\" __device__ const unsigned tilec_launch_%s[6] = {%d, %d, %d, %d, %d, %d};\n",
	           k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2]);
	if (grid_at_launch(k))
		program_symbol(k, "the grid dimensions given as 0 above, computed at launch from the parameters", "tilec_grid_",
		               grid_program);
	if (maps_if)
		buf_printf(E.out, "#if %s\n", E.d->tma_maps_if);
	if (k->tma_maps.n && E.d->tma_maps)
		program_symbol(k, "the tensor maps libtilert encodes at launch and passes after the parameters", "tilec_tma_",
		               tma_program);
	if (maps_if)
		buf_puts(E.out, "#endif\n");
	program_symbol(k, "the align promises of the tensor parameters, which libtilert checks at launch", "tilec_align_",
	               align_program);
	if (k->has_cluster && E.d->clusters)
		buf_printf(E.out, "// the cluster for libtilert's launch: x, y, z\n"
		                  "extern \"C\" __device__ const unsigned tilec_cluster_%s[3] = {%d, %d, %d};\n",
		           k->name, k->cluster[0], k->cluster[1], k->cluster[2]);
	if (E.d->kernel_end)
		E.d->kernel_end(&E, k);
}

/* Whether a store of the list writes global tensor t: its own, or one of a function called with t (a tensor whose
   align_from leads to t). */
static bool
stores_to(const List *list, const Tensor *t)
{
	for (int i = 0; i < list->n; i++) {
		const LStmt *s = LIST_AT(*list, LStmt, i);
		if (s->kind == L_STORE) {
			const Tensor *w = s->tensor;
			for (int depth = 0; w && w != t && depth < 256; depth++)
				w = w->align_from.n ? LIST_AT(w->align_from, Tensor, 0) : NULL;
			if (w == t)
				return true;
		}
		if (stores_to(&s->body, t) || stores_to(&s->els, t))
			return true;
	}
	return false;
}

/* Global tensor parameters only read are const pointers. */
static bool
read_only(const KernelIR *k, const DevParam *dp)
{
	return dp->kind == PK_VALUE && dp->tensor && !stores_to(&k->body, dp->tensor);
}

/* Device function k's map of tma parameter t, or NULL where no copy uses t. */
static const TmaMap *
param_map(const KernelIR *k, const Tensor *t)
{
	for (int i = 0; i < k->tma_maps.n; i++)
		if (LIST_AT(k->tma_maps, TmaMap, i)->tensor == t)
			return LIST_AT(k->tma_maps, TmaMap, i);
	return NULL;
}

/* The contract's line of tma parameter t: the map it is, and the host function that encodes it. */
static void
tma_contract(const KernelIR *k, const Tensor *t)
{
	const TmaMap *m = param_map(k, t);
	buf_printf(E.out, "// %s: the tensor map (const CUtensorMap *, in kernel parameter, constant or global memory) of "
	                  "a %s tensor of rank %d", t->name, etype_name(t->type), t->rank);
	if (!m) {
		buf_puts(E.out, "; the function copies nothing through it (a null pointer will do)\n");
		return;
	}
	buf_printf(E.out, ", box [");
	for (int d = m->rank - 1; d >= 0; d--)
		buf_printf(E.out, "%d%s", m->box[d], d ? ", " : "]");
	buf_printf(E.out, ", swizzle %s", smem_swizzle_info(m->swizzle)->name);
	buf_puts(E.out, E.header ? pool_printf(": encode it with %s_%s_tensormap (below)\n", k->name, t->name) : "\n");
}

/* In a header, after device function k: per tensor map, the host function that encodes it (LANGUAGE 11.4),
   NAME_PARAM_tensormap(map, base, dims..., strides...), with the dimensions and the strides in elements in
   the order the .tile file declares them (outermost first, the last stride 1), through the encoding
   libtilert uses (runtime/tilec_tensormap.h). */
static void
tensormap_functions(const KernelIR *k)
{
	for (int i = 0; i < k->tma_maps.n; i++) {
		const TmaMap *m = LIST_AT(k->tma_maps, TmaMap, i);
		const Tensor *t = m->tensor;
		int rank = m->rank, bytes = etype_bits(t->type) / 8;
		buf_printf(E.out, "// %s_%s_tensormap: the tensor map of %s's parameter %s, %s", k->name, t->name, k->name,
		           t->name, etype_name(t->type));
		for (int d = 0; d < rank; d++) {
			const Expr *x = t->dim_src[d];
			buf_printf(E.out, "%s", d ? ", " : "[");
			if (x && x->kind == E_NAME)
				buf_puts(E.out, x->name);
			else if (x && x->kind == E_INT)
				buf_printf(E.out, "%lld", (long long)x->ival);
			else
				buf_printf(E.out, "dim%d", d);
		}
		buf_puts(E.out, "]; base its first element (16-byte aligned); dims and strides (in elements) as declared, "
		                "outermost first, the last stride 1. Returns cuTensorMapEncodeTiled's CUresult (link with -lcuda; a "
		                "context must be current, as after any CUDA runtime call)\n");
		buf_printf(E.out, "static inline CUresult %s_%s_tensormap(CUtensorMap *map, void *base", k->name, t->name);
		for (int d = 0; d < rank; d++)
			buf_printf(E.out, ", uint64_t dim%d", d);
		for (int d = 0; d < rank; d++)
			buf_printf(E.out, ", uint64_t stride%d", d);
		buf_printf(E.out, ")\n{\n\tif (stride%d != 1)\n\t\treturn CUDA_ERROR_INVALID_VALUE;\n", rank - 1);
		buf_puts(E.out, "\tconst uint64_t dims[] = {");
		for (int d = rank - 1; d >= 0; d--)
			buf_printf(E.out, "dim%d%s", d, d ? ", " : "};\n");
		buf_puts(E.out, "\tconst uint64_t strides[] = {");
		for (int d = rank - 2; d >= 0; d--)
			buf_printf(E.out, "stride%d * %d, ", d, bytes);
		buf_puts(E.out, "0};\n\tconst uint32_t box[] = {");
		for (int d = 0; d < rank; d++)
			buf_printf(E.out, "%d%s", m->box[d], d + 1 < rank ? ", " : "};\n");
		buf_printf(E.out, "\treturn (CUresult)tilec_tensormap_encode((tilec_tensormap_encoder)cuTensorMapEncodeTiled, "
		                  "map, %d, %d, base, dims, strides, box, %d);\n}\n\n", tma_dtype(t->type), rank, (int)m->swizzle);
	}
}

/* The contract's lines for global tensor parameters: how the function accesses each, and the alignment its
   vector accesses assume (known once every call in the file is lowered). */
static void
global_contract(const KernelIR *k)
{
	for (int i = 0; i < k->dparams.n; i++) {
		const DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		if (dp->kind != PK_VALUE || !dp->tensor)
			continue;
		const Tensor *t = dp->tensor;
		if (t->tma) {
			tma_contract(k, t);
			continue;
		}
		buf_printf(E.out, "// %s: a pointer to %s in global memory, which the function %s; its address must be a multiple "
		           "of %d bytes\n", t->name, etype_name(t->type), read_only(k, dp) ? "only reads (const)" : "writes",
		           tensor_align(t));
		buf_puts(E.out, align_promise_text(t));
	}
}

/* The C declaration of a scalar or global tensor parameter named cname: a tma tensor as its tensor map
   (LANGUAGE 11.4), another tensor as a pointer to its elements. */
static void
value_param(const KernelIR *k, const DevParam *dp, const char *cname)
{
	const Tensor *t = dp->tensor;
	if (!t)
		buf_printf(E.out, "%s %s", param_ctype(dp->var->type, false), cname);
	else if (t->tma)
		buf_printf(E.out, "const CUtensorMap *%s", cname);
	else
		buf_printf(E.out, "%s%s *%s", read_only(k, dp) ? "const " : "", param_ctype(t->type, true), cname);
}

/* A device function: the comment with its contract, then a C function over its parameters. */
static void
device_fn(KernelIR *k)
{
	function_begin(k);
	buf_puts(E.out, k->contract);
	global_contract(k);
	buf_printf(E.out, "static __device__ __forceinline__ void %s(", k->name);
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		Tensor *t = dp->tensor;
		buf_puts(E.out, i ? ", " : "");
		switch (dp->kind) {
		case PK_VALUE:
			value_param(k, dp, t ? t->cname : dp->var->cname);
			break;
		case PK_SHARED:
			buf_printf(E.out, "%s *%s", param_ctype(t->type, true), t->cname);
			break;
		case PK_TMEM:
			buf_printf(E.out, "%s %s", E.header ? "uint32_t" : "unsigned", t->cname);
			break;
		case PK_LOCAL:
			buf_printf(E.out, "%s (&%s)[%d]", E.header ? "uint32_t" : "unsigned", t->cname, t->words);
			break;
		}
	}
	buf_puts(E.out, ")\n{\n");
	if (E.d->device_begin)
		E.d->device_begin(&E, k);
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		const char *cname = dp->tensor ? dp->tensor->cname : dp->var->cname;
		if (dp->kind == PK_LOCAL)
			list_push(&E.in_scope, dp->tensor);
		if (*unread(cname))
			buf_printf(E.out, "\t(void)%s;\n", cname);
	}
	warp_id_decl(k);
	stmts(&k->body);
	buf_puts(E.out, "}\n\n");
}

/* In a header, where a local parameter holds f32 or i32 elements: the same function taking those registers
   as float (&)[S] / int32_t (&)[S] (the element's C type, one per register word), for callers that keep
   their fragment in that type; it passes them on as the words they are. */
static void
device_fn_typed(KernelIR *k)
{
	bool typed = false;
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		typed |= dp->kind == PK_LOCAL && (dp->tensor->type == T_F32 || dp->tensor->type == T_I32);
	}
	if (!typed)
		return;
	buf_printf(E.out, "// %s with its f32 / i32 registers as float / int32_t\n"
	                  "static __device__ __forceinline__ void %s(", k->name, k->name);
	Buf call = {0};
	for (int i = 0; i < k->dparams.n; i++) {
		DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		Tensor *t = dp->tensor;
		const char *cname = t ? t->cname : dp->var->cname;
		bool cast = dp->kind == PK_LOCAL && (t->type == T_F32 || t->type == T_I32);
		buf_puts(E.out, i ? ", " : "");
		buf_puts(&call, i ? ", " : "");
		switch (dp->kind) {
		case PK_VALUE:
			value_param(k, dp, cname);
			break;
		case PK_SHARED:
			buf_printf(E.out, "%s *%s", param_ctype(t->type, true), cname);
			break;
		case PK_TMEM:
			buf_printf(E.out, "uint32_t %s", cname);
			break;
		case PK_LOCAL:
			buf_printf(E.out, "%s (&%s)[%d]", cast ? param_ctype(t->type, false) : "uint32_t", cname, t->words);
			break;
		}
		if (cast)
			buf_printf(&call, "reinterpret_cast<uint32_t (&)[%d]>(%s)", t->words, cname);
		else
			buf_puts(&call, cname);
	}
	buf_printf(E.out, ")\n{\n\t%s(%s);\n}\n\n", k->name, call.data);
	buf_free(&call);
}

void
cu_expr(CuWriter *w, const IExpr *e)
{
	if (w != &E)
		fatal("cu_expr: not the writer of the running cu_write");
	expr_top(e);
}

/* ---------------------------------------------------------------- functions of 10.2 (mathfn.c) */

typedef struct CGen {
	MathGen g;
	MathKind kind[512];
	int n;
} CGen;

/* A new value: "const T vN = " for its initializer to follow; with no initializer, "T vN;" */
static int
cgen_new(CGen *c, MathKind k, bool init)
{
	if (c->n >= 512)
		fatal("emit_cu: a math function with too many values");
	c->kind[c->n] = k;
	line_start();
	buf_printf(E.out, init ? "const %s v%d = " : "%s v%d;\n", k == MK_F32 ? "float" : k == MK_I32 ? "int" : "bool", c->n);
	return c->n++;
}

/* The GPU's ex2 has no C spelling that is this instruction alone whatever nvcc's options (exp2f adds a
   scaling for subnormal results; __frcp_rn and rsqrtf are other instructions): the instruction itself,
   as the PTX route writes it. */
static int
cgen_approx(CGen *c, const char *instr, int a)
{
	int r = cgen_new(c, MK_F32, false);
	line_start();
	buf_printf(E.out, "asm(\"%s %%0, %%1;\" : \"=f\"(v%d) : \"f\"(v%d));\n", instr, r, a);
	return r;
}

static int
cgen_kf(MathGen *g, float v)
{
	int r = cgen_new((CGen *)g, MK_F32, true);
	float_literal(v);
	buf_puts(E.out, ";\n");
	return r;
}

static int
cgen_ki(MathGen *g, int32_t v)
{
	int r = cgen_new((CGen *)g, MK_I32, true);
	int_literal(v, T_I32);
	buf_puts(E.out, ";\n");
	return r;
}

static int
cgen_op(MathGen *g, MOp o, int a, int b, int c)
{
	CGen *cg = (CGen *)g;
	if (o == MO_EX2 || o == MO_RCP || o == MO_RSQ)
		return cgen_approx(cg, o == MO_EX2 ? "ex2.approx.ftz.f32" : o == MO_RCP ? "rcp.approx.ftz.f32"
		                                                        : "rsqrt.approx.ftz.f32", a);
	static const char *const fmt[] = {
		[MO_FMA] = "__fmaf_rn(v%d, v%d, v%d)", [MO_MUL] = "__fmul_rn(v%d, v%d)", [MO_ADD] = "__fadd_rn(v%d, v%d)",
		[MO_SUB] = "__fsub_rn(v%d, v%d)", [MO_DIV] = "__fdiv_rn(v%d, v%d)", [MO_RINT] = "rintf(v%d)",
		[MO_F2I] = "__float2int_rn(v%d)", [MO_I2F] = "__int2float_rn(v%d)", [MO_ASINT] = "__float_as_int(v%d)",
		[MO_ASFLT] = "__int_as_float(v%d)", [MO_IADD] = "(int)((unsigned)v%d + (unsigned)v%d)",
		[MO_ISUB] = "(int)((unsigned)v%d - (unsigned)v%d)", [MO_IAND] = "v%d & v%d", [MO_IOR] = "v%d | v%d",
		[MO_IXOR] = "v%d ^ v%d", [MO_SHL] = "(int)((unsigned)v%d << v%d)", [MO_SHRA] = "v%d >> v%d",
		[MO_FLT] = "v%d < v%d", [MO_FNAN] = "v%d != v%d", [MO_INE0] = "v%d != 0", [MO_SEL] = "v%d ? v%d : v%d",
		[MO_FABS] = "fabsf(v%d)", [MO_SQRT] = "__fsqrt_rn(v%d)",
	};
	int r = cgen_new(cg, math_result_kind(o, b >= 0 ? cg->kind[b] : MK_F32), true);
	if (o == MO_FNAN)
		b = a;
	buf_printf(E.out, fmt[o], a, b, c);
	buf_puts(E.out, ";\n");
	return r;
}

/* A helper's definition; in a header, guarded so that headers of several .tile files can share a
   translation unit (each defines the same helper the same way). */
void
cu_guard_begin(CuWriter *w, Buf *out, const char *name)
{
	if (w->header)
		buf_printf(out, "#ifndef TILEC_HELPER_%s\n#define TILEC_HELPER_%s\n", name, name);
}

void
cu_guard_end(CuWriter *w, Buf *out)
{
	if (w->header)
		buf_puts(out, "#endif\n\n");
}

void
cu_minifloat_helpers(CuWriter *w, Buf *out, const char *qualifiers)
{
	if (!w->minifloat)
		return;
	cu_guard_begin(w, out, "tl_minifloat");
	buf_printf(out, "#define TL_MF_FN %s\n", qualifiers);
	buf_puts(out, minifloat_source);
	buf_puts(out, "\n");
	cu_guard_end(w, out);
}

static void
cu_helpers(CuWriter *w, Buf *out)
{
	for (int h = 0; h < H_COUNT; h++)
		if (w->helpers >> h & 1) {
			const char *name = strchr(helper_source[h], '(');
			const char *start = name;
			while (start > helper_source[h] && start[-1] != ' ')
				start--;
			cu_guard_begin(w, out, pool_strndup(start, (size_t)(name - start)));
			buf_printf(out, "static __device__ __forceinline__ %s\n", helper_source[h]);
			cu_guard_end(w, out);
		}
	for (int f = 0; f < F_COUNT; f++) {
		if (!(w->funcs >> f & 1))
			continue;
		Buf *saved = w->out;
		w->out = out;
		w->indent = 1;
		cu_guard_begin(w, out, pool_printf("tl_%s", func_name((Func)f)));
		const char *differ = w->d->approx_math && math_has_approx((Func)f) ? math_gpu_difference((Func)f) : NULL;
		buf_printf(out, "// %s(x): the operations of tilec's mathfn.c, the same in the PTX route%s%s\n"
		                "static __device__ __forceinline__ float tl_%s(float v0)\n{\n", func_name((Func)f),
		           differ ? "; the emulator's differ by at most " : " and the emulator", differ ? differ : "",
		           func_name((Func)f));
		CGen cg = {{cgen_op, cgen_kf, cgen_ki, w->d->approx_math}, {MK_F32}, 1};
		int r = math_build(&cg.g, (Func)f, 0);
		buf_printf(out, "\treturn v%d;\n}\n\n", r);
		cu_guard_end(w, out);
		w->out = saved;
	}
}

/* The include guard of a header: from the .tile file's name, so that every header has its own. */
static const char *
cu_header_guard(const char *source_name, const char *body)
{
	Buf b = {0};
	buf_puts(&b, "TILEC_");
	for (const char *c = source_name; *c; c++)
		buf_putc(&b, (*c >= 'a' && *c <= 'z') ? (char)(*c - 'a' + 'A')
		             : ((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')) ? *c : '_');
	/* headers of two files of one name (src/a/k.tile, src/b/k.tile) go into one translation unit: the
	   guard also names what the header defines, so only the same header twice is skipped */
	buf_printf(&b, "_%016llX_CUH", (unsigned long long)str_hash(body));
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* An emulation header (a dialect whose maps are the GPU build's only) has no tensor maps for the CPU to
   read: a tma parameter is an error there (at the first one). */
static bool
emu_header_maps_ok(const Program *p)
{
	for (int i = 0; i < p->devices.n; i++) {
		const KernelIR *k = LIST_AT(p->devices, KernelIR, i);
		for (int j = 0; j < k->dparams.n; j++) {
			const DevParam *dp = LIST_AT(k->dparams, DevParam, j);
			if (dp->kind != PK_VALUE || !dp->tensor || !dp->tensor->tma)
				continue;
			error(dp->tensor->loc, "tma parameter '%s' of device function '%s': a --target=emu header has no tensor "
			                       "maps to pass it; emulate the function through a .tile kernel that calls it "
			                       "(tilec run), or take the tensor without tma", dp->tensor->name, k->name);
			return false;
		}
	}
	return true;
}

bool
cu_write(Program *p, const TargetOptions *opt, const CuDialect *d, bool header, Buf *out)
{
	Buf body = {0};
	E = (CuWriter){0};
	E.d = d;
	E.opt = opt;
	E.out = &body;
	E.header = header;
	if (header && d->tma_maps_if && !emu_header_maps_ok(p))
		return false;
	for (int i = 0; (d->devices || header) && i < p->devices.n; i++) {
		KernelIR *k = LIST_AT(p->devices, KernelIR, i);
		if (!header) {
			device_fn(k);
			continue;
		}
		/* a function of a file that two .tile files include is in both headers: each copy under a guard
		   of its name and text, so that one translation unit defines it once */
		Buf fn = {0};
		E.out = &fn;
		device_fn(k);
		device_fn_typed(k);
		tensormap_functions(k);
		E.out = &body;
		unsigned long long h = (unsigned long long)str_hash(fn.data ? fn.data : "");
		buf_printf(&body, "#ifndef TILEC_FN_%s_%016llX\n#define TILEC_FN_%s_%016llX\n", k->name, h, k->name, h);
		buf_puts(&body, fn.data ? fn.data : "");
		buf_puts(&body, "#endif\n");
		buf_free(&fn);
	}
	for (int i = 0; !header && i < p->kernels.n; i++) {
		if (i)
			buf_puts(&body, "\n");
		kernel(LIST_AT(p->kernels, KernelIR, i));
	}
	const char *guard = header ? cu_header_guard(p->source_name, body.data ? body.data : "") : NULL;
	d->file(&E, p, opt->arch, guard, out);
	cu_helpers(&E, out);
	buf_puts(out, body.data ? body.data : "");
	if (guard)
		buf_printf(out, "#endif // %s\n", guard);
	buf_free(&body);
	return true;
}

/* runtime/tilec_tensormap.h as a C string (build/tilec_tensormap.inc): the encoding of a header's maps. */
static const char tensormap_source[] =
#include "tilec_tensormap.inc"
	;

/* Whether device function k has a tma parameter (LANGUAGE 11.4). */
static bool
has_tma_param(const KernelIR *k)
{
	for (int i = 0; i < k->dparams.n; i++) {
		const DevParam *dp = LIST_AT(k->dparams, DevParam, i);
		if (dp->kind == PK_VALUE && dp->tensor && dp->tensor->tma)
			return true;
	}
	return false;
}

/* The start of the cuda target's file: its comment, and the conversion helpers the body calls. */
static void
cuda_file(CuWriter *w, Program *p, const char *arch, const char *guard, Buf *out)
{
	if (guard)
		buf_printf(out, "// Generated by tilec %s from %s for %s: its device functions, for #include in CUDA C++. "
		                "Do not edit.\n#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n", TILEC_VERSION,
		           p->source_name, arch, guard, guard);
	else
		buf_printf(out, "// Generated by tilec %s from %s for %s. Do not edit.\n\n", TILEC_VERSION, p->source_name, arch);
	for (int i = 0; i < p->kernels.n && !guard; i++)
		if (LIST_AT(p->kernels, KernelIR, i)->tma_maps.n) {
			buf_puts(out, "#include <cuda.h> // CUtensorMap: the kernels' TMA tensor maps\n\n");
			break;
		}
	for (int i = 0; i < p->devices.n && guard; i++) /* a header's maps: the device functions' tma parameters */
		if (has_tma_param(LIST_AT(p->devices, KernelIR, i))) {
			buf_printf(out, "#include <cuda.h> // CUtensorMap, cuTensorMapEncodeTiled: the tma parameters' maps\n%s\n",
			           tensormap_source);
			break;
		}
	/* only the helpers the body calls: nvcc warns about a static function never referenced */
	static const struct {
		const char *name, *text;
	} conv[] = {
		{"tl_f2h", "static __device__ __forceinline__ unsigned short tl_f2h(float x)\n"
		           "{\n\tunsigned short h;\n\tasm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(x));\n\treturn h;\n}\n\n"},
		{"tl_h2f", "static __device__ __forceinline__ float tl_h2f(unsigned short h)\n"
		           "{\n\tfloat x;\n\tasm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(x) : \"h\"(h));\n\treturn x;\n}\n\n"},
		{"tl_f2bf", "static __device__ __forceinline__ unsigned short tl_f2bf(float x)\n"
		            "{\n\tunsigned short h;\n\tasm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(x));\n\treturn h;\n}\n\n"},
		{"tl_bf2f", "static __device__ __forceinline__ float tl_bf2f(unsigned short h)\n"
		            "{\n\treturn __uint_as_float((unsigned)h << 16);\n}\n\n"},
	};
	bool used[] = {w->f2h, w->h2f, w->f2bf, w->bf2f};
	for (int i = 0; i < 4; i++)
		if (used[i]) {
			cu_guard_begin(w, out, conv[i].name);
			buf_puts(out, conv[i].text);
			cu_guard_end(w, out);
		}
	cu_minifloat_helpers(w, out, "static __device__ __forceinline__ __attribute__((unused))");
}

static void
cuda_tc(CuWriter *w, const LStmt *s)
{
	(void)w;
	tc(s);
}

static const CuDialect cuda = {
	.shared_addr = "(unsigned)__cvta_generic_to_shared",
	.placed_fences = true,
	.vector = true,
	.clusters = true,
	.devices = true,
	.approx_math = true,
	.tma_maps = true,
	.tc = cuda_tc,
	.file = cuda_file,
};

bool
emit_cuda(Program *p, const TargetOptions *opt, Buf *out)
{
	return cu_write(p, opt, &cuda, false, out);
}

bool
emit_cuh(Program *p, const TargetOptions *opt, Buf *out)
{
	return cu_write(p, opt, &cuda, true, out);
}
