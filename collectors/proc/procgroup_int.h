/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the procgroup module: the JSON look-up its name files need, here
 * so that the fuzzer reaches it too. */
#ifndef ASYS_PROCGROUP_INT_H
#define ASYS_PROCGROUP_INT_H

#include <stddef.h>

/* The string at keys[0].keys[1]... of the JSON object buf[0..len) (need
 * not be NUL-terminated), without a leading '/', into dst (cap bytes, cut
 * there) when it is 1..253 bytes of [A-Za-z0-9._-]: 1, else 0. */
int procgroup_json_name(const char *buf, size_t len, const char *const *keys, size_t nkeys,
			char *dst, size_t cap);

/* 1..max bytes of [A-Za-z0-9._-]: Docker names, Kubernetes names and
 * namespaces, host names. */
int procgroup_name_ok(const char *s, size_t n, size_t max);

#endif
