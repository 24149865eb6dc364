/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memproc_int.h"
#include "proc_api.h"
#include "util.h"

/* Process-tree mode of the mem collector: the roots in opts->pids (the
 * workload's pid among them) and all their descendants. */

static bool mem_tree_has(const struct memproc *st, pid_t pid)
{
	for (size_t i = 0; i < st->ntree; i++)
		if (st->tree[i] == pid)
			return true;
	return false;
}

static void mem_tree_add(struct memproc *st, pid_t pid)
{
	if (mem_tree_has(st, pid))
		return;
	if (st->ntree < MEM_TREE_MAX)
		st->tree[st->ntree++] = pid;
	else
		st->tree_dropped++;
}

/* Adds the pids of a children file, read whole in pieces: a process may
 * have thousands of children. -errno when it cannot be read. */
static int mem_tree_read_children(struct memproc *st, const char *rel)
{
	char buf[4096];
	size_t keep = 0;
	int fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, buf + keep, sizeof(buf) - 1 - keep);
		size_t len, cut;
		pid_t kids[sizeof(buf) / 2]; /* "1 2 3 ...": at most this many a piece */
		int n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len = keep + (size_t)r;
		buf[len] = '\0';
		/* a number cut by the end of this piece waits for the next */
		for (cut = len; cut > 0 && buf[cut - 1] >= '0' && buf[cut - 1] <= '9'; cut--)
			;
		if (cut == 0) {
			keep = len;
			if (len == sizeof(buf) - 1) /* one token filling it is no pid */
				break;
			continue;
		}
		buf[cut - 1] = '\0';
		n = procfs_parse_pidlist(buf, kids, ARRAY_SIZE(kids));
		for (int k = 0; k < n && k < (int)ARRAY_SIZE(kids); k++)
			mem_tree_add(st, kids[k]);
		keep = len - cut;
		memmove(buf, buf + cut, keep);
	}
	if (keep && keep < sizeof(buf) - 1) {
		pid_t kid;

		buf[keep] = '\0';
		if (procfs_parse_pidlist(buf, &kid, 1) == 1)
			mem_tree_add(st, kid);
	}
	close(fd);
	return 0;
}

/* Adds the children of every thread of pid; false when the kernel has no
 * children files (a live task without one; then the caller falls back to a
 * ppid scan). */
static bool mem_tree_children(struct memproc *st, pid_t pid)
{
	char rel[64];
	struct dirent *de;
	DIR *d;
	int fd;
	bool unsupported = false;

	snprintf(rel, sizeof(rel), "%d/task", (int)pid);
	fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return true; /* gone: nothing to follow */
	}
	while ((de = readdir(d))) {
		pid_t tid = procfs_pid_from_name(de->d_name);

		if (tid <= 0)
			continue;
		snprintf(rel, sizeof(rel), "%d/task/%d/children", (int)pid, (int)tid);
		if (mem_tree_read_children(st, rel) != -ENOENT)
			continue;
		/* no children file: the thread exited, or the kernel has none */
		snprintf(rel, sizeof(rel), "%d/task/%d/stat", (int)pid, (int)tid);
		if (faccessat(dirfd(st->procdir), rel, F_OK, 0) == 0)
			unsupported = true;
	}
	closedir(d);
	return !unsupported;
}

/* Without children files: every process's parent from /proc/PID/stat, then
 * the descendants of the roots. Runs once per refresh. */
static void mem_tree_ppid_scan(struct memproc *st)
{
	struct dirent *de;
	bool grew = true;

	st->ncand = 0;
	rewinddir(st->procdir);
	while ((de = readdir(st->procdir))) {
		struct procfs_pid_stat ps;
		struct mem_cand *c;
		pid_t pid = procfs_pid_from_name(de->d_name);
		char rel[48];
		ssize_t len;

		if (pid <= 0)
			continue;
		snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
		len = memproc_read_rel(st, rel, st->buf, sizeof(st->buf));
		if (len < 0 || procfs_parse_pid_stat(st->buf, &ps))
			continue;
		c = memproc_cand_next(st);
		if (!c)
			break;
		*c = (struct mem_cand){pid, ps.ppid};
	}
	/* st->tree holds the roots; add children until nothing changes */
	while (grew && st->ntree < MEM_TREE_MAX) {
		size_t before = st->ntree;

		for (size_t i = 0; i < st->ncand; i++)
			if (mem_tree_has(st, st->cand[i].ppid))
				mem_tree_add(st, st->cand[i].pid);
		grew = st->ntree > before;
	}
}

/* The children of pid's main thread: one small read, cheap enough for
 * every tick. */
static void mem_tree_main_children(struct memproc *st, pid_t pid)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/task/%d/children", (int)pid, (int)pid);
	mem_tree_read_children(st, rel);
}

/* The tree is rebuilt from the roots once per refresh, through the children
 * of every thread (or a ppid scan). Between refreshes the members are read
 * at the full rate and only the main threads' new children are looked for:
 * a process with hundreds of threads would otherwise cost hundreds of reads
 * per tick. */
void memproc_scan_tree(struct memproc *st, bool full)
{
	if (full || st->ntree == 0) {
		st->ntree = 0;
		st->tree_dropped = 0;
		for (int i = 0; i < st->opts->npids && i < OPT_MAX_PIDS; i++)
			if (st->opts->pids[i] > 0)
				mem_tree_add(st, st->opts->pids[i]);
		for (size_t i = 0; !st->no_children && i < st->ntree; i++)
			if (!mem_tree_children(st, st->tree[i]))
				st->no_children = true;
		if (st->no_children && full) {
			st->ntree = 0;
			for (int i = 0; i < st->opts->npids && i < OPT_MAX_PIDS; i++)
				if (st->opts->pids[i] > 0)
					mem_tree_add(st, st->opts->pids[i]);
			mem_tree_ppid_scan(st);
		}
	} else if (!st->no_children) {
		for (size_t i = 0; i < st->ntree; i++)
			mem_tree_main_children(st, st->tree[i]);
	}
	for (size_t i = 0; i < st->ntree; i++)
		memproc_add_cur(st, st->tree[i], true);
	/* members that exited leave the tree */
	st->ntree = 0;
	for (size_t i = 0; i < st->ncur; i++)
		mem_tree_add(st, st->cur[i].pid);
}
