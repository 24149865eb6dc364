#include "config.h"

#include <string.h>

#include "options.h"

void options_defaults(struct asys_options *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_s = 1.0;
	o->scope = SCOPE_DEFAULT;
	o->host_memory_sampling = true;
	o->host_memory_frequency = 10;
	o->ppu_metrics_frequency = 1000;
	o->nic_metrics_frequency = 1000;
	o->hggc_memory_usage = true;
	o->trace_hggc = true;
	o->fsync_s = 1.0;
}

enum sample_scope options_scope(const struct asys_options *o)
{
	if (o->scope != SCOPE_DEFAULT)
		return o->scope;
	return (o->npids > 0 || o->command) ? SCOPE_PROCESS_TREE : SCOPE_SYSTEM_WIDE;
}
