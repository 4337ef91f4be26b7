/* parser.y: the bison grammar of .tile (LANGUAGE.md section 3); builds the AST of tilec.h in the pool. */
%define api.pure full
%define api.location.type {Loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%parse-param {Parser *ps}
%lex-param {Parser *ps}

%code requires {
#include "tilec.h"

/* The value of a token: text for identifiers, opcodes and (decoded) strings. */
typedef struct Tok {
	const char *text;
	uint32_t ival;
	bool usuffix;
	bool bad; /* a string with an error in it (the lexer reported it) */
	double fval;
	EType etype;
} Tok;

typedef struct Parser Parser;
}

%code provides {
/* The token function of grammar/lexer.re: returns the token kind, 0 at the end. */
int lexer_lex(YYSTYPE *lval, Loc *lloc, Lexer *lx);
}

%code {
#include <string.h>

/* The parser's state for one file. */
struct Parser {
	Lexer lx;
	List *items;
	int syntax_errors;
	bool stop; /* too many syntax errors: the lexer reports the end of the file */
	int last_error_line; /* of the last syntax error: one per line, the rest of a line is its cascade */
	bool lex_error[2];   /* the lexer reported an error while reading the token before, the lookahead */
	/* the last two tokens read (the lookahead and the one before), for the hints after a syntax error */
	int tok[2];
	Loc loc[2];
	const char *text[2]; /* of an identifier, else NULL */
	const char *text2;   /* the identifier before those two, else NULL */
	Loc loc2;
};

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                      \
	do {                                                                 \
		if (N) {                                                         \
			(Cur).first_line = YYRHSLOC(Rhs, 1).first_line;              \
			(Cur).first_column = YYRHSLOC(Rhs, 1).first_column;          \
			(Cur).last_line = YYRHSLOC(Rhs, N).last_line;                \
			(Cur).last_column = YYRHSLOC(Rhs, N).last_column;            \
			(Cur).file = YYRHSLOC(Rhs, 1).file;                          \
		} else {                                                         \
			(Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line; \
			(Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
			(Cur).file = YYRHSLOC(Rhs, 0).file;                          \
		}                                                                \
	} while (0)

/* Deeper expressions than this are refused, so that later recursive passes cannot run out of stack. */
#define MAX_EXPR_DEPTH 1000
/* A file with this many syntax errors is abandoned. */
#define MAX_SYNTAX_ERRORS 20

static int yylex(YYSTYPE *lval, Loc *lloc, Parser *ps);
static void yyerror(Loc *loc, Parser *ps, const char *msg);

/* Every Expr the parser makes carries its depth, for MAX_EXPR_DEPTH. */
typedef struct ExprBox {
	Expr e;
	int depth;
} ExprBox;

static Expr *
mk_expr(ExprKind kind, Loc loc)
{
	ExprBox *b = pool_alloc(sizeof *b);
	b->e.kind = kind;
	b->e.loc = loc;
	b->depth = 1;
	return &b->e;
}

static int
depth_of(Expr *e)
{
	return e ? ((ExprBox *)e)->depth : 0;
}

/* Sets e's depth from its operands; an over-deep expression is reported once and replaced by 0. */
static Expr *
finish(Expr *e)
{
	int d = depth_of(e->a), worst = d;
	if (depth_of(e->b) > d)
		d = depth_of(e->b);
	if (depth_of(e->b) < worst)
		worst = depth_of(e->b);
	if (depth_of(e->c) > d)
		d = depth_of(e->c);
	if (depth_of(e->c) < worst)
		worst = depth_of(e->c);
	for (int i = 0; i < e->args.n; i++) {
		int di = depth_of(LIST_AT(e->args, Expr, i));
		if (di > d)
			d = di;
		if (di < worst)
			worst = di;
	}
	if (worst < 0) {
		/* Already reported inside. */
		((ExprBox *)e)->depth = worst;
		return e;
	}
	if (d + 1 > MAX_EXPR_DEPTH) {
		error(e->loc, "expression nested too deeply (more than %d levels)", MAX_EXPR_DEPTH);
		Expr *z = mk_expr(E_INT, e->loc);
		((ExprBox *)z)->depth = -(1 << 28); /* keeps the enclosing levels from reporting again */
		return z;
	}
	((ExprBox *)e)->depth = d + 1;
	return e;
}

static Expr *
mk_binary(Op op, Expr *a, Expr *b, Loc loc)
{
	Expr *e = mk_expr(E_BINARY, loc);
	e->op = op;
	e->a = a;
	e->b = b;
	return finish(e);
}

static Expr *
mk_unary(Op op, Expr *a, Loc loc)
{
	Expr *e = mk_expr(E_UNARY, loc);
	e->op = op;
	e->a = a;
	return finish(e);
}

static Expr *
mk_cond(Expr *a, Expr *b, Expr *c, Loc loc)
{
	Expr *e = mk_expr(E_COND, loc);
	e->a = a;
	e->b = b;
	e->c = c;
	return finish(e);
}

static Expr *
mk_call(const char *name, List args, Loc loc)
{
	Expr *e = mk_expr(E_CALL, loc);
	e->name = name;
	e->args = args;
	return finish(e);
}

static Stmt *
mk_assign(Expr *target, Op op, Expr *value, Loc loc)
{
	Stmt *s = pool_alloc(sizeof *s);
	s->kind = S_ASSIGN;
	s->loc = loc;
	s->target = target;
	s->assign_op = op;
	s->value = value;
	return s;
}

static Expr *
mk_tuple(Expr *first, List *rest, Loc loc)
{
	Expr *e = mk_expr(E_TUPLE, loc);
	list_push(&e->args, first);
	for (int i = 0; rest && i < rest->n; i++)
		list_push(&e->args, rest->v[i]);
	return finish(e);
}

static Expr *
mk_builtin(const char *base, const char *comp, Loc comp_loc, Builtin first, Loc loc)
{
	Expr *e = mk_expr(E_BUILTIN, loc);
	if (strcmp(comp, "x") == 0)
		e->builtin = first;
	else if (strcmp(comp, "y") == 0)
		e->builtin = (Builtin)(first + 1);
	else if (strcmp(comp, "z") == 0)
		e->builtin = (Builtin)(first + 2);
	else {
		error(comp_loc, "expected 'x', 'y' or 'z' after '%s.', not '%s'", base, comp);
		e->builtin = first;
	}
	return e;
}

static Stmt *
mk_stmt(StmtKind kind, Loc loc)
{
	Stmt *s = pool_alloc(sizeof *s);
	s->kind = kind;
	s->loc = loc;
	return s;
}

/* ETYPE.WORD(args): an mbarrier statement (LANGUAGE 11.3) when the type is mbarrier and the word one of its
   operations with its operands; NULL after an error. */
static Stmt *
mk_mbar_stmt(Loc loc, EType type, Loc type_loc, const char *word, Loc word_loc, List args)
{
	static const struct {
		const char *word;
		MbarOp op;
		int min_args, max_args;
		const char *form;
	} ops[] = {
		{"init", MB_INIT, 2, 2, "init(b, count)"},
		{"arrive", MB_ARRIVE, 1, 2, "arrive(b) or arrive(b, count)"},
		{"expect_tx", MB_EXPECT_TX, 2, 2, "expect_tx(b, bytes)"},
		{"wait", MB_WAIT, 2, 2, "wait(b, parity)"},
	};
	if (type != T_MBARRIER) {
		error(type_loc, "'%s.%s' is not a statement; only mbarrier has operations written TYPE.OPERATION(...)",
		      etype_name(type), word);
		return NULL;
	}
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		if (strcmp(word, ops[i].word) != 0)
			continue;
		if (args.n < ops[i].min_args || args.n > ops[i].max_args) {
			error(loc, "%s.%s takes %s%d operand%s, not %d: %s.%s", etype_name(type), word,
			      ops[i].min_args < ops[i].max_args ? "1 or " : "", ops[i].max_args, ops[i].max_args == 1 ? "" : "s",
			      args.n, etype_name(type), ops[i].form);
			return NULL;
		}
		Stmt *s = mk_stmt(S_MBAR, loc);
		s->mbar_op = ops[i].op;
		s->target = LIST_AT(args, Expr, 0);
		s->value = args.n > 1 ? LIST_AT(args, Expr, 1) : NULL;
		return s;
	}
	error(word_loc, "unknown mbarrier operation '%s'; the operations are init, arrive, expect_tx and wait", word);
	return NULL;
}

/* copy(shared, global) mbarrier b [multicast MASK]; (LANGUAGE 11.4): the word before b is the type name
   mbarrier, which the lexer gives as an element type. */
static Stmt *
mk_tma_load(Loc loc, ViewExpr *dst, ViewExpr *src, EType type, Loc type_loc, Expr *bar, Expr *mask)
{
	if (type != T_MBARRIER) {
		error(type_loc, "'%s' after copy(...); a TMA load names its barrier: copy(shared_view, global_slice) "
		                "mbarrier b;", etype_name(type));
		return NULL;
	}
	Stmt *s = mk_stmt(S_COPY, loc);
	s->operands = (List){0};
	list_push(&s->operands, dst);
	list_push(&s->operands, src);
	s->tma_bar = bar;
	s->multicast = mask;
	return s;
}

static ViewOp *
mk_viewop(ViewOpKind kind, Loc loc)
{
	ViewOp *op = pool_alloc(sizeof *op);
	op->kind = kind;
	op->loc = loc;
	return op;
}

/* A view expression written as an expression: NAME.view(...) or NAME.rearrange(...), then more. */
static Expr *
mk_view_expr(ViewExpr *v)
{
	Expr *e = mk_expr(E_VIEW, v->loc);
	e->name = v->base;
	e->view = v;
	return e;
}

static Param *
mk_param(const char *name, Loc loc, ParamKind kind, EType type, List dims, LayoutExpr *layout)
{
	Param *p = pool_alloc(sizeof *p);
	p->name = name;
	p->loc = loc;
	p->kind = kind;
	p->type = type;
	p->has_shape = true;
	p->dims = dims;
	p->layout = layout;
	return p;
}

static Item *
mk_item(Parser *ps, ItemKind kind, Loc loc)
{
	Item *it = pool_alloc(sizeof *it);
	it->kind = kind;
	it->loc = loc;
	list_push(ps->items, it);
	return it;
}

static NamedArg *
mk_named(const char *name, Loc loc, Expr *value)
{
	NamedArg *a = pool_alloc(sizeof *a);
	a->name = name;
	a->loc = loc;
	a->value = value;
	return a;
}

static List
list_of(void *x)
{
	List l = {0};
	list_push(&l, x);
	return l;
}

static void
check_not_tuple(Expr *e, const char *what)
{
	if (e && e->kind == E_TUPLE)
		error(e->loc, "%s cannot be a tuple", what);
}

static Stride *
mk_stride(Expr *value, const char *axis, Loc axis_loc, Loc loc)
{
	Stride *s = pool_alloc(sizeof *s);
	s->value = value;
	s->axis = AX_M;
	s->loc = loc;
	check_not_tuple(value, "a stride");
	if (axis && !axis_from_name(axis, &s->axis)) {
		error(axis_loc, "unknown axis '%s'; the axes are tx, tid_in_wg, laneid, warpid, wid_in_wg, wgid, m, TLane and TCol", axis);
		const char *axes[AX_COUNT];
		for (int a = 0; a < AX_COUNT; a++)
			axes[a] = axis_name((Axis)a);
		const char *best = closest_name(axis, axes, AX_COUNT);
		if (best)
			note(axis_loc, "did you mean '%s'?", best);
	}
	return s;
}

/* The extents of S[...] or R[...]: a tuple gives its elements, anything else is one extent. */
static List
extents_of(Expr *e)
{
	if (e->kind != E_TUPLE)
		return list_of(e);
	for (int i = 0; i < e->args.n; i++)
		check_not_tuple(LIST_AT(e->args, Expr, i), "an extent");
	return e->args;
}

static void
unknown_scope(const char *name, Loc loc)
{
	static const char *const scopes[] = {"warp", "warpgroup", "cta"};
	error(loc, "unknown scope '%s'; expected 'warp', 'warpgroup' or 'cta'", name);
	const char *best = closest_name(name, scopes, 3);
	if (best)
		note(loc, "did you mean '%s'?", best);
}

static List
list_prepend(void *x, List rest)
{
	List l = list_of(x);
	for (int i = 0; i < rest.n; i++)
		list_push(&l, rest.v[i]);
	return l;
}
}

%initial-action {
	@$.first_line = @$.last_line = 1;
	@$.first_column = @$.last_column = 1;
	@$.file = ps->lx.file;
}

%union {
	Tok tok;
	Expr *expr;
	List list;
	LayoutExpr *layout;
	LayoutTerm *term;
	Stride *stride;
	ViewExpr *view;
	ViewOp *vop;
	SliceIndex *index;
	NamedArg *named;
	Stmt *stmt;
	Param *param;
	Op op;
	bool flag;
}

%token <tok> IDENT "identifier"
%token <tok> INT "integer"
%token <tok> FLOAT "number"
%token <tok> STRING "string"
%token <tok> ETYPE "element type"
%token <tok> OPCODE "tcgen05 opcode"

%token INCLUDE "keyword 'include'"
%token CONST "keyword 'const'"
%token LAYOUT "keyword 'layout'"
%token KERNEL "keyword 'kernel'"
%token LAUNCH "keyword 'launch'"
%token LET "keyword 'let'"
%token VAR "keyword 'var'"
%token SHARED "keyword 'shared'"
%token LOCAL "keyword 'local'"
%token TMEM "keyword 'tmem'"
%token VIEW "keyword 'view'"
%token AT "keyword 'at'"
%token APPLY "keyword 'apply'"
%token SCOPE "keyword 'scope'"
%token IF "keyword 'if'"
%token ELSE "keyword 'else'"
%token FOR "keyword 'for'"
%token IN "keyword 'in'"
%token CTA_SYNC "keyword 'cta_sync'"
%token WARP_SYNC "keyword 'warp_sync'"
%token BAR_SYNC "keyword 'bar_sync'"
%token BAR_ARRIVE "keyword 'bar_arrive'"
%token COMMIT "keyword 'commit'"
%token CLUSTER_SYNC "keyword 'cluster_sync'"
%token DEFAULT "keyword 'default'"
%token DEVICE "keyword 'device'"
%token COPY "keyword 'copy'"
%token MMA "keyword 'mma'"
%token REDUCE "keyword 'reduce'"
%token STRIDE "keyword 'stride'"
%token ALIGN "keyword 'align'"
%token CLUSTER "keyword 'cluster'"
%token TMA "keyword 'tma'"
%token MULTICAST "keyword 'multicast'"

%token THREAD_IDX "'thread_idx'"
%token BLOCK_IDX "'block_idx'"
%token WARP_ID "'warp_id'"
%token LANE_ID "'lane_id'"
%token WARPGROUP_ID "'warpgroup_id'"
%token TMEM_DATAPATH_LAYOUT "'tmem_datapath_layout'"
%token SMEM_TILE "'smem_tile'"
%token REARRANGE "'rearrange'"

%token DOTDOT "'..'"
%token ARROW "'->'"
%token SHL "'<<'"
%token SHR "'>>'"
%token LE "'<='"
%token GE "'>='"
%token EQ "'=='"
%token NE "'!='"
%token ANDAND "'&&'"
%token OROR "'||'"
%token ADD_ASSIGN "'+='"
%token SUB_ASSIGN "'-='"
%token MUL_ASSIGN "'*='"
%token DIV_ASSIGN "'/='"
%token MOD_ASSIGN "'%='"
%token AND_ASSIGN "'&='"
%token OR_ASSIGN "'|='"
%token XOR_ASSIGN "'^='"
%token SHL_ASSIGN "'<<='"
%token SHR_ASSIGN "'>>='"

%right '?' ':'
%left OROR
%left ANDAND
%left '|'
%left '^'
%left '&'
%left EQ NE
%left '<' LE '>' GE
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%type <expr> expr sexpr primary unary lvalue device_block param_align
%type <list> exprs block stmts params param_list launchargs named_args bindings indices viewexprs
%type <list> callargs sliceargs
%type <list> strides stride_rest stride_more stride_list terms
%type <op> assign_op
%type <flag> opt_tma
%type <stride> stride
%type <layout> layout
%type <term> term
%type <view> viewexpr vchain
%type <vop> vop vview rearrange
%type <index> index range_index
%type <expr> callarg
%type <named> launcharg
%type <stmt> stmt ifstmt scope reduce_op
%type <param> param

%%

file
	: items
	;

items
	: %empty
	| items item
	;

item
	: INCLUDE STRING ';'
		{ Item *it = mk_item(ps, I_INCLUDE, @$); it->path = $2.bad ? NULL : $2.text; }
	| CONST IDENT '=' expr ';'
		{ Item *it = mk_item(ps, I_CONST, @$); it->name = $2.text; it->name_loc = @2; it->value = $4; }
	| LAYOUT IDENT '=' layout ';'
		{ Item *it = mk_item(ps, I_LAYOUT, @$); it->name = $2.text; it->name_loc = @2; it->layout = $4; }
	| KERNEL IDENT '(' params ')' LAUNCH '(' launchargs ')' block
		{
			Kernel *k = pool_alloc(sizeof *k);
			k->name = $2.text;
			k->loc = @$;
			k->name_loc = @2;
			k->params = $4;
			k->launch = $8;
			k->body = $10;
			Item *it = mk_item(ps, I_KERNEL, @$);
			it->name = k->name;
			it->name_loc = @2;
			it->kernel = k;
		}
	| DEVICE IDENT '(' params ')' SCOPE IDENT device_block block
		{
			Kernel *k = pool_alloc(sizeof *k);
			k->name = $2.text;
			k->loc = @$;
			k->name_loc = @2;
			k->params = $4;
			k->is_device = true;
			k->scope_loc = @7;
			if (strcmp($7.text, "warp") == 0)
				k->scope = SCOPE_WARP;
			else if (strcmp($7.text, "warpgroup") == 0)
				k->scope = SCOPE_WARPGROUP;
			else if (strcmp($7.text, "cta") == 0)
				k->scope = SCOPE_CTA;
			else
				unknown_scope($7.text, @7);
			k->block = $8;
			k->body = $9;
			Item *it = mk_item(ps, I_DEVICE, @$);
			it->name = k->name;
			it->name_loc = @2;
			it->kernel = k;
		}
	| DEVICE IDENT error block
	| KERNEL IDENT error block
	| error ';'
	| error '}'
	;

params
	: %empty { $$ = (List){0}; }
	| param_list
	;

param_list
	: param { $$ = list_of($1); }
	| param_list ',' param { $$ = $1; list_push(&$$, $3); }
	;

param
	: IDENT ':' ETYPE
		{ $$ = pool_alloc(sizeof *$$); $$->name = $1.text; $$->loc = @$; $$->type = $3.etype; }
	| IDENT ':' ETYPE '[' exprs ']' param_align opt_tma
		{
			$$ = pool_alloc(sizeof *$$);
			$$->name = $1.text;
			$$->loc = @$;
			$$->type = $3.etype;
			$$->has_shape = true;
			$$->dims = $5;
			$$->align = $7;
			$$->tma = $8;
		}
	| IDENT ':' ETYPE '[' exprs ']' STRIDE '(' exprs ')' param_align opt_tma
		{
			$$ = pool_alloc(sizeof *$$);
			$$->name = $1.text;
			$$->loc = @$;
			$$->type = $3.etype;
			$$->has_shape = true;
			$$->dims = $5;
			$$->strides = $9;
			$$->align = $11;
			$$->tma = $12;
		}
	| IDENT ':' SHARED ETYPE '[' exprs ']'
		{ $$ = mk_param($1.text, @$, PK_SHARED, $4.etype, $6, NULL); }
	| IDENT ':' SHARED ETYPE '[' exprs ']' LAYOUT layout
		{ $$ = mk_param($1.text, @$, PK_SHARED, $4.etype, $6, $9); }
	| IDENT ':' TMEM ETYPE '[' exprs ']' LAYOUT layout
		{ $$ = mk_param($1.text, @$, PK_TMEM, $4.etype, $6, $9); }
	| IDENT ':' LOCAL ETYPE '[' exprs ']' LAYOUT layout
		{ $$ = mk_param($1.text, @$, PK_LOCAL, $4.etype, $6, $9); }
	;

/* `tma` after a global tensor's shape and strides (LANGUAGE 11.4, 11.10) */
opt_tma
	: %empty { $$ = false; }
	| TMA { $$ = true; }
	;

/* `align N` after a global tensor's shape (LANGUAGE 11.10): the promise, checked in lower.c */
param_align
	: %empty { $$ = NULL; }
	| ALIGN INT { $$ = mk_expr(E_INT, @2); $$->ival = $2.ival; $$->usuffix = $2.usuffix; }
	;

device_block
	: %empty { $$ = NULL; }
	| IDENT '=' expr
		{
			if (strcmp($1.text, "block") != 0)
				error(@1, "expected 'block = N' or the function's body, not '%s'", $1.text);
			$$ = $3;
		}
	;

launchargs
	: launcharg { $$ = list_of($1); }
	| launchargs ',' launcharg { $$ = $1; list_push(&$$, $3); }
	;

launcharg
	: IDENT '=' expr
		{
			if (strcmp($1.text, "grid") != 0 && strcmp($1.text, "block") != 0)
				error(@1, "expected 'grid', 'block' or 'cluster', not '%s'", $1.text);
			$$ = mk_named($1.text, @1, $3);
		}
	| CLUSTER '=' expr { $$ = mk_named("cluster", @1, $3); }
	;

block
	: '{' stmts '}' { $$ = $2; }
	| '{' stmts error '}' { $$ = $2; yyerrok; }
	;

stmts
	: %empty { $$ = (List){0}; }
	| stmts stmt { $$ = $1; if ($2) list_push(&$$, $2); }
	;

stmt
	: LET IDENT '=' expr ';'
		{ $$ = mk_stmt(S_LET, @$); $$->name = $2.text; $$->name_loc = @2; $$->value = $4; }
	| VAR IDENT ':' ETYPE ';'
		{ $$ = mk_stmt(S_VAR, @$); $$->name = $2.text; $$->name_loc = @2; $$->type = $4.etype; }
	| VAR IDENT ':' ETYPE '=' expr ';'
		{
			$$ = mk_stmt(S_VAR, @$);
			$$->name = $2.text;
			$$->name_loc = @2;
			$$->type = $4.etype;
			$$->value = $6;
		}
	| SHARED IDENT ':' ETYPE '[' exprs ']' ';'
		{
			$$ = mk_stmt(S_SHARED, @$);
			$$->name = $2.text;
			$$->name_loc = @2;
			$$->type = $4.etype;
			$$->dims = $6;
		}
	| SHARED IDENT ':' ETYPE '[' exprs ']' LAYOUT layout ';'
		{
			$$ = mk_stmt(S_SHARED, @$);
			$$->name = $2.text;
			$$->name_loc = @2;
			$$->type = $4.etype;
			$$->dims = $6;
			$$->layout = $9;
		}
	| LOCAL IDENT ':' ETYPE '[' exprs ']' LAYOUT layout ';'
		{
			$$ = mk_stmt(S_LOCAL, @$);
			$$->name = $2.text;
			$$->name_loc = @2;
			$$->type = $4.etype;
			$$->dims = $6;
			$$->layout = $9;
		}
	| TMEM IDENT ':' ETYPE '[' exprs ']' AT expr LAYOUT layout ';'
		{
			$$ = mk_stmt(S_TMEM, @$);
			$$->name = $2.text;
			$$->name_loc = @2;
			$$->type = $4.etype;
			$$->dims = $6;
			$$->value = $9;
			$$->layout = $11;
		}
	| TMEM IDENT ':' ETYPE '[' exprs ']' LAYOUT layout ';'
		{
			$$ = mk_stmt(S_TMEM, @$);
			$$->name = $2.text;
			$$->name_loc = @2;
			$$->type = $4.etype;
			$$->dims = $6;
			$$->layout = $9;
		}
	| VIEW IDENT '=' viewexpr ';'
		{ $$ = mk_stmt(S_VIEW, @$); $$->name = $2.text; $$->name_loc = @2; $$->view = $4; }
	| lvalue '=' expr ';'
		{ $$ = mk_assign($1, OP_NONE, $3, @$); }
	| lvalue assign_op expr ';'
		{ $$ = mk_assign($1, $2, $3, @$); }
	| ifstmt
	| FOR IDENT IN expr DOTDOT expr block
		{
			$$ = mk_stmt(S_FOR, @$);
			$$->name = $2.text;
			$$->name_loc = @2;
			$$->value = $4;
			$$->hi = $6;
			$$->body = $7;
		}
	| FOR error block { $$ = NULL; } /* a C for (...): the parser resumes at its body */
	| IF error block { $$ = NULL; } /* if x > 0 { or a bad condition: resumes at its body, whose } is its own */
	| IF error block ELSE block { $$ = NULL; }
	| IF error block ELSE ifstmt { $$ = NULL; }
	| APPLY OPCODE '(' viewexprs ')' SCOPE scope named_args ';'
		{
			$$ = mk_stmt(S_APPLY, @$);
			$$->opcode = $2.text;
			$$->opcode_loc = @2;
			$$->operands = $4;
			$$->scope = $7->scope;
			$$->scope_arg = $7->scope_arg;
			$$->scope_loc = $7->scope_loc;
			$$->named = $8;
		}
	| APPLY OPCODE '(' viewexprs ')' ';'
		{
			/* a single-thread instruction (tcgen05.cp): one elected thread issues it, so no scope */
			$$ = mk_stmt(S_APPLY, @$);
			$$->opcode = $2.text;
			$$->opcode_loc = @2;
			$$->operands = $4;
			$$->scope = SCOPE_WARP;
			$$->scope_loc = @2;
			$$->no_scope = true;
		}
	| MMA '(' viewexpr ',' viewexpr ',' viewexpr named_args ')' ';'
		{
			$$ = mk_stmt(S_MMA, @$);
			$$->operands = list_of($3);
			list_push(&$$->operands, $5);
			list_push(&$$->operands, $7);
			$$->named = $8;
		}
	| COPY '(' viewexpr ',' viewexpr ')' ';'
		{ $$ = mk_stmt(S_COPY, @$); $$->operands = list_of($3); list_push(&$$->operands, $5); }
	| COPY '(' viewexpr ',' viewexpr ')' REDUCE IDENT '(' viewexpr ')' ';'
		{
			$$ = mk_stmt(S_COPY, @$);
			$$->operands = list_of($3);
			list_push(&$$->operands, $5);
			$$->reduce_op = $8.text;
			$$->reduce_loc = @8;
			$$->reduce_into = $10;
		}
	| COPY '(' viewexpr ',' viewexpr ')' ETYPE expr ';'
		{ $$ = mk_tma_load(@$, $3, $5, $7.etype, @7, $8, NULL); }
	| COPY '(' viewexpr ',' viewexpr ')' ETYPE expr MULTICAST expr ';'
		{ $$ = mk_tma_load(@$, $3, $5, $7.etype, @7, $8, $10); }
	| COPY '(' viewexpr ',' viewexpr ')' SCOPE scope ';'
		{
			$$ = mk_stmt(S_COPY, @$);
			$$->operands = list_of($3);
			list_push(&$$->operands, $5);
			$$->has_scope = true;
			$$->scope = $8->scope;
			$$->scope_arg = $8->scope_arg;
			$$->scope_loc = $8->scope_loc;
		}
	| reduce_op '(' viewexpr ',' viewexpr ',' expr ')' ';'
		{
			$$ = $1;
			$$->kind = S_REDUCE;
			$$->loc = @$;
			$$->operands = list_of($3);
			list_push(&$$->operands, $5);
			$$->value = $7;
		}
	| OPCODE ';'
		{ $$ = mk_stmt(S_INSTR, @$); $$->opcode = $1.text; $$->opcode_loc = @1; }
	| OPCODE '(' ')' ';'
		{ $$ = mk_stmt(S_INSTR, @$); $$->opcode = $1.text; $$->opcode_loc = @1; }
	| OPCODE '(' exprs ')' ';'
		{ $$ = mk_stmt(S_INSTR, @$); $$->opcode = $1.text; $$->opcode_loc = @1; $$->operands = $3; }
	| IDENT '(' ')' ';'
		{ $$ = mk_stmt(S_CALL, @$); $$->name = $1.text; $$->name_loc = @1; }
	| IDENT '(' callargs ')' ';'
		{ $$ = mk_stmt(S_CALL, @$); $$->name = $1.text; $$->name_loc = @1; $$->operands = $3; }
	| CTA_SYNC ';' { $$ = mk_stmt(S_CTA_SYNC, @$); }
	| WARP_SYNC ';' { $$ = mk_stmt(S_WARP_SYNC, @$); }
	| BAR_SYNC '(' expr ',' expr ')' ';' { $$ = mk_stmt(S_NAMED_BAR, @$); $$->value = $3; $$->hi = $5; }
	| BAR_ARRIVE '(' expr ',' expr ')' ';'
		{ $$ = mk_stmt(S_NAMED_BAR, @$); $$->value = $3; $$->hi = $5; $$->bar_arrive = true; }
	| ETYPE '.' IDENT '(' exprs ')' ';' { $$ = mk_mbar_stmt(@$, $1.etype, @1, $3.text, @3, $5); }
	| COMMIT '(' expr ')' ';' { $$ = mk_stmt(S_MBAR, @$); $$->mbar_op = MB_COMMIT; $$->target = $3; }
	| CLUSTER_SYNC ';' { $$ = mk_stmt(S_MBAR, @$); $$->mbar_op = MB_CLUSTER_SYNC; }
	| block { $$ = mk_stmt(S_BLOCK, @$); $$->body = $1; }
	| error ';' { $$ = NULL; yyerrok; }
	;

/* 'reduce OP', OP an identifier (max, min, sum; lowering checks it): a statement of its own and, to come, a
   clause of copy. The statement that uses it sets its kind and location. */
reduce_op
	: REDUCE IDENT { $$ = mk_stmt(S_REDUCE, @$); $$->name = $2.text; $$->name_loc = @2; }
	;

ifstmt
	: IF '(' expr ')' block
		{ $$ = mk_stmt(S_IF, @$); $$->value = $3; $$->body = $5; }
	| IF '(' expr ')' block ELSE block
		{ $$ = mk_stmt(S_IF, @$); $$->value = $3; $$->body = $5; $$->has_else = true; $$->else_body = $7; }
	| IF '(' expr ')' block ELSE ifstmt
		{
			$$ = mk_stmt(S_IF, @$);
			$$->value = $3;
			$$->body = $5;
			$$->has_else = true;
			$$->else_body = list_of($7);
		}
	;

/* Only the scope fields of the returned Stmt are used. */
scope
	: IDENT
		{
			$$ = mk_stmt(S_APPLY, @$);
			$$->scope_loc = @1;
			if (strcmp($1.text, "warp") == 0)
				$$->scope = SCOPE_WARP;
			else if (strcmp($1.text, "warpgroup") == 0)
				$$->scope = SCOPE_WARPGROUP;
			else if (strcmp($1.text, "cta") == 0)
				$$->scope = SCOPE_CTA;
			else
				unknown_scope($1.text, @1);
		}
	| IDENT '(' expr ')'
		{
			$$ = mk_stmt(S_APPLY, @$);
			$$->scope_loc = @$;
			$$->scope_arg = $3;
			if (strcmp($1.text, "warp") == 0)
				$$->scope = SCOPE_WARP;
			else if (strcmp($1.text, "warpgroup") == 0)
				$$->scope = SCOPE_WARPGROUP;
			else if (strcmp($1.text, "cta") == 0) {
				$$->scope = SCOPE_CTA;
				$$->scope_arg = NULL;
				error(@$, "scope 'cta' takes no argument");
			} else
				unknown_scope($1.text, @1);
		}
	;

named_args
	: %empty { $$ = (List){0}; }
	| named_args ',' IDENT '=' expr { $$ = $1; list_push(&$$, mk_named($3.text, @3, $5)); }
	;

assign_op
	: ADD_ASSIGN { $$ = OP_ADD; }
	| SUB_ASSIGN { $$ = OP_SUB; }
	| MUL_ASSIGN { $$ = OP_MUL; }
	| DIV_ASSIGN { $$ = OP_DIV; }
	| MOD_ASSIGN { $$ = OP_MOD; }
	| AND_ASSIGN { $$ = OP_BITAND; }
	| OR_ASSIGN { $$ = OP_BITOR; }
	| XOR_ASSIGN { $$ = OP_BITXOR; }
	| SHL_ASSIGN { $$ = OP_SHL; }
	| SHR_ASSIGN { $$ = OP_SHR; }
	;

lvalue
	: IDENT { $$ = mk_expr(E_NAME, @$); $$->name = $1.text; }
	| IDENT '[' exprs ']' { $$ = mk_expr(E_INDEX, @$); $$->name = $1.text; $$->args = $3; $$ = finish($$); }
	;

viewexprs
	: viewexpr { $$ = list_of($1); }
	| viewexprs ',' viewexpr { $$ = $1; list_push(&$$, $3); }
	;

viewexpr
	: IDENT
		{ $$ = pool_alloc(sizeof *$$); $$->base = $1.text; $$->loc = @$; $$->base_loc = @1; }
	| viewexpr '.' VIEW '(' exprs ')'
		{
			ViewOp *op = pool_alloc(sizeof *op);
			op->kind = VOP_VIEW;
			op->loc = loc_span(@2, @6);
			op->dims = $5;
			$$ = $1;
			$$->loc = @$;
			list_push(&$$->ops, op);
		}
	| viewexpr '.' VIEW '(' exprs ',' LAYOUT '=' layout ')'
		{
			ViewOp *op = pool_alloc(sizeof *op);
			op->kind = VOP_VIEW;
			op->loc = loc_span(@2, @10);
			op->dims = $5;
			op->layout = $9;
			$$ = $1;
			$$->loc = @$;
			list_push(&$$->ops, op);
		}
	| viewexpr '.' rearrange
		{
			$3->loc = loc_span(@2, @3);
			$$ = $1;
			$$->loc = @$;
			list_push(&$$->ops, $3);
		}
	| viewexpr '.' IDENT '(' STRING bindings ')'
		{
			error(@3, "expected 'view' or 'rearrange', not '%s'", $3.text);
			ViewOp *op = pool_alloc(sizeof *op);
			op->kind = VOP_REARRANGE;
			op->loc = loc_span(@2, @7);
			op->pattern = $5.text;
			op->pattern_loc = @5;
			op->bindings = $6;
			$$ = $1;
			$$->loc = @$;
			list_push(&$$->ops, op);
		}
	| viewexpr '[' indices ']'
		{
			ViewOp *op = pool_alloc(sizeof *op);
			op->kind = VOP_SLICE;
			op->loc = loc_span(@2, @4);
			op->indices = $3;
			$$ = $1;
			$$->loc = @$;
			list_push(&$$->ops, op);
		}
	;

/* A view written where an expression goes (a call's argument): it starts with NAME. or NAME[...]. */
vchain
	: IDENT '.' vview
		{ $$ = pool_alloc(sizeof *$$); $$->base = $1.text; $$->loc = @$; $$->base_loc = @1; list_push(&$$->ops, $3); }
	| vchain '.' vop { $$ = $1; $$->loc = @$; list_push(&$$->ops, $3); }
	| vchain '[' indices ']'
		{
			$$ = $1;
			$$->loc = @$;
			ViewOp *op = mk_viewop(VOP_SLICE, loc_span(@2, @4));
			op->indices = $3;
			list_push(&$$->ops, op);
		}
	;

/* The first operation is .view or .rearrange (a token of its own after NAME., see yylex): NAME.IDENT
   stays a syntax error, with its hints (threadIdx.x). */
vview
	: VIEW '(' exprs ')' { $$ = mk_viewop(VOP_VIEW, @$); $$->dims = $3; }
	| VIEW '(' exprs ',' LAYOUT '=' layout ')' { $$ = mk_viewop(VOP_VIEW, @$); $$->dims = $3; $$->layout = $7; }
	| rearrange
	;

rearrange
	: REARRANGE '(' STRING bindings ')'
		{
			$$ = mk_viewop(VOP_REARRANGE, @$);
			$$->pattern = $3.text;
			$$->pattern_loc = @3;
			$$->bindings = $4;
		}
	;

vop
	: vview
	| IDENT '(' STRING bindings ')'
		{
			error(@1, "expected 'view' or 'rearrange', not '%s'", $1.text);
			$$ = mk_viewop(VOP_REARRANGE, @$);
			$$->pattern = $3.text;
			$$->pattern_loc = @3;
			$$->bindings = $4;
		}
	;

bindings
	: %empty { $$ = (List){0}; }
	| bindings ',' IDENT '=' expr { $$ = $1; list_push(&$$, mk_named($3.text, @3, $5)); }
	;

indices
	: index { $$ = list_of($1); }
	| indices ',' index { $$ = $1; list_push(&$$, $3); }
	;

/* A call's arguments (LANGUAGE.md 10.3: arg = expr or viewexpr): an expression, or NAME[...] with a range
   among its indices, a view (NAME[:, a:b]); NAME[i] stays an element here, which the call reads as a view
   where the parameter is a tensor. */
callargs
	: callarg { $$ = list_of($1); }
	| callargs ',' callarg { $$ = $1; list_push(&$$, $3); }
	;

callarg
	: expr
	| IDENT '[' sliceargs ']'
		{
			ViewExpr *v = pool_alloc(sizeof *v);
			v->base = $1.text;
			v->loc = @$;
			v->base_loc = @1;
			ViewOp *op = mk_viewop(VOP_SLICE, loc_span(@2, @4));
			op->indices = $3;
			list_push(&v->ops, op);
			$$ = mk_view_expr(v);
		}
	;

/* Indices of which one at least is a range; the plain ones before the first range are read as exprs. */
sliceargs
	: range_index { $$ = list_of($1); }
	| exprs ',' range_index
		{
			$$ = (List){0};
			for (int i = 0; i < $1.n; i++) {
				SliceIndex *x = pool_alloc(sizeof *x);
				x->index = LIST_AT($1, Expr, i);
				x->loc = x->index->loc;
				list_push(&$$, x);
			}
			list_push(&$$, $3);
		}
	| sliceargs ',' index { $$ = $1; list_push(&$$, $3); }
	;

index
	: expr { $$ = pool_alloc(sizeof *$$); $$->index = $1; $$->loc = @$; }
	| range_index
	;

range_index
	: ':' { $$ = pool_alloc(sizeof *$$); $$->is_range = true; $$->loc = @$; }
	| expr ':' { $$ = pool_alloc(sizeof *$$); $$->is_range = true; $$->lo = $1; $$->loc = @$; }
	| ':' expr { $$ = pool_alloc(sizeof *$$); $$->is_range = true; $$->hi = $2; $$->loc = @$; }
	| expr ':' expr
		{ $$ = pool_alloc(sizeof *$$); $$->is_range = true; $$->lo = $1; $$->hi = $3; $$->loc = @$; }
	;

/* Checked as soon as the '[' is read, so that the error comes before those inside the brackets. */
strided
	: IDENT '['
		{
			if (strcmp($1.text, "S") != 0)
				error(@1, "expected 'S', 'tmem_datapath_layout', 'default' or a layout name, not '%s['", $1.text);
		}
	;

layout
	: strided expr ':' strides ']' terms
		{
			$$ = pool_alloc(sizeof *$$);
			$$->kind = LAY_STRIDED;
			$$->loc = @$;
			$$->extents = extents_of($2);
			$$->strides = $4;
			$$->terms = $6;
		}
	| TMEM_DATAPATH_LAYOUT '(' STRING ',' expr ',' expr ')'
		{
			$$ = pool_alloc(sizeof *$$);
			$$->kind = LAY_DATAPATH;
			$$->loc = @$;
			$$->letter = $3.text;
			$$->letter_loc = @3;
			$$->rows = $5;
			$$->cols = $7;
		}
	| TMEM_DATAPATH_LAYOUT '(' STRING ',' expr ',' expr ',' IDENT '=' expr ')'
		{
			if (strcmp($9.text, "sub_slab") != 0)
				error(@9, "expected 'sub_slab', not '%s'", $9.text);
			$$ = pool_alloc(sizeof *$$);
			$$->kind = LAY_DATAPATH;
			$$->loc = @$;
			$$->letter = $3.text;
			$$->letter_loc = @3;
			$$->rows = $5;
			$$->cols = $7;
			$$->sub_slab = $11;
		}
	| SMEM_TILE '(' STRING ',' STRING ')'
		{
			$$ = pool_alloc(sizeof *$$);
			$$->kind = LAY_SMEM_TILE;
			$$->loc = @$;
			$$->major = $3.text;
			$$->major_loc = @3;
			$$->swizzle = $5.text;
			$$->swizzle_loc = @5;
		}
	| DEFAULT
		{ $$ = pool_alloc(sizeof *$$); $$->kind = LAY_DEFAULT; $$->loc = @$; }
	| IDENT
		{ $$ = pool_alloc(sizeof *$$); $$->kind = LAY_NAME; $$->loc = @$; $$->name = $1.text; }
	;

terms
	: %empty { $$ = (List){0}; }
	| terms term { $$ = $1; list_push(&$$, $2); }
	;

term
	: '+' IDENT '[' expr ':' strides ']'
		{
			if (strcmp($2.text, "R") != 0)
				error(@2, "expected 'R[...]' or an offset 'k@axis', not '%s['", $2.text);
			$$ = pool_alloc(sizeof *$$);
			$$->kind = LT_REPLICA;
			$$->loc = loc_span(@2, @7);
			$$->extents = extents_of($4);
			$$->strides = $6;
		}
	| '+' expr '@' IDENT
		{
			$$ = pool_alloc(sizeof *$$);
			$$->kind = LT_OFFSET;
			$$->loc = loc_span(@2, @4);
			$$->offset = $2;
			check_not_tuple($2, "an offset");
			Stride *s = mk_stride($2, $4.text, @4, @$);
			$$->axis = s->axis;
		}
	;

/*
 * Strides. A parenthesised list of strides and a parenthesised expression both start with '(';
 * a stride list that starts with '(' is told apart by a ',' or an '@' after its first expression,
 * and sexpr is an expression that does not start with a tuple, so that no state has to choose.
 */
strides
	: sexpr { $$ = list_of(mk_stride($1, NULL, @1, @$)); }
	| sexpr '@' IDENT { $$ = list_of(mk_stride($1, $3.text, @3, @$)); }
	| '(' expr '@' IDENT stride_rest ')'
		{ $$ = list_prepend(mk_stride($2, $4.text, @4, loc_span(@2, @4)), $5); }
	| '(' expr ',' stride_more ')'
		{ $$ = list_prepend(mk_stride($2, NULL, @2, @2), $4); }
	;

stride_rest
	: %empty { $$ = (List){0}; }
	| ',' stride_more { $$ = $2; }
	;

stride_more
	: %empty { $$ = (List){0}; }
	| stride_list
	| stride_list ','
	;

stride_list
	: stride { $$ = list_of($1); }
	| stride_list ',' stride { $$ = $1; list_push(&$$, $3); }
	;

stride
	: expr { $$ = mk_stride($1, NULL, @1, @$); }
	| expr '@' IDENT { $$ = mk_stride($1, $3.text, @3, @$); }
	;

exprs
	: expr { $$ = list_of($1); }
	| exprs ',' expr { $$ = $1; list_push(&$$, $3); }
	;

expr
	: primary
	| unary
	| '(' expr ')' { $$ = $2; }
	| '(' expr ',' ')' { $$ = mk_tuple($2, NULL, @$); }
	| '(' expr ',' exprs ')' { $$ = mk_tuple($2, &$4, @$); }
	| '(' expr ',' exprs ',' ')' { $$ = mk_tuple($2, &$4, @$); }
	| expr '?' expr ':' expr	{ $$ = mk_cond($1, $3, $5, @$); }
	| expr OROR expr	{ $$ = mk_binary(OP_LOR, $1, $3, @$); }
	| expr ANDAND expr	{ $$ = mk_binary(OP_LAND, $1, $3, @$); }
	| expr '|' expr	{ $$ = mk_binary(OP_BITOR, $1, $3, @$); }
	| expr '^' expr	{ $$ = mk_binary(OP_BITXOR, $1, $3, @$); }
	| expr '&' expr	{ $$ = mk_binary(OP_BITAND, $1, $3, @$); }
	| expr EQ expr	{ $$ = mk_binary(OP_EQ, $1, $3, @$); }
	| expr NE expr	{ $$ = mk_binary(OP_NE, $1, $3, @$); }
	| expr '<' expr	{ $$ = mk_binary(OP_LT, $1, $3, @$); }
	| expr LE expr	{ $$ = mk_binary(OP_LE, $1, $3, @$); }
	| expr '>' expr	{ $$ = mk_binary(OP_GT, $1, $3, @$); }
	| expr GE expr	{ $$ = mk_binary(OP_GE, $1, $3, @$); }
	| expr SHL expr	{ $$ = mk_binary(OP_SHL, $1, $3, @$); }
	| expr SHR expr	{ $$ = mk_binary(OP_SHR, $1, $3, @$); }
	| expr '+' expr	{ $$ = mk_binary(OP_ADD, $1, $3, @$); }
	| expr '-' expr	{ $$ = mk_binary(OP_SUB, $1, $3, @$); }
	| expr '*' expr	{ $$ = mk_binary(OP_MUL, $1, $3, @$); }
	| expr '/' expr	{ $$ = mk_binary(OP_DIV, $1, $3, @$); }
	| expr '%' expr	{ $$ = mk_binary(OP_MOD, $1, $3, @$); }
	;

/* An expression in stride position: a leading '(' may only open a plain parenthesised expression. */
sexpr
	: primary
	| unary
	| '(' expr ')' { $$ = $2; }
	| sexpr '?' expr ':' expr	{ $$ = mk_cond($1, $3, $5, @$); }
	| sexpr OROR expr	{ $$ = mk_binary(OP_LOR, $1, $3, @$); }
	| sexpr ANDAND expr	{ $$ = mk_binary(OP_LAND, $1, $3, @$); }
	| sexpr '|' expr	{ $$ = mk_binary(OP_BITOR, $1, $3, @$); }
	| sexpr '^' expr	{ $$ = mk_binary(OP_BITXOR, $1, $3, @$); }
	| sexpr '&' expr	{ $$ = mk_binary(OP_BITAND, $1, $3, @$); }
	| sexpr EQ expr	{ $$ = mk_binary(OP_EQ, $1, $3, @$); }
	| sexpr NE expr	{ $$ = mk_binary(OP_NE, $1, $3, @$); }
	| sexpr '<' expr	{ $$ = mk_binary(OP_LT, $1, $3, @$); }
	| sexpr LE expr	{ $$ = mk_binary(OP_LE, $1, $3, @$); }
	| sexpr '>' expr	{ $$ = mk_binary(OP_GT, $1, $3, @$); }
	| sexpr GE expr	{ $$ = mk_binary(OP_GE, $1, $3, @$); }
	| sexpr SHL expr	{ $$ = mk_binary(OP_SHL, $1, $3, @$); }
	| sexpr SHR expr	{ $$ = mk_binary(OP_SHR, $1, $3, @$); }
	| sexpr '+' expr	{ $$ = mk_binary(OP_ADD, $1, $3, @$); }
	| sexpr '-' expr	{ $$ = mk_binary(OP_SUB, $1, $3, @$); }
	| sexpr '*' expr	{ $$ = mk_binary(OP_MUL, $1, $3, @$); }
	| sexpr '/' expr	{ $$ = mk_binary(OP_DIV, $1, $3, @$); }
	| sexpr '%' expr	{ $$ = mk_binary(OP_MOD, $1, $3, @$); }
	;

unary
	: '-' expr %prec UNARY { $$ = mk_unary(OP_NEG, $2, @$); }
	| '!' expr %prec UNARY { $$ = mk_unary(OP_NOT, $2, @$); }
	| '~' expr %prec UNARY { $$ = mk_unary(OP_BITNOT, $2, @$); }
	;

primary
	: INT { $$ = mk_expr(E_INT, @$); $$->ival = $1.ival; $$->usuffix = $1.usuffix; }
	| FLOAT { $$ = mk_expr(E_FLOAT, @$); $$->fval = $1.fval; }
	| IDENT { $$ = mk_expr(E_NAME, @$); $$->name = $1.text; }
	| IDENT '[' exprs ']' { $$ = mk_expr(E_INDEX, @$); $$->name = $1.text; $$->args = $3; $$ = finish($$); }
	| vchain { $$ = mk_view_expr($1); }
	| IDENT '(' exprs ')' { $$ = mk_call($1.text, $3, @$); }
	| '&' IDENT '[' expr ']'
		{ $$ = mk_expr(E_ADDR, @$); $$->name = $2.text; $$->args = list_of($4); $$ = finish($$); }
	| ETYPE '(' expr ')' { $$ = mk_expr(E_CONV, @$); $$->type = $1.etype; $$->a = $3; $$ = finish($$); }
	| THREAD_IDX '.' IDENT { $$ = mk_builtin("thread_idx", $3.text, @3, B_THREAD_X, @$); }
	| BLOCK_IDX '.' IDENT { $$ = mk_builtin("block_idx", $3.text, @3, B_BLOCK_X, @$); }
	| WARP_ID { $$ = mk_expr(E_BUILTIN, @$); $$->builtin = B_WARP_ID; }
	| LANE_ID { $$ = mk_expr(E_BUILTIN, @$); $$->builtin = B_LANE_ID; }
	| WARPGROUP_ID { $$ = mk_expr(E_BUILTIN, @$); $$->builtin = B_WARPGROUP_ID; }
	;

%%

static int
yylex(YYSTYPE *lval, Loc *lloc, Parser *ps)
{
	if (ps->stop) {
		memset(lval, 0, sizeof *lval);
		*lloc = (Loc){ps->lx.line, 1, ps->lx.line, 1, ps->lx.file};
		return 0;
	}
	int before = error_count;
	int tok = lexer_lex(lval, lloc, &ps->lx);
	/* rearrange after NAME. or a view's ')' or ']' is the view operation, so that a view may start with it
	   where an expression goes (a call's argument); elsewhere it stays an identifier */
	if (tok == IDENT && ps->tok[1] == '.' && (ps->tok[0] == IDENT || ps->tok[0] == ')' || ps->tok[0] == ']') &&
	    strcmp(lval->tok.text, "rearrange") == 0)
		tok = REARRANGE;
	ps->lex_error[0] = ps->lex_error[1];
	ps->lex_error[1] = error_count > before;
	ps->text2 = ps->text[0];
	ps->loc2 = ps->loc[0];
	ps->tok[0] = ps->tok[1];
	ps->loc[0] = ps->loc[1];
	ps->text[0] = ps->text[1];
	ps->tok[1] = tok;
	ps->loc[1] = *lloc;
	ps->text[1] = tok == IDENT ? lval->tok.text : NULL;
	return tok;
}

/* The word inside a token name such as "keyword 'kernel'" or "'warp_id'"; NULL for punctuation. */
static const char *
token_word(yysymbol_kind_t kind)
{
	const char *name = yysymbol_name(kind);
	const char *q = strchr(name, '\'');
	if (!q || !(q[1] == '_' || (q[1] >= 'a' && q[1] <= 'z')))
		return NULL;
	return pool_strndup(q + 1, strcspn(q + 1, "'"));
}

int
parser_words(const char **out, int max)
{
	int n = 0;
	for (int k = 0; k < YYNTOKENS && n < max; k++) {
		const char *w = token_word((yysymbol_kind_t)k);
		if (w)
			out[n++] = w;
	}
	for (int t = T_F32; t < T_COUNT && n < max; t++)
		out[n++] = etype_name((EType)t);
	static const char *const constants[] = {"inf", "nan"}; /* words of the FLOAT token */
	for (size_t i = 0; i < sizeof constants / sizeof constants[0] && n < max; i++)
		out[n++] = constants[i];
	return n;
}

/* Notes after a syntax error for what a C or CUDA programmer may have meant: a misspelt keyword or
 * builtin, a CUDA spelling, a C for loop, a function call. */
static void
syntax_hints(Parser *ps, yysymbol_kind_t la, const yysymbol_kind_t *exp, int n)
{
	const char *prev = ps->text[0], *cur = ps->text[1];
	size_t len = (size_t)(ps->lx.cursor - ps->lx.start);
	if (la == YYSYMBOL_FLOAT && len == 3 && (!strncmp(ps->lx.start, "inf", 3) || !strncmp(ps->lx.start, "nan", 3))) {
		note(ps->loc[1], "'%.3s' is a reserved word, the f32 constant %s; choose another name",
		     ps->lx.start, ps->lx.start[0] == 'i' ? "infinity" : "NaN");
		return;
	}
	if (cur && cuda_habit(cur)) {
		note(ps->loc[1], "%s", cuda_habit(cur));
		return;
	}
	/* tcgen05 .wait, tcgen05.Wait (an identifier, then '.'), tcgen05.wait::LD, ...sync.Aligned (an opcode cut short) */
	if ((prev && strcmp(prev, "tcgen05") == 0 && la == YYTRANSLATE('.')) ||
	    (ps->tok[0] == OPCODE && (la == YYTRANSLATE('.') || la == YYTRANSLATE(':')))) {
		note(ps->loc[0], "a tcgen05 opcode is one word, as PTX spells it: lowercase parts joined by '.', with no "
		                 "spaces");
		return;
	}
	if (la == YYTRANSLATE(':')) {
		note(ps->loc[1], "a slice NAME[a:b] is a view, not a value: declare it with 'view V = NAME[...];', or pass it "
		                 "to copy(...) or a device function");
		return;
	}
	if (cur) {
		/* a word where a keyword or a type was expected: the nearest of those */
		const char *cands[YYNTOKENS + T_COUNT];
		int m = 0;
		for (int i = 0; i < n; i++) {
			if (exp[i] == YYSYMBOL_ETYPE)
				for (int t = T_F32; t < T_COUNT; t++)
					cands[m++] = etype_name((EType)t);
			else if (token_word(exp[i]))
				cands[m++] = token_word(exp[i]);
		}
		const char *best = closest_name(cur, cands, m);
		if (best) {
			note(ps->loc[1], "did you mean '%s'?", best);
			return;
		}
	}
	if (!prev && ps->text2 && cuda_habit(ps->text2)) { /* threadIdx.x: the error is at the x */
		note(ps->loc2, "%s", cuda_habit(ps->text2));
		return;
	}
	if (prev && cuda_habit(prev)) {
		note(ps->loc[0], "%s", cuda_habit(prev));
		return;
	}
	if (la == YYTRANSLATE('(') && ps->tok[0] == FOR) {
		note(ps->loc[0], "a loop is written 'for i in LO..HI { ... }' (HI excluded)");
		return;
	}
	if (prev && (la == YYTRANSLATE('(') || strlen(prev) >= 3)) {
		/* before '(' only the words that take one: tmem_datapath_layout and the conversions */
		const char *words[64];
		int m = 0;
		if (la == YYTRANSLATE('(')) {
			words[m++] = token_word(YYSYMBOL_TMEM_DATAPATH_LAYOUT);
			words[m++] = token_word(YYSYMBOL_SMEM_TILE);
			for (int t = T_F32; t < T_COUNT; t++)
				words[m++] = etype_name((EType)t);
		} else {
			m = parser_words(words, 64);
		}
		const char *best = closest_name(prev, words, m);
		if (best)
			note(ps->loc[0], "did you mean '%s'?", best);
		else if (la == YYTRANSLATE('('))
			note(ps->loc[0], "'%s' cannot be called here: a device function is called as a statement, 'NAME(args);', "
			                 "and the math functions (min, exp, ...) inside an expression", prev);
	}
}

/* Only bison's own failures come here (the stack limit); syntax errors go to yyreport_syntax_error. */
static void
yyerror(Loc *loc, Parser *ps, const char *msg)
{
	(void)ps;
	if (strcmp(msg, "memory exhausted") == 0)
		error(*loc, "nesting too deep for the parser");
	else
		error(*loc, "%s", msg);
}

/* A token as a person would name it; the lookahead is the lexer's last token, so its text is at hand. */
static void
describe_lookahead(Buf *b, yysymbol_kind_t kind, Parser *ps)
{
	const char *what = NULL;
	switch (kind) {
	case YYSYMBOL_IDENT: what = "identifier"; break;
	case YYSYMBOL_INT: what = "integer"; break;
	case YYSYMBOL_FLOAT: what = "number"; break;
	case YYSYMBOL_STRING: what = "string"; break;
	case YYSYMBOL_ETYPE: what = "element type"; break;
	case YYSYMBOL_OPCODE: what = "opcode"; break;
	default:
		buf_puts(b, yysymbol_name(kind));
		return;
	}
	int n = (int)(ps->lx.cursor - ps->lx.start);
	bool quote = kind != YYSYMBOL_INT && kind != YYSYMBOL_FLOAT && kind != YYSYMBOL_STRING;
	buf_printf(b, "%s %s%.*s%s%s", what, quote ? "'" : "", n > 40 ? 40 : n, ps->lx.start,
	           n > 40 ? "..." : "", quote ? "'" : "");
}

static int
yyreport_syntax_error(const yypcontext_t *ctx, Parser *ps)
{
	static const int binary_ops[] = {
		OROR, ANDAND, '|', '^', '&', EQ, NE, '<', LE, '>', GE, SHL, SHR, '+', '-', '*', '/', '%', '?',
	};
	static const int expr_start[] = {
		INT, FLOAT, IDENT, ETYPE, THREAD_IDX, BLOCK_IDX, WARP_ID, LANE_ID, WARPGROUP_ID,
		'(', '-', '!', '~', '&',
	};
	if (ps->stop)
		return 0;
	yysymbol_kind_t la = yypcontext_token(ctx);
	yysymbol_kind_t exp[YYNTOKENS];
	int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
	/* A ';' that belongs at the end of a line is reported there, not at the next line's first token. */
	Loc at = *yypcontext_location(ctx);
	/* a syntax error right after a lexical one, or after another on its line, is their cascade */
	bool cascade = ps->lex_error[0] || ps->lex_error[1] || (ps->syntax_errors && at.first_line == ps->last_error_line);
	ps->last_error_line = at.first_line;
	if (cascade)
		return 0;
	bool semi = false;
	for (int i = 0; i < n; i++)
		semi |= exp[i] == YYTRANSLATE(';');
	if (semi && ps->tok[0] && at.first_line > ps->loc[0].last_line) {
		Loc end = ps->loc[0];
		end.first_line = end.last_line;
		end.first_column = end.last_column = ps->loc[0].last_column + 1;
		error(end, "expected ';' at the end of the line");
		goto counted;
	}
	Buf b = {0};
	buf_puts(&b, "unexpected ");
	describe_lookahead(&b, la, ps);

	static const int assign_ops[] = {
		'=', ADD_ASSIGN, SUB_ASSIGN, MUL_ASSIGN, DIV_ASSIGN, MOD_ASSIGN, AND_ASSIGN, OR_ASSIGN, XOR_ASSIGN,
		SHL_ASSIGN, SHR_ASSIGN,
	};
	/* Where an expression may start or go on, say "expression" or "operator" rather than list tokens;
	   where an assignment may follow, "assignment operator" for '=', '+=' and the rest. */
	bool want_expr = false, want_op = false, want_assign = false;
	for (int i = 0; i < n; i++) {
		want_expr |= exp[i] == YYSYMBOL_INT;
		want_op |= exp[i] == YYTRANSLATE('*');
		want_assign |= exp[i] == YYTRANSLATE(ADD_ASSIGN);
	}
	const char *names[YYNTOKENS + 2];
	int m = 0;
	for (int i = 0; i < n; i++) {
		bool grouped = false;
		for (size_t j = 0; want_expr && j < sizeof expr_start / sizeof expr_start[0]; j++)
			grouped |= exp[i] == YYTRANSLATE(expr_start[j]);
		for (size_t j = 0; want_op && j < sizeof binary_ops / sizeof binary_ops[0]; j++)
			grouped |= exp[i] == YYTRANSLATE(binary_ops[j]);
		for (size_t j = 0; want_assign && j < sizeof assign_ops / sizeof assign_ops[0]; j++)
			grouped |= exp[i] == YYTRANSLATE(assign_ops[j]);
		if (!grouped)
			names[m++] = yysymbol_name(exp[i]);
	}
	if (want_expr)
		names[m++] = "expression";
	if (want_op)
		names[m++] = "operator";
	if (want_assign)
		names[m++] = "assignment operator";
	if (m > 0 && m <= 4) {
		buf_puts(&b, ", expected ");
		for (int i = 0; i < m; i++)
			buf_printf(&b, "%s%s", i == 0 ? "" : i == m - 1 ? " or " : ", ", names[i]);
	}
	error(at, "%s", b.data);
	buf_free(&b);
	syntax_hints(ps, la, exp, n);
counted:
	if (++ps->syntax_errors >= MAX_SYNTAX_ERRORS) {
		note(*yypcontext_location(ctx), "too many syntax errors; the rest of %s is skipped",
		     source_path(ps->lx.file));
		ps->stop = true;
	}
	return 0;
}

bool
parse_file(int file, List *items)
{
	int errors = error_count;
	Parser ps;
	memset(&ps, 0, sizeof ps);
	lexer_init(&ps.lx, file);
	ps.items = items;
	int r = yyparse(&ps);
	return r == 0 && error_count == errors;
}
