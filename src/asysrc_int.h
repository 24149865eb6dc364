/* SPDX-License-Identifier: GPL-2.0-only */
/* What asysrc.c (reading) and asysrc_save.c (writing) share. */
#ifndef ASYS_ASYSRC_INT_H
#define ASYS_ASYSRC_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "asysrc.h"

#define ASYSRC_FILES 2 /* the system's and the user's */

enum asysrc_section {
	CS_OPTIONS = 0, /* [options], and lines before any section */
	CS_DISPLAY,	/* [display] */
	CS_UNKNOWN,	/* a section named wrongly: its lines are ignored */
};

struct asysrc {
	unsigned cmd;		  /* enum opt_cmd */
	char system[PATH_MAX];	  /* "" when it is not to be read */
	char user[PATH_MAX];	  /* "" when there is none to use */
	char denied[PATH_MAX];	  /* the user's, when privileges forbid it */
	char user_why[256];	  /* why there is none */
	char *text[ASYSRC_FILES]; /* the files read: [options] values point in */
	int ntext;
	char msg[ASYSRC_MSGS_MAX][ASYSRC_MSG_LEN];
	int nmsg;  /* kept */
	int total; /* said, kept or not */
};

/* Reads a whole regular file at path, not through a final symbolic link,
 * of at most ASYSRC_FILE_MAX bytes: NUL-terminated into *out (the caller
 * frees it). 0, -ENOENT, or -errno with the reason in why. */
int asysrc_slurp(const char *path, char **out, size_t *len, char *why, size_t n);

/* The next line of text from *p (advanced past its newline): its start,
 * its length in *len. NULL at the end. */
const char *asysrc_next_line(const char **p, const char *end, size_t *len);
/* A line's section header ("[display]"): true, and its section in *s. */
bool asysrc_header(const char *line, size_t len, enum asysrc_section *s);
/* A key line: true, with the key's start and length. */
bool asysrc_key(const char *line, size_t len, const char **key, size_t *klen);

#endif
