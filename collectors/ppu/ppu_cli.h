/* SPDX-License-Identifier: GPL-2.0-only */
/* The PPU options: their table (shared by the ppu and ppu_metrics
 * collectors), the listings and checks that run before anything else
 * (--ppu-metrics-device help, --ppu-metrics-set help, --ppu-metrics-list
 * help, --check-ppu-metrics-list), and the validation of set and list names
 * and device IDs. */
#ifndef ASYS_PPU_CLI_H
#define ASYS_PPU_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "options.h"

struct ppu_opts {
	const char *device;  /* all|none|help|ID list; NULL = none */
	const char *set;     /* NAME|none|help; NULL = summary */
	const char *list;    /* NAME,...|help */
	const char *check;   /* --check-ppu-metrics-list */
	double frequency;    /* 10..10000 */
	const char *backend; /* hgml|nvml|NULL (auto) */
};

extern const struct opt_table ppu_options;

/* This run's PPU options. */
const struct ppu_opts *ppu_opts_of(const struct asys_options *o);

/* The table's early hook, after option parsing. Returns -1 when there is
 * nothing to do (go on), else the exit code after printing: 0 after a
 * listing or a check that passed, 1 when the check failed, 2 for an unknown
 * set or metric name, or device IDs none of which exists (the message, with
 * the closest names, goes to stderr as "asys SUB: ..."). Some IDs that do
 * not exist among others that do are told on stderr, and the others are
 * sampled. */
int ppu_cli_early(const struct asys_options *o, const char *sub, FILE *out);

/* The listings, on their own (tests). */
void ppu_cli_print_sets(FILE *out);
void ppu_cli_print_metrics(FILE *out);
/* Loads the library to list the devices. */
void ppu_cli_print_devices(const struct ppu_opts *po, FILE *out);
/* 0 PASS, 1 FAIL, 2 bad name. */
int ppu_cli_check(const struct ppu_opts *po, const char *sub, const char *list, FILE *out);

/* Which of ndev devices a --ppu-metrics-device value selects, into sel[ndev].
 * NULL and "none" select none. IDs that do not exist are left out and named
 * in note (else note is ""). Returns how many are selected, or -EINVAL with
 * the sentence in note for a value that is not a list of IDs. */
int ppu_devices_parse(const char *spec, unsigned int ndev, bool *sel, char *note, size_t n);

#endif
