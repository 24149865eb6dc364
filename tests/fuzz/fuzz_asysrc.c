/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer target: asysrc(5)'s parser takes any bytes (lines of any
 * length, NUL bytes, no newline at the end) without reading outside them,
 * its messages stay within their bound, and the settings it fills stay in
 * range. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asysrc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char msgs[ASYSRC_NOTES_MAX];
	struct cli_options o;
	struct asysrc *c;
	char *text;

	if (size > ASYSRC_FILE_MAX)
		return 0;
	/* a copy of exactly size bytes and its NUL, so a read past is caught */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	cli_options_defaults(&o);
	c = asysrc_new(OPT_CMD_TOP);
	if (!c) {
		free(text);
		return 0;
	}
	asysrc_parse(c, "fuzz", text, size, &o);
	asysrc_messages(c, msgs, sizeof(msgs));
	if (strlen(msgs) >= sizeof(msgs) || asysrc_message_count(c) < 0)
		abort();
	if (o.view.ui.panes.n > SET_LIST_MAX || o.view.ui.columns.n > SET_LIST_MAX ||
	    o.view.ui.theme < 0 || o.view.ui.theme >= SET_THEME_COUNT)
		abort();
	asysrc_free(c);
	return 0;
}
