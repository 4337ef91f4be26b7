/* lexer.re: the re2c lexer of .tile (LANGUAGE.md section 2); comments and strings are scanned by hand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tilec.h"
#include "parser.h"

void
lexer_init(Lexer *lx, int file)
{
	size_t len;
	const char *text = source_text(file, &len);
	memset(lx, 0, sizeof *lx);
	lx->file = file;
	lx->start = lx->cursor = lx->line_start = text;
	lx->limit = text + len;
	/* a UTF-8 byte order mark (some editors write one) is no part of the program, as for C compilers */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		lx->start = lx->cursor = lx->line_start = text + 3;
	lx->line = 1;
}

static Loc
loc_at(const Lexer *lx, const char *from, const char *to)
{
	Loc l;
	l.file = lx->file;
	l.first_line = l.last_line = lx->line;
	l.first_column = (int)(from - lx->line_start) + 1;
	/* last_column is inclusive: the column of the last byte of the range. */
	l.last_column = to > from ? (int)(to - lx->line_start) : l.first_column;
	return l;
}

/* Bytes that start no token; a run of them is reported once. */
static bool
is_stray(unsigned char c)
{
	if (c >= 0x80 || c == 0x7f)
		return true;
	if (c < 0x20)
		return c != 0 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f';
	return strchr("#$\\'`", c) != NULL;
}

static void
report_stray(Lexer *lx, const char *at)
{
	unsigned char c = (unsigned char)*at;
	const char *end = at + 1;
	while (end < lx->limit && is_stray((unsigned char)*end))
		end++;
	Loc l = loc_at(lx, at, end);
	if (c > 0x20 && c < 0x7f)
		error(l, "stray '%c' in program", c);
	else
		error(l, "stray byte 0x%02x in program", c);
	lx->cursor = end;
}

/* Skips a block comment whose opening ends at lx->cursor, keeping line numbers right. */
static void
skip_block_comment(Lexer *lx)
{
	const char *p = lx->cursor;
	Loc start = loc_at(lx, lx->start, lx->start + 2);
	for (;;) {
		if (p >= lx->limit) {
			error(start, "unterminated comment");
			break;
		}
		if (*p == '*' && p + 1 < lx->limit && p[1] == '/') {
			p += 2;
			break;
		}
		if (*p == '\n') {
			lx->line++;
			lx->line_start = p + 1;
		} else if (*p == 0) {
			error(loc_at(lx, p, p + 1), "NUL byte in source");
		}
		p++;
	}
	lx->cursor = p;
}

static void
skip_line_comment(Lexer *lx)
{
	const char *p = lx->cursor;
	while (p < lx->limit && *p != '\n') {
		if (*p == 0)
			error(loc_at(lx, p, p + 1), "NUL byte in source");
		p++;
	}
	lx->cursor = p;
}

/* Decodes a string whose opening quote is at lx->start; the token ends after the closing quote. */
static char *
scan_string(Lexer *lx)
{
	Buf b = {0};
	const char *p = lx->start + 1;
	for (;;) {
		if (p >= lx->limit || *p == '\n') {
			error(loc_at(lx, lx->start, p), "unterminated string");
			break;
		}
		if (*p == '"') {
			p++;
			break;
		}
		if (*p == '\\') {
			if (p + 1 >= lx->limit || p[1] == '\n') {
				p++;
				continue;
			}
			if (p[1] == '"' || p[1] == '\\') {
				buf_putc(&b, p[1]);
			} else {
				unsigned char c = (unsigned char)p[1];
				if (c > 0x20 && c < 0x7f)
					error(loc_at(lx, p, p + 2), "unknown escape '\\%c' in string", c);
				else
					error(loc_at(lx, p, p + 2), "unknown escape '\\' followed by byte 0x%02x in string", c);
			}
			p += 2;
			continue;
		}
		if (*p == 0)
			error(loc_at(lx, p, p + 1), "NUL byte in source");
		else
			buf_putc(&b, *p);
		p++;
	}
	lx->cursor = p;
	char *s = pool_strndup(b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* The end of the file is placed just after its last non-blank byte, where a missing ';' or '}' belongs. */
static Loc
eof_loc(const Lexer *lx)
{
	size_t len;
	const char *text = source_text(lx->file, &len);
	const char *p = lx->limit;
	int line = lx->line;
	while (p > text && strchr(" \t\r\v\f\n", p[-1]) && p[-1] != 0) {
		if (p[-1] == '\n')
			line--;
		p--;
	}
	const char *ls = p;
	while (ls > text && ls[-1] != '\n')
		ls--;
	Loc l;
	l.file = lx->file;
	l.first_line = l.last_line = line;
	l.first_column = l.last_column = (int)(p - ls) + 1;
	return l;
}

static void
scan_int(Lexer *lx, YYSTYPE *lval)
{
	const char *p = lx->start, *end = lx->cursor;
	bool u = end[-1] == 'u';
	if (u)
		end--;
	uint64_t v = 0;
	bool big = false;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; p < end; p++) {
			int d = *p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10;
			v = v * 16 + (uint64_t)d;
			if (v > 0xffffffffu)
				big = true, v = 0xffffffffu;
		}
	} else {
		for (; p < end; p++) {
			v = v * 10 + (uint64_t)(*p - '0');
			if (v > 0xffffffffu)
				big = true, v = 0xffffffffu;
		}
	}
	if (big) {
		int n = (int)(lx->cursor - lx->start);
		error(loc_at(lx, lx->start, lx->cursor), "integer literal '%.*s%s' does not fit in 32 bits",
		      n > 40 ? 40 : n, lx->start, n > 40 ? "..." : "");
		v = 0;
	}
	lval->tok.ival = (uint32_t)v;
	lval->tok.usuffix = u;
}

int
lexer_lex(YYSTYPE *lval, Loc *lloc, Lexer *lx)
{
	memset(lval, 0, sizeof *lval);
	for (;;) {
		lx->start = lx->cursor;
		const unsigned char *YYCURSOR = (const unsigned char *)lx->cursor, *YYMARKER = YYCURSOR;
		int tok;
#define TOK(t) do { tok = (t); goto done; } while (0)
#define TYPE(t) do { lval->tok.etype = (t); tok = ETYPE; goto done; } while (0)
/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:yyfill:enable = 0;
	re2c:flags:tags = 0;

	id = [A-Za-z_][A-Za-z0-9_]*;
	part = [a-z0-9_]+ ("::" [a-z0-9_]+)* | "NaN"; /* NaN: tcgen05.ld.red's .NaN, the one part PTX spells with capitals */

	"\x00" {
		lx->cursor = (const char *)YYCURSOR;
		if (lx->start >= lx->limit) {
			lx->cursor = lx->limit;
			*lloc = eof_loc(lx);
			return 0;
		}
		error(loc_at(lx, lx->start, lx->cursor), "NUL byte in source");
		continue;
	}
	[ \t\r\v\f]+ { lx->cursor = (const char *)YYCURSOR; continue; }
	"\n" {
		lx->cursor = (const char *)YYCURSOR;
		lx->line++;
		lx->line_start = lx->cursor;
		continue;
	}
	"//" { lx->cursor = (const char *)YYCURSOR; skip_line_comment(lx); continue; }
	"/*" { lx->cursor = (const char *)YYCURSOR; skip_block_comment(lx); continue; }
	["] {
		int errors_before = error_count;
		lval->tok.text = scan_string(lx);
		lval->tok.bad = error_count > errors_before;
		*lloc = loc_at(lx, lx->start, lx->cursor);
		return STRING;
	}

	"include" { TOK(INCLUDE); }
	"const" { TOK(CONST); }
	"layout" { TOK(LAYOUT); }
	"kernel" { TOK(KERNEL); }
	"launch" { TOK(LAUNCH); }
	"let" { TOK(LET); }
	"var" { TOK(VAR); }
	"shared" { TOK(SHARED); }
	"local" { TOK(LOCAL); }
	"tmem" { TOK(TMEM); }
	"view" { TOK(VIEW); }
	"at" { TOK(AT); }
	"apply" { TOK(APPLY); }
	"scope" { TOK(SCOPE); }
	"if" { TOK(IF); }
	"else" { TOK(ELSE); }
	"for" { TOK(FOR); }
	"in" { TOK(IN); }
	"cta_sync" { TOK(CTA_SYNC); }
	"warp_sync" { TOK(WARP_SYNC); }
	"bar_sync" { TOK(BAR_SYNC); }
	"bar_arrive" { TOK(BAR_ARRIVE); }
	"commit" { TOK(COMMIT); }
	"cluster_sync" { TOK(CLUSTER_SYNC); }
	"default" { TOK(DEFAULT); }
	"device" { TOK(DEVICE); }
	"copy" { TOK(COPY); }
	"mma" { TOK(MMA); }
	"reduce" { TOK(REDUCE); }
	"stride" { TOK(STRIDE); }
	"align" { TOK(ALIGN); }
	"cluster" { TOK(CLUSTER); }
	"tma" { TOK(TMA); }
	"multicast" { TOK(MULTICAST); }

	"f32" { TYPE(T_F32); }
	"f16" { TYPE(T_F16); }
	"bf16" { TYPE(T_BF16); }
	"i32" { TYPE(T_I32); }
	"u32" { TYPE(T_U32); }
	"i16" { TYPE(T_I16); }
	"u16" { TYPE(T_U16); }
	"i8" { TYPE(T_I8); }
	"u8" { TYPE(T_U8); }
	"e4m3" { TYPE(T_E4M3); }
	"e5m2" { TYPE(T_E5M2); }
	"e2m3" { TYPE(T_E2M3); }
	"e3m2" { TYPE(T_E3M2); }
	"e2m1" { TYPE(T_E2M1); }
	"ue8m0" { TYPE(T_UE8M0); }
	"ue4m3" { TYPE(T_UE4M3); }
	"mbarrier" { TYPE(T_MBARRIER); }

	"thread_idx" { TOK(THREAD_IDX); }
	"block_idx" { TOK(BLOCK_IDX); }
	"warp_id" { TOK(WARP_ID); }
	"lane_id" { TOK(LANE_ID); }
	"warpgroup_id" { TOK(WARPGROUP_ID); }
	"tmem_datapath_layout" { TOK(TMEM_DATAPATH_LAYOUT); }
	"smem_tile" { TOK(SMEM_TILE); }
	/* the f32 constants infinity and NaN (language.md section 12): reserved words, so no name hides them */
	"inf" { lval->tok.fval = INFINITY; TOK(FLOAT); }
	"nan" { lval->tok.fval = NAN; TOK(FLOAT); }

	"tcgen05" ("." part)+ {
		lx->cursor = (const char *)YYCURSOR;
		lval->tok.text = pool_strndup(lx->start, (size_t)(lx->cursor - lx->start));
		TOK(OPCODE);
	}
	id {
		lx->cursor = (const char *)YYCURSOR;
		lval->tok.text = pool_strndup(lx->start, (size_t)(lx->cursor - lx->start));
		TOK(IDENT);
	}

	[0-9]+ "u"? | "0" [xX] [0-9a-fA-F]+ "u"? {
		lx->cursor = (const char *)YYCURSOR;
		scan_int(lx, lval);
		TOK(INT);
	}
	([0-9]+ | "0" [xX] [0-9a-fA-F]+) [uUlL]+ {
		/* C's 10U, 10L, 10UL: reported, then read as the integer (unsigned with a u) they mean */
		lx->cursor = (const char *)YYCURSOR;
		const char *digits_end = lx->cursor;
		bool u = false;
		while (strchr("uUlL", digits_end[-1]))
			u |= (*--digits_end | 0x20) == 'u';
		int n = (int)(lx->cursor - lx->start), d = (int)(digits_end - lx->start);
		Loc l = loc_at(lx, lx->start, lx->cursor);
		error(l, "invalid number '%.*s'", n > 40 ? 40 : n, lx->start);
		note(l, "integers are 32-bit and the only suffix is a lowercase 'u' (unsigned): write %.*s%s", d > 40 ? 40 : d,
		     lx->start, u ? "u" : "");
		const char *end = lx->cursor;
		lx->cursor = digits_end;
		scan_int(lx, lval);
		lval->tok.usuffix = u;
		lx->cursor = end;
		TOK(INT);
	}
	[0-9]+ "." [0-9]+ ([eE] [+-]? [0-9]+)? {
		lx->cursor = (const char *)YYCURSOR;
		char *s = pool_strndup(lx->start, (size_t)(lx->cursor - lx->start));
		lval->tok.fval = strtod(s, NULL);
		TOK(FLOAT);
	}
	[0-9]+ "." [0-9]+ ([eE] [+-]? [0-9]+)? [fF] {
		/* CUDA's 1.0f: reported, then read as the float it means */
		lx->cursor = (const char *)YYCURSOR;
		int n = (int)(lx->cursor - lx->start);
		Loc l = loc_at(lx, lx->start, lx->cursor);
		error(l, "invalid number '%.*s'", n > 40 ? 40 : n, lx->start);
		note(l, "a float literal has no 'f' suffix (every float constant is f32): write %.*s", n - 1 > 40 ? 40 : n - 1,
		     lx->start);
		char *s = pool_strndup(lx->start, (size_t)(n - 1));
		lval->tok.fval = strtod(s, NULL);
		TOK(FLOAT);
	}
	[0-9]+ "." [0-9]+ ([eE] [+-]?)? [A-Za-z0-9_]* {
		/* a float cut short (1.5e, 2.0e+) or run on (1.5x): longer than any float the rules above read */
		lx->cursor = (const char *)YYCURSOR;
		int n = (int)(lx->cursor - lx->start);
		error(loc_at(lx, lx->start, lx->cursor), "invalid number '%.*s%s'",
		      n > 40 ? 40 : n, lx->start, n > 40 ? "..." : "");
		TOK(FLOAT);
	}
	[0-9] [A-Za-z0-9_]* {
		lx->cursor = (const char *)YYCURSOR;
		int n = (int)(lx->cursor - lx->start);
		error(loc_at(lx, lx->start, lx->cursor), "invalid number '%.*s%s'",
		      n > 40 ? 40 : n, lx->start, n > 40 ? "..." : "");
		TOK(INT);
	}

	"(" { TOK('('); }
	")" { TOK(')'); }
	"[" { TOK('['); }
	"]" { TOK(']'); }
	"{" { TOK('{'); }
	"}" { TOK('}'); }
	"," { TOK(','); }
	";" { TOK(';'); }
	":" { TOK(':'); }
	"=" { TOK('='); }
	"." { TOK('.'); }
	"@" { TOK('@'); }
	"&" { TOK('&'); }
	"+" { TOK('+'); }
	"-" { TOK('-'); }
	"*" { TOK('*'); }
	"/" { TOK('/'); }
	"%" { TOK('%'); }
	"<" { TOK('<'); }
	">" { TOK('>'); }
	"!" { TOK('!'); }
	"~" { TOK('~'); }
	"^" { TOK('^'); }
	"|" { TOK('|'); }
	".." { TOK(DOTDOT); }
	"->" { TOK(ARROW); }
	"<<" { TOK(SHL); }
	">>" { TOK(SHR); }
	"<=" { TOK(LE); }
	">=" { TOK(GE); }
	"==" { TOK(EQ); }
	"!=" { TOK(NE); }
	"&&" { TOK(ANDAND); }
	"||" { TOK(OROR); }
	"?" { TOK('?'); }
	"+=" { TOK(ADD_ASSIGN); }
	"-=" { TOK(SUB_ASSIGN); }
	"*=" { TOK(MUL_ASSIGN); }
	"/=" { TOK(DIV_ASSIGN); }
	"%=" { TOK(MOD_ASSIGN); }
	"&=" { TOK(AND_ASSIGN); }
	"|=" { TOK(OR_ASSIGN); }
	"^=" { TOK(XOR_ASSIGN); }
	"<<=" { TOK(SHL_ASSIGN); }
	">>=" { TOK(SHR_ASSIGN); }

	* {
		report_stray(lx, lx->start);
		continue;
	}
*/
done:
		lx->cursor = (const char *)YYCURSOR;
		*lloc = loc_at(lx, lx->start, lx->cursor);
		return tok;
#undef TOK
#undef TYPE
	}
}

static const char *
token_kind(int tok)
{
	switch (tok) {
	case IDENT: return "IDENT";
	case INT: return "INT";
	case FLOAT: return "FLOAT";
	case STRING: return "STRING";
	case ETYPE: return "ETYPE";
	case OPCODE: return "OPCODE";
	case THREAD_IDX: case BLOCK_IDX: case WARP_ID: case LANE_ID: case WARPGROUP_ID:
	case TMEM_DATAPATH_LAYOUT: case SMEM_TILE:
		return "BUILTIN";
	case INCLUDE: case CONST: case LAYOUT: case KERNEL: case LAUNCH: case LET: case VAR:
	case SHARED: case LOCAL: case TMEM: case VIEW: case AT: case APPLY: case SCOPE: case IF:
	case ELSE: case FOR: case IN: case CTA_SYNC: case WARP_SYNC: case BAR_SYNC: case BAR_ARRIVE: case COMMIT: case CLUSTER_SYNC: case DEFAULT: case DEVICE: case COPY: case MMA: case REDUCE:
	case STRIDE: case CLUSTER: case TMA: case MULTICAST:
		return "KEYWORD";
	default:
		return "PUNCT";
	}
}

bool
lexer_dump_tokens(int file, FILE *out)
{
	int errors = error_count;
	Lexer lx;
	YYSTYPE v;
	Loc l;
	lexer_init(&lx, file);
	for (;;) {
		int tok = lexer_lex(&v, &l, &lx);
		if (tok == 0) {
			fprintf(out, "%d:%d EOF ''\n", l.first_line, l.first_column);
			break;
		}
		fprintf(out, "%d:%d %s '", l.first_line, l.first_column, token_kind(tok));
		fwrite(lx.start, 1, (size_t)(lx.cursor - lx.start), out);
		fputs("'\n", out);
	}
	return error_count == errors;
}
