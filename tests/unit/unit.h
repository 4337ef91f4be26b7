/* unit.h: what the unit-test programs share: capturing diagnostics, hand-built tensors, and the main() that runs one check suite with one PASS/FAIL line per test. */
#ifndef UNIT_H
#define UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Diagnostics go to fd 2; a test reads them back from a temporary file: capture_start(), the code
 * under test, then capture_end() returns what it printed. */
static FILE *capture_file;
static int capture_saved = -1;
static char capture_buf[1 << 16];

__attribute__((unused)) static void
capture_start(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	ck_assert_ptr_nonnull(capture_file);
	capture_saved = dup(2);
	dup2(fileno(capture_file), 2);
}

__attribute__((unused)) static const char *
capture_end(void)
{
	fflush(stderr);
	dup2(capture_saved, 2);
	close(capture_saved);
	rewind(capture_file);
	size_t n = fread(capture_buf, 1, sizeof capture_buf - 1, capture_file);
	capture_buf[n] = 0;
	fclose(capture_file);
	return capture_buf;
}

#ifdef TILEC_H
#include <stdarg.h>

/* A tensor built by hand, as lower.c builds one from a declaration: tensor(kind, type, name, rank, dims...). */
__attribute__((unused)) static Tensor *
tensor(TensorKind kind, EType type, const char *name, int rank, ...)
{
	Tensor *t = pool_alloc(sizeof *t);
	t->kind = kind;
	t->type = type;
	t->name = name;
	t->loc = no_loc;
	t->rank = rank;
	t->count = 1;
	va_list ap;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++) {
		t->dims[i] = va_arg(ap, int);
		t->count *= t->dims[i];
	}
	va_end(ap);
	return t;
}
#endif

/* Each test prints one line that the make check summary counts: "PASS unit/<case>" or "FAIL unit/<case>: why". */
#define UNIT_MAIN(make_suite)                                                          \
	int main(void)                                                                     \
	{                                                                                  \
		SRunner *sr = srunner_create(make_suite());                                    \
		srunner_set_fork_status(sr, CK_NOFORK);                                        \
		srunner_run_all(sr, CK_SILENT);                                                \
		TestResult **results = srunner_results(sr);                                    \
		int n = srunner_ntests_run(sr), failed = 0;                                    \
		for (int i = 0; i < n; i++) {                                                  \
			if (tr_rtype(results[i]) == CK_PASS) {                                     \
				printf("PASS unit/%s\n", tr_tcname(results[i]));                       \
			} else {                                                                   \
				failed++;                                                              \
				printf("FAIL unit/%s: %s:%d: %s\n", tr_tcname(results[i]),             \
				       tr_lfile(results[i]), tr_lno(results[i]), tr_msg(results[i]));  \
			}                                                                          \
		}                                                                              \
		free(results);                                                                 \
		srunner_free(sr);                                                              \
		return failed ? 1 : 0;                                                         \
	}

#endif
