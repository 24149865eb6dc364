/* SPDX-License-Identifier: GPL-2.0-only */
/* Synthetic recordings for the rec tests: a fixed stream table, a
 * deterministic record generator, and helpers to write and read back. */
#ifndef ASYS_REC_TESTLIB_H
#define ASYS_REC_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>

#include "rec_format.h"
#include "rec_reader.h"
#include "rec_writer.h"
#include "stream.h"

struct tl_gen {
	uint64_t rng, ts;
	uint64_t gap_every; /* records between 10 s jumps in time; 0 = none */
	uint64_t n;
};

struct stream_table *tl_table(void);
/* The next record into buf (at least 2 KiB); returns it. */
const struct rec *tl_next(struct tl_gen *g, void *buf);
/* Writes nrecs generated records through a real writer. expect, if not
 * NULL, receives copies of them back to back. Returns 0. */
int tl_write(const char *path, uint64_t nrecs, size_t chunk_bytes, uint64_t gap_every,
	     struct buf *expect);
/* A recording in which "nic.link" (the NIC pane's stream, interface
 * "late0", entity TL_LATE_IFINDEX) first appears after early_s seconds of
 * syn.a samples, then both run for late_s more, at 100 Hz each. Without
 * trailer the file ends where the recorder would have been killed. Returns
 * 0 and, when not NULL, the number of nic.link samples written. */
#define TL_LATE_IFINDEX 7
int tl_write_late(const char *path, double early_s, double late_s, bool trailer,
		  uint64_t *late_samples);
/* All DATA records of a file, back to back, in file order. */
int tl_read_all(const char *path, struct buf *out, uint64_t *holes);
/* Frames of a whole file: offsets, ends and a CRC of each payload. */
struct tl_frame {
	uint64_t off, end, t_max;
	uint32_t crc;
	uint8_t type;
};
size_t tl_frames(const char *path, struct tl_frame *out, size_t max);
/* The i-th of n + 400 seek targets over frames fr[0..n) (n >= 1): each
 * frame's last time and its neighbours, then 0, 1, past the end and
 * UINT64_MAX, then pseudo-random times within the file (*rng: the state). */
uint64_t tl_seek_target(const struct tl_frame *fr, size_t n, size_t i, uint64_t *rng);
char *tl_tmpdir(void); /* a fresh directory, removed by nothing (under /tmp) */

#endif
