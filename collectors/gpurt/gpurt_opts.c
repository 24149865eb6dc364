/* SPDX-License-Identifier: GPL-2.0-only */
/* The runtime probes' command-line options (what is tracked, and extra
 * libraries to probe), their rate and their two fixed streams: shared by the
 * collector and by its stand-in in a build without eBPF (gpurt_none.c), so
 * that both take the same options and a recording has one schema. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "gpurt_probes.h"
#include "gpurt_scan.h"
#include "stream.h"
#include "strsafe.h"
#include "sysroot.h"
#include "util.h"

static const struct gpurt_opts gpurt_defaults = {.memory = true, .trace = true};

/* Read once here so that a missing, oversized or special file stops the
 * command at once; the collector reads it again and parses it. */
static int gpurt_parse_probe_file(const struct opt_desc *d, const char *name, const char *val,
				  void *block, char *err, size_t n)
{
	char why[256], shown[400], *buf = NULL;
	size_t len;
	int rc =
	    *val ? env_read_file(val, GPURT_PROBE_FILE_MAX, &buf, &len, why, sizeof(why)) : -EINVAL;

	(void)d;
	free(buf);
	if (rc == -EINVAL && !*val)
		return -EINVAL;
	if (rc) {
		snprintf(err, n, "cannot use %s %s: %s", name,
			 str_escape(shown, sizeof(shown), val, 80), why);
		return rc;
	}
	((struct gpurt_opts *)block)->probe_file = val;
	return 0;
}

static int gpurt_parse_trace(const struct opt_desc *d, const char *name, const char *val,
			     void *block, char *err, size_t n)
{
	(void)d;
	if (strcmp(val, "hggc") && strcmp(val, "none")) {
		opt_bad_value(err, n, name, val, "hggc or none");
		return -EINVAL;
	}
	((struct gpurt_opts *)block)->trace = !strcmp(val, "hggc");
	return 0;
}

static const struct opt_desc gpurt_opt_descs[] = {
    {.lng = "hggc-memory-usage",
     .arg = "BOOL",
     .help = "track device and pinned allocations with eBPF, true|false (default true)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_BOOL,
     .off = OPT_OFF(struct gpurt_opts, memory),
     .given = OPT_GIVEN(struct gpurt_opts, memory_given)},
    {.lng = "trace",
     .shrt = 't',
     .arg = "hggc|none",
     .help = "count kernel launches (default hggc)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_PARSE,
     .parse = gpurt_parse_trace},
    {.lng = "hggc-probe-file",
     .arg = "FILE",
     .help = "extra runtime libraries and symbols to probe",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_PARSE,
     .parse = gpurt_parse_probe_file,
     .expect = "a file name"},
};

const struct opt_table gpurt_options = {
    .name = "gpurt",
    .title = "Runtime probe",
    .opts = gpurt_opt_descs,
    .nopts = ARRAY_SIZE(gpurt_opt_descs),
    .size = sizeof(struct gpurt_opts),
    .defaults = &gpurt_defaults,
};

double gpurt_frequency(const struct asys_options *o)
{
	const struct gpurt_opts *go = options_get(o, &gpurt_options);

	if (options_scope(o) == SCOPE_NONE || (!go->memory && !go->trace))
		return 0;
	/* a fixture root (ASYS_SYSROOT) has no processes to put uprobes in */
	const char *root = sysroot_get();
	if (root && strcmp(root, "/") && *root)
		return 0;
	return o->delay_s > 0 ? 1.0 / o->delay_s : 1.0;
}
