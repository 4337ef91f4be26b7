/* diag.c: the source table and clang-style diagnostics (location, message, source line, caret). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* isatty, strdup */
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec.h"

typedef struct Source {
	char *path;
	char *text;
	size_t len;
	size_t *lines; /* byte offset of each line's start, built on the first diagnostic */
	int nlines;
} Source;

static Source *sources;
static int nsources, capsources;

int error_count;
int warning_count;
bool diag_werror;
bool diag_nowarn;
bool diag_explain;
Warn diag_demoted = WARN_COUNT;

/* The name of each warning, for -Wno-NAME, -Werror=NAME and the [-WNAME] after its message. */
static const char *const warn_names[WARN_COUNT] = {
	[WARN_DIVERGENT_SYNC] = "divergent-sync",
	[WARN_MISSING_RELINQUISH] = "missing-relinquish",
	[WARN_EMPTY_OUTPUT] = "empty-output",
	[WARN_PTXAS_SPILL] = "ptxas-spill",
	[WARN_RACE] = "race",
	[WARN_STALE_REPLICA] = "stale-replica",
	[WARN_UNINIT] = "uninit",
	[WARN_UNCHECKED_WAIT] = "unchecked-wait",
	[WARN_OVERLAP] = "overlap",
	[WARN_UNWRITTEN] = "unwritten",
};
static bool warn_off[WARN_COUNT];
static signed char warn_error[WARN_COUNT]; /* 1: -Werror=NAME, -1: -Wno-error=NAME, 0: as -Werror says */
/* The run stops (exit 1) at this many errors; 0 means never (the fuzzer, fuzz/fuzz_tilec.c, which must not exit). */
int diag_max_errors = 100;
/* Where diagnostics go; NULL means stderr. The fuzzer points it at /dev/null: the text is still formatted. */
FILE *diag_stream;
/* What a message without a source location starts with: "tilec", or "tilec run" while it runs. */
const char *diag_command = "tilec";
const Loc no_loc = {0, 0, 0, 0, -1};

static bool colour;
/* Notes belong to the diagnostic before them: a suppressed warning suppresses its notes too. */
static bool last_suppressed;

int
source_add(const char *path, char *text, size_t len)
{
	if (nsources == capsources) {
		capsources = capsources ? 2 * capsources : 8;
		sources = realloc(sources, capsources * sizeof *sources);
		if (!sources)
			out_of_memory();
	}
	/* The lexer relies on a NUL after the last byte, whatever the caller allocated. */
	char *t = realloc(text, len + 1);
	if (!t)
		out_of_memory();
	t[len] = 0;
	/* standard input is named as gcc names it */
	char *p = strdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
	if (!p)
		out_of_memory();
	sources[nsources] = (Source){p, t, len, NULL, 0};
	return nsources++;
}

/* Forgets every source file and resets the counters, so that a process can compile again (the fuzzer). */
void
diag_reset(void)
{
	for (int i = 0; i < nsources; i++) {
		free(sources[i].path);
		free(sources[i].text);
		free(sources[i].lines);
	}
	free(sources);
	sources = NULL;
	nsources = capsources = 0;
	error_count = warning_count = 0;
	last_suppressed = false;
	memset(warn_off, 0, sizeof warn_off);
	memset(warn_error, 0, sizeof warn_error);
}

const char *
source_path(int file)
{
	return file >= 0 && file < nsources ? sources[file].path : "tilec";
}

const char *
source_text(int file, size_t *len)
{
	if (file < 0 || file >= nsources) {
		*len = 0;
		return "";
	}
	*len = sources[file].len;
	return sources[file].text;
}

int
source_count(void)
{
	return nsources;
}

void
diag_setup(void)
{
	const char *nc = getenv("NO_COLOR");
	colour = isatty(STDERR_FILENO) && !(nc && *nc);
}

Loc
loc_span(Loc a, Loc b)
{
	Loc r = a;
	r.last_line = b.last_line;
	r.last_column = b.last_column;
	return r;
}

static void
build_lines(Source *s)
{
	int cap = 64;
	s->lines = malloc(cap * sizeof *s->lines);
	if (!s->lines)
		out_of_memory();
	s->nlines = 0;
	/* line 1 starts after a byte order mark, as the lexer's columns do */
	s->lines[s->nlines++] = s->len >= 3 && !memcmp(s->text, "\xef\xbb\xbf", 3) ? 3 : 0;
	for (size_t i = 0; i < s->len; i++) {
		if (s->text[i] != '\n')
			continue;
		if (s->nlines == cap) {
			cap *= 2;
			s->lines = realloc(s->lines, cap * sizeof *s->lines);
			if (!s->lines)
				out_of_memory();
		}
		s->lines[s->nlines++] = i + 1;
	}
}

static FILE *
diag_out(void)
{
	return diag_stream ? diag_stream : stderr;
}

/* Source lines longer than this are shown as a window of SHOW_WIDTH bytes around the caret. */
#define SHOW_LONG 240
#define SHOW_WIDTH 160

/* Echoes the line of loc and a caret line under its range; bytes that would upset the terminal print as '?'. */
static void
show_source(Buf *b, Loc loc)
{
	Source *s = &sources[loc.file];
	if (!s->lines)
		build_lines(s);
	if (loc.first_line > s->nlines)
		return;
	size_t start = s->lines[loc.first_line - 1], end = start;
	while (end < s->len && s->text[end] != '\n')
		end++;
	if (end > start && s->text[end - 1] == '\r')
		end--;
	/* The caret's byte, at most just past the end of the line; the range ends on its line. */
	size_t caret = start + (size_t)(loc.first_column < 1 ? 0 : loc.first_column - 1);
	if (caret > end)
		caret = end;
	size_t last = caret;
	if (loc.last_line == loc.first_line && loc.last_column > loc.first_column)
		last = start + (size_t)loc.last_column - 1;
	if (last > end)
		last = end;
	/* A long line (minified, or a fuzzer's) is cut to a window around the caret, marked with "...". */
	size_t from = start, to = end;
	if (end - start > SHOW_LONG) {
		from = caret - start > SHOW_WIDTH / 2 ? caret - SHOW_WIDTH / 2 : start;
		to = end - from > SHOW_WIDTH ? from + SHOW_WIDTH : end;
		if (last >= to)
			last = to > caret ? to - 1 : caret;
	}
	if (from > start)
		buf_puts(b, "...");
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)s->text[i];
		buf_putc(b, c == '\t' || (c >= 0x20 && c < 0x7f) ? (char)c : '?');
	}
	if (to < end)
		buf_puts(b, "...");
	buf_putc(b, '\n');
	if (from > start)
		buf_puts(b, "   ");
	for (size_t i = from; i < caret; i++)
		buf_putc(b, s->text[i] == '\t' ? '\t' : ' ');
	if (colour)
		buf_puts(b, "\033[1;32m");
	buf_putc(b, '^');
	for (size_t i = caret + 1; i <= last; i++)
		buf_putc(b, '~');
	if (colour)
		buf_puts(b, "\033[0m");
	buf_putc(b, '\n');
}

/* One diagnostic is formatted whole, then written at once: stderr is unbuffered. */
static void
emit(Loc loc, const char *kind, const char *kcolour, const char *suffix, const char *fmt, va_list ap)
{
	Buf b = {0};
	bool has_loc = loc.file >= 0 && loc.file < nsources && loc.first_line > 0;
	if (colour)
		buf_puts(&b, "\033[1m");
	if (has_loc)
		buf_printf(&b, "%s:%d:%d: ", sources[loc.file].path, loc.first_line, loc.first_column);
	else
		buf_printf(&b, "%s: ", diag_command);
	if (colour)
		buf_printf(&b, "\033[1;%sm%s:\033[0m\033[1m ", kcolour, kind);
	else
		buf_printf(&b, "%s: ", kind);
	size_t text = b.len;
	buf_vprintf(&b, fmt, ap);
	/* A message may quote the source (a string, a token): no control byte reaches the terminal. */
	for (size_t i = text; i < b.len; i++)
		if ((unsigned char)b.data[i] < 0x20 || b.data[i] == 0x7f)
			b.data[i] = '?';
	buf_puts(&b, suffix);
	if (colour)
		buf_puts(&b, "\033[0m");
	buf_putc(&b, '\n');
	if (has_loc)
		show_source(&b, loc);
	FILE *out = diag_out();
	fwrite(b.data, 1, b.len, out);
	buf_free(&b);
}

/* A run that reports this many errors has nothing more useful to say. */
static void
count_error(void)
{
	if (diag_max_errors > 0 && error_count >= diag_max_errors) {
		FILE *out = diag_out();
		fputs("tilec: error: too many errors, stopping\n", out);
		fflush(out);
		exit(1);
	}
	error_count++;
}

static void vwarn(Warn w, Loc loc, const char *fmt, va_list ap);

void
error(Loc loc, const char *fmt, ...)
{
	if (diag_demoted < WARN_COUNT) {
		va_list ap;
		va_start(ap, fmt);
		vwarn(diag_demoted, loc, fmt, ap);
		va_end(ap);
		return;
	}
	count_error();
	last_suppressed = false;
	va_list ap;
	va_start(ap, fmt);
	emit(loc, "error", "31", "", fmt, ap);
	va_end(ap);
}

static void
vwarn(Warn w, Loc loc, const char *fmt, va_list ap)
{
	if (diag_nowarn || warn_off[w]) {
		last_suppressed = true;
		return;
	}
	last_suppressed = false;
	char suffix[64];
	if (warn_error[w] > 0 || (diag_werror && warn_error[w] == 0)) {
		snprintf(suffix, sizeof suffix, " [-Werror=%s]", warn_names[w]);
		count_error();
		emit(loc, "error", "31", suffix, fmt, ap);
	} else {
		snprintf(suffix, sizeof suffix, " [-W%s]", warn_names[w]);
		warning_count++;
		emit(loc, "warning", "35", suffix, fmt, ap);
	}
}

void
warn(Warn w, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(w, loc, fmt, ap);
	va_end(ap);
}

/* The warning options: -w, -Werror, -Wno-error, -WNAME, -Wno-NAME, -Werror=NAME, -Wno-error=NAME, and
 * -Wall / -Wextra, which change nothing (every warning is on by default). NULL when arg is one of
 * them, else why not. */
const char *
diag_option(const char *arg)
{
	if (strcmp(arg, "-w") == 0) {
		diag_nowarn = true;
		return NULL;
	}
	if (strncmp(arg, "-W", 2) != 0)
		return pool_printf("unknown option '%s'", arg);
	const char *name = arg + 2;
	if (strcmp(name, "error") == 0 || strcmp(name, "no-error") == 0) {
		diag_werror = name[0] == 'e';
		return NULL;
	}
	if (strcmp(name, "all") == 0 || strcmp(name, "extra") == 0)
		return NULL;
	bool no = strncmp(name, "no-", 3) == 0;
	if (no)
		name += 3;
	bool as_error = strncmp(name, "error=", 6) == 0;
	if (as_error)
		name += 6;
	for (int w = 0; w < WARN_COUNT; w++) {
		if (strcmp(name, warn_names[w]) != 0)
			continue;
		if (as_error)
			warn_error[w] = no ? -1 : 1;
		else
			warn_off[w] = no;
		return NULL;
	}
	const char *near = closest_name(name, warn_names, WARN_COUNT);
	if (near)
		return pool_printf("unknown warning option '%s'; did you mean '-W%s%s%s'?", arg, no ? "no-" : "",
		                   as_error ? "error=" : "", near);
	Buf b = {0};
	for (int w = 0; w < WARN_COUNT; w++)
		buf_printf(&b, "%s%s", w ? ", " : "", warn_names[w]);
	const char *r = pool_printf("unknown warning option '%s'; the warnings are %s", arg, b.data);
	buf_free(&b);
	return r;
}

bool
warn_enabled(Warn w)
{
	return !diag_nowarn && !warn_off[w];
}

void
note(Loc loc, const char *fmt, ...)
{
	if (last_suppressed)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(loc, "note", "36", "", fmt, ap);
	va_end(ap);
}

void
explain_note(Loc loc, const char *fmt, ...)
{
	if (!diag_explain)
		return;
	last_suppressed = false;
	va_list ap;
	va_start(ap, fmt);
	emit(loc, "note", "36", "", fmt, ap);
	va_end(ap);
}

/* What a CUDA C++ programmer types first, and how .tile says it. */
static const struct {
	const char *cuda, *hint;
} cuda_habits[] = {
	{"__syncthreads", "CUDA's __syncthreads() is the statement 'cta_sync;'"},
	{"__syncwarp", "CUDA's __syncwarp() is the statement 'warp_sync;'"},
	{"threadIdx", "CUDA's threadIdx is 'thread_idx' (thread_idx.x, thread_idx.y, thread_idx.z)"},
	{"blockIdx", "CUDA's blockIdx is 'block_idx' (block_idx.x, block_idx.y, block_idx.z)"},
	{"blockDim", "the block size is the constant 'block = N' of launch(...); write the number"},
	{"gridDim", "the grid size is the constant 'grid = N' of launch(...); write the number"},
	{"warpSize", "a warp is 32 threads; write 32"},
	{"laneid", "the lane of a thread is 'lane_id'"},
	{"float", "the 32-bit float type is 'f32' (var x: f32 = 1.0;)"},
	{"int", "the 32-bit integer type is 'i32' (var i: i32 = 0;), and 'let' binds an integer without one"},
	{"int32_t", "the 32-bit integer type is 'i32'"},
	{"unsigned", "the 32-bit unsigned type is 'u32'"},
	{"uint32_t", "the 32-bit unsigned type is 'u32'"},
	{"uint", "the 32-bit unsigned type is 'u32'"},
	{"half", "the 16-bit float type is 'f16'"},
	{"__half", "the 16-bit float type is 'f16'"},
	{"__nv_bfloat16", "the bfloat16 type is 'bf16'"},
	{"__nv_fp8_e4m3", "CUDA's __nv_fp8_e4m3 is 'e4m3' (and __nv_fp8_e5m2 is 'e5m2')"},
	{"__nv_fp8_e5m2", "CUDA's __nv_fp8_e5m2 is 'e5m2' (and __nv_fp8_e4m3 is 'e4m3')"},
	{"__nv_fp8_e8m0", "CUDA's __nv_fp8_e8m0 is 'ue8m0', a power of two 2^(b - 127)"},
	{"__nv_fp6_e2m3", "CUDA's __nv_fp6_e2m3 is 'e2m3' (and __nv_fp6_e3m2 is 'e3m2')"},
	{"__nv_fp6_e3m2", "CUDA's __nv_fp6_e3m2 is 'e3m2' (and __nv_fp6_e2m3 is 'e2m3')"},
	{"__nv_fp4_e2m1", "CUDA's __nv_fp4_e2m1 is 'e2m1'"},
	{"fp8", "the 8-bit float types are 'e4m3' and 'e5m2'"},
	{"fp6", "the 6-bit float types are 'e2m3' and 'e3m2'"},
	{"fp4", "the 4-bit float type is 'e2m1'"},
	{"double", "there is no 64-bit float; the float types are f32, f16 and bf16"},
	{"auto", "'let' binds an integer without a type; a float needs 'var x: f32 = ...'"},
	{"fmaxf", "CUDA's fmaxf is 'max' (min, max and abs take floats and integers)"},
	{"fminf", "CUDA's fminf is 'min' (min, max and abs take floats and integers)"},
	{"fabsf", "CUDA's fabsf is 'abs' (min, max and abs take floats and integers)"},
	{"fmaf", "CUDA's fmaf is 'fma'"},
	{"__expf", "CUDA's __expf is 'exp_approx' (the hardware's ex2.approx; 'exp' is tilec's exact sequence)"},
	{"INFINITY", "C's INFINITY is the f32 constant 'inf' (and -INFINITY is '-inf')"},
	{"HUGE_VALF", "C's HUGE_VALF is the f32 constant 'inf' (and -HUGE_VALF is '-inf')"},
	{"CUDART_INF_F", "CUDA's CUDART_INF_F is the f32 constant 'inf' (and -CUDART_INF_F is '-inf')"},
	{"NAN", "C's NAN is the f32 constant 'nan'"},
	{"CUDART_NAN_F", "CUDA's CUDART_NAN_F is the f32 constant 'nan'"},
};

const char *
cuda_habit(const char *name)
{
	for (size_t i = 0; i < sizeof cuda_habits / sizeof cuda_habits[0]; i++)
		if (strcmp(cuda_habits[i].cuda, name) == 0)
			return cuda_habits[i].hint;
	return NULL;
}
