/* The stand-in's bodies: no region is made, so there is no section; the
 * environment is asys's own, which a workload started afterwards inherits. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "inject_host.h"

void *inject_host_section(uint32_t id, size_t *len)
{
	(void)id;
	if (len)
		*len = 0;
	return NULL;
}

int inject_host_set_env(const char *var, const char *value)
{
	const char *had = getenv(var);

	if (had && *had)
		return 1;
	return setenv(var, value, 1) ? -errno : 0;
}
