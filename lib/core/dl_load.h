/* SPDX-License-Identifier: GPL-2.0-only */
/* The one dlopen loader: a vendor or optional library is found by name (or
 * path) from a list, and its entry points are taken from a table. Header-only
 * and freestanding (libc alone), so libasys-inject.so loads CUPTI with it
 * too. Where a name may come from the environment, the caller vets it first
 * (env_path, env_trusted_path): the loader opens what it is given. */
#ifndef ASYS_DL_LOAD_H
#define ASYS_DL_LOAD_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* An entry point: its name, and the address of the function pointer that
 * receives it. A table ends at a NULL name. */
struct dl_sym {
	const char *name;
	void *fnp;
	bool optional; /* NULL when the library lacks it */
};

/* A table's entries: DL_SYM("name", &api.fn), and DL_SYM_END last. */
#define DL_SYM(name, fnp)                                                                          \
	{                                                                                          \
		(name), (fnp), false                                                               \
	}
#define DL_SYM_OPTIONAL(name, fnp)                                                                 \
	{                                                                                          \
		(name), (fnp), true                                                                \
	}
#define DL_SYM_END                                                                                 \
	{                                                                                          \
		NULL, NULL, false                                                                  \
	}

/* What the last library tried came to: its name; the first required symbol
 * it lacks (NULL when it did not load: err holds dlerror's words, or "not
 * found"). On success name is the library loaded and missing NULL. */
struct dl_why {
	const char *name;
	const char *missing;
	char err[128]; /* dlerror's words, cut: the caller adds its advice */
};

/* The first of names (a NULL-terminated list) that dlopen(flags) loads and
 * that has every required symbol of syms (NULL: none asked), the pointers
 * set: its handle, which the caller keeps or dlcloses. NULL when none did
 * (every pointer then NULL), why saying about the last one tried. */
static inline void *dl_load(const char *const *names, int flags, const struct dl_sym *syms,
			    struct dl_why *why)
{
	*why = (struct dl_why){.name = names[0]};
	snprintf(why->err, sizeof(why->err), "not found");
	for (size_t i = 0; names[i]; i++) {
		void *h = dlopen(names[i], flags);
		const char *e;

		why->name = names[i];
		why->missing = NULL;
		if (!h) {
			e = dlerror();
			snprintf(why->err, sizeof(why->err), "%s", e ? e : "not found");
			continue;
		}
		for (const struct dl_sym *s = syms; s && s->name; s++) {
			*(void **)s->fnp = dlsym(h, s->name);
			if (!*(void **)s->fnp && !s->optional && !why->missing)
				why->missing = s->name;
		}
		if (!why->missing)
			return h;
		dlclose(h);
	}
	for (const struct dl_sym *s = syms; s && s->name; s++)
		*(void **)s->fnp = NULL;
	return NULL;
}

/* why in words: "cannot load NAME (ERR): LOAD_ADVICE" or "NAME lacks SYMBOL:
 * SYM_ADVICE" (the advice says what to install). */
static inline void dl_why_text(const struct dl_why *why, char *buf, size_t n,
			       const char *load_advice, const char *sym_advice)
{
	if (!why->missing)
		snprintf(buf, n, "cannot load %s (%s): %s", why->name, why->err, load_advice);
	else
		snprintf(buf, n, "%s lacks %s: %s", why->name, why->missing, sym_advice);
}

#endif
