/* SPDX-License-Identifier: GPL-2.0-only */
/* Probe of the RDMA side's sources for tests/nic/rdmanl.sh: lists the ports
 * under $ASYS_SYSROOT as the collector does, reads each port COUNT times and
 * prints where the counters came from (nic_rdma_source) and, per port, the
 * source of its hw_counters and the last values. With "unplug DEV" it
 * removes DEV's fixture directory between two reads and rescans; with
 * "nofds" it closes the sysfs hw_counters files first, so that what it prints
 * can only have come over netlink. With PROBE_REPLUG set, that command runs
 * after the unplug (it puts the device back) and the probe rescans again.
 *
 *   rdma_source [COUNT] [unplug DEV | nofds]
 *
 * Output lines: "source: ...", then "port DEV/N nl=0|1 rc=RC cnp_rx=V ...". */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nic_rdma.h"
#include "sysroot.h"

static void read_all(struct nic_rdma *r, int count, bool print)
{
	for (int k = 0; k < count; k++) {
		for (size_t i = 0; i < nic_rdma_count(r); i++) {
			struct nic_rdma_port *p = nic_rdma_port_at(r, i);
			double v[NIC_R_NFIELDS];
			int rc = nic_rdma_read(r, p, v);

			if (!print || k != count - 1)
				continue;
			printf("port %s/%u nl=%d rc=%d", p->dev, p->port, p->nl_hw, rc);
			for (int f = NIC_R_CNP_RX; f < NIC_R_NFIELDS; f++)
				printf(" %s=%.0f", strchr(nic_rdma_counter_path(f), '/') + 1, v[f]);
			printf("\n");
		}
		nanosleep(&(struct timespec){0, 2000000}, NULL);
	}
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 3;
	struct nic_rdma *r;
	int n;

	sysroot_set(getenv("ASYS_SYSROOT"));
	r = nic_rdma_new();
	if (!r)
		return 1;
	n = nic_rdma_scan(r);
	printf("ports: %d\n", n);
	if (argc > 2 && !strcmp(argv[2], "nofds")) {
		for (size_t i = 0; i < nic_rdma_count(r); i++) {
			struct nic_rdma_port *p = nic_rdma_port_at(r, i);

			for (int f = NIC_R_CNP_RX; f < NIC_R_NFIELDS; f++) {
				if (p->fd[f] >= 0)
					close(p->fd[f]);
				p->fd[f] = -1;
			}
		}
	}
	read_all(r, count, argc <= 3);
	if (argc > 3 && !strcmp(argv[2], "unplug")) {
		char cmd[1024];

		read_all(r, 1, false);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/class/infiniband/%s'", sysroot_get(),
			 argv[3]);
		if (system(cmd))
			return 1;
		read_all(r, 1, true); /* before the rescan: the fds still read */
		printf("source: %s\n", nic_rdma_source(r));
		printf("ports after rescan: %d\n", nic_rdma_scan(r));
		nic_rdma_reap(r);
		read_all(r, 1, true);
		if (getenv("PROBE_REPLUG")) {
			if (system(getenv("PROBE_REPLUG")))
				return 1;
			printf("ports after replug: %d\n", nic_rdma_scan(r));
			read_all(r, 1, true);
		}
	}
	printf("source: %s\n", nic_rdma_source(r));
	nic_rdma_free(r);
	return 0;
}
