/* SPDX-License-Identifier: GPL-2.0-only */
/* The dynamic loader's debugger interface, read from its file: where its
 * r_debug lies relative to its _dl_debug_state, so the BPF hook on the
 * latter can read the former (gpurt.bpf.c, gpurt_on_loader). */
#ifndef ASYS_GPURT_LDSO_H
#define ASYS_GPURT_LDSO_H

#include <stdint.h>

/* The address of _r_debug less that of _dl_debug_state in the ELF file at
 * path (its .dynsym, else .symtab). 0, or -ENOENT when either symbol is
 * missing (musl names neither r_debug), -errno when the file cannot be
 * read. */
int gpurt_ldso_rdebug_delta(const char *path, int64_t *delta);

#endif
