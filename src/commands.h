/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommands; src/main.c dispatches through its table. */
#ifndef ASYS_COMMANDS_H
#define ASYS_COMMANDS_H

#include <stdbool.h>

/* export's options. */
enum export_format {
	EXPORT_CSV = 0,
	EXPORT_JSON,
};

struct export_opts {
	int format;	     /* -f: enum export_format */
	const char *streams; /* --streams */
	bool summary;	     /* --summary */
	const char *output;  /* -o OUT */
};

/* snapshot's options. */
enum snapshot_format {
	SNAPSHOT_AUTO = -1, /* text on a terminal, else JSON */
	SNAPSHOT_JSON = 0,
	SNAPSHOT_TEXT,
};

struct snapshot_opts {
	double interval_s;   /* --interval, default 1 */
	int snapshot_format; /* enum snapshot_format */
};

int cmd_top(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);

#endif
