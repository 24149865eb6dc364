/* SPDX-License-Identifier: GPL-2.0-only */
/* Internals shared by memproc.c (rows, reports, the system-wide scan),
 * memtree.c (the process tree) and memthread.c (proc.thread). Not an
 * interface for anything else. */
#ifndef ASYS_MEMPROC_INT_H
#define ASYS_MEMPROC_INT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "catalogue.h"
#include "memproc.h"
#include "proc_api.h"

#define MEM_PROCS_MAX (1 << 22) /* the kernel's PID_MAX_LIMIT */
#define MEM_TREE_MAX 4096
#define MEM_LABEL_MAX 256
#define MEM_LABEL_REFRESH 16 /* re-read a cmdline every N reports (setproctitle) */
/* status is re-read when the process ran or pages were reclaimed, else
 * every N reports: another process can still change its memory (truncate a
 * file it maps, say) */
#define MEM_STATUS_REFRESH 16
/* /proc is listed at least every N reports (memscan.c) */
#define MEM_LIST_REFRESH 16
/* Kept fds at most, whatever RLIMIT_NOFILE allows: each holds a page of
 * kernel memory (its seq_file buffer) for as long as it is open. */
#define MEM_FD_CAP 4096

/* The values of mem.proc, proc.cpu and proc.thread, at the catalogue's
 * places; the collector's short names for them. */
enum {
	MP_RSS = MEM_PROC_RSS,
	MP_HWM = MEM_PROC_HWM,
	MP_UID = MEM_PROC_UID,
	MP_PPID = MEM_PROC_PPID,
	MP_THREADS = MEM_PROC_THREADS,
	MP_NVALS = MEM_PROC_NFIELDS
};
enum {
	PC_UTIME = PROC_CPU_UTIME,
	PC_STIME = PROC_CPU_STIME,
	PC_STATE = PROC_CPU_STATE,
	PC_NICE = PROC_CPU_NICE,
	PC_KTHREAD = PROC_CPU_KTHREAD,
	PC_START = PROC_CPU_START,
	PC_NVALS = PROC_CPU_NFIELDS
};
enum {
	PT_UTIME = PROC_THREAD_UTIME,
	PT_STIME = PROC_THREAD_STIME,
	PT_STATE = PROC_THREAD_STATE,
	PT_TGID = PROC_THREAD_TGID,
	PT_NVALS = PROC_THREAD_NFIELDS
};

struct procgroup_cache;
struct procrun;
struct procrun_sum;
struct emitter;

struct mem_proc {
	pid_t pid;
	int fd_stat, fd_status; /* kept open; -1 = none (or handed on) */
	/* the schedstat of a kernel thread or a process of one thread (kept,
	 * -1 = none, and none with the task iterator); the run time and count
	 * of runs (or the iterator's switches and threads) read before its
	 * stat was last read, and reports since (memscan.c) */
	int fd_sched;
	uint64_t run_ns, runs;
	uint16_t stat_age;
	uint16_t label_age, status_age;
	bool kthread;
	bool idle;	   /* the last report's row, kept: it did not run since */
	bool reread;	   /* kept, but its parent left: to be read again */
	bool reused;	   /* a new process on the pid of a row of the last report */
	bool status_read;  /* its status was read at this report */
	int64_t rss_pages; /* from stat, when status was last read */
	uint64_t faults;   /* minflt + majflt, when status was last read */
	double v[MP_NVALS];
	double cpu[PC_NVALS];
	char name[PROCFS_COMM_MAX]; /* comm */
	char *label;		    /* owned; NULL = not read yet */
	char *group;		    /* CONTAINER (memgroup.c), owned; NULL = none */
	uint16_t group_age;
	bool group_read;
};

/* A process's end as the kernel reported it (memexit.c). */
#define MEM_EXITS_MAX 1024
struct mem_exit {
	pid_t pid;
	int status; /* as wait(2) gives it */
};

struct mem_cand {
	pid_t pid;
	pid_t ppid;
};

/* A thread seen at the last report (proc.thread), sorted by tid. */
struct mem_thread {
	pid_t tid;
	char comm[PROCFS_COMM_MAX];
};

struct memproc {
	DIR *procdir; /* sysroot /proc, rewound for each scan */
	char buf[8192];
	struct memproc_sids sid;
	bool tree_mode, threads;
	const struct asys_options *opts; /* roots: opts->pids (main adds the workload) */
	double clk_tck;
	/* the reported set, sorted by pid; cur is built on each report */
	struct mem_proc *procs, *cur;
	size_t nprocs, ncur, cap;
	size_t old_hint;       /* where the last row of procs was found */
	struct mem_cand *cand; /* the ppid scan of the tree */
	size_t ncand, candcap;
	pid_t *tree; /* process-tree members (MEM_TREE_MAX) */
	size_t ntree;
	bool no_children;    /* the kernel has no /proc/PID/task/TID/children */
	int nfds, fd_budget; /* fds kept open, and how many may be */
	int emit_waits;	     /* ms waited for room in the ring this refresh */
	unsigned unreadable, unreadable_sent;
	unsigned unreadable_listed; /* unreadable at the last listing of /proc */
	unsigned tree_dropped;	    /* processes past MEM_TREE_MAX in this rebuild */
	bool tree_dropped_sent;
	struct mem_thread *thr, *thrn; /* proc.thread: last report's, this one's */
	size_t nthr, nthrn, thrcap;
	struct procgroup_cache *groups; /* CONTAINER names, by cgroup text */
	/* /proc/loadavg (-1 not opened, -2 not used), its last pid at the
	 * last report and the reports since /proc was listed (memscan.c) */
	int fd_loadavg;
	long long last_pid;
	uint16_t list_age;
	/* /proc/vmstat (-1 not opened, -2 not used), its reclaim counters at
	 * the last report (-1 unknown), and whether they stood still since */
	int fd_vmstat;
	long long reclaim_last;
	bool reclaim_quiet;
	/* the task iterator, tried at the first system-wide scan, and its
	 * sums of this scan (owned by run; valid when runs_valid) */
	struct procrun *run;
	bool run_tried, runs_valid;
	const struct procrun_sum *runs;
	size_t nruns;
	/* process-tree mode: the process events socket (-1: none) and the
	 * newest exits it reported, a ring (memexit.c) */
	int exit_fd;
	struct mem_exit exits[MEM_EXITS_MAX];
	size_t exit_next;
};

/* memgroup.c: the CONTAINER label of proc.cpu. */
#define MEM_GROUP_CACHE 1024
int memgroup_init(struct memproc *st);
void memgroup_fini(struct memproc *st);
/* After the row's own label: carries old's name over, or reads it again
 * when new or due, and sends it when it changed. */
void memgroup_report(struct memproc *st, struct emitter *out, uint64_t ts, struct mem_proc *old,
		     struct mem_proc *nw);

/* Closes a kept fd (counted against the budget) and sets it to -1. */
void memproc_close_fd(struct memproc *st, int *fd);
/* Reads pid's file name into st->buf through *kept, or a fresh open that
 * is kept when keep and the budget allow. Bytes, or -errno. */
ssize_t memproc_read_kept(struct memproc *st, pid_t pid, const char *name, int *kept, bool keep);
/* memscan.c: true when p may keep old's row (a kernel thread, or a process
 * of one thread while nothing is reclaimed and always is false), as it did
 * not run since its stat was read: p then holds old's row. p->fd_stat is
 * already handed on. */
bool memproc_idle_row(struct memproc *st, struct mem_proc *p, struct mem_proc *old, bool always);
/* After p's stat was read: its schedstat fd for the next report, where
 * memproc_idle_row may use it; closed where it may not. */
void memproc_sched_keep(struct memproc *st, struct mem_proc *p, bool always, bool first);
/* Before a system-wide scan: every process's run time through the task
 * iterator (procrun.h), where it can be loaded; else runs_valid is false. */
void memproc_runs_read(struct memproc *st);
/* Before a system-wide scan: whether pages were reclaimed since the last. */
void memproc_reclaim_check(struct memproc *st);
/* After it: marks the kept rows whose parent left (reread); how many. */
size_t memproc_reparented(struct memproc *st);
/* Whether /proc must be listed: a process may have started since. */
bool memproc_list_due(struct memproc *st);

/* Reads a small file below /proc/ into buf. Bytes, or -errno. */
ssize_t memproc_read_rel(struct memproc *st, const char *rel, char *buf, size_t n);
/* A failed per-process read: the process is gone (silent) or hidden (counted). */
void memproc_note_error(struct memproc *st, ssize_t rc);
/* Reads pid into the next row of cur: stat always, status when it may have
 * changed (always_status: every time). A vanished or hidden process adds
 * nothing. 0, or -E2BIG past the row cap. */
int memproc_add_cur(struct memproc *st, pid_t pid, bool always_status);
/* The next free candidate slot, or NULL. */
struct mem_cand *memproc_cand_next(struct memproc *st);
/* Process-tree mode: the rows of the tree of opts->pids (memtree.c). */
void memproc_scan_tree(struct memproc *st, bool full);
/* An emit that waits a little for the bus when the ring is full: a refresh
 * of thousands of processes is more than the ring holds at once. */
int memproc_emit(struct memproc *st, struct emitter *out, uint32_t sid, uint64_t entity,
		 uint64_t ts, const double *v, uint32_t n);
int memproc_label(struct memproc *st, struct emitter *out, uint32_t sid, uint64_t entity,
		  uint64_t ts, const char *text);
int memproc_gone(struct memproc *st, struct emitter *out, uint32_t sid, uint64_t entity,
		 uint64_t ts);
/* memexit.c: how the processes of the tree ended. Opens the process
 * events socket where it may (exit_fd stays -1 otherwise). */
void memexit_open(struct memproc *st);
void memexit_close(struct memproc *st);
/* Takes the exits reported since the last call. */
void memexit_drain(struct memproc *st);
/* "NAME (pid N) exited with status 3" (or "..., killed by signal 9
 * (Killed)") into text when pid's exit was reported; false when not. */
bool memexit_status(struct memproc *st, pid_t pid, const char *name, char *text, size_t n);
/* proc.thread for every reported process (memthread.c). */
void memproc_threads(struct memproc *st, struct emitter *out, uint64_t ts);
void memproc_threads_free(struct memproc *st);

#endif
