/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* Whom asys believes: trusted paths, and the environment when asys runs
 * with privileges. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "../check_run.h"

/* str_escape itself is tested byte by byte in test_core; here, what the
 * notes about ignored variables make of a hostile value. */
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
	tcase_add_test(tc, trusted_paths);
	tcase_add_test(tc, env_path_when_privileged);
	suite_add_tcase(s, tc);
	return check_run(s, NULL);
}
