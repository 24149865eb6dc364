/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "msglog.h"
#include "record.h"

struct msglog {
	struct msglog_entry e[MSGLOG_MAX]; /* a ring: head is the oldest */
	size_t head, n;
	uint64_t dropped;
};

struct msglog *msglog_new(void)
{
	return calloc(1, sizeof(struct msglog));
}

void msglog_free(struct msglog *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->e[(l->head + i) % MSGLOG_MAX].text);
	free(l);
}

static struct msglog_entry *find(struct msglog *l, uint64_t entity, const char *text)
{
	/* newest first: a status that repeats is usually a recent one */
	for (size_t i = l->n; i-- > 0;) {
		struct msglog_entry *e = &l->e[(l->head + i) % MSGLOG_MAX];

		/* streams of one collector often say the same thing (the
		 * library is missing for all three PPU streams): one entry */
		if (e->entity == entity && !strcmp(e->text, text))
			return e;
	}
	return NULL;
}

int msglog_add(struct msglog *l, uint64_t ts_ns, uint32_t stream, uint64_t entity, const char *text)
{
	struct msglog_entry *e;
	char *copy;

	if (!l || !text || !*text)
		return 0;
	e = find(l, entity, text);
	if (e) {
		if (e->seen < UINT32_MAX)
			e->seen++;
		if (ts_ns > e->last_ns)
			e->last_ns = ts_ns;
		return 0;
	}
	copy = strndup(text, REC_TEXT_MAX);
	if (!copy)
		return -ENOMEM;
	if (l->n == MSGLOG_MAX) {
		free(l->e[l->head].text);
		l->head = (l->head + 1) % MSGLOG_MAX;
		l->n--;
		l->dropped++;
	}
	e = &l->e[(l->head + l->n++) % MSGLOG_MAX];
	*e = (struct msglog_entry){.first_ns = ts_ns,
				   .last_ns = ts_ns,
				   .stream = stream,
				   .entity = entity,
				   .seen = 1,
				   .text = copy};
	return 1;
}

size_t msglog_count(const struct msglog *l)
{
	return l ? l->n : 0;
}

const struct msglog_entry *msglog_get(const struct msglog *l, size_t i)
{
	if (!l || i >= l->n)
		return NULL;
	return &l->e[(l->head + i) % MSGLOG_MAX];
}

uint64_t msglog_dropped(const struct msglog *l)
{
	return l ? l->dropped : 0;
}
