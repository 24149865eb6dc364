/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "demangle.h"
#include "gpurt_syms.h"
#include "sysroot.h"
#include "util.h"

#define SYMS_MAX_FILES 256
#define SYMS_MAX_SYMS (4u << 20) /* per file: bounds memory on odd input */

struct sym {
	uint64_t addr, size;
	uint32_t name; /* offset into strs */
};

struct load {
	uint64_t off, vaddr, filesz;
};

struct symfile {
	uint64_t dev, ino;
	struct sym *syms;
	size_t nsyms;
	char *strs;
	size_t nstrs, capstrs;
	struct load *loads;
	size_t nloads;
};

struct gpurt_syms {
	struct symfile *files[SYMS_MAX_FILES];
	size_t nfiles, next_evict;
};

static void symfile_free(struct symfile *f)
{
	if (!f)
		return;
	free(f->syms);
	free(f->strs);
	free(f->loads);
	free(f);
}

struct gpurt_syms *gpurt_syms_new(void)
{
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct gpurt_syms));
}

void gpurt_syms_free(struct gpurt_syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		symfile_free(s->files[i]);
	free(s);
}

size_t gpurt_syms_cached(const struct gpurt_syms *s)
{
	return s->nfiles;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_str(struct symfile *f, const char *s, uint32_t *off)
{
	size_t len = strlen(s) + 1;
	if (f->nstrs + len > f->capstrs) {
		size_t cap = f->capstrs ? f->capstrs * 2 : 4096;
		while (cap < f->nstrs + len)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -E2BIG;
		char *p = realloc(f->strs, cap);
		if (!p)
			return -ENOMEM;
		f->strs = p;
		f->capstrs = cap;
	}
	memcpy(f->strs + f->nstrs, s, len);
	*off = (uint32_t)f->nstrs;
	f->nstrs += len;
	return 0;
}

static int load_symtab(struct symfile *f, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return 0;
	size_t n = sh->sh_size / sh->sh_entsize;
	if (n > SYMS_MAX_SYMS)
		n = SYMS_MAX_SYMS;
	struct sym *v = realloc(f->syms, (f->nsyms + n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->syms = v;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			break;
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value || s.st_shndx == SHN_UNDEF)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		struct sym *o = &f->syms[f->nsyms];
		int r = add_str(f, name, &o->name);
		if (r)
			return r;
		o->addr = s.st_value;
		o->size = s.st_size;
		f->nsyms++;
	}
	return 0;
}

static struct symfile *symfile_load(int fd, const struct stat *st)
{
	struct symfile *f = calloc(1, sizeof(*f));
	Elf *e = NULL;
	if (!f)
		return NULL;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF)
		goto cleanup; /* an empty entry: not ELF, nothing to name */
	size_t nph = 0;
	if (elf_getphdrnum(e, &nph) == 0 && nph > 0 && nph < 65536) {
		f->loads = calloc(nph, sizeof(*f->loads));
		for (size_t i = 0; f->loads && i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
				f->loads[f->nloads++] =
				    (struct load){ph.p_offset, ph.p_vaddr, ph.p_filesz};
		}
	}
	/* .symtab has the local (static) functions too; .dynsym when stripped */
	for (int want = SHT_SYMTAB; want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == (unsigned)want)
				if (load_symtab(f, e, scn, &sh))
					goto cleanup;
		}
		if (f->nsyms)
			break;
	}
	qsort(f->syms, f->nsyms, sizeof(*f->syms), sym_cmp);
cleanup:
	if (e)
		elf_end(e);
	return f;
}

/* The symbols of the open file fd (stat'ed as st), loaded once. */
static struct symfile *syms_file_fd(struct gpurt_syms *s, int fd, const struct stat *st)
{
	struct symfile *f = NULL;
	if (!S_ISREG(st->st_mode))
		return NULL;
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i]->dev == st->st_dev && s->files[i]->ino == st->st_ino)
			return s->files[i];
	f = symfile_load(fd, st);
	if (!f)
		return NULL;
	if (s->nfiles < SYMS_MAX_FILES) {
		s->files[s->nfiles++] = f;
	} else { /* full: replace round-robin */
		symfile_free(s->files[s->next_evict]);
		s->files[s->next_evict] = f;
		s->next_evict = (s->next_evict + 1) % SYMS_MAX_FILES;
	}
	return f;
}

static struct symfile *syms_file(struct gpurt_syms *s, int pid, const char *path)
{
	char rel[4200];
	snprintf(rel, sizeof(rel), "/proc/%d/root%s", pid, path);
	int fd = sysroot_open(rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	struct symfile *f = fstat(fd, &st) ? NULL : syms_file_fd(s, fd, &st);
	close(fd);
	return f;
}

static const struct sym *symfile_find(const struct symfile *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->nsyms;
	while (lo < hi) { /* first symbol above vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct sym *c = &f->syms[lo - 1];
	if (vaddr == c->addr || vaddr < c->addr + c->size)
		return c;
	return NULL;
}

/* Finds the mapping of addr: path and file offset. 0 or -ENOENT. */
static int find_mapping(int pid, uint64_t addr, char *path, size_t n, uint64_t *fileoff)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "/proc/%d/maps", pid);
	int fd = sysroot_open(rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	FILE *fp = fdopen(fd, "r");
	if (!fp) {
		close(fd);
		return -ENOMEM;
	}
	char line[4352];
	int r = -ENOENT;
	while (fgets(line, sizeof(line), fp)) {
		uint64_t lo, hi, off;
		int pos = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &lo, &hi,
			   &off, &pos) != 3 ||
		    !pos)
			continue;
		if (addr < lo || addr >= hi)
			continue;
		char *p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		if (*p != '/')
			break; /* anonymous or [vdso]: no file to read */
		util_strlcpy(path, p, n);
		*fileoff = addr - lo + off;
		r = 0;
		break;
	}
	fclose(fp);
	return r;
}

/* The symbol at a file offset of f into buf: 0, or -ENOENT. */
static int symfile_name(const struct symfile *f, uint64_t fileoff, char *buf, size_t n)
{
	for (size_t i = 0; f && i < f->nloads; i++) {
		const struct load *l = &f->loads[i];
		if (fileoff < l->off || fileoff >= l->off + l->filesz)
			continue;
		const struct sym *sy = symfile_find(f, fileoff - l->off + l->vaddr);
		if (!sy)
			break;
		demangle_name(f->strs + sy->name, buf, n);
		return 0;
	}
	return -ENOENT;
}

int gpurt_syms_name_file(struct gpurt_syms *s, const char *path, uint64_t kdev, uint64_t ino,
			 uint64_t fileoff, char *buf, size_t n)
{
	const char *base = strrchr(path, '/');
	struct symfile *f = NULL;
	struct stat st;
	int fd = sysroot_open(path, O_RDONLY | O_CLOEXEC);

	base = base ? base + 1 : path;
	/* the file the process mapped, not another one at its path now */
	if (fd >= 0 && !fstat(fd, &st) && major(st.st_dev) == kdev >> 20 &&
	    minor(st.st_dev) == (kdev & 0xfffff) && st.st_ino == ino)
		f = syms_file_fd(s, fd, &st);
	if (fd >= 0)
		close(fd);
	if (f && !symfile_name(f, fileoff, buf, n))
		return 0;
	snprintf(buf, n, "%s+0x%" PRIx64, base, fileoff);
	return -ENOENT;
}

int gpurt_syms_name(struct gpurt_syms *s, int pid, uint64_t addr, char *buf, size_t n)
{
	char path[4096];
	uint64_t fileoff;
	if (find_mapping(pid, addr, path, sizeof(path), &fileoff)) {
		snprintf(buf, n, "0x%" PRIx64, addr);
		return -ENOENT;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!symfile_name(syms_file(s, pid, path), fileoff, buf, n))
		return 0;
	snprintf(buf, n, "%s+0x%" PRIx64, base, fileoff);
	return -ENOENT;
}
