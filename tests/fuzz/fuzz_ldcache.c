/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer target: the ld.so.cache reader (gpurt_libpath_cache) takes any
 * bytes without reading outside them, and every path it reports is a
 * NUL-terminated absolute path inside the input whose name a probe wants. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpurt_libpath.h"
#include "gpurt_probes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_ctx {
	const struct gpurt_probes *p;
	const uint8_t *lo, *hi;
};

static void check_path(const char *path, void *arg)
{
	const struct fuzz_ctx *c = arg;
	const char *name = strrchr(path, '/');
	if ((const uint8_t *)path < c->lo || (const uint8_t *)path >= c->hi || path[0] != '/' ||
	    !name || !gpurt_probes_lib_wanted(c->p, name + 1))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gpurt_probes p;
	if (!p.n && gpurt_probes_builtin(&p))
		return 0;
	/* a copy of exactly size bytes, so a read past the end is caught */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct fuzz_ctx c = {&p, buf, buf + size};
	gpurt_libpath_cache(&p, buf, size, check_path, &c);
	free(buf);
	return 0;
}
