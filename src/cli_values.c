/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_values.h"
#include "serve_addr.h"
#include "listen.h"
#include "options.h"
#include "rec_toggle.h"
#include "replay_view.h"
#include "strsafe.h"
#include "util.h"

#define CLI_MAX_DURATION_S (366.0 * 86400)
#define CLI_MIN_SIZE 4096
/* --max-size keeps room for the trailer (REC_TRAILER_RESERVE, 64 KiB) */
#define CLI_MIN_MAX_SIZE (256u << 10)

int cli_parse_scope(const struct opt_desc *d, const char *name, const char *val, void *block,
		    char *err, size_t n)
{
	static const struct {
		const char *word;
		enum sample_scope scope;
	} words[] = {
	    {"process-tree", SCOPE_PROCESS_TREE},
	    {"system-wide", SCOPE_SYSTEM_WIDE},
	    {"none", SCOPE_NONE},
	};

	(void)d;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		if (!strcmp(val, words[i].word)) {
			((struct asys_options *)block)->scope = words[i].scope;
			return 0;
		}
	}
	opt_bad_value(err, n, name, val, "process-tree, system-wide or none");
	return -EINVAL;
}

static int cli_one_pid(struct asys_options *o, const char *name, const char *tok, char *err,
		       size_t n)
{
	uint64_t p;

	if (util_parse_u64(tok, &p) || p < 1 || p > INT_MAX) {
		opt_bad_value(err, n, name, tok,
			      "a process id (1-2147483647), or a comma-separated list");
		return -EINVAL;
	}
	if (o->npids >= OPT_MAX_PIDS) {
		snprintf(err, n, "too many pids for %s: at most %d", name, OPT_MAX_PIDS);
		return -E2BIG;
	}
	if (kill((pid_t)p, 0) < 0 && errno == ESRCH) {
		snprintf(err, n, "no process with pid %llu (%s)", (unsigned long long)p, name);
		return -ESRCH;
	}
	o->pids[o->npids++] = (pid_t)p;
	return 0;
}

int cli_parse_pids(const struct opt_desc *d, const char *name, const char *val, void *block,
		   char *err, size_t n)
{
	struct asys_options *o = block;
	char *copy = util_strdup(val), *tok;
	int rc = 0, before = o->npids;

	(void)d;
	if (!copy)
		return -ENOMEM;
	for (char *rest = copy; !rc && (tok = strsep(&rest, ",")) != NULL;)
		rc = cli_one_pid(o, name, *tok ? tok : val, err, n);
	if (!rc && o->npids == before) {
		opt_bad_value(err, n, name, val, "a process id, or a comma-separated list");
		rc = -EINVAL;
	}
	free(copy);
	return rc;
}

int cli_parse_listen(const struct opt_desc *d, const char *name, const char *val, void *block,
		     char *err, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];

	(void)d;
	if (serve_parse_listen(val, &ss, &len, why, sizeof(why)) < 0) {
		opt_bad_value(err, n, name, val, why + strlen("expected "));
		return -EINVAL;
	}
	((struct listen_opts *)block)->listen = val;
	return 0;
}

int cli_parse_speed(const struct opt_desc *d, const char *name, const char *val, void *block,
		    char *err, size_t n)
{
	const char *slash = strchr(val, '/');
	double num, den = 1;
	char head[64];

	(void)d;
	(void)err;
	(void)n;
	(void)name;
	if (slash) {
		if ((size_t)(slash - val) >= sizeof(head))
			return -EINVAL;
		snprintf(head, sizeof(head), "%.*s", (int)(slash - val), val);
		if (util_parse_double(head, &num) || util_parse_double(slash + 1, &den) || den <= 0)
			return -EINVAL;
	} else if (util_parse_double(val, &num)) {
		return -EINVAL;
	}
	num /= den;
	if (!(num >= 1.0 / 64 && num <= 64))
		return -EINVAL;
	((struct play_opts *)block)->speed = num;
	return 0;
}

enum cli_unit_kind cli_unit_kind(const char *val)
{
	static const char *const times[] = {"us", "ms", "s", "min", "h", "d"};
	static const char letters[] = "KMGTPkmgtp";
	const char *u = val + strspn(val, "0123456789.");

	if (u == val)
		return CLI_UNIT_BAD;
	if (!*u)
		return CLI_UNIT_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(times); i++)
		if (!strcmp(u, times[i]))
			return CLI_UNIT_TIME;
	if (!strcmp(u, "B"))
		return CLI_UNIT_SIZE;
	if (!strchr(letters, u[0]))
		return CLI_UNIT_BAD;
	if (!u[1])
		return CLI_UNIT_AMBIGUOUS;
	if ((u[1] == 'B' && !u[2]) || (u[1] == 'i' && u[2] == 'B' && !u[3]))
		return CLI_UNIT_SIZE;
	return CLI_UNIT_BAD;
}

/* The number of val with another unit, for a message: "10MB". */
static const char *cli_respell(char *buf, size_t n, const char *val, const char *unit)
{
	char num[32];

	snprintf(num, sizeof(num), "%.*s", (int)strspn(val, "0123456789."), val);
	snprintf(buf, n, "%s%s", *num ? num : "10", unit);
	return buf;
}

int cli_parse_duration(const struct opt_desc *d, const char *name, const char *val, void *block,
		       char *err, size_t n)
{
	enum cli_unit_kind k = cli_unit_kind(val);
	char a[40], b[40], expect[160];
	double s;

	(void)d;
	/* "m" is minutes here: --duration takes nothing else */
	if ((k == CLI_UNIT_TIME ||
	     (k == CLI_UNIT_AMBIGUOUS && !strcmp(val + strspn(val, "0123456789."), "m"))) &&
	    !util_parse_duration(val, &s) && s > 0 && s <= CLI_MAX_DURATION_S) {
		((struct record_opts *)block)->duration_s = s;
		return 0;
	}
	snprintf(expect, sizeof(expect),
		 "a duration with its unit, such as %s or %s (at most 366d)",
		 cli_respell(a, sizeof(a), val, "s"), cli_respell(b, sizeof(b), val, "min"));
	opt_bad_value(err, n, name, val, expect);
	return -EINVAL;
}

int cli_parse_peak_window(const struct opt_desc *d, const char *name, const char *val, void *block,
			  char *err, size_t n)
{
	char a[40], b[40], expect[160];
	double s;

	(void)d;
	if (cli_unit_kind(val) == CLI_UNIT_TIME && !util_parse_duration(val, &s) && s >= 0.1 &&
	    s <= 3600) {
		((struct listen_opts *)block)->peak_window_s = s;
		return 0;
	}
	snprintf(expect, sizeof(expect), "a duration with its unit, 0.1s to 1h, such as %s or %s",
		 cli_respell(a, sizeof(a), val, "s"), cli_respell(b, sizeof(b), val, "min"));
	opt_bad_value(err, n, name, val, expect);
	return -EINVAL;
}

static int cli_size(const char *val, uint64_t *out)
{
	char num[64];
	const char *u = val + strspn(val, "0123456789.");

	if (cli_unit_kind(val) != CLI_UNIT_SIZE)
		return -EINVAL;
	if (!strcmp(u, "B")) {
		/* util_parse_size takes the number alone for bytes */
		snprintf(num, sizeof(num), "%.*s", (int)(u - val), val);
		return util_parse_size(num, out);
	}
	return util_parse_size(val, out);
}

int cli_parse_max_size(const struct opt_desc *d, const char *name, const char *val, void *block,
		       char *err, size_t n)
{
	char a[40], b[40], expect[160];
	uint64_t v;

	(void)d;
	if (!cli_size(val, &v) && v >= CLI_MIN_MAX_SIZE) {
		((struct record_opts *)block)->max_size = v;
		return 0;
	}
	snprintf(expect, sizeof(expect),
		 "a size of at least 256KB with a byte unit, such as %s or %s",
		 cli_respell(a, sizeof(a), val, "MB"), cli_respell(b, sizeof(b), val, "GiB"));
	opt_bad_value(err, n, name, val, expect);
	return -EINVAL;
}

int cli_parse_rotate(const struct opt_desc *d, const char *name, const char *val, void *block,
		     char *err, size_t n)
{
	struct record_opts *o = block;
	enum cli_unit_kind k = cli_unit_kind(val);
	char a[40], b[40], expect[200];
	double s;

	(void)d;
	o->rotate_size = 0;
	o->rotate_s = 0;
	if (k == CLI_UNIT_SIZE && !cli_size(val, &o->rotate_size) && o->rotate_size >= CLI_MIN_SIZE)
		return 0;
	if (k == CLI_UNIT_TIME && !util_parse_duration(val, &s) && s >= 1 &&
	    s <= CLI_MAX_DURATION_S) {
		o->rotate_s = s;
		return 0;
	}
	o->rotate_size = 0;
	cli_respell(a, sizeof(a), val, "MB");
	cli_respell(b, sizeof(b), val, "min");
	if (k == CLI_UNIT_AMBIGUOUS || k == CLI_UNIT_NONE) {
		char shown[200];

		snprintf(err, n,
			 "'%s' for %s could be a size or a duration: write %s for a size or %s "
			 "for a duration",
			 str_escape(shown, sizeof(shown), val, 40), name, a, b);
		return -EINVAL;
	}
	snprintf(expect, sizeof(expect),
		 "a size of at least 4KB (64MB, 1GiB) or a duration of at least 1s (30s, 10min, "
		 "1h)");
	opt_bad_value(err, n, name, val, expect);
	return -EINVAL;
}
