/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The command line: the parser every subcommand shares, the values of the
 * application's options, and the option tables of the registry. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_values.h"
#include "registry.h"
#include "util.h"
#include "../check_run.h"

extern const struct collector mem_collector;

static const struct cli_cmd t_top = {.sub = "top", .cmd = OPT_CMD_TOP, .command = true};
static const struct cli_cmd t_record = {.sub = "record", .cmd = OPT_CMD_RECORD, .command = true};
static const struct cli_cmd t_replay = {
    .sub = "replay", .cmd = OPT_CMD_REPLAY, .operands = "FILE", .min_args = 1, .max_args = -1};

/* cli_parse with stderr kept quiet; its return value */
static int t_parse(const struct cli_cmd *c, char **argv, struct cli_options *o)
{
	int argc = 0, rc;
	FILE *saved = stderr, *null = fopen("/dev/null", "w");

	while (argv[argc])
		argc++;
	cli_options_defaults(o);
	stderr = null ? null : saved;
	rc = cli_parse(c, argc, argv, o);
	stderr = saved;
	if (null)
		fclose(null);
	return rc;
}

START_TEST(cli_values)
{
	struct cli_options o;
	char *ok[] = {"top",
		      "-d",
		      "0.5",
		      "--host-memory-sampling=false",
		      "-s",
		      "none",
		      "--nic-device-include",
		      "bond,eth",
		      "--",
		      "sleep",
		      "1",
		      NULL};
	char *badre[] = {"top", "--nic-device-include", "a(", NULL};
	char *badd[] = {"top", "-d", "0.01", NULL};
	char *replay_ok[] = {"replay", "a.asys", "-d",	    "2", "--speed",
			     "1/4",    "--",	 "-b.asys", NULL};
	char *replay_bad[] = {"replay", "-d", "1x", "a.asys", NULL};
	char *replay_none[] = {"replay", "-d", "1", NULL};
	char *top_operand[] = {"top", "stray", NULL};

	ck_assert_int_eq(t_parse(&t_top, ok, &o), -1);
	ck_assert_double_eq(o.eng.delay_s, 0.5);
	ck_assert_int_eq(o.eng.scope, SCOPE_NONE);
	ck_assert_str_eq(o.eng.command[0], "sleep");
	/* --host-memory-sampling=false: the mem collector samples once a refresh */
	ck_assert_double_eq(mem_collector.frequency(&o.eng), 2.0);
	ck_assert_int_eq(t_parse(&t_top, badre, &o), CLI_EXIT_USAGE);
	ck_assert_int_eq(t_parse(&t_top, badd, &o), CLI_EXIT_USAGE);
	ck_assert_int_eq(t_parse(&t_top, top_operand, &o), CLI_EXIT_USAGE);
	/* replay: the same parser, operands anywhere, -- before a name with a dash */
	ck_assert_int_eq(t_parse(&t_replay, replay_ok, &o), -1);
	ck_assert_int_eq(o.nargs, 2);
	ck_assert_str_eq(o.args[0], "a.asys");
	ck_assert_str_eq(o.args[1], "-b.asys");
	ck_assert_double_eq(o.eng.delay_s, 2.0);
	ck_assert_double_eq(o.play.speed, 0.25);
	ck_assert_int_eq(t_parse(&t_replay, replay_bad, &o), CLI_EXIT_USAGE);
	ck_assert_int_eq(t_parse(&t_replay, replay_none, &o), CLI_EXIT_USAGE);
}
END_TEST

/* Sizes only with a byte unit, durations only with a time unit, and what
 * could be either refused. */
START_TEST(cli_sizes_and_durations)
{
	static const struct {
		const char *opt, *val;
		int rc;
	} cases[] = {
	    {"--duration", "10m", -1},	 {"--duration", "90s", -1},   {"--duration", "2h", -1},
	    {"--duration", "30", 2},	 {"--duration", "10M", 2},    {"--duration", "10MB", 2},
	    {"--max-size", "512MB", -1}, {"--max-size", "1GiB", -1},  {"--max-size", "262144B", -1},
	    {"--max-size", "512M", 2},	 {"--max-size", "100000", 2}, {"--max-size", "10min", 2},
	    {"--rotate", "64MB", -1},	 {"--rotate", "10min", -1},   {"--rotate", "10m", 2},
	    {"--rotate", "10M", 2},	 {"--rotate", "10", 2},	      {"--rotate", "10x", 2},
	    {"--max-size", "2KB", 2},	 {"--max-size", "255KB", 2},
	};
	struct cli_options o;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[] = {"record", (char *)cases[i].opt, (char *)cases[i].val, "-o", "x",
				NULL};

		ck_assert_msg(t_parse(&t_record, argv, &o) == cases[i].rc, "%s %s", cases[i].opt,
			      cases[i].val);
	}
	{
		char *argv[] = {"record", "--rotate",	"64MB", "--max-size",
				"1GiB",	  "--duration", "10m",	NULL};

		ck_assert_int_eq(t_parse(&t_record, argv, &o), -1);
		ck_assert_uint_eq(o.rec.rotate_size, 64ull << 20);
		ck_assert_uint_eq(o.rec.max_size, 1ull << 30);
		ck_assert_double_eq(o.rec.duration_s, 600);
	}
	ck_assert_int_eq(cli_unit_kind("10m"), CLI_UNIT_AMBIGUOUS);
	ck_assert_int_eq(cli_unit_kind("10KiB"), CLI_UNIT_SIZE);
	ck_assert_int_eq(cli_unit_kind("1.5h"), CLI_UNIT_TIME);
	ck_assert_int_eq(cli_unit_kind("7"), CLI_UNIT_NONE);
}
END_TEST

/* The tables of the registry: each fits its block, has defaults and help,
 * and no two options a command takes share a name. */
START_TEST(cli_tables_are_sound)
{
	static const unsigned cmds[] = {OPT_CMD_TOP, OPT_CMD_RECORD};
	const struct opt_table *seen[16];
	size_t nseen = 0;

	for (size_t i = 0; collector_registry[i]; i++) {
		const struct opt_table *t = collector_registry[i]->options;
		bool dup = false;

		if (!t)
			continue;
		for (size_t j = 0; j < nseen; j++)
			dup |= seen[j] == t;
		if (dup)
			continue;
		ck_assert_uint_lt(nseen, ARRAY_SIZE(seen));
		seen[nseen++] = t;
		ck_assert_msg(t->size <= OPT_BLOCK_SIZE, "%s: block of %zu", t->name, t->size);
		ck_assert_ptr_nonnull(t->defaults);
		ck_assert_ptr_nonnull(t->title);
		for (size_t k = 0; k < t->nopts; k++) {
			ck_assert_msg(t->opts[k].help && *t->opts[k].help, "%s", t->opts[k].lng);
			ck_assert_msg((t->opts[k].arg == NULL) == (t->opts[k].type == OPT_FLAG),
				      "%s", t->opts[k].lng);
		}
	}
	ck_assert_uint_le(nseen, OPT_BLOCKS_MAX);
	for (size_t c = 0; c < ARRAY_SIZE(cmds); c++) {
		/* every option, set once by name, lands in its own table's block */
		for (size_t a = 0; a < nseen; a++)
			for (size_t k = 0; k < seen[a]->nopts; k++)
				for (size_t b = 0; b < nseen; b++)
					for (size_t m = 0; m < seen[b]->nopts; m++)
						ck_assert_msg(
						    (a == b && k == m) ||
							!(seen[a]->opts[k].cmds & cmds[c]) ||
							!(seen[b]->opts[m].cmds & cmds[c]) ||
							(strcmp(seen[a]->opts[k].lng,
								seen[b]->opts[m].lng) &&
							 (!seen[a]->opts[k].shrt ||
							  seen[a]->opts[k].shrt !=
							      seen[b]->opts[m].shrt)),
						    "--%s twice", seen[a]->opts[k].lng);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, cli_values);
	tcase_add_test(tc, cli_sizes_and_durations);
	tcase_add_test(tc, cli_tables_are_sound);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
