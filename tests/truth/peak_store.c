/* SPDX-License-Identifier: GPL-2.0-only */
/* Reads a recording into a store, as asys replay does, and prints what the
 * NIC pane would show for one counter of one series: the highest peak and
 * the highest mean over every refresh window (1 s) and over the whole
 * recording (as after 'm' at its start), and the peak window.
 *
 *   peak_store FILE STREAM LABEL FIELD
 *   -> "peak P avg A whole_peak WP whole_avg WA window_ns W windows N"
 *
 * Exits 1 when a window's mean is above its peak (or below its low), 2 on
 * bad arguments or a file it cannot read. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_reader.h"
#include "store.h"

#define SEC 1000000000ull

struct ctx {
	struct store *s;
	uint64_t t0, t1;
};

static void on_rec(void *p, const struct rec *r)
{
	struct ctx *c = p;

	store_consume(c->s, r);
	if (r->kind == REC_SAMPLE) {
		if (!c->t0 || r->ts_ns < c->t0)
			c->t0 = r->ts_ns;
		if (r->ts_ns > c->t1)
			c->t1 = r->ts_ns;
	}
}

static int check(const struct field_stats *st, const char *what, uint64_t end)
{
	if (st->avg <= st->max && st->min <= st->avg)
		return 0;
	printf("FAIL: %s ending %llu: min %.17g avg %.17g max %.17g\n", what,
	       (unsigned long long)end, st->min, st->avg, st->max);
	return 1;
}

/* The series of STREAM labelled LABEL, or NULL. */
static const struct series *find_series(struct store *s, const struct stream_table *t,
					const char *stream, const char *label)
{
	int sid = stream_table_find(t, stream);
	uint64_t ents[256];
	size_t ne = sid < 0 ? 0 : store_entities(s, (uint32_t)sid, ents, 256);

	for (size_t i = 0; i < ne && i < 256; i++) {
		const struct series *x = store_series(s, (uint32_t)sid, ents[i]);

		if (series_label(x) && !strcmp(series_label(x), label))
			return x;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct rec_reader *r = NULL;
	struct rec_item it;
	struct ctx c = {0};
	const struct series *se = NULL;
	struct field_stats st;
	double peak = NAN, avg = NAN;
	char msg[256];
	int sid, fid, bad = 0, n = 0;

	if (argc != 5)
		return 2;
	if (rec_reader_open(argv[1], &r, msg, sizeof(msg), NULL, 0)) {
		fprintf(stderr, "peak_store: %s\n", msg);
		return 2;
	}
	c.s = store_new(rec_reader_streams(r), SEC);
	while (rec_reader_next(r, &it) == 1)
		if (it.kind == REC_ITEM_FRAME && it.h.type == REC_FT_DATA)
			rec_reader_data(r, &it, on_rec, &c);
	sid = stream_table_find(rec_reader_streams(r), argv[2]);
	fid = sid < 0 ? -1
		      : stream_field_index(stream_table_get(rec_reader_streams(r), (uint32_t)sid),
					   argv[4]);
	se = find_series(c.s, rec_reader_streams(r), argv[2], argv[3]);
	if (!se || fid < 0) {
		fprintf(stderr, "peak_store: no %s %s %s in %s\n", argv[2], argv[3], argv[4],
			argv[1]);
		return 2;
	}
	for (uint64_t end = (c.t0 / SEC + 1) * SEC; end <= (c.t1 / SEC + 1) * SEC; end += SEC) {
		if (series_window(se, (uint32_t)fid, end, SEC, &st))
			continue;
		bad |= check(&st, "refresh window", end);
		if (isnan(peak) || st.max > peak)
			peak = st.max;
		if (isnan(avg) || st.avg > avg)
			avg = st.avg;
		n++;
	}
	if (series_window(se, (uint32_t)fid, (c.t1 / SEC + 1) * SEC, (c.t1 - c.t0) + SEC, &st))
		st.avg = st.max = NAN;
	else
		bad |= check(&st, "the whole recording", c.t1);
	printf("peak %.17g avg %.17g whole_peak %.17g whole_avg %.17g window_ns %llu windows %d\n",
	       peak, avg, st.max, st.avg, (unsigned long long)series_peak_window_ns(se), n);
	store_free(c.s);
	rec_reader_free(r);
	return bad;
}
