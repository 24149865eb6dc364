/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "env.h"
#include "serve.h"
#include "listen.h"
#include "session.h"
#include "sysroot.h"

static const struct cli_cmd snapshot_cli = {
    .sub = "snapshot",
    .cmd = OPT_CMD_SNAPSHOT,
    .about = "Sample for one interval, print every stream's current values once and exit.\n"
	     "See asys-snapshot(1).",
};

#define SNAPSHOT_COLLECTORS 32

/* Sleeps s seconds; a signal ends the wait early, which is fine: the
 * snapshot then shows what it has. */
static void snapshot_sleep(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};

	nanosleep(&ts, NULL);
}

/* Without -f, a terminal gets the text form (one value a line, which a
 * person can read and grep) and a pipe or file the JSON document. */
static bool snapshot_text(const struct snapshot_opts *o)
{
	if (o->snapshot_format == SNAPSHOT_AUTO)
		return isatty(STDOUT_FILENO);
	return o->snapshot_format == SNAPSHOT_TEXT;
}

/* After the sampling threads stopped and the bus's last drain; col holds
 * the collectors as they were while running. */
static int snapshot_print(struct session *s, const struct snapshot_opts *o,
			  const struct serve_collector *col, size_t nc)
{
	struct serve_snap_opts so = {.processes = SIZE_MAX, .rates = true};
	struct serve_snap *snap;
	struct utsname u;
	int rc;

	if (uname(&u) < 0)
		strcpy(u.nodename, "");
	snap = serve_snap_take(s->store, s->streams, &so);
	if (!snap) {
		fprintf(stderr, "asys snapshot: out of memory\n");
		return 1;
	}
	rc = snapshot_text(o) ? serve_write_text(snap, stdout)
			      : serve_write_json(snap, col, nc, u.nodename, o->interval_s, stdout);
	serve_snap_free(snap);
	if (rc < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "asys snapshot: cannot write: %s\n", strerror(errno ? errno : EIO));
		return 1;
	}
	return 0;
}

int cmd_snapshot(int argc, char **argv)
{
	struct cli_options o;
	struct serve_collector col[SNAPSHOT_COLLECTORS];
	struct session *s;
	uint64_t t0, t1;
	size_t nc;
	int rc, ret = 1;

	cli_options_defaults(&o);
	o.snap.snapshot_format = SNAPSHOT_AUTO;
	if ((rc = cli_parse(&snapshot_cli, argc, argv, &o)) >= 0)
		return rc;
	sysroot_set(env_path("ASYS_SYSROOT"));
	/* Collectors that sample once per refresh do so on a fixed grid of the
	 * clock, at any phase: a third of the interval gives each two samples
	 * within it, which a counter's rate needs. */
	o.eng.delay_s = o.snap.interval_s / 3 < 0.1 ? 0.1 : o.snap.interval_s / 3;
	s = session_new(&o.eng, true);
	if (!s)
		return 1;
	rc = session_start(s);
	if (rc < 0) {
		fprintf(stderr, "asys snapshot: cannot start sampling threads: %s\n",
			strerror(-rc));
		goto cleanup;
	}
	/* the threads take their first deadline after this: a tick lies
	 * between t0 and t1, give or take the one a stop may overtake */
	t0 = asys_now_ns();
	snapshot_sleep(o.snap.interval_s);
	t1 = asys_now_ns();
	nc = listen_collectors(s->engine, col, SNAPSHOT_COLLECTORS);
	session_stop(s);
	listen_collectors_over(s->engine, col, nc, (double)(t1 - t0) / 1e9);
	ret = snapshot_print(s, &o.snap, col, nc);
cleanup:
	session_free(s);
	return ret;
}
