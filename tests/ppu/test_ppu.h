/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared helpers of the ppu tests. */
#ifndef ASYS_TEST_PPU_H
#define ASYS_TEST_PPU_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"

/* Points ASYS_HGML_LIBRARY at the fake (old: the build without newer
 * symbols) and clears the fake's failure switches. */
void tp_use_fake(int old);
/* The fake's path into buf. */
void tp_fake_path(char *buf, size_t n, int old);
/* Output of fn(arg) written to a FILE, as a malloc'd string. */
char *tp_capture(void (*fn)(void *arg, FILE *f), void *arg);

/* The collectors run in process: every sample of one stream, as the bus
 * delivers it. */
#define MAX_KEPT 20000
#define KEPT_FIELDS 16
struct kept {
	int stream;
	size_t n;
	uint64_t entity[MAX_KEPT];
	uint64_t ts[MAX_KEPT];
	double v[MAX_KEPT][KEPT_FIELDS];
};

struct run {
	struct asys_options o;
	const char *keep;     /* the stream kept in k (NULL: ppu.metrics) */
	const char *rec_path; /* when set, also recorded there */
	struct stream_table *t;
	struct bus *b;
	struct store *s;
	struct engine *e;
	struct rec_writer *w;
	struct kept *k;
	int dev, proc, util, metrics;
};

/* Options for a run: the devices, set and list of the metrics and their
 * rate; the refresh is 0.1 s. */
void opts_for(struct run *r, const char *devices, const char *set, const char *list, double hz);
/* Runs the ppu collectors for secs, then holds the store locked: for the
 * tests that count what a stretch of time holds (samples at a rate). */
void run_go(struct run *r, double secs);
/* Runs them until done(r), asked every 10 ms with the store locked, holds
 * or secs have passed, then holds the store locked: for the tests that wait
 * on a state, however slow the machine. */
void run_until(struct run *r, double secs, bool (*done)(const struct run *r));
void run_end(struct run *r);
int field(const struct run *r, int stream, const char *name);
/* The newest value of a field of a series (which must exist). */
double last(const struct run *r, int stream, uint64_t ent, const char *name);

TCase *tp_collect_tcase(void);
TCase *tp_util_tcase(void);

#endif
