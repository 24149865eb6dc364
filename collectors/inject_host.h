/* A stand-in for the injection host's interface (the region asys makes for
 * a `-- cmd` workload and the environment it hands over): only what the
 * kernel-time reader uses. The real one comes with the region's creation. */
#ifndef ASYS_INJECT_HOST_H
#define ASYS_INJECT_HOST_H

#include <stddef.h>
#include <stdint.h>

/* The section of this id (enum asys_inject_section_id) of the region made
 * for the workload, with its size in *len; NULL when there is none. */
void *inject_host_section(uint32_t id, size_t *len);
/* Sets var=value for the workload, unless the user already set var: then
 * it is left alone and a status says so. 0 when set, 1 when left, or
 * -errno. */
int inject_host_set_env(const char *var, const char *value);

#endif
