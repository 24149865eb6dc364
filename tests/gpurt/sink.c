/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "sink.h"
#include "util.h"

struct sink_ent *sink_get(struct sink *s, uint32_t stream, uint64_t entity)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].stream == stream && s->e[i].entity == entity)
			return &s->e[i];
	return NULL;
}

static struct sink_ent *sink_make(struct sink *s, uint32_t stream, uint64_t entity)
{
	struct sink_ent *e = sink_get(s, stream, entity);
	if (e)
		return e;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->e = realloc(s->e, s->cap * sizeof(*s->e));
		if (!s->e)
			abort();
	}
	e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	e->stream = stream;
	e->entity = entity;
	return e;
}

void sink_drain(struct sink *s, struct ring *r)
{
	const void *p;
	size_t len;
	while ((p = ring_peek(r, &len))) {
		const struct rec *rc = p;
		struct sink_ent *e = sink_make(s, rc->stream, rc->entity);
		s->records++;
		switch (rc->kind) {
		case REC_SAMPLE:
			e->nv = rc->nvals < SINK_VALS ? rc->nvals : SINK_VALS;
			memcpy(e->v, rec_values(rc), e->nv * sizeof(double));
			e->samples++;
			e->ts = rc->ts_ns;
			e->gone = false;
			break;
		case REC_LABEL:
			util_strlcpy(e->label, rec_text(rc), sizeof(e->label));
			break;
		case REC_GONE:
			e->gone = true;
			break;
		case REC_STATUS:
			util_strlcpy(e->status, rec_text(rc), sizeof(e->status));
			e->has_status = true;
			break;
		}
		ring_pop(r, len);
	}
}

struct sink_ent *sink_by_label(struct sink *s, uint32_t stream, const char *label)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].stream == stream && !strcmp(s->e[i].label, label))
			return &s->e[i];
	return NULL;
}

size_t sink_count_pid(struct sink *s, uint32_t stream, unsigned pid)
{
	char pre[32];
	size_t n = 0;
	snprintf(pre, sizeof(pre), "%u\t", pid);
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].stream == stream && !strncmp(s->e[i].label, pre, strlen(pre)))
			n++;
	return n;
}

void sink_free(struct sink *s)
{
	free(s->e);
	memset(s, 0, sizeof(*s));
}
