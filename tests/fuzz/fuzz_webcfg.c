/* SPDX-License-Identifier: GPL-2.0-only */
/* libFuzzer target: the web config's reader takes any bytes (lines of any
 * length, NUL bytes, no newline at the end) without reading outside them,
 * its message stays within its bound and ends, and what it fills holds
 * to its bounds: users within the cap, names and hashes ended, paths
 * ended, versions among the four. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve_webcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct serve_webcfg c;
	char err[256];
	char *text;
	int rc;

	if (size > SERVE_WEB_FILE_MAX)
		return 0;
	/* a copy of exactly size bytes, unterminated, so a read past is caught */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	err[0] = '\0';
	rc = serve_webcfg_parse("fuzz.yml", "/etc/asys", text, size, &c, err, sizeof(err));
	if (!memchr(err, '\0', sizeof(err)))
		abort();
	if (rc == 0) {
		if (c.nusers > SERVE_WEB_USERS_MAX || (c.nusers && !c.users))
			abort();
		for (size_t i = 0; i < c.nusers; i++)
			if (!memchr(c.users[i].name, '\0', sizeof(c.users[i].name)) ||
			    strlen(c.users[i].hash) != SERVE_WEB_HASH_LEN)
				abort();
		if (!memchr(c.cert_file, '\0', sizeof(c.cert_file)) ||
		    !memchr(c.key_file, '\0', sizeof(c.key_file)) ||
		    !memchr(c.client_ca_file, '\0', sizeof(c.client_ca_file)) ||
		    c.client_auth > SERVE_CLIENT_VERIFY_IF_GIVEN)
			abort();
		if ((c.min_version &&
		     (c.min_version < SERVE_TLS10 || c.min_version > SERVE_TLS13)) ||
		    (c.max_version && (c.max_version < SERVE_TLS10 || c.max_version > SERVE_TLS13)))
			abort();
		serve_webcfg_free(&c);
	} else if (!err[0] || c.users) {
		abort();
	}
	free(text);
	return 0;
}
