/* SPDX-License-Identifier: GPL-2.0-only */
/* What the engine needs of one run's options: the refresh, the scope and the
 * processes it follows, and each collector's block, described by the option
 * table in its descriptor and read back with options_get. Collectors read
 * this, never argv. The program's own options (the screen, recording, the
 * endpoint, replay, export) are blocks of the program's (src/cli.h), which
 * fills this one too. */
#ifndef ASYS_OPTIONS_H
#define ASYS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "opttab.h"

enum sample_scope {
	SCOPE_DEFAULT = 0, /* system-wide, or process-tree with -p or a command */
	SCOPE_PROCESS_TREE,
	SCOPE_SYSTEM_WIDE,
	SCOPE_NONE,
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
	char **command; /* after "--", NULL-terminated, not owned */

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
