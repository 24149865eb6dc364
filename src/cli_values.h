/* SPDX-License-Identifier: GPL-2.0-only */
/* The values of the application's own options that need more than a range:
 * scope, pids, replay speed, and the sizes and durations of recording. Each
 * has the signature of opt_desc.parse; its block is the one of its table in
 * src/cli.c: struct asys_options for scope and pids, struct listen_opts for
 * --listen and --peak-window, struct play_opts for --speed, struct
 * record_opts for --duration, --max-size and --rotate. */
#ifndef ASYS_CLI_VALUES_H
#define ASYS_CLI_VALUES_H

#include "opttab.h"

int cli_parse_scope(const struct opt_desc *d, const char *name, const char *val, void *block,
		    char *err, size_t n);
int cli_parse_pids(const struct opt_desc *d, const char *name, const char *val, void *block,
		   char *err, size_t n);
/* ADDR:PORT, numeric (serve_addr.h); the text is kept, parsed again at bind. */
int cli_parse_listen(const struct opt_desc *d, const char *name, const char *val, void *block,
		     char *err, size_t n);
int cli_parse_speed(const struct opt_desc *d, const char *name, const char *val, void *block,
		    char *err, size_t n);
/* A duration needs a time unit (30s, 10min, 2h): a bare number is refused. */
int cli_parse_duration(const struct opt_desc *d, const char *name, const char *val, void *block,
		       char *err, size_t n);
/* --peak-window: a duration with its unit, 0.1s to 1h. */
int cli_parse_peak_window(const struct opt_desc *d, const char *name, const char *val, void *block,
			  char *err, size_t n);
/* A size needs a byte unit (4096B, 512MB, 2GiB; binary: 1MB = 1MiB). */
int cli_parse_max_size(const struct opt_desc *d, const char *name, const char *val, void *block,
		       char *err, size_t n);
/* A size or a duration, told apart by the unit; "10m" is refused as it
 * could be either, with both spellings in the message. */
int cli_parse_rotate(const struct opt_desc *d, const char *name, const char *val, void *block,
		     char *err, size_t n);

/* What the unit of a value makes it. */
enum cli_unit_kind {
	CLI_UNIT_NONE,	    /* a bare number */
	CLI_UNIT_SIZE,	    /* B, KB, KiB, MB, ... */
	CLI_UNIT_TIME,	    /* us, ms, s, min, h, d */
	CLI_UNIT_AMBIGUOUS, /* m, M, k, K, G, ...: a size, or minutes? */
	CLI_UNIT_BAD,
};
enum cli_unit_kind cli_unit_kind(const char *val);

#endif
