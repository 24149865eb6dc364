#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

struct stream_entry {
	struct stream_desc d; /* strings and fields owned */
	struct field_desc *fields;
};

struct stream_table {
	struct stream_entry *e;
	uint32_t n;
};

struct stream_table *stream_table_new(void)
{
	return calloc(1, sizeof(struct stream_table));
}

static void entry_release(struct stream_entry *e)
{
	for (uint32_t i = 0; i < e->d.nfields; i++) {
		free((char *)e->fields[i].name);
		free((char *)e->fields[i].unit);
	}
	free(e->fields);
	free((char *)e->d.name);
	free((char *)e->d.help);
}

void stream_table_free(struct stream_table *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->n; i++)
		entry_release(&t->e[i]);
	free(t->e);
	free(t);
}

static int desc_equal(const struct stream_desc *a, const struct stream_desc *b)
{
	if (a->version != b->version || a->nfields != b->nfields || a->entity != b->entity)
		return 0;
	for (uint32_t i = 0; i < a->nfields; i++) {
		if (strcmp(a->fields[i].name, b->fields[i].name) ||
		    strcmp(a->fields[i].unit ? a->fields[i].unit : "",
			   b->fields[i].unit ? b->fields[i].unit : "") ||
		    a->fields[i].kind != b->fields[i].kind)
			return 0;
	}
	return 1;
}

int stream_table_add(struct stream_table *t, const struct stream_desc *d)
{
	struct stream_entry *ne, *e;
	int id;

	if (!t || !d || !d->name || !*d->name || strlen(d->name) >= STREAM_NAME_MAX ||
	    d->nfields > STREAM_MAX_FIELDS || (d->nfields && !d->fields))
		return -EINVAL;
	for (uint32_t i = 0; i < d->nfields; i++)
		if (!d->fields[i].name)
			return -EINVAL;
	id = stream_table_find(t, d->name);
	if (id >= 0)
		return desc_equal(&t->e[id].d, d) ? id : -EEXIST;
	if (t->n >= STREAM_MAX)
		return -E2BIG;
	ne = realloc(t->e, (t->n + 1) * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	t->e = ne;
	e = &t->e[t->n];
	memset(e, 0, sizeof(*e));
	e->fields = calloc(d->nfields ? d->nfields : 1, sizeof(*e->fields));
	e->d = *d;
	e->d.name = strdup(d->name);
	e->d.help = d->help ? strdup(d->help) : NULL;
	e->d.fields = e->fields;
	e->d.nfields = 0;
	if (!e->fields || !e->d.name)
		goto nomem;
	for (uint32_t i = 0; i < d->nfields; i++) {
		e->fields[i].name = strdup(d->fields[i].name);
		e->fields[i].unit = strdup(d->fields[i].unit ? d->fields[i].unit : "");
		e->fields[i].kind = d->fields[i].kind;
		e->d.nfields = i + 1;
		if (!e->fields[i].name || !e->fields[i].unit)
			goto nomem;
	}
	return (int)t->n++;
nomem:
	entry_release(e);
	return -ENOMEM;
}

int stream_table_find(const struct stream_table *t, const char *name)
{
	for (uint32_t i = 0; t && name && i < t->n; i++)
		if (!strcmp(t->e[i].d.name, name))
			return (int)i;
	return -ENOENT;
}

const struct stream_desc *stream_table_get(const struct stream_table *t, uint32_t id)
{
	return t && id < t->n ? &t->e[id].d : NULL;
}

uint32_t stream_table_count(const struct stream_table *t)
{
	return t ? t->n : 0;
}

int stream_field_index(const struct stream_desc *d, const char *name)
{
	for (uint32_t i = 0; d && name && i < d->nfields; i++)
		if (!strcmp(d->fields[i].name, name))
			return (int)i;
	return -ENOENT;
}
