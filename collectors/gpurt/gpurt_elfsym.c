/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurt_elfsym.h"

#define ELFSYM_MAX_SYMS (4u << 20) /* per table: bounds the walk on odd input */
#define ELFSYM_MAX_PHDRS 4096u

struct elfsym_pick {
	uint64_t vaddr;
	unsigned rank; /* claim(); 0 = not seen */
	bool ifunc;
};

/* The name without its symbol version ("cudaMalloc@@libcudart.so.12"). */
static size_t base_len(const char *s)
{
	const char *at = strchr(s, '@');

	return at ? (size_t)(at - s) : strlen(s);
}

/* Which of the wanted names this symbol is, or -1. The wanted lists are
 * short (the probes of one library), so a linear compare of the few names
 * whose first byte matches is cheaper than building a table. */
static long wanted_index(const char *name, const char *const *names, size_t n)
{
	size_t len = base_len(name);

	for (size_t i = 0; i < n; i++)
		if (names[i][0] == name[0] && strlen(names[i]) == len &&
		    !memcmp(names[i], name, len))
			return (long)i;
	return -1;
}

/* The file offset of a virtual address: through the loadable segment that
 * holds it, as the kernel's uprobe wants it. 0 when none does. */
static uint64_t vaddr_to_off(Elf *e, uint64_t vaddr)
{
	size_t nph = 0;

	if (elf_getphdrnum(e, &nph) || nph > ELFSYM_MAX_PHDRS)
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

/* How strongly a definition claims its name: a local one least, then a
 * global one of a version that is not the default (memcpy@GLIBC_2.2.5),
 * then the default one, which is what a program that calls the name gets. */
static unsigned claim(const GElf_Sym *s, const char *name, bool hidden)
{
	const char *at = strchr(name, '@');

	if (GELF_ST_BIND(s->st_info) == STB_LOCAL)
		return 1;
	if (hidden || (at && at[1] != '@'))
		return 2;
	return 3;
}

/* One symbol table (versions from versym, for the dynamic one). An
 * indirect function takes part, so that a default version which is one
 * leaves the name unresolved rather than probed at an old version's copy;
 * a probe on its resolver would count the loader's one call. */
static void scan_table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, Elf_Data *versym,
		       const char *const *names, size_t n, struct elfsym_pick *pick)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count;

	if (!d || !sh->sh_entsize)
		return;
	count = sh->sh_size / sh->sh_entsize;
	if (count > ELFSYM_MAX_SYMS)
		count = ELFSYM_MAX_SYMS;
	for (size_t k = 0; k < count; k++) {
		GElf_Sym s;
		GElf_Versym vs = 0;
		const char *name;
		unsigned type, rank;
		long i;

		if (!gelf_getsym(d, (int)k, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !s.st_value ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name || (i = wanted_index(name, names, n)) < 0)
			continue;
		if (versym && !gelf_getversym(versym, (int)k, &vs))
			vs = 0;
		rank = claim(&s, name, (vs & 0x8000) != 0);
		if (rank > pick[i].rank)
			pick[i] = (struct elfsym_pick){s.st_value, rank, type == STT_GNU_IFUNC};
	}
}

/* The dynamic symbol table's version section, if any. */
static Elf_Data *versym_data(Elf *e)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

int gpurt_elf_offsets(const char *path, const char *const *names, size_t n, uint64_t *off)
{
	struct elfsym_pick *pick = NULL;
	Elf_Data *versym;
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	int fd, found = 0;

	memset(off, 0, n * sizeof(*off));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	pick = calloc(n ? n : 1, sizeof(*pick));
	if (!pick) {
		found = -ENOMEM;
		goto cleanup;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		found = -ENOEXEC;
		goto cleanup;
	}
	versym = versym_data(e);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			scan_table(e, scn, &sh, NULL, names, n, pick);
		else if (sh.sh_type == SHT_DYNSYM)
			scan_table(e, scn, &sh, versym, names, n, pick);
	}
	for (size_t i = 0; i < n; i++)
		if (pick[i].rank && !pick[i].ifunc && (off[i] = vaddr_to_off(e, pick[i].vaddr)))
			found++;
cleanup:
	if (e)
		elf_end(e);
	close(fd);
	free(pick);
	return found;
}
