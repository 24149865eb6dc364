/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "env.h"
#include "rec_export.h"
#include "strsafe.h"

static const struct cli_cmd export_cli = {
    .sub = "export",
    .cmd = OPT_CMD_EXPORT,
    .operands = "FILE...",
    .min_args = 1,
    .max_args = -1,
    .about = "Write the samples of a recording as text for scripts and plots: CSV rows\n"
	     "(t_ns,time,stream,entity,label,field,unit,value,pid,name,host), JSON lines,\n"
	     "or a summary. time is local, in ISO 8601 with its UTC offset. Several files\n"
	     "(several hosts) are merged by wall-clock time.",
    .epilog = "Damaged parts are reported on standard error and skipped. A file that cannot\n"
	      "be opened or a bad option stops the export before it writes anything (exit\n"
	      "status 1 or 2). See asys-export(1).",
};

int cmd_export(int argc, char **argv)
{
	struct cli_options ao;
	struct rec_export_opts o = {.format = REC_EXPORT_CSV};
	char shown[820];
	FILE *out = stdout;
	struct stat out_st = {0};
	int rc;

	cli_options_defaults(&ao);
	if ((rc = cli_parse(&export_cli, argc, argv, &ao)) >= 0)
		return rc;
	o.format = ao.exp.summary		  ? REC_EXPORT_SUMMARY
		   : ao.exp.format == EXPORT_JSON ? REC_EXPORT_JSON
						  : REC_EXPORT_CSV;
	o.streams = ao.exp.streams;
	o.begin = ao.play.begin;
	o.end = ao.play.end;
	if (ao.exp.output) {
		/* the rules of every file a user names for writing: no final
		 * link, and never another user's regular file; and no file at
		 * all when the export cannot start */
		int fd;

		rc = rec_export_check(&o, ao.args, ao.nargs, stderr);
		if (rc)
			return rc;
		fd = env_open_output(ao.exp.output);

		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			fprintf(stderr, "asys export: cannot create %s: %s\n",
				str_escape(shown, sizeof(shown), ao.exp.output, 200),
				strerror(fd < 0 ? -fd : errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		if (fstat(fd, &out_st) < 0)
			out_st.st_mode = 0;
	}
	rc = rec_export_files(&o, ao.args, ao.nargs, out, stderr);
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "asys export: cannot write %s: %s\n",
			str_escape(shown, sizeof(shown), ao.exp.output, 200), strerror(errno));
		rc = 1;
	}
	if (rc && S_ISREG(out_st.st_mode))
		unlink(ao.exp.output); /* a partial export is no export; a device stays */
	return rc;
}
