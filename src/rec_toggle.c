/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "rec_toggle.h"
#include "rec_writer.h"
#include "strsafe.h"
#include "util.h"

#define NOTE_NS 6000000000ull

struct rec_toggle {
	struct bus *bus;
	const struct stream_table *streams;
	const struct record_opts *opts;
	char *command;
	struct rec_writer *w;
	int handle;
	bool used_output;
	char note[1024];
	uint64_t note_until;
};

void record_writer_opts(struct rec_writer_opts *w, const struct record_opts *r, const char *command)
{
	memset(w, 0, sizeof(*w));
	w->path = r->output;
	w->force = r->force;
	w->max_size = r->max_size;
	w->rotate_size = r->rotate_size;
	w->rotate_s = r->rotate_s;
	w->fsync_s = r->fsync_s;
	w->command = command;
}

struct rec_toggle *rec_toggle_new(struct bus *bus, const struct stream_table *t,
				  const struct record_opts *o, const char *command)
{
	struct rec_toggle *rt = calloc(1, sizeof(*rt));

	if (!rt)
		return NULL;
	rt->bus = bus;
	rt->streams = t;
	rt->opts = o;
	rt->command = util_strdup(command);
	rt->handle = -1;
	return rt;
}

/* A message shown in the header for a few seconds: a, then b. */
static void note(struct rec_toggle *rt, const char *a, const char *b, const char *c)
{
	size_t l = util_strlcpy(rt->note, a, sizeof(rt->note));

	if (l < sizeof(rt->note))
		l += util_strlcpy(rt->note + l, b, sizeof(rt->note) - l);
	if (l < sizeof(rt->note))
		util_strlcpy(rt->note + l, c, sizeof(rt->note) - l);
	rt->note_until = asys_now_ns() + NOTE_NS;
}

/* The recording's path as the message log says it: whole, from the root
 * (the header has room for its base name at most), escaped. */
static void shown_path(const char *path, char *buf, size_t n)
{
	char cwd[PATH_MAX], abs[PATH_MAX + 4096];

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(abs, sizeof(abs), "%s/%s", strcmp(cwd, "/") ? cwd : "", path);
	else
		snprintf(abs, sizeof(abs), "%s", path);
	str_escape(buf, n, abs, 600);
}

int rec_toggle_start(struct rec_toggle *rt, char *msg, size_t n)
{
	struct rec_writer_stats st;
	struct rec_writer_opts wo;
	char shown[2410];
	char auto_name[64];
	int err = 0;

	if (rt->w)
		return -EALREADY;
	record_writer_opts(&wo, rt->opts, rt->command);
	if (!rt->opts->output || rt->used_output) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(auto_name, sizeof(auto_name), "asys-%Y%m%d-%H%M%S.asys", &tm);
		wo.path = auto_name;
		wo.force = false;
	}
	rt->w = rec_writer_new(rt->streams, &wo, &err, msg, n);
	if (!rt->w)
		return err;
	rt->handle =
	    bus_attach_within(rt->bus, &rec_writer_consumer_ops, rt->w, REC_WRITER_LATENCY_NS);
	if (rt->handle < 0) {
		err = rt->handle;
		snprintf(msg, n, "cannot attach the recorder: %s", strerror(-err));
		rec_writer_free(rt->w);
		rt->w = NULL;
		return err;
	}
	if (wo.path == rt->opts->output)
		rt->used_output = true;
	rec_writer_get_stats(rt->w, &st);
	shown_path(st.path, shown, sizeof(shown));
	note(rt, "recording to ", shown, "; R stops");
	return 0;
}

void rec_toggle_stop(struct rec_toggle *rt)
{
	struct rec_writer_stats st;
	char size[32], shown[2410];
	int rc;

	if (!rt || !rt->w)
		return;
	bus_detach(rt->bus, rt->handle);
	rt->handle = -1;
	rc = rec_writer_close(rt->w);
	rec_writer_get_stats(rt->w, &st);
	shown_path(st.path, shown, sizeof(shown));
	util_fmt_bytes(size, sizeof(size), (double)st.bytes);
	if (rc < 0) {
		note(rt, "saved ", shown, ", but the last write failed");
	} else {
		char tail[48];

		snprintf(tail, sizeof(tail), " (%s)", size);
		note(rt, "saved ", shown, tail);
	}
	rec_writer_free(rt->w);
	rt->w = NULL;
}

void rec_toggle_free(struct rec_toggle *rt)
{
	if (!rt)
		return;
	rec_toggle_stop(rt);
	free(rt->command);
	free(rt);
}

bool rec_toggle_key(struct rec_toggle *rt, int ch)
{
	char msg[512];
	int rc;

	if (ch != 'R')
		return false;
	if (rt->w) {
		rec_toggle_stop(rt);
		return true;
	}
	rc = rec_toggle_start(rt, msg, sizeof(msg));
	/* a directory asys may not write to: the way out first */
	if (rc == -EACCES || rc == -EPERM || rc == -EROFS)
		note(rt,
		     "to record, start asys in a directory it can write to, or give -o FILE: ", msg,
		     "");
	else if (rc < 0)
		note(rt, "cannot record: ", msg, "");
	return true;
}

void rec_toggle_status(struct rec_toggle *rt, char *buf, size_t n)
{
	if (rt->w) {
		rec_writer_status_line(rt->w, buf, n);
		return;
	}
	snprintf(buf, n, "R: record");
}

void rec_toggle_status_short(struct rec_toggle *rt, char *buf, size_t n)
{
	struct rec_writer_stats st;
	char size[32];
	uint64_t s;

	if (!rt->w) {
		snprintf(buf, n, "R: record");
		return;
	}
	rec_writer_get_stats(rt->w, &st);
	if (st.paused) {
		snprintf(buf, n, "REC paused");
		return;
	}
	util_fmt_bytes(size, sizeof(size), (double)st.bytes);
	s = (asys_now_ns() - st.start_ns) / 1000000000ull;
	if (s < 3600)
		snprintf(buf, n, "\u25cf REC %s %02llu:%02llu", size, (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, n, "\u25cf REC %s %llu:%02llu:%02llu", size,
			 (unsigned long long)(s / 3600), (unsigned long long)(s / 60 % 60),
			 (unsigned long long)(s % 60));
}

bool rec_toggle_note(struct rec_toggle *rt, char *buf, size_t n)
{
	if (!rt->note[0] || asys_now_ns() >= rt->note_until)
		return false;
	util_strlcpy(buf, rt->note, n);
	return true;
}
