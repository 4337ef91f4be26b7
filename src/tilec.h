/* tilec.h: the one internal header of tilec; types first, then prototypes grouped per source file. */
#ifndef TILEC_H
#define TILEC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	E_TUPLE    /* (a, b, ...): args; only where the grammar takes a tuple */
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

typedef struct Expr Expr;
struct Expr {
	ExprKind kind;
	Loc loc;
	Op op;
	Expr *a, *b;
	List args; /* Expr* */
	const char *name;
	uint32_t ival;
	bool usuffix;
	double fval;
	EType type;
	Builtin builtin;
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

typedef enum LayoutKind { LAY_STRIDED, LAY_DATAPATH, LAY_DEFAULT, LAY_NAME } LayoutKind;

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
	S_IF, S_FOR, S_APPLY, S_INSTR, S_CTA_SYNC, S_WARP_SYNC, S_BLOCK
} StmtKind;

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
	List body;        /* Stmt*: if-then, for, block */
	List else_body;   /* Stmt*: if; an else-if is one S_IF here */
	bool has_else;
	const char *opcode; /* apply, instr */
	Loc opcode_loc;
	List operands;    /* apply: ViewExpr*; instr: Expr* */
	ScopeKind scope;  /* apply */
	Expr *scope_arg;  /* apply: K of warp(K) / warpgroup(K), or NULL */
	Loc scope_loc;
	List named;       /* apply: NamedArg* after the scope */
};

typedef struct Param {
	const char *name;
	Loc loc;
	EType type;
	bool has_shape;
	List dims; /* Expr* */
} Param;

typedef struct Kernel {
	const char *name;
	Loc loc;
	Loc name_loc;
	List params; /* Param* */
	List launch; /* NamedArg*: name is "grid" or "block"; value may be an E_TUPLE */
	List body;   /* Stmt* */
} Kernel;

typedef enum ItemKind { I_INCLUDE, I_CONST, I_LAYOUT, I_KERNEL } ItemKind;

typedef struct Item {
	ItemKind kind;
	Loc loc;
	const char *name; /* const layout */
	Loc name_loc;
	Expr *value;      /* const */
	LayoutExpr *layout; /* layout */
	Kernel *kernel;   /* kernel */
	const char *path; /* include: the string's contents */
} Item;

/* ---------------------------------------------------------------- util.c */

void *pool_alloc(size_t size); /* zeroed; freed all at once by pool_free_all */
char *pool_strdup(const char *s);
char *pool_strndup(const char *s, size_t n);
char *pool_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pool_free_all(void);
void list_push(List *list, void *item);
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn)); /* internal error: exit 4 */

/* A growable byte buffer (malloc'd; free with buf_free). */
typedef struct Buf {
	char *data;
	size_t len, cap;
} Buf;
void buf_putc(Buf *b, char c);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_free(Buf *b);

const char *etype_name(EType t);
int etype_bits(EType t);
bool etype_is_float(EType t);
bool etype_is_signed(EType t);
const char *axis_name(Axis a);
bool axis_from_name(const char *name, Axis *out);

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
void diag_setup(void);     /* colour only when stderr is a terminal and NO_COLOR is unset */
void error(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warning(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
Loc loc_span(Loc a, Loc b); /* from the start of a to the end of b */
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

/* ---------------------------------------------------------------- ast.c */

void ast_dump(FILE *out, List *items);

/* ---------------------------------------------------------------- image.c */

/* The one table of tcgen05.ld / tcgen05.st images (TCGEN05.md sections 2 and 3). */
typedef enum Shape { SH_32X32B, SH_16X64B, SH_16X128B, SH_16X256B, SH_16X32BX2, SH_COUNT } Shape;

typedef struct Opcode {
	bool is_ld;  /* tcgen05.ld, else tcgen05.st */
	Shape shape;
	int n;       /* the .xN repetition */
	bool pack;   /* .pack::16b on ld, .unpack::16b on st */
} Opcode;

/* Where register r of lane l lands, relative to the instruction's address. */
typedef struct ImageCell {
	int row;    /* TMEM lane offset, 0..31 (32x32b) or 0..15 */
	int col;    /* 32-bit column offset (before packing doubles it) */
	int access; /* 16x32bx2: 0 at taddr, 1 at taddr + imm; otherwise 0 */
} ImageCell;

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

#endif
