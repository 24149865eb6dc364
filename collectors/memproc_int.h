/* Internals shared by memproc.c (rows, reports, the system-wide scan) and
 * memtree.c (the process tree). Not an interface for anything else. */
#ifndef ASYS_MEMPROC_INT_H
#define ASYS_MEMPROC_INT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "memproc.h"
#include "procfs.h"

#define MEM_TOP_N 64
#define MEM_TREE_MAX 4096
#define MEM_LABEL_MAX 256
#define MEM_LABEL_REFRESH 16 /* re-read a cmdline every N reports (setproctitle) */
/* status fds kept open across reads: an open costs as much as the read */
#define MEM_FD_MAX 256

enum { MP_RSS, MP_HWM, MP_UID, MP_PPID, MP_THREADS, MP_NVALS };

struct mem_proc {
	pid_t pid;
	int fd; /* its status, kept open; -1 = none (or handed on) */
	uint32_t label_age;
	double v[MP_NVALS];
	char name[PROCFS_COMM_MAX]; /* comm when the label was read */
	char label[MEM_LABEL_MAX];  /* "" = not read yet */
};

struct mem_cand {
	pid_t pid;
	pid_t ppid; /* ppid scan only */
	double rss;
	int cur; /* its row in cur when its status was read already, else -1 */
};

/* A kernel thread seen in an earlier scan. A reused pid comes with a new
 * /proc inode (the old dentries are flushed at exit), so (pid, ino) names
 * the thread itself. */
struct mem_kthread {
	pid_t pid;
	ino_t ino;
};

struct memproc {
	DIR *procdir; /* sysroot /proc, rewound for each scan */
	char buf[8192];
	uint32_t sid_proc;
	bool tree_mode;
	const struct asys_options *opts; /* roots: opts->pids (main adds the workload) */
	double page_size;
	/* the reported set, sorted by pid; cur is built on each report */
	struct mem_proc *procs, *cur;
	size_t nprocs, ncur, cap;
	struct mem_cand *cand;
	size_t ncand, candcap;
	pid_t *tree; /* process-tree members (MEM_TREE_MAX) */
	size_t ntree;
	bool no_children; /* the kernel has no /proc/PID/task/TID/children */
	int nfds;	  /* status fds kept open */
	unsigned unreadable, unreadable_sent;
	unsigned tree_dropped; /* processes past MEM_TREE_MAX in this rebuild */
	bool tree_dropped_sent;
	/* kernel threads are most of /proc on big machines (per-CPU workers):
	 * once known they are skipped without a read. kt: last scan's, sorted
	 * by pid; ktn: this scan's */
	struct mem_kthread *kt, *ktn;
	size_t nkt, nktn, ktcap;
};

/* Reads a small file below /proc/ into buf. Bytes, or -errno. */
ssize_t memproc_read_rel(struct memproc *st, const char *rel, char *buf, size_t n);
/* A failed per-process read: the process is gone (silent) or hidden (counted). */
void memproc_note_error(struct memproc *st, ssize_t rc);
/* Reads pid's status into the next row of cur; a vanished or hidden
 * process adds nothing. 0, or -E2BIG past MEM_TREE_MAX rows. */
int memproc_add_cur(struct memproc *st, pid_t pid);
/* The next free candidate slot, or NULL. */
struct mem_cand *memproc_cand_next(struct memproc *st);
/* Process-tree mode: the rows of the tree of opts->pids (memtree.c). */
void memproc_scan_tree(struct memproc *st, bool full);

#endif
