/* SPDX-License-Identifier: GPL-2.0-only */
/* What the check-based rec tests share: a cheap assert for hot loops, the
 * per-test selection, and record comparison. Header only, static: each test
 * program includes it once. */
#ifndef ASYS_REC_CHECK_H
#define ASYS_REC_CHECK_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check_run.h"
#include "rec_format.h"
#include "rec_testlib.h"
#include "record.h"

/* Hot loops check with this: check's own asserts write to a pipe each time. */
#define REQUIRE(cond, ...)                                                                         \
	do {                                                                                       \
		if (!(cond))                                                                       \
			ck_abort_msg(__VA_ARGS__);                                                 \
	} while (0)

/* REC_ONLY=name runs one test (for timing and debugging). */
#define ADD(t)                                                                                     \
	do {                                                                                       \
		const char *only = getenv("REC_ONLY");                                             \
		if (!only || !strcmp(only, #t))                                                    \
			tcase_add_test(tc, t);                                                     \
	} while (0)

/* Records equal, stream by stream in order (the file keeps per-stream order). */
static inline void same_records_n(const struct buf *a, const struct buf *b, uint32_t nstreams)
{
	for (uint32_t s = 0; s < nstreams; s++) {
		size_t ia = 0, ib = 0, n = 0;

		for (;;) {
			const struct rec *ra = NULL, *rb = NULL;

			while (ia < a->len && ((const struct rec *)(a->p + ia))->stream != s)
				ia += ((const struct rec *)(a->p + ia))->len;
			while (ib < b->len && ((const struct rec *)(b->p + ib))->stream != s)
				ib += ((const struct rec *)(b->p + ib))->len;
			if (ia < a->len)
				ra = (const struct rec *)(a->p + ia);
			if (ib < b->len)
				rb = (const struct rec *)(b->p + ib);
			if (!ra || !rb) {
				REQUIRE(!ra && !rb, "stream %u: record %zu missing", s, n);
				break;
			}
			REQUIRE(ra->kind == rb->kind, "stream %u record %zu: kind differs", s, n);
			REQUIRE(ra->ts_ns == rb->ts_ns, "stream %u record %zu: ts_ns differs", s,
				n);
			REQUIRE(ra->entity == rb->entity, "stream %u record %zu: entity differs", s,
				n);
			REQUIRE(ra->nvals == rb->nvals, "stream %u record %zu: nvals differs", s,
				n);
			if (ra->kind == REC_SAMPLE)
				REQUIRE(!memcmp(ra + 1, rb + 1, ra->nvals * 8u),
					"stream %u record %zu: values differ", s, n);
			else
				REQUIRE(!strcmp(rec_text(ra), rec_text(rb)),
					"stream %u record %zu: text differs", s, n);
			ia += ra->len;
			ib += rb->len;
			n++;
		}
	}
}

/* A test program's main: the tests write under a fresh directory, *dir,
 * which is removed when they all passed (kept to look at otherwise). */
static inline int rec_check_main(Suite *(*suite)(void), char **dir)
{
	int failed;

	*dir = tl_tmpdir();
	if (!*dir) {
		perror("mkdtemp");
		return 99;
	}
	failed = check_run(suite(), NULL);
	if (!failed) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", *dir);
		if (system(cmd)) {
			/* leftovers in /tmp are harmless */
		}
	}
	free(*dir);
	return failed ? 1 : 0;
}

#endif
