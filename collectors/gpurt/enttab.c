#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "enttab.h"

void enttab_init(struct enttab *t, size_t esz, size_t first_cap)
{
	*t = (struct enttab){.esz = esz, .first_cap = first_cap ? first_cap : 64};
}

void enttab_fini(struct enttab *t)
{
	if (!t)
		return;
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

static struct enttab_key *key_at(const struct enttab *t, size_t i)
{
	return (struct enttab_key *)(void *)(t->v + i * t->esz);
}

/* The slot of entity: its record, or the free slot where it would go. */
static struct enttab_key *slot_of(const struct enttab *t, uint64_t entity)
{
	size_t mask = t->cap - 1;

	for (size_t i = entity & mask;; i = (i + 1) & mask) {
		struct enttab_key *k = key_at(t, i);

		if (!k->used || k->entity == entity)
			return k;
	}
}

void *enttab_find(const struct enttab *t, uint64_t entity)
{
	struct enttab_key *k;

	if (!t->cap)
		return NULL;
	k = slot_of(t, entity);
	return k->used ? k : NULL;
}

/* The records of the array old (oldcap slots) that drop leaves, into a new
 * array of cap slots. */
static int rebuild(struct enttab *t, size_t cap, bool (*drop)(void *rec, void *ctx), void *ctx)
{
	unsigned char *old = t->v, *v = calloc(cap, t->esz);
	size_t oldcap = t->cap;

	if (!v)
		return -ENOMEM;
	t->v = v;
	t->cap = cap;
	t->n = 0;
	for (size_t i = 0; i < oldcap; i++) {
		struct enttab_key *k = (struct enttab_key *)(void *)(old + i * t->esz);

		if (!k->used || (drop && drop(k, ctx)))
			continue;
		memcpy(slot_of(t, k->entity), k, t->esz);
		t->n++;
	}
	free(old);
	return 0;
}

void *enttab_get(struct enttab *t, uint64_t entity, bool *fresh)
{
	struct enttab_key *k;

	*fresh = false;
	if ((t->n + 1) * 2 > t->cap && rebuild(t, t->cap ? t->cap * 2 : t->first_cap, NULL, NULL))
		return NULL;
	k = slot_of(t, entity);
	if (k->used)
		return k;
	k->entity = entity;
	k->used = true;
	t->n++;
	*fresh = true;
	return k;
}

int enttab_sweep(struct enttab *t, bool (*drop)(void *rec, void *ctx), void *ctx)
{
	if (!t->n)
		return 0;
	return rebuild(t, t->cap, drop, ctx);
}
