/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#ifndef HAVE_BPF
#error "gpurt_scan.c needs libbpf"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>

#include "gpurt.h"
#include "gpurt_unlink.h"
#include "gpurt_ldso.h"
#include "env.h"
#include "gpurt_scan.h"
#include "sysroot.h"
#include "util.h"

int gpurt_scan_init(struct gpurt_scan *sc, const struct asys_options *o,
		    const struct gpurt_opts *go, char *err, size_t n)
{
	memset(sc, 0, sizeof(*sc));
	sc->fd_targets = sc->fd_mem = sc->fd_ptrs = sc->fd_launches = sc->fd_names = -1;
	sc->fd_stub_libs = sc->fd_stub_where = sc->fd_loaders_known = -1;
	sc->fd_copies = sc->fd_ranges = sc->fd_range_names = sc->fd_range_ids = -1;
	sc->rescan_ns = GPURT_RESCAN_KNOWN_NS;
	double ms;
	/* for tests: a shorter period, never a longer one */
	if (!util_parse_double(env_get("ASYS_GPURT_RESCAN_MS"), &ms) && ms >= 100 &&
	    ms * 1e6 < (double)GPURT_RESCAN_KNOWN_NS)
		sc->rescan_ns = (uint64_t)(ms * 1e6);
	sc->track_mem = go->memory;
	sc->track_launch = go->trace != 0;
	sc->tree = options_scope(o) == SCOPE_PROCESS_TREE;
	for (int i = 0; i < o->npids && i < OPT_MAX_PIDS; i++)
		sc->roots[sc->nroots++] = o->pids[i];
	int r = gpurt_probes_builtin(&sc->probes);
	if (r) {
		snprintf(err, n, "runtime probes: out of memory");
		return r;
	}
	if (go->probe_file)
		r = gpurt_probes_load_file(&sc->probes, go->probe_file, err, n);
	return r;
}

void gpurt_scan_fini(struct gpurt_scan *sc)
{
	gpurt_unlink_all(sc->links, sc->nlinks, sc->mlinks, sc->nmlinks);
	free(sc->links);
	free(sc->mlinks);
	for (size_t i = 0; i < sc->npaths; i++)
		free(sc->paths[i].path);
	free(sc->paths);
	free(sc->libs);
	free(sc->loaders);
	free(sc->seen);
	gpurt_probes_clear(&sc->probes);
	memset(sc, 0, sizeof(*sc));
}

bool gpurt_scan_privileged(void)
{
	if (geteuid() == 0)
		return true;
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d))
		return false;
	uint64_t eff = (uint64_t)d[1].effective << 32 | d[0].effective;
	if (eff & (1ull << 21)) /* CAP_SYS_ADMIN covers both */
		return true;
	return (eff & (1ull << 39)) && (eff & (1ull << 38)); /* CAP_BPF, CAP_PERFMON */
}

static void target_add(struct gpurt_scan *sc, uint32_t pid)
{
	__u8 one = 1;
	bpf_map_update_elem(sc->fd_targets, &pid, &one, BPF_ANY);
}

static bool target_has(struct gpurt_scan *sc, uint32_t pid)
{
	__u8 v;
	return !bpf_map_lookup_elem(sc->fd_targets, &pid, &v);
}

/* pid and ppid of every process, from /proc/PID/stat */
static size_t list_procs(uint32_t **pids, uint32_t **ppids)
{
	char root[4096];
	size_t n = 0, cap = 0;
	*pids = *ppids = NULL;
	if (sysroot_path(root, sizeof(root), "/proc"))
		return 0;
	DIR *d = opendir(root);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t pid;
		if (util_parse_u64(de->d_name, &pid) || pid > UINT32_MAX)
			continue;
		char rel[64], buf[1024];
		snprintf(rel, sizeof(rel), "/proc/%u/stat", (unsigned)pid);
		if (sysroot_read_file(rel, buf, sizeof(buf)) <= 0)
			continue;
		char *p = strrchr(buf, ')');
		unsigned ppid;
		if (!p || sscanf(p + 1, " %*c %u", &ppid) != 1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			uint32_t *a = realloc(*pids, cap * sizeof(*a));
			if (a)
				*pids = a;
			uint32_t *b = a ? realloc(*ppids, cap * sizeof(*b)) : NULL;
			if (!b)
				break;
			*ppids = b;
		}
		(*pids)[n] = (uint32_t)pid;
		(*ppids)[n++] = ppid;
	}
	closedir(d);
	return n;
}

int gpurt_scan_follow_roots(struct gpurt_scan *sc, char *err, size_t n)
{
	if (!sc->tree)
		return 0;
	for (int i = 0; i < sc->nroots; i++)
		target_add(sc, (uint32_t)sc->roots[i]);
	uint32_t *pids, *ppids;
	size_t np = list_procs(&pids, &ppids);
	for (bool more = true; more;) { /* until no new descendant */
		more = false;
		for (size_t i = 0; i < np; i++)
			if (!target_has(sc, pids[i]) && target_has(sc, ppids[i])) {
				target_add(sc, pids[i]);
				more = true;
			}
	}
	free(pids);
	free(ppids);
	return 0;
}

/* A new entry for the file st in a list of files; NULL when it is there
 * already (or no memory). */
static struct gpurt_lib *file_add(struct gpurt_lib **v, size_t *n, size_t *cap,
				  const struct stat *st)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].dev == st->st_dev && (*v)[i].ino == st->st_ino)
			return NULL;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct gpurt_lib *nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		*v = nv;
		*cap = nc;
	}
	struct gpurt_lib *f = &(*v)[(*n)++];
	*f = (struct gpurt_lib){.dev = st->st_dev, .ino = st->st_ino};
	return f;
}

/* The library at path (stat'ed as st): attached unless seen before. */
static void consider(struct gpurt_scan *sc, const char *path, const char *base,
		     const struct stat *st)
{
	struct gpurt_lib *lib = file_add(&sc->libs, &sc->nlibs, &sc->caplibs, st);
	if (lib)
		gpurt_attach_lib(sc, lib, path, base);
}

/* The dynamic loader at path: its debugger hook tells the discovery thread
 * when a followed process loads a runtime library. The hook reads the
 * loader's r_debug at the offset the cookie gives; without one (a loader
 * whose file does not name it) every call of the hook reaches this side.
 * The exec tracepoint stops asking about the file once it is here. */
static void consider_loader(struct gpurt_scan *sc, const char *path, const struct stat *st)
{
	struct gpurt_lib *ld;

	if (!sc->prog_loader || !(ld = file_add(&sc->loaders, &sc->nloaders, &sc->caploaders, st)))
		return;
	int64_t delta;
	if (gpurt_ldso_rdebug_delta(path, &delta))
		delta = 0;
	/* without it the loader reports nothing, and the scan keeps reading
	 * its processes */
	ld->probes = gpurt_attach_kept(sc, sc->prog_loader, path, "_dl_debug_state", 0,
				       (__u64)delta, false) == 0;
	struct gpurt_file f = {
	    .dev = (uint64_t)major(st->st_dev) << 20 | minor(st->st_dev),
	    .ino = st->st_ino,
	};
	__u8 one = 1;
	bpf_map_update_elem(sc->fd_loaders_known, &f, &one, BPF_ANY);
}

/* glibc's and musl's dynamic loaders */
static bool is_loader(const char *base)
{
	return gpurt_lib_match("ld-linux*.so*", base) || gpurt_lib_match("ld-musl-*.so*", base);
}

void gpurt_scan_file(struct gpurt_scan *sc, const char *path)
{
	const char *base = strrchr(path, '/');
	struct stat st;

	base = base ? base + 1 : path;
	if (!gpurt_probes_lib_wanted(&sc->probes, base) || stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	consider(sc, path, base, &st);
}

/* Notes the path of an executable file mapping of a maps line. */
static void learn_path(struct gpurt_scan *sc, const char *line, const char *path)
{
	unsigned maj, min;
	unsigned long long ino;
	char perms[8];

	if (sscanf(line, "%*x-%*x %7s %*x %x:%x %llu", perms, &maj, &min, &ino) != 4 ||
	    strlen(perms) < 3 || perms[2] != 'x' || !ino)
		return;
	uint64_t dev = (uint64_t)maj << 20 | min;
	for (size_t i = 0; i < sc->npaths; i++)
		if (sc->paths[i].dev == dev && sc->paths[i].ino == ino)
			return;
	if (!sc->paths && !(sc->paths = calloc(GPURT_PATHS_MAX, sizeof(*sc->paths))))
		return;
	char *copy = util_strdup(path);
	if (!copy)
		return;
	struct gpurt_path *e;
	if (sc->npaths < GPURT_PATHS_MAX) {
		e = &sc->paths[sc->npaths++];
	} else { /* full: replace round-robin */
		e = &sc->paths[sc->next_path];
		sc->next_path = (sc->next_path + 1) % GPURT_PATHS_MAX;
		free(e->path);
	}
	*e = (struct gpurt_path){.dev = dev, .ino = ino, .path = copy};
}

int gpurt_scan_path(const struct gpurt_scan *sc, uint64_t dev, uint64_t ino, char *buf, size_t n)
{
	for (size_t i = 0; i < sc->npaths; i++)
		if (sc->paths[i].dev == dev && sc->paths[i].ino == ino) {
			util_strlcpy(buf, sc->paths[i].path, n);
			return 0;
		}
	return -ENOENT;
}

/* The device and inode a maps line names (st_dev's encoding); false when
 * the line has none. */
static bool line_file(const char *line, dev_t *dev, ino_t *ino)
{
	unsigned maj, min;
	unsigned long long i;

	if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu", &maj, &min, &i) != 3)
		return false;
	*dev = makedev(maj, min);
	*ino = (ino_t)i;
	return true;
}

static const struct gpurt_lib *file_find(const struct gpurt_lib *v, size_t n, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dev == dev && v[i].ino == ino)
			return &v[i];
	return NULL;
}

/* A file of a maps read to attach to once the read is over: attaching
 * takes milliseconds a probe, and a short job read in the meantime could
 * end before the read reached its other libraries. */
struct scan_cand {
	char *path;
	struct stat st;
	dev_t dev;
	ino_t ino;
	bool loader, has_file;
};

#define SCAN_CANDS_MAX 32 /* files new to us in one read; the rest wait for the next */

static bool cand_has(const struct scan_cand *c, size_t n, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].has_file && c[i].dev == dev && c[i].ino == ino)
			return true;
	return false;
}

/* One line of maps: a runtime library or a dynamic loader not attached yet
 * becomes a candidate, once; a loader with the hook sets *hooked. Returns
 * whether the line names a runtime library. */
static bool scan_line(struct gpurt_scan *sc, const char *line, const char *path,
		      struct scan_cand *c, size_t *n, bool *hooked)
{
	const char *base = strrchr(path, '/') + 1;
	bool loader = is_loader(base);
	dev_t dev = 0;
	ino_t ino = 0;

	if (!loader && !gpurt_probes_lib_wanted(&sc->probes, base))
		return false;
	/* most lines name files attached already: no stat for those */
	bool has = line_file(line, &dev, &ino);
	const struct gpurt_lib *known = !has	 ? NULL
					: loader ? file_find(sc->loaders, sc->nloaders, dev, ino)
						 : file_find(sc->libs, sc->nlibs, dev, ino);
	if (known) {
		*hooked |= loader && known->probes;
		return !loader;
	}
	if ((has && cand_has(c, *n, dev, ino)) || *n == SCAN_CANDS_MAX)
		return !loader;
	c[*n] = (struct scan_cand){.dev = dev, .ino = ino, .loader = loader, .has_file = has};
	if ((c[*n].path = util_strdup(path)))
		(*n)++;
	return !loader;
}

/* The path is the process's view: go through its root when ours names
 * another file (containers). false when the file is gone. */
static bool cand_resolve(struct scan_cand *c, uint32_t pid)
{
	char alt[4400];
	struct stat ours;

	snprintf(alt, sizeof(alt), "/proc/%u/root%s", pid, c->path);
	if (stat(alt, &c->st))
		return false;
	if (stat(c->path, &ours) || ours.st_dev != c->st.st_dev || ours.st_ino != c->st.st_ino) {
		char *a = util_strdup(alt);
		if (!a)
			return false;
		free(c->path);
		c->path = a;
	}
	return true;
}

/* One read of the maps; see gpurt_scan_pid. */
static bool scan_maps(struct gpurt_scan *sc, uint32_t pid, bool learn)
{
	char rel[64], line[4352];
	struct scan_cand cand[SCAN_CANDS_MAX];
	size_t ncand = 0;
	bool runtime = false, hooked = false, files = false;

	snprintf(rel, sizeof(rel), "/proc/%u/maps", pid);
	int fd = sysroot_open(rel, O_RDONLY | O_CLOEXEC);
	/* gone, or not ours to read (a VM's init): reading soon tells no more */
	if (fd < 0)
		return fd == -ENOENT || fd == -ESRCH || fd == -EACCES || fd == -EPERM;
	FILE *fp = fdopen(fd, "r");
	if (!fp) {
		close(fd);
		return false;
	}
	sc->nreads++;
	while (fgets(line, sizeof(line), fp)) {
		char *path = strchr(line, '/');
		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		files = true;
		runtime |= scan_line(sc, line, path, cand, &ncand, &hooked);
	}
	/* a process of the runtime: note its executable files, to name its
	 * stubs should it end before its counts are read */
	if (learn && runtime && !fseek(fp, 0, SEEK_SET)) {
		while (fgets(line, sizeof(line), fp)) {
			char *path = strchr(line, '/');
			if (!path)
				continue;
			path[strcspn(path, "\n")] = '\0';
			learn_path(sc, line, path);
		}
	}
	fclose(fp);
	/* every file found before the first attach, while the process lives */
	for (size_t i = 0; i < ncand; i++)
		if (!cand_resolve(&cand[i], pid)) {
			free(cand[i].path);
			cand[i].path = NULL;
		}
	/* from the top of the address space down: the loader maps later
	 * objects lower, so the runtime a program loaded first is attached
	 * first */
	for (size_t i = ncand; i-- > 0;) {
		if (cand[i].path && cand[i].loader)
			consider_loader(sc, cand[i].path, &cand[i].st);
		else if (cand[i].path)
			consider(sc, cand[i].path, strrchr(cand[i].path, '/') + 1, &cand[i].st);
		free(cand[i].path);
	}
	/* a loader new to this read is hooked now, and the caller reads the
	 * maps again; a full list left files for a later read */
	return (hooked || !files) && ncand < SCAN_CANDS_MAX;
}

bool gpurt_scan_pid(struct gpurt_scan *sc, uint32_t pid, bool learn)
{
	size_t nloaders = sc->nloaders;
	bool covered = scan_maps(sc, pid, learn);

	/* a loader hooked just now missed the objects it finished before the
	 * hook was in: those are mapped by now, and the hook sees the rest */
	if (sc->nloaders != nloaders)
		covered = scan_maps(sc, pid, learn);
	return covered;
}

static int seen_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct gpurt_seen *)a)->pid, y = ((const struct gpurt_seen *)b)->pid;
	return x < y ? -1 : x > y;
}

void gpurt_scan_libraries(struct gpurt_scan *sc, uint64_t now_ns)
{
	if (sc->tree) {
		__u32 key, next;
		bool first = true;
		while (!bpf_map_get_next_key(sc->fd_targets, first ? NULL : &key, &next)) {
			first = false;
			key = next;
			gpurt_scan_pid(sc, key, true);
		}
		return;
	}
	/* system-wide: reading every maps file is the costliest thing asys
	 * does at its defaults, so known processes are read only now and then */
	char root[4096];
	if (sysroot_path(root, sizeof(root), "/proc"))
		return;
	DIR *d = opendir(root);
	if (!d)
		return;
	uint64_t lost = sc->loader_lost ? *sc->loader_lost : 0;
	bool all = sc->missed || lost != sc->lost_seen;
	sc->missed = false;
	sc->lost_seen = lost;
	struct gpurt_seen *cur = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t pid;
		if (util_parse_u64(de->d_name, &pid) || pid > UINT32_MAX)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct gpurt_seen *v = realloc(cur, nc * sizeof(*v));
			if (!v)
				break;
			cur = v;
			cap = nc;
		}
		struct gpurt_seen key = {.pid = (uint32_t)pid};
		const struct gpurt_seen *old =
		    sc->nseen ? bsearch(&key, sc->seen, sc->nseen, sizeof(key), seen_cmp) : NULL;
		/* the first scan reads every process; later ones leave a new
		 * process to the loader hook until it is rescan_ns old, so
		 * short-lived ones are never read */
		if (old) {
			key.next_ns = old->next_ns;
			key.nread = old->nread;
		} else {
			key.next_ns = sc->npasses ? now_ns + sc->rescan_ns : 0;
		}
		if (all || key.next_ns <= now_ns) {
			bool covered = gpurt_scan_pid(sc, key.pid, false);
			key.next_ns =
			    now_ns + sc->rescan_ns * (covered ? GPURT_RESCAN_COVERED_FACTOR : 1);
			sc->nreads_again += key.nread > 0;
			key.nread += key.nread < UINT32_MAX;
		}
		cur[n++] = key;
	}
	closedir(d);
	if (n)
		qsort(cur, n, sizeof(*cur), seen_cmp);
	free(sc->seen);
	sc->seen = cur;
	sc->nseen = n;
	if (!sc->npasses++)
		sc->nreads_first = sc->nreads;
}
