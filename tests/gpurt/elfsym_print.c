/* SPDX-License-Identifier: GPL-2.0-only */
/* Prints "NAME OFFSET" (decimal, 0 when absent) for each name, from
 * gpurt_elf_offsets on the ELF file: tests/gpurt/elfsym.sh compares them
 * with readelf's reading of the same file. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpurt_elfsym.h"

int main(int argc, char **argv)
{
	uint64_t *off;
	int found;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ELF NAME...\n", argv[0]);
		return 2;
	}
	off = calloc((size_t)argc, sizeof(*off));
	if (!off)
		return 1;
	found = gpurt_elf_offsets(argv[1], (const char *const *)argv + 2, (size_t)argc - 2, off);
	if (found < 0) {
		fprintf(stderr, "%s: error %d\n", argv[1], found);
		free(off);
		return 1;
	}
	for (int i = 2; i < argc; i++)
		printf("%s %llu\n", argv[i], (unsigned long long)off[i - 2]);
	printf("found %d\n", found);
	free(off);
	return 0;
}
