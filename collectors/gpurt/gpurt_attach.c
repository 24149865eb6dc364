/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt: attaching the probe table to a library file (one pass over its
 * symbols, then a uprobe per probe at its offset) and keeping the links. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpurt.h"
#include "gpurt_elfsym.h"
#include "gpurt_scan.h"
#include "gpurt_umulti.h"

static int link_keep(struct gpurt_scan *sc, struct bpf_link *l)
{
	if (sc->nlinks == sc->caplinks) {
		size_t cap = sc->caplinks ? sc->caplinks * 2 : 64;
		struct bpf_link **v = realloc(sc->links, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sc->links = v;
		sc->caplinks = cap;
	}
	sc->links[sc->nlinks++] = l;
	return 0;
}

static int fd_keep(struct gpurt_scan *sc, int fd)
{
	if (sc->nmlinks == sc->capmlinks) {
		size_t cap = sc->capmlinks ? sc->capmlinks * 2 : 16;
		int *v = realloc(sc->mlinks, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sc->mlinks = v;
		sc->capmlinks = cap;
	}
	sc->mlinks[sc->nmlinks++] = fd;
	return 0;
}

/* One uprobe-multi link, kept: 0 or -errno. */
static int multi_kept(struct gpurt_scan *sc, struct bpf_program *prog, const char *path,
		      const uint64_t *off, const uint64_t *cookie, size_t n, bool ret)
{
	int fd = gpurt_umulti_attach(prog, path, off, cookie, n, ret);
	if (fd < 0)
		return fd;
	int r = fd_keep(sc, fd);
	if (r)
		close(fd);
	return r;
}

/* The link kept last, removed (a probe whose return half failed). */
static void unkeep_last(struct gpurt_scan *sc)
{
	if (sc->multi && sc->nmlinks)
		close(sc->mlinks[--sc->nmlinks]);
	else if (!sc->multi && sc->nlinks)
		bpf_link__destroy(sc->links[--sc->nlinks]);
}

int gpurt_attach_kept(struct gpurt_scan *sc, struct bpf_program *prog, const char *path,
		      const char *sym, uint64_t off, uint64_t cookie, bool ret)
{
	if (sc->multi) {
		/* a multi link takes offsets only */
		if (!off && gpurt_elf_offsets(path, &sym, 1, &off) <= 0)
			return -ENOENT;
		return multi_kept(sc, prog, path, &off, &cookie, 1, ret);
	}
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = off ? NULL : sym, .retprobe = ret,
		    .bpf_cookie = cookie);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, -1, path, (size_t)off, &o);
	if (!l)
		return errno ? -errno : -ENOENT;
	int r = link_keep(sc, l);
	if (r)
		bpf_link__destroy(l);
	return r;
}

/* The probes of the table that want this library, by index into
 * sc->probes, and their offsets from one pass over its symbols; *byname
 * when that pass could not read the file. The number of them (*idx and
 * *off the caller's to free), or -ENOMEM. */
static int lib_offsets(struct gpurt_scan *sc, const char *path, const char *base, size_t **idx,
		       uint64_t **off, bool *byname)
{
	const char **names = calloc(sc->probes.n + 1, sizeof(*names));
	size_t n = 0;

	*idx = calloc(sc->probes.n + 1, sizeof(**idx));
	*off = calloc(sc->probes.n + 1, sizeof(**off));
	if (!names || !*idx || !*off) {
		free(names);
		free(*idx);
		free(*off);
		return -ENOMEM;
	}
	for (size_t i = 0; i < sc->probes.n; i++) {
		const struct gpurt_probe *p = &sc->probes.v[i];
		bool mem = gpurt_role_is_mem(p->role);

		if (!gpurt_lib_match(p->lib, base) || (mem && !sc->track_mem) ||
		    (!mem && !sc->track_launch))
			continue;
		(*idx)[n] = i;
		names[n++] = p->sym;
	}
	/* unread: every offset stays 0, and each probe goes by name */
	*byname = n && gpurt_elf_offsets(path, names, n, *off) < 0;
	free(names);
	return (int)n;
}

/* The program that serves a role at its entry. */
static struct bpf_program *probe_prog(const struct gpurt_scan *sc, uint32_t role)
{
	if (gpurt_role_has_return(role))
		return sc->prog_save;
	if (role == GPURT_LAUNCH_STUB || role == GPURT_LAUNCH_HANDLE)
		return sc->prog_launch;
	if (gpurt_role_is_copy(role))
		return sc->prog_copy;
	if (gpurt_role_is_range(role))
		return sc->prog_range;
	return sc->prog_free;
}

/* A probe attached: counted, and its kind noted for stub_libs. */
static void counted(struct gpurt_scan *sc, struct gpurt_lib *lib, const struct gpurt_probe *p,
		    __u8 *kinds)
{
	lib->probes++;
	sc->nattached++;
	if (p->role == GPURT_LAUNCH_STUB)
		*kinds |= GPURT_LIB_STUBS;
	if (gpurt_role_is_copy(p->role))
		*kinds |= GPURT_LIB_COPIES;
}

/* One probe on its own, with its return half when its role has one (the
 * entry goes again when that fails): 0 or -errno. */
static int attach_probe(struct gpurt_scan *sc, const struct gpurt_probe *p, const char *path,
			uint64_t off)
{
	uint64_t cookie = gpurt_probe_cookie(p);
	int r = gpurt_attach_kept(sc, probe_prog(sc, p->role), path, p->sym, off, cookie, false);
	if (r || !gpurt_role_has_return(p->role))
		return r;
	r = gpurt_attach_kept(sc, sc->prog_return, path, p->sym, off, cookie, true);
	if (r)
		unkeep_last(sc);
	return r;
}

/* One program's probes in the file (found: offsets, with their cookies and
 * indexes into idx) as one uprobe-multi link, with the return program's
 * link over the same offsets for the save program: 0 or -errno, and then
 * no link is left. */
static int attach_group(struct gpurt_scan *sc, struct bpf_program *prog, const char *path,
			const uint64_t *off, const uint64_t *cookie, size_t m)
{
	int r = multi_kept(sc, prog, path, off, cookie, m, false);
	if (r || prog != sc->prog_save)
		return r;
	r = multi_kept(sc, sc->prog_return, path, off, cookie, m, true);
	if (r)
		unkeep_last(sc);
	return r;
}

/* With uprobe-multi links: one link a program, where every offset is
 * attached at once or none; when a group fails, its probes go one by one,
 * so that only the one the kernel refuses is missing. */
static void attach_lib_multi(struct gpurt_scan *sc, struct gpurt_lib *lib, const char *path,
			     const size_t *idx, const uint64_t *off, int n, __u8 *kinds)
{
	struct bpf_program *const progs[] = {sc->prog_save, sc->prog_launch, sc->prog_copy,
					     sc->prog_range, sc->prog_free};
	uint64_t *o = calloc((size_t)n, sizeof(*o)), *c = calloc((size_t)n, sizeof(*c));
	int *w = calloc((size_t)n, sizeof(*w));

	for (size_t g = 0; o && c && w && g < sizeof(progs) / sizeof(progs[0]); g++) {
		size_t m = 0;
		for (int k = 0; k < n; k++) {
			const struct gpurt_probe *p = &sc->probes.v[idx[k]];
			if (off[k] && probe_prog(sc, p->role) == progs[g]) {
				o[m] = off[k];
				c[m] = gpurt_probe_cookie(p);
				w[m++] = k;
			}
		}
		bool whole = m && !attach_group(sc, progs[g], path, o, c, m);
		for (size_t j = 0; j < m; j++) {
			const struct gpurt_probe *p = &sc->probes.v[idx[w[j]]];
			if (whole || !attach_probe(sc, p, path, off[w[j]]))
				counted(sc, lib, p, kinds);
			else
				sc->nmissing++;
		}
	}
	for (int k = 0; k < n; k++)
		if (!off[k] || !o || !c || !w)
			sc->nmissing++; /* not defined there, or no memory to try */
	free(o);
	free(c);
	free(w);
}

/* Attaches every probe that wants this file; a missing symbol skips only
 * that probe. */
void gpurt_attach_lib(struct gpurt_scan *sc, struct gpurt_lib *lib, const char *path,
		      const char *base)
{
	/* the kernel's dev_t, as the BPF side reads it from the inode */
	struct gpurt_file f = {
	    .dev = (uint64_t)major(lib->dev) << 20 | minor(lib->dev),
	    .ino = lib->ino,
	};
	__u8 kinds = 0;
	size_t *idx;
	uint64_t *off;
	bool byname = false;
	int n = lib_offsets(sc, path, base, &idx, &off, &byname);
	bool grouped = n > 0 && sc->multi && !byname;

	if (grouped)
		attach_lib_multi(sc, lib, path, idx, off, n, &kinds);
	for (int k = 0; !grouped && k < n; k++) {
		const struct gpurt_probe *p = &sc->probes.v[idx[k]];
		/* by name when the one pass could not read the file (a multi
		 * link cannot, and counts it missing) */
		if ((!off[k] && !byname) || attach_probe(sc, p, path, off[k]))
			sc->nmissing++;
		else
			counted(sc, lib, p, &kinds);
	}
	if (kinds)
		bpf_map_update_elem(sc->fd_stub_libs, &f, &kinds, BPF_ANY);
	if (n >= 0) {
		free(idx);
		free(off);
	}
}
