/* SPDX-License-Identifier: GPL-2.0-only */
/* needs: none */
/* The process table of the memory pane over a store fed with fixed values
 * (proc_scene.h): each column's figure, the orders (sort, tree, groups),
 * the filter, the search, kernel threads and threads. The actions' cases
 * are in test_proc_act.c. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "store_feed.h"
#include "proc_fix.h"
#include "../check_run.h"

START_TEST(columns)
{
	struct fix f;
	int y;

	if (!fix_open(&f, ALL))
		goto out;
	draw(&f);
	y = row_of(&f, "python train.py");
	ck_assert_str_eq(cell(&f, y, PC_PID), "100");
	ck_assert_str_eq(cell(&f, y, PC_USER), "root");
	ck_assert_str_eq(cell(&f, y, PC_STATE), "R");
	ck_assert_str_eq(cell(&f, y, PC_NICE), "5");
	/* utime 0.5 s/s + stime 0.25 s/s */
	ck_assert_str_eq(cell(&f, y, PC_CPU), "75.0");
	/* 60 + 2.5 + 1.23 + 1.25 s */
	ck_assert_str_eq(cell(&f, y, PC_TIME), "1:04.98");
	ck_assert_str_eq(cell(&f, y, PC_RSS), "1.0G");
	ck_assert_str_eq(cell(&f, y, PC_MEMPCT), "25.0");
	ck_assert_str_eq(cell(&f, y, PC_THR), "8");
	/* 30 % on PPU 0 and 12.5 % on PPU 1 */
	ck_assert_str_eq(cell(&f, y, PC_PPU), "42.5");
	ck_assert_str_eq(cell(&f, y, PC_CONTAINER), "pod 1a2b3c4d");
	y = row_of(&f, "python worker.py");
	ck_assert_str_eq(cell(&f, y, PC_NICE), "-2");
	ck_assert_str_eq(cell(&f, y, PC_CPU), "25.0");
	ck_assert_str_eq(cell(&f, y, PC_TIME), "1h02:04");
	ck_assert_str_eq(cell(&f, y, PC_MEMPCT), "12.5");
	ck_assert_str_eq(cell(&f, y, PC_PPU), "20.0");
	y = row_of(&f, "vim notes.txt");
	ck_assert_str_eq(cell(&f, y, PC_STATE), "T");
	ck_assert_str_eq(cell(&f, y, PC_CPU), "3.0");
	y = row_of(&f, "/sbin/init");
	ck_assert_str_eq(cell(&f, y, PC_PPU), "-");
	ck_assert_str_eq(cell(&f, y, PC_CONTAINER), "-");
out:
	fix_close(&f);
}
END_TEST

START_TEST(time_format)
{
	char b[32];

	proc_fmt_time(b, sizeof(b), 0);
	ck_assert_str_eq(b, "0:00.00");
	proc_fmt_time(b, sizeof(b), 59.994);
	ck_assert_str_eq(b, "0:59.99");
	proc_fmt_time(b, sizeof(b), 754.5);
	ck_assert_str_eq(b, "12:34.50");
	proc_fmt_time(b, sizeof(b), 3723.45);
	ck_assert_str_eq(b, "1h02:03");
	proc_fmt_time(b, sizeof(b), 100 * 3600 + 5);
	ck_assert_str_eq(b, "100h");
	proc_fmt_time(b, sizeof(b), NAN);
	ck_assert_str_eq(b, "n/a");
}
END_TEST

/* By CPU% at first; M by RSS; kernel threads only after K. */
START_TEST(sort_and_kthreads)
{
	struct fix f;
	struct proc_pane *s;
	char buf[1024];

	if (!fix_open(&f, ALL))
		goto out;
	draw(&f);
	commands(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "python train.py|python worker.py|/sbin/init|vim notes.txt|bash");
	key(&f, 'M');
	commands(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "python train.py|python worker.py|/sbin/init|bash|vim notes.txt");
	key(&f, 'K');
	ck_assert_int_ge(row_of(&f, "[kthreadd]"), 0);
	/* its values are loaded once it is shown (a hidden one's are not) */
	ck_assert_str_eq(cell(&f, row_of(&f, "[kthreadd]"), PC_STATE), "S");
	ck_assert_str_eq(cell(&f, row_of(&f, "[kthreadd]"), PC_CPU), "0.0");
	ck_assert_str_eq(cell(&f, row_of(&f, "[kthreadd]"), PC_TIME), "0:01.00");
	ck_assert_ptr_nonnull(strstr(f.v.status, "kernel threads shown"));
	key(&f, 'K');
	ck_assert_int_lt(row_of(&f, "[kthreadd]"), 0);
	/* F: the selection stays on vim (last by RSS) as P and M move it */
	key(&f, KEY_END);
	key(&f, 'F');
	key(&f, 'P');
	s = f.p.priv;
	ck_assert_uint_eq(s->rows[s->table.selected].pid, 201);
	ck_assert_int_eq(s->table.selected, 3);
	key(&f, 'M');
	ck_assert_uint_eq(s->rows[s->table.selected].pid, 201);
	ck_assert_int_eq(s->table.selected, 4);
	mem_pane.footer(&f.p, &f.v, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "follow"), "footer: %s", buf);
out:
	fix_close(&f);
}
END_TEST

START_TEST(tree)
{
	struct fix f;
	char buf[1024];

	if (!fix_open(&f, ALL))
		goto out;
	key(&f, 't');
	commands(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "/sbin/init|"
			      "|- python train.py|"
			      "|  `- python worker.py|"
			      "`- bash|"
			      "   `- vim notes.txt");
	/* - folds the selected branch (train.py, second row) */
	key(&f, KEY_DOWN);
	key(&f, '-');
	commands(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "/sbin/init|"
			      "|-+python train.py|"
			      "`- bash|"
			      "   `- vim notes.txt");
	key(&f, '+');
	ck_assert_int_ge(row_of(&f, "worker.py"), 0);
	/* c: train.py and its children only */
	key(&f, 'c');
	commands(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "python train.py|"
			      "`- python worker.py");
	key(&f, 'c');
	ck_assert_int_ge(row_of(&f, "bash"), 0);
out:
	fix_close(&f);
}
END_TEST

START_TEST(filter_and_search)
{
	struct fix f;
	char buf[1024], title[256];

	if (!fix_open(&f, ALL))
		goto out;
	draw(&f);
	keys(&f, "/pyth");
	commands(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "python train.py|python worker.py");
	mem_pane.title_extra(&f.p, &f.v, title, sizeof(title));
	ck_assert_msg(strstr(title, "filter: pyth"), "title: %s", title);
	key(&f, '\n');
	/* kept after Enter; a user's name matches too */
	ck_assert_int_lt(row_of(&f, "bash"), 0);
	key(&f, 27);
	ck_assert_int_ge(row_of(&f, "bash"), 0);
	keys(&f, "/root");
	key(&f, '\n');
	commands(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "python train.py|python worker.py|/sbin/init|vim notes.txt|bash");
	key(&f, 27);
	/* F3: the selection jumps to the match; n to the next one */
	key(&f, KEY_F(3));
	keys(&f, "python");
	key(&f, '\n');
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->table.selected, 0);
	key(&f, 'n');
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->table.selected, 1);
	key(&f, 'n');
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->table.selected, 0);
	key(&f, 'N');
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->table.selected, 1);
	/* F3 again: the next match */
	key(&f, KEY_F(3));
	ck_assert_int_eq(((struct proc_pane *)f.p.priv)->table.selected, 0);
	key(&f, 27);
out:
	fix_close(&f);
}
END_TEST

/* G: a row per container, its CPU%, PPU% and RSS the exact sums. */
START_TEST(groups)
{
	struct fix f;
	int y;

	if (!fix_open(&f, ALL))
		goto out;
	key(&f, 'G');
	y = row_of(&f, "pod 1a2b3c4d (2 processes)");
	ck_assert_str_eq(cell(&f, y, PC_CPU), "100.0");
	ck_assert_str_eq(cell(&f, y, PC_PPU), "62.5");
	ck_assert_str_eq(cell(&f, y, PC_RSS), "1.5G");
	ck_assert_str_eq(cell(&f, y, PC_MEMPCT), "37.5");
	ck_assert_str_eq(cell(&f, y, PC_PID), "2");
	y = row_of(&f, "user@1000.service (2 processes)");
	ck_assert_str_eq(cell(&f, y, PC_CPU), "3.0");
	ck_assert_str_eq(cell(&f, y, PC_PPU), "-");
	y = row_of(&f, "(no container) (1 process)");
	ck_assert_str_eq(cell(&f, y, PC_CPU), "10.0");
	ck_assert_int_eq(row_of(&f, "pod 1a2b3c4d (2"), 3); /* the busiest first */
out:
	fix_close(&f);
}
END_TEST

/* H: thread rows when proc.thread is there, else a message. */
START_TEST(threads)
{
	struct fix f;
	int y;

	if (!fix_open(&f, ALL))
		goto out;
	draw(&f);
	ck_assert_int_lt(row_of(&f, "dataloader"), 0);
	key(&f, 'H');
	y = row_of(&f, "dataloader");
	ck_assert_str_eq(cell(&f, y, PC_CPU), "10.0");
	ck_assert_str_eq(cell(&f, y, PC_STATE), "S");
	ck_assert_str_eq(cell(&f, y, PC_PID), "102");
	/* its process's memory is on its process's row */
	ck_assert_str_eq(cell(&f, y, PC_RSS), "");
	ck_assert_str_eq(cell(&f, y, PC_NICE), "");
	key(&f, 't');
	/* under train.py, after worker.py (busier) */
	ck_assert_int_eq(row_of(&f, "dataloader"), row_of(&f, "worker.py") + 1);
out:
	fix_close(&f);
}
END_TEST

/* A recording without proc.cpu: no S, NI, CPU% or TIME+ columns, sorted by
 * RSS; H and K say why they do nothing. */
START_TEST(absent_streams)
{
	struct fix f;
	char head[COLS + 1];

	if (!fix_open(&f, 1u << SC_MEMSYS | 1u << SC_MEMPROC))
		goto out;
	draw(&f);
	line(&f, 2, head);
	ck_assert_msg(strstr(head, "PID USER") && !strstr(head, "CPU%") && !strstr(head, "TIME+") &&
			  !strstr(head, "PPU%") && !strstr(head, "CONTAINER"),
		      "header: %s", head);
	ck_assert_msg(strstr(head, "MEM%"), "header: %s", head);
	ck_assert_int_ge(row_of(&f, "[kthreadd]"), 0); /* not known to be one */
	key(&f, 'H');
	ck_assert_ptr_nonnull(strstr(f.v.status, "--process-threads"));
	key(&f, 'P');
	ck_assert_ptr_nonnull(strstr(f.v.status, "no CPU% column"));
	ck_assert_uint_eq(mem_pane.keys(&f.p, &f.v) & PANE_KEY_PROC_CPU, 0);
out:
	fix_close(&f);
}
END_TEST

/* Given rows for the bars and not for a table, the pane uses all of them:
 * one row holds both bars, two hold one each, and three a table header and
 * one process below one line of bars. Its footer names the table's sort
 * before any table is drawn. */
START_TEST(short_pane_leaves_no_blank_row)
{
	struct fix f;
	char l0[COLS + 1], l1[COLS + 1], l2[COLS + 1];
	WINDOW *w;

	if (!fix_open(&f, ALL))
		goto out;
	/* no table drawn yet: the footer still names the sort it will have */
	mem_pane.footer(&f.p, &f.v, l0, sizeof(l0));
	ck_assert_msg(strstr(l0, "sort: CPU%"), "footer: %s", l0);
	for (int rows = 1; rows <= 3; rows++) {
		w = newwin(rows, COLS, 0, 0);
		ck_assert_ptr_nonnull(w);
		f.p.rows = rows;
		mem_pane.draw(&f.p, w, &f.v);
		mvwinnstr(w, 0, 0, l0, COLS);
		ck_assert_msg(strstr(l0, "Mem"), "%d rows: %s", rows, l0);
		if (rows == 1)
			ck_assert_msg(strstr(l0, "Swp"), "1 row: %s", l0);
		if (rows == 2) {
			mvwinnstr(w, 1, 0, l1, COLS);
			ck_assert_msg(strstr(l1, "Swp") && !strstr(l0, "Swp"), "2 rows: %s / %s",
				      l0, l1);
		}
		if (rows == 3) {
			mvwinnstr(w, 1, 0, l1, COLS);
			mvwinnstr(w, 2, 0, l2, COLS);
			ck_assert_msg(strstr(l1, "PID") && strspn(l2, " ") < strlen(l2),
				      "3 rows: %s / %s", l1, l2);
		}
		delwin(w);
	}
out:
	fix_close(&f);
}
END_TEST

/* 8,000 processes (the store keeps 8,192 a stream) in one chain, each the child of the previous,
 * and two that are each other's parent: the tree holds every row, in chain order, without
 * recursion, and the cycle's rows come last. */
START_TEST(deep_tree)
{
	struct fix f;
	struct proc_pane *s;
	enum { N = 8000 };

	if (!fix_open(&f, 1u << SC_MEMSYS | 1u << SC_MEMPROC))
		goto out;
	store_unlock(f.st); /* feeding takes the lock */
	for (uint64_t pid = 1000; pid < 1000 + N + 2; pid++) {
		/* the last two: each other's parent */
		double ppid = pid < 1000 + N ? (double)(pid - 1)
					     : (double)(pid == 1000 + N ? pid + 1 : pid - 1);
		double mp[5] = {4096, 4096, 0, ppid, 1};

		feed(f.st, REC_SAMPLE, (uint32_t)f.ids[SC_MEMPROC], pid, 5000000000ull, mp, 5,
		     NULL);
	}
	store_lock(f.st);
	key(&f, 't');
	s = f.p.priv;
	ck_assert_uint_eq(s->nrows, SC_NPROCS + N + 2);
	for (size_t i = 1; i < s->nrows; i++)
		if (s->rows[i].pid > 1000 && s->rows[i].pid < 1000 + N)
			ck_assert_uint_eq(s->rows[i - 1].pid, s->rows[i].pid - 1);
	ck_assert_uint_ge(s->rows[s->nrows - 1].pid, 1000 + N);
	ck_assert_uint_ge(s->rows[s->nrows - 2].pid, 1000 + N);
out:
	fix_close(&f);
}
END_TEST

static Suite *proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, columns);
	tcase_add_test(tc, time_format);
	tcase_add_test(tc, sort_and_kthreads);
	tcase_add_test(tc, tree);
	tcase_add_test(tc, filter_and_search);
	tcase_add_test(tc, groups);
	tcase_add_test(tc, threads);
	tcase_add_test(tc, absent_streams);
	tcase_add_test(tc, deep_tree);
	tcase_add_test(tc, short_pane_leaves_no_blank_row);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, proc_act_tcase());
	return s;
}

int main(void)
{
	return check_run(proc_suite(), NULL);
}
