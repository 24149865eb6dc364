/* SPDX-License-Identifier: GPL-2.0-only */
/* asys demo: the panes of asys top on a recording made at build time, so
 * that a machine without PPUs or RDMA NICs shows every pane at once. It is
 * asys replay's view with a file of its own (doc/demo.md). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asysrc.h"
#include "cli.h"
#include "commands.h"
#include "env.h"
#include "replay_view.h"

#define DEMO_NAME "demo.asys"
/* The recording begins 30 s before this, so the history graphs are full
 * from the first frame; a loop comes back here. */
#define DEMO_BEGIN "+30s"

static bool demo_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Beside the running binary: a build tree, before make install. */
static void demo_beside_binary(char *buf, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	buf[0] = '\0';
	if (len <= 0)
		return;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (slash && snprintf(buf, n, "%.*s/%s", (int)(slash - exe), exe, DEMO_NAME) >= (int)n)
		buf[0] = '\0';
}

/* The recording to play: ASYS_DEMO_FILE when set, else the one beside the
 * binary, else the installed one. 0, or -ENOENT after saying where it
 * looked and how to get one. */
static int demo_find(char *path, size_t n)
{
	const char *env = env_path("ASYS_DEMO_FILE");
	char beside[PATH_MAX];

	if (env) {
		snprintf(path, n, "%s", env);
		if (demo_exists(path))
			return 0;
		fprintf(stderr,
			"asys demo: no recording at ASYS_DEMO_FILE=%s (%s); unset it to use the "
			"installed %s/%s, or point it at the demo.asys that make builds\n",
			env, strerror(errno), ASYS_PKGDATADIR, DEMO_NAME);
		return -ENOENT;
	}
	demo_beside_binary(beside, sizeof(beside));
	if (beside[0] && demo_exists(beside)) {
		snprintf(path, n, "%s", beside);
		return 0;
	}
	snprintf(path, n, "%s/%s", ASYS_PKGDATADIR, DEMO_NAME);
	if (demo_exists(path))
		return 0;
	fprintf(stderr,
		"asys demo: no demo recording at %s%s%s; 'make install' installs it, 'make' "
		"builds it beside the asys binary, or set ASYS_DEMO_FILE to a recording\n",
		beside, beside[0] ? " or " : "", path);
	return -ENOENT;
}

static const struct cli_cmd demo_cli = {
    .sub = "demo",
    .cmd = OPT_CMD_DEMO,
    .about = "Show the asys top panes on a demo recording: eight PPUs, RDMA and Ethernet\n"
	     "NICs, 64 CPU cores, processes with device and pinned memory, and the top\n"
	     "kernels of a training job. No PPU, NIC or privilege is needed.",
    .epilog = "Keys are those of asys replay: space pause, . and , step, ] and [ speed,\n"
	      "g go to a time, Shift+Left/Right 10 s, q quit. See asys-demo(1).",
};

int cmd_demo(int argc, char **argv)
{
	struct cli_options o;
	struct replay_view a = {
	    .prog = "asys demo",
	    .begin = DEMO_BEGIN,
	    .opts = &o.eng,
	    .play = &o.play,
	    .view = &o.view,
	};
	char path[PATH_MAX], no_tty[PATH_MAX + 80], notes[ASYSRC_NOTES_MAX];
	struct asysrc *cfg;
	int rc;

	cli_options_defaults(&o);
	/* the files first: the command line overrides them */
	cfg = asysrc_load(&o, OPT_CMD_DEMO, argc, argv);
	rc = cli_parse(&demo_cli, argc, argv, &o);
	if (rc < 0 && demo_find(path, sizeof(path)))
		rc = 1;
	if (rc < 0) {
		a.loop = !o.play.once;
		snprintf(no_tty, sizeof(no_tty),
			 "; 'asys replay --info %s' describes the recording", path);
		if (cfg)
			asysrc_messages(cfg, notes, sizeof(notes));
		a.notes = cfg ? notes : NULL;
		a.path = path;
		a.no_tty = no_tty;
		rc = replay_view_run(&a);
	}
	asysrc_free(cfg);
	return rc;
}
