/* SPDX-License-Identifier: GPL-2.0-only */
/* Messages: the lines above the key hints, where each message a user must
 * read (the workload's fate, a recording that failed, why the focused pane
 * has no data) gets its own lines, wrapped, not cut; and the message log
 * (L), where every status the store kept is shown whole with its time. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <curses.h>

#include "msglog.h"
#include "store.h"
#include "stream.h"
#include "tui_int.h"
#include "util.h"
#include "widget.h"

#define MSG_MAX 8 /* messages on screen at once: the workload, notes, a status */

void tui_fmt_time(const struct tui *t, uint64_t ts_ns, char *buf, size_t n, bool date)
{
	int64_t origin = t->src.recorded ? t->src.clock_origin_ns : t->live_origin;
	int64_t wall;
	time_t s;
	struct tm tm;

	if (__builtin_add_overflow((int64_t)(ts_ns & INT64_MAX), origin, &wall) || wall < 0) {
		snprintf(buf, n, "?");
		return;
	}
	s = (time_t)(wall / 1000000000);
	localtime_r(&s, &tm);
	strftime(buf, n, date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
}

/* The messages of this frame, in order; returns how many. */
static int messages(const struct tui *t, const char *status, bool shown, const char **out,
		    char *notes, size_t nn)
{
	char *save = NULL;
	int n = 0;

	if (*t->workload)
		out[n++] = t->workload;
	util_strlcpy(notes, t->notes, nn);
	for (char *l = strtok_r(notes, "\n", &save); l && n < MSG_MAX - 1;
	     l = strtok_r(NULL, "\n", &save))
		out[n++] = l;
	if (status && *status && !shown)
		out[n++] = status;
	return n;
}

/* Lines for each message: all it needs while they fit in a quarter of the
 * screen, else one each and the rest to the first ones; a message cut
 * short ends in '~' and is whole in the log. Returns the total. */
static int share_lines(const char **msg, int n, int *lines)
{
	int cap = (LINES - 2) / 4, used = 0, need[MSG_MAX];

	if (cap < n)
		cap = n;
	for (int i = 0; i < n; i++) {
		need[i] = widget_wrap(NULL, 0, 1, COLS - 2, LINES, 2, msg[i]);
		if (need[i] < 1)
			need[i] = 1;
		lines[i] = 1;
		used++;
	}
	for (int i = 0; i < n && used < cap; i++) {
		int more = need[i] - 1 < cap - used ? need[i] - 1 : cap - used;

		lines[i] += more;
		used += more;
	}
	return used;
}

int tui_messages_rows(const struct tui *t, const char *status, bool shown)
{
	const char *msg[MSG_MAX];
	char notes[sizeof(t->notes)];
	int lines[MSG_MAX], n = messages(t, status, shown, msg, notes, sizeof(notes));

	return n ? share_lines(msg, n, lines) : 0;
}

void tui_messages_draw(struct tui *t, int y, int rows)
{
	const char *msg[MSG_MAX];
	char notes[sizeof(t->notes)];
	int lines[MSG_MAX], n = messages(t, t->status, t->status_shown, msg, notes, sizeof(notes));
	WINDOW *w;

	if (!n || rows <= 0)
		return;
	w = tui_win_keep(&t->win.msg, rows, COLS, y, 0);
	if (!w)
		return;
	share_lines(msg, n, lines);
	widget_attr_on(w, &t->v, TC_WARN);
	for (int i = 0, at = 0; i < n && at < rows; i++)
		at += widget_wrap(w, at, 1, COLS - 2, lines[i] < rows - at ? lines[i] : rows - at,
				  2, msg[i]);
	widget_attr_off(w, &t->v, TC_WARN);
	wnoutrefresh(w);
}

/* "18:23:05  ppu.dev  text": what the log shows of one entry. */
static void log_line(const struct tui *t, const struct msglog_entry *e, char *buf, size_t n)
{
	const struct stream_desc *d =
	    e->stream == MSGLOG_NOTE ? NULL : stream_table_get(t->v.streams, e->stream);
	const struct series *se =
	    d && e->entity != STATUS_STREAM ? store_series(t->v.store, e->stream, e->entity) : NULL;
	const char *label = se ? series_label(se) : NULL;
	char when[32], last[32], who[160], times[64] = "";

	tui_fmt_time(t, e->first_ns, when, sizeof(when), false);
	if (!d)
		snprintf(who, sizeof(who), "asys");
	else if (e->entity == STATUS_STREAM)
		snprintf(who, sizeof(who), "%s", d->name);
	else if (label && *label)
		snprintf(who, sizeof(who), "%s %s", d->name, label);
	else
		snprintf(who, sizeof(who), "%s %llu", d->name, (unsigned long long)e->entity);
	if (e->seen > 1) {
		tui_fmt_time(t, e->last_ns, last, sizeof(last), false);
		snprintf(times, sizeof(times), "  (%u times, last at %s)", e->seen, last);
	}
	snprintf(buf, n, "%s  %s: %s%s", when, who, e->text, times);
}

/* The log's lines (counted when w is NULL), the entries from top. */
static int log_body(const struct tui *t, WINDOW *w, int top)
{
	const struct msglog *l = store_msglog(t->v.store);
	int cols = w ? getmaxx(w) : COLS, y = 0;
	char line[REC_TEXT_MAX + 512];

	for (size_t i = 0; i < msglog_count(l); i++) {
		log_line(t, msglog_get(l, i), line, sizeof(line));
		/* lines above the window are not drawn: curses refuses y < 0 */
		y += widget_wrap(w, y - top, 1, cols - 2, 1000, 10, line);
	}
	return y;
}

void tui_log_draw(struct tui *t, WINDOW *w)
{
	const struct msglog *l = store_msglog(t->v.store);
	int rows = getmaxy(w), cols = getmaxx(w), page = rows - 2;
	char title[160];
	WINDOW *list;

	t->log_lines = log_body(t, NULL, 0);
	if (t->log_top > t->log_lines - page)
		t->log_top = t->log_lines - page;
	if (t->log_top < 0)
		t->log_top = 0;
	/* how to leave first: the rest of the title is cut on a narrow screen */
	snprintf(title, sizeof(title),
		 "Messages (%zu%s)  Esc close  q quit  Up/Down PgUp/PgDn scroll, oldest first",
		 msglog_count(l), msglog_dropped(l) ? ", older ones dropped" : "");
	widget_attr_on(w, &t->v, TC_TITLE);
	widget_text(w, 0, 1, cols - 2, title, false);
	widget_attr_off(w, &t->v, TC_TITLE);
	if (!msglog_count(l)) {
		widget_attr_on(w, &t->v, TC_DIM);
		widget_text(w, 2, 1, cols - 2, "no message so far", false);
		widget_attr_off(w, &t->v, TC_DIM);
		return;
	}
	list = derwin(w, page, cols, 2, 0);
	if (!list)
		return;
	log_body(t, list, t->log_top);
	delwin(list);
}

bool tui_log_key(struct tui *t, int ch)
{
	int page = LINES - 4; /* the log body: below the header and its title */

	/* End follows the log as it grows */
	if (widget_scroll_key(&t->log_top, t->log_lines, page, ch, true))
		return true;
	if (ch == KEY_F(10) || ch == 'q' || ch == 'Q')
		return false; /* quits, as on the screen under it */
	t->log = false;	      /* any other key closes it, as the help */
	return true;
}
