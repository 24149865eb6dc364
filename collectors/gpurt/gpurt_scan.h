/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt discovery: finds the runtime libraries in /proc/PID/maps (all
 * processes, or the followed tree), attaches the probe table once per
 * library file (by device and inode) and the discovery hook once per
 * dynamic loader file, follows the process tree, and sweeps the BPF maps of
 * processes that ended. */
#ifndef ASYS_GPURT_SCAN_H
#define ASYS_GPURT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "catalogue.h"
#include "gpurt_probes.h"
#include "options.h"

struct bpf_program;
struct bpf_link;

struct gpurt_lib {
	uint64_t dev, ino;
	unsigned probes; /* probes attached in this file */
};

/* an executable file seen in a followed process's maps */
struct gpurt_path {
	uint64_t dev, ino; /* the kernel's device number (major << 20 | minor) */
	char *path;
};

#define GPURT_PATHS_MAX 512

struct gpurt_scan {
	struct gpurt_probes probes;
	/* set by the caller after the BPF object is loaded */
	struct bpf_program *prog_save, *prog_return, *prog_free, *prog_launch, *prog_loader;
	struct bpf_program *prog_copy, *prog_range;
	int fd_targets, fd_mem, fd_ptrs, fd_launches, fd_names, fd_stub_libs, fd_stub_where;
	int fd_loaders_known, fd_copies, fd_ranges, fd_range_names, fd_range_ids;
	struct gpurt_lib *libs;
	size_t nlibs, caplibs;
	struct gpurt_lib *loaders; /* dynamic loaders with the discovery hook */
	size_t nloaders, caploaders;
	struct bpf_link **links; /* perf-event uprobes */
	size_t nlinks, caplinks;
	int *mlinks; /* uprobe-multi links' descriptors (multi) */
	size_t nmlinks, capmlinks;
	bool multi;	  /* the programs were loaded for uprobe-multi links */
	size_t nattached; /* probes attached, all files */
	size_t nmissing;  /* probes whose symbol a library lacks */
	bool track_mem, track_launch, tree;
	pid_t roots[OPT_MAX_PIDS];
	int nroots;
	const struct asys_options *opts; /* the options init was given */
	struct gpurt_path *paths;	 /* GPURT_PATHS_MAX, replaced round-robin */
	size_t npaths, next_path;
	/* system-wide: when each process's maps are next read (sorted by pid) */
	struct gpurt_seen *seen;
	size_t nseen;
	uint64_t rescan_ns; /* GPURT_RESCAN_KNOWN_NS, or ASYS_GPURT_RESCAN_MS */
	/* a report that never reached the discovery (the BPF side counts those
	 * the ring had no room for; the watch sets missed when its window is
	 * full): the next system-wide scan reads every process */
	const volatile __u64 *loader_lost;
	uint64_t lost_seen;
	bool missed;
	/* for ASYS_GPURT_STATS: maps files read, all, by the first scan and
	 * again by a later one; system-wide scans of /proc */
	uint64_t nreads, nreads_first, nreads_again, npasses;
};

/* A library file once attached covers every process that maps it, and the
 * loader hook and the exec tracepoint report the processes that load a
 * runtime library or start with an unknown loader. The scan is the safety
 * net for what they cannot see: it reads a process's maps once it is
 * GPURT_RESCAN_KNOWN_NS old, and again every GPURT_RESCAN_KNOWN_NS while
 * no event can report it (a program linked statically, a loader without
 * the hook). A process whose loader has the hook, or that maps no file (a
 * kernel thread), is read again only every GPURT_RESCAN_COVERED_FACTOR
 * times that, for an exec into a static program; every process is read at
 * the scan after a report was lost. */
#define GPURT_RESCAN_KNOWN_NS 30000000000ull
#define GPURT_RESCAN_COVERED_FACTOR 20

struct gpurt_seen {
	uint32_t pid;
	uint32_t nread; /* its maps read so far, saturating */
	uint64_t next_ns;
};

/* The runtime probes' own options (the table is in gpurt.c). */
struct gpurt_opts {
	bool memory; /* --hggc-memory-usage */
	bool memory_given;
	bool trace;		/* -t hggc|none */
	const char *probe_file; /* --hggc-probe-file */
};

struct stream_desc;

/* Their table, and what they make the collector run at: 0 (not at all) or
 * once a refresh (gpurt_opts.c). */
extern const struct opt_table gpurt_options;
double gpurt_frequency(const struct asys_options *o);
/* Per process device and pinned memory, and launches per kernel. */

/* Reads the options and the probe table (and --hggc-probe-file). */
int gpurt_scan_init(struct gpurt_scan *sc, const struct asys_options *o,
		    const struct gpurt_opts *go, char *err, size_t n);
void gpurt_scan_fini(struct gpurt_scan *sc); /* destroys the links */
/* Root, or CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) in effect. */
bool gpurt_scan_privileged(void);
/* Process-tree mode: puts the roots and their present descendants into the
 * targets map (the fork tracepoint adds later children). */
int gpurt_scan_follow_roots(struct gpurt_scan *sc, char *err, size_t n);
/* Attaches to runtime libraries mapped since the last scan; now_ns is
 * CLOCK_MONOTONIC. */
void gpurt_scan_libraries(struct gpurt_scan *sc, uint64_t now_ns);
/* Reads one process's maps and attaches to runtime libraries and dynamic
 * loaders not seen yet (and reads them once more when it hooked a loader);
 * with learn, when it maps a runtime library, also
 * notes the path of each executable file it maps. True when events will
 * report what the process loads from now on: it maps a dynamic loader
 * with the hook, or no file at all, and the read left no file for later. */
bool gpurt_scan_pid(struct gpurt_scan *sc, uint32_t pid, bool learn);
/* The path noted for a file (the kernel's device number, inode). 0 or
 * -ENOENT. */
int gpurt_scan_path(const struct gpurt_scan *sc, uint64_t dev, uint64_t ino, char *buf, size_t n);
/* Attaches to the library file at path unless seen (by device and inode)
 * or no probe wants its name. */
void gpurt_scan_file(struct gpurt_scan *sc, const char *path);
/* The command line of a process, for the gpurt.mem label (the memory pane
 * lists it even when mem.proc does not): NULs, tabs and newlines become
 * spaces; "pid N" when it cannot be read. */
void gpurt_scan_cmdline(uint32_t pid, char *buf, size_t n);
/* false once /proc/PID is gone or a zombie */
bool gpurt_scan_pid_alive(uint32_t pid);
/* Drops the process's pointers, launches and names from the BPF maps. */
void gpurt_scan_sweep_pid(struct gpurt_scan *sc, uint32_t pid);

/* gpurt_attach.c: the probes that want the library file at path (file
 * name base) attached and its kinds noted in stub_libs. With sc->multi, one
 * uprobe-multi link per program and file; else a perf-event uprobe a probe. */
void gpurt_attach_lib(struct gpurt_scan *sc, struct gpurt_lib *lib, const char *path,
		      const char *base);
/* One uprobe of prog, at the file offset off, or at sym's when off is 0,
 * kept for the end (gpurt_scan_fini): 0 or -errno. */
int gpurt_attach_kept(struct gpurt_scan *sc, struct bpf_program *prog, const char *path,
		      const char *sym, uint64_t off, uint64_t cookie, bool ret);

#endif
