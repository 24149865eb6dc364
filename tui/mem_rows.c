#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mem_rows.h"
#include "util.h"

/* The kept row of pid, or NULL. */
static const struct proc_row *kept_find(const struct proc_row *rows, size_t n, uint64_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == pid)
			return &rows[i];
	return NULL;
}

/* A process about to go is a zombie first: no memory, its command line
 * gone ("[sh]"). What was known of it before stays. */
static void kept_merge(struct proc_row *r, struct mem_kept_row *t, const struct proc_row *old,
		       const struct mem_kept_row *old_text)
{
	for (int c = 0; c < MEM_NCOLS; c++)
		if (isnan(r->val[c]))
			r->val[c] = old->val[c];
	if (t->label[0] == '[' && old_text->label[0] != '[')
		memcpy(t->label, old_text->label, sizeof(t->label));
}

void mem_kept_save(struct mem_kept *k, const struct proc_row *rows, size_t n, uint64_t ns)
{
	struct proc_row *old = NULL;
	struct mem_kept_row *old_text = NULL;
	size_t nold = k->n;

	k->restored = false;
	if (!k->rows) {
		k->rows = calloc(MEM_KEPT_MAX, sizeof(*k->rows));
		k->text = calloc(MEM_KEPT_MAX, sizeof(*k->text));
		nold = 0;
	}
	if (!k->rows || !k->text) {
		k->n = 0;
		return;
	}
	if (nold) {
		old = malloc(nold * sizeof(*old));
		old_text = malloc(nold * sizeof(*old_text));
		if (old && old_text) {
			memcpy(old, k->rows, nold * sizeof(*old));
			memcpy(old_text, k->text, nold * sizeof(*old_text));
		} else {
			nold = 0;
		}
	}
	k->n = n < MEM_KEPT_MAX ? n : MEM_KEPT_MAX;
	k->ns = ns;
	for (size_t i = 0; i < k->n; i++) {
		struct mem_kept_row *t = &k->text[i];
		const struct proc_row *was;

		k->rows[i] = rows[i];
		util_strlcpy(t->label, rows[i].label && *rows[i].label ? rows[i].label : "?",
			     sizeof(t->label));
		util_strlcpy(t->user, rows[i].user ? rows[i].user : "?", sizeof(t->user));
		was = nold ? kept_find(old, nold, rows[i].pid) : NULL;
		if (was)
			kept_merge(&k->rows[i], t, was, &old_text[was - old]);
		k->rows[i].label = t->label;
		k->rows[i].user = t->user;
	}
	free(old);
	free(old_text);
}

size_t mem_kept_restore(struct mem_kept *k, struct proc_row *out, uint64_t ns)
{
	if (ns < k->ns)
		k->n = 0;
	k->restored = k->n > 0;
	if (k->n)
		memcpy(out, k->rows, k->n * sizeof(*out));
	return k->n;
}

void mem_kept_free(struct mem_kept *k)
{
	free(k->rows);
	free(k->text);
	memset(k, 0, sizeof(*k));
}
