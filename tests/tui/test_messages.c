/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* Messages a user must be able to read whole: widget_wrap breaks text over
 * lines and never drops a word, the store's message log keeps every
 * distinct status with its time within its bound, and a pane leaves out
 * what a recording lacks (IPC without cpu.perf) rather than show n/a. */
#include "config.h"

#include <check.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msglog.h"
#include "pane.h"
#include "record.h"
#include "store.h"
#include "stream.h"
#include "util.h"
#include "widget.h"
#include "collector.h"
#include "store_feed.h"
#include "../check_run.h"

extern const struct pane_class cpu_pane;

static SCREEN *scr;
static FILE *out, *in;

static WINDOW *screen_open(int rows, int cols)
{
	setlocale(LC_ALL, "C");
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	ck_assert(out && in);
	scr = newterm("xterm", out, in);
	if (!scr)
		return NULL;
	set_term(scr);
	return newwin(rows, cols, 0, 0);
}

static void screen_close(WINDOW *w)
{
	if (w)
		delwin(w);
	if (scr) {
		endwin();
		delscreen(scr);
		scr = NULL;
	}
	fclose(out);
	fclose(in);
}

/* Row y as text, trailing blanks dropped. */
static void row(WINDOW *w, int y, char *buf, int n)
{
	int len = mvwinnstr(w, y, 0, buf, n - 1);

	if (len < 0)
		len = 0;
	buf[len] = '\0';
	while (len > 0 && buf[len - 1] == ' ')
		buf[--len] = '\0';
}

static const char sentence[] =
    "set PPU_HOME to the PPU SDK or ASYS_HGML_LIBRARY to the library file: no PPU "
    "management library found (looked in /usr/local/PPU_SDK/lib/libhgml.so, "
    "/usr/local/PPU_SDK/targets/x86_64-linux/lib/libhgml.so, libnvidia-ml.so.1)";

/* Every word comes back, in order, each line within the width, broken at
 * spaces: joined with single spaces the lines are the text again. */
START_TEST(wrap_keeps_every_word)
{
	WINDOW *w = screen_open(10, 60);
	char joined[1024] = "", line[80];
	int n, count;

	if (!w)
		return; /* no terminfo for xterm: nothing to draw on */
	/* 60 columns: wider than its longest word (a path of 55) */
	count = widget_wrap(NULL, 0, 0, 60, 10, 0, sentence);
	n = widget_wrap(w, 0, 0, 60, 10, 0, sentence);
	ck_assert_int_eq(n, count);
	ck_assert_int_ge(n, 4);
	for (int y = 0; y < n; y++) {
		row(w, y, line, sizeof(line));
		ck_assert_msg(strlen(line) <= 60, "line %d too long: %s", y, line);
		ck_assert_msg(line[0] != ' ', "line %d starts with a blank: %s", y, line);
		if (y)
			strcat(joined, " ");
		strcat(joined, line);
	}
	ck_assert_str_eq(joined, sentence);
	/* a path wider than a line is cut mid-word, and nothing is lost */
	werase(w);
	n = widget_wrap(w, 0, 0, 20, 10, 0, "/usr/local/PPU_SDK/targets/x86_64-linux/lib");
	ck_assert_int_eq(n, 3);
	row(w, 0, line, sizeof(line));
	ck_assert_str_eq(line, "/usr/local/PPU_SDK/t");
	row(w, 2, line, sizeof(line));
	ck_assert_str_eq(line, "lib");
	/* out of lines: the last one says there is more */
	werase(w);
	n = widget_wrap(w, 0, 0, 40, 2, 2, sentence);
	ck_assert_int_eq(n, 2);
	row(w, 1, line, sizeof(line));
	ck_assert_msg(line[strlen(line) - 1] == '~', "no mark of more: %s", line);
	ck_assert_msg(!strncmp(line, "  ", 2), "continuation not indented: %s", line);
	/* control bytes from a hostile status are shown escaped */
	werase(w);
	widget_wrap(w, 0, 0, 40, 2, 0, "bad\033]0;title\007 name");
	row(w, 0, line, sizeof(line));
	ck_assert_msg(!strchr(line, '\033') && !strchr(line, '\007'), "not escaped: %s", line);
	screen_close(w);
}
END_TEST

/* In a locale of one byte a character (C), text made as UTF-8 (a replay's
 * play state, the REC dot, a name from outside) comes as ASCII: curses
 * would draw each byte of it as ~V or M-b. */
START_TEST(text_ascii_without_utf8)
{
	WINDOW *w = screen_open(4, 60);
	char line[80], head[64];

	if (!w)
		return;
	widget_text(
	    w, 0, 0, 60,
	    "x1 \u25b6 \u25cf REC \u2193 1 \u2191 2 \u25bc \u2502\u2500\u256d \u00e9t\u00e9",
	    false);
	row(w, 0, line, sizeof(line));
	ck_assert_str_eq(line, "x1 > * REC v 1 ^ 2 v |-+ ?t?");
	ck_assert_int_eq(widget_text_width("\u275a\u275a \u25a0"), 5);
	widget_wrap(w, 1, 0, 60, 2, 0, "paused \u275a\u275a");
	row(w, 1, line, sizeof(line));
	ck_assert_str_eq(line, "paused ||");
	screen_close(w);
	/* a status's headline: what to do, before its details */
	ck_assert(widget_headline(head, sizeof(head), "no lib: set X; looked in a, b"));
	ck_assert_str_eq(head, "no lib: set X");
	ck_assert(!widget_headline(head, sizeof(head), "no range yet"));
	ck_assert_str_eq(head, "no range yet");
}
END_TEST

START_TEST(msglog_distinct_bounded)
{
	struct msglog *l = msglog_new();
	char text[64];

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(msglog_add(l, 10, 1, STATUS_STREAM, "no library"), 1);
	/* said again, or by another stream of the same source: one entry */
	ck_assert_int_eq(msglog_add(l, 20, 1, STATUS_STREAM, "no library"), 0);
	ck_assert_int_eq(msglog_add(l, 30, 2, STATUS_STREAM, "no library"), 0);
	/* "fine again" is not a message */
	ck_assert_int_eq(msglog_add(l, 40, 1, STATUS_STREAM, ""), 0);
	/* the same text about another entity is its own */
	ck_assert_int_eq(msglog_add(l, 50, 1, 3, "lost"), 1);
	ck_assert_int_eq(msglog_add(l, 60, 1, 5, "lost"), 1);
	ck_assert_uint_eq(msglog_count(l), 3);
	ck_assert_uint_eq(msglog_get(l, 0)->first_ns, 10);
	ck_assert_uint_eq(msglog_get(l, 0)->last_ns, 30);
	ck_assert_uint_eq(msglog_get(l, 0)->seen, 3);
	ck_assert_ptr_null(msglog_get(l, 3));
	/* bounded: the oldest go first */
	for (int i = 0; i < MSGLOG_MAX + 10; i++) {
		snprintf(text, sizeof(text), "message %d", i);
		ck_assert_int_eq(msglog_add(l, 100 + (uint64_t)i, MSGLOG_NOTE, 0, text), 1);
	}
	ck_assert_uint_eq(msglog_count(l), MSGLOG_MAX);
	ck_assert_uint_eq(msglog_dropped(l), 13);
	ck_assert_str_eq(msglog_get(l, 0)->text, "message 10");
	snprintf(text, sizeof(text), "message %d", MSGLOG_MAX + 9);
	ck_assert_str_eq(msglog_get(l, MSGLOG_MAX - 1)->text, text);
	msglog_free(l);
}
END_TEST

/* The CPU collector's own schemas, so a pane test breaks when they change. */
extern const struct collector cpu_collector;
#define core_desc (*cpu_collector.streams[0])
#define perf_desc (*cpu_collector.streams[1])

/* The CPU title of a store fed 3 s of one core, with or without cpu.perf
 * in the table, and with a reason for it or not. */
static void cpu_title(bool with_perf, const char *why, char *title, size_t n)
{
	struct stream_table *t = stream_table_new();
	int core = stream_table_add(t, &core_desc);
	int perf = with_perf ? stream_table_add(t, &perf_desc) : -1;
	struct store *st = store_new(t, 1000000000ull);
	struct view v = {0};
	struct pane p = {0};

	ck_assert_ptr_nonnull(st);
	for (int s = 1; s <= 3; s++) {
		double vals[11] = {10.0 * s, 0, 0, 90.0 * s, 0, 0, 0, 0, 0, 0, 1};

		feed(st, REC_SAMPLE, (uint32_t)core, 0, (uint64_t)s * 1000000000ull, vals, 11,
		     NULL);
	}
	if (why)
		feed(st, REC_STATUS, (uint32_t)perf, STATUS_STREAM, 1, NULL, 0, why);
	v.store = st;
	v.streams = t;
	v.end_ns = 3500000000ull;
	v.window_ns = 1000000000ull;
	p.cls = &cpu_pane;
	store_lock(st);
	p.priv = cpu_pane.init(&v);
	cpu_pane.title_extra(&p, &v, title, (int)n);
	cpu_pane.fini(p.priv);
	/* the status went to the log with its time */
	if (why) {
		const struct msglog *l = store_msglog(st);

		ck_assert_uint_eq(msglog_count(l), 1);
		ck_assert_str_eq(msglog_get(l, 0)->text, why);
		ck_assert_uint_eq(msglog_get(l, 0)->first_ns, 1);
	}
	store_unlock(st);
	store_free(st);
	stream_table_free(t);
}

START_TEST(cpu_ipc_absent_is_hidden)
{
	char title[256];

	cpu_title(false, NULL, title, sizeof(title));
	ck_assert_msg(strstr(title, "avg 10%") && !strstr(title, "IPC"), "no stream: %s", title);
	cpu_title(true, NULL, title, sizeof(title));
	ck_assert_msg(!strstr(title, "IPC"), "stream without data or reason: %s", title);
	cpu_title(true, "IPC n/a: no hardware PMU on this machine", title, sizeof(title));
	ck_assert_msg(strstr(title, "IPC n/a"), "a reason keeps IPC n/a: %s", title);
}
END_TEST

static Suite *messages_suite(void)
{
	Suite *s = suite_create("messages");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, wrap_keeps_every_word);
	tcase_add_test(tc, text_ascii_without_utf8);
	tcase_add_test(tc, msglog_distinct_bounded);
	tcase_add_test(tc, cpu_ipc_absent_is_hidden);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(messages_suite(), NULL);
}
