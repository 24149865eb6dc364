/* SPDX-License-Identifier: GPL-2.0-only */
/* asys's side of the shared region (inject/asys_inject.h): created as a
 * memfd before a `-- cmd` workload starts, handed to it in ASYS_INJECT_FD
 * with the variables that make its tools load libasys-inject.so, and read
 * by the collectors once per refresh. One region per asys process. */
#ifndef ASYS_INJECT_HOST_H
#define ASYS_INJECT_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job_env.h"

#define INJECT_HOST_NOTE_MAX 1024
/* The library's file name; ASYS_INJECT_LIB names another path (a build tree's
 * .libs/libasys-inject.so for the tests). */
#define INJECT_HOST_LIB "libasys-inject.so"

/* Creates the region with its section table, once, its size sealed
 * (F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_SEAL) so that no process can make a
 * read of it fault; without the seals there is no region. 0 or -errno (the
 * reason is then each section's note). */
int inject_host_create(void);
/* The region mapped read-only, and its real size (from fstat); NULL when
 * there is none. */
const void *inject_host_map(size_t *size);
/* A section read-only, where asys laid it out (never where the region's
 * header, which the workload may overwrite, says), its size in *len; NULL
 * when the region or the section is missing. */
const void *inject_host_section(uint32_t id, size_t *len);
/* A section's bytes as asys may write them (the control words its layout
 * gives asys), NULL when the region or the section is missing. */
void *inject_host_section_rw(uint32_t id, size_t *len);

/* Sets the variable name to value in the job's environment env, unless the
 * user set it already: then it is left alone and the section's note says
 * so. 1 when it will be set, 0 when left, -ENOSPC when no room. */
int inject_host_env(struct job_env *env, uint32_t sec, const char *name, const char *value);
/* The path of libasys-inject.so, or NULL with why in the section's note
 * (not installed: how to install it). */
const char *inject_host_lib(uint32_t sec);
/* For a job, before its fork (a collector's prepare_job): the region,
 * created once, its descriptor kept across exec and named in
 * ASYS_INJECT_FD. 0 or -errno; a region that cannot be made is said in
 * every section's note, once. */
int inject_host_prepare(struct job_env *env);

/* Whether pid is one of the job's processes: asys's workload or one of
 * its descendants, by their parents in /proc (a process the job orphaned,
 * adopted by init, is no longer). For the pids the workload writes in the
 * region, which it may have copied from any process. */
bool inject_host_in_job(uint32_t pid);

/* What a user should know about a section's injection ("" when nothing):
 * a variable left as the user set it, the library missing. */
const char *inject_host_note(uint32_t sec);

/* Drops everything (tests). */
void inject_host_reset(void);

#endif
