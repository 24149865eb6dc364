/* Everything the command line can set, for every subcommand. Collectors read
 * it (never argv); cli.c fills it and validates ranges. */
#ifndef ASYS_OPTIONS_H
#define ASYS_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum sample_scope {
	SCOPE_DEFAULT = 0, /* system-wide, or process-tree with -p or a command */
	SCOPE_PROCESS_TREE,
	SCOPE_SYSTEM_WIDE,
	SCOPE_NONE,
};

#define OPT_MAX_PIDS 64
#define OPT_PROBE_FILE_MAX (1u << 20) /* --hggc-probe-file, bytes */

struct asys_options {
	double delay_s;		      /* -d: refresh interval, 0.1..3600 */
	enum sample_scope scope;      /* -s */
	bool host_memory_sampling;    /* --host-memory-sampling */
	double host_memory_frequency; /* --host-memory-sampling-frequency 1..1000 */
	double cpu_frequency;	      /* --cpu-frequency 1..1000 (0 = the delay) */
	pid_t pids[OPT_MAX_PIDS];     /* -p */
	int npids;
	char **command;		  /* after "--", NULL-terminated, not owned */
	const char *workload_log; /* --workload-log FILE, NULL = a new temp file */
	bool no_color;		  /* --no-color or NO_COLOR */
	const char *output;	  /* -o FILE: record from the start */
	bool force;		  /* --force: replace an existing output */

	/* PPU */
	const char *ppu_metrics_device; /* all|none|help|ID list; NULL = none */
	const char *ppu_metrics_set;	/* NAME|none|help; NULL = summary */
	const char *ppu_metrics_list;	/* NAME,...|help */
	const char *check_ppu_metrics_list;
	double ppu_metrics_frequency; /* 10..10000, default 1000 */
	const char *ppu_backend;      /* hgml|nvml|NULL (auto) */

	/* NIC */
	bool nic_metrics; /* --nic-metrics: sample at the frequency below */
	bool nic_metrics_given;
	const char *nic_device_include; /* comma-joined POSIX EREs */
	double nic_metrics_frequency;	/* 1..100000, default 1000 */
	bool nic_show_all;		/* --nic-all: show inactive NICs too */

	/* runtime probes */
	bool hggc_memory_usage; /* --hggc-memory-usage */
	bool hggc_memory_usage_given;
	bool trace_hggc; /* -t hggc|none */
	const char *hggc_probe_file;

	/* record */
	double duration_s;    /* --duration, 0 = until a signal */
	uint64_t max_size;    /* --max-size bytes, 0 = none */
	uint64_t rotate_size; /* --rotate SIZE */
	double rotate_s;      /* --rotate DURATION */
	double fsync_s;	      /* --fsync-interval, default 1 */
};

void options_defaults(struct asys_options *o);
/* Resolves SCOPE_DEFAULT from -p and the command. */
enum sample_scope options_scope(const struct asys_options *o);

#endif
