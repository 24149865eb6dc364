/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "util.h"

static int cmd_help(int argc, char **argv);

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
    {"top", cmd_top, "live view of PPU, NIC, CPU and memory metrics"},
    {"record", cmd_record, "record the same metrics to a .asys file, without a screen"},
    {"serve", cmd_serve, "serve the same metrics to Prometheus at /metrics, without a screen"},
    {"snapshot", cmd_snapshot, "sample once and print every stream's values as JSON or text"},
    {"replay", cmd_replay, "show a recording in the asys top interface"},
    {"export", cmd_export, "write a recording's samples as CSV or JSON, or a summary"},
    {"demo", cmd_demo, "show the panes on a demo recording, without PPUs or NICs"},
    {"help", cmd_help, "show this list, or the help of a subcommand"},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: asys SUBCOMMAND [options]\n       asys --version\n\nSubcommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(f, "\nEach subcommand takes --help. See asys(1).\n");
}

static const struct subcommand *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		if (!strcmp(subcommands[i].name, name))
			return &subcommands[i];
	return NULL;
}

static void unknown(const char *name)
{
	fprintf(stderr, "asys: unknown subcommand '%s': expected one of", name);
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(stderr, "%s %s", i ? "," : "", subcommands[i].name);
	fprintf(stderr, "\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct subcommand *s;
	char *help_argv[] = {NULL, "--help", NULL};

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	s = find(argv[1]);
	if (!s || s->run == cmd_help) {
		if (!s)
			unknown(argv[1]);
		return s ? (usage(stdout), 0) : CLI_EXIT_USAGE;
	}
	help_argv[0] = argv[1];
	return s->run(2, help_argv);
}

/* Kept fds are how the collectors stay cheap (status files, sysfs counters,
 * two perf events per CPU): a 192-CPU node with many processes can pass the
 * usual soft limit of 1024, so raise it towards the hard limit. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	/* capped: a workload started with -- inherits it, and some programs
	 * loop over every possible fd */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < 65536) {
		rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* glibc raises its mmap threshold to the size of each mmapped block freed:
 * after the kernel's BTF (5 MiB, read once at start) the threshold sits at
 * 5 MiB, and libbpf's growing arrays, freed a moment later, are carved from
 * a thread's arena among live blocks, where no trim returns them (0.6 MiB
 * of RSS in about half the runs). A fixed threshold keeps every block over
 * it in mmap for good; none is allocated per tick. */
static void fix_mmap_threshold(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int main(int argc, char **argv)
{
	const struct subcommand *s;

	fix_mmap_threshold();
	setlocale(LC_ALL, "");
	raise_fd_limit();
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("asys %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	s = find(argv[1]);
	if (!s) {
		unknown(argv[1]);
		return CLI_EXIT_USAGE;
	}
	return s->run(argc - 1, argv + 1);
}
