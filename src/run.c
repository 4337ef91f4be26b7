/* run.c: tilec run: compiles a kernel for the CPU emulator, runs it and checks its outputs (docs/emulator.md). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tilec.h"

#define TRAP_STATUS 70 /* TL_EMU_TRAP_STATUS of runtime/tilec_emu.h */
#define CACHE_MIB 256   /* the default bound of the cache of compiled programs */

typedef struct RunOptions {
	const char *input;
	const char *kernel;
	unsigned long long seed;
	List expects; /* char*: OUT=IN or OUT=IN~ULPS */
	List sets;    /* char*: NAME=VALUE */
	List tmems;   /* char*: NAME=PARAM */
	unsigned long time_limit; /* seconds the emulated program may run; 0: no limit */
	List include_dirs;
	const char *dump;
	bool save_temps;
	bool no_cache;     /* --no-cache: compile even when the cache holds the program */
	bool allow_uninit; /* a read of poison is a warning, and the run goes on */
	bool fast_math;       /* --fast-math */
	bool unchecked_waits; /* --unchecked-waits: a warp's own missing wait is a warning */
	bool seed_given;   /* --seed: tcgen05.st lands at a point it chooses (else at its wait) */
	const Arch *arch;  /* -arch: the target whose instructions the program may use (tcgen05.ld.red) */
} RunOptions;

static int
run_usage(const char *fmt, const char *arg)
{
	error(no_loc, fmt, arg);
	fputs("usage: tilec run FILE.tile [--kernel NAME] [--seed S] [--expect OUT=IN[~ULPS]]... [--set NAME=VALUE]... "
	      "[--tmem NAME=PARAM]... [--time-limit S] [-I DIR] [--dump DIR] [--save-temps] [--no-cache] [--allow-uninit] "
	      "[--unchecked-waits] [--fast-math] [-arch=ARCH] [-w] [-Werror] [-Wno-race]"
	      " [-Wno-overlap] [-Wno-unwritten]\n", stderr);
	return 2;
}

static void
run_help(void)
{
	printf("usage: tilec run FILE.tile [options]\n"
	      "  Runs a kernel on the CPU with tensor memory emulated (--target=emu code compiled by $CXX).\n"
	      "  --kernel NAME      the kernel to run (needed when the file has more than one)\n"
	      "  --seed S           seed of the generated tensor values (default 1); given, it also chooses\n"
	      "                     when each %s lands in TMEM (else at its %s)\n"
	      "  --expect OUT=IN    after the run, tensor OUT must equal tensor IN as it was before it\n"
	      "  --expect OUT=IN~U  the same within U units in the last place (floats) or U (integers)\n"
	      "  --set NAME=VALUE   a scalar parameter (default 0); refused outside its type's range\n"
	      "  --tmem NAME=PARAM  tmem tensor NAME starts with tensor PARAM's values, placed by NAME's layout\n"
	      "                     when its allocation is made (to test a load with no store before it)\n"
	      "  --time-limit S     stop the emulated program after S seconds (default: no limit)\n"
	      "  -I DIR             include search directory\n"
	      "  --dump DIR         write DIR/manifest, DIR/N.in and DIR/N.out for tools/emu-gpu-runner\n"
	      "  --save-temps       keep the generated C++ program and say where it is\n"
	      "  --no-cache         compile the program even when $XDG_CACHE_HOME/tilec holds it (also\n"
	      "                     TILEC_CACHE=0; TILEC_CACHE_SIZE=MIB bounds the cache, default %d)\n"
	      "  --allow-uninit     a read of a register or TMEM cell never written is a warning, not an error\n"
	      "  --fast-math        exp and exp2 as exp_approx and exp2_approx (the emulator's model of ex2.approx)\n"
	      "  --unchecked-waits  a missing %s or %s of a warp's own access is a warning,\n"
	      "                     and the emulator shows what the program does\n"
	      "  -arch=ARCH         the target the program is checked for (default %s): which\n"
	      "                     instructions it may use (%s needs %s)\n"
	      "  -Wno-race, -w      no warning for data races (two threads, one element, no barrier between)\n"
	      "  -Wno-overlap       no warning for a written tensor whose strides give two elements one place\n"
	      "  -Wno-unwritten     no warning for output elements a grid one block larger would write\n"
	      "  -Werror            warnings are errors (exit status 1)\n"
	      "exit status: 0 ok, 1 errors in the input, an --expect that failed, an emulator trap or a\n"
	      "read of a value never written,\n"
	      "2 bad usage, 3 no C++ compiler, 4 internal error\n",
	      isa_name(TC_ST, 0), isa_name(TC_WAIT_ST, 0), CACHE_MIB, isa_name(TC_WAIT_LD, 0), isa_instr(TC_WAIT_ST)->name,
	      arch_default()->name, isa_name(TC_LD_RED, 0), arch_list_ld_red());
}

static int
parse_run_args(int argc, char **argv, RunOptions *o, bool *help)
{
	*help = false;
	o->seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			*help = true;
			return 0;
		}
		if (strcmp(a, "--save-temps") == 0) {
			o->save_temps = true;
			continue;
		}
		if (strcmp(a, "--no-cache") == 0) {
			o->no_cache = true;
			continue;
		}
		if (strcmp(a, "--allow-uninit") == 0) {
			o->allow_uninit = true;
			continue;
		}
		if (strcmp(a, "--fast-math") == 0) {
			o->fast_math = true;
			continue;
		}
		if (strcmp(a, "--unchecked-waits") == 0) {
			o->unchecked_waits = true;
			continue;
		}
		if (strcmp(a, "-w") == 0 || (strncmp(a, "-W", 2) == 0 && a[2])) {
			const char *why = diag_option(a);
			if (why)
				return run_usage("%s", why);
			continue;
		}
		if (strncmp(a, "-I", 2) == 0 && a[2]) {
			list_push(&o->include_dirs, (void *)(a + 2));
			continue;
		}
		if (strncmp(a, "-arch=", 6) == 0) {
			o->arch = arch_find(a + 6);
			if (!o->arch)
				return run_usage("unsupported -arch=%s", a + 6);
			continue;
		}
		static const char *const with_value[] = {"--kernel", "--seed", "--expect", "--set", "-I", "--dump", "--tmem",
		                                         "--time-limit"};
		const char *opt = NULL;
		for (size_t k = 0; k < sizeof with_value / sizeof with_value[0] && !opt; k++) {
			size_t n = strlen(with_value[k]);
			if (strcmp(a, with_value[k]) == 0) {
				if (i + 1 >= argc)
					return run_usage("%s needs an argument", a);
				opt = with_value[k];
				v = argv[++i];
			} else if (n > 2 && strncmp(a, with_value[k], n) == 0 && a[n] == '=') {
				opt = with_value[k];
				v = a + n + 1;
			}
		}
		if (!opt) {
			if (a[0] == '-' && a[1])
				return run_usage("unknown option '%s'", a);
			if (o->input)
				return run_usage("more than one input file ('%s')", a);
			o->input = a;
		} else if (strcmp(opt, "--kernel") == 0) {
			o->kernel = v;
		} else if (strcmp(opt, "--seed") == 0) {
			char *end;
			errno = 0;
			o->seed = strtoull(v, &end, 0);
			o->seed_given = true;
			if (!*v || *end || errno || v[0] == '-')
				return run_usage("--seed takes an unsigned integer, not '%s'", v);
		} else if (strcmp(opt, "--time-limit") == 0) {
			char *end;
			errno = 0;
			o->time_limit = strtoul(v, &end, 10);
			if (!*v || *end || errno || v[0] == '-' || !o->time_limit || o->time_limit > 1000000)
				return run_usage("--time-limit takes seconds from 1 to 1000000, not '%s'", v);
		} else if (strcmp(opt, "--expect") == 0 || strcmp(opt, "--set") == 0 || strcmp(opt, "--tmem") == 0) {
			const char *eq = strchr(v, '=');
			if (!eq || eq == v || !eq[1])
				return run_usage(opt[2] == 'e' ? "--expect takes OUT=IN, not '%s'" : opt[2] == 's' ?
				                 "--set takes NAME=VALUE, not '%s'" : "--tmem takes NAME=PARAM, not '%s'", v);
			list_push(opt[2] == 'e' ? &o->expects : opt[2] == 's' ? &o->sets : &o->tmems, (void *)v);
		} else if (strcmp(opt, "-I") == 0) {
			list_push(&o->include_dirs, (void *)v);
		} else {
			o->dump = v;
		}
	}
	if (!o->input)
		return run_usage("%s", "no input file");
	return 0;
}


static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Host-side names: the TL_* type codes of tilec_emu.h and the C type of a scalar parameter. */
static const char *
type_code(EType t)
{
	switch (t) {
	case T_F32: return "TL_F32";
	case T_F16: return "TL_F16";
	case T_BF16: return "TL_BF16";
	case T_I32: return "TL_I32";
	case T_U32: return "TL_U32";
	case T_I16: return "TL_I16";
	case T_U16: return "TL_U16";
	case T_I8: return "TL_I8";
	default: return "TL_U8";
	}
}


/* A scalar parameter's C type (16-bit floats are passed as float) and size. */
static const char *
scalar_ctype(EType t, int *size)
{
	*size = etype_is_float(t) || etype_bits(t) == 32 ? 4 : etype_bits(t) / 8;
	return etype_is_float(t) ? "float" : etype_ctype(t);
}

static int
param_index(KernelIR *k, const char *name, bool tensor)
{
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		const char *n = t ? t->name : LIST_AT(k->params, Var, i)->name;
		if (strcmp(n, name) == 0 && (t != NULL) == tensor)
			return i;
	}
	return -1;
}

/* The kernel's names an option's NAME may take: its scalar parameters (kind 's'), tensor parameters
   ('t') or tmem tensors ('m'), each once. */
static List
option_names(KernelIR *k, char kind)
{
	List names = {0};
	int n = kind == 'm' ? k->tmem_tensors.n : k->params.n;
	for (int i = 0; i < n; i++) {
		const char *name;
		if (kind == 'm') {
			name = LIST_AT(k->tmem_tensors, Tensor, i)->name;
		} else {
			Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
			if ((t != NULL) != (kind == 't'))
				continue;
			name = t ? t->name : LIST_AT(k->params, Var, i)->name;
		}
		bool seen = false;
		for (int j = 0; j < names.n && !seen; j++)
			seen = strcmp(LIST_AT(names, char, j), name) == 0;
		if (!seen)
			list_push(&names, (void *)name);
	}
	return names;
}

/* After an option named what the kernel lacks: the nearest of its names of that kind, else all of them. */
static void
note_option_name(KernelIR *k, const char *name, char kind)
{
	List names = option_names(k, kind);
	const char *what = kind == 's' ? "scalar parameters" : kind == 't' ? "tensor parameters" : "tmem tensors";
	const char *best = closest_name(name, (const char *const *)names.v, names.n);
	if (best) {
		note(no_loc, "did you mean '%s'?", best);
	} else if (names.n) {
		Buf all = {0};
		for (int i = 0; i < names.n; i++)
			buf_printf(&all, "%s%s", i ? ", " : "", LIST_AT(names, char, i));
		note(no_loc, "the %s of kernel %s are %s", what, k->name, all.data);
		buf_free(&all);
	} else {
		note(no_loc, "kernel %s has no %s", k->name, what);
	}
}

/* The scalar values: the bits of each scalar parameter as its C type, from --set (default 0). */
static int
scalar_values(KernelIR *k, RunOptions *o, uint32_t *bits)
{
	for (int i = 0; i < o->sets.n; i++) {
		const char *s = LIST_AT(o->sets, char, i);
		const char *eq = strchr(s, '=');
		char *name = pool_strndup(s, (size_t)(eq - s));
		int p = param_index(k, name, false);
		if (p < 0) {
			int t = param_index(k, name, true);
			error(no_loc, "--set %s: kernel %s has no scalar parameter '%s'%s", s, k->name, name,
			        t >= 0 ? " (it is a tensor)" : "");
			if (t < 0)
				note_option_name(k, name, 's');
			return 2;
		}
		Var *v = LIST_AT(k->params, Var, p);
		char *end;
		errno = 0;
		int bits_n = etype_bits(v->type);
		bool in_range;
		const char *range;
		if (etype_is_float(v->type)) {
			/* a finite value that would round to infinity in the parameter's type (inf and nan themselves are
			   allowed: a kernel's handling of them is worth a run) */
			double d = strtod(eq + 1, &end);
			double limit = v->type == T_F16 ? 65520.0 : v->type == T_BF16 ? 3.3961775292304462e38 : 3.4028235677973366e38 + 0x1p103;
			in_range = isinf(d) ? errno == 0 : isnan(d) || fabs(d) < limit;
			range = v->type == T_F16 ? "|x| < 65520, inf or nan" : "a finite value that rounds to one, inf or nan";
			float f = (float)d;
			memcpy(&bits[p], &f, 4); /* an underflow gives 0 or a subnormal, as in C */
		} else {
			long long x = strtoll(eq + 1, &end, 0);
			long long lo = etype_is_signed(v->type) ? -(1ll << (bits_n - 1)) : 0;
			long long hi = etype_is_signed(v->type) ? (1ll << (bits_n - 1)) - 1 : (1ll << bits_n) - 1;
			in_range = errno != ERANGE && x >= lo && x <= hi;
			range = pool_printf("%lld to %lld", lo, hi);
			bits[p] = (uint32_t)x;
			if (bits_n < 32)
				bits[p] &= (1u << bits_n) - 1;
		}
		if (*end || end == eq + 1) {
			error(no_loc, "--set %s: '%s' is not a%s value", s, eq + 1,
			        etype_is_float(v->type) ? " floating-point" : "n integer");
			return 2;
		}
		if (!in_range) {
			error(no_loc, "--set %s: %s is out of range for '%s' of type %s (%s)", s, eq + 1, name,
			      etype_name(v->type), range);
			return 2;
		}
	}
	return 0;
}

/* A tensor parameter's shape for this run: its dims and strides evaluated with the scalar values. */
typedef struct Shape64 {
	long long dims[MAX_RANK], strides[MAX_RANK];
	unsigned long long count, storage; /* elements: the product of dims; the largest offset + 1 */
} Shape64;

typedef struct ParamValues {
	KernelIR *k;
	const uint32_t *bits;
} ParamValues;

static int64_t
param_value(const Var *v, void *ctx)
{
	ParamValues *pv = ctx;
	for (int i = 0; i < pv->k->params.n; i++)
		if (LIST_AT(pv->k->params, Var, i) == v && !LIST_AT(pv->k->param_is_tensor, Tensor, i))
			return v->type == T_U32 ? (int64_t)pv->bits[i] : (int64_t)(int32_t)pv->bits[i];
	return 0;
}

/* The run holds each tensor parameter twice (its values and the copy --expect compares with): 2^33
   bytes (16 GiB held) keeps tests/golden/runtime_shape's 4 GiB Big, whose offsets pass 2^32, while
   16 GiB of f32 (--set N=65536) was killed by the system and an overflowing size allocated too little. */
#define RUN_TENSOR_BYTES (1ull << 33)

/* Every tensor's shape and the grid, from the scalar values; a size that is not positive is an error. */
static int
runtime_shapes(KernelIR *k, const uint32_t *bits, Shape64 *shapes, unsigned grid[3])
{
	ParamValues pv = {k, bits};
	unsigned long long bytes = 0;
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (!t)
			continue;
		Shape64 *s = &shapes[i];
		s->count = 1;
		s->storage = 1;
		bool large = false;
		for (int d = t->rank - 1; d >= 0; d--) {
			int64_t v = 0;
			if (!ie_eval_params(t->rdims[d], param_value, &pv, &v) || v <= 0) {
				error(no_loc, "dimension %d of %s is %lld with these --set values; give its "
				              "parameters with --set NAME=VALUE", d, t->name, (long long)v);
				return 1;
			}
			s->dims[d] = v;
			s->strides[d] = d == t->rank - 1 ? 1 : s->strides[d + 1] * s->dims[d + 1];
			int64_t st;
			if (t->wide)
				s->strides[d] = ie_eval_params(t->rstrides[d], param_value, &pv, &st) ? st : -1;
			if (s->strides[d] < 0) {
				error(no_loc, "stride %d of %s is negative with these --set values", d, t->name);
				return 1;
			}
			unsigned long long stride = (unsigned long long)s->strides[d];
			if (s->count > RUN_TENSOR_BYTES / (unsigned long long)v
			    || (stride && (unsigned long long)(v - 1) > (RUN_TENSOR_BYTES - s->storage) / stride)) {
				large = true;
				break;
			}
			s->count *= (unsigned long long)v;
			s->storage += (unsigned long long)(v - 1) * stride;
		}
		/* the `align N` promise: tilec run places each tensor at a 16-byte boundary itself, so only the
		   strides the --set values give can break it, as libtilert refuses (tilert_kernel_launch) */
		for (int d = 0; !large && t->align && d + 1 < t->rank; d++) {
			long long size = etype_bits(t->type) / 8, bytes_apart = (long long)s->strides[d] * size;
			if (bytes_apart % t->align) {
				error(t->loc, "kernel %s: '%s' promises align %d, but stride %d is %lld elements (%lld bytes) with "
				              "these --set values, which is no multiple of %d", k->name, t->name, t->align, d,
				      (long long)s->strides[d], bytes_apart, t->align);
				return 1;
			}
		}
		bytes += s->storage * (unsigned long long)((etype_bits(t->type) + 7) / 8);
		if (large || bytes > RUN_TENSOR_BYTES) {
			error(no_loc, "tensor %s is too large with these --set values: tilec run takes at most 2^33 bytes "
			              "of tensor parameters together", t->name);
			return 1;
		}
	}
	for (int d = 0; d < 3; d++) {
		int64_t g = k->grid[d];
		if (k->grid_expr[d] && !ie_eval_params(k->grid_expr[d], param_value, &pv, &g)) {
			/* libtilert refuses the same launch ("division by zero or overflow") */
			error(no_loc, "grid dimension %c of kernel %s is undefined with these --set values (a division by zero, "
			              "INT_MIN / -1 or a shift of 32 or more)", "xyz"[d], k->name);
			return 1;
		}
		if (g <= 0 || g > 0x7fffffff) {
			error(no_loc, "grid dimension %c of kernel %s is %lld with these --set values; it "
			              "must be from 1 to 2^31 - 1", "xyz"[d], k->name, (long long)(int32_t)g);
			return 1;
		}
		if (g % k->cluster[d]) {
			error(no_loc, "grid dimension %c of kernel %s is %lld with these --set values; it must be a multiple "
			              "of the cluster's %d", "xyz"[d], k->name, (long long)g, k->cluster[d]);
			return 1;
		}
		grid[d] = (unsigned)g;
	}
	return 0;
}

/* Whether the statements store to global tensor t (a device function's parameter bound to it counts:
   the same name in the generated code). */
static bool
stores_to(const List *body, const Tensor *t)
{
	for (int i = 0; i < body->n; i++) {
		const LStmt *l = LIST_AT(*body, LStmt, i);
		if (l->kind == L_STORE && l->tensor->kind == TK_GLOBAL && strcmp(l->tensor->cname, t->cname) == 0)
			return true;
		if (stores_to(&l->body, t) || stores_to(&l->els, t))
			return true;
	}
	return false;
}

/* A tensor's element as text, from its coordinates. */
static const char *
coords_text(const Tensor *t, const long long *x)
{
	Buf b = {0};
	buf_printf(&b, "%s[", t->name);
	for (int d = 0; d < t->rank; d++)
		buf_printf(&b, "%s%lld", d ? ", " : "", x[d]);
	buf_puts(&b, "]");
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* -Woverlap: a tensor the kernel writes whose strides, with these --set values, give two elements one
   place. For each dimension d from the outermost, the element one step along d (offset strides[d]) is
   looked for among the others, taking the largest strides first; where they reach it exactly, the two
   are one element (a row stride ldd = 100 below a row of N = 300: D[1, 0] is D[0, 100]). */
static void
warn_overlaps(KernelIR *k, const Shape64 *shapes)
{
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (!t || !t->wide || !stores_to(&k->body, t))
			continue;
		const Shape64 *sh = &shapes[i];
		for (int d = 0; d < t->rank; d++) {
			if (sh->dims[d] < 2)
				continue;
			long long other[MAX_RANK] = {0}, rest = sh->strides[d];
			bool used[MAX_RANK] = {false}, inner = true;
			for (;;) {
				int j = -1;
				for (int c = 0; c < t->rank; c++)
					if (c != d && !used[c] && sh->dims[c] > 1 && sh->strides[c] > 0 &&
					    (j < 0 || sh->strides[c] > sh->strides[j]))
						j = c;
				if (j < 0)
					break;
				used[j] = true;
				other[j] = rest / sh->strides[j] < sh->dims[j] - 1 ? rest / sh->strides[j] : sh->dims[j] - 1;
				rest -= other[j] * sh->strides[j];
				inner &= j > d || !other[j];
			}
			if (rest)
				continue;
			long long step[MAX_RANK] = {0};
			step[d] = 1;
			Buf shape = {0};
			for (int c = 0; c < t->rank; c++)
				buf_printf(&shape, "%s%lld", c ? " x " : "", sh->dims[c]);
			buf_puts(&shape, ", strides ");
			for (int c = 0; c < t->rank; c++)
				buf_printf(&shape, "%s%lld", c ? ", " : "", sh->strides[c]);
			warn(WARN_OVERLAP, t->loc, "the kernel writes '%s', whose elements overlap with these --set values: %s and %s "
			     "are one element (dimensions %s)", t->name, coords_text(t, step), coords_text(t, other), shape.data);
			buf_free(&shape);
			if (inner && d + 1 < t->rank) {
				long long span = 1;
				for (int c = d + 1; c < t->rank; c++)
					span += sh->strides[c] * (sh->dims[c] - 1);
				/* the parameters the user set, where a stride and the one dimension after it are names */
				const Expr *ld = t->stride_src[d], *n = t->dim_src[d + 1];
				bool named = d + 2 == t->rank && sh->strides[d + 1] == 1 && n && n->kind == E_NAME;
				note(t->loc, "stride %d is %s%s%lld, but the dimensions after it span %lld elements%s", d,
				     ld && ld->kind == E_NAME ? ld->name : "", ld && ld->kind == E_NAME ? " = " : "", sh->strides[d],
				     span, named ? pool_printf(" (%s = %lld)", n->name, sh->dims[d + 1]) : "");
			}
			break;
		}
	}
}

/* --expect OUT=IN[~ULPS]: two tensor parameters of one type and shape; pairs[3 i .. 3 i + 2] = OUT, IN, ULPS. */
static int
expect_pairs(KernelIR *k, RunOptions *o, int *pairs, const Shape64 *shapes)
{
	for (int i = 0; i < o->expects.n; i++) {
		const char *s = LIST_AT(o->expects, char, i);
		const char *eq = strchr(s, '=');
		const char *tilde = strchr(eq, '~');
		const char *names[2] = {pool_strndup(s, (size_t)(eq - s)),
		                        tilde ? pool_strndup(eq + 1, (size_t)(tilde - eq - 1)) : eq + 1};
		pairs[3 * i + 2] = 0;
		if (tilde) {
			char *end;
			errno = 0;
			long ulps = strtol(tilde + 1, &end, 10);
			if (!tilde[1] || *end || errno || ulps < 0 || ulps > 1000000000) {
				error(no_loc, "--expect %s: the tolerance after '~' is a count of units in the last place, from 0 "
				              "to 1000000000", s);
				return 2;
			}
			pairs[3 * i + 2] = (int)ulps;
		}
		Tensor *t[2];
		for (int j = 0; j < 2; j++) {
			int p = param_index(k, names[j], true);
			if (p < 0) {
				error(no_loc, "--expect %s: kernel %s has no tensor parameter '%s'", s, k->name, names[j]);
				note_option_name(k, names[j], 't');
				return 2;
			}
			pairs[3 * i + j] = p;
			t[j] = LIST_AT(k->param_is_tensor, Tensor, p);
		}
		bool same = t[0]->type == t[1]->type && t[0]->rank == t[1]->rank;
		for (int d = 0; same && d < t[0]->rank; d++)
			same = shapes[pairs[3 * i]].dims[d] == shapes[pairs[3 * i + 1]].dims[d];
		if (!same) {
			error(no_loc, "--expect %s: %s and %s differ in element type or shape", s, names[0], names[1]);
			return 2;
		}
	}
	return 0;
}

/* --tmem NAME=PARAM: a tmem tensor of the kernel in a known allocation, and a tensor parameter of its
 * type and shape; fills[i] = the tensor, params[i] = PARAM's position. */
static int
tmem_fills(KernelIR *k, RunOptions *o, Tensor **fills, int *params, const Shape64 *shapes)
{
	for (int i = 0; i < o->tmems.n; i++) {
		const char *s = LIST_AT(o->tmems, char, i);
		const char *eq = strchr(s, '=');
		const char *name = pool_strndup(s, (size_t)(eq - s));
		Tensor *tm = NULL;
		int found = 0;
		for (int j = 0; j < k->tmem_tensors.n; j++) {
			Tensor *t = LIST_AT(k->tmem_tensors, Tensor, j);
			if (strcmp(t->name, name) == 0 && found++ == 0)
				tm = t;
		}
		if (!found) {
			error(no_loc, "--tmem %s: kernel %s declares no tmem tensor '%s'", s, k->name, name);
			note_option_name(k, name, 'm');
			return 2;
		}
		if (found > 1) {
			error(no_loc, "--tmem %s: kernel %s declares %d tmem tensors named '%s'; rename all but one", s, k->name,
			      found, name);
			return 2;
		}
		if (!tm->alloc) {
			error(no_loc, "--tmem %s: '%s' is not at a known place of an allocation of the kernel", s, name);
			return 2;
		}
		int p = param_index(k, eq + 1, true);
		if (p < 0) {
			error(no_loc, "--tmem %s: kernel %s has no tensor parameter '%s'", s, k->name, eq + 1);
			note_option_name(k, eq + 1, 't');
			return 2;
		}
		Tensor *src = LIST_AT(k->param_is_tensor, Tensor, p);
		bool same = tm->type == src->type && tm->rank == src->rank;
		for (int d = 0; same && d < tm->rank; d++)
			same = shapes[p].dims[d] == tm->dims[d];
		if (!same) {
			error(no_loc, "--tmem %s: %s and %s differ in element type or shape", s, name, eq + 1);
			return 2;
		}
		fills[i] = tm;
		params[i] = p;
	}
	return 0;
}

/* The --tmem tensors each write their values into their cells at the allocation: two that share a cell
 * (tensors with 'at' placed by hand, or one seeded twice) would leave the one written last there. A
 * tensor the kernel never accesses takes its values for nothing: a note. */
static int
tmem_fills_apart(KernelIR *k, RunOptions *o, Tensor **fills)
{
	enum { CELLS = TMEM_LANES * TMEM_COLS };
	int n = o->tmems.n, rc = 0;
	uint32_t *bits = n > 1 ? calloc(CELLS, sizeof *bits) : NULL;
	int *owner = n > 1 ? calloc(CELLS, sizeof *owner) : NULL;
	if (n > 1 && (!bits || !owner)) {
		error(no_loc, "out of memory");
		rc = 2;
	}
	for (int i = 0; i < n; i++)
		if (!fills[i]->used)
			note(fills[i]->loc, "--tmem %s: kernel %s never loads or stores '%s', so its values are not read",
			     LIST_AT(o->tmems, char, i), k->name, fills[i]->name);
	/* one allocation at a time: first the one of fills[first], with the cells of each of its tensors */
	for (int first = 0; first < n && !rc && n > 1; first++) {
		bool seen = false;
		for (int j = 0; j < first && !seen; j++)
			seen = fills[j]->alloc == fills[first]->alloc;
		if (seen)
			continue;
		memset(bits, 0, CELLS * sizeof *bits);
		for (int i = first; i < n && !rc; i++) {
			Tensor *t = fills[i];
			if (t->alloc != fills[first]->alloc)
				continue;
			int ebits = etype_bits(t->type), per = 32 / ebits;
			for (int e = 0; e < t->count * t->layout->nrep && !rc; e++) {
				const int32_t *place = LAYOUT_PLACE(t->layout, e / t->layout->nrep, e % t->layout->nrep);
				int lane = t->lane_offset + place[AX_TLANE], col = t->col_offset + place[AX_TCOL] / per;
				if (lane < 0 || lane >= TMEM_LANES || col < 0 || col >= TMEM_COLS)
					continue;
				uint32_t mask = (ebits == 32 ? 0xffffffffu : (1u << ebits) - 1) << (place[AX_TCOL] % per * ebits);
				int cell = lane * TMEM_COLS + col, j = owner[cell];
				if ((bits[cell] & mask) && j == i)
					continue; /* a replica of the layout (+ R) gets the same value */
				if ((bits[cell] & mask) && fills[j] == t) {
					error(no_loc, "--tmem %s and --tmem %s both fill '%s'; give one", LIST_AT(o->tmems, char, j),
					      LIST_AT(o->tmems, char, i), t->name);
					rc = 2;
				} else if (bits[cell] & mask) {
					error(no_loc, "--tmem %s and --tmem %s: '%s' and '%s' share TMEM lane %d, column %d of their "
					      "allocation, so the values of one would replace the other's", LIST_AT(o->tmems, char, j),
					      LIST_AT(o->tmems, char, i), fills[j]->name, t->name, lane, col);
					note(t->loc, "'%s' is declared here; tensors that hold data from outside the kernel at the same "
					     "time need columns of their own", t->name);
					rc = 2;
				}
				bits[cell] |= mask;
				owner[cell] = i;
			}
		}
	}
	free(bits);
	free(owner);
	return rc;
}

static void
c_string(Buf *b, const char *s)
{
	buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_putc(b, '\\');
		if ((unsigned char)*s < ' ' || *s == '?')
			buf_printf(b, "\\%03o", (unsigned char)*s);
		else
			buf_putc(b, *s);
	}
	buf_putc(b, '"');
}

/* --tmem: tl_run_fill, which the emulator calls when a warp has made an allocation (tl_emu_alloc_hook),
 * writes each filled tensor's elements into its cells when the allocation is the tensor's. The cells
 * (lane * 512 + column from the allocation's first column) and bit offsets come from the layout. */
static void
fill_function(Buf *b, Tensor **fills, int nfills)
{
	buf_printf(b, "\n// ---- tilec run --tmem: tensors filled when their allocation is made\n"
	              "static const TlHostTensor *tl_fill_src[%d];\n", nfills);
	for (int i = 0; i < nfills; i++) {
		Tensor *t = fills[i];
		int bits = etype_bits(t->type), per = 32 / bits, n = t->count * t->layout->nrep;
		/* entry e * nrep + r: replica r of element e (a layout's + R[...] places it more than once) */
		buf_printf(b, "static const unsigned tl_fill_cell_%d[%d] = {", i, n);
		for (int e = 0; e < n; e++) {
			const int32_t *place = LAYOUT_PLACE(t->layout, e / t->layout->nrep, e % t->layout->nrep);
			int lane = t->lane_offset + place[AX_TLANE], col = t->col_offset + place[AX_TCOL] / per;
			buf_printf(b, "%s%s%d", e ? "," : "", e % 16 ? " " : "\n\t", lane * TMEM_COLS + col);
		}
		buf_printf(b, "\n};\nstatic const unsigned char tl_fill_shift_%d[%d] = {", i, n);
		for (int e = 0; e < n; e++)
			buf_printf(b, "%s%s%d", e ? "," : "", e % 16 ? " " : "\n\t",
			           LAYOUT_PLACE(t->layout, e / t->layout->nrep, e % t->layout->nrep)[AX_TCOL] % per * bits);
		buf_puts(b, "\n};\n");
	}
	buf_puts(b, "static void\ntl_run_fill(unsigned *cells, int start, const char *where)\n{\n");
	for (int i = 0; i < nfills; i++) {
		Tensor *t = fills[i];
		int bytes = etype_bits(t->type) / 8;
		const char *at = pool_printf("%s: ", emu_where(t->alloc->loc));
		buf_printf(b, "\tif (strncmp(where, \"%s\", %zu) == 0) {\n"
		              "\t\tfor (int e = 0; e < %d; e++) {\n"
		              "\t\t\tunsigned v = 0, *c = &cells[tl_fill_cell_%d[e] + start];\n"
		              "\t\t\tmemcpy(&v, (const unsigned char *)tl_fill_src[%d]->init + tl_host_offset(tl_fill_src[%d], e / %d) * %d, %d);\n"
		              "\t\t\t*c = (*c & ~(0x%xu << tl_fill_shift_%d[e])) | v << tl_fill_shift_%d[e];\n"
		              "\t\t\ttl_poison_cells[tl_fill_cell_%d[e] + start] |= tl_fill_shift_%d[e] < 16 ? %d : 2;\n"
		              "\t\t}\n\t}\n", at, strlen(at), t->count * t->layout->nrep, i, i, i, t->layout->nrep, bytes, bytes,
		           bytes == 4 ? 0xffffffffu : (1u << 8 * bytes) - 1, i, i, i, i, bytes == 4 ? 3 : 1);
	}
	buf_puts(b, "}\n");
}

/* -Wunwritten: tl_run_probe, which the host main calls after the run with the path of a report. When a
   tensor the kernel writes has elements the run left as they were (bits equal to its values before),
   it runs, in a child process for each of x, y and z, only the blocks that a grid one block (one
   cluster) larger there adds, and reports the elements those change among the ones the run left: what
   a grid too small, or with its dimensions swapped, fails to write. A probe that traps (its blocks read
   out of bounds) or runs past TL_PROBE_SECONDS reports nothing. The probe is no part of the run: it
   stops the --time-limit alarm (each child has its own), and its children report no reads of memory not
   written (tl_poison_out stays open: the cells' shadow is still kept) and no races. */
#define PROBE_SECONDS 30
static void
probe_function(Buf *b, KernelIR *k, const unsigned grid[3])
{
	int ntensors = 0;
	Buf params = {0}, written = {0};
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (!t)
			continue;
		buf_printf(&params, "%s%d", ntensors ? ", " : "", i);
		buf_printf(&written, "%s%d", ntensors ? ", " : "", stores_to(&k->body, t));
		ntensors++;
	}
	buf_printf(b, "\n// ---- tilec run: the blocks a grid one block larger would add (-Wunwritten)\n"
	              "#include <fcntl.h>\n#include <signal.h>\n#include <sys/wait.h>\n"
	              "#ifdef __linux__\n#include <sys/prctl.h>\n#endif\n"
	              "enum { TL_PROBE_TENSORS = %d, TL_PROBE_SECONDS = %d };\n"
	              "static void\ntl_run_probe(const TlHostTensor *t, void **args, const char *path)\n{\n"
	              "\tstatic const int param[TL_PROBE_TENSORS] = {%s}, written[TL_PROBE_TENSORS] = {%s};\n"
	              "\tconst unsigned grid[3] = {%uu, %uu, %uu}, block[3] = {%du, %du, %du}, step[3] = {%du, %du, %du};\n"
	              "\talarm(0);\n",
	           ntensors ? ntensors : 1, PROBE_SECONDS, ntensors ? params.data : "-1", ntensors ? written.data : "0",
	           grid[0], grid[1], grid[2], k->block[0], k->block[1], k->block[2], k->cluster[0], k->cluster[1],
	           k->cluster[2]);
	buf_free(&params);
	buf_free(&written);
	buf_printf(b, "\tunsigned char *same[TL_PROBE_TENSORS] = {0};\n"
	              "\tsize_t left = 0;\n"
	              "\tfor (int i = 0; path && i < TL_PROBE_TENSORS; i++) {\n"
	              "\t\tif (!written[i] || !(same[i] = (unsigned char *)calloc(t[i].count + 1, 1)))\n\t\t\tcontinue;\n"
	              "\t\tsize_t size = (size_t)tl_host_sizes[t[i].type];\n"
	              "\t\tfor (size_t e = 0; e < t[i].count; e++) {\n"
	              "\t\t\tsize_t at = tl_host_offset(&t[i], e) * size;\n"
	              "\t\t\tsame[i][e] = memcmp((const char *)t[i].data + at, (const char *)t[i].init + at, size) == 0;\n"
	              "\t\t\tleft += same[i][e];\n\t\t}\n\t}\n"
	              "\tFILE *out = left ? fopen(path, \"w\") : NULL;\n"
	              "\tfor (int d = 0; out && d < 3; d++) {\n"
	              "\t\tif (grid[d] > 0x7fffffffu - step[d])\n\t\t\tcontinue;\n"
	              "\t\tfflush(out);\n\t\tfflush(stdout);\n"
	              "\t\tpid_t pid = fork();\n\t\tif (pid < 0)\n\t\t\tbreak;\n"
	              "\t\tif (pid == 0) {\n"
	              "#ifdef __linux__\n\t\t\tprctl(PR_SET_PDEATHSIG, SIGKILL);\n#endif\n"
	              "\t\t\tint null = open(\"/dev/null\", O_WRONLY);\n"
	              "\t\t\tif (null >= 0) {\n\t\t\t\tdup2(null, 1);\n\t\t\t\tdup2(null, 2);\n\t\t\t}\n"
	              "\t\t\ttl_race_out = NULL;\n\t\t\ttl_poison_nsites = 0;\n\t\t\ttl_poison_any = 0;\n\t\t\ttl_poison_allow = 1;\n"
	              "\t\t\talarm(TL_PROBE_SECONDS);\n"
	              "\t\t\tunsigned g[3] = {grid[0], grid[1], grid[2]}, first[3] = {0, 0, 0};\n"
	              "\t\t\tfirst[d] = grid[d];\n\t\t\tg[d] += step[d];\n"
	              "\t\t\ttl_cpu_launch_cluster_from(g, first, block, step, tl_emu_entry_%s, args);\n"
	              "\t\t\tfor (int i = 0; i < TL_PROBE_TENSORS; i++) {\n"
	              "\t\t\t\tsize_t size = (size_t)tl_host_sizes[t[i].type], n = 0, at0 = 0, unchanged = 0;\n"
	              "\t\t\t\tfor (size_t e = 0; same[i] && e < t[i].count; e++) {\n"
	              "\t\t\t\t\tsize_t at = tl_host_offset(&t[i], e);\n"
	              "\t\t\t\t\tif (!same[i][e])\n\t\t\t\t\t\tcontinue;\n"
	              "\t\t\t\t\tunchanged++;\n"
	              "\t\t\t\t\tif (memcmp((const char *)t[i].data + at * size, (const char *)t[i].init + at * size, size) != 0 && !n++)\n"
	              "\t\t\t\t\t\tat0 = at;\n\t\t\t\t}\n"
	              "\t\t\t\tif (n)\n\t\t\t\t\tfprintf(out, \"unwritten %%d %%u %%u %%u %%d %%zu %%zu %%zu\\n\", d, g[0], g[1], g[2], "
	              "param[i], n, at0, unchanged);\n"
	              "\t\t\t}\n\t\t\tfflush(out);\n\t\t\t_exit(0);\n\t\t}\n"
	              "\t\tint status;\n\t\twaitpid(pid, &status, 0);\n\t}\n"
	              "\tif (out)\n\t\tfclose(out);\n"
	              "\tfor (int i = 0; i < TL_PROBE_TENSORS; i++)\n\t\tfree(same[i]);\n}\n",
	           k->name);
}

/* The host main: fill, launch on the CPU, print, compare, dump. */
static void
host_main(Buf *b, KernelIR *k, RunOptions *o, const uint32_t *scalars, const int *pairs, const Shape64 *shapes,
          const int *fill_params, const EmuRace *race, const EmuPoison *poison)
{
	buf_printf(b, "\n// ---- tilec run: the host side\nint\nmain(int argc, char **argv)\n{\n"
	              "\tif (argc > 1 && strcmp(argv[1], \"-\") != 0 && !(tl_race_out = fopen(argv[1], \"w\"))) {\n"
	              "\t\tperror(argv[1]);\n\t\treturn 4;\n\t}\n"
	              "\tif (argc > 2) {\n\t\tFILE *poison = fopen(argv[2], \"w\");\n"
	              "\t\tif (!poison) {\n\t\t\tperror(argv[2]);\n\t\t\treturn 4;\n\t\t}\n"
	              "\t\ttl_poison_start(poison, %d, %du);\n\t}\n", o->allow_uninit ? 1 : 0, poison->sites.n);
	int ntensors = 0;
	for (int i = 0; i < k->params.n; i++)
		ntensors += LIST_AT(k->param_is_tensor, Tensor, i) != NULL;
	buf_printf(b, "\tstatic TlHostTensor t[%d] = {\n", ntensors ? ntensors : 1);
	int *slot = pool_alloc(sizeof(int) * (size_t)(k->params.n + 1));
	int n = 0;
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (!t)
			continue;
		slot[i] = n++;
		buf_printf(b, "\t\t{\"%s\", %s, %d, {", t->name, type_code(t->type), t->rank);
		for (int d = 0; d < t->rank; d++)
			buf_printf(b, "%s%lld", d ? ", " : "", shapes[i].dims[d]);
		buf_puts(b, "}, {");
		for (int d = 0; d < t->rank; d++)
			buf_printf(b, "%s%lld", d ? ", " : "", shapes[i].strides[d]);
		buf_printf(b, "}, %lluu, %lluu, 0, 0},\n", shapes[i].count, shapes[i].storage);
	}
	if (!ntensors)
		buf_puts(b, "\t\t{\"\", 0, 0, {0}, {0}, 0, 0, 0, 0},\n");
	buf_puts(b, "\t};\n");
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (t) {
			buf_printf(b, "\ttl_host_fill(&t[%d], %lluull, %d);\n", slot[i], o->seed, i);
			if (etype_is_minifloat(t->type))
				minifloat_run_fill(b, slot[i], t->type);
			buf_printf(b, "\t%s *p%d = (%s *)t[%d].data;\n", etype_ctype(t->type), i, etype_ctype(t->type), slot[i]);
		} else {
			int size;
			const char *ct = scalar_ctype(LIST_AT(k->params, Var, i)->type, &size);
			buf_printf(b, "\t%s p%d;\n\t{\n\t\tconst unsigned bits = 0x%08xu;\n\t\tmemcpy(&p%d, &bits, sizeof p%d);\n\t}\n",
			           ct, i, scalars[i], i, i);
		}
	}
	/* the race detection's shadow of each global tensor the kernel accesses */
	for (int j = 0; j < race->tensors.n; j++)
		for (int i = 0; i < k->params.n; i++) {
			Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
			if (t && strcmp(t->cname, LIST_AT(race->tensors, Tensor, j)->cname) == 0)
				buf_printf(b, "\ttl_race_tensor(%du, t[%d].storage);\n", j, slot[i]);
		}
	if (o->seed_given)
		buf_printf(b, "\ttl_st_seeded(%lluull);\n", o->seed);
	for (int i = 0; i < o->tmems.n; i++)
		buf_printf(b, "\ttl_fill_src[%d] = &t[%d];\n", i, slot[fill_params[i]]);
	if (o->tmems.n)
		buf_puts(b, "\ttl_emu_alloc_hook = tl_run_fill;\n");
	buf_puts(b, "\tvoid *args[] = {");
	for (int i = 0; i < k->params.n; i++)
		buf_printf(b, "%s&p%d", i ? ", " : "", i);
	buf_printf(b, "%s};\n", k->params.n ? "" : "0");
	buf_printf(b, "\ttl_emu_launch_%s(args);\n", k->name);
	buf_puts(b, "\tint bad = 0;\n");
	for (int i = 0; i < ntensors; i++)
		buf_printf(b, "\ttl_host_summary(&t[%d]);\n", i);
	for (int i = 0; i < o->expects.n; i++)
		buf_printf(b, "\tbad |= tl_host_expect(&t[%d], &t[%d], %d);\n", slot[pairs[3 * i]], slot[pairs[3 * i + 1]],
		           pairs[3 * i + 2]);
	if (o->dump) {
		for (int i = 0; i < k->params.n; i++) {
			if (!LIST_AT(k->param_is_tensor, Tensor, i))
				continue;
			buf_puts(b, "\ttl_host_dump(");
			c_string(b, o->dump);
			buf_printf(b, ", %d, \"in\", t[%d].init, t[%d].storage * tl_host_sizes[t[%d].type]);\n", i, slot[i], slot[i],
			           slot[i]);
			buf_puts(b, "\ttl_host_dump(");
			c_string(b, o->dump);
			buf_printf(b, ", %d, \"out\", t[%d].data, t[%d].storage * tl_host_sizes[t[%d].type]);\n", i, slot[i],
			           slot[i], slot[i]);
		}
	}
	buf_puts(b, "\ttl_run_probe(t, args, argc > 3 ? argv[3] : NULL);\n");
	buf_puts(b, "\tfflush(stdout);\n\treturn bad;\n}\n");
}

/* DIR/manifest: what tools/emu-gpu-runner needs to run the same launch from the dumped inputs. */
static int
write_manifest(KernelIR *k, RunOptions *o, const uint32_t *scalars, const Shape64 *shapes)
{
	if (mkdir(o->dump, 0777) != 0 && errno != EEXIST) {
		error(no_loc, "cannot create '%s': %s", o->dump, strerror(errno));
		return 1;
	}
	char *path = pool_printf("%s/manifest", o->dump);
	FILE *f = fopen(path, "w");
	if (!f) {
		error(no_loc, "cannot write '%s': %s", path, strerror(errno));
		return 1;
	}
	fprintf(f, "kernel %s\nseed %llu\n", k->name, o->seed);
	for (int i = 0; i < k->params.n; i++) {
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, i);
		if (t) {
			fprintf(f, "tensor %d %s %s %d %llu\n", i, t->name, etype_name(t->type), etype_bits(t->type) / 8,
			        shapes[i].storage);
		} else {
			int size;
			Var *v = LIST_AT(k->params, Var, i);
			scalar_ctype(v->type, &size);
			fprintf(f, "scalar %d %s %s %d 0x%08x\n", i, v->name, etype_name(v->type), size, scalars[i]);
		}
	}
	if (fclose(f) != 0) {
		error(no_loc, "cannot write '%s': %s", path, strerror(errno));
		return 1;
	}
	return 0;
}


/* The optimisation of the generated program: -O0 compiles epilogue_test.tile's 280 KB in a fifth of the
   time -O1 takes and runs its 6 blocks 1.3 times slower; past O1_BLOCKS blocks the run costs more
   than the compile saves (docs/emulator.md, "Turnaround"). Both give the same bits: -ffp-contract=off. */
#define O1_BLOCKS 64

static const char *
optimisation(const unsigned grid[3])
{
	unsigned long long blocks = (unsigned long long)grid[0] * grid[1] * grid[2];
	return blocks > O1_BLOCKS ? "-O1" : "-O0";
}

/* The words of $CXX (split at blanks), else of candidate c of c++, g++, clang++; 0 words past the last. */
static int
cxx_words(int c, char **argv, int max)
{
	const char *env = getenv("CXX");
	const char *cands[] = {"c++", "g++", "clang++"};
	if (env && *env ? c > 0 : c >= (int)(sizeof cands / sizeof cands[0]))
		return 0;
	int n = 0;
	char *words = pool_strdup(env && *env ? env : cands[c]);
	for (char *w = strtok(words, " \t"); w && n < max; w = strtok(NULL, " \t"))
		argv[n++] = w;
	return n;
}

/* The compiler's flags after its words; argv has room for them and the NULL. */
static void
cxx_flags(char **argv, int n, const char *opt, const char *src, const char *exe)
{
	const char *flags[] = {"-std=c++11", opt, "-pthread", "-ffp-contract=off", "-w", "-o", exe, src};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		argv[n++] = (char *)flags[i];
	argv[n] = NULL;
}

/* $CXX, else c++, g++, clang++: the first that runs. Returns its status, -1 if none ran. */
static int
compile_cpp(const char *src, const char *exe, const char *opt, const char **used)
{
	char *argv[64];
	int n;
	for (int c = 0; (n = cxx_words(c, argv, 40)) > 0; c++) {
		cxx_flags(argv, n, opt, src, exe);
		*used = argv[0];
		int rc = process_run(argv, false);
		if (rc >= 0)
			return rc;
	}
	return -1;
}

/* ---------------------------------------------------------------- the cache of compiled programs
   $XDG_CACHE_HOME/tilec (else ~/.cache/tilec) holds one executable per key, a hash of what makes the
   binary: the generated program (the emulator's header and the run's values included), the compiler's
   words and its --version, the flags. An entry is complete or absent: written beside, then linked or
   renamed in. A hit is linked into the run's directory first, so an eviction by another run cannot
   take it away mid-run. Past TILEC_CACHE_SIZE MiB (default CACHE_MIB) the entries used longest ago go. */

static bool
cache_enabled(const RunOptions *o)
{
	const char *env = getenv("TILEC_CACHE");
	return !o->no_cache && !(env && strcmp(env, "0") == 0);
}

/* The cache directory, made when missing; NULL when there is none to use. */
static const char *
cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir;
	if (xdg && xdg[0] == '/') /* a relative one is invalid (XDG Base Directory) */
		dir = pool_printf("%s/tilec", xdg);
	else if (home && home[0] == '/')
		dir = pool_printf("%s/.cache/tilec", home);
	else
		return NULL;
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		bool ok = mkdir(dir, 0700) == 0 || errno == EEXIST;
		*p = c;
		if (!ok)
			return NULL;
		if (!c)
			break;
	}
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0 ? dir : NULL;
}

static void
hash_bytes(uint64_t h[2], const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++) {
		h[0] = (h[0] ^ p[i]) * 1099511628211ull;      /* FNV-1a */
		h[1] = (h[1] ^ p[i]) * 0x9e3779b97f4a7c15ull; /* the same with another odd multiplier */
		h[1] ^= h[1] >> 29;
	}
}

/* The key: 32 hex digits. argv: the compiler's words and flags (the paths of src and exe left out). */
static char *
cache_key(const Buf *code, char *const *argv, const Buf *version, const char *src, const char *exe)
{
	uint64_t h[2] = {1469598103934665603ull, 0x243f6a8885a308d3ull};
	hash_bytes(h, "tilec run cache 1", 18);
	for (int i = 0; argv[i]; i++)
		if (argv[i] != src && argv[i] != exe)
			hash_bytes(h, argv[i], strlen(argv[i]) + 1);
	hash_bytes(h, version->data ? version->data : "", version->len);
	hash_bytes(h, "\0", 1);
	hash_bytes(h, code->data, code->len);
	return pool_printf("%016llx%016llx", (unsigned long long)h[0], (unsigned long long)h[1]);
}

/* Copies file from into a new file to (mode 0700, so the copy of an executable runs). */
static bool
copy_file(const char *from, const char *to_template, bool temp)
{
	FILE *in = fopen(from, "rb");
	if (!in)
		return false;
	char *to = (char *)to_template;
	int fd = temp ? process_mkstemp(to) : open(to, O_WRONLY | O_CREAT | O_EXCL, 0700);
	bool ok = fd >= 0;
	char chunk[65536];
	size_t n;
	while (ok && (n = fread(chunk, 1, sizeof chunk, in)) > 0)
		ok = write(fd, chunk, n) == (ssize_t)n;
	ok = ok && !ferror(in) && fchmod(fd, 0700) == 0;
	fclose(in);
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (!ok && fd >= 0)
		unlink(to);
	return ok;
}

/* Puts the entry at path into exe (a link, else a copy) and marks it used now; false on a miss. */
static bool
cache_fetch(const char *path, const char *exe)
{
	if (link(path, exe) != 0 && !(errno == EXDEV && copy_file(path, exe, false)))
		return false;
	utimensat(AT_FDCWD, path, NULL, 0);
	return true;
}

typedef struct CacheEntry {
	char *path;
	off_t size;
	struct timespec used;
} CacheEntry;

static int
older_first(const void *a, const void *b)
{
	const CacheEntry *x = a, *y = b;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* Removes the entries used longest ago while the total passes the limit, and the staging files
   (.tmp-*) of runs that died more than an hour ago. */
static void
cache_evict(const char *dir)
{
	unsigned long long limit = (unsigned long long)CACHE_MIB << 20;
	const char *env = getenv("TILEC_CACHE_SIZE");
	if (env && *env) {
		char *end;
		unsigned long long mib = strtoull(env, &end, 10);
		if (!*end)
			limit = mib << 20;
	}
	DIR *d = opendir(dir);
	if (!d)
		return;
	List entries = {0};
	unsigned long long total = 0;
	time_t now = time(NULL);
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		char *path = pool_printf("%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' && strncmp(e->d_name, ".tmp-", 5) != 0)
			continue;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (e->d_name[0] == '.') {
			if (now - st.st_mtime > 3600)
				unlink(path);
			continue;
		}
		if (strlen(e->d_name) != 32)
			continue; /* not ours */
		CacheEntry *c = pool_alloc(sizeof *c);
		c->path = path;
		c->size = st.st_size;
		c->used = st.st_mtim;
		list_push(&entries, c);
		total += (unsigned long long)st.st_size;
	}
	closedir(d);
	if (total <= limit)
		return;
	CacheEntry *sorted = pool_alloc(sizeof *sorted * (size_t)(entries.n + 1));
	for (int i = 0; i < entries.n; i++)
		sorted[i] = *LIST_AT(entries, CacheEntry, i);
	qsort(sorted, (size_t)entries.n, sizeof *sorted, older_first);
	for (int i = 0; i < entries.n && total > limit; i++)
		if (unlink(sorted[i].path) == 0)
			total -= (unsigned long long)sorted[i].size;
}

/* Puts the freshly built exe into the cache at path: a hard link when both are on one file system,
   else a copy staged beside and renamed; another run that stored the same key first wins. */
static void
cache_store(const char *dir, const char *path, const char *exe)
{
	if (link(exe, path) != 0 && errno == EXDEV) {
		char *stage = pool_printf("%s/.tmp-XXXXXX", dir);
		if (copy_file(exe, stage, true)) {
			if (rename(stage, path) != 0)
				unlink(stage);
		}
		process_forget(stage);
	}
	cache_evict(dir);
}

/* compile_cpp through the cache: the compiler is the first candidate whose --version runs, the program
   is compiled only when its key is not in the cache. Returns as compile_cpp. */
static int
compile_cached(const char *dir, const Buf *code, const char *src, const char *exe, const char *opt,
               const char **used)
{
	char *argv[64];
	int n;
	for (int c = 0; (n = cxx_words(c, argv, 40)) > 0; c++) {
		Buf version = {0};
		argv[n] = "--version";
		argv[n + 1] = NULL;
		*used = argv[0];
		int vrc = process_output(argv, &version);
		if (vrc < 0) {
			buf_free(&version);
			continue;
		}
		buf_printf(&version, "\nstatus %d", vrc);
		cxx_flags(argv, n, opt, src, exe);
		char *path = pool_printf("%s/%s", dir, cache_key(code, argv, &version, src, exe));
		buf_free(&version);
		if (cache_fetch(path, exe))
			return 0;
		int rc = process_run(argv, false);
		if (rc == 0)
			cache_store(dir, path, exe);
		return rc;
	}
	return -1;
}

static bool
write_text(const char *path, const Buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(b->data, 1, b->len, f) == b->len;
	return (fclose(f) == 0) && ok;
}

/* An element's coordinates from its offset: a global tensor's by its strides for this run, a shared one's
   row-major, or through its tile's layout (the offset is the element's place in the array). */
static const char *
element_text(KernelIR *k, const Tensor *t, unsigned long long offset, const Shape64 *shapes)
{
	const Shape64 *shape = NULL;
	for (int i = 0; i < k->params.n && t->kind == TK_GLOBAL; i++) {
		Tensor *p = LIST_AT(k->param_is_tensor, Tensor, i);
		if (p && strcmp(p->cname, t->cname) == 0)
			shape = &shapes[i];
	}
	if (t->tile)
		offset = (unsigned long long)smem_tensor_logical(t->tile, (int64_t)offset);
	Buf b = {0};
	buf_printf(&b, "%s[", t->name);
	unsigned long long rest = offset, size = 1;
	for (int d = t->rank - 1; d >= 0 && !shape; d--)
		size *= (unsigned long long)t->dims[d];
	for (int d = 0; d < t->rank; d++) {
		unsigned long long stride;
		if (shape) {
			stride = (unsigned long long)shape->strides[d];
		} else {
			size /= (unsigned long long)t->dims[d];
			stride = size;
		}
		buf_printf(&b, "%s%llu", d ? ", " : "", stride ? rest / stride : 0);
		rest = stride ? rest % stride : rest;
	}
	buf_puts(&b, "]");
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

/* The races that the emulated program found (tl_race_report of tilec_emu.h): one warning per pair of
   sites, with a note at the other access. */
static void
report_races(KernelIR *k, const EmuRace *race, const char *path, const Shape64 *shapes)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		unsigned site[2], write[2], block[2][3], tensor;
		unsigned long long full;
		int tid[2];
		unsigned long long offset;
		if (sscanf(line, "full %llu", &full) == 1) {
			note(no_loc, "the race detection compared accesses of different blocks for %llu elements of "
			             "global memory only (docs/emulator.md)", full);
			continue;
		}
		if (sscanf(line, "race %u %u %d %u %u %u %u %u %d %u %u %u %u %llu", &site[0], &write[0], &tid[0], &block[0][0],
		           &block[0][1], &block[0][2], &site[1], &write[1], &tid[1], &block[1][0], &block[1][1], &block[1][2],
		           &tensor, &offset) != 14 ||
		    site[0] >= (unsigned)race->sites.n || site[1] >= (unsigned)race->sites.n ||
		    tensor >= (unsigned)race->tensors.n)
			continue;
		const EmuSite *at[2] = {LIST_AT(race->sites, EmuSite, site[0]), LIST_AT(race->sites, EmuSite, site[1])};
		const char *elem = element_text(k, LIST_AT(race->tensors, Tensor, tensor), offset, shapes);
		bool same_block = memcmp(block[0], block[1], sizeof block[0]) == 0;
		const char *verb[2] = {write[0] ? "writes" : "reads", !write[1] ? "reads" : write[0] ? "also writes" : "writes"};
		if (same_block)
			warn(WARN_RACE, at[0]->loc, "data race on %s in block (%u, %u, %u): thread %d %s it, thread %d %s it, and "
			     "no cta_sync%s orders the two; the value %s depends on their order", elem, block[0][0], block[0][1],
			     block[0][2], tid[0], verb[0], tid[1], verb[1], tid[0] / 32 == tid[1] / 32 ? " or warp_sync" : "",
			     write[0] && write[1] ? "left" : "read");
		else
			warn(WARN_RACE, at[0]->loc, "data race on %s: thread %d of block (%u, %u, %u) %s it, thread %d of block (%u, "
			     "%u, %u) %s it, and no barrier orders two blocks; the value %s depends on their order", elem, tid[0],
			     block[0][0], block[0][1], block[0][2], verb[0], tid[1], block[1][0], block[1][1], block[1][2], verb[1],
			     write[0] && write[1] ? "left" : "read");
		note(at[1]->loc, "thread %d of block (%u, %u, %u) %s %s here", tid[1], block[1][0], block[1][1], block[1][2],
		     write[1] ? "writes" : "reads", elem);
	}
	fclose(f);
}

/* The reads of poison that the emulated program found (tl_poison_report of tilec_emu.h): an error each, or
   with --allow-uninit a warning; the lowest thread of the first block that made one, per statement. */
static void
report_uninit(const EmuPoison *poison, const char *path, bool allow)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof line, f)) {
		unsigned site, block[3], slot, ok;
		int tid;
		if (sscanf(line, "uninit %u %d %u %u %u %u %u", &site, &tid, &block[0], &block[1], &block[2], &slot, &ok) != 7 ||
		    site >= (unsigned)poison->sites.n)
			continue;
		const EmuPoisonSite *s = LIST_AT(poison->sites, EmuPoisonSite, site);
		const char *from = ok & 16 ? pool_printf(", which a %s loaded from TMEM (lane %u, column %u), a cell that "
		                                         "nothing wrote", isa_name(TC_LD, 0), ok >> 8 & 0xff, ok >> 16 & 0x3ff) : ", but nothing wrote it";
		const char *what = pool_printf("thread %d (warp %d, lane %d) of block (%u, %u, %u) %s register slot %u of '%s'%s%s",
		                               tid, tid / 32, tid % 32, block[0], block[1], block[2], s->verb, slot,
		                               s->tensor->name, strcmp(s->verb, "stores") == 0 ? pool_printf(" with %s", isa_name(TC_ST, 0)) : "",
		                               from);
		if (allow)
			warn(WARN_UNINIT, s->loc, "%s; the run goes on with the poison", what);
		else
			error(s->loc, "%s; it holds poison (--allow-uninit makes this a warning)", what);
	}
	fclose(f);
}

/* The elements the probe found (tl_run_probe): one warning per tensor and dimension. */
static void
report_unwritten(KernelIR *k, const char *path, const unsigned grid[3], const Shape64 *shapes)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof line, f)) {
		int d, p;
		unsigned g[3];
		unsigned long long n, offset, left;
		if (sscanf(line, "unwritten %d %u %u %u %d %llu %llu %llu", &d, &g[0], &g[1], &g[2], &p, &n, &offset, &left) != 8 ||
		    d < 0 || d > 2 || p < 0 || p >= k->params.n || !LIST_AT(k->param_is_tensor, Tensor, p))
			continue;
		Tensor *t = LIST_AT(k->param_is_tensor, Tensor, p);
		warn(WARN_UNWRITTEN, k->loc, "kernel %s's grid (%u, %u, %u) leaves %llu element%s of '%s' unwritten that a grid "
		     "of (%u, %u, %u) writes (%s first): is the grid too small in %c, or are its dimensions swapped?",
		     k->name, grid[0], grid[1], grid[2], n, n == 1 ? "" : "s", t->name, g[0], g[1], g[2],
		     element_text(k, t, offset, shapes), "xyz"[d]);
		if (left > n)
			note(k->loc, "%llu more element%s of '%s' are left as they were, which neither grid writes", left - n,
			     left - n == 1 ? "" : "s", t->name);
	}
	fclose(f);
}

static int
run_kernel(Program *prog, KernelIR *k, RunOptions *o)
{
	uint32_t *scalars = pool_alloc(sizeof(uint32_t) * (size_t)(k->params.n + 1));
	int *pairs = pool_alloc(sizeof(int) * (size_t)(3 * o->expects.n + 1));
	Shape64 *shapes = pool_alloc(sizeof(Shape64) * (size_t)(k->params.n + 1));
	Tensor **fills = pool_alloc(sizeof(Tensor *) * (size_t)(o->tmems.n + 1));
	int *fill_params = pool_alloc(sizeof(int) * (size_t)(o->tmems.n + 1));
	unsigned grid[3];
	int rc = scalar_values(k, o, scalars);
	if (!rc)
		rc = runtime_shapes(k, scalars, shapes, grid);
	if (!rc)
		warn_overlaps(k, shapes);
	if (!rc)
		rc = expect_pairs(k, o, pairs, shapes);
	if (!rc)
		rc = tmem_fills(k, o, fills, fill_params, shapes);
	if (!rc)
		rc = tmem_fills_apart(k, o, fills);
	if (!rc && o->dump)
		rc = write_manifest(k, o, scalars, shapes);
	if (rc)
		return rc;

	Buf b = {0};
	buf_puts(&b, "// tilec run: the --target=emu program with a host main, for the CPU.\n#define TILEC_EMU_HOST 1\n");
	EmuRace race = {0};
	EmuPoison poison = {0};
	TargetOptions topt = {.arch = arch_default()->name, .race = warn_enabled(WARN_RACE) ? &race : NULL,
	                      .poison = &poison};
	pipeline_emit(prog, target_named("emu"), &topt, &b); /* as tilec --target=emu writes it */
	if (o->tmems.n)
		fill_function(&b, fills, o->tmems.n);
	probe_function(&b, k, grid);
	host_main(&b, k, o, scalars, pairs, shapes, fill_params, &race, &poison);

	char *dir = process_temp_mkdir("tilec-run");
	if (!dir) {
		error(no_loc, "cannot create a temporary directory: %s", strerror(errno));
		buf_free(&b);
		return 3; /* the environment, not a bug of tilec */
	}
	char *src = pool_printf("%s/%s.cc", dir, k->name);
	char *exe = pool_printf("%s/%s", dir, k->name);
	char *races = pool_printf("%s/races", dir);
	char *uninit = pool_printf("%s/uninit", dir);
	char *unwritten = pool_printf("%s/unwritten", dir);
	char *reports[] = {races, uninit, unwritten}; /* the files the emulated program writes for tilec */
	process_temp_file(src);
	process_temp_file(exe);
	for (size_t i = 0; i < sizeof reports / sizeof *reports; i++)
		process_temp_file(reports[i]);
	if (!write_text(src, &b)) {
		error(no_loc, "cannot write %s: %s", src, strerror(errno));
		rc = 3;
	} else {
		const char *cxx = "c++";
		const char *cache = cache_enabled(o) ? cache_dir() : NULL;
		int st = cache ? compile_cached(cache, &b, src, exe, optimisation(grid), &cxx)
		               : compile_cpp(src, exe, optimisation(grid), &cxx);
		if (st < 0) {
			error(no_loc, "no C++ compiler found (tried %s); set CXX",
			        getenv("CXX") && *getenv("CXX") ? getenv("CXX") : "c++, g++ and clang++");
			rc = 3;
		} else if (st != 0) {
			error(no_loc, "%s failed (status %d) on the generated program%s", cxx, st,
			        o->save_temps ? "" : "; --save-temps keeps it");
			rc = 4;
		} else {
			printf("run %s: grid %ux%ux%u, block %dx%dx%d, seed %llu\n", k->name, grid[0], grid[1], grid[2],
			       k->block[0], k->block[1], k->block[2], o->seed);
			char *argv[] = {exe, race.sites.n ? races : "-", uninit, warn_enabled(WARN_UNWRITTEN) ? unwritten : NULL, NULL};
			st = process_run_limited(argv, false, (unsigned)o->time_limit);
			if (race.sites.n)
				report_races(k, &race, races, shapes);
			report_uninit(&poison, uninit, o->allow_uninit);
			if (st == 0 || st == 1) {
				report_unwritten(k, unwritten, grid, shapes);
				rc = st;
			} else if (st == TRAP_STATUS) {
				rc = 1; /* the emulator said why */
			} else if (o->time_limit && st == 1000 + SIGALRM) {
				error(no_loc, "kernel %s ran longer than --time-limit=%lu seconds; stopped", k->name, o->time_limit);
				rc = 1;
			} else if (st == 1000 + SIGKILL || st == 1000 + SIGTERM || st == 1000 + SIGINT || st == 1000 + SIGHUP) {
				/* sent from outside (tilec's own signals stop tilec too): no crash of the emulator */
				error(no_loc, "the emulated program was stopped by signal %d (%s) from outside tilec (kill, or the "
				              "system short of memory); it did not finish", st - 1000,
				      st == 1000 + SIGKILL ? "SIGKILL" : st == 1000 + SIGTERM ? "SIGTERM"
				      : st == 1000 + SIGINT ? "SIGINT" : "SIGHUP");
				rc = 1;
			} else if (st >= 1000) {
				error(no_loc, "the emulated program died of signal %d", st - 1000);
				rc = 4;
			} else {
				error(no_loc, "the emulated program failed (status %d)", st);
				rc = 4;
			}
		}
	}
	buf_free(&b);
	if (o->save_temps) {
		fprintf(stderr, "tilec run: the program is %s\n", src);
	} else {
		unlink(src);
		unlink(exe);
		rmdir(dir);
	}
	for (size_t i = 0; i < sizeof reports / sizeof *reports; i++)
		unlink(reports[i]);
	rmdir(dir);
	process_forget(src);
	process_forget(exe);
	for (size_t i = 0; i < sizeof reports / sizeof *reports; i++)
		process_forget(reports[i]);
	process_forget(dir);
	return rc || !error_count ? rc : 1; /* -Werror made a race an error */
}

int
run_main(int argc, char **argv)
{
	RunOptions o = {0};
	diag_command = "tilec run";
	bool help;
	int rc = parse_run_args(argc, argv, &o, &help);
	if (rc)
		return rc;
	if (help) {
		run_help();
		return 0;
	}
	List items = {0};
	if (o.tmems.n)
		scratch_hold(true); /* --tmem fills tensor memory through the layouts' places */
	bool ok = pipeline_read(o.input, &o.include_dirs, &items, NULL);
	if (!ok || error_count)
		return 1;
	Program *prog = pipeline_lower(&items, base_name(o.input), &(LowerOptions){.fast_math = o.fast_math, .unchecked_waits = o.unchecked_waits, .arch = o.arch});
	if (!prog || error_count || emu_refuses(prog))
		return 1;
	KernelIR *k = NULL;
	for (int i = 0; i < prog->kernels.n; i++) {
		KernelIR *c = LIST_AT(prog->kernels, KernelIR, i);
		if (o.kernel ? strcmp(c->name, o.kernel) == 0 : prog->kernels.n == 1)
			k = c;
	}
	if (!k) {
		Buf names = {0};
		for (int i = 0; i < prog->kernels.n; i++)
			buf_printf(&names, "%s%s", i ? ", " : "", LIST_AT(prog->kernels, KernelIR, i)->name);
		if (o.kernel)
			error(no_loc, "%s has no kernel '%s'; it has %s", o.input, o.kernel,
			        names.data ? names.data : "none");
		else if (prog->kernels.n == 0)
			error(no_loc, "%s has no kernel", o.input);
		else
			error(no_loc, "%s has %d kernels (%s); choose one with --kernel", o.input,
			        prog->kernels.n, names.data);
		buf_free(&names);
		return 2;
	}
	return run_kernel(prog, k, &o);
}
