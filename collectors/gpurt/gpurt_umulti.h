/* SPDX-License-Identifier: GPL-2.0-only */
/* gpurt: uprobe-multi links (kernel 6.6 and later). One link holds all of
 * a program's probes in one file, and closing it waits for the kernel's
 * grace periods once, where a perf-event uprobe waits once per probe
 * (about 0.1 s each on a 2-vCPU VM, mostly serialised): with 35 probes,
 * 20 ms to remove instead of 2.9 s. */
#ifndef ASYS_GPURT_UMULTI_H
#define ASYS_GPURT_UMULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_program;

/* Whether the kernel takes uprobe-multi links, asked once with a program
 * of two instructions; false as well when ASYS_UPROBE_MULTI=0. */
bool gpurt_umulti_supported(void);

/* Marks the n programs for uprobe-multi links; before the object is
 * loaded. Such a program can then not be attached as a perf-event uprobe. */
int gpurt_umulti_prepare(struct bpf_program *const *progs, size_t n);

/* One link for prog at the n file offsets of the file at path, each with
 * its cookie (cookies may be NULL: all 0); ret for return probes. The
 * link's descriptor (closing it removes the probes), or -errno. */
int gpurt_umulti_attach(const struct bpf_program *prog, const char *path, const uint64_t *off,
			const uint64_t *cookies, size_t n, bool ret);

#endif
