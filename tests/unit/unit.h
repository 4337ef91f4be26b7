/* unit.h: the main() every unit-test program shares: runs one check suite, one PASS/FAIL line per test. */
#ifndef UNIT_H
#define UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

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
