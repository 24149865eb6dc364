/* SPDX-License-Identifier: GPL-2.0-only */
/* Names for host-stub addresses: the ELF symbol table (.symtab, else
 * .dynsym) of the file mapped at the address, cached per file by device and
 * inode, demangled (demangle.h). */
#ifndef ASYS_GPURT_SYMS_H
#define ASYS_GPURT_SYMS_H

#include <stddef.h>
#include <stdint.h>

struct gpurt_syms;

struct gpurt_syms *gpurt_syms_new(void);
void gpurt_syms_free(struct gpurt_syms *s);
/* The function at addr in process pid: its demangled name, or "FILE+0xOFF"
 * when the file has no symbol there, or "0xADDR" when no file maps it.
 * Returns 0 when a symbol was found, -ENOENT for the fallbacks. */
int gpurt_syms_name(struct gpurt_syms *s, int pid, uint64_t addr, char *buf, size_t n);
/* The function at offset fileoff of the file at path, named as
 * gpurt_syms_name does, when the file there is still the one of the kernel's
 * device number kdev (major << 20 | minor) and inode ino: for a stub of a
 * process that has ended. */
int gpurt_syms_name_file(struct gpurt_syms *s, const char *path, uint64_t kdev, uint64_t ino,
			 uint64_t fileoff, char *buf, size_t n);
/* Files with symbols loaded (for tests). */
size_t gpurt_syms_cached(const struct gpurt_syms *s);

#endif
