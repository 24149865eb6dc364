/* The PPU options' listings and checks that run before anything else:
 * --ppu-metrics-device help, --ppu-metrics-set help, --ppu-metrics-list help,
 * --check-ppu-metrics-list, and the validation of set and list names. */
#ifndef ASYS_PPU_CLI_H
#define ASYS_PPU_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "options.h"

/* Call right after option parsing. Returns -1 when there is nothing to do
 * (go on), else the exit code after printing: 0 after a listing or a check
 * that passed, 1 when the check failed, 2 for an unknown set or metric name
 * or a device ID that does not exist (the message, with the closest names,
 * goes to stderr as "asys SUB: ..."). */
int ppu_cli_early(const struct asys_options *o, const char *sub, FILE *out);

/* The listings, on their own (tests). */
void ppu_cli_print_sets(FILE *out);
void ppu_cli_print_metrics(FILE *out);
/* Loads the library to list the devices. */
void ppu_cli_print_devices(const struct asys_options *o, FILE *out);
/* 0 PASS, 1 FAIL, 2 bad name. */
int ppu_cli_check(const struct asys_options *o, const char *sub, const char *list, FILE *out);

/* Which of ndev devices a --ppu-metrics-device value selects, into sel[ndev].
 * NULL and "none" select none. Returns how many are selected, or -EINVAL /
 * -ERANGE with a sentence in err. */
int ppu_devices_parse(const char *spec, unsigned int ndev, bool *sel, char *err, size_t errlen);

#endif
