/* SPDX-License-Identifier: GPL-2.0-only */
/* The RDMA fixture's devices and counter rates, shared by the helper that
 * advances them (rdma_fixture.c), the test that checks them and the bench. */
#ifndef ASYS_RDMA_FIXTURE_H
#define ASYS_RDMA_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RDMA_FIXTURE_MAX_COUNTERS 10
#define RDMA_FIXTURE_WRAP_AT 1.5  /* s: mlx5_0 port_rcv_data passes 2^32 */
#define RDMA_FIXTURE_RESET_AT 2.5 /* s: mlx5_0 port_xmit_data restarts from 0 */

struct rdma_fixture_counter {
	const char *file; /* below ports/<n>/ */
	double rate;	  /* per second */
	uint64_t start;
	bool wrap32;
	double reset_at; /* > 0: restarts from 0 at that time */
};

struct rdma_fixture_port {
	const char *dev;
	unsigned port;
	const char *netdev;
	bool netdev_by_gid; /* mapped by gid_attrs/ndevs/0, not device/net/ */
	bool bench;	    /* one of the two bench ports */
	size_t ncounters;
	struct rdma_fixture_counter counters[RDMA_FIXTURE_MAX_COUNTERS];
};

#define RDMA_FIXTURE_NPORTS 3

static const struct rdma_fixture_port rdma_fixture_ports[RDMA_FIXTURE_NPORTS] = {
    {"mlx5_0",
     1,
     "eth2",
     false,
     true,
     9,
     {
	 /* 2.5 M words/s = 10 MB/s; passes 2^32 at t = 1.5 s */
	 {"counters/port_rcv_data", 2.5e6, (1ull << 32) - (uint64_t)(2.5e6 * RDMA_FIXTURE_WRAP_AT),
	  true, 0},
	 /* 5 M words/s = 20 MB/s; reset at 2.5 s */
	 {"counters/port_xmit_data", 5e6, 7000000000ull, false, RDMA_FIXTURE_RESET_AT},
	 {"counters/port_rcv_packets", 2500, 1000, false, 0},  /* 4000 B/packet */
	 {"counters/port_xmit_packets", 5000, 1000, false, 0}, /* 4000 B/packet */
	 {"counters/port_xmit_wait", 1e6, 0, false, 0},
	 {"hw_counters/rp_cnp_handled", 200, 0, false, 0},
	 {"hw_counters/np_cnp_sent", 100, 0, false, 0},
	 {"hw_counters/np_ecn_marked_roce_packets", 300, 0, false, 0},
	 {"hw_counters/out_of_sequence", 5, 0, false, 0},
	 /* no rp_cnp_ignored: must read as NaN */
     }},
    {"mlx5_bond_0",
     1,
     "bond0",
     false,
     true,
     10,
     {
	 {"counters/port_rcv_data", 1.25e6, 0, false, 0},   /* 5 MB/s */
	 {"counters/port_xmit_data", 2.5e6, 0, false, 0},   /* 10 MB/s */
	 {"counters/port_rcv_packets", 2500, 0, false, 0},  /* 2000 B/packet */
	 {"counters/port_xmit_packets", 1250, 0, false, 0}, /* 8000 B/packet */
	 {"counters/port_xmit_wait", 0, 0, false, 0},
	 {"hw_counters/rp_cnp_handled", 10, 0, false, 0},
	 {"hw_counters/np_cnp_sent", 20, 0, false, 0},
	 {"hw_counters/np_ecn_marked_roce_packets", 30, 0, false, 0},
	 {"hw_counters/rp_cnp_ignored", 1, 0, false, 0},
	 {"hw_counters/out_of_sequence", 0, 0, false, 0},
     }},
    {"mlx5_2",
     1,
     "lo",
     true,
     false,
     2,
     {
	 {"counters/port_rcv_data", 100, 0, false, 0},
	 {"counters/port_xmit_data", 100, 0, false, 0},
     }},
};

#endif
