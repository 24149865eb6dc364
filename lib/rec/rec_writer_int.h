/* SPDX-License-Identifier: GPL-2.0-only */
/* Internal to the recorder's file side (rec_writer_file.c, rec_writer_frame.c): the
 * frames and segments that the writing policy builds on. Writer thread only. */
#ifndef ASYS_REC_WRITER_INT_H
#define ASYS_REC_WRITER_INT_H

#include "rec_writer_file.h"

/* Publishes path, size, segment and the paused state to other threads. */
void writer_stats_sync(struct rec_writer *w);
/* Wakes a thread waiting on rec_writer_event_fd; call with slock held. */
void writer_notify(struct rec_writer *w);
/* One whole frame with one pwrite; on failure the file is cut back to the
 * last whole frame and -errno returned. */
int writer_put_frame(struct rec_writer *w, uint8_t type, uint32_t stream, uint64_t t_min,
		     uint64_t t_max, const uint8_t *raw, size_t raw_len, bool compress);
/* The same in two steps, for a caller that needs the frame's length before
 * it decides to write it: the frame in w->fbuf and its length (or -errno),
 * then its write. Any other frame written between them replaces it. */
ssize_t writer_build_frame(struct rec_writer *w, uint8_t type, uint32_t stream, uint64_t t_min,
			   uint64_t t_max, const uint8_t *raw, size_t raw_len, bool compress);
int writer_write_frame(struct rec_writer *w, uint8_t type, size_t flen);
int writer_put_schemas(struct rec_writer *w, uint32_t from, uint32_t to);
int writer_put_gap(struct rec_writer *w, uint64_t t_min, uint64_t t_max, const char *why);
void writer_put_index(struct rec_writer *w);
/* Creates segment w->seg (O_EXCL) with header, META and SCHEMA. */
int writer_open_segment(struct rec_writer *w, char *msg, size_t msgn);
/* An upper bound of the bytes the segment's trailer and footer would take
 * if it closed now, so that --rotate SIZE can keep a whole segment under
 * SIZE. */
uint64_t writer_trailer_bound(const struct rec_writer *w);
/* Trailer and footer (unless paused), sync, close. */
void writer_close_segment(struct rec_writer *w);

#endif
