/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <check.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "store_feed.h"
#include "proc_fix.h"

static void put_store(void *ctx, int slot, uint64_t entity, uint64_t ts, const double *v, int n,
		      const char *label)
{
	struct fix *f = ctx;

	feed(f->st, label ? REC_LABEL : REC_SAMPLE, (uint32_t)f->ids[slot], entity, ts, v, n,
	     label);
}

/* The scene's five ticks, one a second, viewed just after the last. */
bool fix_open(struct fix *f, unsigned want)
{
	memset(f, 0, sizeof(*f));
	setlocale(LC_ALL, "C");
	f->t = stream_table_new();
	ck_assert_int_eq(sc_register(f->t, f->ids, want), 0);
	f->st = store_new(f->t, 1000000000ull);
	ck_assert_ptr_nonnull(f->st);
	for (int k = 1; k <= 5; k++)
		sc_tick(put_store, f, f->ids, k, (uint64_t)k * 1000000000ull);
	f->v.store = f->st;
	f->v.streams = f->t;
	f->v.end_ns = 5500000000ull;
	f->v.window_ns = 1000000000ull;
	f->p.cls = &mem_pane;
	f->p.focused = true;
	f->p.rows = ROWS;
	f->p.cols = COLS;
	store_lock(f->st);
	f->p.priv = mem_pane.init(&f->v);
	f->out = fopen("/dev/null", "w");
	f->in = fopen("/dev/null", "r");
	f->scr = f->out && f->in ? newterm("xterm", f->out, f->in) : NULL;
	if (!f->scr) {
		fprintf(stderr, "test_proc: no xterm terminfo here, not checked\n");
		return false;
	}
	set_term(f->scr);
	f->w = newwin(ROWS, COLS, 0, 0);
	return f->w != NULL;
}

void fix_close(struct fix *f)
{
	if (f->w)
		delwin(f->w);
	if (f->scr) {
		endwin();
		delscreen(f->scr);
	}
	if (f->out)
		fclose(f->out);
	if (f->in)
		fclose(f->in);
	mem_pane.fini(f->p.priv);
	store_unlock(f->st);
	store_free(f->st);
	stream_table_free(f->t);
}

void draw(struct fix *f)
{
	werase(f->w);
	f->v.status[0] = '\0';
	mem_pane.draw(&f->p, f->w, &f->v);
}

void key(struct fix *f, int ch)
{
	ck_assert(mem_pane.key(&f->p, ch, &f->v));
	draw(f);
}

void keys(struct fix *f, const char *s)
{
	for (; *s; s++)
		key(f, *s);
}

void line(struct fix *f, int y, char *buf)
{
	mvwinnstr(f->w, y, 0, buf, COLS);
	for (int n = (int)strlen(buf); n > 0 && buf[n - 1] == ' ';)
		buf[--n] = '\0';
}

/* The screen row whose COMMAND holds text, or -1. */
int row_of(struct fix *f, const char *text)
{
	char buf[COLS + 1];

	for (int y = 0; y < ROWS; y++) {
		line(f, y, buf);
		if (strstr(buf, text))
			return y;
	}
	return -1;
}

/* The text of column col in screen row y, trimmed. */
const char *cell_raw(struct fix *f, int y, int col, bool raw)
{
	static char out[COLS + 1];
	const struct proc_pane *s = f->p.priv;
	char buf[COLS + 1];
	int x = 0, w = -1;

	ck_assert_int_ge(y, 0);
	for (int c = 0; c < s->nvis; c++) {
		if (s->vis[c] == col) {
			w = s->vis_cols[c].width ? s->vis_cols[c].width : COLS - x;
			break;
		}
		x += s->vis_cols[c].width + 1;
	}
	if (w < 0)
		return NULL; /* not shown */
	mvwinnstr(f->w, y, 0, buf, COLS);
	snprintf(out, sizeof(out), "%.*s", w, buf + x);
	for (int n = (int)strlen(out); n > 0 && out[n - 1] == ' ';)
		out[--n] = '\0';
	return raw ? out : out + strspn(out, " ");
}

const char *cell(struct fix *f, int y, int col)
{
	return cell_raw(f, y, col, false);
}

/* The COMMAND column of the table rows, top to bottom, '|'-joined. */
void commands(struct fix *f, char *buf, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int y = 3; y < ROWS; y++) {
		const char *c = cell_raw(f, y, PC_COMMAND, true);

		if (!c || !*c)
			break;
		off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? "|" : "", c);
	}
}
