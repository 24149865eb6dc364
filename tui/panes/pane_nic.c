/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "pane.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"

/* The NIC pane: one block per active NIC, RDMA ports (nic.rdma) first, then
 * netdevs (nic.link). A block shows receive and transmit: the mean rate over
 * the refresh window (or since the mark), a sparkline of the history, the
 * peak over the same span (the highest rate over windows of at least the
 * sampling period, store_peak.h), and the mean packet size; RDMA ports add
 * CNP, ECN and Send Wait. When rows are short each NIC gets one line. */

#define NIC_MAX_ROWS 256
#define NIC_NAME_MIN 8
#define NIC_NAME_MAX 24
#define NIC_ACTIVE_NS 60000000000ull /* idle this long: hidden (unless 'a') */
#define NIC_SPARK_MAX 256

/* A row reads both streams through the same four constants: the catalogue
 * gives nic.link and nic.rdma the same first four fields. */
_Static_assert((int)NIC_LINK_RX_BYTES == (int)NIC_RDMA_RX_BYTES &&
		   (int)NIC_LINK_TX_BYTES == (int)NIC_RDMA_TX_BYTES &&
		   (int)NIC_LINK_RX_PACKETS == (int)NIC_RDMA_RX_PACKETS &&
		   (int)NIC_LINK_TX_PACKETS == (int)NIC_RDMA_TX_PACKETS &&
		   (int)NIC_LINK_NFIELDS <= (int)NIC_RDMA_NFIELDS,
	       "nic.link and nic.rdma share their first four fields");

struct nic_row {
	int sid;
	uint64_t ent;
	bool rdma;
	const char *label; /* the store's, valid while it is locked */
	const int *f;	   /* its stream's field positions, by catalogue constant */
};

struct nic_priv {
	struct nic_row rows[NIC_MAX_ROWS];
	int nrows, nall;  /* shown (active or all), and known */
	int nactive;	  /* moved a byte in the last minute */
	int top;	  /* first NIC shown */
	bool show_all;	  /* 'a' */
	uint64_t mark_ns; /* 'm': averages since then; 0 = none */
	uint64_t ents[NIC_MAX_ROWS];
	/* where each catalogue field is in the schema of nic.link [0] and
	 * nic.rdma [1] (a recording's may differ); -1: absent */
	int fields[2][NIC_RDMA_NFIELDS];
};

/* One entry a line: the help wraps each to the screen. */
static const char *const nic_help[] = {
    "a             show inactive NICs too (or --nic-all)",
    "m             mark now: rows show averages since the mark; m again clears it",
    "Up/Down       scroll the NIC list",
    "u             rates in bit/s or byte/s (all panes)",
    "\u2193 \u2191           receive, transmit: the mean rate over the refresh (or since the mark) "
    "and its history",
    "pk            the highest rate over windows of at least the sampling period (the "
    "footer says which: 1 ms at 1 kHz)",
    "/pkt          the mean packet size over the same span",
    "CNP ECN wait  RDMA congestion: CNPs received and sent, ECN-marked packets, and Send "
    "Wait (port_xmit_wait ticks per second; the tick length is per device)",
    NULL,
};

static void *nic_init(const struct view *v)
{
	struct nic_priv *s = calloc(1, sizeof(*s));

	if (s)
		s->show_all = v->opts && v->opts->nic_show_all;
	return s;
}

static void nic_fini(void *priv)
{
	free(priv);
}

static double win_avg(const struct series *se, int f, uint64_t end, uint64_t len)
{
	struct field_stats fs;

	if (f < 0 || series_window(se, (uint32_t)f, end, len, &fs) || !fs.n)
		return NAN;
	return fs.avg;
}

static bool row_active(const struct series *se, const int *f, const struct view *v)
{
	double rx = win_avg(se, f[NIC_LINK_RX_BYTES], v->end_ns, NIC_ACTIVE_NS);
	double tx = win_avg(se, f[NIC_LINK_TX_BYTES], v->end_ns, NIC_ACTIVE_NS);

	return (!isnan(rx) && rx > 0) || (!isnan(tx) && tx > 0);
}

static void collect_stream(struct nic_priv *s, const struct view *v, bool rdma)
{
	enum stream_id cs = rdma ? STREAM_NIC_RDMA : STREAM_NIC_LINK;
	int sid = stream_table_find(v->streams, catalogue_name(cs));
	int *f = s->fields[rdma];
	size_t n;

	if (sid < 0)
		return;
	for (unsigned int k = 0; k < NIC_RDMA_NFIELDS; k++)
		f[k] = catalogue_field_index(stream_table_get(v->streams, (uint32_t)sid), cs, k);
	n = store_entities(v->store, (uint32_t)sid, s->ents, NIC_MAX_ROWS);
	if (n > NIC_MAX_ROWS)
		n = NIC_MAX_ROWS;
	for (size_t i = 0; i < n && s->nrows < NIC_MAX_ROWS; i++) {
		const struct series *se = store_series(v->store, (uint32_t)sid, s->ents[i]);

		bool active;

		if (!se)
			continue;
		s->nall++;
		active = row_active(se, f, v);
		s->nactive += active;
		if (!s->show_all && !active)
			continue;
		s->rows[s->nrows++] = (struct nic_row){sid, s->ents[i], rdma, series_label(se), f};
	}
}

static void nic_collect(struct nic_priv *s, const struct view *v)
{
	s->nrows = s->nall = s->nactive = 0;
	collect_stream(s, v, true);
	collect_stream(s, v, false);
	if (s->top > s->nrows - 1)
		s->top = s->nrows > 0 ? s->nrows - 1 : 0;
}

static bool nic_visible(const struct pane *p, const struct view *v)
{
	return stream_table_find(v->streams, catalogue_name(STREAM_NIC_LINK)) >= 0 ||
	       stream_table_find(v->streams, catalogue_name(STREAM_NIC_RDMA)) >= 0;
}

static int block_rows(const struct nic_row *r)
{
	return r->rdma ? 3 : 2;
}

static int nic_min_rows(const struct pane *p, const struct view *v, int cols)
{
	struct nic_priv *s = p->priv;

	if (!s)
		return 1;
	nic_collect(s, v);
	return s->nrows < 1 ? 1 : (s->nrows > 4 ? 4 : s->nrows);
}

static int nic_want_rows(const struct pane *p, const struct view *v, int cols)
{
	struct nic_priv *s = p->priv;
	int want = 0;

	if (!s)
		return 1;
	nic_collect(s, v);
	for (int i = 0; i < s->nrows; i++)
		want += block_rows(&s->rows[i]);
	return want < 1 ? 1 : want;
}

/* The span the averages cover: the refresh window, or back to the mark. */
static uint64_t avg_span(const struct nic_priv *s, const struct view *v)
{
	if (s->mark_ns && s->mark_ns < v->end_ns && v->end_ns - s->mark_ns > v->window_ns)
		return v->end_ns - s->mark_ns;
	return v->window_ns;
}

static void nic_title(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct nic_priv *s = p->priv;
	double rx = 0, tx = 0;
	char a[24], b[24];

	buf[0] = '\0';
	if (!s)
		return;
	for (int i = 0; i < s->nrows; i++) {
		const struct series *se =
		    store_series(v->store, (uint32_t)s->rows[i].sid, s->rows[i].ent);
		double r = win_avg(se, s->rows[i].f[NIC_LINK_RX_BYTES], v->end_ns, v->window_ns);
		double t = win_avg(se, s->rows[i].f[NIC_LINK_TX_BYTES], v->end_ns, v->window_ns);

		/* a netdev with an RDMA port shows in both streams: count it once */
		if (!s->rows[i].rdma && s->rows[i].label && strstr(s->rows[i].label, "(rdma: "))
			continue;
		rx += isnan(r) ? 0 : r;
		tx += isnan(t) ? 0 : t;
	}
	widget_fmt_rate(a, sizeof(a), v, rx);
	widget_fmt_rate(b, sizeof(b), v, tx);
	snprintf(buf, (size_t)n, "%d of %d active  \xe2\x86\x93 %s \xe2\x86\x91 %s", s->nactive,
		 s->nall, a, b);
	if (!v->utf8)
		snprintf(buf, (size_t)n, "%d of %d active  rx %s tx %s", s->nactive, s->nall, a, b);
}

/* "1 ms", "100 us", "1 s": the window the peaks were taken over, from the
 * stream as recorded (or estimated from its samples), not from the options
 * of the command showing it; "per-sample" when none is known yet. */
static void fmt_peak_window(char *buf, size_t n, const struct nic_priv *s, const struct view *v)
{
	uint64_t ns = 0;

	for (int i = 0; s && i < s->nrows && !ns; i++)
		ns = series_peak_window_ns(
		    store_series(v->store, (uint32_t)s->rows[i].sid, s->rows[i].ent));
	if (!ns)
		snprintf(buf, n, "per-sample");
	else if (ns >= 1000000000ull)
		snprintf(buf, n, "%.3g s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, n, "%.3g ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.3g us", (double)ns / 1e3);
}

static void nic_footer(const struct pane *p, const struct view *v, char *buf, int n)
{
	const struct nic_priv *s = p->priv;
	int sid = stream_table_find(v->streams, catalogue_name(STREAM_NIC_LINK));
	const char *st = sid >= 0 ? store_status(v->store, (uint32_t)sid, STATUS_STREAM) : NULL;
	char win[24];

	fmt_peak_window(win, sizeof(win), s, v);
	if (st && *st && s && s->nrows) /* e.g. the rate asked for cannot be had */
		snprintf(buf, (size_t)n, "%s", st);
	else if (s && s->mark_ns && s->mark_ns < v->end_ns)
		snprintf(buf, (size_t)n, "avg since mark, %.0f s  pk = max %s rate since mark",
			 (double)(v->end_ns - s->mark_ns) / 1e9, win);
	else
		snprintf(buf, (size_t)n, "pk = max %s rate in the refresh window%s", win,
			 s && !s->show_all && s->nall > s->nrows ? "  a: all" : "");
}

/* One direction of one NIC: arrow, mean rate, sparkline, peak, packet size. */
static void draw_dir(WINDOW *w, struct view *v, const struct nic_row *r, const struct series *se,
		     int y, int x, int cols, bool rx, uint64_t span)
{
	int fb = r->f[rx ? NIC_LINK_RX_BYTES : NIC_LINK_TX_BYTES];
	int fp = r->f[rx ? NIC_LINK_RX_PACKETS : NIC_LINK_TX_PACKETS];
	struct field_stats fs;
	double hist[NIC_SPARK_MAX], pkts;
	char avg[24], peak[24], size[16], line[64];
	int spark_w, n;

	/* mean and peak over one span, so that avg <= pk on every row */
	if (fb < 0 || series_window(se, (uint32_t)fb, v->end_ns, span, &fs))
		fs.avg = fs.max = NAN;
	pkts = win_avg(se, fp, v->end_ns, span);
	widget_fmt_rate(avg, sizeof(avg), v, fs.avg);
	widget_fmt_rate(peak, sizeof(peak), v, fs.max);
	if (isnan(fs.avg) || isnan(pkts) || pkts <= 0)
		snprintf(size, sizeof(size), "-");
	else
		util_fmt_bytes(size, sizeof(size), fs.avg / pkts);
	snprintf(line, sizeof(line), "%s %10s",
		 v->utf8 ? (rx ? "\xe2\x86\x93" : "\xe2\x86\x91") : (rx ? "v" : "^"), avg);
	widget_attr_on(w, v, TC_ACCENT);
	widget_text(w, y, x, 12, line, false);
	widget_attr_off(w, v, TC_ACCENT);
	/* "pk ##.# Xb/s ####/pkt": 23 columns on the right, and a blank */
	spark_w = cols - 12 - 1 - 26;
	if (spark_w > NIC_SPARK_MAX / 2)
		spark_w = NIC_SPARK_MAX / 2;
	if (spark_w >= 4 && fb >= 0) {
		n = spark_w * (v->utf8 ? 2 : 1);
		series_history(se, (uint32_t)fb, v->end_ns, v->window_ns, hist, (size_t)n);
		widget_spark(w, v, y, x + 13, spark_w, hist, n, 0, rx ? TC_GOOD : TC_ACCENT);
	} else {
		spark_w = 0;
	}
	/* every figure says what it is: the size is per packet */
	snprintf(line, sizeof(line), "pk %10s %5s/pkt", peak, size);
	widget_text(w, y, x + 13 + spark_w + (spark_w ? 1 : 0),
		    cols - 13 - spark_w - (spark_w ? 1 : 0), line, false);
}

/* "1.2k/s", or "n/a" for a counter the device does not have. */
static void fmt_per_s(char *buf, size_t n, double v)
{
	size_t len;

	widget_fmt_count(buf, n, v);
	len = strlen(buf);
	if (!isnan(v) && len + 3 < n)
		memcpy(buf + len, "/s", 3);
}

static void draw_rdma_extra(WINDOW *w, struct view *v, const struct nic_row *r,
			    const struct series *se, int y, int x, int cols, uint64_t span)
{
	char a[16], b[16], c[16], d[16], line[128];

	fmt_per_s(a, sizeof(a), win_avg(se, r->f[NIC_RDMA_CNP_RX], v->end_ns, span));
	fmt_per_s(b, sizeof(b), win_avg(se, r->f[NIC_RDMA_CNP_TX], v->end_ns, span));
	fmt_per_s(c, sizeof(c), win_avg(se, r->f[NIC_RDMA_ECN_MARKED], v->end_ns, span));
	fmt_per_s(d, sizeof(d), win_avg(se, r->f[NIC_RDMA_XMIT_WAIT], v->end_ns, span));
	snprintf(line, sizeof(line), "CNP rx %s tx %s  ECN %s  wait %s", a, b, c, d);
	widget_attr_on(w, v, TC_DIM);
	widget_text(w, y, x, cols, line, false);
	widget_attr_off(w, v, TC_DIM);
}

static void draw_compact(WINDOW *w, struct view *v, const struct nic_row *r,
			 const struct series *se, int y, int x, int cols, uint64_t span)
{
	char a[24], b[24], line[96];

	widget_fmt_rate(a, sizeof(a), v, win_avg(se, r->f[NIC_LINK_RX_BYTES], v->end_ns, span));
	widget_fmt_rate(b, sizeof(b), v, win_avg(se, r->f[NIC_LINK_TX_BYTES], v->end_ns, span));
	snprintf(line, sizeof(line), "%s %10s  %s %10s", v->utf8 ? "\xe2\x86\x93" : "rx", a,
		 v->utf8 ? "\xe2\x86\x91" : "tx", b);
	widget_text(w, y, x, cols, line, false);
}

static void nic_draw(struct pane *p, WINDOW *w, struct view *v)
{
	struct nic_priv *s = p->priv;
	int rows = p->rows, cols = p->cols, namew = NIC_NAME_MIN, need = 0, y = 0;
	uint64_t span;
	bool compact;
	int sid = stream_table_find(v->streams, catalogue_name(STREAM_NIC_LINK));
	const char *st;

	if (!s)
		return;
	nic_collect(s, v);
	span = avg_span(s, v);
	if (s->nrows == 0) {
		st = sid >= 0 ? store_status(v->store, (uint32_t)sid, STATUS_STREAM) : NULL;
		widget_attr_on(w, v, TC_DIM);
		widget_text(w, 0, 1, cols - 1,
			    st && *st ? st
			    : s->nall ? "no NIC moved a byte in the last minute (a: show all)"
				      : "no NICs sampled yet",
			    false);
		widget_attr_off(w, v, TC_DIM);
		return;
	}
	for (int i = s->top; i < s->nrows; i++) {
		int len = s->rows[i].label ? (int)strlen(s->rows[i].label) : 4;

		if (len > namew)
			namew = len;
		need += block_rows(&s->rows[i]);
	}
	if (namew > NIC_NAME_MAX)
		namew = NIC_NAME_MAX;
	if (namew > cols / 3)
		namew = cols / 3;
	compact = need > rows;
	for (int i = s->top; i < s->nrows && y < rows; i++) {
		const struct nic_row *r = &s->rows[i];
		const struct series *se = store_series(v->store, (uint32_t)r->sid, r->ent);
		int x = namew + 2;

		if (!se)
			continue;
		widget_attr_on(w, v, TC_TITLE);
		widget_text(w, y, 1, namew, r->label ? r->label : "?", false);
		widget_attr_off(w, v, TC_TITLE);
		if (compact) {
			draw_compact(w, v, r, se, y++, x, cols - x, span);
			continue;
		}
		draw_dir(w, v, r, se, y++, x, cols - x, true, span);
		if (y < rows)
			draw_dir(w, v, r, se, y++, x, cols - x, false, span);
		if (r->rdma && y < rows)
			draw_rdma_extra(w, v, r, se, y++, x, cols - x, span);
	}
}

static bool nic_key(struct pane *p, int ch, struct view *v)
{
	struct nic_priv *s = p->priv;

	if (!s)
		return false;
	switch (ch) {
	case 'a':
		s->show_all = !s->show_all;
		s->top = 0;
		return true;
	case 'm':
		s->mark_ns = s->mark_ns ? 0 : v->end_ns;
		return true;
	case KEY_UP:
		if (s->top > 0)
			s->top--;
		return true;
	case KEY_DOWN:
		if (s->top < s->nrows - 1)
			s->top++;
		return true;
	default:
		return false;
	}
}

static unsigned nic_keys(const struct pane *p, const struct view *v)
{
	(void)p, (void)v;
	return PANE_KEY_UNITS; /* the rates, in bit/s or B/s */
}

const struct pane_class nic_pane = {
    .name = "nic",
    .title = "NIC",
    .hotkey = '2',
    .init = nic_init,
    .fini = nic_fini,
    .visible = nic_visible,
    .min_rows = nic_min_rows,
    .want_rows = nic_want_rows,
    .title_extra = nic_title,
    .footer = nic_footer,
    .draw = nic_draw,
    .key = nic_key,
    .keys = nic_keys,
    .help = nic_help,
};
