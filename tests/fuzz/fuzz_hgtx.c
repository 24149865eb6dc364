/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer target: the HGTX section of the region a workload shares with
 * asys, read by hgtx_read. The input is a list of patches (a 4-byte offset
 * into the section, a length byte, that many bytes) applied to a section
 * that starts zeroed, so short inputs reach any slot, shard, name or row.
 * The reader must not crash or read out of bounds, must keep within its
 * room, and must give labels that are terminated, with one separator and
 * no other control byte. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hgtx_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOM 1024

static struct inj_hgtx_section *sec;
static struct hgtx_row rows[ROOM];

static void check(size_t n)
{
	if (n > ROOM)
		abort();
	for (size_t i = 0; i < n; i++) {
		size_t len = strnlen(rows[i].label, HGTX_LABEL_MAX);
		int seps = 0;

		if (len == HGTX_LABEL_MAX)
			abort();
		for (size_t k = 0; k < len; k++) {
			unsigned char c = (unsigned char)rows[i].label[k];

			seps += c == 0x1f;
			if (c != 0x1f && (c < 32 || c == 127))
				abort();
		}
		if (seps != 1)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hgtx_lost lost;
	uint32_t closed = 0;

	if (!sec && !(sec = calloc(1, sizeof(*sec))))
		abort();
	memset(sec, 0, sizeof(*sec));
	while (size >= 5) {
		uint32_t off;
		size_t len = data[4];

		memcpy(&off, data, 4);
		data += 5;
		size -= 5;
		if (len > size)
			len = size;
		off %= (uint32_t)(sizeof(*sec) - len);
		memcpy((char *)sec + off, data, len);
		closed ^= off;
		data += len;
		size -= len;
	}
	check(hgtx_read(sec, sizeof(*sec), closed, rows, ROOM, &lost));
	return 0;
}
