/* tilec.h: the one internal header of tilec; types first, then prototypes grouped per source file. */
#ifndef TILEC_H
#define TILEC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TILEC_VERSION "0.1.0"

/* Static shared memory of one block on every supported architecture (227 KB; ptxas refuses more). */
#define MAX_SHARED_BYTES 232448

/* ---------------------------------------------------------------- basics */

/* A source range. Lines and columns are 1-based; columns count bytes. */
typedef struct Loc {
	int first_line, first_column;
	int last_line, last_column;
	int file; /* index into the source table of diag.c */
} Loc;

/* A growable array of pointers, allocated from the pool. */
typedef struct List {
	void **v;
	int n, cap;
} List;

#define LIST_AT(list, type, i) ((type *)(list).v[i])

/* Element types. */
typedef enum EType {
	T_NONE,
	T_F32, T_F16, T_BF16, T_I32, T_U32, T_I16, T_U16, T_I8, T_U8,
	T_I64, /* not an element type: the value type of 64-bit global element offsets */
	/* the 8-bit and narrower floats (minifloat.c): one byte each in registers, TMEM and memory */
	T_E4M3, T_E5M2, T_E2M3, T_E3M2, T_E2M1, T_UE8M0, T_UE4M3,
	T_MBARRIER, /* a 64-bit mbarrier: only in shared tensors, only through the mbarrier statements */
	T_COUNT
} EType;

/* Layout axes. AX_M is a register slot (local) or a memory offset (shared/global). */
typedef enum Axis {
	AX_TX, AX_TID_IN_WG, AX_LANEID, AX_WARPID, AX_WID_IN_WG, AX_WGID,
	AX_M, AX_TLANE, AX_TCOL,
	AX_COUNT
} Axis;

/* ---------------------------------------------------------------- AST */

typedef enum ExprKind {
	E_INT,     /* ival, usuffix */
	E_FLOAT,   /* fval */
	E_NAME,    /* name */
	E_INDEX,   /* name[args] */
	E_ADDR,    /* &name[args], args.n == 1 */
	E_UNARY,   /* op a */
	E_BINARY,  /* a op b */
	E_CONV,    /* type(a) */
	E_BUILTIN, /* builtin */
	E_TUPLE,   /* (a, b, ...): args; only where the grammar takes a tuple */
	E_CALL,    /* name(args): a function of LANGUAGE.md 10.2 */
	E_COND,    /* a ? b : c */
	E_VIEW     /* view: a view expression written where an expression goes (a call's argument) */
} ExprKind;

typedef enum Op {
	OP_NONE,
	/* unary */
	OP_NEG, OP_NOT, OP_BITNOT,
	/* binary */
	OP_MUL, OP_DIV, OP_MOD, OP_ADD, OP_SUB, OP_SHL, OP_SHR,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
	OP_BITAND, OP_BITXOR, OP_BITOR, OP_LAND, OP_LOR
} Op;

typedef enum Builtin {
	B_THREAD_X, B_THREAD_Y, B_THREAD_Z,
	B_BLOCK_X, B_BLOCK_Y, B_BLOCK_Z,
	B_WARP_ID, B_LANE_ID, B_WARPGROUP_ID
} Builtin;

/* The functions of LANGUAGE.md 10.2, predeclared names. */
typedef enum Func {
	F_MIN, F_MAX, F_ABS, F_FMA, F_EXP, F_EXP2, F_LOG, F_LOG2, F_SQRT, F_RSQRT, F_TANH, F_ERF, F_SIN, F_COS,
	/* the hardware's approximations (ex2.approx, rcp.approx, rsqrt.approx; .ftz), which --fast-math
	 * makes of exp and exp2 */
	F_EXP_APPROX, F_EXP2_APPROX, F_RCP_APPROX, F_RSQRT_APPROX,
	/* the warp collectives: every lane of the warp executes them together (func_collective) */
	F_SHFL_XOR, F_SHFL_IDX, F_SHFL_DOWN, F_SHFL_UP, F_ANY, F_ALL, F_BALLOT, F_WARP_SUM, F_WARP_MAX, F_WARP_MIN,
	F_LANES_SUM, F_LANES_MAX, F_LANES_MIN,
	F_COUNT
} Func;

typedef struct Expr Expr;
struct Expr {
	ExprKind kind;
	Loc loc;
	Op op;
	Expr *a, *b, *c;
	List args; /* Expr* */
	const char *name;
	uint32_t ival;
	bool usuffix;
	double fval;
	EType type;
	Builtin builtin;
	struct ViewExpr *view; /* E_VIEW */
};

/* One stride of a layout: value @ axis; axis is AX_M when none is written. */
typedef struct Stride {
	Expr *value;
	Axis axis;
	Loc loc;
} Stride;

typedef enum LayoutTermKind { LT_REPLICA, LT_OFFSET } LayoutTermKind;

typedef struct LayoutTerm {
	LayoutTermKind kind;
	Loc loc;
	List extents; /* Expr*, LT_REPLICA */
	List strides; /* Stride*, LT_REPLICA */
	Expr *offset; /* LT_OFFSET */
	Axis axis;    /* LT_OFFSET */
} LayoutTerm;

typedef enum LayoutKind { LAY_STRIDED, LAY_DATAPATH, LAY_DEFAULT, LAY_NAME, LAY_SMEM_TILE } LayoutKind;

typedef struct LayoutExpr {
	LayoutKind kind;
	Loc loc;
	List extents; /* Expr*, LAY_STRIDED */
	List strides; /* Stride*, LAY_STRIDED */
	List terms;   /* LayoutTerm*, LAY_STRIDED */
	const char *letter; /* LAY_DATAPATH: the string's contents */
	Loc letter_loc;
	Expr *rows, *cols, *sub_slab; /* LAY_DATAPATH; sub_slab may be NULL */
	const char *name; /* LAY_NAME */
	const char *major, *swizzle; /* LAY_SMEM_TILE: the strings' contents */
	Loc major_loc, swizzle_loc;
	bool used;        /* a layout item's: some tensor's layout_eval reached it */
} LayoutExpr;

typedef struct NamedArg {
	const char *name;
	Loc loc; /* of the name */
	Expr *value;
} NamedArg;

typedef struct SliceIndex {
	bool is_range;
	Expr *index;   /* !is_range */
	Expr *lo, *hi; /* is_range; each may be NULL */
	Loc loc;
} SliceIndex;

typedef enum ViewOpKind { VOP_VIEW, VOP_REARRANGE, VOP_SLICE } ViewOpKind;

typedef struct ViewOp {
	ViewOpKind kind;
	Loc loc;
	List dims;          /* Expr*, VOP_VIEW */
	LayoutExpr *layout; /* VOP_VIEW, NULL when absent */
	const char *pattern; /* VOP_REARRANGE: the string's contents */
	Loc pattern_loc;
	List bindings; /* NamedArg*, VOP_REARRANGE */
	List indices;  /* SliceIndex*, VOP_SLICE */
} ViewOp;

typedef struct ViewExpr {
	const char *base;
	Loc loc;      /* the whole view expression */
	Loc base_loc; /* the identifier */
	List ops;     /* ViewOp* */
} ViewExpr;

typedef enum ScopeKind { SCOPE_WARP, SCOPE_WARPGROUP, SCOPE_CTA } ScopeKind;

typedef enum StmtKind {
	S_LET, S_VAR, S_SHARED, S_LOCAL, S_TMEM, S_VIEW, S_ASSIGN,
	S_IF, S_FOR, S_APPLY, S_INSTR, S_CTA_SYNC, S_WARP_SYNC, S_BLOCK,
	S_COPY,    /* copy(dst, src) [scope S]: operands, scope fields (has_scope) */
	S_CALL,    /* name(args): a call of a device function; operands are Expr* */
	S_NAMED_BAR, /* bar_sync(id, nthreads) or bar_arrive (bar_arrive): value is the id, hi the count */
	S_MBAR,     /* mbarrier.OP(b, value), commit(b), cluster_sync: mbar_op; target is b, value the operand */
	S_REDUCE,    /* reduce OP(dst, src, dims): name is OP (name_loc), operands the two views, value the dims */
	S_MMA        /* mma(D, A, B, accumulate = p, ...): operands the three views, named the arguments */
} StmtKind;

/* The mbarrier statements (S_MBAR, L_MBAR); MB_FENCE_INIT is tilec's, the publishing fence of inits. */
typedef enum MbarOp {
	MB_INIT, MB_ARRIVE, MB_EXPECT_TX, MB_WAIT, MB_COMMIT, MB_CLUSTER_SYNC, MB_FENCE_INIT
} MbarOp;

typedef struct Stmt Stmt;
struct Stmt {
	StmtKind kind;
	Loc loc;
	const char *name; /* let var shared local tmem view for */
	Loc name_loc;
	EType type;       /* var shared local tmem */
	Expr *value;      /* let; var initialiser (or NULL); assign rhs; tmem 'at'; if condition; for start */
	Expr *hi;         /* for end (exclusive) */
	List dims;        /* Expr*: shared local tmem */
	LayoutExpr *layout; /* local tmem */
	ViewExpr *view;   /* view */
	Expr *target;     /* assign: E_NAME or E_INDEX */
	Op assign_op;     /* assign: the op of a compound assignment (+= ...), else OP_NONE */
	List body;        /* Stmt*: if-then, for, block */
	List else_body;   /* Stmt*: if; an else-if is one S_IF here */
	bool has_else;
	const char *opcode; /* apply, instr; NULL for an instr tilec wrote (instr) */
	Loc opcode_loc;
	const struct IsaInstr *instr; /* instr written by tilec (tmemplan.c), not parsed: its row and cta_group */
	int cta_group;
	List operands;    /* apply: ViewExpr*; instr: Expr* */
	ScopeKind scope;  /* apply */
	Expr *scope_arg;  /* apply: K of warp(K) / warpgroup(K), or NULL */
	Loc scope_loc;
	List named;       /* apply: NamedArg* after the scope */
	bool has_scope;   /* copy: a scope is written */
	bool no_scope;    /* apply: written without a scope (tcgen05.cp, which one elected thread issues) */
	bool scope_auto;  /* copy: tilec chose the scope (copy.c), none was written */
	bool fence_before, fence_after; /* cta_sync: set by lowering */
	bool writes_follow; /* cta_sync: a tcgen05 store or dealloc may follow it (lowering) */
	bool stale_warned;  /* apply, copy: -Wstale-replica given (a loop lowers it again) */
	bool bar_arrive;    /* named barrier: bar_arrive (arrives, does not wait) rather than bar_sync */
	MbarOp mbar_op;     /* S_MBAR */
	/* copy(registers, tmem) reduce min|max(m): the function's name as written, its place, and m */
	const char *reduce_op;
	Loc reduce_loc;
	ViewExpr *reduce_into;
	/* copy(shared, global) mbarrier b [multicast MASK]: a TMA load (LANGUAGE 11.4); NULL: none */
	Expr *tma_bar;
	Expr *multicast;
};

/* What a parameter is: of a kernel, PK_VALUE only (a scalar, or a global tensor when it has a shape). */
typedef enum ParamKind { PK_VALUE, PK_SHARED, PK_TMEM, PK_LOCAL } ParamKind;

typedef struct Param {
	const char *name;
	Loc loc;
	EType type;
	bool has_shape;
	List dims;    /* Expr* */
	List strides; /* Expr*: empty without `stride (...)` */
	Expr *align;  /* E_INT: the `align N` promise (LANGUAGE 11.10); NULL without it */
	ParamKind kind;     /* device functions: shared, tmem and local parameters */
	LayoutExpr *layout; /* PK_TMEM, PK_LOCAL */
	bool tma;           /* a global tensor marked `tma`: also passed as tensor maps (LANGUAGE 11.4) */
} Param;

struct KernelIR;

typedef struct Kernel {
	const char *name;
	Loc loc;
	Loc name_loc;
	List params; /* Param* */
	List launch; /* NamedArg*: name is "grid" or "block"; value may be an E_TUPLE */
	List body;   /* Stmt* */
	/* a device function (LANGUAGE.md 10.3): launch is empty */
	bool is_device;
	ScopeKind scope;
	Loc scope_loc;
	Expr *block;             /* block = N, or NULL */
	struct KernelIR *ir;     /* its lowering, once done without errors */
	bool lowering, failed;   /* being lowered (a call now is recursion); lowered with errors */
	struct TmemAccess *tmem_access; /* a device function: what it does with each tmem parameter (tmemplan.c) */
} Kernel;

typedef enum ItemKind { I_INCLUDE, I_CONST, I_LAYOUT, I_KERNEL, I_DEVICE } ItemKind;

typedef struct Item {
	ItemKind kind;
	Loc loc;
	const char *name; /* const layout */
	Loc name_loc;
	Expr *value;      /* const */
	LayoutExpr *layout; /* layout */
	Kernel *kernel;   /* kernel, device */
	const char *path; /* include: the string's contents; NULL when the string had an error */
} Item;

/* ---------------------------------------------------------------- instruction images (isa.c) */

/* Tensor memory of one CTA: lanes (rows, one per thread of a warpgroup) by 32-bit columns (TCGEN05.md 1). */
enum { TMEM_LANES = 128, TMEM_COLS = 512 };

/* The one table of tcgen05.ld / tcgen05.st images (TCGEN05.md sections 2 and 3). */
typedef enum Shape { SH_32X32B, SH_16X64B, SH_16X128B, SH_16X256B, SH_16X32BX2, SH_COUNT } Shape;

/* tcgen05.ld.red's reduction (TCGEN05.md section 13): none for a plain ld or st. */
typedef enum RedOp { RED_NONE, RED_MIN, RED_MAX } RedOp;
/* Its type, in the order of the row's type slot: .f32, .u32, .s32. */
typedef enum RedType { RED_F32, RED_U32, RED_S32 } RedType;

typedef struct Opcode {
	bool is_ld;  /* tcgen05.ld, else tcgen05.st */
	Shape shape;
	int n;       /* the .xN repetition */
	bool pack;   /* .pack::16b on ld, .unpack::16b on st */
	RedOp red;   /* tcgen05.ld.red: min or max of each thread's loaded values */
	bool red_abs, red_nan; /* .abs, .NaN (only with .f32) */
	RedType red_type;
} Opcode;

/* Where register r of lane l lands, relative to the instruction's address. */
typedef struct ImageCell {
	int row;    /* TMEM lane offset, 0..31 (32x32b) or 0..15 */
	int col;    /* 32-bit column offset (before packing doubles it) */
	int access; /* 16x32bx2: 0 at taddr, 1 at taddr + imm; otherwise 0 */
} ImageCell;

typedef struct Var Var;

/* ---------------------------------------------------------------- util.c */

void *pool_alloc(size_t size); /* zeroed; freed all at once by pool_free_all */
char *pool_strdup(const char *s);
char *pool_strndup(const char *s, size_t n);
char *pool_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pool_free_all(void);
/* Scratch memory for one kernel's checks, freed by scratch_free_all at the end of each kernel (and by pool_free_all). */
void *scratch_alloc(size_t size);
/* Gives back p, size bytes of scratch_alloc, when nothing was allocated after it; else keeps it. */
void scratch_release(void *p, size_t size);
void scratch_free_all(void);
void scratch_hold(bool hold); /* while held, scratch_free_all keeps everything (--draw, tilec run --tmem) */
/* An index (size bytes of bucket pointers) into scratch memory, emptied when scratch memory was given
   back since *epoch. */
void scratch_index_fresh(void *buckets, size_t size, unsigned *epoch);
void list_push(List *list, void *item);
bool list_has(const List *list, const void *item);

/* A hash map from strings to pointers, in the pool: lookups take the same time however many keys. */
typedef struct MapSlot {
	const char *key;
	void *value;
} MapSlot;
typedef struct Map {
	MapSlot *slots;
	size_t cap, used;
} Map;
/* The slot of key; with add, a new one (value NULL) when key is absent, else NULL. */
MapSlot *map_slot(Map *m, const char *key, bool add);
uint64_t str_hash(const char *s); /* FNV-1a of the bytes: the same on every machine */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn)); /* internal error: exit 4 */
void out_of_memory(void) __attribute__((noreturn)); /* "out of memory", exit 1 */

/* A growable byte buffer (malloc'd; free with buf_free). */
typedef struct Buf {
	char *data;
	size_t len, cap;
} Buf;
void buf_putc(Buf *b, char c);
void buf_puts(Buf *b, const char *s);
void buf_putn(Buf *b, const char *s, size_t n);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_free(Buf *b);

/* For "did you mean": the edit distance (insert, delete, replace, swap two neighbours; case is
 * ignored) or limit + 1 when it is larger; the candidate nearest to name (a prefix of it counts as one
 * edit), NULL when none is within a third of the name's length. */
int edit_distance(const char *a, const char *b, int limit);
const char *closest_name(const char *name, const char *const *cands, int n);

const char *etype_name(EType t);
int etype_bits(EType t);
bool etype_is_float(EType t);
bool etype_is_signed(EType t);
const char *axis_name(Axis a);
const char *mbar_op_name(MbarOp op);
const char *mbar_stmt_name(MbarOp op); /* as written, for messages: "mbarrier.init", "commit", "cluster_sync" */
bool axis_from_name(const char *name, Axis *out);
const char *etype_ctype(EType t); /* the C type that stores one element */
const char *op_text(Op op);           /* "+", "<<", "!": as .tile and C write it; "?" for OP_NONE */
const char *builtin_name(Builtin b);  /* "thread_idx.x", "warp_id": as .tile writes it */

/* ---------------------------------------------------------------- diag.c */

/* Source files: each is read once and kept, NUL-terminated, for the caret lines. */
int source_add(const char *path, char *text, size_t len); /* takes ownership of the malloc'd text */
const char *source_path(int file);
const char *source_text(int file, size_t *len);
int source_count(void);

extern int error_count;
extern int warning_count;
extern bool diag_werror;   /* -Werror */
extern bool diag_nowarn;   /* -w */
extern int diag_max_errors; /* the run exits after this many errors; 0: never (the fuzzer) */
extern const char *diag_command; /* "tilec" or "tilec run": starts messages without a location (no_loc) */
extern FILE *diag_stream;   /* where diagnostics go; NULL: stderr */
void diag_reset(void);      /* forgets every source and count, for a process that compiles many inputs */
void diag_setup(void);     /* colour only when stderr is a terminal and NO_COLOR is unset */
void error(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every warning has a name (docs/command.md lists them); warn() prints it as [-WNAME]. */
typedef enum Warn { WARN_DIVERGENT_SYNC, WARN_MISSING_RELINQUISH, WARN_EMPTY_OUTPUT, WARN_PTXAS_SPILL, WARN_RACE,
                    WARN_STALE_REPLICA, WARN_UNINIT, WARN_UNCHECKED_WAIT,
                    WARN_OVERLAP, WARN_UNWRITTEN, WARN_COUNT } Warn;
/* While not WARN_COUNT, error() reports a warning of this kind instead (protocol.c, --unchecked-waits). */
extern Warn diag_demoted;
void warn(Warn w, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *diag_option(const char *arg); /* a -w / -W option: NULL when taken, else the error message */
bool warn_enabled(Warn w); /* not turned off by -w or -Wno-NAME */
void note(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
extern bool diag_explain;  /* --explain */
/* A note on a choice tilec made, printed only with --explain. */
void explain_note(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
Loc loc_span(Loc a, Loc b); /* from the start of a to the end of b */
const char *cuda_habit(const char *name); /* the hint for a CUDA spelling, or NULL */
extern const Loc no_loc;

/* ---------------------------------------------------------------- lexer (grammar/lexer.re) */

/* The lexer state for one source file; the parser owns one. */
typedef struct Lexer {
	int file;
	const char *start, *cursor, *limit, *marker, *ctxmarker;
	const char *line_start;
	int line;
} Lexer;

void lexer_init(Lexer *lx, int file);
/* Prints one line per token (line:col KIND 'text') to out; returns false when the input had lexical errors. */
bool lexer_dump_tokens(int file, FILE *out);

/* ---------------------------------------------------------------- parser (grammar/parser.y) */

/* Parses one file and appends its items to items (includes stay I_INCLUDE items). */
bool parse_file(int file, List *items);
/* The keywords and builtin names of the grammar, for "did you mean"; returns how many (at most max). */
int parser_words(const char **out, int max);

/* ---------------------------------------------------------------- ast.c */

void ast_dump(FILE *out, List *items);
struct IsaInstr;
/* The instruction of an instr statement and its cta_group (may be NULL): the row tilec wrote, or its
   opcode parsed (isa_parse); NULL for an unknown one. */
const struct IsaInstr *stmt_instr(const Stmt *s, int *cta_group);


/* ---------------------------------------------------------------- semantic model */

typedef enum TensorKind { TK_GLOBAL, TK_SHARED, TK_LOCAL, TK_TMEM } TensorKind;

#define MAX_RANK 16

/* A layout evaluated for one tensor: every element's places on the axes. */
typedef struct Layout {
	int count;        /* logical elements */
	int nrep;         /* places per element (replicas) */
	int32_t *place;   /* count * nrep * AX_COUNT */
	unsigned axes;    /* bit per axis that some place names */
	int slots;        /* local: slots a thread holds (max m + 1) */
} Layout;

#define LAYOUT_PLACE(l, e, r) (&(l)->place[((size_t)(e) * (l)->nrep + (r)) * AX_COUNT])

typedef struct IExpr IExpr;

/* One allocation (TC_ALLOC): which shared slot receives the address, and how many columns. */
typedef struct AllocInfo {
	struct Tensor *slot;
	int slot_index;
	int ncols;
	Loc loc;
	uint64_t warps; /* the warp that executes it */
	Loc freed_at; /* the dealloc that frees it (on some path), once lowering has seen it */
} AllocInfo;

typedef struct Tensor {
	TensorKind kind;
	const char *name;
	const char *cname; /* name in the generated code */
	Loc loc;
	EType type;
	int rank;
	int dims[MAX_RANK];
	int count;
	Layout *layout;    /* local, tmem */
	int words;         /* local: 32-bit registers per thread */
	IExpr *addr;       /* tmem: its base address */
	AllocInfo *alloc;  /* tmem: the allocation it lies in, when known */
	int col_offset;    /* tmem: its base column relative to that allocation */
	int lane_offset;   /* tmem: its base lane (bits 31..16 of a constant offset) */
	bool used;         /* tmem: an apply, a copy or a call names it (tilec run --tmem notes one that none does) */
	struct Tensor *param_root; /* tmem of unknown allocation: the tensor of the address passed that it lies in */
	int index;         /* parameter position for TK_GLOBAL */
	/* TK_GLOBAL: wide when a dimension or stride is known only at run time, a stride is written, or the
	   element count reaches 2^31; then dims[i] is 0 where rdims[i] is not constant, count is 0, and
	   element offsets are i64 expressions */
	bool wide;
	IExpr *rdims[MAX_RANK];    /* i32 / u32 over constants and scalar parameters */
	IExpr *rstrides[MAX_RANK]; /* i64, in elements */
	Expr *dim_src[MAX_RANK];   /* as written, for messages */
	Expr *stride_src[MAX_RANK]; /* as written (NULL without stride (...)), for messages */
	struct View *identity; /* the view of the whole tensor, built once */
	/* TK_GLOBAL, a device function's parameter bound at a call to a slice of the caller's tensor cname:
	   the slice's first element, added to every element offset (i64); NULL: 0 */
	IExpr *base_off;
	/* TK_GLOBAL: the bytes the pointer is known to be aligned to when a call passes a slice (0: 16, as a
	   kernel's), and the tensors it points into (a function's parameter passed on): tensor_align */
	int base_align;
	List align_from;
	/* TK_GLOBAL: the `align N` promise in bytes (LANGUAGE 11.10: base and every start of the innermost
	   dimension multiples of N); 0 without one */
	int align;
	/* TK_SHARED of mbarriers: per element, what lowering has seen so far (lower.c's MBS_* bits) */
	unsigned char *mbar_state;
	int *mbar_count;      /* per element: the arrivals its init expects per phase; 0 where not a constant */
	int64_t *mbar_arrivals; /* per element: the counted arrivals outside run-time loops (lower.c) */
	unsigned char *mbar_uncounted; /* per element: an arrival tilec could not count, or one in a run-time loop */
	short *mbar_waits;    /* per element and warp (64 each): the waits it made since the init; -1 not known */
	Loc mbar_init_loc;    /* the latest mbarrier.init of an element */
	Loc mbar_use_loc;     /* the first other use of an element */
	/* TK_SHARED declared with layout smem_tile(major, swizzle): its place (smem.c); NULL: row-major */
	struct SmemTile *tile;
	bool tma; /* TK_GLOBAL: the parameter is marked tma (LANGUAGE 11.4) */
} Tensor;

/* The part of a global tensor that a copy's slice selects when its bounds or the tensor's shape are
   known only at run time (LANGUAGE 10.4): per dimension of the tensor, the first coordinate and a
   compile-time extent (1 where an index removed the dimension). A view over it counts its elements
   row-major over the extents; coordinates outside the tensor's shape are skipped. */
typedef struct Box {
	int ext[MAX_RANK];
	IExpr *start[MAX_RANK];  /* i32 or u32; NULL: 0 */
	unsigned check_lo;       /* dimensions whose coordinate may be negative */
	unsigned check_hi;       /* dimensions whose coordinate may reach the tensor's size */
} Box;

/* A view: a shape over a tensor's elements (or, per_thread, over one thread's slots). */
typedef struct View {
	Tensor *base;
	const Box *box;    /* a global tensor's run-time box: map counts inside it; NULL: map counts in base */
	const char *name;
	int rank;
	int dims[MAX_RANK];
	int count;
	int32_t *map;      /* view flat index -> base flat index (per_thread: slot) */
	bool per_thread;
	uint64_t hash;     /* of the map, once apply.c has needed it; 0 before */
} View;


/* ---------------------------------------------------------------- sema.c */

/* Evaluates a compile-time integer in the current scope; reports an error and returns false otherwise. */
bool const_int(Expr *e, int64_t *out, const char *what);
/* Evaluates the dims of a tensor declaration into t (rank, dims, count); false after an error. */
bool const_dims(List *dims, Tensor *t, Loc loc);
/* The layout bound to a `layout NAME = ...` item, or NULL after an error. */
LayoutExpr *layout_lookup(const char *name, Loc loc);

/* SYM_POISON: a declaration that failed; its uses stay quiet instead of cascading. */
typedef enum SymKind { SYM_CONST, SYM_LAYOUT, SYM_VALUE, SYM_VAR, SYM_TENSOR, SYM_VIEW, SYM_KERNEL, SYM_DEVICE, SYM_POISON } SymKind;

typedef struct Sym {
	SymKind kind;
	const char *name;
	Loc loc;
	int depth;
	IExpr *value;       /* SYM_CONST, SYM_VALUE (an IE_INT when constant) */
	Var *var;           /* SYM_VAR */
	Tensor *tensor;     /* SYM_TENSOR */
	View *view;         /* SYM_VIEW */
	LayoutExpr *layout; /* SYM_LAYOUT */
	Kernel *device;     /* SYM_DEVICE */
	struct Sym *shadowed; /* the symbol of the same name in an outer scope, visible again after this one */
	bool per_iteration; /* SYM_VALUE: an unrolled loop's variable, or a constant let computed from one */
} Sym;

void scope_push(void);
void scope_pop(void);
/* A scope that sees only the file's items (depth 1), not the scopes around it: a device function's
   body inlined at a call. Returns what scope_pop_isolated restores. */
int scope_push_isolated(void);
void scope_pop_isolated(int saved);
/* Inside a device function of scope warp (1) or warpgroup (4): warp_id and warpgroup_id count within
   the calling warp or warpgroup, and thread_idx is refused; 0 elsewhere. Returns the previous setting. */
int sema_set_unit(int warps);
/* The protocol state of the kernel or device function being walked (NULL outside): where a warp
   collective of an expression must be reached by the whole warp. */
struct Protocol;
void sema_set_protocol(struct Protocol *p);
/* Declares a name in the innermost scope; reports a redeclaration there and returns NULL. */
Sym *sym_declare(SymKind kind, const char *name, Loc loc);
Sym *sym_lookup(const char *name);
/* The symbol a use names: reports an unknown name; NULL, quietly, for a failed declaration. */
Sym *sym_use(const char *name, Loc loc);
void sym_poison(const char *name, Loc loc);
/* After an error about name: a note with the .tile spelling of a CUDA habit, else "did you mean"
 * the nearest of the names in scope (in_scope), extra, and the keywords and builtins. */
void note_spelling(const char *name, Loc loc, bool in_scope, const char *const *extra, int nextra);
void sema_reset(bool fast_math); /* fast_math: exp and exp2 calls become exp_approx and exp2_approx */
IExpr *sema_element(Expr *e, Tensor **tensor, IExpr **index, int *slot);

/* Lowers an expression to a typed IExpr, folding constants; NULL after an error. */
IExpr *sema_expr(Expr *e);
IExpr *sema_address(Expr *e);

/* ---------------------------------------------------------------- layout.c */

/* Evaluates a layout for a tensor; reports errors at the layout and returns NULL on failure. */
Layout *layout_eval(LayoutExpr *le, Tensor *t, int block_threads);
/* The axes a layout expression names (bit per Axis), through a layout item's name; before evaluating it. */
unsigned layout_expr_axes(const LayoutExpr *le);
void layout_check_unused(LayoutExpr *item, const char *name);
/* le, or the layout a chain of layout names leads to; NULL after an error. */
LayoutExpr *layout_follow_names(LayoutExpr *le);
/* The thread (linear in the CTA) that the place names, and which levels it fixes. */
bool layout_place_owned_by(const Layout *l, const int32_t *place, int thread);
int layout_place_thread(const int32_t *place);
/* Which copy of the tensor a thread holds (a layout without a warp axis gives each warp its own): the
   threads of one copy share the number. */
int layout_copy_of(const Layout *l, int thread);
bool layout_names_thread(const Layout *l);
bool layout_check_one_to_one(Layout *l, Tensor *t, Loc loc);
/* The slot element e occupies in thread t, or -1 when t does not hold it. */
bool layout_names_lane(const Layout *l); /* tx, tid_in_wg or laneid: else every lane holds its own copy */
int layout_slot_in_thread(const Layout *l, int e, int thread);

/* ---------------------------------------------------------------- reduce.c */

/* The code of `reduce OP(dst, src, dims)`, the same in every thread: for each of n dst slots, the src slots
   folded into it in the row's order, then the butterfly over the lane bits of mask (0: none), lowest first. */
typedef enum ReduceKind { REDUCE_SUM, REDUCE_MAX, REDUCE_MIN } ReduceKind;
typedef struct ReducePlan {
	int n;
	int *dst_slot;
	int *nsrc;
	int **src;
	uint32_t mask;
} ReducePlan;
/* The plan from the layouts of dst and src (views of local tensors; dims: bit per reduced dimension of
   src) for a block of threads; an error at loc and false where the layouts allow none. */
bool reduce_plan(const View *dst, const View *src, unsigned dims, int threads, Loc loc, ReducePlan *plan);
/* The value entry i of a plan stores: the fold of its src slots, then, for an aligned group (reduce_aligned),
   lanes_OP or warp_OP; for another mask the fold only, and per bit m of it reduce_step of the value and
   reduce_shuffle of it (held in variables, since each is read twice). */
IExpr *reduce_value(const ReducePlan *plan, int i, Tensor *src, ReduceKind kind);
bool reduce_aligned(const ReducePlan *plan);
IExpr *reduce_combine(IExpr *a, IExpr *b, ReduceKind kind);
IExpr *reduce_step(IExpr *own, IExpr *other, int m, ReduceKind kind);
IExpr *reduce_shuffle(IExpr *v, int m);

/* ---------------------------------------------------------------- shared-memory tiles (smem.c) */

/* A shared tile [rows, cols] in a tensor-core layout: rows are M or N, cols are K. K-major: a row's
   columns are contiguous; MN-major: a column's rows are. */
typedef enum SmemMajor { SMEM_K, SMEM_MN, SMEM_MAJOR_COUNT } SmemMajor;
typedef enum SmemSwizzle { SW_NONE, SW_32B, SW_64B, SW_128B, SW_128B_BASE32B, SW_COUNT } SmemSwizzle;

/* One row of smem.c's table per swizzle mode. An atom is atom_lines lines of width bytes along the
   contiguous dimension; the XOR pattern repeats every period bytes (0: no pattern). */
typedef struct SwizzleInfo {
	const char *name; /* as smem_tile spells it: "none", "32B", ... */
	int width;        /* bytes of one atom line: the swizzle width, 16 without swizzle */
	int atom_lines;   /* 8 */
	int period;
	int align;        /* a tile's start address is a multiple of this, so the base offset is 0 */
	int code;         /* the descriptor's layout field, bits 61..63 */
	int xor_mask;     /* the address bits (A >> 7) & xor_mask are XORed into A at bit xor_at */
	int xor_at;
	bool mn_only;     /* 128B_base32B: no K-major form */
} SwizzleInfo;

/* A shared tile: rows x cols elements of elem_bytes (1, 2, 4, 8 or 16) each, placed canonically
   (atoms stacked along rows first, then along cols) from the absolute shared::cta address start. */
typedef struct SmemTile {
	SmemMajor major;
	SmemSwizzle swizzle;
	int elem_bytes;
	int rows, cols;
	uint32_t start;
} SmemTile;

/* What smem_tile_check finds wrong with a tile, first match in this order. */
typedef enum SmemTileFault {
	SMEM_TILE_FITS,
	SMEM_TILE_ELEM,      /* elem_bytes is not a power of two up to 16 */
	SMEM_TILE_MAJOR,     /* the swizzle has no form of this major (128B_base32B is MN only) */
	SMEM_TILE_EMPTY,     /* rows or cols below 1 */
	SMEM_TILE_ATOM_ROWS, /* rows do not fill whole atoms */
	SMEM_TILE_ATOM_COLS, /* cols do not fill whole atoms */
	SMEM_TILE_ALIGN,     /* start is not a multiple of the swizzle's align */
	SMEM_TILE_RANGE,     /* the tile ends beyond what a descriptor addresses (256 KiB) */
} SmemTileFault;

/* The 64-bit shared-memory matrix descriptor, field by field; addresses and offsets in bytes. */
typedef struct SmemDesc {
	uint32_t start, lbo, sbo; /* multiples of 16 below 256 KiB */
	int base_offset;          /* bits 49..51, 0..7 */
	bool lbo_absolute;        /* bit 52 */
	SmemSwizzle swizzle;      /* bits 61..63 through the table's code */
} SmemDesc;

/* An element an instruction reads from a tile: its coordinates from the descriptor's start, and the
   address the tile's layout gives it. */
typedef struct SmemTouch {
	int mn, k;
	uint32_t addr;
} SmemTouch;

typedef enum SmemDescFault {
	SMEM_DESC_FITS,
	SMEM_DESC_FIELDS,    /* a base offset or absolute LBO: tilec's walk does not model them */
	SMEM_DESC_ADDRESS,   /* touch[index]: the descriptor reads desc_addr, the tile has it at tile_addr */
	SMEM_DESC_SAME_BYTE, /* touch[index] and touch[other] have one address (tile_addr) */
} SmemDescFault;
typedef struct SmemMismatch {
	SmemDescFault fault;
	int index, other;
	uint32_t tile_addr, desc_addr;
} SmemMismatch;

/* The functions that take a tile expect one that smem_tile_check accepts. */
const SwizzleInfo *smem_swizzle_info(SmemSwizzle s);
const char *smem_major_name(SmemMajor m); /* "K", "MN" */
bool smem_major_named(const char *name, SmemMajor *out);
bool smem_swizzle_named(const char *name, SmemSwizzle *out);
bool smem_swizzle_of_code(int code, SmemSwizzle *out); /* false for the codes no row has */
/* The swizzle of absolute shared address addr. */
uint32_t smem_swizzle_addr(SmemSwizzle s, uint32_t addr);
SmemTileFault smem_tile_check(const SmemTile *t);
/* One atom of the tile's layout in elements. */
void smem_atom_shape(const SmemTile *t, int *rows, int *cols);
uint32_t smem_tile_bytes(const SmemTile *t);
/* The canonical leading and stride byte offsets of the tile (lbo 0 where the hardware ignores it). */
void smem_tile_strides(const SmemTile *t, uint32_t *lbo, uint32_t *sbo);
/* The address of element (row, col) before the swizzle, and the address it has. */
uint32_t smem_tile_unswizzled(const SmemTile *t, int row, int col);
uint32_t smem_tile_addr(const SmemTile *t, int row, int col);
/* The elements of the view [row0, row0 + rows) x [col0, col0 + cols) of t, row by row, with their
   addresses, into out (rows * cols entries); the descriptor coordinates start at (row0, col0). */
void smem_tile_touches(const SmemTile *t, int row0, int col0, int rows, int cols, SmemTouch *out);
/* The descriptor of the view of t that starts at element (row0, col0): the tile's canonical strides
   and swizzle, base offset 0, the start rounded down to the 16 bytes its field can hold. */
SmemDesc smem_tile_desc(const SmemTile *t, int row0, int col0);
/* The 64 bits of d; false when a field does not fit it (an address not a multiple of 16 or beyond
   256 KiB, a base offset beyond 7). */
bool smem_desc_encode(const SmemDesc *d, uint64_t *bits);
/* The fields of bits; false when its fixed bits are wrong or its layout code names no swizzle. */
bool smem_desc_decode(uint64_t bits, SmemDesc *d);
/* The address the descriptor's walk reads for element (mn, k) of elem_bytes in a major layout. */
uint32_t smem_desc_addr(const SmemDesc *d, SmemMajor major, int elem_bytes, int mn, int k);
/* Whether d reaches each of the n touched elements at its address, and no two share one: on the first
   failure false and *out says which. */
bool smem_desc_check(const SmemDesc *d, SmemMajor major, int elem_bytes, const SmemTouch *touch, int n,
                     SmemMismatch *out);

/* A view of a tile that an instruction reads through a descriptor: the rectangle [row0, row0 + rows) x
   [col0, col0 + cols) of the tile's elements; the instruction's (mn, k) are relative to (row0, col0). */
typedef struct SmemView {
	int row0, col0, rows, cols;
} SmemView;
/* The one check of a descriptor against a tile (cp, mma and TMA call it). Derives *desc for view v of
   tile t (start: the view's first element, the tile's canonical LBO and SBO and swizzle, base offset 0)
   and verifies that the descriptor's walk reaches every element of the view at the address t's layout
   gives it and that no two elements share a byte. True when it does; else false and *why names the
   first element (row by row) that the walk reads elsewhere, with both addresses, or the two elements on
   one byte: smem_mismatch_text words it for an error. t must pass smem_tile_check and v lie inside it. */
bool smem_view_descriptor(const SmemTile *t, const SmemView *v, SmemDesc *desc, SmemMismatch *why);
/* The mismatch as a sentence naming element [row, col] of tensor `name` and both addresses (pool). */
char *smem_mismatch_text(const SmemTile *t, const SmemView *v, const SmemMismatch *m, const char *name);
/* The major and swizzle a smem_tile(major, swizzle) layout names; false after an error at its string. */
bool smem_layout_named(const LayoutExpr *le, SmemMajor *major, SmemSwizzle *swizzle);
/* The tile of shared tensor t declared with layout `written` (le: the layout its names lead to) at loc
   (NULL after an error: not smem_tile, fewer than 2 dimensions, rows or the contiguous extent not whole
   atoms). */
SmemTile *smem_tensor_tile(const Tensor *t, const LayoutExpr *written, const LayoutExpr *le, Loc loc);
/* " layout smem_tile(\"K\", \"128B\")" as a declaration writes it (pool). */
const char *smem_tile_text(const SmemTile *t);
/* The alignment of shared tensor t's array in bytes: its tile's swizzle period, at least 16. */
int smem_tensor_align(const Tensor *t);
/* A shared tensor declared with layout smem_tile (Tensor.tile: rows and cols its last two dimensions,
   leading dimensions whole tiles one after another, start 0 as the array starts on the swizzle period):
   the element index in the array of the element whose row-major index is flat (ir.c's ie_tile_index
   writes it as an expression). */
int64_t smem_tensor_element(const SmemTile *t, int64_t flat);
/* The row-major index of the element at index `element` of the array: smem_tensor_element's inverse. */
int64_t smem_tensor_logical(const SmemTile *t, int64_t element);

/* ---------------------------------------------------------------- smem_banks.c: shared-memory banks */

/* The lanes of a warp that one phase of an access of `bytes` per lane serves (32, 16 for 8 bytes, 8 for 16). */
int smem_phase_lanes(int bytes);
/* The wavefronts a warp's access takes: addr[lane] its byte address (-1: the lane takes no part), every
   lane `bytes` wide; *degree: the most wavefronts of one phase (1: no bank conflict). */
int smem_wavefronts(const int64_t addr[32], int bytes, int *degree);
/* For bytes >= 4: the group of banks (0 .. 128 / bytes - 1) an aligned access at addr occupies. */
int smem_bank_unit(int64_t addr, int bytes);
/* Whether the accesses of one phase (unit_load[u]: how many fall in bank group u; most: the most of one
   lane) have an order per lane in which none conflicts. */
bool smem_conflict_free_order(const int *unit_load, int units, int most);

/* ---------------------------------------------------------------- TMA (tma.c) */

#define TMA_MAX_RANK 5
/* One tensor map a kernel receives (a `const __grid_constant__ CUtensorMap` after its parameters): per
   distinct (tensor, box, swizzle). Dimensions innermost first, as cuTensorMapEncodeTiled takes them. */
typedef struct TmaMap {
	Tensor *tensor;
	int rank;
	int box[TMA_MAX_RANK];
	SmemSwizzle swizzle;
	const char *cname; /* the kernel parameter: TENSOR_tmaN; a device function's: its tma parameter */
	bool pointer;      /* a device function's map: cname is a const CUtensorMap * (a kernel's: the map) */
	int index;         /* its place among the kernel's maps */
} TmaMap;

/* One cp.async.bulk.tensor (an L_TMA): the box of map at coord (innermost first, i32) between global and
   shared byte dst of smem's array (the unswizzled address of box element 0); a load completes on the
   barrier at mbar, crediting `bytes`. */
typedef struct TmaCopy {
	bool store;
	bool wait_read; /* not a copy: cp.async.bulk.wait_group.read 0 after TMA stores, by every thread */
	const TmaMap *map;
	Tensor *smem;
	uint32_t dst;
	IExpr *stage; /* a run-time tile of a stack: the byte offset added to dst (u32); NULL: none */
	IExpr *coord[TMA_MAX_RANK];
	IExpr *gdim[TMA_MAX_RANK];    /* the tensor's dimensions, innermost first (i64), for the emulator */
	IExpr *gstride[TMA_MAX_RANK]; /* its strides in elements, innermost first (i64) */
	int bytes;
	IExpr *mbar;
	IExpr *multicast; /* a load's CTA mask (u32, bit r: the CTA of rank r); NULL: this CTA's alone */
} TmaCopy;

/* The plan of one TMA copy statement: its pieces (a box per piece, all of one map). */
typedef struct TmaPlan {
	int n;
	TmaCopy *pieces;
	int bytes;        /* of all pieces: what the barrier is credited */
	const char *why;  /* --explain: box, swizzle, bytes */
} TmaPlan;

/* A TMA copy between shared view sv and global view gv (the operand gve as written), checked (LANGUAGE
   11.4, TCGEN05.md 14.1): box rules, the 16-byte start (a store's also >= 0, store_nonneg saying which
   loop counters are; NULL for a load), and TMA's placement of every element against the
   shared tensor's layout; the pieces with their map in k->tma_maps. False after an error at loc. */
bool tma_plan(struct KernelIR *k, const View *sv, const View *gv, const struct ViewExpr *gve,
              bool (*store_nonneg)(const Var *), Loc loc, TmaPlan *out);
/* The CTA mask of `multicast MASK` (LANGUAGE 11.4) in kernel k (NULL in a device function): u32, checked
   against k's cluster where constant; NULL after an error at the mask. */
IExpr *tma_multicast_mask(const struct KernelIR *k, struct Expr *mask);
/* isa.c: a TMA copy's opcode ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
   with ".multicast::cluster" for a multicast load,
   the store's, or the read wait of a wait_read), and the bulk group's commit or its read wait of 0 groups. */
const char *tma_opcode(const TmaCopy *c);
const char *tma_bulk_spelling(bool wait_read);

/* ---------------------------------------------------------------- view.c */

View *view_of_tensor(Tensor *t);
/* The view of a run-time box of global tensor t: its dimensions of extent dims, row-major. */
View *view_of_box(Tensor *t, const Box *box, int rank, const int *dims);
View *view_reshape(View *v, int rank, const int *dims, Loc loc);
View *view_per_thread(Tensor *t, int n, Loc loc);
View *view_rearrange(View *v, const char *pattern, Loc pattern_loc, const char **names, const int *sizes, const Loc *locs, int nbind);
/* Slice: for each index, is_range with [lo, hi) or a single index (dropping the dimension). */
typedef struct SliceSpec {
	bool is_range;
	int lo, hi;
	Loc loc;
} SliceSpec;
View *view_slice(View *v, const SliceSpec *spec, int n);
void format_coords(char *buf, size_t len, int rank, const int *dims, int flat);
/* The same elements of the same tensor in the same shape. */
bool view_same(const View *a, const View *b);
/* Whether the view's elements are map[0] + sum of index_i * stride_i (checked on every element), and the strides. */
bool view_strides(const View *v, int64_t *stride);
/* open, the values separated by ", ", close: "[1, 0, 2]" or "(4, 32)" */
void format_list(char *buf, size_t len, char open, const int *values, int n, char close);


/* ---------------------------------------------------------------- the lowered program (ir) */

struct Var {
	const char *name;  /* in the source */
	const char *cname; /* in the generated code */
	EType type;        /* declared type (storage) */
	bool is_let;
	bool varying;      /* may differ between the lanes of a warp */
	bool per_thread;   /* may differ between the threads of the CTA (a var, a loop counter) */
	IExpr *def;        /* let: its value, for analyses that look through names */
	bool is_param;
};

typedef enum IKind {
	IE_INT,     /* ival, type i32 or u32 */
	IE_FLOAT,   /* fval, type f32 */
	IE_VAR,     /* var */
	IE_BUILTIN, /* builtin */
	IE_LOAD,    /* tensor (global or shared) [index] */
	IE_SADDR,   /* shared-window address of tensor[index], u32 */
	IE_REG,     /* element slot of local tensor, in the calling thread */
	IE_UNARY,   /* op a */
	IE_BINARY,  /* a op b */
	IE_SELECT,  /* a ? b : index (?: and apply's per-warp offsets) */
	IE_CONV,    /* to(a): rounds to the element type 'to' */
	IE_CALL     /* fn(a, b, index): b and index only where fn takes them (fma: a * b + index) */
} IKind;

/* An element of a view of a global or shared tensor read or written at run-time indices (sema.c,
 * view_element): the view's name and shape and the indices, which tilec run checks against that shape;
 * the element itself may lie inside the tensor while its indices leave the view. */
typedef struct ViewAt {
	const char *name;
	const char *base; /* the tensor it views */
	int rank;
	int dims[MAX_RANK];
	IExpr *at[MAX_RANK];
} ViewAt;

/* A typed expression. Its value type is i32, u32 or f32; small types are widened as in C. */
struct IExpr {
	IKind kind;
	EType type;
	int64_t ival;
	double fval;
	Var *var;
	Builtin builtin;
	Tensor *tensor;
	IExpr *index;
	int slot;
	Op op;        /* IE_BINARY with OP_NONE: the select a ? b : index */
	IExpr **coords; /* IE_LOAD of a global or shared tensor: the index of each dimension (index is their offset) */
	const ViewAt *view_at; /* IE_LOAD through a view at run-time indices; only tilec run reads it */
	IExpr *a, *b;
	EType to;
	Func fn;
};

typedef enum LKind {
	L_LET,       /* const var = value */
	L_VAR,       /* var [= value] */
	L_ASSIGN,    /* var = value */
	L_STORE,     /* tensor[index] = value (global or shared) */
	L_SHARED,    /* declares a shared tensor */
	L_REGS,      /* declares the registers of a local tensor */
	L_REG_STORE, /* tensor slot = value */
	L_TMEM,      /* declares a tmem tensor's base address: tensor, value */
	L_IF,        /* if (cond) body else els */
	L_FOR,       /* for (var = lo; var < hi; var++) body */
	L_BLOCK,     /* { body } */
	L_BARRIER,   /* cta_sync */
	L_FENCE,     /* a fence tilec places next to a cta_sync: tc is TC_FENCE_BEFORE or TC_FENCE_AFTER */
	L_WARP_SYNC,
	L_TC,        /* one tcgen05 instruction */
	L_COPY,      /* register word regs[0] = register word regs[1] */
	L_NAMED_BAR, /* bar.sync / bar.arrive bar_id, bar_threads */
	L_MBAR,      /* an mbarrier statement (mbar_op): tensor[index] the barrier at address mbar, value the operand */
	L_TMA        /* a TMA copy (tma): cp.async.bulk.tensor, issued by one elected lane where mbar_elect */
} LKind;

typedef enum TcKind {
	TC_ALLOC, TC_DEALLOC, TC_RELINQUISH, TC_WAIT_LD, TC_WAIT_ST, TC_FENCE_BEFORE, TC_FENCE_AFTER, TC_LD, TC_ST, TC_CP,
	/* the synchronisation rows (ISA_SYNC): mbarriers, commit, the cluster barrier */
	TC_MB_INIT, TC_MB_ARRIVE, TC_MB_EXPECT_TX, TC_MB_TRY_WAIT, TC_MB_FENCE_INIT, TC_COMMIT, TC_CLUSTER_ARRIVE,
	TC_CLUSTER_WAIT, TC_COMMIT_PAIR,
	TC_LD_RED,
	TC_MMA /* tcgen05.mma, written by the mma statement (mma.c) */
} TcKind;

typedef struct RegRef {
	Tensor *tensor;
	int word;
	uint64_t warps; /* apply_emit: the warps whose register word it is */
} RegRef;

typedef struct LStmt LStmt;
struct LStmt {
	LKind kind;
	Loc loc;
	Var *var;
	IExpr *value;
	Tensor *tensor;
	IExpr *index;
	int slot;
	IExpr *cond;
	List body; /* LStmt* */
	List els;  /* LStmt* */
	IExpr *lo, *hi;
	IExpr **coords; /* L_STORE to a global or shared tensor: as IExpr's */
	const ViewAt *view_at; /* L_STORE: as IExpr's */
	/* L_STORE, L_REG_STORE of a copy (LANGUAGE 10.4): the dimensions whose coordinate (coords, or the
	   load's) is tested against 0 and against the tensor's size; outside, a store writes nothing and a
	   load gives 0. vectorize_accesses (vectorize.c) turns them into branches. */
	unsigned mask_lo, mask_hi;
	int bar_id, bar_threads; /* L_NAMED_BAR: the barrier and the threads it counts */
	bool bar_arrive;         /* L_NAMED_BAR: bar.arrive (does not wait) */
	MbarOp mbar_op;          /* L_MBAR; L_FENCE: MB_WAIT for the fence after a wait that completes a cp */
	IExpr *mbar;             /* L_MBAR: the barrier's shared address (IE_SADDR of tensor[index]); NULL: none */
	bool mbar_elect;         /* L_MBAR, L_TC of cp: a single-thread statement reached by whole warps: one elected lane runs it */
	int elect_lane;          /* mbar_elect: the lane the CPU emulator elects (the lowest of each warp that reaches it) */
	bool align_test; /* a copy's access whose vector form may test its address's alignment at run time */
	bool owner_test; /* L_IF: a copy's test of which threads own the elements (of thread_idx.x alone) */
	bool proxy_fence; /* L_MBAR cluster_sync: fence.proxy.async.shared::cta first (threads' stores that a pair's
	                     mma or cp of the other CTA reads, LANGUAGE 11.6) */
	/* L_TC, L_FENCE */
	const struct IsaInstr *instr; /* its row of isa.c */
	int cta_group;
	Opcode op;                    /* ld, st: shape, .xN, packing */
	const struct CpForm *cp;      /* cp: its form */
	const struct MmaInstr *mma;   /* mma: its kind, types and shape (mma.c) */
	struct LOperand *ops;         /* in the row's order, those the qualifiers ask for (tc_add_operand) */
	int nops;
	RegRef *regs; /* L_COPY: regs[0] = regs[1] */
	const char *comment; /* apply: its source line */
	int vec; /* L_STORE, L_REG_STORE: this and the next vec - 1 statements are one vector access (vectorize.c) */
	int matrix; /* with vec 8: the 8 are one stmatrix / ldmatrix of 16-bit elements in slot order; 2: .trans */
	IExpr *matrix_index; /* matrix: the tile element index whose address the lane gives (a matrix row) */
	bool live; /* L_REG_STORE: some warp reads what it writes (vectorize.c drops the others) */
	struct CallInfo *call; /* L_BLOCK: the body of a device function inlined at a call */
	const struct TmaCopy *tma; /* L_TMA */
};

/* One parameter of a device function, as its lowering declared it. */
typedef struct DevParam {
	ParamKind kind;   /* PK_VALUE: a scalar (var) or a global tensor (tensor) */
	Var *var;         /* scalar; tmem: the u32 address */
	Tensor *tensor;   /* global, shared, local, tmem */
} DevParam;

/* A call of a device function: the C call the cuda target writes instead of the inlined body. */
typedef struct CallInfo {
	struct KernelIR *callee;
	int nargs;
	IExpr **values;   /* scalar and tmem parameters: the value passed (u32 address for tmem) */
	Tensor **tensors; /* global, shared, local parameters: the caller's tensor */
	int *first_word;  /* local parameters: the word of tensors[i] where the parameter's registers start */
	IExpr **offsets;  /* global parameters: the element offset of the slice passed (i64), or NULL */
} CallInfo;

/* A wait tilec placed for a copy: the copy, and the statement it was placed before. */
typedef struct PlacedWait {
	Loc copy;
	Loc at;
	TcKind kind;
	bool written; /* the user's own wait at 'at' completed the copy: tilec placed none */
} PlacedWait;

typedef struct KernelIR {
	const char *name;
	Loc loc;
	List params;  /* Param-order Tensor* (global) or Var* (scalar): see param_is_tensor */
	List param_is_tensor; /* non-NULL entry marks a tensor */
	int grid[3], block[3];
	IExpr *grid_expr[3]; /* a grid dimension over scalar parameters (grid[d] is 0 then), else NULL */
	int cluster[3];      /* the thread-block cluster, 1 x 1 x 1 without `cluster =` */
	bool has_cluster;
	Loc cluster_loc;
	int threads;
	List body;    /* LStmt* */
	Map names;    /* every name the generated code uses */
	bool uses_f16, uses_bf16;
	List apply_memo; /* apply.c: applies already checked, by instruction and operands */
	List tmem_tensors; /* Tensor*: the tmem tensors declared, for tilec run --tmem */
	int nstaging;    /* apply.c: staging arrays made so far */
	int ncopy_vars;  /* copy.c: variables of copies between overlapping views made so far */
	int nreduce_vars; /* lower.c: variables of the butterflies of reduce statements made so far */
	List copy_memo;  /* copy.c: copies already searched, by operands */
	List placed_waits; /* lower.c: PlacedWait*, in the order placed */
	/* a device function: its scope, its parameters (DevParam*) and whether block = N was written */
	bool is_device;
	ScopeKind scope;
	bool has_block;
	bool cta_axes; /* a warp or warpgroup function whose layouts name tx, warpid or wgid: lowered for its block */
	List dparams;
	const char *contract; /* the comment above the function: scope, block, the register slots */
	List tma_maps; /* TmaMap*: the tensor maps the kernel receives after its parameters (tma.c) */
} KernelIR;

typedef struct Program {
	const char *source_name; /* file name without directories, for comments */
	List kernels; /* KernelIR* */
	List devices; /* KernelIR*: the device functions, in file order */
	bool code_passes_done; /* pipeline.c's code passes have rewritten every kernel and device function */
} Program;

/* ---------------------------------------------------------------- ir.c: the expression IR */

/* A new node of kind and type, its other fields zero. */
IExpr *ie_new(IKind kind, EType type);
IExpr *ie_float(double v);
IExpr *ie_int(int64_t v, EType type);
/* A copy of e whose operands are a and b and whose index is index (a rewrite of e's children). */
IExpr *ie_with_children(const IExpr *e, IExpr *a, IExpr *b, IExpr *index);
IExpr *ie_builtin(Builtin b);
/* A reference to v, of type type. */
IExpr *ie_var(Var *v, EType type);
IExpr *ie_binary(Op op, IExpr *a, IExpr *b);
IExpr *ie_convert(IExpr *e, EType to);
bool ie_is_const(const IExpr *e, int64_t *out);
/* Evaluates e for one thread of a block of dims threads (thread_idx.x varying fastest); false when it
   depends on anything but the thread's ids and constants. */
bool ie_eval_thread(const IExpr *e, const int dims[3], int thread, int64_t *out);
/* The same in the CTA of block_idx = block[0..2] (NULL: unknown). */
bool ie_eval_thread_block(const IExpr *e, const int dims[3], int thread, const int64_t *block, int64_t *out);
bool ie_varying(const IExpr *e);
/* e may differ between the threads of a CTA: it reads a thread index, a register, or a value that does */
bool ie_per_thread(const IExpr *e);
/* e is computed from the thread's indices with no memory, register or var in between */
bool ie_thread_index(const IExpr *e);
/* Evaluates an integer expression over constants and scalar parameters, the value of parameter Var v
   being value(v, ctx); false when it depends on anything else or is undefined (division by zero). */
bool ie_eval_params(const IExpr *e, int64_t (*value)(const Var *v, void *ctx), void *ctx, int64_t *out);
/* Whether an i32 value is known not to be negative (signed overflow being undefined in C). */
bool ie_nonneg(const IExpr *e);
bool ie_nonneg_with(const IExpr *e, bool (*var_nonneg)(const Var *));
/* True when e uses only constants and integer scalar parameters. */
bool ie_params_only(const IExpr *e);
/* The element type of a value type: i32, u32 or f32. */
EType value_type(EType t);
/* The element offset of index in a global or shared tensor from its pointer: index + t->base_off. */
const IExpr *global_index(const Tensor *t, const IExpr *index);
/* The bytes a global or shared tensor's pointer is known to be aligned to: 16, or less where a call
   passed a slice (base_align, through align_from). */
int tensor_align(const Tensor *t);
/* A function of LANGUAGE.md 10.2: its name, its number of arguments, whether they are floats only. */
typedef struct FuncInfo {
	const char *name;
	int arity;
	bool float_only;
	bool collective;   /* a warp collective: the lanes of a warp exchange values */
	bool lane_uniform; /* a collective whose result is the same in every lane of the warp */
} FuncInfo;
/* A function name of LANGUAGE.md 10.2: its Func, or false. */
bool func_lookup(const char *name, Func *out);
const FuncInfo *func_info(Func f);
const char *func_name(Func f);
/* The f16 or bf16 bits of a constant, rounded to nearest (ties to even) as a conversion does. */
uint32_t half_bits(double v, EType t);
/* e as rest + *c with c constant, through i32 and i64 + and - only; rest is NULL when e is constant. */
IExpr *ie_split_offset(IExpr *e, int64_t *c);
/* The element index in shared tensor t's array of element (row, col) of tile `stack` (NULL: 0) of its
   smem_tile layout, all i32: smem_tensor_element (smem.c) as an expression. */
IExpr *ie_tile_index(const struct SmemTile *t, IExpr *stack, IExpr *row, IExpr *col);
/* The largest power of two (up to 2^20) known to divide an integer value. */
int64_t known_factor(const IExpr *e);
/* known_factor of an element index of global tensor t, whose outer strides its `align N` promise
   makes multiples of N bytes */
int64_t index_factor(const IExpr *e, const Tensor *t);
/* The bytes (up to 16) every start of a global tensor's innermost dimension is known to lie at,
   relative to its base: from constant strides or its `align N` promise */
int tensor_row_align(const Tensor *t);
/* Whether e reads an element or the address of an element of t. */
bool loads_from(const IExpr *e, const Tensor *t);
/* Whether a statement of list (or of the lists inside it) reads an element of t, or its address. */
bool list_loads(const List *list, const Tensor *t);
/* Whether two view accesses (ViewAt) are of the same view (their indices aside). */
bool view_at_same(const ViewAt *a, const ViewAt *b);
/* Whether two expressions are the same tree (the same variables, loads and constants). */
bool ie_equal(const IExpr *a, const IExpr *b);
/* A total order of expressions (by structure and names, never addresses), constants last. */
int ie_order(const IExpr *a, const IExpr *b);
/* An integer sum with its terms in ie_order, so that one sum written in two orders is one tree; terms
 * are split only through + of the sum's own type, where reordering keeps the value (wrapping or, for
 * i32, undefined on overflow in C). */
IExpr *ie_sorted_sum(IExpr *e);

/* ---------------------------------------------------------------- isa.c */

/* What an operand of a tcgen05 instruction is: each target writes an operand by its kind alone. */
typedef enum IsaOperand {
	IO_SHARED_SLOT,   /* &slot[i] of a shared u32 tensor: where alloc writes the TMEM address */
	IO_TMEM_ADDR,     /* a u32 TMEM address, lane << 16 | column */
	IO_NCOLS,         /* a constant column count: a power of two from 32 to TMEM_COLS */
	IO_REG_VECTOR,    /* registers of the executing thread, {r0, r1, ...} */
	IO_IMM,           /* a constant: ld / st's immHalfSplitoff */
	IO_REG,           /* one register of the executing thread (ld.red's redval), regs[0] */
	/* the kinds of the rows to come (the list in isa.c); no row has them yet */
	IO_SHARED_DESC64, /* a 64-bit shared-memory matrix descriptor (cp, mma) */
	IO_INSTR_DESC32,  /* a 32-bit instruction descriptor (mma) */
	IO_MBARRIER_ADDR, /* the shared address of an mbarrier (commit, mbarrier ops, TMA) */
	IO_TENSOR_MAP,    /* the address of a CUtensorMap and its coordinates (TMA) */
	IO_PRED           /* a predicate (mma's enable-input-d, try_wait's result) */
} IsaOperand;

/* One operand place of a row. */
typedef struct IsaOperandSlot {
	IsaOperand kind;
	bool bracketed;  /* written [x]: the instruction reads or writes memory at x */
	bool split_only; /* present only with the shape .16x32bx2 (immHalfSplitoff) */
	bool written;    /* the instruction writes it (ld's registers): an output of the CUDA C asm */
} IsaOperandSlot;

/* An operand of a lowered tcgen05 statement (LStmt.ops): its place in the row, and its value. */
typedef struct LOperand {
	const IsaOperandSlot *slot;
	IExpr *addr;  /* IO_SHARED_SLOT, IO_TMEM_ADDR */
	uint32_t imm; /* IO_NCOLS (0 where the count was wrong), IO_IMM; IO_SHARED_DESC64: the start's offset in its tensor */
	uint64_t desc; /* IO_SHARED_DESC64: the descriptor's bits but its start address, which addr (u32) gives */
	RegRef *regs; /* IO_REG_VECTOR */
	int nregs;
} LOperand;

/* One qualifier place of a row's spelling: "." and one of its values. */
typedef enum IsaQual {
	IQ_WORD,      /* always values: .sync.aligned, .b32, a state space such as .shared::cta */
	IQ_CTA_GROUP, /* values "cta_group::1|cta_group::2", the statement's choice; left out when it gives none */
	IQ_SHAPE,     /* ld / st: a shape of the shape table (32x32b, 16x64b, ...) */
	IQ_NUM,       /* ld / st: .xN, a power of two up to the shape's largest */
	IQ_PACK,      /* values, when the opcode asks for 16-bit packing (ld .pack::16b, st .unpack::16b) */
	IQ_CP_ROUTE,  /* cp: a route of the cp table, its shape and multicast (128x128b, 32x128b.warpx4, ...) */
	IQ_CP_DECOMP, /* cp: values, the decompressions; left out when the form has none */
	IQ_RED_OP,    /* ld.red: "min|max", the opcode's choice */
	IQ_RED_ABS,   /* ld.red: values ("abs") when the opcode asks for it */
	IQ_RED_NAN,   /* ld.red: values ("NaN") when the opcode asks for it */
	IQ_RED_TYPE,  /* ld.red: "f32|u32|s32", the opcode's choice */
	IQ_MMA_KIND   /* mma: values, the kinds (kind::f16, ...) in MmaKind's order */
	/* later rows add their slots here: multicast, decompression, kind, ... (the list in isa.c) */
} IsaQual;

typedef struct IsaQualSlot {
	IsaQual kind;
	const char *values; /* IQ_WORD, IQ_PACK: its spelling; IQ_CTA_GROUP: the alternatives, '|' between */
} IsaQualSlot;

/* When what an instruction started has happened (TCGEN05.md section 5). */
typedef enum IsaCompletion {
	COMPLETES_AT_ONCE,  /* synchronous: done when the instruction returns */
	COMPLETES_AT_WAIT_LD, /* asynchronous until the same warp's tcgen05.wait::ld */
	COMPLETES_AT_WAIT_ST, /* asynchronous until the same warp's tcgen05.wait::st */
	COMPLETES_AT_COMMIT   /* asynchronous until a tcgen05.commit arrives on an mbarrier (mma, cp, shift) */
} IsaCompletion;

/* How a program writes a row's instruction. */
typedef enum IsaUse {
	ISA_STATEMENT, /* an instruction statement of its own, in its exact spelling */
	ISA_APPLY,     /* through apply or copy, checked against its image (ld, st) */
	ISA_SYNC       /* through the mbarrier statements, commit, cluster_sync and mma (not an instruction statement) */
} IsaUse;

/* What an instruction does to the protocol state (protocol.c): bits. */
enum {
	EFF_ALLOCATES = 1,         /* a new allocation, live until freed */
	EFF_FREES = 2,             /* ends the allocation its address names */
	EFF_RELINQUISHES = 4,      /* no allocation after it */
	EFF_COMPLETES_LOADS = 8,   /* the executing warps' loads are in their registers */
	EFF_COMPLETES_STORES = 16, /* the executing warps' stores are in tensor memory */
	EFF_ORDERS = 32            /* a fence: orders tcgen05 work against a thread sync, nothing else */
};

enum { ISA_MAX_QUALS = 8, ISA_MAX_OPERANDS = 7 };

/* One tcgen05 instruction family: spelled "tcgen05." name, then "." and a value for each qualifier
   slot, then its operands in order. */
typedef struct IsaInstr {
	TcKind kind;
	const char *name;    /* after "tcgen05." */
	IsaUse use;
	int nquals;
	IsaQualSlot quals[ISA_MAX_QUALS];
	int noperands;
	IsaOperandSlot operands[ISA_MAX_OPERANDS];
	bool one_warp;       /* exactly one warp of the CTA executes it */
	IsaCompletion completes;
	int effect;          /* EFF_* */
	const char *does;    /* the effect in words, for --emit=ir and docs */
} IsaInstr;

int isa_count(void);
const IsaInstr *isa_at(int i);
const IsaInstr *isa_instr(TcKind kind);
bool isa_takes_cta_group(const IsaInstr *in);
bool isa_aligned(const IsaInstr *in); /* .sync.aligned: every lane of the warp executes it */
/* The instruction statement (a row of use ISA_STATEMENT) whose exact spelling text is, and its cta_group
   (0 when it takes none), or NULL. */
const IsaInstr *isa_parse(const char *text, int *cta_group);
const char *isa_name(TcKind kind, int cta_group);     /* "tcgen05." name [".cta_group::" N] */
const char *isa_spelling(TcKind kind, int cta_group); /* the whole PTX spelling of a row without a shape */
/* The whole PTX spelling of row in with the statement's choices: cta_group, and op for ld / st (else NULL). */
const char *isa_format(const IsaInstr *in, int cta_group, const Opcode *op);
const char *isa_matrix(bool store, bool trans); /* "stmatrix" / "ldmatrix" .sync.aligned.m8n8.x4[.trans].shared.b16 */
const char *isa_known(void); /* the instruction statements, in words, for a message */
/* Appends to s (whose instr is set) the operand of its row's next slot of that kind. */
LOperand *tc_add_operand(LStmt *s, IsaOperand kind);
/* The statement's first operand of that kind, or NULL. */
LOperand *tc_operand(const LStmt *s, IsaOperand kind);
IExpr *tc_addr(const LStmt *s); /* its shared-slot or TMEM address operand, or NULL */
int tc_nregs(const LStmt *s);   /* the registers of its register vector, 0 without one */
const RegRef *tc_reg(const LStmt *s, int r);
/* The row whose "tcgen05." name and a '.' begin text (an opcode of that family, whatever follows), or NULL. */
const IsaInstr *isa_family(const char *text);

/* Whether s is a tcgen05.ld or tcgen05.ld.red (an instruction that completes at the warp's wait::ld). */
bool tc_loads(const LStmt *s);
/* Whether s is a tcgen05.ld, ld.red or st (an access through an image). */
bool tc_accesses(const LStmt *s);

/* An architecture tilec compiles for, and the PTX ISA version its output declares. */
typedef struct Arch {
	const char *name;
	const char *ptx_version;
	bool ld_red; /* has tcgen05.ld.red (TCGEN05.md section 13) */
	bool f32x2; /* executes add/sub/mul/fma.rn.f32x2 as such (FADD2, FMUL2, FFMA2); ptxas splits them for sm_110 */
} Arch;

const Arch *arch_find(const char *name); /* NULL when tilec does not support it */
const Arch *arch_default(void);
/* Every architecture, separated by ", ", the default first and followed by after_default. */
const char *arch_list(const char *after_default);
const char *arch_list_ld_red(void); /* those that have tcgen05.ld.red, ", " and " or " between */

/* ---------------------------------------------------------------- lower.c */

/* Checks the whole program and lowers every kernel; returns NULL when errors were reported. */
Program *lower_program(List *items, const char *source_name);

/* What --draw watches while lowering (draw.c), passed to lower_program_with so that lowering does not
   depend on the pictures. apply: called before each apply is checked; false when its operands do not fit
   its instruction (already reported). copy: the applies a copy between tmem and registers chose (matched),
   or its closest candidate when none matches. */
struct ApplyCtx;
struct ApplyInput;
typedef struct LowerObserver {
	bool (*apply)(Stmt *s, View **operands, int noperands, struct ApplyCtx *ctx);
	void (*copy)(Stmt *s, const struct ApplyInput *ins, int n, bool matched);
	void (*shared_tile)(Stmt *s, const Tensor *t); /* a shared tensor declared with layout smem_tile */
} LowerObserver;
/* The switches of the command line that change the checks or the lowered program, and --draw's
   observer: passed down, never globals. */
typedef struct LowerOptions {
	const LowerObserver *observer; /* --draw's, or NULL */
	bool unchecked_waits;          /* tilec run --unchecked-waits: a warp's own missing wait is a warning */
	bool fast_math;                /* --fast-math: exp and exp2 are exp_approx and exp2_approx */
	const Arch *arch;              /* -arch (NULL: the default): whether tcgen05.ld.red is there */
} LowerOptions;
Program *lower_program_with(List *items, const char *source_name, const LowerOptions *opt);

/* ---------------------------------------------------------------- viewexpr.c */

/* The view a view expression names (a copy's operand, in_copy, may slice a global tensor at run-time
   bounds: a box); NULL after an error. */
View *viewexpr_eval(ViewExpr *ve, bool in_copy);

/* A global tensor argument: its first element's offset (i64; NULL: the tensor itself), and per
   dimension its extent (i32 or u32) and stride (i64, in elements). */
typedef struct GlobalArg {
	bool view;  /* a slice or view, not the tensor itself */
	IExpr *off;
	int rank;
	IExpr *dims[MAX_RANK], *strides[MAX_RANK];
} GlobalArg;

/* The argument a (tensor t, through symbol as) of a global tensor parameter; false after an error. */
bool viewexpr_global_arg(Expr *a, Sym *as, Tensor *t, GlobalArg *g);

/* ---------------------------------------------------------------- fence.c */

/* Before lowering: marks each cta_sync of kd's body with the fences it needs (fence_before when tcgen05
   work may precede it, fence_after when some may follow; a device function's caller may do either) and
   writes_follow (another warp may store to or free tensor memory after it). */
void fence_mark(Kernel *kd);
/* After lowering: removes the fence pair of each barrier of k's straight-line part that orders no
   tcgen05 work of one warp before work of another (language.md section 10). */
void fence_prune(KernelIR *k);
/* The cta_syncs and tcgen05 instructions that do work (not the fences) in stmts, nested ones included. */
int fence_count_syncs_and_instrs(List *stmts);

/* ---------------------------------------------------------------- tmemplan.c */

/* The shared slot of the planned allocation: a keyword, so no program can name it. */
#define PLANNED_SLOT_NAME "tmem"

/* ---------------------------------------------------------------- pair.c: cta_group::2 kernels */

/* The cta_group of kernel kd (k its launch): 2 where its cluster's x extent is even and it writes a
   cta_group::2 instruction (and none of cta_group::1) or declares a tmem tensor in datapath layout "A" or
   "B" next to an mma (LANGUAGE 11.6); else 1. Automatic TMEM allocates with it; its mma and cp are pair
   instructions. */
int pair_kernel_group(const Kernel *kd, const struct KernelIR *k);
/* The condition of the even CTA of the pair, which issues the pair's mma, cp and their commit. */
IExpr *pair_even_cta(void);

/* Plans the columns of the kernel's tmem tensors without `at` and writes the allocation into its
   body (before lowering, with the parameters in scope); reports what keeps it from doing so. */
void tmemplan_kernel(Kernel *kd, int threads, int cta_group);

/* ---------------------------------------------------------------- apply.c */

/* A TMEM rectangle one warp's instruction touches, in the coordinates of its allocation. */
typedef struct TmemRect {
	const void *space; /* the AllocInfo, or tmem_unknown_space when the tensor's allocation is unknown */
	/* in tmem_unknown_space (a device function lowered alone): the tensor whose address the caller passes, which
	   lane0 and col0 count from; two of them may share columns (the caller may pass one address for both) */
	const struct Tensor *param;
	int warp;
	int lane0, lanes;
	int col0, cols;
} TmemRect;

extern const char tmem_unknown_space[];

typedef struct ApplyCtx {
	KernelIR *kernel;
	uint64_t warps;      /* warps that may execute the apply */
	bool whole_warps;    /* every thread of those warps runs it when one does (protocol_whole_warps) */
	int fixed_warp;      /* the one warp, when the code fixes it; else -1 */
	uint64_t unit_warps; /* else, in a device function at a call: one warp per calling unit, which its code fixed */
	int unit_size;       /* in a device function of scope warp or warpgroup at its own code or a call: its warps (1 or 4), else 0 */
	bool can_defer;      /* a wait for loads follows in the same statement list, with no control flow between */
	bool unit;           /* in a warp or warpgroup device function: cta scope is the calling units' part */
	const LowerObserver *observer; /* --draw's (LowerOptions), or NULL */
	const Arch *arch;    /* the target (LowerOptions; never NULL) */
	bool is_ld;          /* out: the instruction's direction */
	List after_wait;     /* out: LStmt* that must follow that wait */
	List rects;          /* out: TmemRect* the apply touches */
	List regs;           /* out: RegRef* it reads (st) or writes (ld) */
} ApplyCtx;

/* "file.tile:LINE: the statement's line", its leading blanks left out ("" without the source); for a
 * comment in the output (for_comment), what could end or continue the comment is a space. */
const char *source_line_of(Loc loc, bool for_comment);
/* Checks an apply against its image and appends its lowered instructions to out. */
bool apply_lower(Stmt *s, View **operands, int noperands, ApplyCtx *ctx, List *out);
/* After the instructions of a load (ctx as apply_emit left it): -Wstale-replica where it fills some
   replicas of an element in a copy of the tensor and not the others. */
void apply_check_replicas(Stmt *s, const ApplyCtx *ctx);
/* The u32 TMEM address of a tmem tensor's first cell, as its instructions read it. */
IExpr *tmem_base_addr(Tensor *t);

/* One instruction over operand views, as an apply states it: what apply_match checks. */
typedef struct ApplyInput {
	Opcode op;
	ScopeKind scope;
	bool guard;       /* warp(K) / warpgroup(K): the code runs it under a test of the warp */
	uint64_t warps;   /* the warps that execute it */
	int group;        /* extent of the operands' group axis: 0 (warp), 4 (warpgroup), the CTA's warps (cta) */
	View *reg;        /* the register operand (a local tensor's view) */
	View *tmem[2];    /* the tmem operand; tmem[1] is the high access of 16x32bx2 */
	View *red;        /* tcgen05.ld.red: the view of one element per thread and issue that receives its result */
	bool imm_given;   /* imm_half_splitoff was written */
	uint32_t imm;
} ApplyInput;

/* The first element where an apply's operands and its instruction's image disagree. */
typedef enum MismatchKind {
	MM_NONE,
	MM_SHAPE,      /* the operand's shape is not [group] + [repeat axes] + atom [+ half] */
	MM_REPEAT,     /* a tmem operand's repeat axes differ from the register operand's */
	MM_OWNER,      /* a register element belongs to another thread than the image's lane */
	MM_PART,       /* a 16- or 8-bit element sits in the wrong part or word of a register */
	MM_WORD,       /* one instruction register would be different register words in different lanes */
	MM_TMEM_HIGH,  /* .pack/.unpack: the element is the high half of a TMEM cell */
	MM_TMEM_PLACE, /* the element is not at the TMEM lane / column (/ part) the image needs */
	MM_SLAB,       /* the atom's first lane is not one the warp may access there */
	MM_COLUMNS,    /* the atom reaches past the allocation or past column 511 */
	MM_SPLIT,      /* the two tmem operands of 16x32bx2 lie in different allocations */
	MM_IMM,        /* the imm_half_splitoff written is not the operands' distance */
	MM_IMM_VARIES, /* the operands' distance changes between warps or repeats */
	MM_OVERLAP     /* the two accesses of a 16x32bx2 store write the same TMEM cells */
} MismatchKind;

typedef struct Mismatch {
	MismatchKind kind;
	int operand;          /* 0: the register operand; 1 + k: tmem operand k */
	int rank, coord[MAX_RANK]; /* the element, in its operand's logical coordinates */
	int warp, repeat;     /* the (warp, repeat) issue it belongs to */
	int lane, reg, part;  /* the image's lane, register and 16/8-bit part for it */
	ImageCell cell;       /* the image's (access,) row, column for that lane and register */
	int thread, slot;     /* what the local layout gives: owner thread, register slot */
	int want_slot;        /* MM_PART: the slot the image needs */
	int word0;            /* MM_WORD: the register word in lane 0 (slot / parts is this lane's) */
	int tlane, tcol, tpart; /* what the tmem layout gives: lane, 32-bit cell, part */
	int need_lane, need_col; /* what the image needs (cell column, relative to the tensor) */
	int base_lane, base_col; /* the atom's base, fixed by its first element: */
	int base_rank, base_coord[MAX_RANK];
	int base_tlane, base_tcol; /* that element's own TMEM place */
	int col_first, col_limit;  /* MM_COLUMNS: first column reached, the columns available;
	                              MM_OVERLAP: lane, column of the first cell both accesses write */
	uint32_t imm, imm_got;     /* MM_IMM(_VARIES): the immediate in force, the distance found */
	bool first;                /* MM_IMM: found at the first issue */
} Mismatch;

/* One (warp, repeat) of a matched apply: its registers and TMEM offsets. */
typedef struct ApplyIssue {
	int warp, repeat;
	int *words;          /* opcode_regs entries: the register word behind each instruction register */
	uint32_t offset;     /* (lane << 16) + column, relative to the tensor's base address */
	int lane[2], col[2]; /* each access's base, relative to its tensor */
	int red_word;        /* tcgen05.ld.red: the register word of its result */
} ApplyIssue;

/* Checks without printing: the issues (warps in order, repeats inside), the immediate in *imm and
   true; or false with the first mismatch in *mm. */
bool apply_match(const ApplyInput *in, ApplyIssue **issues, int *nissues, uint32_t *imm, Mismatch *mm);
/* The warps a scope names where the statement is (apply or copy): in->warps and in->group; reports. */
bool apply_scope_warps(Stmt *s, ApplyInput *in, ApplyCtx *ctx);
/* The test of warp(K) / warpgroup(K) that keeps the other warps out (warp: the first warp of the
   scope), or NULL when every warp that reaches the statement takes part. */
IExpr *apply_scope_guard(const ApplyInput *in, const ApplyCtx *ctx, int warp);
/* The diagnostics of a mismatch at loc (imm_loc: where imm_half_splitoff is written); as_notes: all
   of them notes, under an error the caller has printed. */
void apply_report(const ApplyInput *in, const Mismatch *mm, Loc loc, Loc imm_loc, bool as_notes);
/* Appends the lowered instructions of matched issues to out, and what the protocol checks need to ctx. */
void apply_emit(const ApplyInput *in, ApplyIssue *issues, int nissues, uint32_t imm, Loc loc, ApplyCtx *ctx,
                List *out);

/* What an apply pairs, for the pictures of draw.c: the apply as stated, apply_match's verdict, and
   for each participating warp's first repeat, lane, register r and part h (elements per 32-bit
   word), the flat index into the register view and into the tmem view of the element at the
   image's (access, row, column). */
/* apply_match's verdict on one cell of the image (MM_NONE: it matches), with what its message needs. */
typedef struct CellVerdict {
	MismatchKind kind; /* MM_NONE, MM_OWNER, MM_PART, MM_WORD, MM_TMEM_HIGH or MM_TMEM_PLACE */
	int thread, slot, want_slot, word0;       /* as in Mismatch */
	int tlane, tcol, tpart, need_lane, need_col;
} CellVerdict;

/* The base of one warp's atom (fixed by its first element, as the check fixes it) and its verdict. */
typedef struct AtomVerdict {
	int lane, col;     /* relative to the tensor */
	MismatchKind kind; /* MM_NONE, MM_SLAB or MM_COLUMNS */
} AtomVerdict;

typedef struct ApplyMap {
	ApplyInput in;
	bool matched;
	Mismatch first; /* when !matched: the first mismatch, as apply_lower reports it */
	int half;       /* elements per 32-bit word: 1, 2 or 4 */
	int repeats;
	int nwarps;
	int warps[64];
	int *reg_index, *tmem_index; /* [((warp index * 32 + lane) * registers + r) * half + h] */
	CellVerdict *cell;           /* the same index: what the check says of that cell */
	AtomVerdict *atom;           /* [warp index * 2 + access] */
} ApplyMap;

/* A tensor argument of a call against its parameter (LANGUAGE.md 10.3), quiet like apply_match. local:
   for each calling unit (the caller's threads bases[u] .. bases[u] + unit - 1, the parameter's thread t
   being the caller's bases[u] + t) each element the parameter gives a thread must be in that thread's
   same slot (a view: one slot of the argument's tensor, the same in every thread, slot_map). tmem: each
   element at the parameter's place relative to the base that element 0 fixes (*base_lane, *base_col, in
   the argument tensor's lanes and element columns). */
typedef struct CallArg {
	View *arg;      /* the argument: a view of the caller's tensor */
	Tensor *param;  /* the parameter, its layout evaluated for the callee's threads */
	int unit;       /* threads of one calling unit (local) */
	int nbases;
	int bases[32];
	/* local, an argument that is a view: NULL, or per slot of the parameter the slot of the argument's tensor
	   that holds the same element (-1: none yet), the same in every thread (out), and the thread that fixed it */
	int *slot_map, *slot_thread;
	bool absolute; /* the parameter's layout names the CTA's threads: its thread is the caller's, bases[u] + t */
} CallArg;
bool call_match(const CallArg *c, Mismatch *mm, int *base_lane, int *base_col);
void call_report(const CallArg *c, const Mismatch *mm, const char *callee, Loc loc);

/* The map of an apply as stated; NULL when the operands' shapes do not fit the instruction (*mm
   says why, as apply_match would). */
ApplyMap *apply_map_input(const ApplyInput *in, Mismatch *mm);
/* The map of an apply statement; NULL, after reporting why, when its operands do not fit. */
ApplyMap *apply_map(Stmt *s, View **operands, int noperands, ApplyCtx *ctx);

/* ---------------------------------------------------------------- draw.c */

/* tilec --draw WHAT: the SVG of an opcode's image, or of the apply at FILE:LINE, into svg; returns
   the exit status (2 for a bad opcode or argument, 1 for errors in the file). */
int draw_command(const char *what, List *include_dirs, const Arch *arch, Buf *svg);

/* ---------------------------------------------------------------- copy.c */

/* What a copy became: tcgen05 instructions (the apply they equal), or per-thread accesses. */
typedef struct CopyChoice {
	bool is_tc;      /* tmem <-> local: ctx is filled as by apply_lower */
	ApplyInput in;   /* the apply it equals: instruction and operand views */
	uint32_t imm;
} CopyChoice;

/* --explain: where the waits of the kernel's copies went (lower.c's walk recorded them). */
void copy_explain_waits(KernelIR *k);
/* Lowers copy(dst, src) [scope S] into out; reports and returns false when it cannot. */
bool copy_lower(Stmt *s, View *dst, View *src, ApplyCtx *ctx, List *out, CopyChoice *choice);

/* ---------------------------------------------------------------- copy_reduce.c */

/* copy(registers, src) reduce min|max(m): for each register slot k of m that some thread holds, the slots of the
   registers that hold its row, column by column (row_slots[k * ncols + j]), the same in every thread. */
typedef struct CopyReducePlan {
	RedOp op;
	Tensor *m, *regs;
	int nslots, ncols;
	int *row_slots;
	int *thread_of; /* the first thread found holding slot k of m, or -1: no thread holds it */
	int threads;
	/* held[k * threads + u]: bit 0, thread u holds an element of the view in slot k; bit 1, one of the tensor */
	unsigned char *held;
} CopyReducePlan;
/* The plan of statement s (a copy with reduce) whose destination is regs; reports and returns false. */
bool copy_reduce_plan(Stmt *s, View *regs, View *m, int threads, CopyReducePlan *plan);
/* Whether no thread of the warps that run the copy holds, in a slot of m the reduction writes (it writes them
   in every such thread), an element of m's tensor outside the view; reports and returns false. */
bool copy_reduce_threads(const CopyReducePlan *plan, Stmt *s, uint64_t warps);
/* Where the target has tcgen05.ld.red and every load the copy lowered into out (from index from) loads
   one whole row with a shape it has: those loads become tcgen05.ld.red into m, m's words join ctx->regs,
   and true. Otherwise nothing changes. */
bool copy_reduce_use_ld_red(const CopyReducePlan *plan, List *out, int from, ApplyCtx *ctx);
/* The min or max of slot k's row, folded column by column from the first (language.md section 13's min / max). */
IExpr *copy_reduce_value(const CopyReducePlan *plan, int k);

/* ---------------------------------------------------------------- mbarcheck.c */

/* The static checks of mbarrier pipelines (LANGUAGE 11.3, docs/mbarrier.md "Rings"): lowering records each
 * statement it emits in a kernel with mbarriers (with the warps that run it and their number, -1 where not
 * known), the run-time loops around them and the copies' completed bytes; mbarcheck_end checks, once
 * lowering has filled the statements in, the parity of each wait of a ring against the phase it guards,
 * the bytes of each phase, and the tiles read before their data or written before their release. */
typedef struct MbarCheck MbarCheck;
MbarCheck *mbarcheck_begin(KernelIR *k);
void mbarcheck_stmt(MbarCheck *c, const LStmt *l, uint64_t warps, int threads);
void mbarcheck_loop_begin(MbarCheck *c, const LStmt *loop, uint64_t warps);
void mbarcheck_loop_end(MbarCheck *c);
void mbarcheck_complete_tx(MbarCheck *c, const Tensor *bar, const IExpr *index, int64_t bytes, const Tensor *data,
                           uint64_t warps, Loc loc);
void mbarcheck_end(MbarCheck *c);

/* ---------------------------------------------------------------- protocol.c */

/* The protocol checks (TCGEN05.md section 5: waits, fences, allocation, relinquish, use after dealloc, warp
 * uniformity) over a kernel's lowered statements, in program order. Protocol is the state at one point: the
 * warps that may be there and what they may have pending; lowering calls one function per statement, and
 * the fork functions where control flow splits and joins. Facts carry the warps whose path they hold on. */
typedef struct Protocol Protocol;
typedef struct ProtoFork ProtoFork;

/* Every warp of the kernel, nothing pending; unchecked_waits: a warp's own missing wait is a warning */
Protocol *protocol_begin(KernelIR *k, bool unchecked_waits);
/* The end of the kernel: allocations not freed on every path, a missing relinquish. */
void protocol_end(Protocol *p, const char *kernel, Loc name_loc);

uint64_t protocol_warps(const Protocol *p); /* the warps that may execute the current statement */
int protocol_fixed_warp(const Protocol *p); /* the one warp, when only one can; else -1 */
bool protocol_varying(const Protocol *p);   /* inside control flow that may split a warp */
bool protocol_split(const Protocol *p);     /* inside control flow that some threads of the CTA may skip */
/* whether every thread of the warps that may run the statement runs it when one does (no warp split, no
   condition tilec could not evaluate per thread) */
bool protocol_whole_warps(const Protocol *p);

/* An if sends each warp down the side(s) its condition takes: protocol_if enters the then side,
 * protocol_else (also without an else) the else side, protocol_join merges both. A loop's body may run
 * zero times: protocol_loop, the body, protocol_join. varying: the bounds differ between lanes; repeats:
 * it may run more than once; runs: it runs at least once (for i in 0..2 { wait } waits on every path). */
ProtoFork *protocol_if(Protocol *p, const IExpr *cond, Loc cond_loc);
void protocol_else(Protocol *p, ProtoFork *f);
ProtoFork *protocol_loop(Protocol *p, bool varying, const IExpr *lo, const IExpr *hi, Loc bounds_loc, bool repeats,
                         bool runs);
void protocol_join(Protocol *p, ProtoFork *f);

/* Reports each read in e of a register a tcgen05.ld may still be writing. */
void protocol_read(Protocol *p, const IExpr *e, Loc loc);
void protocol_reg_write(Protocol *p, const Tensor *t, int slot, Loc loc);
bool protocol_pending_load(Protocol *p, const Tensor *t, int word); /* in the current warps */
/* .sync.aligned work (what: "apply" or the opcode) outside control flow that may split a warp. */
bool protocol_uniform(Protocol *p, Loc loc, const char *what);
/* A warp collective (shfl_xor, warp_sum, ...) at loc: outside control flow that may split a warp, in no warp
   of fewer than 32 threads; else an error naming what, and false. */
bool protocol_warp_collective(Protocol *p, Loc loc, const char *what);
/* false, reported: its memory is freed (used: the name written, t's or a view's) */
bool protocol_alive(Protocol *p, const Tensor *t, const char *used, Loc loc);
/* The ordering rules for one checked apply (ctx as apply_lower filled it), then its effect. auto_wait: a
   copy's, whose waits tilec places (protocol_take_wait) instead of reporting them missing. */
void protocol_apply(Protocol *p, Loc loc, const ApplyCtx *ctx, bool auto_wait);
/* A wait that a copy owes, placed by the protocol (which has applied its effect) and written by lowering:
   TC_WAIT_LD or TC_WAIT_ST, before the statement at loc, or with before_split before the outermost open
   if or loop that may split a warp. protocol_read, protocol_reg_write, protocol_apply, protocol_instr,
   protocol_cta_sync and protocol_complete_copies may place waits; lowering takes them, in order, after
   each call. */
typedef struct ProtoWait {
	TcKind kind;
	Loc loc;
	bool before_split;
} ProtoWait;
bool protocol_take_wait(Protocol *p, ProtoWait *out); /* the next wait placed, false when none is left */
void protocol_waits_taken(const Protocol *p);         /* an internal error unless every wait was taken */
/* Places the waits for what copies of the current warps still have outstanding: effects EFF_COMPLETES_LOADS
   and / or EFF_COMPLETES_STORES (loc: the statement they go before, or the end of the kernel). */
void protocol_complete_copies(Protocol *p, int effects, Loc loc);
/* writes_follow: a store or dealloc may follow, so the loads of copies complete before the barrier too. */
void protocol_cta_sync(Protocol *p, Loc loc, bool writes_follow);
/* bar_sync / bar_arrive(id, threads): counts the warps that reach it; a bar_sync orders their tcgen05 accesses. */
/* arrivals: a bar_arrive of the kernel may use the same id (then a bar_sync orders nothing) */
void protocol_named_bar(Protocol *p, Loc loc, int id, int threads, bool arrive, bool writes_follow, bool arrivals);
/* mbarriers and commit (LANGUAGE 11.3). The cta_group of the kernel's tcgen05 instructions so far (1 when
   none named one). An asynchronous tcgen05 instruction (cp, mma: a row that completes at commit) is
   registered by protocol_async_issue as pending for the issuing warps; protocol_commit attaches the current
   warps' uncommitted ones to the barrier bar[index]; protocol_mbar_wait completes those attached to it. */
int protocol_cta_group(const Protocol *p);
void protocol_async_issue(Protocol *p, const IsaInstr *in, const TmemRect *rect, Loc loc);
void protocol_commit(Protocol *p, const Tensor *bar, const IExpr *index, Loc loc);
/* The shared tensors the asynchronous instruction registered last reads (an mma's A and B) and the tile of
   each in its stack (0 unstacked, -1 chosen at run time), which threads may store to again only once its
   commit's barrier has been waited (LANGUAGE 11.6). */
void protocol_async_reads(Protocol *p, const Tensor *a, int a_stage, const Tensor *b, int b_stage);
/* A threads' store to tile `stage` of shared tensor t (-1: not known) at loc: an error naming both lines where
   an mma reading that tile is not yet known complete (reported once per mma); a tile chosen at run time on
   either side is not decided. */
bool protocol_shared_store(Protocol *p, const Tensor *t, int stage, Loc loc);
/* A loop whose body is lowered once (run-time bounds): the marks before its body, and after it whether a store
   of the body to a tile that an mma of the body reads comes, in the next trip, before the mma completed (an
   error naming both lines otherwise). */
void protocol_loop_marks(const Protocol *p, int *async, int *stores);
bool protocol_loop_next_trip(Protocol *p, int async_mark, int store_mark, Loc loop);
/* protocol_mbar_wait: true when the wait completes TMEM writes (cp), after which tcgen05.fence::after_thread_sync goes. */
bool protocol_mbar_wait(Protocol *p, const Tensor *bar, const IExpr *index);
/* A copy (a TMA load) completing bytes on bar[index] in the phase current where lowering issues it, writing
   the shared tensor data (NULL: none that threads read): the bytes that mbarrier.expect_tx (the written
   statement, or the copy's own) announced for that phase (mbarcheck.c). Every statement that completes
   bytes on a barrier calls it where it is lowered: without it, mbarcheck.c takes the bytes a phase
   expects for bytes that never come. */
void protocol_mbar_complete_tx(Protocol *p, const Tensor *bar, const IExpr *index, int64_t bytes, const Tensor *data,
                               Loc loc);
/* The kernel's mbarrier pipeline checks (mbarcheck.c), which protocol_begin starts. */
MbarCheck *protocol_mbarcheck(Protocol *p);
/* Whether a cp may write the cells of r: no earlier cp over them is pending for r's warp (else an error at loc). */
bool protocol_async_free(Protocol *p, const TmemRect *r, Loc loc);
/* The scale factors (cells r, named role) an mma reads are complete: written by a cp of the issuing thread or
   waited (LANGUAGE 11.6); false after an error naming both lines. */
bool protocol_scales_ready(Protocol *p, const TmemRect *r, const char *role, Loc loc);
/* The mma just issued reads scale factors in cells r: a later cp over them before a wait on its commit is an
   error (async_written). */
void protocol_async_scale_reads(Protocol *p, const TmemRect *rect, Loc loc);
/* Whether a cp may write the cells of r: no st or ld of the current warps over them is pending (a copy's
   gets its wait placed; else an error at loc). */
bool protocol_cp_cells_free(Protocol *p, const TmemRect *r, Loc loc);
/* An mma with A from TMEM (LANGUAGE 11.6, 11.8): r, the cells it reads (warp: the issuing one), are complete:
   st waited (a copy's wait placed) and, from other warps, followed by a barrier; no cp of another thread or
   mma writing them pending. False after an error at loc naming both lines. */
bool protocol_mma_a_ready(Protocol *p, const TmemRect *r, Loc loc);
/* The asynchronous instruction registered last (an mma) reads A from the cells of r. */
void protocol_async_reads_tmem(Protocol *p, const TmemRect *r);
/* Whether `writer` (a st, cp or mma's D) may write the cells of r: no mma reading them as A is pending (its
   commit's barrier not waited); else an error at loc naming both lines. */
bool protocol_async_reads_free(Protocol *p, const TmemRect *r, const char *writer, Loc loc);
/* Whether asynchronous work of the current warps has not been seen complete; *issued_at: the first such. */
bool protocol_async_pending(const Protocol *p, Loc *issued_at);
/* A device function's contract (LANGUAGE.md 10.3): no tcgen05.ld or st of the current warps pending at
   loc; reports the first one (where: "at the call of 'f'", "at the return of 'f'"). */
bool protocol_settled(Protocol *p, Loc loc, const char *where);
/* tilec run --unchecked-waits: a warp's own tcgen05.ld or st not waited for where the rules need it is a
   warning (-Wunchecked-wait), so that the emulator shows what the program does (docs/emulator.md). */
/* The allocation whose slot addr reads, and the column and lane offset addr adds; NULL when unknown. */
AllocInfo *protocol_find_alloc(Protocol *p, const IExpr *addr, int *col_offset, int *lane_offset);
/* The allocation a tmem tensor declared at addr (written src) is in; NULL, with an error unless quiet, when
   the address has no form tilec follows or no alloc filled its slot. */
AllocInfo *protocol_at_alloc(Protocol *p, const IExpr *addr, const Expr *src, const char *name, bool quiet,
                             int *col_offset, int *lane_offset);

/* The operands of a tcgen05 instruction other than ld / st, as lowering found them. */
typedef struct TcOperands {
	const IExpr *addr;  /* the address operand as written (alloc: the slot's IE_SADDR); NULL when none */
	Loc addr_loc, ncols_loc;
	bool ncols_ok;      /* the column count is valid (l->ncols is 0 otherwise) */
	bool allocs_known;  /* no earlier error skipped code that may allocate: a dealloc with none is an error */
} TcOperands;

/* Before its operands: warp uniformity, one cta_group per kernel. False: drop the instruction; *uniform:
 * whether the uniformity check passed. */
bool protocol_instr_enter(Protocol *p, const IsaInstr *in, int cta_group, const char *opcode, Loc loc, Loc opcode_loc,
                          bool *uniform);
/* Its checks and its effect (isa.c's row); false when it is not to be emitted. */
bool protocol_instr(Protocol *p, const IsaInstr *in, const LStmt *l, bool uniform, const TcOperands *ops);

/* ---------------------------------------------------------------- vectorize.c */

/* The code passes of this file (pipeline.c runs them in this order): */
/* Drops the register stores that no warp that runs them reads before the word is written again. */
void drop_dead_stores(KernelIR *k);
/* Gives each warp only the words of a local tensor that its branches on the warp index use. */
void per_warp_registers(KernelIR *k);
/* Joins the unrolled iterations that declare nothing to their list, consecutive branches on the warp index
 * into one chain, and makes a chain whose arms differ only by the warp one code for every warp. */
void join_dispatches(KernelIR *k);
/* Marks the runs of statements that one 4-, 8- or 16-byte access can do (LStmt.vec): consecutive
 * elements of one global or shared tensor, aligned (global tensors are taken 16-byte aligned); a copy's
 * accesses at the tensor's edge become branches. */
void vectorize_accesses(KernelIR *k);
/* The element load or register read that value is, when storing it as type t only moves its bits. */
const IExpr *moved_bits(EType t, const IExpr *value);
/* The element load that value is or converts (through conversions only); NULL when none. */
const IExpr *vector_load(const IExpr *value);
/* Whether an L_REG_STORE or L_STORE of a vector access converts its elements one by one between the
 * access's 32-bit words and its values (a load into registers of a value of the loaded element, a
 * store of computed values), rather than moving whole register words as they are. */
bool vector_converts(const LStmt *s);
/* Of a stmatrix / ldmatrix statement (LStmt.matrix): its shared tile, register tensor and first register word. */
const Tensor *matrix_operands(const LStmt *s, const Tensor **reg, int *word);
/* The value that storing value as an element of type t rounds to f16 or bf16 (the emitters' stored_bits);
 * NULL when t is no 16-bit float, or the bits are only moved (moved_bits) or a constant's. */
const IExpr *rounded_half(EType t, const IExpr *value);
/* Whether list[i] and list[i + 1] are register stores of two f16 or bf16 rounded from values into the
 * low and the high half of one register word, the second value not reading that word: the emitters
 * write the word with one cvt.rn.f16x2.f32 (bf16x2), the same rounding as two conversions. in_vector:
 * both are elements of one converting vector load (the first may carry its LStmt.vec), else neither
 * is a vector access. */
bool paired_halves(const List *list, int i, bool in_vector);
/* Whether cond is warp_id == K (through lets), and K. */
bool ie_warp_test(const IExpr *cond, int64_t *k);

/* ---------------------------------------------------------------- slots.c */

/* A shared slot that the kernel's one alloc into it (outside loops) fills and nothing else writes, and
 * the first cta_sync after that alloc in the kernel's straight-line part, which publishes it (NULL:
 * none). After it, every thread may read the slot once and keep its value: a TMEM base address. */
typedef struct TmemSlot {
	const Tensor *t;
	int64_t index;
	const IExpr *index_e;
	const LStmt *publish;
} TmemSlot;
/* The kernel's slots (at most max; none in a block of a partial warp), in the order of their allocs. */
int tmem_slots(const KernelIR *k, TmemSlot *out, int max);

/* ---------------------------------------------------------------- targets (emit_cu.c, emit_emu.c, emit_ptx.c, ir.c) */

/* tilec run's race detection (docs/emulator.md): the emu target passes every element access of a global or
   shared tensor through tl_emu_race with the number of its site in EmuRace.sites (one per statement and
   tensor) and of its tensor in EmuRace.tensors. */
typedef struct EmuSite {
	Loc loc;
	const Tensor *tensor;
} EmuSite;
typedef struct EmuRace {
	List sites;   /* EmuSite* */
	List tensors; /* Tensor*: one per C name */
} EmuRace;
/* tilec run's poison tracking (docs/emulator.md, "Poison"): the emu target keeps a shadow of which register
   elements the program wrote and passes every register read through tl_emu_chk with the number of its site
   in EmuPoison.sites (one per statement, register tensor and verb: "reads", or "stores" for a tcgen05.st). */
typedef struct EmuPoisonSite {
	Loc loc;
	const Tensor *tensor;
	const char *verb;
} EmuPoisonSite;
typedef struct EmuPoison {
	List sites; /* EmuPoisonSite* */
} EmuPoison;

/* What the driver or tilec run tells an emitter besides the program. */
typedef struct TargetOptions {
	const char *arch;  /* the -arch the output is for */
	EmuRace *race;     /* the emu target for tilec run: race detection; NULL: none (and in every other target) */
	EmuPoison *poison; /* the emu target for tilec run: poison tracking; NULL: none */
} TargetOptions;

/* The emitters, each a row of pipeline.c's target table: each writes the whole program into out and
   returns true, or false after an error that says why (nothing to write). */
bool emit_cuda(Program *p, const TargetOptions *opt, Buf *out);    /* CUDA C for the -arch GPU (emit_cu.c) */
bool emit_cuh(Program *p, const TargetOptions *opt, Buf *out);     /* its device functions as a header */
bool emit_emu(Program *p, const TargetOptions *opt, Buf *out);     /* CUDA C with tensor memory emulated, for
                                                                      sm_80+ and the CPU (emit_emu.c) */
bool emit_emu_cuh(Program *p, const TargetOptions *opt, Buf *out); /* the same as a header */
bool emit_ptx(Program *p, const TargetOptions *opt, Buf *out);     /* PTX (emit_ptx.c; docs/ptx.md) */
bool emit_ir(Program *p, const TargetOptions *opt, Buf *out);      /* the lowered program as text (ir.c) */
/* Errors for what the emulator cannot run (cta_group::2); true if there was one. */
bool emu_refuses(const Program *p);
/* "file.tile:LINE" as the emulator's messages (and the where of each emulated instruction) name a place */
const char *emu_where(Loc loc);
/* Whether a statement list declares a name, and so is a scope of its own in the output (ir.c). */
bool ir_declares(const List *body);

/* ---------------------------------------------------------------- emit_cu.c: CUDA C of both CUDA C targets */

typedef struct CuWriter CuWriter;

/* What a CUDA C target changes in emit_cu.c's output: NULL hooks write nothing of their own. */
typedef struct CuDialect {
	const char *shared_addr; /* the function that turns &shared[i] into a shared-window address */
	bool placed_fences;      /* write the fences tilec places around cta_sync (L_FENCE) */
	const char *named_bar;   /* the function prefix of bar_sync / bar_arrive (_sync, _arrive); NULL: inline PTX */
	bool vector;             /* one vector access for the runs vectorize.c marks (LStmt.vec) */
	bool tma_maps;           /* a kernel's TMA tensor maps as __grid_constant__ CUtensorMap parameters after the others */
	const char *tma_maps_if; /* the #if condition that holds those parameters and tilec_tma_<kernel>; NULL: none */
	bool clusters;           /* __cluster_dims__ and tilec_cluster_<kernel> for a kernel that declares a cluster */
	bool devices;            /* device functions as C functions, and calls of them as C calls */
	bool f2i;                /* float to integer through tl_emu_f2s32 / tl_emu_f2u32, which saturate as cvt.rzi */
	bool approx_math;        /* the functions of 10.2 as the GPU's own code builds them (MathGen.approx) */
	const char *fneg;        /* the function an f32 negation calls (the GPU's gives NaN as 0x7fffffff); NULL: C's - */
	void (*tc)(CuWriter *w, const LStmt *s); /* one tcgen05 instruction */
	void (*mbar)(CuWriter *w, const LStmt *s); /* an L_MBAR statement; NULL: inline PTX */
	void (*tma)(CuWriter *w, const LStmt *s);  /* an L_TMA statement; NULL: inline PTX with the kernel's tensor maps */
	void (*shared)(CuWriter *w, const LStmt *s); /* a kernel's L_SHARED declaration; NULL: a static __shared__ array */
	/* the text of a read of register word for element slot (-1: the whole word), verb "read", "stored" or
	   "copied" (a move into another register); NULL: plain NAME[WORD] */
	const char *(*reg)(CuWriter *w, const Tensor *t, int word, int slot, const char *verb);
	void (*reg_written)(CuWriter *w, const Tensor *t, int word, int slot); /* before a store of element slot */
	void (*reg_copied)(CuWriter *w, const RegRef *dst, const RegRef *src); /* after a register word's move */
	/* inside the brackets of a global or shared element access: its offset index (with cu_expr), and what
	   the target checks or records of it (coords: NULL where the lowering gave none; view_at: the view's
	   indices, NULL when none; write: a store) */
	void (*global_access)(CuWriter *w, const Tensor *t, IExpr *const *coords, const ViewAt *view_at,
	                      const IExpr *index, bool write);
	/* an integer / % << >>: writes the operation and returns true, or false for C's operator */
	bool (*int_op)(CuWriter *w, const IExpr *e);
	void (*regs_declared)(CuWriter *w, const Tensor *t);         /* after a local tensor's declaration */
	void (*kernel_begin)(CuWriter *w, KernelIR *k); /* before the kernel's signature */
	void (*body_begin)(CuWriter *w, KernelIR *k);
	void (*body_end)(CuWriter *w, KernelIR *k);
	void (*kernel_end)(CuWriter *w, KernelIR *k);   /* after its launch configuration */
	void (*device_begin)(CuWriter *w, KernelIR *k); /* at the start of a device function's body */
	/* the start of the file, before the helpers of 10.2 and the body (every kernel); guard: the include
	 * guard it opens (--emit=cuh; NULL otherwise), which cu_write closes at the end */
	void (*file)(CuWriter *w, Program *p, const char *arch, const char *guard, Buf *out);
} CuDialect;

/* The writer's state, which the hooks read and write. */
struct CuWriter {
	const CuDialect *d;
	const TargetOptions *opt;
	Buf *out;
	KernelIR *k;
	int indent;
	bool f2h, h2f, f2bf, bf2f; /* the conversion helpers the body uses */
	bool minifloat;            /* the body converts 8-bit and narrower floats: the file carries their helpers */
	unsigned helpers;          /* bit per helper of emit_cu.c's table the body calls */
	bool collectives;          /* the body calls a warp collective (the emulator adds their CPU versions) */
	unsigned funcs;            /* bit per Func built by mathfn.c that the body calls */
	List pending;  /* RegRef*: registers loaded since the last wait for loads */
	List in_scope; /* Tensor*: local tensors whose registers are declared here */
	const LStmt *cur; /* the statement being written */
	List read_names;  /* const char*: the variables and tensors the kernel's code reads */
	bool header;      /* --emit=cuh: the device functions only, for #include */
};

/* In a header, a definition that several headers may make: #ifndef TILEC_HELPER_name ... #endif. */
void cu_guard_begin(CuWriter *w, Buf *out, const char *name);
void cu_guard_end(CuWriter *w, Buf *out);
/* runtime/tilec_minifloat.h in the output (guarded in a header, its functions with qualifiers) when a
   tensor of the program has one of its types */
void cu_minifloat_helpers(CuWriter *w, Buf *out, const char *qualifiers);
/* Writes the program as CUDA C in dialect d; header: the device functions only (--emit=cuh). */
bool cu_write(Program *p, const TargetOptions *opt, const CuDialect *d, bool header, Buf *out);
void cu_line_start(CuWriter *w);
void cu_expr(CuWriter *w, const IExpr *e); /* an expression in a position without parentheses of its own */
void cu_tma_asm(CuWriter *w, const LStmt *s); /* an L_TMA statement as the cuda target's inline PTX */

/* ---------------------------------------------------------------- ptx_opt.c: PTX instruction records

   emit_ptx.c makes a kernel's instructions as records: flags, a guard, the opcode with its type
   suffixes and the operands, each a row of pieces; the first operand holds the destinations unless
   it is a memory operand. The flags say what an instruction does, as the code that makes it knows:
   no pass reads the opcode's text. ptx_opt.c holds the passes over the records (pure()'s CSE keys,
   loop-invariant motion) and prints their text once, when the kernel is complete. */

typedef enum OKind {
	O_NONE,
	O_R,    /* %rN: .b32, an i32 or u32 value */
	O_F,    /* %fN: .f32 */
	O_H,    /* %hN: .b16, f16 / bf16 bits */
	O_P,    /* %pN: .pred */
	O_D,    /* %rdN: .b64 */
	O_IMM,  /* integer immediate v */
	O_FIMM, /* f32 immediate, bits in v */
	O_WORD  /* register word n of local tensor t */
} OKind;

typedef struct Opnd {
	OKind k;
	int n;
	int64_t v;
	const Tensor *t;
	bool mut; /* a register that is assigned again later (a var, a tensor word) */
} Opnd;

/* A memory operand: [base+off] or [sym+off]. */
typedef struct Addr {
	Opnd base;
	const char *sym;
	int64_t off;
} Addr;

enum {
	PF_PURE = 1,   /* its destination is a function of its operands alone (pure()) */
	PF_LOAD = 2,   /* reads global or shared memory */
	PF_STORE = 4,  /* writes memory */
	PF_SYNC = 8,   /* collective: a barrier, or .sync(.aligned) across the warp */
	PF_SIDE = 16,  /* an effect beyond its destination registers */
	PF_BRANCH = 32 /* a branch or the return */
};

typedef enum PtxPieceKind {
	PC_TEXT,  /* fixed text */
	PC_OPND,  /* an operand register or immediate */
	PC_DEST,  /* the destination of a pure instruction (PtxRec.dest; '#' in its CSE key) */
	PC_ADDR,  /* a memory operand */
	PC_INT,   /* an integer */
	PC_COMMA  /* the ", " between two operands */
} PtxPieceKind;

typedef struct PtxPiece {
	PtxPieceKind k;
	unsigned version; /* PC_OPND of a var's register: its assignment count (CSE keys) */
	union {
		const char *text; /* PC_TEXT */
		Opnd o;           /* PC_OPND */
		Addr a;           /* PC_ADDR */
		int64_t i;        /* PC_INT */
	};
} PtxPiece;

typedef enum PtxRecKind { RK_INSTR, RK_LABEL, RK_COMMENT } PtxRecKind;

typedef struct PtxRec {
	PtxRecKind kind;
	unsigned flags;
	Opnd guard;          /* the predicate of @guard / @!guard; O_NONE: none */
	bool negated;
	bool first_memory;   /* the first operand is a memory operand: the instruction writes no register there */
	const char *opcode;  /* RK_COMMENT: the text after "// ", as it is */
	const char *text;    /* RK_COMMENT: text after that, bytes that are not printable ASCII shown as '?' */
	Opnd dest;           /* PC_DEST; RK_COMMENT: a register shown at its end (O_NONE: none) */
	PtxPiece *pc;
	int npc;
	int label;           /* RK_LABEL: its number */
} PtxRec;

/* Registers %r, %f, %h, %p, %rd as one index space (a table over a kernel's registers). */
size_t ptx_reg_index(OKind k, int n);
void ptx_put_int(Buf *b, int64_t v);
void ptx_put_word(Buf *b, const Tensor *t, int w);  /* %NAME_W: word w of a local tensor */
/* An instruction's text without its tab and newline; with key, as the CSE key of a pure
 * instruction: '#' for the destination, a var's register with its assignment count. Returns
 * whether an operand is a register assigned more than once (a tensor word, a var's register when
 * not key), which makes a key useless. */
bool ptx_put_instr(Buf *b, const PtxRec *r, bool key);
/* The records of kernel number ki as PTX text. */
void ptx_print(Buf *b, const PtxRec *recs, size_t n, int ki);
/* Loop-invariant code motion over recs[top, end), a loop from its first label to its end label:
 * pure_dest (pure_cap entries, by ptx_reg_index) marks the registers that pure instructions write;
 * nregs is ptx_reg_index's bound for every register of the kernel so far. */
void ptx_loop_invariants(PtxRec *recs, size_t top, size_t end, const unsigned char *pure_dest, size_t pure_cap,
                         size_t nregs);
/* Packs two independent f32 add, sub, mul or fma operations of straight-line code into one .f32x2
 * operation (sm_100, sm_103: Arch.f32x2): replaces *recs (n records) by a new array, counts the
 * 64-bit registers it adds in *nd, returns the new number of records. */
size_t ptx_pack_f32x2(PtxRec **recs, size_t n, int *nd);

/* ---------------------------------------------------------------- minifloat.c */
/* The 8-bit and narrower floats of runtime/tilec_minifloat.h: whether t is one; its byte from f32 (to nearest
 * even, saturated) and its f32 value from a byte; the names of the runtime functions that do the same
 * (tl_to_e4m3, tl_from_e4m3); the header's text, which an output that uses them carries. */
bool etype_is_minifloat(EType t);
/* A format of tl_mf_encode / tl_mf_decode (all but ue8m0): the arguments runtime/tilec_minifloat.h's wrappers
 * pass, which the PTX route's arithmetic also takes; minifloat_encode_table converts with them. */
typedef struct MiniFormat {
	unsigned ebits, mbits;
	int bias;
	unsigned has_sign, maxmag, nan_kind, place;
} MiniFormat;
const MiniFormat *minifloat_format(EType t);
uint8_t minifloat_encode_table(EType t, float x);
float minifloat_decode_table(EType t, uint8_t byte);
uint8_t minifloat_encode(EType t, float x);
float minifloat_decode(EType t, uint8_t byte);
double minifloat_round(EType t, double v);
const char *minifloat_to_func(EType t);
const char *minifloat_from_func(EType t);
bool minifloat_storage_ok(EType t, TensorKind kind, bool scalar, const char *name, Loc loc);
void minifloat_run_fill(Buf *b, int slot, EType t); /* tilec run: finite inputs */
extern const char minifloat_source[]; /* runtime/tilec_minifloat.h's text (emit_cu.c writes it) */

/* ---------------------------------------------------------------- mathfn.c */

/* The operations a function of 10.2 is built from; each is exact IEEE (fma, +, -, *, / and rint round
 * to nearest even) or integer arithmetic, so that every rendering computes the same bits, except
 * MO_EX2, which only a MathGen with approx set is given. */
typedef enum MOp {
	MO_FMA, MO_MUL, MO_ADD, MO_SUB, MO_DIV, MO_RINT, /* f32 */
	MO_F2I,   /* f32 -> i32, to nearest even, saturating, NaN -> 0 (cvt.rni.s32.f32) */
	MO_I2F,   /* i32 -> f32 */
	MO_ASINT, MO_ASFLT, /* the same 32 bits as i32 / as f32 */
	MO_IADD, MO_ISUB, MO_IAND, MO_IOR, MO_IXOR, MO_SHL, MO_SHRA, /* i32; shift counts are constants */
	MO_FLT, MO_FNAN, MO_INE0, /* predicates: a < b, a is NaN, a != 0 (i32) */
	MO_SEL,   /* a ? b : c, a a predicate */
	MO_EX2,   /* 2^a by the GPU's ex2.approx.ftz.f32 (CUDA gives exp2f, this instruction, 2 ulps) */
	MO_FABS,  /* |a| as a float operation (the GPU folds it into its users' operands) */
	MO_RCP,   /* 1/a by rcp.approx.ftz.f32, and MO_RSQ 1/sqrt(a) by rsqrt.approx.ftz.f32: approx only */
	MO_RSQ,
	MO_SQRT   /* sqrt.rn */
} MOp;

typedef enum MathKind { MK_F32, MK_I32, MK_PRED } MathKind;

/* A renderer: each call makes a new value and returns its handle; -1 is an absent operand. */
typedef struct MathGen MathGen;
struct MathGen {
	int (*op)(MathGen *g, MOp op, int a, int b, int c);
	int (*kf)(MathGen *g, float v);
	int (*ki)(MathGen *g, int32_t v);
	/* the GPU's own code, where a function may differ from the emulator's by up to 2 ulps (LANGUAGE.md
	 * 10.2): erf is then built around MO_EX2; false: the exact sequences of the emulator */
	bool approx;
};

bool math_is_built(Func fn); /* exp exp2 log log2 tanh erf sin cos */
bool math_has_approx(Func fn); /* built otherwise for the GPU's own code (MathGen.approx): erf, the *_approx */
/* How far the GPU's own code of fn may be from the emulator's ("2 ulps"); NULL where they are the same bits. */
const char *math_gpu_difference(Func fn);
/* fn as --fast-math has it: exp_approx for exp, exp2_approx for exp2, fn itself otherwise. */
Func math_fast_func(Func fn);
/* Builds fn of the f32 value x through g; returns the result's handle. */
int math_build(MathGen *g, Func fn, int x);
MathKind math_result_kind(MOp op, MathKind b_kind);
/* fn(x) computed by interpreting the same operations. */
float math_eval(Func fn, float x);
/* fn(x) as the GPU's own code computes it (approx set), each MO_EX2, MO_RCP or MO_RSQ result the true
 * value times (1 + ex2_error) rounded to f32, so that a test can take the instruction's error to either side. */
float math_eval_gpu(Func fn, float x, double ex2_error);

/* ---------------------------------------------------------------- launch.c */

/* The grid program of k (runtime/tilert.h, TILERT_GP_*) into out[0 .. max); returns its length in words. */
int grid_program(KernelIR *k, uint32_t *out, int max);
/* The values on libtilert's stack at once while it evaluates e (it has room for TILERT_GP_STACK). */
int grid_depth(const IExpr *e);
/* Whether k's grid is computed at launch. */
bool grid_at_launch(const KernelIR *k);
/* The tensor maps of a kernel for libtilert (tilec_tma_<kernel>, runtime.md): the map count, the kernel's
   own parameter count (the maps' place in the launch's arguments), then per map the tensor's parameter
   index, rank, CUtensorMapDataType, swizzle, element bytes, five box dimensions, nine grid programs
   (TILERT_GP_*: five dimensions, four strides in elements, innermost first; an empty one beyond the
   rank) and the tensor's name (its length, then its bytes four to a word); the words
   needed (written up to max). */
int tma_program(KernelIR *k, uint32_t *out, int max);
/* The CUtensorMapDataType of an element type (cuda.h's numbering), or -1 where TMA has none tilec uses. */
int tma_dtype(EType t);
/* The `align N` promises of k's tensor parameters as libtilert checks them at launch (runtime/tilert.h,
 * tilec_align_<name>) into out[0 .. max); returns the length in words, 0 for none. */
int align_program(KernelIR *k, uint32_t *out, int max);
/* The comment line (with its newline) that states global tensor t's `align N` promise; "" without one. */
const char *align_promise_text(const Tensor *t);

/* ---------------------------------------------------------------- include.c */

/* Reads a file and, in place of each include, the file it names (each file once); the included paths
 * are appended to deps when it is not NULL. False after an error (reported). */
bool include_load(const char *path, List *include_dirs, List *items, List *deps);
/* A whole file ("-": stdin), malloc'd and NUL-terminated; NULL with errno set when it cannot be read. */
char *include_read_file(const char *path, size_t *len);
char *include_dir_of(const char *path); /* "." for a bare name */

/* ---------------------------------------------------------------- process.c */

/* Removes the registered temporary files and directories, and kills the running child, at exit and
 * on SIGINT, SIGTERM and SIGHUP (then dies of the signal). Called once at start. */
void process_install(void);
void process_temp_file(const char *path);
int process_mkstemp(char *path);
void process_temp_dir(const char *path);
void process_forget(const char *path); /* renamed into place or removed already */
/* Runs argv (argv[0] found in PATH unless it has a '/'): its exit status, -1 when it could not start,
 * 1000 + the signal when one killed it. */
int process_run(char *const argv[], bool stdout_to_stderr);
/* The same, killed by SIGALRM (status 1000 + SIGALRM) after seconds when not 0. */
int process_run_limited(char *const argv[], bool stdout_to_stderr, unsigned seconds);
/* The same, its stdout and stderr together appended to out. */
int process_output(char *const argv[], Buf *out);
/* A new private directory PREFIX-XXXXXX in $TMPDIR (in /tmp when $TMPDIR is unset or missing), registered
 * for removal; NULL with errno set. */
char *process_temp_mkdir(const char *prefix);

/* ---------------------------------------------------------------- run.c */

/* tilec run FILE.tile [--kernel NAME] [--seed S] [--expect OUT=IN]...: runs a kernel on the CPU emulator. */
int run_main(int argc, char **argv);

/* ---------------------------------------------------------------- pipeline.c */

/* A target: a row of pipeline.c's table. */
typedef struct Target {
	const char *name;  /* "cuda", "cuh", "emu", "emu-cuh", "ptx", "ir" */
	const char *ext;   /* the extension of the file its output is: ".cu", ".cuh", ".ptx", ".ir" */
	bool (*emit)(Program *p, const TargetOptions *opt, Buf *out);
	bool code_passes;  /* the code passes rewrite the program before emit */
	const char *tool;  /* the CUDA tool that builds .ptx / .cubin from its output; NULL: none can */
} Target;

/* The row of the table named name; NULL when there is none. */
const Target *target_named(const char *name);
/* The passes, in their order (pipeline.c lists them all). The front end: path parsed, with its includes
 * spliced in (deps: the included paths, when not NULL); false after an error. */
bool pipeline_read(const char *path, List *include_dirs, List *items, List *deps);
/* The TMEM plan, the checks, the lowering and the protocol analysis: the lowered program, or NULL after
 * an error, with the switches and --draw's observer of opt. */
Program *pipeline_lower(List *items, const char *source_name, const LowerOptions *opt);
/* The code passes over every kernel and device function, once per program. */
void pipeline_code_passes(Program *p);
/* The code passes where target runs them, then its emitter: false after an error that says why. */
bool pipeline_emit(Program *p, const Target *target, const TargetOptions *opt, Buf *out);

/* ---------------------------------------------------------------- driver.c */

int driver_main(int argc, char **argv);

/* ---------------------------------------------------------------- isa.c: tcgen05.ld / st shapes and images */

const char *shape_name(Shape s);
int shape_rows(Shape s);             /* lanes per access: 32 or 16 */
int shape_cols_per_rep(Shape s);     /* 32-bit columns per repetition */
int shape_max_n(Shape s);
int opcode_regs(const Opcode *op);   /* registers per thread */
int opcode_atom_cols(const Opcode *op); /* columns of the register/tmem operand's atom, in 32-bit words */
int opcode_tmem_cols(const Opcode *op); /* TMEM cells one access spans (doubled by pack) */
ImageCell image_cell(const Opcode *op, int lane, int reg);
/* Parses an apply opcode; on failure writes a one-line reason (naming the legal .xN when that is what is wrong). */
bool opcode_parse(const char *text, Opcode *out, char *why, size_t whylen);
void opcode_format(const Opcode *op, char *buf, size_t len); /* canonical PTX spelling */
/* Prints lane / register -> (row, column) for one opcode, the format of --print-image. */
void image_print(FILE *out, const Opcode *op);

/* ---------------------------------------------------------------- isa.c: tcgen05.cp forms and images */

/* A route of tcgen05.cp (TCGEN05.md 10.1): its shape with the multicast the shape needs. */
typedef enum CpRoute {
	CP_128X256B, CP_4X256B, CP_128X128B, CP_64X128B_02_13, CP_64X128B_01_23, CP_32X128B_WARPX4, CP_ROUTE_COUNT
} CpRoute;
/* Decompression of each 16-byte chunk (TCGEN05.md 10.4): none, 16 fp6 values, 16 fp4 values. */
typedef enum CpDecomp { CPD_NONE, CPD_B6X16_P32, CPD_B4X16_P64, CPD_COUNT } CpDecomp;
/* One of the 36 forms: route x decompression x cta_group (1 or 2). */
typedef struct CpForm {
	CpRoute route;
	CpDecomp decomp;
	int cta_group;
} CpForm;
/* The lanes of a route: source row r's replica k lands in lane (r / group) * group_step + (r % group) *
   row_step + k * replica_step from taddr's lane. */
typedef struct CpLaneRule {
	int group, group_step, row_step, replica_step;
} CpLaneRule;
/* A source chunk is 16 bytes, 4 words of 4; one row lands in at most 4 lanes (warpx4). */
enum { CP_CHUNK_BYTES = 16, CP_CHUNK_WORDS = 4, CP_MAX_REPLICAS = 4, CP_FORM_COUNT = 36 };

int cp_rows(CpRoute r);     /* source rows */
int cp_chunks(CpRoute r);   /* 16-byte chunks per row */
int cp_replicas(CpRoute r); /* lanes each row lands in */
int cp_tmem_cols(CpRoute r);
/* The image: row row's replica k lands in lane taddr's lane + cp_lane(...), and its chunk c, word w in
   column taddr's column + cp_col(c, w). The apply check, copy, --print-image and --draw read only these. */
int cp_lane(CpRoute r, int row, int replica);
const CpLaneRule *cp_lane_rule(CpRoute r); /* cp_lane's numbers, for the emulator's tl_cp_run */
int cp_col(int chunk, int word);
CpForm cp_form_at(int i); /* the forms in a fixed order, i < CP_FORM_COUNT */
/* Parses "tcgen05.cp.cta_group::N.SHAPE[.MULTICAST][.DECOMP]"; on failure a one-line reason. */
bool cp_form_parse(const char *text, CpForm *out, char *why, size_t whylen);
/* --print-image's and --draw's text as a cp form: false when it is no tcgen05.cp opcode; else true, with
   *status 0 and the form in *out, or 2 once the reason is reported. */
bool cp_form_of_option(const char *text, CpForm *out, int *status);
const char *cp_form_spelling(const CpForm *f); /* the PTX opcode, from the row's slots */
const char *cp_decomp_name(CpDecomp d);        /* "b8x16.b6x16_p32", ...; "" for none */
/* Prints row / chunk -> lanes, columns for one form, the format of --print-image. */
void cp_image_print(FILE *out, const CpForm *f);
/* One 16-byte source chunk as the form's decompression leaves it in TMEM (runtime/tilec_cp.h);
   b6_high places an fp6 value in bits 6..1 instead of 5..0 (the UNSETTLED switch of docs/cp.md). */
void cp_decompress_chunk(CpDecomp d, bool b6_high, const uint8_t in[CP_CHUNK_BYTES], uint8_t out[CP_CHUNK_BYTES]);
/* One cp of form f as the emulator runs it (runtime/tilec_cp.h's tl_cp_run with the route's numbers and
   the swizzle's of the descriptor's layout code): the source through the 64-bit descriptor desc, addresses
   into window, whose first byte is at absolute shared address base (the swizzle acts on those); the result
   in cells (lane-major, ncols columns a lane) from taddr. False, nothing written, for a descriptor it
   cannot walk or a footprint outside the cells. */
bool cp_run_cells(const CpForm *f, const uint8_t *window, uint32_t base, uint64_t desc, uint32_t taddr, bool b6_high,
                  uint32_t *cells, int ncols);

/* ---------------------------------------------------------------- cp.c: a tcgen05.cp checked element by element */

/* One element a cp moves, as its two operands place it: the bit of shared memory where its value starts
   (from the shared tensor's first byte; 8 x the byte offset, or the bit of a packed fp4 / fp6 value) and
   the TMEM places the tmem operand's layout gives it (one per replica), each as a lane and a byte
   column (4 x the 32-bit column + the byte in the cell), relative to the tmem tensor's base. */
typedef struct CpElem {
	uint32_t smem_bit;
	int nplaces;
	int lane[CP_MAX_REPLICAS], byte[CP_MAX_REPLICAS];
} CpElem;

/* What cp_match finds wrong, first match in this order. */
typedef enum CpFault {
	CP_FITS,
	CP_SIZE,        /* the elements do not fill the form's footprint: bytes (have) against the form's (want) */
	CP_DECOMP_SIZE, /* a decompressing form moves one-byte TMEM values: elem_bytes (have) is not 1 */
	CP_COLUMN,      /* the first TMEM column (have) is not a multiple of 4 */
	CP_LANES,       /* the footprint from lane (have) passes lane 127 */
	CP_REPLICAS,    /* elem has nplaces (have) TMEM places, the form writes each row to (want) lanes */
	CP_TMEM_PLACE,  /* place (replica) of elem is no cell of the image from the first lane and column */
	CP_TMEM_TWICE,  /* place (replica) of elem is the cell of elem other too */
	CP_SPLIT,       /* the places of elem are cells of different source bytes (rows, chunks) */
	CP_DESC,        /* no descriptor: its field (0 start, 1 LBO, 2 SBO) would be (have) bytes, not a multiple
	                   of 16 below 256 KiB */
	CP_SHARED,      /* the descriptor's walk reads elem's value at bit (want), its operand has it at (have) */
} CpFault;

typedef struct CpMismatch {
	CpFault fault;
	int elem, other, replica;
	int row, chunk, byte;    /* CP_SHARED, CP_SPLIT: the source row, chunk and byte of the element's place */
	int field;               /* CP_DESC */
	int64_t have, want;
} CpMismatch;

/* What a fitting cp issues: its TMEM address relative to the tmem tensor's base, and the descriptor
   of its source, its start relative to the shared tensor's first byte (the code adds that byte's address). */
typedef struct CpPlan {
	int lane0, col0;
	SmemDesc desc;
} CpPlan;

/* Checks the n elements of a cp of form f, each elem_bytes in TMEM (1, 2 or 4), against its image:
   every TMEM place one cell of the footprint from one first lane and column, every replica of a
   multicast there, and one descriptor (derived from the elements: K-major, the source's swizzle) whose
   walk reads each value where the shared operand has it. True and *plan, or false and *mm. */
bool cp_match(const CpForm *f, const CpElem *elems, int n, int elem_bytes, SmemSwizzle swizzle, CpPlan *plan,
              CpMismatch *mm);
/* The form of one cp that moves the n elements (copy's choice: a multicast where the tmem layout
   replicates rows), its plan in *plan; false when no form fits. */
bool cp_choose(const CpElem *elems, int n, int elem_bytes, SmemSwizzle swizzle, CpDecomp decomp, int cta_group,
               CpForm *form, CpPlan *plan);
/* The apply of a cp of form f: every element of the tmem view against the shared view's element at the
   same coordinates (cp_match), the footprint inside lanes 0..127 and the allocation; false after an error
   at loc. */
bool cp_apply_check(const CpForm *f, const View *tmem, const View *smem, Loc loc, CpPlan *plan);
/* copy(tmem_view, shared_view): the form and the cps (*count of them, each over the next run of elements) that
   move the views with the fewest instructions; false after an error naming the first element no form moves. */
bool cp_copy_choose(const View *tmem, const View *smem, Loc loc, CpForm *form, CpPlan **plans, int *count);

/* ---------------------------------------------------------------- tcgen05.mma (isa.c's kind table, mma.c) */

/* The kinds of tcgen05.mma that tilec issues, chosen from the operands' element types (LANGUAGE 11.6). */
/* The block-scaled kinds (scale_a, scale_b) follow the plain ones; MMA_MXF8F6F4 is the first. */
typedef enum MmaKind { MMA_F16, MMA_TF32, MMA_F8F6F4, MMA_MXF8F6F4, MMA_MXF4, MMA_MXF4NVF4, MMA_KIND_COUNT } MmaKind;

enum { MMA_MAX_TYPES = 5 };

/* One row of isa.c's kind table (TCGEN05.md 9 and 15): the A and B element types of the kind with the
   instruction descriptor's format code of each, the accumulator types, and the K one instruction reads. */
typedef struct MmaKindInfo {
	MmaKind kind;
	int ntypes;
	EType types[MMA_MAX_TYPES];
	int codes[MMA_MAX_TYPES]; /* bits [7,10) for A, [10,13) for B */
	int k_bytes;              /* bytes of K a row holds in one instruction: 32 for every kind */
	const char *types_text;   /* the A / B types in words, for an error */
} MmaKindInfo;

const MmaKindInfo *mma_kind_info(MmaKind k);
/* The kind whose A / B types hold t, or false. */
bool mma_kind_of(EType t, MmaKind *out);
/* The format code of t in kind k's descriptor (-1: not one of its types). */
int mma_type_code(MmaKind k, EType t);
/* The accumulator format code of d (bits [4,6): F16 0, F32 1), -1 for other types. */
int mma_d_code(EType d);
/* "tcgen05.mma.cta_group::N.kind::K" from the row's slots. */
const char *mma_spelling(int cta_group, MmaKind k);

/* An instruction's choices, read by the emitters: the descriptor and what the emulator decodes from it. */
typedef struct MmaInstr {
	MmaKind kind;
	EType atype, btype, dtype;
	int m, n, k;          /* k: the K of one instruction */
	bool a_mn, b_mn;      /* transposed: the operand's tile is MN-major */
	bool a_tmem;          /* A from TMEM (the ts form: [a_tmem] in place of A's descriptor) */
	uint32_t idesc;
	int step;             /* this instruction's K step (0: the first, which the operand fence precedes) */
	int scale_vec;        /* block-scaled kinds: scales per 32 bytes of K (1, 2 or 4: scale_vec::NX); 0 plain */
} MmaInstr;

/* The instruction descriptor's fields (TCGEN05.md 9): encoded by mma_idesc_encode, read back by
   mma_idesc_decode (--explain and the unit test). */
typedef struct MmaIdesc {
	int d_format, a_format, b_format;
	bool negate_a, negate_b, transpose_a, transpose_b;
	int n, m; /* the shape itself: N >> 3 in [17,23), M >> 4 in [24,29) */
	int max_shift;
} MmaIdesc;
uint32_t mma_idesc_encode(const MmaIdesc *d);
MmaIdesc mma_idesc_decode(uint32_t bits);
/* The fields of bits as "D format 1, A format 1, ..." (pool), for --explain and the docs. */
const char *mma_idesc_text(uint32_t bits);

/* Whether M x N is a legal shape of cta_group::1 (TCGEN05.md 9, the PTX ISA's shape table): false and
   an error at loc naming the field and its legal values. */
bool mma_shape_check(int m, int n, Loc loc);

/* One K step of a checked mma: the descriptors of its A and B (start relative to the shared tensor's
   first byte, which the code adds). */
typedef struct MmaStep {
	SmemDesc a, b;
	/* block-scaled: the step's instruction descriptor (its SFA_ID / SFB_ID) and the TMEM cell columns of its
	   scale factors relative to the scale tensors' bases (mma_scale_check) */
	uint32_t idesc;
	int sf_col[2];
} MmaStep;
/* mma(D, A, B): the views checked (types, kind, shape, D's datapath layout, each K step's descriptors
   element by element); false after an error at loc. *in the instruction, *steps (*nsteps of them), and
   D's first lane and column relative to its tmem tensor. cta_group 2: the pair mma (LANGUAGE 11.6), D and A
   this CTA's rows, B this CTA's half of B's rows; in->m and in->n are the pair's. */
bool mma_check(const View *d, const View *a, const View *b, Loc loc, MmaInstr *in, MmaStep **steps, int *nsteps,
               int *lane0, int *col0, int cta_group);
/* A in TMEM (after mma_check): its first lane and 32-bit column relative to its tmem tensor; false when A is
   in shared memory. */
bool mma_a_tmem_origin(const View *a, int *lane0, int *col0);

/* The instruction descriptor of the block-scaled kinds (TCGEN05.md 15, CUTLASS's block-scaled descriptor):
   [4,6) SFB_ID, [7,10) A format, [10,13) B format, 13/14 negate, 15/16 transpose, [17,23) N >> 3, 23 scale
   format (0 ue4m3, 1 ue8m0), [24,29) M >> 4, [29,31) SFA_ID, 31 K size (mxf4 kinds: 0 K = 64). No D format:
   D is f32. */
typedef struct MmaScaledIdesc {
	int a_format, b_format;
	bool negate_a, negate_b, transpose_a, transpose_b;
	int n, m;
	bool scale_ue8m0;
	int sfa_id, sfb_id; /* the byte of each TMEM cell where the step's first scale factor sits */
	int k_size;
} MmaScaledIdesc;
uint32_t mma_scaled_idesc_encode(const MmaScaledIdesc *d);
MmaScaledIdesc mma_scaled_idesc_decode(uint32_t bits);
const char *mma_scaled_idesc_text(uint32_t bits);
/* "tcgen05.mma.cta_group::N.kind::K.block_scale.scale_vec::VX" (isa.c). */
const char *mma_scaled_spelling(int cta_group, MmaKind k, int scale_vec);
/* The spelling of an mma instruction in, plain or block-scaled. */
const char *mma_instr_spelling(int cta_group, const MmaInstr *in);
/* scale_a = sfa, scale_b = sfb of a checked mma *in (nsteps K steps): the block-scaled kind from the types and
   the scale vector size, M, and each scale factor's TMEM place (TCGEN05.md 15: row r of a 128-row group in lane
   r % 32 of every 32-lane partition, cell column first + r / 32, the byte SFA_ID / SFB_ID + v of scale v of the
   step); *in and steps[] updated (kind, scale_vec, each step's idesc and scale columns); false after an error
   at loc naming the field and its legal values. */
bool mma_scale_check(const View *sfa, const View *sfb, int nsteps, Loc loc, MmaInstr *in, MmaStep *steps);

#endif
