/* SPDX-License-Identifier: GPL-2.0-only */
/* The replay view (see replay_view.h): the player feeds a store through a
 * bus, and the TUI draws it as it draws live data. */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "cli.h"
#include "collector.h"
#include "env.h"
#include "options.h"
#include "rec_export.h"
#include "rec_player.h"
#include "replay_hosts.h"
#include "replay_view.h"
#include "ring.h"
#include "store.h"
#include "tui.h"
#include "util.h"

/* The replay keys, for the help screen and the bottom line. */
#define REPLAY_VIEW_HINT "Space pause  . , step  ] [ speed  g go to  S-Left/Right 10s"
#define REPLAY_VIEW_HINT_HOSTS REPLAY_VIEW_HINT "  } { next/previous host"

static const struct tui_key_hint replay_keys[] = {
    {"space", "pause"}, {". ,", "step"},	 {"] [", "speed"},
    {"g", "go to"},	{"S-Left/Right", "10s"}, {NULL, NULL},
};

/* With several recordings: the host keys first, where a narrow bottom
 * line still shows them. */
static const struct tui_key_hint replay_keys_hosts[] = {
    {"}", "host"},  {"space", "pause"},	     {". ,", "step"}, {"] [", "speed"},
    {"g", "go to"}, {"S-Left/Right", "10s"}, {NULL, NULL},
};

/* how long asysrc's messages stay on the message lines */
#define REPLAY_NOTES_NS (30 * 1000000000ull)

struct replay_ctx {
	struct replay_hosts hs; /* the recordings, one host each */
	struct rec_player *p;	/* the shown one's player */
	char note[128];		/* a short message in the header, such as a bad `g` time */
	uint64_t note_until;
	const char *start_notes; /* asysrc's, until start_until */
	uint64_t start_until;
	bool loop;
	uint64_t loop_t; /* where the replay began: a loop goes back there */
};

/* A one-line prompt on the bottom row; the TUI has no input widget. */
static bool replay_prompt(const char *label, char *buf, size_t n)
{
	size_t len = 0;
	int y = LINES - 1;

	buf[0] = 0;
	curs_set(1);
	for (;;) {
		int ch;

		move(y, 0);
		clrtoeol();
		attron(A_REVERSE);
		mvprintw(y, 0, "%s%s", label, buf);
		attroff(A_REVERSE);
		refresh();
		ch = wgetch(stdscr);
		if (ch == ERR)
			continue;
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			break;
		if (ch == 27 || ch == 7) { /* Esc, ^G */
			buf[0] = 0;
			break;
		}
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len)
			buf[--len] = 0;
		else if (ch >= 32 && ch < 127 && len + 1 < n) {
			buf[len++] = (char)ch;
			buf[len] = 0;
		}
	}
	curs_set(0);
	move(y, 0);
	clrtoeol();
	return buf[0] != 0;
}

static void replay_status(void *ctx, char *buf, size_t n)
{
	struct replay_ctx *c = ctx;

	/* The TUI asks for the header once a frame, so this is where a loop
	 * turns at the end; a replay the user paused stays where it is. */
	if (c->loop && rec_player_at_end(c->p) && !rec_player_paused(c->p))
		rec_player_seek(c->p, c->loop_t);
	replay_hosts_status(&c->hs, buf, n);
}

static void replay_data(void *ctx, struct store **store, const struct stream_table **streams)
{
	struct replay_ctx *c = ctx;

	replay_hosts_data(&c->hs, store, streams);
}

/* asysrc's messages, a bad `g` time for a few seconds, and why a host
 * shows nothing, on the message lines. */
static void replay_notes(void *ctx, char *buf, size_t n)
{
	struct replay_ctx *c = ctx;
	char away[400];

	buf[0] = '\0';
	if (c->start_notes && *c->start_notes && asys_now_ns() < c->start_until)
		snprintf(buf, n, "%s", c->start_notes);
	if (c->note[0] && asys_now_ns() < c->note_until)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", *buf ? "\n" : "", c->note);
	replay_hosts_note(&c->hs, away, sizeof(away));
	if (*away)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", *buf ? "\n" : "", away);
}

/* The recording's machine and clock, for the header and the message log. */
static void replay_source(void *ctx, struct tui_source *out)
{
	struct replay_ctx *c = ctx;
	const struct rec_meta *m = rec_player_meta(c->p);
	char *dot;

	out->recorded = true;
	if (!m) {
		snprintf(out->host, sizeof(out->host), "?");
		snprintf(out->kernel, sizeof(out->kernel), "?");
		return;
	}
	util_strlcpy(out->host, m->host, sizeof(out->host));
	/* the short name, as live */
	dot = strchr(out->host, '.');
	if (dot)
		*dot = '\0';
	util_strlcpy(out->kernel, m->kernel, sizeof(out->kernel));
	out->clock_origin_ns = m->clock_origin_ns;
}

static double replay_progress(void *ctx)
{
	struct replay_ctx *c = ctx;

	return rec_player_progress(c->p);
}

static bool replay_key(void *ctx, int ch)
{
	struct replay_ctx *c = ctx;
	char in[64];
	int rc;

	if (c->hs.n > 1 && (ch == '}' || ch == '{')) {
		replay_hosts_switch(&c->hs, ch == '}' ? 1 : -1);
		c->p = replay_hosts_player(&c->hs);
		return true;
	}
	if (replay_hosts_away_key(&c->hs, ch))
		return true;
	switch (ch) {
	case 'R': /* live top's key: say why it does nothing here */
		snprintf(c->note, sizeof(c->note),
			 "R records in asys top only: this view plays a recording already");
		c->note_until = asys_now_ns() + 4000000000ull;
		return true;
	case ' ':
		rec_player_toggle(c->p);
		return true;
	case '.':
		rec_player_step(c->p, 1);
		return true;
	case ',':
		rec_player_step(c->p, -1);
		return true;
	case ']':
		rec_player_speed(c->p, 2.0);
		return true;
	case '[':
		rec_player_speed(c->p, 0.5);
		return true;
	case KEY_SRIGHT:
		rec_player_seek_rel(c->p, 10000000000ll);
		return true;
	case KEY_SLEFT:
		rec_player_seek_rel(c->p, -10000000000ll);
		return true;
	case 'g':
	case 'G':
		if (!replay_prompt("Go to (14:03:10, +90s, -5m, 40%; Esc cancels): ", in,
				   sizeof(in)))
			return true;
		replay_hosts_arrive(&c->hs);
		rc = rec_player_seek_expr(c->p, in);
		if (rc == -ERANGE)
			snprintf(c->note, sizeof(c->note), "cannot go to '%s': out of range", in);
		else if (rc)
			snprintf(c->note, sizeof(c->note),
				 "cannot go to '%s': use HH:MM:SS, +90s, -5m or 40%%", in);
		if (rc)
			c->note_until = asys_now_ns() + 4000000000ull;
		return true;
	}
	return false;
}

/* Starts the bus and the player at the begin time; the exit status on
 * failure (said on stderr), else 0. */
static int replay_start(const struct replay_view *a, struct replay_ctx *c)
{
	struct replay_host *h = &c->hs.h[0];
	char range[160];
	int rc = replay_hosts_wire(&c->hs, 0);

	if (rc == -ENOMEM) {
		fprintf(stderr, "%s: out of memory\n", a->prog);
		return 1;
	}
	if (!rc)
		rc = rec_player_start(c->p, h->ring, h->store, c->hs.refresh_ns, a->play->speed,
				      a->begin);
	h->started = rc == 0;
	if (rc == -ERANGE) {
		rec_time_range(range, sizeof(range));
		fprintf(stderr, "%s: --begin '%s' is out of range: asys takes %s\n", a->prog,
			a->begin, range);
		return CLI_EXIT_USAGE;
	}
	if (rc == -EINVAL) {
		fprintf(stderr,
			"%s: bad value '%s' for --begin: expected HH:MM:SS, +90s, -5m or NN%%\n",
			a->prog, a->begin);
		return CLI_EXIT_USAGE;
	}
	if (rc) {
		fprintf(stderr, "%s: cannot start: %s\n", a->prog, strerror(-rc));
		return 1;
	}
	c->loop = a->loop;
	c->loop_t = rec_player_now(c->p);
	return 0;
}

/* The TUI on the player's store, until q: 0, or 1 when the terminal
 * cannot be used. */
static int replay_show(const struct replay_view *a, struct replay_ctx *c)
{
	struct tui_opts v = *a->view;
	struct tui_driver drv = {0};
	struct tui_ctx tc = {0};
	const char *nc = env_get("NO_COLOR");
	int rc;

	v.no_color = v.no_color || (nc && *nc);
	drv.ctx = c;
	drv.status = replay_status;
	drv.notes = replay_notes;
	drv.source = replay_source;
	drv.name = a->prog;
	drv.keys = c->hs.n > 1 ? replay_keys_hosts : replay_keys;
	drv.key = replay_key;
	drv.data = replay_data;
	drv.progress = replay_progress;
	drv.hint_title = "Replay";
	drv.hint = c->hs.n > 1 ? REPLAY_VIEW_HINT_HOSTS : REPLAY_VIEW_HINT;
	tc.opts = a->opts;
	tc.view = &v;
	tc.store = c->hs.h[0].store;
	tc.streams = rec_player_streams(c->p);
	tc.driver = &drv;
	rc = tui_run(&tc);
	if (rc < 0) {
		/* tui_run has said why for a terminal it cannot drive */
		if (rc != -ENOTTY)
			fprintf(stderr, "%s: cannot use this terminal: %s\n", a->prog,
				strerror(-rc));
		return 1;
	}
	return 0;
}

int replay_view_run(const struct replay_view *a)
{
	struct replay_ctx c = {0};
	char *one[1] = {(char *)a->path};
	int ret;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: needs a terminal%s\n", a->prog, a->no_tty ? a->no_tty : "");
		return 1;
	}
	c.hs.refresh_ns = (uint64_t)(a->opts->delay_s * 1e9);
	ret = a->npaths > 0 ? replay_hosts_open(&c.hs, a->paths, a->npaths, a->prog)
			    : replay_hosts_open(&c.hs, one, 1, a->prog);
	if (!ret) {
		c.p = replay_hosts_player(&c.hs);
		c.start_notes = a->notes;
		c.start_until = asys_now_ns() + REPLAY_NOTES_NS;
		ret = replay_start(a, &c);
	}
	if (!ret)
		ret = replay_show(a, &c);
	replay_hosts_free(&c.hs);
	return ret;
}
