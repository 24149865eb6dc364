/* A table of records keyed by a 64-bit entity that is already a mixed hash
 * (the probes' kernels and ranges): open addressing with linear probing, at
 * most half full. Every record starts with a struct enttab_key. The table
 * owns its array; records own nothing it frees. */
#ifndef ASYS_ENTTAB_H
#define ASYS_ENTTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct enttab_key {
	uint64_t entity;
	bool used;
};

struct enttab {
	unsigned char *v;
	size_t n, cap;
	size_t esz;	  /* bytes of a record */
	size_t first_cap; /* slots at the first insert (a power of two) */
};

void enttab_init(struct enttab *t, size_t esz, size_t first_cap);
void enttab_fini(struct enttab *t);
/* The record of entity, or NULL when it is not there. */
void *enttab_find(const struct enttab *t, uint64_t entity);
/* The record of entity, taken (used, its entity set, the rest zero, *fresh
 * true) when it was not there; NULL when the table cannot grow for it. */
void *enttab_get(struct enttab *t, uint64_t entity, bool *fresh);
/* Every record for which drop(rec, ctx) returns true leaves the table (drop
 * runs once per record, and may emit what the record's end needs). Without
 * memory to rebuild the table nothing is dropped: -ENOMEM, else 0. */
int enttab_sweep(struct enttab *t, bool (*drop)(void *rec, void *ctx), void *ctx);

#endif
