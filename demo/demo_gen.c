/* SPDX-License-Identifier: GPL-2.0-only */
/* Writes the demo recording:
 *   demo_gen OUT.asys
 * The records go through a ring and the bus to the recorder, as a live
 * recording's do, but with made-up times, as fast as they can be made.
 * Exits 0, or 1 with the reason on stderr (and no file left behind). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "demo.h"
#include "rec_writer.h"

/* A frame per stream per second: live, the recorder closes one each quarter
 * second, but here fewer frames make a smaller file, and seeks and loops
 * stay as quick. */
#define DEMO_CHUNK_TICKS 20

bool demo_has(const struct demo *d, enum demo_stream ds)
{
	return d->sid[ds] != UINT32_MAX;
}

void demo_clear(double *v)
{
	for (int i = 0; i < STREAM_MAX_FIELDS; i++)
		v[i] = NAN;
}

void demo_set(const struct demo *d, enum demo_stream ds, double *v, unsigned int field, double x)
{
	int f;

	if (!demo_has(d, ds))
		return;
	f = catalogue_field_index(stream_table_get(d->streams, d->sid[ds]), demo_stream_id(ds),
				  field);
	if (f >= 0)
		v[f] = x;
}

uint64_t demo_ts(const struct demo *d, uint64_t tick)
{
	return d->t0 + tick * DEMO_TICK_NS;
}

bool demo_every(uint64_t tick, double hz)
{
	uint64_t every = (uint64_t)(1e9 / hz / DEMO_TICK_NS);

	return tick % (every ? every : 1) == 0;
}

void demo_emit(struct demo *d, enum demo_stream ds, uint64_t ent, uint64_t tick, const double *v)
{
	if (demo_has(d, ds))
		emit_sample(&d->em, d->sid[ds], ent, demo_ts(d, tick), v,
			    stream_table_get(d->streams, d->sid[ds])->nfields);
}

void demo_label(struct demo *d, enum demo_stream ds, uint64_t ent, uint64_t tick, const char *text)
{
	if (demo_has(d, ds))
		emit_label(&d->em, d->sid[ds], ent, demo_ts(d, tick), text);
}

/* Every tick of the recording, handed to the recorder a second of
 * recorded time at a time (see DEMO_CHUNK_TICKS). 0, or -ENOBUFS when a record was lost. */
static int demo_run(struct demo *d, struct bus *b)
{
	uint64_t ticks = DEMO_SECONDS * (1000000000ull / DEMO_TICK_NS);

	for (uint64_t tick = 0; tick <= ticks; tick++) {
		demo_ppu_tick(d, tick);
		demo_host_tick(d, tick);
		demo_procs_tick(d, tick);
		if (tick % DEMO_CHUNK_TICKS == DEMO_CHUNK_TICKS - 1 || tick == ticks)
			while (bus_pump(b))
				;
	}
	return bus_dropped(b) ? -ENOBUFS : 0;
}

static int demo_write(struct demo *d, const char *path, char *err, size_t n)
{
	struct rec_writer_opts o = {
	    .path = path,
	    .force = true,
	    .command = "demo_gen (the asys demo recording)",
	    /* close every stream's chunk at each pump */
	    .chunk_ns = 1,
	    .queue_bytes = 1u << 30,
	    .zstd_level = 19,
	};
	struct bus *b = bus_new();
	struct ring *ring = ring_new(16u << 20);
	struct rec_writer *w = NULL;
	struct rec_writer_stats st;
	int rc = -ENOMEM, h;

	d->em.ring = ring;
	if (!b || !ring || bus_add_ring(b, ring))
		goto cleanup;
	w = rec_writer_new(d->streams, &o, &rc, err, n);
	if (!w)
		goto cleanup;
	h = bus_attach(b, &rec_writer_consumer_ops, w);
	rc = h < 0 ? h : demo_run(d, b);
	if (h >= 0)
		bus_detach(b, h);
	if (!rc)
		rc = rec_writer_close(w);
	rec_writer_get_stats(w, &st);
	if (!rc && st.dropped)
		rc = -ENOBUFS;
	if (rc && !*err)
		snprintf(err, n, "%s (%llu records dropped)", strerror(-rc),
			 (unsigned long long)st.dropped);
cleanup:
	rec_writer_free(w);
	bus_free(b);
	ring_free(ring);
	return rc;
}

int main(int argc, char **argv)
{
	struct demo *d = calloc(1, sizeof(*d));
	char err[512] = "";
	int rc = -ENOMEM;

	if (argc != 2) {
		fprintf(stderr, "usage: demo_gen OUT.asys\n");
		return 2;
	}
	if (!d || !(d->streams = stream_table_new()))
		goto cleanup;
	/* a whole second, so that the replayed clock reads round numbers */
	d->t0 = (asys_now_ns() / 1000000000ull + 1) * 1000000000ull;
	rc = demo_schema(d, err, sizeof(err));
	if (!rc)
		rc = demo_write(d, argv[1], err, sizeof(err));
	if (rc)
		unlink(argv[1]);
cleanup:
	if (rc)
		fprintf(stderr, "demo_gen: %s: %s\n", argv[1], *err ? err : strerror(-rc));
	if (d)
		stream_table_free(d->streams);
	free(d);
	return rc ? 1 : 0;
}
