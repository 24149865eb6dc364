/* libFuzzer target: procgroup_parse takes any bytes without crashing, and
 * what it gives back is bounded, terminated and free of control bytes. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	return 0;
}
