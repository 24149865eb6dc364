/* gpurt: attaching the probe table to a library file (one pass over its
 * symbols, then a uprobe per probe at its offset) and keeping the links. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpurt.h"
#include "gpurt_elfsym.h"
#include "gpurt_scan.h"

int gpurt_link_keep(struct gpurt_scan *sc, struct bpf_link *l)
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

/* At the offset resolved for the whole library when there is one; by name
 * (libbpf walks the file again) when the one pass could not read it. */
struct bpf_link *gpurt_attach_one(struct bpf_program *prog, const char *path, const char *sym,
				  uint64_t off, uint64_t cookie, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = off ? NULL : sym, .retprobe = ret,
		    .bpf_cookie = cookie);
	return bpf_program__attach_uprobe_opts(prog, -1, path, (size_t)off, &o);
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

	for (int k = 0; k < n; k++) {
		const struct gpurt_probe *p = &sc->probes.v[idx[k]];
		if (!off[k] && !byname) {
			sc->nmissing++; /* the library does not define it */
			continue;
		}
		__u64 cookie = gpurt_probe_cookie(p);
		struct bpf_program *prog = probe_prog(sc, p->role);
		struct bpf_link *in = gpurt_attach_one(prog, path, p->sym, off[k], cookie, false),
				*out = NULL;
		if (!in) {
			sc->nmissing++;
			continue;
		}
		if (gpurt_role_has_return(p->role)) {
			out = gpurt_attach_one(sc->prog_return, path, p->sym, off[k], cookie, true);
			if (!out) {
				bpf_link__destroy(in);
				sc->nmissing++;
				continue;
			}
		}
		if (gpurt_link_keep(sc, in) || (out && gpurt_link_keep(sc, out))) {
			bpf_link__destroy(out);
			if (sc->nlinks && sc->links[sc->nlinks - 1] == in)
				sc->nlinks--;
			bpf_link__destroy(in);
			continue;
		}
		lib->probes++;
		sc->nattached++;
		if (p->role == GPURT_LAUNCH_STUB)
			kinds |= GPURT_LIB_STUBS;
		if (gpurt_role_is_copy(p->role))
			kinds |= GPURT_LIB_COPIES;
	}
	if (kinds)
		bpf_map_update_elem(sc->fd_stub_libs, &f, &kinds, BPF_ANY);
	if (n >= 0) {
		free(idx);
		free(off);
	}
}
