/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_opts.h"
#include "strsafe.h"
#include "util.h"

static const struct nic_opts nic_defaults = {.frequency = 1000};

/* A netdev name is at most 15 bytes: an expression that needs more than
 * these to match one is a mistake, or an attempt to make glibc's regcomp
 * build an automaton of gigabytes (a quantifier on a quantifier, a bound in
 * the thousands). NULL when tok is within them, else why not. */
#define NIC_RE_LEN_MAX 200
#define NIC_RE_BOUND_MAX 64

static const char *nic_re_too_costly(const char *tok)
{
	bool after_quant = false;

	if (strlen(tok) > NIC_RE_LEN_MAX)
		return "longer than 200 characters";
	for (const char *p = tok; *p; p++) {
		bool quant = *p == '*' || *p == '+' || *p == '?' || *p == '{';

		if (*p == '\\' && p[1]) {
			p++;
			after_quant = false;
			continue;
		}
		if (quant && after_quant)
			return "a repetition of a repetition";
		if (*p == '{') {
			char *end;
			unsigned long m = strtoul(p + 1, &end, 10), k = m;

			if (*end == ',')
				k = strtoul(end + 1, &end, 10);
			if (m > NIC_RE_BOUND_MAX || k > NIC_RE_BOUND_MAX)
				return "a bound above 64";
			p = *end == '}' ? end : p;
		}
		after_quant = quant;
	}
	return NULL;
}

/* Compiled here too, so that a bad expression stops the command at once. */
static int nic_parse_include(const struct opt_desc *d, const char *name, const char *val,
			     void *block, char *err, size_t n)
{
	char *copy = util_strdup(val), *save = NULL, *tok;
	int rc = 0, count = 0;

	(void)d;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char msg[128], shown[256];
		regex_t re;
		const char *costly = nic_re_too_costly(tok);
		int e = costly ? REG_ESPACE : regcomp(&re, tok, REG_EXTENDED | REG_NOSUB);

		if (costly) {
			snprintf(err, n, "regular expression '%s' for %s refused: %s",
				 str_escape(shown, sizeof(shown), tok, 60), name, costly);
			rc = -EINVAL;
		} else if (e) {
			regerror(e, &re, msg, sizeof(msg));
			snprintf(err, n, "bad regular expression '%s' for %s: %s",
				 str_escape(shown, sizeof(shown), tok, 60), name, msg);
			rc = -EINVAL;
		} else {
			regfree(&re);
		}
		if (++count > NIC_MAX_RE && !rc) {
			snprintf(err, n, "%s: at most %d expressions", name, NIC_MAX_RE);
			rc = -E2BIG;
		}
	}
	free(copy);
	if (!rc && !count) {
		opt_bad_value(err, n, name, val, "comma-separated regular expressions");
		rc = -EINVAL;
	}
	if (!rc)
		((struct nic_opts *)block)->include = val;
	return rc;
}

static const struct opt_desc nic_opt_descs[] = {
    {.lng = "nic-metrics",
     .arg = "BOOL",
     .help = "sample NICs at --nic-metrics-frequency, true|false (default: at the refresh rate)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_BOOL,
     .off = OPT_OFF(struct nic_opts, metrics),
     .given = OPT_GIVEN(struct nic_opts, metrics_given)},
    {.lng = "nic-device-include",
     .arg = "REGEX[,REGEX...]",
     .help = "only NICs whose RDMA or netdev name matches one of these extended regexes",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_PARSE,
     .parse = nic_parse_include},
    {.lng = "nic-metrics-frequency",
     .arg = "HZ",
     .help = "NIC sampling rate, 1-100000 (default 1000)",
     .cmds = OPT_CMD_SAMPLE,
     .type = OPT_DOUBLE,
     .off = OPT_OFF(struct nic_opts, frequency),
     .lo = 1,
     .hi = 100000,
     .unit = "Hz"},
};

const struct opt_table nic_options = {
    .name = "nic",
    .title = "NIC",
    .opts = nic_opt_descs,
    .nopts = ARRAY_SIZE(nic_opt_descs),
    .size = sizeof(struct nic_opts),
    .defaults = &nic_defaults,
};
