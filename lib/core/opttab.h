/* SPDX-License-Identifier: GPL-2.0-only */
/* Option tables: each owner (a collector, or a command of the application)
 * describes its command-line options once, with where each value goes in a
 * block of its own. The command line merges the tables it is given; --help,
 * the parser and the man-page test all read the same descriptions. */
#ifndef ASYS_OPTTAB_H
#define ASYS_OPTTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct asys_options;

/* Which subcommands take an option. */
enum opt_cmd {
	OPT_CMD_TOP = 1 << 0,
	OPT_CMD_RECORD = 1 << 1,
	OPT_CMD_REPLAY = 1 << 2,
	OPT_CMD_EXPORT = 1 << 3,
	OPT_CMD_DEMO = 1 << 4,
	OPT_CMD_SERVE = 1 << 5,
	OPT_CMD_SNAPSHOT = 1 << 6,
	OPT_CMD_VIEW = OPT_CMD_REPLAY | OPT_CMD_DEMO, /* those that play a recording */
	/* those that run collectors */
	OPT_CMD_SAMPLE = OPT_CMD_TOP | OPT_CMD_RECORD | OPT_CMD_SERVE | OPT_CMD_SNAPSHOT,
	OPT_CMD_LISTEN =
	    OPT_CMD_TOP | OPT_CMD_RECORD | OPT_CMD_SERVE, /* those that serve /metrics */
};

enum opt_type {
	OPT_FLAG,   /* no value: sets a bool */
	OPT_BOOL,   /* true|false|yes|no|1|0|on|off into a bool */
	OPT_DOUBLE, /* a number between lo and hi into a double */
	OPT_STRING, /* non-empty text into a const char * (argv's, not copied) */
	OPT_CHOICE, /* one of choices[] into an int: its index */
	OPT_PARSE,  /* parse() decides */
};

#define OPT_ERR_MAX 512

struct opt_desc {
	const char *lng; /* "nic-metrics-frequency" */
	char shrt;	 /* 'd', or 0 */
	const char *arg; /* "HZ"; NULL for OPT_FLAG */
	const char *help;
	unsigned cmds; /* enum opt_cmd */
	enum opt_type type;
	size_t off;   /* of the value in the owner's block */
	size_t given; /* 1 + offset of a bool set when the option is given; 0: none */
	double lo, hi;
	const char *unit;	    /* OPT_DOUBLE: "Hz", "seconds" */
	const char *const *choices; /* OPT_CHOICE: NULL-terminated */
	const char *expect;	    /* OPT_STRING/OPT_PARSE: what a good value is */
	/* OPT_PARSE: 0, or -EINVAL with the whole sentence in err ("" for the
	 * usual "bad value 'V' for NAME: expected EXPECT"). name is how the
	 * user wrote it: "-d/--delay". */
	int (*parse)(const struct opt_desc *d, const char *name, const char *val, void *block,
		     char *err, size_t n);
};

struct opt_table {
	const char *name;  /* "nic": the --help heading */
	const char *title; /* "NIC options" */
	const struct opt_desc *opts;
	size_t nopts;
	size_t size;	      /* of the block; at most OPT_BLOCK_SIZE */
	const void *defaults; /* a block holding the default values */
	/* Optional, after the whole command line is read: listings that end
	 * the command (--x help), and checks across options. Returns -1 to go
	 * on, or the exit status after printing ("asys SUB: ..." on stderr). */
	int (*early)(const struct asys_options *o, const char *sub, FILE *out);
};

#define OPT_OFF(type, member) offsetof(type, member)
#define OPT_GIVEN(type, member) (offsetof(type, member) + 1)

/* Applies one value (NULL for a flag) to block. Returns 0, or -EINVAL with
 * the sentence in err (without the "asys SUB: " prefix). */
int opt_apply(const struct opt_desc *d, const char *name, const char *val, void *block, char *err,
	      size_t n);
/* "-d, --delay SECONDS": the left column of --help. */
void opt_format_left(const struct opt_desc *d, char *buf, size_t n);
/* The usual sentence for a bad value, the argument escaped and cut. */
void opt_bad_value(char *err, size_t n, const char *name, const char *val, const char *expect);
/* true/false/yes/no/1/0/on/off */
int opt_parse_bool(const char *s, bool *out);

#endif
