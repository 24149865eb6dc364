/* Removing the runtime probes without making asys's exit wait for it. */
#ifndef ASYS_GPURT_UNLINK_H
#define ASYS_GPURT_UNLINK_H

#include <stddef.h>

struct bpf_link;

/* Destroys the n links. Removing a uprobe waits for RCU grace periods,
 * about 100 ms a link on a 2-vCPU VM, mostly serialised by the kernel, so a
 * few hundred links made quitting take half a minute. With many links a
 * detached grandchild that shares their descriptors takes the last
 * references: this process's closes are then cheap, and the kernel removes
 * the uprobes when the grandchild exits, after this process is gone. */
void gpurt_unlink_all(struct bpf_link **links, size_t n);

#endif
