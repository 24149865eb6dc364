/* SPDX-License-Identifier: GPL-2.0-only */
/* The runtime probes' stand-in in a build without eBPF (no libbpf, clang or
 * bpftool at configure time): it takes the same options, so that a command
 * line or an asysrc written for a full build still works, and it registers
 * the same streams with a status that says why they stay empty, as the
 * collector does when it lacks the privileges. */
#include "config.h"

#ifdef HAVE_BPF
#error "gpurt_none.c stands in for gpurt.c only in a build without eBPF"
#endif

#include <errno.h>
#include <stdlib.h>

#include "collector.h"
#include "gpurt_api.h"
#include "gpurt_scan.h"
#include "stream.h"

#define GPURT_NONE_WHY                                                                             \
	"runtime probes: this asys was built without eBPF (configure found no libbpf, "            \
	"clang or bpftool): rebuild with them for device memory and kernel launches per "          \
	"process"

/* Holds nothing: the engine asks last_error only of a collector with a
 * state, and this one's whole purpose is the sentence it answers. */
struct gpurt_none {
	int unused;
};

static int gpurt_none_init(const struct coll_ctx *ctx, void **state)
{
	struct gpurt_none *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*state = s;
	stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_GPURT_MEM));
	stream_table_add(ctx->streams, CATALOGUE_STREAM(STREAM_GPURT_KERNELS));
	return -ENOTSUP;
}

static int gpurt_none_sample(void *state, struct emitter *out, uint64_t now_ns)
{
	(void)state;
	(void)out;
	(void)now_ns;
	return -ENOTSUP;
}

static void gpurt_none_fini(void *state)
{
	free(state);
}

static const char *gpurt_none_last_error(const void *state)
{
	(void)state;
	return GPURT_NONE_WHY;
}

static const struct stream_desc *const gpurt_none_streams[] = {
    CATALOGUE_STREAM(STREAM_GPURT_MEM), CATALOGUE_STREAM(STREAM_GPURT_KERNELS), NULL};

const struct collector gpurt_collector = {
    .name = "gpurt",
    .streams = gpurt_none_streams,
    .options = &gpurt_options,
    .frequency = gpurt_frequency,
    .init = gpurt_none_init,
    .sample = gpurt_none_sample,
    .fini = gpurt_none_fini,
    .last_error = gpurt_none_last_error,
};
