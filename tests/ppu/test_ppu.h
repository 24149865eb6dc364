/* Shared helpers of the ppu tests. */
#ifndef ASYS_TEST_PPU_H
#define ASYS_TEST_PPU_H

#include <check.h>
#include <stddef.h>

/* Points ASYS_HGML_LIBRARY at the fake (old: the build without newer
 * symbols) and clears the fake's failure switches. */
void tp_use_fake(int old);
/* The fake's path into buf. */
void tp_fake_path(char *buf, size_t n, int old);
/* Output of fn(arg) written to a FILE, as a malloc'd string. */
char *tp_capture(void (*fn)(void *arg, FILE *f), void *arg);

TCase *tp_collect_tcase(void);

#endif
