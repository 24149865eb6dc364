/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading recordings into text: export (csv, json, summary) and --info.
 * In the library so tests and the commands share it. */
#ifndef ASYS_REC_EXPORT_H
#define ASYS_REC_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rec_reader.h"

enum rec_export_format {
	REC_EXPORT_CSV = 0,
	REC_EXPORT_JSON,
	REC_EXPORT_SUMMARY,
	REC_EXPORT_INFO_ONLY, /* count only */
};

struct rec_export_opts {
	enum rec_export_format format;
	const char *streams; /* comma-separated names or NULL for all */
	const char *begin;   /* time expressions (rec_parse_time), or NULL */
	const char *end;
};

/* Files that one export reads (and merges by time) at once: each holds a
 * reader and a reorder buffer (asys-export(1), LIMITS). */
#define REC_EXPORT_FILES_MAX 32

/* Opens every file and checks --streams, --begin and --end against each,
 * writing nothing but messages on err: the exit status, 0 when the export
 * can start, 1 when a file cannot be opened as a recording, 2 for a bad
 * option value. A caller that creates the output calls it first. */
int rec_export_check(const struct rec_export_opts *o, char *const *files, int nfiles, FILE *err);
/* Exports the file, or merges several by wall-clock time with a host
 * column (rec_export_merge.c); damage inside a file is reported on err and
 * skipped. Checks first (rec_export_check), so that a failure writes no
 * byte to out. Returns that exit status, or 1 when nothing could be read. */
int rec_export_files(const struct rec_export_opts *o, char *const *files, int nfiles, FILE *out,
		     FILE *err);
/* `asys replay --info`: host, version, span, streams, counts, gaps, holes. */
int rec_info_files(char *const *files, int nfiles, FILE *out, FILE *err);

/* A time in a recording: "14:03:10[.5]", "2026-11-29 14:03:10" (local wall
 * time), "+90s" (plus_base + 90 s), "-5m" (minus_base - 5 min), "NN%" of
 * [t0, t1], or "@NS" (monotonic ns). Export uses the start and the end as
 * the bases, replay the current position for both. 0, -EINVAL (not such a
 * time) or -ERANGE (a time or duration past what 64-bit nanoseconds hold:
 * rec_time_range says which). */
int rec_parse_time(const char *s, int64_t clock_origin_ns, uint64_t t0, uint64_t t1,
		   uint64_t plus_base, uint64_t minus_base, uint64_t *out);
/* "times from 1970-01-01 00:00:00 to 2262-04-11 23:47:16 UTC, ..." */
void rec_time_range(char *buf, size_t n);
/* The wall-clock ns of monotonic t_ns; false when it is before 1970 or past
 * 2262 (a forged clock origin), and then there is no date to show. */
bool rec_wall_ns(int64_t clock_origin_ns, uint64_t t_ns, int64_t *wall);

#endif
