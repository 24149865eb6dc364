/* The process table's actions over the fixture of proc_fix.h: refused in a
 * replay, under ASYS_SYSROOT and for a process the user may not signal,
 * each with the reason; k sends a signal to a real child. */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"
#include "sysroot.h"
#include "store_feed.h"
#include "proc_fix.h"

/* A replay refuses k, F7, F8 and e, and says why. */
START_TEST(replay_refuses)
{
	struct fix f;

	if (!fix_open(&f, ALL))
		goto out;
	f.v.recorded = true;
	draw(&f);
	ck_assert_uint_eq(mem_pane.keys(&f.p, &f.v) & PANE_KEY_PROC_LIVE, 0);
	key(&f, 'k');
	ck_assert_msg(strstr(f.v.status, "not in a replay"), "status: %s", f.v.status);
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->mode, PM_TABLE);
	key(&f, KEY_F(7));
	ck_assert_msg(strstr(f.v.status, "not in a replay"), "status: %s", f.v.status);
	key(&f, 'e');
	ck_assert_msg(strstr(f.v.status, "not in a replay"), "status: %s", f.v.status);
	/* details still open, with what was recorded */
	key(&f, '\n');
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->mode, PM_DETAIL);
	ck_assert_int_ge(row_of(&f, "pod 1a2b3c4d"), 0);
	ck_assert_int_ge(row_of(&f, "cgroup    (not recorded)"), 0);
	ck_assert_int_ge(row_of(&f, "PPUs      0,1"), 0);
	key(&f, 27);
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->mode, PM_TABLE);
out:
	fix_close(&f);
}
END_TEST

/* k on a real child: the list, SIGTERM first, the question, and the child
 * ends by SIGTERM; a process that is gone gives the errno in words. */
START_TEST(signal_child)
{
	struct fix f;
	pid_t child;
	int status = 0, ready[2];
	char c;
	double mp[5] = {1e6, 1e6, 0, 1, 1};

	if (!fix_open(&f, ALL))
		goto out;
	ck_assert_int_eq(pipe(ready), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		/* not curses' handler, inherited (it signals the whole group):
		 * the default action, in place before the parent may send */
		signal(SIGTERM, SIG_DFL);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	store_unlock(f.st); /* feeding takes the lock */
	feed(f.st, REC_LABEL, (uint32_t)f.ids[SC_MEMPROC], (uint64_t)child, 5000000000ull, NULL, 0,
	     "sleeping-child");
	feed(f.st, REC_SAMPLE, (uint32_t)f.ids[SC_MEMPROC], (uint64_t)child, 5000000000ull, mp, 5,
	     NULL);
	store_lock(f.st);
	keys(&f, "/sleeping-child");
	key(&f, '\n');
	key(&f, 'k');
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->mode, PM_SIGNAL);
	ck_assert_int_ge(row_of(&f, "SIGTERM"), 0);
	key(&f, '\n');
	ck_assert_int_ge(row_of(&f, "Send SIGTERM to"), 0);
	key(&f, 'n'); /* not now */
	ck_assert_msg(strstr(f.v.status, "no signal sent"), "status: %s", f.v.status);
	/* F8: one step nicer; e: its environment (inherited from this test) */
	key(&f, KEY_F(8));
	ck_assert_msg(strstr(f.v.status, "now has nice"), "status: %s", f.v.status);
	key(&f, 'e');
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->mode, PM_ENV);
	ck_assert_ptr_nonnull(strstr(((struct proc_pane *)f.p.priv)->text, "PATH="));
	ck_assert_int_ge(row_of(&f, "Environment of"), 0);
	key(&f, 27);
	key(&f, 'k');
	key(&f, '\n');
	/* never anything but the child */
	ck_assert_uint_eq(((struct proc_pane *)f.p.priv)->act_pid, (uint64_t)child);
	key(&f, 'y');
	ck_assert_msg(strstr(f.v.status, "sent SIGTERM"), "status: %s", f.v.status);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	/* the child is gone now: its row is still in the store */
	key(&f, 'k');
	ck_assert_msg(strstr(f.v.status, "No such process"), "status: %s", f.v.status);
	key(&f, KEY_F(8));
	ck_assert_msg(strstr(f.v.status, "No such process"), "status: %s", f.v.status);
	key(&f, 'e');
	ck_assert_msg(strstr(f.v.status, "cannot read /proc/"), "status: %s", f.v.status);
out:
	fix_close(&f);
}
END_TEST

/* Under ASYS_SYSROOT the pids are the tree's: k and F8 are refused. */
START_TEST(sysroot_refuses)
{
	struct fix f;

	if (!fix_open(&f, ALL))
		goto out;
	sysroot_set("/tmp");
	draw(&f);
	key(&f, 'k');
	ck_assert_msg(strstr(f.v.status, "ASYS_SYSROOT"), "status: %s", f.v.status);
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->mode, PM_TABLE);
	key(&f, KEY_F(8));
	ck_assert_msg(strstr(f.v.status, "ASYS_SYSROOT"), "status: %s", f.v.status);
	sysroot_set(NULL);
out:
	fix_close(&f);
}
END_TEST

/* A process the user may not signal: refused before the list, with the
 * errno in words (signal 0 asks; nothing is sent). */
START_TEST(signal_not_permitted)
{
	struct fix f;

	if (!fix_open(&f, ALL))
		goto out;
	/* as nobody when root: pid 1 is then not ours (only in a forked test:
	 * the rest of the suite keeps its privileges) */
	if (geteuid() == 0 && getenv("CK_FORK") && !strcmp(getenv("CK_FORK"), "no")) {
		fprintf(stderr, "signal_not_permitted: CK_FORK=no, not checked\n");
		goto out;
	}
	if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0)) {
		fprintf(stderr, "signal_not_permitted: cannot become nobody, not checked\n");
		goto out;
	}
	keys(&f, "/init");
	key(&f, '\n');
	key(&f, 'k');
	ck_assert_msg(strstr(f.v.status, "k: cannot signal 1: Operation not permitted"),
		      "status: %s", f.v.status);
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->mode, PM_TABLE);
out:
	fix_close(&f);
}
END_TEST

TCase *proc_act_tcase(void)
{
	TCase *tc = tcase_create("actions");

	tcase_add_test(tc, replay_refuses);
	tcase_add_test(tc, signal_child);
	tcase_add_test(tc, sysroot_refuses);
	tcase_add_test(tc, signal_not_permitted);
	return tc;
}
