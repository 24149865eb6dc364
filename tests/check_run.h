/* SPDX-License-Identifier: GPL-2.0-only */
/* The main of every Check-based test program: runs the suites given (a
 * NULL-terminated list) and says whether all of them passed. Header only. */
#ifndef ASYS_TESTS_CHECK_RUN_H
#define ASYS_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdarg.h>

static inline int check_run(Suite *first, ...)
{
	SRunner *sr = srunner_create(first);
	Suite *s;
	va_list ap;
	int failed;

	va_start(ap, first);
	while ((s = va_arg(ap, Suite *)) != NULL)
		srunner_add_suite(sr, s);
	va_end(ap);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif
