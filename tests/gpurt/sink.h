/* SPDX-License-Identifier: GPL-2.0-only */
/* Test helper: drains a producer ring and keeps, per (stream, entity), the
 * last sample, the label, whether it is gone and the last status. */
#ifndef ASYS_TEST_SINK_H
#define ASYS_TEST_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "ring.h"

#define SINK_VALS 16

struct sink_ent {
	uint32_t stream;
	uint64_t entity;
	double v[SINK_VALS];
	uint32_t nv;
	uint64_t samples, ts;
	char label[256];
	char status[256];
	bool gone, has_status;
};

struct sink {
	struct sink_ent *e;
	size_t n, cap;
	uint64_t records;
};

void sink_drain(struct sink *s, struct ring *r);
struct sink_ent *sink_get(struct sink *s, uint32_t stream, uint64_t entity);
/* The entity of stream whose label is exactly label, or NULL. */
struct sink_ent *sink_by_label(struct sink *s, uint32_t stream, const char *label);
/* How many entities of stream carry a label starting with "PID\t". */
size_t sink_count_pid(struct sink *s, uint32_t stream, unsigned pid);
void sink_free(struct sink *s);

#endif
