/* SPDX-License-Identifier: GPL-2.0-only */
/* In-process harness for the NIC tests and bench: the real nic collector,
 * engine, bus and store, as `asys top` wires them. */
#ifndef ASYS_NIC_HARNESS_H
#define ASYS_NIC_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bus.h"
#include "collector.h"
#include "engine.h"
#include "options.h"
#include "store.h"
#include "stream.h"

extern const struct collector nic_collector;

struct nic_harness {
	struct asys_options o;
	struct stream_table *t;
	struct bus *b;
	struct store *st;
	struct engine *e;
	int link_sid, rdma_sid;
};

/* Fills h->o with the NIC options; bucket_ns is the store's bucket. */
int nic_harness_start(struct nic_harness *h, double hz, const char *include, uint64_t bucket_ns);
void nic_harness_stop(struct nic_harness *h);
void nic_harness_free(struct nic_harness *h);
/* The entity of the series labelled label (or starting with it), or -1. */
int64_t nic_harness_find(struct nic_harness *h, int sid, const char *label);
void nic_sleep_ms(double ms);

#endif
