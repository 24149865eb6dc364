#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "rec_export.h"
#include "replay_view.h"

static void replay_usage(FILE *f)
{
	fprintf(
	    f, "Usage: asys replay FILE [-d SECONDS] [--speed X] [--begin TIME]\n"
	       "       asys replay --info FILE...\n"
	       "\n"
	       "Show a recording in the same interface as asys top.\n"
	       "\n"
	       "  -d, --delay SECONDS  refresh interval of the view (default 1)\n"
	       "      --speed X        replay speed, 1/64 to 64 (default 1)\n"
	       "      --begin TIME     start at TIME (HH:MM:SS, +DURATION, NN%%)\n"
	       "      --info           print host, version, span, streams, sample counts, gaps\n"
	       "                       and damage, then exit\n"
	       "  -h, --help           show this help and exit\n"
	       "\n"
	       "Keys: space pause, . and , step one refresh, ] and [ double or halve the speed,\n"
	       "g jump to a time (14:03:10, +90s, -5m, 40%%), Shift+Left/Right 10 s back/forward,\n"
	       "q quit. See asys-replay(1).\n");
}

int cmd_replay(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"info", no_argument, NULL, 'i'},	     {"delay", required_argument, NULL, 'd'},
	    {"speed", required_argument, NULL, 'S'}, {"begin", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},	     {NULL, 0, NULL, 0},
	};
	struct replay_view a = {
	    .prog = "asys replay",
	    .no_tty = "; use 'asys replay --info' or 'asys export' without one",
	    .delay_s = 1.0,
	    .speed = 1.0,
	};
	bool info = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "d:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			info = true;
			break;
		case 'd':
			if (replay_view_parse_delay(&a, optarg))
				return CLI_EXIT_USAGE;
			break;
		case 'S':
			if (replay_view_parse_speed(&a, optarg))
				return CLI_EXIT_USAGE;
			break;
		case 'b':
			a.begin = optarg;
			break;
		case 'h':
			replay_usage(stdout);
			return 0;
		default:
			fprintf(stderr,
				"asys replay: unknown option or missing value '%s'; see asys "
				"replay --help\n",
				argv[optind - 1]);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "asys replay: no recording given; usage: asys replay FILE\n");
		return CLI_EXIT_USAGE;
	}
	if (info)
		return rec_info_files(argv + optind, argc - optind, stdout, stderr);
	if (argc - optind > 1) {
		fprintf(stderr,
			"asys replay: one recording at a time (got %d); --info takes several\n",
			argc - optind);
		return CLI_EXIT_USAGE;
	}
	a.path = argv[optind];
	return replay_view_run(&a);
}
