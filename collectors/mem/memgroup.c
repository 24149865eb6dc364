/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memproc_int.h"
#include "proc_api.h"

/* The label of proc.cpu: what a process runs in (CONTAINER), named from its
 * /proc/PID/cgroup through the procgroup cache. A process rarely moves, so
 * the file is read when the process is new and again every
 * MEM_LABEL_REFRESH reports (staggered by pid), not at every refresh. A
 * kernel thread runs in no container. */

int memgroup_init(struct memproc *st)
{
	st->groups = procgroup_cache_new(MEM_GROUP_CACHE, PROCGROUP_RESOLVE);
	return st->groups ? 0 : -ENOMEM;
}

void memgroup_fini(struct memproc *st)
{
	procgroup_cache_free(st->groups);
	st->groups = NULL;
}

/* The display name of pid's cgroup, or "" when it has none or is gone. */
static const char *memgroup_read(struct memproc *st, const struct mem_proc *p, uint64_t ts)
{
	char rel[48];
	ssize_t len;

	snprintf(rel, sizeof(rel), "%d/cgroup", (int)p->pid);
	len = memproc_read_rel(st, rel, st->buf, sizeof(st->buf));
	if (len <= 0)
		return "";
	return procgroup_cache_get(st->groups, st->buf, (size_t)len, ts)->display;
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

void memgroup_report(struct memproc *st, struct emitter *out, uint64_t ts, struct mem_proc *old,
		     struct mem_proc *nw)
{
	const char *name;

	if (nw->kthread || !st->groups) {
		if (old) {
			free(old->group);
			old->group = NULL;
		}
		return;
	}
	if (old && old->group_read && old->group_age < MEM_LABEL_REFRESH) {
		nw->group = old->group;
		nw->group_read = true;
		nw->group_age = old->group_age + 1;
		old->group = NULL;
		return;
	}
	name = memgroup_read(st, nw, ts);
	nw->group = *name ? strdup(name) : NULL;
	nw->group_read = true;
	nw->group_age = old ? 0 : (uint16_t)(nw->pid % MEM_LABEL_REFRESH);
	/* a process that left its container keeps the old name until one
	 * comes: a label cannot be taken back, only replaced */
	if (nw->group && !same_text(old ? old->group : NULL, nw->group) &&
	    memproc_label(st, out, st->sid.cpu, (uint64_t)nw->pid, ts, nw->group) != 0) {
		free(nw->group); /* the ring was full: read and send it next time */
		nw->group = NULL;
		nw->group_read = false;
	}
	if (old) {
		free(old->group);
		old->group = NULL;
	}
}
