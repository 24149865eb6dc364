/* SPDX-License-Identifier: GPL-2.0-only */
/* Writes the process table's test scene (proc_scene.h) as a recording, for
 * the tmux tests that replay it: proc_rec FILE [SECONDS [STREAMS]]: 60
 * ticks by default, one a second; STREAMS a mask of the SC_* streams, all
 * by default. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "record.h"
#include "rec_writer.h"
#include "stream.h"
#include "proc_scene.h"

struct out {
	struct rec_writer *w;
	const int *ids;
};

static void put_rec(void *ctx, int slot, uint64_t entity, uint64_t ts, const double *v, int n,
		    const char *label)
{
	struct out *o = ctx;
	_Alignas(8) uint8_t buf[2048];
	struct rec *r = (struct rec *)buf;
	size_t body = label ? (strlen(label) + 8) & ~(size_t)7 : (size_t)n * sizeof(double);

	memset(buf, 0, sizeof(buf));
	r->kind = label ? REC_LABEL : REC_SAMPLE;
	r->nvals = label ? 0 : (uint16_t)n;
	r->stream = (uint32_t)o->ids[slot];
	r->entity = entity;
	r->ts_ns = ts;
	r->len = (uint32_t)(sizeof(*r) + body);
	if (label)
		memcpy(r + 1, label, strlen(label));
	else
		memcpy(r + 1, v, body);
	rec_writer_consumer_ops.consume(o->w, r);
}

int main(int argc, char **argv)
{
	struct stream_table *t = stream_table_new();
	/* small chunks: a frame spans a few ticks, as a live recorder's do, so
	 * the player meets every stream early */
	struct rec_writer_opts o = {.force = true, .command = "proc_rec", .chunk_bytes = 256};
	int ids[SC_N], err = 0, secs = argc > 2 ? atoi(argv[2]) : 60;
	unsigned want = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : (1u << SC_N) - 1;
	struct out out = {.ids = ids};
	char msg[256];

	if (argc < 2 || secs < 1 || !t || sc_register(t, ids, want) < 0) {
		fprintf(stderr, "usage: proc_rec FILE [SECONDS [STREAMS]]\n");
		return 2;
	}
	for (int i = 0; i < SC_N; i++)
		if (ids[i] >= 0)
			stream_table_set_rate(t, (uint32_t)ids[i], 1.0);
	o.path = argv[1];
	out.w = rec_writer_new(t, &o, &err, msg, sizeof(msg));
	if (!out.w) {
		fprintf(stderr, "proc_rec: %s\n", msg);
		return 1;
	}
	for (int k = 1; k <= secs; k++) {
		sc_tick(put_rec, &out, ids, k, 1000000000000ull + (uint64_t)k * 1000000000ull);
		rec_writer_consumer_ops.end(out.w);
	}
	err = rec_writer_close(out.w);
	rec_writer_free(out.w);
	stream_table_free(t);
	if (err)
		fprintf(stderr, "proc_rec: closing %s: %s\n", argv[1], strerror(-err));
	return err ? 1 : 0;
}
