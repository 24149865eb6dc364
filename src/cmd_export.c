#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "env.h"
#include "rec_export.h"
#include "strsafe.h"

static void export_usage(FILE *f)
{
	fprintf(
	    f, "Usage: asys export FILE... [--format csv|json] [--streams NAME,...]\n"
	       "                   [--begin TIME] [--end TIME] [-o OUT]\n"
	       "       asys export FILE... --summary\n"
	       "\n"
	       "Write the samples of a recording as text for scripts and plots.\n"
	       "\n"
	       "  -f, --format csv|json   csv: one row per value (t_ns,time,stream,entity,label,\n"
	       "                          field,unit,value,pid,name); json: one object per\n"
	       "                          sample and line (default csv); time: local, ISO 8601\n"
	       "                          with its UTC offset\n"
	       "      --streams NAME,...  only these streams (see asys replay --info FILE)\n"
	       "      --begin TIME        from TIME: HH:MM:SS, 'YYYY-MM-DD HH:MM:SS', +DURATION\n"
	       "                          from the start, -DURATION from the end, or NN%%\n"
	       "      --end TIME          up to TIME (same forms)\n"
	       "      --summary           host, span, streams, gaps, then min, avg, max and p99\n"
	       "                          of each field (counters as rates per second)\n"
	       "  -o, --output OUT        write to OUT instead of standard output\n"
	       "  -h, --help              show this help and exit\n"
	       "\n"
	       "Damaged parts are reported on standard error and skipped. A file that cannot\n"
	       "be opened or a bad option stops the export before it writes anything (exit\n"
	       "status 1 or 2). See asys-export(1).\n");
}

int cmd_export(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"format", required_argument, NULL, 'f'}, {"streams", required_argument, NULL, 's'},
	    {"begin", required_argument, NULL, 'b'},  {"end", required_argument, NULL, 'e'},
	    {"summary", no_argument, NULL, 'S'},      {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	struct rec_export_opts o = {.format = REC_EXPORT_CSV};
	const char *outpath = NULL;
	char shown[820];
	bool summary = false;
	FILE *out = stdout;
	struct stat out_st = {0};
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "csv"))
				o.format = REC_EXPORT_CSV;
			else if (!strcmp(optarg, "json"))
				o.format = REC_EXPORT_JSON;
			else {
				fprintf(stderr,
					"asys export: bad value '%s' for --format: expected csv "
					"or json\n",
					optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 's':
			o.streams = optarg;
			break;
		case 'b':
			o.begin = optarg;
			break;
		case 'e':
			o.end = optarg;
			break;
		case 'S':
			summary = true;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		default:
			if (optopt)
				fprintf(stderr,
					"asys export: option -%c needs a value or is unknown; "
					"see asys export --help\n",
					optopt >= 0x21 && optopt < 0x7f ? optopt : '?');
			else
				fprintf(stderr,
					"asys export: unknown option '%s'; see asys export "
					"--help\n",
					str_escape(shown, sizeof(shown), argv[optind - 1], 80));
			return CLI_EXIT_USAGE;
		}
	}
	if (summary)
		o.format = REC_EXPORT_SUMMARY;
	if (optind >= argc) {
		fprintf(stderr, "asys export: no recording given; usage: asys export FILE... "
				"[--format csv|json]\n");
		return CLI_EXIT_USAGE;
	}
	if (outpath) {
		/* the rules of every file a user names for writing: no final
		 * link, and never another user's regular file; and no file at
		 * all when the export cannot start */
		int fd;

		rc = rec_export_check(&o, argv + optind, argc - optind, stderr);
		if (rc)
			return rc;
		fd = env_open_output(outpath);

		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			fprintf(stderr, "asys export: cannot create %s: %s\n",
				str_escape(shown, sizeof(shown), outpath, 200),
				strerror(fd < 0 ? -fd : errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		if (fstat(fd, &out_st) < 0)
			out_st.st_mode = 0;
	}
	rc = rec_export_files(&o, argv + optind, argc - optind, out, stderr);
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "asys export: cannot write %s: %s\n",
			str_escape(shown, sizeof(shown), outpath, 200), strerror(errno));
		rc = 1;
	}
	if (rc && S_ISREG(out_st.st_mode))
		unlink(outpath); /* a partial export is no export; a device stays */
	return rc;
}
