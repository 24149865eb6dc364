/* What the command line set for one run. The application's own options
 * (refresh, scope, recording, replay, export) are fields here; each
 * collector's options are a block of its own, described by the option table
 * in its descriptor and read back with options_get. Collectors read this,
 * never argv; src/cli.c fills it. */
#ifndef ASYS_OPTIONS_H
#define ASYS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "opttab.h"
#include "settings.h"

enum sample_scope {
	SCOPE_DEFAULT = 0, /* system-wide, or process-tree with -p or a command */
	SCOPE_PROCESS_TREE,
	SCOPE_SYSTEM_WIDE,
	SCOPE_NONE,
};

enum export_format {
	EXPORT_CSV = 0,
	EXPORT_JSON,
};

enum snapshot_format {
	SNAPSHOT_AUTO = -1, /* text on a terminal, else JSON */
	SNAPSHOT_JSON = 0,
	SNAPSHOT_TEXT,
};

#define OPT_MAX_PIDS 64
#define OPT_BLOCKS_MAX 8
#define OPT_BLOCK_SIZE 256

/* One collector table's values: a copy of its defaults, then what was given. */
struct opt_block {
	const struct opt_table *table;
	_Alignas(16) unsigned char data[OPT_BLOCK_SIZE];
};

struct asys_options {
	double delay_s;		  /* -d: refresh interval, 0.1..3600 */
	enum sample_scope scope;  /* -s */
	pid_t pids[OPT_MAX_PIDS]; /* -p */
	int npids;
	char **command;		  /* after "--", NULL-terminated, not owned */
	const char *workload_log; /* --workload-log FILE, NULL = a new temp file */
	bool no_color;		  /* --no-color or NO_COLOR */
	bool nic_show_all;	  /* --nic-all: a view setting of the NIC pane */
	bool no_config;		  /* --no-config: no asysrc file is read */
	struct asys_settings ui;  /* the screen's, from asysrc(5) and F2 */

	/* record, and top -o */
	const char *output;   /* -o FILE */
	bool force;	      /* --force: replace an existing output */
	double duration_s;    /* --duration, 0 = until a signal */
	uint64_t max_size;    /* --max-size bytes, 0 = none */
	uint64_t rotate_size; /* --rotate SIZE */
	double rotate_s;      /* --rotate DURATION */
	double fsync_s;	      /* --fsync-interval, default 1 */

	/* serve, and top and record with --listen */
	const char *listen;	  /* --listen ADDR:PORT, NULL: no endpoint (serve: the default) */
	double metrics_processes; /* --metrics-processes N: per-process series, 0 = none */
	const char *web_config;	  /* --web-config FILE: TLS and basic auth, NULL: none */
	double peak_window_s;	  /* --peak-window: the peaks' window, default 15 s */
	bool list_metrics;	  /* serve --list-metrics */
	/* snapshot */
	double interval_s;   /* --interval, default 1 */
	int snapshot_format; /* enum snapshot_format */

	/* replay and export */
	double speed;	     /* --speed 1/64..64 */
	const char *begin;   /* --begin TIME */
	const char *end;     /* --end TIME */
	bool info;	     /* replay --info */
	bool once;	     /* demo --once */
	int format;	     /* export -f: enum export_format */
	const char *streams; /* export --streams */
	bool summary;	     /* export --summary */

	/* the operands: FILE... of replay and export, not owned */
	char **args;
	int nargs;

	struct opt_block blocks[OPT_BLOCKS_MAX];
	int nblocks;
};

void options_defaults(struct asys_options *o);
/* Resolves SCOPE_DEFAULT from -p and the command. */
enum sample_scope options_scope(const struct asys_options *o);
/* A collector's values: its block, or the table's defaults when none of
 * its options was given. */
const void *options_get(const struct asys_options *o, const struct opt_table *t);
/* The block to change, made from the defaults on first use; NULL when the
 * table is too big or there are too many tables (a build error: test_core
 * checks every registered table fits). */
void *options_edit(struct asys_options *o, const struct opt_table *t);

#endif
