/* Whom asys believes: escaping of outside strings, trusted paths, and the
 * environment when asys runs with privileges. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "strsafe.h"

START_TEST(escape_controls)
{
	char b[64];

	ck_assert_str_eq(str_escape(b, sizeof(b), "\033[2Jhi\n", 0), "\\x1b[2Jhi\\n");
	ck_assert_str_eq(str_escape(b, sizeof(b), "\033]0;t\a", 0), "\\x1b]0;t\\x07");
	ck_assert_str_eq(str_escape(b, sizeof(b), "tab\there\r", 0), "tab\\there\\r");
	ck_assert_str_eq(str_escape(b, sizeof(b), "del\177", 0), "del\\x7f");
	/* UTF-8 text passes; C1 controls (U+009B is CSI) and bad bytes do not */
	ck_assert_str_eq(str_escape(b, sizeof(b), "caf\xc3\xa9 \xe2\x86\x92", 0),
			 "caf\xc3\xa9 \xe2\x86\x92");
	ck_assert_str_eq(str_escape(b, sizeof(b),
				    "\xc2\x9b"
				    "1m",
				    0),
			 "\\xc2\\x9b1m");
	ck_assert_str_eq(str_escape(b, sizeof(b), "\xff\xc3", 0), "\\xff\\xc3");
	ck_assert_str_eq(str_escape(b, sizeof(b), "\xe0\x80\x80", 0), "\\xe0\\x80\\x80");
	ck_assert_str_eq(str_escape(b, sizeof(b), NULL, 0), "");
}
END_TEST

START_TEST(escape_caps_length)
{
	char b[16], big[200];

	ck_assert_str_eq(str_escape(b, sizeof(b), "0123456789abcdefghij", 0), "0123456789ab...");
	ck_assert_str_eq(str_escape(big, sizeof(big), "0123456789abcdefghij", 5), "01234...");
	/* an escape is never split, and a multibyte character never cut */
	ck_assert_str_eq(str_escape(b, 8, "\033\033\033", 0), "\\x1b...");
	ck_assert_str_eq(str_escape(b, 9, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 0),
			 "\xc3\xa9\xc3\xa9...");
	ck_assert_str_eq(str_escape(b, 1, "abc", 0), "");
	ck_assert_uint_le(strlen(str_escape(b, 4, "abcdef", 0)), 3);
}
END_TEST

static char *mkdir_temp(void)
{
	char *d = strdup("/tmp/asys-env-XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

START_TEST(trusted_paths)
{
	char why[200], path[256], *d;

	ck_assert_int_eq(env_trusted_path("/", why, sizeof(why)), 0);
	ck_assert_int_eq(env_trusted_path("relative/lib.so", why, sizeof(why)), -EPERM);
	/* a path only root could create is as safe as one that exists */
	ck_assert_int_eq(env_trusted_path("/nonexistent-asys/ppu", why, sizeof(why)), 0);
	/* under /tmp anyone could create it later */
	ck_assert_int_ne(env_trusted_path("/tmp/nonexistent-asys/lib.so", why, sizeof(why)), 0);
	if (geteuid() != 0)
		return; /* the rest needs files of root's and of another user */
	d = mkdir_temp();
	snprintf(path, sizeof(path), "%s/lib.so", d);
	fclose(fopen(path, "w"));
	ck_assert_int_eq(env_trusted_path(path, why, sizeof(why)), 0);
	ck_assert_int_eq(chmod(path, 0666), 0);
	ck_assert_int_eq(env_trusted_path(path, why, sizeof(why)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "writable by others"));
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(chown(d, 65534, 65534), 0);
	ck_assert_int_eq(env_trusted_path(path, why, sizeof(why)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "directory above"));
	ck_assert_int_eq(chown(d, 0, 0), 0);
	ck_assert_int_eq(chown(path, 65534, 65534), 0);
	ck_assert_int_eq(env_trusted_path(path, why, sizeof(why)), -EPERM);
	/* a link from a safe place to an unsafe file is judged by the file */
	snprintf(path, sizeof(path), "%s/link.so", d);
	ck_assert_int_eq(symlink("lib.so", path), 0);
	ck_assert_int_eq(env_trusted_path(path, why, sizeof(why)), -EPERM);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lib.so", d);
	unlink(path);
	rmdir(d);
	free(d);
}
END_TEST

/* Root holds every capability: a variable naming a path of another user's
 * is dropped with a note; one of root's is kept. */
START_TEST(env_path_when_privileged)
{
	char notes[ENV_NOTES_MAX], *d;

	if (geteuid() != 0)
		return;
	ck_assert(env_privileged());
	env_reset_notes();
	d = mkdir_temp();
	setenv("ASYS_TEST_PATH", d, 1);
	ck_assert_str_eq(env_path("ASYS_TEST_PATH"), d);
	ck_assert_int_eq(env_note_count(), 0);
	ck_assert_int_eq(chown(d, 65534, 65534), 0);
	ck_assert_ptr_null(env_path("ASYS_TEST_PATH"));
	ck_assert_int_eq(env_note_count(), 1);
	env_notes(notes, sizeof(notes));
	ck_assert_msg(strstr(notes, "ASYS_TEST_PATH=") &&
			  strstr(notes, "ignored: asys runs with privileges"),
		      "%s", notes);
	/* said once, however often it is read */
	ck_assert_ptr_null(env_path("ASYS_TEST_PATH"));
	ck_assert_int_eq(env_note_count(), 1);
	/* values are escaped in the note */
	setenv("ASYS_TEST_PATH", "/tmp/\033[2J", 1);
	env_reset_notes();
	ck_assert_ptr_null(env_path("ASYS_TEST_PATH"));
	env_notes(notes, sizeof(notes));
	ck_assert_ptr_null(strchr(notes, '\033'));
	unsetenv("ASYS_TEST_PATH");
	rmdir(d);
	free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("env");
	TCase *tc = tcase_create("env");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, escape_controls);
	tcase_add_test(tc, escape_caps_length);
	tcase_add_test(tc, trusted_paths);
	tcase_add_test(tc, env_path_when_privileged);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
