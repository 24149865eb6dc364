/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer target for the .asys reader: the input is written to a file and
 * read the ways the tools read it (walk, decode DATA, seek, time bounds).
 * Build: CC=clang ./configure --enable-fuzzing --enable-sanitizers && make
 * Run:   tests/fuzz/fuzz_reader -max_total_time=60 corpus/ tests/data/ */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "rec_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sink(void *ctx, const struct rec *r)
{
	volatile uint64_t *acc = ctx;

	*acc += r->ts_ns + r->len;
	if (r->kind == REC_SAMPLE && r->nvals)
		*acc += (uint64_t)rec_values(r)[r->nvals - 1];
}

static char path[4096];

static void remove_input(void)
{
	unlink(path);
}

/* The file each input goes through: made once with an unguessable name (a
 * name of our pid alone in /tmp could be a planted link), removed at exit. */
static int input_file(void)
{
	const char *tmp = secure_getenv("TMPDIR");
	int fd;

	if (path[0])
		return open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (snprintf(path, sizeof(path), "%s/fuzz-asys.XXXXXX.asys", tmp && *tmp ? tmp : "/tmp") >=
	    (int)sizeof(path)) {
		fprintf(stderr, "fuzz_reader: TMPDIR is too long\n");
		exit(1);
	}
	fd = mkstemps(path, 5);
	if (fd < 0) {
		perror("fuzz_reader: cannot make the input file (set TMPDIR)");
		exit(1);
	}
	atexit(remove_input);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_reader *r;
	struct rec_item it;
	char msg[256], warn[256];
	volatile uint64_t acc = 0;
	uint64_t t0, t1;
	int fd, n = 0;

	fd = input_file();
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	if (rec_reader_open(path, &r, msg, sizeof(msg), warn, sizeof(warn)))
		return 0;
	while (rec_reader_next(r, &it) == 1 && n++ < 100000) {
		if (it.kind == REC_ITEM_HOLE) {
			rec_hole_describe(r, &it, msg, sizeof(msg));
			continue;
		}
		if (it.h.type == REC_FT_DATA)
			rec_reader_data(r, &it, sink, (void *)&acc);
	}
	if (rec_reader_time_bounds(r, &t0, &t1) == 0) {
		rec_reader_seek_time(r, t0 + (t1 - t0) / 2);
		rec_reader_seek_time(r, t1 + 1);
	}
	rec_reader_no_trailer(r);
	rec_reader_seek_time(r, size);
	rec_reader_free(r);
	return 0;
}
