/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers for the procfs tests: fixture paths, temporary sysroots written
 * on the fly, and an emitter whose ring the test drains. */
#ifndef ASYS_TEST_PROCFS_FIXTURE_H
#define ASYS_TEST_PROCFS_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <check.h>

#include "bus.h"
#include "collector.h"
#include "record.h"
#include "stream.h"

#define FX_MAX_VALS 16
#define FX_TEXT 512

struct fx_rec {
	uint8_t kind;
	uint32_t stream;
	uint64_t entity;
	uint64_t ts_ns;
	uint16_t nvals;
	double v[FX_MAX_VALS];
	char text[FX_TEXT];
};

struct fx_recs {
	struct fx_rec *r;
	size_t n, cap;
};

/* The committed fixture tree NAME (tests/fixtures/proc/NAME). */
const char *fx_fixture(const char *name);
/* A fresh empty directory under TMPDIR; removed by fx_rmtree. */
char *fx_tmpdir(void);
void fx_rmtree(char *dir); /* and frees dir */
/* Writes root/rel (creating parents) in place, as /proc changes under a kept fd. */
void fx_write(const char *root, const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void fx_write_bytes(const char *root, const char *rel, const void *data, size_t len);
/* A whole /proc/PID (status, statm, stat, cmdline, task/PID/children). rss_kb
 * < 0: a kernel thread (no VmRSS/VmHWM). */
void fx_write_proc(const char *root, int pid, const char *name, int ppid, int uid, long rss_kb,
		   long hwm_kb, const char *cmdline, size_t cmdlen);

/* The process exits: as on a real /proc, a stat or status fd kept open
 * reads nothing any more, and the directory goes. */
void fx_kill_proc(const char *root, int pid);

/* Moves every record out of the ring into recs (appending). */
void fx_drain(struct ring *ring, struct fx_recs *recs);
void fx_recs_clear(struct fx_recs *recs);
void fx_recs_free(struct fx_recs *recs);
size_t fx_count(const struct fx_recs *recs, int kind, uint32_t stream);
/* The last record of kind for (stream, entity), or NULL. */
const struct fx_rec *fx_find(const struct fx_recs *recs, int kind, uint32_t stream,
			     uint64_t entity);

/* A collector under test: its stream table, state and a drained emitter. */
struct fx_coll {
	const struct collector *c;
	struct asys_options o;
	struct stream_table *t;
	struct ring *ring;
	struct emitter em;
	void *state;
	struct fx_recs recs;
};

/* Options are taken from o (copied); returns init's result. */
int fx_coll_init(struct fx_coll *fc, const struct collector *c, const struct asys_options *o);
/* One tick at now_ns, then drains into fc->recs (cleared first). */
int fx_coll_sample(struct fx_coll *fc, uint64_t now_ns);
uint32_t fx_stream(const struct fx_coll *fc, const char *name);
void fx_coll_fini(struct fx_coll *fc);

Suite *procfs_coll_suite(void);
Suite *procfs_real_suite(void);
Suite *procfs_idle_suite(void);
Suite *procfs_tree_suite(void);
Suite *procfs_many_suite(void);

#endif
