/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs_fixture.h"
#include "ring.h"

const char *fx_fixture(const char *name)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");

	if (!top || !*top)
		top = ASYS_TOP_SRCDIR;
	snprintf(buf, sizeof(buf), "%s/tests/fixtures/proc/%s", top, name);
	return buf;
}

char *fx_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *dir;

	ck_assert(asprintf(&dir, "%s/asys-procfs-XXXXXX", t && *t ? t : "/tmp") > 0);
	ck_assert_msg(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

void fx_rmtree(char *dir)
{
	if (!dir)
		return;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static void mkparents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
}

void fx_write_bytes(const char *root, const char *rel, const void *data, size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkparents(path);
	/* O_TRUNC keeps the inode: a collector's kept fd sees the new content */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

void fx_write(const char *root, const char *rel, const char *fmt, ...)
{
	char *text;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	ck_assert(n >= 0);
	fx_write_bytes(root, rel, text, (size_t)n);
	free(text);
}

void fx_write_proc(const char *root, int pid, const char *name, int ppid, int uid, long rss_kb,
		   long hwm_kb, const char *cmdline, size_t cmdlen)
{
	char rel[128], vm[256] = "";
	long pages = rss_kb > 0 ? rss_kb * 1024 / sysconf(_SC_PAGESIZE) : 0;

	if (rss_kb >= 0)
		snprintf(vm, sizeof(vm), "VmPeak:\t%8ld kB\nVmHWM:\t%8ld kB\nVmRSS:\t%8ld kB\n",
			 hwm_kb * 2, hwm_kb, rss_kb);
	snprintf(rel, sizeof(rel), "proc/%d/status", pid);
	fx_write(root, rel,
		 "Name:\t%s\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\n"
		 "Uid:\t%d\t%d\t%d\t%d\n%sThreads:\t1\n",
		 name, pid, pid, ppid, uid, uid, uid, uid, vm);
	snprintf(rel, sizeof(rel), "proc/%d/statm", pid);
	fx_write(root, rel, "%ld %ld 0 0 0 0 0\n", pages + 10, pages);
	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	fx_write(root, rel, "%d (%s) S %d %d %d 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 1000 %ld 0\n",
		 pid, name, ppid, pid, pid, pages);
	snprintf(rel, sizeof(rel), "proc/%d/task/%d/stat", pid, pid);
	fx_write(root, rel, "%d (%s) S %d\n", pid, name, ppid);
	snprintf(rel, sizeof(rel), "proc/%d/cmdline", pid);
	fx_write_bytes(root, rel, cmdline, cmdlen);
	snprintf(rel, sizeof(rel), "proc/%d/task/%d/children", pid, pid);
	fx_write(root, rel, "%s", "");
}

void fx_kill_proc(const char *root, int pid)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/status", pid);
	fx_write(root, rel, "%s", "");
	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	fx_write(root, rel, "%s", "");
	snprintf(rel, sizeof(rel), "%s/proc/%d", root, pid);
	fx_rmtree(strdup(rel));
}

void fx_drain(struct ring *ring, struct fx_recs *recs)
{
	const struct rec *r;
	size_t len;

	while ((r = ring_peek(ring, &len))) {
		struct fx_rec *o;

		if (recs->n == recs->cap) {
			recs->cap = recs->cap ? recs->cap * 2 : 256;
			recs->r = realloc(recs->r, recs->cap * sizeof(*recs->r));
			ck_assert(recs->r);
		}
		o = &recs->r[recs->n++];
		memset(o, 0, sizeof(*o));
		o->kind = r->kind;
		o->stream = r->stream;
		o->entity = r->entity;
		o->ts_ns = r->ts_ns;
		ck_assert_uint_eq(r->len, len);
		if (r->kind == REC_SAMPLE) {
			ck_assert_uint_le(r->nvals, FX_MAX_VALS);
			o->nvals = r->nvals;
			memcpy(o->v, rec_values(r), r->nvals * sizeof(double));
		} else {
			snprintf(o->text, sizeof(o->text), "%s", rec_text(r));
		}
		ring_pop(ring, len);
	}
}

void fx_recs_clear(struct fx_recs *recs)
{
	recs->n = 0;
}

void fx_recs_free(struct fx_recs *recs)
{
	free(recs->r);
	memset(recs, 0, sizeof(*recs));
}

size_t fx_count(const struct fx_recs *recs, int kind, uint32_t stream)
{
	size_t n = 0;

	for (size_t i = 0; i < recs->n; i++)
		if (recs->r[i].kind == kind && recs->r[i].stream == stream)
			n++;
	return n;
}

const struct fx_rec *fx_find(const struct fx_recs *recs, int kind, uint32_t stream, uint64_t entity)
{
	const struct fx_rec *found = NULL;

	for (size_t i = 0; i < recs->n; i++)
		if (recs->r[i].kind == kind && recs->r[i].stream == stream &&
		    recs->r[i].entity == entity)
			found = &recs->r[i];
	return found;
}

int fx_coll_init(struct fx_coll *fc, const struct collector *c, const struct asys_options *o)
{
	struct coll_ctx ctx;

	memset(fc, 0, sizeof(*fc));
	fc->c = c;
	fc->o = *o;
	fc->t = stream_table_new();
	fc->ring = ring_new(4 << 20);
	ck_assert(fc->t && fc->ring);
	fc->em.ring = fc->ring;
	ctx.opts = &fc->o;
	ctx.streams = fc->t;
	return c->init(&ctx, &fc->state);
}

int fx_coll_sample(struct fx_coll *fc, uint64_t now_ns)
{
	int rc = fc->c->sample(fc->state, &fc->em, now_ns);

	fx_recs_clear(&fc->recs);
	fx_drain(fc->ring, &fc->recs);
	ck_assert_uint_eq(ring_dropped(fc->ring), 0);
	return rc;
}

uint32_t fx_stream(const struct fx_coll *fc, const char *name)
{
	int id = stream_table_find(fc->t, name);

	ck_assert_msg(id >= 0, "stream %s not registered", name);
	return (uint32_t)id;
}

void fx_coll_fini(struct fx_coll *fc)
{
	if (fc->c && fc->c->fini)
		fc->c->fini(fc->state);
	stream_table_free(fc->t);
	ring_free(fc->ring);
	fx_recs_free(&fc->recs);
}
