/* SPDX-License-Identifier: GPL-2.0-only */
/* The recorder: a bus consumer that writes the .asys format.
 *
 * On the bus thread it only appends records to per-stream chunks and hands
 * closed chunks (250 ms or 1 MiB) to its own writer thread through a bounded
 * queue; when that queue is full the chunk is dropped, counted, and a GAP
 * frame says so. The writer thread encodes, compresses and writes each frame
 * with one write, fdatasyncs on a timer, survives a full disk (truncates back
 * to the last whole frame, pauses, resumes with a GAP) and rotates segments. */
#ifndef ASYS_REC_WRITER_H
#define ASYS_REC_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "stream.h"

struct rec_writer;

struct rec_writer_opts {
	const char *path;
	bool force;	      /* replace an existing file */
	uint64_t max_size;    /* stop recording before all segments pass this; 0 = none */
	uint64_t rotate_size; /* same, for --rotate SIZE */
	double rotate_s;      /* new segment every so many seconds; 0 = never */
	double fsync_s;	      /* fdatasync period; 0 = 1 s */
	const char *command;  /* the command line, for META */
	uint64_t chunk_ns;    /* 0 = 250 ms */
	size_t chunk_bytes;   /* 0 = 1 MiB */
	size_t queue_bytes;   /* 0 = 64 MiB of raw records in flight */
	int zstd_level;	      /* 0 = 1 */
};

struct rec_writer_stats {
	char path[4096];     /* the segment being written */
	uint64_t bytes;	     /* all segments */
	uint64_t file_bytes; /* this segment */
	uint64_t records;    /* written */
	uint64_t dropped;    /* records lost to a full queue or a full disk */
	uint64_t frames;
	uint64_t start_ns; /* CLOCK_MONOTONIC when recording began */
	uint32_t segment;
	bool paused;	    /* the disk is full; retrying */
	bool limit_reached; /* --max-size reached: recording stopped */
	int error;	    /* last write errno, 0 if none */
};

extern const struct bus_consumer_ops rec_writer_consumer_ops; /* ctx = struct rec_writer * */
/* Attach the recorder with bus_attach_within and this latency: a chunk
 * closes 250 ms after its first record at most, which holds only if records
 * reach the writer within one such pump (what a kill -9 may lose). */
#define REC_WRITER_LATENCY_NS 50000000ull

/* Creates the first file (O_EXCL, 0640) and writes header, META and
 * SCHEMA; starts the writer thread. On failure returns NULL with *err =
 * -errno and msg (if not NULL) set to a sentence. */
struct rec_writer *rec_writer_new(const struct stream_table *t, const struct rec_writer_opts *o,
				  int *err, char *msg, size_t msgn);
/* Call after bus_detach: flushes the open chunks, drains the queue, writes
 * the trailer and footer, syncs and closes. Returns 0 or -errno. */
int rec_writer_close(struct rec_writer *w);
void rec_writer_free(struct rec_writer *w); /* closes first if needed */
void rec_writer_get_stats(struct rec_writer *w, struct rec_writer_stats *out);
/* An eventfd that becomes readable when stats.paused or stats.limit_reached
 * changes, so that a waiting thread needs no polling; read it to clear. -1
 * when the kernel gave none: poll rec_writer_get_stats instead. */
int rec_writer_event_fd(struct rec_writer *w);
/* "● REC run.asys 12.3 MiB 00:01:02" or "recording paused: disk full". */
void rec_writer_status_line(struct rec_writer *w, char *buf, size_t n);
/* Segment file name: path itself for 0, else "run.1.asys" / "path.1". */
void rec_segment_path(char *buf, size_t n, const char *path, uint32_t seg);

#endif
