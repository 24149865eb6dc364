/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_values.h"
#include "registry.h"
#include "strsafe.h"
#include "util.h"

/* An argument as it may be echoed: escaped and at most 80 bytes. */
#define CLI_ECHO_LEN 80
#define CLI_ECHO_BUF (4 * CLI_ECHO_LEN + 8)

static const char *const cli_formats[] = {"csv", "json", NULL};
static const char *const cli_snapshot_formats[] = {"json", "text", NULL};

/* The application's options: a table for each block of struct cli_options,
 * in the order --help lists them (a command lists only its own). B is the
 * block's type. */
#define APP_FLAG(B, l, s, h, c, m)                                                                 \
	{                                                                                          \
		.lng = (l), .shrt = (s), .help = (h), .cmds = (c), .type = OPT_FLAG,               \
		.off = OPT_OFF(B, m)                                                               \
	}
#define APP_STR(B, l, s, a, h, c, m, e)                                                            \
	{                                                                                          \
		.lng = (l), .shrt = (s), .arg = (a), .help = (h), .cmds = (c), .type = OPT_STRING, \
		.off = OPT_OFF(B, m), .expect = (e)                                                \
	}
#define APP_NUM(B, l, s, a, h, c, m, lo_, hi_, u)                                                  \
	{                                                                                          \
		.lng = (l), .shrt = (s), .arg = (a), .help = (h), .cmds = (c), .type = OPT_DOUBLE, \
		.off = OPT_OFF(B, m), .lo = (lo_), .hi = (hi_), .unit = (u)                        \
	}
#define APP_PARSE(l, s, a, h, c, fn, e)                                                            \
	{                                                                                          \
		.lng = (l), .shrt = (s), .arg = (a), .help = (h), .cmds = (c), .type = OPT_PARSE,  \
		.parse = (fn), .expect = (e)                                                       \
	}
#define APP_TABLE(o)                                                                               \
	{                                                                                          \
		.name = "asys", .opts = (o), .nopts = ARRAY_SIZE(o)                                \
	}

/* The engine's: struct asys_options. The first is --help. */
static const struct opt_desc app_engine_opts[] = {
    /* never applied: the parser prints the usage */
    {.lng = "help", .shrt = 'h', .help = "show this help and exit", .cmds = ~0u, .type = OPT_FLAG},
    APP_NUM(struct asys_options, "delay", 'd', "SECONDS",
	    "refresh interval, 0.1-3600 (default 1.0)", OPT_CMD_LISTEN | OPT_CMD_VIEW, delay_s, 0.1,
	    3600, "seconds"),
    APP_PARSE("sample", 's', "SCOPE",
	      "process-tree|system-wide|none (default system-wide, or process-tree with -p or "
	      "a command)",
	      OPT_CMD_SAMPLE, cli_parse_scope, NULL),
    APP_PARSE("pid", 'p', "PID[,PID...]", "follow these processes and their children",
	      OPT_CMD_SAMPLE, cli_parse_pids, NULL),
};

static const struct opt_desc app_job_opts[] = {
    APP_STR(struct workload_opts, "workload-log", 0, "FILE",
	    "the command's output goes to FILE (default: a new $TMPDIR/asys-workload.*.log)",
	    OPT_CMD_TOP, log, "a file name"),
    APP_STR(struct workload_opts, "workload-log", 0, "FILE",
	    "the command's output goes to FILE (default: asys record's own stdout and stderr)",
	    OPT_CMD_RECORD, log, "a file name"),
};

static const struct opt_desc app_view_opts[] = {
    APP_FLAG(struct tui_opts, "no-color", 0, "draw without colour (also NO_COLOR=1)",
	     OPT_CMD_TOP | OPT_CMD_VIEW, no_color),
    APP_FLAG(struct tui_opts, "nic-all", 0, "show inactive NICs too (the a key)",
	     OPT_CMD_TOP | OPT_CMD_VIEW, nic_show_all),
};

/* The program's own, in struct cli_options itself. */
static const struct opt_desc app_self_opts[] = {
    APP_FLAG(struct cli_options, "no-config", 0, "read no asysrc file (see asysrc(5))",
	     OPT_CMD_SAMPLE | OPT_CMD_VIEW, no_config),
};

static const struct opt_desc app_play_opts[] = {
    APP_PARSE("speed", 0, "X", "replay speed, 1/64 to 64 (default 1)", OPT_CMD_VIEW,
	      cli_parse_speed, "a speed between 1/64 and 64, such as 0.5, 1/4 or 8"),
    APP_STR(struct play_opts, "begin", 0, "TIME",
	    "start at TIME: HH:MM:SS, 'YYYY-MM-DD HH:MM:SS', +DURATION from the start, "
	    "-DURATION from the end, or NN%",
	    OPT_CMD_REPLAY | OPT_CMD_EXPORT, begin, "a time"),
    APP_STR(struct play_opts, "end", 0, "TIME", "up to TIME (the forms of --begin)", OPT_CMD_EXPORT,
	    end, "a time"),
    APP_FLAG(struct play_opts, "info", 0,
	     "print host, version, span, streams, sample counts, gaps and damage, then exit",
	     OPT_CMD_REPLAY, info),
    APP_FLAG(struct play_opts, "once", 0, "stop at the end instead of playing again", OPT_CMD_DEMO,
	     once),
};

static const struct opt_desc app_export_opts[] = {
    {.lng = "format",
     .shrt = 'f',
     .arg = "csv|json",
     .help = "csv: one row per value; json: one object per sample and line (default csv)",
     .cmds = OPT_CMD_EXPORT,
     .type = OPT_CHOICE,
     .off = OPT_OFF(struct export_opts, format),
     .choices = cli_formats},
    APP_STR(struct export_opts, "streams", 0, "NAME,...",
	    "only these streams (see asys replay --info FILE)", OPT_CMD_EXPORT, streams,
	    "comma-separated stream names"),
    APP_FLAG(struct export_opts, "summary", 0,
	     "host, span, streams, gaps, then min, avg, max and p99 of each field", OPT_CMD_EXPORT,
	     summary),
    APP_STR(struct export_opts, "output", 'o', "OUT", "write to OUT instead of standard output",
	    OPT_CMD_EXPORT, output, "a file name"),
};

static const struct opt_desc app_rec_opts[] = {
    APP_STR(struct record_opts, "output", 'o', "FILE", "record to FILE (.asys)",
	    OPT_CMD_TOP | OPT_CMD_RECORD, output, "a file name"),
    APP_FLAG(struct record_opts, "force", 0, "replace FILE if it exists",
	     OPT_CMD_TOP | OPT_CMD_RECORD, force),
};

static const struct opt_desc app_listen_opts[] = {
    APP_PARSE("listen", 0, "ADDR:PORT",
	      "serve /metrics on ADDR:PORT (serve: default 127.0.0.1:9459; [::1]:PORT for IPv6)",
	      OPT_CMD_LISTEN, cli_parse_listen, NULL),
    APP_STR(struct listen_opts, "web-config", 0, "FILE",
	    "TLS and basic auth of the endpoint, in exporter-toolkit's format (asys-serve(1))",
	    OPT_CMD_LISTEN, web_config, "a file name"),
    APP_NUM(struct listen_opts, "metrics-processes", 0, "N",
	    "also export per-process and per-kernel series: the top N of each by size "
	    "(memory; kernels by launches), 0-1000 (default 0: none)",
	    OPT_CMD_LISTEN, metrics_processes, 0, 1000, "a count of processes"),
    APP_PARSE("peak-window", 0, "TIME",
	      "the window of the peaks and of the PPU metrics' mean and maximum, ending at each "
	      "scrape (5s, 1min; default 15s: the usual scrape interval)",
	      OPT_CMD_LISTEN, cli_parse_peak_window, NULL),
    APP_FLAG(struct listen_opts, "list-metrics", 0,
	     "print the metric families this asys exports, then exit", OPT_CMD_SERVE, list_metrics),
};

static const struct opt_desc app_snapshot_opts[] = {
    APP_NUM(struct snapshot_opts, "interval", 0, "SECONDS",
	    "sample for SECONDS before printing, 0.1-3600 (default 1)", OPT_CMD_SNAPSHOT,
	    interval_s, 0.1, 3600, "seconds"),
    {.lng = "format",
     .shrt = 'f',
     .arg = "json|text",
     .help = "json: one document (asys-snapshot(1)); text: one line per value (default: "
	     "text on a terminal, else json)",
     .cmds = OPT_CMD_SNAPSHOT,
     .type = OPT_CHOICE,
     .off = OPT_OFF(struct snapshot_opts, snapshot_format),
     .choices = cli_snapshot_formats},
};

/* record's, in the same block as -o and --force, after the endpoint's */
static const struct opt_desc app_record_opts[] = {
    APP_PARSE("duration", 0, "TIME", "stop after TIME (30s, 10min, 2h; default: until a signal)",
	      OPT_CMD_RECORD, cli_parse_duration, NULL),
    APP_PARSE("max-size", 0, "SIZE", "stop at SIZE (512MB, 2GiB; binary: 1MB = 1MiB)",
	      OPT_CMD_RECORD, cli_parse_max_size, NULL),
    APP_PARSE("rotate", 0, "SIZE|TIME",
	      "start a new segment file at SIZE (64MB) or after TIME (10min)", OPT_CMD_RECORD,
	      cli_parse_rotate, NULL),
    APP_NUM(struct record_opts, "fsync-interval", 0, "SECONDS",
	    "fdatasync period, 0.1-3600 (default 1)", OPT_CMD_RECORD, fsync_s, 0.1, 3600,
	    "seconds"),
};

static const struct opt_table app_tables[] = {
    APP_TABLE(app_engine_opts), APP_TABLE(app_job_opts),    APP_TABLE(app_view_opts),
    APP_TABLE(app_self_opts),	APP_TABLE(app_play_opts),   APP_TABLE(app_export_opts),
    APP_TABLE(app_rec_opts),	APP_TABLE(app_listen_opts), APP_TABLE(app_snapshot_opts),
    APP_TABLE(app_record_opts),
};

/* Where each of app_tables writes in struct cli_options. */
static const size_t app_blocks[] = {
    offsetof(struct cli_options, eng),	offsetof(struct cli_options, job),
    offsetof(struct cli_options, view), 0,
    offsetof(struct cli_options, play), offsetof(struct cli_options, exp),
    offsetof(struct cli_options, rec),	offsetof(struct cli_options, serve),
    offsetof(struct cli_options, snap), offsetof(struct cli_options, rec),
};

_Static_assert(ARRAY_SIZE(app_blocks) == ARRAY_SIZE(app_tables), "a block for each table");

#define APP_ENGINE (&app_tables[0])
#define APP_HELP (&app_engine_opts[0])

/* The block an option of table t goes to: a part of o, or a collector's. */
static void *cli_block(struct cli_options *o, const struct opt_table *t)
{
	if (t >= app_tables && t < app_tables + ARRAY_SIZE(app_tables))
		return (char *)o + app_blocks[t - app_tables];
	return options_edit(&o->eng, t);
}

/* The tables a command reads: the application's (only the engine's with
 * app false), then each collector's once, in the registry's order. n is the
 * room in out. */
static size_t cli_tables(unsigned cmd, bool app, const struct opt_table **out, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < (app ? ARRAY_SIZE(app_tables) : 1); i++)
		out[k++] = &app_tables[i];
	if (!(cmd & OPT_CMD_SAMPLE))
		return k;
	for (size_t i = 0; collector_registry[i] && k < n; i++) {
		const struct opt_table *t = collector_registry[i]->options;
		bool seen = !t;

		for (size_t j = 0; j < k && !seen; j++)
			seen = out[j] == t;
		if (!seen)
			out[k++] = t;
	}
	return k;
}

#define CLI_TABLES_MAX 24

#define CLI_HELP_COL 32 /* where the help text starts */
#define CLI_HELP_WIDTH 80

/* The help of one option, wrapped at 80 columns under its own column. */
static void cli_print_help(FILE *f, const char *left, const char *help)
{
	int col = fprintf(f, "  %s", left);
	const char *p = help;

	if (col > CLI_HELP_COL - 1) {
		fputc('\n', f);
		col = 0;
	}
	while (*p) {
		int room = CLI_HELP_WIDTH - CLI_HELP_COL, len = (int)strlen(p);

		if (len > room) {
			len = room;
			while (len > 0 && p[len] != ' ')
				len--;
			if (len == 0)
				len = room;
		}
		fprintf(f, "%*s%.*s\n", CLI_HELP_COL - col, "", len, p);
		col = 0;
		p += len;
		while (*p == ' ')
			p++;
	}
}

static void cli_print_table(const struct opt_table *t, unsigned cmd, FILE *f)
{
	bool head = false;

	for (size_t i = 0; i < t->nopts; i++) {
		const struct opt_desc *d = &t->opts[i];
		char left[96];

		if (!(d->cmds & cmd))
			continue;
		if (!head && t->title)
			fprintf(f, "\n%s options:\n", t->title);
		head = true;
		opt_format_left(d, left, sizeof(left));
		cli_print_help(f, left, d->help);
	}
}

void cli_usage(const struct cli_cmd *c, FILE *f)
{
	const struct opt_table *t[CLI_TABLES_MAX];
	size_t n = cli_tables(c->cmd, true, t, CLI_TABLES_MAX);

	fprintf(f, "Usage: asys %s [options]%s%s%s\n", c->sub, c->operands ? " " : "",
		c->operands ? c->operands : "", c->command ? " [-- command [args...]]" : "");
	if (c->about)
		fprintf(f, "\n%s\n", c->about);
	fprintf(f, "\nOptions:\n");
	for (size_t i = 0; i < n; i++)
		cli_print_table(t[i], c->cmd, f);
	if (c->command)
		fprintf(f, "\nA command after -- is started and its process tree followed.\n");
	if (c->epilog)
		fprintf(f, "\n%s\n", c->epilog);
}

/* The option named name[0..len) (or the short one, when len is 0) among
 * the tables, and its table. */
static const struct opt_desc *cli_find(const struct opt_table **t, size_t n, unsigned cmd,
				       const char *name, size_t len, char shrt,
				       const struct opt_table **owner)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < t[i]->nopts; j++) {
			const struct opt_desc *d = &t[i]->opts[j];

			if (!(d->cmds & cmd))
				continue;
			if (len ? strlen(d->lng) == len && !strncmp(d->lng, name, len)
				: d->shrt && d->shrt == shrt) {
				*owner = t[i];
				return d;
			}
		}
	}
	return NULL;
}

/* Applies d to block; 0, or CLI_EXIT_USAGE after saying why. */
static int cli_apply_block(const char *sub, const struct opt_table *t, const struct opt_desc *d,
			   const char *name, const char *val, void *block)
{
	char err[OPT_ERR_MAX];

	if (!block) {
		fprintf(stderr, "asys %s: no room for the options of %s\n", sub, t->name);
		return CLI_EXIT_USAGE;
	}
	if (opt_apply(d, name, val, block, err, sizeof(err)) == 0)
		return 0;
	/* a parser that echoed the value raw is escaped here too */
	if (str_needs_escape(err)) {
		char shown[OPT_ERR_MAX];

		fprintf(stderr, "asys %s: %s\n", sub, str_escape(shown, sizeof(shown), err, 0));
		return CLI_EXIT_USAGE;
	}
	fprintf(stderr, "asys %s: %s\n", sub, err);
	return CLI_EXIT_USAGE;
}

/* Applies d; 0, 1 for --help, or CLI_EXIT_USAGE after saying why. */
static int cli_apply(const struct cli_cmd *c, const struct opt_table *t, const struct opt_desc *d,
		     const char *name, const char *val, struct cli_options *o)
{
	if (d == APP_HELP)
		return 1;
	return cli_apply_block(c->sub, t, d, name, val, cli_block(o, t));
}

struct cli_state {
	const struct cli_cmd *c;
	const struct opt_table *t[CLI_TABLES_MAX];
	size_t nt;
	struct cli_options *o;
	int argc;
	char **argv;
};

/* One option word at argv[*i]; its value may be the next word. */
static int cli_option(struct cli_state *s, int *i)
{
	const char *a = s->argv[*i], *val = NULL, *sub = s->c->sub;
	const struct opt_table *owner = NULL;
	const struct opt_desc *d;
	char name[96], v[CLI_ECHO_BUF];
	bool lng = a[1] == '-';
	const char *eq = lng ? strchr(a + 2, '=') : NULL;
	size_t len = lng ? (eq ? (size_t)(eq - a - 2) : strlen(a + 2)) : 0;

	d = cli_find(s->t, s->nt, s->c->cmd, a + 2, len, lng ? 0 : a[1], &owner);
	if (!d || (!lng && a[2])) {
		char opt[CLI_ECHO_LEN + 1];

		snprintf(opt, sizeof(opt), "%.*s", lng ? (int)(len + 2) : (int)strlen(a), a);
		fprintf(stderr, "asys %s: unknown option '%s' (see 'asys %s --help')\n", sub,
			str_escape(v, sizeof(v), opt, CLI_ECHO_LEN), sub);
		return CLI_EXIT_USAGE;
	}
	if (d->shrt)
		snprintf(name, sizeof(name), "-%c/--%s", d->shrt, d->lng);
	else
		snprintf(name, sizeof(name), "--%s", d->lng);
	if (eq && !d->arg) {
		fprintf(stderr, "asys %s: option %s takes no value\n", sub, name);
		return CLI_EXIT_USAGE;
	}
	val = eq ? eq + 1 : NULL;
	if (d->arg && !val) {
		if (*i + 1 >= s->argc) {
			fprintf(stderr, "asys %s: option %s needs a value: %s\n", sub, name,
				d->arg);
			return CLI_EXIT_USAGE;
		}
		val = s->argv[++*i];
	}
	return cli_apply(s->c, owner, d, name, val, s->o);
}

/* After the options: the operands' count, then the collectors' hooks. */
static int cli_finish(struct cli_state *s)
{
	const struct cli_cmd *c = s->c;
	struct cli_options *o = s->o;

	if (o->nargs < c->min_args) {
		fprintf(stderr, "asys %s: no %s given; usage: asys %s %s\n", c->sub,
			c->min_args > 1 ? "files" : "recording", c->sub, c->operands);
		return CLI_EXIT_USAGE;
	}
	if (c->max_args >= 0 && o->nargs > c->max_args) {
		char v[CLI_ECHO_BUF];

		if (c->max_args == 0)
			fprintf(stderr, "asys %s: unexpected argument '%s'%s\n", c->sub,
				str_escape(v, sizeof(v), o->args[0], CLI_ECHO_LEN),
				c->command ? " (put a command after --)" : "");
		else
			fprintf(stderr, "asys %s: one %s at a time (got %d)\n", c->sub, c->operands,
				o->nargs);
		return CLI_EXIT_USAGE;
	}
	if (o->serve.web_config && !o->serve.listen && c->cmd != OPT_CMD_SERVE) {
		fprintf(stderr,
			"asys %s: --web-config configures the endpoint of --listen: give both\n",
			c->sub);
		return CLI_EXIT_USAGE;
	}
	for (size_t i = 0; i < s->nt; i++) {
		int rc = s->t[i]->early ? s->t[i]->early(&o->eng, c->sub, stdout) : -1;

		if (rc >= 0)
			return rc;
	}
	return -1;
}

int cli_parse(const struct cli_cmd *c, int argc, char **argv, struct cli_options *o)
{
	struct cli_state s = {.c = c, .o = o, .argc = argc, .argv = argv};

	s.nt = cli_tables(c->cmd, true, s.t, CLI_TABLES_MAX);
	o->args = argv + 1;
	o->nargs = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;

		if (!strcmp(a, "--")) {
			if (c->command) {
				if (i + 1 >= argc) {
					fprintf(stderr,
						"asys %s: '--' must be followed by a command\n",
						c->sub);
					return CLI_EXIT_USAGE;
				}
				o->eng.command = &argv[i + 1];
				break;
			}
			/* the rest are operands, even those that start with '-' */
			while (++i < argc)
				o->args[o->nargs++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			/* operands move to the front: they never overtake the reading */
			o->args[o->nargs++] = argv[i];
			continue;
		}
		rc = cli_option(&s, &i);
		if (rc == 1) {
			cli_usage(c, stdout);
			return 0;
		}
		if (rc)
			return rc;
	}
	return cli_finish(&s);
}

void cli_options_defaults(struct cli_options *o)
{
	memset(o, 0, sizeof(*o));
	options_defaults(&o->eng);
	settings_defaults(&o->view.ui);
	o->play.speed = 1.0;
	o->rec.fsync_s = 1.0;
	o->serve.peak_window_s = 15.0;
	o->snap.interval_s = 1.0;
}

int cli_set(struct asys_options *o, const char *lng, const char *val)
{
	const struct opt_table *t[CLI_TABLES_MAX], *owner = NULL;
	size_t n = cli_tables(OPT_CMD_SAMPLE, false, t, CLI_TABLES_MAX);
	const struct opt_desc *d = cli_find(t, n, ~0u, lng, strlen(lng), 0, &owner);
	char name[96];

	if (!d || d == APP_HELP) {
		fprintf(stderr, "cli_set: no option --%s\n", lng);
		return -ENOENT;
	}
	snprintf(name, sizeof(name), "--%s", lng);
	return cli_apply_block("test", owner, d, name, val,
			       owner == APP_ENGINE ? (void *)o : options_edit(o, owner))
		   ? -EINVAL
		   : 0;
}

int cli_set_quiet(unsigned cmd, struct cli_options *o, const char *lng, const char *val, char *err,
		  size_t n)
{
	const struct opt_table *t[CLI_TABLES_MAX], *owner = NULL;
	size_t nt = cli_tables(OPT_CMD_SAMPLE, true, t, CLI_TABLES_MAX);
	const struct opt_desc *d = cli_find(t, nt, ~0u, lng, strlen(lng), 0, &owner);
	struct cli_options scratch;
	bool on = true, taken;
	void *block;

	err[0] = '\0';
	if (!d || d == APP_HELP)
		return -ENOENT;
	/* a flag is written "key = true" in a file; false leaves the default */
	if (d->type == OPT_FLAG && opt_parse_bool(val, &on)) {
		opt_bad_value(err, n, lng, val, "true or false");
		return -EINVAL;
	}
	/* one the command does not take is checked all the same, so that a
	 * file means the same to every command */
	taken = (d->cmds & cmd) != 0;
	if (!taken)
		cli_options_defaults(&scratch);
	o = taken ? o : &scratch;
	block = cli_block(o, owner);
	if (!block) {
		snprintf(err, n, "no room for the options of %s", owner->name);
		return -EINVAL;
	}
	if (d->type == OPT_FLAG && !on)
		return taken ? 0 : 1;
	if (opt_apply(d, lng, d->type == OPT_FLAG ? NULL : val, block, err, n))
		return -EINVAL;
	return taken ? 0 : 1;
}
