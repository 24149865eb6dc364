/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* asysrc(5): the files read before the command line, each bad line one
 * file:line message with the rest applied, hostile files refused, the
 * command line and --no-config over the files, /etc before the user's,
 * and the writer keeping every line it does not own. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asysrc.h"
#include "cli.h"
#include "ppu_cli.h"
#include "util.h"
#include "../check_run.h"

static char dir[64];	  /* XDG_CONFIG_HOME */
static char user[128];	  /* its asys/asysrc */
static char root[128];	  /* ASYS_SYSROOT */
static char system_[192]; /* root/etc/asys/asysrc */

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void put(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void setup(void)
{
	char sub[256];

	snprintf(dir, sizeof(dir), "/tmp/asys-rc.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(user, sizeof(user), "%s/asys/asysrc", dir);
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(system_, sizeof(system_), "%s/etc/asys/asysrc", root);
	snprintf(sub, sizeof(sub), "%s/asys", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(mkdir(root, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/etc", root);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/etc/asys", root);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	setenv("XDG_CONFIG_HOME", dir, 1);
	setenv("ASYS_SYSROOT", root, 1);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("ASYS_SYSROOT");
}

/* Loads for top with argv {"top", args...}; the messages into msgs. */
static struct asysrc *load(struct cli_options *o, char **argv, char *msgs, size_t n)
{
	int argc = 0;
	struct asysrc *c;

	while (argv[argc])
		argc++;
	cli_options_defaults(o);
	c = asysrc_load(o, OPT_CMD_TOP, argc, argv);
	ck_assert_ptr_nonnull(c);
	asysrc_messages(c, msgs, n);
	return c;
}

static double ppu_freq(const struct asys_options *o)
{
	return ppu_opts_of(o)->frequency;
}

START_TEST(good_file)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], *argv[] = {"top", NULL};
	struct asysrc *c;

	put(user, "# a comment\n"
		  "; another\n"
		  "\n"
		  "[options]\n"
		  "delay = 2.5\n"
		  "  sample   =   system-wide  \r\n"
		  "nic-all = true\n"
		  "no-color = false\n"
		  "speed = 2\n"
		  "ppu-metrics-set = compute\n"
		  "[Display]\n"
		  "panes = mem, cpu, -ppu\n"
		  "columns = command, RSS, -user\n"
		  "theme = MONO\n"
		  "units = B/s\n"
		  "sort = thr\n"
		  "sort-order = ascending\n");
	c = load(&o, argv, msgs, sizeof(msgs));
	ck_assert_str_eq(msgs, "");
	ck_assert_double_eq(o.eng.delay_s, 2.5);
	ck_assert_int_eq(o.eng.scope, SCOPE_SYSTEM_WIDE);
	ck_assert(o.view.nic_show_all);
	ck_assert(!o.view.no_color);
	/* speed is replay's: checked, not applied to top */
	ck_assert_double_eq(o.play.speed, 1.0);
	/* a string is kept by pointer into the file's text, which c holds */
	ck_assert_str_eq(ppu_opts_of(&o.eng)->set, "compute");
	ck_assert_int_eq(o.view.ui.panes.n, 3);
	ck_assert_str_eq(o.view.ui.panes.item[0].name, "mem");
	ck_assert(o.view.ui.panes.item[2].hidden);
	ck_assert_str_eq(o.view.ui.columns.item[0].name, "COMMAND");
	ck_assert(o.view.ui.columns.item[2].hidden);
	ck_assert_int_eq(o.view.ui.theme, SET_THEME_MONO);
	ck_assert(o.view.ui.bytes);
	ck_assert_str_eq(o.view.ui.sort, "THR");
	ck_assert(o.view.ui.sort_asc);
	asysrc_free(c);
}
END_TEST

/* Every kind of bad line: one message each, exactly, and the good lines
 * around them all apply. */
START_TEST(bad_lines)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], want[ASYSRC_NOTES_MAX], *argv[] = {"top", NULL};
	static const char text[] = "garbage\n"			    /* 1 */
				   "= 3\n"			    /* 2 */
				   "delay =\n"			    /* 3 */
				   "delay = 0.01\n"		    /* 4 */
				   "dealy = 2\n"		    /* 5 */
				   "output = x.asys\n"		    /* 6 */
				   "ppu-metrics-device = help\n"    /* 7 */
				   "ppu-metrics-frequency = 5000\n" /* 8: good */
				   "speed = 100\n"		    /* 9 */
				   "nic-all = maybe\n"		    /* 10 */
				   "[display\n"			    /* 11 */
				   "theme = light\n"		    /* 12: ignored with 11 */
				   "[bogus]\n"			    /* 13 */
				   "x = 1\n"			    /* 14: ignored with 13 */
				   "[display]\n"		    /* 15 */
				   "theme = neon\n"		    /* 16 */
				   "panes = ppu, foo\n"		    /* 17 */
				   "panes = ppu, ppu\n"		    /* 18 */
				   "columns = RSS, -WHAT\n"	    /* 19 */
				   "units = b/s\n"		    /* 20 */
				   "sort = size\n"		    /* 21 */
				   "colour = red\n"		    /* 22 */
				   "a\0b = 1\n"			    /* 23 */
				   "units = bytes\n"		    /* 24: good */
				   "[options]\n"		    /* 25 */
				   "delay = 3\n";		    /* 26: good */
	struct asysrc *c;

	write_file(user, text, sizeof(text) - 1);
	c = load(&o, argv, msgs, sizeof(msgs));
	snprintf(want, sizeof(want),
		 "%1$s:1: expected 'key = value', '[section]' or a comment\n"
		 "%1$s:2: no key before '='\n"
		 "%1$s:3: no value for delay\n"
		 "%1$s:4: bad value '0.01' for delay: expected seconds between 0.1 and 3600\n"
		 "%1$s:5: unknown key 'dealy' in [options]\n"
		 "%1$s:6: output is for one run: give it on the command line\n"
		 "%1$s:7: ppu-metrics-device = help lists the choices: ask on the command line\n"
		 "%1$s:9: bad value '100' for speed: expected a speed between 1/64 and 64, such "
		 "as 0.5, 1/4 or 8\n"
		 "%1$s:10: bad value 'maybe' for nic-all: expected true or false\n"
		 "%1$s:11: a section header needs a closing ']': its lines are ignored\n"
		 "%1$s:13: unknown section [bogus]: its lines are ignored (expected [options] or "
		 "[display])\n"
		 "%1$s:16: bad value 'neon' for theme: expected default, light, midnight or mono\n"
		 "%1$s:17: bad value for panes: unknown name 'foo'\n"
		 "%1$s:18: bad value for panes: 'ppu' named twice\n"
		 "%1$s:19: bad value for columns: unknown name 'WHAT'\n"
		 "%1$s:20: bad value 'b/s' for units: expected bits or bytes\n",
		 user);
	/* sixteen kept; the rest counted */
	ck_assert_int_eq(asysrc_message_count(c), 19);
	ck_assert_msg(!strncmp(msgs, want, strlen(want)), "got:\n%s\nwant:\n%s", msgs, want);
	ck_assert_ptr_nonnull(strstr(msgs, "3 more messages not shown"));
	ck_assert_double_eq(o.eng.delay_s, 3);
	ck_assert_double_eq(ppu_freq(&o.eng), 5000);
	ck_assert(o.view.ui.bytes);
	ck_assert_int_eq(o.view.ui.theme, SET_THEME_DEFAULT);
	ck_assert_int_eq(o.view.ui.panes.n, 0);
	asysrc_free(c);
}
END_TEST

START_TEST(bad_lines_tail)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], want[1024], *argv[] = {"top", NULL};
	static const char text[] = "[display]\n"
				   "sort = size\n"
				   "colour = red\n"
				   "a\0b = 1\n"
				   "sort-order = up\n";
	struct asysrc *c;

	write_file(user, text, sizeof(text) - 1);
	c = load(&o, argv, msgs, sizeof(msgs));
	snprintf(want, sizeof(want),
		 "%1$s:2: bad value 'size' for sort: expected a column of the process table, "
		 "such as RSS\n"
		 "%1$s:3: unknown key 'colour' in [display]\n"
		 "%1$s:4: a NUL byte: line ignored\n"
		 "%1$s:5: bad value 'up' for sort-order: expected descending or ascending",
		 user);
	ck_assert_str_eq(msgs, want);
	asysrc_free(c);
}
END_TEST

START_TEST(long_line)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], want[512], *argv[] = {"top", NULL};
	char *text = malloc(8192);
	struct asysrc *c;

	ck_assert_ptr_nonnull(text);
	memcpy(text, "delay = ", 8);
	memset(text + 8, '1', 2000);
	strcpy(text + 2008, "\n[display]\ntheme = light\n");
	put(user, text);
	free(text);
	c = load(&o, argv, msgs, sizeof(msgs));
	snprintf(want, sizeof(want), "%s:1: line longer than 1024 bytes: ignored", user);
	ck_assert_str_eq(msgs, want);
	ck_assert_double_eq(o.eng.delay_s, 1.0);
	ck_assert_int_eq(o.view.ui.theme, SET_THEME_LIGHT);
	asysrc_free(c);
}
END_TEST

START_TEST(hostile_files)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], want[512], real[192], *argv[] = {"top", NULL};
	char *big = malloc(ASYSRC_FILE_MAX + 16);
	struct asysrc *c;

	/* a symbolic link is not followed */
	snprintf(real, sizeof(real), "%s/real", dir);
	put(real, "delay = 7\n");
	ck_assert_int_eq(symlink(real, user), 0);
	c = load(&o, argv, msgs, sizeof(msgs));
	snprintf(want, sizeof(want), "%s: a symbolic link: not read (name the file itself)", user);
	ck_assert_str_eq(msgs, want);
	ck_assert_double_eq(o.eng.delay_s, 1.0);
	/* ...nor written through */
	o.eng.delay_s = 2;
	ck_assert_int_eq(
	    asysrc_save(c, o.eng.delay_s, &o.view.ui, SET_CH_DELAY, msgs, sizeof(msgs)), -ELOOP);
	ck_assert_str_eq(slurp(real), "delay = 7\n");
	asysrc_free(c);
	unlink(user);
	/* a file past the bound is not read at all */
	ck_assert_ptr_nonnull(big);
	memset(big, '#', ASYSRC_FILE_MAX + 16);
	memcpy(big, "delay = 7\n", 10);
	write_file(user, big, ASYSRC_FILE_MAX + 16);
	free(big);
	c = load(&o, argv, msgs, sizeof(msgs));
	snprintf(want, sizeof(want), "%s: larger than 64 KiB: not read", user);
	ck_assert_str_eq(msgs, want);
	ck_assert_double_eq(o.eng.delay_s, 1.0);
	asysrc_free(c);
	/* a directory in its place */
	unlink(user);
	ck_assert_int_eq(mkdir(user, 0700), 0);
	c = load(&o, argv, msgs, sizeof(msgs));
	snprintf(want, sizeof(want), "%s: not a regular file: not read", user);
	ck_assert_str_eq(msgs, want);
	asysrc_free(c);
}
END_TEST

/* The command line overrides the file; --no-config reads neither file. */
START_TEST(command_line_wins)
{
	static const struct cli_cmd top = {.sub = "top", .cmd = OPT_CMD_TOP, .command = true};
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX];
	char *argv[] = {"top", "-d", "0.5", "--ppu-metrics-frequency", "20", NULL};
	char *noc[] = {"top", "--no-config", NULL};
	char *after[] = {"top", "--", "x", "--no-config", NULL};
	struct asysrc *c;

	put(user, "delay = 4\nppu-metrics-frequency = 5000\n[display]\ntheme = light\n");
	c = load(&o, argv, msgs, sizeof(msgs));
	ck_assert_int_eq(cli_parse(&top, 5, argv, &o), -1);
	ck_assert_double_eq(o.eng.delay_s, 0.5);
	ck_assert_double_eq(ppu_freq(&o.eng), 20);
	ck_assert_int_eq(o.view.ui.theme, SET_THEME_LIGHT);
	asysrc_free(c);

	c = load(&o, noc, msgs, sizeof(msgs));
	ck_assert_int_eq(cli_parse(&top, 2, noc, &o), -1);
	ck_assert(o.no_config);
	ck_assert_double_eq(o.eng.delay_s, 1.0);
	ck_assert_int_eq(o.view.ui.theme, SET_THEME_DEFAULT);
	asysrc_free(c);
	/* after --, it is the command's word */
	c = load(&o, after, msgs, sizeof(msgs));
	ck_assert_double_eq(o.eng.delay_s, 4);
	asysrc_free(c);
}
END_TEST

/* /etc/asys/asysrc first, then the user's over it. */
START_TEST(system_then_user)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], *argv[] = {"top", NULL};
	struct asysrc *c;

	put(system_, "delay = 3\nnic-all = true\n[display]\ntheme = midnight\nunits = bytes\n");
	put(user, "delay = 2\n[display]\ntheme = light\n");
	c = load(&o, argv, msgs, sizeof(msgs));
	ck_assert_str_eq(msgs, "");
	ck_assert_str_eq(asysrc_system_path(c), system_);
	ck_assert_str_eq(asysrc_user_path(c), user);
	ck_assert_double_eq(o.eng.delay_s, 2);
	ck_assert(o.view.nic_show_all);
	ck_assert_int_eq(o.view.ui.theme, SET_THEME_LIGHT);
	ck_assert(o.view.ui.bytes);
	asysrc_free(c);
	/* a bad line of the system file names that file */
	put(system_, "delay = x\n");
	c = load(&o, argv, msgs, sizeof(msgs));
	ck_assert_ptr_nonnull(strstr(msgs, "/etc/asys/asysrc:1: bad value 'x' for delay"));
	asysrc_free(c);
}
END_TEST

/* Saving replaces the keys it owns, keeps comments, unknown keys and bad
 * lines, adds what is missing, and leaves no temporary file. */
START_TEST(save_keeps_lines)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], cmd[256], *argv[] = {"top", NULL};
	struct asysrc *c;
	struct stat st;
	FILE *p;
	int n = -1;

	put(user, "# mine\n"
		  "delay = 4 \n"
		  "nic-all = true\n"
		  "future-key = 1\n"
		  "\n"
		  "[display]\n"
		  "; keep me\n"
		  "theme = light\n"
		  "\n"
		  "[other]\n"
		  "z = 1\n");
	c = load(&o, argv, msgs, sizeof(msgs));
	o.eng.delay_s = 0.5;
	o.view.ui.theme = SET_THEME_MONO;
	o.view.ui.bytes = true;
	o.view.ui.columns.n = 1;
	strcpy(o.view.ui.columns.item[0].name, "USER");
	o.view.ui.columns.item[0].hidden = true;
	ck_assert_int_eq(
	    asysrc_save(c, o.eng.delay_s, &o.view.ui,
			SET_CH_DELAY | SET_CH_THEME | SET_CH_UNITS | SET_CH_COLUMNS | SET_CH_SORT,
			msgs, sizeof(msgs)),
	    0);
	ck_assert_str_eq(slurp(user), "# mine\n"
				      "delay = 0.5\n"
				      "nic-all = true\n"
				      "future-key = 1\n"
				      "\n"
				      "[display]\n"
				      "; keep me\n"
				      "theme = mono\n"
				      "columns = -USER\n"
				      "units = bytes\n"
				      "sort = CPU%\n"
				      "sort-order = descending\n"
				      "\n"
				      "[other]\n"
				      "z = 1\n");
	ck_assert_int_eq(stat(user, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	snprintf(cmd, sizeof(cmd), "ls -A '%s/asys' | wc -l", dir);
	p = popen(cmd, "r");
	ck_assert(p && fscanf(p, "%d", &n) == 1);
	pclose(p);
	ck_assert_int_eq(n, 1);
	asysrc_free(c);
	/* what it wrote reads back the same */
	c = load(&o, argv, msgs, sizeof(msgs));
	ck_assert_double_eq(o.eng.delay_s, 0.5);
	ck_assert_int_eq(o.view.ui.theme, SET_THEME_MONO);
	asysrc_free(c);
}
END_TEST

/* No file and no directory yet: both are made, the directory 0700; a
 * replay writes nothing. */
START_TEST(save_creates)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], sub[192], *argv[] = {"top", NULL};
	struct asysrc *c;
	struct stat st;

	snprintf(sub, sizeof(sub), "%s/asys", dir);
	ck_assert_int_eq(rmdir(sub), 0);
	snprintf(sub, sizeof(sub), "%s/fresh", dir);
	setenv("XDG_CONFIG_HOME", sub, 1);
	c = load(&o, argv, msgs, sizeof(msgs));
	o.view.ui.panes.n = 1;
	strcpy(o.view.ui.panes.item[0].name, "cpu");
	ck_assert_int_eq(
	    asysrc_save(c, o.eng.delay_s, &o.view.ui, SET_CH_PANES, msgs, sizeof(msgs)), 0);
	ck_assert_ptr_nonnull(strstr(msgs, "settings saved to "));
	strcat(sub, "/asys");
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	strcat(sub, "/asysrc");
	ck_assert_ptr_nonnull(strstr(slurp(sub), "\n[display]\npanes = cpu\n"));
	asysrc_free(c);

	c = asysrc_new(OPT_CMD_REPLAY);
	ck_assert_int_eq(
	    asysrc_save(c, o.eng.delay_s, &o.view.ui, SET_CH_PANES, msgs, sizeof(msgs)), -EPERM);
	ck_assert_str_eq(msgs, "settings are not saved while replaying");
	asysrc_free(c);
}
END_TEST

/* As root (privileged), a user's file where another user could have put
 * it is neither read nor written, and a message says why. */
START_TEST(privileged_untrusted)
{
	struct cli_options o;
	char msgs[ASYSRC_NOTES_MAX], sub[192], *argv[] = {"top", NULL};
	struct asysrc *c;

	if (getuid() != 0) {
		fprintf(stderr, "privileged_untrusted: not root, not checked\n");
		return;
	}
	put(user, "delay = 7\n");
	snprintf(sub, sizeof(sub), "%s/asys", dir);
	ck_assert_int_eq(chown(sub, 65534, 65534), 0);
	c = load(&o, argv, msgs, sizeof(msgs));
	ck_assert_double_eq(o.eng.delay_s, 1.0);
	ck_assert_str_eq(asysrc_user_path(c), "");
	ck_assert_msg(strstr(msgs, "asysrc: not used: asys runs with privileges") != NULL, "%s",
		      msgs);
	o.eng.delay_s = 2;
	ck_assert_int_lt(
	    asysrc_save(c, o.eng.delay_s, &o.view.ui, SET_CH_DELAY, msgs, sizeof(msgs)), 0);
	ck_assert_ptr_nonnull(strstr(msgs, "settings not saved"));
	ck_assert_str_eq(slurp(user), "delay = 7\n");
	asysrc_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("asysrc");
	TCase *tc = tcase_create("asysrc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, good_file);
	tcase_add_test(tc, bad_lines);
	tcase_add_test(tc, bad_lines_tail);
	tcase_add_test(tc, long_line);
	tcase_add_test(tc, hostile_files);
	tcase_add_test(tc, command_line_wins);
	tcase_add_test(tc, system_then_user);
	tcase_add_test(tc, save_keeps_lines);
	tcase_add_test(tc, save_creates);
	tcase_add_test(tc, privileged_untrusted);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
