/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "memproc_int.h"
#include "proc_api.h"
#include "util.h"

/* proc.thread (--process-threads): per-thread CPU times, state and owning
 * process of every reported process, once per refresh. A process with one
 * thread is that thread, so its row's stat serves (no read); others cost a
 * listing of task/ and a stat read per thread, which is why the stream is
 * optional. Labels (the thread's comm) go out when a thread is first seen
 * or renamed; a thread that ended gets a gone. */

static int mem_cmp_thread(const void *a, const void *b)
{
	pid_t x = ((const struct mem_thread *)a)->tid, y = ((const struct mem_thread *)b)->tid;

	return (x > y) - (x < y);
}

static const struct mem_thread *mem_thread_old(const struct memproc *st, pid_t tid)
{
	struct mem_thread key = {.tid = tid};

	return st->nthr ? bsearch(&key, st->thr, st->nthr, sizeof(key), mem_cmp_thread) : NULL;
}

static struct mem_thread *mem_thread_next(struct memproc *st)
{
	if (st->nthrn == st->thrcap) {
		size_t cap = st->thrcap ? st->thrcap * 2 : 256;
		struct mem_thread *a, *b;

		if (cap > MEM_PROCS_MAX)
			return NULL;
		a = realloc(st->thr, cap * sizeof(*a));
		if (a)
			st->thr = a;
		b = realloc(st->thrn, cap * sizeof(*b));
		if (b)
			st->thrn = b;
		if (!a || !b)
			return NULL;
		st->thrcap = cap;
	}
	return &st->thrn[st->nthrn++];
}

static void mem_thread_emit(struct memproc *st, struct emitter *out, uint64_t ts, pid_t tid,
			    const char *comm, const double *v)
{
	struct mem_thread *t = mem_thread_next(st); /* may move thr: look up after */
	const struct mem_thread *old;

	if (!t)
		return;
	old = mem_thread_old(st, tid);
	t->tid = tid;
	util_strlcpy(t->comm, comm, sizeof(t->comm));
	if ((!old || strcmp(old->comm, t->comm)) &&
	    memproc_label(st, out, st->sid.thread, (uint64_t)tid, ts, t->comm) != 0)
		t->comm[0] = '\0'; /* the ring was full: send it next time */
	memproc_emit(st, out, st->sid.thread, (uint64_t)tid, ts, v, PT_NVALS);
}

/* Every thread of a process with several, from task/TID/stat. */
static void mem_threads_of(struct memproc *st, struct emitter *out, uint64_t ts, pid_t pid)
{
	char rel[64];
	struct dirent *de;
	DIR *d;
	int fd;

	snprintf(rel, sizeof(rel), "%d/task", (int)pid);
	fd = openat(dirfd(st->procdir), rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return; /* gone since its stat was read */
	}
	while ((de = readdir(d))) {
		pid_t tid = procfs_pid_from_name(de->d_name);
		struct procfs_pid_stat ps;
		double v[PT_NVALS];

		if (tid <= 0)
			continue;
		snprintf(rel, sizeof(rel), "%d/task/%d/stat", (int)pid, (int)tid);
		if (memproc_read_rel(st, rel, st->buf, sizeof(st->buf)) <= 0 ||
		    procfs_parse_pid_stat(st->buf, &ps))
			continue;
		v[PT_UTIME] = (double)ps.utime / st->clk_tck;
		v[PT_STIME] = (double)ps.stime / st->clk_tck;
		v[PT_STATE] = (unsigned char)ps.state;
		v[PT_TGID] = pid;
		mem_thread_emit(st, out, ts, tid, ps.comm, v);
	}
	closedir(d);
}

void memproc_threads(struct memproc *st, struct emitter *out, uint64_t ts)
{
	struct mem_thread *tmp;
	size_t i, j;

	st->nthrn = 0;
	for (i = 0; i < st->nprocs; i++) {
		const struct mem_proc *p = &st->procs[i];

		if (p->v[MP_THREADS] == 1) {
			double v[PT_NVALS] = {p->cpu[PC_UTIME], p->cpu[PC_STIME], p->cpu[PC_STATE],
					      p->pid};

			mem_thread_emit(st, out, ts, p->pid, p->name, v);
		} else {
			mem_threads_of(st, out, ts, p->pid);
		}
	}
	qsort(st->thrn, st->nthrn, sizeof(*st->thrn), mem_cmp_thread);
	/* threads of the last report that are not in this one ended */
	for (i = 0, j = 0; i < st->nthr; i++) {
		while (j < st->nthrn && st->thrn[j].tid < st->thr[i].tid)
			j++;
		if (j == st->nthrn || st->thrn[j].tid != st->thr[i].tid)
			memproc_gone(st, out, st->sid.thread, (uint64_t)st->thr[i].tid, ts);
	}
	tmp = st->thr;
	st->thr = st->thrn;
	st->nthr = st->nthrn;
	st->thrn = tmp;
}

void memproc_threads_free(struct memproc *st)
{
	free(st->thr);
	free(st->thrn);
	st->thr = st->thrn = NULL;
	st->nthr = st->nthrn = st->thrcap = 0;
}
