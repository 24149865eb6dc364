/* SPDX-License-Identifier: GPL-2.0-only */
/* The process table of the memory pane (pane_mem.c), split by concern:
 * columns and cells (proc_columns.c), rows from the store (proc_rows.c), tree,
 * subtree and groups (proc_tree.c), keys (proc_keys.c), the signal and nice
 * dialogs (proc_signal.c), the details and environment views
 * (proc_detail.c). Only proc_act.c touches the live machine (/proc, kill,
 * setpriority): an action the user asked for, never a value shown in the
 * table, which comes from the store alone. */
#ifndef ASYS_PROC_H
#define ASYS_PROC_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem_rows.h"
#include "mem_sys.h"
#include "pane.h"
#include "widget.h"

enum proc_col_id {
	PC_PID,
	PC_USER,
	PC_STATE,
	PC_NICE,
	PC_CPU,
	PC_TIME,
	PC_RSS,
	PC_HWM,
	PC_MEMPCT,
	PC_THR,
	PC_PPU,
	PC_DEVICE,
	PC_PINNED,
	PC_ALLOC,
	PC_FAIL,
	PC_CONTAINER,
	PC_COMMAND,
	PC_N
};

enum col_kind {
	CK_PID,	      /* the entity itself */
	CK_LABEL,     /* the entity's label: the command line */
	CK_USER,      /* a uid, shown as a name */
	CK_BYTES,     /* view_value: a gauge's value, a counter's B/s */
	CK_COUNT,     /* view_value, as a scaled count */
	CK_FAIL,      /* gpurt: failed allocations, with the last size and age */
	CK_STATE,     /* the state letter's code */
	CK_NICE,      /* a signed number */
	CK_CPU,	      /* utime + stime per second, x100 */
	CK_TIME,      /* utime + stime so far, as htop's TIME+ */
	CK_MEMPCT,    /* rss over mem.sys total */
	CK_PPU,	      /* sm summed over the process's devices */
	CK_CONTAINER, /* proc.cpu's label */
};

struct proc_col {
	struct tui_col col;
	int stream; /* enum stream_id; -1: mem.proc's entity or label */
	int field;  /* the field's index constant in that stream */
	enum col_kind kind;
	int drop; /* narrow panes drop the highest first; 0 = never */
};

extern const struct proc_col proc_cols[PC_N];

/* What takes the keys: the table, or a dialog or view over it. */
enum proc_mode {
	PM_TABLE,
	PM_SIGNAL,  /* the list of signals */
	PM_CONFIRM, /* send it? */
	PM_ENV,	    /* the environment, scrollable */
	PM_DETAIL,  /* the details of one process */
};

/* The streams of the table, and what it reads of them. */
enum proc_stream { PS_MEM, PS_CPU, PS_SYS, PS_GPURT, PS_PPU, PS_THREAD, PS_N };

struct proc_ids {
	int id[PS_N];		   /* stream ids, -1: not registered */
	int f[PC_N];		   /* each column's field in its stream, -1: none */
	int uid, ppid;		   /* mem.proc's */
	int stime, kthread, start; /* proc.cpu's */
	double total;		   /* mem.sys total, for MEM%; NaN unknown */
	bool gpurt_any;		   /* some process used the runtime */
};

#define PROC_UID_CACHE 64
#define PROC_COLLAPSED_MAX 64
#define PROC_TEXT_MAX (256 * 1024) /* environment or details text */

struct proc_uid {
	double uid;
	char name[33];
};

/* The CPU time a frame showed of a process or thread, for the CPU% of the
 * next (proc_rows.c): both columns of a frame come from the same samples. */
struct proc_rate {
	uint64_t key; /* pid; a thread's tid with PROC_RATE_THREAD */
	uint64_t ns;  /* the sample shown */
	double time;  /* its utime + stime, s */
	double pct;   /* its CPU%: the change since the sample shown before */
};
#define PROC_RATE_THREAD (1ull << 63)

/* A process an action was asked for: a pidfd and the start time. */
struct proc_target {
	uint64_t pid;
	unsigned long long start; /* clock ticks after boot (/proc/PID/stat) */
	int fd;			  /* pidfd; -1: none (a kernel before 5.3) */
	bool held;
};

struct proc_pane {
	struct tui_table table;
	struct tui_col vis_cols[PC_N];
	int vis[PC_N]; /* visible column -> proc_cols index */
	int nvis;
	int sort_id; /* proc_cols index of the sort column */
	bool sort_desc;
	bool sort_chosen; /* the user chose it: no default applies */
	uint64_t sel_pid; /* the selection stays on this process; 0 = none */
	bool follow;	  /* F: ... and it is marked so */
	struct proc_row *rows, *tmp;
	size_t nrows, cap;
	uint64_t *ents;
	size_t ecap;
	struct proc_uid uids[PROC_UID_CACHE];
	int nuids, uid_next;
	struct mem_sys sys;
	struct mem_kept kept; /* the last rows, for when every process is gone */
	bool exited;	      /* the rows shown are the kept ones */
	size_t hidden;	      /* rows the filter or K hid */
	size_t nprocs;	      /* processes among the rows (not threads) */
	bool any_container;   /* some process has a CONTAINER label */
	struct proc_ids ids;  /* of the last load */
	/* the CPU times of the last load (sorted by key) and of this one */
	struct proc_rate *rate, *rate_next;
	size_t nrate, nrate_next, rate_cap;

	bool tree, kthreads, threads, grouped;
	uint64_t subtree; /* c: only this process and its descendants; 0 = all */
	uint64_t collapsed[PROC_COLLAPSED_MAX];
	int ncollapsed;
	char filter[64];
	bool filter_edit;
	char search[64];
	bool search_edit;
	int search_step; /* a jump to make at the next draw: +1 next, -1 previous */

	enum proc_mode mode;
	int sig_sel;
	uint64_t act_pid;	   /* the process a dialog or view is about */
	struct proc_target target; /* PM_SIGNAL, PM_CONFIRM: the one k chose */
	char act_name[96];
	char *text; /* PM_ENV / PM_DETAIL: lines, '\n' between */
	int text_top, text_lines;
	char msg[256]; /* the status line until the next key */
};

/* proc_columns.c */
void proc_ids_resolve(struct proc_ids *x, const struct view *v);
void proc_row_values(const struct proc_ids *x, const struct view *v, struct proc_row *r,
		     const struct series *proc, const struct series *cpu);
double proc_cpu_value(const struct view *v, const struct series *se, int fu, int fs, bool rate);
const char *proc_user_name(struct proc_pane *s, double uid);
bool proc_col_present(const struct proc_pane *s, const struct view *v, int ci);
void proc_choose_columns(struct proc_pane *s, const struct view *v, int cols);
void proc_fmt_time(char *buf, size_t n, double seconds);
void proc_fmt_cell(char *buf, size_t n, const struct proc_row *r, int ci);
void proc_sort(struct proc_pane *s, struct proc_row *rows, size_t n);

/* proc_rows.c: this frame's rows, filtered, then ordered (tree, groups). */
int proc_grow(struct proc_pane *s, size_t need);
void proc_load(struct proc_pane *s, const struct view *v);
bool proc_row_matches(const struct proc_row *r, const char *text);

/* proc_tree.c */
void proc_tree_order(struct proc_pane *s);
void proc_subtree_only(struct proc_pane *s);
void proc_group(struct proc_pane *s);
bool proc_collapsed(const struct proc_pane *s, uint64_t pid);
void proc_collapse_set(struct proc_pane *s, uint64_t pid, bool on);
/* "│ ├─" before a tree row's command, "" when flat. */
void proc_tree_prefix(const struct view *v, const struct proc_row *r, char *buf, size_t n);

/* proc_keys.c */
bool proc_key(struct proc_pane *s, struct pane *p, int ch, struct view *v);
void proc_search_apply(struct proc_pane *s);
int proc_page(const struct pane *p);

/* proc_signal.c: the dialogs, over the table */
void proc_signal_open(struct proc_pane *s, const struct view *v, const struct proc_row *r);
bool proc_signal_key(struct proc_pane *s, int ch);
void proc_signal_draw(struct proc_pane *s, WINDOW *w, const struct view *v);
void proc_nice(struct proc_pane *s, const struct view *v, const struct proc_row *r, int delta);

/* proc_detail.c: the views in place of the table */
void proc_env_open(struct proc_pane *s, const struct view *v, const struct proc_row *r);
void proc_detail_open(struct proc_pane *s, const struct view *v, const struct proc_row *r);
bool proc_text_key(struct proc_pane *s, int ch, int page);
void proc_text_draw(struct proc_pane *s, WINDOW *w, struct view *v);
void proc_text_close(struct proc_pane *s);

/* proc_act.c: the live machine */
/* /proc/PID/NAME through the sysroot into buf (NUL-terminated; NULs inside
 * kept); bytes or -errno. */
ssize_t proc_act_read(uint64_t pid, const char *name, char *buf, size_t n);
/* Whether /proc is this machine's (no ASYS_SYSROOT): pids of a fixture
 * tree are not this machine's processes. */
bool proc_act_here(void);
/* pidfd_send_signal(2) and getpriority/setpriority(2): 0 or -errno.
 * Holds pid's process from the moment it was chosen (a pidfd) if it
 * started at start_s (seconds after boot as proc.cpu's "start"; NaN: not
 * known), so that an answer given later reaches it or nothing, never a
 * process that got its pid since. -ESRCH: it is gone. */
int proc_act_hold(struct proc_target *t, uint64_t pid, double start_s);
void proc_act_release(struct proc_target *t);
/* -ESRCH when the held process has ended, whoever has its pid now */
int proc_act_signal(struct proc_target *t, int sig);
int proc_act_nice(uint64_t pid, double start_s, int delta, int *now);

#endif
