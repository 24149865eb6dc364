/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>

#include "asysrc.h"
#include "cli.h"
#include "commands.h"
#include "rec_export.h"
#include "replay_view.h"

static const struct cli_cmd replay_cli = {
    .sub = "replay",
    .cmd = OPT_CMD_REPLAY,
    .operands = "FILE...",
    .min_args = 1,
    .max_args = -1,
    .about = "Show a recording in the same interface as asys top; several (one per host)\n"
	     "on one time axis, } and { switching host. With --info, describe one or more\n"
	     "recordings and exit.",
    .epilog = "Keys: space pause, . and , step one refresh, ] and [ double or halve the speed,\n"
	      "g jump to a time (14:03:10, +90s, -5m, 40%), Shift+Left/Right 10 s "
	      "back/forward,\n} and { next and previous host, q quit. See asys-replay(1).",
};

int cmd_replay(int argc, char **argv)
{
	struct cli_options o;
	struct replay_view a = {
	    .prog = "asys replay",
	    .no_tty = "; use 'asys replay --info' or 'asys export' without one",
	};
	char notes[ASYSRC_NOTES_MAX];
	struct asysrc *cfg;
	int rc;

	cli_options_defaults(&o);
	/* the files first: the command line overrides them */
	cfg = asysrc_load(&o, OPT_CMD_REPLAY, argc, argv);
	rc = cli_parse(&replay_cli, argc, argv, &o);
	if (rc < 0 && o.play.info)
		rc = rec_info_files(o.args, o.nargs, stdout, stderr);
	if (rc < 0) {
		if (cfg)
			asysrc_messages(cfg, notes, sizeof(notes));
		a.notes = cfg ? notes : NULL;
		a.paths = o.args;
		a.npaths = o.nargs;
		a.begin = o.play.begin;
		a.opts = &o.eng;
		a.play = &o.play;
		a.view = &o.view;
		rc = replay_view_run(&a);
	}
	asysrc_free(cfg);
	return rc;
}
