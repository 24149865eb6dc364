/* SPDX-License-Identifier: GPL-2.0-only */
/* The command line of every subcommand: one parser over the application's
 * option table and the tables of the registered collectors. Bad input
 * prints one line naming the word and the valid range or choices; the
 * caller exits 2. */
#ifndef ASYS_CLI_H
#define ASYS_CLI_H

#include <stdio.h>

#include "commands.h"
#include "listen.h"
#include "options.h"
#include "rec_toggle.h"
#include "replay_view.h"
#include "tui.h"
#include "workload.h"

#define CLI_EXIT_USAGE 2

/* What the command line and asysrc(5) set for one run: the engine's options
 * (with the collectors' blocks), and a block for each part of the program,
 * read by the commands that take its options. */
struct cli_options {
	struct asys_options eng;   /* -d, -s, -p, the command; the collectors' */
	struct workload_opts job;  /* top, record: the command's output */
	struct tui_opts view;	   /* top, replay, demo: the screen */
	struct play_opts play;	   /* replay, demo, export */
	struct export_opts exp;	   /* export */
	struct record_opts rec;	   /* top and record: -o; record's limits */
	struct listen_opts serve;  /* serve, and top and record with --listen */
	struct snapshot_opts snap; /* snapshot */
	bool no_config;		   /* --no-config: no asysrc file is read */
	/* the operands: FILE... of replay and export, not owned */
	char **args;
	int nargs;
};

void cli_options_defaults(struct cli_options *o);

/* A subcommand as the parser sees it. */
struct cli_cmd {
	const char *sub;      /* "top" */
	unsigned cmd;	      /* enum opt_cmd: whose options it takes */
	const char *operands; /* for the usage line: "FILE...", or NULL: none */
	int min_args;	      /* operands needed (FILE...) */
	int max_args;	      /* at most; -1: any number */
	bool command;	      /* takes -- command [args...] */
	const char *about;    /* a paragraph after the usage line, or NULL */
	const char *epilog;   /* after the options, or NULL */
};

/* Parses argv (argv[0] is the subcommand) into o, which cli_options_defaults
 * has set: operands go to o->args (argv is reordered for them), a command
 * after -- to o->eng.command. Then runs the early hooks of the collectors'
 * tables (listings, checks) for commands that sample. Returns -1 to go on,
 * or the exit status: 0 after --help or a listing, 2 for bad usage (said
 * on stderr), or what a hook returned. */
int cli_parse(const struct cli_cmd *c, int argc, char **argv, struct cli_options *o);
void cli_usage(const struct cli_cmd *c, FILE *f);
/* Sets one option of the engine or a collector by its long name, as if
 * given on the command line: for tests and benchmarks. 0, or -ENOENT / -EINVAL after printing why.
 */
int cli_set(struct asys_options *o, const char *lng, const char *val);
/* The same for a file's key (asysrc): a flag takes a boolean, and nothing
 * is printed. 0: set; 1: a good value for an option the command (enum
 * opt_cmd) does not take, not set; -ENOENT: no such option; -EINVAL: err
 * says why. A string value is kept by pointer: it must outlive o. */
int cli_set_quiet(unsigned cmd, struct cli_options *o, const char *lng, const char *val, char *err,
		  size_t n);

#endif
