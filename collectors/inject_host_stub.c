/* Stand-in bodies for the injection host: no region, so no section; the
 * variables go into asys's own environment, which a workload started
 * afterwards inherits. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "inject_host.h"

const void *inject_host_map(size_t *size)
{
	if (size)
		*size = 0;
	return NULL;
}

void *inject_host_section_rw(uint32_t id, size_t *len)
{
	(void)id;
	if (len)
		*len = 0;
	return NULL;
}

int inject_host_env(uint32_t sec, const char *name, const char *value)
{
	const char *had = getenv(name);

	(void)sec;
	if (had && *had)
		return 0;
	return setenv(name, value, 1) ? -ENOSPC : 1;
}

const char *inject_host_lib(uint32_t sec)
{
	(void)sec;
	return NULL;
}

const char *inject_host_note(uint32_t sec)
{
	(void)sec;
	return "";
}
