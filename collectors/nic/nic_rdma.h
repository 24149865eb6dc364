/* SPDX-License-Identifier: GPL-2.0-only */
/* RDMA side of the NIC collector: port counters from /sys/class/infiniband
 * (kept fds, pread), hw_counters from RDMA netlink STAT_GET where the kernel
 * has it (nic_rdmanl.c) and from sysfs otherwise, the netdev of each port,
 * and the device indexes from RDMA netlink. */
#ifndef ASYS_NIC_RDMA_H
#define ASYS_NIC_RDMA_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalogue.h"

/* The nic.rdma fields, in the catalogue's order (where each is read from:
 * catalogue.h); the collector's short names for them. */
enum nic_rdma_field {
	NIC_R_RX_BYTES = NIC_RDMA_RX_BYTES,
	NIC_R_TX_BYTES = NIC_RDMA_TX_BYTES,
	NIC_R_RX_PACKETS = NIC_RDMA_RX_PACKETS,
	NIC_R_TX_PACKETS = NIC_RDMA_TX_PACKETS,
	NIC_R_XMIT_WAIT = NIC_RDMA_XMIT_WAIT,
	NIC_R_CNP_RX = NIC_RDMA_CNP_RX,
	NIC_R_CNP_TX = NIC_RDMA_CNP_TX,
	NIC_R_ECN_MARKED = NIC_RDMA_ECN_MARKED,
	NIC_R_CNP_IGNORED = NIC_RDMA_CNP_IGNORED,
	NIC_R_OUT_OF_SEQ = NIC_RDMA_OUT_OF_SEQUENCE,
	NIC_R_NFIELDS = NIC_RDMA_NFIELDS
};

#define NIC_RDMA_NAME_MAX 64

struct nic_rdma_port {
	char dev[NIC_RDMA_NAME_MAX];
	uint32_t port;
	uint32_t dev_index;	  /* kernel index (RDMA netlink) or first-seen order */
	char netdev[IF_NAMESIZE]; /* "" when not mapped */
	int fd[NIC_R_NFIELDS];	  /* -1: the counter does not exist (NaN) */
	uint64_t prev[NIC_R_NFIELDS];
	uint64_t acc[NIC_R_NFIELDS]; /* unwrapped counter */
	bool primed[NIC_R_NFIELDS];
	bool present;	/* seen by the last scan */
	bool announced; /* label sent */
	bool selected;	/* set by the collector */
	bool nl_hw;	/* hw_counters over RDMA netlink (else sysfs) */
	int nl_err;	/* why a STAT_GET failed (the port fell back) */
	uint64_t wraps, resets;
};

struct nic_rdma;

struct nic_rdma *nic_rdma_new(void);
void nic_rdma_free(struct nic_rdma *r);
/* (Re)lists the devices and ports under the sysroot. New ports get open
 * fds; vanished ones are closed and marked !present (their slot stays so the
 * caller can announce the end). Returns the number present or -errno. */
int nic_rdma_scan(struct nic_rdma *r);
size_t nic_rdma_count(const struct nic_rdma *r);
struct nic_rdma_port *nic_rdma_port_at(struct nic_rdma *r, size_t i);
/* Removes the slots of ports that are no longer present. */
void nic_rdma_reap(struct nic_rdma *r);
/* Reads every counter of a port: one RDMA netlink STAT_GET for the
 * hw_counters where that works, pread for the rest. out[] gets the unwrapped
 * counters (data words already x 4), NaN for missing ones. Returns the number
 * of counters that failed to read, or -ENODEV when all did (the port is
 * gone). A failed STAT_GET moves the port to sysfs for good. */
int nic_rdma_read(struct nic_rdma *r, struct nic_rdma_port *p, double out[NIC_R_NFIELDS]);
/* Pure unwrap step, exposed for tests: a 32- or 64-bit wrap adds the
 * wrapped distance; any other step back is a reset (counted from zero). */
uint64_t nic_rdma_unwrap(uint64_t prev, uint64_t now, uint64_t *wraps, uint64_t *resets);
/* The entity of a port in the nic.rdma stream. */
uint64_t nic_rdma_entity(const struct nic_rdma_port *p);
/* Where the counters come from (RDMA netlink or sysfs, per port), in words. */
const char *nic_rdma_source(const struct nic_rdma *r);
/* Counter file names, for the bench. */
const char *nic_rdma_counter_path(enum nic_rdma_field f);

#endif
