/* SPDX-License-Identifier: GPL-2.0-only */
/* Symbol names to uprobe offsets, for all the probes of one library in one
 * pass over its ELF file. libbpf resolves a uprobe's func_name by opening
 * and walking the file's symbol tables once per probe, which for a runtime
 * library of tens of megabytes and dozens of probes made attaching take
 * seconds. */
#ifndef ASYS_GPURT_ELFSYM_H
#define ASYS_GPURT_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/* For each of the n names (plain, without @version), the file offset of
 * its function in the ELF file at path, as a uprobe takes it: the default
 * version's definition, else another version's, else a local one. 0 for a
 * name the file does not define or whose winning definition is an
 * indirect function (a probe on its resolver would not see the calls).
 * The number of names found, or -errno (the file cannot be read, or is not
 * ELF). */
int gpurt_elf_offsets(const char *path, const char *const *names, size_t n, uint64_t *off);

#endif
