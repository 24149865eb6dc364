/* SPDX-License-Identifier: GPL-2.0-only */
/* Pure parsers of /proc and /sys text. They take a NUL-terminated buffer and
 * never touch files, so unit tests feed them odd content directly. Outside
 * input: nothing here trusts a length, a count or a number it reads; a value
 * that cannot be read is NaN, never 0. */
#ifndef ASYS_PROCFS_H
#define ASYS_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- /proc/stat ---------------------------------------------------------- */

/* user nice system idle iowait irq softirq steal guest guest_nice */
#define PROCFS_CPU_NFIELDS 10
/* CPU numbers at or above this are treated as garbage (Linux allows 8192). */
#define PROCFS_CPU_MAX 16384
#define PROCFS_CPU_TOTAL (-1)

struct procfs_cpu_line {
	int cpu;		      /* PROCFS_CPU_TOTAL for the "cpu" line */
	double v[PROCFS_CPU_NFIELDS]; /* jiffies; NaN where missing or garbage */
};

/* Parses the "cpu" and "cpuN" lines. Fills at most n entries in file order
 * and returns how many cpu lines there are (so a caller whose array is too
 * small can grow it and parse again), or -EINVAL when there is none. */
int procfs_parse_stat(const char *buf, struct procfs_cpu_line *out, size_t n);

/* ---- /sys/devices/system/cpu/{online,present,possible} -------------------- */

/* "0-3,5,8-191\n" -> set[i] = 1 for the listed CPUs below n (others are left
 * as they are). Returns the highest listed CPU + 1 (0 for an empty list), or
 * -EINVAL for garbage. */
int procfs_parse_cpulist(const char *buf, uint8_t *set, size_t n);

/* ---- /proc/meminfo --------------------------------------------------------- */

struct procfs_meminfo {
	/* bytes; NaN where the line is missing or garbage */
	double total, free, available, buffers, cached, swap_total, swap_free, shmem, sreclaimable;
};

/* Always succeeds: missing lines stay NaN. Returns how many known lines were read. */
int procfs_parse_meminfo(const char *buf, struct procfs_meminfo *m);
/* Used memory as free(1) of procps-ng 4 counts it: total - available, where
 * MemAvailable exists (an available above the total, as in some containers,
 * counts as free; a negative result falls back to total - free). Without
 * MemAvailable (kernels before 3.14): total - free - buffers - cached -
 * sreclaimable, missing buffers or sreclaimable counting as 0. NaN when the
 * lines it needs are unknown or the result would be negative. */
double procfs_mem_used(const struct procfs_meminfo *m);
/* free(1)'s buff/cache: buffers + cached + sreclaimable; missing buffers or
 * sreclaimable count as 0, NaN when cached is unknown. */
double procfs_mem_buff_cache(const struct procfs_meminfo *m);

/* ---- /proc/PID/status ------------------------------------------------------ */

#define PROCFS_COMM_MAX 64

struct procfs_status {
	char name[PROCFS_COMM_MAX]; /* "" when missing */
	double rss, hwm;	    /* bytes (VmRSS, VmHWM); NaN for kernel threads */
	double uid, ppid, threads;  /* real uid; NaN when missing */
};

/* Returns how many of the wanted lines were found (0 for garbage). */
int procfs_parse_status(const char *buf, struct procfs_status *s);

/* ---- /proc/PID/stat and statm ---------------------------------------------- */

#define PROCFS_PF_KTHREAD 0x00200000u /* linux/sched.h: the task is a kernel thread */

struct procfs_pid_stat {
	pid_t pid, ppid;
	char state;
	char comm[PROCFS_COMM_MAX];
	uint64_t flags;			  /* PF_*: PROCFS_PF_KTHREAD */
	uint64_t minflt, majflt;	  /* page faults: an RSS that grew took some */
	uint64_t utime, stime, starttime; /* clock ticks */
	int64_t nice;			  /* -20..19 */
	int64_t num_threads;
	int64_t rss_pages;
};

/* The comm may hold spaces and ')': it ends at the last ')'. 0 or -EINVAL. */
int procfs_parse_pid_stat(const char *buf, struct procfs_pid_stat *s);
/* /proc/PID/statm: the second number (resident pages). 0 or -EINVAL. */
int procfs_parse_statm_resident(const char *buf, uint64_t *pages);

/* ---- /proc/PID/cmdline, /proc/PID/task/TID/children ------------------------- */

/* len bytes of cmdline (NUL-separated) -> one line in out (n > 0): NULs and
 * control characters become spaces, trailing spaces go. Falls back to
 * "[comm]" when the command line is empty (kernel threads, zombies). */
void procfs_format_cmdline(const char *buf, size_t len, const char *comm, char *out, size_t n);

/* "12 345 6789 " -> pids; fills at most n, returns how many were listed (so
 * the caller can tell it was cut), or -EINVAL for garbage. */
int procfs_parse_pidlist(const char *buf, pid_t *out, size_t n);

/* A /proc directory entry name that is a pid ("123"), or -1. */
pid_t procfs_pid_from_name(const char *name);

#endif
