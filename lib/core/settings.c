/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "settings.h"
#include "strsafe.h"
#include "util.h"

const char *const settings_themes[] = {"default", "light", "midnight", "mono", NULL};

void settings_defaults(struct asys_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->theme = SET_THEME_DEFAULT;
}

static bool settings_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t';
}

/* One name of len bytes at p into it, checked. 0 or -EINVAL with err. */
static int settings_item(const char *p, size_t len, struct set_item *it,
			 bool (*valid)(const char *, char *, size_t), char *err, size_t errn)
{
	char name[SET_NAME_MAX], shown[4 * SET_NAME_MAX + 8];

	it->hidden = *p == '-';
	if (it->hidden) {
		p++;
		len--;
	}
	if (!len || len >= sizeof(name)) {
		char raw[96];

		snprintf(raw, sizeof(raw), "%.*s", (int)(len < 80 ? len : 80), p);
		snprintf(err, errn, "bad name '%s'", str_escape(shown, sizeof(shown), raw, 40));
		return -EINVAL;
	}
	memcpy(name, p, len);
	name[len] = '\0';
	if (valid && !valid(name, it->name, sizeof(it->name))) {
		snprintf(err, errn, "unknown name '%s'",
			 str_escape(shown, sizeof(shown), name, 40));
		return -EINVAL;
	}
	if (!valid)
		util_strlcpy(it->name, name, sizeof(it->name));
	return 0;
}

int settings_parse_list(const char *val, struct set_list *out,
			bool (*valid)(const char *name, char *canon, size_t n), char *err,
			size_t errn)
{
	struct set_list l = {.n = 0};
	const char *p = val;

	err[0] = '\0';
	while (*p) {
		size_t len;

		while (settings_sep(*p))
			p++;
		if (!*p)
			break;
		for (len = 0; p[len] && !settings_sep(p[len]); len++)
			;
		if (l.n >= SET_LIST_MAX) {
			snprintf(err, errn, "more than %d names", SET_LIST_MAX);
			return -EINVAL;
		}
		if (settings_item(p, len, &l.item[l.n], valid, err, errn))
			return -EINVAL;
		for (int i = 0; i < l.n; i++) {
			if (!strcasecmp(l.item[i].name, l.item[l.n].name)) {
				snprintf(err, errn, "'%s' named twice", l.item[i].name);
				return -EINVAL;
			}
		}
		l.n++;
		p += len;
	}
	*out = l;
	return 0;
}

void settings_format_list(const struct set_list *l, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < l->n && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s%s", i ? ", " : "",
					l->item[i].hidden ? "-" : "", l->item[i].name);
}

int settings_order(const struct set_list *l, const char *const *names, int n, int *order,
		   bool *shown)
{
	int k = 0;
	bool placed[SET_LIST_MAX * 4] = {false};

	if (n > (int)ARRAY_SIZE(placed))
		n = (int)ARRAY_SIZE(placed);
	for (int i = 0; i < n; i++)
		shown[i] = true;
	for (int j = 0; l && j < l->n; j++) {
		for (int i = 0; i < n; i++) {
			if (placed[i] || strcasecmp(names[i], l->item[j].name))
				continue;
			placed[i] = true;
			shown[i] = !l->item[j].hidden;
			order[k++] = i;
			break;
		}
	}
	for (int i = 0; i < n; i++)
		if (!placed[i])
			order[k++] = i;
	return n;
}

void settings_set_order(struct set_list *l, const char *const *names, const int *order,
			const bool *shown, int n)
{
	l->n = 0;
	for (int k = 0; k < n && l->n < SET_LIST_MAX; k++) {
		struct set_item *it = &l->item[l->n++];

		util_strlcpy(it->name, names[order[k]], sizeof(it->name));
		it->hidden = !shown[order[k]];
	}
}
