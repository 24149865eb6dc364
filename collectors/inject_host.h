/* The injection host's interface (the region asys makes for a `-- cmd`
 * workload and the environment it hands over), as far as the kernel-time
 * collector uses it: the same declarations as the host's own header. */
#ifndef ASYS_INJECT_HOST_H
#define ASYS_INJECT_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The region mapped read-only, and its real size (from fstat); NULL when
 * there is none. */
const void *inject_host_map(size_t *size);
/* A section's bytes as asys may write them (the control words its layout
 * gives asys), NULL when the region or the section is missing. */
void *inject_host_section_rw(uint32_t id, size_t *len);
/* Sets the variable name to value in the workload's environment, unless the
 * user set it already: then it is left alone and the section's note says
 * so. 1 when it will be set, 0 when left, -ENOSPC when no room. */
int inject_host_env(uint32_t sec, const char *name, const char *value);
/* The path of libasys-inject.so, or NULL with why in the section's note. */
const char *inject_host_lib(uint32_t sec);
/* What a user should know about a section's injection ("" when nothing). */
const char *inject_host_note(uint32_t sec);

#endif
