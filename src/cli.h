/* Command-line parsing shared by the subcommands. Bad input prints one line
 * naming the word and the valid range or choices; the caller exits 2. */
#ifndef ASYS_CLI_H
#define ASYS_CLI_H

#include <stdio.h>
#include "options.h"

#define CLI_EXIT_USAGE 2

/* Which option groups a subcommand accepts. */
enum cli_groups {
	CLI_G_COMMON = 1 << 0, /* -d -s -p --host-memory-* --no-color */
	CLI_G_PPU = 1 << 1,
	CLI_G_NIC = 1 << 2,
	CLI_G_PROBES = 1 << 3,
	CLI_G_OUTPUT = 1 << 4,	/* -o --force */
	CLI_G_RECORD = 1 << 5,	/* --duration --max-size --rotate --fsync-interval */
	CLI_G_COMMAND = 1 << 6, /* trailing -- command */
};

/* Parses argv (argv[0] is the subcommand). Returns 0, 1 when --help was
 * printed, or CLI_EXIT_USAGE after printing the error. */
int cli_parse(const char *sub, unsigned groups, int argc, char **argv, struct asys_options *o);
void cli_usage(FILE *f, const char *sub, unsigned groups);
/* Boolean in asys style: true/false/yes/no/1/0/on/off. */
int cli_parse_bool(const char *s, bool *out);

#endif
