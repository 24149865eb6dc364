/* SPDX-License-Identifier: GPL-2.0-only */
/* Export of several recordings at once (asys-export(1), "Several hosts"):
 * a k-way merge of the files by wall-clock time. Each file keeps its own
 * export state (labels, summary) and a bounded reorder buffer: its frames
 * come in the order they closed, a stream's chunk up to 250 ms late, so a
 * record leaves the buffer once the file has been read a second past it
 * (the player's rule), or when the buffer is full. Nothing is read whole:
 * memory is the buffers and each reader's largest frame. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rec_export_int.h"
#include "strsafe.h"
#include "util.h"

#define MERGE_LOOKAHEAD_NS 1000000000ull
#define MERGE_PEND_RECS (1u << 17)
#define MERGE_PEND_BYTES (4u << 20)
#define MERGE_DECODE_STEP 256

struct pend {
	uint64_t ts, seq;
	size_t off; /* into the arena */
};

struct src {
	struct rec_export x;
	char host[320];
	int64_t origin; /* wall = origin + ts */
	struct buf arena, spare;
	size_t live;	   /* bytes of the arena still pending */
	struct pend *heap; /* min-heap on (ts, seq) */
	size_t n, cap;
	uint64_t seq, hwm;
	bool eof, in_frame;
	struct rec_item it;
	struct rec_data_cur cur;
};

static bool pend_less(const struct pend *a, const struct pend *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->seq < b->seq;
}

static void heap_push(struct src *s, struct pend p)
{
	size_t i = s->n++;

	while (i) {
		size_t up = (i - 1) / 2;

		if (!pend_less(&p, &s->heap[up]))
			break;
		s->heap[i] = s->heap[up];
		i = up;
	}
	s->heap[i] = p;
}

static void heap_pop(struct src *s)
{
	struct pend last = s->heap[--s->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < s->n) {
		if (c + 1 < s->n && pend_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!pend_less(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->n)
		s->heap[i] = last;
}

/* The arena holds popped records until it is mostly dead: then the live
 * ones move to the spare buffer, which becomes the arena. */
static void arena_compact(struct src *s)
{
	struct buf t;

	if (s->arena.len < (1u << 20) || s->arena.len < 2 * s->live)
		return;
	s->spare.len = 0;
	if (buf_reserve(&s->spare, s->live))
		return; /* no room: the arena stays as it is, whole */
	for (size_t i = 0; i < s->n; i++) {
		const struct rec *r = (const void *)(s->arena.p + s->heap[i].off);

		s->heap[i].off = s->spare.len;
		buf_put(&s->spare, r, r->len);
	}
	t = s->arena;
	s->arena = s->spare;
	s->spare = t;
	s->spare.len = 0;
}

/* A decoded record joins the buffer; what the export would drop does not. */
static void on_pend(void *ctx, const struct rec *r)
{
	struct src *s = ctx;
	size_t off = s->arena.len;

	if (r->stream >= STREAM_MAX || (!s->x.all && !s->x.sel[r->stream]) || r->ts_ns < s->x.tb ||
	    r->ts_ns > s->x.te)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct pend *nh = realloc(s->heap, cap * sizeof(*nh));

		if (!nh)
			return;
		s->heap = nh;
		s->cap = cap;
	}
	buf_put(&s->arena, r, r->len);
	if (s->arena.failed) {
		s->arena.failed = false;
		s->arena.len = off;
		return;
	}
	s->live += r->len;
	heap_push(s, (struct pend){r->ts_ns, s->seq++, off});
}

/* The first record is safe to write once the file has been read a
 * lookahead past it: a later frame holds nothing older. */
static bool head_safe(const struct src *s)
{
	return s->n && s->hwm >= MERGE_LOOKAHEAD_NS && s->heap[0].ts <= s->hwm - MERGE_LOOKAHEAD_NS;
}

/* Reads until the first record is safe, the file ends, or the buffer is
 * full (then the order is kept only as far as the buffer reaches). */
static void src_fill(struct src *s)
{
	int rc;

	while (!head_safe(s)) {
		if (s->n >= rec_export_bound(&s->x, MERGE_PEND_RECS) ||
		    s->live >= rec_export_bound(&s->x, MERGE_PEND_BYTES))
			return;
		if (s->in_frame) {
			rc = rec_reader_data_more(s->x.r, &s->cur, MERGE_DECODE_STEP, on_pend, s);
			if (rc < 0)
				rec_export_malformed(&s->x, &s->it, "export");
			s->in_frame = rc == 1;
			continue;
		}
		if (s->eof)
			return;
		rc = rec_reader_next(s->x.r, &s->it);
		if (rc != 1) {
			rec_export_end(&s->x, rc, "export");
			s->eof = true;
			return;
		}
		if (s->it.kind == REC_ITEM_FRAME &&
		    (s->it.h.type == REC_FT_DATA || s->it.h.type == REC_FT_GAP) &&
		    s->it.h.t_max > s->hwm)
			s->hwm = s->it.h.t_max;
		if (!rec_export_item(&s->x, &s->it, "export", false))
			continue;
		if (rec_reader_data_begin(s->x.r, &s->it, &s->cur))
			rec_export_malformed(&s->x, &s->it, "export");
		else
			s->in_frame = true;
	}
}

/* The wall-clock key of the first record, saturated: a forged origin or
 * time must not wrap around and jump the queue. */
static int64_t src_key(const struct src *s)
{
	int64_t t = s->heap[0].ts > INT64_MAX ? INT64_MAX : (int64_t)s->heap[0].ts, w;

	if (__builtin_add_overflow(t, s->origin, &w))
		w = s->origin < 0 ? INT64_MIN : INT64_MAX;
	return w;
}

/* The source whose first record comes first, or -1 when all have ended. */
static int merge_pick(struct src *s, int n)
{
	int best = -1;
	int64_t bk = 0;

	for (int i = 0; i < n; i++) {
		int64_t k;

		if (!head_safe(&s[i]) && !s[i].eof)
			src_fill(&s[i]);
		if (!s[i].n)
			continue;
		k = src_key(&s[i]);
		if (best < 0 || k < bk) {
			best = i;
			bk = k;
		}
	}
	return best;
}

static void merge_run(struct src *s, int n)
{
	int i;

	while ((i = merge_pick(s, n)) >= 0) {
		const struct rec *r = (const void *)(s[i].arena.p + s[i].heap[0].off);

		rec_export_on_rec(&s[i].x, r);
		s[i].live -= r->len;
		heap_pop(&s[i]);
		if (!s[i].n) {
			s[i].arena.len = 0;
			s[i].live = 0;
		} else {
			arena_compact(&s[i]);
		}
	}
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* Two files of one recording (its segments) share a uuid and are one
 * host; two recordings that name the same host are told apart by file. */
static bool same_recording(const struct src *a, const struct src *b)
{
	const struct rec_file_header *ha = rec_reader_header(a->x.r),
				     *hb = rec_reader_header(b->x.r);

	return !memcmp(ha->uuid, hb->uuid, sizeof(ha->uuid)) && ha->segment != hb->segment;
}

/* The file that names file i's recording: its first segment given. */
static int recording_file(const struct src *s, int i)
{
	for (int j = 0; j < i; j++)
		if (same_recording(&s[j], &s[i]))
			return j;
	return i;
}

static void name_one(struct src *s, int n, int i, char *const *files, FILE *err)
{
	char shown[1024], h1[600], h2[700];
	int k = recording_file(s, i);
	bool clash = false;

	for (int j = 0; j < n && !clash; j++)
		clash = j != i && !strcmp(rec_export_host(&s[i].x), rec_export_host(&s[j].x)) &&
			!same_recording(&s[i], &s[j]);
	if (!clash) {
		util_strlcpy(s[i].host, rec_export_host(&s[i].x), sizeof(s[i].host));
		return;
	}
	snprintf(s[i].host, sizeof(s[i].host), "%s:%s", rec_export_host(&s[i].x),
		 base_name(files[k]));
	/* two files of one name in two folders: the paths as given */
	for (int j = 0; j < n; j++)
		if (recording_file(s, j) != k && !strcmp(base_name(files[j]), base_name(files[k])))
			snprintf(s[i].host, sizeof(s[i].host), "%s:%s", rec_export_host(&s[i].x),
				 files[k]);
	/* the same file twice: its place in the list */
	for (int j = 0; j < i; j++)
		if (!strcmp(s[j].host, s[i].host) && recording_file(s, j) != k)
			snprintf(s[i].host, sizeof(s[i].host), "%s:%s#%d", rec_export_host(&s[i].x),
				 files[k], k + 1);
	fprintf(err,
		"asys export: %s: another recording here has host '%s' too; this file's rows "
		"say host '%s'\n",
		str_escape(shown, sizeof(shown), files[i], 0),
		str_escape(h1, sizeof(h1), rec_export_host(&s[i].x), 0),
		str_escape(h2, sizeof(h2), s[i].host, 0));
}

static void name_hosts(struct src *s, int n, char *const *files, FILE *err)
{
	for (int i = 0; i < n; i++)
		name_one(s, n, i, files, err);
	for (int i = 0; i < n; i++) {
		const struct rec_meta *m = rec_reader_meta(s[i].x.r);

		s[i].x.host = s[i].host;
		s[i].origin = m->have ? m->clock_origin_ns : 0;
		if (!m->have)
			fprintf(err,
				"asys export: %s: no clock origin (the META frame is missing or "
				"damaged): its rows are merged by its own clock\n",
				s[i].x.path);
	}
}

static void src_free(struct src *s)
{
	rec_reader_free(s->x.r);
	s->x.r = NULL;
	rec_export_reset(&s->x);
	buf_free(&s->arena);
	buf_free(&s->spare);
	free(s->heap);
}

static void print_summaries(struct src *s, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			fputc('\n', s[i].x.out);
		rec_export_print_info(&s[i].x);
		fputc('\n', s[i].x.out);
		rec_export_print_summary(&s[i].x);
	}
}

int rec_export_merge(const struct rec_export_opts *o, char *const *files, int nfiles, FILE *out,
		     FILE *err)
{
	struct src *s;
	int ret = 0, i;

	s = calloc((size_t)nfiles, sizeof(*s));
	if (!s) {
		fprintf(err, "asys export: out of memory\n");
		return 1;
	}
	for (i = 0; i < nfiles; i++) {
		/* the bounds of one export, shared: N files use what one may */
		s[i].x = (struct rec_export){
		    .o = o, .out = out, .err = err, .rng = 42, .share = (unsigned)nfiles};
		/* the checks passed a moment ago: a file that now fails has changed */
		if (rec_export_open(&s[i].x, files[i], "export", false)) {
			ret = 1;
			break;
		}
		rec_reader_set_data_max(s[i].x.r, REC_MAX_PAYLOAD / (size_t)nfiles);
		if (rec_export_select(&s[i].x) || rec_export_window(&s[i].x, true)) {
			ret = 2;
			break;
		}
	}
	if (!ret) {
		name_hosts(s, nfiles, files, err);
		merge_run(s, nfiles);
		if (o->format == REC_EXPORT_SUMMARY)
			print_summaries(s, nfiles);
	}
	for (i = 0; i < nfiles; i++)
		src_free(&s[i]);
	free(s);
	return ret;
}
