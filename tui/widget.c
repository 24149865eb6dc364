/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "util.h"
#include "widget.h"

/* Colour pairs are numbered by enum tui_color; pair 0 is the terminal's own,
 * or the theme's background. */
struct color_def {
	short fg;
	attr_t attr; /* with colour */
	attr_t mono; /* without: only attributes can say anything */
};

static const struct color_def color_default[TC_COUNT] = {
    [TC_DEFAULT] = {-1, 0, 0},
    [TC_USER] = {COLOR_GREEN, 0, 0},
    [TC_NICE] = {COLOR_CYAN, 0, 0},
    [TC_SYSTEM] = {COLOR_RED, 0, 0},
    [TC_IOWAIT] = {COLOR_BLUE, A_BOLD, 0},
    [TC_IRQ] = {COLOR_YELLOW, 0, 0},
    [TC_STEAL] = {COLOR_MAGENTA, 0, 0},
    [TC_WARN] = {COLOR_YELLOW, A_BOLD, A_BOLD},
    [TC_CRIT] = {COLOR_RED, A_BOLD, A_BOLD | A_UNDERLINE},
    [TC_GOOD] = {COLOR_GREEN, 0, 0},
    [TC_DIM] = {-1, A_DIM, A_DIM},
    [TC_TITLE] = {COLOR_CYAN, A_BOLD, A_BOLD},
    [TC_SELECT] = {-1, A_REVERSE, A_REVERSE},
    [TC_ACCENT] = {COLOR_CYAN, 0, 0},
};

/* Yellow and cyan fade on white: blue and magenta instead. */
static const struct color_def color_light[TC_COUNT] = {
    [TC_DEFAULT] = {-1, 0, 0},
    [TC_USER] = {COLOR_GREEN, 0, 0},
    [TC_NICE] = {COLOR_BLUE, 0, 0},
    [TC_SYSTEM] = {COLOR_RED, 0, 0},
    [TC_IOWAIT] = {COLOR_BLUE, A_BOLD, 0},
    [TC_IRQ] = {COLOR_MAGENTA, 0, 0},
    [TC_STEAL] = {COLOR_MAGENTA, A_BOLD, 0},
    [TC_WARN] = {COLOR_MAGENTA, A_BOLD, A_BOLD},
    [TC_CRIT] = {COLOR_RED, A_BOLD, A_BOLD | A_UNDERLINE},
    [TC_GOOD] = {COLOR_GREEN, 0, 0},
    [TC_DIM] = {-1, A_DIM, A_DIM},
    [TC_TITLE] = {COLOR_BLUE, A_BOLD, A_BOLD},
    [TC_SELECT] = {-1, A_REVERSE, A_REVERSE},
    [TC_ACCENT] = {COLOR_BLUE, 0, 0},
};

/* On the blue background of widget_colors_init: blue text would vanish. */
static const struct color_def color_midnight[TC_COUNT] = {
    [TC_DEFAULT] = {COLOR_WHITE, 0, 0},
    [TC_USER] = {COLOR_GREEN, A_BOLD, 0},
    [TC_NICE] = {COLOR_CYAN, 0, 0},
    [TC_SYSTEM] = {COLOR_RED, A_BOLD, 0},
    [TC_IOWAIT] = {COLOR_WHITE, A_BOLD, 0},
    [TC_IRQ] = {COLOR_YELLOW, 0, 0},
    [TC_STEAL] = {COLOR_MAGENTA, A_BOLD, 0},
    [TC_WARN] = {COLOR_YELLOW, A_BOLD, A_BOLD},
    [TC_CRIT] = {COLOR_RED, A_BOLD, A_BOLD | A_UNDERLINE},
    [TC_GOOD] = {COLOR_GREEN, A_BOLD, 0},
    [TC_DIM] = {COLOR_CYAN, 0, A_DIM},
    [TC_TITLE] = {COLOR_YELLOW, A_BOLD, A_BOLD},
    [TC_SELECT] = {COLOR_BLACK, 0, A_REVERSE},
    [TC_ACCENT] = {COLOR_CYAN, A_BOLD, 0},
};

static const struct color_def *color_map = color_default;
static bool colors_ready;

void widget_colors_init(bool color, int theme)
{
	short bg = -1;

	colors_ready = false;
	color_map = theme == SET_THEME_LIGHT	  ? color_light
		    : theme == SET_THEME_MIDNIGHT ? color_midnight
						  : color_default;
	if (!color || theme == SET_THEME_MONO || !has_colors())
		return;
	if (start_color() == ERR)
		return;
	if (theme == SET_THEME_MIDNIGHT && COLORS >= 8) {
		/* pair 0 too: what nothing else paints is blue */
		bg = COLOR_BLUE;
		assume_default_colors(COLOR_WHITE, COLOR_BLUE);
	} else {
		use_default_colors();
	}
	for (int i = 1; i < TC_COUNT; i++)
		init_pair((short)i, color_map[i].fg,
			  i == TC_SELECT && bg == COLOR_BLUE ? COLOR_CYAN : bg);
	colors_ready = true;
}

static attr_t color_attr(const struct view *v, enum tui_color c)
{
	if ((unsigned)c >= TC_COUNT)
		return 0;
	if (v && v->color && colors_ready)
		return color_map[c].attr | (c ? COLOR_PAIR(c) : 0);
	return color_map[c].mono;
}

void widget_attr_on(WINDOW *w, const struct view *v, enum tui_color c)
{
	wattr_on(w, color_attr(v, c), NULL);
}

void widget_attr_off(WINDOW *w, const struct view *v, enum tui_color c)
{
	wattr_off(w, color_attr(v, c), NULL);
}

/* Eighth blocks, index 1..8 = 1/8..8/8 of a cell. */
static const char *const eighths[9] = {" ",	 "\u258f", "\u258e", "\u258d", "\u258c",
				       "\u258b", "\u258a", "\u2589", "\u2588"};
/* Without colour, segments must differ by shape. */
static const char *const seg_utf8_mono[] = {"\u2588", "\u2593", "\u2592", "\u2591"};
static const char seg_ascii[] = "#=+:~%";

void widget_bar(WINDOW *w, const struct view *v, int y, int x, int width, const double *fracs,
		const enum tui_color *colors, int n)
{
	bool mono = !(v && v->color && colors_ready);
	bool utf8 = v && v->utf8;
	double cum = 0;
	int cell = 0; /* cells already drawn */
	int last = -1;

	if (width <= 0)
		return;
	for (int i = 0; i < n; i++)
		if (!isnan(fracs[i]) && fracs[i] > 0)
			last = i;
	for (int i = 0; i <= last && cell < width; i++) {
		double f = fracs[i];
		int end;

		if (isnan(f) || f <= 0)
			continue;
		cum += f;
		if (cum > 1)
			cum = 1;
		end = (int)floor(cum * width + 0.5);
		if (i == last && utf8 && !mono) {
			/* finer ending for the last segment */
			double exact = cum * width;
			int full = (int)floor(exact);
			int part = (int)floor((exact - full) * 8 + 0.5);

			if (part == 8) {
				full++;
				part = 0;
			}
			end = full;
			widget_attr_on(w, v, colors[i]);
			if (end > width)
				end = width;
			widget_run(w, eighths[8], y, x + cell, end - cell, true);
			cell = end > cell ? end : cell;
			if (part > 0 && cell < width)
				mvwaddstr(w, y, x + cell++, eighths[part]);
			widget_attr_off(w, v, colors[i]);
			break;
		}
		widget_attr_on(w, v, colors[i]);
		if (end > width)
			end = width;
		if (end > cell) {
			char one[2] = {seg_ascii[i % (sizeof(seg_ascii) - 1)], '\0'};

			widget_run(w,
				   !utf8  ? one
				   : mono ? seg_utf8_mono[i % ARRAY_SIZE(seg_utf8_mono)]
					  : eighths[8],
				   y, x + cell, end - cell, true);
			cell = end;
		}
		widget_attr_off(w, v, colors[i]);
	}
}

/* UTF-8 of a code point in the Basic Multilingual Plane. */
static void utf8_encode(char *buf, unsigned cp)
{
	buf[0] = (char)(0xe0 | (cp >> 12));
	buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	buf[2] = (char)(0x80 | (cp & 0x3f));
	buf[3] = '\0';
}

static int spark_level(double val, double max, int levels)
{
	int l;

	if (isnan(val) || max <= 0)
		return -1;
	l = (int)ceil(val / max * levels);
	if (val > 0 && l < 1)
		l = 1;
	return l < 0 ? 0 : l > levels ? levels : l;
}

void widget_spark(WINDOW *w, const struct view *v, int y, int x, int width, const double *vals,
		  int nvals, double max, enum tui_color c)
{
	/* braille dots bottom-up, left column then right column */
	static const unsigned left[4] = {0x40, 0x04, 0x02, 0x01};
	static const unsigned right[4] = {0x80, 0x20, 0x10, 0x08};
	static const char ascii[] = "_.-=#";
	bool utf8 = v && v->utf8;
	int per = utf8 ? 2 : 1;
	int need = width * per;
	int first = nvals > need ? nvals - need : 0;
	int pad = need - (nvals - first); /* empty slots on the left */

	if (width <= 0)
		return;
	if (max <= 0) {
		max = 0;
		for (int i = first; i < nvals; i++)
			if (!isnan(vals[i]) && vals[i] > max)
				max = vals[i];
	}
	widget_attr_on(w, v, c);
	for (int cell = 0; cell < width; cell++) {
		if (utf8) {
			int a = cell * 2 - pad, b = a + 1;
			int la = a >= 0 ? spark_level(vals[first + a], max, 4) : -1;
			int lb = b >= 0 ? spark_level(vals[first + b], max, 4) : -1;
			unsigned bits = 0;
			char buf[4];

			for (int k = 0; k < la; k++)
				bits |= left[k];
			for (int k = 0; k < lb; k++)
				bits |= right[k];
			if (la < 0 && lb < 0) {
				mvwaddch(w, y, x + cell, ' ');
				continue;
			}
			utf8_encode(buf, 0x2800 + bits);
			mvwaddstr(w, y, x + cell, buf);
		} else {
			int a = cell - pad;
			int l = a >= 0 ? spark_level(vals[first + a], max, 5) : -1;

			mvwaddch(w, y, x + cell, (chtype)(l <= 0 ? ' ' : ascii[l - 1]));
		}
	}
	widget_attr_off(w, v, c);
}

const char *widget_level_glyph(const struct view *v, double level)
{
	static const char *const blocks[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
					      "\u2585", "\u2586", "\u2587", "\u2588"};
	static const char *const ascii[10] = {" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"};

	if (isnan(level))
		return " ";
	if (level < 0)
		level = 0;
	if (level > 1)
		level = 1;
	if (v && v->utf8)
		return blocks[(int)floor(level * 7 + 0.5)];
	return ascii[(int)floor(level * 9 + 0.5)];
}

/* "%.1f" below 100, "%.0f" above, after scaling by step through units. */
static void fmt_scaled(char *buf, size_t n, double val, double step, const char *const *units,
		       int nunits, const char *sep)
{
	int i = 0;

	if (isnan(val)) {
		snprintf(buf, n, "n/a");
		return;
	}
	while (fabs(val) >= step * 0.9995 && i < nunits - 1) {
		val /= step;
		i++;
	}
	if (i == 0 && val == floor(val))
		snprintf(buf, n, "%.0f%s%s", val, sep, units[i]);
	else
		snprintf(buf, n, fabs(val) < 99.95 ? "%.1f%s%s" : "%.0f%s%s", val, sep, units[i]);
}

void widget_fmt_rate(char *buf, size_t n, const struct view *v, double bytes_per_s)
{
	static const char *const bits[] = {"b/s", "Kb/s", "Mb/s", "Gb/s", "Tb/s"};
	static const char *const bytes[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};

	if (v && v->bits)
		fmt_scaled(buf, n, bytes_per_s * 8, 1000, bits, 5, " ");
	else
		fmt_scaled(buf, n, bytes_per_s, 1000, bytes, 5, " ");
}

void widget_fmt_count(char *buf, size_t n, double val)
{
	static const char *const units[] = {"", "k", "M", "G", "T"};

	fmt_scaled(buf, n, val, 1000, units, 5, "");
}

void widget_fmt_pct(char *buf, size_t n, double pct)
{
	if (isnan(pct))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.0f%%", pct);
}

static int col_width(const struct tui_table *t, int i, int total)
{
	int x = 0;

	if (t->cols[i].width > 0)
		return t->cols[i].width;
	for (int k = 0; k < t->ncols; k++)
		if (k != i)
			x += t->cols[k].width + 1;
	return total - x > 0 ? total - x : 0;
}

void widget_table_header(WINDOW *w, const struct view *v, int y, const struct tui_table *t, int *xs)
{
	int total = getmaxx(w);
	int x = 0;

	widget_attr_on(w, v, TC_TITLE);
	mvwhline(w, y, 0, ' ', total);
	for (int i = 0; i < t->ncols; i++) {
		int cw = col_width(t, i, total);
		char buf[128];

		if (xs)
			xs[i] = x;
		if (i == t->sort_col)
			snprintf(buf, sizeof(buf), "%s%s", t->cols[i].title,
				 v && v->utf8 ? (t->sort_desc ? "\u25bc" : "\u25b2")
					      : (t->sort_desc ? "v" : "^"));
		else
			snprintf(buf, sizeof(buf), "%s", t->cols[i].title);
		widget_text(w, y, x, cw, buf, t->cols[i].right);
		x += cw + 1;
	}
	widget_attr_off(w, v, TC_TITLE);
}

void widget_table_clamp(struct tui_table *t, int page)
{
	if (page < 1)
		page = 1;
	if (t->selected >= t->nrows)
		t->selected = t->nrows - 1;
	if (t->selected < 0)
		t->selected = 0;
	if (t->top > t->selected)
		t->top = t->selected;
	if (t->selected >= t->top + page)
		t->top = t->selected - page + 1;
	if (t->top > t->nrows - page)
		t->top = t->nrows - page;
	if (t->top < 0)
		t->top = 0;
}

int widget_table_frame(WINDOW *w, const struct view *v, struct tui_table *t, int nrows, int *xs)
{
	int rows = getmaxy(w), y0 = rows >= 2 ? 1 : 0;

	t->nrows = nrows;
	widget_table_clamp(t, rows - y0);
	widget_table_header(w, v, 0, t, xs);
	if (!y0) {
		wmove(w, 0, 0);
		wclrtoeol(w);
	}
	return y0;
}

bool widget_table_key(struct tui_table *t, int ch, int page)
{
	if (page < 1)
		page = 1;
	switch (ch) {
	case KEY_UP:
		t->selected--;
		break;
	case KEY_DOWN:
		t->selected++;
		break;
	case KEY_PPAGE:
		t->selected -= page;
		t->top -= page;
		break;
	case KEY_NPAGE:
		t->selected += page;
		t->top += page;
		break;
	case KEY_HOME:
		t->selected = 0;
		break;
	case KEY_END:
		t->selected = t->nrows - 1;
		break;
	case '<':
	case '>':
		if (t->ncols <= 0)
			return false;
		t->sort_col = (t->sort_col + (ch == '<' ? t->ncols - 1 : 1)) % t->ncols;
		/* numbers largest first, names in order */
		t->sort_desc = t->cols[t->sort_col].right;
		return true;
	case 'I':
		t->sort_desc = !t->sort_desc;
		return true;
	default:
		return false;
	}
	widget_table_clamp(t, page);
	return true;
}

double view_value(const struct series *se, int f, const struct view *v, bool rate)
{
	struct field_stats fs;

	if (!se || f < 0)
		return NAN;
	if (v->window_ns && series_window(se, (uint32_t)f, v->end_ns, v->window_ns, &fs) == 0 &&
	    fs.n > 0 && !isnan(fs.avg))
		return fs.avg;
	if (v->end_ns && series_last_ns(se) > v->end_ns)
		return NAN;
	return rate ? series_rate(se, (uint32_t)f) : series_last(se, (uint32_t)f);
}

bool widget_scroll_key(int *top, int lines, int page, int ch, bool follow)
{
	switch (ch) {
	case KEY_UP:
		(*top)--;
		break;
	case KEY_DOWN:
		(*top)++;
		break;
	case KEY_PPAGE:
		*top -= page;
		break;
	case KEY_NPAGE:
	case ' ':
		*top += page;
		break;
	case KEY_HOME:
		*top = 0;
		break;
	case KEY_END:
		*top = follow ? INT_MAX : lines - page;
		break;
	default:
		return false;
	}
	if (*top<INT_MAX && * top> lines - page)
		*top = lines - page;
	if (*top < 0)
		*top = 0;
	return true;
}
