/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

struct stream_entry {
	struct stream_desc d; /* strings and fields owned */
	struct field_desc *fields;
};

/* Readers on other threads may run while a stream is added (replay meets a
 * stream that first appears mid-recording): an entry is built whole, then
 * published by a release store of the count, and never moves or changes
 * (but for its nominal rate, which the engine sets before anyone reads).
 * Adders are serialised by the lock; readers take none. */
struct stream_table {
	struct stream_entry *e[STREAM_MAX];
	_Atomic uint32_t n;
	pthread_mutex_t add_lock;
};

struct stream_table *stream_table_new(void)
{
	struct stream_table *t = calloc(1, sizeof(struct stream_table));

	if (t)
		pthread_mutex_init(&t->add_lock, NULL);
	return t;
}

static uint32_t table_n(const struct stream_table *t)
{
	return atomic_load_explicit(&((struct stream_table *)t)->n, memory_order_acquire);
}

static void entry_release(struct stream_entry *e)
{
	for (uint32_t i = 0; i < e->d.nfields; i++) {
		free((char *)e->fields[i].name);
		free((char *)e->fields[i].unit);
		free((char *)e->fields[i].group);
		free((char *)e->fields[i].label);
		free((char *)e->fields[i].display);
	}
	free(e->fields);
	free((char *)e->d.name);
	free((char *)e->d.help);
}

void stream_table_free(struct stream_table *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < table_n(t); i++) {
		entry_release(t->e[i]);
		free(t->e[i]);
	}
	pthread_mutex_destroy(&t->add_lock);
	free(t);
}

static int str_equal(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static int field_equal(const struct field_desc *a, const struct field_desc *b)
{
	return !strcmp(a->name, b->name) && str_equal(a->unit, b->unit) && a->kind == b->kind &&
	       str_equal(a->group, b->group) && str_equal(a->label, b->label) &&
	       str_equal(a->display, b->display) && a->show == b->show;
}

static int desc_equal(const struct stream_desc *a, const struct stream_desc *b)
{
	if (a->version != b->version || a->nfields != b->nfields || a->entity != b->entity)
		return 0;
	for (uint32_t i = 0; i < a->nfields; i++)
		if (!field_equal(&a->fields[i], &b->fields[i]))
			return 0;
	return 1;
}

/* NULL stays NULL: a field without a label is told from one with "". */
static int dup_opt(const char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -ENOMEM : 0;
}

static int field_copy(struct field_desc *dst, const struct field_desc *src)
{
	dst->name = strdup(src->name);
	dst->unit = strdup(src->unit ? src->unit : "");
	dst->kind = src->kind;
	dst->show = src->show;
	if (!dst->name || !dst->unit || dup_opt(&dst->group, src->group) ||
	    dup_opt(&dst->label, src->label) || dup_opt(&dst->display, src->display))
		return -ENOMEM;
	return 0;
}

static int table_add_locked(struct stream_table *t, const struct stream_desc *d)
{
	struct stream_entry *e;
	uint32_t n = table_n(t);
	int id;

	id = stream_table_find(t, d->name);
	if (id >= 0)
		return desc_equal(&t->e[id]->d, d) ? id : -EEXIST;
	if (n >= STREAM_MAX)
		return -E2BIG;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fields = calloc(d->nfields ? d->nfields : 1, sizeof(*e->fields));
	e->d = *d;
	e->d.name = strdup(d->name);
	e->d.help = d->help ? strdup(d->help) : NULL;
	e->d.fields = e->fields;
	e->d.nfields = 0;
	if (!e->fields || !e->d.name)
		goto nomem;
	for (uint32_t i = 0; i < d->nfields; i++) {
		e->d.nfields = i + 1;
		if (field_copy(&e->fields[i], &d->fields[i]))
			goto nomem;
	}
	t->e[n] = e;
	atomic_store_explicit(&t->n, n + 1, memory_order_release);
	return (int)n;
nomem:
	entry_release(e);
	free(e);
	return -ENOMEM;
}

int stream_table_add(struct stream_table *t, const struct stream_desc *d)
{
	int rc;

	if (!t || !d || !d->name || !*d->name || d->nfields > STREAM_MAX_FIELDS ||
	    (d->nfields && !d->fields))
		return -EINVAL;
	for (uint32_t i = 0; i < d->nfields; i++)
		if (!d->fields[i].name)
			return -EINVAL;
	/* a name is kept whole or refused: a cut one names another field */
	if (strlen(d->name) >= STREAM_NAME_MAX)
		return -ENAMETOOLONG;
	for (uint32_t i = 0; i < d->nfields; i++)
		if (strlen(d->fields[i].name) >= STREAM_NAME_MAX)
			return -ENAMETOOLONG;
	pthread_mutex_lock(&t->add_lock);
	rc = table_add_locked(t, d);
	pthread_mutex_unlock(&t->add_lock);
	return rc;
}

int stream_table_find(const struct stream_table *t, const char *name)
{
	uint32_t n = t ? table_n(t) : 0;

	for (uint32_t i = 0; name && i < n; i++)
		if (!strcmp(t->e[i]->d.name, name))
			return (int)i;
	return -ENOENT;
}

const struct stream_desc *stream_table_get(const struct stream_table *t, uint32_t id)
{
	return t && id < table_n(t) ? &t->e[id]->d : NULL;
}

int stream_table_set_rate(struct stream_table *t, uint32_t id, double hz)
{
	if (!t || id >= table_n(t))
		return -ENOENT;
	t->e[id]->d.rate_hz = hz > 0 && isfinite(hz) ? hz : 0;
	return 0;
}

uint32_t stream_table_count(const struct stream_table *t)
{
	return t ? table_n(t) : 0;
}

int stream_field_index(const struct stream_desc *d, const char *name)
{
	for (uint32_t i = 0; d && name && i < d->nfields; i++)
		if (!strcmp(d->fields[i].name, name))
			return (int)i;
	return -ENOENT;
}

const char *field_label(const struct field_desc *f)
{
	return f->label && *f->label ? f->label : f->name;
}

const char *field_group(const struct field_desc *f)
{
	return f->group ? f->group : "";
}

enum field_show field_show_for_unit(const char *unit)
{
	static const struct {
		const char *unit;
		enum field_show show;
	} units[] = {
	    {"%", FIELD_SHOW_PERCENT},	   {"byte", FIELD_SHOW_BYTES},
	    {"B", FIELD_SHOW_BYTES},	   {"byte/second", FIELD_SHOW_BYTE_RATE},
	    {"B/s", FIELD_SHOW_BYTE_RATE}, {"cycle/second", FIELD_SHOW_HZ},
	    {"Hz", FIELD_SHOW_HZ},
	};

	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit))
			return units[i].show;
	return FIELD_SHOW_COUNT;
}

enum field_show field_show_of(const struct field_desc *f)
{
	return f->show != FIELD_SHOW_AUTO && f->show <= FIELD_SHOW_MAX
		   ? f->show
		   : field_show_for_unit(f->unit);
}

static const char *const show_names[FIELD_SHOW_MAX + 1] = {
    [FIELD_SHOW_COUNT] = "count", [FIELD_SHOW_PERCENT] = "percent",
    [FIELD_SHOW_BYTES] = "bytes", [FIELD_SHOW_BYTE_RATE] = "byte_rate",
    [FIELD_SHOW_HZ] = "hz",
};

const char *field_show_name(enum field_show s)
{
	return s <= FIELD_SHOW_MAX ? show_names[s] : NULL;
}

enum field_show field_show_parse(const char *s, size_t n)
{
	for (int i = 1; s && i <= FIELD_SHOW_MAX; i++)
		if (strlen(show_names[i]) == n && !memcmp(s, show_names[i], n))
			return (enum field_show)i;
	return FIELD_SHOW_AUTO;
}
