/* Removing the runtime probes. */
#ifndef ASYS_GPURT_UNLINK_H
#define ASYS_GPURT_UNLINK_H

#include <stddef.h>

struct bpf_link;

/* Destroys the n links. Removing a uprobe waits for RCU grace periods,
 * about 100 ms a link on a 2-vCPU VM, mostly serialised by the kernel (its
 * event mutex, which an attach takes too). The wait is taken here, before
 * asys exits: left to a process of its own it would still hold that mutex
 * when the next asys attaches, and a short job started right then would
 * run unprobed. */
void gpurt_unlink_all(struct bpf_link **links, size_t n);

#endif
