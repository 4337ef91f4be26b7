/* fuzz_tilec.c: the libFuzzer harness of tilec (docs/fuzzing.md). One input is one source file; it goes
 * through what `tilec FILE.tile -o -` runs (parse, check and lower, emit CUDA C), plus the token and AST
 * dumps of --emit=tokens and --emit=ast, the CUDA C of --target=emu and the PTX of --emit=ptx.
 * Includes are not followed (they are the driver's: the harness never touches the file system).
 * Every run starts from the same global state. */
#define _GNU_SOURCE /* fopencookie */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "tilec.h"

/* diag.c's hooks for a process that compiles many times (not in tilec.h: only this file uses them). */

/* Where diagnostics and dumps go: a stream that discards what it is given, without a system call
 * (and without /dev/null, which a process running as root can have replaced by a file). */
static FILE *devnull;

static ssize_t
discard(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)size;
}

/* TILEC_FUZZ_SKIP_KNOWN=1 skips inputs that would hit a bug already kept in fuzz/crashers/ and not yet
 * fixed, so that a run finds new bugs rather than the same one again (`make fuzz` sets it; the replay
 * of fuzz/crashers reports the known ones). The tests are rough: they skip more than the bug needs.
 * Each entry names its reproducer; delete the entry when the bug is fixed. */
static bool skip_known;

static bool
known_bug(const uint8_t *d, size_t n)
{
	/* No open bug now. The entries used while the first findings were open, for the record:
	 * hang-cname-tl-prefix.tile: an identifier starting with tl_ or __;
	 * hang-unroll-nested-loops.tile: 3 'for's, or 2 and a 3-digit bound after '..';
	 * ubsan-layout-*-overflow.tile: '@' and a literal of 10 decimal or 8 hex digits. */
	(void)d;
	(void)n;
	return false;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* TILEC_FUZZ_VERBOSE=1 shows the diagnostics, to look at one input. */
	const char *v = getenv("TILEC_FUZZ_VERBOSE");
	bool verbose = v && *v && strcmp(v, "0") != 0;
	devnull = fopencookie(NULL, "w", (cookie_io_functions_t){.write = discard});
	if (!devnull)
		abort();
	diag_stream = verbose ? stderr : devnull;
	const char *k = getenv("TILEC_FUZZ_SKIP_KNOWN");
	skip_known = k && *k && strcmp(k, "0") != 0;
	diag_max_errors = 0; /* count every error; "too many errors" would exit() and end the fuzzing */
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (skip_known && known_bug(data, size))
		return 0;
	/* source_add takes a malloc'd buffer and appends the NUL the lexer relies on. */
	char *text = malloc(size ? size : 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	int file = source_add("fuzz.tile", text, size);

	/* --emit=tokens */
	lexer_dump_tokens(file, devnull);

	/* The driver (compile() in src/driver.c): the AST, then lowering and CUDA C only without errors. */
	error_count = warning_count = 0;
	List items = {0};
	bool ok = parse_file(file, &items);
	if (ok && !error_count) {
		ast_dump(devnull, &items);
		Program *prog = lower_program(&items, "fuzz.tile");
		if (prog && !error_count) {
			/* --emit=ir, then --emit=cu, --target=emu and --emit=ptx after the code passes (once, as in the
			   driver): the output is discarded */
			const char *targets[] = {"ir", "cuda", "emu", "ptx"};
			TargetOptions opt = {.arch = "sm_100a"};
			for (int t = 0; t < 4; t++) {
				Buf out = {0};
				pipeline_emit(prog, target_named(targets[t]), &opt, &out);
				buf_free(&out);
			}
		}
	}

	fflush(devnull);
	pool_free_all();
	diag_reset();
	sema_reset(false);
	return 0;
}
