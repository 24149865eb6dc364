/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktab.h"

void ktab_init(struct ktab *t, size_t esz, size_t first_cap, enum ktab_hash hash)
{
	*t = (struct ktab){.esz = esz, .first_cap = first_cap ? first_cap : 64, .hash = hash};
}

void ktab_init_fixed(struct ktab *t, void *array, size_t cap, size_t esz, enum ktab_hash hash)
{
	*t = (struct ktab){.v = array, .cap = cap, .esz = esz, .hash = hash, .fixed = true};
}

void ktab_fini(struct ktab *t)
{
	if (!t)
		return;
	if (!t->fixed) {
		free(t->v);
		t->v = NULL;
		t->cap = 0;
	}
	t->n = 0;
}

void ktab_clear(struct ktab *t)
{
	if (t->cap)
		memset(t->v, 0, t->cap * t->esz);
	t->n = 0;
}

/* The records of the array old (oldcap slots) that drop leaves, into an
 * array of cap slots (the same one when cap is 0: a fixed table). */
static int rebuild(struct ktab *t, size_t cap, bool (*drop)(void *rec, void *ctx), void *ctx)
{
	unsigned char *old = t->v, *v;
	size_t oldcap = t->cap;

	if (t->fixed) {
		/* in place needs a copy of the records: a fixed table is small */
		old = malloc(oldcap * t->esz);
		if (!old)
			return -ENOMEM;
		memcpy(old, t->v, oldcap * t->esz);
		memset(t->v, 0, oldcap * t->esz);
		v = t->v;
		cap = oldcap;
	} else if (!(v = calloc(cap, t->esz))) {
		return -ENOMEM;
	}
	t->v = v;
	t->cap = cap;
	t->n = 0;
	for (size_t i = 0; i < oldcap; i++) {
		struct ktab_key *k = (struct ktab_key *)(void *)(old + i * t->esz);

		if (!k->used || (drop && drop(k, ctx)))
			continue;
		memcpy(ktab_slot(t, k->key2, k->key), k, t->esz);
		t->n++;
	}
	free(old);
	return 0;
}

int ktab_grow(struct ktab *t, size_t cap)
{
	if (t->fixed)
		return -ENOSPC;
	return rebuild(t, cap, NULL, NULL);
}

int ktab_sweep(struct ktab *t, bool (*drop)(void *rec, void *ctx), void *ctx)
{
	if (!t->n)
		return 0;
	return rebuild(t, t->cap, drop, ctx);
}

void ktab_remove(struct ktab *t, void *rec)
{
	size_t mask = t->cap - 1, i = (size_t)((unsigned char *)rec - t->v) / t->esz, j, h;

	for (j = (i + 1) & mask; ktab_at(t, j)->used; j = (j + 1) & mask) {
		struct ktab_key *k = ktab_at(t, j);

		h = ktab_home(t, k->key2, k->key);
		/* move it back unless its home lies cyclically in (i, j] */
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			memcpy(ktab_at(t, i), k, t->esz);
			i = j;
		}
	}
	memset(ktab_at(t, i), 0, t->esz);
	t->n--;
}
