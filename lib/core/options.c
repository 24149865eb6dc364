/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <string.h>

#include "options.h"

void options_defaults(struct asys_options *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_s = 1.0;
	o->scope = SCOPE_DEFAULT;
}

enum sample_scope options_scope(const struct asys_options *o)
{
	if (o->scope != SCOPE_DEFAULT)
		return o->scope;
	return (o->npids > 0 || o->command) ? SCOPE_PROCESS_TREE : SCOPE_SYSTEM_WIDE;
}

const void *options_get(const struct asys_options *o, const struct opt_table *t)
{
	for (int i = 0; o && i < o->nblocks; i++)
		if (o->blocks[i].table == t)
			return o->blocks[i].data;
	return t->defaults;
}

void *options_edit(struct asys_options *o, const struct opt_table *t)
{
	struct opt_block *b;

	for (int i = 0; i < o->nblocks; i++)
		if (o->blocks[i].table == t)
			return o->blocks[i].data;
	if (o->nblocks >= OPT_BLOCKS_MAX || t->size > OPT_BLOCK_SIZE)
		return NULL;
	b = &o->blocks[o->nblocks++];
	b->table = t;
	memcpy(b->data, t->defaults, t->size);
	return b->data;
}
