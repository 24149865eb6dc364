/* SPDX-License-Identifier: GPL-2.0-only */
/* asysrc(5): the settings that persist between runs. /etc/asys/asysrc (under
 * ASYS_SYSROOT) is read first, then $XDG_CONFIG_HOME/asys/asysrc (default
 * ~/.config/asys/asysrc), both before the command line, which overrides
 * them. [options] holds long options of the command line, applied through
 * the same parser so they are checked the same way; [display] the screen's
 * settings (struct asys_settings, in the screen's block). A bad line is one message naming
 * file:line and is otherwise ignored; the other lines apply. */
#ifndef ASYS_ASYSRC_H
#define ASYS_ASYSRC_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "settings.h"

#define ASYSRC_FILE_MAX (64 * 1024) /* bytes: a larger file is not read */
#define ASYSRC_LINE_MAX 1024	    /* bytes of one line, its newline excluded */
#define ASYSRC_MSGS_MAX 16	    /* messages kept; the rest are counted */
#define ASYSRC_MSG_LEN 400
/* room for every message, joined */
#define ASYSRC_NOTES_MAX ((ASYSRC_MSGS_MAX + 1) * ASYSRC_MSG_LEN)

struct asysrc;

/* An empty configuration for cmd (enum opt_cmd): no file read yet. NULL
 * when out of memory. */
struct asysrc *asysrc_new(unsigned cmd);
/* Frees c and the values it holds: after the options are last used. */
void asysrc_free(struct asysrc *c);

/* What a command does before cli_parse: unless argv (before any "--")
 * holds --no-config, reads the system file, then the user's, into o. Never
 * NULL unless out of memory. */
struct asysrc *asysrc_load(struct cli_options *o, unsigned cmd, int argc, char **argv);
/* Reads one file into o. A missing file is no error; one that cannot be
 * read, or a bad line, adds a message. Returns the lines applied. */
int asysrc_read(struct asysrc *c, const char *path, struct cli_options *o);
/* The same for a file's text of len bytes (text[len] is NUL), named name in
 * messages. c takes text, which must come from malloc: values point in. */
int asysrc_parse(struct asysrc *c, const char *name, char *text, size_t len, struct cli_options *o);

/* The messages, '\n' between ("" when none), and how many there were. */
void asysrc_messages(const struct asysrc *c, char *buf, size_t n);
int asysrc_message_count(const struct asysrc *c);

/* The user's file ("" when there is none to use) and the system one. */
const char *asysrc_user_path(const struct asysrc *c);
const char *asysrc_system_path(const struct asysrc *c);

/* Writes what setup changed (enum set_changed), from the refresh delay_s
 * and the screen's settings ui, into the user's
 * file: atomically, keeping every other line, creating its directory 0700.
 * Never for a command that plays a recording. 0 or -errno; msg says what
 * happened either way. */
int asysrc_save(struct asysrc *c, double delay_s, const struct asys_settings *ui, unsigned changed,
		char *msg, size_t n);

#endif
