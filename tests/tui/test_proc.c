/* The process table of the memory pane over a store fed with fixed values
 * (proc_scene.h): each column's figure, the orders (sort, tree, groups),
 * the filter, the search, kernel threads and threads, and the actions'
 * refusals; a signal sent to a real child. */
#include "config.h"

#include <check.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pane.h"
#include "proc.h"
#include "record.h"
#include "store.h"
#include "stream.h"
#include "sysroot.h"
#include "widget.h"
#include "store_feed.h"
#include "proc_scene.h"
#include "../check_run.h"

extern const struct pane_class mem_pane;

#define ALL ((1u << SC_N) - 1)
#define ROWS 30
#define COLS 160

struct fix {
	struct stream_table *t;
	struct store *st;
	int ids[SC_N];
	struct view v;
	struct pane p;
	SCREEN *scr;
	FILE *out, *in;
	WINDOW *w;
};

static void put_store(void *ctx, int slot, uint64_t entity, uint64_t ts, const double *v, int n,
		      const char *label)
{
	struct fix *f = ctx;

	feed(f->st, label ? REC_LABEL : REC_SAMPLE, (uint32_t)f->ids[slot], entity, ts, v, n,
	     label);
}

/* The scene's five ticks, one a second, viewed just after the last. */
static bool fix_open(struct fix *f, unsigned want)
{
	memset(f, 0, sizeof(*f));
	setlocale(LC_ALL, "C");
	f->t = stream_table_new();
	ck_assert_int_eq(sc_register(f->t, f->ids, want), 0);
	f->st = store_new(f->t, 1000000000ull);
	ck_assert_ptr_nonnull(f->st);
	for (int k = 1; k <= 5; k++)
		sc_tick(put_store, f, f->ids, k, (uint64_t)k * 1000000000ull);
	f->v.store = f->st;
	f->v.streams = f->t;
	f->v.end_ns = 5500000000ull;
	f->v.window_ns = 1000000000ull;
	f->p.cls = &mem_pane;
	f->p.focused = true;
	f->p.rows = ROWS;
	f->p.cols = COLS;
	store_lock(f->st);
	f->p.priv = mem_pane.init(&f->v);
	f->out = fopen("/dev/null", "w");
	f->in = fopen("/dev/null", "r");
	f->scr = f->out && f->in ? newterm("xterm", f->out, f->in) : NULL;
	if (!f->scr) {
		fprintf(stderr, "test_proc: no xterm terminfo here, not checked\n");
		return false;
	}
	set_term(f->scr);
	f->w = newwin(ROWS, COLS, 0, 0);
	return f->w != NULL;
}

static void fix_close(struct fix *f)
{
	if (f->w)
		delwin(f->w);
	if (f->scr) {
		endwin();
		delscreen(f->scr);
	}
	if (f->out)
		fclose(f->out);
	if (f->in)
		fclose(f->in);
	mem_pane.fini(f->p.priv);
	store_unlock(f->st);
	store_free(f->st);
	stream_table_free(f->t);
}

static void draw(struct fix *f)
{
	werase(f->w);
	f->v.status[0] = '\0';
	mem_pane.draw(&f->p, f->w, &f->v);
}

static void key(struct fix *f, int ch)
{
	ck_assert(mem_pane.key(&f->p, ch, &f->v));
	draw(f);
}

static void keys(struct fix *f, const char *s)
{
	for (; *s; s++)
		key(f, *s);
}

static void line(struct fix *f, int y, char *buf)
{
	mvwinnstr(f->w, y, 0, buf, COLS);
	for (int n = (int)strlen(buf); n > 0 && buf[n - 1] == ' ';)
		buf[--n] = '\0';
}

/* The screen row whose COMMAND holds text, or -1. */
static int row_of(struct fix *f, const char *text)
{
	char buf[COLS + 1];

	for (int y = 0; y < ROWS; y++) {
		line(f, y, buf);
		if (strstr(buf, text))
			return y;
	}
	return -1;
}

/* The text of column col in screen row y, trimmed. */
static const char *cell_raw(struct fix *f, int y, int col, bool raw)
{
	static char out[COLS + 1];
	const struct proc_pane *s = f->p.priv;
	char buf[COLS + 1];
	int x = 0, w = -1;

	ck_assert_int_ge(y, 0);
	for (int c = 0; c < s->nvis; c++) {
		if (s->vis[c] == col) {
			w = s->vis_cols[c].width ? s->vis_cols[c].width : COLS - x;
			break;
		}
		x += s->vis_cols[c].width + 1;
	}
	if (w < 0)
		return NULL; /* not shown */
	mvwinnstr(f->w, y, 0, buf, COLS);
	snprintf(out, sizeof(out), "%.*s", w, buf + x);
	for (int n = (int)strlen(out); n > 0 && out[n - 1] == ' ';)
		out[--n] = '\0';
	return raw ? out : out + strspn(out, " ");
}

static const char *cell(struct fix *f, int y, int col)
{
	return cell_raw(f, y, col, false);
}

/* The COMMAND column of the table rows, top to bottom, '|'-joined. */
static void commands(struct fix *f, char *buf, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int y = 3; y < ROWS; y++) {
		const char *c = cell_raw(f, y, PC_COMMAND, true);

		if (!c || !*c)
			break;
		off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? "|" : "", c);
	}
}

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
	tcase_add_test(tc, replay_refuses);
	tcase_add_test(tc, signal_child);
	tcase_add_test(tc, deep_tree);
	tcase_add_test(tc, sysroot_refuses);
	tcase_add_test(tc, signal_not_permitted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(proc_suite(), NULL);
}
