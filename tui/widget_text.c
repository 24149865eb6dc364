/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "record.h"
#include "strsafe.h"
#include "util.h"
#include "widget.h"

/* Text into windows: fitted to columns, escaped when it comes from outside,
 * wrapped at spaces; and runs of one glyph (borders). */

/* Bytes of s that fit in width columns; *cols gets the columns used. */
static size_t text_fit(const char *s, int width, int *cols)
{
	mbstate_t st;
	size_t off = 0, len = strlen(s);
	int used = 0;

	memset(&st, 0, sizeof(st));
	while (off < len) {
		wchar_t wc;
		size_t k;
		int cw;

		/* ASCII, most of a frame: one column a byte, no conversion */
		if ((unsigned char)s[off] < 0x80) {
			if (used + 1 > width)
				break;
			used++;
			off++;
			continue;
		}
		k = mbrtowc(&wc, s + off, len - off, &st);
		if (k == (size_t)-1 || k == (size_t)-2) {
			/* invalid byte: counts as one column, then start afresh */
			memset(&st, 0, sizeof(st));
			k = 1;
			cw = 1;
		} else {
			if (k == 0)
				break;
			cw = wcwidth(wc);
			if (cw < 0)
				cw = 1;
		}
		if (used + cw > width)
			break;
		used += cw;
		off += k;
	}
	*cols = used;
	return off;
}

/* The ASCII form of a glyph asys draws, for a locale without UTF-8. */
static const struct text_ascii_form {
	unsigned cp;
	const char *ascii; /* never longer than the glyph's UTF-8 */
} text_ascii_forms[] = {
    {0x00b5, "u"}, {0x00b7, "."}, {0x00d7, "x"}, {0x2026, "..."}, {0x2190, "<"}, {0x2191, "^"},
    {0x2192, ">"}, {0x2193, "v"}, {0x2500, "-"}, {0x2502, "|"},	  {0x250c, "+"}, {0x2510, "+"},
    {0x2514, "`"}, {0x2518, "+"}, {0x251c, "|"}, {0x256d, "+"},	  {0x256e, "+"}, {0x256f, "+"},
    {0x2570, "+"}, {0x2588, "#"}, {0x2591, ":"}, {0x2592, "+"},	  {0x2593, "="}, {0x25a0, "[]"},
    {0x25b2, "^"}, {0x25b6, ">"}, {0x25bc, "v"}, {0x25cf, "*"},	  {0x275a, "|"},
};

/* The code point of the valid UTF-8 sequence of k bytes at p. */
static unsigned text_code_point(const unsigned char *p, size_t k)
{
	unsigned cp = p[0] & (0xff >> (k + 1));

	for (size_t i = 1; i < k; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

static const char *text_ascii_of(unsigned cp)
{
	if (cp >= 0x2581 && cp <= 0x2590) /* block elements: bars */
		return "#";
	if (cp >= 0x2800 && cp <= 0x28ff) /* braille: sparklines */
		return ".";
	for (size_t i = 0; i < ARRAY_SIZE(text_ascii_forms); i++)
		if (text_ascii_forms[i].cp == cp)
			return text_ascii_forms[i].ascii;
	return "?";
}

/* In a locale of one byte a character, curses draws each byte of a UTF-8
 * sequence as a control (~V, M-b): the glyphs asys draws become their ASCII
 * forms, any other character '?'. s holds no control bytes (escaped), and
 * no form is longer than its sequence, so buf may be s. Returns buf. */
static char *text_ascii(const char *s, char *buf, size_t n)
{
	size_t out = 0;

	while (*s && out + 1 < n) {
		size_t k = str_utf8_len(s);
		const char *a;

		if (!k) {
			buf[out++] = *s++;
			continue;
		}
		a = text_ascii_of(text_code_point((const unsigned char *)s, k));
		s += k;
		for (; *a && out + 1 < n; a++)
			buf[out++] = *a;
	}
	buf[out] = '\0';
	return buf;
}

static bool text_has_high(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return true;
	return false;
}

/* Text from outside (a recording, /proc, a library) drawn as it is would
 * move the cursor or retitle the terminal: it is shown escaped. */
static const char *text_safe(const char *s, char *buf, size_t n)
{
	if (str_needs_escape(s))
		s = str_escape(buf, n, s, 0);
	if (MB_CUR_MAX == 1 && text_has_high(s))
		s = text_ascii(s, buf, n);
	return s;
}

/* n cells of glyph (one character, UTF-8 or ASCII) from (y, x), rightwards
 * or downwards, in the window's attributes: one conversion of the glyph
 * and one line call, where a waddstr a cell converted it each time (a
 * frame's borders are over a thousand cells). */
void widget_run(WINDOW *w, const char *glyph, int y, int x, int n, bool across)
{
	wchar_t wc[2] = {0, 0};
	cchar_t cc;
	attr_t attrs;
	short pair;

	if (n <= 0 || mbtowc(&wc[0], glyph, strlen(glyph)) <= 0)
		return;
	wattr_get(w, &attrs, &pair, NULL);
	if (setcchar(&cc, wc, attrs, pair, NULL) != OK)
		return;
	if (across)
		mvwhline_set(w, y, x, &cc, n);
	else
		mvwvline_set(w, y, x, &cc, n);
}

/* Printable ASCII straight into the window's cells, in its attributes, with
 * the cursor left after it as waddnstr leaves it; false for anything else.
 * waddnstr takes each byte through the locale's multibyte conversion and
 * wcwidth, a tenth of the screen thread's time when every process is a
 * row. */
static bool text_put_ascii(WINDOW *w, int y, int x, const char *s, size_t n)
{
	chtype cells[512];
	attr_t attrs;
	short pair;
	chtype a;

	if (n > ARRAY_SIZE(cells) || wattr_get(w, &attrs, &pair, NULL) != OK || pair > 255)
		return false;
	a = (attrs & ~(attr_t)A_COLOR) | (chtype)COLOR_PAIR(pair);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f)
			return false;
		cells[i] = c | a;
	}
	if (n && mvwaddchnstr(w, y, x, cells, (int)n) != OK)
		return false;
	wmove(w, y, x + (int)n);
	return true;
}

int widget_text_width(const char *s)
{
	char buf[1024];
	int cols;

	text_fit(text_safe(s, buf, sizeof(buf)), 1 << 20, &cols);
	return cols;
}

bool widget_headline(char *buf, size_t n, const char *s)
{
	const char *end = s ? strstr(s, "; ") : NULL;

	if (!n)
		return false;
	if (!s) {
		buf[0] = '\0';
		return false;
	}
	snprintf(buf, n, "%.*s", end ? (int)(end - s) : (int)strlen(s), s);
	return end != NULL;
}

void widget_text(WINDOW *w, int y, int x, int width, const char *s, bool right)
{
	char buf[1024];
	int cols;
	size_t bytes;

	if (!s || width <= 0)
		return;
	s = text_safe(s, buf, sizeof(buf));
	bytes = text_fit(s, width, &cols);
	if (right)
		x += width - cols;
	if (!text_put_ascii(w, y, x, s, bytes))
		mvwaddnstr(w, y, x, s, (int)bytes);
}

/* The bytes of the next wrapped line of s in width columns: up to the last
 * space that fits, or cut mid-word when a word (a path) is wider than a line. */
static size_t wrap_line(const char *s, int width, bool *last)
{
	int cols;
	size_t fit = text_fit(s, width, &cols), cut = fit;

	*last = !s[fit];
	if (*last || s[fit] == ' ')
		return fit;
	while (cut > 0 && s[cut - 1] != ' ')
		cut--;
	return cut ? cut : fit;
}

int widget_wrap(WINDOW *w, int y, int x, int width, int maxl, int indent, const char *s)
{
	char buf[4 * REC_TEXT_MAX + 16];
	int used = 0;

	if (!s || width <= indent + 4 || maxl <= 0)
		return 0;
	s = text_safe(s, buf, sizeof(buf));
	while (*s && used < maxl) {
		int in = used ? indent : 0;
		bool last;
		size_t k = wrap_line(s, width - in, &last);

		if (used == maxl - 1 && !last) {
			/* out of lines: the last one says there is more */
			k = wrap_line(s, width - in - 1, &last);
			if (w) {
				mvwaddnstr(w, y + used, x + in, s, (int)k);
				waddstr(w, "~");
			}
			return used + 1;
		}
		if (w)
			mvwaddnstr(w, y + used, x + in, s, (int)k);
		used++;
		s += k;
		while (*s == ' ')
			s++;
	}
	return used;
}

void widget_fmt_ns(char *buf, size_t n, double ns)
{
	if (isnan(ns) || ns < 0)
		snprintf(buf, n, "n/a");
	else if (ns < 1e3)
		snprintf(buf, n, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, n, "%.*fus", ns < 1e4 ? 2 : ns < 1e5 ? 1 : 0, ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, n, "%.*fms", ns < 1e7 ? 2 : ns < 1e8 ? 1 : 0, ns / 1e6);
	else
		snprintf(buf, n, "%.2fs", ns / 1e9);
}

void widget_edit_line(char *buf, size_t size, int ch, bool *editing)
{
	size_t n = strlen(buf);

	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		*editing = false;
	else if (ch == 27)
		*editing = false, buf[0] = '\0';
	else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
		buf[n - 1] = '\0';
	else if (ch >= 32 && ch < 127 && n + 1 < size)
		buf[n] = (char)ch, buf[n + 1] = '\0';
}

bool widget_filter_table_key(struct tui_table *t, int nrows, char *filter, size_t size,
			     bool *editing, int ch, int page)
{
	if (*editing) {
		widget_edit_line(filter, size, ch, editing);
		return true;
	}
	if (ch == '/') {
		*editing = true;
		return true;
	}
	t->nrows = nrows;
	return widget_table_key(t, ch, page);
}
