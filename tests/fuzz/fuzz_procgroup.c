/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer target: procgroup_parse takes any bytes without crashing, what
 * it gives back is bounded, terminated and free of control bytes, and a
 * small cache (evicting all the time) answers as the parser does. The same
 * bytes as a runtime's JSON give a name only of the allowed characters. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procgroup.h"
#include "procgroup_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct procgroup_cache *cache;

static void check_json(const char *data, size_t size)
{
	static const char *const k1[] = {"Name"};
	static const char *const k3[] = {"Config", "Labels", "io.kubernetes.pod.name"};
	char name[16];

	if (procgroup_json_name(data, size, k1, 1, name, sizeof(name)) &&
	    !procgroup_name_ok(name, strlen(name), sizeof(name) - 1))
		abort();
	if (procgroup_json_name(data, size, k3, 3, name, sizeof(name)) &&
	    !procgroup_name_ok(name, strlen(name), sizeof(name) - 1))
		abort();
}

static void check_field(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procgroup g;

	procgroup_parse((const char *)data, size, &g);
	check_field(g.display, sizeof(g.display));
	check_field(g.id, sizeof(g.id));
	check_field(g.path, sizeof(g.path));
	check_field(g.step, sizeof(g.step));
	if (g.kind == PROCGROUP_POD && strlen(g.pod_uid) < 8)
		abort();
	check_json((const char *)data, size);
	if (!cache)
		cache = procgroup_cache_new(4, 0);
	if (cache &&
	    strcmp(procgroup_cache_get(cache, (const char *)data, size, 0)->display, g.display))
		abort();
	return 0;
}
