/* SPDX-License-Identifier: GPL-2.0-only */
/* The fixture of the store's tests: a store fed through an emitter ring
 * that a bus drains, and a test stream of a counter and a gauge. */
#ifndef ASYS_TEST_STORE_FX_H
#define ASYS_TEST_STORE_FX_H

#include <check.h>

#include "bus.h"
#include "collector.h"
#include "ring.h"
#include "store.h"
#include "stream.h"

static const struct field_desc t_fields[] = {
    FIELD_DESC("bytes", "B", FIELD_COUNTER),
    FIELD_DESC("temp", "C", FIELD_GAUGE),
};
static const struct stream_desc t_stream = {"t.s",    1,      ENTITY_KEY,  2,
					    t_fields, "test", .rate_hz = 0};

/* Feed a store directly through an emitter ring drained by a bus. */
struct fixture {
	struct stream_table *t;
	struct store *s;
	struct bus *b;
	struct ring *r;
	struct emitter e;
};

static inline void fx_init(struct fixture *f, uint64_t bucket_ns)
{
	f->t = stream_table_new();
	ck_assert_int_eq(stream_table_add(f->t, &t_stream), 0);
	f->s = store_new(f->t, bucket_ns);
	f->b = bus_new();
	f->r = ring_new(1 << 22);
	f->e = (struct emitter){.ring = f->r};
	ck_assert_int_eq(bus_add_ring(f->b, f->r), 0);
	ck_assert_int_ge(bus_attach(f->b, &store_consumer_ops, f->s), 0);
}

static inline void fx_free(struct fixture *f)
{
	bus_free(f->b);
	ring_free(f->r);
	store_free(f->s);
	stream_table_free(f->t);
}

static inline void put(struct fixture *f, uint64_t ent, uint64_t ts, double bytes, double temp)
{
	double v[2] = {bytes, temp};

	ck_assert_int_eq(emit_sample(&f->e, 0, ent, ts, v, 2), 0);
}

#define MS 1000000ull
#define SEC 1000000000ull

#endif
