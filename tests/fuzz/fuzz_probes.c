/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer target: the --hggc-probe-file parser takes any bytes without
 * crashing, and a table it accepts has sane entries. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "gpurt.h"
#include "gpurt_probes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char err[256];
	struct gpurt_probes p = {0};
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (gpurt_probes_parse(&p, text, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < p.n; i++) {
			const struct gpurt_probe *e = &p.v[i];
			if (e->role < 1 || e->role >= GPURT_ROLE_MAX || e->a[0] > 8 ||
			    e->a[1] > 8 || e->shift > 3 || !e->sym[0] || strchr(e->sym, '@'))
				abort();
		}
		gpurt_probes_lib_wanted(&p, "libcudart.so.13");
	}
	gpurt_probes_clear(&p);
	free(text);
	return 0;
}
