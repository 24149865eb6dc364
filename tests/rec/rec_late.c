/* SPDX-License-Identifier: GPL-2.0-only */
/* Writes a recording in which "nic.link" first appears late, for
 * tests/rec/late.sh:  rec_late FILE EARLY_S LATE_S [notrailer] */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_testlib.h"

int main(int argc, char **argv)
{
	uint64_t n = 0;
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: rec_late FILE EARLY_S LATE_S [notrailer]\n");
		return 2;
	}
	rc = tl_write_late(argv[1], atof(argv[2]), atof(argv[3]),
			   !(argc > 4 && !strcmp(argv[4], "notrailer")), &n);
	if (rc) {
		fprintf(stderr, "rec_late: cannot write %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	printf("%llu\n", (unsigned long long)n);
	return 0;
}
