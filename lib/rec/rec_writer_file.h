/* SPDX-License-Identifier: GPL-2.0-only */
/* Internal to the recorder (rec_writer.c, rec_writer_file.c): the writer state. */
#ifndef ASYS_REC_WRITER_FILE_H
#define ASYS_REC_WRITER_FILE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "rec_format.h"
#include "rec_writer.h"

struct rec_zstd_api;

#define REC_CKPT_EVERY 16	   /* a checkpoint at least every so many frames */
#define REC_CKPT_BYTES (64u << 10) /* and at least every so many bytes of file */
#define REC_INDEX_CKPTS 64	   /* an INDEX frame every so many checkpoints */
#define REC_STICKY_REPEAT_NS (30ull * 1000000000ull)
/* Kept free under --max-size for the trailer, and 16 bytes a checkpoint. */
#define REC_TRAILER_RESERVE (64u << 10)
#define REC_FLAG_REPEAT 1 /* struct rec flags: a label repeated for seeking */

struct wchunk {
	struct wchunk *next;
	uint32_t stream, nrecs;
	uint64_t t_min, t_max, opened_ns;
	struct buf recs; /* struct rec, back to back */
};

struct wgap {
	uint64_t t_min, t_max, records;
};

struct wckpt {
	uint64_t off, hwm;
};

struct wgap_note {
	uint64_t t_min, t_max;
	char why[96];
};

struct wstream_stat {
	uint64_t records, samples, t_min, t_max;
};

struct rec_writer {
	const struct stream_table *streams;
	struct rec_writer_opts opts;
	char *path, *command;
	uint64_t chunk_ns;
	size_t chunk_bytes, queue_bytes;
	uint64_t start_ns;

	/* bus thread */
	struct wchunk *open[STREAM_MAX];

	/* queue (qlock) */
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct wchunk *qhead, *qtail;
	size_t qbytes;
	struct wgap qgap;
	uint64_t dropped;
	bool stop, closing_queue;
	/* chunks queued since the writer was last signalled: the bus side
	 * signals once at the end of a pump, not once a chunk (a wake of the
	 * writer costs more than most chunks' encoding) */
	bool qpending;

	pthread_t thread;
	bool running, closed;

	/* stats for other threads (slock) */
	pthread_mutex_t slock;
	struct rec_writer_stats stats;
	int event_fd; /* eventfd: paused, resumed or limit_reached changed; -1 if none */

	/* writer thread only */
	int fd;
	uint32_t seg;
	uint64_t off, seq, hwm, seg_start_ns, seg_frames, last_fsync_ns, last_sticky_ns;
	uint64_t ckpt_frame; /* seg_frames at the last checkpoint */
	uint64_t last_attempt_ns;
	int64_t clock_origin_ns;
	uint8_t uuid[16];
	uint32_t nschemas;     /* streams 0..nschemas-1 have a SCHEMA in this segment */
	uint64_t schema_bytes; /* their SCHEMA frames' bytes before compression */
	bool paused;
	struct wgap pause_gap;
	struct wckpt *ckpt;
	size_t nckpt, capckpt, ckpt_indexed;
	struct wgap_note *gaps;
	size_t ngaps, capgaps;
	struct wstream_stat sstat[STREAM_MAX];
	struct rec **sticky;
	size_t nsticky, capsticky;
	const struct rec_zstd_api *zstd; /* NULL until writer_init loads it */
	void *zctx;
	struct buf enc, zbuf, fbuf;
	uint64_t fbuf_hwm; /* the high-water mark of the frame in fbuf */
};

int writer_init(struct rec_writer *w, char *msg, size_t msgn);
void writer_chunk(struct rec_writer *w, struct wchunk *c);
void writer_gap(struct rec_writer *w, uint64_t t_min, uint64_t t_max, const char *why);
void writer_tick(struct rec_writer *w);
int writer_finish(struct rec_writer *w);
void writer_release(struct rec_writer *w);

#endif
