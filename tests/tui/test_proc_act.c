/* SPDX-License-Identifier: GPL-2.0-only */
/* The process table's actions over the fixture of proc_fix.h: refused in a
 * replay, under ASYS_SYSROOT and for a process the user may not signal,
 * each with the reason; k sends a signal to a real child. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
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

/* The pid the scene reuses: not one of proc_scene.h's. */
#define REUSED 300

/* The next fork's pid is REUSED (in a pid namespace of our own, where no
 * one else forks). */
static bool next_pid_reused(void)
{
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && dprintf(fd, "%d", REUSED - 1) > 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* A child with SIGTERM's default action that waits; -1 if it did not get
 * REUSED. */
static pid_t sleeper(void)
{
	int ready[2];
	char c;
	pid_t pid;

	if (!next_pid_reused() || pipe(ready) < 0)
		return -1;
	pid = fork();
	if (!pid) {
		signal(SIGTERM, SIG_DFL);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (pid < 0 || read(ready[0], &c, 1) != 1 || pid != REUSED) {
		if (pid > 0)
			kill(pid, SIGKILL);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

static double start_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return NAN;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	for (int i = 3; p && i <= 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return NAN;
	return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

/* As pid 1 of a new pid namespace with its own /proc: k, Enter on the old
 * process; it ends and a new one gets its pid; y must say it ended and
 * send nothing, and F8 must not renice the new one. The exit status names
 * the step that failed; 99: the namespace could not be set up. */
static int reuse_scene(struct fix *f)
{
	double mp[5] = {1e6, 1e6, 0, 1, 1}, cpu[6] = {0, 0, NAN, 0, 0, NAN};
	struct proc_pane *s = f->p.priv;
	pid_t old, young;
	int status, nice0;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return 99;
	old = sleeper();
	if (old < 0)
		return 99;
	cpu[5] = start_of(old);
	store_unlock(f->st);
	feed(f->st, REC_LABEL, (uint32_t)f->ids[SC_MEMPROC], (uint64_t)old, 5000000000ull, NULL, 0,
	     "old-process");
	feed(f->st, REC_SAMPLE, (uint32_t)f->ids[SC_MEMPROC], (uint64_t)old, 5000000000ull, mp, 5,
	     NULL);
	feed(f->st, REC_SAMPLE, (uint32_t)f->ids[SC_CPU], (uint64_t)old, 5000000000ull, cpu, 6,
	     NULL);
	store_lock(f->st);
	keys(f, "/old-process");
	key(f, '\n');
	key(f, 'k');
	key(f, '\n');
	if (s->mode != PM_CONFIRM || s->act_pid != (uint64_t)old)
		return 1;
	kill(old, SIGKILL);
	waitpid(old, &status, 0);
	/* a clock tick later: the new process's start differs */
	usleep(20000);
	young = sleeper();
	if (young < 0)
		return 99;
	key(f, 'y');
	fprintf(stderr, "signal_reused_pid: y: %s\n", f->v.status);
	if (!strstr(f->v.status, "has ended: nothing sent") || strstr(f->v.status, "sent SIGTERM"))
		return 2;
	if (waitpid(young, &status, WNOHANG) != 0)
		return 3;
	errno = 0;
	nice0 = getpriority(PRIO_PROCESS, (id_t)young);
	key(f, KEY_F(8));
	fprintf(stderr, "signal_reused_pid: F8: %s\n", f->v.status);
	if (!strstr(f->v.status, "has ended") || getpriority(PRIO_PROCESS, (id_t)young) != nice0)
		return 4;
	kill(young, SIGKILL);
	waitpid(young, &status, 0);
	return 0;
}

/* The pid k chose is another process's by the time of y (pid reuse, made
 * with ns_last_pid in a pid namespace of the test's own): nothing is sent,
 * and the answer says the process has ended. Root only. */
START_TEST(signal_reused_pid)
{
	struct fix f;
	pid_t outer;
	int status = 0;

	if (!fix_open(&f, ALL))
		goto out;
	if (geteuid() != 0) {
		fprintf(stderr, "signal_reused_pid: needs root (a pid namespace), not checked\n");
		goto out;
	}
	outer = fork();
	ck_assert_int_ge(outer, 0);
	if (!outer) {
		pid_t init;

		if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0)
			_exit(99);
		init = fork();
		if (!init)
			_exit(reuse_scene(&f));
		if (init < 0 || waitpid(init, &status, 0) != init || !WIFEXITED(status))
			_exit(98);
		_exit(WEXITSTATUS(status));
	}
	ck_assert_int_eq(waitpid(outer, &status, 0), outer);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 99) {
		fprintf(stderr, "signal_reused_pid: no pid namespace here, not checked\n");
		goto out;
	}
	ck_assert_msg(WEXITSTATUS(status) == 0,
		      "pid reused between k and y: step %d failed (1: the question, 2: y "
		      "signalled or did not say it ended, 3: the new process ended, 4: F8)",
		      WEXITSTATUS(status));
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
	tcase_add_test(tc, signal_reused_pid);
	tcase_add_test(tc, sysroot_refuses);
	tcase_add_test(tc, signal_not_permitted);
	return tc;
}
