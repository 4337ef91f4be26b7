/* test_lexer.c: unit tests of the lexer (grammar/lexer.re) and of the diagnostics printer (src/diag.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilec.h"
#include "parser.h"
#include "unit.h"

/* ---------------------------------------------------------------- helpers */

static int
add_source(const char *text, size_t len)
{
	char *copy = malloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = 0;
	return source_add("t.tile", copy, len);
}

static int
add_text(const char *text)
{
	return add_source(text, strlen(text));
}


typedef struct Token {
	int kind;
	Loc loc;
	Tok tok;
} Token;

/* Lexes the whole text (diagnostics captured into *diags when diags is not NULL). */
static int
lex_all(const char *text, size_t len, Token *out, int max, const char **diags)
{
	int file = add_source(text, len);
	if (error_count > 50)
		error_count = 0; /* the 100-error stop must not end the test run */
	Lexer lx;
	lexer_init(&lx, file);
	capture_start();
	int n = 0;
	for (;;) {
		YYSTYPE v;
		Loc l;
		int kind = lexer_lex(&v, &l, &lx);
		if (n < max)
			out[n] = (Token){kind, l, v.tok};
		n++;
		if (kind == 0)
			break;
	}
	const char *d = capture_end();
	if (diags)
		*diags = d;
	return n;
}

static int
lex_str(const char *text, Token *out, int max, const char **diags)
{
	return lex_all(text, strlen(text), out, max, diags);
}

/* ---------------------------------------------------------------- lexer */

START_TEST(test_keywords)
{
	static const int kinds[] = {
		INCLUDE, CONST, LAYOUT, KERNEL, LAUNCH, LET, VAR, SHARED, LOCAL, TMEM, VIEW, AT, APPLY,
		SCOPE, IF, ELSE, FOR, IN, CTA_SYNC, WARP_SYNC, DEFAULT,
	};
	Token t[32];
	int e = error_count;
	int n = lex_str("include const layout kernel launch let var shared local tmem view at apply scope if else"
	                " for in cta_sync warp_sync default", t, 32, NULL);
	ck_assert_int_eq(n, 22);
	for (int i = 0; i < 21; i++)
		ck_assert_int_eq(t[i].kind, kinds[i]);
	ck_assert_int_eq(t[21].kind, 0);
	ck_assert_int_eq(error_count, e);
}
END_TEST

START_TEST(test_identifiers)
{
	Token t[16];
	int n = lex_str("S R grid block warp cta rearrange sub_slab _x9 lets tmem2", t, 16, NULL);
	ck_assert_int_eq(n, 12);
	for (int i = 0; i < 11; i++)
		ck_assert_int_eq(t[i].kind, IDENT);
	ck_assert_str_eq(t[0].tok.text, "S");
	ck_assert_str_eq(t[8].tok.text, "_x9");
	ck_assert_str_eq(t[9].tok.text, "lets");
	ck_assert_str_eq(t[10].tok.text, "tmem2");
}
END_TEST

START_TEST(test_element_types)
{
	static const EType types[] = {T_F32, T_F16, T_BF16, T_I32, T_U32, T_I16, T_U16, T_I8, T_U8};
	Token t[16];
	int n = lex_str("f32 f16 bf16 i32 u32 i16 u16 i8 u8 f64", t, 16, NULL);
	ck_assert_int_eq(n, 11);
	for (int i = 0; i < 9; i++) {
		ck_assert_int_eq(t[i].kind, ETYPE);
		ck_assert_int_eq(t[i].tok.etype, types[i]);
	}
	ck_assert_int_eq(t[9].kind, IDENT);
}
END_TEST

START_TEST(test_builtin_words)
{
	Token t[16];
	lex_str("thread_idx block_idx warp_id lane_id warpgroup_id tmem_datapath_layout", t, 16, NULL);
	ck_assert_int_eq(t[0].kind, THREAD_IDX);
	ck_assert_int_eq(t[1].kind, BLOCK_IDX);
	ck_assert_int_eq(t[2].kind, WARP_ID);
	ck_assert_int_eq(t[3].kind, LANE_ID);
	ck_assert_int_eq(t[4].kind, WARPGROUP_ID);
	ck_assert_int_eq(t[5].kind, TMEM_DATAPATH_LAYOUT);
}
END_TEST

START_TEST(test_integers)
{
	Token t[16];
	int e = error_count;
	int n = lex_str("0 42 7u 0x1F 0XfF 0xffffffff 4294967295u", t, 16, NULL);
	ck_assert_int_eq(error_count, e);
	ck_assert_int_eq(n, 8);
	ck_assert_int_eq(t[0].kind, INT);
	ck_assert_uint_eq(t[1].tok.ival, 42);
	ck_assert(!t[1].tok.usuffix);
	ck_assert_uint_eq(t[2].tok.ival, 7);
	ck_assert(t[2].tok.usuffix);
	ck_assert_uint_eq(t[3].tok.ival, 0x1f);
	ck_assert_uint_eq(t[4].tok.ival, 0xff);
	ck_assert_uint_eq(t[5].tok.ival, 0xffffffffu);
	ck_assert(t[6].tok.usuffix);
}
END_TEST

START_TEST(test_integer_overflow)
{
	Token t[8];
	const char *d;
	int e = error_count;
	int n = lex_str("4294967296 0x100000000 1 12ab", t, 8, &d);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(error_count, e + 3);
	ck_assert_int_eq(t[3].kind, INT);
	ck_assert_ptr_nonnull(strstr(d, "error: invalid number '12ab'"));
	ck_assert_int_eq(t[0].kind, INT);
	ck_assert_int_eq(t[1].kind, INT);
	ck_assert_uint_eq(t[2].tok.ival, 1);
	ck_assert_ptr_nonnull(strstr(d, "t.tile:1:1: error: integer literal '4294967296' does not fit in 32 bits"));
	ck_assert_ptr_nonnull(strstr(d, "integer literal '0x100000000' does not fit in 32 bits"));
}
END_TEST

START_TEST(test_floats_and_ranges)
{
	Token t[16];
	int n = lex_str("1.0 2.5e-3 3.25E+2 0..64", t, 16, NULL);
	ck_assert_int_eq(n, 7);
	ck_assert_int_eq(t[0].kind, FLOAT);
	ck_assert(t[0].tok.fval == 1.0);
	ck_assert(t[1].tok.fval == 2.5e-3);
	ck_assert(t[2].tok.fval == 325.0);
	ck_assert_int_eq(t[3].kind, INT);
	ck_assert_int_eq(t[4].kind, DOTDOT);
	ck_assert_int_eq(t[5].kind, INT);
	ck_assert_uint_eq(t[5].tok.ival, 64);
}
END_TEST

START_TEST(test_strings)
{
	Token t[8];
	int e = error_count;
	lex_str("\"(wh r) -> r\" \"a\\\"b\\\\c\" \"\"", t, 8, NULL);
	ck_assert_int_eq(error_count, e);
	ck_assert_int_eq(t[0].kind, STRING);
	ck_assert_str_eq(t[0].tok.text, "(wh r) -> r");
	ck_assert_str_eq(t[1].tok.text, "a\"b\\c");
	ck_assert_str_eq(t[2].tok.text, "");
}
END_TEST

START_TEST(test_string_errors)
{
	Token t[8];
	const char *d;
	int e = error_count;
	int n = lex_str("\"a\\qb\" \"open\nx", t, 8, &d);
	ck_assert_int_eq(error_count, e + 2);
	ck_assert_ptr_nonnull(strstr(d, "t.tile:1:3: error: unknown escape '\\q' in string"));
	ck_assert_ptr_nonnull(strstr(d, "t.tile:1:8: error: unterminated string"));
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(t[1].kind, STRING);
	ck_assert_str_eq(t[1].tok.text, "open");
	ck_assert_int_eq(t[2].kind, IDENT);
	ck_assert_int_eq(t[2].loc.first_line, 2);
}
END_TEST

START_TEST(test_opcodes)
{
	Token t[8];
	int n = lex_str("tcgen05.ld.sync.aligned.16x64b.x8.pack::16b.b32 tcgen05.wait::st.sync.aligned tcgen05", t, 8,
	                NULL);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(t[0].kind, OPCODE);
	ck_assert_str_eq(t[0].tok.text, "tcgen05.ld.sync.aligned.16x64b.x8.pack::16b.b32");
	ck_assert_int_eq(t[1].kind, OPCODE);
	ck_assert_str_eq(t[1].tok.text, "tcgen05.wait::st.sync.aligned");
	ck_assert_int_eq(t[2].kind, IDENT);
	/* A space ends the opcode. */
	n = lex_str("tcgen05.alloc .sync", t, 8, NULL);
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(t[0].tok.text, "tcgen05.alloc");
	ck_assert_int_eq(t[1].kind, '.');
}
END_TEST

START_TEST(test_punctuation)
{
	static const int kinds[] = {
		'(', ')', '[', ']', '{', '}', ',', ';', ':', '=', DOTDOT, ARROW, '@', '&', '+', '-', '*', '/',
		'%', SHL, SHR, '<', LE, '>', GE, EQ, NE, ANDAND, OROR, '!', '~', '^', '|', '.',
	};
	Token t[40];
	int e = error_count;
	int n = lex_str("( ) [ ] { } , ; : = .. -> @ & + - * / % << >> < <= > >= == != && || ! ~ ^ | .", t, 40, NULL);
	ck_assert_int_eq(error_count, e);
	ck_assert_int_eq(n, 35);
	for (int i = 0; i < 34; i++)
		ck_assert_int_eq(t[i].kind, kinds[i]);
}
END_TEST

START_TEST(test_comments)
{
	Token t[8];
	int e = error_count;
	int n = lex_str("a // b c\n/* d\n e */ f /**/ g", t, 8, NULL);
	ck_assert_int_eq(error_count, e);
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(t[1].tok.text, "f");
	ck_assert_int_eq(t[1].loc.first_line, 3);
	ck_assert_int_eq(t[1].loc.first_column, 7);
	ck_assert_str_eq(t[2].tok.text, "g");
}
END_TEST

START_TEST(test_unterminated_comment)
{
	Token t[8];
	const char *d;
	int e = error_count;
	int n = lex_str("a\n  /* never\nclosed", t, 8, &d);
	ck_assert_int_eq(error_count, e + 1);
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_nonnull(strstr(d, "t.tile:2:3: error: unterminated comment"));
}
END_TEST

START_TEST(test_locations)
{
	Token t[8];
	lex_str("let  abc =\n\t 12;", t, 8, NULL);
	ck_assert_int_eq(t[1].loc.first_line, 1);
	ck_assert_int_eq(t[1].loc.first_column, 6);
	ck_assert_int_eq(t[1].loc.last_line, 1);
	ck_assert_int_eq(t[1].loc.last_column, 8); /* inclusive */
	ck_assert_int_eq(t[3].loc.first_line, 2);
	ck_assert_int_eq(t[3].loc.first_column, 3);
	ck_assert_int_eq(t[3].loc.last_column, 4);
	ck_assert_int_eq(t[1].loc.file, source_count() - 1);
}
END_TEST

START_TEST(test_nul_bytes)
{
	Token t[8];
	const char *d;
	int e = error_count;
	int n = lex_all("a\0b", 3, t, 8, &d);
	ck_assert_int_eq(error_count, e + 1);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(t[1].tok.text, "b");
	ck_assert_ptr_nonnull(strstr(d, "t.tile:1:2: error: NUL byte in source"));
	/* Only NUL bytes: one error each, then the end. */
	e = error_count;
	n = lex_all("\0\0\0", 3, t, 8, NULL);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(error_count, e + 3);
	/* Empty input. */
	e = error_count;
	n = lex_all("", 0, t, 8, NULL);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(t[0].kind, 0);
	ck_assert_int_eq(error_count, e);
}
END_TEST

START_TEST(test_stray_bytes)
{
	Token t[8];
	const char *d;
	int e = error_count;
	int n = lex_str("a \xff\xfe\x80 b $ c", t, 8, &d);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(error_count, e + 2); /* one per run */
	ck_assert_ptr_nonnull(strstr(d, "t.tile:1:3: error: stray byte 0xff in program"));
	ck_assert_ptr_nonnull(strstr(d, "t.tile:1:9: error: stray '$' in program"));
	/* Bytes >= 0x80 inside strings and comments are fine. */
	e = error_count;
	lex_str("\"\xe2\x82\xac\" // \xff\n/* \xfe */", t, 8, NULL);
	ck_assert_int_eq(error_count, e);
	ck_assert_str_eq(t[0].tok.text, "\xe2\x82\xac");
}
END_TEST

START_TEST(test_long_identifier)
{
	size_t len = 1 << 20;
	char *text = malloc(len + 1);
	memset(text, 'x', len);
	text[len] = 0;
	Token t[4];
	int n = lex_all(text, len, t, 4, NULL);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(t[0].kind, IDENT);
	ck_assert_uint_eq(strlen(t[0].tok.text), len);
	free(text);
}
END_TEST

START_TEST(test_dump_tokens)
{
	int file = add_text("let x = 0x10;\n  \"s\" tcgen05.wait::ld.sync.aligned");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	ck_assert(lexer_dump_tokens(file, out));
	fclose(out);
	ck_assert_str_eq(buf, "1:1 KEYWORD 'let'\n"
	                      "1:5 IDENT 'x'\n"
	                      "1:7 PUNCT '='\n"
	                      "1:9 INT '0x10'\n"
	                      "1:13 PUNCT ';'\n"
	                      "2:3 STRING '\"s\"'\n"
	                      "2:7 OPCODE 'tcgen05.wait::ld.sync.aligned'\n"
	                      "2:36 EOF ''\n");
	free(buf);
	file = add_text("a $");
	out = open_memstream(&buf, &len);
	capture_start();
	ck_assert(!lexer_dump_tokens(file, out));
	capture_end();
	fclose(out);
	free(buf);
}
END_TEST

/* ---------------------------------------------------------------- diagnostics */

START_TEST(test_diag_caret)
{
	int file = add_text("first line\n\tlet  x = 1;\n");
	Loc l = {2, 7, 2, 7, file};
	Loc r = {2, 2, 2, 4, file};
	capture_start();
	error(l, "bad %s", "name");
	warn(WARN_EMPTY_OUTPUT, r, "w");
	const char *d = capture_end();
	ck_assert_str_eq(d, "t.tile:2:7: error: bad name\n"
	                    "\tlet  x = 1;\n"
	                    "\t     ^\n"
	                    "t.tile:2:2: warning: w [-Wempty-output]\n"
	                    "\tlet  x = 1;\n"
	                    "\t^~~\n");
}
END_TEST

START_TEST(test_diag_no_location)
{
	capture_start();
	int e = error_count;
	error(no_loc, "no input files");
	const char *d = capture_end();
	ck_assert_str_eq(d, "tilec: error: no input files\n");
	ck_assert_int_eq(error_count, e + 1);
}
END_TEST

START_TEST(test_diag_unprintable)
{
	int file = add_source("a\x01\xff b", 5);
	Loc l = {1, 5, 1, 5, file};
	capture_start();
	note(l, "here");
	const char *d = capture_end();
	ck_assert_str_eq(d, "t.tile:1:5: note: here\na?? b\n    ^\n");
}
END_TEST

START_TEST(test_diag_werror_and_nowarn)
{
	int file = add_text("x\n");
	Loc l = {1, 1, 1, 1, file};
	int e = error_count, w = warning_count;
	capture_start();
	diag_nowarn = true;
	warn(WARN_DIVERGENT_SYNC, l, "quiet");
	note(l, "quiet note");
	diag_nowarn = false;
	diag_werror = true;
	warn(WARN_DIVERGENT_SYNC, l, "loud");
	diag_werror = false;
	const char *d = capture_end();
	ck_assert_str_eq(d, "t.tile:1:1: error: loud [-Werror=divergent-sync]\nx\n^\n");
	ck_assert_int_eq(error_count, e + 1);
	ck_assert_int_eq(warning_count, w);
}
END_TEST

START_TEST(test_diag_too_many_errors)
{
	fflush(stdout);
	FILE *f = tmpfile();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fileno(f), 2);
		error_count = 0;
		for (int i = 0; i < 150; i++)
			error(no_loc, "e%d", i);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	rewind(f);
	static char buf[1 << 14];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "tilec: error: e99\ntilec: error: too many errors, stopping\n"));
	ck_assert_ptr_null(strstr(buf, "e100"));
}
END_TEST

START_TEST(test_diag_loc_span)
{
	Loc a = {1, 2, 1, 3, 0}, b = {4, 5, 4, 9, 0};
	Loc s = loc_span(a, b);
	ck_assert_int_eq(s.first_line, 1);
	ck_assert_int_eq(s.first_column, 2);
	ck_assert_int_eq(s.last_line, 4);
	ck_assert_int_eq(s.last_column, 9);
}
END_TEST

static Suite *
lexer_suite(void)
{
	Suite *s = suite_create("lexer");
	struct {
		const char *name;
		const TTest *test;
	} tests[] = {
		{"lexer_keywords", test_keywords},
		{"lexer_identifiers", test_identifiers},
		{"lexer_element_types", test_element_types},
		{"lexer_builtin_words", test_builtin_words},
		{"lexer_integers", test_integers},
		{"lexer_integer_overflow", test_integer_overflow},
		{"lexer_floats_and_ranges", test_floats_and_ranges},
		{"lexer_strings", test_strings},
		{"lexer_string_errors", test_string_errors},
		{"lexer_opcodes", test_opcodes},
		{"lexer_punctuation", test_punctuation},
		{"lexer_comments", test_comments},
		{"lexer_unterminated_comment", test_unterminated_comment},
		{"lexer_locations", test_locations},
		{"lexer_nul_bytes", test_nul_bytes},
		{"lexer_stray_bytes", test_stray_bytes},
		{"lexer_long_identifier", test_long_identifier},
		{"lexer_dump_tokens", test_dump_tokens},
		{"diag_caret", test_diag_caret},
		{"diag_no_location", test_diag_no_location},
		{"diag_unprintable", test_diag_unprintable},
		{"diag_werror_and_nowarn", test_diag_werror_and_nowarn},
		{"diag_too_many_errors", test_diag_too_many_errors},
		{"diag_loc_span", test_diag_loc_span},
	};
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		TCase *tc = tcase_create(tests[i].name);
		tcase_add_test(tc, tests[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

UNIT_MAIN(lexer_suite)
