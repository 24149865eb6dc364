/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "gpurt_ldso.h"

#define LDSO_SYMS_MAX 100000 /* a loader has a few hundred; bounds odd input */

/* Looks for both symbols in one symbol table; true once both are found. */
static bool ldso_find(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t *state, uint64_t *rdebug)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	if (!d || !sh->sh_entsize)
		return false;
	size_t n = sh->sh_size / sh->sh_entsize;
	if (n > LDSO_SYMS_MAX)
		n = LDSO_SYMS_MAX;
	for (size_t i = 0; i < n && !(*state && *rdebug); i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			break;
		if (!s.st_value || s.st_shndx == SHN_UNDEF)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name)
			continue;
		if (GELF_ST_TYPE(s.st_info) == STT_FUNC && !strcmp(name, "_dl_debug_state"))
			*state = s.st_value;
		else if (GELF_ST_TYPE(s.st_info) == STT_OBJECT && !strcmp(name, "_r_debug"))
			*rdebug = s.st_value;
	}
	return *state && *rdebug;
}

int gpurt_ldso_rdebug_delta(const char *path, int64_t *delta)
{
	uint64_t state = 0, rdebug = 0;
	int r = -ENOENT;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*delta = 0;
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF)
		goto cleanup;
	for (int want = SHT_DYNSYM; want && r; want = want == SHT_DYNSYM ? SHT_SYMTAB : 0) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;
		state = rdebug = 0;
		while ((scn = elf_nextscn(e, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == (unsigned)want &&
			    ldso_find(e, scn, &sh, &state, &rdebug)) {
				*delta = (int64_t)(rdebug - state);
				r = 0;
				break;
			}
	}
cleanup:
	if (e)
		elf_end(e);
	close(fd);
	return r;
}
