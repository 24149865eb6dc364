/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "asysrc.h"
#include "cli.h"
#include "commands.h"
#include "engine.h"
#include "env.h"
#include "rec_toggle.h"
#include "listen.h"
#include "session.h"
#include "store.h"
#include "strsafe.h"
#include "sysroot.h"
#include "tui.h"
#include "util.h"
#include "workload.h"

/* how long the message lines show environment variables that were
 * ignored and asysrc's messages */
#define TOP_NOTES_NS (30 * 1000000000ull)
/* ...and what saving the settings did */
#define TOP_SAVED_NS (10 * 1000000000ull)

/* A sampling thread is shown as short of its rate below 97% of it: a
 * scheduler's hiccup costs a percent or two, a real shortfall more. */
#define TOP_RATE_OK 0.97
/* ...and only when more than a tick and a half of the second is missing. */
#define TOP_RATE_SLACK_HZ 1.5

static const struct cli_cmd top_cli = {
    .sub = "top",
    .cmd = OPT_CMD_TOP,
    .command = true,
    .about = "Live view of PPU, NIC, CPU and memory metrics. See asys-top(1).",
};

struct top_ctx {
	struct rec_toggle *rec; /* R and -o FILE */
	struct workload wl;
	struct job_env job; /* what the collectors put in the workload */
	bool have_workload;
	uint64_t notes_until; /* ignored variables are shown until then */
	struct store *store;
	struct engine *engine;
	struct asysrc *cfg; /* asysrc(5): its messages, and where setup saves */
	char saved[600];    /* what the last save did */
	uint64_t saved_until;
	struct listener *serve; /* --listen */
	struct bus *bus;
	int frame_fd; /* eventfd: the bus's pump says a frame's data is in */
};

static bool top_workload(void *ctx, char *buf, size_t n)
{
	struct top_ctx *t = ctx;

	if (!t->have_workload)
		return false;
	workload_poll(&t->wl);
	workload_describe(&t->wl, buf, n);
	return true;
}

static void top_fmt_hz(char *buf, size_t n, double hz)
{
	if (isnan(hz))
		snprintf(buf, n, "n/a");
	else if (hz >= 1000)
		snprintf(buf, n, "%.2f kHz", hz / 1000);
	else if (hz >= 10 || hz == floor(hz))
		snprintf(buf, n, "%.0f Hz", hz);
	else
		snprintf(buf, n, "%.1f Hz", hz);
}

/* Appends what fits: the text is built piece by piece. */
static void top_append(char *buf, size_t n, const char *s)
{
	size_t len = strlen(buf);

	if (len < n)
		util_strlcpy(buf + len, s, n - len);
}

static void top_status(void *ctx, char *buf, size_t n)
{
	struct top_ctx *t = ctx;

	rec_toggle_status(t->rec, buf, n);
	/* where the endpoint listens: the port of --listen ADDR:0 is known
	 * only here */
	if (t->serve) {
		top_append(buf, n, *buf ? "  " : "");
		top_append(buf, n, "serving ");
		top_append(buf, n, listen_address(t->serve));
	}
}

/* The header's status where the whole one does not fit: no file name. */
static void top_status_short(void *ctx, char *buf, size_t n)
{
	struct top_ctx *t = ctx;

	rec_toggle_status_short(t->rec, buf, n);
	if (t->serve) {
		top_append(buf, n, "  serving ");
		top_append(buf, n, listen_address(t->serve));
	}
}

/* The message lines: ignored variables for a while, what R did, and the
 * store's caps, one a line. */
static void top_notes(void *ctx, char *buf, size_t n)
{
	struct top_ctx *t = ctx;
	char line[1024];
	uint64_t dropped;

	buf[0] = '\0';
	if (env_note_count() && asys_now_ns() < t->notes_until) {
		env_notes(line, sizeof(line));
		top_append(buf, n, line);
	}
	if (t->cfg && asysrc_message_count(t->cfg) && asys_now_ns() < t->notes_until) {
		char msgs[ASYSRC_NOTES_MAX];

		asysrc_messages(t->cfg, msgs, sizeof(msgs));
		top_append(buf, n, *buf ? "\n" : "");
		top_append(buf, n, msgs);
	}
	/* an endpoint open to other hosts without TLS or a password */
	if (listen_warning(t->serve) && asys_now_ns() < t->notes_until) {
		top_append(buf, n, *buf ? "\n" : "");
		top_append(buf, n, listen_warning(t->serve));
	}
	if (t->saved[0] && asys_now_ns() < t->saved_until) {
		top_append(buf, n, *buf ? "\n" : "");
		top_append(buf, n, t->saved);
	}
	if (rec_toggle_note(t->rec, line, sizeof(line))) {
		top_append(buf, n, *buf ? "\n" : "");
		top_append(buf, n, line);
	}
	store_lock(t->store);
	dropped = store_dropped(t->store);
	store_unlock(t->store);
	/* the store's caps (store.h) left some entities out: say so */
	if (dropped) {
		snprintf(line, sizeof(line), "over %d entities per stream: %llu records not shown",
			 STORE_ENTITIES_MAX, (unsigned long long)dropped);
		top_append(buf, n, *buf ? "\n" : "");
		top_append(buf, n, line);
	}
}

/* "sample 10 Hz" and, only where a sampling thread falls short of its
 * request, what it achieves and what it costs; true when one does. */
static bool top_sampling(void *ctx, char *buf, size_t n)
{
	struct top_ctx *t = ctx;
	struct engine_group_stats st[ENGINE_MAX_GROUPS];
	bool short_of = false;
	double top = 0;
	char hz[32];
	int k = t->engine ? engine_stats(t->engine, st, ENGINE_MAX_GROUPS) : 0;

	buf[0] = '\0';
	for (int i = 0; i < k; i++)
		if (st[i].hz_requested > top)
			top = st[i].hz_requested;
	if (top > 0) {
		top_fmt_hz(hz, sizeof(hz), top);
		top_append(buf, n, "sample ");
		top_append(buf, n, hz);
	}
	for (int i = 0; i < k; i++) {
		char piece[160];

		/* a full second of ticks before judging; at low rates a one-second
		 * count is off by a tick, which is no shortfall */
		if (st[i].hz_requested <= 0 || (double)st[i].ticks < st[i].hz_requested ||
		    st[i].hz_achieved >= st[i].hz_requested * TOP_RATE_OK ||
		    st[i].hz_requested - st[i].hz_achieved < TOP_RATE_SLACK_HZ)
			continue;
		top_fmt_hz(hz, sizeof(hz), st[i].hz_achieved);
		snprintf(piece, sizeof(piece), "  %s %s/%.0f Hz %.0f%% CPU", st[i].names, hz,
			 st[i].hz_requested, st[i].cpu_pct);
		top_append(buf, n, piece);
		short_of = true;
	}
	return short_of;
}

static bool top_key(void *ctx, int ch)
{
	struct top_ctx *t = ctx;

	return rec_toggle_key(t->rec, ch);
}

/* The setup screen's changes, into the user's asysrc. */
static int top_save(void *ctx, double delay_s, const struct tui_opts *v, unsigned changed,
		    char *msg, size_t n)
{
	struct top_ctx *t = ctx;
	int rc;

	if (!t->cfg) {
		snprintf(msg, n, "settings not saved: out of memory");
		return -ENOMEM;
	}
	rc = asysrc_save(t->cfg, delay_s, &v->ui, changed, msg, n);
	util_strlcpy(t->saved, msg, sizeof(t->saved));
	t->saved_until = asys_now_ns() + TOP_SAVED_NS;
	return rc;
}

/* The screen's frame, drawn right after the pump that brings its data in. */
static int top_frame_wake(void *ctx, uint64_t at_ns)
{
	struct top_ctx *t = ctx;

	if (t->frame_fd < 0)
		t->frame_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->frame_fd < 0)
		return -1;
	bus_notify_after(t->bus, t->frame_fd, at_ns);
	return t->frame_fd;
}

static double top_progress(void *ctx)
{
	(void)ctx;
	return NAN;
}

/* Recording (R, and -o FILE from the start), then the sampling threads;
 * says why on stderr when either cannot start. */
static int top_start(struct top_ctx *t, struct session *s, const struct cli_options *o)
{
	int rc;

	t->rec = rec_toggle_new(s->bus, s->streams, &o->rec, "asys top");
	if (!t->rec)
		return -1;
	if (o->rec.output) {
		char msg[512], shown[2050];

		if (rec_toggle_start(t->rec, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "asys top: %s\n", str_escape(shown, sizeof(shown), msg, 0));
			return -1;
		}
	}
	if (o->serve.listen) {
		t->serve = listen_start(s, &o->serve, o->serve.listen, "top");
		if (!t->serve)
			return -1;
	}
	rc = session_start(s);
	if (rc < 0) {
		fprintf(stderr, "asys top: cannot start sampling threads: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

/* The screen until the user quits: 0, or -1 once it has said why not. */
static int top_view(struct top_ctx *t, struct session *s, const struct cli_options *o)
{
	struct tui_driver drv = {0};
	struct tui_ctx tc = {0};
	int rc;

	drv.ctx = t;
	drv.sampling = top_sampling;
	drv.status = top_status;
	drv.status_short = top_status_short;
	drv.notes = top_notes;
	drv.name = "asys top";
	drv.workload = top_workload;
	drv.progress = top_progress;
	drv.frame_wake = top_frame_wake;
	drv.key = top_key;
	drv.save = top_save;
	drv.hint = "R start/stop recording";
	drv.hint_title = "Recording";
	tc.opts = &o->eng;
	tc.view = &o->view;
	tc.store = s->store;
	tc.streams = s->streams;
	tc.driver = &drv;
	rc = tui_run(&tc);
	if (rc < 0) {
		/* tui_run has said why for a terminal it cannot drive */
		if (rc != -ENOTTY)
			fprintf(stderr, "asys top: cannot use this terminal: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

/* What is left to say once the screen is gone: the ignored variables and
 * where the workload's output went; then the workload stops. */
static void top_finish(struct top_ctx *t)
{
	if (env_note_count()) {
		char notes[ENV_NOTES_MAX];

		env_notes(notes, sizeof(notes));
		fprintf(stderr, "asys top: %s\n", notes);
	}
	if (t->cfg && asysrc_message_count(t->cfg)) {
		char msgs[ASYSRC_NOTES_MAX];

		asysrc_messages(t->cfg, msgs, sizeof(msgs));
		fprintf(stderr, "%s\n", msgs);
	}
	if (t->have_workload) {
		char log[WORKLOAD_SHOWN];

		workload_stop(&t->wl);
		str_escape(log, sizeof(log), t->wl.log, 200);
		if (workload_drop_empty_log(&t->wl))
			fprintf(stderr, "asys top: removed the workload's empty log %s\n", log);
		else
			fprintf(stderr, "asys top: the workload's output is in %s\n", log);
	}
}

int cmd_top(int argc, char **argv)
{
	struct cli_options o;
	struct top_ctx t = {.frame_fd = -1};
	struct session *s = NULL;
	const char *nc = env_get("NO_COLOR");
	int rc, ret = 1;

	cli_options_defaults(&o);
	/* the files first: the command line overrides them */
	t.cfg = asysrc_load(&o, OPT_CMD_TOP, argc, argv);
	if ((rc = cli_parse(&top_cli, argc, argv, &o)) >= 0) {
		asysrc_free(t.cfg);
		return rc;
	}
	if (nc && *nc)
		o.view.no_color = true;
	sysroot_set(env_path("ASYS_SYSROOT"));
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr,
			"asys top: needs a terminal; use 'asys record' to sample without one\n");
		goto cleanup;
	}
	if (o.eng.command) {
		/* the notes show in the panes, from the collectors */
		workload_prepare(&t.job, &o.eng, "asys top");
		if (workload_start(&t.wl, o.eng.command, o.job.log, WORKLOAD_OUT_TEMP_LOG, &t.job) <
		    0)
			goto cleanup;
		t.have_workload = true;
		if (o.eng.npids < OPT_MAX_PIDS)
			o.eng.pids[o.eng.npids++] = t.wl.pid;
	}
	s = session_new(&o.eng, true);
	if (!s || top_start(&t, s, &o) < 0)
		goto cleanup;
	if (t.have_workload)
		workload_release(&t.wl);
	t.notes_until = asys_now_ns() + TOP_NOTES_NS;
	t.store = s->store;
	t.engine = s->engine;
	t.bus = s->bus;
	if (top_view(&t, s, &o) < 0)
		goto cleanup;
	ret = 0;
cleanup:
	top_finish(&t);
	listen_stop(t.serve);	/* no scrape reads the store past here */
	rec_toggle_free(t.rec); /* flushes and writes the trailer */
	session_free(s);	/* no pump writes frame_fd past here */
	if (t.frame_fd >= 0)
		close(t.frame_fd);
	asysrc_free(t.cfg);
	return ret;
}
