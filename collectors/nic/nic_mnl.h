/* SPDX-License-Identifier: GPL-2.0-only */
/* What the NIC collector's two netlink users share: a bound socket, and one
 * request with its answer (rtnetlink for link counters, RDMA netlink for
 * port counters). */
#ifndef ASYS_NIC_MNL_H
#define ASYS_NIC_MNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

/* A bound, close-on-exec socket of bus, with a receive timeout of timeout_s
 * seconds when above 0; its port id in *portid. NULL with -errno in *err. */
struct mnl_socket *nic_mnl_open(int bus, int timeout_s, uint32_t *portid, int *err);

/* Sends nlh and runs cb over the answer: until the end of a dump, or the
 * first batch of messages when !dump. An answer to an earlier request (its
 * sequence number differs) is skipped, at most stale_max times (< 0: no
 * limit). 0, or -errno (-ETIMEDOUT when the timeout passed). */
int nic_mnl_talk(struct mnl_socket *sock, uint32_t portid, const struct nlmsghdr *nlh, void *buf,
		 size_t bufsz, bool dump, int stale_max, mnl_cb_t cb, void *data);

#endif
