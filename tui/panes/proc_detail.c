/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "proc.h"
#include "store.h"
#include "stream.h"
#include "util.h"

/* Views in place of the table: one process's environment (e), and its
 * details (Enter): the full command line, cgroup, container, the PPUs it
 * uses and sparklines of its history from the store. */

#define SPARK_MAX 256

void proc_text_close(struct proc_pane *s)
{
	free(s->text);
	s->text = NULL;
	s->text_top = s->text_lines = 0;
	s->mode = PM_TABLE;
}

static int count_lines(const char *t)
{
	int n = 1;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* The environment: one variable a line; a newline inside a value is shown
 * as \n, the other control bytes escaped when drawn. */
static char *env_text(const char *raw, size_t len)
{
	char *out = malloc(len * 2 + 1);
	size_t o = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (raw[i] == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = raw[i] ? raw[i] : '\n';
		}
	}
	while (o && out[o - 1] == '\n')
		o--;
	out[o] = '\0';
	return out;
}

void proc_env_open(struct proc_pane *s, const struct view *v, const struct proc_row *r)
{
	char *raw;
	ssize_t len;

	if (v->recorded || !r || (r->flags & PR_GROUP)) {
		snprintf(s->msg, sizeof(s->msg), "e: %s",
			 v->recorded ? "not in a replay: the environment was not recorded"
				     : "no process selected");
		return;
	}
	raw = malloc(PROC_TEXT_MAX);
	if (!raw)
		return;
	len = proc_act_read(r->pid, "environ", raw, PROC_TEXT_MAX);
	if (len <= 0) {
		snprintf(s->msg, sizeof(s->msg), "e: cannot read /proc/%llu/environ: %s",
			 (unsigned long long)r->pid, len < 0 ? strerror((int)-len) : "it is empty");
		free(raw);
		return;
	}
	proc_text_close(s);
	s->text = env_text(raw, (size_t)len);
	free(raw);
	if (!s->text)
		return;
	s->act_pid = r->pid;
	snprintf(s->act_name, sizeof(s->act_name), "%.80s", r->label ? r->label : "?");
	s->text_lines = count_lines(s->text);
	s->mode = PM_ENV;
}

/* What /proc says live: the command line (NULs as spaces) and the cgroup. */
static void live_part(char *buf, size_t n, uint64_t pid)
{
	char *raw = malloc(8192);
	ssize_t len;
	size_t off = 0;

	buf[0] = '\0';
	if (!raw)
		return;
	len = proc_act_read(pid, "cmdline", raw, 8192);
	for (ssize_t i = 0; i + 1 < len; i++)
		if (!raw[i])
			raw[i] = ' ';
	if (len > 0)
		off += (size_t)snprintf(buf + off, n - off, "command   %s\n", raw);
	len = proc_act_read(pid, "cgroup", raw, 8192);
	if (len > 0 && off < n) {
		const char *label = "cgroup    ";

		/* v1 has a line per hierarchy: each under the first */
		for (char *l = strtok(raw, "\n"); l && off < n; l = strtok(NULL, "\n")) {
			off += (size_t)snprintf(buf + off, n - off, "%s%s\n", label, l);
			label = "          ";
		}
	} else if (off < n) {
		off += (size_t)snprintf(buf + off, n - off, "cgroup    unreadable: %s\n",
					len < 0 ? strerror((int)-len) : "empty");
	}
	free(raw);
}

void proc_detail_open(struct proc_pane *s, const struct view *v, const struct proc_row *r)
{
	size_t n = 16384, off = 0;

	if (!r || (r->flags & PR_GROUP)) {
		snprintf(s->msg, sizeof(s->msg), "Enter: no process selected");
		return;
	}
	proc_text_close(s);
	s->text = malloc(n);
	if (!s->text)
		return;
	s->text[0] = '\0';
	if (!v->recorded)
		live_part(s->text, n, r->pid);
	off = strlen(s->text);
	if (!strstr(s->text, "command   "))
		off += (size_t)snprintf(s->text + off, n - off, "command   %s\n",
					r->label ? r->label : "?");
	if (v->recorded)
		off += (size_t)snprintf(s->text + off, n - off, "cgroup    (not recorded)\n");
	off +=
	    (size_t)snprintf(s->text + off, n - off, "container %s\nuser      %s\nparent    %llu",
			     r->container ? r->container : "(none)", r->user ? r->user : "?",
			     (unsigned long long)r->ppid);
	s->act_pid = r->pid;
	snprintf(s->act_name, sizeof(s->act_name), "%.80s", r->label ? r->label : "?");
	s->text_lines = count_lines(s->text);
	s->mode = PM_DETAIL;
}

bool proc_text_key(struct proc_pane *s, int ch, int page)
{
	if (widget_scroll_key(&s->text_top, s->text_lines, page, ch, false))
		return true;
	/* Esc, q, e, Enter and the rest close the view, as htop's do */
	proc_text_close(s);
	return true;
}

/* History of utime+stime (x100), rss, or sm summed over devices. */
static size_t history(const struct view *v, uint64_t pid, const char *what, double *out, size_t n)
{
	double tmp[SPARK_MAX];
	uint64_t ents[256];
	bool ppu = !strcmp(what, "ppu");
	bool rss = !strcmp(what, "rss"), cpu = !strcmp(what, "cpu");
	enum stream_id cs = ppu ? STREAM_PPU_PROC_UTIL : rss ? STREAM_MEM_PROC : STREAM_PROC_CPU;
	int id = stream_table_find(v->streams, catalogue_name(cs));
	const struct stream_desc *d = id >= 0 ? stream_table_get(v->streams, (uint32_t)id) : NULL;
	/* the catalogue's fields of cs; -1: none */
	const int fields[2] = {ppu   ? PPU_PROC_UTIL_SM
			       : rss ? MEM_PROC_RSS
				     : PROC_CPU_UTIME,
			       cpu ? PROC_CPU_STIME : -1};
	size_t ne = 0;

	for (size_t j = 0; j < n; j++)
		out[j] = NAN;
	if (!d || !v->window_ns)
		return 0;
	if (ppu)
		ne = store_entities(v->store, (uint32_t)id, ents, ARRAY_SIZE(ents));
	else
		ents[ne++] = pid;
	for (size_t e = 0; e < ne && e < ARRAY_SIZE(ents); e++) {
		const struct series *se = store_series(v->store, (uint32_t)id, ents[e]);

		if (!se || (ppu && (ents[e] & 0xffffffffu) != pid))
			continue;
		for (int k = 0; k < 2 && fields[k] >= 0; k++) {
			int f = catalogue_field_index(d, cs, (unsigned int)fields[k]);

			if (f < 0)
				continue;
			series_history(se, (uint32_t)f, v->end_ns, v->window_ns, tmp, n);
			for (size_t j = 0; j < n; j++)
				if (!isnan(tmp[j]))
					out[j] =
					    (isnan(out[j]) ? 0 : out[j]) + tmp[j] * (cpu ? 100 : 1);
		}
	}
	return n;
}

/* The PPUs process pid has utilisation or memory on: "0,1" or "none". */
static void devices(const struct view *v, uint64_t pid, char *buf, size_t n)
{
	const char *streams[2] = {catalogue_name(STREAM_PPU_PROC_UTIL),
				  catalogue_name(STREAM_PPU_PROC)};
	uint64_t mask = 0, ents[256];
	size_t off = 0;

	for (int k = 0; k < 2; k++) {
		int id = stream_table_find(v->streams, streams[k]);
		size_t ne = id >= 0 ? store_entities(v->store, (uint32_t)id, ents, 256) : 0;

		for (size_t e = 0; e < ne && e < 256; e++)
			if ((ents[e] & 0xffffffffu) == pid && (ents[e] >> 32) < 64)
				mask |= 1ull << (ents[e] >> 32);
	}
	buf[0] = '\0';
	for (int d = 0; d < 64 && off + 4 < n; d++)
		if (mask >> d & 1)
			off += (size_t)snprintf(buf + off, n - off, "%s%d", off ? "," : "", d);
	if (!mask)
		snprintf(buf, n, "none");
}

static void spark_row(WINDOW *w, struct view *v, int y, const char *name, const char *what,
		      uint64_t pid)
{
	double h[SPARK_MAX];
	int cols = getmaxx(w), sw = cols - 24, per = v->utf8 ? 2 : 1;
	char last[32];
	size_t n;

	if (sw > SPARK_MAX / 2)
		sw = SPARK_MAX / 2;
	if (sw < 4)
		return;
	n = history(v, pid, what, h, (size_t)(sw * per));
	widget_text(w, y, 1, 9, name, false);
	widget_spark(w, v, y, 11, sw, h, (int)n, !strcmp(what, "rss") ? 0 : 100, TC_ACCENT);
	if (!strcmp(what, "rss"))
		util_fmt_bytes(last, sizeof(last), n ? h[n - 1] : NAN);
	else
		snprintf(last, sizeof(last), n && !isnan(h[n - 1]) ? "%.1f%%" : "n/a",
			 n ? h[n - 1] : 0);
	widget_text(w, y, 12 + sw, cols - 13 - sw, last, false);
}

void proc_text_draw(struct proc_pane *s, WINDOW *w, struct view *v)
{
	int rows = getmaxy(w), cols = getmaxx(w), y = 1;
	char head[256], dev[128];
	const char *line = s->text;

	werase(w);
	snprintf(head, sizeof(head), " %s of %llu  (Esc closes; arrows, PgUp, PgDn scroll)  %s",
		 s->mode == PM_ENV ? "Environment" : "Details", (unsigned long long)s->act_pid,
		 s->act_name);
	widget_attr_on(w, v, TC_TITLE);
	widget_text(w, 0, 0, cols, head, false);
	widget_attr_off(w, v, TC_TITLE);
	if (s->mode == PM_DETAIL) {
		devices(v, s->act_pid, dev, sizeof(dev));
		snprintf(head, sizeof(head), "PPUs      %s", dev);
		widget_text(w, y++, 1, cols - 1, head, false);
		if (rows > 8) {
			spark_row(w, v, y++, "CPU%", "cpu", s->act_pid);
			spark_row(w, v, y++, "RSS", "rss", s->act_pid);
			spark_row(w, v, y++, "PPU%", "ppu", s->act_pid);
		}
	}
	for (int k = 0; line && k < s->text_top; k++) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	while (line && y < rows) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[4096];

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1),
			 line);
		y += widget_wrap(w, y, 1, cols - 1, rows - y, 10, buf);
		line = nl ? nl + 1 : NULL;
	}
}
