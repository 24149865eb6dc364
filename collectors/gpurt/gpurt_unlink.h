/* SPDX-License-Identifier: GPL-2.0-only */
/* Removing the runtime probes. */
#ifndef ASYS_GPURT_UNLINK_H
#define ASYS_GPURT_UNLINK_H

#include <stddef.h>

struct bpf_link;

/* Destroys the n perf-event links and closes the nfds uprobe-multi links.
 * Removing a link waits for RCU grace periods: a perf-event uprobe once a
 * probe, about 100 ms on a 2-vCPU VM and mostly serialised by the kernel
 * (its event mutex, which an attach takes too); a uprobe-multi link once
 * for all of its probes. The wait is taken here, before asys exits: left
 * to a process of its own it would still hold that mutex when the next
 * asys attaches, and a short job started right then would run unprobed. */
void gpurt_unlink_all(struct bpf_link **links, size_t n, const int *fds, size_t nfds);

#endif
