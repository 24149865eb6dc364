#include "config.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "env.h"
#include "strsafe.h"
#include "util.h"

enum opt_id {
	O_HELP,
	O_DELAY,
	O_SAMPLE,
	O_HMS,
	O_HMSF,
	O_CPUF,
	O_PID,
	O_NOCOLOR,
	O_PPU_DEV,
	O_PPU_SET,
	O_PPU_LIST,
	O_PPU_CHECK,
	O_PPU_FREQ,
	O_PPU_BACKEND,
	O_NIC,
	O_NIC_INC,
	O_NIC_FREQ,
	O_NIC_ALL,
	O_HGGC_MEM,
	O_TRACE,
	O_PROBE_FILE,
	O_OUTPUT,
	O_FORCE,
	O_WORKLOAD_LOG,
	O_DURATION,
	O_MAX_SIZE,
	O_ROTATE,
	O_FSYNC,
};

struct opt {
	const char *lng;
	char shrt;
	unsigned group;
	enum opt_id id;
	const char *arg; /* NULL: takes no value */
	const char *help;
};

static const struct opt opts[] = {
    {"help", 'h', CLI_G_COMMON | CLI_G_OUTPUT, O_HELP, NULL, "show this help and exit"},
    {"delay", 'd', CLI_G_COMMON, O_DELAY, "SECONDS", "refresh interval, 0.1-3600 (default 1.0)"},
    {"sample", 's', CLI_G_COMMON, O_SAMPLE, "SCOPE",
     "process-tree|system-wide|none (default system-wide, or process-tree with -p or a command)"},
    {"host-memory-sampling", 0, CLI_G_COMMON, O_HMS, "BOOL",
     "sample host memory, true|false (default true)"},
    {"host-memory-sampling-frequency", 0, CLI_G_COMMON, O_HMSF, "HZ",
     "host memory sampling rate, 1-1000 (default 10)"},
    {"cpu-frequency", 0, CLI_G_COMMON, O_CPUF, "HZ",
     "CPU sampling rate, 1-1000 (default once per refresh)"},
    {"pid", 'p', CLI_G_COMMON, O_PID, "PID[,PID...]", "follow these processes and their children"},
    {"no-color", 0, CLI_G_COMMON, O_NOCOLOR, NULL, "draw without colour (also NO_COLOR=1)"},
    {"ppu-metrics-device", 0, CLI_G_PPU, O_PPU_DEV, "all|none|help|ID[,ID...]",
     "PPUs whose metrics are sampled (default none; device state is always shown)"},
    {"ppu-metrics-set", 0, CLI_G_PPU, O_PPU_SET, "NAME|none|help",
     "PPU metric set (default summary)"},
    {"ppu-metrics-list", 0, CLI_G_PPU, O_PPU_LIST, "NAME[,NAME...]|help",
     "extra PPU metrics, merged with the set"},
    {"check-ppu-metrics-list", 0, CLI_G_PPU, O_PPU_CHECK, "NAME[,NAME...]",
     "check a metric list against the sampling capacity and exit"},
    {"ppu-metrics-frequency", 0, CLI_G_PPU, O_PPU_FREQ, "HZ",
     "PPU metric sampling rate, 10-10000 (default 1000)"},
    {"ppu-backend", 0, CLI_G_PPU, O_PPU_BACKEND, "hgml|nvml",
     "management library to use (default: HGML, then NVML)"},
    {"nic-metrics", 0, CLI_G_NIC, O_NIC, "BOOL",
     "sample NICs at --nic-metrics-frequency, true|false (default: at the refresh rate)"},
    {"nic-device-include", 0, CLI_G_NIC, O_NIC_INC, "REGEX[,REGEX...]",
     "only NICs whose RDMA or netdev name matches one of these extended regexes"},
    {"nic-metrics-frequency", 0, CLI_G_NIC, O_NIC_FREQ, "HZ",
     "NIC sampling rate, 1-100000 (default 1000)"},
    {"nic-all", 0, CLI_G_NIC, O_NIC_ALL, NULL, "show inactive NICs too"},
    {"hggc-memory-usage", 0, CLI_G_PROBES, O_HGGC_MEM, "BOOL",
     "track device and pinned allocations with eBPF, true|false (default true)"},
    {"trace", 't', CLI_G_PROBES, O_TRACE, "hggc|none", "count kernel launches (default hggc)"},
    {"hggc-probe-file", 0, CLI_G_PROBES, O_PROBE_FILE, "FILE",
     "extra runtime libraries and symbols to probe"},
    {"workload-log", 0, CLI_G_COMMAND, O_WORKLOAD_LOG, "FILE",
     "the command's output goes to FILE (default: a new $TMPDIR/asys-workload.*.log)"},
    {"output", 'o', CLI_G_OUTPUT, O_OUTPUT, "FILE", "record to FILE (.asys)"},
    {"force", 0, CLI_G_OUTPUT, O_FORCE, NULL, "replace FILE if it exists"},
    {"duration", 0, CLI_G_RECORD, O_DURATION, "TIME",
     "stop after TIME (10s, 5m, 1h; default: until a signal)"},
    {"max-size", 0, CLI_G_RECORD, O_MAX_SIZE, "SIZE", "stop at SIZE bytes (K, M, G suffixes)"},
    {"rotate", 0, CLI_G_RECORD, O_ROTATE, "SIZE|TIME",
     "start a new segment file at SIZE or after TIME"},
    {"fsync-interval", 0, CLI_G_RECORD, O_FSYNC, "SECONDS",
     "fdatasync period, 0.1-3600 (default 1)"},
};

static const char *prog_sub;

/* An argument as it may be echoed: escaped and at most 80 bytes, since a
 * value can hold escape sequences, newlines or 100 KB. */
#define CLI_ECHO_LEN 80
#define CLI_ECHO_BUF (4 * CLI_ECHO_LEN + 8)

static const char *cli_echo(char *buf, const char *val)
{
	return str_escape(buf, CLI_ECHO_BUF, val, CLI_ECHO_LEN);
}

static int bad(const char *opt, const char *val, const char *expect)
{
	char v[CLI_ECHO_BUF];

	fprintf(stderr, "asys %s: bad value '%s' for %s: expected %s\n", prog_sub, cli_echo(v, val),
		opt, expect);
	return CLI_EXIT_USAGE;
}

int cli_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"true", "yes", "1", "on"};
	static const char *const no[] = {"false", "no", "0", "off"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int range(const char *opt, const char *val, double lo, double hi, double *out,
		 const char *what)
{
	char expect[128];

	snprintf(expect, sizeof(expect), "%s between %g and %g", what, lo, hi);
	if (util_parse_double(val, out) || *out < lo || *out > hi)
		return bad(opt, val, expect);
	return 0;
}

static int parse_pids(const char *opt, const char *val, struct asys_options *o)
{
	char *copy = strdup(val), *tok;
	int rc = 0;

	if (!copy)
		return 1;
	for (char *rest = copy; (tok = strsep(&rest, ",")) != NULL;) {
		uint64_t p;

		if (util_parse_u64(tok, &p) || p < 1 || p > INT_MAX) {
			rc = bad(opt, *tok ? tok : val,
				 "a process id (1-2147483647), or a comma-separated list");
			break;
		}
		if (o->npids >= OPT_MAX_PIDS) {
			fprintf(stderr, "asys %s: too many pids for %s: at most %d\n", prog_sub,
				opt, OPT_MAX_PIDS);
			rc = CLI_EXIT_USAGE;
			break;
		}
		if (kill((pid_t)p, 0) < 0 && errno == ESRCH) {
			fprintf(stderr, "asys %s: no process with pid %llu (%s)\n", prog_sub,
				(unsigned long long)p, opt);
			rc = CLI_EXIT_USAGE;
			break;
		}
		o->pids[o->npids++] = (pid_t)p;
	}
	if (!rc && o->npids == 0)
		rc = bad(opt, val, "a process id, or a comma-separated list");
	free(copy);
	return rc;
}

static int check_regexes(const char *opt, const char *val)
{
	char *copy = strdup(val), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return 1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		regex_t re;
		int e = regcomp(&re, tok, REG_EXTENDED | REG_NOSUB);

		if (e) {
			char msg[256], v[CLI_ECHO_BUF];

			regerror(e, &re, msg, sizeof(msg));
			fprintf(stderr, "asys %s: bad regular expression '%s' for %s: %s\n",
				prog_sub, cli_echo(v, tok), opt, msg);
			rc = CLI_EXIT_USAGE;
			break;
		}
		regfree(&re);
	}
	free(copy);
	return rc;
}

static int ids_or_words(const char *opt, const char *val, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(val, words[i]))
			return 0;
	for (const char *p = val; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p == ',' && p != val && p[1] && p[1] != ',')))
			return bad(
			    opt, val,
			    "all, none, help, or a comma-separated list of device ids (eg. 0,1)");
	return *val ? 0 : bad(opt, val, "all, none, help, or device ids");
}

/* Read once here so that a missing, oversized or special file stops the
 * command at once; the probe collector reads it again and parses it. */
static int check_probe_file(const char *opt, const char *val)
{
	char why[256], v[CLI_ECHO_BUF], *buf = NULL;
	size_t len;
	int rc = env_read_file(val, OPT_PROBE_FILE_MAX, &buf, &len, why, sizeof(why));

	free(buf);
	if (!rc)
		return 0;
	fprintf(stderr, "asys %s: cannot use %s %s: %s\n", prog_sub, opt, cli_echo(v, val), why);
	return CLI_EXIT_USAGE;
}

static int apply(const struct opt *op, const char *name, const char *val, struct asys_options *o)
{
	static const char *const devwords[] = {"all", "none", "help", NULL};
	double d;
	int rc = 0;

	switch (op->id) {
	case O_HELP:
		return 1;
	case O_DELAY:
		rc = range(name, val, 0.1, 3600, &o->delay_s, "seconds");
		break;
	case O_SAMPLE:
		if (!strcmp(val, "process-tree"))
			o->scope = SCOPE_PROCESS_TREE;
		else if (!strcmp(val, "system-wide"))
			o->scope = SCOPE_SYSTEM_WIDE;
		else if (!strcmp(val, "none"))
			o->scope = SCOPE_NONE;
		else
			rc = bad(name, val, "process-tree, system-wide or none");
		break;
	case O_HMS:
		if (cli_parse_bool(val, &o->host_memory_sampling))
			rc = bad(name, val, "true or false");
		break;
	case O_HMSF:
		rc = range(name, val, 1, 1000, &o->host_memory_frequency, "Hz");
		break;
	case O_CPUF:
		rc = range(name, val, 1, 1000, &o->cpu_frequency, "Hz");
		break;
	case O_PID:
		rc = parse_pids(name, val, o);
		break;
	case O_NOCOLOR:
		o->no_color = true;
		break;
	case O_PPU_DEV:
		rc = ids_or_words(name, val, devwords);
		o->ppu_metrics_device = val;
		break;
	case O_PPU_SET:
		if (!*val)
			rc = bad(name, val, "a metric set name, none or help");
		o->ppu_metrics_set = val;
		break;
	case O_PPU_LIST:
		if (!*val)
			rc = bad(name, val, "comma-separated metric names, or help");
		o->ppu_metrics_list = val;
		break;
	case O_PPU_CHECK:
		if (!*val)
			rc = bad(name, val, "comma-separated metric names");
		o->check_ppu_metrics_list = val;
		break;
	case O_PPU_FREQ:
		rc = range(name, val, 10, 10000, &o->ppu_metrics_frequency, "Hz");
		break;
	case O_PPU_BACKEND:
		if (strcmp(val, "hgml") && strcmp(val, "nvml"))
			rc = bad(name, val, "hgml or nvml");
		o->ppu_backend = val;
		break;
	case O_NIC:
		if (cli_parse_bool(val, &o->nic_metrics))
			rc = bad(name, val, "true or false");
		o->nic_metrics_given = true;
		break;
	case O_NIC_INC:
		rc = *val ? check_regexes(name, val)
			  : bad(name, val, "comma-separated regular expressions");
		o->nic_device_include = val;
		break;
	case O_NIC_FREQ:
		rc = range(name, val, 1, 100000, &o->nic_metrics_frequency, "Hz");
		break;
	case O_NIC_ALL:
		o->nic_show_all = true;
		break;
	case O_HGGC_MEM:
		if (cli_parse_bool(val, &o->hggc_memory_usage))
			rc = bad(name, val, "true or false");
		o->hggc_memory_usage_given = true;
		break;
	case O_TRACE:
		if (!strcmp(val, "hggc"))
			o->trace_hggc = true;
		else if (!strcmp(val, "none"))
			o->trace_hggc = false;
		else
			rc = bad(name, val, "hggc or none");
		break;
	case O_PROBE_FILE:
		rc = check_probe_file(name, val);
		o->hggc_probe_file = val;
		break;
	case O_OUTPUT:
		if (!*val)
			rc = bad(name, val, "a file name");
		o->output = val;
		break;
	case O_FORCE:
		o->force = true;
		break;
	case O_WORKLOAD_LOG:
		if (!*val)
			rc = bad(name, val, "a file name");
		o->workload_log = val;
		break;
	case O_DURATION:
		if (util_parse_duration(val, &d) || d <= 0 || d > 366.0 * 86400)
			rc = bad(name, val, "a duration such as 30s, 10m, 2h (at most 366d)");
		else
			o->duration_s = d;
		break;
	case O_MAX_SIZE:
		if (util_parse_size(val, &o->max_size) || o->max_size < 4096)
			rc = bad(name, val, "a size of at least 4K, such as 512M or 2G");
		break;
	case O_ROTATE:
		if (!util_parse_size(val, &o->rotate_size) && strpbrk(val, "KMGTPkmgtp") &&
		    o->rotate_size >= 4096)
			break;
		o->rotate_size = 0;
		if (util_parse_duration(val, &d) || d < 1 || d > 366.0 * 86400)
			rc = bad(name, val,
				 "a size (64M, 1G) or a duration of at least 1s (30s, 10m, 1h)");
		else
			o->rotate_s = d;
		break;
	case O_FSYNC:
		rc = range(name, val, 0.1, 3600, &o->fsync_s, "seconds");
		break;
	}
	return rc;
}

void cli_usage(FILE *f, const char *sub, unsigned groups)
{
	fprintf(f, "Usage: asys %s [options]%s\n\nOptions:\n", sub,
		(groups & CLI_G_COMMAND) ? " [-- command [args...]]" : "");
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		char left[96];
		const struct opt *op = &opts[i];

		if (!(op->group & groups))
			continue;
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s", op->shrt ? "-" : "",
			 op->shrt ? op->shrt : ' ', op->shrt ? ", " : "  ", op->lng,
			 op->arg ? " " : "", op->arg ? op->arg : "");
		if (!op->shrt)
			memmove(left, left + 1, strlen(left));
		fprintf(f, "  %-44s %s\n", left, op->help);
	}
	if (groups & CLI_G_COMMAND)
		fprintf(f, "\nA command after -- is started and its process tree followed.\n");
}

static const struct opt *find_long(const char *name, size_t len, unsigned groups)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if ((opts[i].group & groups) && strlen(opts[i].lng) == len &&
		    !strncmp(opts[i].lng, name, len))
			return &opts[i];
	return NULL;
}

static const struct opt *find_short(char c, unsigned groups)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if ((opts[i].group & groups) && opts[i].shrt == c)
			return &opts[i];
	return NULL;
}

int cli_parse(const char *sub, unsigned groups, int argc, char **argv, struct asys_options *o)
{
	prog_sub = sub;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct opt *op;
		char name[80], v[CLI_ECHO_BUF];
		int rc;

		if (!strcmp(a, "--")) {
			if (!(groups & CLI_G_COMMAND) || i + 1 >= argc) {
				fprintf(stderr, "asys %s: '--' must be followed by a command%s\n",
					sub,
					(groups & CLI_G_COMMAND) ? "" : " (not accepted here)");
				return CLI_EXIT_USAGE;
			}
			o->command = &argv[i + 1];
			return 0;
		}
		if (a[0] == '-' && a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			op = find_long(a + 2, len, groups);
			if (!op) {
				char opt[CLI_ECHO_LEN + 1];

				snprintf(opt, sizeof(opt), "%.*s", (int)(len + 2), a);
				fprintf(stderr,
					"asys %s: unknown option '%s' (see 'asys %s --help')\n",
					sub, cli_echo(v, opt), sub);
				return CLI_EXIT_USAGE;
			}
			snprintf(name, sizeof(name), "--%s", op->lng);
			if (eq && !op->arg) {
				fprintf(stderr, "asys %s: option %s takes no value\n", sub, name);
				return CLI_EXIT_USAGE;
			}
			val = eq ? eq + 1 : NULL;
		} else if (a[0] == '-' && a[1] && !a[2]) {
			op = find_short(a[1], groups);
			if (!op) {
				fprintf(stderr,
					"asys %s: unknown option '%s' (see 'asys %s --help')\n",
					sub, cli_echo(v, a), sub);
				return CLI_EXIT_USAGE;
			}
			snprintf(name, sizeof(name), "-%c/--%s", op->shrt, op->lng);
		} else {
			fprintf(stderr, "asys %s: unexpected argument '%s'%s\n", sub,
				cli_echo(v, a),
				(groups & CLI_G_COMMAND) ? " (put a command after --)" : "");
			return CLI_EXIT_USAGE;
		}
		if (op->arg && !val) {
			if (i + 1 >= argc) {
				fprintf(stderr, "asys %s: option %s needs a value: %s\n", sub, name,
					op->arg);
				return CLI_EXIT_USAGE;
			}
			val = argv[++i];
		}
		rc = apply(op, name, val, o);
		if (rc == 1) {
			cli_usage(stdout, sub, groups);
			return 1;
		}
		if (rc)
			return rc;
	}
	return 0;
}
