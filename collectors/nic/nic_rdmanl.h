/* SPDX-License-Identifier: GPL-2.0-only */
/* RDMA netlink (NETLINK_RDMA, nldev) for the NIC collector: the device list
 * (RDMA_NLDEV_CMD_GET dump) and the hw_counters of one port
 * (RDMA_NLDEV_CMD_STAT_GET with DEV_INDEX + PORT_INDEX: the kernel's
 * "default counter" answer, a nest of name/value entries). One kept libmnl
 * socket and preallocated buffers: nothing is allocated per request.
 * The IB port counters (port_rcv_data, ...) are not in nldev: they stay on
 * sysfs. */
#ifndef ASYS_NIC_RDMANL_H
#define ASYS_NIC_RDMANL_H

#include <stdint.h>

#include "nic_rdma.h"

struct nic_rdmanl;

/* Opens and binds the socket. NULL with *err = -errno: -EPROTONOSUPPORT on a
 * kernel without RDMA netlink (no ib_core). */
struct nic_rdmanl *nic_rdmanl_new(int *err);
void nic_rdmanl_free(struct nic_rdmanl *n);

typedef void (*nic_rdmanl_dev_cb)(void *ctx, uint32_t index, const char *name);
/* One RDMA_NLDEV_CMD_GET dump; cb for each device. 0 or -errno. */
int nic_rdmanl_list(struct nic_rdmanl *n, nic_rdmanl_dev_cb cb, void *ctx);

/* One RDMA_NLDEV_CMD_STAT_GET for device index dev_index, port port. The hw
 * counters that map to a nic.rdma field land in raw[f] with bit f set in
 * *have (the other fields are left alone). dev is the device's name: an
 * answer for another name (an index reused after a driver reload) is -ESTALE.
 * 0 or -errno: the kernel's answer (-EINVAL: no such device/port, no hw
 * stats, or a kernel older than the command; -EOPNOTSUPP), or -EPROTO for a
 * malformed answer. */
int nic_rdmanl_stat(struct nic_rdmanl *n, uint32_t dev_index, uint32_t port, const char *dev,
		    uint64_t raw[NIC_R_NFIELDS], uint32_t *have);

/* The nic.rdma field a hw_counters name feeds, or -1. */
int nic_rdmanl_field(const char *hw_counter_name);

#endif
