/* SPDX-License-Identifier: GPL-2.0-only */
/* Internal to export (rec_export.c, rec_summary.c): the state of one
 * export or --info run, shared by the file walk and the summaries. */
#ifndef ASYS_REC_EXPORT_INT_H
#define ASYS_REC_EXPORT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "rec_export.h"
#include "ktab.h"
#include "rec_format.h"

/* ---- per (stream, entity) state: the label ---- */

struct series_ent {
	struct ktab_key k; /* first: (stream, entity) */
	char *label;
};

struct sum_state; /* rec_summary.c: one row set per series */

/* What one export keeps, whatever the file declares (asys-export(1),
 * LIMITS): live series (an entity's GONE frees its slot), label text, the
 * series a summary has rows for (ended ones included), and the values kept
 * for p99 over all fields together. */
#define REC_EXPORT_SERIES_MAX 16384
#define REC_SUMMARY_SERIES_MAX 16384
#define REC_EXPORT_LABEL_BYTES (8 << 20)
#define REC_EXPORT_RESERVOIR_BYTES (32 << 20)

struct rec_export {
	const struct rec_export_opts *o;
	FILE *out, *err;
	struct rec_reader *r;
	const struct stream_table *tab;
	const char *path; /* path_shown: escaped for messages */
	const char *host; /* the host column: the META's, or as the merge names it */
	char path_shown[1024];
	bool sel[STREAM_MAX], all;
	uint64_t tb, te;
	bool empty_window; /* --begin/--end miss the file: no rows */
	struct ktab ser;   /* struct series_ent */
	size_t label_bytes, res_bytes;
	uint64_t ser_capped, labels_capped;
	unsigned share; /* files merged with this one: the bounds are shared */
	struct sum_state *sum;
	uint64_t entities[STREAM_MAX], samples[STREAM_MAX], recs[STREAM_MAX];
	uint64_t smin[STREAM_MAX], smax[STREAM_MAX];
	uint64_t rng;
	time_t tcache_s;
	char tcache[64], tprefix[32], tzone[8]; /* tzone: "+05:30" of tcache_s */
	uint64_t rows;
	/* what walk saw, for --info and --summary */
	uint64_t holes, frames, gaps_n;
	struct rec_gap_info gaps[32];
	bool cut;
};

/* A bound above (REC_EXPORT_*, REC_SUMMARY_SERIES_MAX) for this file: the
 * whole when it is alone, an even share when files are merged, so that any
 * number of files together keep what one may. */
static inline size_t rec_export_bound(const struct rec_export *x, size_t whole)
{
	return x->share > 1 ? whole / x->share : whole;
}

/* rec_export_fmt.c: one sample as CSV rows (one per value, the columns of
 * REC_EXPORT_CSV_HEADER) or as one JSON object; se is NULL past the series
 * cap (no label). */
#define REC_EXPORT_CSV_HEADER "t_ns,time,stream,entity,label,field,unit,value,pid,name,host\n"
void rec_export_csv_row(struct rec_export *x, const struct stream_desc *d,
			const struct series_ent *se, const struct rec *r);
void rec_export_json_row(struct rec_export *x, const struct stream_desc *d,
			 const struct series_ent *se, const struct rec *r);

/* rec_export.c: the steps of one file's walk, for the merge of several */
int rec_export_open(struct rec_export *x, const char *path, const char *who, bool quiet);
int rec_export_select(struct rec_export *x);		/* --streams: 0 or -EINVAL (said) */
int rec_export_window(struct rec_export *x, bool note); /* --begin/--end: 0 or -EINVAL (said) */
/* A hole or gap item is counted (and said); true for a DATA frame to decode. */
bool rec_export_item(struct rec_export *x, const struct rec_item *it, const char *who,
		     bool report_gaps);
void rec_export_malformed(struct rec_export *x, const struct rec_item *it, const char *who);
/* The walk's end: rc of the last rec_reader_next (-EAGAIN: cut, said). */
void rec_export_end(struct rec_export *x, int rc, const char *who);
/* One record: labels, ended entities, and the row or the summary's values. */
void rec_export_on_rec(void *ctx, const struct rec *r);
void rec_export_reset(struct rec_export *x);
/* The host column of an open file: its META's host, "unknown" without. */
const char *rec_export_host(const struct rec_export *x);

/* rec_export_merge.c: several files merged by wall-clock time (exit status
 * as rec_export_files; the checks are done). */
int rec_export_merge(const struct rec_export_opts *o, char *const *files, int nfiles, FILE *out,
		     FILE *err);

/* rec_summary.c: --summary statistics and the --info report */
void rec_export_sum_add(struct rec_export *x, const struct stream_desc *d, struct series_ent *se,
			const struct rec *r);
/* Labels a summary names series by, whatever --streams selects: the
 * commands of processes (mem.proc) for proc.cpu's rows. */
void rec_export_sum_label(struct rec_export *x, const struct stream_desc *d, const struct rec *r);
void rec_export_print_summary(struct rec_export *x);
void rec_export_print_info(struct rec_export *x);
void rec_export_acc_free(struct rec_export *x);

#endif
