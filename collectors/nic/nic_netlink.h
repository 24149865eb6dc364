/* SPDX-License-Identifier: GPL-2.0-only */
/* rtnetlink side of the NIC collector: one libmnl socket, RTM_GETSTATS
 * dumps (IFLA_STATS_LINK_64) with an RTM_GETLINK (IFLA_STATS64) fallback,
 * and RTM_GETLINK dumps for the interface names. */
#ifndef ASYS_NIC_NETLINK_H
#define ASYS_NIC_NETLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "catalogue.h"

/* The values handed to nic_nl_stats_cb are the nic.link fields, in the
 * catalogue's order; the collector's short names for them. */
enum nic_link_field {
	NIC_L_RX_BYTES = NIC_LINK_RX_BYTES,
	NIC_L_TX_BYTES = NIC_LINK_TX_BYTES,
	NIC_L_RX_PACKETS = NIC_LINK_RX_PACKETS,
	NIC_L_TX_PACKETS = NIC_LINK_TX_PACKETS,
	NIC_L_RX_ERRORS = NIC_LINK_RX_ERRORS,
	NIC_L_TX_ERRORS = NIC_LINK_TX_ERRORS,
	NIC_L_RX_DROPPED = NIC_LINK_RX_DROPPED,
	NIC_L_TX_DROPPED = NIC_LINK_TX_DROPPED,
	NIC_L_NFIELDS = NIC_LINK_NFIELDS
};

struct nic_nl;

/* name is NULL for RTM_GETSTATS (it carries no name), the IFLA_IFNAME of the
 * link for the RTM_GETLINK fallback. */
typedef void (*nic_nl_stats_cb)(void *ctx, uint32_t ifindex, const char *name,
				const uint64_t v[NIC_L_NFIELDS]);
typedef void (*nic_nl_link_cb)(void *ctx, uint32_t ifindex, const char *name);

/* Opens the socket. force_getlink: skip RTM_GETSTATS (tests, old kernels).
 * Returns NULL with *err = -errno. */
struct nic_nl *nic_nl_new(bool force_getlink, int *err);
void nic_nl_free(struct nic_nl *n);
/* One stats dump; calls cb for every link. 0 or -errno. The first call
 * decides between RTM_GETSTATS and the RTM_GETLINK fallback. */
int nic_nl_dump_stats(struct nic_nl *n, nic_nl_stats_cb cb, void *ctx);
/* One RTM_GETLINK dump for the names (no stats). 0 or -errno. */
int nic_nl_dump_links(struct nic_nl *n, nic_nl_link_cb cb, void *ctx);
/* The receive buffer follows the number of links seen (about 512 B each). */
void nic_nl_size_for(struct nic_nl *n, uint32_t nlinks);
bool nic_nl_uses_getstats(const struct nic_nl *n);

#endif
